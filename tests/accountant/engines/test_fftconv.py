"""accountant.engines.fftconv.linear_convolve: a square uses one forward transform, with the
numbers of two; both within the proved error of the exact convolution."""
import numpy as np
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
