"""The (d, s, eps0, t)-Collision mechanism (Definition 5) and the hash family.

Hash family
-----------
Each user draws a 64-bit seed ``sigma`` uniformly at random and sends it with the
output.  For coordinate ``j`` let

    ``w_j = splitmix64(sigma + (j + 1) * GAMMA mod 2^64)``,

the ``(j+1)``-th output of the SplitMix64 generator started at state ``sigma``
(``GAMMA = 0x9E3779B97F4A7C15``).  Collision's hash function ``H_sigma : Y -> [t]`` is

    ``H(j-) = floor(t * lo32(w_j) / 2^32)``,  ``H(j+) = floor(t * hi32(w_j) / 2^32)``

(the low and high 32-bit halves of ``w_j``); CoCo uses ``w_j`` as described in
:mod:`mechanisms.randomizers.coco`.  The family is the finite set of 2^64 tables so indexed, drawn
uniformly.  The exact error formulas (:mod:`mechanisms.analysis`) and the paper's
analysis assume a *uniformly random function* ``Y -> [t]``; the SplitMix64 tables are
the pseudo-random stand-in for it.  The one deviation that can be stated exactly is
the multiply-shift rounding: every value of ``[t]`` has ``floor`` or ``ceil`` of
``2^32/t`` preimages, a relative deviation below ``t / 2^32`` (< 5e-7 for ``t <= 2000``).
Exact checks (LDP, error formulas) enumerate all functions ``Y -> [t]`` directly
through :meth:`Collision.output_distribution`; simulations check the concrete family
against the formulas statistically.

Report size: 64 bits for the seed plus ``ceil(log2 t)`` bits for ``z``.

Items are numbered as in :mod:`mechanisms.core.data`: ``2j`` is ``j-``, ``2j+1`` is ``j+``.
"""
from __future__ import annotations

import math
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from mechanisms.randomizers._hashed import HashedMechanism, HashedParams, HashedReports
from mechanisms.core.data import Estimates, SparseVectors
from mechanisms.analysis.common import T_MAX, check_int, collision_t_star
from mechanisms.analysis.collision import (
    collision_mse,
    collision_rates,
    collision_variances_from_counts,
)

GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)
_MASK32 = np.uint64(0xFFFFFFFF)


# --------------------------------------------------------------------------- hashing
def splitmix64(x: np.ndarray, out: np.ndarray | None = None, tmp: np.ndarray | None = None):
    """SplitMix64 output function (Steele, Lea, Flood 2014), vectorised on uint64.

    ``z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27; z *= 0x94D049BB133111EB;
    z ^= z >> 31``.  With ``out``/``tmp`` buffers it works in place.
    """
    x = np.asarray(x, dtype=np.uint64)
    if out is None:
        out = x.copy()
    elif out is not x:
        np.copyto(out, x)
    if tmp is None:
        tmp = np.empty_like(out)
    np.right_shift(out, _S30, out=tmp)
    np.bitwise_xor(out, tmp, out=out)
    np.multiply(out, _M1, out=out)
    np.right_shift(out, _S27, out=tmp)
    np.bitwise_xor(out, tmp, out=out)
    np.multiply(out, _M2, out=out)
    np.right_shift(out, _S31, out=tmp)
    np.bitwise_xor(out, tmp, out=out)
    return out


def hash_words(seeds, counters) -> np.ndarray:
    """``splitmix64(seed + (counter + 1) * GAMMA)`` with broadcasting (uint64)."""
    seeds = np.asarray(seeds, dtype=np.uint64)
    c = np.asarray(counters).astype(np.uint64) + np.uint64(1)
    with np.errstate(over="ignore"):
        return splitmix64(seeds + c * GAMMA)


def bucket32(halves: np.ndarray, t: int) -> np.ndarray:
    """``floor(t * h / 2^32)`` for 32-bit values ``h`` (held in any unsigned dtype), as int64."""
    h = np.asarray(halves).astype(np.uint64) & _MASK32
    return ((h * np.uint64(t)) >> _S32).astype(np.int64)


