"""User sampling with add/remove neighbours is not clipped at eps0: the count of reports is a
release that eps0-LDP does not cover (all n users take part w.p. q^n, and n reports are
impossible without user 1). Exact enumeration (mpmath) of the sampled shuffled view (the
histogram of the reports) at n <= 4 for binary RR and 3-RR: the exact eps_c (inf where the
mass of views impossible under the other dataset is above delta) lies between the certified
lower bound and the proved upper bound, one round (library and CLI JSON) and two rounds; the
proved delta(eps) is above the exact one above eps0 too."""
import itertools
import json
import os
import subprocess
import sys

import mpmath
import pytest

from accountant import make_params
from accountant.accounting import deployments as D



@pytest.fixture(autouse=True)
def _precision():
    """40 digits for the enumeration, restored after each test (other tests use mpmath too)."""
    with mpmath.workdps(40):
        yield


def _row(x, k, eps0, q):
    """Report probabilities of a user with input x (k-RR at eps0) who takes part w.p. q."""
    e = mpmath.exp(mpmath.mpf(eps0))
    return [q * (e if y == x else 1) / (e + k - 1) for y in range(k)]


def _hist(rows, k):
    """Exact law of the histogram of the reports (absent users send none)."""
    law = {(0,) * k: mpmath.mpf(1)}
    for row in rows:
        absent = 1 - sum(row)
        new = {}
        for h, p in law.items():
            for y, py in enumerate(row):
                g = h[:y] + (h[y] + 1,) + h[y + 1:]
                new[g] = new.get(g, 0) + p * py
            new[h] = new.get(h, 0) + p * absent
        law = new
    return law


def add_remove_pairs(k, eps0, n, q):
    """Every (view of D, view of D') with D' = D without user 1: user 1 with any input, the
    n - 1 others any inputs (q as an exact rational in mpmath)."""
    q = mpmath.mpf(q)
    out = []
    for others in itertools.combinations_with_replacement(range(k), n - 1):
        rest = [_row(o, k, eps0, q) for o in others]
        without = _hist(rest, k)
        out += [(_hist([_row(x, k, eps0, q)] + rest, k), without) for x in range(k)]
    return out


def product(p):
    """The law of two independent rounds of the view ``p``."""
    return {(a, b): pa * pb for a, pa in p.items() for b, pb in p.items()}


def exact_delta(P, Q, eps):
    x = mpmath.exp(mpmath.mpf(eps))
    return mpmath.fsum(max(pv - x * Q.get(v, 0), 0) for v, pv in P.items())


def exact_eps(P, Q, delta):
    """The smallest eps >= 0 with sum (P - e^eps Q)_+ <= delta (mpmath inf if never): the sum is
    piecewise linear in x = e^eps, solved exactly on the segment between consecutive ratios."""
    delta = mpmath.mpf(delta)
    a = mpmath.fsum(pv for v, pv in P.items() if Q.get(v, 0) == 0)  # views impossible under Q
    if a > delta:
        return mpmath.inf
    ratios = sorted(((pv / Q[v], pv, Q[v]) for v, pv in P.items() if Q.get(v, 0) > 0), reverse=True)
    b = mpmath.mpf(0)
    for i, (r, pv, qv) in enumerate(ratios):
        a, b = a + pv, b + qv
        nxt = ratios[i + 1][0] if i + 1 < len(ratios) else mpmath.mpf(0)
        x = (a - delta) / b  # a - x b = delta on [nxt, r]
        if x >= nxt:
            return max(mpmath.mpf(0), mpmath.log(x)) if x > 0 else mpmath.mpf(0)
    return mpmath.mpf(0)


def worst_eps(pairs, delta):
    return max(max(exact_eps(P, Q, delta), exact_eps(Q, P, delta)) for P, Q in pairs)


def worst_delta(pairs, eps):
    return max(max(exact_delta(P, Q, eps), exact_delta(Q, P, eps)) for P, Q in pairs)


def _params(k, eps0):
    return make_params("rr", eps0) if k == 2 else make_params("krr", eps0, k=k)


