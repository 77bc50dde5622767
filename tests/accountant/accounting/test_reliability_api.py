"""Reliability contract of the library (issue 12): validation and limits before any work,
the exit contract of ``limits.guarded``, and atomic exports (mode, symlinks, temp files)."""
import math
import os
import stat
import subprocess
import sys
import time

import numpy as np
import pytest

from accountant.core import limits as L
from accountant.interfaces import tables
from accountant.interfaces.fileio import write_atomic
from accountant import ShuffleAccountant, GenericLDP, local_epsilon
from mechanisms import frequency
from mechanisms.evaluation import simulate as sim
from tests.paths import REPO_ROOT

BAD_INTS = [None, "", "x", 0, -1, 2.5, float("nan"), float("inf"), True, [1], "1e99"]


@pytest.mark.parametrize("value", BAD_INTS, ids=repr)
def test_check_int_rejects_every_class_naming_parameter_and_range(value):
    with pytest.raises(ValueError) as ei:
        L.check_int("--n", value, 1, 10**10)
    msg = str(ei.value)
    assert msg.startswith("--n must be an integer in [1, 1e10]") and repr(value) in msg


@pytest.mark.parametrize("value,expected", [("1e8", 10**8), (1e8, 10**8), (np.int64(7), 7),
                                            ("10000000000", 10**10), (1, 1)])
def test_check_int_accepts(value, expected):
    assert L.check_int("--n", value, 1, 10**10) == expected


@pytest.mark.parametrize("value", [None, "x", 0.0, -1, float("nan"), float("inf"), 31, True],
                         ids=repr)
def test_check_float_rejects(value):
    with pytest.raises(ValueError, match=r"^eps0 must be a number in \(0, 30\]"):
        L.check_float("eps0", value, 0.0, 30.0, lo_open=True)


def test_check_float_ends():
    assert L.check_float("eps0", 30, 0.0, 30.0, lo_open=True) == 30.0
    assert L.check_float("delta", 1e-300, 1e-300, 1.0, hi_open=True) == 1e-300
    with pytest.raises(ValueError, match=r"\[1e-300, 1\)"):
        L.check_float("delta", 1.0, 1e-300, 1.0, hi_open=True)


@pytest.mark.parametrize("n", [0, -1, 2.5, float("nan"), float("inf"), "100", True, 10**13])
def test_accountant_n(n):
    with pytest.raises(ValueError, match="^n must be"):
        ShuffleAccountant(GenericLDP(1.0), n)


def test_local_epsilon_bad_inputs():
    for kw, word in ((dict(n=0), "n"), (dict(epsilon=float("nan")), "epsilon"),
                     (dict(delta=2.0), "delta"), (dict(mechanism="nope"), "mechanism")):
        args = dict(n=1000, epsilon=0.5, delta=1e-6)
        args.update(kw)
        with pytest.raises(ValueError, match=word):
            local_epsilon(**args)


# ---------------------------------------------------------------- lists and grids


@pytest.mark.parametrize("text,word", [
    ("0.1:5:1e9", "at most"), ("0.1:5:0", "start:stop:count"), ("5:0.1:10", "start < stop"),
    ("", "comma-separated"), (",", "comma-separated"), ("1,inf", "finite"), ("nan", "finite"),
    ("a,b", "comma-separated"), ("0.1:5:2.5", "start:stop:count"), ("1:2", "start:stop:count"),
    (",".join(["1"] * (L.MAX_LIST + 1)), "at most"),
])
def test_parse_list_refuses(text, word):
    t = time.monotonic()
    with pytest.raises(ValueError, match="eps0") as ei:
        tables.parse_list(text, float, "eps0")
    assert word in str(ei.value)
    assert time.monotonic() - t < 5  # a 1e9-point range is refused, not built


def test_parse_list_range_is_inclusive_and_bounded():
    v = tables.parse_list(f"0:1:{L.MAX_LIST}", float, "eps0")
    assert len(v) == L.MAX_LIST and v[0] == 0.0 and v[-1] == 1.0


# ---------------------------------------------------------------- simulation limits


def test_simulate_refuses_large_sizes_before_work():
    with pytest.raises(ValueError, match="n x d"):
        sim.simulate("collision", 10**6, 10**3, 4, 1.0)  # 1e9 cells: ~8 GB per copy
    with pytest.raises(ValueError, match="n x d x reps"):
        sim.simulate("collision", 10**6, 50, 4, 1.0, reps=20)
    with pytest.raises(ValueError, match="eps0"):
        sim.simulate("privkv", 100, 16, 4, 1e6)  # overflowed inside the baseline before
    with pytest.raises(ValueError, match="eps0"):
        sim.compare(100, 16, [4], [1.0, float("inf")])
    with pytest.raises(ValueError, match="n x d x reps"):
        sim.compare(10**6, 40, [4, 8], [0.5, 1.0], reps=5)


