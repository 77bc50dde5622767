"""``users`` takes every deployment option ``epsilon`` takes: the smallest N whose ``epsilon`` with
the same options meets the target (``epsilon --n N`` confirms it, ``--n N-1`` does not), and the
options it does not search over (--n-min, --mix) or whose proof does not cover the randomizer are
refused in one line naming the option, exit status 2."""
from __future__ import annotations

import json

import pytest

from accountant.interfaces.cli.main import main


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _json(capsys, argv):
    code, out, err = _run(capsys, argv + ["--json"])
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("options", [
    ["--sampling", "0.1", "--rounds", "3"],
    ["--sampling", "0.2", "--neighbours", "add-remove"],
    ["--colluders", "30", "--dummies", "5"],
    ["--reports", "2"],
])
def test_users_with_deployment_options_is_confirmed_by_epsilon(capsys, options):
    base = ["--eps0", "1", "--delta", "1e-6"]
    r = _json(capsys, ["users", "--eps", "0.5"] + base + options)
    n = r["n"]
    assert n is not None and r["epsilon_at_n"] <= 0.5 < r["epsilon_at_n_minus_1"]
    at = _json(capsys, ["epsilon", "--n", str(n)] + base + options)
    below = _json(capsys, ["epsilon", "--n", str(n - 1)] + base + options)
    assert at["epsilon"] == r["epsilon_at_n"] <= 0.5 < below["epsilon"] == r["epsilon_at_n_minus_1"]
    assert at["bound"] == r["bound_at_n"] and r["statement"].startswith(at["statement"])
    code, text, _ = _run(capsys, ["users", "--eps", "0.5"] + base + options)
    assert code == 0 and text.startswith(f"n = {n} users: eps_c <= ") and "\n  deployment: " in text


@pytest.mark.parametrize("options,flag", [
    (["--n-min", "1000"], "--n-min"),
    (["--mix", "docs/examples/mix-rr.json"], "--mix"),
    (["--neighbours", "add-remove"], "--neighbours"),
    (["--sampling", "0.5", "--colluders", "3"], "--sampling with --colluders"),
    (["--reports", "2", "--dummies", "3"], "--reports with --dummies"),
])
def test_users_refuses_in_one_line(capsys, options, flag):
    code, out, err = _run(capsys, ["users", "--eps0", "1", "--eps", "0.5", "--delta", "1e-6"] + options)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and flag in err


def test_users_refuses_sampling_for_a_class_without_eps0(capsys):
    code, out, err = _run(capsys, ["users", "--eps", "0.5", "--delta", "1e-6", "--mechanism", "variation-ratio",
                                   "--p", "2", "--beta", "0.3", "--sampling", "0.5"])
    assert code == 2 and "--sampling needs an eps0-LDP randomizer" in err
