"""High-precision and certified (ball-arithmetic) window sums of the pair engine.

One walker, ``_walk``, evaluates the window sum of ``divergence.py``

    delta_window(eps) = sum_m 2 (p - q)(1 + e^eps) B_{m-1} (b(k_m; m) k_m / 2 - h_m T_m) / m,
    Q(S)_window       = sum_m B_{m-1} ((p + q) T_m - (p - q) k_m b(k_m; m) / m + r rho_m T_m),

(b(k; m) = C(m, k) 2^-m, T_m = P[Bin(m, 1/2) >= k_m], B_j = P[C = j]; see the module
docstring of ``divergence``) in one of two number systems:

* ``mpmath`` (reference path): mpf numbers at a chosen working precision.  The
  result is computed at two working precisions and the number of agreeing digits
  is reported; a result with fewer than the requested digits raises
  ``ArithmeticError``, so the reference never returns an unchecked number.
* ``arb`` (certified path, python-flint): every anchor (binomial coefficient,
  incomplete beta tail, pmf of C), every recurrence step and every term is a ball
  with a rigorous radius, so the returned interval contains the exact window sum.

Between anchors, b, T and B are advanced by exact recurrences in m
(k unchanged: T' = T + b k / (2 (m + 1 - k)), b' = b (m + 1) / (2 (m + 1 - k));
k -> k + 1: T' = T - b / 2, b' = b (m + 1) / (2 (k + 1)); B_m = B_{m-1} rho_m,
rho_m = (n - m) c / (m (1 - c))).  The subtraction in the k -> k + 1 step loses
about KL(k/m || 1/2) nats of relative accuracy of T per step (T shrinks like
exp(-m KL) while the absolute error does not), so the re-anchoring distance is
chosen from that growth rate: L = guard / max KL over the window, as the float
path does with its block length.  References: Wang et al. (numerical vector analyses), Theorems 1 and 5.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from accountant.engines.pair.law import DominatingPair
from accountant.core.optional import require

_LN10 = math.log(10.0)
# Longest distance between exact anchors (caps the cost of one bad block).
_MAX_STEPS = 4096
# Guard digits of the mpmath reference path: the walk at ``digits + _MP_GUARD`` is
# compared with the walk at ``digits + 2 * _MP_GUARD``.
_MP_GUARD = 20


def _kl_half(u: np.ndarray) -> np.ndarray:
    """KL(u || 1/2) in nats for u in [1/2, 1] (float, used only to size blocks)."""
    u = np.clip(u, 0.5, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(u < 1.0, u * np.log(2 * u) + (1 - u) * np.log(np.maximum(2 * (1 - u), 1e-300)),
                        math.log(2.0))


def block_length(pair: DominatingPair, eps: float, m_lo: int, m_hi: int, guard_digits: float) -> int:
    """Re-anchoring distance that keeps the recurrence's loss below ``guard_digits``.

    The loss over L steps is at most L * max KL(k_m/m || 1/2) nats (see module
    docstring); k_m/m is evaluated in float over the window (only the block size
    depends on it, not the result).
    """
    from accountant.engines.pair.law import h_coefficients

    u_h, v_h = h_coefficients(pair, eps)
    m = np.arange(m_lo, m_hi + 1, dtype=np.float64)
    if m.size == 0:
        return 1
    k = np.floor(m / 2 + u_h * m + v_h) + 1
    kl = float(np.max(_kl_half(np.where(k <= m, k / m, 0.5))))
    if kl <= 0:
        return _MAX_STEPS
    return int(max(1, min(_MAX_STEPS, math.floor(guard_digits * _LN10 / kl))))


class _MpBackend:
    """mpmath numbers; anchors from log-gamma and a direct tail sum."""

    name = "mpmath"

    def __init__(self, dps: int) -> None:
        import mpmath

        self.mpmath = mpmath
        self.mp = mpmath.mp
        self.dps = dps

    def num(self, x):
        return self.mp.mpf(x)

    def exp(self, x):
        return self.mp.exp(x)

    def tanh(self, x):
        return self.mp.tanh(x)

    def floor_int(self, x) -> int:
        return int(self.mp.floor(x))

    def log_b(self, k: int, m: int):
        mp = self.mp
        return mp.loggamma(m + 1) - mp.loggamma(k + 1) - mp.loggamma(m - k + 1) - m * mp.log(2)

    def anchor_half(self, k: int, m: int):
        """(b(k; m), P[Bin(m, 1/2) >= k]) by direct summation from x = k up."""
        mp = self.mp
        b = mp.exp(self.log_b(k, m))
        tol = mp.mpf(10) ** (-(self.dps + 5))
        s, term, x = mp.mpf(0), b, k
        while x <= m:
            s += term
            if term < tol * s:
                break
            term = term * (m - x) / (x + 1)
            x += 1
        return b, s

    def anchor_c(self, j: int, N: int, c):
        mp = self.mp
        return mp.exp(mp.loggamma(N + 1) - mp.loggamma(j + 1) - mp.loggamma(N - j + 1)
                      + j * mp.log(c) + (N - j) * mp.log(1 - c))


class _ArbBackend:
    """python-flint balls; anchors by rigorous binomials and incomplete beta."""

    name = "arb"

    def __init__(self) -> None:
        flint = require("flint", "method 'arb' (certified ball arithmetic)")

        self.flint = flint
        self.arb = flint.arb

    def num(self, x):
        return self.arb(x)

    def exp(self, x):
        return self.arb(x).exp()

    def tanh(self, x):
        return self.arb(x).tanh()

    def floor_int(self, x) -> int:
        f = x.floor().unique_fmpz()
        if f is None:
            raise ArithmeticError("threshold k_m undecided at this precision; raise the precision")
        return int(f)

    def anchor_half(self, k: int, m: int):
        arb = self.arb
        b = arb.bin_uiui(m, k) * arb(2) ** (-m)
        T = arb(0.5).beta_lower(k, m - k + 1, 1) if k >= 1 else arb(1)
        return b, T

    def anchor_c(self, j: int, N: int, c):
        arb = self.arb
        return arb.bin_uiui(N, j) * c ** j * (1 - c) ** (N - j)


def _thresholds(pair: DominatingPair, eps: float, m_lo: int, m_hi: int, be, u_h, v_h) -> np.ndarray:
    """k_m = floor(m/2 + h_m) + 1 for the window: in float64 where m/2 + h_m is farther
    from an integer than a bound on the float error (a few ulps of each of the three
    terms, bounded by 1e-12 (m + 1)), in the backend's arithmetic elsewhere."""
    from accountant.engines.pair.law import h_coefficients

    uf, vf = h_coefficients(pair, eps)
    m = np.arange(m_lo, m_hi + 1, dtype=np.int64)
    x = m / 2.0 + (uf * m + vf)
    fl = np.floor(x)
    tol = 1e-12 * (m + 1.0 + abs(vf))
    near = (x - fl < tol) | (fl + 1.0 - x < tol)
    k = fl.astype(np.int64) + 1
    for i in np.flatnonzero(near):
        mm = int(m[i])
        k[i] = be.floor_int(u_h * mm + v_h + be.num(mm) / 2) + 1
    return k


