"""The exact-blanket bound under ``hash_model="random"`` (Collision, OLH): the largest over the
neighbouring-pair types of the blanket of :mod:`accountant.bounds.laws.random_hash`.

May import: accountant.core, accountant.engines, accountant.bounds.laws.

Proved under the assumption that each report's hash is a uniformly random function (the
laws' module docstring has the derivation and names the relaxation: diagonal atoms moved
to ``(1, 1)``).  The pair types (``r`` shared items) are not proved ordered, so ``delta``
is the largest over them and ``eps_c`` the largest of their eps: the search runs on the
type of largest weight and every other type is then checked at the answer (one certified
evaluation each); a type that fails gets its own search.
"""
from __future__ import annotations

from accountant.bounds.laws.random_hash import ASSUMPTION, collision_random_laws
from accountant.core.result import BoundResult


def random_blanket_laws(params) -> list:
    """``[(r values, CountLaw), ...]`` for Collision / OLH with ``hash_model="random"``."""
    if getattr(params, "hash_model", "any") != "random" or params.name not in ("collision", "olh"):
        raise ValueError("random_blanket_laws needs collision or olh parameters with hash_model='random'")
    return collision_random_laws(params.eps0, params.s, params.t)


def random_blanket_delta(params, n: int, eps: float) -> tuple[float, float]:
    """(lower, upper) of the bound's delta at ``eps`` (the largest over pair types)."""
    from accountant.engines.blanket.engine import blanket_exact_delta

    if eps >= params.eps0:
        return 0.0, 0.0
    lo = up = 0.0
    for _, law in random_blanket_laws(params):
        v = blanket_exact_delta(law, n, eps)
        lo, up = max(lo, v.lower), max(up, v.upper)
    return lo, min(up, 1.0)


def random_blanket_epsilon(params, n: int, delta: float, rtol: float) -> tuple[float, float]:
    """(eps, achieved delta): certified ``upper delta <= delta`` at eps for every pair type."""
    from accountant.engines.blanket.engine import blanket_exact_epsilon, positive_part

    laws = random_blanket_laws(params)
    res = blanket_exact_epsilon(laws[0][1], n, delta, rtol=rtol, certify_bracket=False)
    eps, achieved = res.epsilon, res.achieved_delta
    for _, law in laws[1:]:
        if eps >= law.eps_max:
            continue
        v = positive_part(law, n, eps, target_delta=delta)
        if v.upper <= delta:
            achieved = max(achieved, v.upper)
            continue
        r2 = blanket_exact_epsilon(law, n, delta, rtol=rtol, certify_bracket=False)
        eps, achieved = max(eps, r2.epsilon), max(achieved, r2.achieved_delta) if r2.epsilon >= eps else achieved
    return eps, achieved


def random_blanket_result(params, n: int, delta: float, rtol: float, clamp) -> BoundResult:
    """The ``blanket`` entry's result under the random-hash model; ``reason`` states the assumption."""
    eps, achieved = random_blanket_epsilon(params, n, delta, rtol)
    eps, achieved = clamp(eps, achieved, params.eps0)
    return BoundResult("blanket", eps, True, f"assumption: {ASSUMPTION['random']} "
                       "(blanket of a law dominating the random-hash law: its diagonal atoms moved "
                       "to (1, 1), a proved relaxation, not the exact blanket; largest over the "
                       "neighbouring-pair types)", delta, achieved)
