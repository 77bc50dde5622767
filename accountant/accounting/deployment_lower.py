"""Lower bounds for user sampling with binary randomized response (issue 43): the exact
law of the analyst's view for one named pair of datasets, so the true eps_c is at least the
eps of that pair, one round and T rounds.

With Poisson sampling (rate q) and binary RR at eps0, the shuffled view is the number T of
reports and the number K of ones among them. Datasets (substitution): D = (1, 0, ..., 0) and
D' = (0, 0, ..., 0), n users. The other n - 1 users contribute (T_o, K_o) with
T_o ~ Bin(n - 1, q) and K_o | T_o ~ Bin(T_o, p0), p0 = 1/(1 + e^eps0); user 1 adds nothing
(w.p. 1 - q), a 0 or a 1 (w.p. q times RR's probabilities for its input). The pmfs of
(T, K) are evaluated on a window of +-12 standard deviations of T_o and of K_o (the dropped
outcomes only remove non-negative terms of the divergence, so the window keeps a lower
bound), in float64 with scipy's binomial pmf; the divergence is then lowered by a relative
1e-9 and an absolute 1e-12 for rounding (each pmf value is accurate to a few units in the
last place; not ball arithmetic). T rounds: the optimistic PLD of the pair
(:func:`accountant.composition.pld.from_pmfs`, losses rounded down) composed T times.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from accountant.core.params import Params, validate_delta

__all__ = ["rr_sampled_pair", "rr_sampled_lower_delta", "rr_sampled_lower_epsilon", "LOWER_MAX_CELLS", "LOWER_MAX_ROUNDS", "DATASETS"]

LOWER_MAX_ROUNDS = 1000  # T = 1,000 takes about 150 s of CPU (the optimistic PLD's FFTs)
LOWER_MAX_CELLS = 20_000_000  # cells of the (T, K) window: about 160 MB per pmf
DATASETS = "binary randomized response, D = (1, 0, ..., 0), D' = (0, 0, ..., 0) (substitution)"
_W = 12.0


def rr_sampled_pair(eps0: float, n: int, q: float) -> tuple:
    """(P, Q): the pmfs of (T, K) under D and D' on the window, flattened; ValueError when the
    window would exceed :data:`LOWER_MAX_CELLS`."""
    from scipy.stats import binom

    n1 = n - 1
    p0 = 1.0 / (1.0 + math.exp(eps0))
    mu, sd = n1 * q, math.sqrt(n1 * q * (1 - q))
    t_lo, t_hi = max(0, int(mu - _W * sd - 1)), min(n1, int(mu + _W * sd + 1))
    sk = math.sqrt(max(t_hi * p0 * (1 - p0), 1.0))
    k_lo, k_hi = max(0, int(t_lo * p0 - _W * sk - 1)), min(t_hi + 1, int(t_hi * p0 + _W * sk + 2))
    rows, cols = t_hi - t_lo + 2, k_hi - k_lo + 1
    if rows * cols > LOWER_MAX_CELLS:
        raise ValueError(f"sampling lower bound: the window of (reports, ones) has {rows * cols:.3g} cells, "
                         f"over the limit {LOWER_MAX_CELLS:.0e} (n q too large)")
    ts = np.arange(t_lo, t_hi + 1)
    ks = np.arange(k_lo, k_hi + 1)
    others = binom.pmf(ts, n1, q)[:, None] * binom.pmf(ks[None, :], ts[:, None], p0)  # O(t, k)
    out = []
    for x in (1, 0):  # user 1's input under D, D'
        px = math.exp(eps0) / (1 + math.exp(eps0)) if x else p0  # P(report 1)
        law = np.zeros((rows, cols))  # rows: T = t_lo .. t_hi + 1
        law[:-1, :] += (1 - q) * others
        law[1:, :] += q * (1 - px) * others  # a 0: T + 1, K
        law[1:, 1:] += q * px * others[:, :-1]  # a 1: T + 1, K + 1
        out.append(law.ravel())
    return out[0], out[1]


def _lower_div(p: np.ndarray, q: np.ndarray, eps: float) -> float:
    s = float(np.sum(np.maximum(p - math.exp(eps) * q, 0.0)))
    return max(0.0, s * (1 - 1e-9) - 1e-12)


def rr_sampled_lower_delta(params: Params, n: int, q: float, eps: float) -> float:
    """A lower bound on the true delta(eps) of binary RR with Poisson sampling (substitution),
    the larger of the two orders of the named pair (module docstring)."""
    if params.name != "rr":
        raise ValueError("sampling lower bound: only for binary randomized response (--mechanism rr)")
    p, qq = rr_sampled_pair(float(params.eps0), n, q)
    return max(_lower_div(p, qq, eps), _lower_div(qq, p, eps))


def rr_sampled_lower_epsilon(params: Params, n: int, delta: float, q: float, rounds: int = 1,
                             steps: int = 200) -> Optional[float]:
    """A lower bound on the true eps_c after ``rounds`` rounds (the same named pair each round):
    the largest eps found with lower delta(eps) > ``delta`` (0.0 if none)."""
    delta = validate_delta(delta)
    if params.name != "rr":
        raise ValueError("sampling lower bound: only for binary randomized response (--mechanism rr)")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= LOWER_MAX_ROUNDS:
        raise ValueError(f"rounds must be an integer in [1, {LOWER_MAX_ROUNDS}] for the sampling lower bound, got {rounds!r}")
    p, qq = rr_sampled_pair(float(params.eps0), n, q)
    if rounds == 1:
        def dl(e):
            return max(_lower_div(p, qq, e), _lower_div(qq, p, e))
    else:
        from accountant.composition import pld as _pld

        # the grid: the one-round lower eps over ``steps`` (losses rounded down by at most a step)
        step = max(rr_sampled_lower_epsilon(params, n, delta, q, 1), 1e-6) / steps
        plds = [_pld.self_compose(_pld.from_pmfs(a, b, step, pessimistic=False), rounds) for a, b in ((p, qq), (qq, p))]

        def dl(e):
            return max(x.get_delta(e) for x in plds)
    lo, hi = 0.0, float(params.eps0) * rounds
    if dl(0.0) <= delta:
        return 0.0
    while hi - lo > 1e-7 * hi:
        mid = 0.5 * (lo + hi)
        if dl(mid) > delta:
            lo = mid
        else:
            hi = mid
    return lo
