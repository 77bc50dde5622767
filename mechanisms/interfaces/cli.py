"""Command line: ``python -m mechanisms {simulate, error, compare, fe-table, plan}``.

Thin layer over :mod:`mechanisms.evaluation.simulate` and :mod:`mechanisms.analysis`: parse,
call, print.  Invalid parameters print one line on stderr and exit with status 2.

Examples
--------
    python -m mechanisms simulate --mechanism coco --n 100000 --d 256 --s 8 --eps0 1 --json
    python -m mechanisms error --mechanism collision --n 100000 --d 256 --s 8 --eps0 1
    python -m mechanisms compare --n 100000 --d 256 --s 4,8,16,32 --eps0 0.1,0.5,1,2 --out t.md
    python -m mechanisms simulate --mechanism fe1 --n 1000000 --B 100000 --eps 1 --rho exact --json
    python -m mechanisms fe-table --n 10000,1000000 --B 100,100000 --eps 0.5,1,3 --out fe.md
    python -m mechanisms plan --n 100000 --d 128 --s 8 --eps 0.5 --delta 1e-6 --max-eps0 3
"""
from __future__ import annotations

import argparse
import os
import sys

from accountant.interfaces import cli_help
from accountant.core import limits as L
from accountant.interfaces.fileio import write_atomic
from accountant.interfaces.jsonout import dumps
from accountant.core.limits import float_arg, int_arg
from accountant.interfaces.progress import ProgressBar

from mechanisms.analysis.errors import HASHED, analytic_errors
from mechanisms.frequency.experiments import (
    DATA_KINDS,
    TABLE_COLUMNS,
    frequency_table,
    render_frequency_table,
    simulate_frequency,
)
from mechanisms.evaluation.simulate import (
    ALL_NAMES,
    COMPARE_COLUMNS,
    POSTPROCESS,
    MechanismUnavailableError,
    jsonable,
    compare,
    render_compare,
    simulate,
)

EXIT_USAGE = 2


class _OneLineParser(argparse.ArgumentParser):
    """ArgumentParser whose errors are a single stderr line and exit status 2."""

    def error(self, message: str):  # noqa: D401 - argparse API
        sys.stderr.write(f"error: {L.short_message(message)}\n")
        raise SystemExit(EXIT_USAGE)

    def _check_value(self, action, value):  # a long rejected choice is cut, not echoed whole
        L.check_choice(action, value)


def _list(name: str, what: str, check):
    """An argparse type: a comma-separated list of 1 to ``L.MAX_LIST`` values, each checked by
    ``check(value)`` (a ``ValueError`` naming ``name`` becomes the usage error)."""
    def parse(text: str) -> list:
        vals = [v for v in text.split(",") if v.strip() != ""]
        if not 1 <= len(vals) <= L.MAX_LIST:
            raise argparse.ArgumentTypeError(
                f"{name} must be a comma-separated list of 1 to {L.MAX_LIST} {what}, got {text!r}")
        try:
            return [check(v) for v in vals]
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return parse


def _int_list(name: str, lo: int = 1, hi: int = L.MAX_SIM_CELLS):
    return _list(name, "integers", lambda v: L.check_int(name, v, lo, hi))


def _float_list(name: str, lo: float = 0.0, hi: float = L.EPS_MAX):
    if name == "--eps0":  # the one eps0 range (accountant.core.limits.check_eps0)
        return _list(name, "numbers", lambda v: L.check_eps0(v, name))
    return _list(name, "numbers", lambda v: L.check_float(name, v, lo, hi, lo_open=True))


N_SIM = int_arg("--n", 1, L.MAX_SIM_USERS)
D_ARG = int_arg("--d", 1, L.MAX_SIM_DOMAIN)
S_ARG = int_arg("--s", 1, L.MAX_SIM_CELLS)
T_ARG = int_arg("--t", 2, 2**31 - 1)
EPS0_ARG = L.eps0_arg()
EPS_ARG = float_arg("--eps", 0.0, L.EPS_MAX, lo_open=True)
BETA_ARG = float_arg("--beta", 0.0, 1.0, lo_open=True, hi_open=True)
REPS_ARG = int_arg("--reps", 1, L.MAX_REPS)
SEED_ARG = int_arg("--seed", 0, 2**63 - 1)


