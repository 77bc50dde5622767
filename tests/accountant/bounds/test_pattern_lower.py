"""Certified lower bounds from eight report patterns (accountant/bounds/laws/pattern_lower.py).
OUE: below the exact divergence of D = (1, 3, ..., 3), D' = (2, 3, ..., 3) (brute force, 50-digit
sums, float sums) and close to it, above the three-category reductions and Su-Cheng-Wang's FFT
lower end, below the proved upper bound, monotone in eps.  OLH (random hash): against every
hash function enumerated.  Collision (random hash): the pattern law against enumeration, below
the mechanism's own divergence."""
from __future__ import annotations

import bisect
import itertools
import json
import math
import subprocess
import sys

import mpmath
import numpy as np
import pytest

from accountant import ShuffleAccountant, make_params
from accountant.bounds import laws as M
from accountant.bounds.laws import pattern_lower as O
from accountant.bounds.laws import patterns as P
from accountant.engines import enumeration as En
from accountant.engines.binomial import binom_logpmf
from tests.accountant.bounds.test_frequency_oracles_accounting import SCW_OUE, _oue_rows


@pytest.mark.parametrize("k,n", [(3, 1), (3, 2), (3, 3), (3, 4), (4, 2), (4, 3)])
@pytest.mark.parametrize("eps0", [0.3, 1.5, 4.0])
def test_brute_force_small_n(k, n, eps0):
    """All 2^k outputs of every user enumerated (as multisets): the certified value is below the
    exact divergence of the datasets and within 1e-6 of it (same datasets, no reduction); the
    LowerLaw (the largest of the full and the three-category values) is below it too."""
    eps = [0.0, 0.05, 0.3 * eps0, 0.7 * eps0, 0.95 * eps0]
    exact = En.shuffled_hockey_stick(_oue_rows(eps0, k, (0,) + (2,) * (n - 1)),
                                     _oue_rows(eps0, k, (1,) + (2,) * (n - 1)), eps)
    ll = M.mechanism_lower_law(make_params("oue", eps0, k=k))
    for e, x in zip(eps, exact):
        ours = O.full_lower_delta(P.oue_patterns(eps0), n, e)[0]
        assert ours <= x
        assert ours >= x * (1.0 - 1e-6)
        assert ll.delta(n, e) <= x


@pytest.mark.parametrize("g,n", [(2, 2), (2, 4), (3, 2), (3, 3), (4, 3)])
@pytest.mark.parametrize("eps0", [0.4, 1.5, 3.0])
def test_olh_random_hash_brute_force(g, n, eps0):
    """OLH under the random-hash model, reports (H, z) with every hash function of four items into
    [g] enumerated (no pattern reduction): the certified full-pattern value (a = E/(E + g - 1),
    b = 1/g) is below the exact divergence of D = (1, 3, ..., 3), D' = (2, 3, ..., 3) and within
    1e-6 of it, and so is the LowerLaw that takes it."""
    alpha = En.collision_alphabet(2, 1, g, eps0, inputs=[(0,), (1,), (2,)])
    eps = [0.0, 0.05, 0.3 * eps0, 0.7 * eps0, 0.95 * eps0]
    exact = En.collision_shuffled_divergence(alpha, (0,), (1,), ((2,),) * (n - 1), eps)
    ll = M.mechanism_lower_law(make_params("olh", eps0, k=3, g=g))
    assert ll.full == O.FullPatterns(P.olh_patterns(eps0, g))
    for e, x in zip(eps, exact):
        ours = O.full_lower_delta(P.olh_patterns(eps0, g), n, e)[0]
        assert ours <= x
        assert ours >= x * (1.0 - 1e-6)
        assert ll.delta(n, e) <= x


def _collision_pattern_rows(alpha_hashes, t, eps0, sets):
    """Each input's law of the pattern ([z in H(Y_x1)], [z in H(Y_x1')], [z in H(Y_x0)]) over
    every hash function of the family and every z (Definition 5's P[z | x, H])."""
    E = math.exp(eps0)
    s = len(sets[0])
    Om = s * E + t - s
    rows = np.zeros((3, 8))
    for H in alpha_hashes:
        imgs = [set(int(H[i]) for i in items) for items in sets]
        for z in range(t):
            v = sum(1 << (2 - j) for j, A in enumerate(imgs) if z in A)
            for x, A in enumerate(imgs):
                m = len(A)
                f = E if z in A else 1.0 + (s - m) * (E - 1.0) / (t - m)
                rows[x, v] += f / Om
    return rows / len(alpha_hashes)


