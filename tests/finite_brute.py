"""Brute force for finite randomizers: the exact law of the shuffled output (the histogram of
the reports) and the supremum of the hockey-stick divergence over every dataset, at small n."""
from __future__ import annotations

import itertools
import math

import numpy as np


def histogram_law(rows, one=1.0) -> dict:
    """Exact law of the histogram of independent reports, report i drawn from ``rows[i]`` (a
    probability vector; any number type, e.g. mpmath's with ``one = mpf(1)``), by dynamic
    programming over the users."""
    K = len(rows[0])
    law = {(0,) * K: one}
    for row in rows:
        nxt = {}
        for h, p in law.items():
            for y in range(K):
                if row[y] == 0:
                    continue
                g = list(h)
                g[y] += 1
                g = tuple(g)
                nxt[g] = nxt.get(g, 0.0) + p * row[y]
        law = nxt
    return law


def shuffled_law(R: np.ndarray, inputs) -> dict:
    """Exact law of the output histogram of users with these inputs (rows of R)."""
    return histogram_law([R[x] for x in inputs])


def brute_delta(R: np.ndarray, n: int, eps: float) -> float:
    """sup over every dataset (all multisets of the other n - 1 inputs, every ordered pair)."""
    k = R.shape[0]
    u = math.exp(eps)
    best = 0.0
    for others in itertools.combinations_with_replacement(range(k), n - 1):
        for x1, x1p in itertools.permutations(range(k), 2):
            P = shuffled_law(R, (x1,) + others)
            Q = shuffled_law(R, (x1p,) + others)
            d = math.fsum(max(P.get(h, 0.0) - u * Q.get(h, 0.0), 0.0) for h in set(P) | set(Q))
            best = max(best, d)
    return best
