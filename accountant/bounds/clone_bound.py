"""The clone bound (Feldman, McMillan, Talwar, FOCS 2021, Theorem 3.2): its pair, its eps search
(halving n where the pair window is over its cost limit) and its certified delta.  The registry
(:mod:`accountant.bounds.registry`) names it ``clone``; every composed round uses the same pair.
"""
from __future__ import annotations

from functools import singledispatch
from typing import TYPE_CHECKING

from accountant.core.dispatch import unsupported
from accountant.core.finite import FiniteRandomizer
from accountant.core.randomizers import (CoCoParams, CollisionParams, GenericLDP, KRRParams, OUEParams, VariationRatioParams)
from accountant.core.randomizers_numerical import LaplaceParams
from accountant.core.result import BoundResult

if TYPE_CHECKING:  # the pair engine is imported where a pair is built (the registry's import stays light)
    from accountant.engines.pair.law import DominatingPair


@singledispatch
def clone_pair(params, n) -> DominatingPair:
    """FMT21's clone pair of ``params`` at n users (FMT21 Theorem 3.2, for an eps0-LDP
    randomizer; for a variation-ratio randomizer the same reduction with its ratio p and mixing
    1/q): the one choice of the clone pair, used by the single-round bound and by every composed
    round.  A type registered for neither is refused."""
    raise unsupported(params, "the clone pair", clone_pair)


@clone_pair.register(GenericLDP)
@clone_pair.register(CollisionParams)  # and OLH
@clone_pair.register(CoCoParams)
@clone_pair.register(KRRParams)
@clone_pair.register(OUEParams)
@clone_pair.register(FiniteRandomizer)
@clone_pair.register(LaplaceParams)
def _clone_eps0(params, n) -> DominatingPair:
    from accountant.engines.pair.law import DominatingPair

    return DominatingPair.clone(n, params.eps0)


@clone_pair.register(VariationRatioParams)
def _clone_pq(params, n) -> DominatingPair:
    from accountant.engines.pair.law import DominatingPair

    return DominatingPair.clone_pq(n, params.p, params.q)


def clone_bound(params, n, delta, rtol) -> BoundResult:
    """FMT21 Theorem 3.2 pair, evaluated exactly (same engine, no step discretisation).  Where
    the window's cost limit leaves no certified eps below eps0 (n near 1e10, small delta), the
    pair is evaluated at fewer users, halving n: the worst case is non-increasing in n
    (docs/proved.md), so a proved bound at n' <= n holds at n."""
    from accountant.bounds.pair_accountant import clamp_to_eps0, search_pair_epsilon

    m, halvings = n, 0
    while True:
        res = search_pair_epsilon(clone_pair(params, m), delta, rtol, predict=True)
        eps, achieved = clamp_to_eps0(res.epsilon, res.achieved_delta, params.eps0)
        capped = res.evaluations == 0 and eps >= params.eps0
        if not capped or m // 2 < CLONE_MIN_FEWER or halvings == CLONE_MAX_HALVINGS:
            break
        m, halvings = m // 2, halvings + 1
    if capped or (m != n and eps >= params.eps0):  # fewer users did not help: the cost limit answers
        return BoundResult("clone", params.eps0, True, WINDOW_NOTE, delta, 0.0)
    note = None if m == n else (f"evaluated at n = {m} (the window at n = {n} is over its cost limit; the "
                                f"worst case is non-increasing in n, so the bound at fewer users holds)")
    return BoundResult("clone", eps, True, note, delta, achieved)


#: the clone is not evaluated at fewer users than this, nor halved more than CLONE_MAX_HALVINGS
#: times, when its window is over the cost limit
CLONE_MIN_FEWER = 10 ** 6
CLONE_MAX_HALVINGS = 4
# said when the cost model narrowed a pair window so far that no eps below eps0 is certified
WINDOW_NOTE = ("cost limit: the summation window was narrowed to its limit (accountant.engines.pair.law."
               "MAX_WINDOW_TERMS) and the mass it leaves out exceeds the target, so eps0 "
               "(post-processing) is reported; a larger delta or smaller n gives a tighter number")


def clone_delta(params, n, eps) -> tuple[float, float]:
    """The clone pair's certified delta at eps; where the window's cost limit leaves more than
    1% of it out (n near 1e10), also at n / 2, n / 4, ... (at most 4 halvings; a proved bound
    at fewer users holds at n, as in :func:`_clone`), the smallest upper end."""
    from accountant.engines.pair.divergence import hockey_stick_divergence

    v = hockey_stick_divergence(clone_pair(params, n), eps)
    lower, upper = v.lower, min(v.upper, 1.0)
    m, tries = n, 0
    while m // 2 >= CLONE_MIN_FEWER and upper > 1.01 * v.value and tries < 4:
        m, tries = m // 2, tries + 1
        v = hockey_stick_divergence(clone_pair(params, m), eps)
        if v.upper < upper:
            lower, upper = min(lower, v.lower), v.upper
    return lower, upper
