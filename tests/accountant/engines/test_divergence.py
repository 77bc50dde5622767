"""Hockey-stick divergence of the dominating pairs: brute force, mpmath, laws."""
import math

import numpy as np
import pytest
from scipy.stats import binom

from accountant.engines.pair.law import FLOAT_REL_ERROR, TRUNCATION_FRACTION, DominatingPair
from accountant.engines.pair.divergence import (
    FloatWindow,
    _mp_window_sum,
    hockey_stick_bruteforce,
    hockey_stick_divergence,
)
from accountant import CoCoParams, CollisionParams, GenericLDP


def pairs_for(n):
    """Generic, Collision (t >= 2s and t < 2s), CoCo and clone pairs."""
    out = []
    for eps0 in (0.3, 1.0, 3.0):
        for params in (GenericLDP(eps0), CollisionParams(s=4, eps0=eps0),
                       CollisionParams(s=4, eps0=eps0, t=6), CoCoParams(s=2, eps0=eps0)):
            out.append(DominatingPair.stronger_clone(n, eps0, params.mixture_weight, r=params.remainder))
        out.append(DominatingPair.clone(n, eps0))
    return out


def enumerate_pq(pair):
    """P and Q as (n+1) x (n+1) arrays, straight from the definition (independent of the engine)."""
    n = pair.n
    P = np.zeros((n + 2, n + 2))
    Q = np.zeros((n + 2, n + 2))
    for C in range(n):
        wc = binom.pmf(C, n - 1, pair.c)
        for A in range(C + 1):
            w = wc * binom.pmf(A, C, 0.5)
            for (d1, d2), pd in (((1, 0), pair.p), ((0, 1), pair.q), ((0, 0), pair.r)):
                P[A + d1, C - A + d2] += w * pd
                Q[A + d2, C - A + d1] += w * pd
    return P, Q


@pytest.mark.parametrize("n", [1, 2, 3, 7, 20, 60])
def test_float_path_matches_brute_force(n):
    for pair in pairs_for(n):
        P, Q = enumerate_pq(pair)
        assert abs(P.sum() - 1) < 1e-12 and abs(Q.sum() - 1) < 1e-12
        for eps in (0.0, 0.05, 0.2, 0.5 * pair.eps_max, 0.9 * pair.eps_max):
            ref = float(np.maximum(P - math.exp(eps) * Q, 0).sum())
            got = hockey_stick_divergence(pair, eps)
            assert abs(got.value - ref) <= 1e-11 * ref + 1e-16, (pair, eps, got.value, ref)
            assert got.lower <= ref + 1e-16 <= got.upper + 2e-16
            assert abs(hockey_stick_bruteforce(pair, eps) - ref) <= 1e-12 * ref + 1e-16


@pytest.mark.parametrize("n", [5, 30])
def test_symmetry(n):
    for pair in pairs_for(n):
        P, Q = enumerate_pq(pair)
        assert np.allclose(Q, P.T, rtol=0, atol=1e-15)
        for eps in (0.0, 0.1, 0.4 * pair.eps_max):
            e = math.exp(eps)
            pq = np.maximum(P - e * Q, 0).sum()
            qp = np.maximum(Q - e * P, 0).sum()
            assert abs(pq - qp) <= 1e-13
            assert abs(hockey_stick_divergence(pair, eps).value - qp) <= 1e-11 * qp + 1e-16


def test_divergence_is_zero_beyond_eps_max():
    pair = DominatingPair.stronger_clone(50, 1.0, 1 / (math.e + 1))
    assert hockey_stick_divergence(pair, 1.0).upper == 0.0
    assert hockey_stick_divergence(pair, 2.0).upper == 0.0


# float vs mpmath over a grid of n, eps0 and delta, down to delta < 1e-50.
MP_GRID = [
    (100, 1.0, 0.5), (100, 3.0, 1.0),
    (10_000, 1.0, 0.02), (10_000, 1.0, 0.3), (10_000, 4.0, 0.3), (10_000, 0.5, 0.08),
    (1_000_000, 4.0, 0.02), (1_000_000, 4.0, 0.3), (1_000_000, 1.0, 0.02),
    (10_000, 1.0, 0.46),  # delta ~ 2e-289, near the bottom of the promised range
]


