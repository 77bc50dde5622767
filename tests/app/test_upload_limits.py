"""The Amplification page's matrix uploader and its limits: a .npy whose header claims a huge
shape is refused by the header, beside the uploader, with nothing allocated or computed; the
limit the uploader shows (Streamlit's server.maxUploadSize) is the page's, the command line's."""
from __future__ import annotations

import io
import os
import sys
import tomllib

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from accountant.core import limits as L
from tests.paths import REPO_ROOT

APP = os.path.join(REPO_ROOT, "app")
sys.path.insert(0, APP)
import finite_input  # noqa: E402
from tests.app.apptest import ok  # noqa: E402


def _header_only(shape) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False, "shape": shape})
    return buf.getvalue()


def test_npy_header_refused_before_allocating():
    with pytest.raises(ValueError, match="beyond the limit") as exc:
        finite_input.matrix_from_upload("huge.npy", _header_only((100_000, 100_000)))
    assert "'huge.npy'" in str(exc.value) or "100000 inputs" in str(exc.value)


def test_huge_npy_header_shows_the_message_beside_the_uploader():
    at = AppTest.from_file(os.path.join(APP, "pages", "1_Amplification.py"), default_timeout=300).run()
    at.sidebar.selectbox(key="mechanism").set_value(finite_input.UPLOAD_CHOICE).run()
    at.sidebar.get("file_uploader")[0].set_value(
        ("huge.npy", _header_only((100_000, 100_000)), "application/octet-stream")).run()
    ok(at)
    errors = [e.value for e in at.sidebar.error]
    assert len(errors) == 1 and "beyond the limit" in errors[0] and "allocate" not in errors[0]
    assert not at.metric and not at.get("plotly_chart")  # nothing computed


def test_the_uploader_shows_the_true_limit():
    with open(os.path.join(REPO_ROOT, ".streamlit", "config.toml"), "rb") as fh:
        config = tomllib.load(fh)
    assert finite_input.MAX_UPLOAD_BYTES == L.MAX_MATRIX_BYTES
    assert config["server"]["maxUploadSize"] * 2**20 == finite_input.MAX_UPLOAD_BYTES
