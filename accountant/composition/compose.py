"""Central (eps, delta) after many shuffled rounds (identical or heterogeneous).

Each round is a ``RoundSpec`` (:mod:`.rounds`); ``round_profile`` is the ONE source of a round's certified
privacy profile delta(eps).  Rounds are turned into connect-the-dots PLDs
(``accountant.pld``), composed by FFT, and compared with naive composition (T eps, T delta)
and the advanced composition theorem (Dwork, Rothblum, Vadhan, FOCS 2010, Theorem III.3, in
its heterogeneous form).

May import: :mod:`accountant.core`, :mod:`accountant.engines`, :mod:`accountant.bounds.registry`,
:mod:`accountant.composition`.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import NamedTuple
from functools import lru_cache
from typing import Callable, Optional, Sequence

from accountant.engines import parallel as _parallel
from accountant.composition import lower as _lower
from accountant.composition import pld as _pld
from accountant.engines.blanket.law import blanket_law
from accountant.engines.blanket.engine import positive_part
from accountant.bounds.registry import bound_delta, clone_delta, clone_pair
from accountant.bounds import random_blanket as _rb
from accountant.bounds.binary_exact import exact_profile_value
from accountant.core.params import validate_delta
from accountant.composition.rounds import (  # noqa: F401  (re-exported: the rounds' API)
    ROUND_MECHANISMS,
    RoundSpec,
    parse_schedule,
    round_source,
)

class _Value(NamedTuple):
    lower: float
    upper: float


# The profile beyond the first eps with upper delta <= this goes to the +inf atom.
PROFILE_CUTOFF = 1e-30
# The exact blanket's windows leave out at most PROFILE_TRUNCATION * PROFILE_TARGET of mass
# (a floor of 1e-33 on the upper profile, below PROFILE_CUTOFF).
PROFILE_TARGET = 1e-20
PROFILE_TRUNCATION = 1e-13
# The exact blanket's binned path stops refining at this relative gap (its upper end is
# certified at any gap; the PLD's own discretisation is far coarser).
PROFILE_BIN_GAP = 1e-3
# first pass of the binned path: the profile is differenced into a PLD, so its values
# must vary smoothly in eps; 8 bins keep the gap far inside PROFILE_BIN_GAP.  From
# PROFILE_ONE_BIN_N users on the first pass is one bin (the refinement still stops only at
# PROFILE_BIN_GAP, so the values keep that gap): 5-6x cheaper evaluations (n = 1e9: 0.5 s
# instead of 2.7 s, n = 1e10: 1.2-1.6 s instead of 7-8.5 s, the same upper values to 6
# digits at eps = 5e-4 ... 5e-3, collision s = 4, eps0 = 1)
PROFILE_MIN_BINS = 8
PROFILE_ONE_BIN_N = 10**8
# Profile samples across a round's support (the connect-the-dots points).
DEFAULT_STEPS = 40
# The composition grid is this many times finer than the samples of the narrowest round
# (it only matters for the optimistic PLD, whose losses are rounded down onto it).
GRID_REFINE = 8
# Adaptive discretisation (default when no step is given): the profile samples per round are
# doubled (from DEFAULT_STEPS, on a grid ADAPTIVE_GRID_REFINE times finer than the samples from
# the second level on) until the pessimistic PLD total is within SPREAD_TARGET (relative) of the
# optimistic one, or the budget is hit: at most ADAPTIVE_MAX_SAMPLES samples per round, and no
# level is started whose projected time (about the time spent so far: it evaluates as many new
# samples as all levels before) would end beyond ADAPTIVE_SECONDS of CPU time.  The spread reached is
# reported (``CompositionResult.spread``).  Measured (k-RR k = 4, n = 1000, eps0 = ln 13, 2 shared
# cores): about 20 ms per profile sample, 640 samples in 13 s.
SPREAD_TARGET = 1e-3
ADAPTIVE_MAX_SAMPLES = 640
ADAPTIVE_SECONDS = 30.0
ADAPTIVE_GRID_REFINE = 32


def round_law(spec: RoundSpec):
    """The exact privacy blanket's count law of a round (``blanket_exact.blanket_law``), or
    None for a generic eps0-LDP randomizer and a variation-ratio class (no blanket
    decomposition is known for them)."""
    if spec.mechanism in ("generic", "variation-ratio", "finite"):
        return None
    return blanket_law(spec.params())


def round_profile(spec: RoundSpec) -> Callable[[float], tuple[float, float]]:
    """Certified privacy profile of one round: eps >= 0 -> (lower, upper) on delta(eps).

    * generic: the FMT21 clone pair (Feldman, McMillan, Talwar, FOCS 2021, Theorem 3.2),
      proved for every eps0-LDP randomizer;
    * variation-ratio (Wang et al., VLDB 2024, parameters p, beta, q): the same reduction with
      the first user's ratio p and mixing 1/q (``DominatingPair.clone_pq``; the pair of the
      registry's single-round ``clone`` bound, :func:`accountant.bounds.registry.clone_pair`);
    * Collision, CoCo, k-RR, RR: the exact privacy blanket (Balle, Bell, Gascon, Nissim,
      CRYPTO 2019; ``accountant.blanket_exact``, worst case over the hash family), the
      curve of one symmetric pair on counts, evaluated with its windows leaving out at most
      ``TRUNCATION_FRACTION * PROFILE_TARGET`` of mass (added to the upper end).  Where its
      upper value is <= PROFILE_TARGET (the tail, where that truncation floor can matter)
      the clone is evaluated too and the upper end is the pointwise minimum of the two
      certified upper values (both bound every neighbouring pair's divergence at each eps,
      so the minimum does too, and connect-the-dots of such points is a dominating pair);
      the lower end is then min(blanket lower, clone lower, upper end).  Above
      PROFILE_TARGET the clone is not consulted: the blanket is the optimal
      decomposition-based bound (Su, Cheng, Wang, S&P 2026) and on every tested
      (n, eps0, mechanism) the clone was below it only at values < 1e-33.
    * RR with n <= EVERY_DATASET_MAX_N: also the exact sup over every dataset
      (:func:`accountant.bounds.binary_exact.exact_profile_value`), the minimum taken.

    * finite (any pure-LDP matrix, :class:`accountant.FiniteRandomizer`): the same, with the
      blanket law of the matrix's worst input pair (:func:`finite_round_law`, the law of the
      single-round bound of :mod:`accountant.bounds.finite`) and its upper end times the
      law's rounding margin; the clone at the matrix's eps0 in the tail as above.

    The clone's values come from :func:`accountant.bounds.registry.clone_delta` (the
    single-round bound's own evaluation: at n near 1e10, where its window is over the cost
    limit, also at n / 2, proved by monotonicity in n).  The profile is symmetric
    (D(P||Q) = D(Q||P)) for both pairs.  To switch the source, change the pair/evaluation
    below (one place).
    """
    params = spec.params()
    law, margin = finite_round_law(spec) if spec.mechanism == "finite" else (round_law(spec), 1.0)
    if spec.mechanism == "finite" and margin == 0.0:  # every row the same: the reports say nothing
        return lambda eps: (0.0, 0.0)
    random_params = spec.params() if spec.hash_model == "random" else None
    min_bins = 1 if spec.n >= PROFILE_ONE_BIN_N else PROFILE_MIN_BINS

    def profile(eps: float) -> tuple[float, float]:
        if law is None:
            return clone_delta(params, spec.n, eps)
        if eps >= law.eps_max:  # every v_c <= 0: delta = 0 (post-processing of eps0-LDP)
            return 0.0, 0.0
        ev = lambda lw, e: positive_part(lw, spec.n, e, target_delta=PROFILE_TARGET,  # noqa: E731
                                         bin_gap=PROFILE_BIN_GAP, min_bins=min_bins,
                                         truncation=PROFILE_TRUNCATION)
        b = ev(law, eps)
        if margin != 1.0:
            b = _Value(b.lower, min(b.upper * margin, 1.0))
        if spec.hash_model == "random":  # the four-corner law, at most the any-hash value
            lo, up = _rb.random_blanket_delta(random_params, spec.n, eps, (b.lower, b.upper), ev)
            b = _Value(lo, up)
        ex = exact_profile_value(spec.n, spec.eps0, eps) if spec.mechanism == "rr" else None
        if ex is not None:  # binary RR, small n: the certified sup over every dataset
            b = _Value(min(b.lower, ex[0]), min(b.upper, ex[1]))
        if b.upper > PROFILE_TARGET:
            return b.lower, b.upper
        c_lo, c_up = clone_delta(params, spec.n, eps)
        up = min(c_up, b.upper)
        return min(b.lower, c_lo, up), up

    return profile


def finite_round_law(spec: RoundSpec):
    """(law, margin) of a finite round: the count law of the matrix's blanket for its worst input
    pair and the factor on its upper delta that covers the law's float rounding
    (:func:`accountant.bounds.finite.finite_blanket_law`, the law behind the single-round
    bound); (None, 0.0) when every row is the same (delta = 0 at every eps); (None, 1.0) when
    that bound is not available (then the round composes the clone alone)."""
    from accountant.bounds.finite import finite_blanket_law

    try:
        fl = finite_blanket_law(spec.params())
    except ValueError:
        return None, 1.0
    return fl.law, (0.0 if fl.law is None else fl.margin(spec.n))


@lru_cache(maxsize=4096)
def _profile_value(spec: RoundSpec, eps: float) -> tuple[float, float]:
    return round_profile(spec)(eps)


def _shrink(below, e: float) -> float:
    """Halve e while below(e / 2), then try 0.75 e up to three times."""
    while e > 1e-6 and below(e / 2):
        e /= 2
    for _ in range(3):
        if not below(0.75 * e):
            break
        e *= 0.75
    return e


@lru_cache(maxsize=512)
def profile_support(spec: RoundSpec) -> float:
    """An eps where the upper profile is <= PROFILE_CUTOFF (the profile beyond it goes to
    the +inf atom, so the choice affects tightness only, never validity).

    Near the cutoff the clone decides (the blanket's truncation floor is ~1e-20), and
    clone evaluations deep in the tail are costly: the search starts where Bennett's
    closed-form blanket bound (microseconds) is below the cutoff, moves up by doubling
    until the clone is below it too, then halves on the full profile.
    """
    params = spec.params()
    clone_below = lambda x: clone_delta(params, spec.n, x)[1] <= PROFILE_CUTOFF  # noqa: E731
    if spec.mechanism == "variation-ratio":  # no closed form to start from: from eps_max = ln p
        return _shrink(clone_below, min(spec.eps0, clone_pair(params, spec.n).eps_max))
    cheap = "blanket-bennett-generic" if spec.mechanism == "generic" else "blanket-bennett"
    if spec.mechanism == "finite":  # a finite randomizer is eps0-LDP: the generic closed form holds
        params = RoundSpec(spec.n, spec.eps0).params()
        cheap = "blanket-bennett-generic"

    def bennett_below(x: float) -> bool:
        v = bound_delta(cheap, params, spec.n, x)
        return v is not None and v[1] <= PROFILE_CUTOFF

    e = _shrink(bennett_below, spec.eps0)
    while e < spec.eps0 and not clone_below(e):
        e = min(2.0 * e, spec.eps0)
    if spec.mechanism == "generic":
        return _shrink(clone_below, e)
    return _shrink(lambda x: _profile_value(spec, x)[1] <= PROFILE_CUTOFF, e)


@lru_cache(maxsize=256)
def round_pld(spec: RoundSpec, step: float, pessimistic: bool = True,
              samples: int = DEFAULT_STEPS) -> _pld.DiscretePLD:
    """Connect-the-dots PLD of one round on the composition grid of ``step``.

    The profile is sampled every ``m * step`` with the integer m chosen so that about
    ``samples`` samples cover the round's support (a round with a wide support does
    not cost more evaluations); the resulting losses lie on the grid of ``step``.
    """
    support = profile_support(spec)
    m = max(1, int(support / (samples * step) * (1.0 + 1e-12)))  # no 7.999... -> 7
    prof = lambda e: _profile_value(spec, round(e, 15))  # noqa: E731
    if pessimistic:
        return _pld.refine(_pld.from_profile(prof, step * m, support, True), m)
    return _pld.from_profile(prof, step * m, support, False, grid_step=step)


def _each_distinct(fn: Callable, specs: Sequence[RoundSpec]) -> None:
    """Run ``fn`` on every distinct spec on the engines' threads (``accountant.parallel``;
    results land in the caches; the evaluations inside then run serially)."""
    _parallel.map_ordered(fn, list(dict.fromkeys(specs)))


def default_step(specs: Sequence[RoundSpec], samples: int = DEFAULT_STEPS,
                 grid_refine: int = GRID_REFINE) -> float:
    """Grid step: the narrowest round's profile support / (samples * grid_refine)."""
    _each_distinct(profile_support, specs)
    return min(profile_support(s) for s in set(specs)) / (samples * grid_refine)


