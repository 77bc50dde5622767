"""The full report pattern of a finite randomizer's triple (outputs grouped by likelihood ratios,
enumerated exactly at small n), the linear statistic tuned at u0 = e^eps, and matrices that are
not pure LDP: against the exact shuffled law (every histogram at n <= 4, tests/finite_brute.py)."""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from accountant.bounds.finite import (_category_law, finite_lower_delta, finite_lower_epsilon,
                                      finite_upper_delta, finite_upper_epsilon, lower_triples)
from accountant.bounds.laws.linear_statistic import linear_statistic_law
from accountant.bounds.laws.ratio_groups import (MAX_COMPOSITIONS, enumeration_refusal, exact_sum,
                                                 group_delta_and_slope, ratio_groups)
from accountant.core.catalogue import local_hashing
from accountant.core.finite import FiniteRandomizer
from tests.finite_brute import brute_delta, shuffled_law


def _pair_delta(M, n, eps, x1, x1p, x0):
    """The exact divergence of D = (x1, x0^{n-1}) against D' = (x1', x0^{n-1})."""
    u = math.exp(eps)
    P = shuffled_law(M, (x1,) + (x0,) * (n - 1))
    Q = shuffled_law(M, (x1p,) + (x0,) * (n - 1))
    return math.fsum(max(P.get(h, 0.0) - u * Q.get(h, 0.0), 0.0) for h in set(P) | set(Q))


def _old_lower(R, n, eps):
    """The two/three-category bound alone (the lower bound before the full pattern)."""
    vals = [ll.delta(n, eps) for t in lower_triples(R) for ll in [_category_law(R, *t)] if ll is not None]
    return max(vals, default=0.0)


def _random(rng, k, m, zeros=0):
    M = rng.uniform(0.05, 1.0, size=(k, m))
    for _ in range(zeros):
        M[rng.integers(0, k), rng.integers(1, m)] = 0.0
    if zeros:
        M[0, m - 1] = 0.0
        M[1, m - 1] = max(M[1, m - 1], 0.1)   # a zero beside a positive entry
    M[:, 0] = np.maximum(M[:, 0], 0.2)
    return FiniteRandomizer(M / M.sum(axis=1, keepdims=True))


def test_exact_sum_is_the_rational_sum():
    rng = np.random.default_rng(0)
    v = rng.uniform(0, 1, 500) ** 6 * 10.0 ** rng.integers(-40, 3, 500)
    with mpmath.workprec(4000):
        s = exact_sum(v)
    exact = sum(Fraction(float(x)) for x in v)
    man, exp = int(s.man), int(s.exp)
    assert Fraction(man) * Fraction(2) ** exp == exact


@pytest.mark.parametrize("seed", range(10))
def test_group_law_is_the_exact_divergence_of_its_datasets(seed):
    rng = np.random.default_rng(seed)
    k, m, n = int(rng.integers(2, 5)), int(rng.integers(2, 6)), int(rng.integers(1, 5))
    R = _random(rng, k, m)
    for t in lower_triples(R)[:4]:
        rg = ratio_groups(R, *t)
        if rg is None:
            continue
        for eps in (0.0, 0.3 * R.eps0, 0.8 * R.eps0):
            exact = _pair_delta(R.matrix, n, eps, *t)
            v = group_delta_and_slope(rg, n, eps)[0]
            assert v <= exact * (1 + 1e-12) + 1e-300
            assert v >= exact * (1 - 1e-10) - 1e-15, (seed, t, eps, v, exact)


@pytest.mark.parametrize("seed", range(12))
def test_upper_truth_new_lower_old_lower_at_small_n(seed):
    rng = np.random.default_rng(50 + seed)
    k, m, n = int(rng.integers(2, 5)), int(rng.integers(3, 6)), int(rng.integers(2, 5))
    R = _random(rng, k, m)
    for eps in (0.0, 0.1 * R.eps0, 0.4 * R.eps0):
        truth = brute_delta(R.matrix, n, eps)
        up = finite_upper_delta(R, n, eps).delta
        lo = finite_lower_delta(R, n, eps).delta
        old = _old_lower(R, n, eps)
        assert up >= truth * (1 - 1e-12)
        assert truth * (1 + 1e-9) + 1e-15 >= lo >= old * (1 - 1e-9), (seed, eps, truth, lo, old)


