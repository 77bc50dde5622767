"""One number, one engine: every inverse (``local-epsilon`` / ``local_epsilon``, ``users`` /
``min_users``, the planner) inverts the very number the forward command (``epsilon``,
``get_epsilon``) certifies and prints, so that the forward at the inverse's answer confirms the
target, and the answer is the extreme one by that same number (eps0 a relative 10 rtol larger,
or n - 1, does not meet it).

Each case below was a defect of the inverse/forward split: the inverse's feasibility test
(``proved_meets``) evaluated the exact blanket above eps0 = 10 where the forward refuses it
(k-RR), left binary RR's ``search`` out where the forward uses it, and certified delta at the
target eps where the forward's eps search ends above it (``users``).
"""
import json
import os
import subprocess
import sys

import pytest

from accountant import ShuffleAccountant, local_epsilon, make_params, min_users

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def cli(*argv) -> dict:
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-m", "accountant", *argv, "--json"], capture_output=True,
                         text=True, env=env, cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def certified(params, n, delta):
    """The forward's report: what ``epsilon`` prints (``epsilon``, ``bound``)."""
    return ShuffleAccountant(params, n).epsilon_result(delta, lower=False, paper=False)


def forward(mechanism, e0, n, delta, **kw) -> float:
    return ShuffleAccountant(make_params(mechanism, e0, **kw), n).get_epsilon(delta)


# k-RR above eps0 = 10 (the exact engines refuse there: clone only), binary RR above n = 1e4
# (the headline's 'search'), k-RR below 10 (the blanket)
LOCAL = [
    (10**7, 0.546, 1e-6, "krr", {"k": 16}),
    (10**7, 1.0, 1e-5, "krr", {"k": 4}),
    (10**5, 1.0, 1e-6, "rr", {}),
    (10**5, 0.5, 1e-6, "krr", {"k": 4}),
]


@pytest.mark.parametrize("n, eps, delta, mech, kw", LOCAL)
def test_local_epsilon_is_confirmed_by_the_forward_and_is_the_largest(n, eps, delta, mech, kw):
    rtol = 1e-6
    e0 = local_epsilon(n, eps, delta, mechanism=mech, rtol=rtol, **kw)
    assert forward(mech, e0, n, delta, **kw) <= eps
    # the largest to the tolerance: the forward is monotone in eps0 here
    assert forward(mech, e0 * (1 + 10 * rtol), n, delta, **kw) > eps
    # the delta form at the target is within the target delta too
    assert ShuffleAccountant(make_params(mech, e0, **kw), n).get_delta(eps) <= delta


@pytest.mark.parametrize("n, eps, delta, mech, kw", LOCAL[:3])
def test_local_epsilon_cli_agrees_with_epsilon_cli(n, eps, delta, mech, kw):
    extra = [x for k, v in kw.items() for x in (f"--{k}", str(v))]
    common = ["--n", str(n), "--delta", repr(delta), "--mechanism", mech, *extra]
    inv = cli("local-epsilon", "--eps", repr(eps), *common)
    fwd = cli("epsilon", "--eps0", repr(inv["eps0"]), *common)
    assert fwd["epsilon"] <= eps
    # the same number, the same engine, the same label
    assert inv["achieved_epsilon"] == fwd["epsilon"] and inv["bound"] == fwd["bound"]
    assert inv["achieved_epsilon"] <= inv["epsilon"]


def test_local_epsilon_above_the_engines_limit_names_the_clone():
    # eps0 above 10: the forward proves the clone only; the inverse's answer is where the clone
    # meets the target (before: 11.36, whose forward eps_c is 0.8209)
    e0 = local_epsilon(10**7, 0.546, 1e-6, mechanism="krr", k=16)
    r = certified(make_params("krr", e0, k=16), 10**7, 1e-6)
    assert r.bound == "clone" and r.epsilon <= 0.546 and e0 < 11.0


def test_local_epsilon_text_never_prints_a_rounded_value_above_the_target():
    from accountant.interfaces.cli.main import _met

    assert _met(0.546, 0.546) == "0.546 (the target)"       # 0.546 rounded up is 0.54600001
    assert _met(0.5459978403407115, 0.546) == "0.54599785 <= 0.546"
    assert _met(0.1, 1.0) == "0.10000001 <= 1"


