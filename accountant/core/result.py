"""The values the bounds return: a central epsilon with its justification or 'not applicable'
(``BoundResult``), and a delta(eps) with its certified ends (``CertifiedDelta``)."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Optional


@dataclass(frozen=True)
class BoundResult:
    """Central epsilon from one bound.

    ``epsilon`` is an upper bound on the central epsilon (for ``lower``: a lower
    bound) when ``applicable`` is true; otherwise it is ``None`` and ``reason``
    says why no number can be justified.  ``achieved_delta`` is the delta the
    bound certifies at ``epsilon`` (<= the target delta) when the bound computes it.

    Examples
    --------
    >>> from accountant import compute_bound, fmt
    >>> r = compute_bound("clone", 10_000, 1.0, 1e-6)
    >>> print(r.name, r.applicable, fmt(r.epsilon, 4, "up"), r.achieved_delta <= r.delta)
    clone True 0.05301 True
    >>> r = compute_bound("lower", 10_000, 2.0, 1e-6, mechanism="collision", s=4)
    >>> print(r.applicable, r.epsilon)
    False None
    """

    name: str
    epsilon: Optional[float]
    applicable: bool
    reason: Optional[str] = None
    delta: Optional[float] = None
    achieved_delta: Optional[float] = None
    seconds: Optional[float] = None
    # a tighter bound of the headline whose search ran out of its budget (its reason): this
    # number is then the next bound's, looser than the truth it would have found
    exhausted: Optional[str] = None

    @classmethod
    def not_applicable(cls, name: str, reason: str, delta: Optional[float] = None) -> "BoundResult":
        return cls(name=name, epsilon=None, applicable=False, reason=reason, delta=delta)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class CertifiedDelta:
    """delta(eps) of a windowed sum with certified ends, the fields every divergence shares.

    ``value`` is the window sum, ``upper`` a certified upper bound (window sum plus float
    margin plus the left-out mass ``truncated``), ``lower`` a certified lower bound (window
    sum minus margin), ``slope`` d delta / d eps of the window sum (<= 0).  Extended by
    :class:`accountant.engines.pair.law.DivergenceValue` and
    :class:`accountant.protocols.bib.divergence.BibDelta`.
    """

    eps: float
    value: float
    upper: float
    lower: float
    truncated: float
    slope: float
