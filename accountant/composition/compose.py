"""Central (eps, delta) after many shuffled rounds (identical or heterogeneous).

Each round is a ``RoundSpec`` (:mod:`.rounds`); ``round_profile`` (:mod:`.profile`) is the ONE
source of a round's certified privacy profile delta(eps).  Rounds are turned into connect-the-dots PLDs
(``accountant.composition.pld``), composed by FFT, and compared with naive composition (T eps, T delta)
and the advanced composition theorem (Dwork, Rothblum, Vadhan, FOCS 2010, Theorem III.3, in
its heterogeneous form).

May import: :mod:`accountant.core`, :mod:`accountant.engines`, :mod:`accountant.bounds.registry`,
:mod:`accountant.composition`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from accountant.engines import parallel as _parallel
from accountant.composition import lower as _lower
from accountant.composition import pld as _pld
from accountant.composition.profile import (  # noqa: F401  (re-exported: a round's profile)
    DEFAULT_STEPS,
    PROFILE_CUTOFF,
    PROFILE_TARGET,
    finite_round_law,
    profile_support,
    round_law,
    round_pld,
    round_profile,
    round_source,
    sampled_pld,
    support_cutoff,
)
from accountant.core.params import mechanism_spec, validate_delta
from accountant.engines.search import calibrate
from accountant.composition.rounds import (  # noqa: F401  (re-exported: the rounds' API)
    ROUND_MECHANISMS,
    RoundSpec,
    parse_schedule,
)

# The composition grid is this many times finer than the samples of the narrowest round
# (it only matters for the optimistic PLD, whose losses are rounded down onto it).
GRID_REFINE = 8
# Adaptive discretisation (default when no step is given): the profile samples per round are
# doubled (from DEFAULT_STEPS, on a grid ADAPTIVE_GRID_REFINE times finer than the samples from
# the second level on) until the pessimistic PLD total is within SPREAD_TARGET (relative) of the
# optimistic one, or the budget is hit: at most ADAPTIVE_MAX_SAMPLES samples per round, and no
# level is started whose projected cost (the last level's cost times its growth: the samples
# double; above ADAPTIVE_MANY_ROUNDS rounds the FFTs dominate and grow with the grid, 8x finer
# after the first level, 2x after) would bring the total beyond ADAPTIVE_BUDGET.  The cost is
# counted, not timed, so the same call gives the same number on every machine at any load: a
# level costs, per profile sample of each distinct round, SAMPLE_COST + SAMPLE_COST_SQRT_N
# sqrt(n) (the engines' sums grow as sqrt(n)), plus FFT_COST per unit of FFT work (N log2 N
# summed over the convolutions, :func:`accountant.composition.pld.fft_work`), all in cost
# units: an envelope of the CPU seconds of one core of the reference machine under load, about
# twice a quiet core's (docs/composition.md).  The
# spread reached is reported (``CompositionResult.spread``).  The optimistic PLD keeps its
# losses on the grid (:func:`accountant.composition.pld.from_profile`), so the spread falls about
# fourfold a level; SPREAD_TARGET = 1e-4 stops no earlier than 1e-3 did when every optimistic
# loss was rounded down (the spread then halved a level), so no reported bound is looser.
SPREAD_TARGET = 1e-4
# Profile samples per round of :func:`composed_upper` (the searches that compose many times,
# :func:`accountant.min_users`).  The supports end where the profile is below 1e-4 delta / T
# (``support_cutoff``), not 1e-30, so 30 samples are finer than 40 were before: 4-RR, n =
# 2.2e7, 10,000 rounds, delta = 1e-8: eps 0.10000 (40 samples, old support) -> 0.09979 (30)
# -> 0.09945 (40), CPU 1.8 -> 1.4 -> 1.8 s a composition.
SEARCH_SAMPLES = 30
ADAPTIVE_MAX_SAMPLES = 640
ADAPTIVE_BUDGET = 60.0
SAMPLE_COST = 0.03
SAMPLE_COST_SQRT_N = 9e-6
FFT_COST = 1e-8
ADAPTIVE_GRID_REFINE = 32
ADAPTIVE_MANY_ROUNDS = 100


def _each_distinct(fn: Callable, specs: Sequence[RoundSpec]) -> None:
    """Run ``fn`` on every distinct spec on the engines' threads (``accountant.engines.parallel``;
    results land in the caches; the evaluations inside then run serially)."""
    _parallel.map_ordered(fn, list(dict.fromkeys(specs)))


def default_step(specs: Sequence[RoundSpec], samples: int = DEFAULT_STEPS,
                 grid_refine: int = GRID_REFINE, cutoff: float = PROFILE_CUTOFF) -> float:
    """Grid step: the narrowest round's profile support (at ``cutoff``) / (samples * grid_refine)."""
    _each_distinct(lambda sp: profile_support(sp, cutoff), specs)
    return min(profile_support(s, cutoff) for s in set(specs)) / (samples * grid_refine)


