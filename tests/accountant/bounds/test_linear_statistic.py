"""The linear-statistic lower bound of a finite randomizer and the certified convolution power.

Checked against exact computations: rational convolution powers, the exact law of the
statistic at small n (every multiset enumerated), and the brute-force supremum over every
dataset (tests/finite_brute.py)."""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from accountant import FiniteRandomizer
from accountant.bounds.finite import finite_lower_epsilon
from accountant.bounds.laws.linear_statistic import (linear_statistic_law, statistic_lower_delta,
                                                     statistic_lower_epsilon, statistic_triples)
from accountant.engines.fftconv import convolution_power, linear_convolve
from tests.finite_brute import brute_delta


def _random_matrix(rng, k, Y, eps0):
    M = np.exp(rng.uniform(0.0, eps0, size=(k, Y)))
    return M / M.sum(axis=1, keepdims=True)


# --------------------------------------------------------------------------- convolution power
@pytest.mark.parametrize("m", [0, 1, 2, 3, 7, 20])
def test_power_within_its_distance_of_the_rational_power(m):
    rng = np.random.default_rng(m)
    q = rng.random(5)
    q /= q.sum()
    exact = [Fraction(1)]
    qf = [Fraction(float(x)) for x in q]          # the float vector, taken as exact
    for _ in range(m):
        nxt = [Fraction(0)] * (len(exact) + len(qf) - 1)
        for i, a in enumerate(exact):
            for j, b in enumerate(qf):
                nxt[i + j] += a * b
        exact = nxt
    off, V, dist = convolution_power(q, m)
    full = [Fraction(0)] * len(exact)
    for i, v in enumerate(V):
        full[off + i] = Fraction(float(v))
    l1 = sum(abs(a - b) for a, b in zip(exact, full))
    assert float(l1) <= dist + 1e-300
    assert dist < 1e-12


@pytest.mark.parametrize("m", [10 ** 3, 10 ** 5, 10 ** 7])
def test_power_of_a_bernoulli_within_its_distance_of_the_binomial(m):
    off, V, dist = convolution_power(np.array([0.7, 0.3]), m)
    exact = None
    if m <= 10 ** 5:  # the binomial pmf on the window to 30 digits, and the mass outside it
        with mpmath.workdps(30):
            exact = np.array([float(mpmath.binomial(m, int(i)) * mpmath.mpf(0.3) ** int(i) *
                                    mpmath.mpf(0.7) ** (m - int(i))) for i in range(off, off + V.size)])
    if exact is not None:
        inside = float(np.sum(exact))
        l1 = float(np.sum(np.abs(exact - V))) + (1.0 - inside)
        assert l1 <= dist
    assert dist < 1e-5
    assert abs(float(np.sum(V)) - 1.0) <= dist


def test_linear_convolve_error_bound_holds():
    rng = np.random.default_rng(3)
    a, b = rng.random(3000), rng.random(2000)
    c, err = linear_convolve(a, b)
    ref = np.convolve(a.astype(np.longdouble), b.astype(np.longdouble))
    assert float(np.sum(np.abs(c - ref))) <= err


def test_power_refuses_a_bad_count_and_a_bad_vector():
    with pytest.raises(ValueError, match="m must be"):
        convolution_power(np.array([1.0]), -1)
    with pytest.raises(ValueError, match="non-negative"):
        convolution_power(np.array([0.5, -0.1]), 3)


# --------------------------------------------------------------------------- the statistic
def _exact_statistic_delta(law, eps):
    """The statistic's divergence by enumerating every multiset of the other users' outputs."""
    j = np.arange(law.p.size) + law.lo
    u = mpmath.e ** mpmath.mpf(eps)
    with mpmath.workdps(40):
        dist = {0: mpmath.mpf(1)}
        for _ in range(law.n - 1):
            nxt = {}
            for s, w in dist.items():
                for jj, pj in zip(j, law.p):
                    if pj > 0:
                        nxt[s + int(jj)] = nxt.get(s + int(jj), 0) + w * mpmath.mpf(float(pj))
            dist = nxt
        P, Q = {}, {}
        for jj, a, b in zip(j, law.A, law.B):
            for s, w in dist.items():
                P[s + int(jj)] = P.get(s + int(jj), 0) + w * mpmath.mpf(float(a))
                Q[s + int(jj)] = Q.get(s + int(jj), 0) + w * mpmath.mpf(float(b))
        return float(sum(max(P.get(t, 0) - u * Q.get(t, 0), 0) for t in set(P) | set(Q)))


