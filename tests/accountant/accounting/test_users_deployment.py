"""The smallest number of users of a deployment (min_users(..., deployment=...)) inverts the very
function ``epsilon`` certifies with the same options: the deployed eps_c at the answer N meets the
target and at N - 1 does not (or N - 1 cannot hold the colluders), for sampling with either
relation, colluders, dummies, several reports and rounds."""
from __future__ import annotations

import pytest

from accountant import make_params, min_users
from accountant.accounting.batch_size import SAMPLED_MINIMALITY
from accountant.accounting.deployment import Deployment
from accountant.accounting.deployment_proof import deployed_epsilon

CASES = [  # (mechanism, eps0, options, target eps, deployment)
    ("generic", 1.0, {}, 0.3, Deployment(sampling=0.2)),
    ("rr", 1.0, {}, 0.3, Deployment(sampling=0.2, neighbours="add-remove")),
    ("krr", 2.0, {"k": 4}, 0.2, Deployment(colluders=50)),
    ("krr", 2.0, {"k": 4}, 0.2, Deployment(dummies=500)),
    ("generic", 1.0, {}, 0.5, Deployment(colluders=20, dummies=10, rounds=3)),
    ("generic", 1.0, {}, 0.5, Deployment(sampling=0.2, rounds=3)),
    ("generic", 0.5, {}, 0.3, Deployment(reports=2)),
]


@pytest.mark.parametrize("mech,eps0,opts,target,dep", CASES,
                         ids=[f"{c[0]}-{'+'.join(c[4].features)}-{c[4].relation or ''}" for c in CASES])
def test_the_answer_is_confirmed_by_the_forward(mech, eps0, opts, target, dep):
    params = make_params(mech, eps0, **opts)
    r = min_users(eps0, target, 1e-6, mech, deployment=dep, **opts)
    assert r.n is not None and r.deployment == dep.as_dict() and r.rounds == dep.rounds
    at = deployed_epsilon(params, r.n, 1e-6, dep)
    assert at.epsilon == r.epsilon_at_n <= target and at.bound == r.bound_at_n
    assert r.statement.startswith(at.statement)
    below = deployed_epsilon(params, r.n - 1, 1e-6, dep, lower=False)
    assert below.epsilon == r.epsilon_at_n_minus_1 > target
    assert r.minimality == (SAMPLED_MINIMALITY if dep.sampling is not None else None)


def test_colluders_and_dummies_move_the_plain_answer():
    """The bound at n - c + m users: the plain answer n0 moves to n0 + c - m exactly (the forward
    is the plain bound at n_eff)."""
    plain = min_users(2.0, 0.2, 1e-6, "krr", k=4).n
    assert min_users(2.0, 0.2, 1e-6, "krr", k=4, deployment=Deployment(colluders=50)).n == plain + 50
    assert min_users(2.0, 0.2, 1e-6, "krr", k=4, deployment=Deployment(dummies=500)).n == plain - 500
    many = min_users(2.0, 0.2, 1e-6, "krr", k=4, deployment=Deployment(dummies=10 * plain))
    assert many.n == 1 and many.epsilon_at_n_minus_1 is None


def test_the_plain_deployment_is_the_plain_search_and_refusals():
    assert min_users(1.0, 0.5, 1e-6, deployment=Deployment(rounds=3)) == min_users(1.0, 0.5, 1e-6, rounds=3)
    assert min_users(1.0, 0.1, 1e-6, deployment=Deployment()).as_dict() == min_users(1.0, 0.1, 1e-6).as_dict()
    for dep, word in ((Deployment(n_min=True), "deployment: n_min: the smallest N answered"),
                      (Deployment(sampling=0.5, rounds=3), "rounds: give the rounds once")):
        with pytest.raises(ValueError, match=word):
            min_users(1.0, 0.1, 1e-6, rounds=2, deployment=dep) if "once" in word else \
                min_users(1.0, 0.1, 1e-6, deployment=dep)
    with pytest.raises(ValueError, match="deployment: sampling needs an eps0-LDP randomizer"):
        min_users(None, 0.5, 1e-6, "variation-ratio", p=2.0, beta=0.3, deployment=Deployment(sampling=0.5))
    with pytest.raises(ValueError, match="deployment must be a Deployment"):
        min_users(1.0, 0.1, 1e-6, deployment={"sampling": 0.5})