def pld_spread(pessimistic: float, optimistic: float) -> float:
    """Relative distance pessimistic / optimistic - 1 of the two PLD totals (inf when the
    optimistic one is 0 below a positive pessimistic one, or the pessimistic one is infinite)."""
    if pessimistic <= optimistic:
        return 0.0
    if optimistic <= 0.0 or not math.isfinite(pessimistic):
        return math.inf
    return pessimistic / optimistic - 1.0


def _adaptive(specs: Sequence[RoundSpec], run: Callable, cutoff: float, rounds: Optional[int] = None):
    """``run(step, samples)`` -> (pessimistic total, optimistic total) at doubling samples
    until the spread of the best pair so far is <= SPREAD_TARGET or the budget is hit (see
    SPREAD_TARGET).  Returns ((the smallest pessimistic total, the largest optimistic one), the
    step and samples of the level with that pessimistic total).

    Every level's pessimistic total is a certified upper bound and every optimistic one an
    estimate below the profile's composition, so the best of each is kept: a finer level is not
    always tighter, since its grid is finer and longer FFTs carry a larger float-error bound
    (10,000 generic rounds, n = 1e6, delta = 1e-8: 0.767401 at 160 samples, 0.773131 at 640,
    whose error bound is 1.8e-9, 18% of delta)."""
    samples, refine = DEFAULT_STEPS, GRID_REFINE
    per_sample = sum(SAMPLE_COST + SAMPLE_COST_SQRT_N * math.sqrt(sp.n) for sp in set(specs))
    spent = 0.0
    best, top = None, -math.inf   # (smallest pessimistic total, its step, its samples); largest optimistic
    while True:
        work = _pld.fft_work()
        step = default_step(specs, samples, refine, cutoff)
        pe, op = run(step, samples)
        if best is None or pe < best[0]:
            best = (pe, step, samples)
        top = max(top, op)
        cost = per_sample * samples + FFT_COST * (_pld.fft_work() - work)
        spent += cost
        # the next level evaluates twice the profile samples; its grid is 2 * ADAPTIVE_GRID_REFINE
        # / refine times finer (8x after the first level, 2x after), which matters where the
        # FFTs dominate: many rounds (above ADAPTIVE_MANY_ROUNDS)
        many = (len(specs) if rounds is None else rounds) > ADAPTIVE_MANY_ROUNDS
        grow = 2.0 * (ADAPTIVE_GRID_REFINE / refine if many else 1.0)
        if (pld_spread(best[0], top) <= SPREAD_TARGET or 2 * samples > ADAPTIVE_MAX_SAMPLES
                or spent + cost * grow > ADAPTIVE_BUDGET):
            return (best[0], top), best[1], best[2]
        samples, refine = 2 * samples, ADAPTIVE_GRID_REFINE


# what ``compose``'s ``users_epsilon`` is: the one-level composition that ``users --rounds``
# inverts (:func:`composed_upper`), beside the adaptive ``epsilon``; both are certified upper
# bounds on the same composition of the per-round bound, and the adaptive's first level is the
# one-level compose at DEFAULT_STEPS samples, so ``epsilon`` is usually the smaller
USERS_EPSILON_NOTE = ("the composition `users --rounds` inverts (one level of SEARCH_SAMPLES profile "
                      "samples on the round's sample grid, accountant.composition.compose.composed_upper): "
                      "users' n has it <= the target and n - 1 above it; 'epsilon' (adaptive levels) is "
                      "another certified bound of the same composition, usually below it")

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
    eps, source = _best(pld, naive, advanced)
    if not math.isfinite(eps):  # no finite bound (a +inf atom above delta): nothing to estimate
        optimistic = eps
    return CompositionResult(eps, min(optimistic, eps), naive, advanced, rounds, delta, step, source,
                             pld_spread(pld, optimistic), samples)


def _best(pld: float, naive: float, advanced: float) -> tuple[float, str]:
    """(the smallest of the three certified totals, its source), the PLD first on ties."""
    return min((pld, "pld"), (naive, "naive"), (advanced, "advanced"), key=lambda x: x[0])


