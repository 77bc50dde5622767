"""The numerical randomizers as parameter types: the Laplace and Gaussian randomizers on an input range, Duchi
et al.'s and the piecewise mechanism (1-D means), and any (eps0, delta0)-LDP randomizer (their
laws: docs/proved.md; the registry entries: :mod:`accountant.core.params`)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from accountant.core.finite import StrongerClonePair
from accountant.core.limits import numpy_scalars
from accountant.core.randomizers import GenericLDP, KRRParams, _NoHash, validate_eps0  # _NoHash: the types' base


def _check_range(lo, hi) -> tuple:
    """An input range [lo, hi]: finite numbers with lo < hi (ValueError naming ``range``)."""
    ok = all(isinstance(v, (int, float) + numpy_scalars("integer") + numpy_scalars("floating")) and not isinstance(v, bool)
             and math.isfinite(v) for v in (lo, hi))
    if not ok or not float(lo) < float(hi):
        raise ValueError(f"range must be two finite numbers LO,HI with LO < HI (the input range), "
                         f"got {lo!r},{hi!r}")
    return float(lo), float(hi)


@dataclass(frozen=True)
class LaplaceParams(StrongerClonePair, _NoHash):
    """The Laplace randomizer on the input range [lo, hi]: a report is ``y = x + Lap(b)`` with
    scale ``b = (hi - lo) / eps0`` (pure eps0-LDP); accounted by the blanket of its continuous
    law (:mod:`accountant.bounds.continuous`).

    Examples
    --------
    >>> from accountant.core.randomizers_numerical import LaplaceParams
    >>> LaplaceParams(1.0).scale
    2.0
    >>> LaplaceParams(1.0, 1.0, 1.0)
    Traceback (most recent call last):
    ...
    ValueError: range must be two finite numbers LO,HI with LO < HI (the input range), got 1.0,1.0
    """

    eps0: float
    lo: float = -1.0
    hi: float = 1.0
    name: str = field(default="laplace", init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps0", validate_eps0(self.eps0))
        lo, hi = _check_range(self.lo, self.hi)
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)

    @property
    def scale(self) -> float:
        """The noise scale b = (hi - lo) / eps0."""
        return (self.hi - self.lo) / self.eps0

    @property
    def range(self) -> str:
        """The input range as the option's text ``LO,HI``."""
        return f"{self.lo!r},{self.hi!r}"

    @property
    def label(self) -> str:
        return "Laplace"
def check_sigma(sigma) -> float:
    """sigma > 0, finite: the Gaussian randomizer's noise standard deviation (ValueError naming it)."""
    ok = isinstance(sigma, (int, float) + numpy_scalars("integer") + numpy_scalars("floating")) \
        and not isinstance(sigma, bool) and math.isfinite(float(sigma)) and float(sigma) > 0.0
    if not ok:
        raise ValueError(f"sigma must be a finite number > 0 (the Gaussian noise's standard deviation), got {sigma!r}")
    return float(sigma)


@dataclass(frozen=True)
class GaussianParams(_NoHash):
    """The Gaussian randomizer on the input range [lo, hi]: a report is ``y = x + N(0, sigma^2)``.

    Not pure LDP (its likelihood ratios are unbounded): ``eps0`` is infinite, so no bound proved
    for eps0-LDP randomizers (clone, EFMRTT19, the generic blanket relaxations) applies, and none
    is inherited.  Accounted by the blanket of its continuous law with the ratios capped and the
    proved tail term added (:mod:`accountant.bounds.continuous`, docs/proved.md); everything
    depends on ``c = (hi - lo) / (2 sigma)`` alone.

    Examples
    --------
    >>> from accountant.core.randomizers_numerical import GaussianParams
    >>> GaussianParams(2.0).c
    0.5
    >>> GaussianParams(0.0)
    Traceback (most recent call last):
    ...
    ValueError: sigma must be a finite number > 0 (the Gaussian noise's standard deviation), got 0.0
    """

    sigma: float
    lo: float = -1.0
    hi: float = 1.0
    name: str = field(default="gaussian", init=False)
    eps0: float = field(default=math.inf, init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma", check_sigma(self.sigma))
        lo, hi = _check_range(self.lo, self.hi)
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)

    @property
    def c(self) -> float:
        """Half the range in noise standard deviations, (hi - lo) / (2 sigma): the law's one parameter."""
        return (self.hi - self.lo) / (2.0 * self.sigma)

    @property
    def range(self) -> str:
        """The input range as the option's text ``LO,HI``."""
        return f"{self.lo!r},{self.hi!r}"

    @property
    def label(self) -> str:
        return "Gaussian"


#: the valid range of delta0, the local delta of an (eps0, delta0)-LDP randomizer: [0, DELTA0_MAX)
DELTA0_MAX = 1.0


