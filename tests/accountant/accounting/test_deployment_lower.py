"""Issue 43, certified lower bounds of dummies, several reports, mixes and n >= N: exact
enumeration of the shuffled output at n <= 4, lower <= truth <= upper; for binary RR the count
is sufficient, so the lower bound equals the named pair's exact divergence."""
import json
import subprocess
import sys

import pytest

from accountant import ShuffleAccountant, make_params
from accountant.accounting import deployment_groups as G
from accountant.accounting import deployment_lower as DL
from accountant.accounting import deployments as D
from tests.accountant.accounting.test_deployment_groups import count_law, hs as hs_list, rr_one, truth_mix, \
    truth_reports
from tests.accountant.accounting.test_deployments import hs, krr_row, truth, view_law

EPS = (0.0, 0.1, 0.3, 0.6, 1.0)


@pytest.mark.parametrize("mech,k", [("rr", 2), ("krr", 3)])
@pytest.mark.parametrize("eps0", [0.5, 2.0])
def test_dummies_lower_at_most_truth_at_most_upper(mech, k, eps0):
    params = make_params(mech, eps0, **({"k": k} if mech == "krr" else {}))
    positive = 0
    for n, m in ((2, 1), (2, 2), (3, 1)):
        for eps in EPS:
            lo = DL.dummies_pair(params, n, m).delta(eps)
            t = truth(k, eps0, n, eps, dummies=m)
            up = ShuffleAccountant(params, n + m).get_delta(eps)
            assert lo <= t + 1e-12 <= up + 2e-12, (n, m, eps, lo, t, up)
            # the named pair itself, every report seen: the count statistic is below it
            rows = [[1.0 / k] * k] * m + [krr_row(1, k, eps0)] * (n - 1)
            a, b = view_law([krr_row(0, k, eps0)] + rows, k), view_law([krr_row(1, k, eps0)] + rows, k)
            pair = max(hs(a, b, eps), hs(b, a, eps))
            assert lo <= pair + 1e-12
            if mech == "rr":  # the count of ones is sufficient: equal up to the certified errors
                assert lo >= pair - 1e-9, (n, m, eps, lo, pair)
            positive += lo > 1e-6
    assert positive >= 5


@pytest.mark.parametrize("eps0", [0.5, 1.0, 2.0])
def test_reports_lower_at_most_truth_at_most_upper(eps0):
    params = make_params("rr", eps0)
    for n in (1, 2, 3):
        pair = DL.reports_pair(params, n, 2)
        for eps in EPS + (1.5,):
            lo, t = pair.delta(eps), truth_reports(n, 2, eps0, eps)
            assert lo <= t + 1e-12 <= G.reports_delta(params, n, 2, eps)[0] + 2e-12, (n, eps, lo, t)
            rest = [rr_one(0, eps0)] * (2 * (n - 1))
            a, b = count_law([rr_one(1, eps0)] * 2 + rest), count_law([rr_one(0, eps0)] * 2 + rest)
            exact = max(hs_list(a, b, eps), hs_list(b, a, eps))
            assert abs(lo - exact) <= 1e-9, (n, eps, lo, exact)


@pytest.mark.parametrize("a,b", [(0.5, 2.0), (1.0, 1.5)])
def test_mix_lower_at_most_truth_at_most_upper(a, b):
    for ca, cb in ((1, 1), (1, 2), (2, 1), (1, 3)):
        groups = G.parse_mix([{"count": ca, "mechanism": "rr", "eps0": a},
                              {"count": cb, "mechanism": "rr", "eps0": b}])
        for eps in EPS:
            lo = max(DL.mix_pair(groups, g).delta(eps) for g in range(2))
            t = truth_mix([a] * ca + [b] * cb, eps)
            assert lo <= t + 1e-12 <= G.mix_delta(groups, eps)[0] + 2e-12, (ca, cb, eps, lo, t)
            assert eps > 0.9 or lo > 0


def test_lower_epsilons_bracket_the_upper_ones():
    """n = 1e5, eps0 = 1, delta = 1e-6 (measured: dummies m = 1e5 0.006457 <= 0.008516, three
    reports 0.01841 <= 0.01860, n >= N the lower bound at N)."""
    rr = make_params("rr", 1.0)
    r = D.deployment_epsilon(rr, 100_000, 1e-6, dummies=100_000)
    assert 0.0064 < r.lower_epsilon < r.epsilon < 0.0086 and "100000 dummies" in r.lower_dataset
    assert DL.dummies_pair(rr, 100_000, 100_000).delta(r.lower_epsilon) > 1e-6
    # no dummies: the count pair reproduces the accountant's own lower bound (binary RR)
    assert DL.pair_lower_epsilon(DL.dummies_pair(rr, 100_000, 0), 1e-6, 1.0) == pytest.approx(
        ShuffleAccountant(rr, 100_000).epsilon_result(1e-6, lower=True, paper=False).lower_epsilon, rel=2e-5)
    r = G.reports_epsilon(rr, 100_000, 1e-6, 3)
    assert 0.0183 < r.lower_epsilon < r.epsilon < 0.0227
    nm = D.deployment_epsilon(rr, 100_000, 1e-6, n_min=True)
    assert nm.lower_epsilon == ShuffleAccountant(rr, 100_000).epsilon_result(1e-6, lower=True, paper=False).lower_epsilon
    assert "one of the populations" in nm.lower_statement
    g = G.parse_mix([{"count": 60_000, "mechanism": "rr", "eps0": 2}, {"count": 40_000, "mechanism": "rr", "eps0": 1}])
    m = G.mix_epsilon(g, 1e-6)
    assert 0.020 < m.lower_epsilon < m.epsilon and "group 1" in m.lower_dataset
    h = G.parse_mix([{"count": 600, "mechanism": "rr", "eps0": 2}, {"count": 400, "mechanism": "oue", "k": 4, "eps0": 1}])
    hm = G.mix_epsilon(h, 1e-6)  # binary RR's group decides; the OUE reports never equal x1 (another kind)
    assert 0.44 < hm.lower_epsilon <= hm.epsilon < 0.443 and "group 1" in hm.lower_dataset
    oue = D.deployment_epsilon(make_params("oue", 1.0, k=4), 1000, 1e-6, dummies=10)
    assert 0 < oue.lower_epsilon <= oue.epsilon and "bit x1 set" in oue.lower_dataset


