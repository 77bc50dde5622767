"""Accurate vectorised binomial kernels used by the divergence engine.

* ``binom_logpmf``: log of the binomial pmf by Loader's saddle-point formula
  (C. Loader, "Fast and accurate computation of binomial probabilities", 2000),
  accurate to about 1e-15 absolute in the log for any n up to 2^53, with no
  underflow (the log is returned).
* ``binom_log_tail_bound``: Chernoff bound on a binomial tail, in log space, used
  to bound the probability mass that a summation window leaves out.  It is a true
  upper bound, so mass left out is always added on the safe side.
* ``half_tail_ratio``: R = P[Bin(m, 1/2) >= k] / P[Bin(m, 1/2) = k] at anchor
  points: a long-double continued fraction (Numerical Recipes' ``betacf``,
  modified Lentz) away from the centre, SciPy's Boost incomplete beta near it.
"""
from __future__ import annotations

import threading

import numpy as np
from scipy import special

_LOG_2PI = float(np.log(2.0 * np.pi))

# Loader's stirlerr(n) = log(n!) - log(sqrt(2 pi n) (n/e)^n) for n = 0, 0.5, ..., 15.
_SFERR_HALVES = np.array([
    0.0,
    0.1534264097200273452913848,
    0.0810614667953272582196702,
    0.0548141210519176538961390,
    0.0413406959554092940938221,
    0.03316287351993628748511048,
    0.02767792568499833914878929,
    0.02374616365629749597132920,
    0.02079067210376509311152277,
    0.01848845053267318523077934,
    0.01664469118982119216319487,
    0.01513497322191737887351255,
    0.01387612882307074799874573,
    0.01281046524292022692424986,
    0.01189670994589177009505572,
    0.01110455975820691732662991,
    0.010411265261972096497478567,
    0.009799416126158803298389475,
    0.009255462182712732917728637,
    0.008768700134139385462952823,
    0.008330563433362871256469318,
    0.007934114564314020547248100,
    0.007573675487951840794972024,
    0.007244554301320383179543912,
    0.006942840107209529865664152,
    0.006665247032707682442354394,
    0.006408994188004207068439631,
    0.006171712263039457647532867,
    0.005951370112758847735624416,
    0.005746216513010115682023589,
    0.005554733551962801371038690,
])


