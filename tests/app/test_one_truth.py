"""Issue 44, items 2-4: the dashboard, the tables and the CLI tell the same truth.

* one "best published proved bound" (accountant.bounds.published) on the Amplification page,
  the Tables page, the table rows and files and ``compare``: same name, same number;
* the Amplification page's bracket under one assumption at a time, with a scale under its bar,
  and a lower bound that is exactly 0 saying why (n = 1e9, eps0 = 0.1);
* one rounding for the Tables page and its downloads (savings down).
"""
import csv
import io
import os
import re
import sys

import pytest
from tests.paths import REPO_ROOT

from streamlit.testing.v1 import AppTest

from accountant import make_params  # noqa: E402
from accountant.bounds.published import (  # noqa: E402
    best_published, best_published_proved, published_bounds)
from accountant.bounds.registry import REGISTRY, compare_params, compute_params_bound  # noqa: E402
from accountant.core.numfmt import fmt  # noqa: E402
from accountant.interfaces import tables  # noqa: E402
from accountant.interfaces.cli.main import _human, run  # noqa: E402
from accountant.interfaces.figure import bound_label  # noqa: E402
from accountant.interfaces.tables.grid import GridPoint, compute_row  # noqa: E402
from mechanisms.analysis.common import collision_t_star  # noqa: E402
from tests.app.apptest import ok, page, planner_for_frequency  # noqa: E402

APP = os.path.join(REPO_ROOT, "app")
sys.path.insert(0, APP)
import common as appcommon  # noqa: E402

DELTA = 1e-6


# ----------------------------------------------------------------- the definition itself
GRID = [("collision", dict(s=4)), ("krr", dict(k=4)), ("generic", {}), ("oue", dict(k=8))]


def _cli_args(mech, kw, n, eps0):
    args = ["compare", "--n", str(n), "--eps0", str(eps0), "--delta", str(DELTA), "--mechanism", mech]
    for k, v in kw.items():
        args += [f"--{k}", str(v)]
    return args


def test_published_bounds_are_the_proved_literature_bounds():
    for mech in ("collision", "coco", "krr", "rr", "olh", "oue", "generic", "variation-ratio"):
        names = published_bounds(mech)
        assert "blanket" not in names and names
        for b in names:  # proved upper bounds for the mechanism, never the paper's or a lower bound
            assert REGISTRY[b].kind == "upper" and REGISTRY[b].proved(mech)
        assert "stronger-clone" not in names and "paper" not in names


def test_best_published_refuses_a_partial_set():
    params = make_params("collision", 1.0, s=4)
    res = compare_params(params, 10_000, DELTA, ("blanket", "clone"))
    with pytest.raises(ValueError, match="missing: clone-closed"):
        best_published(res, "collision")


@pytest.mark.parametrize("mech,kw", GRID)
@pytest.mark.parametrize("n", [10_000, 1_000_000])
@pytest.mark.parametrize("eps0", [0.4, 2.0])
def test_library_rows_and_cli_compare_agree(mech, kw, n, eps0):
    params = make_params(mech, eps0, **kw)
    got = best_published_proved(params, n, DELTA)
    # the definition, by brute force over the registry: the smallest applicable proved
    # upper bound from the literature
    cands = {b: compute_params_bound(b, params, n, DELTA) for b in REGISTRY
             if REGISTRY[b].kind == "upper" and REGISTRY[b].proved(mech) and b != "blanket"}
    cands = {b: r for b, r in cands.items() if r.applicable and r.epsilon is not None}
    want = min(cands.values(), key=lambda r: r.epsilon)
    name, res = got
    assert name == res.name and res.epsilon == want.epsilon
    # table rows (what the Tables page and every exported file print)
    t = collision_t_star(4, eps0) if mech == "collision" else None
    point = GridPoint(n, kw.get("s"), eps0, DELTA, t, mech, k=kw.get("k"))
    row = compute_row(point, tables.paper_bounds(mech))
    assert (row["best_literature"], row["literature_epsilon"]) == (name, res.epsilon)
    assert row["saving_percent"] == pytest.approx(100 * (res.epsilon - row["proved_epsilon"]) / res.epsilon)
    # the CLI's compare: the same bound, marked in the text and in the JSON
    out = run(_cli_args(mech, kw, n, eps0))
    assert out["best_published"] == {"name": name, "epsilon": res.epsilon}
    marked = [line for line in _human("compare", out).splitlines() if "best published proved bound" in line]
    assert len(marked) == 1 and marked[0].split()[0] == name


def test_rows_without_every_published_bound_name_none():
    point = GridPoint(10_000, 4, 1.0, DELTA, collision_t_star(4, 1.0), "collision")
    row = compute_row(point, ("blanket", "clone", "lower"))  # the clone alone is not "the best"
    assert row["best_literature"] is None and row["saving_percent"] is None


# ----------------------------------------------------------------- the pages
def _headline_published(at: AppTest) -> tuple:
    text = " ".join(m.value for m in at.markdown)
    m = re.search(r"best published proved bound: (.+?) \*\*([0-9.e+-]+)\*\*", text)
    assert m, text[:2000]
    return m.group(1), m.group(2)


