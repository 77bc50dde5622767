"""The registry's bounds that run the exact engines: the exact blanket (named mechanisms, the
random-hash model and any matrix), the certified lower bounds (the mechanism's datasets, the
worst hash family, a matrix's triples) and the search tolerances of those engines.

The registry (:mod:`accountant.bounds.registry`) holds what each bound is; this module holds how
the costly ones are computed, so that both stay readable.  Each ``*_delta`` returns
``(lower, upper)``.
"""
from __future__ import annotations

import math
from dataclasses import replace
from functools import singledispatch

from accountant.core.finite import FiniteRandomizer
from accountant.core.randomizers_keyvalue import PCKVAGRRParams, PCKVGRRParams, PCKVUEParams, PrivKVParams
from accountant.core.randomizers_numerical import GaussianParams, LaplaceParams, PiecewiseParams
from accountant.core.result import BoundResult


#: the exact count-law engines are certified up to this eps0: above it their float sums lose the
#: threshold's distance to an integer (k-RR at eps0 = 30, n = 2, eps = 29.97: 0.02878 against the
#: exact 0.02955; first seen at eps0 = 12, 7e-10 relative), so the bounds on them are not
#: available there and the proved eps_c is the clone's (pair engine, mpmath where it cancels)
ENGINE_MAX_EPS0 = 10.0


def beyond_engine(params) -> "str | None":
    """Why the exact engines give no certified number for ``params`` (None: they do).  A finite
    randomizer that is not pure LDP (eps0 infinite) is bounded by the lattice engine alone
    (:mod:`accountant.bounds.finite_lattice`, no count-law sums): its blanket is not refused here."""
    if not math.isfinite(params.eps0):
        return None
    if params.eps0 > ENGINE_MAX_EPS0:
        return (f"the exact engines are certified for eps0 <= {ENGINE_MAX_EPS0:g} (their float sums "
                f"lose digits above; eps0 = {params.eps0:.10g}): the clone bound holds")
    return None


def mechanism_blanket_law(params):
    from accountant.engines.blanket.law import blanket_law
    return blanket_law(params)


# From this search tolerance on (the pages' curves) the paper's search skips its certified lower
# end (theorem6-lower then searches for it itself)
CHART_RTOL = 1e-5

# The exact blanket's eps_c is certified (its delta's upper end <= target) and within this
# relative distance of the smallest such eps (each evaluation costs 0.05-1 s).
BLANKET_RTOL = 1e-5


def chart_truncation(rtol: float) -> float:
    """The fraction of the target the exact engines' windows may leave out: the engine's
    ``TRUNCATION`` (1e-8), or 1e-6 from a chart's tolerance (``CHART_RTOL``) on.  Left-out mass
    is bounded and added to an upper end (a lower end just drops it), so the answers stay
    certified; 1e-6 of delta moves eps_c by about 1e-7 relative, and the windows are about
    10% shorter (the dashboard's curves at n = 1e8-1e9)."""
    from accountant.engines.blanket.engine import TRUNCATION

    return 1e-6 if rtol >= CHART_RTOL else TRUNCATION


def blanket_bound(params, n, delta, rtol) -> BoundResult:
    why = beyond_engine(params)
    if why is not None:
        return BoundResult.not_applicable("blanket", why, delta)
    return blanket_result(params, n, delta, rtol)


@singledispatch
def blanket_result(params, n, delta, rtol) -> BoundResult:
    """The exact blanket of a named mechanism: its count law (the engines'
    :func:`~accountant.engines.blanket.law.blanket_law`, which refuses a type without one) and,
    under the random-hash model, the smaller of that and :mod:`.random_blanket`'s."""
    from accountant.bounds.pair_accountant import clamp_to_eps0
    from accountant.engines.blanket.engine import BIN_GAP, blanket_exact_epsilon

    # starts from the saddle-point estimate; certified, within rtol of the root Newton predicts;
    # a coarse rtol (a chart's) also coarsens the bins (certified either way)
    res = blanket_exact_epsilon(mechanism_blanket_law(params), n, delta, rtol=max(rtol, BLANKET_RTOL),
                                certify_bracket=False, bin_gap=min(max(BIN_GAP, 10.0 * rtol), 1e-4),
                                min_bins=1 if rtol >= CHART_RTOL else None,
                                truncation=chart_truncation(rtol))
    eps, achieved = clamp_to_eps0(res.epsilon, res.achieved_delta, params.eps0)
    if getattr(params, "hash_model", "any") == "random":  # accountant.bounds.random_blanket
        from accountant.bounds import random_blanket as rb

        # the any-hash bound holds under the random model too: the smaller of the two
        return rb.random_blanket_result(params, n, delta, max(rtol, BLANKET_RTOL), clamp_to_eps0,
                                         ceiling=(eps, achieved), lattice=rtol < CHART_RTOL)
    return BoundResult("blanket", eps, True, None, delta, achieved)


