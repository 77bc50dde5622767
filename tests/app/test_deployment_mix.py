"""Mixed randomizers (issue 43, --mix) on the Amplification and Rounds pages under
streamlit.testing: the shown numbers are the library's (mix_epsilon, mix_rounds_epsilon), a bad
group shows parse_mix's message beside the table and no number, a mix with another deployment
option is refused, the mix's total is the page's n."""
import json
import os
import sys

import pandas as pd
from streamlit.testing.v1 import AppTest

from accountant.accounting import deployment_groups as G
from tests.app.apptest import APP, ok
from tests.paths import REPO_ROOT

sys.path.insert(0, APP)
import mix_input  # noqa: E402

AMP = os.path.join(APP, "pages", "1_Amplification.py")
ROUNDS = os.path.join(APP, "pages", "7_Rounds.py")
MIX_JSON = os.path.join(REPO_ROOT, "docs", "examples", "mix.json")
TABLE = "dep_mix_table"


def _texts(at):
    return " ".join(m.value for m in at.markdown) + " " + " ".join(c.value for c in at.caption)


def _edit(at, edited=None, added=None):
    """The data editor's edit state (as the browser sends it), then a run."""
    at.session_state[TABLE] = {"edited_rows": edited or {}, "added_rows": added or [], "deleted_rows": []}
    at.run()
    ok(at)


def _amp_mix():
    at = AppTest.from_file(AMP, default_timeout=300)
    at.run()
    ok(at)
    at.number_input(key="pts").set_value(2).run()  # a short chart: the deployment is the point here
    at.selectbox(key="mechanism").set_value("rr").run()
    at.checkbox(key="dep_mix_on").check().run()
    ok(at)
    return at


def _shown_upper(text):
    return float(text.split("Deployment eps_c <= ")[1].split("**")[0])


def test_groups_from_rows_drops_empty_cells_and_rows():
    rows = mix_input.default_frame().to_dict("records") + [
        {k: None for k in G.MIX_KEYS},
        {"count": 5.0, "mechanism": "krr", "eps0": 1.5, "k": 8.0, "s": float("nan"), "hash_model": ""}]
    assert mix_input.groups_from_rows(rows) == [
        {"count": 60_000, "mechanism": "rr", "eps0": 2.0}, {"count": 40_000, "mechanism": "rr", "eps0": 1.0},
        {"count": 5, "mechanism": "krr", "eps0": 1.5, "k": 8}]
    # the table's columns are the keys parse_mix takes, in its order
    assert list(mix_input.default_frame().columns) == list(G.MIX_KEYS)
    assert isinstance(mix_input.default_frame(), pd.DataFrame)


def test_amplification_mix_table_gives_the_library_numbers():
    at = _amp_mix()
    groups = G.parse_mix([dict(g) for g in mix_input.DEFAULT_GROUPS])
    ref = G.mix_epsilon(groups, 1e-6)
    text = _texts(at)
    assert f"proved: **{ref.bound}** at n = 100,000" in text
    assert ref.epsilon <= _shown_upper(text) <= ref.epsilon * (1 + 1e-5)
    low = float(text.split("eps_c >= ")[1].split(" ")[0])
    assert ref.lower_epsilon is not None and ref.lower_epsilon * (1 - 1e-5) <= low <= ref.lower_epsilon
    assert low < _shown_upper(text)
    assert "worst group alone: group 1" in text and ref.lower_dataset in text
    assert "60,000 x binary RR eps0 = 2; 40,000 x binary RR eps0 = 1" in text
    # the page's n is the mix's total: one n for the headline and the deployment, said in the sidebar
    assert any("n = 100,000: the mix's total" in i.value for i in at.sidebar.info)
    # another mix: group 2 of 20,000 users of 4-RR ... (a k-RR group with binary RR: only (a) applies)
    _edit(at, {1: {"count": 20_000, "mechanism": "krr", "k": 4}})
    groups = G.parse_mix([{"count": 60_000, "mechanism": "rr", "eps0": 2.0},
                          {"count": 20_000, "mechanism": "krr", "eps0": 1.0, "k": 4}])
    ref = G.mix_epsilon(groups, 1e-6)
    text = _texts(at)
    assert ref.bound == "mix-a" and "proved: **mix-a** at n = 80,000" in text
    assert ref.epsilon <= _shown_upper(text) <= ref.epsilon * (1 + 1e-5)
    assert "At eps0 = 1 (binary RR, n = 80,000)" in [h.value for h in at.subheader]
    assert any("n = 80,000: the mix's total" in i.value for i in at.sidebar.info)


