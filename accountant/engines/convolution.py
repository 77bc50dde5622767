"""Convolutions of non-negative vectors with a proved bound on their floating-point error.

Two tools that the composition of privacy loss distributions and the certified lower bounds of
finite randomizers share:

* :func:`fft_convolve`: the linear convolution of two non-negative vectors and an l1 bound on
  its floating-point error (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed.,
  Theorem 24.2, for the FFT; a direct sum for short vectors).
* :func:`convolution_power`: the m-fold convolution power of a probability vector on the
  integers, by repeated squaring, each product cut to the window that holds all but
  :data:`POWER_TAIL` (or a hundredth of the error carried so far, if larger) of its mass on
  each side.  What is returned is a vector ``V`` and a number
  ``dist`` with ``||p^{*m} - V||_1 <= dist``: the cut mass and the rounding error of every step
  are carried (the proof is in the function's docstring).
"""
from __future__ import annotations

import math

import numpy as np

_U = 2.0 ** -53  # unit roundoff of float64
#: mass cut from each tail of every product of :func:`convolution_power`
POWER_TAIL = 1e-30
#: the largest window (entries) of :func:`convolution_power`; callers choose their lattice so
#: that the power's support fits, and the function refuses beyond it
POWER_MAX_SIZE = 1 << 24


def fft_convolve(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float]:
    """Linear convolution of two non-negative vectors and an l1 bound on its floating-point
    error (negative rounding noise is clipped to 0, which only brings entries closer to the
    true, non-negative ones)."""
    n = a.size + b.size - 1
    if min(a.size, b.size) <= 64:
        c = np.convolve(a, b)
        err = 2.0 * min(a.size, b.size) * _U * float(np.sum(a)) * float(np.sum(b))
        return c, err
    L = 1 << (n - 1).bit_length()
    c = np.fft.irfft(np.fft.rfft(a, L) * np.fft.rfft(b, L), L)[:n]
    # Higham Thm 24.2: relative 2-norm error of an FFT <= log2(L) eta / (1 - log2(L) eta),
    # eta <= 5u; three transforms and a pointwise product; l1 <= sqrt(n) l2, and
    # ||a * b||_2 <= ||a||_1 ||b||_2.
    lg = math.log2(L)
    rel = 4.0 * (lg * 5 * _U / (1 - lg * 5 * _U)) + 2 * _U
    err = math.sqrt(n) * rel * 4.0 * min(float(np.sum(a)) * float(np.linalg.norm(b)),
                                         float(np.linalg.norm(a)) * float(np.sum(b)))
    np.maximum(c, 0.0, out=c)
    return c, err


def tail_cut(c: np.ndarray, tail: float) -> tuple[int, int, float, float]:
    """``(lo, hi, low_cut, high_cut)``: the window ``c[lo:hi + 1]`` keeps all but at most about
    ``tail`` on each side; ``low_cut`` and ``high_cut`` are the float sums of what is cut, each
    within a relative ``c.size u`` of the exact sum.  Both tails are summed from their own end
    (a cumulative sum from the left would carry an absolute error of ``c.size u`` into the
    right tail: cancellation)."""
    left = np.cumsum(c)
    right = np.cumsum(c[::-1])[::-1]          # right[i] = sum of c[i:]
    lo = int(np.searchsorted(left, tail, side="right"))
    # first i with sum of c[i + 1:] <= tail
    hi = int(np.searchsorted(-right, -tail, side="left")) - 1
    hi = min(max(hi, lo), c.size - 1)
    low_cut = float(left[lo - 1]) if lo > 0 else 0.0
    high_cut = float(right[hi + 1]) if hi + 1 < c.size else 0.0
    return lo, hi, low_cut, high_cut


def _product(a, b, tail: float, max_size: int):
    """One step of :func:`convolution_power` on (offset, vector, dist) states."""
    (oa, va, da), (ob, vb, db) = a, b
    if va.size + vb.size - 1 > 2 * max_size:
        raise ValueError(f"convolution power: a window of {va.size + vb.size - 1} entries is over "
                         f"the limit {2 * max_size}")
    c, err = fft_convolve(va, vb)
    # ||p^a p^b - V_a V_b||_1 <= ||p^a - V_a||_1 ||p^b||_1 + ||V_a||_1 ||p^b - V_b||_1
    dist = da + float(np.sum(va)) * (1.0 + c.size * _U) * db + err
    # the FFT's rounding noise keeps every tail above a tiny mass: cut up to a hundredth of
    # the distance already carried (it grows by at most 2 %)
    lo, hi, low_cut, high_cut = tail_cut(c, max(tail, 0.01 * dist))
    dist += (low_cut + high_cut) * (1.0 + c.size * _U)
    return oa + ob + lo, c[lo:hi + 1].copy(), dist


def convolution_power(p: np.ndarray, m: int, tail: float = POWER_TAIL,
                      max_size: int = POWER_MAX_SIZE) -> tuple[int, np.ndarray, float]:
    """``(offset, V, dist)``: the m-fold convolution power of the probability vector ``p``
    (index i = value i of a lattice variable) on the window ``offset + arange(V.size)``, with
    ``||p^{*m} - V||_1 <= dist`` (``p^{*0}`` is the point mass at 0).

    Proof of ``dist``.  Every state holds a computed vector V_j and ``dist_j >=
    ||p^{*j} - V_j||_1``.  For a product, ``p^{*a} p^{*b} - V_a V_b = (p^{*a} - V_a) p^{*b} +
    V_a (p^{*b} - V_b)`` and ``||x * y||_1 <= ||x||_1 ||y||_1``, so the exact product of the
    computed vectors is within ``dist_a + ||V_a||_1 dist_b`` of the true power; the FFT adds its
    own error (:func:`fft_convolve`), and cutting non-negative entries adds their sum.  ``p``
    itself is taken as exact (the caller accounts for the error of building it).
    """
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 0:
        raise ValueError(f"m must be an integer >= 0, got {m!r}")
    p = np.asarray(p, dtype=float)
    if p.ndim != 1 or p.size == 0 or not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError("p must be a non-empty vector of non-negative numbers")
    result = (0, np.ones(1), 0.0)
    lo, hi, low_cut, high_cut = tail_cut(p, tail)
    base = (lo, p[lo:hi + 1].copy(), (low_cut + high_cut) * (1.0 + p.size * _U))
    first = True
    r = int(m)
    while r:
        if r & 1:
            result = base if first else _product(result, base, tail, max_size)
            first = False
        r >>= 1
        if r:
            base = _product(base, base, tail, max_size)
    off, v, dist = result
    return off, v, dist
