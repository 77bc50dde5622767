"""The catalogue's frequency estimators: the closed-form rates (p, q) against the members'
matrices and supports, against the named frequency oracles (OUE, OLH) where they exist, and
the exact MSE (``catalogue_mse``) against a Monte-Carlo run with a fixed seed."""
import math

import numpy as np
import pytest

from mechanisms.randomizers.catalogue import (
    catalogue_mse,
    catalogue_randomizer,
    support_matrix,
    support_rates,
)
from mechanisms.randomizers.frequency_oracles import frequency_mse, olh_rates, oue_rates

MEMBERS = [
    ("krr", 5, 1.3, {}),
    ("hadamard-response", 3, 2.0, {}),
    ("hadamard-response", 8, 0.7, {}),
    ("subset-selection", 6, 0.4, {}),
    ("subset-selection", 7, 1.0, {"size": 3}),
    ("subset-selection", 5, 2.0, {"size": 1}),
    ("subset-selection", 5, 0.5, {"size": 4}),
    ("rappor", 4, 1.1, {}),
    ("symmetric-unary-encoding", 3, 2.5, {}),
    ("oue", 4, 1.1, {}),
    ("local-hashing", 3, 1.0, {"g": 2}),
    ("local-hashing", 3, 1.5, {}),
]


@pytest.mark.parametrize("name,k,eps0,kw", MEMBERS)
def test_closed_form_rates_are_the_matrix_ones(name, k, eps0, kw):
    R = catalogue_randomizer(name, k, eps0, **kw).matrix
    S = support_matrix(name, k, eps0, **kw)
    P = R @ S  # P[x, j] = P[the report supports j | input x]
    p, q = support_rates(name, k, eps0, **kw)
    off = ~np.eye(k, dtype=bool)
    assert np.allclose(np.diag(P), p, rtol=0, atol=1e-12)
    assert np.allclose(P[off], q, rtol=0, atol=1e-12)  # the same q for every j != x
    assert q < p


def _matrix_rates(name, k, eps0, **kw):
    """(p, q) read off the member's matrix and supports (q: the mean over j != x)."""
    P = catalogue_randomizer(name, k, eps0, **kw).matrix @ support_matrix(name, k, eps0, **kw)
    return float(np.mean(np.diag(P))), float(np.mean(P[~np.eye(k, dtype=bool)]))


def test_matrices_agree_with_the_named_frequency_oracles():
    # the catalogue's OUE and local-hashing matrices against the rates the named OUE / OLH
    # simulators and their error formulas use (mechanisms.randomizers.frequency_oracles)
    for eps0 in (0.5, 1.0, 2.0, 4.0):
        assert _matrix_rates("oue", 5, eps0) == pytest.approx(oue_rates(eps0), abs=1e-12)
        for g in (2, 3):
            assert _matrix_rates("local-hashing", 4, eps0, g=g) == pytest.approx(
                olh_rates(eps0, g), abs=1e-12)
        n = 1000
        assert catalogue_mse("oue", n, 5, eps0) == pytest.approx(
            frequency_mse(n, 5, *oue_rates(eps0)), rel=1e-12)
    # k-RR: q = 1/(E + k - 1) against its matrix's off-diagonal
    E = math.exp(1.0)
    assert _matrix_rates("krr", 5, 1.0) == pytest.approx((E / (E + 4), 1 / (E + 4)), abs=1e-12)


@pytest.mark.parametrize("name,k,eps0,kw", MEMBERS[:8] + MEMBERS[10:])
def test_exact_mse_against_monte_carlo(name, k, eps0, kw):
    """Fixed seed; the formula within 4.5 standard errors of the mean of 4000 runs (the
    summed squared error of one run has a spread of about its mean, so the test resolves
    a formula off by more than ~8%)."""
    rng = np.random.default_rng(20261127)
    n, reps = 60, 4000
    # uneven data (half the users on value 0): the data term (1 - p - q)(p - q) c_j enters
    rest = n - n // 2
    counts = np.array([n // 2] + [rest // (k - 1) + (1 if x < rest % (k - 1) else 0)
                                  for x in range(k - 1)])
    assert counts.sum() == n
    R = catalogue_randomizer(name, k, eps0, **kw).matrix
    S = support_matrix(name, k, eps0, **kw).astype(np.int64)
    p, q = support_rates(name, k, eps0, **kw)
    C = np.zeros((reps, k), dtype=np.int64)
    for x in range(k):
        outs = rng.multinomial(counts[x], R[x] / R[x].sum(), size=reps)  # (reps, outputs)
        C += outs @ S
    est = (C - n * q) / (p - q) / n
    err = ((est - counts / n) ** 2).sum(axis=1)
    mean, se = err.mean(), err.std(ddof=1) / math.sqrt(reps)
    exact = catalogue_mse(name, n, k, eps0, **kw)
    assert abs(mean - exact) < 4.5 * se, (mean, exact, se)
    assert abs(mean - 1.15 * exact) > 4.5 * se and abs(mean - 0.85 * exact) > 4.5 * se


def test_bad_name_is_refused():
    with pytest.raises(ValueError, match="randomizer must be one of"):
        support_rates("nope", 4, 1.0)
