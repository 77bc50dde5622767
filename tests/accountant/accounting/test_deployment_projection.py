"""Issue 43, the count lower bounds of every finite-output randomizer (OUE, OLH, Collision and
CoCo under the random hash, finite matrices) with dummies, several reports, sampling, mixes and rounds:
exact enumeration of the shuffled multiset at n <= 4 (every report of the full view) gives
projected pair's delta <= the exact delta of the same datasets <= the proved upper bound; the
count law recomputed from the randomizer's matrix and S equals the projection; a 50-digit
mpmath evaluation of one count pair; the lower bound never above the upper one."""
import itertools
import math

import mpmath
import numpy as np
import pytest

from accountant import FiniteRandomizer, ShuffleAccountant, make_params
from accountant.accounting import deployment_groups as G
from accountant.accounting import deployment_lower as DL
from accountant.accounting import deployments as D
from accountant.accounting.deployment_hits import hit
from tests.accountant.accounting.test_deployments import hs, view_law

EPS = (0.0, 0.1, 0.3, 0.6, 1.0)


def oue_matrix(k, eps0):
    """Rows x in [k], columns the 2^k bit vectors: bit x is 1 w.p. 1/2, every other w.p. b."""
    b = 1 / (math.exp(eps0) + 1)
    outs = list(itertools.product((0, 1), repeat=k))
    M = [[math.prod((0.5 if j == x else b) if v else (0.5 if j == x else 1 - b) for j, v in enumerate(y))
          for y in outs] for x in range(k)]
    in_s = [bool(y[0]) for y in outs]  # S = {bit x1 = 0 set}
    return np.array(M), np.array(in_s)


def olh_matrix(k, g, eps0):
    """Random hash: columns (h, y), h one of the g^k functions (uniform), y in [g]."""
    e = math.exp(eps0)
    hs_ = list(itertools.product(range(g), repeat=k))
    cols = [(h, y) for h in hs_ for y in range(g)]
    M = [[(e if y == h[x] else 1.0) / (e + g - 1) / len(hs_) for h, y in cols] for x in range(k)]
    in_s = [y == h[0] for h, y in cols]  # S = {y = h(x1)}, x1 = 0
    return np.array(M), np.array(in_s)


FINITE = [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.25, 0.25, 0.5]]


def case(name, eps0):
    """(params, matrix, S mask, x1, x1', x0)."""
    if name == "oue":
        M, S = oue_matrix(3, eps0)
        return make_params("oue", eps0, k=3), M, S, 0, 1, 1
    if name == "olh":
        M, S = olh_matrix(3, 2, eps0)
        return make_params("olh", eps0, k=3, g=2), M, S, 0, 1, 1
    R = FiniteRandomizer(FINITE)
    x1, x1p, x0, S = hit(R, 3, 1).rows
    return R, R.matrix, S, x1, x1p, x0


def full(rows_d, rows_dp, eps):
    a, b = view_law(rows_d, len(rows_d[0])), view_law(rows_dp, len(rows_dp[0]))
    return max(hs(a, b, eps), hs(b, a, eps))


def count_exact(ps_d, ps_dp, eps):
    """Exact delta of the counts of reports in S: ps the per-report chances."""
    def law(ps):
        out = [1.0]
        for p in ps:
            out = [(out[i] if i < len(out) else 0.0) * (1 - p) + (out[i - 1] * p if i else 0.0)
                   for i in range(len(out) + 1)]
        return dict(enumerate(out))
    a, b = law(ps_d), law(ps_dp)
    return max(hs(a, b, eps), hs(b, a, eps))


