"""hash_model="random": the four-corner law (accountant.bounds.laws.random_hash,
CornerBlanket on the nested path of accountant.engines.blanket.oue) against exact
enumeration of the multinomial sums (mpmath), the exact blanket of the random-hash law Z,
the old three-atom relaxation (kept here as a reference), OLH's exact random-hash blanket,
monotonicity in the pair weight, and the certified lower bound."""
import itertools
import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings, strategies as st

from accountant import make_params
from accountant.bounds.laws.lower import lower_bound_delta
from accountant.bounds.laws.random_hash import (
    collision_corner_law,
    collision_image_law,
    collision_random_weight_exact,
    collision_random_weights,
    random_corner_law,
)
from accountant.bounds.random_blanket import random_blanket_delta, random_blanket_law
from accountant.engines.blanket import CornerBlanket, CountLaw, OueBlanket, positive_part

mpmath.mp.dps = 40


def _compositions(n, K):
    for cut in itertools.combinations(range(n + K - 1), K - 1):
        prev, out = -1, []
        for c in cut + (n + K - 1,):
            out.append(c - prev - 1)
            prev = c
        yield out


def enumerate_delta(probs, values, n):
    """E[(sum of n i.i.d. atoms)_+]/n by enumerating the multinomial (mpmath; the null
    category, value 0, gets the mass left over)."""
    probs = [mpmath.mpf(p) for p in probs]
    probs.append(1 - sum(probs))
    values = [mpmath.mpf(v) for v in values] + [mpmath.mpf(0)]
    assert probs[-1] >= 0
    tot = mpmath.mpf(0)
    for c in _compositions(n, len(probs)):
        S = sum(ci * v for ci, v in zip(c, values))
        if S > 0:
            w = mpmath.factorial(n)
            for ci, p in zip(c, probs):
                w = w * p ** ci / mpmath.factorial(ci)
            tot += w * S
    return tot / n


def corner_atoms(E, u, gamma, lam, mu, nu):
    """(probabilities, values) of the exact (unrounded) corner law in the count form."""
    return ([gamma * lam, gamma * lam, gamma * nu, gamma * mu],
            [E - u, 1 - u * E, 1 - u, E * (1 - u)])


def z_atoms(E, u, s, t, r):
    """(probabilities, values) of the random-hash law Z of pair type r in the count form,
    from the exact law of (m1, k, m2)."""
    omega = s * E + t - s
    gamma = t / omega

    def rr(m):
        return E - (t - s) * (E - 1) / (t - m)
    atoms: dict = {}
    for (m1, k, m2), w in collision_image_law(s, t, r, exact=True).items():
        w = mpmath.mpf(w.numerator) / w.denominator
        for (a, b), q in (((E, E), k), ((E, rr(m2)), m1 - k), ((rr(m1), E), m2 - k),
                          ((rr(m1), rr(m2)), t - m1 - m2 + k)):
            if q:
                key = (a, b)
                atoms[key] = atoms.get(key, 0) + w * q / t
    keys = list(atoms)
    return [gamma * atoms[k] for k in keys], [a - u * b for a, b in keys]


def _exact_weights(s, t, r):
    lam = collision_random_weight_exact(s, t, r)
    lam = mpmath.mpf(lam.numerator) / lam.denominator
    return lam, mpmath.mpf(s) / t - lam, 1 - mpmath.mpf(s) / t - lam


@pytest.mark.parametrize("s,t,eps0", [(2, 3, 1.0), (2, 5, 0.7), (3, 4, 1.5), (3, 8, 1.0), (1, 4, 2.0)])
def test_z_below_corner_below_old_law_and_engine_encloses(s, t, eps0):
    # blanket(Z_r) <= blanket(corner law of Z_r) <= blanket(old three-atom law), by exact
    # enumeration, every pair type r; the engine's certified upper end of the law it uses
    # covers every r's corner law, and its bracket encloses the enumerated delta of that law
    E = mpmath.exp(mpmath.mpf(eps0))
    gamma = t / (s * E + t - s)
    params = make_params("collision", eps0, s=s, t=t, hash_model="random")
    law = random_blanket_law(params)
    assert isinstance(law, CornerBlanket)
    for n in (2, 3, 4):
        for eps in (0.05, 0.3 * eps0, 0.7 * eps0):
            u = mpmath.exp(mpmath.mpf(eps))
            v = positive_part(law, n, eps)
            exact_law = enumerate_delta(*law.atoms(eps), n)  # the rounded law itself
            assert v.lower <= exact_law * (1 + 1e-12) and exact_law <= v.upper * (1 + 1e-12)
            for r in range(s):
                lam, mu, nu = _exact_weights(s, t, r)
                dz = enumerate_delta(*z_atoms(E, u, s, t, r), n)
                dc = enumerate_delta(*corner_atoms(E, u, gamma, lam, mu, nu), n)
                old = enumerate_delta([gamma * lam, gamma * lam, gamma * (1 - 2 * lam)],
                                      [E - u, 1 - u * E, 1 - u], n)
                assert dz <= dc * (1 + mpmath.mpf(10) ** -30)
                assert dc <= old * (1 + mpmath.mpf(10) ** -30)
                assert dc <= v.upper * (1 + 1e-12)
                if s == 1:  # OLH-like: the corner law is Z itself
                    assert abs(dz - dc) <= dc * mpmath.mpf(10) ** -30
            if s > 1 and eps < 0.5 * eps0:
                # strictly tighter than the old law where the (E, E) atom has mass
                lam, mu, nu = _exact_weights(s, t, 0)
                dc = enumerate_delta(*corner_atoms(E, u, gamma, lam, mu, nu), n)
                old = enumerate_delta([gamma * lam, gamma * lam, gamma * (1 - 2 * lam)],
                                      [E - u, 1 - u * E, 1 - u], n)
                assert dc < old


