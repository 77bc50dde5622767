"""floor_at_resolution: a lower bound rounded down to the digits its search resolves, the same on
machines whose floats differ in the last bits, never above the value."""
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from accountant.core.numfmt import floor_at_resolution, fmt


@pytest.mark.parametrize("rtol", [1e-9, 1e-6, 1e-3])
def test_below_the_value_within_ten_resolutions_and_a_decimal_of_the_grid(rtol):
    rng = np.random.default_rng(7)
    for x in 10.0 ** rng.uniform(-12, 3, 2000):
        y = floor_at_resolution(float(x), rtol)
        assert y <= x and x - y <= 10 * rtol * x
        step = Decimal(1).scaleb(math.floor(math.log10(x * rtol)))
        grid = (Decimal(y) / step).to_integral_value(rounding="ROUND_FLOOR") * step
        # y is the smallest float at or above its decimal grid point (or x itself)
        assert Fraction(y) >= Fraction(grid) and (y == x or Fraction(math.nextafter(y, 0.0)) < Fraction(grid))
        # printed rounded down at 10 digits it is that decimal
        assert y == x or Decimal(fmt(y, 10, "down")) == grid


def test_float_noise_below_the_resolution_does_not_change_it():
    # values a few ulps apart (another CPU's exp) map to one grid point unless they straddle it
    rng = np.random.default_rng(11)
    same = 0
    for x in rng.uniform(0.001, 1.0, 5000):
        ys = {floor_at_resolution(float(x) * (1 + k * 1e-13), 1e-6) for k in (-3, 0, 3)}
        same += len(ys) == 1
    assert same >= 4990  # straddling: probability ~ 6e-13 / 1e-6 per value


def test_zero_inf_nan_and_a_bad_rtol():
    assert floor_at_resolution(0.0, 1e-6) == 0.0 and floor_at_resolution(math.inf, 1e-6) == math.inf
    assert math.isnan(floor_at_resolution(math.nan, 1e-6))
    with pytest.raises(ValueError, match="rtol must lie in"):
        floor_at_resolution(0.5, 0.0)
