"""The options that users, compose and epsilon's deployment path once accepted and dropped are
used (the number follows them and the JSON records them) or refused in one line.

The walk over every option is tests/accountant/interfaces/test_option_walk.py; here the numbers:
the inverse (``users``) answers the n at which the forward command (``epsilon``) with the same
options meets the target, and n - 1 does not.
"""
import time

import pytest

from accountant import RoundSpec, min_users, parse_schedule
from accountant.core import limits as L
from accountant.interfaces.cli import main, run


def _eps(n: int, opts: list) -> float:
    return run(["epsilon", "--n", str(n), "--delta", "1e-6"] + opts)["epsilon"]


@pytest.mark.parametrize("opts,target", [
    (["--eps0", "1", "--mechanism", "olh", "--k", "4", "--g", "2"], 0.2),
    (["--eps0", "2", "--mechanism", "olh", "--k", "4", "--hash-model", "random"], 1.5),
    (["--mechanism", "variation-ratio", "--p", "2.7", "--beta", "0.3"], 0.3),
    (["--mechanism", "variation-ratio", "--p", "2.7", "--beta", "0.3", "--q", "4"], 0.3),
])
def test_users_meets_what_epsilon_reports(opts, target):
    """users with g, the random-hash model or the variation-ratio parameters: epsilon with the
    same options proves the target at n and not at n - 1."""
    out = run(["users", "--eps", str(target), "--delta", "1e-6"] + opts)
    n = out["n"]
    assert _eps(n, opts) <= target < _eps(n - 1, opts)
    assert out["epsilon_at_n"] <= target


def test_users_g_changes_n_and_is_recorded():
    base = ["users", "--eps0", "1", "--eps", "0.2", "--delta", "1e-6", "--mechanism", "olh", "--k", "4"]
    with_g, without = run(base + ["--g", "2"]), run(base)
    assert (with_g["n"], with_g["g"]) == (576, 2)
    assert (without["n"], without["g"]) == (371, 4)  # the default g = round(e^eps0) + 1


def test_users_hash_model_and_d_recorded():
    base = ["users", "--eps0", "2", "--eps", "1.5", "--delta", "1e-6", "--mechanism", "collision", "--s", "2"]
    anyh, rand = run(base), run(base + ["--hash-model", "random"])
    assert (anyh["hash_model"], rand["hash_model"]) == ("any", "random")
    assert rand["n"] <= anyh["n"] and rand["assumption"] != anyh["assumption"]
    assert run(base + ["--d", "12"])["d"] == 12 and anyh["d"] is None


def test_min_users_keywords():
    """The library call takes the same parameters (existing keyword calls unchanged)."""
    assert min_users(1.0, 0.2, 1e-6, "olh", k=4).n == 371
    assert min_users(1.0, 0.2, 1e-6, "olh", k=4, g=2).n == 576
    r = min_users(None, 0.3, 1e-6, "variation-ratio", p=2.7, beta=0.3)
    assert r.n == run(["users", "--eps", "0.3", "--delta", "1e-6", "--mechanism", "variation-ratio",
                       "--p", "2.7", "--beta", "0.3"])["n"]
    with pytest.raises(ValueError, match="g does not apply"):
        min_users(1.0, 0.2, 1e-6, "krr", k=4, g=2)


def test_round_spec_g():
    spec = RoundSpec(1000, 1.0, "olh", k=4, g=2)
    assert spec.params().g == 2 and RoundSpec(1000, 1.0, "olh", k=4).params().g == 4
    assert spec != RoundSpec(1000, 1.0, "olh", k=4)
    with pytest.raises(ValueError, match="g does not apply to mechanism 'krr'"):
        RoundSpec(1000, 1.0, "krr", k=4, g=2)
    specs = parse_schedule([{"n": 1000, "eps0": 1.0, "mechanism": "olh", "k": 4, "g": 2, "repeat": 2}])
    assert [s.g for s in specs] == [2, 2]
    with pytest.raises(ValueError, match="round 0: unknown field 'g'"):
        parse_schedule([{"n": 1000, "eps0": 1.0, "mechanism": "krr", "k": 4, "g": 2}])


def test_compose_g():
    base = ["compose", "--rounds", "2", "--n", "1000", "--eps0", "1", "--mechanism", "olh", "--k", "4",
            "--delta", "1e-6", "--step", "0.05"]
    outs = [run(base + g) for g in (["--g", "2"], ["--g", "8"], [])]
    assert [o["round"]["g"] for o in outs] == [2, 8, 4]
    assert len({o["epsilon"] for o in outs}) == 3


@pytest.mark.parametrize("argv,name", [
    (["compose", "--rounds", "2", "--n", "1000", "--delta", "1e-6", "--mechanism", "variation-ratio",
      "--p", "2.7", "--beta", "0.3", "--g", "3"], "--g"),
    (["compose", "--rounds", "2", "--n", "1000", "--eps0", "1", "--delta", "1e-6", "--g", "3"], "--g"),
    (["compose", "--schedule", "docs/examples/rounds.json", "--delta", "1e-6", "--s", "3"], "--s"),
    (["compose", "--schedule", "docs/examples/rounds.json", "--delta", "1e-6", "--mechanism", "rr"],
     "--mechanism"),
    (["users", "--eps0", "1", "--eps", "0.2", "--delta", "1e-6", "--mechanism", "krr", "--k", "4",
      "--g", "2"], "--g"),
    (["users", "--eps0", "1", "--eps", "0.2", "--delta", "1e-6", "--hash-model", "random"], "--hash-model"),
])
def test_refused_naming_the_option(argv, name, capsys):
    from tests.paths import REPO_ROOT

    argv = [a if not a.startswith("docs/") else f"{REPO_ROOT}/{a}" for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert name in err and len(err.splitlines()) == 1, err


def test_epsilon_deployment_rounds_capped(capsys):
    """epsilon's --rounds (deployment options) stops at the limit of the other commands, before
    any work."""
    t = time.perf_counter()
    argv = ["epsilon", "--n", "1000", "--eps0", "1", "--delta", "1e-6", "--sampling", "0.5"]
    assert main(argv + ["--rounds", str(L.MAX_ROUNDS + 1)]) == 2
    err = capsys.readouterr().err
    assert "--rounds" in err and f"{L.MAX_ROUNDS}" in err.replace(",", "")
    assert time.perf_counter() - t < 5


def test_epsilon_deployment_rounds_use_the_randomizer():
    """--colluders with --rounds composes the round of the randomizer given: olh's g and the
    variation-ratio parameters are used and recorded."""
    base = ["epsilon", "--n", "300", "--delta", "1e-6", "--colluders", "10", "--rounds", "2"]
    olh = base + ["--eps0", "1", "--mechanism", "olh", "--k", "4"]
    a, b = run(olh + ["--g", "2"]), run(olh)
    assert a["epsilon"] != b["epsilon"] and (a["g"], b["g"]) == (2, 4)
    vr = run(base + ["--mechanism", "variation-ratio", "--p", "2.7", "--beta", "0.3"])
    assert vr["p"] == 2.7 and vr["epsilon"] > 0


def test_users_text_says_the_hash_assumption(capsys):
    argv = ["users", "--eps0", "2", "--eps", "1.5", "--delta", "1e-6", "--mechanism", "olh", "--k", "4"]
    assert main(argv + ["--hash-model", "random"]) == 0
    assert "assumption: each report's hash is a uniformly random function" in capsys.readouterr().out
    assert main(argv) == 0
    assert "assumption" not in capsys.readouterr().out
