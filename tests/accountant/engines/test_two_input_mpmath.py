"""dataset_delta (binary RR, one dataset) against 50-digit references at n = 1000, 5000, 10000:
delta_m(eps) = sum over k of (a v(k-1) - b v(k))_+ with v the pmf of Bin(m, p) + Bin(n-1-m, q)
from mpmath binomials (50 digits, every point down to 1e-340) convolved exactly (integers)."""
import math

import mpmath
import pytest

from accountant.engines.two_input import REL_ERROR, dataset_delta

SCALE = 1200          # pmf entries as integers in units of 2^-1200 (the convolution is then exact)
FLOOR = mpmath.mpf(10) ** -340   # below the smallest double: the reference is exact for a float


def _pmf_ints(N, pr):
    """(lo, integer pmf of Bin(N, pr) in units of 2^-SCALE on the points where it is >= FLOOR)."""
    if N == 0:
        return 0, [1 << SCALE]
    k0 = int(mpmath.floor((N + 1) * pr))
    k0 = min(k0, N)
    ratio = pr / (1 - pr)
    mode = mpmath.binomial(N, k0) * pr ** k0 * (1 - pr) ** (N - k0)
    up, x, k = [], mode, k0
    while k <= N and x >= FLOOR:
        up.append(x)
        x, k = x * (N - k) / (k + 1) * ratio, k + 1
    down, x, k = [], mode, k0
    while k > 0:
        x, k = x * k / (N - k + 1) / ratio, k - 1
        if x < FLOOR:
            break
        down.append(x)
    vals = down[::-1] + up
    return k0 - len(down), [int(mpmath.floor(val * 2 ** SCALE)) for val in vals]


def _convolve(A, B):
    """Exact convolution of two lists of nonnegative integers < 2^(SCALE + 1) (Kronecker: each
    list packed into one integer, slots of 2 SCALE + 64 bits, one big-integer product)."""
    nbytes = (2 * SCALE + 64) // 8

    def pack(xs):
        return int.from_bytes(b"".join(x.to_bytes(nbytes, "little") for x in xs), "little")

    size = len(A) + len(B) - 1
    raw = (pack(A) * pack(B)).to_bytes(size * nbytes, "little")
    return [int.from_bytes(raw[i * nbytes:(i + 1) * nbytes], "little") for i in range(size)]


def reference(n, m, eps0, epss):
    """{eps: delta_m(eps)} (50 digits; the points below 1e-340 left out change it by < 1e-330)."""
    with mpmath.workdps(50):
        E = mpmath.exp(mpmath.mpf(eps0))
        p, q = E / (1 + E), 1 / (1 + E)
        A = _pmf_ints(m, p)[1]      # the offsets do not matter: delta is a sum over every k
        B = _pmf_ints(n - 1 - m, q)[1]
        v = [mpmath.mpf(c) / mpmath.mpf(2) ** (2 * SCALE) for c in _convolve(A, B)]
        v = [mpmath.mpf(0)] + v + [mpmath.mpf(0)]
        out = {}
        for eps in epss:
            e = mpmath.exp(mpmath.mpf(eps))
            a, b = p - e * q, e * p - q
            terms = (max(a * v[i - 1] - b * v[i], 0) for i in range(1, len(v)))
            out[eps] = sum(terms, mpmath.mpf(0))
        return out


@pytest.mark.parametrize("eps0", [0.5, 1.0, 3.0, 6.0])
@pytest.mark.parametrize("n", [1000, 5000, 10000])
def test_dataset_delta_against_50_digit_references(n, eps0):
    p = math.exp(eps0) / (1 + math.exp(eps0))
    epss = (0.0, 0.01, 0.3, eps0 / 2)
    for m in (0, n // 2, n - 3, n - 1):
        ref = reference(n, m, eps0, epss)
        for eps in epss:
            exact = float(ref[eps])
            r = dataset_delta(n, m, eps0, eps)
            assert r.lower <= ref[eps] <= r.upper, (n, m, eps0, eps, r, exact)
            # the width: the float margin REL_ERROR (a S(t-1) + b S(t)) a side, a + b <= 2 e^eps p
            width = r.upper - r.lower
            assert width <= 5.0 * REL_ERROR * math.exp(eps) * p + 1e-30, (n, m, eps, r, exact)
            # and the float evaluation itself is far more accurate than that margin: its centre
            # within 1e-11 relative + 1e-17 of the exact value
            centre = 0.5 * (r.lower + r.upper)
            assert abs(centre - exact) <= 1e-11 * exact + 1e-17, (n, m, eps, r, exact)


@pytest.mark.parametrize("n,m,eps0,eps", [(1000, 999, 1.0, 0.3), (5000, 2500, 0.5, 0.01),
                                          (10000, 9997, 3.0, 1.5)])
def test_upper_end_holds_whatever_the_threshold(monkeypatch, n, m, eps0, eps):
    # the upper end does not rely on the float threshold: moved by -8 .. +8 it still bounds the
    # exact value (the terms of uncertain sign bound the misplaced ones), and the lower end too
    from accountant.engines import two_input

    exact = reference(n, m, eps0, [eps])[eps]
    true_t = dataset_delta(n, m, eps0, eps).threshold
    for shift in (-8, -3, -1, 1, 2, 8):
        monkeypatch.setattr(two_input, "_threshold", lambda *args, s=shift: true_t + s)
        r = two_input.dataset_delta(n, m, eps0, eps)
        assert r.threshold == true_t + shift
        assert r.lower <= exact <= r.upper, (shift, r, float(exact))
    monkeypatch.undo()
    assert dataset_delta(n, m, eps0, eps).threshold == true_t


def test_tiny_deltas_below_4096_users_are_bracketed_to_the_float_range():
    # every point of the binomials is kept below 4,096 trials: a delta of 1e-100 keeps its 1e-6
    # bracket, one that underflows (the threshold where v is below the float range) gets an
    # upper end there, not a (the old float threshold made no claim there); eps >= eps0: 0
    n, eps0 = 1000, 1.0
    for m in (0, 500, 999):
        ref = reference(n, m, eps0, [0.9, 0.99])
        for eps, exact in ref.items():
            r = dataset_delta(n, m, eps0, eps)
            assert r.lower <= exact <= r.upper, (m, eps, r, exact)
            if exact > 1e-290:
                assert r.upper - r.lower <= 1e-6 * exact, (m, eps, r, exact)
            else:
                assert r.upper <= 1e-290, (m, eps, r, exact)
        r = dataset_delta(n, m, eps0, eps0)
        assert (r.lower, r.upper) == (0.0, 0.0)


@pytest.mark.parametrize("eps0", [15.0, 30.0])
def test_large_eps0_keeps_the_float_margin(eps0):
    # p = 1 - q within 1e-7 .. 1e-13 of 1: Bin(m, p) is evaluated as m - Bin(m, q), so the
    # rounding of p does not widen the bracket beyond REL_ERROR
    n = 3000
    p = 1.0 / (1.0 + math.exp(-eps0))
    for m in (0, n // 2, n - 1):
        ref = reference(n, m, eps0, [0.3, eps0 / 2])
        for eps, exact in ref.items():
            r = dataset_delta(n, m, eps0, eps)
            assert r.lower <= exact <= r.upper, (m, eps, r, exact)
            assert r.upper - r.lower <= 5.0 * REL_ERROR * math.exp(eps) * p + 1e-30, (m, eps, r)
