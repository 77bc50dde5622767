"""CPU seconds of the inverses, `python -m accountant local-epsilon` (a named mechanism and a
catalogue matrix) and `users`, one process per case (imports included, as a user runs it).

Usage: python benchmarks/bench_inverses.py [--root DIR] [--repeat 1]

``--root`` runs the cases on another checkout (e.g. the commit before a change), so that
before and after can be measured interleaved on the same machine; the figure is the child's
user + system CPU seconds, with the load average before the case and the answer.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _smoke import sizes, run_main  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

CASES = [
    "local-epsilon --n 1e6 --eps 0.1 --delta 1e-8 --mechanism collision --s 8",
    "local-epsilon --n 1e5 --eps 0.5 --delta 1e-6 --mechanism krr --k 4",
    "local-epsilon --n 1e6 --eps 0.1 --delta 1e-8 --mechanism finite --catalogue hadamard-response --k 100",
    "local-epsilon --n 1e5 --eps 1 --delta 1e-6 --mechanism rr",
    "local-epsilon --n 1e4 --eps 0.3 --delta 1e-6 --mechanism finite --catalogue subset-selection --k 6",
    "users --eps0 1 --eps 0.1 --delta 1e-6 --mechanism krr --k 4",
]


def run(root: str, case: str) -> tuple:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(root))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "accountant", *case.split(), "--json"], capture_output=True,
                       text=True, cwd=root, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        return cpu, wall, p.stderr.strip()[-80:]
    out = json.loads(p.stdout)
    return cpu, wall, out["n"] if case.startswith("users") else out["eps0"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=ROOT, help="the checkout to run (default: this one)")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    print(f"inverses: CPU seconds of one process per case (python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores, root {os.path.abspath(a.root)})", flush=True)
    for case in sizes(CASES, CASES[1:2]):
        for _ in range(sizes(a.repeat, 1)):
            load = os.getloadavg()[0]
            cpu, wall, out = run(a.root, case)
            print(f"{case}: {cpu:6.2f} s CPU {wall:6.2f} s wall (load {load:.2f})  answer {out}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
