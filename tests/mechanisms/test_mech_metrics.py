"""Metrics and simplex projection (Section 8.1), synthetic data and real-vector
conversion (Sections 2.1, 8), and the simulation driver."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from mechanisms.core.data import Estimates
from mechanisms.evaluation.metrics import (
    mae,
    postprocess_simplex,
    project_to_simplex,
    squared_error,
    tve,
)
from mechanisms.evaluation.simulate import simulate
from mechanisms.evaluation.synthetic import from_real_vectors, synthetic_sparse_vectors


def test_tve_mae_numbers():
    est, truth = np.array([0.5, -0.25, 1.0]), np.array([0.0, 0.0, 1.5])
    assert tve(est, truth) == pytest.approx(1.25)
    assert mae(est, truth) == pytest.approx(0.5)
    assert squared_error(est, truth) == pytest.approx(0.25 + 0.0625 + 0.25)
    with pytest.raises(ValueError):
        tve(est, truth[:2])


def _brute_projection(v, radius=1.0):
    """Minimum-distance point among all KKT candidates (one per support set)."""
    best, best_d = None, math.inf
    k = v.size
    for r in range(1, k + 1):
        for S in itertools.combinations(range(k), r):
            S = list(S)
            theta = (v[S].sum() - radius) / r
            w = np.zeros(k)
            w[S] = v[S] - theta
            if np.all(w >= -1e-12):
                dist = np.sum((w - v) ** 2)
                if dist < best_d:
                    best, best_d = w, dist
    return best


def test_projection_matches_brute_force():
    rng = np.random.default_rng(20)
    for _ in range(200):
        k = int(rng.integers(1, 7))
        v = rng.normal(scale=rng.choice([0.1, 1.0, 5.0]), size=k)
        radius = float(rng.choice([1.0, 0.3, 4.0]))
        np.testing.assert_allclose(project_to_simplex(v, radius), _brute_projection(v, radius), atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=40),
       st.floats(0.01, 50.0))
def test_projection_kkt(vals, radius):
    v = np.array(vals)
    w = project_to_simplex(v, radius)
    tol = 1e-9 * (1 + np.abs(v).max() + radius)
    assert np.all(w >= 0)
    assert w.sum() == pytest.approx(radius, abs=tol)
    pos = w > 0
    theta = np.mean(v[pos] - w[pos])
    np.testing.assert_allclose(v[pos] - w[pos], theta, atol=tol)  # w = v - theta on support
    assert np.all(v[~pos] <= theta + tol)  # off support v <= theta
    np.testing.assert_allclose(project_to_simplex(w, radius), w, atol=tol)  # idempotent


def test_postprocess_simplex_estimates():
    item = np.array([0.9, -0.2, 0.5, 0.4, 0.1, 0.3])  # d = 3, s = 2
    pp = postprocess_simplex(Estimates(item, item[1::2] - item[0::2], item[1::2] + item[0::2]), s=2)
    assert pp.item_freq.sum() == pytest.approx(2.0) and np.all(pp.item_freq >= 0)
    np.testing.assert_allclose(pp.item_freq, 2 * project_to_simplex(item / 2))
    np.testing.assert_allclose(pp.mean, pp.item_freq[1::2] - pp.item_freq[0::2])
    np.testing.assert_allclose(pp.nonmissing, pp.item_freq[1::2] + pp.item_freq[0::2])


# --------------------------------------------------------------------------- data
@pytest.mark.parametrize("n, d, s", [(40000, 12, 3), (20000, 10, 8), (5000, 5, 5)])
def test_synthetic_generator(n, d, s):
    data = synthetic_sparse_vectors(np.random.default_rng(21), n, d, s)
    assert data.indices.shape == (n, s)
    srt = np.sort(data.indices, axis=1)
    assert np.all(srt[:, 1:] != srt[:, :-1])
    counts = np.bincount(data.indices.ravel(), minlength=d)
    assert stats.chisquare(counts).pvalue > 1e-4  # every coordinate non-zero w.p. s/d
    # uniform over s-subsets: pair co-occurrence counts are equal
    if s < d:
        dense = data.dense() != 0
        co = (dense[:, 0] & dense[:, 1]).mean()
        p = s * (s - 1) / (d * (d - 1))
        assert abs(co - p) < 4.5 * math.sqrt(p * (1 - p) / n)
    k = (data.signs > 0).sum()
    assert abs(k / data.signs.size - 0.5) < 4.5 * math.sqrt(0.25 / data.signs.size)
    again = synthetic_sparse_vectors(np.random.default_rng(21), n, d, s)
    np.testing.assert_array_equal(again.indices, data.indices)


def test_from_real_vectors_deterministic_extremes():
    # column ranges [0, 10]; values at the extremes map to -1/+1, midpoints to 0
    X = np.array([[10.0, 5.0, 0.0, 5.0], [0.0, 10.0, 5.0, 5.0], [5.0, 0.0, 10.0, 5.0]])
    sv = from_real_vectors(X, 2, np.random.default_rng(22))
    np.testing.assert_array_equal(sv.dense(), [[1, 0, -1, 0], [-1, 1, 0, 0], [0, -1, 1, 0]])


def test_from_real_vectors_truncate_and_pad():
    rng = np.random.default_rng(23)
    X = rng.normal(size=(3000, 8))
    sv, info = from_real_vectors(X, 3, rng, lo=-3.0, hi=3.0, return_info=True)
    assert sv.s == 3 and sv.d == 8
    assert info["truncated_rows"] + info["padded_rows"] + int((info["nnz"] == 3).sum()) == 3000
    assert info["truncated_rows"] > 0 and info["padded_rows"] > 0
    # discretisation is unbiased before truncation/padding: with s = d nothing is dropped
    # and padded zeros get symmetric random signs, so column means of X/3 are preserved.
    Y = rng.uniform(-1, 1, size=(40000, 3)) * np.array([0.2, 0.5, -0.6]) + np.array([0.3, -0.2, 0.1])
    sv2 = from_real_vectors(Y, 3, rng, lo=-1.0, hi=1.0)
    np.testing.assert_allclose(sv2.means(), Y.mean(axis=0), atol=4.5 * math.sqrt(1 / 40000))
    with pytest.raises(ValueError, match="^s must"):
        from_real_vectors(X, 9, rng)


# --------------------------------------------------------------------------- simulate
def test_simulate_keys_and_analytic():
    r = simulate("collision", n=3000, d=16, s=2, eps0=1.0, reps=3, seed=5)
    for k in ("mse_mean", "mse_nonmissing", "mse_item", "tve_freq", "mae_freq", "tve_mean", "mae_mean"):
        assert np.isfinite(r[k]) and r[k] > 0
    assert set(r["analytic"]) >= {"mse_mean", "mse_nonmissing", "mse_item"}
    assert r == simulate("collision", n=3000, d=16, s=2, eps0=1.0, reps=3, seed=5)  # reproducible
    pp = simulate("coco", n=3000, d=16, s=2, eps0=1.0, reps=3, seed=5, postprocess="simplex")
    raw = simulate("coco", n=3000, d=16, s=2, eps0=1.0, reps=3, seed=5)
    # same data and randomness; projecting onto a convex set that contains the truth
    # cannot increase the Euclidean error
    assert pp["mse_item"] <= raw["mse_item"] and pp["postprocess_applied"]
    with pytest.raises(ValueError, match="postprocess"):
        simulate("coco", n=10, d=4, s=1, eps0=1.0, postprocess="clip")
    with pytest.raises(ValueError, match="^mechanism must"):
        simulate("nope", n=10, d=4, s=1, eps0=1.0)


def test_simulate_missing_baselines_message(monkeypatch):
    import mechanisms.evaluation.simulate as sim

    monkeypatch.setattr(sim, "_baselines", lambda: {})
    with pytest.raises(sim.MechanismUnavailableError, match="privkv.*not available"):
        sim.simulate("privkv", n=10, d=4, s=1, eps0=1.0)
    assert sim.available_mechanisms() == ["collision", "coco"]


def test_mean_ci_literal_and_coverage():
    from mechanisms.evaluation.metrics import mean_ci

    m, lo, hi = mean_ci([1.0, 2.0, 3.0])
    # mean 2, sd 1; Student t with 2 degrees of freedom has the closed-form quantile
    # t_p = (2p - 1) / sqrt(2 p (1 - p)), so t_{0.975, 2} = 0.95 / sqrt(0.04875)
    assert m == 2.0
    assert hi - m == pytest.approx(0.95 / 0.04875 ** 0.5 / 3 ** 0.5, rel=1e-10)
    assert m - lo == pytest.approx(hi - m, rel=1e-12)
    assert all(v != v for v in mean_ci([5.0])[1:])  # one run: no interval
    # coverage of the 95% interval on exponential draws (fixed seed): 0.93-0.97
    rng = np.random.default_rng(11)
    hits = 0
    for _ in range(2000):
        _, a, b = mean_ci(rng.exponential(2.0, size=200))
        hits += a <= 2.0 <= b
    assert 0.93 <= hits / 2000 <= 0.97
    with pytest.raises(ValueError, match="level"):
        mean_ci([1.0, 2.0], level=1.5)
    with pytest.raises(ValueError, match="finite"):
        mean_ci([])
