"""The Planner page with the key-value baselines of the paper's Section 8 (streamlit.testing, no
browser): the numbers are the library's plan, and where the planner refuses a baseline (rounds,
an estimate it does not give) the page says why beside the inputs before any work."""
import json
import os

from streamlit.testing.v1 import AppTest

from mechanisms import plan
from tests.paths import REPO_ROOT

PAGE = os.path.join(REPO_ROOT, "app", "pages", "3_Planner.py")
MECHS = ["collision", "coco", "pckv-agrr", "privkv"]


def _page(**inputs) -> AppTest:
    """The page at its defaults (n = 100,000, d = 128, s = 8, target 0.5, delta 1e-6, the mean)
    with ``inputs`` set before one rerun."""
    at = AppTest.from_file(PAGE, default_timeout=300).run()
    assert not at.exception, [e.value for e in at.exception]
    for key, value in inputs.items():
        widget = at.multiselect(key=key) if key == "mechs" else (
            at.radio(key=key) if key == "estimate" else at.number_input(key=key))
        widget.set_value(value)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_planner_page_plans_the_baselines_against_collision_and_coco():
    at = _page(mechs=MECHS)
    p = plan(0.5, 1e-6, 100_000, 128, 8, "mean", tuple(MECHS))
    r = p.recommendation
    # at these inputs PCKV-AGRR's own proved bound lets it beat Collision and CoCo (eps0 ~ 6.6)
    assert r.mechanism == "pckv-agrr" and r.eps_c <= 0.5
    assert _metric(at, "mechanism") == "PCKV-AGRR (key-value, Gu et al. 2020)"
    assert _metric(at, "d (keys)") == "128"
    assert at.code[0].value == p.sentence()
    shown = at.dataframe[1].value  # all candidates, as the library lists them
    assert set(MECHS) <= set(shown["mechanism"])
    assert list(shown["eps0"]) == [row["eps0"] for row in p.rows()]
    # each baseline with a proved eps0 is a dashed level at its MSE on the chart
    traces = json.loads(at.get("plotly_chart")[0].proto.spec)["data"]
    fin = [c for c in p.candidates if c.mechanism in ("pckv-agrr", "privkv") and c.source == "finalist"]
    assert fin
    for c in fin:
        level = [t for t in traces if t["y"] == [c.mse, c.mse] and "MSE (no t" in t["name"]]
        assert len(level) == 1 and min(level[0]["x"]) >= 1, [t["name"] for t in traces]


def test_planner_page_refuses_baselines_over_rounds_beside_the_input():
    at = _page(mechs=["collision", "privkv"], rounds=2)
    assert any("privkv are planned for one round: rounds must be 1" in e.value for e in at.error)
    assert any("Fix the inputs" in w.value for w in at.warning)
    assert not at.metric


def test_planner_page_refuses_succinct_for_frequencies():
    at = _page(mechs=["succinct"], estimate="frequency")
    assert any("succinct estimates means only" in e.value for e in at.error)
    assert not at.metric
