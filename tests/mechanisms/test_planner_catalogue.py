"""The planner's frequency catalogue: k-RR on its named path and the catalogue members on their
probability matrices (mechanisms.planning.finite), each finalist's eps0 verified on the proved
bound of its matrix, its MSE the exact variance of its estimator, and the size limit refused
up front with the limit in the message."""
import json

import pytest

from accountant.bounds.registry import proved_meets, proved_params_epsilon
from accountant.core.finite import MAX_CELLS
from mechanisms import plan
from mechanisms.interfaces.cli import main as cli_main
from mechanisms.planning import render_plan
from mechanisms.planning.finite import finite_eps0, finite_member
from mechanisms.randomizers.catalogue import catalogue_mse

N, D, TARGET, DELTA = 10_000, 3, 1.0, 1e-6


@pytest.fixture(scope="module")
def cat_plan():
    return plan(TARGET, DELTA, N, D, 1, "frequency", mechanisms=("krr", "hadamard-response"),
                sensitivity=False)


def test_catalogue_finalists_are_certified_on_their_matrices(cat_plan):
    fin = {c.mechanism: c for c in cat_plan.candidates if c.source == "finalist"}
    assert set(fin) == {"krr", "hadamard-response"}
    hr = fin["hadamard-response"]
    R = finite_member("hadamard-response", D, hr.eps0)
    assert R.matrix.shape == (3, 4)
    # the reported eps_c is the registry's smallest proved bound of that matrix, <= the target
    res = proved_params_epsilon(R, N, DELTA, 1e-7)
    assert hr.eps_c == pytest.approx(res.epsilon, rel=1e-9) and hr.eps_c <= TARGET
    assert proved_meets(R, N, TARGET, DELTA) is not None
    # and eps0 is (nearly) the largest: 1% more breaks the target
    assert proved_meets(finite_member("hadamard-response", D, hr.eps0 * 1.01), N, TARGET, DELTA) is None
    # the MSE is the estimator's exact variance; one report names one of K = 4 outputs
    assert hr.mse == pytest.approx(catalogue_mse("hadamard-response", N, D, hr.eps0), rel=1e-12)
    assert hr.report_bits == 2 and hr.t == D and hr.mse_mean is None
    # k-RR (q = 1/(E + 2)) beats Hadamard response (q = 1/2) here: the smallest MSE wins
    assert cat_plan.recommendation == fin["krr"] and fin["krr"].mse < hr.mse
    assert fin["krr"].mse == pytest.approx(catalogue_mse("krr", N, D, fin["krr"].eps0), rel=1e-12)
    assert fin["krr"].eps_c <= TARGET
    text = render_plan(cat_plan)
    assert "recommended: k-RR, eps0 = " in text and "best Hadamard response: eps0 = " in text
    assert "use k-RR over [d] (reports of 2 bits)" in cat_plan.sentence()


def test_the_matrix_search_is_verified():
    e0 = finite_eps0("subset-selection", D, N, TARGET, DELTA, 20.0, 1e-4)
    R = finite_member("subset-selection", D, e0)
    assert R.matrix.shape == (3, 3)  # size 1 at this eps0: k-RR as a matrix
    assert proved_meets(R, N, TARGET, DELTA) is not None
    # eps0 = target always qualifies (post-processing): a target reached by no blanket
    assert finite_eps0("subset-selection", D, 2, 0.3, DELTA, 20.0, 1e-4) == pytest.approx(0.3, rel=1e-4)


def test_a_matrix_beyond_the_limit_is_refused_up_front(capsys):
    with pytest.raises(ValueError, match=f"beyond the finite-randomizer limit of {MAX_CELLS:,}"):
        plan(TARGET, DELTA, N, 32, 1, "frequency", mechanisms=("symmetric-unary-encoding",),
             sensitivity=False)
    base = ["plan", "--n", "10000", "--d", "32", "--s", "1", "--eps", "1", "--delta", "1e-6",
            "--estimate", "frequency"]
    assert cli_main(base + ["--mechanisms", "local-hashing"]) == 2
    err = capsys.readouterr().err
    assert "local-hashing over d = 32 values" in err and len(err.strip().splitlines()) == 1
    assert cli_main(base + ["--mechanisms", "nope"]) == 2
    err = capsys.readouterr().err
    assert "hadamard-response" in err and "subset-selection" in err


