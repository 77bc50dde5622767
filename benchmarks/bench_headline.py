"""Time of the headline numbers: proved eps_c (exact blanket), certified lower bound, and the
full ``epsilon_result`` (what the Amplification page computes), cold caches per row.

Usage: python benchmarks/bench_headline.py [--proved-only]

1. Collision s = 4, eps0 = 2, t = 36, delta = 1e-6, n = 1e3 .. 1e9;
   d = 1000 (the lower bound's datasets need d >= 3s);
2. the targets: Collision s = 8, eps0 = 1, delta = 1e-10, n = 1e8 (goal 0.1 s) and
   1e10 (goal 1 s); the lower bound's goal is 3x that;
3. the headline proved eps_c as every forward command prints it
   (:func:`accountant.bounds.registry.certified_epsilon`) of k-RR (k = 4), Collision (s = 4) and
   binary RR at eps0 = 1, delta = 1e-10, n = 1e8 and 1e10: CPU seconds (this process, all its
   threads) of a cold call (caches cleared), the bound that answers and its eps_c
   (``--proved-only``: this part alone).
"""
from __future__ import annotations

import os
import sys
import time

import argparse

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


def proved_row(mechanism: str, options: dict, n: int, delta: float = 1e-10, eps0: float = 1.0) -> str:
    params = make_params(mechanism, eps0, **options)
    _clear()
    t0 = time.process_time()
    r = bounds.certified_epsilon(params, n, delta)
    cpu = time.process_time() - t0
    words = ", ".join(f"{k} = {v}" for k, v in options.items())
    return (f"| {mechanism}{' (' + words + ')' if words else ''} | {eps0:g} | {n:.0e} | {delta:g} | {r.name} | "
            f"{r.epsilon!r} | {r.achieved_delta!r} | {cpu:.3f} |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--proved-only", action="store_true", help="the headline proved eps_c alone (part 3)")
    args = ap.parse_args(argv)
    cases = (("krr", {"k": 4}), ("collision", {"s": 4}), ("rr", {}))
    for mechanism, options in cases:  # the engines imported and their tables built before the clock
        bounds.certified_epsilon(make_params(mechanism, 1.0, **options), 1000, 1e-6)
    print("| mechanism | eps0 | n | delta | bound | proved eps_c | certified delta | CPU s |")
    print("|---|---|---|---|---|---|---|---|")
    for e in sizes((8, 10), (5,)):
        for mechanism, options in cases:
            print(proved_row(mechanism, options, 10 ** e), flush=True)
    if args.proved_only:
        return 0
    print()
    print("| s | eps0 | t | n | delta | blanket eps_c | s | lower eps_c | s | epsilon_result s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for e in sizes((3, 4, 5, 6, 8, 9), (3,)):
        print(row(4, 2.0, 36, 10 ** e, 1e-6), flush=True)
    for e in sizes((8, 10), ()):
        print(row(8, 1.0, None, 10 ** e, 1e-10), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
