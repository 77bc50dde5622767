"""Issue 43, certified lower bounds over rounds (one named pair in every round): exact
enumeration of two rounds' shuffled outputs at n <= 3 (product of the rounds' laws, every
dataset, both orders): composed lower <= truth <= composed upper for colluders, dummies, several
reports, mixes and binary RR with sampling; the composed curve of the named pair below its
exact two-round divergence and within the grid's shift of it; T = 1 is the one-round lower
bound; the lower bound grows with T."""
import itertools
import math

import numpy as np
import pytest
from scipy.stats import binom

from accountant import make_params
from accountant.accounting import deployment_groups as G
from accountant.accounting import deployment_lower as DL
from accountant.accounting import deployments as D
from accountant.composition import lower as L
from accountant.composition import pld as _pld
from accountant.composition.rounds import RoundSpec
from tests.accountant.accounting.test_deployment_groups import count_law, rr_one
from tests.accountant.accounting.test_deployments import krr_row, view_law


def hs2(p, q, eps):
    """Exact delta at eps of two independent rounds, each the pair (p, q) (dicts or lists)."""
    p, q = (dict(enumerate(x)) if isinstance(x, list) else x for x in (p, q))
    u = math.exp(eps)
    return math.fsum(max(p[a] * p[b] - u * q.get(a, 0.0) * q.get(b, 0.0), 0.0) for a in p for b in p)


def worst2(pairs, eps):
    return max(max(hs2(a, b, eps), hs2(b, a, eps)) for a, b in pairs)


def view_pairs(k, eps0, n, *, q=1.0, colluders=0, dummies=0):
    """Every pair of one round's views (user 0 differs; others any input; the last ``colluders``
    users revealed; ``dummies`` uniform reports; each user present w.p. q)."""
    out = []
    rev = tuple(range(n - colluders, n))
    for x, xp in itertools.permutations(range(k), 2):
        for others in itertools.product(range(k), repeat=n - 1):
            def rows(first):
                return ([[q * v for v in krr_row(first, k, eps0)]] + [[q * v for v in krr_row(o, k, eps0)]
                                                                      for o in others] + [[1.0 / k] * k] * dummies)
            out.append((view_law(rows(x), k, rev), view_law(rows(xp), k, rev)))
    return out


def check_bracket(r, pairs, delta):
    """lower > 0, the exact worst case of two rounds above delta at the lower eps (so eps_c is
    above it) and at most delta at the upper eps."""
    assert r.lower_epsilon is not None and 0 < r.lower_epsilon < r.epsilon, (r.lower_epsilon, r.lower_statement)
    assert worst2(pairs, r.lower_epsilon) > delta
    assert worst2(pairs, r.epsilon) <= delta


@pytest.mark.parametrize("mech,k", [("rr", 2), ("krr", 3)])
def test_colluders_two_rounds_bracket(mech, k):
    eps0, delta = 1.0, 0.05
    r = D.deployment_rounds_epsilon(RoundSpec(3, eps0, mech, k=k if mech == "krr" else None), 2, delta,
                                    colluders=1)
    assert "2 honest users" in r.lower_statement and "2 rounds" in r.lower_statement
    check_bracket(r, view_pairs(k, eps0, 3, colluders=1), delta)


@pytest.mark.parametrize("mech,k", [("rr", 2), ("krr", 3)])
@pytest.mark.parametrize("n,m", [(2, 1), (3, 1)])
def test_dummies_two_rounds_bracket(mech, k, n, m):
    eps0, delta = 1.0, 0.05
    r = D.deployment_rounds_epsilon(RoundSpec(n, eps0, mech, k=k if mech == "krr" else None), 2, delta,
                                    dummies=m)
    assert f"{m} dummies" in r.lower_dataset
    check_bracket(r, view_pairs(k, eps0, n, dummies=m), delta)


