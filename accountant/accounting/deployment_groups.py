"""Deployments where users are not alike: several reports per user (``reports``)
and groups of users with their own randomizer (``mix``). Every number is a proved upper
bound on eps_c, the smaller of the arguments below, each named in the result.

**Several reports per user.** Each user sends r reports, each an independent eps0-LDP
randomisation of its input; all n r reports are shuffled together; neighbouring datasets
differ in one user's input (so in all r of its reports).
(i) *One randomizer*: the map x -> (R(x), ..., R(x)) is (r eps0)-LDP (basic composition).
Shuffling the n r reports individually is a post-processing of shuffling the n users'
r-tuples (shuffle the tuples, then shuffle all reports), so eps_c is at most the proved
bound for every (r eps0)-LDP randomizer (the generic one: the FMT21 clone pair) at n users.
(ii) *Group privacy over hybrids*: move from D to D' in r steps, step i changing the i-th
report of the differing user. Two consecutive hybrids are the shuffles of n r independent
reports that differ in one report, i.e. neighbouring datasets of n r "users" of the same
randomizer R (the other reports' inputs fixed: a worst case over datasets covers them). With
(eps1, delta1) the proved bound of R at n r users, the chain gives
(r eps1, delta1 sum_{i<r} e^{i eps1})-DP. For a target eps the bound at eps1 = eps / r; for a
target delta the accountant's own proved eps1 at n r users (binary RR's search over every
dataset included) for delta / S, S = sum_{i<r} e^{i c} taken at a point c >= eps1
(:func:`_hybrid_epsilon`). Su, Cheng and Wang's joint composition (arXiv 2504.07414: the blanket
of the r reports linked in one message) is above (ii) at every anchor we ran
(docs/deployments.md), so it is not a candidate here.

**Mixed randomizers.** Groups g = 1..G of n_g users, each with its own randomizer R_g.
(a) *Worst group*: if the differing user is in group g, the other groups' reports are
independent of group g's and have the same law under both datasets; the view (all reports
shuffled together) is a post-processing of (the shuffle of group g, the other groups'
reports), and independent side information of the same law leaves the hockey-stick
divergence unchanged: at most the proved bound of R_g at n_g users. The neighbour may be in
any group: the largest over the groups (the worst group is named).
(b) *One family, the largest eps0*: for k-RR with one k (binary RR is k = 2), k-RR at eps is
k-RR at a larger eps_max applied to an input that is replaced, with probability
mu = 1 - (e^eps - 1)(e^eps_max + k - 1) / ((e^eps + k - 1)(e^eps_max - 1)), by a uniform input
(k-RR at eps keeps its input w.p. (e^eps - 1)/(e^eps + k - 1), otherwise reports a uniform
value, and k-RR of a uniform input is uniform). The replacements are data-independent coins;
given them, the view is the shuffle of n users of k-RR at eps_max whose datasets are
neighbours or (the differing user's input replaced) equal. Joint convexity over the coins:
at most the proved bound of k-RR at eps_max with all n users.
"""
from __future__ import annotations

import math
from typing import Optional

from accountant.accounting import deployment_lower as DL
from accountant.accounting.deployment_search import profile_rounds, smallest_eps
from accountant.accounting.deployment import MAX_REPORTS, MIX_KEYS, parse_mix  # noqa: F401 (re-exported)
from accountant.accounting.deployments import NOT_COMPUTED, DeploymentResult
from accountant.core.params import KRRParams, Params, make_params, validate_delta, validate_n

__all__ = ["reports_delta", "reports_epsilon", "parse_mix", "mix_epsilon", "mix_delta", "reports_rounds_epsilon",
           "mix_rounds_epsilon", "MAX_REPORTS", "MAX_ROUNDS", "MIX_KEYS"]

#: the largest eps the count pairs' lower-bound search starts from (e^eps stays a float)
LOWER_TOP = 700.0
MAX_ROUNDS = 100_000


def _check_reports(n, r) -> tuple:
    n = validate_n(n)
    if isinstance(r, bool) or not isinstance(r, (int, float)) or not math.isfinite(r) or r != int(r) \
            or not 1 <= r <= MAX_REPORTS:
        raise ValueError(f"reports must be an integer in [1, {MAX_REPORTS}], got {r!r}")
    r = int(r)
    if n * r > 10 ** 10:
        raise ValueError(f"reports: n * r must be at most 1e10, got {n * r:g}")
    return n, r


def _generic_r(params: Params, r: int) -> Optional[Params]:
    """The generic (r eps0)-LDP randomizer of (i), or None where r eps0 is out of range."""
    try:
        return make_params("generic", r * float(params.eps0))
    except (ValueError, TypeError):
        return None


