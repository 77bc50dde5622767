"""Issue 31: the default chart is the answer (its curves and colours come from the library),
tables print through the one formatter with no None/nan cell, every randomizer is on the pages."""
import math
import os
import sys

import pytest
from tests.paths import REPO_ROOT

from streamlit.testing.v1 import AppTest

from accountant.bounds import registry as bounds
from accountant.interfaces import figure
from accountant import ShuffleAccountant, make_params
from accountant.interfaces.tables.grid import GridPoint, build_grid, compute_row

APP = os.path.join(REPO_ROOT, "app")
sys.path.insert(0, APP)
import common  # noqa: E402


def run(page: str) -> AppTest:
    at = AppTest.from_file(os.path.join(APP, "pages", page), default_timeout=120).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("mechanism", ["collision", "coco", "krr", "rr", "generic"])
def test_default_curves_give_the_proved_number_of_the_headline(mechanism):
    # the default chart's main line is the row's proved eps_c: the headline's number
    wanted = figure.default_curve_bounds(mechanism)
    assert set(bounds.headline_bounds(mechanism)) <= set(wanted) and {"lower", "paper"} <= set(wanted)
    k = 10 if mechanism == "krr" else None
    s = 4 if mechanism in ("collision", "coco") else None
    p = build_grid([100_000], [s], [1.0], [1e-6], mechanism, "paper", ks=[k])[0]
    row = compute_row(p, wanted, 1e-9)
    lib = bounds.proved_epsilon(100_000, 1.0, 1e-6, mechanism, s, p.t, k=k)
    assert row["proved_epsilon"] == pytest.approx(lib.epsilon, rel=1e-12)
    assert row["lower_epsilon"] <= row["proved_epsilon"]
    lit = figure.literature_epsilon(row)
    if mechanism == "generic":  # the proved bound is itself the best published one
        assert lit is None
    else:
        assert lit is not None and lit >= row["proved_epsilon"] and row["best_literature"] != "blanket"


def test_headline_bounds_refuses_unknown_mechanism():
    with pytest.raises(ValueError, match="mechanism must be one of"):
        bounds.headline_bounds("no-such-mechanism")


def test_one_colour_per_bound_whatever_is_drawn():
    colours = [figure.bound_color(b) for b in bounds.BOUND_NAMES]
    assert len(set(colours)) == len(colours)  # distinct
    assert figure.bound_color("proved") == figure.bound_color("blanket")
    assert figure.bound_color("literature") not in colours
    rows = [compute_row(GridPoint(10_000, 4, e, 1e-6, 20, "collision"), ("clone", "efmrtt19"))
            for e in (0.3, 0.4)]
    for subset in (("clone", "efmrtt19"), ("efmrtt19",)):
        fig = figure.build_figure(rows, subset)
        assert {tr.legendgroup: tr.line.color for tr in fig.data} == {b: figure.bound_color(b) for b in subset}
    assert fig.layout.annotations[0].text == "n = 10,000, s = 4"  # no "1e+04"


def test_draft_indices_cover_the_range_and_belong_to_the_curve():
    assert figure.draft_indices(25) == [0, 6, 12, 18, 24]
    assert figure.draft_indices(2) == [0, 1] and figure.draft_indices(1) == [0]
    assert figure.draft_indices(10, 4) == [0, 4, 8, 9]
    with pytest.raises(ValueError):
        figure.draft_indices(0)



def test_first_draft_only_where_the_curves_are_slow():
    """The page draws a first draft only when its curves are expected to take over
    DRAFT_FROM_SECONDS: none at the defaults (25 eps0 x 5 bounds) up to n = 1e8, one at 1e9,
    one for 200 eps0 at n = 1e5; the rule grows with n, points and bounds."""
    assert not figure.draft_worth_drawing(10 ** 8, 25, 5)
    assert not figure.draft_worth_drawing(10 ** 4, 25, 5)
    assert figure.draft_worth_drawing(10 ** 9, 25, 5)
    assert figure.draft_worth_drawing(10 ** 5, 200, 5)
    ns = [10 ** e for e in range(2, 11)]
    for pts, b in [(25, 5), (25, 8), (100, 5)]:
        flags = [figure.draft_worth_drawing(n, pts, b) for n in ns]
        assert flags == sorted(flags)  # False ... True: monotone in n
    assert not figure.draft_worth_drawing(10 ** 10, 0, 5)

def test_krr_grid_point_carries_k_and_rr_has_no_t():
    p = build_grid([10_000], [4], [1.0], [1e-6], "krr", "paper", ks=[7])[0]
    assert (p.s, p.t, p.k) == (None, None, 7)
    row = compute_row(p, ("blanket", "clone"))
    assert row["k"] == 7
    lib = ShuffleAccountant(make_params("krr", 1.0, k=7), 10_000).get_epsilon(1e-6)
    assert row["proved_epsilon"] == pytest.approx(lib, rel=1e-9)
    q = build_grid([10_000], [4], [1.0], [1e-6], "rr", "paper", ks=[7])[0]
    assert (q.s, q.t, q.k) == (None, None, None)