def pld_spread(pessimistic: float, optimistic: float) -> float:
    """Relative distance pessimistic / optimistic - 1 of the two PLD totals (inf when the
    optimistic one is 0 below a positive pessimistic one, or the pessimistic one is infinite)."""
    if pessimistic <= optimistic:
        return 0.0
    if optimistic <= 0.0 or not math.isfinite(pessimistic):
        return math.inf
    return pessimistic / optimistic - 1.0


def _adaptive(specs: Sequence[RoundSpec], run: Callable):
    """``run(step, samples)`` -> (pessimistic total, optimistic total, ...) at doubling
    samples until the spread is <= SPREAD_TARGET or the budget is hit (see SPREAD_TARGET).
    Returns (the last run's output, its step, its samples)."""
    samples, refine = DEFAULT_STEPS, GRID_REFINE
    t0 = time.process_time()  # CPU time of all threads: the same budget on a busy machine
    while True:
        step = default_step(specs, samples, refine)
        out = run(step, samples)
        elapsed = time.process_time() - t0
        if (pld_spread(out[0], out[1]) <= SPREAD_TARGET or 2 * samples > ADAPTIVE_MAX_SAMPLES
                or 2.0 * elapsed > ADAPTIVE_SECONDS):
            return out, step, samples
        samples, refine = 2 * samples, ADAPTIVE_GRID_REFINE


