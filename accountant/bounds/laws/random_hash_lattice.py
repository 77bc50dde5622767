"""Collision's random-hash blanket with all of its atoms, through the certified lattice engine.

A module of its own: :mod:`.random_hash` spreads the law's up to ``(s + 1)^2`` atoms to the
four corners of ``[1, E]^2`` (a proved relaxation); here the atoms themselves go to
:func:`accountant.engines.lattice.lattice_positive_part` (proof in its docstring), for a
measurement next to the corner bound (``scripts/random_hash_lattice.py``), not yet in the registry.

**The law** (:mod:`.random_hash`, module docstring): for a pair of inputs sharing ``r`` of their
``s`` items and image sizes / overlap ``(m1, k, m2)`` of a uniformly random hash, the point
``(f_x1, f_x1')`` is ``(E, E)`` w.p. ``k/t``, ``(E, r(m2))`` w.p. ``(m1 - k)/t``, ``(r(m1), E)``
w.p. ``(m2 - k)/t`` and ``(r(m1), r(m2))`` w.p. ``(t - m1 - m2 + k)/t``, ``r(m) = E - (t - s)(E -
1)/(t - m)``; each report is a blanket draw with probability ``gamma = t / Omega``.  Every pair
of inputs with ``r`` shared items has this law, so the supremum over pairs is the maximum over
``r = 0..s - 1``.

**Rounding.**  The law of ``(m1, k, m2)`` is a float dynamic programme of non-negative terms
(at most ``3 s`` multiply-adds per entry): each mass is raised by ``(6 s + 32) 2^-53`` relative
(raising a mass gives a larger measure, hence a larger E[S_+]: the lattice engine's step 3);
``gamma`` is raised by 4 ulp and the null mass by its own bound; the first coordinate of
every atom is raised and the second lowered by 8 ulp (a larger atom a - u b).
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from accountant.bounds.laws.random_hash import collision_image_law
from accountant.engines.lattice import lattice_positive_part
from accountant.engines.search import epsilon_for_log_delta

_U = 2.0 ** -53
#: cells the lattice engine may use for a finer step (the Figure 2 block's n is 1e4-1e5)
MIN_SIZE = 1 << 16


def collision_random_atoms(eps0: float, s: int, t: int, r: int) -> tuple:
    """(a, b, w): the atoms of the random-hash blanket of a pair sharing ``r`` items, with their
    masses per report (blanket probability included), rounded on the safe side."""
    E = math.exp(eps0)
    omega = s * E + t - s
    gamma = t / omega * (1.0 + 8.0 * _U)
    P = collision_image_law(s, t, r)
    pts: dict = {}

    def rr(m: int) -> float:
        return E - (t - s) * (E - 1.0) / (t - m)

    for (m1, k, m2), p in np.ndenumerate(P):
        if p <= 0.0:
            continue
        for (x, y), c in (((E, E), k), ((E, rr(m2)), m1 - k), ((rr(m1), E), m2 - k),
                          ((rr(m1), rr(m2)), t - m1 - m2 + k)):
            if c > 0:
                pts[(x, y)] = pts.get((x, y), 0.0) + float(p) * c / t
    keys = list(pts)
    a = np.array([x for x, _ in keys]) * (1.0 + 16.0 * _U)
    b = np.array([y for _, y in keys]) * (1.0 - 16.0 * _U)
    w = np.array([pts[kk] for kk in keys]) * gamma * (1.0 + (6 * s + 32 + len(keys)) * _U)
    return a, b, w


def collision_random_lattice_log_delta(eps0: float, s: int, t: int, n: int, eps: float) -> tuple:
    """(log upper delta, log central, d log delta / d eps estimate, worst r) over r = 0..s-1."""
    best = (-math.inf, -math.inf, 0.0, 0)
    for r in range(s):
        a, b, w = collision_random_atoms(eps0, s, t, r)
        res = lattice_positive_part(a, b, w, n, eps, min_size=MIN_SIZE)
        if res.log_upper > best[0]:
            lc = math.log(res.central) if res.central > 0 else res.log_upper
            best = (res.log_upper, lc, res.slope / res.central if res.central > 0 else 0.0, r)
    return best


def collision_random_lattice_epsilon(eps0: float, s: int, t: int, n: int, delta: float,
                                     guess: Optional[float] = None, rtol: float = 1e-5) -> float:
    """Smallest eps found whose certified lattice delta (max over r) is <= ``delta``."""
    def ev(e: float):
        lu, lc, sl, _ = collision_random_lattice_log_delta(eps0, s, t, n, e)
        return min(lc, lu), lu, sl

    top = eps0 * (1.0 + 1e-9) + 1e-12
    res = epsilon_for_log_delta(ev, math.log(delta), top, rtol=rtol, guess=guess, predict=True)
    return res.epsilon
