"""Accountant API: parameters, eps_c search, laws, inverse, invalid input."""
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accountant import (
    CoCoParams,
    CollisionParams,
    GenericLDP,
    PairAccountant,
    coco_theorem7_t,
    collision_paper_t,
    local_epsilon,
    make_params,
)


def test_default_t_rules():
    assert collision_paper_t(4, 1.0) == math.floor(4 * math.e + 7) == 17
    assert CollisionParams(s=4, eps0=1.0).t == 17
    t = coco_theorem7_t(4, 1.0)  # ceil(4e + 6) = 17 -> 18
    assert t == 18 and CoCoParams(s=4, eps0=1.0).t == 18
    assert CoCoParams(s=3, eps0=math.log(2)).t == 12  # 3*2+3+2 = 11 -> 12


def test_mixture_weights():
    e = math.exp(1.5)
    assert GenericLDP(1.5).mixture_weight == pytest.approx(1 / (e + 1))
    p = CollisionParams(s=4, eps0=1.5, t=20)
    assert p.mixture_weight == pytest.approx(4 / (4 * e + 16))
    assert p.remainder == pytest.approx(1 - p.mixture_weight * (1 + e))
    p = CollisionParams(s=4, eps0=1.5, t=6)  # t < 2s: min(s, t - s) = 2
    assert p.mixture_weight == pytest.approx(2 / (4 * e + 2))
    assert p.remainder == pytest.approx(1 - p.mixture_weight * (1 + e))
    p = CoCoParams(s=4, eps0=1.5, t=12)
    assert p.mixture_weight == pytest.approx(4 / (4 * e + 8))


def test_tightness_and_certification_flags():
    # Theorem 6's construction applies for Collision t >= 3s and (as stated) CoCo t >= 4s
    assert CollisionParams(s=4, eps0=1.0, t=12).theorem6_applies
    assert not CollisionParams(s=4, eps0=1.0, t=11).theorem6_applies
    assert CoCoParams(s=4, eps0=1.0, t=16).theorem6_applies
    assert not CoCoParams(s=4, eps0=1.0, t=14).theorem6_applies
    # ... but no tightness and no proof of the upper bound are claimed (docs/proved.md, Findings)
    for p in (GenericLDP(1.0), CollisionParams(s=4, eps0=1.0, t=12), CollisionParams(s=4, eps0=1.0, t=8),
              CoCoParams(s=4, eps0=1.0, t=16)):
        assert p.tight is None and p.certified is False and p.caveat
    assert "erratum" in GenericLDP(1.0).caveat and "clone" in GenericLDP(1.0).caveat
    assert "exceed" in CollisionParams(s=4, eps0=1.0, t=12).caveat
    assert "no instance above" in CollisionParams(s=4, eps0=1.0, t=8).caveat


def test_theorem5_counterexample_is_flagged():
    """The smallest counterexample found by exact enumeration (n = 2, d = s = 1, t = 6,
    eps0 = 0.5): the shuffled output's divergence at eps = 0.3 is 0.0077406934 while the
    Theorem 5 pair gives 0.0067607538, so the accountant must not call it certified."""
    acc = PairAccountant(CollisionParams(s=1, eps0=0.5, t=6), 2)
    assert acc.get_delta(0.3) == pytest.approx(0.0067607537539, rel=1e-9)
    res = acc.epsilon_result(0.0077)
    assert res.certified is False and "not a proved upper bound" in res.caveat
    assert res.epsilon < 0.3  # below the true eps for delta = 0.0077


@pytest.mark.parametrize("params", [GenericLDP(1.0), CollisionParams(s=4, eps0=2.0),
                                    CoCoParams(s=8, eps0=0.5), CollisionParams(s=4, eps0=1.0, t=6)])
