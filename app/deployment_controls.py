"""The deployment controls of the Amplification and Rounds pages (issue 43): user sampling,
colluders, dummies, a population known as n >= N, several reports per user, mixed randomizers
(:mod:`mix_input`). Inputs are checked beside their widgets; the numbers come from
accountant.accounting (one call each)."""
from __future__ import annotations

from typing import Optional

import streamlit as st

import common
import mix_input
from accountant.accounting import deployment_groups as G
from accountant.accounting import deployments as D


def inputs(where, n: int) -> Optional[dict]:
    """The deployment widgets in an expander of ``where`` (the sidebar); a dict of the chosen
    options ({} when none), or None when an input is invalid (the reason shown beside it).  The
    same widgets on the Amplification page (one round) and the Rounds page (T rounds)."""
    box = where.expander("Deployment: sampling, colluders, dummies, reports, mix", expanded=False)
    dep: dict = {}
    if box.checkbox("Poisson user sampling", key="dep_sampling_on",
                    help="each user takes part in a round independently with probability q"):
        dep["sampling"] = float(box.number_input("q (sampling probability)", min_value=0.0, max_value=1.0,
                                                 value=0.01, step=0.01, format="%.4f", key="dep_q"))
        dep["neighbours"] = box.radio("neighbouring datasets", ["substitute", "add-remove"], key="dep_nb",
                                      horizontal=True)
        if not common.check(dep["sampling"] > 0.0, "q must be in (0, 1]", where=box):
            return None
    c = int(box.number_input("colluders c (users who reveal their reports)", min_value=0,
                             max_value=common.MAX_N, value=0, key="dep_colluders"))
    m = int(box.number_input("dummies m (extra reports)", min_value=0, max_value=common.MAX_N, value=0,
                             key="dep_dummies", help="each the randomizer's output on a data-independent "
                                                     "input (k-RR, binary RR: uniform over the outputs)"))
    n_min = box.checkbox("n is only a lower bound N on the population", key="dep_nmin")
    r = int(box.number_input("reports per user r", min_value=1, max_value=G.MAX_REPORTS, value=1,
                             key="dep_reports"))
    if box.checkbox("mixed randomizers (groups of users, as --mix FILE)", key="dep_mix_on",
                    help="groups of users with their own randomizer and eps0; the groups give n"):
        mix = mix_input.editor(box)
        if mix is None:
            return None
        chosen = [w for w, on in (("sampling", "sampling" in dep), ("colluders", c), ("dummies", m),
                                  ("n >= N", n_min), ("several reports", r > 1)) if on]
        if not common.check(not chosen, mix_input.COMBINED + ", ".join(chosen), where=box):
            return None
        return {"mix": mix}
    ok = common.check(c < n, f"colluders must be at most n - 1 = {n - 1}, got {c}", where=box)
    if "sampling" in dep:
        ok = common.check(not (c or m or n_min or r > 1), "sampling with colluders, dummies, n >= N or "
                          "several reports: the combination is not proved here", where=box) and ok
    if r > 1:
        ok = common.check(not (c or m or n_min), "several reports with colluders, dummies or n >= N: the "
                          "combination is not proved here", where=box) and ok
    ok = common.check(n - c + m <= common.MAX_N, f"n - colluders + dummies must be at most {common.MAX_N:g}",
                      where=box) and ok
    if not ok:
        return None
    dep.update({k: v for k, v in (("colluders", c), ("dummies", m), ("reports", r)) if v and not (k == "reports" and v == 1)})
    if n_min:
        dep["n_min"] = True
    return dep


@st.cache_data(show_spinner=False, max_entries=64)
def deployment_result(params, n: int, delta: float, dep_items: tuple) -> dict:
    """The proved (and, where the library gives one, certified lower) eps_c of one deployment:
    one library call (a mix: ``mix_epsilon`` of its groups; ``params`` and ``n`` unused)."""
    dep = dict(dep_items)
    if "mix" in dep:
        r = G.mix_epsilon(mix_input.groups(dep["mix"]), delta)
    elif "sampling" in dep:
        r = D.sampled_epsilon(params, n, delta, dep["sampling"], neighbours=dep["neighbours"])
    elif "reports" in dep:
        r = G.reports_epsilon(params, n, delta, dep["reports"])
    else:
        r = D.deployment_epsilon(params, n, delta, colluders=dep.get("colluders", 0),
                                 dummies=dep.get("dummies", 0), n_min=dep.get("n_min", False))
    return {"epsilon": r.epsilon, "bound": r.bound, "effective_n": r.effective_n, "statement": r.statement,
            "lower_epsilon": r.lower_epsilon, "lower_statement": r.lower_statement, "lower_dataset": r.lower_dataset,
            "note": getattr(r, "note", None)}


