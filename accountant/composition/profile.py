"""The certified privacy profile of one round and its connect-the-dots PLD.

``round_profile`` is the ONE source of a round's certified privacy profile delta(eps) (its
docstring says which bound serves which mechanism); ``profile_support`` the eps beyond which the
profile goes to the +inf atom; ``round_pld`` the round's PLD on a composition grid;
``round_source`` what the profile is.  Each goes through the round's :class:`RoundKind`, one per
randomizer type (:data:`ROUND_KINDS`: the one dispatch point).  A module of
its own because it is what a round *is* for the composition (:mod:`.compose` composes these
PLDs, :mod:`.lower` builds the certified lower bound's pairs beside them).

May import: :mod:`accountant.core`, :mod:`accountant.engines`, :mod:`accountant.bounds`,
:mod:`accountant.composition.pld`, :mod:`accountant.composition.rounds`.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from functools import lru_cache
from typing import Callable, NamedTuple

from accountant.bounds import random_blanket as _rb
from accountant.bounds.binary_exact import exact_profile_value
from accountant.bounds.laws.random_hash import ASSUMPTION, check_hash_model
from accountant.bounds.registry import REGISTRY, bound_delta, clone_delta, clone_pair
from accountant.composition import pld as _pld
from accountant.composition.rounds import ALL_ROUND_MECHANISMS, RoundSpec
from accountant.core.finite import FiniteRandomizer
from accountant.core.params import (
    CoCoParams,
    CollisionParams,
    GenericLDP,
    PCKVAGRRParams,
    PCKVGRRParams,
    PCKVUEParams,
    KRRParams,
    LaplaceParams,
    OUEParams,
    VariationRatioParams,
    mechanism_spec,
)
from accountant.engines.blanket.engine import positive_part, positive_part_many
from accountant.engines.blanket.law import blanket_law


class _Value(NamedTuple):
    lower: float
    upper: float


# The profile beyond the first eps with upper delta <= the cutoff goes to the +inf atom: this
# one, or, in a composition of T rounds at total delta, CUTOFF_OF_DELTA * delta / T if larger
# (:func:`support_cutoff`).  The atoms add at most T * cutoff to the composed delta, so the
# larger cutoff costs at most 1e-4 of delta (about 3e-6 of eps at delta = 1e-8), and the
# samples leave the profile's far tail for its body: 4-RR, n = 2.2e7, 10,000 rounds, delta =
# 1e-8: the support 0.00293 -> 0.00195 (six of its 40 samples had been on the truncation floor
# of 1e-33), the composed eps 0.10000 -> 0.09945 with the same samples.
PROFILE_CUTOFF = 1e-30
CUTOFF_OF_DELTA = 1e-4
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


def round_law(spec: RoundSpec):
    """The exact privacy blanket's count law of a round (``blanket_exact.blanket_law``), or
    None for a generic eps0-LDP randomizer, a variation-ratio class (no blanket decomposition
    is known for them) and a matrix (its law: :func:`finite_round_law`)."""
    return round_kind(type(spec.randomizer)).law(spec)


def round_profile(spec: RoundSpec) -> Callable[[float], tuple[float, float]]:
    """Certified privacy profile of one round: eps >= 0 -> (lower, upper) on delta(eps).

    * generic: the FMT21 clone pair (Feldman, McMillan, Talwar, FOCS 2021, Theorem 3.2),
      proved for every eps0-LDP randomizer;
    * variation-ratio (Wang et al., VLDB 2024, parameters p, beta, q): the same reduction with
      the first user's ratio p and mixing 1/q (``DominatingPair.clone_pq``; the pair of the
      registry's single-round ``clone`` bound, :func:`accountant.bounds.registry.clone_pair`);
    * Collision, CoCo, k-RR, RR, OLH, OUE: the exact privacy blanket (Balle, Bell, Gascon, Nissim,
      CRYPTO 2019; ``accountant.engines.blanket``, worst case over the hash family), the
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
    * RR (the mechanisms of the registry's ``exact`` bound) with n <= EVERY_DATASET_MAX_N: also
      the exact sup over every dataset
      (:func:`accountant.bounds.binary_exact.exact_profile_value`), the minimum taken.

    * finite (any pure-LDP matrix, :class:`accountant.FiniteRandomizer`): the same, with the
      blanket law of the matrix's worst input pair (:func:`finite_round_law`, the law of the
      single-round bound of :mod:`accountant.bounds.finite`) and its upper end times the
      law's rounding margin; the clone at the matrix's eps0 in the tail as above.

    The clone's values come from :func:`accountant.bounds.registry.clone_delta` (the
    single-round bound's own evaluation: at n near 1e10, where its window is over the cost
    limit, also at n / 2, proved by monotonicity in n).  The profile is symmetric
    (D(P||Q) = D(Q||P)) for both pairs.  Which of these a round composes is its randomizer
    type's :class:`RoundKind` (:data:`ROUND_KINDS`, one place).
    """
    return round_kind(type(spec.randomizer)).profile(spec)


def _blanket_profile(spec: RoundSpec, law, margin: float = 1.0,
                     every_dataset: bool = False) -> Callable[[float], tuple[float, float]]:
    """The profile of a round with the blanket count law ``law`` (None: the clone alone), its
    upper end times ``margin``; the random-hash law where the randomizer assumes it;
    ``every_dataset``: also binary RR's exact sup over every dataset (see :func:`round_profile`)."""
    params = spec.randomizer
    random_params = params if spec.hash_model == "random" else None
    min_bins = 1 if spec.n >= PROFILE_ONE_BIN_N else PROFILE_MIN_BINS

    settings = dict(target_delta=PROFILE_TARGET, bin_gap=PROFILE_BIN_GAP, min_bins=min_bins,
                    truncation=PROFILE_TRUNCATION)
    ev = lambda lw, e: positive_part(lw, spec.n, e, **settings)  # noqa: E731

    def profile(eps: float) -> tuple[float, float]:
        if law is None:
            return clone_delta(params, spec.n, eps)
        if eps >= law.eps_max:  # every v_c <= 0: delta = 0 (post-processing of eps0-LDP)
            return 0.0, 0.0
        return finish(eps, ev(law, eps))

    def many(eps_values) -> list[tuple[float, float]]:
        """``[profile(e) for e in eps_values]``, the blanket's values from one pass
        (:func:`accountant.engines.blanket.positive_part_many`: the same values, bit for bit)."""
        if law is None:
            return [profile(e) for e in eps_values]
        out = [(0.0, 0.0)] * len(eps_values)
        live = [i for i, e in enumerate(eps_values) if e < law.eps_max]
        values = positive_part_many(law, spec.n, [eps_values[i] for i in live], **settings)
        for i, b in zip(live, values):
            out[i] = finish(eps_values[i], b)
        return out

    def finish(eps: float, b) -> tuple[float, float]:
        """The profile's value at eps from the blanket's bracket ``b`` there."""
        if margin != 1.0:
            b = _Value(b.lower, min(b.upper * margin, 1.0))
        if random_params is not None:  # the four-corner law, at most the any-hash value
            lo, up = _rb.random_blanket_delta(random_params, spec.n, eps, (b.lower, b.upper), ev)
            b = _Value(lo, up)
        ex = exact_profile_value(spec.n, spec.eps0, eps) if every_dataset else None
        if ex is not None:  # binary RR, small n: the certified sup over every dataset
            b = _Value(min(b.lower, ex[0]), min(b.upper, ex[1]))
        if b.upper > PROFILE_TARGET:
            return b.lower, b.upper
        c_lo, c_up = clone_delta(params, spec.n, eps)
        up = min(c_up, b.upper)
        return min(b.lower, c_lo, up), up

    profile.many = many
    return profile


