"""The blanket bound under ``hash_model="random"`` (Collision, CoCo, OLH): the blanket of the
four-corner law of :mod:`accountant.bounds.laws.random_hash` (CoCo's pair weight:
:mod:`accountant.bounds.laws.coco_random`), which dominates the random-hash law of every
neighbouring pair (a proved relaxation; exact for OLH).

May import: accountant.core, accountant.engines, accountant.bounds.laws.

Proved under the assumption that each report's hash is a uniformly random function (the
laws' module docstring has the derivation).  The corner law's bound is non-decreasing in its
pair weight ``lambda``, so one law, built from the pair type with the largest weight,
dominates every type (:func:`~accountant.bounds.laws.random_hash.collision_corner_law`,
:func:`~accountant.bounds.laws.coco_random.coco_corner_law`): one certified evaluation per
point, no search over the types.

*The any-hash bound as a ceiling.*  The any-hash blanket is proved for every hash family,
the uniformly random one included, so the reported bound is the smaller of the two (the
corner law is dominated by the any-hash law, so the random-hash number is never the larger
one up to the engines' certified brackets; the minimum is kept for safety).
"""
from __future__ import annotations

from accountant.bounds.laws.coco_random import coco_corner_law
from accountant.bounds.laws.random_hash import ASSUMPTION, RANDOM_MECHANISMS, collision_corner_law
from accountant.core.result import BoundResult
from accountant.engines.blanket.law import CornerBlanket


def random_blanket_law(params):
    """The law (:class:`~accountant.engines.blanket.law.CornerBlanket`, or the any-hash
    :class:`~accountant.engines.blanket.law.CountLaw` when the rounding leaves no room) whose
    blanket bounds every neighbouring pair's under the random-hash model."""
    if getattr(params, "hash_model", "any") != "random" or params.name not in RANDOM_MECHANISMS:
        raise ValueError("random_blanket_law needs collision, coco or olh parameters with hash_model='random'")
    if params.name == "coco":
        return coco_corner_law(params.eps0, params.s, params.t)[1]
    return collision_corner_law(params.eps0, params.s, params.t)[1]


def random_blanket_delta(params, n: int, eps: float, ceiling=None, evaluate=None) -> tuple[float, float]:
    """(lower, upper) of the bound's delta at ``eps``.  ``ceiling``: the any-hash bound's
    (lower, upper), returned when its upper end is not above this one's (the bound is the
    smaller of the two).  ``evaluate(law, eps)``: the certified evaluation (default
    :func:`~accountant.engines.blanket.engine.blanket_exact_delta` at ``n``; the composition
    passes its deeper windows)."""
    from accountant.engines.blanket.engine import blanket_exact_delta

    if eps >= params.eps0:
        return 0.0, 0.0
    if evaluate is None:
        evaluate = lambda law, e: blanket_exact_delta(law, n, e)  # noqa: E731
    law = random_blanket_law(params)
    if ceiling is not None and not isinstance(law, CornerBlanket):  # it is the any-hash law
        return ceiling
    v = evaluate(law, eps)
    if ceiling is not None and v.upper >= ceiling[1]:
        return ceiling
    return v.lower, min(v.upper, 1.0)


#: below this target the random-hash refinement is not searched (CoCo s = 128, n = 1e5 at
#: delta = 1e-300 took 160 s: 21 four-corner evaluations of 11-16 s); the any-hash exact blanket,
#: proved under the model too, is the answer there
REFINE_MIN_DELTA = 1e-100


def random_blanket_epsilon(params, n: int, delta: float, rtol: float, ceiling=None) -> tuple[float, float]:
    """(eps, achieved delta): certified ``upper delta <= delta`` at eps
    (:func:`~accountant.engines.blanket.engine.blanket_exact_epsilon` on the law).
    ``ceiling``: the any-hash bound's (eps, achieved delta), returned when it is not above
    this one."""
    from accountant.engines.blanket.engine import blanket_exact_epsilon

    if ceiling is not None and delta < REFINE_MIN_DELTA:  # cost: the any-hash bound answers
        return ceiling
    law = random_blanket_law(params)
    if ceiling is not None and not isinstance(law, CornerBlanket):  # it is the any-hash law
        return ceiling
    res = blanket_exact_epsilon(law, n, delta, rtol=rtol, certify_bracket=False)
    if ceiling is not None and res.epsilon >= ceiling[0]:
        return ceiling
    return res.epsilon, res.achieved_delta


def random_blanket_result(params, n: int, delta: float, rtol: float, clamp, ceiling=None) -> BoundResult:
    """The ``blanket`` entry's result under the random-hash model; ``reason`` states the
    assumption.  ``ceiling``: the any-hash blanket's clamped (eps, achieved delta)."""
    eps, achieved = clamp(*random_blanket_epsilon(params, n, delta, rtol, ceiling), params.eps0)
    if params.s == 1 and params.name != "coco":  # OLH (and Collision with s = 1): the atoms are the corners
        which = "the exact blanket of the random-hash law: its atoms are the four corners (E or 1)^2"
    else:
        which = ("blanket of the four-corner law dominating the random-hash law: a proved relaxation, "
                 "not the exact blanket")
    if ceiling is not None and delta < REFINE_MIN_DELTA:
        eps, achieved = ceiling
        which = (f"the any-hash exact blanket, proved under the model too; the random-hash refinement is "
                 f"not searched below delta = {REFINE_MIN_DELTA:g} (cost)")
    elif ceiling is not None and ceiling[0] <= eps:
        eps, achieved = ceiling
        which = "the any-hash exact blanket, proved under the model too: not above the random-hash one"
    return BoundResult("blanket", eps, True, f"assumption: {ASSUMPTION['random']} ({which})", delta, achieved)
