"""Exact hockey-stick divergence of binary randomized response on one dataset of n users.

Binary RR (inputs 1 and 2, keep probability p = e^eps0/(1 + e^eps0), q = 1 - p) shuffled over
n users: the view is the number K of reports "1".  A pair of neighbouring datasets is fixed (up
to relabelling) by m, the number of the other n - 1 users holding input 1 (user 1 holds 1 in D
and 2 in D'):

    K_D  = V + Bern(p),   K_D' = V + Bern(q),   V = X + Y,  X ~ Bin(m, p),  Y ~ Bin(n-1-m, q).

V is a sum of independent Bernoullis, so its pmf v is log-concave and the likelihood ratio
P_D(k)/P_D'(k) = (p v(k-1) + q v(k))/(q v(k-1) + p v(k)) is non-decreasing in k: the set where
P_D > e^eps P_D' is a threshold {k >= t*} and, with a = p - e^eps q, b = e^eps p - q,

    delta_m(eps) = max_t F(t),   F(t) = a S(t - 1) - b S(t),   S(t) = P[V >= t],

while F(t) <= delta_m(eps) for every t (the set {k >= t}), which is what the lower end uses.
The mirror K -> n - K maps the direction D' -> D at m to D -> D' at n - 1 - m, so the maximum
of both directions over all m is the maximum of this one direction over m in [0, n - 1].

Evaluation (``dataset_delta``): both binomials' pmfs, on every point below ``LAW_FULL_N``
trials and on a window of ``LAW_WINDOW_SD`` sd + 30 points above (Loader's pmf over a range,
once per binomial and remembered), v(t) and S(t) dot products of the shorter window A with the
other window B's pmf and suffix sums at t - x. Every term is a nonnegative product, so against
the exact sums over the windows v and S carry a relative error of at most rel = 2
``PMF_REL_ERROR`` (the two entries) + the rounding of q inside the binomials (``_param_rel``:
Bin(m, p) is evaluated as m - Bin(m, q), q carrying a relative rounding where p = 1 - q carries
an absolute one) + (L_A + L_B + 8) u (suffix sums, products, the dot; L the window lengths),
times 1.01 (second-order terms), taken as at least ``REL_ERROR``: it is 2e-12 to 7e-12 at n <=
1e4 (eps0 0.5 to 30), at most 2e-11 at 1e6 and 2e-10 at 1e8, so REL_ERROR there. F = a s0 - b
s1 then carries rel (a s0 + b s1) + 10.1 u (1 + e^eps)(s0 + s1) (the latter: the rounding of a
and b) + (a + b) (L_A + L_B + 8) 2^-1070 (entries and products below the normal range) on both
ends; eps >= eps0 gives 0 exactly. Truncation: with v_T the windows' law and ``out`` their
missing mass (Chernoff, doubled for p's rounding), F(t) >= F_T(t) - (e^eps - 1) out (lower end:
the missing mass is not counted) and delta_m <= delta_T + a out (upper end). The upper end
holds whatever the float threshold t: delta_T = F_T(t) + sum_{k < t} (term_k)_+ + sum_{k >= t}
(term_k)_- (term_k = a v_T(k-1) - b v_T(k)), v_T is log-concave (a convolution of truncated
binomials), so term_k / v_T(k) is non-decreasing: if the error bound of term_t leaves it
possibly negative, down to -w, the terms above add at most (w / v_T(t)) S_T(t), and likewise
below t - 1 (or at most a times the mass between t - 1 and the first term below it of certain
sign, where v_T underflows: ``_below``); nothing when both signs are certain (the usual case).
Checked against 50-digit references at n = 1e3 to 1e4
(tests/accountant/engines/test_two_input_mpmath.py: the centre of the bracket within 1e-11
relative) and 50-digit ball arithmetic over every m at n <= 400 (test_two_input.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from accountant.engines.binomial import binom_log_tail_bound, binom_logpmf, binom_logpmf_range
from accountant.engines.fftconv import linear_convolve
from accountant.engines.search import smallest_true

# smallest relative error carried by a float evaluation (of the magnitudes a S(t-1) + b S(t) of
# F's two terms; dataset_delta's own bound is below it at n <= 1e8, see the module docstring)
REL_ERROR = 1e-9
# mass of the summed binomial left outside its window (relative to the smallest delta asked)
_WINDOW_TAIL = 1e-40
# largest window of the summed binomial (points): about 40 standard deviations at n = 1e10
MAX_WINDOW = 4_000_000
# dataset_delta's binomials: every point below LAW_FULL_N trials, else a window of LAW_WINDOW_SD
# standard deviations + 30 points (missing mass about e^{-200}, far below it where the +30 counts:
# targets down to 1e-80 are certified at n = 1e4)
LAW_FULL_N = 4096
LAW_WINDOW_SD = 20.0
# windows of dataset_delta remembered: binomials of at most LAW_CACHE_MAX_N trials (windows of
# <= 4,600 points, 37 KB), LAW_CACHE_SIZE of them (<= 38 MB; a search at n = 1e4 asks ~700)
LAW_CACHE_MAX_N = 50_000
LAW_CACHE_SIZE = 1024
# half-width of the FFT law's windows in standard deviations (+ 30 points): Chernoff tails
# below e^{-36} = 2e-16 on each side
SUM_WINDOW_SD = 8.5
# relative error of one pmf entry exp(Loader's log pmf over a range): the log is accurate to
# ~1e-15 absolute for N < 2^53 (accountant.engines.binomial), the range recurrence adds ~1e-20
# a step, exp one rounding; 1e-12 leaves a factor of 100 (tests: 50-digit pmfs at N = 1e10)
PMF_REL_ERROR = 1e-12
_U = 2.0 ** -53


@dataclass(frozen=True)
class DatasetDelta:
    """Certified ends of delta_m(eps) of one dataset, and the threshold used."""

    lower: float
    upper: float
    threshold: int


def rr_probabilities(eps0: float) -> tuple[float, float]:
    """(p, q) = (e^eps0/(1 + e^eps0), 1/(1 + e^eps0)), q formed without cancellation."""
    q = 1.0 / (1.0 + math.exp(eps0))
    return 1.0 - q, q


def _window(N: int, prob: float, width: float = 12.5) -> tuple[int, int, float]:
    """Window [lo, hi] (``width`` standard deviations + 30 on each side) of Bin(N, prob) and an
    upper bound on the mass outside it."""
    if N == 0:
        return 0, 0, 0.0
    mu, sd = N * prob, math.sqrt(N * prob * (1.0 - prob))
    half = width * sd + 30.0
    lo, hi = max(0, int(math.floor(mu - half))), min(N, int(math.ceil(mu + half)))
    out = 0.0
    if lo > 0:
        out += math.exp(float(binom_log_tail_bound(np.array([lo - 1.0]), N, prob, upper=False)[0]))
    if hi < N:
        out += math.exp(float(binom_log_tail_bound(np.array([hi + 1.0]), N, prob, upper=True)[0]))
    return lo, hi, out


def _pmf_window(N: int, prob: float, width: float) -> tuple[int, np.ndarray, float]:
    """(offset, pmf of Bin(N, prob) on its window of ``width`` sd + 30 points, mass outside it)."""
    if N == 0:
        return 0, np.ones(1), 0.0
    lo, hi, out = _window(N, prob, width)
    if hi - lo + 1 > MAX_WINDOW:
        raise ValueError(f"window of {hi - lo + 1} points exceeds MAX_WINDOW = {MAX_WINDOW}")
    return lo, np.exp(binom_logpmf_range(lo, hi, N, prob)), out


@lru_cache(maxsize=LAW_CACHE_SIZE)
def _cached_window(N: int, prob: float) -> tuple[int, np.ndarray, float]:
    lo, pmf, out = _law_pmf(N, prob)
    pmf.setflags(write=False)
    return lo, pmf, out


def _law_pmf(N: int, prob: float) -> tuple[int, np.ndarray, float]:
    """(offset, pmf, missing mass) of Bin(N, prob) for ``dataset_delta``: every point below
    ``LAW_FULL_N`` trials (nothing missing), else the window of ``LAW_WINDOW_SD``."""
    if 0 < N < LAW_FULL_N:
        return 0, np.exp(binom_logpmf_range(0, N, N, prob)), 0.0
    return _pmf_window(N, prob, LAW_WINDOW_SD)


def _law_window(N: int, prob: float) -> tuple[int, np.ndarray, float]:
    """:func:`_law_pmf`, remembered up to ``LAW_CACHE_MAX_N`` trials (a search asks the same
    binomials at many eps and for many ranges)."""
    return _cached_window(N, prob) if N <= LAW_CACHE_MAX_N else _law_pmf(N, prob)


def _param_rel(N: int, q: float, lo: int, size: int) -> float:
    """Relative change of Bin(N, q)'s pmf on [lo, lo + size) from the rounding of q in
    :func:`rr_probabilities` (|d q| <= 5u q, d log pmf(k) / d q = (k - N q)/(q (1 - q)): at most
    5u |k - N q| / (1 - q) <= 10u |k - N q|); the same for the mirror Bin(N, p) = N - Bin(N, q)."""
    if N == 0:
        return 0.0
    return 10.0 * _U * (max(N * q - lo, lo + size - 1 - N * q) + 1.0)


class _Law:
    """V = Bin(m, p) + Bin(c, q), both binomials on their windows (pmfs computed once):
    v(t) = sum_x pA(x) pB(t - x) and S(t) = sum_x pA(x) SB(t - x) (SB: suffix sums of B's
    window) are dot products over the shorter window A, every term a nonnegative product."""

    def __init__(self, m: int, c: int, p: float, q: float) -> None:
        parts = []
        for N, mirror in ((m, True), (c, False)):
            # Bin(m, p) as m - Bin(m, q): q carries a relative rounding, p = 1 - q an absolute one
            lo, f, o = _law_window(N, q)
            rho = _param_rel(N, q, lo, f.size)
            if mirror:
                lo, f = N - lo - f.size + 1, f[::-1]
            parts.append((lo, f, o, rho))
        (loA, fA, oA, rA), (loB, fB, oB, rB) = sorted(parts, key=lambda w: w[1].size)
        self.mean, self.var = m * p + c * q, (m + c) * p * q
        # mass outside the two windows, doubled for the rounding of q in the Chernoff bounds
        self.out = 2.0 * (oA + oB)
        self.pa, self.tA = fA, loA + np.arange(fA.size)
        self.lo, self.hi = loB - 1, loB + fB.size      # B's arrays below at j = lo, ..., hi
        sb = np.cumsum(fB[::-1])[::-1]                  # P[B >= j] on the window (in order)
        self.pb = np.concatenate(([0.0], fB, [0.0]))
        self.sb = np.concatenate((sb[:1], sb, [0.0]))
        self.support = (loA + loB, loA + loB + fA.size + fB.size - 2)
        # relative error of v and S against the exact truncated sums (module docstring)
        # (1.01: second-order terms and the rounding of the error terms themselves)
        derived = 2.0 * PMF_REL_ERROR + rA + rB + (fA.size + fB.size + 8) * _U
        self.rel = max(REL_ERROR, 1.01 * derived)
        # absolute error of a v or S value from entries and products below the normal range
        self.tiny = (fA.size + fB.size + 8) * 2.0 ** -1070
        self._v: dict = {}

    def _dot(self, arr: np.ndarray, t: int) -> float:
        # (a product and a pairwise sum, not BLAS: its threads cost more than they save here)
        return float(np.sum(self.pa * arr[np.clip(t - self.tA, self.lo, self.hi) - self.lo]))

    def S(self, t: int) -> float:
        """P[V >= t] over the windows (the windows' missing mass is at most ``self.out``)."""
        return self._dot(self.sb, t)

    def v(self, t: int) -> float:
        """P[V = t] over the windows (memoised: the threshold search asks for neighbours twice)."""
        if t not in self._v:
            self._v[t] = self._dot(self.pb, t) if self.support[0] <= t <= self.support[1] else 0.0
        return self._v[t]


def _threshold(law: _Law, a: float, b: float, n: int) -> int:
    """The first t with a v(t-1) > b v(t) in float (v: the windows' truncated pmf, log-concave
    too; at most one past the windows' support): a normal start, then a gallop and a bisection
    (positive(t) is false, then true)."""
    mu, var = law.mean, law.var
    t = int(math.floor(mu + 0.5 + var * math.log(b / a))) if var > 0 else int(round(mu)) + 1
    t = min(max(t, 0), n)

    def positive(tt: int) -> bool:  # is the term of k = tt positive (k in the set)? Above the
        # windows' support, or where v underflows above the mean, every term is 0: "true" there
        # keeps the answer monotone in tt
        if tt > law.support[1]:
            return True
        v0, v1 = law.v(tt - 1), law.v(tt)
        return a * v0 - b * v1 > 0.0 or (v0 == 0.0 == v1 and tt > mu)

    step = 1
    if positive(t):
        hi, lo = t, -1
        while hi - step >= 0:
            if not positive(hi - step):
                lo = hi - step
                break
            hi, step = hi - step, 2 * step
    else:
        lo, hi = t, n + 1
        while lo + step <= n:
            if positive(lo + step):
                hi = lo + step
                break
            lo, step = lo + step, 2 * step
    return smallest_true(positive, lo, hi)


def _below(law: _Law, a: float, b: float, t: int, err) -> float:
    """A bound on sum_{k < t} (term_k)_+ when term_{t-1} may be positive (say v_T underflows
    there): a (S_T(k0) - S_T(t - 1)) for the first k0 < t - 1 met going down (steps doubling)
    whose term is certainly negative (then the largest such by bisection), so that t* > k0 and
    only the terms k0 < k < t, each at most a v_T(k - 1), can be positive."""
    def certain(k: int) -> bool:  # is term_k certainly negative (or below the support: 0)?
        v0, v1 = law.v(k - 1), law.v(k)
        return k < law.support[0] or a * v0 - b * v1 + err(v0, v1) < 0.0

    hi, step = t - 1, 1           # hi: a k whose term may be positive
    while not certain(hi - step):
        hi, step = hi - step, 2 * step
    lo = hi - step                # certain; then the largest certain k found by bisection
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if certain(mid) else (lo, mid)
    k = max(lo, law.support[0] - 1)
    s0, s1 = law.S(k), law.S(t - 1)
    return a * (s0 - s1 + law.rel * (s0 + s1) + 2.0 * law.tiny)


def dataset_delta(n: int, m: int, eps0: float, eps: float) -> DatasetDelta:
    """Certified ends of delta_m(eps) (see the module docstring) for binary RR: n users, m of
    the other n - 1 holding user 1's input in D."""
    if not (1 <= n and 0 <= m <= n - 1):
        raise ValueError(f"m must be an integer in [0, n - 1] = [0, {n - 1}], got {m}")
    p, q = rr_probabilities(eps0)
    e = math.exp(eps)
    a, b = p - e * q, e * p - q
    if a <= 0.0 or eps >= eps0:   # p = e^eps0 q: delta = 0 exactly (the float a may be > 0)
        return DatasetDelta(0.0, 0.0, n + 1)
    law = _Law(m, n - 1 - m, p, q)
    t = _threshold(law, a, b, n)
    rel, out = law.rel, law.out

    def err(x0: float, x1: float) -> float:  # error of a x0 - b x1 (x: computed v or S values)
        return rel * (a * x0 + b * x1) + 10.1 * _U * (1.0 + e) * (x0 + x1) + (a + b) * law.tiny

    # F(k) = a S(k - 1) - b S(k) at k = t - 1, t, t + 1: the divergence on {k' >= k} (lower end)
    s = {k: law.S(k) for k in (t - 2, t - 1, t, t + 1)}
    f = {k: a * s[k - 1] - b * s[k] for k in (t - 1, t, t + 1)}
    lower = max(f[k] - err(s[k - 1], s[k]) for k in f) - (e - 1.0) * out
    # upper: delta <= delta_T + a out, delta_T the divergence of the windows' (truncated) law v_T,
    # log-concave too: delta_T = F_T(t) + sum_{k < t} (term_k)_+ + sum_{k >= t} (term_k)_-, and
    # term_k / v_T(k) is non-decreasing, so a term of uncertain sign at t (t - 1) bounds the
    # terms above (below) it by its bound over v_T(t) (v_T(t - 1)) times their mass
    slack = 0.0
    for k, sign in ((t, 1.0), (t - 1, -1.0)):
        v0, v1 = law.v(k - 1), law.v(k)
        worst = -sign * (a * v0 - b * v1) + err(v0, v1)   # -sign * term_k is at most this
        if worst > 0.0:
            v_lo = v1 * (1.0 - 2.0 * rel)
            ratio = min(worst / v_lo if v_lo > 0.0 else math.inf, b if sign > 0 else a)
            if sign > 0:
                slack += ratio * (s[k] * (1.0 + 2.0 * rel) + law.tiny)
            else:
                slack += min(ratio, _below(law, a, b, t, err))
    upper = f[t] + err(s[t - 1], s[t]) + slack + a * out
    return DatasetDelta(max(0.0, lower), min(upper, 1.0), t)


def range_upper(n: int, m_lo: int, m_hi: int, eps0: float, eps: float) -> float:
    """A proved upper bound on delta_m(eps) for every m in [m_lo, m_hi]: the w = m_hi - m_lo
    users whose inputs vary over the range are revealed (their reports are added to the count
    of the others, a post-processing of the count of the remaining n - w users), leaving
    m_lo others holding input 1 among n - 1 - w."""
    w = m_hi - m_lo
    return dataset_delta(n - w, m_lo, eps0, eps).upper


# --------------------------------------------------------------------------- large n: FFT law, blanket range bound
# blanket draws kept in blanket_range_upper: B >= mean - BLANKET_SD sd (Chernoff: P < e^{-32})
BLANKET_SD = 8.0


def sum_delta(n_p: int, n_q: int, n_half: int, eps0: float, eps: float) -> DatasetDelta:
    """Certified ends of the divergence delta(eps) between V + Bern(p) and V + Bern(q) with
    V = Bin(n_p, p) + Bin(n_q, q) + Bin(n_half, 1/2) (binary RR: n_p others hold user 1's
    input, n_q the other input, n_half blanket draws; ``dataset_delta(n, m)`` is
    ``sum_delta(m, n - 1 - m, 0)``), for large n.

    The pmf v of V on a window is the FFT convolution of the three binomials' windows
    (:func:`accountant.engines.fftconv.linear_convolve`, with its l1 error bound), and
    delta = sum over k of (a v(k-1) - b v(k))_+ (every k, no threshold).  With e the l1
    distance of the computed v to the exact truncated pmf v_t (pmf entries within
    ``PMF_REL_ERROR``, products: ||x'y' - xy|| <= ||x' - x|| ||y'|| + ||x|| ||y' - y||, plus the
    FFT bound) and ``out`` the mass outside the windows (v - v_t >= 0 sums to <= out):
    delta <= computed + (a + b)(e + 4u sum v) + 8u (1 + e^eps) sum v (the rounding of a and b)
    + a out + 2 L u computed, and delta >= computed -
    the same error - b out (the computed positive set is one set: its exact divergence is <= delta).
    """
    p, q = rr_probabilities(eps0)
    e = math.exp(eps)
    a, b = p - e * q, e * p - q
    if a <= 0.0 or eps >= eps0:   # p = e^eps0 q: delta = 0 exactly (the float a may be > 0)
        return DatasetDelta(0.0, 0.0, n_p + n_q + n_half + 2)
    off, v, err, out = 0, np.ones(1), 0.0, 0.0
    for N, prob in sorted(((n_p, p), (n_q, q), (n_half, 0.5)), key=lambda t: t[0]):
        lo, x, o = _pmf_window(N, prob, SUM_WINDOW_SD)
        sx = float(np.sum(x))
        ex = PMF_REL_ERROR * sx
        c, fft_err = linear_convolve(v, x)
        err = err * (sx + ex) + 1.01 * ex + fft_err
        off, v, out = off + lo, c, out + o
    d = a * np.concatenate(([0.0], v)) - b * np.concatenate((v, [0.0]))   # k = off, ..., off + len(v)
    pos = d > 0.0
    val = float(np.sum(d[pos]))
    u = 2.0 ** -53
    # a and b carry 4u (1 + e^eps) of rounding each (p, q, e^eps and the difference)
    slack = ((a + b) * err + (4.0 * u * (a + b) + 8.0 * u * (1.0 + e)) * float(np.sum(v))
             + 2.0 * d.size * u * val)
    first = int(np.argmax(pos)) + off if val > 0 else off + d.size
    return DatasetDelta(max(0.0, val - slack - b * out), min(1.0, val + slack + a * out), first)


def blanket_range_upper(n: int, m_lo: int, m_hi: int, eps0: float, eps: float) -> float:
    """A proved upper bound on delta_m(eps) for every m in [m_lo, m_hi] that keeps the blanket
    draws of the w = m_hi - m_lo users whose inputs vary.

    Proof.  RR(x) = x with probability 1 - g and a fair bit with probability g = 2q (so that
    it reports x with probability 1 - q = p).  Reveal, for the w varying users, which of them
    drew the fair bit (B of them, B ~ Bin(w, g) whatever their inputs) and the sum of the
    others' reports (their inputs: the same law under D and D', independent of user 1).  K is
    a function of this richer view, so delta_m(eps) is at most the richer view's divergence,
    which, the revealed part having the same law under D and D', is E_B[delta_B]: delta_B is
    the divergence of the count V_B + Bern(p) vs V_B + Bern(q) with V_B = Bin(m_lo, p) +
    Bin(n - 1 - m_hi, q) + Bin(B, 1/2) (the revealed sum is a known shift).  delta_B is
    non-increasing in B (one more fair bit, independent and the same under D and D', is a
    post-processing), so for any b0, E_B[delta_B] <= P[B < b0] * 1 + delta_{b0}.  None of it
    depends on m in the range.  b0 = mean - ``BLANKET_SD`` sd of B, P[B < b0] by Chernoff.
    The varying users keep w q variance of their w p q instead of none (``range_upper``).
    """
    w = m_hi - m_lo
    g = 2.0 * rr_probabilities(eps0)[1]
    b0, tail = 0, 0.0
    if w > 0 and g < 1.0:
        b0 = max(0, int(math.floor(w * g - BLANKET_SD * math.sqrt(w * g * (1.0 - g)))))
        if b0 > 0:
            tail = math.exp(float(binom_log_tail_bound(np.array([b0 - 1.0]), w, g, upper=False)[0]))
    return min(1.0, sum_delta(m_lo, n - 1 - m_hi, b0, eps0, eps).upper + tail)


# --------------------------------------------------------------------------- every dataset at once
# largest n of :class:`EveryDataset` (three (n, n + 2) float arrays: 24 MB at n = 1000)
EVERY_DATASET_MAX_N = 1200
# smallest distance of two outcomes' float log-ratios for which the error term is valid
RATIO_GAP = 1e-9


class EveryDataset:
    """sup over datasets of delta(eps) for binary RR at small n: max over every m in [0, n - 1]
    of delta_m(eps) (see the module docstring), each m's law of K computed once (convolution
    of the two binomials' windows), so that a profile of many eps costs one pass.

    For each m the outcomes k are sorted by their float log-ratio log P_D(k)/P_D'(k) and the
    tail sums CP, CQ of P_D, P_D' in that order are kept: delta_m(eps) = CP_j - e^eps CQ_j with
    j the number of outcomes of ratio > e^eps.  Float error: the pmfs (log-space binomials,
    sums of positive terms) and the cumulative sums carry a relative error far below
    ``REL_ERROR``, taken of CP_{j+1} + e^eps CQ_{j+1} (one outcome more: an outcome misordered by
    its float ratio lies at the threshold, where its term P - e^eps Q is within the same
    error); the windows' missing mass ``out`` is added to the upper end and e^eps out taken
    off the lower end (the truncated pmfs are below the true ones).
    """

    def __init__(self, n: int, eps0: float) -> None:
        if not (1 <= n <= EVERY_DATASET_MAX_N):
            raise ValueError(f"n must be an integer in [1, {EVERY_DATASET_MAX_N}] for the enumeration "
                             f"of every dataset (EVERY_DATASET_MAX_N: memory n^2), got {n}")
        p, q = rr_probabilities(eps0)
        P = np.zeros((n, n + 1))
        Q = np.zeros((n, n + 1))
        self.out = np.zeros(n)
        for m in range(n):
            parts = []
            for N, prob in ((m, p), (n - 1 - m, q)):
                lo, hi, out = _window(N, prob)
                x = np.arange(lo, hi + 1, dtype=np.float64)
                parts.append((lo, np.exp(binom_logpmf(x, float(N), prob)) if N > 0 else np.ones(1), out))
            v = np.convolve(parts[0][1], parts[1][1])
            off = parts[0][0] + parts[1][0]
            self.out[m] = parts[0][2] + parts[1][2]
            P[m, off + 1:off + 1 + v.size] += p * v
            P[m, off:off + v.size] += q * v
            Q[m, off + 1:off + 1 + v.size] += q * v
            Q[m, off:off + v.size] += p * v
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where((P > 0) & (Q > 0), np.log(P) - np.log(Q), np.where(P > 0, np.inf, -np.inf))
        order = np.argsort(-r, axis=1, kind="stable")
        self.ratio = np.take_along_axis(r, order, axis=1)
        # the error term covers ONE outcome misordered at the threshold: the float log-ratios
        # (error ~1e-13) must be at least RATIO_GAP apart
        fin = np.isfinite(self.ratio[:, :-1]) & np.isfinite(self.ratio[:, 1:])
        with np.errstate(invalid="ignore"):  # inf - inf where an end is not finite (masked)
            gaps = (self.ratio[:, :-1] - self.ratio[:, 1:])[fin]
        if gaps.size and float(gaps.min()) < RATIO_GAP:
            raise ArithmeticError(f"log-ratios {float(gaps.min()):.3g} apart (< {RATIO_GAP}): the "
                                  "enumeration's error term does not cover them")
        zero = np.zeros((n, 1))
        self.cp = np.hstack((zero, np.cumsum(np.take_along_axis(P, order, axis=1), axis=1)))
        self.cq = np.hstack((zero, np.cumsum(np.take_along_axis(Q, order, axis=1), axis=1)))
        self.n = n

    def delta(self, eps: float) -> tuple[float, float, int]:
        """(lower, upper) on max_m delta_m(eps) and the m of the largest lower end."""
        u = math.exp(eps)
        rows = np.arange(self.n)
        j = np.sum(self.ratio > eps, axis=1)
        j1 = np.minimum(j + 1, self.cp.shape[1] - 1)
        val = self.cp[rows, j] - u * self.cq[rows, j]
        err = REL_ERROR * (self.cp[rows, j1] + u * self.cq[rows, j1])
        low = val - err - u * self.out
        m = int(np.argmax(low))
        return max(0.0, float(low[m])), min(1.0, float(np.max(val + err + self.out))), m