@pytest.mark.parametrize("mech,setup,kw", [
    ("collision", {}, dict(s=4, d=1000)),
    ("krr", {"k": 8}, dict(k=8)),
])
def test_amplification_page_names_the_same_best_published_bound(mech, setup, kw):
    at = page("1_Amplification.py")
    if mech != "collision":
        at.selectbox(key="mechanism").set_value(mech).run()
        for key, v in setup.items():
            at.number_input(key=key).set_value(v).run()
    at.number_input(key="e_ref").set_value(2.0).run()
    ok(at)
    params = make_params(mech, 2.0, **kw)
    name, res = best_published_proved(params, 100_000, DELTA)
    label, value = _headline_published(at)
    assert (label, value) == (bound_label(name), fmt(res.epsilon, 6, "up"))
    # the chart's Numbers table: the same definition at the chart's tolerance
    df = at.dataframe[-1].value
    for _, r in df.iterrows():
        eps0 = float(r["eps0"])
        p = make_params(mech, eps0, **kw)
        want = best_published_proved(p, 100_000, DELTA, rtol=appcommon.CURVE_RTOL)
        if want[1].epsilon == r["proved eps_c"] or want[0] == "blanket":
            continue
        assert r["published bound"] == bound_label(want[0]), (eps0, r.to_dict())
        assert r["best published"] == fmt(want[1].epsilon, 4, "up"), (eps0, r.to_dict())
        break
    else:
        raise AssertionError("no row with a published bound")


def test_tables_page_and_its_files_name_the_same_bound_with_one_rounding():
    at = page("4_Tables.py")
    df = at.dataframe[0].value
    for _, r in df.iterrows():
        n, eps0 = int(r["n"]), float(r["eps0"])
        params = make_params("collision", eps0, s=4)
        name, res = best_published_proved(params, n, DELTA)
        assert r["best_literature"] == name
        assert r["literature_epsilon"] == fmt(res.epsilon, 4, "up")
    # the page's cells are the files' cells: same digits, same directions (savings down)
    rows = [compute_row(GridPoint(n, 4, e, DELTA, collision_t_star(4, e), "collision"),
                        tables.paper_bounds("collision"))
            for n in (10_000, 100_000) for e in (0.5, 0.5 + 3.5 / 3, 0.5 + 7 / 3, 4.0)]
    md = tables.to_markdown(rows, tables.default_columns(rows), tables.DEFAULT_DIGITS)
    body = [line for line in md.splitlines() if line.startswith("| ") and "---" not in line][1:]
    head = [h.strip() for h in md.splitlines()[[i for i, line in enumerate(md.splitlines())
                                                if line.startswith("| ")][0]].strip("|").split("|")]
    col = head.index("saving %")
    file_savings = [line.strip("|").split("|")[col].strip() for line in body]
    page_savings = list(df["saving_percent"])
    assert page_savings == file_savings
    for r, shown in zip(rows, page_savings):  # rounded down, never to nearest
        assert shown == fmt(r["saving_percent"], 4, "down") and float(shown) <= r["saving_percent"]
    # the page's caption summary rounds down too
    cap = " ".join(c.value for c in at.caption if "Saving of the proved" in c.value)
    med = tables.saving_summary(rows)["median"]
    assert f"median = {fmt(med, 4, 'down')}" in cap, cap


def test_tables_page_computes_every_published_bound_whatever_is_chosen():
    at = page("4_Tables.py")
    at.multiselect(key="bounds.collision").set_value(["blanket", "lower"]).run()
    ok(at)
    df = at.dataframe[0].value
    assert set(df["best_literature"]) == {"blanket-bennett"}, set(df["best_literature"])


# ----------------------------------------------------------------- the bracket (item 3)
def _bracket_lines(at):
    return [m.value for m in at.markdown if "lies in [" in m.value]


def test_bracket_every_hash_family_is_worst_hash_lower_to_proved():
    at = page("1_Amplification.py")  # defaults: Collision, s = 4, n = 1e5, eps0 = 1, any hash
    params = make_params("collision", 1.0, s=4, d=1000)
    up = compute_params_bound("blanket", params, 100_000, DELTA).epsilon
    worst = compute_params_bound("lower-worst-hash", params, 100_000, DELTA).epsilon
    lines = _bracket_lines(at)
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"**Every hash family: the eps_c of the worst family lies in "
                               f"[{fmt(worst, 6, 'down')}, {fmt(up, 6, 'up')}]**"), lines[0]
    assert "uniformly random hash" not in lines[0]
    # the bar has a scale: ticks with numbers, from 0 up to the largest value drawn
    bar = [m.value for m in at.markdown if "bracket-scale" in m.value]
    assert len(bar) == 1
    ticks = [float(v) for v in re.findall(r'class="bracket-tick"[^>]*>([0-9.e+-]+)<', bar[0])]
    assert len(ticks) >= 3 and ticks[0] == 0 and ticks == sorted(ticks) and ticks[-1] <= up * 1.08
    assert "scale: eps_c (nats)" in bar[0]
    # the random-hash lower bound is named as such, not as the bracket's end
    side = " ".join(m.value for m in at.markdown)
    assert "random-hash lower bound **0.00703824**" in side


