"""Issue 43, Collision and CoCo with dummies: a dummy (the randomizer's output on a uniformly
random input, s of the d coordinates and their signs) falls in S with the chance of
:func:`collision_dummy_chance` / :func:`coco_dummy_chance`. Checked by exact enumeration (every
input, every hash, every output, in fractions) at tiny d, s, t, by Monte Carlo with the
mechanisms' own samplers at moderate size, and the count pair with dummies by exact enumeration
of the whole shuffled view (n + m <= 4): projected delta <= exact delta <= proved upper."""
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from accountant import make_params
from accountant.accounting import deployment_lower as DL
from accountant.accounting import deployments as D
from accountant.accounting.deployment_hits import (
    DUMMY_MAX_S,
    coco_dummy_chance,
    collision_dummy_chance,
    hit,
)
from tests.accountant.accounting.test_deployment_projection import dummies_below_full_view
from tests.accountant.accounting.test_deployments import view_law


def inputs(d, s):
    """Every input: (coordinates, signs), s distinct coordinates of [d] and s signs."""
    return [(c, g) for c in itertools.combinations(range(d), s) for g in itertools.product((-1, 1), repeat=s)]


def collision_law(items, H, E, t):
    """Definition 5 in fractions: E/Omega on the m values of H(items), the rest evenly off them."""
    s = len(items)
    omega = s * E + t - s
    img = {H[i] for i in items}
    off = (omega - E * len(img)) / ((t - len(img)) * omega)
    return [E / omega if v in img else off for v in range(t)]


def coco_law(coords, signs, h1, h2, E, t):
    """Algorithm 1 averaged over its random order, in fractions: an occupied pair with r entries
    gives (1/r) sum_i (E [k = favoured_i] + [k = other_i])/Omega, a free bucket the rest evenly."""
    s, h = len(coords), t // 2
    omega = s * E + t - s
    P = [Fraction(0)] * t
    pairs = {}
    for j, b in zip(coords, signs):
        pairs.setdefault(h1[j], []).append((j, b))
    for p, ents in pairs.items():
        for j, b in ents:
            fav = p + h * (b * h2[j] == 1)
            P[fav] += E / (omega * len(ents))
            P[(fav + h) % t] += 1 / (omega * len(ents))
    m = len(pairs)
    free = (omega - m * (E + 1)) / ((t - 2 * m) * omega)
    for p in range(h):
        if p not in pairs:
            P[p] = P[p + h] = free
    return P


