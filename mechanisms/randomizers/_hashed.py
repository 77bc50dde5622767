"""What Collision and CoCo share as mechanism objects: validated parameters,
convenience accessors and the input check."""
from __future__ import annotations

from mechanisms.core.data import SparseVectors


class HashedMechanism:
    """Base of ``Collision`` and ``CoCo``: ``PARAMS`` is the frozen parameter class."""

    name = ""
    PARAMS: type = object
    LABEL = ""

    def __init__(self, d: int, s: int, eps0: float, t: int | None = None,
                 n_threads: int | None = None) -> None:
        self.params = self.PARAMS(d, s, eps0, t)
        self.n_threads = n_threads

    d = property(lambda self: self.params.d)
    s = property(lambda self: self.params.s)
    eps0 = property(lambda self: self.params.eps0)
    t = property(lambda self: self.params.t)

    def __repr__(self) -> str:
        p = self.params
        return f"{self.LABEL}(d={p.d}, s={p.s}, eps0={p.eps0}, t={p.t})"

    def _check_data(self, data: SparseVectors) -> None:
        if data.d != self.d or data.s != self.s:
            raise ValueError(f"data has (d, s) = ({data.d}, {data.s}); mechanism expects "
                             f"({self.d}, {self.s})")
