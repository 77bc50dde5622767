"""The (d, s, eps0, t)-CoCo mechanism: correlated Collision (Section 7, Algorithms 1, 2).

Hash family
-----------
As for Collision (see :mod:`mechanisms.randomizers.collision`), every user draws a 64-bit seed
``sigma``.  For coordinate ``j`` let ``w_j = splitmix64(sigma + (j + 1) GAMMA)``; then

``H(j+) = floor(t hi32(w_j) / 2^32)`` (uniform on ``[0, t)`` up to a relative
deviation below ``t / 2^32``, see :mod:`mechanisms.randomizers.collision`), and

* ``H1(j) = H(j+) mod t/2`` in ``[0, t/2)``,
* ``H2(j+) = +1`` if ``H(j+) >= t/2`` else ``-1`` (``H2(j-)`` is never used by
  Algorithms 1 and 2),

which are independent and uniform; 0-indexed, ``H(jb) = H1(j) + [b H2(j+) = 1] t/2``
(line 8 of Algorithm 1), so ``H(j-)`` is the other bucket of the pair of ``H(j+)``.  The
analysis (:mod:`mechanisms.analysis`) models ``H1, H2`` as uniformly random functions;
exact checks enumerate all of them through :meth:`CoCo.output_distribution`.

Report size: 64 bits (seed) + ``ceil(log2 t)`` bits (``z``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mechanisms.randomizers.collision import (
    kth_free,
    kth_true,
    bucket32,
    coco_hit_counts,
    hash_words,
)
from mechanisms.randomizers._hashed import HashedMechanism, HashedParams, HashedReports
from mechanisms.core.data import Estimates, SparseVectors
from mechanisms.analysis.common import check_coco_t, coco_t_default
from mechanisms.analysis.coco import coco_mse, coco_rates, coco_variances_from_counts


@dataclass(frozen=True)
class CoCoParams(HashedParams):
    """Validated parameters of the (d, s, eps0, t)-CoCo mechanism (Algorithm 1).

    Parameters
    ----------
    d : dimension, integer >= 1.
    s : sparsity, 1 <= s <= d.
    eps0 : local budget, finite, in (0, 700].
    t : even output domain size with ``2s + 2 <= t <= 2^31 - 2`` (Algorithm 1's
        requirement; it guarantees at least one free bucket pair so line 14 is defined).
        ``None`` gives Theorem 7's choice for the mean estimator (equation (11)):
        the smallest even integer ``>= ceil(s e^eps0 + s + 2)``.
    """

    def _t(self, s: int, eps0: float) -> int:
        return coco_t_default(s, eps0) if self.t is None else check_coco_t(self.t, s)

    @property
    def half(self) -> int:
        return self.t // 2

    @property
    def omega(self) -> float:
        """``Omega = (e^eps0 + 1) s + t - 2 s`` (Algorithm 1, line 13)."""
        return (math.exp(self.eps0) + 1) * self.s + self.t - 2 * self.s


@dataclass(frozen=True)
class CoCoReports(HashedReports):
    """Per user: hash seed (uint64) and ``z in [0, t)``."""


# --------------------------------------------------------------------------- exact law
def _positions(indices, signs, h1, h2, half):
    indices = np.asarray(indices, dtype=np.int64)
    signs = np.asarray(signs)
    k1 = np.asarray(h1, dtype=np.int64)[indices]
    up = (signs > 0) == (np.asarray(h2)[indices] > 0)  # b * H2(j+) == +1
    return k1, up


def coco_weights_for_order(indices, signs, h1, h2, eps0: float, t: int, order) -> np.ndarray:
    """Algorithm 1 verbatim for one input, one ``(H1, H2)`` and one order of ``Y_x``.

    Returns ``P[z = k]`` for ``k in [0, t)`` (line 22: ``W_k / Omega``), 0-indexed:
    bucket pairs are ``(k, k + t/2)``.  ``h1`` (d,) in ``[0, t/2)``, ``h2`` (d,) in {-1, 1}
    (the value ``H2(j+)``).  Reference implementation for tests.
    """
    half = t // 2
    E = math.exp(eps0)
    s = len(indices)
    W = np.zeros(t)
    for k in order:  # lines 7-12
        j, b = int(indices[k]), int(signs[k])
        H = int(h1[j]) + ((b * int(h2[j]) + 1) // 2) * half
        W[H] = E
        Hp = 2 * int(h1[j]) + half - H
        W[Hp] = 1.0
    omega = (E + 1) * s + t - 2 * s  # line 13
    w = (omega - W.sum()) / (t - 2 * W.sum() / (E + 1))  # line 14
    for k in range(half):  # lines 15-20
        if W[k] == 0 and W[k + half] == 0:
            W[k] = w
            W[k + half] = w
    return W / omega


def coco_output_distribution(indices, signs, h1, h2, eps0: float, t: int) -> np.ndarray:
    """Exact ``P[z | x, H1, H2]``, averaged over Algorithm 1's random order (line 5).

    Closed form: the last writer of an occupied pair is uniform among the entries of
    ``Y_x`` hashed to it, so an occupied pair with entries ``e_1..e_r`` has
    ``P[z = k] = (1/r) sum_i (e^eps0 [k = H(e_i)] + [k = H'(e_i)]) / Omega``; the free
    pairs share ``Omega - m (e^eps0 + 1)`` evenly over their ``t - 2m`` buckets.
    """
    half = t // 2
    E = math.exp(eps0)
    s = len(indices)
    omega = (E + 1) * s + t - 2 * s
    k1, up = _positions(indices, signs, h1, h2, half)
    r = np.bincount(k1, minlength=half)
    occ = r > 0
    m = int(occ.sum())
    P = np.zeros(t)
    free = (omega - m * (E + 1)) / ((t - 2 * m) * omega)
    P[:half][~occ] = free
    P[half:][~occ] = free
    hi_pos = k1 + half * up
    lo_pos = k1 + half * (~up)
    np.add.at(P, hi_pos, E / (omega * r[k1]))
    np.add.at(P, lo_pos, 1.0 / (omega * r[k1]))
    return P


def sample_coco(k1: np.ndarray, up: np.ndarray, eps0: float, t: int,
                rng: np.random.Generator) -> np.ndarray:
    """Draw ``z`` for every row (Algorithm 1), vectorised over users.

    ``k1`` (n, s): ``H1(j)`` of the entries of ``Y_x``; ``up`` (n, s): whether ``H(jb)`` is
    the upper bucket of its pair.  Under the uniformly random order of line 5 the last
    writer of an occupied pair (which keeps ``e^eps0`` on its ``H(jb)`` and 1 on the
    other bucket) is uniform among the entries hashed to that pair, independently
    across pairs.  Hence ``z`` is drawn as: with probability ``m (e^eps0 + 1)/Omega``
    (``m`` occupied pairs) a uniformly chosen occupied pair, a uniformly chosen entry of
    it as the writer, and the writer's ``H(jb)`` with probability ``e^eps0/(e^eps0 + 1)``
    (else the other bucket); otherwise a uniform bucket among the ``t - 2m`` free ones
    (line 14's weight ``w`` is common to all of them).  Exact; checked against
    :func:`coco_weights_for_order` in the tests.
    """
    k1 = np.asarray(k1, dtype=np.int64)
    n, s = k1.shape
    half = t // 2
    E = math.exp(eps0)
    omega = (E + 1) * s + t - 2 * s
    keys = np.sort((k1 << 1) | np.asarray(up, dtype=np.int64), axis=1)
    ks = keys >> 1
    first = np.ones((n, s), dtype=bool)
    first[:, 1:] = ks[:, 1:] != ks[:, :-1]
    m = first.sum(axis=1)
    occupied = rng.random(n) < m * ((E + 1) / omega)
    start = kth_true(first, rng.integers(0, m))
    pair = np.take_along_axis(ks, start[:, None], axis=1)[:, 0]
    size = (ks == pair[:, None]).sum(axis=1)
    pos = start + rng.integers(0, size)
    wup = (np.take_along_axis(keys, pos[:, None], axis=1)[:, 0] & 1).astype(bool)
    heavy = rng.random(n) < E / (E + 1)
    z_occ = pair + half * np.where(heavy, wup, ~wup)
    taken = np.where(first, ks, np.iinfo(np.int64).max)
    free_pair = kth_free(taken, rng.integers(0, half - m))
    z_free = free_pair + half * (rng.random(n) < 0.5)
    return np.where(occupied, z_occ, z_free).astype(np.int64)


# --------------------------------------------------------------------------- mechanism
class CoCo(HashedMechanism):
    """(d, s, eps0, t)-CoCo mechanism (Algorithms 1 and 2).

    Parameters
    ----------
    d, s, eps0, t : see :class:`CoCoParams` (``t`` even, ``>= 2s + 2``; ``t=None`` is
        Theorem 7's choice for the mean estimator).
    n_threads : threads used by the server-side aggregation.

    Notes
    -----
    Client: :meth:`randomize` (eps0-LDP, Proposition 2; checked exactly in the tests);
    server: :meth:`estimate` (Algorithm 2); exact errors: :meth:`analytic_mse`
    (Lemma 3, exact).  Reports are ``(seed, z)``.

    References
    ----------
    Wang et al., Section 7: Algorithms 1 and 2, Table 2, equation (7), Lemma 3,
    Theorem 7, Proposition 2.

    Examples
    --------
    >>> import numpy as np
    >>> from mechanisms import CoCo, synthetic_sparse_vectors
    >>> mech = CoCo(d=16, s=2, eps0=2.0)  # t: Theorem 7's choice
    >>> mech
    CoCo(d=16, s=2, eps0=2.0, t=20)
    >>> rng = np.random.default_rng(0)
    >>> data = synthetic_sparse_vectors(rng, n=5000, d=16, s=2)
    >>> truth = data.nonmissing_frequencies()
    >>> sq = [np.sum((mech.simulate(data, rng).nonmissing - truth) ** 2) for _ in range(20)]
    >>> print(f"{np.mean(sq):.4f} {mech.analytic_mse(5000, data)['mse_nonmissing']:.4f}")
    0.0134 0.0135
    """

    name = "coco"

    PARAMS = CoCoParams
    MSE = staticmethod(coco_mse)  # Lemma 3
    VARIANCES = staticmethod(coco_variances_from_counts)
    LABEL = "CoCo"




    # ---- hash
    def hash_tables(self, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """``(H1, H2)`` of a seed: (d,) values in ``[0, t/2)`` and (d,) values ``H2(j+)`` in {-1, 1}."""
        hp = bucket32(hash_words(np.uint64(seed), np.arange(self.d)) >> np.uint64(32), self.t)
        half = self.params.half
        return hp % half, np.where(hp >= half, 1, -1).astype(np.int64)

    def output_distribution(self, indices, signs, h1, h2) -> np.ndarray:
        """Exact ``P[z | x, H1, H2]`` (averaged over the random order); see
        :func:`coco_output_distribution`."""
        if len(indices) != self.s:
            raise ValueError(f"expected {self.s} non-zero coordinates, got {len(indices)}")
        return coco_output_distribution(indices, signs, h1, h2, self.eps0, self.t)

    # ---- client
    _BLOCK_ELEMS = 1 << 18  # users per randomisation block = this / s (cache-sized work arrays)

    def _block_rows(self) -> int:
        return max(1, self._BLOCK_ELEMS // self.s)

    def randomize(self, data: SparseVectors, rng: np.random.Generator,
                  seeds: np.ndarray | None = None) -> CoCoReports:
        """Algorithm 1 for every user (vectorised); ``seeds`` overrides the hash draw."""
        self._check_data(data)
        n = data.n
        seeds = self._seeds(rng, n, seeds)
        half = self.params.half
        z = np.empty(n, dtype=np.int64)
        B = self._block_rows()
        for a in range(0, n, B):
            b = min(a + B, n)
            w = hash_words(seeds[a:b, None], data.indices[a:b])
            hp = bucket32(w >> np.uint64(32), self.t)  # H(j+)
            k1 = hp % half
            up = (data.signs[a:b] > 0) == (hp >= half)
            z[a:b] = sample_coco(k1, up, self.eps0, self.t, rng)
        return CoCoReports(seeds=seeds, z=z, t=self.t)

    # ---- server
    def pair_hit_counts(self, reports: CoCoReports) -> tuple[np.ndarray, np.ndarray]:
        """``(A, B)`` with ``A_j = #{i : H_i(j+) = z_i}``, ``B_j = #{i : H_i(j-) = z_i}``."""
        return coco_hit_counts(reports.seeds, reports.z, self.d, self.t, self.n_threads)

    def estimate(self, reports: CoCoReports, n: int | None = None) -> Estimates:
        """Algorithm 2: ``nonmissing_j = mean_i(A + B - 2Pf)/(Pt + Po - 2Pf)``,
        ``mean_j = mean_i(A - B)/(Pt - Po)``; items ``j+/-`` are ``(nonmissing +/- mean)/2``
        (the unbiased solution of Table 2)."""
        n = reports.n if n is None else int(n)
        if n < 1:
            raise ValueError("n must be >= 1")
        if reports.t and reports.t != self.t:
            raise ValueError(f"reports were made with t = {reports.t}, mechanism has t = {self.t}")
        A, B = self.pair_hit_counts(reports)
        p = self.params
        r = coco_rates(p.s, p.eps0, p.t)
        em1 = math.expm1(p.eps0)
        a_n = (p.t - 2 * p.s) * em1 / (p.t * p.omega)  # Pt + Po - 2 Pf
        a_m = (1 - r.P_ow) * em1 / p.omega  # Pt - Po
        nonmissing = ((A + B) / n - 2.0 / p.t) / a_n
        mean = ((A - B) / n) / a_m
        item = np.empty(2 * p.d)
        item[1::2] = (nonmissing + mean) / 2
        item[0::2] = (nonmissing - mean) / 2
        return Estimates(item_freq=item, mean=mean, nonmissing=nonmissing)

    # ---- analysis
    def rates(self):
        """``CoCoRates(Pt, Pf, Po, P_ow)`` (Section 7.2, equation (7))."""
        return coco_rates(self.s, self.eps0, self.t)
