"""Tests for the Section-8 baselines (PrivKV, PCKV-UE/-GRR/-AGRR, SUCCINCT).

Properties checked (each with a fixed seed, each able to fail):
* exact eps0-LDP of the local randomizer on small domains, from ``output_distribution``
  (max over outputs of max/min probability over all inputs <= e^{eps0}), including
  tightness where the budget must be fully used;
* ``output_distribution`` is the law that ``randomize`` actually samples from
  (chi-square / KS goodness of fit), so the LDP check covers the real randomizer;
* unbiasedness of the unbiased estimators (z-test against the exact variance), and
  the documented bias of the biased-by-design ones (PrivKV's mean, clipped SUCCINCT);
* ``analytic_mse`` against the simulated MSE;
* ValueError naming the parameter for invalid parameters.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from mechanisms.baselines import (BASELINES, PCKVAGRR, PCKVGRR, PCKVUE, PrivKV, Succinct,
                                  all_inputs, default_analytic_mse, default_item_freq)
from mechanisms.core.data import SparseVectors

TOL = 1e-12


def make_data(n: int, d: int, s: int, seed: int) -> SparseVectors:
    """Skewed key popularity and key-dependent sign bias (non-trivial frequencies/means)."""
    rng = np.random.default_rng(seed)
    w = np.linspace(2.0, 0.5, d)
    g = rng.gumbel(size=(n, d)) + np.log(w / w.sum())
    idx = np.argsort(-g, axis=1)[:, :s]
    p_plus = np.linspace(0.15, 0.9, d)
    sg = np.where(rng.random((n, s)) < p_plus[idx], 1, -1).astype(np.int8)
    return SparseVectors(idx, sg, d)


def make(name: str, d: int, s: int, eps0: float, **kw):
    return BASELINES[name](d=d, s=s, eps0=eps0, **kw)


# ----------------------------------------------------------------------------- registry


def test_registry():
    assert set(BASELINES) == {"privkv", "pckv-ue", "pckv-grr", "pckv-agrr", "succinct"}
    for name, cls in BASELINES.items():
        m = cls(d=4, s=2, eps0=1.0)
        assert m.name == name
        for meth in ("randomize", "estimate", "simulate", "output_distribution",
                     "analytic_mse", "analytic_mse_default"):
            assert callable(getattr(m, meth))


# ----------------------------------------------------------------------------- exact LDP

DISCRETE = [("privkv", {}), ("pckv-ue", {}), ("pckv-grr", {}), ("pckv-agrr", {}),
            ("pckv-ue", {"ell": 3}), ("pckv-grr", {"ell": 3}), ("pckv-agrr", {"ell": 3}),
            ("pckv-ue", {"eps_value": 0.25}), ("pckv-agrr", {"eps_value": 0.25}),
            ("privkv", {"key_budget_fraction": 0.2})]


def max_log_ratio(mech, d, s):
    P = np.array([mech.output_distribution(i, g).ravel() for i, g in all_inputs(d, s)])
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(P > 0)
    return float(np.max(np.log(P.max(axis=0)) - np.log(P.min(axis=0))))


@pytest.mark.parametrize("name,kw", DISCRETE)
@pytest.mark.parametrize("d,s", [(3, 1), (4, 1), (3, 2), (4, 2)])
@pytest.mark.parametrize("eps0", [0.3, 1.0, 2.5])
def test_exact_ldp_discrete(name, kw, d, s, eps0):
    mech = make(name, d, s, eps0, **kw)
    worst = max_log_ratio(mech, d, s)
    assert worst <= eps0 + TOL
    if name == "pckv-agrr" or (name in ("pckv-ue", "pckv-grr") and s == 1 and "ell" not in kw):
        # the budget is used fully: PCKV's tight composition / exact amplification
        assert worst == pytest.approx(eps0, abs=1e-9)
    if name == "privkv":
        e1, e2 = mech.eps1, mech.eps2
        assert e1 + e2 == pytest.approx(eps0)
        expected = max(math.log(2 * mech.p2) + e1, e2, math.log((1 + math.exp(e2)) / 2) - e1)
        assert worst == pytest.approx(expected, abs=1e-9)


def test_pckv_budget_split_totals_eps0():
    for cls in (PCKVUE, PCKVGRR):
        m = cls(d=4, s=2, eps0=1.3, eps_value=0.7)
        total = max(m.eps2, m.eps1 + math.log(2 * math.exp(m.eps2) / (1 + math.exp(m.eps2))))
        assert total == pytest.approx(1.3, abs=1e-12)
    m = PCKVAGRR(d=4, s=2, eps0=1.3)
    assert m.eps_perturb == pytest.approx(math.log(2 * (math.exp(1.3) - 1) + 1))
    assert m.eps2 == pytest.approx(m.eps_perturb)
    assert m.eps1 == pytest.approx(math.log((math.exp(m.eps_perturb) + 1) / 2))


@pytest.mark.parametrize("d,s", [(3, 1), (4, 1), (3, 2), (4, 2)])
@pytest.mark.parametrize("eps0", [0.5, 2.0])
@pytest.mark.parametrize("kw", [{"eta": 1.0}, {"eta": 1.5}, {"n_users": 1000}])
def test_exact_ldp_succinct(d, s, eps0, kw):
    mech = Succinct(d=d, s=s, eps0=eps0, **kw)
    ods = [mech.output_distribution(i, g) for i, g in all_inputs(d, s)]
    C = np.array([o["centers"] for o in ods])          # (inputs, 2^d)
    for o in ods:
        np.testing.assert_allclose(o["probs"].sum(), 1.0)
    scale = ods[0]["scale"]
    # sup over y of the Laplace density ratio is exp(|c - c'| / scale)
    worst = float(np.max(C.max(axis=0) - C.min(axis=0)) / scale)
    assert worst <= eps0 + TOL
    # also on an explicit grid of y (densities, for every sign vector and input pair)
    y = np.linspace(-6, 6, 241)
    dens = np.array([mech.output_density(i, g, y) for i, g in all_inputs(d, s)])
    assert np.max(np.log(dens.max(axis=0)) - np.log(dens.min(axis=0))) <= eps0 + TOL
    if kw.get("eta") == 1.0 and s == 2:
        assert worst == pytest.approx(eps0, abs=1e-12)  # clipping binds: tight
    # the exact LDP parameter: every hash reaches both ends of [-min(s, eta), min(s, eta)]
    assert np.allclose((C.max(axis=0) - C.min(axis=0)) / scale, mech.ldp_epsilon(), rtol=1e-12, atol=0)
    assert mech.ldp_epsilon() <= eps0 * (1 + 1e-15)
    assert (mech.ldp_epsilon() < eps0 * 0.9) == (mech.eta_for() > s / 0.9)  # eta > s: a smaller budget


# --------------------------------------------------- output_distribution matches randomize


def _empirical_outputs(mech, reports):
    if isinstance(mech, PrivKV):
        return reports.j * 3 + (reports.r.astype(np.int64) + 1)
    if isinstance(mech, PCKVUE):
        D = reports.d_prime
        y = (np.unpackbits(reports.pos, axis=1, count=D).astype(np.int64)
             - np.unpackbits(reports.neg, axis=1, count=D))
        return (y + 1) @ (3 ** np.arange(D - 1, -1, -1))
    return reports.item


@pytest.mark.parametrize("name,kw", [("privkv", {}), ("pckv-ue", {}), ("pckv-ue", {"ell": 3}),
                                     ("pckv-grr", {"ell": 3}), ("pckv-grr", {"ell": 4}),
                                     ("pckv-agrr", {})])
def test_output_distribution_matches_randomize(name, kw):
    d, s, n = 4, 2, 60_000
    mech = make(name, d, s, 1.0, **kw)
    idx, sg = np.array([1, 3]), np.array([1, -1])
    data = SparseVectors(np.tile(idx, (n, 1)), np.tile(sg, (n, 1)).astype(np.int8), d)
    P = mech.output_distribution(idx, sg).ravel()
    out = _empirical_outputs(mech, mech.randomize(data, np.random.default_rng(7)))
    counts = np.bincount(out, minlength=P.size)
    assert counts.size == P.size
    pval = stats.chisquare(counts, n * P).pvalue
    assert pval > 1e-4


def test_output_distribution_matches_randomize_succinct():
    d, s, n = 4, 3, 40_000
    mech = Succinct(d=d, s=s, eps0=4.0, eta=2.0)  # clipping binds for |<sigma, x>| = 3
    idx, sg = np.array([0, 2, 3]), np.array([1, -1, -1])
    data = SparseVectors(np.tile(idx, (n, 1)), np.tile(sg, (n, 1)).astype(np.int8), d)
    rep = mech.randomize(data, np.random.default_rng(3))
    from mechanisms.baselines._common import hash_signs
    sig = hash_signs(rep.seed[:, None], np.arange(d, dtype=np.uint64)[None, :])
    od = mech.output_distribution(idx, sg)
    t = ((sig > 0).astype(np.int64) << np.arange(d)).sum(axis=1)  # row of od["signs"]
    np.testing.assert_array_equal(od["signs"][t], sig)
    assert stats.chisquare(np.bincount(t, minlength=2 ** d)).pvalue > 1e-4  # uniform sigma
    resid = rep.value - od["centers"][t]
    assert stats.kstest(resid, stats.laplace(scale=od["scale"]).cdf).pvalue > 1e-4
    # per sign vector: residual mean 0 (Laplace variance 2 scale^2)
    cnt = np.bincount(t, minlength=2 ** d)
    z = np.bincount(t, weights=resid, minlength=2 ** d) / cnt
    z /= np.sqrt(2) * od["scale"] / np.sqrt(cnt)
    assert np.max(np.abs(z)) < 4.5


# ----------------------------------------------------------------- unbiasedness and MSE

D_, S_, N_, R_ = 5, 2, 3000, 250
_DATA = make_data(N_, D_, S_, seed=11)
_TRUTH = {"mean": _DATA.means(), "nonmissing": _DATA.nonmissing_frequencies(),
          "item": _DATA.item_frequencies()}
_CACHE: dict = {}

UNBIASED = {  # label -> (name, kwargs, targets that are unbiased)
    "pckv-ue": ("pckv-ue", {}, ("mean", "nonmissing", "item")),
    "pckv-ue-ell3": ("pckv-ue", {"ell": 3}, ("mean", "nonmissing", "item")),
    "pckv-grr": ("pckv-grr", {}, ("mean", "nonmissing", "item")),
    "pckv-agrr": ("pckv-agrr", {}, ("mean", "nonmissing", "item")),
    "pckv-agrr-ell4": ("pckv-agrr", {"ell": 4, "eps_value": 1.0},
                       ("mean", "nonmissing", "item")),
    "privkv": ("privkv", {}, ("nonmissing",)),
    "privkv-unbiased": ("privkv", {"mean_estimator": "unbiased"},
                        ("mean", "nonmissing", "item")),
    "succinct": ("succinct", {}, ("mean",)),
}


CONFIGS = {label: (name, kw, 1.0, R_) for label, (name, kw, _) in UNBIASED.items()}
CONFIGS["succinct-clipped"] = ("succinct", {"eta": 1.5}, 1.0, R_)  # eta < s: clipping binds
# eps0 = 20: the clipping terms dominate the variance; more runs for a sharper check
CONFIGS["succinct-clipped-eps20"] = ("succinct", {"eta": 1.5}, 20.0, 4 * R_)
CONFIGS["pckv-grr-eps5"] = ("pckv-grr", {"ell": 3}, 5.0, R_)  # data-dependent terms matter
CONFIGS["privkv-unbiased-eps5"] = ("privkv", {"mean_estimator": "unbiased"}, 5.0, R_)


def simulated_errors(label):
    """Independent runs on _DATA (R_ unless configured); errors per target, (runs, coords)."""
    if label not in _CACHE:
        name, kw, eps0, reps = CONFIGS[label]
        mech = make(name, D_, S_, eps0, **kw)
        rng = np.random.default_rng([list(CONFIGS).index(label), 2024])
        errs = {k: [] for k in _TRUTH}
        for _ in range(reps):
            est = mech.simulate(_DATA, rng)
            errs["mean"].append(est.mean - _TRUTH["mean"])
            errs["nonmissing"].append(est.nonmissing - _TRUTH["nonmissing"])
            errs["item"].append(est.item_freq - _TRUTH["item"])
        _CACHE[label] = (mech, {k: np.array(v) for k, v in errs.items()})
    return _CACHE[label]


@pytest.mark.parametrize("label", list(UNBIASED))
def test_unbiased_ztest(label):
    mech, errs = simulated_errors(label)
    var = mech.analytic_mse_per_coordinate(_DATA)
    for target in UNBIASED[label][2]:
        z = errs[target].mean(axis=0) / np.sqrt(var["mse_" + target] / len(errs[target]))
        assert np.max(np.abs(z)) < 4.5, (target, z)


@pytest.mark.parametrize("label", list(CONFIGS))
def test_analytic_mse_matches_simulation(label):
    mech, errs = simulated_errors(label)
    an = mech.analytic_mse(_DATA)
    targets = ("mean",) if isinstance(mech, Succinct) else ("mean", "nonmissing", "item")
    for t in targets:
        sim = float(np.mean(np.sum(errs[t] ** 2, axis=1)))
        # exact formulas; PrivKV's published-mean one is the documented approximation
        assert sim == pytest.approx(an["mse_" + t], rel=0.15), (t, sim, an["mse_" + t])
    if isinstance(mech, Succinct):
        assert math.isnan(an["mse_item"]) and math.isnan(an["mse_nonmissing"])
        assert np.all(np.isnan(errs["item"])) and np.all(np.isnan(errs["nonmissing"]))


def test_succinct_clipped_bias_is_as_documented():
    """eta < s: E[xhat] = c * M with c = E[clip(1 + R)] < 1 (shrinkage)."""
    mech, errs = simulated_errors("succinct-clipped")
    c, Q = mech.clip_moments(N_)
    assert c == pytest.approx(0.75)  # s = 2, eta = 1.5: R = +-1 -> clip(2)=1.5, clip(0)=0
    assert Q == pytest.approx(0.5 * 1.5 ** 2)
    M = _TRUTH["mean"]
    est_mean = M + errs["mean"].mean(axis=0)
    var = mech.analytic_mse_per_coordinate(_DATA)["mse_mean"] - (1 - c) ** 2 * M ** 2
    runs = len(errs["mean"])
    z_biased = (est_mean - c * M) / np.sqrt(var / runs)
    z_truth = (est_mean - M) / np.sqrt(var / runs)
    assert np.max(np.abs(z_biased)) < 4.5
    assert np.max(np.abs(z_truth)) > 6.0  # the truth is rejected: biased by design


def test_succinct_clipped_variance_exact():
    """Variance around the biased mean c M is (Q + 2 scale^2 - c^2 F) / n (eps0 = 20, so the
    clipping terms Q and c^2 F dominate the Laplace term)."""
    mech, errs = simulated_errors("succinct-clipped-eps20")
    c, Q = mech.clip_moments(N_)
    M, F = _TRUTH["mean"], _TRUTH["nonmissing"]
    dev = errs["mean"] + (1 - c) * M  # est - c M
    sim = float(np.mean(np.sum(dev ** 2, axis=1)))
    mse = mech.analytic_mse_per_coordinate(_DATA)["mse_mean"]
    an = float(np.sum(mse - (1 - c) ** 2 * M ** 2))  # documented MSE minus its bias^2
    assert an == pytest.approx(float(np.sum(Q + 2 * mech.scale_for(N_) ** 2 - c ** 2 * F) / N_))
    assert sim == pytest.approx(an, rel=0.07)
    # power: replacing c^2 F by F (ignoring the shrinkage in the variance) is > 15% off
    assert abs(an - float(np.sum(Q + 2 * mech.scale_for(N_) ** 2 - F) / N_)) > 0.15 * an


def empirical_mse(mech, data, rng, R: int, keys) -> dict:
    """The summed squared errors of ``R`` simulations, averaged, for each estimate in ``keys``
    (mean, nonmissing, item)."""
    truth = {"mean": data.means(), "nonmissing": data.nonmissing_frequencies(),
             "item": data.item_frequencies()}
    field = {"mean": "mean", "nonmissing": "nonmissing", "item": "item_freq"}
    sq = dict.fromkeys(keys, 0.0)
    for _ in range(R):
        est = mech.simulate(data, rng)
        for k in keys:
            sq[k] += np.sum((getattr(est, field[k]) - truth[k]) ** 2) / R
    return sq


@pytest.mark.parametrize("d,n,eps0", [(2, 200, 8.0), (8, 3, 8.0)])
def test_privkv_group_sampling_terms_exact(d, n, eps0):
    """PrivKV's exact MSE where the group-sampling (finite-population) term dominates
    (large eps0) or empty groups are frequent (n = 3, d = 8: P(m = 0) = (7/8)^3)."""
    data = make_data(n, d, 1, seed=4)
    mech = PrivKV(d=d, s=1, eps0=eps0, mean_estimator="unbiased")
    rng = np.random.default_rng(99)
    sq = empirical_mse(mech, data, rng, 4000, ("mean", "nonmissing", "item"))
    an = mech.analytic_mse(data)
    for k in sq:
        assert sq[k] == pytest.approx(an["mse_" + k], rel=0.08), k


def test_privkv_published_mse_approximation():
    """Approximate MSE of PrivKV's published (ratio) mean estimator, in a regime without
    dilution bias (every user holds every key, F = 1) so the variance part is tested."""
    n, d, s = 5000, 2, 2
    rng = np.random.default_rng(21)
    sg = np.where(rng.random((n, 2)) < [0.8, 0.3], 1, -1).astype(np.int8)
    data = SparseVectors(np.tile([0, 1], (n, 1)), sg, d)
    mech = PrivKV(d=d, s=s, eps0=2.0)
    R = 600
    errs = np.array([mech.simulate(data, rng).mean - data.means() for _ in range(R)])
    an = mech.analytic_mse(data)
    assert float(np.mean(np.sum(errs ** 2, axis=1))) == pytest.approx(an["mse_mean"], rel=0.1)


@pytest.mark.parametrize("n,d,s,eps0,R", [(20_000, 128, 8, 0.05, 40),   # clipping dominates
                                          (20_000, 128, 8, 1.0, 40),    # paper-like regime
                                          (40, 8, 2, 1.0, 1500)])       # tiny groups
def test_privkv_published_mse_approximation_regimes(n, d, s, eps0, R):
    """The approximation must also hold where m_k is mostly clipped, where the noise of
    f_k and of m_k multiply (small groups, F = s/d small), and for tiny groups."""
    rng = np.random.default_rng(n + d)
    idx = np.argsort(rng.random((n, d)), axis=1)[:, :s]
    data = SparseVectors(idx, np.where(rng.random((n, s)) < 0.8, 1, -1).astype(np.int8), d)
    mech = PrivKV(d=d, s=s, eps0=eps0)
    sq = empirical_mse(mech, data, rng, R, ("mean", "item"))
    an = mech.analytic_mse(data)
    for k in sq:
        assert sq[k] == pytest.approx(an["mse_" + k], rel=0.1), k


def test_privkv_estimate_matches_published_formulas():
    """Group-by-group (loop) evaluation of PrivKV's estimators, incl. the correction
    (clip of the calibrated counts to [0, N], i.e. of m_k to [-1, 1])."""
    d, s, n = 3, 1, 400
    rng = np.random.default_rng(8)
    data = SparseVectors(np.zeros((n, 1), dtype=np.int64), np.ones((n, 1), dtype=np.int8), d)
    mech = PrivKV(d=d, s=s, eps0=6.0)
    clipped = 0
    for _ in range(20):
        rep = mech.randomize(data, rng)
        est = mech.estimate(rep, n)
        for k in range(d):
            g = rep.r[rep.j == k]
            m, n1, n2 = len(g), int(np.sum(g == 1)), int(np.sum(g == -1))
            N = n1 + n2
            f = ((N / m) - (1 - mech.p1)) / (2 * mech.p1 - 1)
            n1s = (n1 - (1 - mech.p2) * N) / (2 * mech.p2 - 1)
            n1s = min(max(n1s, 0.0), N)
            mk = (n1s - (N - n1s)) / N if N else 0.0
            clipped += (n1 - (1 - mech.p2) * N) / (2 * mech.p2 - 1) > N
            assert est.nonmissing[k] == pytest.approx(f, abs=1e-12)
            assert est.mean[k] == pytest.approx(f * mk, abs=1e-12)
            assert est.item_freq[2 * k + 1] == pytest.approx(f * (1 + mk) / 2, abs=1e-12)
            assert est.item_freq[2 * k] == pytest.approx(f * (1 - mk) / 2, abs=1e-12)
    assert clipped > 0  # the correction was exercised


def test_privkv_published_mean_bias_is_as_documented():
    """PrivKV's mean among holders converges to p1 M / (p1 F + (1 - p1)(1 - F)), not M/F."""
    d, s, n = 3, 1, 600_000
    rng = np.random.default_rng(5)
    idx = rng.integers(0, d, size=(n, 1))
    sg = np.where(idx == 0, 1, np.where(rng.random((n, 1)) < 0.5, 1, -1)).astype(np.int8)
    data = SparseVectors(idx, sg, d)
    mech = PrivKV(d=d, s=s, eps0=1.0)
    est = mech.simulate(data, rng)
    m_hat = est.mean / est.nonmissing  # = PrivKV's corrected mean among holders
    limit = mech.mean_limit(data)
    truth = data.means() / data.nonmissing_frequencies()
    assert np.max(np.abs(m_hat - limit)) < 0.03
    assert abs(truth[0] - limit[0]) > 0.4 and abs(m_hat[0] - truth[0]) > 0.3
    # the frequency estimator is unbiased, sd ~ sqrt(d / n) / (2 p1 - 1) ~ 0.009
    np.testing.assert_allclose(est.nonmissing, data.nonmissing_frequencies(), atol=0.04)


