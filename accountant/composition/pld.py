"""Privacy loss distributions (PLD) on a uniform loss grid, and their composition.

A PLD here is the law of the privacy loss L = log(P(X)/Q(X)) under X ~ P for a
dominating pair (P, Q): a finite part on the grid {(offset + i) * step} plus an atom
at +infinity.  Its hockey-stick curve is

    delta(eps) = P[L = +inf] + sum_l pmf(l) (1 - e^{eps - l})_+ ,

and the composition of rounds is the convolution of their PLDs (Zhu, Dong, Wang,
AISTATS 2022, Theorem 10: products of dominating pairs dominate the composition).

Two constructions:

* ``from_profile``: the "connect the dots" pair of Doroshenko, Ghazi, Kamath, Kumar,
  Manurangsi (PETS 2022, Section 3): from certified upper values of a privacy profile
  delta(eps) at grid points, the pair whose curve (as a function of x = e^eps) is the
  greatest convex minorant of those points and of (0, 1).  Every pair whose profile
  lies below the points is dominated by it (its curve is convex and below the points),
  so the composition is a pessimistic (upper) bound.  The optimistic counterpart is the
  same construction from certified *lower* values, with the +inf atom dropped and
  every loss moved down one grid step: the true pair's PLD rounded up onto the grid
  dominates the connect-the-dots pair of its exact values, and rounding up moves each
  loss by at most one step, so the composed optimistic curve is below the true one.
  (The argument needs the grid to start at or below the smallest loss; the grid is
  symmetric and negative eps values come from D_x(P||Q) = 1 - x + x D_{1/x}(Q||P) for a
  symmetric profile.)
* ``from_pmfs``: exact support, losses rounded up (pessimistic) or down (optimistic).

Floating-point error of the FFT convolutions is bounded (Higham, Accuracy and Stability
of Numerical Algorithms, 2nd ed., Theorem 24.2) and carried in ``error`` as an l1 bound
on the computed pmf, added to delta in the pessimistic direction and subtracted in the
optimistic one.  Repeated squaring carries the error of the first squarings times about the
number of rounds, so convolutions up to ``EXTENDED_MAX_LENGTH`` run in 80-bit long double
(:func:`accountant.engines.fftconv.linear_convolve`, u = 2^-64; 4-RR, 10,000 rounds, n =
2.3e7: error 4.0e-9 -> 2.4e-12 at delta = 1e-8, eps_c 0.09996 -> 0.09782).  Tails cut during
composition (each at most ``TAIL_MASS`` or ``TAIL_OF_ERROR`` times the error already carried,
whichever is larger: below that the computed entries are rounding noise, and keeping them made
the arrays 160 times longer and their length, so the error bound, jump between neighbouring
n) go to the +inf atom (upper tail) or to the lowest kept loss (lower tail) when pessimistic,
and are dropped when optimistic.
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

import numpy as np

from accountant.core.optional import require
from accountant.engines.fftconv import linear_convolve, tail_cut
from accountant.engines.search import bisect

_U = 2.0 ** -53  # unit roundoff of float64
# Mass cut from each tail per convolution (accounted for on the safe side).
TAIL_MASS = 1e-22

# FFT work of the compositions run on this thread: the sum of N log2 N over the convolutions
# of :func:`compose` (N the FFT's input length).  A count, not a clock: the adaptive
# composition budgets its levels with it, so its answer does not depend on the machine or
# its load (:func:`accountant.composition.compose._adaptive`).
_fft_work = threading.local()


def fft_work() -> float:
    """The FFT work (sum of N log2 N) :func:`compose` has done on this thread so far."""
    return getattr(_fft_work, "total", 0.0)
# ... or this fraction of the l1 error the composition already carries, if larger (the safe side
# grows by at most 1 % of the error per convolution)
TAIL_OF_ERROR = 0.01


@dataclass(frozen=True)
class DiscretePLD:
    """PLD on the grid loss_i = (offset + i) * step.

    Parameters
    ----------
    step : grid spacing (> 0).
    offset : grid index of ``pmf[0]``.
    pmf : P-probabilities of the finite losses (non-negative).
    inf_mass : P-probability of loss +inf (in [0, 1]).
    pessimistic : True for an upper bound on delta (errors added), False for a lower bound.
    error : l1 bound on the floating-point error of ``pmf``.
    """

    step: float
    offset: int
    pmf: np.ndarray
    inf_mass: float
    pessimistic: bool
    error: float = 0.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.step) and self.step > 0):
            raise ValueError(f"step must be a finite number > 0, got {self.step!r}")
        if not (0.0 <= self.inf_mass <= 1.0 + 1e-12):
            raise ValueError(f"inf_mass must lie in [0, 1], got {self.inf_mass!r}")
        pmf = np.asarray(self.pmf, dtype=np.float64)
        if pmf.ndim != 1 or pmf.size == 0 or np.any(pmf < 0) or not np.all(np.isfinite(pmf)):
            raise ValueError("pmf must be a non-empty 1-d array of finite non-negative numbers")
        pmf.setflags(write=False)
        object.__setattr__(self, "pmf", pmf)
        object.__setattr__(self, "offset", int(self.offset))

    @property
    def losses(self) -> np.ndarray:
        """The grid's losses (increasing; computed once: ``get_epsilon`` asks ~40 times)."""
        l = self.__dict__.get("_losses")
        if l is None:
            l = (self.offset + np.arange(self.pmf.size)) * self.step
            l.setflags(write=False)
            object.__setattr__(self, "_losses", l)
        return l

    def get_delta(self, epsilon: float) -> float:
        """Certified bound on delta(epsilon) (upper if pessimistic, else lower)."""
        l = self.losses
        i = int(np.searchsorted(l, epsilon, side="right"))   # the losses > epsilon: l[i:]
        val = float(np.sum(self.pmf[i:] * -np.expm1(epsilon - l[i:]))) + self.inf_mass
        if self.pessimistic:
            return min(1.0, val * (1.0 + 4 * self.pmf.size * _U) + self.error)
        return max(0.0, val * (1.0 - 4 * self.pmf.size * _U) - self.error)

    def get_epsilon(self, delta: float, rtol: float = 1e-10) -> float:
        """Smallest eps >= 0 with delta(eps) <= ``delta`` (inf if never met).

        Pessimistic: the returned eps meets the target.  Optimistic: the returned eps is
        at or below the infimum, so it is a lower bound on the true eps.
        """
        if not (0.0 < delta < 1.0):
            raise ValueError(f"delta must lie in (0, 1), got {delta!r}")
        if self.get_delta(0.0) <= delta:
            return 0.0
        hi = float(self.losses[-1])
        if hi <= 0 or self.get_delta(hi) > delta:
            return math.inf
        b = bisect(lambda e: self.get_delta(e) <= delta, hi, 0.0, rtol=rtol, atol=1e-15)
        return b.x if self.pessimistic else b.other