# what ``epsilon_estimate_of_bound`` is, in the words every surface prints beside it
ESTIMATE_OF_BOUND = ("optimistic estimate of the per-round bound's composition (the PLD "
                     "discretisation error), NOT a lower bound on the composed eps_c")


@dataclass(frozen=True)
class CompositionResult:
    """Central eps after all rounds at total ``delta``.

    epsilon : the smallest of three certified upper bounds: the pessimistic PLD, the naive
        total and the advanced total (each a valid bound at total ``delta``), named by
        ``source`` (``"pld"``, ``"naive"`` or ``"advanced"``): the PLD total alone can exceed
        the naive one (an infinite PLD total at delta = 1e-12 with a naive total of 2 eps0).
    epsilon_estimate_of_bound : PLD, optimistic: an estimate of the composition of the
        per-round *bound* (its profile discretised the other way), so the distance to
        ``epsilon`` is the discretisation error.  It is NOT a lower bound on the mechanism's
        composed eps_c: the per-round bound is above the mechanism's profile, and this
        estimate can exceed the exact composed eps_c (:data:`ESTIMATE_OF_BOUND`).
    naive_epsilon : sum of per-round eps at delta/T each.
    advanced_epsilon : advanced composition, per-round delta = delta/(2T), slack delta/2.
    source : which of the three ``epsilon`` is.
    spread : pessimistic / optimistic PLD total - 1 (the discretisation error left).
    samples : profile samples per round of the last discretisation level.
    epsilon_lower : certified lower bound on the composed mechanism's eps_c (one dataset pair
        used in every round, :mod:`accountant.composition.lower`), or None; ``lower_note``
        names the datasets, or says why it is not available.

    Examples
    --------
    >>> from accountant import RoundSpec, compose_rounds, fmt
    >>> r = compose_rounds(RoundSpec(10_000, 1.0), 4, 1e-6)
    >>> print(fmt(r.epsilon, 4, "up"), r.epsilon_estimate_of_bound <= r.epsilon <= r.naive_epsilon)
    0.1115 True
    >>> r.epsilon_lower <= r.epsilon, r.spread <= 1e-3
    (True, True)
    """

    epsilon: float
    epsilon_estimate_of_bound: float
    naive_epsilon: float
    advanced_epsilon: float
    rounds: int
    delta: float
    step: float
    source: str = "pld"
    spread: float = math.nan
    samples: int = DEFAULT_STEPS
    epsilon_lower: Optional[float] = None
    lower_note: str = ""

    def as_dict(self) -> dict:
        return {"epsilon": self.epsilon, "epsilon_source": self.source,
                "epsilon_lower": self.epsilon_lower, "epsilon_lower_note": self.lower_note,
                "epsilon_estimate_of_bound": self.epsilon_estimate_of_bound,
                # null when the PLD total is infinite (strict JSON has no Infinity)
                "pld_spread": self.spread if math.isfinite(self.spread) else None,
                "profile_samples": self.samples,
                "naive_epsilon": self.naive_epsilon, "advanced_epsilon": self.advanced_epsilon,
                "rounds": self.rounds, "delta": self.delta, "step": self.step}