def bucket32_bounds(z, t: int) -> tuple[np.ndarray, np.ndarray]:
    """Range test for :func:`bucket32`: ``bucket32(h) == z <=> (h - lo) mod 2^32 < width``.

    ``lo = ceil(z 2^32 / t)``, ``width = ceil((z+1) 2^32 / t) - lo``; both as uint32.
    """
    z = np.asarray(z).astype(np.uint64)
    tu = np.uint64(t)
    lo = ((z << _S32) + tu - np.uint64(1)) // tu
    hi = (((z + np.uint64(1)) << _S32) + tu - np.uint64(1)) // tu
    return lo.astype(np.uint32), (hi - lo).astype(np.uint32)


def _n_threads(n_threads: int | None) -> int:
    if n_threads is None:
        return max(1, min(4, os.cpu_count() or 1))
    return max(1, int(n_threads))


def _parallel_sum(n: int, work, n_threads: int | None, min_per_thread: int = 20_000):
    """Split ``range(n)`` into contiguous parts, run ``work(a, b)`` in threads, sum results."""
    k = _n_threads(n_threads)
    k = max(1, min(k, n // min_per_thread))
    if k == 1:
        return work(0, n)
    bounds = [(i * n // k, (i + 1) * n // k) for i in range(k)]
    with ThreadPoolExecutor(k) as ex:
        parts = list(ex.map(lambda ab: work(*ab), bounds))
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    return total


def _row_block(width: int, target: int = 1 << 17) -> int:
    # <= 255 so that per-block hit counts fit in uint8 (fast reduction)
    return int(min(255, max(8, target // max(width, 1))))


_LITTLE = sys.byteorder == "little"


def _block_words(seeds_blk, ctr, buf, tmp):
    np.add(seeds_blk[:, None], ctr[None, :], out=buf)
    return splitmix64(buf, out=buf, tmp=tmp)


def collision_hit_counts(seeds: np.ndarray, z: np.ndarray, d: int, t: int,
                         n_threads: int | None = None) -> np.ndarray:
    """``#{i : H_i(y) = z_i}`` for every item ``y`` in ``[2d]`` (Collision's server side).

    For word ``w = splitmix64(seed + (j+1) GAMMA)`` the low 32 bits give ``H(j-)`` and the
    high 32 bits ``H(j+)`` (:func:`bucket32`).  Vectorised over blocks of at most 255
    users times all coordinates (constant-size buffers: memory O(n) for the reports
    only); blocks run in threads (NumPy releases the GIL).
    """
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    n = seeds.size
    lo, width = bucket32_bounds(z, t)
    ctr = (np.arange(d, dtype=np.uint64) + np.uint64(1)) * GAMMA
    B = _row_block(d)

    def work(a: int, b: int):
        acc = np.zeros(2 * d, dtype=np.int64)
        buf = np.empty((B, d), dtype=np.uint64)
        tmp = np.empty((B, d), dtype=np.uint64)
        hb = np.empty((B, 2 * d), dtype=bool)
        for r0 in range(a, b, B):
            r1 = min(r0 + B, b)
            m = r1 - r0
            x = _block_words(seeds[r0:r1], ctr, buf[:m], tmp[:m])
            if _LITTLE:
                h32 = x.view(np.uint32)  # (m, 2d): [low(j=0), high(j=0), low(j=1), ...]
            else:  # pragma: no cover - big-endian hosts
                h32 = np.empty((m, 2 * d), dtype=np.uint32)
                h32[:, 0::2] = x & _MASK32
                h32[:, 1::2] = x >> _S32
            np.subtract(h32, lo[r0:r1, None], out=h32)
            h = hb[:m]
            np.less(h32, width[r0:r1, None], out=h)
            acc += np.add.reduce(h.view(np.uint8), axis=0, dtype=np.uint8)
        return acc

    with np.errstate(over="ignore"):
        return _parallel_sum(n, work, n_threads)


def coco_hit_counts(seeds: np.ndarray, z: np.ndarray, d: int, t: int,
                    n_threads: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """CoCo's server side: ``(A, B)`` with ``A_j = #{i : H_i(j+) = z_i}`` and
    ``B_j = #{i : H_i(j-) = z_i}``, where ``H(j+) = bucket32(hi32(w_j), t)`` and ``H(j-)``
    is the other bucket of its pair, ``(H(j+) + t/2) mod t``.  Same blocking as
    :func:`collision_hit_counts`.
    """
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    n = seeds.size
    z = np.asarray(z, dtype=np.int64)
    lo_a, w_a = bucket32_bounds(z, t)
    lo_b, w_b = bucket32_bounds((z + t // 2) % t, t)  # H(j-) = z  <=>  H(j+) = z + t/2 mod t
    ctr = (np.arange(d, dtype=np.uint64) + np.uint64(1)) * GAMMA
    B = _row_block(d)

    def work(a: int, b: int):
        acc = np.zeros((2, d), dtype=np.int64)
        buf = np.empty((B, d), dtype=np.uint64)
        tmp = np.empty((B, d), dtype=np.uint64)
        hi = np.empty((B, d), dtype=np.uint32)
        u = np.empty((B, d), dtype=np.uint32)
        hb = np.empty((B, d), dtype=bool)
        for r0 in range(a, b, B):
            r1 = min(r0 + B, b)
            m = r1 - r0
            x = _block_words(seeds[r0:r1], ctr, buf[:m], tmp[:m])
            h32, uu, h = hi[:m], u[:m], hb[:m]
            np.right_shift(x, _S32, out=h32, casting="unsafe")
            np.subtract(h32, lo_a[r0:r1, None], out=uu)
            np.less(uu, w_a[r0:r1, None], out=h)
            acc[0] += np.add.reduce(h.view(np.uint8), axis=0, dtype=np.uint8)
            np.subtract(h32, lo_b[r0:r1, None], out=uu)
            np.less(uu, w_b[r0:r1, None], out=h)
            acc[1] += np.add.reduce(h.view(np.uint8), axis=0, dtype=np.uint8)
        return acc

    with np.errstate(over="ignore"):
        acc = _parallel_sum(n, work, n_threads)
    return acc[0], acc[1]


# --------------------------------------------------------------------------- params
@dataclass(frozen=True)
class CollisionParams(HashedParams):
    """Validated parameters of the (d, s, eps0, t)-Collision mechanism (Definition 5).

    Parameters
    ----------
    d : dimension, integer >= 1.
    s : sparsity, integer with 1 <= s <= d.
    eps0 : local privacy budget, finite, in (0, 700].
    t : output domain size, integer with s < t <= 2^31 - 1; ``None`` gives the paper's
        ``t* = floor(s e^eps0 + 2s - 1)`` (proof of Theorem 4).
    """

    def _t(self, s: int, eps0: float) -> int:
        return collision_t_star(s, eps0) if self.t is None else check_int("t", self.t, s + 1, T_MAX)

    @property
    def omega(self) -> float:
        """Normaliser ``Omega = s e^eps0 + t - s``."""
        return self.s * math.exp(self.eps0) + self.t - self.s


@dataclass(frozen=True)
class CollisionReports(HashedReports):
    """What the server receives: per user the hash seed and ``z in [0, t)``."""


# --------------------------------------------------------------------------- exact law
def collision_output_distribution(hashed, eps0: float, t: int) -> np.ndarray:
    """Exact ``P[z = v | x, H]`` for ``v in [t]`` (Definition 5).

    Parameters
    ----------
    hashed : the ``s`` values ``H(y)``, ``y in Y_x`` (may coincide).
    eps0, t : mechanism parameters.

    ``e^eps0 / Omega`` on the ``m`` distinct values of ``H(Y_x)`` and
    ``(Omega - e^eps0 m) / ((t - m) Omega)`` elsewhere, ``Omega = s e^eps0 + t - s``.
    """
    hashed = np.asarray(hashed, dtype=np.int64)
    s = hashed.size
    E = math.exp(eps0)
    omega = s * E + t - s
    occ = np.zeros(t, dtype=bool)
    occ[hashed] = True
    m = int(occ.sum())
    out = np.full(t, (omega - E * m) / ((t - m) * omega))
    out[occ] = E / omega
    return out


def kth_true(mask: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Column index of the k-th (0-based) True in each row of ``mask``."""
    rank = np.cumsum(mask, axis=1) - 1
    return np.argmax(mask & (rank == k[:, None]), axis=1)


def kth_free(sorted_taken: np.ndarray, k: np.ndarray) -> np.ndarray:
    """k-th (0-based) integer not in the row's set; ``sorted_taken`` ascending, with
    entries that must be ignored set to a huge sentinel.  Loops over columns only."""
    v = k.astype(np.int64).copy()
    for c in range(sorted_taken.shape[1]):
        v += sorted_taken[:, c] <= v
    return v


def sample_collision(hashed: np.ndarray, eps0: float, t: int, rng: np.random.Generator) -> np.ndarray:
    """Draw ``z`` for every row of ``hashed`` ((n, s) values of ``H(Y_x)``), Definition 5.

    With probability ``m e^eps0 / Omega`` (``m`` distinct hashed values) ``z`` is uniform
    on ``H(Y_x)``; otherwise uniform on the ``t - m`` other values.  Vectorised.
    """
    hashed = np.asarray(hashed, dtype=np.int64)
    n, s = hashed.shape
    E = math.exp(eps0)
    omega = s * E + t - s
    srt = np.sort(hashed, axis=1)
    distinct = np.ones_like(srt, dtype=bool)
    distinct[:, 1:] = srt[:, 1:] != srt[:, :-1]
    m = distinct.sum(axis=1)
    inside = rng.random(n) < m * (E / omega)
    k_in = rng.integers(0, m)
    z_in = np.take_along_axis(srt, kth_true(distinct, k_in)[:, None], axis=1)[:, 0]
    k_out = rng.integers(0, t - m)
    taken = np.where(distinct, srt, np.iinfo(np.int64).max)
    z_out = kth_free(taken, k_out)
    return np.where(inside, z_in, z_out)


# --------------------------------------------------------------------------- mechanism
class Collision(HashedMechanism):
    """(d, s, eps0, t)-Collision mechanism (Definition 5) with Theorem 4's estimators.

    Parameters
    ----------
    d, s, eps0, t : see :class:`CollisionParams` (validated there; ``t=None`` is the
        paper's ``t* = floor(s e^eps0 + 2s - 1)``).
    n_threads : threads used by the server-side aggregation (default: up to 4, at most
        the number of CPUs).

    Notes
    -----
    Client: :meth:`randomize` (eps0-LDP, Proposition 1; checked exactly in the tests);
    server: :meth:`estimate`; exact errors: :meth:`analytic_mse`
    (:mod:`mechanisms.analysis`).  Reports are ``(seed, z)``, :attr:`CollisionParams.report_bits`
    bits each.

    References
    ----------
    Wang et al., Definition 5, Proposition 1, Theorem 4.

    Examples
    --------
    >>> import numpy as np
    >>> from mechanisms import Collision, synthetic_sparse_vectors
    >>> mech = Collision(d=16, s=2, eps0=2.0)
    >>> mech
    Collision(d=16, s=2, eps0=2.0, t=17)
    >>> rng = np.random.default_rng(0)
    >>> errors = []
    >>> for _ in range(20):  # the squared error of the mean estimate, over 20 runs
    ...     data = synthetic_sparse_vectors(rng, n=5000, d=16, s=2)
    ...     est = mech.estimate(mech.randomize(data, rng), data.n)
    ...     errors.append(float(np.sum((est.mean - data.means()) ** 2)))
    >>> print(f"{np.mean(errors):.4f} {mech.analytic_mse(5000)['mse_mean']:.4f}")  # exact MSE
    0.0112 0.0114
    """

    name = "collision"

    PARAMS = CollisionParams
    MSE = staticmethod(collision_mse)
    VARIANCES = staticmethod(collision_variances_from_counts)
    LABEL = "Collision"



    # ---- hash
    def hash_table(self, seed: int) -> np.ndarray:
        """The user's hash function ``H_seed`` as a (2d,) table of values in [t]."""
        w = hash_words(np.uint64(seed), np.arange(self.d))
        out = np.empty(2 * self.d, dtype=np.int64)
        out[0::2] = bucket32(w & _MASK32, self.t)
        out[1::2] = bucket32(w >> _S32, self.t)
        return out

    def output_distribution(self, items, hash_table) -> np.ndarray:
        """Exact ``P[z | x, H]`` for items ``Y_x`` (ids in [2d]) and any table ``H`` (2d,)."""
        items = np.asarray(items, dtype=np.int64)
        if items.size != self.s:
            raise ValueError(f"expected {self.s} items, got {items.size}")
        return collision_output_distribution(np.asarray(hash_table)[items], self.eps0, self.t)

    # ---- client
    _BLOCK_ELEMS = 1 << 18  # users per randomisation block = this / s (cache-sized work arrays)

    def _block_rows(self) -> int:
        return max(1, self._BLOCK_ELEMS // self.s)


    def randomize(self, data: SparseVectors, rng: np.random.Generator,
                  seeds: np.ndarray | None = None) -> CollisionReports:
        """Local randomizer of every user: draws a hash seed and ``z`` (Definition 5).

        ``seeds`` (n,) uint64 overrides the hash draw (tests use it to fix ``H``).
        """
        self._check_data(data)
        n = data.n
        seeds = self._seeds(rng, n, seeds)
        z = np.empty(n, dtype=np.int64)
        B = self._block_rows()
        for a in range(0, n, B):
            b = min(a + B, n)
            w = hash_words(seeds[a:b, None], data.indices[a:b])
            half = np.where(data.signs[a:b] > 0, w >> _S32, w & _MASK32)
            hv = bucket32(half, self.t)
            z[a:b] = sample_collision(hv, self.eps0, self.t, rng)
        return CollisionReports(seeds=seeds, z=z, t=self.t)

    # ---- server
    def item_hit_counts(self, reports: CollisionReports) -> np.ndarray:
        """``#{i : H_i(y) = z_i}`` for every item ``y`` (2d,), vectorised."""
        return collision_hit_counts(reports.seeds, reports.z, self.d, self.t, self.n_threads)

    def estimate(self, reports: CollisionReports, n: int | None = None) -> Estimates:
        """Unbiased estimates (Definition 5, proof of Theorem 4).

        ``item_y = (mean_i [H_i(y) = z_i] - 1/t) / (e^eps0/Omega - 1/t)``;
        ``mean_j = item_{j+} - item_{j-}``; ``nonmissing_j = item_{j+} + item_{j-}``.
        """
        n = reports.n if n is None else int(n)
        if n < 1:
            raise ValueError("n must be >= 1")
        if reports.t and reports.t != self.t:
            raise ValueError(f"reports were made with t = {reports.t}, mechanism has t = {self.t}")
        cnt = self.item_hit_counts(reports)
        p = self.params
        gap = (p.t - p.s) * math.expm1(p.eps0) / (p.t * p.omega)  # e^eps/Omega - 1/t
        item = (cnt / n - 1.0 / p.t) / gap
        return Estimates(item_freq=item, mean=item[1::2] - item[0::2],
                         nonmissing=item[1::2] + item[0::2])

    # ---- analysis
    def rates(self) -> tuple[float, float, float]:
        """``(Pt, Pf, Po)`` (Section 7.1)."""
        return collision_rates(self.s, self.eps0, self.t)
