"""Deployment planner: feasibility on the proved bound, never worse than an exhaustive search,
rounds and schedules on the certified composition, the local-protection cap, the command line."""

from dataclasses import replace
import json
import math

import numpy as np
import pytest
from accountant.core.limits import PLAN_MAX_ROUNDS

from accountant.bounds.registry import proved_epsilon, proved_meets
from accountant.composition.compose import RoundSpec, compose_rounds, compose_schedule
from accountant import ShuffleAccountant, make_params
from mechanisms.interfaces.cli import main as cli_main
from mechanisms.analysis.coco import coco_mse
from mechanisms.analysis.collision import collision_mse
from mechanisms.planning.plan import Candidate, InfeasiblePlan, Plan
from mechanisms.planning.screen import evaluate, screen, screen_eps0
from mechanisms.planning.planner import plan, render_plan

ARGS = dict(target_eps=0.5, delta=1e-6, n=20_000, d=64, s=4)


@pytest.fixture(scope="module")
def mean_plan() -> Plan:
    return plan(**ARGS, estimate="mean")


def _proved_ok(c, n, s, target, delta, d=None):
    """Independent check: the smallest proved bound at c.eps0 is <= target."""
    if c.mechanism in ("olh", "oue"):  # over the domain [d], OLH with its hash range g = c.t
        from accountant.bounds.registry import proved_params_epsilon

        g = dict(g=c.t) if c.mechanism == "olh" else {}
        best = proved_params_epsilon(make_params(c.mechanism, c.eps0, k=d, **g), n, delta)
        return best.epsilon <= target
    best = proved_epsilon(n, c.eps0, delta, c.mechanism, s, c.t)
    return best.epsilon <= target


def test_recommendation_meets_target(mean_plan):
    for c in mean_plan.candidates:
        if c.source == "screen":
            assert c.eps_c is None and not c.proved  # no claim rests on the screen
            continue
        assert c.eps_c <= ARGS["target_eps"]
        assert _proved_ok(c, ARGS["n"], ARGS["s"], ARGS["target_eps"], ARGS["delta"])
    r = mean_plan.recommendation
    assert r.proved and r.eps_c <= ARGS["target_eps"] and mean_plan.epsilon == r.eps_c
    params = make_params(r.mechanism, r.eps0, s=ARGS["s"], t=r.t)
    assert proved_meets(params, ARGS["n"], ARGS["target_eps"], ARGS["delta"]) is not None
    # and is (close to) the largest such eps0: 0.1% more breaks the target on the proved bound
    assert not _proved_ok(
        Candidate(r.mechanism, r.t, r.eps0 * 1.001, None, 0, 0, 0, 0, ""),
        ARGS["n"],
        ARGS["s"],
        ARGS["target_eps"],
        ARGS["delta"],
    )
    # the unproved Theorem 5 pair allows at least as much
    acc = ShuffleAccountant(make_params(r.mechanism, r.eps0, s=ARGS["s"], t=r.t), ARGS["n"])
    assert acc.get_epsilon(ARGS["delta"]) <= ARGS["target_eps"] * (1 + 1e-9)


def test_recommendation_has_minimal_mse(mean_plan):
    proved = [c for c in mean_plan.candidates if c.source == "finalist"]
    assert {c.mechanism for c in proved} == {"collision", "coco"}
    assert mean_plan.recommendation.mse == min(c.mse for c in proved)
    for c in mean_plan.candidates:  # mse is the exact formula at (eps0, t)
        fn = collision_mse if c.mechanism == "collision" else coco_mse
        assert c.mse == pytest.approx(float(fn(ARGS["n"], ARGS["d"], ARGS["s"], c.eps0, c.t).mean))
    # the proved finalist's eps0 is within 1e-3 of the screen's estimate at the same t
    for c in proved:
        sc = [
            x
            for x in mean_plan.candidates
            if x.source == "screen" and x.t == c.t and x.mechanism == c.mechanism
        ]
        assert sc and abs(sc[0].eps0 / c.eps0 - 1) < 1e-3


