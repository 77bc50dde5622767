"""k-RR's worst case over datasets is not a function of (m1, m2, m0) alone (issue 41 item 2).

The issue's premise: "by symmetry the worst case depends on how many other users hold x1, x1'
and the rest". Exact enumeration of the shuffled histogram says otherwise: which of the k - 2
other values the rest hold changes delta (the full histogram, not only the counts of x1 and x1',
is the analyst's view), and at n = 4 the worst dataset puts every other user on ONE value
outside {x1, x1'}. The proved bound (the exact blanket) and the certified lower bound bracket
the true supremum over every dataset (docs/proved.md, "Which randomizers are exact").
"""
from __future__ import annotations

import itertools
import math
from collections import defaultdict

import pytest

from accountant import make_params
from accountant.bounds.registry import bound_delta


def _law(k: int, eps0: float, data: tuple) -> dict:
    e = math.exp(eps0)
    p, q = e / (e + k - 1), 1.0 / (e + k - 1)
    law: dict = defaultdict(float)
    for ys in itertools.product(range(k), repeat=len(data)):
        pr = math.prod(p if x == y else q for x, y in zip(data, ys))
        h = [0] * k
        for y in ys:
            h[y] += 1
        law[tuple(h)] += pr
    return law


def _delta(k: int, eps0: float, others: tuple, eps: float) -> float:
    P, Q = _law(k, eps0, (0,) + others), _law(k, eps0, (1,) + others)
    e = math.exp(eps)
    return max(sum(max(P[h] - e * Q.get(h, 0.0), 0.0) for h in P),
               sum(max(Q[h] - e * P.get(h, 0.0), 0.0) for h in Q))


def test_the_rest_of_the_dataset_matters_beyond_its_count():
    # k = 5, n = 4: the other three users outside {x1, x1'} = {0, 1}, on one value or spread
    same, spread = _delta(5, 2.0, (2, 2, 2), 0.5), _delta(5, 2.0, (2, 3, 4), 0.5)
    assert same - spread > 1e-4          # 0.349244 against 0.349119
    assert abs(same - 0.349244) < 1e-6


@pytest.mark.parametrize("k", [4, 5])
@pytest.mark.parametrize("eps", [0.2, 0.5, 1.0])
def test_bounds_bracket_the_supremum_over_every_dataset(k, eps):
    eps0, n = 2.0, 4
    worst = max((_delta(k, eps0, o, eps), o) for o in itertools.combinations_with_replacement(range(k), n - 1))
    params = make_params("krr", eps0, k=k)
    lo = bound_delta("lower", params, n, eps)
    up = bound_delta("blanket", params, n, eps)
    assert lo[0] <= worst[0] * (1 + 1e-9) + 1e-15
    assert worst[0] <= up[1] * (1 + 1e-9) + 1e-15
    # a worst dataset puts every other user on one value outside {x1, x1'} (here; not proved)
    concentrated = _delta(k, eps0, (2,) * (n - 1), eps)
    assert concentrated >= worst[0] * (1 - 1e-12) - 1e-15
