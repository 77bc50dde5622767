"""Saddle-point estimates of E[(Z_1 + ... + Z_n)_+] for i.i.d. Z with finitely many atoms.

Not certified: these numbers only give the monotone searches (:mod:`accountant.engines.search`) a
starting point close enough that one evaluation of the certified engine usually settles
eps_c.  Both engines' divergences have this form: the exact blanket
(:mod:`accountant.engines.blanket`, delta = E[S_+] / n) and the dominating pair
(:mod:`accountant.engines.pair`; folding C ~ Bin(n - 1, c) into Bin(n, c) by size bias,
delta = 2 (p - q)(1 + e^eps) / (n c) E[S_+] with Z = 1/2 - a, -1/2 - a w.p. c/2 each and
-b w.p. 1 - c, see :func:`accountant.bounds.pair_accountant.saddle_guess`).

With theta the minimiser of m(theta) = E e^{theta Z}, E[S_+] = m^n E_Q[S_+ e^{-theta S}] for
the tilted law Q, under which S has mean 0, variance sigma^2 = n k2 and third cumulant n k3;
an Edgeworth term on the normal density gives
E_Q[S_+ e^{-theta S}] ~ sigma (J1(a) + g/6 (J4(a) - 3 J2(a))), a = theta sigma,
g = n k3 / sigma^3, J_k(a) = int_0^inf y^k e^{-a y} phi(y) dy.
"""
from __future__ import annotations

import math
from typing import Optional, Sequence

from scipy import special

from accountant.engines.search import bisect

_PHI0 = 1.0 / math.sqrt(2.0 * math.pi)


def bracketed_newton(derivs, lo: float, hi: float, rtol: float, iterations: int) -> float:
    """theta in ``(lo, hi)`` near the root of an increasing derivative (``derivs(theta)`` gives it
    and its own derivative): Newton steps, a bisection step where one leaves the bracket, stop at
    ``rtol`` relative or after ``iterations`` (the bounds that use theta hold for any theta > 0)."""
    th = 0.5 * (lo + hi)
    for _ in range(iterations):
        d1, d2 = derivs(th)
        if d1 < 0.0:
            lo = th
        else:
            hi = th
        nxt = th - d1 / d2 if d2 > 0 else 0.5 * (lo + hi)
        if not lo < nxt < hi:
            nxt = 0.5 * (lo + hi)
        if abs(nxt - th) <= rtol * th:
            return nxt
        th = nxt
    return th


def mgf_minimiser(p, vv, newton: bool = False) -> float:
    """theta > 0 within 1e-9 relative of the minimiser of sum_c p_c e^{theta v_c} (bisection on
    its increasing derivative; with ``newton``, safeguarded Newton steps to 1e-12, about 6
    instead of 30 evaluations); needs sum_c p_c v_c < 0 < max v_c."""
    cap = 700.0 / max(abs(x) for x in vv)

    def slope(th: float) -> float:  # d/d theta of sum_c p_c e^{theta v_c}, increasing
        return sum(a * b * math.exp(th * b) for a, b in zip(p, vv))

    lo, hi = 0.0, min(1.0 / max(vv), cap)
    while slope(hi) < 0.0 and hi < cap:
        lo, hi = hi, min(2.0 * hi, cap)
    if newton:
        return bracketed_newton(lambda th: (slope(th), sum(a * b * b * math.exp(th * b) for a, b in zip(p, vv))),
                                lo, hi, 1e-12, 100)
    # bisection to 1e-9 relative, at most 200 steps (any theta > 0 gives a valid bound)
    return bisect(lambda th: not slope(th) < 0.0, hi, lo, rtol=1e-9, max_evaluations=200).x


def laplace_moments(a: float) -> tuple[float, float, float]:
    """(J1, J2, J4) with J_k(a) = int_0^inf y^k e^{-a y} phi(y) dy, a > 0 (phi the standard
    normal density): J0 = e^{a^2/2} P[Z > a], J1 = phi(0) - a J0, J_{k+1} = k J_{k-1} - a J_k;
    for a > 30 the asymptotic series J_k ~ phi(0) sum_i (-1)^i (k + 2i)! / (2^i i! a^{k+2i+1})
    (8 terms) avoids the recursion's cancellation."""
    if a > 30.0:
        def series(k: int) -> float:
            return _PHI0 * sum((-1) ** i * math.factorial(k + 2 * i)
                               / (2 ** i * math.factorial(i) * a ** (k + 2 * i + 1)) for i in range(8))
        return series(1), series(2), series(4)
    J = [0.5 * float(special.erfcx(a / math.sqrt(2.0)))]
    J.append(_PHI0 - a * J[0])
    for k in range(1, 4):
        J.append(k * J[k - 1] - a * J[k])
    return J[1], J[2], J[4]


