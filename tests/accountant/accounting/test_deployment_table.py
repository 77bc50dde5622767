"""The one compatibility table of the deployment features (accountant.accounting.deployment.COMBINES),
tested against every pair of features: the library's Deployment, the library's check_deployment, the
command line's ``epsilon`` and ``delta`` checks and the pages' wording all accept the pairs the table
accepts and refuse the others with the table's reason, naming both features in their own words."""
from __future__ import annotations

import itertools
import json

import pytest

from accountant import make_params
from accountant.accounting import deployment as DEP
from accountant.accounting import deployments as D
from accountant.accounting.deployment_proof import deployed_delta, deployed_epsilon
from accountant.interfaces.cli import deployments as CLI
from accountant.interfaces.cli.parser import build_parser

PAIRS = list(itertools.combinations(DEP.FEATURES, 2))
GROUPS = DEP.parse_mix([{"count": 50, "mechanism": "rr", "eps0": 1}, {"count": 50, "mechanism": "rr", "eps0": 2}])
# each feature as the library's field, the command line's options and the page's chosen options
FIELD = {"colluders": {"colluders": 3}, "n_min": {"n_min": True}, "dummies": {"dummies": 4},
         "sampling": {"sampling": 0.5}, "reports": {"reports": 2}, "mix": {"mix": GROUPS}, "rounds": {"rounds": 2}}
FLAGS = {"colluders": ["--colluders", "3"], "n_min": ["--n-min", "100"], "dummies": ["--dummies", "4"],
         "sampling": ["--sampling", "0.5"], "reports": ["--reports", "2"], "mix": ["--mix", "{mix}"],
         "rounds": ["--rounds", "2"]}


def _why(a: str, b: str):
    return DEP.COMBINES.get((a, b), DEP.COMBINES.get((b, a)))


def test_the_table_holds_every_pair_once():
    keys = [frozenset(k) for k in DEP.COMBINES]
    assert len(keys) == len(set(keys)) == len(PAIRS)
    assert set(keys) == {frozenset(p) for p in PAIRS}
    assert all(a != b and a in DEP.FEATURES and b in DEP.FEATURES for a, b in DEP.COMBINES)
    assert all(w is None or w.strip() for w in DEP.COMBINES.values())


@pytest.mark.parametrize("a,b", PAIRS, ids=["+".join(p) for p in PAIRS])
def test_the_library_follows_the_table(a, b):
    why = _why(a, b)
    if why is None:
        dep = DEP.Deployment(**FIELD[a], **FIELD[b])
        assert set(dep.features) == {a, b}
        assert DEP.refusal([a, b]) is None
    else:
        first, second = (a, b) if (a, b) in DEP.COMBINES else (b, a)
        with pytest.raises(ValueError) as exc:
            DEP.Deployment(**FIELD[a], **FIELD[b])
        assert str(exc.value) == f"{first} with {second}: {why}" == DEP.refusal([b, a])


@pytest.mark.parametrize("a,b", [p for p in PAIRS if "mix" not in p and "reports" not in p and "rounds" not in p])
def test_check_deployment_follows_the_table(a, b):
    """The library's one-round check (the sampled and the n_eff proofs): n >= N with sampling is refused
    now, as the command line and the pages did."""
    kw = {"colluders": {"colluders": 3}, "n_min": {"n_min": 10}, "dummies": {"dummies": 4},
          "sampling": {"sampling": 0.5}}
    args = {**kw[a], **kw[b]}
    if _why(a, b) is None:
        assert D.check_deployment(10, **args) == 10 - args.get("colluders", 0) + args.get("dummies", 0)
    else:
        with pytest.raises(ValueError, match="the combination is not proved here"):
            D.check_deployment(10, **args)


def _epsilon_args(features, tmp_path):
    mix = tmp_path / "mix.json"
    mix.write_text(json.dumps([{"count": 50, "mechanism": "rr", "eps0": 1}, {"count": 50, "mechanism": "rr", "eps0": 2}]))
    argv = ["epsilon", "--delta", "1e-6"]
    if "mix" not in features:
        argv += ["--eps0", "1"] + ([] if "n_min" in features else ["--n", "100"])
    for f in features:
        argv += [x.format(mix=mix) for x in FLAGS[f]]
    return build_parser().parse_args(argv)


@pytest.mark.parametrize("a,b", PAIRS, ids=["+".join(p) for p in PAIRS])
def test_the_command_line_follows_the_table(a, b, tmp_path):
    args = _epsilon_args([a, b], tmp_path)
    why = _why(a, b)
    if why is None:
        CLI.check(args)
        dep = CLI.deployment(args)
        assert set(dep.features) == {a, b}
    else:
        first, second = (a, b) if (a, b) in DEP.COMBINES else (b, a)
        with pytest.raises(ValueError) as exc:
            CLI.check(args)
        assert str(exc.value) == f"{CLI.flag(first)} with {CLI.flag(second)}: {why}"


