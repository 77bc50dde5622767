"""Any randomizer by its variation-ratio parameters (p, beta, q) (issue 33).

Proved upper bound: FMT21's clone reduction with mixing 1/q and ratio p; certified lower
bound: the exact divergence of a three-output member of the class, which is the law of Wang
et al.'s own ``Delta`` (wangsw/PrivacyAmplification, VLDB 2024).
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accountant.bounds import laws as M
from accountant.bounds.registry import bound_delta, compute_params_bound
from accountant.engines.pair.law import DominatingPair
from accountant.engines.pair.divergence import hockey_stick_divergence
from accountant.engines.enumeration import shuffled_hockey_stick
from accountant.core.params import make_params
from accountant import ShuffleAccountant
from tests.inprocess import run_accountant as run

E2 = math.exp(2.0)


def vr(p, beta, q=None):
    return make_params("variation-ratio", None, p=p, beta=beta, q=q)


@pytest.mark.parametrize("kw,msg", [
    (dict(p=1.0, beta=0.1), "p must be a number in (1, "),
    (dict(p=float("inf"), beta=0.1), "p must be a number in (1, "),
    (dict(p=3.0, beta=0.0), "beta must be a number in (0, 0.5]"),
    (dict(p=3.0, beta=0.51), "beta must be a number in (0, 0.5]"),
    (dict(p=3.0, beta=0.2, q=1.0), "q must be a number in (1, "),
    (dict(p=3.0, beta=0.2, q="2"), "q must be a number in (1, "),
])
def test_each_parameter_validated_by_name(kw, msg):
    with pytest.raises(ValueError) as exc:
        vr(**kw)
    assert str(exc.value).startswith(msg)


def test_make_params_p_or_eps0_and_beta_required():
    assert vr(E2, 0.3).q == E2 and vr(E2, 0.3).eps0 == pytest.approx(2.0, rel=1e-15)
    assert make_params("variation-ratio", 2.0, beta=0.3) == vr(E2, 0.3)
    with pytest.raises(ValueError, match="beta is required"):
        make_params("variation-ratio", None, p=3.0)
    with pytest.raises(ValueError, match="exactly one of p"):
        make_params("variation-ratio", 1.0, p=3.0, beta=0.2)
    with pytest.raises(ValueError, match="p, beta, q does not apply to mechanism 'rr'"):
        make_params("rr", 1.0, p=3.0, beta=0.2, q=2.0)


def test_clone_pq_is_fmt21_clone_at_p_equal_q():
    for n, e0 in ((10, 0.5), (10**4, 2.0)):
        a = hockey_stick_divergence(DominatingPair.clone(n, e0), 0.1)
        b = hockey_stick_divergence(DominatingPair.clone_pq(n, math.exp(e0), math.exp(e0)), 0.1)
        assert a.upper == pytest.approx(b.upper, rel=1e-12)


# Wang et al.'s amplificationLB / amplificationUB (their code at commit 34ca048 of
# wangsw/PrivacyAmplification, run with T = 24 bisection steps; numbers recorded, code not copied):
# (p, beta, q, n, delta) -> (their lower, their upper)
WANG = [
    ((E2, (E2 - 1) / (E2 + 1), E2, 10**4, 1e-6), (0.11439955234527588, 0.11440038681030273)),
    ((E2, (E2 - 1) / (E2 + 7), E2, 10**4, 1e-6), (0.0855715274810791, 0.0855722427368164)),
    ((7.389, 0.3, 3.0, 10**4, 1e-6), (0.042729811585915364, 0.04273016921242643)),
    ((math.e, (math.e - 1) / (math.e + 1), math.e, 1000, 1e-5), (0.12504005432128906, 0.12504011392593384)),
]


@pytest.mark.parametrize("point,theirs", WANG)
def test_lower_end_is_wang_et_al_value(point, theirs):
    """Our certified lower end is the exact divergence of the law of their Delta: it sits at
    their bisection's lower end (within 2e-5 relative, below it: a certified lower bound keeps
    a margin) and below their upper end; the proved clone bound is above both."""
    p, beta, q, n, delta = point
    rep = ShuffleAccountant(vr(p, beta, q), n).epsilon_result(delta)
    lo, hi = theirs
    assert rep.lower_epsilon <= hi
    assert rep.lower_epsilon == pytest.approx(lo, rel=2e-5)
    assert rep.epsilon >= hi and rep.bound == "clone" and rep.certified


def test_general_ldp_parameters_not_below_binary_rr():
    """The general eps0-LDP parameters (p = q = e^eps0, beta = (e^eps0-1)/(e^eps0+1)) describe a
    class that contains binary RR, so the proved bound can be no smaller than RR's certified
    lower bound (nor than RR's own proved value, the class's lower end sits just below it)."""
    for n, e0, delta in ((100, 1.0, 1e-4), (10**4, 2.0, 1e-6), (10**5, 4.0, 1e-8)):
        e = math.exp(e0)
        rep = ShuffleAccountant(vr(e, (e - 1) / (e + 1)), n).epsilon_result(delta)
        rr = ShuffleAccountant(make_params("rr", e0), n).epsilon_result(delta)
        assert rep.epsilon >= rr.lower_epsilon and rep.epsilon >= rr.epsilon
        assert rep.lower_epsilon <= rep.epsilon


@pytest.mark.parametrize("p,beta,q", [(E2, 0.3, 3.0), (3.0, 0.5, 3.0), (3.0, 0.2, 1.5), (20.0, 0.9, 20.0)])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_enumeration_inside_bracket(p, beta, q, n):
    """Brute force: the exact divergence of the three-output member (every multiset of n
    reports) lies between the certified lower law and the proved clone pair."""
    params = vr(p, beta, q)
    ll = M.mechanism_lower_law(params)
    a = params.alpha
    r = a * p / q
    x1, x1p, x0 = [p * a, a, 1 - (1 + p) * a], [a, p * a, 1 - (1 + p) * a], [r, r, 1 - 2 * r]
    assert max(x1[i] / x0[i] for i in range(3)) <= q * (1 + 1e-12)  # a member of the class
    eps = np.linspace(0.0, math.log(p), 9)[:-1]
    exact = shuffled_hockey_stick(np.array([x1] + [x0] * (n - 1)), np.array([x1p] + [x0] * (n - 1)), eps)
    for e, v in zip(eps, exact):
        lo = ll.delta(n, float(e))
        up = bound_delta("clone", params, n, float(e))[1]
        assert lo <= v * (1 + 1e-9) + 1e-15
        assert v <= up * (1 + 1e-9) + 1e-15
        assert v <= lo * (1 + 1e-6) + 1e-14  # the lower law is the exact divergence


@settings(max_examples=15, deadline=None)
@given(st.floats(1.05, 60.0), st.floats(0.05, 1.0), st.floats(1.05, 60.0), st.integers(2, 3000),
       st.sampled_from([1e-3, 1e-6, 1e-9]))
def test_every_upper_bound_above_every_lower_bound(p, bfrac, q, n, delta):
    params = vr(p, bfrac * (p - 1) / (p + 1), q)
    up = compute_params_bound("clone", params, n, delta)
    lo = compute_params_bound("lower", params, n, delta)
    assert up.applicable
    if lo.applicable:
        assert lo.epsilon <= up.epsilon
    else:
        assert "no randomizer of the three-output form" in lo.reason




def test_cli_variation_ratio():
    r = run("epsilon", "--n", "1e4", "--delta", "1e-6", "--mechanism", "variation-ratio", "--p", "7.389",
            "--beta", "0.3", "--q", "3", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert (out["p"], out["beta"], out["q"]) == (7.389, 0.3, 3.0) and out["bound"] == "clone"
    assert out["lower_epsilon"] == pytest.approx(WANG[2][1][0], rel=2e-5) and "three-output" in out["lower_dataset"]
    assert out["lower_epsilon"] <= out["epsilon"]
    for cmd in (["delta", "--eps", "0.05"], ["compare", "--delta", "1e-6"]):
        r = run(*cmd, "--n", "1000", "--mechanism", "variation-ratio", "--p", "3", "--beta", "0.4", "--json")
        assert r.returncode == 0, r.stderr
    for bad, msg in ((["--p", "3", "--beta", "0.6"], "--beta must be a number in (0, 0.5]"),
                     (["--p", "0.5", "--beta", "0.1"], "--p must be a number in (1, "),
                     (["--beta", "0.1"], "--p is required"),
                     (["--p", "3"], "--beta is required"),
                     (["--p", "3", "--beta", "0.1", "--eps0", "1"], "--eps0 does not apply")):
        r = run("epsilon", "--n", "100", "--delta", "1e-6", "--mechanism", "variation-ratio", *bad)
        assert r.returncode == 2 and msg in r.stderr and r.stdout == "" and len(r.stderr.splitlines()) == 1
    r = run("epsilon", "--n", "100", "--delta", "1e-6", "--mechanism", "rr")
    assert r.returncode == 2 and "--eps0 is required" in r.stderr
