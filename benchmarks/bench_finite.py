"""Speed of the finite-randomizer bounds (accountant.bounds.finite): the worst pair's blanket law,
the proved eps_c and the certified lower bound, for catalogue members and random matrices, and
k-RR as a matrix against the named k-RR path (goal: no slower than 3x).

Usage: python benchmarks/bench_finite.py
Goals: 256 x 256 at n = 1e6, delta = 1e-8: proved <= 2 s, lower <= 5 s; 1000 x 1000 at
n = 1e9 within 60 s and 2 GB.  The corner column is the four-corner relaxation alone (the proved
bound before the lattice engine); "proved" is the smaller of it and the lattice bound.
"""
from __future__ import annotations

import os
import platform
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

from accountant import FiniteRandomizer, ShuffleAccountant, make_params  # noqa: E402
from accountant.bounds.finite import finite_blanket_law, finite_lower_epsilon, finite_upper_epsilon  # noqa: E402
from accountant.engines.blanket import blanket_exact_epsilon  # noqa: E402
from mechanisms.randomizers import catalogue  # noqa: E402
from _smoke import SMOKE, run_main  # noqa: E402


def random_matrix(k: int, m: int) -> FiniteRandomizer:
    M = np.random.default_rng(1).uniform(0.05, 1.0, size=(k, m))
    return FiniteRandomizer(M / M.sum(axis=1, keepdims=True), label=f"random {k}x{m}")


def cases():
    if SMOKE:
        return [(catalogue.krr(4, 1.0), 10**4, 1e-6), (random_matrix(5, 6), 10**4, 1e-6)]
    return [(catalogue.krr(16, 1.0), 10**6, 1e-8), (catalogue.hadamard_response(100, 1.0), 10**6, 1e-8),
            (catalogue.optimized_unary_encoding(8, 1.0), 10**6, 1e-8),
            (catalogue.local_hashing(4, 1.5), 10**9, 1e-10),
            (random_matrix(256, 256), 10**6, 1e-8), (random_matrix(1000, 1000), 10**9, 1e-8)]


def main() -> int:
    print(f"# {platform.machine()}, {os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"load average {os.getloadavg()[0]:.1f} at the start")
    print("| randomizer | n | delta | law s | corner eps_c | s | proved eps_c | s | exact blanket | "
          "lower eps_c | s | bracket corner / lattice | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for R, n, delta in cases():
        t0 = time.perf_counter()
        fl = finite_blanket_law(R)
        t1 = time.perf_counter()
        # the corner relaxation alone (the bound before the lattice engine)
        corner = blanket_exact_epsilon(fl.law, n, delta / fl.margin(n), rtol=1e-5,
                                       certify_bracket=False).epsilon if fl.law is not None else 0.0
        t1c = time.perf_counter()
        up = finite_upper_epsilon(R, n, delta)
        t2 = time.perf_counter()
        lo = finite_lower_epsilon(R, n, delta, upper=up.epsilon)
        t3 = time.perf_counter()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
        ratio = (f"{corner / lo.epsilon:.2f} / {up.epsilon / lo.epsilon:.2f}" if lo.epsilon else "-")
        print(f"| {R.label} ({R.k}x{R.outputs_count}) | {n:.0e} | {delta:g} | {t1 - t0:.2f} | {corner:.6g} | "
              f"{t1c - t1:.2f} | {up.epsilon:.6g} | {t2 - t1c:.2f} | {up.exact_blanket} | {lo.epsilon:.6g} | "
              f"{t3 - t2:.2f} | {ratio} | {rss:.0f} |", flush=True)
    print()
    print("| k-RR | n | named s | matrix s | ratio |")
    print("|---|---|---|---|---|")
    for k, n in ([(4, 10**4)] if SMOKE else [(4, 10**6), (64, 10**8), (256, 10**9)]):
        t0 = time.perf_counter()
        ShuffleAccountant(make_params("krr", 1.0, k=k), n).get_epsilon(1e-8)
        t1 = time.perf_counter()
        finite_upper_epsilon(catalogue.krr(k, 1.0), n, 1e-8)
        t2 = time.perf_counter()
        print(f"| {k} | {n:.0e} | {t1 - t0:.2f} | {t2 - t1:.2f} | {(t2 - t1) / (t1 - t0):.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
