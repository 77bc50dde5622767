"""The certified discretisation of a continuous randomizer's amplification variable onto the lattice engine.

A module of its own because it is what a continuous law needs beyond :mod:`accountant.engines.lattice`
(which takes atoms): a law of the privacy amplification variable given as *cells*, each a range
of values with an exact mass and a bound on its conditional mean, is replaced by atoms that
dominate it in the increasing convex order, so the lattice engine's E[(Z_1 + ... + Z_n)_+] for
those atoms is an upper bound for the continuous law itself.

**The law.**  A report Y of the blanket (density m, mass gamma) has the amplification variable
``Z = A(Y) - u B(Y)``, ``u = e^eps``, ``A = f(.|x1) / m``, ``B = f(.|x1') / m`` (the likelihood
ratios of the pair to the blanket), and Z = 0 with probability 1 - gamma.  The output axis is cut
into cells; on cell c a family gives (:class:`CellLaw`) its blanket mass ``mass >= M_c``, bounds
``a_lo <= A <= a_hi`` and ``b_lo <= B <= b_hi`` on the cell (from the monotone pieces of the
ratios: their values at the cell's ends), and ``a_mean >= E[A | c]``, ``b_mean <= E[B | c]`` (the
pair's cell masses over the blanket's: closed-form CDFs).  Each bound is rounded to its safe side
by the family; ``null >= 1 - gamma``.

**Proof of domination (docs/proved.md, "A continuous randomizer on the lattice").**  On cell c,
Z takes values in ``[z_lo, z_hi]`` with ``z_lo = a_lo - u b_hi``, ``z_hi = a_hi - u b_lo`` and has
conditional mean ``mu_c <= mu = a_mean - u b_mean``.  The two-point law on {z_lo', z_hi'} with
z_lo' <= z_lo, z_hi' >= z_hi and mean mu' in [max(mu, z_lo'), z_hi'] is a mean-preserving spread
of a law of mean mu' >= mu_c on the same interval, hence >= the cell's conditional law in the
increasing convex order (a law on [l, h] is <=_cx the two-point law on {l, h} of the same mean;
raising the mean raises the order).  Mixtures over cells keep the order (the mixing weights are
the same masses), sums of independent copies keep it, and (.)_+ is increasing and convex: so
E[S_+] of the atoms bounds E[S_+] of the continuous law.  Every float error is on the safe side:
``u_lo <= e^eps <= u_hi``; z_lo' is computed with u_hi and lowered by its float error bound; the
top atom is the lattice engine's own safe atom of (a_hi, b_lo) (:func:`~accountant.engines.lattice.safe_atoms`,
>= z_hi); the lattice engine raises the bottom atom (a_lo, b_hi) to its safe value (>= z_lo':
a pointwise larger variable); mu' is computed with u_lo and raised by its float error bound; the
two weights ``mass (mu' - z_lo') / (z_hi' - z_lo')`` and ``mass (z_hi' - mu') / (z_hi' - z_lo')``
are computed from floats by three operations each (relative error <= 3 u_f each in the standard
model) and raised by 8 u_f: a measure pointwise >= the two-point law's, which the lattice engine
accepts (its step 3: measures, not laws).

A law whose Z is unbounded (a Gaussian) caps the cells at a level and adds the proved tail term
itself; this module sees only finite cells.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from accountant.engines.fftconv import UNIT_ROUNDOFF as _UF
from accountant.engines.berry_esseen import log_positive_part_bounds
from accountant.engines.lattice import LatticeDelta, lattice_positive_part, safe_atoms, saddle_theta

#: a Berry-Esseen bound within this (log) of its normal term is the answer (no lattice run)
BE_SLACK = 0.01


@dataclass(frozen=True)
class CellLaw:
    """The blanket law of a pair's amplification variable, as cells (module docstring).

    ``mass`` (>= the blanket mass of each cell), ``a_lo``, ``a_hi``, ``a_mean`` (bounds on the
    ratio A = f(.|x1) / m on the cell and an upper bound on its conditional mean), ``b_lo``,
    ``b_hi``, ``b_mean`` (the same for B = f(.|x1') / m, ``b_mean`` a lower bound), all arrays of
    one length and rounded to their safe sides by the family; ``null`` (>= 1 - gamma: the mass
    with Z = 0); ``a_max``, ``b_min`` the largest A and smallest B (so Z <= a_max - u b_min)."""

    mass: np.ndarray
    a_lo: np.ndarray
    a_hi: np.ndarray
    a_mean: np.ndarray
    b_lo: np.ndarray
    b_hi: np.ndarray
    b_mean: np.ndarray
    null: float

    def __post_init__(self) -> None:
        arrs = [np.asarray(getattr(self, f), dtype=float) for f in
                ("mass", "a_lo", "a_hi", "a_mean", "b_lo", "b_hi", "b_mean")]
        if len({a.shape for a in arrs}) != 1 or arrs[0].ndim != 1 or arrs[0].size == 0:
            raise ValueError("the cells' arrays must be one-dimensional, non-empty and of one length")
        if not all(np.all(np.isfinite(a)) and np.all(a >= 0.0) for a in arrs):
            raise ValueError("the cells' masses and ratio bounds must be finite numbers >= 0")
        if np.any(arrs[1] > arrs[2]) or np.any(arrs[4] > arrs[5]):
            raise ValueError("each cell needs a_lo <= a_hi and b_lo <= b_hi")
        if not (math.isfinite(self.null) and 0.0 <= self.null <= 1.0):
            raise ValueError(f"null must be a mass in [0, 1], got {self.null!r}")

    @property
    def a_max(self) -> float:
        return float(np.max(self.a_hi))

    @property
    def b_min(self) -> float:
        return float(np.min(self.b_lo))

    @property
    def cells(self) -> int:
        return int(np.asarray(self.mass).size)


def cell_atoms(law: CellLaw, eps: float) -> tuple:
    """Atoms (a, b, w) for :func:`~accountant.engines.lattice.lattice_positive_part` whose law
    dominates the cells' at ``eps`` in the increasing convex order (module docstring): two atoms a
    cell, (a_hi, b_lo) and (a_lo, b_hi), and the null atom (0, 0)."""
    u = math.exp(eps)
    u_lo, u_hi = u * (1.0 - 4.0 * _UF), u * (1.0 + 4.0 * _UF)
    a_lo, a_hi, b_lo, b_hi = (np.asarray(x, dtype=float) for x in (law.a_lo, law.a_hi, law.b_lo, law.b_hi))
    mass = np.asarray(law.mass, dtype=float)
    z_hi = safe_atoms(a_hi, b_lo, eps)   # the lattice engine's own top atoms (>= a_hi - e^eps b_lo)
    z_lo = (a_lo - u_hi * b_hi) - 4.0 * _UF * (a_lo + u_hi * b_hi)   # <= a_lo - e^eps b_hi
    am, bm = np.asarray(law.a_mean, dtype=float), np.asarray(law.b_mean, dtype=float)
    mu = (am - u_lo * bm) + 4.0 * _UF * (am + u_lo * bm)   # >= a_mean - e^eps b_mean
    mu = np.minimum(np.maximum(mu, z_lo), z_hi)
    width = z_hi - z_lo
    flat = width <= 0.0
    safe_w = np.where(flat, 1.0, width)
    w_hi = np.where(flat, mass, mass * ((mu - z_lo) / safe_w)) * (1.0 + 8.0 * _UF)
    w_lo = np.where(flat, 0.0, mass * ((z_hi - mu) / safe_w)) * (1.0 + 8.0 * _UF)
    a = np.concatenate([a_hi, a_lo, [0.0]])
    b = np.concatenate([b_lo, b_hi, [0.0]])
    w = np.concatenate([w_hi, w_lo, [law.null]])
    return a, b, w


def cell_positive_part(law: CellLaw, n: int, eps: float, **lattice) -> LatticeDelta:
    """Certified upper bound on ``E[(Z_1 + ... + Z_n)_+] / n`` for the continuous law the cells
    describe (module docstring); ``lattice``: the options of
    :func:`~accountant.engines.lattice.lattice_positive_part` (``step_fraction``, ``min_size``).

    Examples
    --------
    >>> import numpy as np
    >>> from accountant.engines.continuous import CellLaw, cell_positive_part
    >>> one = np.ones(1)
    >>> law = CellLaw(0.5 * one, one, 2.0 * one, 1.5 * one, one, one, one, 0.5)
    >>> r = cell_positive_part(law, 1, 0.0)   # Z uniform-like on [0, 1] w.p. 1/2: E[Z_+] <= 0.25
    >>> print(f"{r.upper:.6f}")
    0.250000
    """
    a, b, w = cell_atoms(law, eps)
    z = safe_atoms(a, b, eps)
    if n > 1 and float(np.max(z)) > 0.0 and float(np.dot(w, z)) < 0.0:
        # large n: the Berry-Esseen bound (accountant.engines.berry_esseen, certified for the same
        # atoms) where it is within BE_SLACK of its normal term, else the lattice engine
        th = saddle_theta(z, w)
        be, slack = log_positive_part_bounds(z[None, :], w, 4.0 * _UF, n, th)
        if slack[0] <= BE_SLACK and math.isfinite(be[0]):
            log_up = float(be[0]) - math.log(n)
            central = math.exp(log_up - float(slack[0]))
            e = np.exp(th * z)
            slope = -central * n * th * math.exp(eps) * float(np.dot(w * b, e)) / float(np.dot(w, e))
            return LatticeDelta(float(eps), max(math.exp(log_up), 2.2250738585072014e-308), central, slope,
                                0.0, 0, False, log_up)
    return lattice_positive_part(a, b, w, n, eps, **lattice)