def test_screen_covers_admissible_t_and_finds_the_interior_minimum():
    s = ARGS["s"]
    for mech in ("collision", "coco"):
        ts, e0, ms = screen(mech, ARGS["n"], ARGS["d"], s, ARGS["target_eps"], ARGS["delta"])
        assert np.all(np.diff(ts) > 0)
        assert ts[0] == (s + 1 if mech == "collision" else 2 * s + 2)  # starts at the smallest t
        if mech == "coco":
            assert np.all(ts % 2 == 0)
        k = int(np.argmin(ms))
        assert 0 < k < len(ts) - 1 and ms[-1] >= 1.2 * ms[k]  # the minimum is inside the grid
        assert np.all(e0 >= ARGS["target_eps"]) and np.all(e0 <= 20)


def test_mse_formulas_take_an_eps0_array():
    t = np.array([12, 40, 200])
    e = np.array([1.0, 2.5, 4.0])
    for fn in (collision_mse, coco_mse):
        v = fn(1000, 64, 4, e, t)
        for i in range(3):
            w = fn(1000, 64, 4, float(e[i]), int(t[i]))
            assert v.mean[i] == pytest.approx(w.mean, rel=1e-14)
            assert v.nonmissing[i] == pytest.approx(w.nonmissing, rel=1e-14)
    with pytest.raises(ValueError, match="eps0"):
        collision_mse(1000, 64, 4, np.array([1.0, -1.0]), t[:2])


# every point: (n, d, s, target, delta, estimate, max_eps0); small n, small s, so that every
# admissible t up to 4x the recommended one can be inverted on the proved bound
GRID = [
    (200, 4, 1, 0.5, 1e-5, "mean", None),
    (200, 8, 1, 0.3, 1e-5, "frequency", None),
    (1000, 4, 1, 1.0, 1e-5, "mean", 1.5),
]


@pytest.mark.parametrize("n,d,s,target,delta,estimate,cap", GRID)
def test_never_worse_than_an_exhaustive_search(n, d, s, target, delta, estimate, cap):
    p = plan(
        target, delta, n, d, s, estimate, sensitivity=False, max_eps0=cap, compare_uncapped=False
    )
    r = p.recommendation
    assert _proved_ok(r, n, s, target, delta, d) and r.eps_c <= target
    if cap is not None:
        assert r.eps0 <= cap
    t_fin = max(c.t for c in p.candidates if c.source == "finalist" and c.mechanism in ("collision", "coco"))
    hi = max(int(2.5 * t_fin), t_fin + 16)
    best = None
    if estimate == "frequency" and s == 1:  # OLH / OUE join: OUE one inversion, OLH every g
        g_fin = max(c.t for c in p.candidates if c.source == "finalist" and c.mechanism == "olh")
        top = 20.0 if cap is None else cap
        for g in [0] + list(range(2, max(int(2.5 * g_fin), g_fin + 16) + 1)):  # 0: the rule
            # as below: the same proved inversion, placed by the screen's estimate at a fixed g
            # (OLH's screen takes the domain size d for s); the rule's search places itself
            e = screen_eps0("olh", d, g, n, target, delta, top) if g else None
            c = evaluate("olh", g, n, d, s, target, delta, estimate, eps0_max=top, guess=e)
            if best is None or c.mse < best.mse:
                best = c
        c = evaluate("oue", 0, n, d, s, target, delta, estimate, eps0_max=20.0 if cap is None else cap)
        if c.mse < best.mse:
            best = c
    for mech in ("collision", "coco"):
        lo, step = (s + 1, 1) if mech == "collision" else (2 * s + 2, 2)
        top = 20.0 if cap is None else cap
        for t in range(lo, hi + 1, step):
            # the same proved inversion; the screen's estimate only places its search
            g = screen_eps0(mech, s, t, n, target, delta, top)
            c = evaluate(mech, t, n, d, s, target, delta, estimate, eps0_max=top, guess=g)
            if best is None or c.mse < best.mse:
                best = c
    assert best.mechanism in ("olh", "oue") or best.t < hi - 2  # minimum inside the range
    assert r.mse <= best.mse * 1.01, (r, best)