def reports_delta(params: Params, n: int, r: int, eps: float) -> tuple:
    """(delta, which) : a proved upper bound on delta at ``eps`` with ``r`` reports per user,
    the smaller of (i) one (r eps0)-LDP randomizer at n users and (ii) group privacy over r
    hybrids of the single-report bound at n r users (module docstring)."""
    from accountant.bounds.registry import proved_delta

    n, r = _check_reports(n, r)
    if r == 1:
        return proved_delta(params, n, eps, exact_max_n=0)[0], "one report"
    best = (1.0, "trivial")
    g = _generic_r(params, r)
    if g is not None:
        d = proved_delta(g, n, eps, exact_max_n=0)[0]
        best = min(best, (d, f"(i) one {r * params.eps0:g}-LDP randomizer at n = {n}"))
    e1 = eps / r
    d1 = proved_delta(params, n * r, e1, exact_max_n=0)[0]
    d = min(1.0, d1 * _hybrid_sum(r, e1) * (1 + 1e-12))
    return min(best, (d, f"(ii) group privacy over {r} hybrids, each the bound at n r = {n * r}"))


def _hybrid_sum(r: int, e1: float) -> float:
    """sum_{i<r} e^{i e1}: (ii)'s factor on the single-report delta (callers add the 1e-12 margin
    that covers its rounding)."""
    return sum(math.exp(i * e1) for i in range(r))


#: (ii)'s fixed point: the next S(.) is taken at eps1 (1 + HYBRID_STEP), so one more inverse settles it
HYBRID_STEP = 1e-4


def _hybrid_epsilon(params: Params, n: int, r: int, delta: float, rtol: float) -> Optional[tuple]:
    """(eps, achieved delta, bound name) of (ii) from the accountant's own inverse, or None.
    With S(e) = sum_{i<r} e^{i e}: if the proved eps1 of one report at n r users for the target
    delta / S(c) is <= c, then delta1(eps1) S(eps1) <= delta (S increases), so r eps1 is proved.
    c starts at 0 (target delta / r, a lower end: the answer's eps1 is at least this one) and
    moves just above each eps1 found; S changes little over the steps, so two or three inverses
    replace an eps search of about ten delta evaluations. None if it does not settle in 8."""
    from accountant.bounds.registry import proved_params_epsilon

    cap = 0.0
    for _ in range(8):
        s = _hybrid_sum(r, cap) * (1 + 1e-12)
        res = proved_params_epsilon(params, n * r, delta / s, rtol)
        if res is None or not res.applicable or res.epsilon is None:
            return None
        e1 = float(res.epsilon)
        if e1 <= cap:
            ach = delta if res.achieved_delta is None else min(delta, res.achieved_delta * s)
            return r * e1, ach, res.name
        cap = e1 * (1.0 + HYBRID_STEP)
    return None


def reports_epsilon(params: Params, n: int, delta: float, r: int, rtol: float = 1e-6,
                    lower: bool = True) -> DeploymentResult:
    """Proved eps_c with ``r`` reports per user (module docstring): the smaller of (i) the
    proved eps_c of one (r eps0)-LDP randomizer at n users and (ii) r eps1 with
    delta1(eps1) sum_{i<r} e^{i eps1} <= delta, eps1 from the accountant's inverse at n r users
    (:func:`_hybrid_epsilon`; if that does not settle, a search of :func:`reports_delta`'s (ii));
    ``lower=False``: without the certified lower bound.

    >>> from accountant import make_params
    >>> r = reports_epsilon(make_params("rr", 1.0), 10_000, 1e-6, 2)
    >>> r.epsilon < 2.0
    True
    """
    from accountant.bounds.registry import proved_delta, proved_params_epsilon

    delta = validate_delta(delta)
    n, r = _check_reports(n, r)
    cands = [(r * float(params.eps0), 0.0, f"r eps0 (basic composition of the {r} reports)", "post-processing")]
    g = _generic_r(params, r) if r > 1 else params
    if g is not None:
        res = proved_params_epsilon(g, n, delta, max(rtol, 1e-9))
        if res is not None and res.applicable and res.epsilon is not None:
            cands.append((float(res.epsilon), res.achieved_delta,
                          f"(i) one {r * params.eps0:g}-LDP randomizer at n = {n} ({res.name})" if r > 1
                          else f"one report per user: the proved bound ({res.name})", "reports-i" if r > 1 else res.name))
    if r > 1:
        out = _hybrid_epsilon(params, n, r, delta, max(rtol, 1e-9))
        if out is None:  # the fixed point did not settle: search (ii)'s delta(eps) itself
            def d2(e):
                e1 = e / r
                d1 = proved_delta(params, n * r, e1, exact_max_n=0)[0]
                return min(1.0, d1 * _hybrid_sum(r, e1) * (1 + 1e-12))
            out = smallest_eps(d2, delta, min(c[0] for c in cands), max(rtol, 1e-9))
            if out is not None:
                out = out + (proved_delta(params, n * r, out[0] / r, exact_max_n=0)[1],)
        if out is not None:
            cands.append((out[0], out[1], f"(ii) group privacy over {r} hybrids, each the bound at "
                          f"n r = {n * r} users ({out[2]})", "reports-ii"))
    eps, ach, which, name = min(cands)
    lo, st, ds = _lower(lambda: [DL.reports_pair(params, n, r)], delta, r * float(params.eps0), eps) \
        if lower else NOT_COMPUTED
    return DeploymentResult(eps, delta, ach, name, n * r,
                            f"{r} reports per user, all n r = {n * r} shuffled together: {which}", lo, st, ds)


