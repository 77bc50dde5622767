"""Shuffled mechanisms: frozen parameter objects and an accountant per mechanism.

Follows the conventions of Google's ``dp_accounting``: a parameter value object
validated once at construction, and an accountant with ``get_epsilon(delta)`` and
``get_delta(epsilon)``.

Mixture weights (main seed paper, Lemma 2 / Theorem 5 / Section 7.4, with the
notation fixed as in shared/NOTES-accounting.md section 1: the paper's alpha is
the total-variation parameter beta; the weight is a = beta / (e^eps0 - 1)):

=============================  ==========================================
randomizer                     mixture weight a
=============================  ==========================================
generic eps0-LDP               1 / (e^eps0 + 1)   (stronger clone reduction)
Collision (d, s, eps0, t)      min(s, t - s) / (s e^eps0 + t - s)
CoCo (t even, t >= 2s + 2)     s / (s e^eps0 + t - s)
=============================  ==========================================
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace, field
from typing import Optional, Union

import numpy as np

from .divergence import DivergenceValue, DominatingPair, hockey_stick_divergence
from .search import EpsilonSearchResult, epsilon_for_delta, epsilon_for_log_delta, largest_parameter_below

MECHANISMS = ("generic", "collision", "coco")
_EPS0_MAX = 30.0

# What is and is not proved about the pair bounds computed here (README, "Findings").
CAVEAT_GENERIC = (
    "not proved for every eps0-LDP randomizer: by the FMT23 erratum the stronger clone reduction "
    "holds only for randomizers with its mixture decomposition at weight 1/(e^eps0+1) (e.g. binary "
    "randomized response); for an arbitrary eps0-LDP randomizer use the 'clone' bound (FMT21)")
CAVEAT_THEOREM5 = (
    "not a proved upper bound: the paper's Theorem 5 rests on FMT23 Lemma 3.5, whose proof fails for "
    "mixture weights below 1/(e^eps0+1) (FMT23 erratum), and exact enumeration of the shuffled "
    "output finds instances that exceed this value (accountant/enumeration.py); proved bounds: "
    "'clone' and the blanket bounds")
CAVEAT_THEOREM5_T2S = (
    "not a proved upper bound: at t = 2s the worst-case weight equals 1/(e^eps0+1) and exact "
    "enumeration found no instance above this value, but hash collisions lower the weight into the "
    "regime where FMT23 Lemma 3.5's proof fails (erratum); proved bounds: 'clone' and the blanket bounds")
CAVEAT_THEOREM6 = (
    "lower bound for the hash family constructed in Theorem 6's proof (worst case over hash families), "
    "not for uniformly random hashing; the paper's claim that it matches the upper bound is "
    "contradicted by exact enumeration for t >= 4")


def _check_eps0(eps0) -> float:
    if isinstance(eps0, bool) or not isinstance(eps0, (int, float, np.floating, np.integer)):
        raise ValueError(f"eps0 must be a number in (0, {_EPS0_MAX:g}], got {eps0!r}")
    eps0 = float(eps0)
    if not (math.isfinite(eps0) and 0.0 < eps0 <= _EPS0_MAX):
        raise ValueError(f"eps0 must be a number in (0, {_EPS0_MAX:g}], got {eps0!r}")
    return eps0


def _check_int(name: str, v, lo: int) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        if isinstance(v, (float, np.floating)) and float(v).is_integer():
            v = int(v)
        else:
            raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
    if v < lo:
        raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
    return int(v)


def _check_s_eps0_d(params) -> tuple[int, float]:
    """Validate the s, eps0 and optional d of a Collision/CoCo parameter object."""
    s = _check_int("s", params.s, 1)
    eps0 = _check_eps0(params.eps0)
    if params.d is not None:
        d = _check_int("d", params.d, 1)
        if s > d:
            raise ValueError(f"s must satisfy 1 <= s <= d = {d}, got s = {s}")
        object.__setattr__(params, "d", d)
    return s, eps0


def collision_paper_t(s: int, eps0: float) -> int:
    """The paper's t* = floor(s e^eps0 + 2s - 1) (Section 5, Theorem 4; Figure 2)."""
    return int(math.floor(s * math.exp(eps0) + 2 * s - 1))


