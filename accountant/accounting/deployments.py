"""Deployments as they are run: colluders, a population known as n >= N, user
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

**User sampling (Poisson, each user takes part w.p. q), substitution neighbours.** The count
T of reports is visible; T ~ Bin(n, q) under both datasets, so the divergence is the sum over
t of P(T = t) times the divergence given T = t (disjoint supports). Given T = t, user 1 took
part with probability eta_t = t/n (exchangeability), so the view is (1 - eta_t) S_t + eta_t P1
against (1 - eta_t) S_t + eta_t Q1, with S_t the shuffle of t other users (a uniform t-subset)
and P1, Q1 the shuffle of user 1 (x1, resp. x1') with t - 1 others. Advanced joint convexity
(Balle, Barthe, Gaboardi, NeurIPS 2018, Theorem 2) with e^eps = 1 + eta_t (e^eps_t - 1):
D_{e^eps}(P_t || Q_t) = eta_t D_{e^eps_t}(P1 || (1 - beta) S_t + beta Q1)
<= eta_t [(1 - beta) D_{e^eps_t}(P1 || S_t) + beta D_{e^eps_t}(P1 || Q1)]. Coupling the
(t-1)-subset of P1 with the t-subset of S_t that adds one user j (uniform j keeps both
marginals), P1 vs S_t and P1 vs Q1 are shuffles of t users differing in one user, so both
divergences are at most f(t, eps_t), any proved upper bound on the worst case over
neighbouring datasets of t users: the clone pair at t users (Feldman, McMillan, Talwar,
FOCS 2021, Theorem 3.2: proved for every eps0-LDP randomizer; the stronger clone pair of
SODA 2023 is not, by its erratum, except for randomizers with its mixture decomposition), or
for a named randomizer its own smallest proved bound where smaller (:func:`count_delta`). Hence
delta(eps) <= sum_t P(T = t) (t/n) f(t, log(1 + (n/t)(e^eps - 1))). f is non-increasing in
the number of users (post-processing, above) and in eps, so on a stratum [t_j, t_{j+1}) the
term is at most ((t_{j+1} - 1)/n) f(t_j, eps at t_{j+1} - 1); the strata's probabilities come from the
binomial CDF with a relative margin, the two tails from Chernoff bounds.
(A first attempt, the clone pair with a -> q a, is NOT valid: it forgets that the count of
reports is visible; the brute force at n = 2 refutes it, see the tests.) The profile is the
same for both orders of the datasets (each bound above is symmetric in x1, x1'), so it
composes over T rounds (a fresh sample each round) through the pessimistic connect-the-dots
PLD (:mod:`accountant.composition.pld`). Over rounds f(t, e) is read from the per-t cache of
:mod:`accountant.accounting.per_count` (chords in e^e between grid points: the truth is convex
in e^e; t rounded down to a grid: the truth is non-increasing in t), still a proved bound.

**Sampling with add/remove neighbours** (D' = D plus user 1): the count laws differ
(Bin(n - 1, q) against Bin(n, q)), the two directions are not symmetric; each is a sum over
the visible count of a hockey-stick divergence of shuffles of t users differing in one user,
at a factor that depends on t (:func:`sampled_delta_add_remove`). The larger of the two
directions is used, so the profile holds for both orders and composes in the same way.
**No clip at eps0 under add/remove.** eps_c <= eps0 holds for substitution (the view is a
post-processing of the n reports, each eps0-LDP); with add/remove the number of reports is itself
a release that eps0-LDP does not cover: all n users take part w.p. q^n and n reports are
impossible without user 1, so delta(eps) >= q^n at every eps (and the visible count alone can
exceed eps0, e.g. binary RR at n = 200, q = 0.8, eps0 = 1, delta = 1e-8). The search's upper end
is found above eps0 (doubling, up to the central-eps cap L.EPS_MAX of :mod:`accountant.core.limits`);
where the proved delta(eps) is above the target there, the result is eps = inf with the reason
(``note``). Over rounds the profile's value at the end of the PLD's support is its +inf atom.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from accountant.accounting.deployment import NEIGHBOURS, Deployment
from accountant.accounting.deployment_search import profile_rounds, smallest_eps
from accountant.accounting.per_count import (ROUNDS_LEVELS, clone_values, count_delta, eps0_of, log_lower_tail,
                                             log_upper_tail, own_bound, own_rounds_max_t, pair_g,
                                             per_count_statement, refine_terms, strata_points)
from accountant.core.params import Params, validate_delta, validate_n

__all__ = ["DeploymentResult", "deployment_epsilon", "sampled_delta", "sampled_delta_add_remove", "sampled_epsilon",
           "sampled_rounds_epsilon", "check_deployment", "profile_rounds", "count_delta", "per_count_statement",
           "strata_points", "MONOTONE_STATEMENT"]

MONOTONE_STATEMENT = ("the worst-case eps_c of a shuffled randomizer is non-increasing in n "
                      "(one more user's independent report shuffled in is post-processing)")
MAX_SAMPLED_ROUNDS = 100_000
ROUNDS_STRATA = 16  # the strata of the profile over rounds (32 for one round): half the evaluations
#: the lower bound's (value, statement, datasets) where it was not asked for (``lower=False``)
NOT_COMPUTED = (None, "lower bound not computed", None)


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
    lower_epsilon: Optional[float] = None
    lower_statement: Optional[str] = None
    lower_dataset: Optional[str] = None
    note: Optional[str] = None  # why ``epsilon`` is inf ("no finite eps_c is proved: ..."), else None


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
    non-sampling features (n - colluders + dummies). Raises ValueError naming the parameter and
    its valid range, or the features that do not combine (:class:`accountant.accounting.deployment.
    Deployment`, its table :data:`~accountant.accounting.deployment.COMBINES`)."""
    n = validate_n(n)
    if n_min is not None:
        n_min = _int_in("n_min", n_min, 1, 10 ** 10)
        if n_min != n:
            raise ValueError(f"n_min: give the population's lower bound N as n (got n={n}, n_min={n_min})")
    if neighbours not in NEIGHBOURS:
        raise ValueError(f"neighbours must be one of {', '.join(NEIGHBOURS)}, got {neighbours!r}")
    dep = Deployment(colluders=colluders, n_min=n_min is not None, dummies=dummies, sampling=sampling,
                     neighbours=None if sampling is None else neighbours)
    dep.check(n)
    return n - dep.colluders + dep.dummies


