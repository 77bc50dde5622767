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