# ----------------------------------------------------------------- analytic formulas


def test_pckv_nonmissing_variance_closed_form():
    for cls, ell in ((PCKVUE, 2), (PCKVGRR, 2), (PCKVAGRR, 5)):
        m = cls(d=6, s=2, eps0=0.8, ell=ell)
        f = default_item_freq(6, 2, key_fraction=0.3, pos_fraction=0.7)
        n = 12345
        a, b = m.a, m.b
        F = 0.3
        closed = (ell ** 2 * b * (1 - b) / (n * (a - b) ** 2)
                  + ell * F * (1 - 2 * b - (a - b) / ell) / (n * (a - b)))
        got = m.analytic_mse_per_coordinate(f, n)["mse_nonmissing"]
        np.testing.assert_allclose(got, closed, rtol=1e-12)


def test_default_mse_and_scaling():
    d, s, eps0 = 16, 4, 1.0
    for name in BASELINES:
        a1 = default_analytic_mse(name, 10_000, d, s, eps0)
        a2 = default_analytic_mse(name, 40_000, d, s, eps0)
        mech = make(name, d, s, eps0)
        same = mech.analytic_mse(default_item_freq(d, s), 10_000)
        assert a1 == pytest.approx(same, nan_ok=True)
        assert a1["mse_mean"] > 0 and math.isfinite(a1["mse_mean"])
        if name.startswith("pckv"):  # unbiased, variance exactly proportional to 1/n
            for k in a1:
                assert a1[k] == pytest.approx(4 * a2[k], rel=1e-12)
    # amplification by sampling helps (s >= 2)
    agrr = default_analytic_mse("pckv-agrr", 10_000, d, s, eps0)
    grr = default_analytic_mse("pckv-grr", 10_000, d, s, eps0)
    assert agrr["mse_item"] < grr["mse_item"]


