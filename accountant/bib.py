"""Exact privacy accounting for the balls-into-bins mechanism M^BIB(m, s, k, n, p).

Luo, Wang, Yi, "Frequency estimation in the shuffle model with (almost) a single
message", Algorithm 1 and Theorem 2.1.  On input S subset [m], |S| = s, the
mechanism outputs the multiset of: one *real* ball in a uniform bin of S, k fixed
noise balls and, for each of n users independently with probability p, one more
noise ball, every noise ball in a uniform bin of [m].  Neighbours: |S| = |S'| = s,
S' != S.  Theorem 2.1: (eps, delta)-DP when 0 < eps <= 3 and
k + n p >= 32 ln(2/delta)/eps^2 * m/s.

Exact divergence (derivation)
-----------------------------
Let W be the vector of bin counts, w = sum W, N = k + Bin(n, p) the number of
noise balls, and for a set X let W_X = sum_{i in X} w_i.  As in the proof of
Theorem 2.1, P_S(W) = (1/s) sum_{i in S} P[M_0 = W - e_i] = h(W) W_S / s with

    h(W) = P[N = w-1] (w-1)! / prod_i w_i!  m^{-(w-1)} = P[N = w-1] (m/w) Mult_w(W),

Mult_w the uniform multinomial on [m] with w balls (the paper omits m^{-(w-1)},
which cancels).  Hence P_S(W)/P_S'(W) = W_S / W_S' and, exactly,

    H_eps(P_S || P_S') = (1/s) sum_W h(W) (W_S - e^eps W_S')_+ .

Write t = |S n S'|, C = S n S', D = S \\ S', E = S' \\ S, u = |S u S'| = 2s - t.
Then W_S - e^eps W_S' = W_D - e^eps W_E - (e^eps - 1) W_C depends only on the
counts in S u S'.  Marginalising h to y = W_{S u S'} (identity C(w,y)/w =
C(w-1,y-1)/y) gives the weight (u/y) P[T = y-1] with

    T ~ Bin(k, u/m) + Bin(n, p u/m)    (noise balls landing in S u S'),

and given y the counts (W_C, W_D, W_E) are Mult(y; t/u, (s-t)/u, (s-t)/u).  So

    delta(eps) = sum_{y>=1} P[T = y-1] u/(s y) sum_c Bin(c; y, t/u) I(y - c, c),
    I(L, c) = E_{d ~ Bin(L, 1/2)} [((1 + e^eps) d - e^eps L - (e^eps - 1) c)_+],

and with x0 the smallest integer with (1+e^eps) x0 > e^eps L + (e^eps-1) c,
b' = P[Bin(L-1,1/2) = x0-1], S' = P[Bin(L-1,1/2) >= x0] (closed form, no sum):

    I(L, c) = [(L - (e^eps-1) c) b' - (e^eps-1)(L + 2c) S'] / 2.

Worst case over the overlap.  delta is non-increasing in t, so the worst case is
t* = max(0, 2s - m) (disjoint sets whenever m >= 2s).  Proof: move r = t - t' of
the common bins (set M) to r bins F outside S u S' (they exist iff t' >= 2s - m).
Condition on all counts but the split (Z, M' - Z) of the balls in M u F; Z is
Bin(M', 1/2) under the weighted multinomial.  With x the rest of the linear form,
the t-pair integrand is (x - (e^eps-1) Z)_+ and the t'-pair integrand is
(x + Z - e^eps (M'-Z))_+, which by the symmetry Z <-> M'-Z has the same mean as
(x + M' - (1+e^eps) Z)_+.  Pairing z <= z' = M' - z, with a = x - e^eps z,
b = x - e^eps z': the t-pair values are {a + z, b + z'}, the t'-pair values
{a + z', b + z}: same sum, and the latter majorises the former, so by convexity
of (.)_+ the t'-pair is at least as large.  (Tests confirm this against full
enumeration over every S'.)

For t = 0 the inner sum is the single term c = 0 and the formula collapses to
delta = sum_T P[T] ( P[B_T >= u1] - e^eps P[B_T >= u1+1] ), B_T ~ Bin(T, 1/2),
u1 = smallest U with 1 + U > e^eps (T - U): one dimension.

Certification.  The float path sums over a window of T (and of c) chosen from
the target delta by Chernoff bounds; the left-out probability is bounded by the
Chernoff bound and added (each left-out (y, c) term is at most its weight:
u/(s y) I <= u/(2s) <= 1), plus a relative floating-point margin
``FLOAT_REL_ERROR``.  The mpmath path sums the proof's own two/three-dimensional
expression directly (no closed form, independent check) at high precision.

Expected blanket messages per user rho.  In Algorithm 1 a user adds at most one
ball, so rho = p <= 1.  For rho > 1 we follow Section 2.3 of the paper (Algorithm 4, lines 4-11):
M^BIB(m, s, k + n floor(rho), n, rho - floor(rho)) (each user sends floor(rho)
balls for sure and one more with probability frac(rho)); ``params_for_rho``.
delta is non-increasing in k, p and rho (adding independent uniform balls is
post-processing of the output).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .limits import MAX_BIB_BALLS, MAX_N, check_count

from .binomial import binom_log_tail_bound, binom_logpmf_range, half_tail_ratio

FLOAT_REL_ERROR = 1e-9
TRUNCATION_FRACTION = 1e-10
DEFAULT_TRUNCATION = 1e-30  # absolute mass left out when no target delta is given
PAPER_EPS_MAX = 3.0


# ----------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------

def _int(name: str, v, lo: int, hi: Optional[int] = None) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        if isinstance(v, float) and math.isfinite(v) and v.is_integer():
            v = int(v)
        else:
            raise ValueError(f"{name} must be an integer, got {v!r}")
    v = int(v)
    if v < lo or (hi is not None and v > hi):
        rng = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
        raise ValueError(f"{name} must be an integer {rng}, got {v}")
    return v


def _num(name: str, v, lo: float, hi: float, lo_open=False, hi_open=False) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number, got {v!r}")
    v = float(v)
    bad = (not math.isfinite(v) or v < lo or v > hi or (lo_open and v == lo) or (hi_open and v == hi))
    if bad:
        rng = ("(" if lo_open else "[") + f"{lo:g}, {hi:g}" + (")" if hi_open else "]")
        raise ValueError(f"{name} must lie in {rng}, got {v!r}")
    return v


def _check(m, s, k, n, p):
    m = _int("m", m, 2)
    s = _int("s", s, 1, m - 1)
    k = _int("k", k, 0)
    n = _int("n", n, 0, MAX_N)
    p = _num("p", p, 0.0, 1.0)
    # the same work limit as the command line (accountant.limits.MAX_BIB_BALLS)
    check_count("k + n p", k + n * p, MAX_BIB_BALLS, "expected blanket balls", "lower n, p (or rho) or k")
    return m, s, k, n, p


def worst_overlap(m: int, s: int) -> int:
    """The overlap |S n S'| maximising delta: max(0, 2s - m) (module docstring)."""
    return max(0, 2 * s - m)


