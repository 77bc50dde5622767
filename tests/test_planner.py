"""Deployment planner: feasibility, optimality, monotonicity in n, invalid input."""
import math

import pytest

from accountant.shuffle import ShuffleAccountant, make_params
from mechanisms.errors import coco_mse, collision_mse
from mechanisms.planner import Candidate, Plan, candidate_ts, evaluate, plan

ARGS = dict(target_eps=0.5, delta=1e-6, n=20_000, d=64, s=4)


@pytest.fixture(scope="module")
def mean_plan() -> Plan:
    return plan(**ARGS, estimate="mean")


def test_recommendation_meets_target(mean_plan):
    for c in mean_plan.candidates:
        acc = ShuffleAccountant(make_params(c.mechanism, c.eps0, s=ARGS["s"], t=c.t), ARGS["n"])
        eps = acc.get_epsilon(ARGS["delta"])
        assert eps <= ARGS["target_eps"] * (1 + 1e-9), c
        # certified delta at the target epsilon is within the budget
        assert acc.get_delta(ARGS["target_eps"]) <= ARGS["delta"] * (1 + 1e-9)
    r = mean_plan.recommendation
    assert r.eps_c <= ARGS["target_eps"]
    # and is (close to) the largest such eps0: 0.1% more breaks the target
    acc = ShuffleAccountant(make_params(r.mechanism, r.eps0 * 1.001, s=ARGS["s"], t=r.t), ARGS["n"])
    assert acc.get_epsilon(ARGS["delta"]) > ARGS["target_eps"]


def test_recommendation_has_minimal_mse(mean_plan):
    best = min(c.mse for c in mean_plan.candidates)
    assert mean_plan.recommendation.mse == best
    assert mean_plan.recommendation in mean_plan.candidates
    for c in mean_plan.candidates:  # mse is the exact formula at (eps0, t)
        fn = collision_mse if c.mechanism == "collision" else coco_mse
        assert c.mse == pytest.approx(float(fn(ARGS["n"], ARGS["d"], ARGS["s"], c.eps0, c.t).mean))


def test_candidate_sets_are_admissible():
    s = ARGS["s"]
    for mech in ("collision", "coco"):
        ts = candidate_ts(mech, ARGS["n"], ARGS["d"], s, ARGS["target_eps"], ARGS["delta"])
        assert 6 <= len(ts) <= 15
        assert "error-optimal" in ts.values() and "paper rule" in ts.values()
        for t in ts:
            assert t > s if mech == "collision" else (t % 2 == 0 and t >= 2 * s + 2)