def deployment_epsilon(params: Params, n: int, delta: float, *, colluders: int = 0,
                       dummies: int = 0, n_min: bool = False, rtol: float = 1e-9,
                       lower: bool = True) -> DeploymentResult:
    """Proved eps_c with ``colluders`` revealing users, ``dummies`` extra reports drawn as the
    randomizer's output on data-independent inputs, and (``n_min=True``) ``n`` meaning only a
    lower bound on the population: the smallest proved bound at n - colluders + dummies
    (``lower=False``: without the certified lower bound).

    >>> from accountant import make_params
    >>> from accountant.accounting.deployments import deployment_epsilon
    >>> r = deployment_epsilon(make_params("rr", 1.0), 10_000, 1e-6, colluders=1_000)
    >>> r.effective_n
    9000
    """
    from accountant.accounting.shuffle import ShuffleAccountant

    delta = validate_delta(delta)
    eff = check_deployment(n, colluders=colluders, dummies=dummies)
    # no dummies: the view's divergence EQUALS that of the n - c honest users for every pair
    # of datasets (colluders), and n = N is one of the populations n >= N, so the certified
    # lower bound at n - c is one for the deployment too
    rep = ShuffleAccountant(params, eff).epsilon_result(delta, rtol=rtol, lower=lower and not dummies, paper=False)
    parts = [text for cond, text in (
        (colluders, f"{colluders} colluders reveal their reports: the bound of the {n - colluders} "
                    "honest users (independent side information, same law under both datasets)"),
        (dummies, f"{dummies} dummy reports drawn as the randomizer's output on data-independent "
                  f"inputs: the bound at n + m = {eff} users (joint convexity)"),
        (n_min, f"valid for every n >= {n}: {MONOTONE_STATEMENT}")) if cond]
    lo, lo_st, lo_ds = _deployment_lower(params, rep, n - colluders, dummies, delta, colluders, n_min) \
        if lower else NOT_COMPUTED
    return DeploymentResult(rep.epsilon, delta, rep.achieved_delta, rep.bound, eff, "; ".join(parts), lo, lo_st,
                            lo_ds)