def _round_epsilon(single: _pld.DiscretePLD, spec: RoundSpec, delta: float) -> float:
    """One round's certified eps at ``delta``: its PLD's, at most the round's eps0 (each round
    is eps0-LDP, so by post-processing (eps0, 0)-DP: naive composition T eps0 is proved even
    where the PLD has an infinite atom above delta)."""
    eps0 = spec.eps0 if spec.eps0 is not None else math.inf
    return min(single.get_epsilon(delta), eps0)


def _identical_totals(single: _pld.DiscretePLD, rounds: int, delta: float,
                      spec: RoundSpec) -> tuple[float, float]:
    """(naive, advanced) totals of ``rounds`` identical rounds of the pessimistic PLD ``single``
    of ``spec`` (each round's eps at most its eps0)."""
    naive = rounds * _round_epsilon(single, spec, delta / rounds)
    adv = advanced_composition([_round_epsilon(single, spec, delta / (2 * rounds))] * rounds, delta / 2)
    return naive, adv


def _check_rounds(rounds) -> int:
    """rounds in [1, MAX_ROUNDS] (accountant.core.limits, with the reason)."""
    from accountant.core.limits import MAX_ROUNDS, check_rounds

    if isinstance(rounds, (str, bytes)) or rounds is None:
        raise ValueError(f"rounds must be an integer in [1, {MAX_ROUNDS}], got {rounds!r}")
    return check_rounds(rounds)


def _each_round(specs: Sequence[RoundSpec]) -> list[RoundSpec]:
    """Every round of ``specs`` in order, each once (a spec stands for ``repeat`` identical rounds
    in a row), their number checked against MAX_ROUNDS first."""
    _check_rounds(sum(sp.repeat for sp in specs))
    return [sp.single for sp in specs for _ in range(sp.repeat)]


def _check_step(step, specs: Sequence[RoundSpec], cutoff: float) -> float:
    """A loss-grid step in (0, 1] whose profile samples per round stay within
    MAX_PROFILE_SAMPLES (each sample is a certified divergence evaluation)."""
    from accountant.core.limits import MAX_PROFILE_SAMPLES, check_count, check_float

    step = check_float("step", step, 0.0, 1.0, lo_open=True)
    widest = max(profile_support(s, cutoff) for s in set(specs))
    check_count("step", widest / step, MAX_PROFILE_SAMPLES, "profile samples per round",
                f"raise --step to at least {widest / MAX_PROFILE_SAMPLES:.3g} or omit it")
    return step