# (command, example) -- the five most common: printed when no command is given
COMMON = (
    ("simulate", "simulate --mechanism coco --n 100000 --d 256 --s 8 --eps0 1"),
    ("error", "error --mechanism collision --n 100000 --d 256 --s 8 --eps0 1"),
    ("compare", "compare --n 10000 --d 64 --s 4,8 --eps0 0.5,2 --out t.md"),
    ("plan", "plan --n 100000 --d 128 --s 8 --eps 0.5 --delta 1e-6"),
    ("fe-table", "fe-table --n 10000 --B 100,1000 --eps 1,3 --reps 2 --out fe.md"),
)
EXAMPLES = {
    "simulate": ("simulate --mechanism coco --n 100000 --d 256 --s 8 --eps0 1",
                 "simulate --mechanism collision --n 100000 --d 256 --s 8 --eps0 1 --reps 5 --json",
                 "simulate --mechanism fe0 --n 100000 --B 100 --eps 1 --rho paper"),
    "error": ("error --mechanism collision --n 100000 --d 256 --s 8 --eps0 1",
              "error --mechanism coco --n 100000 --d 128 --s 8 --eps0 0.5 --json"),
    "compare": ("compare --n 10000 --d 64 --s 4,8 --eps0 0.5,2 --out t.md",
                "compare --n 10000 --d 64 --s 4,8 --eps0 0.5,2 --reps 3 --out t.csv --json"),
    "fe-table": ("fe-table --n 10000 --B 100,1000 --eps 1,3 --reps 2 --out fe.md",
                 "fe-table --n 10000 --B 100 --eps 0.5,1 --out fe.csv --json"),
    "central": ("central --n 10000 --d 64 --s 4 --eps 1 --delta 1e-6 --mechanisms collision,pckv-grr",
                "central --n 10000 --d 64 --s 4 --eps 1 --delta 1e-6 --out central.md --json"),
    "plan": ("plan --n 100000 --d 128 --s 8 --eps 0.5 --delta 1e-6 --max-eps0 3 --json",
             "plan --d 128 --s 8 --eps 1 --delta 1e-6 --schedule rounds.json",
             "plan --n 100000 --d 64 --s 1 --eps 0.5 --delta 1e-6 --estimate frequency"),
}
ACCOUNTING_NOTE = ("the privacy accounting of the shuffled reports is `shuffle-dp` (python -m "
                   "accountant): its default mechanism is the generic eps0-LDP randomizer and its "
                   "default bound the smallest proved upper bound.")
DEFAULTS_NOTE = "--mechanism has no default here (each is named); " + ACCOUNTING_NOTE
NOTES = {"plan": "The --schedule file has the format of 'python -m accountant compose --schedule' "
                 "(a JSON list of rounds {n, eps0, ..., repeat?}); the rounds' n and repeat are used, "
                 "the plan chooses the per-round mechanism, t and eps0.  Every epsilon printed is a "
                 "proved upper bound.  --mechanisms has the default its help gives; "
                 + ACCOUNTING_NOTE}


def no_command_text() -> str:
    """Usage and the five most common commands (``python -m mechanisms`` alone)."""
    return cli_help.no_command_text(build_parser(plan_options=False), COMMON, DEFAULTS_NOTE)