def _deployment_lower(params: Params, rep, honest: int, dummies: int, delta: float, colluders: int,
                      n_min: bool) -> tuple:
    """(lower eps, statement, datasets) of :func:`deployment_epsilon` (None, reason, None)."""
    why = [text for cond, text in (
        (colluders, f"the {honest} honest users' pair (the colluders' reports are independent side "
                    "information: equal divergences; the colluders' inputs any)"),
        (n_min, f"n = {honest + colluders} is one of the populations n >= N, so a lower bound at N "
                "is one on the worst case over n >= N")) if cond]
    from accountant.accounting import deployment_lower as DL

    if dummies or rep.lower_epsilon is None:  # the count pair (with the m dummies)
        lo, st, ds = DL.count_rounds_lower(params, honest, dummies, 1, delta, rep.epsilon, why)
        if lo is None and not dummies and not why:
            return None, None, None
        return lo, st, ds
    ds = rep.lower_dataset + (f", hash model {rep.lower_hash_model}" if rep.lower_hash_model else "")
    return DL.ordered(rep.lower_epsilon, rep.epsilon, "; ".join([f"the certified lower bound at {honest} users"]
                                                                 + why) if why else "the certified lower bound", ds)


def deployment_rounds_epsilon(spec, rounds: int, delta: float, *, colluders: int = 0, dummies: int = 0,
                              n_min: bool = False, lower: bool = True) -> DeploymentResult:
    """Proved eps_c after ``rounds`` rounds of the deployment of :func:`deployment_epsilon`
    (``spec``: one round as a :class:`accountant.composition.rounds.RoundSpec` at the stated n,
    Collision / CoCo with the dimension ``d`` that their lower bounds' datasets need).

    Every round's pair of views is dominated by the worst-case pair at n_eff = n - c + m users:
    colluders' reports are side information of the same law under both datasets (the pair
    (P x W, Q x W) has the privacy loss distribution of (P, Q)); dummies make the view a mixture,
    with the same weights under both datasets, of shuffles of n + m users (its profile is at
    most the worst case at n + m); a population n >= N has a profile at most the one at N
    (post-processing).  A pair whose profile lies below the connect-the-dots points is dominated
    by their pair, so the composition of the rounds' profile at n_eff
    (:func:`accountant.composition.compose.compose_rounds`, pessimistic PLD) bounds the
    deployment's T rounds, each with fresh reports (and fresh dummies). ``lower=False``: without
    the composed certified lower bound."""
    from dataclasses import replace

    from accountant.composition.compose import compose_rounds

    delta = validate_delta(delta)
    eff = check_deployment(spec.n, colluders=colluders, dummies=dummies)
    # no dummies: the round at n - c is the honest users' round (equal privacy loss), and n = N is
    # one of the populations: its composed lower bound is one for the deployment
    r = compose_rounds(replace(spec, n=eff), rounds, delta, lower=lower and not dummies)
    parts = [f"{rounds} rounds, each bounded by the worst case at n_eff = {eff} users"]
    if colluders:
        parts.append(f"{colluders} colluders: the {spec.n - colluders} honest users' pair (same privacy loss)")
    if dummies:
        parts.append(f"{dummies} dummies per round: a mixture of shuffles of n + m users")
    if n_min:
        parts.append(f"valid for every n >= {spec.n}: {MONOTONE_STATEMENT}")
    parts.append("composed: pessimistic PLD of the per-round profile")
    from accountant.accounting.deployment_lower import rounds_lower

    lo, lo_st, lo_ds = rounds_lower(spec, r, rounds, delta, colluders, dummies, n_min) if lower else NOT_COMPUTED
    return DeploymentResult(r.epsilon, delta, None, f"composed ({r.source})", eff, "; ".join(parts),
                            lo, lo_st, lo_ds)



