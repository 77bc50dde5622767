"""The minimum batch size: the smallest n whose proved eps_c meets a target (eps, delta).

The search needs the proved eps_c to be non-increasing in n (docs/proved.md, "Monotonicity in
n": every headline bound is the divergence of a view that, with one more user, is a
post-processing of the view with one less); it doubles n from 1 until the target is met and
then bisects over the integers, each n screened with one certified feasibility check
(:func:`accountant.bounds.registry.proved_meets`), and settles the answer on the number the
forward command prints (:func:`accountant.bounds.registry.certified_epsilon`, galloping from the
screens' n and bisecting, :func:`accountant.engines.search.calibrate`): ``epsilon`` at n
meets the target and at n - 1 does not (the screen's delta test at the target eps and the
forward's eps search, which ends up to its tolerance above that eps, may disagree by a user or
a few).  For several rounds the proved eps_c is the
composed pessimistic PLD on the profile's sample grid
(:func:`accountant.composition.compose.composed_upper`); the search starts from the
saddle-point estimate of the composition (:func:`_approx_guess`), predicts the crossing along
eps ~ n^-1/2 and by the secant of log eps against log n (the composed eps_c is smooth in n:
4-RR over 10,000 rounds at n = 2.2e7 falls by 2.3e-9 from each n to the next), and walks by one
where rounding noise between neighbouring n shows (:func:`_secant_search`).  It finally
verifies n and n - 1 directly, so the answer meets the target and n - 1 does not, whatever the
search did.

For binary RR the exact bound (:mod:`accountant.bounds.binary_exact`, in the headline up to
n = 1e4) is brought in only at the end: the search runs on the other bounds, then the exact
between the largest n at which the dataset with everyone holding user 1's input already
exceeds the target (certified lower end: no n up to it can meet the target) and that answer.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Callable, Optional

from accountant.engines.search import calibrate, smallest_true
from accountant.bounds import binary_exact
from accountant.bounds import registry as bounds
from accountant.core import limits as L
from accountant.core.params import validate_delta, make_params


@dataclass(frozen=True)
class MinUsers:
    """``n``: the smallest number of users meeting (epsilon, delta), or None (unreachable up to
    ``n_max``, ``reason`` says so); ``epsilon_at_n`` / ``epsilon_at_n_minus_1``: the proved
    eps_c at n and at n - 1 (None at n = 1), with the bounds that give them.

    Examples
    --------
    >>> from accountant import min_users
    >>> r = min_users(1.0, 0.1, 1e-6)
    >>> r.as_dict()["n"], r.bound_at_n, r.reason
    (3066, 'clone', None)
    """

    n: Optional[int]
    epsilon: float
    delta: float
    eps0: float
    mechanism: str
    rounds: int
    epsilon_at_n: Optional[float]
    bound_at_n: Optional[str]
    epsilon_at_n_minus_1: Optional[float]
    bound_at_n_minus_1: Optional[str]
    n_max: int
    reason: Optional[str] = None
    deployment: Optional[dict] = None  # the deployment's fields (Deployment.as_dict), None without one
    statement: Optional[str] = None  # why the deployment's eps_c at n holds (its proof), None without one
    minimality: Optional[str] = None  # a deployment's: what "smallest" claims where its bound is not monotone

    def as_dict(self) -> dict:
        out = asdict(self)
        if self.deployment is None:  # a plain batch: the fields of a deployment are left out
            del out["deployment"], out["statement"], out["minimality"]
        return out


def _epsilon(params, n: int, delta: float, rounds: int, spec_of) -> tuple[float, str]:
    """The proved eps_c at n (one round: the headline as ``epsilon`` certifies and prints it,
    :func:`accountant.bounds.registry.certified_epsilon`; several: the composed PLD)."""
    if rounds == 1:
        r = bounds.certified_epsilon(params, n, delta)
        if r.name == "post-processing" and math.isinf(params.eps0):
            # not pure LDP: outputs outside the blanket reveal the input
            return math.inf, ("no finite eps_c is proved: outputs outside the blanket's support reveal "
                              f"the input with probability above delta = {delta:g}")
        return r.epsilon, r.name
    from accountant.composition.compose import composed_upper

    # one discretisation level on the profile's sample grid, no optimistic PLD, no lower bound
    eps, source = composed_upper(spec_of(n), rounds, delta)
    return eps, composed_name(source)


def composed_name(source: str) -> str:
    """The bound name of a :func:`accountant.composition.compose.composed_upper` source (what
    ``users --rounds`` reports and ``compose`` prints beside its adaptive total)."""
    return _COMPOSED_NAMES[source]


# the bound names of :func:`accountant.composition.compose.composed_upper`'s sources
_COMPOSED_NAMES = {"pld": "composed PLD (pessimistic)",
                   "naive": "naive composition of the round's pessimistic PLD",
                   "advanced": "advanced composition of the round's pessimistic PLD"}


def min_users(eps0: float, epsilon: float, delta: float, mechanism: Optional[str] = None,
              rounds: int = 1, s: Optional[int] = None, t: Optional[int] = None,
              k: Optional[int] = None, n_max: int = L.MAX_N, randomizer=None, *,
              d: Optional[int] = None, g: Optional[int] = None, p: Optional[float] = None,
              beta: Optional[float] = None, q: Optional[float] = None,
              hash_model: str = "any", deployment=None, delta0: Optional[float] = None,
              sigma: Optional[float] = None, range=None) -> MinUsers:
    """The smallest n (1 <= n <= ``n_max``) whose proved eps_c meets (``epsilon``, ``delta``).

    Bad input raises ``ValueError`` naming the parameter before any work.  An unreachable
    target returns ``n = None`` with the reason and the proved eps_c at ``n_max``.

    Examples
    --------
    >>> from accountant import min_users
    >>> r = min_users(2.0, 0.1, 1e-6, mechanism="krr", k=4)
    >>> r.n, r.epsilon_at_n <= 0.1 < r.epsilon_at_n_minus_1
    (10370, True)

    ``mechanism``: a name of :func:`accountant.make_params` (None: ``"generic"``).
    ``randomizer``: a :class:`accountant.FiniteRandomizer` (then ``mechanism`` is None or
    ``"finite"``, ``eps0`` is None or the matrix's own, and several rounds search the composed
    PLD from the one-round answer).  ``d``, ``g``, ``p``, ``beta``, ``q`` and ``hash_model`` are
    the options of :func:`accountant.make_params` (generic: ``delta0``; variation-ratio: ``eps0`` None and p, beta, q;
    gaussian: ``eps0`` None and ``sigma`` [``range``]; laplace: ``range``;
    ``hash_model="random"``: the random-hash proved bound of collision, coco and olh).
    ``deployment``: a :class:`accountant.accounting.deployment.Deployment` (colluders, dummies,
    user sampling with its relation, several reports per user, over ``rounds`` or its own
    rounds): the smallest n at which the deployment's proved eps_c
    (:func:`accountant.accounting.deployment_proof.deployed_epsilon`, the number ``epsilon``
    prints with the same options) meets the target, with that eps_c at n - 1 above it
    (:func:`_deployment_users`).

    >>> from accountant import Deployment
    >>> r = min_users(1.0, 0.1, 1e-6, deployment=Deployment(colluders=100))
    >>> r.n, r.epsilon_at_n <= 0.1 < r.epsilon_at_n_minus_1
    (3166, True)
    """
    params = _randomizer(eps0, mechanism, randomizer, (s, t, k, d, g, p, beta, q, sigma, range), hash_model, delta0)
    epsilon = L.check_float("epsilon", epsilon, 0.0, L.EPS_MAX, lo_open=True)
    delta = validate_delta(delta)
    rounds = L.check_rounds(rounds)
    n_max = L.check_int("n_max", n_max, 1, L.MAX_N)
    if deployment is not None:
        deployment = _with_rounds(deployment, rounds)
        if deployment.features not in ((), ("rounds",)):
            return _deployment_users(params, epsilon, delta, deployment, n_max)
        rounds = deployment.rounds
    return _plain_users(params, epsilon, delta, rounds, n_max)


def _randomizer(eps0, mechanism, randomizer, options: tuple, hash_model: str, delta0=None):
    """The parameter object of :func:`min_users`' arguments (ValueError naming the one that does not fit)."""
    if randomizer is not None or mechanism == "finite":
        from accountant.core.finite import FiniteRandomizer

        if not isinstance(randomizer, FiniteRandomizer):
            raise ValueError("randomizer: mechanism 'finite' needs randomizer=FiniteRandomizer(...)")
        if mechanism not in (None, "finite") or any(v is not None for v in options) or hash_model != "any":
            raise ValueError("randomizer: give no mechanism, s, t, k, d, g, p, beta, q, sigma, range or hash_model with a "
                             "matrix (it is the randomizer)")
        if eps0 is not None and eps0 != randomizer.eps0:
            raise ValueError(f"eps0: the matrix fixes eps0 = {randomizer.eps0:.10g}, got {eps0!r}")
        return randomizer
    s, t, k, d, g, p, beta, q, sigma, range_ = options
    return make_params("generic" if mechanism is None else mechanism, eps0, s=s, t=t, k=k, d=d, g=g, p=p,
                       beta=beta, q=q, hash_model=hash_model, delta0=delta0, sigma=sigma, range=range_)


