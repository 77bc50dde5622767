"""hash_model="random": the random-hash blanket (accountant.bounds.laws.random_hash) against
exact fractions, brute-force enumeration of the shuffled protocol under a uniformly random
hash, the certified lower bound, and the any-hash bound."""
from fractions import Fraction

import numpy as np
import pytest

import accountant.engines.enumeration as en
from accountant import make_params
from accountant.bounds.laws.lower import lower_bound_delta
from accountant.bounds.laws.random_hash import (
    collision_corner_law,
    collision_image_law,
    collision_random_weight,
    collision_random_weight_exact,
)
from accountant.bounds.random_blanket import random_blanket_delta
from accountant.bounds.registry import bound_delta, compute_params_bound


@pytest.mark.parametrize("s,t", [(1, 2), (1, 5), (2, 3), (2, 5), (3, 4), (3, 8), (4, 11)])
def test_image_law_and_weight_match_fractions(s, t):
    for r in range(s):
        ex = collision_image_law(s, t, r, exact=True)
        assert sum(ex.values()) == 1
        P = collision_image_law(s, t, r)
        for key, w in ex.items():
            assert P[key] == pytest.approx(float(w), rel=1e-13, abs=1e-300)
        assert P.sum() == pytest.approx(1.0, rel=1e-13)
        lam = collision_random_weight_exact(s, t, r)
        lo, hi = collision_random_weight(s, t, r)
        assert Fraction(lo) <= lam <= Fraction(hi)


def _tv_enumerated(s, t, r):
    """TV(R(x1), R(x1')) / (gamma (E - 1)) by enumerating every hash of the 2s - r items."""
    items = 2 * s - r
    x1 = list(range(s))
    x1p = list(range(r)) + list(range(s, items))
    tot = Fraction(0)
    import itertools
    E = Fraction(3)  # lambda does not depend on E: any E > 1 will do
    omega = s * E + t - s
    for h in itertools.product(range(t), repeat=items):
        A = {h[i] for i in x1}
        B = {h[i] for i in x1p}
        fa = lambda z, S: E if z in S else (omega - E * len(S)) / (t - len(S))  # noqa: E731
        tot += sum(max(fa(z, A) - fa(z, B), 0) for z in range(t))
    return tot / t ** items / t / (E - 1)


@pytest.mark.parametrize("s,t", [(1, 3), (2, 3), (2, 4), (3, 5)])
def test_weight_is_the_total_variation(s, t):
    for r in range(s):
        assert collision_random_weight_exact(s, t, r) == _tv_enumerated(s, t, r)


def test_clean_and_olh_weights():
    # no collision possible in the limit t -> inf: lambda -> s/t; OLH: (1 - 1/g)/g exactly
    lo, hi = collision_random_weight(1, 8, 0)
    assert lo <= (1 - 1 / 8) / 8 <= hi
    lam = collision_random_weight_exact(3, 10**6, 0)
    assert abs(float(lam) / (3 / 10**6) - 1) < 1e-5


@pytest.mark.parametrize("d,s,t,n", [(2, 1, 2, 2), (2, 1, 3, 3), (2, 2, 3, 2), (3, 1, 3, 3), (2, 2, 4, 2)])
def test_upper_bound_covers_brute_force(d, s, t, n):
    eps0 = 1.0
    eps = np.array([0.0, 0.1, 0.3, 0.6, 0.9])
    alpha = en.collision_alphabet(d, s, t, eps0)
    true, _ = en.worst_case_divergence(alpha, n, eps)
    params = make_params("collision", eps0, s=s, t=t, hash_model="random")
    for e, v in zip(eps, true):
        up = random_blanket_delta(params, n, float(e))[1]
        assert up >= v * (1 + 1e-12), (e, v, up)
        assert up <= bound_delta("blanket", make_params("collision", eps0, s=s, t=t), n, float(e))[1] * 1.02


@pytest.mark.parametrize("s,t,n", [(1, 3, 2), (1, 3, 3), (1, 4, 2)])
def test_lower_bound_below_brute_force(s, t, n):
    eps0 = 1.0
    d = 3 * s
    alpha = en.collision_alphabet(d, s, t, eps0)
    for e in (0.05, 0.3, 0.7):
        true, _ = en.worst_case_divergence(alpha, n, [e])
        params = make_params("collision", eps0, s=s, t=t, d=d, hash_model="random")
        lo = lower_bound_delta(params, n, e)[0]
        up = random_blanket_delta(params, n, e)[1]
        assert lo <= true[0] * (1 + 1e-12) <= up * (1 + 1e-12)


@pytest.mark.parametrize("mech,kw", [("collision", {"s": 4, "d": 12}), ("olh", {"k": 10})])
def test_random_between_lower_and_any(mech, kw):
    for eps0 in (0.5, 2.0):
        pa = make_params(mech, eps0, **kw)
        pr = make_params(mech, eps0, hash_model="random", **kw)
        ua = compute_params_bound("blanket", pa, 10_000, 1e-6).epsilon
        ur = compute_params_bound("blanket", pr, 10_000, 1e-6)
        lo = compute_params_bound("lower", pr, 10_000, 1e-6).epsilon
        assert lo <= ur.epsilon < ua
        assert "uniformly random function" in ur.reason


