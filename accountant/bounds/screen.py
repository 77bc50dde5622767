"""Cheap verdicts on the forward's number for the inverses: whether the headline eps_c that the
forward commands certify (:func:`accountant.bounds.registry.certified_epsilon`) is <= an eps,
from one delta evaluation per bound where that is conclusive, ``None`` where only the forward's
eps searches can tell.  The inverses' screen: they ask the forward where it says None and settle
their answer on the forward itself (:func:`accountant.engines.search.calibrate`).

The forward's number is the smallest of its headline's proved bounds that apply (each computed
as :func:`~accountant.bounds.registry.compute_params_bound` at ``FORWARD_RTOL``), or eps0 when
none does.  So it is <= eps as soon as one of them is, and > eps once every one of them is shown
above eps: a bound's eps search certifies an eps only where its own upper end of delta is <= the
target (the agreement check moves it only up) and that delta is non-increasing in eps, so a
certified lower end of the same delta above the target at eps puts the bound's number above eps
(binary RR's every-dataset bounds: one dataset's; a closed form is computed as the forward
computes it).  The one verdict that is not a proof is the blanket meeting eps: its certified
delta, by the very evaluation its eps search certifies with, meets the target at eps (1 -
:data:`MEETS_MARGIN`); that search stops within its tolerance (1e-5; a little more with a
matrix's coarser bins, docs/BENCHMARKS.md) above the smallest eps its evaluations certify, far
inside the margin.
The saddle-point estimate only orders the work (which evaluation is worth making); it decides
nothing.
"""
from __future__ import annotations

import math
from typing import Optional

from accountant.bounds import registry
from accountant.bounds.exact_bounds import beyond_engine, binary_exact_module, mechanism_blanket_law
from accountant.core.finite import FiniteRandomizer

#: :func:`forward_verdict` takes the blanket's certified delta meeting the target at eps (1 -
#: MEETS_MARGIN) as the forward's number meeting eps
MEETS_MARGIN = 3e-4


def _blanket_law(params, n: int, delta: float):
    """(the blanket's count law, the target its eps search runs at), or None where the blanket's
    lower end is not cheap (a matrix's lattice bound, the random-hash model); (None, None) where
    the bound does not apply (above the exact engines' eps0)."""
    if beyond_engine(params) is not None:
        return None, None
    if isinstance(params, FiniteRandomizer):
        from accountant.bounds.finite import finite_blanket_law

        fl = finite_blanket_law(params) if params.pure else None
        if fl is None or fl.law is None or not fl.exact_blanket:
            return None
        return fl.law, delta / fl.margin(n)  # the corner search's target (bounds.finite)
    if getattr(params, "hash_model", "any") == "random":
        return None
    return mechanism_blanket_law(params), delta


def _approx_log_delta(law, n: int, eps: float) -> Optional[float]:
    from accountant.engines.blanket.window import approx_log_delta

    try:
        return approx_log_delta(law, n, float(eps))
    except (ArithmeticError, ValueError):
        return None


def _blanket_delta(law, n: int, eps: float, target: float):
    from accountant.engines.blanket.engine import positive_part

    return positive_part(law, n, float(eps), target_delta=target)


def _probe(name: str, params, n: int, eps: float, delta: float) -> tuple:
    """(verdict, hint) of one headline bound at eps: verdict True (its number is <= eps: a
    closed form computed as the forward computes it), False (its number is above eps, or it
    does not apply) or None (not decided cheaply); hint: its delta at eps is far enough below
    the target that the margin test is worth an evaluation."""
    if name == "blanket":
        lt = _blanket_law(params, n, delta)
        if lt is None:
            return None, False
        law, target = lt
        if law is None:
            return False, False
        # the saddle-point estimate (not certified) only orders the work: where it puts the
        # blanket below the target its lower end is not worth evaluating, and the margin test is
        # tried where it puts it below even at eps (1 - 2 MEETS_MARGIN)
        approx = _approx_log_delta(law, n, eps)
        if approx is not None and approx < math.log(target):
            far = _approx_log_delta(law, n, eps * (1.0 - 2.0 * MEETS_MARGIN))
            return None, far is not None and far < math.log(target)
        return (False if _blanket_delta(law, n, eps, target).lower > target else None), False
    if name in ("exact", "search"):
        # binary RR's every-dataset searches bound the maximum over the datasets, one of which
        return (False if binary_exact_module().top_dataset_exceeds(n, params.eps0, eps, delta) else None), False
    if name == "clone":
        v = registry.bound_delta(name, params, n, eps)
        return (False if v is None or v[0] > delta else None), False  # None: it does not apply
    if registry.REGISTRY[name].engine == "closed-form":
        r = registry.compute_params_bound(name, params, n, delta, registry.FORWARD_RTOL)
        return r.applicable and r.epsilon is not None and r.epsilon <= eps, False
    return None, False


def forward_verdict(params, n: int, eps: float, delta: float) -> Optional[bool]:
    """Whether the forward's certified eps_c of ``params`` at (n, delta) is <= eps (module
    docstring): True, False, or None where only the forward can tell.  Every proved bound of its
    headline is probed with at most one delta evaluation; if none meets eps and some are not
    shown above it, the blanket's margin test (where the estimate says it is worth it) or the
    forward decides.  The margin test is the one verdict that is not a proof: the inverses
    settle their answer on the forward."""
    if eps >= params.eps0:
        return True  # post-processing: the forward's number is <= eps0 <= eps
    open_, try_margin = [], False
    for b in registry.headline_bounds(params.name):
        if not registry.REGISTRY[b].proved(params.name):
            continue  # not in the forward's minimum
        if b == "blanket" and _blanket_law(params, n, delta) is None:
            return None  # no cheap end of it (random hash, a lattice bound): the forward decides
        verdict, far = _probe(b, params, n, eps, delta)
        if verdict:
            return True
        if verdict is None:
            open_.append(b)
            try_margin = try_margin or far
    if not open_:
        return False
    if try_margin:  # the blanket's certified delta meets the target at eps (1 - MEETS_MARGIN)
        law, target = _blanket_law(params, n, delta)
        if _blanket_delta(law, n, eps * (1.0 - MEETS_MARGIN), target).upper <= target:
            return True
    return None  # the forward's own bounds decide: the forward (its number is then at hand)