def _with_rounds(deployment, rounds: int):
    """The deployment over ``rounds`` (min_users' own argument) or its own rounds, not two counts."""
    from dataclasses import replace

    from accountant.accounting.deployment import Deployment

    if not isinstance(deployment, Deployment):
        raise ValueError(f"deployment must be a Deployment, got {type(deployment).__name__}")
    if rounds > 1 and deployment.rounds not in (1, rounds):
        raise ValueError(f"rounds: give the rounds once (rounds = {rounds}, deployment.rounds = {deployment.rounds})")
    return replace(deployment, rounds=max(rounds, deployment.rounds))


def _unreachable(epsilon: float, delta: float, params, rounds: int, n_max: int, e: float, b: str,
                 **extra) -> MinUsers:
    return MinUsers(None, epsilon, delta, params.eps0, params.name, rounds, e, b, None, None, n_max,
                    f"unreachable: no n <= {n_max} meets eps = {epsilon:g} at delta = {delta:g}; "
                    f"the proved eps_c at n = {n_max} is {e:.10g} ({b})", **extra)


def _plain_users(params, epsilon: float, delta: float, rounds: int, n_max: int) -> MinUsers:
    """:func:`min_users` of one randomizer without deployment features, over ``rounds``."""
    from accountant.accounting.per_count import exact_applies
    from accountant.core.finite import FiniteRandomizer

    eps0 = params.eps0
    if rounds > 1:
        from accountant.accounting.deployment_proof import round_of

        def spec_of(n: int):
            return round_of(params, n)
    else:
        spec_of = None

    composed: dict = {}

    def meets(n: int, skip: tuple = ()) -> bool:
        if rounds == 1:  # a screen (one delta evaluation per bound); the settle decides on eps_at
            return bounds.proved_meets(params, n, epsilon, delta, skip=skip) is not None
        if n not in composed:
            composed[n] = _epsilon(params, n, delta, rounds, spec_of)
        return composed[n][0] <= epsilon

    def eps_at(n: int) -> tuple:
        if n not in composed:
            composed[n] = _epsilon(params, n, delta, rounds, spec_of)
        return composed[n]

    def composed_eps(n: int) -> float:
        return eps_at(n)[0]

    exact = rounds == 1 and exact_applies(params)  # binary RR's maximum over every dataset, at the end
    skip = ("exact",) if exact_applies(params) else ()
    if rounds == 1:
        hi = _first_doubling(lambda n: meets(n, skip), n_max)
        if hi is not None:
            hi = smallest_true(lambda n: meets(n, skip), hi // 2, hi)   # hi // 2 fails (or is 0)
    elif isinstance(params, FiniteRandomizer):  # no count law to estimate from: the one-round answer is below it
        one = _plain_users(params, epsilon, delta, 1, n_max)
        hi = _secant_search(composed_eps, epsilon, one.n if one.n is not None else n_max, n_max, composed)
    else:  # start from the central-limit estimate of the composition (a guess, then checked)
        from accountant.composition.compose import approx_schedule_epsilon

        try:
            guess = _approx_guess(
                lambda n, r: approx_schedule_epsilon([spec_of(n)] * r, delta, sample_grid=True),
                epsilon, rounds, n_max)
        except ValueError:  # no saddle-point profile (generic, variation-ratio): a rougher start,
            # one round at eps / sqrt(rounds) and delta / rounds (the bracket corrects it)
            first = _first_doubling(lambda n: bounds.proved_meets(params, n, epsilon / rounds ** 0.5,
                                                                  delta / rounds) is not None, n_max)
            guess = first or n_max
        hi = _secant_search(composed_eps, epsilon, guess, n_max, composed)
    if hi is None and exact and n_max <= binary_exact.EXACT_MAX_N \
            and binary_exact.exact_meets(n_max, eps0, epsilon, delta):
        hi = n_max
    if hi is None:
        return _unreachable(epsilon, delta, params, rounds, n_max, *eps_at(n_max))
    if exact and hi > 1:
        hi = _refine_rr(eps0, epsilon, delta, hi, lambda n: eps_at(n)[0])
    # the answer is settled on the very number reported (and printed by the forward command):
    # it meets the target at n and not at n - 1, whatever the search's screens said (the smallest
    # n galloped from the screens' answer, then bisected)
    hi = calibrate(lambda n: n, epsilon, composed_eps, 1, n_max, largest=False, discrete=True, guess=hi).x
    if hi is None:
        return _unreachable(epsilon, delta, params, rounds, n_max, *eps_at(n_max))
    e_n, b_n = eps_at(hi)
    e_m, b_m = eps_at(hi - 1) if hi > 1 else (None, None)
    return MinUsers(hi, epsilon, delta, eps0, params.name, rounds, e_n, b_n, e_m, b_m, n_max)


def _deployment_users(params, epsilon: float, delta: float, dep, n_max: int) -> MinUsers:
    """The smallest n whose deployed eps_c (:func:`accountant.accounting.deployment_proof.
    deployed_epsilon`, no lower bound: the upper bound does not depend on it) meets the target.

    The deployed eps_c is non-increasing in n in truth (one more user, sampled or with its r
    reports, is post-processing; the colluders and the dummies stay as many), and smooth in n, so
    the search is the rounds' one: a start from the plain answer moved by the deployment (n0 + c - m
    for colluders and dummies, n0 q with sampling, n0 r with r reports), the secant of log eps
    against log n (:func:`_secant_search`), settled on that very number
    (:func:`accountant.engines.search.calibrate`): the answer meets the target and n - 1 does not. Below n = colluders + 1 there is no deployment."""
    from accountant.accounting.deployment import inverse_refusal, supports
    from accountant.accounting.deployment_proof import deployed_epsilon

    why = inverse_refusal(dep.features) or supports(params, dep.features)
    if why:
        raise ValueError(f"deployment: {why}")
    top = min(n_max, L.MAX_N // (dep.reports or 1), L.MAX_N - dep.dummies + dep.colluders)
    results: dict = {}
    epsd: dict = {}

    def eps_of(n: int) -> float:
        if n not in epsd:
            results[n] = None if n <= dep.colluders else deployed_epsilon(params, n, delta, dep, lower=False)
            epsd[n] = math.inf if results[n] is None else results[n].epsilon
        return epsd[n]

    extra = {"deployment": dep.as_dict()}
    if top <= dep.colluders:
        return _unreachable(epsilon, delta, params, dep.rounds, top, math.inf, "colluders >= n", **extra)
    plain = _plain_users(params, epsilon, delta, dep.rounds, top).n or top
    moved = {"shift": plain + dep.colluders - dep.dummies, "sampling": plain * (dep.sampling or 1.0),
             "reports": plain * (dep.reports or 1)}[dep.proof]
    guess = min(max(int(moved), dep.colluders + 1, 1), top)
    hi = _secant_search(eps_of, epsilon, guess, top, epsd)
    hi = None if hi is None else calibrate(lambda n: n, epsilon, eps_of, 1, top, largest=False, discrete=True,
                                             guess=hi).x
    if hi is None:
        eps_of(top)
        return _unreachable(epsilon, delta, params, dep.rounds, top, epsd[top], results[top].bound,
                            statement=results[top].statement, **extra)
    at, below = results[hi], (results.get(hi - 1) if hi > 1 else None)
    if hi > 1 and hi - 1 not in epsd:
        eps_of(hi - 1)
        below = results[hi - 1]
    why_n = [] if below is not None or hi == 1 else [f"n - 1 = {hi - 1} users cannot hold the {dep.colluders} "
                                                     "colluders (at most n - 1)"]
    return MinUsers(hi, epsilon, delta, params.eps0, params.name, dep.rounds, at.epsilon, at.bound,
                    None if below is None else below.epsilon, None if below is None else below.bound, top,
                    statement="; ".join([at.statement] + ([at.note] if at.note else []) + why_n),
                    minimality=SAMPLED_MINIMALITY if dep.proof == "sampling" else None, **extra)


#: what the smallest n of a sampled deployment claims (its bound is not monotone in n everywhere)
SAMPLED_MINIMALITY = ("n - 1 does not meet the target, a smaller n may (the sampled bound, a sum over strata of "
                      "the count of reports, is not monotone in n where n q is small)")


def _first_doubling(ok: Callable[[int], bool], n_max: int) -> Optional[int]:
    """The first of n = 1, 2, 4, ..., n_max with ok(n), or None.  Searched from below: the
    proved eps_c is monotone in n in truth, but an engine at its cost limit (the clone's window
    at n = 1e10 and small delta) may answer eps0 at n_max while n = 1e7 meets the target."""
    n = 1
    while not ok(n):
        if n >= n_max:
            return None
        n = min(2 * n, n_max)
    return n


def _approx_guess(approx: Callable[[int, int], float], target: float, rounds: int, n_max: int) -> int:
    """Where the estimate ``approx(n, rounds)`` of the composed eps_c meets the target (to a
    relative 1e-5; n_max when it does not below n_max): first with min(rounds, 100) rounds from
    n = 1000 such rounds, then from that n times rounds / 100 (the composition's eps depends
    on about rounds / n) with all of them (an estimate with 10,000 rounds costs about 0.2 s, with
    100 a few milliseconds).  A start only: the certified search checks every n it answers with."""
    few = min(rounds, 100)
    start = 1000 * few
    for r, rtol in ((few, 1e-3), (rounds, 1e-5)) if rounds > few else ((rounds, 1e-5),):
        seen: dict = {}

        def est(n: int, r=r, seen=seen) -> float:
            if n not in seen:
                seen[n] = approx(n, r)
            return seen[n]

        found = _secant_search(est, target, start, n_max, seen, rtol=rtol)
        start = n_max if found is None else min(n_max, max(1, found * rounds // r))
    return start


def _predict(pts: list, target: float, noise: float = 0.0) -> Optional[float]:
    """Where log eps meets log target on a line through the evaluated points ``pts`` ((n, eps),
    sorted by n, eps finite and > 0).  The slope is that of the two points nearest the target
    (by |log eps - log target|) when their values differ by more than 20 times the noise seen
    between neighbouring n, else of the widest pair; -1/2 (eps ~ n^-1/2) from one point or where
    the chosen pair's slope is not negative; the line is anchored at the point nearest the
    target.  None without a point.  A guess only: the search checks every n it answers with."""
    if not pts:
        return None
    near = sorted(pts, key=lambda q: abs(math.log(q[1] / target)))
    slope = -0.5
    pairs = []
    if len(near) >= 2:
        (na, ea), (nb, eb) = near[0], near[1]
        if abs(math.log(ea / eb)) > 20.0 * noise:
            pairs.append((near[0], near[1]))
        pairs.append((pts[0], pts[-1]))
    for (na, ea), (nb, eb) in pairs:
        if na != nb and ea != eb:
            s = (math.log(eb) - math.log(ea)) / (math.log(nb) - math.log(na))
            if s < -0.05:
                slope = s
                break
    n1, e1 = near[0]
    return math.exp(min(math.log(n1) + (math.log(target) - math.log(e1)) / slope, 50.0))


def _secant_search(eps_of: Callable[[int], float], target: float, guess: int, n_max: int,
                   seen: dict, rtol: float = 0.0) -> Optional[int]:
    """Smallest n <= n_max with eps_of(n) <= target (eps_of non-increasing), or None (within a
    factor 1 + ``rtol`` above it when rtol > 0: a start for another search); precisely, an n
    that meets the target with n - 1 not meeting it (the composed PLD's eps_c is smooth in n
    where its convolutions run in long double, :func:`accountant.engines.fftconv.linear_convolve`,
    but may carry rounding noise between neighbouring n elsewhere).

    Keeps a bracket lo < hi (eps_of(lo) above the target, eps_of(hi) at or below it; 0 and
    n_max + 1 while a side is unknown) and tests the smallest n that :func:`_predict` says
    meets it, re-predicting after every test, so a good prediction ends with that n and its
    neighbour below.  Where the noise between neighbours (seen when neighbours were tested,
    beyond the trend -1/2 / n) is at least half the distance of the last value to the
    target, the prediction cannot do better: up to four steps walk by one towards the other
    side.  The candidate steps past the prediction after two tests with the same outcome while
    a side is unknown (by a margin 1e-4, 4e-4, 1.6e-3, ... relative, so that the bracket
    closes), and after three inside the bracket (by half the last move); a bisection (geometric while the bracket is
    wide) after three steps that do not halve it.  A jump up stops at n_max / 2 until n_max / 2
    fails: n_max is never trusted alone (see :func:`_first_doubling`).  ``seen`` caches eps_of."""
    lo, hi, top = 0, n_max + 1, n_max + 1
    last, streak, stalls, walks, noise, prev = None, 0, 0, 4, 0.0, None

    def test(n: int) -> bool:
        nonlocal lo, hi, last, streak, noise, prev
        e = eps_of(n)
        met = e <= target
        if met:
            hi = n
        else:
            lo = n
        if prev is not None and abs(prev[0] - n) == 1 and 0 < e < math.inf and 0 < prev[1] < math.inf:
            # the trend between neighbours is about -1/2 / n in log eps: the rest is noise
            step = math.log(e / prev[1]) * (n - prev[0])
            noise = max(noise, abs(step + 0.5 / n))
        streak = streak + 1 if met == last else 1
        last, prev = met, (n, e)
        return met

    test(min(max(int(guess), 1), n_max))
    while hi - lo > 1 and hi - lo > rtol * hi:
        width = hi - lo
        n_last, e_last = prev
        if walks and noise > 0 and 0 < e_last < math.inf and abs(math.log(e_last / target)) <= 2 * noise:
            walks -= 1                                  # inside the noise: one step over
            test(n_last - 1 if last else n_last + 1)
            continue
        pts = sorted((m, eps_of(m)) for m in seen if lo <= m <= hi and 0 < eps_of(m) < math.inf)
        x = _predict(pts, target, noise)
        open_side = hi == top or lo == 0
        if x is None or stalls >= 3:                    # no finite point, or stalled: bisect
            if hi == top:
                cand = 4 * lo
            else:
                cand = int(math.sqrt(max(lo, 1) * hi)) if hi > 4 * max(lo, 1) else (lo + hi) // 2
        else:
            cand = math.ceil(x - 1e-9 * x)              # the predicted smallest n that meets it
            if open_side and streak >= 2:               # jump past the prediction: close the bracket
                margin = 1e-4 * 4.0 ** (streak - 2)
                cand = math.floor(x * (1 - margin)) if last else math.ceil(x * (1 + margin))
            elif streak >= 3:                           # one-sided: step over by half the last move
                over = max(1, abs(cand - n_last) // 2)
                cand = cand - over if last else cand + over
        cap = n_max // 2 if lo < n_max // 2 else n_max
        cand = min(max(cand, lo + 1), hi - 1, max(cap, lo + 1))
        test(cand)
        stalls = stalls + 1 if hi - lo > width // 2 else 0
    return hi if hi < top else None


def _refine_rr(eps0: float, epsilon: float, delta: float, hi: int, eps_of: Callable[[int], float]) -> int:
    """Binary RR: the smallest n <= hi meeting the target with the exact bound (hi meets it by
    the other bounds).  Up to the largest n at which the top dataset exceeds the target nothing
    can meet it; the exact branch and bound decides from there upwards.  Above
    ``HEADLINE_MAX_N`` (the headline's certified bracket, ``eps_of``: the proved eps_c at n) the
    secant search starts from the first n at which the top dataset, the bracket's lower end,
    no longer exceeds the target."""
    top = min(hi - 1, binary_exact.HEADLINE_MAX_N)
    if not binary_exact.exact_meets(top, eps0, epsilon, delta):
        if top >= hi - 1 or hi - 1 > binary_exact.LARGE_HEADLINE_MAX_N:
            return hi
        first = smallest_true(lambda n: not binary_exact.top_dataset_exceeds(n, eps0, epsilon, delta), top, hi)
        seen: dict = {}

        def cached(n: int) -> float:
            if n not in seen:
                seen[n] = eps_of(n)
            return seen[n]

        found = _secant_search(cached, epsilon, first, hi, seen)
        return hi if found is None else min(found, hi)
    lo = smallest_true(lambda n: not binary_exact.top_dataset_exceeds(n, eps0, epsilon, delta), 0, top) - 1
    step = 1
    while not binary_exact.exact_meets(min(lo + step, top), eps0, epsilon, delta):
        lo, step = min(lo + step, top), 2 * step
    return smallest_true(lambda n: binary_exact.exact_meets(n, eps0, epsilon, delta), lo, min(lo + step, top))
