"""Tests of accountant.bounds.laws.worst_hash against brute-force enumeration (all hash functions)."""
import itertools
import math

import numpy as np
import pytest

from accountant.engines import enumeration as en
from accountant.bounds.laws.collision_lower import (
    CollisionDatasets,
    collision_category_law,
    collision_lower_count_law,
    krr_lower_count_law,
    venn_count_law,
    best_collision_lower_bound,
    collision_dataset_candidates,
)
from accountant.bounds.laws.count_law import (
    blanket_count_law,
    count_law_delta_exact,
    count_law_delta_float,
    krr_count_law,
)

EPS = [0.0, 0.25, 0.7]

# (d, s, t, x1, x1', x0, CollisionDatasets): items 2j = j-, 2j+1 = j+
CASES = [
    (2, 1, 3, (0,), (2,), (1,), CollisionDatasets(1)),
    (2, 1, 3, (0,), (2,), (0,), CollisionDatasets(1, o1=1)),
    (3, 2, 3, (0, 2), (1, 4), (3, 5), CollisionDatasets(2)),
    (3, 2, 4, (0, 2), (0, 4), (2, 5), CollisionDatasets(2, r=1, o1=1)),
    (3, 2, 3, (0, 2), (1, 3), (0, 3), CollisionDatasets(2, o1=1, o2=1)),
    (3, 2, 3, (0, 2), (0, 4), (0, 5), CollisionDatasets(2, r=1, o12=1)),
]


def _brute_category_probs(d, s, t, eps0, x1, x1p, x0):
    """P_x(c) for c in {1, 2, 3} by enumerating every function Y -> [t]."""
    H = en.all_hash_functions(d, t)
    z = np.arange(t)
    member = {}
    for name, x in (("x1", x1), ("x1p", x1p), ("x0", x0)):
        img = H[:, list(x)]
        member[name] = (img[:, :, None] == z[None, None, :]).any(axis=1)
    cat = np.where(member["x1"] & ~member["x1p"], 0, np.where(member["x1p"] & ~member["x1"], 1, 2))
    out = {}
    for name in member:
        m = member[name].sum(axis=1, keepdims=True)
        pz = en.collision_prob(member[name], np.broadcast_to(m, member[name].shape), s, t, eps0)
        out[name] = np.array([pz[cat == c].sum() / len(H) for c in range(3)])
    return out


def _exact_pair_divergence(d, s, t, eps0, x1, x1p, x0, n, eps):
    inputs = [x1, x1p] + ([x0] if x0 not in (x1, x1p) else [])
    A = en.collision_alphabet(d, s, t, eps0, inputs=inputs)
    j = [A.index(x) for x in (x1, x1p, x0)]
    law, _ = A.restrict(sorted(set(j)))
    return en.shuffled_hockey_stick_common_others(law[j[0]], law[j[1]], law[j[2]], n, eps)


@pytest.mark.parametrize("case", CASES)
def test_category_probabilities_dp_equal_enumeration(case):
    d, s, t, x1, x1p, x0, ds = case
    venn = venn_count_law(ds, t)
    assert sum(venn.values()) == 1
    for eps0 in (0.5, 2.0):
        keys, P = collision_category_law(eps0, t, ds, "three")
        assert keys == [1, 2, 3]
        brute = _brute_category_probs(d, s, t, eps0, x1, x1p, x0)
        for x in ("x1", "x1p", "x0"):
            np.testing.assert_allclose([float(v) for v in P[x]], brute[x], rtol=1e-12, atol=1e-15)
            assert abs(float(sum(P[x])) - 1.0) < 1e-30 + 1e-15


