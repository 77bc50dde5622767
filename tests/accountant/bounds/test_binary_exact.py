"""The exact eps_c of binary RR (accountant.bounds.binary_exact) against a brute-force maximum
over every dataset m, the certified lower bound at m = n - 1 and the blanket; the issue's numbers."""
import pytest

from accountant import compute_bound, proved_epsilon
from accountant.bounds.binary_exact import (EXACT_MAX_N, HEADLINE_MAX_N, LARGE_HEADLINE_MAX_N, LARGE_MAX_N, LARGE_REGISTRY_RTOL,
                                           bracket_epsilon, exact_delta, exact_epsilon)
from tests.accountant.engines.test_two_input import brute_float


@pytest.mark.parametrize("n,eps0,delta", [(50, 1.0, 1e-3), (300, 2.0, 1e-5), (2000, 0.5, 1e-6)])
def test_bracket_against_brute_force_maximum_over_every_m(n, eps0, delta):
    r = exact_epsilon(n, eps0, delta, rtol=1e-6)
    assert r.upper / r.lower - 1 <= 1.5e-6
    assert brute_float(n, eps0, r.upper).max() <= delta * (1 + 1e-9)      # upper: every m meets it
    assert brute_float(n, eps0, r.lower)[r.worst_m] > delta * (1 - 1e-9)  # lower: a dataset exceeds


def test_worst_dataset_below_the_top_is_found():
    # n = 50, eps0 = 1: at eps = 0.3 the worst m is 48; exact_delta's maximum equals brute force's
    bf = brute_float(50, 1.0, 0.3)
    lo, hi = exact_delta(50, 1.0, 0.3)
    assert lo <= bf.max() <= hi and hi - lo <= 1e-6 * bf.max()


@pytest.mark.parametrize("n,eps0,delta,exact,blanket", [
    (1000, 0.5, 1e-6, 0.05685, 0.06269),
    (100_000, 2.0, 1e-6, 0.02466, 0.03319),
])
def test_issue_numbers_and_the_headline(n, eps0, delta, exact, blanket):
    r = exact_epsilon(n, eps0, delta)
    head = proved_epsilon(n, eps0, delta, mechanism="rr")
    # above HEADLINE_MAX_N the certified bracket, named 'search' (width in the reason)
    assert head.name == ("exact" if n <= HEADLINE_MAX_N else "search")
    if n <= HEADLINE_MAX_N:
        assert head.epsilon == r.upper
    else:
        assert r.upper <= head.epsilon <= r.upper * (1.0 + 1.5 * LARGE_REGISTRY_RTOL) and "certified bracket" in head.reason
    assert abs(r.upper - exact) < 1e-5
    low = compute_bound("lower", n, eps0, delta, mechanism="rr").epsilon
    bl = compute_bound("blanket", n, eps0, delta, mechanism="rr").epsilon
    assert low <= r.upper <= low * (1 + 2e-5)       # the m = n - 1 lower bound is the exact value
    assert abs(bl - blanket) < 1e-5 and r.upper < bl


def test_certified_search_at_1e4_is_monotone_and_between_lower_and_blanket():
    prev = None
    for eps0 in (0.5, 1.0, 2.0):
        r = exact_epsilon(10_000, eps0, 1e-6)
        low = compute_bound("lower", 10_000, eps0, 1e-6, mechanism="rr").epsilon
        bl = compute_bound("blanket", 10_000, eps0, 1e-6, mechanism="rr").epsilon
        assert low * (1 - 1e-9) <= r.upper <= bl and r.lower >= low * (1 - 2e-5)
        assert prev is None or r.upper > prev
        prev = r.upper


def test_limit_is_refused_and_the_headline_falls_back():
    with pytest.raises(ValueError, match="n must be <= 1e\\+05"):
        exact_epsilon(EXACT_MAX_N + 1, 1.0, 1e-6)
    with pytest.raises(ValueError, match="LARGE_MAX_N"):
        bracket_epsilon(LARGE_MAX_N + 1, 1.0, 1e-6)
    r = compute_bound("search", LARGE_HEADLINE_MAX_N + 1, 1.0, 1e-6, mechanism="rr")
    assert not r.applicable and "LARGE_HEADLINE_MAX_N" in r.reason
    r = compute_bound("exact", HEADLINE_MAX_N + 1, 1.0, 1e-6, mechanism="rr")
    assert not r.applicable and "HEADLINE_MAX_N" in r.reason and "'search'" in r.reason
    assert proved_epsilon(LARGE_HEADLINE_MAX_N + 1, 1.0, 1e-6, mechanism="rr").name == "blanket"


