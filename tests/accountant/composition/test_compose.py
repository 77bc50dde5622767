"""Composition over rounds: PLD construction, composition, comparisons, inverse, CLI."""
import json
import math

import numpy as np
import pytest
from scipy.stats import binom

from accountant.interfaces import cli
from accountant.bounds.registry import compute_bound
from accountant.composition.compose import (
    RoundSpec,
    compose_rounds,
    compose_schedule,
    largest_eps0,
    parse_schedule,
    round_law,
    round_pld,
    round_profile,
    round_source,
    support_cutoff,
)
from accountant.engines.blanket.engine import positive_part
from accountant.composition.pld import (
    compose,
    from_pmfs,
    from_profile,
    self_compose,
    to_dp_accounting,
)

SPEC = RoundSpec(100_000, 4.0)
DELTA = 1e-6


def rr_exact_delta(eps0: float, T: int, eps: float) -> float:
    """T-fold binary randomized response, by enumeration of the number of 'kept' answers."""
    p = math.exp(eps0) / (1 + math.exp(eps0))
    k = np.arange(T + 1)
    loss = (2 * k - T) * eps0
    w = binom.pmf(k, T, p)
    m = loss > eps
    return float(np.sum(w[m] * -np.expm1(eps - loss[m])))


def rr_profile(eps0):
    def prof(eps):
        d = rr_exact_delta(eps0, 1, eps)
        return d, d
    return prof


@pytest.mark.parametrize("T", [1, 3, 20])
def test_rr_pmf_pld_brackets_enumeration(T):
    eps0 = 0.7
    p = np.array([math.exp(eps0), 1.0]) / (1 + math.exp(eps0))
    step = 0.03  # eps0 is not a multiple: rounding is exercised
    pe = self_compose(from_pmfs(p, p[::-1], step, True), T)
    op = self_compose(from_pmfs(p, p[::-1], step, False), T)
    for eps in (0.0, 0.3, 1.0, 2.5):
        exact = rr_exact_delta(eps0, T, eps)
        assert op.get_delta(eps) <= exact <= pe.get_delta(eps)
    # a finer grid narrows the bracket
    fine_pe = self_compose(from_pmfs(p, p[::-1], step / 10, True), T)
    fine_op = self_compose(from_pmfs(p, p[::-1], step / 10, False), T)
    gap = pe.get_delta(0.3) - op.get_delta(0.3)
    assert 0 <= fine_pe.get_delta(0.3) - fine_op.get_delta(0.3) < gap


@pytest.mark.parametrize("T", [1, 5, 30])
def test_connect_the_dots_brackets_rr(T):
    eps0 = 1.0
    prof = rr_profile(eps0)
    step = 0.05
    pe = self_compose(from_profile(prof, step, eps0, True), T)
    op = self_compose(from_profile(prof, step, eps0, False), T)
    for eps in np.linspace(0, 3, 13):
        exact = rr_exact_delta(eps0, T, eps)
        assert op.get_delta(eps) <= exact + 1e-15
        assert pe.get_delta(eps) >= exact
    # grid points of a single round are interpolated exactly
    one = from_profile(prof, step, eps0, True)
    assert one.get_delta(0.5) == pytest.approx(rr_exact_delta(eps0, 1, 0.5), rel=1e-9)


def test_single_round_curve_dominates_profile():
    prof = round_profile(SPEC)
    pe = round_pld(SPEC, 0.01, True)
    op = round_pld(SPEC, 0.01, False)
    for eps in (0.0, 0.013, 0.05, 0.111, 0.2):
        lo, up = prof(eps)
        assert pe.get_delta(eps) >= up * (1 - 1e-12)
        assert op.get_delta(eps) <= lo


def test_one_round_reproduces_single_round_eps():
    res = compose_rounds(SPEC, 1, DELTA)
    single = compute_bound("clone", SPEC.n, SPEC.eps0, DELTA).epsilon
    assert res.epsilon_estimate_of_bound <= single <= res.epsilon
    assert res.epsilon == pytest.approx(single, rel=5e-3)


