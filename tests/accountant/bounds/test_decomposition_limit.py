"""Central-limit estimates of what a blanket (decomposition) bound can reach
(accountant/bounds/decomposition_limit.py): the Gaussian divergence against 50-digit mpmath,
the per-user constants against enumeration (bit patterns, every hash function), and the
certified engines against the estimates (OUE, OLH: the brackets sit at the limit)."""
from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest

from accountant import ShuffleAccountant, make_params
from accountant.bounds import decomposition_limit as D
from accountant.engines import enumeration as En


@pytest.mark.parametrize("mu,eps", [(0.05, 0.1), (0.3, 0.5), (1.0, 2.0), (0.01, 0.06)])
def test_gaussian_delta_against_mpmath(mu, eps):
    with mpmath.workdps(50):
        m, e = mpmath.mpf(mu), mpmath.mpf(eps)
        want = mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)
    assert D.gaussian_delta(mu, eps) == pytest.approx(float(want), rel=1e-10)
    e = D.gaussian_epsilon(mu, float(want))
    assert e == pytest.approx(eps, rel=1e-9)
    with pytest.raises(ValueError, match="delta must be in"):
        D.gaussian_epsilon(mu, 0.0)


def _chi2(P, Pp, q):
    return sum((a - b) ** 2 / c for a, b, c in zip(P, Pp, q) if c > 0)


@pytest.mark.parametrize("eps0", [0.3, 0.88, 2.0, 4.0])
def test_oue_constants_by_enumeration(eps0):
    """Three bits (the others do not depend on the data): chi2(P - P' || q) of the patterns for
    x0 a third value equals the dataset constant; x0 = x1 gives less; the blanket constant is
    gamma E_omega[(f1 - f1')^2] with f_x = E^(bit x) over omega = Bern(b)^3."""
    E = math.exp(eps0)
    b = 1.0 / (E + 1.0)
    ys = list(itertools.product((0, 1), repeat=3))

    def law(x):
        return [np.prod([(0.5 if j == x else b) if y[j] else 1 - (0.5 if j == x else b) for j in range(3)])
                for y in ys]

    P, Pp = law(0), law(1)
    lim = D.oue_limit(eps0)
    assert _chi2(P, Pp, law(2)) == pytest.approx(lim.dataset, rel=1e-12)
    assert _chi2(P, Pp, law(0)) < lim.dataset
    omega = [np.prod([b if v else 1 - b for v in y]) for y in ys]
    gamma = (E + 1) / (2 * E)
    blanket = gamma * sum(w * (E ** y[0] - E ** y[1]) ** 2 for w, y in zip(omega, ys))
    assert blanket == pytest.approx(lim.blanket, rel=1e-12)
    assert lim.mu_ratio == pytest.approx(math.sqrt(E * (E + 1) / (E * E + 1)), rel=1e-12)


@pytest.mark.parametrize("s,t", [(1, 4), (2, 5)])
@pytest.mark.parametrize("eps0", [0.5, 1.5])
def test_collision_constants_by_enumeration(s, t, eps0):
    """Every function of the 2d signed items into [t] (d = 3) and every z: the blanket constant is
    the largest gamma E[(f1 - f1')^2] over the pair types (r shared items), the dataset constant
    gamma E[(f1 - f1')^2 / f0] for x0 disjoint at that type; OLH is the case s = 1."""
    E = math.exp(eps0)
    Om = s * E + t - s
    H = En.all_hash_functions(3, t)
    x1 = (0, 2)[:s]
    pairs = {0: (1, 4)[:s]} if s == 2 else {0: (1,)}
    if s == 2:
        pairs[1] = (0, 4)  # shares item 0 with x1
    x0 = (3, 5)[:s]

    def f(items, h, z):
        A = {int(h[i]) for i in items}
        m = len(A)
        return E if z in A else 1.0 + (s - m) * (E - 1.0) / (t - m)

    sums = {}
    for r, x1p in pairs.items():
        tb = td = 0.0
        for h in H:
            for z in range(t):
                d2 = (f(x1, h, z) - f(x1p, h, z)) ** 2
                tb += d2
                td += d2 / f(x0, h, z)
        sums[r] = (t / Om * tb / (len(H) * t), t / Om * td / (len(H) * t))
    r_worst = max(sums, key=lambda r: sums[r][0])
    lim = D.collision_random_limit(eps0, s, t)
    assert lim.blanket == pytest.approx(sums[r_worst][0], rel=1e-10)
    assert lim.dataset == pytest.approx(sums[r_worst][1], rel=1e-10)
    if s == 1:
        assert D.olh_random_limit(eps0, t) == lim


def test_image_size_marginal():
    """The image-size law collision_random_limit takes from collision_image_law: s = 3 draws
    from [4] give P(1) = 1/16, P(2) = 9/16, P(3) = 6/16."""
    from accountant.bounds.laws.random_hash import collision_image_law

    occ = collision_image_law(3, 4, 0).sum(axis=(1, 2))
    np.testing.assert_allclose(occ, [0.0, 1 / 16, 9 / 16, 6 / 16], rtol=1e-14, atol=1e-16)


@pytest.mark.parametrize("eps0", [0.5, 1.0, 2.0])
def test_oue_bracket_is_at_the_limit(eps0):
    """n = 1e6, delta = 1e-6: the certified upper end (exact blanket) and lower end (exact
    divergence of the worst single-input dataset) are within 0.1% of their central-limit
    estimates, so the bracket is the blanket's own gap (8-10% at eps0 = 0.5-1), not slack."""
    params = make_params("oue", eps0, k=16)
    r = ShuffleAccountant(params, 10**6).epsilon_result(1e-6)
    up, lo = D.oue_limit(eps0).epsilons(10**6, 1e-6)
    assert r.epsilon == pytest.approx(up, rel=1e-3)
    assert r.lower_epsilon == pytest.approx(lo, rel=1e-3)
    assert r.epsilon / r.lower_epsilon > 1.05


@pytest.mark.parametrize("eps0,g", [(0.5, 3), (1.0, 4), (2.0, 8)])
def test_olh_random_bracket_is_at_the_limit(eps0, g):
    """OLH under the random hash, n = 1e4: both certified ends within 0.2% of the estimates."""
    r = ShuffleAccountant(make_params("olh", eps0, k=16, g=g, hash_model="random"), 10**4).epsilon_result(1e-6)
    up, lo = D.olh_random_limit(eps0, g).epsilons(10**4, 1e-6)
    assert r.epsilon == pytest.approx(up, rel=2e-3)
    assert r.lower_epsilon == pytest.approx(lo, rel=2e-3)


def test_collision_random_check_point():
    """s = 4, t = 17, eps0 = 1, n = 1e4: the four-corner upper end (a relaxation) is above the
    exact blanket's estimate, the certified upper end with all atoms (the registry's, lattice
    engine) meets it (0.0273332 against the estimate 0.0273333: within 1e-4), and the certified
    lower end is below the dataset's estimate (the patterns forget the image sizes) by less than 1%."""
    from accountant.bounds.registry import compute_params_bound

    params = make_params("collision", 1.0, s=4, d=1000, hash_model="random")
    assert params.t == 17
    r = ShuffleAccountant(params, 10**4).epsilon_result(1e-6)
    up, lo = D.collision_random_limit(1.0, 4, 17).epsilons(10**4, 1e-6)
    corners = compute_params_bound("blanket", params, 10**4, 1e-6, rtol=1e-5).epsilon   # a chart: the corners
    assert up < corners < 1.06 * up
    assert abs(r.epsilon / up - 1) < 1e-4
    assert 0.99 * lo < r.lower_epsilon < lo
