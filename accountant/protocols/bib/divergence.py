"""The certified delta(eps) of the balls-into-bins protocol: the windowed float sum with its
truncated mass added on the safe side (``bib_divergence``, ``bib_delta``) and the floor below
which no delta can be certified.
"""
from __future__ import annotations
import math
from dataclasses import dataclass
from typing import Optional
import numpy as np
from accountant.core.result import CertifiedDelta
from accountant.protocols.bib.law import DEFAULT_TRUNCATION, FLOAT_REL_ERROR, TRUNCATION_FRACTION, check_bib_args, inner_sum, checked_int, noise_window, checked_number, worst_overlap


@dataclass(frozen=True)
class BibDelta(CertifiedDelta):
    """delta(eps) of M^BIB with certified bounds.

    upper : certified upper bound (window sum + float margin + left-out mass).
    lower : certified lower bound (window sum - float margin).
    value : the window sum.   slope : d delta / d eps of the window sum (<= 0).
    overlap : the worst-case |S n S'| used.   truncated : left-out mass added.
    """

    overlap: int


def bib_divergence(eps: float, m: int, s: int, k: int, n: int, p: float,
                   target: Optional[float] = None, overlap: Optional[int] = None) -> BibDelta:
    """Exact hockey-stick divergence H_{e^eps}(M(S) || M(S')), certified bounds.

    ``overlap`` = |S n S'| (default: the worst case max(0, 2s - m)); ``target`` (a
    delta of interest) sets the truncation budget TRUNCATION_FRACTION * target.
    """
    m, s, k, n, p = check_bib_args(m, s, k, n, p)
    eps = checked_number("eps", eps, 0.0, 700.0)
    t = worst_overlap(m, s) if overlap is None else checked_int("overlap", overlap, worst_overlap(m, s), s - 1)
    budget = DEFAULT_TRUNCATION if target is None else TRUNCATION_FRACTION * checked_number(
        "target", target, 0.0, 1.0, lo_open=True)
    log_mass = math.log(budget / 4.0)
    e = math.exp(eps)
    u = 2 * s - t
    T0, pT, trunc = noise_window(u, m, k, n, p, log_mass)
    Ts = T0 + np.arange(pT.size)
    ys = Ts + 1
    total = 0.0
    qsum = 0.0
    if t == 0:
        I, Qv = inner_sum(ys, np.zeros_like(ys), e)
        w = pT * (u / (s * ys))
        total = float(np.sum(w * I))
        qsum = float(np.sum(w * Qv))
    else:
        # three categories: sum over (y, c) on a grid; terms whose weight
        # P[T=y-1] P[Bin(y, t/u)=c] is below budget/(4 * #terms) are dropped and
        # their exact weight sum is added to the truncation (each term <= weight).
        from accountant.engines.binomial import binom_logpmf

        qc = t / u
        ymax = int(ys[-1])
        n_terms = float(ys.size) * (ymax + 1)
        log_cut = math.log(budget / 4.0) - math.log(n_terms)
        cs_all = np.arange(ymax + 1)
        block = max(1, 2_000_000 // (ymax + 1))
        for b0 in range(0, ys.size, block):
            yb = ys[b0:b0 + block]
            pb = pT[b0:b0 + block]
            Y, Cc = np.meshgrid(yb, cs_all, indexing="ij")
            with np.errstate(divide="ignore"):
                logw = np.log(pb)[:, None] + binom_logpmf(Cc, Y, qc)
            valid = Cc <= Y
            keep = valid & (logw > log_cut)
            drop = valid & ~keep
            trunc += float(np.sum(np.exp(logw[drop])))
            Yk, Ck, wk = Y[keep], Cc[keep], np.exp(logw[keep])
            I, Qv = inner_sum(Yk - Ck, Ck, e)
            scale = u / (s * Yk.astype(np.float64))
            total += float(np.sum(wk * scale * I))
            qsum += float(np.sum(wk * scale * Qv))
    lower = total * (1.0 - FLOAT_REL_ERROR)
    upper = min(1.0, total * (1.0 + FLOAT_REL_ERROR) + trunc)
    return BibDelta(eps=eps, value=total, upper=upper, lower=max(lower, 0.0), truncated=trunc,
                    slope=-e * qsum, overlap=t)


def bib_delta(eps: float, m: int, s: int, k: int, n: int, p: float,
              target: Optional[float] = None) -> float:
    """Certified upper bound on the smallest delta with M^BIB (eps, delta)-DP (tight).

    References
    ----------
    Luo, Wang, Yi, "Frequency estimation in the shuffle model with (almost) a single message",
    Algorithm 1 and Theorem 2.1.

    Parameters
    ----------
    eps : float
        Central epsilon, >= 0.
    m : int
        Number of bins.
    s : int
        Size of the input set S (``1 <= s < m``).
    k : int
        Fixed noise balls.
    n : int
        Users, each adding one more noise ball with probability ``p``.
    p : float
        Probability of a user's extra noise ball, in [0, 1].
    target : float, optional
        The delta the caller compares with (narrows the summation window).

    Returns
    -------
    float
        A certified upper bound on delta(eps), exact up to the certified truncation.

    Examples
    --------
    >>> from accountant import bib_delta, fmt
    >>> print(fmt(bib_delta(1.0, m=10, s=1, k=1000, n=1000, p=0.5), 3, "up"))
    2e-17
    """
    return bib_divergence(eps, m, s, k, n, p, target=target).upper


def delta_floor(m: int, s: int, k: int, n: int, p: float) -> float:
    """Lower bound on delta(eps) for every eps: P_S[W_S' = 0] over the window (worst overlap).

    For t = 0 this is sum_T P[T] 2^-T; delta(eps) -> this limit as eps -> inf.
    Returns the window sum (a lower bound; for t > 0 the limit is 0 since W_C >= 1
    whenever the real ball lands in C -- we then return the t = 0-style term 0).
    """
    m, s, k, n, p = check_bib_args(m, s, k, n, p)
    t = worst_overlap(m, s)
    if t > 0:
        # W_S' = 0 needs the real ball in D and no noise in S': probability
        # (s-t)/s * P[no noise in S'] -- lower bound on delta for every eps.
        T0, pT, _ = noise_window(s, m, k, n, p, math.log(1e-300))
        return float(pT[0]) * (s - t) / s if T0 == 0 else 0.0
    T0, pT, _ = noise_window(2 * s, m, k, n, p, math.log(1e-300))
    Ts = T0 + np.arange(pT.size)
    return float(np.sum(pT * np.exp2(-Ts.astype(float))))