@pytest.mark.parametrize("mechanism, kw", [("collision", dict(s=4, t=36)), ("krr", dict(k=8)),
                                          ("rr", {})])
def test_one_round_of_a_mechanism_reproduces_its_exact_blanket(mechanism, kw):
    # non-generic rounds compose the exact blanket's profile: T = 1 brackets the
    # single-round proved eps_c (the exact blanket), well below the clone's
    spec = RoundSpec(100_000, 2.0, mechanism, **kw)
    res = compose_rounds(spec, 1, DELTA, adaptive=False, lower=False)
    single = compute_bound("blanket", spec.n, spec.eps0, DELTA, mechanism, **kw).epsilon
    assert res.epsilon_estimate_of_bound <= single <= res.epsilon
    assert res.epsilon == pytest.approx(single, rel=2e-2)
    assert res.epsilon < 0.8 * compute_bound("clone", spec.n, spec.eps0, DELTA).epsilon
    assert round_source(mechanism).startswith("min(exact blanket")


def test_blanket_profile_is_below_clone_and_composes_tighter():
    spec = RoundSpec(100_000, 2.0, "collision", s=4, t=36)
    clone = RoundSpec(100_000, 2.0)  # generic: the clone alone
    assert round_source("generic") == "clone (FMT21)"
    p, q = round_profile(spec), round_profile(clone)
    for eps in (0.0, 0.01, 0.03, 0.1, 1.0, 2.5):
        lo, up = p(eps)
        lo_c, up_c = q(eps)
        assert 0.0 <= lo <= up <= up_c
        # the blanket's certified lower end (positive_part with the default, fine gap)
        # stays below the profile's upper end
        if 0.0 < eps < 2.0:
            exact = positive_part(round_law(spec), spec.n, eps)
            assert exact.lower <= up * (1 + 1e-9)
    assert p(2.0) == (0.0, 0.0)  # eps >= eps0: every v_c <= 0
    a = compose_rounds(spec, 50, DELTA, adaptive=False)
    b = compose_rounds(clone, 50, DELTA, adaptive=False)
    assert a.epsilon_estimate_of_bound <= a.epsilon < 0.7 * b.epsilon


def test_monotone_in_rounds_and_ordering():
    prev = prev_o = 0.0
    for T in (1, 2, 5, 10, 40, 100):
        r = compose_rounds(SPEC, T, DELTA, adaptive=False, lower=False)
        assert r.epsilon > prev and r.epsilon_estimate_of_bound > prev_o
        assert r.epsilon >= r.epsilon_estimate_of_bound
        # the bracket is informative: within 10 % of the upper bound
        assert r.epsilon_estimate_of_bound >= 0.9 * r.epsilon
        prev, prev_o = r.epsilon, r.epsilon_estimate_of_bound
    r = compose_rounds(SPEC, 100, DELTA, adaptive=False, lower=False)
    assert r.epsilon <= r.advanced_epsilon <= r.naive_epsilon
    # the numbers: PLD about 2.0 at T = 100
    assert 1.9 < r.epsilon < 2.1


def test_schedule_of_identical_rounds_matches_self_composition():
    a = compose_rounds(SPEC, 12, DELTA, adaptive=False)
    b = compose_schedule([SPEC] * 12, DELTA, adaptive=False)
    assert b.epsilon == pytest.approx(a.epsilon, rel=1e-9)
    mixed = compose_schedule([SPEC] * 6 + [RoundSpec(100_000, 2.0)] * 6, DELTA, step=a.step)
    assert mixed.epsilon < a.epsilon  # weaker local randomizers in half the rounds cost less
    assert mixed.epsilon >= mixed.epsilon_estimate_of_bound


