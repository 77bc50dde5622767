"""The key-value baselines (PCKV-GRR, PCKV-UE, PCKV-AGRR, PrivKV): their proved eps_c against the exact law of
the whole shuffled mechanism (every dataset of key-value sets, n <= 3), their laws against the
definitions of mechanisms.baselines, and their own bound against the generic eps0-LDP one."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from accountant.bounds.finite import finite_blanket_law
from accountant.bounds.laws.lower import lower_bound_epsilon
from accountant.bounds.registry import compute_params_bound, proved_params_epsilon
from accountant.core.finite import FiniteRandomizer
from accountant.core.keyvalue import pckv_grr_pair_matrix, pckv_ue_pair_matrix, privkv_matrix
from accountant.core.params import make_params
from accountant.engines.blanket.law import blanket_law
from mechanisms.baselines import BASELINES, PCKVGRR, PCKVUE, all_inputs
from tests.finite_brute import histogram_law


def whole_matrix(name: str, d: int, s: int, eps0: float) -> np.ndarray:
    """One row per key-value set, from mechanisms.baselines (its own implementation)."""
    mech = BASELINES[name](d=d, s=s, eps0=eps0)
    return np.stack([np.ravel(mech.output_distribution(ix, sg)) for ix, sg in all_inputs(d, s)])


def every_dataset(M: np.ndarray, n: int) -> list:
    """(P, Q) of the shuffled histogram for every dataset: user 1 switches x1 -> x1', the other
    n - 1 users hold any multiset of inputs."""
    k = M.shape[0]
    out = []
    for others in itertools.combinations_with_replacement(range(k), n - 1):
        for a, b in itertools.permutations(range(k), 2):
            P = histogram_law([M[a]] + [M[x] for x in others])
            Q = histogram_law([M[b]] + [M[x] for x in others])
            keys = sorted(set(P) | set(Q))
            out.append((np.array([P.get(h, 0.0) for h in keys]), np.array([Q.get(h, 0.0) for h in keys])))
    return out


def truth_delta(pairs, eps: float) -> float:
    u = math.exp(eps)
    return max(math.fsum(np.maximum(p - u * q, 0.0)) for p, q in pairs)


CASES = [("pckv-grr", 2, 2, 3, 1.0), ("pckv-grr", 3, 2, 3, 2.5), ("pckv-ue", 2, 2, 3, 1.0),
         ("pckv-ue", 3, 2, 2, 2.5), ("pckv-agrr", 2, 2, 3, 1.0), ("pckv-agrr", 3, 2, 3, 2.5),
         ("pckv-agrr", 3, 3, 2, 1.5), ("privkv", 2, 2, 3, 2.5), ("privkv", 3, 2, 2, 1.0), ("privkv", 3, 1, 3, 2.5)]


@pytest.mark.parametrize("name,d,s,n,eps0", CASES)
def test_upper_above_truth_above_lower(name, d, s, n, eps0):
    """upper >= truth eps_c >= lower at two deltas, the truth the sup over every dataset of the
    whole mechanism (s >= 2: a user's report is a mixture over its pairs, the case the per-pair
    argument covers); the own bound is at most the generic (clone) one."""
    pairs = every_dataset(whole_matrix(name, d, s, eps0), n)
    params = make_params(name, eps0, d=d, s=s)
    for delta in (0.02, 0.15):
        up = compute_params_bound("blanket", params, n, delta)
        assert up.applicable, up.reason
        assert truth_delta(pairs, up.epsilon * (1 + 1e-9) + 1e-12) <= delta, (name, d, s, n, delta, up.epsilon)
        lo = lower_bound_epsilon(params, n, delta).epsilon
        assert lo > 0.0 or delta > 0.1
        if lo > 0.0:
            assert truth_delta(pairs, lo * (1 - 1e-9) - 1e-12) >= delta, (name, d, s, n, delta, lo)
        head = proved_params_epsilon(params, n, delta)
        assert head.epsilon <= compute_params_bound("clone", params, n, delta).epsilon
        assert lo <= head.epsilon <= up.epsilon


def test_pair_matrices_are_the_baselines_channels():
    """accountant.core.keyvalue's per-pair matrices are mechanisms.baselines' pair channels, and
    PrivKV's matrix its output distribution."""
    for d, eps0 in ((2, 1.0), (3, 2.0), (5, 0.5)):
        p = make_params("pckv-grr", eps0, d=d, s=1)
        assert np.allclose(pckv_grr_pair_matrix(p).matrix, PCKVGRR(d=d, s=1, eps0=eps0)._pair_channel(), atol=1e-15)
        u = make_params("pckv-ue", eps0, d=d, s=1)
        assert np.allclose(pckv_ue_pair_matrix(u).matrix, PCKVUE(d=d, s=1, eps0=eps0)._pair_channel(), atol=1e-15)
    for d, s in ((2, 1), (3, 2), (4, 2)):
        R = privkv_matrix(make_params("privkv", 1.5, d=d, s=s), every_set=True)
        assert np.allclose(R.matrix, whole_matrix("privkv", d, s, 1.5), atol=1e-15)


