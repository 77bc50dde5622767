"""The inverse question: the largest local eps0 whose shuffled guarantee meets a target.

Built on the one inverse :func:`accountant.engines.search.calibrate` (the shape of
``dp_accounting.mechanism_calibration``), kept apart from the accountant.  The privacy
contract: the returned eps0 is *verified*: the bound's certified eps_c at that eps0, with the t
that the mechanism's default rule gives at that very eps0 (or the fixed t), is <= the target.
The answer has been evaluated with that same function, so no seam of the t rule can put it on
the wrong side.  On the proved bound that function is the forward command's number,
:func:`accountant.bounds.registry.certified_epsilon` (what ``epsilon`` prints at the answer),
not a separate feasibility test: one number, one engine.  A candidate on which a cheap verdict
is conclusive (:func:`accountant.bounds.screen.forward_verdict`: eps0 <= the target, every
bound proved above it, or the blanket meeting it with a margin) is decided without the
forward's eps searches; the answer is settled on the forward itself.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Optional

import numpy as np

from scipy.optimize import brentq

from accountant.bounds import registry as bounds
from accountant.bounds.screen import forward_verdict
from accountant.core.params import EPS0_MAX, validate_delta, validate_n, make_params
from accountant.core.limits import EPS0_MIN
from accountant.core.rules import rule_interval
from accountant.engines.blanket.law import blanket_law
from accountant.engines.blanket.window import approx_log_delta
from accountant.engines.search import calibrate

# mechanisms whose proved eps_c is the exact blanket of a count law (a saddle-point estimate
# of it places the proved search when the paper's pair cannot): the blanket's named mechanisms
_BLANKET_MECHANISMS = tuple(m for m in bounds.REGISTRY["blanket"].applies_to if m != "finite")

# At most this many t values beyond the bisection's answer are searched when t follows
# the default rule (eps_c is a saw-tooth in eps0 there); the walk never changes safety.
T_WALK_MAX = 64
# under a uniformly random hash each proved evaluation is a search on the four-corner law
# (1-10 s for CoCo at s = 8, n = 1.7e4, delta = 1e-10 on a loaded machine): the inverse
# bisects to this relative tolerance at most (about the printed digits of eps0; the answer
# stays verified: eps_c <= epsilon), 6 bisection steps instead of 13 (`local-epsilon --n 16719
# --eps 0.2498 --delta 1.32e-10 --mechanism coco --s 8 --hash-model random` ran past 120 s)
RANDOM_HASH_RTOL = 1e-4


def _check_target(epsilon) -> float:
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, np.floating)) or not (
        math.isfinite(float(epsilon)) and EPS0_MIN <= float(epsilon) <= EPS0_MAX
    ):  # the answer eps0 is at least the target (eps_c <= eps0): the target is in the eps0 range
        raise ValueError(f"epsilon must be a number in [{EPS0_MIN:g}, {EPS0_MAX:g}], got {epsilon!r}")
    return float(epsilon)


def local_epsilon(n: int, epsilon: float, delta: float, mechanism: str = "generic",
                  s: Optional[int] = None, t: Optional[int] = None, rtol: float = 1e-6,
                  eps0_max: float = 20.0, bound: str = "proved", k: Optional[int] = None,
                  guess: Optional[float] = None, g: Optional[int] = None,
                  hash_model: str = "any") -> float:
    """Largest eps0 (to relative tolerance ``rtol``) whose eps_c(eps0) <= ``epsilon`` at ``delta``.

    The inverse question of :class:`ShuffleAccountant`, as ``dp_accounting``'s
    ``calibrate_dp_mechanism``: a bracketed monotone search (:func:`calibrate`), every
    candidate decided on the proved bound or on a conclusive cheap verdict on it, the answer
    checked on the proved bound itself, so it never has a certified eps_c above the target.

    Parameters
    ----------
    n : int
        Number of users, 1 <= n <= 1e10.
    epsilon : float
        Target central epsilon (> 0).
    delta : float
        Target delta, in (0, 1).
    mechanism : str
        One of :data:`MECHANISMS` accepted by :func:`make_params` with ``s``, ``t``, ``k``.
    s : int, optional
        Non-zero coordinates per user (collision, coco).
    t : int, optional
        Fixed output size; ``None`` follows the mechanism's default rule, under which
        eps_c is a saw-tooth in eps0 (t jumps); the search then also tries the eps0
        intervals of the next ``T_WALK_MAX`` values of t beyond its first answer.
    rtol : float
        Relative tolerance of the search, in (0, 1).
    eps0_max : float
        Largest eps0 considered, in (0, 30].
    bound : str
        ``"proved"`` (default: the smallest proved upper bound,
        :func:`accountant.bounds.registry.proved_params_epsilon`) or a registry name;
        ``"paper"`` (alias ``"tight"``) inverts the paper's Theorem 5 value, which is not
        proved.
    k : int, optional
        Domain size (krr, olh, oue).
    g : int, optional
        OLH's hash range, fixed at every eps0 tried (default: ``round(e^eps0) + 1`` at each).
    guess : float, optional
        ``bound="proved"`` only: an estimate of the answer (e.g. a saddle-point screen)
        used instead of the paper's pair inverse to place the proved search; it changes the
        cost, never the guarantee (every candidate is checked on the proved bound).
    hash_model : str
        ``"any"`` (default) or ``"random"`` (collision, olh): every candidate's eps_c is
        the one proved under that model (``"random"``: assuming each report's hash is a
        uniformly random function), so the answer's certified eps_c under the same model
        is <= ``epsilon``.

    Returns
    -------
    float
        eps0 in [min(epsilon, eps0_max), eps0_max] with verified eps_c(eps0) <= epsilon:
        eps0 = epsilon always qualifies (eps_c <= eps0 by post-processing).

    Raises
    ------
    ValueError
        If a parameter is out of its range (the message names it and the range).

    Examples
    --------
    >>> from accountant import ShuffleAccountant, fmt, local_epsilon, make_params
    >>> e0 = local_epsilon(100_000, 0.5, 1e-6, mechanism="krr", k=4)
    >>> print(fmt(e0, 4, "down"))
    6.606
    >>> ShuffleAccountant(make_params("krr", e0, k=4), 100_000).get_epsilon(1e-6) <= 0.5
    True
    """
    n, epsilon, delta, bound = _check_inverse(n, epsilon, delta, mechanism, s, t, rtol, eps0_max,
                                              bound, k, g, hash_model)
    # a named bound is evaluated as `epsilon --bound NAME` prints it (its default --rtol)
    inner_rtol = bounds.FORWARD_RTOL
    if hash_model == "random":
        rtol = max(rtol, RANDOM_HASH_RTOL)

    def build(e0: float):
        # exactly what a user gets at e0: the rule's t when t is None
        return make_params(mechanism, e0, s=s, t=t, k=k, g=g, hash_model=hash_model)

    @lru_cache(maxsize=None)
    def forward(params) -> float:
        e0 = params.eps0
        if bound == "proved":
            if e0 <= epsilon:
                return e0  # post-processing: the forward's number is <= e0 <= epsilon
            # the number the forward command certifies and prints (`epsilon`, get_epsilon): the
            # same engines, the same search, the same rounding, so the answer is confirmed there
            return bounds.certified_epsilon(params, n, delta).epsilon
        else:
            res = bounds.compute_params_bound(bound, params, n, delta, inner_rtol)
        if res is None or not res.applicable or res.epsilon is None:
            return e0  # post-processing: (e0, 0)-DP
        return min(float(res.epsilon), e0)

    lo = min(epsilon, eps0_max)
    if bound == "proved":
        return _proved_from_surrogate(build, forward, n, epsilon, delta, mechanism, s, t, rtol, eps0_max, k,
                                      lo, guess, g)
    best = calibrate(build, epsilon, forward, lo, eps0_max, rtol=rtol).x
    if best is None:  # pragma: no cover - eps_c(lo) <= lo <= epsilon
        raise ArithmeticError("inverse: eps0 = epsilon was not feasible")
    if t is None and mechanism in ("collision", "coco") and best < eps0_max:
        best = _walk_t_rule(build, forward, epsilon, mechanism, s, best, eps0_max, rtol)
    if forward(build(best)) > epsilon:  # pragma: no cover - every candidate was verified
        raise ArithmeticError("inverse failed its final check")
    return best


def _check_search(n, epsilon, delta, eps0_max, rtol) -> tuple:
    """(n, epsilon, delta) of an eps0 search checked, with its eps0_max and rtol (each bad one a
    ``ValueError`` naming it), before any work."""
    n = validate_n(n)
    delta = validate_delta(delta)
    epsilon = _check_target(epsilon)
    if not (isinstance(eps0_max, (int, float)) and 0.0 < eps0_max <= EPS0_MAX):
        raise ValueError(f"eps0_max must be a number in (0, {EPS0_MAX:g}], got {eps0_max!r}")
    if not (isinstance(rtol, float) and 0.0 < rtol < 1.0):
        raise ValueError(f"rtol must lie in (0, 1), got {rtol!r}")
    return n, epsilon, delta


def _check_inverse(n, epsilon, delta, mechanism, s, t, rtol, eps0_max, bound, k, g, hash_model):
    """(n, epsilon, delta, bound) of :func:`local_epsilon` checked (each bad one a
    ``ValueError`` naming it) before any work; ``bound`` resolved to its registry name."""
    n, epsilon, delta = _check_search(n, epsilon, delta, eps0_max, rtol)
    make_params(mechanism, 1.0, s=s, t=t, k=k, g=g, hash_model=hash_model)  # validates mechanism / s / t / k / g early
    if bound != "proved":
        bound = bounds.resolve_name(bound)
        if bounds.REGISTRY[bound].kind == "lower":
            raise ValueError(f"bound must be 'proved' or an upper bound name, got {bound!r}")
    return n, epsilon, delta, bound


def _walk_t_rule(build, forward, epsilon: float, mechanism: str, s, best: float, eps0_max: float,
                 rtol: float) -> float:
    """Under the default t rule eps_c is a saw-tooth in eps0: the largest verified eps0 over
    the eps0 intervals of the next ``T_WALK_MAX`` values of t beyond ``best``."""
    step = 1 if mechanism == "collision" else 2
    tt = make_params(mechanism, best, s=s).t + step
    for _ in range(T_WALK_MAX):
        iv = rule_interval(mechanism, s, tt)
        tt += step
        if iv is None:
            continue
        a, b = max(iv[0], best), min(iv[1], eps0_max)
        if a >= eps0_max:
            break
        if b <= a:
            continue
        if forward(build(a)) > epsilon:
            continue
        cand = calibrate(build, epsilon, forward, a, b, rtol=rtol).x
        if cand is not None and cand > best:
            best = cand
    return best


def saddle_local_epsilon(mechanism: str, n: int, epsilon: float, delta: float,
                         s: Optional[int] = None, t: Optional[int] = None, k: Optional[int] = None,
                         eps0_max: float = 20.0, g: Optional[int] = None) -> Optional[float]:
    """Saddle-point estimate of the largest eps0 <= ``eps0_max`` whose exact-blanket eps_c
    meets ``epsilon`` at ``delta`` (NOT certified: it only places a proved search).

    eps_c(eps0) <= epsilon iff delta(epsilon; eps0) <= delta, and delta(epsilon; eps0) grows
    with eps0 (for a fixed t): a root in eps0 of the saddle-point log delta
    (:func:`accountant.engines.blanket.window.approx_log_delta`) at the fixed ``epsilon``.
    With ``t=None`` the mechanism's rule sets t at each eps0 (OLH: ``g`` fixes its hash
    range, else its rule sets it).  None for a mechanism without a blanket count law."""
    if mechanism not in _BLANKET_MECHANISMS:
        return None
    log_d = math.log(delta)

    def f(e0: float) -> float:
        if e0 <= epsilon:
            return -1.0  # post-processing: eps_c <= eps0
        lp = approx_log_delta(blanket_law(make_params(mechanism, e0, s=s, t=t, k=k, g=g)), n, epsilon)
        if lp is None:  # no decay: delta(epsilon) is not small
            return 1.0
        return max(lp - log_d, -1e3)

    lo = min(epsilon, eps0_max)
    if lo >= eps0_max or f(eps0_max) <= 0:
        return eps0_max
    return brentq(f, lo, eps0_max, xtol=1e-7, rtol=1e-7)


def _proved_from_surrogate(build, forward, n, epsilon, delta, mechanism, s, t, rtol, eps0_max, k, lo,
                           guess=None, g_fixed=None) -> float:
    """The proved inverse, started from the inverse of the paper's pair bound.

    The pair bound costs milliseconds and lies within ~1e-4 of the exact blanket, which
    costs 0.1-3 s per evaluation, so the pair's inverse (with its walk over the t rule)
    locates the answer and the proved eps_c is evaluated only near it: a geometric
    bracket below (or above) the surrogate, then bisection (:func:`calibrate` from that
    guess).  Every candidate is decided on ``forward`` (the proved bound with the rule's t at
    that eps0) or on a conclusive cheap verdict on it, the answer on ``forward`` itself; when the
    proved curve is not monotone near a seam, the answer is verified but may not be the
    largest.
    """
    if guess is not None and math.isfinite(guess) and guess > 0:
        g = min(float(guess), eps0_max)
    else:
        g = local_epsilon(n, epsilon, delta, mechanism, s, t, rtol=min(rtol, 1e-6), eps0_max=eps0_max,
                          bound="paper", k=k, g=g_fixed)
        if g <= lo * (1.0 + 1e-9):
            # the pair's inverse said nothing (e.g. its window capped by the cost model far
            # in the tail): the saddle-point estimate of the blanket places the search instead,
            # or the walk up from lo would pay for many evaluations far from the answer
            est = saddle_local_epsilon(mechanism, n, epsilon, delta, s, t, k, eps0_max, g_fixed)
            if est is not None:
                g = est
    found = calibrate(build, epsilon, forward, lo, eps0_max, rtol=rtol, guess=max(g, lo),
                      screen=lambda params: forward_verdict(params, n, epsilon, delta))
    best = lo if found.x is None else found.x
    if forward(build(best)) > epsilon:  # pragma: no cover - eps_c(lo) <= lo <= epsilon
        raise ArithmeticError("inverse failed its final check")
    return best


def local_epsilon_family(build, n: int, epsilon: float, delta: float, rtol: float = 1e-6,
                         eps0_max: float = 20.0) -> Optional[float]:
    """Largest eps0 (to relative tolerance ``rtol``) for which the randomizer ``build(eps0)`` (a
    :class:`accountant.FiniteRandomizer`, e.g. a member of :mod:`accountant.core.catalogue` at a
    fixed k) has a proved eps_c <= ``epsilon`` at ``delta``; None when no eps0 in the bracket
    qualifies.

    Every candidate is decided on the number the forward command certifies for the matrix built
    at it (as :func:`local_epsilon`: :func:`accountant.bounds.registry.certified_epsilon`; the
    matrix's own eps0, not the requested one, bounds it by post-processing) or on a conclusive
    cheap verdict on that number (:func:`accountant.bounds.screen.forward_verdict`), the answer
    on the number itself, so the answer never has a certified eps_c above the target even where
    eps_c is not monotone in eps0 (then the answer may not be the largest).

    Examples
    --------
    >>> from accountant import ShuffleAccountant, fmt, local_epsilon_family
    >>> from accountant.core.catalogue import krr
    >>> e0 = local_epsilon_family(lambda e: krr(4, e), 100_000, 0.5, 1e-6)
    >>> print(fmt(e0, 4, "down"))
    6.606
    >>> ShuffleAccountant(krr(4, e0), 100_000).get_epsilon(1e-6) <= 0.5
    True
    """
    n, epsilon, delta = _check_search(n, epsilon, delta, eps0_max, rtol)

    def forward(R) -> float:
        # the forward command's number for the matrix built at e0 (its own eps0 bounds it)
        return bounds.certified_epsilon(R, n, delta).epsilon

    lo = min(epsilon * (1.0 - 1e-4), eps0_max)  # post-processing: a matrix of eps0 below the target
    return calibrate(build, epsilon, forward, lo, eps0_max, rtol=rtol,
                     screen=lambda R: forward_verdict(R, n, epsilon, delta)).x
