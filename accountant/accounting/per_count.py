"""The per-count bound f(t, e) of the sampled deployments (:mod:`accountant.accounting.deployments`):
a proved upper bound on the worst case over substitution neighbours of t users, the clone pair
or a named randomizer's own bound through a per-t cache, and the strata and tails of the sums
over the visible count of reports.

**The cache (chord in gamma).** For fixed t the truth h_t(gamma) = sup over neighbouring datasets
of t users of D_gamma(S(D) || S(D')) is convex and non-increasing in gamma = e^e (each hockey-stick
divergence sup_A P(A) - gamma Q(A) is a supremum of affine functions of gamma, and so is their
supremum over datasets), and 0 from e = eps0 on. So with proved upper bounds f0 >= h_t(gamma0),
f1 >= h_t(gamma1) at two grid points gamma0 <= gamma <= gamma1, the chord
w f0 + (1 - w) f1, w = (gamma1 - gamma) / (gamma1 - gamma0), is >= h_t(gamma): a proved bound at
every e between them from two evaluations. The grid points are e = exp(i / E_FINE) (i integer)
and the chord is taken on the coarsest of the given levels (over rounds ROUNDS_LEVELS) whose two
points' values differ by at most the factor CHORD_RATIO (the finest level otherwise): where f is
flat one pair of points serves a wide range of e. Over rounds t is also rounded down to the grid
floor(exp(k / T_GRID)) (the truth is non-increasing in t); binary RR's search over every
dataset (certified to RR_SEARCH_TOL of the best dataset, ``binary_exact.tolerant_delta``) is read
on its own grid (RR_EXACT_LEVELS, t on the coarser grid RR_T_GRID) and the minimum taken with its
other bounds' chord. Below e = exp(RR_FLOOR_I / E_FINE) that search is read as the chord from
e = 0 to the largest floor exp(-j) (j integer) at which the chord is within FLOOR_SLACK of the
value at the next floor down (so that the log grid does not run down to e = 0: at the Koskela
anchor the small e cost 20 s a round's profile, and leaving them to the blanket, as before,
cost 13% in eps at 10 rounds). The values at the grid points are cached (``functools.lru_cache``,
2^16 entries per function, a few hundred bytes each: at most about 30 MB). Without levels (one
round) the value is the bound at e rounded down to the grid, as before the cache.
"""
from __future__ import annotations

import functools
import math
from typing import Optional

from accountant.core.finite import FiniteRandomizer
from accountant.core.params import GenericLDP, OUEParams, Params, VariationRatioParams

__all__ = ["count_delta", "strata_points", "per_count_statement", "eps0_of", "own_bound", "own_rounds_max_t",
           "exact_applies",
           "log_lower_tail", "log_upper_tail", "clone_values", "refine_terms", "pair_g",
           "chord_value", "E_FINE", "ROUNDS_LEVELS", "RR_EXACT_LEVELS", "CHORD_RATIO", "T_GRID", "t_grid"]

E_FINE = 256  # grid points e = exp(i / E_FINE)
ROUNDS_LEVELS = (2, 8)  # the chord's levels over rounds: points exp(j / G), G in the levels (each divides E_FINE)
RR_EXACT_MAX_T = 10_000  # binary RR's exact worst case over rounds: up to this t (HEADLINE_MAX_N)
RR_SEARCH_TOL = 0.01  # ... certified to this relative tolerance of the best dataset (binary_exact.tolerant_delta)
RR_EXACT_LEVELS = (4,)  # binary RR's exact worst case over rounds: its own grid, the minimum with the rest taken
RR_FLOOR_I = -2 * E_FINE  # below e = exp(-2) = 0.135 the chord from e = 0 where near linear (FLOOR_SLACK)
RR_T_GRID = 400  # binary RR's search over rounds at t rounded down to floor(exp(k / RR_T_GRID)) (T_GRID: 40 cost 0.2-0.5% in eps at the anchor)
FLOOR_SLACK = 0.01  # a floor e_f serves when its chord from e = 0 is within this of the value at e_f / e
T_GRID = 400  # over rounds t is rounded down to floor(exp(k / T_GRID)): at n = 1e9 three points instead of nine
OUE_ROUNDS_MAX_T = 10 ** 6  # over rounds OUE's own bound up to this t: its blanket at t = 1e7 takes 0.15-0.5 s a point
CHORD_RATIO = 1.5  # a level serves when its two points' values differ by at most this factor
CHORD_FLOOR = 1e-300  # below this value at the lower point any level serves (both values ~0)


