"""Issue 44 item 12: at the epsilon command's own eps_c, the delta command never prints a delta
above the target.  Both commands are called in-process as ``python -m accountant`` runs them;
the eps passed to ``delta`` is the full-precision float from epsilon's JSON and, separately,
the printed (rounded-up) text value, which a user copies."""
from __future__ import annotations

import pytest

from accountant.interfaces.cli.main import _human, run

OPTS = {
    "generic": [],
    "rr": ["--mechanism", "rr"],
    "krr": ["--mechanism", "krr", "--k", "4"],
    "collision-any": ["--mechanism", "collision", "--s", "1", "--d", "8"],
    "collision-random": ["--mechanism", "collision", "--s", "2", "--d", "8", "--hash-model", "random"],
    "coco-random": ["--mechanism", "coco", "--s", "2", "--d", "8", "--hash-model", "random"],
    "olh-any": ["--mechanism", "olh", "--k", "100", "--g", "4"],
    "olh-random": ["--mechanism", "olh", "--k", "100", "--g", "4", "--hash-model", "random"],
    "oue": ["--mechanism", "oue", "--k", "4"],
}
# (n, eps0, delta): the point and two more
POINTS = [(2447, 1.1527, 0.000175), (500, 2.0, 1e-6), (20000, 0.7, 1e-9)]
# the hash model random at n = 500, eps0 = 2 costs 15 s a case under load: two points suffice there
SLOW = {("collision-random", 500), ("coco-random", 500), ("olh-random", 500)}


def _check(opts, n, eps0, delta, bound=None):
    common = ["--n", str(n), "--eps0", repr(eps0), *opts] + (["--bound", bound] if bound else [])
    out = run(["epsilon", "--delta", repr(delta), *common])
    eps = out["epsilon"]
    if eps >= eps0:  # post-processing: delta = 0 there
        return
    text = _human("epsilon", out)
    printed = text.split("<= ", 1)[1].split(" ", 1)[0]
    assert float(printed) >= eps
    for e in (repr(eps), printed):
        d = run(["delta", "--eps", e, *common])
        assert d["delta"] <= delta, (opts, n, eps0, delta, bound, e, d["delta"], d["bound"])
        if e == repr(eps) and out.get("achieved_delta") is not None:
            # the certified delta the epsilon command prints is not below the delta command's
            assert d["delta"] <= out["achieved_delta"] * (1 + 1e-12) <= delta * (1 + 1e-12)


@pytest.mark.parametrize("point", POINTS, ids=[f"n{p[0]}-eps0{p[1]}-delta{p[2]}" for p in POINTS])
@pytest.mark.parametrize("mech", list(OPTS))
def test_delta_at_the_printed_epsilon_meets_the_target(mech, point):
    if (mech, point[0]) in SLOW:
        point = (2447, 2.0, 1e-6)
    _check(OPTS[mech], *point)


@pytest.mark.parametrize("bound", ["blanket", "clone", "blanket-bennett"])
def test_named_bounds_agree_with_their_delta_form(bound):
    _check(OPTS["olh-random"] if bound == "blanket" else OPTS["collision-any"], 2447, 1.1527, 0.000175, bound)
