"""The value every bound returns: a number with its justification, or 'not applicable'."""
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

    @classmethod
    def not_applicable(cls, name: str, reason: str, delta: Optional[float] = None) -> "BoundResult":
        return cls(name=name, epsilon=None, applicable=False, reason=reason, delta=delta)

    def to_dict(self) -> dict:
        return asdict(self)