def show(dep: Optional[dict], params, n: int, delta: float) -> None:
    """The deployment's headline (nothing when no option is chosen): which bound answered."""
    if not dep or params is None:
        return
    res = common.call(deployment_result, params, n, delta, tuple(sorted(dep.items())))
    if res is None:
        return
    st.subheader("As deployed")
    if "mix" in dep:
        st.markdown(f"Mixed randomizers, n = {res['effective_n']:,} users: {mix_input.describe(dep['mix'])}.")
    st.markdown(f"**Deployment eps_c <= {common.fmt(res['epsilon'], 6, 'up')}** at delta = {common.fmt(delta)} "
                f"(proved: **{res['bound']}** at n = {res['effective_n']:,}).")
    if res.get("note"):  # why the bound is inf (add/remove sampling: "no finite eps_c is proved: ...")
        st.warning(res["note"])
    st.caption(res["statement"])
    if res["lower_epsilon"] is not None:
        pair = f"; datasets {res['lower_dataset']}" if res["lower_dataset"] else ""
        st.markdown(f"Lower bound: eps_c >= {common.fmt(res['lower_epsilon'], 6, 'down')} "
                    f"({res['lower_statement']}{pair}).")
    elif res["lower_statement"]:
        st.caption(res["lower_statement"])


@st.cache_data(show_spinner=False, max_entries=16)
def deployment_rounds(spec, delta: float, rounds: int, dep_items: tuple) -> dict:
    """The composed deployment of the round ``spec`` (a RoundSpec): one library call."""
    dep = dict(dep_items)
    params, n = spec.params(), spec.n
    if "mix" in dep:
        r = G.mix_rounds_epsilon(mix_input.groups(dep["mix"]), delta, rounds)
    elif "sampling" in dep:
        r = D.sampled_rounds_epsilon(params, n, delta, dep["sampling"], rounds, neighbours=dep["neighbours"])
    elif "reports" in dep:
        r = G.reports_rounds_epsilon(params, n, delta, dep["reports"], rounds)
    else:
        r = D.deployment_rounds_epsilon(spec, rounds, delta, colluders=dep.get("colluders", 0),
                                        dummies=dep.get("dummies", 0), n_min=dep.get("n_min", False))
    return {"epsilon": r.epsilon, "bound": r.bound, "statement": r.statement, "lower_epsilon": r.lower_epsilon,
            "lower_statement": r.lower_statement, "lower_dataset": r.lower_dataset, "note": getattr(r, "note", None)}


def _rounds_title(dep: dict) -> str:
    if "mix" in dep:
        g = mix_input.groups(dep["mix"])
        return f"With mixed randomizers ({len(g)} groups, {sum(c for c, _ in g):,} users) each round"
    if "sampling" in dep:
        return f"With user sampling q = {common.fmt(dep['sampling'])}"
    if "reports" in dep:
        return f"With {dep['reports']} reports per user each round"
    parts = ([f"{dep['colluders']:,} colluders"] if dep.get("colluders") else []) + \
        ([f"{dep['dummies']:,} dummy reports"] if dep.get("dummies") else []) + \
        (["n only known as a lower bound"] if dep.get("n_min") else [])
    return "With " + ", ".join(parts) + " each round"


def show_rounds(dep: Optional[dict], spec, delta: float, rounds: int) -> None:
    """The Rounds page's composed deployment (nothing when no option is chosen)."""
    if not dep or spec is None:
        return
    with st.spinner("Composing the deployment's rounds"):
        res = common.call(deployment_rounds, spec, delta, rounds, tuple(sorted(dep.items())))
    if res is None:
        return
    st.subheader(_rounds_title(dep))
    st.metric("deployment PLD eps (upper bound)", common.fmt(res["epsilon"], 4, "up"))
    st.markdown(f"Proved: **{res['bound']}** after T = {rounds:,} rounds.")
    if res.get("note"):
        st.warning(res["note"])
    st.caption(res["statement"])
    if res["lower_epsilon"] is not None:
        st.metric("deployment eps (certified lower bound)", common.fmt(res["lower_epsilon"], 4, "down"))
        st.caption(f"{res['lower_statement']}; datasets {res['lower_dataset']}")
    elif res["lower_statement"]:
        st.caption(res["lower_statement"])
