"""The key-value baselines as planner candidates: planned on the equal-central comparison's own
proved accounting (one implementation, mechanisms.planning.central.own_eps0), certified, compared
by their exact errors, refused with the reason where they are not planned."""
import pytest

from accountant.bounds.registry import certified_epsilon
from mechanisms.baselines import BASELINES, default_analytic_mse
from mechanisms.planning.central import own_eps0, own_params
from mechanisms.planning.kinds import KINDS
from mechanisms.planning.planner import plan
from mechanisms.planning.screen import baseline_names, evaluate

N, D, S, EPS, DELTA = 10_000, 64, 2, 1.0, 1e-6


@pytest.fixture(scope="module")
def every_plan():
    return plan(EPS, DELTA, n=N, d=D, s=S, mechanisms=("collision", "coco") + baseline_names("mean", D, S),
                sensitivity=False)


def test_every_baseline_is_a_kind():
    assert set(BASELINES) == {name for name, kind in KINDS.items() if kind.baseline}
    assert baseline_names("mean", D, S) == tuple(BASELINES)
    assert "succinct" not in baseline_names("frequency", D, S)  # SUCCINCT estimates means only


def test_the_choice_is_made_against_the_baselines(every_plan):
    r = every_plan.recommendation
    finalists = {c.mechanism: c for c in every_plan.candidates if c.source == "finalist"}
    # at this setting PCKV-AGRR's own blanket gives it the smallest mean-estimation error
    assert r.mechanism == "pckv-agrr" and r.proved and r.eps_c <= EPS
    assert r.mse == min(c.mse for c in finalists.values())
    assert finalists["collision"].mse > 1.5 * r.mse
    # its eps0 is the comparison's search (planner rtol) and its certified eps_c the forward's
    e0, params, own, _ = own_eps0("pckv-agrr", N, D, S, EPS, DELTA)
    assert own and r.eps0 == pytest.approx(e0, rel=2e-4) and r.eps0 <= e0 * (1 + 1e-12)
    assert certified_epsilon(own_params("pckv-agrr", N, D, S)(r.eps0), N, DELTA).epsilon == r.eps_c
    assert r.mse_mean == default_analytic_mse("pckv-agrr", N, D, S, r.eps0)["mse_mean"]
    # PrivKV's least screened error is above the best proved one: its proved search is skipped
    assert "privkv" not in finalists
    pk = [c for c in every_plan.candidates if c.mechanism == "privkv"]
    assert len(pk) == 1 and not pk[0].proved and pk[0].mse > r.mse


def test_succinct_candidate_is_its_own_accounting():
    c = evaluate("succinct", 0, N, D, S, EPS, DELTA, "mean")
    assert c.proved and c.bound == "blanket" and c.eps_c <= EPS
    generic = evaluate("pckv-grr", 0, N, D, S, EPS, DELTA, "mean")
    assert c.eps0 > generic.eps0  # its exact local parameter is eps0 min(s, eta)/eta < eps0


@pytest.mark.parametrize("kw,words", [
    ({"mechanisms": ("pckv-grr",), "rounds": 2}, "one round"),
    ({"mechanisms": ("succinct",), "estimate": "frequency"}, "means only"),
    ({"mechanisms": ("pckv-ue",), "bound": "paper"}, "proved bound only"),
])
def test_refused_where_not_planned(kw, words):
    with pytest.raises(ValueError, match=words):
        plan(EPS, DELTA, n=N, d=D, s=S, sensitivity=False, **kw)
