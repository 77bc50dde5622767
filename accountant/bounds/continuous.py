"""The proved blanket bound and the certified lower bound of the Laplace randomizer (a continuous law).

A module of its own next to :mod:`accountant.bounds.finite_lattice` (matrices): the law of the
privacy amplification variable of a continuous randomizer is put on the lattice engine through
certified cells (:mod:`accountant.engines.continuous`), so the eps_c here is proved for the
continuous mechanism itself, not for a binned copy of it.

**The Laplace law.**  Input range [lo, hi] of width w, scale b = w / eps0, ``f(y|x) = e^{-|y - x| / b}
/ (2b)``.  The blanket ``m(y) = inf_x f(y|x) = min(f(y|lo), f(y|hi))`` (the farther end of the
range), of mass ``gamma = 2 int_{-inf}^{mid} f(y|hi) dy = e^{-w / (2b)} = e^{-eps0/2}``.  For the pair
(x1, x1') = (lo, hi), with ``t = (2y - lo - hi) / b`` in [-eps0, eps0] on the range:

* y <= lo: A = f(y|lo) / m = e^eps0, B = f(y|hi) / m = 1 (one atom, blanket mass e^-eps0 / 2);
* lo < y < mid (s = -t in (0, eps0)): A = e^s, B = 1, blanket density e^{-(eps0 + s)/2} / 4 in s;
* mid < y < hi (t in (0, eps0)): A = 1, B = e^t, the same density in t;
* y >= hi: A = 1, B = e^eps0 (one atom, mass e^-eps0 / 2).

Everything depends on eps0 alone (the range only sets the scale).  On a cell [s1, s2] the blanket
mass is ``e^{-eps0/2} (e^{-s1/2} - e^{-s2/2}) / 2`` and the conditional mean of e^s is exactly
``e^{(s1 + s2)/2}`` (the ratio of int e^{s/2} to int e^{-s/2} over the cell); the ratios are
monotone on each cell, so their ranges are their values at the ends.  Each quantity is computed
by a few correctly-signed float operations (exp, expm1, products: a few ulp each) and moved by the
relative margin ``REL`` (2^-40, thousands of ulp) to its safe side: masses and the means of A up,
the means of B down, lower ends down and upper ends up; the null mass ``1 - e^{-eps0/2}`` up.

**The worst pair.**  The bound is the blanket divergence of the pair (lo, hi), and it bounds every
pair of inputs (docs/proved.md, "The worst pair (proved)"): the blanket is e^{-eps0/2} times the
Laplace density at the middle of the range, and with it the amplification variable of any pair
(x, x') is below the extremes' in the convex order (a lemma on int (f_x - e^eps f_x' - c f_mid)_+ for
every real c, from the monotone likelihood ratios and the mirror about the middle).

**The lower bound.**  Binning the output is post-processing: the binned randomizer's certified
lower bound (:func:`accountant.bounds.finite.finite_lower_epsilon`, the datasets (x1, x0, ..., x0)
and (x1', x0, ..., x0) with inputs in {lo, mid, hi}) is a lower bound for the continuous mechanism.
Its bins' masses are the Laplace CDF's exact differences (the binned matrix *is* the mechanism
followed by the binning, to float precision; its count laws are certified for that matrix).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from accountant.core.finite import FiniteRandomizer
from accountant.core.randomizers_numerical import LaplaceParams
from accountant.core.result import BoundResult
from accountant.engines.continuous import CellLaw, cell_positive_part
from accountant.engines.search import epsilon_for_log_delta

#: the relative margin moving each closed-form quantity to its safe side (far above its float error)
REL = 2.0 ** -40
#: cells on each half of the range (the bound decreases towards the continuous truth as they grow)
CELLS = 1024
#: the lattice engine's step, as a fraction of the per-message standard deviation
STEP_FRACTION = 0.05
#: bins of the output for the certified lower bound (the binned matrix), on [lo, hi]
LOWER_BINS = 16
#: cells of the coarse law whose saddle-point root starts the search
GUESS_CELLS = 256
#: the searches' relative tolerance on eps (each evaluation a lattice run)
SEARCH_RTOL = 1e-5
WORST_PAIR = "worst pair (lo, hi): the extremes of the range, proved the worst of every pair (docs/proved.md)"


@lru_cache(maxsize=64)
def laplace_cells(eps0: float, cells: int = CELLS) -> CellLaw:
    """The blanket law of the Laplace pair (lo, hi) as certified cells (module docstring):
    ``cells`` on each half of the range, uniform in s, and the two outer atoms."""
    return pair_cells(eps0, -1.0, 1.0, cells)


def _up(x):
    return x * (1.0 + REL)


def _down(x):
    return x * (1.0 - REL)


def pair_cells(eps0: float, x1: float, x2: float, cells: int = CELLS) -> CellLaw:
    """The certified cells of the pair (x1, x2) of the Laplace randomizer of level eps0, the inputs
    standardised to [-1, 1] (the extremes: -1 and 1, the module docstring's law).  In the output
    coordinate t = 2 (y - mid) / b an input x sits at c = eps0 x, the blanket density is
    ``e^{-(eps0 + |t|)/2} / 4`` and ``log r_c(t) = (eps0 + |t| - |t - c|) / 2`` (piecewise linear,
    kinks at 0 and c: cell boundaries, so each cell's ratios are monotone).  Interior pairs are for
    the worst-pair check."""
    e0 = float(eps0)
    c1, c2 = e0 * float(x1), e0 * float(x2)
    grid = np.unique(np.concatenate([np.linspace(-e0, 0.0, cells + 1), np.linspace(0.0, e0, cells + 1),
                                     [c1, c2]]))
    t1, t2 = grid[:-1], grid[1:]
    side = np.where(t2 <= 0.0, -1.0, 1.0)
    near, far = np.minimum(np.abs(t1), np.abs(t2)), np.maximum(np.abs(t1), np.abs(t2))
    mass = 0.5 * np.exp(-(e0 + near) / 2.0) * -np.expm1(-(far - near) / 2.0)
    a_lo, a_hi, a_mean = _ratio_cell(t1, t2, c1, e0, side)
    b_lo, b_hi, b_mean = _ratio_cell(t1, t2, c2, e0, side)
    # the outer atoms: t <= -eps0 (log r_c = (eps0 - c) / 2) and t >= eps0 ((eps0 + c) / 2)
    tail = 0.5 * math.exp(-e0)
    ra = np.exp([(e0 - c1) / 2.0, (e0 + c1) / 2.0])
    rb = np.exp([(e0 - c2) / 2.0, (e0 + c2) / 2.0])
    cat = np.concatenate
    return CellLaw(_up(cat([mass, [tail, tail]])),
                   _down(cat([a_lo, ra])), _up(cat([a_hi, ra])), _up(cat([a_mean, ra])),
                   _down(cat([b_lo, rb])), _up(cat([b_hi, rb])), _down(cat([b_mean, rb])),
                   min(_up(-math.expm1(-e0 / 2.0)), 1.0))


def _ratio_cell(t1, t2, c, e0, side):
    """(lowest, highest, conditional mean under the blanket) of r_c on each cell [t1, t2], before
    the margins: log r_c is linear on the cell with slope k = (sign t - sign(t - c)) / 2 and the
    blanket density is proportional to e^{-side t / 2}, so the mean is
    ``r_c(t1) I(k - side / 2) / I(-side / 2)``, ``I(a) = int_0^L e^{a x} dx``."""
    g1 = (e0 + np.abs(t1) - np.abs(t1 - c)) / 2.0
    g2 = (e0 + np.abs(t2) - np.abs(t2 - c)) / 2.0
    lo, hi = np.exp(np.minimum(g1, g2)), np.exp(np.maximum(g1, g2))
    k = (side - np.sign(0.5 * (t1 + t2) - c)) / 2.0
    L = t2 - t1
    mean = np.exp(g1) * _int_exp(k - side / 2.0, L) / _int_exp(-side / 2.0, L)
    return lo, hi, np.clip(mean, lo, hi)


def _int_exp(a, L):
    """int_0^L e^{a x} dx = expm1(a L) / a (L where a = 0)."""
    a = np.asarray(a, dtype=float)
    safe = np.where(a == 0.0, 1.0, a)
    return np.where(a == 0.0, L, np.expm1(a * L) / safe)


def laplace_delta(params: LaplaceParams, n: int, eps: float, cells: int = CELLS):
    """The certified upper bound on delta(eps) of the Laplace randomizer's blanket (the pair (lo,
    hi)), as the lattice engine's :class:`~accountant.engines.lattice.LatticeDelta`; 0 from eps0 on
    (every atom <= 0: pure eps0-LDP)."""
    from accountant.engines.lattice import LatticeDelta

    if eps >= params.eps0:
        return LatticeDelta(float(eps), 0.0, 0.0, 0.0, 0.0, 0)
    return cell_positive_part(laplace_cells(params.eps0, cells), n, eps, step_fraction=STEP_FRACTION)


def laplace_epsilon(params: LaplaceParams, n: int, delta: float, rtol: float = 1e-4, cells: int = CELLS):
    """The smallest eps (to ``rtol``, found by :func:`accountant.engines.search.epsilon_for_log_delta`)
    whose certified delta is <= ``delta``, and the :class:`~accountant.engines.lattice.LatticeDelta` there.
    The search's upper end is the first of the saddle-point estimate raised by 0.1%, 1%, 10%, ...
    whose certified delta meets the target (eps0 at the latest: delta(eps0) = 0)."""
    cache = {}
    log_t = math.log(delta)

    def ev(e: float):
        if e not in cache:
            cache[e] = laplace_delta(params, n, e, cells)
        r = cache[e]
        lu = r.log_upper
        lc = math.log(r.central) if r.central > 0 else -math.inf
        slope = r.slope / r.central if r.central > 0 else 0.0
        return (min(lc, lu), lu, slope)

    guess = _guess(params.eps0, n, log_t)
    top = params.eps0
    if guess is not None:
        for f in (1e-3, 1e-2, 0.1, 0.5):
            e = guess * (1.0 + f)
            if e >= params.eps0:
                break
            if ev(e)[1] <= log_t:
                top = e
                break
    res = epsilon_for_log_delta(ev, log_t, top, rtol=rtol, predict=True, guess=guess)
    return res.epsilon, cache.get(res.epsilon) or laplace_delta(params, n, res.epsilon, cells)


def _guess(eps0: float, n: int, log_t: float):
    """The saddle-point estimate of the root on a coarse law (the cells' mean atoms): a start."""
    from accountant.engines.saddle import log_positive_part, root_of_decreasing

    law = laplace_cells(eps0, GUESS_CELLS)
    p = np.concatenate([law.mass, [law.null]])

    def f(e: float):
        v = log_positive_part(p, np.concatenate([law.a_mean - math.exp(e) * law.b_mean, [0.0]]), n)
        return None if v is None else v - math.log(n)

    try:
        g = root_of_decreasing(f, log_t, eps0, rtol=1e-6)
    except (OverflowError, ValueError, ZeroDivisionError):
        return None
    return None if g is None else g * (1.0 + 2e-4)


@lru_cache(maxsize=64)
def laplace_binned(params: LaplaceParams, bins: int = LOWER_BINS) -> FiniteRandomizer:
    """The Laplace randomizer followed by a binning of its output (a post-processing): inputs lo,
    mid, hi; outputs y <= lo, ``bins`` equal bins of [lo, hi], y >= hi; each entry the Laplace
    CDF's difference over its bin (closed form, by the side of the input the bin lies on)."""
    e0 = params.eps0
    edges = np.linspace(-e0, e0, 2 * (bins // 2) + 1)   # 0 is an edge: no bin straddles an input
    lo_t = np.concatenate([[-np.inf], edges])
    hi_t = np.concatenate([edges, [np.inf]])
    rows = []
    for c in (-e0, 0.0, e0):
        left = hi_t <= c     # the bin lies left of the input: 0.5 (e^{(t2-c)/2} - e^{(t1-c)/2})
        with np.errstate(over="ignore"):
            lm = 0.5 * np.exp((np.where(left, hi_t, c) - c) / 2.0) * -np.expm1(
                -(np.where(left, hi_t, c) - np.where(left, lo_t, c)) / 2.0)
            rm = 0.5 * np.exp(-(np.where(left, c, lo_t) - c) / 2.0) * -np.expm1(
                -(np.where(left, c, hi_t) - np.where(left, c, lo_t)) / 2.0)
        rows.append(np.where(left, lm, rm))
    mid = 0.5 * (params.lo + params.hi)
    names = [f"{v:.6g}" for v in (params.lo, mid, params.hi)]
    return FiniteRandomizer(np.array(rows), inputs=names, label=f"Laplace eps0={e0:g} binned into {bins + 2}")


def laplace_blanket_result(params: LaplaceParams, n: int, delta: float, rtol: float) -> BoundResult:
    """:func:`laplace_epsilon` as the registry's ``blanket`` result, the worst pair said in ``reason``."""
    eps, r = laplace_epsilon(params, n, delta, rtol=max(rtol, SEARCH_RTOL))
    if eps >= params.eps0:
        return BoundResult("blanket", params.eps0, True, WORST_PAIR, delta, 0.0)
    return BoundResult("blanket", eps, True, f"{WORST_PAIR}; certified cells of the continuous law "
                       f"({2 * CELLS} cells, accountant.bounds.continuous)", delta, min(r.upper, delta))


def laplace_blanket_delta(params: LaplaceParams, n: int, eps: float) -> tuple:
    """(0, certified upper delta at eps) of the Laplace blanket (the registry's form)."""
    return 0.0, min(laplace_delta(params, n, float(eps)).upper, 1.0)


def laplace_lower_result(params: LaplaceParams, n: int, delta: float, rtol: float) -> BoundResult:
    """The binned randomizer's certified lower bound (module docstring) as the registry's ``lower``."""
    from accountant.bounds.finite import finite_lower_epsilon

    lo = finite_lower_epsilon(laplace_binned(params), n, delta, max(rtol, SEARCH_RTOL))
    return BoundResult("lower", lo.epsilon, True, f"{lo.detail}; outputs binned into {LOWER_BINS + 2} "
                       "(a post-processing: a lower bound for the continuous mechanism)", delta)


def laplace_lower_delta(params: LaplaceParams, n: int, eps: float) -> tuple:
    """(certified lower bound on delta at eps, same) from the binned randomizer."""
    from accountant.bounds.finite import finite_lower_delta

    v = finite_lower_delta(laplace_binned(params), n, float(eps)).delta
    return v, v
