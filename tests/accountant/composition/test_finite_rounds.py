"""Finite randomizers in the composition: ``RoundSpec.finite`` validates, its per-round profile is
the matrix's blanket (never below the certified lower bound of the mechanism), and a k-RR matrix
composes to the named k-RR number within the matrix path's rounding margin."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from accountant import FiniteRandomizer, RoundSpec, compose_rounds, compose_schedule, parse_schedule
from accountant.bounds.finite import finite_lower_delta
from accountant.composition.compose import default_step, round_profile, support_cutoff
from accountant.core.catalogue import krr


@pytest.mark.parametrize("k,eps0,n", [(4, 1.0, 10**4), (16, 2.0, 10**5), (64, 1.0, 10**6)])
def test_krr_matrix_profile_equals_named_within_the_margin(k, eps0, n):
    fin = round_profile(RoundSpec.finite(krr(k, eps0), n))
    named = round_profile(RoundSpec(n, eps0, "krr", k=k))
    for eps in (1e-4, 1e-3, 1e-2, 0.05, 0.2):
        f, g = fin(eps), named(eps)
        # the matrix path's upper end is the same law's times (1 + rho)^n: 1 + 2e-7 at n = 1e6
        assert g[1] * (1 - 1e-12) <= f[1] <= g[1] * (1 + 1e-6) + 1e-300, (eps, f, g)
        assert f[0] <= f[1]


@pytest.mark.parametrize("k,eps0,n,T", [(4, 1.0, 10**4, 10), (64, 1.0, 10**6, 100)])
def test_krr_matrix_composes_to_the_named_number(monkeypatch, k, eps0, n, T):
    from accountant.composition import compose as C

    named, fin = RoundSpec(n, eps0, "krr", k=k), RoundSpec.finite(krr(k, eps0), n)
    # by default each round's support (where its profile drops below 1e-4 delta / T) is searched from a
    # different closed form (k-RR's Bennett bound, the generic one for a matrix), so the profile
    # is sampled at other points: both certified, within 1% here (at one discretisation level:
    # the adaptive refinement, not the point, took 16 s of CPU at 64-RR; 0.3% apart at this level)
    own = compose_rounds(fin, T, 1e-8, adaptive=False).epsilon
    ref = compose_rounds(named, T, 1e-8, adaptive=False).epsilon
    assert abs(own / ref - 1) < 1e-2
    # on the same support and grid only the profiles differ: the matrix's is the named law's
    # times its rounding margin (8e-7 at 64-RR, n = 1e6), so never looser than the named number
    # by more than 1e-6; the FFT composition's truncation of negligible masses depends on the
    # pmf, so the matrix's total may also come out below (2.4e-5 relative at 64-RR, T = 100)
    cut = support_cutoff(1e-8, T)
    support = C.profile_support(named, cut)
    C.round_pld.cache_clear()
    from accountant.composition import profile as P

    for module in (C, P):  # round_pld (composition.profile) and default_step (compose) read it
        monkeypatch.setattr(module, "profile_support", lambda spec, cutoff=cut: support)
    step = default_step([named], cutoff=cut)
    a = compose_rounds(named, T, 1e-8, step=step)
    b = compose_rounds(fin, T, 1e-8, step=step)
    C.round_pld.cache_clear()
    assert a.epsilon * (1 - 1e-4) <= b.epsilon <= a.epsilon * (1 + 1e-6)
    assert b.epsilon_estimate_of_bound <= b.epsilon <= b.naive_epsilon


def test_profile_of_a_random_matrix_is_above_the_certified_lower_bound():
    rng = np.random.default_rng(7)
    M = rng.uniform(0.05, 1.0, (5, 6))
    R = FiniteRandomizer(M / M.sum(axis=1, keepdims=True))
    n = 1000
    prof = round_profile(RoundSpec.finite(R, n))
    last = math.inf
    for eps in (0.0, 0.05, 0.1, 0.2, 0.4):
        lo, up = prof(eps)
        assert finite_lower_delta(R, n, eps).delta <= up <= last  # a valid, non-increasing upper end
        last = up


def test_composition_of_rounds_grows_with_the_rounds():
    spec = RoundSpec.finite(krr(3, 1.5), 5000)
    eps = [compose_rounds(spec, T, 1e-6).epsilon for T in (1, 4, 16)]
    assert eps[0] < eps[1] < eps[2] <= 16 * spec.eps0


def test_schedule_reads_finite_rounds_relative_to_its_folder(tmp_path):
    (tmp_path / "m.json").write_text(json.dumps([[0.7, 0.3], [0.3, 0.7]]))
    specs = parse_schedule([{"n": 1000, "mechanism": "finite", "matrix": "m.json", "repeat": 2},
                            {"n": 500, "mechanism": "finite", "catalogue": "krr", "k": 3, "eps0": 1.0}],
                           base=str(tmp_path))
    assert len(specs) == 3 and specs[0] is specs[1] and specs[0].randomizer.k == 2
    assert specs[2].randomizer == krr(3, 1.0) and specs[2].eps0 == krr(3, 1.0).eps0
    # one discretisation level: the schedule's reading is the point, not the refinement (7.2 s
    # of CPU to 640 samples, 0.5 s here)
    r = compose_schedule(specs, 1e-6, adaptive=False)
    assert r.rounds == 3 and r.epsilon <= r.naive_epsilon


@pytest.mark.parametrize("kwargs,words", [
    ({"mechanism": "finite"}, "randomizer: a FiniteRandomizer goes with mechanism 'finite'"),
    ({"mechanism": "krr", "k": 3, "randomizer": krr(3, 1.0)}, "goes with mechanism 'finite'"),
    ({"mechanism": "finite", "randomizer": krr(3, 1.0), "k": 3}, "k does not apply to mechanism 'finite'"),
    ({"mechanism": "finite", "randomizer": krr(3, 1.0), "eps0": 2.0}, "the matrix fixes eps0"),
    ({"mechanism": "finite", "randomizer": FiniteRandomizer([[0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5]])},
     "not pure LDP and its blanket bound is not available"),
])
def test_round_spec_refuses_what_does_not_fit(kwargs, words):
    eps0 = kwargs.pop("eps0", None if kwargs.get("mechanism") == "finite" else 1.0)
    with pytest.raises(ValueError, match=words):
        RoundSpec(1000, eps0, **kwargs)


def _product_delta(P: dict, Q: dict, u: float) -> float:
    """Exact hockey-stick divergence of two independent rounds: (P x P || Q x Q) at e^eps = u."""
    keys = set(P) | set(Q)
    return math.fsum(max(P.get(a, 0.0) * P.get(b, 0.0) - u * Q.get(a, 0.0) * Q.get(b, 0.0), 0.0)
                     for a in keys for b in keys)


def _product_delta_one(P: dict, Q: dict, u: float) -> float:
    """Exact hockey-stick divergence of one round at e^eps = u."""
    return math.fsum(max(p - u * Q.get(a, 0.0), 0.0) for a, p in P.items())


def test_matrix_that_is_not_pure_ldp_composes_above_the_brute_force_truth():
    """A zero beside positive entries (output 2 never comes from input 1): the round's profile is
    the matrix's blanket bound with the outside outputs counted in full, tending to a +inf atom of
    mass 0.01.  Two rounds at n = 3: at the composed eps every dataset's exact two-round divergence
    (every multiset of the others' inputs, both orders) is <= delta; one round is at or above the
    single-round bound; a matrix whose blanket bound does not reach delta gives inf."""
    import itertools

    from tests.finite_brute import shuffled_law

    R = FiniteRandomizer([[0.6, 0.39, 0.01], [0.5, 0.5, 0.0]])
    spec = RoundSpec(3, None, "finite", randomizer=R)
    delta = 0.05
    two = compose_rounds(spec, 2, delta)
    assert math.isfinite(two.epsilon) and two.epsilon_lower is None
    u = math.exp(two.epsilon)
    worst = 0.0
    for others in itertools.combinations_with_replacement(range(2), 2):
        for x1, x1p in itertools.permutations(range(2), 2):
            worst = max(worst, _product_delta(shuffled_law(R.matrix, (x1,) + others),
                                              shuffled_law(R.matrix, (x1p,) + others), u))
    assert 0.0199 < worst <= delta  # the two-round +inf atom alone: 1 - 0.99^2 = 0.0199
    from accountant import ShuffleAccountant

    # one round: above the exact one-round eps_c (0.016807); within 1e-5 of the single-round
    # bound's own inversion (0.019814352), which the PLD may undercut: this profile is not
    # convex in e^eps (it halves at eps = 0.012), and the pessimistic PLD takes the convex
    # minorant of its samples, still above the true (convex) curve
    one = compose_rounds(spec, 1, delta)
    exact_one = max(_product_delta_one(shuffled_law(R.matrix, (x1,) + others),
                                       shuffled_law(R.matrix, (x1p,) + others), math.exp(one.epsilon))
                    for others in itertools.combinations_with_replacement(range(2), 2)
                    for x1, x1p in itertools.permutations(range(2), 2))
    assert exact_one <= delta
    assert one.epsilon == pytest.approx(ShuffleAccountant(R, 3).get_epsilon(delta), rel=1e-5)
    assert compose_rounds(spec, 4, delta).epsilon >= two.epsilon
    assert compose_rounds(spec, 2, 0.015).epsilon == math.inf   # below the +inf atom's mass
