"""Planning over several rounds: the largest per-round eps0 whose composed eps_c over the
release schedule meets the target (an estimate by search, then a certified check), and the
per-round target that starts that search.
"""
from __future__ import annotations
import math
import numpy as np
from scipy.optimize import brentq
from accountant.engines.blanket.window import approx_epsilon
from accountant.engines.blanket.law import blanket_law
from accountant.composition.compose import RoundSpec, approx_schedule_epsilon, compose_schedule
from accountant.core.params import make_params
from mechanisms.planning.plan import InfeasiblePlan, EPS0_MAX, fmt_up
from mechanisms.planning.screen import screen
# rounds: smallest per-round eps0 searched, and certified compositions tried per plan
ROUNDS_EPS0_MIN = 1e-3
ROUNDS_MAX_CERTIFY = 8
# the composition estimate can be a few tenths of a percent low (docs/BENCHMARKS.md): the first
# certified attempt aims this much below the target, so that one certified composition usually
# suffices
ROUNDS_MARGIN = 4e-3


def round_specs(mechanism, s, t, e0, ns) -> list:
    memo = {}
    return [memo.setdefault(x, RoundSpec.named(mechanism, x, e0, s=s, t=t)) for x in ns]


def approx_composed_eps0(
    mechanism, s, t, ns, goal, delta, eps0_max, start: float = 1.0, rtol: float = 1e-4
) -> float:
    """Largest eps0 in [ROUNDS_EPS0_MIN, eps0_max] whose composition *estimate*
    (:func:`accountant.composition.compose.approx_schedule_epsilon`) is <= goal: a bracket grown from
    ``start`` by factors 1.01, 1.04, 1.17, ..., then brentq to ``rtol`` (not certified)."""
    memo: dict = {}

    def over(e0):
        if e0 not in memo:
            memo[e0] = approx_schedule_epsilon(round_specs(mechanism, s, t, e0, ns), delta) - goal
        return memo[e0]

    x = min(max(start, ROUNDS_EPS0_MIN), eps0_max)
    f = 1.01  # a good start is usually within 1-3%: the bracket grows 1.01, 1.04, 1.17, 1.87, ...
    if over(x) <= 0:
        lo, hi = x, None
        while hi is None:
            if lo >= eps0_max:
                return eps0_max
            y = min(f * lo, eps0_max)
            if over(y) > 0:
                hi = y
            else:
                lo, f = y, f**4
    else:
        lo, hi = None, x
        while lo is None:
            if hi <= ROUNDS_EPS0_MIN:
                return ROUNDS_EPS0_MIN
            y = max(hi / f, ROUNDS_EPS0_MIN)
            if over(y) <= 0:
                lo = y
            else:
                hi, f = y, f**4
    return brentq(over, lo, hi, xtol=1e-6, rtol=rtol)


def composed_eps0(
    mechanism, s, t, ns, target, delta, eps0_max, start=None, start_is_estimate: bool = False
) -> tuple[float, float]:
    """(largest eps0, its certified composed eps) for the rounds ``ns`` at fixed t: the
    estimate (:func:`approx_composed_eps0`) places it, and the certified composition
    (:func:`accountant.composition.compose.compose_schedule`) is evaluated there, moving down by the
    observed ratio until it is <= target (at most ``ROUNDS_MAX_CERTIFY`` certified
    compositions).  Raises :class:`InfeasiblePlan` when even ``ROUNDS_EPS0_MIN`` fails."""

    def certified(e0):
        return compose_schedule(round_specs(mechanism, s, t, e0, ns), delta, adaptive=False,
                                lower=False).epsilon  # a search: one discretisation level

    goal = target * (1.0 - ROUNDS_MARGIN)
    if start_is_estimate:  # ``start`` already inverts the estimate at ``goal``
        e0 = start
    else:
        e0 = approx_composed_eps0(
            mechanism, s, t, ns, goal, delta, eps0_max, start=1.0 if start is None else start
        )
    for _ in range(ROUNDS_MAX_CERTIFY):
        c = certified(e0)
        if c <= target:
            return e0, c
        if e0 <= ROUNDS_EPS0_MIN:
            raise InfeasiblePlan(
                f"no per-round eps0 >= {ROUNDS_EPS0_MIN:g} meets total eps = {target:g} over "
                f"{len(ns)} rounds at delta = {delta:g}: the smallest total reachable at this n "
                f"is {fmt_up(c)} (the certified composition at eps0 = {ROUNDS_EPS0_MIN:g}; give a "
                f"target >= that, fewer rounds or a larger delta)",
                c,
            )
        # the estimate is low by the ratio c / target: aim the estimate that much lower
        goal *= min(target / c, 1.0 - 1e-4) * (1.0 - 1e-4)
        e0 = min(
            approx_composed_eps0(mechanism, s, t, ns, goal, delta, eps0_max, start=e0),
            e0 * (1.0 - 1e-4),
        )
    raise ArithmeticError(
        f"the certified composition did not meet the target after {ROUNDS_MAX_CERTIFY} attempts"
    )  # pragma: no cover


def round_target(mechanisms, ns, d, s, target, delta, estimate, eps0_max) -> tuple[float, float]:
    """(eps_ref, delta_ref): a single-round target for the screen with rounds.

    A pilot (the first mechanism, its best t for the single-round target target/sqrt(T))
    is inverted on the composition estimate; its single-round saddle-point eps at
    delta / T is the per-round target the screen places t with."""
    T = len(ns)
    n0 = min(ns)
    d_ref = delta / T
    mech = mechanisms[0]
    e_guess = target / math.sqrt(T)
    ts, e0s, ms = screen(mech, n0, d, s, e_guess, d_ref, estimate, eps0_max)
    k = int(np.argmin(ms))
    t0 = int(ts[k])
    e_lo = approx_schedule_epsilon(round_specs(mech, s, t0, ROUNDS_EPS0_MIN, ns), delta)
    if e_lo > target:
        c = compose_schedule(round_specs(mech, s, t0, ROUNDS_EPS0_MIN, ns), delta, adaptive=False,
                             lower=False).epsilon
        if c > target:
            raise InfeasiblePlan(
                f"no per-round eps0 >= {ROUNDS_EPS0_MIN:g} meets total eps = {target:g} over "
                f"{T} rounds at delta = {delta:g}: the smallest total reachable at this n is "
                f"{fmt_up(c)} (the certified composition at eps0 = {ROUNDS_EPS0_MIN:g}; give a "
                f"target >= that, fewer rounds or a larger delta)",
                c,
            )
    # the screen's eps0 at (target / sqrt(T), delta / T) is usually within a few % of e_p
    e_p = approx_composed_eps0(
        mech, s, t0, ns, target, delta, eps0_max, start=float(e0s[k]), rtol=1e-3
    )  # it only sets the screen's per-round target
    a = approx_epsilon(blanket_law(make_params(mech, e_p, s=s, t=t0)), n0, d_ref)
    eps_ref = e_p if a is None else min(a, e_p)
    return max(min(eps_ref, EPS0_MAX), 1e-9), d_ref
