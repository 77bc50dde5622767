"""Exact eps_c of binary randomized response: a certified maximum over every dataset.

For two inputs a pair of neighbouring datasets is fixed by m, the number of the other n - 1
users holding user 1's input (``accountant.engines.two_input``), so sup over datasets of
delta(eps) is max over m in [0, n - 1] of delta_m(eps), with no assumption.  The maximum is
found by a branch and bound over ranges of m: a range [a, b] is discarded when its proved
upper bound (``two_input.range_upper``: the b - a users whose inputs vary are revealed) is at
most the target; a single m is evaluated with certified ends.  The worst m is NOT always an
extreme (n = 50, eps0 = 1, eps = 0.3: m = 48 of 0..49; lattice effects of a few 0.1% near the
top), which is why every m is covered by the search rather than by a claim.

``exact_epsilon`` returns a bracket [lower, upper] of eps_c: ``upper`` is certified (every m's
delta at ``upper`` is <= the target), ``lower`` is the eps at which one named dataset's
certified delta still exceeds the target, and upper / lower - 1 <= rtol.
"""
from __future__ import annotations

from dataclasses import dataclass
import math
from functools import lru_cache
from typing import Optional

from accountant.core.randomizers import KRRParams
from accountant.engines.search import bisect
from accountant.engines.two_input import blanket_range_upper, dataset_delta, range_upper, sum_delta

# largest n of exact_epsilon: on 2 shared cores 0.2-0.6 s at n = 1e3, 0.7-3 s
# at 1e4 (window sums); above 1e4 the FFT search, 0.6-2.1 CPU s at 1e5 (the window sums took 2-30
# s there and 60-130 s at 1e6; one window-sum evaluation costs 20 s at n = 1e10)
EXACT_MAX_N = 100_000
# largest n of the registry's bound 'exact' (and so of the headline, proved_meets, tables and
# pages, which compute it at every point): 0.2-1 s per point; above it, up to
# LARGE_HEADLINE_MAX_N, the registry's bound 'search' (a certified bracket, LARGE_REGISTRY_RTOL
# wide), and up to EXACT_MAX_N the library function exact_epsilon (docs/proved.md's table)
HEADLINE_MAX_N = 10_000
# the widest bracket named 'exact' (relative); a coarser precision asked is answered by 'search'
EXACT_RTOL = 1e-6
# nodes of one search before it gives up (reported as not available, never guessed): at small
# eps0 the datasets' deltas are nearly flat in m and the search approaches every m (n = 5000,
# eps0 = 0.05: 2,969 nodes, 28 s); 1500 nodes cost 3-15 s
MAX_EVALUATIONS = 1_500


@dataclass(frozen=True)
class ExactEpsilon:
    """Bracket of the exact eps_c: ``upper`` certified for every dataset, ``lower`` certified
    by the dataset with ``worst_m`` others holding user 1's input; ``achieved_delta`` is the
    largest certified upper end of delta over all m at ``upper``."""

    lower: float
    upper: float
    worst_m: int
    achieved_delta: float
    evaluations: int


class _Budget(Exception):
    pass


class BudgetExhausted(ArithmeticError):
    """A search of this module ran out of its node budget: it certified nothing (the bounds
    ``exact`` and ``search`` are then not applicable, with a reason starting ``OUT_OF_BUDGET``)."""


#: how the reason of an ``exact`` / ``search`` result that ran out of its node budget starts
OUT_OF_BUDGET = "out of budget"