@pytest.mark.parametrize("seed", range(8))
def test_not_pure_ldp_lower_bound_brute_force(seed):
    rng = np.random.default_rng(200 + seed)
    k, m, n = int(rng.integers(2, 5)), int(rng.integers(3, 6)), int(rng.integers(2, 5))
    R = _random(rng, k, m, zeros=2)
    assert not R.pure
    for eps in (0.0, 0.3, 1.0, 3.0):
        truth = brute_delta(R.matrix, n, eps)
        lo = finite_lower_delta(R, n, eps)
        assert 0.0 < lo.delta <= truth * (1 + 1e-9) + 1e-15, (seed, eps, lo.delta, truth)
        assert finite_upper_delta(R, n, eps).delta >= truth * (1 - 1e-12)
    # the exact law with the outputs x0 cannot produce counted in full: every triple's datasets
    for t in lower_triples(R)[:4]:
        rg = ratio_groups(R, *t)
        if rg is not None:
            for eps in (0.0, 0.5, 2.0):
                exact = _pair_delta(R.matrix, n, eps, *t)
                v = group_delta_and_slope(rg, n, eps)[0]
                assert exact * (1 - 1e-10) - 1e-15 <= v <= exact * (1 + 1e-12) + 1e-300


def test_rows_with_zeros_example():
    """Output 3 is impossible for input 2 and input 0 reports it w.p. 0.2: with x0 = 2 every such
    report is user 1's; delta(eps) >= 0.2 at every eps where x1' = 2 as well."""
    R = FiniteRandomizer([[0.3, 0.3, 0.2, 0.2], [0.25, 0.25, 0.25, 0.25], [0.4, 0.3, 0.3, 0.0]])
    n = 3
    for eps in (0.1, 1.0, 5.0):
        truth = brute_delta(R.matrix, n, eps)
        lo = finite_lower_delta(R, n, eps).delta
        assert 0.2 <= lo <= truth * (1 + 1e-9)
    lo = finite_lower_epsilon(R, 1000, 0.1)
    assert lo.epsilon == math.inf and "no finite eps" in lo.detail
    assert finite_upper_epsilon(R, 1000, 0.1).epsilon is None
    # below the revealed mass no eps is infinite, and the bound is certified at its eps
    R2 = FiniteRandomizer([[0.3, 0.3, 0.4 - 1e-5, 1e-5], [0.25, 0.25, 0.5 - 1e-5, 1e-5], [0.4, 0.3, 0.3, 0.0]])
    lo = finite_lower_epsilon(R2, 10_000, 1e-4)
    up = finite_upper_epsilon(R2, 10_000, 1e-4)
    assert 0 < lo.epsilon <= up.epsilon < math.inf
    assert finite_lower_delta(R2, 10_000, lo.epsilon).delta > 1e-4


