"""The composed certified lower bound of Collision / CoCo rounds given the dimension d: brute
force of the named datasets' two-round product, the reason when d is missing or below 3s, the
command line's --d and the schedule's "d", and the upper bound unchanged by d."""
import itertools
import json
import math
from fractions import Fraction

import mpmath
import pytest

from accountant.composition import compose as C
from accountant.composition import lower as L
from accountant.composition import pld as P


# --------------------------------------------------------------------------- brute force helpers
def collision_report_law(E: int, d: int, t: int, item: int) -> dict:
    """Exact law of one report (H, z) of the s = 1 Collision randomizer on input {item}: H a
    uniformly random function [d] -> [t] (the lower bound's hash model), z = H(item) with
    probability E / Omega, each other value 1 / Omega, Omega = E + t - 1."""
    om = Fraction(E + t - 1)
    out = {}
    for H in itertools.product(range(t), repeat=d):
        for z in range(t):
            out[(H, z)] = Fraction(1, t ** d) * (E if z == H[item] else 1) / om
    return out


def shuffled(laws) -> dict:
    """Exact law of the multiset of the reports of independent users with report laws ``laws``."""
    out = {}
    for ys in itertools.product(*[list(law) for law in laws]):
        pr = Fraction(1)
        for law, y in zip(laws, ys):
            pr *= law[y]
        key = tuple(sorted(ys))
        out[key] = out.get(key, 0) + pr
    return out


def loss_atoms(p: dict, q: dict) -> list:
    """The pair (P, Q) as its atoms (P-mass, Q-mass) of equal likelihood ratio merged (a
    sufficient statistic: the product's divergence depends on nothing else)."""
    atoms = {}
    for k in set(p) | set(q):
        pk, qk = p.get(k, Fraction(0)), q.get(k, Fraction(0))
        r = None if qk == 0 else pk / qk
        a, b = atoms.get(r, (Fraction(0), Fraction(0)))
        atoms[r] = (a + pk, b + qk)
    return list(atoms.values())


def product_delta(atoms, T: int, eps: float) -> float:
    """delta(eps) = sum (P^T - e^eps Q^T)_+ of the T-fold product, 50 digits."""
    with mpmath.workdps(50):
        u = mpmath.exp(mpmath.mpf(eps))
        mp = [(mpmath.mpf(a.numerator) / a.denominator, mpmath.mpf(b.numerator) / b.denominator)
              for a, b in atoms]
        tot = mpmath.mpf(0)
        for combo in itertools.product(mp, repeat=T):
            pa = mpmath.fprod(a for a, _ in combo)
            qb = mpmath.fprod(b for _, b in combo)
            tot += max(pa - u * qb, 0)
        return float(tot)


# --------------------------------------------------------------------------- tiny Collision, T = 2
@pytest.mark.parametrize("n, d", [(2, 3), (3, 3), (3, 4)])
def test_tiny_collision_two_rounds_brute_force(n, d):
    E, t, T, delta = 3, 2, 2, 1e-2
    spec = C.RoundSpec(n, math.log(E), "collision", s=1, t=t, d=d)
    # the named datasets: x1 = {0}, x1' = {1}, x0 = {2}, pairwise disjoint 1-sets of [d]
    x1, x1p, x0 = (collision_report_law(E, d, t, j) for j in (0, 1, 2))
    atoms = loss_atoms(shuffled([x1] + [x0] * (n - 1)), shuffled([x1p] + [x0] * (n - 1)))
    low_pld, text = L.lower_pld(spec, 1e-3)
    assert f"d = {d} >= 3s = 3" in text and "pairwise disjoint s-sets" in text
    low = P.self_compose(low_pld, T)
    res = C.compose_rounds(spec, T, delta)
    pess = P.self_compose(C.round_pld(spec, res.step, True, res.samples, C.support_cutoff(delta, T)), T)
    for eps in (0.0, 0.2, 0.5, 1.0):
        exact = product_delta(atoms, T, eps)
        assert exact > 1e-3  # the comparison is not vacuous
        # the certified lower PLD <= the datasets' exact delta <= the proved upper PLD
        assert low.get_delta(eps) <= exact + 1e-15
        assert exact <= pess.get_delta(eps) * (1 + 1e-9)
    # composed lower <= the datasets' exact eps <= composed upper, at the target delta
    assert res.epsilon_lower is not None and 0.0 < res.epsilon_lower <= res.epsilon
    assert product_delta(atoms, T, res.epsilon_lower) > delta
    assert product_delta(atoms, T, res.epsilon) <= delta
    assert f"d = {d} >= 3s = 3" in res.lower_note and "uniformly random hash" in res.lower_note


