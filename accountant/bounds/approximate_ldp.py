"""The clone bound for approximate local DP: any (eps0, delta0)-LDP randomizer, FMT21 Theorem 3.8.

Feldman, McMillan, Talwar, "Hiding among the clones" (FOCS 2021), Theorem 3.8: if every user's
randomizer is (eps0, delta0)-LDP, the shuffled output of n users is

    (eps, delta + (e^eps + 1) (1 + e^{-eps0}/2) n delta0)-DP

wherever the clone analysis of eps0-LDP randomizers gives (eps, delta).  The proof replaces each
randomizer by one within total variation (1 + e^{-eps0}/2) delta0 that has the clone decomposition
of an eps0-LDP randomizer (so the clone pair of Theorem 3.2 dominates the replaced protocol), and
moves a total variation tau between the two protocols across the hockey-stick divergence:
P(S) <= P'(S) + tau <= e^eps Q'(S) + delta + tau <= e^eps Q(S) + delta + (e^eps + 1) tau.  So the
bound here is the toolkit's clone pair (the same engine as the pure bound ``clone``) plus the
term T(eps) = (e^eps + 1)(1 + e^{-eps0}/2) n delta0, rounded up.  The registry names it
``clone-approximate``.

* delta at eps: the clone pair's certified delta plus T(eps) (at eps >= eps0: delta0, post-processing:
  one user's (eps0, delta0)-LDP report is all that changes);
* eps at delta: the smallest eps with clone delta(eps) <= delta - T(eps).  T grows with eps, so the
  search iterates e_{k+1} = clone eps at delta - T(e_k) from e_0 = eps0 (or, where T(eps0) >= delta,
  the eps with T = delta / 2): each e_k with e_k <= e_{k-1} is certified (T(e_k) <= T(e_{k-1})) and
  the sequence decreases to the fixed point; where none is found, eps0 (post-processing, delta >= delta0);
* delta < delta0 is refused: a randomizer that reveals its input with probability delta0 (and is
  eps0-LDP otherwise) is (eps0, delta0)-LDP and its shuffled delta is >= delta0 at every eps.
"""
from __future__ import annotations

import math

from accountant.bounds.clone_bound import clone_bound, clone_delta
from accountant.core.randomizers import GenericLDP
from accountant.core.result import BoundResult

NAME = "clone-approximate"
#: the iterations of the eps search (each a clone search; the second is within 1e-6 in practice)
MAX_ITERATIONS = 6
# an upward margin on the floating-point evaluation of T (a few roundings of 1e-16 each)
_UP = 1.0 + 1e-12


def delta0_term(params, n: int, eps: float) -> float:
    """T(eps) = (e^eps + 1)(1 + e^{-eps0}/2) n delta0, rounded up (FMT21 Theorem 3.8's extra delta)."""
    return (math.exp(eps) + 1.0) * (1.0 + 0.5 * math.exp(-params.eps0)) * n * (params.delta0 or 0.0) * _UP


def delta0_refusal(params, delta: float) -> None:
    """ValueError naming delta0 where no (eps, delta) is proved: delta < delta0."""
    if params.delta0 > delta:
        raise ValueError(
            f"delta0 must be at most delta for an (eps0, delta0)-LDP randomizer (got delta0 = {params.delta0:g} "
            f"> delta = {delta:g}): one that reveals its input with probability delta0 has shuffled delta >= "
            "delta0 at every eps, so no eps_c exists; FMT21 Theorem 3.8 needs delta > 2 (1 + e^-eps0/2) n delta0")


def pure_refusal(name: str, approximate: tuple) -> str:
    """Why bound ``name`` (proved for eps0-LDP randomizers) is not applicable to an (eps0, delta0)-LDP
    one; ``approximate``: the bounds that are."""
    return (f"bound '{name}' is proved for eps0-LDP randomizers, not for an (eps0, delta0)-LDP one "
            f"(--delta0 > 0); the bounds for it: {', '.join(approximate)}")


def _post_processing(params, delta: float, why: str) -> BoundResult:
    return BoundResult(NAME, params.eps0, True,
                       f"{why}: eps0 by post-processing (the shuffled output is (eps0, delta0)-DP and "
                       f"delta >= delta0)", delta, params.delta0)


