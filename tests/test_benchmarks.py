"""Every script in benchmarks/ runs to the end in its smoke mode (BENCH_SMOKE=1: the smallest
size), so that no benchmark rots between the sessions that measure with it."""
from __future__ import annotations

import glob
import os
import subprocess
import sys

import pytest

from tests.paths import REPO_ROOT

RESULTS = os.path.join(REPO_ROOT, "benchmarks", "results")
SCRIPTS = sorted(p for p in glob.glob(os.path.join(REPO_ROOT, "benchmarks", "*.py"))
                 if not os.path.basename(p).startswith("_"))


def test_every_benchmark_is_listed():
    assert len(SCRIPTS) >= 14  # the smoke run below covers the whole folder, not a hand-made list


@pytest.mark.parametrize("script", SCRIPTS, ids=os.path.basename)
def test_benchmark_smoke_run(script, tmp_path):
    env = dict(os.environ, BENCH_SMOKE="1", PYTHONPATH=REPO_ROOT)
    env.pop("BENCH_RESULTS", None)
    before = sorted(os.listdir(RESULTS))
    out = subprocess.run([sys.executable, script], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = [ln for ln in out.stdout.splitlines() if ln.strip()]
    # a header (or a first case) and at least one measured row, with numbers in it
    assert len(lines) >= 2 and any(ch.isdigit() for ch in lines[-1]), out.stdout
    assert not os.listdir(tmp_path), "a benchmark left files in its working folder"
    assert sorted(os.listdir(RESULTS)) == before, "a smoke run wrote into benchmarks/results"
