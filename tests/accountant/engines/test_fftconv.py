"""accountant.engines.fftconv.linear_convolve: a square uses one forward transform, with the
numbers of two; both within the proved error of the exact convolution."""
import numpy as np
import pytest
from fractions import Fraction

from accountant.engines.fftconv import linear_convolve


def _two_transforms(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    n = a.size + b.size - 1
    L = 1 << (n - 1).bit_length()
    c = np.fft.irfft(np.fft.rfft(a, L) * np.fft.rfft(b, L), L)[:n]
    return np.maximum(c, 0.0)


def test_square_equals_the_product_of_two_transforms_and_the_exact_convolution():
    rng = np.random.default_rng(5)
    for size in (65, 300, 4097):
        a = rng.random(size) ** 8  # mass spread over orders of magnitude
        b = a.copy()               # equal values, another array: the two-transform path
        sq, err_sq = linear_convolve(a, a)
        two, err_two = linear_convolve(a, b)
        assert np.array_equal(sq, two) and err_sq == err_two
        assert np.array_equal(sq, _two_transforms(a, a))
        if size <= 300:  # exact rational convolution: the l1 distance within the bound
            fa = [Fraction(float(x)) for x in a]
            exact = [sum(fa[i] * fa[k - i] for i in range(max(0, k - size + 1), min(k, size - 1) + 1))
                     for k in range(2 * size - 1)]
            dist = sum(abs(Fraction(float(c)) - e) for c, e in zip(sq, exact))
            assert 0 < float(dist) <= err_sq


def _exact_convolution(a: np.ndarray, b: np.ndarray) -> list:
    """The exact convolution of two float arrays (binary fractions: integers times 2^-1100)."""
    scale = 1 << 1100
    ia = np.array([int(Fraction(float(x)) * scale) for x in a], dtype=object)
    ib = np.array([int(Fraction(float(x)) * scale) for x in b], dtype=object)
    return [Fraction(int(v), scale * scale) for v in np.convolve(ia, ib)]


@pytest.mark.parametrize("sizes", [(40, 50), (65, 65), (300, 257), (1500, 1500)])
def test_long_double_convolution_is_within_its_bound_far_below_float64s(sizes):
    """``extended=True`` (80-bit long double, rounded to float64): the l1 distance to the exact
    convolution is within the returned bound, and that bound is 77 (direct sums) to 1150 times below the
    float64 path's (its floor: one float64 rounding of each entry, 1.1e-16 of the mass)."""
    from accountant.engines import fftconv

    if fftconv.EXTENDED_ROUNDOFF is None:   # pragma: no cover - not x86-64
        pytest.fail("this machine's long double is not the 80-bit format the toolkit targets")
    rng = np.random.default_rng(11)
    a = rng.random(sizes[0]) ** 8
    b = rng.random(sizes[1]) * rng.random(sizes[1]) ** 4
    a, b = a / a.sum(), b / b.sum()
    exact = _exact_convolution(a, b)
    c64, e64 = linear_convolve(a, b)
    cx, ex = linear_convolve(a, b, extended=True)
    assert cx.dtype == np.float64 and cx.size == c64.size == len(exact)
    dist = float(sum(abs(Fraction(float(v)) - e) for v, e in zip(cx, exact)))
    assert dist <= ex
    assert ex <= 3e-16 and 50 * ex <= e64, (ex, e64)
    square, esq = linear_convolve(a, a, extended=True)   # one transform, the same bound law
    exact_sq = _exact_convolution(a, a)
    assert float(sum(abs(Fraction(float(v)) - e) for v, e in zip(square, exact_sq))) <= esq


def test_extended_falls_back_to_float64_above_its_length_or_without_long_double(monkeypatch):
    from accountant.engines import fftconv

    rng = np.random.default_rng(3)
    a, b = rng.random(700), rng.random(900)
    plain = linear_convolve(a, b)
    monkeypatch.setattr(fftconv, "EXTENDED_MAX_LENGTH", 1024)        # the FFT here is 2048 long
    c, e = linear_convolve(a, b, extended=True)
    assert np.array_equal(c, plain[0]) and e == plain[1]
    monkeypatch.setattr(fftconv, "EXTENDED_MAX_LENGTH", 1 << 18)
    monkeypatch.setattr(fftconv, "EXTENDED_ROUNDOFF", None)          # a long double that is float64
    c, e = linear_convolve(a, b, extended=True)
    assert np.array_equal(c, plain[0]) and e == plain[1]


def test_the_long_double_fft_itself_is_within_the_bound_with_u_2_to_the_minus_64():
    """The long-double FFT before its rounding to float64: its l1 distance to the exact
    convolution is within :func:`fft_error_bound` at u = 2^-64 (1e-16 here, 2048 times below
    float64's: the theorem's worst case), and is in fact about 1e-19, so the transform really
    runs in 64-bit mantissas (with float64 twiddle factors it would be off by about 1e-16)."""
    from accountant.engines import fftconv

    if fftconv.EXTENDED_ROUNDOFF is None:   # pragma: no cover - not x86-64
        pytest.fail("this machine's long double is not the 80-bit format the toolkit targets")
    rng = np.random.default_rng(17)
    for size in (300, 2000):
        a = rng.random(size) ** 4
        a /= a.sum()
        n = 2 * size - 1
        L = 1 << (n - 1).bit_length()
        fa = np.fft.rfft(a.astype(np.longdouble), L)
        c = np.fft.irfft(fa * fa, L)[:n]
        exact = _exact_convolution(a, a)
        dist = sum(abs(Fraction(*v.as_integer_ratio()) - e) for v, e in zip(c, exact))   # exact
        bound = fftconv.fft_error_bound(a, a, L, n, fftconv.EXTENDED_ROUNDOFF)
        assert float(dist) <= bound <= fftconv.fft_error_bound(a, a, L, n) / 2000, (size, float(dist), bound)
        # measured 1.2e-19 - 1.4e-19; a float64 FFT of the same arrays is off by about 2e-16
        assert float(dist) < 1e-18, (size, float(dist))
