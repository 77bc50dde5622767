r"""Exact privacy-blanket divergence: delta(eps) = E[(v1 N1 + v2 N2 + v3 N3)_+] / n.

Privacy blanket (Balle, Bell, Gascon, Nissim, CRYPTO 2019, Lemma 5.3 / Theorem 3.1;
optimal among decomposition-based bounds by Su, Cheng, Wang, S&P 2026).  If every
local output law is R(x) = (1 - gamma) LO(x) + gamma omega, then with
B ~ Bin(n - 1, gamma) blanket users the hockey-stick divergence of the shuffled
multisets {Y1, W_1..W_B} vs {Y1', W_1..W_B} (W ~ omega) is exactly
(1/(B+1)) E[(sum_{i <= B+1} L_i)_+] with L = (mu_x1(W) - e^eps mu_x1'(W)) / omega(W),
and, since B + 1 ~ Bin(n, gamma) size-biased,

    delta(eps) <= E_B[...] = (1/(gamma n)) E_{M ~ Bin(n, gamma)} E[(sum_{i <= M} L_i)_+].

For Collision / CoCo / k-RR the worst case is a law of L with at most three non-zero
atoms (per hash function the output vector is majorised by the collision-free one, so
L is a mean-preserving contraction of the "clean" law; sums of i.i.d. variables keep
the convex order and (.)_+ is convex).  Folding Bin(n, gamma) into a multinomial,

    delta(eps) = F / n,   F = E[(v1 N1 + v2 N2 + v3 N3)_+],
    (N0, N1, N2, N3) ~ Multinomial(n; 1 - 2 p12 - p3, p12, p12, p3),
    v_c = a_c - u b_c,   u = e^eps,

taken here as data (``CountLaw``): the blanket instances below, and lower bounds of
the real mechanisms (p0 = 0, a_c = P_x1(c)/P_x0(c), b_c = P_x1'(c)/P_x0(c)).
Check: n = 1 gives F = p12 v1 + p12 (v2)_+ + p3 (v3)_+, for the blanket
(E - u)/Omega, the local hockey-stick divergence.

Instances (E = e^eps0, Omega = s E + t - s):

* Collision / CoCo, t >= 2s: p12 = s/Omega, p3 = (t - 2s)/Omega, a = (E, 1, 1), b = (1, E, 1);
* Collision, s < t < 2s: j0 = 2s - t, p12 = (s - j0)/Omega, p3 = j0/Omega, a = (E, 1, E), b = (1, E, E);
* k-ary randomized response: s = 1, t = k.

Evaluation.  Condition on m = N1 + N2 ~ Bin(n, 2 p12) and N3 = j; then
N1 ~ Bin(m, 1/2) and N3 ~ Bin(n - m, p'), p' = p3 / (1 - 2 p12), independently.  With
d = v1 - v2 > 0 (swap 1 and 2 otherwise), X = d (N1 - c), c = alpha m + beta j,
alpha = -v2/d, beta = -v3/d, and with k = floor(c) + 1, T = P[N1 >= k], b = P[N1 = k],

    g_m(j) = E[X_+ | m, j] = d ((k/2) b + (m/2 - c) T)          (c >= m/2),
    g_m(j) = d ((m/2 - c) + E[(N1 - (m - c))_+])                 (c < m/2, by symmetry),

convex and piecewise linear in j with slope -d beta P[N1 > c].  Along m at fixed j the
threshold is linear in m, so T/b follows the pair engine's recurrences
(:func:`divergence.half_tail_ratio_runs`).

* ``exact``: sum every (m, j) of the windows.
* ``binned``: cut the j-window into bins on a grid fixed across m; on a bin, convexity
  gives the chord (Edmundson-Madansky) upper bound and the tangent (subgradient) lower
  bound, both needing only P(bin | m) and E[N3; bin | m], which follow along m from
  F_{N'-1}(j) = F_{N'}(j) + p' P[Bin(N'-1, p') = j] (N' = n - m) between exact
  anchors (incomplete beta), and E[N3; N3 <= j] = N' p' F_{N'}(j) - p' (N' - j) P[Bin(N', p') = j].
  Bins are doubled until the gap is below ``BIN_GAP`` of the value.

Windows in m and j leave out at most ``TRUNCATION`` of the target, bounded in one of two
ways and added to the upper end (the narrower pair of windows is used):

* crude: X_+ <= n max(v_c)_+, so the left-out mass (Chernoff bounds on the binomial
  marginals of m and N3) times max(v_c)_+;
* tilted: x_+ <= e^{theta x} / (e theta) for every theta > 0, so for any set A of counts
  E[X_+; A] <= M(theta) Q(A) / (e theta), M(theta) = (sum_c p_c e^{theta v_c})^n and Q
  the multinomial with probabilities p_c e^{theta v_c} / M(theta)^{1/n} (exponential
  tilting); with theta the minimiser of M, M is within a small factor of n delta, so the
  windows only need Q-mass ~ TRUNCATION out, not ~ TRUNCATION delta: about 6 instead of
  10 standard deviations each side at n = 1e10, delta = 1e-10.

A relative float margin ``FLOAT_REL_ERROR``
(checked against a 50-digit mpmath evaluation in the tests) is added / subtracted.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

import numpy as np
from scipy import special

from . import parallel as _parallel
from .binomial import binom_log_tail_bound, binom_logpmf, binom_logpmf_range
from .divergence import half_tail_ratio_runs
from .saddle import log_positive_part, mgf_minimiser, root_of_decreasing
from .search import epsilon_for_delta

# Relative float error margin of the float paths.  The upper-tail form
# (k/2) b + (m/2 - c) T cancels by a factor ~ sqrt(m); measured errors against
# mpmath are below 1e-12 for n <= 1e5 (tests/test_blanket_exact.py); the margin
# grows with sqrt(n) to cover the cancellation at larger n.
FLOAT_REL_ERROR = 1e-10
# The binned path refines its bins until (upper - lower) <= BIN_GAP * max(upper, target).
BIN_GAP = 1e-5
MAX_BINS = 4096
EXACT_MAX_TERMS = 20_000
# Cost model of the binned path.  One chunk holds at most MAX_CHUNK_CELLS (bin, m) cells
# (some 40 float arrays of that size were measured: ~0.2 GB per thread at 2^19); the bins are
# refined only while bins x m-window stays within MAX_BINNED_CELLS (time: 1e7 cells about
# 4-8 s an evaluation here; measured at n = 1e5, eps0 = 4, delta = 1e-300: 1.9 GB and 35 s
# per bound before these caps, 0.5 GB and 17 s after, the same eps).
# A bracket still wider than BIN_GAP then is kept as it is: its upper end is proved, only
# looser (the search's answer is a slightly larger, still certified, eps).
MAX_CHUNK_CELLS = 1 << 19
MAX_BINNED_CELLS = 10**7
_CHUNK = 1 << 15
# m-windows from this size on are split into chunks run on threads (accountant.parallel)
_MIN_SPLIT = 4096
_BLOCK = 256
# fraction of the target delta that the windows may leave out (bounded and added to the
# upper end); far below BIN_GAP, so it costs nothing visible in eps
TRUNCATION = 1e-8
# the tilted bound is tried when the crude m-window holds at least this many values
# (below, windows are cheap and the crude ones are cached across eps)
_TILT_FROM = 1 << 15


@dataclass(frozen=True)
class CountLaw:
    """Law of the counts and the coefficients of delta(eps) = E[(sum_c v_c N_c)_+]/n.

    Parameters
    ----------
    p12 : probability of category 1 and of category 2, in (0, 1/2].
    p3 : probability of category 3, >= 0, with 2 p12 + p3 <= 1 (p0 = 1 - 2 p12 - p3).
    a, b : non-negative triples; v_c = a_c - e^eps b_c.
    """

    p12: float
    p3: float
    a: tuple
    b: tuple

    def __post_init__(self) -> None:
        for name in ("p12", "p3"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float, np.floating)) and math.isfinite(v)):
                raise ValueError(f"{name} must be a finite number, got {v!r}")
        if not 0.0 < self.p12 <= 0.5:
            raise ValueError(f"p12 must lie in (0, 1/2], got {self.p12!r}")
        if not 0.0 <= self.p3 <= 1.0:
            raise ValueError(f"p3 must lie in [0, 1], got {self.p3!r}")
        if 2.0 * self.p12 + self.p3 > 1.0 + 1e-12:
            raise ValueError(f"need 2 p12 + p3 <= 1, got p12={self.p12!r}, p3={self.p3!r}")
        for name in ("a", "b"):
            v = getattr(self, name)
            try:
                t = tuple(float(x) for x in v)
            except TypeError:
                raise ValueError(f"{name} must be a triple of numbers >= 0, got {v!r}") from None
            if len(t) != 3 or not all(math.isfinite(x) and x >= 0.0 for x in t):
                raise ValueError(f"{name} must be a triple of finite numbers >= 0, got {v!r}")
            object.__setattr__(self, name, t)
        object.__setattr__(self, "p12", float(self.p12))
        object.__setattr__(self, "p3", float(self.p3))

    @classmethod
    def collision_blanket(cls, eps0: float, s: int, t: int) -> "CountLaw":
        """Privacy blanket of Collision (and CoCo, same Omega) with parameters (s, t), t >= s + 1."""
        if not (isinstance(eps0, (int, float, np.floating)) and math.isfinite(eps0) and eps0 > 0):
            raise ValueError(f"eps0 must be a finite number > 0, got {eps0!r}")
        for name, v in (("s", s), ("t", t)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
        if t < s + 1:
            raise ValueError(f"t must be >= s + 1, got s={s}, t={t}")
        E = math.exp(eps0)
        omega = s * E + (t - s)
        if t >= 2 * s:
            return cls(s / omega, (t - 2 * s) / omega, (E, 1.0, 1.0), (1.0, E, 1.0))
        j0 = 2 * s - t
        return cls((s - j0) / omega, j0 / omega, (E, 1.0, E), (1.0, E, E))

    @classmethod
    def krr_blanket(cls, eps0: float, k: int) -> "CountLaw":
        """Privacy blanket of k-ary randomized response (k >= 2): Collision with s = 1, t = k."""
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
            raise ValueError(f"k must be an integer >= 2, got {k!r}")
        return cls.collision_blanket(eps0, 1, int(k))

    @property
    def p_prime(self) -> float:
        """P[category 3 | not category 1 or 2] = p3 / (1 - 2 p12)."""
        rest = 1.0 - 2.0 * self.p12
        if rest <= 0.0:
            return 0.0
        return min(self.p3 / rest, 1.0)

    @property
    def eps_max(self) -> float:
        """Smallest eps with every v_c <= 0 on a category of positive probability (delta = 0 there)."""
        cats = [0, 1] + ([2] if self.p3 > 0 else [])
        out = 0.0
        for c in cats:
            if self.a[c] > 0:
                if self.b[c] == 0:
                    return math.inf
                out = max(out, math.log(self.a[c] / self.b[c]))
        return out

    def coefficients(self, eps: float) -> tuple[float, float, float]:
        """(v1, v2, v3) = a - e^eps b."""
        u = math.exp(eps)
        return tuple(self.a[c] - u * self.b[c] for c in range(3))


def oue_blanket(eps0: float) -> CountLaw:
    r"""A proved blanket law for optimized unary encoding (true bit 1 w.p. a = 1/2, other bits
    1 w.p. b = 1/(E + 1), E = e^eps0), for every k.

    *Blanket.*  With ``Q`` the law of k independent Bern(b) bits, ``R(x)(y) = Q(y) rho(y_x)``
    with ``rho(1) = a/b = (E+1)/2`` and ``rho(0) = (1-a)/(1-b) = (E+1)/(2E) =: B``, so
    ``R(x) >= B Q`` for every x: gamma = B, omega = Q (BBGN19).  The amplification variable
    ``L = (R(x1) - u R(x1'))(W)/(gamma omega(W))``, W ~ Q, depends on the bits (W1, W2) only:
    ``(rho(W1) - u rho(W2))/B`` takes the values E - u ((1, 0), prob b(1-b)), 1 - uE ((0, 1),
    same), 1 - u ((0, 0), prob (1-b)^2) and E(1 - u) ((1, 1), prob b^2); with the blanket's
    null category the count law has probabilities gamma times these.

    *Three atoms.*  Replace the atom E(1-u) by E - u and 1 - uE with probability 1/2 each: the
    new two-point law has mean (1+E)(1-u)/2 >= E(1-u) (u >= 1), so by Jensen it dominates the
    atom in the increasing convex order; that order is preserved by independent sums and by
    mixtures over the blanket count, and (.)_+ is increasing and convex, so the blanket bound
    of the new law is >= OUE's blanket bound: a proved upper bound.  The result:
    ``p12 = B b(1-b) + B b^2/2 = 1/(2(E+1)) + 1/(4E(E+1))``, ``p3 = B (1-b)^2 = E/(2(E+1))``,
    ``a = (E, 1, 1)``, ``b = (1, E, 1)``: the k-RR blanket's shape with OUE's masses.
    """
    if not (isinstance(eps0, (int, float, np.floating)) and math.isfinite(eps0) and eps0 > 0):
        raise ValueError(f"eps0 must be a finite number > 0, got {eps0!r}")
    E = math.exp(eps0)
    # p12 rounded up and p3 down keep the blanket mass on the safe side (2 p12 + p3 = B + 1/(2E(E+1)) - ...)
    p12 = math.nextafter(1.0 / (2.0 * (E + 1.0)) + 1.0 / (4.0 * E * (E + 1.0)), math.inf)
    p3 = E / (2.0 * (E + 1.0))
    return CountLaw(p12, p3, (E, 1.0, 1.0), (1.0, E, 1.0))


def blanket_law(params) -> CountLaw:
    """The blanket count law of a mechanism's parameters: k-RR / RR (``params.k``), OUE
    (:func:`oue_blanket`), or Collision / CoCo / OLH (``params.s``, ``params.t``)."""
    if params.name == "oue":
        return oue_blanket(params.eps0)
    k = getattr(params, "k", None)
    if k is not None:
        return CountLaw.krr_blanket(params.eps0, k)
    return CountLaw.collision_blanket(params.eps0, params.s, params.t)


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

    def first_true(pred, a: int, b: int) -> int:
        """Smallest x in (a, b] with pred(x), pred monotone (False ... True) and pred(b) True:
        the interval is cut into 64 pieces per vectorised step."""
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
        hi = min(first_true(lambda x: up(x) <= log_mass, int(math.floor(mean)), N) - 1, N)
    if dn(0) > log_mass:
        lo = 0
    else:  # largest x with dn(x) <= log_mass, i.e. smallest x with dn(x) > log_mass; lo = x
        lo = max(first_true(lambda x: dn(x) > log_mass, -1, int(math.ceil(mean))), 0)
    trunc = 0.0
    if hi < N:
        trunc += math.exp(float(up(hi + 1)))
    if lo > 0:
        trunc += math.exp(float(dn(lo - 1)))
    return lo, hi, trunc


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


def approx_log_delta(law: CountLaw, n: int, eps: float) -> Optional[float]:
    """Saddle-point estimate of log delta(eps) = log(E[S_+] / n), S a sum of n i.i.d. copies
    of Y = v_c with probability p_c (:func:`accountant.saddle.log_positive_part`): not
    certified, it only gives searches a starting point.  Measured against the certified eps_c:
    relative error 2e-5 at n = 1e3, <= 3e-7 from n = 1e5 on (Collision, s 4-8).
    ``-inf`` when delta = 0 (every v_c <= 0), None when the mean of Y is >= 0 (no decay)."""
    lp = log_positive_part((law.p12, law.p12, law.p3), law.coefficients(eps), n)
    return lp if lp is None else lp - math.log(n)


def approx_epsilon(law: CountLaw, n: int, delta: float) -> Optional[float]:
    """eps at which :func:`approx_log_delta` crosses log ``delta`` (bisection to 1e-10
    relative on [0, eps_max]); None when eps_max is infinite.  A starting point only."""
    top = law.eps_max
    if not math.isfinite(top) or top <= 0.0:
        return None
    return root_of_decreasing(lambda e: approx_log_delta(law, n, e), math.log(delta), top)


def _windows(law: CountLaw, n: int, v, allowed: float) -> tuple[tuple[int, int], tuple[int, int], float]:
    """m- and j-windows whose left-out part contributes at most ``allowed`` to delta, and that
    contribution's bound (crude or tilted, see the module docstring; the narrower is used)."""
    pp = law.p_prime
    two_d = 0.0 < pp < 1.0
    vmax = max(max(v), 0.0)
    log_mass = math.log(allowed / (4.0 * vmax))
    m_lo, m_hi, tm = _window(n, 2.0 * law.p12, log_mass)
    j_lo, j_hi, tj = _window(n, law.p3, log_mass) if two_d else (0, 0, 0.0)
    best = ((m_lo, m_hi), (j_lo, j_hi), vmax * (tm + tj))
    if m_hi - m_lo + 1 < _TILT_FROM:
        return best
    tilt = _tilt(law, v)
    if tilt is None:
        return best
    th, logz, qm, q3 = tilt
    # E[X_+; out] <= M Q(out) / (e theta), M = z^n; per tail Q-mass <= allowed n e theta / (4 M)
    log_factor = n * logz - 1.0 - math.log(th) - math.log(n)  # log(M / (e theta n))
    log_q = math.log(allowed / 4.0) - log_factor
    if log_q >= 0.0:
        return best
    a_lo, a_hi, ta = _window(n, qm, log_q)
    b_lo, b_hi, tb = _window(n, q3, log_q) if two_d else (0, 0, 0.0)
    if (a_hi - a_lo + 1) * (b_hi - b_lo + 1) >= (m_hi - m_lo + 1) * (j_hi - j_lo + 1):
        return best
    return (a_lo, a_hi), (b_lo, b_hi), math.exp(log_factor) * (ta + tb)


def _upper_tail(m: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(E[(N1 - c)_+], P[N1 > c]) for N1 ~ Bin(m, 1/2) and thresholds m/2 - 1/2 <= c."""
    k = np.floor(c).astype(np.int64) + 1
    h = np.zeros(m.shape)
    T = np.zeros(m.shape)
    live = k <= m
    if np.all(live):
        R, logb = half_tail_ratio_runs(m, k)
        bk = np.exp(logb)
        return np.maximum(bk * (0.5 * k + (0.5 * m - c) * R), 0.0), bk * R
    if np.any(live):
        ml, kl, cl = m[live], k[live], c[live]
        R, logb = half_tail_ratio_runs(ml, kl)
        bk = np.exp(logb)
        h[live] = np.maximum(bk * (0.5 * kl + (0.5 * ml - cl) * R), 0.0)
        T[live] = bk * R
    return h, T


def _excess(m: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """E[(N1 - c)_+] and P[N1 > c] (P[N1 >= c] on the reflected side), N1 ~ Bin(m, 1/2).

    ``m`` increasing integers (one path), ``c`` float thresholds of the same shape.
    """
    mf = m.astype(np.float64)
    # upper-tail form for c >= m/2 - 1/2 (valid for every c >= 0; the margin keeps
    # thresholds that sit at m/2 up to rounding on one side, so runs stay long)
    up = 2.0 * c >= mf - 1.0
    full = c < 0.0
    if not np.any(full) and np.all(up):  # the common case: one branch, no indexing
        return _upper_tail(m, c)
    up &= ~full
    h = np.zeros(m.shape)
    T = np.zeros(m.shape)
    h[full] = 0.5 * mf[full] - c[full]
    T[full] = 1.0
    if np.any(up):
        h[up], T[up] = _upper_tail(m[up], c[up])
    low = ~full & (2.0 * c < mf - 1.0)
    if np.any(low):
        ml, cl = m[low], mf[low] - c[low]
        hr, Tr = _upper_tail(ml, cl)
        h[low] = (cl - 0.5 * ml) + hr
        T[low] = 1.0 - Tr
    return h, T


class _Terms:
    """g_m(j), its slope in j, and the Newton weight for one law at one eps."""

    def __init__(self, law: CountLaw, eps: float) -> None:
        v1, v2, v3 = law.coefficients(eps)
        b1, b2, b3 = law.b
        if v2 > v1:  # N1 and N2 are exchangeable: keep d = v1 - v2 >= 0
            v1, v2, b1, b2 = v2, v1, b2, b1
        self.d = v1 - v2
        self.v2, self.v3 = v2, v3
        self.b1, self.b2, self.b3 = b1, b2, b3
        self.u = math.exp(eps)

    def row(self, m: np.ndarray, j) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(g, dg/dj, E[b . N; X > 0]) at the points (m, j) (paths of increasing m, j scalar or array)."""
        mf = m.astype(np.float64)
        jf = np.asarray(j, dtype=np.float64)
        lin = self.v2 * mf + self.v3 * jf
        if self.d == 0.0:
            pos = lin > 0
            g = np.where(pos, lin, 0.0)
            T = pos.astype(np.float64)
            return g, self.v3 * T, (self.b2 * mf + self.b3 * jf) * T
        c = np.broadcast_to(-lin / self.d, m.shape)
        h, T = _excess(m, np.ascontiguousarray(c))
        g = self.d * h
        q = (self.b1 - self.b2) * (h + c * T) + (self.b2 * mf + self.b3 * jf) * T
        return g, self.v3 * T, q


# ----------------------------------------------------------------------------
# evaluation paths
# ----------------------------------------------------------------------------

def _m_weights(law: CountLaw, n: int, m_lo: int, m_hi: int) -> np.ndarray:
    p = 2.0 * law.p12
    if p >= 1.0:
        return np.zeros(1)
    return binom_logpmf_range(m_lo, m_hi, n, p)


def _exact(law: CountLaw, n: int, terms: _Terms, mw, jw) -> tuple[float, float]:
    """Sum over every (m, j) of the windows: (F, E[b . N; X > 0])."""
    m_lo, m_hi = mw
    m = np.arange(m_lo, m_hi + 1, dtype=np.int64)
    logPm = _m_weights(law, n, m_lo, m_hi)
    pp = law.p_prime
    F = 0.0
    Qs = 0.0
    if pp <= 0.0 or pp >= 1.0:  # N3 is 0 or n - m: one row, split along m across threads
        step = m.size if m.size < _MIN_SPLIT else -(-m.size // _parallel.threads())

        def part(i0: int) -> tuple[float, float]:
            mm = m[i0:i0 + step]
            j = np.zeros(mm.shape) if pp <= 0.0 else (n - mm).astype(np.float64)
            g, _, q = terms.row(mm, j)
            w = np.exp(logPm[i0:i0 + step])
            return float(np.sum(w * g)), float(np.sum(w * q))

        F = Qs = 0.0
        for f, q in _parallel.map_ordered(part, range(0, m.size, step)):
            F += f
            Qs += q
        return F, Qs
    Np = (n - m).astype(np.float64)
    # rows of fixed j, concatenated into batches of ~_CHUNK * 8 points so that the
    # tail-ratio anchors of many rows are evaluated together; batches run on threads
    batches, ms, js, ws, size = [], [], [], [], 0
    for j in range(jw[0], jw[1] + 1):
        lw = logPm + binom_logpmf(float(j), Np, pp)
        keep = lw > -745.0
        if not np.any(keep):
            continue
        idx = np.flatnonzero(keep)
        sl = slice(idx[0], idx[-1] + 1)
        ms.append(m[sl])
        js.append(np.full(idx[-1] + 1 - idx[0], float(j)))
        ws.append(np.exp(lw[sl]))
        size += ms[-1].size
        if size >= 8 * _CHUNK:
            batches.append((ms, js, ws))
            ms, js, ws, size = [], [], [], 0
    if ms:
        batches.append((ms, js, ws))

    def batch(b) -> tuple[float, float]:
        g, _, q = terms.row(np.concatenate(b[0]), np.concatenate(b[1]))
        w = np.concatenate(b[2])
        return float(np.sum(w * g)), float(np.sum(w * q))

    for f, q in _parallel.map_ordered(batch, batches):
        F += f
        Qs += q
    return F, Qs


def _cond_cdf(js: np.ndarray, Np: np.ndarray, pp: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """F = P[Bin(N', p') <= j], S = 1 - F and pmf at (grid j, N') for N' decreasing by 1.

    Exact anchors (regularised incomplete beta, Loader's pmf) every ``_BLOCK`` values of
    N'; in between pmf_{N'-1}(j) = pmf_{N'}(j) (N' - j)/(N' (1 - p')) and
    F_{N'-1}(j) = F_{N'}(j) + p' pmf_{N'-1}(j).  Arrays of shape (len(js), len(Np)).
    """
    G1, V = js.size, Np.size
    L = min(_BLOCK, V)
    nb = -(-V // L)
    pad = nb * L - V
    anchors = np.arange(nb) * L
    J = js.astype(np.float64)[:, None]
    Na = Np[anchors][None, :]
    inside = J < Na
    Ja = np.broadcast_to(J, (G1, nb))
    NaB = np.broadcast_to(Na, (G1, nb))
    F0 = np.where(inside, special.betainc(np.maximum(NaB - Ja, 1e-300), Ja + 1.0, 1.0 - pp), 1.0)
    S0 = np.where(inside, special.betainc(Ja + 1.0, np.maximum(NaB - Ja, 1e-300), pp), 0.0)
    F0 = np.where(Ja < 0, 0.0, F0)
    S0 = np.where(Ja < 0, 1.0, S0)
    lp0 = binom_logpmf(Ja, NaB, pp)
    # log step from N' (position i) to N' - 1 (position i + 1)
    Npad = np.concatenate((Np, Np[-1] - 1.0 - np.arange(pad)))
    Nb = Npad.reshape(nb, L)
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.log(np.maximum(Nb[None, :, :-1] - J[:, :, None], 0.0)) - np.log(Nb[None, :, :-1] * (1.0 - pp))
    step = np.where(np.isnan(step), -np.inf, step)
    lp = np.empty((G1, nb, L))
    lp[:, :, 0] = lp0
    if L > 1:
        lp[:, :, 1:] = lp0[:, :, None] + np.cumsum(step, axis=2)
    pmf = np.exp(lp)
    inc = np.zeros((G1, nb, L))
    if L > 1:
        inc[:, :, 1:] = pp * np.cumsum(pmf[:, :, 1:], axis=2)
    F = np.minimum(F0[:, :, None] + inc, 1.0)
    S = np.maximum(S0[:, :, None] - inc, 0.0)
    sh = (G1, nb * L)
    return F.reshape(sh)[:, :V], S.reshape(sh)[:, :V], pmf.reshape(sh)[:, :V]


def _binned(law: CountLaw, n: int, terms: _Terms, mw, jw, G: int) -> tuple[float, float, float]:
    """(lower F, upper F, E[b . N; X > 0] estimate) with G j-bins (0 < p' < 1)."""
    m_lo, m_hi = mw
    j_lo, j_hi = jw
    span = j_hi - (j_lo - 1)
    js = np.unique(np.round(np.linspace(j_lo - 1, j_hi, min(G, span) + 1)).astype(np.int64))
    width = np.diff(js).astype(np.float64)[:, None]
    pp = law.p_prime
    logPm_all = _m_weights(law, n, m_lo, m_hi)

    def chunk(c0: int) -> tuple[float, float, float]:
        c1 = min(c0 + step - 1, m_hi)
        m = np.arange(c0, c1 + 1, dtype=np.int64)
        wm = np.exp(logPm_all[c0 - m_lo:c1 - m_lo + 1])
        if not np.any(wm > 0):
            return 0.0, 0.0, 0.0
        sh = (js.size, m.size)
        g, s, q = terms.row(np.tile(m, js.size), np.repeat(js.astype(np.float64), m.size))
        g, s, q = g.reshape(sh), s.reshape(sh), q.reshape(sh)
        Np = (n - m).astype(np.float64)
        F, S, pmf = _cond_cdf(js, Np, pp)
        P = np.where(F[1:] <= 0.5, F[1:] - F[:-1], S[:-1] - S[1:])
        P = np.maximum(P, 0.0)
        Jg = js[:-1].astype(np.float64)[:, None]
        Jh = js[1:].astype(np.float64)[:, None]
        D = (Np * pp - Jg) * P - pp * ((Np - Jh) * pmf[1:] - (Np - Jg) * pmf[:-1])
        D = np.clip(D, 0.0, width * P)
        rest = width * P - D
        upper = (g[:-1] * rest + g[1:] * D) / width
        lower = np.maximum(np.maximum(P * g[:-1] + s[:-1] * D, P * g[1:] - s[1:] * rest), 0.0)
        qb = 0.5 * (q[:-1] + q[1:]) * P
        return (float(np.sum(wm * np.sum(lower, axis=0))), float(np.sum(wm * np.sum(upper, axis=0))),
                float(np.sum(wm * np.sum(qb, axis=0))))

    # chunks of at most _CHUNK values of m; a window of _MIN_SPLIT values or more is cut
    # into at least as many chunks as there are threads (the sums then differ from the
    # serial ones by summation order only, far inside FLOAT_REL_ERROR)
    size = m_hi - m_lo + 1
    step = _CHUNK if size < _MIN_SPLIT else min(_CHUNK, -(-size // _parallel.threads()))
    # memory: a chunk holds about 12 arrays of (bins x m values); keep each below MAX_CHUNK_CELLS
    step = max(1, min(step, MAX_CHUNK_CELLS // js.size))
    lo_sum = up_sum = q_sum = 0.0
    for lo, up, q in _parallel.map_ordered(chunk, range(m_lo, m_hi + 1, step)):
        lo_sum += lo
        up_sum += up
        q_sum += q
    return lo_sum, up_sum, q_sum


def _mp_exact(law: CountLaw, n: int, eps: float, mw, jw, digits: int) -> tuple[float, float]:
    """The exact path's sum at ``digits`` digits with mpmath (closed form per (m, j))."""
    import mpmath

    with mpmath.workdps(digits + 20):
        mp = mpmath.mp
        u = mp.e ** mp.mpf(eps)
        v = [mp.mpf(law.a[c]) - u * mp.mpf(law.b[c]) for c in range(3)]
        p12, p3 = mp.mpf(law.p12), mp.mpf(law.p3)
        pm = 2 * p12
        rest = 1 - pm
        pp = p3 / rest if rest > 0 else mp.mpf(0)
        if pp > 1:
            pp = mp.mpf(1)
        v1, v2, v3 = v
        if v2 > v1:
            v1, v2 = v2, v1
        d = v1 - v2
        total = mp.mpf(0)

        def binpmf(k, N, p):
            if k < 0 or k > N:
                return mp.mpf(0)
            return mp.binomial(N, k) * p ** k * (1 - p) ** (N - k)

        tiny = mp.mpf(10) ** (-(digits + 15))

        def tail(k, m, bk):
            # P[Bin(m, 1/2) >= k] by direct summation away from the centre
            if 2 * k >= m:
                tot, term, x = mp.mpf(0), bk, k
                while x <= m and term > tiny * tot:
                    tot += term
                    term = term * (m - x) / (x + 1)
                    x += 1
                return tot
            tot, term, x = mp.mpf(0), bk * k / (m - k + 1), k - 1
            while x >= 0 and term > tiny * tot:
                tot += term
                term = term * x / (m - x + 1)
                x -= 1
            return 1 - tot

        def excess(m, c):
            # E[(d N1 + ...)_+] = sum over x of (d (x - c))_+ b(x; m) via the closed form
            if d == 0:
                return max(-c, 0)  # c carries -(v2 m + v3 j) here
            k = int(mp.floor(c)) + 1
            if k <= 0:
                return d * (mp.mpf(m) / 2 - c)
            if k > m:
                return mp.mpf(0)
            b = mp.binomial(m, k) / mp.mpf(2) ** m
            T = tail(k, m, b)
            return d * (k * b / 2 + (mp.mpf(m) / 2 - c) * T)

        for m in range(mw[0], mw[1] + 1):
            Pm = binpmf(m, n, pm) if pm < 1 else (mp.mpf(1) if m == n else mp.mpf(0))
            if Pm == 0:
                continue
            if pp == 0 or pp == 1:
                pairs = [(0 if pp == 0 else n - m, mp.mpf(1))]
            else:
                pairs = [(j, binpmf(j, n - m, pp)) for j in range(jw[0], min(jw[1], n - m) + 1)]
            for j, Pj in pairs:
                lin = v2 * m + v3 * j
                c = -lin / d if d != 0 else -lin
                total += Pm * Pj * excess(m, c)
        return float(total), float(total)


def positive_part(law: CountLaw, n: int, eps: float, *, target_delta: Optional[float] = None,
                  method: str = "auto", digits: int = 50,
                  bin_gap: float = BIN_GAP, min_bins: Optional[int] = None,
                  truncation: float = TRUNCATION) -> PositivePart:
    """delta(eps) = E[(v1 N1 + v2 N2 + v3 N3)_+] / n with certified bounds.

    Parameters
    ----------
    law : the count law and coefficients (see module docstring).
    n : number of users, integer >= 1.
    eps : eps >= 0.
    target_delta : if given, the windows leave out at most TRUNCATION of it;
        otherwise of a first estimate of the value.
    method : ``"auto"`` (exact when the windows hold at most EXACT_MAX_TERMS pairs),
        ``"exact"``, ``"binned"`` or ``"mpmath"`` (reference, small windows only).
    bin_gap : the binned path refines its bins until upper - lower <= bin_gap *
        max(upper, n target_delta); a looser gap only widens [lower, upper].
    truncation : fraction of ``target_delta`` (or of a first estimate) that the windows may
        leave out (bounded and added to ``upper``).
    min_bins : bins of the binned path's first pass; by default 3 for m-windows of at least
        ``_TILT_FROM`` values (they meet BIN_GAP there: 2.5e-8 at n = 1e10) and 8 below
        (3 would need a second pass); a profile whose values are differenced, as in
        :mod:`accountant.compose`, asks for 8.

    Returns
    -------
    PositivePart with ``lower <= delta(eps) <= upper``.

    References
    ----------
    Balle, Bell, Gascon, Nissim (CRYPTO 2019), Section 3 (privacy blanket); Su, Cheng,
    Wang (S&P 2026) for the optimality of the decomposition.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    if not (isinstance(eps, (int, float, np.floating)) and math.isfinite(eps) and eps >= 0):
        raise ValueError(f"eps must be a finite number >= 0, got {eps!r}")
    if method not in ("auto", "exact", "binned", "mpmath"):
        raise ValueError(f"method must be 'auto', 'exact', 'binned' or 'mpmath', got {method!r}")
    if target_delta is not None and not (0.0 < target_delta < 1.0):
        raise ValueError(f"target_delta must lie in (0, 1), got {target_delta!r}")
    if not (isinstance(bin_gap, (int, float)) and 0.0 < bin_gap < 1.0):
        raise ValueError(f"bin_gap must lie in (0, 1), got {bin_gap!r}")
    if not (isinstance(truncation, (int, float)) and 0.0 < truncation < 1.0):
        raise ValueError(f"truncation must lie in (0, 1), got {truncation!r}")
    if min_bins is not None and (isinstance(min_bins, bool) or not isinstance(min_bins, (int, np.integer))
                                 or not 1 <= min_bins <= MAX_BINS):
        raise ValueError(f"min_bins must be an integer in [1, {MAX_BINS}], got {min_bins!r}")
    n = int(n)
    eps = float(eps)
    v = law.coefficients(eps)
    vmax = max(max(v), 0.0)
    if vmax == 0.0 or eps >= law.eps_max:
        return PositivePart(eps, 0.0, 0.0, 0.0, 0.0, 0.0, method, 0)
    terms = _Terms(law, eps)
    pp = law.p_prime

    def run(allowed: float) -> PositivePart:
        (m_lo, m_hi), (j_lo, j_hi), trunc = _windows(law, n, v, allowed)
        nj = j_hi - j_lo + 1
        meth = method
        if meth == "auto":
            meth = "exact" if (m_hi - m_lo + 1) * nj <= EXACT_MAX_TERMS or not (0.0 < pp < 1.0) else "binned"
        if meth == "binned" and not (0.0 < pp < 1.0):
            meth = "exact"
        bins = 0
        if meth == "exact":
            F, Qs = _exact(law, n, terms, (m_lo, m_hi), (j_lo, j_hi))
            lo_F = up_F = F
            margin = FLOAT_REL_ERROR * max(1.0, math.sqrt(n) / 1e3)
        elif meth == "mpmath":
            lo_F, up_F = _mp_exact(law, n, eps, (m_lo, m_hi), (j_lo, j_hi), digits)
            Qs = 0.0
            margin = 10.0 ** (-digits + 2)
        else:
            # 3 bins meet BIN_GAP on long m-windows (measured: 2.5e-8 at n = 1e10, 1.6e-4
            # at n = 1e6); the gap shrinks like 1/G^2, so a miss jumps straight to the G
            # expected to meet it
            G = min_bins if min_bins is not None else (3 if m_hi - m_lo + 1 >= _TILT_FROM else 8)
            while True:
                lo_F, up_F, Qs = _binned(law, n, terms, (m_lo, m_hi), (j_lo, j_hi), G)
                bins = G
                # gap measured against the larger of the value and the target: far
                # from the target a coarser bracket decides the search just as well
                ref = max(up_F, n * target_delta if target_delta is not None else 0.0, 1e-300)
                if up_F - lo_F <= bin_gap * ref or G >= MAX_BINS or G >= nj:
                    break
                # the gap shrinks like 1/G^2 (chord and tangents on a convex function):
                # jump to the G expected to meet bin_gap, with 30% to spare
                ratio = (up_F - lo_F) / (bin_gap * ref)
                G = int(min(MAX_BINS, max(2 * G, math.ceil(1.3 * G * math.sqrt(ratio)))))
                G_cap = MAX_BINNED_CELLS // (m_hi - m_lo + 1)
                if G > G_cap:  # cost model: keep the (proved, looser) bracket we have
                    if G_cap <= bins:
                        break
                    G = int(G_cap)
            margin = FLOAT_REL_ERROR * max(1.0, math.sqrt(n) / 1e3)
        lower = max(lo_F / n * (1.0 - margin), 0.0)
        upper = up_F / n * (1.0 + margin) + trunc
        value = 0.5 * (lo_F + up_F) / n
        slope = -terms.u * Qs / n
        return PositivePart(eps, value, lower, upper, slope, trunc, meth, bins)

    if target_delta is not None:
        return run(truncation * target_delta)
    first = run(4.0 * vmax * 1e-30)
    if first.value > 0 and first.truncated <= truncation * first.value:
        return first
    return run(truncation * max(first.value, 1e-300))


def blanket_exact_delta(law: CountLaw, n: int, eps: float) -> PositivePart:
    """delta(eps) of the exact privacy blanket (:func:`positive_part` with ``method="auto"``)."""
    return positive_part(law, n, eps)


@dataclass(frozen=True)
class BlanketEpsilon:
    """epsilon (certified: upper delta <= target), achieved_delta (that upper delta),
    lower_epsilon (largest eps found with certified lower delta > target, or None),
    evaluations."""

    epsilon: float
    achieved_delta: float
    lower_epsilon: Optional[float]
    evaluations: int


def blanket_exact_epsilon(law: CountLaw, n: int, delta: float, rtol: float = 1e-9,
                          guess: Optional[float] = None, certify_bracket: bool = True) -> BlanketEpsilon:
    """Smallest eps with certified delta(eps) <= ``delta`` (``search.epsilon_for_delta``).

    The search runs on [0, law.eps_max] (delta = 0 at eps_max, where every v_c <= 0) and
    starts a little above ``guess``, by default the saddle-point estimate
    :func:`approx_epsilon` (within 3e-7 of eps_c from n = 1e5 on).  With
    ``certify_bracket=False`` it stops at the first certified eps from which Newton puts the
    root within ``rtol`` (usually the first evaluation; ``lower_epsilon`` is then None);
    otherwise it also certifies a point within ``rtol`` below (one more evaluation).
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    if not (isinstance(delta, (int, float, np.floating)) and 0.0 < delta < 1.0):
        raise ValueError(f"delta must lie in (0, 1), got {delta!r}")
    eps_max = law.eps_max
    if not math.isfinite(eps_max):
        raise ValueError("law has a category with a_c > 0 = b_c: delta(eps) > 0 for every eps")

    def evaluate(e: float):
        r = positive_part(law, n, e, target_delta=delta)
        return r.lower, r.upper, r.slope

    if guess is None:
        guess = approx_epsilon(law, int(n), float(delta))
        if guess is not None:
            # aim just above the estimate: the first evaluation is then likely certified
            guess *= 1.0 + 0.2 * rtol
    if guess is not None and not (0.0 < guess < eps_max):
        guess = None
    res = epsilon_for_delta(evaluate, delta, eps_max, rtol=rtol, guess=guess, predict=not certify_bracket)
    return BlanketEpsilon(res.epsilon, res.achieved_delta, res.lower_epsilon, res.evaluations)