def build_parser(plan_options: bool = True) -> argparse.ArgumentParser:
    """The parser of every command; ``plan_options=False`` registers ``plan`` by its name and help
    alone (its options are built from the planner's table of kinds, which imports the planner and
    its engines: :func:`main` builds them only when ``plan`` is on the command line)."""
    p = _OneLineParser(prog=cli_help.prog_name("mechanisms"),
                       description="Collision / CoCo mechanisms: simulation, exact errors, "
                                   "comparison tables (Wang et al.).")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_OneLineParser)

    sim = sub.add_parser("simulate", help="Monte-Carlo errors of one mechanism")
    sim.add_argument("--mechanism", required=True, choices=ALL_NAMES + FE_NAMES,
                     help="collision or coco (the paper's), a baseline, or fe0/fe1 (frequency "
                          "estimation, Luo, Wang, Yi)")
    sim.add_argument("--n", required=True, type=N_SIM,
                     help=f"number of users, in [1, {L.MAX_SIM_USERS:,}]")
    g = sim.add_argument_group("sparse vectors (collision, coco, baselines)")
    g.add_argument("--d", type=D_ARG, default=None,
                   help="dimension d: each user holds an s-sparse vector over d items")
    g.add_argument("--s", type=S_ARG, default=None,
                   help="sparsity s <= d: the number of nonzero items per user")
    g.add_argument("--eps0", type=EPS0_ARG, default=None, help="local budget eps0 of each report")
    g.add_argument("--t", type=T_ARG, default=None, help="output domain size (collision/coco)")
    g.add_argument("--postprocess", choices=POSTPROCESS, default=None,
                   help="'none' (default, unbiased estimates) or 'simplex' (projected onto the "
                        "probability simplex)")
    f = sim.add_argument_group("frequency estimation (fe0, fe1; Luo, Wang, Yi)")
    f.add_argument("--B", type=int_arg("--B", 2, L.MAX_SIM_DOMAIN), default=None, help="domain size")
    f.add_argument("--eps", type=EPS_ARG, default=None, help="central epsilon")
    f.add_argument("--delta", type=L.delta_arg(), default=None, help="central delta (default 1/n^2)")
    f.add_argument("--rho", type=_rho, default=None,
                   help="blanket messages per user: 'exact' (default), 'paper' or a number")
    f.add_argument("--b", type=int_arg("--b", 2, 2**31 - 1), default=None, help="hash range of fe1 (default n/ln n)")
    f.add_argument("--q", type=int_arg("--q", 3, 2**31 - 1), default=None, help="prime >= B of fe1 (default smallest)")
    f.add_argument("--data", choices=DATA_KINDS, default=None,
                   help="synthetic values: zipf (default) or uniform over [B]")
    f.add_argument("--beta", type=BETA_ARG, default=None,
                   help="failure probability of the reported accuracy bound (default 0.1)")
    sim.add_argument("--reps", type=REPS_ARG, default=1, help="Monte-Carlo repetitions (default 1)")
    sim.add_argument("--seed", type=SEED_ARG, default=0, help="random seed (default 0)")
    sim.add_argument("--json", action="store_true", help="print one JSON object")

    err = sub.add_parser("error", help="exact analytic errors of collision / coco")
    err.add_argument("--mechanism", required=True, choices=tuple(HASHED), help=" or ".join(HASHED))
    err.add_argument("--n", required=True, type=int_arg("--n", 1, 10**15), help="number of users")
    err.add_argument("--d", required=True, type=int_arg("--d", 1, 2**31 - 1),
                     help="dimension d: each user holds an s-sparse vector over d items")
    err.add_argument("--s", required=True, type=S_ARG,
                     help="sparsity s <= d: the number of nonzero items per user")
    err.add_argument("--eps0", required=True, type=EPS0_ARG, help="local budget eps0 of each report")
    err.add_argument("--t", type=T_ARG, default=None,
                     help="output domain size t (default: the paper's t* for collision, Theorem 7 for coco)")
    err.add_argument("--json", action="store_true", help="print one JSON object")

    cmp_ = sub.add_parser("compare", help="table of log10 errors (Figures 6 and 12)")
    cmp_.add_argument("--n", required=True, type=N_SIM, help="number of users")
    cmp_.add_argument("--d", required=True, type=D_ARG,
                      help="dimension d: each user holds an s-sparse vector over d items")
    cmp_.add_argument("--s", required=True, type=_int_list("--s"),
                      help="comma-separated sparsities s <= d, e.g. 4,8,16")
    cmp_.add_argument("--eps0", required=True, type=_float_list("--eps0"),
                      help="comma-separated local budgets eps0, e.g. 0.5,1,2")
    cmp_.add_argument("--reps", type=REPS_ARG, default=1, help="Monte-Carlo repetitions per cell (default 1)")
    cmp_.add_argument("--seed", type=SEED_ARG, default=0, help="random seed (default 0)")
    cmp_.add_argument("--postprocess", choices=POSTPROCESS, default="none",
                      help="'none' (default, unbiased estimates) or 'simplex'")
    cmp_.add_argument("--out", required=True, help="output file: .csv, .md or .json")

    cen = sub.add_parser("central", help="every mechanism at one proved central (eps, delta): its eps0 and errors")
    cen.add_argument("--n", required=True, type=int_arg("--n", 1, L.MAX_N), help="number of users")
    cen.add_argument("--d", required=True, type=D_ARG,
                     help="dimension d: each user holds an s-sparse vector over d items")
    cen.add_argument("--s", required=True, type=S_ARG, help="sparsity s <= d: the number of nonzero items per user")
    cen.add_argument("--eps", required=True, type=float_arg("--eps", 0.0, 30.0, lo_open=True),
                     help="target central epsilon of the shuffled release, in (0, 30]")
    cen.add_argument("--delta", required=True, type=float_arg("--delta", 0.0, 1.0, lo_open=True, hi_open=True),
                     help="target delta, in (0, 1)")
    cen.add_argument("--mechanisms", default=None,
                     help="comma-separated subset of collision, coco, privkv, pckv-ue, pckv-grr, pckv-agrr, "
                          "succinct (default: all)")
    cen.add_argument("--out", default=None, help="also write the table: .csv, .md or .json")
    cen.add_argument("--json", action="store_true", help="print one JSON object (parameters, rows)")

    fet = sub.add_parser("fe-table", help="FE0/FE1: messages and max error, paper's vs exact rho")
    fet.add_argument("--n", required=True, type=_int_list("--n", 2, L.MAX_SIM_USERS),
                     help="comma-separated numbers of users, e.g. 10000,1000000")
    fet.add_argument("--B", required=True, type=_int_list("--B", 2, L.MAX_SIM_DOMAIN),
                     help="comma-separated domain sizes B, e.g. 100,100000")
    fet.add_argument("--eps", required=True, type=_float_list("--eps"),
                     help="comma-separated central epsilons, e.g. 0.5,1,3")
    fet.add_argument("--reps", type=REPS_ARG, default=5, help="Monte-Carlo repetitions per cell (default 5)")
    fet.add_argument("--seed", type=SEED_ARG, default=0, help="random seed (default 0)")
    fet.add_argument("--beta", type=BETA_ARG, default=0.1,
                     help="failure probability of the reported accuracy bound (default 0.1)")
    fet.add_argument("--data", choices=DATA_KINDS, default="zipf",
                     help="synthetic values: zipf (default) or uniform over [B]")
    fet.add_argument("--out", required=True, help="output file: .csv, .md or .json")
    for w in (cmp_, fet):
        w.add_argument("--json", action="store_true",
                       help="print a JSON summary of what was written (path, format, rows, "
                            "columns, parameters)")
    _add_plan_parser(sub, plan_options)
    cli_help.add_help_examples(p, sub, COMMON, EXAMPLES, DEFAULTS_NOTE, NOTES)
    return p


