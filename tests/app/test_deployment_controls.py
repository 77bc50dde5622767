"""The deployment controls (issue 43) on the Amplification and Rounds pages under
streamlit.testing: the numbers are the library's, bad inputs are refused beside the widget."""
import os

import streamlit  # noqa: F401
from streamlit.testing.v1 import AppTest

from accountant import make_params
from accountant.accounting import deployments as D
from tests.paths import REPO_ROOT

AMP = os.path.join(REPO_ROOT, "app", "pages", "1_Amplification.py")
ROUNDS = os.path.join(REPO_ROOT, "app", "pages", "7_Rounds.py")


def _texts(at):
    return " ".join(m.value for m in at.markdown) + " " + " ".join(c.value for c in at.caption)


def _amp():
    at = AppTest.from_file(AMP, default_timeout=300)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    at.number_input(key="pts").set_value(2).run()  # a short chart: the deployment is the point here
    return at


def test_amplification_colluders_headline_and_lower_bound():
    at = _amp()
    at.selectbox(key="mechanism").set_value("rr")  # one rerun with both inputs
    at.number_input(key="dep_colluders").set_value(10_000).run()
    assert not at.exception, [e.value for e in at.exception]
    ref = D.deployment_epsilon(make_params("rr", 1.0), 100_000, 1e-6, colluders=10_000)
    text = _texts(at)
    assert f"proved: **{ref.bound}** at n = 90,000" in text
    shown = float(text.split("Deployment eps_c <= ")[1].split("**")[0])
    assert ref.epsilon <= shown <= ref.epsilon * (1 + 1e-5)
    low = float(text.split("eps_c >= ")[1].split(" ")[0])
    assert ref.lower_epsilon * (1 - 1e-5) <= low <= ref.lower_epsilon
    # c >= n is refused beside the widget, before any work
    at.number_input(key="dep_colluders").set_value(100_000).run()
    assert any("colluders must be at most n - 1" in e.value for e in at.sidebar.error)
    assert "Deployment eps_c" not in _texts(at)


def test_amplification_sampling_and_refused_combination():
    at = _amp()
    at.selectbox(key="mechanism").set_value("generic")  # one rerun with both inputs
    at.checkbox(key="dep_sampling_on").check().run()
    assert not at.exception, [e.value for e in at.exception]
    ref = D.sampled_epsilon(make_params("generic", 1.0), 100_000, 1e-6, 0.01)
    text = _texts(at)
    assert f"proved: **{ref.bound}**" in text and "user sampling q = 0.01" in text
    shown = float(text.split("Deployment eps_c <= ")[1].split("**")[0])
    assert ref.epsilon <= shown <= ref.epsilon * (1 + 1e-5)
    at.number_input(key="dep_dummies").set_value(5).run()
    assert any("not proved here" in e.value for e in at.sidebar.error)


def test_rounds_page_sampling():
    at = AppTest.from_file(ROUNDS, default_timeout=300)
    at.run()
    at.number_input(key="T").set_value(10)  # one rerun with both inputs: no page at T = 10 without sampling
    at.checkbox(key="dep_sampling_on").check().run()
    assert not at.exception, [e.value for e in at.exception]
    ref = D.sampled_rounds_epsilon(make_params("generic", 4.0), 100_000, 1e-6, 0.01, 10)
    shown = [m.value for m in at.metric if m.label == "deployment PLD eps (upper bound)"]
    assert shown and ref.epsilon <= float(shown[0]) <= ref.epsilon * (1 + 1e-3)
    assert "clone-sampled-pld" in _texts(at)


def test_rounds_page_reports():
    """Several reports per user on the Rounds page: the library's composed number; with sampling
    the combination is refused beside the widget."""
    from accountant.accounting import deployment_groups as G

    at = AppTest.from_file(ROUNDS, default_timeout=300)
    at.run()
    at.number_input(key="T").set_value(10)  # one rerun with both inputs
    at.number_input(key="dep_reports").set_value(2).run()
    assert not at.exception, [e.value for e in at.exception]
    ref = G.reports_rounds_epsilon(make_params("generic", 4.0), 100_000, 1e-6, 2, 10)
    shown = [m.value for m in at.metric if m.label == "deployment PLD eps (upper bound)"]
    assert shown and ref.epsilon <= float(shown[0]) <= ref.epsilon * (1 + 1e-3)
    assert "reports-pld" in _texts(at)
    at.checkbox(key="dep_sampling_on").check().run()
    assert any("not proved here" in e.value for e in at.sidebar.error)


