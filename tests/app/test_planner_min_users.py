"""The Planner page's minimum batch size (streamlit.testing, no browser): the number is the
library's min_users with the same deployment (the one ``users`` prints), the refused combinations
are refused beside the widgets with the library's reason, and the two features the search does not
cover (n >= N, a mix) say why."""
from __future__ import annotations

from accountant import min_users
from accountant.accounting.deployment import INVERSE_REFUSED, Deployment
from tests.app.apptest import ok, page


def _answer(at):
    return [m.value for m in at.metric if m.label == "minimum batch size n"]


def test_planner_minimum_batch_size_is_the_library_s():
    at = page("3_Planner.py", timeout=600)
    assert "Minimum batch size" in [h.value for h in at.subheader]
    assert not _answer(at)  # computed on the button only
    captions = " ".join(c.value for c in at.caption)
    assert all(why in captions for why in INVERSE_REFUSED.values())
    at.selectbox(key="mu_mechanism").set_value("krr").run()
    at.number_input(key="mu_k").set_value(4).run()
    at.number_input(key="mu_eps0").set_value(2.0).run()
    at.checkbox(key="dep_sampling_on").check().run()
    at.number_input(key="dep_q").set_value(0.1).run()
    at.radio(key="dep_nb").set_value("add-remove").run()
    at.button(key="mu_go").click().run(timeout=600)
    ok(at)
    ref = min_users(2.0, 0.5, 1e-6, "krr", k=4, deployment=Deployment(sampling=0.1, neighbours="add-remove"))
    assert _answer(at) == [f"{ref.n:,}"]
    text = " ".join(m.value for m in at.markdown)
    assert f"({ref.bound_at_n}) at n = {ref.n:,}" in text and f"at n - 1 = {ref.n - 1:,}" in text
    assert any(ref.statement in c.value for c in at.caption)
    at.number_input(key="dep_colluders").set_value(5).run()
    assert "sampling with colluders: the combination is not proved here" in [e.value for e in at.error]
    assert not _answer(at)


def test_planner_minimum_batch_size_with_colluders():
    at = page("3_Planner.py", timeout=600)
    at.selectbox(key="mu_mechanism").set_value("generic").run()
    at.number_input(key="dep_colluders").set_value(100).run()
    at.button(key="mu_go").click().run(timeout=600)
    ok(at)
    ref = min_users(1.0, 0.5, 1e-6, deployment=Deployment(colluders=100))
    assert _answer(at) == [f"{ref.n:,}"]
    assert any("100 colluders reveal their reports" in c.value for c in at.caption)
