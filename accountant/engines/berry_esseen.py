"""A certified Berry-Esseen bound on E[(Z_1 + ... + Z_n)_+], vectorized over many laws on one support.

A module of its own: it bounds the same quantity as :mod:`accountant.engines.lattice` without a
convolution, for many laws at once (every ordered input pair of a finite randomizer), close to
the exact value from n ~ 1e4 on; the lattice engine is exact-grade at any n but one law at a time.

**Proof.**  Law: ``Z = z_y`` with probability ``w_y``, else 0 (mass ``1 - sum w``).  For any
theta > 0, with ``M = E e^{theta Z}`` and Q the tilted law (``dQ/dP = e^{theta Z} / M``),
``E[S_+] = M^n E_Q[g(S)]``, ``g(s) = s e^{-theta s}`` for s > 0 and 0 otherwise.  g is bounded,
g(0) = g(inf) = 0, so ``E_Q g(S) = int_0^inf g'(s) Q(S > s) ds``.  The Berry-Esseen theorem for
i.i.d. summands (Shevtsova 2011: constant 0.4748) gives ``|Q(S > s) - P(N > s)| <= beta =
0.4748 rho / (sigma^3 sqrt n)`` for every s, N ~ Normal(n mu, n sigma^2) (mu, sigma^2 and
rho = E_Q |Z - mu|^3 of one summand under Q); hence ``E_Q g(S) <= E g(N) + beta int_0^inf |g'|
= E g(N) + 2 beta / (e theta)``.  With ``m = n mu``, ``v = n sigma^2``, ``s = sqrt v``,
``t = (m - theta v) / s`` (Gaussian tilting): ``E g(N) = e^{-theta m + theta^2 v / 2} s
(phi(t) + t Phi(t))``, for t < 0 written ``s phi(0) e^{-m^2 / (2 v)} (1 - |t| R(|t|))`` with R the
Mills ratio (``1 - a R(a)`` by its alternating asymptotic series for a > 20, the first omitted
term added).

**Floats.**  Each exp, product and sum carries a relative error bounded from the atoms' size;
the computed M is raised by its bound; mu, sigma^2 and rho get absolute error bounds from the
sums of |terms|, and rho is bounded as ``E(|Z - mu_hat| + d_mu)^3``; E g(N) moves by at most
``|dm|`` in m (|g'| <= 1) and ``dv (theta + 1 / (2 sqrt(2 pi v)))`` in v (|g''| <= 2 theta off 0,
a kink of height 1 at 0), and its own evaluation error (<= 1e-10 relative, checked against
mpmath in the tests) is added.  theta: one Newton step per law from a common ``theta0``.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import special

_U = 2.0 ** -53
#: Shevtsova (2011), the Berry-Esseen constant for identically distributed summands
BE_CONSTANT = 0.4748
_PHI0 = 1.0 / math.sqrt(2.0 * math.pi)
_EVAL_REL = 1e-10


def _one_minus_aR(a: np.ndarray) -> np.ndarray:
    """An upper bound on 1 - a R(a) (R the Mills ratio), a >= 0."""
    out = np.empty_like(a)
    small = a <= 20.0
    x = a[small]
    out[small] = 1.0 - x * math.sqrt(math.pi / 2.0) * special.erfcx(x / math.sqrt(2.0))
    x = a[~small]
    if x.size:
        inv = 1.0 / (x * x)
        term = inv.copy()
        acc = np.zeros_like(x)
        for k in range(1, 8):   # sum_k (-1)^{k+1} (2k-1)!! / a^{2k}; the 8th term bounds the rest
            acc += term if k % 2 == 1 else -term
            term = term * (2 * k + 1) * inv
        out[~small] = acc + term
    return out


def log_positive_part_bounds(Z: np.ndarray, w: np.ndarray, null: float, n: int,
                             theta0: float) -> tuple:
    """Upper bounds on log E[(Z_1 + ... + Z_n)_+] for each row of ``Z`` (atoms on a common
    support with masses ``w``, plus an atom 0 of mass ``null``); -inf where every atom is <= 0,
    +inf where no bound is available (module docstring); and each bound's slack: the log of
    the bound over its normal term (how much the Berry-Esseen and float terms add)."""
    K, Y = Z.shape
    zabs = np.abs(Z)
    zmax_abs = float(zabs.max()) if Z.size else 0.0
    pos = Z.max(axis=1) > 0.0
    out = np.full(K, np.inf)
    out[~pos] = -np.inf
    slack = np.full(K, np.inf)
    if not pos.any() or not theta0 > 0.0:
        return out, slack
    # one Newton step on M'(theta) = 0 from theta0
    E0 = np.exp(np.minimum(theta0 * Z, 700.0))
    M1 = (E0 * Z) @ w
    M2 = (E0 * Z * Z) @ w
    with np.errstate(divide="ignore", invalid="ignore"):
        th = np.where(M2 > 0, theta0 - M1 / M2, theta0)
    th = np.clip(th, 0.25 * theta0, 4.0 * theta0)
    th = np.minimum(th, 600.0 / max(zmax_abs, 1e-300))
    E = np.exp(np.maximum(th[:, None] * Z, -700.0))   # no underflow: a raised factor is a raised mass
    eta = (2.0 * th * zmax_abs + 2.0) * _U                      # exp's relative error, per row
    epsM = eta + (Y + 4) * _U
    Mh = null + E @ w
    M_up = Mh * (1.0 + epsM + 2.0 * _U) + 1e-290   # + what underflowed products may have dropped
    q = E * w[None, :] / Mh[:, None]
    A1 = (q * zabs).sum(axis=1)
    A2 = (q * Z * Z).sum(axis=1)
    mu = (q * Z).sum(axis=1)
    tiny = 1e-280 * (1.0 + zmax_abs) ** 3   # underflowed products' share of the moments
    dmu = 3.0 * (epsM + 4.0 * _U) * A1 + 4.0 * _U * np.abs(mu) + tiny
    nullq = null / Mh
    var = A2 - mu * mu
    dvar = 3.0 * (epsM + 4.0 * _U) * A2 + 2.0 * np.abs(mu) * dmu + dmu * dmu + 4.0 * _U * (A2 + mu * mu) + tiny
    D = np.abs(Z - mu[:, None])
    c1 = (q * D).sum(axis=1) + nullq * np.abs(mu)
    c2 = (q * D * D).sum(axis=1) + nullq * mu * mu
    c3 = (q * D ** 3).sum(axis=1) + nullq * np.abs(mu) ** 3
    rel = 3.0 * (epsM + 6.0 * _U)
    rho = (c3 + 3.0 * dmu * c2 + 3.0 * dmu ** 2 * c1 + dmu ** 3) * (1.0 + rel) + tiny
    var_lo = var - dvar
    ok = pos & (var_lo > 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        v, m = n * var, n * mu
        s = np.sqrt(v)
        v_lo = n * var_lo
        beta = BE_CONSTANT * rho / (np.sqrt(var_lo) ** 3 * math.sqrt(n)) * (1.0 + 8.0 * _U)
        t = (m - th * v) / s
        neg = t < 0.0
        a = np.abs(t)
        Eg = np.where(neg, s * _PHI0 * np.exp(-m * m / (2.0 * v)) * _one_minus_aR(np.where(neg, a, 0.0)),
                      np.exp(-th * m + th * th * v / 2.0) * s * (np.exp(-t * t / 2.0) * _PHI0
                                                                  + t * special.ndtr(t)))
        Eg0 = Eg
        Eg = Eg * (1.0 + _EVAL_REL) + n * dmu + n * dvar * (th + 1.0 / (2.0 * np.sqrt(2.0 * math.pi * v_lo)))
        val = (Eg + 2.0 * beta / (math.e * th)) * (1.0 + 8.0 * _U)
        logM = np.log(M_up)
        lb = n * logM + np.log(val)
        lb += 4.0 * _U * (np.abs(n * logM) + np.abs(np.log(val)) + 1.0) + 2.0 * n * _U * np.abs(logM)
        sl = np.log(val / Eg0)
    out[ok] = np.where(np.isfinite(lb[ok]), lb[ok], np.inf)
    slack[ok] = sl[ok]
    return out, slack
