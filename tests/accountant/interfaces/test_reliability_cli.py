"""Reliability contract of both command lines (issue 12).

Every invalid-input class, for every command: exit status 2, exactly one line on stderr,
the parameter named, no traceback, nothing on stdout, and an answer within a time limit
(in-process runs are timed by the test; subprocess runs have a subprocess timeout).
Interrupts and kills run in subprocesses: Ctrl-C exits 130 with one line and stops the
worker pool, SIGTERM removes temporary files, workers never outlive a killed parent.
"""
import os
import signal
import subprocess
import sys
import time

import pytest

from accountant.interfaces import cli as acli
from accountant.core import limits as L
from mechanisms.interfaces import cli as mcli
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
LIMIT_S = 20.0  # generous: refusals must come before any work (measured well under 1 s)


@pytest.fixture
def not_a_dir(tmp_path):
    f = tmp_path / "file.txt"
    f.write_text("x")
    return str(f / "out.csv")  # a path under a regular file: its directory cannot exist


def _run_inprocess(main, argv, capsys):
    t = time.monotonic()
    rc = main(argv)
    elapsed = time.monotonic() - t
    out, err = capsys.readouterr()
    return rc, out, err, elapsed


def _assert_refused(rc, out, err, elapsed, word):
    assert rc == 2, (rc, out, err)
    assert out == ""
    lines = err.strip("\n").splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert word in lines[0], (word, lines[0])
    assert lines[0].startswith("error: ")
    assert elapsed < LIMIT_S


EPS = ["--n", "1000", "--eps0", "1", "--delta", "1e-6"]
DEL = ["--n", "1000", "--eps0", "1", "--eps", "0.5"]
LOC = ["--n", "1000", "--eps", "0.5", "--delta", "1e-6"]
BIB = ["--m", "16", "--s", "1", "--n", "1000", "--rho", "2", "--eps", "1"]
TAB = ["--n", "1000", "--eps0", "0.5:2:3", "--delta", "1e-6"]


def _with(base, name, value):
    """``base`` with option ``name`` set to ``value`` (None: removed)."""
    out, i = [], 0
    while i < len(base):
        if base[i] == name:
            i += 2
            continue
        out.append(base[i])
        i += 1
    return out if value is None else out + [name, value]


def _bad(base, name, values, word=None) -> list:
    """Cases: ``base`` with option ``name`` set to each of ``values`` (None: removed), each
    refused with ``word`` (default: ``name``) in its one line."""
    return [(_with(base, name, v), word or name) for v in values]


# --n missing, zero, negative, non-integer, NaN, inf, of the wrong type
N_BAD = [None, "0", "-5", "10.5", "nan", "inf", "many"]
ACCOUNTANT_CASES = []
for cmd, base in (("epsilon", EPS), ("compare", EPS), ("delta", DEL), ("local-epsilon", LOC)):
    ACCOUNTANT_CASES += _bad([cmd] + base, "--n", N_BAD) + [
        ([cmd] + _with(base, "--n", "1e12"), "1e10"),               # huge: the limit is named
        ([cmd] + _with(base, "--mechanism", "cauchy"), "--mechanism"),  # unknown name
        ([cmd] + base + ["--s", "4"], "--s"),                       # not applicable to generic
        ([cmd] + base + ["--mechanism", "collision"], "--s"),       # missing for collision
    ]
ACCOUNTANT_CASES += (
    _bad(["epsilon"] + EPS, "--eps0", ["0", "-1", "inf", "nan", "1e6"])
    + _bad(["epsilon"] + EPS, "--delta", ["0", "1", "nan", "x"])
    + [(["epsilon"] + EPS + ["--rtol", "0"], "--rtol"),
       (["epsilon"] + EPS + ["--bound", "nope"], "--bound")]
    + _bad(["delta"] + DEL, "--eps", ["-1", "inf"])
    + [(["local-epsilon"] + LOC + ["--mechanism", "collision", "--s", "1e9"], "--s"),
       (["local-epsilon"] + LOC + ["--mechanism", "coco", "--s", "20000"], str(L.MAX_S_WALK))]
    + _bad(["bib"] + BIB, "--n", ["1e12", "0"]) + _bad(["bib"] + BIB, "--m", ["0", "2.5"])
    + _bad(["bib"] + BIB, "--rho", ["1e9", "-1", "nan"])
    + [(["bib"] + _with(_with(BIB, "--n", "1e10"), "--rho", "1e6"), "1,000,000,000,000"),  # 158 s, 24 GB before
       (["bib"] + _with(BIB, "--eps", "inf"), "--eps"),
       (["bib"] + _with(BIB, "--s", None), "--s"),
       (["frobnicate"], "command")]
    # no arguments at all: usage and common commands (test_reliability_first_use.py)
)


