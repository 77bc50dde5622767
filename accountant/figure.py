"""Figure 2 layout with Plotly: amplification ratio log2(eps0/eps_c) against eps0,
one line per bound, one panel per (n, s)."""
from __future__ import annotations

import os
from typing import Sequence

from .fileio import write_atomic

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
}


# one colour per bound whatever subset is drawn (a chart drawn in stages keeps its colours)
_COLOR_INDEX = {b: i for i, b in enumerate(_LABELS)}


def bound_label(name: str) -> str:
    return _LABELS.get(name, name)


def build_figure(rows: Sequence[dict], bounds: Sequence[str]):
    """Plotly figure from table rows (all with the same delta)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    ns = sorted({r["n"] for r in rows})
    ss = sorted({r["s"] for r in rows}, key=lambda v: (v is None, v))
    titles = [f"n = {n:g}, s = {s}" for n in ns for s in ss]
    fig = make_subplots(rows=len(ns), cols=len(ss), subplot_titles=titles, shared_yaxes=True)
    palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
               "#bcbd22", "#17becf", "#ff7f0e", "#393b79", "#637939", "#8c6d31", "#843c39"]
    for i, n in enumerate(ns):
        for j, s in enumerate(ss):
            sub = sorted((r for r in rows if r["n"] == n and r["s"] == s), key=lambda r: r["eps0"])
            for k, b in enumerate(bounds):
                ys = [r.get(f"log2_ratio[{b}]") for r in sub]
                fig.add_trace(go.Scatter(
                    x=[r["eps0"] for r in sub], y=ys, mode="lines", name=bound_label(b),
                    legendgroup=b, showlegend=(i == 0 and j == 0),
                    line=dict(color=palette[_COLOR_INDEX.get(b, k) % len(palette)],
                              width=3 if b == "blanket" else 1.5)),
                    row=i + 1, col=j + 1)
            fig.update_xaxes(title_text="local budget eps0", row=i + 1, col=j + 1)
        fig.update_yaxes(title_text="log2(eps0 / eps_c)", row=i + 1, col=1)
    delta = rows[0]["delta"] if rows else None
    fig.update_layout(title=f"Amplification by shuffling (delta = {delta:g}; higher is better)",
                      height=380 * len(ns), width=520 * len(ss) + 260, template="plotly_white")
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


def html_to_png(html: str, width: int, height: int) -> bytes:
    """Render a self-contained HTML page to PNG with a headless Chromium (Debian's
    ``chromium`` package); raises ValueError if none is installed or it fails."""
    import subprocess
    import tempfile

    exe = find_chromium()
    if exe is None:
        raise ValueError("out: PNG export needs a Chromium browser (Debian package 'chromium') "
                         "or Plotly's 'kaleido'; use .html")
    tmp = tempfile.mkdtemp(prefix="accountant-png-")
    proc = None
    try:
        page = os.path.join(tmp, "figure.html")
        png = os.path.join(tmp, "figure.png")
        with open(page, "w", encoding="utf-8") as fh:
            fh.write(html)
        cmd = [exe, *CHROMIUM_FLAGS, f"--user-data-dir={os.path.join(tmp, 'profile')}",
               f"--window-size={width},{height}", "--virtual-time-budget=10000",
               f"--screenshot={png}", "file://" + page]
        try:
            # its own session: on Ctrl-C / SIGTERM the whole browser (renderers, zygote) is
            # killed below, before its profile is removed
            # ... and its own temporary files (org.chromium.*) go into our directory too
            env = dict(os.environ, TMPDIR=tmp)
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    stdin=subprocess.DEVNULL, start_new_session=True, env=env)
            proc.wait(timeout=120)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ValueError(f"out: Chromium could not render the PNG ({exc.__class__.__name__})") from exc
        if not os.path.exists(png) or os.path.getsize(png) == 0:
            raise ValueError("out: Chromium did not produce the PNG; use .html")
        with open(png, "rb") as fh:
            return fh.read()
    finally:
        _stop_browser(proc)
        _remove_tree(tmp)


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


def write_figure(rows: Sequence[dict], bounds: Sequence[str], path: str) -> None:
    """Write the Figure 2 layout as .html (self-contained) or .png, whole or not at all."""
    fig = build_figure(rows, bounds)
    ext = os.path.splitext(path)[1].lower()
    if ext == ".html":
        write_atomic(path, fig.to_html(include_plotlyjs=True, full_html=True))
        return
    width, height = int(fig.layout.width), int(fig.layout.height)
    try:
        data = fig.to_image(format="png")  # Plotly's kaleido, if installed
    except Exception:
        data = html_to_png(fig.to_html(include_plotlyjs=True, full_html=True), width + 40, height + 40)
    write_atomic(path, data)
