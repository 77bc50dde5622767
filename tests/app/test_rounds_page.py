"""Rounds page under streamlit.testing: defaults render, numbers match the library."""
import os

from tests.paths import REPO_ROOT

from streamlit.testing.v1 import AppTest

from accountant.composition.compose import RoundSpec, compose_rounds

PAGE = os.path.join(REPO_ROOT, "app", "pages",
                    "7_Rounds.py")


def metric(at, label):
    for m in at.metric:
        if m.label == label:
            return m.value
    raise AssertionError(f"no metric {label!r}")


def test_rounds_page_defaults_and_inputs():
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    # the page composes one discretisation level per T (adaptive=False), no lower bound
    ref = compose_rounds(RoundSpec(100_000, 4.0), 100, 1e-6, adaptive=False, lower=False)
    # printed upper bounds are rounded up (4 significant digits), never below the value
    shown = float(metric(at, "PLD eps (upper bound)"))
    assert ref.epsilon <= shown <= ref.epsilon * (1 + 1e-3)
    shown = float(metric(at, "naive composition"))
    assert ref.naive_epsilon <= shown <= ref.naive_epsilon * (1 + 1e-3)
    e0 = float(metric(at, "largest eps0 per round"))
    assert compose_rounds(RoundSpec(100_000, e0), 100, 1e-6, adaptive=False, lower=False).epsilon <= 2.0
    at.number_input(key="T").set_value(10).run()
    assert not at.exception
    ref10 = compose_rounds(RoundSpec(100_000, 4.0), 10, 1e-6, adaptive=False, lower=False).epsilon
    assert ref10 <= float(metric(at, "PLD eps (upper bound)")) <= ref10 * (1 + 1e-3)
    at.text_input(key="delta").set_value("2").run()
    assert not at.exception
    assert any("delta must be a number in [1e-300, 1)" in e.value for e in at.error)
