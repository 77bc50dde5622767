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

Three evaluations of the window sum: ``float`` (this module), ``mpmath`` (reference,
checked at two precisions) and ``arb`` (certified balls), see ``precision.py``; all
report log(delta) so that values below 1e-308 are available.

The derivative d delta / d eps = -e^eps Q(S_eps) (S_eps the positive set) comes
from the same quantities and drives the Newton search in ``search.py``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from . import parallel as _parallel
from .optional import require
from .binomial import binom_log_tail_bound, binom_logpmf, binom_logpmf_range, half_tail_ratio

# Relative bound on the floating-point error of the float path's window sum
# (measured errors are below 1e-12; see tests/test_divergence.py).  The upper
# bound adds it, the lower bound subtracts it.
FLOAT_REL_ERROR = 1e-10
# Relative bound on the error of the float path's log(delta) (from the log scale M
# and exp/log of numbers of size |log delta|: a few hundred ulps of |log delta|).
# Added to FLOAT_REL_ERROR on the log scale; it matters only far below the float
# range (at log delta ~ -3.6e5 the measured error is 1.3e-10, about 3.6e-16 |log delta|;
# tests/test_precision.py checks both margins against arb over a grid).
FLOAT_LOG_REL_ERROR = 1e-13
# The window leaves out at most this fraction of the target delta.
TRUNCATION_FRACTION = 1e-13
_LOG_TINY = math.log(1e-300) + math.log(TRUNCATION_FRACTION)  # used when delta = 0
_MAX_BLOCK = 8192
# Cost model of the window sum: at most this many terms of m (about 200 bytes each on the
# float path, so ~0.1 GB; ~0.3 s an evaluation); a longer window is narrowed and its extra left-out mass added to
# the upper end (a looser but still proved bound), see ``_window_log``.
MAX_WINDOW_TERMS = 500_000
# float-path windows with at least this many terms are split across threads
_SPLIT_TERMS = 8192


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

    @classmethod
    def clone_pq(cls, n: int, p: float, q: float) -> "DominatingPair":
        """Clone pair with the first user's ratio ``p`` and mixing probability ``c = 1/q``
        (every other user is a clone of x1 or x1' w.p. 1/(2q) each; FMT21 Section 3, valid when
        R(x) >= (R(x1) + R(x1'))/(2q) for every other input x).  ``clone(n, eps0)`` is
        ``clone_pq(n, e^eps0, e^eps0)``."""
        if not (p > 1.0 and q > 1.0 and math.isfinite(p) and math.isfinite(q)):
            raise ValueError(f"p and q must be finite numbers > 1, got p={p!r}, q={q!r}")
        return cls(n=n, c=1.0 / q, p=p / (1.0 + p), q=1.0 / (1.0 + p), r=0.0)

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
    d delta/d eps of the window sum (<= 0).  The ``log_*`` fields are the natural
    logs of the same quantities (-inf for 0); they stay finite when delta is below
    the float range (~1e-308), where ``value``/``upper``/``lower`` underflow (upper
    is then the smallest positive float, still an upper bound).  ``log_slope`` is
    d log(delta)/d eps of the window sum; ``digits`` the significant digits of the
    window sum certified (arb) or agreed at two precisions (mpmath), None for float.
    """

    eps: float
    value: float
    upper: float
    lower: float
    truncated: float
    slope: float
    window: tuple[int, int]
    method: str
    log_value: float = -math.inf
    log_upper: float = -math.inf
    log_lower: float = -math.inf
    log_truncated: float = -math.inf
    log_slope: float = 0.0
    digits: Optional[float] = None


# ----------------------------------------------------------------------------
# Window selection
# ----------------------------------------------------------------------------

def _window_log(pair: DominatingPair, log_mass: float) -> tuple[int, int, float]:
    """Range [m_lo, m_hi] of m and the log of a bound on the mass of m outside it.

    Chooses the window so that P[C <= m_lo - 1] and P[C >= m_hi] are each at most
    exp(log_mass) by the Chernoff bound; returns the log of the sum of the two bounds
    (-inf when nothing is left out), so that bounds below 1e-308 do not underflow.
    """
    n = pair.n
    N = n - 1
    if N == 0:
        return 1, 1, -math.inf
    m_lo, m_hi = _window_ends(pair, log_mass)
    if m_hi - m_lo + 1 > MAX_WINDOW_TERMS:
        # cost model: a window longer than MAX_WINDOW_TERMS (memory ~ 200 bytes a term) is
        # narrowed by raising the left-out mass; what it leaves out is bounded below and
        # added to the upper end, so the result stays a proved (looser) upper bound
        lo_lm, hi_lm = log_mass, 0.0
        for _ in range(200):
            mid = 0.5 * (lo_lm + hi_lm)
            a, b = _window_ends(pair, mid)
            if b - a + 1 > MAX_WINDOW_TERMS:
                lo_lm = mid
            else:
                hi_lm = mid
            if hi_lm - lo_lm <= 1e-9 * max(1.0, abs(hi_lm)):
                break
        m_lo, m_hi = _window_ends(pair, hi_lm)
        if m_hi - m_lo + 1 > MAX_WINDOW_TERMS:  # pragma: no cover - defensive
            mid = (m_lo + m_hi) // 2
            m_lo, m_hi = mid - MAX_WINDOW_TERMS // 2 + 1, mid + MAX_WINDOW_TERMS // 2
    c = pair.c

    def log_upper(m: float) -> float:
        return float(binom_log_tail_bound(np.array([m]), N, c, upper=True)[0])

    def log_lower(m: float) -> float:
        return float(binom_log_tail_bound(np.array([m]), N, c, upper=False)[0])

    log_trunc = -math.inf
    if m_hi < n:
        log_trunc = float(np.logaddexp(log_trunc, log_upper(m_hi)))
    if m_lo > 1:
        log_trunc = float(np.logaddexp(log_trunc, log_lower(m_lo - 1)))
    # logaddexp is accurate to a few ulps; step up so the bound stays a bound
    return m_lo, m_hi, _up(log_trunc)


def _window_ends(pair: DominatingPair, log_mass: float) -> tuple[int, int]:
    """[m_lo, m_hi] placed by the scalar Chernoff bound (see ``_window_log``)."""
    n = pair.n
    N = n - 1
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
    return m_lo, m_hi


def _up(x: float, ulps: int = 4) -> float:
    """x moved up by a few ulps (directed rounding of a computed upper bound)."""
    for _ in range(ulps):
        x = math.nextafter(x, math.inf)
    return x


def _window(pair: DominatingPair, log_mass: float) -> tuple[int, int, float]:
    """As ``_window_log``, with the bound on the left-out mass as a number."""
    m_lo, m_hi, log_trunc = _window_log(pair, log_mass)
    return m_lo, m_hi, math.exp(log_trunc)


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

        def piece(ii: np.ndarray) -> tuple[float, float, float]:
            R, logb = half_tail_ratio_runs(m[ii], k[ii])
            mv, kf, hv = mf[ii], k[ii].astype(np.float64), h[ii]
            logterm = self.logB[ii] + logb
            Mi = float(np.max(logterm))
            if not math.isfinite(Mi):
                return -math.inf, 0.0, 0.0
            w = np.exp(logterm - Mi)
            s_fac = np.maximum(0.5 * kf - hv * R, 0.0)
            # (plain multiply-and-sum: BLAS dot spawns threads, which costs more than it
            # saves on a small busy machine)
            qpos = ((p + q) + r * self.rho[ii]) * R - (p - q) * kf / mv
            return Mi, float(np.sum(w * s_fac / mv)), float(np.sum(w * qpos))

        # a long window is cut into one piece per thread (each piece re-anchors its runs)
        parts = _parallel.threads() if idx.size >= _SPLIT_TERMS else 1
        pieces = _parallel.map_ordered(piece, np.array_split(idx, parts))
        M = max(pm for pm, _, _ in pieces)
        if not math.isfinite(M):
            return 0.0, 0.0, 0.0
        sum_d = sum(d * math.exp(pm - M) for pm, d, _ in pieces if math.isfinite(pm))
        sum_q = sum(qq * math.exp(pm - M) for pm, _, qq in pieces if math.isfinite(pm))
        return M, sum_d * 2.0 * (p - q) * (1.0 + math.exp(eps)), sum_q

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

    Delegates to ``precision.mp_window_sum``: re-anchored at a distance chosen from
    the recurrence's error growth and checked at two working precisions (raises
    ``ArithmeticError`` if fewer than ``digits`` digits agree).
    """
    from .precision import mp_window_sum

    res = mp_window_sum(pair, eps, m_lo, m_hi, digits)
    return res.d, res.qmass


