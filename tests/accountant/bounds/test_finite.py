"""Finite randomizers given as matrices: validation, the blanket upper bound and the dataset
lower bound against brute force over every dataset at n <= 4, and the named paths."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from accountant.bounds.finite import (finite_blanket_law, finite_lower_delta, finite_lower_epsilon,
                                      finite_upper_delta, finite_upper_epsilon)
from accountant.core.finite import FiniteRandomizer, load_matrix
from tests.finite_brute import brute_delta


def random_matrix(rng, k, m, lo=0.05):
    M = rng.uniform(lo, 1.0, size=(k, m))
    return M / M.sum(axis=1, keepdims=True)


def krr_matrix(eps0, k):
    E = math.exp(eps0)
    M = np.full((k, k), 1.0)
    np.fill_diagonal(M, E)
    return M / (E + k - 1)


@pytest.mark.parametrize("seed", range(12))
def test_upper_and_lower_bracket_brute_force(seed):
    rng = np.random.default_rng(seed)
    k, m, n = int(rng.integers(2, 5)), int(rng.integers(2, 6)), int(rng.integers(2, 5))
    M = random_matrix(rng, k, m)
    R = FiniteRandomizer(M)
    for eps in (0.0, 0.05 * R.eps0, 0.3 * R.eps0, 0.7 * R.eps0):
        truth = brute_delta(R.matrix, n, eps)
        up = finite_upper_delta(R, n, eps).delta
        lo = finite_lower_delta(R, n, eps).delta
        assert up >= truth * (1 - 1e-12), (k, m, n, eps, up, truth)
        assert lo <= truth * (1 + 1e-9) + 1e-15, (k, m, n, eps, lo, truth)


@pytest.mark.parametrize("k,eps0,n", [(2, 1.0, 3), (3, 0.7, 4), (4, 2.0, 3)])
def test_krr_matrix_blanket_is_exact_and_brackets(k, eps0, n):
    R = FiniteRandomizer(krr_matrix(eps0, k))
    fl = finite_blanket_law(R)
    assert fl.exact_blanket
    for eps in (0.0, 0.2, 0.5 * eps0):
        truth = brute_delta(R.matrix, n, eps)
        assert finite_upper_delta(R, n, eps).delta >= truth * (1 - 1e-12)
        assert finite_lower_delta(R, n, eps).delta <= truth * (1 + 1e-9) + 1e-15


def test_spread_is_flagged_not_exact():
    R = FiniteRandomizer([[0.5, 0.3, 0.2], [0.2, 0.3, 0.5], [0.3, 0.4, 0.3]])
    assert not finite_blanket_law(R).exact_blanket


@pytest.mark.parametrize("k,eps0,n", [(4, 1.0, 10**5), (10, 2.0, 10**6), (2, 0.5, 10**4), (50, 3.0, 10**7)])
def test_krr_matrix_agrees_with_named_path(k, eps0, n):
    from accountant import ShuffleAccountant, make_params

    params = make_params("krr", eps0, k=k) if k > 2 else make_params("rr", eps0)
    named = ShuffleAccountant(params, n, bound="blanket").get_epsilon(1e-6)  # rr's headline is exact
    R = FiniteRandomizer(krr_matrix(eps0, k))
    fl = finite_blanket_law(R)
    up = finite_upper_epsilon(R, n, 1e-6)
    # the same blanket: equal within the searches' tolerances (1e-5 named, 1e-6 matrix) and the
    # matrix's rounding margin, which the named path does not take
    assert named * (1 - 1.2e-5) <= up.epsilon <= named * (1 + 2e-6 + 2 * (fl.margin(n) - 1))
    lo = finite_lower_epsilon(R, n, 1e-6, upper=up.epsilon)
    assert 0.0 < lo.epsilon <= up.epsilon
    if k > 2:  # k-RR: the three-category datasets meet the blanket
        assert lo.epsilon >= up.epsilon * (1 - 1e-4)


def test_upper_epsilon_is_certified():
    rng = np.random.default_rng(7)
    R = FiniteRandomizer(random_matrix(rng, 6, 9))
    for n in (100, 10**5):
        up = finite_upper_epsilon(R, n, 1e-6)
        assert finite_upper_delta(R, n, up.epsilon).delta <= 1e-6
        lo = finite_lower_epsilon(R, n, 1e-6, upper=up.epsilon)
        assert lo.epsilon <= up.epsilon
        assert finite_lower_delta(R, n, lo.epsilon).delta > 1e-6 or lo.epsilon == 0.0


def test_monotone_in_n():
    rng = np.random.default_rng(3)
    R = FiniteRandomizer(random_matrix(rng, 3, 4))
    eps = [finite_upper_epsilon(R, n, 1e-6).epsilon for n in (10**4, 10**5, 10**6)]
    assert all(a > b for a, b in zip(eps, eps[1:]))


def test_identical_rows_give_zero():
    R = FiniteRandomizer([[0.25, 0.75], [0.25, 0.75]])
    assert finite_upper_epsilon(R, 1000, 1e-6).epsilon == 0.0


def test_not_pure_ldp_outputs_that_reveal_say_why():
    # output 0 (from input 0 only) has probability 0.5: no eps meets delta = 1e-6
    R = FiniteRandomizer([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]])
    assert R.eps0 == math.inf and not R.pure
    up = finite_upper_epsilon(R, 1000, 1e-6)
    assert up.epsilon is None and "reveal the input" in up.reason
    assert finite_upper_delta(R, 1000, 1.0).delta >= 0.5


def test_no_blanket_gives_no_finite_epsilon():
    R = FiniteRandomizer([[0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5]])
    up = finite_upper_epsilon(R, 1000, 1e-6)
    assert up.epsilon is None and "gamma = 0" in up.reason and "reveal the input" in up.reason
    assert math.isnan(finite_upper_delta(R, 1000, 0.5).delta)


@pytest.mark.parametrize("seed", range(8))
def test_not_pure_ldp_upper_bound_brute_force(seed):
    # a zero beside positive entries in some columns, a blanket on the others
    rng = np.random.default_rng(100 + seed)
    k, m, n = int(rng.integers(2, 5)), int(rng.integers(3, 6)), int(rng.integers(2, 5))
    M = rng.uniform(0.05, 1.0, size=(k, m))
    M[rng.integers(0, k), rng.integers(1, m)] = 0.0
    M[:, 0] = np.maximum(M[:, 0], 0.2)   # one column stays in the blanket
    R = FiniteRandomizer(M / M.sum(axis=1, keepdims=True))
    assert not R.pure and R.gamma > 0
    for eps in (0.0, 0.2, 0.7, 2.0):
        truth = brute_delta(R.matrix, n, eps)
        up = finite_upper_delta(R, n, eps)
        assert up.delta >= truth * (1 - 1e-12), (seed, eps, up.delta, truth)
        assert up.delta <= 1.0 and "lattice" in up.detail and "outside" in up.detail


def test_not_pure_ldp_finite_epsilon_is_certified():
    E = math.exp(1.0)
    rows = [[E, 1.0, 1.0, 1e-4], [1.0, E, 1.0, 0.0], [1.0, 1.0, E, 0.0]]
    R = FiniteRandomizer([[v / sum(r) for v in r] for r in rows])
    up = finite_upper_epsilon(R, 10_000, 1e-3)
    assert up.epsilon is not None and 0 < up.epsilon < 1.0
    assert finite_upper_delta(R, 10_000, up.epsilon).delta <= 1e-3
    assert finite_upper_delta(R, 10_000, 0.98 * up.epsilon).delta > 1e-3 * 0.9


@pytest.mark.parametrize("rows,words", [
    ([[0.5, 0.6], [0.5, 0.5]], "row 0 sums to 1.1"),
    ([[0.5, 0.5]], "at least two rows"),
    ([[0.5, 0.5], [1.0]], "ragged"),
    ([[1.5, -0.5], [0.5, 0.5]], "negative"),
    ([[float("nan"), 1.0], [0.5, 0.5]], "finite"),
    ([], "empty"),
    ([["a", "b"], [0.5, 0.5]], "not a number"),
])
def test_bad_matrices_are_named(rows, words):
    with pytest.raises(ValueError, match="matrix") as exc:
        FiniteRandomizer(rows)
    assert words in str(exc.value)


def test_size_limit_is_stated():
    with pytest.raises(ValueError, match="limit"):
        FiniteRandomizer(np.full((5000, 2), 0.5))


def test_load_matrix_formats(tmp_path):
    M = krr_matrix(1.0, 3)
    (tmp_path / "a.json").write_text(json.dumps(M.tolist()))
    (tmp_path / "b.json").write_text(json.dumps({"matrix": M.tolist(), "inputs": ["x", "y", "z"],
                                                 "outputs": ["0", "1", "2"], "name": "k-RR"}))
    (tmp_path / "c.csv").write_text("\n".join(",".join(repr(float(v)) for v in row) for row in M))
    np.save(tmp_path / "d.npy", M)
    for name in ("a.json", "b.json", "c.csv", "d.npy"):
        R = load_matrix(str(tmp_path / name))
        assert np.allclose(R.matrix, M) and abs(R.eps0 - 1.0) < 1e-12
    assert load_matrix(str(tmp_path / "b.json")).inputs == ("x", "y", "z")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        load_matrix(str(tmp_path / "bad.json"))
    with pytest.raises(ValueError, match=".json, .csv or .npy"):
        (tmp_path / "c.txt").write_text("1,0\n0,1")
        load_matrix(str(tmp_path / "c.txt"))


def test_many_valued_matrix_takes_the_lattice_bound():
    # ratios strictly inside (1, e^eps0): the lattice bound is below the corner relaxation,
    # above the certified lower bound, and its worst pair covers every pair's own value
    from accountant.bounds.finite_lattice import blanket_atoms, lattice_delta
    from accountant.engines.lattice import lattice_positive_part

    R = FiniteRandomizer(random_matrix(np.random.default_rng(11), 6, 7))
    n, delta = 20_000, 1e-6
    up = finite_upper_epsilon(R, n, delta)
    lo = finite_lower_epsilon(R, n, delta, upper=up.epsilon)
    assert "lattice" in up.detail and not up.exact_blanket
    assert lo.epsilon <= up.epsilon
    assert finite_upper_delta(R, n, up.epsilon).delta <= delta
    fl = finite_blanket_law(R)
    from accountant.engines.blanket import blanket_exact_epsilon
    corner = blanket_exact_epsilon(fl.law, n, delta / fl.margin(n), rtol=1e-6).epsilon
    assert up.epsilon < 0.8 * corner
    at = blanket_atoms(R)
    eps = 0.9 * up.epsilon
    res = lattice_delta(at, n, eps)
    for i in range(R.k):
        for j in range(R.k):
            if i != j:
                own = lattice_positive_part(at.up[i], at.down[j], at.mass, n, eps, step_fraction=0.02)
                assert res.log_upper >= math.log(own.central) - 1e-3, (i, j)


def test_lattice_cost_model_refuses_up_front(monkeypatch):
    import accountant.bounds.finite_lattice as fl_mod

    monkeypatch.setattr(fl_mod, "LATTICE_MAX_WORK", 10)
    R = FiniteRandomizer(random_matrix(np.random.default_rng(2), 3, 4))
    up = finite_upper_epsilon(R, 1000, 1e-6)
    assert "refused" in up.detail and "limit 1e+01" in up.detail and up.epsilon is not None  # the corner bound
    M = random_matrix(np.random.default_rng(2), 3, 4)
    M[0, 1] = 0.0
    up = finite_upper_epsilon(FiniteRandomizer(M / M.sum(axis=1, keepdims=True)), 1000, 1e-6)
    assert up.epsilon is None and "beyond the limit" in up.reason


@pytest.mark.parametrize("seed", range(10))
def test_lattice_bound_alone_against_brute_force(seed):
    # the lattice path by itself (not the minimum with the corners): every pair, every dataset
    from accountant.bounds.finite_lattice import blanket_atoms, lattice_delta

    rng = np.random.default_rng(300 + seed)
    k, m, n = int(rng.integers(2, 5)), int(rng.integers(2, 6)), int(rng.integers(2, 5))
    R = FiniteRandomizer(random_matrix(rng, k, m))
    at = blanket_atoms(R)
    prev = math.inf
    for eps in (0.0, 0.05 * R.eps0, 0.3 * R.eps0, 0.7 * R.eps0):
        truth = brute_delta(R.matrix, n, eps)
        up = lattice_delta(at, n, eps).upper
        assert up >= truth * (1 - 1e-12), (seed, eps, up, truth)
        assert up <= prev * (1 + 1e-12)   # monotone in eps
        prev = up
