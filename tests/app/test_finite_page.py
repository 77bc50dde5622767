"""Finite randomizers on the Amplification page (streamlit.testing, no browser): a catalogue member
gives the command line's headline for the same matrix, an uploaded matrix its headline and a chart
over n, and a bad file a message beside the uploader with nothing computed; the parsing function
the page calls (bytes -> FiniteRandomizer) refuses each problem with its reason."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import streamlit  # noqa: F401  (the page's framework: a plain import, no skip)
from streamlit.testing.v1 import AppTest

from accountant import ShuffleAccountant
from tests.paths import REPO_ROOT

APP = os.path.join(REPO_ROOT, "app")
sys.path.insert(0, APP)
import common as appcommon  # noqa: E402
import finite_input  # noqa: E402
from tests.app.test_app import metric, ok  # noqa: E402

THREE = {"name": "three-way", "inputs": ["red", "green", "blue"],
         "matrix": [[0.6, 0.3, 0.1], [0.2, 0.6, 0.2], [0.1, 0.3, 0.6]]}
HEAD = "eps_c, proved upper bound"


def amplification() -> AppTest:
    at = AppTest.from_file(os.path.join(APP, "pages", "1_Amplification.py"), default_timeout=300).run()
    ok(at)
    return at


def cli_epsilon(*argv) -> dict:
    r = subprocess.run([sys.executable, "-m", "accountant", "epsilon", *argv, "--json"], capture_output=True,
                       text=True, env={**os.environ, "PYTHONPATH": REPO_ROOT}, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_catalogue_member_gives_the_cli_headline():
    at = amplification()
    at.sidebar.selectbox(key="mechanism").set_value(finite_input.CATALOGUE_CHOICE).run()
    at.sidebar.selectbox(key="fin_catalogue").set_value("hadamard-response")
    at.sidebar.number_input(key="fin_k").set_value(7)
    at.sidebar.number_input(key="pts").set_value(3)
    at.run()
    ok(at)
    cli = cli_epsilon("--n", "1e5", "--delta", "1e-6", "--mechanism", "finite", "--catalogue",
                      "hadamard-response", "--k", "7", "--eps0", "1")
    assert metric(at, HEAD) == appcommon.fmt(cli["epsilon"], 6, "up")
    text = " ".join(m.value for m in at.markdown)
    assert f"certified lower bound **{appcommon.fmt(cli['lower_epsilon'], 6, 'down')}**" in text
    assert "lies in [" in text  # the bracket
    assert len(at.get("plotly_chart")) == 2  # eps_c against eps0 and the amplification ratio
    df = at.dataframe[-1].value
    assert len(df) == 3 and (df["proved eps_c"].astype(float) >= df["lower eps_c"].astype(float)).all()


def test_uploaded_matrix_headline_and_chart_over_n():
    at = amplification()
    at.sidebar.selectbox(key="mechanism").set_value(finite_input.UPLOAD_CHOICE).run()
    assert any("Upload the randomizer's probability matrix" in i.value for i in at.sidebar.info)
    at.sidebar.get("file_uploader")[0].set_value(("three.json", json.dumps(THREE).encode(), "application/json"))
    at.sidebar.number_input(key="pts").set_value(3)
    at.run()
    ok(at)
    from accountant import FiniteRandomizer

    R = FiniteRandomizer(THREE["matrix"], inputs=THREE["inputs"], label="three-way")
    assert metric(at, HEAD) == appcommon.fmt(ShuffleAccountant(R, 10**5).get_epsilon(1e-6), 6, "up")
    assert any("so the chart is over n" in c.value for c in at.caption)
    assert any(c.value.startswith("three-way: 3 inputs x 3 outputs") for c in at.sidebar.caption)
    assert "D = (red, red, ..., red)" in " ".join(m.value for m in at.markdown)
    df = at.dataframe[-1].value
    assert list(df["n"].astype(str).str.replace(",", "").astype(int)) == [100, 10**5, 10**8]


@pytest.mark.parametrize("name,content,words", [
    ("bad.json", b"[[0.5, 0.6], [0.5, 0.5]]", "row 0 sums to 1.1 (off by +0.1)"),
    ("bad.csv", b"0.5,0.5\n0.5", "ragged"),
    ("bad.json", b"{oops", "'bad.json' is not valid JSON"),
])
def test_bad_upload_shows_the_message_beside_the_uploader(name, content, words):
    at = amplification()
    at.sidebar.selectbox(key="mechanism").set_value(finite_input.UPLOAD_CHOICE).run()
    at.sidebar.get("file_uploader")[0].set_value((name, content, "application/octet-stream")).run()
    ok(at)
    errors = [e.value for e in at.sidebar.error]
    assert len(errors) == 1 and words in errors[0]
    assert not at.metric and not at.get("plotly_chart")  # nothing computed
    assert any("Fix the inputs" in w.value for w in at.warning)


def test_uploaded_matrix_that_is_not_pure_ldp_gets_its_blanket_bound():
    """A zero beside positive entries: the headline is the command line's blanket bound (outside
    outputs counted in full), the certified lower bound is shown with its datasets, the chart is drawn."""
    at = amplification()
    at.sidebar.selectbox(key="mechanism").set_value(finite_input.UPLOAD_CHOICE).run()
    with open(os.path.join(REPO_ROOT, "docs", "examples", "rare-output.json"), "rb") as fh:
        data = fh.read()
    at.sidebar.get("file_uploader")[0].set_value(("rare-output.json", data, "application/json"))
    at.sidebar.number_input(key="pts").set_value(3)
    at.run()
    ok(at)
    cli = cli_epsilon("--n", "1e5", "--delta", "1e-6", "--mechanism", "finite", "--matrix",
                      os.path.join(REPO_ROOT, "docs", "examples", "rare-output.json"))
    assert metric(at, HEAD) == appcommon.fmt(cli["epsilon"], 6, "up")
    assert any("eps0 = inf (not pure LDP)" in c.value for c in at.sidebar.caption)
    shown = " ".join(str(x.value) for part in (at.markdown, at.caption, at.info, at.warning) for x in part)
    # the certified lower bound counts the outputs x0 cannot produce in full: it is shown, with its datasets
    assert "lower bound" in shown and "D = (" in shown and "not available" not in shown.split("lower bound")[1][:40]
    assert len(at.get("plotly_chart")) >= 1


def test_parsing_function_refuses_each_problem(tmp_path):
    good = finite_input.matrix_from_upload("m.csv", b"0.75,0.25\n0.25,0.75\n")
    assert good.k == 2 and good.label == "m" and abs(good.eps0 - np.log(3)) < 1e-12
    buf = tmp_path / "m.npy"
    np.save(buf, np.array([[0.75, 0.25], [0.25, 0.75]]))
    assert finite_input.matrix_from_upload("m.npy", buf.read_bytes()) == good
    with pytest.raises(ValueError, match=f"beyond the page's limit of {finite_input.MAX_UPLOAD_BYTES:,}"):
        finite_input.matrix_from_upload("big.json", b" " * (finite_input.MAX_UPLOAD_BYTES + 1))
    with pytest.raises(ValueError, match="must end in .json, .csv or .npy"):
        finite_input.matrix_from_upload("m.txt", b"[[1]]")
    with pytest.raises(ValueError, match="is empty"):
        finite_input.matrix_from_upload("m.json", b"")
    with pytest.raises(ValueError, match="beyond the limit"):
        finite_input.matrix_from_upload("huge.npy", _npy(np.full((2, 2_000_001), 1 / 2_000_001)))


def _npy(arr) -> bytes:
    import io

    b = io.BytesIO()
    np.save(b, arr)
    return b.getvalue()