@pytest.mark.parametrize("n,eps0,delta", [(300, 2.0, 1e-5), (2000, 0.5, 1e-6)])
def test_large_bracket_against_brute_force_maximum_over_every_m(n, eps0, delta):
    # the large-n search (FFT evaluations, blanket range bound) at n small enough for brute force
    r = bracket_epsilon(n, eps0, delta, rtol=1e-4, max_nodes=3000)
    assert r.upper / r.lower - 1 <= 1.5e-4
    assert brute_float(n, eps0, r.upper).max() <= delta * (1 + 1e-9)
    assert brute_float(n, eps0, r.lower)[r.worst_m] > delta * (1 - 1e-9)


@pytest.mark.parametrize("eps0", [0.5, 2.0])
def test_large_bracket_contains_the_certified_search_at_1e4(eps0):
    ex = exact_epsilon(10_000, eps0, 1e-6)
    r = bracket_epsilon(10_000, eps0, 1e-6, rtol=1e-4, max_nodes=3000)
    assert r.lower <= ex.upper and ex.lower <= r.upper and r.upper / r.lower - 1 <= 1.5e-4


@pytest.mark.parametrize("n,eps0", [(10**6, 2.0), (10**8, 0.5)])
def test_large_bracket_at_1e6_and_1e8_within_1_percent_below_the_blanket(n, eps0):
    r = bracket_epsilon(n, eps0, 1e-6, rtol=1e-2, max_nodes=200)
    low = compute_bound("lower", n, eps0, 1e-6, mechanism="rr").epsilon
    bl = compute_bound("blanket", n, eps0, 1e-6, mechanism="rr").epsilon
    assert r.upper / r.lower - 1 <= 1.01e-2 and r.worst_m == n - 1
    assert abs(r.lower / low - 1) <= 1e-5 and r.upper < bl   # lower: the same dataset m = n - 1


def test_large_bracket_budget_and_levels():
    with pytest.raises(ArithmeticError, match="exceeded 3 nodes"):
        bracket_epsilon(10**6, 2.0, 1e-6, max_nodes=3)
    wide = bracket_epsilon(10**5, 2.0, 1e-6, rtol=1e-2, max_nodes=400)
    narrow = bracket_epsilon(10**5, 2.0, 1e-6, rtol=1e-3, max_nodes=400)
    assert narrow.lower <= wide.upper and wide.lower <= narrow.upper
    assert narrow.upper / narrow.lower - 1 <= 1.01e-3 < wide.upper / wide.lower - 1 <= 1.01e-2


def test_node_budget_reports_not_available(monkeypatch):
    from accountant.bounds import binary_exact

    monkeypatch.setattr(binary_exact, "MAX_EVALUATIONS", 5)
    r = compute_bound("exact", 777, 1.0, 1e-6, mechanism="rr")
    assert not r.applicable and "exceeded 5 evaluations" in r.reason
    assert binary_exact.exact_bound_delta(type("P", (), {"eps0": 1.0})(), 777, 0.1) == (0.0, 1.0)


# --------------------------------------------------------------------------- direct searches (issue 41 item 2)
def brute_mp(n, eps0, eps, dps=50):
    """max over every m of delta_m(eps) in ``dps``-digit arithmetic (mpmath): the pmf of
    V = Bin(m, p) + Bin(n - 1 - m, q) by convolution, then sum_k (P_D(k) - e^eps P_D'(k))_+."""
    import mpmath

    with mpmath.workdps(dps):
        e0 = mpmath.exp(mpmath.mpf(eps0))
        p, q, u = e0 / (1 + e0), 1 / (1 + e0), mpmath.exp(mpmath.mpf(eps))
        def pmf(N, pr):
            return [mpmath.binomial(N, k) * pr ** k * (1 - pr) ** (N - k) for k in range(N + 1)]
        out = []
        for m in range(n):
            a, b = pmf(m, p), pmf(n - 1 - m, q)
            v = [mpmath.fsum(a[i] * b[k - i] for i in range(max(0, k - len(b) + 1), min(k, len(a) - 1) + 1))
                 for k in range(n)]
            vv = [mpmath.mpf(0)] + v + [mpmath.mpf(0)]
            PD = [p * vv[k] + q * vv[k + 1] for k in range(n + 1)]    # K = V + Bern(p): k = 0..n
            PQ = [q * vv[k] + p * vv[k + 1] for k in range(n + 1)]
            out.append(mpmath.fsum(max(PD[k] - u * PQ[k], 0) for k in range(n + 1)))
        return out


