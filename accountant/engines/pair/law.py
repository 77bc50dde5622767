"""The dominating pair (P_a, Q_a) of the shuffle model and the windows of its divergence sum.

Part of :mod:`accountant.engines.pair`; the package docstring has the mathematics.
"""
from __future__ import annotations
import math
from dataclasses import dataclass
from typing import Optional
import numpy as np
from accountant.engines.binomial import (
    binom_log_tail_bound,
)
from accountant.core.result import CertifiedDelta
from accountant.engines.search import smallest_true

# Relative bound on the floating-point error of the float path's window sum
# (the errors stay far below it; tests/accountant/engines/test_divergence.py).  The upper
# bound adds it, the lower bound subtracts it.
FLOAT_REL_ERROR = 1e-10
# Relative bound on the error of the float path's log(delta) (from the log scale M
# and exp/log of numbers of size |log delta|: a few hundred ulps of |log delta|).
# Added to FLOAT_REL_ERROR on the log scale; it matters only far below the float
# range (tests/accountant/engines/test_precision.py checks both margins against arb over a grid).
FLOAT_LOG_REL_ERROR = 1e-13
# The window leaves out at most this fraction of the target delta.
TRUNCATION_FRACTION = 1e-13
LOG_TINY = math.log(1e-300) + math.log(TRUNCATION_FRACTION)  # used when delta = 0
# Cost model of the window sum: at most this many terms of m (about 200 bytes each on the
# float path, so ~0.1 GB; ~0.3 s an evaluation); a longer window is narrowed and its extra left-out mass added to
# the upper end (a looser but still proved bound), see ``window_log``.
MAX_WINDOW_TERMS = 500_000


@dataclass(frozen=True)
class DominatingPair:
    """The two-dimensional pair (P, Q) described in the module docstring.

    Parameters
    ----------
    n : number of users (>= 1).
    c : success probability of C ~ Bin(n-1, c), in (0, 1).
    p, q : probabilities of (D1, D2) = (1, 0) and (0, 1); p > q >= 0.
    r : probability of (0, 0); p + q + r = 1 (passed explicitly so that it keeps
        its digits when it is a small difference, e.g. Collision's (t-2s)/Omega).

    Examples
    --------
    >>> import math
    >>> from accountant import DominatingPair, fmt, hockey_stick_divergence
    >>> pair = DominatingPair.stronger_clone(10_000, 1.0, 1.0 / (math.e + 1.0))
    >>> print(pair.n, fmt(pair.c, 4), fmt(pair.eps_max, 4))
    10000 0.5379 1
    >>> print(fmt(hockey_stick_divergence(pair, 0.05).upper, 3, "up"))
    1.07e-7
    """

    n: int
    c: float
    p: float
    q: float
    r: float

    def __post_init__(self) -> None:
        if isinstance(self.n, bool) or not isinstance(self.n, (int, np.integer)) or self.n < 1:
            raise ValueError(f"n must be an integer >= 1, got {self.n!r}")
        for name in ("c", "p", "q", "r"):
            v = getattr(self, name)
            if not (isinstance(v, (float, int, np.floating)) and math.isfinite(v)):
                raise ValueError(f"{name} must be a finite number, got {v!r}")
        if not 0.0 < self.c < 1.0:
            raise ValueError(f"c must lie in (0, 1), got {self.c!r}")
        if not (0.0 <= self.q < self.p <= 1.0):
            raise ValueError(f"need 0 <= q < p <= 1, got p={self.p!r}, q={self.q!r}")
        if self.r < -1e-12 or abs(self.p + self.q + self.r - 1.0) > 1e-12:
            raise ValueError(f"p + q + r must equal 1 with r >= 0, got p={self.p}, q={self.q}, r={self.r}")
        object.__setattr__(self, "n", int(self.n))
        object.__setattr__(self, "r", max(float(self.r), 0.0))

    @classmethod
    def stronger_clone(cls, n: int, eps0: float, a: float, r: Optional[float] = None) -> "DominatingPair":
        """Pair of the stronger clone reduction with mixture weight ``a`` (Theorem 1).

        ``r`` defaults to 1 - a (1 + e^eps0); pass it when it is known in closed form.
        Requires a (1 + e^eps0) <= 1.
        """
        e = math.exp(eps0)
        if not (0.0 < a and a * (1.0 + e) <= 1.0 + 1e-12):
            raise ValueError(
                f"mixture weight a must satisfy 0 < a <= 1/(e^eps0 + 1) = {1.0 / (1.0 + e):.6g}, got {a!r}"
            )
        if r is None:
            r = 1.0 - a * (1.0 + e)
        return cls(n=n, c=2.0 * a, p=e * a, q=a, r=r)

    @classmethod
    def clone(cls, n: int, eps0: float) -> "DominatingPair":
        """Pair of the clone reduction (Feldman, McMillan, Talwar, FOCS 2021, Theorem 3.2)."""
        return cls(n=n, c=math.exp(-eps0), p=1.0 / (1.0 + math.exp(-eps0)),
                   q=1.0 / (1.0 + math.exp(eps0)), r=0.0)

    @classmethod
    def clone_pq(cls, n: int, p: float, q: float) -> "DominatingPair":
        """Clone pair with the first user's ratio ``p`` and mixing probability ``c = 1/q``
        (every other user is a clone of x1 or x1' w.p. 1/(2q) each; FMT21 Section 3, valid when
        R(x) >= (R(x1) + R(x1'))/(2q) for every other input x).  ``clone(n, eps0)`` is
        ``clone_pq(n, e^eps0, e^eps0)``."""
        if not (p > 1.0 and q > 1.0 and math.isfinite(p) and math.isfinite(q)):
            raise ValueError(f"p and q must be finite numbers > 1, got p={p!r}, q={q!r}")
        return cls(n=n, c=1.0 / q, p=p / (1.0 + p), q=1.0 / (1.0 + p), r=0.0)

    @property
    def eps_max(self) -> float:
        """log(p/q): the divergence is 0 for eps >= eps_max (inf when q = 0)."""
        return math.inf if self.q == 0 else math.log(self.p / self.q)


