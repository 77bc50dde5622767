"""End-to-end: the dashboard served by ``streamlit run`` and driven in headless Chromium.

Needs Debian's ``chromium`` at /usr/bin/chromium (or $CHROMIUM) and the ``playwright``
Python package (its bundled browsers are NOT used; nothing is downloaded).  The test
fails, never skips, when either is missing.  It saves a screenshot of every page to a
temporary folder; with ``REFRESH_SCREENSHOTS=1`` to docs/screenshots/ (referenced from the
README), so that a plain test run leaves the work tree clean.  It checks that no request
leaves localhost, that the privacy headline is the proved bound, that no metric is cut
off, and records redraw times (printed, and written to $REDRAW_TIMES if set; "whole page" ends
when the app's script state, ``data-test-script-state`` on ``stApp``, is back to "notRunning").
"""
import os
import socket
import subprocess
import sys
import json
import tempfile
import time
import urllib.parse
import urllib.request

import pytest
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
SHOTS = (os.path.join(ROOT, "docs", "screenshots") if os.environ.get("REFRESH_SCREENSHOTS") == "1"
         else tempfile.mkdtemp(prefix="shuffle-dp-shots-"))
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run",
         "--disable-dev-shm-usage"]
PAGES = [("amplification", "Amplification", "Amplification by shuffling"),
         ("utility", "Utility", "Utility of Collision and CoCo"),
         ("planner", "Planner", "Deployment planner"),
         ("tables", "Tables", "Tables of bounds"),
         ("simulation", "Simulation", "Simulation"),
         ("frequency", "Frequency", "Frequency estimation with blanket messages (FE0/FE1)"),
         ("rounds", "Rounds", "Many rounds")]
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        pytest.fail(f"Chromium not found at {CHROMIUM}: install Debian's 'chromium' package "
                    f"(apt-get install -y chromium) or set $CHROMIUM")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.fail("the 'playwright' Python package is missing: pip install playwright "
                    "(its browser download is not needed; Debian's chromium is used)")
    port = _free_port()
    log = tempfile.TemporaryFile()
    env = dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", os.path.join("app", "Home.py"),
         "--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1",
         "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            if proc.poll() is not None:
                log.seek(0)
                pytest.fail(f"streamlit exited with {proc.returncode}:\n{log.read().decode()[-3000:]}")
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                    if r.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if time.time() > deadline:
                pytest.fail("streamlit did not answer on /_stcore/health within 60 s")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.seek(0)
        out = log.read().decode(errors="replace")
        log.close()
        assert "Traceback" not in out, out[-3000:]
        # the newest streamlit the range allows warns of nothing the pages call
        assert "deprecat" not in out.lower(), out[-3000:]


@pytest.fixture(scope="module")
def browser_page(server):
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.on("console", lambda m: errors.append(f"console.{m.type}: {m.text}")
                    if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
            page.on("response", lambda r: errors.append(f"HTTP {r.status}: {r.url}")
                    if r.status >= 400 else None)
            page.on("request", lambda r: errors.append(f"request left localhost: {r.url}")
                    if not _is_local(r.url) else None)
            yield page, errors
        finally:
            browser.close()


def _is_local(url: str) -> bool:
    u = urllib.parse.urlsplit(url)
    return u.scheme in ("data", "blob", "about") or u.hostname in LOCAL_HOSTS


def _cut_metrics(page) -> list[str]:
    """Metric labels/values that are truncated (ellipsis, or text wider than its box)."""
    return page.evaluate(
        "() => Array.from(document.querySelectorAll('[data-testid=\"stMetricLabel\"], "
        "[data-testid=\"stMetricValue\"]')).filter(e => { const t = e.innerText.trim(); "
        "const inner = e.querySelector('p, div') || e; "
        "return t.endsWith('\u2026') || t.endsWith('...') || inner.scrollWidth > inner.clientWidth + 1; })"
        ".map(e => e.innerText.trim())")


# Streamlit's app root carries the script's run state: data-test-script-state on
# [data-testid="stApp"] is "running" (or "rerunRequested") while the page's script runs and
# "notRunning" once it has finished (streamlit/static: ScriptRunState.NOT_RUNNING; "initial"
# before the first run).  The status widget the idle wait once looked for is not drawn in a
# headless run, so waiting on its absence could stop the clock before the script finished.
_IDLE_JS = ("() => { const app = document.querySelector('[data-testid=\"stApp\"]');"
            " return app && app.getAttribute('data-test-script-state') === 'notRunning' &&"
            " !document.querySelector('[data-testid=\"stSpinner\"]'); }")

# installed before an input changes: records when the script run it starts has finished
# (browser clock), so a run that is over before Python looks is still timed
_WATCH_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (window.__stObs) window.__stObs.disconnect();
  window.__st = {running: false, doneAt: null};
  window.__stObs = new MutationObserver(() => {
    const s = app.getAttribute('data-test-script-state');
    if (s === 'running' || s === 'rerunRequested') { window.__st.running = true; window.__st.doneAt = null; }
    else if (s === 'notRunning' && window.__st.running) { window.__st.doneAt = performance.now(); }
  });
  window.__stObs.observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
  return performance.now();
}"""


def _wait_idle(page, timeout=60_000):
    """Wait until the script run is finished (the app's script state is "notRunning", no spinner)."""
    page.wait_for_timeout(300)
    page.wait_for_function(_IDLE_JS, timeout=timeout)
    page.wait_for_timeout(700)


def _watch_run(page) -> float:
    """Start watching the app's script state; returns the browser clock (ms)."""
    return page.evaluate(_WATCH_JS)


def _run_seconds(page, since_ms: float, timeout=300_000) -> float:
    """Seconds from ``since_ms`` (:func:`_watch_run`) until the script run started after it
    has finished (its state back to "notRunning")."""
    page.wait_for_function("() => window.__st && window.__st.running && window.__st.doneAt !== null && ("
                           + _IDLE_JS + ")()", timeout=timeout)
    return (page.evaluate("() => window.__st.doneAt") - since_ms) / 1000.0


def _shoot(page, name):
    os.makedirs(SHOTS, exist_ok=True)
    # the main area scrolls inside its own container: grow the viewport to the content
    h = page.evaluate("() => Math.max(...Array.from(document.querySelectorAll("
                      "'[data-testid=\"stMain\"], section.main, [data-testid=\"stAppViewContainer\"]'))"
                      ".map(e => e.scrollHeight), document.body.scrollHeight)")
    page.set_viewport_size({"width": 1400, "height": int(min(max(h, 1000), 6000))})
    page.wait_for_timeout(800)
    page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)
    page.set_viewport_size({"width": 1400, "height": 1000})


