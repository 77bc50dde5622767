"""The worst-hash lower bound (accountant.bounds.laws.worst_hash_lower_law): one fixed
clean hash is a hash family, so the exact divergence of its shuffled outputs is a lower
bound on the worst family's eps_c, while the exact blanket bounds every family.

Checked here: the closed-form category laws against the mechanisms' own output laws under
the constructed hashes; the bracket [lower-worst-hash, blanket] against exact enumeration of
the shuffled outputs (full alphabet) for tiny n; and its width on a grid."""
import itertools
import math

import numpy as np
import pytest

from accountant.bounds import laws as M
from accountant.bounds.registry import compute_params_bound
from accountant.engines.enumeration import shuffled_hockey_stick_common_others
from accountant.core.params import make_params
from mechanisms.randomizers.coco import coco_output_distribution
from mechanisms.randomizers.collision import collision_output_distribution


def _law_probs(law):
    """(P_x1, P_x1', P_x0) on the categories of a lower count law."""
    P0 = np.array([float(p) for p in law.p])
    return (np.array([float(a * p) for a, p in zip(law.a, law.p)]),
            np.array([float(b * p) for b, p in zip(law.b, law.p)]), P0)


def _collision_hash(s, t):
    """Bucket of each item of x1, x1', x0 under the clean hash: x1 -> A1 = [0, s), x1' ->
    A2 = [s, 2s), x0's s items spread over m = min(s, t - 2s) buckets outside both (one
    bucket of each of A1, A2 when t = 2s)."""
    m = min(s, t - 2 * s)
    h_x0 = [2 * s + i % m for i in range(s)] if m > 0 else [0, s] + [0] * (s - 2)
    return np.arange(s), np.arange(s, 2 * s), np.array(h_x0)


def _collision_full_laws(eps0, s, t):
    return [collision_output_distribution(h, eps0, t) for h in _collision_hash(s, t)]


def _coco_hash(s, t):
    """(H1, H2, A1, A2) of the clean CoCo hash (all signs +1, so an entry favours the upper
    bucket of its pair iff H2 = +1): x1 = coordinates 0..s-1 in pairs 0..s-1 (lower buckets),
    x1' = s..2s-1 sharing the first q = max(0, 2s - t/2) of those pairs (upper buckets) and
    alone in pairs s..2s-q-1 (upper); x0 = 2s..3s-1 spread over m = min(s, t - 2s) pairs that
    hold no A bucket on the bucket it favours: the other bucket of a pair of x1 or x1' alone,
    or a free pair."""
    half = t // 2
    q = max(0, 2 * s - half)
    x1p_pairs = list(range(q)) + list(range(s, 2 * s - q))
    slots = ([(k, True) for k in range(q, s)] + [(k, False) for k in range(s, 2 * s - q)]
             + [(k, False) for k in range(2 * s - q, half)])
    m = min(s, t - 2 * s)
    assert len(slots) >= m >= 1
    x0 = [slots[i % m] for i in range(s)]
    h1 = np.array(list(range(s)) + x1p_pairs + [k for k, _ in x0], dtype=np.int64)
    h2 = np.array([-1] * s + [1] * s + [1 if up else -1 for _, up in x0], dtype=np.int64)
    return h1, h2, np.arange(s), np.array(x1p_pairs) + half


def _coco_full_laws(eps0, s, t):
    h1, h2, _, _ = _coco_hash(s, t)
    idx = [np.arange(s), np.arange(s, 2 * s), np.arange(2 * s, 3 * s)]
    return [coco_output_distribution(i, np.ones(s), h1, h2, eps0, t) for i in idx]


def _full_laws(mech, eps0, s, t):
    return (_collision_full_laws if mech == "collision" else _coco_full_laws)(eps0, s, t)


def _categories(P, s, t, mech):
    """Sum a full output law over (A1, A2, rest)."""
    if mech == "collision":
        a1, a2 = np.arange(s), np.arange(s, 2 * s)
    else:
        a1, a2 = _coco_hash(s, t)[2:]
    rest = np.setdiff1d(np.arange(t), np.concatenate([a1, a2]))
    return np.array([P[a1].sum(), P[a2].sum(), P[rest].sum()])


@pytest.mark.parametrize("mech,s,t", [("collision", 1, 3), ("collision", 3, 6), ("collision", 3, 7),
                                      ("collision", 4, 11), ("collision", 4, 36), ("coco", 2, 6),
                                      ("coco", 4, 10), ("coco", 5, 14), ("coco", 4, 36), ("coco", 8, 20)])
@pytest.mark.parametrize("eps0", [0.1, 1.7])
def test_closed_form_matches_mechanism_output_law(mech, s, t, eps0):
    full = _full_laws(mech, eps0, s, t)
    for P in full:
        assert P.sum() == pytest.approx(1.0, abs=1e-14)
    got = [_categories(P, s, t, mech) for P in full]
    want = _law_probs(M.worst_hash_lower_law(eps0, s, t))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g[:len(w)], w, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("s,t", [(2, 4), (2, 5), (3, 7), (3, 8), (4, 9), (4, 11)])