def test_larger_n_more_budget_less_error(mean_plan):
    n = ARGS["n"]
    sens = mean_plan.sensitivity
    assert set(sens) == {n // 2, 2 * n}
    r = mean_plan.recommendation
    assert sens[2 * n].mse < r.mse < sens[n // 2].mse
    assert sens[2 * n].eps0 >= r.eps0 >= sens[n // 2].eps0
    for nn, c in sens.items():
        assert c.eps_c <= ARGS["target_eps"] and _proved_ok(
            c, nn, ARGS["s"], ARGS["target_eps"], ARGS["delta"]
        )


def test_sentence_and_render(mean_plan):
    text = mean_plan.sentence()
    r = mean_plan.recommendation
    assert "n = " not in text or True
    assert "20,000 users" in text and f"t = {r.t}" in text and "(0.5, 1e-06)-DP" in text
    assert "mean-estimation MSE" in text and "proved upper bound" in text
    assert "40,000 users" in mean_plan.sentence(2 * ARGS["n"])
    out = render_plan(mean_plan)
    assert out.splitlines()[-1] == text and "recommended:" in out


def test_printed_numbers_round_in_the_safe_direction():
    from mechanisms.planning.plan import fmt_down, fmt_up

    assert fmt_up(0.49990081) == "0.5" and fmt_down(6.8017804) == "6.801"
    assert fmt_up(0.123401) == "0.1235" and fmt_down(0.123499) == "0.1234"
    assert float(fmt_up(1.2345e-5)) >= 1.2345e-5 and float(fmt_down(1.2345e-5)) <= 1.2345e-5
    # within 1e-12 below a 4-digit value: the printed eps0 must not round up to it (it did, via
    # round(x, 9) before floor), nor an upper bound just above one round down
    x = 5.539 - 1e-12
    assert fmt_down(x) == "5.538" and float(fmt_down(x)) <= x
    assert float(fmt_up(0.5 + 1e-12)) > 0.5


def test_the_warning_prints_the_planned_eps0_rounded_down():
    """Issue 44 item 13: at eps0 = 5.538... the warning said 5.54, at which the target is missed."""
    import dataclasses

    from mechanisms.planning.plan import LOW_LOCAL_PROTECTION_EPS0

    c = Candidate("olh", 169, 5.53899, 0.4999, 8.6e-5, None, 8.6e-5, 8.6e-5, "finalist")
    p = Plan(0.5, 1e-6, 20_000, 64, 1, "frequency", (c,), c)
    (w,) = [w for w in p.warnings() if "above" in w]
    assert f"local eps0 = 5.538 is above {LOW_LOCAL_PROTECTION_EPS0:g}" in w and "5.54" not in w
    assert "~ 255" in w  # e^5.53899 = 254.4..., a likelihood ratio printed up
    assert p.as_dict()["recommendation"]["eps0"] == 5.53899  # JSON stays exact
    assert "local eps0 = 5.538:" in dataclasses.replace(p).sentence()


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


@pytest.mark.parametrize(
    "kw,msg",
    [
        (dict(s=100), "s must be"),
        (dict(target_eps=-1.0), "target epsilon"),
        (dict(delta=1.5), "delta"),
        (dict(delta=1e-31), "planner's limit"),
        (dict(n=0), "n must be"),
        (dict(estimate="median"), "estimate"),
        (dict(mechanisms=("hadamard",)), "mechanisms"),
        (dict(t_values=[3]), "no admissible t"),
        (dict(max_eps0=0.0), "max_eps0"),
        (dict(max_eps0=25.0), "max_eps0"),
        (dict(rounds=0), "rounds"),
        (dict(rounds=2, schedule=[100, 200]), "not both"),
        (dict(schedule=[]), "schedule"),
        (dict(rounds=3, bound="paper"), "proved"),
    ],
)
def test_invalid_input(kw, msg):
    args = dict(ARGS, estimate="mean")
    args.update(kw)
    with pytest.raises(ValueError, match=msg):
        plan(**args)


def test_plan_on_the_proved_bound():
    p = plan(
        0.5,
        1e-6,
        20_000,
        64,
        4,
        "mean",
        ("collision",),
        t_values=[12, 40, 120],
        sensitivity=False,
        bound="proved",
    )
    assert p.bound == "proved" and "proved upper bound" in p.sentence()
    for c in p.candidates:
        best = proved_epsilon(20_000, c.eps0, 1e-6, "collision", 4, c.t)
        assert best.epsilon <= 0.5 and c.eps_c == pytest.approx(best.epsilon, rel=1e-6)
        assert c.bound == best.name
    with pytest.raises(ValueError, match="bound must be"):
        plan(0.5, 1e-6, 20_000, 64, 4, bound="theorem")


def test_cap_is_respected_and_its_cost_reported(mean_plan):
    p = plan(**ARGS, max_eps0=2.0, sensitivity=False)
    r = p.recommendation
    assert r.eps0 <= 2.0 and r.eps_c <= ARGS["target_eps"]
    assert p.uncapped is not None and p.uncapped.eps0 > 2.0
    # the uncapped plan is the unconstrained one, so the cap costs error
    assert p.uncapped.mse == pytest.approx(mean_plan.recommendation.mse, rel=1e-6)
    assert p.cap_cost == pytest.approx(r.mse / p.uncapped.mse - 1) and p.cap_cost > 0
    assert "local cap eps0 <= 2" in p.sentence()
    assert "against the uncapped plan" in render_plan(p)
    # a cap that does not bind costs nothing
    q = plan(**ARGS, max_eps0=19.0, sensitivity=False)
    assert q.cap_cost == 0.0 and q.recommendation.t == mean_plan.recommendation.t


def _plan_with(eps0: float, eps_c: float, mse: float, n: int = 1000, s: int = 4, cap=None) -> Plan:
    c = Candidate(
        mechanism="collision",
        t=12,
        eps0=eps0,
        eps_c=eps_c,
        mse=mse,
        mse_mean=mse,
        mse_nonmissing=mse,
        mse_item=mse,
        source="finalist",
    )
    return Plan(
        target_eps=eps_c,
        delta=1e-6,
        n=n,
        d=64,
        s=s,
        estimate="mean",
        candidates=(c,),
        recommendation=c,
        max_eps0=cap,
    )


@pytest.mark.parametrize(
    "eps0,eps_c,mse,expected",
    [
        (2.0, 0.5, 0.1, []),
        (4.99, 0.5, 0.1, []),
        (6.0, 0.5, 0.1, ["above 5"]),
        (20.0, 0.5, 0.1, ["up to 20"]),
        (0.52, 0.5, 0.1, ["hardly helps"]),
        (2.0, 0.5, 4.5, ["dominated by noise"]),
        (8.0, 7.5, 40.0, ["above 5", "hardly helps", "dominated by noise"]),
    ],
)
def test_plan_warnings_each_say_what_removes_them(eps0, eps_c, mse, expected):
    w = _plan_with(eps0, eps_c, mse).warnings()
    assert len(w) == len(expected), w
    for text, key in zip(w, expected):
        assert key in text and "To remove this" in text
    if "above 5" in expected:
        assert any("--max-eps0" in x for x in w)
    if "dominated by noise" in expected:
        need = math.ceil(1000 * mse / 4)
        assert any(f"n >= {need:,}" in x for x in w)


def test_noise_warning_remedy_is_sufficient():
    """The n the noise warning asks for does bring the MSE below s."""
    p = plan(
        0.5, 1e-6, 100, 128, 8, "mean", ("collision",), t_values=[60, 90, 140], sensitivity=False
    )
    w = [x for x in p.warnings() if "dominated by noise" in x]
    assert w and p.recommendation.mse > 8
    need = math.ceil(100 * p.recommendation.mse / 8)
    q = plan(
        0.5,
        1e-6,
        need,
        128,
        8,
        "mean",
        ("collision",),
        t_values=[p.recommendation.t],
        sensitivity=False,
    )
    assert q.recommendation.mse <= 8


def test_progress_counts_every_step():
    calls = []
    plan(**ARGS, progress=lambda k, tot: calls.append((k, tot)))
    done = [k for k, _ in calls]
    assert done == sorted(done) and done[0] == 1
    assert calls[-1][0] == calls[-1][1]  # ends at 100%
    assert all(k <= tot for k, tot in calls)


# ------------------------------------------------------------------ rounds and schedules
def test_rounds_meet_the_total_on_the_certified_composition():
    T, n, target, delta = 20, 20_000, 1.0, 1e-6
    p = plan(target, delta, n, 64, 4, rounds=T, sensitivity=False)
    r = p.recommendation
    assert p.rounds == T and r.source == "finalist"
    # the planner certifies with one discretisation level (adaptive=False)
    comp = compose_rounds(RoundSpec(n, r.eps0, r.mechanism, 4, r.t), T, delta, adaptive=False,
                          lower=False).epsilon
    assert comp <= target and comp == pytest.approx(p.epsilon, rel=1e-12)
    # near the largest per-round eps0 for this t: 2% more breaks the total
    assert (
        compose_rounds(RoundSpec(n, r.eps0 * 1.02, r.mechanism, 4, r.t), T, delta, adaptive=False,
                       lower=False).epsilon > target
    )
    # per-round budget below the single-round plan's, above target / T (PLD beats naive)
    single = plan(target, delta, n, 64, 4, sensitivity=False).recommendation
    assert target / T < r.eps0 < single.eps0
    assert "20 rounds composed" in p.sentence() and "per round" in p.sentence()
    d = p.as_dict()
    for k in ("mechanism", "t", "eps0", "epsilon", "mse", "rounds", "candidates", "warnings"):
        assert k in d
    assert d["rounds"] == T and d["epsilon"] <= target


def test_schedule_meets_the_total():
    ns = [10_000, 20_000, 20_000, 40_000]
    p = plan(1.0, 1e-6, 1, 64, 4, schedule=ns, sensitivity=False)
    r = p.recommendation
    specs = [RoundSpec(x, r.eps0, r.mechanism, 4, r.t) for x in ns]
    assert compose_schedule(specs, 1e-6, adaptive=False, lower=False).epsilon <= 1.0
    assert p.n == 10_000 and p.schedule == tuple(ns) and p.rounds == 4


def test_infeasible_request_says_the_smallest_reachable_target():
    with pytest.raises(InfeasiblePlan, match="smallest total reachable") as exc:
        plan(0.01, 1e-6, 2, 16, 2, rounds=100, sensitivity=False)
    low = exc.value.smallest_target
    assert low > 0.01 and f"{low:.4g}"[:4] in str(exc.value)
    # that target is reachable: the plan for it succeeds and certifies it
    p = plan(low * 1.001, 1e-6, 2, 16, 2, rounds=100, sensitivity=False)
    assert p.epsilon <= low * 1.001


def test_cli_infeasible_is_one_line_exit_2(capsys):
    rc = cli_main(
        [
            "plan",
            "--n",
            "2",
            "--d",
            "16",
            "--s",
            "2",
            "--eps",
            "0.01",
            "--delta",
            "1e-6",
            "--rounds",
            "100",
        ]
    )
    err = capsys.readouterr().err
    assert rc == 2 and "smallest total reachable" in err and len(err.strip().splitlines()) == 1


# ------------------------------------------------------------------ command line
def test_cli_json_and_text(capsys, tmp_path):
    rc = cli_main(
        [
            "plan",
            "--n",
            "20000",
            "--d",
            "64",
            "--s",
            "4",
            "--eps",
            "0.5",
            "--delta",
            "1e-6",
            "--max-eps0",
            "3",
            "--json",
        ]
    )
    assert rc == 0
    d = json.loads(capsys.readouterr().out)
    for k in (
        "mechanism",
        "t",
        "eps0",
        "epsilon",
        "mse",
        "rounds",
        "candidates",
        "warnings",
        "sentence",
        "cap_cost",
        "uncapped",
    ):
        assert k in d
    assert d["eps0"] <= 3 and d["epsilon"] <= 0.5 and d["rounds"] == 1
    assert all({"mechanism", "t", "eps0", "mse"} <= set(c) for c in d["candidates"])
    sched = tmp_path / "s.json"
    sched.write_text(json.dumps([{"n": 20000, "eps0": 1, "repeat": 3}]))
    rc = cli_main(
        [
            "plan",
            "--d",
            "64",
            "--s",
            "4",
            "--eps",
            "1",
            "--delta",
            "1e-6",
            "--schedule",
            str(sched),
            "--mechanisms",
            "collision",
        ]
    )
    out = capsys.readouterr().out
    assert rc == 0 and "3 scheduled rounds" in out and "Collision" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]
    # a huge schedule is refused before its rounds are expanded
    big = tmp_path / "big.json"
    big.write_text(json.dumps([{"n": 20000, "eps0": 1, "repeat": 10**12}]))
    rc = cli_main(
        ["plan", "--d", "64", "--s", "4", "--eps", "1", "--delta", "1e-6", "--schedule", str(big)]
    )
    err = capsys.readouterr().err
    assert rc == 2 and f"exceed the limit of {PLAN_MAX_ROUNDS:,}" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "argv,msg",
    [
        (["--n", "0"], "--n must be"),
        (["--n", "1000", "--delta", "1e-40"], "--delta must be a number in [1e-30, 1)"),
        (["--n", "1000", "--max-eps0", "-1"], "--max-eps0"),
        (["--n", "1000", "--rounds", "0"], "--rounds"),
        (["--n", "1000", "--mechanisms", "collision,foo"], "--mechanisms"),
        (["--n", "1000", "--s", "100"], "--s must be"),
        ([], "--n is required"),
        (["--schedule", "/nonexistent/x.json"], "cannot read"),
    ],
)
def test_cli_bad_input_one_line_exit_2(capsys, argv, msg):
    base = ["plan", "--d", "64", "--s", "4", "--eps", "0.5", "--delta", "1e-6"]
    rc = cli_main(base + argv)
    err = capsys.readouterr().err
    assert rc == 2 and msg in err and len(err.strip().splitlines()) == 1


def test_cli_help_has_examples(capsys):
    assert cli_main(["plan", "--help"]) == 0
    out = capsys.readouterr().out
    assert "examples:" in out and out.count("python -m mechanisms plan") >= 3
    assert "--max-eps0" in out and "--schedule" in out and "--rounds" in out


# ------------------------------------------------------------------ OLH / OUE
FREQ = dict(target_eps=0.5, delta=1e-6, n=20_000, d=64, s=1, estimate="frequency")


@pytest.fixture(scope="module")
def freq_plan() -> Plan:
    return plan(**FREQ, sensitivity=False)


def _direct_mse(c, n, d, s):
    """Each candidate's frequency error computed from its formula, not from the planner."""
    from mechanisms.randomizers.frequency_oracles import frequency_mse, olh_rates, oue_rates

    if c.mechanism == "olh":
        return frequency_mse(n, d, *olh_rates(c.eps0, c.t))
    if c.mechanism == "oue":
        return frequency_mse(n, d, *oue_rates(c.eps0))
    fn = collision_mse if c.mechanism == "collision" else coco_mse
    return float(fn(n, d, s, c.eps0, c.t).nonmissing)


def test_oracles_are_candidates_and_the_smallest_error_wins(freq_plan):
    n, d, s, target, delta = FREQ["n"], FREQ["d"], FREQ["s"], FREQ["target_eps"], FREQ["delta"]
    fin = {c.mechanism: c for c in freq_plan.candidates if c.source == "finalist"}
    assert set(fin) == {"collision", "coco", "olh", "oue"}
    for c in fin.values():
        assert c.mse == pytest.approx(_direct_mse(c, n, d, s), rel=1e-12)
        # certified: the registry's smallest proved bound at the chosen eps0 meets the target
        assert _proved_ok(c, n, s, target, delta, d)
        assert c.eps_c <= target
        # and eps0 is (close to) the largest: 0.1% more breaks the target
        assert not _proved_ok(replace(c, eps0=c.eps0 * 1.001), n, s, target, delta, d)
    best = min(fin.values(), key=lambda c: c.mse)
    assert freq_plan.recommendation == best
    # here (n = 20,000, d = 64) OLH with its screened g = 169 wins: 8.584e-05 against OUE's
    # 9.134e-05 (exact four-atom blanket; 9.146e-05 with the three-atom one) and Collision / CoCo's 1.33e-04 (with the rule's g = 312 OLH had 9.149e-05)
    assert best.mechanism == "olh" and best.mse == pytest.approx(8.584e-05, rel=1e-3)
    assert fin["oue"].mse == pytest.approx(9.134e-05, rel=1e-3)
    assert fin["oue"].t == 64 and fin["oue"].report_bits == 64 and fin["oue"].mse_mean is None
    assert fin["olh"].t == 169 != make_params("olh", fin["olh"].eps0, k=64).t  # not the rule's g
    assert fin["olh"].report_bits == 62 + math.ceil(math.log2(fin["olh"].t)) == 70
    text = render_plan(freq_plan)
    assert "recommended: OLH g = 169, eps0 = 5.538" in text
    assert "report: 62-bit hash seed + 8 bits = 70 bits per user" in text
    assert "best OUE: eps0 = 5.741; " in text
    assert "use OLH (optimized local hashing) with g = 169 (reports of 70 bits)" in freq_plan.sentence()
    d_json = freq_plan.as_dict()
    assert d_json["mechanism"] == "olh" and d_json["report_bits"] == 70
    assert d_json["randomizer"] == "OLH g = 169"


def test_oracles_only_where_they_apply():
    from mechanisms.planning.screen import default_mechanisms

    assert default_mechanisms("frequency", 1, 64) == ("collision", "coco", "olh", "oue")
    assert default_mechanisms("frequency", 2, 64) == ("collision", "coco")
    assert default_mechanisms("frequency", 1, 64, rounds=3) == ("collision", "coco")
    assert default_mechanisms("mean", 1, 64) == ("collision", "coco")
    p = plan(**dict(FREQ, s=2), sensitivity=False)  # default: no oracle with s = 2
    assert {c.mechanism for c in p.candidates} == {"collision", "coco"}
    for kw, msg in [
        (dict(estimate="mean"), "estimate frequencies only"),
        (dict(s=2), "s must be 1"),
        (dict(rounds=2), "one round"),
        (dict(bound="paper"), "proved bound only"),
    ]:
        with pytest.raises(ValueError, match=msg):
            plan(**dict(FREQ, **kw), mechanisms=("olh",), sensitivity=False)


def test_oracles_with_user_t_values_and_a_cap():
    p = plan(**FREQ, mechanisms=("collision", "olh"), t_values=[65, 129], sensitivity=False,
             max_eps0=3.0)
    r = p.recommendation
    assert r.eps0 <= 3.0 and r.eps_c <= FREQ["target_eps"]
    olh = [c for c in p.candidates if c.mechanism == "olh"]
    assert len(olh) == 1 and olh[0].eps0 <= 3.0 and olh[0].t == make_params("olh", olh[0].eps0, k=64).t
    assert p.uncapped is not None and p.uncapped.mse <= r.mse


def test_cli_oracles(capsys):
    base = ["plan", "--n", "20000", "--d", "64", "--s", "1", "--eps", "0.5", "--delta", "1e-6"]
    rc = cli_main(base + ["--estimate", "frequency", "--mechanisms", "olh,oue", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert rc == 0 and d["mechanism"] == "olh" and d["report_bits"] == 70 and d["epsilon"] <= 0.5
    for extra, msg in [
        (["--mechanisms", "olh"], "add --estimate frequency"),
        (["--estimate", "frequency", "--mechanisms", "oue", "--rounds", "2"], "one round"),
    ]:
        assert cli_main(base + extra) == 2
        err = capsys.readouterr().err
        assert msg in err and len(err.strip().splitlines()) == 1


def test_olh_hash_range_is_screened_and_beats_coco_at_n_1e5():
    # n = 1e5, d = 64, target (0.5, 1e-6): with the rule's g (round(e^eps0) + 1 = 1546) OLH
    # lost to CoCo (1.166e-05 against 9.929e-06); its g screened as Collision's t wins
    n, d, target, delta = 100_000, 64, 0.5, 1e-6
    p = plan(target, delta, n, d, 1, "frequency", sensitivity=False)
    fin = {c.mechanism: c for c in p.candidates if c.source == "finalist"}
    r = p.recommendation
    assert r.mechanism == "olh" and r.t == 284 and r.mse == pytest.approx(6.687e-06, rel=1e-3)
    assert fin["coco"].mse == pytest.approx(9.929e-06, rel=1e-3) and r.mse < 0.7 * fin["coco"].mse
    assert r.mse == pytest.approx(_direct_mse(r, n, d, 1), rel=1e-12)
    # the inverse is certified at g = 284 and (nearly) the largest
    assert _proved_ok(r, n, 1, target, delta, d) and r.eps_c <= target
    assert not _proved_ok(replace(r, eps0=r.eps0 * 1.001), n, 1, target, delta, d)
    # g is a minimum of the proved trade-off: the proved inversion at other g errs more
    for g in (200, 400, make_params("olh", r.eps0, k=d).t):
        c = evaluate("olh", g, n, d, 1, target, delta, "frequency")
        assert c.t == g and c.eps_c <= target and c.mse > r.mse
