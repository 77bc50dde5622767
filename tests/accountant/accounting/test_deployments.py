"""Issue 43 deployments: brute force at n <= 4 (exact enumeration of the shuffled output with
colluders, sampling, dummies), upper >= truth; bad input refused; the sampled composition."""
import itertools
import math
import os
import subprocess
import sys

import pytest

from accountant import ShuffleAccountant, make_params
from accountant.accounting import deployments as D
from accountant.engines.pair.divergence import hockey_stick_divergence
from accountant.engines.pair.law import DominatingPair

EPS = (0.0, 0.1, 0.3, 0.6, 1.0)


def krr_row(x, k, eps0):
    e = math.exp(eps0)
    return [(e if y == x else 1.0) / (e + k - 1) for y in range(k)]


def view_law(users, k, revealed=()):
    """Law of (shuffled count vector of all reports, revealed users' reports) for independent
    users, each a list of k output probabilities plus the probability of being absent
    (sum <= 1: the rest is 'absent')."""
    law = {((0,) * k, ()): 1.0}
    for i, row in enumerate(users):
        new = {}
        absent = 1.0 - sum(row)
        for (cnt, rev), pr in law.items():
            for y, py in enumerate(row):
                c = list(cnt)
                c[y] += 1
                key = (tuple(c), rev + ((y,) if i in revealed else ()))
                new[key] = new.get(key, 0.0) + pr * py
            if absent > 1e-15:
                key = (cnt, rev + ((None,) if i in revealed else ()))
                new[key] = new.get(key, 0.0) + pr * absent
        law = new
    return law


def hs(p, q, eps):
    e = math.exp(eps)
    return sum(max(v - e * q.get(key, 0.0), 0.0) for key, v in p.items())


def truth(k, eps0, n, eps, *, q=1.0, colluders=0, dummies=0):
    """sup over datasets (user 0 differs, x0 vs x0'; others any input) of the exact delta."""
    best = 0.0
    for x, xp in itertools.permutations(range(k), 2):
        for others in itertools.product(range(k), repeat=n - 1):
            rows = lambda first: ([[q * v for v in krr_row(first, k, eps0)]]  # noqa: E731
                                  + [[q * v for v in krr_row(o, k, eps0)] for o in others]
                                  + [[1.0 / k] * k] * dummies)
            rev = tuple(range(n - colluders, n))  # the colluders are the last users (honest user 0 differs)
            best = max(best, hs(view_law(rows(x), k, rev), view_law(rows(xp), k, rev), eps))
    return best


@pytest.mark.parametrize("relation", ["substitute", "add-remove"])
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("eps0", [0.5, 2.0])
@pytest.mark.parametrize("q", [0.3, 0.8])
def test_sampling_upper_at_least_truth(k, eps0, q, relation):
    params = make_params("generic", eps0)
    upper = D.sampled_delta if relation == "substitute" else D.sampled_delta_add_remove
    for n in (2, 3, 4):
        for eps in EPS:
            t = truth(k, eps0, n, eps, q=q) if relation == "substitute" else truth_add_remove(k, eps0, n, eps, q)
            up = upper(params, n, q, eps)
            assert up >= t - 1e-12, (k, eps0, q, n, eps, up, t)
    # q = 1 is the clone pair (FMT21, proved for every eps0-LDP randomizer) itself
    full = hockey_stick_divergence(DominatingPair.clone(4, eps0), 0.1).upper
    assert abs(D.sampled_delta(params, 4, 1.0, 0.1) - full) <= 1e-9 * full


@pytest.mark.parametrize("mech,k", [("rr", 2), ("krr", 3)])
@pytest.mark.parametrize("eps0", [0.5, 2.0])
def test_sampling_per_count_mechanism_bound_at_least_truth(mech, k, eps0):
    """The per-count bound of the named randomizer (exact worst case for RR, exact blanket for
    k-RR) in place of the clone: still >= the exact sampled truth, both relations, and below
    the clone's value somewhere (it is used)."""
    params = make_params(mech, eps0, **({"k": k} if mech == "krr" else {}))
    generic = make_params("generic", eps0)
    smaller = 0
    for q in (0.3, 0.8):
        for n in (2, 3, 4):
            for eps in EPS:
                up = D.sampled_delta(params, n, q, eps)
                assert up >= truth(k, eps0, n, eps, q=q) - 1e-12, (n, q, eps, up)
                assert up <= D.sampled_delta(generic, n, q, eps) * (1 + 1e-12)
                smaller += up < 0.99 * D.sampled_delta(generic, n, q, eps)
                ar = D.sampled_delta_add_remove(params, n, q, eps)
                assert ar >= truth_add_remove(k, eps0, n, eps, q) - 1e-12, (n, q, eps, ar)
    assert smaller >= 5, smaller


