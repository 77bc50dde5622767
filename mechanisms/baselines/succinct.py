"""SUCCINCT: Zhou et al., "Locally differentially private sparse vector aggregation"
(Zhou et al., "Locally differentially private sparse vector aggregation"), Algorithm 1 with the user-level parameters of its Table II (with
clipping), the baseline "SUCCINCT" of Wang et al., Sections 3.1 and 8.

Input mapping
-------------
A user's s-sparse ternary vector x in {-1, 0, 1}^d is used directly as Zhou et al.'s
k-sparse vector v_i in [-1, 1]^d with k = s (Sec. III-B).  User-level LDP means
neighbouring inputs may differ in the whole vector (L = 2k neighbouring, Def. 10).

Parameters (Table II, row "User-level LDP (L = 2k)")
----------------------------------------------------
* number of bins b = 1,
* clipping range eta = sqrt(2 k log(4 n / beta)) (Sec. IV-D; beta = utility failure
  probability, default 0.05 -- Zhou et al. do not state the beta of their
  experiments; ``eta`` can also be given directly),
* Laplace noise parameter Delta = 2 eta, noise Lap(Delta / eps0) (scale Delta/eps0,
  variance 2 (Delta/eps0)^2).
Because eta depends on n, the mechanism needs the population size in advance
(``n_users``; if omitted the size of the data passed to ``randomize`` is used and
recorded in the reports), a limitation pointed out by Wang et al., Sec. 3.1.

Algorithm 1 (b = 1)
-------------------
Client i: pick a hash sigma_i : [d] -> {-1, +1} (line 4; h_i is constant for b = 1);
B_i = sum_l sigma_i(l) x_il (line 6); clip B_i to [-eta, eta] (line 7); add
Lap(Delta / eps0) (line 9); send (sigma_i, B^_i) (line 11) -- here (seed_i, B^_i), the
hash being a SplitMix64-based PRF of the seed (:func:`._common.hash_signs`), as Zhou
et al. instantiate the random oracle with a PRF seed.  Note that Algorithm 1 line 11
prints the un-noised B~ in the tuple; the noised value B^ is what the server uses
(line 13) and what privacy requires, so that is what is sent.

Privacy: for every fixed sigma, |clip(B) - clip(B')| <= 2 eta = Delta, so the Laplace
density ratio is <= e^{eps0} (pure eps0-LDP, user level), independently of the hash.
Note B_i is a sum of s signs so |B_i| <= s: clipping is only active when eta < s, yet
Delta = 2 eta is used as in Table II even when eta > s.  So the randomizer's exact pure-LDP
parameter is smaller (``ldp_epsilon``): given sigma the centre clip(<sigma, x>) lies in
[-m, m], m = min(s, eta), and both ends are reached (x's signs equal to sigma's on its keys,
or opposite), the hash is independent of x, so the worst density ratio is e^{2 m / scale} =
e^{eps0 min(s, eta) / eta}, attained for every sigma (docs/proved.md, "SUCCINCT").

Server (line 13): xhat_x = (1/n) sum_i sigma_i(x) B^_i for every x (O(n d) work, done
in row blocks).

Estimates and error (exact, ``analytic_mse_per_coordinate``)
-------------------------------------------------------------
SUCCINCT estimates coordinate means only ("designed only for mean estimation", Wang et
al. Sec. 8.4): ``Estimates.item_freq`` and ``Estimates.nonmissing`` are NaN, as are
``mse_item`` / ``mse_nonmissing``.  With R a sum of s-1 independent uniform signs,
c = E[clip(1 + R)] (= 1 when eta >= s) and Q = E[clip(B)^2] for B a sum of s
uniform signs (= s when eta >= s):

    E[xhat_x] = c M_x                       (unbiased iff eta >= s; otherwise shrunk),
    MSE_x = (1 - c)^2 M_x^2 + (Q + 2 (Delta/eps0)^2 - c^2 F_x) / n,

M_x = coordinate mean, F_x = non-missing frequency (exact, for random-oracle signs).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from mechanisms.core.data import Estimates, SparseVectors
from mechanisms.baselines._common import (
    BaselineMechanism,
    check_data,
    check_input,
    check_int,
    check_real,
    report_columns,
    hash_signs,
)

_BLOCK_CELLS = 1 << 22


@dataclass(frozen=True)
class SuccinctReports:
    """``seed`` (n,) uint64 hash seeds, ``value`` (n,) float64 noisy clipped bucket,
    ``eta`` clipping range and ``scale`` = Delta / eps0 used by the clients."""

    seed: np.ndarray
    value: np.ndarray
    eta: float
    scale: float


class Succinct(BaselineMechanism):
    """Zhou et al. Algorithm 1, user-level (Table II: b = 1, eta, Delta = 2 eta), eps0-LDP.

    Parameters
    ----------
    d : dimension, >= 1.
    s : sparsity (Zhou et al.'s k), in [1, d].
    eps0 : local budget, > 0.
    n_users : population size used for eta (integer >= 1); default: ``data.n`` at
        ``randomize`` time / the ``n`` passed to ``analytic_mse``.
    beta : utility failure probability in (0, 1) for eta (default 0.05).
    eta : clipping range > 0, overrides (n_users, beta) if given.

    Examples
    --------
    >>> from mechanisms import Succinct
    >>> mse = Succinct(d=8, s=2, eps0=2.0).analytic_mse_default(2000)  # n = 2000 users
    >>> print(f"{mse['mse_mean']:.4f} {mse['mse_nonmissing']:.4f}")
    0.3905 nan
    """

    name = "succinct"

    def __init__(self, d: int, s: int, eps0: float, n_users: int | None = None,
                 beta: float = 0.05, eta: float | None = None) -> None:
        super().__init__(d, s, eps0)
        self.n_users = None if n_users is None else check_int("n_users", n_users, 1)
        self.beta = check_real("beta", beta, 0.0, 1.0, hi_open=True)
        self.eta_fixed = None if eta is None else check_real("eta", eta, 0.0, math.inf,
                                                             hi_open=True)

    # ------------------------------------------------------------------ parameters
    def eta_for(self, n: int | None = None) -> float:
        """Clipping range eta = sqrt(2 s log(4 n / beta)) (Table II / Sec. IV-D)."""
        if self.eta_fixed is not None:
            return self.eta_fixed
        nn = self.n_users if self.n_users is not None else n
        if nn is None:
            raise ValueError("n (population size) is needed for eta: pass n_users or n")
        return math.sqrt(2.0 * self.s * math.log(4.0 * nn / self.beta))

    def scale_for(self, n: int | None = None) -> float:
        """Laplace scale Delta / eps0 with Delta = 2 eta."""
        return 2.0 * self.eta_for(n) / self.eps0

    def ldp_epsilon(self, n: int | None = None) -> float:
        """The randomizer's exact pure-LDP parameter eps0 min(s, eta) / eta (<= eps0; module
        docstring): the worst log density ratio of (sigma, y) between two inputs, for every hash."""
        eta = self.eta_for(n)
        return self.eps0 * min(float(self.s), eta) / eta

    # ------------------------------------------------------------------ client
    def randomize(self, data: SparseVectors, rng: np.random.Generator) -> SuccinctReports:
        """Algorithm 1 lines 3-11 for every user (vectorised)."""
        check_data(data, self.d, self.s)
        n = data.n
        eta = self.eta_for(n)
        scale = 2.0 * eta / self.eps0
        seed = rng.integers(0, np.iinfo(np.uint64).max, size=n, dtype=np.uint64,
                            endpoint=True)
        sig = hash_signs(seed[:, None], data.indices)
        B = np.sum(sig.astype(np.int64) * data.signs, axis=1).astype(np.float64)
        value = np.clip(B, -eta, eta) + rng.laplace(0.0, scale, size=n)
        return SuccinctReports(seed=seed, value=value, eta=eta, scale=scale)

    # ------------------------------------------------------------------ server
    def estimate(self, reports: SuccinctReports, n: int) -> Estimates:
        """Line 13: xhat_x = (1/n) sum_i sigma_i(x) B^_i; frequencies are NaN."""
        n, (seed, value) = report_columns(n, reports.seed, reports.value)
        d = self.d
        keys = np.arange(d, dtype=np.uint64)
        total = np.zeros(d)
        rows_per = max(1, _BLOCK_CELLS // d)
        for start in range(0, n, rows_per):  # blocks of users, bounded memory
            stop = min(n, start + rows_per)
            sig = hash_signs(seed[start:stop, None], keys[None, :])
            total += value[start:stop] @ sig.astype(np.float64)
        nan = np.full(d, np.nan)
        return Estimates(item_freq=np.full(2 * d, np.nan), mean=total / n, nonmissing=nan)

    # ------------------------------------------------------------------ exact distribution
    def output_distribution(self, x_indices, x_signs, n: int | None = None):
        """Exact output law for one input, idealising the hash as a uniform sign vector.

        The output (sigma, y) has density ``probs[t] * Lap(y; centers[t], scale)`` where
        sigma ranges over ``signs`` (all 2^d sign vectors, rows of ``signs``).

        Returns
        -------
        dict with ``signs`` (2^d, d) int8, ``probs`` (2^d,) (= 2^-d), ``centers``
        (2^d,) = clip(<sigma, x>, -eta, eta) and ``scale`` = Delta / eps0.
        """
        idx, sg = check_input(x_indices, x_signs, self.d, self.s)
        if self.d > 16:
            raise ValueError("output_distribution enumerates 2^d sign vectors: d must be <= 16")
        eta = self.eta_for(n)
        bits = (np.arange(2 ** self.d)[:, None] >> np.arange(self.d)[None, :]) & 1
        signs = (2 * bits - 1).astype(np.int8)
        centers = np.clip(signs[:, idx].astype(np.float64) @ sg, -eta, eta)
        return {"signs": signs, "probs": np.full(2 ** self.d, 2.0 ** -self.d),
                "centers": centers, "scale": 2.0 * eta / self.eps0}

    def output_density(self, x_indices, x_signs, y, n: int | None = None) -> np.ndarray:
        """Density of outputs (sigma_t, y_u) for one input: array (2^d, len(y))."""
        od = self.output_distribution(x_indices, x_signs, n)
        y = np.asarray(y, dtype=np.float64).ravel()
        lap = stats.laplace.pdf(y[None, :], loc=od["centers"][:, None], scale=od["scale"])
        return od["probs"][:, None] * lap

    # ------------------------------------------------------------------ analytics
    def clip_moments(self, n: int | None = None) -> tuple[float, float]:
        """(c, Q) = (E[clip(1 + R)], E[clip(B)^2]), R ~ sum of s-1 signs, B ~ sum of s signs."""
        eta = self.eta_for(n)
        s = self.s
        k = np.arange(s)
        R = 2 * k - (s - 1)
        c = float(np.sum(stats.binom.pmf(k, s - 1, 0.5) * np.clip(1 + R, -eta, eta)))
        k = np.arange(s + 1)
        B = 2 * k - s
        Q = float(np.sum(stats.binom.pmf(k, s, 0.5) * np.clip(B, -eta, eta) ** 2))
        return c, Q

    def analytic_mse_per_coordinate(self, data=None, n: int | None = None) -> dict:
        """Exact MSE_x = (1 - c)^2 M_x^2 + (Q + 2 scale^2 - c^2 F_x) / n (module docstring).

        eta uses ``n_users`` if set, else ``n``.  ``mse_nonmissing`` and ``mse_item``
        are NaN (SUCCINCT does not estimate frequencies).
        """
        f, n = self._resolve(data, n)
        F, M = f[1::2] + f[0::2], f[1::2] - f[0::2]
        c, Q = self.clip_moments(n)
        scale = self.scale_for(n)
        mse = (1 - c) ** 2 * M ** 2 + (Q + 2 * scale ** 2 - c ** 2 * F) / n
        return {"mse_mean": mse, "mse_nonmissing": np.full(self.d, np.nan),
                "mse_item": np.full(2 * self.d, np.nan)}
