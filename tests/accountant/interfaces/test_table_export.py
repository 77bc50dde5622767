"""Exported tables: directed rounding in every text format, provenance in every format,
the long format, column choice, the JSON summary of the command, .tex + .bib both or
neither; figures as PDF and SVG carry their labels."""
import csv
import io
import json
import os
import re
import subprocess
import sys
import zlib
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accountant.interfaces import fileio
from accountant.interfaces import tables
from accountant.bounds.registry import REGISTRY
from accountant.core.numfmt import fmt
from accountant.bounds.references import BIBTEX
from tests.paths import REPO_ROOT

ROOT = Path(REPO_ROOT)


@pytest.fixture(scope="module")
def rows():
    pts = tables.build_grid([2000, 10000], [4], [0.5, 2.0], [1e-6], "collision")
    return tables.compute_table(pts, tables.paper_bounds("collision", ("stronger-clone",)), workers=1,
                                progress=False)


def _dec(text: str) -> Decimal:
    """A printed number (csv, md with separators, tex math) as an exact decimal."""
    t = text.strip().strip("$").replace(",", "").replace(r"\,", "")
    m = re.fullmatch(r"(?:([0-9.]+)\\times)?10\^\{(-?\d+)\}", t)
    if m:
        return Decimal(m.group(1) or "1") * Decimal(10) ** int(m.group(2))
    return Decimal(t)


def _check_directions(parsed: list, src: list, cols: list) -> int:
    """printed >= value for upper columns, printed <= value for lower ones; returns the
    number of directed cells checked."""
    checked = 0
    for prow, row in zip(parsed, src):
        for c, text in zip(cols, prow):
            v, d = row.get(c), tables.column_direction(c, row)
            if not isinstance(v, float) or d is None:
                continue
            p = _dec(text)
            assert (p >= Decimal(v)) if d == "up" else (p <= Decimal(v)), (c, text, v)
            checked += 1
    return checked


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=1e-300, max_value=1e300), st.integers(1, 10))
def test_fmt_directed_rounding(x, digits):
    up, down = fmt(x, digits, "up"), fmt(x, digits, "down")
    assert _dec(down) <= Decimal(x) <= _dec(up)
    assert len(_dec(up).normalize().as_tuple().digits) <= digits
    # one unit in the last place apart at most
    assert _dec(up) - _dec(down) <= Decimal(10) ** (Decimal(x).adjusted() - digits + 2)


@pytest.mark.parametrize("digits", [1, 2, 4, 6])
def test_every_text_format_rounds_in_the_direction_of_the_claim(rows, digits):
    cols = tables.default_columns(rows) + ["clone", "stronger-clone", "log2_ratio[clone]",
                                           "log2_ratio[lower]", "proved_over_lower"]
    directed = {c for c in cols if tables.column_direction(c) is not None}
    assert {"proved_epsilon", "lower_epsilon", "paper_epsilon", "literature_epsilon"} <= directed
    # csv
    text = tables.render(rows, ".csv", cols, digits)
    body = list(csv.reader(io.StringIO(text)))
    assert body[0] == cols
    assert _check_directions(body[1:], rows, cols) >= 8 * len(rows)
    # markdown
    md = [ln for ln in tables.render(rows, ".md", cols, digits).splitlines() if ln.startswith("|")]
    cells = [[c.strip() for c in ln.strip("|").split("|")] for ln in md[2:]]
    assert _check_directions(cells, rows, cols) >= 8 * len(rows)
    # latex (the uniform prior citation moves to the head: same columns otherwise)
    tex = tables.render(rows, ".tex", cols, digits)
    tcols = [c for c in cols if c != "best_literature"] if len({r["best_literature"] for r in rows}) == 1 else cols
    if r"\endfoot" in tex:  # more than 12 columns: a landscape longtable
        lines = tex.split(r"\endfoot")[1].split(r"\end{longtable}")[0].strip().splitlines()
    else:
        lines = tex.split(r"\midrule")[1].split(r"\bottomrule")[0].strip().splitlines()
    tcells = [[c.strip() for c in ln.rstrip("\\ ").split("&")] for ln in lines]
    assert _check_directions(tcells, rows, tcols) >= 8 * len(rows)
    # JSON keeps full precision
    data = json.loads(tables.render(rows, ".json", cols, digits))
    assert [[r[c] for c in cols] for r in data["rows"]] == [[r.get(c) for c in cols] for r in rows]


