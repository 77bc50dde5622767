"""Collision's random-hash blanket with all of its atoms (lattice engine) against the corner law:
exact where every atom is a corner (s = 1), never above the corner relaxation, equal means."""
from __future__ import annotations

import math

import numpy as np
import pytest

from accountant.bounds.laws.random_hash import collision_corner_law, collision_random_weights, random_corner_law
from accountant.bounds.laws.random_hash_lattice import (collision_random_atoms, collision_random_lattice_epsilon,
                                                        collision_random_lattice_log_delta)
from accountant.engines.blanket import positive_part


@pytest.mark.parametrize("s,t,r", [(1, 5, 0), (4, 13, 0), (4, 36, 2), (3, 5, 1)])
def test_atoms_are_a_law_with_equal_means(s, t, r):
    eps0 = 1.0
    a, b, w = collision_random_atoms(eps0, s, t, r)
    E = math.exp(eps0)
    gamma = t / (s * E + t - s)
    assert abs(w.sum() / gamma - 1) < 1e-12
    assert np.all((a >= 1 - 1e-12) & (a <= E * (1 + 1e-12)) & (b >= 1 - 1e-12) & (b <= E * (1 + 1e-12)))
    assert abs(np.dot(w, a) - np.dot(w, b)) < 1e-12   # both rows have mass 1: E[f_x] = Omega / t


@pytest.mark.parametrize("eps0,t,n,eps", [(1.0, 5, 10**4, 0.05), (2.0, 9, 10**5, 0.02)])
def test_s1_atoms_are_the_corner_law(eps0, t, n, eps):
    # s = 1: r(1) = 1, every atom is a corner, the corner law is the random-hash law itself
    law = random_corner_law(eps0, 1, t, *collision_random_weights(1, t)[0])
    ref = positive_part(law, n, eps)
    lu = collision_random_lattice_log_delta(eps0, 1, t, n, eps)[0]
    assert lu >= math.log(ref.lower)
    assert lu <= math.log(ref.upper) + 0.02


def test_lattice_is_below_the_corner_relaxation():
    eps0, s, t, n = 0.5, 4, 13, 10**4
    _, law = collision_corner_law(eps0, s, t)
    for eps in (0.005, 0.01, 0.02):
        corner = positive_part(law, n, eps).upper
        lu = collision_random_lattice_log_delta(eps0, s, t, n, eps)[0]
        assert lu < math.log(corner)
    e = collision_random_lattice_epsilon(eps0, s, t, n, 1e-6)
    assert collision_random_lattice_log_delta(eps0, s, t, n, e)[0] <= math.log(1e-6)
    assert 0.0102 < e < 0.01176   # between the certified lower end and the corner bound (docs)


# ---------------------------------------------------------------- CoCo, and both at tiny n

def _coco_enumerated(s, t, r, o):
    """The law of (g_x1(z), g_x1'(z)) over every hash of the pair's coordinates and every z (exact)."""
    import itertools
    from fractions import Fraction

    from tests.accountant.bounds.test_coco_random import _g_exact, _pair

    x1, x1p, nc = _pair(s, r, o)
    pts: dict = {}
    for H in itertools.product(range(t), repeat=nc):
        for a, b in zip(_g_exact(*x1, H, s, t), _g_exact(*x1p, H, s, t)):
            pts[(a, b)] = pts.get((a, b), 0) + Fraction(1, t ** nc * t)
    return pts


@pytest.mark.parametrize("s,t", [(1, 4), (2, 6), (2, 8), (3, 8)])
def test_coco_points_are_the_enumerated_law(s, t):
    from fractions import Fraction

    from accountant.bounds.laws.coco_random import coco_random_points, coco_random_weight_exact

    for r in range(s):
        for o in range(s - r + 1):
            exact = {k: v for k, v in coco_random_points(s, t, r, o, exact=True).items() if v}
            if r + o + 2 * (s - r - o) <= 5:   # (3, 8) with 6 coordinates: 262144 hashes, left out
                assert exact == _coco_enumerated(s, t, r, o), (r, o)
            assert sum(exact.values()) == 1
            assert sum(m * max(a - b, 0) for (a, b), m in exact.items()) == coco_random_weight_exact(s, t, r, o)
            assert sum(m * a for (a, _), m in exact.items()) == Fraction(s, t)   # E_omega f = Omega / t
            flt = coco_random_points(s, t, r, o)
            for (a, b), m in exact.items():
                assert abs(flt[(float(a), float(b))] - float(m)) <= 1e-15


