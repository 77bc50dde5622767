"""Deployment planner: the most accurate Collision / CoCo configuration for a central budget.

Given a target central guarantee ``(target_eps, delta)`` for ``n`` shuffled users with
``d``-dimensional, ``s``-sparse data, :func:`plan`

1. builds, per mechanism, a small set of candidate hash ranges ``t`` (Collision:
   ``t > s``; CoCo: even ``t >= 2s + 2``) around the paper's t-rule and around the
   error-optimal ``t`` (:func:`mechanisms.errors.optimal_t`) at a pilot eps0;
2. for every candidate finds, with ``t`` held fixed, the largest local budget eps0
   whose certified shuffled guarantee eps_c(eps0, t) is ``<= target_eps`` at
   ``delta`` (:func:`accountant.shuffle.local_epsilon`);
3. evaluates the exact MSE of the requested estimator there
   (:func:`mechanisms.errors.collision_mse` / :func:`mechanisms.errors.coco_mse`:
   ``"mean"`` -> ``.mean``, ``"frequency"`` -> ``.nonmissing``);
4. recommends the candidate with the smallest MSE, and repeats the recommendation
   for ``n/2`` and ``2n`` (``sensitivity``).

Every eps_c quoted is the toolkit's certified upper bound of Theorem 5 / Section 7.4
(which rests on the stronger-clone reduction; see README, "Caveat: the FMT23 erratum").
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Optional, Sequence

import numpy as np

from accountant.bounds import compute_params_bound, proved_params_epsilon, resolve_name
from accountant.calibration import local_epsilon
from accountant.params import coco_theorem7_t, collision_paper_t, make_params

from .errors import T_MAX, coco_mse, collision_mse, optimal_t

MECHANISMS = ("collision", "coco")
ESTIMATES = ("mean", "frequency")
_ESTIMATOR_FIELD = {"mean": "mean", "frequency": "nonmissing"}
_LABEL = {"collision": "Collision", "coco": "CoCo"}
# multiplicative spread of the candidate t around each centre
_FACTORS_OPT = (0.5, 0.7, 0.85, 1.0, 1.2, 1.5, 2.0)
_FACTORS_RULE = (0.8, 1.0, 1.25)
_EPS0_MAX = 20.0
# a recommended local budget above this gives each report little protection on its own
LOW_LOCAL_PROTECTION_EPS0 = 5.0
# eps0 / eps_c below this: shuffling hardly amplifies (n too small for the target)
LITTLE_AMPLIFICATION = 1.1


@dataclass(frozen=True)
class Candidate:
    """One point of the trade-off curve: mechanism, fixed t, the largest admissible
    eps0, its certified eps_c (<= target) and the exact MSEs there."""

    mechanism: str
    t: int
    eps0: float
    eps_c: float
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

    ``candidates``: every evaluated (mechanism, t), sorted by mechanism then t.
    ``recommendation``: the candidate with the smallest ``mse``.
    ``sensitivity``: ``{n_half: Candidate, n_double: Candidate}`` (the recommendation
    recomputed for ``max(1, n // 2)`` and ``2 n`` over the 5 best t values at ``n`` and
    each mechanism's best; empty when not requested).
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

    def rows(self) -> list[dict]:
        """Candidates as flat dicts (for tables / CSV)."""
        out = []
        for c in self.candidates:
            r = {"n": self.n, "d": self.d, "s": self.s, "target_eps": self.target_eps,
                 "delta": self.delta, "estimate": self.estimate}
            r.update(c.to_dict())
            r["recommended"] = c == self.recommendation
            out.append(r)
        return out

    def warnings(self) -> list[str]:
        """Plain-language cautions about the recommendation (empty when there are none).

        * eps0 > ``LOW_LOCAL_PROTECTION_EPS0``: each report alone is only eps0-LDP, a
          likelihood ratio of e^eps0 (e^5 ~ 148) against the shuffler or a breach;
        * eps0 at the search's cap (``_EPS0_MAX``): the target holds for every eps0 tried;
        * eps0 / eps_c < ``LITTLE_AMPLIFICATION``: n is too small for shuffling to amplify
          the local budget towards the target;
        * MSE > s: the expected squared error exceeds the largest squared norm of the
          quantity estimated (s non-zeros, each at most 1 in size), so noise dominates.
        """
        c = self.recommendation
        out = []
        if c.eps0 >= _EPS0_MAX * (1 - 1e-6):
            out.append(f"The target holds for every local eps0 up to {_EPS0_MAX:g}, the "
                       f"planner's cap: the local randomizer gives practically no protection "
                       f"on its own; consider a smaller target eps_c.")
        elif c.eps0 > LOW_LOCAL_PROTECTION_EPS0:
            out.append(f"The recommended local eps0 = {c.eps0:.3g} is above "
                       f"{LOW_LOCAL_PROTECTION_EPS0:g}: each report alone allows a likelihood "
                       f"ratio of e^{c.eps0:.3g} ~ {math.exp(c.eps0):.3g} to whoever sees it "
                       f"before shuffling; the central guarantee rests on the shuffler.")
        if c.eps_c > 0 and c.eps0 / c.eps_c < LITTLE_AMPLIFICATION:
            out.append(f"Shuffling hardly helps here: eps0 / eps_c = {c.eps0 / c.eps_c:.3g} "
                       f"(n = {self.n:,} is too small for this target; local DP alone gives "
                       f"almost the same guarantee).")
        if c.mse > self.s:
            out.append(f"The expected squared error {c.mse:.3g} exceeds s = {self.s}, the "
                       f"largest squared norm of the {self.estimate} vector: at n = {self.n:,} "
                       f"the estimate is dominated by noise.")
        return out

    def sentence(self, n: Optional[int] = None) -> str:
        """One sentence for a design document."""
        c = self.recommendation if n is None else self.sensitivity[n]
        nn = self.n if n is None else n
        what = "mean-estimation" if self.estimate == "mean" else "frequency-estimation (non-missing)"
        if self.bound == "proved":
            return (f"With n = {nn:,} users and d = {self.d:,}, s = {self.s}, use "
                    f"{_LABEL[c.mechanism]} with t = {c.t} and local eps0 = {c.eps0:.4g}: the shuffled "
                    f"release is ({_fmt(self.target_eps)}, {_fmt(self.delta)})-DP (proved upper bound "
                    f"eps_c = {c.eps_c:.4g}, {c.bound}) and the {what} MSE is {c.mse:.4g}.")
        return (f"With n = {nn:,} users and d = {self.d:,}, s = {self.s}, use "
                f"{_LABEL[c.mechanism]} with t = {c.t} and local eps0 = {c.eps0:.4g}: by the paper's "
                f"Theorem 5 the shuffled release is ({_fmt(self.target_eps)}, {_fmt(self.delta)})-DP "
                f"(eps_c = {c.eps_c:.4g}; Theorem 5 is not proved for these parameters, see the "
                f"toolkit's README) and the {what} MSE is {c.mse:.4g}.")


def _fmt(x: float) -> str:
    return f"{x:g}"


def _check(target_eps, delta, n, d, s, estimate, mechanisms) -> tuple:
    def is_int(v):
        return isinstance(v, (int, np.integer)) and not isinstance(v, bool)

    if not is_int(n) or not 1 <= int(n) <= 10**12:
        raise ValueError(f"n must be an integer in [1, 1e12], got {n!r}")
    if not is_int(d) or int(d) < 1:
        raise ValueError(f"d must be an integer >= 1, got {d!r}")
    if not is_int(s) or not 1 <= int(s) <= int(d):
        raise ValueError(f"s must be an integer with 1 <= s <= d = {d}, got {s!r}")
    if isinstance(target_eps, bool) or not isinstance(target_eps, (int, float, np.floating)) or not (
            math.isfinite(float(target_eps)) and 0 < float(target_eps) <= _EPS0_MAX):
        raise ValueError(f"target epsilon must be a number in (0, {_EPS0_MAX:g}], got {target_eps!r}")
    if isinstance(delta, bool) or not isinstance(delta, (int, float, np.floating)) or not (
            1e-300 <= float(delta) < 1):
        raise ValueError(f"delta must be a number in [1e-300, 1), got {delta!r}")
    if estimate not in ESTIMATES:
        raise ValueError(f"estimate must be one of {ESTIMATES}, got {estimate!r}")
    mechanisms = tuple(mechanisms)
    if not mechanisms or any(m not in MECHANISMS for m in mechanisms):
        raise ValueError(f"mechanisms must be a non-empty subset of {MECHANISMS}, got {mechanisms!r}")
    return float(target_eps), float(delta), int(n), int(d), int(s), mechanisms


def _admissible(mechanism: str, s: int, t: float) -> int:
    """Nearest admissible t (Collision: > s; CoCo: even, >= 2s + 2)."""
    if mechanism == "collision":
        return int(min(max(round(t), s + 1), T_MAX))
    v = int(max(round(t / 2) * 2, 2 * s + 2))
    return min(v, T_MAX - 1)


def _rule_t(mechanism: str, s: int, eps0: float) -> int:
    return collision_paper_t(s, eps0) if mechanism == "collision" else coco_theorem7_t(s, eps0)


def candidate_ts(mechanism: str, n: int, d: int, s: int, target_eps: float, delta: float,
                 estimate: str = "mean", rtol: float = 1e-4, bound: str = "proved") -> dict[int, str]:
    """Default candidate t values ``{t: source}`` (at most 10 per mechanism).

    Pilot (two fixed-point steps): eps0_1 = largest eps0 meeting the target with t
    fixed at the paper's rule for eps0 = target_eps; t_1 = error-optimal t at eps0_1;
    eps0_2 = largest eps0 meeting the target with t = t_1.  Centres: the error-optimal
    t at eps0_2 ("error-optimal", spread by factors 0.5 ... 2) and the paper's rule at
    eps0_2 ("paper rule", spread by 0.8 and 1.25); spread values are labelled "grid".
    """
    est = _ESTIMATOR_FIELD[estimate]
    # the pilot only places the candidate t values (no privacy claim rests on it): it uses
    # the paper's pair bound, within ~1e-4 of the exact blanket and 100x faster to invert
    bound = "paper"
    t0 = _rule_t(mechanism, s, target_eps)
    e1 = local_epsilon(n, target_eps, delta, mechanism, s, t=t0, rtol=rtol, eps0_max=_EPS0_MAX,
                       bound=bound)
    e1 = min(e1 if e1 else target_eps, 12.0)
    t1, _ = optimal_t(mechanism, est, d, s, e1)
    e2 = local_epsilon(n, target_eps, delta, mechanism, s, t=t1, rtol=rtol, eps0_max=_EPS0_MAX,
                       bound=bound)
    e2 = min(e2 if e2 else e1, 12.0)
    t_rule = _rule_t(mechanism, s, e2)
    t_opt, _ = optimal_t(mechanism, est, d, s, e2)
    out: dict[int, str] = {}
    for centre, label, factors in ((t_rule, "paper rule", _FACTORS_RULE),
                                   (t_opt, "error-optimal", _FACTORS_OPT)):
        for f in factors:
            t = _admissible(mechanism, s, centre * f)
            if t not in out or f == 1.0:
                out[t] = label if f == 1.0 else out.get(t, "grid")
    return dict(sorted(out.items()))


def _mse(mechanism: str, n: int, d: int, s: int, eps0: float, t: int):
    fn = collision_mse if mechanism == "collision" else coco_mse
    return fn(n, d, s, eps0, t)


def evaluate(mechanism: str, t: int, n: int, d: int, s: int, target_eps: float, delta: float,
             estimate: str = "mean", source: str = "user", rtol: float = 1e-4,
             bound: str = "proved") -> Candidate:
    """Largest eps0 with eps_c(eps0, t) <= target_eps at delta, and the MSEs there.

    ``bound="proved"`` (default): the smallest proved upper bound
    (``accountant.bounds.proved_params_epsilon``); ``bound="paper"`` (alias ``"tight"``):
    the paper's Theorem 5 value, not proved (README, Findings)."""
    make_params(mechanism, 1.0, s=s, t=t, d=d)  # validates t for the mechanism
    e0 = local_epsilon(n, target_eps, delta, mechanism, s, t=t, rtol=rtol, eps0_max=_EPS0_MAX,
                       bound=bound)
    params = make_params(mechanism, e0, s=s, t=t)
    if bound == "proved":
        res = proved_params_epsilon(params, n, delta, 1e-7)
        proved = True
    else:
        res = compute_params_bound(bound, params, n, delta, 1e-7)
        proved = False
    eps_c, name = (res.epsilon, res.name) if res is not None and res.epsilon is not None else (e0, "post-processing")
    m = _mse(mechanism, n, d, s, e0, t)
    return Candidate(mechanism=mechanism, t=int(t), eps0=float(e0), eps_c=float(min(eps_c, e0)),
                     mse=float(getattr(m, _ESTIMATOR_FIELD[estimate])), mse_mean=float(m.mean),
                     mse_nonmissing=float(m.nonmissing), mse_item=float(m.item),
                     source=source, bound=name, proved=proved)