def test_printed_bounds_are_really_rounded(rows):
    """At 2 digits an upper bound's printed value is strictly above it (not just equal)."""
    text = tables.render(rows, ".csv", ["proved_epsilon", "lower_epsilon"], 2)
    last = text.splitlines()[1:]
    for ln, r in zip(last, rows):
        up, low = (Decimal(x) for x in ln.split(","))
        assert up > Decimal(r["proved_epsilon"]) and low < Decimal(r["lower_epsilon"])


def test_provenance_in_every_format(rows):
    meta = tables.provenance("python -m accountant table --n 2000", rtol=1e-9, method="float")
    assert meta["version"] and meta["date"].endswith("+00:00") and meta["rtol"] == 1e-9
    assert meta["git_commit"] is None or re.fullmatch(r"[0-9a-f]{40}(-dirty)?", meta["git_commit"])
    csv_text = tables.render(rows, ".csv", meta=meta)  # the CSV carries no provenance: its sidecar does
    assert "#" not in csv_text and csv_text.splitlines()[0] == ",".join(tables.default_columns(rows))
    assert json.loads(tables.csv_sidecar(meta)) == {"meta": json.loads(json.dumps(meta))}
    for ext, prefix in ((".tex", "% "),):
        text = tables.render(rows, ext, meta=meta)
        for key in ("tool: accountant", "version: ", "git_commit: ", "command: python -m accountant table --n 2000",
                    "date: ", "rtol: 1e-09", "method: float"):
            assert re.search("^" + re.escape(prefix + key), text, re.M), (ext, key)
    md = tables.render(rows, ".md", meta=meta)
    comment = md.split("-->")[0]
    assert md.startswith("<!--") and "command: python -m accountant table --n 2000" in comment
    assert "rtol: 1e-09" in comment and "method: float" in comment
    data = json.loads(tables.render(rows, ".json", meta=meta))
    assert data["meta"] == json.loads(json.dumps(meta)) and len(data["rows"]) == len(rows)


def test_long_format(rows):
    long = tables.long_rows(rows)
    names = [b for b in REGISTRY if b in rows[0]]
    assert len(long) == len(rows) * len(names)
    for lr in long:
        src = next(r for r in rows if r["n"] == lr["n"] and r["eps0"] == lr["eps0"])
        assert lr["epsilon"] == src[lr["bound"]]
        assert lr["kind"] == REGISTRY[lr["bound"]].kind and lr["proved"] == REGISTRY[lr["bound"]].proved("collision")
        assert list(lr) == list(tables.LONG_FIELDS)
    text = tables.render(rows, ".csv", long=True)
    assert text.splitlines()[0] == ",".join(tables.LONG_FIELDS) and len(text.splitlines()) == len(long) + 1
    # a lower bound's epsilon rounds down, an upper bound's up
    lines = text.splitlines()[1:]
    for ln, lr in zip(lines, long):
        eps = ln.split(",")[tables.LONG_FIELDS.index("epsilon")]
        if lr["epsilon"] is not None:
            assert (_dec(eps) <= Decimal(lr["epsilon"])) if lr["kind"] == "lower" else (_dec(eps) >= Decimal(lr["epsilon"]))


def test_columns_parse_and_refuse():
    assert tables.parse_columns("n,eps0,clone,log2_ratio[blanket]") == ["n", "eps0", "clone", "log2_ratio[blanket]"]
    with pytest.raises(ValueError, match="--columns"):
        tables.parse_columns("n,nonsense")
    assert set(tables.paper_bounds("collision", ["stronger-clone"])) >= {"blanket", "clone", "lower", "paper",
                                                                           "stronger-clone"}


