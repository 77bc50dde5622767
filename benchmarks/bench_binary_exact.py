"""Binary RR's exact eps_c: the certified bracket over every dataset at large n
(accountant.bounds.binary_exact.bracket_epsilon) and the registry's headline built on it.

Usage: python3 benchmarks/bench_binary_exact.py [--exps 4 5 6 8 10] [--eps0 0.5 2] [--delta 1e-6]
       [--nodes 400]
Prints a Markdown table: n, eps0, the bracket [lower, upper] and its relative width, the nodes
and seconds of ``bracket_epsilon`` (node budget ``--nodes``), the headline (``proved_epsilon``:
its bound, value and seconds, with the cost model's budget), the blanket and the load average.
"""
from __future__ import annotations

import argparse
import os
import platform
import time

from accountant import compute_bound, proved_epsilon
from accountant.bounds.binary_exact import bracket_epsilon, large_nodes
from _smoke import sizes


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--exps", type=int, nargs="+", default=[4, 5, 6, 8, 10])
    ap.add_argument("--eps0", type=float, nargs="+", default=[0.5, 2.0])
    ap.add_argument("--delta", type=float, default=1e-6)
    ap.add_argument("--nodes", type=int, default=400)
    args = ap.parse_args()
    args.exps, args.eps0 = sizes(args.exps, [4]), sizes(args.eps0, [2.0])
    cols = ["n", "eps0", "lower", "upper", "width", "nodes", "s", "headline (budget)", "headline s",
            "blanket", "load"]
    print(f"# binary RR bracket, delta={args.delta:g}, node budget {args.nodes}; "
          f"{platform.machine()}, Python {platform.python_version()}")
    print("| " + " | ".join(cols) + " |\n" + "|---" * len(cols) + "|")
    for n, eps0 in ((10 ** e, eps0) for e in args.exps for eps0 in args.eps0):
        t0 = time.perf_counter()
        try:
            r = bracket_epsilon(n, eps0, args.delta, max_nodes=args.nodes)
            cells = f"{r.lower:.7g} | {r.upper:.7g} | {r.upper / r.lower - 1:.1e} | {r.evaluations}"
        except ArithmeticError as exc:
            cells = f"- | - | not available | {exc}"
        t1 = time.perf_counter()
        h = proved_epsilon(n, eps0, args.delta, mechanism="rr")
        t2 = time.perf_counter()
        bl = compute_bound("blanket", n, eps0, args.delta, mechanism="rr").epsilon
        print(f"| {n:.0e} | {eps0:g} | {cells} | {t1 - t0:.2f} | {h.name} {h.epsilon:.7g} "
              f"({large_nodes(n) if n > 10_000 else '-'}) | {t2 - t1:.2f} | {bl:.7g} | "
              f"{os.getloadavg()[0]:.1f} |", flush=True)


if __name__ == "__main__":
    main()