@pytest.mark.parametrize("d,s,t", [(2, 1, 2), (3, 1, 3), (3, 2, 3), (4, 1, 2), (4, 2, 3)])
def test_collision_dummy_chance_is_the_enumerated_one(d, s, t):
    """Every input X (uniform), every function H of the 2d signed items to [t], every output:
    P(z in H(x1)) in fractions, x1 = coordinates 0..s-1 with signs +1, e^eps0 = 3 and 5/2; the
    mechanism's own law agrees with the fractions."""
    from mechanisms.randomizers.collision import collision_output_distribution

    x1 = [2 * j + 1 for j in range(s)]
    X = [[2 * j + (b > 0) for j, b in zip(c, g)] for c, g in inputs(d, s)]
    hashes = list(itertools.product(range(t), repeat=2 * d))
    for E in (Fraction(3), Fraction(5, 2)):
        tot = Fraction(0)
        for H in hashes:
            S = {H[i] for i in x1}
            for items in X:
                law = collision_law(items, H, E, t)
                tot += sum(law[v] for v in S)
        exact = tot / (len(hashes) * len(X))
        assert collision_dummy_chance(s, t, d, float(E)) == pytest.approx(float(exact), rel=1e-13, abs=0)
    H = hashes[len(hashes) // 3]
    mech = collision_output_distribution([H[i] for i in X[-1]], math.log(3), t)
    assert np.allclose(mech, [float(v) for v in collision_law(X[-1], H, Fraction(3), t)], rtol=1e-13)


@pytest.mark.parametrize("d,s,t", [(2, 1, 4), (3, 1, 4), (2, 2, 6), (4, 2, 6)])
def test_coco_dummy_chance_is_the_enumerated_one(d, s, t):
    """Every input X, every (H1, H2), every output, in fractions: P(z is the favoured bucket
    H(j+) of an entry j of x1 (coordinates 0..s-1, signs +1) alone in its pair); the mechanism's
    own law agrees with the fractions."""
    from mechanisms.randomizers.coco import coco_output_distribution

    h, x1 = t // 2, list(range(s))
    X = inputs(d, s)
    hashes = list(itertools.product(itertools.product(range(h), repeat=d), itertools.product((-1, 1), repeat=d)))
    for E in (Fraction(3), Fraction(7, 2)):
        tot = Fraction(0)
        for h1, h2 in hashes:
            pairs = [h1[j] for j in x1]
            S = {h1[j] + h * (h2[j] > 0) for j in x1 if pairs.count(h1[j]) == 1}
            for c, g in X:
                law = coco_law(c, g, h1, h2, E, t)
                tot += sum(law[v] for v in S)
        exact = tot / (len(hashes) * len(X))
        assert coco_dummy_chance(s, t, d, float(E)) == pytest.approx(float(exact), rel=1e-13, abs=0)
    h1, h2 = hashes[len(hashes) // 3]
    c, g = X[-1]
    mech = coco_output_distribution(list(c), list(g), list(h1), list(h2), math.log(3), t)
    assert np.allclose(mech, [float(v) for v in coco_law(c, g, h1, h2, Fraction(3), t)], rtol=1e-13)


def _uniform_inputs(rng, N, d, s):
    coords = np.argsort(rng.random((N, d)), axis=1)[:, :s]
    signs = rng.choice(np.array([-1, 1]), size=(N, s))
    return coords, signs


def test_collision_dummy_chance_by_monte_carlo():
    """d = 10, s = 4, t = 12, eps0 = 1: 400,000 dummies drawn with the mechanism's sampler
    (uniform input, a uniform function on the 20 signed items): the hit rate is within 5 sd of
    the formula, and more than 10 sd away from the chance c of a report of disjoint items (the
    overlap matters)."""
    from mechanisms.randomizers.collision import sample_collision

    d, s, t, eps0, N = 10, 4, 12, 1.0, 400_000
    rng = np.random.default_rng(20261127)
    coords, signs = _uniform_inputs(rng, N, d, s)
    items = 2 * coords + (signs > 0)
    H = rng.integers(0, t, size=(N, 2 * d), dtype=np.int64)
    rows = np.arange(N)[:, None]
    z = sample_collision(H[rows, items], eps0, t, rng)
    x1 = 2 * np.arange(s) + 1
    rate = float(np.mean(np.any(H[rows, x1[None, :]] == z[:, None], axis=1)))
    p = collision_dummy_chance(s, t, d, math.exp(eps0))
    sd = math.sqrt(p * (1 - p) / N)
    assert abs(rate - p) < 5 * sd, (rate, p, sd)
    assert abs(rate - hit(make_params("collision", eps0, s=s, t=t, d=d)).c) > 10 * sd


def test_coco_dummy_chance_by_monte_carlo():
    """d = 12, s = 4, t = 12, eps0 = 1: 400,000 dummies from the mechanism's sampler (uniform
    input, uniform H1, H2): the hit rate within 5 sd of the formula, more than 10 sd from c."""
    from mechanisms.randomizers.coco import sample_coco

    d, s, t, eps0, N = 8, 4, 12, 2.0, 400_000
    h = t // 2
    rng = np.random.default_rng(43)
    coords, signs = _uniform_inputs(rng, N, d, s)
    H1 = rng.integers(0, h, size=(N, d), dtype=np.int64)
    H2 = rng.choice(np.array([-1, 1]), size=(N, d))
    rows = np.arange(N)[:, None]
    z = sample_coco(H1[rows, coords], (signs > 0) == (H2[rows, coords] > 0), eps0, t, rng)
    p1 = H1[:, :s]  # x1: coordinates 0..s-1, signs +1
    alone = (p1[:, :, None] == p1[:, None, :]).sum(axis=2) == 1
    fav = p1 + h * (H2[:, :s] > 0)
    rate = float(np.mean(np.any(alone & (fav == z[:, None]), axis=1)))
    p = coco_dummy_chance(s, t, d, math.exp(eps0))
    sd = math.sqrt(p * (1 - p) / N)
    assert abs(rate - p) < 5 * sd, (rate, p, sd)
    assert abs(rate - hit(make_params("coco", eps0, s=s, t=t, d=d)).c) > 10 * sd


def test_dummy_chance_limits_and_ends():
    """d large (L = 0 almost surely) gives c; CoCo at d = s (X on x1's coordinates, signs uniform)
    gives a (e^eps0 + 1)/(2 e^eps0); s above DUMMY_MAX_S is refused with the limit, for the
    dummies only."""
    e = math.exp(1.5)
    for name, f in (("collision", collision_dummy_chance), ("coco", coco_dummy_chance)):
        hh = hit(make_params(name, 1.5, s=3, t=12, d=10 ** 9), 2, 1)
        assert f(3, 12, 10 ** 9, e) == pytest.approx(hh.c, rel=1e-7)
        assert hh.c < hh.dummy < hh.a
    # CoCo, d = s: every coordinate shared, each occupied pair with a lone x1 entry gives (e + 1)/(2 Omega)
    h = hit(make_params("coco", 1.5, s=3, t=12, d=6))
    assert coco_dummy_chance(3, 12, 3, e) == pytest.approx(h.a * (e + 1) / (2 * e), rel=1e-13)
    with pytest.raises(ValueError, match=f"s > {DUMMY_MAX_S}"):
        collision_dummy_chance(DUMMY_MAX_S + 1, 2 * DUMMY_MAX_S + 4, 10 ** 6, e)
    # above the limit only the dummies' lower bound is refused (with the limit), not the others
    big = make_params("coco", 1.0, s=DUMMY_MAX_S + 1, d=10 ** 5)
    assert math.isnan(hit(big).dummy) and hit(big).c > 0
    lo, why, ds = DL.count_rounds_lower(big, 1000, 10, 1, 1e-6, 1.0, [])
    assert lo is None and ds is None and f"s > {DUMMY_MAX_S} (DUMMY_MAX_S" in why, why


def merged(M):
    """The matrix with identical columns added up (outputs with the same probability under every
    input: their merger is a sufficient statistic of each report, the view's divergence unchanged)."""
    groups = {}
    for j in range(M.shape[1]):
        groups.setdefault(tuple(np.round(M[:, j], 15)), []).append(j)
    return np.array([[M[x, js].sum() for js in groups.values()] for x in range(M.shape[0])])


def collision_matrix(d, s, t, eps0):
    """Rows: every input (:func:`inputs`); columns (H, z), H every function of the 2d items."""
    X = [[2 * j + (b > 0) for j, b in zip(c, g)] for c, g in inputs(d, s)]
    hashes = list(itertools.product(range(t), repeat=2 * d))
    E = Fraction(math.exp(eps0))
    return np.array([[float(v) / len(hashes) for H in hashes for v in collision_law(x, H, E, t)] for x in X])


def coco_matrix(d, s, t, eps0):
    hashes = list(itertools.product(itertools.product(range(t // 2), repeat=d), itertools.product((-1, 1), repeat=d)))
    E = Fraction(math.exp(eps0))
    return np.array([[float(v) / len(hashes) for h1, h2 in hashes for v in coco_law(c, g, h1, h2, E, t)]
                     for c, g in inputs(d, s)])


@pytest.mark.parametrize("name,t", [("collision", 2), ("collision", 3), ("coco", 4)])
def test_dummies_projection_below_the_full_view_below_the_upper(name, t):
    """d = 2, s = 1 under the random hash: x1 = (coordinate 0, +1), x1' = x0 = (coordinate 1, +1),
    dummies the mean of the rows (a uniform input). Exact enumeration of the shuffled view of n
    users and m dummies (n + m <= 4 for Collision, <= 3 for CoCo): the count pair's certified delta
    <= the exact delta of the view <= the proved upper bound at n + m; the count law of the
    chances is the pair's (the projection is exact)."""
    eps0, d, s = 1.0, 2, 1
    params = make_params(name, eps0, s=s, t=t, d=d)
    M = merged((collision_matrix if name == "collision" else coco_matrix)(d, s, t, eps0))
    x1, x0 = inputs(d, s).index(((0,), (1,))), inputs(d, s).index(((1,), (1,)))
    h = hit(params, 2, 1)
    sizes = ((2, 1), (3, 1), (2, 2), (1, 3)) if name == "collision" else ((2, 1), (1, 2))
    positive = dummies_below_full_view(params, M, x1, x0, x0, (h.a, h.b, h.c, h.dummy), sizes)
    assert positive >= 4


@pytest.mark.parametrize("name", ["collision", "coco"])
def test_deployment_with_dummies_has_a_lower_bound_one_round_and_over_rounds(name):
    """The deployment with dummies gives a certified lower bound below the proved upper, one
    round and over three rounds (the count pair in every round, d given apart)."""
    from accountant.composition.rounds import RoundSpec

    params = make_params(name, 2.0, s=2, t=8, d=64)
    r = D.deployment_epsilon(params, 1000, 1e-6, dummies=100)
    assert r.lower_epsilon is not None and 0 < r.lower_epsilon <= r.epsilon, r.lower_statement
    assert "100 dummies, each the randomizer's output on a uniformly random input" in r.lower_dataset
    rr = D.deployment_rounds_epsilon(RoundSpec(1000, 2.0, name, s=2, t=8, d=64), 3, 1e-6, dummies=100)
    assert rr.lower_epsilon is not None and r.lower_epsilon < rr.lower_epsilon <= rr.epsilon, rr.lower_statement
    assert "3 rounds" in rr.lower_statement


def test_two_rounds_with_dummies_bracket_the_enumerated_view():
    """Collision d = 2, s = 1, t = 2, eps0 = 1, n = 2 users and m = 1 dummy, two rounds (fresh
    reports): the exact delta of the product of the two enumerated views (the named datasets) is
    above the target at the composed certified lower eps and at most the target at the composed
    proved upper eps."""
    from accountant.composition.rounds import RoundSpec

    eps0, d, s, t, n, m, delta = 1.0, 2, 1, 2, 2, 1, 0.05
    M = merged(collision_matrix(d, s, t, eps0))
    x1, x0 = inputs(d, s).index(((0,), (1,))), inputs(d, s).index(((1,), (1,)))

    rest = [list(M[x0])] * (n - 1) + [list(M.mean(axis=0))] * m
    one = [view_law([list(M[x])] + rest, M.shape[1]) for x in (x1, x0)]
    two = [{(a, b): pa * pb for a, pa in L.items() for b, pb in L.items()} for L in one]

    def exact(eps):
        e = math.exp(eps)
        return max(sum(max(p - e * two[j].get(k, 0.0), 0.0) for k, p in two[i].items()) for i, j in ((0, 1), (1, 0)))

    r = D.deployment_rounds_epsilon(RoundSpec(n, eps0, "collision", s=s, t=t, d=d), 2, delta, dummies=m)
    assert r.lower_epsilon is not None and r.lower_epsilon > 0, r.lower_statement
    assert exact(r.lower_epsilon) > delta >= exact(r.epsilon) - 1e-12, (r.lower_epsilon, r.epsilon)
    assert "2 rounds" in r.lower_statement