@pytest.mark.parametrize("case", CASES[:4])
def test_lower_laws_against_exact_shuffled_divergence(case):
    d, s, t, x1, x1p, x0, ds = case
    for eps0 in (0.5, 1.5):
        up_law = blanket_count_law("collision", eps0, s, t)
        for n in ((1, 3) if s == 1 else (1, 2)):
            ex = _exact_pair_divergence(d, s, t, eps0, x1, x1p, x0, n, EPS)
            full = count_law_delta_exact(n, collision_lower_count_law(eps0, t, ds, "full"), EPS)
            np.testing.assert_allclose(full, ex, rtol=1e-10, atol=1e-14)  # sufficient statistic
            for cats in ("three", "isolated", "four", "venn"):
                lo = count_law_delta_exact(n, collision_lower_count_law(eps0, t, ds, cats), EPS,
                                           side="lower")
                assert np.all(lo <= ex + 1e-13), (cats, lo, ex)
            assert ex[0] > 0  # total variation of distinct inputs is positive
            up = count_law_delta_exact(n, up_law, EPS, side="upper")
            assert np.all(ex <= up + 1e-13), (ex, up)


def test_three_categories_strictly_lose_somewhere_and_venn_refines_three():
    d, s, t, x1, x1p, x0, ds = CASES[2]
    eps0, n = 1.5, 3
    three = count_law_delta_exact(n, collision_lower_count_law(eps0, t, ds, "three"), EPS)
    venn = count_law_delta_exact(n, collision_lower_count_law(eps0, t, ds, "venn"), EPS)
    ex = _exact_pair_divergence(d, s, t, eps0, x1, x1p, x0, n, EPS)
    assert np.all(three <= venn + 1e-13) and np.all(venn <= ex + 1e-13)
    assert three[1] < 0.95 * ex[1]


def test_worst_case_over_all_datasets_below_blanket_upper_law():
    d, s, t, n = 2, 1, 3, 3
    for eps0 in (0.5, 2.0):
        A = en.collision_alphabet(d, s, t, eps0)
        worst, _ = en.worst_case_divergence(A, n, EPS)
        up = count_law_delta_exact(n, blanket_count_law("collision", eps0, s, t), EPS)
        assert np.all(worst <= up + 1e-13), (worst, up)
        assert np.all(worst >= 0.3 * up) and worst[0] > 0.7 * up[0]  # and not vacuous here


@pytest.mark.parametrize("t", [3, 5])
def test_blanket_law_dominates_every_hash_in_convex_order(t):
    """E[(L|H - c)_+] <= E[(L_clean - c)_+] for every H, pair of inputs and threshold c."""
    d, s = 3, 2
    H = en.all_hash_functions(d, t)[::7]
    X = en.collision_inputs(d, s)
    z = np.arange(t)
    for eps0, eps in ((1.0, 0.3), (2.0, 0.0)):
        E, u = math.exp(eps0), math.exp(eps)
        om = s * E + t - s
        law = blanket_count_law("collision", eps0, s, t)
        atoms = np.array([float(v) for v in law.values(eps)]) * t / om  # gamma * clean atom
        probs = np.array([float(p) for p in law.p]) * om / t  # clean law (sums to 1)
        assert probs.sum() == pytest.approx(1.0)
        cs = np.linspace(-E * u, E, 41)
        clean = (probs[None, :] * np.maximum(atoms[None, :] - cs[:, None], 0)).sum(axis=1)
        for x, xp in itertools.permutations(X[:6], 2):
            f = []
            for y in (x, xp):
                mem = (H[:, list(y)][:, :, None] == z[None, None, :]).any(axis=1)
                m = np.broadcast_to(mem.sum(axis=1, keepdims=True), mem.shape)
                f.append(t * en.collision_prob(mem, m, s, t, eps0))
            L = f[0] - u * f[1]  # (hashes, t): L = mu_x/omega - u mu_x'/omega, z uniform
            assert np.allclose(L.mean(axis=1), 1 - u)
            lhs = np.maximum(L[:, :, None] - cs[None, None, :], 0).mean(axis=1)
            assert np.all(lhs <= clean[None, :] + 1e-12)


