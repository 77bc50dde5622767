"""Precision without limits: the mpmath reference and the arb certified path against an
independent direct summation (delta down to 1e-755), the log-delta contract of the API
and CLI, and a grid proving that the float path's margin contains its error."""
import json
import math
import subprocess
import sys

import mpmath
import pytest

import accountant.engines.pair.precision as precision
from accountant.engines.pair.law import FLOAT_LOG_REL_ERROR, FLOAT_REL_ERROR, DominatingPair
from accountant.engines.pair.divergence import hockey_stick_divergence, window_value
from accountant.engines.pair.precision import arb_window_sum, mp_window_sum
from accountant.bounds.pair_accountant import PairAccountant
from accountant.core.params import make_params

# ln(5.2235488895141e-677): delta of the generic pair at n = 1e5, eps0 = 4, eps = 3
# (80-digit direct summation over the whole window, 46 s; see direct_window below).
CONTRACT_LOG_DELTA = -1557.19693092219


def generic(n, eps0):
    return DominatingPair.stronger_clone(n, eps0, 1 / (1 + math.exp(eps0)))


def direct_window(pair, eps, m_lo, m_hi, dps=80):
    """sum over m in [m_lo, m_hi] and x of max(P(x, m-x) - e^eps Q(x, m-x), 0).

    From the definition of the pair: P(x, y) sums C = m - 1 with D = (1, 0) (A = x - 1)
    or D = (0, 1) (A = x), and C = m with D = (0, 0); binomials by exact ratios from
    x = m down, stopping at the first non-positive term.  Uses none of the engine's
    closed form (threshold h_m, tails, recurrences in m).
    """
    with mpmath.workdps(dps):
        N = pair.n - 1
        c, p, q, r = (mpmath.mpf(v) for v in (pair.c, pair.p, pair.q, pair.r))
        e = mpmath.exp(mpmath.mpf(eps))

        def pmf_c(j):
            return mpmath.binomial(N, j) * c ** j * (1 - c) ** (N - j) if 0 <= j <= N else mpmath.mpf(0)

        tot = mpmath.mpf(0)
        for m in range(m_lo, m_hi + 1):
            w1 = pmf_c(m - 1) * mpmath.mpf(2) ** (1 - m)
            w0 = pmf_c(m) * mpmath.mpf(2) ** (-m)
            a1, a0, am = mpmath.mpf(1), mpmath.mpf(0), mpmath.mpf(1)  # C(m-1,x-1), C(m-1,x), C(m,x)
            for x in range(m, -1, -1):
                P = w1 * (p * a1 + q * a0) + w0 * r * am
                Q = w1 * (q * a1 + p * a0) + w0 * r * am
                t = P - e * Q
                if t <= 0:
                    break
                tot += t
                a0 = a1
                a1 = a1 * (x - 1) / (m - x + 1) if x >= 1 else mpmath.mpf(0)
                am = am * x / (m - x + 1)
        return tot


# (n, eps0, eps, m_lo, m_hi): slices of the summation window at extreme corners
CORNERS = [
    (100_000, 4.0, 3.0, 3000, 3300),     # delta slice ~ 1e-755, k/m ~ 0.97
    (100_000, 4.0, 3.0, 900, 1100),      # left end of the window of the contract example
    (2_000, 6.0, 5.5, 1, 80),            # tiny clone count, eps close to eps_max
    (2_000, 1.0, 0.5, 1_080, 1_100),     # near the mean of C, k/m ~ 0.6
]


@pytest.mark.parametrize("n,eps0,eps,lo,hi", CORNERS)
def test_mpmath_and_arb_match_direct_summation(n, eps0, eps, lo, hi):
    pair = generic(n, eps0)
    ref = direct_window(pair, eps, lo, hi)
    assert ref > 0
    mp_res = mp_window_sum(pair, eps, lo, hi, 30)
    assert mp_res.digits >= 30
    assert abs(mp_res.d - ref) <= mpmath.mpf(10) ** -29 * ref
    ball = arb_window_sum(pair, eps, lo, hi, 30).d
    # the certified ball contains the 80-digit value (up to its own 1e-75 rounding)
    with mpmath.workdps(80):
        lo_end, hi_end = mpmath.mpf(ball.lower().str(60, radius=False)), mpmath.mpf(ball.upper().str(60, radius=False))
    assert lo_end * (1 - mpmath.mpf(10) ** -50) <= ref <= hi_end * (1 + mpmath.mpf(10) ** -50)
    assert float(ball.rad() / ball.mid()) < 1e-30


def test_extreme_slice_is_below_1e600():
    with mpmath.workdps(30):
        assert direct_window(generic(100_000, 4.0), 3.0, 3000, 3010) < mpmath.mpf("1e-600")


def test_fixed_long_blocks_are_detected(monkeypatch):
    # The old reference re-anchored every 512 steps whatever k/m: at k/m ~ 0.97 that
    # loses ~120 digits per block.  The two-precision check must refuse the result.
    monkeypatch.setattr(precision, "block_length", lambda *a, **k: 512)
    with pytest.raises(ArithmeticError, match="digits"):
        mp_window_sum(generic(100_000, 4.0), 3.0, 2500, 3300, 30)


def test_block_length_follows_kl_growth():
    pair = generic(100_000, 4.0)
    # k/m ~ 0.97: KL ~ 0.56 nats per step, 15 guard digits -> ~60 steps
    L = precision.block_length(pair, 3.0, 3000, 3300, 15)
    assert 40 <= L <= 80
    # near the centre (k/m ~ 1/2 + 1e-3) the recurrence is stable over long blocks
    assert precision.block_length(generic(10**6, 0.5), 0.002, 755_000, 755_600, 15) > 1000


