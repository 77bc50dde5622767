r"""How close a blanket (decomposition) bound can come to the truth: central-limit estimates.

Part of :mod:`accountant.bounds`.  May import: accountant.core, accountant.engines.

**Estimates, not bounds.**  Nothing here is reported as eps_c or as a lower bound; the numbers
explain the width of the brackets that remain (docs/randomizers.md, "What no blanket bound
can close") and tests/accountant/bounds/test_decomposition_limit.py holds them to the
certified engines.

*The picture.*  A randomizer with a privacy blanket writes every report law as
``R(x) = gamma omega f_x`` with ``f_x >= 1`` (Collision, OLH: omega = (law of H) x Unif[t],
gamma = t/Omega; OUE: omega = Bern(b)^k, gamma = (E + 1)/(2E), f_x = E^(bit x)).  For the
datasets D = (x1, x0, ..., x0), D' = (x1', x0, ..., x0) the shuffled output is the histogram
of n independent reports; to leading order in 1/sqrt(n) (central limit on the histogram:
mean shift P - P' from one user, covariance n (diag q - q q^T)) the pair behaves like
N(0, 1) against N(mu, 1) with

    mu_D^2 = chi2(P - P' || q) / n = gamma E_omega[(f_x1 - f_x1')^2 / f_x0] / n,

and the blanket bound of Balle, Bell, Gascon and Nissim (the divergence of user 1 among a
Bin(n, gamma) number of reports drawn from omega) like

    mu_B^2 = gamma E_omega[(f_x1 - f_x1')^2] / n.

Since ``f_x0 >= 1``, mu_D <= mu_B, with equality only if f_x0 = 1 wherever f_x1 != f_x1'.  The
map q -> (P - P')^2 / q is convex, so mixing the other users' inputs never raises chi2: to
leading order the worst dataset has all others on one input.  Su, Cheng and Wang (S&P 2026)
show the blanket decomposition is the optimal decomposition-based bound, so mu_B / mu_D is,
to leading order, the least factor by which any decomposition-based proof exceeds the
divergence of the datasets (and the truth, where these datasets are the worst ones).

*The three cases* (the ratio ``rho = mu_B^2 / mu_D^2 = 1 / E_omega[1/f_x0]`` holds whenever
f_x0 is independent of (f_x1, f_x1') under omega, which is the case for the datasets used):

* OUE, x0 a third value: 1/f_x0 = E^-bit, E[1/f_x0] = 1 - b + b/E, rho = E (E + 1)/(E^2 + 1)
  (x0 = x1 gives rho = 2E/(E + 1), larger: the third value is the worst single input).  rho peaks at 1.207 (mu ratio 1.099) at E = 1 + sqrt(2); the mu ratio is
  above 1.05 for eps0 in (0.24, 2.14).
* OLH under the random hash, x0 a third value: E[1/f_x0] = 1 - (1 - 1/E)/g.
* Collision under the random hash, the item set of x0 disjoint from those of x1 and x1':
  E[1/f_x0] = sum_m P(m) (m/(t E) + (1 - m/t)/g(m)), m the image size of s uniform items
  (the marginal of :func:`accountant.bounds.laws.random_hash.collision_image_law`).
  Overlapping x0 (sharing items with x1, x1' or both) gave less on the Figure 2 block
  (Monte Carlo, 4e4 hashes a point), so this is the worst single input found.

Under the *any*-hash model the worst family hashes x0 off the images of x1 and x1' with no
collision (f_x0 = 1 there): rho = 1, which is why the bracket over hash families closes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr

__all__ = ["DecompositionLimit", "gaussian_delta", "gaussian_epsilon", "oue_limit", "olh_random_limit",
           "collision_random_limit"]


def gaussian_delta(mu: float, eps: float) -> float:
    """delta(eps) of N(0, 1) against N(mu, 1): Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)."""
    if mu <= 0.0:
        return 0.0
    a = log_ndtr(-eps / mu + mu / 2.0)
    b = eps + log_ndtr(-eps / mu - mu / 2.0)
    return float(math.exp(a) * -math.expm1(b - a)) if b < a else 0.0


def gaussian_epsilon(mu: float, delta: float) -> float:
    """The eps where :func:`gaussian_delta` crosses ``delta`` (0 when it is below at eps = 0)."""
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    if gaussian_delta(mu, 0.0) <= delta:
        return 0.0
    hi = 1.0
    while gaussian_delta(mu, hi) > delta:
        hi *= 2.0
    return float(brentq(lambda e: gaussian_delta(mu, e) - delta, 0.0, hi, xtol=1e-15, rtol=1e-13))


@dataclass(frozen=True)
class DecompositionLimit:
    """Per-user constants gamma E[(f1 - f1')^2] (``blanket``) and gamma E[(f1 - f1')^2 / f0]
    (``dataset``): mu^2 = constant / n (module docstring)."""

    blanket: float
    dataset: float

    @property
    def mu_ratio(self) -> float:
        """mu_B / mu_D: the leading-order factor between the blanket and the datasets."""
        return math.sqrt(self.blanket / self.dataset)

    def epsilons(self, n: int, delta: float) -> tuple[float, float]:
        """(blanket, dataset) central-limit estimates of eps at ``n``, ``delta`` (not bounds)."""
        return (gaussian_epsilon(math.sqrt(self.blanket / n), delta),
                gaussian_epsilon(math.sqrt(self.dataset / n), delta))


def oue_limit(eps0: float) -> DecompositionLimit:
    """OUE, D = (1, 3, ..., 3), D' = (2, 3, ..., 3): omega = Bern(b)^k, gamma = (E + 1)/(2E),
    E[(f1 - f1')^2] = 2 b (1 - b) (E - 1)^2; the datasets' constant is the chi2 of OUE's eight
    patterns (:func:`accountant.bounds.laws.patterns.pattern_chi2`; = blanket (1 - b + b/E))."""
    from accountant.bounds.laws.patterns import oue_patterns, pattern_chi2

    E = math.exp(eps0)
    b = 1.0 / (E + 1.0)
    blanket = (E + 1.0) / (2.0 * E) * 2.0 * b * (1.0 - b) * (E - 1.0) ** 2
    return DecompositionLimit(blanket, pattern_chi2(oue_patterns(eps0)))


def olh_random_limit(eps0: float, g: int) -> DecompositionLimit:
    """OLH with g hash values under the random hash, D = (1, 3, ..., 3), D' = (2, 3, ..., 3):
    f_x = E if H(x) = z else 1, gamma = g/(E + g - 1); (f1 - f1')^2 = (E - 1)^2 w.p.
    2 (1/g)(1 - 1/g), E[1/f0] = 1 - (1 - 1/E)/g (Collision with s = 1)."""
    return collision_random_limit(eps0, 1, g)


def collision_random_limit(eps0: float, s: int, t: int) -> DecompositionLimit:
    """Collision (s items, t values) under the random hash, x0's items disjoint from those of x1
    and x1': the blanket constant of the worst pair type (r shared items, r = 0..s-1; the
    image law of :func:`accountant.bounds.laws.random_hash.collision_image_law`) and the
    dataset constant blanket x E[1/f0] for it (f0 independent of (f1, f1'): disjoint items)."""
    from accountant.bounds.laws.random_hash import collision_image_law

    E = math.exp(eps0)
    Om = s * E + t - s
    gamma = t / Om

    def g(m: int) -> float:
        return 1.0 + (s - m) * (E - 1.0) / (t - m)

    best = 0.0
    for r in range(s):
        P = collision_image_law(s, t, r)
        tot = 0.0
        for m1, k, m2 in zip(*np.nonzero(P)):
            w = float(P[m1, k, m2])
            g1, g2 = g(int(m1)), g(int(m2))
            tot += w * ((m1 - k) * (E - g2) ** 2 + (m2 - k) * (g1 - E) ** 2
                        + (t - m1 - m2 + k) * (g1 - g2) ** 2) / t
        best = max(best, gamma * tot)
    occ = collision_image_law(s, t, 0).sum(axis=(1, 2))  # law of x0's image size m
    inv = sum(float(p) * (m / (t * E) + (1.0 - m / t) / g(m)) for m, p in enumerate(occ) if m)
    return DecompositionLimit(best, best * inv)