def test_reduced_pair_is_a_post_processing_of_the_reports():
    # the lower pair's law (three categories) has the exact single-round divergence at most the
    # datasets' own (n = 2, d = 3): a post-processing of the reports
    E, t, n, d = 3, 2, 2, 3
    spec = C.RoundSpec(n, math.log(E), "collision", s=1, t=t, d=d)
    x1, x1p, x0 = (collision_report_law(E, d, t, j) for j in (0, 1, 2))
    atoms = loss_atoms(shuffled([x1, x0]), shuffled([x1p, x0]))
    mass, loss, _ = L.pair_masses(spec)
    for eps in (0.0, 0.3, 0.8):
        reduced = float(sum(m * max(0.0, 1.0 - math.exp(eps - lo)) for m, lo in zip(mass, loss)))
        assert reduced <= product_delta(atoms, 1, eps) + 1e-12 and reduced > 0


# --------------------------------------------------------------------------- d: reasons, upper
@pytest.mark.parametrize("mechanism", ["collision", "coco"])
def test_lower_reason_without_d_and_below_3s(mechanism):
    s = 2
    none = C.compose_rounds(C.RoundSpec(1000, 1.0, mechanism, s=s), 2, 1e-6, adaptive=False)
    assert none.epsilon_lower is None
    assert none.lower_note.startswith("not available: ") and "give d (--d)" in none.lower_note
    assert "d >= 3 s = 6" in none.lower_note
    small = C.compose_rounds(C.RoundSpec(1000, 1.0, mechanism, s=s, d=5), 2, 1e-6, adaptive=False)
    assert small.epsilon_lower is None and "needs d >= 3 s = 6, got d = 5" in small.lower_note
    # the upper bound does not depend on d
    assert small.epsilon == none.epsilon and small.naive_epsilon == none.naive_epsilon


@pytest.mark.parametrize("mechanism", ["collision", "coco"])
def test_upper_unchanged_by_d_and_lower_below_it(mechanism):
    plain = C.compose_rounds(C.RoundSpec(5000, 2.0, mechanism, s=2), 5, 1e-6, adaptive=False)
    spec = C.RoundSpec(5000, 2.0, mechanism, s=2, d=64)
    with_d = C.compose_rounds(spec, 5, 1e-6, adaptive=False)
    assert with_d.epsilon == plain.epsilon and with_d.advanced_epsilon == plain.advanced_epsilon
    assert with_d.epsilon_estimate_of_bound == plain.epsilon_estimate_of_bound
    assert 0.0 < with_d.epsilon_lower <= with_d.epsilon
    assert "d = 64 >= 3s = 6" in with_d.lower_note
    one = C.compose_rounds(spec, 1, 1e-6, adaptive=False)
    assert one.epsilon_lower < with_d.epsilon_lower  # five rounds release more than one
    # the schedule's "d" gives the same round
    sched = C.parse_schedule([{"n": 5000, "eps0": 2.0, "mechanism": mechanism, "s": 2, "d": 64,
                               "repeat": 5}])
    assert sched == [spec] * 5


@pytest.mark.parametrize("kwargs, match", [
    (dict(mechanism="krr", k=4, d=10), "d does not apply to mechanism 'krr'"),
    (dict(mechanism="generic", d=10), "d does not apply to mechanism 'generic'"),
    (dict(mechanism="collision", s=4, d=3), "s <= d = 3"),
    (dict(mechanism="coco", s=2, d=0), "d must be an integer >= 1"),
    (dict(mechanism="collision", s=2, d=True), "d must be an integer >= 1"),
])
def test_roundspec_refuses_bad_d(kwargs, match):
    with pytest.raises(ValueError, match=match):
        C.RoundSpec(1000, 1.0, **kwargs)


