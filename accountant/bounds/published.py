"""The best published proved bound: one definition for every surface.

"Best published proved bound" at a point (mechanism parameters, n, delta) is the smallest
upper bound on eps_c, among the registry's bounds that are **proved for the mechanism** and
**come from the literature**, with its name.  "Literature" is every proved upper bound of the
registry except the toolkit's own exact privacy blanket (``blanket``), which is the number the
toolkit itself reports.  A bound that is not proved (the paper's Theorem 5, FMT23's stronger
clone) or not applicable at the point is never a candidate.

The definition needs every candidate evaluated: a minimum over a subset would name whichever
published bound happened to be computed (the clone on a chart that drew only the headline
bounds, Balle et al.'s Bennett bound in a table that drew them all).  :func:`best_published`
therefore refuses a set of results that misses a candidate, and every surface (the
Amplification page, the Tables page, the exported tables, ``python -m accountant compare``)
asks for :func:`published_bounds` and takes the minimum here.

Examples
--------
>>> from accountant import make_params
>>> from accountant.bounds.published import best_published_proved, published_bounds
>>> published_bounds("collision")[:3]
('clone', 'clone-closed', 'blanket-hoeffding-generic')
>>> name, res = best_published_proved(make_params("krr", 2.0, k=4), 100_000, 1e-6)
>>> name == res.name and res.epsilon > 0
True
"""
from __future__ import annotations

from typing import Mapping, Optional

from accountant.bounds.registry import BOUND_NAMES, compare_params, proved_upper_bounds
from accountant.core.result import BoundResult

#: the toolkit's own proved bounds: not part of "the literature"
OWN_BOUNDS = ("blanket", "exact", "search")  # the exact blanket; the searches over datasets (binary RR)


def published_bounds(mechanism: str) -> tuple:
    """The registry's bounds that are proved upper bounds for ``mechanism`` and come from the
    literature (every proved upper bound but :data:`OWN_BOUNDS`), in registry order."""
    return tuple(b for b in proved_upper_bounds(mechanism) if b not in OWN_BOUNDS)


def best_published(results: Mapping[str, BoundResult], mechanism: str) -> Optional[BoundResult]:
    """The smallest applicable bound of :func:`published_bounds` in ``results`` (name ->
    BoundResult), ties to the first in registry order; None when none applies.

    Raises ``ValueError`` when ``results`` misses a candidate: a minimum over part of the
    literature is not the best published bound."""
    names = published_bounds(mechanism)
    missing = [b for b in names if b not in results]
    if missing:
        raise ValueError(f"the best published proved bound for {mechanism} needs every published bound "
                         f"evaluated; missing: {', '.join(missing)}")
    best = None
    for b in BOUND_NAMES:  # registry order: ties go to the first
        r = results.get(b)
        if b in names and r is not None and r.applicable and r.epsilon is not None \
                and (best is None or r.epsilon < best.epsilon):
            best = r
    return best


def best_published_proved(params, n: int, delta: float, rtol: float = 1e-9) -> Optional[tuple]:
    """``(name, BoundResult)`` of the best published proved bound for a parameter object at
    ``n`` users and ``delta`` (every candidate evaluated at ``rtol``); None when no published
    bound applies at the point."""
    best = best_published(compare_params(params, n, delta, published_bounds(params.name), rtol), params.name)
    return None if best is None else (best.name, best)
