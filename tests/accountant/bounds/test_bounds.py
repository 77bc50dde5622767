"""Comparison bounds side by side, tables and exports."""
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from accountant.bounds.registry import BOUND_NAMES, compare, compute_bound
from accountant.engines.pair.law import DominatingPair
from accountant.engines.pair.divergence import hockey_stick_bruteforce
from accountant import CollisionParams
from accountant.interfaces import tables
from tests.paths import REPO_ROOT

ROOT = Path(REPO_ROOT)


def test_names_are_the_contract():
    assert BOUND_NAMES == ("blanket", "lower", "lower-worst-hash", "paper", "theorem6-lower", "stronger-clone",
                           "stronger-clone-closed", "clone", "clone-closed", "blanket-hoeffding-generic",
                           "blanket-bennett-generic", "blanket-hoeffding", "blanket-bennett", "efmrtt19",
                           "exact", "search", "clone-approximate")


def test_proof_status_is_data():
    from accountant.bounds.registry import REGISTRY, proved_upper_bounds, resolve_name

    assert resolve_name("tight") == "paper"
    assert "paper" not in proved_upper_bounds("collision")
    assert "stronger-clone" not in proved_upper_bounds("generic")  # FMT23 erratum
    assert proved_upper_bounds("collision")[0] == "blanket" and "clone" in proved_upper_bounds("coco")
    assert "blanket" not in proved_upper_bounds("generic")
    assert set(proved_upper_bounds("krr")) == set(proved_upper_bounds("collision"))
    for name, spec in REGISTRY.items():
        assert spec.kind in ("upper", "lower", "paper", "exact") and spec.reference
        assert set(spec.proved_for) <= set(spec.applies_to), name


def test_clone_bound_against_brute_force():
    """Numerical clone bound: the certified eps really gives delta <= target on the
    brute-force enumerated FMT21 pair, and slightly less eps does not."""
    n, eps0, delta = 40, 1.0, 1e-3
    r = compute_bound("clone", n, eps0, delta)
    pair = DominatingPair.clone(n, eps0)
    assert hockey_stick_bruteforce(pair, r.epsilon) <= delta * (1 + 1e-9)
    assert hockey_stick_bruteforce(pair, r.epsilon * (1 - 1e-6)) > delta


def test_clone_pair_definition():
    # FMT21: C ~ Bin(n-1, e^-eps0), extra count Bernoulli(e^eps0/(e^eps0+1)), no (0,0) mass
    pair = DominatingPair.clone(100, 2.0)
    assert pair.c == pytest.approx(math.exp(-2.0))
    assert pair.p == pytest.approx(math.exp(2) / (math.exp(2) + 1))
    assert pair.q == pytest.approx(1 / (math.exp(2) + 1)) and pair.r == 0.0


@pytest.mark.parametrize("n", [10_000, 100_000])
@pytest.mark.parametrize("eps0", [0.3, 1.0, 3.0, 5.0])
@pytest.mark.parametrize("s", [4, 64])
def test_laws_on_figure2_points(n, eps0, s):
    t = math.floor(s * math.exp(eps0) + 2 * s - 1)
    res = compare(n, eps0, 1e-6, "collision", s, t, d=3 * s)
    assert all(r.seconds is not None for r in res.values())
    assert all(r.name == name for name, r in res.items())
    for name, r in res.items():
        if r.applicable:
            assert r.epsilon is not None and 0 <= r.epsilon <= eps0, name
        else:
            assert r.epsilon is None and r.reason, name
    if t >= 3 * s:
        assert res["theorem6-lower"].applicable
        assert res["theorem6-lower"].epsilon <= res["paper"].epsilon
    assert res["paper"].epsilon <= res["stronger-clone"].epsilon  # t >= 2s here
    # the exact blanket: proved, never above its Hoeffding/Bennett relaxations, at most a
    # hair above the paper's pair value; the certified lower bound below it
    assert res["blanket"].epsilon <= res["blanket-bennett"].epsilon * (1 + 1e-9)
    assert res["blanket"].epsilon <= res["blanket-hoeffding"].epsilon * (1 + 1e-9)
    assert res["paper"].epsilon * (1 - 1e-6) <= res["blanket"].epsilon <= 1.05 * res["paper"].epsilon
    assert res["lower"].epsilon <= res["blanket"].epsilon
    # the numerical clone reduction is weaker than the stronger clone reduction
    assert res["stronger-clone"].epsilon <= res["clone"].epsilon * (1 + 1e-9)


