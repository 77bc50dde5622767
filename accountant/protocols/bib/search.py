"""Inverse searches of the balls-into-bins protocol: the smallest certified eps for a delta
(``bib_epsilon``) and the smallest rho that meets (eps, delta) (``bib_rho_for``), both by a
bracketed monotone search on the certified delta.
"""
from __future__ import annotations
import math
from dataclasses import dataclass
from typing import Optional
from accountant.engines.search import bisect
from accountant.protocols.bib.law import check_bib_args, checked_number, params_for_rho
from accountant.protocols.bib.divergence import bib_divergence, delta_floor
from accountant.protocols.bib.paper import paper_rho


# ----------------------------------------------------------------------------
# searches
# ----------------------------------------------------------------------------

@dataclass(frozen=True)
class BibEpsilon:
    """Smallest eps with certified delta(eps) <= target, or None with a reason."""

    epsilon: Optional[float]
    achieved_delta: Optional[float]
    lower_epsilon: Optional[float]
    reason: Optional[str] = None


def bib_epsilon(delta: float, m: int, s: int, k: int, n: int, p: float,
                rtol: float = 1e-9) -> BibEpsilon:
    """Smallest eps (to ``rtol``) with certified delta(eps) <= ``delta``.

    References
    ----------
    As :func:`bib_delta` (Luo, Wang, Yi, Algorithm 1 and Theorem 2.1).

    Parameters
    ----------
    delta : float
        Target delta, in (0, 1).
    m, s, k, n : int
        The mechanism M^BIB(m, s, k, n, p) (see :func:`bib_delta`).
    p : float
        Probability of a user's extra noise ball.
    rtol : float
        Relative tolerance of the search.

    Returns
    -------
    BibEpsilon
        ``epsilon`` with certified ``achieved_delta`` <= ``delta`` and a certified lower end
        ``lower_epsilon``; ``epsilon`` None with ``reason`` when no eps reaches ``delta``.

    Examples
    --------
    >>> from accountant import bib_delta, bib_epsilon, fmt
    >>> r = bib_epsilon(1e-6, m=10, s=1, k=1000, n=1000, p=0.5)
    >>> print(fmt(r.epsilon, 4, "up"), r.achieved_delta <= 1e-6)
    0.4728 True
    >>> bib_delta(r.epsilon, 10, 1, 1000, 1000, 0.5) <= 1e-6
    True
    """
    m, s, k, n, p = check_bib_args(m, s, k, n, p)
    delta = checked_number("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    rtol = checked_number("rtol", rtol, 0.0, 1.0, lo_open=True)

    def ev(x):
        return bib_divergence(x, m, s, k, n, p, target=delta)

    eps_max = 1.0
    while ev(eps_max).upper > delta:
        eps_max *= 2.0
        if eps_max > 512.0:
            fl = delta_floor(m, s, k, n, p)
            return BibEpsilon(None, None, None,
                              f"no eps reaches delta = {delta:g}: delta(eps) >= {fl:.3g} for every eps "
                              "(the real ball can land where S' has no ball)")
    eps, achieved, lower_eps = _bracketed_search(ev, delta, eps_max, rtol)
    return BibEpsilon(eps, achieved, lower_eps)


def _bracketed_search(ev, target: float, x_max: float, rtol: float, max_evaluations: int = 400):
    """Smallest x in [0, x_max] with certified delta(x) <= target, delta non-increasing.

    Keeps a bracket [lo, hi]: hi always has certified upper <= target; lo does not.
    Steps: Newton on log delta (slope from the evaluation) clipped to the inner
    98% of the bracket, replaced by bisection whenever the previous step shrank
    the bracket by less than half; so it terminates (at most ~2 log2(x_max/tol)
    steps after the first few).  Kept apart from accountant.engines.search.epsilon_for_delta
    on purpose: the three-category sums here can have a certified lower/upper gap wider
    than the tolerance; the core search then gives up certifying the lower end, this
    one keeps bisecting with certified ends (tests/test_bib.py asserts a certified
    lower end within 1e-5).
    Returns (hi, certified delta at hi, largest x seen with certified lower > target).
    """
    d0 = ev(0.0)
    if d0.upper <= target:
        return 0.0, d0.upper, None
    lo, hi = 0.0, x_max
    dh = ev(hi)
    hi_delta = dh.upper
    lo_cert = 0.0 if d0.lower > target else None
    last = d0
    use_newton = True
    evals = 2
    while hi - lo > rtol * hi + 1e-300 and evals < max_evaluations:
        w = hi - lo
        cand = None
        if use_newton and 0.0 < last.value < 1.0 and last.slope < 0.0:
            cand = last.eps - (math.log(last.value) - math.log(target)) / (last.slope / last.value)
        if cand is None or not math.isfinite(cand):
            cand = 0.5 * (lo + hi)
        cand = min(max(cand, lo + 0.01 * w), hi - 0.01 * w)
        d = ev(cand)
        evals += 1
        lo, hi, hi_delta, lo_cert = _narrowed(cand, d, target, lo, hi, hi_delta, lo_cert)
        use_newton = (hi - lo) <= 0.5 * w
        last = d
    return hi, hi_delta, lo_cert


def _narrowed(x, d, target: float, lo, hi, hi_delta, lo_cert) -> tuple:
    """The bracket (lo, hi, hi's certified delta, largest point proved above the target)
    after an evaluation ``d`` at ``x``: x becomes hi when its certified upper delta meets the
    target, else lo (and lo_cert when even its certified lower delta is above it)."""
    if d.upper <= target:
        return lo, x, d.upper, lo_cert
    return x, hi, hi_delta, (x if d.lower > target else lo_cert)


@dataclass(frozen=True)
class BibRho:
    """Smallest rho (expected blanket balls per user) with certified delta <= target."""

    rho: float
    achieved_delta: float
    lower_rho: Optional[float]
    k_eff: int
    p: float
    evaluations: int


def bib_rho_for(eps: float, delta: float, m: int, s: int, k: int, n: int,
                rtol: float = 1e-6) -> BibRho:
    """Smallest rho >= 0 (to ``rtol``) with certified delta(eps) <= ``delta``.

    Bracketed bisection on rho (delta is non-increasing in rho); the returned rho
    always has certified delta <= target; ``lower_rho`` has certified delta > target.
    """
    m, s, k, n, _ = check_bib_args(m, s, k, n, 0.0)
    if n < 1:
        raise ValueError(f"n must be an integer >= 1 to solve for rho, got {n}")
    eps = checked_number("eps", eps, 0.0, 700.0)
    delta = checked_number("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    rtol = checked_number("rtol", rtol, 0.0, 1.0, lo_open=True)
    evals = 0

    def f(rho):
        nonlocal evals
        evals += 1
        kk, pp = params_for_rho(k, n, rho)
        return bib_divergence(eps, m, s, kk, n, pp, target=delta)

    d0 = f(0.0)
    if d0.upper <= delta:
        return BibRho(0.0, d0.upper, None, k, 0.0, evals)
    lo, lo_cert = 0.0, (0.0 if d0.lower > delta else None)
    pr = paper_rho(eps, delta, m, s, k, n)
    hi = pr if (pr is not None and pr > 0) else 1.0 / n
    while True:
        dh = f(hi)
        if dh.upper <= delta:
            break
        if dh.lower > delta:
            lo, lo_cert = hi, hi
        else:
            lo = hi
        hi *= 2.0
        if hi > 1e12:
            raise ArithmeticError("rho search did not bracket the target")  # pragma: no cover
    seen: dict = {hi: dh}

    def meets(rho: float) -> bool:
        seen[rho] = f(rho)
        return seen[rho].upper <= delta

    b = bisect(meets, hi, lo, rtol=rtol)
    hi, hi_delta = b.x, seen[b.x].upper
    # the failing points rise as the bracket shrinks: the last one certified above the target
    lo_cert = max((x for x, d in seen.items() if d.upper > delta and d.lower > delta), default=lo_cert)
    kk, pp = params_for_rho(k, n, hi)
    return BibRho(hi, hi_delta, lo_cert, kk, pp, evals)
