"""Binary RR's two searches over every dataset carry the name of what they certify: ``exact``
only where the bracket is at most 1e-6 relative, ``search`` (a proved upper bound, the upper
end of a wider certified bracket) where the registry stops before 1e-6 (issue 41).  Checked on
every surface: the library, the CLI's JSON and text, a table row and the Amplification page."""
import json
import re

import pytest

from accountant import compute_bound, proved_epsilon
from accountant.bounds.binary_exact import HEADLINE_MAX_N, LARGE_HEADLINE_MAX_N, LARGE_REGISTRY_RTOL
from accountant.bounds.labels import kind_label
from accountant.interfaces.tables.grid import GridPoint, compute_row
from tests.accountant.interfaces.test_cli import run

_BRACKET = re.compile(r"eps_c in \[([0-9.e+-]+), ([0-9.e+-]+)\]")


def bracket_width(reason: str) -> float:
    """The relative width of the bracket a search's reason states."""
    lo, up = (float(x) for x in _BRACKET.search(reason).groups())
    return up / lo - 1.0


def check_name(name: str, reason: str, n: int) -> None:
    """The property: a result named exact has a bracket of at most 1e-6 (the reason prints its
    ends to 10 digits); one named search has a wider bracket (above HEADLINE_MAX_N, or a
    chart's precision below it)."""
    if name == "exact":
        assert n <= HEADLINE_MAX_N and bracket_width(reason) <= 1.5e-6, (n, reason)
    if name == "search":
        assert n <= LARGE_HEADLINE_MAX_N and bracket_width(reason) > 1e-6, (n, reason)


@pytest.mark.parametrize("n,eps0", [(1000, 0.5), (HEADLINE_MAX_N, 2.0), (HEADLINE_MAX_N + 1, 2.0),
                                    (100_000, 2.0), (100_000, 0.5)])
def test_library_names_the_bracket_by_its_width(n, eps0):
    head = proved_epsilon(n, eps0, 1e-6, mechanism="rr")
    assert head.name == ("exact" if n <= HEADLINE_MAX_N else "search")
    check_name(head.name, head.reason, n)
    other = compute_bound("search" if n <= HEADLINE_MAX_N else "exact", n, eps0, 1e-6, mechanism="rr")
    assert not other.applicable and "HEADLINE_MAX_N" in other.reason
    if n > HEADLINE_MAX_N:   # the number is the one the search certified before it had its name
        assert 0.99 * LARGE_REGISTRY_RTOL <= bracket_width(head.reason) <= 1.5 * LARGE_REGISTRY_RTOL
        assert compute_bound("lower", n, eps0, 1e-6, mechanism="rr").epsilon <= head.epsilon
        assert head.epsilon < compute_bound("blanket", n, eps0, 1e-6, mechanism="rr").epsilon


def test_label_of_search_is_a_proved_upper_bound_not_exact():
    lab = kind_label("search", "rr")
    assert lab.kind == "proved upper" and lab.relation == "<=" and lab.rounding == "up" and lab.certified
    assert "exact" not in lab.words and "certified bracket" in lab.words
    assert kind_label("search", "krr").kind == "not applicable"


def test_cli_json_and_text_at_1e5(capsys):
    """The command line in-process (its subprocess entry point: tests/accountant/interfaces/test_cli.py)."""
    from accountant.interfaces.cli.main import main

    def cli(*argv):
        assert main(list(argv)) == 0
        return capsys.readouterr().out

    out = json.loads(cli("epsilon", "--n", "1e5", "--eps0", "2", "--delta", "1e-6", "--mechanism", "rr", "--json"))
    assert out["bound"] == "search" and out["epsilon"] == 0.02490726426069159   # bit for bit as before
    check_name(out["bound"], out["note"], 100_000)
    assert out["lower_epsilon"] <= out["epsilon"]
    text = cli("epsilon", "--n", "1e5", "--eps0", "2", "--delta", "1e-6", "--mechanism", "rr")
    assert "(proved: search;" in text and "exact" not in text.split("\n")[0]
    out = json.loads(cli("epsilon", "--n", "1e5", "--eps0", "2", "--delta", "1e-6", "--mechanism", "rr",
                         "--bound", "exact", "--json"))
    assert out["applicable"] is False and "HEADLINE_MAX_N" in out["reason"]
    out = json.loads(cli("delta", "--n", "1e5", "--eps0", "2", "--eps", "0.025", "--mechanism", "rr", "--json"))
    assert out["bound"] == "search"


def test_table_row_at_1e5_names_search():
    row = compute_row(GridPoint(100_000, None, 2.0, 1e-6, None, "rr"), bounds=("exact", "search", "blanket", "lower"))
    assert row["best_proved"] == "search" and row["exact"] is None
    assert row["proved_epsilon"] == row["search"] == 0.02490726426069159
    row = compute_row(GridPoint(1000, None, 0.5, 1e-6, None, "rr"), bounds=("exact", "search", "blanket"))
    assert row["best_proved"] == "exact" and row["search"] is None


def test_amplification_page_at_1e5_says_search_not_exact():
    from tests.app.apptest import ok, page

    at = page("1_Amplification.py", timeout=300)
    at.selectbox(key="mechanism").set_value("rr").run()
    at.number_input(key="pts").set_value(2).run()
    at.number_input(key="e_ref").set_value(2.0).run()
    ok(at)
    helps = [m.help or "" for m in at.metric]
    head = [h for h in helps if "the number to cite" in h]
    assert head and "every-dataset search (certified bracket)" in head[0], helps
    assert not any("(exact)" in h for h in helps)
    assert any(m.value == "0.0249073" for m in at.metric), [m.value for m in at.metric]


@pytest.mark.parametrize("n,eps0", [(1000, 0.5), (HEADLINE_MAX_N, 2.0)])
def test_a_chart_precision_is_named_search_with_the_same_number(n, eps0):
    # a chart asks rtol = CHART_RTOL (1e-5): the exact search stops at that width, so it is the
    # search; the number is the exact search's upper end at that width, as before the name
    from accountant.bounds.binary_exact import exact_epsilon
    from accountant.bounds.exact_bounds import CHART_RTOL

    r = compute_bound("search", n, eps0, 1e-6, mechanism="rr", rtol=CHART_RTOL)
    assert r.applicable and r.epsilon == exact_epsilon(n, eps0, 1e-6, rtol=CHART_RTOL).upper
    check_name(r.name, r.reason, n)
    assert 1e-6 < bracket_width(r.reason) <= 1.01 * CHART_RTOL
    ex = compute_bound("exact", n, eps0, 1e-6, mechanism="rr", rtol=CHART_RTOL)
    assert not ex.applicable and "'search'" in ex.reason
    row = compute_row(GridPoint(n, None, eps0, 1e-6, None, "rr"), bounds=("exact", "search", "blanket"),
                      rtol=CHART_RTOL)
    assert row["best_proved"] == "search" and row["exact"] is None and row["proved_epsilon"] == r.epsilon
    # between exact's 1e-6 and the chart's precision the delta form agrees (no step to eps0)
    mid = compute_bound("search", n, eps0, 1e-6, mechanism="rr", rtol=3e-6)
    assert mid.applicable and mid.epsilon < eps0 and mid.achieved_delta <= 1e-6
    full = compute_bound("exact", n, eps0, 1e-6, mechanism="rr")
    assert full.applicable and bracket_width(full.reason) <= 1.5e-6 and full.epsilon <= r.epsilon