def _branch_and_bound(n: int, eps0: float, eps: float, target: float, counter: list,
                      large: bool = False, budget: int = 0):
    """('ok', max upper end) if every m has delta_m(eps) <= target (certified), else
    ('exceeds', m) for an m whose certified lower end exceeds the target, or ('undecided', m).
    ``large``: the FFT evaluation and the blanket range bound (``bracket_epsilon``)."""
    point, range_bound = (_large_point, blanket_range_upper) if large else (dataset_delta, range_upper)
    stack = [(0, n - 1)]
    worst = 0.0
    while stack:
        a, b = stack.pop()
        counter[0] += 1
        if counter[0] > (budget or MAX_EVALUATIONS):
            raise _Budget()
        if a == b:
            r = point(n, a, eps0, eps)
            if r.lower > target:
                return "exceeds", a
            if r.upper > target:
                return "undecided", a
            worst = max(worst, r.upper)
            continue
        up = range_bound(n, a, b, eps0, eps)
        if up <= target:
            worst = max(worst, up)
            continue
        mid = (a + b) // 2
        # the upper half last on the stack: the worst datasets lie near m = n - 1
        stack.append((a, mid))
        stack.append((mid + 1, b))
    return "ok", worst


def _large_point(n: int, m: int, eps0: float, eps: float):
    return sum_delta(m, n - 1 - m, 0, eps0, eps)


def _root(n: int, m: int, eps0: float, target: float, rtol: float, point=dataset_delta) -> tuple[float, float]:
    """(lo, hi): delta_m's certified lower end exceeds ``target`` at lo, its upper end is <= the
    target at hi (hi/lo - 1 <= rtol/4); lo = 0 if delta_m never exceeds the target."""
    if point(n, m, eps0, 0.0).lower <= target:
        return 0.0, _bisect_upper(n, m, eps0, target, 0.0, eps0, rtol)
    b = bisect(lambda e: not point(n, m, eps0, e).lower > target, eps0, 0.0, rtol=rtol / 4)
    return b.other, b.x


def _bisect_upper(n, m, eps0, target, lo, hi, rtol, point=dataset_delta):
    # below 1e-12 the bracket is as good as 0
    return bisect(lambda e: point(n, m, eps0, e).upper <= target, hi, lo, rtol=rtol / 4, floor=1e-12).x


def check_n(n: int) -> int:
    if n > EXACT_MAX_N:
        raise ValueError(f"n must be <= {EXACT_MAX_N:.0e} for the exact binary search "
                         f"(EXACT_MAX_N; got n = {n}): the windows grow like sqrt(n)")
    return n


def _search(n: int, eps0: float, delta: float, rtol: float, counter: list, budget: int = 0,
            large: bool = False, start=None) -> ExactEpsilon:
    """The bracket search at relative width ``rtol`` (raises ``_Budget``); ``start``: the
    root (lo, hi) of the dataset m = n - 1 when already known."""
    m = n - 1                      # the first candidate: everyone else holds user 1's input
    point = _large_point if large else dataset_delta
    lo, hi = start or _root(n, m, eps0, delta, rtol)
    worst_m = m
    for _ in range(200):
        eps_up = min(max(hi, lo * (1.0 + rtol)), eps0)
        verdict, val = _branch_and_bound(n, eps0, eps_up, delta, counter, large, budget)
        if verdict == "ok":
            return ExactEpsilon(lo, eps_up, worst_m, val, counter[0])
        if verdict == "exceeds":
            worst_m = val
            lo2, hi = _root(n, val, eps0, delta, rtol, point)
            lo = max(lo, lo2, eps_up)  # that dataset's delta exceeds the target at eps_up
            hi = max(hi, lo * (1.0 + rtol / 2))
        else:                          # float margins undecided at this eps: step up a little
            hi = eps_up * (1.0 + rtol / 2)
        if lo >= eps0:
            return ExactEpsilon(eps0, eps0, worst_m, 0.0, counter[0])
    raise ArithmeticError("the exact search did not converge")  # pragma: no cover


