"""Planner: mechanism, t and eps0 with the smallest error for a target (eps, delta)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import plotly.graph_objects as go  # noqa: E402
import streamlit as st  # noqa: E402

import common  # noqa: E402
import min_users_section  # noqa: E402  (the minimum batch size: accountant.min_users with the deployment options)
from mechanisms.planning.finite import check_finite_size  # noqa: E402
from mechanisms.planning.kinds import KINDS  # noqa: E402
from mechanisms.planning.plan import EPS0_MAX, MECHANISM_LABELS, MECHANISMS, ORACLES  # noqa: E402
from mechanisms.planning.screen import check_baselines  # noqa: E402

# the page's labels, and the planner's for the catalogue (Hadamard response, subset selection, ...)
LABEL = {**MECHANISM_LABELS, **common.MECH_LABEL}

common.page_header(
    "Deployment planner",
    "Give the central guarantee the whole release must meet (one round or T rounds composed); "
    "the planner screens every hash size t of Collision and CoCo, finds on the proved bound the "
    "largest local eps0 that meets it at the best ones, and recommends the most accurate choice. "
    "It redraws when an input changes.",
)
common.explain()

sb = st.sidebar
sb.header("Inputs")
target = float(
    sb.number_input("target central eps_c", min_value=0.01, max_value=20.0, value=0.5, key="target")
)
sb.caption("the target is for the whole release: all rounds composed")
delta_text = sb.text_input("delta", value="1e-6", key="delta")
delta_ok, delta = common.delta_from_text(delta_text, where=sb)
n = int(
    sb.number_input(
        "n (users per round)",
        min_value=2,
        max_value=common.MAX_N,
        value=100_000,
        step=10_000,
        key="n",
    )
)
d = int(sb.number_input("d (coordinates)", min_value=1, max_value=10**7, value=128, key="d"))
s = int(sb.number_input("s (non-zeros per user)", min_value=1, max_value=10**6, value=8, key="s"))
s_ok = common.check(s <= d, f"s must satisfy 1 <= s <= d = {d}, got s = {s}", where=sb)
ESTIMATES = {"mean": "mean of the values", "frequency": "frequency of the keys (non-missing)"}
estimate = sb.radio("estimate", list(ESTIMATES), key="estimate", format_func=ESTIMATES.get)
mechs = tuple(
    sb.multiselect(
        "mechanisms",
        list(MECHANISMS),
        default=["collision", "coco"],
        format_func=LABEL.get,
        key="mechs",
        help="OLH and OUE (Wang et al., USENIX Security 2017), k-RR and the catalogue (Hadamard "
        "response, subset selection, symmetric unary encoding, local hashing with g = 2: proved on "
        "their probability matrices, seconds per step) estimate the frequency of one value of [d] "
        "per user: with "
        "estimate = frequency, s = 1, one round, the proved bound. The key-value baselines of the "
        "paper's Section 8 (PrivKV, PCKV-UE, PCKV-GRR, PCKV-AGRR, SUCCINCT) join for one round on "
        "the proved bound of their own randomizer (SUCCINCT: the mean only)",
    )
)
BASELINES = [m for m in mechs if KINDS[m].baseline]
m_ok = common.check(bool(mechs), "choose at least one mechanism", where=sb)


def _too_large(m: str) -> str:
    """The size limit's message for a catalogue matrix over [d], or ''."""
    try:
        check_finite_size(m, d, EPS0_MAX)
    except ValueError as exc:
        return str(exc)
    return ""


too_large = [msg for msg in map(_too_large, mechs) if msg]
f_ok = common.check(not too_large, "; ".join(too_large), where=sb)
oracles = [LABEL[m] for m in mechs if m in ORACLES]
o_ok = not oracles or common.check(
    estimate == "frequency" and s == 1 and d >= 2,
    f"{' and '.join(oracles)} estimate the frequency of one value per user: choose "
    f"estimate = frequency, s = 1 and d >= 2",
    where=sb,
)
rounds = int(
    sb.number_input(
        "rounds T",
        min_value=1,
        max_value=10_000,
        value=1,
        key="rounds",
        help="T identical rounds of n users; the target is for their PLD "
        "composition (a certified upper bound)",
    )
)
use_cap = sb.checkbox(
    "cap the local eps0",
    value=False,
    key="use_cap",
    help="local protection: each report alone is at most eps0-LDP",
)
cap = (
    float(
        sb.number_input(
            "max local eps0",
            min_value=0.05,
            max_value=20.0,
            value=3.0,
            key="cap",
            disabled=not use_cap,
        )
    )
    if use_cap
    else None
)
BOUNDS = {"proved": "proved bound (exact privacy blanket)", "paper": "paper's Theorem 5 (not proved)"}
bound = sb.radio(
    "guarantee from",
    list(BOUNDS),
    key="bound",
    format_func=BOUNDS.get,
    help="Theorem 5 gives larger eps0 but is not a proved bound (docs/proved.md, Findings); "
    "rounds are always planned on the proved composition",
)
b_ok = common.check(
    rounds == 1 or bound == "proved",
    "rounds are planned on the proved composition only: choose the proved bound",
    where=sb,
)
ob_ok = not oracles or common.check(
    rounds == 1 and bound == "proved",
    f"{' and '.join(oracles)} are planned for one round on the proved bound",
    where=sb,
)