def _impure_profile(spec: RoundSpec) -> Callable[[float], tuple[float, float]]:
    """The profile of a finite round that is not pure LDP: the matrix's blanket bound with the
    outputs outside its support counted in full (:func:`accountant.bounds.finite.finite_upper_delta`,
    proof in docs/finite.md, 'Not pure LDP'), certified upper values at every eps; it tends to
    the +inf atom's mass (``outside_inf_mass``), not to 0.  No clone in the tail (no finite
    eps0).  Its upper value stands for both ends: the optimistic PLD is then the same bound's
    curve discretised the other way, which is what the spread measures."""
    from accountant.bounds.finite import finite_upper_delta

    def profile(eps: float) -> tuple[float, float]:
        up = finite_upper_delta(spec.randomizer, spec.n, eps).delta
        return up, up

    return profile


def support_cutoff(delta: float, rounds: int) -> float:
    """The cutoff of the rounds' supports in a composition of ``rounds`` rounds at total
    ``delta``: max(PROFILE_CUTOFF, CUTOFF_OF_DELTA * delta / rounds)."""
    return max(PROFILE_CUTOFF, CUTOFF_OF_DELTA * float(delta) / int(rounds))


def _impure_support(spec: RoundSpec, cutoff: float) -> float:
    """An eps beyond which the impure profile is within ``cutoff`` of its limit (the +inf
    atom's mass): doubling from 2^-10 up to 50, then halving back."""
    from accountant.bounds.finite_lattice import blanket_atoms, outside_inf_mass

    limit = outside_inf_mass(blanket_atoms(spec.randomizer))
    flat = lambda x: profile_value(spec, x)[1] <= limit + cutoff  # noqa: E731
    e = 2.0 ** -10
    while e < 50.0 and not flat(e):
        e *= 2.0
    return _shrink(flat, min(e, 50.0))


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