def _greatest_convex_minorant(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Values at x of the greatest convex minorant of the points (x_i, y_i), x increasing."""
    hull = _hull_indices(x, y)
    return np.interp(x, x[hull], y[hull])


def _hull_indices(x: np.ndarray, y: np.ndarray) -> list:
    """Vertices of the lower convex hull of the points (x_i, y_i), x increasing."""
    hull: list[int] = []
    for i in range(x.size):
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            # drop b if it lies on or above the segment a -> i
            if (y[b] - y[a]) * (x[i] - x[a]) >= (y[i] - y[a]) * (x[b] - x[a]):
                hull.pop()
            else:
                break
        hull.append(i)
    return hull


def from_curve_points(step: float, k_max: int, values: np.ndarray, pessimistic: bool) -> DiscretePLD:
    """Connect-the-dots PLD from curve values at eps_i = i * step, i = -k_max..k_max.

    ``values[j]`` bounds D_{e^{eps_i}}(P||Q) for i = j - k_max.  Returns the pair whose
    curve in x = e^eps is the greatest convex minorant of (0, 1) and the points
    (Doroshenko et al., PETS 2022).  Its losses are the grid points; P[L = +inf] is the
    minorant at the last point.  ``pessimistic=False`` drops the +inf atom and moves the
    losses down one step (see module docstring).
    """
    ks = np.arange(-k_max, k_max + 1)
    x = np.concatenate(([0.0], np.exp(ks * step)))
    y = np.concatenate(([1.0], np.clip(values, 0.0, 1.0)))
    g = _greatest_convex_minorant(x, y)
    slopes = np.diff(g) / np.diff(x)  # slope on (x_{j-1}, x_j); slope after last point is 0
    slopes = np.minimum(slopes, 0.0)
    qmass = np.diff(np.concatenate((slopes, [0.0])))  # Q-mass at each grid loss (>= 0)
    qmass = np.maximum(qmass, 0.0)
    pmf = qmass * x[1:]
    inf_mass = float(g[-1])
    if pessimistic:
        return DiscretePLD(step, -k_max, pmf, inf_mass, True)
    return DiscretePLD(step, -k_max - 1, pmf, 0.0, False)


def from_profile(profile: Callable[[float], tuple[float, float]], step: float, eps_top: float,
                 pessimistic: bool = True, grid_step: Optional[float] = None) -> DiscretePLD:
    """Connect-the-dots PLD of a symmetric certified profile.

    Parameters
    ----------
    profile : eps >= 0 -> (lower, upper) certified bounds on delta(eps), the same for both
        orders of the neighbouring datasets; if it has an attribute ``many`` (a list of eps ->
        the list of their values, the same as one at a time), the samples come from one call.
    step : spacing of the profile samples (and of the pessimistic PLD's losses).
    eps_top : samples reach the first multiple of ``step`` >= eps_top; the profile beyond
        it goes into the +inf atom (pessimistic) or is dropped (optimistic).
    grid_step : optimistic only: the grid (default ``step``) onto which the optimistic
        pair's losses are rounded down.

    Notes
    -----
    Optimistic construction: points certified to lie on or below the true convex curve f
    (in x = e^eps): (0, 1), (x_i, lower_i), and in each gap (x_i, x_{i+1}) the crossing
    of the two neighbouring chords extended into the gap (a chord of a convex function
    extended beyond its segment lies below it; the extension is evaluated with lower
    values at the near end and upper values at the far end, which keeps it below).  The
    greatest convex minorant of these points is a pair's curve below f; its losses are
    rounded down onto the grid, which lowers every composed delta.
    """
    if not (math.isfinite(step) and step > 0):
        raise ValueError(f"step must be a finite number > 0, got {step!r}")
    k_max = max(1, int(math.ceil(eps_top / step - 1e-9)))
    pos = np.arange(0, k_max + 1) * step
    many = getattr(profile, "many", None)
    vals = np.array(many([float(e) for e in pos]) if many is not None else [profile(float(e)) for e in pos])
    xneg = np.exp(-pos[1:])

    def both_sides(d: np.ndarray, up: bool) -> np.ndarray:
        dneg = 1.0 - xneg + xneg * d[1:]  # D_x(P||Q) = 1 - x + x D_{1/x}(Q||P), x = e^-eps
        dneg = dneg * (1 + 4 * _U) + 4 * _U if up else dneg * (1 - 4 * _U) - 4 * _U
        return np.concatenate((dneg[::-1], d))

    if pessimistic:
        return from_curve_points(step, k_max, both_sides(vals[:, 1], True), True)
    h = step if grid_step is None else float(grid_step)
    if not (math.isfinite(h) and h > 0):
        raise ValueError(f"grid_step must be a finite number > 0, got {grid_step!r}")
    lo = np.clip(both_sides(vals[:, 0], False), 0.0, 1.0)
    up = np.clip(both_sides(vals[:, 1], True), 0.0, 1.0)
    x = np.exp(np.arange(-k_max, k_max + 1) * step)
    # gap i = (x_i, x_{i+1}) for i = 1 .. len-3: left line through (x_{i-1}, up), (x_i, lo);
    # right line through (x_{i+1}, lo), (x_{i+2}, up)
    i = np.arange(1, x.size - 2)
    sa = (lo[i] - up[i - 1]) / (x[i] - x[i - 1])
    sb = (up[i + 2] - lo[i + 1]) / (x[i + 2] - x[i + 1])
    with np.errstate(divide="ignore", invalid="ignore"):
        # lo_i + sa (y - x_i) = lo_{i+1} + sb (y - x_{i+1})
        y = (lo[i + 1] - lo[i] + sa * x[i] - sb * x[i + 1]) / (sa - sb)
    ok = np.isfinite(y) & (y > x[i]) & (y < x[i + 1])
    # Losses on the grid of h.  Where step is a multiple per >= 2 of h, a sample's loss is its
    # own grid point k * per, and a crossing y moves to the grid point y' nearest to it inside
    # the gap (x_i, x_{i+1}), with the value min(left(y'), right(y')): the left line lies below
    # f on [x_i, inf) and the right one on (0, x_{i+1}], so both chords from (y', that value) to
    # the gap's ends lie below f, and so does the minorant.  The float x of a point may differ
    # from e^(its loss) by what |k h - eps| <= 2e-15 (1 + |eps|) allows (the rounding of k * step,
    # of its 15 decimals, of step / h); the curve's slope in x lies in [-1, 0] and the lines'
    # slopes are sa, sb, so each value is lowered by (1 + |sa| + |sb|) times that much of x.
    # Otherwise every loss is rounded down onto the grid (a dominated pair).
    ratio = step / h
    per = int(round(ratio))
    on_grid = per >= 2 and abs(ratio - per) <= 1e-9 * ratio
    ks = np.arange(-k_max, k_max + 1)
    fuzz = lambda v, e: v * 2e-15 * (1.0 + np.abs(e))  # noqa: E731
    at = np.maximum(lo, np.maximum(1.0 - x, 0.0))  # every curve is >= (1 - x)_+
    down = lambda v: np.floor(np.log(v) / h - 1e-9 * (1.0 + np.abs(np.log(v) / h))).astype(np.int64)  # noqa: E731
    if on_grid:
        at = np.maximum(at - fuzz(x, ks * step), 0.0)
        kc = np.round(np.log(np.where(ok, y, 1.0)) / h).astype(np.int64)
        kc = np.clip(kc, ks[i] * per + 1, ks[i + 1] * per - 1)[ok]
        yc = np.exp(kc * h)
        sl, sr = sa[ok], sb[ok]
        vc = np.minimum(lo[i][ok] + sl * (yc - x[i][ok]), lo[i + 1][ok] + sr * (yc - x[i + 1][ok]))
        vc = np.maximum(vc, np.maximum(1.0 - yc, 0.0)) - (1.0 + np.abs(sl) + np.abs(sr)) * fuzz(yc, kc * h)
        px = np.concatenate(([0.0], x, yc))
        py = np.concatenate(([1.0], at, np.maximum(vc, 0.0)))
        pk = np.concatenate(([0], ks * per, kc)).astype(np.int64)
    else:
        yv = lo[i][ok] + sa[ok] * (y[ok] - x[i][ok])
        px = np.concatenate(([0.0], x, y[ok]))
        py = np.concatenate(([1.0], at, np.maximum(yv, np.maximum(1.0 - y[ok], 0.0))))
        pk = np.concatenate(([0], down(x), down(y[ok]))).astype(np.int64)
    order = np.argsort(px, kind="stable")
    px, py, pk = px[order], py[order], pk[order]
    hull = _hull_indices(px, py)
    hx, hy = px[hull], py[hull]
    slopes = np.minimum(np.diff(hy) / np.diff(hx), 0.0)
    qmass = np.maximum(np.diff(np.concatenate((slopes, [0.0]))), 0.0)
    vx = hx[1:]
    pmass = qmass * vx
    idx = pk[hull][1:]
    off = int(idx.min())
    pmf = np.bincount(idx - off, weights=pmass)
    return DiscretePLD(h, off, pmf, 0.0, False)


def from_pmfs(p: np.ndarray, q: np.ndarray, step: float, pessimistic: bool = True) -> DiscretePLD:
    """PLD of the pair (p, q) given as probability vectors on a common finite support.

    Losses log(p/q) are rounded up onto the grid (pessimistic) or down (optimistic);
    outcomes with q = 0 < p form the +inf atom; outcomes with p = 0 carry no P-mass.
    """
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    if p.shape != q.shape or p.ndim != 1 or np.any(p < 0) or np.any(q < 0):
        raise ValueError("p and q must be 1-d non-negative arrays of the same length")
    if not (math.isfinite(step) and step > 0):
        raise ValueError(f"step must be a finite number > 0, got {step!r}")
    inf_mass = float(np.sum(p[(q == 0) & (p > 0)]))
    m = (p > 0) & (q > 0)
    loss = (np.log(p[m]) - np.log(q[m])) / step
    # a margin so that float rounding of the log cannot move a loss to the unsafe side
    margin = 1e-12 * (1.0 + np.abs(loss))
    idx = np.ceil(loss + margin) if pessimistic else np.floor(loss - margin)
    idx = idx.astype(np.int64)
    lo = int(idx.min())
    pmf = np.bincount(idx - lo, weights=p[m])
    return DiscretePLD(step, lo, pmf, inf_mass, pessimistic)


def _trim(pld_offset: int, pmf: np.ndarray, inf_mass: float, pessimistic: bool, error: float):
    lo, hi, low_cut, high_cut = tail_cut(pmf, max(TAIL_MASS, TAIL_OF_ERROR * error))
    if lo > hi:  # every finite loss in the tails (the mass is at +inf): keep the top cell
        lo = hi = pmf.size - 1
        low_cut = float(np.sum(pmf[:lo]))
    out = pmf[lo:hi + 1].copy()
    if pessimistic:  # the float tail sums are within a relative pmf.size u of the exact ones
        out[0] += low_cut * (1 + pmf.size * _U)
        inf_mass = inf_mass + high_cut * (1 + pmf.size * _U)
    return pld_offset + lo, out, inf_mass


def compose(a: DiscretePLD, b: DiscretePLD) -> DiscretePLD:
    """PLD of the composition of two rounds (same step and direction)."""
    if a.pessimistic != b.pessimistic:
        raise ValueError("cannot compose a pessimistic PLD with an optimistic one")
    if abs(a.step - b.step) > 1e-12 * a.step:
        raise ValueError(f"steps differ: {a.step} and {b.step}")
    c, err = linear_convolve(a.pmf, b.pmf, extended=True)
    size = a.pmf.size + b.pmf.size
    _fft_work.total = fft_work() + size * math.log2(size)
    fa, fb = 1.0 - a.inf_mass, 1.0 - b.inf_mass
    inf_mass = 1.0 - fa * fb
    error = err + a.error * (float(np.sum(b.pmf)) + b.error) + b.error * float(np.sum(a.pmf))
    off, c, inf_mass = _trim(a.offset + b.offset, c, inf_mass, a.pessimistic, error)
    return DiscretePLD(a.step, off, c, min(inf_mass, 1.0), a.pessimistic, error)


def self_compose(pld: DiscretePLD, rounds: int) -> DiscretePLD:
    """PLD of ``rounds`` identical rounds, by repeated squaring."""
    if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 1:
        raise ValueError(f"rounds must be an integer >= 1, got {rounds!r}")
    result = None
    base = pld
    r = int(rounds)
    while r:
        if r & 1:
            result = base if result is None else compose(result, base)
        r >>= 1
        if r:
            base = compose(base, base)
    return result


def coarsen_down(pld: DiscretePLD, factor: int) -> DiscretePLD:
    """An optimistic PLD on the grid ``factor * step``: every loss rounded DOWN to it (grid index
    floor((offset + i) / factor), integer arithmetic), the masses of a cell summed. A loss moved
    down keeps a lower bound: delta(eps) = E_P[(1 - e^(eps - L))_+] is non-decreasing in L, and
    a composition of rounded rounds is the sum of rounded losses, at most the true sum (one
    coupling). The sums' float error (at most factor u of the total) is added to ``error``."""
    if pld.pessimistic:
        raise ValueError("coarsen_down keeps a lower bound: only for an optimistic PLD")
    factor = int(factor)
    if factor < 1:
        raise ValueError(f"factor must be an integer >= 1, got {factor!r}")
    if factor == 1:
        return pld
    first = pld.offset // factor                      # floor, also for negative offsets
    idx = (pld.offset + np.arange(pld.pmf.size)) // factor - first
    out = np.bincount(idx, weights=pld.pmf)
    error = pld.error + (factor + 1) * _U * float(np.sum(pld.pmf))
    return DiscretePLD(pld.step * factor, first, out, pld.inf_mass, False, error)


def self_compose_lower(pld: DiscretePLD, rounds: int, max_size: int) -> DiscretePLD:
    """Optimistic PLD of ``rounds`` identical rounds by repeated squaring, as :func:`self_compose`,
    but every operand coarsened down (:func:`coarsen_down`, the same factor for the two operands
    of a composition) so that no composition exceeds about ``max_size`` points: early squarings
    keep the fine grid of a narrow law, later ones a coarser grid of a wider one. Still a lower
    bound (each rounding moves losses down); the cost is the total shift, at most the sum over
    the levels of the rounds composed after a rounding times its grid step."""
    if pld.pessimistic:
        raise ValueError("self_compose_lower is for an optimistic PLD")
    if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 1:
        raise ValueError(f"rounds must be an integer >= 1, got {rounds!r}")
    half = max(2, int(max_size) // 2)

    def aligned(a: DiscretePLD, b: DiscretePLD) -> tuple:
        """a and b on one grid, coarse enough that their sizes sum to at most ``half``."""
        a, b = _common(a, b)
        size = a.pmf.size + b.pmf.size
        f = 1 if size <= half else -(-size // half)
        return coarsen_down(a, f), coarsen_down(b, f)

    result: Optional[DiscretePLD] = None
    base, r = pld, int(rounds)
    while r:
        if r & 1:
            result = base if result is None else compose(*aligned(result, base))
        r >>= 1
        if r:
            base = compose(*aligned(base, base))
    return result


def _common(a: DiscretePLD, b: DiscretePLD) -> tuple:
    """a and b on one grid: the finer coarsened down to the coarser (every step here is the
    first step times an integer, so the ratio rounds to that integer); the common step is the
    smaller of the two float values, so no loss moves up by the float rounding of the steps."""
    if a is b or a.step == b.step:
        return a, b
    swap = a.step > b.step
    lo, hi = (b, a) if swap else (a, b)
    f = int(round(hi.step / lo.step))
    lo = coarsen_down(lo, f)
    step = min(lo.step, hi.step)
    lo = DiscretePLD(step, lo.offset, lo.pmf, lo.inf_mass, False, lo.error)
    hi = DiscretePLD(step, hi.offset, hi.pmf, hi.inf_mass, False, hi.error)
    return (hi, lo) if swap else (lo, hi)


def compose_all(plds: Sequence[DiscretePLD]) -> DiscretePLD:
    """PLD of a heterogeneous list of rounds (identical entries are grouped)."""
    if len(plds) == 0:
        raise ValueError("need at least one round")
    groups: dict[int, list] = {}
    for p in plds:
        groups.setdefault(id(p), [p, 0])[1] += 1
    parts = [self_compose(p, k) for p, k in groups.values()]
    # combine small ones first (cheaper FFTs)
    parts.sort(key=lambda d: d.pmf.size)
    out = parts[0]
    for p in parts[1:]:
        out = compose(out, p)
    return out


def to_dp_accounting(pld: DiscretePLD):
    """Export as ``dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution``.

    Needs the optional extra ``[pld]`` (PyPI ``dp-accounting``).  The export carries the
    grid pmf and the +inf atom (symmetric, as the round profiles here are).  The
    floating-point slack of :meth:`DiscretePLD.get_delta` (the ``error`` term and the sum's
    relative rounding) is folded into the PLD on its own side: a pessimistic PLD moves that
    much mass to the +inf loss (every delta(eps) rises by it), an optimistic one removes it
    from the top losses down (every delta(eps) falls by at most it).  So the export's delta
    is at or above (pessimistic) or at or below (optimistic) this object's certified
    ``get_delta`` at every eps, and what composes it starts from a bound.
    """
    require("dp_accounting", "to_dp_accounting (export to Google's dp_accounting)")
    from dp_accounting.pld import privacy_loss_distribution as _dpl
    pmf = np.array(pld.pmf, dtype=np.float64)
    inf_mass = float(pld.inf_mass)
    slack = pld.error + 4 * pmf.size * _U * (float(np.sum(pmf)) + inf_mass)
    if pld.pessimistic:
        inf_mass = min(1.0, inf_mass + slack)
    else:
        inf_mass, slack = max(0.0, inf_mass - slack), max(0.0, slack - inf_mass)
        for j in range(pmf.size - 1, -1, -1):     # the top losses first, until it is gone
            if slack <= 0.0:
                break
            take = min(float(pmf[j]), slack)
            pmf[j] -= take
            slack -= take
    rounded = {int(pld.offset + i): float(v) for i, v in enumerate(pmf) if v > 0}
    return _dpl.PrivacyLossDistribution.create_from_rounded_probability(
        rounded, inf_mass, pld.step, pessimistic_estimate=pld.pessimistic)


def refine(pld: DiscretePLD, factor: int) -> DiscretePLD:
    """The same PLD on a grid ``factor`` times finer (losses unchanged)."""
    if isinstance(factor, bool) or not isinstance(factor, int) or factor < 1:
        raise ValueError(f"factor must be an integer >= 1, got {factor!r}")
    if factor == 1:
        return pld
    pmf = np.zeros((pld.pmf.size - 1) * factor + 1)
    pmf[::factor] = pld.pmf
    return DiscretePLD(pld.step / factor, pld.offset * factor, pmf, pld.inf_mass, pld.pessimistic,
                       pld.error)