def exact_epsilon(n: int, eps0: float, delta: float, rtol: float = 1e-6) -> ExactEpsilon:
    """Bracket [lower, upper] of the exact eps_c of binary RR at (n, eps0, delta), upper / lower
    - 1 <= rtol (see the module docstring).  Raises ``ValueError`` above ``EXACT_MAX_N`` and
    ``ArithmeticError`` when the search exhausts ``MAX_EVALUATIONS``.  Above ``HEADLINE_MAX_N``
    the same search with FFT evaluations and the blanket range bound, at ``rtol`` directly
    (``bracket_epsilon(..., direct=True)``, at most ``LARGE_EXACT_NODES`` nodes): n = 1e5 at
    1e-6 in 0.6-2.1 CPU s (593-2,140 nodes, load 6) where the window sums took 2-30 s."""
    check_n(n)
    if n > HEADLINE_MAX_N:
        return bracket_epsilon(n, eps0, delta, rtol=rtol, max_nodes=LARGE_EXACT_NODES, direct=True)
    try:
        return _search(n, eps0, delta, rtol, [0])
    except _Budget:
        raise BudgetExhausted(f"the exact search exceeded {MAX_EVALUATIONS} evaluations "
                              f"(n = {n}, eps0 = {eps0}, delta = {delta})") from None


# --------------------------------------------------------------------------- large n: a certified bracket
#: how the reason of a ``search`` result (a bracket wider than 1e-6) starts
BRACKET_REASON = "certified bracket over every dataset, not exact"
# largest n of ``bracket_epsilon`` (one FFT evaluation: ~0.3 s at 1e10, windows of 6e5 points)
LARGE_MAX_N = 10**10
# nodes of one ``bracket_epsilon`` (every level together)
LARGE_MAX_NODES = 400
# nodes of ``exact_epsilon`` above HEADLINE_MAX_N (one direct search of a few seconds; the cost
# of a node: docs/BENCHMARKS.md)
LARGE_EXACT_NODES = 3000
# the registry's bracket (bound 'search'): up to this n, with large_nodes(n) = LARGE_WORK / sqrt(n) nodes (at
# most LARGE_MAX_NODES); a 1% bracket takes tens of nodes, 0.1% several times more
# (docs/BENCHMARKS.md)
LARGE_HEADLINE_MAX_N = 10**6
LARGE_WORK = 150_000
# the registry's bracket stops at this relative width (0.1% costs about 5x a 1% bracket, which a
# chart of 25 points on the Amplification page pays 25 times; docs/BENCHMARKS.md);
# ``bracket_epsilon`` itself goes to 1e-6 where its budget allows
LARGE_REGISTRY_RTOL = 1e-2
# the relative widths tried by ``bracket_epsilon``, loosest first
LARGE_RTOLS = (1e-2, 1e-3, 1e-4, 1e-5, 1e-6)


def bracket_epsilon(n: int, eps0: float, delta: float, rtol: float = 1e-6,
                    max_nodes: int = 0, direct: bool = False) -> ExactEpsilon:
    """A certified bracket [lower, upper] of the exact eps_c of binary RR for n up to
    ``LARGE_MAX_N``: the search of ``exact_epsilon`` with FFT evaluations (``sum_delta``) and
    the blanket range bound (``blanket_range_upper``) at the widths ``LARGE_RTOLS`` from the
    loosest down to ``rtol`` while the node budget (``max_nodes``, default
    ``LARGE_MAX_NODES``) lasts: a level is started only when six times the previous level's
    nodes fit in what is left (the nodes grow several fold a level), and the tightest level
    certified is returned (its ``upper`` holds for every m, its ``lower`` is the named
    dataset's).  Raises ``ArithmeticError`` when not even the loosest level is certified.

    ``direct=True``: one search at ``rtol`` only (no looser levels first; ``ArithmeticError``
    when the budget runs out).  The looser levels do not make the finer one cheaper (each
    starts from the root of m = n - 1 again), so this is the fastest way to a given width
    (node counts: docs/proved.md, docs/BENCHMARKS.md)."""
    if not (2 <= n <= LARGE_MAX_N):
        raise ValueError(f"n must be an integer in [2, {LARGE_MAX_N:.0e}] for the bracket search "
                         f"(LARGE_MAX_N; got n = {n})")
    budget = max_nodes or LARGE_MAX_NODES
    counter, best, last = [0], None, 0
    start = _root(n, n - 1, eps0, delta, 1e-8)  # one binomial at m = n - 1: cheap at every n
    if direct:
        try:
            return _search(n, eps0, delta, rtol, counter, budget, True, start)
        except _Budget:
            raise BudgetExhausted(f"the bracket search exceeded {budget} nodes at relative width {rtol:g} "
                                  f"(n = {n}, eps0 = {eps0}, delta = {delta})") from None
    for r in LARGE_RTOLS:
        if r < rtol * (1.0 - 1e-9) or (best is not None and counter[0] + 6 * last > budget):
            break
        before = counter[0]
        try:
            best = _search(n, eps0, delta, r, counter, budget, True, start)
        except _Budget:
            break
        last = counter[0] - before
        start = (best.lower, start[1])
    if best is None:
        raise BudgetExhausted(f"the bracket search exceeded {budget} nodes at relative width "
                              f"{LARGE_RTOLS[0]:g} (n = {n}, eps0 = {eps0}, delta = {delta})")
    return best


