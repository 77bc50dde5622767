"""Command line: ``python -m accountant epsilon|delta|local-epsilon ...``.

Thin: parses, calls the library, prints.  Bad input: one line on stderr naming
the parameter and its valid range, exit status 2.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Optional, Sequence

from .shuffle import MECHANISMS, ShuffleAccountant, local_epsilon, make_params


class UsageError(Exception):
    """Bad command-line input (reported in one line, exit status 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, no usage dump
        raise UsageError(message)


def parse_count(text: str) -> int:
    """An integer that may be written as 1e8 or 100000000."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}")
    if not (math.isfinite(v) and v.is_integer()):
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}")
    return int(v)


def parse_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}")
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return v


def _add_mechanism_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mechanism", default="generic", choices=MECHANISMS,
                   help="randomizer: generic eps0-LDP (stronger clone), collision or coco")
    p.add_argument("--s", type=parse_count, default=None, help="sparsity s (collision, coco)")
    p.add_argument("--t", type=parse_count, default=None,
                   help="output size t (default: paper's t* for collision, Theorem 7 for coco)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m accountant",
                     description="Privacy amplification by shuffling: exact accounting.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("epsilon", help="central eps_c for a target delta")
    p.add_argument("--n", type=parse_count, required=True, help="number of users")
    p.add_argument("--eps0", type=parse_float, required=True, help="local budget eps0")
    p.add_argument("--delta", type=parse_float, required=True, help="target delta")
    p.add_argument("--rtol", type=parse_float, default=1e-9, help="relative tolerance on eps_c")
    _add_mechanism_options(p)

    p = sub.add_parser("delta", help="certified delta at a central epsilon")
    p.add_argument("--n", type=parse_count, required=True)
    p.add_argument("--eps0", type=parse_float, required=True)
    p.add_argument("--eps", type=parse_float, required=True, help="central epsilon")
    _add_mechanism_options(p)

    p = sub.add_parser("local-epsilon", help="largest eps0 meeting a central (eps, delta)")
    p.add_argument("--n", type=parse_count, required=True)
    p.add_argument("--eps", type=parse_float, required=True, help="target central epsilon")
    p.add_argument("--delta", type=parse_float, required=True)
    p.add_argument("--rtol", type=parse_float, default=1e-6, help="relative tolerance on eps0")
    _add_mechanism_options(p)
    return parser


def _describe(params, n: int) -> dict:
    return {
        "mechanism": params.name,
        "n": n,
        "eps0": params.eps0,
        "s": params.s,
        "t": params.t,
        "mixture_weight": params.mixture_weight,
        "tight": params.tight,
    }


def run(argv: Optional[Sequence[str]] = None) -> dict:
    """Parse ``argv`` and compute; returns the JSON-ready result (raises UsageError/ValueError)."""
    args = build_parser().parse_args(argv)
    if args.command == "epsilon":
        params = make_params(args.mechanism, args.eps0, s=args.s, t=args.t)
        acc = ShuffleAccountant(params, args.n)
        res = acc.epsilon_result(args.delta, rtol=args.rtol)
        out = _describe(params, acc.n)
        out.update(epsilon=res.epsilon, delta=res.delta, achieved_delta=res.achieved_delta,
                   lower_epsilon=res.lower_epsilon)
        return out
    if args.command == "delta":
        params = make_params(args.mechanism, args.eps0, s=args.s, t=args.t)
        acc = ShuffleAccountant(params, args.n)
        out = _describe(params, acc.n)
        out.update(epsilon=args.eps, delta=acc.get_delta(args.eps))
        return out
    # local-epsilon
    eps0 = local_epsilon(args.n, args.eps, args.delta, mechanism=args.mechanism, s=args.s,
                         t=args.t, rtol=args.rtol)
    params = make_params(args.mechanism, eps0, s=args.s, t=args.t)
    acc = ShuffleAccountant(params, args.n)
    res = acc.epsilon_result(args.delta, rtol=1e-9)
    out = _describe(params, acc.n)
    out.update(eps0=eps0, epsilon=args.eps, delta=args.delta, achieved_epsilon=res.epsilon,
               achieved_delta=res.achieved_delta)
    return out


def _human(command: str, out: dict) -> str:
    mech = out["mechanism"] + (f" (s={out['s']}, t={out['t']})" if out["s"] is not None else "")
    tight = {True: "tight (Theorem 6 lower bound matches)", None: "no matching lower bound"}[out["tight"]]
    if command == "epsilon":
        lines = [f"eps_c <= {out['epsilon']:.10g} at delta = {out['delta']:.3g} "
                 f"(certified delta {out['achieved_delta']:.6g})",
                 f"n = {out['n']}, eps0 = {out['eps0']:g}, {mech}, mixture weight {out['mixture_weight']:.6g}; {tight}"]
        if out["lower_epsilon"] is not None:
            lines.append(f"lower bound: eps_c >= {out['lower_epsilon']:.10g}")
        return "\n".join(lines)
    if command == "delta":
        return (f"delta <= {out['delta']:.10g} at eps = {out['epsilon']:g}\n"
                f"n = {out['n']}, eps0 = {out['eps0']:g}, {mech}; {tight}")
    return (f"largest eps0 = {out['eps0']:.8g} gives eps_c = {out['achieved_epsilon']:.8g} <= {out['epsilon']:g} "
            f"at delta = {out['delta']:.3g}\nn = {out['n']}, {mech}")


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        out = run(argv)
    except (UsageError, ValueError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
        print(f"error: {msg}", file=sys.stderr)
        return 2
    command = next((a for a in argv if not a.startswith("-")), "")
    if "--json" in argv:
        print(json.dumps(out))
    else:
        print(_human(command, out))
    return 0