def stirlerr(x: np.ndarray) -> np.ndarray:
    """Loader's ``stirlerr``: log(x!) - log(sqrt(2 pi x) (x/e)^x), for x >= 0."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    small = x <= 15.0
    if np.any(small):
        xs = x[small]
        twice = 2.0 * xs
        exact_half = twice == np.floor(twice)
        vals = np.empty_like(xs)
        vals[exact_half] = _SFERR_HALVES[twice[exact_half].astype(np.int64)]
        other = ~exact_half
        if np.any(other):
            from scipy.special import gammaln

            xo = xs[other]
            vals[other] = gammaln(xo + 1.0) - (xo + 0.5) * np.log(xo) + xo - 0.5 * _LOG_2PI
        out[small] = vals
    big = ~small
    if np.any(big):
        xb = x[big]
        nn = xb * xb
        s0, s1, s2, s3, s4 = 1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188
        out[big] = (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / xb
    return out


def _two_prod(a: np.ndarray, b: float) -> tuple[np.ndarray, np.ndarray]:
    """a * b = hi + lo exactly (Dekker/Veltkamp splitting)."""
    hi = a * b
    split = 134217729.0
    ca = split * a
    ah = ca - (ca - a)
    al = a - ah
    cb = split * b
    bh = cb - (cb - b)
    bl = b - bh
    lo = ((ah * bh - hi) + ah * bl + al * bh) + al * bl
    return hi, lo


def bd0(x: np.ndarray, mu: np.ndarray, mu_lo: np.ndarray | float = 0.0) -> np.ndarray:
    """Loader's deviance term x log(x/mu) + mu - x, computed without cancellation.

    ``mu_lo`` is an optional low-order part: the mean is mu + mu_lo, so that
    a mean n*p formed in floating point does not lose digits of x - mu.
    """
    x = np.asarray(x, dtype=np.float64)
    mu = np.asarray(mu, dtype=np.float64)
    mu_lo = np.asarray(mu_lo, dtype=np.float64)
    x, mu, mu_lo = np.broadcast_arrays(x, mu, mu_lo)
    out = np.empty(x.shape, dtype=np.float64)
    diff = (x - mu) - mu_lo
    near = np.abs(diff) < 0.1 * (x + mu)
    if np.any(near):
        xn, dn, mn = x[near], diff[near], mu[near]
        v = dn / (xn + mn)
        s = dn * v
        ej = 2.0 * xn * v
        v2 = v * v
        for j in range(1, 40):
            ej = ej * v2
            term = ej / (2 * j + 1)
            s = s + term
            if np.all(np.abs(term) <= 1e-18 * np.abs(s)):
                break
        out[near] = s
    far = ~near
    if np.any(far):
        xf, mf, lf = x[far], mu[far], mu_lo[far]
        # log(x / (mu + mu_lo)) = log(x / mu) - log1p(mu_lo / mu): the low part matters when
        # the mean is a tiny difference, n q = n - n p with p near 1 (dropping it cost 7e-3 in
        # log P[Bin(9200, 1 - 1e-12) = 9100])
        with np.errstate(divide="ignore", invalid="ignore"):
            val = np.where(xf > 0, xf * (np.log(xf / mf) - np.log1p(lf / mf)), 0.0) + (mf - xf) + lf
        out[far] = val
    return out


def binom_logpmf(k, n, p: float) -> np.ndarray:
    """log P[Bin(n, p) = k], vectorised over k and n (p scalar in (0, 1)).

    Loader's saddle-point formula: accurate to ~1e-15 absolute for all n < 2^53,
    and returns -inf outside 0 <= k <= n instead of underflowing.
    """
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    k, n = np.broadcast_arrays(k, n)
    q = 1.0 - p
    out = np.full(k.shape, -np.inf)
    inside = (k >= 0) & (k <= n)
    k0 = inside & (k == 0)
    kn = inside & (k == n) & (n > 0)
    out[k0] = n[k0] * np.log(q)
    out[kn] = n[kn] * np.log(p)
    mid = inside & (k > 0) & (k < n)
    if np.any(mid):
        km, nm = k[mid], n[mid]
        np_hi, np_lo = _two_prod(nm, p)
        # n q = n - n p, carried exactly as a two-term sum.
        nq_hi = nm - np_hi
        nq_lo = ((nm - nq_hi) - np_hi) - np_lo
        lc = (stirlerr(nm) - stirlerr(km) - stirlerr(nm - km)
              - bd0(km, np_hi, np_lo) - bd0(nm - km, nq_hi, nq_lo))
        lf = _LOG_2PI + np.log(km) + np.log1p(-km / nm)
        out[mid] = lc - 0.5 * lf
    return out


def binom_log_tail_bound(k, n: int, p: float, upper: bool) -> np.ndarray:
    """Chernoff upper bound on log P[Bin(n, p) >= k] (upper) or log P[Bin(n, p) <= k].

    Equals -n KL(k/n || p) when k is beyond the mean on the requested side, and 0
    (the trivial bound) otherwise.  Always >= the true log tail probability.
    """
    k = np.asarray(k, dtype=np.float64)
    mean = n * p
    if upper:
        beyond = k > mean
    else:
        beyond = k < mean
    out = np.zeros(k.shape)
    if np.any(beyond):
        kb = np.clip(k[beyond], 0.0, float(n))
        out[beyond] = -(bd0(kb, np.full(kb.shape, mean)) + bd0(n - kb, np.full(kb.shape, n * (1.0 - p))))
    if upper:
        out = np.where(k > n, -np.inf, out)
    else:
        out = np.where(k < 0, -np.inf, out)
    return out


def _half_tail_ratio_cf(k: np.ndarray, m: np.ndarray, max_iter: int = 1_000_000) -> np.ndarray:
    """R = P[Bin(m,1/2) >= k] / P[Bin(m,1/2) = k] by the incomplete-beta continued fraction.

    P[Bin(m,1/2) >= k] = I_{1/2}(k, m-k+1) = (b(k;m)/2) * h with h the continued
    fraction of Numerical Recipes' ``betacf``; so R = h/2.  Requires k > (m+1)/2.
    """
    # Extended precision: the recurrence nearly cancels (1 + aa d ~ 0) at large m,
    # which costs float64 up to ~1e-12; 80-bit long double keeps ~1e-15.
    ld = np.longdouble
    a = k.astype(ld)
    b = (m - k + 1).astype(ld)
    x = ld(0.5)
    qab, qap, qam = a + b, a + 1, a - 1
    tiny = ld(1e-300)
    c = np.ones_like(a)
    d = 1 - qab * x / qap
    d = np.where(np.abs(d) < tiny, tiny, d)
    d = 1.0 / d
    h = d.copy()
    out = np.empty(a.shape, dtype=ld)
    idx = np.arange(a.size)  # positions (in ``out``) of the entries still iterating
    for it in range(1, max_iter + 1):
        m2 = ld(2 * it)
        aa = it * (b - it) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = 1 + aa / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1 / d
        h = h * d * c
        aa = -(a + it) * (qab + it) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = 1 + aa / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1 / d
        dl = d * c
        h = h * dl
        done = np.abs(dl - 1) <= 1e-18
        if np.any(done):
            out[idx[done]] = h[done]
            keep = ~done
            if not np.any(keep):
                break
            # converged entries leave the iteration (each iterates only as long as it needs)
            idx, a, b, qab, qap, qam, c, d, h = (v[keep] for v in (idx, a, b, qab, qap, qam, c, d, h))
    else:  # pragma: no cover - guarded by callers' regime
        raise ArithmeticError("binomial tail continued fraction did not converge")
    return (out / 2).astype(np.float64)


# z = (2k - m)/sqrt(m) from which half_tail_ratio uses the continued fraction
CF_FROM_Z = 2.0

#: m below which the continued fraction's values are remembered per (k, m) (the key m 2^30 + k)
CF_CACHE_MAX_M = 1 << 30
#: entries remembered at most (16 bytes each); a full cache starts again empty
CF_CACHE_SIZE = 1 << 21
# (sorted keys, their values): replaced whole under the lock, read without it
_cf_cache = (np.empty(0, dtype=np.int64), np.empty(0))
_cf_lock = threading.Lock()


def _cf_cached(k: np.ndarray, m: np.ndarray) -> np.ndarray:
    """:func:`_half_tail_ratio_cf` at (k, m), m < CF_CACHE_MAX_M, remembering every value: the
    blanket engines ask the same (k, m) again and again (a 4-RR users search over 10 rounds at
    n ~ 1400: 2.7 million entries, 39,512 distinct; a schedule of finite rounds at n = 1e4 -
    1e5: 1.47 million, 72,202 distinct).  Each entry is computed by the same elementwise
    recurrence whatever else is in its batch, so a remembered value is the value a direct call
    gives, bit for bit."""
    global _cf_cache
    q = (m << 30) | k
    keys, vals = _cf_cache
    pos = np.minimum(np.searchsorted(keys, q), max(keys.size - 1, 0))
    hit = keys[pos] == q if keys.size else np.zeros(q.shape, dtype=bool)
    if np.all(hit):
        return vals[pos]
    out = np.empty(q.shape)
    out[hit] = vals[pos[hit]]
    new = np.unique(q[~hit])
    got = _half_tail_ratio_cf(new & ((1 << 30) - 1), new >> 30)
    out[~hit] = got[np.searchsorted(new, q[~hit])]
    with _cf_lock:
        keys, vals = _cf_cache
        if keys.size + new.size > CF_CACHE_SIZE:
            keys, vals = np.empty(0, dtype=np.int64), np.empty(0)
        at = np.searchsorted(keys, new)
        fresh = keys[np.minimum(at, keys.size - 1)] != new if keys.size else np.ones(new.shape, dtype=bool)
        _cf_cache = (np.insert(keys, at[fresh], new[fresh]), np.insert(vals, at[fresh], got[fresh]))
    return out


def half_tail_ratio(k, m) -> np.ndarray:
    """R = P[Bin(m, 1/2) >= k] / P[Bin(m, 1/2) = k] for integers 0 <= k <= m.

    For z = (2k - m)/sqrt(m) >= ``CF_FROM_Z`` (= 2) by the continued fraction in long
    double (within ~1e-15 relative of mpmath up to m = 5e8), where the divergence
    formula amplifies errors in R by up to ~4 z^2; nearer the centre (z < 2, where that
    amplification is below 16) from SciPy's Boost survival function (incomplete beta) and
    Loader's pmf: against a 30-digit direct sum at most 7e-13 for
    m <= 1e8 and z in [1, 2.5], ~1e-12 at m ~ 1e9 and <= 7e-14 for m <= 1e6; times 16,
    far inside the engines' float margins (``FLOAT_REL_ERROR`` = 1e-10, growing like
    sqrt(n)/1e3 from n = 1e6).  The continued fraction needs ~1/z^2 as many iterations
    (364 at z = 1, 102 at z = 2 for m = 1e9), and its loop runs as long as the slowest
    anchor of a batch: starting it at z = 2 makes it 3x cheaper.
    """
    k = np.asarray(k, dtype=np.int64)
    m = np.asarray(m, dtype=np.int64)
    k, m = np.broadcast_arrays(k, m)
    kf = k.astype(np.float64)
    mf = m.astype(np.float64)
    out = np.empty(k.shape)
    far = (2.0 * kf - mf >= CF_FROM_Z * np.sqrt(mf)) & (kf > (mf + 1.0) / 2.0)
    if np.any(far):
        kf_, mf_ = k[far], m[far]
        small = mf_ < CF_CACHE_MAX_M
        if np.all(small):
            out[far] = _cf_cached(kf_, mf_)
        else:
            r = np.empty(kf_.shape)
            r[small] = _cf_cached(kf_[small], mf_[small])
            r[~small] = _half_tail_ratio_cf(kf_[~small], mf_[~small])
            out[far] = r
    near = ~far
    if np.any(near):
        kn, mn = kf[near], mf[near]
        # P[Bin(m, 1/2) >= k] = I_{1/2}(k, m - k + 1) (Boost's incomplete beta).
        sf = np.where(kn <= 0, 1.0, special.betainc(np.maximum(kn, 1.0), mn - kn + 1.0, 0.5))
        out[near] = sf / np.exp(binom_logpmf(kn, mn, 0.5))
    return out


def binom_logpmf_range(j0: int, j1: int, N: int, p: float, block: int = 512) -> np.ndarray:
    """log P[Bin(N, p) = j] for the integers j = j0, ..., j1 (a contiguous range).

    Exact anchors (``binom_logpmf``) every ``block`` points and, in between, the
    cumulative sum of log(B_j / B_{j-1}) = log1p(((N+1)p - j) / (j (1-p))), whose
    numerator is formed exactly (two-product), so each step adds ~1e-20 of error.
    Several times faster than evaluating Loader's formula at every point.
    """
    j = np.arange(j0, j1 + 1, dtype=np.int64)
    V = j.size
    if V <= block or j0 < 1 or j1 > N:
        return binom_logpmf(j, N, p)
    jf = j.astype(np.float64)
    hi, lo = _two_prod(np.array([float(N + 1)]), p)
    num = (hi[0] - jf) + lo
    steps = np.log1p(num / (jf * (1.0 - p)))  # log B_j - log B_{j-1}
    nb = -(-V // block)
    pad = nb * block - V
    anchors = np.arange(nb) * block
    base = binom_logpmf(j[anchors], N, p)
    st = np.concatenate((steps, np.zeros(pad))).reshape(nb, block)
    st[:, 0] = 0.0
    out = np.cumsum(st, axis=1) + base[:, None]
    return out.ravel()[:V]
