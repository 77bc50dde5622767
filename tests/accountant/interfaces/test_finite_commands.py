"""--mechanism finite on table, compose (and schedules), users and local-epsilon, with a matrix
file or a catalogue member (--catalogue NAME --k K): each command run through ``main`` (what
``python -m accountant`` runs), in-process, against the library's numbers and the named paths;
every refusal one line on stderr, exit status 2, before any work."""
from __future__ import annotations

import json
import os

import pytest

from accountant import RoundSpec, ShuffleAccountant, compose_rounds, compose_schedule, load_matrix, make_params
from accountant.core.catalogue import hadamard_response, krr
from tests.inprocess import run_accountant as accountant

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
THREE = {"name": "three-way", "inputs": ["red", "green", "blue"],
         "matrix": [[0.6, 0.3, 0.1], [0.2, 0.6, 0.2], [0.1, 0.3, 0.6]]}




def strict(text: str):
    return json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))


@pytest.fixture
def three(tmp_path):
    p = tmp_path / "three.json"
    p.write_text(json.dumps(THREE))
    return str(p)


def test_table_of_a_matrix_is_the_epsilon_command_at_each_point(tmp_path, three):
    out = tmp_path / "t.json"
    r = accountant("table", "--mechanism", "finite", "--matrix", three, "--n", "1e4,1e5",
                   "--delta", "1e-6", "--out", str(out), "--workers", "1")
    assert r.returncode == 0, r.stderr
    rows = json.loads(out.read_text())["rows"]
    assert [row["n"] for row in rows] == [10**4, 10**5]
    R = load_matrix(three)
    for row in rows:
        assert row["mechanism"] == "finite" and row["matrix"] == "three-way" and row["eps0"] == R.eps0
        e = accountant("epsilon", "--n", str(row["n"]), "--delta", "1e-6", "--mechanism", "finite",
                       "--matrix", three, "--json")
        d = strict(e.stdout)
        assert row["proved_epsilon"] == pytest.approx(d["epsilon"], rel=1e-5)
        assert row["best_proved"] == d["bound"] == "blanket"
        assert row["lower_epsilon"] <= row["proved_epsilon"]
    assert rows[1]["proved_epsilon"] < rows[0]["proved_epsilon"]  # more users, smaller eps_c


def test_table_of_the_catalogue_over_k_and_eps0_matches_named_krr(tmp_path):
    out, named = tmp_path / "f.json", tmp_path / "k.json"
    r = accountant("table", "--mechanism", "finite", "--catalogue", "krr", "--k", "4,8", "--eps0", "1,2",
                   "--n", "1e5", "--delta", "1e-6", "--out", str(out), "--workers", "1")
    assert r.returncode == 0, r.stderr
    r = accountant("table", "--mechanism", "krr", "--k", "4,8", "--eps0", "1,2", "--n", "1e5",
                   "--delta", "1e-6", "--out", str(named), "--workers", "1")
    assert r.returncode == 0, r.stderr
    fin = {(row["k"], round(row["eps0"], 9)): row for row in json.loads(out.read_text())["rows"]}
    ref = {(row["k"], round(row["eps0"], 9)): row for row in json.loads(named.read_text())["rows"]}
    assert set(fin) == set(ref) == {(4, 1.0), (4, 2.0), (8, 1.0), (8, 2.0)}
    for key, row in fin.items():
        assert row["matrix"] == f"{key[0]}-RR"
        assert row["proved_epsilon"] == pytest.approx(ref[key]["proved_epsilon"], rel=1e-5)
        assert row["lower_epsilon"] <= row["proved_epsilon"]


def test_compose_of_a_krr_matrix_equals_named_krr_within_the_margin():
    # one discretisation level on the same step for both (--step 1e-4: 2.5 s of CPU, the
    # adaptive refinement to 640 samples 13 s): the two paths are compared on the same grid
    # (the matrix file's adaptive default is test_compose_of_a_matrix_file_is_the_library_number)
    f = accountant("compose", "--rounds", "10", "--n", "1e4", "--delta", "1e-6", "--mechanism", "finite",
                   "--catalogue", "krr", "--k", "4", "--eps0", "1", "--step", "1e-4", "--json")
    k = accountant("compose", "--rounds", "10", "--n", "1e4", "--delta", "1e-6", "--mechanism", "krr",
                   "--k", "4", "--eps0", "1", "--step", "1e-4", "--json")
    assert f.returncode == k.returncode == 0, f.stderr + k.stderr
    df, dk = strict(f.stdout), strict(k.stdout)
    # the matrix path multiplies each round's upper delta by its rounding margin (1 + rho)^n:
    # never tighter than the named path's number by more than float noise, never looser by 1e-6
    assert dk["epsilon"] * (1 - 1e-4) <= df["epsilon"] <= dk["epsilon"] * (1 + 1e-6)
    assert df["epsilon"] <= df["naive_epsilon"] and df["epsilon_estimate_of_bound"] <= df["epsilon"]
    assert "blanket of the matrix" in df["profile"] and df["finite"][0].startswith("4-RR: 4 inputs")