def test_rounds_page_colluders_and_dummies():
    """Colluders and dummies on the Rounds page: the library's composed number at n - c + m
    (deployment_rounds_epsilon); c >= n refused beside the widget."""
    from accountant.composition.rounds import RoundSpec

    at = AppTest.from_file(ROUNDS, default_timeout=300)
    at.run()
    at.number_input(key="T").set_value(10)  # one rerun with every input: no deployment of colluders alone
    at.number_input(key="dep_colluders").set_value(10_000)
    at.number_input(key="dep_dummies").set_value(5_000).run()
    assert not at.exception, [e.value for e in at.exception]
    ref = D.deployment_rounds_epsilon(RoundSpec(100_000, 4.0), 10, 1e-6, colluders=10_000, dummies=5_000)
    shown = [m.value for m in at.metric if m.label == "deployment PLD eps (upper bound)"]
    assert shown and ref.epsilon <= float(shown[0]) <= ref.epsilon * (1 + 1e-3)
    assert "10,000 colluders, 5,000 dummy reports" in " ".join(h.value for h in at.subheader)
    at.number_input(key="dep_colluders").set_value(100_000).run()
    assert any("colluders must be at most n - 1" in e.value for e in at.sidebar.error)


def _same_as_library(at, ref):
    """The Amplification page's deployment headline is the library's result ``ref``: bound and n,
    upper bound rounded up, lower bound rounded down with its datasets (or none shown)."""
    assert not at.exception, [e.value for e in at.exception]
    text = _texts(at)
    assert f"proved: **{ref.bound}** at n = {ref.effective_n:,}" in text
    shown = float(text.split("Deployment eps_c <= ")[1].split("**")[0])
    assert ref.epsilon <= shown <= ref.epsilon * (1 + 1e-5)
    if ref.lower_epsilon is None:
        assert "eps_c >= " not in text
    else:
        low = float(text.split("eps_c >= ")[1].split(" ")[0])
        assert ref.lower_epsilon * (1 - 1e-5) <= low <= ref.lower_epsilon <= shown
        assert ref.lower_dataset is None or ref.lower_dataset in text


def test_amplification_n_min_dummies_reports_add_remove():
    """The other features on the Amplification page: n >= N, dummies, several reports, sampling
    with add/remove neighbours; each headline equals the library's one call."""
    from accountant.accounting import deployment_groups as G

    at = _amp()
    at.selectbox(key="mechanism").set_value("rr")
    at.number_input(key="n").set_value(20_000).run()  # binary RR's own bound per count is slow at 1e5
    P = make_params("rr", 1.0)
    at.checkbox(key="dep_nmin").check().run()
    _same_as_library(at, D.deployment_epsilon(P, 20_000, 1e-6, n_min=True))
    assert "valid for every n >= 20000" in _texts(at)
    at.number_input(key="dep_dummies").set_value(5_000).run()
    _same_as_library(at, D.deployment_epsilon(P, 20_000, 1e-6, dummies=5_000, n_min=True))
    at.checkbox(key="dep_nmin").uncheck()  # one rerun with the step's inputs: no deployment in between
    at.number_input(key="dep_dummies").set_value(0)
    at.number_input(key="dep_reports").set_value(3).run()
    _same_as_library(at, G.reports_epsilon(P, 20_000, 1e-6, 3))
    at.number_input(key="dep_reports").set_value(1)
    at.checkbox(key="dep_sampling_on").check().run()
    at.radio(key="dep_nb").set_value("add-remove").run()
    _same_as_library(at, D.sampled_epsilon(P, 20_000, 1e-6, 0.01, neighbours="add-remove"))
    assert "add-remove" in _texts(at)