def test_larger_n_more_budget_less_error(mean_plan):
    n = ARGS["n"]
    sens = mean_plan.sensitivity
    assert set(sens) == {n // 2, 2 * n}
    r = mean_plan.recommendation
    assert sens[2 * n].mse < r.mse < sens[n // 2].mse
    # same t: eps0 grows with n
    for nn, cmp in ((n // 2, -1), (2 * n, 1)):
        c = evaluate(r.mechanism, r.t, nn, ARGS["d"], ARGS["s"], ARGS["target_eps"], ARGS["delta"])
        assert (c.eps0 - r.eps0) * cmp >= 0
    assert sens[2 * n].eps0 >= r.eps0 >= sens[n // 2].eps0


def test_sentence(mean_plan):
    text = mean_plan.sentence()
    r = mean_plan.recommendation
    assert "n = 20,000" in text and f"t = {r.t}" in text and "(0.5, 1e-06)-DP" in text
    assert "mean-estimation MSE" in text
    assert f"{r.eps0:.4g}" in text
    assert str(2 * ARGS["n"]) not in text
    assert "n = 40,000" in mean_plan.sentence(2 * ARGS["n"])


def test_frequency_and_user_t_values():
    p = plan(**ARGS, estimate="frequency", t_values=[5, 9, 10, 11, 40, 200], sensitivity=False)
    coco_ts = sorted(c.t for c in p.candidates if c.mechanism == "coco")
    coll_ts = sorted(c.t for c in p.candidates if c.mechanism == "collision")
    assert coco_ts == [10, 40, 200]  # 5, 9, 11 odd; even t >= 2s+2 = 10
    assert coll_ts == [5, 9, 10, 11, 40, 200]
    assert p.recommendation.mse == min(c.mse_nonmissing for c in p.candidates)
    assert p.sensitivity == {}
    assert "frequency-estimation" in p.sentence()
    assert all(math.isfinite(c.eps0) for c in p.candidates)


@pytest.mark.parametrize("kw,msg", [
    (dict(s=100), "s must be"),
    (dict(target_eps=-1.0), "target epsilon"),
    (dict(delta=1.5), "delta"),
    (dict(n=0), "n must be"),
    (dict(estimate="median"), "estimate"),
    (dict(mechanisms=("hadamard",)), "mechanisms"),
    (dict(t_values=[3]), "no admissible t"),
])
def test_invalid_input(kw, msg):
    args = dict(ARGS, estimate="mean")
    args.update(kw)
    with pytest.raises(ValueError, match=msg):
        plan(**args)


def test_plan_on_the_proved_bound():
    """bound='proved': every candidate's eps0 meets the target under the smallest proved
    bound (re-checked independently), and no candidate claims the Theorem 5 value."""
    from accountant.bounds import proved_epsilon
    from accountant.shuffle import ShuffleAccountant, make_params

    p = plan(0.5, 1e-6, 20_000, 64, 4, "mean", ("collision",), t_values=[12, 40, 120],
             sensitivity=False, bound="proved")
    assert p.bound == "proved" and "proved upper bound" in p.sentence()
    for c in p.candidates:
        best = proved_epsilon(20_000, c.eps0, 1e-6, "collision", 4, c.t)
        assert best.epsilon <= 0.5 and c.eps_c == pytest.approx(best.epsilon, rel=1e-6)
        assert c.bound == best.name
        # the unproved Theorem 5 pair would allow at least as large an eps0
        pair = ShuffleAccountant(make_params("collision", c.eps0, s=4, t=c.t), 20_000)
        assert pair.get_epsilon(1e-6) <= 0.5 + 1e-9
    with pytest.raises(ValueError, match="bound must be"):
        plan(0.5, 1e-6, 20_000, 64, 4, bound="theorem")


def _plan_with(eps0: float, eps_c: float, mse: float, n: int = 1000, s: int = 4) -> Plan:
    c = Candidate(mechanism="collision", t=12, eps0=eps0, eps_c=eps_c, mse=mse, mse_mean=mse,
                  mse_nonmissing=mse, mse_item=mse, source="grid")
    return Plan(target_eps=eps_c, delta=1e-6, n=n, d=64, s=s, estimate="mean",
                candidates=(c,), recommendation=c)


@pytest.mark.parametrize("eps0,eps_c,mse,expected", [
    (2.0, 0.5, 0.1, []),
    (4.99, 0.5, 0.1, []),
    (6.0, 0.5, 0.1, ["above 5"]),
    (20.0, 0.5, 0.1, ["up to 20"]),
    (0.52, 0.5, 0.1, ["hardly helps"]),
    (2.0, 0.5, 4.5, ["dominated by noise"]),
    (8.0, 7.5, 40.0, ["above 5", "hardly helps", "dominated by noise"]),
])
def test_plan_warnings(eps0, eps_c, mse, expected):
    w = _plan_with(eps0, eps_c, mse).warnings()
    assert len(w) == len(expected), w
    for text, key in zip(w, expected):
        assert key in text


def test_plan_warnings_on_a_real_small_n():
    # n = 100 users, target 0.5: the paper's pair lets eps0 reach ~1.5 at best, and the
    # mean of 100 users' 128-dimensional vectors is dominated by the noise
    p = plan(0.5, 1e-6, 100, 128, 8, "mean", ("collision",), t_values=[60, 90, 140],
             sensitivity=False, bound="paper")
    w = p.warnings()
    assert p.recommendation.mse > 8 and any("dominated by noise" in x for x in w)


def test_progress_counts_every_evaluation():
    calls = []
    p = plan(0.5, 1e-6, 20_000, 64, 4, "mean", ("collision", "coco"), t_values=[12, 20, 40],
             bound="paper", progress=lambda k, tot: calls.append((k, tot)))
    done = [k for k, _ in calls]
    assert done == list(range(1, len(calls) + 1))
    assert calls[-1][0] == calls[-1][1]  # ends at 100%
    assert all(k <= tot for k, tot in calls)
    # main candidates + the two sensitivity runs over the short list (5 best + each
    # mechanism's best)
    ranked = sorted(p.candidates, key=lambda c: (c.mse, c.mechanism, c.t))
    short = {(c.mechanism, c.t) for c in ranked[:5]}
    short |= {next((c.mechanism, c.t) for c in ranked if c.mechanism == m) for m in ("collision", "coco")}
    assert len(p.candidates) == 6 and len(short) == 5
    assert len(calls) == 6 + 2 * 5 and calls[0][1] == 6 + 2 * 6  # first total: upper bound