def _table_cases(tmp):
    out = os.path.join(tmp, "t.csv")
    T = ["table"] + TAB + ["--out", out]
    # --eps0: a huge range, zero points, a reversed range, empty lists, inf, NaN, negative,
    # the wrong type; --n huge, non-integer, zero
    return [(["table"] + TAB, "--out")] + _bad(  # --out missing
        T, "--eps0", ["0.1:5:1e9", "0.1:5:0", "5:0.1:10", "", ",", "0.5,inf", "0.5,nan", "0.5,-1", "a,b"]
    ) + _bad(T, "--n", ["1e12", "10.5", "0"]) + _bad(T, "--delta", ["0", "2"]) + [
        (_with(_with(T, "--eps0", "0.1:5:1000"), "--n", "1,2,3"), "grid"),    # grid over limit
        (_with(_with(T, "--eps0", "0.1:5:101"), "--n", "1e9"), "above 1e+08"),  # slow rows
        (_with(T, "--mechanism", "collision") + ["--s", "4", "--eps0", "0.5,inf"], "--eps0"),
        (_with(T, "--mechanism", "collision"), "--s"),                        # missing s
        (T + ["--s", "4"], "--s"),                                            # s for generic
        (_with(T, "--mechanism", "nope"), "--mechanism"),                     # unknown name
        (T + ["--bounds", "tight,nope"], "bounds"),                           # unknown bound
        (T + ["--workers", "0"], "--workers"),
        (T + ["--workers", "1e9"], "--workers"),
        (_with(T, "--out", "/proc/x.csv"), "--out"),                          # unwritable
        (_with(T, "--out", os.path.join(tmp, "no", "dir", "x.csv")), "--out"),
        (_with(T, "--out", os.path.join(tmp, "x.xls")), "out"),               # unknown format
        (_with(T, "--out", tmp), "out"),                                      # a directory
        (["figure", "--out", "/proc/f.html"], "--out"),
        (["figure", "--out", os.path.join(tmp, "f.gif")], "out"),
        (["figure", "--out", os.path.join(tmp, "f.html"), "--eps0", "0.1:5:1e9"], "--eps0"),
    ]