def _delta_search(n: int, eps0: float, eps: float, tol: float, budget: int, counter: list,
                  large: bool = False) -> tuple[float, float]:
    """(best lower end over the m evaluated, proved maximum over every range): ranges are split
    until their bound is within ``tol`` (relative) of the best lower end; ``_Budget`` past
    ``budget`` nodes."""
    point, range_bound = (_large_point, blanket_range_upper) if large else (dataset_delta, range_upper)
    stack = [(0, n - 1)]
    upper = 0.0
    # first the candidate m = n - 1, so that ranges far below it are discarded at once
    best_lo = point(n, n - 1, eps0, eps).lower
    while stack:
        a, b = stack.pop()
        counter[0] += 1
        if counter[0] > budget:
            raise _Budget()
        if a == b:
            r = point(n, a, eps0, eps)
            best_lo = max(best_lo, r.lower)
            upper = max(upper, r.upper)
            continue
        up = range_bound(n, a, b, eps0, eps)
        if up <= best_lo * (1.0 + tol):
            upper = max(upper, up)
            continue
        mid = (a + b) // 2
        stack.append((a, mid))
        stack.append((mid + 1, b))
    return best_lo, max(upper, best_lo)


@lru_cache(maxsize=64)  # the registry's exact and search ask the same at n <= HEADLINE_MAX_N
def exact_delta(n: int, eps0: float, eps: float) -> tuple[float, float]:
    """(lower, upper) on sup over datasets of delta(eps): the best single m found and the
    proved maximum over all ranges (a branch and bound to 1e-6 relative)."""
    check_n(n)
    if eps >= eps0:
        return 0.0, 0.0
    try:
        return _delta_search(n, eps0, eps, 1e-6, MAX_EVALUATIONS, [0])
    except _Budget:
        raise BudgetExhausted(f"the exact delta search exceeded {MAX_EVALUATIONS} evaluations") from None


def tolerant_delta(n: int, eps0: float, eps: float, tol: float) -> tuple[float, float]:
    """(lower, upper) on sup over datasets of delta(eps) for n <= ``HEADLINE_MAX_N``: the branch
    and bound of ``exact_delta`` (window sums) stopped when every range's bound is within ``tol``
    (relative) of the best single m found, so upper <= (1 + tol) lower up to the single m's
    certified widths; (0, 1) when the node budget ``MAX_EVALUATIONS`` runs out (nothing is
    certified beyond the trivial bound).  At small eps, where the deltas are flat in m, a 1% search
    takes 5-15 times fewer nodes than the 1e-6 one (n = 1000-3000, eps0 = 3, eps = 0.005)."""
    check_n(n)
    if n > HEADLINE_MAX_N:
        raise ValueError(f"n: at most {HEADLINE_MAX_N} (HEADLINE_MAX_N) for the window-sum search; got {n}")
    if eps >= eps0:
        return 0.0, 0.0
    try:
        return _delta_search(n, eps0, eps, tol, MAX_EVALUATIONS, [0])
    except _Budget:
        return 0.0, 1.0


# relative tolerances of ``large_delta``'s levels, loosest first
LARGE_DELTA_TOLS = (0.3, 0.1, 0.03, 0.01)