def _start(params, n: int, delta: float) -> float:
    """e_0: eps0, or where T(eps0) >= delta the eps with T(eps) = delta / 2 (0: none)."""
    if delta0_term(params, n, params.eps0) < delta:
        return params.eps0
    ratio = delta / delta0_term(params, n, 0.0)  # = delta / (2 (1 + e^-eps0/2) n delta0), rounded down
    return math.log(ratio - 1.0) if ratio > 2.0 else 0.0


def fewer_users(n: int) -> tuple:
    """The user counts the bound is evaluated at: n, n // 2, n // 4, ..., 1.  The worst case is
    non-increasing in n (one more user's report is post-processing: docs/proved.md), so a bound at
    n' <= n holds at n; the clone term falls with n' and the delta0 term grows with it."""
    out, m = [], n
    while m >= 1:
        out.append(m)
        m //= 2
    return tuple(out)


def approximate_clone_bound(params, n: int, delta: float, rtol: float = 1e-9) -> BoundResult:
    """eps_c <= the smallest eps with clone delta(eps) + T(eps) <= delta (module docstring), the
    smallest over the user counts of :func:`fewer_users` (from n down, until it grows again), or
    eps0 by post-processing where the theorem gives nothing below it; delta < delta0 refused."""
    delta0_refusal(params, delta)
    best, where = None, n
    def eps_of(r) -> float:  # a bound not available at these users counts as none
        return math.inf if r.epsilon is None else r.epsilon

    for m in fewer_users(n):
        r = _at_users(params, m, delta, rtol)
        if best is not None and eps_of(r) > eps_of(best):
            break
        if best is None or eps_of(r) < eps_of(best):
            best, where = r, m
        if eps_of(r) >= params.eps0 and delta0_term(params, m, 0.0) < 1e-3 * delta:
            break  # the delta0 term is negligible here and the clone gives nothing: fewer users cannot help
    if where != n and eps_of(best) < params.eps0:
        best = BoundResult(NAME, best.epsilon, True, f"{best.reason}; evaluated at n = {where} (fewer users: the "
                           "worst case is non-increasing in n, the delta0 term grows with n)", delta,
                           best.achieved_delta)
    return best


def _at_users(params, n: int, delta: float, rtol: float) -> BoundResult:
    """The bound at exactly n users."""
    pure = GenericLDP(params.eps0)
    e, best, achieved, note = _start(params, n, delta), None, params.delta0, None
    for _ in range(MAX_ITERATIONS if e > 0.0 else 0):
        target = delta - delta0_term(params, n, e)
        if not target >= 1e-300:
            break
        res = clone_bound(pure, n, target, rtol)
        if res.epsilon is None or res.epsilon > e or res.epsilon >= params.eps0:
            break  # not below e (then T(res) > T(e): not certified) or no amplification
        done = res.epsilon >= e * (1.0 - rtol)
        e, best, note = res.epsilon, res.epsilon, res.reason
        achieved = min(delta, res.achieved_delta + delta0_term(params, n, e))
        if done:
            break
    if best is None:
        return _post_processing(params, delta, f"FMT21 Theorem 3.8 gives nothing below eps0 here: the delta0 "
                                               f"term (e^eps + 1)(1 + e^-eps0/2) n delta0 leaves too little of "
                                               f"delta = {delta:g} for the clone")
    why = (f"FMT21 Theorem 3.8 (an (eps0, delta0)-LDP randomizer, delta0 = {params.delta0:g}): the clone pair "
           f"of an eps0-LDP randomizer at delta - (e^eps + 1)(1 + e^-eps0/2) n delta0")
    return BoundResult(NAME, best, True, why + (f"; {note}" if note else ""), delta, achieved)


def approximate_clone_delta(params, n: int, eps: float) -> tuple[float, float]:
    """(lower, upper) of the bound's delta at eps: the clone pair's certified delta plus T(eps), the
    smallest upper end over the user counts of :func:`fewer_users`."""
    best = (1.0, 1.0)
    for m in fewer_users(n):
        extra = delta0_term(params, m, eps)
        if extra >= best[1]:
            continue
        lo, up = clone_delta(GenericLDP(params.eps0), m, eps)
        if up + extra < best[1]:
            best = (min(1.0, lo + extra / _UP ** 2), min(1.0, up + extra))
    return best