def test_sampling_per_count_beats_the_clone_at_the_anchor():
    """n = 1e5, q = 0.01, eps0 = 3, delta = 1e-5, one round: binary RR with its exact worst case
    per count, against the generic clone (measured 0.0038564 against 0.0090415)."""
    rr = D.sampled_epsilon(make_params("rr", 3.0), 100_000, 1e-5, 0.01)
    assert rr.bound == "exact-sampled" and rr.achieved_delta <= 1e-5
    assert 0.0037 < rr.epsilon < 0.0040
    assert D.sampled_delta(make_params("rr", 3.0), 100_000, 0.01, rr.epsilon) <= 1e-5
    cl = D.sampled_epsilon(make_params("rr", 3.0), 100_000, 1e-5, 0.01, mechanism=False)
    assert cl.bound == "clone-sampled" and 0.0085 < cl.epsilon < 0.0095


def truth_add_remove(k, eps0, n, eps, q):
    """sup over datasets of the exact delta, both directions: D' = D plus user 0 (input x)."""
    best = 0.0
    for x in range(k):
        for others in itertools.product(range(k), repeat=n - 1):
            rows_o = [[q * v for v in krr_row(o, k, eps0)] for o in others]
            with_ = view_law([[q * v for v in krr_row(x, k, eps0)]] + rows_o, k)
            without = view_law(rows_o, k)
            best = max(best, hs(with_, without, eps), hs(without, with_, eps))
    return best


def test_sampling_strata_bound_the_exact_sum():
    """The stratified bound is >= the sum over every count t of P(T = t) (t/n) f(t, eps_t)
    that the proof bounds (no stratum loses mass) and not far above it (ratio asserted)."""
    from scipy.stats import binom

    eps0, n, q = 1.0, 400, 0.3
    params = make_params("generic", eps0)
    for eps in (0.1, 0.2):
        exact = 0.0
        for t in range(1, n + 1):
            e = math.log1p(n / t * math.expm1(eps))
            if e < eps0:
                exact += binom.pmf(t, n, q) * t / n * hockey_stick_divergence(
                    DominatingPair.clone(t, eps0), e).upper
        ours = D.sampled_delta(params, n, q, eps)
        assert exact <= ours <= 2.0 * exact, (eps, exact, ours)

@pytest.mark.parametrize("mech,k", [("rr", 2), ("krr", 3)])
def test_colluders_dummies_nmin_upper_at_least_truth(mech, k):
    eps0 = 1.0
    params = make_params(mech, eps0, **({"k": k} if mech == "krr" else {}))
    up = lambda n, e: ShuffleAccountant(params, n).get_delta(e)  # noqa: E731
    for eps in (0.1, 0.5):
        for n, c in ((3, 1), (4, 2)):
            assert up(n - c, eps) >= truth(k, eps0, n, eps, colluders=c) - 1e-12
        for n, m in ((2, 1), (2, 2)):
            assert up(n + m, eps) >= truth(k, eps0, n, eps, dummies=m) - 1e-12
        # n >= N: the truth is non-increasing in n (the proof), so the bound at N covers n >= N
        ts = [truth(k, eps0, n, eps) for n in (1, 2, 3, 4)]
        assert all(a >= b - 1e-12 for a, b in zip(ts, ts[1:])), ts
        assert ts[0] > ts[-1]  # strictly more privacy with more users (the check can fail)
        assert all(up(2, eps) >= t - 1e-12 for t in ts[1:])
    # colluders cost privacy: revealing reports makes the truth larger
    assert truth(k, eps0, 4, 0.1, colluders=2) > truth(k, eps0, 4, 0.1)


