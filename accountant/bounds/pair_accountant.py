"""The paper's dominating pair as an accountant: Theorem 5 (Collision, CoCo) and the
stronger clone pair (generic), evaluated exactly by :mod:`accountant.engines.pair`.

These values are *not* proved upper bounds for the mechanisms as implemented (docs/proved.md,
"Findings"; :mod:`accountant.core.params` caveats): the registry (:mod:`accountant.bounds.registry`)
reports them under the name ``paper``, never as ``epsilon``.
"""
from __future__ import annotations

import math
from functools import lru_cache
from dataclasses import dataclass, replace
from typing import Optional

import numpy as np

from accountant.engines.pair.law import DivergenceValue, DominatingPair
from accountant.engines.pair.divergence import hockey_stick_divergence
from accountant.core.optional import require
from accountant.core.params import Params, validate_delta, validate_n
from accountant.engines.saddle import log_positive_part, root_of_decreasing
from accountant.engines.search import EpsilonSearchResult, bisect, epsilon_for_log_delta


def clamp_to_eps0(epsilon: float, achieved_delta: float, eps0: float) -> tuple[float, float]:
    """An eps_c at or above eps0 (by rounding, or no amplification) becomes eps0 with delta 0.

    Shuffling is post-processing of n eps0-LDP reports, each touching one user's data, so
    the shuffled output is (eps0, 0)-DP whatever a bound computes."""
    if epsilon >= eps0:
        return eps0, 0.0
    return epsilon, achieved_delta


@dataclass(frozen=True)
class EpsilonResult:
    """Central epsilon of a shuffled mechanism for a target delta.

    epsilon : eps_c of the dominating pair (Theorem 5 / Theorem 1), <= eps0; the
        pair's delta at ``epsilon`` is certified <= delta (``achieved_delta``).  Whether
        the pair dominates the shuffled mechanism is ``certified`` / ``caveat``.
    lower_epsilon : when Theorem 6 applies, the pair's certified lower end, a lower
        bound on eps_c for the hash family of Theorem 6's proof; otherwise None.

    Examples
    --------
    >>> from accountant import PairAccountant, fmt, make_params
    >>> r = PairAccountant(make_params("generic", 1.0), 10_000).epsilon_result(1e-6)
    >>> print(fmt(r.epsilon, 4, "up"), r.achieved_delta <= r.delta, r.certified)
    0.04321 True False
    """

    epsilon: float
    delta: float
    achieved_delta: float
    lower_epsilon: Optional[float]
    tight: Optional[bool]
    evaluations: int
    certified: bool = False
    caveat: Optional[str] = None
    log_delta: Optional[float] = None
    achieved_log_delta: Optional[float] = None


def _check_log_delta(log_delta) -> float:
    if isinstance(log_delta, bool) or not isinstance(log_delta, (int, float, np.floating)) or not (
        math.isfinite(float(log_delta)) and -1e6 <= float(log_delta) < 0.0
    ):
        raise ValueError(f"log_delta must be a number in [-1e6, 0), got {log_delta!r}")
    return float(log_delta)