@pytest.mark.parametrize("t", [3, 5])
@pytest.mark.parametrize("eps0", [0.5, 2.0])
def test_collision_patterns_brute_force(t, eps0):
    """Collision, s = 2, d = 3, every hash function of the six signed items into [t]: the pattern
    law of collision_patterns (a, b) is the enumerated one (independent indicators); the certified
    value is within 1e-6 below the patterns' exact divergence, which is below the mechanism's own
    (the reports (H, z) not reduced), for n = 2, 3."""
    sets = [(0, 2), (1, 4), (3, 5)]  # x1 = {0-, 1-}, x1' = {0+, 2-}, x0 = {1+, 2+}
    H = En.all_hash_functions(3, t)
    rows = _collision_pattern_rows(H, t, eps0, sets)
    pat = P.collision_patterns(eps0, 2, t)
    for x in range(3):
        pr = [pat.b] * 3
        pr[x] = pat.a
        want = [np.prod([p if (v >> (2 - j)) & 1 else 1 - p for j, p in enumerate(pr)]) for v in range(8)]
        assert rows[x] == pytest.approx(want, rel=1e-12)
    assert pat.E < math.exp(eps0)
    alpha = En.collision_alphabet(3, 2, t, eps0, hashes=H, inputs=sets)
    for n in (2, 3):
        eps = [0.0, 0.1, 0.5 * pat.eps_max, 0.9 * pat.eps_max]
        patt = En.shuffled_hockey_stick(rows[[0] + [2] * (n - 1)], rows[[1] + [2] * (n - 1)], eps)
        mech = En.collision_shuffled_divergence(alpha, sets[0], sets[1], (sets[2],) * (n - 1), eps)
        for e, x, y in zip(eps, patt, mech):
            ours = O.full_lower_delta(pat, n, e)[0]
            assert x * (1 - 1e-6) <= ours <= x <= y * (1 + 1e-12)


@pytest.mark.parametrize("eps0,s,t", [(0.6, 1, 4), (2.0, 1, 6), (1.2, 2, 6), (0.4, 2, 6), (3.0, 2, 6)])
def test_coco_patterns_brute_force(eps0, s, t):
    """CoCo, every H1 (pair) and H2 (orientation) on the 3s coordinates, Algorithm 1's exact
    output law: the law of the indicators "z is favoured by a fraction >= tau of x's entries in
    its pair" of x1, x1', x0 is the product law of coco_patterns (a, b); the certified value is
    within 1e-6 below its shuffled divergence (n = 2, 3)."""
    from fractions import Fraction

    from mechanisms.randomizers.coco import coco_output_distribution

    h, d = t // 2, 3 * s
    tau = P.coco_threshold(eps0, s, t)
    tn, td = Fraction(tau).numerator, Fraction(tau).denominator
    X = [list(range(s)), list(range(s, 2 * s)), list(range(2 * s, 3 * s))]
    rows = np.zeros((3, 8))
    combos = 0
    for h1 in itertools.product(range(h), repeat=d):
        h1 = np.array(h1)
        for h2 in itertools.product((-1, 1), repeat=d):
            h2 = np.array(h2)
            fav = []
            for idx in X:
                c = np.bincount(h1[idx], minlength=h)
                up = np.bincount(h1[idx], weights=(h2[idx] > 0).astype(float), minlength=h)
                # u / c >= tau in integers (c > 0): the exact comparison, without a Fraction per z
                fav.append({z for z in range(t) if c[z % h]
                            and (int(up[z % h]) if z >= h else int(c[z % h] - up[z % h])) * td >= tn * int(c[z % h])})
            v = [sum(1 << (2 - j) for j in range(3) if z in fav[j]) for z in range(t)]
            for x in range(3):
                Px = coco_output_distribution(X[x], [1] * s, h1, h2, eps0, t)
                rows[x] += np.bincount(v, weights=Px, minlength=8)
            combos += 1
    rows /= combos
    pat = P.coco_patterns(eps0, s, t)
    for x in range(3):
        pr = [pat.b] * 3
        pr[x] = pat.a
        want = [np.prod([p if (v >> (2 - j)) & 1 else 1 - p for j, p in enumerate(pr)]) for v in range(8)]
        np.testing.assert_allclose(rows[x], want, rtol=1e-11, atol=1e-15)
    for n in (2, 3):
        eps = [0.0, 0.1, 0.5 * pat.eps_max, 0.9 * pat.eps_max]
        exact = En.shuffled_hockey_stick(rows[[0] + [2] * (n - 1)], rows[[1] + [2] * (n - 1)], eps)
        for e, x in zip(eps, exact):
            ours = O.full_lower_delta(pat, n, e)[0]
            assert x * (1 - 1e-6) <= ours <= x