@dataclass(frozen=True)
class DivergenceValue(CertifiedDelta):
    """D_{e^eps}(P || Q) with certified bounds.

    ``upper`` is a certified upper bound (window sum plus floating-point margin plus
    the bound on truncated mass), ``lower`` a certified lower bound (window sum
    minus margin), ``value`` the best estimate (the window sum).  ``slope`` is
    d delta/d eps of the window sum (<= 0).  The ``log_*`` fields are the natural
    logs of the same quantities (-inf for 0); they stay finite when delta is below
    the float range (~1e-308), where ``value``/``upper``/``lower`` underflow (upper
    is then the smallest positive float, still an upper bound).  ``log_slope`` is
    d log(delta)/d eps of the window sum; ``digits`` the significant digits of the
    window sum certified (arb) or agreed at two precisions (mpmath), None for float.
    """

    window: tuple[int, int]
    method: str
    log_value: float = -math.inf
    log_upper: float = -math.inf
    log_lower: float = -math.inf
    log_truncated: float = -math.inf
    log_slope: float = 0.0
    digits: Optional[float] = None


# ----------------------------------------------------------------------------
# Window selection
# ----------------------------------------------------------------------------

def window_log(pair: DominatingPair, log_mass: float) -> tuple[int, int, float]:
    """Range [m_lo, m_hi] of m and the log of a bound on the mass of m outside it.

    Chooses the window so that P[C <= m_lo - 1] and P[C >= m_hi] are each at most
    exp(log_mass) by the Chernoff bound; returns the log of the sum of the two bounds
    (-inf when nothing is left out), so that bounds below 1e-308 do not underflow.
    """
    n = pair.n
    N = n - 1
    if N == 0:
        return 1, 1, -math.inf
    m_lo, m_hi = _window_ends(pair, log_mass)
    if m_hi - m_lo + 1 > MAX_WINDOW_TERMS:
        # cost model: a window longer than MAX_WINDOW_TERMS (memory ~ 200 bytes a term) is
        # narrowed by raising the left-out mass; what it leaves out is bounded below and
        # added to the upper end, so the result stays a proved (looser) upper bound
        lo_lm, hi_lm = log_mass, 0.0
        for _ in range(200):
            mid = 0.5 * (lo_lm + hi_lm)
            a, b = _window_ends(pair, mid)
            if b - a + 1 > MAX_WINDOW_TERMS:
                lo_lm = mid
            else:
                hi_lm = mid
            if hi_lm - lo_lm <= 1e-9 * max(1.0, abs(hi_lm)):
                break
        m_lo, m_hi = _window_ends(pair, hi_lm)
        if m_hi - m_lo + 1 > MAX_WINDOW_TERMS:  # pragma: no cover - defensive
            mid = (m_lo + m_hi) // 2
            m_lo, m_hi = mid - MAX_WINDOW_TERMS // 2 + 1, mid + MAX_WINDOW_TERMS // 2
    c = pair.c

    def log_upper(m: float) -> float:
        return float(binom_log_tail_bound(np.array([m]), N, c, upper=True)[0])

    def log_lower(m: float) -> float:
        return float(binom_log_tail_bound(np.array([m]), N, c, upper=False)[0])

    log_trunc = -math.inf
    if m_hi < n:
        log_trunc = float(np.logaddexp(log_trunc, log_upper(m_hi)))
    if m_lo > 1:
        log_trunc = float(np.logaddexp(log_trunc, log_lower(m_lo - 1)))
    # logaddexp is accurate to a few ulps; step up so the bound stays a bound
    return m_lo, m_hi, up_ulps(log_trunc)


