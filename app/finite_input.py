"""The Amplification page's finite randomizers: a catalogue member (eps0 free, chart over eps0) or
an uploaded probability matrix (.json, .csv, .npy; eps0 fixed, chart over n), parsed and refused
beside the inputs before any work.  No formula lives here: the matrix is read by
``accountant.load_matrix`` and every number comes from the accountant.
"""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
from typing import Optional

import streamlit as st

from accountant import FiniteRandomizer, ShuffleAccountant, load_matrix
from accountant.bounds import published as _published
from accountant.bounds.registry import BOUND_NAMES, proved_upper_bounds
from accountant.core import limits as L
from accountant.core.catalogue import CATALOGUE, catalogue_randomizer
from accountant.interfaces import tables as _tables

CATALOGUE_CHOICE = "finite-catalogue"
UPLOAD_CHOICE = "finite-upload"
CHOICES = (CATALOGUE_CHOICE, UPLOAD_CHOICE)
LABELS = {CATALOGUE_CHOICE: "finite (catalogue)", UPLOAD_CHOICE: "finite (upload a matrix)"}
#: the largest file the page reads: the command line's limit (a matrix at the size limit,
#: 4,000,000 entries, fits as .npy); Streamlit's own upload limit (.streamlit/config.toml,
#: server.maxUploadSize, in MB) is set to it, so the uploader shows the true limit
MAX_UPLOAD_BYTES = L.MAX_MATRIX_BYTES
EXTENSIONS = (".json", ".csv", ".npy")
#: the bounds of a finite randomizer's curves: its proved upper bounds and the certified lower bound
CURVE_BOUNDS = tuple(b for b in BOUND_NAMES if b in proved_upper_bounds("finite") or b == "lower")


def matrix_from_upload(name: str, data: bytes) -> FiniteRandomizer:
    """The randomizer of an uploaded file's bytes (``name`` gives the format by its extension),
    read by :func:`accountant.load_matrix`; every problem a ``ValueError`` starting with
    ``matrix:`` that names it (which row and by how much, the size limit, the format).  A matrix
    that is not pure LDP is accepted: its blanket bound answers, as on the command line."""
    ext = os.path.splitext(name or "")[1].lower()
    if ext not in EXTENSIONS:
        raise ValueError(f"matrix: {name!r}: the file must end in .json, .csv or .npy")
    if len(data) > MAX_UPLOAD_BYTES:
        raise ValueError(f"matrix: {name!r} has {len(data):,} bytes, beyond the page's limit of "
                         f"{MAX_UPLOAD_BYTES:,} (use python -m accountant ... --matrix FILE)")
    if not data:
        raise ValueError(f"matrix: {name!r} is empty")
    # the file's own name labels the randomizer (a JSON "name" takes precedence, as on the CLI)
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", os.path.splitext(os.path.basename(name))[0])[:64] or "uploaded"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, stem + ext)
        with open(path, "wb") as fh:
            fh.write(data)
        try:
            R = load_matrix(path)
        except ValueError as exc:
            raise ValueError(str(exc).replace(path, repr(name))) from None
    return R


def sidebar(choice: str, where) -> Optional[dict]:
    """The inputs of a finite choice in ``where`` (the sidebar); None (with the message shown
    there) until they are valid.  Returns ``{"build": eps0 -> FiniteRandomizer}`` for a catalogue
    member, ``{"randomizer": R}`` for an uploaded matrix, and its ``"label"``."""
    if choice == CATALOGUE_CHOICE:
        name = where.selectbox("Randomizer", sorted(CATALOGUE), key="fin_catalogue")
        k = int(where.number_input("k (inputs)", min_value=2, max_value=4096, value=8, key="fin_k"))
        extra = {}
        for opt in CATALOGUE[name][1]:
            v = int(where.number_input(f"{opt} (0: the default rule)", min_value=0, max_value=2**31 - 2,
                                       value=0, key=f"fin_{opt}"))
            if v:
                extra[opt] = v

        def build(eps0: float) -> FiniteRandomizer:
            return catalogue_randomizer(name, k, float(eps0), **extra)

        try:
            build(1.0)  # the size limit and the options, before any work
        except ValueError as exc:
            where.error(str(exc))
            return None
        return {"build": build, "label": f"{name}, k = {k:,}"}
    up = where.file_uploader("Probability matrix (.json, .csv, .npy)", type=[e[1:] for e in EXTENSIONS],
                             key="fin_file",
                             help="rows: inputs, columns: outputs, each row sums to 1 (docs/finite.md); "
                                  f"at most {MAX_UPLOAD_BYTES // 2**20} MB")
    if up is None:
        where.info("Upload the randomizer's probability matrix to see its bounds.")
        return None
    try:
        R = matrix_from_upload(up.name, up.getvalue())
    except ValueError as exc:
        where.error(str(exc))
        return None
    where.caption(R.describe())
    return {"randomizer": R, "label": R.describe()}


def _fingerprint(R: FiniteRandomizer) -> str:
    h = hashlib.sha256(R.matrix.tobytes())
    h.update(repr((R.matrix.shape, R.inputs, R.outputs, R.label)).encode())
    return h.hexdigest()


@st.cache_data(show_spinner=False, max_entries=200)
def _result(key: str, n: int, delta: float, _R: FiniteRandomizer) -> dict:
    rep = ShuffleAccountant(_R, n).epsilon_result(delta)
    best = _published.best_published_proved(_R, n, delta)
    return {"epsilon": rep.epsilon, "bound": rep.bound, "achieved_delta": rep.achieved_delta,
            "lower_epsilon": rep.lower_epsilon, "lower_reason": rep.lower_reason,
            "lower_dataset": rep.lower_dataset, "lower_hash_model": rep.lower_hash_model,
            "paper_epsilon": rep.paper_epsilon, "paper_caveat": rep.paper_caveat, "t": None,
            "worst_hash_epsilon": None, "worst_hash_reason": None, "worst_hash_dataset": None,
            "published_name": None if best is None else best[0],
            "published_epsilon": None if best is None else best[1].epsilon}


def epsilon_result(R: FiniteRandomizer, n: int, delta: float) -> dict:
    """The headline numbers of ``R`` (the keys of the page's ``common.epsilon_result``), cached by
    the matrix's fingerprint."""
    return _result(_fingerprint(R), int(n), float(delta), R)


def randomizer(fin: dict, eps0: Optional[float] = None) -> FiniteRandomizer:
    """The uploaded matrix, or the catalogue member at ``eps0``."""
    return fin["randomizer"] if "randomizer" in fin else fin["build"](eps0)


def grid_over_eps0(fin: dict, n: int, eps0s, delta: float) -> list:
    """The chart's points of a catalogue member: its matrix at each eps0 (eps0 of a row is the
    matrix's own)."""
    return _tables.finite_grid([n], [delta], [fin["build"](e) for e in eps0s])
