"""Saddle-point start estimates: the root finder and the estimate against exact sums."""
import math

import pytest

from accountant.engines.saddle import log_positive_part, root_of_decreasing


@pytest.mark.parametrize("c", [1e-3, 1.0, 50.0, 1e6])
def test_root_of_decreasing_gaussian_and_skewed(c):
    lt = math.log(1e-9)
    root = math.sqrt(-lt / c)
    assert root_of_decreasing(lambda x: -c * x * x, lt, 10 * root) == pytest.approx(root, rel=1e-9)
    # a curve that is not Gaussian-like (log delta linear, then flat None region below 0.1 root)
    f = (lambda x: None if x < 0.1 * root else -c * root * x)  # noqa: E731
    assert root_of_decreasing(f, lt, 5 * root) == pytest.approx(-lt / (c * root), rel=1e-9)


def test_root_of_decreasing_no_estimate():
    assert root_of_decreasing(lambda x: -30.0, math.log(1e-6), 1.0) is None  # met at 0
    assert root_of_decreasing(lambda x: None, math.log(1e-6), 1.0) is None  # never below
    # -inf at the top end (delta = 0 at eps_max) is handled by bisection
    r = root_of_decreasing(lambda x: -math.inf if x >= 1.0 else -20.0 * x, math.log(1e-6), 1.0)
    assert r == pytest.approx(-math.log(1e-6) / 20.0, rel=1e-9)


def test_log_positive_part_against_exact_sum():
    """Z = +1 w.p. 0.3, -1 w.p. 0.7: E[S_+] summed exactly over Bin(n, 0.3) for n = 2000."""
    from scipy.stats import binom

    n = 2000
    k = list(range(n + 1))
    pm = binom.pmf(k, n, 0.3)
    exact = math.fsum(float(w) * max(2 * j - n, 0) for j, w in zip(k, pm))
    est = log_positive_part((0.3, 0.7), (1.0, -1.0), n)
    # a lattice law (span 2, theta * span = 0.85) is the estimate's worst case: 0.06 off in the log
    # (the engines' laws are not lattice: 1e-4 at n = 1e4, tests/test_divergence.py)
    assert est == pytest.approx(math.log(exact), abs=0.1)
    assert log_positive_part((0.5, 0.5), (1.0, -2.0), 10) is not None
    assert log_positive_part((0.5, 0.5), (-1.0, -2.0), 10) == -math.inf
    assert log_positive_part((0.5, 0.5), (2.0, -1.0), 10) is None  # mean >= 0
