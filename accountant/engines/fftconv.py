"""FFT convolutions of non-negative arrays with a bound on their floating-point error.

One implementation of the Higham bound, used by the discrete PLDs of
:mod:`accountant.composition.pld`, the lattice blanket of :mod:`accountant.engines.lattice` and
the certified convolution power (:func:`convolution_power`: the m-fold power of a probability
vector on the integers, each product cut to the window holding all but :data:`POWER_TAIL` of its
mass on each side, with a proved l1 distance to the true power) of the linear-statistic lower
bound (:mod:`accountant.bounds.laws.linear_statistic`).
Higham, Accuracy and Stability of Numerical Algorithms (2nd ed.), Theorem 24.2: the relative
2-norm error of a radix-2 FFT of length L is at most log2(L) eta / (1 - log2(L) eta), eta <= 5u;
three transforms and a pointwise product; the l1 error is at most sqrt(L) times the l2 error,
and ||a * b||_2 <= ||a||_1 ||b||_2.  The PLD compositions ask for the extended path
(``linear_convolve(..., extended=True)``): the same theorem in 80-bit long double (u = 2^-64)
up to ``EXTENDED_MAX_LENGTH``, plus one float64 rounding per entry.
"""
from __future__ import annotations

import math

import numpy as np

#: unit roundoff of float64
UNIT_ROUNDOFF = 2.0 ** -53
_U = UNIT_ROUNDOFF
#: mass cut from each tail of every product of :func:`convolution_power`
POWER_TAIL = 1e-30
#: the largest window (entries) of :func:`convolution_power`; callers choose their lattice so
#: that the power's support fits, and the function refuses beyond it
POWER_MAX_SIZE = 1 << 24


def _extended_roundoff():
    """2^-64 where NumPy's long double is the x87 80-bit format (64-bit mantissa) and its FFT
    computes in it (NumPy >= 2.0; an FFT that cast to float64 would void the bound), else None."""
    if np.finfo(np.longdouble).nmant != 63:
        return None
    if np.fft.rfft(np.zeros(8, dtype=np.longdouble)).dtype != np.clongdouble:
        return None
    return 2.0 ** -64


#: unit roundoff of the extended path of :func:`linear_convolve` (:func:`_extended_roundoff`),
#: or None: there that path is not taken (a long double that is float64 gains nothing; a
#: software quad is ~50 times slower; an FFT that casts to float64 would not compute in it)
EXTENDED_ROUNDOFF = _extended_roundoff()
#: the longest FFT (entries) :func:`linear_convolve` computes in long double when asked; above
#: it float64 (an 80-bit FFT costs about 7 times a float64 one: 0.19 s against 0.026 s at 2^20)
EXTENDED_MAX_LENGTH = 1 << 18


def fft_error_bound(a: np.ndarray, b: np.ndarray, length: int, out_size: int,
                    u: float = UNIT_ROUNDOFF) -> float:
    """An l1 bound on the float error of the convolution of ``a`` and ``b`` computed with FFTs
    of ``length`` (a power of 2) and kept on ``out_size`` entries, in a format of unit roundoff
    ``u`` (float64 by default)."""
    lg = math.log2(length)
    rel = 4.0 * (lg * 5 * u / (1 - lg * 5 * u)) + 2 * u
    return math.sqrt(out_size) * rel * 4.0 * min(float(np.sum(a)) * _norm2(b), _norm2(a) * float(np.sum(b)))


def _norm2(x: np.ndarray) -> float:
    """The 2-norm of a vector by a plain sum of squares (einsum), not ``np.linalg.norm``: that
    calls OpenBLAS, whose threads spin on a loaded machine (tens of times slower at 2^20
    entries, docs/BENCHMARKS.md).  A float sum of
    ``x.size`` non-negative products is within a relative ``x.size u`` of the exact one (each
    product within u): the factor ``1 + 2 x.size u`` (and u for the root) keeps it an upper bound."""
    n = max(int(x.size), 1)
    return math.sqrt(float(np.einsum("i,i->", x, x)) * (1.0 + 2.0 * n * UNIT_ROUNDOFF)) * (1.0 + UNIT_ROUNDOFF)