def _smallest(pld: float, optimistic: float, naive: float, advanced: float, rounds: int,
              delta: float, step: float, samples: int = DEFAULT_STEPS) -> CompositionResult:
    """The result with ``epsilon`` the smallest of the three certified totals (the PLD first
    on ties) and the optimistic PLD value capped at it; ``spread`` is the PLD pair's."""
    eps, source = min((pld, "pld"), (naive, "naive"), (advanced, "advanced"), key=lambda x: x[0])
    return CompositionResult(eps, min(optimistic, eps), naive, advanced, rounds, delta, step, source,
                             pld_spread(pld, optimistic), samples)


def _check_rounds(rounds) -> int:
    """rounds in [1, MAX_ROUNDS] (accountant.limits, with the reason)."""
    from accountant.core.limits import MAX_ROUNDS, check_rounds

    if isinstance(rounds, (str, bytes)) or rounds is None:
        raise ValueError(f"rounds must be an integer in [1, {MAX_ROUNDS}], got {rounds!r}")
    return check_rounds(rounds)


def _check_step(step, specs: Sequence[RoundSpec]) -> float:
    """A loss-grid step in (0, 1] whose profile samples per round stay within
    MAX_PROFILE_SAMPLES (each sample is a certified divergence evaluation)."""
    from accountant.core.limits import MAX_PROFILE_SAMPLES, check_count, check_float

    step = check_float("step", step, 0.0, 1.0, lo_open=True)
    widest = max(profile_support(s) for s in set(specs))
    check_count("step", widest / step, MAX_PROFILE_SAMPLES, "profile samples per round",
                f"raise --step to at least {widest / MAX_PROFILE_SAMPLES:.3g} or omit it")
    return step


