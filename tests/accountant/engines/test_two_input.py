"""Binary RR on one dataset (accountant.engines.two_input) against brute force over every m:
a float convolution of the two binomials and 50-digit ball arithmetic (python-flint)."""
import math

import numpy as np
import pytest
from scipy.stats import binom

from accountant.engines.two_input import dataset_delta, range_upper, rr_probabilities


def brute_float(n, eps0, eps):
    """delta_m(eps) for every m (float, full convolution, every k)."""
    p, q = rr_probabilities(eps0)
    e = math.exp(eps)
    out = np.empty(n)
    for m in range(n):
        f = np.convolve(binom.pmf(np.arange(m + 1), m, p), binom.pmf(np.arange(n - m), n - 1 - m, q))
        P = np.concatenate([[0.0], p * f]) + np.concatenate([q * f, [0.0]])
        Q = np.concatenate([[0.0], q * f]) + np.concatenate([p * f, [0.0]])
        out[m] = np.maximum(P - e * Q, 0.0).sum()
    return out


def brute_arb(n, eps0, eps, m):
    """(lower, upper) of delta_m(eps) in 50-digit ball arithmetic (every k, no threshold)."""
    flint = pytest.importorskip("flint")
    old = flint.ctx.prec
    flint.ctx.prec = 200
    try:
        arb, poly = flint.arb, flint.arb_poly
        E = arb(eps0).exp()
        p, q = E / (1 + E), 1 / (1 + E)
        e = arb(eps).exp()
        V = poly([q, p]) ** m * poly([p, q]) ** (n - 1 - m)
        P, Q = (V * poly([q, p])).coeffs(), (V * poly([p, q])).coeffs()
        lo, hi = arb(0), arb(0)
        for a, b in zip(P, Q):
            d = a - e * b
            hi += max(arb(d.upper()), arb(0))
            lo += max(arb(d.lower()), arb(0))
        return float(lo.lower()), float(hi.upper())
    finally:
        flint.ctx.prec = old


@pytest.mark.parametrize("n,eps0,eps", [(50, 1.0, 0.3), (400, 2.0, 0.2), (2000, 0.5, 0.03)])
def test_every_m_against_float_brute_force(n, eps0, eps):
    bf = brute_float(n, eps0, eps)
    ms = range(n) if n <= 400 else list(range(0, n, 37)) + list(range(n - 40, n))
    for m in ms:
        r = dataset_delta(n, m, eps0, eps)
        assert r.lower <= bf[m] * (1 + 1e-11) and bf[m] <= r.upper * (1 + 1e-11), (m, r, bf[m])
        assert r.upper - r.lower <= 1e-6 * bf[m]


@pytest.mark.parametrize("n,eps0,eps", [(60, 1.0, 0.3), (300, 0.5, 0.12)])
def test_every_m_against_50_digit_balls(n, eps0, eps):
    for m in range(n):
        lo, hi = brute_arb(n, eps0, eps, m)
        r = dataset_delta(n, m, eps0, eps)
        assert r.lower <= hi and lo <= r.upper, (m, r, lo, hi)
        assert r.upper - r.lower <= 1e-6 * hi


def test_worst_dataset_is_not_always_an_extreme():
    # the lattice of K: at n = 50, eps0 = 1, eps = 0.3 the worst m is 48, not 49 (nor 0)
    bf = brute_float(50, 1.0, 0.3)
    assert int(np.argmax(bf)) == 48 and bf[48] > bf[49] * (1 + 1e-3)
    assert dataset_delta(50, 48, 1.0, 0.3).lower > dataset_delta(50, 49, 1.0, 0.3).upper


@pytest.mark.parametrize("n,eps0,eps", [(120, 1.0, 0.25), (400, 2.0, 0.2)])
def test_range_upper_is_an_upper_bound_over_its_range(n, eps0, eps):
    bf = brute_float(n, eps0, eps)
    rng = np.random.default_rng(1)
    for _ in range(40):
        a, b = sorted(rng.integers(0, n, size=2))
        assert range_upper(n, int(a), int(b), eps0, eps) >= bf[a:b + 1].max() * (1 - 1e-12)
    assert range_upper(n, 7, 7, eps0, eps) == dataset_delta(n, 7, eps0, eps).upper


def test_bad_m():
    with pytest.raises(ValueError, match="m must be an integer in"):
        dataset_delta(10, 10, 1.0, 0.1)
