"""The planner's inputs and first pass: validation of the request, the default mechanisms, the
candidate (mechanism, t, eps0) per mechanism with its estimated error, and a fast screen by
the proved eps_c before anything is certified.
"""
from __future__ import annotations
import math
from typing import Optional
import numpy as np
from accountant.bounds.registry import (
    certified_epsilon,
    compute_params_bound,
)
from accountant.accounting.calibration import local_epsilon, saddle_local_epsilon
from accountant.core.params import make_params
from mechanisms.randomizers.frequency_oracles import frequency_mse
from mechanisms.planning.kinds import KINDS, Kind, canonical, planner_kind
from mechanisms.planning.plan import Candidate, ESTIMATES, MECHANISMS, EPS0_MAX
from mechanisms.planning.finite import check_finite_size, finite_eps0, finite_fits, finite_member
from mechanisms.planning.central import errors_at, own_eps0, own_params
from accountant.core.limits import MAX_BASELINE_D
_ESTIMATOR_FIELD = {"mean": "mean", "frequency": "nonmissing"}
# screen: geometric ratio of the coarse t grid, points past the minimum, refinement points
SCREEN_RATIO = 1.3
SCREEN_PAST_MIN = 5
SCREEN_REFINE = 7
# the planner's limits (accountant.core.limits, one place): checked here before any work (the
# planner checked 100,000 rounds and the composition refused 10,001 after 29-47 s)
from accountant.core.limits import MAX_N, PLAN_MAX_ROUNDS as MAX_ROUNDS, check_schedule_spread  # noqa: E402
# smallest delta planned (work grows fast below: see check_request)
DELTA_MIN = 1e-30
#: the baselines' screen: their error on this many eps0 of a geometric grid up to the top, the
#: smallest of which (an estimate of the least error any feasible eps0 can give) decides whether
#: their proved search is run
BASELINE_SCREEN_POINTS = 64


def check_request(target_eps, delta, n, d, s, estimate, mechanisms) -> tuple:
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
        or not (math.isfinite(float(target_eps)) and 0 < float(target_eps) <= EPS0_MAX)
    ):
        raise ValueError(
            f"target epsilon must be a number in (0, {EPS0_MAX:g}], got {target_eps!r}"
        )
    if (
        isinstance(delta, bool)
        or not isinstance(delta, (int, float, np.floating))
        or not (DELTA_MIN <= float(delta) < 1)
    ):
        raise ValueError(
            f"delta must be a number in [{DELTA_MIN:g}, 1), got {delta!r} (the "
            f"planner's limit: below it the proved inversions take minutes)"
        )
    if estimate not in ESTIMATES:
        raise ValueError(f"estimate must be one of {ESTIMATES}, got {estimate!r}")
    mechanisms = tuple(mechanisms)
    names = tuple(map(canonical, mechanisms))
    if not mechanisms or None in names:
        raise ValueError(
            f"mechanisms must be a non-empty subset of {MECHANISMS}, got {mechanisms!r}"
        )
    check_sparsity(names, int(s), "s", repr(s))
    return float(target_eps), float(delta), int(n), int(d), int(s), tuple(dict.fromkeys(names))


def check_sparsity(mechanisms: tuple, s: int, name: str = "s", shown: str = "") -> None:
    """s within the t rule of every hashed kind in ``mechanisms`` (Collision: t in (s, T_MAX];
    CoCo: an even t in [2s + 2, T_MAX - 1]): refused otherwise, naming ``name``."""
    asked = set(map(canonical, mechanisms))
    for kind in (k for k in KINDS.values() if k.name in asked):  # in the table's order
        rule = kind.t_rule
        if rule is not None and rule.max_s is not None and s > rule.max_s:
            raise ValueError(f"{name} must be an integer in [1, {rule.max_s}] for {kind.name} (its output "
                             f"size t {rule.words} is at most {rule.top}), got {shown or s}")