def test_not_applicable_cases():
    r = compute_bound("efmrtt19", 10_000, 1.0, 1e-6)
    assert not r.applicable and "eps0" in r.reason
    r = compute_bound("blanket-bennett", 10_000, 1.0, 1e-6)  # generic: needs collision/coco
    assert not r.applicable and "collision" in r.reason
    r = compute_bound("theorem6-lower", 10_000, 1.0, 1e-6, "collision", 4, 11)  # t < 3s
    assert not r.applicable and "t >= 3s" in r.reason
    r = compute_bound("theorem6-lower", 10_000, 1.0, 1e-6)
    assert not r.applicable
    r = compute_bound("blanket", 10_000, 1.0, 1e-6)  # no worst-case law for a generic randomizer
    assert not r.applicable and "generic" in r.reason
    with pytest.raises(ValueError, match="bound must be one of"):
        compute_bound("nonsense", 100, 1.0, 1e-6)


def test_paper_matches_pair_accountant():
    from accountant import PairAccountant

    r = compute_bound("tight", 50_000, 2.0, 1e-7, "collision", 8, None)  # deprecated alias
    assert r.name == "paper"
    assert r.epsilon == PairAccountant(CollisionParams(s=8, eps0=2.0), 50_000).get_epsilon(1e-7)
    assert r.achieved_delta <= 1e-7


def test_parse_list():
    assert tables.parse_list("0.1:0.5:5") == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5])
    assert tables.parse_list("10000,100000", int) == [10000, 100000]
    with pytest.raises(ValueError, match="n must be integers"):
        tables.parse_list("1.5", int, "n")
    with pytest.raises(ValueError):
        tables.parse_list("a:b", float, "eps0")


def _small_grid():
    return tables.build_grid([2000], [4], [0.5, 2.0], [1e-6], "collision", "paper")


def test_rows_and_savings():
    rows = tables.compute_table(_small_grid(), workers=1, progress=False)
    for r in rows:
        assert r["t"] == math.floor(4 * math.exp(r["eps0"]) + 7)
        assert r["log2_ratio[paper]"] == pytest.approx(math.log2(r["eps0"] / r["paper"]))
        proved = ("clone", "clone-closed", "blanket-hoeffding-generic", "blanket-bennett-generic",
                  "blanket-hoeffding", "blanket-bennett", "efmrtt19")
        best = min(r[b] for b in proved if r[b] is not None)
        assert r["proved_epsilon"] == r["blanket"] and r["best_proved"] == "blanket"
        assert r["saving_percent"] == pytest.approx(100 * (best - r["blanket"]) / best)
        assert r["saving_percent"] > 0
        assert r["lower_epsilon"] <= r["proved_epsilon"] and r["proved_over_lower"] >= 1


def test_workers_and_dask_give_the_same_rows():
    pts = _small_grid()
    bounds = ("paper", "clone", "efmrtt19")
    serial = tables.compute_table(pts, bounds, workers=1, progress=False)
    parallel = tables.compute_table(pts, bounds, workers=2, progress=False)
    assert serial == parallel
    from dask.distributed import LocalCluster

    # a real scheduler listening on loopback, reached by the client through its tcp://
    # address (the worker runs in-process: spawning worker processes from inside a long
    # pytest session proved fragile)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, host="127.0.0.1",
                      protocol="tcp", dashboard_address=None) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        viadask = tables.compute_table(pts, bounds, scheduler=cluster.scheduler_address, progress=False)
    assert viadask == serial


@pytest.mark.parametrize("ext", [".csv", ".json", ".md", ".tex"])
def test_exports(tmp_path, ext):
    rows = tables.compute_table(_small_grid(), ("clone", "paper"), workers=1, progress=False)
    path = tmp_path / f"t{ext}"
    written = tables.write_table(rows, str(path), meta=tables.provenance("test"))
    text = path.read_text()
    # no temp file left; a .tex table has its .bib beside it
    expected = {path.name} | ({"t.bib"} if ext == ".tex" else {"t.csv.json"} if ext == ".csv" else set())
    assert {p.name for p in tmp_path.iterdir()} == expected == {os.path.basename(w) for w in written}
    if ext == ".json":
        data = json.loads(text)
        assert data["rows"][0]["paper"] == rows[0]["paper"] and data["meta"]["command"] == "test"
    elif ext == ".csv":
        lines = text.strip().splitlines()  # header first, no comment lines
        assert json.loads((tmp_path / "t.csv.json").read_text())["meta"]["command"] == "test"
        # the proved number comes first, before the paper's value; printed rounded up
        assert len(lines) == 3 and lines[0].startswith("n,t,eps0,proved_epsilon,lower_epsilon,paper_epsilon")
        assert rows[0]["clone"] == rows[0]["proved_epsilon"] <= float(lines[1].split(",")[3])
    elif ext == ".md":
        assert text.startswith("<!--") and "| n | t | eps0 | eps_c (proved) |" in text
    else:
        assert "\\begin{table}" in text and "\\toprule" in text and "\\cite{wang2023numerical}" in text
        assert "wang2023numerical" in (tmp_path / "t.bib").read_text()


