"""Issue 44 item 14: Collision / CoCo lower ends with the image sizes (laws/image_sizes.py).

The class law is checked against brute force over every hash function (Collision:
accountant.engines.enumeration; CoCo: the mechanism's own output law,
mechanisms.randomizers.coco.coco_output_distribution, over every (H1, H2) of six
coordinates), and the issue's zero lower end is now the datasets' exact value."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from accountant.bounds.laws import image_sizes as I
from accountant.engines import enumeration as En
from accountant.interfaces.cli.main import _human, run

EPS = [0.5, 2.0, 3.5, 4.8]


def test_collision_class_law_is_the_brute_force_divergence():
    alpha = En.collision_alphabet(3, 2, 6, 6.0)  # every function of the six items into [6]
    x1, x1p, x0 = next(tr for tr in itertools.permutations(alpha.inputs, 3)
                       if len(set(tr[0]) | set(tr[1]) | set(tr[2])) == 6)
    for n in (1, 2, 3):
        brute = En.collision_shuffled_divergence(alpha, x1, x1p, [x0] * (n - 1), EPS)
        ours = [I.exact_lower_delta("collision", 6.0, 2, 6, n, e) for e in EPS]
        assert np.allclose(ours, brute, rtol=1e-8, atol=1e-13)
        assert all(o <= b for o, b in zip(ours, brute))  # a lower end
    assert I.eps_max("collision", 6.0, 2, 6) == pytest.approx(6.0)  # e^eps0: reached by the law


def test_coco_class_law_is_the_brute_force_divergence():
    from mechanisms.randomizers.coco import coco_output_distribution

    d, t, s, eps0 = 6, 6, 2, 6.0
    ins = [np.array([0, 1]), np.array([2, 3]), np.array([4, 5])]
    signs = np.ones(s)
    symbols: dict = {}
    for h1 in itertools.product(range(t // 2), repeat=d):
        h1 = np.array(h1)
        for h2 in itertools.product((-1, 1), repeat=d):
            h2 = np.array(h2)
            P = [coco_output_distribution(x, signs, h1, h2, eps0, t) for x in ins]
            for z in range(t):  # a report's class: its probabilities under the three inputs
                key = tuple(round(float(p[z]), 12) for p in P)
                symbols[key] = symbols.get(key, 0.0) + 1.0
    total = (t // 2) ** d * 2 ** d
    keys = list(symbols)
    law = np.array([[k[j] * symbols[k] / total for k in keys] for j in range(3)])
    assert np.allclose(law.sum(axis=1), 1.0)
    for n in (1, 2):
        brute = En.shuffled_hockey_stick(np.array([law[0]] + [law[2]] * (n - 1)),
                                         np.array([law[1]] + [law[2]] * (n - 1)), EPS)
        ours = [I.exact_lower_delta("coco", eps0, s, t, n, e) for e in EPS]
        assert np.allclose(ours, brute, rtol=1e-8, atol=1e-12)
    assert brute[-1] == pytest.approx(0.149313, abs=1e-6)  # the issue's exact value at n = 2


def test_the_issue_example_is_no_longer_zero():
    argv = ["delta", "--eps", "4.8", "--n", "2", "--eps0", "6", "--mechanism", "coco", "--s", "2",
            "--t", "6", "--d", "6", "--hash-model", "random"]
    out = run(argv)
    assert 0.1493131 <= out["lower_delta"] <= 0.1493132 <= out["delta"]
    assert "lower_zero_reason" not in out
    lo = run(["epsilon", "--delta", "0.1", "--n", "2", "--eps0", "6", "--mechanism", "coco", "--s", "2",
              "--t", "6", "--d", "6"])
    assert 5.1 < lo["lower_epsilon"] <= lo["epsilon"]  # was at most the reductions' eps_max 2.40
    # beyond the exact evaluation's cap, a 0 says why
    out = run(argv[:4] + ["10"] + argv[5:])
    assert out["lower_delta"] == 0.0 and "forget the image sizes" in out["lower_zero_reason"]
    assert "why 0: 0 is what the reduced reports give" in _human("delta", out)


def test_lower_bounds_stay_below_the_proved_upper_bound_with_the_image_sizes():
    for mech in ("collision", "coco"):
        for n in (2, 3):
            for eps in (0.2, 1.0, 2.5, 4.0):
                common = ["--n", str(n), "--eps0", "4", "--mechanism", mech, "--s", "2", "--t", "6", "--d", "6"]
                low = run(["delta", "--eps", str(eps), *common, "--bound", "lower"])["delta"]
                up = run(["delta", "--eps", str(eps), *common])["delta"]
                assert 0.0 <= low <= up, (mech, n, eps)
                assert math.isfinite(low)


def test_dataset_texts():
    olh = run(["epsilon", "--n", "1000", "--eps0", "2", "--delta", "1e-6", "--mechanism", "olh", "--k", "8",
               "--bound", "lower-worst-hash"])["reason"]
    assert "pair" not in olh and "[d]" not in olh and "of [k], k = 8" in olh and "g = 8" in olh
    coll = run(["epsilon", "--n", "1000", "--eps0", "2", "--delta", "1e-6", "--mechanism", "collision", "--s",
                "4", "--d", "128"])["lower_dataset"]
    assert "categories beyond the cost cap" not in coll and "only where the evaluation's cost cap is reached" in coll
