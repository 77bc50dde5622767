"""The headline's screen (accountant.bounds.headline_screen): a bound left out because its certified delta
at the best eps exceeds the target has its own eps_c above that eps, and the headline is the
same number, bound and certified delta as the minimum over every headline bound searched."""
from __future__ import annotations

import pytest

from accountant.bounds import registry as R
from accountant.bounds.headline_screen import screened_out
from accountant.core.params import make_params
from accountant.core.result import BoundResult

CASES = [("krr", {"k": 4}, 1.0, 10 ** 6, 1e-8), ("collision", {"s": 4}, 2.0, 10 ** 5, 1e-6),
         ("rr", {}, 1.0, 10 ** 7, 1e-10), ("oue", {"k": 8}, 1.0, 10 ** 5, 1e-6),
         ("generic", {}, 1.0, 10 ** 5, 1e-6)]


@pytest.mark.parametrize("mech,opts,eps0,n,delta", CASES, ids=[c[0] for c in CASES])
def test_screened_headline_is_the_minimum_over_every_bound(mech, opts, eps0, n, delta):
    params = make_params(mech, eps0, **opts)
    R._proved_cached.cache_clear()
    head = R.certified_epsilon(params, n, delta)
    every = {b: R.compute_params_bound(b, params, n, delta, R.FORWARD_RTOL) for b in R._headline_at(params, n)}
    best = R.best_proved(every, params.name)
    assert (head.name, head.epsilon, head.achieved_delta) == (best.name, best.epsilon, best.achieved_delta)
    for b, r in every.items():  # what the screen leaves out is above the answer
        out = screened_out(R.REGISTRY[b], best, params, n, delta, lambda e: R.bound_delta(b, params, n, e))
        if out is not None:
            assert b != best.name and r.epsilon > best.epsilon and "not smaller than" in out.reason
    if mech in ("krr", "collision", "rr"):  # the clone is far above the blanket here: screened
        assert screened_out(R.REGISTRY["clone"], best, params, n, delta, None) is not None


def test_not_screened_where_the_lower_end_meets_the_target():
    params = make_params("krr", 1.0, k=4)
    best = BoundResult("blanket", 0.5, True, None, 1e-6, 1e-6)
    spec = R.REGISTRY["blanket"]
    assert screened_out(spec, best, params, 1000, 1e-6, lambda e: (1e-6, 2e-6)) is None  # lower == target
    assert screened_out(spec, best, params, 1000, 1e-6, lambda e: (1.1e-6, 2e-6)) is not None
    at_eps0 = BoundResult("blanket", 1.0, True, None, 1e-6, 0.0)  # eps0: nothing to gain
    assert screened_out(spec, at_eps0, params, 1000, 1e-6, lambda e: (1.0, 1.0)) is None
    cheap = R.REGISTRY["efmrtt19"]  # a closed form is computed, not screened
    assert screened_out(cheap, best, params, 1000, 1e-6, lambda e: (1.0, 1.0)) is None
