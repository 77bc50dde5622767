"""The benchmarks page (docs/BENCHMARKS.md) is the one scripts/benchmark_table.py renders from
the results data (benchmarks/results/*.json), every results file says what was measured, where,
when and on which code, and ``--record`` adds a run to the data (a smoke run only into a folder
named by BENCH_RESULTS, never into the work tree)."""
from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys

from tests.paths import REPO_ROOT


def _generator():
    path = os.path.join(REPO_ROOT, "scripts", "benchmark_table.py")
    spec = importlib.util.spec_from_file_location("benchmark_table", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _smoke_record(tmp_path, results):
    env = dict(os.environ, BENCH_SMOKE="1", PYTHONPATH=REPO_ROOT)
    env.pop("BENCH_RESULTS", None)
    if results is not None:
        env["BENCH_RESULTS"] = str(results)
    script = os.path.join(REPO_ROOT, "benchmarks", "bench_accountant.py")
    return subprocess.run([sys.executable, script, "--record"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)


def test_committed_page_is_the_generated_one():
    gen = _generator()
    with open(gen.OUT, encoding="utf-8") as fh:
        committed = fh.read()
    assert committed == gen.generate(), \
        "docs/BENCHMARKS.md is not up to date: run python scripts/benchmark_table.py"


def test_every_result_says_what_where_when():
    runs = _generator().load()
    assert len(runs) >= 33  # the converted log's current entries at least (replaced runs: git history)
    names = {r["file"] for r in runs}
    for r in runs:
        assert r["title"] and r["body"], r["file"]
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", r["date"]), r["file"]
        assert r["machine"], r["file"]
        load = r.get("load")
        assert load is None or (1 <= len(load) <= 2 and all(x >= 0 for x in load)), r["file"]
        assert r.get("superseded_by", next(iter(names))) in names, r["file"]
        for block in r["body"]:
            assert {"text", "table", "code", "output", "heading"} & set(block), r["file"]


def test_record_writes_one_results_file_that_the_page_renders(tmp_path):
    out = _smoke_record(tmp_path, tmp_path / "results")
    assert out.returncode == 0, out.stderr[-2000:]
    (path,) = (tmp_path / "results").iterdir()
    run = json.loads(path.read_text(encoding="utf-8"))
    assert run["benchmark"] == "bench_accountant" and run["smoke"] is True
    assert re.fullmatch(r"[0-9a-f]{40}", run["commit"] or "0" * 40)
    assert run["machine"]["python"] and len(run["load"]) == 2
    assert run["body"][0]["output"] == out.stdout.rstrip("\n").splitlines()
    page = _generator().generate(str(tmp_path / "results"))
    assert out.stdout.splitlines()[-1] in page and path.stem in page


def test_smoke_run_does_not_record_into_the_tree(tmp_path):
    before = sorted(os.listdir(os.path.join(REPO_ROOT, "benchmarks", "results")))
    out = _smoke_record(tmp_path, None)
    assert out.returncode == 2 and "BENCH_RESULTS" in out.stderr
    assert sorted(os.listdir(os.path.join(REPO_ROOT, "benchmarks", "results"))) == before
    assert not os.listdir(tmp_path)