def test_law_of_the_largest_weight_and_refusals():
    r, law = collision_corner_law(2.0, 4, 36)
    w = [collision_random_weight(4, 36, i) for i in range(4)]
    assert r == 0 and all(w[0][1] >= x[1] for x in w)
    assert law.p10 >= w[0][1] * 36 / (4 * np.exp(2.0) + 32)
    with pytest.raises(ValueError, match="hash_model 'random' is available for collision, coco and olh only"):
        make_params("krr", 2.0, k=4, hash_model="random")
    with pytest.raises(ValueError, match="hash_model must be 'any' or 'random'"):
        make_params("collision", 2.0, s=4, hash_model="fixed")
    pr = make_params("collision", 2.0, s=4, d=12, hash_model="random")
    assert not compute_params_bound("lower-worst-hash", pr, 1000, 1e-6).applicable
    assert pr != make_params("collision", 2.0, s=4, d=12)


def test_cli_hash_model(capsys):
    import json

    from accountant.interfaces.cli.main import main

    assert main(["epsilon", "--mechanism", "olh", "--k", "10", "--n", "1e4", "--eps0", "2",
                 "--delta", "1e-6", "--hash-model", "random", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["assumption"] == "each report's hash is a uniformly random function"
    assert main(["epsilon", "--mechanism", "krr", "--k", "4", "--n", "1e4", "--eps0", "2",
                 "--delta", "1e-6", "--hash-model", "random"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--hash-model 'random'" in err


@pytest.mark.parametrize("s,t", [(2, 3), (3, 4), (4, 11), (5, 7), (6, 9), (7, 30)])
def test_closed_form_weights_enclose_the_full_law(s, t):
    # lambda(r) = ((t - s)/t) sum_j P_r(j) E[max(A, W) | j]/(t - j) against the exact
    # fractions of the (m1, k, m2) law, every r; the enclosure is tight (relative 1e-12)
    from accountant.bounds.laws.random_hash import collision_random_weights

    w = collision_random_weights(s, t)
    assert len(w) == s
    for r in range(s):
        lam = collision_random_weight_exact(s, t, r)
        assert Fraction(w[r][0]) <= lam <= Fraction(w[r][1])
        assert w[r][1] / float(lam) - 1 < 1e-12
    # decreasing in r in these cases (not used by the bound: it takes the largest)
    assert all(w[r][1] > w[r + 1][1] for r in range(s - 1))


def test_weights_at_large_s_against_a_float_reference():
    # s = 24: the O(s^4) per-r reference law (collision_image_law) agrees to 1e-12
    from accountant.bounds.laws.random_hash import _g, collision_random_weights

    s, t = 24, 110
    w = collision_random_weights(s, t)
    for r in (0, 7, 23):
        P = collision_image_law(s, t, r)
        ref = (t - s) / t * sum(P[m1, k, m2] * _g(m1, k, m2, t)
                                for m1, k, m2 in zip(*np.nonzero(P)))
        assert w[r][0] <= ref * (1 + 1e-12) and ref <= w[r][1] * (1 + 1e-12)
        assert abs(w[r][1] / ref - 1) < 1e-11


def test_random_never_above_any():
    # eps0 = 10: the random-hash weight is s/t up to 1e-13... the corner law is then close to the
    # any-hash law; above eps0 = 10 the exact engines refuse (exact_bounds.ENGINE_MAX_EPS0)
    blanket30 = compute_params_bound("blanket", make_params("collision", 30.0, s=64, hash_model="random"),
                                     10**6, 1e-6)
    assert not blanket30.applicable and "certified for eps0 <= 10" in blanket30.reason
    for eps0, s in ((1.0, 64), (0.1, 8)):
        pa = make_params("collision", eps0, s=s)
        pr = make_params("collision", eps0, s=s, hash_model="random")
        ua = compute_params_bound("blanket", pa, 10**6, 1e-6).epsilon
        random = compute_params_bound("blanket", pr, 10**6, 1e-6)   # one search (4-5 s), read twice
        ur = random.epsilon
        assert ur <= ua
        assert bound_delta("blanket", pr, 10**6, ur)[1] <= 1e-6
        reason = random.reason
        assert "any-hash exact blanket" not in reason, reason
    assert ur < ua  # eps0 = 0.1, s = 8: strictly below


@pytest.mark.parametrize("mechanism, limit, text", [
    ("collision", "RANDOM_HASH_MAX_S", "with hash_model 'random'"),
    ("coco", "COCO_RANDOM_MAX_S", "for CoCo"),
])
def test_limit_of_s_under_the_random_hash(mechanism, limit, text, capsys):
    """s above the random-hash limit is refused by the API (ValueError naming the range) and by
    the command line (one line, exit status 2); the any model has no such limit."""
    from accountant.core import limits
    from accountant.interfaces.cli.main import main

    top = getattr(limits, limit)
    with pytest.raises(ValueError, match=rf"s must be an integer in \[1, {top}\] {text}"):
        make_params(mechanism, 1.0, s=top + 1, hash_model="random")
    make_params(mechanism, 1.0, s=top + 1)  # the any model has no such limit
    assert main(["epsilon", "--mechanism", mechanism, "--s", str(top + 1), "--n", "1e6",
                 "--eps0", "1", "--delta", "1e-6", "--hash-model", "random"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"[1, {top}]" in err and "--hash-model 'random'" in err


def test_weights_enclose_exact_fractions_property():
    from hypothesis import given, settings, strategies as st

    from accountant.bounds.laws.random_hash import collision_random_weights

    @settings(max_examples=25, deadline=None)
    @given(st.integers(2, 6), st.integers(1, 12))
    def check(s, extra):
        t = s + extra
        w = collision_random_weights(s, t)
        for r in range(s):
            lam = collision_random_weight_exact(s, t, r)
            assert Fraction(w[r][0]) <= lam <= Fraction(w[r][1])
            assert lam <= Fraction(s, t)  # at most the any-hash weight s/t

    check()
