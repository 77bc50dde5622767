"""hash_model="random" for CoCo (accountant.bounds.laws.coco_random): the pair weight lambda
against brute-force enumeration of every hash function with exact fractions, the float
enclosures against the exact weight, and the whole shuffled mechanism (a uniformly random
hash per report, n <= 3, enumerated) inside the bracket [lower, upper]."""
import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import accountant.engines.enumeration as en
from accountant import make_params
from accountant.bounds.laws.coco_random import (
    _core,
    coco_corner_law,
    coco_random_weight_exact,
    coco_random_weights,
)
from accountant.bounds.laws.lower import lower_bound_delta
from accountant.bounds.random_blanket import random_blanket_delta, random_blanket_law
from accountant.bounds.registry import bound_delta, compute_params_bound
from accountant.engines.blanket import CornerBlanket, CountLaw, positive_part
from mechanisms.randomizers.coco import coco_output_distribution


def _g_exact(coords, signs, H, s, t):
    """g_x = (Omega P[z | x, H] - 1)/(E - 1) per bucket, exact (Algorithm 1 averaged over the
    order: an occupied pair with c entries, u up, has u/c on the upper bucket; free buckets
    (s - m)/(t - 2m)); H[j] = H(j+) in [t]."""
    h = t // 2
    pairs: dict = {}
    for j, b in zip(coords, signs):
        pairs.setdefault(H[j] % h, []).append((H[j] >= h) == (b > 0))
    m = len(pairs)
    g = [Fraction(s - m, t - 2 * m)] * t
    for p, ups in pairs.items():
        g[p + h] = Fraction(sum(ups), len(ups))
        g[p] = 1 - g[p + h]
    return g


def _pair(s, r, o):
    n = s - r - o
    x1 = (list(range(r + o + n)), [1] * (r + o + n))
    x1p = (list(range(r + o)) + list(range(r + o + n, r + o + 2 * n)), [1] * r + [-1] * o + [1] * n)
    return x1, x1p, r + o + 2 * n


def _tv_enumerated(s, t, r, o):
    """E_H[sum_z (g_x1 - g_x1')_+]/t over every H: coordinates -> [t] (uniform)."""
    x1, x1p, nc = _pair(s, r, o)
    tot = Fraction(0)
    for H in itertools.product(range(t), repeat=nc):
        g1, g2 = _g_exact(*x1, H, s, t), _g_exact(*x1p, H, s, t)
        tot += sum(max(a - b, 0) for a, b in zip(g1, g2))
    return tot / t ** nc / t


def test_g_is_the_mechanisms_law():
    # f = 1 + (E - 1) g is Omega times the mechanism's exact law, for every hash of a tiny case
    s, t, eps0 = 2, 6, 0.8
    E = math.exp(eps0)
    omega = s * E + t - s
    h = t // 2
    for H in itertools.product(range(t), repeat=3):
        H = np.array(H)
        for coords, signs in (([0, 1], [1, -1]), ([0, 2], [-1, -1]), ([1, 2], [1, 1])):
            P = coco_output_distribution(coords, signs, H % h, np.where(H >= h, 1, -1), eps0, t)
            g = _g_exact(coords, signs, H, s, t)
            assert np.allclose(P * omega, [1 + (E - 1) * float(x) for x in g], rtol=1e-13)
            assert min(g) >= 0 and max(g) <= 1 and sum(g) == s  # f in [1, E], E_omega f = Omega/t


@pytest.mark.parametrize("s,t", [(1, 4), (1, 6), (2, 6), (2, 8), (3, 8)])
def test_weight_is_the_total_variation(s, t):
    w = coco_random_weights(s, t)
    assert set(w) == {(r, o) for r in range(s) for o in range(s - r + 1)}
    for (r, o), (lo, hi) in w.items():
        lam = coco_random_weight_exact(s, t, r, o)
        if _pair(s, r, o)[2] <= 5:  # (3, 8) with 6 coordinates: 262144 hashes, left out
            assert lam == _tv_enumerated(s, t, r, o), (r, o)
        assert Fraction(lo) <= lam <= Fraction(hi)
        assert hi / float(lam) - 1 < 1e-11
        assert lam <= Fraction(s, t)


