"""Amplification: central eps_c against local eps0 for every bound (Figure 2)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import plotly.graph_objects as go  # noqa: E402
import streamlit as st  # noqa: E402

import common  # noqa: E402
from accountant.figure import bound_label, build_figure  # noqa: E402
from accountant.shuffle import make_params  # noqa: E402

common.page_header(
    "Amplification by shuffling",
    "How much privacy the shuffler adds: the central eps_c of n shuffled reports against each "
    "user's local eps0, from the mechanism's own bound and from every bound in the literature.")
common.explain()
st.caption(common.ERRATUM_CAPTION)

sb = st.sidebar
sb.header("Inputs")
mechanism = sb.selectbox("Mechanism", ["collision", "coco", "generic"],
                         format_func=lambda m: common.MECH_LABEL[m], key="mechanism")
n = int(sb.number_input("n (users)", min_value=1, max_value=common.MAX_N, value=100_000, step=10_000,
                        key="n"))
delta_text = sb.text_input("delta", value="1e-6", key="delta")
delta_ok, delta = common.delta_from_text(delta_text, where=sb)
s = t = None
t_ok = True
if mechanism != "generic":
    s = int(sb.number_input("s (non-zeros per user)", min_value=1, max_value=100_000, value=4, key="s"))
    t_mode = sb.radio("t (hash range)", ["paper's rule", "fixed value"], key="t_mode",
                      help="Collision: t* = floor(s e^eps0 + 2s - 1); CoCo: Theorem 7's even t.")
    if t_mode == "fixed value":
        t = int(sb.number_input("t value", min_value=1, max_value=2**31 - 2, value=4 * s + 2, key="t"))
        t_ok = common.call(make_params, mechanism, 1.0, s=s, t=t, where=sb) is not None
    d = int(sb.number_input("d (dimension)", min_value=1, max_value=2**31 - 2, value=max(1000, 3 * s), key="d",
                            help="only the certified lower bound depends on d: its datasets put three "
                                 "users on pairwise disjoint s-sets, which needs d >= 3s"))
    t_ok = common.check(d >= s, f"d must be >= s = {s}, got {d}", where=sb) and t_ok
else:
    d = None
c1, c2, c3 = sb.columns(3)
e_min = c1.number_input("eps0 min", min_value=0.001, max_value=30.0, value=0.1, key="e_min")
e_max = c2.number_input("eps0 max", min_value=0.001, max_value=30.0, value=5.0, key="e_max")
pts = int(c3.number_input("points", min_value=2, max_value=200, value=25, key="pts"))
range_ok = common.check(e_min < e_max, "eps0 min must be smaller than eps0 max", where=sb)
e_ref = sb.number_input("eps0 for the headline numbers", min_value=0.001, max_value=30.0, value=1.0,
                        key="e_ref")

if not delta_ok or not t_ok or not range_ok:
    st.warning("Fix the inputs marked in the sidebar to see the results.")
    st.stop()

# ---------------------------------------------------------------- headline point
# filled after the closed-form chart is drawn (milliseconds), so that both show new inputs fast
head_box = st.container()


def show_headline() -> None:
    head = common.call(common.epsilon_result, mechanism, n, float(e_ref), delta, s, t, d)
    if head is None:
        return
    st.subheader(f"At eps0 = {e_ref:g}")
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("eps_c, proved upper bound", common.fmt(head["epsilon"], 6, "up"),
              help=f"smallest upper bound proved for this mechanism as implemented: {head['bound']}")
    m2.metric("eps_c, certified lower bound", common.fmt(head["lower_epsilon"], 6, "down"),
              help=f"exact divergence of the real mechanism's shuffled outputs on {head['lower_dataset']}"
                   + (f" ({head['lower_hash_model']})" if head["lower_hash_model"] else "")
                   + ": the true eps_c is at least this"
                   if head["lower_epsilon"] is not None else f"not available: {head['lower_reason']}")
    m3.metric("t used", "n/a" if head["t"] is None else str(head["t"]))
    m4.metric("amplification eps0 / eps_c", common.ratio(float(e_ref), head["epsilon"]))
    if head["lower_epsilon"] is not None and head["lower_epsilon"] > 0:
        st.caption(f"The true eps_c of the mechanism lies in [{common.fmt(head['lower_epsilon'], 6, 'down')}, "
                   f"{common.fmt(head['epsilon'], 6, 'up')}] (width "
                   f"{100 * (head['epsilon'] / head['lower_epsilon'] - 1):.2g}%; lower end for a uniformly "
                   "random hash, upper end for every hash family).")
    if head["paper_epsilon"] is not None:
        st.caption(f"The paper's Theorem 5 value is {common.fmt(head['paper_epsilon'])}: not a proved "
                   f"bound ({head['paper_caveat']}).")


# ---------------------------------------------------------------- curves
eps0s = [e_min + (e_max - e_min) * i / (pts - 1) for i in range(pts)]
t_rule = "paper" if t is None else f"fixed:{t}"
points = common.call(common.grid, [n], [s], eps0s, [delta], mechanism, t_rule)
if points is None:
    st.stop()
exact = sb.checkbox("curves of the exact blanket and the certified lower bounds", value=pts <= 8,
                    key="exact_curves",
                    help="0.1-2 s per point each; the headline numbers above always use them")
curve_bounds = common.BOUND_NAMES if exact else common.FAST_BOUNDS


def draw(rows: list, bounds: tuple, eps_slot, ratio_slot, stage: str) -> None:
    """Both charts of ``bounds`` over ``rows``, into their placeholders."""
    applicable = [b for b in bounds if any(r[b] is not None for r in rows)]
    fig2 = build_figure(rows, applicable)  # Figure 2 layout; its colours are reused below
    color = {tr.legendgroup: tr.line.color for tr in fig2.data}
    fig = go.Figure()
    for b in applicable:
        fig.add_trace(go.Scatter(x=[r["eps0"] for r in rows], y=[r[b] for r in rows], mode="lines",
                                 name=bound_label(b),
                                 line=dict(width=3 if b == "blanket" else 1.5, color=color.get(b))))
    fig.update_layout(title=f"Central eps_c against local eps0 ({common.MECH_LABEL[mechanism]}, "
                            f"n = {n:,}, delta = {common.fmt(delta)}; lower is better)",
                      xaxis_title="local budget eps0 (nats)",
                      yaxis=common.log_axis("central eps_c (nats)", [r[b] for r in rows for b in applicable]),
                      legend_title="bound", template="plotly_white",
                      height=460)
    eps_slot.plotly_chart(fig, key=f"eps_c_chart{stage}")
    fig2.update_layout(width=None, height=560, legend_title="bound",
                       legend=dict(orientation="h", y=-0.22, x=0),
                       title=fig2.layout.title.text.replace("delta", "amplification ratio; delta"))
    fig2.update_xaxes(title_text="local budget eps0 (nats)")
    fig2.update_yaxes(title_text="log2(eps0 / eps_c) (bits)")
    ratio_slot.plotly_chart(fig2, key=f"ratio_chart{stage}")


progress_slot, eps_slot, note_slot, ratio_slot = st.empty(), st.empty(), st.empty(), st.empty()
if not common.rows_cached(points, curve_bounds, common.CURVE_RTOL):
    # the closed forms first (milliseconds), so the page shows the new inputs at once; the
    # engine-based curves (pair searches, 0.05-0.2 s a point at n = 1e9) follow with progress
    quick = tuple(b for b in curve_bounds if b in common.CLOSED_FORM_BOUNDS)
    with progress_slot.container():
        quick_rows = common.call(common.rows_with_progress, points, quick, "Computing the closed forms",
                                 rtol=common.CURVE_RTOL)
    if quick_rows is not None:
        draw(quick_rows, quick, eps_slot, ratio_slot, "_quick")
        note_slot.caption("Closed-form bounds drawn; the numerically exact curves (pair searches"
                          + (", exact blanket" if exact else "") + ") are being computed.")
with head_box:
    show_headline()
with progress_slot.container():
    rows = common.call(common.rows_with_progress, points, curve_bounds, "Computing the exact curves",
                       rtol=common.CURVE_RTOL)
if rows is None:
    st.stop()
draw(rows, curve_bounds, eps_slot, ratio_slot, "")
note_slot.caption(f"All {len(curve_bounds)} bounds computed at {len(rows)} values of eps0 (n = {n:,}).")

# ---------------------------------------------------------------- applicability
st.subheader("Bounds that do not apply")
na = []
for b in curve_bounds:
    reasons = sorted({r["reasons"][b] for r in rows if b in r["reasons"]})
    if reasons:
        count = sum(1 for r in rows if b in r["reasons"])
        na.append({"bound": bound_label(b), "not applicable at": f"{count} of {len(rows)} eps0 values",
                   "reason": reasons[0] if len(reasons) == 1 else reasons[0] + " (and others)"})
if na:
    st.dataframe(na, hide_index=True, key="na_table")
else:
    st.write("Every bound applies on this range.")

# ---------------------------------------------------------------- numbers
st.subheader("Numbers")
# without the exact blanket the rows' "proved" columns would name the best of the drawn bounds,
# not the headline's proved number: leave them out and say how to get them
hidden = {"reasons"} | (set() if exact else {"proved_epsilon", "best_proved", "lower_epsilon", "proved_over_paper",
                                            "proved_over_lower", "best_literature", "saving_percent"})
if not exact:
    st.caption("The proved eps_c per eps0 (exact blanket) and the certified lower bounds are in the table "
               "when the exact curves are ticked in the sidebar.")
table = [{k: v for k, v in r.items() if k not in hidden} for r in rows]
st.dataframe(table, hide_index=True, key="numbers", column_config=common.number_columns(table))
common.download_csv(table, f"amplification_{mechanism}_n{n}.csv", key="dl_amp")
