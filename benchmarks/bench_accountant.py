"""Time per eps_c (the full certified search) for n = 1e4 ... 1e10.

Usage: python3 benchmarks/bench_accountant.py [--rtol 1e-6] [--delta 1e-10] [--repeat 3]
Prints a Markdown table (median wall-clock seconds over --repeat runs).
"""
from __future__ import annotations

import argparse
import platform
import statistics
import time

from _smoke import sizes, run_main
from accountant import (
    CoCoParams,
    CollisionParams,
    GenericLDP,
    PairAccountant as ShuffleAccountant,
)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rtol", type=float, default=1e-6)
    ap.add_argument("--delta", type=float, default=1e-10)
    ap.add_argument("--eps0", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--max-exp", type=int, default=10)
    args = ap.parse_args()
    args.repeat, args.max_exp = sizes((args.repeat, args.max_exp), (1, 4))
    mechs = [("generic", GenericLDP(args.eps0)),
             ("collision s=4", CollisionParams(s=4, eps0=args.eps0)),
             ("coco s=4", CoCoParams(s=4, eps0=args.eps0))]
    print(f"# eps_c search: delta={args.delta:g}, eps0={args.eps0:g}, rtol={args.rtol:g}, "
          f"median of {args.repeat}; {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print("| n | mechanism | eps_c | evaluations | window (terms) | seconds |")
    print("|---|---|---|---|---|---|")
    for e in range(4, args.max_exp + 1):
        n = 10**e
        for name, params in mechs:
            times = []
            for _ in range(args.repeat):
                acc = ShuffleAccountant(params, n)
                t0 = time.perf_counter()
                res = acc.epsilon_result(args.delta, rtol=args.rtol)
                times.append(time.perf_counter() - t0)
            window = acc.divergence(res.epsilon, target_delta=args.delta).window
            print(f"| 1e{e} | {name} | {res.epsilon:.8g} | {res.evaluations} | "
                  f"{window[1] - window[0] + 1} | {statistics.median(times):.4f} |", flush=True)


if __name__ == "__main__":
    raise SystemExit(run_main(main))