def test_api_numbers_and_refusals():
    params = make_params("generic", 3.0)
    r = D.deployment_epsilon(params, 100_000, 1e-5, colluders=1_000)
    assert r.effective_n == 99_000
    assert r.epsilon == ShuffleAccountant(params, 99_000).get_epsilon(1e-5)
    s = D.sampled_epsilon(params, 100_000, 1e-5, 0.01)
    assert s.achieved_delta <= 1e-5 and 0.0085 < s.epsilon < 0.0095  # measured 0.0090415 (FMT21 clone)
    ar = D.sampled_epsilon(params, 100_000, 1e-5, 0.01, neighbours="add-remove")
    assert ar.achieved_delta <= 1e-5 and 0.0085 < ar.epsilon < 0.0096  # measured 0.0091341
    comp = D.sampled_rounds_epsilon(params, 100_000, 1e-5, 0.01, 10)
    assert s.epsilon < comp.epsilon < 10 * D.sampled_epsilon(params, 100_000, 1e-6, 0.01).epsilon
    for kw, word in (({"colluders": 10}, "colluders"), ({"dummies": -1}, "dummies"),
                     ({"sampling": 0.0}, "sampling"), ({"sampling": 1.5}, "sampling"),
                     ({"sampling": 0.5, "neighbours": "swap"}, "neighbours"),
                     ({"sampling": 0.5, "colluders": 2}, "not proved")):
        with pytest.raises(ValueError, match=word):
            D.check_deployment(10, **kw)


@pytest.mark.parametrize("extra,word", [
    (["--colluders", "10"], "--colluders"), (["--sampling", "0"], "--sampling"),
    (["--dummies", "-3"], "--dummies"), (["--neighbours", "add-remove"], "--neighbours"),
    (["--n-min", "5"], "--n-min")])
def test_cli_refuses_in_one_line(extra, word):
    env = dict(os.environ)
    cmd = [sys.executable, "-m", "accountant", "epsilon", "--n", "10", "--eps0", "1", "--delta", "1e-6", *extra]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 2 and p.stdout == "" and len(p.stderr.strip().splitlines()) == 1
    assert word in p.stderr


