"""The deployment planner: ``plan`` picks the mechanism and eps0 with the smallest error whose
certified eps_c meets the target, as five steps (validate, screen, certify, compose over
rounds, sensitivity), each a function of its own; ``render_plan`` renders a plan as text.
"""
from __future__ import annotations
from dataclasses import dataclass, replace
from typing import Callable, Optional, Sequence
import numpy as np
from accountant.bounds.registry import (
    certified_epsilon,
    resolve_name,
)
from accountant.composition.compose import compose_schedule
from accountant.core.limits import MAX_N
from accountant.core.params import make_params
from mechanisms.planning.plan import (
    EPS0_MAX,
    Candidate,
    InfeasiblePlan,
    Plan,
    fmt_down,
    fmt_g,
    fmt_up,
)
from mechanisms.planning.kinds import planner_kind
from mechanisms.planning.screen import (
    check_baselines,
    check_cap,
    check_oracles,
    check_release,
    check_request,
    default_mechanisms,
    evaluate,
    make_candidate,
    params_of,
    screen,
)
from mechanisms.planning.rounds import (
    ROUNDS_MARGIN,
    approx_composed_eps0,
    composed_eps0,
    round_specs,
    round_target,
)


def _best(cands) -> Candidate:
    """The candidate with the smallest MSE (ties: mechanism, then t)."""
    return min(cands, key=lambda c: (c.mse, c.mechanism, c.t))


@dataclass(frozen=True)
class Request:
    """A validated planning request: the target, the data, the mechanisms, the release (users
    of each round) and the search's settings."""

    target: float
    delta: float
    n: int
    d: int
    s: int
    estimate: str
    mechanisms: tuple
    bound: str
    release: tuple
    schedule: Optional[tuple]
    cap: Optional[float]
    rtol: float
    t_values: Optional[dict | Sequence[int]]
    n_sens: tuple

    @property
    def rounds(self) -> int:
        return len(self.release)

    @property
    def top(self) -> float:
        """The largest eps0 searched: the cap, or the planner's EPS0_MAX."""
        return EPS0_MAX if self.cap is None else self.cap


class _Progress:
    """Counts the plan's steps for ``progress(done, total)``; the total grows when a step
    was not foreseen."""

    def __init__(self, callback: Optional[Callable], total: int) -> None:
        self.callback, self.done, self.total = callback, 0, total

    def tick(self) -> None:
        self.done += 1
        self.total = max(self.total, self.done)
        if self.callback is not None:
            self.callback(self.done, self.total)

    def finish(self) -> None:
        if self.callback is not None:
            self.callback(self.done, self.done)


@dataclass(frozen=True)
class Search:
    """What a search returns: the proved finalist with the smallest MSE and every candidate
    seen (screen points, estimates, finalists)."""

    best: Candidate
    candidates: list