def sampled_delta(params: Params, n: int, q: float, eps: float, strata: int = 32,
                  width: float = 10.0, mechanism: bool = True, names: Optional[set] = None,
                  chord: tuple = ()) -> float:
    """Proved delta(eps) with Poisson sampling at rate ``q`` (substitution), module docstring:
    delta(eps) <= sum_t P(T = t) (t/n) f(t, log(1 + (n/t)(e^eps - 1))), T ~ Bin(n, q) the
    number of reports, f(t, e) a proved per-count bound (:func:`count_delta`: the clone pair of
    FMT21, or with ``mechanism`` the randomizer's own proved bound where smaller), bounded on
    strata [t_j, t_{j+1}) by ((t_{j+1} - 1)/n) f(t_j, e at t_{j+1} - 1) (the truth is non-increasing
    in the number of users and in e), the strata's probabilities from the binomial CDF with a
    relative margin and the two tails by Chernoff. ``names`` collects the bounds used; ``chord``:
    :func:`count_delta`'s (its per-t cache read as chords in e^e, over rounds)."""
    from scipy.stats import binom

    eps0 = eps0_of(params)
    if eps >= eps0:
        return 0.0
    names = set() if names is None else names
    em1 = math.expm1(eps)

    def e_at(t_eps: int) -> float:
        return math.log1p(n / t_eps * em1)

    pts = [n] if q >= 1.0 else strata_points(n * q, math.sqrt(n * q * (1 - q)), 1, n, strata, width)
    t0, tJ = pts[0], pts[-1]
    total = math.exp(log_lower_tail(n, q, t0)) * (t0 / n) if t0 > 1 else 0.0  # T < t0
    cdf = binom.cdf(np.array(pts) - 1, n, q)
    terms = []
    for j in range(len(pts) - 1):
        lo, hi = pts[j], pts[j + 1]
        mass = min(1.0, (float(cdf[j + 1] - cdf[j]) + 1e-15) * (1 + 1e-9))  # P(lo <= T < hi)
        terms.append([mass, (hi - 1) / n, None, (lo, e_at(hi - 1))])  # t <= hi - 1 in the stratum
    top = min(1.0, math.exp(log_upper_tail(n, q, tJ - 1)) + 1e-15)  # P(T >= tJ)
    terms.append([top, 1.0, None, (tJ, e_at(n))])
    clone_values(params, terms, lambda a: count_delta(params, a[0], a[1], False, chord)[0])
    total += refine_terms(terms, names, lambda a: count_delta(params, a[0], a[1], mechanism, chord))
    return min(1.0, total * (1 + 1e-12))



