"""Binomial kernels against high-precision evaluation."""
import math

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

from accountant.engines.binomial import (
    CF_FROM_Z,
    binom_log_tail_bound,
    binom_logpmf,
    binom_logpmf_range,
    half_tail_ratio,
)

mp.mp.dps = 40


def mp_logpmf(k, n, p):
    p = mp.mpf(p)
    return (mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1)
            + k * mp.log(p) + (n - k) * mp.log(1 - p))


@pytest.mark.parametrize("n", [1, 7, 30, 1000, 10**6, 10**8, 10**10])
@pytest.mark.parametrize("p", [0.5, 0.27, 1e-3, 0.9])
def test_logpmf_matches_mpmath(n, p):
    sd = math.sqrt(n * p * (1 - p))
    ks = {0, 1, n // 3, int(n * p), int(n * p + 3 * sd), int(n * p - 5 * sd), n - 1, n}
    ks = sorted(k for k in ks if 0 <= k <= n)
    got = binom_logpmf(np.array(ks), np.full(len(ks), n), p)
    for k, g in zip(ks, got):
        ref = float(mp_logpmf(k, n, p))
        assert abs(g - ref) <= 4e-15 * max(1.0, abs(ref)), (n, p, k, g, ref)


def test_logpmf_range_matches_pointwise():
    for N, p in [(10**8 - 1, 0.537), (10**10 - 1, 0.27), (50_000, 0.3)]:
        mean = int(N * p)
        lo, hi = max(mean - 9000, 1), mean + 9000
        a = binom_logpmf_range(lo, hi, N, p)
        b = binom_logpmf(np.arange(lo, hi + 1), N, p)
        # absolute error of the log = relative error of the probability; compared
        # where the weight is within e^-100 of the largest (deeper points cannot
        # move a sum, and there Loader's pointwise value is itself ~1e-12 off)
        keep = b >= b.max() - 100.0
        assert np.max(np.abs(a - b)[keep]) <= 1e-13


def mp_ratio(k, m):
    """sum_{x>=k} b(x; m, 1/2) / b(k; m, 1/2) by direct summation."""
    s, t, x = mp.mpf(0), mp.mpf(1), k
    while x <= m:
        s += t
        if t < s * mp.mpf(10) ** -30:
            break
        t *= mp.mpf(m - x) / (x + 1)
        x += 1
    return s


@pytest.mark.parametrize("m", [1, 10, 101, 5000, 10**6, 5 * 10**8])
def test_half_tail_ratio(m):
    zs = [0.0, 0.5, 1.0, 1.5, 1.9, 2.1, 2.9, 3.5, 10.0, 25.0]
    ks = sorted({min(m, int(m / 2 + z * math.sqrt(m) / 2) + 1) for z in zs} | {m})
    got = half_tail_ratio(np.array(ks), np.full(len(ks), m))
    for k, g in zip(ks, got):
        ref = mp_ratio(k, m)
        # Continued fraction from z = CF_FROM_Z (where the divergence formula amplifies
        # errors most) must be near machine precision; Boost near the centre, where the
        # amplification is at most 4 z^2 = 16.
        far = 2 * k - m >= CF_FROM_Z * math.sqrt(m) and k > (m + 1) / 2
        tol = 5e-15 if far else 5e-12
        assert abs(g - float(ref)) <= tol * float(ref), (m, k, g, ref)


@pytest.mark.parametrize("N,p", [(100, 0.3), (10**5, 0.01), (10**7, 0.5)])
def test_chernoff_bound_is_an_upper_bound(N, p):
    sd = math.sqrt(N * p * (1 - p))
    for z in [0.5, 2, 5, 10, 20]:
        k_up = math.ceil(N * p + z * sd)
        if k_up <= N:
            true = stats.binom.logsf(k_up - 1, N, p)
            assert binom_log_tail_bound(np.array([k_up]), N, p, upper=True)[0] >= true
        k_lo = math.floor(N * p - z * sd)
        if k_lo >= 0:
            true = stats.binom.logcdf(k_lo, N, p)
            assert binom_log_tail_bound(np.array([k_lo]), N, p, upper=False)[0] >= true


@pytest.mark.parametrize("gap", [1e-15, 1e-12, 1e-9, 1e-6])
def test_logpmf_p_near_one_keeps_the_small_mean(gap):
    """p = 1 - gap: the mean n q = n - n p is a tiny difference carried as two terms; the
    deviance must use both (dropping the low part cost 7e-3 in log P[Bin(9200, 1 - 1e-12)
    = 9100], and the exact blanket's binned path, whose p' = p3 / (1 - 2 p12) is ~1 for
    laws without a null category, returned an upper end 1.4% below the value)."""
    p = 1.0 - gap
    for n, ks in ((9200, (9100, 9199, 9200, 5000)), (9101, (9100, 1)), (10, (5, 9))):
        got = binom_logpmf(np.array(ks, dtype=np.float64), np.full(len(ks), float(n)), p)
        for k, g in zip(ks, got):
            ref = float(mp_logpmf(k, n, p))
            assert abs(g - ref) <= 1e-12 * max(1.0, abs(ref)), (n, p, k, g, ref)


def test_remembered_half_tail_ratio_is_the_continued_fraction_bit_for_bit(monkeypatch):
    # the remembered values (m < binomial.CF_CACHE_MAX_M) are what the recurrence returns for
    # every far k, in any order, mixed with m above the cache's keys, and after a reset
    from accountant.engines import binomial as B

    ks, ms = [], []
    for m in (4, 5, 37, 100, 481, 5000, B.CF_CACHE_MAX_M - 1, B.CF_CACHE_MAX_M, B.CF_CACHE_MAX_M + 1):
        k = np.arange(m + 1) if m < 10**4 else m - np.arange(300)    # the far end of a large m
        far = (2.0 * k - m >= B.CF_FROM_Z * np.sqrt(m)) & (k > (m + 1) / 2)
        ks.append(k[far])
        ms.append(np.full(int(far.sum()), m))
    k, m = np.concatenate(ks), np.concatenate(ms)
    order = np.random.default_rng(0).permutation(k.size)
    k, m = k[order], m[order]
    assert np.any(m < B.CF_CACHE_MAX_M) and np.any(m >= B.CF_CACHE_MAX_M)
    direct = B._half_tail_ratio_cf(k, m)
    half = k.size // 2
    assert np.array_equal(half_tail_ratio(k[:half], m[:half]), direct[:half])
    assert np.array_equal(half_tail_ratio(k, m), direct)      # half of it remembered
    assert np.array_equal(half_tail_ratio(k, m), direct)      # all of it remembered
    monkeypatch.setattr(B, "CF_CACHE_SIZE", k.size // 3)      # full: starts again empty
    assert np.array_equal(half_tail_ratio(k[half:], m[half:]), direct[half:])
    assert np.array_equal(half_tail_ratio(k, m), direct)