def test_delta_follows_the_table():
    argv = ["delta", "--n", "100", "--eps0", "1", "--eps", "0.5", "--sampling", "0.5", "--dummies", "3"]
    with pytest.raises(ValueError) as exc:
        CLI.check_delta(build_parser().parse_args(argv))
    assert str(exc.value) == "--sampling with --dummies: the combination is not proved here"
    with pytest.raises(ValueError, match="rounds: deployed_delta covers one round"):
        deployed_delta(make_params("rr", 1.0), 100, 0.5, DEP.Deployment(colluders=3, rounds=2))


def test_the_pages_word_the_table():
    """The pages name the features by their widgets (app/deployment_controls.py LABELS) through the
    same refusal."""
    import importlib.util
    import os
    import sys

    from tests.paths import REPO_ROOT

    sys.path.insert(0, os.path.join(REPO_ROOT, "app"))
    try:
        spec = importlib.util.spec_from_file_location("deployment_controls",
                                                      os.path.join(REPO_ROOT, "app", "deployment_controls.py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(os.path.join(REPO_ROOT, "app"))
    assert set(mod.LABELS) == set(DEP.FEATURES)
    assert DEP.refusal(["sampling", "n_min", "reports"], mod.LABELS.get) == \
        "sampling with n >= N and several reports: the combination is not proved here"
    dep = mod.deployment_of({"sampling": 0.1, "neighbours": "add-remove"}, rounds=3)
    assert dep == DEP.Deployment(sampling=0.1, neighbours="add-remove", rounds=3)


def test_inverse_refuses_what_it_does_not_search_and_the_fields_are_checked():
    assert DEP.inverse_refusal(["n_min"]).startswith("n_min: the smallest N answered is itself")
    assert DEP.inverse_refusal(["mix", "rounds"]).startswith("mix: the groups' counts fix the number of users")
    assert DEP.inverse_refusal(["sampling", "rounds"]) is None
    for kw, word in (({"colluders": -1}, "colluders"), ({"dummies": 1.5}, "dummies"), ({"sampling": 0.0}, "sampling"),
                     ({"neighbours": "add-remove"}, "neighbours applies only with sampling"),
                     ({"sampling": 0.5, "neighbours": "swap"}, "neighbours must be one of"),
                     ({"reports": 0}, "reports"), ({"rounds": 0}, "rounds"), ({"n_min": 1}, "n_min"),
                     ({"mix": [{"count": 5, "mechanism": "rr", "eps0": 1}]}, "mix: a list of (count, parameters)")):
        with pytest.raises(ValueError, match=word.replace("(", r"\(").replace(")", r"\)")):
            DEP.Deployment(**kw)
    with pytest.raises(ValueError, match=r"colluders must be an integer in \[0, 9\], got 10"):
        DEP.Deployment(colluders=10).check(10)
    with pytest.raises(ValueError, match="sampling needs an eps0-LDP randomizer"):
        deployed_epsilon(make_params("variation-ratio", None, p=2.0, beta=0.3), 100, 1e-6, DEP.Deployment(sampling=0.5))
    with pytest.raises(ValueError, match="params: the mix's groups give the randomizers"):
        deployed_epsilon(make_params("rr", 1.0), None, 1e-6, DEP.Deployment(mix=GROUPS))


def test_one_dispatch_gives_the_proofs_numbers():
    """deployed_epsilon is each proof's own call (the same numbers, bit for bit)."""
    from accountant.accounting import deployment_groups as G

    p = make_params("rr", 1.0)
    assert deployed_epsilon(p, 2_000, 1e-6, DEP.Deployment(colluders=100, dummies=50)) == \
        D.deployment_epsilon(p, 2_000, 1e-6, colluders=100, dummies=50)
    assert deployed_epsilon(p, 2_000, 1e-6, DEP.Deployment(sampling=0.2), lower=False).epsilon == \
        D.sampled_epsilon(p, 2_000, 1e-6, 0.2, lower=False).epsilon
    assert deployed_epsilon(p, 2_000, 1e-6, DEP.Deployment(reports=2)) == G.reports_epsilon(p, 2_000, 1e-6, 2)
    assert deployed_epsilon(None, None, 1e-6, DEP.Deployment(mix=GROUPS)) == G.mix_epsilon(GROUPS, 1e-6)
    assert set(DEP.Deployment().as_dict()) == {"colluders", "n_min", "dummies", "sampling", "neighbours", "reports",
                                               "mix", "rounds"}
