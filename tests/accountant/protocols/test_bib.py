"""Balls-into-bins mechanism M^BIB (Luo, Wang, Yi, Algorithm 1 / Theorem 2.1)."""
from __future__ import annotations

import itertools
import json
import math

import pytest

from accountant.protocols import bib
from accountant.interfaces.cli.main import main

# ---------------------------------------------------------------------------
# exact divergence vs full enumeration of Algorithm 1
# ---------------------------------------------------------------------------

TINY = [  # (m, s, k, n, p): both m >= 2s (worst overlap 0) and m < 2s (overlap 2s - m)
    (4, 2, 1, 2, 0.5),
    (3, 2, 1, 2, 0.7),
    (4, 1, 0, 3, 0.4),
    (5, 2, 2, 2, 0.3),
    (4, 3, 1, 2, 0.6),
    (3, 1, 0, 3, 0.9),
    (2, 1, 2, 2, 0.25),
]


@pytest.mark.parametrize("m,s,k,n,p", TINY)
def test_matches_enumeration_over_every_neighbour(m, s, k, n, p):
    S = set(range(s))
    for eps in (0.0, 0.4, 1.3):
        by_overlap = {}
        for S2 in itertools.combinations(range(m), s):
            if set(S2) == S:
                continue
            h = bib.bib_bruteforce(eps, m, S, S2, k, n, p)
            t = len(S & set(S2))
            by_overlap.setdefault(t, h)
            assert by_overlap[t] == pytest.approx(h, rel=1e-12, abs=1e-15)  # depends on t only
        worst = max(by_overlap.values())
        d = bib.bib_divergence(eps, m, s, k, n, p)
        assert d.overlap == max(0, 2 * s - m)
        assert d.value == pytest.approx(worst, rel=1e-12, abs=1e-15)
        assert d.lower <= worst + 1e-15 and worst <= d.upper + 1e-15
        # per-overlap formula and the worst-case claim (delta non-increasing in t)
        for t, h in by_overlap.items():
            assert bib.bib_divergence(eps, m, s, k, n, p, overlap=t).value == pytest.approx(h, rel=1e-12, abs=1e-15)
        ts = sorted(by_overlap)
        assert all(by_overlap[a] >= by_overlap[b] - 1e-15 for a, b in zip(ts, ts[1:]))
        assert float(bib.bib_delta_mp(eps, m, s, k, n, p)) == pytest.approx(worst, rel=1e-12, abs=1e-15)


def test_overlap_monotone_on_larger_instance():
    # delta decreases with the overlap (the worst case is t = max(0, 2s - m))
    vals = [bib.bib_divergence(0.5, 40, 6, 20, 300, 0.4, overlap=t).value for t in range(6)]
    assert all(a > b for a, b in zip(vals, vals[1:]))
    vals = [bib.bib_divergence(0.5, 10, 7, 20, 60, 0.4, overlap=t).value for t in range(4, 7)]
    assert all(a > b for a, b in zip(vals, vals[1:]))


# ---------------------------------------------------------------------------
# float path vs the mpmath reference on larger instances
# ---------------------------------------------------------------------------

LARGER = [
    (0.5, 50, 1, 0, 3000, 0.3),
    (1.0, 20, 3, 100, 800, 0.5),
    (0.3, 10, 6, 5, 40, 0.4),  # m < 2s: overlap 2 (three-category path)
    (2.0, 1000, 2, 0, 2000, 1.0),
    (0.1, 30, 2, 0, 1200, 0.5),
]


@pytest.mark.parametrize("eps,m,s,k,n,p", LARGER)
def test_float_matches_mpmath(eps, m, s, k, n, p):
    d = bib.bib_divergence(eps, m, s, k, n, p)  # default truncation 1e-30 absolute
    ref = float(bib.bib_delta_mp(eps, m, s, k, n, p))
    assert ref > 1e-25
    assert d.lower <= ref <= d.upper
    assert d.value == pytest.approx(ref, rel=1e-10)


def test_truncation_is_added():
    # a tight target leaves out mass, which the upper bound carries
    d = bib.bib_divergence(2.0, 100, 5, 10, 2000, 0.9, target=1e-12)
    ref = float(bib.bib_delta_mp(2.0, 100, 5, 10, 2000, 0.9))
    assert d.truncated > 0 and d.lower <= ref <= d.upper
    assert d.upper <= 1e-12 * 1e-9


# ---------------------------------------------------------------------------
# monotonicity, searches
# ---------------------------------------------------------------------------