def _float_up(log_x: float) -> float:
    """exp(log_x) rounded up to a representable float (smallest subnormal if it underflows)."""
    if log_x == -math.inf:
        return 0.0
    v = math.exp(log_x)
    return math.nextafter(math.nextafter(v, math.inf), math.inf)


def window_value(pair: DominatingPair, eps: float, m_lo: int, m_hi: int, log_trunc: float,
                 method: str = "float", digits: int = 30, _fw: "Optional[_FloatWindow]" = None
                 ) -> DivergenceValue:
    """Certified bounds from the window sum over [m_lo, m_hi] plus the truncated mass.

    ``log_trunc`` is the log of a bound on the mass left out of the window; -inf asks
    for the window sum alone (a slice, e.g. for tests).  With ``method="arb"`` a finite
    ``log_trunc`` is replaced by the same Chernoff bound evaluated in ball arithmetic.
    """
    if eps >= pair.eps_max:  # delta = 0 exactly (every term is 0, also outside the window)
        return DivergenceValue(eps, 0.0, 0.0, 0.0, 0.0, 0.0, (m_lo, m_hi), method)
    if method == "float":
        fw = _fw if _fw is not None else _FloatWindow(pair, m_lo, m_hi)
        M, sd, sq = fw.sums(eps)
        log_value = M + math.log(sd) if sd > 0 else -math.inf
        log_slope = -math.exp(eps) * sq / sd if sd > 0 else 0.0
        log_err = FLOAT_LOG_REL_ERROR * abs(log_value) if sd > 0 else 0.0
        log_margin = math.log1p(FLOAT_REL_ERROR) + log_err
        direct = (math.exp(M) * sd, FLOAT_REL_ERROR) if sd > 0 else (0.0, 0.0)
        log_lower_w = log_value + math.log1p(-FLOAT_REL_ERROR) - log_err
        log_upper_w = log_value + log_margin
        digits_out = None
    elif method == "mpmath":
        import mpmath

        from .precision import mp_window_sum

        res = mp_window_sum(pair, eps, m_lo, m_hi, digits)
        d, qm = res.d, res.qmass
        if d > 0:
            with mpmath.workdps(digits + 20):
                log_value = float(mpmath.log(d))
                log_slope = float(-mpmath.exp(eps) * qm / d)
            # relative error 10^-digits (checked), plus float rounding of the log
            rel = 10.0 ** (-digits)
            log_upper_w = _up(log_value + rel)
            log_lower_w = -_up(-(log_value - rel))
            direct = (float(d), 10.0 ** (-digits + 1))
        else:
            log_value, log_slope, log_upper_w, log_lower_w = -math.inf, 0.0, -math.inf, -math.inf
            direct = (0.0, 0.0)
        digits_out = res.digits
    elif method == "arb":
        from .precision import arb_log_bounds, arb_log_trunc, arb_window_sum

        res = arb_window_sum(pair, eps, m_lo, m_hi, digits)
        d, qm = res.d, res.qmass
        log_lower_w, log_upper_w = arb_log_bounds(d)
        direct = None
        if d > 0:
            log_value = float(d.log().mid())
            log_slope = float((-(qm / d) * res.d.__class__(eps).exp()).mid())
        else:
            log_value, log_slope = -math.inf, 0.0
        if log_trunc > -math.inf:
            # replace the float Chernoff bound by the same bound in ball arithmetic
            lt = arb_log_trunc(pair, m_lo, m_hi)
            log_trunc = -math.inf if lt is None else _up(float(lt.upper()))
        digits_out = res.digits
    else:
        raise ValueError(f"method must be 'float', 'mpmath' or 'arb', got {method!r}")
    log_upper = _up(float(np.logaddexp(log_upper_w, log_trunc))) if log_trunc > -math.inf else log_upper_w
    value = math.exp(log_value) if log_value > -math.inf else 0.0
    upper = _float_up(log_upper)
    lower = max(math.exp(log_lower_w) * (1.0 - 1e-15), 0.0) if log_lower_w > -math.inf else 0.0
    if direct is not None and direct[0] > 1e-290:
        # in the float range: the same numbers as before the log scale was added
        value, margin = direct
        upper = value * (1.0 + margin) + math.exp(log_trunc)
        lower = max(value * (1.0 - margin), 0.0)
    return DivergenceValue(
        eps=eps,
        value=value,
        upper=upper,
        lower=lower,
        truncated=_float_up(log_trunc),
        slope=log_slope * value,
        window=(m_lo, m_hi),
        method=method,
        log_value=log_value,
        log_upper=log_upper,
        log_lower=log_lower_w,
        log_truncated=log_trunc,
        log_slope=log_slope,
        digits=digits_out,
    )


