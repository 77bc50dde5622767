"""Windows of the multinomial sum with certified left-out mass, tilted bounds and saddle-point estimates.

Part of :mod:`accountant.engines.blanket`; the package docstring has the mathematics.
"""
from __future__ import annotations
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional
import numpy as np
from accountant.engines.binomial import binom_log_tail_bound
from accountant.engines.saddle import log_positive_part, mgf_minimiser, root_of_decreasing
from accountant.engines.blanket.law import CountLaw
# the tilted bound is tried when the crude m-window holds at least this many values
# (below, windows are cheap and the crude ones are cached across eps)
TILT_FROM = 1 << 15


@dataclass(frozen=True)
class PositivePart:
    """delta(eps) = E[(v . N)_+]/n with certified ``lower`` and ``upper`` ends.

    ``value`` is the best estimate, ``slope`` d delta/d eps (steers searches only),
    ``truncated`` the bound on left-out mass added to ``upper``, ``bins`` the number of
    j-bins of the binned path (0 for the exact and mpmath paths).
    """

    eps: float
    value: float
    lower: float
    upper: float
    slope: float
    truncated: float
    method: str
    bins: int


#: relative rounding of one atom's float coefficient a - e^eps b (the exponential, the product
#: and the difference: a few units in the last place of a + e^eps b), with a fourfold cushion
ATOM_ROUNDING = 2e-15


#: eps within this fraction of eps_max is evaluated at eps_max (1 - 2 NEAR_EPS_MAX): there the
#: float atoms e^eps0 - e^eps may round to 0 while the truth is positive
NEAR_EPS_MAX = 1e-12


def near_eps_max(law, eps: float):
    """The smaller eps at which to take ``eps``'s upper end where eps < eps_max lies within
    NEAR_EPS_MAX of it (delta is non-increasing in eps, so the upper end there holds at eps and
    the lower end is 0), else None."""
    top = law.eps_max
    if math.isfinite(top) and eps < top and top - eps < NEAR_EPS_MAX * top:
        return top * (1.0 - 2.0 * NEAR_EPS_MAX)
    return None


def at_smaller_eps(eps: float, pp: PositivePart) -> PositivePart:
    """``pp``, an evaluation at a smaller eps, as the bracket [0, pp.upper] at ``eps``."""
    return PositivePart(eps, pp.value, 0.0, pp.upper, pp.slope, pp.truncated, pp.method, pp.bins)


def cancellation_slack(value: float, slope: float, margin: float) -> float:
    """What float coefficients may move delta = E[S_+]/n, S = A - e^eps B summed over the users'
    atoms (a, b >= 0): each outcome's S is off by at most ATOM_ROUNDING (A + e^eps B), and
    E[(A + e^eps B) 1{S > 0}]/n = delta + 2 |d delta/d eps| (the slope is -e^eps E[B 1{S > 0}]/n).
    Near eps_max the coefficients cancel (e^eps0 - e^eps) and this exceeds any relative
    margin; where twice it is within the engine's relative ``margin`` of ``value`` that margin
    holds it and the slack is 0."""
    slack = ATOM_ROUNDING * (value + 2.0 * abs(slope))
    return 0.0 if 2.0 * slack <= margin * value else slack


# ----------------------------------------------------------------------------
# windows and the conditional expectation g_m(j)
# ----------------------------------------------------------------------------

def _window(N: int, p: float, log_mass: float) -> tuple[int, int, float]:
    """[lo, hi] with Chernoff bounds on P[Bin(N,p) < lo], P[Bin(N,p) > hi] <= exp(log_mass); their sum.

    ``log_mass`` is rounded down to a multiple of 1/4 (a wider window, a smaller bound),
    so that nearby targets share one cached window.
    """
    return _window_q(int(N), float(p), math.floor(4.0 * log_mass) / 4.0)