def _baselines_refused() -> str:
    """The planner's own refusal of the chosen baselines at these inputs (one round, the proved
    bound, an estimate they give, d within their limit), or ''."""
    try:
        check_baselines(tuple(BASELINES), estimate, d, rounds, bound)
    except ValueError as exc:
        return str(exc)
    return ""


kv_ok = not BASELINES or common.check(not _baselines_refused(), _baselines_refused(), where=sb)
if not (delta_ok and s_ok and m_ok and f_ok and b_ok and o_ok and ob_ok and kv_ok):
    st.warning("Fix the inputs marked in the sidebar to see the results.")
    st.stop()

bar = common.Progress("Screening t and certifying the finalists", "steps")
p = common.call(
    common.plan, target, delta, n, d, s, estimate, mechs, bound, rounds, cap, progress=bar.update
)
bar.close()
if p is None:
    st.stop()

r = p.recommendation
st.subheader("Recommendation")
c1, c2, c3, c4 = st.columns(4)
c1.metric("mechanism", LABEL[r.mechanism])
if r.mechanism in BASELINES:  # no hash, no t: one key-value pair sampled and perturbed
    c2.metric("d (keys)", f"{d:,}", help="one report: one of the user's key-value pairs, perturbed")
else:
    c2.metric(
        {"olh": "g (hash range)", "oue": "k (report bits)", "subset-selection": "subset size"}.get(
            r.mechanism, "d (values)" if r.mechanism in ORACLES else "t"
        ),
        str(r.t),
        help=f"one report: {r.report()}",
    )
c3.metric("local eps0" if p.rounds == 1 else "local eps0 per round", common.fmt(r.eps0, 6, "down"))
c4.metric(
    "MSE" if p.rounds == 1 else "MSE per round",
    common.fmt(r.mse, 4),
    help="exact, summed over coordinates, for n users",
)
c5, c6 = st.columns(2)
c5.metric(
    "proved eps of the release" if p.rounds == 1 else f"proved eps of the {p.rounds} rounds",
    common.fmt(p.epsilon, 6, "up"),
)
if p.uncapped is not None:
    c6.metric(
        "error cost of the cap",
        f"+{100 * p.cap_cost:.3g}%",
        help=f"against the uncapped plan: {LABEL[p.uncapped.mechanism]} "
        f"t = {p.uncapped.t}, eps0 = {common.fmt(p.uncapped.eps0, 4, 'down')}, "
        f"MSE = {common.fmt(p.uncapped.mse, 4)}",
    )
for w in p.warnings():
    st.warning(common.in_page_words(w))
st.code(p.sentence(), language=None, wrap_lines=True)
st.caption(common.ERRATUM_CAPTION)

st.subheader("Trade-off: error against t at the largest admissible eps0")
# the kinds on the chart's t axis: those whose t the planner screens (Collision, CoCo; OLH's g)
T_AXIS = [name for name, kind in KINDS.items() if kind.t_rule is not None]
fig = go.Figure()
colors = {"collision": "#1f77b4", "coco": "#d62728", "olh": "#2ca02c", "oue": "#9467bd",
          "krr": "#8c564b", "hadamard-response": "#e377c2", "subset-selection": "#7f7f7f",
          "symmetric-unary-encoding": "#bcbd22", "local-hashing": "#17becf",
          "privkv": "#ff7f0e", "pckv-ue": "#aec7e8", "pckv-grr": "#98df8a", "pckv-agrr": "#ff9896",
          "succinct": "#c5b0d5"}
# the t range the levels span (the baselines' t is 0: no hash; a plan of baselines alone: t = 1)
t_span = [c.t for c in p.candidates if c.mechanism in T_AXIS] or [c.t for c in p.candidates if c.t > 0] or [1]
for mech in (m for m in mechs if (m in ORACLES or m in BASELINES) and m not in T_AXIS):  # no t: a level
    fin = [c for c in p.candidates if c.mechanism == mech and c.source == "finalist"]
    for c in fin:
        fig.add_trace(
            go.Scatter(
                x=[min(t_span), max(t_span)],
                y=[c.mse, c.mse],
                mode="lines",
                name=f"{LABEL[mech]}: MSE (no t; eps0 = {common.fmt(c.eps0, 4, 'down')})",
                line=dict(color=colors[mech], dash="dash"),
            )
        )


def trace(cands: list, y, mode: str, name: str, **style) -> None:
    """One series of the chart: the candidates' t across, ``y(c)`` up."""
    fig.add_trace(go.Scatter(x=[c.t for c in cands], y=[y(c) for c in cands], mode=mode, name=name, **style))