def default_mechanisms(estimate: str, s: int, d: int, rounds: int = 1, bound: str = "proved") -> tuple:
    """The mechanisms planned when none are given (the kinds with ``default``): Collision and
    CoCo (each where its t rule admits s; Collision always, refused with its reason when s is
    too large), and OLH and OUE where they apply (frequency estimate, one value per user s = 1,
    d >= 2, one round, proved bound).  k-RR and the catalogue's matrices (Hadamard response,
    subset selection, symmetric unary encoding, local hashing with g = 2) are planned when
    named (the matrices' proved search evaluates the many-atom blanket of a matrix: seconds per
    step, not milliseconds).

    Examples
    --------
    >>> from mechanisms.planning import default_mechanisms
    >>> default_mechanisms("frequency", 1, 64), default_mechanisms("mean", 1, 64)
    (('collision', 'coco', 'olh', 'oue'), ('collision', 'coco'))
    """
    hashed = [kind for kind in KINDS.values() if kind.default and not kind.oracle and not kind.baseline]
    base = tuple(k.name for k in hashed if s <= k.t_rule.max_s) or (hashed[0].name,)
    if estimate == "frequency" and s == 1 and d >= 2 and rounds == 1 and bound == "proved":
        return base + tuple(k.name for k in KINDS.values() if k.default and k.oracle)
    return base


def baseline_names(estimate: str, d: int, s: int) -> tuple:
    """The key-value baselines the planner can plan for ``estimate`` at (d, s) (one round, the
    proved bound; PCKV's GRR needs d >= 2): named in ``mechanisms`` they join the candidates.

    Examples
    --------
    >>> from mechanisms.planning.screen import baseline_names
    >>> baseline_names("mean", 64, 2), baseline_names("frequency", 1, 1)
    (('privkv', 'pckv-ue', 'pckv-grr', 'pckv-agrr', 'succinct'), ('privkv', 'pckv-ue'))
    """
    def fits(name):
        try:
            own_params(name, 1, d, s)(1.0)
        except ValueError:
            return False
        return True

    if d > MAX_BASELINE_D:
        return ()
    return tuple(k.name for k in KINDS.values() if k.baseline and estimate in k.estimates and fits(k.name))


def check_baselines(mechanisms: tuple, estimate: str, d: int, rounds: int, bound: str) -> None:
    """The key-value baselines, when asked for, only where they are planned (each reason named):
    one round, the proved bound, an estimate they give, d <= MAX_BASELINE_D (their exact errors are
    computed coordinate by coordinate)."""
    asked = [m for m in mechanisms if planner_kind(m).baseline]
    if not asked:
        return
    what = " and ".join(asked)
    if rounds != 1:
        raise ValueError(f"{what} are planned for one round: rounds must be 1 with them, got {rounds}")
    if bound != "proved":
        raise ValueError(f"{what} are planned on the proved bound only, got bound={bound!r}")
    if d > MAX_BASELINE_D:
        raise ValueError(f"d must be <= {MAX_BASELINE_D:,} with {what} (their exact errors are computed "
                         f"coordinate by coordinate), got {d:,}")
    for m in asked:
        if estimate not in planner_kind(m).estimates:
            raise ValueError(f"{m} estimates means only: use estimate 'mean', got {estimate!r}")


def check_oracles(mechanisms: tuple, estimate: str, s: int, d: int, rounds: int, bound: str) -> None:
    """OLH / OUE, k-RR and the catalogue, when asked for, only where they apply (each reason named)."""
    asked = [m for m in mechanisms if planner_kind(m).oracle]
    if not asked:
        return
    what = " and ".join(asked)
    if estimate != "frequency":
        raise ValueError(f"{what} estimate frequencies only: use estimate 'frequency', got {estimate!r}")
    if s != 1:
        raise ValueError(f"{what} take one value per user: s must be 1 with them, got s = {s}")
    if d < 2:
        raise ValueError(f"{what} need a domain of d >= 2 values, got d = {d}")
    if rounds != 1:
        raise ValueError(f"{what} are planned for one round: rounds must be 1 with them, got {rounds}")
    if bound != "proved":
        raise ValueError(f"{what} are planned on the proved bound only, got bound={bound!r}")
    for m in asked:
        check_finite_size(m, d, EPS0_MAX)


def check_cap(max_eps0) -> Optional[float]:
    if max_eps0 is None:
        return None
    if (
        isinstance(max_eps0, bool)
        or not isinstance(max_eps0, (int, float, np.floating))
        or not (math.isfinite(float(max_eps0)) and 0 < float(max_eps0) <= EPS0_MAX)
    ):
        raise ValueError(f"max_eps0 must be a number in (0, {EPS0_MAX:g}], got {max_eps0!r}")
    return float(max_eps0)