@pytest.mark.parametrize("eps0,old", [(0.5, 0.006375), (1.0, 0.016552), (2.0, 0.056053)])
def test_coco_lower_rises(eps0, old):
    """CoCo, s = 4, d = 1000, n = 1e4, delta = 1e-6: the patterns lift the certified lower end
    by 18-35% over the category reductions (old values), still below the proved upper end."""
    params = make_params("coco", eps0, s=4, d=1000)
    r = ShuffleAccountant(params, 10**4).epsilon_result(1e-6)
    assert 1.15 * old < r.lower_epsilon < r.epsilon
    assert "fraction tau" in r.lower_dataset


def test_coco_threshold_is_the_best_fraction():
    """tau maximises the pattern law's chi2 over every fraction a pair can show (s = 4, t = 14);
    s = 1 can only show 1 (the one-entry favoured bucket)."""
    from fractions import Fraction

    eps0, s, t = 0.5, 4, 14
    tau = P.coco_threshold(eps0, s, t)
    buckets = P._coco_buckets(eps0, s, t)
    best = P.pattern_chi2(P.coco_patterns(eps0, s, t))
    for f in {Fraction(u, c) for c in range(1, s + 1) for u in range(1, c + 1)}:
        assert P.pattern_chi2(P._pattern_law(*P._coco_ab(eps0, s, t, f, buckets))) <= best * (1 + 1e-12)
    assert tau == Fraction(2, 3) and P.coco_threshold(1.0, 1, 4) == 1


def test_olh_g_equal_e_plus_one_is_oue():
    """OLH's pattern law with g = E + 1 (a = 1/2, b = 1/(E + 1)) is OUE's: the same value."""
    e0 = math.log(3.0)  # E + 1 = 4
    for n, eps in ((50, 0.2), (3000, 0.05)):
        a = O.full_lower_delta(P.oue_patterns(e0), n, eps, target=1e-6)[0]
        b = O.full_lower_delta(P.olh_patterns(e0, 4), n, eps, target=1e-6)[0]
        assert a > 0 and abs(a - b) <= 1e-9 * a


@pytest.mark.parametrize("eps0,g", [(0.5, 3), (1.0, 4), (2.0, 8)])
def test_olh_random_bracket_narrows(eps0, g):
    """n = 1e4, delta = 1e-6: the full reports raise OLH's random-hash lower bound above the
    category reductions (bracket 1.113 / 1.168 / 1.075 before; now at most 1.10) and stay below
    the random-hash upper bound."""
    params = make_params("olh", eps0, k=16, g=g, hash_model="random")
    r = ShuffleAccountant(params, 10**4).epsilon_result(1e-6)
    assert r.lower_epsilon <= r.epsilon <= 1.10 * r.lower_epsilon
    assert "not reduced" in r.lower_dataset
    ll = M.mechanism_lower_law(params)
    three = [M.law_delta_and_slope(law, 10**4, r.lower_epsilon, 1e-6)[0] for law in (ll.law,) + ll.alternatives]
    full = ll.delta(10**4, r.lower_epsilon)
    assert full >= 1e-6 * (1 - 1e-6) and max(three) < 0.9 * full


