"""Issue 44 item 5: every CSV the ``table`` command writes is read as it is by pandas and by
csv.DictReader (header row first, no comment lines, one record per table row); its
provenance is the sidecar NAME.csv.json; the version is the installed distribution's."""
from __future__ import annotations

import csv
import importlib
import importlib.metadata
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from accountant.interfaces import tables
from accountant.interfaces.cli.main import main
from tests.paths import REPO_ROOT

provenance_mod = importlib.import_module("accountant.interfaces.tables.provenance")

GRID = ["--n", "1000,2000", "--eps0", "0.5,1", "--delta", "1e-6", "--workers", "1"]
VARIANTS = {  # name: (extra arguments, rows expected = grid points x bounds for --long)
    "default": ([], 4),
    "columns": (["--columns", "n,eps0,proved_epsilon,clone,stronger-clone"], 4),
    "all-bounds": (["--bounds", "clone,stronger-clone,paper", "--all-bounds"], 4),
    "long": (["--bounds", "clone,paper", "--long"], 8),
    "collision": (["--mechanism", "collision", "--s", "4"], 4),
    "random-hash": (["--mechanism", "collision", "--s", "4", "--hash-model", "random"], 4),
    "random-hash-long": (["--mechanism", "collision", "--s", "4", "--hash-model", "random", "--long",
                          "--bounds", "blanket,lower"], 8),
}


def _table(tmp_path: Path, name: str, capsys) -> tuple[Path, dict]:
    extra, _ = VARIANTS[name]
    out = tmp_path / f"{name}.csv"
    assert main(["table", *GRID, *extra, "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    return out, summary


@pytest.mark.parametrize("name", list(VARIANTS))
def test_pandas_and_dictreader_read_every_csv_the_table_command_writes(tmp_path, capsys, name):
    out, summary = _table(tmp_path, name, capsys)
    expected_rows = VARIANTS[name][1]
    assert summary["rows"] == expected_rows
    text = out.read_text()
    assert not any(ln.startswith("#") for ln in text.splitlines())
    header = text.splitlines()[0].split(",")
    assert header == summary["columns"]
    frame = pd.read_csv(out)  # no arguments: as a user would call it
    assert list(frame.columns) == summary["columns"] and len(frame) == expected_rows
    assert sorted(frame["n"].unique().tolist()) == [1000, 2000]
    assert sorted(frame["eps0"].unique().tolist()) == [0.5, 1.0]
    # a random-hash table says so in every row (no comment line can)
    assert ("hash_model" in header) == name.startswith("random-hash")
    if "hash_model" in header:
        assert set(frame["hash_model"]) == {"random"}
    with out.open(newline="") as fh:
        records = list(csv.DictReader(fh))
    assert len(records) == expected_rows and list(records[0]) == summary["columns"]
    # the provenance is beside it, whole, naming the command that wrote the file
    side = out.with_name(out.name + ".json")
    assert summary["paths"] == [str(out), str(side)]
    meta = json.loads(side.read_text())["meta"]
    assert meta == summary["meta"] and meta["command"].startswith("python -m accountant table --n 1000,2000")
    assert meta["version"] == importlib.metadata.version("shuffle-dp-toolkit") != "unknown"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([out.name, side.name])


def test_csv_and_sidecar_are_written_both_or_neither(tmp_path, monkeypatch):
    rows = [{"n": 1000, "eps0": 1.0, "proved_epsilon": 0.5}]
    path = tmp_path / "t.csv"
    path.write_text("old\n")
    (tmp_path / "t.csv.json").write_text("{}\n")
    from accountant.interfaces import fileio

    real = fileio.os.replace
    calls = []

    def failing_replace(src, dst):  # the second replacement fails: the first is undone
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(fileio.os, "replace", failing_replace)
    with pytest.raises(OSError):
        tables.write_table(rows, str(path), ["n", "eps0", "proved_epsilon"], meta={"command": "x"})
    monkeypatch.setattr(fileio.os, "replace", real)
    assert path.read_text() == "old\n" and (tmp_path / "t.csv.json").read_text() == "{}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv", "t.csv.json"]


def test_dashboard_csv_download_is_the_file_the_command_writes(tmp_path):
    """The Tables page's CSV button calls ``tables.render(rows, ext, columns, digits, meta)``
    with the paper's columns; those bytes equal the file ``write_table`` writes."""
    page = (Path(REPO_ROOT) / "app" / "pages" / "4_Tables.py").read_text()
    assert re.search(r"tables\.render\(rows, ext, columns if ext != \"\.json\" else None, digits, meta\)", page)
    pts = tables.build_grid([1000, 2000], [None], [0.5, 1.0], [1e-6], "generic")
    rows = tables.compute_table(pts, tables.paper_bounds("generic"), workers=1, progress=False)
    meta = tables.provenance("test")
    for digits in (2, 4):
        path = tmp_path / f"t{digits}.csv"
        tables.write_table(rows, str(path), None, digits, meta)
        page_bytes = tables.render(rows, ".csv", tables.default_columns(rows), digits, meta).encode("utf-8")
        assert page_bytes == path.read_bytes()
        assert page_bytes.decode().splitlines()[0] == ",".join(tables.default_columns(rows))


def test_version_is_the_installed_distributions():
    installed = importlib.metadata.version("shuffle-dp-toolkit")
    assert installed != "unknown" and re.fullmatch(r"\d+\.\d+(\.\d+)?\S*", installed)
    assert tables.tool_version() == installed
    assert tables.provenance("x")["version"] == installed
    # the name is the one pyproject.toml declares
    text = (Path(REPO_ROOT) / "pyproject.toml").read_text()
    assert re.search(r'^name = "shuffle-dp-toolkit"$', text, re.M)
    assert provenance_mod.DISTRIBUTION == "shuffle-dp-toolkit"


def test_version_without_installation_comes_from_pyproject(monkeypatch):
    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    text = (Path(REPO_ROOT) / "pyproject.toml").read_text()
    declared = re.search(r'^version = "([^"]+)"$', text, re.M).group(1)
    assert provenance_mod.tool_version() == declared != "unknown"