def dummies_below_full_view(params, M, x1, x1p, x0, chances, sizes) -> int:
    """For each (n users, m dummies) of ``sizes``: the count pair's certified delta <= the exact
    delta of the enumerated view of the datasets (rows x1 / x1' and x0 of ``M``, dummies the mean
    row) <= the proved upper bound at n + m, and the count law of ``chances`` = (a, b, c, dummy)
    is the pair's (the projection is exact); returns how many deltas were positive."""
    a, b, c, dm = chances
    dummy = list(M.mean(axis=0))
    positive = 0
    for n, m in sizes:
        pair = DL.dummies_pair(params, n, m)
        up = ShuffleAccountant(params, n + m)
        for eps in EPS:
            lo = pair.delta(eps)
            rest = [list(M[x0])] * (n - 1) + [dummy] * m
            exact = full([list(M[x1])] + rest, [list(M[x1p])] + rest, eps)
            assert lo <= exact + 1e-12 <= up.get_delta(eps) + 2e-12, (n, m, eps, lo, exact)
            cnt = count_exact([a] + [c] * (n - 1) + [dm] * m, [b] + [c] * (n - 1) + [dm] * m, eps)
            assert cnt - 1e-9 <= lo <= cnt + 1e-12, (n, m, eps, lo, cnt)
            positive += lo > 1e-6
    return positive


@pytest.mark.parametrize("name", ["oue", "olh", "finite"])
def test_dummies_and_reports_projection_below_the_full_view_below_the_upper(name):
    eps0 = 1.0
    params, M, S, x1, x1p, x0 = case(name, eps0)
    rowS = M[:, S].sum(axis=1)  # the count law from the matrix and S
    positive = dummies_below_full_view(params, M, x1, x1p, x0, (rowS[x1], rowS[x1p], rowS[x0], rowS.mean()),
                                       ((2, 1), (3, 1), (2, 2)))
    for n in (1, 2):  # two reports per user: every one of the n r reports seen
        pair = DL.reports_pair(params, n, 2)
        for eps in EPS + (1.5,):
            lo = pair.delta(eps)
            rest = [list(M[x0])] * (2 * (n - 1))
            exact = full([list(M[x1])] * 2 + rest, [list(M[x1p])] * 2 + rest, eps)
            assert lo <= exact + 1e-12 <= G.reports_delta(params, n, 2, eps)[0] + 2e-12, (n, eps, lo, exact)
    assert positive >= 5


@pytest.mark.parametrize("name", ["oue", "olh", "finite"])
@pytest.mark.parametrize("nb", ["substitute", "add-remove"])
def test_sampling_projection_below_the_full_view_below_the_upper(name, nb):
    eps0, q = 1.0, 0.6
    params, M, S, x1, x1p, x0 = case(name, eps0)
    for n in (2, 3):
        pair = DL.sampled_pair(params, n, q, nb)
        for eps in EPS:
            lo = pair.delta(eps)
            others = [[q * v for v in M[x0]]] * (n - 1)
            first = [[q * v for v in M[x1]]]
            exact = full(first + others, ([[q * v for v in M[x1p]]] + others) if nb == "substitute" else others, eps)
            up = (D.sampled_delta if nb == "substitute" else D.sampled_delta_add_remove)(params, n, q, eps)
            assert lo <= exact + 1e-12 <= up + 2e-12, (n, eps, lo, exact, up)
            # the (reports, reports in S) law from the matrix and S: the projection is its divergence
            two = [[q * M[x, S].sum(), q * M[x, ~S].sum()] for x in (x1, x1p, x0)]
            cnt = full([two[0]] + [two[2]] * (n - 1), ([two[1]] if nb == "substitute" else []) + [two[2]] * (n - 1),
                       eps)
            assert cnt - 1e-9 <= lo <= cnt + 1e-12, (n, eps, lo, cnt)


def test_collision_hit_is_the_enumerated_chance():
    """Collision, s = 2, t = 3, d = 4 under the uniformly random hash: a and c of the hit are
    the chances enumerated over all 3^4 hashes (x1 = {0, 1}, x0 = {2, 3})."""
    from mechanisms.randomizers.collision import collision_output_distribution

    eps0, s, t = 1.0, 2, 3
    h = hit(make_params("collision", eps0, s=s, t=t, d=4))
    a = c = 0.0
    for H in itertools.product(range(t), repeat=4):
        img = {H[0], H[1]}
        for x, acc in (((0, 1), "a"), ((2, 3), "c")):
            P = collision_output_distribution([H[i] for i in x], eps0, t)
            v = sum(P[z] for z in img) / t ** 4
            if acc == "a":
                a += v
            else:
                c += v
    assert h.a == pytest.approx(a, rel=1e-12) and h.c == pytest.approx(c, rel=1e-12) and h.b == h.c
    with pytest.raises(ValueError, match="d >= 4"):
        hit(make_params("collision", eps0, s=2, t=3, d=3))
    with pytest.raises(ValueError, match="d >= 4"):
        hit(make_params("coco", eps0, s=2, d=3))