def _clone_logpmfs(n, eps0, k=9):
    """FMT21 clone pair (x, y) pmfs, built here independently of accountant.engines.pair.divergence."""
    c = math.exp(-eps0)
    p = 1 / (1 + math.exp(-eps0))
    q = 1 - p
    N = n - 1
    mu, sd = N * c, math.sqrt(N * c * (1 - c))
    j = np.arange(max(0, int(mu - k * sd)), int(mu + k * sd) + 1)[:, None]  # j = C
    h = int(k * math.sqrt(mu) / 2) + 2
    x = np.round(j / 2).astype(int) + np.arange(-h, h + 2)[None, :]
    lb = binom.logpmf(j, N, c)
    l1, l0 = binom.logpmf(x - 1, j, 0.5), binom.logpmf(x, j, 0.5)
    lp = lb + np.logaddexp(math.log(p) + l1, math.log(q) + l0)
    lq = lb + np.logaddexp(math.log(q) + l1, math.log(p) + l0)
    keep = np.isfinite(lp) & (lp > -80)
    keys = list(zip(x[keep].tolist(), (np.broadcast_to(j, x.shape) + 1 - x)[keep].tolist()))
    return dict(zip(keys, lq[keep].tolist())), dict(zip(keys, lp[keep].tolist()))


def test_agrees_with_dp_accounting():
    from dp_accounting.pld import privacy_loss_distribution as dpl

    lq, lp = _clone_logpmfs(SPEC.n, SPEC.eps0)
    step = 1e-3
    dp_pe = dpl.from_two_probability_mass_functions(lq, lp, pessimistic_estimate=True,
                                                    value_discretization_interval=step)
    dp_op = dpl.from_two_probability_mass_functions(lq, lp, pessimistic_estimate=False,
                                                    value_discretization_interval=step)
    for T in (1, 10, 100):
        r = compose_rounds(SPEC, T, DELTA)
        e_pe = dp_pe.self_compose(T).get_epsilon_for_delta(DELTA)
        e_op = dp_op.self_compose(T).get_epsilon_for_delta(DELTA)
        # both brackets contain the true value: they must overlap
        assert r.epsilon_estimate_of_bound <= e_pe and e_op <= r.epsilon
        # and the pessimistic values agree to within dp_accounting's rounding (T * step)
        assert abs(r.epsilon - e_pe) <= T * step + 1e-3
        # our PLD exported to dp_accounting gives our number
        ours = to_dp_accounting(round_pld(SPEC, r.step, True, r.samples, support_cutoff(DELTA, T))).self_compose(T)
        assert r.epsilon <= ours.get_epsilon_for_delta(DELTA) <= r.epsilon * (1 + 2e-4)


@pytest.mark.parametrize("pessimistic", [True, False])
def test_dp_accounting_export_keeps_its_side(pessimistic):
    # the export folds get_delta's float slack into the PLD: its delta is on the certified
    # side of ours at every eps, and dp_accounting's composition of the pessimistic export is
    # at or above our own certified composition (it was up to 4e-11 below in delta at T = 100
    # when the slack was dropped)
    spec = RoundSpec(1000, 1.0)
    r = compose_rounds(spec, 100, DELTA)
    one = round_pld(spec, r.step, pessimistic, r.samples, support_cutoff(DELTA, 100))
    exported = to_dp_accounting(one)
    side = 1 if pessimistic else -1
    for eps in np.linspace(0.0, 0.5, 11):
        assert side * (exported.get_delta_for_epsilon(eps) - one.get_delta(eps)) >= 0
    if pessimistic:
        ours, theirs = self_compose(one, 100), exported.self_compose(100)
        for eps in np.linspace(0.0, 1.2 * r.epsilon, 13):
            assert theirs.get_delta_for_epsilon(eps) >= ours.get_delta(eps)