def test_exact_values_and_the_saving():
    # s = 1: x1' = -x1 (same pair, opposite orientation) has the any-hash weight 1/t = 1/4;
    # the disjoint pair 3/16.  s = 2, t = 6: the worst types (0, 1), (0, 2) have 1/4 < 1/3
    assert coco_random_weight_exact(1, 4, 0, 1) == Fraction(1, 4)
    assert coco_random_weight_exact(1, 4, 0, 0) == Fraction(3, 16)
    assert coco_random_weight_exact(2, 6, 0, 1) == Fraction(1, 4)
    assert coco_random_weight_exact(2, 6, 1, 0) == Fraction(29, 216)
    (key, law) = coco_corner_law(1.0, 2, 6)
    assert coco_random_weight_exact(2, 6, 0, 2) == Fraction(1, 4)
    assert key in ((0, 1), (0, 2)) and isinstance(law, CornerBlanket)
    # s = 1: no room, the any-hash law
    assert coco_corner_law(1.0, 1, 4)[1] == CountLaw.collision_blanket(1.0, 1, 4)


def test_weights_enclose_exact_fractions_property():
    @settings(max_examples=12, deadline=None)
    @given(st.integers(1, 4), st.integers(1, 5), st.data())
    def check(s, extra, data):
        t = 2 * s + 2 * extra
        w = coco_random_weights(s, t)
        r = data.draw(st.integers(0, s - 1))
        o = data.draw(st.integers(0, s - r))
        lam = coco_random_weight_exact(s, t, r, o)
        assert Fraction(w[(r, o)][0]) <= lam <= Fraction(w[(r, o)][1]) <= Fraction(s, t) * (1 + Fraction(1, 2**40))

    check()


def test_truncated_weights_enclose_the_untruncated_law():
    # s = 14 > 12: K < s; the enclosure contains the float value of the untruncated law (K = s)
    s, t = 14, 40
    w = coco_random_weights(s, t)
    full = _core(s, t, s, float, np.float64)
    for key in ((0, 0), (0, 14), (0, 7), (13, 0), (5, 5)):
        val, overflow = full[key]
        assert overflow == 0.0
        lo, hi = w[key]
        assert lo <= val / 2 * (1 + 1e-12) and val / 2 <= hi * (1 + 1e-12)
        assert hi - lo <= 1e-11 * hi  # the rounding margin and the overflow bound


def _coco_alphabet(d, s, t, eps0):
    """Exact class alphabet of CoCo reports (H, z), H = (H(j+))_j over all [t]^d, for all
    signed s-sparse inputs: columns with equal laws under every input merged (exact keys)."""
    inputs = [(tuple(c), tuple(sg)) for c in itertools.combinations(range(d), s)
              for sg in itertools.product((-1, 1), repeat=s)]
    cols: dict = {}
    nH = t ** d
    for H in itertools.product(range(t), repeat=d):
        for z in range(t):
            key = tuple(_g_exact(c, sg, H, s, t)[z] for c, sg in inputs)
            cols[key] = cols.get(key, 0) + 1
    E = math.exp(eps0)
    omega = s * E + t - s
    keys = list(cols)
    law = np.array([[cols[k] / nH * (1 + (E - 1) * float(k[i])) / omega for k in keys]
                    for i in range(len(inputs))])
    assert np.allclose(law.sum(axis=1), 1.0, rtol=1e-12)
    return inputs, law


def _worst_shuffled(d, s, t, eps0, n, eps):
    inputs, law = _coco_alphabet(d, s, t, eps0)
    idx = range(len(inputs))
    best = np.zeros(len(eps))
    for i1, i2 in itertools.permutations(idx, 2):
        for others in itertools.combinations_with_replacement(idx, n - 1):
            rows_D = law[[i1, *others]]
            rows_Dp = law[[i2, *others]]
            best = np.maximum(best, en.shuffled_hockey_stick(rows_D, rows_Dp, eps))
    return best