@pytest.mark.parametrize("eps0,p10,p00,p11", [(1.0, 0.12, 0.42, 0.04), (0.3, 0.05, 0.6, 0.2),
                                              (2.0, 0.2, 0.1, 0.3)])
def test_engine_against_enumeration_small_n(eps0, p10, p00, p11):
    # exact (m, t, l) path for n <= 6 equals the enumerated multinomial; the nested
    # (binned) path's bracket encloses it at n = 2..50
    law = CornerBlanket(eps0, p10, p00, p11)
    for n in (1, 2, 3, 5, 6):
        for eps in (0.0, 0.1 * eps0, 0.5 * eps0, 0.9 * eps0):
            ref = float(enumerate_delta(*law.atoms(eps), n))
            v = positive_part(law, n, eps)
            assert v.method == "exact"
            assert v.lower <= ref * (1 + 1e-12) and ref <= v.upper * (1 + 1e-12)
            assert v.upper - v.lower <= 1e-7 * ref + 1e-300
    for n in (2, 10, 30, 50):
        for eps in (0.1 * eps0, 0.5 * eps0):
            ex = positive_part(law, n, eps, method="exact")
            ne = positive_part(law, n, eps, method="nested")
            assert ne.method == "nested"
            assert ne.lower <= ex.upper * (1 + 1e-10) and ex.lower <= ne.upper * (1 + 1e-10)
            assert ne.upper >= ex.value * (1 - 1e-9)


def test_oue_weights_through_the_corner_law():
    # OUE's law as a CornerBlanket: the nested path gives OueBlanket's numbers (the weights
    # differ from OueBlanket's closed forms by float rounding only)
    for eps0 in (0.5, 1.0, 3.0):
        E = math.exp(eps0)
        c = CornerBlanket(eps0, 0.5 / (E + 1), 0.5 * E / (E + 1), 0.5 / (E * (E + 1)))
        o = OueBlanket(eps0)
        assert c.gamma == pytest.approx(o.gamma, rel=1e-15)
        for n, eps in ((5000, 0.05 * eps0), (20000, 0.03 * eps0)):
            a = positive_part(o, n, eps, method="nested")
            b = positive_part(c, n, eps, method="nested")
            assert b.upper == pytest.approx(a.upper, rel=1e-9)
            assert b.lower == pytest.approx(a.lower, rel=1e-9)


def test_olh_equals_an_independent_exact_random_hash_blanket():
    # OLH with g values: enumerate (H(x1), H(x1'), z) over [g]^3; f_x(z) = E if z = H(x) else
    # 1 (r(1) = 1); the law built from the closed-form weight is that law up to rounding
    for g, eps0 in ((2, 1.0), (3, 0.5), (5, 2.0)):
        E = mpmath.exp(mpmath.mpf(eps0))
        gamma = g / (E + g - 1)
        atoms: dict = {}
        for h1, h2, z in itertools.product(range(g), repeat=3):
            key = (E if z == h1 else 1, E if z == h2 else 1)
            atoms[key] = atoms.get(key, 0) + mpmath.mpf(1) / g ** 3
        law = random_blanket_law(make_params("olh", eps0, k=10, g=g, hash_model="random"))
        for n in (1, 2, 4, 6):
            for eps in (0.02, 0.4 * eps0):
                u = mpmath.exp(mpmath.mpf(eps))
                keys = list(atoms)
                ref = enumerate_delta([gamma * atoms[k] for k in keys], [a - u * b for a, b in keys], n)
                v = positive_part(law, n, eps)
                assert v.lower <= ref * (1 + 1e-12) and ref <= v.upper * (1 + 1e-12)
                # exact up to the rounding (the ends carry the engine's 1e-8 float margin)
                assert abs(v.value - ref) <= 1e-12 * ref and v.upper <= ref * (1 + 2e-8)


