"""The two numerical loops of the deployment bounds: the smallest proved eps of a
proved delta(eps) (:func:`smallest_eps`) and the composition over rounds of a proved privacy
profile (:func:`profile_rounds`). Used by :mod:`accountant.accounting.deployments` and
:mod:`accountant.accounting.deployment_groups`.
"""
from __future__ import annotations

import math
from typing import Optional

__all__ = ["smallest_eps", "profile_rounds"]


def smallest_eps(dfun, delta: float, hi: float, rtol: float, d_hi: Optional[float] = None,
                 d_lo: Optional[float] = None, lo: float = 0.0) -> Optional[tuple]:
    """(eps, dfun(eps)) with dfun(eps) <= delta, eps near the smallest such: regula falsi
    (Illinois) on log dfun, the bracket [lo, hi] kept with dfun(hi) <= delta < dfun(lo), so the
    eps returned is proved whatever the iteration does; None if dfun(hi) > delta. ``d_hi``:
    dfun(hi) when known; ``d_lo``: an upper bound on dfun(lo) when a cheaper one is at hand
    (lo is returned when it meets delta; a bracket that closes on 0 then checks dfun(0)); ``lo``:
    a point known to be below the answer (default 0)."""
    d_hi = dfun(hi) if d_hi is None else d_hi
    if d_hi > delta:
        return None
    exact0, d_lo = d_lo is None or lo > 0.0, dfun(lo) if d_lo is None else d_lo
    if d_lo <= delta:
        return lo, d_lo
    top, side = hi, 0
    f_lo, f_hi = math.log(d_lo) - math.log(delta), math.log(max(d_hi, 1e-300)) - math.log(delta)
    for _ in range(400):
        if hi - lo <= rtol * hi or hi < 1e-300:
            break
        if lo == 0.0 and hi < 1e-12 * top and not exact0:
            exact0, d0 = True, dfun(0.0)
            if d0 <= delta:  # delta(0+) <= target: the bound at 0 itself meets it
                return 0.0, d0
        width = hi - lo
        mid = min(max(hi - f_hi * width / (f_hi - f_lo), lo + 1e-3 * width), hi - 1e-3 * width)
        d = dfun(mid)
        f = math.log(max(d, 1e-300)) - math.log(delta)
        if f <= 0:
            hi, d_hi, f_hi = mid, d, f
            f_lo = f_lo / 2 if side == -1 else f_lo
            side = -1
        else:
            lo, f_lo = mid, f
            f_hi = f_hi / 2 if side == 1 else f_hi
            side = 1
    return hi, d_hi


def profile_rounds(dfun, eps_max: float, rounds: int, delta: float, steps: int = 100, refine: int = 1,
                   vanishes: bool = True) -> tuple:
    """(eps, its delta) after ``rounds`` rounds of a round whose privacy profile is at most
    ``dfun(eps)`` (a proved upper bound, the same for both orders of the datasets; with
    ``vanishes``, 0 from ``eps_max`` on): the pessimistic connect-the-dots PLD of the profile
    (:func:`accountant.composition.pld.from_profile`: every pair whose profile lies below the
    points is dominated by their pair) composed by FFT. The support is the first eps (doubling
    from a small start, at most ``eps_max``) where the profile is <= min(1e-14, 1e-6 delta / rounds)
    (``vanishes=False``: within that cutoff of its value at ``eps_max``, where it need not vanish);
    the profile's value at the support's end is the +inf atom (pessimistic: the truth beyond is at
    most it). eps is inf where the composed delta never meets ``delta`` (its delta then: the
    composed +inf atom)."""
    from accountant.composition import pld as _pld

    cutoff = min(1e-14, delta * 1e-6 / rounds)
    cache: dict = {}

    def prof(eps: float):
        key = round(eps, 15)
        if key not in cache:
            cache[key] = (0.0, dfun(eps))
        return cache[key]

    top = min(eps_max, 1e-4)
    floor = 0.0 if vanishes else prof(eps_max)[1]
    while top < eps_max and prof(top)[1] > floor + cutoff:
        top = min(2.0 * top, eps_max)
    one = _pld.refine(_pld.from_profile(prof, top / steps, top, True), refine)
    total = _pld.self_compose(one, rounds)
    eps = total.get_epsilon(delta)
    return eps, total.get_delta(eps)
