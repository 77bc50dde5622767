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
    return _epsilon_search(lambda e: laplace_delta(params, n, e, cells), delta, params.eps0,
                           _guess(laplace_cells(params.eps0, GUESS_CELLS), params.eps0, n, math.log(delta)), rtol)


def _epsilon_search(delta_at, delta: float, top: float, guess, rtol: float = 1e-4):
    """The search of :func:`laplace_epsilon` for any certified ``delta_at(eps)`` (a
    :class:`~accountant.engines.lattice.LatticeDelta`) whose value at ``top`` meets ``delta``."""
    cache = {}
    log_t = math.log(delta)

    def ev(e: float):
        if e not in cache:
            cache[e] = delta_at(e)
        r = cache[e]
        lu = r.log_upper
        lc = math.log(r.central) if r.central > 0 else -math.inf
        slope = r.slope / r.central if r.central > 0 else 0.0
        return (min(lc, lu), lu, slope)

    if guess is not None:
        for f in (1e-3, 1e-2, 0.1, 0.5):
            e = guess * (1.0 + f)
            if e >= top:
                break
            if ev(e)[1] <= log_t:
                top = e
                break
    res = epsilon_for_log_delta(ev, log_t, top, rtol=rtol, predict=True, guess=guess)
    return res.epsilon, cache.get(res.epsilon) or delta_at(res.epsilon)


def _guess(law: CellLaw, hi: float, n: int, log_t: float):
    """The saddle-point estimate of the root on a coarse law (the cells' mean atoms): a start."""
    from accountant.engines.saddle import log_positive_part, root_of_decreasing

    p = np.concatenate([law.mass, [law.null]])

    def f(e: float):
        v = log_positive_part(p, np.concatenate([law.a_mean - math.exp(e) * law.b_mean, [0.0]]), n)
        return None if v is None else v - math.log(n)

    try:
        g = root_of_decreasing(f, log_t, hi, rtol=1e-6)
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


# --------------------------------------------------------------------------- the Gaussian randomizer
#: the tail term is at most this fraction of the target delta (the cap's search)
GAUSS_TAIL_FRACTION = 1e-3
#: the cap's largest distance from the range, in noise standard deviations (beyond: no mass in floats)
GAUSS_MAX_CAP = 40.0
#: the largest log-ratio 2 c cap the cells may reach (beyond, the lattice's uniform step cannot resolve
#: the bulk beside atoms of e^{2 c cap}: the bound is reported as not available, with the reason)
GAUSS_MAX_LOG_RATIO = 10.0
#: the largest eps the Gaussian search tries (no eps at or below it meeting delta: not available)
GAUSS_EPS_MAX = 50.0
GAUSS_WORST_PAIR = ("worst pair (lo, hi): the extremes of the range, checked numerically over interior pairs "
                    "(not proved: docs/proved.md)")


#: the relative error allowed for scipy.special.ndtr (cephes: a peak of 1.4e-15 documented; 1e-12 taken)
NDTR_REL = 1e-12


def _normal_mass(t1, t2, mu, side: int = 0):
    """Bounds on P[t1 < N(mu, 1) < t2] (arrays), from the tail form that does not cancel (the side
    of mu the cell lies on): ``side`` +1 an upper bound, -1 a lower bound (each ndtr value moved by
    NDTR_REL, the difference by REL), 0 the float value."""
    from scipy.special import ndtr

    t1, t2 = np.asarray(t1, dtype=float), np.asarray(t2, dtype=float)
    right = 0.5 * (t1 + t2) >= mu
    with np.errstate(invalid="ignore"):
        big = np.where(right, ndtr(mu - t1), ndtr(t2 - mu))
        small = np.where(right, ndtr(mu - t2), ndtr(t1 - mu))
    v = big - small
    if side > 0:
        v = (v + NDTR_REL * (big + small)) * (1.0 + REL)
    elif side < 0:
        v = np.maximum((v - NDTR_REL * (big + small)) * (1.0 - REL), 0.0)
    return v


def _log_ratio(t, x, c):
    """log f(t|x) / m(t) in the coordinate t = (y - mid) / sigma (inputs at x in [-c, c], blanket
    ``m(t) = phi(|t| + c)``): ``(c^2 - x^2) / 2 + |t| c + t x``, linear on each side of 0 and
    non-decreasing in |t| (slopes c - x and c + x)."""
    return (c * c - x * x) / 2.0 + np.abs(t) * c + t * x


