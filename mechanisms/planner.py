"""Deployment planner: the most accurate Collision / CoCo configuration for a central budget.

Given a target central guarantee ``(target_eps, delta)`` of the whole release (one round,
``rounds`` identical rounds, or a schedule of rounds) for shuffled users with
``d``-dimensional, ``s``-sparse data, :func:`plan`

1. **screens** every mechanism over the admissible hash ranges ``t`` (Collision: ``t > s``;
   CoCo: even ``t >= 2s + 2``): for a geometric grid of ``t`` (refined around its minimum)
   the largest eps0 whose *saddle-point estimate* of the exact blanket's eps_c
   (:func:`accountant.blanket_exact.approx_epsilon`, within ~3e-7 relative of the proved
   value from n = 1e5 on) meets the target, and the exact MSE there
   (:mod:`mechanisms.errors`, vectorised over ``t``).  With rounds, the per-round target
   of the screen is the single-round (eps, delta / T) of a pilot whose T-round
   composition meets the total (:func:`accountant.compose.approx_schedule_epsilon`).
   No privacy claim rests on the screen: it only places the finalists;
2. for each mechanism's best ``t`` (the **finalist**) finds the largest eps0 *on the
   proved bound* (:func:`accountant.calibration.local_epsilon` with the screen's value as
   its starting point; with rounds: the composition estimate ranks the mechanisms, and the
   winner's eps0 is certified on the PLD composition
   :func:`accountant.compose.compose_schedule`, moved down until it meets the total),
   capped at ``max_eps0``;
3. recommends the finalist with the smallest MSE and **certifies** it once more at the
   end: its proved eps_c (one round) or its composed eps (T rounds / schedule) is
   ``<= target_eps``.  Every eps_c reported is that proved number; screen points carry
   ``eps_c = None``;
4. repeats the recommendation for ``n/2`` and ``2n`` (``sensitivity``) and, under a cap,
   computes the uncapped plan to say what the cap costs.

Every eps_c quoted is the toolkit's certified upper bound (the exact privacy blanket; see
README, "Caveat: the FMT23 erratum").
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Optional, Sequence

import numpy as np
from scipy.optimize import brentq

from accountant.blanket_exact import approx_epsilon, approx_log_delta, blanket_law
from accountant.bounds import (
    compute_params_bound,
    proved_meets,
    proved_params_epsilon,
    resolve_name,
)
from accountant.calibration import local_epsilon
from accountant.compose import RoundSpec, approx_schedule_epsilon, compose_schedule
from accountant.params import make_params

from .errors import T_MAX, coco_mse, collision_mse

MECHANISMS = ("collision", "coco")
ESTIMATES = ("mean", "frequency")
_ESTIMATOR_FIELD = {"mean": "mean", "frequency": "nonmissing"}
_LABEL = {"collision": "Collision", "coco": "CoCo"}
_EPS0_MAX = 20.0
# a recommended local budget above this gives each report little protection on its own
LOW_LOCAL_PROTECTION_EPS0 = 5.0
# eps0 / eps_c below this: shuffling hardly amplifies (n too small for the target)
LITTLE_AMPLIFICATION = 1.1
# screen: geometric ratio of the coarse t grid, points past the minimum, refinement points
SCREEN_RATIO = 1.3
SCREEN_PAST_MIN = 5
SCREEN_REFINE = 7
# rounds: smallest per-round eps0 searched, and certified compositions tried per plan
ROUNDS_EPS0_MIN = 1e-3
ROUNDS_MAX_CERTIFY = 8
# the composition estimate is low by up to ~0.25% (measured): the first certified attempt
# aims this much below the target, so that one certified composition usually suffices
ROUNDS_MARGIN = 4e-3
MAX_ROUNDS = 100_000
# smallest delta planned (work grows fast below: see _check)
DELTA_MIN = 1e-30
# relative MSE differences below this are within the eps0 searches' tolerance
CAP_COST_RESOLUTION = 1e-3


class InfeasiblePlan(ValueError):
    """No eps0 >= the search's floor meets the target; ``smallest_target`` is the smallest
    total epsilon reachable at this n (the proved composition at that floor)."""

    def __init__(self, message: str, smallest_target: Optional[float] = None) -> None:
        super().__init__(message)
        self.smallest_target = smallest_target


@dataclass(frozen=True)
class Candidate:
    """One point of the trade-off curve: mechanism, fixed t, the largest admissible
    eps0 and the exact MSEs there.

    ``source == "screen"``: eps0 from the saddle-point screen (an estimate placing the
    search, ``eps_c`` is None, ``proved`` False).  Otherwise eps0 was found on the proved
    bound and ``eps_c`` is its certified eps_c (one round) or composed eps (rounds)."""

    mechanism: str
    t: int
    eps0: float
    eps_c: Optional[float]
    mse: float
    mse_mean: float
    mse_nonmissing: float
    mse_item: float
    source: str
    bound: str = "blanket"
    proved: bool = True

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Plan:
    """Result of :func:`plan`.

    ``candidates``: the trade-off curve (screen points and the proved finalists), sorted by
    mechanism then t.  ``recommendation``: the proved finalist with the smallest ``mse``
    (certified at the end).  ``sensitivity``: ``{n_half: Candidate, n_double: Candidate}``.
    ``rounds``: T (1 for a single round); ``schedule``: the users of each round when a
    schedule was given (``mse`` is then the per-round MSE at its smallest n).
    ``max_eps0``: the cap (None: none); ``uncapped``: the uncapped recommendation when a
    cap was given (to say what the cap costs).
    """

    target_eps: float
    delta: float
    n: int
    d: int
    s: int
    estimate: str
    candidates: tuple
    recommendation: Candidate
    sensitivity: dict = field(default_factory=dict)
    bound: str = "proved"
    rounds: int = 1
    schedule: Optional[tuple] = None
    max_eps0: Optional[float] = None
    uncapped: Optional[Candidate] = None

    @property
    def epsilon(self) -> Optional[float]:
        """The proved central epsilon of the whole release (one round or all rounds composed)."""
        return self.recommendation.eps_c

    @property
    def cap_cost(self) -> Optional[float]:
        """Relative extra MSE caused by the cap (0 when it does not bind), or None without a cap."""
        if self.uncapped is None:
            return None
        cost = self.recommendation.mse / self.uncapped.mse - 1.0
        # below the searches' own resolution (eps0 to rtol 1e-4): the cap does not bind
        return cost if cost > CAP_COST_RESOLUTION else 0.0

    def rows(self) -> list[dict]:
        """Candidates as flat dicts (for tables / CSV)."""
        out = []
        for c in self.candidates:
            r = {
                "n": self.n,
                "d": self.d,
                "s": self.s,
                "target_eps": self.target_eps,
                "delta": self.delta,
                "estimate": self.estimate,
                "rounds": self.rounds,
            }
            r.update(c.to_dict())
            r["recommended"] = c == self.recommendation
            out.append(r)
        return out

    def warnings(self) -> list[str]:
        """Plain-language cautions about the recommendation, each saying what would remove it.

        * eps0 > ``LOW_LOCAL_PROTECTION_EPS0``: each report alone is only eps0-LDP (remedy:
          the cap ``max_eps0``);
        * eps0 at the search's top (``_EPS0_MAX``): the target holds for every eps0 tried
          (remedy: a smaller target);
        * eps0 / eps_c < ``LITTLE_AMPLIFICATION`` (one round): shuffling hardly amplifies
          (remedy: a larger n or a looser target);
        * MSE > s: noise dominates (remedy: n large enough, computed, or a looser target).
        """
        c = self.recommendation
        out = []
        capped = self.max_eps0 is not None and c.eps0 >= self.max_eps0 * (1 - 1e-6)
        if c.eps0 >= _EPS0_MAX * (1 - 1e-6):
            out.append(
                f"The target holds for every local eps0 up to {_EPS0_MAX:g}, the "
                f"planner's cap: the local randomizer gives practically no protection "
                f"on its own. To remove this: a smaller target eps, or a cap "
                f"(--max-eps0)."
            )
        elif c.eps0 > LOW_LOCAL_PROTECTION_EPS0:
            out.append(
                f"The recommended local eps0 = {c.eps0:.3g} is above "
                f"{LOW_LOCAL_PROTECTION_EPS0:g}: each report alone allows a likelihood "
                f"ratio of e^{c.eps0:.3g} ~ {math.exp(c.eps0):.3g} to whoever sees it "
                f"before shuffling; the central guarantee rests on the shuffler. To "
                f"remove this: cap the local budget (--max-eps0 {LOW_LOCAL_PROTECTION_EPS0:g}"
                f"; the plan then reports what the cap costs in error)."
            )
        if self.rounds == 1 and c.eps_c and c.eps0 / c.eps_c < LITTLE_AMPLIFICATION and not capped:
            out.append(
                f"Shuffling hardly helps here: eps0 / eps_c = {c.eps0 / c.eps_c:.3g} "
                f"(n = {self.n:,} is too small for this target; local DP alone gives "
                f"almost the same guarantee). To remove this: a larger n or a looser "
                f"target eps."
            )
        if c.mse > self.s:
            # MSE scales as 1/n at a fixed eps0, and eps0 only grows with n: sufficient n
            need = math.ceil(self.n * c.mse / self.s)
            out.append(
                f"The expected squared error {c.mse:.3g} exceeds s = {self.s}, the "
                f"largest squared norm of the {self.estimate} vector: at n = {self.n:,} "
                f"the estimate is dominated by noise. To remove this: n >= {need:,} "
                f"users per round (at least as large an eps0, so an MSE <= s), or a "
                f"looser target eps."
            )
        return out

    def sentence(self, n: Optional[int] = None) -> str:
        """One sentence for a design document: what to deploy and what it gives."""
        c = self.recommendation if n is None else self.sensitivity[n]
        nn = self.n if n is None else n
        what = (
            "mean-estimation" if self.estimate == "mean" else "frequency-estimation (non-missing)"
        )
        users = (
            f"{nn:,} users"
            if self.schedule is None
            else f"the schedule's rounds (smallest n = {nn:,})"
        )
        per = "" if self.rounds == 1 else " per round"
        release = (
            "the shuffled release" if self.rounds == 1 else f"the {self.rounds} rounds composed"
        )
        cap = "" if self.max_eps0 is None else f" (local cap eps0 <= {_fmt(self.max_eps0)})"
        if self.bound == "proved":
            how = (
                f"proved upper bound eps_c = {_up(c.eps_c)}, {c.bound}"
                if self.rounds == 1
                else f"proved PLD composition: eps = {_up(c.eps_c)}"
            )
            return (
                f"With {users}, d = {self.d:,}, s = {self.s}, use "
                f"{_LABEL[c.mechanism]} with t = {c.t} and local eps0 = {_down(c.eps0)}{per}{cap}: "
                f"{release} is ({_fmt(self.target_eps)}, {_fmt(self.delta)})-DP ({how}) and "
                f"the {what} MSE{per} is {c.mse:.4g}."
            )
        return (
            f"With {users}, d = {self.d:,}, s = {self.s}, use "
            f"{_LABEL[c.mechanism]} with t = {c.t} and local eps0 = {_down(c.eps0)}{cap}: by the "
            f"paper's Theorem 5 the shuffled release is ({_fmt(self.target_eps)}, "
            f"{_fmt(self.delta)})-DP (eps_c = {_up(c.eps_c)}; Theorem 5 is not proved for these "
            f"parameters, see the toolkit's README) and the {what} MSE is {c.mse:.4g}."
        )

    def as_dict(self) -> dict:
        """JSON-ready result (the ``plan`` command's ``--json``)."""
        r = self.recommendation
        out = {
            "mechanism": r.mechanism,
            "t": r.t,
            "eps0": r.eps0,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "target_eps": self.target_eps,
            "mse": r.mse,
            "estimate": self.estimate,
            "n": self.n,
            "d": self.d,
            "s": self.s,
            "rounds": self.rounds,
            "schedule": None if self.schedule is None else list(self.schedule),
            "bound": self.bound,
            "max_eps0": self.max_eps0,
            "uncapped": None if self.uncapped is None else self.uncapped.to_dict(),
            "cap_cost": self.cap_cost,
            "recommendation": r.to_dict(),
            "candidates": [c.to_dict() for c in self.candidates],
            "sensitivity": {str(k): v.to_dict() for k, v in sorted(self.sensitivity.items())},
            "warnings": self.warnings(),
            "sentence": self.sentence(),
        }
        return out


def _fmt(x: float) -> str:
    return f"{x:g}"


def _up(x: Optional[float], digits: int = 4) -> str:
    """x to ``digits`` significant digits, rounded up (an upper bound printed stays one)."""
    if x is None:
        return "n/a"
    return _directed(x, digits, math.ceil)


def _down(x: float, digits: int = 4) -> str:
    """x to ``digits`` significant digits, rounded down (a local budget printed stays feasible)."""
    return _directed(x, digits, math.floor)


def _directed(x: float, digits: int, fn) -> str:
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    e = math.floor(math.log10(abs(x))) - digits + 1
    v = fn(round(x / 10.0**e, 9)) * 10.0**e
    return f"{v:.{max(0, -e)}f}" if -6 < e <= 0 else f"{v:.{digits}g}"


def _check(target_eps, delta, n, d, s, estimate, mechanisms) -> tuple:
    def is_int(v):
        return isinstance(v, (int, np.integer)) and not isinstance(v, bool)

    if not is_int(n) or not 1 <= int(n) <= 10**12:
        raise ValueError(f"n must be an integer in [1, 1e12], got {n!r}")
    if not is_int(d) or int(d) < 1:
        raise ValueError(f"d must be an integer >= 1, got {d!r}")
    if not is_int(s) or not 1 <= int(s) <= int(d):
        raise ValueError(f"s must be an integer with 1 <= s <= d = {d}, got {s!r}")
    if (
        isinstance(target_eps, bool)
        or not isinstance(target_eps, (int, float, np.floating))
        or not (math.isfinite(float(target_eps)) and 0 < float(target_eps) <= _EPS0_MAX)
    ):
        raise ValueError(
            f"target epsilon must be a number in (0, {_EPS0_MAX:g}], got {target_eps!r}"
        )
    if (
        isinstance(delta, bool)
        or not isinstance(delta, (int, float, np.floating))
        or not (DELTA_MIN <= float(delta) < 1)
    ):
        raise ValueError(
            f"delta must be a number in [{DELTA_MIN:g}, 1), got {delta!r} (the "
            f"planner's limit: below it the proved inversions take minutes; "
            f"measured 5.8 s at 1e-30, 32 s at 1e-60, 333 s at 1e-100, n = 1e5)"
        )
    if estimate not in ESTIMATES:
        raise ValueError(f"estimate must be one of {ESTIMATES}, got {estimate!r}")
    mechanisms = tuple(mechanisms)
    if not mechanisms or any(m not in MECHANISMS for m in mechanisms):
        raise ValueError(
            f"mechanisms must be a non-empty subset of {MECHANISMS}, got {mechanisms!r}"
        )
    return float(target_eps), float(delta), int(n), int(d), int(s), tuple(dict.fromkeys(mechanisms))


def _check_cap(max_eps0) -> Optional[float]:
    if max_eps0 is None:
        return None
    if (
        isinstance(max_eps0, bool)
        or not isinstance(max_eps0, (int, float, np.floating))
        or not (math.isfinite(float(max_eps0)) and 0 < float(max_eps0) <= _EPS0_MAX)
    ):
        raise ValueError(f"max_eps0 must be a number in (0, {_EPS0_MAX:g}], got {max_eps0!r}")
    return float(max_eps0)


def _check_release(n: int, rounds, schedule) -> tuple[int, Optional[tuple]]:
    """(T, users per round or None) from ``rounds`` / ``schedule`` (one or the other)."""
    if schedule is not None:
        if rounds not in (None, 1):
            raise ValueError("give rounds or schedule, not both")
        ns = tuple(int(getattr(r, "n", r)) for r in schedule)
        if not ns or len(ns) > MAX_ROUNDS or any(not 1 <= x <= 10**12 for x in ns):
            raise ValueError(
                f"schedule must hold 1 to {MAX_ROUNDS:,} rounds, each with 1 <= n <= 1e12"
            )
        return len(ns), ns
    if rounds is None:
        return 1, None
    if (
        isinstance(rounds, bool)
        or not isinstance(rounds, (int, np.integer))
        or not 1 <= rounds <= MAX_ROUNDS
    ):
        raise ValueError(f"rounds must be an integer in [1, {MAX_ROUNDS:,}], got {rounds!r}")
    return int(rounds), None


def _admissible(mechanism: str, s: int, t: float) -> int:
    """Nearest admissible t (Collision: > s; CoCo: even, >= 2s + 2)."""
    if mechanism == "collision":
        return int(min(max(round(t), s + 1), T_MAX))
    v = int(max(round(t / 2) * 2, 2 * s + 2))
    return min(v, T_MAX - 1)


def _mse(mechanism: str, n: int, d: int, s: int, eps0, t):
    fn = collision_mse if mechanism == "collision" else coco_mse
    return fn(n, d, s, eps0, t)


def _candidate(mechanism, t, n, d, s, eps0, eps_c, estimate, source, bound, proved) -> Candidate:
    m = _mse(mechanism, n, d, s, eps0, t)
    return Candidate(
        mechanism=mechanism,
        t=int(t),
        eps0=float(eps0),
        eps_c=None if eps_c is None else float(eps_c),
        mse=float(getattr(m, _ESTIMATOR_FIELD[estimate])),
        mse_mean=float(m.mean),
        mse_nonmissing=float(m.nonmissing),
        mse_item=float(m.item),
        source=source,
        bound=bound,
        proved=proved,
    )


# --------------------------------------------------------------------------- the screen
def screen_eps0(
    mechanism: str, s: int, t: int, n: int, target: float, delta: float, eps0_max: float = _EPS0_MAX
) -> float:
    """Saddle-point estimate of the largest eps0 <= eps0_max whose blanket eps_c meets
    ``target`` at ``delta`` for a fixed t (NOT certified: it places the proved search).

    eps_c(eps0) <= target  iff  delta(target; eps0) <= delta, and delta(target; eps0)
    grows with eps0: one root in eps0 of the saddle-point log delta
    (:func:`accountant.blanket_exact.approx_log_delta`) at the fixed ``target``."""
    log_d = math.log(delta)

    def f(e0: float) -> float:
        if e0 <= target:
            return -1.0  # post-processing: eps_c <= eps0
        lp = approx_log_delta(blanket_law(make_params(mechanism, e0, s=s, t=t)), n, target)
        if lp is None:  # no decay: delta(target) is not small
            return 1.0
        return max(lp - log_d, -1e3)

    lo = min(target, eps0_max)
    if lo >= eps0_max or f(eps0_max) <= 0:
        return eps0_max
    return brentq(f, lo, eps0_max, xtol=1e-7, rtol=1e-7)


def screen(
    mechanism: str,
    n: int,
    d: int,
    s: int,
    target: float,
    delta: float,
    estimate: str = "mean",
    eps0_max: float = _EPS0_MAX,
    around: Optional[int] = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(t, eps0, mse) of the screen over the admissible t, sorted by t.

    A geometric grid (ratio ``SCREEN_RATIO``) from the smallest admissible t (or from
    ``around / 8`` when a previous best is known) until ``SCREEN_PAST_MIN`` points past the
    running minimum of the MSE with the MSE at least 1.2 times that minimum, then
    ``SCREEN_REFINE`` points between the minimum's neighbours; the best t over *every*
    admissible integer between them uses eps0 interpolated in log t (and is then evaluated)."""
    est = _ESTIMATOR_FIELD[estimate]
    lo_t = s + 1 if mechanism == "collision" else 2 * s + 2
    top = T_MAX if mechanism == "collision" else T_MAX - 1
    cache: dict[int, float] = {}

    def e0_at(t: int) -> float:
        if t not in cache:
            cache[t] = screen_eps0(mechanism, s, t, n, target, delta, eps0_max)
        return cache[t]

    def mse_at(t: int) -> float:
        return float(getattr(_mse(mechanism, n, d, s, e0_at(t), t), est))

    t = lo_t if around is None else _admissible(mechanism, s, max(lo_t, around / 8))
    ts, ms = [], []
    while True:
        ts.append(t)
        ms.append(mse_at(t))
        k = int(np.argmin(ms))
        if (len(ts) - 1 - k >= SCREEN_PAST_MIN and ms[-1] >= 1.2 * ms[k]) or t >= top:
            break
        t = max(
            _admissible(mechanism, s, t * SCREEN_RATIO), t + (1 if mechanism == "collision" else 2)
        )
        t = min(t, top)
    k = int(np.argmin(ms))
    if k == 0 and around is not None and ts[0] > lo_t:  # the minimum may lie below the grid
        return screen(mechanism, n, d, s, target, delta, estimate, eps0_max, around=None)
    a, b = ts[max(k - 1, 0)], ts[min(k + 1, len(ts) - 1)]
    for x in np.geomspace(a, b, SCREEN_REFINE + 2)[1:-1]:
        tt = _admissible(mechanism, s, x)
        if tt not in ts:
            ts.append(tt)
            ms.append(mse_at(tt))
    order = np.argsort(ts)
    tsa = np.asarray(ts, dtype=np.int64)[order]
    inside = tsa[(tsa >= a) & (tsa <= b)]
    step = 1 if mechanism == "collision" else 2
    allt = np.arange(a, b + 1, step, dtype=np.int64)
    if allt.size > 20_000:
        allt = np.unique(
            np.concatenate([(np.geomspace(a, b, 20_000) // step * step).astype(np.int64), inside])
        )
        allt = allt[(allt >= a) & (allt <= b)]
    e_in = np.interp(np.log(allt), np.log(inside.astype(float)), [cache[int(x)] for x in inside])
    m_all = np.asarray(getattr(_mse(mechanism, n, d, s, e_in, allt), est), dtype=float)
    best = int(allt[int(np.nanargmin(m_all))])
    if best not in cache:
        ts.append(best)
        ms.append(mse_at(best))
    order = np.argsort(ts)
    t_arr = np.asarray(ts, dtype=np.int64)[order]
    return t_arr, np.array([cache[int(x)] for x in t_arr]), np.asarray(ms, dtype=float)[order]


# --------------------------------------------------------------------------- proved finalists
def evaluate(
    mechanism: str,
    t: int,
    n: int,
    d: int,
    s: int,
    target_eps: float,
    delta: float,
    estimate: str = "mean",
    source: str = "user",
    rtol: float = 1e-4,
    bound: str = "proved",
    eps0_max: float = _EPS0_MAX,
    guess: Optional[float] = None,
) -> Candidate:
    """Largest eps0 <= eps0_max with eps_c(eps0, t) <= target_eps at delta, and the MSEs there.

    ``bound="proved"`` (default): the smallest proved upper bound
    (``accountant.bounds.proved_params_epsilon``); ``bound="paper"`` (alias ``"tight"``):
    the paper's Theorem 5 value, not proved (README, Findings).  ``guess`` (e.g. the
    screen's eps0) only places the proved search."""
    make_params(mechanism, 1.0, s=s, t=t, d=d)  # validates t for the mechanism
    e0 = local_epsilon(
        n,
        target_eps,
        delta,
        mechanism,
        s,
        t=t,
        rtol=rtol,
        eps0_max=eps0_max,
        bound=bound,
        guess=guess if bound == "proved" else None,
    )
    params = make_params(mechanism, e0, s=s, t=t)
    if bound == "proved":
        res = proved_params_epsilon(params, n, delta, 1e-7)
        proved = True
    else:
        res = compute_params_bound(bound, params, n, delta, 1e-7)
        proved = False
    eps_c, name = (
        (res.epsilon, res.name)
        if res is not None and res.epsilon is not None
        else (e0, "post-processing")
    )
    return _candidate(mechanism, t, n, d, s, e0, min(eps_c, e0), estimate, source, name, proved)


def _specs(mechanism, s, t, e0, ns) -> list:
    memo = {}
    return [memo.setdefault(x, RoundSpec(x, e0, mechanism, s, t)) for x in ns]


def _approx_composed_eps0(
    mechanism, s, t, ns, goal, delta, eps0_max, start: float = 1.0, rtol: float = 1e-4
) -> float:
    """Largest eps0 in [ROUNDS_EPS0_MIN, eps0_max] whose composition *estimate*
    (:func:`accountant.compose.approx_schedule_epsilon`) is <= goal: a bracket grown from
    ``start`` by factors 1.01, 1.04, 1.17, ..., then brentq to ``rtol`` (not certified)."""
    memo: dict = {}

    def over(e0):
        if e0 not in memo:
            memo[e0] = approx_schedule_epsilon(_specs(mechanism, s, t, e0, ns), delta) - goal
        return memo[e0]

    x = min(max(start, ROUNDS_EPS0_MIN), eps0_max)
    f = 1.01  # a good start is usually within 1-3%: the bracket grows 1.01, 1.04, 1.17, 1.87, ...
    if over(x) <= 0:
        lo, hi = x, None
        while hi is None:
            if lo >= eps0_max:
                return eps0_max
            y = min(f * lo, eps0_max)
            if over(y) > 0:
                hi = y
            else:
                lo, f = y, f**4
    else:
        lo, hi = None, x
        while lo is None:
            if hi <= ROUNDS_EPS0_MIN:
                return ROUNDS_EPS0_MIN
            y = max(hi / f, ROUNDS_EPS0_MIN)
            if over(y) <= 0:
                lo = y
            else:
                hi, f = y, f**4
    return brentq(over, lo, hi, xtol=1e-6, rtol=rtol)


def _composed_eps0(
    mechanism, s, t, ns, target, delta, eps0_max, start=None, start_is_estimate: bool = False
) -> tuple[float, float]:
    """(largest eps0, its certified composed eps) for the rounds ``ns`` at fixed t: the
    estimate (:func:`_approx_composed_eps0`) places it, and the certified composition
    (:func:`accountant.compose.compose_schedule`) is evaluated there, moving down by the
    observed ratio until it is <= target (at most ``ROUNDS_MAX_CERTIFY`` certified
    compositions).  Raises :class:`InfeasiblePlan` when even ``ROUNDS_EPS0_MIN`` fails."""

    def certified(e0):
        return compose_schedule(_specs(mechanism, s, t, e0, ns), delta).epsilon

    goal = target * (1.0 - ROUNDS_MARGIN)
    if start_is_estimate:  # ``start`` already inverts the estimate at ``goal``
        e0 = start
    else:
        e0 = _approx_composed_eps0(
            mechanism, s, t, ns, goal, delta, eps0_max, start=1.0 if start is None else start
        )
    for _ in range(ROUNDS_MAX_CERTIFY):
        c = certified(e0)
        if c <= target:
            return e0, c
        if e0 <= ROUNDS_EPS0_MIN:
            raise InfeasiblePlan(
                f"no per-round eps0 >= {ROUNDS_EPS0_MIN:g} meets total eps = {target:g} over "
                f"{len(ns)} rounds at delta = {delta:g}: the smallest total reachable at this n "
                f"is {_up(c)} (the certified composition at eps0 = {ROUNDS_EPS0_MIN:g}; give a "
                f"target >= that, fewer rounds or a larger delta)",
                c,
            )
        # the estimate is low by the ratio c / target: aim the estimate that much lower
        goal *= min(target / c, 1.0 - 1e-4) * (1.0 - 1e-4)
        e0 = min(
            _approx_composed_eps0(mechanism, s, t, ns, goal, delta, eps0_max, start=e0),
            e0 * (1.0 - 1e-4),
        )
    raise ArithmeticError(
        f"the certified composition did not meet the target after {ROUNDS_MAX_CERTIFY} attempts"
    )  # pragma: no cover


def _round_target(mechanisms, ns, d, s, target, delta, estimate, eps0_max) -> tuple[float, float]:
    """(eps_ref, delta_ref): a single-round target for the screen with rounds.

    A pilot (the first mechanism, its best t for the single-round target target/sqrt(T))
    is inverted on the composition estimate; its single-round saddle-point eps at
    delta / T is the per-round target the screen places t with."""
    T = len(ns)
    n0 = min(ns)
    d_ref = delta / T
    mech = mechanisms[0]
    e_guess = target / math.sqrt(T)
    ts, e0s, ms = screen(mech, n0, d, s, e_guess, d_ref, estimate, eps0_max)
    k = int(np.argmin(ms))
    t0 = int(ts[k])
    e_lo = approx_schedule_epsilon(_specs(mech, s, t0, ROUNDS_EPS0_MIN, ns), delta)
    if e_lo > target:
        c = compose_schedule(_specs(mech, s, t0, ROUNDS_EPS0_MIN, ns), delta).epsilon
        if c > target:
            raise InfeasiblePlan(
                f"no per-round eps0 >= {ROUNDS_EPS0_MIN:g} meets total eps = {target:g} over "
                f"{T} rounds at delta = {delta:g}: the smallest total reachable at this n is "
                f"{_up(c)} (the certified composition at eps0 = {ROUNDS_EPS0_MIN:g}; give a "
                f"target >= that, fewer rounds or a larger delta)",
                c,
            )
    # the screen's eps0 at (target / sqrt(T), delta / T) is usually within a few % of e_p
    e_p = _approx_composed_eps0(
        mech, s, t0, ns, target, delta, eps0_max, start=float(e0s[k]), rtol=1e-3
    )  # it only sets the screen's per-round target
    a = approx_epsilon(blanket_law(make_params(mech, e_p, s=s, t=t0)), n0, d_ref)
    eps_ref = e_p if a is None else min(a, e_p)
    return max(min(eps_ref, _EPS0_MAX), 1e-9), d_ref


# --------------------------------------------------------------------------- plan
def plan(
    target_eps: float,
    delta: float,
    n: int,
    d: int,
    s: int,
    estimate: str = "mean",
    mechanisms: Sequence[str] = MECHANISMS,
    t_values: Optional[dict | Sequence[int]] = None,
    sensitivity: bool = True,
    rtol: float = 1e-4,
    progress=None,
    bound: str = "proved",
    rounds: Optional[int] = None,
    schedule: Optional[Sequence] = None,
    max_eps0: Optional[float] = None,
    compare_uncapped: bool = True,
) -> Plan:
    """Recommend mechanism, t and eps0 meeting ``(target_eps, delta)`` with minimal MSE.

    Parameters
    ----------
    target_eps, delta : the central guarantee required of the whole release.
    n, d, s : users (per round), dimension, non-zeros per user (1 <= s <= d).
    estimate : ``"mean"`` (Collision/CoCo mean MSE) or ``"frequency"`` (non-missing).
    mechanisms : subset of ``("collision", "coco")``.
    t_values : ``None`` (default: the screen over every admissible t), a list of t used
        for every mechanism (inadmissible values for a mechanism are skipped), or a dict
        ``{mechanism: [t, ...]}``: each is evaluated on the proved bound (one round only).
    sensitivity : also compute the recommendation for ``max(1, n // 2)`` and ``2 n``.
    rtol : relative tolerance of the proved eps0 search (the result is always feasible).
    progress : optional callable ``progress(done, total)`` called after each step.
    bound : ``"proved"`` (default) or ``"paper"`` (alias ``"tight"``: the paper's
        Theorem 5 value, not proved; one round only).
    rounds : T identical rounds of n users (the total (eps, delta) is for their PLD
        composition, :func:`accountant.compose.compose_schedule`, a certified upper bound).
    schedule : instead of rounds, the rounds' users: a sequence of ints or of
        :class:`accountant.compose.RoundSpec` (their n is used; eps0, mechanism and t are the
        plan's); ``n`` is then ignored except as given by the smallest round.
    max_eps0 : local-protection cap on eps0 (per round); the plan respects it, and with
        ``compare_uncapped`` also computes the uncapped recommendation (``Plan.uncapped``).

    Raises ValueError on invalid input or when no candidate t is admissible, and
    :class:`InfeasiblePlan` (a ValueError) with the smallest reachable target when no
    eps0 meets the target.
    """
    if bound not in ("tight", "proved", "paper"):
        raise ValueError(f"bound must be 'proved' or 'paper', got {bound!r}")
    bound = bound if bound == "proved" else resolve_name(bound)
    T, ns = _check_release(n, rounds, schedule)
    if ns is not None:
        n = min(ns)
    target_eps, delta, n, d, s, mechanisms = _check(
        target_eps, delta, n, d, s, estimate, mechanisms
    )
    cap = _check_cap(max_eps0)
    top = _EPS0_MAX if cap is None else cap
    if T > 1 and bound != "proved":
        raise ValueError(
            "rounds and schedules are planned on the proved composition only (bound='proved')"
        )
    if T > 1 and t_values is not None:
        raise ValueError("t_values are for a single round; with rounds the planner screens every t")
    release = ns if ns is not None else (n,) * T
    steps = [0]
    n_sens = [nn for nn in (max(1, n // 2), 2 * n) if nn <= 10**12] if sensitivity else []
    grand = [len(mechanisms) * 2 + 1 + 2 * len(n_sens) + (2 if cap is not None else 0)]

    def tick():
        steps[0] += 1
        grand[0] = max(grand[0], steps[0])
        if progress is not None:
            progress(steps[0], grand[0])

    cands: list[Candidate] = []
    if t_values is not None:
        per_mech: dict[str, list[int]] = {}
        for mech in mechanisms:
            ts = t_values.get(mech, []) if isinstance(t_values, dict) else t_values
            ok = []
            for t in ts:
                try:
                    make_params(mech, 1.0, s=s, t=int(t), d=d)
                except (ValueError, TypeError):
                    continue
                ok.append(int(t))
            per_mech[mech] = sorted(set(ok))
        total = sum(len(v) for v in per_mech.values())
        if total == 0:
            raise ValueError(
                "no admissible t among t_values (Collision needs t > s; "
                "CoCo needs an even t >= 2s + 2)"
            )
        grand[0] = total
        for mech, ts in per_mech.items():
            for t in ts:
                cands.append(
                    evaluate(
                        mech, t, n, d, s, target_eps, delta, estimate, "user", rtol, bound, top
                    )
                )
                tick()
        best = min(cands, key=lambda c: (c.mse, c.mechanism, c.t))
    else:
        best, cands = _search(
            mechanisms, release, d, s, target_eps, delta, estimate, top, rtol, bound, tick
        )
    best = _certify(best, release, s, target_eps, delta, bound)
    uncapped = None
    if cap is not None and compare_uncapped:
        if t_values is None:
            uncapped, _ = _search(
                mechanisms,
                release,
                d,
                s,
                target_eps,
                delta,
                estimate,
                _EPS0_MAX,
                rtol,
                bound,
                tick,
                only_best=True,
            )
        else:
            uncapped = min(
                (
                    evaluate(
                        c.mechanism, c.t, n, d, s, target_eps, delta, estimate, "user", rtol, bound
                    )
                    for c in cands
                    if c.source != "screen"
                ),
                key=lambda c: (c.mse, c.mechanism, c.t),
            )
    sens: dict = {}
    for nn in n_sens:
        rel = tuple(max(1, x * nn // n) for x in release) if ns is not None else (nn,) * T
        try:
            if t_values is not None:
                sb = evaluate(
                    best.mechanism,
                    best.t,
                    nn,
                    d,
                    s,
                    target_eps,
                    delta,
                    estimate,
                    "user",
                    rtol,
                    bound,
                    top,
                )
            elif T == 1:
                sb, _ = _search(
                    (best.mechanism,),
                    rel,
                    d,
                    s,
                    target_eps,
                    delta,
                    estimate,
                    top,
                    rtol,
                    bound,
                    tick,
                    only_best=True,
                    around=best.t,
                )
            else:  # rounds: the recommendation's t, eps0 re-searched on the certified composition
                e, eps = _composed_eps0(
                    best.mechanism, s, best.t, rel, target_eps, delta, top, start=best.eps0
                )
                sb = _candidate(
                    best.mechanism,
                    best.t,
                    min(rel),
                    d,
                    s,
                    e,
                    eps,
                    estimate,
                    "finalist",
                    "PLD composition",
                    True,
                )
                tick()
        except InfeasiblePlan:
            continue
        sens[nn] = sb
    if progress is not None:
        progress(steps[0], steps[0])
    order = sorted(cands, key=lambda c: (c.mechanism, c.t, c.source == "screen"))
    return Plan(
        target_eps=target_eps,
        delta=delta,
        n=n,
        d=d,
        s=s,
        estimate=estimate,
        candidates=tuple(order),
        recommendation=best,
        sensitivity=sens,
        bound=bound,
        rounds=T,
        schedule=ns,
        max_eps0=cap,
        uncapped=uncapped,
    )


def _search(
    mechanisms,
    release,
    d,
    s,
    target,
    delta,
    estimate,
    top,
    rtol,
    bound,
    tick,
    only_best: bool = False,
    around: Optional[int] = None,
):
    """(best proved finalist, candidates): the screen of every mechanism, then the proved
    search at each mechanism's best screened t (``only_best``: at the best one only)."""
    T = len(release)
    n = min(release)
    if T == 1:
        e_ref, d_ref = target, delta
    else:
        e_ref, d_ref = _round_target(mechanisms, release, d, s, target, delta, estimate, top)
    cands, finalists = [], []
    for mech in mechanisms:
        ts, e0s, ms = screen(mech, n, d, s, e_ref, d_ref, estimate, top, around=around)
        for t, e0 in zip(ts, e0s):
            cands.append(
                _candidate(mech, t, n, d, s, e0, None, estimate, "screen", "screen", False)
            )
        k = int(np.argmin(ms))
        finalists.append((float(ms[k]), mech, int(ts[k]), float(e0s[k])))
        tick()
    finalists.sort()
    if only_best:
        finalists = finalists[:1]
    proved = []
    if T > 1:
        # the composition estimate ranks the finalists; only the best is certified (each
        # certified composition costs 0.3-0.5 s); the others stay estimates (eps_c None)
        est = []
        for _, mech, t, _e in finalists:
            # at the certification's goal (ROUNDS_MARGIN below the target): the ranking is the
            # same, and the winner's first certified composition is tried right there
            e = _approx_composed_eps0(
                mech, s, t, release, target * (1.0 - ROUNDS_MARGIN), delta, top, start=_e
            )
            est.append(
                _candidate(
                    mech,
                    t,
                    n,
                    d,
                    s,
                    e,
                    None,
                    estimate,
                    "estimate",
                    "PLD composition estimate",
                    False,
                )
            )
        est.sort(key=lambda c: (c.mse, c.mechanism, c.t))
        cands.extend(est[1:])
        finalists = [(est[0].mse, est[0].mechanism, est[0].t, est[0].eps0)]
    for _, mech, t, e0 in finalists:
        if T == 1:
            c = evaluate(
                mech, t, n, d, s, target, delta, estimate, "finalist", rtol, bound, top, guess=e0
            )
        else:
            e, eps = _composed_eps0(
                mech, s, t, release, target, delta, top, start=e0, start_is_estimate=True
            )
            c = _candidate(mech, t, n, d, s, e, eps, estimate, "finalist", "PLD composition", True)
        proved.append(c)
        cands.append(c)
        tick()
    best = min(proved, key=lambda c: (c.mse, c.mechanism, c.t))
    return best, cands


def _certify(c: Candidate, release, s: int, target: float, delta: float, bound: str) -> Candidate:
    """The final check of a recommendation on the proved bound: its certified eps_c (one
    round; a proved bound's certified delta at ``target`` is <= delta) or its certified
    composition (rounds) is <= target.  Raises ArithmeticError otherwise (never reached:
    every finalist's eps0 was found by a search that checks this)."""
    if bound != "proved":
        return c
    if len(release) == 1:
        params = make_params(c.mechanism, c.eps0, s=s, t=c.t)
        ok = (
            c.eps_c is not None
            and c.eps_c <= target
            and (c.eps0 <= target or proved_meets(params, release[0], target, delta) is not None)
        )
    else:
        eps = compose_schedule(_specs(c.mechanism, s, c.t, c.eps0, release), delta).epsilon
        ok = eps <= target
        c = replace(c, eps_c=eps)
    if not ok:  # pragma: no cover - the searches return certified values only
        raise ArithmeticError(
            f"the recommendation ({c.mechanism}, t = {c.t}, eps0 = {c.eps0!r}) "
            f"failed its final certified check"
        )
    return c


def render_plan(p: Plan) -> str:
    """The ``plan`` command's text output: the recommendation, the cap's cost, each
    mechanism's proved finalist, the warnings (with their remedies) and the sentence."""
    r = p.recommendation
    what = "rounds" if p.schedule is None else "scheduled rounds"
    rel = "" if p.rounds == 1 else f", {p.rounds} {what}"
    lines = [
        f"target ({_fmt(p.target_eps)}, {_fmt(p.delta)}) for n = {p.n:,}{rel}, d = {p.d:,}, "
        f"s = {p.s}, {p.estimate} estimate"
    ]
    per = "" if p.rounds == 1 else " per round"
    lines.append(
        f"recommended: {_LABEL[r.mechanism]} t = {r.t}, eps0 = {_down(r.eps0)}{per}; "
        f"epsilon = {_up(r.eps_c)} (proved, {r.bound}); MSE = {r.mse:.4g}"
    )
    if p.uncapped is not None:
        u = p.uncapped
        lines.append(
            f"cap eps0 <= {_fmt(p.max_eps0)}: MSE +{100 * p.cap_cost:.3g}% against the "
            f"uncapped plan ({_LABEL[u.mechanism]} t = {u.t}, eps0 = {_down(u.eps0)}, "
            f"MSE = {u.mse:.4g})"
        )
    for c in p.candidates:
        if c.source == "finalist" and c != r:
            lines.append(
                f"best {_LABEL[c.mechanism]}: t = {c.t}, eps0 = {_down(c.eps0)}; epsilon = "
                f"{_up(c.eps_c)}; MSE = {c.mse:.4g}"
            )
        elif c.source == "estimate":
            lines.append(
                f"best {_LABEL[c.mechanism]} (estimate, not certified): t = {c.t}, "
                f"eps0 ~ {c.eps0:.4g}; MSE ~ {c.mse:.4g}"
            )
    for nn, c in sorted(p.sensitivity.items()):
        lines.append(
            f"at n = {nn:,}: {_LABEL[c.mechanism]} t = {c.t}, eps0 = {_down(c.eps0)}; "
            f"MSE = {c.mse:.4g}"
        )
    for w in p.warnings():
        lines.append(f"warning: {w}")
    lines.append(p.sentence())
    return "\n".join(lines)
