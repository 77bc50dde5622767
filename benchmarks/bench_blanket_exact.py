"""Time per certified eps_c of the exact privacy blanket (accountant.engines.blanket).

Usage: python3 benchmarks/bench_blanket_exact.py [--exps 4 5 6 8] [--delta 1e-10] [--rtol 1e-9]
Collision s = 8, eps0 = 1, t = t* = floor(s e^eps0 + 2s - 1) = 36 by default.
Prints a Markdown table: n, eps_c, lower_epsilon, evaluations, seconds for the search and
for one evaluation of delta at eps_c (method and bins).
"""
from __future__ import annotations

import argparse
import math
import platform
import time

from accountant.engines.blanket.law import CountLaw
from accountant.engines.blanket.engine import blanket_exact_epsilon, positive_part
from _smoke import sizes, run_main


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--exps", type=int, nargs="+", default=[4, 5, 6])
    ap.add_argument("--delta", type=float, default=1e-10)
    ap.add_argument("--rtol", type=float, default=1e-9)
    ap.add_argument("--s", type=int, default=8)
    ap.add_argument("--eps0", type=float, default=1.0)
    args = ap.parse_args()
    args.exps = sizes(args.exps, args.exps[:1])
    t = math.floor(args.s * math.exp(args.eps0) + 2 * args.s - 1)
    law = CountLaw.collision_blanket(args.eps0, args.s, t)
    print(f"# exact blanket, Collision s={args.s}, eps0={args.eps0:g}, t={t}, delta={args.delta:g}, "
          f"rtol={args.rtol:g}; {platform.machine()}, Python {platform.python_version()}")
    print("| n | eps_c | lower_epsilon | evaluations | search s | one eval s | method | bins |")
    print("|---|---|---|---|---|---|---|---|")
    for e in args.exps:
        n = 10 ** e
        t0 = time.perf_counter()
        r = blanket_exact_epsilon(law, n, args.delta, rtol=args.rtol)
        t1 = time.perf_counter()
        p = positive_part(law, n, r.epsilon, target_delta=args.delta)
        t2 = time.perf_counter()
        print(f"| 1e{e} | {r.epsilon:.10g} | {r.lower_epsilon:.10g} | {r.evaluations} | "
              f"{t1 - t0:.2f} | {t2 - t1:.2f} | {p.method} | {p.bins} |", flush=True)


if __name__ == "__main__":
    raise SystemExit(run_main(main))