@pytest.mark.parametrize("seed", range(8))
def test_statistic_below_its_exact_divergence_and_below_the_truth(seed):
    rng = np.random.default_rng(100 + seed)
    k, Y, n = 2 + seed % 3, 2 + seed % 4, 2 + seed % 3
    M = _random_matrix(rng, k, Y, 1.5)
    R = FiniteRandomizer(M)
    for x1, x1p, x0 in statistic_triples(R):
        law = linear_statistic_law(R, x1, x1p, x0, n, bins_per_sigma=4)
        if law is None:
            continue
        for eps in (0.05, 0.2, 0.5):
            lo = law.delta(eps)
            exact = _exact_statistic_delta(law, eps)
            assert lo <= exact * (1 + 1e-9) + 1e-15
            assert lo >= exact * (1 - 1e-6) - 1e-12          # tight: the errors are tiny here
    for eps in (0.05, 0.3):
        lo, _ = statistic_lower_delta(R, n, eps)
        assert lo <= brute_delta(M, n, eps) * (1 + 1e-9) + 1e-15


def test_statistic_beats_the_category_counts_on_a_random_matrix(monkeypatch):
    """32 x 32 random matrix (eps0 <= 1), n = 1e4, delta = 1e-8: the statistic's certified eps_c
    is about 20% above the best two/three-category count bound, and the finite randomizer's
    lower bound now reports it."""
    import accountant.bounds.laws.linear_statistic as ls

    M = _random_matrix(np.random.default_rng(7), 32, 32, 1.0)
    R = FiniteRandomizer(M)
    both = finite_lower_epsilon(R, 10 ** 4, 1e-8)
    monkeypatch.setattr(ls, "STAT_MAX_N", 0)          # the category counts alone
    cat = finite_lower_epsilon(R, 10 ** 4, 1e-8).epsilon
    monkeypatch.undo()
    stat, datasets = statistic_lower_epsilon(R, 10 ** 4, 1e-8, guess=cat)
    assert stat > 1.1 * cat
    assert both.epsilon >= stat * (1 - 1e-5) and "statistic" in both.detail
    assert datasets.startswith("D = (")
    # certified: the value at the reported eps is above the target
    assert statistic_lower_delta(R, 10 ** 4, stat)[0] >= 1e-8 * (1 - 1e-3)


def test_statistic_not_searched_above_its_limit():
    R = FiniteRandomizer(_random_matrix(np.random.default_rng(1), 3, 3, 1.0))
    eps, why = statistic_lower_epsilon(R, 10 ** 9, 1e-8)
    assert eps == 0.0 and "not searched above" in why


def test_statistic_undefined_where_x0_misses_an_output():
    # x0 = row 2 gives output 3 probability 0, while row 0 can produce it
    R = FiniteRandomizer([[0.4, 0.3, 0.1, 0.2], [0.1, 0.2, 0.45, 0.25], [0.3, 0.3, 0.4, 0.0]])
    assert linear_statistic_law(R, 0, 1, 2, 10) is None
    assert linear_statistic_law(R, 0, 1, 0, 10) is not None


def test_statistic_left_to_the_category_counts_when_it_takes_three_values():
    E = math.exp(1.0)
    krr = FiniteRandomizer([[(E if x == y else 1.0) / (E + 3) for y in range(4)] for x in range(4)])
    assert all(linear_statistic_law(krr, *t, 100) is None for t in itertools.permutations(range(4), 3))


@pytest.mark.parametrize("n", [50, 300])
def test_statistic_at_moderate_n_matches_an_exact_lattice_computation(n):
    """n = 50 and 300: the certified value agrees with a 40-digit convolution of the same
    lattice laws to 1e-4 relative (delta from 1e-29 to 1e-2)."""
    M = _random_matrix(np.random.default_rng(n), 4, 5, 1.0)
    R = FiniteRandomizer(M)
    x1, x1p, x0 = statistic_triples(R)[0]
    law = linear_statistic_law(R, x1, x1p, x0, n, bins_per_sigma=3)
    p = [mpmath.mpf(float(v)) for v in law.p]
    with mpmath.workdps(40):
        power = [mpmath.mpf(1)]
        for _ in range(n - 1):
            nxt = [mpmath.mpf(0)] * (len(power) + len(p) - 1)
            for i, a in enumerate(power):
                if a:
                    for jj, b in enumerate(p):
                        nxt[i + jj] += a * b
            power = nxt
        for eps in (0.1, 0.3):
            u = mpmath.e ** mpmath.mpf(eps)
            Pv = [mpmath.mpf(0)] * (len(power) + law.A.size - 1)
            Qv = list(Pv)
            for i, a in enumerate(power):
                for jj in range(law.A.size):
                    Pv[i + jj] += a * mpmath.mpf(float(law.A[jj]))
                    Qv[i + jj] += a * mpmath.mpf(float(law.B[jj]))
            exact = float(sum(max(x - u * y, 0) for x, y in zip(Pv, Qv)))
            lo = law.delta(eps)
            assert lo <= exact
            assert lo >= exact * (1 - 1e-4)
