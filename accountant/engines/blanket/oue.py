r"""The exact privacy blanket of OUE (four atoms), certified.

Part of :mod:`accountant.engines.blanket` (the package docstring has the blanket bound
delta(eps) = E[(sum_i L_i)_+] / n over the n users, a user outside the blanket adding 0).

*The law.*  OUE sends k bits: the true one is 1 w.p. 1/2, every other one w.p.
b = 1/(E+1), E = e^eps0, independently.  With Q the law of k independent Bern(b) bits,
R(x)(y) = Q(y) rho(y_x), rho(1) = (E+1)/2, rho(0) = B = (E+1)/(2E), so R(x) >= B Q for
every x: gamma = B, omega = Q.  For a blanket draw W ~ Q only the bits (W1, W2) at the
positions of x1, x1' enter L = (rho(W1) - u rho(W2)) / B (u = e^eps), and under Q they are
independent Bern(b).  With rho(1)/B = E, rho(0)/B = 1, the sum over M blanket users is

    S = sum_i (rho(W1_i) - u rho(W2_i)) / B = (M + (E-1) K1) - u (M + (E-1) K2)
      = (E - 1) (K1 - c),        c = u K2 + (u - 1) M / (E - 1),

K1 = #{i: W1_i = 1}, K2 = #{i: W2_i = 1}, which given M are independent Bin(M, b) (the
bits are independent within and across users).  The atoms are E - u, 1 - uE, 1 - u and
E(1 - u) (:class:`accountant.engines.blanket.law.OueBlanket`), nothing is relaxed.  Hence,
with m = n - M ~ Bin(n, 1 - B) the users outside the blanket and j = K2,

    n delta(eps) = F = E_m E_j [g_m(j)],   g_m(j) = (E-1) E[(K1 - c)_+ | M = n - m, K2 = j].

*The inner sum in closed form.*  For K ~ Bin(M, p), q = 1 - p, the telescoping identity
(x - Mp) P[K = x] = a(x) - a(x+1), a(x) = x q P[K = x], gives E[(K - Mp); K >= k] =
k q P[K = k], so with k = floor(c) + 1 and T = P[K >= k],

    E[(K - c)_+] = k q P[K = k] + (M p - c) T,

evaluated with T = I_p(k, M-k+1) (SciPy's incomplete beta) when c >= Mp, and as
k q P[K = k] + (Mp - c)(1 - S), S = P[K <= k-1] = I_q(M-k+1, k), below the mean (no
cancellation there); the pmf by Loader's formula (:func:`binomial.binom_logpmf`).

*The j-axis.*  g_m is convex in j (the expectation of the positive part of an affine
function of j) with subgradient -(E-1) u P[K1 > c], so the binned path of
:func:`accountant.engines.blanket.sums.binned_sum` applies unchanged: chord
(Edmundson-Madansky) upper and tangent lower bounds on bins of a grid fixed across m,
from P(bin | m) and E[K2; bin | m] of K2 ~ Bin(n - m, b), which its conditional-cdf
recurrences give (they step N' = n - m down by one as m goes up).  The m-weights are
Bin(n, 1 - B): the sums module is driven with the shape ``2 p12 = 1 - B``,
``p' = b`` (:class:`_Shape`) and the terms :class:`_OueTerms`; the exact path
(:func:`sums.exact_sum`) likewise.  One implementation of the sums, for both laws.

*The nested path* (large n).  Along K2 the threshold c moves one-for-one (slope u), so
g_m bends over the whole K2-window and the direct bins must be fine (thousands at n = 1e6).
Grouping the users by their bits instead, with m = #(1,0) + #(0,1) ~ Bin(n, 1/(E+1)),
t = #(0,0) + #(1,1) | m ~ Bin(n - m, p_t) and l = #(1,1) | t ~ Bin(t, pi), pi = 1/(E^2+1),

    S = (E - u) N10 + (1 - uE) N01 + (1 - u) y,    y = t + (E - 1) l,

and given m, N10 ~ Bin(m, 1/2): the blanket engine's own closed form (the inner law
a = (E, 1, 1), b = (1, E, 1), its ``Terms`` with y in place of j), convex in y, and y has
the small coefficient 1 - u.  Then

* h(t) = E_l[g_m(t + (E-1) l)] is convex on the integers: y = X_1 + ... + X_t with i.i.d.
  X in {1, E}, and for convex g and x, x' >= 0, g(a+x+x') - g(a+x) >= g(a+x') - g(a), so the
  second differences of t -> E g(X_1 + ... + X_t) are >= 0.  The chord bound of the binned
  sums over t-bins therefore holds, with h at the bin edges replaced by upper bounds:
  h_U(t) = chords of g over G bins of the l-window (P and E[l; bin] from the incomplete beta
  and E[l; l <= x] = t pi P[Bin(t-1, pi) <= x-1]) plus (E-u) m times the Chernoff bound on
  the l-mass outside (S <= (E-u) m).  The grid's edge t = -1 gets 2 g(0) - g(kappa),
  kappa = 1 + (E-1) pi, >= 2 h(0) - h(1) (Jensen: h(1) >= g(kappa)): a convex extension.
* lower end: Jensen over l, E g(t + (E-1) l) >= g(kappa t), i.e. the three-atom law with
  a_3 = b_3 = kappa on the same (m, t) (``_nested_laws``), whose certified lower end (tangents)
  is a lower bound here; its gap, about the variance of l, is 2e-4 of delta at n = 1e4 and
  falls like 1/n, so the bins refine the upper end until its estimated distance to its limit
  is below ``bin_gap`` (chords converge like 1/G^2).
* at a chart's gap (``bin_gap >= CHART_BIN_GAP`` with a target) the lower end is instead
  Jensen's bound through the tangents of g_m at the upper end's own y-grid
  (:meth:`accountant.engines.blanket.oue_nested.NestedUpper.bin_lower`: no second pass over
  the m-window), and long m-windows first try one t-bin and one y-bin (2 evaluations of g
  per m).  The m-direction is not binned: m -> E[(A_m + R)_+] (A_m a sum of m steps of both
  signs) need not be convex (W = +-1, Z = 0: E|W1 + W2| = 1 < 2 E|W|), so chords over m
  would not be upper bounds.

*Windows.*  m and K2 (marginally Bin(n, B b)) are cut to windows leaving out at most
``truncation`` of the target, bounded and added to the upper end exactly as in
:mod:`accountant.engines.blanket.window`: crudely (S_+ <= n (E - u), the largest atom,
times Chernoff bounds on the left-out mass) or by exponential tilting over the four atoms
(x_+ <= e^{theta x} / (e theta), the tilted law of the null count and of K2 being
binomial again); the narrower pair of windows is used.

*Float error.*  The incomplete beta's relative error against direct mpmath summation stays
within 1.5e-11 up to M = 6e9 (z = 1 ... 10 standard deviations; the figures by M:
docs/BENCHMARKS.md); the form k q P + (Mp - c) T amplifies it by about
4 z^2 <= 400 where the terms matter.  ``FLOAT_REL_ERROR_OUE = 1e-8 max(1, sqrt(n)/1e3)``
covers that more than tenfold at every n (checked against a 50-digit evaluation in
tests/accountant/engines/test_blanket_oue.py) and is invisible in eps (1e-6 of delta at
n = 1e10 moves eps by ~1e-8 relative).
"""
from __future__ import annotations
import math
from dataclasses import dataclass
from typing import Optional
import numpy as np
from scipy import special
from accountant.engines.binomial import binom_logpmf
from accountant.engines.saddle import mgf_minimiser
from accountant.engines.blanket.law import CornerBlanket, CountLaw, OueBlanket
from accountant.engines.blanket.window import (PositivePart, at_smaller_eps, cancellation_slack, near_eps_max,
                                               run_truncated, windows_crude_or_tilted)