def sampled_delta_add_remove(params: Params, n: int, q: float, eps: float, strata: int = 32,
                             width: float = 10.0, mechanism: bool = True,
                             names: Optional[set] = None, chord: tuple = ()) -> float:
    """Proved delta(eps) with Poisson sampling at rate ``q`` for add/remove neighbours: D has
    the n - 1 others, D' also user 1; the larger of the two directions.

    K ~ Bin(n - 1, q) others take part, pi its pmf; the count of reports is visible. Removal
    direction: D_{e^eps}(P' || P) = sum_t q pi(t-1) D_{g_t}(P1_{t-1} || S_t) with
    g_t = (e^eps - 1 + q) pi(t) / (q pi(t-1)) = (e^eps - 1 + q)(n - t) / (t (1 - q));
    addition direction: D_{e^eps}(P || P') = sum_t pi(t) c D_{h_t}(S_t || P1_{t-1}) with
    c = 1 - e^eps (1 - q) (0 if c <= 0) and h_t = e^eps t (1 - q) / ((n - t) c). P1_{t-1}
    against S_t are shuffles of t users differing in one user (coupling as for substitution):
    each term is at most :func:`pair_g` at t users, which bounds a quantity non-increasing in
    t (post-processing) and in gamma, so a stratum [lo, hi) is bounded by its mass times
    pair_g(lo, the smallest gamma of the stratum); tails by Chernoff with g <= 1.
    """
    eps0_of(params)
    names = set() if names is None else names
    n1 = n - 1
    if n1 == 0:
        return min(1.0, q * (1 + 1e-12))  # only user 1: present or not is seen
    em1 = math.expm1(eps)
    c = -math.expm1(eps + math.log1p(-q)) if q < 1.0 else 1.0  # 1 - e^eps (1 - q)
    mu, sd = n1 * q, math.sqrt(n1 * q * (1 - q))
    ks = strata_points(mu, sd, 0, n1, strata, width)
    from scipy.stats import binom

    cdf = binom.cdf(np.array(ks) - 1, n1, q)  # P(K < k)
    low = math.exp(log_lower_tail(n1, q, ks[0]))
    high = min(1.0, math.exp(log_upper_tail(n1, q, ks[-1] - 1)) + 1e-15)  # P(K >= k_J)

    def strat(arg):  # sum over strata of P(lo <= K < hi) g(users, gamma): arg(lo, hi) -> (users, gamma)
        terms = []
        for j in range(len(ks) - 1):
            lo, hi = ks[j], ks[j + 1]
            mass = min(1.0, (float(cdf[j + 1] - cdf[j]) + 1e-15) * (1 + 1e-9))
            terms.append([mass, 1.0, None, arg(lo, hi)])
        clone_values(params, terms, lambda a: pair_g(params, a[0], a[1], False, chord)[0])
        return low + high + refine_terms(terms, names, lambda a: pair_g(params, a[0], a[1], mechanism, chord))

    # removal: K = t - 1; gamma decreasing in t: smallest at t = hi (K = hi - 1), users >= lo + 1
    def rem(lo, hi):
        t = hi
        g = 0.0 if t >= n else (em1 + q) * (n - t) / (t * (1 - q)) if q < 1.0 else 0.0
        return lo + 1, g

    total = q * strat(rem)
    if c > 0:
        # addition: K = t; gamma increasing in t: smallest at t = lo, users >= lo
        def add(lo, hi):
            t = lo
            g = 0.0 if t == 0 else math.exp(eps) * t * (1 - q) / ((n - t) * c)
            return lo, g

        total = max(total, c * strat(add))
    return min(1.0, total * (1 + 1e-12))


