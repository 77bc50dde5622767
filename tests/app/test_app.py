"""Dashboard pages under streamlit.testing (no browser): defaults render, numbers match the
library, inputs change the numbers, bad input gives a visible error and no exception."""
import os
import sys

import pytest
from tests.paths import REPO_ROOT

from streamlit.testing.v1 import AppTest

from accountant import CoCoParams, CollisionParams, ShuffleAccountant, make_params
from accountant.interfaces import tables
from accountant.interfaces.tables.grid import GridPoint, compute_row
from mechanisms.analysis.common import coco_t_default, collision_t_star
from mechanisms.frequency.protocols import FE0, FE1, default_b
from mechanisms.frequency.experiments import simulate_frequency
from mechanisms.planning.planner import plan
from mechanisms.evaluation.simulate import simulate
from tests.app.apptest import ok, page, planner_for_frequency

APP = os.path.join(REPO_ROOT, "app")
sys.path.insert(0, APP)
import common as appcommon  # noqa: E402  (the dashboard's formatter)


def metric(at: AppTest, label: str) -> str:
    for m in at.metric:
        if m.label == label:
            return m.value
    raise AssertionError(f"no metric {label!r}: {[m.label for m in at.metric]}")


def has_explanations(at: AppTest) -> bool:
    text = " ".join(m.value for m in at.markdown)
    return all(k in text for k in ("eps0 (local budget)", "eps_c (central budget)", "delta:",
                                   "s (sparsity)", "t (hash range)"))


def test_home():
    at = page("Home.py")
    assert at.title[0].value == "Shuffle-model DP toolkit"
    assert has_explanations(at)
    assert any("erratum" in c.value for c in at.caption)


def test_amplification_default_change_and_invalid():
    at = page("1_Amplification.py")
    assert has_explanations(at)
    assert any("FMT23" in c.value and "erratum" in c.value for c in at.caption)
    lib = ShuffleAccountant(CollisionParams(s=4, eps0=1.0, d=1000), 100_000).epsilon_result(1e-6)
    # the headline is the proved bound, with the certified lower bound beside it
    assert at.metric[0].label == "eps_c, proved upper bound"
    shown = float(metric(at, "eps_c, proved upper bound"))
    assert shown == pytest.approx(lib.epsilon, rel=1e-5) and lib.bound == "blanket"
    # the proved eps_c is the one big number; the lower bound beside it, and the bracket
    assert [m.label for m in at.metric] == ["eps_c, proved upper bound"]
    text = " ".join(m.value for m in at.markdown)
    low = appcommon.fmt(lib.lower_epsilon, 6, "down")
    # under "every hash family" the random-hash lower bound is named as such; the bracket's
    # lower end is the worst hash family's floor (issue 44, item 3)
    assert f"random-hash lower bound **{low}**" in text and float(low) <= shown
    from accountant.bounds.registry import compute_params_bound

    worst = compute_params_bound("lower-worst-hash", CollisionParams(s=4, eps0=1.0, d=1000), 100_000, 1e-6).epsilon
    assert f"lies in [{appcommon.fmt(worst, 6, 'down')}, {appcommon.fmt(lib.epsilon, 6, 'up')}]" in text
    assert f"lies in [{low}," not in text
    # the numbers table: text through the one formatter, a dash for nothing, short by default
    df = at.dataframe[-1].value
    assert list(df.columns) == ["eps0", "t", "proved eps_c", "lower eps_c (random hash)", "bracket width %",
                                "paper (not proved)", "best published", "published bound"]
    assert not df.isin(["None", "nan", "n/a"]).any().any()
    row = compute_row(GridPoint(100_000, 4, 0.1, 1e-6, collision_t_star(4, 0.1), "collision"),
                      ["blanket", "lower", "paper", "clone", "efmrtt19"], appcommon.CURVE_RTOL)
    assert df.iloc[0]["proved eps_c"] == appcommon.fmt(row["proved_epsilon"], 4, "up")
    assert df.iloc[0]["lower eps_c (random hash)"] == appcommon.fmt(row["lower_epsilon"], 4, "down")
    assert float(df.iloc[0]["lower eps_c (random hash)"]) <= row["lower_epsilon"] <= row["proved_epsilon"] \
        <= float(df.iloc[0]["proved eps_c"])
    at.toggle(key="all_columns").set_value(True).run()
    ok(at)
    assert len(at.dataframe[-1].value.columns) > 8 and not at.dataframe[-1].value.isin(["None", "nan"]).any().any()
    # the paper's value is secondary and labelled as not proved
    assert any("Theorem 5" in c.value and "not a proved" in c.value for c in at.caption)
    # bigger n -> smaller eps_c, equal to the library's value
    at.number_input(key="n").set_value(1_000_000).run()
    ok(at)
    lib2 = ShuffleAccountant(CollisionParams(s=4, eps0=1.0), 1_000_000).get_epsilon(1e-6)
    shown2 = float(metric(at, "eps_c, proved upper bound"))
    assert shown2 == pytest.approx(lib2, rel=1e-5) and shown2 < shown
    # CoCo with an odd fixed t: visible error beside the input, no exception
    at.selectbox(key="mechanism").set_value("coco").run()
    ok(at)
    lib3 = ShuffleAccountant(CoCoParams(s=4, eps0=1.0), 1_000_000).get_epsilon(1e-6)
    assert float(metric(at, "eps_c, proved upper bound")) == pytest.approx(lib3, rel=1e-5)
    assert f"t used: {coco_t_default(4, 1.0):,}" in " ".join(m.value for m in at.markdown)
    at.radio(key="t_mode").set_value("fixed value").run()
    at.number_input(key="t").set_value(11).run()
    ok(at)
    assert any("even integer" in e.value for e in at.error)
    # a non-numeric delta
    at.number_input(key="t").set_value(40).run()
    ok(at)
    assert not at.error
    at.text_input(key="delta").set_value("abc").run()
    ok(at)
    assert at.error and "delta must be a number in [1e-300, 1)" in at.error[0].value


