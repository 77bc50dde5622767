"""The deployment controls of the Amplification, Rounds and Planner pages: user
sampling, colluders, dummies, a population known as n >= N, several reports per user, mixed
randomizers (:mod:`mix_input`). The combinations are checked beside the widgets against the
library's one table (:func:`accountant.accounting.deployment.refusal`, in the widgets' names); the
numbers come from the library's one dispatch (:func:`accountant.accounting.deployment_proof.
deployed_epsilon`)."""
from __future__ import annotations

from typing import Optional

import streamlit as st

import common
import mix_input
from accountant.accounting import deployment as DEP
from accountant.accounting.deployment_proof import deployed_epsilon

#: the features in the widgets' words (the library's table names them)
LABELS = {"colluders": "colluders", "n_min": "n >= N", "dummies": "dummies", "sampling": "sampling",
          "reports": "several reports", "mix": "mix", "rounds": "rounds"}


def _sampling(box, dep: dict) -> bool:
    """The sampling widgets (into ``dep``); False where q is out of range (said beside it)."""
    if box.checkbox("Poisson user sampling", key="dep_sampling_on",
                    help="each user takes part in a round independently with probability q"):
        dep["sampling"] = float(box.number_input("q (sampling probability)", min_value=0.0, max_value=1.0,
                                                 value=0.01, step=0.01, format="%.4f", key="dep_q"))
        dep["neighbours"] = box.radio("neighbouring datasets", ["substitute", "add-remove"], key="dep_nb",
                                      horizontal=True)
        return common.check(dep["sampling"] > 0.0, "q must be in (0, 1]", where=box)
    return True


def inputs(where, n: Optional[int], inverse: bool = False) -> Optional[dict]:
    """The deployment widgets in an expander of ``where`` (the sidebar); a dict of the chosen
    options ({} when none), or None when an input is invalid (the reason shown beside it).  The
    same widgets on the Amplification page (one round) and the Rounds page (T rounds); ``inverse``
    (the Planner's minimum batch size, ``n`` None): without the two features the smallest n does
    not search over (n >= N, a mix: the library's reasons shown instead)."""
    box = where.expander("Deployment: sampling, colluders, dummies, reports" + ("" if inverse else ", mix"),
                         expanded=False)
    dep: dict = {}
    if not _sampling(box, dep):
        return None
    c = int(box.number_input("colluders c (users who reveal their reports)", min_value=0,
                             max_value=common.MAX_N, value=0, key="dep_colluders"))
    m = int(box.number_input("dummies m (extra reports)", min_value=0, max_value=common.MAX_N, value=0,
                             key="dep_dummies", help="each the randomizer's output on a data-independent "
                                                     "input (k-RR, binary RR: uniform over the outputs)"))
    n_min = False if inverse else box.checkbox("n is only a lower bound N on the population", key="dep_nmin")
    r = int(box.number_input("reports per user r", min_value=1, max_value=DEP.MAX_REPORTS, value=1,
                             key="dep_reports"))
    mix = None
    if inverse:
        for f in ("n_min", "mix"):
            box.caption(f"{LABELS[f]}: {DEP.INVERSE_REFUSED[f]}")
    elif box.checkbox("mixed randomizers (groups of users, as --mix FILE)", key="dep_mix_on",
                      help="groups of users with their own randomizer and eps0; the groups give n"):
        mix = mix_input.editor(box)
        if mix is None:
            return None
    on = {"sampling": "sampling" in dep, "colluders": c > 0, "dummies": m > 0, "n_min": n_min, "reports": r > 1,
          "mix": mix is not None}
    why = DEP.refusal([f for f in DEP.FEATURES if on.get(f)], LABELS.get)
    if not common.check(why is None, why or "", where=box):
        return None
    if mix is not None:
        return {"mix": mix}
    ok = n is None or common.check(c < n, f"colluders must be at most n - 1 = {n - 1}, got {c}", where=box)
    ok = (n is None or common.check(n - c + m <= common.MAX_N, f"n - colluders + dummies must be at most "
                                    f"{common.MAX_N:g}", where=box)) and ok
    if not ok:
        return None
    dep.update({k: v for k, v in (("colluders", c), ("dummies", m), ("reports", r)) if v and not (k == "reports" and v == 1)})
    if n_min:
        dep["n_min"] = True
    return dep


def deployment_of(dep: dict, rounds: int = 1) -> DEP.Deployment:
    """The chosen options as the library's :class:`~accountant.accounting.deployment.Deployment`."""
    return DEP.Deployment(colluders=dep.get("colluders", 0), n_min=dep.get("n_min", False),
                          dummies=dep.get("dummies", 0), sampling=dep.get("sampling"),
                          neighbours=dep.get("neighbours"), reports=dep.get("reports"),
                          mix=mix_input.groups(dep["mix"]) if "mix" in dep else None, rounds=rounds)


def _result(r) -> dict:
    return {"epsilon": r.epsilon, "bound": r.bound, "effective_n": r.effective_n, "statement": r.statement,
            "lower_epsilon": r.lower_epsilon, "lower_statement": r.lower_statement, "lower_dataset": r.lower_dataset,
            "note": getattr(r, "note", None)}


@st.cache_data(show_spinner=False, max_entries=64)
def deployment_result(params, n: int, delta: float, dep_items: tuple) -> dict:
    """The proved (and, where the library gives one, certified lower) eps_c of one deployment:
    the library's one call (a mix: its groups give the randomizers and n)."""
    dep = dict(dep_items)
    if "mix" in dep:
        return _result(deployed_epsilon(None, None, delta, deployment_of(dep)))
    return _result(deployed_epsilon(params, n, delta, deployment_of(dep)))


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
    """The composed deployment of the round ``spec`` (a RoundSpec): the library's one call."""
    dep = dict(dep_items)
    if "mix" in dep:
        return _result(deployed_epsilon(None, None, delta, deployment_of(dep, rounds)))
    return _result(deployed_epsilon(spec.params(), spec.n, delta, deployment_of(dep, rounds)))


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
