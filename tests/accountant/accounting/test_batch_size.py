"""The minimum batch size (accountant.min_users, `python -m accountant users`): the answer's
proved eps_c meets the target and n - 1's does not; monotonicity in n checked on a grid."""
import json
import math
import subprocess
import sys

import pytest

from accountant import make_params, min_users
from accountant.bounds import registry
from accountant.bounds.binary_exact import HEADLINE_MAX_N, dataset_delta


@pytest.mark.parametrize("eps0,eps,delta,kw", [
    (2.0, 0.1, 1e-6, dict(mechanism="krr", k=4)),
    (1.0, 0.1, 1e-6, {}),
    (0.5, 0.06, 1e-6, dict(mechanism="rr")),
])
def test_smallest_n_meets_and_n_minus_1_does_not(eps0, eps, delta, kw):
    r = min_users(eps0, eps, delta, **kw)
    params = make_params(kw.get("mechanism", "generic"), eps0, k=kw.get("k"))
    at_n = registry.proved_params_epsilon(params, r.n, delta, rtol=1e-6)
    below = registry.proved_params_epsilon(params, r.n - 1, delta, rtol=1e-6)
    assert r.epsilon_at_n <= eps < r.epsilon_at_n_minus_1
    assert registry.proved_meets(params, r.n, eps, delta) and below.epsilon > eps
    assert at_n.epsilon <= eps * (1 + 1e-6)


def test_rr_exact_gives_fewer_users_than_the_blanket():
    r = min_users(0.5, 0.06, 1e-6, mechanism="rr")
    assert r.n == 907 and r.bound_at_n == "exact"
    blanket = min_users(0.5, 0.06, 1e-6, mechanism="krr", k=2)   # same randomizer, blanket only
    assert blanket.n > 1.15 * r.n
    # n - 1 fails for the truth, not only for the bound: the top dataset exceeds the target there
    assert dataset_delta(r.n - 2, r.n - 3, 0.5, 0.06).lower > 1e-6


@pytest.mark.parametrize("mechanism,k", [("generic", None), ("krr", 4), ("rr", None)])
def test_proved_epsilon_is_non_increasing_in_n(mechanism, k):
    params = make_params(mechanism, 1.0, k=k)
    ns = [2, 3, 5, 10, 30, 100, 300, 1000, 3000, HEADLINE_MAX_N, 30_000, 10**5, 10**7, 10**10]
    if mechanism == "rr":  # the exact bound leaves the headline above HEADLINE_MAX_N
        ns = [n for n in ns if n <= HEADLINE_MAX_N]
    eps = [registry.proved_params_epsilon(params, n, 1e-6, rtol=1e-6).epsilon for n in ns]
    assert all(b <= a * (1 + 1e-6) for a, b in zip(eps, eps[1:])), eps


def test_unreachable_target_says_so():
    r = min_users(8.0, 1e-4, 1e-10)
    assert r.n is None and "unreachable" in r.reason and r.epsilon_at_n > 1e-4


@pytest.mark.parametrize("kw,msg", [
    (dict(eps0=2.0, epsilon=0.0, delta=1e-6), "epsilon must be"),
    (dict(eps0=2.0, epsilon=0.1, delta=1.5), "delta must be"),
    (dict(eps0=2.0, epsilon=0.1, delta=1e-6, rounds=0), "rounds must be"),
    (dict(eps0=-1.0, epsilon=0.1, delta=1e-6), "eps0"),
])
def test_bad_input(kw, msg):
    with pytest.raises(ValueError, match=msg):
        min_users(**kw)


