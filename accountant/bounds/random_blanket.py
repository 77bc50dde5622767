"""The exact-blanket bound under ``hash_model="random"`` (Collision, OLH): the largest over the
neighbouring-pair types of the blanket of :mod:`accountant.bounds.laws.random_hash`.

May import: accountant.core, accountant.engines, accountant.bounds.laws.

Proved under the assumption that each report's hash is a uniformly random function (the
laws' module docstring has the derivation and names the relaxation: diagonal atoms moved
to ``(1, 1)``).  The pair types (``r`` shared items, weights ``lambda(r)``) are not proved
ordered, so ``delta`` is the largest over them and ``eps_c`` the largest of their eps.

*Groups of types (a branch and bound, proved).*  For types whose weights lie in
``[lo, hi]`` the law :func:`~accountant.bounds.laws.random_hash.random_count_law` with
``(lo, hi)`` dominates each of them in the increasing convex order (the balayage of the
laws' docstring, *Rounding*, holds for every ``lambda`` in ``[lo, hi]``), so its upper
delta bounds every member's.  The types are sorted by weight (largest first); the search
runs on the first; the others are checked at the answer as groups of consecutive types
(the group's smallest ``lo`` and largest ``hi``), and a group whose upper delta is above
the target is split in two, down to single types, and a single type above the target gets
its own search.  The first groups have sizes 1, 2, 4, ... from the top (near-top types have
deltas close to the first one's: a group of them fails at once).  ``delta`` at a given eps is the largest upper delta of single types,
a group being split only when its (dominating) upper delta exceeds the current largest.
The answer is therefore the one of checking every type alone, at O(log s) evaluations
when the weights fall off (measured: s = 1024 at eps0 = 1, n = 1e6, docs/BENCHMARKS.md).

*The any-hash bound as a ceiling.*  The any-hash blanket is proved for every hash family,
the uniformly random one included, so the reported bound is the smaller of the two; the
search stops as soon as one pair type needs at least the any-hash eps (large eps0, where
the types' weights ``(s - r)/t`` barely differ and ``e^eps0`` makes groups useless), and
also when the pair types have cost ``MAX_TYPE_EVALUATIONS`` certified evaluations after the
first search (bounded time; the any-hash number is then reported, proved under the model).
"""
from __future__ import annotations

from accountant.bounds.laws.random_hash import ASSUMPTION, collision_random_weights, random_count_law
from accountant.core.result import BoundResult


# certified evaluations the branch and bound may spend on the pair types after the first
# search; past it the any-hash bound (the ceiling, proved under the model too) is reported
MAX_TYPE_EVALUATIONS = 40


def random_blanket_types(params) -> list:
    """``[(r, lo, hi), ...]`` for Collision / OLH with ``hash_model="random"``, sorted by
    ``hi`` (largest first); ``[lo, hi]`` encloses the weight of pair type ``r``."""
    if getattr(params, "hash_model", "any") != "random" or params.name not in ("collision", "olh"):
        raise ValueError("random_blanket_types needs collision or olh parameters with hash_model='random'")
    w = collision_random_weights(params.s, params.t)
    return sorted(((r, lo, hi) for r, (lo, hi) in enumerate(w)), key=lambda z: (-z[2], z[0]))


def _initial_groups(types: list) -> list:
    """The types after the first as a stack of consecutive groups of sizes 1, 2, 4, ...
    (largest weights first on top): the near-top types, whose deltas are close to the first
    one's, alone or in small groups; far types, whose weights are well below, in large ones."""
    groups, i, size = [], 1, 1
    while i < len(types):
        groups.append(types[i:i + size])
        i, size = i + size, 2 * size
    return groups[::-1]


def _group_law(params, group):
    return random_count_law(params.eps0, params.s, params.t,
                            min(g[1] for g in group), max(g[2] for g in group))


def random_blanket_laws(params) -> list:
    """``[(r values, CountLaw), ...]``: one law per pair type, largest weight first."""
    return [((r,), _group_law(params, [(r, lo, hi)])) for r, lo, hi in random_blanket_types(params)]