@pytest.mark.parametrize("eps0", [0.5, 1.0])
def test_reports_two_rounds_bracket(eps0):
    delta = 0.05
    for n in (2, 3):
        r = G.reports_rounds_epsilon(make_params("rr", eps0), n, delta, 2, 2)
        pairs = []
        for others in itertools.product((0, 1), repeat=n - 1):
            rest = [rr_one(o, eps0) for o in others for _ in range(2)]
            pairs.append((count_law([rr_one(0, eps0)] * 2 + rest), count_law([rr_one(1, eps0)] * 2 + rest)))
        check_bracket(r, pairs, delta)


def test_mix_two_rounds_bracket():
    eps0s, delta = [0.5, 2.0, 2.0], 0.1
    groups = G.parse_mix([{"count": 1, "mechanism": "rr", "eps0": 0.5}, {"count": 2, "mechanism": "rr", "eps0": 2.0}])
    r = G.mix_rounds_epsilon(groups, delta, 2)
    pairs = []
    for i in range(3):
        for others in itertools.product((0, 1), repeat=2):
            rest = [rr_one(o, e) for o, e in zip(others, eps0s[:i] + eps0s[i + 1:])]
            pairs.append((count_law([rr_one(0, eps0s[i])] + rest), count_law([rr_one(1, eps0s[i])] + rest)))
    check_bracket(r, pairs, delta)
    assert "group 2" in r.lower_dataset  # the larger eps0 holds the differing user


@pytest.mark.parametrize("n", [2, 3])
def test_sampled_rr_two_rounds_bracket(n):
    eps0, q, delta = 1.0, 0.5, 0.02
    r = D.sampled_rounds_epsilon(make_params("rr", eps0), n, delta, q, 2)
    check_bracket(r, view_pairs(2, eps0, n, q=q), delta)
    assert "(reports, ones)" in r.lower_statement


@pytest.mark.parametrize("name", ["dummies", "reports", "sampled", "sampled-add-remove"])
def test_composed_curve_below_the_named_pair_and_close(name):
    """The certified curve of two rounds is below the named pair's exact two-round delta and
    at least the exact delta at eps + 2 T step minus 1e-9 (the losses move down by < T steps)."""
    eps0, upper, T = 1.0, 1.0, 2
    rr = make_params("rr", eps0)
    if name == "dummies":
        pair = DL.dummies_pair(rr, 3, 1)  # x1 = 0, x0 = 1, one uniform dummy
        rest = [krr_row(1, 2, eps0)] * 2 + [[0.5, 0.5]]
        a, b = view_law([krr_row(0, 2, eps0)] + rest, 2), view_law([krr_row(1, 2, eps0)] + rest, 2)
    elif name == "reports":
        pair = DL.reports_pair(rr, 2, 2)
        rest = [rr_one(0, eps0)] * 2
        a, b = (dict(enumerate(count_law([rr_one(x, eps0)] * 2 + rest))) for x in (1, 0))
    elif name == "sampled":
        pair = DL.rr_sampled_pair(eps0, 3, 0.5)
        rest = [[0.5 * v for v in krr_row(0, 2, eps0)]] * 2
        a, b = (view_law([[0.5 * v for v in krr_row(x, 2, eps0)]] + rest, 2) for x in (1, 0))
    else:  # sampled, add/remove: D' is D without user 1
        pair = DL.rr_sampled_pair(eps0, 3, 0.5, "add-remove")
        rest = [[0.5 * v for v in krr_row(0, 2, eps0)]] * 2
        a, b = view_law([[0.5 * v for v in krr_row(1, 2, eps0)]] + rest, 2), view_law(rest, 2)
    dl, why = L.composed_pair_delta(pair.P, pair.Q, pair.eP, pair.eQ, T, upper)
    assert why is None
    shift = 2 * T * L.lower_step(upper, T)
    for eps in (0.0, 0.1, 0.3, 0.6, 1.0, 1.5):
        exact = max(hs2(a, b, eps), hs2(b, a, eps))
        assert dl(eps) <= exact + 1e-12, (eps, dl(eps), exact)
        assert dl(eps) >= max(hs2(a, b, eps + shift), hs2(b, a, eps + shift)) - 1e-9, (eps, dl(eps), exact)