@pytest.mark.parametrize("n,eps0,delta", [(80, 1.0, 1e-3), (60, 2.0, 1e-4)])
def test_direct_search_against_50_digit_brute_force_over_every_m(n, eps0, delta):
    r = bracket_epsilon(n, eps0, delta, rtol=1e-6, max_nodes=3000, direct=True)
    assert r.upper / r.lower - 1 <= 1.5e-6
    assert max(brute_mp(n, eps0, r.upper)) <= delta                 # upper: every m meets it
    assert brute_mp(n, eps0, r.lower)[r.worst_m] > delta            # lower: the named dataset exceeds


@pytest.mark.parametrize("n,eps0,delta", [(300, 2.0, 1e-5), (2000, 0.5, 1e-6), (2000, 2.0, 1e-6)])
def test_direct_search_at_1e_6_against_float_brute_force(n, eps0, delta):
    r = bracket_epsilon(n, eps0, delta, rtol=1e-6, max_nodes=5000, direct=True)
    assert r.upper / r.lower - 1 <= 1.5e-6
    assert brute_float(n, eps0, r.upper).max() <= delta * (1 + 1e-9)
    assert brute_float(n, eps0, r.lower)[r.worst_m] > delta * (1 - 1e-9)
    ex = exact_epsilon(n, eps0, delta, rtol=1e-6)          # the window-sum search: the same brackets
    assert r.lower <= ex.upper and ex.lower <= r.upper


@pytest.mark.parametrize("n,eps0,rtol", [(10_000, 2.0, 1e-6), (100_000, 2.0, 1e-6), (10**6, 2.0, 1e-5)])
def test_direct_search_inside_the_wider_certified_brackets(n, eps0, rtol):
    narrow = bracket_epsilon(n, eps0, 1e-6, rtol=rtol, max_nodes=3000, direct=True)
    wide = bracket_epsilon(n, eps0, 1e-6, rtol=1e-2, max_nodes=400)
    assert narrow.upper / narrow.lower - 1 <= 1.5 * rtol
    assert wide.lower * (1 - 1e-9) <= narrow.lower <= narrow.upper <= wide.upper
    if n == 10_000:
        ex = exact_epsilon(n, eps0, 1e-6)
        assert narrow.lower <= ex.upper and ex.lower <= narrow.upper
    with pytest.raises(ArithmeticError, match="exceeded 5 nodes at relative width 1e-06"):
        bracket_epsilon(n, eps0, 1e-6, rtol=1e-6, max_nodes=5, direct=True)


def test_direct_search_is_monotone_in_n():
    # eps_c is non-increasing in n (docs/proved.md): the certified brackets may overlap, never invert
    prev = None
    for n in (3_000, 10_000, 30_000, 100_000):
        r = bracket_epsilon(n, 2.0, 1e-6, rtol=1e-6, max_nodes=3000, direct=True)
        assert prev is None or r.lower <= prev.upper
        prev = r


def test_direct_benchmark_table_runs_in_smoke_mode(tmp_path):
    import os
    import subprocess
    import sys

    from tests.paths import REPO_ROOT

    env = dict(os.environ, BENCH_SMOKE="1", PYTHONPATH=REPO_ROOT)
    out = subprocess.run([sys.executable, os.path.join(REPO_ROOT, "benchmarks", "bench_binary_exact.py"),
                          "--direct"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    row = out.stdout.strip().splitlines()[-1].split("|")
    lower, upper, nodes = float(row[4]), float(row[5]), int(row[7])
    assert row[1].strip() == "1e+04" and 0 < upper / lower - 1 <= 1.01e-2 and nodes > 0
    assert not os.listdir(tmp_path)
