"""CPU seconds of `python -m accountant users` over mechanisms x rounds (goal: within 5 s).

Usage: python benchmarks/bench_users.py [--rounds 1,10,100,1000,10000] [--timeout 60] [--only krr]

Each case runs as its own process (imports included, as a user runs it); the figure is the
child's user + system CPU seconds, with the load average before the case.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _smoke import SMOKE, run_main  # noqa: E402

MECHANISMS = [
    ("generic", []), ("rr", ["--mechanism", "rr"]), ("krr k=4", ["--mechanism", "krr", "--k", "4"]),
    ("krr k=64", ["--mechanism", "krr", "--k", "64"]),
    ("collision s=8", ["--mechanism", "collision", "--s", "8"]),
    ("coco s=4", ["--mechanism", "coco", "--s", "4"]),
    ("olh k=64", ["--mechanism", "olh", "--k", "64"]), ("oue k=64", ["--mechanism", "oue", "--k", "64"]),
]
TARGETS = [(2.0, 1.0, 1e-6), (1.0, 0.1, 1e-8)]   # (eps0, eps, delta)


def run(args: list, timeout: float) -> tuple:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, "-m", "accountant", "users", *args, "--json"],
                           capture_output=True, text=True, timeout=timeout, cwd=ROOT)
        out = json.loads(p.stdout)["n"] if p.returncode == 0 else p.stderr.strip()[:80]
    except subprocess.TimeoutExpired:
        out = f"timeout {timeout:g} s"
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", default="1,10,100,1000,10000")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--only", default=None, help="substring of the mechanism label")
    a = ap.parse_args()
    mechanisms, targets, rounds = MECHANISMS, TARGETS, [int(x) for x in a.rounds.split(",")]
    if SMOKE:
        mechanisms, targets, rounds = MECHANISMS[:1], TARGETS[:1], [1]
    print(f"users: CPU seconds of one process per case (python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores)", flush=True)
    for label, mech in mechanisms:
        if a.only and a.only not in label:
            continue
        for eps0, eps, delta in targets:
            for t in rounds:
                load = os.getloadavg()[0]
                cpu, wall, out = run(["--eps0", str(eps0), "--eps", str(eps), "--delta", str(delta),
                                      "--rounds", str(t), *mech], a.timeout)
                print(f"{label:14s} eps0={eps0:g} eps={eps:g} delta={delta:g} T={t:5d}: "
                      f"{cpu:6.2f} s CPU {wall:6.2f} s wall (load {load:.2f})  n = {out}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
