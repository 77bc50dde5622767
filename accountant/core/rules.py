"""The mechanisms' default output sizes: Collision's t*, CoCo's Theorem 7 t, OLH's g.

The parameter objects (:mod:`accountant.core.params`) apply these rules when ``t`` (or
``g``) is not given; the inverse search (:mod:`accountant.accounting.calibration`) needs the
eps0 interval on which a rule gives one t (:func:`rule_interval`).
"""
from __future__ import annotations

import math
from typing import Optional


def collision_paper_t(s: int, eps0: float) -> int:
    """The paper's t* = floor(s e^eps0 + 2s - 1) (Section 5, Theorem 4; Figure 2).

    Examples
    --------
    >>> from accountant import collision_paper_t
    >>> collision_paper_t(4, 1.0)
    17
    """
    return int(math.floor(s * math.exp(eps0) + 2 * s - 1))


def coco_theorem7_t(s: int, eps0: float) -> int:
    """Theorem 7's t: the smallest even integer >= ceil(s e^eps0 + s + 2).

    Examples
    --------
    >>> from accountant import coco_theorem7_t
    >>> coco_theorem7_t(4, 1.0)
    18
    """
    t = int(math.ceil(s * math.exp(eps0) + s + 2))
    return t + (t % 2)


def olh_default_g(eps0: float) -> int:
    """OLH's hash range g = round(e^eps0) + 1 (Wang, Blocki, Li, Jha, USENIX Security 2017,
    Section 4.4: the variance is minimised at g = e^eps0 + 1)."""
    return int(round(math.exp(eps0))) + 1


def rule_interval(mechanism: str, s: int, t: int) -> Optional[tuple[float, float]]:
    """eps0 interval on which the default t-rule gives exactly ``t`` (None if empty)."""
    if mechanism == "collision":
        lo_v, hi_v = (t - 2 * s + 1) / s, (t - 2 * s + 2) / s
    else:
        lo_v, hi_v = (t - s - 4) / s, (t - s - 2) / s
    if hi_v <= 0:
        return None
    lo = math.log(lo_v) if lo_v > 0 else 0.0
    return max(lo, 0.0), math.log(hi_v)