def test_noise_floor_entries_do_not_coarsen_the_composed_grid():
    """Entries at an FFT's noise floor (P, Q ~ 1e-18 where the true law is ~1e-33, losses anywhere
    in [-2, 0]) lie inside the pair's l1 error. The composed lower bound drops them with the tails
    (PAIR_TAIL_OF_ERROR of that error) instead of coarsening its grid: 4-RR count, 1e7 others,
    eps0 = 3, 10 rounds, delta = 1e-5, against the exact binomial pair composed on a grid 500
    times finer than the lower bound's (optimistic and pessimistic). Coarsened, it lost 0.26%."""
    eps0, N, T, delta = 3.0, 10 ** 7, 10, 1e-5
    c = 1.0 / (math.exp(eps0) + 3.0)
    a = math.exp(eps0) * c
    pair = DL.count_pair([(N, c)], 1, a, c, "4-RR count")
    rng = np.random.default_rng(5)
    P, Q = pair.P.copy(), pair.Q.copy()
    far = np.r_[0:200, P.size - 200:P.size]  # 12 standard deviations out: the true pmf < 1e-32
    assert max(P[far].max(), Q[far].max()) < 1e-30
    P[far] = 1e-18 * rng.uniform(0.1, 1.0, far.size)
    Q[far] = P[far] * np.exp(rng.uniform(0.0, 2.0, far.size))
    noisy = DL.CountPair(P, Q, pair.eP + 1e-15, pair.eQ + 1e-15, "4-RR count with noise")
    k = np.arange(int(N * c - 14 * math.sqrt(N * c)), int(N * c + 14 * math.sqrt(N * c)))
    o, om = binom.pmf(k, N, c), binom.pmf(k - 1, N, c)
    Pr, Qr = a * om + (1 - a) * o, c * om + (1 - c) * o
    ref = {pess: max(_pld.self_compose(_pld.from_pmfs(x, y, 1e-7, pessimistic=pess), T).get_epsilon(delta)
                     for x, y in ((Pr, Qr), (Qr, Pr))) for pess in (True, False)}
    assert ref[False] <= ref[True] < ref[False] * (1 + 2e-4)
    for pr in (pair, noisy):
        lo, why = DL.pair_rounds_lower_epsilon(pr, delta, eps0, T, 1.02 * ref[True])
        assert why is None
        assert ref[True] * (1 - 1e-3) < lo <= ref[False], (lo, ref)


def test_one_round_equals_and_monotone_in_rounds():
    """T = 1 is the one-round certified lower bound (the same pair and search); the composed
    lower bound grows with T and stays below the composed upper bound."""
    rr = make_params("rr", 1.0)
    one = G.reports_epsilon(rr, 10_000, 1e-6, 2)
    seq = [G.reports_rounds_epsilon(rr, 10_000, 1e-6, 2, t) for t in (1, 2, 5)]
    assert seq[0].lower_epsilon == one.lower_epsilon
    assert seq[0].lower_epsilon < seq[1].lower_epsilon < seq[2].lower_epsilon
    assert all(s.lower_epsilon < s.epsilon for s in seq)
    d1 = D.deployment_epsilon(rr, 10_000, 1e-6, dummies=1_000)
    dr = [D.deployment_rounds_epsilon(RoundSpec(10_000, 1.0, "rr"), t, 1e-6, dummies=1_000) for t in (1, 3)]
    assert dr[0].lower_epsilon == d1.lower_epsilon < dr[1].lower_epsilon < dr[1].epsilon