def eps0_of(params: Params) -> float:
    eps0 = getattr(params, "eps0", None)
    if eps0 is None or isinstance(params, VariationRatioParams):  # a class: eps0 = ln p is not its LDP level
        raise ValueError("sampling: needs an eps0-LDP randomizer given by --eps0 "
                         "(variation-ratio is not supported)")
    return float(eps0)


@functools.singledispatch
def own_bound(params) -> bool:
    """Whether the per-count bound asks the randomizer's own smallest proved bound beside the clone
    pair: True for a randomizer; False for a class of randomizers (every eps0-LDP randomizer,
    a variation-ratio class), whose per-count bound is the clone pair that holds for every member."""
    return True


@own_bound.register
def _(params: GenericLDP) -> bool:
    return False


@own_bound.register
def _(params: VariationRatioParams) -> bool:
    return False


@functools.singledispatch
def own_rounds_max_t(params) -> float:
    """Over rounds the own bound only up to this t, the clone above (no limit by default)."""
    return math.inf


@own_rounds_max_t.register
def _(params: OUEParams) -> float:
    return OUE_ROUNDS_MAX_T


@own_rounds_max_t.register
def _(params: FiniteRandomizer) -> float:
    return 0  # a matrix's blanket 0.2-1.7 s a point (subset selection, k = 6, t = 100-1000): never over rounds


def exact_applies(params) -> bool:
    """Binary RR's maximum over every dataset (the bounds registry's ``exact``,
    :mod:`accountant.bounds.binary_exact`) applies to ``params``."""
    from accountant.bounds.registry import REGISTRY

    return params.name in REGISTRY["exact"].applies_to


def log_lower_tail(n1: int, q: float, k: int) -> float:
    """Chernoff: log P(Bin(n1, q) < k) <= -n1 KL((k-1)/n1 || q) for k - 1 < n1 q (else 0)."""
    if k <= 0 or (q >= 1.0 and k <= n1):
        return -math.inf
    x = (k - 1) / n1
    if x >= q:
        return 0.0
    kl = (x * math.log(x / q) if x > 0 else 0.0) + (1 - x) * math.log((1 - x) / (1 - q))
    return -n1 * kl


def log_upper_tail(n: int, q: float, k: int) -> float:
    """Chernoff: log P(Bin(n, q) > k) <= -n KL((k+1)/n || q) for k + 1 > n q (else 0)."""
    if k >= n or (q <= 0.0):
        return -math.inf
    x = (k + 1) / n
    if x <= q:
        return 0.0
    if q >= 1.0:
        return 0.0
    kl = x * math.log(x / q) + ((1 - x) * math.log((1 - x) / (1 - q)) if x < 1 else 0.0)
    return -n * kl


@functools.lru_cache(maxsize=1 << 16)
def _grid_value(params: Params, t: int, i: Optional[int], which: str = "all") -> tuple:
    """(f, name): the registry's smallest proved bound for the named randomizer at t users and
    e = exp(i / E_FINE) (i None: e = 0); 0 from e = eps0 on (post-processing). ``which``:
    ``"all"`` every bound, ``"search"`` binary RR's search over every dataset alone, to
    RR_SEARCH_TOL (t <= HEADLINE_MAX_N, else the trivial 1), ``"rest"`` every bound but the
    exact one."""
    from accountant.bounds.binary_exact import HEADLINE_MAX_N, tolerant_delta
    from accountant.bounds.registry import proved_delta

    e = 0.0 if i is None else math.exp(i / E_FINE)
    if e >= eps0_of(params):
        return 0.0, "post-processing"
    if which == "search":  # the every-dataset search to RR_SEARCH_TOL (1e-6 costs 5-15 times more at small e)
        return (min(1.0, tolerant_delta(t, eps0_of(params), e, RR_SEARCH_TOL)[1]), "search") \
            if t <= HEADLINE_MAX_N else (1.0, "trivial")
    # binary RR's search over every dataset where it takes 0.2-1 s (the counts are cached)
    d, name = proved_delta(params, t, e, exact_max_n=HEADLINE_MAX_N if which == "all" else 0)
    return min(1.0, d), name


@functools.lru_cache(maxsize=1 << 16)
def _clone_delta(params: Params, t: int, e: float) -> float:
    """The clone pair's certified delta at t users and e (cached: a sum's refinement asks for the
    values its first pass computed)."""
    from accountant.bounds.registry import clone_pair
    from accountant.engines.pair.divergence import hockey_stick_divergence

    return min(1.0, hockey_stick_divergence(clone_pair(params, t), e).upper)


def _clone_grid(params: Params, t: int, i: Optional[int]) -> tuple:
    e = 0.0 if i is None else math.exp(i / E_FINE)
    return (0.0, "post-processing") if e >= eps0_of(params) else (_clone_delta(params, t, e), "clone")