@lru_cache(maxsize=64)  # search_bound's last call is asked again by the registry's agreement check
def large_delta(n: int, eps0: float, eps: float, max_nodes: int) -> tuple[float, float]:
    """(lower, upper) on sup over datasets of delta(eps) for n up to ``LARGE_MAX_N``: the
    branch and bound of ``exact_delta`` with FFT evaluations and the blanket range bound, at
    the tolerances ``LARGE_DELTA_TOLS`` from the loosest while ``max_nodes`` lasts (a level
    starts when three times the previous level's nodes fit); the smallest upper end of the
    levels completed.  ``ArithmeticError`` when not even the loosest completes."""
    if eps >= eps0:
        return 0.0, 0.0
    counter, best, last = [0], None, 0
    for tol in LARGE_DELTA_TOLS:
        if best is not None and counter[0] + 3 * last > max_nodes:
            break
        before = counter[0]
        try:
            lo, up = _delta_search(n, eps0, eps, tol, max_nodes, counter, True)
        except _Budget:
            break
        last = counter[0] - before
        best = (lo, up) if best is None else (max(best[0], lo), min(best[1], up))
    if best is None:
        raise BudgetExhausted(f"the large delta search exceeded {max_nodes} nodes (n = {n}, eps0 = {eps0})")
    return best


def exact_reason(res: ExactEpsilon, n: int) -> str:
    return (f"exact over every dataset: eps_c in [{res.lower:.10g}, {res.upper:.10g}], worst dataset "
            f"D = (1, 1^{res.worst_m}, 2^{n - 1 - res.worst_m}), D' = (2, 1^{res.worst_m}, "
            f"2^{n - 1 - res.worst_m}); {res.evaluations} branch-and-bound nodes")


# --------------------------------------------------------------------------- registry entries "exact", "search"
def supports(params) -> bool:
    """Whether the search over every dataset covers ``params``: randomized response with k = 2
    values (binary RR; the registry offers it for mechanism 'rr')."""
    return isinstance(params, KRRParams) and params.k == 2


def exact_bound(params, n: int, delta: float, rtol: float):
    """The registry's ``exact`` bound (binary RR): the certified upper end of the bracket as
    ``epsilon``, the bracket and the worst dataset in ``reason``; not applicable above
    ``HEADLINE_MAX_N`` or when the caller asks a precision coarser than ``EXACT_RTOL`` (a chart's:
    then ``search`` answers with the same computation) (the limit in the reason)."""
    from accountant.core.result import BoundResult

    if not supports(params):
        return BoundResult.not_applicable("exact", "the exact search is for binary randomized "
                                          "response (mechanism 'rr')", delta)
    if n > HEADLINE_MAX_N:
        return BoundResult.not_applicable(
            "exact", f"the exact bound (a bracket at most 1e-6 wide) is limited to n <= {HEADLINE_MAX_N:.0e} "
                     f"(HEADLINE_MAX_N); above it the bound 'search' gives a certified bracket up to n = "
                     f"{LARGE_HEADLINE_MAX_N:.0e}; n = {n}", delta)
    if rtol > EXACT_RTOL * (1.0 + 1e-9):
        return BoundResult.not_applicable(
            "exact", f"the exact bound is a bracket at most {EXACT_RTOL:g} wide; at the precision asked "
                     f"(rtol = {rtol:g}) the bound 'search' answers", delta)
    try:
        res = exact_epsilon(n, params.eps0, delta, rtol=min(max(rtol, 1e-6), 1e-3))
    except ArithmeticError as exc:
        return BoundResult.not_applicable("exact", _unavailable(exc), delta)
    return BoundResult("exact", res.upper, True, exact_reason(res, n), delta, res.achieved_delta)


def large_nodes(n: int) -> int:
    """The node budget of the registry's bracket at n (the cost model: one node's windows grow
    like sqrt(n); ``LARGE_WORK`` / sqrt(n) nodes, at most ``LARGE_MAX_NODES``)."""
    return min(LARGE_MAX_NODES, int(LARGE_WORK / math.sqrt(n)))