def _nav(page, name):
    page.locator('[data-testid="stSidebarNav"] a').filter(has_text=name).first.click()


def _metric(page, label):
    loc = page.locator('[data-testid="stMetric"]').filter(has_text=label)
    return loc.first.locator('[data-testid="stMetricValue"]').inner_text().strip()


def _wait_metric_change(page, label, before, timeout=120_000):
    page.wait_for_function(
        "([l, b]) => { const m = Array.from(document.querySelectorAll('[data-testid=\"stMetric\"]'))"
        ".find(e => e.innerText.includes(l));"
        " return m && !m.innerText.includes(b); }", arg=[label, before], timeout=timeout)


def _table_cells(page, name: str) -> list[str]:
    """The text of the rendered cells of every visible st.dataframe (glide's accessible grid,
    drawn for a table in view: each table is scrolled into view first)."""
    from playwright.sync_api import TimeoutError as PwTimeout

    cells: list[str] = []
    frames = page.locator('[data-testid="stDataFrame"]')
    for i in range(frames.count()):
        frame = frames.nth(i)
        if not frame.is_visible():
            continue  # e.g. inside a closed expander
        frame.scroll_into_view_if_needed()
        sel = '[role="gridcell"], td'
        try:
            page.wait_for_function("(e) => e.querySelectorAll('[role=\"gridcell\"], td').length > 0",
                                   arg=frame.element_handle(), timeout=10_000)
        except PwTimeout:
            raise AssertionError(f"{name}: table {i} shows no cells: {frame.inner_text()[:300]!r}")
        cells += frame.locator(sel).evaluate_all("els => els.map(e => e.innerText.trim())")
    return cells


def _no_none_cells(page, name):
    cells = _table_cells(page, name)
    bad = [c for c in cells if c.lower() in ("none", "nan", "null", "n/a")]
    assert not bad, (name, bad[:10])
    return len(cells)


def _legend(page, nth=0) -> list[str]:
    return page.locator(".js-plotly-plot").nth(nth).locator(".legendtext").evaluate_all(
        "els => els.map(e => e.textContent)")


def _time_n(page, box, value: int, times: dict, head: str, before: str) -> str:
    """Set n, record the times to the new headline, the first chart with the new n in its
    title (the first draft) and the whole page (every curve in: the caption says so)."""
    label = f"n = {value:,}"
    box.fill(str(value))
    since = _watch_run(page)
    start = time.time()
    box.press("Enter")
    _wait_metric_change(page, head, before)
    times[f"Amplification: {label}, headline"] = time.time() - start
    page.wait_for_function(
        "(l) => Array.from(document.querySelectorAll('.js-plotly-plot .gtitle'))"
        ".some(e => e.textContent.includes(l))", arg=label, timeout=300_000)
    times[f"Amplification: {label}, first chart"] = time.time() - start
    page.wait_for_function(
        "(l) => Array.from(document.querySelectorAll('[data-testid=\"stCaptionContainer\"]'))"
        ".some(e => e.innerText.includes('bounds computed at') && e.innerText.includes(l))",
        arg=label, timeout=300_000)
    # the whole page: until the script run is over (the app's script state), not a widget
    times[f"Amplification: {label}, whole page"] = _run_seconds(page, since)
    _wait_idle(page)
    return _metric(page, head)


