"""Reliability contract of the dashboard (issue 12): widget limits agree with the library's
(accountant.core.limits), values beyond the work limits are refused beside the input with the
results hidden, and no widget value within its limits raises (eps_c = 0 included)."""
import os

import pytest
from tests.paths import REPO_ROOT

from streamlit.testing.v1 import AppTest

from accountant.core import limits as L
from accountant import GenericLDP, ShuffleAccountant

APP = os.path.join(REPO_ROOT, "app")


def page(name: str) -> AppTest:
    at = AppTest.from_file(os.path.join(APP, "pages", name), default_timeout=90).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def sidebar_errors(at: AppTest) -> list[str]:
    return [e.value for e in at.sidebar.error]


@pytest.mark.parametrize("name", ["1_Amplification.py", "3_Planner.py"])
def test_n_widget_limit_is_the_accountants(name):
    at = page(name)
    assert at.number_input(key="n").max == L.MAX_N


def test_amplification_eps_c_zero_shows_infinite_ratio():
    # the pair bound really is 0 here (no ZeroDivisionError on the page)
    assert ShuffleAccountant(GenericLDP(0.001), 10**8).get_epsilon(0.5) == 0.0
    at = page("1_Amplification.py")
    at.selectbox(key="mechanism").set_value("generic").run()
    at.number_input(key="pts").set_value(2).run()
    at.number_input(key="e_min").set_value(0.001).run()
    at.number_input(key="e_max").set_value(0.002).run()
    at.number_input(key="e_ref").set_value(0.001).run()
    at.text_input(key="delta").set_value("0.5").run()
    at.number_input(key="n").set_value(10**8).run()
    ok(at)
    assert any("amplification eps0 / eps_c: inf (eps_c = 0)" in m.value for m in at.markdown)


def test_simulation_refuses_sizes_beyond_the_limit_beside_the_input():
    at = page("5_Simulation.py")
    n_max = at.number_input(key="n").max
    d_max = at.number_input(key="d").max
    assert n_max * d_max > L.MAX_SIM_CELLS  # the widgets alone do not bound the memory
    at.number_input(key="n").set_value(n_max).run()
    at.number_input(key="d").set_value(d_max).run()
    ok(at)
    errs = sidebar_errors(at)
    assert any("n x d" in e and f"{L.MAX_SIM_CELLS:,}" in e for e in errs), errs
    assert at.button(key="run").disabled
    assert "sim_result" not in at.session_state
    # back within the limit: no error and the button is enabled
    at.number_input(key="n").set_value(1000).run()
    at.number_input(key="d").set_value(16).run()
    ok(at)
    assert not sidebar_errors(at) and not at.button(key="run").disabled


def test_simulation_total_work_limit_counts_repetitions():
    at = page("5_Simulation.py")
    at.number_input(key="n").set_value(1_000_000).run()
    at.number_input(key="d").set_value(50).run()
    assert not sidebar_errors(at)
    at.number_input(key="reps").set_value(20).run()  # 1e9 cells in total > MAX_SIM_WORK
    ok(at)
    assert any("n x d x reps" in e for e in sidebar_errors(at))
    assert at.button(key="run").disabled


@pytest.mark.parametrize("text,word", [("1e12", "at most"), ("0.1:5:1e9", "at most"),
                                       ("", "comma-separated"), ("10, nan", "finite")])
def test_tables_page_refuses_bad_n_lists(text, word):
    at = page("4_Tables.py")
    at.text_input(key="ns").set_value(text).run()
    ok(at)
    errs = sidebar_errors(at)
    assert any(word in e for e in errs), errs
    assert not at.dataframe  # results hidden


def test_tables_page_reversed_eps0_range():
    at = page("4_Tables.py")
    at.text_input(key="eps0s").set_value("4:0.5:4").run()
    ok(at)
    assert any("start < stop" in e for e in sidebar_errors(at))
    assert not at.dataframe


