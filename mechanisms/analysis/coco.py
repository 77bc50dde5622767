"""The exact error of CoCo: report rates, the overwrite probability, estimator variances and the
MSE of the mean, non-missing and item estimators, from parameters or from item counts.
"""
from __future__ import annotations
import math
from typing import NamedTuple
import numpy as np
from mechanisms.analysis.common import CoordinateVariances, MSE, check_coco_t_array, check_eps0, check_int, counts_from_items, eps0_values, as_scalar, t_array


# --------------------------------------------------------------------------- CoCo
def coco_overwrite_probability(s: int, t):
    """``P_ow`` of equation (7): ``1 - (t^s - (t-2)^s) / (2 t^(s-1) s)``.

    Evaluated as ``1 - t/(2s) * (1 - (1 - 2/t)^s)`` with ``expm1``/``log1p``.  Exact for
    uniformly random ``H1`` and a uniformly random order of ``Y_x`` (Algorithm 1 line 5).
    """
    s = check_int("s", s, 1)
    ta = t_array(t)
    if np.any(ta < 2 * s + 2):
        raise ValueError(f"t must be >= 2s + 2 = {2 * s + 2}, got {t!r}")
    one_minus = -np.expm1(s * np.log1p(-2.0 / ta))  # 1 - (1 - 2/t)^s
    return as_scalar(1.0 - ta / (2.0 * s) * one_minus)


class CoCoRates(NamedTuple):
    """Collision rates of CoCo (Section 7.2): true, false, opposite, overwrite."""

    Pt: float | np.ndarray
    Pf: float | np.ndarray
    Po: float | np.ndarray
    P_ow: float | np.ndarray


def coco_rates(s: int, eps0: float, t) -> CoCoRates:
    """``Pt, Pf, Po, P_ow`` of CoCo (Section 7.2, equation (7)).

    ``Pt = P_ow (E+1)/(2 Omega) + (1 - P_ow) E/Omega``,
    ``Po = P_ow (E+1)/(2 Omega) + (1 - P_ow)/Omega``, ``Pf = 1/t``,
    ``Omega = (E + 1) s + t - 2 s`` (Algorithm 1 line 13; the prose's
    ``s(eps + 1) + (t - 2s)`` is a slip).  Exact; checked by enumeration.
    """
    s = check_int("s", s, 1)
    e = check_eps0(eps0)
    ta = check_coco_t_array(t, s)
    E = math.exp(e)
    omega = (E + 1) * s + ta - 2 * s
    pow_ = np.asarray(coco_overwrite_probability(s, ta.astype(np.int64)))
    pt = pow_ * (E + 1) / (2 * omega) + (1 - pow_) * E / omega
    po = pow_ * (E + 1) / (2 * omega) + (1 - pow_) / omega
    pf = 1.0 / ta
    return CoCoRates(as_scalar(pt), as_scalar(pf), as_scalar(po), as_scalar(pow_))


def _coco_core(s, e, ta):
    E = np.exp(e)
    em1 = np.expm1(e)
    omega = (E + 1) * s + ta - 2 * s
    pow_ = 1.0 - ta / (2.0 * s) * (-np.expm1(s * np.log1p(-2.0 / ta)))
    pt = pow_ * (E + 1) / (2 * omega) + (1 - pow_) * E / omega
    po = pow_ * (E + 1) / (2 * omega) + (1 - pow_) / omega
    pf = 1.0 / ta
    splus = (E + 1) / omega  # Pt + Po
    a_n = (ta - 2 * s) * em1 / (ta * omega)  # Pt + Po - 2 Pf
    a_m = (1 - pow_) * em1 / omega  # Pt - Po
    vn1 = splus * (1 - splus) / a_n**2
    vn0 = 2 * pf * (1 - 2 * pf) / a_n**2
    vm1 = (splus - a_m**2) / a_m**2
    vm0 = 2 * pf / a_m**2
    cov1 = (pt * (1 - pt) - po * (1 - po)) / (a_n * a_m)  # Cov(N, M) when j+ in Y_x
    return vn1, vn0, vm1, vm0, cov1


def coco_estimator_variances(s: int, eps0: float, t) -> dict:
    """Per-user variances of Algorithm 2's estimators (Appendix C), exact.

    Keys: ``nonmissing_nonzero = (Pt+Po)(1-Pt-Po)/(Pt+Po-2Pf)^2``,
    ``nonmissing_zero = 2Pf(1-2Pf)/(Pt+Po-2Pf)^2``,
    ``mean_nonzero = ((Pt+Po) - (Pt-Po)^2)/(Pt-Po)^2``, ``mean_zero = 2Pf/(Pt-Po)^2``,
    ``cov_nm_plus = Cov(N, M)`` when ``j+ in Y_x`` (its negative when ``j- in Y_x``,
    0 when ``x_j = 0``).
    """
    s = check_int("s", s, 1)
    e = check_eps0(eps0)
    ta = check_coco_t_array(t, s)
    vn1, vn0, vm1, vm0, cov1 = _coco_core(s, e, ta)
    return {
        "nonmissing_nonzero": as_scalar(vn1), "nonmissing_zero": as_scalar(vn0),
        "mean_nonzero": as_scalar(vm1), "mean_zero": as_scalar(vm0), "cov_nm_plus": as_scalar(cov1),
    }


