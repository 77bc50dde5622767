"""FE0 / FE1 (Luo, Wang, Yi, Section 2): hash family, analyzers, unbiasedness, the
accuracy lemmas, the privacy reduction to M^BIB, exact and paper's rho, command line."""
from __future__ import annotations

import itertools
import json
import math
from collections import Counter

import numpy as np
import pytest

from accountant.protocols import bib
from mechanisms.interfaces import cli
from mechanisms.frequency.protocols import FE0, FE1, default_b
from mechanisms.frequency.hashing import (
    collision_probability,
    hash_values,
    is_prime,
    preimage_counts,
    smallest_prime_at_least,
)
from mechanisms.frequency.accuracy import fe0_alpha, fe1_alpha, lemma_2_3_alpha, lemma_2_6_alpha
from mechanisms.frequency.experiments import (
    frequency_data,
    frequency_table,
    render_frequency_table,
    simulate_frequency,
    table_mechanism,
)


# ---------------------------------------------------------------------- number theory

def _sieve(N):
    ok = np.ones(N + 1, dtype=bool)
    ok[:2] = False
    for i in range(2, int(N ** 0.5) + 1):
        if ok[i]:
            ok[i * i::i] = False
    return ok


def test_is_prime_matches_sieve():
    ok = _sieve(20000)
    assert all(is_prime(i) == bool(ok[i]) for i in range(20001))
    # large: Mersenne prime 2^61 - 1, and a Carmichael number
    assert is_prime(2 ** 61 - 1) and not is_prime(561) and not is_prime(2 ** 61 + 1)


@pytest.mark.parametrize("B", [2, 3, 4, 100, 1000, 100000, 2 ** 20])
def test_smallest_prime_at_least_is_in_bertrand_range(B):
    q = smallest_prime_at_least(B)
    assert is_prime(q) and B <= q <= 2 * B
    assert not any(is_prime(r) for r in range(B, q))


@pytest.mark.parametrize("q,b", [(5, 2), (7, 3), (11, 4), (13, 5), (17, 8), (23, 11)])
def test_collision_probability_equal_for_every_pair(q, b):
    U, V = np.meshgrid(np.arange(1, q), np.arange(q), indexing="ij")
    want = collision_probability(q, b)
    for x, y in itertools.combinations(range(q), 2):
        hit = np.mean(hash_values(U, V, x, q, b) == hash_values(U, V, y, q, b))
        assert hit == pytest.approx(want, abs=1e-15)
    assert want < 1 / b


@pytest.mark.parametrize("q,b,B", [(7, 2, 7), (11, 3, 6), (101, 10, 100), (1009, 37, 1000),
                                   (1009, 2, 600)])
def test_preimage_counts_equal_direct_hash_counts(q, b, B):
    rng = np.random.default_rng(q * b)
    M = 3000
    u, v, w = rng.integers(1, q, M), rng.integers(0, q, M), rng.integers(0, b, M)
    got = preimage_counts(u, v, w, q, b, B)
    want = np.array([np.count_nonzero(hash_values(u, v, x, q, b) == w) for x in range(B)])
    np.testing.assert_array_equal(got, want)


def test_preimage_counts_large_prime_path():
    """q above the inverse-table limit: inverses by modular exponentiation."""
    B = (1 << 24) + 5
    q = smallest_prime_at_least(B)
    b = 1 << 22
    rng = np.random.default_rng(5)
    u, v, w = rng.integers(1, q, 4), rng.integers(0, q, 4), rng.integers(0, b, 4)
    got = preimage_counts(u, v, w, q, b, B)
    xs = np.arange(B, dtype=np.int64)
    want = np.zeros(B, dtype=np.int64)
    for i in range(4):
        want += hash_values(u[i], v[i], xs, q, b) == w[i]
    np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------------- analyzers