def _blanket_exact(a, b, w, n, eps, digits=40):
    """E[(Z_1 + ... + Z_n)_+] / n by enumeration of every n-tuple of atoms (mpmath, tiny n)."""
    import itertools

    import mpmath as mp

    with mp.workdps(digits):
        u = mp.e ** mp.mpf(eps)
        z = [mp.mpf(x) - u * mp.mpf(y) for x, y in zip(a, b)] + [mp.mpf(0)]
        p = [mp.mpf(x) for x in w] + [1 - mp.fsum(mp.mpf(x) for x in w)]
        tot = mp.mpf(0)
        for idx in itertools.product(range(len(z)), repeat=n):
            sm = mp.fsum(z[i] for i in idx)
            if sm > 0:
                tot += mp.fprod(p[i] for i in idx) * sm
        return float(tot / n)


def _exact_atoms(mech, eps0, s, t, key):
    """The law's atoms from the exact point law (Fractions), no rounding margins (the truth)."""
    import math as m

    from accountant.bounds.laws.coco_random import coco_random_points
    from accountant.bounds.laws.random_hash import collision_image_law

    E = m.exp(eps0)
    gamma = t / (s * E + t - s)
    if mech == "coco":
        pts = coco_random_points(s, t, *key, exact=True)
    else:
        pts = {}
        for (m1, k, m2), p in collision_image_law(s, t, key, exact=True).items():
            for g1, g2, c in ((1, 1, k), (1, (s - m2) / (t - m2), m1 - k), ((s - m1) / (t - m1), 1, m2 - k),
                              ((s - m1) / (t - m1), (s - m2) / (t - m2), t - m1 - m2 + k)):
                if c:
                    pts[(g1, g2)] = pts.get((g1, g2), 0) + p * c / t
    a = [1 + (E - 1) * float(x) for x, _ in pts]
    b = [1 + (E - 1) * float(y) for _, y in pts]
    return a, b, [gamma * float(v) for v in pts.values()]


@pytest.mark.parametrize("mech,s,t,key", [("collision", 2, 5, 0), ("collision", 2, 5, 1), ("coco", 2, 6, (0, 1)),
                                          ("coco", 2, 8, (1, 0)), ("coco", 3, 8, (0, 0))])
def test_lattice_is_above_the_exact_blanket_at_tiny_n(mech, s, t, key):
    # the certified lattice bound of the rounded atoms >= the blanket expectation of the exact
    # law (mpmath enumeration of every n-tuple), and close to it
    from accountant.bounds.laws.random_hash_lattice import coco_random_atoms
    from accountant.engines.lattice import lattice_positive_part

    eps0 = 1.0
    atoms = coco_random_atoms(eps0, s, t, key) if mech == "coco" else collision_random_atoms(eps0, s, t, key)
    ex_atoms = _exact_atoms(mech, eps0, s, t, key)
    for n in (2, 3):
        for eps in (0.05, 0.3, 0.7):
            truth = _blanket_exact(*ex_atoms, n, eps)
            up = lattice_positive_part(*atoms, n, eps).upper
            assert truth <= up, (n, eps, truth, up)
            assert up <= truth * 1.05 + 1e-12, (n, eps, truth, up)


def test_coco_registry_uses_all_atoms_below_the_corners():
    # CoCo s = 4, eps0 = 0.5, n = 1e4 (Figure 2 block): four corners 0.0121054, all atoms
    # 0.0118269 (worst type (0, 4), x1' = -x1, not the type of the largest weight (0, 3))
    from accountant import make_params
    from accountant.bounds.laws.coco_random import coco_random_weights
    from accountant.bounds.laws.random_hash_lattice import coco_random_atoms, types_log_delta
    from accountant.bounds.registry import compute_params_bound

    p = make_params("coco", 0.5, s=4, d=1000, hash_model="random")
    n = 10_000
    corner = compute_params_bound("blanket", p, n, 1e-6, rtol=1e-5)
    r = compute_params_bound("blanket", p, n, 1e-6)
    assert 0.012105 <= corner.epsilon <= 0.0121056 and "four-corner" in corner.reason
    assert 0.011826 <= r.epsilon <= 0.011828 and "(0, 4)" in r.reason
    assert compute_params_bound("lower", p, n, 1e-6).epsilon <= r.epsilon
    # the corner law of each of the four largest weights is above its type's lattice bound
    w = coco_random_weights(p.s, p.t)
    for key in sorted(w, key=lambda k: -w[k][1])[:4]:
        lat = types_log_delta(lambda k: coco_random_atoms(p.eps0, p.s, p.t, k), [key], n, r.epsilon)[0]
        assert lat <= math.log(1e-6) * (1 - 1e-9)
        c = positive_part(random_corner_law(p.eps0, p.s, p.t, *w[key]), n, r.epsilon)
        assert lat < math.log(c.upper)