def blanket_delta(params, n, eps):
    if eps >= params.eps0:
        return 0.0, 0.0
    if beyond_engine(params) is not None:
        return 0.0, 1.0  # no certified number: the trivial bound
    return blanket_result_delta(params, n, eps)


@singledispatch
def blanket_result_delta(params, n, eps):
    """(lower, upper) of :func:`blanket_result`'s delta at ``eps``."""
    from accountant.engines.blanket.engine import blanket_exact_delta

    v = blanket_exact_delta(mechanism_blanket_law(params), n, eps)
    if getattr(params, "hash_model", "any") == "random":  # the smaller of random and any
        from accountant.bounds import random_blanket as rb

        return rb.random_blanket_delta(params, n, eps, ceiling=(v.lower, min(v.upper, 1.0)))
    return v.lower, min(v.upper, 1.0)


def lower_bound(params, n, delta, rtol) -> BoundResult:
    why = beyond_engine(params)  # None for a matrix that is not pure LDP: its outputs that x0
    if why is not None:          # cannot produce are counted in full (accountant.bounds.finite)
        return BoundResult.not_applicable("lower", why.replace("the clone bound holds", "no lower bound"), delta)
    return lower_result(params, n, delta, rtol)


@singledispatch
def lower_result(params, n, delta, rtol) -> BoundResult:
    """The certified lower bound of a named mechanism: its datasets' law
    (:func:`accountant.bounds.laws.lower.mechanism_lower`)."""
    from accountant.bounds import laws as mechanism_law

    return mechanism_law.lower_bound_epsilon(params, n, delta, rtol=rtol)


def lower_delta(params, n, eps):
    if beyond_engine(params) is not None:
        return None
    return lower_result_delta(params, n, eps)


@singledispatch
def lower_result_delta(params, n, eps):
    """(lower, upper) of :func:`lower_result`'s delta at ``eps``, or None."""
    from accountant.bounds import laws as mechanism_law

    return mechanism_law.lower_bound_delta(params, n, eps)


# a randomizer given as its matrix: the worst pair's blanket and the best triple's lower bound
# (accountant.bounds.finite, imported at the first matrix: the registry's import stays light)
@blanket_result.register(FiniteRandomizer)
def _finite_blanket(params, n, delta, rtol) -> BoundResult:
    from accountant.bounds import finite as finite_bounds

    return finite_bounds.finite_blanket_result(params, n, delta, rtol)


@blanket_result_delta.register(FiniteRandomizer)
def _finite_blanket_delta(params, n, eps):
    from accountant.bounds import finite as finite_bounds

    return finite_bounds.finite_blanket_delta(params, n, eps)


@lower_result.register(FiniteRandomizer)
def _finite_lower(params, n, delta, rtol) -> BoundResult:
    from accountant.bounds import finite as finite_bounds

    return finite_bounds.finite_lower_result(params, n, delta, rtol)


@lower_result_delta.register(FiniteRandomizer)
def _finite_lower_delta(params, n, eps):
    from accountant.bounds import finite as finite_bounds

    v = finite_bounds.finite_lower_delta(params, n, eps).delta
    return v, v


_PAIR_NOTE = {PCKVGRRParams: "2d-ary randomized response at eps0",
              PCKVUEParams: "the unary encoding, gamma = (e^eps0 + 3)/(2 (e^eps0 + 1))"}


@blanket_result.register(PCKVGRRParams)
@blanket_result.register(PCKVUEParams)
def _pair_blanket(params, n, delta, rtol):
    """The per-pair randomizer's blanket, which bounds the mixture over the sampled pair
    (docs/proved.md, "Key-value baselines"), with a note saying so."""
    res = blanket_result.dispatch(object)(params, n, delta, rtol)
    note = (f"privacy blanket of the per-pair randomizer ({_PAIR_NOTE[type(params)]}): the report is its "
            "mixture over the sampled pair (docs/proved.md, key-value baselines)")
    return BoundResult("blanket", res.epsilon, res.applicable, res.reason or note, delta, res.achieved_delta)