def composed_plds(specs: Sequence[RoundSpec], step: float, samples: int = DEFAULT_STEPS):
    """(pessimistic, optimistic) PLDs of the composition of ``specs``."""
    _each_distinct(lambda sp: (round_pld(sp, step, True, samples), round_pld(sp, step, False, samples)),
                   specs)
    pess = _pld.compose_all([round_pld(s, step, True, samples) for s in specs])
    opt = _pld.compose_all([round_pld(s, step, False, samples) for s in specs])
    return pess, opt


def advanced_composition(epsilons: Sequence[float], slack: float) -> float:
    """Advanced composition (Dwork, Rothblum, Vadhan 2010, Theorem III.3), heterogeneous:
    sqrt(2 ln(1/slack) sum eps_i^2) + sum eps_i (e^eps_i - 1), total delta = sum delta_i + slack."""
    return (math.sqrt(2.0 * math.log(1.0 / slack) * sum(e * e for e in epsilons))
            + sum(e * math.expm1(e) for e in epsilons))


def compose_schedule(specs: Sequence[RoundSpec], delta: float, step: Optional[float] = None,
                     adaptive: bool = True, lower: bool = True) -> CompositionResult:
    """Central eps of a heterogeneous schedule of rounds at total ``delta``.

    Parameters
    ----------
    specs : sequence of RoundSpec
        The rounds, one spec each (mechanisms, n and eps0 may differ).
    delta : float
        Total delta of the composition, in (0, 1).
    step : float, optional
        Discretisation step of the privacy-loss grid (default: from the rounds' loss range).
    adaptive, lower : bool
        As :func:`compose_rounds`.

    Returns
    -------
    CompositionResult
        As :func:`compose_rounds`; ``rounds`` is ``len(specs)``.

    Examples
    --------
    >>> from accountant import RoundSpec, compose_schedule, fmt
    >>> specs = [RoundSpec(10_000, 1.0), RoundSpec(20_000, 2.0, "krr", k=4)]
    >>> r = compose_schedule(specs, 1e-6)
    >>> print(fmt(r.epsilon, 4, "up"), r.rounds)
    0.09018 2
    """
    specs = list(specs)
    if not specs:
        raise ValueError("the schedule must contain at least one round")
    delta = validate_delta(delta)
    _check_rounds(len(specs))
    from accountant.core.limits import check_schedule_spread

    check_schedule_spread("schedule", [sp.n for sp in specs])
    T = len(specs)

    def run(st: float, samples: int):
        pess, opt = composed_plds(specs, st, samples)
        return pess.get_epsilon(delta), opt.get_epsilon(delta)

    if step is None and adaptive:
        (pe, op), step, samples = _adaptive(specs, run)
    else:
        step = default_step(specs) if step is None else _check_step(step, specs)
        samples = DEFAULT_STEPS
        pe, op = run(step, samples)
    per_naive = {s: round_pld(s, step, True, samples).get_epsilon(delta / T) for s in set(specs)}
    per_adv = {s: round_pld(s, step, True, samples).get_epsilon(delta / (2 * T)) for s in set(specs)}
    naive = sum(per_naive[s] for s in specs)
    adv = advanced_composition([per_adv[s] for s in specs], delta / 2)
    res = _smallest(pe, op, naive, adv, T, delta, step, samples)
    return _lower.with_lower(res, specs, delta) if lower else res


