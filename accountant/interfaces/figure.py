"""Figure 2 layout with Plotly: amplification ratio log2(eps0/eps_c) against eps0,
one line per bound, one panel per (n, s).

Files: .html (self-contained), and through a headless Chromium (Debian's ``chromium``; no
network, no extra Python package) .png (screenshot), .pdf (print of the page: vector,
fonts embedded) and .svg (Plotly.js ``toImage`` in the page: vector, text as text).  The
labels are the dashboard's (:func:`bound_label`), numbers go through
:func:`accountant.core.numfmt.fmt`; written files are one column of a two-column paper wide
(3.5 in) unless asked otherwise.
"""
from __future__ import annotations

import contextlib
import math
import os
from typing import Sequence

from accountant.interfaces.fileio import write_atomic
from accountant.core.numfmt import fmt

FIGURE_FORMATS = (".html", ".png", ".pdf", ".svg")
COLUMN_WIDTH_IN = 3.5  # one column of a two-column paper
CSS_PX_PER_IN = 96

_LABELS = {
    "blanket": "privacy blanket, exact (proved)", "lower": "certified lower bound (mechanism)",
    "lower-worst-hash": "certified lower bound (worst hash family)",
    "paper": "paper's Theorem 5 (not proved)", "theorem6-lower": "Theorem 6 (its hash family)",
    "stronger-clone": "stronger clone (FMT23)", "stronger-clone-closed": "stronger clone, closed form",
    "clone": "clone (FMT21)", "clone-closed": "clone, closed form",
    "blanket-hoeffding-generic": "blanket Hoeffding (generic)",
    "blanket-bennett-generic": "blanket Bennett (generic)",
    "blanket-hoeffding": "blanket Hoeffding (specific)", "blanket-bennett": "blanket Bennett (specific)",
    "efmrtt19": "EFMRTT19",
    "clone-approximate": "clone, (eps0, delta0)-LDP (FMT21 Thm 3.8)",
}


# one colour per bound whatever subset is drawn (a chart drawn in stages keeps its colours)
_COLOR_INDEX = {b: i for i, b in enumerate(_LABELS)}
# binary RR's searches over every dataset ('exact' is drawn under its name): the default colour
_LABELS["search"] = "every-dataset search (certified bracket)"
_PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
            "#bcbd22", "#17becf", "#ff7f0e", "#393b79", "#637939", "#8c6d31", "#843c39", "#e7ba52")

#: the colour of every bound on every chart and page (one mapping); "proved" (the smallest
#: proved upper bound of a row) shares the exact blanket's colour, "literature" (the best
#: previously published proved bound of a row) its own
BOUND_COLORS = {**{b: _PALETTE[i % len(_PALETTE)] for b, i in _COLOR_INDEX.items()},
                "proved": _PALETTE[0], "literature": "#000000",
                "search": "#a55194"}  # 'exact' keeps the default colour, its bracket 'search' its own

#: the derived curves of a table row (tables.compute_row) drawn on the default chart
CURVE_LABELS = {"proved": "proved upper bound", "lower": "certified lower bound",
                "paper": "paper's Theorem 5 (not proved)",
                "literature": "best published proved bound"}


def bound_label(name: str) -> str:
    return _LABELS.get(name, name)


def bound_color(name: str) -> str:
    """The colour of bound ``name`` (or of a derived curve, "proved" / "literature")."""
    return BOUND_COLORS.get(name, "#333333")


def default_curve_bounds(mechanism: str) -> tuple:
    """The registry bounds a row needs for the default chart of ``mechanism``: every bound
    whose minimum is the proved eps_c (bounds.headline_bounds), every published proved bound
    (bounds.published: the row's ``best_literature`` is their minimum), the certified lower
    bound and the paper's Theorem 5 value.  The row's ``proved_epsilon`` is the main line and
    ``best_literature`` the published comparison."""
    from accountant.bounds.published import published_bounds
    from accountant.bounds.registry import BOUND_NAMES, headline_bounds

    wanted = set(headline_bounds(mechanism)) | set(published_bounds(mechanism)) | {"lower", "paper"}
    return tuple(b for b in BOUND_NAMES if b in wanted)