def coco_mse(n: int, d: int, s: int, eps0: float, t) -> MSE:
    """Exact MSEs of CoCo (Lemma 3, equations (8) and (9), divided by ``n``).

    ``eps0`` may be an array broadcast against ``t`` (the planner's trade-off curve).

    ``nonmissing = (s (Pt+Po)(1-Pt-Po) + (d-s) 2Pf(1-2Pf)) / (n (Pt+Po-2Pf)^2)`` (8),
    ``mean = (s ((Pt+Po) - (Pt-Po)^2) + (d-s) 2Pf) / (n (Pt-Po)^2)`` (9),
    ``item = (nonmissing + mean) / 2`` (item estimators ``(N +/- M)/2``).
    Exact for every dataset in ``X_s`` (totals are data-independent).  Equations (8)
    and (9) were found exact by enumeration; the paper states them for ``n = 1``.

    Parameters
    ----------
    n, d, s, eps0 :
        As :func:`mechanisms.analysis.collision_mse` (``eps0`` may be an array).
    t : int or array_like
        Output size(s), even and ``>= 2s + 2``.

    Returns
    -------
    MSE
        ``(item, mean, nonmissing)``, sums over items / coordinates.

    References
    ----------
    Wang et al., "Differentially Private Numerical Vector Analyses in the Local and Shuffle
    Model", Algorithms 1 and 2, Lemma 3 (equations (8), (9)).

    Examples
    --------
    >>> from mechanisms import coco_mse
    >>> m = coco_mse(n=10_000, d=64, s=4, eps0=2.0, t=36)
    >>> print(f"{float(m.mean):.5f} {float(m.nonmissing):.5f} {float(m.item):.5f}")
    0.04216 0.05553 0.04885
    """
    n = check_int("n", n, 1)
    d = check_int("d", d, 1)
    s = check_int("s", s, 1, d)
    e = eps0_values(eps0)
    ta = check_coco_t_array(t, s)
    vn1, vn0, vm1, vm0, _ = _coco_core(s, e, ta)
    nm = (s * vn1 + (d - s) * vn0) / n
    mean = (s * vm1 + (d - s) * vm0) / n
    return MSE(item=as_scalar((nm + mean) / 2), mean=as_scalar(mean), nonmissing=as_scalar(nm))


def coco_variances_from_counts(n: int, s: int, eps0: float, t: int, item_counts):
    """Exact variance of every CoCo estimate for a dataset given by its counts.

    ``Var[nonmissing_j] = (c_j vn1 + (n - c_j) vn0)/n^2``,
    ``Var[mean_j] = (c_j vm1 + (n - c_j) vm0)/n^2``, and for the item estimate
    ``(N_j +/- M_j)/2`` of ``j+`` (resp. ``j-``):
    ``(c_{same} (vn1+vm1+2C) + c_{opp} (vn1+vm1-2C) + (n - c_j)(vn0+vm0)) / (4 n^2)``
    where ``C`` is ``cov_nm_plus`` of :func:`coco_estimator_variances`.
    """
    n = check_int("n", n, 1)
    c, cj = counts_from_items(item_counts, n)
    v = coco_estimator_variances(s, eps0, t)
    vn1, vn0 = v["nonmissing_nonzero"], v["nonmissing_zero"]
    vm1, vm0, C = v["mean_nonzero"], v["mean_zero"], v["cov_nm_plus"]
    nm = (cj * vn1 + (n - cj) * vn0) / n**2
    mean = (cj * vm1 + (n - cj) * vm0) / n**2
    cm, cp = c[0::2], c[1::2]
    plus = (cp * (vn1 + vm1 + 2 * C) + cm * (vn1 + vm1 - 2 * C) + (n - cj) * (vn0 + vm0))
    minus = (cm * (vn1 + vm1 + 2 * C) + cp * (vn1 + vm1 - 2 * C) + (n - cj) * (vn0 + vm0))
    item = np.empty(c.size)
    item[0::2] = minus / (4 * n**2)
    item[1::2] = plus / (4 * n**2)
    return CoordinateVariances(item=item, mean=mean, nonmissing=nm)
