"""What Collision and CoCo share as mechanism objects: validated parameters, the reports the
server receives, convenience accessors and the input check."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mechanisms.analysis.common import check_eps0, check_int
from mechanisms.core.data import Estimates, SparseVectors


@dataclass(frozen=True)
class HashedParams:
    """Validated (d, s, eps0, t) of a hashed mechanism: d >= 1, 1 <= s <= d, eps0 finite in
    (0, 700]; ``t`` is checked (or, for ``None``, chosen) by the subclass's ``_t``."""

    d: int
    s: int
    eps0: float
    t: int | None = None

    def _t(self, s: int, eps0: float) -> int:  # pragma: no cover - every subclass has one
        raise NotImplementedError

    def __post_init__(self) -> None:
        d = check_int("d", self.d, 1)
        s = check_int("s", self.s, 1, d)
        e = check_eps0(self.eps0)
        t = self._t(s, e)
        object.__setattr__(self, "d", d)
        object.__setattr__(self, "s", s)
        object.__setattr__(self, "eps0", e)
        object.__setattr__(self, "t", t)

    @property
    def report_bits(self) -> int:
        """Bits per report: 64 (hash seed) + ceil(log2 t) (output z)."""
        return 64 + max(1, math.ceil(math.log2(self.t)))


@dataclass(frozen=True)
class HashedReports:
    """What the server receives: per user the hash seed (uint64) and ``z in [0, t)``."""

    seeds: np.ndarray  # (n,) uint64
    z: np.ndarray  # (n,) int64
    t: int = 0

    @property
    def n(self) -> int:
        return int(self.z.shape[0])


class HashedMechanism:
    """Base of ``Collision`` and ``CoCo``: ``PARAMS`` is the frozen parameter class."""

    name = ""
    PARAMS: type = object
    LABEL = ""
    # the exact error formulas of :mod:`mechanisms.analysis`: (n, d, s, eps0, t) -> totals,
    # and (n, s, eps0, t, item counts) -> per-coordinate variances
    MSE = None
    VARIANCES = None

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

    @staticmethod
    def _seeds(rng, n: int, seeds=None) -> np.ndarray:
        """Each user's hash seed (uint64): drawn from ``rng``, or ``seeds`` broadcast to n (tests
        use it to fix the hash)."""
        if seeds is None:
            return rng.integers(0, 2**64, size=n, dtype=np.uint64)
        return np.broadcast_to(np.asarray(seeds, dtype=np.uint64), (n,)).copy()

    def _check_data(self, data: SparseVectors) -> None:
        if data.d != self.d or data.s != self.s:
            raise ValueError(f"data has (d, s) = ({data.d}, {data.s}); mechanism expects "
                             f"({self.d}, {self.s})")

    def simulate(self, data: SparseVectors, rng) -> Estimates:
        """``estimate(randomize(data, rng), data.n)``."""
        return self.estimate(self.randomize(data, rng), data.n)

    def analytic_mse(self, n: int, data: SparseVectors | None = None) -> dict:
        """Exact MSEs (sum over coordinates) for ``n`` users; see :mod:`mechanisms.analysis`.

        With ``data`` the per-coordinate variances are summed from its counts (the
        total is the same for every dataset in ``X_s``).
        """
        if data is not None:
            self._check_data(data)
            counts = np.bincount(data.items.ravel(), minlength=2 * self.d)
            tot = type(self).VARIANCES(data.n, self.s, self.eps0, self.t, counts).totals()
        else:
            tot = type(self).MSE(n, self.d, self.s, self.eps0, self.t)
        return {"mse_mean": float(tot.mean), "mse_nonmissing": float(tot.nonmissing),
                "mse_item": float(tot.item)}
