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
