"""The dashboard's one number formatter (app/common.py ``fmt``): literal expected strings,
directed rounding that keeps printed bounds on their safe side."""
import math
import os
import random
import sys

import numpy as np
import pytest

pytest.importorskip("streamlit")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "app"))
import common  # noqa: E402


@pytest.mark.parametrize("x,digits,direction,text", [
    (None, 6, None, "n/a"),
    (float("nan"), 6, None, "n/a"),
    (float("inf"), 6, None, "inf"),
    (0.0, 6, None, "0"),
    (10**9, 6, None, "1,000,000,000"),
    (np.int64(1234567), 6, None, "1,234,567"),
    (0.000132456, 4, None, "1.325e-4"),  # not 0.000132...
    (0.000132456, 3, "up", "1.33e-4"),
    (0.000132456, 3, "down", "1.32e-4"),
    (0.5, 6, None, "0.5"),
    (12.3456, 4, "up", "12.35"),
    (12.3456, 4, "down", "12.34"),
    (0.99999999, 4, "up", "1"),
    (0.99999999, 4, "down", "0.9999"),
    (-0.0012345, 3, "up", "-0.00123"),
    (-0.0012345, 3, "down", "-0.00124"),
    (93000.0, 4, None, "9.3e+4"),
    (123456.0, 6, None, "123456"),
    (1e-12, 6, None, "1e-12"),
])
def test_literal_strings(x, digits, direction, text):
    assert common.fmt(x, digits, direction) == text


def test_directed_rounding_is_on_the_safe_side():
    rng = random.Random(7)
    for _ in range(2000):
        x = 10 ** rng.uniform(-9, 9) * rng.choice((1, -1))
        d = rng.randint(2, 8)
        up, down, near = (float(common.fmt(x, d, r).replace(",", "")) for r in ("up", "down", None))
        assert down <= x <= up
        assert math.isclose(near, x, rel_tol=0.51 * 10 ** (1 - d))
        assert up - down <= 10 ** (math.floor(math.log10(abs(x))) - d + 1) * 1.000001


def test_bad_direction():
    with pytest.raises(ValueError, match="direction"):
        common.fmt(1.0, 4, "sideways")