def test_dashboard_in_chromium(server, browser_page):
    page, errors = browser_page
    t0 = time.time()
    times: dict[str, float] = {}
    page.goto(server, wait_until="domcontentloaded")
    page.get_by_role("heading", name="Shuffle-model DP toolkit").wait_for(timeout=60_000)
    _wait_idle(page)
    # Home names and links every page, with the question it answers
    links = page.locator('[data-testid="stPageLink"]').all_inner_texts()
    for _, path, _ in PAGES:
        assert any(t.strip().startswith(path + ":") for t in links), (path, links)
    _shoot(page, "home")

    # Amplification: the headline is the proved bound; change n to 1e9 and time the redraw
    # navigate with the sidebar's page links (client-side): loading a deep URL makes the
    # frontend probe <page>/_stcore/health first, a 404 by design that would pollute the console
    head = "eps_c, proved upper bound"
    since = _watch_run(page)
    _nav(page, "Amplification")
    page.get_by_role("heading", name="Amplification by shuffling").wait_for(timeout=60_000)
    page.locator('[data-testid="stMetric"]').first.wait_for(timeout=60_000)
    page.locator(".js-plotly-plot").nth(1).wait_for(timeout=60_000)
    # the first visit at the defaults (n = 100,000): the whole page, by the script state
    times["Amplification: defaults (first visit), whole page"] = _run_seconds(page, since)
    _wait_idle(page)
    labels = page.locator('[data-testid="stMetricLabel"]').all_inner_texts()
    assert labels and labels[0].strip() == head, labels
    # the first chart at the defaults is the answer: the proved bound over the certified lower
    # band, at most six curves
    legend = _legend(page)
    assert "proved upper bound" in legend and "certified lower bound" in legend, legend
    assert "paper's Theorem 5 (not proved)" in legend and len(legend) <= 6, legend
    assert _no_none_cells(page, "amplification") > 0
    before = _metric(page, head)
    box = page.get_by_label("n (users)")
    mid = _time_n(page, box, 100_000_000, times, head, before)
    assert float(mid) < float(before), (before, mid)
    _time_n(page, box, 1_000_000_000, times, head, mid)
    legend = _legend(page)
    assert "proved upper bound" in legend and len(legend) <= 6, legend
    _wait_idle(page)
    after = _metric(page, head)
    assert float(after) < float(before), (before, after)
    box.fill("100000")
    box.press("Enter")
    page.wait_for_function(
        "(b) => { const m = Array.from(document.querySelectorAll('[data-testid=\"stMetric\"]'))"
        ".find(e => e.innerText.includes(\"eps_c, proved upper bound\"));"
        " return m && m.innerText.includes(b); }", arg=before, timeout=60_000)
    _wait_idle(page)
    box.blur()
    page.wait_for_timeout(300)
    assert not _cut_metrics(page), _cut_metrics(page)
    _shoot(page, "amplification")

    for name, path, heading in PAGES[1:]:
        _nav(page, path)
        page.get_by_role("heading", name=heading, exact=True).wait_for(timeout=60_000)
        if name == "simulation":
            page.get_by_role("button", name="Run simulation").click()
            page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
        elif name == "frequency":
            page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
            _wait_idle(page)
            page.get_by_role("button", name="Simulate", exact=True).click()
            page.locator('[data-testid="stMetric"]').filter(
                has_text="max abs error (exact)").first.wait_for(timeout=90_000)
        elif name == "tables":
            page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=60_000)
        else:
            page.locator(".js-plotly-plot").first.wait_for(timeout=120_000)
        _wait_idle(page, timeout=120_000)
        if name == "planner":
            code = page.locator('[data-testid="stCode"]').first.inner_text()
            assert "proved upper bound" in code, code
            before = _metric(page, "local eps0")
            target = page.get_by_label("target central eps_c")
            target.fill("1.00")
            since = _watch_run(page)
            target.press("Enter")  # the page redraws on the change (no button)
            _wait_metric_change(page, "local eps0", before)
            times["Planner: target eps_c 0.5 -> 1 (redraw)"] = _run_seconds(page, since, 120_000)
            _wait_idle(page, timeout=120_000)
            assert float(_metric(page, "local eps0")) > float(before)
        if name == "rounds":
            labels = page.locator('[data-testid="stMetricLabel"]').all_inner_texts()
            assert labels and labels[0].strip() == "PLD eps (upper bound)", labels
        assert not page.locator('[data-testid="stException"]').count(), name
        _no_none_cells(page, name)
        assert not _cut_metrics(page), (name, _cut_metrics(page))
        _shoot(page, name)

    print("redraw times (s):", json.dumps({k: round(v, 2) for k, v in times.items()}))
    if os.environ.get("REDRAW_TIMES"):
        with open(os.environ["REDRAW_TIMES"], "w") as fh:
            json.dump(times, fh, indent=1)
    assert not errors, "\n".join(errors)
    for name, _, _ in PAGES:
        assert os.path.getsize(os.path.join(SHOTS, f"{name}.png")) > 10_000
    assert time.time() - t0 < 300