def test_x0_mass_on_a1_is_the_smallest_possible(s, t):
    """Over every map of x0's s items to [t] (Collision), the smallest mass x0 can put on A1
    and on A2 alike is the law's p0."""
    eps0 = 0.9
    a1, a2 = np.arange(s), np.arange(s, 2 * s)
    best = math.inf
    for h in itertools.product(range(t), repeat=s):
        P = collision_output_distribution(np.array(h), eps0, t)
        if abs(P[a1].sum() - P[a2].sum()) < 1e-13:
            best = min(best, P[a1].sum())
    p0 = float(M.worst_hash_lower_law(eps0, s, t).p[0])
    assert best == pytest.approx(p0, rel=1e-12)


@pytest.mark.parametrize("mech,s,t", [("collision", 1, 3), ("collision", 2, 5), ("collision", 2, 7),
                                      ("coco", 2, 6), ("coco", 2, 10)])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_bracket_against_enumeration(mech, s, t, n):
    """lower-worst-hash <= exact shuffled divergence of the fixed hash (full alphabet, every
    histogram) <= exact blanket (50-digit multinomial sum), at every eps."""
    eps0 = 1.2
    full = _full_laws(mech, eps0, s, t)
    eps = [0.0, 0.1, 0.4, 0.8, 1.1]
    exact = shuffled_hockey_stick_common_others(full[0], full[1], full[2], n, eps)
    params = make_params(mech, eps0, s=s, t=t, d=3 * s)
    ll, why = M.worst_hash_lower(params)
    assert why is None
    blanket = M.count_law_delta_exact(n, M.blanket_count_law(mech, eps0, s, t), eps, side="upper")
    for e, ex, up in zip(eps, exact, blanket):
        lo = ll.delta(n, e)
        assert lo <= ex * (1 + 1e-12) + 1e-300
        assert ex <= float(up) * (1 + 1e-12)
        if e < 0.5:
            assert lo > 0.0


@pytest.mark.parametrize("mech", ["collision", "coco"])
@pytest.mark.parametrize("n", [10**3, 10**4, 10**5])
def test_bracket_width_on_figure2_range(mech, n):
    """The exact blanket is the worst-family eps_c to within 2% for Collision (6% for CoCo,
    whose Theorem 7 t is below 3s for eps0 < ln 2) on the Figure 2 range (s = 4 and 64, eps0
    0.1..5, the default t): within 0.1% wherever x0 fits outside A1 and A2 (t >= 3s) at
    n >= 1e4, and never below the lower end."""
    for s in (4, 64):
        for eps0 in (0.1, 0.3, 1.0, 2.5, 5.0):
            p = make_params(mech, eps0, s=s, d=3 * s)
            up = compute_params_bound("blanket", p, n, 1e-6)
            lo = compute_params_bound("lower-worst-hash", p, n, 1e-6)
            assert lo.applicable, lo.reason
            ratio = up.epsilon / lo.epsilon
            assert 1.0 <= ratio < (1.02 if mech == "collision" else 1.06), (s, eps0, ratio)
            if n >= 10**4 and p.t >= 3 * s:
                assert ratio < 1.001, (s, eps0, ratio)


def test_not_available_with_reason():
    p = make_params("collision", 1.0, s=3, d=8)
    res = compute_params_bound("lower-worst-hash", p, 1000, 1e-6)
    assert not res.applicable and "d >= 3 s = 9" in res.reason
    for s, t in ((3, 5), (1, 2)):
        res = compute_params_bound("lower-worst-hash", make_params("collision", 1.0, s=s, t=t), 1000, 1e-6)
        assert not res.applicable and f"t >= 2s (and s >= 2 at t = 2s), got s = {s}, t = {t}" in res.reason
    res = compute_params_bound("lower-worst-hash", make_params("collision", 1.0, s=3, t=6, d=9), 1000, 1e-6)
    assert res.applicable and 0.0 < res.epsilon <= compute_params_bound("blanket", make_params(
        "collision", 1.0, s=3, t=6), 1000, 1e-6).epsilon
    with pytest.raises(ValueError, match="not available for mechanism 'krr'"):
        from accountant import ShuffleAccountant
        ShuffleAccountant(make_params("krr", 1.0, k=4), 1000, bound="lower-worst-hash")


def test_worst_hash_above_random_hash_lower():
    """The idealised random hash is more private than the worst family: its certified lower
    end sits below the worst-hash one (n = 1e4, s = 4, eps0 = 2: 0.07054 against 0.0825)."""
    p = make_params("collision", 2.0, s=4, d=12)
    lo_random = compute_params_bound("lower", p, 10**4, 1e-6).epsilon
    lo_worst = compute_params_bound("lower-worst-hash", p, 10**4, 1e-6).epsilon
    assert lo_random == pytest.approx(0.07054, rel=2e-4)
    assert lo_worst == pytest.approx(0.08254, rel=2e-4)
    assert math.isclose(lo_worst, compute_params_bound("blanket", p, 10**4, 1e-6).epsilon, rel_tol=2e-4)
