"""Every mechanism at one proved central guarantee (mechanisms.planning.central): each eps0 is
the inverse of the forward command's number (its certified eps_c <= the target, and a slightly
larger eps0 is above it), own bounds are at least as good as the generic one, and the errors
are the exact formulas at that eps0."""
import json
import math
import subprocess
import sys

import pytest

from accountant.bounds.registry import certified_epsilon
from accountant.core.params import make_params
from mechanisms.analysis.errors import analytic_errors
from mechanisms.baselines import default_analytic_mse
from mechanisms.planning.central import COMPARED, central_comparison, render_central
from tests.paths import REPO_ROOT

N, D, S, EPS, DELTA = 10_000, 64, 4, 1.0, 1e-6


@pytest.fixture(scope="module")
def rows():
    return {r.mechanism: r for r in central_comparison(N, D, S, EPS, DELTA, mechanisms=["collision", "pckv-grr"])}


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


def test_unregistered_baseline_is_accounted_generically_and_says_so(rows):
    r = rows["pckv-grr"]
    if r.own:  # a registered bound of its own: never looser than the generic one
        assert r.eps0 >= r.generic_eps0 * (1 - 1e-6)
    else:
        assert r.eps0 == r.generic_eps0 and "generic" in r.note and r.bound == "clone"


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