def test_fe0_all_elements_equal_algorithm_3_queries():
    rng = np.random.default_rng(1)
    p = FE0.make(500, 20, 1.0, 1e-6, rho=2.3)
    x = frequency_data(rng, 500, 20)
    rep = p.randomize(x, rng)
    est = p.estimate_all(rep)
    np.testing.assert_allclose(est, [p.query(rep, i) for i in range(20)], rtol=0, atol=1e-12)
    # the real inputs are in the multiset: counts >= true frequencies
    assert np.all(np.bincount(rep.values, minlength=20) >= np.bincount(x, minlength=20))
    assert 500 * 3 <= rep.values.size <= 500 * 4


def test_fe1_all_elements_equal_algorithm_5_queries():
    rng = np.random.default_rng(2)
    p = FE1.make(800, 60, 1.0, 1e-6, b=7, rho=1.5)
    assert p.q == 61
    x = frequency_data(rng, 800, 60, "uniform")
    rep = p.randomize(x, rng)
    est = p.estimate_all(rep)
    np.testing.assert_allclose(est, [p.query(rep, i) for i in range(60)], rtol=0, atol=1e-9)
    assert 800 * 2 <= rep.u.size <= 800 * 3
    assert rep.u.min() >= 1 and rep.u.max() <= p.q - 1 and rep.w.max() < p.b


@pytest.mark.parametrize("cls,kw", [(FE0, {}), (FE1, {"b": 5})])
def test_streamed_estimates_count_every_message_once(monkeypatch, cls, kw):
    """estimate_from_inputs (many blocks, no shuffle) gives exactly the analyzer's output on
    the multiset of all messages it generated (recorded here)."""
    import mechanisms.frequency as fr
    import mechanisms.frequency.protocols as fr_protocols

    p = cls.make(300, 40, 1.0, 1e-6, rho=2.7, **kw)
    x = frequency_data(np.random.default_rng(0), 300, 40)
    seen = []
    for name in ("_real_messages", "_blanket_messages"):
        orig = getattr(cls, name)

        def rec(self, *a, _orig=orig):
            out = _orig(self, *a)
            seen.append(out)
            return out
        monkeypatch.setattr(cls, name, rec)
    monkeypatch.setattr(fr_protocols, "BLOCK_MESSAGES", 7)
    est, mpu = p.estimate_from_inputs(x, np.random.default_rng(9))
    assert len(seen) > 100
    if cls is FE0:
        reports = fr.FE0Reports(values=np.concatenate(seen), n=300)
    else:
        reports = fr.FE1Reports(*(np.concatenate([m[i] for m in seen]) for i in range(3)), n=300)
    assert mpu == reports.messages_per_user
    np.testing.assert_allclose(est, p.estimate_all(reports), rtol=0, atol=1e-9)


def _exact_z(errs, var):
    R = errs.shape[0]
    return errs.mean(axis=0) / np.sqrt(var / R)


@pytest.mark.parametrize("rho", [0.4, 3.25])
def test_fe0_unbiased_and_exact_variance(rho):
    rng = np.random.default_rng(11)
    n, B, R = 400, 12, 3000
    p = FE0.make(n, B, 1.0, 1e-6, rho=rho)
    x = frequency_data(rng, n, B)
    g = np.bincount(x, minlength=B)
    errs = np.array([p.estimate_from_inputs(x, rng)[0] - g for _ in range(R)])
    z = _exact_z(errs, p.variance())
    assert np.max(np.abs(z)) < 4.5
    emp = errs.var(axis=0, ddof=1)
    # chi-square: relative sd of a variance estimate is sqrt(2/(R-1)) ~ 2.6%
    assert np.all(np.abs(emp / p.variance() - 1) < 5 * math.sqrt(2 / (R - 1)))


@pytest.mark.parametrize("rho", [0.3, 2.5])
def test_fe1_unbiased_and_exact_variance(rho):
    rng = np.random.default_rng(12)
    n, B, R = 300, 16, 2500
    p = FE1.make(n, B, 1.0, 1e-6, b=3, rho=rho)
    x = frequency_data(rng, n, B)
    g = np.bincount(x, minlength=B)
    errs = np.array([p.estimate_from_inputs(x, rng)[0] - g for _ in range(R)])
    var = np.array([p.variance(int(gi)) for gi in g])
    z = _exact_z(errs, var)
    assert np.max(np.abs(z)) < 4.5
    emp = errs.var(axis=0, ddof=1)
    assert np.all(np.abs(emp / var - 1) < 5 * math.sqrt(2 / (R - 1)))