def test_amplification_hash_model():
    at = page("1_Amplification.py")
    any_shown = float(metric(at, "eps_c, proved upper bound"))
    at.number_input(key="pts").set_value(3).run()
    at.selectbox(key="hash_model").set_value("random").run()
    ok(at)
    lib = ShuffleAccountant(make_params("collision", 1.0, s=4, d=1000, hash_model="random"),
                            100_000).epsilon_result(1e-6)
    shown = float(metric(at, "eps_c, proved upper bound (random hash)"))
    assert shown == pytest.approx(lib.epsilon, rel=1e-5) and shown < any_shown
    text = " ".join(m.value for m in at.markdown)
    assert "Assumption: each report's hash is a uniformly random function" in text
    assert "Uniformly random hash: the true eps_c lies in" in text and "both ends under the assumption" in text
    assert float(appcommon.fmt(lib.lower_epsilon, 6, "down")) <= shown
    # the curves follow the model: the table's proved eps_c at eps0 = 0.1 is the random-hash row
    row = compute_row(GridPoint(100_000, 4, 0.1, 1e-6, collision_t_star(4, 0.1), "collision", d=1000,
                                hash_model="random"),
                      ["blanket", "lower", "paper", "clone", "efmrtt19"], appcommon.CURVE_RTOL)
    assert at.dataframe[-1].value.iloc[0]["proved eps_c"] == appcommon.fmt(row["proved_epsilon"], 4, "up")
    # above the limit of s: refused beside the input, no exception
    at.number_input(key="s").set_value(2000).run()
    ok(at)
    assert any("1024" in e.value and "hash_model 'random'" in e.value for e in at.error)
    # CoCo has its random-hash law: the choice stays, the headline is the library's, and s
    # above CoCo's limit is refused beside the input
    at.number_input(key="s").set_value(4).run()
    at.selectbox(key="mechanism").set_value("coco").run()
    ok(at)
    assert [sb for sb in at.selectbox if sb.key == "hash_model"]
    coco = ShuffleAccountant(make_params("coco", 1.0, s=4, d=1000, hash_model="random"),
                             100_000).epsilon_result(1e-6)
    assert float(metric(at, "eps_c, proved upper bound (random hash)")) == pytest.approx(coco.epsilon, rel=1e-5)
    at.number_input(key="s").set_value(200).run()
    ok(at)
    assert any("128" in e.value and "hash_model 'random'" in e.value for e in at.error)
    assert "Assumption:" not in " ".join(m.value for m in at.markdown)


def test_utility_default_change_and_invalid():
    at = page("2_Utility.py")
    marks = at.dataframe[0].value
    col = marks[marks["mechanism"] == "collision"]
    assert set(col["paper_t"]) == {collision_t_star(4, 1.0)}
    coco = marks[marks["mechanism"] == "coco"]
    assert set(coco["paper_t"]) == {coco_t_default(4, 1.0)}
    assert len(at.get("plotly_chart")) == 3
    at.number_input(key="s").set_value(8).run()
    ok(at)
    marks = at.dataframe[0].value
    assert set(marks[marks["mechanism"] == "collision"]["paper_t"]) == {collision_t_star(8, 1.0)}
    at.number_input(key="s").set_value(100).run()  # s > d = 64
    ok(at)
    assert any("s must satisfy" in e.value for e in at.error)


