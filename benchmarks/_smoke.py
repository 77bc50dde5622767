"""The two modes every benchmark script honours: the smoke run the test suite makes of each
one, and ``--record``, which adds the run's result to the results data.

``BENCH_SMOKE=1 python benchmarks/NAME.py`` runs the script at its smallest size (one case,
one repetition): the numbers mean nothing, but the script's code path is exercised, so a
benchmark cannot rot unnoticed (``tests/test_benchmarks.py`` runs every script this way).

``python benchmarks/NAME.py ... --record`` runs it as usual and then writes
``benchmarks/results/NAME-<UTC date and time>.json``: the printed output, the command, the
machine, the load average sampled during the run, the commit measured (and whether the work
tree had uncommitted changes), CPU and wall seconds.  ``scripts/benchmark_table.py`` renders
those files as docs/BENCHMARKS.md.  ``BENCH_RESULTS=DIR`` writes into DIR instead; a smoke run
records only there (its numbers must not enter the data).
"""
from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
import threading
import time

#: true when the environment asks for the smallest run (``BENCH_SMOKE`` set and not "0")
SMOKE = os.environ.get("BENCH_SMOKE", "") not in ("", "0")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "benchmarks", "results")


def sizes(full, smoke):
    """``smoke`` in smoke mode, else ``full`` (the script's real cases)."""
    return smoke if SMOKE else full


class _Tee:
    """Standard output that also keeps what is written."""

    def __init__(self, stream):
        self.stream, self.parts = stream, []

    def write(self, text):
        self.parts.append(text)
        return self.stream.write(text)

    def flush(self):
        self.stream.flush()


class _LoadSampler(threading.Thread):
    """The 1-minute load average every few seconds while the run lasts."""

    def __init__(self, every: float = 5.0):
        super().__init__(daemon=True)
        self.every, self.seen, self.stop = every, [os.getloadavg()[0]], threading.Event()

    def run(self):
        while not self.stop.wait(self.every):
            self.seen.append(os.getloadavg()[0])

    def finish(self) -> list[float]:
        self.stop.set()
        self.seen.append(os.getloadavg()[0])
        return [round(min(self.seen), 2), round(max(self.seen), 2)]


def _cpu() -> float:
    """CPU seconds of this process and of the children it has waited for."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def _machine() -> dict:
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            names = [ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    memory = ""
    try:
        with open("/proc/meminfo", encoding="utf-8") as fh:
            kib = next((int(ln.split()[1]) for ln in fh if ln.startswith("MemTotal:")), 0)
        memory = f", {kib / 2**20:.0f} GiB" if kib else ""
    except (OSError, ValueError):
        pass
    found = {"description": f"{os.cpu_count()}-core {cpu}{memory}, {platform.system()} "
                            f"{platform.machine()}",
             "python": platform.python_version()}
    for name in ("numpy", "scipy"):
        try:
            found[name] = __import__(name).__version__
        except ImportError:
            pass
    return found


def _entry(script: str, argv: list[str], output: str, load: list[float], cpu: float,
           wall: float, start: datetime.datetime) -> dict:
    doc = (sys.modules["__main__"].__doc__ or script).strip().splitlines()[0]
    commit = _git("rev-parse", "HEAD")
    return {
        "title": f"`{script}`: {doc}",
        "benchmark": script,
        "command": " ".join(["python", f"benchmarks/{script}.py", *argv]),
        "date": start.strftime("%Y-%m-%d"),
        "time_utc": start.strftime("%H:%M"),
        "load": load,
        "machine": _machine(),
        "commit": commit or None,
        "dirty": bool(_git("status", "--porcelain", "--", "accountant", "mechanisms",
                           "benchmarks")),
        "smoke": SMOKE,
        "cpu_seconds": round(cpu, 2),
        "wall_seconds": round(wall, 2),
        "body": [{"output": output.rstrip("\n").splitlines()}],
    }


def run_main(main) -> int:
    """Run a benchmark's ``main()`` (its exit status, ``None`` meaning 0); with ``--record`` among
    the arguments, also write the run's results file (see the module docstring)."""
    if "--record" not in sys.argv[1:]:
        return main() or 0
    folder = os.environ.get("BENCH_RESULTS") or (None if SMOKE else RESULTS)
    if folder is None:
        print("--record: a smoke run (BENCH_SMOKE) records only into BENCH_RESULTS=DIR",
              file=sys.stderr)
        return 2
    sys.argv.remove("--record")
    script = os.path.splitext(os.path.basename(sys.argv[0]))[0]
    start = datetime.datetime.now(datetime.timezone.utc)
    tee, sampler = _Tee(sys.stdout), _LoadSampler()
    sampler.start()
    t0, c0 = time.perf_counter(), _cpu()
    sys.stdout = tee
    try:
        status = main() or 0
    finally:
        sys.stdout = tee.stream
    entry = _entry(script, sys.argv[1:], "".join(tee.parts), sampler.finish(),
                   _cpu() - c0, time.perf_counter() - t0, start)
    if status:
        return status
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{script}-{start.strftime('%Y-%m-%dT%H%M%S')}.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(entry, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    inside = os.path.commonpath([ROOT, os.path.abspath(path)]) == ROOT
    print(f"recorded {os.path.relpath(path, ROOT) if inside else path}", file=sys.stderr)
    return 0
