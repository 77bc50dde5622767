"""Speed of exporting a table and a figure (rows computed once beforehand).

Usage: python benchmarks/bench_export.py

Table: the Collision grid of the README (n in {1e4, 1e5}, s = 4, eps0 in {0.5, 1, 2},
delta = 1e-6) rendered at the default columns in every format (.tex includes its .bib).
Figure: the same rows drawn one column wide as .html, .png, .pdf and .svg (PNG, PDF, SVG
through headless Chromium: each starts a browser).  Prints one line per format.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from accountant.interfaces import tables
from accountant.interfaces.figure import write_figure
from _smoke import sizes, run_main  # noqa: E402


def main() -> int:
    pts = tables.build_grid(sizes([10_000, 100_000], [1000]), [4], sizes([0.5, 1.0, 2.0], [1.0]), [1e-6], "collision")
    t0 = time.perf_counter()
    rows = tables.compute_table(pts, tables.paper_bounds("collision"), workers=1, progress=False)
    print(f"compute {len(rows)} rows (paper bounds): {time.perf_counter() - t0:.2f} s")
    meta = tables.provenance("bench")
    print("| output | seconds | bytes |")
    print("|---|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for ext in (".csv", ".json", ".md", ".tex"):
            path = os.path.join(tmp, "t" + ext)
            t0 = time.perf_counter()
            written = tables.write_table(rows, path, meta=meta)
            dt = time.perf_counter() - t0
            print(f"| table {ext} | {dt:.3f} | {sum(os.path.getsize(p) for p in written)} |")
        for ext in sizes((".html", ".png", ".pdf", ".svg"), (".html", ".png")):
            path = os.path.join(tmp, "f" + ext)
            t0 = time.perf_counter()
            write_figure(rows, ["blanket", "lower", "paper", "clone", "blanket-bennett"], path)
            dt = time.perf_counter() - t0
            print(f"| figure {ext} | {dt:.2f} | {os.path.getsize(path)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
