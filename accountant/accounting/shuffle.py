"""The accountant of a shuffled mechanism: proved numbers first.

``ShuffleAccountant(params, n)`` answers the two questions of Google's ``dp_accounting``
(``get_epsilon(delta)``, ``get_delta(epsilon)``) with the smallest *proved* upper bound
for the mechanism as implemented (:func:`accountant.bounds.registry.proved_params_epsilon`),
and its reports carry the certified lower bound for the real mechanism and the paper's
Theorem 5 value beside it, each under its own name.

The parameter objects live in :mod:`accountant.core.params`, the paper's pair accountant in
:mod:`accountant.bounds.pair_accountant` and the inverse in
:mod:`accountant.accounting.calibration`; users import all of them from :mod:`accountant`.
"""
from __future__ import annotations

import math
import typing
from dataclasses import dataclass
from typing import Optional

import numpy as np

from accountant.engines import parallel
from accountant.bounds import registry as bounds
from accountant.core.limits import check_rtol
from accountant.core.params import Params, validate_delta, validate_n

__all__ = ["ShuffleAccountant", "EpsilonReport", "DeltaReport"]


@dataclass(frozen=True)
class EpsilonReport:
    """Central epsilon for a target delta, proved number first.

    Returned by :meth:`ShuffleAccountant.epsilon_result`.

    Attributes
    ----------
    epsilon : float
        The smallest proved upper bound on eps_c (``bound`` names it); its certified delta
        at ``epsilon`` is ``achieved_delta`` <= ``delta``.
    bound : str
        The registry name of the bound that gave ``epsilon`` (``"post-processing"``: none
        was applicable and ``epsilon`` is eps0).
    delta : float
        The target delta.
    achieved_delta : float or None
        The certified delta at ``epsilon``.
    lower_epsilon : float or None
        A certified lower bound on the true eps_c of the mechanism (None with
        ``lower_reason`` when not computed or not available), for the neighbouring datasets
        ``lower_dataset`` under ``lower_hash_model`` (None: the randomizer has no hash).
    lower_reason : str or None
        Why there is no lower bound.
    paper_epsilon : float or None
        The paper's Theorem 5 value (stronger clone pair for ``generic``), not a proved
        bound (``paper_caveat`` says why).
    paper_caveat : str or None
        What the paper's value rests on.
    certified : bool
        Whether ``bound`` is proved for the mechanism.
    lower_dataset : str or None
        The neighbouring datasets of the lower bound.
    lower_hash_model : str or None
        The hash model of the lower bound.
    note : str or None
        What the bound that gave ``epsilon`` says about this number (its ``reason``: e.g. that
        the cost model narrowed its summation window, so the number is proved but looser, or
        the assumption it rests on); None when it has nothing to add.
    exhausted : str or None
        A tighter bound of the headline whose search ran out of its budget (its reason):
        ``epsilon`` is then the next bound's, looser than that search would have certified
        (``note`` says so too); None when every search of the headline finished.

    Examples
    --------
    >>> from accountant import ShuffleAccountant, fmt, make_params
    >>> acc = ShuffleAccountant(make_params("collision", 2.0, s=4, d=128), n=100_000)
    >>> r = acc.epsilon_result(1e-6)
    >>> print(r.bound, fmt(r.epsilon, 4, "up"), fmt(r.lower_epsilon, 4, "down"), r.certified)
    blanket 0.02392 0.0204 True
    >>> r.lower_epsilon <= r.epsilon and r.achieved_delta <= r.delta
    True
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
    note: Optional[str] = None
    exhausted: Optional[str] = None


@dataclass(frozen=True)
class DeltaReport:
    """Delta at a central epsilon: proved upper bound, certified lower bound, paper's value.

    Returned by :meth:`ShuffleAccountant.delta_result`.

    Attributes
    ----------
    epsilon : float
        The central epsilon asked about.
    delta : float
        The smallest proved upper bound on delta at ``epsilon`` (``bound`` names it).
    bound : str
        The registry name of the bound that gave ``delta``.
    lower_delta : float or None
        A certified lower bound on the true delta (None with ``lower_reason``).
    lower_reason : str or None
        Why there is no lower bound.
    paper_delta : float or None
        The paper's Theorem 5 value, not a proved bound (``paper_caveat``).
    paper_caveat : str or None
        What the paper's value rests on.
    lower_dataset : str or None
        The neighbouring datasets of the lower bound.
    lower_hash_model : str or None
        The hash model of the lower bound.

    Examples
    --------
    >>> from accountant import ShuffleAccountant, fmt, make_params
    >>> acc = ShuffleAccountant(make_params("krr", 2.0, k=4), n=10_000)
    >>> r = acc.delta_result(0.2)
    >>> print(r.bound, fmt(r.delta, 3, "up"), fmt(r.lower_delta, 3, "down"))
    blanket 2.3e-15 2.24e-15
    >>> r.lower_delta <= r.delta
    True
    """

    epsilon: float
    delta: float
    bound: str
    lower_delta: Optional[float]
    lower_reason: Optional[str]
    paper_delta: Optional[float]
    paper_caveat: Optional[str]
    lower_dataset: Optional[str] = None
    lower_hash_model: Optional[str] = None


def _lower_statement(params, result=None) -> tuple:
    """(datasets, hash model) of the certified lower bound of ``params`` (None, None if none);
    a matrix's lower bound names its datasets in its ``result`` (the best of several triples)."""
    from accountant.bounds.laws.lower import mechanism_lower_law

    if params.name == "finite":
        return (None if result is None else result.reason), None

    ll = mechanism_lower_law(params)
    if ll is None and result is not None and result.applicable:   # named in its result (Laplace's binning)
        return result.reason, None
    return (None, None) if ll is None else (ll.datasets, ll.hash_model)


