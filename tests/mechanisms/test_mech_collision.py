"""Collision mechanism (Definition 5): validation, hash family, exact law, LDP,
exact error formulas (against enumeration over all hash functions) and simulation."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from mechanisms.randomizers.collision import (
    Collision,
    CollisionParams,
    bucket32,
    bucket32_bounds,
    collision_hit_counts,
    collision_output_distribution,
    sample_collision,
)
from mechanisms.baselines import all_inputs
from mechanisms.core.data import SparseVectors
from mechanisms.analysis.errors import analytic_errors, optimal_t
from mechanisms.analysis.collision import (
    collision_indicator_variances,
    collision_mean_mse_paper_bound,
    collision_mse,
    collision_pair_covariance,
    collision_rates,
    collision_variances_from_counts,
)
from mechanisms.analysis.common import collision_t_star
from mechanisms.evaluation.synthetic import synthetic_sparse_vectors
from tests.mechanisms.simulation import assert_simulated_mse, random_reports


def all_items(d: int, s: int):
    """Every x in X_s as a sorted item list (ids 2j + (sign > 0))."""
    return (2 * idx + (sg > 0) for idx, sg in all_inputs(d, s))


# --------------------------------------------------------------------------- validation
@pytest.mark.parametrize("kw, name", [
    (dict(d=0, s=1, eps0=1.0), "d"),
    (dict(d=4, s=0, eps0=1.0), "s"),
    (dict(d=4, s=5, eps0=1.0), "s"),
    (dict(d=4, s=2, eps0=0.0), "eps0"),
    (dict(d=4, s=2, eps0=-1.0), "eps0"),
    (dict(d=4, s=2, eps0=float("inf")), "eps0"),
    (dict(d=4, s=2, eps0=float("nan")), "eps0"),
    (dict(d=4, s=2, eps0=1.0, t=2), "t"),
    (dict(d=4, s=2, eps0=1.0, t=2.5), "t"),
    (dict(d=2.0, s=1, eps0=1.0), "d"),
])
def test_params_validation_names_parameter(kw, name):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        CollisionParams(**kw)


def test_default_t_is_t_star_and_params_frozen():
    p = CollisionParams(d=100, s=8, eps0=1.0)
    assert p.t == math.floor(8 * math.e + 15) == collision_t_star(8, 1.0)
    assert p.t > p.s
    assert p.report_bits == 64 + math.ceil(math.log2(p.t))
    with pytest.raises(Exception):
        p.t = 3  # frozen
    assert CollisionParams(d=3, s=3, eps0=1e-9).t == 3 * 3 - 1  # floor(3 + 6 - 1 + tiny)


# --------------------------------------------------------------------------- hash family
def test_bucket32_range_test_is_exact():
    rng = np.random.default_rng(1)
    for t in (2, 3, 7, 149, 1000003):
        h = rng.integers(0, 2**32, size=20000, dtype=np.uint64)
        h[:4] = [0, 2**32 - 1, (2**32 // t) * 1, (2**32 // t) + 1]
        b = bucket32(h, t)
        assert b.min() >= 0 and b.max() < t
        z = rng.integers(0, t, size=h.size)
        z[:4] = b[:4]
        lo, w = bucket32_bounds(z, t)
        with np.errstate(over="ignore"):
            hit = (h.astype(np.uint32) - lo) < w
        np.testing.assert_array_equal(hit, b == z)


def test_server_counts_match_per_user_hash_tables():
    mech = Collision(d=7, s=3, eps0=0.9, t=5)
    rng = np.random.default_rng(2)
    seeds, z = random_reports(rng, 700, 5)
    brute = np.zeros(14, dtype=np.int64)
    for sd, zz in zip(seeds, z):
        brute += mech.hash_table(int(sd)) == zz
    for threads in (1, 3):
        np.testing.assert_array_equal(collision_hit_counts(seeds, z, 7, 5, n_threads=threads), brute)


def test_hash_family_uniform_and_pairwise_collisions():
    """Marginals uniform on [t]; P[H(y) = H(y')] = 1/t, also for j-/j+ (same 64-bit word)."""
    mech = Collision(d=4, s=1, eps0=1.0, t=7)
    rng = np.random.default_rng(3)
    seeds = rng.integers(0, 2**64, size=40000, dtype=np.uint64)
    tables = np.stack([mech.hash_table(int(s)) for s in seeds[:8000]])
    for y in range(8):
        counts = np.bincount(tables[:, y], minlength=7)
        assert stats.chisquare(counts).pvalue > 1e-4
    m = tables.shape[0]
    for y, y2 in [(0, 1), (2, 3), (0, 2), (1, 6)]:
        rate = np.mean(tables[:, y] == tables[:, y2])
        assert abs(rate - 1 / 7) < 4.5 * math.sqrt((1 / 7) * (6 / 7) / m)
        joint = np.bincount(7 * tables[:, y] + tables[:, y2], minlength=49)
        assert stats.chisquare(joint).pvalue > 1e-4


# --------------------------------------------------------------------------- exact law
def test_output_distribution_definition5_with_collisions():
    E = math.exp(0.8)
    p = collision_output_distribution([1, 1, 3], 0.8, 6)  # H(Y_x) = {1, 3}, m = 2
    omega = 3 * E + 6 - 3
    assert p.sum() == pytest.approx(1.0, abs=1e-15)
    assert p[1] == pytest.approx(E / omega) and p[3] == pytest.approx(E / omega)
    assert p[0] == pytest.approx((omega - 2 * E) / (4 * omega))


def _find_seed_with_collision(mech, items, want_m):
    for seed in range(10_000):
        tab = mech.hash_table(seed)
        if len(set(tab[items])) == want_m:
            return seed, tab
    raise AssertionError("no seed found")


@pytest.mark.parametrize("want_m", [4, 2])
def test_vectorised_sampler_matches_exact_distribution(want_m):
    mech = Collision(d=6, s=4, eps0=1.2, t=9)
    items = np.array([0, 3, 5, 10])
    seed, tab = _find_seed_with_collision(mech, items, want_m)
    n = 60000
    data = SparseVectors(np.tile(items // 2, (n, 1)), np.tile(np.where(items % 2, 1, -1), (n, 1)), 6)
    rep = mech.randomize(data, np.random.default_rng(4), seeds=np.full(n, seed, dtype=np.uint64))
    probs = mech.output_distribution(items, tab)
    counts = np.bincount(rep.z, minlength=9)
    assert stats.chisquare(counts, probs * n).pvalue > 1e-4


def test_sample_collision_rows_independent_of_layout():
    rng = np.random.default_rng(5)
    hv = np.array([[2, 2, 2], [0, 1, 2], [4, 0, 4]] * 20000)
    z = sample_collision(hv, 0.5, 5, rng).reshape(-1, 3)
    for r, row in enumerate(([2, 2, 2], [0, 1, 2], [4, 0, 4])):
        probs = collision_output_distribution(row, 0.5, 5)
        assert stats.chisquare(np.bincount(z[:, r], minlength=5), probs * z.shape[0]).pvalue > 1e-4


# --------------------------------------------------------------------------- LDP
@pytest.mark.parametrize("d, s, t, eps0", [(3, 2, 3, 0.7), (3, 1, 4, 1.5), (2, 2, 4, 0.3), (3, 3, 4, 2.0)])
def test_collision_is_eps0_ldp_exhaustive(d, s, t, eps0):
    """All hash functions [2d] -> [t], all pairs of inputs in X_s: ratio <= e^eps0."""
    inputs = list(all_items(d, s))
    worst = 0.0
    for tab in itertools.product(range(t), repeat=2 * d):
        tab = np.array(tab)
        P = np.array([collision_output_distribution(tab[x], eps0, t) for x in inputs])
        assert np.allclose(P.sum(axis=1), 1.0, atol=1e-12)
        worst = max(worst, float((P.max(axis=0) / P.min(axis=0)).max()))
    assert worst <= math.exp(eps0) * (1 + 1e-12)
    assert worst >= math.exp(eps0) * (1 - 1e-12)  # attained (disjoint hash images exist)


# --------------------------------------------------------------------------- exact formulas
@pytest.mark.parametrize("d, s, t, eps0", [(2, 2, 3, 0.7), (3, 2, 4, 1.3), (2, 1, 3, 0.4)])
def test_variances_and_zero_covariance_by_enumeration(d, s, t, eps0):
    """Enumerate every hash function and output: the per-user estimators are unbiased,
    their variances are v_in / v_out and Cov(item j+, item j-) = 0 exactly."""
    pt, pf, po = collision_rates(s, eps0, t)
    g = pt - pf
    v_in, v_out = collision_indicator_variances(s, eps0, t)
    tables = np.array(list(itertools.product(range(t), repeat=2 * d)))  # (T, 2d)
    onehot = (tables[:, :, None] == np.arange(t)).astype(float)  # (T, 2d, t)
    est = (onehot - 1.0 / t) / g
    for x in all_items(d, s):
        P = np.array([collision_output_distribution(tab[x], eps0, t) for tab in tables])  # (T, t)
        e1 = np.einsum("kyt,kt->y", est, P) / len(tables)
        e2 = np.einsum("kyt,kt->y", est**2, P) / len(tables)
        ex = np.einsum("kjt,kjt,kt->j", est[:, 0::2], est[:, 1::2], P) / len(tables)
        truth = np.zeros(2 * d)
        truth[x] = 1
        np.testing.assert_allclose(e1, truth, atol=1e-12)
        np.testing.assert_allclose(e2 - e1**2, np.where(truth > 0, v_in, v_out), rtol=1e-11)
        np.testing.assert_allclose(ex - e1[0::2] * e1[1::2], 0.0, atol=1e-10)
        # the MSEs of one user (n = 1) are the formula's totals
        var_mean = (e2 - e1**2)[0::2] + (e2 - e1**2)[1::2] - 2 * (ex - e1[0::2] * e1[1::2])
        assert var_mean.sum() == pytest.approx(collision_mse(1, d, s, eps0, t).mean, rel=1e-11)
    assert collision_pair_covariance(s, eps0, t) == 0.0


def test_probability_of_hit_outside_and_inside_set_by_enumeration():
    """P[z = H(y)] is e^eps/Omega for y in Y_x (even with collisions) and 1/t otherwise."""
    d, s, t, eps0 = 3, 3, 4, 0.9
    pt, pf, _ = collision_rates(s, eps0, t)
    x = np.array([0, 3, 5])
    tables = np.array(list(itertools.product(range(t), repeat=2 * d)))
    hit = np.zeros(2 * d)
    for tab in tables:
        P = collision_output_distribution(tab[x], eps0, t)
        hit += P[tab]
    hit /= len(tables)
    inside = np.isin(np.arange(2 * d), x)
    np.testing.assert_allclose(hit[inside], pt, rtol=1e-13)
    np.testing.assert_allclose(hit[~inside], pf, rtol=1e-13)


def test_counts_formula_sums_to_data_independent_total_and_paper_bound():
    rng = np.random.default_rng(6)
    data = synthetic_sparse_vectors(rng, 500, 20, 5)
    counts = np.bincount(data.items.ravel(), minlength=40)
    v = collision_variances_from_counts(500, 5, 1.1, 13, counts)
    tot = collision_mse(500, 20, 5, 1.1, 13)
    assert v.item.sum() == pytest.approx(tot.item, rel=1e-12)
    assert v.mean.sum() == pytest.approx(tot.mean, rel=1e-12)
    assert tot.mean == tot.nonmissing == tot.item
    assert collision_mean_mse_paper_bound(500, 20, 5, 1.1, 13) == pytest.approx(2 * tot.mean)
    # vectorised over t
    ts = np.arange(6, 40)
    arr = collision_mse(500, 20, 5, 1.1, ts).mean
    assert arr.shape == ts.shape
    assert arr[7] == pytest.approx(collision_mse(500, 20, 5, 1.1, 13).mean)


def test_optimal_t_is_grid_minimum():
    t_opt, v = optimal_t("collision", "mean", 128, 8, 0.5)
    grid = np.arange(9, 400)
    vals = collision_mse(1, 128, 8, 0.5, grid).mean
    assert t_opt == grid[np.argmin(vals)] and v == pytest.approx(vals.min())
    assert abs(t_opt - collision_t_star(8, 0.5)) <= 3  # t* is near-optimal


def test_analytic_errors_dict():
    r = analytic_errors("collision", 1000, 64, 4, 1.0)
    assert r["t"] == collision_t_star(4, 1.0) and r["P_ow"] is None
    assert r["mse_mean"] == pytest.approx(collision_mse(1000, 64, 4, 1.0, r["t"]).mean)
    assert r["Pf"] == r["Po"] == pytest.approx(1 / r["t"])


# --------------------------------------------------------------------------- simulation
def test_simulated_mse_matches_exact_formula():
    d, s, eps0, n, reps = 64, 4, 1.0, 20000, 40
    mech = Collision(d, s, eps0, t=21)
    rng = np.random.default_rng(7)
    assert_simulated_mse(mech, collision_mse(n, d, s, eps0, 21), rng, n, reps)


def test_unbiased_and_per_coordinate_variance_on_skewed_data():
    """Fixed heterogeneous dataset: z-test of the mean error of every item and
    per-coordinate variances against ``collision_variances_from_counts``."""
    d, s, eps0, n, reps = 12, 3, 0.8, 4000, 300
    rng = np.random.default_rng(8)
    idx = np.empty((n, s), dtype=np.int64)
    idx[:, 0] = 0  # coordinate 0 always non-zero (always +1)
    idx[:, 1] = np.where(np.arange(n) < n // 2, 1, 2)
    idx[:, 2] = 3 + rng.integers(0, 9, size=n)
    signs = np.ones((n, s), dtype=np.int8)
    signs[:, 1] = np.where(rng.random(n) < 0.2, -1, 1)
    signs[:, 2] = -1
    data = SparseVectors(idx, signs, d)
    mech = Collision(d, s, eps0)
    errs_item = np.empty((reps, 2 * d))
    errs_mean = np.empty((reps, d))
    for r in range(reps):
        est = mech.simulate(data, rng)
        errs_item[r] = est.item_freq - data.item_frequencies()
        errs_mean[r] = est.mean - data.means()
    v = collision_variances_from_counts(n, s, eps0, mech.t, np.bincount(data.items.ravel(), minlength=2 * d))
    z = errs_item.mean(axis=0) / np.sqrt(v.item / reps)
    assert np.abs(z).max() < 4.5
    assert abs(z.mean()) < 4.5 / math.sqrt(z.size) * 2
    ratio = errs_mean.var(axis=0, ddof=1) / v.mean
    assert np.all((ratio > 0.7) & (ratio < 1.35)), ratio
    assert errs_mean.var(axis=0, ddof=1).sum() / v.mean.sum() == pytest.approx(1.0, abs=0.08)