def draft_indices(count: int, every: int = 6) -> list:
    """Indices of a curve's first draft: every ``every``-th point and the last one (a chart
    drawn in two passes shows the whole range at once, then fills in; each drafted point is
    a point of the final curve, computed once)."""
    if count < 1 or every < 1:
        raise ValueError(f"count and every must be >= 1, got {count}, {every}")
    return sorted(set(range(0, count, every)) | {count - 1})


# A first draft is drawn only when the chart's curves are expected to take longer than this
# (seconds on the dashboard's two worker processes): below it the whole chart arrives within
# the 1 s a redraw may take, and an extra drawing only costs the browser CPU the engines need
# (docs/BENCHMARKS.md).
DRAFT_FROM_SECONDS = 0.6


def draft_worth_drawing(n: int, points: int, bounds: int) -> bool:
    """Whether a chart of ``points`` values x ``bounds`` bounds at ``n`` users is slow enough
    for a first draft: a rough cost model of the curves on two worker processes, fitted to
    benchmarks/bench_amplification.py on the 2-core machine (125 tasks: 0.17-0.20 s at
    n = 1e5-1e6, 0.36 s at 1e8, 0.73 s at 1e9), ``(points x bounds / 125)(0.15 + 1.8e-5
    sqrt(n))`` seconds, against :data:`DRAFT_FROM_SECONDS`.  It decides a drawing only, never
    a number: at the defaults, a draft at n = 1e9, none at n <= 1e8."""
    tasks = max(int(points), 0) * max(int(bounds), 0)
    return tasks / 125.0 * (0.15 + 1.8e-5 * math.sqrt(max(int(n), 1))) > DRAFT_FROM_SECONDS


def literature_epsilon(row: dict):
    """The best previously published proved eps_c of a table row (None when the row has none
    or it is the proved bound itself, as for the generic randomizer)."""
    name = row.get("best_literature")
    if name is None or name == row.get("best_proved"):
        return None
    return row.get(name)


