"""The coarsening composition of a lower bound (composition.pld.coarsen_down, self_compose_lower)
and its use by the deployments' composed pair above the plain grid's limit."""
from __future__ import annotations

import numpy as np
import pytest

from accountant.composition import pld as P

EPS = np.linspace(-0.5, 6.0, 60)


def _random_pld(seed: int, size: int = 60, offset: int = -25, inf_mass: float = 0.0) -> P.DiscretePLD:
    rng = np.random.default_rng(seed)
    p = rng.random(size) ** 3
    p *= (1.0 - inf_mass) / p.sum() * (1 - 1e-9)
    return P.DiscretePLD(0.01, offset, p, inf_mass, False)


@pytest.mark.parametrize("factor", [1, 2, 3, 7, 64])
@pytest.mark.parametrize("offset", [-25, -3, 0, 11])
def test_coarsen_down_moves_every_loss_down_and_keeps_the_mass(factor, offset):
    d = _random_pld(factor + 100 * (offset + 30), offset=offset, inf_mass=0.01)
    c = P.coarsen_down(d, factor)
    assert c.step == pytest.approx(d.step * factor, rel=1e-15)
    assert c.pmf.sum() == pytest.approx(d.pmf.sum(), rel=1e-13) and c.inf_mass == d.inf_mass
    # the law of the rounded loss: floor(loss / (factor step)) * factor step, by hand
    want = {}
    for i, m in enumerate(d.pmf):
        j = (d.offset + i) // factor
        want[j] = want.get(j, 0.0) + m
    got = {c.offset + i: m for i, m in enumerate(c.pmf) if m > 0}
    assert set(got) == {j for j, m in want.items() if m > 0}
    assert all(abs(got[j] - want[j]) <= 1e-15 for j in got)
    assert all(c.get_delta(e) <= d.get_delta(e) + 1e-15 for e in EPS)


def test_coarsen_down_refuses_an_upper_bound_and_a_bad_factor():
    d = _random_pld(1)
    with pytest.raises(ValueError, match="optimistic"):
        P.coarsen_down(P.DiscretePLD(d.step, d.offset, d.pmf, 0.0, True), 2)
    with pytest.raises(ValueError, match="factor"):
        P.coarsen_down(d, 0)


@pytest.mark.parametrize("rounds", [1, 2, 5, 37, 128, 400])
@pytest.mark.parametrize("cap", [64, 300, 10 ** 7])
def test_self_compose_lower_is_below_the_exact_composition(rounds, cap):
    d = _random_pld(rounds, inf_mass=1e-4)
    exact = P.self_compose(d, rounds)
    low = P.self_compose_lower(d, rounds, cap)
    assert low.pmf.size <= max(cap, d.pmf.size * 2)
    # the truth: direct (not FFT) convolutions, exact to a few ulps of each entry
    pmf, r, base = np.ones(1), rounds, d.pmf
    while r:
        if r & 1:
            pmf = np.convolve(pmf, base)
        r >>= 1
        if r:
            base = np.convolve(base, base)
    losses = (rounds * d.offset + np.arange(pmf.size)) * d.step
    inf = 1.0 - (1.0 - d.inf_mass) ** rounds
    for e in np.linspace(0, rounds * 0.4, 40):
        truth = float(np.sum(pmf[losses > e] * -np.expm1(e - losses[losses > e]))) + inf
        assert low.get_delta(e) <= truth * (1 + 1e-12) + 1e-15
        assert exact.get_delta(e) <= truth * (1 + 1e-12) + 1e-15
    if cap >= 10 ** 7:  # nothing coarsened: the same composition
        assert low.step == exact.step and np.array_equal(low.pmf, exact.pmf)
    else:  # coarser: below the fine composition's eps (its quality: the deployment test below)
        target = 2 * inf + 1e-3     # above the +inf atom: finite answers
        assert low.get_epsilon(target) <= exact.get_epsilon(target) < np.inf


def test_a_sampled_pair_above_the_grid_limit_is_composed_on_coarsening_grids(monkeypatch):
    from accountant import make_params
    from accountant.accounting import deployment_lower as DL
    from accountant.composition import lower as L

    params, n, q, delta = make_params("rr", 3.0), 10 ** 4, 0.05, 1e-5
    direct = DL.rr_sampled_lower_epsilon(params, n, delta, q, rounds=100)
    monkeypatch.setattr(L, "MAX_PAIR_GRID", 2 ** 12)   # the plain grid no longer fits: the new path
    monkeypatch.setattr(L, "MAX_COARSEN", 1)
    coarse = DL.rr_sampled_lower_epsilon(params, n, delta, q, rounds=100)
    assert 0.8 * direct <= coarse <= direct
