"""The random-hash blanket of Collision and CoCo with all of its atoms, through the certified lattice engine.

Part of :mod:`accountant.bounds.laws`.  May import: accountant.core, accountant.engines,
accountant.bounds.laws.random_hash, accountant.bounds.laws.coco_random.

:mod:`.random_hash` spreads the law's atoms to the four corners of ``[1, E]^2`` (a proved
relaxation: it dominates the law in convex order); here the atoms themselves go to
:func:`accountant.engines.lattice.lattice_positive_part` (proof in its docstring: pointwise
raised atoms, masses raised by their float error bounds, the lattice spread, tilting, cyclic
convolution with aliasing on the safe side).  The registry
(:mod:`accountant.bounds.random_blanket`) reports the smaller of this bound and the corner one.

**Collision's law** (:mod:`.random_hash`, module docstring): for a pair of inputs sharing ``r``
of their ``s`` items and image sizes / overlap ``(m1, k, m2)`` of a uniformly random hash, the
point ``(f_x1, f_x1')`` is ``(E, E)`` w.p. ``k/t``, ``(E, r(m2))`` w.p. ``(m1 - k)/t``,
``(r(m1), E)`` w.p. ``(m2 - k)/t`` and ``(r(m1), r(m2))`` w.p. ``(t - m1 - m2 + k)/t``,
``r(m) = E - (t - s)(E - 1)/(t - m)``; each report is a blanket draw with probability
``gamma = t / Omega``.  Written ``f = 1 + (E - 1) g``: ``g = 1`` on the image and
``(s - m)/(t - m)`` off it.  CoCo's law: :func:`accountant.bounds.laws.coco_random.coco_random_points`.

**Which pair.**  Every pair of inputs of one type (Collision: ``r``; CoCo: ``(r, o)``) has the
same law, so the supremum over pairs is the maximum over the types.  The types are ranked by
the upper end of their corner weight ``lambda`` (the four-corner bound is non-decreasing in
``lambda`` and dominates the type's own law: :mod:`.random_hash`, *Monotone in lambda*).  The
types go through the lattice engine in that order until the certified corner bound of the next
weight is at or below the largest lattice bound found, or ``LATTICE_TYPES`` have run
(:func:`split_types`); every other type's law is dominated by the corner law of the largest
remaining weight, whose certified bound counts too (the maximum of the two is the bound).  That
is the cost model: at most ``LATTICE_TYPES`` lattice evaluations per delta, whatever ``s``.  Which
types run does not enter the proof (any split gives an upper bound); an epsilon search fixes the
split once, at its first guess.

**Rounding** (Collision).  The law of ``(m1, k, m2)`` is a float dynamic programme of
non-negative terms (at most ``3 s`` multiply-adds per entry): each mass is raised by
``(6 s + 32 + J) 2^-53`` relative for ``J`` atoms (their sums) (raising a mass gives a larger
measure, hence a larger E[S_+]: the lattice engine's step 3); ``gamma`` is raised by 8 ulp; the
first coordinate of every atom is raised and the second lowered by 16 ulp (a larger atom
``a - u b``): ``g`` is one correctly rounded quotient of integers (relative error ``u``), and
``f = 1 + (E - 1) g`` errs by at most ``g (2 E + 3 (E - 1)) u + u f <= 6 u f`` (``exp`` within
an ulp; ``g E <= f`` and ``g (E - 1) <= f`` since ``g <= 1``).  Atoms are merged by their float coordinates (the same float expression of the
same integers gives the same float).
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Callable, Optional

import numpy as np

from accountant.bounds.laws.coco_random import coco_points_error, coco_random_points
from accountant.bounds.laws.random_hash import collision_image_law
from accountant.engines.lattice import lattice_positive_part
from accountant.engines.search import epsilon_for_log_delta

_U = 2.0 ** -53
#: cells the lattice engine may use for a finer step (the Figure 2 block's n is 1e4-1e5)
MIN_SIZE = 1 << 16
#: at most this many pair types (largest corner weights first) run through the lattice engine; the
#: others count with the corner bound of the largest remaining weight (the cost model)
LATTICE_TYPES = 4
#: the largest s whose atoms are built (Collision: the law of (m1, k, m2) costs O(s^4) per type)
LATTICE_MAX_S = 64
#: the largest n the registry runs the lattice engine at (a delta costs ~1.5 s at n = 1e9, 2^20
#: cells; an epsilon about 6 of them): above it the four corners answer alone, and say so
LATTICE_MAX_N = 10 ** 8


@lru_cache(maxsize=256)
def _image_law(s: int, t: int, r: int) -> np.ndarray:
    P = collision_image_law(s, t, r)
    P.setflags(write=False)
    return P


def merge_atoms(x: np.ndarray, y: np.ndarray, p: np.ndarray) -> tuple:
    """Atoms with equal float coordinates merged: (x, y, summed mass) with positive masses."""
    keep = p > 0.0
    keys, inv = np.unique(x[keep] + 1j * y[keep], return_inverse=True)   # exact: a pair of floats
    w = np.bincount(inv.ravel(), weights=p[keep], minlength=keys.size)
    return keys.real.copy(), keys.imag.copy(), w


#: mass of the extra atom at f = (E, 1) that covers every float result below the normal range
#: (each errs by at most 2^-1074 per operation, fewer than 2^100 of them) and every mass that
#: underflowed to 0 and was dropped: moved to the largest atom of the square, a pointwise increase
_FLOOR = 2.0 ** -900


def safe_law(E: float, gamma: float, g1: np.ndarray, g2: np.ndarray, w: np.ndarray, rel: float) -> tuple:
    """(a, b, w) of ``f = 1 + (E - 1) g`` (a raised, b lowered by 16 ulp), masses times
    ``gamma`` raised by 8 ulp and by the relative error bound ``rel`` of the masses, plus the
    atom ``(E, 1)`` of mass ``_FLOOR``."""
    a = (1.0 + (E - 1.0) * np.append(g1, 1.0)) * (1.0 + 16.0 * _U)
    b = (1.0 + (E - 1.0) * np.append(g2, 0.0)) * (1.0 - 16.0 * _U)
    return a, b, np.append(w * (gamma * (1.0 + 8.0 * _U)) * (1.0 + rel), _FLOOR)


def collision_random_atoms(eps0: float, s: int, t: int, r: int) -> tuple:
    """(a, b, w): the atoms of the random-hash blanket of a pair sharing ``r`` items, with their
    masses per report (blanket probability included), rounded on the safe side."""
    E = math.exp(eps0)
    g1, g2, w = _collision_points(int(s), int(t), int(r))
    return safe_law(E, t / (s * E + t - s), g1, g2, w, (6 * s + 32 + w.size) * _U)


@lru_cache(maxsize=256)
def _collision_points(s: int, t: int, r: int) -> tuple:
    """(g1, g2, mass) of the law of the point ``(g_x1, g_x1')`` (independent of eps0), merged."""
    P = _image_law(s, t, r)
    m1, k, m2 = (x.astype(np.float64) for x in np.nonzero(P > 0.0))
    p = P[P > 0.0]
    # g = (f - 1)/(E - 1): 1 on the image, (r(m) - 1)/(E - 1) = (s - m)/(t - m) off it
    off1, off2 = (s - m1) / (t - m1), (s - m2) / (t - m2)
    one = np.ones_like(p)
    g1 = np.concatenate([one, one, off1, off1])
    g2 = np.concatenate([one, off2, one, off2])
    mass = np.concatenate([p * k, p * (m1 - k), p * (m2 - k), p * (t - m1 - m2 + k)]) / t
    return merge_atoms(g1, g2, mass)


def corner_atoms(law) -> tuple:
    """(a, b, w) of a four-corner law (a :class:`~accountant.engines.blanket.law.CornerBlanket`:
    ``(E, 1)``, ``(1, E)`` with mass ``p10`` each, ``(E, E)`` ``p11``, ``(1, 1)`` ``p00``), ``a``
    raised and ``b`` lowered by 16 ulp (``E`` within an ulp)."""
    E = math.exp(law.eps0)
    a = np.array([E, 1.0, E, 1.0]) * (1.0 + 16.0 * _U)
    b = np.array([1.0, E, E, 1.0]) * (1.0 - 16.0 * _U)
    return a, b, np.array([law.p10, law.p10, law.p11, law.p00])


def corner_delta(law, n: int, eps: float) -> float:
    """Certified upper delta at ``eps`` of a four-corner law through the lattice engine: four
    atoms, a cheap bound for the types' corner screen (the nested corner engine is tighter and
    slower)."""
    return lattice_positive_part(*corner_atoms(law), n, eps, min_size=MIN_SIZE).upper


@lru_cache(maxsize=256)
def _coco_points(s: int, t: int, r: int, o: int) -> tuple:
    pts = coco_random_points(s, t, r, o)
    g = np.array(list(pts), dtype=np.float64).reshape(-1, 2)
    w = np.array(list(pts.values()), dtype=np.float64)
    return g[:, 0], g[:, 1], w, coco_points_error(s, t, w.size)


def coco_random_atoms(eps0: float, s: int, t: int, key: tuple) -> tuple:
    """(a, b, w): the atoms of CoCo's random-hash blanket for the pair type ``key = (r, o)``
    (:func:`accountant.bounds.laws.coco_random.coco_random_points`), rounded on the safe side."""
    g1, g2, w, rel = _coco_points(s, t, *key)
    E = math.exp(eps0)
    return safe_law(E, t / (s * E + t - s), g1, g2, w, rel)


AtomsOf = Callable[[object], tuple]


def types_log_delta(atoms_of: AtomsOf, keys, n: int, eps: float) -> tuple:
    """(log upper delta, log central, d log delta / d eps estimate, worst key) over ``keys``."""
    best = (-math.inf, -math.inf, 0.0, keys[0])
    for key in keys:
        a, b, w = atoms_of(key)
        res = lattice_positive_part(a, b, w, n, eps, min_size=MIN_SIZE)
        if res.log_upper > best[0]:
            lc = math.log(res.central) if res.central > 0 else res.log_upper
            best = (res.log_upper, lc, res.slope / res.central if res.central > 0 else 0.0, key)
    return best


def types_epsilon(atoms_of: AtomsOf, keys, n: int, delta: float, top: float,
                  rtol: float = 1e-5, guess: Optional[float] = None) -> Optional[tuple]:
    """(eps, achieved log delta): an eps in ``[0, top]`` whose certified lattice delta is
    ``<= delta`` for every key (the keys in order, the likely worst first: the first is searched,
    each next one evaluated at the current eps and searched above it only where it is above
    ``delta``; the deltas are non-increasing in eps, so the last eps serves every key); None when
    a key's lattice delta at ``top`` is above ``delta``."""
    log_t = math.log(delta)
    eps, achieved = None, -math.inf
    for key in keys:
        if eps is not None:
            lu = types_log_delta(atoms_of, [key], n, eps)[0]
            if lu <= log_t:
                achieved = max(achieved, lu)
                continue
        at_top = types_log_delta(atoms_of, [key], n, top)
        if at_top[0] > log_t:
            return None

        def ev(e: float, key=key, at_top=at_top):
            lu, lc, sl, _ = at_top if e == top else types_log_delta(atoms_of, [key], n, e)
            return min(lc, lu), lu, sl

        g = guess if eps is None else eps * (1.0 + 10.0 * rtol)
        g = g if g is not None and 0.0 < g < top else 0.99 * top
        res = epsilon_for_log_delta(ev, log_t, top, rtol=rtol, guess=g, predict=True)
        eps, achieved = res.epsilon, max(achieved, res.achieved_log_delta)
    return eps, achieved


def ranked_types(weights: dict) -> list:
    """The pair types by decreasing upper end of their corner weight (ties: smaller key first)."""
    return sorted(weights, key=lambda k: (-weights[k][1], k))


def split_types(atoms_of: AtomsOf, weights: dict, corner_of: Callable, n: int, eps: float,
                max_types: int = LATTICE_TYPES) -> tuple:
    """``(keys, rest, log upper)`` at ``eps``: the types run through the lattice engine (by
    decreasing weight, until the corner bound of the next weight, ``corner_of(key, eps)`` (a
    certified upper delta), is at or below the largest lattice bound, at most ``max_types``;
    returned by decreasing lattice bound), the next type (None: none left) and the log of the
    bound ``max(lattice, corner of rest)``."""
    order = ranked_types(weights)
    found: dict = {}
    best = -math.inf
    for i, key in enumerate(order):
        if i > 0 or i >= max_types:
            c = corner_of(key, eps)
            lc = math.log(c) if c > 0.0 else -math.inf
            if lc <= best or i >= max_types:
                return sorted(found, key=lambda k: -found[k]), key, max(best, lc)
        found[key] = types_log_delta(atoms_of, [key], n, eps)[0]
        best = max(best, found[key])
    return sorted(found, key=lambda k: -found[k]), None, best


def collision_random_lattice_log_delta(eps0: float, s: int, t: int, n: int, eps: float) -> tuple:
    """(log upper delta, log central, d log delta / d eps estimate, worst r) over every r = 0..s-1."""
    return types_log_delta(lambda r: collision_random_atoms(eps0, s, t, r), list(range(s)), n, eps)


def collision_random_lattice_epsilon(eps0: float, s: int, t: int, n: int, delta: float,
                                     guess: Optional[float] = None, rtol: float = 1e-5) -> float:
    """Smallest eps found whose certified lattice delta (max over every r) is <= ``delta``."""
    top = eps0 * (1.0 + 1e-9) + 1e-12
    res = types_epsilon(lambda r: collision_random_atoms(eps0, s, t, r), list(range(s)), n, delta,
                        top, rtol=rtol, guess=guess)
    return top if res is None else res[0]