def test_monotone_in_eps_p_k_rho():
    args = dict(m=100, s=2, n=2000)
    ds = [bib.bib_delta(e, k=10, p=0.5, **args) for e in (0.0, 0.1, 0.3, 0.6, 1.0, 2.0, 4.0)]
    assert all(a >= b for a, b in zip(ds, ds[1:]))
    ds = [bib.bib_delta(0.5, k=10, p=p, **args) for p in (0.0, 0.1, 0.3, 0.5, 0.9, 1.0)]
    assert all(a >= b for a, b in zip(ds, ds[1:]))
    ds = [bib.bib_delta(0.5, k=k, p=0.2, **args) for k in (0, 10, 100, 1000, 5000)]
    assert all(a >= b for a, b in zip(ds, ds[1:]))
    # rho across the integer boundary (Lemma 2.7 decomposition) is continuous and monotone
    rhos = (0.5, 0.999, 1.0, 1.001, 1.5, 1.999, 2.0, 2.5)
    ds = []
    for r in rhos:
        kk, pp = bib.params_for_rho(0, 2000, r)
        ds.append(bib.bib_delta(0.5, 100, 2, kk, 2000, pp))
    assert all(a >= b for a, b in zip(ds, ds[1:]))
    assert bib.params_for_rho(3, 10, 2.25) == (23, 0.25)


@pytest.mark.parametrize("delta,m,s,k,n,p", [
    (1e-6, 100, 1, 0, 10000, 0.5),
    (1e-10, 1000, 3, 50, 20000, 0.8),
    (1e-3, 10, 7, 0, 300, 0.5),
])
def test_epsilon_achieves_target(delta, m, s, k, n, p):
    r = bib.bib_epsilon(delta, m, s, k, n, p)
    assert r.epsilon is not None and r.achieved_delta <= delta
    assert bib.bib_delta(r.epsilon, m, s, k, n, p, target=delta) <= delta
    assert r.lower_epsilon is not None and r.lower_epsilon < r.epsilon
    assert r.epsilon - r.lower_epsilon <= 1e-5 * r.epsilon
    assert bib.bib_divergence(r.lower_epsilon, m, s, k, n, p, target=delta).lower > delta


def test_epsilon_not_available_below_floor():
    r = bib.bib_epsilon(1e-9, 10, 1, 0, 1, 0.1)
    assert r.epsilon is None and "no eps" in r.reason
    # the floor is real: delta stays above it at any eps
    assert bib.bib_divergence(600.0, 10, 1, 0, 1, 0.1).lower >= 0.99 * (1 - 1e-9)


def test_rho_for():
    r = bib.bib_rho_for(1.0, 1e-8, 100, 1, 0, 10000)
    assert r.achieved_delta <= 1e-8
    assert bib.bib_delta(1.0, 100, 1, r.k_eff, 10000, r.p, target=1e-8) <= 1e-8
    assert r.lower_rho is not None and r.rho - r.lower_rho <= 1e-6 * r.rho
    kk, pp = bib.params_for_rho(0, 10000, r.lower_rho)
    assert bib.bib_divergence(1.0, 100, 1, kk, 10000, pp, target=1e-8).lower > 1e-8
    # rho > 1 via the Lemma 2.7 decomposition
    r2 = bib.bib_rho_for(0.5, 1e-8, 100, 1, 0, 10000)
    assert r2.rho > 1 and r2.k_eff == 10000 * math.floor(r2.rho)
    assert r2.achieved_delta <= 1e-8


# ---------------------------------------------------------------------------
# the paper's closed-form condition is sufficient (checked exactly)
# ---------------------------------------------------------------------------

def test_paper_condition_is_sufficient():
    for (m, s, k, n) in [(100, 1, 0, 10000), (2, 1, 0, 100), (10, 3, 0, 1000), (8, 6, 5, 1000),
                         (1000, 10, 100, 100000), (100000, 1, 0, 10 ** 6)]:
        for eps in (0.05, 0.5, 1.0, 3.0):
            for delta in (0.5, 1e-3, 1e-12):
                if 2 * s > m and eps < 0.5:
                    continue  # three-category path: T ~ 1e5..5e5 takes 2-20 s per point
                pr = bib.paper_rho(eps, delta, m, s, k, n)
                kk, pp = bib.params_for_rho(k, n, pr)
                assert bib.paper_condition(eps, delta, m, s, kk, n, pp) == (pr > 0 or k > 0)
                d = bib.bib_divergence(eps, m, s, kk, n, pp, target=delta)
                assert d.upper <= delta, (m, s, k, n, eps, delta, d.upper)
                # and the exact rho is never larger than the paper's
                if 2 * s <= m and eps in (0.5, 3.0) and delta != 0.5:
                    assert bib.bib_rho_for(eps, delta, m, s, k, n, rtol=1e-3).rho <= pr