def _walk(pair: DominatingPair, eps: float, m_lo: int, m_hi: int, be, steps: int):
    """Window sums (delta, Q(S)) in the backend's number system (see module docstring)."""
    n, N = pair.n, pair.n - 1
    c, p, q, r = (be.num(pair.c), be.num(pair.p), be.num(pair.q), be.num(pair.r))
    e = be.exp(eps)
    scale = be.tanh(be.num(eps) / 2) / (2 * (p - q))
    gam = r * c / (1 - c)
    u_h, v_h = scale * (p + q - gam), scale * gam * n
    odds = c / (1 - c)
    ks = _thresholds(pair, eps, m_lo, m_hi, be, u_h, v_h).tolist()
    # accumulated: sum_d = sum B_{m-1}/m (k b - 2 h T);  sum_q = sum B_{m-1} (s T - (p-q) k b / m)
    # with s = p + q + r rho_m; delta = (p - q)(1 + e^eps) sum_d.
    pq, pmq = p + q, p - q
    sum_d, sum_q = be.num(0), be.num(0)
    prev = None  # (m, k, b, T, since_anchor)
    B_m = None  # (m - 1, B_{m-1}) carried from the previous step
    for m, k in zip(range(m_lo, m_hi + 1), ks):
        if k > m:
            prev = None
            continue
        if B_m is not None and B_m[0] == m - 1:
            B = B_m[1]
        else:
            B = be.anchor_c(m - 1, N, c)
        if prev is not None and prev[0] == m - 1 and k - prev[1] in (0, 1) and prev[4] < steps:
            pm, pk, pb, pT, since = prev
            if k == pk:
                t = pb / (2 * (m - pk))
                T = pT + t * pk
                b = t * m
            else:
                T = pT - pb / 2
                b = pb * m / (2 * k)
            since += 1
        else:
            b, T = be.anchor_half(k, m)
            since = 0
        prev = (m, k, b, T, since)
        rho = odds * (n - m) / m
        w = B / m
        kb = b * k
        sum_d += w * (kb - 2 * (u_h * m + v_h) * T)
        sum_q += B * ((pq + r * rho) * T) - pmq * w * kb
        B_m = (m, B * rho)
    return pmq * (1 + e) * sum_d, sum_q


@dataclass(frozen=True)
class HighPrecisionSum:
    """Window sum at high precision.

    d, qmass : the sums (mpf for mpmath, arb balls for arb).
    digits : significant digits certified (arb: from the ball radius) or agreed
        between two working precisions (mpmath).
    """

    d: object
    qmass: object
    digits: float
    method: str


