"""The OUE bracket before/after the exact four-atom blanket (accountant.engines.blanket.oue).

Usage: python3 benchmarks/bench_oue_blanket.py [--eps0 0.25 0.5 1 2 4] [--exps 4 5 6 8]
       [--delta 1e-6] [--k 16]
Prints a Markdown table: eps0, n, the three-atom relaxation's certified eps (before), the
exact four-atom blanket's certified eps (after), the certified lower bound of the mechanism,
the brackets upper/lower before and after, and the seconds of the new search.
"""
from __future__ import annotations

import argparse
import platform
import time

from accountant.bounds.laws.lower import lower_bound_epsilon
from accountant.bounds.registry import BLANKET_RTOL
from accountant.core.params import make_params
from accountant.engines.blanket.engine import blanket_exact_epsilon
from accountant.engines.blanket.law import OueBlanket, oue_blanket


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--eps0", type=float, nargs="+", default=[0.25, 0.5, 1.0, 2.0, 4.0])
    ap.add_argument("--exps", type=int, nargs="+", default=[4, 5, 6, 8])
    ap.add_argument("--delta", type=float, default=1e-6)
    ap.add_argument("--k", type=int, default=16)
    args = ap.parse_args()
    print(f"# OUE k={args.k}, delta={args.delta:g}, rtol={BLANKET_RTOL:g}; {platform.machine()}, "
          f"Python {platform.python_version()}")
    print("| eps0 | n | before: 3-atom upper | after: exact upper | lower | bracket before | "
          "bracket after | after s |")
    print("|---|---|---|---|---|---|---|---|")
    for e0 in args.eps0:
        for e in args.exps:
            n = 10 ** e
            old = blanket_exact_epsilon(oue_blanket(e0), n, args.delta, rtol=BLANKET_RTOL,
                                        certify_bracket=False).epsilon
            t0 = time.perf_counter()
            new = blanket_exact_epsilon(OueBlanket(e0), n, args.delta, rtol=BLANKET_RTOL,
                                        certify_bracket=False).epsilon
            t1 = time.perf_counter()
            low = lower_bound_epsilon(make_params("oue", e0, k=args.k), n, args.delta).epsilon
            print(f"| {e0:g} | 1e{e} | {old:.6g} | {new:.6g} | {low:.6g} | {old / low:.4f} | "
                  f"{new / low:.4f} | {t1 - t0:.2f} |", flush=True)


if __name__ == "__main__":
    main()