class _ProfileValues:
    """``profile_value(spec, eps)``: the round's profile at eps (:func:`round_profile`),
    remembered (the last ``maxsize`` values, like ``functools.lru_cache``, with its
    ``cache_clear``); ``profile_value.many(spec, eps_values)`` the values at many eps, those not
    remembered yet from one call of the profile's ``many`` where it has one (the blanket's: one
    pass over the shared count windows, the same values as one eps at a time)."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._values: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def cache_clear(self) -> None:
        with self._lock:
            self._values.clear()

    def _get(self, key):
        with self._lock:
            v = self._values.get(key)
            if v is not None:
                self._values.move_to_end(key)
            return v

    def _put(self, key, value) -> None:
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > self.maxsize:
                self._values.popitem(last=False)

    def __call__(self, spec: RoundSpec, eps: float) -> tuple[float, float]:
        v = self._get((spec, eps))
        if v is None:
            v = round_profile(spec)(eps)
            self._put((spec, eps), v)
        return v

    def many(self, spec: RoundSpec, eps_values) -> list[tuple[float, float]]:
        missing = list(dict.fromkeys(e for e in eps_values if self._get((spec, e)) is None))
        if missing:
            prof = round_profile(spec)
            got = prof.many(missing) if hasattr(prof, "many") else [prof(e) for e in missing]
            for e, v in zip(missing, got):
                self._put((spec, e), v)
        return [self(spec, e) for e in eps_values]


profile_value = _ProfileValues(maxsize=4096)


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
def profile_support(spec: RoundSpec, cutoff: float = PROFILE_CUTOFF) -> float:
    """An eps where the upper profile is <= ``cutoff`` (the profile beyond it goes to the +inf
    atom, so the choice affects tightness only, never validity; :func:`support_cutoff`).

    Near the cutoff the clone decides (the blanket's truncation floor is ~1e-20), and
    clone evaluations deep in the tail are costly: the search starts where Bennett's
    closed-form blanket bound (microseconds) is below the cutoff, moves up by doubling
    until the clone is below it too, then halves on the full profile
    (:func:`_bennett_support`; the randomizer type's :class:`RoundKind` says which closed form).
    """
    return round_kind(type(spec.randomizer)).support(spec, cutoff)


def _bennett_support(spec: RoundSpec, cutoff: float, cheap_params, cheap: str) -> float:
    """The support search from the closed-form bound ``cheap`` of ``cheap_params`` (proved for
    the round's randomizer): halved while it is below the cutoff when it applies to them
    (:func:`_halve_start` otherwise: OUE has no Bennett bound of its own), doubled while the
    clone is above it, then halved on the full profile."""
    params = spec.randomizer
    clone_below = lambda x: clone_delta(params, spec.n, x)[1] <= cutoff  # noqa: E731

    def bennett_below(x: float) -> bool:
        v = bound_delta(cheap, cheap_params, spec.n, x)
        return v is not None and v[1] <= cutoff

    own = cheap_params.name in REGISTRY[cheap].applies_to
    e = _shrink(bennett_below, spec.eps0) if own else _halve_start(spec, cutoff)
    while e < spec.eps0 and not clone_below(e):
        e = min(2.0 * e, spec.eps0)
    profile_below = lambda x: profile_value(spec, x)[1] <= cutoff  # noqa: E731
    while not own and e < spec.eps0 and not profile_below(e):   # see _halve_start
        e = min(2.0 * e, spec.eps0)
    return _shrink(profile_below, e)


def _halve_start(spec: RoundSpec, cutoff: float) -> float:
    """The support search's start for a mechanism without a Bennett bound of its own (OUE): eps0
    halved while the generic closed-form Bennett bound (microseconds, proved for every eps0-LDP
    randomizer) is below the cutoff at the half.  Before, OUE's search halved the full profile
    down from eps0, and those deep-tail evaluations were most of a composition's cost (n = 1.7e7:
    2.2 s of 3.6 s; the clone alone 0.9 s at eps = 0.5).  The support is the same: the search
    then doubles back while the clone or the profile is above the cutoff, so it resumes on the
    lattice eps0 2^-j at a point the halvings from eps0 would also have passed (the profile is
    non-increasing in eps), and halves from there as before."""
    gen = GenericLDP(spec.eps0)
    e = spec.eps0
    while e > 1e-6:
        v = bound_delta("blanket-bennett-generic", gen, spec.n, e / 2)
        if v is None or v[1] > cutoff:
            break
        e /= 2
    return e


@lru_cache(maxsize=256)
def round_pld(spec: RoundSpec, step: float, pessimistic: bool = True,
              samples: int = DEFAULT_STEPS, cutoff: float = PROFILE_CUTOFF) -> _pld.DiscretePLD:
    """Connect-the-dots PLD of one round on the composition grid of ``step``.

    The profile is sampled every ``m * step`` with the integer m chosen so that about
    ``samples`` samples cover the round's support (``profile_support(spec, cutoff)``; a round
    with a wide support does not cost more evaluations); the resulting losses lie on the grid
    of ``step``.
    """
    if pessimistic:
        base, m = sampled_pld(spec, step, samples, cutoff)
        return _pld.refine(base, m)
    support = profile_support(spec, cutoff)
    m = _sample_factor(support, step, samples)
    return _pld.from_profile(_sampler(spec), step * m, support, False, grid_step=step)


def _sample_factor(support: float, step: float, samples: int) -> int:
    """The integer m: the profile is sampled every ``m * step``, about ``samples`` samples."""
    return max(1, int(support / (samples * step) * (1.0 + 1e-12)))  # no 7.999... -> 7


@lru_cache(maxsize=256)
def sampled_pld(spec: RoundSpec, step: float, samples: int = DEFAULT_STEPS,
                cutoff: float = PROFILE_CUTOFF) -> tuple[_pld.DiscretePLD, int]:
    """(the pessimistic connect-the-dots PLD of one round on its sample grid ``m * step``, m):
    :func:`round_pld` (pessimistic) is it refined by m onto the grid of ``step`` (zeros between
    the samples).  Its losses are all multiples of ``m * step``, so identical rounds compose on
    the sample grid itself: the same distribution, FFTs m times shorter (and a smaller
    floating-point error bound, which grows with the FFT length)."""
    support = profile_support(spec, cutoff)
    m = _sample_factor(support, step, samples)
    return _pld.from_profile(_sampler(spec), step * m, support, True), m


def _sampler(spec: RoundSpec) -> Callable[[float], tuple[float, float]]:
    """The round's remembered profile at eps rounded to 15 decimals, with ``many`` (the values at
    many eps, :meth:`_ProfileValues.many`) for :func:`accountant.composition.pld.from_profile`."""
    def prof(e: float) -> tuple[float, float]:
        return profile_value(spec, round(e, 15))

    prof.many = lambda es: profile_value.many(spec, [round(e, 15) for e in es])  # type: ignore[attr-defined]
    return prof


# --------------------------------------------------------------------------- the kinds of rounds
class RoundKind:
    """How rounds of one randomizer type compose: ``law(spec)`` (:func:`round_law`),
    ``profile(spec)`` (:func:`round_profile`), ``support(spec, cutoff)``
    (:func:`profile_support`) and ``source(name, hash_model, pure)`` (:func:`round_source`).
    This one: the FMT21 clone pair alone (a generic eps0-LDP randomizer)."""

    def law(self, spec: RoundSpec):
        return None

    def profile(self, spec: RoundSpec) -> Callable[[float], tuple[float, float]]:
        return _blanket_profile(spec, None)

    def support(self, spec: RoundSpec, cutoff: float) -> float:
        return _bennett_support(spec, cutoff, spec.randomizer, "blanket-bennett-generic")

    def source(self, name: str, hash_model: str, pure: bool) -> str:
        return "clone (FMT21)"


class _RatioRound(RoundKind):
    """A variation-ratio class: the clone reduction with ratio p and mixing 1/q; no closed form
    starts the support search, which halves the clone from its eps_max (at most ln p)."""

    def support(self, spec: RoundSpec, cutoff: float) -> float:
        params = spec.randomizer
        clone_below = lambda x: clone_delta(params, spec.n, x)[1] <= cutoff  # noqa: E731
        return _shrink(clone_below, min(spec.eps0, clone_pair(params, spec.n).eps_max))

    def source(self, name: str, hash_model: str, pure: bool) -> str:
        return "clone (FMT21, ratio p, mixing 1/q)"


class _BlanketRound(RoundKind):
    """A mechanism with the exact blanket's count law (Collision, CoCo, k-RR, RR, OLH, OUE):
    min(exact blanket, clone), the random-hash law under its assumption, binary RR's every
    dataset at small n (the mechanisms of the registry's ``exact`` bound)."""

    def law(self, spec: RoundSpec):
        return blanket_law(spec.randomizer)

    def profile(self, spec: RoundSpec) -> Callable[[float], tuple[float, float]]:
        every = spec.mechanism in REGISTRY["exact"].applies_to
        return _blanket_profile(spec, self.law(spec), every_dataset=every)

    def support(self, spec: RoundSpec, cutoff: float) -> float:
        return _bennett_support(spec, cutoff, spec.randomizer, "blanket-bennett")

    def source(self, name: str, hash_model: str, pure: bool) -> str:
        if hash_model == "random":
            return ("min(blanket of the four-corner law dominating the random-hash law (a proved "
                    "relaxation, exact for OLH), clone (FMT21)); "
                    f"assumption: {ASSUMPTION['random']}")
        if name in REGISTRY["exact"].applies_to:
            return ("min(exact blanket, clone (FMT21), and at n <= 1200 the exact sup over every dataset "
                    "(accountant.engines.two_input.EveryDataset))")
        return "min(exact blanket, clone (FMT21))"


class _MatrixRound(RoundKind):
    """A finite matrix: its blanket law for the worst input pair times its rounding margin, the
    clone at its eps0 in the tail; not pure LDP: its blanket bound alone (:func:`_impure_profile`)."""

    def profile(self, spec: RoundSpec) -> Callable[[float], tuple[float, float]]:
        if not spec.randomizer.pure:
            return _impure_profile(spec)
        law, margin = finite_round_law(spec)
        if margin == 0.0:  # every row the same: the reports say nothing
            return lambda eps: (0.0, 0.0)
        return _blanket_profile(spec, law, margin)

    def support(self, spec: RoundSpec, cutoff: float) -> float:
        if not spec.randomizer.pure:
            return _impure_support(spec, cutoff)
        # a finite randomizer is eps0-LDP: the generic closed form holds
        return _bennett_support(spec, cutoff, GenericLDP(spec.eps0), "blanket-bennett-generic")

    def source(self, name: str, hash_model: str, pure: bool) -> str:
        if not pure:
            return ("blanket of the matrix on its support, outputs outside it counted in full "
                    "(accountant.bounds.finite; not pure LDP: no clone)")
        return "min(blanket of the matrix (accountant.bounds.finite), clone (FMT21))"


ROUND_KINDS = {GenericLDP: RoundKind(), VariationRatioParams: _RatioRound(),
               CollisionParams: _BlanketRound(), CoCoParams: _BlanketRound(), KRRParams: _BlanketRound(),
               OUEParams: _BlanketRound(), FiniteRandomizer: _MatrixRound()}
"""The kind of round of each randomizer type (a subclass takes its base's: OLH is Collision's)."""
ROUND_KINDS[LaplaceParams] = RoundKind()   # eps0-LDP: the clone pair's profile (proved, not the blanket's)


class _PairBlanketRound(_BlanketRound):
    """PCKV-GRR, PCKV-UE: min(the per-pair randomizer's blanket (docs/proved.md, key-value
    baselines), clone); the support is searched from the generic closed form (no (s, t) output
    structure)."""

    def support(self, spec: RoundSpec, cutoff: float) -> float:
        return _bennett_support(spec, cutoff, GenericLDP(spec.eps0), "blanket-bennett-generic")

    def source(self, name: str, hash_model: str, pure: bool) -> str:
        return "min(blanket of the per-pair randomizer, clone (FMT21))"


ROUND_KINDS[PCKVGRRParams] = ROUND_KINDS[PCKVUEParams] = _PairBlanketRound()
ROUND_KINDS[PCKVAGRRParams] = _PairBlanketRound()  # the whole randomizer's blanket (the same engine)


def round_kind(cls: type) -> RoundKind:
    """The :class:`RoundKind` of the randomizer type ``cls`` (the first of its bases in
    :data:`ROUND_KINDS`); ValueError for a type no round profile is registered for."""
    for base in cls.__mro__:
        if base in ROUND_KINDS:
            return ROUND_KINDS[base]
    raise ValueError(f"no round profile for a {cls.__name__} (register its RoundKind in "
                     "accountant.composition.profile.ROUND_KINDS)")


def round_source(spec, hash_model: str = "any", pure: bool = True) -> str:
    """Name of the per-round profile composed for the round ``spec`` (captions, JSON), or for a
    mechanism name with ``hash_model`` and ``pure`` (False: a finite matrix that is not pure LDP,
    no clone: it has no finite eps0).

    Examples
    --------
    >>> from accountant import RoundSpec
    >>> from accountant.composition.profile import round_source
    >>> round_source(RoundSpec(1000, 1.0, "krr", k=4)), round_source("generic")
    ('min(exact blanket, clone (FMT21))', 'clone (FMT21)')
    """
    if isinstance(spec, RoundSpec):
        pure = getattr(spec.randomizer, "pure", True)  # a matrix says; a named mechanism is pure LDP
        return round_kind(type(spec.randomizer)).source(spec.mechanism, spec.hash_model, pure)
    name = spec
    if name not in ALL_ROUND_MECHANISMS:
        raise ValueError(f"mechanism must be one of {', '.join(ALL_ROUND_MECHANISMS)}, got {name!r}")
    cls = FiniteRandomizer if name == FiniteRandomizer.name else mechanism_spec(name).type
    return round_kind(cls).source(name, check_hash_model(hash_model, name), pure)