def _check(up, lo, truth):
    """upper >= truth >= lower (both may be infinite)."""
    if truth == mpmath.inf:
        assert up == float("inf"), (up, truth)
    else:
        assert up >= float(truth) * (1 - 1e-12) - 1e-12, (up, truth)
    if lo is not None:
        assert lo <= up and (truth == mpmath.inf or lo <= float(truth) * (1 + 1e-12) + 1e-12), (lo, truth, up)


CASES = [(k, n, q, eps0, delta) for k in (2, 3) for n in (2, 3, 4) for q, eps0, delta in
         ((0.3, 0.5, 1e-4), (0.3, 0.5, 0.01), (0.3, 2.0, 0.05), (0.8, 1.0, 0.3), (0.1, 0.5, 1e-3))]


@pytest.mark.parametrize("k,n,q,eps0,delta", CASES)
def test_one_round_epsilon_brackets_the_exact_eps_c(k, n, q, eps0, delta):
    """``sampled_epsilon`` (add/remove): upper >= the exact worst-case eps_c >= lower, inf where
    the exact eps_c is (with the reason), above eps0 where the truth is."""
    pairs = add_remove_pairs(k, eps0, n, q)
    truth = worst_eps(pairs, delta)
    r = D.sampled_epsilon(_params(k, eps0), n, delta, q, neighbours="add-remove")
    _check(r.epsilon, r.lower_epsilon, truth)
    if r.epsilon == float("inf"):
        assert r.note.startswith("no finite eps_c is proved") and r.achieved_delta is None
    else:
        assert r.achieved_delta <= delta and worst_delta(pairs, r.epsilon) <= delta * (1 + 1e-12)
    if r.lower_epsilon is not None and 0 < r.lower_epsilon < float("inf"):
        assert worst_delta(pairs, r.lower_epsilon) > delta  # a true lower bound


@pytest.mark.parametrize("k,n,q,eps0,delta", [(2, 2, 0.3, 0.5, 1e-4), (3, 3, 0.3, 2.0, 0.05), (2, 4, 0.1, 0.5, 1e-3)])
def test_cli_epsilon_json_brackets_the_exact_eps_c(k, n, q, eps0, delta):
    """The CLI's JSON: epsilon null with the reason where the exact eps_c is infinite, else a number
    at or above it; the lower bound at or below it."""
    mech = ["--mechanism", "rr"] if k == 2 else ["--mechanism", "krr", "--k", str(k)]
    cmd = [sys.executable, "-m", "accountant", "epsilon", "--n", str(n), "--eps0", str(eps0), "--delta", str(delta),
           "--sampling", str(q), "--neighbours", "add-remove", *mech, "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ), timeout=300)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    truth = worst_eps(add_remove_pairs(k, eps0, n, q), delta)
    up = float("inf") if out["epsilon"] is None else out["epsilon"]
    lo = float("inf") if out["lower_epsilon"] is None and out.get("lower_epsilon_reason") else out["lower_epsilon"]
    _check(up, lo, truth)
    if out["epsilon"] is None:
        assert out["note"].startswith("no finite eps_c is proved") and "infinity" in out["epsilon_reason"]


def test_cli_epsilon_prints_no_finite_eps_c_at_the_reproduction():
    """n = 2, q = 0.3, eps0 = 0.5, delta = 1e-4: q^n = 0.09 > delta, so eps_c = inf (it printed 0.5
    with certified delta 0); the lower bound is inf too (the q^n atom), not 0.5."""
    cmd = [sys.executable, "-m", "accountant", "epsilon", "--n", "2", "--eps0", "0.5", "--delta", "1e-4",
           "--mechanism", "rr", "--sampling", "0.3", "--neighbours", "add-remove"]
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ), timeout=300)
    assert p.returncode == 0, p.stderr
    assert "eps_c <= inf" in p.stdout and "no finite eps_c is proved" in p.stdout, p.stdout
    assert "q^n = 0.09" in p.stdout and "eps_c >= inf" in p.stdout, p.stdout


