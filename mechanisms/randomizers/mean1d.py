"""One-dimensional mean randomizers, the numerical baselines: Duchi et al.'s and the piecewise mechanism.

Both take an input x in [-1, 1], report an unbiased estimate of it and are eps0-LDP; each has its
report's exact variance Var[y | x] here (the MSE of one report; the mean of n reports has
variance sum_i Var[y | x_i] / n^2) and a sampler with a seeded ``numpy.random.Generator``.  Their
shuffle-model accounting is :class:`accountant.core.randomizers_numerical.DuchiParams` and
:class:`accountant.core.randomizers_numerical.PiecewiseParams` (mechanisms ``duchi`` and ``piecewise``).

* Duchi, Jordan, Wainwright, "Minimax optimal procedures for locally private estimation" (JASA
  2018): y = +B w.p. 1/2 + x (e^eps0 - 1)/(2 (e^eps0 + 1)), else -B, B = (e^eps0 + 1)/(e^eps0 - 1);
  Var[y | x] = B^2 - x^2.
* Wang et al., "Collecting and analyzing multidimensional data with local differential privacy"
  (ICDE 2019), the piecewise mechanism: y in [-C, C], C = (e^{eps0/2} + 1)/(e^{eps0/2} - 1), with
  density p = (e^eps0 - e^{eps0/2})/(2 e^{eps0/2} + 2) on [l(x), l(x) + C - 1],
  l(x) = (C + 1) x / 2 - (C - 1)/2, and p / e^eps0 elsewhere;
  Var[y | x] = x^2 / (e^{eps0/2} - 1) + (e^{eps0/2} + 3) / (3 (e^{eps0/2} - 1)^2).
"""
from __future__ import annotations

import math

import numpy as np

from accountant.core.limits import check_positive_number

#: the largest eps0 of the formulas (e^eps0 in floats)
EPS0_MAX = 700.0


def _inputs(x) -> np.ndarray:
    arr = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(arr)) or np.any(np.abs(arr) > 1.0):
        raise ValueError("x must be numbers in [-1, 1]")
    return arr


def duchi_bound(eps0: float) -> float:
    """B = (e^eps0 + 1)/(e^eps0 - 1), the magnitude of Duchi et al.'s two reports."""
    e = check_positive_number("eps0", eps0, EPS0_MAX)
    return 1.0 / math.tanh(e / 2.0)


def duchi_plus_probability(x, eps0: float):
    """P[y = +B | x] = 1/2 + x (e^eps0 - 1)/(2 (e^eps0 + 1))."""
    return 0.5 + 0.5 * _inputs(x) * math.tanh(check_positive_number("eps0", eps0, EPS0_MAX) / 2.0)


def duchi_variance(x, eps0: float):
    """Var[y | x] = B^2 - x^2 (E[y^2] = B^2, E[y] = x)."""
    return duchi_bound(eps0) ** 2 - _inputs(x) ** 2


def duchi_sample(x, eps0: float, rng: np.random.Generator) -> np.ndarray:
    """One report per input: +B or -B."""
    plus = rng.random(np.shape(x)) < duchi_plus_probability(x, eps0)
    return np.where(plus, 1.0, -1.0) * duchi_bound(eps0)


def piecewise_constants(eps0: float) -> tuple[float, float]:
    """(C, p): the reports' range [-C, C] and the high density p."""
    e = check_positive_number("eps0", eps0, EPS0_MAX)
    h = math.exp(e / 2.0)
    return (h + 1.0) / (h - 1.0), h * (h - 1.0) / (2.0 * (h + 1.0))


def piecewise_left(x, eps0: float):
    """l(x) = (C + 1) x / 2 - (C - 1)/2, the left end of the high interval (of length C - 1)."""
    C, _ = piecewise_constants(eps0)
    return (C + 1.0) * _inputs(x) / 2.0 - (C - 1.0) / 2.0


def piecewise_density(y, x: float, eps0: float):
    """The density of the report at ``y`` given the input ``x`` (0 outside [-C, C])."""
    C, p = piecewise_constants(eps0)
    lo = float(piecewise_left(x, eps0))
    y = np.asarray(y, dtype=float)
    inside = (y >= -C) & (y <= C)
    high = (y >= lo) & (y <= lo + C - 1.0)
    return np.where(inside, np.where(high, p, p / math.exp(eps0)), 0.0)


def piecewise_variance(x, eps0: float):
    """Var[y | x] = x^2 / (e^{eps0/2} - 1) + (e^{eps0/2} + 3) / (3 (e^{eps0/2} - 1)^2)."""
    h1 = math.expm1(check_positive_number("eps0", eps0, EPS0_MAX) / 2.0)
    return _inputs(x) ** 2 / h1 + (h1 + 4.0) / (3.0 * h1 ** 2)


def piecewise_sample(x, eps0: float, rng: np.random.Generator) -> np.ndarray:
    """One report per input: uniform on the high interval w.p. e^{eps0/2}/(e^{eps0/2} + 1) (its mass
    p (C - 1)), else uniform on the rest of [-C, C] (two pieces, by their lengths)."""
    x = _inputs(x)
    C, _ = piecewise_constants(eps0)
    h = math.exp(eps0 / 2.0)
    lo = piecewise_left(x, eps0)
    u, v = rng.random(x.shape), rng.random(x.shape)
    high = lo + (C - 1.0) * u
    left_len = lo + C                       # [-C, lo)
    w = (C + 1.0) * u                       # a point of the rest, of length 2C - (C - 1) = C + 1
    low = np.where(w < left_len, -C + w, lo + (C - 1.0) + (w - left_len))
    return np.where(v < h / (h + 1.0), high, low)
