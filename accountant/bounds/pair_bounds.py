"""Pair bounds at any precision: the dominating pair behind ``paper``, ``stronger-clone`` and
``clone``, searched on a log-delta target (below the float range) or with ``method``
'mpmath' / 'arb' (the CLI's ``--log-delta`` and ``--method``).

"""
from __future__ import annotations

import math

from accountant.bounds.pair_accountant import PairAccountant, clamp_to_eps0, search_pair_epsilon
from accountant.bounds.registry import clone_pair, resolve_name
from accountant.core.params import GenericLDP, Params
from accountant.engines.pair.divergence import hockey_stick_divergence
from accountant.engines.pair.law import DominatingPair

PAIR_BOUNDS = ("paper", "stronger-clone", "clone")


def pair_of(name: str, params: Params, n: int) -> DominatingPair:
    """The dominating pair behind a pair bound (``PAIR_BOUNDS``), for the log-delta and
    high-precision paths (``method`` 'mpmath' or 'arb', targets below 1e-300)."""
    name = resolve_name(name)
    if name == "paper":
        return PairAccountant(params, n).pair
    if name == "stronger-clone":
        return PairAccountant(GenericLDP(params.eps0), n).pair
    if name == "clone":
        return clone_pair(params, n)
    raise ValueError(f"bound '{name}' is not a pair bound; log-delta targets and --method "
                     f"mpmath/arb are available for {', '.join(PAIR_BOUNDS)}")


def pair_bound_epsilon(name: str, params: Params, n: int, log_delta: float, rtol: float = 1e-9,
                       method: str = "float") -> tuple[float, float, float]:
    """(epsilon, achieved_delta, achieved_log_delta) of pair bound ``name`` for a target
    given as a natural log (any magnitude), clamped to eps0 (post-processing)."""
    pair = pair_of(name, params, n)
    delta = math.exp(log_delta)
    res = search_pair_epsilon(pair, delta, rtol, method=method, log_delta=log_delta)
    eps, achieved = clamp_to_eps0(res.epsilon, res.achieved_delta, params.eps0)
    return eps, achieved, (res.achieved_log_delta if eps == res.epsilon else -math.inf)


def pair_bound_log_delta(name: str, params: Params, n: int, eps: float, method: str = "float"):
    """Certified ``DivergenceValue`` (with log fields) of pair bound ``name`` at ``eps``."""
    return hockey_stick_divergence(pair_of(name, params, n), eps, method=method)
