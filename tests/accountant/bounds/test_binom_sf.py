"""The binary lower bound's binomial tail (accountant.bounds.laws.lower_law._binom_sf) is
scipy.stats.binom.sf to the bit, edges of the support included, without importing scipy.stats."""
from __future__ import annotations

import numpy as np
from scipy.stats import binom

from accountant.bounds.laws.lower_law import _binom_sf


def test_binom_sf_is_scipy_stats_binom_sf():
    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 7, 100, 10 ** 4, 10 ** 8, 10 ** 10):
        for _ in range(150):
            p = float(rng.choice([rng.random(), 0.0, 1.0, 1e-12, 0.5]))
            sd = np.sqrt(n * p * (1 - p) + 1.0)
            k = int(rng.integers(-3, n + 3)) if n < 100 else int(n * p + 6 * sd * rng.normal())
            assert _binom_sf(k, n, p) == float(binom.sf(k, n, p)), (k, n, p)
    assert _binom_sf(-1, 10, 0.3) == 1.0 and _binom_sf(10, 10, 0.3) == 0.0