def params_for_rho(k: int, n: int, rho: float) -> tuple[int, float]:
    """(k_eff, p) of M^BIB when each user sends rho blanket balls in expectation.

    rho <= 1: (k, rho) (Algorithm 1).  rho > 1: (k + n floor(rho), frac(rho)), the
    split of the paper's Section 2.3 (Algorithm 4).
    """
    rho = _num("rho", rho, 0.0, 1e12)
    if rho <= 1.0:
        return k, rho
    f = math.floor(rho)
    return k + n * int(f), rho - f


# ----------------------------------------------------------------------------
# float path
# ----------------------------------------------------------------------------

def _component(N: int, q: float, log_mass: float):
    """Window [lo, hi] of Bin(N, q), its pmf there, and a bound on the mass outside."""
    if N == 0 or q == 0.0:
        return 0, np.ones(1), 0.0
    if q == 1.0:
        return N, np.ones(1), 0.0
    mean = N * q

    def lt(x):  # Chernoff bound on log P[Bin <= x]
        return float(binom_log_tail_bound(np.array([float(x)]), N, q, upper=False)[0])

    def ut(x):  # Chernoff bound on log P[Bin >= x]
        return float(binom_log_tail_bound(np.array([float(x)]), N, q, upper=True)[0])

    # hi: smallest integer >= mean with ut(hi + 1) <= log_mass
    if ut(N) > log_mass:
        hi = N
    else:
        a, b = int(math.floor(mean)), N  # ut(b) <= log_mass
        while b - a > 1:
            mid = (a + b) // 2
            if ut(mid) <= log_mass:
                b = mid
            else:
                a = mid
        hi = b - 1
    if lt(0) > log_mass:
        lo = 0
    else:
        a, b = 0, int(math.ceil(mean))  # lt(a) <= log_mass
        while b - a > 1:
            mid = (a + b) // 2
            if lt(mid) <= log_mass:
                a = mid
            else:
                b = mid
        lo = a + 1
    hi = max(hi, lo)
    trunc = 0.0
    if hi < N:
        trunc += math.exp(ut(hi + 1))
    if lo > 0:
        trunc += math.exp(lt(lo - 1))
    pmf = np.exp(binom_logpmf_range(lo, hi, N, q))
    return lo, pmf, trunc