@pytest.mark.parametrize("method", ["float", "mpmath", "arb"])
def test_log_delta_contract_api(method):
    acc = PairAccountant(make_params("generic", 4.0), 100_000, method=method)
    v = acc.delta_bounds(3.0)
    assert abs(v.log_value - CONTRACT_LOG_DELTA) <= 1e-10 * abs(CONTRACT_LOG_DELTA)
    ld = acc.get_log_delta(3.0)
    assert ld >= CONTRACT_LOG_DELTA - 1e-11 * abs(CONTRACT_LOG_DELTA)  # an upper bound
    assert abs(ld - CONTRACT_LOG_DELTA) <= 1e-10 * abs(CONTRACT_LOG_DELTA)
    assert v.log_lower <= CONTRACT_LOG_DELTA + 1e-11 * abs(CONTRACT_LOG_DELTA) <= v.log_upper + 2e-11 * abs(CONTRACT_LOG_DELTA)
    assert acc.get_delta(3.0) > 0  # underflowed, but still an upper bound (smallest float)


@pytest.mark.parametrize("method", ["float", "mpmath", "arb"])
def test_log_delta_contract_cli(method):
    r = subprocess.run([sys.executable, "-m", "accountant", "delta", "--n", "100000", "--eps0", "4",
                        "--eps", "3", "--mechanism", "generic", "--bound", "stronger-clone", "--method", method, "--json"],
                       capture_output=True, text=True, check=True)
    out = json.loads(r.stdout)
    assert abs(out["log_delta"] - CONTRACT_LOG_DELTA) <= 1e-10 * abs(CONTRACT_LOG_DELTA)


def test_epsilon_below_float_range():
    acc = PairAccountant(make_params("generic", 4.0), 100_000)
    res = acc.epsilon_result(log_delta=CONTRACT_LOG_DELTA, rtol=1e-10)
    # the contract point: delta(3) = exp(CONTRACT_LOG_DELTA) up to the float margin
    assert abs(res.epsilon - 3.0) < 1e-8
    assert res.achieved_log_delta <= CONTRACT_LOG_DELTA
    # monotone in the target, and consistent with the float-range search
    e300 = acc.get_epsilon(1e-300)
    e400 = acc.get_epsilon(log_delta=-400 * math.log(10))
    assert e300 < e400 < res.epsilon
    assert acc.get_log_delta(e400) <= -400 * math.log(10)
    assert acc.get_log_delta(e400 * (1 - 1e-6)) > -400 * math.log(10)


def test_cli_log_delta_below_float_range_and_delta_contract():
    """--log-delta reaches below 1e-300 for the pair bounds; --delta has the one range
    [1e-300, 1) of every command (issue 28 item 6)."""
    def run(*a):
        r = subprocess.run([sys.executable, "-m", "accountant", "epsilon", "--n", "100000", "--eps0", "4",
                            *a, "--json"], capture_output=True, text=True, check=True)
        return json.loads(r.stdout)

    b = run("--log-delta", repr(-400 * math.log(10)))
    assert abs(b["log_delta"] - (-400 * math.log(10))) < 1e-12
    assert b["achieved_log_delta"] <= b["log_delta"]
    c = run("--delta", "1e-300")
    assert c["epsilon"] < b["epsilon"]
    for cmd in (["epsilon", "--n", "100", "--eps0", "1"], ["compare", "--n", "100", "--eps0", "1"]):
        bad = subprocess.run([sys.executable, "-m", "accountant", *cmd, "--delta", "1e-400"],
                             capture_output=True, text=True)
        assert bad.returncode == 2 and "--delta must be a number in [1e-300, 1)" in bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1


def _slice(pair, eps, width):
    mean = (pair.n - 1) * pair.c
    sd = math.sqrt(max(mean * (1 - pair.c), 1.0))
    # a slice a little off the mean, so that both tails of the recurrences are exercised
    lo = max(1, int(mean + 0.5 * sd) - width // 2)
    return lo, min(pair.n, lo + width)


GRID = [(n, eps0) for n in (1_000, 100_000, 10**7, 10**10) for eps0 in (0.5, 2.0, 5.0)]


@pytest.mark.parametrize("n,eps0", GRID)
def test_float_margin_contains_its_error(n, eps0):
    """Proof over the grid: float upper >= arb upper end, float lower <= arb lower end."""
    pair = generic(n, eps0)
    worst = 0.0
    for frac in (0.05, 0.3, 0.8):
        eps = frac * pair.eps_max
        lo, hi = _slice(pair, eps, 400)
        f = window_value(pair, eps, lo, hi, -math.inf, method="float")
        a = window_value(pair, eps, lo, hi, -math.inf, method="arb", digits=20)
        if a.log_upper == -math.inf:
            assert f.log_upper == -math.inf
            continue
        assert a.digits > 20
        assert f.log_upper >= a.log_upper
        assert f.log_lower <= a.log_lower
        worst = max(worst, abs(f.log_value - a.log_value))
    assert worst < FLOAT_REL_ERROR + FLOAT_LOG_REL_ERROR * abs(a.log_value)


def test_certified_epsilon_with_arb():
    pair = generic(10_000, 1.0)
    from accountant.bounds.pair_accountant import search_pair_epsilon

    f = search_pair_epsilon(pair, 1e-8, 1e-9)
    a = search_pair_epsilon(pair, 1e-8, 1e-9, method="arb", digits=20)
    assert a.achieved_log_delta <= math.log(1e-8)
    # the certified interval is far narrower than the float margin: same eps_c to rtol
    assert a.epsilon == pytest.approx(f.epsilon, rel=1e-8)
    # certified: the arb interval's upper end at eps_c is below the target
    assert hockey_stick_divergence(pair, a.epsilon, method="arb", digits=20,
                                   target_delta=1e-8).upper <= 1e-8