def build_figure(rows: Sequence[dict], bounds: Sequence[str], width_in: float | None = None):
    """Plotly figure from table rows (all with the same delta).  ``width_in``: the width of
    a printed figure in inches (small fonts, legend below); None: the dashboard's size."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    ns = sorted({r["n"] for r in rows})
    ss = sorted({r["s"] for r in rows}, key=lambda v: (v is None, v))
    titles = [f"n = {n:,}" + ("" if s is None else f", s = {s}") for n in ns for s in ss]
    fig = make_subplots(rows=len(ns), cols=len(ss), subplot_titles=titles, shared_yaxes=True)
    for i, n in enumerate(ns):
        for j, s in enumerate(ss):
            sub = sorted((r for r in rows if r["n"] == n and r["s"] == s), key=lambda r: r["eps0"])
            for k, b in enumerate(bounds):
                ys = [r.get(f"log2_ratio[{b}]") for r in sub]
                fig.add_trace(go.Scatter(
                    x=[r["eps0"] for r in sub], y=ys, mode="lines", name=bound_label(b),
                    legendgroup=b, showlegend=(i == 0 and j == 0),
                    line=dict(color=bound_color(b),
                              width=3 if b == "blanket" else 1.5)),
                    row=i + 1, col=j + 1)
            fig.update_xaxes(title_text="local budget eps0", row=i + 1, col=j + 1)
        fig.update_yaxes(title_text="log2(eps0 / eps_c)", row=i + 1, col=1)
    delta = rows[0]["delta"] if rows else None
    title = f"Amplification by shuffling (delta = {fmt(delta, 3)}; higher is better)"
    if width_in is None:
        fig.update_layout(title=title, height=380 * len(ns), width=520 * len(ss) + 260,
                          template="plotly_white")
        return fig
    width = int(round(width_in * CSS_PX_PER_IN))
    legend_px = 11 * len(bounds) + 8  # one entry per line below the panels
    panels_px = int(0.7 * width / max(1, len(ss))) * len(ns) + 30 * len(ns)
    height = panels_px + 30 + 28 + legend_px
    fig.update_layout(title=dict(text=f"delta = {fmt(delta, 3)}; higher is better", font=dict(size=9)),
                      height=height, width=width, template="plotly_white",
                      font=dict(size=7, family="DejaVu Sans, Liberation Sans, Arial, sans-serif"),
                      margin=dict(l=40, r=8, t=30, b=28 + legend_px),
                      legend=dict(orientation="v", yref="container", y=0.0, yanchor="bottom",
                                  xanchor="left", x=0.0, font=dict(size=7), tracegroupgap=0))
    fig.update_annotations(font_size=8)
    return fig


CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run",
                  "--hide-scrollbars")


def find_chromium() -> str | None:
    import shutil

    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _death_signal_prefix() -> list:
    """``setpriv --pdeathsig KILL`` (util-linux) when available: Chromium is then killed by
    the kernel when this process dies, even by SIGKILL (no ``finally`` runs then); without
    it, the next export removes what is left (:func:`clean_stale_scratch`)."""
    import shutil

    exe = shutil.which("setpriv")
    return [exe, "--pdeathsig", "KILL"] if exe else []


def _run_chromium(args: list, what: str, tmp: str, timeout: float = 120) -> bytes:
    """Run headless Chromium on ``args`` and return what it printed; its profile and its own
    temporary files (org.chromium.*) go into ``tmp``.  It runs in a session (process group)
    of its own, and on any way out (a Ctrl-C or SIGTERM included) that whole group
    (renderers, zygote) is killed before ``tmp`` is removed (:func:`_scratch`); if this
    process is killed outright, the kernel kills Chromium (:func:`_death_signal_prefix`)
    and the next export removes the rest (:func:`clean_stale_scratch`)."""
    import subprocess

    exe = find_chromium()
    if exe is None:
        raise ValueError(f"out: {what} export needs a Chromium browser (Debian package 'chromium'); use .html")
    cmd = [*_death_signal_prefix(), exe, *CHROMIUM_FLAGS,
           f"--user-data-dir={os.path.join(tmp, 'profile')}", *args]
    proc = None
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                stdin=subprocess.DEVNULL, start_new_session=True,
                                env=dict(os.environ, TMPDIR=tmp))
        out, _ = proc.communicate(timeout=timeout)
        return out
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ValueError(f"out: Chromium could not render the {what} ({exc.__class__.__name__})") from exc
    finally:
        _stop_browser(proc)


SCRATCH_PREFIX = "accountant-figure-"
# Chromium puts a Unix socket at TMP/.org.chromium.Chromium.XXXXXX/SingletonSocket inside the
# scratch directory TMP; a socket path holds at most 107 bytes (Linux sun_path)
_SOCKET_PATH_MAX = 107
_SOCKET_TAIL = len("/.org.chromium.Chromium.XXXXXX/SingletonSocket")
_SCRATCH_NAME = len(SCRATCH_PREFIX) + 7 + 1 + 8  # prefix, pid (<= 4194304), "-", mkdtemp's 8
LEGACY_STALE_SECONDS = 3600.0  # folders of older versions (no pid in the name)


def scratch_base() -> str:
    """Where Chromium's scratch directory goes: the temporary directory (``$TMPDIR``) if the
    socket path Chromium makes inside it fits, else ``/tmp`` (then ``/dev/shm``): a long
    ``$TMPDIR`` must not make every export fail."""
    import tempfile

    room = _SOCKET_PATH_MAX - _SOCKET_TAIL - _SCRATCH_NAME - 1
    candidates = [tempfile.gettempdir(), "/tmp", "/dev/shm"]
    for base in candidates:
        base = os.path.realpath(base)
        if len(base) <= room and os.path.isdir(base) and os.access(base, os.W_OK | os.X_OK):
            return base
    raise ValueError(f"out: no temporary directory with a path of at most {room} characters for "
                     f"Chromium's socket ($TMPDIR = {candidates[0]!r} is too long and /tmp is not "
                     f"writable); set TMPDIR to a short directory or use .html")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, another user's
        return True
    return True


def _kill_users_of(folder: str) -> None:
    """SIGKILL every process of ours whose command line names ``folder`` (a Chromium left
    over from a killed export: its --user-data-dir is inside the folder)."""
    import signal

    needle = os.fsencode(folder + os.sep)
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return
    for pid in pids:
        try:
            if os.stat(f"/proc/{pid}").st_uid != os.getuid():
                continue
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if needle not in fh.read():
                    continue
            os.kill(pid, signal.SIGKILL)
        except (OSError, ValueError):
            continue


def clean_stale_scratch(base: str | None = None, now: float | None = None) -> list:
    """Remove the scratch folders of exports that were killed (``accountant-figure-PID-*``
    whose process PID is gone; folders of older versions, without a pid, once an hour old),
    first killing any Chromium still running in them; returns the folders removed."""
    import stat
    import time

    base = scratch_base() if base is None else base
    now = time.time() if now is None else now
    removed = []
    try:
        names = [n for n in os.listdir(base) if n.startswith(SCRATCH_PREFIX)]
    except OSError:
        return removed
    for name in names:
        path = os.path.join(base, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
            continue
        rest = name[len(SCRATCH_PREFIX):]
        head = rest.split("-", 1)[0]
        if "-" in rest and head.isdigit():
            if _pid_alive(int(head)):
                continue
        elif now - st.st_mtime < LEGACY_STALE_SECONDS:
            continue
        _kill_users_of(path)
        _remove_tree(path)
        if not os.path.exists(path):
            removed.append(path)
    return removed


@contextlib.contextmanager
def _scratch():
    """A temporary directory for one Chromium run (``accountant-figure-PID-XXXXXXXX`` in
    :func:`scratch_base`), removed on every way out; stale ones of killed runs are removed
    first."""
    import tempfile

    base = scratch_base()
    clean_stale_scratch(base)
    tmp = tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-", dir=base)
    try:
        yield tmp
    finally:
        _remove_tree(tmp)


def html_to_png(html: str, width: int, height: int, scale: float = 1.0) -> bytes:
    """Render a self-contained HTML page to PNG with a headless Chromium (Debian's
    ``chromium`` package); raises ValueError if none is installed or it fails."""
    with _scratch() as tmp:
        page = os.path.join(tmp, "figure.html")
        png = os.path.join(tmp, "figure.png")
        with open(page, "w", encoding="utf-8") as fh:
            fh.write(html)
        _run_chromium([f"--window-size={width},{height}", f"--force-device-scale-factor={scale:g}",
                       "--virtual-time-budget=10000", f"--screenshot={png}", "file://" + page], "PNG", tmp)
        if not os.path.exists(png) or os.path.getsize(png) == 0:
            raise ValueError("out: Chromium did not produce the PNG; use .html")
        with open(png, "rb") as fh:
            return fh.read()


def _stop_browser(proc) -> None:
    """Kill Chromium's whole process group (it forks renderers that write to the profile)."""
    import signal
    import subprocess

    if proc is None:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL does not wait
        pass


