"""Closed-form amplification-by-shuffling bounds used as comparison baselines.

Every function returns a :class:`~accountant.core.result.BoundResult`.  Outside the range of
validity stated by the cited theorem the result is ``not applicable`` with a reason; no
value is clamped silently.  When a formula is valid but its value exceeds ``eps0`` the
function reports ``eps0`` and says so in ``reason``: an ``eps0``-LDP randomizer makes the
shuffled output ``(eps0, 0)``-DP by post-processing, so ``eps0`` is always justified.

References
----------
.. [EFMRTT19] U. Erlingsson, V. Feldman, I. Mironov, A. Raghunathan, K. Talwar,
   A. Thakurta. "Amplification by shuffling: from local to central differential privacy
   via anonymity." SODA 2019 (arXiv:1811.12469).
.. [FMT21] V. Feldman, A. McMillan, K. Talwar. "Hiding among the clones: a simple and
   nearly optimal analysis of privacy amplification by shuffling." FOCS 2021
   (arXiv:2012.12803).
.. [FMT23] V. Feldman, A. McMillan, K. Talwar. "Stronger privacy amplification by
   shuffling for Renyi and approximate differential privacy." SODA 2023
   (arXiv:2208.04591).
"""
from __future__ import annotations

import math
import numbers
from typing import Optional

from accountant.core.result import BoundResult

__all__ = [
    "efmrtt19",
    "clone_closed",
    "stronger_clone_closed",
    "validate_n",
    "validate_eps0",
    "validate_delta",
    "validate_s_t",
]

NO_AMPLIFICATION = (
    "no amplification: bound exceeds eps0, eps0 reported (eps0-LDP implies (eps0, 0)-DP "
    "of the shuffled output by post-processing)"
)