# ---------------------------------------------------------------------- accuracy lemmas

def test_lemmas_as_stated_equal_general_rho_at_papers_rho():
    n, B, eps, delta, beta = 10 ** 5, 300, 1.0, 1e-10, 0.1
    p = FE0.make(n, B, eps, delta, rho="paper")
    assert p.alpha(beta) == pytest.approx(lemma_2_3_alpha(B, eps, delta, beta), rel=1e-12)
    f = FE1.make(n, 10 ** 5, eps, delta, b=500, rho="paper")
    assert f.alpha(beta) == pytest.approx(lemma_2_6_alpha(n, 10 ** 5, 500, eps, delta, beta),
                                          rel=1e-12)
    assert f.alpha(beta, form="proof") < f.alpha(beta)


def test_alpha_monotone():
    a = [fe0_alpha(10 ** 4, 100, r, 0.1) for r in (0.0, 0.1, 1.0, 10.0)]
    assert a == sorted(a) and a[0] == pytest.approx(3 * math.log(2000))
    a = [fe0_alpha(10 ** 4, 100, 1.0, beta) for beta in (0.01, 0.1, 0.5, 1.0)]
    assert a == sorted(a, reverse=True)
    a = [fe1_alpha(10 ** 4, 10 ** 4, b, 1.0, 0.1) for b in (10, 100, 1000)]
    assert a == sorted(a, reverse=True)


@pytest.mark.parametrize("mech,n,B,b,rho", [
    ("fe0", 10 ** 4, 100, None, "paper"), ("fe0", 10 ** 4, 100, None, "exact"),
    ("fe1", 10 ** 4, 10 ** 4, 200, "paper"), ("fe1", 10 ** 4, 10 ** 4, 200, "exact"),
])
def test_max_error_within_lemma_bounds(mech, n, B, b, rho):
    """(alpha, beta)-accuracy: over 40 runs the max error exceeds alpha(beta) in at most
    beta * 40 + 3 sd runs (it never does: the Chernoff bounds are loose), and the
    tighter inequality (6) of FE1 holds as well."""
    beta, R = 0.1, 40
    r = simulate_frequency(mech, n, B, 1.0, rho=rho, b=b, reps=R, seed=3, beta=beta)
    runs = np.array(r["max_abs_error_runs"])
    limit = beta * R + 3 * math.sqrt(R * beta * (1 - beta))
    assert np.sum(runs > r["alpha"]) <= limit
    if mech == "fe1":
        assert np.sum(runs > r["alpha_proof"]) <= limit
    # the errors are of the order the exact standard deviation predicts
    assert 0.8 < r["rmse"] / r["rmse_exact"] < 1.2
    assert abs(r["mean_error"]) < 5 * r["rmse_exact"] / math.sqrt(R * B)


# ---------------------------------------------------------------------- privacy

def _multiset_dist(per_user):
    """Distribution of the multiset union of independent users' message multisets."""
    dist = {(): 1.0}
    for outcomes in per_user:
        new = Counter()
        for key, pk in dist.items():
            for msgs, pm in outcomes:
                new[tuple(sorted(key + msgs))] += pk * pm
        dist = new
    return dist


def _fe0_user(x, B, rho):
    out = [((x,), 1 - rho)]
    out += [((x, y), rho / B) for y in range(B)]
    return out


def _fe1_user(x, q, b, rho):
    tuples = [(u, v, w) for u in range(1, q) for v in range(q) for w in range(b)]
    out = []
    for u in range(1, q):
        for v in range(q):
            real = (u, v, ((u * x + v) % q) % b)
            pr = 1.0 / ((q - 1) * q)
            out.append(((real,), pr * (1 - rho)))
            out += [((real, t), pr * rho / len(tuples)) for t in tuples]
    return out