def test_catalogue_members_need_a_frequency_estimate_of_one_value(capsys):
    with pytest.raises(ValueError, match="estimate frequencies only"):
        plan(TARGET, DELTA, N, D, 1, "mean", mechanisms=("hadamard-response",), sensitivity=False)
    with pytest.raises(ValueError, match="s must be 1"):
        plan(TARGET, DELTA, N, D, 2, "frequency", mechanisms=("krr",), sensitivity=False)


def test_cli_json_names_the_catalogue_member(capsys):
    rc = cli_main(["plan", "--n", "10000", "--d", "3", "--s", "1", "--eps", "1", "--delta", "1e-6",
                   "--estimate", "frequency", "--mechanisms", "krr", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert rc == 0 and d["mechanism"] == "krr" and d["randomizer"] == "k-RR"
    assert d["epsilon"] <= 1.0 and d["report_bits"] == 2


def test_subset_selection_where_its_matrix_is_too_large_falls_back_to_post_processing():
    # d = 40, n = 2000, target 0.3: below eps0 ~ 3.6 the subsets are large (C(40, 18) outputs
    # at eps0 = 0.3), beyond the matrix limit; the plan stays at eps0 = target, where local
    # DP alone gives the guarantee, and says so (it was an error before)
    p = plan(0.3, DELTA, 2000, 40, 1, "frequency", mechanisms=("subset-selection",),
             sensitivity=False)
    r = p.recommendation
    assert r.eps0 == pytest.approx(0.3, rel=1e-4) and r.eps0 <= 0.3
    assert r.eps_c == r.eps0 and r.bound == "post-processing" and r.t == 18
    assert r.mse == pytest.approx(catalogue_mse("subset-selection", 2000, 40, r.eps0), rel=1e-12)


def test_the_old_names_stand_for_the_catalogue_names(capsys):
    # rappor and blh, the planner's old names of the catalogue's symmetric-unary-encoding and
    # local-hashing (g = 2), are accepted; the plan, its text and its JSON print the new names.
    # n = 100: the same plan (both members finalists on the blanket bound of their matrices,
    # eps0 ~ 2 above the target) as at n = 10,000, whose two matrix searches took 20 s, here 3 s
    n = 100
    old = plan(TARGET, DELTA, n, D, 1, "frequency", mechanisms=("rappor", "blh"), sensitivity=False)
    new = plan(TARGET, DELTA, n, D, 1, "frequency", mechanisms=("symmetric-unary-encoding", "local-hashing"),
               sensitivity=False)
    assert old == new
    assert {c.mechanism for c in new.candidates} == {"symmetric-unary-encoding", "local-hashing"}
    fin = {c.mechanism: c for c in new.candidates if c.source == "finalist"}
    lh = fin["local-hashing"]
    assert lh.mse == pytest.approx(catalogue_mse("local-hashing", n, D, lh.eps0, g=2), rel=1e-12)
    assert lh.report_bits == D + 1 and fin["symmetric-unary-encoding"].report_bits == D
    assert all(c.bound == "blanket" and c.eps_c <= TARGET < c.eps0 for c in fin.values())
    text = render_plan(new)
    assert "rappor" not in text and "blh" not in text
    base = ["plan", "--n", str(n), "--d", "3", "--s", "1", "--eps", "1", "--delta", "1e-6",
            "--estimate", "frequency", "--json", "--mechanisms"]
    assert cli_main(base + ["blh,local-hashing"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["mechanism"] == "local-hashing" and d["randomizer"] == "local hashing (g = 2)"
    assert {c["mechanism"] for c in d["candidates"]} == {"local-hashing"}