@lru_cache(maxsize=128)
def gaussian_cells(c: float, x1: float, x2: float, cap: float, cells: int = CELLS) -> tuple:
    """(certified cells, tail term) of the Gaussian pair (x1, x2) (inputs standardised to [-1, 1],
    at c x1 and c x2 in t = (y - mid) / sigma), the ratios capped at |t| = cap (docs/proved.md).

    ``cells`` cells on each of [-cap, 0] and [0, cap]: masses ``P[cell]`` under the blanket
    (N(c, 1) left of 0, N(-c, 1) right of it) and under the pair's inputs (N(c x, 1)) from the normal
    CDF with directed margins (:func:`_normal_mass`), the means ``E[r | cell] = P_x[cell] / M[cell]``
    bounded on their safe sides; the ratios are monotone on each cell (log-linear, kink at 0 only).
    Each tail |t| > cap is one atom (a', b') with a' <= A and b' <= B there (both ratios are
    non-decreasing outward) and its blanket mass: Z <= (a' - e^eps b') + (A - a')_+ on the tail,
    and the tail term ``E[(A - a')_+; tail] <= P_x1[tail] - a' M[tail]`` (upper minus lower bound)
    is added to delta."""
    e = float(c)
    m1, m2 = e * float(x1), e * float(x2)
    grid = np.concatenate([np.linspace(-cap, 0.0, cells + 1), np.linspace(0.0, cap, cells + 1)[1:]])
    t1, t2 = grid[:-1], grid[1:]
    side_mu = np.where(t2 <= 0.0, e, -e)   # the blanket's normal on that side
    mass_up, mass_dn = _normal_mass(t1, t2, side_mu, 1), _normal_mass(t1, t2, side_mu, -1)

    def ends(m):
        g1, g2 = _log_ratio(t1, m, e), _log_ratio(t2, m, e)
        return _down(np.exp(np.minimum(g1, g2))), _up(np.exp(np.maximum(g1, g2)))

    a_lo, a_hi = ends(m1)
    b_lo, b_hi = ends(m2)
    with np.errstate(divide="ignore", invalid="ignore"):
        a_mean = np.where(mass_dn > 0, _normal_mass(t1, t2, m1, 1) / np.where(mass_dn > 0, mass_dn, 1.0), a_hi)
        b_mean = _normal_mass(t1, t2, m2, -1) / mass_up
    a_mean = _up(np.clip(a_mean, a_lo, a_hi))
    b_mean = _down(np.clip(b_mean, b_lo, b_hi))
    # the two tails: atoms at the ratios' values at t = -cap and t = cap, rounded down
    edge = np.array([-cap, cap])
    ta = _down(np.exp(_log_ratio(edge, m1, e)))
    tb = _down(np.exp(_log_ratio(edge, m2, e)))
    lo_t, hi_t, mu_t = np.array([-np.inf, cap]), np.array([-cap, np.inf]), np.array([e, -e])
    tail_up = _normal_mass(lo_t, hi_t, mu_t, 1)
    term = np.maximum(_normal_mass(lo_t, hi_t, m1, 1) - ta * _normal_mass(lo_t, hi_t, mu_t, -1), 0.0)
    tail = float(_up(np.sum(_up(term))))
    cat = np.concatenate
    null = float(_up(1.0 - float(np.sum(mass_dn)) - float(np.sum(_normal_mass(lo_t, hi_t, mu_t, -1)))))
    law = CellLaw(cat([mass_up, tail_up]), cat([a_lo, ta]), cat([a_hi, _up(ta)]), cat([a_mean, _up(ta)]),
                  cat([b_lo, tb]), cat([b_hi, tb]), cat([b_mean, tb]), min(max(null, 0.0), 1.0))
    return law, tail


def gaussian_tail(c: float, x1: float, cap: float) -> float:
    """The tail term of :func:`gaussian_cells` alone (for the search of the cap)."""
    e, m1 = float(c), float(c) * float(x1)
    edge = np.array([-cap, cap])
    ta = _down(np.exp(_log_ratio(edge, m1, e)))
    lo_t, hi_t, mu_t = np.array([-np.inf, cap]), np.array([-cap, np.inf]), np.array([e, -e])
    term = np.maximum(_normal_mass(lo_t, hi_t, m1, 1) - ta * _normal_mass(lo_t, hi_t, mu_t, -1), 0.0)
    return float(_up(np.sum(_up(term))))


