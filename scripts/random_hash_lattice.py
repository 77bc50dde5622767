"""The Figure 2 block under the random hash: the four-corner upper end (before) next to the registry's
upper end with all of the law's atoms (after), Collision and CoCo.

Usage: python scripts/random_hash_lattice.py [--workers K] [--mechanism collision|coco|both] > brackets.md

The block of scripts/decomposition_limit.py (s = 4, d = 1000, t = t*, n in {1e4, 1e5}, 50 values of
eps0 in [0.1, 5], delta = 1e-6): the certified four-corner bound (the registry at a chart's
tolerance, which skips the lattice), the registry's blanket (the smaller of it and the certified
lattice bound of every atom, accountant/bounds/laws/random_hash_lattice.py), the certified lower
end, and both brackets.  docs/randomizers.md quotes it.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from accountant import make_params  # noqa: E402
from accountant.bounds.exact_bounds import CHART_RTOL  # noqa: E402
from accountant.bounds.registry import compute_params_bound  # noqa: E402

DELTA = 1e-6


def row(job: tuple) -> dict:
    mech, eps0, n = job
    p = make_params(mech, eps0, s=4, d=1000, hash_model="random")
    corner = compute_params_bound("blanket", p, n, DELTA, rtol=CHART_RTOL).epsilon
    t0 = time.perf_counter()
    after = compute_params_bound("blanket", p, n, DELTA).epsilon
    sec = time.perf_counter() - t0
    lower = compute_params_bound("lower", p, n, DELTA).epsilon
    return dict(mech=mech, eps0=eps0, n=n, t=p.t, corner=corner, lattice=after, lower=lower, sec=sec)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--mechanism", default="both", choices=("collision", "coco", "both"))
    args = ap.parse_args()
    mechs = ("collision", "coco") if args.mechanism == "both" else (args.mechanism,)
    jobs = [(m, round(0.1 + i * 0.1, 10), n) for m in mechs for n in (10**4, 10**5) for i in range(50)]
    rows = []
    with ProcessPoolExecutor(args.workers) as ex:
        for r in ex.map(row, jobs):   # progress on stderr, one JSON line a point
            rows.append(r)
            print(json.dumps(r), file=sys.stderr, flush=True)
    for m in mechs:
        rs = [r for r in rows if r["mech"] == m]
        print(f"\n{m}, s = 4, d = 1000, {len(rs)} points\n\n| quantity | median | max |\n|---|---|---|")
        for name, f in (("bracket, four corners (before)", lambda r: r["corner"] / r["lower"]),
                        ("bracket, registry with all atoms (after)", lambda r: r["lattice"] / r["lower"]),
                        ("after / before", lambda r: r["lattice"] / r["corner"]),
                        ("seconds per point (registry blanket)", lambda r: r["sec"])):
            v = [f(r) for r in rs]
            print(f"| {name} | {statistics.median(v):.4f} | {max(v):.4f} |")
        print("\n| n | eps0 | t | four corners | all atoms | lower | bracket before | bracket after |\n"
              "|---|---|---|---|---|---|---|---|")
        for r in rs:
            print(f"| {r['n']:.0e} | {r['eps0']:g} | {r['t']} | {r['corner']:.6g} | {r['lattice']:.6g} | "
                  f"{r['lower']:.6g} | {r['corner'] / r['lower']:.4f} | {r['lattice'] / r['lower']:.4f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