def log_positive_part(p: Sequence[float], v: Sequence[float], n: int) -> Optional[float]:
    """Saddle-point estimate of log E[(Z_1 + ... + Z_n)_+], P[Z = v_c] = p_c (the rest of the
    mass at 0).  ``-inf`` when no v_c > 0 has p_c > 0, None when E Z >= 0 (no estimate)."""
    cats = [(float(pc), float(vc)) for pc, vc in zip(p, v) if pc > 0.0 and vc != 0.0]
    if not any(vc > 0.0 for _, vc in cats):
        return -math.inf
    if sum(pc * vc for pc, vc in cats) >= 0.0:
        return None
    try:
        return _log_positive_part(cats, n)
    except (OverflowError, ZeroDivisionError, ValueError):
        return None  # extreme atoms (a minimiser at the exponent cap): no estimate


def _log_positive_part(cats, n: int) -> Optional[float]:
    vmax = max(abs(vc) for _, vc in cats)
    th = mgf_minimiser(tuple(pc for pc, _ in cats), tuple(vc for _, vc in cats), newton=True)
    if th * vmax >= 699.0:
        return None
    z1 = math.fsum(a * math.expm1(th * b) for a, b in cats)  # m(theta) - 1
    z = 1.0 + z1
    k2 = sum(a * math.exp(th * b) * b * b for a, b in cats) / z
    k3 = sum(a * math.exp(th * b) * b ** 3 for a, b in cats) / z
    sigma = math.sqrt(n * k2)
    J1, J2, J4 = laplace_moments(th * sigma)
    val = J1 + (n * k3 / sigma ** 3) / 6.0 * (J4 - 3.0 * J2)
    if not val > 0.0:  # the Edgeworth term overshoots (tiny n): the normal term alone
        val = J1
    if not (val > 0.0 and z > 0.0):
        return None
    return n * math.log1p(z1) + math.log(sigma) + math.log(val)


def root_of_decreasing(f, log_target: float, hi: float, rtol: float = 1e-10) -> Optional[float]:
    """x in (0, hi) where an estimate f(x) of log delta, non-increasing in x, crosses
    ``log_target``: regula falsi (Illinois) on g = sqrt(-2 f), nearly linear in x for
    Gaussian-like tails, until g is within ``rtol`` of its target (about 8 evaluations of f);
    bisection while an end is infinite.  f(x) None counts as above the target.  None when f
    is at or below the target already at 0, or nowhere below it before ``hi``."""
    gt = math.sqrt(-2.0 * log_target)

    def g(x: float) -> float:
        fx = f(x)
        if fx is None:
            return 0.0
        return math.inf if fx == -math.inf else math.sqrt(max(-2.0 * fx, 0.0))

    lo, glo = 0.0, g(0.0)
    if glo >= gt:
        return None
    top, ghi = hi, math.inf
    wlo = whi = 1.0  # Illinois weights on the ends' residuals
    side = 0
    for _ in range(200):
        if hi - lo <= 1e-15 * hi:
            break
        if math.isfinite(ghi):
            rl, rh = wlo * (glo - gt), whi * (ghi - gt)
            x = lo + (hi - lo) * rl / (rl - rh)
            if not lo < x < hi:
                x = 0.5 * (lo + hi)
        else:
            x = 0.5 * (lo + hi)
        gx = g(x)
        if abs(gx - gt) <= rtol * gt:
            return x
        if gx < gt:
            lo, glo = x, gx
            whi = 0.5 * whi if side == -1 else 1.0
            wlo, side = 1.0, -1
        else:
            hi, ghi = x, gx
            wlo = 0.5 * wlo if side == 1 else 1.0
            whi, side = 1.0, 1
    return None if hi == top else hi
