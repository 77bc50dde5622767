"""CPU time of a cold command line (a fresh interpreter: imports included) and which numerics
libraries it imports: ``--help``, a refused argument and a first ``epsilon`` of each CLI.

Usage: python benchmarks/bench_imports.py [--reps 5] [--root DIR ...] [--record]

Each command runs ``--reps`` times in a subprocess; the CPU seconds (user + system, of the
child: ``resource.getrusage(RUSAGE_CHILDREN)``) are those of the whole process.  With several
``--root`` checkouts (e.g. the previous commit's worktree and this one) the runs are
interleaved (root A, root B, root A, ...), so that the machine's load falls on both alike.
The last columns say whether numpy, scipy and mpmath were imported (``python -X importtime``:
the module names, not their seconds).
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _smoke import SMOKE, run_main  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

#: (label, argv after ``python``, expected exit status)
COMMANDS = (
    ("accountant --help", ["-m", "accountant", "--help"], 0),
    ("accountant epsilon --n -1 (refused)", ["-m", "accountant", "epsilon", "--n", "-1", "--eps0", "1",
                                             "--delta", "1e-6"], 2),
    ("accountant epsilon --n 1e5 --eps0 2 --delta 1e-6", ["-m", "accountant", "epsilon", "--n", "1e5",
                                                          "--eps0", "2", "--delta", "1e-6"], 0),
    ("mechanisms --help", ["-m", "mechanisms", "--help"], 0),
    ("mechanisms error --n -1 (refused)", ["-m", "mechanisms", "error", "--mechanism", "collision", "--n", "-1",
                                           "--d", "256", "--s", "8", "--eps0", "1"], 2),
)
LIBRARIES = ("numpy", "scipy", "mpmath")


def _env(root: str) -> dict:
    return dict(os.environ, PYTHONPATH=os.path.abspath(root))


def cpu_seconds(root: str, argv: list, status: int) -> float:
    """User + system CPU seconds of one run of ``python argv`` with ``root`` on the path."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([sys.executable, *argv], env=_env(root), cwd=root, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != status:
        raise RuntimeError(f"{argv}: exit status {out.returncode}, expected {status}: {out.stderr[-500:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def imported(root: str, argv: list) -> set:
    """The top-level packages of LIBRARIES that ``python -X importtime argv`` imports."""
    out = subprocess.run([sys.executable, "-X", "importtime", *argv], env=_env(root), cwd=root,
                         capture_output=True, text=True)
    names = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    return {lib for lib in LIBRARIES if lib in {n.split(".")[0] for n in names}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--root", action="append", default=None, help="a checkout to time (repeatable)")
    args = ap.parse_args(argv)
    roots = args.root or [ROOT]
    commands, reps = (COMMANDS[:1], 1) if SMOKE else (COMMANDS, args.reps)
    times: dict = {}
    for _ in range(reps):  # interleaved: every command and root once per repetition
        for label, cmd, status in commands:
            for root in roots:
                times.setdefault((label, root), []).append(cpu_seconds(root, cmd, status))
    print("| command | root | CPU s (median) | min | max | " + " | ".join(LIBRARIES) + " |")
    print("|---|---|---|---|---|" + "---|" * len(LIBRARIES))
    for label, cmd, _ in commands:
        for root in roots:
            ts, libs = times[(label, root)], imported(root, cmd)
            marks = " | ".join("yes" if lib in libs else "no" for lib in LIBRARIES)
            print(f"| `{label}` | {os.path.basename(os.path.abspath(root))} | {statistics.median(ts):.3f} | "
                  f"{min(ts):.3f} | {max(ts):.3f} | {marks} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