def test_compose_of_a_matrix_file_is_the_library_number(three):
    r = accountant("compose", "--rounds", "5", "--n", "1e5", "--delta", "1e-6", "--mechanism", "finite",
                   "--matrix", three, "--json")
    assert r.returncode == 0, r.stderr
    d = strict(r.stdout)
    R = load_matrix(three)
    api = compose_rounds(RoundSpec.finite(R, 10**5), 5, 1e-6)
    assert d["epsilon"] == api.epsilon and d["rounds"] == 5
    one = ShuffleAccountant(R, 10**5).get_epsilon(1e-6)
    assert one < d["epsilon"] <= 5 * R.eps0  # five rounds cost more than one, less than naive eps0
    txt = accountant("compose", "--rounds", "5", "--n", "1e5", "--delta", "1e-6", "--mechanism", "finite",
                     "--matrix", three)
    assert "randomizer: three-way: 3 inputs x 3 outputs" in txt.stdout


def test_schedule_with_finite_rounds(tmp_path, three, monkeypatch, capsys):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "m.json").write_text(json.dumps(THREE))
    sched = tmp_path / "sub" / "s.json"
    sched.write_text(json.dumps([
        {"n": 100000, "mechanism": "finite", "matrix": "m.json", "repeat": 2},  # relative to the file
        {"n": 10000, "mechanism": "finite", "catalogue": "hadamard-response", "k": 7, "eps0": 1.0},
        {"n": 10000, "eps0": 1.0}]))
    # the command's main() in this process, in another folder than the schedule's (the test is
    # about the schedule's paths and numbers, not the process): the library's call below then
    # finds the rounds' profiles in its caches instead of computing them again.  One level at a
    # given --step: the adaptive levels stop on a CPU budget, which a cached second call would
    # spend differently from the first
    from accountant.interfaces.cli.main import main

    monkeypatch.chdir(tmp_path)
    assert main(["compose", "--schedule", str(sched), "--delta", "1e-6", "--step", "0.005", "--json"]) == 0
    out = capsys.readouterr()
    assert out.err == ""
    d = strict(out.out)
    R = load_matrix(three)
    specs = [RoundSpec.finite(R, 10**5)] * 2 + [RoundSpec.finite(hadamard_response(7, 1.0), 10**4),
                                                RoundSpec(10**4, 1.0)]
    assert d["epsilon"] == compose_schedule(specs, 1e-6, 0.005).epsilon and d["rounds"] == 4


@pytest.mark.parametrize("round_,words", [
    ({"n": 100, "mechanism": "finite", "matrix": "m.json", "eps0": 1.0}, "field 'eps0' does not apply"),
    ({"n": 100, "mechanism": "finite", "matrix": "nope.json"}, "no such file"),
    ({"n": 100, "mechanism": "finite"}, "exactly one of the fields 'matrix'"),
    ({"n": 100, "mechanism": "finite", "catalogue": "krr", "eps0": 1.0}, "missing field 'k'"),
    ({"n": 100, "eps0": 1.0, "matrix": "m.json"}, "unknown field 'matrix'"),
])
def test_bad_finite_rounds_are_refused(tmp_path, round_, words):
    (tmp_path / "m.json").write_text(json.dumps(THREE))
    sched = tmp_path / "s.json"
    sched.write_text(json.dumps([round_]))
    r = accountant("compose", "--schedule", str(sched), "--delta", "1e-6")
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1
    assert "--schedule: round 0" in r.stderr and words in r.stderr