def compose_rounds(spec: RoundSpec, rounds: int, delta: float, step: Optional[float] = None,
                   adaptive: bool = True, lower: bool = True) -> CompositionResult:
    """Central eps after ``rounds`` identical rounds of ``spec`` at total ``delta``.

    Parameters
    ----------
    spec : RoundSpec
        The round repeated ``rounds`` times.
    rounds : int
        Number of rounds T, 1 <= T <= ``MAX_ROUNDS``.
    delta : float
        Total delta of the composition, in (0, 1).
    step : float, optional
        Discretisation step of the privacy-loss grid (default: adaptive, see below).
    adaptive : bool
        Without ``step``: refine the discretisation until the pessimistic PLD total is within
        ``SPREAD_TARGET`` of the optimistic one or the budget is hit (``ADAPTIVE_MAX_SAMPLES``,
        ``ADAPTIVE_SECONDS``); False: one level (``DEFAULT_STEPS`` samples), as fast as before.
    lower : bool
        Also compute the certified lower bound of the composition
        (:func:`accountant.composition.lower.composed_lower`), or say why it is not available.

    Returns
    -------
    CompositionResult
        The PLD epsilon (pessimistic: a certified upper bound; optimistic beside it) and the
        naive and advanced composition totals.

    References
    ----------
    Doroshenko, Ghazi, Kamath, Kumar, Manurangsi, "Connect the dots: tighter discrete
    approximations of privacy loss distributions", PETS 2022 (Section 3); Zhu, Dong, Wang,
    "Optimal accounting of differential privacy via characteristic function", AISTATS 2022
    (Theorem 10); Dwork, Rothblum, Vadhan, "Boosting and differential privacy", FOCS 2010
    (Theorem III.3, advanced composition).

    Examples
    --------
    >>> from accountant import RoundSpec, compose_rounds, fmt
    >>> r = compose_rounds(RoundSpec(10_000, 1.0, "krr", k=4), 10, 1e-6)
    >>> print(fmt(r.epsilon, 4, "up"), fmt(r.naive_epsilon, 4, "up"), r.rounds)
    0.118 0.3996 10
    """
    rounds = _check_rounds(rounds)
    delta = validate_delta(delta)

    def run(st: float, samples: int):
        pess = _pld.self_compose(round_pld(spec, st, True, samples), rounds)
        opt = _pld.self_compose(round_pld(spec, st, False, samples), rounds)
        return pess.get_epsilon(delta), opt.get_epsilon(delta)

    if step is None and adaptive:
        (pe, op), step, samples = _adaptive([spec], run)
    else:
        step = default_step([spec]) if step is None else _check_step(step, [spec])
        samples = DEFAULT_STEPS
        pe, op = run(step, samples)
    single = round_pld(spec, step, True, samples)
    naive = rounds * single.get_epsilon(delta / rounds)
    adv = advanced_composition([single.get_epsilon(delta / (2 * rounds))] * rounds, delta / 2)
    res = _smallest(pe, op, naive, adv, rounds, delta, step, samples)
    return _lower.with_lower(res, [spec] * rounds, delta) if lower else res