def _noise_window(u: int, m: int, k: int, n: int, p: float, log_mass: float):
    """pmf of T ~ Bin(k, u/m) + Bin(n, p u/m) on a window, and the mass left out."""
    q = u / m
    lo1, f1, t1 = _component(k, q, log_mass)
    lo2, f2, t2 = _component(n, p * q, log_mass)
    pmf = np.convolve(f1, f2)
    return lo1 + lo2, pmf, t1 + t2


def _inner(L: np.ndarray, c: np.ndarray, e: float):
    """I(L, c) and its e^eps coefficient Q(L, c) (vectorised; module docstring).

    Returns (I, Q) with I = E[(d + c) - e (L - d + c); d >= x0] and Q the second
    expectation; zero where no d is positive.
    """
    L = np.asarray(L, dtype=np.int64)
    c = np.asarray(c, dtype=np.int64)
    I = np.zeros(L.shape)
    Q = np.zeros(L.shape)
    x0 = _threshold(L, c, e)
    ok = (L >= 1) & (x0 <= L)
    if not np.any(ok):
        return I, Q
    Lk, ck, xk = L[ok], c[ok], x0[ok]
    K = xk - 1
    logb = _logpmf_half(K, Lk - 1)
    bK = np.exp(logb)
    # S' = P[Bin(L-1, 1/2) >= x0] = b'(x0) R(x0),  b'(x0)/b'(K) = (L - x0)/x0
    ratio = np.zeros(Lk.shape)
    inside = xk <= Lk - 1
    if np.any(inside):
        ratio[inside] = ((Lk[inside] - xk[inside]) / xk[inside]) * half_tail_ratio(xk[inside], Lk[inside] - 1)
    Lf, cf = Lk.astype(np.float64), ck.astype(np.float64)
    bracket = (Lf - (e - 1.0) * cf) - (e - 1.0) * (Lf + 2.0 * cf) * ratio
    I[ok] = np.maximum(0.5 * bK * bracket, 0.0)
    Q[ok] = 0.5 * bK * ((Lf + 2.0 * cf) * ratio + cf)
    return I, Q


def _positive(x: np.ndarray, L: np.ndarray, c: np.ndarray, e: float) -> np.ndarray:
    """Whether d = x gives a positive term: W_S = x + c > e W_S' = e (L - x + c)."""
    a = (x + c).astype(np.float64)
    b = (L - x + c).astype(np.float64)
    return (b == 0) & (a > 0) | (b > 0) & (a > e * b)


