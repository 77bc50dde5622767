"""The numerical baselines' laws: the piecewise mechanism's worst pair as a three-cell matrix (Duchi
et al.'s randomizer is binary RR's type and takes its laws).

The piecewise mechanism (Wang et al., ICDE 2019) reports y in [-C, C] with density p on the high
interval [l(x), r(x)] of length C - 1 and p / e^eps0 elsewhere.  Every y lies outside the high
interval of x = -1 or of x = 1 (they are [-C, -1] and [1, C]), so the blanket density is p / e^eps0
on all of [-C, C] (gamma = 2 C p / e^eps0).  For the pair x1 = -1, x1' = 1 both densities are
constant on each of the cells [-C, -1], (-1, 1), [1, C]: the cell of a report is a sufficient
statistic for that pair, and the pair's amplification variable under the blanket has three atoms.
The matrix of the two inputs over the three cells has the same blanket (the minimum of its two
rows is the blanket's cell masses), so its exact blanket bound (the finite path) is the continuous
mechanism's for that pair.  Every other pair is dominated in the convex order (docs/proved.md, "The
piecewise mechanism's blanket"), so the matrix's blanket bound holds for the mechanism; the
matrix's certified lower bound holds for it too (binning is post-processing: datasets of inputs -1
and 1).
"""
from __future__ import annotations

import math
from functools import lru_cache

import mpmath

from accountant.bounds.laws.collision_lower import count_law_from_categories
from accountant.bounds.laws.count_law import MP_DPS, check_law_eps0
from accountant.bounds.laws.lower import mechanism_lower
from accountant.bounds.laws.lower_law import LowerLaw
from accountant.core.finite import FiniteRandomizer
from accountant.core.randomizers_numerical import PiecewiseParams


@lru_cache(maxsize=256)
def piecewise_matrix(eps0: float) -> FiniteRandomizer:
    """Inputs -1 and 1 of the piecewise mechanism over the cells [-C, -1], (-1, 1), [1, C]: the
    masses e^{eps0/2}/(e^{eps0/2} + 1) on the own high cell, 2 p / e^eps0 on the middle and
    p (C - 1) / e^eps0 on the other high cell."""
    h = math.exp(eps0 / 2.0)
    hi = h / (h + 1.0)
    mid = (h - 1.0) / (h * (h + 1.0))  # 2 p / e^eps0
    far = 1.0 - hi - mid                                 # p (C - 1)/e^eps0 = 1/(h (h + 1))
    return FiniteRandomizer([[hi, mid, far], [far, mid, hi]], inputs=("-1", "1"),
                            outputs=("[-C,-1]", "(-1,1)", "[1,C]"), label=f"piecewise(eps0={eps0:g}), inputs -1 and 1")


@mechanism_lower.register(PiecewiseParams)
def _piecewise(params):
    """Inputs -1, 1 and 0, reports binned into the three cells (post-processing): D = (-1, 0, ..., 0)
    against D' = (1, 0, ..., 0), the count law of the reports' cells (input 0 puts equal masses on
    the two outer cells, by symmetry)."""
    e = check_law_eps0(params.eps0)
    with mpmath.workdps(MP_DPS):
        E = mpmath.exp(mpmath.mpf(e))
        h = mpmath.sqrt(E)
        C, p = (h + 1) / (h - 1), (E - h) / (2 * h + 2)
        hi, mid = h / (h + 1), (h - 1) / (h * (h + 1))
        half = (C - 1) / 2  # input 0's high interval is [-half, half]
        mid0 = p * 2 * half + p / E * (2 - 2 * half) if half <= 1 else 2 * p
        far = 1 - hi - mid
        # categories: [-C, -1], [1, C], (-1, 1) (the engine's order: the first two equal under input 0)
        zero = [(1 - mid0) / 2, (1 - mid0) / 2, mid0]
        law = count_law_from_categories([hi, far, mid], [far, hi, mid], zero, "lower piecewise")
    return LowerLaw(law, "the piecewise mechanism, reports binned into [-C, -1], (-1, 1), [1, C] (post-processing): "
                         "D = (1, 2, ..., 2), D' = (3, 2, ..., 2) with inputs 1 = -1, 2 = 0, 3 = +1"), None
