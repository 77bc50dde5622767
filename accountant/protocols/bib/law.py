"""The law of the balls-into-bins protocol: input checks, the worst overlap, rho to (k, p), the
windows of the noise counts with certified left-out mass, and the inner positive-part sum.
The layer the divergence, the paper's condition and the searches all build on.
"""
from __future__ import annotations
import math
from typing import Optional
import numpy as np
from accountant.core.limits import MAX_BIB_BALLS, MAX_N, check_count, int_in_span
from accountant.engines.search import smallest_true

FLOAT_REL_ERROR = 1e-9
TRUNCATION_FRACTION = 1e-10
DEFAULT_TRUNCATION = 1e-30  # absolute mass left out when no target delta is given
PAPER_EPS_MAX = 3.0


# ----------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------

def checked_int(name: str, v, lo: int, hi: Optional[int] = None) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        if isinstance(v, float) and math.isfinite(v) and v.is_integer():
            v = int(v)
        else:
            raise ValueError(f"{name} must be an integer, got {v!r}")
    return int_in_span(name, int(v), lo, hi)


def checked_number(name: str, v, lo: float, hi: float, lo_open=False, hi_open=False) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number, got {v!r}")
    v = float(v)
    bad = (not math.isfinite(v) or v < lo or v > hi or (lo_open and v == lo) or (hi_open and v == hi))
    if bad:
        rng = ("(" if lo_open else "[") + f"{lo:g}, {hi:g}" + (")" if hi_open else "]")
        raise ValueError(f"{name} must lie in {rng}, got {v!r}")
    return v


def check_bib_args(m, s, k, n, p):
    m = checked_int("m", m, 2)
    s = checked_int("s", s, 1, m - 1)
    k = checked_int("k", k, 0)
    n = checked_int("n", n, 0, MAX_N)
    p = checked_number("p", p, 0.0, 1.0)
    # the same work limit as the command line (accountant.core.limits.MAX_BIB_BALLS)
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
    rho = checked_number("rho", rho, 0.0, 1e12)
    if rho <= 1.0:
        return k, rho
    f = math.floor(rho)
    return k + n * int(f), rho - f


# ----------------------------------------------------------------------------
# float path
# ----------------------------------------------------------------------------

def _component(N: int, q: float, log_mass: float):
    """Window [lo, hi] of Bin(N, q), its pmf there, and a bound on the mass outside."""
    # (the binomial kernels: imported where they run, so that the argument checks above import no engine)
    from accountant.engines.binomial import binom_log_tail_bound, binom_logpmf_range

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
        # ut(N) <= log_mass
        hi = smallest_true(lambda x: ut(x) <= log_mass, int(math.floor(mean)), N) - 1
    if lt(0) > log_mass:
        lo = 0
    else:
        # lt(0) <= log_mass: lo is the smallest x with lt(x) > log_mass
        lo = smallest_true(lambda x: lt(x) > log_mass, 0, int(math.ceil(mean)))
    hi = max(hi, lo)
    trunc = 0.0
    if hi < N:
        trunc += math.exp(ut(hi + 1))
    if lo > 0:
        trunc += math.exp(lt(lo - 1))
    pmf = np.exp(binom_logpmf_range(lo, hi, N, q))
    return lo, pmf, trunc


def noise_window(u: int, m: int, k: int, n: int, p: float, log_mass: float):
    """pmf of T ~ Bin(k, u/m) + Bin(n, p u/m) on a window, and the mass left out."""
    q = u / m
    lo1, f1, t1 = _component(k, q, log_mass)
    lo2, f2, t2 = _component(n, p * q, log_mass)
    pmf = np.convolve(f1, f2)
    return lo1 + lo2, pmf, t1 + t2


def inner_sum(L: np.ndarray, c: np.ndarray, e: float):
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
        from accountant.engines.binomial import half_tail_ratio

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
    from accountant.engines.binomial import binom_logpmf

    return binom_logpmf(K, N, 0.5)