def _window_ends(pair: DominatingPair, log_mass: float) -> tuple[int, int]:
    """[m_lo, m_hi] placed by the scalar Chernoff bound (see ``window_log``)."""
    n = pair.n
    N = n - 1
    c = pair.c
    mean = N * c

    def chernoff(x: float) -> float:
        # -N KL(x/N || c): a cheap scalar version, used only to place the window;
        # the mass actually left out is bounded below with the accurate kernel.
        if x <= 0.0:
            return N * math.log1p(-c)
        if x >= N:
            return N * math.log(c)
        return -(x * math.log(x / mean) + (N - x) * math.log((N - x) / (N - mean)))

    # right end: smallest integer m_hi >= mean with the bound on P[C >= m_hi] <= exp(log_mass)
    if chernoff(float(N)) > log_mass:
        m_hi = n
    else:
        m_hi = min(smallest_true(lambda m: chernoff(float(m)) <= log_mass, int(math.floor(mean)), N) + 1, n)
    # left end: largest m_lo with the bound on P[C <= m_lo - 1] <= exp(log_mass)
    if chernoff(0.0) > log_mass:
        m_lo = 1
    else:
        # the largest m in [0, ceil(mean)) whose bound is <= exp(log_mass)
        lo = smallest_true(lambda m: chernoff(float(m)) > log_mass, 0, int(math.ceil(mean))) - 1
        m_lo = max(lo, 1)
    return m_lo, m_hi


def up_ulps(x: float, ulps: int = 4) -> float:
    """x moved up by a few ulps (directed rounding of a computed upper bound)."""
    for _ in range(ulps):
        x = math.nextafter(x, math.inf)
    return x


def _window(pair: DominatingPair, log_mass: float) -> tuple[int, int, float]:
    """As ``window_log``, with the bound on the left-out mass as a number."""
    m_lo, m_hi, log_trunc = window_log(pair, log_mass)
    return m_lo, m_hi, math.exp(log_trunc)


def h_coefficients(pair: DominatingPair, eps: float) -> tuple[float, float]:
    """h_m = u * m + v with u, v from the module docstring (exact in form)."""
    th = math.tanh(eps / 2.0)
    scale = th / (2.0 * (pair.p - pair.q))
    gamma = pair.r * pair.c / (1.0 - pair.c)
    # h_m = scale * (m (p + q - gamma) + gamma n)
    return scale * (pair.p + pair.q - gamma), scale * gamma * pair.n
