"""local_epsilon(hash_model="random"): every candidate is checked on the bound proved under
the random-hash model, so the answer's certified eps_c under that model is <= the target
and eps0 * 1.001 exceeds it; the answer is at least the any-hash one (random <= any)."""
import pytest

from accountant import local_epsilon, make_params
from accountant.bounds.registry import proved_params_epsilon


@pytest.mark.parametrize("mech,kw,eps,measured", [
    # four-corner law (exact for OLH); the three-atom law it replaced gave 2.2755 and 5.05535;
    # Collision with all atoms (lattice engine): 5.06310 (four corners alone: 5.06048)
    ("olh", {"k": 10}, 0.1, 2.31988),         # any-hash: 2.2344
    ("collision", {"s": 4}, 0.5, 5.06310),    # any-hash: 5.05490
])
def test_random_inverse_is_verified_and_tight(mech, kw, eps, measured):
    n, delta = 10_000, 1e-6
    er = local_epsilon(n, eps, delta, mechanism=mech, hash_model="random", **kw)
    ea = local_epsilon(n, eps, delta, mechanism=mech, **kw)
    assert er == pytest.approx(measured, rel=1e-4)
    assert er >= ea
    at = proved_params_epsilon(make_params(mech, er, hash_model="random", **kw), n, delta, 1e-9)
    assert at.name == "blanket" and at.epsilon <= eps
    above = proved_params_epsilon(make_params(mech, er * 1.001, hash_model="random", **kw), n, delta, 1e-9)
    assert above.epsilon > eps
    # the same eps0 under the any-hash model is not certified at the target
    assert proved_params_epsilon(make_params(mech, er, **kw), n, delta, 1e-9).epsilon > eps


def test_random_refused_outside_collision_olh():
    with pytest.raises(ValueError, match="hash_model 'random' is available for collision, coco and olh only"):
        local_epsilon(10_000, 0.5, 1e-6, mechanism="krr", k=4, hash_model="random")
    with pytest.raises(ValueError, match="hash_model must be 'any' or 'random'"):
        local_epsilon(10_000, 0.5, 1e-6, mechanism="olh", k=4, hash_model="fixed")


def test_cli_local_epsilon_passes_the_model(capsys):
    import json

    from accountant.interfaces.cli.main import main

    assert main(["local-epsilon", "--n", "10000", "--eps", "0.1", "--delta", "1e-6", "--mechanism",
                 "olh", "--k", "10", "--hash-model", "random", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hash_model"] == "random" and out["eps0"] == pytest.approx(2.31988, rel=1e-4)
    assert out["achieved_epsilon"] <= 0.1
