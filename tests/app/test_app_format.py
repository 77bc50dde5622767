"""The dashboard's one number formatter (app/common.py ``fmt``): literal expected strings,
directed rounding that keeps printed bounds on their safe side."""
import math
import os
import random
import sys

import numpy as np
import pytest
from tests.paths import REPO_ROOT

sys.path.insert(0, os.path.join(REPO_ROOT, "app"))
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


def test_log_axis_decades_and_narrow_ranges():
    wide = common.log_axis("eps", [1e-5, 0.2, 3.0])
    assert wide["type"] == "log" and wide["dtick"] == 1 and wide["exponentformat"] == "power"
    assert "tickvals" not in wide  # decades only: no "2" for both 0.2 and 2, no SI prefix
    narrow = common.log_axis("MSE", [7.2e-4, 1.03e-3])
    assert narrow["ticktext"] == ["8e-4", "9e-4", "0.001"]
    assert all(7.2e-4 <= v <= 1.03e-3 for v in narrow["tickvals"])
    ts = common.log_axis("t", [1178, 26480])
    assert ts["ticktext"] == ["2,000", "5,000", "10,000", "20,000"]
    assert common.log_axis("x", [])["dtick"] == 1


def test_number_columns_counts_and_floats():
    cfg = common.number_columns([{"n": 10**9, "eps": 0.5, "name": "a", "ok": True}])
    assert set(cfg) == {"n", "eps"}
    assert cfg["n"]["type_config"]["format"] == "localized"
    assert cfg["eps"]["type_config"]["format"] == "%.4g"


def test_store_put_keeps_the_newest_entries_and_never_drops_what_it_inserts():
    store = {"a": 1, "b": 2}
    common.store_put(store, [(0, 0), (1, 1)], 3)
    assert list(store) == ["b", 0, 1]
    store = {"a": 1}
    common.store_put(store, [(i, i) for i in range(5)], 3)  # a batch larger than the limit
    assert list(store) == [0, 1, 2, 3, 4]
