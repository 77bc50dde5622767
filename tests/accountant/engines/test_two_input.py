"""Binary RR on one dataset (accountant.engines.two_input) against brute force over every m:
a float convolution of the two binomials and 50-digit ball arithmetic (python-flint)."""
import math

import numpy as np
import pytest
from scipy.stats import binom

from accountant.engines.two_input import (blanket_range_upper, dataset_delta, range_upper, rr_probabilities,
                                          sum_delta)


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


# --------------------------------------------------------------------------- large n: FFT law, blanket range bound
def _sum_pmf_float(n_p, n_q, n_half, eps0):
    p, q = rr_probabilities(eps0)
    f = np.convolve(binom.pmf(np.arange(n_p + 1), n_p, p), binom.pmf(np.arange(n_q + 1), n_q, q))
    return np.convolve(f, binom.pmf(np.arange(n_half + 1), n_half, 0.5)), p, q


def brute_sum_float(n_p, n_q, n_half, eps0, eps):
    """delta between V + Bern(p) and V + Bern(q), V = Bin(n_p, p) + Bin(n_q, q) + Bin(n_half, 1/2)."""
    f, p, q = _sum_pmf_float(n_p, n_q, n_half, eps0)
    P = np.concatenate([[0.0], p * f]) + np.concatenate([q * f, [0.0]])
    Q = np.concatenate([[0.0], q * f]) + np.concatenate([p * f, [0.0]])
    return float(np.maximum(P - math.exp(eps) * Q, 0.0).sum())


def arb_sum_delta(n_p, n_q, n_half, eps0, eps):
    """(lower, upper) of the same delta in 50-digit ball arithmetic (every k)."""
    flint = pytest.importorskip("flint")
    arb, poly = flint.arb, flint.arb_poly
    E = arb(eps0).exp()
    p, q = E / (1 + E), 1 / (1 + E)
    e = arb(eps).exp()
    V = poly([q, p]) ** n_p * poly([p, q]) ** n_q * poly([arb(0.5), arb(0.5)]) ** n_half
    lo, hi = arb(0), arb(0)
    for a, b in zip((V * poly([q, p])).coeffs(), (V * poly([p, q])).coeffs()):
        d = a - e * b
        hi += max(arb(d.upper()), arb(0))
        lo += max(arb(d.lower()), arb(0))
    return lo, hi


@pytest.mark.parametrize("n_p,n_q,n_half,eps0,eps", [
    (300, 99, 0, 2.0, 0.2), (0, 399, 0, 2.0, 0.2), (1999, 0, 0, 0.5, 0.05), (150, 40, 200, 1.0, 0.15),
    (0, 0, 300, 1.0, 0.3), (600, 500, 700, 0.5, 0.03)])
def test_sum_delta_against_float_brute_force(n_p, n_q, n_half, eps0, eps):
    bf = brute_sum_float(n_p, n_q, n_half, eps0, eps)
    r = sum_delta(n_p, n_q, n_half, eps0, eps)
    assert r.lower <= bf * (1 + 1e-11) and bf <= r.upper * (1 + 1e-11), (r, bf)
    assert r.upper - r.lower <= 1e-3 * bf + 1e-11   # an absolute ~1e-12 (a + b) from the pmf entries
    if n_half == 0:  # the same dataset as the window-sum engine: the brackets overlap
        d = dataset_delta(n_p + n_q + 1, n_p, eps0, eps)
        assert r.lower <= d.upper and d.lower <= r.upper


@pytest.mark.parametrize("n_p,n_q,n_half,eps0,eps", [(30, 20, 25, 1.0, 0.2), (80, 0, 60, 2.0, 0.4)])
def test_sum_delta_against_50_digit_balls(n_p, n_q, n_half, eps0, eps):
    lo, hi = arb_sum_delta(n_p, n_q, n_half, eps0, eps)
    r = sum_delta(n_p, n_q, n_half, eps0, eps)
    assert r.lower <= float(hi.upper()) and float(lo.lower()) <= r.upper


@pytest.mark.parametrize("N,prob", [(10**6, 0.5), (10**8, 0.8807970779778823), (10**10, 0.11920292202211755),
                                    (10**10, 0.5)])
def test_pmf_windows_within_their_relative_error_at_large_N(N, prob):
    # the FFT law's pmf entries against 50-digit log pmfs (mpmath) at the window's ends and centre
    import mpmath

    from accountant.engines.binomial import binom_logpmf_range
    from accountant.engines.two_input import PMF_REL_ERROR, SUM_WINDOW_SD, _window

    lo, hi, _ = _window(N, prob, SUM_WINDOW_SD)
    x = np.exp(binom_logpmf_range(lo, hi, N, prob))
    with mpmath.workdps(50):
        P = mpmath.mpf(prob)
        for k in (lo, lo + 1, lo + 777, (lo + hi) // 2, hi - 513, hi):
            ref = mpmath.exp(mpmath.loggamma(N + 1) - mpmath.loggamma(k + 1) - mpmath.loggamma(N - k + 1)
                             + k * mpmath.log(P) + (N - k) * mpmath.log(1 - P))
            assert abs(x[k - lo] / ref - 1) <= PMF_REL_ERROR / 10, (k, x[k - lo], ref)


@pytest.mark.parametrize("n,eps0,eps", [(120, 1.0, 0.25), (400, 2.0, 0.2), (300, 0.5, 0.1)])
def test_blanket_range_upper_bounds_every_m_of_its_range(n, eps0, eps):
    bf = brute_float(n, eps0, eps)
    rng = np.random.default_rng(2)
    tighter = 0
    for _ in range(40):
        a, b = (int(v) for v in sorted(rng.integers(0, n, size=2)))
        up = blanket_range_upper(n, a, b, eps0, eps)
        assert up >= bf[a:b + 1].max() * (1 - 1e-12), (a, b)
        tighter += b - a >= 40 and up < range_upper(n, a, b, eps0, eps)
    assert tighter >= 10   # it keeps the blanket draws' variance: below the old range bound
    assert blanket_range_upper(n, 7, 7, eps0, eps) == sum_delta(7, n - 8, 0, eps0, eps).upper


@pytest.mark.parametrize("n,eps0,eps,a,b", [(40, 1.0, 0.2, 5, 30), (40, 2.0, 0.5, 20, 39), (30, 0.5, 0.1, 0, 29)])
def test_blanket_reveal_dominates_every_m_in_50_digits(n, eps0, eps, a, b):
    # the proof's inequality itself, exactly: delta_m <= E_B[delta_B] for every m in [a, b]
    # (B ~ Bin(w, 2q) blanket draws among the w = b - a varying users), delta_B non-increasing
    flint = pytest.importorskip("flint")
    arb = flint.arb
    w = b - a
    E = arb(eps0).exp()
    g = 2 / (1 + E)
    deltas = [arb_sum_delta(a, n - 1 - b, j, eps0, eps) for j in range(w + 1)]
    for j in range(w):
        assert float(deltas[j + 1][0].lower()) <= float(deltas[j][1].upper())
    mix = sum((arb(math.comb(w, j)) * g ** j * (1 - g) ** (w - j) * deltas[j][0] for j in range(w + 1)), arb(0))
    for m in range(a, b + 1):
        lo, hi = brute_arb(n, eps0, eps, m)
        assert hi <= float(mix.lower()) * (1 + 1e-12), (m, hi, mix)