def test_inverse_meets_target():
    target = 1.0
    e0 = largest_eps0(SPEC.n, 10, target, DELTA, xtol=1e-2)
    assert e0 is not None and 0 < e0 < 10
    # the search composes one discretisation level (adaptive=False); the adaptive default is
    # at most that (its profile samples are a superset: the connect-the-dots curve only drops)
    assert compose_rounds(RoundSpec(SPEC.n, e0), 10, DELTA).epsilon <= target
    assert compose_rounds(RoundSpec(SPEC.n, e0), 10, DELTA, adaptive=False, lower=False).epsilon <= target
    assert compose_rounds(RoundSpec(SPEC.n, e0 + 0.02), 10, DELTA, adaptive=False,
                          lower=False).epsilon > target


def test_inverse_meets_target_for_a_mechanism():
    # the inverse runs on the composed exact-blanket profile: its answer is certified
    kw = dict(mechanism="collision", s=4, t=36)
    e0 = largest_eps0(100_000, 10, 0.5, DELTA, xtol=2e-2, **kw)
    assert e0 is not None
    assert compose_rounds(RoundSpec(100_000, e0, **kw), 10, DELTA, adaptive=False,
                          lower=False).epsilon <= 0.5
    assert compose_rounds(RoundSpec(100_000, e0 + 0.04, **kw), 10, DELTA, adaptive=False,
                          lower=False).epsilon > 0.5
    # the clone alone would allow a smaller eps0
    assert largest_eps0(100_000, 10, 0.5, DELTA, xtol=2e-2) < e0


def test_composition_errors_and_validation():
    with pytest.raises(ValueError, match="rounds"):
        compose_rounds(SPEC, 0, DELTA)
    with pytest.raises(ValueError, match="delta"):
        compose_rounds(SPEC, 3, 1.5)
    with pytest.raises(ValueError, match="mechanism"):
        RoundSpec(1000, 1.0, "no-such-mechanism")
    with pytest.raises(ValueError, match="k is required for mechanism 'krr'"):
        RoundSpec(1000, 1.0, "krr")
    a = round_pld(SPEC, 0.01, True)
    with pytest.raises(ValueError, match="steps differ"):
        compose(a, round_pld(SPEC, 0.02, True))


@pytest.mark.parametrize("data, msg", [
    ([{"n": 1000, "eps0": 1}, {"n": 1000}], "round 1: missing field 'eps0'"),
    ([{"n": 1000, "eps0": 1, "mechanism": "collision"}], "round 0: s is required"),
    ([{"n": 1000.5, "eps0": 1}], "round 0: field 'n' must be an integer"),
    ([{"n": 1000, "eps0": -1}], "round 0: field 'eps0' must be"),
    ([{"n": 1000, "eps0": 1, "foo": 2}], "round 0: unknown field 'foo'"),
    ({"n": 1000}, "non-empty JSON list"),
])
def test_schedule_errors(data, msg):
    with pytest.raises(ValueError, match=msg.replace("(", r"\(")):
        parse_schedule(data)