@pytest.mark.parametrize("n,delta", [(1000, 1e-6), (100_000, 1e-9), (10**7, 1e-12)])
def test_epsilon_is_certified(params, n, delta):
    acc = PairAccountant(params, n)
    res = acc.epsilon_result(delta)
    assert 0 <= res.epsilon <= params.eps0
    assert res.achieved_delta <= delta
    # independent re-evaluation: delta at eps_c is within the target, and just
    # below eps_c (by the tolerance) it is not
    assert acc.get_delta(res.epsilon) <= delta
    if res.epsilon > 0:
        assert acc.divergence(res.epsilon * (1 - 3e-9)).lower > delta
    if params.theorem6_applies:
        assert res.lower_epsilon is not None and res.lower_epsilon <= res.epsilon
        assert res.epsilon - res.lower_epsilon <= 2e-9 * res.epsilon
        assert acc.divergence(res.lower_epsilon).lower > delta
    else:
        assert res.lower_epsilon is None


def test_epsilon_zero_when_no_privacy_loss_needed():
    acc = PairAccountant(GenericLDP(0.1), 10_000)
    assert acc.get_epsilon(0.5) == 0.0


def test_epsilon_matches_mpmath_search():
    p = CollisionParams(s=4, eps0=2.0)
    fast = PairAccountant(p, 5000).epsilon_result(1e-8, rtol=1e-9)
    slow = PairAccountant(p, 5000, method="mpmath", digits=30).epsilon_result(1e-8, rtol=1e-9)
    assert fast.epsilon == pytest.approx(slow.epsilon, rel=3e-9)


@settings(max_examples=12, deadline=None)
@given(eps0=st.floats(0.2, 5.0), logn=st.floats(2.0, 6.0), logd=st.floats(-12.0, -3.0))
def test_monotone_in_n_and_delta(eps0, logn, logd):
    n = int(10 ** logn)
    delta = 10 ** logd
    acc = PairAccountant(GenericLDP(eps0), n)
    e = acc.get_epsilon(delta, rtol=1e-10)
    assert e <= eps0
    e_more_users = PairAccountant(GenericLDP(eps0), 2 * n).get_epsilon(delta, rtol=1e-10)
    e_larger_delta = acc.get_epsilon(min(10 * delta, 0.5), rtol=1e-10)
    tol = 1e-9 * e + 1e-15
    assert e_more_users <= e + tol
    assert e_larger_delta <= e + tol


def test_collision_bound_beats_generic_when_t_large():
    # the Collision weight is smaller than the generic 1/(e^eps0+1) for t > 2s
    for eps0 in (0.5, 2.0, 4.0):
        g = PairAccountant(GenericLDP(eps0), 10_000).get_epsilon(1e-6)
        c = PairAccountant(CollisionParams(s=4, eps0=eps0), 10_000).get_epsilon(1e-6)
        assert c < g


def test_delta_curve_is_non_increasing():
    acc = PairAccountant(CoCoParams(s=4, eps0=2.0), 20_000)
    curve = acc.delta_curve([0.0, 0.01, 0.05, 0.1, 0.5, 1.0, 2.0])
    assert all(b <= a for a, b in zip(curve, curve[1:]))
    assert curve[-1] <= 1e-300


@pytest.mark.parametrize("mechanism,s,t", [("generic", None, None), ("collision", 4, None),
                                           ("collision", 4, 30), ("coco", 2, None)])
def test_local_epsilon(mechanism, s, t):
    n, eps, delta = 100_000, 0.3, 1e-7
    e0 = local_epsilon(n, eps, delta, mechanism=mechanism, s=s, t=t, rtol=1e-5, bound="paper")
    assert e0 is not None and e0 >= eps
    acc = PairAccountant(make_params(mechanism, e0, s=s, t=t), n)
    assert acc.get_epsilon(delta) <= eps
    if t is not None or mechanism == "generic":
        # a slightly larger eps0 breaks the target (monotone case)
        bigger = PairAccountant(make_params(mechanism, e0 * (1 + 1e-4), s=s, t=t), n)
        assert bigger.get_epsilon(delta) > eps


