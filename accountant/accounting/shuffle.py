"""The accountant of a shuffled mechanism: proved numbers first.

``ShuffleAccountant(params, n)`` answers the two questions of Google's ``dp_accounting``
(``get_epsilon(delta)``, ``get_delta(epsilon)``) with the smallest *proved* upper bound
for the mechanism as implemented (:func:`accountant.bounds.registry.proved_params_epsilon`), and
its reports carry the certified lower bound for the real mechanism and the paper's
Theorem 5 value beside it, each under its own name.

This module also re-exports the parameter objects (:mod:`accountant.core.params`), the paper's
pair accountant (:mod:`accountant.bounds.pair_accountant`) and the inverse (:mod:`accountant.accounting.calibration`)
so that ``from accountant.accounting.shuffle import ...`` keeps working.
"""
from __future__ import annotations

import math
import typing
from dataclasses import dataclass
from typing import Optional

import numpy as np

from accountant.bounds import registry as bounds
from accountant.accounting.calibration import local_epsilon
from accountant.core.limits import check_rtol
from accountant.bounds.pair_accountant import (
    EpsilonResult,
    PairAccountant,
    gaussian_guess,
    search_pair_epsilon,
)
from accountant.core.params import (
    MECHANISMS,
    CoCoParams,
    CollisionParams,
    GenericLDP,
    KRRParams,
    Params,
    _check_delta,
    _check_n,
    coco_theorem7_t,
    collision_paper_t,
    make_params,
)

__all__ = [
    "ShuffleAccountant", "EpsilonReport", "DeltaReport", "PairAccountant", "EpsilonResult",
    "GenericLDP", "CollisionParams", "CoCoParams", "KRRParams", "Params", "MECHANISMS", "make_params",
    "collision_paper_t", "coco_theorem7_t", "local_epsilon", "search_pair_epsilon", "gaussian_guess",
]


@dataclass(frozen=True)
class EpsilonReport:
    """Central epsilon for a target delta, proved number first.

    epsilon : the smallest proved upper bound on eps_c (``bound`` names it); its certified
        delta at ``epsilon`` is ``achieved_delta`` <= delta.
    lower_epsilon : a certified lower bound on the true eps_c of the mechanism (None with
        ``lower_reason`` when not computed or not available), for the neighbouring datasets
        ``lower_dataset`` under ``lower_hash_model`` (None: the randomizer has no hash).
    paper_epsilon : the paper's Theorem 5 value (stronger clone pair for ``generic``), not
        a proved bound (``paper_caveat``).
    """

    epsilon: float
    bound: str
    delta: float
    achieved_delta: Optional[float]
    lower_epsilon: Optional[float]
    lower_reason: Optional[str]
    paper_epsilon: Optional[float]
    paper_caveat: Optional[str]
    certified: bool = True
    lower_dataset: Optional[str] = None
    lower_hash_model: Optional[str] = None


@dataclass(frozen=True)
class DeltaReport:
    """Delta at a central epsilon: proved upper bound, certified lower bound, paper's value."""

    epsilon: float
    delta: float
    bound: str
    lower_delta: Optional[float]
    lower_reason: Optional[str]
    paper_delta: Optional[float]
    paper_caveat: Optional[str]
    lower_dataset: Optional[str] = None
    lower_hash_model: Optional[str] = None


def _lower_statement(params) -> tuple:
    """(datasets, hash model) of the certified lower bound of ``params`` (None, None if none)."""
    from accountant.bounds.laws.lower import mechanism_lower_law

    ll = mechanism_lower_law(params)
    return (None, None) if ll is None else (ll.datasets, ll.hash_model)


def _check_eps(epsilon) -> float:
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, np.floating, np.integer)) or not (
        math.isfinite(float(epsilon)) and float(epsilon) >= 0.0
    ):
        raise ValueError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    return float(epsilon)