@pytest.mark.parametrize("s,t", [(1, 4), (2, 6)])
def test_coco_hit_is_the_enumerated_chance(s, t):
    """CoCo under uniformly random H1 (pair) and H2 (bucket), d = 2s: a and c of the hit are the
    chances, enumerated over every (H1, H2), that the report is the favoured bucket of an entry
    of x1 (coordinates 0..s-1, signs +1) alone in its pair (x0: coordinates s..2s-1)."""
    from mechanisms.randomizers.coco import coco_output_distribution

    eps0, d, half = 1.0, 2 * s, t // 2
    h = hit(make_params("coco", eps0, s=s, t=t, d=d))
    x1, x0 = list(range(s)), list(range(s, d))
    got = {"a": 0.0, "c": 0.0}
    combos = list(itertools.product(itertools.product(range(half), repeat=d), itertools.product((-1, 1), repeat=d)))
    for h1, h2 in combos:
        pairs = [h1[j] for j in x1]
        S = {h1[j] + (h2[j] > 0) * half for j in x1 if pairs.count(h1[j]) == 1}  # H(j+) of a lone entry
        for key, x in (("a", x1), ("c", x0)):
            P = coco_output_distribution(x, [1] * s, h1, h2, eps0, t)
            got[key] += sum(P[z] for z in S) / len(combos)
    assert h.a == pytest.approx(got["a"], rel=1e-12) and h.c == pytest.approx(got["c"], rel=1e-12) and h.b == h.c


def test_count_pair_delta_against_50_digits():
    """OUE k = 8, eps0 = 1, 200 users and 50 dummies: the certified delta is below the 50-digit
    value of the same count pair and within 1e-10 of it."""
    params = make_params("oue", 1.0, k=8)
    h = hit(params)
    pair = DL.dummies_pair(params, 200, 50)
    with mpmath.workdps(50):
        def binom(N, p):
            p = mpmath.mpf(p)
            return [mpmath.binomial(N, i) * p ** i * (1 - p) ** (N - i) for i in range(N + 1)]

        def conv(u, v):
            out = [mpmath.mpf(0)] * (len(u) + len(v) - 1)
            for i, x in enumerate(u):
                for j, y in enumerate(v):
                    out[i + j] += x * y
            return out
        O = conv(binom(199, h.c), binom(50, h.dummy))
        P, Q = conv(binom(1, h.a), O), conv(binom(1, h.b), O)
        for eps in (0.05, 0.1, 0.2, 0.4):
            u = mpmath.exp(eps)
            exact = max(mpmath.fsum(max(p - u * q, 0) for p, q in zip(P, Q)),
                        mpmath.fsum(max(q - u * p, 0) for p, q in zip(P, Q)))
            lo = pair.delta(eps)
            assert lo <= exact and lo >= exact - 1e-10, (eps, lo, exact)


