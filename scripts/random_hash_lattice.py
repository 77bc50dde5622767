"""Collision's Figure 2 block under the random hash: the four-corner upper end next to the lattice one.

Usage: python scripts/random_hash_lattice.py [--workers K] > brackets.md

The block of scripts/decomposition_limit.py (s = 4, d = 1000, t = t*, n in {1e4, 1e5}, 50 values of
eps0 in [0.1, 5], delta = 1e-6): the certified upper end of the registry (the four-corner
relaxation of the random-hash law), the certified lattice bound of the law's own atoms
(accountant/bounds/laws/random_hash_lattice.py; max over the pair types r), the certified lower
end, and both brackets.  docs/randomizers.md quotes it.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from accountant import ShuffleAccountant, make_params  # noqa: E402
from accountant.bounds.laws.random_hash_lattice import collision_random_lattice_epsilon  # noqa: E402

DELTA = 1e-6


def row(job: tuple) -> dict:
    eps0, n = job
    p = make_params("collision", eps0, s=4, d=1000, hash_model="random")
    r = ShuffleAccountant(p, n).epsilon_result(DELTA)
    lat = collision_random_lattice_epsilon(eps0, p.s, p.t, n, DELTA, guess=0.99 * r.epsilon, rtol=1e-4)
    return dict(eps0=eps0, n=n, t=p.t, corner=r.epsilon, lattice=lat, lower=r.lower_epsilon)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    jobs = [(round(0.1 + i * 0.1, 10), n) for n in (10**4, 10**5) for i in range(50)]
    with ProcessPoolExecutor(args.workers) as ex:
        rows = list(ex.map(row, jobs))
    print("| quantity | median | max |\n|---|---|---|")
    for name, f in (("bracket, four corners (before)", lambda r: r["corner"] / r["lower"]),
                    ("bracket, lattice (after)", lambda r: min(r["lattice"], r["corner"]) / r["lower"]),
                    ("lattice / corners", lambda r: r["lattice"] / r["corner"])):
        v = [f(r) for r in rows]
        print(f"| {name} | {statistics.median(v):.4f} | {max(v):.4f} |")
    print("\n| n | eps0 | t | corners | lattice | lower | bracket before | bracket after |\n|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['n']:.0e} | {r['eps0']:g} | {r['t']} | {r['corner']:.6g} | {r['lattice']:.6g} | "
              f"{r['lower']:.6g} | {r['corner'] / r['lower']:.4f} | {min(r['lattice'], r['corner']) / r['lower']:.4f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