def sampled_epsilon(params: Params, n: int, delta: float, q: float, rtol: float = 1e-6,
                    neighbours: str = "substitute", mechanism: bool = True, lower: bool = True) -> DeploymentResult:
    """Proved single-round eps_c with Poisson user sampling at rate ``q`` (substitution, or
    add/remove with ``neighbours="add-remove"``). Substitution: eps_c <= eps0 (post-processing of
    the n reports). Add/remove: not clipped at eps0 (the count of reports is itself a release that
    eps0-LDP does not cover); where the proved delta(eps) stays above ``delta`` up to L.EPS_MAX the
    result is eps = inf with the reason in ``note`` (all n users take part w.p. q^n, and n reports
    are impossible without user 1: delta(eps) >= q^n at every eps). ``lower=False``: without the
    certified lower bound.

    >>> from accountant import make_params, fmt
    >>> r = sampled_epsilon(make_params("generic", 3.0), 100_000, 1e-5, 0.01)
    >>> r.epsilon < 0.01
    True
    >>> sampled_epsilon(make_params("rr", 0.5), 2, 1e-4, 0.3, neighbours="add-remove").epsilon
    inf
    """
    delta = validate_delta(delta)
    check_deployment(n, sampling=q, neighbours=neighbours)
    eps0 = eps0_of(params)
    names: set = set()
    base = sampled_delta if neighbours == "substitute" else sampled_delta_add_remove

    def dfun(params, n, q, eps):
        return base(params, n, q, eps, mechanism=mechanism, names=names)
    # the iteration's start at 0: the clone only (cheap; an upper bound as well); at eps0: 0
    # (substitution). The bracket's upper end from below, by factors of 10 (where delta(eps) is
    # far below the target the per-count bounds take their slow, precise paths) with the clone
    # alone (an upper bound too); a named randomizer's own bound may be smaller, so its search
    # starts at 0
    sub = neighbours == "substitute"
    lo, d_lo, hi, d_hi = 0.0, base(params, n, q, 0.0, mechanism=False), eps0, (0.0 if sub else None)
    clone_only = not mechanism or not own_bound(params)
    d0, e = d_lo, eps0 * 1e-6
    while d_lo > delta and e < eps0:
        d = base(params, n, q, e, mechanism=False)
        if d <= delta:
            hi, d_hi = e, d
            break
        lo, d_lo, e = e, d, 10.0 * e
    note = None
    if d_hi is None and d_lo <= delta:  # add/remove, met at eps = 0
        hi, d_hi = lo, d_lo
    elif d_hi is None:  # add/remove: no clip at eps0, the upper end above it
        lo, d_lo, hi, d_hi = _above_eps0(lambda e, own: (dfun(params, n, q, e) if own else
                                                         base(params, n, q, e, mechanism=False)),
                                         delta, eps0, lo, d_lo, not clone_only)
        if hi is None:
            from accountant.accounting import deployment_lower as DL

            note = DL.no_finite_reason(n, q, delta)
    if note is None:
        if not clone_only:  # where the clone's answer is tiny, its own bound at 0 first (it may meet the target)
            lo, d_lo = 0.0, (None if d0 > delta and hi <= eps0 * 1e-6 else d0)
        eps, ach = smallest_eps(lambda e: dfun(params, n, q, e), delta, hi, max(rtol, 1e-9), d_hi=d_hi,
                                d_lo=d_lo, lo=lo)
    else:
        eps, ach = math.inf, None
    per, proof = per_count_statement(params, names)
    from accountant.accounting import deployment_lower as DL

    lo, lo_st, lo_ds = DL.sampled_lower(params, n, delta, q, 1, eps, neighbours) if lower else NOT_COMPUTED
    if sub:
        why = (f"delta <= sum_t P(T = t) (t/n) f(t, eps_t), T ~ Bin(n, q) reports, f {per} "
               "(advanced joint convexity)")
    else:
        why = ("both directions summed over the visible count of reports, each term "
               + (per if per.endswith("at t users") else f"{per} at t users"))
    return DeploymentResult(eps, delta, ach, f"{proof}-sampled", n,
                            f"user sampling q = {q:g} (Poisson, {neighbours}): {why}", lo, lo_st, lo_ds, note)


def _above_eps0(dfun, delta: float, eps0: float, lo: float, d_lo: float, own: bool) -> tuple:
    """Add/remove: (lo, d_lo, hi, d_hi) with the proved dfun(hi, False) <= delta (``dfun(e,
    False)``: the clone alone, ``dfun(e, True)``: with the named randomizer's own bound, at most
    it), searched from eps0 on, each point max(2 e, e + 1/2), up to L.EPS_MAX (there also with
    the own bound where ``own``); (lo, d_lo, None, None) where none meets ``delta``."""
    from accountant.core import limits as L

    e = eps0
    while True:
        d = dfun(e, False)
        if d > delta and e >= L.EPS_MAX and own:
            d = min(d, dfun(e, True))
        if d <= delta:
            return lo, d_lo, e, d
        if e >= L.EPS_MAX:
            return lo, d_lo, None, None
        lo, d_lo, e = e, d, min(max(2.0 * e, e + 0.5), L.EPS_MAX)


