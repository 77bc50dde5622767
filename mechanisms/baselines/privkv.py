"""PrivKV (Ye, Hu, Meng, Zheng, "PrivKV: Key-Value Data Collection with Local
Differential Privacy", IEEE S&P 2019), the baseline "PrivKV" of Wang et al., Sec. 3.1/8.

Implemented from our knowledge of the PrivKV paper (not available in the seeds); the
steps below are exactly what this module does.

Client (PrivKV's "LPP", one round, i.e. PrivKV rather than the iterated PrivKVM):

1. The user's key-value set is viewed as a length-d vector of pairs
   ``<1, v_j>`` (key j held, value v_j in [-1, 1]) or ``<0, 0>`` (key j missing).
2. **Key sampling (data-agnostic):** sample j uniformly from [d].
3. **Value perturbation (VPP, budget eps2):** if key j is held, the value is first
   discretised to v* = +1 w.p. (1 + v)/2 else -1 (a no-op here since v = +-1), then
   kept w.p. p2 = e^{eps2} / (1 + e^{eps2}), flipped otherwise.
4. **Key perturbation (budget eps1):** a held key is reported as ``<1, v+>`` w.p.
   p1 = e^{eps1} / (1 + e^{eps1}) and as ``<0, 0>`` otherwise; a missing key is reported
   as ``<0, 0>`` w.p. p1 and otherwise as ``<1, v+>`` with a value drawn uniformly from
   [-1, 1] then discretised and perturbed, i.e. uniform on {-1, +1}.
5. Report ``(j, r)`` with r in {-1, 0, +1} (r = 0 encodes ``<0, 0>``).

The user is (eps1 + eps2)-LDP by sequential composition, eps1 + eps2 = eps0.  By
default eps1 = eps2 = eps0 / 2 (``key_budget_fraction=0.5``).  (The exact worst-case
ratio is max(e^{eps1} 2 p2, e^{eps2}, ...) < e^{eps0}: the composition is not tight.)

Server, for each key k with group G_k = {users that sampled k}, m_k = |G_k|,
N_k = #{r != 0}, n1 = #{r = +1}, n2 = #{r = -1}:

* **frequency** (PrivKV's key estimator): f_k = (N_k / m_k - (1 - p1)) / (2 p1 - 1).
  Unbiased for the fraction of users holding k (given m_k >= 1; if m_k = 0 the estimate
  is 0, a bias of order (1 - 1/d)^n).
* **mean among holders** (``mean_estimator="privkv"``, the published one-round
  estimator *with correction*): calibrated counts n1* = (n1 - (1 - p2) N_k)/(2 p2 - 1),
  n2* = N_k - n1*, corrected (clipped) to [0, N_k]; m_k = (n1* - n2*) / N_k, i.e.
  m_k = clip((n1 - n2) / ((2 p2 - 1) N_k), -1, 1) (0 when N_k = 0).  **This estimator is
  biased by design**: N_k also counts the "fake" ``<1, +-1>`` reports of non-holders,
  whose values average to 0, so m_k converges to
  p1 M_k / (p1 F_k + (1 - p1)(1 - F_k)) rather than M_k / F_k (F_k = non-missing
  frequency, M_k = coordinate mean) -- the dilution that PrivKVM's extra rounds fix.
  The project targets are then derived as coordinate mean f_k m_k, item frequencies
  f_k (1 +- m_k) / 2 and non-missing frequency f_k.
* ``mean_estimator="unbiased"`` (not in PrivKV; offered for comparison): coordinate mean
  (n1 - n2) / (m_k p1 (2 p2 - 1)), item frequencies (f_k +- that) / 2.  Unbiased (up to
  the m_k = 0 event) because a fake value has mean 0.

Scaling: every estimate is a fraction over the users of a group; since a group is a
uniformly random subset of all n users, its expectation is the average over ALL n
users (no scaling by s is involved: PrivKV samples a key of the domain, not of the
user's set).

Error formulas (``analytic_mse_per_coordinate``)
-----------------------------------------------
PrivKV's frequency variance is, as we recall it, the randomized-response variance
p1 (1 - p1) / (m_k (2 p1 - 1)^2) over a group of about n/d users, i.e. about
d p1 (1 - p1) / (n (2 p1 - 1)^2).  We implement the exact MSE of every affine
estimator instead (frequency; means and items of ``"unbiased"``), which adds the
group-sampling term and the randomness of m_k:
E[1/m; m>=1] V_noise + E[(n-m)/(m(n-1)); m>=1] S2_data + P(m=0) theta^2.  For the
published (biased, clipped-ratio) mean estimator no closed form is published; we
return a documented semi-analytic approximation (see the method's docstring), within
a few per cent of simulation in the regimes we tested.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from mechanisms.core.data import Estimates, SparseVectors
from mechanisms.baselines._common import (
    BaselineMechanism,
    as_item_freq,
    binom_nodes,
    binom_reciprocal_moments,
    check_data,
    check_input,
    check_real,
    report_columns,
    two_indicator_moments,
    type_probabilities,
)


@dataclass(frozen=True)
class PrivKVReports:
    """One report per user: sampled key ``j`` (n,) int64 and ``r`` (n,) int8 in {-1, 0, 1}."""

    j: np.ndarray
    r: np.ndarray


class PrivKV(BaselineMechanism):
    """PrivKV (Ye et al., S&P 2019), one round, eps0-LDP.

    Parameters
    ----------
    d : dimension (key domain size), >= 1.
    s : sparsity (keys per user), in [1, d].
    eps0 : total local budget, > 0; eps1 = key_budget_fraction * eps0 for keys,
        eps2 = eps0 - eps1 for values.
    key_budget_fraction : in (0, 1), default 0.5.
    mean_estimator : ``"privkv"`` (published, biased; default) or ``"unbiased"``.

    Examples
    --------
    >>> import numpy as np
    >>> from mechanisms import PrivKV, synthetic_sparse_vectors
    >>> rng = np.random.default_rng(0)
    >>> data = synthetic_sparse_vectors(rng, n=2000, d=8, s=2)
    >>> est = PrivKV(d=8, s=2, eps0=2.0).simulate(data, rng)
    >>> est.mean.shape
    (8,)
    >>> print(f"{PrivKV(d=8, s=2, eps0=2.0).analytic_mse_default(2000)['mse_mean']:.4f}")
    0.0253
    """

    name = "privkv"

    def __init__(self, d: int, s: int, eps0: float, key_budget_fraction: float = 0.5,
                 mean_estimator: str = "privkv") -> None:
        super().__init__(d, s, eps0)
        frac = check_real("key_budget_fraction", key_budget_fraction, 0.0, 1.0, hi_open=True)
        if mean_estimator not in ("privkv", "unbiased"):
            raise ValueError("mean_estimator must be one of {'privkv', 'unbiased'}, "
                             f"got {mean_estimator!r}")
        self.mean_estimator = mean_estimator
        self.eps1 = frac * self.eps0
        self.eps2 = self.eps0 - self.eps1
        self.p1 = 1.0 / (1.0 + math.exp(-self.eps1))
        self.p2 = 1.0 / (1.0 + math.exp(-self.eps2))

    # ------------------------------------------------------------------ client
    def randomize(self, data: SparseVectors, rng: np.random.Generator) -> PrivKVReports:
        """Steps 1-5 of the module docstring for every user (vectorised)."""
        check_data(data, self.d, self.s)
        n = data.n
        j = rng.integers(0, self.d, size=n)
        hit = data.indices == j[:, None]
        held = hit.any(axis=1)
        sign = np.sum(np.where(hit, data.signs, 0), axis=1).astype(np.int8)
        u_key = rng.random(n)
        u_val = rng.random(n)
        v_held = np.where(u_val < self.p2, sign, -sign)
        v_fake = np.where(u_val < 0.5, 1, -1)
        r = np.where(held,
                     np.where(u_key < self.p1, v_held, 0),
                     np.where(u_key < self.p1, 0, v_fake)).astype(np.int8)
        return PrivKVReports(j=j.astype(np.int64), r=r)

    # ------------------------------------------------------------------ server
    def estimate(self, reports: PrivKVReports, n: int) -> Estimates:
        """PrivKV's estimators (module docstring), vectorised with ``bincount``."""
        n, (j, r) = report_columns(n, reports.j, reports.r)
        d = self.d
        m = np.bincount(j, minlength=d).astype(np.float64)
        n1 = np.bincount(j, weights=(r == 1), minlength=d)
        n2 = np.bincount(j, weights=(r == -1), minlength=d)
        msafe = np.maximum(m, 1.0)
        c1, c2 = 2 * self.p1 - 1, 2 * self.p2 - 1
        f = np.where(m > 0, ((n1 + n2) / msafe - (1 - self.p1)) / c1, 0.0)
        if self.mean_estimator == "privkv":
            N = n1 + n2
            mk = np.where(N > 0, (n1 - n2) / (c2 * np.maximum(N, 1.0)), 0.0)
            mk = np.clip(mk, -1.0, 1.0)
            mean = f * mk
        else:
            mean = np.where(m > 0, (n1 - n2) / (msafe * self.p1 * c2), 0.0)
        item = np.empty(2 * d)
        item[1::2] = (f + mean) / 2
        item[0::2] = (f - mean) / 2
        return Estimates(item_freq=item, mean=mean, nonmissing=f)

    # ------------------------------------------------------------------ exact distribution
    def output_distribution(self, x_indices, x_signs) -> np.ndarray:
        """Exact probabilities of every output ``(j, r)`` for one input.

        Returns a (d, 3) array ``P[j, r + 1]`` (r in {-1, 0, 1}), summing to 1.
        """
        idx, sg = check_input(x_indices, x_signs, self.d, self.s)
        p1, p2 = self.p1, self.p2
        P = np.tile([(1 - p1) / 2, p1, (1 - p1) / 2], (self.d, 1))
        for k, v in zip(idx, sg):
            P[k] = [p1 * (1 - p2), 1 - p1, p1 * p2] if v > 0 else [p1 * p2, 1 - p1, p1 * (1 - p2)]
        return P / self.d

    # ------------------------------------------------------------------ analytics
    def _indicator_probs(self, f_plus, f_minus):
        """P(r = +1), P(r = -1) of a group member by type (holds k+, k-, neither)."""
        p1, p2 = self.p1, self.p2
        ones = np.ones_like(f_plus)
        P1 = np.stack([p1 * p2 * ones, p1 * (1 - p2) * ones, (1 - p1) / 2 * ones])
        P2 = np.stack([p1 * (1 - p2) * ones, p1 * p2 * ones, (1 - p1) / 2 * ones])
        return P1, P2, type_probabilities(f_plus, f_minus)

    def analytic_mse_per_coordinate(self, data=None, n: int | None = None) -> dict:
        """Per-coordinate MSEs of the three estimates (from item frequencies and n).

        For group means of per-user scores ``w1 [r=+1] + w2 [r=-1]`` (affine
        estimators: the frequency f_k always, the means/items when
        ``mean_estimator="unbiased"``) this is **exact**:

            MSE = E[1/m; m>=1] * V_noise + E[(n-m)/(m(n-1)); m>=1] * S2_data + P(m=0) theta^2,

        m ~ Binomial(n, 1/d); V_noise = population average of the per-user
        randomisation variance of the score, S2_data = population variance of its
        expectation (a group is a uniformly random subset of size m: sampling without
        replacement), theta = the target.

        For the published ``"privkv"`` mean estimator (a clipped ratio) ``mse_mean`` and
        ``mse_item`` are an **approximation** (no closed form is published): the
        "i.i.d. reporters" model of :meth:`_published_mean_moments`, which keeps the
        bias, the randomness of the group size and of the number of key-bit-1 reports,
        and the clipping of m_k, but treats a group as i.i.d. draws from the population
        (ignoring the finite-population correction).  Against simulation it is within
        a few per cent for n / d from 4 to 600 and eps0 from 0.01 to 4.
        ``mse_item`` combines it with the exact ``mse_nonmissing``:
        MSE(item +-) = (MSE(f) + MSE(g) +- 2 E[(f - F)(g - M)]) / 4.
        """
        f, n = self._resolve(data, n)
        fp, fm = f[1::2], f[0::2]
        F, M = fp + fm, fp - fm
        P1, P2, frac = self._indicator_probs(fp, fm)
        e_inv, e_fpc, p0 = binom_reciprocal_moments(n, 1.0 / self.d)
        c1, c2, q1, p1 = 2 * self.p1 - 1, 2 * self.p2 - 1, 1 - self.p1, self.p1

        def mse(w1, w2, theta, limit):
            noise, data_var, _ = two_indicator_moments(P1, P2, frac, w1, w2)
            bias2 = (limit - theta) ** 2
            return e_inv * noise + e_fpc * data_var + (1 - p0) * bias2 + p0 * theta ** 2

        wf = 1.0 / c1
        out_nonmissing = mse(wf, wf, F, F)
        if self.mean_estimator == "unbiased":
            wm = 1.0 / (p1 * c2)
            out_mean = mse(wm, -wm, M, M)
            item_p = mse((wf + wm) / 2, (wf - wm) / 2, fp, fp)
            item_m = mse((wf - wm) / 2, (wf + wm) / 2, fm, fm)
        else:
            # the approximation depends on (F_k, M_k) only: evaluate once per distinct pair
            FM, inv = np.unique(np.stack([F, M], axis=1), axis=0, return_inverse=True)
            mse_g, cross = self._published_mean_moments(FM[:, 0], FM[:, 1], n)
            mse_g, cross = mse_g[inv.ravel()], cross[inv.ravel()]
            mse_f = out_nonmissing
            out_mean = mse_g
            item_p = np.maximum((mse_f + mse_g + 2 * cross) / 4, 0.0)
            item_m = np.maximum((mse_f + mse_g - 2 * cross) / 4, 0.0)
        item = np.empty(2 * self.d)
        item[1::2] = item_p
        item[0::2] = item_m
        return {"mse_mean": out_mean, "mse_nonmissing": out_nonmissing, "mse_item": item}

    def _published_mean_moments(self, F: np.ndarray, M: np.ndarray, n: int):
        """Approximate E[(g - M)^2] and E[(f - F)(g - M)] for g = f_k * clip(m_k).

        Approximation ("iid reporters"): a group of size m ~ Bin(n, 1/d) is treated as m
        i.i.d. draws from the population, so the number of key-bit-1 reports is
        K | m ~ Bin(m, beta), beta = (1 - p1) + (2 p1 - 1) F, and given K the K reported
        values are i.i.d. +-1 with P(+1) = pi = (1 + (2 p2 - 1) m_inf) / 2,
        m_inf = p1 M / beta.  Then m_k | K = (2 Bin(K, pi) - K) / ((2 p2 - 1) K), whose
        clipped moments are summed exactly for K <= 64 and taken from the clipped normal
        approximation above; the (m, K) mixture is integrated with :func:`binom_nodes`.
        Conventions of ``estimate`` are kept: m = 0 gives f = g = 0, K = 0 gives g = 0.
        """
        p1, q1 = self.p1, 1 - self.p1
        c1, c2 = 2 * p1 - 1, 2 * self.p2 - 1
        beta = q1 + c1 * F                                    # (d,)
        m_inf = p1 * M / beta
        pi = np.clip((1 + c2 * m_inf) / 2, 0.0, 1.0)
        # clipped moments of m_k | K for integer K = 1..KMAX (exact binomial sums)
        KMAX = 64
        Ks = np.arange(1, KMAX + 1)
        B = np.arange(KMAX + 1)
        pmf = stats.binom.pmf(B[None, None, :], Ks[None, :, None], pi[:, None, None])
        val = np.clip((2 * B[None, :] - Ks[:, None]) / (c2 * Ks[:, None]), -1, 1)  # (K, B)
        A1_tab = np.sum(pmf * val[None], axis=2)               # (d, KMAX)
        A2_tab = np.sum(pmf * val[None] ** 2, axis=2)

        def clipped_normal(mu, sig):
            a, b = (-1 - mu) / sig, (1 - mu) / sig
            Pa, Pb = stats.norm.cdf(a), stats.norm.cdf(b)
            pa, pb = stats.norm.pdf(a), stats.norm.pdf(b)
            mid = Pb - Pa
            A1 = -Pa + (1 - Pb) + mu * mid + sig * (pa - pb)
            A2 = Pa + (1 - Pb) + mu ** 2 * mid + 2 * mu * sig * (pa - pb) \
                + sig ** 2 * (mid + a * pa - b * pb)
            return A1, A2

        m_nodes, m_w = binom_nodes(n, 1.0 / self.d)            # (Qm,)
        K_nodes, K_w = binom_nodes(m_nodes[None, :], beta[:, None])  # (d, Qm, QK)
        m3 = m_nodes[None, :, None]
        w3 = m_w[None, :, None] * K_w
        has_m = m3 >= 0.5
        has_K = K_nodes >= 0.5
        f = np.where(has_m, (K_nodes / np.maximum(m3, 1.0) - q1) / c1, 0.0)
        Kint = np.clip(np.rint(K_nodes).astype(np.int64), 1, KMAX) - 1
        rows = np.arange(F.shape[0])[:, None, None]
        A1s, A2s = A1_tab[rows, Kint], A2_tab[rows, Kint]
        sig = np.sqrt(4 * pi[:, None, None] * (1 - pi[:, None, None])
                      / (c2 ** 2 * np.maximum(K_nodes, 1.0)))
        A1n, A2n = clipped_normal(np.broadcast_to(m_inf[:, None, None], K_nodes.shape),
                                  np.maximum(sig, 1e-300))
        big = K_nodes > KMAX
        A1 = np.where(has_K, np.where(big, A1n, A1s), 0.0)
        A2 = np.where(has_K, np.where(big, A2n, A2s), 0.0)
        Mb, Fb = M[:, None, None], F[:, None, None]
        mse_g = np.sum(w3 * (f * f * A2 - 2 * Mb * f * A1), axis=(1, 2)) + M ** 2
        cross = np.sum(w3 * (f - Fb) * (f * A1 - Mb), axis=(1, 2))
        wsum = np.sum(w3, axis=(1, 2))                        # ~1 (quadrature check)
        mse_g = mse_g + (1 - wsum) * M ** 2
        return np.maximum(mse_g, 0.0), cross

    def mean_limit(self, data) -> np.ndarray:
        """Large-n limit of the published mean-among-holders estimate m_k (unclipped).

        p1 M_k / (p1 F_k + (1 - p1)(1 - F_k)); compare with the truth M_k / F_k.
        """
        f, _ = as_item_freq(data, self.d, 1)
        F, M = f[1::2] + f[0::2], f[1::2] - f[0::2]
        return self.p1 * M / (self.p1 * F + (1 - self.p1) * (1 - F))
