"""The one dispatch from a :class:`~accountant.accounting.deployment.Deployment` to its proof:
:func:`deployed_epsilon` (the proved eps_c, with the certified lower bound where one is derived)
and :func:`deployed_delta` (the proved delta at an eps), the calls of the library, the command
lines (``epsilon``, ``delta``, ``users``) and the pages alike.

Each proof is one entry of :data:`PROOFS`, keyed by :attr:`Deployment.proof` and whether the
deployment runs over several rounds: the bound at n - colluders + dummies users (colluders,
n >= N, dummies, or none), user sampling, several reports per user, mixed randomizers
(:mod:`accountant.accounting.deployments`, :mod:`accountant.accounting.deployment_groups`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from accountant.accounting import deployment_groups as G
from accountant.accounting import deployments as D
from accountant.accounting.deployment import Deployment, supports
from accountant.core.params import validate_delta

__all__ = ["deployed_epsilon", "deployed_delta", "DeployedDelta", "round_of", "PROOFS"]

PLAIN = Deployment()


def round_of(params, n: int):
    """One round of ``n`` users of ``params``, as the composition takes it
    (:class:`accountant.composition.rounds.RoundSpec`: the parameter object and n)."""
    from accountant.composition.rounds import RoundSpec

    return RoundSpec(params, n)


def _shift(params, n, delta, dep, rtol, lower):
    return D.deployment_epsilon(params, n, delta, colluders=dep.colluders, dummies=dep.dummies, n_min=dep.n_min,
                                rtol=rtol, lower=lower)


def _shift_rounds(params, n, delta, dep, rtol, lower):
    return D.deployment_rounds_epsilon(round_of(params, n), dep.rounds, delta, colluders=dep.colluders,
                                       dummies=dep.dummies, n_min=dep.n_min, lower=lower)


def _sampling(params, n, delta, dep, rtol, lower):
    return D.sampled_epsilon(params, n, delta, dep.sampling, max(rtol, 1e-6), neighbours=dep.relation, lower=lower)


def _sampling_rounds(params, n, delta, dep, rtol, lower):
    return D.sampled_rounds_epsilon(params, n, delta, dep.sampling, dep.rounds, neighbours=dep.relation, lower=lower)


def _reports(params, n, delta, dep, rtol, lower):
    return G.reports_epsilon(params, n, delta, dep.reports, max(rtol, 1e-6), lower=lower)


def _reports_rounds(params, n, delta, dep, rtol, lower):
    return G.reports_rounds_epsilon(params, n, delta, dep.reports, dep.rounds, lower=lower)


def _mix(params, n, delta, dep, rtol, lower):
    return G.mix_epsilon(list(dep.mix), delta, max(rtol, 1e-6))


def _mix_rounds(params, n, delta, dep, rtol, lower):
    return G.mix_rounds_epsilon(list(dep.mix), delta, dep.rounds)


#: (proof, over rounds) -> the proof's call (params, n, delta, deployment, rtol, lower)
PROOFS = {("shift", False): _shift, ("shift", True): _shift_rounds,
          ("sampling", False): _sampling, ("sampling", True): _sampling_rounds,
          ("reports", False): _reports, ("reports", True): _reports_rounds,
          ("mix", False): _mix, ("mix", True): _mix_rounds}


def deployed_epsilon(params, n: Optional[int], delta: float, deployment: Deployment = PLAIN, *,
                     rtol: float = 1e-9, lower: bool = True) -> D.DeploymentResult:
    """The proved eps_c of ``n`` users of ``params`` deployed as ``deployment`` (a mix gives the
    users and their randomizers: ``params`` and ``n`` None), with the certified lower bound where
    one is derived (``lower=False``: not computed). ``rtol``: the search's tolerance (at least 1e-6
    for sampling, reports and mixes), as ``epsilon --rtol``. ValueError naming the parameter where
    the deployment does not fit n or the randomizer.

    >>> from accountant import Deployment, deployed_epsilon, make_params
    >>> r = deployed_epsilon(make_params("rr", 1.0), 10_000, 1e-6, Deployment(colluders=1_000))
    >>> r.effective_n, r.epsilon == deployed_epsilon(make_params("rr", 1.0), 9_000, 1e-6).epsilon
    (9000, True)
    """
    if not isinstance(deployment, Deployment):
        raise ValueError(f"deployment must be a Deployment, got {type(deployment).__name__}")
    delta = validate_delta(delta)
    why = supports(params, deployment.features)
    if why:
        raise ValueError(why)
    if deployment.mix is not None and params is not None:
        raise ValueError("params: the mix's groups give the randomizers (give params=None)")
    if deployment.mix is None and params is None:
        raise ValueError("params: a randomizer's parameters are needed (make_params(...))")
    n = deployment.check(n)
    return PROOFS[(deployment.proof, deployment.rounds > 1)](params, n, delta, deployment, rtol, lower)


@dataclass(frozen=True)
class DeployedDelta:
    """A proved delta at ``epsilon``, computed at ``effective_n`` users; ``statement``: why it holds."""

    delta: float
    epsilon: float
    effective_n: int
    statement: str


def deployed_delta(params, n: int, eps: float, deployment: Deployment = PLAIN) -> DeployedDelta:
    """The proved delta at ``eps`` of ``n`` users of ``params`` deployed as ``deployment``: one
    round of colluders, n >= N and dummies (the bound at n - colluders + dummies users) or of
    user sampling (:func:`accountant.accounting.deployments.sampled_delta`, add/remove:
    :func:`~accountant.accounting.deployments.sampled_delta_add_remove`); ValueError for the
    other features (their profiles are composed inside :func:`deployed_epsilon`).

    >>> from accountant import Deployment, deployed_delta, make_params
    >>> r = deployed_delta(make_params("rr", 1.0), 2_000, 0.1, Deployment(sampling=0.1))
    >>> r.delta < 1e-6
    True
    """
    from accountant.accounting.shuffle import ShuffleAccountant
    from accountant.core.params import validate_eps

    validate_eps(eps)
    other = [f for f in deployment.features if f in ("reports", "mix", "rounds")]
    if other:
        raise ValueError(f"{other[0]}: deployed_delta covers one round of colluders, n >= N, dummies or sampling")
    why = supports(params, deployment.features)
    if why:
        raise ValueError(why)
    n = deployment.check(n)
    if deployment.sampling is not None:
        fn = D.sampled_delta if deployment.relation == "substitute" else D.sampled_delta_add_remove
        st = f"user sampling q = {deployment.sampling:g} (Poisson, {deployment.relation}): docs/deployments.md"
        return DeployedDelta(fn(params, n, deployment.sampling, eps), eps, n, st)
    eff = n - deployment.colluders + deployment.dummies
    st = (f"the proved bound at n - colluders + dummies = {eff} users (colluders' reports are independent "
          "side information; dummies are the randomizer's output on data-independent inputs)")
    return DeployedDelta(ShuffleAccountant(params, eff).get_delta(eps), eps, eff, st)