def random_blanket_delta(params, n: int, eps: float, ceiling=None, evaluate=None,
                         budget: int = MAX_TYPE_EVALUATIONS) -> tuple[float, float]:
    """(lower, upper) of the bound's delta at ``eps``: the largest over pair types (module
    docstring: groups dominated by the current largest are not split).  ``ceiling``: the
    any-hash bound's (lower, upper), returned as soon as a type reaches its upper end (the
    bound is the smaller of the two).  ``evaluate(law, eps)``: the certified evaluation
    (default :func:`~accountant.engines.blanket.engine.blanket_exact_delta` at ``n``; the
    composition passes its deeper windows); ``budget``: evaluations after the first type
    before the ceiling is returned (only with a ceiling)."""
    from accountant.engines.blanket.engine import blanket_exact_delta

    if evaluate is None:
        evaluate = lambda law, e: blanket_exact_delta(law, n, e)  # noqa: E731

    if eps >= params.eps0:
        return 0.0, 0.0
    types = random_blanket_types(params)
    v = evaluate(_group_law(params, types[:1]), eps)
    lo, up = v.lower, v.upper
    stack = _initial_groups(types)
    while stack:
        if ceiling is not None and (up >= ceiling[1] or budget == 0):
            return ceiling
        budget -= 1
        group = stack.pop()
        law = _group_law(params, group)
        if eps >= law.eps_max:
            continue
        v = evaluate(law, eps)
        if v.upper <= up:
            continue
        if len(group) == 1:
            lo, up = max(lo, v.lower), v.upper
            continue
        h = len(group) // 2
        stack += [group[h:], group[:h]]
    if ceiling is not None and up >= ceiling[1]:
        return ceiling
    return lo, min(up, 1.0)


def random_blanket_epsilon(params, n: int, delta: float, rtol: float, ceiling=None) -> tuple[float, float]:
    """(eps, achieved delta): certified ``upper delta <= delta`` at eps for every pair type.
    ``ceiling``: the any-hash bound's (eps, achieved delta), returned as soon as a type
    needs at least its eps (the bound is the smaller of the two)."""
    from accountant.engines.blanket.engine import blanket_exact_epsilon, positive_part

    types = random_blanket_types(params)
    res = blanket_exact_epsilon(_group_law(params, types[:1]), n, delta, rtol=rtol, certify_bracket=False)
    eps, achieved = res.epsilon, res.achieved_delta
    stack = _initial_groups(types)
    budget = MAX_TYPE_EVALUATIONS
    while stack:
        if ceiling is not None and (eps >= ceiling[0] or budget == 0):
            return ceiling
        budget -= 1
        group = stack.pop()
        law = _group_law(params, group)
        if eps >= law.eps_max:
            continue
        v = positive_part(law, n, eps, target_delta=delta)
        if v.upper <= delta:
            achieved = max(achieved, v.upper)
            continue
        if len(group) > 1:
            h = len(group) // 2
            stack += [group[h:], group[:h]]
            continue
        # a single type above the target at eps: its own search; eps only grows, and every
        # group checked before stays below the target (delta decreases in eps)
        r2 = blanket_exact_epsilon(law, n, delta, rtol=rtol, certify_bracket=False)
        if r2.epsilon >= eps:
            eps, achieved = r2.epsilon, max(achieved, r2.achieved_delta)
    if ceiling is not None and eps >= ceiling[0]:
        return ceiling
    return eps, achieved


def random_blanket_result(params, n: int, delta: float, rtol: float, clamp, ceiling=None) -> BoundResult:
    """The ``blanket`` entry's result under the random-hash model; ``reason`` states the
    assumption.  ``ceiling``: the any-hash blanket's clamped (eps, achieved delta)."""
    eps, achieved = clamp(*random_blanket_epsilon(params, n, delta, rtol, ceiling), params.eps0)
    which = ("blanket of a law dominating the random-hash law: its diagonal atoms moved to (1, 1), "
             "a proved relaxation, not the exact blanket; largest over the neighbouring-pair types")
    if ceiling is not None and ceiling[0] <= eps:
        eps, achieved = ceiling
        which = ("the any-hash exact blanket, proved under the model too: not above the random-hash "
                 f"one, or the pair types' {MAX_TYPE_EVALUATIONS} evaluations were spent")
    return BoundResult("blanket", eps, True, f"assumption: {ASSUMPTION['random']} ({which})", delta, achieved)