def test_paper_helpers():
    assert bib.paper_rho(1.0, 1e-6, 100, 1, 0, 10000) == pytest.approx(32 * math.log(2e6) * 100 / 10000)
    assert bib.paper_rho(4.0, 1e-6, 100, 1, 0, 10000) is None  # Theorem 2.1 needs eps <= 3
    assert not bib.paper_condition(4.0, 1e-6, 100, 1, 10 ** 9, 1, 0.0)
    req = 32 * math.log(2e6) * 100
    assert bib.paper_condition(1.0, 1e-6, 100, 1, math.ceil(req), 0, 0.0)
    assert not bib.paper_condition(1.0, 1e-6, 100, 1, math.floor(req), 0, 0.0)
    assert bib.paper_rho(1.0, 0.5, 2, 1, 10 ** 6, 10) == 0.0


# ---------------------------------------------------------------------------
# invalid inputs
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs,word", [
    (dict(m=1), "m"), (dict(m=2.5), "m"), (dict(s=0), "s"), (dict(s=10), "s"), (dict(k=-1), "k"),
    (dict(n=-1), "n"), (dict(p=1.5), "p"), (dict(p=float("nan")), "p"), (dict(eps=-0.1), "eps"),
    (dict(m=True), "m"),
])
def test_invalid_inputs(kwargs, word):
    a = dict(eps=1.0, m=10, s=2, k=0, n=10, p=0.5)
    a.update(kwargs)
    with pytest.raises(ValueError, match=rf"^{word} must"):
        bib.bib_delta(**a)


def test_invalid_search_inputs():
    with pytest.raises(ValueError, match="^delta must"):
        bib.bib_epsilon(0.0, 10, 2, 0, 10, 0.5)
    with pytest.raises(ValueError, match="^delta must"):
        bib.bib_rho_for(1.0, 1.0, 10, 2, 0, 10)
    with pytest.raises(ValueError, match="^n must"):
        bib.bib_rho_for(1.0, 1e-3, 10, 2, 0, 0)
    with pytest.raises(ValueError, match="^rho must"):
        bib.params_for_rho(0, 10, -1.0)
    with pytest.raises(ValueError, match="^overlap must"):
        bib.bib_divergence(1.0, 10, 7, 0, 10, 0.5, overlap=1)  # needs t >= 2s - m = 4


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------

def _json(capsys, argv):
    assert main(argv + ["--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_bib(capsys):
    base = ["bib", "--m", "100", "--s", "1", "--n", "1e4"]
    out = _json(capsys, base + ["--p", "0.3", "--eps", "1"])
    assert out["delta"] == bib.bib_delta(1.0, 100, 1, 0, 10000, 0.3)
    assert out["paper_condition"] is False and out["paper_rho"] is not None
    out = _json(capsys, base + ["--rho", "0.3", "--delta", "1e-8"])
    assert out["achieved_delta"] <= 1e-8 and out["eps"] > 0
    assert out["paper_rho"] == pytest.approx(bib.paper_rho(out["eps"], 1e-8, 100, 1, 0, 10000))
    out = _json(capsys, base + ["--target-eps", "3", "--delta", "1e-8"])
    assert out["achieved_delta"] <= 1e-8 and out["rho"] < out["paper_rho"]
    assert out["paper_condition"] is False
    assert main(base + ["--target-eps", "1", "--delta", "1e-8"]) == 0
    assert "smallest rho" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["bib", "--m", "1", "--s", "1", "--n", "10", "--p", "0.5", "--eps", "1"],
    ["bib", "--m", "10", "--s", "1", "--n", "10", "--p", "0.5"],
    ["bib", "--m", "10", "--s", "1", "--n", "10", "--p", "1.5", "--eps", "1"],
    ["bib", "--m", "10", "--s", "1", "--n", "10", "--p", "0.5", "--rho", "2", "--eps", "1"],
    ["bib", "--m", "10", "--s", "1", "--n", "10", "--p", "0.5", "--eps", "1", "--delta", "0.1"],
    ["bib", "--m", "10", "--s", "1", "--n", "10", "--p", "0.5", "--target-eps", "1", "--delta", "0.1"],
])
def test_cli_bib_errors(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