# ---------------------------------------------------------------------------------------
# Input validation (shared with accountant.bounds.blanket_relaxations)
# ---------------------------------------------------------------------------------------
def validate_n(n) -> int:
    """Return ``n`` as ``int``; raise ``ValueError`` unless it is an integer >= 1.

    Integral floats (``1e4``) are accepted; booleans, non-integral and non-finite values
    are rejected.
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Real):
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    if isinstance(n, numbers.Integral):
        value = int(n)
    else:
        x = float(n)
        if not math.isfinite(x) or x != math.floor(x):
            raise ValueError(f"n must be an integer >= 1, got {n!r}")
        value = int(x)
    if value < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    return value


def validate_eps0(eps0) -> float:
    """Return ``eps0`` as ``float``; raise ``ValueError`` unless ``0 < eps0 < inf``."""
    if isinstance(eps0, bool) or not isinstance(eps0, numbers.Real):
        raise ValueError(f"eps0 must be a finite real number > 0, got {eps0!r}")
    x = float(eps0)
    if not (math.isfinite(x) and x > 0.0):
        raise ValueError(f"eps0 must be a finite real number > 0, got {eps0!r}")
    return x


def validate_delta(delta) -> float:
    """Return ``delta`` as ``float``; raise ``ValueError`` unless ``0 < delta < 1``."""
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real):
        raise ValueError(f"delta must be a real number with 0 < delta < 1, got {delta!r}")
    x = float(delta)
    if not (0.0 < x < 1.0):  # also rejects NaN
        raise ValueError(f"delta must be a real number with 0 < delta < 1, got {delta!r}")
    return x


def validate_n_eps0_delta(n, eps0, delta) -> tuple[int, float, float]:
    """(n, eps0, delta) checked as every bound of the registry takes them."""
    return validate_n(n), validate_eps0(eps0), validate_delta(delta)


def _validate_int(name: str, v) -> int:
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise ValueError(f"{name} must be an integer, got {v!r}")
    if isinstance(v, numbers.Integral):
        return int(v)
    x = float(v)
    if not math.isfinite(x) or x != math.floor(x):
        raise ValueError(f"{name} must be an integer, got {v!r}")
    return int(x)


def validate_s_t(s, t) -> tuple[int, int]:
    """Return ``(s, t)`` as ints; raise ``ValueError`` unless ``1 <= s < t``."""
    s_i = _validate_int("s", s)
    t_i = _validate_int("t", t)
    if s_i < 1:
        raise ValueError(f"s must be an integer with 1 <= s < t, got s={s!r}")
    if t_i <= s_i:
        raise ValueError(f"t must be an integer with t > s >= 1, got s={s!r}, t={t!r}")
    return s_i, t_i


def _finish(name: str, value: float, eps0: float, delta: float,
            reason: Optional[str]) -> BoundResult:
    """Return ``value`` or, if it exceeds ``eps0``, ``eps0`` with an explicit reason."""
    if not math.isfinite(value):  # pragma: no cover - formulas are finite in range
        return BoundResult.not_applicable(name, f"formula evaluated to {value!r}", delta)
    if value >= eps0:
        return BoundResult(name=name, epsilon=eps0, applicable=True,
                           reason=NO_AMPLIFICATION, delta=delta, achieved_delta=0.0)
    return BoundResult(name=name, epsilon=value, applicable=True, reason=reason,
                       delta=delta, achieved_delta=delta)


def _outside_condition(name: str, eps0: float, delta: float, cap: Optional[float],
                       condition: str, quantity: str, q: float) -> Optional[BoundResult]:
    """Not applicable when eps0 is above the theorem's cap (``cap`` None: ``q``, the quantity
    under the logarithm, is <= 1 and no eps0 > 0 qualifies); None when the condition holds."""
    if cap is None:
        return BoundResult.not_applicable(
            name, f"{condition}; here {quantity} = {q:.4g} <= 1, so no eps0 > 0 qualifies", delta
        )
    if eps0 > cap:
        return BoundResult.not_applicable(name, f"{condition} = {cap:.6g}; eps0 = {eps0:g}", delta)
    return None


# ---------------------------------------------------------------------------------------
# EFMRTT19
# ---------------------------------------------------------------------------------------
EFMRTT19_MAX_EPS0 = 0.5
EFMRTT19_MIN_N = 1000
EFMRTT19_MAX_DELTA = 0.01


def efmrtt19(n, eps0, delta) -> BoundResult:
    r"""Closed-form amplification bound of Erlingsson et al. (SODA 2019).

    .. math:: \varepsilon_c = 12\,\varepsilon_0 \sqrt{\log(1/\delta)/n}
              \;(= \varepsilon_0\sqrt{144\log(1/\delta)/n}).

    Range of validity: the constants are only established for the regime
    ``eps0 <= 1/2``, ``n >= 1000`` and ``delta <= 1/100`` ([EFMRTT19], amplification
    theorem for one-shot eps0-LDP randomizers, quoted by the main paper, Section 6.1, as
    ``eps0 sqrt(144 log(1/delta)/n)``; the regime is the one encoded by Balle et al.'s
    reference implementation of this bound, ``shuffleddp/amplification_bounds.py``,
    class ``Erlingsson``: ``max_eps0 = 0.5``, ``min_n = 1000``, ``max_delta = 0.01``;
    boundaries treated as inclusive).  Outside this regime the bound is *not
    applicable*.

    Parameters
    ----------
    n : int
        Number of users (>= 1).
    eps0 : float
        Local privacy parameter (> 0, finite).
    delta : float
        Target delta, ``0 < delta < 1``.

    Returns
    -------
    BoundResult
        ``name="efmrtt19"``.  If ``12 eps0 sqrt(log(1/delta)/n) >= eps0`` the result is
        ``eps0`` with a "no amplification" reason (post-processing).
    """
    name = "efmrtt19"
    n, eps0, delta = validate_n_eps0_delta(n, eps0, delta)
    problems = []
    if eps0 > EFMRTT19_MAX_EPS0:
        problems.append(f"eps0={eps0:g} > 1/2")
    if n < EFMRTT19_MIN_N:
        problems.append(f"n={n} < 1000")
    if delta > EFMRTT19_MAX_DELTA:
        problems.append(f"delta={delta:g} > 1/100")
    if problems:
        return BoundResult.not_applicable(
            name,
            "outside EFMRTT19 range (requires eps0 <= 1/2, n >= 1000, delta <= 1/100): "
            + ", ".join(problems),
            delta,
        )
    value = 12.0 * eps0 * math.sqrt(math.log(1.0 / delta) / n)
    return _finish(name, value, eps0, delta, None)


# ---------------------------------------------------------------------------------------
# FMT21 (clone reduction), Theorem 3.1
# ---------------------------------------------------------------------------------------
def clone_eps0_max(n: int, delta: float) -> Optional[float]:
    """Largest eps0 allowed by [FMT21] Thm 3.1: ``log(n / (16 log(2/delta)))``.

    Returns ``None`` when the argument of the logarithm is <= 1 (no eps0 > 0 allowed).
    """
    arg = n / (16.0 * math.log(2.0 / delta))
    return math.log(arg) if arg > 1.0 else None


def clone_closed(n, eps0, delta) -> BoundResult:
    r"""Closed-form clone-reduction bound of Feldman, McMillan, Talwar (FOCS 2021).

    [FMT21], Theorem 3.1: for eps0-DP local randomizers (also adaptive ones) shuffled
    among ``n`` users, for any ``delta`` in ``[0, 1]`` with

    .. math:: \varepsilon_0 \le \log\Bigl(\frac{n}{16\log(2/\delta)}\Bigr),

    the shuffled output is ``(eps, delta)``-DP with

    .. math:: \varepsilon \le \log\Bigl(1 + \frac{e^{\varepsilon_0}-1}{e^{\varepsilon_0}+1}
              \Bigl(\frac{8\sqrt{e^{\varepsilon_0}\log(4/\delta)}}{\sqrt n}
              + \frac{8e^{\varepsilon_0}}{n}\Bigr)\Bigr).

    Note the two different logarithms: ``log(2/delta)`` in the condition and
    ``log(4/delta)`` in the bound (confirmed against the OpenDP/SmartNoise
    implementation ``shuffle_amplification`` and the authors' code release
    ``apple/ml-shuffling-amplification``, whose ``closedformanalysis`` is a *looser* variant:
    factor (1 - e^-eps0)/(1 + e^(-eps0 - eps')) with eps' the bound without it, condition
    with log(4/delta); 0.3348 against 0.2726 here at n = 1000, eps0 = 0.5, delta = 1e-6.
    Both lie above the exact clone pair's eps_c (``clone``, 0.0705 there), which is what the
    theorem is derived from; tests/test_published_references.py checks the order).

    Range of validity: exactly the condition above; if ``n <= 16 log(2/delta)`` no
    eps0 > 0 satisfies it and the bound is not applicable.

    Parameters
    ----------
    n : int
    eps0 : float
    delta : float

    Returns
    -------
    BoundResult
        ``name="clone_closed"``.
    """
    name = "clone_closed"
    n, eps0, delta = validate_n_eps0_delta(n, eps0, delta)
    refused = _outside_condition(
        name, eps0, delta, clone_eps0_max(n, delta),
        "FMT21 Thm 3.1 needs eps0 <= log(n/(16 log(2/delta)))",
        "n/(16 log(2/delta))", n / (16 * math.log(2 / delta)),
    )
    if refused is not None:
        return refused
    e = math.exp(eps0)
    inner = 8.0 * math.sqrt(e * math.log(4.0 / delta) / n) + 8.0 * e / n
    value = math.log1p(math.tanh(eps0 / 2.0) * inner)  # (e^x-1)/(e^x+1) = tanh(x/2)
    return _finish(name, value, eps0, delta, None)


# ---------------------------------------------------------------------------------------
# FMT23 (stronger clone reduction), Theorem 3.2
# ---------------------------------------------------------------------------------------
FMT23_ERRATA = (
    "FMT23 arXiv errata: the general upper bounds (Thm 3.1, Thm 3.2) were withdrawn for "
    "arbitrary eps0-LDP randomizers (error in the proof of Lemma 3.5 when "
    "p < 1/(e^eps0+1)) and hold only for a restricted class of local randomizers"
)


def stronger_clone_eps0_max(n: int, delta: float) -> Optional[float]:
    """Largest eps0 allowed by [FMT23] Thm 3.2: ``log(n / (8 log(2/delta)) - 1)``.

    Returns ``None`` when the argument of the logarithm is <= 1.
    """
    arg = n / (8.0 * math.log(2.0 / delta)) - 1.0
    return math.log(arg) if arg > 1.0 else None


def stronger_clone_closed(n, eps0, delta, *, randomizer_in_errata_class: bool = False
                          ) -> BoundResult:
    r"""Closed-form stronger-clone bound of Feldman, McMillan, Talwar (SODA 2023).

    [FMT23], Theorem 3.2: for ``delta`` in ``[0, 1]`` with

    .. math:: \varepsilon_0 \le \log\Bigl(\frac{n}{8\log(2/\delta)} - 1\Bigr),

    the shuffled output is ``(eps, delta)``-DP with

    .. math:: \varepsilon \le \log\Bigl(1 + (e^{\varepsilon_0}-1)\Bigl(
              \frac{4\sqrt{2\log(4/\delta)}}{\sqrt{(e^{\varepsilon_0}+1)n}} + \frac4n
              \Bigr)\Bigr).

    This is the [FMT21] Thm 3.1 argument with the clone probability ``e^{-eps0}``
    replaced by ``2/(e^{eps0}+1)``: substituting ``e^{eps0} -> (e^{eps0}+1)/2`` in the
    [FMT21] condition and bound gives exactly the two displays above.

    **Errata.**  The arXiv version of [FMT23] carries an errata: the proof of Lemma 3.5
    is wrong when ``p < 1/(e^{eps0}+1)``, and Theorems 3.1 and 3.2, originally stated for
    any (adaptive) eps0-LDP randomizers, hold only for a *restricted class* of local
    randomizers.  For instance, the decomposition used by the stronger clone reduction
    with ``p = 1/(e^{eps0}+1)`` requires ``R(x_i) >= (R(x_1) + R(x_1'))/(e^{eps0}+1)``
    pointwise for all inputs, which k-ary randomized response satisfies but a generic
    eps0-LDP randomizer (or the Collision mechanism under a colliding hash) does not.
    Hence, by default this function reports *not applicable*; pass
    ``randomizer_in_errata_class=True`` only when the randomizer is known to belong to
    the class for which the errata keeps Theorem 3.2.

    Parameters
    ----------
    n : int
    eps0 : float
    delta : float
    randomizer_in_errata_class : bool, keyword-only, default False
        Caller's assertion that the local randomizer belongs to the restricted class of
        the [FMT23] errata.

    Returns
    -------
    BoundResult
        ``name="stronger_clone_closed"``.
    """
    name = "stronger_clone_closed"
    n, eps0, delta = validate_n_eps0_delta(n, eps0, delta)
    refused = _outside_condition(
        name, eps0, delta, stronger_clone_eps0_max(n, delta),
        "FMT23 Thm 3.2 needs eps0 <= log(n/(8 log(2/delta)) - 1)",
        "n/(8 log(2/delta)) - 1", n / (8 * math.log(2 / delta)) - 1,
    )
    if refused is not None:
        return refused
    if not randomizer_in_errata_class:
        return BoundResult.not_applicable(
            name,
            FMT23_ERRATA + "; a generic eps0-LDP randomizer is not covered "
            "(pass randomizer_in_errata_class=True if the randomizer is in that class)",
            delta,
        )
    e = math.exp(eps0)
    inner = 4.0 * math.sqrt(2.0 * math.log(4.0 / delta) / ((e + 1.0) * n)) + 4.0 / n
    value = math.log1p(math.expm1(eps0) * inner)
    return _finish(name, value, eps0, delta,
                   "valid only for the restricted randomizer class of the FMT23 errata "
                   "(asserted by the caller)")
