"""Deployments as they are run (issue 43): colluders, a population known as n >= N, user
sampling, dummy reports. Every number is a proved upper bound on eps_c; the proofs:

**Monotonicity in n (used by all four).** For every randomizer R, the worst-case divergence
``sup_{D ~ D', |D| = n} D_{e^eps}(S(D) || S(D'))`` of the shuffled output S is non-increasing
in n. Take neighbouring datasets of n + 1 >= 2 users differing in user 1; user n + 1 is the
same in both. S(D) is the shuffle of user n + 1's report with the shuffle of the first n,
i.e. a post-processing (add an independent draw of R(x_{n+1}), reshuffle) applied to a view
of n users with neighbouring datasets; the same map for D'. Post-processing does not increase
the hockey-stick divergence, so eps_c(n + 1) <= eps_c(n) for every delta. Hence a proved
upper bound on eps_c at N holds for every n >= N.

**Colluders (c users reveal their reports).** The analyst sees the shuffled multiset of all
n reports and the c colluders' reports. That is a bijective function of (the shuffled
multiset of the n - c honest reports, the colluders' reports): subtract / add the colluders'
reports. The neighbour is an honest user (a colluder's own data is revealed anyway: only
eps0-LDP protects it); the colluders' reports are independent of the honest ones and have
the same law under D and D'. D_{e^eps}(P x W || Q x W) = D_{e^eps}(P || Q), so eps_c is the
eps_c of the shuffle of the n - c honest users: the proved bound at n - c.

**Dummies (m extra reports).** The m dummies are drawn as the randomizer's output on inputs
drawn independently of the data (for k-RR and binary RR: uniform over the outputs, which is
R of a uniformly random input and the randomizer's privacy blanket). Conditioned on the
dummies' inputs the view is the shuffle of n + m users' reports, the neighbour among the n
real ones; by joint convexity of the hockey-stick divergence over the dummies' inputs (same
law under D and D') the divergence is at most the worst case over datasets of n + m users:
the proved bound at n + m. (A tighter analysis through the exact blanket with the count
m + Bin(n - 1, gamma) would gain only where the dummies' law is the blanket and the blanket
engine is the binding bound; not done here.)

**User sampling (Poisson, each user takes part w.p. q), substitution neighbours.** The
stronger clone reduction (Feldman, McMillan, Talwar, SODA 2023) writes each other user's
report, for any eps0-LDP randomizer, as: w.p. a a sample of R(x1), w.p. a a sample of
R(x1'), else a sample of a law not depending on user 1 (a = 1 / (e^eps0 + 1)); user 1's
report is a clone-of-x1 (w.p. e^eps0 a), clone-of-x1' (w.p. a) or from a common law. With
sampling, a user who does not take part sends nothing: an other user is then a clone of
x1 w.p. q a, of x1' w.p. q a, else its report (or its absence) does not depend on user 1;
user 1 is a clone-of-x1 w.p. q e^eps0 a, clone-of-x1' w.p. q a, else (common law or absent,
both with the same probability under D and D' and independent of the clone counts, so both
have likelihood ratio 1 and may be merged). The view is a post-processing of the clone
counts, whose law is the pair of NOTES section 1 with a replaced by q a:
C ~ Bin(n - 1, 2 q a), (D1, D2) = (1, 0) w.p. e^eps0 q a, (0, 1) w.p. q a. That pair is
symmetric, so its privacy profile composes over T rounds through the connect-the-dots PLD
(:mod:`accountant.composition.pld`). Add/remove neighbours are refused: the number of
reports is visible and this reduction is for a substitution; no add/remove proof is here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from accountant.core.params import Params, _check_delta, _check_n

__all__ = ["DeploymentResult", "deployment_epsilon", "sampled_pair", "sampled_epsilon",
           "sampled_rounds_epsilon", "check_deployment", "MONOTONE_STATEMENT"]

MONOTONE_STATEMENT = ("the worst-case eps_c of a shuffled randomizer is non-increasing in n "
                      "(one more user's independent report shuffled in is post-processing)")
NEIGHBOURS = ("substitute", "add-remove")
MAX_SAMPLED_ROUNDS = 100_000


@dataclass(frozen=True)
class DeploymentResult:
    """A proved eps_c for a deployment: ``epsilon`` at ``delta`` (``achieved_delta`` <= delta),
    computed as the bound ``bound`` at ``effective_n`` users; ``statement`` says why it holds."""

    epsilon: float
    delta: float
    achieved_delta: Optional[float]
    bound: str
    effective_n: int
    statement: str


def _int_in(name: str, v, lo: int, hi: Optional[int] = None) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v != int(v):
        raise ValueError(f"{name} must be an integer, got {v!r}")
    v = int(v)
    if v < lo or (hi is not None and v > hi):
        rng = f"[{lo}, {hi}]" if hi is not None else f">= {lo}"
        raise ValueError(f"{name} must be an integer in {rng}, got {v}")
    return v


def check_deployment(n: int, *, colluders: int = 0, n_min: Optional[int] = None,
                     dummies: int = 0, sampling: Optional[float] = None,
                     neighbours: str = "substitute") -> int:
    """Validate the deployment arguments before any work; returns the effective n of the
    non-sampling features. Raises ValueError naming the parameter and its valid range."""
    n = _check_n(n)
    colluders = _int_in("colluders", colluders, 0, n - 1)
    dummies = _int_in("dummies", dummies, 0, 10 ** 10)
    if n_min is not None:
        n_min = _int_in("n_min", n_min, 1, 10 ** 10)
        if n_min != n:
            raise ValueError(f"n_min: give the population's lower bound N as n (got n={n}, n_min={n_min})")
    if neighbours not in NEIGHBOURS:
        raise ValueError(f"neighbours must be one of {', '.join(NEIGHBOURS)}, got {neighbours!r}")
    if sampling is not None:
        if isinstance(sampling, bool) or not isinstance(sampling, (int, float)) or not (0.0 < sampling <= 1.0):
            raise ValueError(f"sampling must be a probability q in (0, 1], got {sampling!r}")
        if neighbours == "add-remove":
            raise ValueError("neighbours add-remove with sampling: not proved here (the number of "
                             "reports is visible; the clone reduction used is for substitution); "
                             "use substitute")
        if colluders or dummies:
            raise ValueError("sampling with colluders or dummies: the combination is not proved here")
    eff = n - colluders + dummies
    if eff > 10 ** 10:
        raise ValueError(f"dummies: n - colluders + dummies must be at most 1e10, got {eff}")
    return eff


def deployment_epsilon(params: Params, n: int, delta: float, *, colluders: int = 0,
                       dummies: int = 0, n_min: bool = False, rtol: float = 1e-9) -> DeploymentResult:
    """Proved eps_c with ``colluders`` revealing users, ``dummies`` extra reports drawn as the
    randomizer's output on data-independent inputs, and (``n_min=True``) ``n`` meaning only a
    lower bound on the population: the smallest proved bound at n - colluders + dummies.

    >>> from accountant import make_params
    >>> from accountant.accounting.deployments import deployment_epsilon
    >>> r = deployment_epsilon(make_params("rr", 1.0), 10_000, 1e-6, colluders=1_000)
    >>> r.effective_n
    9000
    """
    from accountant.accounting.shuffle import ShuffleAccountant

    delta = _check_delta(delta)
    eff = check_deployment(n, colluders=colluders, dummies=dummies)
    rep = ShuffleAccountant(params, eff).epsilon_result(delta, rtol=rtol, lower=False, paper=False)
    parts = []
    if colluders:
        parts.append(f"{colluders} colluders reveal their reports: the bound of the {n - colluders} "
                     "honest users (independent side information, same law under both datasets)")
    if dummies:
        parts.append(f"{dummies} dummy reports drawn as the randomizer's output on data-independent "
                     f"inputs: the bound at n + m = {eff} users (joint convexity)")
    if n_min:
        parts.append(f"valid for every n >= {n}: {MONOTONE_STATEMENT}")
    return DeploymentResult(rep.epsilon, delta, rep.achieved_delta, rep.bound, eff, "; ".join(parts))


def _eps0_of(params: Params) -> float:
    eps0 = getattr(params, "eps0", None)
    if eps0 is None or params.name == "variation-ratio":
        raise ValueError("sampling: needs an eps0-LDP randomizer given by --eps0 "
                         "(variation-ratio is not supported)")
    return float(eps0)


def sampled_pair(params: Params, n: int, q: float):
    """The stronger-clone pair of user sampling with probability ``q`` (substitution): C ~
    Bin(n - 1, 2 q a), (1, 0) w.p. e^eps0 q a, (0, 1) w.p. q a, a = 1/(e^eps0 + 1)
    (module docstring); valid for every eps0-LDP randomizer."""
    from accountant.engines.pair.law import DominatingPair

    eps0 = _eps0_of(params)
    check_deployment(n, sampling=q)
    a = 1.0 / (math.exp(eps0) + 1.0)
    e = math.exp(eps0)
    return DominatingPair(n=int(n), c=2.0 * q * a, p=e * q * a, q=q * a,
                          r=(1.0 - q) + q * (1.0 - a * (1.0 + e)))


def sampled_epsilon(params: Params, n: int, delta: float, q: float, rtol: float = 1e-9,
                    neighbours: str = "substitute") -> DeploymentResult:
    """Proved single-round eps_c with Poisson user sampling at rate ``q`` (substitution).

    >>> from accountant import make_params, fmt
    >>> r = sampled_epsilon(make_params("generic", 3.0), 100_000, 1e-5, 0.01)
    >>> r.epsilon < 0.01
    True
    """
    from accountant.bounds.pair_accountant import search_pair_epsilon

    delta = _check_delta(delta)
    check_deployment(n, sampling=q, neighbours=neighbours)
    pair = sampled_pair(params, n, q)
    res = search_pair_epsilon(pair, delta, rtol)
    eps = min(res.epsilon, pair.eps_max)
    return DeploymentResult(eps, delta, res.achieved_delta, "stronger-clone-sampled", n,
                            f"user sampling q = {q:g} (Poisson, substitution): stronger clone pair "
                            "with a -> q a, proved for every eps0-LDP randomizer")


def sampled_rounds_epsilon(params: Params, n: int, delta: float, q: float, rounds: int,
                           steps: int = 400, refine: int = 4) -> DeploymentResult:
    """Proved eps after ``rounds`` rounds with Poisson sampling at rate ``q`` (fresh sample each
    round, substitution): the pessimistic connect-the-dots PLD of the sampled pair's certified
    profile, composed by FFT (:mod:`accountant.composition.pld`)."""
    from accountant.composition import pld as _pld
    from accountant.engines.pair.divergence import hockey_stick_divergence

    delta = _check_delta(delta)
    rounds = _int_in("rounds", rounds, 1, MAX_SAMPLED_ROUNDS)
    pair = sampled_pair(params, n, q)
    cutoff = min(1e-14, delta * 1e-6 / rounds)
    cache: dict = {}

    def prof(eps: float):
        key = round(eps, 15)
        if key not in cache:
            if eps >= pair.eps_max:
                cache[key] = (0.0, 0.0)
            else:
                v = hockey_stick_divergence(pair, eps)
                cache[key] = (v.lower, v.upper)
        return cache[key]

    # support: the first eps (doubling from a small start) where the upper profile <= cutoff;
    # the profile beyond goes to the +inf atom of the pessimistic PLD (validity kept)
    top = min(pair.eps_max, 1e-4)
    while top < pair.eps_max and prof(top)[1] > cutoff:
        top = min(2.0 * top, pair.eps_max)
    step = top / steps
    one = _pld.refine(_pld.from_profile(prof, step, top, True), refine)
    total = _pld.self_compose(one, rounds)
    eps = total.get_epsilon(delta)
    return DeploymentResult(eps, delta, total.get_delta(eps), "stronger-clone-sampled-pld", n,
                            f"{rounds} rounds, user sampling q = {q:g} each (Poisson, substitution): "
                            "pessimistic PLD of the sampled stronger clone pair")