def _lower(pairs, delta: float, top: float, upper: float, rounds: int = 1) -> tuple:
    """(lower eps, statement, datasets): the largest certified lower bound over the count pairs
    ``pairs()`` (:mod:`accountant.accounting.deployment_lower`), or (None, the reason, None).
    Over ``rounds`` > 1 rounds only the pair with the largest one-round lower bound is composed
    (any pair's composition is a lower bound; this halves a two-group mix's FFTs). ``top`` is
    capped at :data:`LOWER_TOP` (r eps0 can reach 1000 x 20; e^top must be a float; a search
    below a smaller top still returns a lower bound)."""
    top = min(top, LOWER_TOP)
    try:
        found, why = [], []
        for p in pairs():  # any group's pair is a lower bound: those without one are left out
            if isinstance(p, ValueError):
                why.append(str(p))
            else:
                found.append((DL.pair_lower_epsilon(p, delta, top), p.datasets, p))
        if not found:
            raise ValueError("; ".join(dict.fromkeys(why)))
        lo, ds, pair = max(found, key=lambda f: f[0])
        if rounds > 1:
            lo, why = DL.pair_rounds_lower_epsilon(pair, delta, top, rounds, upper)
            if lo is None:
                return None, f"lower bound {why}", None
    except ValueError as exc:
        return None, f"lower bound {exc}", None
    st = pair.lower if rounds == 1 else pair.lower + ", " + DL.ROUNDS_LOWER.format(T=rounds)
    return DL.ordered(lo, upper, st, ds)


def _mix_pairs(groups: list) -> list:
    """The count pair of each group holding the differing user, or the ValueError saying why not."""
    out = []
    for g in range(len(groups)):
        try:
            out.append(DL.mix_pair(groups, g))
        except ValueError as exc:
            out.append(exc)
    return out


def _family(groups: list) -> Optional[Params]:
    """k-RR with one k (or binary RR) in every group, one registry name for all: the one at the
    largest eps0, else None."""
    if all(isinstance(p, KRRParams) for _, p in groups) and len({(p.name, p.k) for _, p in groups}) == 1:
        return max((p for _, p in groups), key=lambda p: p.eps0)
    return None


def mix_delta(groups: list, eps: float) -> tuple:
    """(delta, which): proved delta at ``eps`` for the mixed deployment, the smaller of (a) the
    worst group alone and (b) one family at the largest eps0 with all n users."""
    from accountant.bounds.registry import proved_delta

    worst = max(((proved_delta(p, c, eps, exact_max_n=0)[0], i) for i, (c, p) in enumerate(groups, 1)))
    best = (worst[0], f"(a) the worst group, group {worst[1]} alone ({groups[worst[1] - 1][0]} users)")
    top = _family(groups)
    if top is not None:
        n = sum(c for c, _ in groups)
        d = proved_delta(top, n, eps, exact_max_n=0)[0]
        if d < best[0]:
            best = (d, f"(b) {top.name} at the largest eps0 = {top.eps0:g} with all {n} users")
    return best


