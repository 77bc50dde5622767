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
_PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
            "#bcbd22", "#17becf", "#ff7f0e", "#393b79", "#637939", "#8c6d31", "#843c39")

#: the colour of every bound on every chart and page (one mapping); "proved" (the smallest
#: proved upper bound of a row) shares the exact blanket's colour, "literature" (the best
#: previously published proved bound of a row) its own
BOUND_COLORS = {**{b: _PALETTE[i % len(_PALETTE)] for b, i in _COLOR_INDEX.items()},
                "proved": _PALETTE[0], "literature": "#000000"}

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
    whose minimum is the proved eps_c (bounds.headline_bounds), the certified lower bound and
    the paper's Theorem 5 value.  The row's ``proved_epsilon`` is the main line and its best
    proved bound other than the exact blanket (``best_literature``) the published comparison."""
    from .bounds import BOUND_NAMES, headline_bounds

    wanted = set(headline_bounds(mechanism)) | {"lower", "paper"}
    return tuple(b for b in BOUND_NAMES if b in wanted)


def draft_indices(count: int, every: int = 6) -> list:
    """Indices of a curve's first draft: every ``every``-th point and the last one (a chart
    drawn in two passes shows the whole range at once, then fills in; each drafted point is
    a point of the final curve, computed once)."""
    if count < 1 or every < 1:
        raise ValueError(f"count and every must be >= 1, got {count}, {every}")
    return sorted(set(range(0, count, every)) | {count - 1})


def literature_epsilon(row: dict):
    """The best previously published proved eps_c of a table row (None when the row has none
    or it is the proved bound itself, as for the generic randomizer)."""
    name = row.get("best_literature")
    if name is None or name == row.get("best_proved"):
        return None
    return row.get(name)


def build_figure(rows: Sequence[dict], bounds: Sequence[str]):
    """Plotly figure from table rows (all with the same delta)."""
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
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "figure.html")
        png = os.path.join(tmp, "figure.png")
        with open(page, "w", encoding="utf-8") as fh:
            fh.write(html)
        cmd = [exe, *CHROMIUM_FLAGS, f"--user-data-dir={os.path.join(tmp, 'profile')}",
               f"--window-size={width},{height}", "--virtual-time-budget=10000",
               f"--screenshot={png}", "file://" + page]
        try:
            subprocess.run(cmd, capture_output=True, timeout=120, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ValueError(f"out: Chromium could not render the PNG ({exc.__class__.__name__})") from exc
        if not os.path.exists(png) or os.path.getsize(png) == 0:
            raise ValueError("out: Chromium did not produce the PNG; use .html")
        with open(png, "rb") as fh:
            return fh.read()


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
