"""Speed of Collision and CoCo: randomise + estimate for n users (vectorised, threaded).

Usage: python benchmarks/bench_mechanisms.py [--n 1000000] [--d 512] [--s 32] [--eps0 1.0]
       [--threads K] [--repeat R]

Prints one table row per mechanism: data generation, randomise and estimate wall-clock
seconds (best of ``--repeat``), total (randomise + estimate), peak RSS of the process,
and the max abs error of the mean estimate (sanity check).
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

from mechanisms.randomizers.coco import CoCo
from mechanisms.randomizers.collision import Collision
from mechanisms.evaluation.synthetic import synthetic_sparse_vectors
from _smoke import SMOKE, run_main  # noqa: E402


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--d", type=int, default=512)
    ap.add_argument("--s", type=int, default=32)
    ap.add_argument("--eps0", type=float, default=1.0)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args(argv)
    if SMOKE:
        a.n, a.d, a.s = 1000, 64, 4
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    data = synthetic_sparse_vectors(rng, a.n, a.d, a.s)
    t_gen = time.perf_counter() - t0
    truth = data.means()
    print(f"n={a.n} d={a.d} s={a.s} eps0={a.eps0} cpus={os.cpu_count()} "
          f"threads={a.threads or 'auto'} numpy={np.__version__}")
    print(f"synthetic data generation: {t_gen:.2f} s")
    hdr = f"{'mechanism':<10} {'t':>5} {'randomise s':>12} {'estimate s':>11} {'total s':>8} " \
          f"{'peak RSS MB':>12} {'max|mean err|':>14}"
    print(hdr)
    print("-" * len(hdr))
    for cls in (Collision, CoCo):
        mech = cls(a.d, a.s, a.eps0, n_threads=a.threads)
        best_r = best_e = float("inf")
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            rep = mech.randomize(data, rng)
            t1 = time.perf_counter()
            est = mech.estimate(rep, a.n)
            t2 = time.perf_counter()
            best_r, best_e = min(best_r, t1 - t0), min(best_e, t2 - t1)
        err = float(np.abs(est.mean - truth).max())
        print(f"{mech.name:<10} {mech.t:>5} {best_r:>12.2f} {best_e:>11.2f} {best_r + best_e:>8.2f} "
              f"{_peak_rss_mb():>12.0f} {err:>14.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