def test_simulate_at_the_limit_edges_is_accepted():
    L.check_sim_size(L.MAX_SIM_CELLS, 1, 1)
    with pytest.raises(ValueError, match=f"{L.MAX_SIM_CELLS + 1:,} exceeds the limit of "
                                         f"{L.MAX_SIM_CELLS:,}"):
        L.check_sim_size(L.MAX_SIM_CELLS + 1, 1, 1)
    r = sim.simulate("collision", 200, 16, 4, 1.0, reps=1)
    assert math.isfinite(r["mse_mean"])


def test_frequency_simulation_limits():
    with pytest.raises(ValueError, match="messages"):
        frequency.simulate_frequency("fe0", 10**7, 64, 1.0, rho=100.0)
    with pytest.raises(ValueError, match="reps"):
        frequency.simulate_frequency("fe0", 100, 64, 1.0, rho=1e6, reps=11)
    with pytest.raises(ValueError, match="cells"):
        frequency.frequency_table(list(range(1000, 1011)), list(range(64, 74)), [1.0])
    cost = frequency.make_protocol("fe0", 1000, 64, 1.0).simulation_cost()
    assert L.fe_refusal(cost) is None
    assert "B =" in L.fe_refusal({**cost, "domain": L.MAX_SIM_DOMAIN + 1})


# ---------------------------------------------------------------- the exit contract


@pytest.mark.parametrize("exc,status,word", [
    (ValueError("n must be an integer"), 2, "error: n must be"),
    (KeyboardInterrupt(), 130, "interrupted"),
    (MemoryError(), 1, "out of memory"),
    (PermissionError(13, "Permission denied", "/x"), 1, "Permission denied"),
    (TimeoutError("Timed out trying to connect"), 1, "Timed out"),
])
def test_guarded_one_line_and_status(exc, status, word, capsys):
    def body():
        raise exc

    assert L.guarded(body) == status
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    lines = [x for x in err.splitlines() if x]
    assert len(lines) == 1 and word in lines[0]


def test_guarded_passes_through_success_and_restores_sigterm(capsys):
    import signal

    before = signal.getsignal(signal.SIGTERM)
    assert L.guarded(lambda: 0) == 0
    assert signal.getsignal(signal.SIGTERM) is before


def test_guarded_does_not_hide_bugs():
    def body():
        raise KeyError("a bug")

    with pytest.raises(KeyError):
        L.guarded(body)


# ---------------------------------------------------------------- exports