def test_cli_users_json_and_bad_input():
    out = subprocess.run([sys.executable, "-m", "accountant", "users", "--eps0", "1", "--eps", "0.1",
                          "--delta", "1e-6", "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    assert r["n"] == min_users(1.0, 0.1, 1e-6).n and r["epsilon_at_n"] <= 0.1 < r["epsilon_at_n_minus_1"]
    bad = subprocess.run([sys.executable, "-m", "accountant", "users", "--eps0", "1", "--eps", "0.1",
                          "--delta", "1e-6", "--rounds", "0"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--rounds" in bad.stderr


def test_cli_users_human_line_and_compare_tags_exact():
    out = subprocess.run([sys.executable, "-m", "accountant", "users", "--eps0", "0.5", "--eps", "0.06",
                          "--delta", "1e-6", "--mechanism", "rr"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.startswith("n = 907 users: eps_c <= 0.05996553636 (exact)")
    cmp = subprocess.run([sys.executable, "-m", "accountant", "compare", "--n", "1000", "--eps0", "0.5",
                          "--delta", "1e-6", "--mechanism", "rr"], capture_output=True, text=True, timeout=120)
    line = next(x for x in cmp.stdout.splitlines() if x.strip().startswith("exact"))
    assert "[exact, proved]" in line and line.split()[1] == "<=" and float(line.split()[2]) >= 0.0568538


def test_reachable_target_is_found_when_the_bound_at_n_max_is_at_its_cost_limit():
    """Generic eps0 = 1, 10 rounds, eps = 0.5, delta = 1e-6: n = 1532 meets it.  The search
    used to start by testing n_max = 1e10, where the clone's window was over its cost limit
    (eps0 per round), and answered "unreachable"."""
    r = min_users(1.0, 0.5, 1e-6, rounds=10)
    assert r.n is not None and r.reason is None
    assert r.epsilon_at_n <= 0.5 < r.epsilon_at_n_minus_1
    assert 1000 < r.n < 3000


def test_secant_search_finds_the_smallest_n_of_a_monotone_function():
    from accountant.accounting.batch_size import _secant_search

    for answer in (1, 2, 17, 12_345, 987_654_321):
        for jump in (1.0 + 1e-9, 1.5):       # smooth (the real case), and a jump at the answer
            seen: dict = {}

            def eps_of(n, seen=seen, answer=answer, jump=jump):
                seen[n] = (1.0 if n >= answer else jump) / n ** 0.5
                return seen[n]

            assert _secant_search(eps_of, 1.0 / answer ** 0.5, 1000, 10 ** 10, seen) == answer
            if jump < 1.1 and answer > 2:
                assert len(seen) <= 20, (answer, len(seen))   # 2-6 when the guess is within 1%
    assert _secant_search(lambda n: 1.0, 0.5, 10, 1000, {}) is None


def test_secant_search_jumps_from_a_start_far_off():
    """A start up to 1e6 times below or 6e8 times above the answer: the bracket jumps along
    eps ~ n^-1/2 first (4-5 evaluations; 14-18 when it only grew by 1.005, 1.01, 1.02, ...)."""
    from accountant.accounting.batch_size import _secant_search

    for answer in (17, 12_345, 987_654_321):
        for guess in (1000, 10 ** 10):
            seen: dict = {}

            def eps_of(n, seen=seen, answer=answer):
                seen[n] = (1.0 if n >= answer else 1.0 + 1e-9) / n ** 0.5
                return seen[n]

            assert _secant_search(eps_of, 1.0 / answer ** 0.5, guess, 10 ** 10, seen) == answer
            assert len(seen) <= 7, (answer, guess, len(seen))


def test_min_users_over_rounds_is_the_smallest_of_a_brute_scan():
    """Generic eps0 = 1, 2 rounds, eps = 0.8, delta = 1e-5: the composed eps_c (the method the
    answer reports) at every n from 1 to N + 10 is non-increasing, and N is the first n that meets
    the target; the reported values are those of the scan at N and N - 1."""
    from accountant import RoundSpec
    from accountant.composition.compose import composed_upper

    r = min_users(1.0, 0.8, 1e-5, rounds=2)
    eps = [composed_upper(RoundSpec(n, 1.0), 2, 1e-5)[0] for n in range(1, r.n + 11)]
    assert all(b <= a for a, b in zip(eps, eps[1:]))
    assert r.n == 1 + next(i for i, e in enumerate(eps) if e <= 0.8) == 101
    assert (r.epsilon_at_n, r.epsilon_at_n_minus_1) == (eps[r.n - 1], eps[r.n - 2])
    assert r.bound_at_n == "composed PLD (pessimistic)"


def _noisy(answer_scale: float, amplitude: float, seen: dict):
    """eps(n) = (scale / n)^(1/2) (1 + amplitude u(n)), u(n) in [-1, 1] pseudo-random per n: the
    composed PLD's rounding noise between neighbouring n, far above the trend at large n."""
    import hashlib

    def eps_of(n: int) -> float:
        u = int(hashlib.sha256(str(n).encode()).hexdigest()[:8], 16) / 0xFFFFFFFF * 2 - 1
        seen[n] = (answer_scale / n) ** 0.5 * (1 + amplitude * u)
        return seen[n]
    return eps_of


@pytest.mark.parametrize("scale", [40.0, 2.2e6, 1.7e7, 5.2e7])
@pytest.mark.parametrize("amplitude", [0.0, 1e-6, 1e-5, 1e-4, 2e-3])
def test_secant_search_ends_at_a_crossing_of_a_noisy_function(scale, amplitude):
    """eps(N) <= target < eps(N - 1) from a start 0.3 % below, 0.2 % above and a factor 3 off.
    The composed PLD is smooth in n where its convolutions run in long double (x86-64); in
    float64 it was noisy at 1e-4 (4-RR, 1000 rounds, n = 2.2e6) to 2e-3 (OUE, 10,000 rounds,
    n = 1.8e7) before the tails at the noise floor were cut, and about 1e-6 since.  The search
    stays bounded at every level and takes few evaluations where the function is smooth."""
    from accountant.accounting.batch_size import _secant_search

    for guess in (scale * 0.997, scale * 1.002, scale / 3, scale * 3):
        seen: dict = {}
        eps_of = _noisy(scale, amplitude, seen)
        n = _secant_search(eps_of, 1.0, int(guess), 10 ** 10, seen)
        assert eps_of(n) <= 1.0 < eps_of(n - 1)
        assert len(seen) <= (14 if amplitude <= 1e-5 else 24), (scale, amplitude, guess, len(seen))
        if amplitude == 0.0:                          # monotone: the smallest n
            assert n == math.ceil(scale) and len(seen) <= 7, (scale, guess, len(seen))


def test_secant_search_relative_tolerance_stops_early():
    from accountant.accounting.batch_size import _secant_search

    seen: dict = {}
    n = _secant_search(lambda m: seen.setdefault(m, (1e6 / m) ** 0.5), 1.0, 10, 10 ** 10, seen, rtol=1e-3)
    assert 10 ** 6 <= n <= 10 ** 6 * (1 + 1e-3) and len(seen) <= 6