def check_delta0(delta0) -> float:
    """delta0 in [0, 1): the local delta of an (eps0, delta0)-LDP randomizer (ValueError naming
    delta0 and its range otherwise)."""
    if isinstance(delta0, bool) or not isinstance(delta0, (int, float) + numpy_scalars("integer") + numpy_scalars("floating")) \
            or not math.isfinite(float(delta0)) or not 0.0 <= float(delta0) < DELTA0_MAX:
        raise ValueError(f"delta0 must be a number in [0, 1) (the local delta of an (eps0, delta0)-LDP "
                         f"randomizer), got {delta0!r}")
    return float(delta0)


@dataclass(frozen=True)
class ApproximateLDP(_NoHash):
    """Any (eps0, delta0)-LDP randomizer: for every two inputs x, x' and every set S of outputs,
    ``P[R(x) in S] <= e^eps0 P[R(x') in S] + delta0``.  Accounted by Feldman, McMillan, Talwar,
    "Hiding among the clones" (FOCS 2021), Theorem 3.8: the shuffled output is
    (eps, delta + (e^eps + 1)(1 + e^{-eps0}/2) n delta0)-DP wherever the clone pair of an eps0-LDP
    randomizer at n users has delta(eps) <= delta (accountant.bounds.approximate_ldp).

    ``make_params("generic", eps0, delta0=D0)`` builds it for D0 > 0 (and :class:`GenericLDP`
    for D0 = 0, so delta0 = 0 is the pure bound exactly); its ``name`` is ``"generic"``.  It is
    not a subclass of :class:`GenericLDP`: no law proved for eps0-LDP randomizers is inherited.

    Examples
    --------
    >>> from accountant import make_params
    >>> make_params("generic", 1.0, delta0=1e-9)
    ApproximateLDP(eps0=1.0, delta0=1e-09, name='generic')
    """

    eps0: float
    delta0: float
    name: str = field(default="generic", init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps0", validate_eps0(self.eps0))
        object.__setattr__(self, "delta0", check_delta0(self.delta0))

    @property
    def caveat(self) -> str:
        return CAVEAT_GENERIC



@dataclass(frozen=True)
class DuchiParams(KRRParams):
    """Duchi, Jordan, Wainwright's one-dimensional mean randomizer (JASA 2018): an input x in
    [-1, 1] is reported as +B with probability 1/2 + x (e^eps0 - 1)/(2 (e^eps0 + 1)), else as -B,
    B = (e^eps0 + 1)/(e^eps0 - 1) (unbiased: E[report] = x).

    It is binary randomized response applied to a bit b ~ Bernoulli((1 + x)/2), so every dataset's
    shuffled law is a mixture of bit datasets' and, by joint convexity of the hockey-stick
    divergence, its worst case is binary RR's, attained at x in {-1, 1} (docs/proved.md,
    "Duchi et al. is binary RR"): it is a :class:`KRRParams` with k = 2 and takes every law of
    binary RR (the exact maximum over every dataset, the blanket, the lower bound's datasets).

    Examples
    --------
    >>> from accountant import make_params
    >>> make_params("duchi", 1.0)
    DuchiParams(k=2, eps0=1.0, name='duchi')
    """

    def __init__(self, eps0: float) -> None:  # noqa: D107
        object.__setattr__(self, "k", 2)
        object.__setattr__(self, "eps0", validate_eps0(eps0))
        object.__setattr__(self, "name", "duchi")

    @property
    def bound(self) -> float:
        """B = (e^eps0 + 1)/(e^eps0 - 1), the magnitude of the two reports."""
        return (math.exp(self.eps0) + 1.0) / math.expm1(self.eps0)


@dataclass(frozen=True)
class PiecewiseParams(GenericLDP):
    """Wang et al.'s piecewise mechanism ("Collecting and analyzing multidimensional data with
    local differential privacy", ICDE 2019), one dimension: an input x in [-1, 1] is reported as
    y in [-C, C], C = (e^{eps0/2} + 1)/(e^{eps0/2} - 1), with density p = (e^eps0 - e^{eps0/2})/
    (2 e^{eps0/2} + 2) on [l(x), r(x)], l(x) = (C + 1) x/2 - (C - 1)/2, r(x) = l(x) + C - 1, and
    p / e^eps0 elsewhere: eps0-LDP, unbiased.

    Its blanket is p / e^eps0 on all of [-C, C] (every y is outside some input's high interval);
    the likelihood ratios are piecewise constant, so for the worst pair x = -1, x' = 1 (disjoint
    high intervals) the pair's blanket law is that of a three-cell matrix
    (:func:`accountant.bounds.laws.numerical.piecewise_matrix`), computed exactly on the finite path
    (docs/proved.md, "The piecewise mechanism's blanket").  A subclass of :class:`GenericLDP`: the
    generic bounds (clone, rounds, deployments) apply.

    Examples
    --------
    >>> from accountant import make_params
    >>> make_params("piecewise", 1.0).name
    'piecewise'
    """

    name: str = field(default="piecewise", init=False)

    @property
    def c(self) -> float:
        """C = (e^{eps0/2} + 1)/(e^{eps0/2} - 1), the reports' range [-C, C]."""
        h = math.exp(self.eps0 / 2.0)
        return (h + 1.0) / (h - 1.0)