def gaussian_cap(c: float, budget: float, x1: float = -1.0) -> float:
    """The smallest cap on a grid of 1/4 noise standard deviations (from the range's end c) whose
    tail term is <= ``budget``; :data:`GAUSS_MAX_CAP` beyond the range at most (every cap is sound:
    it only sets how much of delta the tail takes)."""
    k_lo, k_hi = 0, int(4 * GAUSS_MAX_CAP)
    if gaussian_tail(c, x1, c + k_hi / 4.0) > budget:
        return c + k_hi / 4.0
    while k_hi - k_lo > 1:
        k = (k_lo + k_hi) // 2
        if gaussian_tail(c, x1, c + k / 4.0) <= budget:
            k_hi = k
        else:
            k_lo = k
    return c + k_hi / 4.0


def gaussian_pair_delta(c: float, x1: float, x2: float, n: int, eps: float, cap: float, cells: int = CELLS):
    """The certified delta(eps) of the Gaussian pair (x1, x2) with the ratios capped at ``cap``: the
    cells' lattice bound plus the tail term (a :class:`~accountant.engines.lattice.LatticeDelta`)."""
    from dataclasses import replace

    from accountant.engines.lattice import LatticeDelta

    law, tail = gaussian_cells(float(c), float(x1), float(x2), float(cap), cells)
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            r = cell_positive_part(law, n, eps, step_fraction=STEP_FRACTION)
    except OverflowError:
        r = None
    if r is None or not (math.isfinite(r.upper) and math.isfinite(r.central)):   # overflowed: the trivial bound
        return LatticeDelta(float(eps), 1.0, 1.0, 0.0, 0.0, 0, True)
    up = min(r.upper + tail, 1.0)
    return replace(r, upper=up, central=r.central + tail,
                   log_upper=math.log(up) if r.upper > 2.3e-308 or tail > 0 else r.log_upper)


def gaussian_delta(params, n: int, eps: float, delta=None, cells: int = CELLS):
    """The certified delta(eps) of the Gaussian randomizer's blanket (the pair (lo, hi)).  The cap:
    its tail term <= GAUSS_TAIL_FRACTION of ``delta`` (a target) or, without a target, of the
    cells' own bound (from a first cap at 1e-12, refined twice)."""
    c = params.c
    if delta is not None:
        return gaussian_pair_delta(c, -1.0, 1.0, n, eps, gaussian_cap(c, GAUSS_TAIL_FRACTION * delta), cells)
    budget = 1e-12
    for _ in range(3):
        r = gaussian_pair_delta(c, -1.0, 1.0, n, eps, gaussian_cap(c, budget), cells)
        lattice_part = r.upper - gaussian_tail(c, -1.0, gaussian_cap(c, budget))
        if lattice_part <= 0 or gaussian_tail(c, -1.0, gaussian_cap(c, budget)) <= GAUSS_TAIL_FRACTION * lattice_part:
            return r
        budget = max(GAUSS_TAIL_FRACTION * lattice_part, 1e-300)
    return r


def gaussian_epsilon(params, n: int, delta: float, rtol: float = 1e-4, cells: int = CELLS):
    """The smallest eps (to ``rtol``) whose certified delta (cap chosen for ``delta``) is <= ``delta``
    and its LatticeDelta; (inf, None) where no eps <= GAUSS_EPS_MAX meets it.  The search's upper
    end: the saddle-point estimate on coarse cells, doubled until its certified delta meets the target."""
    c = params.c
    cap = gaussian_cap(c, GAUSS_TAIL_FRACTION * delta)
    at = lambda e: gaussian_pair_delta(c, -1.0, 1.0, n, e, cap, cells)   # noqa: E731
    # the start: coarse cells with a shorter cap (a number for the search, not a bound: the saddle
    # point has no estimate with the far tail's large atoms)
    guess = _guess(gaussian_cells(float(c), -1.0, 1.0, float(min(cap, c + 3.0)), GUESS_CELLS)[0],
                   GAUSS_EPS_MAX, n, math.log(delta))
    top = max(guess or 1.0, 1e-6)
    while at(top).upper > delta:
        if top >= GAUSS_EPS_MAX:
            return math.inf, None
        top = min(2.0 * top, GAUSS_EPS_MAX)
    return _epsilon_search(at, delta, top, guess if guess is not None and guess < top else None, rtol)


