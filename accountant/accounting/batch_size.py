"""The minimum batch size: the smallest n whose proved eps_c meets a target (eps, delta).

The search needs the proved eps_c to be non-increasing in n (docs/proved.md, "Monotonicity in
n": every headline bound is the divergence of a view that, with one more user, is a
post-processing of the view with one less); it doubles n from 1 until the target is met and
then bisects over the integers, testing each n with one certified feasibility check
(:func:`accountant.bounds.registry.proved_meets`); for several rounds it starts from the
central-limit estimate of the composition and gallops and bisects on the composed PLD; and it
finally verifies n and n - 1 directly, so the answer is the smallest n whatever the search did.

For binary RR the exact bound (:mod:`accountant.bounds.binary_exact`, in the headline up to
n = 1e4) is brought in only at the end: the search runs on the other bounds, then the exact
between the largest n at which the dataset with everyone holding user 1's input already
exceeds the target (certified lower end: no n up to it can meet the target) and that answer.
"""
from __future__ import annotations

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
        return (params.eps0, "post-processing") if r is None else (r.epsilon, r.name)
    from accountant.composition.compose import compose_rounds

    # one discretisation level, no lower bound: a search composes many times
    return (compose_rounds(spec_of(n), rounds, delta, adaptive=False, lower=False).epsilon,
            "composed PLD (pessimistic)")


def min_users(eps0: float, epsilon: float, delta: float, mechanism: str = "generic",
              rounds: int = 1, s: Optional[int] = None, t: Optional[int] = None,
              k: Optional[int] = None, n_max: int = L.MAX_N) -> MinUsers:
    """The smallest n (1 <= n <= ``n_max``) whose proved eps_c meets (``epsilon``, ``delta``).

    Bad input raises ``ValueError`` naming the parameter before any work.  An unreachable
    target returns ``n = None`` with the reason and the proved eps_c at ``n_max``.

    Examples
    --------
    >>> from accountant import min_users
    >>> r = min_users(2.0, 0.1, 1e-6, mechanism="krr", k=4)
    >>> r.n, r.epsilon_at_n <= 0.1 < r.epsilon_at_n_minus_1
    (10370, True)
    """
    params = make_params(mechanism, eps0, s=s, t=t, k=k)
    epsilon = L.check_float("epsilon", epsilon, 0.0, L.EPS_MAX, lo_open=True)
    delta = validate_delta(delta)
    rounds = L.check_rounds(rounds)
    n_max = L.check_int("n_max", n_max, 1, L.MAX_N)
    if rounds > 1:
        from accountant.composition.rounds import RoundSpec

        def spec_of(n: int):
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

    skip = ("exact",) if params.name == "rr" else ()
    if not meets(n_max, skip) and not (params.name == "rr" and rounds == 1 and n_max <= binary_exact.EXACT_MAX_N
                                       and binary_exact.exact_meets(n_max, eps0, epsilon, delta)):
        e, b = eps_at(n_max)
        return MinUsers(None, epsilon, delta, eps0, params.name, rounds, e, b, None, None, n_max,
                        f"unreachable: no n <= {n_max} meets eps = {epsilon:g} at delta = {delta:g}; "
                        f"the proved eps_c at n = {n_max} is {e:.10g} ({b})")
    if rounds == 1:
        hi = _first_doubling(lambda n: meets(n, skip), n_max)
        hi = smallest_true(lambda n: meets(n, skip), hi // 2, hi)   # hi // 2 fails (or is 0)
    else:  # start from the central-limit estimate of the composition (a guess, then checked)
        from accountant.composition.compose import approx_schedule_epsilon

        guess = smallest_true(lambda n: approx_schedule_epsilon([spec_of(n)] * rounds, delta) <= epsilon,
                        0, n_max)
        hi = _gallop(meets, guess, n_max)
    if params.name == "rr" and rounds == 1 and hi > 1:
        hi = _refine_rr(eps0, epsilon, delta, hi)
    e_n, b_n = eps_at(hi)
    if e_n > epsilon:  # the feasibility check certified delta <= target at epsilon itself
        e_n, b_n = epsilon, f"{b_n}; certified at the target eps directly (its search ends above)"
    while True:
        e_m, b_m = eps_at(hi - 1) if hi > 1 else (None, None)
        if e_m is None or e_m > epsilon:
            break
        hi, e_n, b_n = hi - 1, e_m, b_m  # a certified eps_c at n - 1 already meets the target
    return MinUsers(hi, epsilon, delta, eps0, params.name, rounds, e_n, b_n, e_m, b_m, n_max)


def _first_doubling(ok: Callable[[int], bool], n_max: int) -> int:
    n = 1
    while not ok(n):
        n = min(2 * n, n_max)
    return n


def _gallop(ok: Callable[[int], bool], guess: int, n_max: int) -> int:
    """Smallest n with ok(n) (ok monotone, ok(n_max) true), searched outwards from ``guess``
    in steps doubling from 0.1% of it, then bisected."""
    step = max(1, guess // 1000)
    if ok(guess):
        hi = guess
        while hi > 1 and ok(max(hi - step, 1)):
            hi, step = max(hi - step, 1), 2 * step
        lo = max(hi - step, 0) if hi > 1 else 0
    else:
        lo = guess
        while not ok(min(lo + step, n_max)):
            lo, step = min(lo + step, n_max), 2 * step
        hi = min(lo + step, n_max)
    return smallest_true(ok, lo, hi)


def _refine_rr(eps0: float, epsilon: float, delta: float, hi: int) -> int:
    """Binary RR: the smallest n <= hi meeting the target with the exact bound (hi meets it by
    the other bounds).  Up to the largest n at which the top dataset exceeds the target nothing
    can meet it; the exact branch and bound decides from there upwards."""
    top = min(hi - 1, binary_exact.HEADLINE_MAX_N)
    if not binary_exact.exact_meets(top, eps0, epsilon, delta):
        return hi
    lo = smallest_true(lambda n: not binary_exact.top_dataset_exceeds(n, eps0, epsilon, delta), 0, top) - 1
    step = 1
    while not binary_exact.exact_meets(min(lo + step, top), eps0, epsilon, delta):
        lo, step = min(lo + step, top), 2 * step
    return smallest_true(lambda n: binary_exact.exact_meets(n, eps0, epsilon, delta), lo, min(lo + step, top))
