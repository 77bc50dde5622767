"""``python -m accountant compose``: central eps after many shuffled rounds.

Thin: parses, calls ``accountant.compose``, returns a JSON-ready dict.
"""
from __future__ import annotations

import argparse
import json

from .compose import (ROUND_MECHANISMS, RoundSpec, compose_rounds, compose_schedule, parse_schedule,
                      round_source)


def add_compose_parser(sub, parse_count, parse_float) -> None:
    """Register the ``compose`` subcommand on ``sub`` (argparse subparsers)."""
    p = sub.add_parser("compose", help="central (eps, delta) after T rounds (PLD vs naive vs advanced)")
    p.add_argument("--rounds", type=parse_count, default=None, help="number of identical rounds T")
    p.add_argument("--n", type=parse_count, default=None, help="users per round")
    p.add_argument("--eps0", type=parse_float, default=None, help="local budget per round")
    p.add_argument("--mechanism", default="generic", choices=ROUND_MECHANISMS)
    p.add_argument("--s", type=parse_count, default=None)
    p.add_argument("--t", type=parse_count, default=None)
    p.add_argument("--k", type=parse_count, default=None, help="alphabet size (krr)")
    p.add_argument("--schedule", default=None,
                   help="JSON file: list of rounds {n, eps0, mechanism?, s?, t?, k?, repeat?}")
    p.add_argument("--delta", type=parse_float, required=True, help="total target delta")
    p.add_argument("--step", type=parse_float, default=None, help="loss grid step (default: automatic)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def read_schedule(path: str, max_rounds: int | None = None) -> list:
    """Round specs from a schedule file (JSON, :func:`accountant.compose.parse_schedule`);
    ValueError (one line) when it cannot be read or parsed, or (``max_rounds``) when its
    rounds, repeats counted, exceed ``max_rounds`` (checked before they are expanded)."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise ValueError(f"schedule: cannot read {path!r}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"schedule: invalid JSON at line {exc.lineno}: {exc.msg}") from None
    if max_rounds is not None and isinstance(data, list):
        total = 0
        for r in data:
            rep = r.get("repeat", 1) if isinstance(r, dict) else 1
            total += rep if isinstance(rep, (int, float)) and not isinstance(rep, bool) and rep > 0 else 1
        if total > max_rounds:
            raise ValueError(f"schedule: {total:,.0f} rounds (repeats counted) exceed the limit "
                             f"of {max_rounds:,}")
    return parse_schedule(data)


def run_compose(args: argparse.Namespace) -> dict:
    """Compute the comparison; ValueError on bad input (one line)."""
    if args.schedule is not None:
        if any(v is not None for v in (args.rounds, args.n, args.eps0)):
            raise ValueError("--schedule replaces --rounds/--n/--eps0; give one or the other")
        specs = read_schedule(args.schedule)
        res = compose_schedule(specs, args.delta, args.step)
    else:
        for name in ("rounds", "n", "eps0"):
            if getattr(args, name) is None:
                raise ValueError(f"--{name} is required (or give --schedule FILE.json)")
        spec = RoundSpec(args.n, args.eps0, args.mechanism, args.s, args.t, args.k)
        specs = [spec]
        res = compose_rounds(spec, args.rounds, args.delta, args.step)
    # which certified per-round profile was composed (clone alone for generic rounds)
    return {**res.as_dict(), "profile": "; ".join(sorted({round_source(s.mechanism) for s in specs}))}


def human(out: dict) -> str:
    return (f"after {out['rounds']} rounds at delta = {out['delta']:.3g}: "
            f"eps <= {out['epsilon']:.6g} (PLD; optimistic {out['epsilon_optimistic']:.6g}), "
            f"advanced {out['advanced_epsilon']:.6g}, naive {out['naive_epsilon']:.6g}; "
            f"per-round profile: {out['profile']}")