def mix_epsilon(groups: list, delta: float, rtol: float = 1e-6) -> DeploymentResult:
    """Proved eps_c for groups of users with their own randomizers (module docstring): the
    smaller of (a) the largest over the groups of the group's proved eps_c alone (a group g
    that is (eps_g, delta)-DP is (max eps, delta)-DP) and (b) one family at the largest eps0
    with all n users; each eps_c from the accountant's own search.

    >>> from accountant.accounting.deployment_groups import mix_epsilon, parse_mix
    >>> g = parse_mix([{"count": 5000, "mechanism": "rr", "eps0": 1}, {"count": 5000, "mechanism": "rr", "eps0": 2}])
    >>> r = mix_epsilon(g, 1e-6)
    >>> r.bound
    'mix-b'
    """
    from accountant.bounds.registry import proved_params_epsilon

    delta = validate_delta(delta)
    n = sum(c for c, _ in groups)

    def eps_of(p, m):
        res = proved_params_epsilon(p, m, delta, max(rtol, 1e-9))
        if res is None or not res.applicable or res.epsilon is None:
            return float(p.eps0), 0.0, "post-processing"
        return float(res.epsilon), res.achieved_delta, res.name

    per = [eps_of(p, c) for c, p in groups]
    wg = max(range(len(groups)), key=lambda i: per[i][0])
    eps, ach, name = per[wg]
    which = f"(a) the worst group, group {wg + 1} alone ({groups[wg][0]} users, {name})"
    top = _family(groups)
    if top is not None:
        e2, a2, n2 = eps_of(top, n)
        if e2 < eps:
            eps, ach, which = e2, a2, f"(b) {top.name} at the largest eps0 = {top.eps0:g} with all {n} users ({n2})"
    lo, st, ds = _lower(lambda: _mix_pairs(groups), delta, max(float(p.eps0) for _, p in groups), eps)
    return DeploymentResult(eps, delta, ach, "mix-" + which[1:which.index(")")], n,
                            f"{len(groups)} groups, {n} users: {which}; worst group alone: group {wg + 1}",
                            lo, st, ds)


def _check_rounds(rounds) -> int:
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= MAX_ROUNDS:
        raise ValueError(f"rounds must be an integer in [1, {MAX_ROUNDS}], got {rounds!r}")
    return rounds


_ROUNDS_WHY = ("composed: the pessimistic connect-the-dots PLD of that profile (a minimum of upper bounds "
               "on delta(eps) is one; symmetric in the two datasets)")


def reports_rounds_epsilon(params: Params, n: int, delta: float, r: int, rounds: int,
                           steps: int = 100, lower: bool = True) -> DeploymentResult:
    """Proved eps_c after ``rounds`` rounds, each with ``r`` fresh reports per user: the round's
    profile is :func:`reports_delta` (the smaller of (i) and (ii) at every eps, each a proved
    upper bound on sup over neighbouring datasets, so the same for both orders), composed by
    :func:`accountant.accounting.deployment_search.profile_rounds`. 0 from eps = r eps0 on (basic
    composition of the r reports). ``lower=False``: without the composed certified lower bound.

    >>> from accountant import make_params
    >>> one = reports_rounds_epsilon(make_params("rr", 1.0), 10_000, 1e-6, 2, 1)
    >>> ten = reports_rounds_epsilon(make_params("rr", 1.0), 10_000, 1e-6, 2, 10)
    >>> one.epsilon < ten.epsilon < 10 * one.epsilon
    True
    """
    delta = validate_delta(delta)
    n, r = _check_reports(n, r)
    rounds = _check_rounds(rounds)
    names: set = set()

    def dfun(e: float) -> float:
        d, which = reports_delta(params, n, r, e)
        names.add("one report" if r == 1 else which.split(" ")[0])
        return d

    eps, ach = profile_rounds(dfun, r * float(params.eps0), rounds, delta, steps)
    lo, st, ds = _lower(lambda: [DL.reports_pair(params, n, r)], delta, r * float(params.eps0), eps, rounds) \
        if lower else NOT_COMPUTED
    return DeploymentResult(eps, delta, ach, "reports-pld", n * r,
                            f"{rounds} rounds, {r} reports per user each: per round the smaller proved profile "
                            f"at each eps (used: {', '.join(sorted(names))}; docs/deployments.md); {_ROUNDS_WHY}",
                            lo, st, ds)


def mix_rounds_epsilon(groups: list, delta: float, rounds: int, steps: int = 100) -> DeploymentResult:
    """Proved eps_c after ``rounds`` rounds of the mixed deployment: the round's profile is
    :func:`mix_delta` ((a) the worst group alone, (b) one family at the largest eps0 with all
    n users, the smaller at every eps), composed by
    :func:`accountant.accounting.deployment_search.profile_rounds`; 0 from the largest eps0 on."""
    delta = validate_delta(delta)
    rounds = _check_rounds(rounds)
    n = sum(c for c, _ in groups)
    names: set = set()

    def dfun(e: float) -> float:
        d, which = mix_delta(groups, e)
        names.add(which.split(" ")[0])
        return d

    top = max(float(p.eps0) for _, p in groups)
    eps, ach = profile_rounds(dfun, top, rounds, delta, steps)
    lo, st, ds = _lower(lambda: _mix_pairs(groups), delta, top, eps, rounds)
    return DeploymentResult(eps, delta, ach, "mix-pld", n,
                            f"{rounds} rounds, {len(groups)} groups, {n} users: per round the smaller proved "
                            f"profile at each eps (used: {', '.join(sorted(names))}; docs/deployments.md); "
                            f"{_ROUNDS_WHY}", lo, st, ds)