def _agreed_digits(a, b, mp) -> float:
    if a == b:
        return math.inf
    if b == 0:
        return 0.0
    return float(-mp.log10(abs(a - b) / abs(b)))


def mp_window_sum(pair: DominatingPair, eps: float, m_lo: int, m_hi: int, digits: int = 30,
                  check: bool = True) -> HighPrecisionSum:
    """mpmath window sum verified at two working precisions.

    Raises ``ArithmeticError`` when the two evaluations agree to fewer than
    ``digits`` significant digits (the reference never returns an unchecked number).
    """
    import mpmath

    if not (isinstance(digits, int) and 5 <= digits <= 1000):
        raise ValueError(f"digits must be an integer in [5, 1000], got {digits!r}")
    L = block_length(pair, eps, m_lo, m_hi, _MP_GUARD - 5)
    results = []
    for dps in ((digits + _MP_GUARD, digits + 2 * _MP_GUARD) if check else (digits + _MP_GUARD,)):
        with mpmath.workdps(dps):
            results.append(_walk(pair, eps, m_lo, m_hi, _MpBackend(dps), L))
    if not check:
        return HighPrecisionSum(results[0][0], results[0][1], float("nan"), "mpmath")
    (d1, q1), (d2, q2) = results
    with mpmath.workdps(digits + 2 * _MP_GUARD):
        agreed = min(_agreed_digits(d1, d2, mpmath.mp), _agreed_digits(q1, q2, mpmath.mp))
    if agreed < digits:
        raise ArithmeticError(
            f"mpmath window sum certified only {agreed:.1f} of {digits} digits (m in [{m_lo}, {m_hi}])"
        )
    return HighPrecisionSum(d2, q2, agreed, "mpmath")


def arb_window_sum(pair: DominatingPair, eps: float, m_lo: int, m_hi: int, digits: int = 30
                   ) -> HighPrecisionSum:
    """Ball-arithmetic window sum: balls that contain the exact window sums."""
    flint = require("flint", "method 'arb' (certified ball arithmetic)")

    if not (isinstance(digits, int) and 5 <= digits <= 1000):
        raise ValueError(f"digits must be an integer in [5, 1000], got {digits!r}")
    L = block_length(pair, eps, m_lo, m_hi, _MP_GUARD - 5)
    old = flint.ctx.prec
    flint.ctx.prec = int((digits + _MP_GUARD) * 3.33) + 16
    try:
        d, qm = _walk(pair, eps, m_lo, m_hi, _ArbBackend(), L)
    finally:
        flint.ctx.prec = old
    return HighPrecisionSum(d, qm, arb_digits(d), "arb")


def arb_digits(x) -> float:
    """Significant digits certified by a ball (inf for an exact ball, 0 if it contains 0)."""
    if x.rad() == 0:
        return math.inf
    if x.contains(0):
        return 0.0
    return float(-((x.rad() / abs(x.mid())).log()).mid()) / _LN10


def arb_log_bounds(x) -> tuple[float, float]:
    """(lower, upper) float bounds on log(x) for a ball x >= 0 (-inf if it may be 0)."""
    import flint

    arb = flint.arb
    lo_end, hi_end = arb(x.lower()), arb(x.upper())
    up = hi_end.log()
    upper = math.nextafter(float(up.upper()), math.inf) if hi_end > 0 else -math.inf
    if lo_end > 0:
        lower = math.nextafter(float(lo_end.log().lower()), -math.inf)
    else:
        lower = -math.inf
    return lower, upper


def arb_log_trunc(pair: DominatingPair, m_lo: int, m_hi: int):
    """Rigorous upper bound (arb ball whose upper end is the bound) on the mass of C
    outside [m_lo - 1, m_hi - 1], i.e. on P[C <= m_lo - 2] + P[C >= m_hi], by the
    Chernoff bound -N KL(x/N || c), evaluated in ball arithmetic; returns the log.

    Returns None when nothing is left out.
    """
    import flint

    arb = flint.arb
    N, c = pair.n - 1, arb(pair.c)

    def log_chernoff(x: int, upper: bool):
        # log P[C >= x] <= -N KL(x/N || c) for x >= N c; log P[C <= x] likewise for
        # x <= N c; the trivial bound 0 on the wrong side of the mean.
        xa, Na = arb(x), arb(N)
        if (upper and not xa > Na * c) or (not upper and not xa < Na * c):
            return arb(0)
        if x == N:
            return Na * c.log()
        if x == 0:
            return Na * (1 - c).log()
        return -(xa * (xa / (Na * c)).log() + (Na - xa) * ((Na - xa) / (Na * (1 - c))).log())

    parts = []
    if m_hi < pair.n:
        parts.append(log_chernoff(m_hi, True))
    if m_lo > 1:
        parts.append(log_chernoff(m_lo - 1, False))
    parts = [x for x in parts if x is not None]
    if not parts:
        return None
    tot = sum((x.exp() for x in parts), arb(0))
    return tot.log()
