r"""Certified lower bounds from eight report patterns: OUE, and OLH, Collision, CoCo (random hash).

Part of :mod:`accountant.bounds.laws`; used by :func:`accountant.bounds.laws.lower.oue_lower_law`
and :func:`accountant.bounds.laws.lower.mechanism_lower_law` (OLH, Collision, CoCo) next to the
three-category reductions, the larger value taken at each eps.  A
:class:`accountant.bounds.laws.patterns.PatternLaw` is the pair (a, b) below with
E = a (1 - b) / (b (1 - a)).

*Datasets.*  OUE with k >= 3 values, E = e^eps0: each user sends k bits, the bit of its own
value is 1 w.p. a = 1/2, every other bit w.p. b = 1/(E + 1).  D = (1, 3, ..., 3) against
D' = (2, 3, ..., 3).  The bits other than 1, 2, 3 are i.i.d. Bern(b) for every user on both
datasets and independent of bits 1, 2, 3, so the shuffled multiset of reports and the multiset
of their patterns v = (b1, b2, b3) are post-processings of each other (drop those bits /
append fresh ones): the divergence below is the *exact* divergence of the datasets, for every
k >= 3, with no reduction of the reports.

*Other mechanisms.*  OLH, Collision and CoCo under the random-hash model have the same
structure with other a and b (:mod:`accountant.bounds.laws.patterns`: the laws, why their
indicators are independent, and for which datasets).

*The divergence as an expectation.*  With pi, p1, p2 the laws of the pattern of a user holding
3, 1, 2, the shuffled output is the pattern histogram N and
P_D(N) = Mult_n(N; pi) sum_v (N_v / n) p1(v) / pi(v), so with u = e^eps

    delta(eps) = E[(sum_i w1(v_i) - u w2(v_i))_+] / n,   v_i i.i.d. pi,
    w1(v) = p1(v)/pi(v) = E^(b1 - b3),   w2(v) = E^(b2 - b3)

(r(1) = a/b = E r(0), r(0) = (1-a)/(1-b), r3(1) = b/a = 1/r(1), r3(0) = 1/r(0); OUE:
r(1) = (E+1)/2, r(0) = (E+1)/(2E)).  Under pi, b1, b2 ~ Bern(b) and b3 ~ Bern(a), independent.  Hence
n E delta = E[(T)_+] with T = sum_i Z_i, Z = E^(1 - b3) zeta, zeta = E^b1 - u E^b2: a user
with b3 = 1 adds zeta, one with b3 = 0 adds E zeta.

*Conditioning on K = #{b3 = 1} ~ Bin(n, a).*  With X1, Y1 the numbers of b1 = 1, b2 = 1
among those K users and X0, Y0 among the other n - K (all independent Bin(., b) given K),

    T = m(K) + (E - 1) (V - u V'),   V = X1~ + E X0~,  V' = Y1~ + E Y0~,
    m(K) = (1 - u) kappa (K + E (n - K)),   kappa = (mean of zeta) / (1 - u) = 1 + (E - 1) b,

X~ = X - b N the centred counts (N the count's number of trials); given K, V and V' are
i.i.d.

*Three certified steps, each a lower bound of E[T_+]* (the Jensen steps lose second order in
their widths; the K-bins lose a variance linear in theirs, a small fraction of Var T):

1. K-bins.  For K in a bin [K_lo, K_hi], T - m(K) is a sum of K centred terms zeta~ and n - K
   terms E zeta~.  Scaling a mean-zero variable by E >= 1 increases it in the convex order
   (t -> E f(t zeta~) is convex with zero slope at 0), and the convex order is kept by
   independent sums, so T - m(K) dominates T_hi - m(K_hi), the same sum with K_hi users in
   the first group.  With G(c) = E[(c + T_hi - m(K_hi))_+] (convex in c),
   sum_{K in bin} P(K) E[T(K)_+] >= sum P(K) G(m(K)) >= P(bin) G(m-bar) (Jensen; m-bar the
   bin's mean of m(K), m is affine in K).  What is lost is the variance
   (E^2 - 1) Var(zeta)(K_hi - K), a fraction ~ w (E^2 - 1)/((E^2 + 1) n) of Var T for a bin of
   width w: the bin width is ``K_BIN_FRACTION n (E^2 + 1)/(E^2 - 1)``, doubled for every
   standard deviation of K beyond two (every K its own bin below n = ``K_EXACT_N``).
2. Groups.  (c + (E-1)(V - u V'))_+ is jointly convex in the four independent counts, so
   replacing the counts of any partition cell by their conditional mean (Jensen given the
   cell) is a lower bound.  X1 is cut into bins of width h, X0 into bins of width
   max(1, floor(h/E)), and the pairs of bins are grouped by the cell of width h of their
   V (``GROUP_RESOLUTION`` cells per standard deviation of V; no binning of the counts while
   h < 1, n below about 2e4 at eps0 = 0.5; no grouping at all when the pairs are few).  The
   groups' masses and first moments are three discrete convolutions of non-negative arrays.
3. Windows.  Each count is summed over mean +- z standard deviations,
   z = sqrt(2 ln(1/target)) + ``WINDOW_EXTRA_SD`` (and z^2/3 more above); the left-out mass is
   dropped (the integrand is >= 0).

Then E[(c + (E-1)(V - u V'))_+] over the groups is one sort and two suffix sums: for the
group j of V', the groups i of V with v_i > u v_j - c/(E-1) (any set of i gives a lower
bound: (x)_+ >= x).

*Float certification.*  The pmfs come from Loader's formula
(:func:`accountant.engines.binomial.binom_logpmf`, ~1e-15 absolute in the log, checked
against 40-digit mpmath in tests/accountant/bounds/test_pattern_lower.py).  The floats a, b and E
are the nearest to their exact values (40-digit evaluation, :class:`PatternLaw`); a move of
a or b by up to 6 ulp changes a pmf of
Bin(N, p) inside its window (|x - N p| <= z sd + z^2/3 + 2) by at most
6 ulp (z sd + z^2/3 + 2)/(1 - p) relatively (:func:`_parameter_margin`, the five pmfs added;
about 2e-8 for OUE at n = 1e10, 9e-8 for OLH with a near 1).  Every weight is a product of
five pmfs, summed over at most ``MAX_WINDOW`` terms of one sign (relative error <= 2.2e-10
per sum), so the value is multiplied by 1 - ``OUE_FULL_REL_MARGIN`` - that parameter margin,
``OUE_FULL_REL_MARGIN`` = 1e-7 covering the rest.  The
positions are lowered explicitly (:func:`_position_margin`): c is decreased by
(E-1)(1+u) (L + 64) 2^-50 times the span of the windows (a group mean is a ratio of sums of
at most L terms of one sign), 1e-14 (1+E)^2 (1+u)(n+1) (the float E, b, u and the centring:
<= 20 ulp (1+E)^2 (1+u) n in T), and (w + 64) 2^-50 |m-bar| (a mean over w values of K), so
every group sits on its safe side.  In the last sum, each term c P_j + (E-1) M_j mixes signs;
it is lowered by the explicit bound (G + 16) 2^-52 (P_j(|c| + (E-1)(|v_0| + u |v_j|)) +
(E-1) M_j) on its rounding error (G groups: twice the first-order bound) and clipped at 0.
The result is a certified lower bound on the exact divergence (brute force for n <= 4 and
50-digit sums at n = 40 in the tests lie above it, within 1e-6).

*Cost.*  Per K-bin: two pmf windows (~ 20 sd each), three convolutions of at most about
(2 z GROUP_RESOLUTION)^2 / 2 products, one sort; the number of K-bins falls like 1/sqrt(n)
(about a hundred at n = 1e4, a few from n ~ 1e8 on).  ``MAX_SECONDS`` caps the estimated cost
(then None, and the caller keeps the three-category laws).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

import numpy as np

from accountant.bounds.laws.patterns import PatternLaw
from accountant.engines.binomial import binom_logpmf, binom_logpmf_range

# relative margin on the value: pmf errors, the float b, sums of one sign (module docstring)
OUE_FULL_REL_MARGIN = 1e-7
# cells of the aggregate V per standard deviation of V (step 2)
GROUP_RESOLUTION = 100
# K-bin width as a fraction of n, times (E^2 + 1)/(E^2 - 1) (step 1)
K_BIN_FRACTION = 3e-4
# a chart's coarse evaluation (``coarse=True``: the dashboard's curves, rtol 1e-4): cells of
# sd(V)/20 and K-bins 10x wider, 10-30x cheaper; still certified, only a little lower
# (how much lower: docs/BENCHMARKS.md)
COARSE = dict(resolution=20, k_bin_fraction=3e-3)


def _settings(coarse: bool) -> dict:
    """The cells' resolution and the K-bins' width fraction: :data:`COARSE`, or the module's
    ``GROUP_RESOLUTION`` and ``K_BIN_FRACTION`` (read at each call)."""
    return COARSE if coarse else dict(resolution=GROUP_RESOLUTION, k_bin_fraction=K_BIN_FRACTION)
# windows: sqrt(2 ln(1/target)) + this many standard deviations (step 3)
WINDOW_EXTRA_SD = 4.0
# below this n every K is its own bin (no widening in the tails: exact up to the margins)
K_EXACT_N = 500
# window target when none is given and no estimate is at hand
DEFAULT_TARGET = 1e-12
# caps: longest pmf window, and the estimated seconds of one evaluation (:func:`full_work`)
MAX_WINDOW = 2_000_000
MAX_SECONDS = 1.0
# pmf windows evaluated in one vectorised call up to this many points in all, unless every
# window is longer than LONG_WINDOW (then the anchored ranges are ~10x cheaper: n >= ~1e8)
BATCH_POINTS = 400_000
LONG_WINDOW = 4096
# below this many (X1, X0) pairs the pairs are kept as they are (no grouping: exact at small n)
EXACT_PAIRS = 4096


def _constants(pat: PatternLaw, eps: float) -> tuple[float, float, float, float]:
    return pat.E, pat.a, pat.b, math.exp(eps)


def full_pattern_atoms(pat: PatternLaw, eps: float) -> tuple[tuple, tuple]:
    """(probabilities, values) of Z = E^(1 - b3)(E^b1 - u E^b2) under pi (eight atoms): n E delta
    is E[(Z_1 + ... + Z_n)_+] (module docstring)."""
    E, a, b, u = _constants(pat, eps)
    ps, vs = [], []
    for b3 in (0, 1):
        for b1 in (0, 1):
            for b2 in (0, 1):
                ps.append((a if b3 else 1.0 - a) * (b if b1 else 1.0 - b) * (b if b2 else 1.0 - b))
                vs.append(E ** (1 - b3) * (E ** b1 - u * E ** b2))
    return tuple(ps), tuple(vs)


def approx_log_delta_full(pat: PatternLaw, n: int, eps: float) -> Optional[float]:
    """Saddle-point estimate of log delta(eps) of the eight patterns (not certified: a search's
    start and a cost rule); None when there is no estimate."""
    from accountant.engines.saddle import log_positive_part

    if eps >= pat.eps_max:
        return -math.inf
    lp = log_positive_part(*full_pattern_atoms(pat, eps), n)
    return lp if lp is None or lp == -math.inf else lp - math.log(n * pat.E)


def _parameter_margin(n: int, a: float, b: float, z: float) -> float:
    """Relative change of the product of the five pmfs (K ~ Bin(n, a), four counts ~ Bin(<= n, b))
    inside their windows when a and b move by 6 ulp (module docstring, *Float certification*)."""
    tot = 0.0
    for p, times in ((a, 1), (b, 4)):
        tot += times * 6.0 * 2.0 ** -52 * (z * math.sqrt(n * p * (1.0 - p)) + z * z / 3.0 + 2.0) / (1.0 - p)
    return tot


def _zt(target: float) -> float:
    t = min(max(target, 1e-300), 0.5)
    return math.sqrt(2.0 * math.log(1.0 / t)) + WINDOW_EXTRA_SD


def _window(N: int, p: float, z: float) -> tuple[int, int]:
    """mean -+ z sd, and z^2/3 more above (Bernstein's tail exp(-t^2 / (2 (sd^2 + t/3))): the
    skewed upper tail of a binomial with a small p or N)."""
    mu = N * p
    sd = math.sqrt(N * p * (1.0 - p))
    return max(0, math.floor(mu - z * sd) - 1), min(N, math.ceil(mu + z * sd + z * z / 3.0) + 1)


def _pmf_windows(Ns, p: float, z: float) -> list:
    """[(lo, pmf of Bin(N, p) on lo, ..., hi)] for each N of ``Ns`` (windows of :func:`_window`):
    one vectorised call for many short windows, anchored ranges for long ones."""
    wins = [_window(int(N), p, z) for N in Ns]
    lens = [hi - lo + 1 for lo, hi in wins]
    if sum(lens) > BATCH_POINTS or min(lens) > LONG_WINDOW:
        return [(lo, np.exp(binom_logpmf_range(lo, hi, int(N), p))) for (lo, hi), N in zip(wins, Ns)]
    x = np.concatenate([np.arange(lo, hi + 1, dtype=np.float64) for lo, hi in wins])
    pm = np.exp(binom_logpmf(x, np.repeat(np.asarray(Ns, dtype=np.float64), lens), p))
    return [(lo, part) for (lo, _), part in zip(wins, np.split(pm, np.cumsum(lens)[:-1]))]


def _binned(pm: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """(masses, mean offsets from the window's start) of consecutive bins of ``w`` values of a
    pmf window (every bin kept, masses may be 0)."""
    off = np.arange(pm.size, dtype=np.float64)
    if w == 1:
        return pm, off
    idx = np.arange(0, off.size, w)
    P = np.add.reduceat(pm, idx)
    M = np.add.reduceat(pm * off, idx)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(P > 0.0, M / np.where(P > 0.0, P, 1.0), off[idx])
    return P, mean


@dataclass(frozen=True)
class _Groups:
    """The law of V = X1~ + E X0~ as sorted group means ``v`` and masses ``p``, and the span of
    the windows (for the position margin)."""

    v: np.ndarray
    p: np.ndarray
    span: float
    terms: int


def _cell_width(N1: int, N0: int, b: float, E: float, resolution: int) -> tuple[float, int, int]:
    """(h, w1, w0) of step 2: cells of h = sd(V)/``resolution``, bins of X1 and X0 of at most h
    in V's units (none below h = 1)."""
    var1, var0 = N1 * b * (1.0 - b), N0 * b * (1.0 - b)
    h = max(math.sqrt(var1 + E * E * var0) / resolution, 1e-3)
    return h, max(1, math.floor(h)), max(1, math.floor(h / E))


def _v_groups(N1: int, N0: int, b: float, E: float, x1, x0, resolution: int) -> _Groups:
    """Step 2 for X1 ~ Bin(N1, b), X0 ~ Bin(N0, b) given as pmf windows ``x1``, ``x0``
    ((lo, pmf) of :func:`_pmf_windows`)."""
    h, w1, w0 = _cell_width(N1, N0, b, E, resolution)
    (lo1, pm1), (lo0, pm0) = x1, x0
    if pm1.size * pm0.size <= EXACT_PAIRS:
        w1 = w0 = 1  # few pairs: every (x1, x0) kept, no Jensen step
    P1, o1 = _binned(pm1, w1)
    P0, o0 = _binned(pm0, w0)
    origin = (lo1 - N1 * b) + E * (lo0 - N0 * b)
    y = E * o0
    span = float(pm1.size) + E * float(pm0.size)
    if P1.size * P0.size <= EXACT_PAIRS:
        v = (o1[:, None] + y[None, :]).ravel()
        p = (P1[:, None] * P0[None, :]).ravel()
    else:
        # the group of the pair of bins: floor(x1/h) + floor(E x0/h), offsets from (lo1, lo0)
        f = np.floor(o1 / h).astype(np.int64)
        g = np.floor(y / h).astype(np.int64)
        s1, s1o = np.bincount(f, weights=P1), np.bincount(f, weights=P1 * o1)
        s0, s0y = np.bincount(g, weights=P0), np.bincount(g, weights=P0 * y)
        mass = np.convolve(s1, s0)
        mom = np.convolve(s1o, s0) + np.convolve(s1, s0y)
        keep = mass > 0.0
        p = mass[keep]
        v = mom[keep] / p
    keep = p > 0.0
    v, p = v[keep], p[keep]
    order = np.argsort(v, kind="stable")
    return _Groups(origin + v[order], p[order], span, pm1.size + pm0.size + v.size)


def _position_margin(E: float, u: float, n: int, gr: _Groups, mbar: float, wK: int) -> float:
    """Bound on the absolute float error of c + (E-1)(v_i - u v_j) from the positions (module
    docstring, *Float certification*): ``gr.terms`` terms at most in a sum of one sign behind
    a group mean (relative error <= 2 (terms + 2) ulp of the span), E, b, u and the centring
    (<= 20 ulp (1 + E)^2 (1 + u) n), m-bar (a mean of ``wK`` terms)."""
    ulp4 = 2.0 ** -50
    return ((E - 1.0) * (1.0 + u) * (gr.terms + 64) * ulp4 * gr.span
            + 1e-14 * (1.0 + E) ** 2 * (1.0 + u) * (n + 1.0) + (wK + 64) * ulp4 * abs(mbar))


def _pair_excess(c: float, gr: _Groups, E: float, u: float) -> tuple[float, float, float]:
    """(certified lower end of sum_{i,j} p_i p_j (c + (E-1)(v_i - u v_j))_+, sum_j p_j P_j,
    sum_j p_j P_j v_j) with P_j the mass of the i in the positive set (the last two for a
    slope estimate only)."""
    v, p = gr.v, gr.p
    G = v.size
    d = E - 1.0
    v0 = v[0]
    Psuf = np.append(np.cumsum(p[::-1])[::-1], 0.0)
    Msuf = np.append(np.cumsum((p * (v - v0))[::-1])[::-1], 0.0)
    i0 = np.searchsorted(v, u * v - c / d, side="right")
    Pt, Mt = Psuf[i0], Msuf[i0]
    term = Pt * (c + d * (v0 - u * v)) + d * Mt
    err = (G + 16) * 2.0 ** -52 * (Pt * (abs(c) + d * (abs(v0) + u * np.abs(v))) + d * Mt)
    val = float(np.sum(p * np.maximum(term - err, 0.0)))
    return val, float(np.sum(p * Pt)), float(np.sum(p * Pt * v))


def _k_bins(n: int, E: float, a: float, z: float, k_bin_fraction: float,
            k_exact_n: int) -> tuple[int, list]:
    """(start of the K-window, [(first, last) index of each K-bin in the window]), K ~ Bin(n, a):
    width w = K_BIN_FRACTION n (E^2 + 1)/(E^2 - 1) (at least 1) within 2 standard deviations of n a,
    doubled for every further standard deviation from n = K_EXACT_N on (the tails carry little
    mass: the loss of a bin is about its mass times its width; below, w = 1: every K exact)."""
    lo, hi = _window(n, a, z)
    w = max(1, math.floor(k_bin_fraction * n * (E * E + 1.0) / (E * E - 1.0)))
    sd, mid = math.sqrt(n * a * (1.0 - a)), a * n

    def width(K: int) -> int:
        if n < k_exact_n:
            return w
        return w << min(40, max(0, math.floor(abs(K - mid) / sd) - 2))

    cuts = {lo - 1, hi}
    c = math.floor(mid)
    while c < hi:
        cuts.add(c)
        c += width(c + 1)
    c = math.floor(mid)
    while c >= lo:
        cuts.add(c)
        c -= width(c)
    cuts = sorted(x for x in cuts if lo - 1 <= x <= hi)
    return lo, [(a + 1 - lo, b_ - lo) for a, b_ in zip(cuts[:-1], cuts[1:])]


def full_work(pat: PatternLaw, n: int, target: float, coarse: bool = False) -> float:
    """Estimated seconds of one evaluation (fitted on a 2-core machine, within a
    factor 2 on 14 points from n = 100 to 1e9 and targets 1e-6 to 1e-84: 0.2 ms a K-bin,
    150 ns a pmf point, 0.12 ns a convolution product), inf beyond ``MAX_WINDOW``: the cost
    rule of :func:`full_lower_delta`."""
    E, a, b, _ = _constants(pat, 0.0)
    z = _zt(target)
    st = _settings(coarse)
    lo, bins = _k_bins(n, E, a, z, st["k_bin_fraction"], K_EXACT_N)
    N1 = min(n, round(n * a))
    N0 = n - N1
    (lo1, hi1), (lo0, hi0) = _window(N1, b, z), _window(N0, b, z)
    if max(bins[-1][1] + 1, hi1 - lo1 + 1, hi0 - lo0 + 1) > MAX_WINDOW:
        return math.inf
    h, _, _ = _cell_width(N1, N0, b, E, st["resolution"])
    prods = ((hi1 - lo1) / h + 1.0) * (E * (hi0 - lo0) / h + 1.0)
    return len(bins) * (2e-4 + 1.5e-7 * ((hi1 - lo1) + (hi0 - lo0)) + 3.6e-10 * prods)


@lru_cache(maxsize=4)
def _pmfs(pat: PatternLaw, n: int, z: float, k_bin_fraction: float, k_exact_n: int) -> tuple:
    """(start of the K-window, K-bins, pmf of K on its window, X1's and X0's pmf windows for the
    last K of each bin): what does not depend on eps, shared by a search's evaluations (arrays
    read-only; at most ~1.5e6 values at n = 1e9, four entries kept)."""
    E, a, b, _ = _constants(pat, 0.0)
    lo, bins = _k_bins(n, E, a, z, k_bin_fraction, k_exact_n)
    qK = np.exp(binom_logpmf_range(lo, lo + bins[-1][1], n, a))
    K_his = [lo + last for _, last in bins]
    X1 = _pmf_windows(K_his, b, z)
    X0 = _pmf_windows([n - K for K in K_his], b, z)
    for arr in [qK] + [pm for _, pm in X1 + X0]:
        arr.flags.writeable = False
    return lo, tuple(bins), qK, tuple(X1), tuple(X0)


def full_lower_delta(pat: PatternLaw, n: int, eps: float, target: Optional[float] = None,
                     coarse: bool = False) -> Optional[tuple[float, float]]:
    """(certified lower bound on delta(eps) of the eight patterns of ``pat``, i.e. of the
    mechanism on its datasets (module docstring), an estimate of d delta / d eps), or None when the evaluation
    would take more than ``MAX_SECONDS`` (:func:`full_work`: targets below about 1e-55; the caller
    then keeps the three-category laws).

    Parameters
    ----------
    pat : PatternLaw
        The pattern law (:mod:`accountant.bounds.laws.patterns`: ``oue_patterns``,
        ``olh_patterns``, ``collision_patterns``, ``coco_patterns``);
        k >= 3 does not enter (module docstring).
    n : int
        Number of users (>= 1).
    eps : float
        Central eps (>= 0).
    target : float, optional
        The delta a search aims at: the windows cover sqrt(2 ln(1/target)) + 4 standard
        deviations (only the accuracy depends on it, never the validity).  Without it, the
        saddle-point estimate of delta(eps) (or ``DEFAULT_TARGET``).
    coarse : bool
        Wider cells and K-bins (``COARSE``): a chart's cheaper, slightly lower, still
        certified value.
    """
    if eps >= pat.eps_max:
        return 0.0, 0.0  # every likelihood ratio is <= E: the divergence is 0 from log E on
    E, a, b, u = _constants(pat, eps)
    if target is None:
        est = approx_log_delta_full(pat, n, eps)
        target = DEFAULT_TARGET if est is None or not est > math.log(1e-300) else min(math.exp(est), 0.5)
    if full_work(pat, n, target, coarse) > MAX_SECONDS:
        return None
    st = _settings(coarse)
    z = _zt(target)
    d = E - 1.0
    kappa = 1.0 + d * b
    lo, bins, qK, X1, X0 = _pmfs(pat, n, z, st["k_bin_fraction"], K_EXACT_N)
    Ks = np.arange(lo, lo + qK.size, dtype=np.float64)
    K_his = [lo + last for _, last in bins]
    total = slope = 0.0
    for (first, last), K_hi, x1, x0 in zip(bins, K_his, X1, X0):
        q = qK[first:last + 1]
        Q = float(np.sum(q))
        if not Q > 0.0:
            continue
        Kbar = float(np.sum(q * Ks[first:last + 1])) / Q
        aK = kappa * (E * n - d * Kbar)  # m(K) = (1 - u) aK(K), affine in K
        mbar = (1.0 - u) * aK
        gr = _v_groups(K_hi, n - K_hi, b, E, x1, x0, st["resolution"])
        c = mbar - _position_margin(E, u, n, gr, mbar, last + 1 - first)
        val, Pp, Pv = _pair_excess(c, gr, E, u)
        total += Q * val
        slope -= Q * (aK * Pp + d * Pv)  # d/du of the positive part (a search's estimate)
    scale = 1.0 / (n * E)
    margin = OUE_FULL_REL_MARGIN + _parameter_margin(n, a, b, z)
    return max(total * scale * (1.0 - margin), 0.0), u * slope * scale


@dataclass(frozen=True)
class FullPatterns:
    """The exact divergence of the eight patterns of ``pat`` (OUE; OLH under the random hash,
    the exact divergence of its datasets; Collision under the random hash, a reduction of its
    reports): an evaluator for :class:`accountant.bounds.laws.lower.LowerLaw` (its ``full``),
    certified by :func:`full_lower_delta`."""

    pat: PatternLaw

    @property
    def eps_max(self) -> float:
        return self.pat.eps_max

    def delta_and_slope(self, n: int, eps: float, target: Optional[float] = None,
                        coarse: bool = False) -> Optional[tuple[float, float]]:
        """(certified lower delta, slope estimate), or None beyond the caps; ``coarse``: a
        chart's cheaper evaluation (:data:`COARSE`)."""
        return full_lower_delta(self.pat, n, eps, target, coarse)

    def applies(self, n: int, target: float) -> bool:
        """Whether :meth:`delta_and_slope` evaluates at ``n`` for windows of ``target``."""
        return full_work(self.pat, n, target) <= MAX_SECONDS

    def approx_log_delta(self, n: int, eps: float) -> Optional[float]:
        return approx_log_delta_full(self.pat, n, eps)

    def approx_epsilon(self, n: int, delta: float) -> Optional[float]:
        """Saddle-point estimate of the eps where the divergence crosses ``delta`` (a search's
        start, never reported)."""
        from accountant.engines.saddle import root_of_decreasing

        return root_of_decreasing(lambda e: approx_log_delta_full(self.pat, n, e), math.log(delta),
                                  self.pat.eps_max)
