"""Peak memory (ru_maxrss) and wall time of the largest accepted inputs.

Each command runs in a fresh subprocess (OPENBLAS_NUM_THREADS=1, address space capped at
3 GB as in tests/test_resources.py); the table gives exit status, seconds and the child's
peak resident memory.  Usage: python benchmarks/bench_resources.py  (from the repository root)
"""
from __future__ import annotations

import os
import platform
import resource
import subprocess
import sys
import time
from datetime import datetime, timezone

from _smoke import sizes, run_main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CAP = 3 * 2**30

CASES = [
    "accountant delta --n 1e9 --eps0 1 --eps 0.5",
    "accountant delta --n 1e10 --eps0 1 --eps 0.01",
    "accountant epsilon --n 1e10 --eps0 30 --delta 1e-300",
    "accountant epsilon --n 100000 --eps0 0.5 --delta 1e-300 --mechanism collision --s 4",
    "accountant epsilon --n 1e10 --eps0 1e-10 --delta 1e-300 --mechanism collision --s 2147483647",
    "accountant epsilon --n 1e10 --eps0 1 --log-delta -10000",
    "accountant local-epsilon --n 1e10 --eps 30 --delta 1e-300",
    "accountant bib --m 2147483647 --s 1 --n 1e10 --p 1 --eps 30",
    "accountant bib --m 2 --s 1 --n 1e10 --rho 100 --delta 1e-300",
    "accountant compose --rounds 10000 --n 1000 --eps0 1 --delta 1e-6",
    "mechanisms simulate --mechanism collision --n 1 --d 10000000 --s 10000000 --eps0 1e-10",
]


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))


def measure(cmd: str) -> tuple[int, float, float]:
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    t = time.monotonic()
    pid = subprocess.Popen([sys.executable, "-m", *cmd.split()], env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, preexec_fn=_cap).pid
    _, status, usage = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), time.monotonic() - t, usage.ru_maxrss / 1024.0


def main() -> None:
    print(f"# {platform.node()} {platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC")
    print("| command | exit | seconds | peak RSS (MB) |")
    print("|---|---:|---:|---:|")
    for cmd in sizes(CASES, CASES[:1]):
        code, sec, mb = measure(cmd)
        print(f"| `{cmd}` | {code} | {sec:.1f} | {mb:.0f} |", flush=True)


if __name__ == "__main__":
    raise SystemExit(run_main(main))
