"""Data model shared by every mechanism: s-sparse ternary vectors in {-1, 0, 1}^d.

A dataset of n users is stored compactly as two (n, s) arrays: the non-zero
coordinates of each user (distinct, in [0, d)) and their signs (+1 / -1).  The
paper's element domain Y = {1-, 1+, ..., d-, d+} is indexed here by
``item = 2 * j + (sign > 0)``, i.e. item 2j is j- and item 2j+1 is j+.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SparseVectors:
    """n s-sparse ternary vectors of dimension d.

    Parameters
    ----------
    indices : (n, s) int64 array, distinct non-zero coordinates per row, in [0, d).
    signs : (n, s) int8 array of +1 / -1.
    d : dimension.

    Examples
    --------
    >>> import numpy as np
    >>> from mechanisms import SparseVectors
    >>> x = SparseVectors(indices=np.array([[0, 3], [1, 3]]), signs=np.array([[1, -1], [1, 1]]), d=4)
    >>> print(x.n, x.s, x.d)
    2 2 4
    >>> x.items.tolist()
    [[1, 6], [3, 7]]
    """

    indices: np.ndarray
    signs: np.ndarray
    d: int

    def __post_init__(self) -> None:
        idx = np.asarray(self.indices)
        sg = np.asarray(self.signs)
        if idx.ndim != 2 or sg.shape != idx.shape:
            raise ValueError("indices and signs must be (n, s) arrays of the same shape")
        if not isinstance(self.d, (int, np.integer)) or self.d < 1:
            raise ValueError(f"d must be an integer >= 1, got {self.d!r}")
        if idx.size and (idx.min() < 0 or idx.max() >= self.d):
            raise ValueError(f"indices must lie in [0, d) = [0, {self.d})")
        if sg.size and not np.all(np.abs(sg) == 1):
            raise ValueError("signs must be +1 or -1")
        s = idx.shape[1]
        if s > 1:
            srt = np.sort(idx, axis=1)
            if np.any(srt[:, 1:] == srt[:, :-1]):
                raise ValueError("indices of a user must be distinct")
        object.__setattr__(self, "indices", idx.astype(np.int64, copy=False))
        object.__setattr__(self, "signs", sg.astype(np.int8, copy=False))

    @property
    def n(self) -> int:
        return int(self.indices.shape[0])

    @property
    def s(self) -> int:
        return int(self.indices.shape[1])

    @property
    def items(self) -> np.ndarray:
        """(n, s) item ids in [0, 2d): 2j for j-, 2j+1 for j+."""
        return 2 * self.indices + (self.signs > 0)

    def item_frequencies(self) -> np.ndarray:
        """True frequencies of the 2d items [jb in Y_x], averaged over users, shape (2d,)."""
        return np.bincount(self.items.ravel(), minlength=2 * self.d) / max(self.n, 1)

    def means(self) -> np.ndarray:
        """True coordinate means (1/n) sum_i x_{i,j}, shape (d,)."""
        f = self.item_frequencies()
        return f[1::2] - f[0::2]

    def nonmissing_frequencies(self) -> np.ndarray:
        """True non-missing frequencies (1/n) #{i : x_{i,j} != 0}, shape (d,)."""
        f = self.item_frequencies()
        return f[1::2] + f[0::2]

    def dense(self) -> np.ndarray:
        """(n, d) int8 dense form; for small examples and tests only."""
        out = np.zeros((self.n, self.d), dtype=np.int8)
        rows = np.repeat(np.arange(self.n), self.s)
        out[rows, self.indices.ravel()] = self.signs.ravel()
        return out


@dataclass(frozen=True)
class Estimates:
    """What every mechanism's server side returns.

    item_freq : (2d,) estimates of the item frequencies, same layout as
        ``SparseVectors.item_frequencies`` (index 2j is j-, 2j+1 is j+).
    mean : (d,) estimates of the coordinate means.
    nonmissing : (d,) estimates of the non-missing frequencies.

    Examples
    --------
    >>> import numpy as np
    >>> from mechanisms import Collision, synthetic_sparse_vectors
    >>> rng = np.random.default_rng(1)
    >>> data = synthetic_sparse_vectors(rng, n=1000, d=8, s=2)
    >>> est = Collision(d=8, s=2, eps0=2.0).simulate(data, rng)
    >>> print(est.item_freq.shape, est.mean.shape, est.nonmissing.shape)
    (16,) (8,) (8,)
    """

    item_freq: np.ndarray
    mean: np.ndarray
    nonmissing: np.ndarray