def _threshold(L: np.ndarray, c: np.ndarray, e: float) -> np.ndarray:
    """Smallest integer x0 with x0 + c > e (L - x0 + c) (L + 1 when none), exactly.

    The closed form floor((e L + (e-1) c)/(1+e)) + 1 is only a starting point: it
    rounds wrongly for huge e (it would miss W_S' = 0); the integer predicate
    decides (the predicate is monotone in x).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        thr = (e * L + (e - 1.0) * c) / (1.0 + e)
    thr = np.where(np.isfinite(thr), thr, L.astype(np.float64))
    x0 = np.clip(np.floor(thr).astype(np.int64) + 1, 0, L + 1)
    for _ in range(4):
        down = (x0 >= 1) & _positive(x0 - 1, L, c, e)
        x0 = np.where(down, x0 - 1, x0)
        up = (x0 <= L) & ~_positive(x0, L, c, e)
        x0 = np.where(up, x0 + 1, x0)
    # a final check: the predicate must hold at x0 and fail at x0 - 1
    bad = ((x0 <= L) & ~_positive(x0, L, c, e)) | ((x0 >= 1) & (x0 - 1 <= L) & _positive(x0 - 1, L, c, e))
    if np.any(bad):  # pragma: no cover - more than 4 steps from the closed form
        raise ArithmeticError("threshold search did not settle")
    return x0


def _logpmf_half(K: np.ndarray, N: np.ndarray) -> np.ndarray:
    from .binomial import binom_logpmf

    return binom_logpmf(K, N, 0.5)


@dataclass(frozen=True)
class BibDelta:
    """delta(eps) of M^BIB with certified bounds.

    upper : certified upper bound (window sum + float margin + left-out mass).
    lower : certified lower bound (window sum - float margin).
    value : the window sum.   slope : d delta / d eps of the window sum (<= 0).
    overlap : the worst-case |S n S'| used.   truncated : left-out mass added.
    """

    eps: float
    value: float
    upper: float
    lower: float
    truncated: float
    slope: float
    overlap: int


def bib_divergence(eps: float, m: int, s: int, k: int, n: int, p: float,
                   target: Optional[float] = None, overlap: Optional[int] = None) -> BibDelta:
    """Exact hockey-stick divergence H_{e^eps}(M(S) || M(S')), certified bounds.

    ``overlap`` = |S n S'| (default: the worst case max(0, 2s - m)); ``target`` (a
    delta of interest) sets the truncation budget TRUNCATION_FRACTION * target.
    """
    m, s, k, n, p = _check(m, s, k, n, p)
    eps = _num("eps", eps, 0.0, 700.0)
    t = worst_overlap(m, s) if overlap is None else _int("overlap", overlap, worst_overlap(m, s), s - 1)
    budget = DEFAULT_TRUNCATION if target is None else TRUNCATION_FRACTION * _num(
        "target", target, 0.0, 1.0, lo_open=True)
    log_mass = math.log(budget / 4.0)
    e = math.exp(eps)
    u = 2 * s - t
    T0, pT, trunc = _noise_window(u, m, k, n, p, log_mass)
    Ts = T0 + np.arange(pT.size)
    ys = Ts + 1
    total = 0.0
    qsum = 0.0
    if t == 0:
        I, Qv = _inner(ys, np.zeros_like(ys), e)
        w = pT * (u / (s * ys))
        total = float(np.sum(w * I))
        qsum = float(np.sum(w * Qv))
    else:
        # three categories: sum over (y, c) on a grid; terms whose weight
        # P[T=y-1] P[Bin(y, t/u)=c] is below budget/(4 * #terms) are dropped and
        # their exact weight sum is added to the truncation (each term <= weight).
        from .binomial import binom_logpmf

        qc = t / u
        ymax = int(ys[-1])
        n_terms = float(ys.size) * (ymax + 1)
        log_cut = math.log(budget / 4.0) - math.log(n_terms)
        cs_all = np.arange(ymax + 1)
        block = max(1, 2_000_000 // (ymax + 1))
        for b0 in range(0, ys.size, block):
            yb = ys[b0:b0 + block]
            pb = pT[b0:b0 + block]
            Y, Cc = np.meshgrid(yb, cs_all, indexing="ij")
            with np.errstate(divide="ignore"):
                logw = np.log(pb)[:, None] + binom_logpmf(Cc, Y, qc)
            valid = Cc <= Y
            keep = valid & (logw > log_cut)
            drop = valid & ~keep
            trunc += float(np.sum(np.exp(logw[drop])))
            Yk, Ck, wk = Y[keep], Cc[keep], np.exp(logw[keep])
            I, Qv = _inner(Yk - Ck, Ck, e)
            scale = u / (s * Yk.astype(np.float64))
            total += float(np.sum(wk * scale * I))
            qsum += float(np.sum(wk * scale * Qv))
    lower = total * (1.0 - FLOAT_REL_ERROR)
    upper = min(1.0, total * (1.0 + FLOAT_REL_ERROR) + trunc)
    return BibDelta(eps=eps, value=total, upper=upper, lower=max(lower, 0.0), truncated=trunc,
                    slope=-e * qsum, overlap=t)


def bib_delta(eps: float, m: int, s: int, k: int, n: int, p: float,
              target: Optional[float] = None) -> float:
    """Certified upper bound on the smallest delta with M^BIB (eps, delta)-DP (tight)."""
    return bib_divergence(eps, m, s, k, n, p, target=target).upper


def delta_floor(m: int, s: int, k: int, n: int, p: float) -> float:
    """Lower bound on delta(eps) for every eps: P_S[W_S' = 0] over the window (worst overlap).

    For t = 0 this is sum_T P[T] 2^-T; delta(eps) -> this limit as eps -> inf.
    Returns the window sum (a lower bound; for t > 0 the limit is 0 since W_C >= 1
    whenever the real ball lands in C -- we then return the t = 0-style term 0).
    """
    m, s, k, n, p = _check(m, s, k, n, p)
    t = worst_overlap(m, s)
    if t > 0:
        # W_S' = 0 needs the real ball in D and no noise in S': probability
        # (s-t)/s * P[no noise in S'] -- lower bound on delta for every eps.
        T0, pT, _ = _noise_window(s, m, k, n, p, math.log(1e-300))
        return float(pT[0]) * (s - t) / s if T0 == 0 else 0.0
    T0, pT, _ = _noise_window(2 * s, m, k, n, p, math.log(1e-300))
    Ts = T0 + np.arange(pT.size)
    return float(np.sum(pT * np.exp2(-Ts.astype(float))))


# ----------------------------------------------------------------------------
# searches
# ----------------------------------------------------------------------------

@dataclass(frozen=True)
class BibEpsilon:
    """Smallest eps with certified delta(eps) <= target, or None with a reason."""

    epsilon: Optional[float]
    achieved_delta: Optional[float]
    lower_epsilon: Optional[float]
    reason: Optional[str] = None


def bib_epsilon(delta: float, m: int, s: int, k: int, n: int, p: float,
                rtol: float = 1e-9) -> BibEpsilon:
    """Smallest eps (to ``rtol``) with certified delta(eps) <= ``delta``."""
    m, s, k, n, p = _check(m, s, k, n, p)
    delta = _num("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    rtol = _num("rtol", rtol, 0.0, 1.0, lo_open=True)

    def ev(x):
        return bib_divergence(x, m, s, k, n, p, target=delta)

    eps_max = 1.0
    while ev(eps_max).upper > delta:
        eps_max *= 2.0
        if eps_max > 512.0:
            fl = delta_floor(m, s, k, n, p)
            return BibEpsilon(None, None, None,
                              f"no eps reaches delta = {delta:g}: delta(eps) >= {fl:.3g} for every eps "
                              "(the real ball can land where S' has no ball)")
    eps, achieved, lower_eps = _bracketed_search(ev, delta, eps_max, rtol)
    return BibEpsilon(eps, achieved, lower_eps)


def _bracketed_search(ev, target: float, x_max: float, rtol: float, max_evaluations: int = 400):
    """Smallest x in [0, x_max] with certified delta(x) <= target, delta non-increasing.

    Keeps a bracket [lo, hi]: hi always has certified upper <= target; lo does not.
    Steps: Newton on log delta (slope from the evaluation) clipped to the inner
    98% of the bracket, replaced by bisection whenever the previous step shrank
    the bracket by less than half; so it terminates (at most ~2 log2(x_max/tol)
    steps after the first few).  Kept apart from accountant.search.epsilon_for_delta
    on purpose: the three-category sums here can have a certified lower/upper gap wider
    than the tolerance; the core search then gives up certifying the lower end, this
    one keeps bisecting with certified ends (tests/test_bib.py asserts a certified
    lower end within 1e-5).
    Returns (hi, certified delta at hi, largest x seen with certified lower > target).
    """
    d0 = ev(0.0)
    if d0.upper <= target:
        return 0.0, d0.upper, None
    lo, hi = 0.0, x_max
    dh = ev(hi)
    hi_delta = dh.upper
    lo_cert = 0.0 if d0.lower > target else None
    last = d0
    use_newton = True
    evals = 2
    while hi - lo > rtol * hi + 1e-300 and evals < max_evaluations:
        w = hi - lo
        cand = None
        if use_newton and 0.0 < last.value < 1.0 and last.slope < 0.0:
            cand = last.eps - (math.log(last.value) - math.log(target)) / (last.slope / last.value)
        if cand is None or not math.isfinite(cand):
            cand = 0.5 * (lo + hi)
        cand = min(max(cand, lo + 0.01 * w), hi - 0.01 * w)
        d = ev(cand)
        evals += 1
        if d.upper <= target:
            hi, hi_delta = cand, d.upper
        else:
            lo = cand
            if d.lower > target:
                lo_cert = cand
        use_newton = (hi - lo) <= 0.5 * w
        last = d
    return hi, hi_delta, lo_cert


@dataclass(frozen=True)
class BibRho:
    """Smallest rho (expected blanket balls per user) with certified delta <= target."""

    rho: float
    achieved_delta: float
    lower_rho: Optional[float]
    k_eff: int
    p: float
    evaluations: int


def bib_rho_for(eps: float, delta: float, m: int, s: int, k: int, n: int,
                rtol: float = 1e-6) -> BibRho:
    """Smallest rho >= 0 (to ``rtol``) with certified delta(eps) <= ``delta``.

    Bracketed bisection on rho (delta is non-increasing in rho); the returned rho
    always has certified delta <= target; ``lower_rho`` has certified delta > target.
    """
    m, s, k, n, _ = _check(m, s, k, n, 0.0)
    if n < 1:
        raise ValueError(f"n must be an integer >= 1 to solve for rho, got {n}")
    eps = _num("eps", eps, 0.0, 700.0)
    delta = _num("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    rtol = _num("rtol", rtol, 0.0, 1.0, lo_open=True)
    evals = 0

    def f(rho):
        nonlocal evals
        evals += 1
        kk, pp = params_for_rho(k, n, rho)
        return bib_divergence(eps, m, s, kk, n, pp, target=delta)

    d0 = f(0.0)
    if d0.upper <= delta:
        return BibRho(0.0, d0.upper, None, k, 0.0, evals)
    lo, lo_cert = 0.0, (0.0 if d0.lower > delta else None)
    pr = paper_rho(eps, delta, m, s, k, n)
    hi = pr if (pr is not None and pr > 0) else 1.0 / n
    while True:
        dh = f(hi)
        if dh.upper <= delta:
            break
        if dh.lower > delta:
            lo, lo_cert = hi, hi
        else:
            lo = hi
        hi *= 2.0
        if hi > 1e12:
            raise ArithmeticError("rho search did not bracket the target")  # pragma: no cover
    hi_delta = dh.upper
    while hi - lo > rtol * hi:
        mid = 0.5 * (lo + hi)
        dm = f(mid)
        if dm.upper <= delta:
            hi, hi_delta = mid, dm.upper
        else:
            lo = mid
            if dm.lower > delta:
                lo_cert = mid
    kk, pp = params_for_rho(k, n, hi)
    return BibRho(hi, hi_delta, lo_cert, kk, pp, evals)


# ----------------------------------------------------------------------------
# the paper's condition
# ----------------------------------------------------------------------------

def paper_requirement(eps: float, delta: float, m: int, s: int) -> float:
    """32 ln(2/delta)/eps^2 * m/s: the noise k + n p that Theorem 2.1 asks for."""
    return 32.0 * math.log(2.0 / delta) / (eps * eps) * m / s


def paper_condition(eps: float, delta: float, m: int, s: int, k: int, n: int, p: float) -> bool:
    """Whether Theorem 2.1 certifies (eps, delta): 0 < eps <= 3 and k + n p >= requirement."""
    m, s, k, n, p = _check(m, s, k, n, p)
    eps = _num("eps", eps, 0.0, 700.0, lo_open=True)
    delta = _num("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    if eps > PAPER_EPS_MAX:
        return False
    return k + n * p >= paper_requirement(eps, delta, m, s)


def paper_rho(eps: float, delta: float, m: int, s: int, k: int, n: int) -> Optional[float]:
    """rho = max(0, (requirement - k)/n) from Theorem 2.1; None when eps > 3 (not covered).

    For rho > 1 this is read with the Section 2.3 split (``params_for_rho``),
    which keeps k + n p = k + n rho.
    """
    m, s, k, n, _ = _check(m, s, k, n, 0.0)
    if n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n}")
    eps = _num("eps", eps, 0.0, 700.0, lo_open=True)
    delta = _num("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    if eps > PAPER_EPS_MAX:
        return None
    req = paper_requirement(eps, delta, m, s)
    rho = max(0.0, (req - k) / n)
    while k + n * rho < req:  # round up so that the condition holds at the returned rho
        rho = math.nextafter(rho, math.inf)
    return rho


# ----------------------------------------------------------------------------
# references (tests)
# ----------------------------------------------------------------------------

def bib_delta_mp(eps, m: int, s: int, k: int, n: int, p, overlap: Optional[int] = None,
                 dps: int = 40, sd_window: float = 40.0):
    """mpmath reference: the proof's sum over (T, counts in C, D, E, real ball) directly.

    delta = sum_T P[T] E[(1 - e^eps W_S'/W_S)_+] with W_S = 1 + N_C + N_D and
    W_S' = N_C + N_E + [real ball in C], (N_C, N_D, N_E) | T multinomial.  No
    closed form is used.  T is summed over mean +- sd_window standard deviations
    (and the whole range when small): the mass left out is < e^{-sd_window^2/3}
    relative, negligible at the default.  ``p`` and ``eps`` may be strings.
    """
    import mpmath

    t = worst_overlap(m, s) if overlap is None else overlap
    with mpmath.workdps(dps):
        mp = mpmath.mpf
        eps_, p_ = mp(eps), mp(p)
        e = mpmath.exp(eps_)
        u = 2 * s - t
        q = mp(u) / m
        pq = p_ * q

        fact = {}

        def lfact(j):
            if j not in fact:
                fact[j] = mpmath.loggamma(j + 1)
            return fact[j]

        def bpmf(j, N, r):
            if r == 0:
                return mp(1) if j == 0 else mp(0)
            if r == 1:
                return mp(1) if j == N else mp(0)
            return mpmath.exp(lfact(N) - lfact(j) - lfact(N - j) + j * mpmath.log(r)
                              + (N - j) * mpmath.log1p(-r))

        mean = k * q + n * pq
        sd = mpmath.sqrt(k * q * (1 - q) + n * pq * (1 - pq)) + 1
        Tlo = max(0, int(mean - sd_window * sd))
        Thi = min(k + n, int(mean + sd_window * sd) + 1)
        # P[T] by convolution restricted to the window of T
        pk = [bpmf(j, k, q) for j in range(0, min(k, Thi) + 1)]
        pn = [bpmf(j, n, pq) for j in range(0, min(n, Thi) + 1)]
        total = mp(0)
        fC = mp(t) / u if u else mp(0)
        for T in range(Tlo, Thi + 1):
            PT = mp(0)
            for a in range(max(0, T - len(pn) + 1), min(T, len(pk) - 1) + 1):
                PT += pk[a] * pn[T - a]
            if PT == 0:
                continue
            acc = mp(0)
            if t == 0:
                for U in range(T + 1):
                    A, Ap = 1 + U, T - U
                    v = 1 - e * Ap / A
                    if v > 0:
                        acc += bpmf(U, T, mp(1) / 2) * v
            else:
                for cC in range(T + 1):
                    pc = bpmf(cC, T, fC)
                    if pc == 0:
                        continue
                    L = T - cC
                    for d in range(L + 1):
                        pdd = bpmf(d, L, mp(1) / 2)
                        A = 1 + cC + d
                        for J, pj in ((1, mp(t) / s), (0, mp(s - t) / s)):
                            v = 1 - e * (cC + (L - d) + J) / A
                            if v > 0:
                                acc += pc * pdd * pj * v
            total += PT * acc
        return total


def bib_bruteforce(eps: float, m: int, S, S2, k: int, n: int, p: float) -> float:
    """H_{e^eps}(M(S) || M(S2)) by enumerating every run of Algorithm 1 (tiny m, k, n)."""
    import itertools
    from collections import defaultdict

    def dist(Sset):
        out = defaultdict(float)
        Sset = list(Sset)
        for x in Sset:
            for ks in itertools.product(range(m), repeat=k):
                for coins in itertools.product(range(m + 1), repeat=n):  # m = tails
                    pr = (1.0 / len(Sset)) * (1.0 / m) ** k
                    cnt = [0] * m
                    cnt[x] += 1
                    for b in ks:
                        cnt[b] += 1
                    for c in coins:
                        if c == m:
                            pr *= 1.0 - p
                        else:
                            pr *= p / m
                            cnt[c] += 1
                    out[tuple(cnt)] += pr
        return out

    P, Q = dist(S), dist(S2)
    e = math.exp(eps)
    return sum(max(0.0, pv - e * Q.get(w, 0.0)) for w, pv in P.items())