def test_corner_law_weights_and_fallback():
    # the weights of the built law: p10 >= gamma hi, p11, p00 below their exact values;
    # lambda clamped to min(s/t, 1 - s/t); no room -> the any-hash law
    s, t, eps0 = 4, 17, 1.0
    r, law = collision_corner_law(eps0, s, t)
    w = collision_random_weights(s, t)
    assert r == 0 and w[0][1] == max(x[1] for x in w)
    E = math.exp(eps0)
    gamma = t / (s * E + t - s)
    lam = float(collision_random_weight_exact(s, t, 0))
    assert law.p10 >= gamma * lam and law.p10 == pytest.approx(gamma * lam, rel=1e-12)
    assert law.p11 <= gamma * (s / t - lam) and law.p11 == pytest.approx(gamma * (s / t - lam), rel=1e-10)
    assert law.p00 <= gamma * (1 - s / t - lam) and law.p00 == pytest.approx(gamma * (1 - s / t - lam), rel=1e-10)
    anyhash = CountLaw.collision_blanket(eps0, s, t)
    assert random_corner_law(eps0, s, t, s / t, s / t) == anyhash          # mu = 0: no room
    assert random_corner_law(eps0, 3, 4, 0.9, 0.9) == CountLaw.collision_blanket(eps0, 3, 4)  # clamp to 1 - s/t
    with pytest.raises(ValueError, match="lo must be a finite number >= 0"):
        random_corner_law(eps0, s, t, -0.1, 0.1)
    with pytest.raises(ValueError, match="need lo <= hi"):
        random_corner_law(eps0, s, t, 0.2, 0.1)


def test_corner_blanket_validation():
    with pytest.raises(ValueError, match="eps0 must be a finite number > 0"):
        CornerBlanket(0.0, 0.1, 0.1, 0.1)
    with pytest.raises(ValueError, match=r"p10 must lie in \(0, 1/2\]"):
        CornerBlanket(1.0, 0.0, 0.1, 0.1)
    with pytest.raises(ValueError, match=r"p11 must lie in \[0, 1\]"):
        CornerBlanket(1.0, 0.1, 0.1, -0.1)
    with pytest.raises(ValueError, match="null mass 1 - 2 p10 - p00 - p11 must be > 0"):
        CornerBlanket(1.0, 0.3, 0.3, 0.1)
    with pytest.raises(ValueError, match="p00 must be a finite number"):
        CornerBlanket(1.0, 0.1, float("nan"), 0.1)
    with pytest.raises(ValueError, match="'mpmath'"):
        positive_part(CornerBlanket(1.0, 0.1, 0.1, 0.1), 10, 0.1, method="mpmath")
    # a missing corner: the three-atom law, same numbers
    c = CornerBlanket(1.0, 0.1, 0.3, 0.0)
    E = math.e
    ref = positive_part(CountLaw(0.1, 0.3, (E, 1.0, 1.0), (1.0, E, 1.0)), 100, 0.2)
    assert positive_part(c, 100, 0.2).upper == ref.upper


def test_monotone_in_lambda_property():
    # the corner law's delta (exact path, small n) is non-decreasing in lambda at fixed
    # gamma and s/t (mu = s/t - lambda, nu = 1 - s/t - lambda)
    @settings(max_examples=40, deadline=None)
    @given(st.floats(0.2, 3.0), st.integers(1, 4), st.integers(1, 12), st.integers(2, 30),
           st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.01, 0.95))
    def check(eps0, s, extra, n, x1, x2, fe):
        t = s + extra
        E = math.exp(eps0)
        gamma = t / (s * E + t - s)
        cap = min(s / t, 1 - s / t)
        l1, l2 = sorted((0.02 + 0.9 * x1 * cap, 0.02 + 0.9 * x2 * cap))
        l1, l2 = min(l1, 0.95 * cap), min(l2, 0.95 * cap)

        def law(lam):
            return CornerBlanket(eps0, gamma * lam, gamma * (1 - s / t - lam), gamma * (s / t - lam))
        eps = fe * eps0
        a = positive_part(law(l1), n, eps)
        b = positive_part(law(l2), n, eps)
        assert a.lower <= b.upper * (1 + 1e-12)

    check()


