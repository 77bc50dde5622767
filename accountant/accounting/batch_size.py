"""The minimum batch size: the smallest n whose proved eps_c meets a target (eps, delta).

The search needs the proved eps_c to be non-increasing in n (docs/proved.md, "Monotonicity in
n": every headline bound is the divergence of a view that, with one more user, is a
post-processing of the view with one less); it doubles n from 1 until the target is met and
then bisects over the integers, testing each n with one certified feasibility check
(:func:`accountant.bounds.registry.proved_meets`); for several rounds it starts from the
central-limit estimate of the composition, brackets by factors of 2 and homes in with the secant
of log eps against log n on the composed PLD (:func:`_secant_search`); and it
finally verifies n and n - 1 directly, so the answer is the smallest n whatever the search did.

For binary RR the exact bound (:mod:`accountant.bounds.binary_exact`, in the headline up to
n = 1e4) is brought in only at the end: the search runs on the other bounds, then the exact
between the largest n at which the dataset with everyone holding user 1's input already
exceeds the target (certified lower end: no n up to it can meet the target) and that answer.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Callable, Optional

from accountant.engines.search import smallest_true
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

    def as_dict(self) -> dict:
        return asdict(self)


def _epsilon(params, n: int, delta: float, rounds: int, spec_of) -> tuple[float, str]:
    """The proved eps_c at n (one round: the headline; several: the composed PLD)."""
    if rounds == 1:
        r = bounds.proved_params_epsilon(params, n, delta, rtol=1e-6)
        if r is not None:
            return r.epsilon, r.name
        if math.isinf(params.eps0):  # not pure LDP: outputs outside the blanket reveal the input
            return math.inf, ("no finite eps_c is proved: outputs outside the blanket's support reveal "
                              f"the input with probability above delta = {delta:g}")
        return params.eps0, "post-processing"
    from accountant.composition.compose import compose_rounds

    # one discretisation level, no lower bound: a search composes many times
    return (compose_rounds(spec_of(n), rounds, delta, adaptive=False, lower=False).epsilon,
            "composed PLD (pessimistic)")


def min_users(eps0: float, epsilon: float, delta: float, mechanism: str = "generic",
              rounds: int = 1, s: Optional[int] = None, t: Optional[int] = None,
              k: Optional[int] = None, n_max: int = L.MAX_N, randomizer=None) -> MinUsers:
    """The smallest n (1 <= n <= ``n_max``) whose proved eps_c meets (``epsilon``, ``delta``).

    Bad input raises ``ValueError`` naming the parameter before any work.  An unreachable
    target returns ``n = None`` with the reason and the proved eps_c at ``n_max``.

    Examples
    --------
    >>> from accountant import min_users
    >>> r = min_users(2.0, 0.1, 1e-6, mechanism="krr", k=4)
    >>> r.n, r.epsilon_at_n <= 0.1 < r.epsilon_at_n_minus_1
    (10370, True)

    ``randomizer``: a :class:`accountant.FiniteRandomizer` (then ``mechanism`` is ``"finite"``,
    ``eps0`` is None or the matrix's own, and several rounds search the composed PLD from the
    one-round answer).
    """
    if randomizer is not None or mechanism == "finite":
        from accountant.core.finite import FiniteRandomizer

        if not isinstance(randomizer, FiniteRandomizer):
            raise ValueError("randomizer: mechanism 'finite' needs randomizer=FiniteRandomizer(...)")
        if mechanism not in ("finite", "generic") or any(v is not None for v in (s, t, k)):
            raise ValueError("randomizer: give no mechanism, s, t or k with a matrix (it is the randomizer)")
        if eps0 is not None and eps0 != randomizer.eps0:
            raise ValueError(f"eps0: the matrix fixes eps0 = {randomizer.eps0:.10g}, got {eps0!r}")
        params, eps0, mechanism = randomizer, randomizer.eps0, "finite"
    else:
        params = make_params(mechanism, eps0, s=s, t=t, k=k)
    epsilon = L.check_float("epsilon", epsilon, 0.0, L.EPS_MAX, lo_open=True)
    delta = validate_delta(delta)
    rounds = L.check_rounds(rounds)
    n_max = L.check_int("n_max", n_max, 1, L.MAX_N)
    if rounds > 1:
        from accountant.composition.rounds import RoundSpec

        def spec_of(n: int):
            if mechanism == "finite":
                return RoundSpec(n, None, "finite", randomizer=params)
            return RoundSpec(n, eps0, mechanism, s=s, t=t, k=k)
    else:
        spec_of = None

    composed: dict = {}

    def meets(n: int, skip: tuple = ()) -> bool:
        if rounds == 1:
            return bounds.proved_meets(params, n, epsilon, delta, skip=skip) is not None
        if n not in composed:
            composed[n] = _epsilon(params, n, delta, rounds, spec_of)
        return composed[n][0] <= epsilon

    def eps_at(n: int) -> tuple:
        return composed[n] if n in composed else _epsilon(params, n, delta, rounds, spec_of)

    def composed_eps(n: int) -> float:
        meets(n)                           # computes and caches the composed eps_c at n
        return composed[n][0]

    skip = ("exact",) if params.name == "rr" else ()
    if rounds == 1:
        hi = _first_doubling(lambda n: meets(n, skip), n_max)
        if hi is not None:
            hi = smallest_true(lambda n: meets(n, skip), hi // 2, hi)   # hi // 2 fails (or is 0)
    elif mechanism == "finite":  # no count law to estimate from: the one-round answer is below it
        one = min_users(None, epsilon, delta, rounds=1, n_max=n_max, randomizer=params)
        hi = _secant_search(composed_eps, epsilon, one.n if one.n is not None else n_max, n_max, composed)
    else:  # start from the central-limit estimate of the composition (a guess, then checked)
        from accountant.composition.compose import approx_schedule_epsilon

        try:
            guess = _log_bisect(lambda n: approx_schedule_epsilon([spec_of(n)] * rounds, delta) <= epsilon,
                                n_max)
        except ValueError:  # no saddle-point profile (generic, variation-ratio): a rougher start,
            # one round at eps / sqrt(rounds) and delta / rounds (the bracket corrects it)
            first = _first_doubling(lambda n: bounds.proved_meets(params, n, epsilon / rounds ** 0.5,
                                                                  delta / rounds) is not None, n_max)
            guess = first or n_max
        hi = _secant_search(composed_eps, epsilon, guess, n_max, composed)
    if hi is None and params.name == "rr" and rounds == 1 and n_max <= binary_exact.EXACT_MAX_N \
            and binary_exact.exact_meets(n_max, eps0, epsilon, delta):
        hi = n_max
    if hi is None:
        e, b = eps_at(n_max)
        return MinUsers(None, epsilon, delta, eps0, params.name, rounds, e, b, None, None, n_max,
                        f"unreachable: no n <= {n_max} meets eps = {epsilon:g} at delta = {delta:g}; "
                        f"the proved eps_c at n = {n_max} is {e:.10g} ({b})")
    if params.name == "rr" and rounds == 1 and hi > 1:
        hi = _refine_rr(eps0, epsilon, delta, hi, lambda n: eps_at(n)[0])
    e_n, b_n = eps_at(hi)
    if e_n > epsilon:  # the feasibility check certified delta <= target at epsilon itself
        e_n, b_n = epsilon, f"{b_n}; certified at the target eps directly (its search ends above)"
    while True:
        e_m, b_m = eps_at(hi - 1) if hi > 1 else (None, None)
        if e_m is None or e_m > epsilon:
            break
        hi, e_n, b_n = hi - 1, e_m, b_m  # a certified eps_c at n - 1 already meets the target
    return MinUsers(hi, epsilon, delta, eps0, params.name, rounds, e_n, b_n, e_m, b_m, n_max)


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


def _log_bisect(ok: Callable[[int], bool], n_max: int, rtol: float = 1e-3) -> int:
    """An n within a factor 1 + rtol above the smallest n <= n_max with ok(n) (ok monotone),
    by bisection on log n (about 15 evaluations instead of 34 on the integers); n_max when
    ok(n_max) is false."""
    if ok(1):
        return 1
    lo, hi = 1, n_max
    while hi > lo * (1 + rtol) and hi - lo > 1:
        mid = min(max(int(math.sqrt(lo * hi)), lo + 1), hi - 1)
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _secant_search(eps_of: Callable[[int], float], target: float, guess: int, n_max: int,
                   seen: dict) -> Optional[int]:
    """Smallest n <= n_max with eps_of(n) <= target (eps_of non-increasing), or None.  From the
    guess the bracket grows by factors of 2 (downwards until a failure, upwards until a
    success, never trusting n_max alone: see :func:`_first_doubling`), then the secant of
    log eps against log n (slope from the widest evaluated pair, anchored at the point closest
    to the target) predicts the crossing; each prediction is tested at its ceiling and one below, so a good prediction ends
    the search in two evaluations (a bisection step after two that do not halve the bracket).  ``seen`` caches eps_of."""
    def ok(n: int) -> bool:
        return eps_of(n) <= target

    n = min(max(guess, 1), n_max)
    f = 0.005                                   # the bracket grows by 1 + f, f doubling
    far = _far_guess(n, eps_of(n), target)
    if ok(n):
        hi, lo = n, min(int((far or n) / (1 + f)), n - 1)
        while lo >= 1 and ok(lo):
            f *= 2
            hi, lo = lo, min(int(lo / (1 + f)), lo - 1)
    else:
        # a jump up stops at n_max / 2: the walk from there still tests n_max last
        up = min(far, n_max / 2) if far else n
        lo, hi = n, min(max(math.ceil(up * (1 + f)), n + 1), n_max)
        while not ok(hi):
            if hi >= n_max:
                return None
            f *= 2
            lo, hi = hi, min(max(math.ceil(hi * (1 + f)), hi + 1), n_max)
    stalls = 0
    while hi - lo > 1:
        width = hi - lo
        cand = None
        # the slope of log eps against log n from the widest pair of evaluated points (it is
        # about -1/2 and smooth; neighbouring n differ by less than the PLD's rounding noise),
        # anchored at the evaluated point closest to the target
        pts = sorted((m, eps_of(m)) for m in seen if lo <= m <= hi and 0 < eps_of(m) < math.inf)
        if len(pts) >= 2 and stalls < 2 and pts[0][0] != pts[-1][0] and pts[0][1] != pts[-1][1]:
            (na, ea), (nb, eb) = pts[0], pts[-1]
            slope = (math.log(eb) - math.log(ea)) / (math.log(nb) - math.log(na))
            n1, e1 = min(pts, key=lambda q: abs(math.log(q[1] / target)))
            if slope < 0:
                x = math.log(n1) + (math.log(target) - math.log(e1)) / slope
                cand = min(max(math.ceil(math.exp(min(x, 50.0))), lo + 1), hi - 1)
        if cand is None:
            cand = (lo + hi) // 2
        if ok(cand):
            hi = cand
            if cand - 1 > lo and not ok(cand - 1):
                lo = cand - 1
        else:
            lo = cand
            if cand + 1 < hi and ok(cand + 1):
                hi = cand + 1
        stalls = stalls + 1 if hi - lo > width // 2 else 0
    return hi


def _far_guess(n: int, e: float, target: float) -> Optional[float]:
    """Where eps_c ~ n^(-1/2) through (n, e) meets the target, when that is more than 10 % away
    from n (a rough start: the generic mechanism's one round at eps / sqrt(T), a matrix's
    one-round answer), else None (a good start keeps the bracket of 0.5 %).  Only where the
    bracket starts: the search then checks every n it answers with."""
    if not (0.0 < e < math.inf):
        return None
    r = (e / target) ** 2
    return n * r if abs(math.log(r)) > math.log(1.1) else None


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