def test_users_of_a_krr_matrix_and_of_a_file(three):
    f = strict(accountant("users", "--eps", "0.1", "--delta", "1e-6", "--mechanism", "finite",
                          "--catalogue", "krr", "--k", "4", "--eps0", "2", "--json").stdout)
    k = strict(accountant("users", "--eps", "0.1", "--delta", "1e-6", "--mechanism", "krr", "--k", "4",
                          "--eps0", "2", "--json").stdout)
    assert f["n"] == k["n"] == 10370  # the docstring of min_users: the named k-RR answer
    assert f["epsilon_at_n"] <= 0.1 < f["epsilon_at_n_minus_1"]
    r = accountant("users", "--eps", "0.1", "--delta", "1e-6", "--mechanism", "finite", "--matrix", three,
                   "--json")
    d = strict(r.stdout)
    R = load_matrix(three)
    assert ShuffleAccountant(R, d["n"]).get_epsilon(1e-6) <= 0.1
    assert ShuffleAccountant(R, d["n"] - 1).get_epsilon(1e-6) > 0.1
    assert d["mechanism"] == "finite" and d["randomizer"].startswith("three-way")


def test_local_epsilon_of_a_catalogue_family_certifies_its_answer():
    r = accountant("local-epsilon", "--n", "1e5", "--eps", "0.5", "--delta", "1e-6", "--mechanism", "finite",
                   "--catalogue", "krr", "--k", "4", "--json")
    assert r.returncode == 0, r.stderr
    d = strict(r.stdout)
    e0 = d["eps0"]
    assert ShuffleAccountant(krr(4, e0), 10**5).get_epsilon(1e-6) <= 0.5  # never above the target
    named = ShuffleAccountant(make_params("krr", e0 * 1.001, k=4), 10**5).get_epsilon(1e-6)
    assert named > 0.5  # and within 0.1% of the largest: a larger eps0 misses the target
    assert d["achieved_epsilon"] <= 0.5 and "4-RR" in d["matrix"]


@pytest.mark.parametrize("argv,words", [
    (["local-epsilon", "--n", "100", "--eps", "0.5", "--delta", "1e-6", "--mechanism", "finite",
      "--matrix", "M"], "the matrix fixes eps0; name a catalogue family"),
    (["table", "--n", "100", "--delta", "1e-6", "--eps0", "1,2", "--mechanism", "finite", "--matrix", "M",
      "--out", "OUT"], "--eps0 does not apply"),
    (["table", "--n", "100", "--delta", "1e-6", "--mechanism", "finite", "--catalogue", "krr", "--k", "4",
      "--out", "OUT"], "--eps0 is required with --catalogue krr"),
    (["epsilon", "--n", "100", "--delta", "1e-6", "--mechanism", "finite", "--catalogue", "krr",
      "--eps0", "1"], "--k is required with --catalogue krr"),
    (["epsilon", "--n", "100", "--delta", "1e-6", "--mechanism", "finite", "--catalogue", "krr", "--k", "4"],
     "--eps0 is required with --catalogue krr"),
    (["epsilon", "--n", "100", "--delta", "1e-6", "--mechanism", "finite", "--catalogue", "krr", "--k", "4",
      "--eps0", "1", "--matrix", "M"], "exactly one of --matrix FILE"),
    (["epsilon", "--n", "100", "--delta", "1e-6", "--mechanism", "finite", "--catalogue", "krr", "--k", "4",
      "--eps0", "1", "--size", "2"], "--size: not for --catalogue krr"),
    (["epsilon", "--n", "100", "--delta", "1e-6", "--mechanism", "finite", "--catalogue", "local-hashing",
      "--k", "30", "--eps0", "1"], "beyond the limit of 4000000"),
    (["epsilon", "--n", "100", "--delta", "1e-6", "--mechanism", "krr", "--k", "4", "--eps0", "1",
      "--catalogue", "krr"], "--catalogue: only with --mechanism finite"),
    (["compose", "--rounds", "3", "--n", "100", "--delta", "1e-6", "--mechanism", "finite", "--matrix", "M",
      "--eps0", "1"], "--eps0 does not apply"),
    (["figure", "--out", "OUT", "--mechanism", "finite", "--matrix", "M"], "which a matrix fixes; run table"),
])
def test_refusals_are_one_line_exit_2(tmp_path, three, argv, words):
    argv = [three if a == "M" else str(tmp_path / "x.csv") if a == "OUT" else a for a in argv]
    r = accountant(*argv)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1, r.stderr
    assert words in r.stderr
    assert not (tmp_path / "x.csv").exists()