def largest_eps0(n: int, rounds: int, target_epsilon: float, delta: float,
                 mechanism: str = "generic", s: Optional[int] = None, t: Optional[int] = None,
                 k: Optional[int] = None, eps0_max: float = 10.0, xtol: float = 1e-3,
                 progress=None, hash_model: str = "any") -> Optional[float]:
    """Largest per-round eps0 (to ``xtol``) whose T-round PLD eps is <= target_epsilon.

    Monotone bisection on eps0; the returned eps0 is one that was checked to meet the
    target (None if even eps0 = xtol does not).  ``progress(done, total)``, if given, is
    called after each composition (total: the bisection's worst-case count).

    Parameters
    ----------
    n : int
        Users per round.
    rounds : int
        Number of identical rounds.
    target_epsilon : float
        Total central epsilon to meet (> 0).
    delta : float
        Total delta, in (0, 1).
    mechanism : str
        The round mechanism (see :class:`RoundSpec`), with ``s``, ``t``, ``k``.
    s, t, k : int, optional
        As in :class:`RoundSpec`.
    eps0_max : float
        Upper end of the bisection.
    xtol : float
        Absolute tolerance of the bisection on eps0.
    progress : callable, optional
        ``progress(done, total)`` after each composition.
    hash_model : str
        ``"any"`` or ``"random"`` (collision, olh), as in :class:`RoundSpec`.

    Returns
    -------
    float or None
        An eps0 whose composition was checked to meet the target, or None.

    Examples
    --------
    >>> from accountant import RoundSpec, compose_rounds, fmt, largest_eps0
    >>> e0 = largest_eps0(10_000, 4, 0.5, 1e-6, xtol=1e-2)
    >>> print(fmt(e0, 4, "down"))
    2.556
    >>> compose_rounds(RoundSpec(10_000, e0), 4, 1e-6).epsilon <= 0.5
    True
    """
    if mechanism == "variation-ratio":
        raise ValueError("mechanism 'variation-ratio' has no eps0 to search (p fixes eps0 = ln p): "
                         "compose the rounds at the p values considered")
    rounds = _check_rounds(rounds)
    delta = validate_delta(delta)
    if not (math.isfinite(target_epsilon) and target_epsilon > 0):
        raise ValueError(f"target_epsilon must be a finite number > 0, got {target_epsilon!r}")

    total = 2 + max(0, math.ceil(math.log2(max(eps0_max - xtol, xtol) / xtol)))
    done = [0]

    def meets(e0: float) -> bool:
        spec = RoundSpec(n, e0, mechanism, s, t, k, hash_model=hash_model)
        # one discretisation level and no lower bound: the bisection composes about 12 times
        ok = compose_rounds(spec, rounds, delta, adaptive=False, lower=False).epsilon <= target_epsilon
        done[0] += 1
        if progress is not None:
            progress(min(done[0], total), total)
        return ok

    lo, hi = xtol, eps0_max
    if not meets(lo):
        return None
    if meets(hi):
        return hi
    while hi - lo > xtol:
        mid = 0.5 * (lo + hi)
        if meets(mid):
            lo = mid
        else:
            hi = mid
    return lo