class PairAccountant:
    """The paper's pair bound for n shuffled reports of one randomizer (Theorem 1 / Theorem 5).

    ``get_delta(epsilon)`` returns a certified upper bound on D_{e^epsilon}(P_a || Q_a);
    ``get_epsilon(delta)`` the smallest epsilon (to relative tolerance ``rtol``) whose
    certified pair delta is <= ``delta``, never above eps0 (post-processing).  Certified
    *for the pair*: whether the pair dominates the mechanism is ``params.certified``
    (False: docs/proved.md, "Findings").  The proved accountant is :class:`ShuffleAccountant`.

    Parameters
    ----------
    params : Params
        The randomizer's parameter object (its mixture weight defines the pair).
    n : int
        Number of users, 1 <= n <= 1e10.
    method : str
        ``"float"`` (fast), ``"mpmath"`` (reference) or ``"arb"`` (certified ball
        arithmetic, needs python-flint); see :func:`hockey_stick_divergence`.
    digits : int
        Significant digits of the ``mpmath`` / ``arb`` evaluations, in [5, 1000].

    References
    ----------
    Wang et al., "Differentially Private Numerical Vector Analyses in the Local and Shuffle
    Model", Theorems 1 and 5; Feldman, McMillan, Talwar, "Stronger privacy amplification by
    shuffling for Renyi and approximate differential privacy", SODA 2023, Theorem 3.2.

    Examples
    --------
    >>> from accountant import PairAccountant, fmt, make_params
    >>> pa = PairAccountant(make_params("generic", 4.0), 10**5)
    >>> print(fmt(pa.get_epsilon(1e-6), 4, "up"))
    0.1182
    >>> pa.get_delta(pa.get_epsilon(1e-6)) <= 1e-6
    True
    """

    def __init__(self, params: Params, n: int, *, method: str = "float", digits: int = 30) -> None:
        self.params = params
        self.n = validate_n(n)
        if method not in ("float", "mpmath", "arb"):
            raise ValueError(f"method must be 'float', 'mpmath' or 'arb', got {method!r}")
        if method == "arb":
            require("flint", "method 'arb' (certified ball arithmetic)")
        if isinstance(digits, bool) or not isinstance(digits, int) or not 5 <= digits <= 1000:
            raise ValueError(f"digits must be an integer in [5, 1000], got {digits!r}")
        self.method = method
        self.digits = digits
        self.pair = DominatingPair.stronger_clone(
            self.n, params.eps0, params.mixture_weight, r=params.remainder
        )

    def divergence(self, epsilon: float, target_delta: Optional[float] = None) -> DivergenceValue:
        return hockey_stick_divergence(
            self.pair, epsilon, method=self.method, digits=self.digits, target_delta=target_delta
        )

    def delta_bounds(self, epsilon: float) -> DivergenceValue:
        """Certified bounds on delta at ``epsilon`` (both as numbers and as logs)."""
        if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, np.floating)) or not (
            math.isfinite(float(epsilon)) and float(epsilon) >= 0.0
        ):
            raise ValueError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
        return self.divergence(float(epsilon))

    def get_delta(self, epsilon: float) -> float:
        """Certified upper bound on delta at ``epsilon``."""
        return min(self.delta_bounds(epsilon).upper, 1.0)

    def get_log_delta(self, epsilon: float) -> float:
        """Certified upper bound on log(delta) at ``epsilon`` (finite below 1e-308; -inf
        when delta is exactly 0, i.e. epsilon >= the pair's eps_max).

        Examples
        --------
        >>> from accountant import PairAccountant, fmt, make_params
        >>> pa = PairAccountant(make_params("generic", 4.0), 10**5, method="arb")
        >>> print(fmt(pa.get_log_delta(3.0), 6, "up"))
        -1557.19
        """
        return min(self.delta_bounds(epsilon).log_upper, 0.0)

    def delta_curve(self, epsilons) -> np.ndarray:
        """Certified upper bounds on delta over a grid of epsilons."""
        return np.array([self.get_delta(float(e)) for e in np.atleast_1d(epsilons)])

    def epsilon_result(self, delta: Optional[float] = None, rtol: float = 1e-9, *,
                       log_delta: Optional[float] = None, bracket: bool = True) -> EpsilonResult:
        """eps_c for a target ``delta`` or (for targets below 1e-300) ``log_delta``; with
        ``bracket=False`` no certified lower end is searched for (``lower_epsilon`` None; the
        upper end is certified either way, within ``rtol`` of the root Newton predicts)."""
        if (delta is None) == (log_delta is None):
            raise ValueError("give exactly one of delta and log_delta")
        if delta is not None:
            delta = validate_delta(delta)
            log_target = math.log(delta)
        else:
            log_target = _check_log_delta(log_delta)
            delta = math.exp(log_target)
        if not (0.0 < rtol < 1.0):
            raise ValueError(f"rtol must lie in (0, 1), got {rtol!r}")
        p = self.params
        # a certified lower end is reported only where Theorem 6 makes it one for the mechanism
        bracket = bool(bracket) and p.theorem6_applies
        res = search_pair_epsilon(self.pair, delta, rtol, method=self.method, digits=self.digits,
                                  log_delta=log_target, predict=not bracket)
        lower = res.lower_epsilon if bracket else None
        if bracket and lower is None and res.epsilon == 0.0:
            lower = 0.0
        eps, achieved = clamp_to_eps0(res.epsilon, res.achieved_delta, p.eps0)
        achieved_log = res.achieved_log_delta if eps == res.epsilon else -math.inf
        if lower is not None:
            lower = min(lower, eps)
        return EpsilonResult(eps, delta, achieved, lower, p.tight, res.evaluations,
                             p.certified, p.caveat, log_target, achieved_log)

    def get_epsilon(self, delta: Optional[float] = None, rtol: float = 1e-9, *,
                    log_delta: Optional[float] = None) -> float:
        """Certified upper bound on eps_c for the target ``delta`` (or ``log_delta``)."""
        return self.epsilon_result(delta, rtol, log_delta=log_delta).epsilon