@pytest.mark.parametrize("call,match", [
    (lambda: GenericLDP(0.0), "eps0 must"),
    (lambda: GenericLDP(float("inf")), "eps0 must"),
    (lambda: GenericLDP(31.0), "eps0 must"),
    (lambda: CollisionParams(s=0, eps0=1.0), "s must"),
    (lambda: CollisionParams(s=4, eps0=1.0, t=4), "t must be an integer >= 5"),
    (lambda: CollisionParams(s=4, eps0=1.0, t=4.5), "t must"),
    (lambda: CollisionParams(s=5, eps0=1.0, d=4), "s must satisfy 1 <= s <= d"),
    (lambda: CoCoParams(s=4, eps0=1.0, t=9), "t must be an even integer >= 2s \\+ 2 = 10"),
    (lambda: CoCoParams(s=4, eps0=1.0, t=11), "even"),
    (lambda: make_params("collision", 1.0), "s is required"),
    (lambda: make_params("no-such-mechanism", 1.0), "mechanism must"),
    (lambda: make_params("generic", 1.0, t=5), "t does not apply to mechanism 'generic'"),
    (lambda: make_params("generic", 1.0, s=5), "s does not apply"),
    (lambda: make_params("coco", 1.0, s=2, k=3), "k does not apply"),
    (lambda: make_params("krr", 1.0), "k is required"),
    (lambda: make_params("krr", 1.0, k=1), "k must be an integer >= 2"),
    (lambda: PairAccountant(GenericLDP(1.0), 0), "n must"),
    (lambda: PairAccountant(GenericLDP(1.0), 2.5), "n must"),
    (lambda: PairAccountant(GenericLDP(1.0), 100).get_epsilon(0.0), "delta must"),
    (lambda: PairAccountant(GenericLDP(1.0), 100).get_epsilon(1.0), "delta must"),
    (lambda: PairAccountant(GenericLDP(1.0), 100).get_delta(-1.0), "epsilon must"),
    (lambda: local_epsilon(100, 0.0, 1e-6), "epsilon must"),
])
def test_invalid_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ----------------------------------------------------------------------------
# Privacy contract of the inverse and of the clamp (issue 12)
# ----------------------------------------------------------------------------
def test_inverse_meets_target_at_a_t_rule_seam():
    """The reported counterexample: with the default t rule the old walk assumed a t that
    the rule does not give at the returned eps0 (achieved 2.89332 > 2.8931)."""
    n, eps, delta = 384, 2.8931, 0.000112
    e0 = local_epsilon(n, eps, delta, mechanism="coco", s=4, bound="paper")
    params = make_params("coco", e0, s=4)
    assert PairAccountant(params, n).get_epsilon(delta) <= eps
    assert e0 > 6.9  # the walk still finds the large eps0 of a later t interval


def test_inverse_property_random_draws():
    """Random draws, including eps0 landing next to seams of the t rules: the returned
    eps0, with the t that the rule gives at it, always meets the target."""
    import random

    rng = random.Random(12)
    for _ in range(24):
        mech = rng.choice(["collision", "coco"])
        s = rng.choice([1, 2, 4])
        n = rng.choice([50, 384, 2000, 10**5])
        eps = rng.uniform(0.05, 3.0)
        delta = 10 ** rng.uniform(-9, -3)
        e0 = local_epsilon(n, eps, delta, mechanism=mech, s=s, bound="paper", rtol=1e-4)
        got = PairAccountant(make_params(mech, e0, s=s), n).get_epsilon(delta)
        assert got <= eps, (mech, s, n, eps, delta, e0, got)
        assert e0 >= min(eps, 20.0)


def test_epsilon_never_above_eps0():
    for n in (1, 2, 3):
        for e0 in (0.3, 1.0, 5.0):
            acc = PairAccountant(GenericLDP(e0), n)
            assert acc.get_epsilon(1e-12) <= e0
            assert acc.epsilon_result(1e-12).epsilon <= e0


def test_inverse_without_amplification_returns_target():
    # n = 1: no amplification, eps0 = eps is the answer (it used to fail with None)
    assert local_epsilon(1, 0.3, 1e-9, bound="paper") == pytest.approx(0.3, rel=1e-6)
    assert local_epsilon(1, 0.3, 1e-9, bound="clone") == pytest.approx(0.3, rel=1e-6)


