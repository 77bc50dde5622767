"""Every mechanism at one proved central guarantee (mechanisms.planning.central): each eps0 is
the inverse of the forward command's number (its certified eps_c <= the target, and a slightly
larger eps0 is above it), own bounds are at least as good as the generic one, and the errors
are the exact formulas at that eps0."""
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from accountant.bounds.registry import certified_epsilon
from accountant.core.params import make_params
from mechanisms.analysis.errors import analytic_errors
from mechanisms.baselines import Succinct, all_inputs, default_analytic_mse
from mechanisms.planning.central import COMPARED, central_comparison, own_params, render_central
from tests.paths import REPO_ROOT

N, D, S, EPS, DELTA = 10_000, 64, 4, 1.0, 1e-6


@pytest.fixture(scope="module")
def rows():
    return {r.mechanism: r for r in central_comparison(N, D, S, EPS, DELTA, mechanisms=["collision", "pckv-grr", "succinct"])}


def test_each_eps0_is_the_forward_inverse(rows):
    gen = rows["pckv-grr"].generic_eps0
    # the generic bound's eps0: its certified eps_c meets the target, 1e-5 more does not
    assert certified_epsilon(make_params("generic", gen), N, DELTA).epsilon <= EPS
    assert certified_epsilon(make_params("generic", gen * (1 + 1e-5)), N, DELTA).epsilon > EPS
    for r in rows.values():
        assert r.epsilon is not None and r.epsilon <= EPS
        assert r.generic_eps0 == gen
    c = rows["collision"]
    assert c.own and c.bound == "blanket" and c.eps0 > 1.2 * gen  # the exact blanket amplifies more
    p = make_params("collision", c.eps0, s=S)
    assert p.t == c.t and certified_epsilon(p, N, DELTA).epsilon == c.epsilon


def test_baselines_own_bound_or_the_generic_one_named(rows):
    r = rows["pckv-grr"]  # registered: its per-pair blanket, never looser than the generic bound
    assert r.own and r.bound == "blanket" and r.eps0 > r.generic_eps0 and not r.note
    assert certified_epsilon(make_params("pckv-grr", r.eps0, d=D, s=S), N, DELTA).epsilon == r.epsilon
    u = rows["succinct"]  # the Laplace blanket at its exact local parameter eps0 min(s, eta) / eta
    assert u.own and u.bound == "blanket" and "exact local parameter" in u.note
    mech = Succinct(D, S, u.eps0, n_users=N)
    assert mech.eta_for() > S and u.eps0 > 2 * u.generic_eps0  # eta = 10.4 > s = 4: eps0 4/10.4
    assert mech.ldp_epsilon() > u.generic_eps0  # the Laplace blanket proves more than the generic bound
    assert certified_epsilon(make_params("laplace", mech.ldp_epsilon()), N, DELTA).epsilon == u.epsilon
    assert certified_epsilon(make_params("generic", mech.ldp_epsilon()), N, DELTA).epsilon > u.epsilon
    assert u.mse_mean < u.generic_mse_mean / 3


def _succinct_binned(d: int, s: int, eps0: float, n: int, cuts) -> np.ndarray:
    """SUCCINCT (mechanisms.baselines, n_users = n) with its value binned at ``cuts`` (a
    post-processing): one row per key-value set, columns (sign vector, cell)."""
    mech = Succinct(d, s, eps0, n_users=n)
    edges = np.concatenate([[-np.inf], cuts, [np.inf]])
    rows = []
    for ix, sg in all_inputs(d, s):
        od = mech.output_distribution(ix, sg)
        cdf = stats.laplace.cdf(edges[None, :], loc=od["centers"][:, None], scale=od["scale"])
        rows.append((od["probs"][:, None] * np.diff(cdf, axis=1)).ravel())
    return np.array(rows)


@pytest.mark.parametrize("d,s,n,eps0", [(2, 1, 3, 3.0), (2, 2, 3, 4.0), (3, 1, 2, 6.0)])
def test_succinct_upper_above_binned_truth_above_lower(d, s, n, eps0):
    """SUCCINCT's own bound (the Laplace blanket at its exact local parameter) against the exact
    shuffled law of the whole mechanism with its value binned (a post-processing, so its truth is
    at most the mechanism's: the upper bound must be above it), every dataset of key-value sets;
    the binned matrix's certified lower bound (finite path) below that truth; own <= generic."""
    from accountant.bounds.finite import finite_lower_result
    from accountant.core.finite import FiniteRandomizer
    from tests.accountant.bounds.test_keyvalue import every_dataset, truth_delta

    eta = Succinct(d, s, eps0, n_users=n).eta_for()
    m = min(s, eta)
    M = _succinct_binned(d, s, eps0, n, np.linspace(-m - 1, m + 1, 5))
    pairs = every_dataset(M, n)
    own = own_params("succinct", n, d, s)(eps0)
    for delta in (0.02, 0.15):
        up = certified_epsilon(own, n, delta)
        assert truth_delta(pairs, up.epsilon * (1 + 1e-9) + 1e-12) <= delta, (d, s, n, delta, up.epsilon)
        assert up.epsilon <= certified_epsilon(make_params("generic", eps0), n, delta).epsilon
        lo = finite_lower_result(FiniteRandomizer(M), n, delta, 1e-6).epsilon
        if lo:
            assert truth_delta(pairs, lo * (1 - 1e-9) - 1e-12) >= delta