def run_cli(*args, cwd=ROOT):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "accountant", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=600)


def test_compare_cli_json():
    r = run_cli("compare", "--n", "1e4", "--eps0", "1", "--delta", "1e-6", "--mechanism", "collision",
                "--s", "4", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert set(out["bounds"]) == set(BOUND_NAMES)
    for v in out["bounds"].values():
        assert set(v) >= {"epsilon", "applicable", "reason", "seconds"}
    assert out["bounds"]["efmrtt19"] == {**out["bounds"]["efmrtt19"], "epsilon": None, "applicable": False}


def test_epsilon_cli_with_bound():
    r = run_cli("epsilon", "--n", "1e4", "--eps0", "1", "--delta", "1e-6", "--bound", "clone", "--json")
    out = json.loads(r.stdout)
    assert out["bound"] == "clone" and out["applicable"] and out["epsilon"] == pytest.approx(
        compute_bound("clone", 10_000, 1.0, 1e-6).epsilon)


def test_table_cli_and_bad_output(tmp_path):
    out = tmp_path / "grid.md"
    r = run_cli("table", "--n", "2000", "--s", "4", "--eps0", "0.5,2", "--delta", "1e-6", "--mechanism",
                "collision", "--bounds", "paper,clone", "--out", str(out), "--workers", "1")
    assert r.returncode == 0, r.stderr
    # only two bounds: the saving over the best published bound is not computed, and said so
    assert out.exists() and "no saving" in r.stdout and "--bounds" in r.stdout
    bad = tmp_path / "grid.xlsx"
    r = run_cli("table", "--n", "2000", "--s", "4", "--eps0", "0.5", "--delta", "1e-6", "--mechanism",
                "collision", "--out", str(bad))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "out" in r.stderr
    assert not bad.exists()
    r = run_cli("table", "--n", "2000", "--s", "4", "--eps0", "0.5", "--delta", "1e-6", "--mechanism",
                "coco", "--t-rule", "fixed:9", "--out", str(tmp_path / "x.csv"))
    assert r.returncode == 2 and "even" in r.stderr
    assert not (tmp_path / "x.csv").exists()


def _small_figure(out):
    """``figure`` at n = 2000, s = 4, three eps0 and two bounds, written to ``out``."""
    r = run_cli("figure", "--out", str(out), "--n", "2000", "--s", "4", "--eps0", "0.5,1,2",
                "--bounds", "paper,stronger-clone", "--workers", "1")
    assert r.returncode == 0, r.stderr


def test_figure_html(tmp_path):
    out = tmp_path / "fig.html"
    _small_figure(out)
    html = out.read_text()
    assert "plotly" in html.lower() and "log2(eps0" in html and "local budget eps0" in html


def test_figure_png(tmp_path):
    out = tmp_path / "fig.png"
    _small_figure(out)
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    assert [p.name for p in tmp_path.iterdir()] == ["fig.png"]


def test_clone_at_its_cost_limit_is_evaluated_at_fewer_users():
    """n = 1e10, eps0 = 1, delta = 5e-8: the clone's window is over its cost limit at n; the
    bound at n / 2 holds (the worst case is non-increasing in n) and is far below eps0 and
    below the Bennett blanket bound that answered before (1.2566e-4)."""
    from accountant import compute_bound, make_params
    from accountant.bounds.registry import clone_delta


    p = make_params("generic", 1.0)
    r = compute_bound("clone", 10 ** 10, 1.0, 5e-8)
    half = compute_bound("clone", 5 * 10 ** 9, 1.0, 5e-8)
    assert r.epsilon == half.epsilon < 1.2566e-4 and "evaluated at n = 5000000000" in r.reason
    lo, up = clone_delta(p, 10 ** 10, 1e-4)
    assert up < 1e-10 and 0 <= lo <= up