def test_every_option_reports_a_lower_bound_never_above_the_upper():
    """Every randomizer with a count statistic, every option, one round and two: lower_epsilon
    is given, positive and at most the proved upper (not clipped: :func:`DL.ordered` reports a
    lower above the upper as an inconsistency, and that never happens here)."""
    from accountant.composition.rounds import RoundSpec

    R = FiniteRandomizer(FINITE)
    oue = make_params("oue", 1.0, k=8)
    cases = [oue, make_params("olh", 1.0, k=8), R, make_params("collision", 1.0, s=2, d=10),
             make_params("coco", 1.0, s=2, d=10)]
    n, delta = 2000, 1e-6
    results = []
    for p in cases:
        results += [D.deployment_epsilon(p, n, delta, dummies=500),
                    D.deployment_epsilon(p, n, delta, colluders=100),
                    G.reports_epsilon(p, n, delta, 2),
                    D.sampled_epsilon(p, n, delta, 0.5, mechanism=False),
                    D.sampled_epsilon(p, n, delta, 0.5, neighbours="add-remove", mechanism=False)]
    # over rounds: the sampled pair, and a finite matrix's colluders (no composed pair of its own
    # for rounds: the count pair in every round)
    results += [D.sampled_rounds_epsilon(oue, n, delta, 0.5, 3),
                D.deployment_rounds_epsilon(RoundSpec.finite(R, 30), 2, delta, colluders=5)]
    assert "count of reports in S" in results[-1].lower_statement
    col = [D.deployment_rounds_epsilon(RoundSpec(300, 1.0, "collision", s=2, d=d), 2, delta, colluders=5)
           for d in (10, None)]  # the round's d, or not available with the reason
    results.append(col[0])
    assert col[1].lower_epsilon is None and "give d" in col[1].lower_statement
    for r in filter(None, results):
        assert r.lower_epsilon is not None, r.lower_statement
        assert 0 < r.lower_epsilon <= r.epsilon, (r.lower_epsilon, r.epsilon, r.statement)
        assert "D = (" in r.lower_dataset
    mix = G.parse_mix([{"count": 600, "mechanism": "oue", "k": 4, "eps0": 2},
                       {"count": 400, "mechanism": "oue", "k": 8, "eps0": 1},
                       {"count": 500, "mechanism": "krr", "k": 4, "eps0": 1}])
    r = G.mix_epsilon(mix, delta)
    assert 0 < r.lower_epsilon <= r.epsilon and "group" in r.lower_dataset
    # a group without a count statistic is left out (CoCo: the 4-RR group decides); a group of
    # variation-ratio has no output set, so no group's S has a known chance there: not available
    cm = G.mix_epsilon(G.parse_mix([{"count": 600, "mechanism": "coco", "s": 2, "eps0": 2},
                                    {"count": 400, "mechanism": "krr", "k": 4, "eps0": 1}]), delta)
    assert 0 < cm.lower_epsilon <= cm.epsilon and "group 2 (4-RR" in cm.lower_dataset
    vm = G.mix_epsilon(G.parse_mix([{"count": 600, "mechanism": "variation-ratio", "p": 3, "beta": 0.3},
                                    {"count": 400, "mechanism": "rr", "eps0": 1}]), delta)
    assert vm.lower_epsilon is None and "no fixed output set" in vm.lower_statement
    assert DL.ordered(0.2, 0.1, "s", "d")[0] is None and "inconsistency" in DL.ordered(0.2, 0.1, "s", "d")[1]
    assert DL.ordered(0.1, 0.2, "s", "d") == (0.1, "s", "d")


def test_mix_of_oue_groups_two_users_below_the_full_view():
    """Two OUE groups (k = 3, eps0 0.5 and 2), one user each and one more in the second: the
    mix's count pair (the differing user in either group) below the full view's divergence."""
    groups = G.parse_mix([{"count": 1, "mechanism": "oue", "k": 3, "eps0": 0.5},
                          {"count": 2, "mechanism": "oue", "k": 3, "eps0": 2.0}])
    Ma, Mb = oue_matrix(3, 0.5)[0], oue_matrix(3, 2.0)[0]
    for eps in EPS:
        exact = max(full([list(Ma[0]), list(Mb[1]), list(Mb[1])], [list(Ma[1]), list(Mb[1]), list(Mb[1])], eps),
                    full([list(Mb[0]), list(Ma[1]), list(Mb[1])], [list(Mb[1]), list(Ma[1]), list(Mb[1])], eps))
        lo = max(DL.mix_pair(groups, g).delta(eps) for g in range(2))
        assert lo <= exact + 1e-12 <= G.mix_delta(groups, eps)[0] + 2e-12, (eps, lo, exact)
        assert eps > 0.5 or lo > 0
