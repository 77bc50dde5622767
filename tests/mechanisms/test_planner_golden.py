"""The planner's outputs pinned: ``plan`` for seven requests (Collision/CoCo mean, the frequency
oracles, rounds under a cap, a schedule, user t values under a cap, the paper's bound, oracles
with user t values) gives the recorded JSON (``Plan.as_dict``), text (``render_plan``) and
progress counts.  Recorded before ``plan`` was split into its steps (issue 40); the split
changed no output (the comparison was exact).

Numbers compare to 1e-9 relative, text exactly.  A deliberate change of the numerics (an
engine that proves a smaller eps_c) changes them: re-record with
``PYTHONPATH=. python tests/mechanisms/test_planner_golden.py --write`` and say why in the
commit.
"""
import json
import math
import os
import sys

import pytest

from mechanisms import plan
from mechanisms.planning import render_plan

GOLDEN = os.path.join(os.path.dirname(__file__), "data", "planner_golden.json")

CASES = {
    "mean_both_sens": dict(target_eps=1.0, delta=1e-6, n=10_000, d=64, s=2, sensitivity=True),
    "freq_oracles": dict(
        target_eps=0.5, delta=1e-6, n=100_000, d=64, s=1, estimate="frequency", sensitivity=True
    ),
    "rounds3_cap": dict(
        target_eps=1.0, delta=1e-6, n=20_000, d=32, s=2, rounds=3, max_eps0=3.0, sensitivity=True
    ),
    "schedule": dict(
        target_eps=1.0, delta=1e-6, n=1, d=32, s=1, schedule=[20000, 30000], sensitivity=True
    ),
    "tvalues_cap": dict(
        target_eps=1.0, delta=1e-6, n=10_000, d=64, s=2,
        t_values={"collision": [100, 442], "coco": [20, 30]}, max_eps0=4.0, sensitivity=True,
    ),
    "paper_cap": dict(
        target_eps=1.0, delta=1e-6, n=10_000, d=64, s=2, bound="paper", max_eps0=5.0,
        sensitivity=False,
    ),
    "oracle_tvalues": dict(
        target_eps=0.5, delta=1e-6, n=100_000, d=64, s=1, estimate="frequency",
        mechanisms=("olh", "oue", "collision"), t_values=[8, 40], max_eps0=3.0, sensitivity=True,
    ),
}


def record(kw: dict) -> dict:
    ticks = []
    p = plan(**kw, progress=lambda a, b: ticks.append([a, b]))
    return {"plan": p.as_dict(), "ticks": ticks, "text": render_plan(p)}


def same(a, b, path="") -> None:
    """a == b, floats to 1e-9 relative; the first difference named by its path."""
    if isinstance(a, float) or isinstance(b, float):
        assert isinstance(a, (int, float)) and isinstance(b, (int, float)), path
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0), (path, a, b)
    elif isinstance(a, dict):
        assert isinstance(b, dict) and sorted(a) == sorted(b), (path, sorted(a), sorted(b))
        for k in a:
            same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), (path, a, b)
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{i}]")
    else:
        assert a == b, (path, a, b)


@pytest.mark.parametrize("name", sorted(CASES))
def test_plan_outputs_are_the_recorded_ones(name):
    with open(GOLDEN) as f:
        golden = json.load(f)[name]
    # through JSON, as the command line prints it (tuples become lists)
    got = json.loads(json.dumps(record(CASES[name])))
    same(got, golden, name)


def test_the_comparison_can_fail():
    same({"x": [1.0, "a"]}, {"x": [1.0 + 1e-12, "a"]})
    for other in ({"x": [1.001, "a"]}, {"x": [1.0, "b"]}, {"x": [1.0]}, {"y": [1.0, "a"]}):
        with pytest.raises(AssertionError):
            same({"x": [1.0, "a"]}, other)


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    out = {name: record(kw) for name, kw in CASES.items()}
    with open(GOLDEN, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