def search_pair_epsilon(pair: DominatingPair, delta: float, rtol: float = 1e-9, *,
                        method: str = "float", digits: int = 30,
                        log_delta: Optional[float] = None, predict: bool = False) -> EpsilonSearchResult:
    """eps_c of a dominating pair: smallest eps with certified delta <= ``delta``.

    The summation window is fixed once from the target (mass left out <=
    :func:`window_fraction` of it: 1e-13 at the default rtol) and reused by every
    evaluation of the search.  The search runs on
    log(delta); pass ``log_delta`` (then ``delta`` is only its float image, possibly
    0) for targets below the float range.  ``method`` as in
    ``hockey_stick_divergence``; with ``"arb"`` the result is the certified eps_c
    (smallest eps, to ``rtol``, whose interval's upper end is <= the target).
    The search starts just above the saddle-point estimate (:func:`saddle_guess`, within
    1e-9 of eps_c at n = 1e9), so a certified bracket usually takes two evaluations and,
    with ``predict=True`` (no certified lower end, see :func:`accountant.engines.search.epsilon_for_delta`),
    one.
    """
    from accountant.engines.pair.law import window_log
    from accountant.engines.pair.divergence import FloatWindow, window_value

    log_target = math.log(delta) if log_delta is None else float(log_delta)
    log_mass = math.log(window_fraction(rtol)) + log_target - math.log(2.0)
    m_lo, m_hi, log_trunc = window_log(pair, log_mass)
    eps_max = pair.eps_max
    if log_trunc >= log_target and math.isfinite(eps_max):
        # cost model: the window was narrowed to MAX_WINDOW_TERMS and what it leaves out
        # already exceeds the target, so no eps below eps_max can be certified on it; the
        # proved answer is eps_max (delta = 0 there), without an evaluation
        return EpsilonSearchResult(eps_max, 0.0, None, 0, -math.inf)
    fw = FloatWindow(pair, m_lo, m_hi) if method == "float" else None
    uppers: dict = {}

    def evaluate(eps: float):
        if eps >= eps_max:  # P <= e^eps Q everywhere: delta = 0 exactly (also outside the window)
            uppers[eps] = 0.0
            return -math.inf, -math.inf, 0.0
        v = window_value(pair, eps, m_lo, m_hi, log_trunc, method=method, digits=digits, _fw=fw)
        uppers[eps] = v.upper
        return v.log_lower, v.log_upper, v.log_slope

    guess = None
    if delta > 0:
        guess = saddle_guess(pair, delta)
        if guess is not None:
            guess *= 1.0 + 0.2 * rtol  # just above: the first evaluation is then certified
        else:
            guess = gaussian_guess(pair, delta)
    res = epsilon_for_log_delta(evaluate, log_target, eps_max, rtol=rtol, guess=guess, predict=predict)
    # the float image of the certified upper bound, as computed by the evaluation
    up = uppers.get(res.epsilon, res.achieved_delta)
    return replace(res, achieved_delta=up if log_delta is None or up > 0 else res.achieved_delta)


def window_fraction(rtol: float) -> float:
    """The fraction of the target delta a search's window may leave out: 1e-13
    (``TRUNCATION_FRACTION``) for rtol below 1e-8 (the library's default 1e-9), else
    ``1e-2 rtol`` up to 1e-6 (the dashboard curves' 1e-4).  What is left out is added to the certified upper end, so the answer
    stays certified for any fraction; it raises the upper delta by at most this fraction,
    which moves eps_c by far less than ``rtol``.  A looser fraction narrows the window by
    the square root of the log ratio: 22% fewer terms at 1e-6 than at 1e-13 for
    delta = 1e-6 (the chart's paper and clone curves at n = 1e8-1e9)."""
    from accountant.engines.pair.law import TRUNCATION_FRACTION

    if rtol < 1e-8:  # the library's tolerances keep the library's window
        return TRUNCATION_FRACTION
    return min(1e-6, 1e-2 * float(rtol))