@pytest.mark.parametrize("mechanism,examples", [("collision", 15), ("coco", 8)])
def test_upper_above_lower_property(mechanism, examples):
    # the random-hash upper bound is >= the certified lower bound (Collision and CoCo, d = 3s)
    @settings(max_examples=examples, deadline=None)
    @given(st.floats(0.3, 3.0), st.integers(1, 6), st.integers(100, 5000), st.floats(0.02, 0.9))
    def check(eps0, s, n, fe):
        p = make_params(mechanism, eps0, s=s, d=3 * s, hash_model="random")
        eps = fe * eps0
        lo = lower_bound_delta(p, n, eps)[0]
        up = random_blanket_delta(p, n, eps)[1]
        assert lo <= up * (1 + 1e-12)

    check()


def test_one_law_dominates_every_pair_type():
    # the reported delta covers the blanket of every pair type r's own law (the lattice engine's
    # value without its error terms), at several eps; it is below the corner law of the largest
    # weight (the lattice bound of all atoms) and below the any-hash one
    from accountant.bounds.laws.random_hash_lattice import MIN_SIZE, collision_random_atoms
    from accountant.engines.lattice import lattice_positive_part

    p = make_params("collision", 1.0, s=12, hash_model="random")
    n = 2000
    w = collision_random_weights(p.s, p.t)
    for e in (0.02, 0.05, 0.08):  # delta 1e-3 ... 4e-8
        up = random_blanket_delta(p, n, e)[1]
        for r in (0, 1, 6, 11):
            v = lattice_positive_part(*collision_random_atoms(p.eps0, p.s, p.t, r), n, e, min_size=MIN_SIZE)
            assert v.central <= up
            c = positive_part(random_corner_law(p.eps0, p.s, p.t, *w[r]), n, e, target_delta=1e-9)
            assert v.upper < c.lower   # all atoms: below the relaxation of the same type
        assert up < positive_part(random_corner_law(p.eps0, p.s, p.t, *w[0]), n, e).lower
        assert up < positive_part(CountLaw.collision_blanket(p.eps0, p.s, p.t), n, e).lower


def test_point_of_the_issue():
    # Collision s = 4, t = 17, n = 1e4, eps0 = 1: delta at the old proved eps 0.030832 is
    # 3.55e-7 (old law: 1e-6), and the new eps_c is inside [lower 0.023337, old 0.030832]
    from accountant.bounds.registry import compute_params_bound

    # (the corner law's number; the registry's is now the lattice bound of all atoms, lower:
    # 1.83e-7 there and eps_c 0.027333 against the corner law's 0.028572)
    from accountant.engines.blanket.engine import blanket_exact_delta

    p = make_params("collision", 1.0, s=4, t=17, d=1000, hash_model="random")
    v = blanket_exact_delta(random_blanket_law(p), 10_000, 0.030832)
    assert 3.54e-7 <= v.lower <= v.upper <= 3.56e-7
    assert 1.82e-7 <= random_blanket_delta(p, 10_000, 0.030832)[1] <= 1.84e-7
    r = compute_params_bound("blanket", p, 10_000, 1e-6)
    assert 0.02733 <= r.epsilon <= 0.027335
    assert "all of its atoms" in r.reason and "r = 0" in r.reason
    chart = compute_params_bound("blanket", p, 10_000, 1e-6, rtol=1e-5)   # a chart: the corners
    assert 0.02857 <= chart.epsilon <= 0.028574 and "four-corner law" in chart.reason
    olh = compute_params_bound("blanket", make_params("olh", 1.0, k=16, hash_model="random"), 10_000, 1e-6)
    assert "exact blanket of the random-hash law" in olh.reason
    assert compute_params_bound("lower", p, 10_000, 1e-6).epsilon <= r.epsilon
    assert Fraction(r.epsilon) < Fraction(0.030832)


@pytest.mark.parametrize("eps0,rtol", [(3.0, 1e-9), (5.06, 1e-9), (5.06, 1e-4)])
def test_search_on_the_corner_law_is_tight_where_its_lower_end_is_loose(eps0, rtol):
    # n = 1e4, large eps0: the nested path's certified lower end is far below its upper end;
    # the search's Newton steps once took their log-slope from it and stopped at a certified
    # but useless eps (1.64 instead of 0.4998 at eps0 = 5.06, 0.865 instead of 0.15397 at 3)
    from accountant.engines.blanket.engine import blanket_exact_epsilon, positive_part

    law = random_blanket_law(make_params("collision", eps0, s=4, hash_model="random"))
    r = blanket_exact_epsilon(law, 10_000, 1e-6, rtol=max(rtol, 1e-5), certify_bracket=False)
    assert positive_part(law, 10_000, r.epsilon, target_delta=1e-6).upper <= 1e-6
    # tight: a little below, the certified lower end is above the target
    assert positive_part(law, 10_000, r.epsilon * (1 - 2e-3), target_delta=1e-6).lower > 1e-6
