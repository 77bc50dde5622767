"""The Figure 2 grid with the proved bound, Theorem 5 and the certified lower bounds.

Usage: python scripts/figure2_grid.py [--workers K] > grid.md

Grid: Collision, n in {1e4, 1e5}, s in {4, 64}, 50 values of eps0 in [0.1, 5], t = t*
(the paper's rule), delta = 1e-6.  Prints a Markdown summary (median and worst ratios
proved / Theorem 5, bracket width proved / lower for the random hash and for the worst hash
family, Bennett's blanket / proved) and the per-point table; the README quotes it.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from accountant.interfaces import tables

BOUNDS = ("blanket", "lower", "lower-worst-hash", "paper", "blanket-bennett")


def summary(rows: list[dict]) -> list[tuple[str, float, float, float]]:
    """(quantity, best, median, worst) over the rows."""
    out = []
    for name, f in (("proved / Theorem 5", lambda r: r["proved_epsilon"] / r["paper_epsilon"]),
                    ("bracket: proved / certified lower", lambda r: r["proved_epsilon"] / r["lower_epsilon"]),
                    ("bracket over hash families: proved / worst-hash lower",
                     lambda r: r["proved_epsilon"] / r["lower-worst-hash"]),
                    ("Bennett blanket / proved", lambda r: r["blanket-bennett"] / r["proved_epsilon"])):
        v = [f(r) for r in rows]
        out.append((name, min(v), statistics.median(v), max(v)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args()
    pts = tables.build_grid([10_000, 100_000], [4, 64],
                            [round(0.1 + i * 0.1, 10) for i in range(50)], [1e-6], "collision")
    rows = tables.compute_table(pts, BOUNDS, workers=args.workers)
    print("| quantity | best | median | worst |\n|---|---|---|---|")
    for name, lo, med, hi in summary(rows):
        print(f"| {name} | {lo:.6f} | {med:.6f} | {hi:.6f} |")
    print("\n| n | s | eps0 | t | proved (blanket) | Theorem 5 | certified lower | worst-hash lower | "
          "proved / T5 | proved / lower | proved / worst-hash |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['n']:,} | {r['s']} | {r['eps0']:g} | {r['t']} | {r['proved_epsilon']:.6g} | "
              f"{r['paper_epsilon']:.6g} | {r['lower_epsilon']:.6g} | {r['lower-worst-hash']:.6g} | "
              f"{r['proved_epsilon'] / r['paper_epsilon']:.6f} | {r['proved_epsilon'] / r['lower_epsilon']:.4f} | "
              f"{r['proved_epsilon'] / r['lower-worst-hash']:.6f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
