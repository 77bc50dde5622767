"""Every randomizer and hash model of the library on the pages (streamlit.testing, no browser):
variation-ratio (p, beta, q) on Rounds, Tables and Amplification, the hash model (any/random)
on Rounds and Tables; the numbers are the library's, bad (p, beta, q) are refused beside the
inputs before any work."""
import math

import pytest
import os
import sys

from tests.paths import REPO_ROOT

from streamlit.testing.v1 import AppTest

from accountant import ShuffleAccountant, make_params
from accountant.bounds.laws.random_hash import ASSUMPTION
from accountant.composition.compose import RoundSpec, compose_rounds
from accountant.interfaces import tables
from accountant.interfaces.tables.grid import GridPoint, compute_row

APP = os.path.join(REPO_ROOT, "app")
sys.path.insert(0, APP)
import common as appcommon  # noqa: E402  (the dashboard's formatter)
from tests.app.test_app import metric, ok  # noqa: E402  (the AppTest helpers)

P_RANGE = "p must be a number in (1, "


def page(name: str, timeout: float = 120) -> AppTest:
    at = AppTest.from_file(os.path.join(APP, "pages", name), default_timeout=timeout).run()
    ok(at)
    return at




def charts(at: AppTest) -> int:
    return len(at.get("plotly_chart"))


def text(at: AppTest) -> str:
    return " ".join([m.value for m in at.markdown] + [c.value for c in at.caption])


def no_gaps(df) -> None:
    assert not df.isin(["None", "nan", "n/a"]).any().any()
    assert not df.isna().any().any()


# --------------------------------------------------------------------------- Rounds
def test_rounds_variation_ratio_matches_compose():
    at = page("7_Rounds.py")
    at.selectbox(key="mechanism").set_value("variation-ratio").run()
    ok(at)
    # no eps0 input and no eps0 search: p fixes eps0 = ln p, said in a caption
    assert not [w for w in at.number_input if w.key in ("eps0", "target")]
    assert "p fixes eps0 = ln p" in text(at)
    assert not [m for m in at.metric if m.label == "largest eps0 per round"]
    ref = compose_rounds(RoundSpec(100_000, None, "variation-ratio", p=3.0, beta=0.4), 100, 1e-6,
                         adaptive=False, lower=False)  # the page: one level
    assert metric(at, "PLD eps (upper bound)") == appcommon.fmt(ref.epsilon, 4, "up")
    assert metric(at, "naive composition") == appcommon.fmt(ref.naive_epsilon, 4, "up")
    assert float(metric(at, "PLD eps (upper bound)")) >= ref.epsilon
    assert charts(at) == 1
    # other (p, beta, q): the library's number for those rounds (q enters the profile)
    at.number_input(key="p").set_value(20.0)  # one rerun with every input: no page composed in between
    at.number_input(key="beta").set_value(0.8)
    at.number_input(key="q").set_value(40.0)
    at.number_input(key="T").set_value(10).run()
    ok(at)
    ref2 = compose_rounds(RoundSpec(100_000, None, "variation-ratio", p=20.0, beta=0.8, q=40.0), 10, 1e-6,
                         adaptive=False, lower=False)  # the page: one level
    assert metric(at, "PLD eps (upper bound)") == appcommon.fmt(ref2.epsilon, 4, "up")
    assert metric(at, "advanced composition") == appcommon.fmt(ref2.advanced_epsilon, 4, "up")
    q_p = compose_rounds(RoundSpec(100_000, None, "variation-ratio", p=20.0, beta=0.8), 10, 1e-6,
                         adaptive=False, lower=False)  # the page: one level
    assert ref2.epsilon > q_p.epsilon  # a larger q (weaker mixing) gives a larger bound: q is used