@pytest.mark.parametrize("argv,word", ACCOUNTANT_CASES, ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_accountant_invalid_input(argv, word, capsys):
    _assert_refused(*_run_inprocess(acli.main, argv, capsys), word)


def test_accountant_table_and_figure_invalid_input(tmp_path, capsys):
    for argv, word in _table_cases(str(tmp_path)):
        _assert_refused(*_run_inprocess(acli.main, argv, capsys), word)
        assert os.listdir(tmp_path) == [], argv  # nothing written, no temporary file left


def test_accountant_unwritable_out_refused_before_computing(not_a_dir, capsys, monkeypatch):
    from accountant.interfaces import tables

    def boom(*a, **k):  # the grid must not be computed
        raise AssertionError("computed before checking --out")

    monkeypatch.setattr(tables, "compute_table", boom)
    rc, out, err, el = _run_inprocess(acli.main, ["table"] + TAB + ["--out", not_a_dir], capsys)
    _assert_refused(rc, out, err, el, "--out")


def test_accountant_scheduler_unreachable_one_line(tmp_path, capsys):
    out = str(tmp_path / "t.csv")
    rc, so, err, el = _run_inprocess(
        acli.main, ["table"] + TAB + ["--out", out, "--scheduler", "not an address:::"], capsys)
    assert rc == 2 and so == "" and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "--scheduler" in lines[0]
    assert not os.path.exists(out)


SIM = ["simulate", "--mechanism", "collision", "--n", "1000", "--d", "16", "--s", "4", "--eps0", "1"]
FE = ["simulate", "--mechanism", "fe0", "--n", "1000", "--B", "64", "--eps", "1"]
ERR = ["error", "--mechanism", "coco", "--n", "1000", "--d", "16", "--s", "4", "--eps0", "1"]


def _mech_cases(tmp):
    CMP = ["compare", "--n", "1000", "--d", "16", "--s", "4", "--eps0", "1", "--out",
           os.path.join(tmp, "c.md")]
    FET = ["fe-table", "--n", "1000", "--B", "64", "--eps", "1", "--out", os.path.join(tmp, "f.md")]
    cases = []
    for base in (SIM, ERR, CMP):
        cases += _bad(base, "--n", N_BAD) + _bad(base, "--d", ["0"]) + _bad(base, "--s", ["0"])
    cases += [
        (_with(SIM, "--n", "1e12"), "--n"),                              # huge
        (_with(_with(SIM, "--n", "3e6"), "--d", "100"), "n x d"),         # memory limit named
        (_with(_with(SIM, "--n", "1e6"), "--d", "50") + ["--reps", "20"], "n x d x reps"),
        (SIM + ["--reps", "0"], "--reps"),
        (SIM + ["--seed", "-1"], "--seed"),
    ] + _bad(SIM, "--eps0", ["1e6", "nan", "0"]) + [                      # 1e6: baselines overflowed
        (_with(SIM, "--mechanism", "privkv") + ["--t", "10"], "t"),      # not applicable
        (SIM + ["--B", "5"], "--B"),                                      # FE option refused
        (SIM + ["--rho", "3"], "--rho"),
        (_with(SIM, "--mechanism", "nope"), "--mechanism"),
        (_with(SIM, "--d", "2"), "s"),                                    # s > d
    ] + _bad(FE, "--rho", ["1e9", "nan", "-1"]) + _bad(FE, "--B", [None, "1e12"]) + [  # 1e9: huge rho
        (_with(FE, "--eps", "inf"), "--eps"),
        (FE + ["--d", "10"], "--d"),                                      # sparse option refused
        (FE + ["--b", "10"], "--b"),                                      # fe1 option on fe0
        (FE + ["--beta", "1"], "--beta"),
        (FE + ["--delta", "0"], "--delta"),
        (_with(_with(FE, "--n", "1e7"), "--rho", "100"), "messages"),     # message limit named
        (_with(ERR, "--mechanism", "privkv"), "--mechanism"),
        (_with(ERR, "--t", "11"), "t"),                                   # odd t for CoCo
    ] + _bad(CMP, "--s", ["", ","]) + _bad(CMP, "--eps0", ["1,inf", "1,-1"]) + [  # empty lists
        (_with(CMP, "--out", "/proc/c.md"), "--out"),                     # unwritable
        (_with(CMP, "--out", os.path.join(tmp, "c.xls")), "--out"),
        (_with(_with(CMP, "--n", "1e6"), "--d", "40") + ["--reps", "20"], "reps"),
        (_with(FET, "--n", "1e12"), "--n"),
        (_with(FET, "--n", ""), "--n"),
        (_with(FET, "--eps", "nan"), "--eps"),
        (_with(FET, "--out", "/proc/f.md"), "--out"),
        (_with(FET, "--n", ",".join(str(1000 + i) for i in range(11)))
         + ["--B", ",".join(str(64 + i) for i in range(10))], "cells"),
        (["fe-table", "--n", "1000"], "required"),
        (["nope"], "command"),
    ]
    return cases


def test_mechanisms_invalid_input(tmp_path, capsys):
    for argv, word in _mech_cases(str(tmp_path)):
        _assert_refused(*_run_inprocess(mcli.main, argv, capsys), word)
    assert os.listdir(tmp_path) == []


# ---------------------------------------------------------------- subprocess sample


def _sub(module, *args, timeout=60):
    t = time.monotonic()
    r = subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True,
                       text=True, timeout=timeout)
    return r, time.monotonic() - t


@pytest.mark.parametrize("module,args,word", [
    ("accountant", ("delta", "--n", "1e12", "--eps0", "1", "--eps", "0.5"), "--n"),
    ("accountant", ("bib", "--n", "1e12", "--m", "10", "--s", "1", "--rho", "2", "--eps", "1"), "--n"),
    ("accountant", ("local-epsilon", "--n", "1000", "--eps", "1", "--delta", "1e-6",
                    "--mechanism", "collision", "--s", "1e9"), "--s"),
    ("accountant", ("table", "--n", "1000", "--eps0", "0.1:5:1e9", "--delta", "1e-6",
                    "--out", "/proc/x.csv"), "--eps0"),
    ("mechanisms", ("simulate", "--mechanism", "fe0", "--n", "100", "--B", "100", "--eps", "1",
                    "--rho", "1e9"), "--rho"),
    ("mechanisms", ("simulate", "--mechanism", "coco", "--n", "2e7", "--d", "1000", "--s", "4",
                    "--eps0", "1"), "n x d"),
])
def test_subprocess_refusals(module, args, word):
    r, el = _sub(module, *args, timeout=60)
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and word in lines[0] and "Traceback" not in r.stderr
    assert el < 60


BIG_TABLE = ["table", "--n", "1000,2000,3000,4000,5000", "--eps0", "0.1:5:100", "--delta", "1e-6",
             "--workers", "2"]


def _alive(pid: str) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except OSError:
        return False


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            f = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def _ignore_sigint() -> None:  # what a shell does to a background job (`cmd &`)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _start_table(out, preexec=None):
    p = subprocess.Popen([sys.executable, "-m", "accountant", *BIG_TABLE, "--out", out], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, preexec_fn=preexec)
    deadline = time.monotonic() + 30
    kids: list = []
    while time.monotonic() < deadline:  # wait until both workers run
        kids = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True,
                              text=True).stdout.split()
        if len(kids) >= 2:
            break
        time.sleep(0.2)
    time.sleep(1.0)
    assert p.poll() is None, "grid finished before the signal: make it larger"
    return p, kids