def _mp_exact(eps0: float, n: int, eps: float, dps: int = 50) -> mpmath.mpf:
    """The exact divergence of the eight patterns at ``dps`` digits: given K = #{b3 = 1}, the sum is
    (1-u)(K + E(n-K)) + (E-1)(V - u V') with V, V' i.i.d. copies of X1 + E X0 (module docstring of
    pattern_lower); every atom of V, sorted, with suffix sums over the positive set."""
    with mpmath.workdps(dps):
        E = mpmath.e ** mpmath.mpf(eps0)
        b = 1 / (E + 1)
        u = mpmath.e ** mpmath.mpf(eps)
        d = E - 1
        total = mpmath.mpf(0)
        for K in range(n + 1):
            p1 = [mpmath.binomial(K, x) * b ** x * (1 - b) ** (K - x) for x in range(K + 1)]
            p0 = [mpmath.binomial(n - K, x) * b ** x * (1 - b) ** (n - K - x) for x in range(n - K + 1)]
            atoms = sorted((x1 + E * x0, p1[x1] * p0[x0]) for x1 in range(K + 1) for x0 in range(n - K + 1))
            vals = [a for a, _ in atoms]
            P = [mpmath.mpf(0)] * (len(atoms) + 1)
            Mv = [mpmath.mpf(0)] * (len(atoms) + 1)
            for i in range(len(atoms) - 1, -1, -1):
                P[i] = P[i + 1] + atoms[i][1]
                Mv[i] = Mv[i + 1] + atoms[i][1] * atoms[i][0]
            c = (1 - u) * (K + E * (n - K))
            inner = mpmath.mpf(0)
            for vj, pj in atoms:
                i0 = bisect.bisect_right(vals, u * vj - c / d)
                inner += pj * (c * P[i0] + d * (Mv[i0] - u * vj * P[i0]))
            total += mpmath.binomial(n, K) / mpmath.mpf(2) ** n * inner
        return total / (n * E)


@pytest.mark.parametrize("eps0,eps", [(0.5, 0.15), (2.0, 0.4), (4.0, 1.2)])
def test_against_50_digits(eps0, eps, monkeypatch):
    """n = 40: the default evaluation (every K, every pair) is within 1e-6 below the 50-digit
    value; forced coarse (K-bins of 3 values, cells of half a standard deviation, grouping from
    16 pairs on) it is still below, by the Jensen and convex-order steps' loss only."""
    n = 40
    exact = float(_mp_exact(eps0, n, eps))
    ours = O.full_lower_delta(P.oue_patterns(eps0), n, eps)[0]
    assert exact * (1 - 1e-6) <= ours <= exact
    E = math.exp(eps0)
    monkeypatch.setattr(O, "K_EXACT_N", 0)
    monkeypatch.setattr(O, "K_BIN_FRACTION", 3.5 / (n * (E * E + 1) / (E * E - 1)))
    monkeypatch.setattr(O, "GROUP_RESOLUTION", 2)
    monkeypatch.setattr(O, "EXACT_PAIRS", 16)
    coarse = O.full_lower_delta(P.oue_patterns(eps0), n, eps)[0]
    assert coarse < ours and 0.5 * exact <= coarse <= exact


def _float_exact(eps0: float, n: int, eps: float) -> float:
    """The same sum as :func:`_mp_exact` in float64 (sorted atoms, numpy), for n in the hundreds."""
    from scipy import stats

    E, b, u = math.exp(eps0), 1 / (math.exp(eps0) + 1), math.exp(eps)
    d = E - 1
    total = 0.0
    for K in range(n + 1):
        x1, x0 = np.arange(K + 1), np.arange(n - K + 1)
        v = (x1[:, None] + E * x0[None, :]).ravel()
        p = (stats.binom.pmf(x1, K, b)[:, None] * stats.binom.pmf(x0, n - K, b)[None, :]).ravel()
        o = np.argsort(v)
        v, p = v[o], p[o]
        P = np.append(np.cumsum(p[::-1])[::-1], 0.0)
        Mv = np.append(np.cumsum((p * v)[::-1])[::-1], 0.0)
        c = (1 - u) * (K + E * (n - K))
        i0 = np.searchsorted(v, u * v - c / d, side="right")
        total += stats.binom.pmf(K, n, 0.5) * float(np.sum(p * (c * P[i0] + d * (Mv[i0] - u * v * P[i0]))))
    return total / (n * E)