def hockey_stick_divergence(
    pair: DominatingPair,
    eps: float,
    *,
    method: str = "float",
    digits: int = 30,
    target_delta: Optional[float] = None,
    log_target_delta: Optional[float] = None,
) -> DivergenceValue:
    """D_{e^eps}(P || Q) for a dominating pair, with certified bounds.

    Parameters
    ----------
    pair : the dominating pair.
    eps : eps >= 0.
    method : ``"float"`` (fast, vectorised float64; relative error below 1e-10),
        ``"mpmath"`` (reference evaluation, ``digits`` significant digits checked at
        two working precisions) or ``"arb"`` (certified: ball arithmetic with
        python-flint, the interval [lower, upper] contains the exact divergence).
    target_delta, log_target_delta : if given (at most one), the summation window is
        chosen so that the mass it leaves out is at most ``TRUNCATION_FRACTION`` times
        the target; otherwise the window is chosen adaptively from the computed value.

    Returns
    -------
    DivergenceValue with ``upper`` (a certified upper bound), ``lower`` and ``value``,
    and their logs (``log_upper`` etc.), finite also below the float range.

    Notes
    -----
    D(P||Q) = D(Q||P) for these pairs (Q(x, y) = P(y, x)), so one direction suffices.
    References: main seed paper, Theorem 1 and Theorem 5; Feldman, McMillan, Talwar
    (SODA 2023), Theorem 3.2.
    """
    if not (isinstance(eps, (int, float, np.floating)) and math.isfinite(eps) and eps >= 0):
        raise ValueError(f"eps must be a finite number >= 0, got {eps!r}")
    if method not in ("float", "mpmath", "arb"):
        raise ValueError(f"method must be 'float', 'mpmath' or 'arb', got {method!r}")
    if method == "arb":
        require("flint", "method 'arb' (certified ball arithmetic)")
    if target_delta is not None and log_target_delta is not None:
        raise ValueError("give at most one of target_delta and log_target_delta")
    if target_delta is not None:
        if not (isinstance(target_delta, (int, float, np.floating)) and 0.0 < target_delta < 1.0):
            raise ValueError(f"target_delta must lie in (0, 1), got {target_delta!r}")
        log_target_delta = math.log(target_delta)
    if log_target_delta is not None and not (math.isfinite(log_target_delta) and log_target_delta < 0):
        raise ValueError(f"log_target_delta must be a finite number < 0, got {log_target_delta!r}")
    eps = float(eps)
    if eps >= pair.eps_max:
        return DivergenceValue(eps, 0.0, 0.0, 0.0, 0.0, 0.0, (1, 0), method)

    def evaluate(log_mass: float):
        m_lo, m_hi, log_trunc = _window_log(pair, log_mass)
        return window_value(pair, eps, m_lo, m_hi, log_trunc, method=method, digits=digits)

    if log_target_delta is not None:
        return evaluate(math.log(TRUNCATION_FRACTION) + log_target_delta - math.log(2.0))
    if method != "float":
        # the float path places the window (cheap); the method evaluates that window
        probe = hockey_stick_divergence(pair, eps)
        return window_value(pair, eps, probe.window[0], probe.window[1], probe.log_truncated,
                            method=method, digits=digits)
    first = evaluate(math.log(1e-30))
    if first.log_value > -math.inf and (
            first.log_truncated <= math.log(TRUNCATION_FRACTION) + first.log_value):
        return first
    log_mass = math.log(TRUNCATION_FRACTION) + first.log_value - math.log(2.0)
    if not math.isfinite(log_mass):
        log_mass = _LOG_TINY
    return evaluate(log_mass)


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