from accountant.engines.blanket.sums import Terms, binned_sum
from accountant.engines.blanket.oue_table import direct_table_sum
from accountant.engines.blanket.oue_nested import NestedUpper, as_grid  # noqa: F401 (as_grid: tests)

FLOAT_REL_ERROR_OUE = 1e-8


@dataclass(frozen=True)
class _Shape:
    """What the sums module reads of a law: m ~ Bin(n, 2 p12), j | m ~ Bin(n - m, p_prime)."""

    p12: float
    p_prime: float


def _shape(law: OueBlanket) -> _Shape:
    return _Shape(0.5 * (law.E - 1.0) / (2.0 * law.E), law.b)


def excess_from_tail(M: np.ndarray, k: np.ndarray, c: np.ndarray, p: float, pmf_k: np.ndarray,
                     T_k: np.ndarray) -> np.ndarray:
    """E[(K - c)_+] = k q P[K = k] + (M p - c) P[K >= k] for K ~ Bin(M, p), k = floor(c) + 1 >= 1
    (c >= 0), from the pmf and the tail at k (the module docstring's closed form; above the
    mean it cancels, and is clipped at 0).  The one implementation of the formula, for the
    cell-by-cell tails of :func:`binomial_excess` and the tables of
    :mod:`accountant.engines.blanket.oue_table`."""
    h = k * (1.0 - p) * pmf_k + (M * p - c) * T_k
    return np.where(c >= M * p, np.maximum(h, 0.0), h)