def _hockey(P, Q, eps):
    e = math.exp(eps)
    return sum(max(0.0, p - e * Q.get(k, 0.0)) for k, p in P.items())


@pytest.mark.parametrize("eps", [0.0, 0.5, 1.5])
def test_fe0_whole_protocol_within_bib_accounting(eps):
    """Enumerate the full shuffled output of FE0 (n = 3, B = 3) on neighbouring data
    sets: the divergence is at most the M^BIB(B, 1, 0, n, rho) value the proof uses."""
    B, rho, n = 3, 0.6, 3
    bound = bib.bib_delta(eps, B, 1, 0, n, rho)
    worst = 0.0
    for rest in itertools.product(range(B), repeat=n - 1):
        for x, x2 in itertools.permutations(range(B), 2):
            P = _multiset_dist([_fe0_user(y, B, rho) for y in rest] + [_fe0_user(x, B, rho)])
            Q = _multiset_dist([_fe0_user(y, B, rho) for y in rest] + [_fe0_user(x2, B, rho)])
            worst = max(worst, _hockey(P, Q, eps))
    assert worst <= bound + 1e-12
    assert worst > 0.5 * bound  # the reduction is not vacuous here


def test_fe1_whole_protocol_within_bib_accounting():
    q, b, B, rho, eps = 5, 2, 4, 0.5, 0.7
    bound = bib.bib_delta(eps, (q - 1) * q * b, (q - 1) * q, 0, 2, rho)
    P = _multiset_dist([_fe1_user(0, q, b, rho), _fe1_user(1, q, b, rho)])
    Q = _multiset_dist([_fe1_user(0, q, b, rho), _fe1_user(2, q, b, rho)])
    d = _hockey(P, Q, eps)
    assert 0 < d <= bound + 1e-12


def test_fe1_bib_depends_on_b_only():
    """Worst-case overlap 0: M^BIB((q-1) q b, (q-1) q, ...) has the divergence of M^BIB(b, 1, ...)."""
    q, b = 100003, 1086
    for eps, k, n, p in [(0.5, 0, 10 ** 4, 0.3), (1.0, 60000, 10 ** 4, 0.74)]:
        big = bib.bib_divergence(eps, (q - 1) * q * b, (q - 1) * q, k, n, p)
        small = bib.bib_divergence(eps, b, 1, k, n, p)
        assert big.value == pytest.approx(small.value, rel=1e-9)


@pytest.mark.parametrize("n,B,eps", [(10 ** 4, 100, 0.5), (10 ** 4, 100, 3.0),
                                     (10 ** 6, 1000, 1.0), (10 ** 5, 50, 2.0)])
def test_exact_rho_certified_and_minimal_paper_rho_sufficient(n, B, eps):
    delta = 1.0 / n ** 2
    ex = FE0.make(n, B, eps, delta, rho="exact")
    assert ex.certified_delta() <= delta
    k, p = bib.params_for_rho(0, n, ex.rho * (1 - 1e-4))
    assert bib.bib_divergence(eps, B, 1, k, n, p, target=delta).lower > delta
    pa = FE0.make(n, B, eps, delta, rho="paper")
    assert pa.paper_condition()
    assert pa.certified_delta() <= delta  # Theorem 2.1's condition is sufficient here
    assert ex.rho < pa.rho
    assert pa.privacy()["meets_delta"] and ex.privacy()["meets_delta"]


def test_fe1_exact_rho_equals_fe0_exact_rho_with_B_equal_b():
    f = FE1.make(10 ** 4, 10 ** 5, 1.0, 1e-8, b=1086)
    g = FE0.make(10 ** 4, 1086, 1.0, 1e-8)
    assert f.rho == pytest.approx(g.rho, rel=1e-12)
    assert f.messages_per_user == 1 + f.rho
    assert f.bits_per_message == 2 * 17 + 11


# ---------------------------------------------------------------------- validation

