"""Duchi et al.'s and the piecewise mechanism: exact variances by integration (mpmath) and by seeded
simulation; the piecewise density is a probability density, eps0-LDP, with blanket p / e^eps0; the
accounting of both (Duchi = binary RR exactly; piecewise's three-cell matrix from the density)."""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from accountant import make_params
from accountant.bounds.laws.numerical import piecewise_matrix
from accountant.bounds.registry import certified_epsilon, proved_delta
from mechanisms.randomizers import mean1d as M

XS = (-1.0, -0.4, 0.0, 0.7, 1.0)


@pytest.mark.parametrize("eps0", [0.5, 1.0, 4.0])
def test_duchi_moments_exact(eps0):
    B = M.duchi_bound(eps0)
    for x in XS:
        p = float(M.duchi_plus_probability(x, eps0))
        assert p * B - (1 - p) * B == pytest.approx(x, abs=1e-12)
        second = B * B  # both reports have y^2 = B^2
        assert float(M.duchi_variance(x, eps0)) == pytest.approx(second - x * x, rel=1e-12)
        assert float(M.duchi_variance(x, eps0)) == pytest.approx(((math.exp(eps0) + 1) / (math.exp(eps0) - 1)) ** 2 - x * x,
                                                               rel=1e-12)
    # eps0-LDP: the two reports' probabilities at x = 1 and -1 have ratio e^eps0
    assert float(M.duchi_plus_probability(1.0, eps0) / M.duchi_plus_probability(-1.0, eps0)) == \
        pytest.approx(math.exp(eps0), rel=1e-12)


@pytest.mark.parametrize("eps0", [0.5, 1.0, 4.0])
def test_piecewise_moments_by_integration(eps0):
    mp.mp.dps = 30
    C, p = M.piecewise_constants(eps0)
    for x in XS:
        lo = float(M.piecewise_left(x, eps0))
        pieces = [-C, lo, lo + C - 1, C]

        def moment(k):
            return mp.fsum(mp.quad(lambda y: y ** k * float(M.piecewise_density(float(y), x, eps0)),
                                   [a + 1e-15, b - 1e-15]) for a, b in zip(pieces, pieces[1:]) if b > a)

        assert float(moment(0)) == pytest.approx(1.0, abs=1e-9)
        assert float(moment(1)) == pytest.approx(x, abs=1e-9)
        assert float(moment(2) - moment(1) ** 2) == pytest.approx(float(M.piecewise_variance(x, eps0)), rel=1e-8)


def test_piecewise_ldp_and_blanket():
    eps0 = 1.0
    C, p = M.piecewise_constants(eps0)
    ys = np.linspace(-C, C, 2001)
    dens = np.array([M.piecewise_density(ys, x, eps0) for x in np.linspace(-1, 1, 81)])
    assert dens.max() / dens.min() == pytest.approx(math.exp(eps0), rel=1e-12)
    # the blanket: the minimum over inputs is p / e^eps0 at every y (x = -1 and 1 already give it)
    assert np.allclose(dens.min(axis=0), p / math.exp(eps0), rtol=1e-12)
    # the three-cell matrix of the accounting is the density integrated over the cells
    R = piecewise_matrix(eps0).matrix
    for row, x in zip(R, (-1.0, 1.0)):
        cells = [(-C, -1.0), (-1.0, 1.0), (1.0, C)]
        masses = [mp.quad(lambda y: float(M.piecewise_density(float(y), x, eps0)), [a + 1e-15, b - 1e-15])
                  for a, b in cells]
        assert np.allclose(row, [float(v) for v in masses], atol=1e-10)


@pytest.mark.parametrize("eps0", [1.0, 4.0])
def test_seeded_simulation_within_tolerance(eps0):
    rng = np.random.default_rng(20261202)
    N = 200_000
    for x in (-1.0, 0.3, 1.0):
        for sample, var in ((M.duchi_sample, M.duchi_variance), (M.piecewise_sample, M.piecewise_variance)):
            y = sample(np.full(N, x), eps0, rng)
            v = float(var(x, eps0))
            assert abs(y.mean() - x) < 5 * math.sqrt(v / N)
            assert y.var() == pytest.approx(v, rel=0.03)
    C, _ = M.piecewise_constants(eps0)
    y = M.piecewise_sample(np.zeros(N), eps0, rng)
    assert y.min() >= -C and y.max() <= C


def test_bad_input():
    with pytest.raises(ValueError, match="x must be"):
        M.duchi_variance(1.5, 1.0)
    with pytest.raises(ValueError, match="eps0"):
        M.piecewise_variance(0.0, -1.0)


def test_accounting():
    # Duchi et al. is binary RR: the same proved number, epsilon and delta
    for n in (1000, 100_000):
        d, r = certified_epsilon(make_params("duchi", 1.0), n, 1e-6), certified_epsilon(make_params("rr", 1.0), n, 1e-6)
        assert (d.name, d.epsilon) == (r.name, r.epsilon)
    assert proved_delta(make_params("duchi", 2.0), 1000, 0.3) == proved_delta(make_params("rr", 2.0), 1000, 0.3)
    # piecewise: the exact blanket, below the generic eps0-LDP bound, above the certified lower bound
    pw = certified_epsilon(make_params("piecewise", 1.0), 1000, 1e-6)
    gen = certified_epsilon(make_params("generic", 1.0), 1000, 1e-6)
    assert pw.name == "blanket" and pw.epsilon < gen.epsilon
    from accountant.bounds.registry import compute_params_bound
    lo = compute_params_bound("lower", make_params("piecewise", 1.0), 1000, 1e-6)
    assert lo.applicable and lo.epsilon <= pw.epsilon
