"""The command-line contract of ``python -m accountant``."""
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from accountant import (
    CollisionParams,
    GenericLDP,
    PairAccountant,
    ShuffleAccountant,
)
from tests.paths import REPO_ROOT

ROOT = Path(REPO_ROOT)


def run(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "accountant", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=300)


def test_epsilon_json():
    """The JSON contract: ``epsilon`` is proved, the lower bound and the paper's value beside it."""
    r = run("epsilon", "--n", "1e5", "--eps0", "2", "--delta", "1e-6", "--mechanism", "collision",
            "--s", "4", "--d", "128", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    for key in ("epsilon", "bound", "delta", "achieved_delta", "lower_epsilon", "paper_epsilon",
                "mechanism", "n", "eps0", "s", "t", "certified"):
        assert key in out
    p = CollisionParams(s=4, eps0=2.0)
    assert out["t"] == p.t == math.floor(4 * math.exp(2) + 7)
    assert out["bound"] == "blanket" and out["certified"] is True
    assert out["achieved_delta"] <= 1e-6
    assert out["epsilon"] == pytest.approx(ShuffleAccountant(p, 100_000).get_epsilon(1e-6), rel=1e-12)
    assert out["paper_epsilon"] == pytest.approx(PairAccountant(p, 100_000).get_epsilon(1e-6), rel=1e-12)
    # the proved number sits just above the paper's value; the lower bound below both
    assert out["paper_epsilon"] <= out["epsilon"] <= 1.02 * out["paper_epsilon"]
    assert 0 < out["lower_epsilon"] <= out["epsilon"]
    assert "Theorem 5" in out["paper_caveat"]
    # the worst hash family's certified lower end: within 1e-4 of the proved number, above the
    # random hash's lower end, and the Theorem 5 value between it and the proved number
    assert out["lower_epsilon"] < out["worst_hash_lower_epsilon"] <= out["paper_epsilon"] <= out["epsilon"]
    assert out["epsilon"] / out["worst_hash_lower_epsilon"] < 1 + 1e-4
    assert "worst hash family" in run("epsilon", "--n", "1e5", "--eps0", "2", "--delta", "1e-6",
                                      "--mechanism", "collision", "--s", "4", "--d", "128").stdout
    # every lower bound states its datasets and hash model
    assert out["d"] == 128 and "pairwise disjoint s-sets" in out["lower_dataset"]
    assert out["lower_hash_model"] == "uniformly random hash"
    assert out["worst_hash_lower_hash_model"] == "one fixed hash" and "d = 128" in out["worst_hash_lower_dataset"]


def _regression_args(*extra):
    return ("epsilon", "--n", "3", "--eps0", "1", "--delta", "1e-2", "--mechanism", "collision",
            "--s", "1", "--t", "6", "--json") + extra


def test_lower_bound_needs_the_dimension():
    """Issue 33: the disjoint-support construction needs d >= 3s.  Below that (d = 1: the exact
    eps_c is 0.608179, below the construction's 0.64993) and without --d there is no lower
    number, only the reason; the upper bound does not depend on d."""
    outs = {}
    for extra in ((), ("--d", "1"), ("--d", "2"), ("--d", "3")):
        r = run(*_regression_args(*extra))
        assert r.returncode == 0, r.stderr
        outs[extra] = json.loads(r.stdout)
    for extra in ((), ("--d", "1"), ("--d", "2")):
        o = outs[extra]
        assert o["lower_epsilon"] is None and o["worst_hash_lower_epsilon"] is None
        assert o["lower_dataset"] is None and "d >= 3 s = 3" in o["lower_reason"]
        assert o["epsilon"] == outs[("--d", "3")]["epsilon"]
    assert "give d (--d)" in outs[()]["lower_reason"] and "got d = 1" in outs[("--d", "1")]["lower_reason"]
    o = outs[("--d", "3")]
    assert o["lower_epsilon"] == pytest.approx(0.6499307, abs=1e-6) and o["lower_epsilon"] <= o["epsilon"]
    assert o["lower_hash_model"] == "uniformly random hash" and "d = 3" in o["lower_dataset"]
    # --d is validated (>= s) and refused where it does not apply
    r = run("epsilon", "--n", "10", "--eps0", "1", "--delta", "1e-2", "--mechanism", "collision",
            "--s", "4", "--d", "3")
    assert r.returncode == 2 and "s <= d = 3" in r.stderr and r.stdout == ""
    r = run("epsilon", "--n", "10", "--eps0", "1", "--delta", "1e-2", "--mechanism", "krr", "--k", "3",
            "--d", "9")
    assert r.returncode == 2 and "--d does not apply" in r.stderr


def test_generic_defaults():
    r = run("epsilon", "--n", "10000", "--eps0", "1", "--delta", "1e-6", "--json")
    out = json.loads(r.stdout)
    assert out["mechanism"] == "generic" and out["s"] is None and out["t"] is None
    assert out["bound"] in ("clone", "blanket-bennett-generic", "efmrtt19") and out["certified"]
    assert out["paper_epsilon"] <= out["epsilon"]


def test_krr_and_rr():
    r = run("epsilon", "--n", "1e5", "--eps0", "2", "--delta", "1e-6", "--mechanism", "krr", "--k", "7",
            "--json")
    out = json.loads(r.stdout)
    assert r.returncode == 0, r.stderr
    assert out["k"] == 7 and out["bound"] == "blanket" and out["epsilon"] < 2
    # k-RR with k values is Collision with s = 1, t = k (injective hash): same proved number
    col = ShuffleAccountant(CollisionParams(s=1, eps0=2.0, t=7), 100_000).get_epsilon(1e-6)
    assert out["epsilon"] == pytest.approx(col, rel=1e-12)
    r = run("epsilon", "--n", "1e5", "--eps0", "2", "--delta", "1e-6", "--mechanism", "rr", "--json")
    assert json.loads(r.stdout)["k"] == 2
    r = run("epsilon", "--n", "1e5", "--eps0", "2", "--delta", "1e-6", "--mechanism", "rr", "--k", "3")
    assert r.returncode == 2 and "k does not apply" in r.stderr


def test_delta_and_local_epsilon_json():
    r = run("delta", "--n", "1e6", "--eps0", "4", "--eps", "0.03", "--mechanism", "coco", "--s", "8",
            "--json")
    out = json.loads(r.stdout)
    assert out["epsilon"] == 0.03 and 0 < out["delta"] < 1e-6 and out["bound"] == "blanket"
    assert out["lower_delta"] is None or out["lower_delta"] <= out["delta"]
    assert out["paper_delta"] <= out["delta"]
    r = run("local-epsilon", "--n", "1e5", "--eps", "0.2", "--delta", "1e-7", "--json")
    out = json.loads(r.stdout)
    assert out["eps0"] >= 0.2 and out["certified"] is True
    assert ShuffleAccountant(GenericLDP(out["eps0"]), 100_000).get_epsilon(1e-7) <= 0.2


def test_human_output():
    r = run("epsilon", "--n", "10000", "--eps0", "1", "--delta", "1e-6")
    assert r.returncode == 0 and r.stdout.startswith("eps_c <= ")
    assert "proved" in r.stdout.splitlines()[0] and "not a proved bound" in r.stdout


@pytest.mark.parametrize("args,word", [
    (("epsilon", "--n", "0", "--eps0", "1", "--delta", "1e-6"), "n"),
    (("epsilon", "--n", "100", "--eps0", "1", "--delta", "2"), "delta"),
    (("epsilon", "--n", "100", "--eps0", "0", "--delta", "1e-6"), "eps0"),
    (("epsilon", "--n", "100", "--eps0", "1", "--delta", "1e-6", "--mechanism", "coco", "--s", "4",
      "--t", "11"), "t"),
    (("epsilon", "--n", "100", "--eps0", "1", "--delta", "1e-6", "--mechanism", "collision"), "s"),
    (("epsilon", "--n", "abc", "--eps0", "1", "--delta", "1e-6"), "--n"),
    (("epsilon", "--n", "100", "--eps0", "1"), "--delta"),
    (("delta", "--n", "100", "--eps0", "1", "--eps", "-1"), "epsilon"),
    (("frobnicate",), "command"),
])
def test_bad_input_one_line_exit_2(args, word):
    r = run(*args)
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr
    assert word in lines[0]


def test_local_epsilon_on_the_proved_bound():
    from accountant.bounds.registry import proved_epsilon

    r = run("local-epsilon", "--n", "1e5", "--eps", "0.5", "--delta", "1e-6", "--mechanism", "collision",
            "--s", "4", "--json")
    out = json.loads(r.stdout)
    assert out["certified"] is True and out["bound"] == "blanket"
    best = proved_epsilon(100_000, out["eps0"], 1e-6, "collision", 4, out["t"])
    assert best.epsilon <= 0.5 and best.name == out["bound"]
    assert out["achieved_epsilon"] <= 0.5