def search_bound(params, n: int, delta: float, rtol: float):
    """The registry's ``search`` bound (binary RR, ``HEADLINE_MAX_N`` < n <=
    ``LARGE_HEADLINE_MAX_N``): the certified bracket of ``bracket_epsilon`` under the node budget
    ``large_nodes(n)``, stopped at ``LARGE_REGISTRY_RTOL``; its upper end (a proved upper bound
    for every dataset) as ``epsilon``, the bracket and the worst dataset in ``reason``.  Where
    the bracket is within 1e-6 (n <= ``HEADLINE_MAX_N``) the bound ``exact`` answers instead."""
    from accountant.core.result import BoundResult

    if not supports(params):
        return BoundResult.not_applicable("search", "the search over datasets is for binary randomized "
                                          "response (mechanism 'rr')", delta)
    if n <= HEADLINE_MAX_N and rtol <= EXACT_RTOL * (1.0 + 1e-9):
        return BoundResult.not_applicable(
            "search", f"at n <= {HEADLINE_MAX_N:.0e} (HEADLINE_MAX_N) the bound 'exact' answers (its bracket "
                      f"is at most 1e-6 wide); n = {n}", delta)
    if n <= HEADLINE_MAX_N:  # a chart's precision: the exact search stopped at rtol (> 1e-6)
        try:
            res = exact_epsilon(n, params.eps0, delta, rtol=min(rtol, 1e-3))
        except ArithmeticError as exc:
            return BoundResult.not_applicable("search", _unavailable(exc), delta)
        return BoundResult("search", res.upper, True, _bracket_reason(res, n, f"the precision asked, rtol = {rtol:g}"),
                           delta, res.achieved_delta)
    if n > LARGE_HEADLINE_MAX_N:
        return BoundResult.not_applicable(
            "search", f"the search bound is limited to n <= {LARGE_HEADLINE_MAX_N:.0e} (LARGE_HEADLINE_MAX_N: "
                      f"{large_nodes(LARGE_HEADLINE_MAX_N)} nodes of 0.05-0.1 s there; "
                      f"accountant.bounds.binary_exact.bracket_epsilon goes to {LARGE_MAX_N:.0e}); n = {n}", delta)
    budget = large_nodes(n)
    try:
        res = bracket_epsilon(n, params.eps0, delta, rtol=LARGE_REGISTRY_RTOL, max_nodes=budget)
        # the delta form (search_bound_delta, the delta command) at the upper end must meet the
        # target too: step the upper end up by the bracket's width until it does
        eps_up, step = res.upper, max(res.upper / res.lower - 1.0, 1e-3)
        for _ in range(20):
            achieved = large_delta(n, params.eps0, eps_up, budget)[1]
            if achieved <= delta:
                break
            eps_up = min(eps_up * (1.0 + step), params.eps0)
        else:
            raise ArithmeticError("the delta form did not meet the target within 20 steps")
    except ArithmeticError as exc:
        return BoundResult.not_applicable("search", _unavailable(exc), delta)
    res = ExactEpsilon(res.lower, eps_up, res.worst_m, achieved, res.evaluations)
    why = (f"the registry stops at {LARGE_REGISTRY_RTOL:g}, LARGE_REGISTRY_RTOL; accountant.bounds.binary_exact."
           f"bracket_epsilon goes finer")
    return BoundResult("search", res.upper, True, _bracket_reason(res, n, why, " (blanket range bound)"), delta,
                       res.achieved_delta)


def _unavailable(exc: ArithmeticError) -> str:
    """The reason of an ``exact`` / ``search`` result that certified nothing: ``OUT_OF_BUDGET``
    first when the node budget ran out (the headline then says so, :mod:`accountant.bounds.registry`)."""
    return f"{OUT_OF_BUDGET}, not available: {exc}" if isinstance(exc, BudgetExhausted) else f"not available: {exc}"


