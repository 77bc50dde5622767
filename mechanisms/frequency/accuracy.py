"""Accuracy guarantees (alpha) of FE0 / FE1 and Luo, Wang, Yi's Lemmas 2.3 and 2.6.

Part of :mod:`mechanisms.frequency`; the package docstring has the mathematics.
"""
from __future__ import annotations
import math
from typing import Optional
from accountant.protocols.bib.law import checked_int, checked_number
from mechanisms.frequency.hashing import collision_probability, is_prime, smallest_prime_at_least

#: largest domain size: q <= 2B must keep (q-1)^2 < 2^63 in int64 arithmetic.
MAX_DOMAIN = 1 << 30


# ----------------------------------------------------------------------------
# accuracy statements (Lemmas 2.3 and 2.6)
# ----------------------------------------------------------------------------

def _chernoff_alpha(B: int, beta: float, mu: float) -> float:
    """max{3 ln(2B/beta), sqrt(3 ln(2B/beta) mu)}: P[|Y - mu| > it] < beta/B (Lemma 2.3)."""
    L = 3.0 * math.log(2.0 * B / beta)
    return max(L, math.sqrt(L * mu))


def check_beta(beta) -> float:
    return checked_number("beta", beta, 0.0, 1.0, lo_open=True)


def fe0_alpha(n: int, B: int, rho: float, beta: float) -> float:
    """Lemma 2.3: with probability >= 1 - beta every FE0 estimate is within alpha.

    alpha = max{3 ln(2B/beta), sqrt(3 ln(2B/beta) mu)}, mu = n rho / B the expected
    blanket count of an element (the lemma writes mu = 32 ln(2/delta)/eps^2, its
    value at the paper's rho).
    """
    n, B = checked_int("n", n, 1), checked_int("B", B, 2)
    rho = checked_number("rho", rho, 0.0, math.inf)
    return _chernoff_alpha(B, check_beta(beta), n * rho / B)


def fe1_alpha(n: int, B: int, b: int, rho: float, beta: float, q: Optional[int] = None,
              form: str = "lemma") -> float:
    """Lemma 2.6: with probability >= 1 - beta every FE1 estimate is within alpha.

    ``form="lemma"`` (as stated): 2 max{3 ln(2B/beta), sqrt(3 ln(2B/beta)(n/b + n rho/b))}.
    ``form="proof"`` (inequality (6), tighter): max{3 ln(2B/beta),
    sqrt(3 ln(2B/beta) mu)}/(1 - p_col) with mu = n p_col + n rho/b (its largest
    value over the true frequency); needs ``q`` (default: smallest prime >= B).
    """
    n, B = checked_int("n", n, 1), checked_int("B", B, 4)
    b = checked_int("b", b, 2, B // 2)
    rho = checked_number("rho", rho, 0.0, math.inf)
    beta = check_beta(beta)
    if form == "lemma":
        return 2.0 * _chernoff_alpha(B, beta, n / b + n * rho / b)
    if form == "proof":
        q = smallest_prime_at_least(B) if q is None else check_q(q, B)
        pc = collision_probability(q, b)
        return _chernoff_alpha(B, beta, n * pc + n * rho / b) / (1.0 - pc)
    raise ValueError(f"form must be 'lemma' or 'proof', got {form!r}")


def lemma_2_3_alpha(B: int, eps: float, delta: float, beta: float) -> float:
    """Lemma 2.3 exactly as stated (the paper's rho): mu = 32 ln(2/delta)/eps^2."""
    B = checked_int("B", B, 2)
    eps = checked_number("eps", eps, 0.0, math.inf, lo_open=True)
    delta = checked_number("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    return _chernoff_alpha(B, check_beta(beta), 32.0 * math.log(2.0 / delta) / eps ** 2)


def lemma_2_6_alpha(n: int, B: int, b: int, eps: float, delta: float, beta: float) -> float:
    """Lemma 2.6 exactly as stated (the paper's rho)."""
    n, B = checked_int("n", n, 1), checked_int("B", B, 4)
    b = checked_int("b", b, 2, B // 2)
    eps = checked_number("eps", eps, 0.0, math.inf, lo_open=True)
    delta = checked_number("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    return 2.0 * _chernoff_alpha(B, check_beta(beta),
                                 n / b + 32.0 * math.log(2.0 / delta) / eps ** 2)


def check_q(q, B: int) -> int:
    q = checked_int("q", q, max(B, 3), 2 * MAX_DOMAIN)
    if not is_prime(q):
        raise ValueError(f"q must be a prime >= B = {B}, got {q}")
    return q
