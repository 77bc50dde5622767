"""Figure 2 layout with Plotly: amplification ratio log2(eps0/eps_c) against eps0,
one line per bound, one panel per (n, s)."""
from __future__ import annotations

import os
from typing import Sequence

from .fileio import write_atomic

_LABELS = {
    "tight": "Collision (this bound, Thm 5)", "lower": "lower bound (Thm 6)",
    "stronger-clone": "stronger clone (FMT23)", "stronger-clone-closed": "stronger clone, closed form",
    "clone": "clone (FMT21)", "clone-closed": "clone, closed form",
    "blanket-hoeffding-generic": "blanket Hoeffding (generic)",
    "blanket-bennett-generic": "blanket Bennett (generic)",
    "blanket-hoeffding": "blanket Hoeffding (specific)", "blanket-bennett": "blanket Bennett (specific)",
    "efmrtt19": "EFMRTT19",
}


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
               "#bcbd22", "#17becf", "#ff7f0e", "#393b79"]
    for i, n in enumerate(ns):
        for j, s in enumerate(ss):
            sub = sorted((r for r in rows if r["n"] == n and r["s"] == s), key=lambda r: r["eps0"])
            for k, b in enumerate(bounds):
                ys = [r.get(f"log2_ratio[{b}]") for r in sub]
                fig.add_trace(go.Scatter(
                    x=[r["eps0"] for r in sub], y=ys, mode="lines", name=bound_label(b),
                    legendgroup=b, showlegend=(i == 0 and j == 0),
                    line=dict(color=palette[k % len(palette)], width=3 if b == "tight" else 1.5)),
                    row=i + 1, col=j + 1)
            fig.update_xaxes(title_text="local budget eps0", row=i + 1, col=j + 1)
        fig.update_yaxes(title_text="log2(eps0 / eps_c)", row=i + 1, col=1)
    delta = rows[0]["delta"] if rows else None
    fig.update_layout(title=f"Amplification by shuffling (delta = {delta:g}; higher is better)",
                      height=380 * len(ns), width=520 * len(ss) + 260, template="plotly_white")
    return fig


def write_figure(rows: Sequence[dict], bounds: Sequence[str], path: str) -> None:
    fig = build_figure(rows, bounds)
    ext = os.path.splitext(path)[1].lower()
    if ext == ".html":
        write_atomic(path, fig.to_html(include_plotlyjs=True, full_html=True))
    else:
        try:
            data = fig.to_image(format="png")
        except Exception as exc:  # kaleido missing or cannot start a browser
            raise ValueError(f"out: PNG export needs Plotly's optional 'kaleido' package and a "
                             f"Chromium it can start ({exc.__class__.__name__}); use .html") from exc
        write_atomic(path, data)
