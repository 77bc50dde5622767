"""The one number formatter of the toolkit (dashboard pages, exported tables, figures).

An upper bound printed rounded down is no longer an upper bound: every printed bound goes
through :func:`fmt` with the direction of its claim ("up" for upper bounds, "down" for
lower bounds), applied to the exact binary value of the float (no double rounding).
"""
from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Decimal
from numbers import Integral
from typing import Optional

DIRECTIONS = (None, "up", "down")


def fmt(x, digits: int = 6, direction: Optional[str] = None, thousands: bool = True) -> str:
    """``x`` with ``digits`` significant digits.

    * None / NaN -> "n/a"; +-inf -> "inf" / "-inf"; integers -> thousands separators
      (1,000,000,000; plain digits with ``thousands=False``);
    * floats -> ``digits`` significant digits, trailing zeros dropped; fixed notation for
      1e-3 <= |x| < 10^digits (0.001234, 12.35), scientific otherwise (1.32e-4, 9.3e+7);
    * ``direction``: "up" rounds toward +inf (an upper bound stays an upper bound once
      printed), "down" toward -inf (a lower bound, a largest admissible eps0), None to
      nearest.

    Examples
    --------
    >>> from accountant import fmt
    >>> print(fmt(0.0239129357, 3, "up"), fmt(0.0239129357, 3, "down"), fmt(0.0239129357, 3))
    0.024 0.0239 0.0239
    >>> print(fmt(1.3e-12, 2, "up"), fmt(None), fmt(10**9))
    1.3e-12 n/a 1,000,000,000
    """
    if x is None:
        return "n/a"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, Integral):
        return f"{int(x):,}" if thousands else str(int(x))
    if isinstance(digits, bool) or not isinstance(digits, Integral) or digits < 1:
        raise ValueError(f"digits must be an integer >= 1, got {digits!r}")
    x = float(x)
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0.0:
        return "0"
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be None, 'up' or 'down', got {direction!r}")
    mode = {None: ROUND_HALF_EVEN, "up": ROUND_CEILING, "down": ROUND_FLOOR}[direction]
    d = Decimal(x)  # exact value of the float
    r = d.quantize(Decimal(1).scaleb(d.adjusted() - digits + 1), rounding=mode)
    exp = r.adjusted()
    if -3 <= exp < digits:
        text = format(r, "f")
        return text.rstrip("0").rstrip(".") if "." in text else text
    mant = format(r.scaleb(-exp), "f")
    mant = mant.rstrip("0").rstrip(".") if "." in mant else mant
    return f"{mant}e{'+' if exp > 0 else '-'}{abs(exp)}"


def floor_at_resolution(x: float, rtol: float) -> float:
    """``x`` (a lower bound found by a search that resolves it to ``rtol``, relative) rounded down
    to the decimal grid of spacing 10^k <= x rtol, as the smallest float at or above that decimal
    (never above ``x``): the digits the search does not resolve are dropped, so machines whose
    floats differ in the last bits (another CPU's exp, another BLAS) print the same lower bound
    but where the value lies within that noise of a grid point.  Still a lower bound: it is <= x.
    0, inf and nan are returned unchanged.

    >>> from accountant.core.numfmt import floor_at_resolution
    >>> a, b = floor_at_resolution(0.009001747770384781, 1e-6), floor_at_resolution(0.009001747769, 1e-6)
    >>> print(a == b, fmt(a, 10, "down"), a <= 0.009001747769)
    True 0.009001747 True
    """
    if not (math.isfinite(x) and x > 0.0):
        return x
    if not 0.0 < rtol < 1.0:
        raise ValueError(f"rtol must lie in (0, 1), got {rtol!r}")
    d = Decimal(x)
    step = Decimal(1).scaleb(math.floor(math.log10(x * rtol)))
    grid = (d / step).to_integral_value(rounding=ROUND_FLOOR) * step
    y = float(grid)
    if Decimal(y) < grid:  # the nearest float fell below the decimal: the next one up
        y = math.nextafter(y, math.inf)
    return min(y, x)