def test_every_cited_key_has_bibtex():
    for spec in REGISTRY.values():
        for key in spec.cite:
            assert re.match(r"@\w+\{" + key + ",", BIBTEX[key])
    assert {"erlingsson2019amplification", "balle2019blanket", "feldman2021hiding", "feldman2023stronger",
            "wang2023numerical", "su2026decomposition"} <= set(BIBTEX)
    for entry in BIBTEX.values():  # balanced braces: bibtex reads every entry whole
        assert entry.count("{") == entry.count("}")


def test_tex_and_bib_both_or_neither(tmp_path, monkeypatch):
    a, b = tmp_path / "t.tex", tmp_path / "t.bib"
    a.write_text("old tex")
    real = os.replace
    calls = []

    def failing(src, dst):
        calls.append(dst)
        if str(dst).endswith(".bib"):
            raise OSError("disk full")
        return real(src, dst)

    monkeypatch.setattr(fileio.os, "replace", failing)
    with pytest.raises(OSError):
        fileio.write_atomic_group([(str(a), "new tex"), (str(b), "new bib")])
    monkeypatch.setattr(fileio.os, "replace", real)
    assert a.read_text() == "old tex" and not b.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.tex"]  # no temporary left
    fileio.write_atomic_group([(str(a), "new tex"), (str(b), "new bib")])
    assert a.read_text() == "new tex" and b.read_text() == "new bib"


def run_cli(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "accountant", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=600)