def check_release(n: int, rounds, schedule) -> tuple[int, Optional[tuple]]:
    """(T, users per round or None) from ``rounds`` / ``schedule`` (one or the other)."""
    if schedule is not None:
        if rounds not in (None, 1):
            raise ValueError("give rounds or schedule, not both")
        ns = tuple(int(getattr(r, "n", r)) for r in schedule)
        if not ns or len(ns) > MAX_ROUNDS or any(not 1 <= x <= MAX_N for x in ns):
            raise ValueError(
                f"schedule must hold 1 to {MAX_ROUNDS:,} rounds, each with 1 <= n <= {MAX_N:.0e}"
            )
        check_schedule_spread("schedule", ns)
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


def _frequency_mse(kind: Kind, n: int, d: int, eps0, t):
    """A frequency oracle's exact MSE (:func:`frequency_mse` at its rates) at eps0 and t (OLH:
    its hash range g); arrays of equal length give an array."""
    if np.ndim(eps0) == 0 and np.ndim(t) == 0:
        return frequency_mse(n, d, *kind.rates(d, float(eps0), int(t)))
    return np.array([frequency_mse(n, d, *kind.rates(d, float(e), int(x))) for e, x in zip(eps0, t)])


def oracle_t(mechanism: str, d: int, eps0: float, g: int = 0) -> int:
    """The ``t`` of a frequency-oracle candidate: OLH's hash range (``g`` when given (> 0),
    else the default rule round(e^eps0) + 1), subset selection's subset size, else d (OUE's
    report length k = d; k-RR, Hadamard response, symmetric unary encoding, local hashing
    over [d])."""
    kind = planner_kind(mechanism)
    if kind.t_rule is None:
        return kind.t_of(d, eps0)
    return int(g) if g else make_params(kind.name, eps0, k=d).t


def params_of(mechanism: str, eps0: float, s: int, t: int, d: int, n: int = 1):
    """The accountant's parameters of a candidate (the frequency oracles over the domain [d];
    OLH's hash range g = t, or the default rule when t = 0; the catalogue's matrices; a baseline's
    own accounting at ``n`` users, :func:`mechanisms.planning.central.own_params`)."""
    kind = planner_kind(mechanism)
    if kind.baseline:
        return own_params(kind.name, n, d, s)(eps0)
    if kind.matrix:
        return finite_member(kind.name, d, eps0)
    if kind.oracle:
        return make_params(kind.name, eps0, k=d, g=int(t) if kind.t_rule and t else None)
    return make_params(kind.name, eps0, s=s, t=t)


def make_candidate(mechanism, t, n, d, s, eps0, eps_c, estimate, source, bound, proved) -> Candidate:
    kind = planner_kind(mechanism)
    if kind.baseline:  # the exact errors on the default data (mechanisms.baselines), no report size
        e = errors_at(kind.name, n, d, s, float(eps0), None)
        t, bits = 0, None
        mean, nonmissing, item = e["mse_mean"], e["mse_nonmissing"], e["mse_item"]
        mean = math.nan if mean is None else mean
        nonmissing = math.nan if nonmissing is None else nonmissing
        item = math.nan if item is None else item
    elif kind.oracle:
        # one value of [d] per user: the frequency estimate's exact MSE (Wang et al. 2017);
        # k-RR and the catalogue: (p, q) of their support estimators
        t = oracle_t(kind.name, d, float(eps0), t)
        f = frequency_mse(n, d, *kind.rates(d, float(eps0), t))
        bits = kind.bits(d, float(eps0), t)
        mean, nonmissing, item = None, f, f
    else:
        m = kind.errors.mse(n, d, s, eps0, t)
        mean, nonmissing, item = float(m.mean), float(m.nonmissing), float(m.item)
        bits = kind.params(d=d, s=s, eps0=float(eps0), t=int(t)).report_bits
    return Candidate(
        mechanism=kind.name,
        t=int(t),
        eps0=float(eps0),
        eps_c=None if eps_c is None else float(eps_c),
        mse=float({"mean": mean, "frequency": nonmissing}[estimate]),
        mse_mean=mean,
        mse_nonmissing=float(nonmissing),
        mse_item=float(item),
        source=source,
        bound=bound,
        proved=proved,
        report_bits=None if bits is None else int(bits),
    )