@pytest.mark.parametrize("k,eps0", [(2, 0.5), (3, 2.0)])
def test_delta_above_eps0_at_least_the_exact_one(k, eps0):
    """The proved add/remove delta(eps) at eps >= eps0 (where the old search assumed 0): at or
    above the exact worst case, which is at least q^n at every eps."""
    params = _params(k, eps0)
    for n in (2, 3, 4):
        for q in (0.3, 0.8):
            pairs = add_remove_pairs(k, eps0, n, q)
            for eps in (eps0, 1.5 * eps0, 3 * eps0, 10.0, 30.0):
                t = worst_delta(pairs, eps)
                assert t >= mpmath.mpf(q) ** n * (1 - mpmath.mpf(10) ** -30)
                assert D.sampled_delta_add_remove(params, n, q, eps) >= float(t) * (1 - 1e-12), (n, q, eps)


def _named_pair_rr(n, q, eps0):
    """The exact laws of (reports, ones) of binary RR, D = (1, 0, ..., 0) (n users), D' = D without
    user 1 (mpmath)."""
    e, q = mpmath.exp(mpmath.mpf(eps0)), mpmath.mpf(q)
    p1, p0 = e / (1 + e), 1 / (1 + e)
    n1 = n - 1
    others = {}
    for t in range(n1 + 1):
        pt = mpmath.binomial(n1, t) * q ** t * (1 - q) ** (n1 - t)
        for m in range(t + 1):
            others[(t, m)] = pt * mpmath.binomial(t, m) * p0 ** m * (1 - p0) ** (t - m)
    with_ = {}
    for (t, m), v in others.items():
        for key, w in (((t, m), 1 - q), ((t + 1, m + 1), q * p1), ((t + 1, m), q * (1 - p1))):
            with_[key] = with_.get(key, 0) + v * w
    return with_, others


def test_count_of_reports_exceeds_eps0_at_n_200():
    """n = 200, q = 0.8, eps0 = 1, delta = 1e-8 (binary RR): the count of reports alone already
    exceeds eps0 (the exact eps_c of the named pair is about 1.082; it printed 1.0 with certified
    delta 0). upper >= the pair's exact eps_c >= the certified lower bound > eps0."""
    P, Q = _named_pair_rr(200, 0.8, 1.0)
    pair = float(max(exact_eps(P, Q, 1e-8), exact_eps(Q, P, 1e-8)))
    assert 1.07 < pair < 1.09, pair
    r = D.sampled_epsilon(make_params("rr", 1.0), 200, 1e-8, 0.8, neighbours="add-remove")
    assert r.epsilon >= pair and r.achieved_delta <= 1e-8, (r.epsilon, pair)
    assert 1.0 < r.lower_epsilon <= pair <= r.epsilon, (r.lower_epsilon, pair, r.epsilon)
    assert "add/remove" in r.lower_dataset


def _two_round_truth(pairs, delta):
    return max(max(exact_eps(product(P), product(Q), delta), exact_eps(product(Q), product(P), delta))
               for P, Q in pairs)


@pytest.mark.parametrize("k,n,q,eps0,delta", [(2, 2, 0.5, 1.0, 0.3), (3, 2, 0.3, 1.0, 0.1), (2, 3, 0.3, 0.5, 0.06),
                                              (3, 3, 0.5, 1.0, 0.3), (2, 3, 0.8, 1.0, 0.5)])
def test_two_rounds_bracket_the_exact_composed_eps_c(k, n, q, eps0, delta):
    """T = 2 (a fresh sample each round): the composed upper bound >= the exact eps_c of the two
    rounds' product views >= the composed lower bound; the lower bound is inf where the exact one
    is (1 - (1 - q^n)^2 > delta; it was clipped at 2 eps0), and the upper bound finite where the
    exact one is (the profile's support reaches past eps0, where it is flat: it was inf at
    n = 3, q = 0.3, with the profile's value at eps0 as its +inf atom)."""
    pairs = add_remove_pairs(k, eps0, n, q)
    truth = _two_round_truth(pairs, delta)
    r = D.sampled_rounds_epsilon(_params(k, eps0), n, delta, q, 2, neighbours="add-remove")
    _check(r.epsilon, r.lower_epsilon, truth)
    if truth == mpmath.inf:
        assert r.lower_epsilon == float("inf") and r.note.startswith("no finite eps_c is proved"), r.lower_epsilon
    else:
        assert r.epsilon < float("inf") and 0 < r.lower_epsilon, (r.epsilon, r.lower_epsilon)