def _remove_tree(path: str) -> None:
    """Remove the temporary profile; a process of the group may still be exiting, so retry."""
    import shutil
    import time

    for _ in range(50):
        shutil.rmtree(path, ignore_errors=True)
        if not os.path.exists(path):
            return
        time.sleep(0.1)


def _page(fig, width: int, height: int, script: str = "") -> str:
    """The figure alone on a page of its own size (no margins), plotly.js inlined."""
    div = fig.to_html(include_plotlyjs=True, full_html=False, div_id="fig",
                      config={"staticPlot": True, "displayModeBar": False})
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><style>"
            f"@page {{ size: {width}px {height}px; margin: 0 }} html, body {{ margin: 0; padding: 0; }}"
            f"</style></head><body>{div}{script}</body></html>")


def html_to_pdf(fig, width: int, height: int) -> bytes:
    """Vector PDF of the figure: Chromium prints the page (the plot is SVG in the page, so
    text stays text and fonts are embedded as subsets)."""
    with _scratch() as tmp:
        page = os.path.join(tmp, "figure.html")
        pdf = os.path.join(tmp, "figure.pdf")
        with open(page, "w", encoding="utf-8") as fh:
            fh.write(_page(fig, width, height))
        _run_chromium(["--no-pdf-header-footer", "--virtual-time-budget=10000", f"--print-to-pdf={pdf}",
                       "file://" + page], "PDF", tmp)
        if not os.path.exists(pdf) or os.path.getsize(pdf) == 0:
            raise ValueError("out: Chromium did not produce the PDF; use .html")
        with open(pdf, "rb") as fh:
            return fh.read()


