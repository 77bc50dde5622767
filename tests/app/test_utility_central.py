"""The Utility page's comparison at one central guarantee shows the library's numbers
(mechanisms.planning.central), directed as printed everywhere."""
import json
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


def test_error_against_central_eps_is_the_library_comparison_at_each_target():
    """The sweep chart: one line per mechanism over the central eps around the chosen one, each
    point the library's exact MSE at that mechanism's own proved eps0 for that target; a tighter
    target never gives a mechanism a larger eps0 (the inverse is monotone)."""
    at = page("2_Utility.py")
    at.number_input(key="central_eps").set_value(0.5)
    at.toggle(key="central_sweep").set_value(True).run(timeout=900)
    ok(at)
    spec = json.loads(at.get("plotly_chart")[-1].proto.spec)
    assert "each mechanism at its own proved eps0" in spec["layout"]["title"]["text"]
    targets = (0.125, 0.25, 0.5, 1.0, 2.0)
    lib = {e: {r.mechanism: r for r in central_comparison(10_000, 64, 4, e, 1e-6)} for e in targets}
    traces = {t["name"]: t for t in spec["data"]}
    assert len(traces) == len(COMPARED)
    for name in COMPARED:
        tr = traces[appcommon.MECH_LABEL.get(name, name)]
        assert tuple(tr["x"]) == targets
        assert tr["y"] == [lib[e][name].mse_mean for e in targets]
        eps0 = [lib[e][name].eps0 for e in targets]
        assert eps0 == sorted(eps0)
        assert [c[0] for c in tr["customdata"]] == [appcommon.fmt(v, 4, "down") for v in eps0]
