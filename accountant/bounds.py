"""Every central-epsilon bound of the comparison set, under one name each.

The names are part of the command-line contract (``--bound NAME``):

===========================  ===================================================
name                         bound
===========================  ===================================================
tight                        the mechanism's own bound (Theorem 5 / Section 7.4;
                             stronger clone pair for ``generic``)
lower                        Theorem 6 lower bound (Collision t >= 3s; CoCo t >= 4s)
stronger-clone               Feldman-McMillan-Talwar 2023, numerical, generic eps0-LDP
stronger-clone-closed        its closed form
clone                        Feldman-McMillan-Talwar 2021, numerical, exact pair
clone-closed                 its closed form
blanket-hoeffding-generic    Balle et al. 2019, Hoeffding, generic eps0-LDP
blanket-bennett-generic      Balle et al. 2019, Bennett, generic eps0-LDP
blanket-hoeffding            Balle et al. 2019, Hoeffding, Collision/CoCo quantities
blanket-bennett              Balle et al. 2019, Bennett, Collision/CoCo quantities
efmrtt19                     Erlingsson et al. 2019 closed form
===========================  ===================================================
"""
from __future__ import annotations

import time
from functools import lru_cache
from typing import Callable, Optional

from . import blanket, closed_form
from .divergence import DominatingPair
from .result import BoundResult
from .shuffle import (
    GenericLDP,
    ShuffleAccountant,
    _check_delta,
    _check_n,
    make_params,
    search_pair_epsilon,
)

BOUND_NAMES = (
    "tight",
    "lower",
    "stronger-clone",
    "stronger-clone-closed",
    "clone",
    "clone-closed",
    "blanket-hoeffding-generic",
    "blanket-bennett-generic",
    "blanket-hoeffding",
    "blanket-bennett",
    "efmrtt19",
)
UPPER_BOUNDS = tuple(b for b in BOUND_NAMES if b != "lower")
COMPARISON_BOUNDS = tuple(b for b in UPPER_BOUNDS if b != "tight")
# Upper bounds with a proof that covers every eps0-LDP randomizer (and so Collision
# and CoCo): FMT21's clone reduction, the privacy blanket, EFMRTT19.  ``tight`` and
# ``stronger-clone`` rest on FMT23's reduction (see shuffle.CAVEAT_*).
PROVED_BOUNDS = ("clone", "clone-closed", "blanket-hoeffding-generic", "blanket-bennett-generic",
                 "blanket-hoeffding", "blanket-bennett", "efmrtt19")


@lru_cache(maxsize=256)
def _pair_result(params, n: int, delta: float, rtol: float):
    """The pair search, shared by ``tight`` and ``lower`` (params are frozen, hashable)."""
    return ShuffleAccountant(params, n).epsilon_result(delta, rtol=rtol)


def _tight(params, n, delta, rtol) -> BoundResult:
    res = _pair_result(params, n, delta, rtol)
    return BoundResult("tight", res.epsilon, True, res.caveat, delta, res.achieved_delta)


def _lower(params, n, delta, rtol) -> BoundResult:
    if not params.theorem6_applies:
        if params.name == "generic":
            why = "no lower bound for a generic eps0-LDP randomizer in the paper"
        elif params.name == "collision":
            why = f"Theorem 6 needs t >= 3s (t = {params.t}, s = {params.s})"
        else:
            why = f"the paper states equality for CoCo only when t >= 4s (t = {params.t}, s = {params.s})"
        return BoundResult.not_applicable("lower", why, delta)
    from .shuffle import CAVEAT_THEOREM6

    res = _pair_result(params, n, delta, rtol)
    return BoundResult("lower", res.lower_epsilon, res.lower_epsilon is not None,
                       CAVEAT_THEOREM6 if res.lower_epsilon is not None else "no certified lower point found",
                       delta)


def _stronger_clone(params, n, delta, rtol) -> BoundResult:
    res = _pair_result(GenericLDP(params.eps0), n, delta, rtol)
    return BoundResult("stronger-clone", res.epsilon, True, res.caveat, delta, res.achieved_delta)


