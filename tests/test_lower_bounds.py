"""Certified lower bounds of the real mechanisms (accountant.mechanism_law.lower_bound_*)
against exact multinomial summation, the Venn programme over all hash functions, and the
proved upper bounds: the bracket [lower, upper] must hold and be ordered."""
import math

import pytest

from accountant import mechanism_law as M
from accountant.bounds import compute_params_bound
from accountant.params import make_params
from accountant.shuffle import ShuffleAccountant


@pytest.mark.parametrize("cats", ["isolated", "three"])
@pytest.mark.parametrize("s,t", [(1, 3), (2, 5), (2, 9), (3, 7)])
def test_disjoint_closed_form_matches_venn_programme(s, t, cats):
    closed = M.collision_disjoint_lower_law(1.3, s, t, cats)
    venn = M.collision_lower_count_law(1.3, t, M.CollisionDatasets(s, 0, 0, 0, 0), cats)
    for x, y in zip(closed.p + closed.a + closed.b, venn.p + venn.a + venn.b):
        assert float(x) == pytest.approx(float(y), rel=1e-13)


@pytest.mark.parametrize("mech,kw", [("collision", dict(s=2, t=7)), ("krr", dict(k=3)),
                                     ("krr", dict(k=6)), ("rr", {}), ("generic", {})])
def test_lower_delta_equals_exact_summation(mech, kw):
    """The engine (3 categories) and the binomial sum (2 categories) against 50-digit
    direct summation over the multinomial of the same law, n = 30."""
    p = make_params(mech, 1.5, **kw)
    ll = M.mechanism_lower_law(p)
    eps = [0.05, 0.4, 1.0]
    # the largest of the post-processings' exact values
    exact = [max(v) for v in zip(*(M.count_law_delta_exact(30, M._merge_tail(law), eps)
                                   for law in (ll.law,) + ll.alternatives))]
    for e, ex in zip(eps, exact):
        got = ll.delta(30, e)
        assert got <= ex * (1 + 1e-12)
        assert got == pytest.approx(float(ex), rel=1e-7, abs=1e-300)


@pytest.mark.parametrize("mech,kw", [("collision", dict(s=4)), ("krr", dict(k=8)), ("rr", {}),
                                     ("generic", {})])
@pytest.mark.parametrize("n", [50, 10**4, 10**6])
def test_bracket_ordered(mech, kw, n):
    rep = ShuffleAccountant(make_params(mech, 2.0, **kw), n).epsilon_result(1e-6)
    assert rep.certified
    assert rep.lower_epsilon is not None
    assert 0.0 < rep.lower_epsilon <= rep.epsilon <= 2.0
    # the lower bound is a theorem about the mechanism: its delta at lower_epsilon exceeds the target
    d = M.lower_bound_delta(make_params(mech, 2.0, **kw), n, rep.lower_epsilon)
    assert d[0] > 1e-6


def test_krr_bracket_is_narrow():
    """k-RR: the exact blanket is within 1e-3 relative of the certified lower bound at n = 1e4."""
    rep = ShuffleAccountant(make_params("krr", 2.0, k=8), 10**4).epsilon_result(1e-6)
    assert rep.bound == "blanket"
    assert rep.epsilon / rep.lower_epsilon - 1 < 1e-3


def test_collision_lower_below_proved_and_gap_from_random_hash():
    p = make_params("collision", 2.0, s=4)
    up = compute_params_bound("blanket", p, 10**5, 1e-6)
    lo = compute_params_bound("lower", p, 10**5, 1e-6)
    assert lo.applicable and up.applicable
    assert 1.1 < up.epsilon / lo.epsilon < 1.3


def test_coco_lower_not_available_with_reason():
    rep = ShuffleAccountant(make_params("coco", 1.0, s=2), 10**4).epsilon_result(1e-6)
    assert rep.lower_epsilon is None
    assert "coco" in rep.lower_reason


def test_binary_delta_symmetry_and_zero():
    # swapping the categories (N -> n - N) gives the same value
    a = M._binary_delta(500, 0.3, 2.0, -1.0)
    b = M._binary_delta(500, 0.7, -1.0, 2.0)
    assert a == pytest.approx(b, rel=1e-12)
    assert M._binary_delta(500, 0.3, -1.0, -0.5) == 0.0
    # both coefficients positive: the mean
    assert M._binary_delta(10, 0.3, 2.0, 1.0) == pytest.approx(0.3 * 2 + 0.7 * 1, rel=1e-15)
    assert math.isfinite(M._binary_delta(10**9, 0.5, 1.0, -1.0))


def test_isolated_categories_certify_more_than_regions():
    """Reports in H(x1) only *outside* the other users' image carry the evidence: the
    "isolated" categories certify eps 0.0699 where the region categories ("three", the
    previous choice) certified 0.0567 (n = 1e4, s = 4, t = 36, eps0 = 2, delta = 1e-6); and
    being a coarsening of the 8 Venn regions they stay below them (data processing)."""
    p = make_params("collision", 2.0, s=4)
    assert p.t == 36
    lo = compute_params_bound("lower", p, 10**4, 1e-6).epsilon
    assert 0.0695 < lo < 0.0705
    old = M.LowerLaw(M.collision_lower_count_law(2.0, 36, M.CollisionDatasets(4), "three"), "three")
    assert old.delta(10**4, lo) < 0.75e-6 < 1e-6 < M.mechanism_lower_law(p).delta(10**4, lo)
    ds = M.CollisionDatasets(2)
    iso = M.count_law_delta_exact(12, M.collision_lower_count_law(1.5, 5, ds, "isolated"), [0.1, 0.5])
    venn = M.count_law_delta_exact(12, M.collision_lower_count_law(1.5, 5, ds, "venn"), [0.1, 0.5])
    assert all(a <= b * (1 + 1e-30) for a, b in zip(iso, venn))