# --------------------------------------------------------------------------- uncertified estimate
def _approx_profile(spec: RoundSpec):
    """Saddle-point estimate of a round's privacy profile (``blanket_exact.approx_log_delta``)
    and the eps beyond which it is <= PROFILE_CUTOFF.  Not certified: a starting point only."""
    from accountant.engines.blanket.window import approx_epsilon, approx_log_delta

    law = round_law(spec)
    if law is None:
        raise ValueError("the saddle-point estimate needs a blanket law (collision, coco, krr, rr)")

    def profile(eps: float) -> tuple[float, float]:
        if eps >= law.eps_max:
            return 0.0, 0.0
        # at eps = 0 the saddle point is undefined (mean 0): take it just above; deep in the
        # tail (near eps_max) the estimate may fail where delta is negligible: 0 there
        lp = approx_log_delta(law, spec.n, max(eps, 1e-9))
        if lp is None:
            v = positive_part(law, spec.n, eps).upper if eps < 1e-3 else 0.0
        else:
            v = math.exp(lp)
        v = min(v, 1.0)
        return v, v

    top = approx_epsilon(law, spec.n, PROFILE_CUTOFF)
    top = law.eps_max if top is None else min(top, law.eps_max)
    return profile, max(top, 1e-9)


def approx_schedule_epsilon(specs: Sequence[RoundSpec], delta: float) -> float:
    """Estimate of ``compose_schedule(specs, delta).epsilon``: the same connect-the-dots
    construction and FFT composition, with the saddle-point profile in place of the certified
    one (milliseconds instead of about 0.4 s per distinct round).  NOT a bound: callers use
    it to place a search, then certify with :func:`compose_schedule`."""
    specs = list(specs)
    if not specs:
        raise ValueError("the schedule must contain at least one round")
    delta = validate_delta(delta)
    profs = {sp: _approx_profile(sp) for sp in dict.fromkeys(specs)}
    step = min(top for _, top in profs.values()) / (DEFAULT_STEPS * GRID_REFINE)
    plds = {}
    for sp, (prof, top) in profs.items():
        m = max(1, int(top / (DEFAULT_STEPS * step)))
        plds[sp] = _pld.refine(_pld.from_profile(prof, step * m, top, True), m)
    return _pld.compose_all([plds[sp] for sp in specs]).get_epsilon(delta)
