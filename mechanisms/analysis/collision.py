"""The exact error of Collision: report rates, indicator variances and pair covariances, the
MSE of its estimators, the paper's bound on the mean MSE, variances from item counts.
"""
from __future__ import annotations
import math
import numpy as np
from mechanisms.analysis.common import CoordinateVariances, MSE, check_collision_t_array, check_eps0, check_int, counts_from_items, eps0_values, as_scalar


# --------------------------------------------------------------------------- Collision
def collision_rates(s: int, eps0: float, t):
    """True / false / opposite collision rates of Collision (Section 7.1).

    Returns ``(Pt, Pf, Po)`` with ``Pt = e^eps0 / Omega``, ``Pf = Po = 1/t``,
    ``Omega = s e^eps0 + t - s`` (Definition 5).  Exact for a uniformly random hash
    function, including when the hash values of ``Y_x`` coincide.
    """
    s = check_int("s", s, 1)
    e = check_eps0(eps0)
    ta = check_collision_t_array(t, s)
    E = math.exp(e)
    omega = s * E + ta - s
    pt = E / omega
    pf = 1.0 / ta
    return as_scalar(pt), as_scalar(pf), as_scalar(pf)


def _collision_core(s, e, ta):
    E = np.exp(e)
    omega = s * E + ta - s
    p = E / omega
    q = 1.0 / ta
    gap = (ta - s) * np.expm1(e) / (ta * omega)  # p - q without cancellation
    v_in = p * (1 - p) / gap**2
    v_out = q * (1 - q) / gap**2
    return v_in, v_out


def collision_indicator_variances(s: int, eps0: float, t):
    """Per-user variances of the unbiased indicator estimator of Definition 5.

    ``v_in = p(1-p)/(p-q)^2`` when ``y in Y_x``, ``v_out = q(1-q)/(p-q)^2`` otherwise,
    ``p = e^eps0/Omega``, ``q = 1/t`` (proof of Theorem 4).  Returns ``(v_in, v_out)``.
    """
    s = check_int("s", s, 1)
    e = check_eps0(eps0)
    ta = check_collision_t_array(t, s)
    v_in, v_out = _collision_core(s, e, ta)
    return as_scalar(v_in), as_scalar(v_out)


def collision_pair_covariance(s: int, eps0: float, t):
    """Per-user covariance of the estimators of ``[j+ in Y_x]`` and ``[j- in Y_x]``.

    Exactly zero in every case (``j+ in Y_x``, ``j- in Y_x``, neither) under a
    uniformly random hash: ``P[H(j+) = H(j-) = z] = P[H(j+) = z] P[H(j-) = z]`` because
    the item outside ``Y_x`` has a hash independent of ``(H|Y_x, z)`` and of the other
    item's hash.  Returned as an array of zeros of ``t``'s shape for use in formulas;
    verified against enumeration over all hash functions in the tests.
    """
    s = check_int("s", s, 1)
    check_eps0(eps0)
    ta = check_collision_t_array(t, s)
    return as_scalar(np.zeros_like(ta))


def collision_mse(n: int, d: int, s: int, eps0: float, t) -> MSE:
    """Exact MSEs of Collision's three estimators (sum over coordinates / items).

    ``eps0`` may be an array broadcast against ``t`` (the planner's trade-off curve).

    ``item = mean = nonmissing = (s p(1-p) + (2d - s) q(1-q)) / (n (p-q)^2)``;
    exact for every dataset in ``X_s`` (the total does not depend on the data; see
    the module docstring for the derivation, including the zero covariance that makes
    the mean and non-missing totals equal to the item total).

    Parameters
    ----------
    n : int
        Number of users (>= 1).
    d : int
        Dimension (>= 1).
    s : int
        Non-zero coordinates per user, in [1, d].
    eps0 : float or array_like
        Local budget (> 0); an array broadcasts against ``t``.
    t : int or array_like
        Output size(s), ``t > s``.

    Returns
    -------
    MSE
        ``(item, mean, nonmissing)``, sums over items / coordinates, arrays when ``t`` or
        ``eps0`` is one.

    References
    ----------
    Wang et al., "Differentially Private Numerical Vector Analyses in the Local and Shuffle
    Model", Definition 5 and Theorem 4.

    Examples
    --------
    >>> import numpy as np
    >>> from mechanisms import collision_mse
    >>> m = collision_mse(n=10_000, d=64, s=4, eps0=2.0, t=np.array([20, 36, 60]))
    >>> np.round(m.mean, 5).tolist()
    [0.05111, 0.04431, 0.04833]
    """
    n = check_int("n", n, 1)
    d = check_int("d", d, 1)
    s = check_int("s", s, 1, d)
    e = eps0_values(eps0)
    ta = check_collision_t_array(t, s)
    v_in, v_out = _collision_core(s, e, ta)
    tot = (s * v_in + (2 * d - s) * v_out) / n
    tot = as_scalar(tot)
    return MSE(item=tot, mean=tot, nonmissing=tot)


def collision_mean_mse_paper_bound(n: int, d: int, s: int, eps0: float, t):
    """The bound of the proof of Theorem 4: ``2 (s p(1-p) + (2d-s) q(1-q)) / (n (p-q)^2)``.

    It comes from ``Var(a - b) <= 2 Var a + 2 Var b``; the exact value
    (:func:`collision_mse`) is half of it because the covariance is zero.
    """
    return 2.0 * collision_mse(n, d, s, eps0, t).mean


def collision_variances_from_counts(n: int, s: int, eps0: float, t: int, item_counts):
    """Exact variance of every Collision estimate for a dataset given by its counts.

    Parameters
    ----------
    n : number of users.
    item_counts : (2d,) array, ``c_y = #{i : y in Y_{x_i}}`` (``n * data.item_frequencies()``).

    Returns
    -------
    CoordinateVariances with
    ``Var[item_y] = (c_y v_in + (n - c_y) v_out) / n^2`` and
    ``Var[mean_j] = Var[nonmissing_j] = (c_j (v_in + v_out) + (n - c_j) 2 v_out) / n^2``,
    ``c_j = c_{j+} + c_{j-}`` (zero covariance, see module docstring).
    """
    n = check_int("n", n, 1)
    c, cj = counts_from_items(item_counts, n)
    v_in, v_out = collision_indicator_variances(s, eps0, t)
    item = (c * v_in + (n - c) * v_out) / n**2
    mean = (cj * (v_in + v_out) + (n - cj) * 2 * v_out) / n**2
    return CoordinateVariances(item=item, mean=mean, nonmissing=mean.copy())