@pytest.mark.parametrize("eps0,eps", [(0.5, 0.08), (2.0, 0.3)])
def test_grouped_path_against_float_sum(eps0, eps, monkeypatch):
    """n = 300 (every K, the pairs grouped in cells of a hundredth of a standard deviation of V):
    within 1e-4 below a float64 sum over every atom; with K-bins of 8 values (about one standard
    deviation) and cells of a fifth of a standard deviation, still below it."""
    n = 300
    ref = _float_exact(eps0, n, eps)
    ours = O.full_lower_delta(P.oue_patterns(eps0), n, eps)[0]
    assert ref * (1 - 1e-4) <= ours <= ref * (1 + 1e-9)
    E = math.exp(eps0)
    monkeypatch.setattr(O, "K_EXACT_N", 0)
    monkeypatch.setattr(O, "K_BIN_FRACTION", 8.5 / (n * (E * E + 1) / (E * E - 1)))
    monkeypatch.setattr(O, "GROUP_RESOLUTION", 5)
    coarse = O.full_lower_delta(P.oue_patterns(eps0), n, eps)[0]
    assert 0.5 * ref <= coarse < ours


def test_pmf_against_40_digits():
    """The pmfs the module docstring relies on (~1e-15 absolute in the log) at N = 1e9, 1e10."""
    with mpmath.workdps(40):
        for eps0 in (0.5, 4.0):
            b = 1 / (math.exp(eps0) + 1)
            for N in (10**9, 10**10):
                sd = math.sqrt(N * b * (1 - b))
                for zz in (-9.0, 0.0, 3.0, 9.0):
                    x = round(N * b + zz * sd)
                    ref = (mpmath.log(mpmath.binomial(N, x)) + x * mpmath.log(mpmath.mpf(b))
                           + (N - x) * mpmath.log(1 - mpmath.mpf(b)))
                    assert abs(float(binom_logpmf(np.array([float(x)]), N, b)[0] - ref)) < 1e-13


# certified lower eps before this module (three-category reductions), k = 16, delta = 1e-6
OLD_LOWER = {0.5: 0.011034, 2.0: 0.073599}


@pytest.mark.parametrize("eps0", [0.5, 2.0])
def test_check_points_n1e4(eps0):
    """n = 1e4, k = 16, delta = 1e-6: above the three-category lower end and Su-Cheng-Wang's FFT
    lower end on the same eight patterns, below the proved upper bound (numbers in
    docs/randomizers.md: 0.011388 and 0.074337)."""
    params = make_params("oue", eps0, k=16)
    lo = M.lower_bound_epsilon(params, 10**4, 1e-6).epsilon
    up = ShuffleAccountant(params, 10**4).get_epsilon(1e-6)
    scw_lower = SCW_OUE[(10**4, eps0)][1]
    assert OLD_LOWER[eps0] < lo < up
    assert scw_lower < lo
    assert lo == pytest.approx({0.5: 0.011388, 2.0: 0.074337}[eps0], rel=2e-4)
    # the full evaluator alone is what gives it: the three-category laws stay at the old value
    ll = M.mechanism_lower_law(params)
    three = [M.law_delta_and_slope(law, 10**4, lo, 1e-6)[0] for law in (ll.law,) + ll.alternatives]
    assert max(three) < 1e-6 < ll.delta(10**4, lo)


@pytest.mark.parametrize("n", [3, 300, 10**4])
def test_monotone_in_eps(n):
    """The certified value (the full evaluator, and the LowerLaw's maximum) does not increase
    with eps on a grid."""
    eps0 = 1.0
    ll = M.mechanism_lower_law(make_params("oue", eps0, k=5))
    # up to eps0 at n = 3; up to delta ~ 1e-12 at n = 1e4 (further out the full evaluator's
    # windows exceed its cost cap and it declines: test_fallback_beyond_caps)
    grid = np.linspace(0.0, 1.05 * eps0, 12) * {3: 1.0, 300: 0.25, 10**4: 0.05}[n]
    full = [O.full_lower_delta(P.oue_patterns(eps0), n, float(e))[0] for e in grid]
    both = [ll.delta(n, float(e)) for e in grid]
    for seq in (full, both):
        assert all(b <= a * (1 + 1e-12) for a, b in zip(seq, seq[1:]))
    assert full[0] > full[-1] >= 0.0