def _bracket_reason(res: ExactEpsilon, n: int, why: str, how: str = "") -> str:
    """The reason of a ``search`` result: the bracket's width and ``why`` it is wider than 1e-6,
    how its ends are certified, the worst dataset and the bracket."""
    width = res.upper / res.lower - 1.0 if res.lower > 0 else math.inf
    return (f"{BRACKET_REASON} (relative width {width:.2g}: {why}): upper end for every dataset by a "
            f"branch and bound{how}, lower end the dataset D = (1, 1^{res.worst_m}, "
            f"2^{n - 1 - res.worst_m}), D' = (2, 1^{res.worst_m}, 2^{n - 1 - res.worst_m}): eps_c in "
            f"[{res.lower:.10g}, {res.upper:.10g}]; {res.evaluations} nodes")


def exact_bound_delta(params, n: int, eps: float) -> tuple[float, float]:
    """(lower, upper) on sup over datasets of delta(eps) by ``exact_delta`` (n <= ``HEADLINE_MAX_N``);
    (0, 1) above it or when the node budget runs out."""
    if n > HEADLINE_MAX_N:
        return 0.0, 1.0
    try:
        return exact_delta(n, params.eps0, eps)
    except ArithmeticError:  # the node budget: nothing certified beyond the trivial bound
        return 0.0, 1.0


def search_bound_delta(params, n: int, eps: float) -> tuple[float, float]:
    """(lower, upper) on sup over datasets of delta(eps) by ``large_delta`` under the node
    budget ``large_nodes(n)`` (``HEADLINE_MAX_N`` < n <= ``LARGE_HEADLINE_MAX_N``), by
    ``exact_delta`` (memoised: ``exact`` asks the same) up to ``HEADLINE_MAX_N``; (0, 1) above
    ``LARGE_HEADLINE_MAX_N`` or when the budget runs out."""
    if n <= HEADLINE_MAX_N:
        return exact_bound_delta(params, n, eps)
    if n > LARGE_HEADLINE_MAX_N:
        return 0.0, 1.0
    try:
        return large_delta(n, params.eps0, eps, large_nodes(n))
    except ArithmeticError:
        return 0.0, 1.0


def exact_meets(n: int, eps0: float, eps: float, delta: float) -> bool:
    """Whether every dataset's certified delta at ``eps`` is <= ``delta`` (one branch and bound;
    False when undecided or above ``HEADLINE_MAX_N``)."""
    if n > HEADLINE_MAX_N:
        return False
    if eps >= eps0:
        return True
    try:
        return _branch_and_bound(n, eps0, eps, delta, [0])[0] == "ok"
    except _Budget:
        return False


def top_dataset_exceeds(n: int, eps0: float, eps: float, delta: float) -> bool:
    """Whether the dataset with every other user holding user 1's input (m = n - 1) has a
    certified delta above ``delta`` at ``eps`` (then eps_c > eps at this n and at every
    smaller n: that dataset's delta is non-increasing in n, docs/proved.md)."""
    return eps < eps0 and dataset_delta(n, n - 1, eps0, eps).lower > delta


# --------------------------------------------------------------------------- the composition's profile
@lru_cache(maxsize=2)
def every_dataset(n: int, eps0: float):
    """:class:`accountant.engines.two_input.EveryDataset` of binary RR (cached: ~1 s and 24 MB
    at n = 1000), or None above ``EVERY_DATASET_MAX_N`` or where it cannot certify."""
    from accountant.engines.two_input import EVERY_DATASET_MAX_N, EveryDataset

    if n > EVERY_DATASET_MAX_N:
        return None
    try:
        return EveryDataset(n, eps0)
    except ArithmeticError:  # float log-ratios too close: not certified here (the blanket stays)
        return None


def exact_profile_value(n: int, eps0: float, eps: float) -> Optional[tuple[float, float]]:
    """(lower, upper) on sup over every dataset of binary RR's delta(eps), certified by the
    enumeration of every m (``every_dataset``), or None above its n."""
    every = every_dataset(n, eps0)
    if every is None:
        return None
    if eps >= eps0:
        return 0.0, 0.0
    lo, up, _ = every.delta(eps)
    return lo, up