_SVG_SCRIPT = """<pre id="svgout"></pre><script>
Plotly.toImage(document.getElementById('fig'), {format: 'svg', width: %d, height: %d}).then(function (url) {
  var text = decodeURIComponent(url.slice(url.indexOf(',') + 1));
  document.getElementById('svgout').textContent = btoa(unescape(encodeURIComponent(text)));
});
</script>"""


def html_to_svg(fig, width: int, height: int) -> bytes:
    """SVG of the figure from Plotly.js's own ``toImage`` in a headless Chromium page (the
    page's DOM is dumped; the SVG travels base64-encoded so no markup is re-parsed)."""
    import base64
    import re

    with _scratch() as tmp:
        page = os.path.join(tmp, "figure.html")
        with open(page, "w", encoding="utf-8") as fh:
            fh.write(_page(fig, width, height, _SVG_SCRIPT % (width, height)))
        res = _run_chromium(["--virtual-time-budget=10000", "--dump-dom", "file://" + page], "SVG", tmp)
    m = re.search(r'<pre id="svgout">([A-Za-z0-9+/=]+)</pre>', res.decode("utf-8", "replace"))
    if m is None:
        raise ValueError("out: Chromium did not produce the SVG; use .html")
    data = base64.b64decode(m.group(1))
    if not data.lstrip().startswith(b"<svg"):
        raise ValueError("out: Chromium produced no SVG document; use .html")
    return data


def write_figure(rows: Sequence[dict], bounds: Sequence[str], path: str,
                 width_in: float | None = COLUMN_WIDTH_IN) -> None:
    """Write the Figure 2 layout as .html (self-contained), .png, .pdf or .svg, whole or not
    at all; ``width_in`` inches wide (default one column; None: the dashboard's size)."""
    ext = os.path.splitext(path)[1].lower()
    if ext not in FIGURE_FORMATS:
        raise ValueError(f"out must end in {', '.join(FIGURE_FORMATS)}, got {path!r}")
    fig = build_figure(rows, bounds, COLUMN_WIDTH_IN if width_in is None else width_in)
    width, height = int(fig.layout.width), int(fig.layout.height)
    if ext == ".html":
        data = fig.to_html(include_plotlyjs=True, full_html=True)
    elif ext == ".pdf":
        data = html_to_pdf(fig, width, height)
    elif ext == ".svg":
        data = html_to_svg(fig, width, height)
    else:
        data = html_to_png(_page(fig, width, height), width, height, scale=4.0)
    write_atomic(path, data)
