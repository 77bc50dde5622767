"""The Utility page's comparison at one central guarantee shows the library's numbers
(mechanisms.planning.central), directed as printed everywhere."""
import sys

from mechanisms.planning.central import COMPARED, central_comparison
from tests.app.apptest import APP, ok, page

sys.path.insert(0, APP)
import common as appcommon  # noqa: E402  (the dashboard's formatter)


def test_central_table_is_the_library_comparison():
    at = page("2_Utility.py")
    charts = len(at.get("plotly_chart"))
    at.toggle(key="central_on").set_value(True).run(timeout=600)
    ok(at)
    assert len(at.get("plotly_chart")) == charts + 1
    df = at.dataframe[-1].value
    rows = {r.mechanism: r for r in central_comparison(10_000, 64, 4, 1.0, 1e-6)}
    assert len(df) == len(COMPARED)
    for _, shown in df.iterrows():
        r = next(r for r in rows.values() if appcommon.MECH_LABEL.get(r.mechanism, r.mechanism) == shown["mechanism"])
        assert shown["eps0"] == appcommon.fmt(r.eps0, 4, "down")
        assert shown["eps_c (proved)"] == appcommon.fmt(r.epsilon, 4, "up")
        assert shown["generic eps0"] == appcommon.fmt(r.generic_eps0, 4, "down")
        assert ("generic" in shown["bound"]) == (not r.own)
    at.number_input(key="central_delta").set_value(0.9).run()  # beyond the widget's range: refused
    assert at.number_input(key="central_delta").value <= 0.5
