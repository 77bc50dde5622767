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


def test_rounds_page_collision_lower_bound_with_d():
    """Collision with the page's d (default 1000 >= 3s): the composed certified lower bound of
    the library at the last T, rounded down, its datasets named; d in [s, 3s) gives the reason."""
    at = AppTest.from_file(PAGE, default_timeout=300)
    at.run()
    at.selectbox(key="mechanism").set_value("collision")
    at.number_input(key="n").set_value(2_000)
    at.number_input(key="T").set_value(5).run()
    assert not at.exception, [e.value for e in at.exception]
    ref = compose_rounds(RoundSpec(2_000, 4.0, "collision", s=8, d=1_000), 5, 1e-6, adaptive=False)
    shown = float(metric(at, "certified lower bound"))
    assert ref.epsilon_lower * (1 - 1e-3) <= shown <= ref.epsilon_lower < ref.epsilon
    captions = " ".join(c.value for c in at.caption)
    assert "d = 1000 >= 3s = 24" in captions and "pairwise disjoint s-sets" in captions
    up = float(metric(at, "PLD eps (upper bound)"))
    assert ref.epsilon <= up <= ref.epsilon * (1 + 1e-3)
    at.number_input(key="d").set_value(20).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not [m for m in at.metric if m.label == "certified lower bound"]
    assert "needs d >= 3 s = 24, got d = 20" in " ".join(c.value for c in at.caption)
    assert float(metric(at, "PLD eps (upper bound)")) == up  # d leaves the upper bound alone