def _clone(params, n, delta, rtol) -> BoundResult:
    """FMT21 Theorem 3.2 pair, evaluated exactly (same engine, no step discretisation)."""
    pair = DominatingPair.clone(n, params.eps0)
    res = search_pair_epsilon(pair, delta, rtol)
    return BoundResult("clone", res.epsilon, True, None, delta, res.achieved_delta)


def _specific(fn, name):
    def run(params, n, delta, rtol) -> BoundResult:
        if params.name == "generic":
            return BoundResult.not_applicable(
                name, "mechanism-specific blanket quantities need mechanism collision or coco", delta)
        return fn(n, params.eps0, delta, params.s, params.t)
    return run


def _generic(fn):
    def run(params, n, delta, rtol) -> BoundResult:
        return fn(n, params.eps0, delta)
    return run


_REGISTRY: dict[str, Callable[..., BoundResult]] = {
    "tight": _tight,
    "lower": _lower,
    "stronger-clone": _stronger_clone,
    "stronger-clone-closed": _generic(closed_form.stronger_clone_closed),
    "clone": _clone,
    "clone-closed": _generic(closed_form.clone_closed),
    "blanket-hoeffding-generic": _generic(blanket.blanket_hoeffding_generic),
    "blanket-bennett-generic": _generic(blanket.blanket_bennett_generic),
    "blanket-hoeffding": _specific(blanket.blanket_hoeffding, "blanket-hoeffding"),
    "blanket-bennett": _specific(blanket.blanket_bennett, "blanket-bennett"),
    "efmrtt19": _generic(closed_form.efmrtt19),
}


def compute_bound(name: str, n: int, eps0: float, delta: float, mechanism: str = "generic",
                  s: Optional[int] = None, t: Optional[int] = None, rtol: float = 1e-9) -> BoundResult:
    """Central epsilon from bound ``name`` for n shuffled reports (see module table).

    Returns a ``BoundResult`` with the wall-clock ``seconds`` it took; a bound outside
    its range of validity is returned as not applicable with the reason.
    """
    if name not in _REGISTRY:
        raise ValueError(f"bound must be one of {', '.join(BOUND_NAMES)}, got {name!r}")
    n = _check_n(n)
    delta = _check_delta(delta)
    params = make_params(mechanism, eps0, s=s, t=t)
    t0 = time.perf_counter()
    res = _REGISTRY[name](params, n, delta, rtol)
    seconds = time.perf_counter() - t0
    # the registry name is the contract, whatever the implementing function calls itself
    return BoundResult(name, res.epsilon, res.applicable, res.reason, res.delta,
                       res.achieved_delta, seconds)


def compare(n: int, eps0: float, delta: float, mechanism: str = "generic", s: Optional[int] = None,
            t: Optional[int] = None, bounds=BOUND_NAMES, rtol: float = 1e-9) -> dict[str, BoundResult]:
    """All requested bounds on the same inputs."""
    return {b: compute_bound(b, n, eps0, delta, mechanism, s, t, rtol) for b in bounds}


def best_proved(results: dict[str, BoundResult]) -> Optional[BoundResult]:
    """The smallest applicable bound among ``PROVED_BOUNDS`` (a proved upper bound)."""
    cands = [r for k, r in results.items() if k in PROVED_BOUNDS and r.applicable and r.epsilon is not None]
    return min(cands, key=lambda r: r.epsilon) if cands else None


def proved_epsilon(n: int, eps0: float, delta: float, mechanism: str = "generic", s: Optional[int] = None,
                   t: Optional[int] = None, rtol: float = 1e-9) -> Optional[BoundResult]:
    """The smallest proved upper bound on eps_c (see ``PROVED_BOUNDS``)."""
    return best_proved(compare(n, eps0, delta, mechanism, s, t, PROVED_BOUNDS, rtol))


def best_comparison(results: dict[str, BoundResult]) -> Optional[BoundResult]:
    """The smallest applicable comparison bound (excludes ``tight`` and ``lower``)."""
    cands = [r for k, r in results.items() if k in COMPARISON_BOUNDS and r.applicable and r.epsilon is not None]
    return min(cands, key=lambda r: r.epsilon) if cands else None
