"""The (eps0, delta0)-LDP bound (FMT21 Theorem 3.8, ``clone-approximate``): delta0 = 0 is the pure
clone exactly, monotone in delta0, refusals, and the claimed (eps, delta) against the exact
shuffled law of small (eps0, delta0)-LDP randomizers (mpmath enumeration, n = 2..3)."""
from __future__ import annotations

import itertools
import math

import mpmath as mp
import pytest

from accountant import ApproximateLDP, GenericLDP, make_params
from accountant.bounds import approximate_ldp as A
from accountant.bounds.clone_bound import clone_bound, clone_delta
from accountant.bounds.registry import certified_epsilon, compute_params_bound, proved_delta
from accountant.interfaces.cli.main import run
from tests.finite_brute import histogram_law


def test_delta0_zero_is_the_pure_bound_exactly():
    for eps0, n in ((1.0, 1000), (4.0, 100_000)):
        pure = clone_bound(GenericLDP(eps0), n, 1e-6, 1e-9)
        zero = A.approximate_clone_bound(ApproximateLDP(eps0, 0.0), n, 1e-6, 1e-9)
        assert zero.epsilon == pure.epsilon
        assert A.approximate_clone_delta(ApproximateLDP(eps0, 0.0), n, 0.1)[1] == clone_delta(GenericLDP(eps0), n, 0.1)[1]
    # the option: delta0 = 0 (or absent) builds the pure type, so every number is the pure one
    assert make_params("generic", 1.0, delta0=0.0) == GenericLDP(1.0) == make_params("generic", 1.0)
    assert isinstance(make_params("generic", 1.0, delta0=1e-9), ApproximateLDP)
    assert certified_epsilon(make_params("generic", 1.0, delta0=0.0), 1000, 1e-6).epsilon == \
        certified_epsilon(GenericLDP(1.0), 1000, 1e-6).epsilon


def test_monotone_in_delta0():
    n, delta = 1000, 1e-6
    eps = [certified_epsilon(make_params("generic", 1.0, delta0=d0), n, delta).epsilon
           for d0 in (0.0, 1e-13, 1e-12, 1e-11, 1e-10, 1e-9, 1e-8)]
    assert all(a <= b for a, b in zip(eps, eps[1:])), eps
    assert eps[0] < eps[3] < 1.0
    dl = [proved_delta(make_params("generic", 1.0, delta0=d0), n, 0.2)[0] for d0 in (0.0, 1e-12, 1e-10, 1e-8)]
    assert all(a <= b for a, b in zip(dl, dl[1:])), dl


def test_term_and_theorem_named():
    p = ApproximateLDP(1.0, 1e-11)
    assert A.delta0_term(p, 1000, 0.3) == pytest.approx((math.exp(0.3) + 1) * (1 + math.exp(-1) / 2) * 1000 * 1e-11,
                                                         rel=1e-11)
    assert A.delta0_term(p, 1000, 0.3) >= (math.exp(0.3) + 1) * (1 + math.exp(-1) / 2) * 1000 * 1e-11
    r = compute_params_bound("clone-approximate", p, 1000, 1e-6)
    assert "Theorem 3.8" in r.reason and r.achieved_delta <= 1e-6
    # the clone's delta at the answer plus the term is within delta (one number: the delta form)
    assert A.approximate_clone_delta(p, 1000, r.epsilon)[1] <= 1e-6
    # a pure-LDP bound is refused for it, with the reason
    r = compute_params_bound("blanket-bennett-generic", p, 1000, 1e-6)
    assert not r.applicable and "delta0" in r.reason


def test_refusals():
    with pytest.raises(ValueError, match="delta0 must be a number in"):
        make_params("generic", 1.0, delta0=1.0)
    with pytest.raises(ValueError, match="delta0 must be a number in"):
        make_params("generic", 1.0, delta0=-1e-9)
    with pytest.raises(ValueError, match="delta0 must be at most delta"):
        certified_epsilon(make_params("generic", 1.0, delta0=1e-5), 1000, 1e-6)
    with pytest.raises(ValueError, match="delta0"):
        run(["compose", "--rounds", "2", "--n", "1000", "--eps0", "1", "--delta", "1e-6", "--delta0", "1e-12"])
    with pytest.raises(ValueError, match="delta0"):
        make_params("krr", 1.0, k=3, delta0=1e-9)
    # delta >= delta0 but nothing below eps0 from the theorem: eps0 by post-processing, said so
    r = certified_epsilon(make_params("generic", 4.0, delta0=1e-7), 1000, 1e-6)
    assert r.epsilon == 4.0 and "post-processing" in r.reason


