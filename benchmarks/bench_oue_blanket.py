"""The OUE bracket before/after the exact four-atom blanket (accountant.engines.blanket.oue),
and the certified lower bound from the full bit patterns (accountant.bounds.laws.pattern_lower).

Usage: python3 benchmarks/bench_oue_blanket.py [--eps0 0.25 0.5 1 2 4] [--exps 4 5 6 8]
       [--delta 1e-6] [--k 16] [--lower]
Prints a Markdown table: eps0, n, the three-atom relaxation's certified eps (before), the
exact four-atom blanket's certified eps (after), the certified lower bound of the mechanism,
the brackets upper/lower before and after, and the seconds of the new search.
With ``--lower`` instead: eps0, n, the certified lower eps of the three-category reductions
alone (before) and with the full patterns (after), the proved eps and the bracket
proved / lower before and after, the seconds of one full-pattern evaluation (at the new lower
eps) and of the whole lower-bound search.
"""
from __future__ import annotations

import argparse
import platform
import time

import dataclasses

from accountant.bounds.laws.lower import lower_search, lower_bound_epsilon, mechanism_lower_law
from accountant.bounds.laws.pattern_lower import full_lower_delta
from accountant.bounds.laws.patterns import oue_patterns
from accountant.bounds.registry import BLANKET_RTOL
from accountant.core.params import make_params
from accountant.engines.blanket.engine import blanket_exact_epsilon
from accountant.engines.blanket.law import OueBlanket, oue_blanket
from _smoke import SMOKE, run_main


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--eps0", type=float, nargs="+", default=[0.25, 0.5, 1.0, 2.0, 4.0])
    ap.add_argument("--exps", type=int, nargs="+", default=[4, 5, 6, 8])
    ap.add_argument("--delta", type=float, default=1e-6)
    ap.add_argument("--k", type=int, default=16)
    ap.add_argument("--lower", action="store_true", help="the lower-bound table instead")
    args = ap.parse_args()
    if SMOKE:
        args.eps0, args.exps = [1.0], [4]
    if args.lower:
        lower_table(args)
        return
    _header(f"# OUE k={args.k}, delta={args.delta:g}, rtol={BLANKET_RTOL:g}",
            "eps0 | n | before: 3-atom upper | after: exact upper | lower | bracket before | "
            "bracket after | after s")
    for e0, e, n in _points(args):
        old = _upper(oue_blanket(e0), n, args.delta)
        t0 = time.perf_counter()
        new = _upper(OueBlanket(e0), n, args.delta)
        t1 = time.perf_counter()
        low = lower_bound_epsilon(make_params("oue", e0, k=args.k), n, args.delta).epsilon
        print(f"| {e0:g} | 1e{e} | {old:.6g} | {new:.6g} | {low:.6g} | {old / low:.4f} | "
              f"{new / low:.4f} | {t1 - t0:.2f} |", flush=True)


def _header(title: str, columns: str) -> None:
    print(f"{title}; {platform.machine()}, Python {platform.python_version()}")
    print(f"| {columns} |")
    print("|" + "---|" * (columns.count("|") + 1))


def _points(args):
    """(eps0, exponent, n) of the table's rows."""
    return [(e0, e, 10 ** e) for e0 in args.eps0 for e in args.exps]


def _upper(law, n: int, delta: float) -> float:
    return blanket_exact_epsilon(law, n, delta, rtol=BLANKET_RTOL, certify_bracket=False).epsilon


def lower_table(args) -> None:
    """Before / after the full-pattern evaluation of the lower bound, with timings."""
    _header(f"# OUE lower bound, k={args.k}, delta={args.delta:g}",
            "eps0 | n | lower before (3 categories) | lower after (8 patterns) | proved | "
            "proved / before | proved / after | s / evaluation | s / search")
    for e0, e, n in _points(args):
        params = make_params("oue", e0, k=args.k)
        three = dataclasses.replace(mechanism_lower_law(params), full=None)
        before = lower_search(three, "lower", params, n, args.delta, 1e-9).epsilon
        t0 = time.perf_counter()
        after = lower_bound_epsilon(params, n, args.delta).epsilon
        t1 = time.perf_counter()
        one = full_lower_delta(oue_patterns(e0), n, after, args.delta)
        t2 = time.perf_counter()
        up = _upper(OueBlanket(e0), n, args.delta)
        each = f"{t2 - t1:.3f}" if one is not None else "declined"
        print(f"| {e0:g} | 1e{e} | {before:.6g} | {after:.6g} | {up:.6g} | {up / before:.4f} | "
              f"{up / after:.4f} | {each} | {t1 - t0:.2f} |", flush=True)


if __name__ == "__main__":
    raise SystemExit(run_main(main))