def test_bracket_random_hash_is_its_own_labelled_line():
    at = page("1_Amplification.py")
    at.selectbox(key="hash_model").set_value("random").run()
    ok(at)
    params = make_params("collision", 1.0, s=4, d=1000, hash_model="random")
    lo = compute_params_bound("lower", params, 100_000, DELTA).epsilon
    lines = _bracket_lines(at)
    assert len(lines) == 1 and lines[0].startswith("**Uniformly random hash: the true eps_c lies in ["
                                                   + fmt(lo, 6, "down")), lines
    assert "Every hash family" not in " ".join(m.value for m in at.markdown)


def test_bracket_and_zero_lower_at_n_1e9():
    at = page("1_Amplification.py")
    at.number_input(key="n").set_value(10 ** 9).run()
    at.number_input(key="e_ref").set_value(0.1).run()
    ok(at)
    params = make_params("collision", 0.1, s=4, d=1000)
    lo = compute_params_bound("lower", params, 10 ** 9, DELTA)
    worst = compute_params_bound("lower-worst-hash", params, 10 ** 9, DELTA).epsilon
    assert lo.epsilon == 0.0 and worst > 0  # the random-hash datasets certify nothing here
    lines = _bracket_lines(at)
    assert len(lines) == 1 and f"[{fmt(worst, 6, 'down')}," in lines[0], lines
    side = " ".join(m.value for m in at.markdown)
    assert "random-hash lower bound **0 (exactly 0: the named datasets' divergence at eps = 0" in side
    # the Numbers table: the 0 says why, and the bracket width is not a bare dash
    df = at.dataframe[-1].value
    first = df.iloc[0]
    assert float(first["eps0"]) == 0.1
    assert first["lower eps_c (random hash)"] == "0 (no eps > 0 certified)"
    assert first["bracket width %"] == "unbounded (lower = 0)"


def test_theorem5_curve_stays_visible():
    at = page("1_Amplification.py")
    charts = [c for c in at.get("plotly_chart")]
    assert charts
    import json

    fig = json.loads(charts[0].proto.spec)
    paper = [tr for tr in fig["data"] if tr.get("name") == "paper's Theorem 5 (not proved)"]
    assert len(paper) == 1
    assert "markers" in paper[0]["mode"] and paper[0]["line"]["dash"] == "dash"
    names = [tr.get("name") for tr in fig["data"]]
    assert names.index("paper's Theorem 5 (not proved)") > names.index("proved upper bound")  # drawn on top


def test_csv_download_is_the_files_rounding():
    """The page's CSV is tables.render: its saving cells are the page's (both rounded down)."""
    at = page("4_Tables.py")
    btn = [b for b in at.get("download_button") if b.proto.label == "CSV"]
    assert btn
    # the CSV carries no provenance lines: its sidecar (as `table --out NAME.csv` writes) does
    assert [b for b in at.get("download_button") if b.proto.label == "CSV provenance (.csv.json)"]
    df = at.dataframe[0].value
    rows = [compute_row(GridPoint(n, 4, e, DELTA, collision_t_star(4, e), "collision"),
                        tables.paper_bounds("collision"))
            for n in (10_000, 100_000) for e in (0.5, 0.5 + 3.5 / 3, 0.5 + 7 / 3, 4.0)]
    text = tables.render(rows, ".csv", tables.default_columns(rows), tables.DEFAULT_DIGITS, {})
    reader = csv.DictReader(io.StringIO("\n".join(line for line in text.splitlines() if not line.startswith("#"))))
    assert [r["saving_percent"] for r in reader] == list(df["saving_percent"])


# ----------------------------------------------------------------- item 6: the page's words
def test_planner_page_names_its_widget_not_a_command_line_flag():
    at = planner_for_frequency()
    ok(at)
    warnings = [w.value for w in at.warning]
    capped = [w for w in warnings if "cap the local budget" in w]
    assert capped, warnings  # the recommended eps0 is above 5: the cap is the remedy
    assert all("--" not in w for w in warnings), warnings
    assert "tick 'cap the local eps0' in the sidebar and set 'max local eps0' to 5" in capped[0]
    # the widgets it names exist on the page, under those labels
    assert any(c.label == "cap the local eps0" for c in at.sidebar.checkbox)
    at.checkbox(key="use_cap").check().run()
    ok(at)
    assert any(x.label == "max local eps0" for x in at.sidebar.number_input)


def test_in_page_words_rewrites_every_form_of_the_flag():
    assert appcommon.in_page_words("a cap (--max-eps0).") == \
        "a cap (tick 'cap the local eps0' in the sidebar and set 'max local eps0')."
    assert appcommon.in_page_words("(--max-eps0 2.5; x)") == \
        "(tick 'cap the local eps0' in the sidebar and set 'max local eps0' to 2.5; x)"
    assert appcommon.in_page_words("no flag here") == "no flag here"