@pytest.mark.parametrize("n,eps0,eps", MP_GRID)
def test_float_matches_mpmath(n, eps0, eps):
    pair = DominatingPair.stronger_clone(n, eps0, 1 / (math.exp(eps0) + 1))
    f = hockey_stick_divergence(pair, eps)
    m = hockey_stick_divergence(pair, eps, method="mpmath", digits=30)
    assert f.window == m.window
    assert m.value > 0
    assert abs(f.value - m.value) <= 1e-10 * m.value, (f.value, m.value)
    assert f.truncated <= TRUNCATION_FRACTION * m.value


def test_grid_reaches_tiny_delta():
    # the grid above includes values far below 1e-50
    pair = DominatingPair.stronger_clone(10_000, 1.0, 1 / (math.e + 1))
    assert hockey_stick_divergence(pair, 0.3).value < 1e-100
    assert 1e-300 < hockey_stick_divergence(pair, 0.46).value < 1e-280
    pair = DominatingPair.stronger_clone(1_000_000, 4.0, 1 / (math.exp(4) + 1))
    assert hockey_stick_divergence(pair, 0.3).value < 1e-150


@pytest.mark.parametrize("n,eps0,eps", [(10**8, 1.0, 1e-3), (10**8, 1.0, 3e-3),
                                        (10**10, 1.0, 1e-4), (10**10, 1.0, 3e-4),
                                        (10**10, 4.0, 2e-3)])
def test_float_matches_mpmath_large_n_same_window(n, eps0, eps):
    """At n up to 1e10 the full window is too long for mpmath in a test; compare the
    two paths on the same 601-term slice around the mode of C."""
    pair = DominatingPair.stronger_clone(n, eps0, 1 / (math.exp(eps0) + 1))
    mode = int((n - 1) * pair.c)
    lo, hi = mode - 300, mode + 300
    M, sd, _, _ = FloatWindow(pair, lo, hi).sums(eps)
    ref, _ = _mp_window_sum(pair, eps, lo, hi, 25)
    got = math.exp(M) * sd
    assert abs(got - float(ref)) <= 1e-10 * float(ref), (got, float(ref))


def test_collision_pair_matches_mpmath():
    p = CollisionParams(s=8, eps0=2.0)
    pair = DominatingPair.stronger_clone(50_000, 2.0, p.mixture_weight, r=p.remainder)
    for eps in (0.02, 0.1):
        f = hockey_stick_divergence(pair, eps)
        m = hockey_stick_divergence(pair, eps, method="mpmath", digits=30)
        assert abs(f.value - m.value) <= 1e-10 * m.value


def test_slope_is_the_derivative():
    pair = DominatingPair.stronger_clone(5000, 1.0, 0.2)
    for eps in (0.05, 0.2):
        d = hockey_stick_divergence(pair, eps)
        h = 1e-6 * eps
        up = hockey_stick_divergence(pair, eps + h).value
        dn = hockey_stick_divergence(pair, eps - h).value
        assert d.slope == pytest.approx((up - dn) / (2 * h), rel=1e-6)


def test_monotone_in_eps_n_and_weight():
    eps0 = 2.0
    amax = 1 / (math.exp(eps0) + 1)
    epss = np.linspace(0, 1.5, 16)
    for n in (10, 1000, 100_000):
        pair = DominatingPair.stronger_clone(n, eps0, amax)
        vals = [hockey_stick_divergence(pair, e).value for e in epss]
        assert all(b <= a * (1 + 1e-12) for a, b in zip(vals, vals[1:]))
    # non-increasing in n, non-decreasing in the mixture weight a
    for eps in (0.05, 0.3):
        byn = [hockey_stick_divergence(DominatingPair.stronger_clone(n, eps0, amax), eps).value
               for n in (10, 100, 1000, 10_000)]
        assert all(b <= a * (1 + 1e-12) for a, b in zip(byn, byn[1:]))
        bya = [hockey_stick_divergence(DominatingPair.stronger_clone(2000, eps0, a), eps).value
               for a in np.linspace(0.2, 1.0, 5) * amax]
        assert all(b >= a * (1 - 1e-12) for a, b in zip(bya, bya[1:]))


