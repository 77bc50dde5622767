"""The Planner page with k-RR and the catalogue (streamlit.testing, no browser): the numbers are
the library's plan, and a catalogue matrix beyond the size limit is refused beside the input
before any work."""
import os

from streamlit.testing.v1 import AppTest

from mechanisms import plan
from tests.paths import REPO_ROOT

PAGE = os.path.join(REPO_ROOT, "app", "pages", "3_Planner.py")


def _page(d: int, mechs: list) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=300).run()
    assert not at.exception, [e.value for e in at.exception]
    at.number_input(key="n").set_value(10_000).run()
    at.number_input(key="d").set_value(d).run()
    at.number_input(key="s").set_value(1).run()
    at.radio(key="estimate").set_value("frequency").run()
    at.number_input(key="target").set_value(1.0).run()
    at.multiselect(key="mechs").set_value(mechs).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_planner_page_plans_krr_and_a_catalogue_matrix():
    at = _page(3, ["krr", "hadamard-response"])
    p = plan(1.0, 1e-6, 10_000, 3, 1, "frequency", ("krr", "hadamard-response"))
    r = p.recommendation
    assert r.mechanism == "krr"
    assert _metric(at, "mechanism") == "k-RR (k-ary randomized response)"
    assert _metric(at, "d (values)") == "3"
    assert at.code[0].value == p.sentence()
    assert {"krr", "hadamard-response"} <= set(at.dataframe[1].value["mechanism"])


def test_planner_page_refuses_a_matrix_beyond_the_limit():
    at = _page(128, ["symmetric-unary-encoding"])
    assert any("beyond the finite-randomizer limit" in e.value for e in at.error)
    assert any("Fix the inputs" in w.value for w in at.warning)
    assert not at.metric
