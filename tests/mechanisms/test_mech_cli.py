"""Command line: JSON keys, human output, atomic table writing, exit status 2 with a
one-line message on invalid input."""
from __future__ import annotations

import csv
import json
import math
import os
import subprocess
import sys

import pytest

import mechanisms.evaluation.simulate as sim
from mechanisms.interfaces.cli import main
from mechanisms.analysis.errors import analytic_errors
from tests.paths import REPO_ROOT

REPO = REPO_ROOT


@pytest.fixture
def no_baselines(monkeypatch):
    """Isolate from the baselines package: only collision and coco are available."""
    monkeypatch.setattr(sim, "_baselines", lambda: {})


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_json_keys(capsys):
    code, out, err = run(capsys, "simulate", "--mechanism", "coco", "--n", "2000", "--d", "16",
                         "--s", "2", "--eps0", "1", "--reps", "2", "--json")
    assert code == 0 and err == ""
    r = json.loads(out)
    for k in ("mse_mean", "mse_nonmissing", "mse_item", "tve_freq", "mae_freq", "tve_mean", "mae_mean"):
        assert isinstance(r[k], float)
    assert set(r["analytic"]) >= {"mse_mean", "mse_nonmissing", "mse_item"}
    assert r["t"] % 2 == 0 and r["reps"] == 2


def test_simulate_human(capsys):
    code, out, _ = run(capsys, "simulate", "--mechanism", "collision", "--n", "500", "--d", "8",
                       "--s", "2", "--eps0", "0.5", "--t", "9")
    assert code == 0 and "collision" in out and "t=9" in out and "mse_mean" in out


def test_error_json_matches_library(capsys):
    code, out, _ = run(capsys, "error", "--mechanism", "coco", "--n", "1", "--d", "128", "--s", "8",
                       "--eps0", "0.5", "--json")
    assert code == 0
    r = json.loads(out)
    ref = analytic_errors("coco", 1, 128, 8, 0.5)
    for k in ("mse_mean", "mse_nonmissing", "mse_item", "Pt", "Pf", "Po", "P_ow", "t"):
        assert r[k] == pytest.approx(ref[k])
    assert "data_model" in r and r["t"] == 24
    code, out, _ = run(capsys, "error", "--mechanism", "collision", "--n", "10", "--d", "16",
                       "--s", "2", "--eps0", "1")
    assert code == 0 and "mse_mean" in out and "P_ow" in out


@pytest.mark.parametrize("args, needle", [
    (["simulate", "--mechanism", "coco", "--n", "10", "--d", "8", "--s", "2", "--eps0", "1", "--t", "7"], "t must"),
    (["simulate", "--mechanism", "collision", "--n", "10", "--d", "8", "--s", "9", "--eps0", "1"], "s must"),
    (["simulate", "--mechanism", "collision", "--n", "0", "--d", "8", "--s", "2", "--eps0", "1"], "n must"),
    (["simulate", "--mechanism", "collision", "--n", "5", "--d", "8", "--s", "2", "--eps0", "-1"], "eps0 must"),
    (["simulate", "--mechanism", "collision", "--n", "5", "--d", "8", "--s", "2", "--eps0", "1", "--reps", "0"], "reps must"),
    (["simulate", "--mechanism", "bogus", "--n", "5", "--d", "8", "--s", "2", "--eps0", "1"], "--mechanism"),
    (["simulate", "--mechanism", "coco", "--n", "x", "--d", "8", "--s", "2", "--eps0", "1"], "--n"),
    (["error", "--mechanism", "coco", "--n", "5", "--d", "8", "--s", "2", "--eps0", "inf"], "eps0 must"),
    (["error", "--mechanism", "collision", "--n", "5", "--d", "8", "--s", "2", "--eps0", "1", "--t", "2"], "t must"),
    (["compare", "--n", "5", "--d", "8", "--s", "2,a", "--eps0", "1", "--out", "x.csv"], "--s"),
    (["compare", "--n", "5", "--d", "8", "--s", "2", "--eps0", "1", "--out", "x.txt"], "--out"),
])
def test_bad_input_exit_2_one_line(capsys, args, needle):
    with pytest.raises(SystemExit) as exc:  # argparse errors
        code = main(args)
        raise SystemExit(code)
    assert exc.value.code == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in err


def test_missing_baseline_clear_error(capsys, no_baselines):
    code, _, err = run(capsys, "simulate", "--mechanism", "pckv-ue", "--n", "10", "--d", "8",
                       "--s", "2", "--eps0", "1")
    assert code == 2 and "not available" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("ext", [".csv", ".md", ".json"])
def test_compare_writes_table(tmp_path, capsys, no_baselines, ext):
    out = tmp_path / f"table{ext}"
    code, msg, err = run(capsys, "compare", "--n", "1500", "--d", "16", "--s", "2,4",
                         "--eps0", "0.5,1", "--reps", "2", "--out", str(out))
    assert code == 0 and err == "" and "wrote 8 rows" in msg
    text = out.read_text()
    if ext == ".csv":
        rows = list(csv.DictReader(text.splitlines()))
        assert len(rows) == 8 and {r["mechanism"] for r in rows} == {"collision", "coco"}
        assert all(float(r["log10_tve_freq"]) > -5 for r in rows)
    elif ext == ".json":
        data = json.loads(text)
        assert len(data["rows"]) == 8 and data["params"]["s"] == [2, 4]
        assert set(data["skipped"]) == set(sim.BASELINE_NAMES)
    else:
        assert "log10_tve_freq" in text and "log10_mae_mean" in text and "| collision | coco |" in text
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no temp files left


def test_compare_invalid_leaves_no_file(tmp_path, capsys, no_baselines):
    out = tmp_path / "t.csv"
    out.write_text("old")
    code, _, err = run(capsys, "compare", "--n", "100", "--d", "8", "--s", "2,9",
                       "--eps0", "1", "--out", str(out))
    assert code == 2 and "s must" in err
    assert out.read_text() == "old" and len(list(tmp_path.iterdir())) == 1


def test_module_entry_point_subprocess():
    env = dict(os.environ, PYTHONPATH=REPO)
    ok = subprocess.run([sys.executable, "-m", "mechanisms", "error", "--mechanism", "collision",
                         "--n", "100", "--d", "32", "--s", "4", "--eps0", "1", "--json"],
                        capture_output=True, text=True, cwd=REPO, env=env)
    assert ok.returncode == 0 and json.loads(ok.stdout)["t"] == math.floor(4 * math.e + 7)
    bad = subprocess.run([sys.executable, "-m", "mechanisms", "error", "--mechanism", "coco",
                          "--n", "100", "--d", "32", "--s", "4", "--eps0", "1", "--t", "9"],
                         capture_output=True, text=True, cwd=REPO, env=env)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "t must be an even integer" in bad.stderr
