"""Hockey-stick divergence of the shuffle model's dominating pairs.

The pair (Feldman, McMillan, Talwar 2023, Theorem 3.2; main seed paper Theorem 1):
C ~ Bin(n-1, c), A ~ Bin(C, 1/2), and (D1, D2) = (1,0) w.p. p, (0,1) w.p. q,
(0,0) w.p. r = 1 - p - q;  P = (A + D1, C - A + D2), Q = (A + D2, C - A + D1).

* stronger clone reduction with mixture weight a: c = 2a, p = e^eps0 a, q = a;
* clone reduction (FMT 2021, Theorem 3.2): c = e^-eps0, p = e^eps0/(e^eps0+1),
  q = 1/(e^eps0+1), r = 0.

One-dimensional reduction (see shared/NOTES-accounting.md section 2).  With
m = x + y and b(x; m) = C(m, x) 2^-m,

    P(x, y) - e^eps Q(x, y) = b(x; m) (G_m / m) (x - c_m),
    G_m = 2 B_{m-1} (p - q)(1 + e^eps),      B_j = P[C = j],
    c_m = m/2 + h_m,  h_m = tanh(eps/2) / (2(p - q)) * (m (p+q) + r c (n-m)/(1-c)),

so the threshold is linear in m and the positive part is the tail x >= k_m =
floor(c_m) + 1.  With T = P[Bin(m,1/2) >= k], the identity
sum_{x>=k} (x - m/2) b(x; m) = (k/2) b(k; m) gives, exactly,

    D_m = (G_m / m) b(k; m) (k/2 - h_m R_m),      R_m = T / b(k; m),

and delta(eps) = sum_{m=1}^{n} D_m.  Along the path m -> m+1 the ratio R obeys an
affine recurrence (k unchanged: R' = (2(m+1-k) R + k)/(m+1); k+1:
R' = (2R - 1)(k+1)/(m+1)), which is evaluated in blocks between exact anchors by
cumulative sums, so the whole sum is vectorised.  The window of m follows the
requested delta: the mass left out is bounded by a Chernoff bound on C and added.

The derivative d delta / d eps = -e^eps Q(S_eps) (S_eps the positive set) comes
from the same quantities and drives the Newton search in ``search.py``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .binomial import binom_log_tail_bound, binom_logpmf, binom_logpmf_range, half_tail_ratio

# Relative bound on the floating-point error of the float path's window sum
# (measured errors are below 1e-12; see tests/test_divergence.py).  The upper
# bound adds it, the lower bound subtracts it.
FLOAT_REL_ERROR = 1e-10
# The window leaves out at most this fraction of the target delta.
TRUNCATION_FRACTION = 1e-13
_LOG_TINY = math.log(1e-300) + math.log(TRUNCATION_FRACTION)
_MAX_BLOCK = 8192


@dataclass(frozen=True)
class DominatingPair:
    """The two-dimensional pair (P, Q) described in the module docstring.

    Parameters
    ----------
    n : number of users (>= 1).
    c : success probability of C ~ Bin(n-1, c), in (0, 1).
    p, q : probabilities of (D1, D2) = (1, 0) and (0, 1); p > q >= 0.
    r : probability of (0, 0); p + q + r = 1 (passed explicitly so that it keeps
        its digits when it is a small difference, e.g. Collision's (t-2s)/Omega).
    """

    n: int
    c: float
    p: float
    q: float
    r: float

    def __post_init__(self) -> None:
        if isinstance(self.n, bool) or not isinstance(self.n, (int, np.integer)) or self.n < 1:
            raise ValueError(f"n must be an integer >= 1, got {self.n!r}")
        for name in ("c", "p", "q", "r"):
            v = getattr(self, name)
            if not (isinstance(v, (float, int, np.floating)) and math.isfinite(v)):
                raise ValueError(f"{name} must be a finite number, got {v!r}")
        if not 0.0 < self.c < 1.0:
            raise ValueError(f"c must lie in (0, 1), got {self.c!r}")
        if not (0.0 <= self.q < self.p <= 1.0):
            raise ValueError(f"need 0 <= q < p <= 1, got p={self.p!r}, q={self.q!r}")
        if self.r < -1e-12 or abs(self.p + self.q + self.r - 1.0) > 1e-12:
            raise ValueError(f"p + q + r must equal 1 with r >= 0, got p={self.p}, q={self.q}, r={self.r}")
        object.__setattr__(self, "n", int(self.n))
        object.__setattr__(self, "r", max(float(self.r), 0.0))

    @classmethod
    def stronger_clone(cls, n: int, eps0: float, a: float, r: Optional[float] = None) -> "DominatingPair":
        """Pair of the stronger clone reduction with mixture weight ``a`` (Theorem 1).

        ``r`` defaults to 1 - a (1 + e^eps0); pass it when it is known in closed form.
        Requires a (1 + e^eps0) <= 1.
        """
        e = math.exp(eps0)
        if not (0.0 < a and a * (1.0 + e) <= 1.0 + 1e-12):
            raise ValueError(
                f"mixture weight a must satisfy 0 < a <= 1/(e^eps0 + 1) = {1.0 / (1.0 + e):.6g}, got {a!r}"
            )
        if r is None:
            r = 1.0 - a * (1.0 + e)
        return cls(n=n, c=2.0 * a, p=e * a, q=a, r=r)

    @classmethod
    def clone(cls, n: int, eps0: float) -> "DominatingPair":
        """Pair of the clone reduction (Feldman, McMillan, Talwar, FOCS 2021, Theorem 3.2)."""
        return cls(n=n, c=math.exp(-eps0), p=1.0 / (1.0 + math.exp(-eps0)),
                   q=1.0 / (1.0 + math.exp(eps0)), r=0.0)

    @property
    def eps_max(self) -> float:
        """log(p/q): the divergence is 0 for eps >= eps_max (inf when q = 0)."""
        return math.inf if self.q == 0 else math.log(self.p / self.q)


@dataclass(frozen=True)
class DivergenceValue:
    """D_{e^eps}(P || Q) with certified bounds.

    ``upper`` is a certified upper bound (window sum plus floating-point margin plus
    the bound on truncated mass), ``lower`` a certified lower bound (window sum
    minus margin), ``value`` the best estimate (the window sum).  ``slope`` is
    d delta/d eps of the window sum (<= 0).
    """

    eps: float
    value: float
    upper: float
    lower: float
    truncated: float
    slope: float
    window: tuple[int, int]
    method: str


# ----------------------------------------------------------------------------
# Window selection
# ----------------------------------------------------------------------------

def _window(pair: DominatingPair, log_mass: float) -> tuple[int, int, float]:
    """Range [m_lo, m_hi] of m and a bound on the mass of m outside it.

    Chooses the window so that P[C <= m_lo - 1] and P[C >= m_hi] are each at most
    exp(log_mass) by the Chernoff bound; returns the sum of the two bounds.
    """
    n = pair.n
    N = n - 1
    if N == 0:
        return 1, 1, 0.0
    c = pair.c
    mean = N * c

    def chernoff(x: float) -> float:
        # -N KL(x/N || c): a cheap scalar version, used only to place the window;
        # the mass actually left out is bounded below with the accurate kernel.
        if x <= 0.0:
            return N * math.log1p(-c)
        if x >= N:
            return N * math.log(c)
        return -(x * math.log(x / mean) + (N - x) * math.log((N - x) / (N - mean)))

    # right end: smallest integer m_hi >= mean with the bound on P[C >= m_hi] <= exp(log_mass)
    if chernoff(float(N)) > log_mass:
        m_hi = n
    else:
        lo, hi = int(math.floor(mean)), N
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if chernoff(float(mid)) <= log_mass:
                hi = mid
            else:
                lo = mid
        m_hi = min(hi + 1, n)
    # left end: largest m_lo with the bound on P[C <= m_lo - 1] <= exp(log_mass)
    if chernoff(0.0) > log_mass:
        m_lo = 1
    else:
        lo, hi = 0, int(math.ceil(mean))
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if chernoff(float(mid)) <= log_mass:
                lo = mid
            else:
                hi = mid
        m_lo = max(lo, 1)

    def log_upper(m: float) -> float:
        return float(binom_log_tail_bound(np.array([m]), N, c, upper=True)[0])

    def log_lower(m: float) -> float:
        return float(binom_log_tail_bound(np.array([m]), N, c, upper=False)[0])

    trunc = 0.0
    if m_hi < n:
        trunc += math.exp(log_upper(m_hi))
    if m_lo > 1:
        trunc += math.exp(log_lower(m_lo - 1))
    return m_lo, m_hi, trunc


def _h_coefficients(pair: DominatingPair, eps: float) -> tuple[float, float]:
    """h_m = u * m + v with u, v from the module docstring (exact in form)."""
    th = math.tanh(eps / 2.0)
    scale = th / (2.0 * (pair.p - pair.q))
    gamma = pair.r * pair.c / (1.0 - pair.c)
    # h_m = scale * (m (p + q - gamma) + gamma n)
    return scale * (pair.p + pair.q - gamma), scale * gamma * pair.n


# ----------------------------------------------------------------------------
# Float path
# ----------------------------------------------------------------------------

class _FloatWindow:
    """Float-path evaluator for one pair and one window; caches what eps does not change."""

    def __init__(self, pair: DominatingPair, m_lo: int, m_hi: int) -> None:
        self.pair = pair
        n, c = pair.n, pair.c
        self.m = np.arange(m_lo, m_hi + 1, dtype=np.int64)
        self.mf = self.m.astype(np.float64)
        self.logB = binom_logpmf_range(m_lo - 1, m_hi - 1, n - 1, c)  # log B_{m-1}
        self.rho = (n - self.mf) * c / (self.mf * (1.0 - c))  # B_m / B_{m-1}

    def sums(self, eps: float) -> tuple[float, float, float]:
        """(log_scale, sum of D_m, sum of Q(S) over m), both sums scaled by exp(-log_scale)."""
        pair = self.pair
        n, c, p, q, r = pair.n, pair.c, pair.p, pair.q, pair.r
        scale = math.tanh(eps / 2.0) / (2.0 * (p - q))
        gamma = r * c / (1.0 - c)
        m, mf = self.m, self.mf
        h = (scale * (p + q - gamma)) * mf + scale * gamma * n
        k = m // 2 + np.floor(h + 0.5 * (m & 1)).astype(np.int64) + 1
        valid = k <= m
        idx = np.flatnonzero(valid)
        if idx.size == 0:
            return 0.0, 0.0, 0.0
        R, logb = half_tail_ratio_runs(m[idx], k[idx])
        mv, kf, hv = mf[idx], k[idx].astype(np.float64), h[idx]
        logterm = self.logB[idx] + logb
        M = float(np.max(logterm))
        if not math.isfinite(M):
            return 0.0, 0.0, 0.0
        w = np.exp(logterm - M)
        s_fac = np.maximum(0.5 * kf - hv * R, 0.0)
        # (plain multiply-and-sum: BLAS dot spawns threads, which costs more than it
        # saves on a small busy machine)
        sum_d = float(np.sum(w * s_fac / mv)) * 2.0 * (p - q) * (1.0 + math.exp(eps))
        qpos = ((p + q) + r * self.rho[idx]) * R - (p - q) * kf / mv
        sum_q = float(np.sum(w * qpos))
        return M, sum_d, sum_q

    @staticmethod
    def _block(m: np.ndarray, k: np.ndarray) -> int:
        """Anchor spacing of a regular run (see ``_run``)."""
        mf = m.astype(np.float64)
        kf = k.astype(np.float64)
        # Block length from the growth rate KL(k/m || 1/2) of the recurrence's error
        # (largest at an end of the run, as k/m is monotone along it).
        u_end = np.clip(kf[[0, -1]] / mf[[0, -1]], 0.5, 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            kl = np.where(u_end < 1.0, u_end * np.log(2 * u_end) + (1 - u_end) * np.log1p(-u_end) + (1 - u_end) * math.log(2.0), math.log(2.0))
        kl_max = float(np.max(kl))
        L = _MAX_BLOCK if kl_max <= 0 else int(min(_MAX_BLOCK, max(1, math.floor(0.5 / kl_max))))
        return min(L, m.size)

    @staticmethod
    def _run(m: np.ndarray, k: np.ndarray, anchor_values=None) -> tuple[np.ndarray, np.ndarray]:
        """R = T/b and log b along a regular run (m increasing by 1, k by 0 or 1).

        ``anchor_values`` = (R, log b) at the anchors 0, L, 2L, ... (L = ``_block``),
        if already computed (batched over runs by ``half_tail_ratio_runs``).
        """
        V = m.size
        mf = m.astype(np.float64)
        kf = k.astype(np.float64)
        L = _FloatWindow._block(m, k)
        nb = -(-V // L)
        pad = nb * L - V
        anchors = np.arange(nb) * L
        if anchor_values is None:
            logb0 = binom_logpmf(k[anchors], m[anchors], 0.5)
            r0 = half_tail_ratio(k[anchors], m[anchors])
        else:
            r0, logb0 = anchor_values
        if L == 1:
            return r0, logb0
        # Step j: from position j to j+1 (the last position's step is unused).
        m1 = mf[:-1] + 1.0
        k0 = kf[:-1]
        stay = k[1:] == k[:-1]
        num = np.where(stay, m1 - 2.0 * k0, 2.0 * k0 + 1.0 - mf[:-1])
        log_alpha = np.log1p(num / m1)
        beta = np.where(stay, k0, -(k0 + 1.0)) / m1
        log_alpha = np.concatenate((log_alpha, np.zeros(pad + 1))).reshape(nb, L)
        beta = np.concatenate((beta, np.zeros(pad + 1))).reshape(nb, L)
        lam = np.zeros((nb, L))
        np.cumsum(log_alpha[:, :-1], axis=1, out=lam[:, 1:])
        gam = beta[:, :-1] * np.exp(-lam[:, 1:])
        G = np.zeros((nb, L))
        np.cumsum(gam, axis=1, out=G[:, 1:])
        R = np.exp(lam) * (r0[:, None] + G)
        logb = logb0[:, None] - lam
        return R.ravel()[:V], logb.ravel()[:V]


def half_tail_ratio_runs(m: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R = P[Bin(m,1/2) >= k] / P[Bin(m,1/2) = k] and log P[Bin(m,1/2) = k] along a path.

    ``m`` and ``k`` are integer arrays with 0 <= k <= m (any order).  The path is cut
    into runs of consecutive m (m increasing by 1, k by 0 or 1); each run is evaluated
    by the affine recurrences of the module docstring between exact anchors
    (:func:`binomial.half_tail_ratio`); an irregular point is a run of length 1.
    Shared by the pair engine and :mod:`accountant.blanket_exact`.
    """
    m = np.asarray(m, dtype=np.int64)
    k = np.asarray(k, dtype=np.int64)
    R = np.empty(m.size)
    logb = np.empty(m.size)
    if m.size == 0:
        return R, logb
    dk = np.diff(k)
    breaks = np.flatnonzero((np.diff(m) != 1) | (dk < 0) | (dk > 1)) + 1
    bounds = np.concatenate(([0], breaks, [m.size]))
    # anchors of every run evaluated in one batch (the continued fraction's loop
    # then runs once, not once per run)
    plans = []
    for s0, s1 in zip(bounds[:-1], bounds[1:]):
        L = _FloatWindow._block(m[s0:s1], k[s0:s1])
        plans.append((s0, s1, s0 + np.arange(-(-(s1 - s0) // L)) * L))
    pos = np.concatenate([pl[2] for pl in plans])
    r_all = half_tail_ratio(k[pos], m[pos])
    lb_all = binom_logpmf(k[pos], m[pos], 0.5)
    off = 0
    for s0, s1, anc in plans:
        na = anc.size
        R[s0:s1], logb[s0:s1] = _FloatWindow._run(m[s0:s1], k[s0:s1], (r_all[off:off + na], lb_all[off:off + na]))
        off += na
    return R, logb


def _mp_window_sum(pair: DominatingPair, eps: float, m_lo: int, m_hi: int, digits: int):
    """High-precision window sum of D_m and Q(S) with mpmath (returns mpf values).

    Independent of the float path's anchors: binomial probabilities from log-gamma
    at working precision, tails by direct summation re-anchored every 512 steps and
    advanced by the exact recurrences T_{m+1}(k) = T_m(k) + b(k-1; m)/2 and
    T_{m+1}(k+1) = T_m(k) - b(k; m)/2 in between.
    """
    import mpmath  # imported here: only the reference path needs it

    mp = mpmath.mp
    with mpmath.workdps(digits + 30):
        n = pair.n
        c, p, q, r = (mp.mpf(pair.c), mp.mpf(pair.p), mp.mpf(pair.q), mp.mpf(pair.r))
        E = mp.mpf(eps)
        e = mp.exp(E)
        th = mp.tanh(E / 2)
        scale = th / (2 * (p - q))
        gam = r * c / (1 - c)
        N = n - 1
        logc, log1c = mp.log(c), mp.log(1 - c)
        lgN = mp.loggamma(N + 1)
        log2 = mp.log(2)
        total_d = mp.mpf(0)
        total_q = mp.mpf(0)
        prev = None  # (m, k, T)

        def logbin(kk, mm):
            return mp.loggamma(mm + 1) - mp.loggamma(kk + 1) - mp.loggamma(mm - kk + 1) - mm * log2

        def tail_direct(kk, mm):
            eps_rel = mp.mpf(10) ** (-(digits + 25))
            term = mp.exp(logbin(kk, mm))
            s = mp.mpf(0)
            x = kk
            while x <= mm:
                s += term
                if term < eps_rel * s:
                    break
                term = term * (mm - x) / (x + 1)
                x += 1
            return s

        steps = 0
        for m in range(m_lo, m_hi + 1):
            h = scale * (m * (p + q) + gam * (n - m))
            k = int(mp.floor(mp.mpf(m) / 2 + h)) + 1
            if k > m:
                prev = None
                continue
            b = mp.exp(logbin(k, m))
            if prev is not None and prev[0] == m - 1 and k - prev[1] in (0, 1) and steps < 512:
                pm, pk, pT = prev
                if k == pk:
                    T = pT + mp.exp(logbin(pk - 1, pm)) / 2 if pk >= 1 else pT
                else:
                    T = pT - mp.exp(logbin(pk, pm)) / 2
                steps += 1
            else:
                T = tail_direct(k, m)
                steps = 0
            prev = (m, k, T)
            logB = lgN - mp.loggamma(m) - mp.loggamma(N - m + 2) + (m - 1) * logc + (N - m + 1) * log1c
            B = mp.exp(logB)
            S = b * k / 2 - h * T
            total_d += 2 * (p - q) * (1 + e) * B * S / m
            rho = mp.mpf(n - m) * c / (m * (1 - c))
            total_q += B * ((p + q) * T + (q - p) * k * b / m + r * rho * T)
        return total_d, total_q


def hockey_stick_divergence(
    pair: DominatingPair,
    eps: float,
    *,
    method: str = "float",
    digits: int = 50,
    target_delta: Optional[float] = None,
) -> DivergenceValue:
    """D_{e^eps}(P || Q) for a dominating pair, with certified bounds.

    Parameters
    ----------
    pair : the dominating pair.
    eps : eps >= 0.
    method : ``"float"`` (fast, vectorised float64; relative error below 1e-10) or
        ``"mpmath"`` (reference evaluation at ``digits`` significant digits).
    target_delta : if given, the summation window is chosen so that the mass it
        leaves out is at most ``TRUNCATION_FRACTION * target_delta``; otherwise the
        window is chosen adaptively from the computed value.

    Returns
    -------
    DivergenceValue with ``upper`` (a certified upper bound), ``lower`` and ``value``.

    Notes
    -----
    D(P||Q) = D(Q||P) for these pairs (Q(x, y) = P(y, x)), so one direction suffices.
    References: main seed paper, Theorem 1 and Theorem 5; Feldman, McMillan, Talwar
    (SODA 2023), Theorem 3.2.
    """
    if not (isinstance(eps, (int, float, np.floating)) and math.isfinite(eps) and eps >= 0):
        raise ValueError(f"eps must be a finite number >= 0, got {eps!r}")
    if method not in ("float", "mpmath"):
        raise ValueError(f"method must be 'float' or 'mpmath', got {method!r}")
    eps = float(eps)
    if eps >= pair.eps_max:
        return DivergenceValue(eps, 0.0, 0.0, 0.0, 0.0, 0.0, (1, 0), method)

    def evaluate(log_mass: float):
        m_lo, m_hi, trunc = _window(pair, log_mass)
        if method == "float":
            M, sd, sq = _FloatWindow(pair, m_lo, m_hi).sums(eps)
            value = math.exp(M) * sd if sd > 0 else 0.0
            qmass = math.exp(M) * sq if sq > 0 else 0.0
            margin = FLOAT_REL_ERROR
        else:
            sd, sq = _mp_window_sum(pair, eps, m_lo, m_hi, digits)
            value = float(sd)
            qmass = float(sq)
            margin = 10.0 ** (-digits + 1)
        slope = -math.exp(eps) * qmass
        return DivergenceValue(
            eps=eps,
            value=value,
            upper=value * (1.0 + margin) + trunc,
            lower=max(value * (1.0 - margin), 0.0),
            truncated=trunc,
            slope=slope,
            window=(m_lo, m_hi),
            method=method,
        )

    if target_delta is not None:
        log_mass = math.log(TRUNCATION_FRACTION) + math.log(max(target_delta, 1e-300)) - math.log(2.0)
        return evaluate(log_mass)
    first = evaluate(math.log(1e-30))
    if first.value > 0 and first.truncated <= TRUNCATION_FRACTION * first.value:
        return first
    log_mass = math.log(TRUNCATION_FRACTION) + math.log(max(first.value, 1e-300)) - math.log(2.0)
    return evaluate(max(log_mass, _LOG_TINY))


def hockey_stick_bruteforce(pair: DominatingPair, eps: float) -> float:
    """D_{e^eps}(P || Q) by enumerating every (x, y) (small n only; for tests).

    Builds P and Q directly from the definition: sums over C, A and (D1, D2).
    """
    from scipy.stats import binom

    n = pair.n
    if n > 400:
        raise ValueError("brute-force enumeration is for n <= 400")
    P = np.zeros((n + 1, n + 1))
    Q = np.zeros((n + 1, n + 1))
    pc = binom.pmf(np.arange(n), n - 1, pair.c)
    for C in range(n):
        pa = binom.pmf(np.arange(C + 1), C, 0.5)
        for A in range(C + 1):
            w = pc[C] * pa[A]
            x, y = A, C - A
            P[x + 1, y] += w * pair.p
            P[x, y + 1] += w * pair.q
            P[x, y] += w * pair.r
            Q[x, y + 1] += w * pair.p
            Q[x + 1, y] += w * pair.q
            Q[x, y] += w * pair.r
    return float(np.sum(np.maximum(P - math.exp(eps) * Q, 0.0)))
