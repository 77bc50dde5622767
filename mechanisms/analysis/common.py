"""What the Collision and CoCo error formulas share: input checks, the t rules (the admissible
output sizes as a record, :class:`TRule`; paper's t*, CoCo's default and non-missing t), the
MSE and per-coordinate variance records, the count vectors from item counts.
"""
from __future__ import annotations
import math
from dataclasses import dataclass
from typing import Callable, NamedTuple, Optional
import numpy as np
from accountant.core.limits import check_positive_number, int_in_span, int_span
from accountant.core.rules import coco_theorem7_t, collision_paper_t

#: Largest output-domain size supported (hash range tables use 64-bit arithmetic).
T_MAX = 2**31 - 1


class MSE(NamedTuple):
    """Sum-over-coordinates mean squared errors of the three estimators.

    item : sum over the 2d items ``jb`` of the squared error of ``[jb in Y_x]`` averages.
    mean : sum over the d coordinates of the squared error of the mean estimate.
    nonmissing : sum over the d coordinates of the squared error of the
        non-missing frequency estimate.
    """

    item: float | np.ndarray
    mean: float | np.ndarray
    nonmissing: float | np.ndarray


# --------------------------------------------------------------------------- helpers
def check_eps0(eps0) -> float:
    """eps0 in (0, 700] (e^eps0 stays a float)."""
    return check_positive_number("eps0", eps0, 700.0)


def eps0_values(eps0):
    """A scalar eps0 (as :func:`check_eps0`) or an array of them (broadcast against t)."""
    if isinstance(eps0, np.ndarray) and eps0.ndim > 0:
        e = eps0.astype(np.float64)
        if not (np.all(np.isfinite(e)) and np.all(e > 0.0) and np.all(e <= 700.0)):
            raise ValueError(f"eps0 must be finite numbers in (0, 700], got {eps0!r}")
        return e
    return check_eps0(eps0)