@lru_cache(maxsize=1024)
def _window_q(N: int, p: float, log_mass: float) -> tuple[int, int, float]:
    if p <= 0.0:
        return 0, 0, 0.0
    if p >= 1.0:
        return N, N, 0.0

    def up(x):  # bound on log P[X >= x]
        return binom_log_tail_bound(np.asarray(x, dtype=np.float64), N, p, upper=True)

    def dn(x):  # bound on log P[X <= x]
        return binom_log_tail_bound(np.asarray(x, dtype=np.float64), N, p, upper=False)

    def first_true(pred, a: int, b: int, guess: Optional[float] = None) -> int:
        """Smallest x in (a, b] with pred(x), pred monotone (False ... True) and pred(b) True:
        the interval is cut into 64 pieces per vectorised step.  ``guess`` (an estimate of
        the answer) first narrows (a, b] to a few values around it, by one evaluation of
        ``pred`` at both ends of that interval (a false end moves a, a true end moves b: the
        answer is the same, only found in fewer steps)."""
        if guess is not None and math.isfinite(guess):
            ends = [x for x in (int(math.floor(guess)) - 4, int(math.ceil(guess)) + 4) if a < x < b]
            if ends:
                ok = pred(np.array(ends, dtype=np.int64))
                for x, t in zip(ends, ok):
                    if t:
                        b = min(b, x)
                    else:
                        a = max(a, x)
        while b - a > 1:
            xs = np.unique(np.linspace(a, b, 66)[1:-1].astype(np.int64))
            xs = xs[(xs > a) & (xs < b)]
            if xs.size == 0:
                break
            ok = pred(xs)
            i = int(np.argmax(ok)) if np.any(ok) else xs.size
            if i < xs.size:
                b = int(xs[i])
            if i > 0:
                a = int(xs[i - 1])
        return b

    mean = N * p
    if up(N) > log_mass:
        hi = N
    else:  # smallest x with up(x) <= log_mass; hi = x - 1
        hi = min(first_true(lambda x: up(x) <= log_mass, int(math.floor(mean)), N,
                            _kl_root(N, p, -log_mass, +1)) - 1, N)
    if dn(0) > log_mass:
        lo = 0
    else:  # largest x with dn(x) <= log_mass, i.e. smallest x with dn(x) > log_mass; lo = x
        lo = max(first_true(lambda x: dn(x) > log_mass, -1, int(math.ceil(mean)),
                            _kl_root(N, p, -log_mass, -1)), 0)
    trunc = 0.0
    if hi < N:
        trunc += math.exp(float(up(hi + 1)))
    if lo > 0:
        trunc += math.exp(float(dn(lo - 1)))
    return lo, hi, trunc


def _kl_root(N: int, p: float, L: float, side: int) -> Optional[float]:
    """Estimate (plain floats, a few Newton steps) of the x beyond the mean on ``side``
    (+1 above, -1 below) with N KL(x/N || p) = L: where the Chernoff bound of
    :func:`_window_q` crosses its target.  Only a starting point for the certified
    bisection (any value is safe there); None when no estimate is at hand."""
    if not (L > 0.0 and 0.0 < p < 1.0 and N >= 1):
        return None
    mean, var = N * p, N * p * (1.0 - p)
    x = mean + side * math.sqrt(2.0 * L * var)
    for _ in range(30):
        x = min(max(x, 1e-9), N - 1e-9)
        f = x * math.log(x / mean) + (N - x) * math.log((N - x) / (N - mean)) - L
        df = math.log(x / mean) - math.log((N - x) / (N - mean))
        if df == 0.0 or not math.isfinite(f) or not math.isfinite(df):
            return None
        step = f / df
        x -= step
        if abs(step) <= 1e-3:
            break
    return x if 0.0 < x < N else None


def _tilt(law: CountLaw, v) -> Optional[tuple[float, float, float, float]]:
    """(theta, log of an upper bound on sum_c p_c e^{theta v_c}, tilted q1 + q2, tilted q3), or
    None when no theta > 0 lowers the moment generating function (mean >= 0)."""
    p = (law.p12, law.p12, law.p3)
    vv = tuple(float(x) for x in v)
    if sum(a * b for a, b in zip(p, vv)) >= 0.0 or max(vv) <= 0.0:
        return None
    th = mgf_minimiser(p, vv)
    w = [a * math.exp(th * b) for a, b in zip(p, vv)]
    z1 = math.fsum(a * math.expm1(th * b) for a, b in zip(p, vv))  # z - 1 (p0 has v = 0)
    logz = math.log1p(z1)
    # a relative 1e-12 of |log z| plus 1e-15 covers the rounding of this float evaluation
    logz_up = logz + 1e-12 * abs(logz) + 1e-15
    z = 1.0 + z1
    return th, logz_up, (w[0] + w[1]) / z, w[2] / z