def test_generic_class_lower_bounds_are_binary_rr_ones():
    """The class of every eps0-LDP randomizer (generic) is bounded below by its member binary RR
    at eps0: each deployment's lower bound is binary RR's (the same number), named as one
    randomizer of the class, and below the class's proved upper bound."""
    gen, rr = make_params("generic", 1.0), make_params("rr", 1.0)
    from accountant.accounting import deployment_lower as DL

    for f in ((lambda P: D.deployment_epsilon(P, 1000, 1e-6, dummies=100)),
              (lambda P: G.reports_epsilon(P, 1000, 1e-6, 2))):
        g, r = f(gen), f(rr)
        assert g.lower_epsilon is not None and g.lower_epsilon == r.lower_epsilon <= g.epsilon
        assert "one eps0-LDP randomizer of the class" in g.lower_dataset
    for nb in ("substitute", "add-remove"):  # binary RR's own upper bound per count is slow: its lower alone
        g = D.sampled_epsilon(gen, 1000, 1e-6, 0.5, neighbours=nb)
        assert g.lower_epsilon == min(DL.rr_sampled_lower_epsilon(rr, 1000, 1e-6, 0.5, neighbours=nb), g.epsilon)
        assert 0 < g.lower_epsilon < g.epsilon and "one eps0-LDP randomizer of the class" in g.lower_dataset
    mix = G.parse_mix([{"count": 600, "mechanism": "generic", "eps0": 2}, {"count": 400, "mechanism": "krr", "k": 4,
                                                                           "eps0": 1}])
    as_rr = G.parse_mix([{"count": 600, "mechanism": "rr", "eps0": 2}, {"count": 400, "mechanism": "krr", "k": 4,
                                                                        "eps0": 1}])
    m, mr = G.mix_epsilon(mix, 1e-6), G.mix_epsilon(as_rr, 1e-6)
    assert m.lower_epsilon == mr.lower_epsilon and m.lower_epsilon <= m.epsilon


def test_count_pair_refuses_too_large_windows(monkeypatch):
    monkeypatch.setattr(DL, "COUNT_MAX_SIZE", 10_000)
    with pytest.raises(ValueError, match="over the limit 10000"):
        DL.count_pair([(10 ** 8, 0.5)], 1, 0.7, 0.3, "")
    with pytest.raises(ValueError, match="over the limit 10000"):
        DL.count_pair([(10 ** 6, 0.5), (10 ** 6, 0.5)], 1, 0.7, 0.3, "")


def test_cli_shows_the_lower_bounds():
    def run(*args):
        p = subprocess.run([sys.executable, "-m", "accountant", "epsilon", "--delta", "1e-6", "--json", *args],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)

    for args in (["--n", "1e4", "--eps0", "1", "--mechanism", "rr", "--dummies", "1000"],
                 ["--n", "1e4", "--eps0", "1", "--mechanism", "krr", "--k", "4", "--reports", "2"],
                 ["--mix", "docs/examples/mix.json"]):
        out = run(*args)
        assert 0 < out["lower_epsilon"] <= out["epsilon"] and "D = (x1" in out["lower_dataset"], args


@pytest.mark.parametrize("N", [1, 10, 200, 3000])
@pytest.mark.parametrize("p", [0.001, 0.3, 0.5, 0.97])
def test_param_l1_bounds_the_distance_to_the_true_parameter(N, p):
    """param_l1(N, p, rel) >= the l1 distance between Bin(N, p*) and Bin(N, p) for p* at both
    ends of |p* - p| <= rel p* (computed in 40-digit mpmath), and within a factor 3 of the worst
    at the larger N (Pinsker and chi^2 are tight for small shifts)."""
    import mpmath

    from accountant.accounting.deployment_lower import param_l1

    mpmath.mp.dps = 40
    for rel in (1e-2, 1e-4):
        bound = param_l1(N, p, rel)
        worst = 0.0
        for ps in (mpmath.mpf(p) / (1 - rel), mpmath.mpf(p) / (1 + rel)):
            if ps >= 1:
                continue
            l1 = mpmath.fsum(abs(mpmath.binomial(N, k) * (ps ** k * (1 - ps) ** (N - k) -
                                                         mpmath.mpf(p) ** k * (1 - mpmath.mpf(p)) ** (N - k)))
                             for k in range(N + 1))
            worst = max(worst, float(l1))
        assert worst <= bound, (N, p, rel, worst, bound)
        if N >= 200 and bound < 1:
            assert bound <= 3 * worst, (N, p, rel, worst, bound)
    assert param_l1(10, 0.0) == 0.0 and param_l1(0, 0.4) == 0.0
    assert param_l1(10, 1.0, 1e-3) >= 2 * (1 - (1 + 1e-3) ** -10)  # p* >= 1/(1 + rel): the worst l1 at p = 1