@lru_cache(maxsize=64)
def gaussian_binned(params, bins: int = LOWER_BINS) -> FiniteRandomizer:
    """The Gaussian randomizer followed by a binning of its output (a post-processing): inputs lo,
    mid, hi; outputs y <= lo, ``bins`` equal bins of [lo, hi], y >= hi; each entry the normal CDF's
    difference over its bin (40-digit mpmath, then a float)."""
    c = params.c
    edges = np.concatenate([[-math.inf], np.linspace(-c, c, bins + 1), [math.inf]])
    rows = [[float(_normal_mass(a, b, x)) for a, b in zip(edges[:-1], edges[1:])] for x in (-c, 0.0, c)]
    mid = 0.5 * (params.lo + params.hi)
    names = [f"{v:.6g}" for v in (params.lo, mid, params.hi)]
    return FiniteRandomizer(np.array(rows), inputs=names,
                            label=f"Gaussian sigma={params.sigma:g} binned into {bins + 2}")


def gaussian_blanket_result(params, n: int, delta: float, rtol: float) -> BoundResult:
    """:func:`gaussian_epsilon` as the registry's ``blanket`` result, the worst pair and the cap in ``reason``."""
    why = gaussian_refusal(params, delta)
    if why is not None:
        return BoundResult.not_applicable("blanket", why, delta)
    eps, r = gaussian_epsilon(params, n, delta, rtol=max(rtol, SEARCH_RTOL))
    if r is None:
        return BoundResult.not_applicable("blanket", f"no eps <= {GAUSS_EPS_MAX:g} meets delta = {delta:g} "
                                          "(the certified cells' bound with its tail term)", delta)
    cap = gaussian_cap(params.c, GAUSS_TAIL_FRACTION * delta)
    return BoundResult("blanket", eps, True, f"{GAUSS_WORST_PAIR}; certified cells of the continuous law "
                       f"({2 * CELLS} cells, ratios capped at {cap - params.c:g} sigma beyond the range, tail "
                       "term added; accountant.bounds.continuous)", delta, min(r.upper, delta))


def gaussian_refusal(params, delta: float = 1e-12):
    """Why the cells are not computed (None: they are): a cap whose log-ratio 2 c cap exceeds
    GAUSS_MAX_LOG_RATIO (sigma small against the range)."""
    c = params.c
    top = 2.0 * c * gaussian_cap(c, GAUSS_TAIL_FRACTION * delta)
    if top <= GAUSS_MAX_LOG_RATIO:
        return None
    return (f"the certified cells would need likelihood ratios up to e^{top:.3g} (sigma = {params.sigma:g} against "
            f"the range's half-width {(params.hi - params.lo) / 2:g}: c = {c:.4g}); the lattice engine's uniform "
            f"step resolves at most e^{GAUSS_MAX_LOG_RATIO:g} (a larger sigma, or a narrower range, is accounted)")


def gaussian_blanket_delta(params, n: int, eps: float) -> tuple:
    """(0, certified upper delta at eps) of the Gaussian blanket (the registry's form; 1 where
    :func:`gaussian_refusal` refuses the cells)."""
    if gaussian_refusal(params) is not None:
        return 0.0, 1.0
    return 0.0, min(gaussian_delta(params, n, float(eps)).upper, 1.0)


def gaussian_lower_result(params, n: int, delta: float, rtol: float) -> BoundResult:
    """The binned randomizer's certified lower bound as the registry's ``lower``."""
    from accountant.bounds.finite import finite_lower_epsilon

    lo = finite_lower_epsilon(gaussian_binned(params), n, delta, max(rtol, SEARCH_RTOL))
    return BoundResult("lower", lo.epsilon, True, f"{lo.detail}; outputs binned into {LOWER_BINS + 2} "
                       "(a post-processing: a lower bound for the continuous mechanism)", delta)


def gaussian_lower_delta(params, n: int, eps: float) -> tuple:
    """(certified lower bound on delta at eps, same) from the binned randomizer."""
    from accountant.bounds.finite import finite_lower_delta

    v = finite_lower_delta(gaussian_binned(params), n, float(eps)).delta
    return v, v
