"""Certified lower bounds of the real mechanisms (accountant.bounds.laws.lower)
against exact multinomial summation, the Venn programme over all hash functions, and the
proved upper bounds: the bracket [lower, upper] must hold and be ordered."""
import dataclasses
import itertools
import math

import numpy as np
import pytest

from accountant.bounds import laws as M
from accountant.bounds.registry import compute_params_bound
from accountant.core.params import make_params
from accountant import ShuffleAccountant


@pytest.mark.parametrize("cats", ["isolated", "three"])
@pytest.mark.parametrize("s,t", [(1, 3), (2, 5), (2, 9), (3, 7)])
def test_disjoint_closed_form_matches_venn_programme(s, t, cats):
    closed = M.collision_disjoint_lower_law(1.3, s, t, cats)
    venn = M.collision_lower_count_law(1.3, t, M.CollisionDatasets(s, 0, 0, 0, 0), cats)
    for x, y in zip(closed.p + closed.a + closed.b, venn.p + venn.a + venn.b):
        assert float(x) == pytest.approx(float(y), rel=1e-13)


@pytest.mark.parametrize("mech,kw", [("collision", dict(s=2, t=7, d=6)), ("coco", dict(s=2, t=8, d=6)), ("krr", dict(k=3)),
                                     ("krr", dict(k=6)), ("rr", {}), ("generic", {})])
def test_lower_delta_equals_exact_summation(mech, kw):
    """The engine (3 categories) and the binomial sum (2 categories) against 50-digit
    direct summation over the multinomial of the same law, n = 30."""
    p = make_params(mech, 1.5, **kw)
    ll = dataclasses.replace(M.mechanism_lower_law(p), full=None)  # the category laws alone
    eps = [0.05, 0.4, 1.0]
    # the largest of the post-processings' exact values
    exact = [max(v) for v in zip(*(M.count_law_delta_exact(30, M.merge_tail(law), eps)
                                   for law in (ll.law,) + ll.alternatives))]
    for e, ex in zip(eps, exact):
        got = ll.delta(30, e)
        assert got <= ex * (1 + 1e-12)
        assert got == pytest.approx(float(ex), rel=1e-7, abs=1e-300)