def sampled_rounds_epsilon(params: Params, n: int, delta: float, q: float, rounds: int,
                           steps: int = 100, refine: int = 1,
                           neighbours: str = "substitute", mechanism: bool = True,
                           lower: bool = True, strata: Optional[int] = None, cache: bool = True) -> DeploymentResult:
    """Proved eps after ``rounds`` rounds with Poisson sampling at rate ``q`` (fresh sample each
    round, substitution or add/remove): the pessimistic connect-the-dots PLD of the sampled pair's certified
    profile, composed by FFT (:mod:`accountant.composition.pld`). Substitution: the profile is 0
    from eps0 on. Add/remove: it is not (the count of reports); the support runs to where the
    profile is within the cutoff of its value at L.EPS_MAX, and the profile's value at the
    support's end is the +inf atom (pessimistic), so the result is inf (``note`` says why) where
    the composed atom is above ``delta``. The per-count bound is the
    named randomizer's own bound where smaller than the clone pair (``mechanism``, the default;
    the clone alone for ``generic``), read from the per-t chord cache of
    :mod:`accountant.accounting.per_count` (t rounded down to its grid, ``ROUNDS_STRATA`` strata:
    the about 110 profile points share a few hundred evaluations; 4-RR at the anchor, T = 10:
    5.6 s of CPU instead of 36 s); the bound's name says which per-count bounds were used.
    ``strata``: the strata of the sum (default ROUNDS_STRATA with the own bound, else 32);
    ``cache=False``: the own bound evaluated at every point on 32 strata (e rounded down to the
    grid exp(i / 256), as in one round: tighter for binary RR, minutes). ``refine`` stays 1: the
    connect-the-dots losses lie on the lattice of the profile's step and convolutions keep them
    there, so a finer grid only enlarges the FFTs (docs/BENCHMARKS.md). With ``lower`` and
    binary RR (either relation) neighbours, also the certified lower bound of the named pair of
    :mod:`accountant.accounting.deployment_lower` used in every round (T <= LOWER_MAX_ROUNDS)."""
    delta = validate_delta(delta)
    rounds = _int_in("rounds", rounds, 1, MAX_SAMPLED_ROUNDS)
    eps_max = eps0_of(params)
    check_deployment(n, sampling=q, neighbours=neighbours)
    sub = neighbours == "substitute"
    if not sub:  # add/remove: the profile does not vanish at eps0; its value at EPS_MAX goes into the +inf atom
        from accountant.core import limits as L

        eps_max = L.EPS_MAX
    names: set = set()
    base = sampled_delta if neighbours == "substitute" else sampled_delta_add_remove
    # the own bound through the per-t chord cache on ROUNDS_STRATA strata; the clone alone as in one round
    if n * q > own_rounds_max_t(params):  # OUE at n q > 1e6: the clone alone
        mechanism = False
    own = cache and mechanism and own_bound(params)
    strata = (ROUNDS_STRATA if own else 32) if strata is None else strata
    eps, ach = profile_rounds(lambda e: base(params, n, q, e, strata, mechanism=mechanism, names=names,
                                             chord=ROUNDS_LEVELS if own else ()), eps_max, rounds, delta, steps,
                              refine, vanishes=sub)
    per, proof = per_count_statement(params, names)
    lo, lo_st, lo_ds = None, None, None
    from accountant.accounting import deployment_lower as DL

    note = None
    if eps == math.inf:  # the composed +inf atom (ach: the composed delta at eps = inf) is above delta
        note, ach = DL.no_finite_reason(n, q, delta, rounds, ach), None
    if lower:
        lo, lo_st, lo_ds = DL.sampled_lower(params, n, delta, q, rounds, eps, neighbours)
    return DeploymentResult(eps, delta, ach, f"{proof}-sampled-pld", n,
                            f"{rounds} rounds, user sampling q = {q:g} each (Poisson, {neighbours}): "
                            f"pessimistic PLD of the sampled profile, per count {per}", lo, lo_st, lo_ds, note)