# --------------------------------------------------------------------------- the screen
def screen_eps0(
    mechanism: str, s: int, t: int, n: int, target: float, delta: float, eps0_max: float = EPS0_MAX
) -> float:
    """Saddle-point estimate of the largest eps0 <= eps0_max whose blanket eps_c meets
    ``target`` at ``delta`` for a fixed t (NOT certified: it places the proved search);
    :func:`accountant.accounting.calibration.saddle_local_epsilon` at this t.

    OUE: ``t`` is the domain size d.  OLH: ``t`` is the hash range g and ``s`` the domain
    size d (:func:`screen` passes them so)."""
    kind = planner_kind(mechanism)
    if kind.matrix:  # no saddle-point estimate of a matrix: its proved search (cached)
        return finite_eps0(kind.name, t, n, target, delta, eps0_max, 1e-4)  # evaluate's key
    if kind.t_rule is None:  # an oracle without a t to screen: t is the domain size
        options = {"k": t}
    elif kind.oracle:  # OLH: t is the hash range, s the domain size
        options = {"k": s, "g": t}
    else:
        options = {"s": s, "t": t}
    return saddle_local_epsilon(kind.name, n, target, delta, eps0_max=eps0_max, **options)


def screen(
    mechanism: str,
    n: int,
    d: int,
    s: int,
    target: float,
    delta: float,
    estimate: str = "mean",
    eps0_max: float = EPS0_MAX,
    around: Optional[int] = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(t, eps0, mse) of the screen over the admissible t, sorted by t.

    A geometric grid (ratio ``SCREEN_RATIO``) from the smallest admissible t (or from
    ``around / 8`` when a previous best is known) until ``SCREEN_PAST_MIN`` points past the
    running minimum of the MSE with the MSE at least 1.2 times that minimum, then
    ``SCREEN_REFINE`` points between the minimum's neighbours; the best t over *every*
    admissible integer between them uses eps0 interpolated in log t (and is then evaluated).

    OLH: the hash range g is screened as Collision's t (from g = 2; the domain is [d]; the
    MSE is the exact frequency MSE).  OUE has no t to screen: one point, the screen's eps0
    over the domain [d] (t = d)."""
    kind = planner_kind(mechanism)
    rule = kind.t_rule
    if kind.baseline:  # no t: the least error on a grid of eps0 up to the top (an estimate)
        grid = np.geomspace(eps0_max / 200.0, eps0_max, BASELINE_SCREEN_POINTS)
        ms = [make_candidate(kind.name, 0, n, d, s, e, None, estimate, "screen", "screen", False).mse for e in grid]
        k = int(np.nanargmin(ms))
        return np.array([0], dtype=np.int64), np.array([grid[k]]), np.array([ms[k]])
    if rule is None:  # OUE, k-RR, the catalogue: no t
        e0 = screen_eps0(kind.name, s, d, n, target, delta, eps0_max)
        c = make_candidate(kind.name, 0, n, d, s, e0, None, estimate, "screen", "screen", False)
        return np.array([c.t], dtype=np.int64), np.array([e0]), np.array([c.mse])
    est = _ESTIMATOR_FIELD[estimate]
    lo_t, top, step = rule.smallest(s), rule.top, rule.step
    cache: dict[int, float] = {}

    def e0_at(t: int) -> float:
        if t not in cache:
            cache[t] = screen_eps0(kind.name, d if kind.oracle else s, t, n, target, delta, eps0_max)
        return cache[t]

    def mse_of(e0, t):
        if kind.errors is None:  # OLH: the frequency MSE at its g
            return _frequency_mse(kind, n, d, e0, t)
        return getattr(kind.errors.mse(n, d, s, e0, t), est)

    def mse_at(t: int) -> float:
        return float(mse_of(e0_at(t), t))

    t = lo_t if around is None else rule.nearest(s, max(lo_t, around / 8))
    ts, ms = [], []
    while True:
        ts.append(t)
        ms.append(mse_at(t))
        k = int(np.argmin(ms))
        if (len(ts) - 1 - k >= SCREEN_PAST_MIN and ms[-1] >= 1.2 * ms[k]) or t >= top:
            break
        t = max(rule.nearest(s, t * SCREEN_RATIO), t + step)
        t = min(t, top)
    k = int(np.argmin(ms))
    if k == 0 and around is not None and ts[0] > lo_t:  # the minimum may lie below the grid
        return screen(mechanism, n, d, s, target, delta, estimate, eps0_max, around=None)
    a, b = ts[max(k - 1, 0)], ts[min(k + 1, len(ts) - 1)]
    for x in np.geomspace(a, b, SCREEN_REFINE + 2)[1:-1]:
        tt = rule.nearest(s, x)
        if tt not in ts:
            ts.append(tt)
            ms.append(mse_at(tt))
    order = np.argsort(ts)
    tsa = np.asarray(ts, dtype=np.int64)[order]
    inside = tsa[(tsa >= a) & (tsa <= b)]
    allt = np.arange(a, b + 1, step, dtype=np.int64)
    most = 20_000 if kind.errors else 2_000  # (an oracle's MSE is not vectorised)
    if allt.size > most:
        allt = np.unique(
            np.concatenate([(np.geomspace(a, b, most) // step * step).astype(np.int64), inside])
        )
        allt = allt[(allt >= a) & (allt <= b)]
    e_in = np.interp(np.log(allt), np.log(inside.astype(float)), [cache[int(x)] for x in inside])
    m_all = np.asarray(mse_of(e_in, allt), dtype=float)
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
    eps0_max: float = EPS0_MAX,
    guess: Optional[float] = None,
) -> Candidate:
    """Largest eps0 <= eps0_max with eps_c(eps0, t) <= target_eps at delta, and the MSEs there.

    ``bound="proved"`` (default): the smallest proved upper bound as the forward command
    certifies it (``accountant.bounds.registry.certified_epsilon``); ``bound="paper"`` (alias ``"tight"``):
    the paper's Theorem 5 value, not proved (docs/proved.md, Findings).  ``guess`` (e.g. the
    screen's eps0) only places the proved search.

    OLH / OUE (``estimate="frequency"``, s = 1, proved bound only): the domain is [d]; OLH's
    hash range is g = ``t`` (t > 0) or, with t = 0, round(e^eps0) + 1 at each eps0 tried;
    OUE ignores ``t``."""
    kind = planner_kind(mechanism)
    mechanism = kind.name
    if kind.baseline:  # the equal-central comparison's search (one implementation); None: infeasible
        if bound != "proved":
            raise ValueError(f"{mechanism} is planned on the proved bound only, got bound={bound!r}")
        e0, params, _, _ = own_eps0(mechanism, n, d, s, target_eps, delta, eps0_max, rtol)
        if e0 is None:
            return None
        eps_c, name = _reported(certified_epsilon(params, n, delta), e0)
        return make_candidate(mechanism, 0, n, d, s, e0, eps_c, estimate, source, name, True)
    if kind.oracle:
        if bound != "proved":
            raise ValueError(f"{mechanism} is planned on the proved bound only, got bound={bound!r}")
        g = int(t) if kind.t_rule and t else None
        e0 = _oracle_eps0(kind, g, n, d, target_eps, delta, rtol, eps0_max, guess)
        if not finite_fits(mechanism, d, e0):  # eps0 = target (post-processing), no matrix
            res = None
        else:
            res = certified_epsilon(params_of(mechanism, e0, s, g or 0, d), n, delta)
        eps_c, name = _reported(res, e0)
        return make_candidate(mechanism, g or 0, n, d, s, e0, eps_c, estimate, source, name, True)
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
    if bound == "proved":  # the number the forward command prints (the one local_epsilon inverts)
        res = certified_epsilon(params, n, delta)
        proved = True
    else:
        res = compute_params_bound(bound, params, n, delta, 1e-7)
        proved = False
    eps_c, name = _reported(res, e0)
    return make_candidate(mechanism, t, n, d, s, e0, eps_c, estimate, source, name, proved)


def _oracle_eps0(kind: Kind, g, n, d, target_eps, delta, rtol, eps0_max, guess) -> float:
    """A frequency oracle's largest eps0 on the proved bound over [d]: a matrix's own search,
    else the accountant's (OLH at hash range ``g``, validated first; None: its rule)."""
    if kind.matrix:
        return finite_eps0(kind.name, d, n, target_eps, delta, eps0_max, rtol)
    if g is not None:
        make_params(kind.name, 1.0, k=d, g=g)  # validates g
    return local_epsilon(n, target_eps, delta, kind.name, k=d, rtol=rtol, eps0_max=eps0_max,
                         guess=guess, g=g)


def _reported(res, e0: float) -> tuple[float, str]:
    """(eps_c, bound name) reported at eps0 = e0: the bound's, or e0 by post-processing where
    it gives none or a larger one."""
    if res is None or res.epsilon is None:
        return e0, "post-processing"
    return min(res.epsilon, e0), res.name