USERS = [
    (3.64, 0.287, 1e-6, "krr", {"k": 4}),
    (2.0, 0.1, 1e-6, "krr", {"k": 4}),
    (1.0, 0.1, 1e-6, "generic", {}),
]


@pytest.mark.parametrize("eps0, eps, delta, mech, kw", USERS)
def test_min_users_is_confirmed_by_the_forward_and_n_minus_1_is_not(eps0, eps, delta, mech, kw):
    r = min_users(eps0, eps, delta, mechanism=mech, **kw)
    at_n = forward(mech, eps0, r.n, delta, **kw)
    below = forward(mech, eps0, r.n - 1, delta, **kw)
    assert at_n <= eps < below
    assert r.epsilon_at_n == at_n and r.epsilon_at_n_minus_1 == below


def test_users_cli_agrees_with_epsilon_cli():
    # before: users printed 12462, where epsilon prints 0.2870007 > 0.287
    common = ["--eps0", "3.64", "--delta", "1e-6", "--mechanism", "krr", "--k", "4"]
    u = cli("users", "--eps", "0.287", *common)
    at_n = cli("epsilon", "--n", str(u["n"]), *common)
    below = cli("epsilon", "--n", str(u["n"] - 1), *common)
    assert at_n["epsilon"] <= 0.287 < below["epsilon"]
    assert u["epsilon_at_n"] == at_n["epsilon"] and u["bound_at_n"] == at_n["bound"]


def test_an_exhausted_search_is_said_in_the_result_and_the_cli():
    # binary RR at n = 1e4, eps0 = 0.3, delta = 1e-3: the exact search runs out of its node
    # budget; the headline is the blanket's (46% above the exact value), and says so
    acc = ShuffleAccountant(make_params("rr", 0.3), 10_000)
    rep = acc.epsilon_result(1e-3, lower=False, paper=False)
    assert rep.bound == "blanket" and rep.exhausted is not None and "out of budget" in rep.exhausted
    assert "out of budget" in rep.note
    out = cli("epsilon", "--n", "10000", "--eps0", "0.3", "--delta", "1e-3", "--mechanism", "rr")
    assert "out of budget" in out["exhausted"] and "out of budget" in out["note"]
    # a search that finishes says nothing
    rep = ShuffleAccountant(make_params("rr", 3.0), 10_000).epsilon_result(1e-6, lower=False, paper=False)
    assert rep.bound == "exact" and rep.exhausted is None


def test_planner_above_eps0_10_certifies_its_recommendation():
    # before: ArithmeticError "the recommendation (olh, t = 1152, eps0 = 11.37...) failed its
    # final certified check" (the inverse had used the blanket above eps0 = 10)
    from mechanisms import plan
    from mechanisms.planning.screen import params_of

    p = plan(target_eps=0.546, delta=1e-6, n=10**7, d=16, s=1, estimate="frequency",
             mechanisms=("olh", "oue"), max_eps0=20.0)
    c = p.recommendation
    r = certified(params_of(c.mechanism, c.eps0, 1, c.t, 16), 10**7, 1e-6)
    assert c.eps_c == r.epsilon <= 0.546 and c.bound == r.bound


def test_users_rounds_is_confirmed_by_compose_and_n_minus_1_is_not():
    # users --rounds inverts the one-level composition (composed_upper, deterministic); compose
    # prints that very number as users_epsilon beside its adaptive total (docs/accountant.md)
    common = ["--rounds", "10", "--eps0", "2", "--mechanism", "krr", "--k", "4", "--delta", "1e-6"]
    u = cli("users", "--eps", "0.5", *common)
    at_n = cli("compose", "--n", str(u["n"]), *common)
    below = cli("compose", "--n", str(u["n"] - 1), *common)
    assert at_n["users_epsilon"] == u["epsilon_at_n"] <= 0.5 < below["users_epsilon"] == u["epsilon_at_n_minus_1"]
    assert at_n["users_epsilon_source"] == u["bound_at_n"]
    assert at_n["epsilon"] <= 0.5  # the adaptive total confirms it too (it is the tighter here)