def test_readable_table_directed_rounding_and_dash():
    rows = [{"up": 0.123456789, "lo": 0.123456789, "n": 1234567, "gap": None, "x": math.nan}]
    text, cfg = common.readable_table(rows, {"up": ("U", "up", "upper"), "lo": ("L", "down", "lower"),
                                             "n": ("n", None, "count"), "gap": ("G", "up", "g"),
                                             "x": ("X", None, "x")})
    assert text == [{"U": "0.1235", "L": "0.1234", "n": "1,234,567", "G": common.DASH, "X": common.DASH}]
    assert "not available" in cfg["G"]["help"] and cfg["U"]["help"].startswith("upper")


def test_bound_column_directions():
    assert common.bound_column("blanket")[0] == "up" and common.bound_column("lower")[0] == "down"
    assert common.bound_column("paper")[0] == "up"
    assert common.bound_column("log2_ratio[blanket]")[0] == "down"  # a larger eps_c: a smaller ratio
    assert common.bound_column("log2_ratio[lower]")[0] == "up"
    assert common.bound_column("proved_epsilon")[0] == "up" and common.bound_column("lower_epsilon")[0] == "down"
    assert common.bound_column("mechanism") == (None, "")


@pytest.mark.parametrize("mechanism,k", [("krr", 10), ("rr", None)])
def test_amplification_page_has_krr_and_rr(mechanism, k):
    at = run("1_Amplification.py")
    at.selectbox(key="mechanism").set_value(mechanism).run()
    assert not at.exception, [e.value for e in at.exception]
    lib = ShuffleAccountant(make_params(mechanism, 1.0, k=k), 100_000).epsilon_result(1e-6)
    shown = [m.value for m in at.metric if m.label == "eps_c, proved upper bound"]
    assert shown == [common.fmt(lib.epsilon, 6, "up")]
    df = at.dataframe[-1].value
    assert len(df) == 25 and not df.isin(["None", "nan", "n/a"]).any().any()
    if mechanism == "krr":
        at.number_input(key="k").set_value(4).run()
        lib4 = ShuffleAccountant(make_params("krr", 1.0, k=4), 100_000).get_epsilon(1e-6)
        assert [m.value for m in at.metric if m.label == "eps_c, proved upper bound"] == \
            [common.fmt(lib4, 6, "up")]


def test_tables_page_has_krr():
    at = run("4_Tables.py")
    at.selectbox(key="mechanism").set_value("krr").run()
    assert not at.exception, [e.value for e in at.exception]
    df = at.dataframe[0].value
    assert not df.isna().any().any() and not df.isin(["None", "nan", "n/a"]).any().any()
    # a k held fixed is not a column of the paper's table (it goes in the caption): every field
    at.toggle(key="table_all_columns").set_value(True).run()
    df = at.dataframe[0].value
    assert list(df["k"]) == [10] * len(df) and not df.isin(["None", "nan", "n/a"]).any().any()


def test_amplification_ratio_is_rounded_down():
    # eps0 / (an upper bound on eps_c) is a lower bound on the amplification
    assert common.ratio(1.0, 3.0) == "0.3333" and common.ratio(2.0, 3.0) == "0.6666"
    assert common.ratio(1.0, 0.0) == "inf (eps_c = 0)" and common.ratio(1.0, None) == "n/a"


def test_amplification_lower_band_holds_for_the_dimension_entered():
    # the chart's lower band is computed for the d in the sidebar: with d < 3s the
    # construction does not exist, so the band (and the headline's lower number) is gone
    at = run("1_Amplification.py")
    at.sidebar.number_input(key="d").set_value(8).run()  # s = 4: d < 3s = 12
    assert not at.exception, [e.value for e in at.exception]
    p = build_grid([100_000], [4], [1.0], [1e-6], "collision", "paper", d=8)[0]
    row = compute_row(p, ("blanket", "lower"))
    assert row["lower_epsilon"] is None and row["proved_epsilon"] is not None
    q = build_grid([100_000], [4], [1.0], [1e-6], "collision", "paper", d=12)[0]
    assert compute_row(q, ("blanket", "lower"))["lower_epsilon"] > 0
    assert compute_row(q, ("lower",))["lower_for"] == "d = 12"


@pytest.mark.parametrize("mechanism", ["olh", "oue"])
def test_tables_and_amplification_pages_take_the_frequency_oracles(mechanism):
    for page in ("4_Tables.py", "1_Amplification.py"):
        at = run(page)
        at.selectbox(key="mechanism").set_value(mechanism).run()
        assert not at.exception, [e.value for e in at.exception]
        assert not at.error, [e.value for e in at.error]
        assert at.number_input(key="k").value == 10