for mech in (m for m in mechs if m in T_AXIS):  # OLH: t is its g
    cs = [c for c in p.candidates if c.mechanism == mech and c.source == "screen"]
    trace(cs, lambda c: c.mse, "lines+markers", f"{LABEL[mech]}: MSE (screen)", line=dict(color=colors[mech]),
          customdata=[[c.eps0] for c in cs],
          hovertemplate="t = %{x}<br>MSE = %{y:.4g}<br>eps0 ~ %{customdata[0]:.4g} (estimate)<extra></extra>")
    trace(cs, lambda c: c.eps0, "lines", f"{LABEL[mech]}: eps0", yaxis="y2",
          line=dict(color=colors[mech], dash="dot", width=1))
    fin = [c for c in p.candidates if c.mechanism == mech and c.source in ("finalist", "estimate")]
    if fin:
        trace(fin, lambda c: c.mse, "markers", f"{LABEL[mech]}: best t",
              marker=dict(color=colors[mech], size=11, symbol="diamond"),
              customdata=[[common.fmt(c.eps0, 4, "down"),  # an eps0 a user may copy: down
                           "n/a" if c.eps_c is None else common.fmt(c.eps_c, 4, "up")] for c in fin],
              hovertemplate="t = %{x}<br>MSE = %{y:.4g}<br>eps0 = %{customdata[0]}"
              "<br>proved eps = %{customdata[1]}<extra></extra>")
fig.add_trace(
    go.Scatter(
        x=[r.t if r.mechanism in T_AXIS else max(t_span)],
        y=[r.mse],
        mode="markers",
        name="recommended",
        marker=dict(symbol="star", size=16, color="gold", line=dict(color="black", width=1)),
    )
)
if cap is not None:  # the cap, on the eps0 axis, across the t range
    ts_all = [c.t for c in p.candidates if c.t > 0] or t_span
    fig.add_trace(
        go.Scatter(
            x=[min(ts_all), max(ts_all)],
            y=[cap, cap],
            mode="lines",
            yaxis="y2",
            name=f"cap: eps0 <= {common.fmt(cap)}",
            line=dict(color="black", dash="dash", width=1.5),
        )
    )
fig.update_layout(
    title=f"Error against t at the largest admissible eps0 (target eps = {common.fmt(p.target_eps)}, "
    f"delta = {common.fmt(p.delta)}, n = {p.n:,}, d = {p.d:,}, s = {p.s}"
    + ("" if p.rounds == 1 else f", {p.rounds} rounds")
    + ")",
    xaxis=common.log_axis("hash range t (buckets)", [c.t for c in p.candidates]),
    yaxis=common.log_axis(
        f"MSE of the {p.estimate} estimate (sum over coordinates)", [c.mse for c in p.candidates]
    ),
    yaxis2=dict(
        title="largest admissible local eps0 (nats)", overlaying="y", side="right", showgrid=False
    ),
    template="plotly_white",
    height=460,
    legend=dict(orientation="h", y=-0.2),
    legend_title="curve",
    margin=dict(t=60),
)
st.plotly_chart(fig, key="tradeoff_chart")
st.caption(
    "The curves are the screen (a saddle-point estimate of the exact blanket, within "
    "~1e-4 of it, used to place the search); the diamonds are each mechanism's best t, "
    "whose eps0 was found on the proved bound (or, with rounds, estimated for the "
    "mechanism not recommended); the star is the recommendation, certified at the end. "
    "OLH's t is its hash range g; OUE, k-RR and the catalogue (Hadamard response, subset "
    "selection, symmetric unary encoding, local hashing with g = 2, proved on their probability "
    "matrices) and the key-value baselines have no t: the MSE (the exact error of the unbiased "
    "estimator) at the proved eps0 is a dashed level."
)

st.subheader("Sensitivity to n")
sens_rows = [
    {"n": n, "mechanism": r.mechanism, "t": r.t, "eps0": r.eps0, "eps_c": r.eps_c, "mse": r.mse}
]
for nn, c in sorted(p.sensitivity.items()):
    sens_rows.append(
        {
            "n": nn,
            "mechanism": c.mechanism,
            "t": c.t,
            "eps0": c.eps0,
            "eps_c": c.eps_c,
            "mse": c.mse,
        }
    )
sens_rows.sort(key=lambda x: x["n"])
common.table(sens_rows, "sens_table")
st.caption(
    "The same plan for half and twice the number of users (with rounds: the recommended "
    "t, its per-round eps0 searched again on the certified composition)."
)
common.download_csv(sens_rows, "planner_sensitivity.csv", "Download sensitivity (CSV)", key="dl_sens")

st.subheader("All candidates")
common.table(p.rows(), "cand_table")
common.download_csv(p.rows(), "planner_candidates.csv", "Download candidates (CSV)", key="dl_cand")

min_users_section.section(target, delta, rounds)