def check_int(name: str, value, lo: int, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer {int_span(lo, hi)}, got {value!r}")
    return int_in_span(name, int(value), lo, hi)


def t_array(t, name: str = "t") -> np.ndarray:
    ta = np.asarray(t)
    if ta.dtype.kind not in "iu":
        if ta.dtype.kind == "f" and np.all(np.isfinite(ta)) and np.all(ta == np.round(ta)):
            ta = ta.astype(np.int64)
        else:
            raise ValueError(f"{name} must be integer-valued, got {t!r}")
    return ta.astype(np.float64)


def check_collision_t_array(t, s: int) -> np.ndarray:
    ta = t_array(t)
    if np.any(ta <= s) or np.any(ta > T_MAX):
        raise ValueError(f"t must be an integer with s < t <= {T_MAX} (s = {s}), got {t!r}")
    return ta


def check_coco_t_array(t, s: int) -> np.ndarray:
    ta = t_array(t)
    if np.any(ta % 2 != 0) or np.any(ta < 2 * s + 2) or np.any(ta > T_MAX):
        raise ValueError(
            f"t must be an even integer with 2s + 2 = {2 * s + 2} <= t <= {T_MAX - 1}, got {t!r}"
        )
    return ta


def check_coco_t(t, s: int) -> int:
    """Validate a scalar CoCo ``t``: even integer, ``2s + 2 <= t <= T_MAX - 1`` (Algorithm 1)."""
    msg = f"t must be an even integer with 2s + 2 = {2 * s + 2} <= t <= {T_MAX - 1}, got {t!r}"
    if isinstance(t, bool) or not isinstance(t, (int, np.integer)):
        raise ValueError(msg)
    t = int(t)
    if t % 2 or t < 2 * s + 2 or t > T_MAX - 1:
        raise ValueError(msg)
    return t


def as_scalar(x):
    x = np.asarray(x)
    return float(x) if x.ndim == 0 else x


# --------------------------------------------------------------------------- choices of t
@dataclass(frozen=True)
class TRule:
    """The admissible output sizes t of a hashed randomizer at sparsity s: from
    ``smallest(s)`` to ``top`` in steps of ``step`` (``words``: the rule in a message);
    ``max_s``: the largest s with an admissible t (None: no bound on s).

    Examples
    --------
    >>> from mechanisms.analysis.common import COCO_T
    >>> COCO_T.smallest(3), COCO_T.nearest(3, 11.2), COCO_T.nearest(3, 2.0)
    (8, 12, 8)
    """

    words: str
    smallest: Callable[[int], int]
    step: int
    top: int
    max_s: Optional[int] = None

    def nearest(self, s: int, t: float) -> int:
        """The admissible t nearest to ``t`` (rounded to the step, then clipped)."""
        return int(min(max(round(t / self.step) * self.step, self.smallest(s)), self.top))


#: Collision (Definition 5): t > s, at most T_MAX
COLLISION_T = TRule("> s", lambda s: s + 1, 1, T_MAX, T_MAX - 1)
#: CoCo (Algorithm 1): an even t >= 2s + 2, at most T_MAX - 1
COCO_T = TRule(">= 2s + 2", lambda s: 2 * s + 2, 2, T_MAX - 1, (T_MAX - 3) // 2)


def collision_t_star(s: int, eps0: float) -> int:
    """The paper's choice ``t* = floor(s e^eps0 + 2s - 1)`` for Collision.

    Proof of Theorem 4 ("approximate optimal t* at around 2s - 1 + s e^eps"), and the
    caption of Figure 2.  Always ``> s``.  Raises ValueError if it exceeds ``T_MAX``.
    """
    s = check_int("s", s, 1)
    e = check_eps0(eps0)
    val = s * math.exp(e) + 2 * s - 1
    if not val < T_MAX + 1:
        raise ValueError(
            f"eps0 = {eps0} with s = {s} gives a default t = floor(s e^eps0 + 2s - 1) above "
            f"{T_MAX}; use a smaller eps0 or pass t explicitly"
        )
    return collision_paper_t(s, e)


def _even_at_least(x: float) -> int:
    c = int(math.ceil(x))
    return c + (c % 2)


def coco_t_default(s: int, eps0: float) -> int:
    """CoCo default t: smallest even integer ``>= ceil(s e^eps0 + s + 2)``.

    Theorem 7, equation (11) (the mean estimator; Appendix D).  Algorithm 1 needs
    ``t`` even, so the paper's value is rounded up to the next even integer.
    """
    s = check_int("s", s, 1)
    e = check_eps0(eps0)
    val = s * math.exp(e) + s + 2
    if not val < T_MAX - 2:
        raise ValueError(
            f"eps0 = {eps0} with s = {s} gives a default t = ceil(s e^eps0 + s + 2) above "
            f"{T_MAX - 1}; use a smaller eps0 or pass t explicitly"
        )
    return coco_theorem7_t(s, e)


def coco_t_nonmissing(s: int, eps0: float) -> int:
    """CoCo t for the non-missing estimator: smallest even integer ``>= ceil(s e^eps0 + 5s)``.

    Theorem 7, equation (10) (the non-missing frequency estimator, Appendix D).
    """
    s = check_int("s", s, 1)
    e = check_eps0(eps0)
    val = s * math.exp(e) + 5 * s
    if not val < T_MAX - 2:
        raise ValueError(f"eps0 = {eps0} with s = {s} gives t above {T_MAX - 1}")
    return max(_even_at_least(val), 2 * s + 2)


class CoordinateVariances(NamedTuple):
    """Per-coordinate / per-item variances for a given dataset and their sums."""

    item: np.ndarray  # (2d,)
    mean: np.ndarray  # (d,)
    nonmissing: np.ndarray  # (d,)

    def totals(self) -> MSE:
        return MSE(
            item=float(self.item.sum()), mean=float(self.mean.sum()),
            nonmissing=float(self.nonmissing.sum()),
        )


def counts_from_items(item_counts, n: int) -> tuple[np.ndarray, np.ndarray]:
    c = np.asarray(item_counts, dtype=np.float64)
    if c.ndim != 1 or c.size % 2 or c.size == 0:
        raise ValueError("item_counts must be a 1-D array of even length 2d")
    if np.any(c < 0) or np.any(c > n):
        raise ValueError(f"item_counts must lie in [0, n] = [0, {n}]")
    cj = c[0::2] + c[1::2]
    if np.any(cj > n):
        raise ValueError("item_counts: c(j+) + c(j-) must be <= n")
    return c, cj