def test_check_output_writable(tmp_path):
    f = tmp_path / "file.txt"
    f.write_text("x")
    with pytest.raises(ValueError, match="--out: directory"):
        L.check_output_writable(str(f / "out.csv"))
    with pytest.raises(ValueError, match="--out"):
        L.check_output_writable("/proc/out.csv")
    with pytest.raises(ValueError, match="directory, expected a file"):
        L.check_output_writable(str(tmp_path))
    with pytest.raises(ValueError, match="--out must be a file path"):
        L.check_output_writable("")
    assert L.check_output_writable(str(tmp_path / "ok.csv")) == str(tmp_path / "ok.csv")
    assert os.listdir(tmp_path) == ["file.txt"]  # the probe leaves nothing behind


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_write_atomic_respects_umask(tmp_path, mask):
    old = os.umask(mask)
    try:
        p = tmp_path / "a.csv"
        write_atomic(str(p), "x\n")
        with open(tmp_path / "plain.csv", "w") as fh:  # what a normal write gives
            fh.write("x\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE(p.stat().st_mode) == stat.S_IMODE((tmp_path / "plain.csv").stat().st_mode)
    assert stat.S_IMODE(p.stat().st_mode) == 0o666 & ~mask


def test_write_atomic_keeps_existing_mode(tmp_path):
    p = tmp_path / "a.md"
    p.write_text("old")
    os.chmod(p, 0o640)
    write_atomic(str(p), "new")
    assert p.read_text() == "new" and stat.S_IMODE(p.stat().st_mode) == 0o640


def test_write_atomic_writes_through_symlink(tmp_path):
    target = tmp_path / "real" / "t.csv"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    write_atomic(str(link), "new")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new" and link.read_text() == "new"
    assert sorted(os.listdir(target.parent)) == ["t.csv"]


def test_write_atomic_removes_temp_on_failure(tmp_path):

    with pytest.raises(TypeError):
        write_atomic(str(tmp_path / "a.csv"), 12345)  # neither str nor bytes: fails mid-write
    assert os.listdir(tmp_path) == []


def test_table_write_through_cli_keeps_symlink_and_mode(tmp_path):
    target = tmp_path / "t.csv"
    target.write_text("")
    os.chmod(target, 0o644)
    link = tmp_path / "l.csv"
    link.symlink_to(target)
    r = subprocess.run([sys.executable, "-m", "accountant", "table", "--n", "1000", "--eps0",
                        "0.5,1", "--delta", "1e-6", "--bounds", "tight", "--out", str(link),
                        "--workers", "1"], capture_output=True, text=True, timeout=60,
                       cwd=REPO_ROOT)
    assert r.returncode == 0, r.stderr
    text = target.read_text()
    assert link.is_symlink() and text.startswith("n,eps0,")
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert sorted(os.listdir(tmp_path)) == ["l.csv", "l.csv.json", "t.csv"]


# ----------------------------------------------------------------- issue 27 / issue 28 item 6
def test_issue27_item8_api_gaps_are_clear_value_errors(tmp_path):
    from accountant.core.params import make_params

    with pytest.raises(ValueError, match=r"^params must be a parameter object"):
        ShuffleAccountant(None, 1000)
    acc = ShuffleAccountant(make_params("generic", 1.0), 1000)
    with pytest.raises(ValueError, match=r"^rtol must be a number in \[1e-15, 0.1\], got None"):
        acc.get_epsilon(1e-6, rtol=None)
    with pytest.raises(ValueError, match=r"^rtol must be a number"):
        acc.epsilon_result(1e-6, rtol="x")
    with pytest.raises(ValueError, match=r"^path: .*'/proc'"):
        tables.write_table([], "/proc/x.csv")
    with pytest.raises(ValueError, match=r"directory .* does not exist"):
        tables.write_table([], str(tmp_path / "missing" / "x.csv"))
    assert list(tmp_path.iterdir()) == []


def test_issue27_item5_library_enforces_the_cli_limits():
    from accountant.protocols import bib
    from accountant.composition.compose import RoundSpec, compose_rounds

    with pytest.raises(ValueError, match=r"^n must be an integer in \[0, 10000000000\]"):
        bib.bib_epsilon(1e-6, 100, 2, 0, 10**12, 0.5)
    with pytest.raises(ValueError, match=r"expected blanket balls .* exceeds the limit"):
        bib.bib_divergence(1.0, 100, 2, 10**13, 10**10, 1.0)
    with pytest.raises(ValueError, match=r"^n must be an integer in \[1, 1e10\]"):
        ShuffleAccountant(GenericLDP(1.0), 10**12)
    with pytest.raises(ValueError, match=r"^rounds must be an integer in \[1, 10000\]"):
        compose_rounds(RoundSpec(1000, 1.0), 10**6, 1e-6)
    with pytest.raises(ValueError, match=r"^step must be a number in \(0, 1\]"):
        compose_rounds(RoundSpec(1000, 1.0), 2, 1e-6, step=0.0)
    with pytest.raises(ValueError, match=r"^step: profile samples per round .* exceeds the limit"):
        compose_rounds(RoundSpec(1000, 1.0), 2, 1e-6, step=1e-9)


@pytest.mark.parametrize("value", [1e-301, 0.0, 1.0, 1e-400, float("nan"), "1e-6", None], ids=repr)
def test_issue28_item6_one_delta_range_in_the_library(value):
    from accountant.bounds.registry import proved_epsilon
    from accountant.composition.compose import RoundSpec, compose_rounds

    for call in (lambda: ShuffleAccountant(GenericLDP(1.0), 100).get_epsilon(value),
                 lambda: proved_epsilon(100, 1.0, value),
                 lambda: compose_rounds(RoundSpec(100, 1.0), 2, value),
                 lambda: local_epsilon(100, 1.0, value)):
        with pytest.raises(ValueError, match=r"delta must be a number in \[1e-300, 1\)"):
            call()


def test_issue27_item6_tiny_eps0_refused_with_the_range():
    for value in (1e-17, 1e-320, 0.0):
        with pytest.raises(ValueError, match=r"^eps0 must be a number in \[1e-10, 30\]"):
            GenericLDP(value)
        with pytest.raises(ValueError, match=r"^eps0 must be a number in \[1e-10, 30\]"):
            sim.simulate("coco", 100, 16, 2, value)
    # the smallest accepted eps0 answers (post-processing: eps_c <= eps0)
    assert 0.0 <= ShuffleAccountant(GenericLDP(1e-10), 1000).get_epsilon(1e-6) <= 1e-10