def coco_theorem7_t(s: int, eps0: float) -> int:
    """Theorem 7's t: the smallest even integer >= ceil(s e^eps0 + s + 2)."""
    t = int(math.ceil(s * math.exp(eps0) + s + 2))
    return t + (t % 2)


class _PairStatus:
    """What is claimed about a pair bound (README, "Findings"): no tightness, and no
    proof that the pair dominates the shuffled mechanism; subclasses give the reason."""

    @property
    def tight(self) -> Optional[bool]:
        """None: no tightness is claimed (Theorem 6's equality fails for t >= 4)."""
        return None

    @property
    def certified(self) -> bool:
        """Whether the pair bound is a proved upper bound (False for all three here)."""
        return False


class _HashedOmega:
    @property
    def omega(self) -> float:
        """Normaliser Omega = s e^eps0 + t - s (Definition 5; Algorithm 1, line 13)."""
        return self.s * math.exp(self.eps0) + self.t - self.s


@dataclass(frozen=True)
class GenericLDP(_PairStatus):
    """Any eps0-LDP randomizer; accounted by the stronger clone reduction
    (Feldman, McMillan, Talwar, SODA 2023; main seed paper Theorem 1)."""

    eps0: float
    name: str = field(default="generic", init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps0", _check_eps0(self.eps0))

    @property
    def s(self) -> None:
        return None

    @property
    def t(self) -> None:
        return None

    @property
    def mixture_weight(self) -> float:
        return 1.0 / (math.exp(self.eps0) + 1.0)

    @property
    def remainder(self) -> float:
        """r = 1 - a (1 + e^eps0), the probability of (D1, D2) = (0, 0)."""
        return 0.0

    @property
    def theorem6_applies(self) -> bool:
        return False

    @property
    def caveat(self) -> str:
        return CAVEAT_GENERIC


@dataclass(frozen=True)
class CollisionParams(_HashedOmega, _PairStatus):
    """(d, s, eps0, t)-Collision mechanism (Definition 5), accounted by Theorem 5.

    ``t`` defaults to the paper's t* = floor(s e^eps0 + 2s - 1); ``d`` is optional
    for accounting (the bound does not depend on it) but if given must be >= s.
    """

    s: int
    eps0: float
    t: Optional[int] = None
    d: Optional[int] = None
    name: str = field(default="collision", init=False)

    def __post_init__(self) -> None:
        s, eps0 = _check_s_eps0_d(self)
        t = collision_paper_t(s, eps0) if self.t is None else self.t
        t = _check_int("t", t, s + 1)
        object.__setattr__(self, "s", s)
        object.__setattr__(self, "eps0", eps0)
        object.__setattr__(self, "t", t)

    @property
    def mixture_weight(self) -> float:
        """a = min(s, t - s) / Omega (NOTES section 1: two s-subsets of [t] overlap
        in at least 2s - t outputs when t < 2s)."""
        return min(self.s, self.t - self.s) / self.omega

    @property
    def remainder(self) -> float:
        s, t, e = self.s, self.t, math.exp(self.eps0)
        return (t - 2 * s) / self.omega if t >= 2 * s else (2 * s - t) * e / self.omega

    @property
    def theorem6_applies(self) -> bool:
        """t >= 3s: Theorem 6's construction gives a lower bound (for its hash family)."""
        return self.t >= 3 * self.s

    @property
    def caveat(self) -> str:
        return CAVEAT_THEOREM5_T2S if self.t == 2 * self.s else CAVEAT_THEOREM5


@dataclass(frozen=True)
class CoCoParams(_HashedOmega, _PairStatus):
    """(d, s, eps0, t)-CoCo mechanism (Algorithm 1), accounted as in Section 7.4.

    ``t`` must be even and >= 2s + 2; it defaults to Theorem 7's choice.
    """

    s: int
    eps0: float
    t: Optional[int] = None
    d: Optional[int] = None
    name: str = field(default="coco", init=False)

    def __post_init__(self) -> None:
        s, eps0 = _check_s_eps0_d(self)
        t = coco_theorem7_t(s, eps0) if self.t is None else self.t
        msg = f"t must be an even integer >= 2s + 2 = {2 * s + 2} for CoCo, got {t!r}"
        try:
            t = _check_int("t", t, 2 * s + 2)
        except ValueError:
            raise ValueError(msg) from None
        if t % 2:
            raise ValueError(msg)
        object.__setattr__(self, "s", s)
        object.__setattr__(self, "eps0", eps0)
        object.__setattr__(self, "t", t)

    @property
    def mixture_weight(self) -> float:
        return self.s / self.omega

    @property
    def remainder(self) -> float:
        return (self.t - 2 * self.s) / self.omega

    @property
    def theorem6_applies(self) -> bool:
        """t >= 4s: the paper states the lower bound (equality) there."""
        return self.t >= 4 * self.s

    @property
    def caveat(self) -> str:
        # the weight s/Omega is below 1/(e^eps0+1) for every valid t
        return CAVEAT_THEOREM5


Params = Union[GenericLDP, CollisionParams, CoCoParams]


def make_params(mechanism: str, eps0: float, s: Optional[int] = None, t: Optional[int] = None,
                d: Optional[int] = None) -> Params:
    """Parameter object for ``mechanism`` in {'generic', 'collision', 'coco'}."""
    if mechanism == "generic":
        if t is not None:
            raise ValueError("t applies to collision and coco only, not to mechanism 'generic'")
        return GenericLDP(eps0)
    if mechanism in ("collision", "coco"):
        if s is None:
            raise ValueError(f"s is required for mechanism '{mechanism}' (an integer >= 1)")
        cls = CollisionParams if mechanism == "collision" else CoCoParams
        return cls(s=s, eps0=eps0, t=t, d=d)
    raise ValueError(f"mechanism must be one of {', '.join(MECHANISMS)}, got {mechanism!r}")


@dataclass(frozen=True)
class EpsilonResult:
    """Central epsilon of a shuffled mechanism for a target delta.

    epsilon : eps_c of the dominating pair (Theorem 5 / Theorem 1), <= eps0; the
        pair's delta at ``epsilon`` is certified <= delta (``achieved_delta``).  Whether
        the pair dominates the shuffled mechanism is ``certified`` / ``caveat``.
    lower_epsilon : when Theorem 6 applies, the pair's certified lower end, a lower
        bound on eps_c for the hash family of Theorem 6's proof; otherwise None.
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


def _check_n(n) -> int:
    if isinstance(n, (float, np.floating)) and math.isfinite(n) and float(n).is_integer():
        n = int(n)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not (1 <= n <= 10**12):
        raise ValueError(f"n must be an integer in [1, 1e12], got {n!r}")
    return int(n)


def _check_log_delta(log_delta) -> float:
    if isinstance(log_delta, bool) or not isinstance(log_delta, (int, float, np.floating)) or not (
        math.isfinite(float(log_delta)) and -1e6 <= float(log_delta) < 0.0
    ):
        raise ValueError(f"log_delta must be a number in [-1e6, 0), got {log_delta!r}")
    return float(log_delta)


def _check_delta(delta) -> float:
    if isinstance(delta, bool) or not isinstance(delta, (int, float, np.floating)) or not (
        1e-300 <= float(delta) < 1.0
    ):
        raise ValueError(f"delta must be a number in [1e-300, 1), got {delta!r}")
    return float(delta)


class ShuffleAccountant:
    """Privacy of n shuffled reports of one randomizer (Theorem 1 / Theorem 5).

    ``get_delta(epsilon)`` returns a certified upper bound on
    D_{e^epsilon}(P_a || Q_a); ``get_epsilon(delta)`` the smallest epsilon (to
    relative tolerance ``rtol``) whose certified delta is <= ``delta``.
    """

    def __init__(self, params: Params, n: int, *, method: str = "float", digits: int = 30) -> None:
        self.params = params
        self.n = _check_n(n)
        if method not in ("float", "mpmath", "arb"):
            raise ValueError(f"method must be 'float', 'mpmath' or 'arb', got {method!r}")
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
        when delta is exactly 0, i.e. epsilon >= the pair's eps_max)."""
        return min(self.delta_bounds(epsilon).log_upper, 0.0)

    def delta_curve(self, epsilons) -> np.ndarray:
        """Certified upper bounds on delta over a grid of epsilons."""
        return np.array([self.get_delta(float(e)) for e in np.atleast_1d(epsilons)])

    def epsilon_result(self, delta: Optional[float] = None, rtol: float = 1e-9, *,
                       log_delta: Optional[float] = None) -> EpsilonResult:
        """eps_c for a target ``delta`` or (for targets below 1e-300) ``log_delta``."""
        if (delta is None) == (log_delta is None):
            raise ValueError("give exactly one of delta and log_delta")
        if delta is not None:
            delta = _check_delta(delta)
            log_target = math.log(delta)
        else:
            log_target = _check_log_delta(log_delta)
            delta = math.exp(log_target)
        if not (0.0 < rtol < 1.0):
            raise ValueError(f"rtol must lie in (0, 1), got {rtol!r}")
        res = search_pair_epsilon(self.pair, delta, rtol, method=self.method, digits=self.digits,
                                  log_delta=log_target)
        p = self.params
        lower = res.lower_epsilon if p.theorem6_applies else None
        if p.theorem6_applies and lower is None and res.epsilon == 0.0:
            lower = 0.0
        return EpsilonResult(res.epsilon, delta, res.achieved_delta, lower, p.tight, res.evaluations,
                             p.certified, p.caveat, log_target, res.achieved_log_delta)

    def get_epsilon(self, delta: Optional[float] = None, rtol: float = 1e-9, *,
                    log_delta: Optional[float] = None) -> float:
        """Certified upper bound on eps_c for the target ``delta`` (or ``log_delta``)."""
        return self.epsilon_result(delta, rtol, log_delta=log_delta).epsilon


def search_pair_epsilon(pair: DominatingPair, delta: float, rtol: float = 1e-9, *,
                        method: str = "float", digits: int = 30,
                        log_delta: Optional[float] = None) -> EpsilonSearchResult:
    """eps_c of a dominating pair: smallest eps with certified delta <= ``delta``.

    The summation window is fixed once from the target (mass left out <= 1e-13
    of it) and reused by every evaluation of the search.  The search runs on
    log(delta); pass ``log_delta`` (then ``delta`` is only its float image, possibly
    0) for targets below the float range.  ``method`` as in
    ``hockey_stick_divergence``; with ``"arb"`` the result is the certified eps_c
    (smallest eps, to ``rtol``, whose interval's upper end is <= the target).
    """
    from .divergence import TRUNCATION_FRACTION, _FloatWindow, _window_log, window_value

    log_target = math.log(delta) if log_delta is None else float(log_delta)
    log_mass = math.log(TRUNCATION_FRACTION) + log_target - math.log(2.0)
    m_lo, m_hi, log_trunc = _window_log(pair, log_mass)
    fw = _FloatWindow(pair, m_lo, m_hi) if method == "float" else None
    eps_max = pair.eps_max
    uppers: dict = {}

    def evaluate(eps: float):
        if eps >= eps_max:
            uppers[eps] = math.exp(log_trunc)
            return -math.inf, log_trunc, 0.0
        v = window_value(pair, eps, m_lo, m_hi, log_trunc, method=method, digits=digits, _fw=fw)
        uppers[eps] = v.upper
        return v.log_lower, v.log_upper, v.log_slope

    guess = gaussian_guess(pair, delta) if delta > 0 else None
    res = epsilon_for_log_delta(evaluate, log_target, eps_max, rtol=rtol, guess=guess)
    # the float image of the certified upper bound, as computed by the evaluation
    up = uppers.get(res.epsilon, res.achieved_delta)
    return replace(res, achieved_delta=up if log_delta is None or up > 0 else res.achieved_delta)


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
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if psi(mid) > rhs:
            lo = mid
        else:
            hi = mid
    x = hi * gap / math.sqrt(cn)
    if x >= 1.0:
        return None
    return 2.0 * math.atanh(x)


def _rule_interval(mechanism: str, s: int, t: int) -> Optional[tuple[float, float]]:
    """eps0 interval on which the default t-rule gives exactly ``t`` (None if empty)."""
    if mechanism == "collision":
        lo_v, hi_v = (t - 2 * s + 1) / s, (t - 2 * s + 2) / s
    else:
        lo_v, hi_v = (t - s - 4) / s, (t - s - 2) / s
    if hi_v <= 0:
        return None
    lo = math.log(lo_v) if lo_v > 0 else 0.0
    return max(lo, 0.0), math.log(hi_v)


def local_epsilon(n: int, epsilon: float, delta: float, mechanism: str = "generic",
                  s: Optional[int] = None, t: Optional[int] = None, rtol: float = 1e-6,
                  eps0_max: float = 20.0, bound: str = "tight") -> Optional[float]:
    """Largest eps0 whose shuffled guarantee eps_c(eps0) is <= ``epsilon`` at ``delta``.

    The planner's inverse.  With ``t`` fixed (or the generic randomizer) eps_c is
    taken as non-decreasing in eps0 and the answer is found by bisection to
    relative tolerance ``rtol``.  With ``t`` following the default rule (t=None for
    collision/coco), t jumps with eps0 and eps_c is a saw-tooth in eps0; the search
    then also walks the eps0 intervals of the larger t values, keeping the largest
    feasible eps0, and stops at the first interval whose left end is infeasible.
    The returned eps0 always satisfies eps_c(eps0) <= epsilon for the chosen bound;
    returns None if no eps0 in (0, eps0_max] does (never the case: eps_c <= eps0).

    ``bound="tight"`` inverts the paper's pair bound (Theorem 5 / stronger clone, not
    proved: see ``CAVEAT_THEOREM5``); ``bound="proved"`` inverts the smallest proved
    upper bound (``accountant.bounds.proved_epsilon``), by bisection (t following the
    default rule or fixed) and a final check.
    """
    n = _check_n(n)
    delta = _check_delta(delta)
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, np.floating)) or not (
        math.isfinite(float(epsilon)) and 0.0 < float(epsilon) <= _EPS0_MAX
    ):
        raise ValueError(f"epsilon must be a number in (0, {_EPS0_MAX:g}], got {epsilon!r}")
    epsilon = float(epsilon)
    make_params(mechanism, 1.0, s=s, t=t)  # validates mechanism / s / t early
    if bound not in ("tight", "proved"):
        raise ValueError(f"bound must be 'tight' or 'proved', got {bound!r}")
    if bound == "proved":
        from .bounds import proved_epsilon

        def proved(e0: float) -> float:
            best = proved_epsilon(n, e0, delta, mechanism, s, t, rtol=min(rtol, 1e-7))
            return best.epsilon if best is not None else e0

        lo = min(epsilon, eps0_max)
        ans = largest_parameter_below(proved, epsilon, lo, eps0_max, rtol=rtol)
        if ans is not None and proved(ans) > epsilon:  # pragma: no cover - guarded by bisection
            raise ArithmeticError("proved inverse failed its final check")
        return ans

    def eps_c(e0: float, tt: Optional[int] = t) -> float:
        acc = ShuffleAccountant(make_params(mechanism, e0, s=s, t=tt), n)
        return acc.get_epsilon(delta, rtol=min(rtol, 1e-7))

    lo = min(epsilon, eps0_max)  # eps_c <= eps0, so eps0 = epsilon is always feasible
    best = largest_parameter_below(eps_c, epsilon, lo, eps0_max, rtol=rtol)
    if mechanism == "generic" or t is not None or best is None:
        return best
    rule_t = make_params(mechanism, best, s=s).t
    tt = rule_t + (1 if mechanism == "collision" else 2)
    while True:
        iv = _rule_interval(mechanism, s, tt)
        if iv is None or iv[0] >= eps0_max:
            break
        a, b = iv
        a = max(a, 1e-12)
        b = min(b, eps0_max) * (1 - 1e-12)
        if eps_c(a, tt) > epsilon:
            break
        cand = largest_parameter_below(lambda e0: eps_c(e0, tt), epsilon, a, b, rtol=rtol)
        if cand is not None and cand > best:
            best = cand
        tt += 1 if mechanism == "collision" else 2
    return best
