"""What the page tests share: open a page of the dashboard under Streamlit's AppTest, check
it ran without an exception, and the Planner page set up for frequency estimation."""
from __future__ import annotations

import os

from streamlit.testing.v1 import AppTest

from tests.paths import REPO_ROOT

APP = os.path.join(REPO_ROOT, "app")


def page(name: str, timeout: float = 120) -> AppTest:
    """The page ``name`` (``Home.py`` or a file of app/pages/) after its first run."""
    path = os.path.join(APP, name if name == "Home.py" else os.path.join("pages", name))
    at = AppTest.from_file(path, default_timeout=timeout).run()
    ok(at)
    return at


def ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def planner_for_frequency(n: int = 20_000, d: int = 64, s: int = 1) -> AppTest:
    """The Planner page with n users of d values, s per user, estimating frequencies."""
    at = page("3_Planner.py")
    at.number_input(key="n").set_value(n).run()
    at.number_input(key="d").set_value(d).run()
    at.number_input(key="s").set_value(s).run()
    at.radio(key="estimate").set_value("frequency").run()
    return at
