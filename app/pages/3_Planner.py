"""Planner: mechanism, t and eps0 with the smallest error for a target (eps_c, delta)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import plotly.graph_objects as go  # noqa: E402
import streamlit as st  # noqa: E402

import common  # noqa: E402

common.page_header(
    "Deployment planner",
    "Give the central guarantee you must meet; the planner finds, for Collision and CoCo and a "
    "range of hash sizes t, the largest local eps0 that meets it and the exact error there, and "
    "recommends the most accurate choice.")
common.explain()

sb = st.sidebar
sb.header("Inputs")
target = float(sb.number_input("target central eps_c", min_value=0.01, max_value=20.0, value=0.5,
                               key="target"))
delta_text = sb.text_input("delta", value="1e-6", key="delta")
delta_ok, delta = common.delta_from_text(delta_text, where=sb)
n = int(sb.number_input("n (users)", min_value=2, max_value=common.MAX_N, value=100_000, step=10_000,
                        key="n"))
d = int(sb.number_input("d (coordinates)", min_value=1, max_value=10**7, value=128, key="d"))
s = int(sb.number_input("s (non-zeros per user)", min_value=1, max_value=10**6, value=8, key="s"))
s_ok = common.check(s <= d, f"s must satisfy 1 <= s <= d = {d}, got s = {s}", where=sb)
estimate = sb.radio("estimate", ["mean", "frequency"], key="estimate",
                    format_func=lambda e: {"mean": "mean of the values",
                                           "frequency": "frequency of the keys (non-missing)"}[e])
mechs = tuple(sb.multiselect("mechanisms", ["collision", "coco"], default=["collision", "coco"],
                             format_func=lambda m: common.MECH_LABEL[m], key="mechs"))
m_ok = common.check(bool(mechs), "choose at least one mechanism", where=sb)
bound = sb.radio("guarantee from", ["proved", "paper"], key="bound",
                 format_func=lambda b: {"proved": "proved bound (exact privacy blanket)",
                                        "paper": "paper's Theorem 5 (not proved)"}[b],
                 help="Theorem 5 gives larger eps0 but is not a proved bound (README, Findings)")
inputs = (target, delta, n, d, s, estimate, mechs, bound)
valid = delta_ok and s_ok and m_ok
compute = sb.button("Compute plan", type="primary", disabled=not valid, key="compute",
                    help="The search inverts the proved bound for about 20 (mechanism, t) "
                         "candidates and takes several seconds; it runs when you press this.")
if not valid:
    st.warning("Fix the inputs marked in the sidebar to see the results.")
    st.stop()

stored = st.session_state.get("plan_result")
if compute or stored is None:  # the first visit plans the defaults
    bar = common.Progress("Searching the largest eps0 for every candidate t", "candidates")
    p = common.call(common.plan, *inputs, progress=bar.update)
    bar.close()
    if p is None:
        st.stop()
    stored = st.session_state["plan_result"] = (inputs, p)
shown, p = stored
if shown != inputs:
    st.warning(f"The inputs changed: the results below are still those for target eps_c = "
               f"{common.fmt(shown[0])}, delta = {common.fmt(shown[1])}, n = {shown[2]:,}, "
               f"d = {shown[3]:,}, s = {shown[4]}. Press **Compute plan** to update them.",
               icon=":material/history:")

r = p.recommendation
st.subheader("Recommendation")
c1, c2, c3, c4 = st.columns(4)
c1.metric("mechanism", common.MECH_LABEL[r.mechanism])
c2.metric("t", str(r.t))
c3.metric("local eps0", common.fmt(r.eps0, 6, "down"))
c4.metric("MSE", common.fmt(r.mse, 4), help="exact, summed over coordinates, for n users")
for w in p.warnings():
    st.warning(w)
st.code(p.sentence(), language=None, wrap_lines=True)
st.caption(common.ERRATUM_CAPTION)

st.subheader("Trade-off: error against t at the largest admissible eps0")
fig = go.Figure()
colors = {"collision": "#1f77b4", "coco": "#d62728"}
for mech in mechs:
    cs = [c for c in p.candidates if c.mechanism == mech]
    fig.add_trace(go.Scatter(
        x=[c.t for c in cs], y=[c.mse for c in cs], mode="lines+markers",
        name=f"{common.MECH_LABEL[mech]}: MSE", line=dict(color=colors[mech]),
        customdata=[[c.eps0, c.eps_c, c.source] for c in cs],
        hovertemplate="t = %{x}<br>MSE = %{y:.4g}<br>eps0 = %{customdata[0]:.4g}"
                      "<br>eps_c = %{customdata[1]:.4g}<br>%{customdata[2]}<extra></extra>"))
    fig.add_trace(go.Scatter(x=[c.t for c in cs], y=[c.eps0 for c in cs], mode="lines",
                             name=f"{common.MECH_LABEL[mech]}: eps0", yaxis="y2",
                             line=dict(color=colors[mech], dash="dot", width=1)))
fig.add_trace(go.Scatter(x=[r.t], y=[r.mse], mode="markers", name="recommended",
                         marker=dict(symbol="star", size=16, color="gold",
                                     line=dict(color="black", width=1))))
fig.update_layout(
    title=f"Error against t at the largest admissible eps0 (target eps_c = {common.fmt(p.target_eps)}, "
          f"delta = {common.fmt(p.delta)}, n = {p.n:,}, d = {p.d:,}, s = {p.s})",
    xaxis=common.log_axis("hash range t (buckets)", [c.t for c in p.candidates]),
    yaxis=common.log_axis(f"MSE of the {p.estimate} estimate (sum over coordinates)",
                          [c.mse for c in p.candidates]),
    yaxis2=dict(title="largest admissible local eps0 (nats)", overlaying="y", side="right",
                showgrid=False),
    template="plotly_white", height=460, legend=dict(orientation="h", y=-0.2),
    legend_title="curve", margin=dict(t=60))
st.plotly_chart(fig, key="tradeoff_chart")

st.subheader("Sensitivity to n")
sens_rows = [{"n": n, "mechanism": r.mechanism, "t": r.t, "eps0": r.eps0, "eps_c": r.eps_c,
              "mse": r.mse}]
for nn, c in sorted(p.sensitivity.items()):
    sens_rows.append({"n": nn, "mechanism": c.mechanism, "t": c.t, "eps0": c.eps0, "eps_c": c.eps_c,
                      "mse": c.mse})
sens_rows.sort(key=lambda x: x["n"])
common.table(sens_rows, "sens_table")
st.caption("The same recommendation recomputed for half and twice the number of users.")
common.download_csv(sens_rows, "planner_sensitivity.csv", "Download sensitivity (CSV)", key="dl_sens")

st.subheader("All candidates")
common.table(p.rows(), "cand_table")
common.download_csv(p.rows(), "planner_candidates.csv", "Download candidates (CSV)", key="dl_cand")
