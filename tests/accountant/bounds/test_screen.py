"""The inverses' screen agrees with the forward wherever it speaks: ``forward_verdict(params, n, eps,
delta)`` is True exactly when the forward's certified eps_c (``registry.certified_epsilon``, what
``epsilon`` prints) is <= eps, False exactly when it is above, or None; and it does speak away
from the forward's number (else it would save nothing)."""
import math

import pytest

from accountant.bounds.registry import certified_epsilon
from accountant.bounds.screen import MEETS_MARGIN, forward_verdict
from accountant.core.catalogue import hadamard_response, krr as krr_matrix
from accountant.core.params import make_params

CASES = [
    ("krr", lambda: make_params("krr", 2.0, k=4), 10_000, 1e-6),
    ("krr-big-eps0", lambda: make_params("krr", 11.0, k=16), 10**7, 1e-6),
    ("collision", lambda: make_params("collision", 3.0, s=4), 50_000, 1e-8),
    ("coco", lambda: make_params("coco", 2.0, s=2), 20_000, 1e-6),
    ("olh", lambda: make_params("olh", 1.5, k=16), 2_000, 1e-5),
    ("oue", lambda: make_params("oue", 1.0, k=8), 5_000, 1e-6),
    ("rr-exact", lambda: make_params("rr", 2.0), 500, 1e-6),
    ("rr-search", lambda: make_params("rr", 4.0), 20_000, 1e-6),
    ("generic", lambda: make_params("generic", 1.0), 10_000, 1e-6),
    ("generic-small-eps0", lambda: make_params("generic", 0.3), 10_000, 1e-6),
    ("variation-ratio", lambda: make_params("variation-ratio", None, p=3.0, beta=0.4), 10_000, 1e-6),
    ("collision-random", lambda: make_params("collision", 2.0, s=2, hash_model="random"), 3_000, 1e-6),
    ("finite-krr", lambda: krr_matrix(4, 2.0), 10_000, 1e-6),
    ("finite-hadamard", lambda: hadamard_response(16, 3.0), 20_000, 1e-7),
]
FACTORS = (0.3, 0.9, 1 - 3 * MEETS_MARGIN, 1 - 1e-6, 1.0, 1 + 1e-6, 1 + 1e-4, 1.02, 1.5, 4.0)


@pytest.mark.parametrize("name,make,n,delta", CASES, ids=[c[0] for c in CASES])
def test_the_screen_agrees_with_the_forward(name, make, n, delta):
    params = make()
    c = certified_epsilon(params, n, delta).epsilon
    spoke = 0
    for f in FACTORS:
        eps = c * f
        v = forward_verdict(params, n, eps, delta)
        if v is not None:
            spoke += 1
            assert v == (c <= eps), (name, f, eps, c, v)
    # far from the forward's number it decides without it (the random-hash model's blanket, the
    # smaller of two searches, is left to the forward)
    assert spoke >= (0 if name.endswith("random") else 2), name
    if math.isfinite(params.eps0):
        assert forward_verdict(params, n, params.eps0 * 1.01, delta) is True  # post-processing


def test_the_screen_is_cheap_far_from_the_answer():
    """Far above and below the forward's number a blanket mechanism is decided by the probes (a
    few delta evaluations), not by the forward's eps searches."""
    from accountant.bounds import registry

    params, n, delta = make_params("krr", 3.0, k=4), 100_000, 1e-6
    c = certified_epsilon(params, n, delta).epsilon
    calls = []
    orig = registry.compute_params_bound

    def spy(name, *a, **k):
        calls.append(name)
        return orig(name, *a, **k)

    registry.compute_params_bound = spy
    try:
        assert forward_verdict(params, n, 1.5 * c, delta) is True
        assert forward_verdict(params, n, 0.7 * c, delta) is False
    finally:
        registry.compute_params_bound = orig
    assert "blanket" not in calls and "clone" not in calls
