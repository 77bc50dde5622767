"""Time of the headline numbers: proved eps_c (exact blanket), certified lower bound, and the
full ``epsilon_result`` (what the Amplification page computes), cold caches per row.

Usage: python benchmarks/bench_headline.py

1. Collision s = 4, eps0 = 2, t = 36, delta = 1e-6, n = 1e3 .. 1e9;
   d = 1000 (the lower bound's datasets need d >= 3s);
2. the targets: Collision s = 8, eps0 = 1, delta = 1e-10, n = 1e8 (goal 0.1 s) and
   1e10 (goal 1 s); the lower bound's goal is 3x that.
"""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from accountant.bounds.pair_accountant import pair_epsilon_result  # noqa: E402
from accountant.bounds import registry as bounds
from accountant.core.params import make_params
from accountant import ShuffleAccountant
from _smoke import sizes, run_main  # noqa: E402


D = 1000  # the item domain: the certified lower bound's datasets need d >= 3s


def _clear() -> None:
    pair_epsilon_result.cache_clear()
    bounds._proved_cached.cache_clear()


def row(s: int, eps0: float, t, n: int, delta: float) -> str:
    params = make_params("collision", eps0, s=s, t=t, d=D)
    _clear()
    t0 = time.perf_counter()
    up = bounds.compute_params_bound("blanket", params, n, delta, 1e-9)
    t1 = time.perf_counter()
    lo = bounds.compute_params_bound("lower", params, n, delta, 1e-9)
    t2 = time.perf_counter()
    _clear()
    t3 = time.perf_counter()
    ShuffleAccountant(params, n).epsilon_result(delta)
    t4 = time.perf_counter()
    return (f"| {s} | {eps0:g} | {params.t} | {n:.0e} | {delta:g} | {up.epsilon:.6g} | {t1 - t0:.2f} | "
            f"{lo.epsilon:.6g} | {t2 - t1:.2f} | {t4 - t3:.2f} |")


def main() -> int:
    print("| s | eps0 | t | n | delta | blanket eps_c | s | lower eps_c | s | epsilon_result s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for e in sizes((3, 4, 5, 6, 8, 9), (3,)):
        print(row(4, 2.0, 36, 10 ** e, 1e-6), flush=True)
    for e in sizes((8, 10), ()):
        print(row(8, 1.0, None, 10 ** e, 1e-10), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
