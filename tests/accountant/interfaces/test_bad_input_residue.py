"""Bad input on both command lines, the residue of the input audit: every case one line on
stderr naming the option and its range, exit status 2, before any work (matrix files, --mix
files, output names, long choices, local-epsilon's target, plan's sparsity), the composed bound
of pure LDP rounds never above naive composition T eps0, and a closed stdout ending the command
quietly."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from accountant.core import limits as L
from accountant.interfaces.cli.main import main
from tests.paths import REPO_ROOT

ENV = {**os.environ, "PYTHONPATH": REPO_ROOT}


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def epsilon_matrix(capsys, path):
    return run(capsys, "epsilon", "--n", "1e5", "--delta", "1e-6", "--mechanism", "finite",
               "--matrix", str(path))


def one_line(code, out, err):
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("error: "), (code, err)
    return err


def rr(eps0: float) -> list:
    u = math.exp(-eps0)
    return [[1 / (1 + u), u / (1 + u)], [u / (1 + u), 1 / (1 + u)]]


# --- 1, 2: --matrix files ---------------------------------------------------------------------

@pytest.mark.parametrize("content,words", [
    ("[[" + "9" * 400 + ", 0.5], [0.5, 0.5]]", "entry [0, 0] is inf"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ("[[true, false], [false, true]]", "entry [0, 0] is True, not a number"),
    ('[["0.5", "0.5"], ["0.5", "0.5"]]', "entry [0, 0] is '0.5', not a number"),
    (json.dumps(rr(31.0)), "the toolkit's eps0 range is [1e-10, 30]"),
    (json.dumps(rr(690.0)), "the toolkit's eps0 range is [1e-10, 30]"),
    ("[[0.5, 0.5], [0.5, 0.5]]", "reveals nothing about the input (eps0 = 0); the toolkit's eps0 range "
                                 "is [1e-10, 30]"),
    ("[[0.5, 0.5, 0], [0.25, 0.75, 0]]", "column 2 (columns counted from 0, as in entry [i, j]) is all zeros"),
    ("[[1, 0], [2e-300, 1]]", "largest log ratio of two positive entries of one column is"),
])
def test_bad_matrix_files(capsys, tmp_path, content, words):
    p = tmp_path / "m.json"
    p.write_text(content)
    err = one_line(*epsilon_matrix(capsys, p))
    assert "--matrix" in err and words in err, err


def test_matrix_eps0_in_range_and_not_pure_ldp_still_answer(capsys, tmp_path):
    for rows in (rr(29.9), [[0.5, 0.5, 0.0], [0.25, 0.5, 0.25]]):  # eps0 = inf: allowed
        p = tmp_path / "ok.json"
        p.write_text(json.dumps(rows))
        code, out, err = epsilon_matrix(capsys, p)
        assert code == 0 and err == "" and "eps_c <= " in out


def test_matrix_size_checked_before_reading(capsys, tmp_path):
    p = tmp_path / "big.json"
    with open(p, "wb") as fh:  # a sparse file: no bytes written
        fh.truncate(175 * 2**20)
    err = one_line(*epsilon_matrix(capsys, p))  # the size message, not the JSON parser's: never read
    assert "--matrix" in err and f"more than the limit of {L.MAX_MATRIX_BYTES:,}" in err


def test_unreadable_matrix_files(capsys, tmp_path, monkeypatch):
    d = tmp_path / "dir.json"
    d.mkdir()
    err = one_line(*epsilon_matrix(capsys, d))
    assert "--matrix" in err and "is a directory" in err
    p = tmp_path / "secret.json"
    p.write_text("[[0.5, 0.5], [0.25, 0.75]]")
    real_open = open

    def denied(path, *a, **k):  # as a non-root user with chmod 000
        if os.fspath(path) == str(p):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *a, **k)

    monkeypatch.setattr("builtins.open", denied)
    err = one_line(*epsilon_matrix(capsys, p))
    assert "--matrix: cannot read" in err and "Permission denied" in err


def _npy_header(path, shape, descr="<f8") -> None:
    with open(path, "wb") as fh:
        np.lib.format.write_array_header_1_0(fh, {"descr": descr, "fortran_order": False, "shape": shape})


def test_npy_header_refused_before_allocating(capsys, tmp_path):
    p = tmp_path / "huge.npy"
    _npy_header(p, (100_000, 100_000))
    err = one_line(*epsilon_matrix(capsys, p))
    assert "--matrix" in err and "beyond the limit" in err and "memory" not in err
    _npy_header(p, (2, 2))  # no data after the header
    assert "truncated" in one_line(*epsilon_matrix(capsys, p))
    np.save(p, np.array([[True, False], [False, True]]))
    assert "entries must be numbers" in one_line(*epsilon_matrix(capsys, p))


# --- 3: composed pure LDP rounds never above naive composition ----------------------------------

def test_compose_finite_rounds_never_above_naive(capsys, tmp_path):
    # a 26.94-LDP matrix whose per-round profile is trivial (eps0 above the exact engines' range):
    # the PLD total is infinite, naive composition T eps0 is finite and proved
    p = tmp_path / "m.json"
    p.write_text(json.dumps([[0.5, 0.5 - 1e-12, 1e-12], [0.5, 1e-12, 0.5 - 1e-12]]))
    code, out, err = run(capsys, "compose", "--rounds", "100", "--n", "1e5", "--delta", "1e-6",
                         "--mechanism", "finite", "--matrix", str(p), "--json")
    assert code == 0, err
    d = json.loads(out)
    eps0 = math.log((0.5 - 1e-12) / 1e-12)
    assert d["epsilon"] == pytest.approx(100 * eps0, rel=1e-12) and d["epsilon_source"] == "naive"
    assert d["naive_epsilon"] == d["epsilon"] and d["epsilon"] <= 100 * eps0 * (1 + 1e-12)


# --- 4, 5: the options named ------------------------------------------------------------------

def test_local_epsilon_target_names_eps(capsys):
    err = one_line(*run(capsys, "local-epsilon", "--n", "1e5", "--eps", "1e-12", "--delta", "1e-6"))
    assert "--eps" in err and "[1e-10, 30]" in err and "eps0 must" not in err


def test_plan_sparsity_names_s():
    r = subprocess.run([sys.executable, "-m", "mechanisms", "plan", "--d", "2147483647", "--s",
                        "2147483647", "--n", "100000", "--eps", "0.5", "--delta", "1e-6"],
                       capture_output=True, text=True, env=ENV, timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith("error: --s must be an integer in [1, 2147483646]") and " t must" not in r.stderr
    r = subprocess.run([sys.executable, "-m", "mechanisms", "plan", "--d", "2147483647", "--s",
                        "2000000000", "--n", "100000", "--eps", "0.5", "--delta", "1e-6", "--mechanisms",
                        "coco"], capture_output=True, text=True, env=ENV, timeout=120)
    assert r.returncode == 2 and "--s must be an integer in [1, 1073741822] for coco" in r.stderr


def test_plan_library_names_s_for_coco():
    from mechanisms.planning.planner import plan

    with pytest.raises(ValueError, match=r"s must be an integer in \[1, 1073741822\] for coco"):
        plan(0.5, 1e-6, 100_000, 2**31 - 1, 2 * 10**9, mechanisms=("coco",))


# --- 6: output names within the file system's limit -------------------------------------------

@pytest.mark.parametrize("command,name,words", [
    ("table", "a" * 247 + ".csv", "--out (its .csv.json provenance)"),   # 251 bytes; sidecar 256
    ("table", "a" * 252 + ".csv", "--out:"),                              # 256 bytes
    ("table", "a" * 252 + ".tex", "--out:"),
    ("figure", "a" * 252 + ".png", "--out:"),
])
def test_output_names_longer_than_the_file_system_takes(capsys, tmp_path, command, name, words):
    out = str(tmp_path / name)
    grid = ["--n", "1e4", "--delta", "1e-6"] + (["--eps0", "1"] if command == "table" else ["--s", "4"])
    err = one_line(*run(capsys, command, *grid, "--out", out))
    assert words in err and "file system's limit of 255 bytes" in err, err
    assert os.listdir(tmp_path) == []


def test_names_at_the_limit_are_written(capsys, tmp_path):
    # a 255-byte .tex and its 255-byte .bib fit
    out = str(tmp_path / ("b" * 251 + ".tex"))
    assert len(os.path.basename(out)) == 255
    code, _, err = run(capsys, "table", "--n", "1e4", "--delta", "1e-6", "--eps0", "1", "--out", out)
    assert code == 0, err
    assert L.name_max(str(tmp_path)) == 255


# --- 7: long values cut in usage errors --------------------------------------------------------

LONG = "x" * 100_000


@pytest.mark.parametrize("argv", [
    ["epsilon", "--n", "1e5", "--delta", "1e-6", "--mechanism", LONG],
    ["epsilon", "--n", "1e5", "--delta", "1e-6", "--bound", LONG],
    ["epsilon", "--n", "1e5", "--delta", "1e-6", LONG],
    [LONG],
])
def test_long_choices_are_cut(capsys, argv):
    err = one_line(*run(capsys, *argv))
    assert len(err) < 1000 and " characters)" in err and "x" * 100 not in err


def test_long_choices_are_cut_on_the_mechanisms_command_line():
    from mechanisms.interfaces.cli import main as mech_main

    for argv in (["error", "--mechanism", LONG, "--n", "10", "--d", "4", "--s", "1", "--eps0", "1"],
                 ["plan", "--d", "4", "--s", "1", "--eps", "1", "--delta", "1e-6", "--estimate", LONG]):
        r = subprocess.run([sys.executable, "-m", "mechanisms", *argv], capture_output=True, text=True,
                           env=ENV, timeout=60)
        assert r.returncode == 2 and len(r.stderr) < 1000 and " characters)" in r.stderr
    assert callable(mech_main)


# --- 9: --mix files ----------------------------------------------------------------------------

def test_mix_reads_at_most_its_limit(capsys):
    # /dev/zero has no end: the answer at all, and its message, show it was read only to the limit
    err = one_line(*run(capsys, "epsilon", "--mix", "/dev/zero", "--delta", "1e-6"))
    assert err.startswith("error: --mix:") and f"limit of {L.MAX_SCHEDULE_BYTES:,} bytes" in err


def test_mix_group_limit(capsys, tmp_path):
    p = tmp_path / "mix.json"
    p.write_text(json.dumps([{"count": 100, "mechanism": "generic", "eps0": 1.0}] * (L.MAX_MIX_GROUPS + 1)))
    err = one_line(*run(capsys, "epsilon", "--mix", str(p), "--delta", "1e-6"))
    assert err.startswith("error: --mix:") and f"more than the limit of {L.MAX_MIX_GROUPS}" in err
    d = tmp_path / "d"
    d.mkdir()
    assert "is a directory" in one_line(*run(capsys, "epsilon", "--mix", str(d), "--delta", "1e-6"))
    p.write_text("[" * 100_000)
    assert "--mix:" in one_line(*run(capsys, "epsilon", "--mix", str(p), "--delta", "1e-6"))


# --- 11: a closed stdout -----------------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["mechanisms", "error", "--mechanism", "collision", "--n", "100000", "--d", "256", "--s", "8", "--eps0", "1"],
    ["accountant", "epsilon", "--n", "1e5", "--delta", "1e-6", "--eps0", "1"],
])
def test_closed_stdout_exits_quietly(argv):
    proc = subprocess.Popen([sys.executable, "-m", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=ENV)
    proc.stdout.close()  # the reader is gone before the command writes (`... | head -0`)
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == L.EXIT_PIPE == 141
    assert err == ""
