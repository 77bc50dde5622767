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
  :mod:`mechanisms.randomizers.collision` is a pseudo-random stand-in for this model (see
  :func:`mechanisms.randomizers.collision.splitmix64`), and the test-suite checks the
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

Exact error formulas of Collision and CoCo (closed forms, vectorised over t).

May import: :mod:`accountant.core`, :mod:`mechanisms.core`.
"""
from mechanisms.analysis.common import (  # noqa: F401
    CoordinateVariances,
    MSE,
    T_MAX,
    check_coco_t,
    coco_t_default,
    coco_t_nonmissing,
    collision_t_star,
)
from mechanisms.analysis.collision import (  # noqa: F401
    collision_indicator_variances,
    collision_mean_mse_paper_bound,
    collision_mse,
    collision_pair_covariance,
    collision_rates,
    collision_variances_from_counts,
)
from mechanisms.analysis.coco import (  # noqa: F401
    CoCoRates,
    coco_estimator_variances,
    coco_mse,
    coco_overwrite_probability,
    coco_rates,
    coco_variances_from_counts,
)
from mechanisms.analysis.errors import (  # noqa: F401
    analytic_errors,
    optimal_t,
)

__all__ = [
    'CoCoRates',
    'CoordinateVariances',
    'MSE',
    'T_MAX',
    'analytic_errors',
    'check_coco_t',
    'coco_estimator_variances',
    'coco_mse',
    'coco_overwrite_probability',
    'coco_rates',
    'coco_t_default',
    'coco_t_nonmissing',
    'coco_variances_from_counts',
    'collision_indicator_variances',
    'collision_mean_mse_paper_bound',
    'collision_mse',
    'collision_pair_covariance',
    'collision_rates',
    'collision_t_star',
    'collision_variances_from_counts',
    'optimal_t',
]
