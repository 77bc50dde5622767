"""Command line: ``python -m mechanisms {simulate, error, compare}``.

Thin layer over :mod:`mechanisms.simulate` and :mod:`mechanisms.errors`: parse,
call, print.  Invalid parameters print one line on stderr and exit with status 2.

Examples
--------
    python -m mechanisms simulate --mechanism coco --n 100000 --d 256 --s 8 --eps0 1 --json
    python -m mechanisms error --mechanism collision --n 100000 --d 256 --s 8 --eps0 1
    python -m mechanisms compare --n 100000 --d 256 --s 4,8,16,32 --eps0 0.1,0.5,1,2 --out t.md
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from accountant.fileio import write_atomic

from .errors import analytic_errors
from .simulate import (
    ALL_NAMES,
    POSTPROCESS,
    MechanismUnavailableError,
    _jsonable,
    compare,
    render_compare,
    simulate,
)

EXIT_USAGE = 2


class _OneLineParser(argparse.ArgumentParser):
    """ArgumentParser whose errors are a single stderr line and exit status 2."""

    def error(self, message: str):  # noqa: D401 - argparse API
        sys.stderr.write(f"error: {message}\n")
        raise SystemExit(EXIT_USAGE)


def _int_list(name: str):
    def parse(text: str) -> list[int]:
        try:
            vals = [int(v) for v in text.split(",") if v.strip() != ""]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{name} must be a comma-separated list of integers, got {text!r}") from None
        if not vals:
            raise argparse.ArgumentTypeError(f"{name} must not be empty")
        return vals
    return parse


def _float_list(name: str):
    def parse(text: str) -> list[float]:
        try:
            vals = [float(v) for v in text.split(",") if v.strip() != ""]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{name} must be a comma-separated list of numbers, got {text!r}") from None
        if not vals:
            raise argparse.ArgumentTypeError(f"{name} must not be empty")
        return vals
    return parse


def build_parser() -> argparse.ArgumentParser:
    p = _OneLineParser(prog="python -m mechanisms",
                       description="Collision / CoCo mechanisms: simulation, exact errors, "
                                   "comparison tables (Wang et al.).")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_OneLineParser)

    sim = sub.add_parser("simulate", help="Monte-Carlo errors of one mechanism")
    sim.add_argument("--mechanism", required=True, choices=ALL_NAMES)
    for name in ("n", "d", "s"):
        sim.add_argument(f"--{name}", required=True, type=int)
    sim.add_argument("--eps0", required=True, type=float)
    sim.add_argument("--t", type=int, default=None, help="output domain size (collision/coco)")
    sim.add_argument("--reps", type=int, default=1)
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--postprocess", choices=POSTPROCESS, default="none")
    sim.add_argument("--json", action="store_true")

    err = sub.add_parser("error", help="exact analytic errors of collision / coco")
    err.add_argument("--mechanism", required=True, choices=("collision", "coco"))
    for name in ("n", "d", "s"):
        err.add_argument(f"--{name}", required=True, type=int)
    err.add_argument("--eps0", required=True, type=float)
    err.add_argument("--t", type=int, default=None)
    err.add_argument("--json", action="store_true")

    cmp_ = sub.add_parser("compare", help="table of log10 errors (Figures 6 and 12)")
    cmp_.add_argument("--n", required=True, type=int)
    cmp_.add_argument("--d", required=True, type=int)
    cmp_.add_argument("--s", required=True, type=_int_list("--s"))
    cmp_.add_argument("--eps0", required=True, type=_float_list("--eps0"))
    cmp_.add_argument("--reps", type=int, default=1)
    cmp_.add_argument("--seed", type=int, default=0)
    cmp_.add_argument("--postprocess", choices=POSTPROCESS, default="none")
    cmp_.add_argument("--out", required=True, help="output file: .csv, .md or .json")
    return p


_FORMATS = {".csv": "csv", ".md": "md", ".json": "json"}


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


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "simulate":
            r = simulate(args.mechanism, args.n, args.d, args.s, args.eps0, t=args.t,
                         reps=args.reps, seed=args.seed, postprocess=args.postprocess)
            print(json.dumps(_jsonable(r)) if args.json else _human_simulate(r))
        elif args.command == "error":
            r = analytic_errors(args.mechanism, args.n, args.d, args.s, args.eps0, t=args.t)
            print(json.dumps(_jsonable(r)) if args.json else _human_error(r))
        else:  # compare
            ext = os.path.splitext(args.out)[1].lower()
            if ext not in _FORMATS:
                raise ValueError(f"--out must end in .csv, .md or .json, got {args.out!r}")
            if not os.path.isdir(os.path.dirname(os.path.abspath(args.out))):
                raise ValueError(f"--out directory does not exist: {args.out!r}")
            res = compare(args.n, args.d, args.s, args.eps0, reps=args.reps, seed=args.seed,
                          postprocess=args.postprocess)
            write_atomic(args.out, render_compare(res, _FORMATS[ext]))
            note = f" (skipped, not installed: {', '.join(res['skipped'])})" if res["skipped"] else ""
            print(f"wrote {len(res['rows'])} rows to {args.out}{note}")
    except (ValueError, MechanismUnavailableError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        sys.stderr.write(f"error: {msg}\n")
        return EXIT_USAGE
    except OSError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    return 0