@pytest.mark.parametrize("call,match", [
    (lambda: FE0.make(0, 10, 1.0, 1e-6), "n must"),
    (lambda: FE0.make(10, 1, 1.0, 1e-6), "B must"),
    (lambda: FE0.make(10, 10, 0.0, 1e-6), "eps must"),
    (lambda: FE0.make(10, 10, 1.0, 1.0), "delta must"),
    (lambda: FE0.make(10, 10, 1.0, 1e-6, rho=-1.0), "rho must"),
    (lambda: FE0.make(10, 10, 1.0, 1e-6, rho="tight"), "rho must"),
    (lambda: FE0.make(10, 10, 3.5, 1e-6, rho="paper"), "eps <= 3"),
    (lambda: FE1.make(10, 100, 1.0, 1e-6, b=51), "b must"),
    (lambda: FE1.make(10, 100, 1.0, 1e-6, b=10, q=102), "q must"),
    (lambda: FE1.make(10, 100, 1.0, 1e-6, b=10, q=97), "q must"),
    (lambda: FE0.make(10, 10, 1.0, 1e-6, rho=0.5).randomize(np.arange(9), None), "x must"),
    (lambda: FE0.make(3, 10, 1.0, 1e-6, rho=0.5).randomize(np.array([0, 1, 10]), None), "x must"),
    (lambda: fe0_alpha(10, 10, 1.0, 0.0), "beta must"),
    (lambda: fe1_alpha(10, 10, 2, 1.0, 0.1, form="bogus"), "form must"),
    (lambda: simulate_frequency("fe2", 10, 10, 1.0), "mechanism must"),
    (lambda: simulate_frequency("fe0", 10, 10, 1.0, data="bogus"), "data must"),
    (lambda: simulate_frequency("fe0", 10, 10, 1.0, b=3), "b and q"),
])
def test_invalid_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_default_b_and_table_rule():
    assert default_b(10 ** 4, 10 ** 5) == round(10 ** 4 / math.log(10 ** 4))
    assert default_b(10 ** 6, 10 ** 5) == 50000
    assert table_mechanism(10 ** 4, 100) == ("fe0", None)
    assert table_mechanism(10 ** 6, 10 ** 5) == ("fe1", 50000)
    assert table_mechanism(10 ** 4, 10 ** 5) == ("fe1", 1086)


def test_frequency_data_ranges():
    rng = np.random.default_rng(0)
    z = frequency_data(rng, 10000, 50)
    u = frequency_data(rng, 10000, 50, "uniform")
    assert z.min() >= 0 and z.max() < 50 and u.min() >= 0 and u.max() < 50
    assert np.bincount(z)[0] > np.bincount(u)[0]  # zipf puts most mass on the head


# ---------------------------------------------------------------------- table and CLI

def test_frequency_table_rows_and_render():
    res = frequency_table([2000], [50, 5000], [1.0, 4.0], reps=2, seed=1)
    rows = res["rows"]
    assert [r["mechanism"] for r in rows] == ["fe0", "fe0", "fe1", "fe1"]
    for r in rows:
        assert r["messages_exact"] == pytest.approx(1 + r["rho_exact"])
        if r["eps"] > 3:
            assert r["rho_paper"] is None
        else:
            assert r["rho_exact"] < r["rho_paper"]
            assert r["certified_delta_at_paper_rho"] <= r["delta"]
            assert r["max_error_exact"] < r["alpha_exact"]
    md = render_frequency_table(res, "md")
    assert md.count("\n| ") == 5 and "n/a" in md and "FE1, b = " in md
    assert "| 2000 | 5000 | FE1, b = " in md
    assert render_frequency_table(res, "csv").count("\n") == 5
    assert json.loads(render_frequency_table(res, "json"))["rows"][0]["n"] == 2000