def test_cli_n_min_statement():
    cmd = [sys.executable, "-m", "accountant", "epsilon", "--n-min", "1e5", "--eps0", "1", "--delta", "1e-6"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "valid for every n >= 100000" in p.stdout and "non-increasing in n" in p.stdout


def test_cli_delta_matches_the_api():
    import json

    params = make_params("krr", 2.0, k=4)
    cmd = [sys.executable, "-m", "accountant", "delta", "--n", "1e4", "--eps0", "2", "--eps", "0.1",
           "--mechanism", "krr", "--k", "4", "--dummies", "1000", "--colluders", "500", "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["effective_n"] == 10_500
    assert out["delta"] == ShuffleAccountant(params, 10_500).get_delta(0.1)
    # more dummies than colluders: less delta than without either
    assert out["delta"] < ShuffleAccountant(params, 10_000).get_delta(0.1)


@pytest.mark.parametrize("mech,k", [("rr", 2), ("krr", 3)])
def test_colluders_certified_lower_at_most_truth(mech, k):
    """The lower bound at n - c (its named datasets for the honest users, any colluders' inputs)
    is <= the exact delta of the deployment with c colluders: lower <= truth <= upper."""
    eps0 = 1.0
    params = make_params(mech, eps0, **({"k": k} if mech == "krr" else {}))
    for eps in (0.05, 0.2, 0.5):
        for n, c in ((3, 1), (4, 2), (4, 1)):
            rep = ShuffleAccountant(params, n - c).delta_result(eps, paper=False)
            t = truth(k, eps0, n, eps, colluders=c)
            assert rep.lower_delta is not None and rep.lower_delta <= t + 1e-12 <= rep.delta + 2e-12, (n, c, eps)
    r = D.deployment_epsilon(params, 10_000, 1e-6, colluders=1_000)
    assert r.lower_epsilon is not None and 0 < r.lower_epsilon <= r.epsilon
    assert "9000 honest users" in r.lower_statement and "D = " in r.lower_dataset
    # with dummies the count pair's lower bound (tests/.../test_deployment_lower.py)
    dm = D.deployment_epsilon(params, 10_000, 1e-6, dummies=10)
    assert 0 < dm.lower_epsilon <= dm.epsilon and "10 dummies" in dm.lower_dataset


def test_count_delta_is_on_the_safe_side_of_the_grid():
    """The named per-count bound is evaluated at e rounded DOWN to the grid: >= the bound at e
    itself (a bound at a smaller e, where the truth is larger), <= the clone's value at e."""
    from accountant.bounds.registry import proved_delta

    for params in (make_params("rr", 3.0), make_params("krr", 3.0, k=4)):
        for t, e in ((50, 0.3), (1000, 0.05), (1000, 0.3), (333, 1.7)):
            f, name = D.count_delta(params, t, e)
            clone = D.count_delta(params, t, e, mechanism=False)[0]
            assert proved_delta(params, t, e)[0] <= f <= clone, (params.name, t, e)
            assert name in ("exact", "blanket", "clone")
        assert D.count_delta(params, 10, 3.0) == (0.0, "post-processing")


@pytest.mark.parametrize("eps0", [0.5, 2.0])
@pytest.mark.parametrize("q", [0.3, 0.8])
def test_sampling_rr_lower_bound_at_most_truth(eps0, q):
    """The sampled lower bound (binary RR, D = (1, 0, ..., 0), D' = (0, ..., 0)) is the exact
    divergence of that pair (equal to the enumeration up to its margin), so <= the sup over
    datasets (truth) <= the proved upper bound, at n = 2..4."""
    from accountant.accounting import deployment_lower as DL

    params = make_params("rr", eps0)
    for n in (2, 3, 4):
        for eps in EPS:
            lo = DL.rr_sampled_lower_delta(params, n, q, eps)
            rows = lambda first: [[q * v for v in krr_row(first, 2, eps0)]] + \
                [[q * v for v in krr_row(0, 2, eps0)]] * (n - 1)  # noqa: E731
            a, b = view_law(rows(1), 2), view_law(rows(0), 2)
            pair = max(hs(a, b, eps), hs(b, a, eps))
            assert pair - 1e-9 <= lo <= pair, (n, eps, lo, pair)
            t = truth(2, eps0, n, eps, q=q)
            assert lo <= t + 1e-12 and t <= D.sampled_delta(params, n, q, eps) + 1e-12


@pytest.mark.parametrize("eps0", [0.5, 2.0])
@pytest.mark.parametrize("q", [0.3, 0.8])
def test_sampling_rr_add_remove_lower_bound_at_most_truth(eps0, q):
    """Add/remove: D = (1, 0, ..., 0) of n users, D' = D without user 1. The lower bound is the
    exact divergence of that pair (both orders, enumeration), so <= the sup over datasets and
    both directions (truth) <= the proved add/remove upper bound, at n = 2..4."""
    from accountant.accounting import deployment_lower as DL

    params = make_params("rr", eps0)
    for n in (2, 3, 4):
        for eps in EPS:
            lo = DL.rr_sampled_lower_delta(params, n, q, eps, neighbours="add-remove")
            others = [[q * v for v in krr_row(0, 2, eps0)]] * (n - 1)
            a, b = view_law([[q * v for v in krr_row(1, 2, eps0)]] + others, 2), view_law(others, 2)
            pair = max(hs(a, b, eps), hs(b, a, eps))
            assert pair - 1e-9 <= lo <= pair, (n, eps, lo, pair)
            t = truth_add_remove(2, eps0, n, eps, q)
            assert lo <= t + 1e-12 and t <= D.sampled_delta_add_remove(params, n, q, eps) + 1e-12
    r = D.sampled_epsilon(params, 1000, 1e-5, q, neighbours="add-remove", mechanism=False)  # the clone: fast
    assert r.lower_epsilon is not None and r.lower_epsilon < r.epsilon
    assert "add/remove" in r.lower_dataset
    assert DL.rr_sampled_lower_delta(params, 1000, q, r.lower_epsilon, neighbours="add-remove") > 1e-5


def test_sampling_rr_lower_bound_at_the_anchor():
    """n = 1e5, q = 0.01, eps0 = 3, delta = 1e-5: lower 0.0029045 <= upper 0.0038419 (one round);
    after 10 rounds the lower bound 0.01056 is above the issue's anchor 0.005113."""
    from accountant.accounting import deployment_lower as DL

    params = make_params("rr", 3.0)
    r = D.sampled_epsilon(params, 100_000, 1e-5, 0.01)
    assert 0.0028 < r.lower_epsilon < r.epsilon < 0.0039 and "D = (1, 0, ..., 0)" in r.lower_dataset
    assert DL.rr_sampled_lower_delta(params, 100_000, 0.01, r.lower_epsilon) > 1e-5
    ten = DL.rr_sampled_lower_epsilon(params, 100_000, 1e-5, 0.01, rounds=10)
    assert 0.0100 < ten < D.sampled_rounds_epsilon(params, 100_000, 1e-5, 0.01, 10).epsilon
    with pytest.raises(ValueError, match="rounds"):
        DL.rr_sampled_lower_epsilon(params, 100_000, 1e-5, 0.01, rounds=20_000)
    with pytest.raises(ValueError, match="limit"):
        DL.rr_sampled_pair(3.0, 10 ** 10, 0.5)


def test_sampling_search_stops_when_delta_at_0_plus_meets_the_target():
    """Binary RR, n = 1e9, q = 0.01, delta = 1e-5: the clone's delta(0) is above the target,
    the named bound's delta(0) below it; the search answers 0 (it looped before)."""
    r = D.sampled_epsilon(make_params("rr", 3.0), 10 ** 9, 1e-5, 0.01)
    assert r.epsilon == 0.0 and r.achieved_delta <= 1e-5
    assert D.sampled_delta(make_params("rr", 3.0), 10 ** 9, 0.01, 0.0) <= 1e-5 < \
        D.sampled_delta(make_params("rr", 3.0), 10 ** 9, 0.01, 0.0, mechanism=False)


def test_colluders_dummies_nmin_over_rounds_compose_the_round_at_n_eff():
    """T rounds with colluders / dummies / n >= N: the composition of the worst-case round at
    n_eff users (colluders: the honest users' pair has the same privacy loss; dummies: a mixture
    of shuffles of n + m users; n >= N: monotone), never above T times the one-round eps at
    delta / T (naive composition) and above the one-round bound."""
    import json

    from accountant.composition.compose import compose_rounds
    from accountant.composition.rounds import RoundSpec

    spec = RoundSpec(20_000, 2.0, "krr", k=4)
    r = D.deployment_rounds_epsilon(spec, 5, 1e-6, colluders=2_000, dummies=5_000)
    assert r.effective_n == 23_000 and "5 rounds" in r.statement
    assert r.epsilon == compose_rounds(RoundSpec(23_000, 2.0, "krr", k=4), 5, 1e-6).epsilon
    one = D.deployment_epsilon(make_params("krr", 2.0, k=4), 20_000, 1e-6, colluders=2_000, dummies=5_000)
    naive = D.deployment_epsilon(make_params("krr", 2.0, k=4), 20_000, 1e-6 / 5, colluders=2_000, dummies=5_000)
    assert one.epsilon < r.epsilon <= 5 * naive.epsilon
    cmd = [sys.executable, "-m", "accountant", "epsilon", "--n", "2e4", "--eps0", "2", "--delta", "1e-6",
           "--mechanism", "krr", "--k", "4", "--colluders", "2000", "--dummies", "5000", "--rounds", "5", "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["epsilon"] == r.epsilon
    cmd = [sys.executable, "-m", "accountant", "epsilon", "--n", "2e4", "--eps0", "2", "--delta", "1e-6",
           "--rounds", "5"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "--rounds applies only with" in p.stderr and p.stdout == ""


def test_colluders_over_two_rounds_upper_at_least_truth():
    """Brute force, binary RR, n = 3 with 1 colluder, T = 2: the analyst sees, each round, the
    colluder's report and the shuffled reports of the others; over every dataset and both
    orders the exact divergence of the two rounds' product at the composed eps is <= delta."""
    from accountant.composition.rounds import RoundSpec

    eps0, delta = 0.5, 0.05
    E = math.exp(eps0)
    R = [[E / (E + 1), 1 / (E + 1)], [1 / (E + 1), E / (E + 1)]]

    def view(x):  # (colluder's report, number of ones among the two honest reports)
        law = {}
        for y in itertools.product((0, 1), repeat=3):
            p = R[x[0]][y[0]] * R[x[1]][y[1]] * R[x[2]][y[2]]
            key = (y[0], y[1] + y[2])
            law[key] = law.get(key, 0.0) + p
        return law

    r = D.deployment_rounds_epsilon(RoundSpec(3, eps0, "rr"), 2, delta, colluders=1)
    assert r.epsilon < 2 * eps0      # not the trivial bound
    u = math.exp(r.epsilon)
    worst = 0.0
    for x0, x2 in itertools.product((0, 1), repeat=2):
        P, Q = view((x0, 0, x2)), view((x0, 1, x2))
        for A, B in ((P, Q), (Q, P)):
            d = math.fsum(max(A[a] * A[b] - u * B[a] * B[b], 0.0) for a in A for b in A)
            worst = max(worst, d)
    assert worst <= delta
