"""Speed of FE0 / FE1 (Luo, Wang, Yi): exact rho search and one simulated run.

Usage: python benchmarks/bench_frequency.py [--repeat R]

One row per (protocol, n, B, eps, rho source): seconds to build the protocol (for
rho="exact" this is the balls-into-bins rho search), messages generated, seconds for
one run (randomise + shuffle-free streamed all-elements analysis, Lemma 2.7 for FE1),
best of ``--repeat``, and the max abs error of that run.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

from mechanisms.frequency.experiments import frequency_data, table_mechanism
from mechanisms.frequency.protocols import make_protocol
from _smoke import sizes, run_main  # noqa: E402

CASES = sizes([(10 ** 6, 100, 1.0), (10 ** 6, 10 ** 5, 1.0), (10 ** 6, 10 ** 5, 0.5),
         (10 ** 7, 10 ** 6, 1.0)], [(10 ** 4, 100, 1.0)])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args(argv)
    print(f"cpus={os.cpu_count()} numpy={np.__version__}")
    hdr = (f"{'protocol':<8} {'n':>8} {'B':>8} {'b':>7} {'eps':>4} {'rho':>6} {'rho value':>10} "
           f"{'build s':>8} {'messages':>11} {'run s':>7} {'max err':>8}")
    print(hdr)
    print("-" * len(hdr))
    for n, B, eps in CASES:
        mech, b = table_mechanism(n, B)
        rng = np.random.default_rng(0)
        x = frequency_data(rng, n, B)
        g = np.bincount(x, minlength=B)
        for src in ("exact", "paper"):
            t0 = time.perf_counter()
            p = make_protocol(mech, n, B, eps, rho=src, b=b)
            t_build = time.perf_counter() - t0
            best = float("inf")
            for _ in range(a.repeat):
                t0 = time.perf_counter()
                est, mpu = p.estimate_from_inputs(x, rng)
                best = min(best, time.perf_counter() - t0)
            err = float(np.max(np.abs(est - g)))
            print(f"{mech:<8} {n:>8.0e} {B:>8.0e} {str(b or '-'):>7} {eps:>4g} {src:>6} "
                  f"{p.rho:>10.4g} {t_build:>8.2f} {mpu * n:>11.3g} {best:>7.2f} {err:>8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
