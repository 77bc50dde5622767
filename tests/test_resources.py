"""Bounded time and memory (issue 27): extreme but valid inputs under an address-space cap.

Each command runs in a subprocess with ``RLIMIT_AS`` = ``CAP_BYTES`` (a runaway is killed
by the kernel's allocation failure, a legitimate run fits) and a wall-clock guard; it must
answer (exit 0 with output) or refuse cleanly (exit 2, one line on stderr starting with
``error:``), never a traceback, never killed.  The inputs are the largest/smallest values
the parsers accept (accountant.core.limits), alone and combined, plus the cases of issue 27.
A property test draws random valid inputs from the whole accepted ranges.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accountant.core import limits as L

ROOT = Path(__file__).resolve().parents[1]
# 3 GB of address space: numpy/openblas reserve virtual memory per thread (threads are
# set to 1 below); the largest accepted inputs peak below 1 GB resident (docs/BENCHMARKS.md)
CAP_BYTES = 3 * 2**30
# a guard against a hang, far above the 60 s each command must answer within
GUARD_SECONDS = 240


def _limit() -> None:  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (CAP_BYTES, CAP_BYTES))


def run_capped(args, tmp_path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1", PYTHONWARNINGS="default")
    return subprocess.run([sys.executable, "-m", *args], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=GUARD_SECONDS, preexec_fn=_limit)


def assert_clean(r: subprocess.CompletedProcess, args) -> None:
    where = " ".join(args)
    assert "Traceback" not in r.stderr, where + "\n" + r.stderr[-2000:]
    assert r.returncode in (0, 2), f"{where}: exit {r.returncode}\n{r.stderr[-2000:]}"
    if r.returncode == 0:
        assert r.stdout.strip(), where
        assert "RuntimeWarning" not in r.stderr, where + "\n" + r.stderr[-2000:]
    else:
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), where + "\n" + r.stderr


MAXN, MAXT = str(L.MAX_N), str(L.T_MAX)
EXTREMES = [
    # issue 27 item 1: 23.7 GB before; item 2: 5.3 GB before
    ("accountant", "delta", "--n", "1e9", "--eps0", "1", "--eps", "0.5", "--json"),
    ("accountant", "delta", "--n", MAXN, "--eps0", "1", "--eps", "0.01", "--json"),
    ("accountant", "epsilon", "--n", "100000", "--eps0", "0.5", "--delta", "1e-300", "--mechanism",
     "collision", "--s", "4", "--json"),
    # the ends of every range, alone and combined
    ("accountant", "epsilon", "--n", MAXN, "--eps0", "30", "--delta", "1e-300", "--json"),
    ("accountant", "epsilon", "--n", "1", "--eps0", "1e-10", "--delta", "0.999999", "--json"),
    ("accountant", "epsilon", "--n", MAXN, "--eps0", "1", "--log-delta", "-10000", "--json"),
    ("accountant", "local-epsilon", "--n", MAXN, "--eps", "30", "--delta", "1e-300", "--json"),
    # 119 s before the saddle-point start (the pair's capped window gave no guess)
    ("accountant", "local-epsilon", "--n", MAXN, "--eps", "1e-3", "--delta", "1e-300", "--mechanism",
     "collision", "--s", "4", "--json"),
    ("accountant", "bib", "--m", MAXT, "--s", "1", "--n", MAXN, "--p", "1", "--eps", "30", "--json"),
    ("accountant", "compose", "--rounds", str(L.MAX_ROUNDS), "--n", "1000", "--eps0", "1",
     "--delta", "1e-6", "--json"),
    ("accountant", "compose", "--rounds", "2", "--n", "1000", "--eps0", "1", "--delta", "1e-6",
     "--step", "1e-9"),
    # hash_model random at the largest s (O(s^5) and > 300 s at s = 256 before), and above it
    ("accountant", "epsilon", "--n", "1e6", "--eps0", "1", "--delta", "1e-6", "--mechanism",
     "collision", "--s", "1024", "--hash-model", "random", "--json"),
    ("accountant", "epsilon", "--n", "1e6", "--eps0", "30", "--delta", "1e-6", "--mechanism",
     "collision", "--s", "1024", "--hash-model", "random", "--json"),
    ("accountant", "epsilon", "--n", "1e6", "--eps0", "1e-10", "--delta", "1e-6", "--mechanism",
     "coco", "--s", "128", "--hash-model", "random", "--json"),
    # refusals: above the limits
    ("accountant", "epsilon", "--n", "1e6", "--eps0", "1", "--delta", "1e-6", "--mechanism",
     "collision", "--s", "1025", "--hash-model", "random"),
    ("accountant", "epsilon", "--n", "1e6", "--eps0", "1", "--delta", "1e-6", "--mechanism",
     "coco", "--s", "129", "--hash-model", "random"),
    ("accountant", "compose", "--rounds", "1000000", "--n", "100", "--eps0", "1", "--delta", "1e-6"),
    ("accountant", "compare", "--n", "100", "--eps0", "1", "--delta", "1e-400"),
    ("mechanisms", "simulate", "--mechanism", "coco", "--n", "1000", "--d", "16", "--s", "2",
     "--eps0", "1e-320", "--json"),
]


@pytest.mark.parametrize("args", EXTREMES, ids=lambda a: " ".join(a[1:6]))
def test_extreme_inputs_answer_or_refuse_under_the_cap(args, tmp_path):
    assert_clean(run_capped(args, tmp_path), args)


@pytest.mark.parametrize("content,word", [
    ("[" * 100_000, "nested deeper"),                                  # was RecursionError
    ('[{"n": 1' + "0" * 400 + ', "eps0": 1}]', "field 'n'"),           # was OverflowError
    ('[{"n": 1000, "eps0": 1' + "0" * 400 + "}]", "field 'eps0'"),
    ('[{"n": 1000, "eps0": 1, "s": 1' + "0" * 400 + ', "mechanism": "collision"}]', "field 's'"),
    ('[{"n": 1000, "eps0": 1, "repeat": 10000000}]', "field 'repeat'"),  # was 15 GB, killed
    ('[{"n": 1000, "eps0": 1, "repeat": 6000}, {"n": 100, "eps0": 1, "repeat": 6000}]', "10,000 rounds"),
    (b"\x89PNG\x00\xff\xfe", "not a UTF-8"),                            # binary file
])
def test_schedule_files_refused_naming_schedule(content, word, tmp_path):
    f = tmp_path / "s.json"
    if isinstance(content, bytes):
        f.write_bytes(content)
    else:
        f.write_text(content)
    args = ("accountant", "compose", "--schedule", str(f), "--delta", "1e-6")
    r = run_capped(args, tmp_path)
    assert_clean(r, args)
    assert r.returncode == 2 and "--schedule" in r.stderr and word in r.stderr, r.stderr


def test_capped_window_is_still_an_upper_bound():
    """The cost model narrows a long window and adds what it leaves out: the result is a
    proved (looser) upper bound, never below the uncapped value (brute-force check at small
    n with a tiny cap)."""
    from accountant.engines import pair as D
    from accountant.engines.pair import law as pair_law  # where the cap is read

    pair = D.DominatingPair.clone(300, 1.0)
    full = D.hockey_stick_divergence(pair, 0.3)
    old = pair_law.MAX_WINDOW_TERMS
    try:
        pair_law.MAX_WINDOW_TERMS = 20
        capped = D.hockey_stick_divergence(pair, 0.3)
    finally:
        pair_law.MAX_WINDOW_TERMS = old
    assert capped.window[1] - capped.window[0] + 1 <= 20
    assert capped.upper >= full.upper
    assert capped.upper >= D.hockey_stick_bruteforce(pair, 0.3)
    assert capped.truncated > full.truncated


def test_blanket_binned_cost_cap_keeps_a_proved_upper_end():
    from accountant.engines import blanket as B
    from accountant.engines.blanket import engine as blanket_engine  # where the cap is read

    law = B.CountLaw.collision_blanket(0.5, 4, 13)
    ref = B.positive_part(law, 20_000, 0.01, method="binned")
    fine = B.positive_part(law, 20_000, 0.01, method="binned", min_bins=3, bin_gap=1e-12)
    old = blanket_engine.MAX_BINNED_CELLS
    try:
        blanket_engine.MAX_BINNED_CELLS = 3 * 3000  # a few bins at most on this m-window
        capped = B.positive_part(law, 20_000, 0.01, method="binned", min_bins=3, bin_gap=1e-12)
    finally:
        blanket_engine.MAX_BINNED_CELLS = old
    assert capped.bins < fine.bins  # the cap stopped the refinement the gap asked for
    assert capped.lower <= fine.lower <= fine.upper <= capped.upper  # a looser proved bracket
    assert capped.lower <= ref.upper and capped.upper >= ref.lower
    assert capped.upper >= ref.value >= capped.lower


# ---------------------------------------------------------------- property test
_n = st.integers(1, L.MAX_N)
_eps0 = st.floats(L.EPS0_MIN, L.EPS_MAX)
_delta = st.floats(L.DELTA_MIN, 0.999999)
_mech = st.sampled_from(["generic", "collision", "coco", "krr", "rr"])


@st.composite
def cli_inputs(draw):
    cmd = draw(st.sampled_from(["epsilon", "delta", "local-epsilon", "compose"]))
    mech = draw(_mech)
    extra = []
    if mech in ("collision", "coco"):
        extra = ["--s", str(draw(st.integers(1, L.T_MAX)))]
    elif mech == "krr":
        extra = ["--k", str(draw(st.integers(2, L.T_MAX)))]
    n = str(draw(_n))
    if cmd == "epsilon":
        return ["epsilon", "--n", n, "--eps0", repr(draw(_eps0)), "--delta", repr(draw(_delta)),
                "--mechanism", mech, *extra, "--json"]
    if cmd == "delta":
        return ["delta", "--n", n, "--eps0", repr(draw(_eps0)), "--eps", repr(draw(_eps0)),
                "--mechanism", mech, *extra, "--json"]
    if cmd == "local-epsilon":
        return ["local-epsilon", "--n", n, "--eps", repr(draw(_eps0)), "--delta", repr(draw(_delta)),
                "--mechanism", mech, *extra, "--json"]
    return ["compose", "--rounds", str(draw(st.integers(1, L.MAX_ROUNDS))), "--n", n, "--eps0",
            repr(draw(_eps0)), "--delta", repr(draw(_delta)), "--json"]


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(args=cli_inputs())
def test_random_valid_inputs_answer_or_refuse_under_the_cap(args, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("prop")
    full = ("accountant", *args)
    r = run_capped(full, tmp)
    assert_clean(r, full)
    if r.returncode == 0:
        json.loads(r.stdout)


def test_capped_clone_says_so_and_stays_proved():
    """n = 1e10 at delta = 1e-300: the clone window would need ~3.6e6 terms; the capped
    window cannot certify any eps below eps0, so eps0 is reported with the cost-limit note
    (JSON ``reason``), while the headline stays the smallest proved bound."""
    from accountant.bounds.registry import WINDOW_NOTE, compute_params_bound, proved_params_epsilon
    from accountant.core.params import make_params

    p = make_params("generic", 1.0)
    r = compute_params_bound("clone", p, 10**10, 1e-300)
    assert r.epsilon == 1.0 and r.reason == WINDOW_NOTE
    head = proved_params_epsilon(p, 10**10, 1e-300)
    assert head.epsilon < 0.01 and head.achieved_delta <= 1e-300
    small = compute_params_bound("clone", p, 10**6, 1e-6)
    assert small.reason is None and small.epsilon < 0.01
