"""The catalogue of frequency oracles as matrices: each is a valid eps0-LDP matrix whose blanket is
exact (every likelihood ratio 1 or e^eps0), brackets the brute-force truth at n <= 3, and agrees
with the named path where the toolkit has one."""
from __future__ import annotations

import math

import numpy as np
import pytest

from accountant import ShuffleAccountant, make_params
from accountant.bounds.finite import (finite_blanket_law, finite_lower_delta, finite_upper_delta,
                                      finite_upper_epsilon)
from mechanisms.randomizers.catalogue import (CATALOGUE, catalogue_randomizer, hadamard_response,
                                              krr, local_hashing, optimized_unary_encoding,
                                              subset_selection, symmetric_unary_encoding)
from tests.finite_brute import brute_delta

SMALL = [krr(3, 1.0), hadamard_response(3, 1.0), subset_selection(4, 0.8), symmetric_unary_encoding(3, 1.5),
         optimized_unary_encoding(3, 1.0), local_hashing(3, 1.0, 2)]


@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_members_are_eps0_ldp_with_exact_blanket(name):
    R = catalogue_randomizer(name, 4, 1.3)
    assert np.allclose(R.matrix.sum(axis=1), 1.0)
    assert abs(R.eps0 - 1.3) < 1e-9
    assert finite_blanket_law(R).exact_blanket


@pytest.mark.parametrize("R", SMALL, ids=lambda R: R.label)
def test_members_bracket_brute_force(R):
    for n in (2, 3):
        for eps in (0.0, 0.3 * R.eps0):
            truth = brute_delta(R.matrix, n, eps)
            assert finite_upper_delta(R, n, eps).delta >= truth * (1 - 1e-12)
            assert finite_lower_delta(R, n, eps).delta <= truth * (1 + 1e-9) + 1e-15


def test_hadamard_response_probabilities():
    R = hadamard_response(5, 2.0)          # K = 8: each input owns 4 outputs
    E = math.exp(2.0)
    assert R.matrix.shape == (5, 8)
    for row in R.matrix:
        assert np.isclose(row[row > row.min()].sum(), E / (E + 1))


@pytest.mark.parametrize("k,eps0,n", [(4, 1.0, 10**5), (8, 2.0, 10**6)])
def test_oue_matrix_agrees_with_named_oue(k, eps0, n):
    named = ShuffleAccountant(make_params("oue", eps0, k=k), n).get_epsilon(1e-6)
    up = finite_upper_epsilon(optimized_unary_encoding(k, eps0), n, 1e-6).epsilon
    assert abs(up / named - 1) <= 2e-5  # the same four-atom blanket, both searched to 1e-5


def test_limits_are_stated():
    with pytest.raises(ValueError, match="k must be an integer in \\[2, 16\\]"):
        optimized_unary_encoding(17, 1.0)
    with pytest.raises(ValueError, match="beyond the limit"):
        local_hashing(12, 1.0, 4)
    with pytest.raises(ValueError, match="size must be"):
        subset_selection(5, 1.0, size=5)
    with pytest.raises(ValueError, match="randomizer must be one of"):
        catalogue_randomizer("nope", 3, 1.0)