def test_fallback_beyond_caps(monkeypatch):
    """Beyond the cost cap the full evaluator declines (None) and the LowerLaw keeps the
    three-category laws' certified value; k = 2 has no full evaluator."""
    params = make_params("oue", 1.0, k=8)
    ll = M.mechanism_lower_law(params)
    with_full = ll.delta(10**4, 0.02)
    monkeypatch.setattr(O, "MAX_SECONDS", 0.0)
    assert O.full_lower_delta(P.oue_patterns(1.0), 10**4, 0.02) is None and not ll.full.applies(10**4, 1e-6)
    three = ll.delta(10**4, 0.02)
    assert 0.0 < three < with_full
    assert max(M.law_delta_and_slope(law, 10**4, 0.02)[0] for law in (ll.law,) + ll.alternatives) == three
    assert M.mechanism_lower_law(make_params("oue", 1.0, k=2)).full is None


def test_cli_states_the_datasets():
    r = subprocess.run([sys.executable, "-m", "accountant", "epsilon", "--n", "1e4", "--eps0", "0.5",
                        "--delta", "1e-6", "--mechanism", "oue", "--k", "16", "--json"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert "D = (1, 3, ..., 3), D' = (2, 3, ..., 3)" in out["lower_dataset"]
    assert "all eight patterns of bits 1, 2, 3" in out["lower_dataset"]
    assert out["lower_epsilon"] == pytest.approx(0.011388, rel=2e-4) and out["lower_epsilon"] < out["epsilon"]


def test_eight_atoms_are_the_enumerated_law():
    """n = 1: delta = E[(Z)_+]/E over the eight atoms equals the LDP divergence of the two
    report laws of values 1 and 2 (all 8 patterns of bits 1, 2, 3)."""
    eps0, eps = 1.3, 0.4
    p, v = O.full_pattern_atoms(P.oue_patterns(eps0), eps)
    direct = sum(pc * max(vc, 0.0) for pc, vc in zip(p, v)) / math.exp(eps0)
    rows1, rows2 = _oue_rows(eps0, 3, (0,)), _oue_rows(eps0, 3, (1,))
    assert direct == pytest.approx(float(np.sum(np.maximum(rows1 - math.exp(eps) * rows2, 0.0))), rel=1e-12)
    assert math.fsum(p) == pytest.approx(1.0, rel=1e-15)
    assert list(itertools.accumulate(p))[-1] == pytest.approx(1.0)


@pytest.mark.parametrize("eps0,eps", [(0.5, 0.08), (2.0, 0.3)])
def test_chart_coarse_evaluation_is_below_the_exact_value(eps0, eps):
    """The dashboard's coarse evaluation (``coarse=True``: cells of sd/20, K-bins 10x wider) is
    a certified lower bound too: below the float sum over every atom at n = 300 and within 2%
    of it; at n = 1e4 within 5% below the default evaluation in delta (measured 2-3%: 0.2% of
    eps at delta = 1e-6, docs/BENCHMARKS.md), and a second call (the cached pmf windows) gives
    the same number."""
    n = 300
    exact = _float_exact(eps0, n, eps)
    coarse = O.full_lower_delta(P.oue_patterns(eps0), n, eps, coarse=True)[0]
    assert 0.98 * exact <= coarse <= exact * (1 + 1e-9)
    n, e = 10 ** 4, 0.6 * eps0 * 0.05
    fine = O.full_lower_delta(P.oue_patterns(eps0), n, e, target=1e-6)[0]
    c1 = O.full_lower_delta(P.oue_patterns(eps0), n, e, target=1e-6, coarse=True)[0]
    O._pmfs.cache_clear()
    c2 = O.full_lower_delta(P.oue_patterns(eps0), n, e, target=1e-6, coarse=True)[0]
    assert c1 == c2 and 0.95 * fine <= c1 <= fine * (1 + 1e-9)