def test_planner_matches_library():
    at = page("3_Planner.py")
    # default: the proved bounds, drawn on the first visit, no button (the minimum batch size's
    # search, a section of its own, has one)
    p = plan(0.5, 1e-6, 100_000, 128, 8, "mean", ("collision", "coco"), bound="proved")
    r = p.recommendation
    assert [b.key for b in at.button] == ["mu_go"]
    assert metric(at, "local eps0") == appcommon.fmt(r.eps0, 6, "down")
    assert metric(at, "t") == str(r.t)
    assert metric(at, "proved eps of the release") == appcommon.fmt(p.epsilon, 6, "up")
    assert at.code[0].value == p.sentence() and "proved upper bound" in p.sentence()
    sens = at.dataframe[0].value
    assert sorted(sens["n"]) == [50_000, 100_000, 200_000]
    # every input change redraws: the paper's (unproved) Theorem 5
    at.radio(key="bound").set_value("paper").run()
    ok(at)
    pt = plan(0.5, 1e-6, 100_000, 128, 8, "mean", ("collision", "coco"), bound="paper")
    assert at.code[0].value == pt.sentence() and "not proved" in pt.sentence()
    assert pt.recommendation.eps0 >= r.eps0 * (1 - 1e-3)
    at.radio(key="bound").set_value("proved").run()
    assert at.code[0].value == p.sentence()
    # the cap: respected, its cost shown, drawn on the chart
    at.checkbox(key="use_cap").check().run()
    at.number_input(key="cap").set_value(3.0).run()
    ok(at)
    pc = plan(0.5, 1e-6, 100_000, 128, 8, "mean", ("collision", "coco"), bound="proved", max_eps0=3.0)
    assert metric(at, "local eps0") == appcommon.fmt(pc.recommendation.eps0, 6, "down")
    assert float(metric(at, "local eps0")) <= 3.0
    assert metric(at, "error cost of the cap") == f"+{100 * pc.cap_cost:.3g}%"
    assert at.code[0].value == pc.sentence()
    import json

    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    names = [tr.get("name", "") for tr in spec["data"]]
    assert "cap: eps0 <= 3" in names and "recommended" in names
    capline = spec["data"][names.index("cap: eps0 <= 3")]
    assert capline["y"] == [3.0, 3.0] and capline["yaxis"] == "y2"
    at.checkbox(key="use_cap").uncheck().run()
    # rounds: the per-round plan on the certified composition
    at.number_input(key="rounds").set_value(10).run()
    ok(at)
    pr = plan(0.5, 1e-6, 100_000, 128, 8, "mean", ("collision", "coco"), rounds=10)
    assert metric(at, "local eps0 per round") == appcommon.fmt(pr.recommendation.eps0, 6, "down")
    assert metric(at, "proved eps of the 10 rounds") == appcommon.fmt(pr.epsilon, 6, "up")
    assert pr.epsilon <= 0.5 and "10 rounds composed" in at.code[0].value
    # rounds with the unproved bound: a visible error, no exception
    at.radio(key="bound").set_value("paper").run()
    ok(at)
    assert any("proved composition only" in e.value for e in at.error)
    at.radio(key="bound").set_value("proved").run()
    at.number_input(key="rounds").set_value(1).run()
    at.number_input(key="s").set_value(200).run()  # s > d = 128
    ok(at)
    assert any("s must satisfy" in e.value for e in at.error)
    assert not at.code


