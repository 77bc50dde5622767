"""Certified lower-bound search with and without the eight report patterns
(accountant/bounds/laws/pattern_lower.py) for Collision, CoCo (s = 4, d = 1000) and OLH (k = 1000)
under the random hash, delta = 1e-6, rtol 1e-9: the eps found and the seconds of one search.

Usage: python benchmarks/bench_pattern_lower.py
"""
from __future__ import annotations

import dataclasses
import os
import platform
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from accountant import make_params  # noqa: E402
from accountant.bounds.laws import lower as L  # noqa: E402
from _smoke import sizes, run_main  # noqa: E402


def main() -> int:
    print(f"# {platform.machine()}, {os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print("| mechanism | n | eps0 | lower, categories | s | lower, with patterns | s | gain |")
    print("|---|---|---|---|---|---|---|---|")
    for mech, kw in (("collision", dict(s=4, d=1000)), ("coco", dict(s=4, d=1000)), ("olh", dict(k=1000))):
        for n in sizes((10**4, 10**6, 10**8, 10**9), (10**4,)):
            for e in sizes((0.5, 2.0, 4.0), (2.0,)):
                p = make_params(mech, e, **kw)
                ll = L.mechanism_lower_law(p)
                cats = dataclasses.replace(ll, full=None)
                t = time.perf_counter()
                a = L.lower_search(cats, mech, p, n, 1e-6, 1e-9).epsilon
                ta = time.perf_counter() - t
                t = time.perf_counter()
                b = L.lower_search(ll, mech, p, n, 1e-6, 1e-9).epsilon
                tb = time.perf_counter() - t
                print(f"| {mech} | {n:.0e} | {e:g} | {a:.6g} | {ta:.2f} | {b:.6g} | {tb:.2f} | "
                      f"{100 * (b / a - 1):.1f}% |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