def _bracket(x: float, e: float, step: int) -> int:
    """The largest multiple i0 of ``step`` with exp(i0 / E_FINE) <= e (x = log e)."""
    i0 = math.floor(x * E_FINE / step) * step
    while math.exp(i0 / E_FINE) > e:
        i0 -= step
    while math.exp((i0 + step) / E_FINE) <= e:
        i0 += step
    return i0


def chord_value(value, t: int, e: float, levels: tuple, floor: Optional[int] = None) -> tuple:
    """(f, names): ``value(t, i)`` -> (a proved bound at e = exp(i / E_FINE), its name) read at
    e >= 0 through the grid: with ``levels`` the chord in gamma = e^e between the two points of
    the coarsest level whose values differ by at most CHORD_RATIO (module docstring: a proved
    bound, the truth is convex in gamma); without, the value at the E_FINE point at or below e
    (the truth is non-increasing in e)."""
    if e <= 1e-300:
        f, name = value(t, None)
        return f, (name,)
    x = math.log(e)
    if floor is not None and x < floor / E_FINE:  # the chord from e = 0 where the truth is near linear
        (f0, n0), i = value(t, None), floor
        while x < (i - E_FINE) / E_FINE:  # a lower floor exp(-1) times as large is still above e
            (f1, n1), (fm, _) = value(t, i), value(t, i - E_FINE)
            e1, em = math.exp(i / E_FINE), math.exp((i - E_FINE) / E_FINE)
            if _chord(f0, f1, n0, n1, 0.0, e1, em)[0] <= (1.0 + FLOOR_SLACK) * fm:
                return _chord(f0, f1, n0, n1, 0.0, e1, e)
            i -= E_FINE
    if not levels:
        f, name = value(t, _bracket(x, e, 1))
        return f, (name,)
    for G in levels:
        step = E_FINE // G
        i0 = _bracket(x, e, step)
        (f0, n0), (f1, n1) = value(t, i0), value(t, i0 + step)
        if f0 <= CHORD_RATIO * f1 or f0 <= CHORD_FLOOR:
            break
    return _chord(f0, f1, n0, n1, math.exp(i0 / E_FINE), math.exp((i0 + step) / E_FINE), e)


def _chord(f0: float, f1: float, n0: str, n1: str, e0: float, e1: float, e: float) -> tuple:
    """The chord in gamma = e^e through (e0, f0) and (e1, f1) at e in [e0, e1], rounded up."""
    if e <= e0:
        return f0, (n0,)
    g0, g1 = math.exp(e0), math.exp(e1)
    w = min(1.0, max(0.0, (g1 - math.exp(e)) / (g1 - g0)))
    # the float error of w is far below 1e-9 of (f0 - f1): that margin keeps the chord on the safe side
    val = w * f0 + (1.0 - w) * f1 + 1e-9 * (f0 - f1) + 1e-15 * f0
    return min(f0, val), tuple(sorted({n0, n1} - {"post-processing"})) or ("post-processing",)


def t_grid(t: int, grid: int = T_GRID) -> int:
    """The largest point floor(exp(k / grid)) of the grid at or below t (t itself below ``grid``)."""
    if t <= grid:
        return t
    k = math.floor(math.log(t) * grid)
    while math.floor(math.exp(k / grid)) > t:
        k -= 1
    return max(1, math.floor(math.exp(k / grid)))


def count_delta(params: Params, t: int, e: float, mechanism: bool = True, chord: tuple = ()) -> tuple:
    """(f, name): a proved upper bound f on sup over substitution neighbours of t users of
    D_{e^e}(S(D) || S(D')) and the bound that gave it. Always the clone pair (FMT21, proved for
    every eps0-LDP randomizer); with ``mechanism`` and a named randomizer also the registry's
    smallest proved bound for it (k-RR, Collision, ...: the exact blanket; binary RR: the exact
    worst case), and the smaller of the two. The named randomizer's bound is read from the per-t
    cache (:func:`chord_value`): at e rounded down to the grid exp(i / E_FINE), or with ``chord``
    (its levels, e.g. ROUNDS_LEVELS) as the chord in e^e between two grid points, the clone too."""
    eps0 = eps0_of(params)
    if e >= eps0:
        return 0.0, "post-processing"
    e = max(e, 0.0)
    if chord:  # t rounded down to the grid: the truth is non-increasing in the number of users
        t = t_grid(t)
    best = (chord_value(functools.partial(_clone_grid, params), t, e, chord)[0] if chord
            else _clone_delta(params, t, e), "clone")
    if mechanism and own_bound(params) and not (chord and t > own_rounds_max_t(params)):
        if chord and exact_applies(params):  # over rounds: the exact worst case only up to RR_EXACT_MAX_T users
            d, names = chord_value(functools.partial(_grid_value, params, which="rest"), t, e, chord)
            if t <= RR_EXACT_MAX_T:  # on a coarser grid of t: fewer searches (the truth is non-increasing in t)
                d, names = min((d, names), chord_value(functools.partial(_grid_value, params, which="search"),
                                                       t_grid(t, RR_T_GRID), e, RR_EXACT_LEVELS, RR_FLOOR_I))
        else:
            d, names = chord_value(functools.partial(_grid_value, params), t, e, chord)
        if d < best[0]:
            best = (d, "/".join(names))
    return best