def binomial_excess(M: np.ndarray, c: np.ndarray, p: float) -> tuple[np.ndarray, np.ndarray]:
    """(E[(K - c)_+], P[K > c]) for K ~ Bin(M, p), integer M >= 0 and real thresholds c
    (arrays of one shape); the closed form of the module docstring (c < 0: Mp - c, 1)."""
    Mf = np.asarray(M, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    h = np.zeros(Mf.shape)
    T = np.zeros(Mf.shape)
    k = np.floor(c) + 1.0
    full = c < 0.0  # every K >= 0 > c (a bin edge at j = -1)
    h[full] = Mf[full] * p - c[full]
    T[full] = 1.0
    live = (k <= Mf) & ~full
    if not np.any(live):
        return h, T
    Ml, kl, cl = Mf[live], k[live], c[live]
    q = 1.0 - p
    pmf = np.exp(binom_logpmf(kl, Ml, p))
    up = cl >= Ml * p
    Tl = np.empty(Ml.shape)
    if np.any(up):
        Tl[up] = special.betainc(kl[up], Ml[up] - kl[up] + 1.0, p)
    dn = ~up
    if np.any(dn):  # below the mean: 1 - P[K <= k - 1] (no cancellation there)
        Tl[dn] = 1.0 - special.betainc(Ml[dn] - kl[dn] + 1.0, kl[dn], q)
    h[live] = excess_from_tail(Ml, kl, cl, p, pmf, Tl)
    T[live] = Tl
    return h, T


class _OueTerms:
    """g_m(j), its subgradient in j and E[u-coefficient; S > 0 | m, j] for one eps (the
    interface of :class:`accountant.engines.blanket.sums.Terms`)."""

    def __init__(self, law: OueBlanket, n: int, eps: float) -> None:
        self.E = law.E
        self.p = law.b
        self.n = n
        self.u = math.exp(eps)

    def row(self, m: np.ndarray, j) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        M = self.n - np.asarray(m, dtype=np.float64)
        jf = np.broadcast_to(np.asarray(j, dtype=np.float64), M.shape)
        d = self.E - 1.0
        c = self.u * jf + (self.u - 1.0) * M / d
        h, T = binomial_excess(M, c, self.p)
        # dF/d eps = -u E[M + (E-1) K2; S > 0]
        return d * h, -d * self.u * T, (M + d * jf) * T


# categories (1,0), (0,1), (0,0), (1,1), null: indices 0..4
_DIRECT = ((4,), (1, 3))   # m = null count, j = K2 = #(W2 = 1)
_NESTED = ((0, 1), (2, 3))  # m = #(1,0) + #(0,1), j = #(0,0) + #(1,1)


def _probs(law: OueBlanket, eps: float) -> tuple[tuple, tuple]:
    p, v = law.atoms(eps)
    return p + (1.0 - law.gamma,), v + (0.0,)


def _log_z(law: OueBlanket, eps: float, cats) -> Optional[tuple[float, float, float, float]]:
    """(theta, upper bound on log E e^{theta L} over one user (null included), tilted mass of
    the m-categories, tilted mass of the j-categories) or None when no theta > 0 helps."""
    p, v = law.atoms(eps)
    if sum(a * x for a, x in zip(p, v)) >= 0.0 or max(v) <= 0.0:
        return None
    th = mgf_minimiser(p, v)
    z1 = math.fsum(a * math.expm1(th * x) for a, x in zip(p, v))  # null has value 0
    logz = math.log1p(z1)
    logz_up = logz + 1e-12 * abs(logz) + 1e-15
    z = 1.0 + z1
    pp, vv = _probs(law, eps)
    w = [a * math.exp(th * x) for a, x in zip(pp, vv)]
    return th, logz_up, sum(w[c] for c in cats[0]) / z, sum(w[c] for c in cats[1]) / z


def oue_windows(law: OueBlanket, n: int, eps: float, allowed: float, cats=_DIRECT):
    """m- and j-windows (counts of the category sets ``cats``) whose left-out part adds at
    most ``allowed`` to delta, and that bound (crude or tilted, the narrower)."""
    vmax = law.E - math.exp(eps)
    pp, _ = _probs(law, eps)
    pm, pj = sum(pp[c] for c in cats[0]), sum(pp[c] for c in cats[1])
    return windows_crude_or_tilted(n, pm, pj, vmax, allowed, lambda: _log_z(law, eps, cats))


def _nested_laws(law) -> tuple[_Shape, CountLaw, CountLaw, float]:
    """(shape of (m, t), the inner law a = (E, 1, 1), b = (1, E, 1), the Jensen law with
    a_3 = b_3 = kappa = 1 + (E-1) pi), from the law's weights ``law.nested()`` = (P[(1,0)],
    p3 = P[(0,0)] + P[(1,1)], pi = P[(1,1)] / p3) (OUE: pi = 1/(E^2 + 1))."""
    E = law.E
    p12, p3, pi = law.nested()
    kappa = 1.0 + (E - 1.0) * pi
    shape = _Shape(p12, min(p3 / (1.0 - 2.0 * p12), 1.0))
    return (shape, CountLaw(p12, p3, (E, 1.0, 1.0), (1.0, E, 1.0)),
            CountLaw(p12, p3, (E, 1.0, kappa), (1.0, E, kappa)), pi)


def _nested_exact(law, n: int, eps: float, mw, tw) -> tuple[float, float]:
    """F and the Newton weight summed over every (m, t) of the nested windows and every
    l = 0..t (no relaxation, no bins): the small-window path of the nested grouping."""
    shape, inner, _, pi = _nested_laws(law)
    terms = Terms(inner, eps)
    d = law.E - 1.0
    m = np.arange(mw[0], mw[1] + 1, dtype=np.int64)
    logPm = binom_logpmf(m.astype(np.float64), float(n), 2.0 * shape.p12)
    Np = (n - m).astype(np.float64)
    F = Qs = 0.0
    for t in range(tw[0], tw[1] + 1):
        lw = logPm + binom_logpmf(float(t), Np, shape.p_prime)
        keep = lw > -745.0
        if not np.any(keep):
            continue
        l = np.arange(t + 1, dtype=np.float64)
        ll = binom_logpmf(l, float(t), pi)
        w = np.exp(lw[keep][:, None] + ll[None, :])
        mm = np.repeat(m[keep], t + 1)
        y = np.tile(t + d * l, int(np.count_nonzero(keep)))
        g, _, q = terms.row(mm, y)
        F += float(np.sum(w.ravel() * g))
        Qs += float(np.sum(w.ravel() * q))
    return F, Qs


# the corner law's nested windows are summed exactly (every (m, t, l)) up to this many cells
CORNER_EXACT_MAX_CELLS = 2 * 10**5


def mp_window_sum(law: OueBlanket, n: int, eps: float, mw, jw, digits: int = 50) -> float:
    """F restricted to the windows, at ``digits`` digits with mpmath (per m, the tail sums of
    Bin(M, b) once; every (m, j) of the windows).  The reference of the tests."""
    import mpmath

    with mpmath.workdps(digits + 20):
        E = mpmath.e ** mpmath.mpf(law.eps0)
        u = mpmath.e ** mpmath.mpf(eps)
        b = 1 / (E + 1)
        gamma = (E + 1) / (2 * E)
        d = E - 1
        total = mpmath.mpf(0)
        for m in range(mw[0], mw[1] + 1):
            M = n - m
            Pm = mpmath.binomial(n, m) * (1 - gamma) ** m * gamma ** M
            pmf = [(1 - b) ** M]
            ratio = b / (1 - b)
            for x in range(M):
                pmf.append(pmf[-1] * (M - x) / (x + 1) * ratio)
            s0 = [mpmath.mpf(0)] * (M + 2)  # s0[x] = P[K >= x], s1[x] = E[K; K >= x]
            s1 = [mpmath.mpf(0)] * (M + 2)
            for x in range(M, -1, -1):
                s0[x] = s0[x + 1] + pmf[x]
                s1[x] = s1[x + 1] + x * pmf[x]
            for j in range(jw[0], min(jw[1], M) + 1):
                c = u * j + (u - 1) * M / d
                k = int(mpmath.floor(c)) + 1
                if k > M:
                    continue
                total += Pm * pmf[j] * d * (s1[k] - c * s0[k])
        return float(total)


# the direct path's (m, j) window up to which ``auto`` sums every cell exactly (the tables
# of :mod:`accountant.engines.blanket.oue_table`, about 0.1 s at this size on one core); from
# there on the nested path.  At a chart's gap (bin_gap >= CHART_BIN_GAP, with a target)
# DIRECT_MAX_CELLS_CHART: there the nested path is the cheaper one from n = 3e4 on, with the
# same eps_c on the page's curves, and the tables below (timings: docs/BENCHMARKS.md).
# The direct binned path is not chosen: its chords over K2 need bins narrower than
# one count near the saddle (g falls by a factor e^{0.2} or so per count at delta = 1e-6),
# so at a gap of 1e-4 it refines to every j after two coarser passes, several times the cost
# of the table sum (docs/BENCHMARKS.md)
DIRECT_MAX_CELLS = 12 * 10**5
DIRECT_MAX_CELLS_CHART = 6 * 10**5
# y-grid bins of the nested path's upper end per t-bin
NESTED_Y_BINS = 4
# from this bin_gap on (a chart's, with a target) the nested path takes its lower end from the
# tangents of the upper end's own rows (:meth:`NestedUpper.bin_lower`), without a Jensen pass
CHART_BIN_GAP = 1e-4
# ... and from this m-window on it first tries one t-bin and one y-bin: at a gap of 1e-4 that
# pass meets it on the Amplification page's curves (k = 10, delta = 1e-6) for n >= 1e8 and
# sometimes at 1e7 (m-windows of 1.4e4-2.5e5 values), never at n = 1e6 (2e3-8e3 values)
NESTED_ONE_BIN_FROM = 1 << 14


def _direct_too_large(law: OueBlanket, n: int, eps: float, cells: int) -> bool:
    """True when the direct windows hold more than ``cells`` pairs by far, judged from
    the two counts' standard deviations alone (2 of each, 4 sd_m sd_j cells; the windows
    leave out ~1e-8 of delta and are far larger than that estimate on the Amplification
    page's curves, docs/BENCHMARKS.md): ``auto`` then takes the nested path without computing
    them.  A cost rule only: every path is certified."""
    pp, _ = _probs(law, eps)
    pm, pj = sum(pp[c] for c in _DIRECT[0]), sum(pp[c] for c in _DIRECT[1])
    return 4.0 * n * math.sqrt(pm * (1.0 - pm) * pj * (1.0 - pj)) > cells


def _refine(evaluate, G: int, ref_of, bin_gap: float, max_bins: int, cap: int, nj: int):
    """Bins doubled (or jumped by the 1/G^2 law) until upper - lower <= bin_gap * ref or a cap."""
    while True:
        lo, up, Qs = evaluate(G)
        bins = G
        ref = ref_of(up)
        if up - lo <= bin_gap * ref or G >= max_bins or G >= nj or G >= cap:
            return lo, up, Qs, bins
        ratio = (up - lo) / (bin_gap * ref)
        G = int(min(max_bins, cap, max(2 * G, math.ceil(1.3 * G * math.sqrt(ratio)))))


def _nested_sum(law, n: int, eps: float, mw, jw, allowed: float, vmax: float, *, chart: bool,
                ref_of, bin_gap: float, min_bins: Optional[int], max_bins: int,
                max_cells: int) -> tuple[float, float, float, int]:
    """The nested path's (lower, upper, Q, bins) over the windows ``mw`` of m and ``jw`` of t:
    t binned, l = #(1,1) | t chords inside (:class:`NestedUpper`), the lower end from the
    Jensen law or, at a chart's gap, from the tangents of the upper end's own rows; bins
    refined until upper - lower <= bin_gap * ref_of(upper) or a cap."""
    nm, nj = mw[1] - mw[0] + 1, jw[1] - jw[0] + 1
    nshape, inner, jensen, pi = _nested_laws(law)
    jterms = Terms(jensen, eps)
    log_mass = math.log(allowed / (4.0 * vmax))
    # 3 first bins (the refinement decides; a larger min_bins, asked for to tighten
    # tangents, would not narrow the Jensen lower end and costs G^2)
    G0 = min(min_bins, 3) if min_bins is not None else 3
    cap = min(max_bins, nj, max(1, int(math.isqrt(max(max_cells // nm, 1))) - 1))
    if chart:
        # a chart's gap: the lower end from the tangents of the upper end's own rows
        # (no Jensen pass; as tight once G > 1), and on long m-windows first one t-bin
        # and one y-bin (2 evaluations of g per m)
        lo_J = None
        done = False
        if nm >= NESTED_ONE_BIN_FROM:
            lo_F, up_F, Qs = binned_sum(nshape, n, NestedUpper(law, inner, pi, eps, 1, log_mass), mw, jw, 1)
            bins = 1
            done = up_F - lo_F <= bin_gap * ref_of(up_F)
    else:
        lo_J = _refine(lambda g: binned_sum(nshape, n, jterms, mw, jw, g), G0, ref_of, bin_gap,
                       max_bins, max(1, max_cells // nm), nj)[0]
        done = False
    G, prev = G0, None
    while not done:  # the Jensen gap does not shrink with G: refine the upper end alone
        lo_U, up_F, Qs = binned_sum(nshape, n, NestedUpper(law, inner, pi, eps, NESTED_Y_BINS * G, log_mass), mw, jw, G)
        lo_F = lo_J if lo_J is not None else lo_U
        bins, ref = G, ref_of(up_F)
        if up_F - lo_F <= bin_gap * ref or G >= cap:
            break
        # chords approach the value like 1/G^2: the distance left is about est
        est = up_F - lo_F if prev is None else (prev[1] - up_F) / ((G / prev[0]) ** 2 - 1.0)
        if est <= bin_gap * ref:
            break
        prev = (G, up_F)
        G = int(min(cap, max(2 * G, math.ceil(1.3 * G * math.sqrt(est / (bin_gap * ref))))))
    return lo_F, up_F, Qs, bins


def corner_positive_part(law, n: int, eps: float, *, target_delta: Optional[float],
                         method: str, digits: int, bin_gap: float, min_bins: Optional[int],
                         truncation: float, max_bins: int, max_cells: int,
                         exact_max_terms: int) -> PositivePart:
    """delta(eps) of :class:`OueBlanket` or :class:`CornerBlanket` with certified ends; called
    (arguments validated) by :func:`accountant.engines.blanket.engine.positive_part` with its
    constants.

    Paths for OUE: ``exact`` (every (m, j) of the direct windows, from the tail tables of
    :mod:`accountant.engines.blanket.oue_table`), ``binned`` (direct, j = K2 binned),
    ``nested`` (m = #(1,0) + #(0,1), t = #(0,0) + #(1,1) binned, l = #(1,1) | t chords
    inside, lower end from the Jensen law), ``mpmath``; ``auto`` picks exact while the direct
    windows hold at most DIRECT_MAX_CELLS pairs (DIRECT_MAX_CELLS_CHART at a chart's gap),
    then nested.  A
    :class:`CornerBlanket` has no product structure (the direct path is OUE's): it always
    takes the nested grouping, summed exactly over every (m, t, l) of the windows when they
    hold at most ``CORNER_EXACT_MAX_CELLS`` cells (``auto``, ``exact``), binned otherwise
    (``auto``, ``binned``, ``nested``); ``mpmath`` is OUE's only.
    """
    corner = isinstance(law, CornerBlanket)
    if corner and method == "mpmath":
        raise ValueError("method must be 'auto', 'exact', 'binned' or 'nested' for a CornerBlanket, got 'mpmath'")
    if eps >= law.eps_max:
        return PositivePart(eps, 0.0, 0.0, 0.0, 0.0, 0.0, method, 0)
    far = near_eps_max(law, eps)
    if far is not None:
        return at_smaller_eps(eps, corner_positive_part(
            law, n, far, target_delta=target_delta, method=method, digits=digits, bin_gap=bin_gap,
            min_bins=min_bins, truncation=truncation, max_bins=max_bins, max_cells=max_cells,
            exact_max_terms=exact_max_terms))
    u = math.exp(eps)
    if not corner:
        shape = _shape(law)
        terms = _OueTerms(law, n, eps)
    vmax = law.E - u
    margin = FLOAT_REL_ERROR_OUE * max(1.0, math.sqrt(n) / 1e3)
    chart = target_delta is not None and bin_gap >= CHART_BIN_GAP
    direct_cells = DIRECT_MAX_CELLS_CHART if chart else DIRECT_MAX_CELLS

    def ref_of(up: float) -> float:
        return max(up, n * target_delta if target_delta is not None else 0.0, 1e-300)

    def run(allowed: float) -> PositivePart:
        meth = method
        if corner:
            (m_lo, m_hi), (j_lo, j_hi), trunc = oue_windows(law, n, eps, allowed, _NESTED)
            mw, jw = (m_lo, m_hi), (j_lo, j_hi)
            cells = (m_hi - m_lo + 1) * (j_hi - j_lo + 1) * (j_hi + 1)
            if meth in ("auto", "exact"):
                meth = "exact" if (cells <= CORNER_EXACT_MAX_CELLS or meth == "exact") else "nested"
            else:
                meth = "nested"
            if meth == "exact":
                lo_F, Qs = _nested_exact(law, n, eps, mw, jw)
                slack = cancellation_slack(lo_F / n, -u * Qs / n, margin)
                lower = max(lo_F / n * (1.0 - margin) - slack, 0.0)
                upper_d = lo_F / n * (1.0 + margin) + trunc + slack
                return PositivePart(eps, lo_F / n, lower, upper_d, -u * Qs / n, trunc, meth, 0)
        elif meth == "auto" and _direct_too_large(law, n, eps, direct_cells):
            meth = "nested"
        else:
            (m_lo, m_hi), (j_lo, j_hi), trunc = oue_windows(law, n, eps, allowed)
            mw, jw = (m_lo, m_hi), (j_lo, j_hi)
            nm, nj = m_hi - m_lo + 1, j_hi - j_lo + 1
            if meth == "auto":
                # exact (every cell, no relaxation) while it is cheaper than the nested path,
                # whose Jensen lower end is loose at small n
                meth = "exact" if nm * nj <= max(exact_max_terms, direct_cells) else "nested"
        bins = 0
        if meth == "exact":
            lo_F, Qs = direct_table_sum(law.E, n, eps, mw, jw, excess_from_tail)
            up_F = lo_F
            mg = margin
        elif meth == "mpmath":
            lo_F = up_F = mp_window_sum(law, n, eps, mw, jw, digits)
            Qs = 0.0
            mg = 10.0 ** (-digits + 2)
        elif meth == "binned":
            nm, nj = m_hi - m_lo + 1, j_hi - j_lo + 1
            G = min_bins if min_bins is not None else 8
            lo_F, up_F, Qs, bins = _refine(lambda g: binned_sum(shape, n, terms, mw, jw, g), G, ref_of,
                                           bin_gap, max_bins, max(1, max_cells // nm), nj)
            mg = margin
        else:
            if not corner:
                (m_lo, m_hi), (j_lo, j_hi), trunc = oue_windows(law, n, eps, allowed, _NESTED)
                mw, jw = (m_lo, m_hi), (j_lo, j_hi)
            lo_F, up_F, Qs, bins = _nested_sum(law, n, eps, mw, jw, allowed, vmax, chart=chart,
                                               ref_of=ref_of, bin_gap=bin_gap, min_bins=min_bins,
                                               max_bins=max_bins, max_cells=max_cells)
            mg = margin
        slack = 0.0 if meth == "mpmath" else cancellation_slack(up_F / n, -u * Qs / n, mg)
        lower = max(lo_F / n * (1.0 - mg) - slack, 0.0)
        upper_d = up_F / n * (1.0 + mg) + trunc + slack
        return PositivePart(eps, 0.5 * (lo_F + up_F) / n, lower, upper_d, -u * Qs / n,
                            trunc, meth, bins)

    return run_truncated(run, target_delta, truncation, vmax)