@pytest.mark.parametrize("d,s", [(5, 2), (6, 2), (7, 3), (5, 1)])
def test_privkv_rows_keep_the_blanket(d, s):
    """The rows the blanket needs (accountant.core.keyvalue.privkv_rows) have the whole matrix's
    blanket mass at every output, its eps0 and its worst pair's corner law."""
    params = make_params("privkv", 1.0, d=d, s=s)
    few, every = privkv_matrix(params), privkv_matrix(params, every_set=True)
    assert few.matrix.shape[0] < every.matrix.shape[0] or s == 1  # s = 1: every row is needed
    assert np.allclose(few.blanket_mass, every.blanket_mass, rtol=1e-14, atol=0)
    assert math.isclose(few.eps0, every.eps0, rel_tol=1e-14)
    a, b = finite_blanket_law(few).law, finite_blanket_law(every).law
    assert type(a) is type(b) and vars(a).keys() == vars(b).keys()
    for key, v in vars(a).items():
        assert v == pytest.approx(vars(b)[key], rel=1e-12), key


@pytest.mark.parametrize("d", [2, 3, 5])
@pytest.mark.parametrize("eps0", [0.5, 2.0, 4.0])
def test_pair_laws_are_the_pair_matrices_blankets(d, eps0):
    """The registered count laws are the worst pair's blanket law of the per-pair matrix
    (accountant.bounds.finite: one matrix product over every ordered pair), and that law is exact
    (every likelihood ratio 1 or e^eps0)."""
    E = math.exp(eps0)
    for name, R in (("pckv-grr", pckv_grr_pair_matrix), ("pckv-ue", pckv_ue_pair_matrix)):
        params = make_params(name, eps0, d=d, s=1)
        fl = finite_blanket_law(R(params))
        law = blanket_law(params)
        assert fl.exact_blanket
        assert math.isclose(fl.law.p12, law.p12, rel_tol=1e-12) and math.isclose(fl.law.p3, law.p3, rel_tol=1e-12)
        assert fl.law.a == pytest.approx(law.a, rel=1e-12) and fl.law.b == pytest.approx(law.b, rel=1e-12)
        assert math.isclose(fl.gamma, 2 * d / (E + 2 * d - 1) if name == "pckv-grr" else (E + 3) / (2 * (E + 1)),
                            rel_tol=1e-12)


@pytest.mark.parametrize("d,s", [(2, 1), (2, 2), (3, 2), (4, 2), (3, 3), (5, 3)])
@pytest.mark.parametrize("eps0", [0.5, 2.0, 4.0])
def test_agrr_law_is_the_whole_matrix_worst_pair(d, s, eps0):
    """PCKV-AGRR's registered count law is the worst pair's blanket law of its whole matrix (one
    row per key-value set, from mechanisms.baselines: the finite path screens every ordered pair),
    the blanket is uniform with gamma = 2d / (s e^eps0 + 2d - s) and the law is exact."""
    E = math.exp(eps0)
    params = make_params("pckv-agrr", eps0, d=d, s=s)
    fl = finite_blanket_law(FiniteRandomizer(whole_matrix("pckv-agrr", d, s, eps0)))
    law = blanket_law(params)
    assert fl.exact_blanket
    assert math.isclose(fl.gamma, 2 * d / (s * E + 2 * d - s), rel_tol=1e-12)
    assert math.isclose(fl.law.p12, law.p12, rel_tol=1e-12) and math.isclose(fl.law.p3, law.p3, abs_tol=1e-15)
    assert fl.law.a == pytest.approx(law.a, rel=1e-12) and fl.law.b == pytest.approx(law.b, rel=1e-12)


@pytest.mark.parametrize("name", ["pckv-grr", "pckv-ue", "pckv-agrr", "privkv"])
def test_own_bound_below_the_generic_one(name):
    """At d = 16 (PrivKV: 3, its matrix's lattice blanket costs seconds beyond), s = 2, n = 1e4 the
    own blanket is below the clone."""
    for eps0 in ((2.0,) if name == "privkv" else (1.0, 2.0)):
        params = make_params(name, eps0, d=3 if name == "privkv" else 16, s=2)
        n = 1000 if name == "privkv" else 10_000
        own = compute_params_bound("blanket", params, n, 1e-6, rtol=1e-5)
        clone = compute_params_bound("clone", params, n, 1e-6, rtol=1e-5)
        assert own.epsilon < clone.epsilon, (name, eps0, own.epsilon, clone.epsilon)
        assert lower_bound_epsilon(params, n, 1e-6, rtol=1e-5).epsilon <= own.epsilon


def test_privkv_beyond_its_matrix_says_why():
    params = make_params("privkv", 1.0, d=40, s=6)
    res = compute_params_bound("blanket", params, 1000, 1e-6)
    assert not res.applicable and "beyond 1024" in res.reason
    assert proved_params_epsilon(params, 1000, 1e-6).epsilon == compute_params_bound("clone", params, 1000, 1e-6).epsilon


def test_bad_options_name_the_option():
    with pytest.raises(ValueError, match="s must satisfy"):
        make_params("pckv-ue", 1.0, d=2, s=3)
    with pytest.raises(ValueError, match="d must be an integer >= 2 for PCKV-GRR"):
        make_params("pckv-grr", 1.0, d=1, s=1)
    with pytest.raises(ValueError, match="d must be an integer >= 2 for PCKV-AGRR"):
        make_params("pckv-agrr", 1.0, d=1, s=1)
    with pytest.raises(ValueError, match="d is required"):
        make_params("privkv", 1.0, s=1)
