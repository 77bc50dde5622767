"""Optimized unary encoding (OUE) and optimized local hashing (OLH): simulators and the
variance of their frequency estimators.

Wang, Blocki, Li, Jha, "Locally differentially private protocols for frequency
estimation", USENIX Security 2017 (Sections 4.3, 4.4).  Every user holds ``x`` in
``[k] = {0, .., k-1}``; ``E = e^eps0``.

* **OUE**: the report is a bit vector ``y in {0,1}^k``; ``y_x = 1`` w.p. ``p = 1/2`` and
  every other bit is 1 w.p. ``q = 1/(E + 1)``, independently.  A report *supports* value
  ``j`` when ``y_j = 1``.
* **OLH**: the user draws a hash ``H: [k] -> [g]`` from a universal family (here
  ``H(x) = ((a x + b) mod P) mod g`` with the prime ``P = 2^31 - 1 > k`` and uniform ``a in [1, P)``,
  ``b in [0, P)``, drawn per report from the generator) and reports ``(H, y)`` with
  ``y = H(x)`` w.p. ``E/(E + g - 1)`` and each other value of ``[g]`` w.p. ``1/(E + g - 1)``.
  A report supports ``j`` when ``H(j) = y``: ``p = E/(E + g - 1)``, ``q = 1/g`` (exactly
  ``1/g`` for a uniformly random hash; ``~1/g`` for the universal family).
  Default ``g = round(E) + 1`` (:func:`accountant.core.rules.olh_default_g`).

Estimator (both): with ``C_j`` the number of reports that support ``j``,
``c_hat_j = (C_j - n q)/(p - q)`` is unbiased for the count ``c_j`` of users holding ``j``,
and (the supports being independent across users)

    Var[c_hat_j] = (n q (1 - q) + c_j (1 - p - q)(p - q)) / (p - q)^2

(Wang et al.'s variance with the data term ``c_j (1 - p - q)/(p - q)`` kept).  For
``c_j << n`` both give ``~ 4 E n/(E - 1)^2`` (OLH at g = E + 1).
The accounting of the shuffled reports is in :mod:`accountant` (``--mechanism oue|olh``).
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from accountant.core.params import validate_eps0

__all__ = ["oue_rates", "olh_rates", "frequency_variance", "frequency_mse", "report_bits",
           "OLH_SEED_BITS", "oue_perturb", "oue_support_counts",
           "olh_perturb", "olh_support_counts", "estimate_counts", "MAX_CELLS"]

MAX_CELLS = 10**8  # n x k work limit of one simulation (memory/time), refused above


def _check_eps0(eps0) -> float:
    """eps0 in the one range of every mechanism (:func:`accountant.core.params.validate_eps0`)."""
    return validate_eps0(eps0)


def _check_int(name: str, v, lo: int) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
        raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
    return int(v)


def oue_rates(eps0: float) -> tuple[float, float]:
    """(p, q) of OUE: a report supports its own value w.p. 1/2, any other w.p. 1/(E+1).

    Parameters
    ----------
    eps0 : float
        Local budget (> 0).

    Returns
    -------
    tuple of float
        ``(p, q)``: the probability that a report supports its own value, and any other.

    References
    ----------
    Wang, Blocki, Li, Jha, "Locally differentially private protocols for frequency
    estimation", USENIX Security 2017 (OUE).

    Examples
    --------
    >>> from mechanisms import oue_rates
    >>> p, q = oue_rates(1.0)
    >>> print(p, f"{q:.4f}")
    0.5 0.2689
    """
    e = math.exp(_check_eps0(eps0))
    return 0.5, 1.0 / (e + 1.0)


def olh_rates(eps0: float, g: Optional[int] = None) -> tuple[float, float]:
    """(p, q) of OLH with hash range ``g`` (default round(e^eps0) + 1).

    Parameters
    ----------
    eps0 : float
        Local budget (> 0).
    g : int, optional
        Hash range (>= 2).

    Returns
    -------
    tuple of float
        ``(p, q)`` of the support counts.

    References
    ----------
    As :func:`oue_rates` (OLH).

    Examples
    --------
    >>> from mechanisms import olh_rates
    >>> p, q = olh_rates(2.0)
    >>> print(f"{p:.4f}", q)
    0.5135 0.125
    """
    from accountant.core.rules import olh_default_g

    eps0 = _check_eps0(eps0)
    g = olh_default_g(eps0) if g is None else _check_int("g", g, 2)
    e = math.exp(eps0)
    return e / (e + g - 1.0), 1.0 / g


def frequency_variance(n: int, p: float, q: float, c=0):
    """Var of the unbiased count estimate (C_j - n q)/(p - q) when ``c`` of the ``n`` users
    hold j (``c`` may be an array)."""
    n = _check_int("n", n, 1)
    if not (0.0 <= q < p <= 1.0):
        raise ValueError(f"need 0 <= q < p <= 1, got p={p!r}, q={q!r}")
    c = np.asarray(c, dtype=float)
    if np.any((c < 0) | (c > n)):
        raise ValueError(f"c must lie in [0, n = {n}], got {c!r}")
    return (n * q * (1 - q) + c * (1 - p - q) * (p - q)) / (p - q) ** 2


def frequency_mse(n: int, k: int, p: float, q: float) -> float:
    """Exact MSE of the frequency estimates c_hat_j / n summed over the k values, when each
    of the n users holds exactly one value.

    Var[c_hat_j] (:func:`frequency_variance`) is linear in c_j and sum_j c_j = n, so the
    total does not depend on the data:
    ``sum_j Var[c_hat_j] / n^2 = (k q (1 - q) + (1 - p - q)(p - q)) / (n (p - q)^2)``
    (Wang, Blocki, Li, Jha, USENIX Security 2017, Sections 4.3-4.4, with the data term kept).

    Parameters
    ----------
    n : int
        Number of users (>= 1).
    k : int
        Domain size (>= 2).
    p, q : float
        The oracle's rates (:func:`oue_rates`, :func:`olh_rates`).

    Returns
    -------
    float
        The summed squared error of the frequency (not count) estimates.

    Examples
    --------
    >>> from mechanisms import frequency_mse, oue_rates
    >>> print(f"{frequency_mse(10_000, 64, *oue_rates(2.0)):.6f}")
    0.004734
    """
    k = _check_int("k", k, 2)
    v0 = frequency_variance(n, p, q, 0)
    vn = frequency_variance(n, p, q, n)
    return float((k * v0 + (vn - v0)) / float(n) ** 2)


#: bits of the OLH simulator's hash seed: (a, b) with a in [1, P), b in [0, P), P = 2^31 - 1
OLH_SEED_BITS = 62


def report_bits(mechanism: str, k: int, eps0: float, g: Optional[int] = None) -> int:
    """Size in bits of one report: OUE ``k`` (one bit per value); OLH the hash seed
    (:data:`OLH_SEED_BITS` = 62 in :func:`olh_perturb`) plus ``ceil(log2 g)`` bits for the
    hashed value (``g`` default round(e^eps0) + 1).

    Examples
    --------
    >>> from mechanisms import report_bits
    >>> report_bits("oue", 64, 2.0), report_bits("olh", 64, 2.0)
    (64, 65)
    """
    from accountant.core.rules import olh_default_g

    k = _check_int("k", k, 2)
    if mechanism == "oue":
        return k
    if mechanism != "olh":
        raise ValueError(f"mechanism must be 'olh' or 'oue', got {mechanism!r}")
    eps0 = _check_eps0(eps0)
    g = olh_default_g(eps0) if g is None else _check_int("g", g, 2)
    return OLH_SEED_BITS + math.ceil(math.log2(g))


def _values(values, k: int) -> np.ndarray:
    x = np.asarray(values)
    if x.ndim != 1 or not np.issubdtype(x.dtype, np.integer) or np.any((x < 0) | (x >= k)):
        raise ValueError(f"values must be a 1-d array of integers in [0, k = {k}), got {values!r}")
    return x.astype(np.int64)


def oue_perturb(values, k: int, eps0: float, rng: np.random.Generator) -> np.ndarray:
    """The OUE reports of ``values`` (one row of k bits per user, uint8).

    Parameters
    ----------
    values : array_like of int
        The users' values in ``[0, k)``.
    k : int
        Domain size (>= 2).
    eps0 : float
        Local budget (> 0).
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    numpy.ndarray
        ``(n, k)`` array of bits.

    Examples
    --------
    >>> import numpy as np
    >>> from mechanisms import estimate_counts, oue_perturb, oue_rates, oue_support_counts
    >>> rng = np.random.default_rng(0)
    >>> values = rng.integers(0, 4, size=20_000)
    >>> reports = oue_perturb(values, k=4, eps0=1.0, rng=rng)
    >>> reports.shape
    (20000, 4)
    >>> est = estimate_counts(oue_support_counts(reports), len(values), *oue_rates(1.0))
    >>> bool(np.abs(est - np.bincount(values, minlength=4)).max() < 500)
    True
    """
    k = _check_int("k", k, 2)
    x = _values(values, k)
    if len(x) * k > MAX_CELLS:
        raise ValueError(f"n x k must be <= {MAX_CELLS:.0e} for an OUE simulation, got {len(x) * k}")
    p, q = oue_rates(eps0)
    y = (rng.random((len(x), k)) < q).astype(np.uint8)
    y[np.arange(len(x)), x] = rng.random(len(x)) < p
    return y


def oue_support_counts(reports: np.ndarray) -> np.ndarray:
    """C_j = number of OUE reports with bit j set.

    Parameters
    ----------
    reports : numpy.ndarray
        The ``(n, k)`` OUE reports.

    Returns
    -------
    numpy.ndarray
        ``(k,)`` counts.

    Examples
    --------
    >>> import numpy as np
    >>> from mechanisms import oue_support_counts
    >>> oue_support_counts(np.array([[1, 0, 1], [1, 1, 0]], dtype=np.uint8)).tolist()
    [2, 1, 1]
    """
    return np.asarray(reports, dtype=np.int64).sum(axis=0)


_P = 2**31 - 1  # Mersenne prime: (a x + b) < 2^62 for x < 2^31, and (.) mod g nearly uniform
_K_MAX = 10**8


def _prime_above(k: int) -> int:
    """The hash family's prime (the same for every k <= 1e8: P = 2^31 - 1 >> g keeps
    P[H(j) = H(x)] within g/P of 1/g)."""
    if k > _K_MAX:
        raise ValueError(f"k must be an integer in [2, {_K_MAX:.0e}] for OLH, got {k}")
    return _P


def olh_perturb(values, k: int, eps0: float, rng: np.random.Generator, g: Optional[int] = None):
    """OLH reports of ``values``: (a, b, y) arrays, the hash H(x) = ((a x + b) mod P) mod g
    of each report given by (a, b) with the prime P = 2^31 - 1.

    Parameters
    ----------
    values, k, eps0, rng :
        As :func:`oue_perturb`.
    g : int, optional
        Hash range (default ``round(e^eps0) + 1``).

    Returns
    -------
    tuple
        ``(a, b, y, g)``: the hash coefficients and the reported hash value of each user,
        and the hash range.

    Examples
    --------
    >>> import numpy as np
    >>> from mechanisms import estimate_counts, olh_perturb, olh_rates, olh_support_counts
    >>> rng = np.random.default_rng(0)
    >>> values = rng.integers(0, 8, size=20_000)
    >>> reports = olh_perturb(values, k=8, eps0=2.0, rng=rng)
    >>> a, b, y, g = reports
    >>> print(len(y), g)
    20000 8
    >>> est = estimate_counts(olh_support_counts(reports, 8), len(values), *olh_rates(2.0))
    >>> bool(np.abs(est - np.bincount(values, minlength=8)).max() < 1000)
    True
    """
    from accountant.core.rules import olh_default_g

    k = _check_int("k", k, 2)
    eps0 = _check_eps0(eps0)
    g = olh_default_g(eps0) if g is None else _check_int("g", g, 2)
    x = _values(values, k)
    P = _prime_above(k)
    n = len(x)
    a = rng.integers(1, P, n)
    b = rng.integers(0, P, n)
    h = ((a * x + b) % P) % g
    e = math.exp(eps0)
    keep = rng.random(n) < e / (e + g - 1.0)
    other = (h + rng.integers(1, g, n)) % g  # uniform on the g - 1 other values
    return a, b, np.where(keep, h, other), g


def olh_support_counts(reports, k: int) -> np.ndarray:
    """C_j = number of OLH reports (a, b, y, g) with H(j) = y, for every j in [k].

    Parameters
    ----------
    reports : tuple
        ``(a, b, y, g)`` as returned by :func:`olh_perturb`.
    k : int
        Domain size.

    Returns
    -------
    numpy.ndarray
        ``(k,)`` counts.

    Examples
    --------
    >>> import numpy as np
    >>> from mechanisms import olh_perturb, olh_support_counts
    >>> reports = olh_perturb(np.array([0, 1, 1]), k=4, eps0=2.0, rng=np.random.default_rng(0))
    >>> olh_support_counts(reports, 4).shape
    (4,)
    """
    a, b, y, g = reports
    k = _check_int("k", k, 2)
    if len(a) * k > MAX_CELLS:
        raise ValueError(f"n x k must be <= {MAX_CELLS:.0e} for OLH support counting, got {len(a) * k}")
    P = _prime_above(k)
    out = np.zeros(k, dtype=np.int64)
    for j in range(k):
        out[j] = np.count_nonzero(((a * j + b) % P) % g == y)
    return out


def estimate_counts(support: np.ndarray, n: int, p: float, q: float) -> np.ndarray:
    """The unbiased count estimates (C_j - n q)/(p - q).

    Parameters
    ----------
    support : array_like
        Support counts ``C_j``.
    n : int
        Number of users.
    p, q : float
        The oracle's rates (:func:`oue_rates`, :func:`olh_rates`).

    Returns
    -------
    numpy.ndarray
        Unbiased estimates of the counts.

    Examples
    --------
    >>> import numpy as np
    >>> from mechanisms import estimate_counts
    >>> estimate_counts(np.array([600, 400]), n=1000, p=0.5, q=0.25).tolist()
    [1400.0, 600.0]
    """
    return (np.asarray(support, dtype=float) - n * q) / (p - q)
