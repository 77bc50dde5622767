"""Brute force for finite randomizers: the exact law of the shuffled output (the histogram of
the reports) and the supremum of the hockey-stick divergence over every dataset, at small n."""
from __future__ import annotations

import itertools
import math

import numpy as np


def shuffled_law(R: np.ndarray, inputs) -> dict:
    """Exact law of the output histogram of users with these inputs (dynamic programming)."""
    law = {(0,) * R.shape[1]: 1.0}
    for x in inputs:
        nxt = {}
        for h, p in law.items():
            for y in range(R.shape[1]):
                if R[x, y] > 0:
                    g = list(h)
                    g[y] += 1
                    g = tuple(g)
                    nxt[g] = nxt.get(g, 0.0) + p * R[x, y]
        law = nxt
    return law


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
