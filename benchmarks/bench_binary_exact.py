"""Binary RR's exact eps_c: the certified bracket over every dataset at large n
(accountant.bounds.binary_exact.bracket_epsilon) and the registry's headline built on it.

Usage: python3 benchmarks/bench_binary_exact.py [--exps 4 5 6 8 10] [--eps0 0.5 2] [--delta 1e-6]
       [--nodes 400] [--direct 1e-2 1e-4 1e-6 --direct-nodes 3000 --direct-seconds 60]
Prints a Markdown table: n, eps0, the bracket [lower, upper] and its relative width, the nodes
and seconds of ``bracket_epsilon`` (node budget ``--nodes``), the headline (``proved_epsilon``:
its bound, value and seconds, with the cost model's budget), the blanket and the load average.
With ``--direct``: instead, the width reached against CPU seconds, one direct search
(``bracket_epsilon(..., direct=True)``) per asked width, finest last, the finer widths of an
(n, eps0) skipped once one takes longer than ``--direct-seconds`` or exceeds its budget.
"""
from __future__ import annotations

import argparse
import os
import platform
import time

from accountant import compute_bound, proved_epsilon
from accountant.bounds.binary_exact import bracket_epsilon, large_nodes
from _smoke import sizes, run_main


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--exps", type=int, nargs="+", default=[4, 5, 6, 8, 10])
    ap.add_argument("--eps0", type=float, nargs="+", default=[0.5, 2.0])
    ap.add_argument("--delta", type=float, default=1e-6)
    ap.add_argument("--nodes", type=int, default=400)
    ap.add_argument("--direct", type=float, nargs="*", default=None)
    ap.add_argument("--direct-nodes", type=int, default=3000)
    ap.add_argument("--direct-seconds", type=float, default=60.0)
    args = ap.parse_args()
    args.exps, args.eps0 = sizes(args.exps, [4]), sizes(args.eps0, [2.0])
    if args.direct is not None:
        return direct_table(args)
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


def direct_table(args) -> None:
    """Width against CPU seconds: one direct search per width (see the module docstring)."""
    cols = ["n", "eps0", "asked width", "lower", "upper", "width", "nodes", "CPU s", "s/node", "load"]
    print(f"# binary RR direct searches, delta={args.delta:g}, node budget {args.direct_nodes}; "
          f"{platform.machine()}, Python {platform.python_version()}")
    print("| " + " | ".join(cols) + " |\n" + "|---" * len(cols) + "|")
    for n, eps0 in ((10 ** e, eps0) for e in args.exps for eps0 in args.eps0):
        for rtol in sorted(sizes(args.direct or [1e-2, 1e-4, 1e-6], [1e-2]), reverse=True):
            t0 = time.process_time()
            try:
                r = bracket_epsilon(n, eps0, args.delta, rtol=rtol, max_nodes=args.direct_nodes, direct=True)
                cells = f"{r.lower:.10g} | {r.upper:.10g} | {r.upper / r.lower - 1:.1e} | {r.evaluations}"
                nodes = r.evaluations
            except ArithmeticError:
                cells, nodes = f"- | - | budget | > {args.direct_nodes}", args.direct_nodes
            cpu = time.process_time() - t0
            print(f"| {n:.0e} | {eps0:g} | {rtol:.0e} | {cells} | {cpu:.2f} | {cpu / nodes:.4f} | "
                  f"{os.getloadavg()[0]:.1f} |", flush=True)
            if cpu > args.direct_seconds or cells.startswith("-"):
                break


if __name__ == "__main__":
    raise SystemExit(run_main(main))