SPREAD = 2.0  # strata at mu + sd width sinh(SPREAD u) / sinh(SPREAD), u uniform in [-1, 1]: dense at the centre


def strata_points(mu: float, sd: float, lo: int, hi: int, strata: int, width: float) -> list:
    """The strata's boundaries (integers in [lo, hi]), denser near the mean where the mass is;
    any boundaries give a proved bound, these only make it tight with few strata."""
    z = [width * math.sinh(SPREAD * (2 * j / strata - 1)) / math.sinh(SPREAD) for j in range(strata + 1)]
    return sorted({max(lo, min(hi, int(math.floor(mu + sd * x)))) for x in z})


def clone_values(params: Params, terms: list, value) -> None:
    """Fill each term's clone value: the strata side by side on the engines' threads (each
    evaluation then runs serially inside its thread, without starting threads of its own)."""
    from accountant.engines.parallel import map_ordered

    for term, v in zip(terms, map_ordered(lambda t: value(t[3]), terms)):
        term[2] = v


REFINE = 1e-3  # the terms that make up the top 1 - REFINE of a clone sum are re-evaluated


def refine_terms(terms: list, names: set, better) -> float:
    """terms: [mass, weight, clone value, args]; the largest terms (the top 1 - REFINE of the
    sum) are re-evaluated with ``better(args)`` -> (value, name); the rest keep the clone
    value (also proved, only larger)."""
    total = sum(m * w * v for m, w, v, _ in terms)
    order = sorted(range(len(terms)), key=lambda i: -terms[i][0] * terms[i][1] * terms[i][2])
    left, pick = total, []
    for i in order:
        m, w, v, _ = terms[i]
        if v <= 0 or left <= REFINE * total:
            break
        left -= m * w * v
        pick.append(i)
    for i, (b, name) in zip(pick, [better(terms[i][3]) for i in pick]):
        if b < terms[i][2]:
            terms[i][2] = b
            names.update(name.split("/"))
    return sum(m * w * v for m, w, v, _ in terms)


def pair_g(params: Params, t: int, gamma: float, mechanism: bool = False, chord: tuple = ()) -> tuple:
    """(value, name): upper bound on sup over neighbouring (substitution) datasets of t users of
    D_gamma(S(D) || S(D')), gamma >= 0: :func:`count_delta` at e = |log gamma| (the worst case
    is symmetric in the pair); for gamma < 1, D_gamma(P||Q) = 1 - gamma + gamma D_{1/gamma}(Q||P)."""
    if gamma <= 0.0 or t < 1:
        return 1.0, "trivial"
    f, name = count_delta(params, t, abs(math.log(gamma)), mechanism, chord)
    return (f if gamma >= 1.0 else min(1.0, (1.0 - gamma) + gamma * f)), name


def per_count_statement(params: Params, names: set) -> tuple:
    """(what the per-count bound was, its short name: every named bound used, joined by '+') for
    the statements."""
    first = ("exact", "search")
    mech = sorted((x for x in names if x not in ("clone", "post-processing", "trivial")),
                  key=lambda x: (x not in first, x))
    if not mech:
        return ("the clone pair of FMT21 (proved for every eps0-LDP randomizer)", "clone")
    return (f"the smaller of the clone pair (FMT21) and {'/'.join(mech)} (proved for {params.name}) "
            "at t users", "+".join(mech))


def _register_keyvalue() -> None:
    """The key-value baselines are randomizers (not classes): their own proved bound counts."""
    from accountant.core.randomizers_keyvalue import PCKVAGRRParams, PCKVGRRParams, PCKVUEParams, PrivKVParams

    for cls in (PCKVGRRParams, PCKVUEParams, PCKVAGRRParams, PrivKVParams):
        own_bound.register(cls, lambda params: True)


_register_keyvalue()