# --------------------------------------------------------------------------- plan
def plan(
    target_eps: float,
    delta: float,
    n: int,
    d: int,
    s: int,
    estimate: str = "mean",
    mechanisms: Optional[Sequence[str]] = None,
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
    mechanisms : subset of ``("collision", "coco", "olh", "oue")``; ``None`` (default):
        :func:`default_mechanisms`, i.e. Collision and CoCo, and also OLH and OUE for a
        frequency estimate with s = 1 (one value of [d] per user), one round, proved bound.
        OLH / OUE (Wang, Blocki, Li, Jha, USENIX Security 2017): their eps0 is found on the
        proved bound over the domain [d]; OLH's hash range g is screened as Collision's t
        (the smallest error among the g whose proved eps_c at the largest eps0 meets the
        target), OUE has no t; their MSE is the exact variance of the unbiased frequency
        estimator (:func:`mechanisms.frequency_mse`).
    t_values : ``None`` (default: the screen over every admissible t), a list of t used
        for every mechanism (inadmissible values for a mechanism are skipped), or a dict
        ``{mechanism: [t, ...]}``: each is evaluated on the proved bound (one round only).
    sensitivity : also compute the recommendation for ``max(1, n // 2)`` and ``2 n``.
    rtol : relative tolerance of the proved eps0 search (the result is always feasible).
    progress : optional callable ``progress(done, total)`` called after each step.
    bound : ``"proved"`` (default) or ``"paper"`` (alias ``"tight"``: the paper's
        Theorem 5 value, not proved; one round only).
    rounds : T identical rounds of n users (the total (eps, delta) is for their PLD
        composition, :func:`accountant.composition.compose.compose_schedule`, a certified upper bound).
    schedule : instead of rounds, the rounds' users: a sequence of ints or of
        :class:`accountant.composition.compose.RoundSpec` (their n is used; eps0, mechanism and t are the
        plan's); ``n`` is then ignored except as given by the smallest round.
    max_eps0 : local-protection cap on eps0 (per round); the plan respects it, and with
        ``compare_uncapped`` also computes the uncapped recommendation (``Plan.uncapped``).

    Returns
    -------
    Plan
        The recommendation, the trade-off curve and, with ``sensitivity``, the
        recommendations at ``n/2`` and ``2n``.

    Raises
    ------
    ValueError
        On invalid input or when no candidate t is admissible.
    InfeasiblePlan
        A ``ValueError`` with the smallest reachable target when no eps0 meets the target.

    Examples
    --------
    >>> from accountant import fmt
    >>> from mechanisms import plan
    >>> p = plan(1.0, 1e-6, n=10_000, d=64, s=2, mechanisms=("collision",), sensitivity=False)
    >>> r = p.recommendation
    >>> print(r.mechanism, r.t, fmt(r.eps0, 4, "down"), fmt(r.eps_c, 4, "up"), r.eps_c <= 1.0)
    collision 442 6.01 1 True
    """
    req = validate(
        target_eps, delta, n, d, s, estimate, mechanisms, t_values, sensitivity, rtol, bound,
        rounds, schedule, max_eps0,
    )
    capped = req.cap is not None
    prog = _Progress(
        progress, len(req.mechanisms) * 2 + 1 + 2 * len(req.n_sens) + (2 if capped else 0)
    )
    found = _user_t_values(req, prog) if req.t_values is not None else _search(req, prog)
    best = certify(found.best, req)
    uncapped = _uncapped(req, found.candidates, prog) if capped and compare_uncapped else None
    sens = sensitivity_plans(req, best, prog)
    prog.finish()
    order = sorted(found.candidates, key=lambda c: (c.mechanism, c.t, c.source == "screen"))
    return Plan(
        target_eps=req.target,
        delta=req.delta,
        n=req.n,
        d=req.d,
        s=req.s,
        estimate=req.estimate,
        candidates=tuple(order),
        recommendation=best,
        sensitivity=sens,
        bound=req.bound,
        rounds=req.rounds,
        schedule=req.schedule,
        max_eps0=req.cap,
        uncapped=uncapped,
    )


# --------------------------------------------------------------------------- 1. validate
def validate(
    target_eps, delta, n, d, s, estimate, mechanisms, t_values, sensitivity, rtol, bound,
    rounds, schedule, max_eps0,
) -> Request:
    """The request checked (each bad input a ``ValueError`` naming it, before any work) and
    completed: the default mechanisms, the users of each round, the sensitivity's n/2 and 2n
    within the accountant's n range (``accountant.core.limits.MAX_N``: at n = 1e10 the 2n
    plan is left out up front)."""
    if bound not in ("tight", "proved", "paper"):
        raise ValueError(f"bound must be 'proved' or 'paper', got {bound!r}")
    bound = bound if bound == "proved" else resolve_name(bound)
    T, ns = check_release(n, rounds, schedule)
    if ns is not None:
        n = min(ns)
    explicit = mechanisms is not None
    target_eps, delta, n, d, s, mechanisms = check_request(
        target_eps, delta, n, d, s, estimate, mechanisms if explicit else ("collision",)
    )
    if not explicit:
        mechanisms = default_mechanisms(estimate, s, d, T, bound)
    check_oracles(mechanisms, estimate, s, d, T, bound)
    check_baselines(mechanisms, estimate, d, T, bound)
    cap = check_cap(max_eps0)
    if T > 1 and bound != "proved":
        raise ValueError(
            "rounds and schedules are planned on the proved composition only (bound='proved')"
        )
    if T > 1 and t_values is not None:
        raise ValueError("t_values are for a single round; with rounds the planner screens every t")
    n_sens = tuple(nn for nn in (max(1, n // 2), 2 * n) if nn <= MAX_N) if sensitivity else ()
    return Request(
        target=target_eps, delta=delta, n=n, d=d, s=s, estimate=estimate,
        mechanisms=mechanisms, bound=bound, release=ns if ns is not None else (n,) * T,
        schedule=ns, cap=cap, rtol=rtol, t_values=t_values, n_sens=n_sens,
    )


def _admissible_t_values(req: Request) -> dict[str, list[int]]:
    """The user's t values admissible for each mechanism (OLH / OUE: one evaluation, t = 0:
    OUE has no t, OLH's g follows its default rule)."""
    per_mech: dict[str, list[int]] = {}
    for mech in req.mechanisms:
        ts = req.t_values.get(mech, []) if isinstance(req.t_values, dict) else req.t_values
        if planner_kind(mech).oracle or planner_kind(mech).baseline:
            per_mech[mech] = [0]
            continue
        ok = []
        for t in ts:
            try:
                make_params(mech, 1.0, s=req.s, t=int(t), d=req.d)
            except (ValueError, TypeError):
                continue
            ok.append(int(t))
        per_mech[mech] = sorted(set(ok))
    if not any(per_mech.values()):
        raise ValueError(
            "no admissible t among t_values (Collision needs t > s; "
            "CoCo needs an even t >= 2s + 2)"
        )
    return per_mech


def _user_t_values(req: Request, prog: _Progress) -> Search:
    """Every admissible user t evaluated on the proved bound (one round)."""
    per_mech = _admissible_t_values(req)
    prog.total = sum(len(v) for v in per_mech.values())
    cands = []
    for mech, ts in per_mech.items():
        for t in ts:
            c = evaluate(
                mech, t, req.n, req.d, req.s, req.target, req.delta, req.estimate, "user",
                req.rtol, req.bound, req.top,
            )
            if c is not None:  # None: a baseline that meets the target at no eps0
                cands.append(c)
            prog.tick()
    return Search(_best(cands), cands)


# --------------------------------------------------------------------------- 2. screen
def _search(
    req: Request,
    prog: _Progress,
    release: Optional[tuple] = None,
    mechanisms: Optional[tuple] = None,
    top: Optional[float] = None,
    only_best: bool = False,
    around: Optional[int] = None,
) -> Search:
    """The screen of every mechanism, then the proved search at each mechanism's best
    screened t (``only_best``: at the best one only); with rounds the composition estimate
    ranks the finalists first.  ``release``, ``mechanisms``, ``top``: the request's unless
    given (the sensitivity's n, the uncapped plan)."""
    release = req.release if release is None else release
    mechanisms = req.mechanisms if mechanisms is None else mechanisms
    top = req.top if top is None else top
    cands, finalists = _screen_all(req, prog, release, mechanisms, top, around)
    if only_best:
        finalists = finalists[:1]
    if len(release) > 1:
        finalists = _rank_by_composition(req, release, top, finalists, cands)
    proved = []
    for mse, mech, t, e0 in finalists:
        # a baseline whose least screened error cannot beat a proved finalist: no proved search
        skip = planner_kind(mech).baseline and proved and mse >= _best(proved).mse
        c = None if skip else _certified_finalist(req, release, top, mech, t, e0)
        if c is not None:  # None: a baseline that meets the target at no eps0
            proved.append(c)
            cands.append(c)
        prog.tick()
    if not proved:
        raise InfeasiblePlan("no eps0 of the baselines planned meets the target")
    return Search(_best(proved), cands)


def _screen_all(req: Request, prog: _Progress, release, mechanisms, top, around) -> tuple:
    """(screen candidates, finalists): each mechanism's screen over t at the per-round
    target (with rounds: :func:`round_target`), and its best point (mse, mechanism, t,
    eps0), the finalists sorted by MSE."""
    n = min(release)
    if len(release) == 1:
        e_ref, d_ref = req.target, req.delta
    else:
        e_ref, d_ref = round_target(
            mechanisms, release, req.d, req.s, req.target, req.delta, req.estimate, top
        )
    cands, finalists = [], []
    for mech in mechanisms:
        ts, e0s, ms = screen(mech, n, req.d, req.s, e_ref, d_ref, req.estimate, top, around=around)
        for t, e0 in zip(ts, e0s):
            cands.append(
                make_candidate(
                    mech, t, n, req.d, req.s, e0, None, req.estimate, "screen", "screen", False
                )
            )
        k = int(np.argmin(ms))
        finalists.append((float(ms[k]), mech, int(ts[k]), float(e0s[k])))
        prog.tick()
    finalists.sort()
    return cands, finalists


# --------------------------------------------------------------------------- 3. certify
def _certified_finalist(req: Request, release, top, mech, t, e0) -> Candidate:
    """The largest eps0 of a finalist on the proved bound (one round) or on the certified
    PLD composition of the release (rounds), ``e0`` (the screen's) placing the search."""
    n = min(release)
    if len(release) == 1:
        return evaluate(
            mech, t, n, req.d, req.s, req.target, req.delta, req.estimate, "finalist", req.rtol,
            req.bound, top, guess=e0,
        )
    e, eps = composed_eps0(
        mech, req.s, t, release, req.target, req.delta, top, start=e0, start_is_estimate=True
    )
    return make_candidate(
        mech, t, n, req.d, req.s, e, eps, req.estimate, "finalist", "PLD composition", True
    )


def certify(c: Candidate, req: Request) -> Candidate:
    """The final check of a recommendation on the proved bound: its certified eps_c (one
    round: the number the forward command prints at its eps0) or its certified
    composition (rounds) is <= target.  Raises ArithmeticError otherwise (never reached:
    every finalist's eps0 was found by a search that checks this)."""
    if req.bound != "proved":
        return c
    if req.rounds == 1:
        ok = (
            c.eps_c is not None
            and c.eps_c <= req.target
            and (
                c.eps0 <= req.target
                or certified_epsilon(
                    params_of(c.mechanism, c.eps0, req.s, c.t, req.d, req.release[0]), req.release[0],
                    req.delta,
                ).epsilon <= req.target
            )
        )
    else:
        specs = round_specs(c.mechanism, req.s, c.t, c.eps0, req.release)
        eps = compose_schedule(specs, req.delta, adaptive=False, lower=False).epsilon
        ok = eps <= req.target
        c = replace(c, eps_c=eps)
    if not ok:  # pragma: no cover - the searches return certified values only
        raise ArithmeticError(
            f"the recommendation ({c.mechanism}, t = {c.t}, eps0 = {c.eps0!r}) "
            f"failed its final certified check"
        )
    return c


def _uncapped(req: Request, cands: list, prog: _Progress) -> Candidate:
    """The plan without the cap (to say what the cap costs): the search up to EPS0_MAX, or
    the user's t values re-evaluated there."""
    if req.t_values is None:
        return _search(req, prog, top=EPS0_MAX, only_best=True).best
    return _best(
        evaluate(
            c.mechanism, c.t, req.n, req.d, req.s, req.target, req.delta, req.estimate, "user",
            req.rtol, req.bound,
        )
        for c in cands
        if c.source != "screen"
    )


# --------------------------------------------------------------------------- 4. rounds
def _rank_by_composition(req: Request, release, top, finalists, cands: list) -> list:
    """Rounds: the composition estimate ranks the finalists; only the best is certified (each
    certified composition costs 0.3-0.5 s), the others join ``cands`` as estimates (eps_c
    None).  The estimate is taken at the certification's goal (ROUNDS_MARGIN below the
    target): the ranking is the same, and the winner's first certified composition is tried
    right there."""
    n = min(release)
    goal = req.target * (1.0 - ROUNDS_MARGIN)
    est = []
    for _, mech, t, e0 in finalists:
        e = approx_composed_eps0(mech, req.s, t, release, goal, req.delta, top, start=e0)
        est.append(
            make_candidate(
                mech, t, n, req.d, req.s, e, None, req.estimate, "estimate",
                "PLD composition estimate", False,
            )
        )
    est.sort(key=lambda c: (c.mse, c.mechanism, c.t))
    cands.extend(est[1:])
    return [(est[0].mse, est[0].mechanism, est[0].t, est[0].eps0)]


# --------------------------------------------------------------------------- 5. sensitivity
def sensitivity_plans(req: Request, best: Candidate, prog: _Progress) -> dict:
    """``{n': Candidate}`` for n' = n/2 and 2n (those feasible): the recommendation's
    mechanism re-planned at n' users per round."""
    sens: dict = {}
    for nn in req.n_sens:
        try:
            sens[nn] = _plan_at(req, best, nn, prog)
        except InfeasiblePlan:
            continue
    return sens


def _plan_at(req: Request, best: Candidate, nn: int, prog: _Progress) -> Candidate:
    """The recommendation at ``nn`` users per round (a schedule scaled by nn / n): the user's
    t re-evaluated, the mechanism's screen and proved search around its t (one round), or
    its t with eps0 re-searched on the certified composition (rounds)."""
    if req.schedule is not None:
        rel = tuple(max(1, x * nn // req.n) for x in req.release)
    else:
        rel = (nn,) * req.rounds
    if req.t_values is not None:
        return evaluate(
            best.mechanism, best.t, nn, req.d, req.s, req.target, req.delta, req.estimate,
            "user", req.rtol, req.bound, req.top,
        )
    if req.rounds == 1:
        return _search(
            req, prog, release=rel, mechanisms=(best.mechanism,), only_best=True, around=best.t
        ).best
    e, eps = composed_eps0(
        best.mechanism, req.s, best.t, rel, req.target, req.delta, req.top, start=best.eps0
    )
    c = make_candidate(
        best.mechanism, best.t, min(rel), req.d, req.s, e, eps, req.estimate, "finalist",
        "PLD composition", True,
    )
    prog.tick()
    return c


# --------------------------------------------------------------------------- text
def _size(c: Candidate) -> str:
    """``t = 525, `` / ``g = 8, `` / ``size = 3, `` / nothing (OUE, k-RR, ...)."""
    return c.kind.sized(c.t)


def render_plan(p: Plan) -> str:
    """The ``plan`` command's text output: the recommendation, the cap's cost, each
    mechanism's proved finalist, the warnings (with their remedies) and the sentence."""
    r = p.recommendation
    what = "rounds" if p.schedule is None else "scheduled rounds"
    rel = "" if p.rounds == 1 else f", {p.rounds} {what}"
    lines = [
        f"target ({fmt_g(p.target_eps)}, {fmt_g(p.delta)}) for n = {p.n:,}{rel}, d = {p.d:,}, "
        f"s = {p.s}, {p.estimate} estimate"
    ]
    per = "" if p.rounds == 1 else " per round"
    lines.append(
        f"recommended: {r.describe()}, eps0 = {fmt_down(r.eps0)}{per}; "
        f"epsilon = {fmt_up(r.eps_c)} (proved, {r.bound}); MSE = {r.mse:.4g}"
    )
    lines.append(f"report: {r.report()} per user{per}")
    if p.uncapped is not None:
        u = p.uncapped
        lines.append(
            f"cap eps0 <= {fmt_g(p.max_eps0)}: MSE +{100 * p.cap_cost:.3g}% against the "
            f"uncapped plan ({u.describe()}, eps0 = {fmt_down(u.eps0)}, "
            f"MSE = {u.mse:.4g})"
        )
    for c in p.candidates:
        if c.source == "finalist" and c != r:
            lines.append(
                f"best {c.kind.label}: {_size(c)}eps0 = {fmt_down(c.eps0)}; epsilon = "
                f"{fmt_up(c.eps_c)}; MSE = {c.mse:.4g}"
            )
        elif c.source == "estimate":
            lines.append(
                f"best {c.kind.label} (estimate, not certified): {_size(c)}"
                f"eps0 ~ {c.eps0:.4g}; MSE ~ {c.mse:.4g}"
            )
    for nn, c in sorted(p.sensitivity.items()):
        lines.append(
            f"at n = {nn:,}: {c.describe()}, eps0 = {fmt_down(c.eps0)}; "
            f"MSE = {c.mse:.4g}"
        )
    for w in p.warnings():
        lines.append(f"warning: {w}")
    lines.append(p.sentence())
    return "\n".join(lines)