def _leaky(eps0: float, delta0: float, k: int):
    """k-RR(eps0) whose first input reveals itself with probability delta0 (an output of its own),
    in mpmath: (eps0, delta0)-LDP."""
    E = mp.e ** eps0
    rows = [[(E if j == x else mp.mpf(1)) / (E + k - 1) for j in range(k)] + [mp.mpf(0)] for x in range(k)]
    rows[0] = [v * (1 - delta0) for v in rows[0][:-1]] + [mp.mpf(delta0)]
    return rows


def _truth(rows, n: int, eps: float):
    """sup over every dataset (the other users' inputs, both orders of user 1's pair) of the
    hockey-stick divergence of the exact shuffled laws."""
    u, best = mp.e ** eps, mp.mpf(0)
    k = len(rows)
    for others in itertools.combinations_with_replacement(range(k), n - 1):
        for a, b in itertools.permutations(range(k), 2):
            P = histogram_law([rows[a]] + [rows[x] for x in others], mp.mpf(1))
            Q = histogram_law([rows[b]] + [rows[x] for x in others], mp.mpf(1))
            best = max(best, mp.fsum(max(P.get(h, 0) - u * Q.get(h, 0), 0) for h in set(P) | set(Q)))
    return best


@pytest.mark.parametrize("n,k", [(2, 2), (3, 2), (2, 3), (3, 3)])
def test_claim_holds_against_the_exact_shuffled_law(n, k):
    mp.mp.dps = 40
    eps0, delta0 = 1.0, 1e-3
    rows = _leaky(eps0, delta0, k)
    params = make_params("generic", eps0, delta0=delta0)
    for delta in (1e-2, 5e-2):
        r = certified_epsilon(params, n, delta)
        assert _truth(rows, n, r.epsilon) <= delta * (1 + 1e-12), (n, k, delta, r)
    for eps in (0.1, 0.5, 1.5):
        up = proved_delta(params, n, eps)[0]
        assert _truth(rows, n, eps) <= up * (1 + 1e-12), (n, k, eps, up)
    # the leak is seen: the truth is >= delta0 at every eps (why delta < delta0 is refused)
    assert _truth(rows, n, 30.0) >= delta0 * (1 - 1e-12) * (1 - 1e-30)


def test_inverses_invert_the_forward():
    """users and local-epsilon with --delta0: the forward at the answer meets the target, one
    user fewer (users) does not."""
    out = run(["users", "--mechanism", "generic", "--eps0", "1", "--eps", "0.3", "--delta", "1e-6",
               "--delta0", "1e-11", "--json"])
    n = out["n"]
    p = make_params("generic", 1.0, delta0=1e-11)
    assert out["bound_at_n"] == "clone-approximate"
    assert certified_epsilon(p, n, 1e-6).epsilon <= 0.3 < certified_epsilon(p, n - 1, 1e-6).epsilon
    out = run(["local-epsilon", "--mechanism", "generic", "--n", "1000", "--eps", "0.2", "--delta", "1e-6",
               "--delta0", "1e-11", "--json"])
    e0 = out["eps0"]
    assert certified_epsilon(make_params("generic", e0, delta0=1e-11), 1000, 1e-6).epsilon <= 0.2
    # delta0 costs: the pure randomizer's eps0 is larger, and above the approximate one's target
    pure = run(["local-epsilon", "--mechanism", "generic", "--n", "1000", "--eps", "0.2", "--delta", "1e-6", "--json"])
    assert pure["eps0"] > e0
    assert certified_epsilon(make_params("generic", pure["eps0"], delta0=1e-11), 1000, 1e-6).epsilon > 0.2