@pytest.mark.parametrize("mech,kw", [("collision", dict(s=4, d=12)), ("coco", dict(s=4, d=12)), ("krr", dict(k=8)), ("rr", {}),
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
    p = make_params("collision", 2.0, s=4, d=12)
    up = compute_params_bound("blanket", p, 10**5, 1e-6)
    lo = compute_params_bound("lower", p, 10**5, 1e-6)
    assert lo.applicable and up.applicable
    assert 1.1 < up.epsilon / lo.epsilon < 1.3


def _coco_enumerated_category_probs(eps0, s, t):
    """P_x(category) for both categorisations by enumeration of every H1 (pair) and H2
    (bucket) on the 3 s coordinates, with Algorithm 1's exact output law."""
    from mechanisms.randomizers.coco import coco_output_distribution

    h, d = t // 2, 3 * s
    X = {"x1": list(range(s)), "x1p": list(range(s, 2 * s)), "x0": list(range(2 * s, 3 * s))}
    acc = {c: {x: np.zeros(3) for x in X} for c in ("isolated", "three")}
    combos = 0
    for h1 in itertools.product(range(h), repeat=d):
        h1 = np.array(h1)
        for h2 in itertools.product((-1, 1), repeat=d):
            h2 = np.array(h2)
            P = {x: coco_output_distribution(X[x], [1] * s, h1, h2, eps0, t) for x in X}
            occ, fav = {}, {}
            for x, idx in X.items():
                cnt = np.bincount(h1[idx], minlength=h)
                occ[x] = cnt > 0
                fav[x] = {int(h1[j]) + h * int(h2[j] > 0) for j in idx if cnt[h1[j]] == 1}
            for c in acc:
                cat = np.full(t, 2)
                for z in range(t):
                    k = z % h
                    free0 = c == "three" or not occ["x0"][k]
                    if z in fav["x1"] and not occ["x1p"][k] and free0:
                        cat[z] = 0
                    if z in fav["x1p"] and not occ["x1"][k] and free0:
                        cat[z] = 1
                for x in X:
                    acc[c][x] += np.bincount(cat, weights=P[x], minlength=3)
            combos += 1
    return {c: {x: v / combos for x, v in a.items()} for c, a in acc.items()}


@pytest.mark.parametrize("eps0,s,t", [(1.3, 1, 4), (0.7, 2, 6)])
def test_coco_lower_law_matches_enumeration_of_all_hashes(eps0, s, t):
    brute = _coco_enumerated_category_probs(eps0, s, t)
    for cats in ("isolated", "three"):
        law = M.coco_disjoint_lower_law(eps0, s, t, cats)
        P0 = [float(p) for p in law.p]
        P1 = [float(a * p) for a, p in zip(law.a, law.p)]
        P1p = [float(b * p) for b, p in zip(law.b, law.p)]
        np.testing.assert_allclose(brute[cats]["x0"], P0, atol=1e-12)
        np.testing.assert_allclose(brute[cats]["x1"], P1, atol=1e-12)
        np.testing.assert_allclose(brute[cats]["x1p"], P1p, atol=1e-12)


def test_coco_bracket():
    """CoCo now has a certified lower bound below the proved one (n = 1e5, eps0 = 2, s = 4,
    Theorem 7's t), and none, with the reason, when d < 3 s leaves no room for three
    disjoint inputs."""
    p = make_params("coco", 2.0, s=4, d=12)
    rep = ShuffleAccountant(p, 10**5).epsilon_result(1e-6)
    assert rep.lower_epsilon is not None and 0.5 < rep.lower_epsilon / rep.epsilon < 1.0
    assert M.lower_bound_delta(p, 10**5, rep.lower_epsilon)[0] > 1e-6
    rep = ShuffleAccountant(make_params("coco", 1.0, s=2, d=5), 10**4).epsilon_result(1e-6)
    assert rep.lower_epsilon is None
    assert "d >= 3 s = 6" in rep.lower_reason


def test_binary_delta_symmetry_and_zero():
    # swapping the categories (N -> n - N) gives the same value
    a = M.binary_delta(500, 0.3, 2.0, -1.0)
    b = M.binary_delta(500, 0.7, -1.0, 2.0)
    assert a == pytest.approx(b, rel=1e-12)
    assert M.binary_delta(500, 0.3, -1.0, -0.5) == 0.0
    # both coefficients positive: the mean
    assert M.binary_delta(10, 0.3, 2.0, 1.0) == pytest.approx(0.3 * 2 + 0.7 * 1, rel=1e-15)
    assert math.isfinite(M.binary_delta(10**9, 0.5, 1.0, -1.0))


def test_isolated_categories_certify_more_than_regions():
    """Reports in H(x1) only *outside* the other users' image carry the evidence: the
    "isolated" categories certify eps 0.0699 where the region categories ("three", the
    previous choice) certified 0.0567 (n = 1e4, s = 4, t = 36, eps0 = 2, delta = 1e-6); and
    being a coarsening of the 8 Venn regions they stay below them (data processing).  The eight
    patterns of the three images' indicators (pattern_lower) certify more again: 0.07054."""
    p = make_params("collision", 2.0, s=4, d=12)
    assert p.t == 36
    lo = compute_params_bound("lower", p, 10**4, 1e-6).epsilon
    assert 0.0704 < lo < 0.0707
    ll = M.mechanism_lower_law(p)
    cats = dataclasses.replace(ll, full=None)
    assert cats.delta(10**4, 0.0695) > 1e-6 > cats.delta(10**4, 0.0700)
    old = M.LowerLaw(M.collision_lower_count_law(2.0, 36, M.CollisionDatasets(4), "three"), "three")
    assert old.delta(10**4, lo) < 0.75e-6 < cats.delta(10**4, lo) < 1e-6 < ll.delta(10**4, lo)
    ds = M.CollisionDatasets(2)
    iso = M.count_law_delta_exact(6, M.collision_lower_count_law(1.5, 5, ds, "isolated"), [0.1, 0.5])
    venn = M.count_law_delta_exact(6, M.collision_lower_count_law(1.5, 5, ds, "venn"), [0.1, 0.5])
    assert all(a <= b * (1 + 1e-30) for a, b in zip(iso, venn))


def test_lower_bound_below_exact_enumeration_at_smallest_d():
    """Issue 33 regression: at d = 3s (the smallest d the construction accepts) the certified
    lower bound is below the exact eps_c of the mechanism (all functions Y -> [t], every pair of
    neighbouring datasets enumerated), and its own datasets' exact divergence at the lower end
    exceeds the target; d = 1 is refused (its exact eps_c, 0.608179, is below 0.64993)."""
    from accountant.engines import enumeration as E

    n, eps0, delta, s, t = 3, 1.0, 1e-2, 1, 6
    rep = ShuffleAccountant(make_params("collision", eps0, s=s, t=t, d=3), n).epsilon_result(delta)
    lo = rep.lower_epsilon
    assert lo is not None and rep.lower_hash_model == "uniformly random hash"
    alpha = E.collision_alphabet(3, s, t, eps0)
    # x1 = {1-}, x1' = {2-}, x0 = {3-}: pairwise disjoint items, as lower_dataset states
    own = E.collision_shuffled_divergence(alpha, (0,), (2,), ((4,), (4,)), [lo])[0]
    worst, _ = E.worst_case_divergence(alpha, n, [lo])
    assert own > delta and worst[0] >= own
    d1 = E.worst_case_divergence(E.collision_alphabet(1, s, t, eps0), n, [0.608179, lo])[0]
    assert d1[0] == pytest.approx(delta, rel=1e-5) and d1[1] < delta  # d = 1: 0.64993 overclaims
    rep1 = ShuffleAccountant(make_params("collision", eps0, s=s, t=t, d=1), n).epsilon_result(delta)
    assert rep1.lower_epsilon is None and "got d = 1" in rep1.lower_reason


@pytest.mark.parametrize("n,p1,z", [(10**5, 0.73, 0.5), (10**5, 0.73, 3.0), (10**5, 0.27, 6.0),
                                    (10**6, 0.62, 9.0), (2 * 10**4, 0.95, 4.0)])
def test_binary_delta_is_a_lower_end_within_its_margin_of_a_30_digit_sum(n, p1, z):
    # the binary laws' delta E[(v1 N + v2 (n - N))_+]/n by the closed form: never above the
    # exact value (a certified lower end), and within twice its float margin below it
    import math

    import mpmath

    from accountant.bounds.laws.lower import binary_delta
    from accountant.engines.blanket.oue import FLOAT_REL_ERROR_OUE

    sd = math.sqrt(n * p1 * (1 - p1))
    c = n * p1 + z * sd
    v2 = -c / n
    v1 = v2 + 1.0                      # d = 1: delta = E[(N - c)_+] / n
    with mpmath.workdps(30):
        k0 = int(math.floor(c)) + 1
        P = mpmath.binomial(n, k0) * mpmath.mpf(p1) ** k0 * (1 - mpmath.mpf(p1)) ** (n - k0)
        total, k = mpmath.mpf(0), k0
        while k <= n and (k < k0 + 60 * sd + 100):
            total += (k - mpmath.mpf(c)) * P
            P *= mpmath.mpf(n - k) / (k + 1) * mpmath.mpf(p1) / (1 - mpmath.mpf(p1))
            k += 1
        exact = float(total / n)
    got = binary_delta(n, p1, v1, v2)
    margin = FLOAT_REL_ERROR_OUE * max(1.0, math.sqrt(n) / 1e3)
    assert exact * (1 - 2 * margin) <= got <= exact


@pytest.mark.parametrize("mechanism, n", [("collision", 10 ** 8), ("krr", 10 ** 6), ("coco", 10 ** 5)])
def test_chart_tolerance_lower_bound_uses_coarse_bins_and_stays_a_lower_bound(mechanism, n):
    """At a chart's tolerance (1e-4) the lower search lets the engine's bins stop at a gap of
    1e-4 from one bin and the pattern evaluation take coarse cells: the eps found is within the
    tolerance above the rtol-1e-9 one and within 2e-3 below it, never above
    the proved upper bound, and the certified delta there is above the target (that is what
    makes it a lower bound)."""
    from accountant import ShuffleAccountant, lower_bound_epsilon, make_params
    from accountant.bounds.laws import mechanism_lower_law

    kw = dict(s=4, d=1000) if mechanism in ("collision", "coco") else dict(k=10)
    for eps0 in (0.5, 2.0):
        params = make_params(mechanism, eps0, **kw)
        fine = lower_bound_epsilon(params, n, 1e-6, rtol=1e-9).epsilon
        coarse = lower_bound_epsilon(params, n, 1e-6, rtol=1e-4).epsilon
        # above by the search's tolerance at most; below by the coarse cells of the pattern
        # evaluation (pattern_lower.COARSE: at most ~1e-3)
        assert fine > 0 and fine * (1 - 2e-3) <= coarse <= fine * (1 + 2e-4)
        assert coarse <= ShuffleAccountant(params, n).get_epsilon(1e-6)
        assert mechanism_lower_law(params).delta(n, coarse) > 1e-6