def _no_survivors(kids):
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(k) for k in kids):
        time.sleep(0.1)
    return not any(_alive(k) for k in kids)


@pytest.mark.parametrize("background", [False, True], ids=["foreground", "sigint-ignored"])
def test_ctrl_c_exits_130_and_stops_pool(tmp_path, background):
    out = str(tmp_path / "t.csv")
    p, kids = _start_table(out, _ignore_sigint if background else None)
    # the child itself (its own session): holds however the suite is started (foreground,
    # background job, no terminal, CI)
    os.kill(p.pid, signal.SIGINT)
    t = time.monotonic()
    _, err = p.communicate(timeout=20)
    assert time.monotonic() - t < 15
    assert p.returncode == 130
    assert "Traceback" not in err
    assert err.rstrip("\n").splitlines()[-1] == "interrupted"
    assert _no_survivors(kids)
    assert os.listdir(tmp_path) == []


def test_sigterm_cleans_up(tmp_path):
    out = str(tmp_path / "t.csv")
    p, kids = _start_table(out)
    p.terminate()
    _, err = p.communicate(timeout=20)
    assert p.returncode == 143 and "Traceback" not in err
    assert err.rstrip("\n").splitlines()[-1] == "terminated"
    assert _no_survivors(kids)
    assert os.listdir(tmp_path) == []


def test_workers_die_with_killed_parent(tmp_path):
    p, kids = _start_table(str(tmp_path / "t.csv"))
    assert len(kids) >= 2
    p.kill()
    p.wait(timeout=20)
    try:
        assert _no_survivors(kids)
    finally:  # never leave orphans behind, even when the assertion fails
        for k in kids:
            if _alive(k):
                os.kill(int(k), signal.SIGKILL)


@pytest.mark.parametrize("background", [False, True], ids=["foreground", "sigint-ignored"])
def test_ctrl_c_during_simulation_exits_130(background):
    # about 18 s of work (10 runs of SUCCINCT); the signal once the child has used 1.5 s of
    # CPU time (past its imports, inside the simulation), however loaded the machine is
    p = subprocess.Popen([sys.executable, "-m", "mechanisms", "simulate", "--mechanism", "succinct",
                          "--n", "1000000", "--d", "50", "--s", "4", "--eps0", "1", "--reps", "10"],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, preexec_fn=_ignore_sigint if background else None)
    deadline = time.monotonic() + 60
    while _cpu_seconds(p.pid) < 1.5 and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert p.poll() is None
    os.kill(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=20)
    assert p.returncode == 130 and out == ""
    assert err.strip().splitlines() == ["interrupted"]


# ----------------------------------------------------------------- issue 27 item 7
def _browser_children(pid: int) -> list:
    """pids of processes whose command line mentions the temporary PNG profile of the export
    ``pid`` (``accountant-figure-PID-*``: another test's export on another worker is not ours)."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/cmdline", "rb") as fh:
                    if b"accountant-figure-%d-" % pid in fh.read():
                        out.append(int(d))
            except OSError:
                pass
    return out


@pytest.mark.parametrize("sig,status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_during_png_export_removes_the_profile(tmp_path, sig, status):
    """Ctrl-C / SIGTERM while Chromium renders: exit 130 / 143, the temporary profile is
    removed and no browser process survives (was: exit 1 'Directory not empty')."""
    import tempfile

    import pathlib
    import shutil

    # a short TMPDIR of our own (Chromium's socket paths must stay below 108 characters)
    tmpdir = pathlib.Path(tempfile.mkdtemp(prefix="t27-", dir="/tmp"))
    env = dict(os.environ, PYTHONPATH=ROOT, TMPDIR=str(tmpdir))
    p = subprocess.Popen([sys.executable, "-m", "accountant", "figure", "--out", str(tmp_path / "f.png"),
                          "--n", "1000", "--s", "4", "--eps0", "0.5:1:2"], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not _browser_children(p.pid) and p.poll() is None:
        time.sleep(0.05)
    assert p.poll() is None, "the export finished before Chromium was seen"
    time.sleep(0.5)  # Chromium is writing its profile
    p.send_signal(sig)  # the child itself, not an inherited process group
    _, err = p.communicate(timeout=60)
    assert p.returncode == status, err
    assert "Traceback" not in err and "Directory not empty" not in err
    # wait on the event itself (the profile gone, every browser process reaped), not a fixed delay
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (any(tmpdir.iterdir()) or _browser_children(p.pid)):
        time.sleep(0.05)
    left = list(tmpdir.iterdir())
    shutil.rmtree(tmpdir, ignore_errors=True)
    assert left == []
    assert not (tmp_path / "f.png").exists()
    assert _browser_children(p.pid) == []