def test_exact_evaluator_against_direct_formulas():
    law = blanket_count_law("collision", 1.0, 2, 7)
    E = math.e
    p = [float(v) for v in law.p]
    for eps in (0.0, 0.4, 1.2):
        u = math.exp(eps)
        v = [E - u, 1 - u * E, 1 - u]
        one = sum(pc * max(vc, 0) for pc, vc in zip(p, v))
        assert count_law_delta_exact(1, law, [eps])[0] == pytest.approx(one, rel=1e-14, abs=1e-16)
        pp = [1 - sum(p)] + p
        vv = [0.0] + v
        two = sum(pp[i] * pp[j] * max(vv[i] + vv[j], 0) for i in range(4) for j in range(4)) / 2
        assert count_law_delta_exact(2, law, [eps])[0] == pytest.approx(two, rel=1e-13, abs=1e-16)
    # eps = 0 is E[(sum v N)_+]/n with v = (E-1, 1-E, 0): equals E[(N1-N2)_+](E-1)/n
    ex = count_law_delta_exact(30, law, [0.0, 0.5, 1.0])
    fl = count_law_delta_float(30, law, [0.0, 0.5, 1.0])
    np.testing.assert_allclose(fl, ex, rtol=1e-9, atol=1e-18)
    assert np.all(np.diff(ex) < 0)


def test_directed_results_bracket_the_value_and_vanish_at_eps_eps0():
    law = collision_lower_count_law(1.0, 3, CollisionDatasets(1), "four")
    eps = [0.2, 1.0]
    lo, mid, hi = (count_law_delta_exact(6, law, eps, side=sd) for sd in ("lower", "nearest", "upper"))
    assert np.all(lo <= mid) and np.all(mid <= hi) and np.all(hi - lo <= 1e-15 * mid + 1e-35)
    assert lo[1] == 0.0  # eps = eps0: no divergence; rounding noise is not reported


def test_float_evaluator_matches_exact_for_lower_laws():
    for cats in ("three", "four"):
        law = collision_lower_count_law(1.0, 5, CollisionDatasets(2, o1=1), cats)
        ex = count_law_delta_exact(25, law, EPS)
        np.testing.assert_allclose(count_law_delta_float(25, law, EPS), ex, rtol=1e-9, atol=1e-18)


def test_delta_decreases_in_n_and_eps_and_upper_above_lower():
    s, eps0 = 2, 1.0
    t = 8
    up = blanket_count_law("collision", eps0, s, t)
    lo = collision_lower_count_law(eps0, t, CollisionDatasets(s), "four")
    grid = [0.05, 0.2, 0.4]
    prev_u = prev_l = None
    for n in (10, 40, 160):
        du, dl = count_law_delta_float(n, up, grid), count_law_delta_float(n, lo, grid)
        assert np.all(dl <= du) and np.all(np.diff(du) < 0) and np.all(np.diff(dl) < 0)
        if prev_u is not None:
            assert np.all(du < prev_u) and np.all(dl < prev_l)
        prev_u, prev_l = du, dl


def _krr_rows(eps0, k, x):
    E = math.exp(eps0)
    r = np.full(k, 1.0 / (E + k - 1))
    r[x] = E / (E + k - 1)
    return r


@pytest.mark.parametrize("k", [2, 3, 5])
def test_krr_lower_laws_equal_exact_divergence_and_below_upper(k):
    for eps0 in (0.5, 2.0):
        up = krr_count_law(eps0, k)
        for x0, row0 in (("x1", 0), ("third", 2)):
            if x0 == "third" and k < 3:
                with pytest.raises(ValueError, match="k >= 3"):
                    krr_lower_count_law(eps0, k, x0)
                continue
            lo = krr_lower_count_law(eps0, k, x0)
            for n in (1, 4):
                ex = en.shuffled_hockey_stick_common_others(
                    _krr_rows(eps0, k, 0), _krr_rows(eps0, k, 1), _krr_rows(eps0, k, row0), n, EPS)
                mine = count_law_delta_exact(n, lo, EPS)
                np.testing.assert_allclose(mine, ex, rtol=1e-10, atol=1e-15)
                assert np.all(mine <= count_law_delta_exact(n, up, EPS) + 1e-13)


