"""The certified lattice blanket: an upper bound on E[(Z_1 + ... + Z_n)_+] for i.i.d. Z with many atoms.

A module of its own because no other engine takes a law with hundreds of atoms: the count-law
engines of :mod:`accountant.engines.blanket` enumerate counts of at most four categories.

**The law.**  ``Z = a_j - u b_j`` with probability ``w_j`` (``u = e^eps``, ``a_j, b_j >= 0``),
``Z = 0`` with probability ``1 - sum_j w_j``; the privacy blanket of a finite randomizer has
``delta(eps) = E[(S)_+] / n``, ``S = Z_1 + ... + Z_n`` (:mod:`accountant.bounds.finite`).

**Proof of the upper bound.**  (.)_+ is increasing and convex; for independent summands the
increasing convex order is kept by sums (if X <=_icx X' and Y <=_icx Y', independent, then
X + Y <=_icx X' + Y'), so replacing the per-message law by one that dominates it in that order
can only raise E[S_+].  Each step below is such a replacement or an inequality between
non-negative measures, and every float error is put on the safe side.

1. *Safe atoms.*  ``u_lo = fl(e^eps)(1 - 4 u_f) <= e^eps`` (u_f = 2^-53) and
   ``z_j = fl(a_j - u_lo b_j) + 4 u_f (a_j + u_lo b_j) >= a_j - e^eps b_j``: each atom is raised
   (b_j >= 0), a pointwise larger variable.
2. *Lattice spread.*  With a step h > 0 and ``t = fl(z_j / h) + 2 u_f (|t| + 1) >= z_j / h``,
   ``k = floor(t)``, ``f = t - k``, the atom becomes the two-point law ``k h`` (mass
   ``w_j (1 - f)``) and ``(k + 1) h`` (mass ``w_j f``), of mean ``t h >= z_j``: a mean-preserving
   spread of an atom at ``t h >= z_j``, so it dominates the atom in increasing convex order.  No
   bias of order n h: the per-message variance grows by at most ``gamma h^2 / 4``.
3. *Measures, not laws.*  If p <= p' pointwise (non-negative measures on the integers) then
   p^{*n} <= p'^{*n} pointwise and ``sum_s s_+ p^{*n}(s) <= sum_s s_+ p'^{*n}(s)``.  So every
   computed mass (the two-point weights, their per-cell sums, the null mass 1 - gamma) is
   inflated by its float error bound (relative ``(2 J + 8) u_f`` for J atoms) and the result is
   an upper bound for the exact spread law.
4. *Tilting.*  For any theta > 0 and any float c > 0, with ``q(k) = p(k) e^{theta h k} / c``,
   ``sum_s (h s)_+ p^{*n}(s) = c^n sum_s (h s)_+ e^{-theta h s} q^{*n}(s)`` exactly.  theta is the
   saddle point of the atoms' moment generating function (Q mean near 0), c the float sum of the
   tilted masses; q is inflated again for the errors of exp and the division.
5. *Cyclic convolution.*  q^{*n} is computed by binary powering (squarings and products in the
   pmf domain; powering phi^n in the Fourier domain would multiply the float error by n).  While a
   power's support is shorter than L it is a linear convolution; beyond, the arrays are periodised
   onto Z_L: periodisation commutes with convolution, and the periodisation of a non-negative
   measure is >= the measure at each point of any window of L consecutive integers.  So for every
   s in [1, B] (B < L) the computed cyclic value at s mod L is >= q^{*n}(s), whatever L: aliasing
   only adds mass on the safe side.  Each FFT convolution carries Higham's l1 error bound
   (:mod:`accountant.engines.fftconv`), propagated as ``e' = e_fft + e_X (|Y| + e_Y) + e_Y |X|``;
   the window sum adds ``max_s s h e^{-theta h s} e <= e / (e theta)``.
6. *The rest.*  ``sum_{s > B} s h e^{-theta h s} q^{*n}(s) <= (B + 1) h e^{-theta h (B + 1)}
   (sum q)^n`` when ``theta h (B + 1) >= 1`` (s e^{-theta h s} decreases there); B is chosen so
   this is below ``TAIL_REL`` of the saddle-point estimate of the value.
7. *Log space.*  ``log F = n log c + log(window + errors + rest)``, every float operation's error
   added to the exponent; ``delta = exp(log F) / n``, capped by ``E[Z_+]`` (E[S_+] <= n E[Z_+]).

The step h is ``STEP_FRACTION`` of the per-message standard deviation (refined down to
``MIN_STEP_FRACTION`` while the window fits in ``min_size`` cells), coarsened when the window
(``B`` above zero, ``NEG_SIGMAS`` tilted standard deviations of the sum below) would need more than
``MAX_SIZE`` cells: that is the cost model (at most ``2 log2 n`` convolutions of ``MAX_SIZE``
cells, ``MAX_SIZE`` 2^20: about 8 MB per array); a coarser step only loosens the bound.  The
``central`` value drops the error terms (a number for searches, not a bound).
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np

from scipy import fft as sfft

from accountant.engines.fftconv import UNIT_ROUNDOFF as _UF, fft_error_bound_sums, linear_convolve
from accountant.engines.saddle import bracketed_newton, laplace_moments
from accountant.core.params import validate_eps

#: the lattice step as a fraction of the per-message standard deviation
STEP_FRACTION = 0.05
#: the finest step a ``min_size`` may ask for (fraction of the per-message standard deviation)
MIN_STEP_FRACTION = 0.02
#: largest cyclic group (a power of 2); the step is coarsened to fit (the cost model)
MAX_SIZE = 1 << 20
#: tilted standard deviations of the sum kept below zero (aliasing beyond is safe, only looser)
NEG_SIGMAS = 9.0
#: the rest above the window is bounded below this fraction of the estimated value
TAIL_REL = 1e-10
#: most atoms a law may have (each costs one cell update; the matrices' limit is lower)
MAX_ATOMS = 10 ** 7


@dataclass(frozen=True)
class LatticeDelta:
    """``upper`` (certified: >= E[S_+] / n) and ``central`` (no error terms) at ``eps``;
    ``slope`` an estimate of d delta / d eps; ``step`` the lattice step h and ``size`` the
    cyclic group's order L (0 when no convolution was needed); ``trivial`` when the value is
    the cap E[Z_+] (mean >= 0: no tilt); ``log_upper`` the log of the bound (below the float
    range ``upper`` holds the smallest normal float)."""

    eps: float
    upper: float
    central: float
    slope: float
    step: float
    size: int
    trivial: bool = False
    log_upper: float = math.nan

    def __post_init__(self) -> None:
        if math.isnan(self.log_upper):
            object.__setattr__(self, "log_upper", math.log(self.upper) if self.upper > 0 else -math.inf)


def _check(a, b, w):
    arrs = []
    for name, v in (("a", a), ("b", b), ("w", w)):
        x = np.asarray(v, dtype=float).ravel()
        if not np.all(np.isfinite(x)) or np.any(x < 0):
            raise ValueError(f"{name} must hold finite numbers >= 0")
        arrs.append(x)
    if not (arrs[0].size == arrs[1].size == arrs[2].size) or arrs[0].size == 0:
        raise ValueError("a, b and w must be non-empty and of the same length")
    if arrs[0].size > MAX_ATOMS:
        raise ValueError(f"at most {MAX_ATOMS} atoms, got {arrs[0].size}")
    if math.fsum(arrs[2]) > 1.0 + 1e-9:
        raise ValueError(f"the weights w must sum to at most 1, got {math.fsum(arrs[2])!r}")
    return arrs


def safe_atoms(a: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    """Atoms z_j >= a_j - e^eps b_j (step 1 of the module docstring)."""
    u_lo = math.exp(eps) * (1.0 - 4.0 * _UF)
    return (a - u_lo * b) + 4.0 * _UF * (a + u_lo * b)


def saddle_theta(z: np.ndarray, w: np.ndarray) -> float:
    """theta > 0 near the minimiser of sum w e^{theta z} (needs mean < 0 < max z); any theta > 0
    is valid for the bound, so a few bisection/Newton steps suffice."""
    zmax = float(np.max(np.abs(z)))
    lo, hi = 0.0, 1.0 / float(np.max(z))
    cap = 700.0 / zmax

    def d1(th):
        return float(np.dot(w, z * np.exp(th * z)))

    while d1(hi) < 0.0 and hi < cap:
        lo, hi = hi, min(2.0 * hi, cap)

    def derivs(th):
        e = np.exp(th * z)
        return float(np.dot(w, z * e)), float(np.dot(w, z * z * e))

    return bracketed_newton(derivs, lo, hi, 1e-10, 60)


class _Power:
    """A non-negative measure on the integers, linear (``off`` + index) or periodised on Z_L,
    with an l1 bound ``err`` on its float error, its sum and maximum (for Higham's bound) and,
    once periodised, its spectrum (computed once, shared by a squaring and a product)."""

    __slots__ = ("arr", "off", "cyclic", "err", "total", "top", "_spec")

    def __init__(self, arr, off, cyclic, err):
        self.arr, self.off, self.cyclic, self.err = arr, off, cyclic, err
        self.total, self.top, self._spec = float(np.sum(arr)), float(np.max(arr)), None

    def spectrum(self, L: int) -> np.ndarray:
        if self._spec is None:
            if not self.cyclic:  # size <= L except a first measure (its sums are in its inflation)
                idx = (self.off + np.arange(self.arr.size)) % L
                self.arr = np.bincount(idx, weights=self.arr, minlength=L)
                self.off, self.cyclic = 0, True
            self._spec = sfft.rfft(self.arr)
        return self._spec


def _convolve(x: _Power, y: _Power, L: int) -> _Power:
    if not x.cyclic and not y.cyclic and x.arr.size + y.arr.size - 1 <= L:
        c, e = linear_convolve(x.arr, y.arr)
        out = _Power(c, x.off + y.off, False, 0.0)
    else:
        c = sfft.irfft(x.spectrum(L) * y.spectrum(L), L)
        np.maximum(c, 0.0, out=c)  # the true values are >= 0: clipping only reduces the error
        e = fft_error_bound_sums(x.total, x.top, y.total, y.top, L, L)
        out = _Power(c, 0, True, 0.0)
    out.err = e + x.err * (y.total + y.err) + y.err * x.total
    return out


def _power(q: _Power, n: int, L: int) -> _Power:
    result, base = None, q
    while n:
        if n & 1:
            result = base if result is None else _convolve(result, base, L)
        n >>= 1
        if n:
            base = _convolve(base, base, L)
    return result


def lattice_positive_part(a, b, w, n: int, eps: float, *, step_fraction: float = STEP_FRACTION,
                          max_size: int = MAX_SIZE, min_size: int = 0) -> LatticeDelta:
    """Certified upper bound on ``E[(Z_1 + ... + Z_n)_+] / n`` (module docstring) for
    ``Z = a_j - e^eps b_j`` with probability ``w_j``, else 0.

    Examples
    --------
    >>> import math
    >>> from accountant.engines.lattice import lattice_positive_part
    >>> E = math.exp(1.0)
    >>> r = lattice_positive_part([E, 1.0, 2.0], [1.0, E, 2.0], [0.2, 0.2, 0.3], 1000, 0.1)
    >>> print(f"{r.upper:.4g} {r.central <= r.upper}")
    3.907e-07 True
    """
    a, b, w = _check(a, b, w)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    validate_eps(eps)
    if not (0.0 < step_fraction <= 1.0):
        raise ValueError(f"step_fraction must lie in (0, 1], got {step_fraction!r}")
    if max_size < 2 or max_size & (max_size - 1):
        raise ValueError(f"max_size must be a power of 2 >= 2, got {max_size!r}")
    n, eps = int(n), float(eps)
    keep = w > 0.0
    a, b, w = a[keep], b[keep], w[keep]
    z = safe_atoms(a, b, eps)
    J = z.size
    if J == 0 or float(np.max(z)) <= 0.0:
        return LatticeDelta(eps, 0.0, 0.0, 0.0, 0.0, 0)
    gamma = math.fsum(w)
    null = max(0.0, 1.0 - gamma) + 4.0 * _UF
    # the cap E[S_+] <= n E[Z_+] (sum of non-negative products, inflated for its rounding)
    trivial = math.fsum(w * np.maximum(z, 0.0)) * (1.0 + (2 * J + 8) * _UF)
    mean = math.fsum(w * z)
    if mean >= 0.0:
        return LatticeDelta(eps, trivial, trivial, 0.0, 0.0, 0, True)
    var1 = max(math.fsum(w * z * z) - mean * mean, 0.0)
    sigma1 = math.sqrt(var1)
    theta = saddle_theta(z, w)
    ez = np.exp(theta * z)
    M0 = float(np.dot(w, ez)) + null
    qz = w * ez / M0
    muQ = float(np.dot(qz, z))
    sdQ = math.sqrt(max(float(np.dot(qz, z * z)) - muQ * muQ, 1e-300))
    sS, mS = math.sqrt(n) * sdQ, n * muQ
    # window above zero: (x / theta) e^{-x} <= TAIL_REL * estimate of E_Q[S_+ e^{-theta S}]
    est = sS * laplace_moments(theta * sS)[0]
    g = math.log(1.0 / (theta * TAIL_REL * max(est, 1e-300)))
    x = max(g, 1.0)
    for _ in range(20):
        x = max(1.0, g + math.log(x))
    up_span = x / theta
    low_span = NEG_SIGMAS * sS + max(0.0, -mS)
    h = step_fraction * sigma1
    need = (up_span + low_span) / h + 2.0
    if need > max_size - 1:
        h *= need / (max_size - 1)
    elif need < min_size and step_fraction > MIN_STEP_FRACTION:
        # a small window: a finer step (down to MIN_STEP_FRACTION) for the same cost as min_size cells
        h = max(h * need / min_size, MIN_STEP_FRACTION * sigma1)
        need = (up_span + low_span) / h + 2.0
    span_z = float(np.max(z)) - min(float(np.min(z)), 0.0)
    if span_z / h > 16.0 * max_size:   # a per-message range far beyond the group: coarser step
        h = span_z / (16.0 * max_size)
    B = int(math.ceil(up_span / h))
    # lattice spread (step 2): two-point weights, inflated (step 3)
    t = z / h
    t = t + 2.0 * _UF * (np.abs(t) + 1.0)
    k = np.floor(t)
    f = t - k
    kmin, kmax = int(min(k.min(), 0)), int(max(k.max() + 1, 0))
    span1 = kmax - kmin + 1
    L = min(1 << max(1, int(math.ceil(math.log2(max(need, 2.0))))), max_size)
    if n * (span1 - 1) + 1 <= L:   # the exact support fits: no periodisation at all
        L = 1 << max(1, (n * (span1 - 1)).bit_length())
    B = min(B, L - 1)
    idx = np.concatenate([k - kmin, k + 1 - kmin, [-kmin]]).astype(np.int64)
    mass = np.concatenate([w * (1.0 - f), w * f, [null]])
    p = np.bincount(idx, weights=mass, minlength=span1)
    # tilt (step 4): q = p e^{theta h k} / c, inflated for the sums, exp, the division and (a
    # per-message range beyond L) the periodisation's sums of up to span1 / L + 1 cells
    xk = theta * h * np.arange(kmin, kmax + 1, dtype=float)
    tq = p * np.exp(np.maximum(xk, -700.0))   # no underflow: a raised factor is a raised mass (step 3)
    tq = np.where(p > 0.0, np.maximum(tq, 1e-300), 0.0)   # nor in the product (raised: safe)
    c = math.fsum(tq)
    rho = (2 * J + 8 + 2.0 * float(np.max(np.abs(xk))) + 12.0 + span1 // L + 2) * _UF
    q = tq / c * (1.0 + rho)
    off = kmin
    P = _power(_Power(q, off, False, 0.0), n, L)
    s = np.arange(1, B + 1)
    if P.cyclic:
        vals = P.arr[s % L]
    else:
        pos = s - P.off
        ok = (pos >= 0) & (pos < P.arr.size)
        vals = np.where(ok, P.arr[np.clip(pos, 0, P.arr.size - 1)], 0.0)
    ws = s * h * np.exp(-theta * h * s)
    window = float(np.sum(ws * vals))
    central_F = window
    window *= 1.0 + (2.0 * theta * h * B + B + 16.0) * _UF
    s1 = (B + 1) * h
    tail_w = s1 * math.exp(-theta * s1) if theta * s1 >= 1.0 else 1.0 / (math.e * theta)
    total_q = math.fsum(q) * (1.0 + 2.0 * _UF)
    log_total = n * math.log(total_q)
    tail = tail_w * math.exp(log_total * (1.0 + 4.0 * _UF) + 4.0 * _UF) if P.cyclic or P.off + P.arr.size > B + 1 else 0.0
    err_term = P.err / (math.e * theta) * (1.0 + 8.0 * _UF)
    Fq = (window + err_term + tail) * (1.0 + 4.0 * _UF)
    lc = math.log(c)
    log_F = n * lc + math.log(Fq)
    log_F += 4.0 * _UF * (abs(n * lc) + abs(math.log(Fq)) + 1.0) + 2.0 * n * _UF * abs(lc)
    log_upper = log_F - math.log(n) + 4.0 * _UF * (abs(log_F) + 40.0)
    # below the float range the smallest normal float is reported (still >= the bound)
    # (above the float range the cap E[Z_+] is the smaller: exp's argument capped there)
    upper = min(max(math.exp(min(log_upper, 700.0)), sys.float_info.min), trivial)
    central = math.exp(n * lc + math.log(central_F)) / n if central_F > 0.0 else 0.0
    eb = float(np.dot(w * b, ez)) / M0
    slope = -central * n * theta * math.exp(eps) * eb
    return LatticeDelta(eps, upper, min(central, upper), slope, h, L, False, min(log_upper, math.log(trivial)))