def _run(capsys, *argv):
    try:
        code = cli.main(list(argv))
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_simulate_fe_json(capsys):
    code, out, _ = _run(capsys, "simulate", "--mechanism", "fe1", "--n", "3000", "--B", "2000",
                        "--eps", "1", "--b", "40", "--rho", "paper", "--reps", "2", "--json")
    assert code == 0
    r = json.loads(out)
    assert r["rho_source"] == "paper" and r["b"] == 40 and r["delta"] == pytest.approx(1 / 3000 ** 2)
    for k in ("max_abs_error", "messages_per_user", "messages_per_user_expected", "alpha",
              "certified_delta", "paper_condition", "q", "p_col"):
        assert k in r
    assert r["max_abs_error"] < r["alpha"]
    code, out, _ = _run(capsys, "simulate", "--mechanism", "fe0", "--n", "3000", "--B", "30",
                        "--eps", "1", "--rho", "0.25")
    assert code == 0 and "messages/user" in out and "rho=0.25 (given)" in out


@pytest.mark.parametrize("argv,match", [
    (["--mechanism", "fe0", "--n", "100", "--eps", "1"], "--B is required"),
    (["--mechanism", "fe0", "--n", "100", "--B", "10"], "--eps is required"),
    (["--mechanism", "fe0", "--n", "100", "--B", "10", "--eps", "1", "--d", "3"], "--d is not"),
    (["--mechanism", "fe0", "--n", "100", "--B", "10", "--eps", "1", "--b", "3"], "--b is not"),
    (["--mechanism", "coco", "--n", "100", "--d", "8", "--s", "2", "--eps0", "1", "--B", "3"],
     "--B is not"),
    (["--mechanism", "coco", "--n", "100", "--s", "2", "--eps0", "1"], "--d is required"),
    (["--mechanism", "fe1", "--n", "100", "--B", "100", "--eps", "1", "--b", "51"], "b must"),
    (["--mechanism", "fe1", "--n", "100", "--B", "100", "--eps", "1", "--rho", "lots"], "--rho"),
    (["--mechanism", "fe0", "--n", "100", "--B", "10", "--eps", "5", "--rho", "paper"], "eps <= 3"),
])
def test_cli_simulate_fe_errors(capsys, argv, match):
    code, out, err = _run(capsys, "simulate", *argv)
    assert code == 2 and out == ""
    assert match in err and err.count("\n") == 1


def test_cli_fe_table(tmp_path, capsys):
    out = tmp_path / "t.md"
    code, stdout, _ = _run(capsys, "fe-table", "--n", "1500", "--B", "40", "--eps", "1,2",
                           "--reps", "1", "--out", str(out))
    assert code == 0 and "wrote 2 rows" in stdout
    assert "| 1500 | 40 | FE0 | 1 |" in out.read_text()
    bad = tmp_path / "t.txt"
    code, _, err = _run(capsys, "fe-table", "--n", "1500", "--B", "40", "--eps", "1",
                        "--out", str(bad))
    assert code == 2 and "--out must end" in err and not bad.exists()


def test_simulation_cost():
    p = FE1.make(10 ** 4, 10 ** 5, 1.0, 1e-8, b=1000, rho="paper")
    c = p.simulation_cost()
    assert c["messages"] == pytest.approx(10 ** 4 * (1 + p.rho))
    assert c["candidates"] == pytest.approx(c["messages"] * ((p.q - 1) // 1000 + 1))
    f = FE0.make(10 ** 4, 100, 1.0, 1e-8, rho=0.5)
    assert f.simulation_cost() == {"users": 10 ** 4, "messages": 15000.0, "candidates": 15000.0,
                                   "domain": 100}
    with pytest.raises(ValueError, match="g must"):
        f.variance(10 ** 4 + 1)


def test_simulate_frequency_reports_progress_per_run():
    from mechanisms.frequency.experiments import simulate_frequency

    calls = []
    r = simulate_frequency("fe0", 2000, 50, 1.0, reps=3, seed=1,
                           progress=lambda k, tot: calls.append((k, tot)))
    assert calls == [(1, 3), (2, 3), (3, 3)]
    assert r == simulate_frequency("fe0", 2000, 50, 1.0, reps=3, seed=1)  # no effect on results
