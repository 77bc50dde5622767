"""PCKV (Gu, Li, Cheng, Xiong, Cao, "PCKV: Locally Differentially Private Correlated
Key-Value Data Collection with Optimized Utility", USENIX Security 2020): the
baselines "PCKV-UE", "PCKV-GRR" and "PCKV-AGRR" of Wang et al., Sections 1.3, 3.1, 8.

Implemented from our knowledge of the PCKV paper (not available in the seeds); the
steps below are exactly what this module does.

Client
------
1. **Padding-and-sampling** with padding length ``ell`` (default ``ell = s``): the
   user's s key-value pairs are padded with ``ell - s`` dummy pairs whose keys are the
   dummy keys d, ..., d + ell - s - 1 and whose value is 0; one of the ``ell`` pairs is
   sampled uniformly.  The value is discretised to +1 w.p. (1 + v)/2, else -1 (a no-op
   for the real pairs, v = +-1; a fair coin for a dummy pair).  The key domain of the
   perturbation is therefore ``d' = d + ell - s``.
   *Deviation:* PCKV pads from a pool of ``ell`` dummy keys (``d' = d + ell``) because
   its users may hold fewer than ``ell`` keys; in this data model every user holds
   exactly s keys, so exactly ``ell - s`` dummies are always needed and we use the
   minimal pool (with the default ``ell = s`` there are no dummies at all, d' = d).
   ``ell < s`` (PCKV's truncation regime, biased) is not supported.
2. **Perturbation** of the sampled pair <k, v> with key budget eps1 and value budget
   eps2, p = e^{eps2} / (1 + e^{eps2}):

   * PCKV-UE (unary encoding, OUE-style): output y in {-1, 0, 1}^{d'}; y_k = v w.p.
     a p, -v w.p. a (1 - p), 0 w.p. 1 - a; every other y_i = +1 / -1 w.p. b/2 each, 0
     w.p. 1 - b; with a = 1/2, b = 1 / (e^{eps1} + 1).
   * PCKV-GRR: output <k', v'>: w.p. a, k' = k and v' = v w.p. p, -v w.p. 1 - p;
     otherwise k' uniform on the d' - 1 other keys and v' uniform on {-1, +1};
     a = e^{eps1} / (e^{eps1} + d' - 1), and b := (1 - a)/(d' - 1) = 1/(e^{eps1} + d' - 1)
     is the probability of any particular other key.

   In both cases P(report says <k, +-1> | sampled key != k) = b / 2 each.
3. **Privacy and budget allocation.**  PCKV's tight composition (as we recall its
   privacy theorem for PCKV-UE/-GRR; re-derived and checked exactly in the tests): the
   pair perturbation is eps-LDP with
   ``eps = max{eps2, eps1 + ln(2 e^{eps2} / (1 + e^{eps2}))}`` (the worst output ratio
   is 2 p e^{eps1}, attained by <k, v> vs a different key), which is smaller than
   eps1 + eps2.  We use the allocation ``eps2 = eps, eps1 = ln((e^{eps} + 1) / 2)``
   (which we recall as PCKV's near-optimal allocation; it makes the bound exactly eps,
   and r2 := 2 e^{eps1} / (1 + e^{eps2}) = 1, i.e. PCKV-GRR becomes GRR over the 2 d'
   key-value pairs).  Override with ``eps_value`` = eps2 in (0, eps]; then
   eps1 = eps - ln(2 e^{eps2} / (1 + e^{eps2})).  Sampling a pair from the user's set
   only averages these channels, so the user is eps-LDP.  PCKV-UE and PCKV-GRR use
   eps = eps0.
4. **PCKV-AGRR** (PCKV's privacy amplification by sampling for GRR; Wang et al.,
   Sec. 3.1: "applied with a privacy budget of eps' = log(s (e^eps - 1) + 1)"): the
   perturbation uses ``eps' = ln(ell (e^{eps0} - 1) + 1)``.  With the allocation above
   r2 := 2 e^{eps1} / (1 + e^{eps2}) = e^{eps' - eps2} >= 1 and, for an output <k, v>,
   the probability given a set is (b/2)/ell * (ell - 1 + r) with r = r1 = e^{eps'} if
   the set holds <k, v>, r = r2 if it holds <k, -v>, (r1 + r2)/2 for a dummy key k and
   r = 1 otherwise (each set holds key k at most once); hence the worst ratio is
   (ell - 1 + e^{eps'}) / ell = e^{eps0}: the composite is exactly eps0-LDP (checked
   numerically by ``output_distribution`` in the tests).

Server
------
For each real key k let n1 / n2 = number of reports saying <k, +1> / <k, -1>
(y_k = +1 / -1 for UE) and c_i = n_i / n - b/2.  With f_+ / f_- the probability that a
user's sampled pair is <k, +1> / <k, -1> (= item frequency / ell):

    E[c1] = f_+ (a p - b/2) + f_- (a (1-p) - b/2),   E[c2] = symmetric,

so (PCKV's calibration of n1, n2)

    non-missing   F_k = ell (c1 + c2) / (a - b)          (PCKV's frequency estimator
                                                         ell ((n1+n2)/n - b)/(a - b)),
    coordinate mean M_k = ell (c1 - c2) / (a (2p - 1))   (= F_k * m_k with PCKV's mean
                                                         m_k = (n1^ - n2^)/(n1^ + n2^)
                                                         *before* its correction step),
    items  freq(k+/-) = (F_k +- M_k) / 2.

All three are affine in the counts and **unbiased** for the averages over all n
users (the ``ell`` factor undoes the 1-of-ell sampling).  PCKV's correction step
(clipping the calibrated counts / m_k to a valid range) is *not* applied (it would
bias the estimates; Wang et al. post-process by simplex projection instead).

Variance (exact, ``analytic_mse_per_coordinate``): each estimate is
(1/n) sum_i (w1 e1_i + w2 e2_i) + const with e1_i, e2_i the indicators above, users
independent, so Var = (1/n) * avg_i Var_i with the exact per-user probabilities
P(e1) = a p / ell + (1 - 1/ell) b/2 etc. for a holder of k+.  For the non-missing
frequency this gives

    Var(F_k) = ell^2 b (1-b) / (n (a-b)^2) + ell F (1 - 2b - (a-b)/ell) / (n (a-b)),

which for ell = 1 is the familiar OUE/GRR frequency-oracle variance
(b (1-b) / (a-b)^2 + F (1-a-b) / (a-b)) / n.  PCKV's published frequency variance is,
as we recall it, the ell-scaled version ell^2 b(1-b)/(n(a-b)^2) + ell F (1-a-b)/(n(a-b))
(it treats the holder's probability as a rather than a/ell + (1 - 1/ell) b); the two
agree for ell = 1 and ours is exact for every ell.  PCKV's published variance of the
mean-among-holders m_k is a first-order (ratio) approximation; we do not need it
because the project's coordinate-mean estimator above is affine.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from mechanisms.core.data import Estimates, SparseVectors
from mechanisms.baselines._common import (
    BaselineMechanism,
    check_data,
    check_input,
    check_int,
    check_real,
    two_indicator_moments,
    type_probabilities,
)

_UE_BLOCK_CELLS = 1 << 22  # cells per block when generating/unpacking UE reports


@dataclass(frozen=True)
class PCKVGRRReports:
    """One report per user: ``item`` (n,) int64 = 2 k' + (v' > 0), k' in [0, d')."""

    item: np.ndarray


@dataclass(frozen=True)
class PCKVUEReports:
    """UE reports as packed bit planes: ``pos`` / ``neg`` (n, ceil(d'/8)) uint8
    (``np.packbits`` along axis 1) of y == +1 / y == -1; ``d_prime`` columns."""

    pos: np.ndarray
    neg: np.ndarray
    d_prime: int


class _PCKVBase(BaselineMechanism):
    """Padding-and-sampling + key/value perturbation + PCKV's calibrated estimators."""

    name = "pckv"

    def __init__(self, d: int, s: int, eps0: float, ell: int | None = None,
                 eps_value: float | None = None) -> None:
        super().__init__(d, s, eps0)
        self.ell = self.s if ell is None else check_int("ell", ell, self.s)
        self.d_prime = self.d + self.ell - self.s
        self.eps_perturb = self._perturbation_budget()
        eps = self.eps_perturb
        if eps_value is None:
            eps2 = eps
        else:
            eps2 = check_real("eps_value", eps_value, 0.0, eps)
        self.eps2 = eps2
        # tight composition: eps = eps1 + ln(2 e^{eps2} / (1 + e^{eps2}))
        self.eps1 = eps - (math.log(2.0) + eps2 - np.logaddexp(0.0, eps2))
        self.eps1 = float(self.eps1)
        self.p = 1.0 / (1.0 + math.exp(-eps2))
        self.a, self.b = self._ab()

    def _perturbation_budget(self) -> float:
        return self.eps0

    def _ab(self) -> tuple[float, float]:  # pragma: no cover
        raise NotImplementedError

    # ------------------------------------------------------------------ client helpers
    def _sample_pairs(self, data: SparseVectors, rng: np.random.Generator):
        """Padding-and-sampling: sampled key in [0, d') and value in {-1, +1} per user."""
        n = data.n
        u = rng.integers(0, self.ell, size=n)
        real = u < self.s
        col = np.minimum(u, self.s - 1)
        rows = np.arange(n)
        key = np.where(real, data.indices[rows, col], self.d + (u - self.s))
        coin = np.where(rng.random(n) < 0.5, 1, -1)
        val = np.where(real, data.signs[rows, col], coin).astype(np.int8)
        return key.astype(np.int64), val

    # ------------------------------------------------------------------ server
    def _counts(self, reports, n: int) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
        raise NotImplementedError

    def estimate(self, reports, n: int) -> Estimates:
        """PCKV's calibrated (unbiased, uncorrected) estimators; see module docstring."""
        n = check_int("n", n, 1)
        n1, n2 = self._counts(reports, n)
        a, b, p, ell = self.a, self.b, self.p, self.ell
        c1 = n1 / n - b / 2
        c2 = n2 / n - b / 2
        F = ell * (c1 + c2) / (a - b)
        M = ell * (c1 - c2) / (a * (2 * p - 1))
        item = np.empty(2 * self.d)
        item[1::2] = (F + M) / 2
        item[0::2] = (F - M) / 2
        return Estimates(item_freq=item, mean=M, nonmissing=F)

    # ------------------------------------------------------------------ exact distribution
    def _pair_channel(self) -> np.ndarray:  # pragma: no cover
        """(2 d', n_out) matrix: row 2k + (v > 0) = output distribution given pair <k, v>."""
        raise NotImplementedError

    def output_distribution(self, x_indices, x_signs) -> np.ndarray:
        """Exact probabilities of every output for one input (small domains).

        Mixture over the padded set: (1/ell) sum over the s real pairs plus, for each of
        the ell - s dummy keys, the average of its two values.  The output order is
        documented in the subclass (``output_labels``).
        """
        idx, sg = check_input(x_indices, x_signs, self.d, self.s)
        W = self._pair_channel()
        rows = 2 * idx + (sg > 0)
        dist = W[rows].sum(axis=0)
        for k in range(self.d, self.d_prime):
            dist = dist + 0.5 * (W[2 * k] + W[2 * k + 1])
        return dist / self.ell

    # ------------------------------------------------------------------ analytics
    def analytic_mse_per_coordinate(self, data=None, n: int | None = None) -> dict:
        """Exact per-coordinate variances (= MSE, the estimators are unbiased).

        Var = (1/n) * sum_types frac_type * Var_type(w1 e1 + w2 e2), types = holds k+,
        holds k-, holds neither; P(e1), P(e2) per type as in the module docstring.
        """
        f, n = self._resolve(data, n)
        fp, fm = f[1::2], f[0::2]
        a, b, p, ell = self.a, self.b, self.p, self.ell
        ones = np.ones(self.d)
        bg = (1 - 1 / ell) * b / 2
        hi, lo = a * p / ell + bg, a * (1 - p) / ell + bg
        P1 = np.stack([hi * ones, lo * ones, b / 2 * ones])
        P2 = np.stack([lo * ones, hi * ones, b / 2 * ones])
        frac = type_probabilities(fp, fm)
        wF = ell / (a - b)
        wM = ell / (a * (2 * p - 1))

        def var(w1, w2):
            return two_indicator_moments(P1, P2, frac, w1, w2)[0] / n

        item = np.empty(2 * self.d)
        item[1::2] = var((wF + wM) / 2, (wF - wM) / 2)
        item[0::2] = var((wF - wM) / 2, (wF + wM) / 2)
        return {"mse_mean": var(wM, -wM), "mse_nonmissing": var(wF, wF), "mse_item": item}


class PCKVGRR(_PCKVBase):
    """PCKV with generalized randomized response (Gu et al. 2020), eps0-LDP.

    Parameters
    ----------
    d : dimension, >= 1 (with d' = d + ell - s >= 2).
    s : sparsity, in [1, d].
    eps0 : local budget, > 0.
    ell : padding length, integer >= s (default s).
    eps_value : value budget eps2 in (0, eps0] (default eps0, PCKV's allocation).

    Notes
    -----
    Reports: :class:`PCKVGRRReports`.  ``output_distribution`` returns a (2 d',) array
    indexed by output item 2 k' + (v' > 0).

    Examples
    --------
    >>> from mechanisms import PCKVGRR
    >>> mse = PCKVGRR(d=8, s=2, eps0=2.0).analytic_mse_default(2000)  # n = 2000 users
    >>> print(f"{mse['mse_mean']:.4f} {mse['mse_nonmissing']:.4f}")
    0.0236 0.0207
    """

    name = "pckv-grr"

    def _ab(self) -> tuple[float, float]:
        if self.d_prime < 2:
            raise ValueError("d + ell - s must be >= 2 for GRR (increase d or ell)")
        # a = e^{eps1}/(e^{eps1} + d' - 1), b = 1/(e^{eps1} + d' - 1), computed stably
        t = math.exp(-self.eps1) * (self.d_prime - 1)
        a = 1.0 / (1.0 + t)
        b = (1.0 - a) / (self.d_prime - 1)
        return a, b

    def randomize(self, data: SparseVectors, rng: np.random.Generator) -> PCKVGRRReports:
        """Padding-and-sampling then GRR on the key and RR on the value (vectorised)."""
        check_data(data, self.d, self.s)
        n = data.n
        key, val = self._sample_pairs(data, rng)
        keep = rng.random(n) < self.a
        v_keep = np.where(rng.random(n) < self.p, val, -val)
        other = (key + 1 + rng.integers(0, self.d_prime - 1, size=n)) % self.d_prime
        v_other = np.where(rng.random(n) < 0.5, 1, -1)
        k_out = np.where(keep, key, other)
        v_out = np.where(keep, v_keep, v_other)
        return PCKVGRRReports(item=(2 * k_out + (v_out > 0)).astype(np.int64))

    def _counts(self, reports: PCKVGRRReports, n: int):
        item = np.asarray(reports.item)
        if item.shape != (n,):
            raise ValueError(f"reports must hold n={n} entries")
        c = np.bincount(item, minlength=2 * self.d_prime)[: 2 * self.d].astype(np.float64)
        return c[1::2], c[0::2]

    def _pair_channel(self) -> np.ndarray:
        D = self.d_prime
        W = np.full((2 * D, 2 * D), self.b / 2)
        for k in range(D):
            for v in (0, 1):
                W[2 * k + v, 2 * k + v] = self.a * self.p
                W[2 * k + v, 2 * k + 1 - v] = self.a * (1 - self.p)
        return W


class PCKVAGRR(PCKVGRR):
    """PCKV-GRR with privacy amplification by sampling ("PCKV-AGRR"), eps0-LDP overall.

    The pair perturbation runs with ``eps' = ln(ell (e^{eps0} - 1) + 1)`` (attribute
    ``eps_perturb``) so that after sampling one of the ell padded pairs the user is
    exactly eps0-LDP (module docstring, step 4).  ``eps_value`` (eps2) may be set in
    (0, eps'], default eps'.  Other parameters as :class:`PCKVGRR`.

    Examples
    --------
    >>> from mechanisms import PCKVAGRR
    >>> mse = PCKVAGRR(d=8, s=2, eps0=2.0).analytic_mse_default(2000)  # n = 2000 users
    >>> print(f"{mse['mse_mean']:.4f} {mse['mse_nonmissing']:.4f}")
    0.0091 0.0081
    """

    name = "pckv-agrr"

    def _perturbation_budget(self) -> float:
        # ln(ell (e^{eps0} - 1) + 1), stable for small eps0
        return float(math.log1p(self.ell * math.expm1(self.eps0)))


class PCKVUE(_PCKVBase):
    """PCKV with unary encoding (Gu et al. 2020), eps0-LDP.

    Parameters as :class:`PCKVGRR` (d' = d + ell - s >= 1).  Reports:
    :class:`PCKVUEReports` (packed bit planes, n * 2 * ceil(d'/8) bytes).
    ``output_distribution`` enumerates all 3^{d'} output vectors (d' <= 10), in the
    order of ``itertools.product((-1, 0, 1), repeat=d')``.

    Examples
    --------
    >>> from mechanisms import PCKVUE
    >>> mse = PCKVUE(d=8, s=2, eps0=2.0).analytic_mse_default(2000)  # n = 2000 users
    >>> print(f"{mse['mse_mean']:.4f} {mse['mse_nonmissing']:.4f}")
    0.0245 0.0293
    """

    name = "pckv-ue"

    def _ab(self) -> tuple[float, float]:
        return 0.5, 1.0 / (1.0 + math.exp(self.eps1))

    def randomize(self, data: SparseVectors, rng: np.random.Generator) -> PCKVUEReports:
        """Padding-and-sampling then the UE perturbation, generated in row blocks."""
        check_data(data, self.d, self.s)
        n, D = data.n, self.d_prime
        key, val = self._sample_pairs(data, rng)
        u = rng.random(n)
        y_key = np.where(u < self.a * self.p, val,
                         np.where(u < self.a, -val, 0)).astype(np.int8)
        nb = (D + 7) // 8
        pos = np.empty((n, nb), dtype=np.uint8)
        neg = np.empty((n, nb), dtype=np.uint8)
        rows_per = max(1, _UE_BLOCK_CELLS // D)
        half_b = self.b / 2
        for start in range(0, n, rows_per):  # blocks of users, bounded memory
            stop = min(n, start + rows_per)
            U = rng.random((stop - start, D))
            y = np.where(U < half_b, 1, np.where(U < self.b, -1, 0)).astype(np.int8)
            y[np.arange(stop - start), key[start:stop]] = y_key[start:stop]
            pos[start:stop] = np.packbits(y == 1, axis=1)
            neg[start:stop] = np.packbits(y == -1, axis=1)
        return PCKVUEReports(pos=pos, neg=neg, d_prime=D)

    def _counts(self, reports: PCKVUEReports, n: int):
        if reports.pos.shape[0] != n or reports.neg.shape[0] != n:
            raise ValueError(f"reports must hold n={n} rows")
        D = reports.d_prime
        n1 = np.zeros(D)
        n2 = np.zeros(D)
        rows_per = max(1, _UE_BLOCK_CELLS // D)
        for start in range(0, n, rows_per):
            stop = min(n, start + rows_per)
            n1 += np.unpackbits(reports.pos[start:stop], axis=1, count=D).sum(axis=0)
            n2 += np.unpackbits(reports.neg[start:stop], axis=1, count=D).sum(axis=0)
        return n1[: self.d], n2[: self.d]

    def output_labels(self) -> np.ndarray:
        """(3^{d'}, d') array of the output vectors in ``output_distribution`` order."""
        return np.array(list(itertools.product((-1, 0, 1), repeat=self.d_prime)), dtype=np.int8)

    def _pair_channel(self) -> np.ndarray:
        D = self.d_prime
        if D > 10:
            raise ValueError("output_distribution of PCKV-UE needs d + ell - s <= 10")
        Y = self.output_labels()
        other = np.where(Y == 0, 1 - self.b, self.b / 2)
        W = np.empty((2 * D, Y.shape[0]))
        for k in range(D):
            rest = np.prod(np.delete(other, k, axis=1), axis=1)
            for vbit, v in ((1, 1), (0, -1)):
                at_k = np.where(Y[:, k] == v, self.a * self.p,
                                np.where(Y[:, k] == -v, self.a * (1 - self.p), 1 - self.a))
                W[2 * k + vbit] = at_k * rest
        return W