def test_rounds_variation_ratio_bad_inputs_refused():
    at = page("7_Rounds.py")
    at.selectbox(key="mechanism").set_value("variation-ratio").run()
    at.number_input(key="p").set_value(0.5).run()
    ok(at)
    assert any(e.value.startswith(P_RANGE) and "got 0.5" in e.value for e in at.sidebar.error)
    assert charts(at) == 0 and not at.metric
    # beta above (p - 1)/(p + 1) = 0.5 at p = 3
    at.number_input(key="p").set_value(3.0).run()
    assert charts(at) == 1
    at.number_input(key="beta").set_value(0.6).run()
    ok(at)
    assert any("beta must be a number in (0, 0.5]" in e.value for e in at.sidebar.error)
    assert charts(at) == 0 and not at.metric
    at.number_input(key="beta").set_value(0.4).run()
    at.number_input(key="q").set_value(1.0).run()
    ok(at)
    assert any(e.value.startswith("q must be a number in (1, ") for e in at.sidebar.error)
    assert charts(at) == 0


def test_rounds_hash_model_random():
    at = page("7_Rounds.py", timeout=300)
    at.number_input(key="T").set_value(10)  # with the first change: no page composed at T = 100 but the default
    at.selectbox(key="mechanism").set_value("coco").run()
    ok(at)
    assert [w for w in at.selectbox if w.key == "hash_model"]  # CoCo has a random-hash law
    at.selectbox(key="mechanism").set_value("collision").run()
    any_shown = metric(at, "PLD eps (upper bound)")
    at.selectbox(key="hash_model").set_value("random").run()
    ok(at)
    ref = compose_rounds(RoundSpec(100_000, 4.0, "collision", s=8, hash_model="random"), 10, 1e-6,
                         adaptive=False, lower=False)  # the page: one level
    anyref = compose_rounds(RoundSpec(100_000, 4.0, "collision", s=8), 10, 1e-6,
                         adaptive=False, lower=False)  # the page: one level
    assert any_shown == appcommon.fmt(anyref.epsilon, 4, "up")
    assert metric(at, "PLD eps (upper bound)") == appcommon.fmt(ref.epsilon, 4, "up")
    assert ref.epsilon <= anyref.epsilon
    assert f"Assumption: {ASSUMPTION['random']}" in text(at)
    assert "four-corner law dominating the random-hash law" in text(at)  # the profile composed, named
    # the minute-long search waits for its button
    assert [b for b in at.button if b.key == "search_inverse"]
    assert not [m for m in at.metric if m.label == "largest eps0 per round"]
    # s above the random-hash limit: refused beside the input, before any work
    at.number_input(key="s").set_value(2000).run()
    ok(at)
    assert any("1024" in e.value and "hash_model 'random'" in e.value for e in at.sidebar.error)
    assert charts(at) == 0


# --------------------------------------------------------------------------- Tables
def test_tables_variation_ratio_grid_over_n_and_delta():
    at = page("4_Tables.py")
    at.selectbox(key="mechanism").set_value("variation-ratio").run()
    at.text_input(key="deltas").set_value("1e-6, 1e-8").run()
    ok(at)
    assert not [w for w in at.text_input if w.key == "eps0s"]  # eps0 = ln p: no eps0 list
    df = at.dataframe[0].value
    assert len(df) == 2 * 2  # n values x delta values
    no_gaps(df)
    assert list(df.columns[:5]) == ["n", "p", "beta", "q", "eps0"]
    for i, (n, delta) in enumerate([(10_000, 1e-6), (10_000, 1e-8), (100_000, 1e-6), (100_000, 1e-8)]):
        row = compute_row(GridPoint(n, None, math.log(3.0), delta, None, "variation-ratio", p=3.0, beta=0.4,
                                    q=3.0), tables.paper_bounds("variation-ratio"))
        assert (df.iloc[i]["n"], df.iloc[i]["delta"]) == (n, delta)
        assert df.iloc[i]["proved_epsilon"] == appcommon.fmt(row["proved_epsilon"], 4, "up")
        assert df.iloc[i]["lower_epsilon"] == appcommon.fmt(row["lower_epsilon"], 4, "down")
        assert row["lower_epsilon"] <= row["proved_epsilon"]
    assert df.iloc[0]["paper_epsilon"] == appcommon.DASH  # Theorem 5 does not apply
    assert "eps0 = ln p" in text(at)
    at.number_input(key="p").set_value(-2.0).run()
    ok(at)
    assert any(e.value.startswith(P_RANGE) for e in at.sidebar.error)
    assert not at.dataframe