def test_amplification_bad_group_and_refused_combination():
    at = _amp_mix()
    _edit(at, {1: {"count": 0}})
    assert "mix: group 2: count must be an integer in [1, 1e10], got 0" in [e.value for e in at.sidebar.error]
    assert "Deployment eps_c" not in _texts(at)
    _edit(at, {0: {"mechanism": "krr"}})  # k-RR without k
    assert any(e.value.startswith("mix: group 1: ") and "k" in e.value for e in at.sidebar.error)
    assert "Deployment eps_c" not in _texts(at)
    _edit(at)
    assert "Deployment eps_c" in _texts(at)
    at.number_input(key="dep_colluders").set_value(10).run()
    assert "mix with colluders: the combination is not proved here" in [e.value for e in at.sidebar.error]
    assert "Deployment eps_c" not in _texts(at)
    at.number_input(key="dep_colluders").set_value(0).run()
    at.checkbox(key="dep_sampling_on").check().run()
    assert "mix with sampling: the combination is not proved here" in [e.value for e in at.sidebar.error]
    assert "Deployment eps_c" not in _texts(at)


def test_amplification_mix_file_upload():
    at = _amp_mix()
    at.radio(key="dep_mix_src").set_value("JSON file").run()
    assert "Deployment eps_c" not in _texts(at)  # no file yet: no number
    with open(MIX_JSON, "rb") as fh:
        data = fh.read()
    at.file_uploader(key="dep_mix_file").set_value(("mix.json", data, "application/json")).run()
    ok(at)
    ref = G.mix_epsilon(G.parse_mix(json.loads(data)), 1e-6)
    text = _texts(at)
    assert f"proved: **{ref.bound}** at n = 100,000" in text
    assert ref.epsilon <= _shown_upper(text) <= ref.epsilon * (1 + 1e-5)
    at.file_uploader(key="dep_mix_file").set_value(("bad.json", b"[{", "application/json")).run()
    assert any(e.value.startswith("mix: cannot read a JSON list from bad.json") for e in at.sidebar.error)
    assert "Deployment eps_c" not in _texts(at)
    too_many = json.dumps([{"count": 10, "mechanism": "rr", "eps0": 1}] * (mix_input.MAX_GROUPS + 1)).encode()
    at.file_uploader(key="dep_mix_file").set_value(("many.json", too_many, "application/json")).run()
    assert any(f"at most {mix_input.MAX_GROUPS} groups" in e.value for e in at.sidebar.error)
    assert "Deployment eps_c" not in _texts(at)


def _rounds_mix(T=10):
    at = AppTest.from_file(ROUNDS, default_timeout=300)
    at.run()
    at.number_input(key="T").set_value(T).run()
    at.checkbox(key="dep_mix_on").check().run()
    ok(at)
    return at


def _deployment_metric(at):
    return [float(m.value) for m in at.metric if m.label == "deployment PLD eps (upper bound)"]


def test_rounds_page_mix():
    at = _rounds_mix()
    ref = G.mix_rounds_epsilon(G.parse_mix([dict(g) for g in mix_input.DEFAULT_GROUPS]), 1e-6, 10)
    shown = _deployment_metric(at)
    assert shown and ref.epsilon <= shown[0] <= ref.epsilon * (1 + 1e-3)
    assert "mix-pld" in _texts(at)
    assert "With mixed randomizers (2 groups, 100,000 users) each round" in [h.value for h in at.subheader]
    # the per-round chart is at the mix's total n too
    assert any("n = 100,000: the mix's total" in i.value for i in at.sidebar.info)
    _edit(at, {0: {"count": -3}})
    assert "mix: group 1: count must be an integer in [1, 1e10], got -3" in [e.value for e in at.sidebar.error]
    assert not _deployment_metric(at)
    _edit(at)
    at.number_input(key="dep_reports").set_value(2).run()
    assert "mix with several reports: the combination is not proved here" in [e.value for e in at.sidebar.error]
    assert not _deployment_metric(at)


def test_rounds_page_slow_mix_waits_for_the_button():
    """A k-RR mix runs the exact blanket at every point of the profile: only on the button, then
    the library's number (two small groups: seconds)."""
    at = _rounds_mix()
    _edit(at, {0: {"count": 60, "mechanism": "krr", "k": 8}, 1: {"count": 40, "mechanism": "krr", "k": 8}})
    assert not _deployment_metric(at) and mix_input.SLOW_NOTE in _texts(at)
    at.button(key="dep_mix_rounds").click().run()
    ok(at)
    groups = G.parse_mix([{"count": 60, "mechanism": "krr", "k": 8, "eps0": 2.0},
                          {"count": 40, "mechanism": "krr", "k": 8, "eps0": 1.0}])
    ref = G.mix_rounds_epsilon(groups, 1e-6, 10)
    shown = _deployment_metric(at)
    assert shown and ref.epsilon <= shown[0] <= ref.epsilon * (1 + 1e-3)
