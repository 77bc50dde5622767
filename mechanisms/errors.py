"""Exact error formulas for the Collision and CoCo mechanisms.

Everything here is a pure, vectorised function of the parameters (``t`` may be an
array; the other arguments broadcast).  Conventions:

* Every MSE is the **sum over coordinates (or over the 2d items)** of the squared
  error of the estimate computed from ``n`` users, i.e. the paper's per-user
  quantity divided by ``n`` (the paper's Figure 5 is the case ``n = 1``).
* The hash functions are modelled as in the paper's analysis (proof of Theorem 4,
  Section 7.1): each user draws ``H`` uniformly from *all* functions
  ``Y -> [t]`` (Collision) or all pairs ``H1 : [d] -> [t/2]``, ``H2 : [d] -> {-1, 1}``
  (CoCo), independently of the other users.  The concrete SplitMix64 family in
  :mod:`mechanisms.collision` is a pseudo-random stand-in for this model (see
  :func:`mechanisms.collision.splitmix64`), and the test-suite checks the
  simulations against the formulas below.
* Every user holds exactly ``s`` non-zero coordinates (the domain ``X_s`` of
  Section 2.1).  Under this model the *totals* below do not depend on the data;
  the per-coordinate variances depend on the data only through the counts
  ``c_y = #{i : y in Y_{x_i}}`` (``*_from_counts`` functions).

Derivations (all exact under the model above; each was checked by brute-force
enumeration over all hash functions and outputs, see ``tests/test_mech_*.py``)
-------------------------------------------------------------------------------
Collision (Definition 5), ``E = e^eps0``, ``Omega = s E + t - s``:

* ``P[H(y) = z] = p = E / Omega`` for ``y in Y_x`` *exactly*, also when hash values
  of ``Y_x`` coincide: every value of ``H(Y_x)`` carries probability ``E/Omega``,
  the redistribution of Definition 5 only touches values outside ``H(Y_x)``.
* ``P[H(y) = z] = q = 1/t`` for ``y not in Y_x``: ``z`` depends on ``H`` only
  through ``H|Y_x``, and ``H(y)`` is uniform and independent of it.
* Covariance of the two indicators of one coordinate (``A = [H(j+) = z]``,
  ``B = [H(j-) = z]``).  At most one of ``j+, j-`` is in ``Y_x``; say not ``j-``.
  Then ``H(j-)`` is independent of ``(H|Y_x, z, H(j+))`` so
  ``P[A and B] = P[A] / t = E[A] E[B]``: the covariance is **exactly 0** in all
  three cases (hash collisions ``H(j+) = H(j-)`` do happen, with probability
  ``1/t``, but they are exactly compensated).  Hence

  ``Var[mean_j] = Var[nonmissing_j] = Var[item j+] + Var[item j-]`` and, summed over
  coordinates, **all three totals are equal**:

  ``MSE = (s p (1-p) + (2d - s) q (1-q)) / (n (p - q)^2)``.

  The proof of Theorem 4 bounds the mean MSE with ``Var(a - b) <= 2 Var a + 2 Var b``,
  i.e. by twice this value (:func:`collision_mean_mse_paper_bound`).

CoCo (Algorithms 1 and 2, Section 7), ``Omega = (E + 1) s + t - 2s``:

* ``P_ow = 1 - (1/s) sum_{k=1}^{s} (1 - 2/t)^{s-k}`` (equation (7)), exact: entry ``j``
  is overwritten iff one of the entries after it in the random order has the same
  ``H1``; the ``s`` entries are distinct coordinates so their ``H1`` are independent.
* ``Pt``, ``Po`` as in Section 7.2 and ``Pf = 1/t`` are exact (when overwritten the
  ``e^eps`` weight sits on ``H(jb)`` with probability 1/2 because ``H2`` of the
  overwriting coordinate is independent and uniform).
* Because ``H(j+) != H(j-)`` always, ``[H(j+) = z] + [H(j-) = z]`` is Bernoulli and
  ``[H(j+) = z] - [H(j-) = z]`` is three-valued, so Lemma 3's equations (8) and (9)
  are **exact** (not bounds) once divided by ``n``.
* The item estimators are ``(N +/- M) / 2`` (the unique unbiased linear solution of
  Table 2); per user ``Cov(N, M) = (Var A - Var B) / (a_N a_M)`` cancels in the sum,
  so ``MSE_item = (MSE_nonmissing + MSE_mean) / 2``.

References
----------
Wang et al., "Differentially Private Numerical Vector Analyses in the Local and
Shuffle Model": Definition 5, Theorem 4, Section 7.1, equation (7), Lemma 3
(equations (8), (9)), Theorem 7, Figure 5.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from accountant.params import coco_theorem7_t, collision_paper_t

#: Largest output-domain size supported (hash range tables use 64-bit arithmetic).
T_MAX = 2**31 - 1


class MSE(NamedTuple):
    """Sum-over-coordinates mean squared errors of the three estimators.

    item : sum over the 2d items ``jb`` of the squared error of ``[jb in Y_x]`` averages.
    mean : sum over the d coordinates of the squared error of the mean estimate.
    nonmissing : sum over the d coordinates of the squared error of the
        non-missing frequency estimate.
    """

    item: float | np.ndarray
    mean: float | np.ndarray
    nonmissing: float | np.ndarray


# --------------------------------------------------------------------------- helpers
def _check_eps0(eps0) -> float:
    if isinstance(eps0, bool) or not isinstance(eps0, (int, float, np.integer, np.floating)):
        raise ValueError(f"eps0 must be a finite number in (0, 700], got {eps0!r}")
    e = float(eps0)
    if not (math.isfinite(e) and 0.0 < e <= 700.0):
        raise ValueError(f"eps0 must be a finite number in (0, 700], got {eps0!r}")
    return e


def _eps0_values(eps0):
    """A scalar eps0 (as :func:`_check_eps0`) or an array of them (broadcast against t)."""
    if isinstance(eps0, np.ndarray) and eps0.ndim > 0:
        e = eps0.astype(np.float64)
        if not (np.all(np.isfinite(e)) and np.all(e > 0.0) and np.all(e <= 700.0)):
            raise ValueError(f"eps0 must be finite numbers in (0, 700], got {eps0!r}")
        return e
    return _check_eps0(eps0)


def _check_int(name: str, value, lo: int, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        rng = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
        raise ValueError(f"{name} must be an integer {rng}, got {value!r}")
    v = int(value)
    if v < lo or (hi is not None and v > hi):
        rng = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
        raise ValueError(f"{name} must be an integer {rng}, got {v}")
    return v


def _t_array(t, name: str = "t") -> np.ndarray:
    ta = np.asarray(t)
    if ta.dtype.kind not in "iu":
        if ta.dtype.kind == "f" and np.all(np.isfinite(ta)) and np.all(ta == np.round(ta)):
            ta = ta.astype(np.int64)
        else:
            raise ValueError(f"{name} must be integer-valued, got {t!r}")
    return ta.astype(np.float64)


def _check_collision_t(t, s: int) -> np.ndarray:
    ta = _t_array(t)
    if np.any(ta <= s) or np.any(ta > T_MAX):
        raise ValueError(f"t must be an integer with s < t <= {T_MAX} (s = {s}), got {t!r}")
    return ta


def _check_coco_t(t, s: int) -> np.ndarray:
    ta = _t_array(t)
    if np.any(ta % 2 != 0) or np.any(ta < 2 * s + 2) or np.any(ta > T_MAX):
        raise ValueError(
            f"t must be an even integer with 2s + 2 = {2 * s + 2} <= t <= {T_MAX - 1}, got {t!r}"
        )
    return ta


def check_coco_t(t, s: int) -> int:
    """Validate a scalar CoCo ``t``: even integer, ``2s + 2 <= t <= T_MAX - 1`` (Algorithm 1)."""
    msg = f"t must be an even integer with 2s + 2 = {2 * s + 2} <= t <= {T_MAX - 1}, got {t!r}"
    if isinstance(t, bool) or not isinstance(t, (int, np.integer)):
        raise ValueError(msg)
    t = int(t)
    if t % 2 or t < 2 * s + 2 or t > T_MAX - 1:
        raise ValueError(msg)
    return t


def _scalar(x):
    x = np.asarray(x)
    return float(x) if x.ndim == 0 else x


# --------------------------------------------------------------------------- choices of t
def collision_t_star(s: int, eps0: float) -> int:
    """The paper's choice ``t* = floor(s e^eps0 + 2s - 1)`` for Collision.

    Proof of Theorem 4 ("approximate optimal t* at around 2s - 1 + s e^eps"), and the
    caption of Figure 2.  Always ``> s``.  Raises ValueError if it exceeds ``T_MAX``.
    """
    s = _check_int("s", s, 1)
    e = _check_eps0(eps0)
    val = s * math.exp(e) + 2 * s - 1
    if not val < T_MAX + 1:
        raise ValueError(
            f"eps0 = {eps0} with s = {s} gives a default t = floor(s e^eps0 + 2s - 1) above "
            f"{T_MAX}; use a smaller eps0 or pass t explicitly"
        )
    return collision_paper_t(s, e)


def _even_at_least(x: float) -> int:
    c = int(math.ceil(x))
    return c + (c % 2)


def coco_t_default(s: int, eps0: float) -> int:
    """CoCo default t: smallest even integer ``>= ceil(s e^eps0 + s + 2)``.

    Theorem 7, equation (11) (the mean estimator; Appendix D).  Algorithm 1 needs
    ``t`` even, so the paper's value is rounded up to the next even integer.
    """
    s = _check_int("s", s, 1)
    e = _check_eps0(eps0)
    val = s * math.exp(e) + s + 2
    if not val < T_MAX - 2:
        raise ValueError(
            f"eps0 = {eps0} with s = {s} gives a default t = ceil(s e^eps0 + s + 2) above "
            f"{T_MAX - 1}; use a smaller eps0 or pass t explicitly"
        )
    return coco_theorem7_t(s, e)


def coco_t_nonmissing(s: int, eps0: float) -> int:
    """CoCo t for the non-missing estimator: smallest even integer ``>= ceil(s e^eps0 + 5s)``.

    Theorem 7, equation (10) (the non-missing frequency estimator, Appendix D).
    """
    s = _check_int("s", s, 1)
    e = _check_eps0(eps0)
    val = s * math.exp(e) + 5 * s
    if not val < T_MAX - 2:
        raise ValueError(f"eps0 = {eps0} with s = {s} gives t above {T_MAX - 1}")
    return max(_even_at_least(val), 2 * s + 2)


# --------------------------------------------------------------------------- Collision
def collision_rates(s: int, eps0: float, t):
    """True / false / opposite collision rates of Collision (Section 7.1).

    Returns ``(Pt, Pf, Po)`` with ``Pt = e^eps0 / Omega``, ``Pf = Po = 1/t``,
    ``Omega = s e^eps0 + t - s`` (Definition 5).  Exact for a uniformly random hash
    function, including when the hash values of ``Y_x`` coincide.
    """
    s = _check_int("s", s, 1)
    e = _check_eps0(eps0)
    ta = _check_collision_t(t, s)
    E = math.exp(e)
    omega = s * E + ta - s
    pt = E / omega
    pf = 1.0 / ta
    return _scalar(pt), _scalar(pf), _scalar(pf)


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
    s = _check_int("s", s, 1)
    e = _check_eps0(eps0)
    ta = _check_collision_t(t, s)
    v_in, v_out = _collision_core(s, e, ta)
    return _scalar(v_in), _scalar(v_out)


def collision_pair_covariance(s: int, eps0: float, t):
    """Per-user covariance of the estimators of ``[j+ in Y_x]`` and ``[j- in Y_x]``.

    Exactly zero in every case (``j+ in Y_x``, ``j- in Y_x``, neither) under a
    uniformly random hash: ``P[H(j+) = H(j-) = z] = P[H(j+) = z] P[H(j-) = z]`` because
    the item outside ``Y_x`` has a hash independent of ``(H|Y_x, z)`` and of the other
    item's hash.  Returned as an array of zeros of ``t``'s shape for use in formulas;
    verified against enumeration over all hash functions in the tests.
    """
    s = _check_int("s", s, 1)
    _check_eps0(eps0)
    ta = _check_collision_t(t, s)
    return _scalar(np.zeros_like(ta))


def collision_mse(n: int, d: int, s: int, eps0: float, t) -> MSE:
    """Exact MSEs of Collision's three estimators (sum over coordinates / items).

    ``eps0`` may be an array broadcast against ``t`` (the planner's trade-off curve).

    ``item = mean = nonmissing = (s p(1-p) + (2d - s) q(1-q)) / (n (p-q)^2)``;
    exact for every dataset in ``X_s`` (the total does not depend on the data; see
    the module docstring for the derivation, including the zero covariance that makes
    the mean and non-missing totals equal to the item total).
    """
    n = _check_int("n", n, 1)
    d = _check_int("d", d, 1)
    s = _check_int("s", s, 1, d)
    e = _eps0_values(eps0)
    ta = _check_collision_t(t, s)
    v_in, v_out = _collision_core(s, e, ta)
    tot = (s * v_in + (2 * d - s) * v_out) / n
    tot = _scalar(tot)
    return MSE(item=tot, mean=tot, nonmissing=tot)


def collision_mean_mse_paper_bound(n: int, d: int, s: int, eps0: float, t):
    """The bound of the proof of Theorem 4: ``2 (s p(1-p) + (2d-s) q(1-q)) / (n (p-q)^2)``.

    It comes from ``Var(a - b) <= 2 Var a + 2 Var b``; the exact value
    (:func:`collision_mse`) is half of it because the covariance is zero.
    """
    return 2.0 * collision_mse(n, d, s, eps0, t).mean


class CoordinateVariances(NamedTuple):
    """Per-coordinate / per-item variances for a given dataset and their sums."""

    item: np.ndarray  # (2d,)
    mean: np.ndarray  # (d,)
    nonmissing: np.ndarray  # (d,)

    def totals(self) -> MSE:
        return MSE(
            item=float(self.item.sum()), mean=float(self.mean.sum()),
            nonmissing=float(self.nonmissing.sum()),
        )


def _counts(item_counts, n: int) -> tuple[np.ndarray, np.ndarray]:
    c = np.asarray(item_counts, dtype=np.float64)
    if c.ndim != 1 or c.size % 2 or c.size == 0:
        raise ValueError("item_counts must be a 1-D array of even length 2d")
    if np.any(c < 0) or np.any(c > n):
        raise ValueError(f"item_counts must lie in [0, n] = [0, {n}]")
    cj = c[0::2] + c[1::2]
    if np.any(cj > n):
        raise ValueError("item_counts: c(j+) + c(j-) must be <= n")
    return c, cj


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
    n = _check_int("n", n, 1)
    c, cj = _counts(item_counts, n)
    v_in, v_out = collision_indicator_variances(s, eps0, t)
    item = (c * v_in + (n - c) * v_out) / n**2
    mean = (cj * (v_in + v_out) + (n - cj) * 2 * v_out) / n**2
    return CoordinateVariances(item=item, mean=mean, nonmissing=mean.copy())


# --------------------------------------------------------------------------- CoCo
def coco_overwrite_probability(s: int, t):
    """``P_ow`` of equation (7): ``1 - (t^s - (t-2)^s) / (2 t^(s-1) s)``.

    Evaluated as ``1 - t/(2s) * (1 - (1 - 2/t)^s)`` with ``expm1``/``log1p``.  Exact for
    uniformly random ``H1`` and a uniformly random order of ``Y_x`` (Algorithm 1 line 5).
    """
    s = _check_int("s", s, 1)
    ta = _t_array(t)
    if np.any(ta < 2 * s + 2):
        raise ValueError(f"t must be >= 2s + 2 = {2 * s + 2}, got {t!r}")
    one_minus = -np.expm1(s * np.log1p(-2.0 / ta))  # 1 - (1 - 2/t)^s
    return _scalar(1.0 - ta / (2.0 * s) * one_minus)


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
    s = _check_int("s", s, 1)
    e = _check_eps0(eps0)
    ta = _check_coco_t(t, s)
    E = math.exp(e)
    omega = (E + 1) * s + ta - 2 * s
    pow_ = np.asarray(coco_overwrite_probability(s, ta.astype(np.int64)))
    pt = pow_ * (E + 1) / (2 * omega) + (1 - pow_) * E / omega
    po = pow_ * (E + 1) / (2 * omega) + (1 - pow_) / omega
    pf = 1.0 / ta
    return CoCoRates(_scalar(pt), _scalar(pf), _scalar(po), _scalar(pow_))


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
    s = _check_int("s", s, 1)
    e = _check_eps0(eps0)
    ta = _check_coco_t(t, s)
    vn1, vn0, vm1, vm0, cov1 = _coco_core(s, e, ta)
    return {
        "nonmissing_nonzero": _scalar(vn1), "nonmissing_zero": _scalar(vn0),
        "mean_nonzero": _scalar(vm1), "mean_zero": _scalar(vm0), "cov_nm_plus": _scalar(cov1),
    }


def coco_mse(n: int, d: int, s: int, eps0: float, t) -> MSE:
    """Exact MSEs of CoCo (Lemma 3, equations (8) and (9), divided by ``n``).

    ``eps0`` may be an array broadcast against ``t`` (the planner's trade-off curve).

    ``nonmissing = (s (Pt+Po)(1-Pt-Po) + (d-s) 2Pf(1-2Pf)) / (n (Pt+Po-2Pf)^2)`` (8),
    ``mean = (s ((Pt+Po) - (Pt-Po)^2) + (d-s) 2Pf) / (n (Pt-Po)^2)`` (9),
    ``item = (nonmissing + mean) / 2`` (item estimators ``(N +/- M)/2``).
    Exact for every dataset in ``X_s`` (totals are data-independent).  Equations (8)
    and (9) were found exact by enumeration; the paper states them for ``n = 1``.
    """
    n = _check_int("n", n, 1)
    d = _check_int("d", d, 1)
    s = _check_int("s", s, 1, d)
    e = _eps0_values(eps0)
    ta = _check_coco_t(t, s)
    vn1, vn0, vm1, vm0, _ = _coco_core(s, e, ta)
    nm = (s * vn1 + (d - s) * vn0) / n
    mean = (s * vm1 + (d - s) * vm0) / n
    return MSE(item=_scalar((nm + mean) / 2), mean=_scalar(mean), nonmissing=_scalar(nm))


def coco_variances_from_counts(n: int, s: int, eps0: float, t: int, item_counts):
    """Exact variance of every CoCo estimate for a dataset given by its counts.

    ``Var[nonmissing_j] = (c_j vn1 + (n - c_j) vn0)/n^2``,
    ``Var[mean_j] = (c_j vm1 + (n - c_j) vm0)/n^2``, and for the item estimate
    ``(N_j +/- M_j)/2`` of ``j+`` (resp. ``j-``):
    ``(c_{same} (vn1+vm1+2C) + c_{opp} (vn1+vm1-2C) + (n - c_j)(vn0+vm0)) / (4 n^2)``
    where ``C`` is ``cov_nm_plus`` of :func:`coco_estimator_variances`.
    """
    n = _check_int("n", n, 1)
    c, cj = _counts(item_counts, n)
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


# --------------------------------------------------------------------------- optimum t
_ESTIMATORS = ("mean", "nonmissing", "item")


def _mse_fn(mechanism: str):
    if mechanism == "collision":
        return collision_mse
    if mechanism == "coco":
        return coco_mse
    raise ValueError(f"mechanism must be 'collision' or 'coco', got {mechanism!r}")


def optimal_t(mechanism: str, estimator: str, d: int, s: int, eps0: float,
              t_max: int | None = None) -> tuple[int, float]:
    """Integer ``t`` minimising the exact MSE of one estimator (``n = 1``).

    Exhaustive search over the admissible integers (Collision: ``s < t``; CoCo: even
    ``t >= 2s + 2``) up to ``t_max`` (default: ``max(4 (s e^eps0 + 5s), 64) + 64``,
    doubled while the minimum sits on the upper end).  When the range would exceed
    4 million candidates, the search is a bounded scalar minimisation in ``log t``
    followed by an exhaustive scan of +-2000 admissible integers around it.

    Returns ``(t_opt, mse_at_t_opt)`` with the MSE for ``n = 1``.
    """
    fn = _mse_fn(mechanism)
    if estimator not in _ESTIMATORS:
        raise ValueError(f"estimator must be one of {_ESTIMATORS}, got {estimator!r}")
    d = _check_int("d", d, 1)
    s = _check_int("s", s, 1, d)
    e = _check_eps0(eps0)
    lo = s + 1 if mechanism == "collision" else 2 * s + 2
    step = 1 if mechanism == "collision" else 2
    cap = T_MAX if mechanism == "collision" else T_MAX - 1

    def f(tt):
        return np.asarray(getattr(fn(1, d, s, e, tt), estimator), dtype=np.float64)

    if t_max is None:
        hi = int(min(cap, max(4 * (s * math.exp(min(e, 60.0)) + 5 * s), 64) + 64))
        auto = True
    else:
        hi = _check_int("t_max", t_max, lo, cap)
        auto = False
    while True:
        if (hi - lo) // step + 1 <= 4_000_000:
            grid = np.arange(lo, hi + 1, step, dtype=np.int64)
            vals = f(grid)
            k = int(np.nanargmin(vals))
            if auto and k == grid.size - 1 and hi < cap:
                hi = min(cap, 2 * hi)
                continue
            return int(grid[k]), float(vals[k])
        # very large range: continuous search in log t, then exhaustive window
        from scipy.optimize import minimize_scalar

        def g(logt):
            tt = int(round(math.exp(logt)))
            tt = max(lo, min(hi, tt - ((tt - lo) % step)))
            return float(f(np.array([tt]))[0])

        res = minimize_scalar(g, bounds=(math.log(lo), math.log(hi)), method="bounded")
        c = int(round(math.exp(res.x)))
        c = c - ((c - lo) % step)
        a = max(lo, c - 2000 * step)
        b = min(hi, c + 2000 * step)
        grid = np.arange(a, b + 1, step, dtype=np.int64)
        vals = f(grid)
        k = int(np.nanargmin(vals))
        return int(grid[k]), float(vals[k])


# --------------------------------------------------------------------------- one-stop
def analytic_errors(mechanism: str, n: int, d: int, s: int, eps0: float, t: int | None = None) -> dict:
    """Exact errors and collision rates of Collision or CoCo, for the dashboard / CLI.

    Returns a dict with ``mechanism, n, d, s, eps0, t, t_source, mse_mean,
    mse_nonmissing, mse_item, Pt, Pf, Po, P_ow, data_model`` and, for Collision,
    ``mse_mean_paper_bound`` (Theorem 4 proof).  ``P_ow`` is ``None`` for Collision
    (it has no overwrite step).  The MSEs are exact for *every* dataset of ``n``
    users in ``X_s`` (``data_model`` says so): the sums over coordinates do not
    depend on the data.  ``t=None`` uses the paper's choice (``t*`` for Collision,
    Theorem 7 (11) for CoCo).
    """
    n = _check_int("n", n, 1)
    d = _check_int("d", d, 1)
    s = _check_int("s", s, 1, d)
    e = _check_eps0(eps0)
    out: dict = {"mechanism": mechanism, "n": n, "d": d, "s": s, "eps0": e}
    if mechanism == "collision":
        if t is None:
            t = collision_t_star(s, e)
            out["t_source"] = "paper t* = floor(s e^eps0 + 2s - 1)"
        else:
            t = _check_int("t", t, s + 1, T_MAX)
            out["t_source"] = "user"
        m = collision_mse(n, d, s, e, t)
        pt, pf, po = collision_rates(s, e, t)
        out.update(t=int(t), mse_mean=float(m.mean), mse_nonmissing=float(m.nonmissing),
                   mse_item=float(m.item), Pt=float(pt), Pf=float(pf), Po=float(po), P_ow=None,
                   mse_mean_paper_bound=float(collision_mean_mse_paper_bound(n, d, s, e, t)))
    elif mechanism == "coco":
        if t is None:
            t = coco_t_default(s, e)
            out["t_source"] = "Theorem 7 (11): smallest even t >= ceil(s e^eps0 + s + 2)"
        else:
            t = check_coco_t(t, s)
            out["t_source"] = "user"
        m = coco_mse(n, d, s, e, t)
        r = coco_rates(s, e, t)
        out.update(t=int(t), mse_mean=float(m.mean), mse_nonmissing=float(m.nonmissing),
                   mse_item=float(m.item), Pt=float(r.Pt), Pf=float(r.Pf), Po=float(r.Po),
                   P_ow=float(r.P_ow))
    else:
        raise ValueError(f"mechanism must be 'collision' or 'coco', got {mechanism!r}")
    out["data_model"] = ("exact for every dataset of n users with exactly s non-zeros each "
                         "(the summed MSEs are data-independent); uniformly random hashing")
    return out
