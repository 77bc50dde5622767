r"""Privacy-blanket amplification bounds (Balle, Bell, Gascon, Nissim, CRYPTO 2019).

Setting and notation ([BBGN19])
-------------------------------
Every local randomizer with output distributions ``mu_x`` is decomposed as

.. math:: \mu_x = (1-\gamma)\,\nu_x + \gamma\,\omega \qquad\text{for all inputs } x,

with a *blanket* distribution ``omega`` that does not depend on ``x`` and blanket
probability ``gamma``.  The paper takes ``omega`` proportional to ``inf_x mu_x``; any
``gamma' <= gamma`` with the same ``omega`` is again a valid decomposition
(``mu_x - gamma' omega >= mu_x - gamma omega >= 0``) and the analysis below only uses the
decomposition, so a lower bound on ``gamma`` may be used.

The *privacy amplification random variable* of a pair of inputs is

.. math:: L^{\varepsilon}_{x,x'} = \frac{\mu_x(W) - e^{\varepsilon}\mu_{x'}(W)}{\omega(W)},
          \qquad W\sim\omega, \qquad \mathbb E[L] = 1 - e^{\varepsilon}.

For neighbouring data sets differing in one user (replacement), conditioning on which of
the other ``n-1`` users sample from the blanket and using joint convexity of the
hockey-stick divergence gives the blanket amplification lemma of [BBGN19]

.. math:: \delta(\varepsilon) \le \sup_{x,x'} \mathbb E_{B\sim\mathrm{Bin}(n-1,\gamma)}
          \Bigl[\tfrac{1}{B+1}\,\mathbb E\bigl(\textstyle\sum_{i=1}^{B+1} L_i\bigr)_+\Bigr]
          = \sup_{x,x'} \frac{1}{\gamma n}\,\mathbb E_{M\sim\mathrm{Bin}(n,\gamma)}
          \Bigl[\mathbb E\bigl(\textstyle\sum_{i=1}^{M} L_i\bigr)_+\Bigr],

(the identity uses ``P[Bin(n-1,g)=m-1] = (m/(g n)) P[Bin(n,g)=m]``), with ``L_i`` i.i.d.
copies of ``L``.  Writing ``a = e^eps - 1`` and ``E(S)_+ = int_0^inf P[S >= s] ds``:

* **Hoeffding** (``L`` has range ``b``): ``P[sum L >= s] <= exp(-2 (s + m a)^2/(m b^2))``;
  dropping ``s^2`` in the square and integrating gives ``b^2/(4a) exp(-2 m a^2/b^2)``, so

  .. math:: \delta \le \frac{b^2}{4 a \gamma n}
            \bigl(1 - \gamma(1 - e^{-2a^2/b^2})\bigr)^n .

  This is the numerical Hoeffding bound of [BBGN19] exactly as implemented in the
  authors' code (``shuffleddp/amplification_bounds.py::Hoeffding``); the binomial is
  handled through its moment generating function, i.e. the ``m = 0`` term is kept.
* **Bennett** (``L <= b_+``, ``E[L^2] <= c``; Bennett's inequality in the form of
  Boucheron-Lugosi-Massart Thm 2.9, which uses the bound on ``L`` itself and the second
  moment), with ``phi(u) = (1+u)log(1+u) - u``, ``alpha = c/b_+^2``, ``beta = a b_+/c``:
  ``P[sum L >= s] <= exp(-m alpha phi(beta + s b_+/(m c)))``; convexity of ``phi``
  (``phi(beta + h) >= phi(beta) + h log(1+beta)``) and integration give

  .. math:: \delta \le \frac{b_+}{\gamma n \log(1+\beta)}
            \sum_{m=1}^{n} \Pr[\mathrm{Bin}(n,\gamma)=m]\, e^{-m\alpha\phi(\beta)}
            = \frac{b_+}{\gamma n \log(1+\beta)}\Bigl[\bigl(1-\gamma(1-e^{-\alpha\phi(\beta)})
            \bigr)^n - (1-\gamma)^n\Bigr].

  This is the authors' ``BennettExact`` expression (expectation over ``m >= 1``),
  evaluated here in closed form instead of by truncated summation.

The paper text itself was not reachable from this workspace's reference corpora; the
expressions above were re-derived here and agree with the authors' code release
(``BorjaBalle/amplification-by-shuffling``).

Any upper bounds ``b >= range(L)``, ``b_+ >= sup L``, ``c >= E[L^2]`` valid for all pairs
``(x, x')`` give valid bounds (Hoeffding's and Bennett's inequalities weaken
monotonically in these parameters), so worst cases over pairs of inputs (and over the
public hash function of the Collision mechanism) may be taken quantity by quantity.

References
----------
.. [BBGN19] B. Balle, J. Bell, A. Gascon, K. Nissim. "The privacy blanket of the shuffle
   model." CRYPTO 2019 (arXiv:1903.02837).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable, Optional

from accountant.bounds.closed_form import (
    validate_n_eps0_delta,
    NO_AMPLIFICATION,
    validate_delta,
    validate_eps0,
    validate_n,
    validate_s_t,
)
from accountant.core.result import BoundResult
from accountant.engines.search import bisect

__all__ = [
    "AmplificationRV",
    "generic_ldp_rv",
    "krr_rv",
    "collision_rv",
    "collision_gamma",
    "blanket_log_delta_hoeffding",
    "blanket_log_delta_bennett",
    "blanket_delta_hoeffding",
    "blanket_delta_bennett",
    "blanket_epsilon",
    "blanket_hoeffding_generic",
    "blanket_bennett_generic",
    "blanket_hoeffding",
    "blanket_bennett",
]

RTOL_EPS = 1e-9
"""Relative tolerance on the reported epsilon of the root find."""

_LOG_DELTA_MARGIN = 1e-9
"""A candidate eps is accepted only if log(delta(eps)) <= log(target) - this margin, so
float rounding in evaluating delta(eps) cannot put the certified delta above target."""


# ---------------------------------------------------------------------------------------
# Quantities of the privacy amplification random variable
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AmplificationRV:
    """Bounds on the privacy amplification random variable ``L^eps`` (worst pair).

    Attributes
    ----------
    gamma : float
        Blanket probability used in the decomposition.
    max_l : float
        ``b_+ >= sup L`` (Bennett).
    min_l : float
        Lower end of the support bound.
    range_l : float
        ``b >= sup L - inf L`` (Hoeffding).
    mean_l : float
        ``E[L] = 1 - e^eps`` (exact for every pair).
    second_moment_l : float
        ``c >= E[L^2]`` (Bennett, BLM form).
    variance_l : float
        ``second_moment_l - mean_l**2`` (>= Var L).
    """

    gamma: float
    max_l: float
    min_l: float
    range_l: float
    mean_l: float
    second_moment_l: float
    variance_l: float


def generic_ldp_rv(eps0: float, eps: float) -> AmplificationRV:
    r"""Generic bounds for an arbitrary ``eps0``-LDP randomizer ([BBGN19]).

    ``gamma = e^{-eps0}`` (for ``omega = inf_x mu_x / gamma`` one has
    ``gamma = int inf_x mu_x >= e^{-eps0}``; the main paper calls ``1 - e^{-eps0}`` the
    "general parameter on total variation similarity").  Since the true ``gamma`` is only
    known to lie in ``[e^{-eps0}, 1]``, ``mu_x/omega = gamma mu_x / inf mu`` lies in
    ``[e^{-eps0}, e^{eps0}]`` and

    * ``L <= e^{eps0} - e^{eps} e^{-eps0} = e^{eps0}(1 - e^{eps - 2 eps0})``,
    * ``L >= e^{-eps0} - e^{eps} e^{eps0}``, so ``range <= (e^{eps}+1)(e^{eps0}-e^{-eps0})``,
    * ``E[L^2] <= e^{eps0}(e^{2eps}+1) - 2 e^{-eps0} e^{eps - 2 eps0}`` (uses
      ``int mu_x^2/omega <= e^{eps0}`` and ``int mu_x mu_x'/omega >= e^{-3 eps0}``).

    These are the generic quantities of the authors' reference implementation
    (``shuffleddp/mechanisms.py::LDPMechanism``: ``get_gamma``, ``get_max_l``,
    ``get_range_l``, ``get_var_l``; the last is a bound on the second moment).
    """
    e0 = math.exp(eps0)
    u = math.exp(eps)
    gamma = math.exp(-eps0)
    max_l = e0 - u / e0
    min_l = 1.0 / e0 - u * e0
    range_l = (u + 1.0) * (e0 - 1.0 / e0)
    mean_l = 1.0 - u
    m2 = e0 * (u * u + 1.0) - 2.0 * gamma * u * math.exp(-2.0 * eps0)
    return AmplificationRV(gamma, max_l, min_l, range_l, mean_l, m2, m2 - mean_l ** 2)


def krr_rv(eps0: float, eps: float, k: int) -> AmplificationRV:
    r"""Exact quantities for k-ary randomized response (``k >= 2``).

    ``P[y|x] = e^{eps0}/(e^{eps0}+k-1)`` if ``y = x`` else ``1/(e^{eps0}+k-1)``;
    ``gamma = k/(e^{eps0}+k-1)``, ``omega`` uniform on ``[k]``.  For ``x != x'``:
    ``L = gamma(E - u)`` w.p. ``1/k``, ``gamma(1 - uE)`` w.p. ``1/k``,
    ``gamma(1 - u)`` w.p. ``(k-2)/k`` (``E = e^{eps0}``, ``u = e^{eps}``), hence
    ``max = gamma(E-u)``, ``range = gamma(E-1)(u+1) = (1-gamma) k (u+1)`` and
    ``E[L^2] = gamma(2-gamma)(u-1)^2 + (1-gamma)^2 k (u^2+1)`` ([BBGN19] code,
    ``RRMechanism``).
    """
    E = math.exp(eps0)
    u = math.exp(eps)
    gamma = k / (E + k - 1.0)
    max_l = gamma * (E - u)
    min_l = gamma * (1.0 - u * E)
    mean_l = 1.0 - u
    m2 = (gamma ** 2 / k) * ((E - u) ** 2 + (1.0 - u * E) ** 2 + (k - 2) * (1.0 - u) ** 2)
    return AmplificationRV(gamma, max_l, min_l, max_l - min_l, mean_l, m2, m2 - mean_l ** 2)


def collision_gamma(eps0: float, s: int, t: int) -> float:
    """Blanket probability ``t / (s e^{eps0} + t - s)`` of the Collision mechanism."""
    return t / (s * math.exp(eps0) + t - s)


def collision_rv(eps0: float, eps: float, s: int, t: int) -> AmplificationRV:
    r"""Exact worst-case quantities of ``L^eps`` for the ``(d, s, eps0, t)``-Collision mechanism.

    Setting.  The output is ``(H, z)`` with the public hash ``H ~ P_H`` and ``z in [t]``;
    given ``H`` and input ``x`` with hashed set ``A = H(Y_x)``, ``k = |A| <= s``:
    ``P[z|x,H] = E/Omega`` on ``A`` and ``(Omega - E k)/((t-k) Omega)`` off ``A``, with
    ``E = e^{eps0}``, ``Omega = s E + t - s`` (main paper, Definition 5; CoCo has the same
    ``Omega``).  Off ``A`` the probability is ``g_k/Omega`` with
    ``g_k = 1 + (s-k)(E-1)/(t-k) in [1, E)``, so every output has probability
    ``>= 1/Omega``.

    Blanket.  ``omega(H, z) = P_H(H)/t`` (hash distribution times uniform on ``[t]``) and
    ``gamma = t/Omega`` give a valid decomposition for every input (``gamma omega =
    P_H/Omega <= mu_x``); it is the exact blanket when ``H`` can be injective on inputs.
    Then ``mu_x/omega = t P[z|x,H] = gamma f_x(z)`` with ``f_x = E`` on ``A`` and ``g_k``
    off ``A``, and

    .. math:: L = \gamma\,(f_x(Z) - u f_{x'}(Z)),\quad Z\sim\mathrm{Unif}[t],\ u=e^{\varepsilon}.

    Worst case over pairs and hash functions.  For a configuration with
    ``k = |A|``, ``k' = |A'|``, ``j = |A cap A'|``:

    .. math:: \mathbb E[L^2\mid H] = \frac{\gamma^2}{t}\bigl[jE^2(1-u)^2
              + (k-j)(E-u g_{k'})^2 + (k'-j)(g_k-uE)^2 + (t-k-k'+j)(g_k-u g_{k'})^2\bigr].

    (i) Its derivative in ``j`` is ``-2u(E-g_k)(E-g_{k'}) <= 0``, so overlap only lowers
    it: ``j = j_0 = max(0, k + k' - t)``.  (ii) The vector ``f`` for ``k < s`` is majorized
    by the one for ``k = s`` (``E`` s times, ``1`` t-s times: same sum ``Omega``, partial
    sums dominate), hence is a doubly-stochastic average of permutations of it; ``E[L^2|H]``
    is a jointly convex function of ``(f_x, f_{x'})``, so its maximum is attained at
    ``k = k' = s``, and by (i) with ``j_0 = max(0, 2s - t)`` (two s-subsets of ``[t]``
    overlap in at least ``2s - t`` outputs).  Since ``f in [1, E]`` pointwise,
    ``sup L = gamma(E - u)`` (``z in A minus A'``, ``k' = s``) and
    ``inf L = gamma(1 - uE)``; both are attained by the same configuration with
    ``k = k' = s``, ``A != A'``.  Therefore

    * ``gamma = t/Omega``, ``max L = gamma (e^{eps0} - e^{eps})``,
    * ``range L = gamma (e^{eps0} - 1)(e^{eps} + 1)``,
    * ``E[L^2] = (gamma^2/t)[j_0 E^2 (1-u)^2 + (s-j_0)((E-u)^2 + (1-uE)^2)
      + (t - 2s + j_0)(1-u)^2]``, ``Var L = E[L^2] - (1-u)^2``,

    and the mixture over ``H`` never exceeds these (``E[L^2] = E_H E[L^2|H]``).  For
    ``s = 1`` these coincide with t-ary randomized response (:func:`krr_rv` with
    ``k = t``).

    CoCo (main paper, Section 7.2, Algorithm 1; ``t`` even, ``t >= 2s + 2``).  Given
    ``(H1, H2)`` its relative weights are ``E`` and ``1`` on ``m <= s`` bucket pairs and
    ``w_m = 1 + (s-m)(E-1)/(t-2m) >= 1`` elsewhere, with the same ``Omega``; this weight
    vector is again majorized by ``(E x s, 1 x (t-s))`` and equals it when ``m = s``, so
    the same ``gamma``, maximum, range and second moment are valid (and attained) for
    CoCo.
    """
    E = math.exp(eps0)
    u = math.exp(eps)
    gamma = collision_gamma(eps0, s, t)
    j0 = max(0, 2 * s - t)
    max_l = gamma * (E - u)
    min_l = gamma * (1.0 - u * E)
    mean_l = 1.0 - u
    m2 = (gamma ** 2 / t) * (
        j0 * E * E * (1.0 - u) ** 2
        + (s - j0) * ((E - u) ** 2 + (1.0 - u * E) ** 2)
        + (t - 2 * s + j0) * (1.0 - u) ** 2
    )
    return AmplificationRV(gamma, max_l, min_l, max_l - min_l, mean_l, m2, m2 - mean_l ** 2)


# ---------------------------------------------------------------------------------------
# delta(eps) of the two numerical bounds
# ---------------------------------------------------------------------------------------
def _phi(x: float) -> float:
    """``(1+x) log(1+x) - x`` accurate for small ``x`` (series below 1e-3)."""
    if x < 1e-3:
        # sum_{k>=2} (-1)^k x^k / (k (k-1))
        return x * x * (0.5 - x * (1.0 / 6.0 - x * (1.0 / 12.0 - x * (1.0 / 20.0 - x / 30.0))))
    return (1.0 + x) * math.log1p(x) - x


def _check_gamma(gamma: float) -> float:
    g = float(gamma)
    if not (0.0 < g <= 1.0):
        raise ValueError(f"gamma must satisfy 0 < gamma <= 1, got {gamma!r}")
    return g


def blanket_log_delta_hoeffding(eps: float, n: int, gamma: float, range_l: float) -> float:
    r"""Natural log of the [BBGN19] Hoeffding bound on ``delta(eps)``.

    ``log(b^2/(4 a gamma n)) + n log(1 - gamma (1 - exp(-2 a^2/b^2)))`` with
    ``a = e^eps - 1`` and ``b = range_l``.  Returns ``+inf`` for ``eps <= 0``.
    """
    gamma = _check_gamma(gamma)
    a = math.expm1(eps)
    b = float(range_l)
    if not (a > 0.0):
        return math.inf
    if not (b > 0.0):
        raise ValueError(f"range of L must be > 0, got {range_l!r}")
    x = 2.0 * (a / b) ** 2
    return (2.0 * math.log(b) - math.log(4.0 * a) - math.log(gamma * n)
            + n * math.log1p(-gamma * (-math.expm1(-x))))


def blanket_log_delta_bennett(eps: float, n: int, gamma: float, max_l: float,
                              second_moment_l: float) -> float:
    r"""Natural log of the [BBGN19] Bennett bound on ``delta(eps)``.

    ``log(b_+/(gamma n log(1+beta))) + log[(1-gamma(1-e^{-alpha phi(beta)}))^n
    - (1-gamma)^n]`` with ``a = e^eps - 1``, ``alpha = c/b_+^2``, ``beta = a b_+/c``.
    Returns ``-inf`` when ``max_l <= 0`` (then ``L <= 0`` a.s. and ``delta = 0``) and
    ``+inf`` for ``eps <= 0``.
    """
    gamma = _check_gamma(gamma)
    a = math.expm1(eps)
    bp = float(max_l)
    c = float(second_moment_l)
    if not (a > 0.0):
        return math.inf
    if bp <= 0.0:
        return -math.inf
    if not (c > 0.0):
        raise ValueError(f"second moment of L must be > 0, got {second_moment_l!r}")
    beta = a * bp / c
    lam = (c / (bp * bp)) * _phi(beta)
    log_sum = _log_binomial_exp_tail(n, gamma, lam)
    return math.log(bp) - math.log(gamma * n) - math.log(math.log1p(beta)) + log_sum


def _log_binomial_exp_tail(n: int, gamma: float, lam: float) -> float:
    r"""``log E[e^{-lam M}; M >= 1]`` for ``M ~ Bin(n, gamma)``, ``lam >= 0``.

    Equals ``log[(1 - gamma + gamma e^{-lam})^n - (1 - gamma)^n]``, computed as
    ``n log(1-gamma) + log(expm1(n log1p(r)))`` with ``r = gamma e^{-lam}/(1-gamma)`` so
    that neither power underflows.
    """
    if gamma >= 1.0:
        return -n * lam
    log_1mg = math.log1p(-gamma)
    log_r = math.log(gamma) - lam - log_1mg
    if log_r < -600.0:  # n r is tiny: expm1(n log1p(r)) = n r (1 + O(n r))
        return n * log_1mg + math.log(n) + log_r
    y = n * math.log1p(math.exp(log_r))
    log_expm1_y = y + math.log1p(-math.exp(-y)) if y > 1.0 else math.log(math.expm1(y))
    return n * log_1mg + log_expm1_y


def blanket_delta_hoeffding(eps: float, n: int, gamma: float, range_l: float) -> float:
    """``exp`` of :func:`blanket_log_delta_hoeffding` (may overflow to ``inf``)."""
    lv = blanket_log_delta_hoeffding(eps, n, gamma, range_l)
    return math.exp(lv) if lv < 709.0 else math.inf


def blanket_delta_bennett(eps: float, n: int, gamma: float, max_l: float,
                          second_moment_l: float) -> float:
    """``exp`` of :func:`blanket_log_delta_bennett` (may overflow to ``inf``)."""
    lv = blanket_log_delta_bennett(eps, n, gamma, max_l, second_moment_l)
    return math.exp(lv) if lv < 709.0 else math.inf


# ---------------------------------------------------------------------------------------
# Generic solver: smallest eps with certified delta(eps) <= target
# ---------------------------------------------------------------------------------------
def blanket_epsilon(
    n,
    delta,
    gamma: float,
    eps0,
    *,
    method: str,
    range_l: Optional[Callable[[float], float]] = None,
    max_l: Optional[Callable[[float], float]] = None,
    second_moment_l: Optional[Callable[[float], float]] = None,
    name: Optional[str] = None,
    rtol: float = RTOL_EPS,
    grid_points: int = 256,
) -> BoundResult:
    r"""Smallest ``eps`` in ``(0, eps0)`` with [BBGN19] ``delta(eps) <= delta``.

    Parameters
    ----------
    n : int
        Number of users.
    delta : float
        Target delta, ``0 < delta < 1``.
    gamma : float
        Blanket probability (``0 < gamma <= 1``; a lower bound on the true one is valid).
    eps0 : float
        Local budget; the search is over ``(0, eps0)``.  If no ``eps < eps0`` certifies
        ``delta`` the result is ``eps0`` (justified by post-processing of eps0-LDP).
    method : {"hoeffding", "bennett"}
    range_l : callable, required for ``"hoeffding"``
        ``eps -> b(eps)``, an upper bound on the range of ``L^eps`` over all pairs.
    max_l, second_moment_l : callables, required for ``"bennett"``
        ``eps -> b_+(eps) >= sup L^eps`` and ``eps -> c(eps) >= E[(L^eps)^2]``.
    name : str, optional
        ``BoundResult.name`` (default ``"blanket_" + method``).
    rtol : float
        Relative tolerance on ``eps`` (default ``1e-9``).
    grid_points : int
        Log-spaced scan points used to bracket the *first* crossing, so the result does
        not rely on ``delta(eps)`` being monotone (it need not be: the prefactor
        ``b^2/(4a)`` can grow with ``eps``).

    Returns
    -------
    BoundResult
        ``epsilon`` is the upper end ``hi`` of the final bracket, for which the certified
        ``delta(hi) <= delta`` holds (``achieved_delta = delta(hi)``); the lower end has
        ``delta(lo) > delta`` and ``hi - lo <= rtol * hi``.
    """
    start = time.perf_counter()
    n = validate_n(n)
    delta = validate_delta(delta)
    eps0 = validate_eps0(eps0)
    gamma = _check_gamma(gamma)
    if method == "hoeffding":
        if range_l is None:
            raise ValueError("method 'hoeffding' needs range_l")

        def log_delta(e: float) -> float:
            return blanket_log_delta_hoeffding(e, n, gamma, range_l(e))
    elif method == "bennett":
        if max_l is None or second_moment_l is None:
            raise ValueError("method 'bennett' needs max_l and second_moment_l")

        def log_delta(e: float) -> float:
            return blanket_log_delta_bennett(e, n, gamma, max_l(e), second_moment_l(e))
    else:
        raise ValueError(f"method must be 'hoeffding' or 'bennett', got {method!r}")
    name = name or f"blanket_{method}"
    target = math.log(delta) - _LOG_DELTA_MARGIN

    def ok(e: float) -> bool:
        v = log_delta(e)
        return v <= target  # NaN -> False (never certified)

    def done(eps: float, reason: Optional[str], achieved: float) -> BoundResult:
        return BoundResult(name=name, epsilon=eps, applicable=True, reason=reason,
                           delta=delta, achieved_delta=achieved,
                           seconds=time.perf_counter() - start)

    hi_end = eps0 * (1.0 - 1e-12)
    if not ok(hi_end):
        return done(eps0, NO_AMPLIFICATION, 0.0)

    # Scan a log grid upwards for the first certified point.
    lo_end = eps0 * 1e-8
    ratio = (hi_end / lo_end) ** (1.0 / (grid_points - 1))
    grid = [lo_end * ratio ** i for i in range(grid_points - 1)] + [hi_end]
    first = next(i for i, e in enumerate(grid) if ok(e))  # exists: grid[-1] is ok
    if first == 0:
        lo, hi = grid[0], grid[0]
        while ok(lo):  # extend downwards (astronomically large n)
            hi, lo = lo, lo / 16.0
            if lo < 1e-300:
                break
    else:
        lo, hi = grid[first - 1], grid[first]
    hi = bisect(ok, hi, lo, rtol=rtol).x
    return done(hi, None, math.exp(log_delta(hi)))


# ---------------------------------------------------------------------------------------
# Public bounds
# ---------------------------------------------------------------------------------------
def blanket_hoeffding_generic(n, eps0, delta) -> BoundResult:
    r"""[BBGN19] Hoeffding bound for a generic ``eps0``-LDP randomizer.

    ``delta(eps) <= b^2/(4 a gamma n) (1 - gamma(1 - e^{-2a^2/b^2}))^n`` with
    ``gamma = e^{-eps0}``, ``a = e^eps - 1``, ``b = (e^eps + 1)(e^{eps0} - e^{-eps0})``
    (:func:`generic_ldp_rv`); ``eps`` is the smallest value in ``(0, eps0)`` with
    ``delta(eps) <= delta`` (see :func:`blanket_epsilon`).  Valid for every ``n >= 1``,
    ``eps0 > 0``, ``0 < delta < 1``; when no ``eps < eps0`` is certified ``eps0`` is
    reported (no amplification).
    """
    n, eps0, delta = validate_n_eps0_delta(n, eps0, delta)
    return blanket_epsilon(n, delta, math.exp(-eps0), eps0, method="hoeffding",
                           range_l=lambda e: generic_ldp_rv(eps0, e).range_l,
                           name="blanket_hoeffding_generic")


def blanket_bennett_generic(n, eps0, delta) -> BoundResult:
    r"""[BBGN19] Bennett bound for a generic ``eps0``-LDP randomizer.

    ``delta(eps) <= b_+/(gamma n log(1+beta)) E_{M~Bin(n,gamma)}[e^{-M alpha phi(beta)};
    M >= 1]`` with ``gamma = e^{-eps0}``, ``b_+ = e^{eps0} - e^{eps - eps0}``,
    ``c = e^{eps0}(e^{2eps}+1) - 2 e^{eps - 3 eps0}`` (:func:`generic_ldp_rv`),
    ``alpha = c/b_+^2``, ``beta = (e^eps - 1) b_+/c``.  Valid for every ``n >= 1``,
    ``eps0 > 0``, ``0 < delta < 1``; ``eps0`` reported when not amplified.
    """
    n, eps0, delta = validate_n_eps0_delta(n, eps0, delta)
    return blanket_epsilon(n, delta, math.exp(-eps0), eps0, method="bennett",
                           max_l=lambda e: generic_ldp_rv(eps0, e).max_l,
                           second_moment_l=lambda e: generic_ldp_rv(eps0, e).second_moment_l,
                           name="blanket_bennett_generic")


def blanket_hoeffding(n, eps0, delta, s, t) -> BoundResult:
    r"""[BBGN19] Hoeffding bound with the exact Collision/CoCo quantities.

    ``gamma = t/(s e^{eps0} + t - s)`` and ``b = gamma (e^{eps0} - 1)(e^{eps} + 1)``
    (worst case over pairs of inputs and hash functions, :func:`collision_rv`).  Valid for
    every ``n >= 1``, ``eps0 > 0``, ``0 < delta < 1``, integers ``1 <= s < t``.
    """
    n, eps0, delta = validate_n_eps0_delta(n, eps0, delta)
    s, t = validate_s_t(s, t)
    return blanket_epsilon(n, delta, collision_gamma(eps0, s, t), eps0, method="hoeffding",
                           range_l=lambda e: collision_rv(eps0, e, s, t).range_l,
                           name="blanket_hoeffding")


def blanket_bennett(n, eps0, delta, s, t) -> BoundResult:
    r"""[BBGN19] Bennett bound with the exact Collision/CoCo quantities.

    ``gamma = t/Omega``, ``b_+ = gamma(e^{eps0} - e^{eps})`` and
    ``c = E[L^2]`` of :func:`collision_rv` (worst case ``k = k' = s``,
    ``j_0 = max(0, 2s - t)``).  Valid for every ``n >= 1``, ``eps0 > 0``,
    ``0 < delta < 1``, integers ``1 <= s < t``.
    """
    n, eps0, delta = validate_n_eps0_delta(n, eps0, delta)
    s, t = validate_s_t(s, t)
    return blanket_epsilon(n, delta, collision_gamma(eps0, s, t), eps0, method="bennett",
                           max_l=lambda e: collision_rv(eps0, e, s, t).max_l,
                           second_moment_l=lambda e: collision_rv(eps0, e, s, t).second_moment_l,
                           name="blanket_bennett")