def test_cli_json_summary_and_columns(tmp_path):
    out = tmp_path / "t.csv"
    r = run_cli("table", "--n", "2000", "--s", "4", "--eps0", "0.5,2", "--delta", "1e-6", "--mechanism",
                "collision", "--columns", "n,eps0,proved_epsilon,clone,stronger-clone", "--digits", "3",
                "--workers", "1", "--out", str(out), "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    assert summary["paths"] == [str(out), str(out) + ".json"] and summary["format"] == "csv"
    assert summary["rows"] == 2
    assert summary["columns"] == ["n", "eps0", "proved_epsilon", "clone", "stronger-clone"]
    assert summary["parameters"]["s"] == [4] and summary["parameters"]["eps0"] == [0.5, 2.0]
    text = out.read_text()
    side = json.loads((tmp_path / "t.csv.json").read_text())
    assert side["meta"]["command"].startswith("python -m accountant table --n 2000")
    header = text.splitlines()[0]
    assert header == "n,eps0,proved_epsilon,clone,stronger-clone"


def test_cli_refuses_bad_columns_before_work(tmp_path):
    out = tmp_path / "t.tex"
    r = run_cli("table", "--n", "2000", "--s", "4", "--eps0", "0.5", "--delta", "1e-6", "--mechanism",
                "collision", "--columns", "n,bogus", "--out", str(out), cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "--columns" in r.stderr
    r = run_cli("table", "--n", "2000", "--eps0", "0.5", "--delta", "1e-6", "--mechanism", "krr",
                "--out", str(out), cwd=tmp_path)
    assert r.returncode == 2 and "--k" in r.stderr
    r = run_cli("table", "--n", "2000", "--s", "4", "--eps0", "0.5", "--delta", "1e-6", "--mechanism",
                "collision", "--digits", "0", "--out", str(out), cwd=tmp_path)
    assert r.returncode == 2 and "--digits" in r.stderr
    assert list(tmp_path.iterdir()) == []


def test_cli_long_and_all_bounds_tex(tmp_path):
    r = run_cli("table", "--n", "2000", "--s", "4", "--eps0", "0.5", "--delta", "1e-6", "--mechanism",
                "collision", "--all-bounds", "--workers", "1", "--out", "w.tex", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    tex = (tmp_path / "w.tex").read_text()
    assert r"\begin{longtable}" in tex and r"\begin{landscape}" in tex and r"\usepackage{pdflscape}" in tex
    assert len(json.loads(r.stdout)["columns"]) > 20
    r = run_cli("table", "--n", "2000", "--s", "4", "--eps0", "0.5", "--delta", "1e-6", "--mechanism",
                "collision", "--long", "--workers", "1", "--out", "l.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "l.json").read_text())
    assert set(data["meta"]) >= {"version", "git_commit", "command", "date", "rtol", "method"}
    assert len(data["rows"]) == len(REGISTRY) and set(data["rows"][0]) == set(tables.LONG_FIELDS)


# --------------------------------------------------------------------------- figures
def _pdf_text(data: bytes) -> str:
    """Text of a Chromium PDF: ToUnicode maps applied to the hex strings of the content
    streams (enough to find labels; no PDF library needed)."""
    streams = []
    for m in re.finditer(rb"stream\r?\n", data):
        raw = data[m.end():data.find(b"endstream", m.end())]
        try:
            streams.append(zlib.decompress(raw))
        except zlib.error:
            streams.append(raw)
    cmap = {}
    for s in streams:
        for blk in re.findall(rb"beginbfchar(.*?)endbfchar", s, re.S):
            for a, b in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", blk):
                cmap.setdefault(int(a, 16), bytes.fromhex(b.decode()).decode("utf-16-be"))
        for blk in re.findall(rb"beginbfrange(.*?)endbfrange", s, re.S):
            for a, b, c in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", blk):
                for i in range(int(a, 16), int(b, 16) + 1):
                    cmap.setdefault(i, chr(int(c, 16) + i - int(a, 16)))
    out = []
    for s in streams:
        if b"TJ" in s or b"Tj" in s:
            for h in re.findall(rb"<([0-9A-Fa-f]+)>", s):
                h = h.decode()
                out.append("".join(cmap.get(int(h[i:i + 4], 16), "?") for i in range(0, len(h), 4)))
    return "".join(out).replace("\ufb01", "fi")


LABELS = ("clone (FMT21)", "privacy blanket, exact (proved)", "log2(eps0 / eps_c)", "local budget eps0",
          "n = 2,000, s = 4")


@pytest.mark.parametrize("ext", [".pdf", ".svg"])
def test_figure_vector_formats_carry_the_labels(tmp_path, ext):
    out = tmp_path / f"f{ext}"
    r = run_cli("figure", "--out", str(out), "--n", "2000", "--s", "4", "--eps0", "0.5,1,2",
                "--bounds", "blanket,clone,paper", "--workers", "1", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["format"] == ext[1:]
    data = out.read_bytes()
    if ext == ".pdf":
        assert data.startswith(b"%PDF-")
        assert b"/FontFile" in data  # fonts embedded
        width = float(re.search(rb"/MediaBox\s*\[\s*0 0 ([0-9.]+)", data).group(1))
        assert abs(width - 3.5 * 72) < 1.0  # one column (3.5 in) wide
        text = _pdf_text(data)
    else:
        import xml.etree.ElementTree as ET

        root = ET.fromstring(data)
        assert root.tag.endswith("svg") and abs(float(root.get("width")) - 3.5 * 96) < 1.0
        text = " ".join("".join(el.itertext()) for el in root.iter() if el.tag.endswith("text"))
    for label in LABELS:
        assert label in text, (label, text[:500])
    assert "delta = 1e-6" in text  # the title's number through accountant.core.numfmt.fmt
    assert list(tmp_path.iterdir()) == [out]


def test_latex_zip_for_the_dashboard(rows):
    import zipfile

    meta = tables.provenance("dashboard")
    data = tables.latex_zip(rows, "bounds_collision", meta=meta)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert sorted(zf.namelist()) == ["bounds_collision.bib", "bounds_collision.tex"]
        tex, bib = zf.read("bounds_collision.tex").decode(), zf.read("bounds_collision.bib").decode()
    assert "% command: dashboard" in tex and r"\bibliography{bounds_collision}" in tex
    for key in tables.cited_keys(rows, tables.default_columns(rows)):
        assert r"\cite{" in tex and ("@misc{" + key in bib or "@inproceedings{" + key in bib)


def test_table_takes_olh_and_oue_by_their_domain_size(tmp_path):
    # the frequency oracles join the grids (one row per n, k, eps0); the proved number is
    # their exact blanket and the lower bound sits below it
    r = run_cli("table", "--n", "10000", "--eps0", "1,2", "--delta", "1e-6", "--mechanism", "oue",
                "--k", "100", "--out", "o.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = json.loads((tmp_path / "o.json").read_text())["rows"]
    assert [(x["k"], x["eps0"]) for x in rows] == [(100, 1.0), (100, 2.0)]
    assert all(x["best_proved"] == "blanket" and 0 < x["lower_epsilon"] < x["proved_epsilon"] for x in rows)
    r = run_cli("table", "--n", "10000", "--eps0", "1", "--delta", "1e-6", "--mechanism", "olh",
                "--out", "o.csv", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.startswith("error: --k is required for mechanism 'olh'")



def test_table_takes_variation_ratio_by_its_parameters(tmp_path):
    """A grid over n and delta at one (p, beta, q); eps0 = ln p; the clone with mixing 1/q and
    the exact three-output lower bound.  With the parameters of k-RR (p = q = e^eps0, beta =
    (e^eps0 - 1)/(e^eps0 + k - 1)) the clone is the same pair as k-RR's clone (FMT21's clone
    depends only on eps0), so its eps_c is the same number."""
    import math

    from accountant import compare

    e0, k = 2.0, 4
    p, beta = math.exp(e0), (math.exp(e0) - 1) / (math.exp(e0) + k - 1)
    r = run_cli("table", "--n", "10000,100000", "--delta", "1e-6,1e-8", "--mechanism",
                "variation-ratio", "--p", repr(p), "--beta", repr(beta), "--out", "v.json",
                "--workers", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = json.loads((tmp_path / "v.json").read_text())["rows"]
    assert [(x["n"], x["delta"]) for x in rows] == [(10000, 1e-6), (10000, 1e-8), (100000, 1e-6),
                                                    (100000, 1e-8)]
    for x in rows:
        assert x["eps0"] == pytest.approx(e0, rel=1e-15) and x["q"] == x["p"] == p
        assert x["best_proved"] == "clone" and x["paper_epsilon"] is None
        krr = compare(x["n"], e0, x["delta"], "krr", bounds=("clone",), k=k)["clone"]
        assert x["proved_epsilon"] == pytest.approx(krr.epsilon, rel=1e-12)
        assert 0 < x["lower_epsilon"] < x["proved_epsilon"]
    # n = 10,000, delta = 1e-6: 0.1551 (clone), the lower bound 0.1143
    assert rows[0]["proved_epsilon"] == pytest.approx(0.1551, abs=1e-4)
    # a smaller q (more mixing) gives a smaller clone bound
    r = run_cli("table", "--n", "10000", "--delta", "1e-6", "--mechanism", "variation-ratio",
                "--p", repr(p), "--beta", repr(beta), "--q", "3", "--out", "w.json", "--workers", "1",
                cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "w.json").read_text())["rows"][0]["proved_epsilon"] < rows[0]["proved_epsilon"]
    for args, msg in [
        (["--eps0", "1", "--p", "3", "--beta", "0.2"], "error: --eps0 does not apply to --mechanism variation-ratio"),
        (["--p", "3"], "error: --beta is required for --mechanism variation-ratio"),
        (["--p", "3", "--beta", "0.9"], "error: --beta must be"),
    ]:
        r = run_cli("table", "--n", "10000", "--delta", "1e-6", "--mechanism", "variation-ratio",
                    *args, "--out", "o.csv", cwd=tmp_path)
        assert r.returncode == 2 and r.stderr.startswith(msg), r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
    r = run_cli("table", "--n", "10000", "--eps0", "1", "--delta", "1e-6", "--mechanism", "krr",
                "--k", "4", "--p", "3", "--out", "o.csv", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.startswith("error: --p applies to --mechanism variation-ratio only")
    r = run_cli("table", "--n", "10000", "--delta", "1e-6", "--out", "o.csv", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.startswith("error: --eps0 is required")


def test_local_epsilon_refuses_variation_ratio_and_says_what_to_do(tmp_path):
    r = run_cli("local-epsilon", "--n", "10000", "--eps", "0.5", "--delta", "1e-6", "--mechanism",
                "variation-ratio", "--p", "3", "--beta", "0.2", cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "--p fixes eps0 = ln p" in r.stderr and "instead run epsilon" in r.stderr