def test_tables_default_change_and_invalid():
    at = page("4_Tables.py")
    df = at.dataframe[0].value
    assert len(df) == 2 * 1 * 4  # n values x s values (default "4") x eps0 values
    first = df.iloc[0]
    row = compute_row(GridPoint(10_000, 4, 0.5, 1e-6, collision_t_star(4, 0.5), "collision"),
                      tables.paper_bounds("collision"))
    # the paper's columns first, as `python -m accountant table` writes them
    assert list(df.columns[:4]) == tables.default_columns([row, {**row, "t": 0}])[:4] == ["n", "t", "eps0",
                                                                                        "proved_epsilon"]
    # bounds printed by the one formatter: upper bounds rounded up, lower bounds down
    assert first["proved_epsilon"] == appcommon.fmt(row["blanket"], 4, "up")
    assert first["paper_epsilon"] == appcommon.fmt(row["paper"], 4, "up")
    assert first["lower_epsilon"] == appcommon.fmt(row["lower_epsilon"], 4, "down")
    assert first["literature_epsilon"] == appcommon.fmt(row["literature_epsilon"], 4, "up")
    assert float(first["lower_epsilon"]) <= row["lower_epsilon"]
    assert float(first["proved_epsilon"]) >= row["blanket"]
    assert not df.isin(["None", "nan", "n/a"]).any().any()
    assert first["t"] == row["t"]
    # a short default column set (no ratios), every column on request
    assert "log2_ratio[blanket]" not in df.columns and len(df.columns) <= 16
    at.toggle(key="table_all_columns").set_value(True).run()
    ok(at)
    assert "log2_ratio[blanket]" in at.dataframe[0].value.columns
    assert not at.dataframe[0].value.isin(["None", "nan", "n/a"]).any().any()
    at.toggle(key="table_all_columns").set_value(False).run()
    at.text_input(key="eps0s").set_value("1, 2").run()
    ok(at)
    assert len(at.dataframe[0].value) == 2 * 1 * 2
    at.text_input(key="ns").set_value("ten thousand").run()
    ok(at)
    assert any("n must be" in e.value for e in at.error)


def test_simulation_run_and_invalid():
    at = page("5_Simulation.py")
    assert not at.dataframe  # nothing before the button
    at.button(key="run").click().run()
    ok(at)
    df = at.dataframe[0].value
    runs = [simulate("collision", 20_000, 64, 4, 1.0, reps=1, seed=i) for i in range(3)]
    emp = sum(r["mse_mean"] for r in runs) / 3
    assert df.iloc[0]["empirical MSE (mean over runs)"] == pytest.approx(emp, rel=1e-12)
    assert df.iloc[0]["exact / analytic MSE"] == pytest.approx(runs[0]["analytic"]["mse_mean"])
    # the 95% interval from the 3 runs (Student t, 2 degrees of freedom), around the mean
    vals = [r["mse_mean"] for r in runs]
    sd = (sum((v - emp) ** 2 for v in vals) / 2) ** 0.5
    half = 0.95 / 0.04875 ** 0.5 * sd / 3 ** 0.5
    assert df.iloc[0]["95% CI low"] == pytest.approx(emp - half, rel=1e-9)
    assert df.iloc[0]["95% CI high"] == pytest.approx(emp + half, rel=1e-9)
    at.selectbox(key="mechanism").set_value("coco").run()
    at.radio(key="t_mode").set_value("fixed value").run()
    at.number_input(key="t").set_value(11).run()
    ok(at)
    assert any("even integer" in e.value for e in at.error)
    assert at.button(key="run").disabled


# ------------------------------------------------------------------- frequency (FE0 / FE1)
FREQ = "6_Frequency.py"


def test_frequency_default_matches_library():
    at = page(FREQ)
    n, B = 1_000_000, 100_000
    delta = 1.0 / float(n) ** 2
    assert default_b(n, B) == 50_000  # auto: FE1 (B > n / ln n) with Table 1's b
    ex = FE1.make(n, B, 1.0, delta, rho="exact")
    pa = FE1.make(n, B, 1.0, delta, rho="paper")
    assert metric(at, "rho (exact)") == appcommon.fmt(ex.rho, 6)
    assert metric(at, "rho (paper)") == appcommon.fmt(pa.rho, 6)
    assert metric(at, "messages per user (exact)") == appcommon.fmt(ex.messages_per_user, 6)
    assert metric(at, "bits per message (exact)") == str(ex.bits_per_message)
    assert metric(at, "certified delta (paper)") == appcommon.fmt(pa.certified_delta(), 6)
    assert metric(at, "error bound alpha (exact)") == appcommon.fmt(ex.alpha(0.1), 4)
    assert metric(at, "alpha, proof form (paper)") == appcommon.fmt(pa.alpha(0.1, form='proof'), 4)
    assert metric(at, "std per element (exact)") == appcommon.fmt(ex.std(0), 4)
    saving = 100 * (1 - ex.rho / pa.rho)
    assert any(f"saves {saving:.1f}% of the blanket messages" in m.value for m in at.markdown)
    assert len(at.get("plotly_chart")) == 1
    assert not at.error and not at.warning
    # FE0 forced: its exact rho, and no b input
    at.radio(key="protocol").set_value("fe0").run()
    ok(at)
    assert metric(at, "rho (exact)") == appcommon.fmt(FE0.make(n, B, 1.0, delta).rho, 6)
    assert not any(r.key == "b_mode" for r in at.radio)