@pytest.mark.parametrize("name", list(BASELINES))
def test_analytic_argument_forms_agree(name):
    m = make(name, D_, S_, 1.0)
    a = m.analytic_mse(_DATA)
    assert m.analytic_mse(_DATA.item_frequencies(), N_) == pytest.approx(a, nan_ok=True)
    # Collision/CoCo's (n, data) argument order
    assert m.analytic_mse(N_, _DATA) == pytest.approx(a, nan_ok=True)
    assert m.analytic_mse(N_) == pytest.approx(m.analytic_mse_default(N_), nan_ok=True)
    per = m.analytic_mse_per_coordinate(_DATA)
    assert per["mse_mean"].shape == (D_,) and per["mse_item"].shape == (2 * D_,)
    assert per["mse_nonmissing"].shape == (D_,)


# ----------------------------------------------------------------- validation


@pytest.mark.parametrize("name", list(BASELINES))
@pytest.mark.parametrize("kw,param", [
    ({"d": 0, "s": 1, "eps0": 1.0}, "d"),
    ({"d": 2.5, "s": 1, "eps0": 1.0}, "d"),
    ({"d": 4, "s": 0, "eps0": 1.0}, "s"),
    ({"d": 4, "s": 5, "eps0": 1.0}, "s"),
    ({"d": 4, "s": 2, "eps0": 0.0}, "eps0"),
    ({"d": 4, "s": 2, "eps0": -1.0}, "eps0"),
    ({"d": 4, "s": 2, "eps0": float("nan")}, "eps0"),
    ({"d": 4, "s": 2, "eps0": float("inf")}, "eps0"),
])
def test_invalid_common_parameters(name, kw, param):
    with pytest.raises(ValueError, match=rf"\b{param}\b"):
        BASELINES[name](**kw)


