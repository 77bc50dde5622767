"""--mechanism finite --matrix FILE on the command line: the library's numbers, every bad matrix
refused in one line with exit status 2 before any work, strict JSON."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from accountant import ShuffleAccountant, finite_lower_epsilon, load_matrix
from accountant.interfaces.cli.main import main


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def three(tmp_path):
    p = tmp_path / "three.json"
    p.write_text(json.dumps({"name": "three-way", "inputs": ["red", "green", "blue"],
                             "matrix": [[0.6, 0.3, 0.1], [0.2, 0.6, 0.2], [0.1, 0.3, 0.6]]}))
    return str(p)


def test_epsilon_prints_the_library_numbers(capsys, three):
    code, out, _ = run(capsys, "epsilon", "--n", "1e5", "--delta", "1e-6", "--mechanism", "finite",
                       "--matrix", three, "--json")
    assert code == 0
    d = json.loads(out, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    R = load_matrix(three)
    assert d["epsilon"] == ShuffleAccountant(R, 10**5).get_epsilon(1e-6)
    assert d["bound"] == "blanket" and d["certified"] and d["eps0"] == R.eps0
    assert d["lower_epsilon"] == finite_lower_epsilon(R, 10**5, 1e-6, 1e-9).epsilon
    assert "red" in d["lower_dataset"] and d["inputs"] == 3 and d["outputs"] == 3
    code, out, _ = run(capsys, "epsilon", "--n", "1e5", "--delta", "1e-6", "--mechanism", "finite",
                       "--matrix", three)
    assert "finite (three-way: 3 inputs x 3 outputs" in out and "certified lower bound" in out


def test_delta_at_the_printed_epsilon_meets_the_target(capsys, three):
    _, out, _ = run(capsys, "epsilon", "--n", "1e4", "--delta", "1e-6", "--mechanism", "finite",
                    "--matrix", three, "--json")
    eps = json.loads(out)["epsilon"]
    _, out, _ = run(capsys, "delta", "--n", "1e4", "--eps", repr(eps), "--mechanism", "finite",
                    "--matrix", three, "--json")
    d = json.loads(out)
    assert d["delta"] <= 1e-6 and d["lower_delta"] <= d["delta"]


def test_compare_marks_the_matrix_bounds(capsys, three):
    code, out, _ = run(capsys, "compare", "--n", "1e5", "--delta", "1e-6", "--mechanism", "finite",
                       "--matrix", three)
    assert code == 0
    blanket = float(out.split("blanket", 1)[1].split("<=")[1].split()[0])
    clone = float(out.split("\n  clone ", 1)[1].split("<=")[1].split()[0])
    assert blanket < clone  # the matrix's own blanket beats the generic eps0-LDP bound


@pytest.mark.parametrize("content,words", [
    ("[[0.5, 0.6], [0.5, 0.5]]", "row 0 sums to 1.1"),
    ("[[0.5, 0.5], [1.0]]", "ragged"),
    ("[[0.5, 0.5]]", "at least two rows"),
    ("[[NaN, 1.0], [0.5, 0.5]]", "finite"),
    ("{not json", "not valid JSON"),
    ("[]", "no rows"),
])
def test_bad_matrices_exit_2_in_one_line(capsys, tmp_path, content, words):
    p = tmp_path / "m.json"
    p.write_text(content)
    code, out, err = run(capsys, "epsilon", "--n", "100", "--delta", "1e-6", "--mechanism", "finite",
                         "--matrix", str(p))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--matrix" in err and words in err


@pytest.mark.parametrize("extra,words", [
    ([], "needs exactly one of --matrix FILE"),
    (["--matrix", "MATRIX", "--eps0", "1"], "--eps0 does not apply"),
    (["--matrix", "MATRIX", "--k", "4"], "--k: not for --mechanism finite"),
])
def test_options_that_do_not_apply(capsys, three, extra, words):
    extra = [three if a == "MATRIX" else a for a in extra]
    code, _, err = run(capsys, "epsilon", "--n", "100", "--delta", "1e-6", "--mechanism", "finite", *extra)
    assert code == 2 and words in err


def test_other_commands_and_mechanisms_refuse_a_matrix(capsys, three):
    code, _, err = run(capsys, "local-epsilon", "--n", "100", "--eps", "0.5", "--delta", "1e-6",
                       "--mechanism", "finite", "--matrix", three)
    assert code == 2 and "local-epsilon searches eps0, but the matrix fixes eps0" in err
    code, _, err = run(capsys, "epsilon", "--n", "100", "--delta", "1e-6", "--eps0", "1", "--matrix", three)
    assert code == 2 and "only with --mechanism finite" in err


def test_csv_and_npy(capsys, tmp_path):
    E = math.exp(1.0)
    M = np.array([[E, 1.0, 1.0], [1.0, E, 1.0], [1.0, 1.0, E]]) / (E + 2)
    (tmp_path / "m.csv").write_text("\n".join(",".join(repr(float(v)) for v in r) for r in M))
    np.save(tmp_path / "m.npy", M)
    eps = []
    for name in ("m.csv", "m.npy"):
        code, out, _ = run(capsys, "epsilon", "--n", "1e4", "--delta", "1e-6", "--mechanism", "finite",
                           "--matrix", str(tmp_path / name), "--json")
        assert code == 0
        eps.append(json.loads(out)["epsilon"])
    named = ShuffleAccountant(__import__("accountant").make_params("krr", 1.0, k=3), 10**4).get_epsilon(1e-6)
    assert eps[0] == eps[1] and abs(eps[0] / named - 1) < 2e-5


def test_catalogue_member_on_epsilon_delta_compare(capsys):
    from accountant import finite_upper_delta
    from accountant.core.catalogue import symmetric_unary_encoding

    R = symmetric_unary_encoding(4, 1.5)
    base = ("--n", "1e4", "--mechanism", "finite", "--catalogue", "rappor", "--k", "4", "--eps0", "1.5", "--json")
    code, out, _ = run(capsys, "epsilon", "--delta", "1e-6", *base)
    d = json.loads(out)
    assert code == 0 and d["epsilon"] == ShuffleAccountant(R, 10**4).get_epsilon(1e-6)
    assert d["matrix"] == "symmetric-unary-encoding" and d["outputs"] == 16 and d["eps0"] == R.eps0
    code, out, _ = run(capsys, "delta", "--eps", "0.1", *base)
    d = json.loads(out)
    assert code == 0 and d["delta"] <= finite_upper_delta(R, 10**4, 0.1).delta and d["lower_delta"] <= d["delta"]
    code, out, _ = run(capsys, "compare", "--delta", "1e-6", *base)
    d = json.loads(out)
    assert code == 0 and d["bounds"]["blanket"]["epsilon"] <= d["bounds"]["clone"]["epsilon"]
    assert d["bounds"]["lower"]["epsilon"] <= d["bounds"]["blanket"]["epsilon"]


def test_a_matrix_that_is_not_pure_ldp_gets_its_blanket_bound(capsys, tmp_path):
    """A zero beside positive entries (eps0 infinite): epsilon, delta and compare answer with the
    matrix's blanket (outputs outside its support counted in full), the eps0-LDP bounds say why
    they do not apply; where the outside outputs reveal the input with probability above delta
    the answer is 'no finite eps_c', not an error; table refuses in one line."""
    tiny = [[0.5, 0.3, 0.2 - 1e-9, 1e-9], [0.2, 0.3, 0.5 - 1e-9, 1e-9], [0.3, 0.4, 0.3 - 1e-9, 1e-9],
            [0.25, 0.25, 0.5, 0.0]]
    p = tmp_path / "tiny.json"
    p.write_text(json.dumps({"matrix": tiny, "name": "tiny-gap"}))
    code, out, _ = run(capsys, "epsilon", "--n", "1e5", "--delta", "1e-6", "--mechanism", "finite",
                       "--matrix", str(p), "--json")
    d = json.loads(out)
    assert code == 0 and d["bound"] == "blanket" and 0 < d["epsilon"] < 0.05 and d["eps0"] is None
    assert "outside the blanket's support" in d["note"]
    # the certified lower bound takes the outputs x0 cannot produce in full (not pure LDP)
    assert 0 < d["lower_epsilon"] <= d["epsilon"] and "D = (" in d["lower_dataset"]
    code, out, _ = run(capsys, "delta", "--n", "1e5", "--eps", repr(d["epsilon"]), "--mechanism", "finite",
                       "--matrix", str(p), "--json")
    assert code == 0 and json.loads(out)["delta"] <= 1e-6
    code, out, _ = run(capsys, "compare", "--n", "1e5", "--delta", "1e-6", "--mechanism", "finite",
                       "--matrix", str(p))
    assert code == 0 and "'clone' needs an eps0-LDP randomizer" in out
    gap = tmp_path / "gap.json"
    gap.write_text("[[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]]")
    code, out, _ = run(capsys, "epsilon", "--n", "1e5", "--delta", "1e-6", "--mechanism", "finite",
                       "--matrix", str(gap))
    assert code == 0 and "no finite eps_c is proved" in out and "reveal the input" in out
    assert "eps_c >= inf (certified lower bound" in out and "no finite eps" in out
    code, out, _ = run(capsys, "compose", "--n", "1e5", "--delta", "1e-6", "--rounds", "2",
                       "--mechanism", "finite", "--matrix", str(p), "--step", "1e-4", "--json")
    c = json.loads(out)
    assert code == 0 and d["epsilon"] < c["epsilon"] < 2 * d["epsilon"] and "not pure LDP: no clone" in c["profile"]
    code, out, _ = run(capsys, "compose", "--n", "1e5", "--delta", "1e-6", "--rounds", "2",
                       "--mechanism", "finite", "--matrix", str(gap), "--json")
    c = json.loads(out)
    assert code == 0 and c["epsilon"] is None  # the +inf atom (0.5) is above delta: no finite bound


def fin(capsys, path, *argv):
    """``run`` with ``--mechanism finite --matrix path`` appended."""
    return run(capsys, *argv, "--mechanism", "finite", "--matrix", str(path))


def test_table_and_users_take_a_matrix_that_is_not_pure_ldp(capsys, tmp_path):
    """table: one row per (n, delta) with the epsilon command's number (inf eps0); a matrix whose
    outside outputs reveal the input gets an empty row with the reason; users (one round) finds the
    smallest n with that bound, and says why no n serves the revealing matrix."""
    p = tmp_path / "tiny.json"
    p.write_text(json.dumps({"matrix": [[0.5, 0.3, 0.2 - 1e-9, 1e-9], [0.25, 0.25, 0.5, 0.0]]}))
    gap = tmp_path / "gap.json"
    gap.write_text("[[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]]")
    out_path = tmp_path / "t.json"
    code, _, _ = fin(capsys, p, "table", "--n", "1e4,1e5", "--delta", "1e-6", "--out", str(out_path))
    rows = json.loads(out_path.read_text())["rows"]
    assert code == 0 and [r["n"] for r in rows] == [10**4, 10**5]
    for r in rows:
        code, out, _ = fin(capsys, p, "epsilon", "--n", str(r["n"]), "--delta", "1e-6", "--json")
        assert code == 0 and r["proved_epsilon"] == json.loads(out)["epsilon"] and r["eps0"] is None
    assert rows[1]["proved_epsilon"] < rows[0]["proved_epsilon"]
    code, out, _ = fin(capsys, p, "users", "--eps", repr(rows[1]["proved_epsilon"]), "--delta", "1e-6", "--json")
    d = json.loads(out)
    assert code == 0 and d["n"] is not None and d["n"] <= 10**5
    assert d["epsilon_at_n"] <= rows[1]["proved_epsilon"] < d["epsilon_at_n_minus_1"]
    code, _, _ = fin(capsys, gap, "table", "--n", "1e5", "--delta", "1e-6", "--out", str(out_path))
    row = json.loads(out_path.read_text())["rows"][0]
    assert code == 0 and row["proved_epsilon"] is None and "reveal the input" in row["reasons"]["blanket"]
    code, out, _ = fin(capsys, gap, "users", "--eps", "0.5", "--delta", "1e-6")
    assert code == 0 and "unreachable" in out and "no finite eps_c is proved" in out