def plan(target_eps: float, delta: float, n: int, d: int, s: int, estimate: str = "mean",
         mechanisms: Sequence[str] = MECHANISMS, t_values: Optional[dict | Sequence[int]] = None,
         sensitivity: bool = True, rtol: float = 1e-4, progress=None, bound: str = "proved") -> Plan:
    """Recommend mechanism, t and eps0 meeting ``(target_eps, delta)`` with minimal MSE.

    Parameters
    ----------
    target_eps, delta : the central guarantee required of the shuffled release.
    n, d, s : users, dimension, non-zeros per user (1 <= s <= d).
    estimate : ``"mean"`` (Collision/CoCo mean MSE) or ``"frequency"`` (non-missing).
    mechanisms : subset of ``("collision", "coco")``.
    t_values : ``None`` (default candidates, :func:`candidate_ts`), a list of t used for
        every mechanism (inadmissible values for a mechanism are skipped), or a dict
        ``{mechanism: [t, ...]}``.
    sensitivity : also compute the recommendation for ``max(1, n // 2)`` and ``2 n``
        (over the 5 best t values at ``n`` plus each mechanism's best, which contain
        the recommendation; so the MSE at 2n is never above the MSE at n).
    rtol : relative tolerance of the eps0 search (the result is always feasible).
    progress : optional callable ``progress(done, total)`` called after each candidate
        evaluation (sensitivity runs included; ``total`` may shrink once, when the
        sensitivity runs' candidates are known, and ends equal to ``done``).
    bound : ``"proved"`` (default: the smallest proved upper bound, the exact privacy blanket
        for Collision and CoCo) or ``"paper"`` (alias ``"tight"``: the paper's Theorem 5
        value, not proved).

    Raises ValueError on invalid input or when no candidate t is admissible.
    """
    if bound not in ("tight", "proved", "paper"):
        raise ValueError(f"bound must be 'proved' or 'paper', got {bound!r}")
    bound = bound if bound == "proved" else resolve_name(bound)
    target_eps, delta, n, d, s, mechanisms = _check(target_eps, delta, n, d, s, estimate, mechanisms)
    per_mech: dict[str, dict[int, str]] = {}
    for mech in mechanisms:
        if t_values is None:
            per_mech[mech] = candidate_ts(mech, n, d, s, target_eps, delta, estimate, rtol, bound)
        else:
            ts = t_values.get(mech, []) if isinstance(t_values, dict) else t_values
            ok = {}
            for t in ts:
                try:
                    make_params(mech, 1.0, s=s, t=int(t), d=d)
                except (ValueError, TypeError):
                    continue
                ok[int(t)] = "user"
            per_mech[mech] = dict(sorted(ok.items()))
    total = sum(len(v) for v in per_mech.values())
    if total == 0:
        raise ValueError("no admissible t among t_values (Collision needs t > s; "
                         "CoCo needs an even t >= 2s + 2)")
    n_sens = [nn for nn in (max(1, n // 2), 2 * n) if nn <= 10**12] if sensitivity else []
    # progress counts every candidate evaluation, the sensitivity runs' included (their
    # count is an upper bound until the main candidates are ranked)
    grand = total + len(n_sens) * min(total, 5 + len(mechanisms))
    cands = []
    for mech, ts in per_mech.items():
        for t, src in ts.items():
            cands.append(evaluate(mech, t, n, d, s, target_eps, delta, estimate, src, rtol, bound))
            if progress is not None:
                progress(len(cands), grand)
    best = min(cands, key=lambda c: (c.mse, c.mechanism, c.t))
    sens: dict = {}
    # the sensitivity runs re-use the most promising t values: the 5 best candidates
    # overall and the best of each mechanism (always including the recommendation)
    ranked = sorted(cands, key=lambda c: (c.mse, c.mechanism, c.t))
    keep = ranked[:5] + [next(c for c in ranked if c.mechanism == m) for m in mechanisms
                         if any(c.mechanism == m for c in ranked)]
    short = {m: sorted({c.t for c in keep if c.mechanism == m}) for m in mechanisms}
    per_sub = sum(len(v) for v in short.values())
    grand = total + len(n_sens) * per_sub
    for i, nn in enumerate(n_sens):
        sub_progress = None
        if progress is not None:
            def sub_progress(k, _total, base=total + i * per_sub):
                progress(base + k, grand)
        sub = plan(target_eps, delta, nn, d, s, estimate, mechanisms, short,
                   sensitivity=False, rtol=rtol, bound=bound, progress=sub_progress)
        sens[nn] = sub.recommendation
    return Plan(target_eps=target_eps, delta=delta, n=n, d=d, s=s, estimate=estimate,
                candidates=tuple(cands), recommendation=best, sensitivity=sens, bound=bound)
