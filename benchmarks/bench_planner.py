"""Speed of the deployment planner (mechanisms.planning.plan), each case in a fresh process.

Usage: python benchmarks/bench_planner.py [--repeat 3]

Cases (d = 128, s = 8, target (0.5, 1e-6), mean estimate, both mechanisms):

1. the dashboard's defaults, n = 1e5 (goal <= 1 s);
2. n = 1e9 (goal <= 2 s);
3. n = 1e5, 100 rounds composed (goal <= 2 s);
4. n = 1e5 with the cap eps0 <= 3 (the uncapped plan is computed too).

Each case is timed as the command line runs it (no n/2, 2n sensitivity) and as the
dashboard runs it (with the sensitivity); the time is that of the plan() call in a new
process (imports excluded, every cache cold), the table shows the median over --repeat
runs and the recommendation.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

from _smoke import sizes, run_main

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

CASES = [
    ("defaults n=1e5", dict(n=100_000), 1.0),
    ("n=1e9", dict(n=10**9), 2.0),
    ("n=1e5, --rounds 100", dict(n=100_000, rounds=100), 2.0),
    ("n=1e5, --max-eps0 3", dict(n=100_000, max_eps0=3.0), None),
]

_CHILD = """
import json, sys, time
sys.path.insert(0, {root!r})
from mechanisms.planning import plan
kw = json.loads({kw!r})
t0 = time.perf_counter()
p = plan(0.5, 1e-6, d=128, s=8, **kw)
dt = time.perf_counter() - t0
r = p.recommendation
print(json.dumps(dict(seconds=dt, mechanism=r.mechanism, t=r.t, eps0=r.eps0, epsilon=p.epsilon,
                      mse=r.mse)))
"""


def run(kw: dict) -> dict:
    code = _CHILD.format(root=ROOT, kw=json.dumps(kw))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    args.repeat = sizes(args.repeat, 1)
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    print(
        "| case | goal (s) | CLI: plan() s (median) | page: with n/2, 2n s (median) | recommendation |"
    )
    print("|---|---|---|---|---|")
    for name, kw, goal in sizes(CASES, CASES[:1]):
        cli = [run(dict(kw, sensitivity=False)) for _ in range(args.repeat)]
        page = [run(dict(kw, sensitivity=True)) for _ in range(args.repeat)]
        r = cli[0]
        rec = (
            f"{r['mechanism']} t={r['t']} eps0={r['eps0']:.4f} eps={r['epsilon']:.5f} "
            f"MSE={r['mse']:.4g}"
        )
        print(
            f"| {name} | {'-' if goal is None else goal} | "
            f"{statistics.median(x['seconds'] for x in cli):.2f} "
            f"({min(x['seconds'] for x in cli):.2f}-{max(x['seconds'] for x in cli):.2f}) | "
            f"{statistics.median(x['seconds'] for x in page):.2f} "
            f"({min(x['seconds'] for x in page):.2f}-{max(x['seconds'] for x in page):.2f}) | {rec} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