def _check_eps(epsilon) -> float:
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, np.floating, np.integer)) or not (
        math.isfinite(float(epsilon)) and float(epsilon) >= 0.0
    ):
        raise ValueError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    return float(epsilon)


class ShuffleAccountant:
    """Privacy of n shuffled reports of one local randomizer (``params``).

    The two questions of Google's ``dp_accounting``: :meth:`get_epsilon` (central epsilon for
    a target delta) and :meth:`get_delta` (delta at a central epsilon), answered with the
    smallest *proved* upper bound for the mechanism as implemented; :meth:`epsilon_result`
    and :meth:`delta_result` add the certified lower bound and the paper's value.

    Parameters
    ----------
    params : Params
        A parameter object (:func:`make_params`, or one of the parameter classes).
    n : int
        Number of users, 1 <= n <= 1e10 (``accountant.core.limits.MAX_N``).
    bound : str
        ``"proved"`` (default: the smallest proved upper bound,
        :func:`accountant.bounds.registry.proved_params_epsilon`) or the name of one
        registry bound (:data:`BOUND_NAMES`; ``"paper"`` is the unproved Theorem 5 value).

    Raises
    ------
    ValueError
        If ``params`` is not a parameter object, ``n`` is out of range or ``bound`` is
        unknown or not available for the mechanism.

    References
    ----------
    Wang et al., "Differentially Private Numerical Vector Analyses in the Local and Shuffle
    Model" (Theorem 5); Balle, Bell, Gascon, Nissim, "The privacy blanket of the shuffle
    model", CRYPTO 2019; Feldman, McMillan, Talwar, "Stronger privacy amplification by
    shuffling for Renyi and approximate differential privacy", SODA 2023.

    Examples
    --------
    >>> from accountant import ShuffleAccountant, fmt, make_params
    >>> acc = ShuffleAccountant(make_params("collision", 2.0, s=4), n=100_000)
    >>> print(fmt(acc.get_epsilon(1e-6), 4, "up"))
    0.02392
    >>> acc.get_delta(acc.get_epsilon(1e-6)) <= 1e-6
    True
    """

    def __init__(self, params: Params, n: int, *, bound: str = "proved") -> None:
        kinds = typing.get_args(Params)
        if not isinstance(params, kinds):
            raise ValueError("params must be a parameter object from accountant.core.params.make_params "
                             f"({', '.join(k.__name__ for k in kinds)}), got {type(params).__name__}")
        self.params = params
        self.n = validate_n(n)
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
        """Upper bound on eps_c for the target ``delta`` (proved unless ``bound='paper'``...).

        Parameters
        ----------
        delta : float
            Target delta, in (0, 1).
        rtol : float
            Relative tolerance of the search (the answer is on the safe side).

        Returns
        -------
        float
            The central epsilon; its certified delta is <= ``delta``.

        Examples
        --------
        >>> from accountant import ShuffleAccountant, fmt, make_params
        >>> acc = ShuffleAccountant(make_params("generic", 1.0), n=10_000)
        >>> print(fmt(acc.get_epsilon(1e-6), 4, "up"))
        0.05301
        """
        delta = validate_delta(delta)
        rtol = check_rtol(rtol)
        res = self._upper(delta, rtol)
        if res is None or not res.applicable or res.epsilon is None:
            raise ValueError(f"bound '{self.bound}' gives no number here: "
                             f"{res.reason if res is not None else 'no applicable bound'}")
        return float(res.epsilon)

    def epsilon_result(self, delta: float, rtol: float = 1e-9, *, lower: bool = True,
                       paper: bool = True) -> EpsilonReport:
        """The headline epsilon with the certified lower bound and the paper's value beside it.

        Parameters
        ----------
        delta : float
            Target delta, in (0, 1).
        rtol : float
            Relative tolerance of the searches.
        lower : bool
            Also compute the certified lower bound.
        paper : bool
            Also compute the paper's Theorem 5 value.

        Returns
        -------
        EpsilonReport
            The proved upper bound, the lower bound and the paper's value, each named.

        Examples
        --------
        >>> from accountant import ShuffleAccountant, fmt, make_params
        >>> acc = ShuffleAccountant(make_params("krr", 2.0, k=4), n=10_000)
        >>> r = acc.epsilon_result(1e-6, paper=False)
        >>> print(r.bound, fmt(r.epsilon, 4, "up"), r.lower_epsilon <= r.epsilon, r.paper_epsilon)
        blanket 0.102 True None
        """
        delta = validate_delta(delta)
        rtol = check_rtol(rtol)
        # the three searches are independent: on the engines' threads side by side
        jobs = [lambda: self._upper(delta, rtol)]
        jobs += [lambda b=b: bounds.compute_params_bound(b, self.params, self.n, delta, rtol)
                 for b, wanted in (("lower", lower), ("paper", paper)) if wanted]
        results = parallel.map_ordered(lambda job: job(), jobs)
        up = results.pop(0)
        lo = results.pop(0) if lower else None
        pap = results.pop(0) if paper else None
        note, exhausted = None, getattr(up, "exhausted", None)
        if up is None or not up.applicable or up.epsilon is None:
            eps, name, ach = self.params.eps0, "post-processing", 0.0
            if not math.isfinite(self.params.eps0):  # eps0 = inf (a matrix not pure LDP, the Gaussian): say why
                why = bounds.compute_params_bound("blanket", self.params, self.n, delta, rtol).reason
                note = f"no finite eps_c is proved: {why}"
        else:
            eps, name, ach, note = float(up.epsilon), up.name, up.achieved_delta, up.reason
        lo_eps, lo_reason = None, None
        if lo is not None:
            lo_eps, lo_reason = (min(lo.epsilon, eps), None) if lo.applicable else (None, lo.reason)
        else:
            lo_reason = "not computed"
        pap_eps, pap_cav = None, None
        if pap is not None:
            pap_eps, pap_cav = pap.epsilon, pap.reason
        proved = name == "post-processing" or bounds.REGISTRY[name].proved(self.params.name)
        ds, hm = _lower_statement(self.params, lo) if lo_eps is not None else (None, None)
        return EpsilonReport(eps, name, delta, ach, lo_eps, lo_reason, pap_eps, pap_cav, proved, ds, hm, note,
                             exhausted)

    # -- delta -----------------------------------------------------------------
    def get_delta(self, epsilon: float) -> float:
        """Upper bound on delta at ``epsilon`` (proved unless a non-proved bound was chosen).

        Parameters
        ----------
        epsilon : float
            Central epsilon, >= 0.

        Returns
        -------
        float
            The smallest proved upper bound on delta.

        Examples
        --------
        >>> from accountant import ShuffleAccountant, fmt, make_params
        >>> acc = ShuffleAccountant(make_params("generic", 1.0), n=10_000)
        >>> print(fmt(acc.get_delta(0.1), 3, "up"))
        6.42e-14
        """
        return self.delta_result(epsilon, lower=False, paper=False).delta

    def delta_result(self, epsilon: float, *, lower: bool = True, paper: bool = True) -> DeltaReport:
        """Delta at ``epsilon`` with the certified lower bound and the paper's value beside it.

        Parameters
        ----------
        epsilon : float
            Central epsilon, >= 0.
        lower, paper : bool
            As :meth:`epsilon_result` (the lower bound is one on delta).

        Returns
        -------
        DeltaReport
            As :meth:`epsilon_result`'s report, for delta.

        Examples
        --------
        >>> from accountant import ShuffleAccountant, make_params
        >>> r = ShuffleAccountant(make_params("krr", 2.0, k=4), n=10_000).delta_result(0.2)
        >>> r.lower_delta <= r.delta
        True
        """
        eps = _check_eps(epsilon)
        if self.bound == "proved":
            d, name = bounds.proved_delta(self.params, self.n, eps)
        else:
            v = bounds.bound_delta(self.bound, self.params, self.n, eps)
            if v is None:
                raise ValueError(f"bound '{self.bound}' has no delta(eps) form; use epsilon")
            # a lower bound's value is its certified lower end, an upper bound's its upper end
            d, name = v[0] if bounds.REGISTRY[self.bound].kind == "lower" else v[1], self.bound
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
        if lo_d is not None and self.params.name == "finite":  # the triple that gave lo_d
            from accountant.bounds.finite import finite_lower_delta

            ds, hm = finite_lower_delta(self.params, self.n, eps).detail, None
        else:
            ds, hm = _lower_statement(self.params) if lo_d is not None else (None, None)
        return DeltaReport(eps, d, name, lo_d, lo_reason, pap_d, pap_cav, ds, hm)

    def delta_curve(self, epsilons) -> np.ndarray:
        """Upper bounds on delta over a grid of epsilons.

        Parameters
        ----------
        epsilons : array_like
            Central epsilons, each >= 0.

        Returns
        -------
        numpy.ndarray
            :meth:`get_delta` at each epsilon.

        Examples
        --------
        >>> from accountant import ShuffleAccountant, make_params
        >>> acc = ShuffleAccountant(make_params("generic", 1.0), n=10_000)
        >>> d = acc.delta_curve([0.1, 0.2])
        >>> bool(d[0] > d[1])
        True
        """
        return np.array([self.get_delta(float(e)) for e in np.atleast_1d(epsilons)])
