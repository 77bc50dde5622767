"""The Planner page's minimum batch size: the smallest number of users whose proved eps_c meets
the page's target, for one randomizer at a given eps0 and the deployment options of the other
pages (:mod:`deployment_controls`). The randomizer's inputs are drawn from the mechanism registry
(each option's range and help); the number is the library's one call
(:func:`accountant.min_users` with its ``deployment``), the one ``users`` prints."""
from __future__ import annotations

from typing import Optional

import streamlit as st

import common
import deployment_controls
from accountant import min_users
from accountant.core.params import OPTIONS, mechanism_spec

HELP = ("The smallest n whose proved eps_c (with the deployment options: the deployment's, as the "
        "Amplification and Rounds pages compute it) meets the target eps_c and delta of the sidebar over "
        "its rounds T; at n - 1 the proved eps_c is above it. The proved eps_c is non-increasing in n, so "
        "every batch of at least n users meets the target. Command line: python -m accountant users.")


def _options(box, mechanism: str) -> dict:
    """The mechanism's options from the registry (an optional one left empty takes its default)."""
    spec = mechanism_spec(mechanism)
    required = {name for name, _ in spec.required}
    out = {}
    for name in spec.options:
        o = OPTIONS[name]
        step = 1 if o.kind is int else 0.1
        lo = None if o.lo is None else (int(o.lo) if o.kind is int else float(o.lo))
        v = box.number_input(f"{name} ({o.help})", min_value=lo, value=lo if name in required else None,
                             step=step, key=f"mu_{name}", placeholder="default")
        if v is not None:
            out[name] = o.kind(v)
    if spec.random_hash:
        out["hash_model"] = box.selectbox("hash model", list(OPTIONS["hash_model"].choices), key="mu_hash_model",
                                          format_func=common.HASH_MODEL_LABEL.get)
    return out


@st.cache_data(show_spinner=False, max_entries=64)
def smallest_n(mechanism: str, eps0: float, options: tuple, target: float, delta: float, rounds: int,
               dep_items: tuple) -> dict:
    """The library's minimum batch size (:func:`accountant.min_users`) as a dict."""
    dep = dict(dep_items)
    return min_users(eps0, target, delta, mechanism, rounds, **dict(options),
                     deployment=deployment_controls.deployment_of(dep) if dep else None).as_dict()


def section(target: float, delta: float, rounds: int) -> None:
    """The section: a randomizer, its eps0 and options, the deployment options, a button, the answer."""
    st.subheader("Minimum batch size")
    st.caption(HELP)
    box = st.container(border=True)
    c1, c2 = box.columns(2)
    mechanism = c1.selectbox("randomizer", list(common.ACCOUNTED_MECHANISMS), key="mu_mechanism",
                             format_func=common.MECH_LABEL.get)
    eps0 = float(c2.number_input("local eps0", min_value=0.001, max_value=30.0, value=1.0, key="mu_eps0"))
    options = _options(box, mechanism)
    dep = deployment_controls.inputs(box, None, inverse=True)
    if dep is None or not box.button("Find the minimum batch size", key="mu_go"):
        return
    with st.spinner("Searching the smallest n (each step is the deployment's proved eps_c)"):
        res: Optional[dict] = common.call(smallest_n, mechanism, eps0, tuple(sorted(options.items())), target,
                                          delta, rounds, tuple(sorted(dep.items())))
    if res is None:
        return
    if res["n"] is None:
        st.warning(res["reason"])
        return
    st.metric("minimum batch size n", f"{res['n']:,}")
    below = ("" if res["epsilon_at_n_minus_1"] is None else
             f"; at n - 1 = {res['n'] - 1:,} the proved eps_c is {common.fmt(res['epsilon_at_n_minus_1'], 6, 'up')}")
    st.markdown(f"eps_c <= **{common.fmt(res['epsilon_at_n'], 6, 'up')}** ({res['bound_at_n']}) at n = "
                f"{res['n']:,}, target {common.fmt(target)} at delta = {common.fmt(delta)}"
                + (f" over {rounds:,} rounds" if rounds > 1 else "") + below + ".")
    if res.get("statement"):
        st.caption(res["statement"])
    if res.get("minimality"):
        st.caption(f"Minimality: {res['minimality']}")