def test_cli(tmp_path, capsys):
    assert cli.main(["compose", "--rounds", "10", "--n", "1e5", "--eps0", "4",
                     "--delta", "1e-6", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= {"epsilon", "epsilon_estimate_of_bound", "naive_epsilon", "advanced_epsilon",
                        "rounds", "delta"}
    assert out["epsilon"] == pytest.approx(compose_rounds(SPEC, 10, DELTA).epsilon)
    assert out["profile"] == "clone (FMT21)"
    # issue 44 item 11: the optimistic PLD total is an estimate of the bound, not a lower end
    assert "epsilon_optimistic" not in out and "NOT a lower bound" in out["epsilon_estimate_of_bound_note"]
    assert cli.main(["compose", "--rounds", "10", "--n", "1e5", "--eps0", "4", "--delta", "1e-6"]) == 0
    text = capsys.readouterr().out
    assert "optimistic" not in text and "estimate of the bound" in text and "NOT a lower bound" in text
    good = tmp_path / "s.json"
    good.write_text(json.dumps([{"n": 100000, "eps0": 4, "repeat": 3}, {"n": 100000, "eps0": 2}]))
    assert cli.main(["compose", "--schedule", str(good), "--delta", "1e-6", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rounds"] == 4
    bad = tmp_path / "b.json"
    bad.write_text(json.dumps([{"n": 100000, "eps0": 4}, {"n": 100000, "eps0": "x"}]))
    assert cli.main(["compose", "--schedule", str(bad), "--delta", "1e-6"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "round 1" in err and "eps0" in err
    bad.write_text("[{")
    assert cli.main(["compose", "--schedule", str(bad), "--delta", "1e-6"]) == 2
    assert "invalid JSON" in capsys.readouterr().err


def test_largest_eps0_reports_progress():
    from accountant.composition.compose import largest_eps0

    calls = []
    e0 = largest_eps0(10**5, 10, 1.0, 1e-6, xtol=0.05, progress=lambda k, tot: calls.append((k, tot)))
    assert e0 is not None and calls
    total = calls[0][1]
    assert total == 2 + 8  # ceil(log2((10 - 0.05) / 0.05)) = 8 bisection steps
    assert [k for k, _ in calls] == list(range(1, len(calls) + 1)) and len(calls) <= total


def test_approx_schedule_epsilon_tracks_the_certified_composition():
    """The planner's estimate (saddle-point profile, same PLD construction) is within 1% of
    the certified composition; it is not itself used as a bound."""
    from accountant.composition.compose import approx_schedule_epsilon

    for spec, T in ((RoundSpec(100_000, 1.5, "collision", 8, 60), 50),
                    (RoundSpec(20_000, 3.0, "coco", 4, 40), 10)):
        cert = compose_rounds(spec, T, 1e-6, adaptive=False, lower=False).epsilon
        est = approx_schedule_epsilon([spec] * T, 1e-6)
        assert abs(est / cert - 1) < 0.01, (spec, est, cert)
    mixed = [RoundSpec(20_000, 2.0, "coco", 4, 40), RoundSpec(40_000, 2.0, "coco", 4, 40)] * 3
    cert = compose_schedule(mixed, 1e-6, adaptive=False, lower=False).epsilon
    assert abs(approx_schedule_epsilon(mixed, 1e-6) / cert - 1) < 0.01
    with pytest.raises(ValueError, match="blanket law"):
        approx_schedule_epsilon([RoundSpec(1000, 1.0)], 1e-6)


# --------------------------------------------------------------------------- variation-ratio rounds
def _krr_vr(eps0: float, k: int) -> dict:
    """k-RR's variation-ratio parameters (Wang et al., VLDB 2024): p = q = e^eps0,
    beta = (e^eps0 - 1)/(e^eps0 + k - 1)."""
    e = math.exp(eps0)
    return dict(p=e, beta=(e - 1) / (e + k - 1), q=e)


def test_variation_ratio_one_round_brackets_the_single_round_clone():
    # T = 1 composes the registry's clone pair (ratio p, mixing 1/q): the bracket
    # [optimistic, pessimistic] (the connect-the-dots discretisation of ~40 profile samples)
    # contains the single-round clone bound; the upper end is above it by less than the width
    from accountant.core.params import make_params
    from accountant.bounds.registry import compute_params_bound

    for p, beta, q in ((7.38905609893065, 0.6, None), (3.0, 0.4, 6.0)):
        spec = RoundSpec(10_000, None, "variation-ratio", p=p, beta=beta, q=q)
        single = compute_params_bound("clone", make_params("variation-ratio", None, p=p, beta=beta,
                                                           q=q), 10_000, DELTA).epsilon
        res = compose_rounds(spec, 1, DELTA)
        assert res.epsilon_estimate_of_bound <= single <= res.epsilon
        assert res.epsilon - single < res.epsilon - res.epsilon_estimate_of_bound
        assert res.epsilon == pytest.approx(single, rel=2e-2)


def test_variation_ratio_rounds_with_krr_parameters():
    # with k-RR's (p, beta, q) the round's pair is FMT21's clone at eps0 = ln p, which is what
    # the generic round composes (equal up to the float rounding of the pair's probabilities);
    # `krr` composes min(exact blanket, clone),
    # smaller
    vr = RoundSpec(10_000, None, "variation-ratio", **_krr_vr(2.0, 4))
    # one discretisation level (the adaptive default refines both the same way)
    gen = compose_rounds(RoundSpec(10_000, 2.0), 10, DELTA, adaptive=False)
    res = compose_rounds(vr, 10, DELTA, adaptive=False)
    assert res.epsilon == pytest.approx(gen.epsilon, rel=1e-7)
    assert res.epsilon_estimate_of_bound == pytest.approx(gen.epsilon_estimate_of_bound, rel=1e-7)
    assert res.epsilon == pytest.approx(0.530778, abs=2e-6)  # 0.534147 with supports to 1e-30
    krr = compose_rounds(RoundSpec(10_000, 2.0, "krr", k=4), 10, DELTA, adaptive=False)
    assert krr.epsilon < 0.7 * res.epsilon
    assert round_source("variation-ratio") == "clone (FMT21, ratio p, mixing 1/q)"


def test_variation_ratio_rounds_are_monotone():
    e = [compose_rounds(RoundSpec(10_000, None, "variation-ratio", p=3.0, beta=0.4, q=q), T,
                        DELTA).epsilon for q, T in ((3.0, 4), (6.0, 4), (6.0, 8))]
    assert e[0] < e[1] < e[2]
    with pytest.raises(ValueError, match="no eps0 to search"):
        largest_eps0(10_000, 4, 1.0, DELTA, "variation-ratio")


@pytest.mark.parametrize("kw, msg", [
    (dict(beta=0.4), r"p: give exactly one of p \(a number in \(1, e\^30\]\) and eps0"),
    (dict(p=3.0), "beta is required"),
    (dict(p=3.0, beta=0.6), r"beta must be a number in \(0, 0.5\]"),
    (dict(p=3.0, beta=0.4, q=0.5), "q must be"),
    (dict(p=3.0, beta=0.4, k=4), "k does not apply to mechanism 'variation-ratio'"),
])
def test_variation_ratio_round_errors(kw, msg):
    with pytest.raises(ValueError, match=msg):
        RoundSpec(1000, None, "variation-ratio", **kw)


def test_variation_ratio_round_refuses_a_different_eps0_and_others_refuse_p():
    with pytest.raises(ValueError, match="eps0 does not apply"):
        RoundSpec(1000, 1.0, "variation-ratio", p=3.0, beta=0.4)
    assert RoundSpec(1000, math.log(3.0), "variation-ratio", p=3.0, beta=0.4).eps0 == math.log(3.0)
    with pytest.raises(ValueError, match="p does not apply to mechanism 'krr'"):
        RoundSpec(1000, 1.0, "krr", k=4, p=3.0)


def test_variation_ratio_schedule():
    specs = parse_schedule([{"n": 10_000, "mechanism": "variation-ratio", "p": 3, "beta": 0.4,
                             "repeat": 2}, {"n": 10_000, "eps0": 1.0}])
    assert [s.mechanism for s in specs] == ["variation-ratio"] * 2 + ["generic"]
    assert specs[0].p == 3.0 and specs[0].q == 3.0 and specs[0].eps0 == math.log(3.0)
    same = compose_schedule(specs[:2], DELTA)
    assert same.epsilon == pytest.approx(compose_rounds(specs[0], 2, DELTA).epsilon, rel=1e-12)


@pytest.mark.parametrize("r, msg", [
    ({"n": 1000, "mechanism": "variation-ratio", "beta": 0.4}, "round 0: missing field 'p'"),
    ({"n": 1000, "mechanism": "variation-ratio", "p": 3}, "round 0: missing field 'beta'"),
    ({"n": 1000, "mechanism": "variation-ratio", "p": 3, "beta": 0.4, "eps0": 1},
     "round 0: field 'eps0' does not apply"),
    ({"n": 1000, "mechanism": "variation-ratio", "p": "3", "beta": 0.4},
     "round 0: field 'p' must be a number"),
    ({"n": 1000, "mechanism": "variation-ratio", "p": 3, "beta": 0.9},
     r"round 0: field 'beta' must be a number in \(0, 0.5\]"),
    ({"n": 1000, "mechanism": "variation-ratio", "p": 3, "beta": 0.4, "q": 1},
     r"round 0: field 'q' must be a number in \(1"),
    ({"n": 1000, "mechanism": "variation-ratio", "p": 1e400, "beta": 0.4},
     "round 0: field 'p' must be"),
    ({"n": 1000, "eps0": 1, "q": 2}, "round 0: field 'q' does not apply to mechanism 'generic'"),
])
def test_variation_ratio_schedule_errors(r, msg):
    with pytest.raises(ValueError, match=msg):
        parse_schedule([r])


def test_variation_ratio_cli(tmp_path, capsys):
    vr = _krr_vr(2.0, 4)
    argv = ["compose", "--rounds", "10", "--n", "1e4", "--mechanism", "variation-ratio",
            "--p", repr(vr["p"]), "--beta", repr(vr["beta"]), "--delta", "1e-6"]
    assert cli.main(argv + ["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["profile"] == "clone (FMT21, ratio p, mixing 1/q)"
    assert out["epsilon"] == pytest.approx(compose_rounds(
        RoundSpec(10_000, None, "variation-ratio", **vr), 10, DELTA).epsilon, rel=1e-12)
    for extra, msg in ((["--eps0", "2"], "--eps0 does not apply"),
                       (["--beta", "0.9"], "--beta must be a number in (0, "),
                       (["--q", "0.5"], "--q must be a number in (1, "),
                       (["--k", "4"], "--k does not apply")):
        assert cli.main(argv + extra) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and msg in err, err
    assert cli.main(argv[:7] + ["--beta", "0.4", "--delta", "1e-6"]) == 2
    assert "--p is required for --mechanism variation-ratio" in capsys.readouterr().err
    assert cli.main(["compose", "--rounds", "2", "--n", "1e4", "--eps0", "1", "--p", "3",
                     "--delta", "1e-6"]) == 2
    assert "--p does not apply to mechanism 'generic'" in capsys.readouterr().err


def gaussian_delta(mu: float, eps: float) -> float:
    """Exact hockey-stick divergence of N(mu, 1) against N(0, 1) (symmetric in the pair)."""
    from scipy.stats import norm

    return float(norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2))


@pytest.mark.parametrize("T, per", [(1, 4), (10, 8), (100, 32)])
def test_optimistic_on_grid_brackets_gaussian_composition(T, per):
    # T Gaussian rounds of mu compose exactly to one of mu sqrt(T): the optimistic PLD, its
    # losses on a grid per times finer than the samples (samples at their grid points, crossings
    # at their nearest grid points), stays below the exact composed curve, the pessimistic above
    mu, step = 0.2, 0.02
    prof = lambda e: (gaussian_delta(mu, e) * (1 - 1e-12), gaussian_delta(mu, e) * (1 + 1e-12))  # noqa: E731
    top = 2.0
    pe = self_compose(from_profile(prof, step, top, True), T)
    op = self_compose(from_profile(prof, step, top, False, grid_step=step / per), T)
    for eps in np.linspace(0.0, 1.5 * mu * math.sqrt(T) + mu, 17):
        exact = gaussian_delta(mu * math.sqrt(T), float(eps))
        assert op.get_delta(float(eps)) <= exact + 1e-15
        assert pe.get_delta(float(eps)) >= exact
    d = 1e-3
    exact_eps = _root(lambda e: gaussian_delta(mu * math.sqrt(T), e) - d, 0.0, 20.0)
    assert op.get_epsilon(d) <= exact_eps <= pe.get_epsilon(d)


def _root(f, a, b):
    for _ in range(200):
        c = 0.5 * (a + b)
        a, b = (c, b) if f(c) > 0 else (a, c)
    return b
