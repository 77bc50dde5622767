"""Every mechanism of the paper at one proved central guarantee: for a target (eps, delta) of
the shuffled release of ``n`` users with ``d``-dimensional, ``s``-sparse data, each mechanism's
largest local eps0 whose *proved* eps_c meets the target, and its exact errors there.

A comparison at equal central guarantee is fair only if each mechanism is accounted by its own
proved bound: Collision and CoCo by their exact blanket (the registry's headline bound), a
baseline by its registered bound (PCKV, PrivKV: the blanket of their own randomizer), SUCCINCT by
the Laplace randomizer's blanket at its exact local parameter eps0 min(s, eta) / eta
(:meth:`mechanisms.baselines.Succinct.ldp_epsilon`: the Laplace noise is calibrated to 2 eta while
the centres span 2 min(s, eta); the proof: docs/proved.md, "SUCCINCT"), and otherwise by the generic eps0-LDP bound (it holds for every
eps0-LDP randomizer), which the row names.  Beside it every
row gives the generic bound's eps0 and errors (what exact accounting is worth per mechanism)
and the paper's rule of thumb, eps0 = eps sqrt(n / ln(1/delta)) (its Section 8.2.5: "the local
privacy budget approximately scales with" that, constant 1 here), with the eps_c proved at that
eps0: the rule is not a bound and its eps0 may not meet the target.

Every eps0 reported is an inverse of :func:`accountant.bounds.registry.certified_epsilon` (the
number ``python -m accountant epsilon`` prints): its eps_c, in the row, is at most the target.
The errors are the exact formulas (:func:`mechanisms.analysis.errors.analytic_errors` for
Collision and CoCo at the registry's default output size t, the baselines' ``analytic_mse`` on
the default data: every key held by s/d of the users, half of them with value +1).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Optional

from accountant.accounting.calibration import local_epsilon, local_epsilon_family
from accountant.bounds.registry import certified_epsilon
from accountant.core import limits as L
from accountant.core.params import MECHANISM_SPECS, make_params, validate_delta
from mechanisms.analysis.errors import analytic_errors
from mechanisms.baselines import BASELINES, default_analytic_mse
from mechanisms.planning.kinds import KINDS

#: the mechanisms of the paper's comparison, in its order: the planner's sparse-vector kinds
#: (its error formulas: Collision, CoCo), then the baselines
COMPARED = tuple(name for name, kind in KINDS.items() if kind.errors is not None) + tuple(BASELINES)
#: the largest eps0 the searches consider
EPS0_MAX = 20.0
#: the searches' relative tolerance on eps0 (each answer is checked on the proved bound)
RTOL = 1e-6
#: the error columns of a row
ERRORS = ("mse_mean", "mse_nonmissing", "mse_item")


@dataclass(frozen=True)
class CentralRow:
    """One mechanism at the target: ``eps0`` (largest on its own proved bound, None when none up
    to EPS0_MAX meets it), ``epsilon`` the certified eps_c there and ``bound`` the bound that
    proved it (``own`` True: the mechanism's registered bound; False: the generic eps0-LDP
    bound), ``t`` its output size (Collision, CoCo), its errors there; ``generic_*`` the same at
    the generic bound's eps0; ``rule_eps0`` the paper's rule of thumb and ``rule_epsilon`` the
    eps_c proved at it (by the mechanism's own bound), ``rule_*`` the errors there."""

    mechanism: str
    eps0: Optional[float]
    epsilon: Optional[float]
    bound: str
    own: bool
    t: Optional[int]
    mse_mean: Optional[float]
    mse_nonmissing: Optional[float]
    mse_item: Optional[float]
    generic_eps0: Optional[float]
    generic_mse_mean: Optional[float]
    generic_mse_nonmissing: Optional[float]
    generic_mse_item: Optional[float]
    rule_eps0: float
    rule_epsilon: Optional[float]
    rule_mse_mean: Optional[float]
    note: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def own_params(mechanism: str, n: int, d: int, s: int):
    """``eps0 -> parameters`` of the mechanism's own accounting at ``n`` users: its registry entry,
    SUCCINCT as the Laplace randomizer at its exact local parameter (its clipping range eta depends
    on n; docs/proved.md, "SUCCINCT"), or None where there is neither (the generic eps0-LDP bound
    then accounts for it at eps0)."""
    if mechanism == "succinct":
        return lambda e0: make_params("laplace", BASELINES["succinct"](d, s, e0, n_users=n).ldp_epsilon())
    spec = MECHANISM_SPECS.get(mechanism)
    if spec is None:
        return None
    options = {k: v for k, v in (("d", d), ("s", s)) if k in spec.options}
    return lambda e0: make_params(mechanism, e0, **options)


def errors_at(mechanism: str, n: int, d: int, s: int, eps0: Optional[float], t: Optional[int]) -> dict:
    """The exact errors at eps0 (None values where there is no eps0, no formula, or the formula
    refuses it: Collision's t beyond its range at a large eps0)."""
    if eps0 is None:
        return dict.fromkeys(ERRORS)
    try:
        if mechanism in BASELINES:
            a = default_analytic_mse(mechanism, n, d, s, eps0)
        else:
            a = analytic_errors(mechanism, n, d, s, eps0, t)
    except (ValueError, NotImplementedError):
        return dict.fromkeys(ERRORS)
    return {k: (float(a[k]) if a.get(k) is not None and math.isfinite(a[k]) else None) for k in ERRORS}


def _check(n, d, s, epsilon, delta, mechanisms) -> tuple:
    for name, v, lo in (("n", n, 1), ("d", d, 1), ("s", s, 1)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
    if s > d:
        raise ValueError(f"s must be <= d = {d}, got {s}")
    if not (isinstance(epsilon, (int, float)) and math.isfinite(epsilon) and epsilon > 0):
        raise ValueError(f"epsilon (the central target) must be a finite number > 0, got {epsilon!r}")
    delta = validate_delta(delta)
    mechanisms = COMPARED if mechanisms is None else tuple(mechanisms)
    bad = [m for m in mechanisms if m not in COMPARED]
    if bad or not mechanisms:
        raise ValueError(f"mechanisms must be among {', '.join(COMPARED)}, got {', '.join(bad) or 'none'}")
    if d > L.MAX_BASELINE_D and any(m in BASELINES for m in mechanisms):
        raise ValueError(f"d must be <= {L.MAX_BASELINE_D:,} with a baseline (its exact errors are computed "
                         f"coordinate by coordinate), got {d:,}: compare collision and coco alone")
    return float(epsilon), delta, mechanisms


def central_comparison(n: int, d: int, s: int, epsilon: float, delta: float,
                       mechanisms=None) -> list[CentralRow]:
    """One :class:`CentralRow` per mechanism (default :data:`COMPARED`) at the central target
    (``epsilon``, ``delta``) for ``n`` shuffled users with ``s``-sparse data over ``d``
    coordinates.

    Examples
    --------
    >>> from mechanisms.planning.central import central_comparison
    >>> row = central_comparison(10_000, 64, 4, 1.0, 1e-6, mechanisms=["collision"])[0]
    >>> row.own, row.epsilon <= 1.0, row.eps0 > row.generic_eps0
    (True, True, True)
    """
    epsilon, delta, mechanisms = _check(n, d, s, epsilon, delta, mechanisms)
    generic = local_epsilon(n, epsilon, delta, "generic", rtol=RTOL, eps0_max=EPS0_MAX)
    rule = epsilon * math.sqrt(n / math.log(1.0 / delta))
    return [_row(m, n, d, s, epsilon, delta, generic, rule) for m in mechanisms]


def own_eps0(mechanism: str, n: int, d: int, s: int, epsilon: float, delta: float,
             eps0_max: float = EPS0_MAX, rtol: float = RTOL) -> tuple:
    """``(eps0, params, own, note)``: the mechanism's largest eps0 <= eps0_max whose certified eps_c
    (of ``params``, the accountant's parameters at it) meets (epsilon, delta) on its own accounting
    (:func:`own_params`; ``own`` False: the generic eps0-LDP bound, as ``note`` says); eps0 and
    params None where no eps0 meets it.  The one search of the comparison and of the planner's
    baseline candidates."""
    build = own_params(mechanism, n, d, s)
    note = ""
    if build is None:
        eps0 = local_epsilon(n, epsilon, delta, "generic", rtol=rtol, eps0_max=eps0_max)
        note = "no bound of its own is registered: the generic eps0-LDP bound accounts for it"
        return eps0, None if eps0 is None else make_params("generic", eps0), False, note
    if mechanism in MECHANISM_SPECS and MECHANISM_SPECS[mechanism].hashed:  # the t rule's saw-tooth: local_epsilon walks t
        eps0 = local_epsilon(n, epsilon, delta, mechanism, s=s, rtol=rtol, eps0_max=eps0_max)
    else:
        eps0 = local_epsilon_family(build, n, epsilon, delta, rtol=rtol, eps0_max=eps0_max)
    if mechanism == "succinct":
        note = ("SUCCINCT is accounted as the Laplace randomizer at its exact local parameter "
                "eps0 min(s, eta) / eta (its noise is calibrated to 2 eta, its centres span 2 min(s, eta))")
    return eps0, None if eps0 is None else build(eps0), True, note


def _row(mechanism, n, d, s, epsilon, delta, generic, rule) -> CentralRow:
    build = own_params(mechanism, n, d, s)
    if build is None:  # the generic bound's eps0, already searched
        eps0, own = generic, False
        note = "no bound of its own is registered: the generic eps0-LDP bound accounts for it"
        params = None if eps0 is None else make_params("generic", eps0)
    else:
        eps0, params, own, note = own_eps0(mechanism, n, d, s, epsilon, delta)
    if eps0 is None:
        note = f"no eps0 <= {EPS0_MAX:g} meets the target"
    at = None if params is None else certified_epsilon(params, n, delta)
    t = getattr(params, "t", None)
    rule_params = (build or (lambda e0: make_params("generic", e0)))(min(rule, EPS0_MAX))
    rule_eps = certified_epsilon(rule_params, n, delta).epsilon
    mine = errors_at(mechanism, n, d, s, eps0, t)
    gen = errors_at(mechanism, n, d, s, generic, None)
    rule_err = errors_at(mechanism, n, d, s, min(rule, EPS0_MAX), getattr(rule_params, "t", None))
    return CentralRow(mechanism, eps0, None if at is None else at.epsilon, "" if at is None else at.name, own, t,
                      mine["mse_mean"], mine["mse_nonmissing"], mine["mse_item"], generic,
                      gen["mse_mean"], gen["mse_nonmissing"], gen["mse_item"], rule, rule_eps,
                      rule_err["mse_mean"], note)


#: the columns of :func:`render_central`'s CSV and Markdown tables
CENTRAL_COLUMNS = ("mechanism", "eps0", "epsilon", "bound", "own", "t", *ERRORS, "generic_eps0",
                   "generic_mse_mean", "generic_mse_nonmissing", "generic_mse_item", "rule_eps0",
                   "rule_epsilon", "rule_mse_mean", "note")
# directed rounding of a printed cell: an eps0 down (a smaller eps0 still meets the target), a
# proved eps_c up, an error up (the printed error is not smaller than the exact one)
_DOWN = ("eps0", "generic_eps0")


def cell_text(key: str, v) -> str:
    from accountant.core.numfmt import fmt

    if v is None:
        return "n/a"
    if isinstance(v, bool) or isinstance(v, (int, str)):
        return str(v)
    if key == "rule_eps0":
        return fmt(v, 4)
    return fmt(v, 6 if "eps" in key else 4, "down" if key in _DOWN else "up")


def render_central(rows: list, params: dict, fmt: str) -> str:
    """The comparison as ``"csv"`` (full-precision numbers), ``"md"`` (directed rounding, the
    parameters in the title) or ``"json"`` (``{"parameters", "rows"}``)."""
    import csv
    import io
    import json

    dicts = [r.to_dict() for r in rows]
    if fmt == "json":
        return json.dumps({"parameters": params, "rows": dicts}, indent=2) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(CENTRAL_COLUMNS)
        for r in dicts:
            w.writerow(["" if r[k] is None else (repr(r[k]) if isinstance(r[k], float) else r[k])
                        for k in CENTRAL_COLUMNS])
        return buf.getvalue()
    if fmt != "md":
        raise ValueError(f"fmt must be 'csv', 'md' or 'json', got {fmt!r}")
    head = ", ".join(f"{k} = {v}" for k, v in params.items())
    lines = [f"# Mechanisms at one proved central guarantee ({head})", "",
             "| " + " | ".join(CENTRAL_COLUMNS) + " |", "|" + "---|" * len(CENTRAL_COLUMNS)]
    lines += ["| " + " | ".join(cell_text(k, r[k]) for k in CENTRAL_COLUMNS) + " |" for r in dicts]
    return "\n".join(lines) + "\n"


def describe_central(rows: list, params: dict) -> str:
    """The comparison as console text: one line per mechanism, best mean-estimation error first."""
    head = (f"central target eps = {params['epsilon']:g}, delta = {params['delta']:g}: n = {params['n']:,}, "
            f"d = {params['d']}, s = {params['s']} (MSE: sum over coordinates, mean estimation)")
    order = sorted(rows, key=lambda r: math.inf if r.mse_mean is None else r.mse_mean)
    out = [head, f"{'mechanism':<10} {'eps0':>9} {'eps_c':>9} {'bound':<22} {'MSE mean':>10} "
                 f"{'generic eps0':>12} {'MSE there':>10}"]
    for r in order:
        bound = (r.bound if r.own else f"{r.bound} (generic)") if r.bound else "n/a"
        out.append(f"{r.mechanism:<10} {cell_text('eps0', r.eps0):>9} {cell_text('epsilon', r.epsilon):>9} {bound:<22} "
                   f"{cell_text('mse_mean', r.mse_mean):>10} {cell_text('generic_eps0', r.generic_eps0):>12} "
                   f"{cell_text('generic_mse_mean', r.generic_mse_mean):>10}")
    notes = sorted({r.note for r in rows if r.note})
    rule = rows[0].rule_eps0 if rows else None
    if rule is not None:
        out.append(f"the paper's rule of thumb eps0 = eps sqrt(n / ln(1/delta)) = {cell_text('rule_eps0', rule)} "
                   "(not a bound; rule_epsilon in --json is the eps_c proved there)")
    out += [f"note: {m}" for m in notes]
    return "\n".join(out)