def test_not_available_is_said_with_the_reason(monkeypatch):
    coco = D.deployment_rounds_epsilon(RoundSpec(1_000, 1.0, "coco", s=2), 3, 1e-6, dummies=10)
    assert coco.lower_epsilon is None and "not available for mechanism coco" in coco.lower_statement
    monkeypatch.setattr(DL, "LOWER_MAX_ROUNDS", 2)  # the same refusal as above 10,000 rounds, cheaper
    r = D.sampled_rounds_epsilon(make_params("rr", 1.0), 1_000, 1e-6, 0.1, 3)
    assert r.lower_epsilon is None and "LOWER_MAX_ROUNDS" in r.lower_statement
    # above the plain grid's limit: the grid coarsens as the squarings widen the law (a lower
    # bound still: losses only move down); it is below the fine composition where both exist
    pair = DL.dummies_pair(make_params("rr", 1.0), 100, 0)
    dl, why = L.composed_pair_delta(pair.P, pair.Q, 0.0, 0.0, 100_000, 1e-3)
    assert why is None
    vals = [dl(e) for e in (0.0, 1.0, 10.0, 100.0, 1000.0)]
    assert all(0.0 <= v <= 1.0 for v in vals) and vals == sorted(vals, reverse=True) and vals[2] > 0.5
    monkeypatch.setattr(L, "MAX_PAIR_GRID", 2 ** 10)
    monkeypatch.setattr(L, "MAX_COARSEN", 1)
    fine, _ = L.composed_pair_delta(pair.P, pair.Q, 0.0, 0.0, 1000, 10.0)
    monkeypatch.undo()
    exact, _ = L.composed_pair_delta(pair.P, pair.Q, 0.0, 0.0, 1000, 10.0)
    assert all(fine(e) <= exact(e) + 1e-15 for e in (0.0, 2.0, 5.0, 10.0, 20.0))


def test_cli_prints_the_composed_lower_bound(capsys):
    """--rounds T: the last line is the library's composed lower bound rounded down with its
    datasets; JSON lower_epsilon / lower_dataset, and lower_reason when not available (the
    command line in-process: the subprocess entry point is tested in tests/accountant/interfaces)."""
    import json

    from accountant.core.numfmt import fmt
    from accountant.interfaces.cli.main import main

    def cli(*argv):
        assert main(["epsilon", "--n", "1e4", "--eps0", "1", "--delta", "1e-6", "--rounds", "5", *argv]) == 0
        return capsys.readouterr().out

    ref = G.reports_rounds_epsilon(make_params("rr", 1.0), 10_000, 1e-6, 2, 5)
    last = cli("--mechanism", "rr", "--reports", "2").strip().splitlines()[-1]
    assert last.startswith(f"eps_c >= {fmt(ref.lower_epsilon, 10, 'down')} (lower bound: ") and "5 rounds" in last
    out = json.loads(cli("--mechanism", "rr", "--reports", "2", "--json"))
    assert out["lower_epsilon"] == ref.lower_epsilon and out["lower_dataset"] == ref.lower_dataset
    assert out["lower_reason"] is None
    out = json.loads(cli("--dummies", "10", "--mechanism", "coco", "--s", "2", "--json"))
    assert out["lower_epsilon"] is None and "not available for mechanism coco" in out["lower_reason"]


def test_colluders_one_round_within_the_grid_and_monotone():
    """Colluders, T = 1: the composed lower bound is the one-round lower bound of the same pair
    (the same datasets) lowered by less than one grid step, 5e-4 of the upper bound (measured
    3.0e-4 of itself below for binary RR at n = 1e4, c = 1e3); T = 3 above it and below the
    composed upper bound."""
    rr = make_params("rr", 1.0)
    one = D.deployment_epsilon(rr, 10_000, 1e-6, colluders=1_000)
    r = [D.deployment_rounds_epsilon(RoundSpec(10_000, 1.0, "rr"), t, 1e-6, colluders=1_000) for t in (1, 3)]
    assert r[0].lower_dataset == one.lower_dataset
    step = L.lower_step(r[0].epsilon, 1)
    assert one.lower_epsilon * (1 - 1e-6) - 1.01 * step <= r[0].lower_epsilon <= one.lower_epsilon
    assert r[0].lower_epsilon < r[1].lower_epsilon < r[1].epsilon
