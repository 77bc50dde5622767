"""Synthetic s-sparse ternary data (Section 8) and conversion of real-valued vectors
(Section 2.1: max-min normalisation and stochastic ternary discretisation)."""
from __future__ import annotations

import numpy as np

from mechanisms.core.data import SparseVectors
from mechanisms.analysis.common import check_int


def _random_subsets(rng: np.random.Generator, n: int, d: int, s: int) -> np.ndarray:
    """(n, s) rows of distinct integers, each row a uniformly random s-subset of [d].

    ``s <= d/2``: sequential sampling without replacement, vectorised over a block of
    rows: position ``k`` is drawn uniformly from ``[d]`` and redrawn while it hits a
    value already taken in its row (a per-block boolean table), so it is uniform on
    the complement of positions ``< k``.  ``s > d/2``: the ``s`` smallest of ``d``
    i.i.d. uniform keys.  Row blocks keep the working memory under ~16 MB.
    """
    out = np.empty((n, s), dtype=np.int64)
    block = max(1, (1 << 24) // d)
    if 2 * s <= d:
        for a in range(0, n, block):
            b = min(a + block, n)
            R = b - a
            taken = np.zeros((R, d), dtype=bool)
            rows = np.arange(R)
            for k in range(s):
                r = rng.integers(0, d, size=R)
                bad = np.nonzero(taken[rows, r])[0]
                while bad.size:
                    r[bad] = rng.integers(0, d, size=bad.size)
                    bad = bad[taken[bad, r[bad]]]
                taken[rows, r] = True
                out[a:b, k] = r
        return out
    block = max(1, (1 << 21) // d)
    for a in range(0, n, block):
        b = min(a + block, n)
        keys = rng.random((b - a, d))
        out[a:b] = np.argpartition(keys, s - 1, axis=1)[:, :s] if s < d else \
            np.argsort(keys, axis=1)
    return out


def synthetic_sparse_vectors(rng: np.random.Generator, n: int, d: int, s: int) -> SparseVectors:
    """Section 8's synthetic data: per user ``s`` non-zero positions uniformly without
    replacement from ``[d]``, each sign +1 / -1 with probability 1/2.

    Parameters
    ----------
    rng : seeded ``numpy.random.Generator`` (the only source of randomness).
    n, d, s : users, dimension, sparsity (``1 <= s <= d``).

    Examples
    --------
    >>> import numpy as np
    >>> from mechanisms import synthetic_sparse_vectors
    >>> x = synthetic_sparse_vectors(np.random.default_rng(0), n=5, d=10, s=3)
    >>> print(x.n, x.s, x.d, x.indices.shape)
    5 3 10 (5, 3)
    """
    n = check_int("n", n, 1)
    d = check_int("d", d, 1)
    s = check_int("s", s, 1, d)
    idx = _random_subsets(rng, n, d, s)
    signs = (2 * rng.integers(0, 2, size=(n, s), dtype=np.int8) - 1).astype(np.int8)
    return SparseVectors(indices=idx, signs=signs, d=d)


def from_real_vectors(X, s: int, rng: np.random.Generator, lo=None, hi=None,
                      return_info: bool = False):
    """Convert real-valued vectors (n, d) to s-sparse ternary vectors (Section 2.1).

    1. Max-min normalisation of every coordinate to [-1, 1]:
       ``v = 2 (x - lo_j) / (hi_j - lo_j) - 1`` (``lo``/``hi`` default to the column
       min/max of ``X``; pass public bounds in a real deployment, since data-dependent
       bounds are not private).  Constant columns map to 0.  Values are clipped.
    2. Stochastic ternary discretisation: ``sign(v)`` with probability ``|v|``, else 0,
       so that ``E[ternary] = v``.
    3. Exactly ``s`` non-zeros per row, as the paper's domain ``X_s`` requires:
       a row with ``k > s`` non-zeros keeps ``s`` of them chosen uniformly at random
       (the others are dropped: this shrinks that row's mean contribution by ``s/k``
       on average); a row with ``k < s`` is padded with ``s - k`` coordinates chosen
       uniformly among its zeros, each with a uniform random sign (the padding adds
       zero-mean noise to the means but inflates the non-missing frequencies).

    Returns
    -------
    SparseVectors, and with ``return_info=True`` also a dict with the per-row numbers of
    non-zeros after discretisation (``nnz``) and the counts of truncated / padded rows.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError("X must be a non-empty (n, d) array")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must be finite")
    n, d = X.shape
    s = check_int("s", s, 1, d)
    lo = X.min(axis=0) if lo is None else np.broadcast_to(np.asarray(lo, float), (d,))
    hi = X.max(axis=0) if hi is None else np.broadcast_to(np.asarray(hi, float), (d,))
    if np.any(hi < lo):
        raise ValueError("hi must be >= lo for every coordinate")
    span = hi - lo
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.where(span > 0, 2.0 * (X - lo) / np.where(span > 0, span, 1.0) - 1.0, 0.0)
    v = np.clip(v, -1.0, 1.0)
    tern = np.where(rng.random((n, d)) < np.abs(v), np.sign(v), 0.0).astype(np.int8)
    nnz = (tern != 0).sum(axis=1)
    # random priorities: non-zeros first (priority in [1, 2)), zeros after ([0, 1))
    pri = rng.random((n, d)) + (tern != 0)
    chosen = np.argsort(-pri, axis=1, kind="stable")[:, :s]
    sg = np.take_along_axis(tern, chosen, axis=1)
    pad_signs = (2 * rng.integers(0, 2, size=(n, s), dtype=np.int8) - 1).astype(np.int8)
    sg = np.where(sg == 0, pad_signs, sg).astype(np.int8)
    out = SparseVectors(indices=chosen.astype(np.int64), signs=sg, d=d)
    if return_info:
        return out, {"nnz": nnz, "truncated_rows": int((nnz > s).sum()),
                     "padded_rows": int((nnz < s).sum())}
    return out
