"""Monotone searches: eps_c for a target delta, and the inverse over eps0.

``epsilon_for_delta`` finds the smallest eps with delta(eps) <= target for a
non-increasing delta(eps), using the certified upper bound for the "hi" side (so
the returned eps is a valid privacy claim) and the certified lower bound for the
"lo" side (so the bracket also gives a certified lower end).  Steps are Newton
steps on log delta (the slope d delta/d eps = -e^eps Q(S) comes with every
evaluation), safeguarded by bisection; no fixed iteration count.
The search itself (``epsilon_for_log_delta``) works on log(delta) throughout, so
targets below the float range (delta < 1e-308) work; ``epsilon_for_delta`` is a
wrapper for evaluators that return delta.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable, Optional, Tuple


@dataclass(frozen=True)
class EpsilonSearchResult:
    """Result of ``epsilon_for_delta``.

    epsilon : smallest eps found with certified delta(eps) <= target (upper end).
    achieved_delta : the certified upper bound on delta at ``epsilon`` (<= target).
    lower_epsilon : largest eps found with certified delta(eps) > target, i.e. a
        value below which (eps, target)-indistinguishability of the pair fails
        (None if no such point was certified, e.g. when epsilon = 0).
    evaluations : number of divergence evaluations used.
    """

    epsilon: float
    achieved_delta: float
    lower_epsilon: Optional[float]
    evaluations: int
    achieved_log_delta: float = -math.inf


Evaluator = Callable[[float], Tuple[float, float, float]]
"""eps -> (lower bound on delta, upper bound on delta, slope d delta / d eps)."""


def epsilon_for_delta(evaluate: Evaluator, target: float, eps_max: float, **options) -> EpsilonSearchResult:
    """Smallest eps in [0, eps_max] whose certified delta is <= target.

    Parameters
    ----------
    evaluate : returns (delta_lower, delta_upper, slope) at eps; delta must be
        non-increasing in eps and delta_upper(eps_max) <= target must hold.
    target : target delta in (0, 1).
    eps_max : an eps where the certified delta is known to be <= target.
    options : ``rtol``, ``atol``, ``max_evaluations``, ``guess``, ``predict``, passed (by
        keyword) to ``epsilon_for_log_delta``, whose defaults they take:
    rtol, atol : the bracket [lo, hi] is shrunk until hi - lo <= rtol * hi + atol.
    guess : optional starting point in (0, eps_max); without it the search starts
        at eps = 0.  eps = 0 is evaluated whenever the search reaches it, so a
        target already met at eps = 0 still returns 0.
    predict : if True, stop at the first certified point (upper delta <= target)
        from which a Newton step on sqrt(-2 log delta_upper) puts the root within
        rtol * eps + atol below it, without certifying a lower end (``lower_epsilon``
        may then be None).  The returned eps is certified either way; only its
        closeness to the smallest certified eps rests on the prediction.  With a
        guess a little above the root this is one evaluation instead of two.

    Notes
    -----
    A wrapper of ``epsilon_for_log_delta`` (the search works on log delta).
    """
    if not (0.0 < target < 1.0):
        raise ValueError(f"delta must lie in (0, 1), got {target!r}")

    uppers: dict = {}

    def log_ev(x: float):
        d_lo, d_up, s = evaluate(x)
        uppers[x] = d_up
        log = lambda v: math.log(v) if v > 0 else -math.inf  # noqa: E731
        # the log-slope's reference: the lower end, unless it is far below the upper end (a
        # loose certified lower end, e.g. a Jensen bound at small n, would make it huge and
        # send Newton far above the root); then the upper end, on which the search certifies
        d = d_lo if d_lo >= 0.5 * d_up else d_up
        return log(d_lo), log(d_up), (s / d if d > 0 else 0.0)

    # the float target's log may round either way: search for the float target itself
    # by comparing against the caller's uppers at the end (see below)
    res = epsilon_for_log_delta(log_ev, math.log(target), eps_max, **options)
    return replace(res, achieved_delta=uppers.get(res.epsilon, res.achieved_delta))


LogEvaluator = Callable[[float], Tuple[float, float, float]]
"""eps -> (log of lower bound on delta, log of upper bound, d log(delta) / d eps)."""


def epsilon_for_log_delta(
    evaluate: LogEvaluator,
    log_target: float,
    eps_max: float,
    rtol: float = 1e-9,
    atol: float = 1e-15,
    max_evaluations: int = 500,
    guess: Optional[float] = None,
    predict: bool = False,
) -> EpsilonSearchResult:
    """Smallest eps in [0, eps_max] whose certified log delta is <= ``log_target``.

    As ``epsilon_for_delta`` but on log delta throughout, so targets below the float
    range (delta < 1e-308) work.  ``achieved_delta`` of the result is exp of the
    achieved log delta (0 if it underflows); ``achieved_log_delta`` is exact.
    """
    if not (isinstance(log_target, (int, float)) and math.isfinite(log_target) and log_target < 0.0):
        raise ValueError(f"log_target must be a finite number < 0, got {log_target!r}")
    if not (rtol > 0.0):
        raise ValueError(f"rtol must be > 0, got {rtol!r}")
    evals = 0

    def ev(x: float):
        nonlocal evals
        evals += 1
        return evaluate(x)

    lo, hi = 0.0, eps_max
    lo_cert: Optional[float] = None
    hi_delta: Optional[float] = None
    g_t = math.sqrt(-2.0 * log_target)
    target = log_target

    def newton(x: float, d: float, s: float) -> Optional[float]:
        # Newton on g(eps) = sqrt(-2 log delta): nearly linear for the
        # Gaussian-like tails of shuffled pairs, so a step lands close to the root.
        # It uses the computed sum (the lower bound differs from it by the rounding
        # margin only; the upper bound also carries truncated mass, with no slope).
        # (d is log delta here, s = d log delta / d eps)
        if not (-math.inf < d < 0.0) or s >= 0.0 or not math.isfinite(s):
            return None
        g = math.sqrt(-2.0 * d)
        return x - (g - g_t) / (-s / g)

    zero_done = False
    ambiguous = 0
    cand: Optional[float] = guess if (guess is not None and 0.0 < guess < eps_max) else 0.0
    while evals < max_evaluations:
        if cand is not None and cand <= 0.0 and not zero_done:
            # Settle whether eps = 0 already meets the target.
            d_lo, d_up, s = ev(0.0)
            zero_done = True
            if d_up <= target:
                return _result(0.0, d_up, None, evals)
            if d_lo > target:
                lo_cert = 0.0
            cand = newton(0.0, d_lo if d_lo > -math.inf else d_up, s)
            continue
        width_goal = rtol * hi + atol
        if hi - lo <= width_goal:
            break
        if cand is None or not (lo < cand < hi):
            cand = 0.5 * (lo + hi)
        # the tolerance at the scale of the candidate: while hi is still eps_max,
        # rtol * hi can be orders of magnitude wider than the final bracket.
        width_here = rtol * cand + atol
        if hi_delta is not None and hi - cand < 0.5 * width_goal:
            # Converged from above: probe just below hi to close the bracket.
            cand = max(lo, hi - 0.75 * width_goal)
        elif cand - lo < 0.25 * width_here:
            cand = min(hi, lo + 0.5 * width_here)
        d_lo, d_up, s = ev(cand)
        if d_up <= target:
            hi, hi_delta = cand, d_up
            if predict:
                root = newton(cand, d_up, s)
                if root is not None and cand - root <= rtol * cand + atol:
                    break
        elif d_lo > target:
            lo = lo_cert = cand
            nxt = newton(cand, d_lo, s)
            if nxt is not None and lo < nxt < hi:
                # Newton from below lands next to the root: aim a little above it, so
                # that the next evaluation is likely a certified upper end; the probe
                # just below it then closes the bracket (3 evaluations in the usual case).
                nxt = min(nxt + 0.4 * (rtol * nxt + atol), 0.5 * (nxt + hi))
            cand = nxt
            continue
        else:
            # Within the rounding margin of the target: cand is the root to working
            # precision.  The first time, step just above it (a certified hi; the probe
            # below then certifies the lower end).  If that happens again the band is
            # wider than the tolerance: move lo (uncertified) so the bracket shrinks.
            ambiguous += 1
            if ambiguous == 1:
                # the step is sized by cand, not by hi: while hi is still far above the
                # root (e.g. eps_max) rtol * hi would overshoot by orders of magnitude
                # and leave a long bisection behind.
                cand = min(cand + 0.4 * (rtol * cand + atol), 0.5 * (cand + hi))
                continue
            lo = cand
            cand = 0.5 * (lo + hi)
            continue
        cand = newton(cand, d_lo if d_lo > -math.inf else d_up, s)
    if hi_delta is None:
        hi_delta = ev(hi)[1]
        if hi_delta > target:  # pragma: no cover - contract violation by caller
            raise ArithmeticError("delta at eps_max exceeds the target")
    return _result(hi, hi_delta, lo_cert, evals)


def _result(eps: float, log_delta: float, lo: Optional[float], evals: int) -> EpsilonSearchResult:
    """Result with achieved_delta rounded up (an upper bound also after exp)."""
    d = math.exp(log_delta) if log_delta > -math.inf else 0.0
    if d > 0.0:
        d = min(math.nextafter(math.nextafter(d, math.inf), math.inf), 1.0)
    return EpsilonSearchResult(eps, d, lo, evals, log_delta)


def largest_parameter_below(
    f: Callable[[float], float],
    target: float,
    lo: float,
    hi: float,
    rtol: float = 1e-6,
    max_evaluations: int = 200,
) -> Optional[float]:
    """Largest x in [lo, hi] with f(x) <= target, for f non-decreasing on [lo, hi].

    Returns None if f(lo) > target.  Bisection on a bracket with relative
    tolerance ``rtol``; the returned x always satisfies f(x) <= target.
    """
    f_lo = f(lo)
    if f_lo > target:
        return None
    f_hi = f(hi)
    if f_hi <= target:
        return hi
    evals = 2
    a, b = lo, hi
    while b - a > rtol * b and evals < max_evaluations:
        mid = 0.5 * (a + b)
        if f(mid) <= target:
            a = mid
        else:
            b = mid
        evals += 1
    return a


def largest_eps_above(
    evaluate: Evaluator,
    target: float,
    eps_max: float,
    rtol: float = 1e-5,
    guess: Optional[float] = None,
    max_evaluations: int = 60,
) -> Tuple[float, int]:
    """A certified point below the root, for lower bounds: (eps, evaluations).

    Returns the largest eps found whose certified lower bound on delta exceeds
    ``target`` (0.0 if none), for delta non-increasing in eps.  Unlike
    ``epsilon_for_delta`` it does not certify an upper end: Newton steps on
    sqrt(-2 log delta) aim just below the root, and the search stops at a certified
    point within ``rtol`` of the root that Newton predicts from it (or when a certified
    bracket is that narrow).  The returned eps is a valid lower bound whatever the
    prediction's accuracy; only its closeness to the root rests on it.  Saves the
    evaluation that certifies the upper end (4 -> 3 in the usual case).
    """
    if not (0.0 < target < 1.0):
        raise ValueError(f"delta must lie in (0, 1), got {target!r}")
    if not (rtol > 0.0):
        raise ValueError(f"rtol must be > 0, got {rtol!r}")
    g_t = math.sqrt(-2.0 * math.log(target))

    def newton(x: float, d: float, s: float) -> Optional[float]:
        # root of g(eps) = sqrt(-2 log delta) - g_t from x; d = delta, s = d delta / d eps
        if not (0.0 < d < 1.0) or not (s < 0.0) or not math.isfinite(s):
            return None
        g = math.sqrt(-2.0 * math.log(d))
        dg = -s / (d * g)  # > 0
        return x - (g - g_t) / dg

    lo, hi = 0.0, eps_max
    lo_cert = False
    zero_done = False
    evals = 0
    cand = guess if (guess is not None and 0.0 < guess < eps_max) else 0.5 * eps_max
    while evals < max_evaluations and hi - lo > rtol * hi:
        if cand is not None and cand <= 0.0 and not zero_done and not lo_cert:
            cand = 0.0  # Newton puts the root at or below 0: settle eps = 0
        elif cand is None or not (lo < cand < hi):
            cand = 0.5 * (lo + hi)
        d_lo, d_up, s = evaluate(cand)
        evals += 1
        if cand == 0.0:
            zero_done = True
            if d_lo <= target:
                return 0.0, evals  # nothing above the target: the trivial lower bound
        if d_lo > target:
            lo, lo_cert = cand, True
            root = newton(cand, d_lo, s)
            if root is not None and root - cand <= rtol * root:
                break
        else:
            # nothing certified above the target here, nor (delta non-increasing) above
            # here: aim at the root of the lower bound
            hi = cand
            root = newton(cand, d_lo if d_lo > 0.0 else d_up, s)
        cand = None if root is None else root * (1.0 - 0.5 * rtol)
    return (lo if lo_cert else 0.0), evals


def smallest_true(ok: Callable[[int], bool], lo: int, hi: int) -> int:
    """Smallest integer n in (lo, hi] with ok(n), for ok monotone (false then true), given
    ok(hi) and not ok(lo) (lo is never evaluated): integer bisection."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi
