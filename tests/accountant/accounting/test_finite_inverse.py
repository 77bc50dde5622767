"""The inverses for finite randomizers: the minimum batch size of a matrix (one round and composed
rounds) and the largest eps0 of a catalogue family, each answer checked on the proved bound."""
from __future__ import annotations

import pytest

from accountant import RoundSpec, ShuffleAccountant, compose_rounds, local_epsilon_family, min_users
from accountant.composition.compose import DEFAULT_STEPS, composed_upper
from accountant.core.catalogue import krr, subset_selection


def test_min_users_of_a_matrix_over_two_rounds_is_the_smallest():
    R = krr(3, 2.0)
    r = min_users(None, 0.5, 1e-6, rounds=2, randomizer=R)
    assert r.mechanism == "finite" and r.eps0 == R.eps0
    # on the composition min_users certifies with (one discretisation level on the sample grid)
    at = lambda n: composed_upper(RoundSpec.finite(R, n), 2, 1e-6)[0]  # noqa: E731
    assert at(r.n) <= 0.5 < at(r.n - 1)
    assert (r.epsilon_at_n, r.epsilon_at_n_minus_1) == (at(r.n), at(r.n - 1))
    # with as many samples, at or below the composition's own one-level pessimistic PLD (the same
    # samples; its grid is finer and its FFT error bound larger); min_users takes SEARCH_SAMPLES
    spec = RoundSpec.finite(R, r.n)
    assert composed_upper(spec, 2, 1e-6, DEFAULT_STEPS)[0] <= compose_rounds(spec, 2, 1e-6, adaptive=False,
                                                                             lower=False).epsilon
    one = min_users(None, 0.5, 1e-6, randomizer=R)
    assert one.n < r.n  # two rounds need more users than one


def test_largest_eps0_of_a_non_monotone_family_is_certified():
    # subset selection's default size ceil(k / (e^eps0 + 1)) jumps with eps0: the answer may not
    # be the largest, but its proved eps_c never exceeds the target
    e0 = local_epsilon_family(lambda e: subset_selection(6, e), 10**4, 0.3, 1e-6)
    assert 0.3 < e0 <= 20.0
    assert ShuffleAccountant(subset_selection(6, e0), 10**4).get_epsilon(1e-6) <= 0.3


@pytest.mark.parametrize("call,words", [
    (lambda: min_users(None, 0.5, 1e-6, mechanism="finite"), "needs randomizer=FiniteRandomizer"),
    (lambda: min_users(1.0, 0.5, 1e-6, randomizer=krr(3, 2.0)), "the matrix fixes eps0 = 2"),
    (lambda: min_users(None, 0.5, 1e-6, mechanism="krr", k=3, randomizer=krr(3, 2.0)), "give no mechanism"),
    (lambda: local_epsilon_family(lambda e: krr(3, e), 10**4, 0.0, 1e-6), "epsilon must be a number"),
    (lambda: local_epsilon_family(lambda e: krr(3, e), 10**4, 0.5, 2.0), "delta"),
])
def test_refusals(call, words):
    with pytest.raises(ValueError, match=words):
        call()