def test_local_hashing_g2_k16_full_pattern(monkeypatch):
    """Binary local hashing, k = 16, eps0 = 1, n = 1e3, delta = 1e-6: the categories gave
    0.07635; the named `olh --g 2 --hash-model random` path 0.08363 (its eight patterns, on
    D = (1, 3, ..., 3) against D' = (2, 3, ..., 3)).  The triple with x0 = x1 has three ratio
    groups (x1' hashed to z or not, and the others' counts): tuned, it is within 1e-4 of its
    datasets' exact root, found by enumerating all 501,501 count vectors."""
    from accountant.bounds.laws import ratio_groups as groups

    R = local_hashing(16, 1.0, 2)
    # every pair of inputs is alike (all hashes [16] -> [2]); the ranking takes the first, (0, 1)
    rg = ratio_groups(R, 0, 1, 2)
    assert rg.groups == 7   # eight patterns of [H(x) = z], (0,0,0) and (1,1,1) share their ratios
    why = enumeration_refusal(rg, 1000)
    assert why is not None and f"{MAX_COMPOSITIONS:,}" in why
    lo = finite_lower_epsilon(R, 1000, 1e-6)
    assert lo.epsilon > 0.08363 and "D = (0, 0, ..., 0), D' = (1, 0, ..., 0)" in lo.detail
    assert finite_lower_delta(R, 1000, lo.epsilon).delta > 1e-6
    assert _old_lower(R, 1000, 0.08) < 1e-6     # the categories alone stop below 0.08
    assert lo.epsilon < finite_upper_epsilon(R, 1000, 1e-6).epsilon
    three = ratio_groups(R, 0, 1, 0)
    assert three.groups == 3 and three.compositions(1000) == 501_501
    monkeypatch.setattr(groups, "MAX_COMPOSITIONS", 10 ** 6)
    assert group_delta_and_slope(three, 1000, lo.epsilon)[0] > 1e-6
    assert group_delta_and_slope(three, 1000, lo.epsilon * (1 + 1e-4))[0] < 1e-6


@pytest.mark.parametrize("seed", range(4))
def test_tuned_statistic_below_its_datasets_exact_divergence(seed):
    rng = np.random.default_rng(300 + seed)
    R = _random(rng, 3, 6)
    n = 4
    for eps in (0.1, 0.4):
        for t in ((0, 1, 2), (1, 0, 2)):
            law = linear_statistic_law(R, *t, n, 64, u0=math.exp(eps))
            exact = _pair_delta(R.matrix, n, eps, *t)
            assert law.delta(eps) <= exact * (1 + 1e-9) + 1e-15


def test_tuned_statistic_refuses_bad_u0():
    R = FiniteRandomizer([[0.5, 0.3, 0.2], [0.2, 0.3, 0.5], [0.3, 0.4, 0.3]])
    with pytest.raises(ValueError, match="u0 must be"):
        linear_statistic_law(R, 0, 1, 2, 10, u0=0.5)


def test_gammaln_within_its_stated_ulps():
    from scipy.special import gammaln

    from accountant.bounds.laws.ratio_groups import GAMMALN_ULPS

    xs = np.concatenate([np.arange(1.0, 2000.0), np.geomspace(2000.0, 1e6, 200).round()])
    with mpmath.workdps(40):
        for x in xs:
            ref = mpmath.loggamma(mpmath.mpf(float(x)))
            got = float(gammaln(x))
            assert abs(mpmath.mpf(got) - ref) <= GAMMALN_ULPS * 2.0 ** -52 * max(abs(got), 1e-300) + 1e-300


@pytest.mark.parametrize("n,eps", [(60, 0.2), (200, 0.1), (30, 0.6)])
def test_group_float_enumeration_below_a_40_digit_sum(n, eps):
    from accountant.engines.enumeration import compositions

    R = FiniteRandomizer([[0.5, 0.3, 0.2], [0.2, 0.3, 0.5], [0.3, 0.4, 0.3]])
    rg = ratio_groups(R, 0, 1, 2)
    v = group_delta_and_slope(rg, n, eps)[0]
    with mpmath.workdps(40):
        u = mpmath.exp(mpmath.mpf(eps))
        acc = mpmath.mpf(0)
        for c in compositions(n, rg.groups):
            c = [int(x) for x in c]
            x = mpmath.fsum(m * (a - u * b) for m, a, b in zip(c, rg.a, rg.b))
            if x > 0:
                w = mpmath.factorial(n)
                for m, p in zip(c, rg.p):
                    w *= p ** m / mpmath.factorial(m)
                acc += w * x
        ref = acc / n
    assert v <= ref and v >= float(ref) * (1 - 1e-9)