def run_truncated(run, target_delta: Optional[float], truncation: float, vmax: float) -> PositivePart:
    """``run(allowed)`` (an evaluation whose windows leave out at most ``allowed`` of delta) with
    ``allowed`` = ``truncation`` times the target, or, without a target, times a first estimate
    of the value (a second run only when the first one's left-out mass is too large for it)."""
    if target_delta is not None:
        return run(truncation * target_delta)
    first = run(4.0 * vmax * 1e-30)
    if first.value > 0 and first.truncated <= truncation * first.value:
        return first
    return run(truncation * max(first.value, 1e-300))


def approx_log_delta(law: CountLaw, n: int, eps: float) -> Optional[float]:
    """Saddle-point estimate of log delta(eps) = log(E[S_+] / n), S a sum of n i.i.d. copies
    of Y = v_c with probability p_c (:func:`accountant.engines.saddle.log_positive_part`): not
    certified, it only gives searches a starting point (its error shrinks with n as the
    saddle-point expansion's next term, O(1/n)).
    ``-inf`` when delta = 0 (every v_c <= 0), None when the mean of Y is >= 0 (no decay)."""
    if hasattr(law, "atoms"):  # OueBlanket: four atoms
        lp = log_positive_part(*law.atoms(eps), n)
    else:
        lp = log_positive_part((law.p12, law.p12, law.p3), law.coefficients(eps), n)
    return lp if lp is None else lp - math.log(n)


def approx_epsilon(law: CountLaw, n: int, delta: float) -> Optional[float]:
    """eps at which :func:`approx_log_delta` crosses log ``delta`` (regula falsi to 1e-10
    relative on [0, eps_max], :func:`accountant.engines.saddle.root_of_decreasing`); None when
    eps_max is infinite.  A starting point only."""
    top = law.eps_max
    if not math.isfinite(top) or top <= 0.0:
        return None
    return root_of_decreasing(lambda e: approx_log_delta(law, n, e), math.log(delta), top)


def law_windows(law: CountLaw, n: int, v, allowed: float) -> tuple[tuple[int, int], tuple[int, int], float]:
    """m- and j-windows whose left-out part contributes at most ``allowed`` to delta, and that
    contribution's bound (crude or tilted, see the module docstring; the narrower is used)."""
    pp = law.p_prime
    return windows_crude_or_tilted(n, 2.0 * law.p12, law.p3, max(max(v), 0.0), allowed,
                                   lambda: _tilt(law, v), two_d=0.0 < pp < 1.0)


def windows_crude_or_tilted(n: int, pm: float, pj: float, vmax: float, allowed: float, tilt,
                            two_d: bool = True) -> tuple[tuple[int, int], tuple[int, int], float]:
    """The narrower of two pairs of windows over the counts of two category sets (probabilities
    ``pm``, ``pj``) that leave out at most ``allowed`` of delta, and that bound: crude (Chernoff
    mass times ``vmax``) or, for long m-windows, tilted (``tilt()`` gives (theta, log z, tilted
    pm, tilted pj) or None; see the module docstring).  ``two_d=False``: no j-window."""
    log_mass = math.log(allowed / (4.0 * vmax))
    m_lo, m_hi, tm = _window(n, pm, log_mass)
    j_lo, j_hi, tj = _window(n, pj, log_mass) if two_d else (0, 0, 0.0)
    best = ((m_lo, m_hi), (j_lo, j_hi), vmax * (tm + tj))
    if m_hi - m_lo + 1 < TILT_FROM:
        return best
    t = tilt()
    if t is None:
        return best
    th, logz, qm, qj = t
    # E[X_+; out] <= M Q(out) / (e theta), M = z^n; per tail Q-mass <= allowed n e theta / (4 M)
    log_factor = n * logz - 1.0 - math.log(th) - math.log(n)  # log(M / (e theta n))
    log_q = math.log(allowed / 4.0) - log_factor
    if log_q >= 0.0:
        return best
    a_lo, a_hi, ta = _window(n, qm, log_q)
    b_lo, b_hi, tb = _window(n, qj, log_q) if two_d else (0, 0, 0.0)
    if (a_hi - a_lo + 1) * (b_hi - b_lo + 1) >= (m_hi - m_lo + 1) * (j_hi - j_lo + 1):
        return best
    return (a_lo, a_hi), (b_lo, b_hi), math.exp(log_factor) * (ta + tb)