def test_bounds_bracket_the_value():
    pair = DominatingPair.stronger_clone(10**6, 1.0, 1 / (math.e + 1))
    d = hockey_stick_divergence(pair, 0.01)
    assert d.lower <= d.value <= d.upper
    # (upper - value is a difference of nearly equal numbers: compare to 1e-5)
    assert d.upper - d.value <= (FLOAT_REL_ERROR * d.value + d.truncated) * (1 + 1e-5)


@pytest.mark.parametrize("kwargs,match", [
    (dict(n=0, c=0.5, p=0.5, q=0.25, r=0.25), "n must"),
    (dict(n=10, c=1.0, p=0.5, q=0.25, r=0.25), "c must"),
    (dict(n=10, c=0.5, p=0.2, q=0.3, r=0.5), "q < p"),
    (dict(n=10, c=0.5, p=0.6, q=0.3, r=0.3), "p \\+ q \\+ r"),
    (dict(n=10, c=float("nan"), p=0.6, q=0.3, r=0.1), "c must be a finite"),
])
def test_invalid_pairs(kwargs, match):
    with pytest.raises(ValueError, match=match):
        DominatingPair(**kwargs)


def test_invalid_eps_and_method():
    pair = DominatingPair.stronger_clone(10, 1.0, 0.2)
    with pytest.raises(ValueError, match="eps must"):
        hockey_stick_divergence(pair, -0.1)
    with pytest.raises(ValueError, match="method must"):
        hockey_stick_divergence(pair, 0.1, method="exact")
    with pytest.raises(ValueError, match="mixture weight a"):
        DominatingPair.stronger_clone(10, 1.0, 0.5)


@pytest.mark.parametrize("n", [10 ** 4, 10 ** 7])
def test_saddle_estimate_of_the_pair(n):
    """The size-biased sum behind :func:`accountant.bounds.pair_accountant.saddle_log_delta` is the engine's own
    delta: the estimate of log delta is within 1e-3 of the window sum at n = 1e4 and 1e-6 at
    1e7 on every pair of ``pairs_for`` (measured 1.5e-4 / 1.2e-7), and its eps_c estimate lands
    within 5e-5 / 1e-7 of the certified one (measured 6e-6 / 7e-9)."""
    from accountant.bounds.pair_accountant import (
        saddle_guess,
        saddle_log_delta,
        search_pair_epsilon,
    )

    for pair in pairs_for(n):
        res = search_pair_epsilon(pair, 1e-8, rtol=1e-10)
        eps = res.epsilon
        exact = hockey_stick_divergence(pair, eps).log_value
        assert saddle_log_delta(pair, eps) == pytest.approx(exact, abs=1e-3 if n < 10 ** 5 else 1e-6)
        assert saddle_guess(pair, 1e-8) == pytest.approx(eps, rel=5e-5 if n < 10 ** 5 else 1e-7)
        fast = search_pair_epsilon(pair, 1e-8, rtol=1e-6, predict=True)
        assert hockey_stick_divergence(pair, fast.epsilon).upper <= 1e-8
        assert eps <= fast.epsilon <= eps * (1 + 1e-6) and fast.evaluations <= 2


@pytest.mark.parametrize("n", [10 ** 5, 10 ** 8])
def test_chart_tolerance_window_stays_certified(n):
    """A chart's rtol (1e-4) lets the search's window leave out 1e-6 of the target instead of
    1e-13 (:func:`window_fraction`): the answer is still certified (the full-precision
    evaluation at it is <= the target), within the tolerance of the library's rtol-1e-9 answer,
    and its window is shorter."""
    from accountant.bounds.pair_accountant import search_pair_epsilon, window_fraction
    from accountant.engines.pair.law import TRUNCATION_FRACTION, window_log

    assert window_fraction(1e-9) == TRUNCATION_FRACTION and window_fraction(1e-4) == 1e-6
    assert window_fraction(1e-12) == TRUNCATION_FRACTION and window_fraction(0.5) == 1e-6
    for pair in pairs_for(n):
        fine = search_pair_epsilon(pair, 1e-6, rtol=1e-9)
        coarse = search_pair_epsilon(pair, 1e-6, rtol=1e-4, predict=True)
        assert hockey_stick_divergence(pair, coarse.epsilon).upper <= 1e-6
        assert fine.epsilon * (1 - 1e-9) <= coarse.epsilon <= fine.epsilon * (1 + 1e-4)
        lm = math.log(1e-6) - math.log(2.0)
        wide = window_log(pair, math.log(TRUNCATION_FRACTION) + lm)
        narrow = window_log(pair, math.log(1e-6) + lm)
        assert narrow[1] - narrow[0] < wide[1] - wide[0]
        assert narrow[2] <= math.log(1e-6 * 1e-6) + 1e-9  # what it leaves out is bounded