def test_rounds_page_n_min_and_add_remove_sampling():
    """The Rounds page's n >= N and sampling with add/remove neighbours: the library's composed
    numbers (deployment_rounds_epsilon, sampled_rounds_epsilon)."""
    from accountant.composition.rounds import RoundSpec

    at = AppTest.from_file(ROUNDS, default_timeout=300)
    at.run()
    at.number_input(key="T").set_value(10)  # one rerun with both inputs
    at.checkbox(key="dep_nmin").check().run()
    assert not at.exception, [e.value for e in at.exception]
    ref = D.deployment_rounds_epsilon(RoundSpec(100_000, 4.0), 10, 1e-6, n_min=True)
    shown = [float(m.value) for m in at.metric if m.label == "deployment PLD eps (upper bound)"]
    assert shown and ref.epsilon <= shown[0] <= ref.epsilon * (1 + 1e-3)
    assert "n only known as a lower bound" in " ".join(h.value for h in at.subheader)
    at.checkbox(key="dep_nmin").uncheck()  # one rerun with both inputs
    at.checkbox(key="dep_sampling_on").check().run()
    at.radio(key="dep_nb").set_value("add-remove").run()
    assert not at.exception, [e.value for e in at.exception]
    ref = D.sampled_rounds_epsilon(make_params("generic", 4.0), 100_000, 1e-6, 0.01, 10, neighbours="add-remove")
    shown = [float(m.value) for m in at.metric if m.label == "deployment PLD eps (upper bound)"]
    assert shown and ref.epsilon <= shown[0] <= ref.epsilon * (1 + 1e-3)
    assert "add-remove" in _texts(at)


def test_rounds_page_shows_the_composed_lower_bound():
    """Binary RR with dummies on the Rounds page: the composed certified lower bound of the
    library (the count pair in every round), rounded down, beside the upper bound; CoCo with the
    page's d (default 1000) the library's with that d; d in [s, 2s) says why there is none, d < s
    is refused beside the widget."""
    from accountant.composition.rounds import RoundSpec

    at = AppTest.from_file(ROUNDS, default_timeout=300)
    at.run()
    at.selectbox(key="mechanism").set_value("rr")  # one rerun with every input (each costs a composition)
    at.number_input(key="n").set_value(2_000)
    at.number_input(key="eps0").set_value(1.0)
    at.number_input(key="T").set_value(5)
    at.number_input(key="dep_dummies").set_value(1_000).run()
    assert not at.exception, [e.value for e in at.exception]
    ref = D.deployment_rounds_epsilon(RoundSpec(2_000, 1.0, "rr"), 5, 1e-6, dummies=1_000)
    shown = [float(m.value) for m in at.metric if m.label == "deployment eps (certified lower bound)"]
    assert shown and ref.lower_epsilon * (1 - 1e-3) <= shown[0] <= ref.lower_epsilon < ref.epsilon
    assert "1000 dummies uniform over the outputs" in _texts(at)
    at.selectbox(key="mechanism").set_value("coco").run()
    assert not at.exception, [e.value for e in at.exception]
    ref = D.deployment_rounds_epsilon(RoundSpec(2_000, 1.0, "coco", s=8, d=1_000), 5, 1e-6, dummies=1_000)
    shown = [float(m.value) for m in at.metric if m.label == "deployment eps (certified lower bound)"]
    assert shown and ref.lower_epsilon * (1 - 1e-3) <= shown[0] <= ref.lower_epsilon < ref.epsilon
    assert "CoCo (s = 8, t = " in _texts(at) and "d = 1000" in _texts(at)
    at.number_input(key="d").set_value(10).run()  # s <= d < 2s: no two inputs on disjoint coordinates
    assert not at.exception, [e.value for e in at.exception]
    assert not [m for m in at.metric if m.label == "deployment eps (certified lower bound)"]
    assert "not available for mechanism coco" in _texts(at) and "d >= 16, got d = 10" in _texts(at)
    at.number_input(key="d").set_value(5).run()
    assert any("d must be >= s = 8, got 5" in e.value for e in at.sidebar.error)
    assert not [m for m in at.metric if m.label == "deployment PLD eps (upper bound)"]
