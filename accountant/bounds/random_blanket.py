"""The blanket bound under ``hash_model="random"`` (Collision, CoCo, OLH): the smaller of the
blanket of the four-corner law of :mod:`accountant.bounds.laws.random_hash` (CoCo's pair weight:
:mod:`accountant.bounds.laws.coco_random`), which dominates the random-hash law of every
neighbouring pair (a proved relaxation; exact for OLH), and the certified lattice bound of the
law with all of its atoms (:mod:`accountant.bounds.laws.random_hash_lattice`).

May import: accountant.core, accountant.engines, accountant.bounds.laws.

Proved under the assumption that each report's hash is a uniformly random function (the
laws' module docstrings have the derivation).  The corner law's bound is non-decreasing in its
pair weight ``lambda``, so one law, built from the pair type with the largest weight,
dominates every type (:func:`~accountant.bounds.laws.random_hash.collision_corner_law`,
:func:`~accountant.bounds.laws.coco_random.coco_corner_law`): one certified evaluation per
point, no search over the types.

*All atoms* (:func:`lattice_plan`).  The types of the largest weights go through the lattice
engine until the corner bound of the next weight is below the largest lattice bound (at most
``LATTICE_TYPES``); every other type counts with that corner bound.  Both numbers are proved, so
their maximum is, and the reported bound is the smaller of it and the four-corner bound.  The
cost model leaves the four corners alone for ``s > LATTICE_MAX_S``, ``n > LATTICE_MAX_N``, at a
chart's tolerance (the pages' curves: ``lattice=False``) and in the composition's profiles (it
passes its own evaluation); the result's reason says which bound answered.

*The any-hash bound as a ceiling.*  The any-hash blanket is proved for every hash family,
the uniformly random one included, so the reported bound is the smaller of the two (the
corner law is dominated by the any-hash law, so the random-hash number is never the larger
one up to the engines' certified brackets; the minimum is kept for safety).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from accountant.bounds.laws import random_hash_lattice as rhl
from accountant.bounds.laws.coco_random import coco_corner_law, coco_random_weights
from accountant.bounds.laws.random_hash import (ASSUMPTION, collision_corner_law, collision_random_weights,
                                                random_corner_law)
from accountant.core.dispatch import for_type
from accountant.core.randomizers import CoCoParams, CollisionParams
from accountant.core.result import BoundResult
from accountant.engines.blanket.law import CornerBlanket


@dataclass(frozen=True)
class RandomHashFamily:
    """The random-hash laws of a hashed mechanism: ``corner_law(eps0, s, t)`` (the pair type of
    the largest weight and its four-corner law), ``weights(s, t)`` (each pair type's corner
    weights), ``atoms(eps0, s, t, key)`` (a type's atoms for the lattice engine), ``key`` (how
    a pair type is named in the notes) and ``corners_at_s1`` (at s = 1 the four corners are
    all of the law's atoms: the bound is exact)."""

    corner_law: Callable
    weights: Callable
    atoms: Callable
    key: str
    corners_at_s1: bool


#: the random-hash laws by parameter type (OLH, the Collision mechanism with s = 1, takes Collision's)
RANDOM_HASH_FAMILIES = {
    CollisionParams: RandomHashFamily(collision_corner_law,
                                      lambda s, t: dict(enumerate(collision_random_weights(s, t))),
                                      rhl.collision_random_atoms, "r", True),
    CoCoParams: RandomHashFamily(coco_corner_law, coco_random_weights, rhl.coco_random_atoms, "(r, o)", False),
}


def random_hash_family(params) -> RandomHashFamily:
    """The random-hash laws of ``params`` (:data:`RANDOM_HASH_FAMILIES`); ValueError unless its
    ``hash_model`` is ``"random"``, and for a type without them."""
    if getattr(params, "hash_model", "any") != "random":
        raise ValueError("random_blanket_law needs collision, coco or olh parameters with hash_model='random'")
    return for_type(RANDOM_HASH_FAMILIES, params, "the random-hash blanket")


def random_blanket_law(params):
    """The law (:class:`~accountant.engines.blanket.law.CornerBlanket`, or the any-hash
    :class:`~accountant.engines.blanket.law.CountLaw` when the rounding leaves no room) whose
    blanket bounds every neighbouring pair's under the random-hash model."""
    return random_hash_family(params).corner_law(params.eps0, params.s, params.t)[1]


def lattice_plan(params, n: int):
    """``(atoms_of, weights, corner_of, why)`` of the lattice bound with all atoms
    (:mod:`accountant.bounds.laws.random_hash_lattice`): the atoms of a pair type, the types'
    corner weights and the certified corner delta of a type; or ``(None, None, None, why)`` where
    the cost model leaves the four corners alone (``why`` None: s = 1, the corner law is exact
    for Collision / OLH, and CoCo's worst type has the any-hash weight)."""
    from accountant.engines.blanket.engine import blanket_exact_delta

    s, t = params.s, params.t
    if s == 1:
        return None, None, None, None
    if s > rhl.LATTICE_MAX_S or n > rhl.LATTICE_MAX_N:
        return None, None, None, (f"the lattice bound of all atoms is not run above s = {rhl.LATTICE_MAX_S} "
                                  f"or n = {rhl.LATTICE_MAX_N:.0e} (cost)")
    family = random_hash_family(params)
    weights = family.weights(s, t)
    atoms_of = lambda key: family.atoms(params.eps0, s, t, key)  # noqa: E731

    def corner_of(key, eps):
        law = random_corner_law(params.eps0, s, t, *weights[key])
        if isinstance(law, CornerBlanket):
            return rhl.corner_delta(law, n, eps)
        return blanket_exact_delta(law, n, eps).upper

    return atoms_of, weights, corner_of, None


def _plan_note(params, keys, rest) -> str:
    name = random_hash_family(params).key
    return (f"the exact random-hash blanket with all of its atoms (certified lattice engine) for the pair "
            f"type{'s' if len(keys) > 1 else ''} {name} = {', '.join(map(str, keys))} of the largest weight"
            + ("" if rest is None else f"; every other type by the four-corner law of the next weight "
               f"({name} = {rest})"))


def _lattice_delta(params, n: int, eps: float):
    """Certified upper delta at ``eps`` of the lattice split, or None (not run)."""
    atoms_of, weights, corner_of, _ = lattice_plan(params, n)
    if atoms_of is None:
        return None
    lu = rhl.split_types(atoms_of, weights, corner_of, n, eps)[2]
    return math.exp(lu) if lu > -math.inf else 0.0


def random_blanket_delta(params, n: int, eps: float, ceiling=None, evaluate=None) -> tuple[float, float]:
    """(lower, upper) of the bound's delta at ``eps``.  ``ceiling``: the any-hash bound's
    (lower, upper), returned when its upper end is not above this one's (the bound is the
    smaller of the two).  ``evaluate(law, eps)``: the certified evaluation (default
    :func:`~accountant.engines.blanket.engine.blanket_exact_delta` at ``n``; the composition
    passes its deeper windows)."""
    from accountant.engines.blanket.engine import blanket_exact_delta

    if eps >= params.eps0:
        return 0.0, 0.0
    lattice = evaluate is None   # the composition passes its own evaluation: the corners alone
    if evaluate is None:
        evaluate = lambda law, e: blanket_exact_delta(law, n, e)  # noqa: E731
    law = random_blanket_law(params)
    if ceiling is not None and not isinstance(law, CornerBlanket):  # it is the any-hash law
        return ceiling
    v = evaluate(law, eps)
    lo, up = v.lower, min(v.upper, 1.0)
    lat = _lattice_delta(params, n, eps) if lattice else None
    if lat is not None and lat < up:   # the lattice bound has no lower end of its own
        lo, up = min(lo, lat), lat
    if ceiling is not None and up >= ceiling[1]:
        return ceiling
    return lo, up


#: below this target the random-hash refinement is not searched (CoCo s = 128, n = 1e5 at
#: delta = 1e-300 took 160 s: 21 four-corner evaluations of 11-16 s); the any-hash exact blanket,
#: proved under the model too, is the answer there
REFINE_MIN_DELTA = 1e-100
#: the lattice search's first guess, a fraction of the four-corner eps (the Figure 2 block: 0.98
#: for Collision, 0.98-1 for CoCo), and its relative tolerance (each evaluation: 0.1-1.5 s per type)
LATTICE_GUESS = 0.985
_REST = object()   # the key of the rest's corner law in the lattice search
LATTICE_RTOL = 1e-5


def _lattice_epsilon(params, n: int, delta: float, rtol: float, top: float):
    """``(eps, achieved delta, note)`` of the lattice split searched in ``[0, top]`` (``top``: the
    four-corner eps), or ``(None, None, why)`` when it is not run or not below ``top``.  The split
    is fixed at the first guess; the types through the lattice engine and the corner law of the
    others (its four atoms through the lattice engine too) are then searched key by key
    (:func:`~accountant.bounds.laws.random_hash_lattice.types_epsilon`)."""
    atoms_of, weights, corner_of, why = lattice_plan(params, n)
    if atoms_of is None:
        return None, None, why
    guess = LATTICE_GUESS * top
    keys, rest, _ = rhl.split_types(atoms_of, weights, corner_of, n, guess)
    if rest is not None:   # the corner law of the rest as one more key: its four atoms
        rest_law = random_corner_law(params.eps0, params.s, params.t, *weights[rest])
        if not isinstance(rest_law, CornerBlanket):
            return None, None, "the lattice bound of all atoms: the next weight's law is the any-hash one"
        rest_atoms = rhl.corner_atoms(rest_law)
        inner = atoms_of
        atoms_of = lambda key: rest_atoms if key is _REST else inner(key)  # noqa: E731
    found = rhl.types_epsilon(atoms_of, keys + ([] if rest is None else [_REST]), n, delta, top,
                              rtol=max(rtol, LATTICE_RTOL), guess=guess)
    if found is None:
        return None, None, "not above the lattice bound of all atoms"
    eps, achieved = found[0], math.exp(found[1]) if found[1] > -math.inf else 0.0
    return eps, achieved, _plan_note(params, keys, rest)


def _epsilon(params, n: int, delta: float, rtol: float, ceiling=None, lattice: bool = True) -> tuple:
    """(eps, achieved delta, which): the smaller of the four-corner and (``lattice``) the lattice bound."""
    from accountant.engines.blanket.engine import blanket_exact_epsilon

    if ceiling is not None and delta < REFINE_MIN_DELTA:  # cost: the any-hash bound answers
        return (*ceiling, None)
    law = random_blanket_law(params)
    if ceiling is not None and not isinstance(law, CornerBlanket):  # it is the any-hash law
        return (*ceiling, None)
    res = blanket_exact_epsilon(law, n, delta, rtol=rtol, certify_bracket=False)
    eps, achieved = res.epsilon, res.achieved_delta
    if ceiling is not None and eps >= ceiling[0]:
        return (*ceiling, None)
    lat, lat_achieved, note = _lattice_epsilon(params, n, delta, rtol, eps) if lattice else \
        (None, None, "the lattice bound of all atoms is not run at a chart's tolerance (cost)")
    if lat is not None and lat < eps:
        return lat, lat_achieved, note
    if params.s == 1 and random_hash_family(params).corners_at_s1:  # OLH, Collision with s = 1
        return eps, achieved, "the exact blanket of the random-hash law: its atoms are the four corners (E or 1)^2"
    return eps, achieved, ("blanket of the four-corner law dominating the random-hash law: a proved relaxation"
                           + (f"; {note}" if note else ""))


def random_blanket_epsilon(params, n: int, delta: float, rtol: float, ceiling=None) -> tuple[float, float]:
    """(eps, achieved delta): certified ``upper delta <= delta`` at eps, the smaller of the
    four-corner bound (:func:`~accountant.engines.blanket.engine.blanket_exact_epsilon` on the
    law) and the lattice bound of all atoms where the cost model runs it (:func:`lattice_plan`).
    ``ceiling``: the any-hash bound's (eps, achieved delta), returned when it is not above
    this one."""
    return _epsilon(params, n, delta, rtol, ceiling)[:2]


def random_blanket_result(params, n: int, delta: float, rtol: float, clamp, ceiling=None,
                          lattice: bool = True) -> BoundResult:
    """The ``blanket`` entry's result under the random-hash model; ``reason`` states the
    assumption.  ``ceiling``: the any-hash blanket's clamped (eps, achieved delta); ``lattice``
    False (a chart's tolerance, the pages' curves): the four-corner bound alone."""
    eps, achieved, which = _epsilon(params, n, delta, rtol, ceiling, lattice)
    eps, achieved = clamp(eps, achieved, params.eps0)
    if ceiling is not None and delta < REFINE_MIN_DELTA:
        eps, achieved = ceiling
        which = (f"the any-hash exact blanket, proved under the model too; the random-hash refinement is "
                 f"not searched below delta = {REFINE_MIN_DELTA:g} (cost)")
    elif ceiling is not None and ceiling[0] <= eps:
        eps, achieved = ceiling
        which = "the any-hash exact blanket, proved under the model too: not above the random-hash one"
    return BoundResult("blanket", eps, True, f"assumption: {ASSUMPTION['random']} ({which})", delta, achieved)