def test_half_tail_ratio_runs_equals_run_by_run():
    """The batched runs (one continued-fraction call for all anchors, one run returned as it
    is) give bit for bit what each run gives alone, on paths with breaks (m jumping, k
    stepping back or by 2) and on a single long run."""
    from accountant.engines.pair.divergence import FloatWindow, half_tail_ratio_runs

    rng = np.random.default_rng(3)
    for trial in range(12):
        V = int(rng.integers(2, 40_000))
        m = int(10 ** rng.uniform(1, 8)) + np.arange(V, dtype=np.int64)
        k = np.minimum(m, (m * rng.uniform(0.5, 0.9)).astype(np.int64) + 1)
        if trial % 2:  # breaks: m jumps by 3, k steps back by 1 and forward by 2
            for c in rng.integers(1, V - 1, size=3):
                m[c:] += 3
            k = np.minimum(m, (m * 0.6).astype(np.int64) + 1)
            j = int(rng.integers(1, V - 1))
            k[j] = max(k[j - 1] - 1, (m[j] + 2) // 2)
        k = np.clip(k, (m + 2) // 2, m)
        R, logb = half_tail_ratio_runs(m, k)
        dk = np.diff(k)
        cuts = np.flatnonzero((np.diff(m) != 1) | (dk < 0) | (dk > 1)) + 1
        for s0, s1 in zip(np.r_[0, cuts], np.r_[cuts, V]):
            r1, l1 = FloatWindow._run(m[s0:s1], k[s0:s1])
            assert np.array_equal(R[s0:s1], r1) and np.array_equal(logb[s0:s1], l1)


def test_half_tail_ratio_runs_of_one_shape_batched_equal_each_run_and_the_direct_ratio():
    """Many runs of one length (the nested OUE blanket's (y-edge, m) tiles: each row a run of
    the same m range with its own k path) go through :func:`_run_rows` together, in passes of
    at most ``_ROWS_CELLS`` cells: bit for bit what each run gives alone, and within 1e-10 of
    the ratio and the log pmf computed at every point directly (continued fraction / incomplete
    beta and Loader's pmf, no recurrence)."""
    from accountant.engines.binomial import binom_logpmf, half_tail_ratio
    from accountant.engines.pair import divergence as dv

    rng = np.random.default_rng(11)
    for V, rows, m0 in ((764, 130, 690), (3, 50, 10), (2000, 9, 10**6), (40, 400, 5 * 10**4)):
        mu = np.arange(m0, m0 + V, dtype=np.int64)
        ks = []
        for _ in range(rows):
            k = np.floor(rng.uniform(0.5, 0.8) * mu + rng.uniform(0.0, 4.0)).astype(np.int64)
            ks.append(np.clip(k, (mu + 2) // 2, mu))
        m, k = np.tile(mu, rows), np.concatenate(ks)
        R, logb = dv.half_tail_ratio_runs(m, k)
        s0 = np.arange(rows) * V
        Ls = dv._blocks(m, k, s0, s0 + V)
        assert len(set(Ls.tolist())) < rows and np.any(Ls > 1)  # shared shapes: batched passes
        for a in s0:
            r1, l1 = dv.FloatWindow._run(m[a:a + V], k[a:a + V])
            assert np.array_equal(R[a:a + V], r1) and np.array_equal(logb[a:a + V], l1)
        assert np.allclose(R, half_tail_ratio(k, m), rtol=1e-10, atol=0)
        assert np.allclose(logb, binom_logpmf(k, m, 0.5), rtol=1e-10, atol=1e-10)
