"""Proved and certified-lower eps_c of any finite randomizer given as a probability matrix.

**Upper bound: the privacy blanket of the matrix.**  With ``m_y = min_x R[x, y]`` (the
blanket mass, ``gamma = sum_y m_y``) every report is, independently, a blanket draw (law
``m / gamma``) with probability gamma (Balle, Bell, Gascon, Nissim, CRYPTO 2019).  For a
pure-LDP matrix write ``r_x(y) = R[x, y] / m_y``, a likelihood ratio in ``[1, E]`` with
``E = e^eps0``; the blanket's delta for the ordered input pair (x1, x1') is
``E[(sum_i Z_i)_+] / n`` with Z_i i.i.d., ``Z = r_x1(W) - e^eps r_x1'(W)`` where
``P[W = y] = m_y`` and ``Z = 0`` with probability ``1 - gamma`` (the count-law form of
:mod:`accountant.engines.blanket`).

* *Corners.*  Writing each point ``(r_x1(y), r_x1'(y))`` as the bilinear mix of the four
  corners of ``[1, E]^2`` is a mean-preserving spread, so the law on the corners dominates in
  convex order, and the n-fold sums keep the order while ``(.)_+`` is convex: the corner law's
  delta is an upper bound.  When every ratio is 1 or E (k-RR, binary RR, OUE, OLH, Hadamard
  response, subset selection, symmetric unary encoding) nothing is spread: the corner law *is*
  the matrix's blanket (``exact_blanket``).
* *The worst pair.*  With ``s_x = (r_x - 1)/(E - 1)`` the corner weights of (x1, x1') are
  ``p10 = sum m s_x1 (1 - s_x1')`` on (E,1) and on (1,E) (equal: both rows sum to 1),
  ``p11 = sum m s_x1 s_x1' = c - p10`` on (E,E), ``p00 = gamma - c - p10`` on (1,1) with
  ``c = (1 - gamma)/(E - 1)`` the same for every pair.  So all pairs' laws lie on one line,
  along which a larger p10 is a further spread (w from (1,1) and (E,E) to (E,1) and (1,E)
  keeps the mean): the pair with the largest p10 dominates every other pair, and its delta is
  the supremum over pairs.  One law, found with one matrix product.
* *Rounding.*  The weights are float sums of non-negative terms; each corner coordinate is
  within ``eta = 7 u E/(E - 1) + 4 u`` of its exact value (u = 2^-52), so each weight within
  ``eta gamma + u w`` and every pair's p10 from the matrix product within ``(Y + 4) u p10 +
  eta gamma`` (Y outputs).  The float law and the true law of the worst pair (its rounding-noise
  (1,1) and (E,E) masses moved to the null category, which only raises delta) differ per user
  by a density ratio of at most ``1 + rho``, so for n users the true delta is at most
  ``(1 + rho)^n`` times the float law's: that factor (:meth:`FiniteLaw.margin`; 1 + 2e-5 for
  64-RR at n = 1e8) multiplies every upper delta, and the eps search aims at
  ``delta / margin``.
* *Many ratios.*  Where a ratio lies strictly between 1 and E the corners are a relaxation;
  the bound is then the smaller of it and the certified lattice blanket of the matrix's own
  atoms over every ordered pair (:mod:`accountant.bounds.finite_lattice`, proof there).
* *Not pure LDP* (a column with a zero beside a positive entry): the blanket on its support
  plus the outputs outside it counted in full (:mod:`accountant.bounds.finite_lattice`).
  gamma = 0: no blanket, no finite eps_c from this bound (the reason says so).

**Lower bound.**  Datasets ``D = (x1, x0, ..., x0)`` and ``D' = (x1', x0, ..., x0)``.  Sorting
each report into ``S = {y: R[x1, y] > R[x1', y]}`` or not (and, where ``P_x0`` gives the two
sides of ``{R[x1] != R[x1']}`` the same mass, three categories) is post-processing, so the
exact divergence of the category counts, computed by the certified count-law engines of
:mod:`accountant.bounds.laws.lower`, is a lower bound for the mechanism.  Triples are ranked
by the chi-square of their category law ``sum_c (P_x1(c) - P_x1'(c))^2 / P_x0(c)`` over the
:data:`LOWER_PAIRS` input pairs farthest apart in total variation and every x0; the best
:data:`LOWER_TRIPLES` of each law are searched and the largest eps kept, with its datasets named.
Beside them: the full report pattern of the same triples (outputs grouped by their likelihood
ratios, a sufficient statistic, enumerated exactly where the count vectors are few:
:mod:`accountant.bounds.laws.ratio_groups`), and the linear statistic, untuned and tuned at
``u0 = e^eps`` (:mod:`accountant.bounds.laws.linear_statistic`).  A matrix that is not pure LDP
has the outputs x0 cannot produce counted in full (only user 1 sends them); where an input puts
more than delta on outputs another cannot produce, the lower bound is inf.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Optional

import mpmath
import numpy as np

from accountant.bounds.laws.count_law import CountLaw as LowerCountLaw, MP_DPS
from accountant.core.numfmt import floor_at_resolution
from accountant.bounds.laws.linear_statistic import (coarse, rank_desc, statistic_lower_delta,
                                                     statistic_lower_epsilon)
from accountant.bounds.laws.ratio_groups import (MAX_COMPOSITIONS, enumeration_refusal, exact_sum,
                                                 group_delta_and_slope, group_floor, ratio_groups)
from accountant.bounds.laws.lower import LOWER_MARGIN, LowerLaw
from accountant.core.finite import FiniteRandomizer
from accountant.core.params import validate_delta, validate_eps, validate_n
from accountant.engines.blanket.engine import BIN_GAP, blanket_exact_epsilon, positive_part
from accountant.engines.blanket.law import CornerBlanket, CountLaw
from accountant.bounds.finite_lattice import (NO_BLANKET, blanket_atoms, lattice_delta,
                                              lattice_epsilon, lattice_refusal)

_U = 2.0 ** -52
#: input pairs (largest total variation first) whose triples the lower bound ranks
LOWER_PAIRS = 8
#: triples whose certified divergence is searched (the best by chi-square)
LOWER_TRIPLES = 3
#: the upper search's relative tolerance: the registry's BLANKET_RTOL for a four-corner law
#: (each evaluation costs 0.05-2 s), tighter for a three-atom law (cheap; then a k-RR or RR
#: matrix is never looser than the named path, which searches to 1e-5)
UPPER_RTOL = 1e-5
UPPER_RTOL_THREE_ATOMS = 1e-6
#: the lattice search's relative tolerance (each evaluation runs the lattice engine on a few pairs)
LATTICE_RTOL = 1e-4
#: ratios within this relative distance of 1 or of E count as at a corner (exact blanket)
CORNER_TOL = 1e-12


def _check_randomizer(R) -> FiniteRandomizer:
    if not isinstance(R, FiniteRandomizer):
        raise ValueError(f"randomizer must be a FiniteRandomizer, got {type(R).__name__}")
    return R


def _eps0_up(R: FiniteRandomizer) -> float:
    """A float eps0 with exp(eps0) >= every ratio max_x R / min_x R of a column (each ratio
    taken with a 4-ulp margin for its own rounding)."""
    hi, lo = R.matrix.max(axis=0), R.blanket_mass
    ratio = float(np.max(hi / lo)) * (1.0 + 4.0 * _U)
    e = math.log(ratio)
    while math.exp(e) < ratio:
        e = math.nextafter(e, math.inf)
    return max(e, math.nextafter(0.0, 1.0))


@dataclass(frozen=True)
class FiniteLaw:
    """The blanket law of the worst input pair of a finite randomizer.

    ``law`` is the engine's law (a three-atom :class:`CountLaw` when a corner is empty, else a
    :class:`CornerBlanket`), or None when delta = 0 at every eps >= 0 (all rows equal);
    ``pair`` the worst ordered pair (x1, x1') as row indices; ``rho`` the per-user density
    ratio bound of the rounding (module docstring, *Rounding*; :meth:`margin` is the factor on
    an upper delta at n users); ``exact_blanket`` whether the corner law is the matrix's
    blanket itself (every likelihood ratio 1 or E) rather than its spread; ``eps0`` the float
    local budget of the corners (>= the matrix's); ``gamma`` the blanket mass.
    """

    law: object
    pair: tuple
    rho: float
    exact_blanket: bool
    eps0: float
    gamma: float

    def margin(self, n: int) -> float:
        """``(1 + rho)^n``, rounded up: the true delta is at most this times the law's."""
        return math.exp(n * math.log1p(self.rho)) * (1.0 + 8.0 * _U)


def _on_corners(R: FiniteRandomizer, E: float) -> bool:
    """Whether every likelihood ratio R[x, y] / m_y is 1 or E (within CORNER_TOL)."""
    r = R.matrix / R.blanket_mass[None, :]
    return bool(np.all((np.abs(r - 1.0) <= CORNER_TOL) | (np.abs(r / E - 1.0) <= CORNER_TOL)))


def finite_blanket_law(R: FiniteRandomizer) -> FiniteLaw:
    """The worst pair's corner law (module docstring); ``ValueError`` for a matrix that is not
    pure LDP, with the reason.

    Examples
    --------
    >>> import math
    >>> from accountant import FiniteRandomizer
    >>> from accountant.bounds.finite import finite_blanket_law
    >>> E = math.exp(2.0)
    >>> krr = FiniteRandomizer([[(E if x == y else 1.0) / (E + 3) for y in range(4)] for x in range(4)])
    >>> fl = finite_blanket_law(krr)
    >>> print(type(fl.law).__name__, fl.pair, fl.exact_blanket)
    CountLaw (0, 1) True
    """
    R = _check_randomizer(R)
    if not R.pure:
        raise ValueError(f"{R.label} is not pure LDP (a column has a zero beside a positive entry): "
                         "the blanket bound here needs every output possible from every input")
    eps0 = _eps0_up(R)
    E = math.exp(eps0)
    m = R.blanket_mass
    s = np.clip((R.matrix / m[None, :] - 1.0) / (E - 1.0), 0.0, 1.0)
    gamma = float(math.fsum(m))
    sm = s * m[None, :]
    ones = 1.0 - s
    p10 = sm @ ones.T                   # sum_y m s_i (1 - s_j), every ordered pair: non-negative terms
    np.fill_diagonal(p10, -np.inf)
    i, j = (int(v) for v in np.unravel_index(int(np.argmax(p10)), p10.shape))
    w10 = math.fsum(sm[i] * ones[j])
    w11 = math.fsum(sm[i] * s[j])
    w00 = math.fsum(m * ones[i] * ones[j])
    if w10 <= 0.0 or gamma >= 1.0:
        return FiniteLaw(None, (i, j), 0.0, True, eps0, min(gamma, 1.0))
    # Rounding (module docstring).  Each s and 1 - s is within 3 u E/(E - 1) + u of its exact
    # value, so each product m s (1 - s) within m eta and each weight within eta gamma + u w;
    # every pair's p10 from the matrix product within (Y + 4) u p10 + eta gamma.
    eta = 7.0 * _U * E / (E - 1.0) + 4.0 * _U
    slack = eta * gamma
    worst10 = float(p10[i, j]) * (1.0 + (R.outputs_count + 4) * _U) + slack   # >= every pair's p10
    # a (1,1) or (E,E) mass at the level of rounding noise goes to the null category: its atom
    # value (1 - u or E (1 - u)) is <= 0, so the law only grows (and the engine takes the
    # three-atom path instead of the four-atom one)
    if w11 <= 2.0 * slack:
        w11 = 0.0
    if w00 <= 2.0 * slack:
        w00 = 0.0
    null = 1.0 - math.fsum((w10, w10, w11, w00))
    if null <= 8.0 * slack:
        raise ValueError(f"{R.label}: the blanket covers almost all of every row (gamma = {gamma!r}); "
                         "the rounding margin of this bound is not available so close to gamma = 1")
    # density ratios of the true worst law (its zeroed atoms moved to null) to the float law
    ratios = [max(worst10, w10 + slack + _U * w10) / w10]
    ratios += [1.0 + (slack + _U * w) / w for w in (w11, w00) if w > 0.0]
    ratios.append(1.0 + 6.0 * (slack + _U * gamma) / null)
    rho = max(ratios) - 1.0 + 2.0 * _U
    if w11 <= 0.0:
        law = CountLaw(w10, w00, (E, 1.0, 1.0), (1.0, E, 1.0))
    elif w00 <= 0.0:
        law = CountLaw(w10, w11, (E, 1.0, E), (1.0, E, E))
    else:
        law = CornerBlanket(eps0, p10=w10, p00=w00, p11=w11)
    return FiniteLaw(law, (i, j), rho, _on_corners(R, math.exp(R.eps0)), eps0, gamma)


@dataclass(frozen=True)
class FiniteBound:
    """One bound of a finite randomizer: ``epsilon`` (or ``delta``), the datasets or input pair
    it is for, and whether the upper bound is the matrix's own blanket (``exact_blanket``).

    Examples
    --------
    >>> from accountant import FiniteRandomizer, finite_upper_epsilon
    >>> b = finite_upper_epsilon(FiniteRandomizer([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]]), 1000, 1e-6)
    >>> print(b.kind, b.epsilon, "reveal the input" in b.reason)
    upper None True
    """

    epsilon: Optional[float]
    delta: float
    kind: str            # "upper" or "lower"
    detail: str
    exact_blanket: bool = False
    reason: Optional[str] = None


def _pair_text(R: FiniteRandomizer, fl: FiniteLaw) -> str:
    x1, x1p = (R.inputs[v] for v in fl.pair)
    how = ("the matrix's blanket (every likelihood ratio is 1 or e^eps0)" if fl.exact_blanket
           else "the blanket's likelihood ratios spread to the corners of [1, e^eps0]^2")
    return f"privacy blanket, worst input pair (x1, x1') = ({x1}, {x1p}), gamma = {fl.gamma:.6g}; {how}"


def _lattice_text(R: FiniteRandomizer, res, gamma: float) -> str:
    x1, x1p = (R.inputs[v] for v in res.pair)
    how = (f"lattice, step h = {res.step:.3g}" if res.step > 0 else "Berry-Esseen / Chernoff bound of the pair")
    text = (f"privacy blanket ({how}), worst input pair (x1, x1') = ({x1}, {x1p}), gamma = {gamma:.6g}; "
            f"every ordered pair screened (Chernoff; Berry-Esseen on the worst), {res.evaluated} through the lattice engine")
    if res.capped:
        text += f"; {res.cap_reason}: the bound may be one of those, still proved"
    if not R.pure:
        text += "; outputs outside the blanket's support counted in full"
    return text


def _use_lattice(R: FiniteRandomizer) -> bool:
    """Not pure LDP, or a likelihood ratio strictly between 1 and e^eps0: the lattice engine."""
    return not R.pure or not _on_corners(R, math.exp(R.eps0))


def finite_upper_epsilon(R: FiniteRandomizer, n: int, delta: float,
                         rtol: Optional[float] = None) -> FiniteBound:
    """Proved upper bound on eps_c of n shuffled reports of ``R`` (module docstring): the
    smallest eps whose certified blanket delta, times the rounding margin, is <= ``delta``;
    ``epsilon`` None with the ``reason`` where the bound does not apply.  A matrix whose
    ratios are not all 1 or e^eps0 (or that is not pure LDP) takes the smaller of the corner
    bound and the lattice bound (:mod:`accountant.bounds.finite_lattice`).

    Examples
    --------
    >>> import math
    >>> from accountant import FiniteRandomizer, finite_upper_epsilon, fmt
    >>> E = math.exp(2.0)
    >>> krr = FiniteRandomizer([[(E if x == y else 1.0) / (E + 3) for y in range(4)] for x in range(4)])
    >>> up = finite_upper_epsilon(krr, 100_000, 1e-6)
    >>> print(fmt(up.epsilon, 4, "up"), up.exact_blanket)
    0.02957 True
    """
    n, delta = validate_n(n), validate_delta(delta)
    R = _check_randomizer(R)
    corner = None
    if R.pure:
        fl = finite_blanket_law(R)
        if fl.law is None:
            return FiniteBound(0.0, delta, "upper", _pair_text(R, fl), True)
        # as the named mechanisms' blanket (exact_bounds.blanket_bound): certified, within rtol of the root
        # Newton predicts, no second evaluation below it; a chart's rtol also coarsens the bins
        floor = UPPER_RTOL_THREE_ATOMS if isinstance(fl.law, CountLaw) else UPPER_RTOL
        rt = floor if rtol is None else max(rtol, floor)
        res = blanket_exact_epsilon(fl.law, n, delta / fl.margin(n), rtol=rt,
                                    certify_bracket=False, bin_gap=min(max(BIN_GAP, 10.0 * rt), 1e-4))
        corner = FiniteBound(res.epsilon, delta, "upper", _pair_text(R, fl), fl.exact_blanket)
        if fl.exact_blanket:
            return corner
    refused = lattice_refusal(R)
    if refused is not None:
        if corner is not None:
            return replace(corner, detail=f"{corner.detail} ({refused})")
        return FiniteBound(None, delta, "upper", "", reason=f"{R.label}: {refused}")
    eps, res = lattice_epsilon(R, n, delta, rtol=max(rtol or 0.0, LATTICE_RTOL))
    if eps is None:
        return corner or FiniteBound(None, delta, "upper", "", reason=f"{R.label}: {res}")
    if corner is not None and corner.epsilon <= eps:
        return corner
    return FiniteBound(eps, delta, "upper", _lattice_text(R, res, R.gamma), False)


def finite_upper_delta(R: FiniteRandomizer, n: int, eps: float) -> FiniteBound:
    """Proved upper bound on delta(eps) of n shuffled reports of ``R`` (``epsilon`` holds eps).

    Examples
    --------
    With its certified lower end (:func:`finite_lower_delta`):

    >>> import math
    >>> from accountant import FiniteRandomizer, finite_lower_delta, finite_upper_delta, fmt
    >>> E = math.exp(2.0)
    >>> krr = FiniteRandomizer([[(E if x == y else 1.0) / (E + 3) for y in range(4)] for x in range(4)])
    >>> print(fmt(finite_lower_delta(krr, 100_000, 0.03).delta, 3, "down"),
    ...       fmt(finite_upper_delta(krr, 100_000, 0.03).delta, 3, "up"))
    8.29e-7 8.3e-7
    """
    n = validate_n(n)
    validate_eps(eps)
    R = _check_randomizer(R)
    corner = None
    if R.pure:
        fl = finite_blanket_law(R)
        if fl.law is None or eps >= fl.eps0:
            return FiniteBound(eps, 0.0, "upper", _pair_text(R, fl), fl.exact_blanket)
        first = positive_part(fl.law, n, float(eps))
        up = first.upper
        if 0.0 < first.value < 1.0:  # windows and method chosen for the value, as the eps search does
            up = min(up, positive_part(fl.law, n, float(eps), target_delta=first.value).upper)
        up *= fl.margin(n)
        corner = FiniteBound(eps, min(up, 1.0), "upper", _pair_text(R, fl), fl.exact_blanket)
        if fl.exact_blanket:
            return corner
    refused = lattice_refusal(R)
    if refused is not None:
        if corner is not None:
            return replace(corner, detail=f"{corner.detail} ({refused})")
        return FiniteBound(eps, math.nan, "upper", "", reason=f"{R.label}: {refused}")
    at = blanket_atoms(R)
    if at.gamma <= 0.0:
        return corner or FiniteBound(eps, math.nan, "upper", "", reason=f"{R.label}: {NO_BLANKET}")
    res = lattice_delta(at, n, float(eps))
    if corner is not None and corner.delta <= res.upper:
        return corner
    return FiniteBound(eps, min(res.upper, 1.0), "upper", _lattice_text(R, res, at.gamma), False)


# --------------------------------------------------------------------------- lower bound
def _sides(a: np.ndarray, b: np.ndarray) -> tuple:
    """The outputs where row a is above row b, and below; entries within CORNER_TOL count as
    equal (float noise of the row normalisation).  Any partition is a post-processing, so the
    choice only decides how good the lower bound is."""
    return a > b * (1.0 + CORNER_TOL), b > a * (1.0 + CORNER_TOL)


def _category_law(R: FiniteRandomizer, x1: int, x1p: int, x0: int) -> Optional[LowerLaw]:
    """The two- (and where possible three-) category laws of the triple as one LowerLaw."""
    a, b, c = R.matrix[x1], R.matrix[x1p], R.matrix[x0]
    up, down = _sides(a, b)
    laws = []
    with mpmath.workdps(MP_DPS):
        def masses(row, masks):  # category masses of one row, the row's float sum divided out
            P = [exact_sum(row[mk]) for mk in masks]   # exact sums of the floats (as fsum's)
            total = mpmath.fsum(P)
            return [p / total for p in P]

        def law(masks, name):
            P0, P1, P1p = (masses(row, masks) for row in (c, a, b))
            if any(p <= 0 for p in P0):
                return None
            return LowerCountLaw(tuple(P0), tuple(p / q for p, q in zip(P1, P0)),
                                 tuple(p / q for p, q in zip(P1p, P0)), name)
        rest = ~(up | down)
        if up.any() and down.any() and float(c[up].sum()) == float(c[down].sum()) and rest.any():
            three = law([up, down, rest], "three categories")
            if three is not None and three.p[0] == three.p[1]:
                laws.append(three)
        for S in (up, up | rest):
            if S.any() and (~S).any():
                two = law([S, ~S], "two categories")
                if two is not None:
                    laws.append(two)
    if not laws:
        return None
    names = R.inputs
    text = (f"D = ({names[x1]}, {names[x0]}, ..., {names[x0]}), D' = ({names[x1p]}, {names[x0]}, ..., "
            f"{names[x0]}) (inputs of {R.label}), each report sorted into S = {{y: R[x1, y] > R[x1', y]}} "
            "or not (and the outputs where the rows agree)")
    return LowerLaw(laws[0], text, alternatives=tuple(laws[1:]))


def lower_triples(R: FiniteRandomizer) -> list:
    """Up to ``4 + 2 LOWER_TRIPLES`` triples (x1, x1', x0): the best pair's four with x0 in
    {x1, x1'} (binary randomized response's worst datasets), and the best by the chi-square
    ``sum_c (P_x1(c) - P_x1'(c))^2 / P_x0(c)`` of their two-category law and of their
    three-category law (where x0 gives both sides the same mass)."""
    M = R.matrix
    k = R.k
    tv = np.abs(M[:, None, :] - M[None, :, :]).sum(axis=2) if k <= 256 else None
    if tv is None:  # large k: the pairs farthest apart from the row of largest spread
        spread = M.max(axis=1) - M.min(axis=1)
        first = int(np.argmax(spread))
        d = np.abs(M - M[first]).sum(axis=1)
        pairs = [(first, int(v)) for v in rank_desc(d)[:LOWER_PAIRS] if v != first]
        pairs += [(b, a) for a, b in pairs]
    else:
        np.fill_diagonal(tv, -1.0)
        order = rank_desc(tv)[:2 * LOWER_PAIRS]
        pairs = [tuple(int(v) for v in np.unravel_index(o, tv.shape)) for o in order]
    scored = []
    for x1, x1p in pairs:
        up, down = _sides(M[x1], M[x1p])
        if not up.any():
            continue
        masks = (up, down, ~(up | down))
        d = np.array([M[x1, mk].sum() - M[x1p, mk].sum() for mk in masks])
        p = np.stack([M[:, mk].sum(axis=1) for mk in masks], axis=1)        # every x0, 3 sides
        with np.errstate(divide="ignore", invalid="ignore"):
            two = np.where((p[:, 0] > 0) & (p[:, 0] < 1), d[0] ** 2 / (p[:, 0] * (1 - p[:, 0])), -1.0)
            # three categories where x0 gives both sides the same mass (_category_law checks it)
            sym = (p[:, 0] > 0) & np.isclose(p[:, 0], p[:, 1], rtol=1e-12, atol=0.0) & (p[:, 2] > 0)
            three = np.where(sym, (d ** 2 / np.where(p > 0, p, 1.0)).sum(axis=1), -1.0)
        for kind, chi in enumerate((two, three)):
            for x0 in rank_desc(chi)[:LOWER_TRIPLES]:
                if chi[x0] >= 0:
                    scored.append((kind, float(chi[x0]), x1, x1p, int(x0)))
    out = []
    if scored:  # the best pair's datasets where the others hold x1 or x1' (binary RR's worst case)
        x1, x1p = max(scored, key=lambda t: float(coarse(t[1])))[2:4]
        out += [(x1, x1p, x1), (x1, x1p, x1p), (x1p, x1, x1), (x1p, x1, x1p)]
    for kind in (0, 1):  # the best of each kind: chi-square alone does not rank across kinds
        best = sorted((t for t in scored if t[0] == kind), key=lambda t: -float(coarse(t[1])))
        taken = 0
        for _, _, x1, x1p, x0 in best:
            if taken < LOWER_TRIPLES and (x1, x1p, x0) not in out:
                out.append((x1, x1p, x0))
                taken += 1
    return out


def _group_triples(R: FiniteRandomizer, n: int) -> list:
    """The triples whose full report pattern (:mod:`accountant.bounds.laws.ratio_groups`) is
    enumerated at n: those of :func:`lower_triples`, at every n where three groups or more can be
    (C(n + 2, 2) within the limit); [] above."""
    if math.comb(n + 2, 2) > MAX_COMPOSITIONS:
        return []
    out = []
    for t in lower_triples(R):
        rg = ratio_groups(R, *t)
        if rg is not None and rg.compositions(n) <= MAX_COMPOSITIONS:
            out.append(rg)
    return out


def _refusal(R: FiniteRandomizer, triple: tuple, n: int) -> Optional[str]:
    """Why the full report pattern of ``triple`` is not enumerated at n (None where it is, or
    where it has at most two groups: the two categories are then the full pattern)."""
    rg = ratio_groups(R, *triple)
    if rg is None or rg.groups <= 2:
        return None
    return enumeration_refusal(rg, n)


def _infinite(R: FiniteRandomizer, delta: float) -> Optional[FiniteBound]:
    """eps_c = inf, certified, where an input x1 puts more than delta on the outputs another
    input x1' cannot produce: with x0 = x1' every such report is user 1's and tells D from D'
    at every eps (one matrix product finds the pair)."""
    if R.pure:
        return None
    M = R.matrix
    mass = M @ (M == 0.0).T.astype(np.float64)      # mass[x1, x1'] = x1's mass where x1' is 0
    np.fill_diagonal(mass, -1.0)
    x1, x1p = (int(v) for v in np.unravel_index(int(np.argmax(mass)), mass.shape))
    if not mass[x1, x1p] > delta:
        return None
    rg = ratio_groups(R, x1, x1p, x1p)
    floor = group_floor(rg) if rg is not None else 0.0
    if not floor > delta:
        return None
    return FiniteBound(math.inf, delta, "lower", rg.datasets + (
        f"; x1 = {rg.names[0]} puts mass {floor:.6g} > delta on outputs x1' cannot produce: "
        "no finite eps"))


def finite_lower_epsilon(R: FiniteRandomizer, n: int, delta: float, rtol: float = 1e-9,
                         upper: Optional[float] = None) -> FiniteBound:
    """Certified lower bound on the true eps_c (the largest over :func:`lower_triples`, the full
    report pattern where it is enumerated and the linear statistic, untuned and tuned), with the
    datasets in ``detail``; ``upper`` (the proved eps_c, when known) starts the search.  A matrix
    that is not pure LDP takes the outputs x0 cannot produce in full; ``epsilon`` is inf where
    no eps brings the divergence of a dataset pair below delta.

    Examples
    --------
    >>> import math
    >>> from accountant import FiniteRandomizer, finite_lower_epsilon, fmt
    >>> E = math.exp(2.0)
    >>> krr = FiniteRandomizer([[(E if x == y else 1.0) / (E + 3) for y in range(4)] for x in range(4)])
    >>> lo = finite_lower_epsilon(krr, 100_000, 1e-6)
    >>> print(fmt(lo.epsilon, 4, "down"), lo.detail[:39])
    0.02956 D = (0, 2, ..., 2), D' = (1, 2, ..., 2)
    """
    from accountant.engines.search import largest_eps_above

    R = _check_randomizer(R)
    n, delta = validate_n(n), validate_delta(delta)
    inf = _infinite(R, delta)
    if inf is not None:
        return inf
    best = FiniteBound(0.0, delta, "lower", "no dataset pair of the triples searched has delta above "
                       "the target at any eps > 0")
    top = R.eps0 if R.pure else 60.0
    for x1, x1p, x0 in lower_triples(R):
        ll = _category_law(R, x1, x1p, x0)
        if ll is None:
            continue

        def evaluate(eps: float, ll=ll):
            v, slope = ll.delta_and_slope(n, eps, delta)
            return v, v / (1 - LOWER_MARGIN) ** 2, slope

        guess = None if upper is None else 0.9 * upper
        lo, _ = largest_eps_above(evaluate, delta, min(top, ll.eps_max),
                                  rtol=max(rtol, 1e-6), guess=guess if guess and 0 < guess < top else None)
        if lo > (best.epsilon or 0.0):
            best = FiniteBound(lo, delta, "lower", ll.datasets)
    for rg in _group_triples(R, n):
        def evaluate(eps: float, rg=rg):
            v, slope = group_delta_and_slope(rg, n, eps)
            return v, v * (1 + 1e-9) + 1e-300, slope

        g = best.epsilon if best.epsilon and 0 < best.epsilon < top else None
        lo, _ = largest_eps_above(evaluate, delta, top, rtol=max(rtol, 1e-6), guess=g)
        if lo > (best.epsilon or 0.0):
            best = FiniteBound(lo, delta, "lower", rg.datasets)
    st, text = statistic_lower_epsilon(R, n, delta, guess=best.epsilon or None, rtol=max(rtol, 1e-6),
                                       describe=lambda t: _refusal(R, t, n))
    if st > (best.epsilon or 0.0):
        best = FiniteBound(st, delta, "lower", text)
    # every search above resolves eps to max(rtol, 1e-6) relative: digits beyond are float noise
    return replace(best, epsilon=floor_at_resolution(best.epsilon, max(rtol, 1e-6)))


def finite_lower_delta(R: FiniteRandomizer, n: int, eps: float) -> FiniteBound:
    """Certified lower bound on delta(eps) (the largest over :func:`lower_triples`, the full
    report pattern where it is enumerated and the linear statistic), with the datasets in
    ``detail``.

    Examples
    --------
    >>> from accountant import FiniteRandomizer, finite_lower_delta, finite_upper_delta
    >>> rr = FiniteRandomizer([[0.75, 0.25], [0.25, 0.75]])
    >>> lo, up = finite_lower_delta(rr, 1000, 0.1), finite_upper_delta(rr, 1000, 0.1)
    >>> print(0.0 < lo.delta <= up.delta, lo.kind)
    True lower
    """
    R = _check_randomizer(R)
    n = validate_n(n)
    best = FiniteBound(eps, 0.0, "lower", "no triple")
    for x1, x1p, x0 in lower_triples(R):
        ll = _category_law(R, x1, x1p, x0)
        if ll is not None:
            v = ll.delta(n, float(eps))
            if v > best.delta:
                best = FiniteBound(eps, v, "lower", ll.datasets)
    for rg in _group_triples(R, n):
        v = group_delta_and_slope(rg, n, float(eps))[0]
        if v > best.delta:
            best = FiniteBound(eps, v, "lower", rg.datasets)
    st, text = statistic_lower_delta(R, n, float(eps))
    if st > best.delta:
        best = FiniteBound(eps, st, "lower", text)
    return best


# --------------------------------------------------------------------------- the registry's view
def finite_blanket_result(R: FiniteRandomizer, n: int, delta: float, rtol: float):
    """:func:`finite_upper_epsilon` as the registry's ``blanket`` result (clamped to eps0:
    post-processing); not applicable, with the reason, for a matrix this bound does not cover."""
    from accountant.core.result import BoundResult

    up = finite_upper_epsilon(R, n, delta, rtol)
    if up.epsilon is None:
        return BoundResult.not_applicable("blanket", up.reason, delta)
    if up.epsilon >= R.eps0:
        return BoundResult("blanket", R.eps0, True, up.detail, delta, 0.0)
    achieved = finite_upper_delta(R, n, up.epsilon).delta
    return BoundResult("blanket", up.epsilon, True, up.detail, delta, min(achieved, delta))


def finite_blanket_delta(R: FiniteRandomizer, n: int, eps: float) -> tuple:
    """(0, certified upper delta at eps) of the matrix's blanket bound (the registry's form)."""
    up = finite_upper_delta(R, n, float(eps))
    return 0.0, (1.0 if math.isnan(up.delta) else up.delta)


def finite_lower_result(R: FiniteRandomizer, n: int, delta: float, rtol: float):
    """:func:`finite_lower_epsilon` as the registry's ``lower`` result (datasets in ``reason``)."""
    from accountant.core.result import BoundResult

    lo = finite_lower_epsilon(R, n, delta, rtol)
    return BoundResult("lower", lo.epsilon, True, lo.detail, delta)