@blanket_result.register(PCKVAGRRParams)
def _agrr_blanket(params, n, delta, rtol):
    """The whole randomizer's blanket (s of the 2d pairs at weight e^eps0; docs/proved.md), with a
    note saying so."""
    res = blanket_result.dispatch(object)(params, n, delta, rtol)
    note = ("privacy blanket of the whole randomizer (the user's s pairs at e^eps0 / Omega, the other pairs "
            "at 1 / Omega, Omega = s e^eps0 + 2d - s; docs/proved.md, key-value baselines)")
    return BoundResult("blanket", res.epsilon, res.applicable, res.reason or note, delta, res.achieved_delta)


# PrivKV: the blanket of its own matrix (one row per key-value set; accountant.core.keyvalue)
@blanket_result.register(PrivKVParams)
def _privkv_blanket(params, n, delta, rtol):
    from accountant.core.keyvalue import privkv_matrix

    try:
        R = privkv_matrix(params)
    except ValueError as err:
        return BoundResult.not_applicable("blanket", str(err), delta)
    from accountant.bounds import finite as finite_bounds

    res = finite_bounds.finite_blanket_result(R, n, delta, rtol)
    return BoundResult("blanket", res.epsilon, res.applicable, res.reason, delta, res.achieved_delta)


@blanket_result_delta.register(PrivKVParams)
def _privkv_blanket_delta(params, n, eps):
    from accountant.core.keyvalue import privkv_matrix

    try:
        R = privkv_matrix(params)
    except ValueError:
        return 0.0, 1.0  # no own blanket at this size: the trivial bound
    from accountant.bounds import finite as finite_bounds

    return finite_bounds.finite_blanket_delta(R, n, eps)


def _continuous(name: str):
    """The Laplace randomizer's law ``name`` of :mod:`accountant.bounds.continuous` (imported on use)."""
    def law(*args):
        from accountant.bounds import continuous

        return getattr(continuous, name)(*args)
    return law


# the Laplace randomizer: certified cells of its continuous law, the binned randomizer's lower bound
blanket_result.register(LaplaceParams, _continuous("laplace_blanket_result"))
blanket_result_delta.register(LaplaceParams, _continuous("laplace_blanket_delta"))
lower_result.register(LaplaceParams, _continuous("laplace_lower_result"))
lower_result_delta.register(LaplaceParams, _continuous("laplace_lower_delta"))
# the Gaussian randomizer: the same with its ratios capped and the tail term (not pure LDP)
blanket_result.register(GaussianParams, _continuous("gaussian_blanket_result"))
blanket_result_delta.register(GaussianParams, _continuous("gaussian_blanket_delta"))
lower_result.register(GaussianParams, _continuous("gaussian_lower_result"))
lower_result_delta.register(GaussianParams, _continuous("gaussian_lower_delta"))


# the piecewise mechanism: its worst pair's three-cell matrix (accountant.bounds.laws.numerical)
def _piecewise_matrix(params):
    from accountant.bounds.laws.numerical import piecewise_matrix
    return piecewise_matrix(params.eps0)


@blanket_result.register(PiecewiseParams)
def _piecewise_blanket(params, n, delta, rtol):
    from accountant.bounds import finite as finite_bounds

    r = finite_bounds.finite_blanket_result(_piecewise_matrix(params), n, delta, rtol)
    return replace(r, reason=PIECEWISE_NOTE + (f"; {r.reason}" if r.reason else ""))


@blanket_result_delta.register(PiecewiseParams)
def _piecewise_blanket_delta(params, n, eps):
    from accountant.bounds import finite as finite_bounds

    return finite_bounds.finite_blanket_delta(_piecewise_matrix(params), n, eps)


PIECEWISE_NOTE = ("the piecewise mechanism's exact blanket: its worst pair x = -1, x' = 1 as the three-cell "
                  "matrix over [-C, -1], (-1, 1), [1, C] (accountant.bounds.laws.numerical, docs/proved.md)")


def binary_exact_module():
    from accountant.bounds import binary_exact
    return binary_exact


def pair_module():
    """:mod:`accountant.bounds.pair_accountant`, imported at a pair bound's first use: the command
    lines build their parsers from the registry before any engine is imported."""
    from accountant.bounds import pair_accountant
    return pair_accountant


def worst_hash_bound(params, n, delta, rtol) -> BoundResult:
    from accountant.bounds import laws as mechanism_law

    why = beyond_engine(params)
    if why is not None:
        return BoundResult.not_applicable("lower-worst-hash", why.replace("the clone bound holds", "no lower bound"),
                                          delta)
    return mechanism_law.worst_hash_lower_epsilon(params, n, delta, rtol=rtol)


def worst_hash_delta(params, n, eps):
    from accountant.bounds import laws as mechanism_law

    if beyond_engine(params) is not None:
        return None
    return mechanism_law.worst_hash_lower_delta(params, n, eps)
