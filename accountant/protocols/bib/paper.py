"""The paper's own privacy condition for the balls-into-bins protocol and the rho it asks for,
kept apart so that it is compared with, never mixed into, the certified delta.
"""
from __future__ import annotations
import math
from typing import Optional
from accountant.protocols.bib.law import PAPER_EPS_MAX, check_bib_args, checked_number


# ----------------------------------------------------------------------------
# the paper's condition
# ----------------------------------------------------------------------------

def paper_requirement(eps: float, delta: float, m: int, s: int) -> float:
    """32 ln(2/delta)/eps^2 * m/s: the noise k + n p that Theorem 2.1 asks for."""
    return 32.0 * math.log(2.0 / delta) / (eps * eps) * m / s


def paper_condition(eps: float, delta: float, m: int, s: int, k: int, n: int, p: float) -> bool:
    """Whether Theorem 2.1 certifies (eps, delta): 0 < eps <= 3 and k + n p >= requirement."""
    m, s, k, n, p = check_bib_args(m, s, k, n, p)
    eps = checked_number("eps", eps, 0.0, 700.0, lo_open=True)
    delta = checked_number("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    if eps > PAPER_EPS_MAX:
        return False
    return k + n * p >= paper_requirement(eps, delta, m, s)


def paper_rho(eps: float, delta: float, m: int, s: int, k: int, n: int) -> Optional[float]:
    """rho = max(0, (requirement - k)/n) from Theorem 2.1; None when eps > 3 (not covered).

    For rho > 1 this is read with the Section 2.3 split (``params_for_rho``),
    which keeps k + n p = k + n rho.
    """
    m, s, k, n, _ = check_bib_args(m, s, k, n, 0.0)
    if n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n}")
    eps = checked_number("eps", eps, 0.0, 700.0, lo_open=True)
    delta = checked_number("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    if eps > PAPER_EPS_MAX:
        return None
    req = paper_requirement(eps, delta, m, s)
    rho = max(0.0, (req - k) / n)
    while k + n * rho < req:  # round up so that the condition holds at the returned rho
        rho = math.nextafter(rho, math.inf)
    return rho
