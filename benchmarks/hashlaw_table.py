"""Blanket upper count law vs the best certified lower count law of the real Collision
mechanism (uniformly random hashing), Collision s in {1, 2, 4}, t in {t*, 2s}.

Lower laws: every dataset pair D = (x1, x0, ..., x0), D' = (x1', x0, ..., x0) described by
CollisionDatasets(s, r, o1, o2, o12) with r <= 1, "four" categories; best at n = 100 per
(eps), the two best candidates re-evaluated at n = 1000.  Float64 evaluator (tables only).

Run:  PYTHONPATH=. python3 benchmarks/hashlaw_table.py > benchmarks/hashlaw_table.md
      PYTHONPATH=. python3 benchmarks/hashlaw_table.py --krr >> benchmarks/hashlaw_table.md
"""
from __future__ import annotations

import sys

import numpy as np

from accountant.bounds.laws.count_law import blanket_count_law, count_law_delta_float, krr_count_law
from accountant.bounds.laws.collision_lower import (
    collision_dataset_candidates,
    collision_lower_count_law,
    krr_lower_count_law,
)
from mechanisms.analysis.common import collision_t_star
from _smoke import SMOKE, run_main

EPS = {100: [0.1, 0.2, 0.4, 0.8], 1000: [0.05, 0.1, 0.2, 0.4]}


def short(ds):
    return f"r{ds.r}o{ds.o1}{ds.o2}{ds.o12}"


def main():
    print("| s | t | eps0 | n | eps | delta_up | delta_lo | up/lo | best dataset |")
    print("|---|---|---|---|---|---|---|---|---|")
    for s in ((1,) if SMOKE else (1, 2, 4)):
        for eps0 in ((1.0,) if SMOKE else (0.5, 1.0, 2.0)):
            for t in sorted({collision_t_star(s, eps0), 2 * s}):
                if t <= s:
                    continue
                laws = {ds: collision_lower_count_law(eps0, t, ds, "four") for ds in collision_dataset_candidates(s)}
                up = blanket_count_law("collision", eps0, s, t)
                vals100 = {ds: count_law_delta_float(100, L, EPS[100]) for ds, L in laws.items()}
                top = sorted(laws, key=lambda ds: -np.log(np.maximum(vals100[ds], 1e-300)).sum())[:2]
                for n in (100, 1000):
                    du = count_law_delta_float(n, up, EPS[n])
                    if n == 100:
                        vals = vals100
                    else:
                        vals = {ds: count_law_delta_float(n, laws[ds], EPS[n]) for ds in top}
                    for i, e in enumerate(EPS[n]):
                        best = max(vals, key=lambda ds: vals[ds][i])
                        dl = vals[best][i]
                        ratio = du[i] / dl if dl > 0 else float("inf")
                        print(f"| {s} | {t} | {eps0} | {n} | {e} | {du[i]:.3e} | {dl:.3e} | "
                              f"{ratio:.3g} | {short(best)} |")
                sys.stdout.flush()



def krr_table():
    """k-RR: blanket upper law vs the exact divergence of (1, x0..x0) vs (2, x0..x0)."""
    print()
    print("| k | eps0 | n | eps | delta_up | exact x0=x1 | exact x0=3 | up/best |")
    print("|---|---|---|---|---|---|---|---|")
    for eps0 in (0.5, 1.0, 2.0):
        for k in (2, 3, 8):
            up = krr_count_law(eps0, k)
            for n in (100, 1000):
                du = count_law_delta_float(n, up, EPS[n])
                d1 = count_law_delta_float(n, krr_lower_count_law(eps0, k, "x1"), EPS[n])
                d3 = (count_law_delta_float(n, krr_lower_count_law(eps0, k, "third"), EPS[n])
                      if k >= 3 else np.full(len(EPS[n]), np.nan))
                for i, e in enumerate(EPS[n]):
                    best = np.nanmax([d1[i], d3[i]])
                    ratio = du[i] / best if best > 0 else float("inf")
                    print(f"| {k} | {eps0} | {n} | {e} | {du[i]:.3e} | {d1[i]:.3e} | "
                          f"{d3[i]:.3e} | {ratio:.3g} |")


if __name__ == "__main__":
    if "--krr" in sys.argv:
        krr_table()
    else:
        raise SystemExit(run_main(main))
