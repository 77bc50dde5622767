"""OUE / OLH simulators against their variance formulas (fixed seeds)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from mechanisms.randomizers import frequency_oracles as F


def test_rates_and_variance_formula():
    p, q = F.oue_rates(2.0)
    assert (p, q) == (0.5, pytest.approx(1 / (math.exp(2) + 1)))
    p2, q2 = F.olh_rates(2.0)
    assert q2 == 1 / 8 and p2 == pytest.approx(math.exp(2) / (math.exp(2) + 7))
    e = math.exp(2.0)
    # the c = 0 variance of OUE is 4 E n/(E - 1)^2 exactly
    assert F.frequency_variance(1000, p, q) == pytest.approx(4 * e * 1000 / (e - 1) ** 2, rel=1e-12)
    with pytest.raises(ValueError, match="c must lie in"):
        F.frequency_variance(10, p, q, c=11)
    with pytest.raises(ValueError, match="eps0 must be a number"):
        F.oue_rates(0.0)


def _empirical(kind, n, k, eps0, reps, seed):
    rng = np.random.default_rng(seed)
    values = np.repeat(np.arange(k), n // k)
    values = np.concatenate([values, np.zeros(n - len(values), dtype=np.int64)])
    ests = []
    for _ in range(reps):
        if kind == "oue":
            p, q = F.oue_rates(eps0)
            sup = F.oue_support_counts(F.oue_perturb(values, k, eps0, rng))
        else:
            p, q = F.olh_rates(eps0)
            sup = F.olh_support_counts(F.olh_perturb(values, k, eps0, rng), k)
        ests.append(F.estimate_counts(sup, n, p, q))
    return np.array(ests), np.bincount(values, minlength=k), p, q


@pytest.mark.parametrize("kind", ["oue", "olh"])
def test_simulation_unbiased_with_the_formula_variance(kind):
    n, k, eps0, reps = 2000, 8, 1.5, 300
    ests, true, p, q = _empirical(kind, n, k, eps0, reps, seed=7)
    var = F.frequency_variance(n, p, q, true)
    # mean within 4 standard errors, variance within 20% (300 repetitions: sd of the sample
    # variance ~ 8%); OLH's universal family makes q ~ 1/g, not exactly 1/g
    se = np.sqrt(var / reps)
    assert np.all(np.abs(ests.mean(axis=0) - true) < 4 * se)
    ratio = ests.var(axis=0, ddof=1) / var
    assert np.all((0.8 < ratio) & (ratio < 1.25)), ratio


def test_limits_refused_up_front():
    with pytest.raises(ValueError, match="n x k must be <= 1e\\+08"):
        F.oue_perturb(np.zeros(10**5, dtype=np.int64), 10**4, 1.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="values must be a 1-d array of integers in \\[0, k = 3\\)"):
        F.oue_perturb(np.array([0, 3]), 3, 1.0, np.random.default_rng(0))


@pytest.mark.parametrize("kind", ["oue", "olh"])
def test_summed_frequency_mse_matches_simulation(kind):
    """frequency_mse (the planner's error of OLH / OUE) against simulated estimates."""
    n, k, eps0, reps = 2000, 8, 1.5, 300
    ests, true, p, q = _empirical(kind, n, k, eps0, reps, seed=11)
    empirical = np.mean(np.sum((ests / n - true / n) ** 2, axis=1))
    formula = F.frequency_mse(n, k, p, q)
    # the closed form, written out: (k q(1-q) + (1-p-q)(p-q)) / (n (p-q)^2)
    assert formula == pytest.approx((k * q * (1 - q) + (1 - p - q) * (p - q)) / (n * (p - q) ** 2),
                                    rel=1e-12)
    # 300 repetitions of a sum of 8 squared errors: relative sd of the mean ~ 5%
    assert empirical == pytest.approx(formula, rel=0.15)
    # and it is the per-value variances summed (sum_j c_j = n)
    assert formula == pytest.approx(float(np.sum(F.frequency_variance(n, p, q, true))) / n**2,
                                    rel=1e-12)


def test_report_bits():
    assert F.report_bits("oue", 64, 2.0) == 64
    assert F.report_bits("olh", 64, 2.0) == 62 + 3  # g = round(e^2) + 1 = 8
    assert F.report_bits("olh", 64, 2.0, g=9) == 62 + 4
    with pytest.raises(ValueError, match="mechanism must be 'olh' or 'oue'"):
        F.report_bits("krr", 4, 1.0)