def test_tables_hash_model_random_rows_and_assumption(monkeypatch):
    metas = []
    real = tables.provenance

    def spy(*args, **kwargs):
        metas.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(tables, "provenance", spy)
    at = page("4_Tables.py")
    at.selectbox(key="mechanism").set_value("olh")  # one rerun with both: no table at the default eps0 list
    at.text_input(key="eps0s").set_value("1, 3").run()
    assert metas[-1]["hash_model"] == "any" and metas[-1]["assumption"] == ASSUMPTION["any"]
    at.selectbox(key="hash_model").set_value("random").run()
    ok(at)
    df = at.dataframe[0].value
    assert len(df) == 2 * 2
    no_gaps(df)
    for i, (n, e0) in enumerate([(10_000, 1.0), (10_000, 3.0), (100_000, 1.0), (100_000, 3.0)]):
        row = compute_row(GridPoint(n, None, e0, 1e-6, None, "olh", k=10, hash_model="random"),
                          tables.paper_bounds("olh"))
        anyrow = compute_row(GridPoint(n, None, e0, 1e-6, None, "olh", k=10), ("blanket",))
        assert df.iloc[i]["proved_epsilon"] == appcommon.fmt(row["proved_epsilon"], 4, "up")
        assert row["proved_epsilon"] <= anyrow["proved_epsilon"] * (1 + 1e-9)
    assert f"Assumption: {ASSUMPTION['random']}" in text(at)
    # the files' metadata name the model and its assumption, as the CLI's do
    assert metas[-1]["hash_model"] == "random" and metas[-1]["assumption"] == ASSUMPTION["random"]
    assert any(b.proto.label == "CSV" for b in at.get("download_button"))


# --------------------------------------------------------------------------- Amplification
def test_amplification_variation_ratio_headline_and_curve_over_n():
    at = page("1_Amplification.py")
    at.selectbox(key="mechanism").set_value("variation-ratio").run()
    ok(at)
    assert not [w for w in at.number_input if w.key in ("e_min", "e_max", "e_ref")]
    rep = ShuffleAccountant(make_params("variation-ratio", None, p=3.0, beta=0.4), 100_000).epsilon_result(1e-6)
    assert metric(at, "eps_c, proved upper bound") == appcommon.fmt(rep.epsilon, 6, "up")
    assert f"[{appcommon.fmt(rep.lower_epsilon, 6, 'down')}, {appcommon.fmt(rep.epsilon, 6, 'up')}]" in text(at)
    assert rep.lower_epsilon < rep.epsilon
    assert "the chart is over n" in text(at)
    chart = at.get("plotly_chart")
    assert len(chart) == 1
    df = at.dataframe[-1].value
    no_gaps(df)
    shown = df[df["n"] == "100,000"].iloc[0]
    assert shown["proved eps_c"] == appcommon.fmt(rep.epsilon, 4, "up")
    # proved and lower fall with n (printed: upper rounded up, lower down)
    proved = [float(v) for v in df["proved eps_c"]]
    assert proved == sorted(proved, reverse=True) and len(proved) >= 25
    at.number_input(key="p").set_value(1.0).run()
    ok(at)
    assert any(e.value.startswith(P_RANGE) and "got 1.0" in e.value for e in at.sidebar.error)
    assert charts(at) == 0 and not at.metric


def test_amplification_laplace():
    """Laplace on the Amplification page: the library's proved eps_c (eps0 = 1, n = 1e5, delta =
    1e-6, the page's defaults).  No range input: eps_c does not depend on the input range (the
    law of the amplification variable depends on eps0 alone)."""
    from accountant.bounds.registry import certified_epsilon

    at = page("1_Amplification.py", timeout=300)
    at.number_input(key="pts").set_value(2)  # a short chart (its 25 default eps0 cost 7 s): the headline is the point here
    box = next(s for s in at.selectbox if s.label == "Mechanism")
    box.select(next(o for o in box.options if o.startswith("Laplace"))).run()
    ok(at)
    shown = float(at.metric[0].value)
    ref = certified_epsilon(make_params("laplace", 1.0), 100_000, 1e-6).epsilon
    assert shown >= ref and shown == pytest.approx(ref, rel=1e-5)
    assert not [w for w in at.text_input if w.key == "range"]
    assert certified_epsilon(make_params("laplace", 1.0, range="0,10"), 100_000, 1e-6).epsilon == ref
