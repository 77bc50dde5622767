"""The deployment planner: ``plan`` (validate, screen, certify, compose over rounds) picks the
mechanism and eps0 with the smallest error whose certified eps_c meets the target, and
``render_plan`` renders it as text.
"""
from __future__ import annotations
from dataclasses import replace
from typing import Optional, Sequence
import numpy as np
from accountant.bounds.registry import (
    proved_meets,
    resolve_name,
)
from accountant.composition.compose import compose_schedule
from accountant.core.limits import MAX_N
from accountant.core.params import make_params
from mechanisms.planning.plan import Candidate, InfeasiblePlan, ORACLES, Plan
# Local private aliases of public names: they keep plan()'s body unchanged until plan() is
# split into its steps (issue 40, left for later); rename the call sites then.
from mechanisms.planning.plan import EPS0_MAX as _EPS0_MAX, MECHANISM_LABELS as _LABEL
from mechanisms.planning.plan import fmt_down as _down, fmt_g as _fmt, fmt_up as _up
from mechanisms.planning.screen import (
    default_mechanisms,
    evaluate,
    params_of,
    screen,
)
from mechanisms.planning.screen import make_candidate as _candidate, check_request as _check
from mechanisms.planning.screen import check_cap as _check_cap, check_oracles as _check_oracles
from mechanisms.planning.screen import check_release as _check_release
from mechanisms.planning.rounds import ROUNDS_MARGIN
from mechanisms.planning.rounds import approx_composed_eps0 as _approx_composed_eps0
from mechanisms.planning.rounds import composed_eps0 as _composed_eps0
from mechanisms.planning.rounds import round_target as _round_target, round_specs as _specs


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
    collision 442 6.01 0.9998 True
    """
    if bound not in ("tight", "proved", "paper"):
        raise ValueError(f"bound must be 'proved' or 'paper', got {bound!r}")
    bound = bound if bound == "proved" else resolve_name(bound)
    T, ns = _check_release(n, rounds, schedule)
    if ns is not None:
        n = min(ns)
    explicit = mechanisms is not None
    target_eps, delta, n, d, s, mechanisms = _check(
        target_eps, delta, n, d, s, estimate, mechanisms if explicit else ("collision",)
    )
    if not explicit:
        mechanisms = default_mechanisms(estimate, s, d, T, bound)
    _check_oracles(mechanisms, estimate, s, d, T, bound)
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
    # n/2 and 2n within the accountant's n range (accountant.core.limits.MAX_N): at n = 1e10
    # the 2n plan is left out up front (it was refused by the accountant after the work)
    n_sens = [nn for nn in (max(1, n // 2), 2 * n) if nn <= MAX_N] if sensitivity else []
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
            if mech in ORACLES:  # evaluated once (OUE: no t; OLH: g by its default rule)
                per_mech[mech] = [0]
                continue
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
    best = _certify(best, release, s, d, target_eps, delta, bound)
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


def _certify(c: Candidate, release, s: int, d: int, target: float, delta: float, bound: str) -> Candidate:
    """The final check of a recommendation on the proved bound: its certified eps_c (one
    round; a proved bound's certified delta at ``target`` is <= delta) or its certified
    composition (rounds) is <= target.  Raises ArithmeticError otherwise (never reached:
    every finalist's eps0 was found by a search that checks this)."""
    if bound != "proved":
        return c
    if len(release) == 1:
        params = params_of(c.mechanism, c.eps0, s, c.t, d)
        ok = (
            c.eps_c is not None
            and c.eps_c <= target
            and (c.eps0 <= target or proved_meets(params, release[0], target, delta) is not None)
        )
    else:
        eps = compose_schedule(_specs(c.mechanism, s, c.t, c.eps0, release), delta, adaptive=False,
                               lower=False).epsilon
        ok = eps <= target
        c = replace(c, eps_c=eps)
    if not ok:  # pragma: no cover - the searches return certified values only
        raise ArithmeticError(
            f"the recommendation ({c.mechanism}, t = {c.t}, eps0 = {c.eps0!r}) "
            f"failed its final certified check"
        )
    return c


def _size(c: Candidate) -> str:
    """``t = 525, `` / ``g = 8, `` / nothing (OUE)."""
    return "" if c.mechanism == "oue" else f"{'g' if c.mechanism == 'olh' else 't'} = {c.t}, "


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
        f"recommended: {r.describe()}, eps0 = {_down(r.eps0)}{per}; "
        f"epsilon = {_up(r.eps_c)} (proved, {r.bound}); MSE = {r.mse:.4g}"
    )
    lines.append(f"report: {r.report()} per user{per}")
    if p.uncapped is not None:
        u = p.uncapped
        lines.append(
            f"cap eps0 <= {_fmt(p.max_eps0)}: MSE +{100 * p.cap_cost:.3g}% against the "
            f"uncapped plan ({u.describe()}, eps0 = {_down(u.eps0)}, "
            f"MSE = {u.mse:.4g})"
        )
    for c in p.candidates:
        if c.source == "finalist" and c != r:
            lines.append(
                f"best {_LABEL[c.mechanism]}: {_size(c)}eps0 = {_down(c.eps0)}; epsilon = "
                f"{_up(c.eps_c)}; MSE = {c.mse:.4g}"
            )
        elif c.source == "estimate":
            lines.append(
                f"best {_LABEL[c.mechanism]} (estimate, not certified): {_size(c)}"
                f"eps0 ~ {c.eps0:.4g}; MSE ~ {c.mse:.4g}"
            )
    for nn, c in sorted(p.sensitivity.items()):
        lines.append(
            f"at n = {nn:,}: {c.describe()}, eps0 = {_down(c.eps0)}; "
            f"MSE = {c.mse:.4g}"
        )
    for w in p.warnings():
        lines.append(f"warning: {w}")
    lines.append(p.sentence())
    return "\n".join(lines)