def test_frequency_page_counts_repetitions_in_the_work_limit():
    from mechanisms import frequency

    at = page("6_Frequency.py")
    assert not at.warning and not at.button(key="simulate").disabled
    at.number_input(key="n").set_value(10**7).run()
    assert not at.warning and not at.button(key="simulate").disabled
    at.number_input(key="reps").set_value(50).run()
    ok(at)
    mech, b = frequency.table_mechanism(10**7, 100_000)  # the page's "auto" choice
    proto = frequency.make_protocol(mech, 10**7, 100_000, 1.0, rho="exact", b=b)
    assert proto.simulation_cost()["messages"] * 50 > L.MAX_SIM_MESSAGES_TOTAL  # refusal due
    assert proto.simulation_cost()["messages"] * 3 <= L.MAX_SIM_MESSAGES_TOTAL
    assert any("repetitions" in w.value for w in at.warning), [w.value for w in at.warning]
    assert at.button(key="simulate").disabled
    with pytest.raises(ValueError, match="reps"):  # the library refuses the same run
        frequency.simulate_frequency(mech, 10**7, 100_000, 1.0, rho="exact", b=b, reps=50)


# ----------------------------------------------------------------- issue 27 item 5 / issue 28 item 6
def test_utility_page_large_d_and_s_answers_with_a_note():
    """d = 1e7, s = 1e6 (was: no answer after 150 s): the t range is refused with its limit
    (automatic range) or the curves are drawn and the baselines replaced by a note."""
    at = AppTest.from_file(os.path.join(APP, "pages", "2_Utility.py"), default_timeout=120).run()
    at.sidebar.number_input(key="d").set_value(10**7)
    at.sidebar.number_input(key="s").set_value(10**6)
    at.run()
    assert not at.exception
    assert any("at most 200,000" in e.value for e in at.error)
    at.sidebar.checkbox(key="auto_t").uncheck()
    at.run()
    at.sidebar.number_input(key="t_min").set_value(10**6 + 1)
    at.sidebar.number_input(key="t_max").set_value(10**6 + 2000)
    at.run()
    assert not at.exception and not at.error
    notes = [c.value for c in at.caption if "not drawn for d > 200,000" in c.value]
    assert len(notes) == 5  # every baseline, each with the limit and what to do


def test_pages_delta_input_uses_the_one_range():
    import app.common as common  # noqa: F401  (the pages' helper)

    from accountant.core.limits import check_delta

    for bad in ("1e-400", "0", "1", "x"):
        with pytest.raises(ValueError, match=r"^delta must be a number in \[1e-300, 1\)"):
            check_delta(bad)


def test_tables_page_refuses_a_deep_tail_grid_over_its_time_budget():
    # issue 27: 16 rows at delta 1e-6 and 1e-300 took 85 s; the page now estimates the cost
    # (tables.estimate_seconds) and refuses beside the input, before any work
    at = page("4_Tables.py")
    at.sidebar.text_input(key="deltas").set_value("1e-6, 1e-300").run()
    ok(at)
    assert any("over the page's budget" in e and "python -m accountant table" in e
               for e in sidebar_errors(at)), sidebar_errors(at)
    assert not at.dataframe
    # a small deep-tail grid fits the budget and answers
    at.sidebar.text_input(key="deltas").set_value("1e-300")
    at.sidebar.text_input(key="eps0s").set_value("1, 2")
    at.sidebar.text_input(key="ns").set_value("100000").run()
    ok(at)
    assert not sidebar_errors(at) and len(at.dataframe[0].value) == 2


def test_amplification_page_refuses_a_deep_tail_chart_over_its_time_budget():
    # issue 44 item 18: the page took 107-289 s at delta = 1e-300; it now estimates the chart's
    # cost (tables.estimate_seconds) and refuses beside the input, before any work
    at = page("1_Amplification.py")
    at.sidebar.text_input(key="delta").set_value("1e-300").run()
    assert any("over the page's budget" in e and "python -m accountant" in e for e in sidebar_errors(at)), \
        sidebar_errors(at)
    at.sidebar.text_input(key="delta").set_value("1e-30").run()
    ok(at)
    assert not sidebar_errors(at)