def test_errors_are_the_exact_formulas_there(rows):
    c, b = rows["collision"], rows["pckv-grr"]
    a = analytic_errors("collision", N, D, S, c.eps0, c.t)
    assert c.mse_mean == a["mse_mean"] and c.mse_item == a["mse_item"]
    g = default_analytic_mse("pckv-grr", N, D, S, b.eps0)
    assert b.mse_mean == g["mse_mean"] and b.mse_nonmissing == g["mse_nonmissing"]
    # a smaller eps0 (the generic bound's) costs error
    assert c.generic_mse_mean > c.mse_mean > 0
    # the rule of thumb is a formula, not a bound: its eps_c is reported as proved there
    assert c.rule_eps0 == pytest.approx(EPS * math.sqrt(N / math.log(1 / DELTA)))
    assert c.rule_epsilon > EPS  # at this n the rule's eps0 does not meet the target


def test_renderings(rows):
    params = {"n": N, "d": D, "s": S, "epsilon": EPS, "delta": DELTA}
    rs = list(rows.values())
    data = json.loads(render_central(rs, params, "json"))
    assert data["rows"][0]["eps0"] == rs[0].eps0 and data["parameters"] == params
    csv = render_central(rs, params, "csv").splitlines()
    assert len(csv) == 1 + len(rs) and csv[0].startswith("mechanism,eps0,epsilon")
    md = render_central(rs, params, "md")
    assert "n = 10000" in md and md.count("\n| ") == 1 + len(rs)


@pytest.mark.parametrize("kw,name", [({"n": 0}, "n"), ({"s": 65}, "s"), ({"epsilon": -1.0}, "epsilon"),
                                     ({"delta": 1.0}, "delta"), ({"mechanisms": ["rappor"]}, "mechanisms")])
def test_bad_input_names_the_parameter(kw, name):
    args = {"n": N, "d": D, "s": S, "epsilon": EPS, "delta": DELTA, **kw}
    with pytest.raises(ValueError, match=name):
        central_comparison(**args)


def test_command_line(tmp_path):
    out = tmp_path / "c.csv"
    cmd = [sys.executable, "-m", "mechanisms", "central", "--n", "1000", "--d", "8", "--s", "2", "--eps", "1",
           "--delta", "1e-6", "--mechanisms", "collision", "--json", "--out", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO_ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    row = json.loads(r.stdout)["rows"][0]
    api = central_comparison(1000, 8, 2, 1.0, 1e-6, mechanisms=["collision"])[0]
    assert row["eps0"] == api.eps0 and row["epsilon"] == api.epsilon
    assert out.read_text().count("\n") == 2
    bad = subprocess.run(cmd[:-3] + ["--mechanisms", "collision,foo"], capture_output=True, text=True,
                         cwd=REPO_ROOT, timeout=300)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--mechanisms" in bad.stderr


def test_compared_are_the_papers():
    assert COMPARED == ("collision", "coco", "privkv", "pckv-ue", "pckv-grr", "pckv-agrr", "succinct")


def test_the_generated_grid_page_holds_the_library_numbers():
    # one cell of docs/explanation/central-grid.md (scripts/central_grid.py) recomputed
    import os

    path = os.path.join(REPO_ROOT, "docs", "explanation", "central-grid.md")
    cells = {}
    for line in open(path, encoding="utf-8"):
        c = [x.strip() for x in line.split("|")[1:-1]]
        if len(c) > 4 and c[0] == "4" and c[1] == "0.5":
            cells[c[2]] = c
    assert set(cells) == set(COMPARED)
    r = central_comparison(10_000, 256, 4, 0.5, 1e-6, mechanisms=["pckv-grr"])[0]
    row = cells["pckv-grr"]
    assert row[3] == r.bound and float(row[4]) == pytest.approx(r.eps0, rel=2e-6)
    assert float(row[5]) == pytest.approx(r.mse_mean, rel=1e-3) and float(row[8]) == pytest.approx(r.generic_eps0, rel=2e-6)