@pytest.mark.parametrize("d,s,t,n", [(2, 2, 6, 2), (2, 2, 6, 3), (1, 1, 4, 3), (2, 1, 4, 2), (3, 1, 4, 2), (3, 1, 4, 3)])
def test_shuffled_mechanism_inside_the_bracket(d, s, t, n):
    # the exact divergence of the shuffled CoCo reports (uniformly random hash per report,
    # worst case over all datasets) lies in [lower, upper] of hash_model="random"
    eps0 = 1.0
    eps = [0.0, 0.1, 0.3, 0.6]
    true = _worst_shuffled(d, s, t, eps0, n, eps)
    p = make_params("coco", eps0, s=s, t=t, d=d, hash_model="random")
    pa = make_params("coco", eps0, s=s, t=t, d=d)
    for e, v in zip(eps, true):
        up = random_blanket_delta(p, n, e)[1]
        assert v <= up * (1 + 1e-12), (e, v, up)
        ua = bound_delta("blanket", pa, n, e)[1]
        assert up <= ua * (1 + 1e-12)
        if s >= 2:  # s = 1: x1' = -x1 has the any-hash weight, no saving
            assert up < 0.95 * ua
        lo = lower_bound_delta(p, n, e)
        if d >= 3 * s:
            assert lo[0] <= v * (1 + 1e-12)
        else:
            assert lo is None  # no disjoint construction: no lower number


def test_one_law_dominates_every_pair_type():
    # the reported delta covers the blanket of every pair type's own law (the lattice value
    # without its error terms, same step), and is below the corner law of the largest weight
    from accountant.bounds.laws.random_hash_lattice import MIN_SIZE, coco_random_atoms
    from accountant.engines.lattice import lattice_positive_part

    p = make_params("coco", 1.0, s=4, hash_model="random")
    w = coco_random_weights(p.s, p.t)
    law = random_blanket_law(p)
    n = 2000
    ranked = sorted(w, key=lambda k: w[k][1])
    for e in (0.03, 0.08):
        up = random_blanket_delta(p, n, e)[1]
        for key in ranked[-3:] + ranked[:1]:  # the three largest weights and the smallest
            v = lattice_positive_part(*coco_random_atoms(p.eps0, p.s, p.t, key), n, e, min_size=MIN_SIZE)
            assert v.central <= up
        assert up < positive_part(law, n, e).lower
        assert up < positive_part(CountLaw.collision_blanket(p.eps0, p.s, p.t), n, e).lower


def test_bracket_and_saving_at_the_documented_point():
    # s = 4, d = 1000, n = 1e4, eps0 = 1, delta = 1e-6: random 0.028477 (four corners: 0.029135)
    # < any 0.032745
    p = make_params("coco", 1.0, s=4, d=1000, hash_model="random")
    r = compute_params_bound("blanket", p, 10_000, 1e-6)
    a = compute_params_bound("blanket", make_params("coco", 1.0, s=4, d=1000), 10_000, 1e-6)
    lo = compute_params_bound("lower", p, 10_000, 1e-6)
    assert 0.028477 <= r.epsilon <= 0.028478 and 0.03274 <= a.epsilon <= 0.03275
    assert lo.epsilon <= r.epsilon < a.epsilon
    assert "uniformly random function" in r.reason and "all of its atoms" in r.reason
    c = compute_params_bound("blanket", p, 10_000, 1e-6, rtol=1e-5)   # a chart's tolerance: the corners
    assert 0.02913 <= c.epsilon <= 0.02914 and "four-corner law" in c.reason


def test_cli_and_refusals(capsys):
    from accountant.interfaces.cli.main import main

    base = ["epsilon", "--mechanism", "coco", "--s", "4", "--n", "1e4", "--eps0", "2", "--delta", "1e-6"]
    assert main(base + ["--hash-model", "random", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert main(base + ["--json"]) == 0
    a = json.loads(capsys.readouterr().out)
    assert r["assumption"] == "each report's hash is a uniformly random function"
    assert r["hash_model"] == "random" and a["hash_model"] == "any"
    assert r["epsilon"] < a["epsilon"]
    # the limit of s under the random hash: test_random_hash.test_limit_of_s_under_the_random_hash
    with pytest.raises(ValueError, match=r"t must be an even integer >= 2s \+ 2 = 6 for CoCo"):
        coco_random_weights(2, 7)
    with pytest.raises(ValueError, match=r"need 0 <= r <= s - 1 and r \+ o <= s"):
        coco_random_weight_exact(2, 6, 2, 0)
