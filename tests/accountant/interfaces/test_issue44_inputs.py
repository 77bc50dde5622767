"""Issue 44 item 18 (inputs): variation-ratio's --p/--q near 1 are refused in the parameter's
words (was "range() arg 3 must not be zero"); ``delta --eps 0`` answers (docs/limits.md
allows eps = 0), and the answer brackets the exact total variation distance."""
from __future__ import annotations

import json
import math
from math import comb

import pytest

from accountant.core import limits as L
from accountant.core.params import VariationRatioParams, make_params
from accountant.interfaces.cli.main import main


def _run(argv, capsys):
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("option,value", [("--p", "1.000000000000001"), ("--p", "1.00000000001"), ("--p", "1"),
                                          ("--p", "1.1e13"), ("--q", "1.000000000000001")])
@pytest.mark.parametrize("command", ["epsilon", "compare", "compose", "table"])
def test_variation_ratio_ratio_out_of_the_eps0_range_is_refused_by_name(capsys, tmp_path, command, option, value):
    args = {"epsilon": ["--n", "1000", "--delta", "1e-6"], "compare": ["--n", "1000", "--delta", "1e-6"],
            "compose": ["--rounds", "2", "--n", "1000", "--delta", "1e-6"],
            "table": ["--n", "1000", "--delta", "1e-6", "--out", str(tmp_path / "t.csv")]}[command]
    vr = ["--p", "2", "--beta", "0.1"] if option == "--q" else [option, value, "--beta", "1e-17"]
    extra = ["--q", value] if option == "--q" else []
    rc, out, err = _run([command, *args, "--mechanism", "variation-ratio", *vr, *extra], capsys)
    lines = err.strip().splitlines()
    assert rc == 2 and out == "" and len(lines) == 1, err
    assert f"{option} must be a number in (1, 1.068647458e+13], at least e^1e-10 = 1.0000000001" in lines[0]
    assert f"got '{value}'" in lines[0] and "range()" not in lines[0]
    assert list(tmp_path.iterdir()) == []


def test_library_refuses_the_same_ratios_and_accepts_the_ends():
    for p in (1.000000000000001, 1.0, 1.1e13, math.nan, math.inf):
        with pytest.raises(ValueError, match=r"^p must be a number in \(1, 1.068647458e\+13\], at least e\^1e-10 = 1.0000000001 "):
            VariationRatioParams(p=p, beta=1e-17)
    with pytest.raises(ValueError, match=r"^q must be a number"):
        VariationRatioParams(p=2.0, beta=0.1, q=1.000000000000001)
    lo = VariationRatioParams(p=L.VR_RATIO_MIN, beta=(L.VR_RATIO_MIN - 1) / (L.VR_RATIO_MIN + 1) / 2)
    assert lo.eps0 >= L.EPS0_MIN * (1 - 1e-9)
    hi = VariationRatioParams(p=L.VR_RATIO_MAX, beta=0.5)
    assert abs(hi.eps0 - L.EPS_MAX) < 1e-12


def test_smallest_ratio_answers(capsys):
    rc, out, err = _run(["epsilon", "--n", "1000", "--delta", "1e-6", "--mechanism", "variation-ratio",
                         "--p", "1.0000000001", "--beta", "5e-11", "--json"], capsys)
    data = json.loads(out)
    assert rc == 0 and data["epsilon"] is not None and 0 <= data["epsilon"] <= 2e-10
    assert data["achieved_delta"] <= 1e-6


def _rr_tv(n: int, eps0: float) -> float:
    """Exact total variation between the shuffled binary-RR outputs of D = (0, ..., 0) and
    D' = (1, 0, ..., 0): delta at eps = 0 (the count of ones is the shuffled output)."""
    q = 1.0 / (1.0 + math.exp(eps0))
    P = [comb(n, k) * q ** k * (1 - q) ** (n - k) for k in range(n + 1)]
    B = [comb(n - 1, k) * q ** k * (1 - q) ** (n - 1 - k) for k in range(n)]
    Q = [0.0] * (n + 1)
    for k in range(n):
        Q[k] += q * B[k]
        Q[k + 1] += (1 - q) * B[k]
    return sum(max(a - b, 0.0) for a, b in zip(P, Q))


@pytest.mark.parametrize("n,eps0", [(2, 0.5), (5, 1.0), (8, 2.0)])
def test_delta_at_eps_zero_brackets_the_exact_total_variation(capsys, n, eps0):
    rc, out, err = _run(["delta", "--n", str(n), "--eps0", str(eps0), "--eps", "0", "--mechanism", "rr",
                         "--json"], capsys)
    assert rc == 0, err
    data = json.loads(out)
    tv = _rr_tv(n, eps0)
    assert data["epsilon"] == 0.0 and data["lower_delta"] <= tv * (1 + 1e-12) <= data["delta"] * (1 + 1e-12)
    assert data["delta"] <= 1.0


@pytest.mark.parametrize("mechanism", [["generic"], ["collision", "--s", "4"], ["krr", "--k", "4"],
                                       ["oue", "--k", "4"]])
def test_delta_at_eps_zero_answers_and_is_the_largest_delta(capsys, mechanism):
    """delta(eps) is non-increasing in eps: the answer at 0 is at least the one at 0.01."""
    base = ["delta", "--n", "1000", "--eps0", "1", "--mechanism", *mechanism, "--json"]
    rc0, out0, err0 = _run(base + ["--eps", "0"], capsys)
    rc1, out1, err1 = _run(base + ["--eps", "0.01"], capsys)
    assert rc0 == 0 and rc1 == 0, err0 + err1
    d0, d1 = json.loads(out0), json.loads(out1)
    assert 0 < d1["delta"] <= d0["delta"] <= 1


def test_negative_eps_still_refused(capsys):
    rc, out, err = _run(["delta", "--n", "1000", "--eps0", "1", "--eps", "-0.1"], capsys)
    assert rc == 2 and "--eps (central epsilon) must be a number in [0, 30]" in err
    with pytest.raises(ValueError):
        from accountant import ShuffleAccountant

        ShuffleAccountant(make_params("generic", 1.0), 1000).get_delta(-0.1)