class ShuffleAccountant:
    """Privacy of n shuffled reports of one local randomizer (``params``).

    Parameters
    ----------
    params : a parameter object of :mod:`accountant.core.params` (``make_params``).
    n : number of users, 1 <= n <= 1e10 (accountant.limits.MAX_N).
    bound : ``"proved"`` (default: the smallest proved upper bound,
        :func:`accountant.bounds.registry.proved_params_epsilon`) or the name of one registry bound
        (``accountant.bounds.BOUND_NAMES``; ``"paper"`` is the unproved Theorem 5 value).
    """

    def __init__(self, params: Params, n: int, *, bound: str = "proved") -> None:
        kinds = typing.get_args(Params)
        if not isinstance(params, kinds):
            raise ValueError("params must be a parameter object from accountant.params.make_params "
                             f"({', '.join(k.__name__ for k in kinds)}), got {type(params).__name__}")
        self.params = params
        self.n = _check_n(n)
        if bound != "proved":
            bound = bounds.resolve_name(bound)
            if params.name not in bounds.REGISTRY[bound].applies_to:
                raise ValueError(f"bound '{bound}' is not available for mechanism '{params.name}'")
        self.bound = bound

    # -- epsilon ---------------------------------------------------------------
    def _upper(self, delta: float, rtol: float):
        if self.bound == "proved":
            return bounds.proved_params_epsilon(self.params, self.n, delta, rtol)
        return bounds.compute_params_bound(self.bound, self.params, self.n, delta, rtol)

    def get_epsilon(self, delta: float, rtol: float = 1e-9) -> float:
        """Upper bound on eps_c for the target ``delta`` (proved unless ``bound='paper'``...)."""
        delta = _check_delta(delta)
        rtol = check_rtol(rtol)
        res = self._upper(delta, rtol)
        if res is None or not res.applicable or res.epsilon is None:
            raise ValueError(f"bound '{self.bound}' gives no number here: "
                             f"{res.reason if res is not None else 'no applicable bound'}")
        return float(res.epsilon)

    def epsilon_result(self, delta: float, rtol: float = 1e-9, *, lower: bool = True,
                       paper: bool = True) -> EpsilonReport:
        """The headline epsilon with the certified lower bound and the paper's value beside it."""
        delta = _check_delta(delta)
        rtol = check_rtol(rtol)
        up = self._upper(delta, rtol)
        if up is None or not up.applicable or up.epsilon is None:
            eps, name, ach = self.params.eps0, "post-processing", 0.0
        else:
            eps, name, ach = float(up.epsilon), up.name, up.achieved_delta
        lo_eps, lo_reason = None, None
        if lower:
            lo = bounds.compute_params_bound("lower", self.params, self.n, delta, rtol)
            lo_eps, lo_reason = (min(lo.epsilon, eps), None) if lo.applicable else (None, lo.reason)
        else:
            lo_reason = "not computed"
        pap_eps, pap_cav = None, None
        if paper:
            pap = bounds.compute_params_bound("paper", self.params, self.n, delta, rtol)
            pap_eps, pap_cav = pap.epsilon, pap.reason
        proved = name == "post-processing" or bounds.REGISTRY[name].proved(self.params.name)
        ds, hm = _lower_statement(self.params) if lo_eps is not None else (None, None)
        return EpsilonReport(eps, name, delta, ach, lo_eps, lo_reason, pap_eps, pap_cav, proved, ds, hm)

    # -- delta -----------------------------------------------------------------
    def get_delta(self, epsilon: float) -> float:
        """Upper bound on delta at ``epsilon`` (proved unless a non-proved bound was chosen)."""
        return self.delta_result(epsilon, lower=False, paper=False).delta

    def delta_result(self, epsilon: float, *, lower: bool = True, paper: bool = True) -> DeltaReport:
        eps = _check_eps(epsilon)
        if self.bound == "proved":
            d, name = bounds.proved_delta(self.params, self.n, eps)
        else:
            v = bounds.bound_delta(self.bound, self.params, self.n, eps)
            if v is None:
                raise ValueError(f"bound '{self.bound}' has no delta(eps) form; use epsilon")
            d, name = v[1], self.bound
        lo_d, lo_reason = None, None
        if lower:
            try:
                v = bounds.bound_delta("lower", self.params, self.n, eps)
            except NotImplementedError as exc:  # pragma: no cover - reported, not hidden
                v, lo_reason = None, str(exc)
            if v is None:
                from accountant.bounds.laws.lower import needs_d_reason

                lo_reason = lo_reason or needs_d_reason(self.params) or \
                    f"no certified lower bound for mechanism '{self.params.name}'"
            else:
                lo_d = min(v[0], d)
        pap_d, pap_cav = None, None
        if paper:
            v = bounds.bound_delta("paper", self.params, self.n, eps)
            pap_d, pap_cav = (None, None) if v is None else (v[1], self.params.caveat)
        ds, hm = _lower_statement(self.params) if lo_d is not None else (None, None)
        return DeltaReport(eps, d, name, lo_d, lo_reason, pap_d, pap_cav, ds, hm)

    def delta_curve(self, epsilons) -> np.ndarray:
        """Upper bounds on delta over a grid of epsilons."""
        return np.array([self.get_delta(float(e)) for e in np.atleast_1d(epsilons)])
