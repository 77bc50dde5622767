"""Evaluation metrics and simplex post-processing (Section 8.1)."""
from __future__ import annotations

import numpy as np

from mechanisms.core.data import Estimates


def tve(estimate, truth) -> float:
    """Total variation error ``sum_k |estimate_k - truth_k|`` (Section 8.1)."""
    e, t = np.asarray(estimate, float), np.asarray(truth, float)
    if e.shape != t.shape:
        raise ValueError(f"shape mismatch {e.shape} vs {t.shape}")
    return float(np.abs(e - t).sum())


def mae(estimate, truth) -> float:
    """Maximum absolute error ``max_k |estimate_k - truth_k|`` (Section 8.1)."""
    e, t = np.asarray(estimate, float), np.asarray(truth, float)
    if e.shape != t.shape:
        raise ValueError(f"shape mismatch {e.shape} vs {t.shape}")
    return float(np.abs(e - t).max())


def squared_error(estimate, truth) -> float:
    """``sum_k (estimate_k - truth_k)^2`` (one draw of the MSE of :mod:`mechanisms.analysis`)."""
    e, t = np.asarray(estimate, float), np.asarray(truth, float)
    if e.shape != t.shape:
        raise ValueError(f"shape mismatch {e.shape} vs {t.shape}")
    return float(((e - t) ** 2).sum())


def project_to_simplex(v, radius: float = 1.0) -> np.ndarray:
    """Exact Euclidean projection of ``v`` onto ``{w >= 0, sum w = radius}``.

    Sort-based algorithm (Held, Wolfe, Crowder 1974; Duchi et al. 2008; Wang and
    Carreira-Perpinan 2013, the paper's [46]): with ``u`` sorted decreasingly,
    ``rho = max{k : u_k - (sum_{i<=k} u_i - radius)/k > 0}``,
    ``theta = (sum_{i<=rho} u_i - radius)/rho``, ``w = max(v - theta, 0)``.
    O(K log K) for K entries.
    """
    v = np.asarray(v, dtype=np.float64)
    if v.ndim != 1 or v.size == 0:
        raise ValueError("v must be a non-empty 1-D array")
    if not np.all(np.isfinite(v)):
        raise ValueError("v must be finite")
    if not radius > 0:
        raise ValueError(f"radius must be > 0, got {radius}")
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - radius
    k = np.arange(1, v.size + 1)
    cond = u - css / k > 0
    rho = int(np.nonzero(cond)[0][-1]) + 1
    theta = css[rho - 1] / rho
    return np.maximum(v - theta, 0.0)


def postprocess_simplex(est: Estimates, s: int) -> Estimates:
    """Project the 1/s-scaled item frequencies onto the 2d-simplex (Section 8.1).

    ``item' = s * proj(item / s)``; the mean and non-missing estimates are then derived
    from the projected items (``j+ - j-`` and ``j+ + j-``), as in Section 8.4
    ("post-processed ... and then utilized for deriving the corresponding mean
    estimators").
    """
    item = s * project_to_simplex(np.asarray(est.item_freq, float) / s)
    return Estimates(item_freq=item, mean=item[1::2] - item[0::2],
                     nonmissing=item[1::2] + item[0::2])


def all_metrics(est: Estimates, item_true, mean_true, nonmissing_true) -> dict:
    """The per-run metrics reported by :func:`mechanisms.evaluation.simulate.simulate`."""
    return {
        "mse_mean": squared_error(est.mean, mean_true),
        "mse_nonmissing": squared_error(est.nonmissing, nonmissing_true),
        "mse_item": squared_error(est.item_freq, item_true),
        "tve_freq": tve(est.item_freq, item_true),
        "mae_freq": mae(est.item_freq, item_true),
        "tve_mean": tve(est.mean, mean_true),
        "mae_mean": mae(est.mean, mean_true),
    }


def mean_ci(values, level: float = 0.95) -> tuple[float, float, float]:
    """(mean, lower, upper): Student-t confidence interval for the mean of i.i.d. runs.

    With one run the interval is (nan, nan): no spread can be estimated.  Used for the
    empirical MSE over independent simulation runs (each run's squared error is one draw).
    """
    from scipy import stats

    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError("values must be a non-empty 1-d sequence of finite numbers")
    m = float(np.mean(x))
    if x.size < 2:
        return m, float("nan"), float("nan")
    half = float(stats.t.ppf(0.5 + level / 2.0, x.size - 1) * np.std(x, ddof=1) / np.sqrt(x.size))
    return m, m - half, m + half