def fft_error_bound_sums(sum_a: float, max_a: float, sum_b: float, max_b: float, length: int,
                         out_size: int) -> float:
    """:func:`fft_error_bound` from the sums and maxima of two non-negative arrays
    (``||x||_2 <= sqrt(||x||_1 ||x||_inf)``, which saves the norms' passes over long arrays)."""
    u = UNIT_ROUNDOFF
    lg = math.log2(length)
    rel = 4.0 * (lg * 5 * u / (1 - lg * 5 * u)) + 2 * u
    return math.sqrt(out_size) * rel * 4.0 * min(sum_a * math.sqrt(sum_b * max_b),
                                                 math.sqrt(sum_a * max_a) * sum_b) * (1.0 + 8.0 * u)


def linear_convolve(a: np.ndarray, b: np.ndarray, extended: bool = False) -> tuple[np.ndarray, float]:
    """Linear convolution of two non-negative arrays and an l1 bound on its float error
    (direct sums for a short factor, else FFTs; ``b is a``: one forward transform); negative
    float noise is clipped to 0 (the true values are >= 0, so clipping only reduces the error).

    ``extended``: compute in 80-bit long double where the platform has it
    (:data:`EXTENDED_ROUNDOFF`) and the FFT is at most :data:`EXTENDED_MAX_LENGTH` long, then
    round to float64.  The float64 inputs are exact in long double; the error bound is the same
    theorem with u = 2^-64, plus the rounding of each entry c~_i to float64 (at most u64 |c~_i|,
    in all at most u64 (||a||_1 ||b||_1 + e_x); the inputs' float sums are within a relative
    size u64 of the exact ones).  A PLD composed by repeated squaring carries the error of its
    first squarings times about the number of rounds, so their precision decides the total:
    4-RR, 10,000 rounds at n = 2.3e7: 4.0e-9 -> 2.2e-11 (delta 1e-8)."""
    n = a.size + b.size - 1
    L = 1 << (n - 1).bit_length()
    if not (extended and EXTENDED_ROUNDOFF is not None and L <= EXTENDED_MAX_LENGTH):
        return _convolve(a, b, L, n, UNIT_ROUNDOFF)
    c, err = _convolve(a.astype(np.longdouble), b.astype(np.longdouble) if b is not a else None,
                       L, n, EXTENDED_ROUNDOFF)
    if c.dtype != np.longdouble:  # never on the platforms EXTENDED_ROUNDOFF admits
        raise ArithmeticError(f"long-double convolution computed in {c.dtype}")
    mass = float(np.sum(a)) * float(np.sum(b)) * (1.0 + 2.0 * (a.size + b.size) * UNIT_ROUNDOFF)
    err = (err + UNIT_ROUNDOFF * (mass + err)) * (1.0 + 4.0 * UNIT_ROUNDOFF)
    return c.astype(np.float64), err


def _convolve(a: np.ndarray, b: "np.ndarray | None", L: int, n: int, u: float) -> tuple[np.ndarray, float]:
    """The convolution of :func:`linear_convolve` in the arrays' own format (unit roundoff
    ``u``), clipped at 0, and its error bound; ``b`` None: the square of ``a``."""
    sq = b is None or b is a
    b = a if b is None else b
    if min(a.size, b.size) <= 64:
        c = np.convolve(a, b)
        err = 2.0 * min(a.size, b.size) * u * float(np.sum(a)) * float(np.sum(b))
    else:
        fa = np.fft.rfft(a, L)
        # a square (a PLD's repeated squaring passes the same array twice): one transform, not
        # two (the same numbers: the second transform would be the first, bit for bit)
        fb = fa if sq else np.fft.rfft(b, L)
        c = np.fft.irfft(fa * fb, L)[:n]
        err = fft_error_bound(a, b, L, n, u)
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
    c, err = linear_convolve(va, vb)
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
    own error (:func:`linear_convolve`), and cutting non-negative entries adds their sum.  ``p``
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