def composed_plds(specs: Sequence[RoundSpec], step: float, samples: int = DEFAULT_STEPS,
                  cutoff: float = PROFILE_CUTOFF):
    """(pessimistic, optimistic) PLDs of the composition of ``specs`` (supports at ``cutoff``).
    Where every round samples its profile on the same grid (one sample factor m), the
    pessimistic PLDs compose on it (:func:`sampled_pld`, as :func:`compose_rounds` does)."""
    _each_distinct(lambda sp: (round_pld(sp, step, True, samples, cutoff),
                               round_pld(sp, step, False, samples, cutoff)), specs)
    sampled = [sampled_pld(s, step, samples, cutoff) for s in specs]
    if len({m for _, m in sampled}) == 1:
        pess = _pld.compose_all([base for base, _ in sampled])
    else:
        pess = _pld.compose_all([round_pld(s, step, True, samples, cutoff) for s in specs])
    opt = _pld.compose_all([round_pld(s, step, False, samples, cutoff) for s in specs])
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
        The rounds in order (mechanisms, n and eps0 may differ), each spec ``repeat`` times.
    delta : float
        Total delta of the composition, in (0, 1).
    step : float, optional
        Discretisation step of the privacy-loss grid (default: from the rounds' loss range).
    adaptive, lower : bool
        As :func:`compose_rounds`.

    Returns
    -------
    CompositionResult
        As :func:`compose_rounds`; ``rounds`` is the number of rounds (the specs' repeats added).

    Examples
    --------
    >>> from accountant import RoundSpec, compose_schedule, fmt
    >>> specs = [RoundSpec(10_000, 1.0), RoundSpec(20_000, 2.0, "krr", k=4)]
    >>> r = compose_schedule(specs, 1e-6)
    >>> print(fmt(r.epsilon, 4, "up"), r.rounds)
    0.09017 2
    """
    specs = list(specs)
    if not specs:
        raise ValueError("the schedule must contain at least one round")
    delta = validate_delta(delta)
    specs = _each_round(specs)
    from accountant.core.limits import check_schedule_spread

    check_schedule_spread("schedule", [sp.n for sp in specs])
    T = len(specs)
    cut = support_cutoff(delta, T)

    def run(st: float, samples: int):
        pess, opt = composed_plds(specs, st, samples, cut)
        return pess.get_epsilon(delta), opt.get_epsilon(delta)

    if step is None and adaptive:
        (pe, op), step, samples = _adaptive(specs, run, cut)
    else:
        step = default_step(specs, cutoff=cut) if step is None else _check_step(step, specs, cut)
        samples = DEFAULT_STEPS
        pe, op = run(step, samples)
    per_naive = {s: _round_epsilon(round_pld(s, step, True, samples, cut), s, delta / T) for s in set(specs)}
    per_adv = {s: _round_epsilon(round_pld(s, step, True, samples, cut), s, delta / (2 * T))
               for s in set(specs)}
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
        The round repeated ``rounds`` times (a spec with ``repeat`` r: ``rounds`` times r rounds).
    rounds : int
        Number of rounds T, 1 <= T <= ``MAX_ROUNDS`` (with the spec's repeat).
    delta : float
        Total delta of the composition, in (0, 1).
    step : float, optional
        Discretisation step of the privacy-loss grid (default: adaptive, see below).
    adaptive : bool
        Without ``step``: refine the discretisation until the pessimistic PLD total is within
        ``SPREAD_TARGET`` of the optimistic one or the budget is hit (``ADAPTIVE_MAX_SAMPLES``,
        ``ADAPTIVE_BUDGET``); False: one level (``DEFAULT_STEPS`` samples), as fast as before.
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
    rounds, spec = _check_rounds(rounds * spec.repeat), spec.single
    cut = support_cutoff(delta, rounds)
    up = _upper_round(spec)

    def run(st: float, samples: int):
        # the pessimistic PLD composes on its sample grid (sampled_pld: the distribution of
        # round_pld's, FFTs m times shorter, a smaller float-error bound); the optimistic one's
        # losses lie on the finer grid of st
        pess = _pld.self_compose(sampled_pld(up, st, samples, cut)[0], rounds)
        opt = _pld.self_compose(round_pld(up, st, False, samples, cut), rounds)
        return pess.get_epsilon(delta), opt.get_epsilon(delta)

    if step is None and adaptive:
        (pe, op), step, samples = _adaptive([up], run, cut, rounds)
    else:
        step = default_step([up], cutoff=cut) if step is None else _check_step(step, [up], cut)
        samples = DEFAULT_STEPS
        pe, op = run(step, samples)
    naive, adv = _identical_totals(round_pld(up, step, True, samples, cut), rounds, delta, up)
    res = _smallest(pe, op, naive, adv, rounds, delta, step, samples)
    return _lower.with_lower(res, [spec] * rounds, delta) if lower else res


def _upper_round(spec: RoundSpec) -> RoundSpec:
    """``spec`` without Collision's or CoCo's d: their proved profile does not depend on d (only
    the certified lower bound's datasets do), so rounds that differ in d alone share the cached
    profile and its evaluations (the Rounds page with d changed, a deployment's round with and
    without d: the same composition, not evaluated again)."""
    from dataclasses import replace

    from accountant.core.randomizers import CoCoParams, CollisionParams

    r = spec.randomizer
    if type(r) in (CollisionParams, CoCoParams) and r.d is not None:
        return RoundSpec(replace(r, d=None), spec.n)
    return spec


def composed_upper(spec: RoundSpec, rounds: int, delta: float,
                   samples: int = SEARCH_SAMPLES) -> tuple[float, str]:
    """(eps, source): the certified upper bound of ``rounds`` identical rounds of ``spec`` at
    total ``delta``, for searches that compose many times (:func:`accountant.min_users`).

    The pessimistic PLD of :func:`compose_rounds` at one level (``adaptive=False``), with
    ``SEARCH_SAMPLES`` profile samples (30, not 40), composed on the round's sample grid
    (:func:`accountant.composition.profile.sampled_pld`: the same distribution, every loss a
    multiple of the sample spacing), with no optimistic PLD and no lower bound; the smallest
    of it and the naive and advanced totals (``source``: ``"pld"``, ``"naive"`` or
    ``"advanced"``).  FFTs about 8 times shorter (10,000 generic rounds at n = 3.1e6: 3.5 s
    -> 0.1 s), and the FFTs' float-error bound, which grows with their length, is smaller, so
    with as many samples (``DEFAULT_STEPS``) the value is at or a little below
    ``compose_rounds(..., adaptive=False).epsilon`` (4-RR, 1000 rounds at n = 2.2e6, delta =
    1e-8: 0.099566 against 0.099979, before the supports' cutoff); with the default 30 samples
    it may be a little above it (the example: 0.11853 against 0.11826).

    >>> from accountant import RoundSpec, compose_rounds
    >>> from accountant.composition.compose import DEFAULT_STEPS, composed_upper
    >>> spec = RoundSpec(10_000, 1.0, "krr", k=4)
    >>> e, src = composed_upper(spec, 10, 1e-6, DEFAULT_STEPS)
    >>> src, e <= compose_rounds(spec, 10, 1e-6, adaptive=False).epsilon
    ('pld', True)
    >>> e <= composed_upper(spec, 10, 1e-6)[0] < 1.01 * e
    True
    """
    rounds = _check_rounds(rounds)
    delta = validate_delta(delta)
    rounds, spec = _check_rounds(rounds * spec.repeat), spec.single
    cut = support_cutoff(delta, rounds)
    single, _ = sampled_pld(spec, default_step([spec], samples, cutoff=cut), samples, cut)
    pe = _pld.self_compose(single, rounds).get_epsilon(delta)
    return _best(pe, *_identical_totals(single, rounds, delta, spec))


def largest_eps0(n: int, rounds: int, target_epsilon: float, delta: float,
                 mechanism: str = "generic", s: Optional[int] = None, t: Optional[int] = None,
                 k: Optional[int] = None, eps0_max: float = 10.0, xtol: float = 1e-3,
                 progress=None, hash_model: str = "any") -> Optional[float]:
    """Largest per-round eps0 (to ``xtol``) whose T-round PLD eps is <= target_epsilon.

    Monotone bisection on eps0 (:func:`accountant.engines.search.calibrate`); the returned eps0
    is one that was checked to meet the target (None if even eps0 = xtol does not).
    ``progress(done, total)``, if given, is called after each composition (total: the
    bisection's worst-case count).

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
    if not mechanism_spec(mechanism).eps0_given:
        raise ValueError(f"mechanism '{mechanism}' has no eps0 to search (its options fix eps0, as "
                         "variation-ratio's p: eps0 = ln p): compose the rounds at the values considered")
    rounds = _check_rounds(rounds)
    delta = validate_delta(delta)
    if not (math.isfinite(target_epsilon) and target_epsilon > 0):
        raise ValueError(f"target_epsilon must be a finite number > 0, got {target_epsilon!r}")

    total = 2 + max(0, math.ceil(math.log2(max(eps0_max - xtol, xtol) / xtol)))
    done = [0]

    def composed(spec: RoundSpec) -> float:
        # one discretisation level and no lower bound: the bisection composes about 12 times
        eps = compose_rounds(spec, rounds, delta, adaptive=False, lower=False).epsilon
        done[0] += 1
        if progress is not None:
            progress(min(done[0], total), total)
        return eps

    return calibrate(lambda e0: RoundSpec.named(mechanism, n, e0, s=s, t=t, k=k, hash_model=hash_model), target_epsilon,
                     composed, xtol, eps0_max, atol=xtol, max_evaluations=None).x


# --------------------------------------------------------------------------- uncertified estimate
def _approx_profile(spec: RoundSpec):
    """Saddle-point estimate of a round's privacy profile (``blanket_exact.approx_log_delta``)
    and the eps beyond which it is <= PROFILE_CUTOFF.  Not certified: a starting point only."""
    from accountant.engines.blanket.engine import positive_part
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


def approx_schedule_epsilon(specs: Sequence[RoundSpec], delta: float, sample_grid: bool = False) -> float:
    """Estimate of ``compose_schedule(specs, delta).epsilon``: the same connect-the-dots
    construction and FFT composition, with the saddle-point profile in place of the certified
    one (milliseconds instead of about 0.4 s per distinct round).  NOT a bound: callers use
    it to place a search, then certify with :func:`compose_schedule`.  ``sample_grid``: compose
    on the coarsest grid that holds every round's samples (the estimate of
    :func:`composed_upper`; 10,000 rounds: 0.2 s instead of 2 s)."""
    specs = list(specs)
    if not specs:
        raise ValueError("the schedule must contain at least one round")
    delta = validate_delta(delta)
    specs = _each_round(specs)
    profs = {sp: _approx_profile(sp) for sp in dict.fromkeys(specs)}
    step = min(top for _, top in profs.values()) / (DEFAULT_STEPS * GRID_REFINE)
    ms = {sp: max(1, int(top / (DEFAULT_STEPS * step))) for sp, (_, top) in profs.items()}
    g = math.gcd(*ms.values()) if sample_grid else 1   # the grid step * g holds every round's losses
    plds = {sp: _pld.refine(_pld.from_profile(prof, step * ms[sp], top, True), ms[sp] // g)
            for sp, (prof, top) in profs.items()}
    return _pld.compose_all([plds[sp] for sp in specs]).get_epsilon(delta)