@pytest.mark.parametrize("cls,kw,param", [
    (PCKVUE, {"ell": 1}, "ell"),
    (PCKVGRR, {"ell": 1.5}, "ell"),
    (PCKVAGRR, {"ell": 0}, "ell"),
    (PCKVUE, {"eps_value": 1.5}, "eps_value"),
    (PCKVGRR, {"eps_value": 0.0}, "eps_value"),
    (PrivKV, {"key_budget_fraction": 0.0}, "key_budget_fraction"),
    (PrivKV, {"key_budget_fraction": 1.0}, "key_budget_fraction"),
    (PrivKV, {"mean_estimator": "x"}, "mean_estimator"),
    (Succinct, {"beta": 0.0}, "beta"),
    (Succinct, {"beta": 1.0}, "beta"),
    (Succinct, {"eta": -1.0}, "eta"),
    (Succinct, {"n_users": 0}, "n_users"),
])
def test_invalid_optional_parameters(cls, kw, param):
    with pytest.raises(ValueError, match=rf"\b{param}\b"):
        cls(d=4, s=2, eps0=1.0, **kw)


def test_invalid_grr_domain_and_data():
    with pytest.raises(ValueError, match="ell"):
        PCKVGRR(d=1, s=1, eps0=1.0)
    data = make_data(10, 5, 2, seed=0)
    for name in BASELINES:
        with pytest.raises(ValueError, match=r"\bd\b"):
            make(name, 4, 2, 1.0).randomize(data, np.random.default_rng(0))
        with pytest.raises(ValueError, match=r"\bs\b"):
            make(name, 5, 3, 1.0).randomize(data, np.random.default_rng(0))
        with pytest.raises(ValueError, match=r"\bn\b"):
            make(name, 5, 2, 1.0).analytic_mse(np.zeros(10))
