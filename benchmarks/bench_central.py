"""CPU seconds of the comparison at one central guarantee (mechanisms.planning.central): every
mechanism of the paper at one setting, and the Section 8.2.5 grid of scripts/central_grid.py.

Usage: python benchmarks/bench_central.py [--record]

One setting: n = 10,000, d = 256, s = 8, central eps = 1, delta = 1e-6, all mechanisms (goal:
5 s).  The grid: s in {4, 8, 16, 32} x central eps in {0.5, 1, 2} at the same n, d, delta (goal:
2 minutes; its s = 8, eps = 1 cell repeats the single setting's, from the caches).
"""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from mechanisms.planning.central import central_comparison  # noqa: E402
from _smoke import sizes, run_main  # noqa: E402


def main() -> int:
    n, d = sizes((10_000, 256), (1_000, 16))
    mechs = sizes(None, ["collision", "pckv-grr"])
    print("| case | cells | CPU s | wall s |")
    print("|---|---:|---:|---:|")
    cases = [("one setting, s = 8, eps = 1", [sizes(8, 2)], [1.0]),
             ("Section 8.2.5 grid", sizes([4, 8, 16, 32], [2]), sizes([0.5, 1.0, 2.0], [0.5]))]
    for label, ss, epss in cases:
        c0, w0 = time.process_time(), time.perf_counter()
        for s in ss:
            for eps in epss:
                central_comparison(n, d, s, eps, 1e-6, mechanisms=mechs)
        print(f"| {label} | {len(ss) * len(epss)} | {time.process_time() - c0:.2f} | {time.perf_counter() - w0:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
