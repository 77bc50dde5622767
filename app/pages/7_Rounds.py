"""Rounds: central (eps, delta) after T shuffled rounds (PLD vs naive vs advanced)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402
import plotly.graph_objects as go  # noqa: E402
import streamlit as st  # noqa: E402

import common  # noqa: E402
import deployment_controls  # noqa: E402
import mix_input  # noqa: E402
from accountant.composition import compose as _compose
from accountant.bounds.laws.random_hash import ASSUMPTION

common.page_header(
    "Many rounds",
    "Shuffled collection run T times (federated rounds, daily telemetry): the central "
    "guarantee after all rounds, from the privacy loss distribution (PLD) of each round's "
    "proved bound, against adding up the rounds (naive) and the advanced composition theorem.")
common.explain(("eps0", "eps_c", "delta"))


@st.cache_data(show_spinner=False)
def composed(spec, delta, T, lower=False):
    """compose_rounds of the round ``spec`` (a RoundSpec; ``lower``: with its certified lower bound)."""
    # one discretisation level per T (the chart composes up to dozens of T)
    return _compose.compose_rounds(spec, T, delta, adaptive=False, lower=lower).as_dict()


def curve(spec, delta, rounds_list):
    bar = common.Progress("Composing the rounds", "values of T")
    rows = []
    for i, T in enumerate(rounds_list):
        rows.append(composed(spec, delta, T, T == rounds_list[-1]))  # the lower bound at T
        bar.update(i + 1, len(rounds_list))
    bar.close()
    return rows


def inverse(n, rounds, target, delta, mechanism, s, t, k, hash_model):
    # not st.cache_data'd: the library caches each round's PLD, so a repeat is fast
    bar = common.Progress("Searching the largest eps0", "compositions")
    try:
        return _compose.largest_eps0(n, rounds, target, delta, mechanism, s, t, k, xtol=1e-2,
                                     progress=bar.update, hash_model=hash_model)
    finally:
        bar.close()


sb = st.sidebar
sb.header("Per-round inputs")
mechanism = sb.selectbox("mechanism", list(_compose.ROUND_MECHANISMS), key="mechanism",
                         format_func=lambda m: common.MECH_LABEL.get(m, m))
vr = not common.MECHANISM_SPECS[mechanism].eps0_given  # variation-ratio: eps0 = ln p
n = int(sb.number_input("n (users per round)", min_value=2, max_value=10**9, value=100_000,
                        step=10_000, key="n"))
eps0 = t = None
if not vr:
    eps0 = float(sb.number_input("local eps0 per round", min_value=0.01, max_value=10.0, value=4.0,
                                 key="eps0"))
# the inputs of the round's options (accountant.core.params.MECHANISM_SPECS): no t, the rule's
form = common.mechanism_inputs(
    mechanism, sb, skip=("t",), s={"max_value": 10**6, "value": 8}, k={"max_value": 10**6},
    d={"help": "only the certified lower bounds depend on d: the composition's datasets put x1, x1' and "
               "the other users on pairwise disjoint s-sets (d >= 3s), the deployment's x1 and the other "
               "users (d >= 2s)"})
s, d, k, p, beta, q = (form.get(o) for o in ("s", "d", "k", "p", "beta", "q"))
hash_model = form.get("hash_model", "any")
d_ok = form["ok"]
dep = deployment_controls.inputs(sb, n) if not vr else {}  # the deployment options
n = mix_input.page_n(dep, n, sb)  # with a mix, n is the groups' total (said in the sidebar)
# the round, validated by the library (p, beta, q's ranges; s with the random hash) before any work
spec = common.call(_compose.RoundSpec.named, mechanism, n, eps0, s=s, t=t, k=k, p=p, beta=beta, q=q,
                   hash_model=hash_model, d=d if d_ok else None, where=sb)
rounds = int(sb.number_input("T (rounds)", min_value=1, max_value=10_000, value=100, key="T"))
delta_ok, delta = common.delta_from_text(sb.text_input("total delta", value="1e-6", key="delta"),
                                         where=sb)
target = None
if not vr:
    target = float(sb.number_input("target total eps (for the largest eps0)", min_value=0.01,
                                   max_value=50.0, value=2.0, key="target"))
if not delta_ok or not d_ok or spec is None or dep is None:
    st.warning("Fix the inputs marked in the sidebar to see the results.")
    st.stop()
if hash_model == "random":
    st.markdown(f"**Assumption: {ASSUMPTION['random']}** (hash model *random*): every number below "
                "holds under this assumption, not for a fixed hash family.")
_source = _compose.round_source(spec)
st.caption(f"Per-round profile: {_source}. The FMT21 clone is proved for every eps0-LDP "
           "randomizer; the exact privacy blanket (Collision, CoCo, k-RR, RR, OLH, OUE; worst case over "
           "the hash family, or the random-hash law under its assumption) is the optimal "
           "decomposition-based bound; where its value is below 1e-20 the smaller of the two is used."
           + (" Variation-ratio (Wang et al., VLDB 2024): the clone reduction with the ratio p between "
              "the two differing inputs and the mixing 1/q, proved for every randomizer with these "
              "(p, beta, q); beta is checked but the proved profile depends on p and q only." if vr else ""))

if vr:
    round_title = (f"variation-ratio, n = {n:,}, p = {common.fmt(spec.p)}, beta = {common.fmt(spec.beta)}, "
                   f"q = {common.fmt(spec.q)}")
else:
    round_title = (f"{common.MECH_LABEL.get(mechanism, mechanism)}, n = {n:,}, eps0 = {common.fmt(eps0)}"
                   + (f", s = {s}" if s is not None else "") + (f", k = {k}" if k is not None else "")
                   + (", random hash" if hash_model == "random" else ""))
Ts = sorted(set(int(x) for x in np.unique(np.geomspace(1, rounds, min(rounds, 12)).round())) | {rounds})
rows = common.call(curve, spec, delta, tuple(Ts))
if rows is None:
    st.stop()
last = rows[-1]
c1, c2, c3, c4 = st.columns(4)
c1.metric("PLD eps (upper bound)", common.fmt(last['epsilon'], 4, "up"))
c2.metric("PLD estimate of the bound", common.fmt(last['epsilon_estimate_of_bound'], 4),
          help=_compose.ESTIMATE_OF_BOUND)
c3.metric("advanced composition", common.fmt(last['advanced_epsilon'], 4, "up"))
c4.metric("naive composition", common.fmt(last['naive_epsilon'], 4, "up"))
if last["epsilon_lower"] is not None:
    st.metric("certified lower bound", common.fmt(last["epsilon_lower"], 4, "down"))
st.caption(f"Certified lower bound after T = {rounds:,} rounds: {last['epsilon_lower_note']}")

fig = go.Figure()
fig.add_trace(go.Scatter(x=Ts, y=[r["epsilon"] for r in rows], name="PLD (pessimistic)",
                         mode="lines+markers"))
fig.add_trace(go.Scatter(x=Ts, y=[r["epsilon_estimate_of_bound"] for r in rows], name="PLD estimate of the bound (NOT a lower bound)",
                         mode="lines", line=dict(dash="dot"), fill="tonexty"))
fig.add_trace(go.Scatter(x=Ts, y=[r["advanced_epsilon"] for r in rows], name="advanced",
                         mode="lines+markers"))
fig.add_trace(go.Scatter(x=Ts, y=[r["naive_epsilon"] for r in rows], name="naive",
                         mode="lines+markers"))
fig.update_layout(xaxis=common.log_axis("rounds T", Ts),
                  yaxis=common.log_axis(f"total eps at delta = {common.fmt(delta)} (nats)",
                                        [r[k] for r in rows for k in ("epsilon", "epsilon_estimate_of_bound",
                                                                      "advanced_epsilon", "naive_epsilon")]),
                  title=f"Total eps after T rounds ({round_title}, delta = {common.fmt(delta)})")
st.plotly_chart(fig, key="rounds_chart")
if mix_input.slow_rounds(dep) and not st.button("Compose the mix over the rounds", key="dep_mix_rounds"):
    st.caption(mix_input.SLOW_NOTE)
else:
    deployment_controls.show_rounds(dep, spec, delta, rounds)

st.subheader("Largest per-round eps0 for a total budget")
if vr:
    st.caption(f"Not searched for variation-ratio rounds: p fixes eps0 = ln p = {common.fmt(spec.eps0, 4)}, "
               "so there is no eps0 to choose; compare the totals at the p values considered.")
    st.stop()
if hash_model == "random" and common.MECHANISM_SPECS[mechanism].slow_random_rounds and not st.button(
        "Search the largest eps0", key="search_inverse",
        help="with the random-hash model each of the about 12 compositions of the search takes "
             "seconds (about a minute in all at the defaults on this machine)"):
    st.caption("Press the button to search (about a minute with the random-hash model).")
    st.stop()
e0 = common.call(inverse, n, rounds, target, delta, mechanism, s, t, k, hash_model)
if e0 is None:
    st.info(f"No eps0 >= 0.01 meets total eps {target:g} after {rounds} rounds.")
else:
    st.metric("largest eps0 per round", common.fmt(e0, 4, "down"),
              help="checked: T rounds at this eps0 give a PLD upper bound <= the target")
