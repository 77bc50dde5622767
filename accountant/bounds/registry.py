"""Every central-epsilon bound under one name, with what is proved about it as data.

One registry, :data:`REGISTRY`, holds a :class:`BoundSpec` per bound.  What users must
know is data on the entry, not code spread over modules:

* ``kind``: ``"upper"`` (an upper bound on eps_c where it is proved; ``"exact"``: an upper
  bound that is also the truth), ``"lower"`` (a
  lower bound on eps_c: of the mechanism, the worst hash family or the worst randomizer of
  a class, :mod:`.labels`) or ``"paper"`` (the paper's Theorem 5 value, reported under its
  own name and never as ``epsilon``);
* ``proved_for``: the mechanisms for which the statement is a theorem (an upper bound: *for
  the mechanism as implemented*, for Collision and CoCo every hash family, including the
  SplitMix64 one of :mod:`mechanisms.randomizers.collision`; a lower bound: certified for
  what its label names).  The words every surface prints are :func:`.labels.kind_label`'s;
* ``reference`` and ``validity``: the paper and the stated range.

"Which bound is proved for this mechanism" is then a query (:func:`proved_upper_bounds`),
and the headline number of every surface (``epsilon`` in the CLI, ``get_epsilon``, the
planner, tables, dashboard) is :func:`proved_epsilon`: the smallest proved upper bound.

Names (the command-line contract, ``--bound NAME``):

===========================  ==========================================================
name                         bound
===========================  ==========================================================
blanket                      privacy blanket computed exactly (BBGN19 Lemma; worst case
                             over hash families by convex order, accountant.engines.blanket)
lower                        certified lower bound for the real mechanism (exact
                             divergence of post-processed shuffled outputs on concrete
                             neighbouring datasets, accountant.bounds.laws.worst_hash)
paper                        the paper's Theorem 5 pair (stronger clone pair for
                             ``generic``); alias ``tight`` (deprecated name)
lower-worst-hash             certified lower bound for the worst hash family (one fixed
                             clean hash): the floor under any bound proved for every family
theorem6-lower               Theorem 6's lower bound, for its own hash family only
stronger-clone               Feldman-McMillan-Talwar 2023, numerical (erratum: not proved)
stronger-clone-closed        its closed form (erratum: not applicable)
clone                        Feldman-McMillan-Talwar 2021, numerical, exact pair
clone-closed                 its closed form
blanket-hoeffding-generic    Balle et al. 2019, Hoeffding, generic eps0-LDP
blanket-bennett-generic      Balle et al. 2019, Bennett, generic eps0-LDP
blanket-hoeffding            Balle et al. 2019, Hoeffding, mechanism-specific quantities
blanket-bennett              Balle et al. 2019, Bennett, mechanism-specific quantities
efmrtt19                     Erlingsson et al. 2019 closed form
exact                        binary RR: maximum over every dataset, bracket <= 1e-6
                             (n <= 1e4, accountant.bounds.binary_exact)
search                       binary RR: every-dataset search to a certified bracket
                             wider than 1e-6 (1e4 < n <= 1e6, or a chart's rtol), its upper end
clone-approximate            any (eps0, delta0)-LDP randomizer (--delta0): FMT21 Theorem 3.8,
                             the clone pair plus (e^eps + 1)(1 + e^-eps0/2) n delta0
===========================  ==========================================================
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable, Optional

from accountant.bounds import blanket_relaxations as blanket
from accountant.bounds import closed_form
from accountant.bounds.agreement import agree_with_delta
from accountant.bounds.exact_bounds import (  # noqa: F401 (BLANKET_RTOL, chart_truncation: re-exported)
    BLANKET_RTOL, CHART_RTOL, beyond_engine, binary_exact_module, blanket_bound, blanket_delta, chart_truncation,
    lower_bound, lower_delta, mechanism_blanket_law, pair_module, worst_hash_bound, worst_hash_delta)
from accountant.bounds.clone_bound import (  # noqa: F401 (re-exported: the clone's pair and delta)
    CLONE_MAX_HALVINGS, CLONE_MIN_FEWER, WINDOW_NOTE, clone_bound as _clone, clone_delta, clone_pair)
from accountant.bounds import approximate_ldp
from accountant.bounds.headline_screen import screened_out
from accountant.core.caveats import CAVEAT_THEOREM6
from accountant.core.dispatch import for_type, parameter_type, supports
from accountant.core.finite import FiniteRandomizer
from accountant.core.params import (
    mechanism_names,
    CoCoParams,
    CollisionParams,
    ApproximateLDP,
    GenericLDP,
    GaussianParams, KRRParams, LaplaceParams,
    OUEParams,
    Params,
    PiecewiseParams,
    VariationRatioParams,
    validate_delta,
    validate_n,
    make_params,
)
from accountant.core.result import BoundResult

# the mechanisms of the paper's pair (Theorem 1 / Theorem 5: a mixture weight)
ALL = mechanism_names(paper_pair=True)
HASHED = mechanism_names(hashed=True)  # mechanisms with the t-ary output structure
OWN_BLANKET = mechanism_names(own_blanket=True)  # the key-value baselines (docs/proved.md)
BINARY = mechanism_names(two_valued=True)  # binary RR's shuffled view (rr; Duchi et al.'s randomizer)
# the bounds that hold for every eps0-LDP randomizer (only eps0 enters them); "finite" is any
# pure-LDP randomizer given as its matrix (accountant.bounds.finite)
LDP = mechanism_names(ldp=True) + ("finite",)
ALIASES = {"tight": "paper"}


@dataclass(frozen=True)
class BoundSpec:
    """One bound of the registry: what it is, for which mechanisms it is proved, how to compute it.

    ``epsilon(params, n, delta, rtol)`` returns a :class:`BoundResult`;
    ``delta(params, n, eps)`` (optional) returns ``(lower, upper)`` bounds on the bound's
    delta at ``eps`` (both certified for the bound's own computation).  ``engine`` says what
    one evaluation costs: ``"closed-form"`` (a formula or a one-dimensional root, about a
    millisecond), ``"pair"`` (a search of the pair engine, :mod:`accountant.engines.pair`:
    0.01-0.1 s at n = 1e9) or ``"exact"`` (the exact blanket engine,
    :mod:`accountant.engines.blanket`: 0.05-0.5 s at n = 1e9), so that a page can draw the cheap
    ones first.

    Examples
    --------
    >>> from accountant import REGISTRY
    >>> spec = REGISTRY["blanket"]
    >>> print(spec.kind, spec.engine, spec.proved("collision"), spec.proved("generic"))
    upper exact True False
    """

    name: str
    kind: str
    proved_for: tuple
    applies_to: tuple
    reference: str
    epsilon: Callable[..., BoundResult]
    delta: Optional[Callable[..., tuple]] = None
    caveat: Optional[str] = None
    engine: str = "closed-form"
    cite: tuple = ()  # BibTeX keys of accountant.bounds.references (the papers a table's head cites)
    # proved for (eps0, delta0)-LDP randomizers too (ApproximateLDP: delta0 > 0); the others are refused there
    approximate: bool = False

    def proved(self, mechanism: str) -> bool:
        return mechanism in self.proved_for


# --------------------------------------------------------------------------- computations


def _paper(params, n, delta, rtol) -> BoundResult:
    # at a chart's tolerance the search skips the lower end Theorem 6 would certify
    res = pair_module().pair_epsilon_result(params, n, delta, rtol, rtol < CHART_RTOL)
    return BoundResult("paper", res.epsilon, True, res.caveat, delta, res.achieved_delta)


def _paper_delta(params, n, eps):
    v = pair_module().PairAccountant(params, n).divergence(eps)
    return v.lower, min(v.upper, 1.0)


# what Theorem 6 needs, by the exact parameter type it is stated for (OLH is not one of them)
_THEOREM6_NEEDS = {CollisionParams: "Theorem 6 needs t >= 3s",
                   CoCoParams: "the paper states equality for CoCo only when t >= 4s"}


def _theorem6(params, n, delta, rtol) -> BoundResult:
    if not params.theorem6_applies:
        needs = _THEOREM6_NEEDS.get(type(params))
        why = (f"{needs} (t = {params.t}, s = {params.s})" if needs else
               f"Theorem 6 is stated for Collision and CoCo, not for mechanism '{params.name}'")
        return BoundResult.not_applicable("theorem6-lower", why, delta)
    res = pair_module().pair_epsilon_result(params, n, delta, rtol)
    ok = res.lower_epsilon is not None
    return BoundResult("theorem6-lower", res.lower_epsilon, ok,
                       CAVEAT_THEOREM6 if ok else "no certified lower point found", delta)


def _stronger_clone(params, n, delta, rtol) -> BoundResult:
    res = pair_module().pair_epsilon_result(GenericLDP(params.eps0), n, delta, rtol)
    return BoundResult("stronger-clone", res.epsilon, True, res.caveat, delta, res.achieved_delta)


def _strongerclone_delta(params, n, eps):
    return _paper_delta(GenericLDP(params.eps0), n, eps)


def _specific_st(params) -> tuple[int, int]:
    """(s, t) of the t-ary output structure (k-RR: s = 1, t = k)."""
    return params.s, params.t


def _specific(fn, name):
    def run(params, n, delta, rtol) -> BoundResult:
        s, t = _specific_st(params)
        return fn(n, params.eps0, delta, s, t)
    return run


def _generic(fn):
    def run(params, n, delta, rtol) -> BoundResult:
        return fn(n, params.eps0, delta)
    return run


_CAVEAT_WORST_HASH = ("lower bound for the worst hash family (one fixed clean hash), not for the "
                      "SplitMix64 family: no bound proved for every hash family can be smaller")

_CAVEAT_STRONGER = ("not proved for every eps0-LDP randomizer (FMT23 erratum: Lemma 3.5's proof fails "
                    "below weight 1/(e^eps0+1)); shown for comparison")

REGISTRY: dict[str, BoundSpec] = {spec.name: spec for spec in (
    BoundSpec("blanket", "upper", HASHED + ("oue", "finite", "laplace", "piecewise", "gaussian") + OWN_BLANKET,
              HASHED + ("oue", "finite", "laplace", "piecewise", "gaussian") + OWN_BLANKET,
              "Balle, Bell, Gascon, Nissim, CRYPTO 2019 (blanket lemma), evaluated exactly; worst case "
              "over hash families by convex order (accountant.engines.blanket); optimal among "
              "decomposition-based bounds (Su, Cheng, Wang, S&P 2026)",
              blanket_bound, blanket_delta, engine="exact", cite=("balle2019blanket", "su2026decomposition")),
    BoundSpec("lower", "lower", LDP + ("variation-ratio", "gaussian"), LDP + ("variation-ratio", "gaussian"),
              "exact divergence of post-processed shuffled outputs on concrete neighbouring datasets "
              "(data processing), uniformly random hashing (accountant.bounds.laws.worst_hash); for 'generic' the "
              "lower bound of binary randomized response, one eps0-LDP randomizer of the class",
              lower_bound, lower_delta, engine="exact", approximate=True),
    BoundSpec("lower-worst-hash", "lower", ("collision", "coco", "olh"), ("collision", "coco", "olh"),
              "exact divergence of post-processed shuffled outputs under one fixed clean hash "
              "(accountant.bounds.laws.worst_hash_lower_law): certified lower bound on eps_c of the "
              "worst hash family, so the exact blanket is optimal among bounds for every family",
              worst_hash_bound, worst_hash_delta, caveat=_CAVEAT_WORST_HASH, engine="exact"),
    BoundSpec("paper", "paper", (), ALL,
              "Wang et al. (numerical vector analyses, shuffle model), Theorem 5 (Collision, CoCo; Section 7.4); stronger clone pair (FMT23) "
              "for generic", _paper, _paper_delta, engine="pair", cite=("wang2023numerical",)),
    BoundSpec("theorem6-lower", "lower", (), ("collision", "coco"),
              "Wang et al. (numerical vector analyses, shuffle model), Theorem 6 (lower bound for the hash family of its proof)", _theorem6,
              caveat=CAVEAT_THEOREM6, engine="pair", cite=("wang2023numerical",)),
    BoundSpec("stronger-clone", "upper", (), ALL,
              "Feldman, McMillan, Talwar, SODA 2023 (numerical pair)", _stronger_clone,
              _strongerclone_delta, caveat=_CAVEAT_STRONGER, engine="pair", cite=("feldman2023stronger",)),
    BoundSpec("stronger-clone-closed", "upper", (), ALL,
              "Feldman, McMillan, Talwar, SODA 2023 (closed form)",
              _generic(closed_form.stronger_clone_closed), caveat=_CAVEAT_STRONGER, cite=("feldman2023stronger",)),
    BoundSpec("clone", "upper", LDP + ("variation-ratio",), LDP + ("variation-ratio",),
              "Feldman, McMillan, Talwar, FOCS 2021, Theorem 3.2 (pair evaluated exactly; for "
              "variation-ratio parameters the same reduction with mixing 1/q and ratio p)",
              _clone, clone_delta, engine="pair", cite=("feldman2021hiding",)),
    BoundSpec("clone-closed", "upper", LDP, LDP,
              "Feldman, McMillan, Talwar, FOCS 2021, closed form (within its condition on n)",
              _generic(closed_form.clone_closed), cite=("feldman2021hiding",)),
    BoundSpec("blanket-hoeffding-generic", "upper", LDP, LDP,
              "Balle, Bell, Gascon, Nissim, CRYPTO 2019, Hoeffding, generic eps0-LDP quantities",
              _generic(blanket.blanket_hoeffding_generic),
              lambda p, n, e: blanket.hoeffding_delta(p, n, e, True), cite=("balle2019blanket",)),
    BoundSpec("blanket-bennett-generic", "upper", LDP, LDP,
              "Balle, Bell, Gascon, Nissim, CRYPTO 2019, Bennett, generic eps0-LDP quantities",
              _generic(blanket.blanket_bennett_generic),
              lambda p, n, e: blanket.bennett_delta(p, n, e, True), cite=("balle2019blanket",)),
    BoundSpec("blanket-hoeffding", "upper", HASHED, HASHED,
              "Balle, Bell, Gascon, Nissim, CRYPTO 2019, Hoeffding, with gamma = t/Omega and the exact "
              "range (accountant.bounds.blanket_relaxations.collision_rv)",
              _specific(blanket.blanket_hoeffding, "blanket-hoeffding"),
              lambda p, n, e: blanket.hoeffding_delta(p, n, e, False), cite=("balle2019blanket",)),
    BoundSpec("blanket-bennett", "upper", HASHED, HASHED,
              "Balle, Bell, Gascon, Nissim, CRYPTO 2019, Bennett, with gamma = t/Omega and the exact "
              "maximum and second moment (accountant.bounds.blanket_relaxations.collision_rv)",
              _specific(blanket.blanket_bennett, "blanket-bennett"),
              lambda p, n, e: blanket.bennett_delta(p, n, e, False), cite=("balle2019blanket",)),
    BoundSpec("efmrtt19", "upper", LDP, LDP,
              "Erlingsson, Feldman, Mironov, Raghunathan, Talwar, Thakurta, SODA 2019 (eps0 <= 1/2)",
              _generic(closed_form.efmrtt19), cite=("erlingsson2019amplification",)),
    BoundSpec("exact", "exact", BINARY, BINARY, "maximum over every dataset of binary RR (m others "
              "holding user 1's input) by a certified branch and bound (accountant.bounds.binary_exact)",
              lambda p, n, d, r: binary_exact_module().exact_bound(p, n, d, r), lambda p, n, e: binary_exact_module().exact_bound_delta(p, n, e)),
    BoundSpec("search", "upper", BINARY, BINARY, "every-dataset search of binary RR to a certified "
              "bracket (its upper end for every m, its lower end a named dataset), where the bracket is wider "
              "than the exact bound's 1e-6 (accountant.bounds.binary_exact.search_bound)",
              lambda p, n, d, r: binary_exact_module().search_bound(p, n, d, r),
              lambda p, n, e: binary_exact_module().search_bound_delta(p, n, e)),
    BoundSpec(approximate_ldp.NAME, "upper", ("generic",), ("generic",),
              "Feldman, McMillan, Talwar, FOCS 2021, Theorem 3.8 (any (eps0, delta0)-LDP randomizer): the "
              "clone pair of Theorem 3.2 evaluated exactly, plus (e^eps + 1)(1 + e^-eps0/2) n delta0 in delta",
              approximate_ldp.approximate_clone_bound, approximate_ldp.approximate_clone_delta, engine="pair",
              cite=("feldman2021hiding",), approximate=True),
)}
"""Every bound by name: a :class:`BoundSpec` with its kind, the mechanisms it is proved for
and applies to, its reference and how to compute it (proof status as data)."""

BOUND_NAMES = tuple(REGISTRY)
"""The names of the registry's bounds, in the order of :data:`REGISTRY`."""
UPPER_BOUNDS = tuple(b for b, s in REGISTRY.items() if s.kind in ("upper", "paper", "exact"))
COMPARISON_BOUNDS = tuple(b for b, s in REGISTRY.items() if s.kind == "upper")
# The bounds whose minimum is the headline number, registered per parameter type (the others
# are relaxations of these or weaker on every point checked; all proved ones stay available by
# name).  A type's headline is its registered bounds that apply to the mechanism's name (binary
# RR's every-dataset bounds lead k-RR's list and apply to 'rr' alone); its delta headline is
# those of them with a delta form.
_HEADLINES: dict = {}


def register_headline(cls: type, bounds: tuple) -> None:
    """Register the headline bounds of parameter type ``cls`` (and of its subclasses without
    their own), in the order they are tried."""
    unknown = [b for b in bounds if b not in REGISTRY]
    if unknown:
        raise ValueError(f"bounds must be names of the registry, got {unknown}")
    _HEADLINES[cls] = tuple(bounds)


register_headline(GenericLDP, ("clone", "blanket-bennett-generic", "efmrtt19"))
register_headline(KRRParams, ("exact", "search", "blanket", "clone", "efmrtt19"))
_BLANKET_FIRST = ("blanket", "clone", "efmrtt19")
register_headline(VariationRatioParams, ("clone",))
from accountant.core.randomizers_keyvalue import PCKVAGRRParams, PCKVGRRParams, PCKVUEParams, PrivKVParams  # noqa: E402
# OLH with Collision; the key-value baselines' own blanket; Laplace's: accountant.bounds.continuous
for _cls in (CollisionParams, CoCoParams, OUEParams, FiniteRandomizer, PCKVGRRParams, PCKVUEParams,
             PCKVAGRRParams, PrivKVParams, LaplaceParams):
    register_headline(_cls, _BLANKET_FIRST)
register_headline(ApproximateLDP, (approximate_ldp.NAME,))
_APPROXIMATE = tuple(b for b, spec in REGISTRY.items() if spec.approximate)  # the bounds for (eps0, delta0)-LDP
register_headline(PiecewiseParams, ("blanket", "clone", "blanket-bennett-generic", "efmrtt19"))
register_headline(GaussianParams, ("blanket",))   # not pure LDP: no eps0-LDP bound applies


def _headline(cls: type, mechanism: str) -> tuple:
    """The headline bounds of type ``cls`` that apply to ``mechanism`` (its name)."""
    bounds = for_type(_HEADLINES, cls, "a headline bound")
    return tuple(b for b in bounds if mechanism in REGISTRY[b].applies_to)


def headline_bounds(mechanism) -> tuple:
    """The bounds whose minimum is the proved eps_c of ``mechanism`` (a name, or a parameter
    object: :func:`proved_epsilon`).

    Examples
    --------
    >>> from accountant.bounds.registry import headline_bounds
    >>> headline_bounds("krr"), headline_bounds("rr")
    (('blanket', 'clone', 'efmrtt19'), ('exact', 'search', 'blanket', 'clone', 'efmrtt19'))
    """
    if isinstance(mechanism, str):
        return _headline(parameter_type(mechanism), mechanism)
    return _headline(type(mechanism), mechanism.name)


def _headline_at(params, n: int) -> tuple:
    """The headline's bounds at n: binary RR's ``exact`` up to its n, ``search`` up to its own (below
    ``exact``'s n it answers a precision coarser than exact's, else it is not applicable at once)."""
    be = binary_exact_module()
    return tuple(b for b in headline_bounds(params) if (b != "exact" or n <= be.HEADLINE_MAX_N)
                 and (b != "search" or n <= be.LARGE_HEADLINE_MAX_N))


def resolve_name(name: str) -> str:
    """The registry name for ``name`` (accepts the deprecated alias ``tight`` for ``paper``)."""
    name = ALIASES.get(name, name)
    if name not in REGISTRY:
        raise ValueError(f"bound must be one of {', '.join(BOUND_NAMES)}, got {name!r}")
    return name


def proved_upper_bounds(mechanism: str) -> tuple:
    """Names of the bounds that are proved upper bounds for ``mechanism`` (a query on the data)."""
    return tuple(b for b, s in REGISTRY.items() if s.kind in ("upper", "exact") and s.proved(mechanism))


def status(name: str, mechanism: str) -> dict:
    """What is proved about bound ``name`` for ``mechanism``, as data for tables and pages.

    Examples
    --------
    >>> from accountant import status
    >>> st = status("paper", "collision")
    >>> print(st["kind"], st["proved"])
    paper False
    >>> status("blanket", "collision")["proved"]
    True
    """
    spec = REGISTRY[resolve_name(name)]
    return {"name": spec.name, "kind": spec.kind, "proved": spec.proved(mechanism),
            "reference": spec.reference, "caveat": spec.caveat}


def _not_for(name: str, params: Params, delta) -> Optional[BoundResult]:
    spec = REGISTRY[name]
    if (getattr(params, "delta0", None) or 0.0) > 0.0 and not spec.approximate:
        return BoundResult.not_applicable(name, approximate_ldp.pure_refusal(name, _APPROXIMATE), delta)
    if name == approximate_ldp.NAME and getattr(params, "delta0", None) is None:
        return BoundResult.not_applicable(name, f"bound '{name}' is for an (eps0, delta0)-LDP randomizer "
                                                "(--delta0); an eps0-LDP one has the clone bound", delta)
    if params.name not in spec.applies_to:
        return BoundResult.not_applicable(
            name, f"bound '{name}' is not available for mechanism '{params.name}' "
                  f"(available for: {', '.join(spec.applies_to)})", delta)
    if not math.isfinite(params.eps0) and name not in ("blanket", "lower"):  # a matrix, not pure LDP
        return BoundResult.not_applicable(
            name, f"{params.label} is not pure LDP (eps0 infinite): '{name}' needs an eps0-LDP "
                  "randomizer; the matrix's blanket answers", delta)
    return None


def compute_params_bound(name: str, params: Params, n: int, delta: float, rtol: float = 1e-9) -> BoundResult:
    """Bound ``name`` for a parameter object (validated ``n`` and ``delta``); timed."""
    name = resolve_name(name)
    t0 = time.perf_counter()
    res = _not_for(name, params, delta) or REGISTRY[name].epsilon(params, n, delta, rtol)
    if res.applicable and res.epsilon is not None and REGISTRY[name].kind != "lower" \
            and res.epsilon > params.eps0:
        res = BoundResult(res.name, params.eps0, True, closed_form.NO_AMPLIFICATION, delta, 0.0)
    if rtol < CHART_RTOL:  # the delta form at this eps is <= delta too (one number, .agreement)
        res = agree_with_delta(REGISTRY[name], params, n, delta, res, rtol, closed_form.NO_AMPLIFICATION)
    return BoundResult(name, res.epsilon, res.applicable, res.reason, res.delta,
                       res.achieved_delta, time.perf_counter() - t0)


def compute_bound(name: str, n: int, eps0: float, delta: float, mechanism: str = "generic",
                  s: Optional[int] = None, t: Optional[int] = None, rtol: float = 1e-9,
                  k: Optional[int] = None, d: Optional[int] = None) -> BoundResult:
    """Central epsilon from bound ``name`` for n shuffled reports (see module table).

    Returns a ``BoundResult`` with the wall-clock ``seconds`` it took; a bound outside
    its range of validity is returned as not applicable with the reason.  ``d`` (Collision,
    CoCo: the dimension) is what the lower bounds' datasets need (d >= 3s; without it they
    are not applicable); the upper bounds do not depend on it.

    Examples
    --------
    >>> from accountant import compute_bound, fmt
    >>> r = compute_bound("blanket", 100_000, 2.0, 1e-6, mechanism="krr", k=4)
    >>> print(r.name, fmt(r.epsilon, 4, "up"))
    blanket 0.02957
    >>> compute_bound("stronger-clone", 10, 1.0, 1e-6).applicable
    True
    """
    name = resolve_name(name)
    n = validate_n(n)
    delta = validate_delta(delta)
    params = make_params(mechanism, eps0, s=s, t=t, k=k, d=d)
    return compute_params_bound(name, params, n, delta, rtol)


def bound_delta(name: str, params: Params, n: int, eps: float) -> Optional[tuple]:
    """(lower, upper) on bound ``name``'s delta at ``eps``; None if the bound has no delta form."""
    name = resolve_name(name)
    spec = REGISTRY[name]
    if spec.delta is None or params.name not in spec.applies_to or \
            ((getattr(params, "delta0", None) or 0.0) > 0.0 and not spec.approximate):
        return None
    if not math.isfinite(params.eps0) and name not in ("blanket", "lower"):
        return None  # eps0 infinite (a matrix, not pure LDP): only the matrix's blanket (see _not_for)
    if eps >= params.eps0 and spec.kind == "upper":
        return 0.0, (getattr(params, "delta0", None) or 0.0)  # (eps0, delta0)-DP by post-processing
    return spec.delta(params, n, eps)


def compare(n: int, eps0: float, delta: float, mechanism: str = "generic", s: Optional[int] = None,
            t: Optional[int] = None, bounds=BOUND_NAMES, rtol: float = 1e-9,
            k: Optional[int] = None, d: Optional[int] = None) -> dict[str, BoundResult]:
    """All requested bounds on the same inputs (``d``: see :func:`compute_bound`).

    Examples
    --------
    >>> from accountant import compare, fmt
    >>> res = compare(10_000, 1.0, 1e-6, bounds=("clone", "stronger-clone"))
    >>> for name, r in res.items():
    ...     print(name, fmt(r.epsilon, 4, "up"))
    ...
    clone 0.05301
    stronger-clone 0.04321
    """
    return {resolve_name(b): compute_bound(b, n, eps0, delta, mechanism, s, t, rtol, k, d) for b in bounds}


def compare_params(params: Params, n: int, delta: float, bounds=BOUND_NAMES,
                   rtol: float = 1e-9) -> dict[str, BoundResult]:
    """All requested bounds for a parameter object (validated ``n`` and ``delta``)."""
    n, delta = validate_n(n), validate_delta(delta)
    return {resolve_name(b): compute_params_bound(b, params, n, delta, rtol) for b in bounds}


def best_proved(results: dict[str, BoundResult], mechanism: str) -> Optional[BoundResult]:
    """The smallest applicable bound among those proved for ``mechanism``.

    Examples
    --------
    >>> from accountant import best_proved, compare
    >>> res = compare(10_000, 1.0, 1e-6, bounds=("clone", "stronger-clone", "paper"))
    >>> best_proved(res, "generic").name
    'clone'
    """
    proved = proved_upper_bounds(mechanism)
    cands = [r for b, r in results.items() if b in proved and r.applicable and r.epsilon is not None]
    return min(cands, key=lambda r: r.epsilon) if cands else None


@lru_cache(maxsize=1024)
def _proved_cached(params: Params, n: int, delta: float, rtol: float) -> Optional[BoundResult]:
    res: dict = {}
    for b in _headline_at(params, n):  # a costly bound proved above the best so far is not searched (.headline_screen)
        skip = None if _not_for(b, params, delta) else screened_out(
            REGISTRY[b], best_proved(res, params.name), params, n, delta, lambda e: bound_delta(b, params, n, e))
        res[b] = skip or compute_params_bound(b, params, n, delta, rtol)
    best = best_proved(res, params.name)
    out = binary_exact_module().OUT_OF_BUDGET
    spent = [f"{b}: {r.reason}" for b, r in res.items() if not r.applicable and (r.reason or "").startswith(out)]
    if best is not None and spent:  # said, never hidden: the number is a looser bound's
        note = (f"{'; '.join(spent)}; so eps_c is the bound '{best.name}' (the search would have "
                "certified a number at or below it)") + (f"; {best.reason}" if best.reason else "")
        best = replace(best, reason=note, exhausted="; ".join(spent))
    return best


#: the tolerance at which the forward commands certify and print the headline (``epsilon``'s
#: ``--rtol`` default, :meth:`accountant.ShuffleAccountant.get_epsilon`'s): the inverses
#: (``local-epsilon``, ``users``, the planner) test this very number
FORWARD_RTOL = 1e-9


def certified_epsilon(params: Params, n: int, delta: float) -> BoundResult:
    """The headline eps_c as the forward commands certify and print it: the smallest proved
    upper bound at ``FORWARD_RTOL`` (:func:`proved_params_epsilon`), or eps0 by post-processing
    (named ``"post-processing"``) where no bound applies.  The one function every inverse
    inverts: an eps0 or n that an inverse returns has this number <= its target.

    Examples
    --------
    >>> from accountant import fmt, make_params
    >>> from accountant.bounds.registry import certified_epsilon
    >>> r = certified_epsilon(make_params("krr", 2.0, k=4), 100_000, 1e-6)
    >>> print(r.name, fmt(r.epsilon, 4, "up"))
    blanket 0.02957
    """
    r = proved_params_epsilon(params, n, delta, FORWARD_RTOL)
    if r is None or not r.applicable or r.epsilon is None:
        return BoundResult("post-processing", params.eps0, True, None, delta, (getattr(params, "delta0", None) or 0.0))
    return r


def proved_params_epsilon(params: Params, n: int, delta: float, rtol: float = 1e-9) -> Optional[BoundResult]:
    """The smallest proved upper bound on eps_c (the headline number) for a parameter object."""
    return _proved_cached(params, validate_n(n), validate_delta(delta), float(rtol))


def proved_epsilon(n: int, eps0: float, delta: float, mechanism: str = "generic", s: Optional[int] = None,
                   t: Optional[int] = None, rtol: float = 1e-9, k: Optional[int] = None) -> Optional[BoundResult]:
    """The smallest proved upper bound on eps_c (see :func:`proved_upper_bounds`).

    Examples
    --------
    >>> from accountant import fmt, proved_epsilon
    >>> r = proved_epsilon(100_000, 2.0, 1e-6, mechanism="krr", k=4)
    >>> print(r.name, fmt(r.epsilon, 4, "up"))
    blanket 0.02957
    """
    return proved_params_epsilon(make_params(mechanism, eps0, s=s, t=t, k=k), n, delta, rtol)


def proved_delta(params: Params, n: int, eps: float, exact_max_n: Optional[int] = None) -> tuple[float, str]:
    """The smallest proved upper bound on delta at ``eps`` and the bound that gives it.
    ``exact_max_n``: binary RR's search over every dataset (``exact``, ``search``: a branch and bound of
    0.2-1 s a call: a deployment profile of 110 points took 150 s at n = 1e4) only up to this n,
    for the callers that evaluate many points (deployments); above it the answer is the other
    bounds', still certified.  None: wherever the registry uses it."""
    best = (1.0, "trivial")
    for b in (x for x in _headline_at(params, n) if REGISTRY[x].delta is not None
              and (x not in ("exact", "search") or exact_max_n is None or n <= exact_max_n)):
        v = bound_delta(b, params, n, eps)
        if v is not None and v[1] < best[0]:
            best = (v[1], b)
    return best


def proved_meets(params: Params, n: int, eps: float, delta: float, skip: tuple = ()) -> Optional[str]:
    """Name of a proved upper bound whose certified delta at ``eps`` is <= ``delta`` (so the
    proved eps_c is <= ``eps``), or None.  One evaluation per bound instead of an eps search:
    a screen for the inverses (which decide on :func:`certified_epsilon`: the forward's eps search
    may end a little above an eps this certifies).  Cheap bounds first; the exact blanket last;
    ``skip``: bounds left out."""
    if eps >= params.eps0 and (getattr(params, "delta0", None) or 0.0) <= delta:
        return "post-processing"
    # binary RR's bracket above HEADLINE_MAX_N ('search') is a search of 0.5-3 s, not a feasibility test:
    # left out here (the answer is then the other bounds', still certified)
    cheap = [b for b in _headline_at(params, n) if b not in ("blanket", "search") and b not in skip]
    for b in cheap:
        spec = REGISTRY[b]
        if spec.delta is not None:
            v = bound_delta(b, params, n, eps)
            if v is not None and v[1] <= delta:
                return b
        else:
            r = compute_params_bound(b, params, n, delta)
            if r.applicable and r.epsilon is not None and r.epsilon <= eps:
                return b
    # the exact engines' range is the headline's: above it (eps0 > ENGINE_MAX_EPS0) the forward
    # refuses the blanket, so the feasibility test must too
    if "blanket" in headline_bounds(params) and "blanket" not in skip and beyond_engine(params) is None:
        from accountant.engines.blanket.engine import positive_part
        from accountant.engines.blanket.law import blanket_law
        up = blanket_delta(params, n, eps)[1] if getattr(params, "hash_model", "any") == "random" \
            or not supports(blanket_law, params) else \
            positive_part(mechanism_blanket_law(params), n, eps, target_delta=delta).upper if eps < params.eps0 else 1.0
        if up <= delta:
            return "blanket"
    return None


def best_comparison(results: dict[str, BoundResult]) -> Optional[BoundResult]:
    """The smallest applicable comparison upper bound (excludes ``paper`` and lower bounds)."""
    cands = [r for k, r in results.items() if k in COMPARISON_BOUNDS and r.applicable and r.epsilon is not None]
    return min(cands, key=lambda r: r.epsilon) if cands else None
