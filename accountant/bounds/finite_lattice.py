"""The proved blanket bound of a finite randomizer whose likelihood ratios take many values.

A module of its own next to :mod:`accountant.bounds.finite` (which keeps the exact corner law of
two-valued matrices): the worst input pair is found among all ordered pairs with a cheap
certified bound per pair, and the certified lattice engine (:mod:`accountant.engines.lattice`)
is run on the pairs that bound cannot rule out.

**The bound of one ordered pair (x1, x1').**  Let ``m_y = min_x R[x, y]``, ``S = {y: m_y > 0}``
(the blanket's support), ``gamma = sum_y m_y``.  Every report is, independently, a blanket draw
(law m / gamma on S) with probability gamma (Balle, Bell, Gascon, Nissim, CRYPTO 2019).  Condition
on which of the other users draw from the blanket and on the other users' non-blanket reports
(the same in both worlds; the divergence of mixtures is at most the average of the conditional
ones).  What is left is the multiset {Y1, W_1, ..., W_B} with Y1 ~ R[x1] or R[x1'] and
W ~ m / gamma.  A multiset with an element outside S has it from Y1 (the blanket never reports
there), so those outcomes add exactly ``sum_{y not in S} (R[x1, y] - u R[x1', y])_+``
(u = e^eps).  On the outcomes inside S, the probability of a multiset is linear in the law of
Y1, so Lemma 5.3 of Balle et al. holds verbatim for the sub-probability vectors R[x1]|_S,
R[x1']|_S (it never uses that they sum to 1); with B ~ Bin(n - 1, gamma) size-biased as in
:mod:`accountant.engines.blanket` this part is ``E[(Z_1 + ... + Z_n)_+] / n``, Z i.i.d.,
``Z = r_x1(y) - u r_x1'(y)`` with probability ``m_y`` (y in S), ``r_x(y) = R[x, y] / m_y``, and
``Z = 0`` with probability ``1 - gamma``.  For a pure-LDP matrix S is every output and the first
term is 0.  gamma = 0: no blanket, no finite eps_c from this bound (the outputs reveal the input).

**The worst pair.**  For every theta > 0, ``x_+ <= e^{theta x} / (e theta)`` gives the Chernoff
bound ``E[S_+] <= M(theta)^n / (e theta)``, ``M(theta) = 1 - gamma + sum_y m_y e^{theta r_x1(y)}
e^{-theta u r_x1'(y)}``: one matrix product for all ordered pairs at once (a few theta around the
saddle point; the minimum over them is kept).  The pairs are taken in decreasing order of that
bound and the lattice bound is computed for each until the largest lattice bound found is at or
above the next pair's Chernoff bound (every remaining pair is then dominated), or until the
budget of ``LATTICE_PAIRS`` evaluations at the largest group size (the rest then count with
their screen bound, still proved: the result says so).  Ratios are raised / lowered by 2 ulp for their own rounding (a raised ``r_x1``
and a lowered ``r_x1'`` only raise Z); the masses m_y are the matrix's own entries, exact.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from accountant.core.finite import FiniteRandomizer
from accountant.engines.berry_esseen import log_positive_part_bounds
from accountant.engines.lattice import MAX_SIZE, lattice_positive_part, safe_atoms, saddle_theta
from accountant.engines.saddle import log_positive_part, root_of_decreasing
from accountant.engines.search import epsilon_for_log_delta

_UF = 2.0 ** -53
#: the lattice evaluations one delta(eps) may run, counted in groups of the largest size
#: (MAX_SIZE cells; a smaller group counts its size, at least 4096 cells)
LATTICE_PAIRS = 6
#: multiples of the saddle point's theta tried in the pairs' Chernoff bounds
CHERNOFF_THETAS = (0.6, 1.0, 1.6)
NO_BLANKET = ("no finite eps_c from the blanket: gamma = 0 (every output is impossible for some input), "
              "the outputs reveal the input")
#: the lattice step (fraction of the per-message standard deviation) of the worst pairs
LATTICE_STEP = 0.2
#: cells the lattice engine may use for a finer step where the window is small (n up to ~1e5)
LATTICE_MIN_SIZE = 1 << 16
#: pairs whose Berry-Esseen bound is within this (log) of its normal term skip the lattice engine
LATTICE_FROM = 0.01
#: pairs per batch of the Berry-Esseen screen
BE_BATCH = 512
#: the Berry-Esseen screen's budget per delta(eps): pairs x support outputs (pairs beyond keep Chernoff)
BE_MAX_ELEMENTS = 10 ** 7
#: the cost model: inputs^2 x support outputs above this is refused up front (each delta(eps) of
#: the pair screen costs a few matrix products of that many multiply-adds: about 10 s at 1e9 here)
LATTICE_MAX_WORK = 2 * 10 ** 9
#: the largest eps the search goes to for a matrix that is not pure LDP
EPS_SEARCH_MAX = 50.0


@dataclass(frozen=True)
class BlanketAtoms:
    """The blanket of a matrix on its support S: ``up`` / ``down`` the ratios R[x, y] / m_y
    raised / lowered for their rounding (k x |S|), ``mass`` m_y on S, ``gamma`` their sum,
    ``outside`` the rows on the outputs outside S (k x (Y - |S|)), ``rmax`` the largest ratio."""

    up: np.ndarray
    down: np.ndarray
    mass: np.ndarray
    gamma: float
    outside: np.ndarray
    rmax: float


def lattice_refusal(R: FiniteRandomizer):
    """None, or the reason the cost model refuses this matrix (before any work)."""
    work = R.k * R.k * int(np.count_nonzero(R.matrix.min(axis=0) > 0))
    if work > LATTICE_MAX_WORK:
        return (f"the lattice blanket's pair screen is refused: inputs^2 x blanket outputs = {work:.3g} is "
                f"beyond the limit {LATTICE_MAX_WORK:.0e}")
    return None


def blanket_atoms(R: FiniteRandomizer) -> BlanketAtoms:
    m = R.matrix.min(axis=0)
    S = m > 0.0
    mass = m[S]
    r = R.matrix[:, S] / mass[None, :]
    up = r * (1.0 + 4.0 * _UF)
    down = r * (1.0 - 4.0 * _UF)
    rmax = float(up.max()) if up.size else 1.0
    return BlanketAtoms(up, down, mass, math.fsum(mass), R.matrix[:, ~S], rmax)


def outside_inf_mass(at: BlanketAtoms) -> float:
    """The limit of the blanket bound's delta(eps) as eps -> inf, rounded up: the largest over
    ordered pairs (x1, x1') of sum R[x1, y] over the outputs y outside S with R[x1', y] = 0 (the
    outside term's part that no e^eps removes; the blanket term is 0 from eps = ln rmax on).
    0 for a pure-LDP matrix."""
    O = at.outside
    if O.shape[1] == 0:
        return 0.0
    M = O @ (O == 0.0).T.astype(np.float64)   # M[i, j] = sum_y O[i, y] [O[j, y] = 0]
    np.fill_diagonal(M, 0.0)
    return min(1.0, float(M.max()) * (1.0 + (O.shape[1] + 8) * 2.0 * _UF))


def _outside_terms(at: BlanketAtoms, u: float) -> np.ndarray:
    """k x k: sum_{y not in S} (R[x1, y] - u R[x1', y])_+, rounded up (u may be any float >= e^eps
    lowered: the caller passes a lowered u)."""
    k = at.up.shape[0]
    if at.outside.shape[1] == 0:
        return np.zeros((k, k))
    out = np.zeros((k, k))
    O = at.outside
    for i in range(k):   # k rows of (k x |S^c|): memory k |S^c|
        out[i] = np.maximum(O[i][None, :] - u * O, 0.0).sum(axis=1)
    out *= 1.0 + (O.shape[1] + 8) * 2.0 * _UF
    np.fill_diagonal(out, 0.0)
    return out


def _chernoff(at: BlanketAtoms, n: int, eps: float, theta0: float) -> np.ndarray:
    """k x k upper bounds on the blanket term of every ordered pair (module docstring)."""
    k = at.up.shape[0]
    u_lo = math.exp(eps) * (1.0 - 4.0 * _UF)
    null = max(0.0, 1.0 - at.gamma) + 4.0 * _UF
    best = np.full((k, k), np.inf)
    for f in CHERNOFF_THETAS:
        th = theta0 * f
        if th * at.rmax > 600.0:
            continue
        A = at.mass[None, :] * np.exp(th * at.up)
        Bm = np.exp(np.maximum(-th * u_lo * at.down, -700.0))   # no underflow (raised: safe)
        M = null + A @ Bm.T
        M *= 1.0 + (at.up.shape[1] + 16 + 4.0 * th * (at.rmax + u_lo * at.rmax)) * 2.0 * _UF
        logb = n * np.log(M) * (1.0 + 4.0 * _UF) + 1e-12 - math.log(math.e * th * n)
        best = np.minimum(best, logb)
    np.fill_diagonal(best, -np.inf)
    return best


@dataclass(frozen=True)
class LatticeResult:
    """delta(eps) of the worst ordered pair: ``log_upper`` (certified), ``log_central`` (for the
    search), ``slope`` (estimate of d log delta / d eps), ``pair`` (row indices), ``step`` (the
    lattice step there), ``evaluated`` (pairs run through the lattice engine), ``capped``
    (whether a budget stopped the search: the bound is then some pair's screen bound; ``cap_reason``
    says which budget)."""

    eps: float
    log_upper: float
    log_central: float
    slope: float
    pair: tuple
    step: float
    evaluated: int
    capped: bool
    cap_reason: str = ""

    @property
    def upper(self) -> float:
        return math.exp(self.log_upper) if self.log_upper > -700 else (
            2.2250738585072014e-308 if self.log_upper > -math.inf else 0.0)


def _pair_saddle(at: BlanketAtoms, i: int, j: int, eps: float) -> Optional[float]:
    z = at.up[i] - math.exp(eps) * at.down[j]
    if not (np.max(z) > 0.0 and float(np.dot(at.mass, z)) < 0.0):
        return None
    return saddle_theta(z, at.mass)


def lattice_delta(at: BlanketAtoms, n: int, eps: float, *, max_pairs: int = LATTICE_PAIRS,
                  step_fraction: float = LATTICE_STEP, screen_be: bool = True) -> LatticeResult:
    """Certified upper bound on delta(eps) over every ordered pair (module docstring)."""
    k = at.up.shape[0]
    u_lo = math.exp(eps) * (1.0 - 4.0 * _UF)
    outside = _outside_terms(at, u_lo)
    if at.gamma <= 0.0:
        o = float(outside.max())
        i, j = np.unravel_index(int(np.argmax(outside)), outside.shape)
        return LatticeResult(eps, math.log(o) if o > 0 else -math.inf, math.log(o) if o > 0 else -math.inf,
                             0.0, (int(i), int(j)), 0.0, 0, False)
    if float(at.up.max()) - u_lo * float(at.down.min()) + 8.0 * _UF * at.rmax * (1.0 + u_lo) <= 0.0:
        o = float(outside.max())   # every atom of every pair <= 0: the blanket part is 0
        i, j = np.unravel_index(int(np.argmax(outside)), outside.shape)
        lo_ = math.log(o) if o > 0 else -math.inf
        return LatticeResult(eps, lo_, lo_, 0.0, (int(i), int(j)), 0.0, 0, False)
    # theta of the Chernoff screen: the saddle of the pair farthest apart in total variation
    tv = np.abs(at.up[:, None, :] - at.up[None, :, :]) if k * k * at.up.shape[1] <= 4e6 else None
    if tv is not None:
        tvs = (tv * at.mass).sum(axis=2)
        np.fill_diagonal(tvs, -1.0)
        i0, j0 = (int(v) for v in np.unravel_index(int(np.argmax(tvs)), tvs.shape))
    else:
        spread = at.up.max(axis=1) - at.up.min(axis=1)
        i0 = int(np.argmax(spread))
        d = (np.abs(at.up - at.up[i0]) * at.mass).sum(axis=1)
        j0 = int(np.argmax(d))
    th0 = _pair_saddle(at, i0, j0, eps) or _pair_saddle(at, j0, i0, eps)
    if th0 is None:  # far from the target (mean >= 0 or no positive atom): the screen's theta
        th0 = 1.0 / max(at.rmax, 1.0)
    cher = _chernoff(at, n, eps, th0)
    with np.errstate(divide="ignore"):
        cher = np.logaddexp(cher, np.log(np.where(outside > 0, outside, 0.0)))
    np.fill_diagonal(cher, -np.inf)
    order = np.argsort(-cher, axis=None)[:k * (k - 1)]
    # (log upper, log central, slope, pair, step) of the worst pair so far
    best = (-math.inf, -math.inf, 0.0, (int(order[0] // k), int(order[0] % k)), 0.0)
    # Berry-Esseen bounds, in batches of pairs by decreasing Chernoff bound, while a pair's
    # Chernoff bound is above the largest certified bound found (the others are dominated)
    screen = cher.copy()
    slack = np.full((k, k), np.inf)
    be_done = np.zeros((k, k), dtype=bool)
    use_be = screen_be
    be_pairs = max(BE_BATCH, BE_MAX_ELEMENTS // max(at.up.shape[1], 1))
    null = max(0.0, 1.0 - at.gamma) + 4.0 * _UF
    done = 0
    while use_be and done < min(order.size, be_pairs):
        batch = order[done:done + BE_BATCH]
        I, J = batch // k, batch % k
        if float(cher[I[0], J[0]]) <= best[0]:
            break
        Z = safe_atoms(at.up[I], at.down[J], eps)
        be, sl = log_positive_part_bounds(Z, at.mass, null, n, th0)
        be = be - math.log(n)
        o = outside[I, J]
        with np.errstate(divide="ignore"):
            be = np.logaddexp(be, np.log(np.where(o > 0, o, 0.0)))
        screen[I, J] = np.minimum(cher[I, J], be)
        slack[I, J] = sl
        be_done[I, J] = True
        top = int(np.argmax(screen[I, J]))
        if screen[I[top], J[top]] > best[0]:
            best = (float(screen[I[top], J[top]]), float(screen[I[top], J[top]]), 0.0,
                    (int(I[top]), int(J[top])), 0.0)
        done += batch.size
    if use_be:   # pairs beyond the batches keep their Chernoff bound
        order = order[np.argsort(-screen.ravel()[order], kind="stable")]
        best = (-math.inf, -math.inf, 0.0, best[3], 0.0)
    evaluated = 0
    capped = False
    # the budget of lattice evaluations, in cells: max_pairs evaluations at the largest group,
    # many more where the groups are small (small n)
    budget, used = max_pairs * MAX_SIZE, 0
    why: set = set()
    for o in order:
        i, j = int(o // k), int(o % k)
        c = float(screen[i, j])
        if c <= best[0]:
            break
        unscreened = use_be and not be_done[i, j]
        if used >= budget or slack[i, j] <= LATTICE_FROM or unscreened:
            # the screen's bound counts: Berry-Esseen already within LATTICE_FROM of its normal
            # term, or the cap of lattice evaluations, or a pair beyond the Berry-Esseen budget
            # (its Chernoff bound; the result says so)
            if unscreened:
                capped = True
                why.add(f"pairs beyond the Berry-Esseen budget ({BE_MAX_ELEMENTS:.0e} pair-outputs) keep their "
                        "Chernoff bound")
            elif used >= budget and slack[i, j] > LATTICE_FROM:
                capped = True
                why.add(f"the lattice budget ({LATTICE_PAIRS} evaluations at the largest group) left pairs with "
                        "their Berry-Esseen bound")
            if c > best[0]:
                best = (c, c, best[2], (i, j), best[4])
            continue
        r = lattice_positive_part(at.up[i], at.down[j], at.mass, n, eps, step_fraction=step_fraction,
                                  min_size=LATTICE_MIN_SIZE)
        evaluated += 1
        used += max(r.size, 1 << 12)
        o_ij = float(outside[i, j])
        lu = r.log_upper if o_ij <= 0 else float(np.logaddexp(r.log_upper, math.log(o_ij)))
        lu = min(lu, c)
        cen = r.central + o_ij
        lc = math.log(cen) if cen > 0 else -math.inf
        if lu > best[0]:
            sl = r.slope / cen if cen > 0 else 0.0
            best = (lu, lc, sl, (i, j), r.step)
    if best[2] == 0.0 and math.isfinite(best[0]):   # the search's slope: the saddle-point estimate
        best = (best[0], best[1], _saddle_slope(at, best[3], n, eps), best[3], best[4])
    return LatticeResult(eps, best[0], best[1], best[2], best[3], best[4], evaluated, capped,
                         "; ".join(sorted(why)))


def _saddle_slope(at: BlanketAtoms, pair: tuple, n: int, eps: float) -> float:
    """d log delta / d eps ~ -n theta e^eps E_Q[b] at the pair's saddle point (an estimate)."""
    i, j = pair
    z = at.up[i] - math.exp(eps) * at.down[j]
    if not (np.max(z) > 0.0 and float(np.dot(at.mass, z)) < 0.0):
        return 0.0
    th = saddle_theta(z, at.mass)
    e = np.exp(th * z)
    M = float(np.dot(at.mass, e)) + max(0.0, 1.0 - at.gamma)
    return -n * th * math.exp(eps) * float(np.dot(at.mass * at.down[j], e)) / M


def lattice_epsilon(R: FiniteRandomizer, n: int, delta: float, rtol: float = 1e-4,
                    at: Optional[BlanketAtoms] = None):
    """Smallest eps (found by :func:`accountant.engines.search.epsilon_for_log_delta`) whose
    certified delta over every pair is <= ``delta``; (None, reason) when there is none below
    :data:`EPS_SEARCH_MAX` or gamma = 0, else (eps, LatticeResult there)."""
    at = blanket_atoms(R) if at is None else at
    log_t = math.log(delta)
    if at.gamma <= 0.0:
        return None, NO_BLANKET
    cache = {}

    def ev(e: float):
        r = lattice_delta(at, n, e)
        cache[e] = r
        return (min(r.log_central, r.log_upper), r.log_upper, r.slope)

    top = math.log(at.rmax) * (1.0 + 1e-9) + 1e-12
    while True:
        r = lattice_delta(at, n, top)
        cache[top] = r
        if r.log_upper <= log_t:
            break
        if top >= EPS_SEARCH_MAX:
            return None, (f"no eps <= {EPS_SEARCH_MAX:g} meets delta = {delta:g}: the outputs outside the "
                          f"blanket's support (possible for some inputs only) reveal the input with "
                          f"probability above delta")
        top = min(2.0 * top + 1.0, EPS_SEARCH_MAX)
    guess = _guess(at, n, log_t, top)
    res = epsilon_for_log_delta(ev, log_t, top, rtol=rtol, guess=guess, predict=True)
    return res.epsilon, cache.get(res.epsilon) or lattice_delta(at, n, res.epsilon)


def _guess(at: BlanketAtoms, n: int, log_t: float, top: float) -> Optional[float]:
    """The saddle-point estimate of the root for the screen's worst pair at its first guess."""
    r0 = lattice_delta(at, n, 0.5 * top, max_pairs=0, screen_be=False)
    i, j = r0.pair

    def f(e: float):
        v = log_positive_part(at.mass, at.up[i] - math.exp(e) * at.down[j], n)
        return None if v is None else v - math.log(n)

    try:
        g = root_of_decreasing(f, log_t, top, rtol=1e-6)
    except (OverflowError, ValueError, ZeroDivisionError):
        return None
    return None if g is None else g * (1.0 + 2e-4)