def _add_plan_parser(sub, options: bool = True) -> None:
    pl = sub.add_parser("plan", help="mechanism, t and eps0 with the smallest error for a target (eps, delta)",
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    if not options:
        return
    from mechanisms.planning.screen import DELTA_MIN, MAX_ROUNDS

    pl.add_argument("--n", type=int_arg("--n", 1, L.MAX_N), default=None,
                    help="users (per round; not with --schedule)")
    pl.add_argument("--d", required=True, type=int_arg("--d", 1, 2**31 - 1),
                    help="dimension d: each user holds an s-sparse vector over d items (the "
                         "domain size [d] with --estimate frequency --s 1)")
    pl.add_argument("--s", required=True, type=int_arg("--s", 1, 2**31 - 1),
                    help="sparsity s in [1, d]: the number of nonzero items per user (1: one "
                         "value per user)")
    pl.add_argument("--eps", required=True, type=float_arg("--eps", 0.0, 20.0, lo_open=True),
                    help="target central epsilon of the whole release")
    pl.add_argument("--delta", required=True,
                    type=float_arg("--delta", DELTA_MIN, 1.0, lo_open=False, hi_open=True),
                    help=f"target central delta, in [{DELTA_MIN:g}, 1)")
    pl.add_argument("--estimate", choices=("mean", "frequency"), default="mean",
                    help="what the error is measured on: 'mean' (default, the mean vector) or "
                         "'frequency' (item frequencies)")
    pl.add_argument("--mechanisms", type=_mechanism_list, default=None, help=_mechanisms_help())
    g = pl.add_mutually_exclusive_group()
    g.add_argument("--rounds", type=int_arg("--rounds", 1, MAX_ROUNDS), default=None,
                   help="T identical rounds; the target is for their composition")
    g.add_argument("--schedule", default=None, help="JSON schedule file (see below)")
    pl.add_argument("--max-eps0", dest="max_eps0", type=float_arg("--max-eps0", 0.0, 20.0, lo_open=True),
                    default=None, help="local-protection cap on eps0 (per round)")
    pl.add_argument("--sensitivity", action="store_true", help="also plan for n/2 and 2n")
    pl.add_argument("--json", action="store_true", help="print one JSON object")


def _mechanisms_help() -> str:
    """``--mechanisms``' help, from the planner's table of kinds."""
    from mechanisms.planning.kinds import ALIASES, KINDS

    def names(**has) -> str:
        return ",".join(k.name for k in KINDS.values() if all(getattr(k, a) == v for a, v in has.items()))

    old = ", ".join(f"{alias} for {name}" for alias, name in ALIASES.items())
    return (f"comma-separated subset of {names(matrix=False)} and the catalogue {names(matrix=True)} "
            f"(default {names(default=True, oracle=False)}, and {names(default=True, oracle=True)} too "
            f"with --estimate frequency --s 1 in one round; {names(default=False, matrix=False, baseline=False)} "
            f"and the catalogue, planned as matrices, when named; the key-value baselines "
            f"{names(baseline=True)} when named, one round, on their own proved bounds (succinct: mean only); "
            f"local-hashing at g = 2; the old names ({old}) "
            f"are accepted, the output prints the new ones)")


def _mechanism_list(text: str) -> tuple:
    """The kinds named (their canonical names: an old name, as rappor, stands for its kind's)."""
    from mechanisms.planning.kinds import canonical
    from mechanisms.planning.plan import MECHANISMS

    vals = tuple(canonical(v.strip()) for v in text.split(",") if v.strip())
    if not vals or None in vals:
        raise argparse.ArgumentTypeError(
            f"--mechanisms must be a comma-separated subset of {', '.join(MECHANISMS)}, got {text!r}")
    return tuple(dict.fromkeys(vals))


def _run_plan(args) -> int:
    from accountant.interfaces.compose_cli import read_schedule

    from mechanisms.planning.screen import MAX_ROUNDS
    from mechanisms.planning.plan import InfeasiblePlan
    from mechanisms.planning.planner import plan, render_plan

    if args.schedule is None and args.n is None:
        raise ValueError("--n is required (or give --schedule FILE.json)")
    if args.schedule is not None and args.n is not None:
        raise ValueError("--schedule gives the users of each round; do not give --n with it")
    if args.s > args.d:
        raise ValueError(f"--s must be an integer in [1, --d = {args.d}], got {args.s}")
    from mechanisms.planning.kinds import planner_kind
    from mechanisms.planning.screen import check_sparsity, default_mechanisms

    # an output size t > s (coco: t >= 2s + 2), at most 2^31 - 1: for the kinds named, or the defaults
    check_sparsity(args.mechanisms or default_mechanisms("mean", args.s, args.d), args.s, "--s")
    oracles = [m for m in (args.mechanisms or ()) if planner_kind(m).oracle]
    if oracles:  # OLH, OUE, k-RR, the catalogue: one value of [d] per user, frequencies, one round
        what = ",".join(oracles)
        if args.estimate != "frequency":
            raise ValueError(f"--mechanisms {what} estimate frequencies only: add --estimate frequency")
        if args.s != 1 or args.d < 2:
            raise ValueError(f"--mechanisms {what} take one value of [d] per user: --s must be 1 and "
                             f"--d >= 2 with them, got --s {args.s} --d {args.d}")
        if args.schedule is not None or (args.rounds or 1) != 1:
            raise ValueError(f"--mechanisms {what} are planned for one round: drop --rounds/--schedule")
    schedule = read_schedule(args.schedule, MAX_ROUNDS) if args.schedule is not None else None
    try:
        p = plan(args.eps, args.delta, args.n if args.n is not None else 1, args.d, args.s,
                 args.estimate, args.mechanisms, sensitivity=args.sensitivity, rounds=args.rounds,
                 schedule=schedule, max_eps0=args.max_eps0)
    except InfeasiblePlan as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    print(dumps(jsonable(p.as_dict())) if args.json else render_plan(p))
    return 0


_FORMATS = {".csv": "csv", ".md": "md", ".json": "json"}

FE_NAMES: tuple[str, ...] = ("fe0", "fe1")
_SPARSE_ONLY = ("d", "s", "eps0", "t", "postprocess")
_FE_ONLY = ("B", "eps", "delta", "rho", "b", "q", "data", "beta")


def _rho(text: str):
    if text in ("exact", "paper"):
        return text
    try:
        return L.check_float("--rho", text, 0.0, RHO_MAX)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--rho must be 'exact', 'paper' or a number in [0, 1e6], got {text!r}") from None


RHO_MAX = 1e6


def _check_args(args, required: tuple[str, ...], foreign: tuple[str, ...], who: str):
    for name in required:
        if getattr(args, name) is None:
            raise ValueError(f"--{name} is required for --mechanism {args.mechanism}")
    for name in foreign:
        if getattr(args, name) is not None:
            raise ValueError(f"--{name} is not a parameter of {who}")


def _human_frequency(r: dict) -> str:
    extra = f" b={r['b']} q={r['q']}" if "b" in r else ""
    lines = [f"{r['mechanism']}: n={r['n']} B={r['B']}{extra} eps={r['eps']:g} delta={r['delta']:.3g} "
             f"rho={r['rho']:.6g} ({r['rho_source']}) reps={r['reps']} seed={r['seed']} "
             f"data={r['data']}"]
    lines.append(f"  messages/user     {r['messages_per_user']:.6g}  (expected "
                 f"{r['messages_per_user_expected']:.6g}, {r['bits_per_message']} bits each)")
    lines.append(f"  max abs error     {r['max_abs_error']:.6g}  (bound at beta={r['beta']:g}: "
                 f"{r['alpha']:.6g})")
    lines.append(f"  rmse              {r['rmse']:.6g}  (exact {r['rmse_exact']:.6g})")
    lines.append(f"  mean error        {r['mean_error']:.3g}")
    lines.append(f"  certified delta   {r['certified_delta']:.6g}  (paper's condition "
                 f"{'holds' if r['paper_condition'] else 'does not hold'})")
    return "\n".join(lines)


def _human_simulate(r: dict) -> str:
    t = "" if r["t"] is None else f" t={r['t']}"
    lines = [f"{r['mechanism']}: n={r['n']} d={r['d']} s={r['s']} eps0={r['eps0']:g}{t} "
             f"reps={r['reps']} seed={r['seed']} postprocess={r['postprocess']}"]
    an = r.get("analytic", {})
    label = "exact" if an.get("applies_to", "").startswith("postprocess=none; exact") else "analytic"
    for k in ("mse_mean", "mse_nonmissing", "mse_item"):
        extra = f"  ({label} {an[k]:.6g})" if k in an and r["postprocess"] == "none" else ""
        lines.append(f"  {k:<15} {r[k]:.6g}{extra}")
    for k in ("tve_freq", "mae_freq", "tve_mean", "mae_mean"):
        lines.append(f"  {k:<15} {r[k]:.6g}")
    return "\n".join(lines)


def _human_error(r: dict) -> str:
    lines = [f"{r['mechanism']}: n={r['n']} d={r['d']} s={r['s']} eps0={r['eps0']:g} "
             f"t={r['t']} ({r['t_source']})"]
    for k in ("mse_mean", "mse_nonmissing", "mse_item", "mse_mean_paper_bound"):
        if k in r:
            lines.append(f"  {k:<21} {r[k]:.6g}")
    for k in ("Pt", "Pf", "Po", "P_ow"):
        v = r[k]
        lines.append(f"  {k:<21} {'n/a' if v is None else format(v, '.6g')}")
    lines.append(f"  data model: {r['data_model']}")
    return "\n".join(lines)


def _out_format(out: str) -> str:
    ext = os.path.splitext(out)[1].lower()
    if ext not in _FORMATS:
        raise ValueError(f"--out must end in .csv, .md or .json, got {out!r}")
    L.check_output_writable(out)
    return ext


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (0 ok, 2 bad input, 1 failure, 130 interrupted).

    Errors are one line on stderr, never a traceback (:func:`accountant.core.limits.guarded`).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        sys.stderr.write(no_command_text() + "\n")
        return EXIT_USAGE
    try:
        args = build_parser(plan_options="plan" in argv).parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or its one-line error (2)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    return L.guarded(lambda: _run(args))


def _written(args, ext: str, res: dict, columns) -> dict:
    """The --json summary of a written table: what, where, how big, from which inputs."""
    params = {k: v for k, v in vars(args).items() if k not in ("command", "out", "json")}
    return jsonable({"command": args.command, "path": args.out, "format": _FORMATS[ext],
                      "rows": len(res["rows"]), "columns": list(columns), "parameters": params,
                      "skipped": list(res.get("skipped", []))})


def _run(args) -> int:
    if args.command == "plan":
        return _run_plan(args)
    try:
        if args.command == "simulate" and args.mechanism in FE_NAMES:
            fe1_only = ("b", "q") if args.mechanism == "fe0" else ()
            _check_args(args, ("B", "eps"), _SPARSE_ONLY + fe1_only, args.mechanism)
            r = simulate_frequency(args.mechanism, args.n, args.B, args.eps, delta=args.delta,
                                   rho="exact" if args.rho is None else args.rho, b=args.b,
                                   q=args.q, reps=args.reps, seed=args.seed,
                                   data=args.data or "zipf",
                                   beta=0.1 if args.beta is None else args.beta)
            print(dumps(jsonable(r)) if args.json else _human_frequency(r))
        elif args.command == "simulate":
            _check_args(args, ("d", "s", "eps0"), _FE_ONLY, args.mechanism)
            r = simulate(args.mechanism, args.n, args.d, args.s, args.eps0, t=args.t,
                         reps=args.reps, seed=args.seed, postprocess=args.postprocess or "none")
            print(dumps(jsonable(r)) if args.json else _human_simulate(r))
        elif args.command == "error":
            r = analytic_errors(args.mechanism, args.n, args.d, args.s, args.eps0, t=args.t)
            print(dumps(jsonable(r)) if args.json else _human_error(r))
        elif args.command == "central":
            _run_central(args)
        elif args.command == "fe-table":
            ext = _out_format(args.out)

            bar = ProgressBar(0, "cells")
            res = frequency_table(args.n, args.B, args.eps, reps=args.reps, seed=args.seed,
                                  beta=args.beta, data=args.data, progress=bar)
            bar.close()
            write_atomic(args.out, render_frequency_table(res, _FORMATS[ext]))
            if args.json:
                print(dumps(_written(args, ext, res, TABLE_COLUMNS)))
            else:
                print(f"wrote {len(res['rows'])} rows to {args.out}")
        else:  # compare
            ext = _out_format(args.out)
            bar = ProgressBar(0, "cells")
            res = compare(args.n, args.d, args.s, args.eps0, reps=args.reps, seed=args.seed,
                          postprocess=args.postprocess, progress=bar)
            bar.close()
            write_atomic(args.out, render_compare(res, _FORMATS[ext]))
            note = f" (skipped, not installed: {', '.join(res['skipped'])})" if res["skipped"] else ""
            if args.json:
                print(dumps(_written(args, ext, res, COMPARE_COLUMNS)))
            else:
                print(f"wrote {len(res['rows'])} rows to {args.out}{note}")
    except MechanismUnavailableError as exc:
        raise ValueError(str(exc)) from None
    except ValueError as exc:
        raise _named(exc, args) from None
    return 0


def _run_central(args) -> None:
    """``central``: one row per mechanism at the central target (:mod:`mechanisms.planning.central`)."""
    from mechanisms.planning.central import central_comparison, describe_central, render_central

    ext = None if args.out is None else _out_format(args.out)
    mechs = None if args.mechanisms is None else [m.strip() for m in args.mechanisms.split(",")]
    try:
        rows = central_comparison(args.n, args.d, args.s, args.eps, args.delta, mechanisms=mechs)
    except ValueError as exc:
        msg = str(exc)
        raise ValueError(f"--{msg}" if msg.split(" ")[0] in ("mechanisms", "s") else msg) from None
    params = {"n": args.n, "d": args.d, "s": args.s, "epsilon": args.eps, "delta": args.delta}
    if ext is not None:
        write_atomic(args.out, render_central(rows, params, _FORMATS[ext]))
    print(dumps(jsonable({"parameters": params, "rows": [r.to_dict() for r in rows]})) if args.json
          else describe_central(rows, params))


def _named(exc: ValueError, args) -> ValueError:
    """A library message about a parameter ('t must be ...', 'b must be ...') names its option
    ('--t must be ...')."""
    msg = str(exc)
    head = msg.split(" ", 1)[0].rstrip(":")
    return ValueError("--" + msg) if head in vars(args) and head != "command" else exc