def saddle_log_delta(pair: DominatingPair, eps: float) -> Optional[float]:
    """Saddle-point estimate of the pair's log delta(eps) (not certified; a search's start).

    Folding C ~ Bin(n - 1, c) into M ~ Bin(n, c) by size bias (P[C = m - 1] = m P[M = m] / (n c))
    in the module ``divergence``'s reduction gives delta = 2 (p - q)(1 + e^eps) / (n c) E[S_+],
    S = X_M - M/2 - h_M a sum of n i.i.d. Z: 1/2 - a and -1/2 - a with probability c/2 each,
    -b with probability 1 - c, where a = tau (p + q), b = tau r c / (1 - c),
    tau = tanh(eps/2) / (2 (p - q)); :func:`accountant.engines.saddle.log_positive_part` estimates it.
    """
    tau = math.tanh(0.5 * eps) / (2.0 * (pair.p - pair.q))
    a = tau * (pair.p + pair.q)
    b = tau * pair.r * pair.c / (1.0 - pair.c) if pair.r > 0.0 else 0.0
    lp = log_positive_part((0.5 * pair.c, 0.5 * pair.c, 1.0 - pair.c), (0.5 - a, -0.5 - a, -b), pair.n)
    if lp is None or lp == -math.inf:
        return lp
    return lp + math.log(2.0 * (pair.p - pair.q) * (1.0 + math.exp(eps)) / (pair.n * pair.c))


def saddle_guess(pair: DominatingPair, delta: float) -> Optional[float]:
    """eps where :func:`saddle_log_delta` crosses log ``delta``: a search's starting point,
    within 1e-6 of eps_c from n c ~ 1e4 on (tests/accountant/engines/test_divergence.py), far
    closer than :func:`gaussian_guess`; None when the pair has no finite eps_max."""
    top = pair.eps_max
    if not (0.0 < top < math.inf) or not (0.0 < delta < 1.0):
        return None
    return root_of_decreasing(lambda e: saddle_log_delta(pair, e), math.log(delta), top)


def gaussian_guess(pair: DominatingPair, delta: float) -> Optional[float]:
    """Central-limit approximation of eps_c, used only as the search's starting point.

    With m ~ c n clones, X ~ N(m/2, m/4) and the threshold m/2 + h (module
    ``divergence``), delta ~ (p - q)(1 + e^eps) / sqrt(c n) * psi(w) with
    psi(w) = phi(w) - w Q(w) and w = tanh(eps/2) sqrt(c n) / (p - q).
    """
    cn = pair.c * pair.n
    if cn < 1.0:
        return None
    gap = pair.p - pair.q
    rhs = delta * math.sqrt(cn) / (2.0 * gap)

    def psi(w: float) -> float:
        return math.exp(-0.5 * w * w) / math.sqrt(2 * math.pi) - w * 0.5 * math.erfc(w / math.sqrt(2))

    if rhs >= psi(0.0):
        return None
    lo, hi = 0.0, 1.0
    while psi(hi) > rhs and hi < 1e3:
        hi *= 2.0
    hi = bisect(lambda w: not psi(w) > rhs, hi, lo, max_evaluations=60).x  # 60 halvings
    x = hi * gap / math.sqrt(cn)
    if x >= 1.0:
        return None
    return 2.0 * math.atanh(x)


# The pair search that gives a lower-bound search its starting point where no saddle-point
# estimate is at hand (binary RR's two-category law; the blanket and the other lower laws
# start from :mod:`accountant.engines.saddle`).
PAIR_GUESS_RTOL = 1e-6


@lru_cache(maxsize=256)
def pair_epsilon_result(params, n: int, delta: float, rtol: float, bracket: bool = True):
    """The paper's pair search, shared by ``paper`` and ``theorem6-lower`` (params are hashable);
    ``bracket=False`` skips the certified lower end (one evaluation instead of two)."""
    return PairAccountant(params, n).epsilon_result(delta, rtol=rtol, bracket=bracket)