def test_local_epsilon_guess_changes_cost_not_answer():
    """A starting guess (the planner's screen) only places the proved search: the answer is
    verified on the proved bound and agrees with the unguided one to the tolerance."""
    from accountant.bounds.registry import proved_epsilon

    n, eps, delta = 20_000, 0.5, 1e-6
    ref = local_epsilon(n, eps, delta, "collision", 4, t=40, rtol=1e-5)
    for g in (ref * 0.8, ref * 1.001, ref * 1.3, 19.0):
        e0 = local_epsilon(n, eps, delta, "collision", 4, t=40, rtol=1e-5, guess=g)
        assert proved_epsilon(n, e0, delta, "collision", 4, 40).epsilon <= eps
        assert e0 == pytest.approx(ref, rel=3e-5)


def test_saddle_local_epsilon_places_the_proved_inverse():
    # the saddle-point estimate of the blanket's inverse (it places the proved search when
    # the paper's pair says nothing) lies close to the verified answer; None without a law
    from accountant.accounting.calibration import local_epsilon, saddle_local_epsilon
    from accountant.bounds.registry import proved_params_epsilon
    from accountant.core.params import make_params

    est = saddle_local_epsilon("collision", 100_000, 0.5, 1e-6, s=4)
    got = local_epsilon(100_000, 0.5, 1e-6, "collision", s=4)
    assert abs(est / got - 1) < 1e-2
    assert proved_params_epsilon(make_params("collision", got, s=4), 100_000, 1e-6).epsilon <= 0.5
    assert saddle_local_epsilon("generic", 100_000, 0.5, 1e-6) is None
    assert saddle_local_epsilon("krr", 100, 5.0, 1e-6, k=4, eps0_max=4.0) == 4.0  # eps_c <= eps0 <= target


def test_headline_note_carries_what_the_winning_bound_says():
    """The headline's ``note`` is the winning bound's reason: None for the plain blanket, the
    assumption and which law answered under the random-hash model (the lattice bound of all the
    law's atoms for the worst types, the four-corner relaxation for the rest, or the four corners
    alone), where the number is also no larger than the any-hash one."""
    from accountant import ShuffleAccountant, make_params

    plain = ShuffleAccountant(make_params("collision", 1.0, s=4), 10**4).epsilon_result(1e-6)
    rand = ShuffleAccountant(make_params("collision", 1.0, s=4, hash_model="random"), 10**4).epsilon_result(1e-6)
    assert plain.bound == "blanket" and plain.note is None
    assert rand.bound == "blanket" and "uniformly random function" in rand.note
    assert ("all of its atoms" in rand.note or "not the exact blanket" in rand.note) and "four-corner law" in rand.note
    assert rand.epsilon <= plain.epsilon


def test_local_epsilon_with_olh_hash_range_fixed():
    # OLH with g fixed (not round(e^eps0) + 1 at each eps0): the answer is certified with that
    # g and 0.1% more breaks the target; g applies to OLH only
    from accountant import local_epsilon, make_params
    from accountant.bounds.registry import proved_params_epsilon

    n, target, delta = 20_000, 0.5, 1e-6
    e0 = local_epsilon(n, target, delta, "olh", k=64, g=169, rtol=1e-5)
    at = proved_params_epsilon(make_params("olh", e0, k=64, g=169), n, delta)
    above = proved_params_epsilon(make_params("olh", e0 * 1.001, k=64, g=169), n, delta)
    assert at.epsilon <= target < above.epsilon
    assert e0 == pytest.approx(5.538, abs=2e-3)
    rule = local_epsilon(n, target, delta, "olh", k=64, rtol=1e-5)  # g = round(e^eps0) + 1 = 312
    assert make_params("olh", rule, k=64).g == 312 and rule > e0
    with pytest.raises(ValueError, match="g does not apply to mechanism 'krr'"):
        local_epsilon(n, target, delta, "krr", k=4, g=5)
    with pytest.raises(ValueError, match="g must be"):
        local_epsilon(n, target, delta, "olh", k=64, g=1)
