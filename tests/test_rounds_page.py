"""Rounds page under streamlit.testing: defaults render, numbers match the library."""
import os

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

from accountant.compose import RoundSpec, compose_rounds  # noqa: E402

PAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "app", "pages",
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
    ref = compose_rounds(RoundSpec(100_000, 4.0), 100, 1e-6)
    assert metric(at, "PLD eps (upper bound)") == f"{ref.epsilon:.4g}"
    assert metric(at, "naive composition") == f"{ref.naive_epsilon:.4g}"
    e0 = float(metric(at, "largest eps0 per round"))
    assert compose_rounds(RoundSpec(100_000, e0), 100, 1e-6).epsilon <= 2.0
    at.number_input(key="T").set_value(10).run()
    assert not at.exception
    assert metric(at, "PLD eps (upper bound)") == f"{compose_rounds(RoundSpec(100_000, 4.0), 10, 1e-6).epsilon:.4g}"
    at.text_input(key="delta").set_value("2").run()
    assert not at.exception
    assert any("delta must lie in (0, 1)" in e.value for e in at.error)