def test_krr_is_collision_with_one_item():
    a, b = krr_count_law(1.3, 6), blanket_count_law("collision", 1.3, 1, 6)
    assert a.p == b.p and a.a == b.a and a.b == b.b


def test_blanket_law_small_t_has_overlap_atom_and_coco_same_as_collision():
    law = blanket_count_law("collision", 1.0, 3, 4)  # j0 = 2
    E = math.e
    assert [float(x) for x in law.p] == pytest.approx([1 / (3 * E + 1)] * 2 + [2 / (3 * E + 1)])
    assert float(law.a[2]) == pytest.approx(E) and float(law.b[2]) == pytest.approx(E)
    c1, c2 = blanket_count_law("coco", 1.0, 2, 8), blanket_count_law("collision", 1.0, 2, 8)
    assert c1.p == c2.p


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: blanket_count_law("rappor", 1.0, 1, 3), "mechanism"),
        (lambda: blanket_count_law("collision", 0.0, 1, 3), "eps0"),
        (lambda: blanket_count_law("collision", 1.0, 2, 2), "t must"),
        (lambda: blanket_count_law("coco", 1.0, 2, 7), "t must"),
        (lambda: krr_count_law(1.0, 1), "k must"),
        (lambda: CollisionDatasets(2, r=2), "r must"),
        (lambda: CollisionDatasets(2, o1=2, o2=1), "o1 \\+ o2"),
        (lambda: count_law_delta_exact(0, krr_count_law(1.0, 3), [0.1]), "n must"),
        (lambda: count_law_delta_exact(3, krr_count_law(1.0, 3), [-0.1]), "eps must"),
        (lambda: collision_category_law(1.0, 4, CollisionDatasets(1), "bad"), "categories"),
        (lambda: count_law_delta_exact(3, krr_count_law(1.0, 3), [0.1], side="up"), "side"),
    ],
)
def test_validation(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_three_categories_sufficient_for_one_item_and_x0_equal_x1():
    """s = 1, x0 = x1: the three categories lose nothing (equal to the exact divergence)."""
    d, s, t, x1, x1p, x0, ds = CASES[1]
    for eps0 in (0.5, 2.0):
        ex = _exact_pair_divergence(d, s, t, eps0, x1, x1p, x0, 3, EPS)
        three = count_law_delta_exact(3, collision_lower_count_law(eps0, t, ds, "three"), EPS)
        np.testing.assert_allclose(three, ex, rtol=1e-10, atol=1e-15)
    law20 = [count_law_delta_exact(20, collision_lower_count_law(1.0, t, ds, c), EPS)
             for c in ("three", "full")]
    np.testing.assert_allclose(law20[0], law20[1], rtol=1e-12)


def test_best_lower_bound_is_a_max_over_candidates_and_below_upper():
    eps0, s, t, n = 1.0, 2, 8, 16
    eps = [0.1, 0.3]
    cands = collision_dataset_candidates(s)
    assert len(cands) == len(set(cands)) == 6 + 7  # r = 0: o1 + o2 <= 2; r = 1: 4 + 3
    best = best_collision_lower_bound(n, eps0, s, t, eps)
    up = count_law_delta_float(n, blanket_count_law("collision", eps0, s, t), eps)
    for i, (val, ds) in enumerate(best):
        each = [count_law_delta_float(n, collision_lower_count_law(eps0, t, c, "four"), eps)[i]
                for c in cands]
        assert val == pytest.approx(max(each), rel=1e-8) and val <= max(each)
        assert 0 < val < up[i]
        ex = count_law_delta_exact(n, collision_lower_count_law(eps0, t, ds, "four"), [eps[i]],
                                   side="lower")[0]
        assert val <= ex * (1 + 1e-12)


def _majorized_by_fstar(w, s, E):
    t = len(w)
    fstar = np.array([E] * s + [1.0] * (t - s))
    cw = np.cumsum(np.sort(w)[::-1])
    return abs(cw[-1] - fstar.sum()) < 1e-9 * t * E and np.all(cw <= np.cumsum(fstar) + 1e-9 * E)


def test_coco_weights_majorized_and_dominated_in_convex_order():
    """CoCo's relative weights Omega P[.|x, H1, H2] are majorized by f* (so the blanket law
    holds for CoCo), and L for random pairs is dominated in convex order by the clean law."""
    from mechanisms.randomizers.coco import coco_output_distribution

    rng = np.random.default_rng(5)
    d, s, t = 4, 2, 6
    for eps0, eps in ((1.0, 0.2), (2.5, 0.5)):
        E, u = math.exp(eps0), math.exp(eps)
        om = (E + 1) * s + t - 2 * s
        law = blanket_count_law("coco", eps0, s, t)
        atoms = np.array([float(v) for v in law.values(eps)]) * t / om
        probs = np.array([float(p) for p in law.p]) * om / t
        cs = np.linspace(-E * u, E, 31)
        clean = (probs[None, :] * np.maximum(atoms[None, :] - cs[:, None], 0)).sum(axis=1)
        for _ in range(60):
            h1 = rng.integers(0, t // 2, size=d)
            h2 = rng.choice([-1, 1], size=d)
            P = []
            for _x in range(2):
                idx = rng.choice(d, size=s, replace=False)
                sg = rng.choice([-1, 1], size=s)
                P.append(coco_output_distribution(idx, sg, h1, h2, eps0, t))
                assert _majorized_by_fstar(om * P[-1], s, E)
            L = t * (P[0] - u * P[1])
            lhs = np.maximum(L[:, None] - cs[None, :], 0).mean(axis=0)
            assert np.all(lhs <= clean + 1e-12)


def test_collision_weights_majorized_by_fstar_for_every_hash():
    d, s, t, eps0 = 3, 3, 4, 1.2
    E = math.exp(eps0)
    om = s * E + t - s
    H = en.all_hash_functions(d, t)[::5]
    z = np.arange(t)
    for x in en.collision_inputs(d, s)[:4]:
        mem = (H[:, list(x)][:, :, None] == z[None, None, :]).any(axis=1)
        m = np.broadcast_to(mem.sum(axis=1, keepdims=True), mem.shape)
        W = om * en.collision_prob(mem, m, s, t, eps0)
        assert all(_majorized_by_fstar(w, s, E) for w in W)


@pytest.mark.parametrize("n,eps", [(1000, 0.05), (1000, 0.2), (10**5, 0.01), (10**5, 0.03)])
def test_binary_rr_slope_is_the_derivative_and_the_search_stays_certified(n, eps):
    # issue 31: binary RR's lower law reports d delta / d eps (Newton steps instead of
    # bisection: 28 s -> 3 s for 25 values of eps0 at n = 1e8); only the value is certified
    from accountant.bounds import laws as ML
    from accountant.core.params import make_params

    law = ML.mechanism_lower_law(make_params("rr", 1.0)).law
    d0, s0 = ML.law_delta_and_slope(law, n, eps)
    h = 1e-6 * eps
    d1, _ = ML.law_delta_and_slope(law, n, eps + h)
    assert d0 > 0 and s0 < 0
    assert s0 == pytest.approx((d1 - d0) / h, rel=1e-4)
    res = ML.lower_bound_epsilon(make_params("rr", 1.0), n, 1e-6)
    assert res.epsilon > 0 and ML.lower_bound_delta(make_params("rr", 1.0), n, res.epsilon)[0] > 1e-6