def test_frequency_paper_rho_not_available_above_3():
    at = page(FREQ)
    at.number_input(key="n").set_value(10_000).run()
    at.number_input(key="eps").set_value(4.0).run()
    ok(at)
    assert any(i.value == "not available: Theorem 2.1 needs eps <= 3" for i in at.info)
    assert not any(m.label.endswith("(paper)") for m in at.metric)
    ex = FE1.make(10_000, 100_000, 4.0, 1e-8, rho="exact")
    assert metric(at, "rho (exact)") == appcommon.fmt(ex.rho, 6)
    assert not at.error


def test_frequency_invalid_inputs():
    at = page(FREQ)
    at.number_input(key="n").set_value(10_000).run()
    at.radio(key="b_mode").set_value("fixed value").run()
    ok(at)
    assert at.number_input(key="b").value == default_b(10_000, 100_000)
    at.number_input(key="b").set_value(60_000).run()  # b > B/2
    ok(at)
    assert any("b must be an integer in [2, 50000]" in e.value for e in at.error)
    assert not at.metric and not at.get("plotly_chart")
    at.number_input(key="b").set_value(500).run()
    ok(at)
    assert not at.error
    assert metric(at, "rho (exact)") == appcommon.fmt(FE1.make(10_000, 100_000, 1.0, 1e-8, b=500).rho, 6)
    at.text_input(key="delta").set_value("2").run()
    ok(at)
    assert any("delta must be a number in [1e-300, 1)" in e.value for e in at.error) and not at.metric
    at.text_input(key="delta").set_value("1e-9").run()
    at.number_input(key="B").set_value(1).run()
    ok(at)
    assert any("B must be" in e.value for e in at.error) and not at.metric


def test_frequency_simulate_and_refusal():
    at = page(FREQ)
    at.number_input(key="n").set_value(2000).run()
    at.number_input(key="B").set_value(50).run()  # auto: FE0
    ok(at)
    assert not at.dataframe or all(d.key != "sim_table" for d in at.dataframe)
    at.button(key="simulate").click().run()
    ok(at)
    for src in ("paper", "exact"):
        r = simulate_frequency("fe0", 2000, 50, 1.0, rho=src, reps=3, seed=0, beta=0.1)
        assert metric(at, f"max abs error ({src})") == appcommon.fmt(r['max_abs_error'], 4)
        assert metric(at, f"bound alpha ({src})") == appcommon.fmt(r['alpha'], 4)
        assert r["max_abs_error"] < r["alpha"]
    # too many messages with the paper's rho: refused with a visible message, no hang
    at.number_input(key="n").set_value(20_000_000).run()
    at.number_input(key="B").set_value(100_000).run()
    at.number_input(key="eps").set_value(0.25).run()
    ok(at)
    assert any("Not simulated with the paper's rho" in w.value and "3e+08" in w.value
               for w in at.warning)
    assert not at.button(key="simulate").disabled  # the exact rho is small enough
    at.number_input(key="n").set_value(10**9).run()
    ok(at)
    assert at.button(key="simulate").disabled


def test_planner_shows_olh_and_oue():
    at = planner_for_frequency()
    at.multiselect(key="mechs").set_value(["collision", "coco", "olh", "oue"]).run()
    ok(at)
    p = plan(0.5, 1e-6, 20_000, 64, 1, "frequency", ("collision", "coco", "olh", "oue"), bound="proved")
    r = p.recommendation
    # here OLH with its screened g = 169 has the smallest error (8.584e-05; OUE 9.134e-05,
    # Collision / CoCo 1.33e-04)
    assert r.mechanism == "olh" and r.t == 169
    assert metric(at, "mechanism") == appcommon.MECH_LABEL["olh"]
    assert metric(at, "g (hash range)") == "169"
    assert metric(at, "local eps0") == appcommon.fmt(r.eps0, 6, "down")
    assert at.code[0].value == p.sentence() and "OLH (optimized local hashing) with g = 169" in p.sentence()
    cands = at.dataframe[1].value
    assert {"olh", "oue"} <= set(cands["mechanism"])
    # OLH / OUE with the mean estimate: refused beside the input, nothing computed
    at.radio(key="estimate").set_value("mean").run()
    assert any("estimate the frequency of one value per user" in e.value for e in at.error)