@pytest.mark.parametrize("entry, match", [
    ({"mechanism": "collision", "s": 2, "d": 6.5}, "round 0: field 'd' must be an integer"),
    ({"mechanism": "collision", "s": 2, "d": 0}, r"round 0: field 'd' must be an integer in \[1"),
    ({"mechanism": "krr", "k": 4, "d": 9}, "round 0: field 'd' does not apply to mechanism 'krr'"),
])
def test_schedule_refuses_bad_d(entry, match):
    with pytest.raises(ValueError, match=match):
        C.parse_schedule([{"n": 1000, "eps0": 1.0, **entry}])


# --------------------------------------------------------------------------- command line
def _cli(capsys, *args):
    from accountant.interfaces.cli.main import main

    code = main(["compose", "--rounds", "2", "--n", "2000", "--eps0", "2", "--delta", "1e-6",
                 "--step", "0.02", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_d_gives_the_bracket(capsys):
    code, out, err = _cli(capsys, "--mechanism", "collision", "--s", "2", "--d", "64", "--json")
    assert code == 0 and err == ""
    got = json.loads(out)
    assert 0.0 < got["epsilon_lower"] <= got["epsilon"]
    note = got["epsilon_lower_note"]
    assert "d = 64 >= 3s = 6" in note and "x1, x1' and x0 pairwise disjoint s-sets of [d]" in note
    code, out, _ = _cli(capsys, "--mechanism", "collision", "--s", "2", "--json")
    assert code == 0 and json.loads(out)["epsilon"] == got["epsilon"]  # d leaves the upper alone
    code, out, _ = _cli(capsys, "--mechanism", "coco", "--s", "2", "--d", "5")
    assert code == 0 and "lower bound not available: " in out and "got d = 5" in out


@pytest.mark.parametrize("args, words", [
    (("--mechanism", "collision", "--s", "2", "--d", "0"), "--d must be an integer in [1, "),
    (("--mechanism", "collision", "--s", "2", "--d", "1e3x"), "--d must be an integer"),
    (("--mechanism", "collision", "--s", "4", "--d", "3"), "--s/--d: s must satisfy 1 <= s <= d = 3"),
    (("--mechanism", "krr", "--k", "4", "--d", "9"), "--d does not apply to mechanism 'krr'"),
    (("--mechanism", "variation-ratio", "--p", "3", "--beta", "0.3", "--d", "9"),
     "--d does not apply to mechanism 'variation-ratio'"),
])
def test_cli_bad_d_exits_2_with_one_line(capsys, args, words):
    from accountant.interfaces.cli.main import main

    base = ["compose", "--rounds", "2", "--n", "2000", "--delta", "1e-6"]
    if "variation-ratio" not in args:
        base += ["--eps0", "2"]
    code = main(base + list(args))
    err = capsys.readouterr().err
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1


def test_cli_bad_d_exit_status_of_the_process():
    import os
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "accountant", "compose", "--rounds", "2", "--n", "1e3",
                        "--eps0", "2", "--mechanism", "coco", "--s", "2", "--d", "-4", "--delta", "1e-6"],
                       capture_output=True, text=True, env=os.environ.copy(), timeout=120)
    assert r.returncode == 2 and r.stdout == "" and "--d" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_cli_d_with_schedule_is_refused(capsys, tmp_path):
    from accountant.interfaces.cli.main import main

    f = tmp_path / "rounds.json"
    f.write_text(json.dumps([{"n": 1000, "eps0": 1.0, "mechanism": "collision", "s": 2, "d": 64}]))
    code = main(["compose", "--schedule", str(f), "--delta", "1e-6", "--mechanism", "collision",
                 "--s", "2", "--d", "64"])
    err = capsys.readouterr().err
    assert code == 2 and "--d applies to --rounds/--n/--eps0" in err
