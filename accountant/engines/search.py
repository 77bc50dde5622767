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

``bisect`` is the one float bisection of a monotone predicate (its answer on the side where the
predicate was checked true), ``smallest_true`` its integer form, and ``calibrate`` the one
inverse: the extreme parameter whose forward number meets a target (the shape of
dp_accounting's ``calibrate_dp_mechanism``), galloping from a guess, screened where a cheap
verdict is conclusive and settled on the forward itself.
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


@dataclass(frozen=True)
class Bisection:
    """Result of :func:`bisect`.

    x : the safe end: a point where the predicate was checked true, or the caller's
        ``true_end`` when no midpoint was (None when ``check_ends`` found it false there).
    other : the other end: checked false, or the caller's ``false_end`` (None when
        ``check_ends`` found the predicate true there; ``x`` is then that end).
    evaluations : calls of the predicate.
    exhausted : the budget ran out before the bracket met its tolerance.
    """

    x: Optional[float]
    other: Optional[float]
    evaluations: int
    exhausted: bool = False


def bisect(ok: Callable[[float], bool], true_end: float, false_end: float, rtol: float = 0.0,
           atol: float = 0.0, floor: float = 0.0, max_evaluations: Optional[int] = None,
           check_ends: bool = False) -> Bisection:
    """Bisection of a monotone predicate between ``true_end`` (where ``ok`` holds) and
    ``false_end`` (where it fails), on either side of each other.

    The bracket is halved at its midpoint ``0.5 * (t + f)`` until ``|t - f| <= rtol * max(|t|,
    |f|) + atol``, or both ends are within ``floor`` of 0 (a point that small is as good as 0),
    or ``max_evaluations`` calls of ``ok`` were made (``exhausted``), or the ends are
    neighbouring floats.  The answer ``x`` is
    directed: it is the true end, so ``ok`` held there (checked, or asserted by the caller; with
    ``check_ends`` both ends are checked first and count against the budget).  ``ok`` is called
    only at the ends and at midpoints, each point at most once.
    """
    evals = 0
    t, f = true_end, false_end
    if check_ends:
        evals += 1
        if not ok(t):
            return Bisection(None, t, evals)
        evals += 1
        if ok(f):
            return Bisection(f, None, evals)
    while abs(t - f) > rtol * max(abs(t), abs(f)) + atol and max(abs(t), abs(f)) > floor:
        if max_evaluations is not None and evals >= max_evaluations:
            return Bisection(t, f, evals, True)
        mid = 0.5 * (t + f)
        if mid == t or mid == f:
            break  # the ends are neighbouring floats
        evals += 1
        if ok(mid):
            t = mid
        else:
            f = mid
    return Bisection(t, f, evals)


def largest_parameter_below(
    f: Callable[[float], float],
    target: float,
    lo: float,
    hi: float,
    rtol: float = 1e-6,
    max_evaluations: int = 200,
) -> Optional[float]:
    """Largest x in [lo, hi] with f(x) <= target, for f non-decreasing on [lo, hi].

    Returns None if f(lo) > target.  Bisection (:func:`bisect`) on a bracket with relative
    tolerance ``rtol``; the returned x always satisfies f(x) <= target.
    """
    if f(lo) > target:
        return None
    if f(hi) <= target:
        return hi
    return bisect(lambda x: f(x) <= target, lo, hi, rtol=rtol, max_evaluations=max_evaluations - 2).x


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


# ---------------------------------------------------------------------------------- the inverse
#: :func:`calibrate`'s gallop from a guess: the first relative step towards the side that fails
#: the target and towards the side that meets it, each next step GALLOP_GROWTH times the last
#: (all relative to the guess)
GALLOP_OUT = 1e-3
GALLOP_IN = 1e-4
GALLOP_GROWTH = 8.0


@dataclass(frozen=True)
class Calibration:
    """Result of :func:`calibrate`.

    x : the answer: the extreme parameter found whose forward number meets the target,
        confirmed by the forward itself (None: no parameter in the bracket meets it).
    value : the forward's number at x (None with x None).
    other : the nearest parameter beyond x found not to meet the target, by the forward or by
        the screen's False (None when x is the bracket's end).
    forward_calls : evaluations of the forward.
    screened : decisions the screen gave in place of the forward.
    exhausted : the bisection's budget ran out before its tolerance.
    """

    x: Optional[float]
    value: Optional[float]
    other: Optional[float]
    forward_calls: int
    screened: int
    exhausted: bool = False


def calibrate(build: Callable, target: float, forward: Callable, lo: float, hi: float, *,
              largest: bool = True, discrete: bool = False, rtol: float = 0.0, atol: float = 0.0,
              guess: Optional[float] = None, screen: Optional[Callable] = None,
              max_evaluations: Optional[int] = 200) -> Calibration:
    """The extreme x in [lo, hi] whose parameter object ``build(x)`` has a forward number
    ``forward(build(x)) <= target``: the inverse of a monotone forward, in the shape of
    dp_accounting's ``calibrate_dp_mechanism``.  ``largest``: the largest such x (the forward
    non-decreasing in x, as eps_c in eps0), else the smallest (non-increasing, as eps_c in n);
    over the integers with ``discrete``.

    Without ``guess`` both ends are decided first, then the bracket is bisected
    (:func:`bisect`, to ``rtol`` and ``atol`` within ``max_evaluations`` decisions, the ends
    included; integers: to neighbours).  With a guess the bracket is galloped from it: relative
    steps ``GALLOP_OUT`` towards the failing side and ``GALLOP_IN`` towards the meeting side,
    growing ``GALLOP_GROWTH``-fold (integers: steps 1, 2, 4, ... added up), then bisected; the
    guess changes the cost, and where the forward is monotone not the answer.

    ``screen(obj)`` is a cheap verdict on ``build(x)``: True where the forward's number meets
    the target, False where it certainly does not (a proof: taken as it is), None where only the
    forward can tell; where it speaks it replaces the forward.  The answer is settled on the
    forward: where the forward disagrees with a True given there (or, with no answer, with the
    verdict at the meeting edge), the search runs again without the screen.  So every answer is
    one the forward itself confirmed, and where every verdict agrees with the forward it is the
    answer of the forward alone, bit for bit.  Where the forward is not monotone the answer still
    meets the target but may not be the extreme.  Each x is built, screened and evaluated at
    most once.
    """
    objs: dict = {}
    values: dict = {}
    counts = [0, 0]

    def obj(x):
        if x not in objs:
            objs[x] = build(x)
        return objs[x]

    def value(x) -> float:
        if x not in values:
            counts[0] += 1
            values[x] = forward(obj(x))
        return values[x]

    def run(use_screen: bool):
        verdicts: dict = {}

        def meets(x) -> bool:
            if x not in verdicts:
                v = screen(obj(x)) if use_screen else None
                if v is None:
                    verdicts[x] = (value(x) <= target, False)
                else:
                    counts[1] += 1
                    verdicts[x] = (bool(v), True)
            return verdicts[x][0]

        found = _gallop_then_bisect(meets, lo, hi, largest, discrete, rtol, atol, guess, max_evaluations)
        # settle: the forward confirms a screened verdict at the answer (or, without one, at the
        # meeting edge); a screened False beyond it is the screen's proof
        p = found[0] if found[0] is not None else found[1]
        wrong = p is not None and p in verdicts and verdicts[p][1] and (value(p) <= target) != verdicts[p][0]
        return found, wrong

    (x, other, exhausted), wrong = run(screen is not None)
    if wrong:
        (x, other, exhausted), _ = run(False)
    return Calibration(x, None if x is None else value(x), other, counts[0], counts[1], exhausted)


def _gallop_then_bisect(meets, lo, hi, largest, discrete, rtol, atol, guess, max_evaluations) -> tuple:
    """(answer or None, the end beyond it or None, exhausted) of :func:`calibrate`'s search."""
    up = largest  # the failing side lies above the meeting side
    t_edge, f_edge = (lo, hi) if up else (hi, lo)
    if guess is None:
        if not meets(t_edge):
            return None, t_edge, False
        if meets(f_edge):
            return f_edge, None, False
        t, f = t_edge, f_edge
    elif discrete:
        t, f = _gallop_integers(meets, min(max(int(guess), lo), hi), lo, hi, up)
        if t is None or f is None:
            return t, f, False
    else:
        t, f = _gallop_floats(meets, min(max(guess, lo), hi), lo, hi, up)
        if f is None:
            return t, None, False
        b = bisect(meets, t, f, rtol=rtol, atol=atol, max_evaluations=max_evaluations, check_ends=True)
        return b.x, b.other, b.exhausted
    if discrete:
        while abs(t - f) > 1:
            mid = (t + f) // 2
            if meets(mid):
                t = mid
            else:
                f = mid
        return t, (f if lo <= f <= hi else None), False
    b = bisect(meets, t, f, rtol=rtol, atol=atol,
               max_evaluations=None if max_evaluations is None else max_evaluations - 2)
    return b.x, b.other, b.exhausted


def _gallop_floats(meets, g: float, lo: float, hi: float, up: bool) -> tuple:
    """(t, f): a point meeting the target and one failing it, galloped from g by relative steps
    (f None: the bracket's failing edge meets the target, t is that edge)."""
    def toward(side_up: bool, step: float) -> float:
        return min(hi, g * (1.0 + step)) if side_up else max(lo, g * (1.0 - step))

    t_edge, f_edge = (lo, hi) if up else (hi, lo)
    if meets(g):
        t, f, step = g, None, GALLOP_OUT
        while f is None:
            c = toward(up, step)
            if not meets(c):
                f = c
            elif c == f_edge:
                return c, None
            else:
                t, step = c, step * GALLOP_GROWTH
        return t, f
    t, f, step = None, g, GALLOP_IN
    while t is None:
        c = toward(not up, step)
        if c == t_edge or meets(c):  # the meeting edge is decided by the bisection's end check
            t = c
        else:
            f, step = c, step * GALLOP_GROWTH
    return t, f


def _gallop_integers(meets, n: int, lo: int, hi: int, up: bool) -> tuple:
    """(t, f): neighbours-to-be of :func:`calibrate` over the integers, galloped from n by steps
    1, 2, 4, ...: a meeting t and a failing f (f None: t is the bracket's failing edge end, or
    f outside [lo, hi]; t None: not even the meeting edge meets the target)."""
    d = 1 if up else -1  # towards the failing side
    f_edge, t_edge = (hi, lo) if up else (lo, hi)
    if meets(n):
        t, step = n, 1
        while True:
            m = t + d * step
            if (m > f_edge) if up else (m < f_edge):
                return (t, f_edge + d) if t != f_edge else (t, None)
            if not meets(m):
                return t, m
            t, step = m, 2 * step
    f, step = n, 1
    while f != t_edge:
        m = max(f - step, t_edge) if up else min(f + step, t_edge)
        if meets(m):
            return m, f
        f, step = m, 2 * step
    return None, f
