"""FFT convolutions of non-negative arrays with a bound on their floating-point error.

One implementation of the Higham bound, used by the discrete PLDs of
:mod:`accountant.composition.pld` and the lattice blanket of :mod:`accountant.engines.lattice`.
Higham, Accuracy and Stability of Numerical Algorithms (2nd ed.), Theorem 24.2: the relative
2-norm error of a radix-2 FFT of length L is at most log2(L) eta / (1 - log2(L) eta), eta <= 5u;
three transforms and a pointwise product; the l1 error is at most sqrt(L) times the l2 error,
and ||a * b||_2 <= ||a||_1 ||b||_2.
"""
from __future__ import annotations

import math

import numpy as np

#: unit roundoff of float64
UNIT_ROUNDOFF = 2.0 ** -53


def fft_error_bound(a: np.ndarray, b: np.ndarray, length: int, out_size: int) -> float:
    """An l1 bound on the float error of the convolution of ``a`` and ``b`` computed with FFTs
    of ``length`` (a power of 2) and kept on ``out_size`` entries."""
    u = UNIT_ROUNDOFF
    lg = math.log2(length)
    rel = 4.0 * (lg * 5 * u / (1 - lg * 5 * u)) + 2 * u
    return math.sqrt(out_size) * rel * 4.0 * min(float(np.sum(a)) * float(np.linalg.norm(b)),
                                                 float(np.linalg.norm(a)) * float(np.sum(b)))


def fft_error_bound_sums(sum_a: float, max_a: float, sum_b: float, max_b: float, length: int,
                         out_size: int) -> float:
    """:func:`fft_error_bound` from the sums and maxima of two non-negative arrays
    (``||x||_2 <= sqrt(||x||_1 ||x||_inf)``, which saves the norms' passes over long arrays)."""
    u = UNIT_ROUNDOFF
    lg = math.log2(length)
    rel = 4.0 * (lg * 5 * u / (1 - lg * 5 * u)) + 2 * u
    return math.sqrt(out_size) * rel * 4.0 * min(sum_a * math.sqrt(sum_b * max_b),
                                                 math.sqrt(sum_a * max_a) * sum_b) * (1.0 + 8.0 * u)


def linear_convolve(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float]:
    """Linear convolution of two non-negative arrays and an l1 bound on its float error
    (direct sums for a short factor, else FFTs); negative float noise is clipped to 0 (the
    true values are >= 0, so clipping only reduces the error)."""
    n = a.size + b.size - 1
    if min(a.size, b.size) <= 64:
        c = np.convolve(a, b)
        err = 2.0 * min(a.size, b.size) * UNIT_ROUNDOFF * float(np.sum(a)) * float(np.sum(b))
        return c, err
    L = 1 << (n - 1).bit_length()
    c = np.fft.irfft(np.fft.rfft(a, L) * np.fft.rfft(b, L), L)[:n]
    err = fft_error_bound(a, b, L, n)
    np.maximum(c, 0.0, out=c)
    return c, err


