r"""Count laws of the Collision / CoCo / k-RR mechanisms under random hashing.

Everything here is about the shuffled hockey-stick divergence written as a *count law*:
for categories ``c = 1..K`` (plus, for blanket laws, a null category ``0`` of value 0),
probabilities ``p_c`` and values ``v_c = a_c - u b_c`` (``u = e^eps``),

.. math:: \delta(\varepsilon) = \frac1n\,\mathbb E\Bigl[\Bigl(\sum_c v_c N_c\Bigr)_+\Bigr],
          \qquad (N_0, N_1, \dots, N_K)\sim\mathrm{Mult}(n; p_0, p_1, \dots, p_K).

Upper law (blanket, proved for every hash family)
-------------------------------------------------
Collision (main paper, Definition 5): given the hash ``H`` and input ``x`` with
``A = H(Y_x)``, ``k = |A| <= s``, ``E = e^{eps0}``, ``Omega = s E + t - s``:
``P[z|x,H] = E/Omega`` on ``A`` and ``g_k/Omega`` off ``A`` with
``g_k = 1 + (s-k)(E-1)/(t-k)``.  Take the blanket ``omega(H, z) = P_H(H)/t`` and
``gamma = t/Omega`` (:func:`accountant.blanket.collision_rv`), so that
``mu_x/omega = gamma f_x(z)`` with ``f_x = E`` on ``A`` and ``g_k`` off ``A``.

*Claim.*  For every ``H`` and every pair ``(x, x')``, the law of
``L = (mu_x - u mu_{x'})/omega`` given ``H`` (``z ~ Unif[t]``) is dominated in the convex
order by the *clean* law ``gamma * {E-u w.p. s/t, 1-uE w.p. s/t, 1-u w.p. (t-2s)/t}``
(``t >= 2s``), resp. ``gamma * {E(1-u) w.p. j0/t, E-u and 1-uE w.p. (s-j0)/t each}``
with ``j0 = 2s - t`` (``t < 2s``).

*Proof.*  (1) ``f_x`` has sum ``Omega`` and takes the value ``E >= g_k`` on ``k`` points;
its decreasing rearrangement has partial sums ``<=`` those of
``f* = (E x s, 1 x (t-s))`` (the first ``k`` agree; after that ``f_x`` adds
``g_k <= E`` while ``f*`` adds ``E`` until ``s`` terms, and the totals agree; the
partial sums of ``f_x`` after position ``s`` are ``kE + (m-k) g_k``, a linear function
of ``m`` ending at ``Omega``, which stays below the piecewise-linear concave partial-sum
curve of ``f*`` through the same end point).  So ``f_x`` is majorized by ``f*`` and by
Birkhoff's theorem ``f_x = sum_i lambda_i P_i f*`` with permutation matrices ``P_i``;
likewise ``f_{x'} = sum_j lambda'_j P'_j f*``.  (2) Hence
``f_x - u f_{x'} = sum_{i,j} lambda_i lambda'_j (P_i f* - u P'_j f*)``: the vector of
values of ``L/gamma`` over ``z in [t]`` is a convex combination of *clean* vectors
``P f* - u P' f*``, each the value vector of two s-subsets of ``[t]`` with some overlap
``j``.  For a convex ``phi``, ``(1/t) sum_z phi(sum_m lambda_m w_m(z)) <=
sum_m lambda_m (1/t) sum_z phi(w_m(z))`` (Jensen pointwise), so ``L`` is dominated in
convex order by the mixture of the clean laws; all of them have mean ``1 - u``.
(3) A clean law with overlap ``j`` has atoms ``E(1-u)`` (``j`` points), ``E-u`` and
``1-uE`` (``s-j`` points each), ``1-u`` (``t-2s+j`` points).  Raising ``j`` by one
replaces one ``E-u`` and one ``1-uE`` atom by ``E(1-u)`` and ``1-u``: the same sum, both
new values lie between the old two, which is a mean-preserving contraction (a
T-transform).  So the smallest feasible overlap ``j0 = max(0, 2s-t)`` dominates all
others, and a mixture of laws each dominated by the same law is dominated by it.
(4) Convex order is preserved by sums of independent copies and by mixtures over
``H`` and over the number of blanket users, and ``(.)_+`` is convex, so the blanket
bound of [BBGN19] (see :mod:`accountant.blanket`) evaluated with the clean law bounds
the divergence for every hash family.  Writing the binomial number of blanket users
and the categorical clean law as one multinomial gives the count law with
``p = (s/Omega, s/Omega, (t-2s)/Omega)``, ``p_0 = 1 - t/Omega`` and
``v = (E-u, 1-uE, 1-u)`` (:func:`blanket_count_law`).  CoCo (Algorithm 1): given
``(H1, H2)`` its relative weights (:func:`mechanisms.coco.coco_output_distribution`
times ``Omega``) are ``E`` and ``1`` on occupied pairs and ``w_m >= 1`` elsewhere with
the same ``Omega``; that vector is again majorized by ``f*`` (same argument), so the
same law applies.  k-RR with ``k`` values is Collision with ``s = 1``, ``t = k`` and the
identity hash.

Lower laws (the real mechanism, uniformly random hash)
------------------------------------------------------
For ``D = (x1, x0, ..., x0)``, ``D' = (x1', x0, ..., x0)`` the shuffled divergence is
``(1/n) E_{W_i ~ mu_x0 iid}[(sum_i (mu_x1 - u mu_x1')(W_i)/mu_x0(W_i))_+]``.  Any
deterministic map of each report to a category can only lower it (data processing), and
the post-processed divergence is the count law above with ``p_c = P_x0(c)``,
``v_c = (P_x1(c) - u P_x1'(c))/P_x0(c)`` and no null category: the histogram ``N`` of
categories has ``P_D(N)/P_{x0}^{\otimes n}(N) = sum_c P_x1(c) N_c/(n P_x0(c))``.
:func:`collision_category_law` computes ``P_x(c)`` exactly for the hash drawn uniformly
from all functions ``Y -> [t]`` by a dynamic programme over the items hashed one at a
time (the state is the number of hash values in each region of the Venn diagram of
``H(Y_x1), H(Y_x1'), H(Y_x0)``; transition probabilities are exact rationals).  With
``categories="full"`` the category is ``(z's Venn region, |H(Y_x1)|, |H(Y_x1')|,
|H(Y_x0)|)``, which determines ``P[z | x, H]`` for the three inputs, so it is a
sufficient statistic and the count law is *equal* to the exact shuffled divergence of
the pair of datasets (checked against :mod:`accountant.enumeration`).

References
----------
Wang et al., "Differentially Private Numerical Vector Analyses in the Local and Shuffle
Model": Definition 5, Algorithm 1.  [BBGN19] Balle, Bell, Gascon, Nissim, "The privacy
blanket of the shuffle model", CRYPTO 2019.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Optional

import mpmath
import numpy as np

__all__ = [
    "CountLaw",
    "blanket_count_law",
    "krr_count_law",
    "count_law_delta_exact",
    "count_law_delta_float",
    "CollisionDatasets",
    "venn_count_law",
    "collision_category_law",
    "collision_lower_count_law",
    "krr_lower_count_law",
    "collision_dataset_candidates",
    "best_collision_lower_bound",
    "collision_disjoint_lower_law",
    "coco_disjoint_lower_law",
    "mechanism_lower_law",
    "needs_d_reason",
    "lower_bound_epsilon",
    "lower_bound_delta",
    "worst_hash_lower_law",
    "worst_hash_lower_epsilon",
    "worst_hash_lower_delta",
]

_MP_DPS = 50


# --------------------------------------------------------------------------- validation
def _check_eps0(eps0) -> float:
    if isinstance(eps0, bool) or not isinstance(eps0, (int, float, np.integer, np.floating)):
        raise ValueError(f"eps0 must be a finite number in (0, 50], got {eps0!r}")
    e = float(eps0)
    if not (math.isfinite(e) and 0.0 < e <= 50.0):
        raise ValueError(f"eps0 must be a finite number in (0, 50], got {eps0!r}")
    return e


def _check_int(name: str, value, lo: int, hi: Optional[int] = None) -> int:
    rng = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer {rng}, got {value!r}")
    v = int(value)
    if v < lo or (hi is not None and v > hi):
        raise ValueError(f"{name} must be an integer {rng}, got {v}")
    return v


def _check_eps_list(eps) -> np.ndarray:
    e = np.atleast_1d(np.asarray(eps, dtype=np.float64))
    if e.ndim != 1 or not np.all(np.isfinite(e)) or np.any(e < 0):
        raise ValueError(f"eps must be finite numbers >= 0, got {eps!r}")
    return e


# --------------------------------------------------------------------------- count laws
@dataclass(frozen=True)
class CountLaw:
    """Categorical count law: ``v_c = a_c - u b_c`` with probability ``p_c``.

    ``p`` covers the non-null categories; the remaining mass ``1 - sum(p)`` is a null
    category of value 0.  Values are stored as mpmath numbers (50 digits).
    """

    p: tuple
    a: tuple
    b: tuple
    name: str = ""

    def __post_init__(self) -> None:
        if not (len(self.p) == len(self.a) == len(self.b)) or len(self.p) == 0:
            raise ValueError("p, a, b must be non-empty and of equal length")
        if any(pc < 0 for pc in self.p) or sum(self.p) > 1 + mpmath.mpf(10) ** (-40):
            raise ValueError("p must be non-negative with sum(p) <= 1")

    @property
    def p0(self):
        return max(mpmath.mpf(0), 1 - sum(self.p))

    def values(self, eps: float) -> list:
        u = mpmath.exp(mpmath.mpf(eps))
        return [ac - u * bc for ac, bc in zip(self.a, self.b)]


def _mp(x):
    return x if isinstance(x, mpmath.mpf) else mpmath.mpf(x.numerator) / x.denominator \
        if isinstance(x, Fraction) else mpmath.mpf(x)


def blanket_count_law(mechanism: str, eps0: float, s: int, t: int) -> CountLaw:
    """Blanket upper law of Collision / CoCo (proof in the module docstring).

    Parameters
    ----------
    mechanism : ``"collision"`` (``t > s``) or ``"coco"`` (even ``t >= 2s + 2``).
    eps0, s, t : mechanism parameters (Definition 5 / Algorithm 1).

    Returns
    -------
    CountLaw with (``t >= 2s``) ``p = (s, s, t - 2s)/Omega``, ``a = (E, 1, 1)``,
    ``b = (1, E, 1)``; (``t < 2s``, ``j0 = 2s - t``) ``p = (s-j0, s-j0, j0)/Omega``,
    ``a = (E, 1, E)``, ``b = (1, E, E)``.  The null category has ``1 - t/Omega``.
    """
    if mechanism not in ("collision", "coco"):
        raise ValueError(f"mechanism must be 'collision' or 'coco', got {mechanism!r}")
    e = _check_eps0(eps0)
    s = _check_int("s", s, 1)
    if mechanism == "collision":
        t = _check_int("t", t, s + 1)
    else:
        t = _check_int("t", t, 2 * s + 2)
        if t % 2:
            raise ValueError(f"t must be an even integer >= 2s + 2 = {2 * s + 2}, got {t}")
    with mpmath.workdps(_MP_DPS):
        E = mpmath.exp(mpmath.mpf(e))
        om = s * E + t - s
        one = mpmath.mpf(1)
        if t >= 2 * s:
            return CountLaw((s / om, s / om, (t - 2 * s) / om), (E, one, one), (one, E, one),
                            f"blanket {mechanism} s={s} t={t}")
        j0 = 2 * s - t
        return CountLaw(((s - j0) / om, (s - j0) / om, j0 / om), (E, one, E), (one, E, E),
                        f"blanket {mechanism} s={s} t={t}")


def krr_count_law(eps0: float, k: int) -> CountLaw:
    """Blanket upper law of k-ary randomized response (Collision with ``s=1, t=k``).

    ``p = (1, 1, k-2)/(E + k - 1)``, ``v = (E-u, 1-uE, 1-u)``; ``k = 2`` is binary RR.
    """
    k = _check_int("k", k, 2)
    return blanket_count_law("collision", eps0, 1, k)


# --------------------------------------------------------------------------- evaluators
def count_law_delta_exact(n: int, law: CountLaw, eps, dps: int = _MP_DPS,
                          side: str = "nearest") -> np.ndarray:
    r"""``E[(sum_c v_c N_c)_+]/n`` by direct summation over the multinomial (reference).

    Every composition of ``n`` into the null category and the ``K`` categories is
    visited (``C(n+K, K)`` terms), in mpmath with ``dps`` digits; intended for
    ``n <= ~60`` and ``K <= 8``.

    side : ``"nearest"`` (float nearest to the mpmath value), ``"lower"`` or ``"upper"``:
        the mpmath value minus (plus) ``n max|v| 10^(10-dps)``, an allowance that exceeds
        the error of the ``dps``-digit arithmetic and of the ``dps``-digit law
        parameters (relative ``~10^-dps`` each, summed over at most ``n max|v|`` of
        absolute mass), then rounded to float downwards (upwards).  Use ``"lower"``
        for a reported lower bound, ``"upper"`` for an upper bound.
    """
    n = _check_int("n", n, 1, 400)
    eps = _check_eps_list(eps)
    if side not in ("nearest", "lower", "upper"):
        raise ValueError(f"side must be 'nearest', 'lower' or 'upper', got {side!r}")
    K = len(law.p)
    if math.comb(n + K, K) > 3_000_000:
        raise ValueError(f"n = {n} with {K} categories has too many compositions")
    out = []
    with mpmath.workdps(dps):
        p = [_mp(x) for x in law.p]
        p0 = max(mpmath.mpf(0), 1 - mpmath.fsum(p))
        logp = [mpmath.log(x) if x > 0 else None for x in [p0] + p]
        lf = [mpmath.loggamma(m + 1) for m in range(n + 1)]
        terms = []  # (pmf, counts)
        for comp in _compositions(n, K + 1):
            lw = lf[n]
            ok = True
            for m, lp in zip(comp, logp):
                if m:
                    if lp is None:
                        ok = False
                        break
                    lw += m * lp - lf[m]
            if ok:
                terms.append((mpmath.exp(lw), comp[1:]))
        for e in eps:
            v = law.values(float(e))
            acc = mpmath.mpf(0)
            for w, c in terms:
                x = mpmath.fsum(vc * m for vc, m in zip(v, c))
                if x > 0:
                    acc += w * x
            val = acc / n
            if side == "nearest":
                out.append(float(val))
                continue
            margin = n * max(abs(x) for x in v) * mpmath.mpf(10) ** (10 - dps)
            if side == "lower":
                out.append(max(0.0, math.nextafter(float(val - margin), -math.inf)))
            else:
                out.append(math.nextafter(float(val + margin), math.inf))
    return np.array(out)


def _compositions(n: int, K: int):
    """Vectors of K non-negative integers summing to n, as tuples of Python ints
    (:func:`accountant.enumeration._compositions`)."""
    from .enumeration import _compositions as rows

    return (tuple(int(x) for x in r) for r in rows(n, K))


def count_law_delta_float(n: int, law: CountLaw, eps) -> np.ndarray:
    r"""Float64 evaluation of ``E[(sum_c v_c N_c)_+]/n`` for large ``n``.

    ``K <= 3`` categories plus the null one, or ``K = 4`` without a null one.  Sums over
    ``(N_1, N_2)`` on a grid; the remaining ``m = n - N_1 - N_2`` reports split
    binomially between category 3 and the last one (null or 4, value ``v_4``), and the
    inner expectation ``E[(c + v_4 m + (v_3 - v_4) N_3)_+]`` is evaluated in closed form
    from binomial CDFs (either sign of ``v_3 - v_4``) or as ``c + v_3 E N_3`` when ``c + v_3 m >= 0``.  Not directed-rounded:
    a numerical estimate (relative error ~1e-10), used for tables only.
    """
    from scipy.special import gammaln
    from scipy.stats import binom

    n = _check_int("n", n, 1)
    eps = _check_eps_list(eps)
    K = len(law.p)
    if K > 4 or (K == 4 and abs(float(1 - mpmath.fsum(law.p))) > 1e-12):
        raise ValueError("count_law_delta_float supports at most 3 categories plus the null "
                         "one, or 4 categories without a null one")
    p = [float(x) for x in law.p] + [0.0] * (3 - K)
    a = [float(x) for x in law.a] + [0.0] * (3 - K)
    b = [float(x) for x in law.b] + [0.0] * (3 - K)
    if K == 4:  # category 4 takes the place of the null category
        p0, a4, b4 = p.pop(), a.pop(), b.pop()
    else:
        p0, a4, b4 = max(0.0, 1.0 - sum(p)), 0.0, 0.0
    N1, N2 = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    ok = N1 + N2 <= n
    N1, N2 = N1[ok].astype(float), N2[ok].astype(float)
    m = n - N1 - N2
    rest = p[2] + p0
    with np.errstate(divide="ignore", invalid="ignore"):
        lw = (gammaln(n + 1) - gammaln(N1 + 1) - gammaln(N2 + 1) - gammaln(m + 1)
              + np.where(N1 > 0, N1 * np.log(p[0]) if p[0] > 0 else -np.inf, 0.0)
              + np.where(N2 > 0, N2 * np.log(p[1]) if p[1] > 0 else -np.inf, 0.0)
              + np.where(m > 0, m * np.log(rest) if rest > 0 else -np.inf, 0.0))
    w = np.exp(lw)
    q = p[2] / rest if rest > 0 else 0.0
    out = []
    for e in eps:
        u = math.exp(e)
        v = [ai - u * bi for ai, bi in zip(a, b)]
        v4 = a4 - u * b4
        c = v[0] * N1 + v[1] * N2 + v4 * m  # then add (v3 - v4) N3
        v3 = v[2] - v4
        if q == 0.0 or v3 == 0.0:
            inner = np.maximum(c, 0.0)
        elif v3 >= 0:
            inner = np.where(c >= 0, c + v3 * q * m, _pos_part_upper(c, v3, m, q))
        else:
            wv = -v3
            kmax = np.floor(c / wv + 1e-12)  # N3 <= kmax keeps c - wv N3 >= 0
            F = np.where(kmax >= 0, binom.cdf(kmax, m, q), 0.0)
            F1 = np.where(kmax >= 1, binom.cdf(kmax - 1, np.maximum(m - 1, 0), q), 0.0)
            inner = np.where(c > 0, c * F - wv * m * q * F1, 0.0)
        out.append(float(np.sum(w * inner)) / n)
    return np.array(out)


def _pos_part_upper(c, v3, m, q):
    """``E[(c + v3 N3)_+]`` for ``v3 > 0``, ``c < 0``, ``N3 ~ Bin(m, q)``."""
    from scipy.stats import binom

    kmin = np.floor(-c / v3 + 1e-12)  # N3 >= kmin + 1 makes it positive
    S = binom.sf(kmin, m, q)
    S1 = binom.sf(kmin - 1, np.maximum(m - 1, 0), q)
    return c * S + v3 * m * q * S1


# --------------------------------------------------------------------------- Venn DP
@dataclass(frozen=True)
class CollisionDatasets:
    """Relative position of the inputs ``x1, x1', x0`` (each an s-subset of Y).

    r : ``|Y_x1 cap Y_x1'|`` (``< s``: the inputs differ).
    o1, o2, o12 : items of ``x0`` in ``x1`` only, in ``x1'`` only, in both.  The other
        ``s - o1 - o2 - o12`` items of ``x0`` are outside ``x1`` and ``x1'``.
    Under a hash drawn uniformly from all functions only these counts matter.
    """

    s: int
    r: int = 0
    o1: int = 0
    o2: int = 0
    o12: int = 0

    def __post_init__(self) -> None:
        _check_int("s", self.s, 1)
        _check_int("r", self.r, 0, self.s - 1)
        _check_int("o1", self.o1, 0, self.s - self.r)
        _check_int("o2", self.o2, 0, self.s - self.r)
        _check_int("o12", self.o12, 0, self.r)
        if self.o1 + self.o2 + self.o12 > self.s:
            raise ValueError(f"o1 + o2 + o12 must be <= s = {self.s}")

    def item_types(self) -> dict:
        """Number of items by membership mask (bit 1: x1, bit 2: x1', bit 4: x0)."""
        s, r = self.s, self.r
        return {1: s - r - self.o1, 2: s - r - self.o2, 3: r - self.o12, 5: self.o1,
                6: self.o2, 7: self.o12, 4: s - self.o1 - self.o2 - self.o12}


@lru_cache(maxsize=256)
def _venn_dp(types: tuple, t: int) -> dict:
    state = {(0,) * 8: Fraction(1)}
    for T in types:
        new: dict = {}
        for st, w in state.items():
            occ = sum(st[1:])
            if t - occ > 0:
                ns = list(st)
                ns[T] += 1
                key = tuple(ns)
                new[key] = new.get(key, 0) + w * Fraction(t - occ, t)
            for R in range(1, 8):
                if st[R]:
                    ns = list(st)
                    ns[R] -= 1
                    ns[R | T] += 1
                    key = tuple(ns)
                    new[key] = new.get(key, 0) + w * Fraction(st[R], t)
        state = new
    return state


def venn_count_law(ds: CollisionDatasets, t: int) -> dict:
    """Exact law of the Venn counts of ``H(Y_x1), H(Y_x1'), H(Y_x0)`` in ``[t]``.

    Returns ``{(n_0, n_1, ..., n_7): probability}`` (Fractions) where ``n_R`` is the number
    of hash values whose set of images is the mask ``R`` (``n_0 = 0`` placeholder), for
    ``H`` uniform over all functions ``Y -> [t]``: items are hashed one at a time, each to
    a uniform value, occupied (moving that value from region ``R`` to ``R | T``) or fresh.
    """
    t = _check_int("t", t, ds.s + 1)
    types = []
    for T, cnt in sorted(ds.item_types().items()):
        types += [T] * cnt
    return _venn_dp(tuple(types), t)


_BITS = {"x1": 1, "x1p": 2, "x0": 4}


def _category(R: int, st: tuple, t: int, categories: str):
    if categories == "three":
        if R & 1 and not R & 2:
            return 1
        if R & 2 and not R & 1:
            return 2
        return 3
    if categories == "isolated":
        if R == 1:
            return 1
        if R == 2:
            return 2
        return 3
    if categories == "four":
        if R & 1 and not R & 2:
            return 1
        if R & 2 and not R & 1:
            return 2
        return 3 if R == 4 else 4
    if categories == "venn":
        return R
    if categories == "full":
        ks = tuple(sum(st[Q] for Q in range(1, 8) if Q & bit) for bit in (1, 2, 4))
        return (R,) + ks
    raise ValueError("categories must be 'three', 'isolated', 'four', 'venn' or 'full', "
                     f"got {categories!r}")


def collision_category_law(eps0: float, t: int, ds: CollisionDatasets,
                           categories: str = "three") -> tuple[list, dict]:
    """Exact ``P_x(c)`` for ``x in {x1, x1', x0}`` under uniformly random hashing.

    Parameters
    ----------
    eps0, t : Collision parameters (Definition 5), ``t > s``.
    ds : relative position of the three inputs.
    categories : ``"three"`` (1: ``z in H(Y_x1) minus H(Y_x1')``, 2: the reverse,
        3: the rest), ``"isolated"`` (1: ``z`` in ``H(Y_x1)`` only, outside ``H(Y_x1')`` and
        ``H(Y_x0)``, 2: the same for ``x1'``, 3: the rest), ``"four"`` (as ``"three"`` with
        ``z in H(Y_x0)`` only split off the rest as category 3), ``"venn"`` (z's Venn region,
        8 classes) or ``"full"`` (Venn region and the three image sizes: a sufficient
        statistic).

    Returns
    -------
    (keys, probs) with ``probs[x]`` a list of mpmath numbers aligned with ``keys``,
    ``x in ("x1", "x1p", "x0")``.
    """
    e = _check_eps0(eps0)
    s = ds.s
    t = _check_int("t", t, s + 1)
    law = venn_count_law(ds, t)
    acc: dict = {}
    with mpmath.workdps(_MP_DPS):
        E = mpmath.exp(mpmath.mpf(e))
        om = s * E + t - s
        for st, w in law.items():
            wm = _mp(w)
            sizes = {R: st[R] for R in range(1, 8)}
            sizes[0] = t - sum(st[1:])
            ks = {x: sum(st[Q] for Q in range(1, 8) if Q & bit) for x, bit in _BITS.items()}
            for R, cnt in sizes.items():
                if cnt == 0:
                    continue
                c = _category(R, st, t, categories)
                row = acc.setdefault(c, {x: mpmath.mpf(0) for x in _BITS})
                for x, bit in _BITS.items():
                    k = ks[x]
                    pz = E / om if R & bit else (om - E * k) / ((t - k) * om)
                    row[x] += wm * cnt * pz
    keys = sorted(acc, key=lambda c: (c if isinstance(c, tuple) else (c,)))
    return keys, {x: [acc[c][x] for c in keys] for x in _BITS}


def _lower_law(P1, P1p, P0, name) -> CountLaw:
    keep = [i for i in range(len(P0)) if P0[i] > 0 or P1[i] > 0 or P1p[i] > 0]
    P1, P1p, P0 = ([v[i] for i in keep] for v in (P1, P1p, P0))
    if any(p <= 0 for p in P0):
        raise ValueError("every category needs P_x0(c) > 0")
    return CountLaw(tuple(P0), tuple(a / q for a, q in zip(P1, P0)),
                    tuple(b / q for b, q in zip(P1p, P0)), name)


def collision_lower_count_law(eps0: float, t: int, ds: CollisionDatasets,
                              categories: str = "three") -> CountLaw:
    """Count law whose delta lower-bounds the real Collision mechanism's divergence.

    The law of the post-processed reports of ``D = (x1, x0, ..., x0)`` vs
    ``D' = (x1', x0, ..., x0)``: ``p_c = P_x0(c)``, ``a_c = P_x1(c)/P_x0(c)``,
    ``b_c = P_x1'(c)/P_x0(c)`` (no null category).  With ``categories="full"`` it is
    the exact divergence of these datasets (sufficient statistic).
    """
    keys, P = collision_category_law(eps0, t, ds, categories)
    with mpmath.workdps(_MP_DPS):
        return _lower_law(P["x1"], P["x1p"], P["x0"], f"lower collision {ds} {categories}")


def krr_lower_count_law(eps0: float, k: int, x0: str = "third") -> CountLaw:
    """Exact count law of k-RR for ``D = (1, x0, ..., x0)``, ``D' = (2, x0, ..., x0)``.

    ``x0 = "third"`` (value 3, needs ``k >= 3``): categories ``y = 1, 2, 3, >3`` (the
    output is sufficient up to relabelling of ``>3``), ``v = (E-u, 1-uE, (1-u)/E, 1-u)``
    with ``p = (1, 1, E, k-3)/(E+k-1)``.  ``x0 = "x1"``: categories ``y = 1, 2, >2``,
    ``p = (E, 1, k-2)/(E+k-1)``, ``v = (1 - u/E, E - u, 1 - u)``.  Both are exact
    divergences of those dataset pairs (the output is sufficient).
    """
    e = _check_eps0(eps0)
    k = _check_int("k", k, 2)
    with mpmath.workdps(_MP_DPS):
        E = mpmath.exp(mpmath.mpf(e))
        om = E + k - 1
        one = mpmath.mpf(1)
        if x0 == "third":
            if k < 3:
                raise ValueError(f"x0='third' needs k >= 3, got k = {k}")
            P1 = [E / om, one / om, one / om] + ([(k - 3) / om] if k > 3 else [])
            P1p = [one / om, E / om, one / om] + ([(k - 3) / om] if k > 3 else [])
            P0 = [one / om, one / om, E / om] + ([(k - 3) / om] if k > 3 else [])
        elif x0 == "x1":
            P1 = [E / om, one / om] + ([(k - 2) / om] if k > 2 else [])
            P1p = [one / om, E / om] + ([(k - 2) / om] if k > 2 else [])
            P0 = list(P1)
        else:
            raise ValueError(f"x0 must be 'third' or 'x1', got {x0!r}")
        return _lower_law(P1, P1p, P0, f"lower krr k={k} x0={x0}")


def collision_dataset_candidates(s: int, max_r: int = 1) -> list:
    """Every :class:`CollisionDatasets` with ``r = |Y_x1 cap Y_x1'| <= min(max_r, s - 1)``."""
    s = _check_int("s", s, 1)
    max_r = _check_int("max_r", max_r, 0)
    out = []
    for r in range(min(max_r, s - 1) + 1):
        for o12 in range(r + 1):
            for o1 in range(s - r + 1):
                for o2 in range(s - r + 1):
                    if o1 + o2 + o12 <= s:
                        out.append(CollisionDatasets(s, r, o1, o2, o12))
    return out


def best_collision_lower_bound(n: int, eps0: float, s: int, t: int, eps,
                               categories: str = "four", max_r: int = 1) -> list:
    """Largest lower law over :func:`collision_dataset_candidates`, for each ``eps``.

    Returns a list of ``(delta_lower, CollisionDatasets)``.  Evaluated with
    :func:`count_law_delta_float` (``n`` large) and multiplied by ``1 - 1e-9`` as a
    safety factor for its rounding error: a numerical, not an interval-certified, value;
    re-evaluate the chosen law with :func:`count_law_delta_exact` (``side="lower"``) or
    a certified engine where a certificate is needed.
    """
    eps = _check_eps_list(eps)
    best = [(-1.0, None)] * len(eps)
    for ds in collision_dataset_candidates(s, max_r):
        vals = count_law_delta_float(n, collision_lower_count_law(eps0, t, ds, categories), eps)
        best = [max(b, (float(v) * (1 - 1e-9), ds), key=lambda z: z[0]) for b, v in zip(best, vals)]
    return best


# --------------------------------------------------------------------------- certified lower bounds at any n
# A lower bound's float evaluation is multiplied by (1 - LOWER_MARGIN): the relative error of
# the engine's float paths (blanket_exact.FLOAT_REL_ERROR grows like sqrt(n)) and of scipy's
# binomial tails stays far below it.
LOWER_MARGIN = 1e-8
LOWER_RTOL = 1e-5


def _merge_tail(law: CountLaw) -> CountLaw:
    """Categories 3, 4, ... merged into one (a deterministic post-processing of the reports,
    so the divergence can only go down): p = sum p_c, a = sum p_c a_c / p (same for b)."""
    if len(law.p) <= 3:
        return law
    with mpmath.workdps(_MP_DPS):
        p3 = sum(law.p[2:])
        a3 = sum(pc * ac for pc, ac in zip(law.p[2:], law.a[2:])) / p3
        b3 = sum(pc * bc for pc, bc in zip(law.p[2:], law.b[2:])) / p3
        return CountLaw(law.p[:2] + (p3,), law.a[:2] + (a3,), law.b[:2] + (b3,), law.name + " merged")


def _engine_law(law: CountLaw):
    """The 3-category law as the exact engine's :class:`accountant.blanket_exact.CountLaw`."""
    from .blanket_exact import CountLaw as EngineLaw

    law = _merge_tail(law)
    if len(law.p) != 3 or abs(law.p[0] - law.p[1]) > mpmath.mpf(10) ** -30 * law.p[0]:
        raise ValueError("the engine needs three categories with p_1 = p_2")
    p12 = float(law.p[0])
    # no null category (p sums to 1): p3 = 1 - 2 p12 in floats, so that the engine sees
    # p' = p3 / (1 - 2 p12) = 1 exactly and sums over m alone (a rounded p' < 1 would send it
    # to the two-dimensional path: 0.5 s instead of 0.2 s at n = 1e10)
    p3 = 1.0 - 2.0 * p12 if abs(sum(law.p) - 1) < mpmath.mpf(10) ** -30 else float(law.p[2])
    return EngineLaw(p12, p3, tuple(float(x) for x in law.a), tuple(float(x) for x in law.b))


def _binary_delta(n: int, p1: float, v1: float, v2: float) -> float:
    """E[(v1 N + v2 (n - N))_+]/n for N ~ Bin(n, p1), as sums of positive tails (no cancellation)."""
    from scipy import stats

    if v1 < v2:  # N' = n - N ~ Bin(n, 1 - p1) carries the larger coefficient
        p1, v1, v2 = 1.0 - p1, v2, v1
    if v1 <= 0.0:
        return 0.0
    if v2 >= 0.0:
        return (v1 * p1 + v2 * (1.0 - p1))
    d = v1 - v2
    c = -n * v2 / d                      # X > 0 iff N > c
    k0 = math.floor(c) + 1
    if k0 > n:
        return 0.0
    # E[(N - c)_+] = (k0 - c) P[N >= k0] + sum_{j > k0} P[N >= j]
    sd = math.sqrt(max(n * p1 * (1.0 - p1), 1.0))
    first = float(stats.binom.sf(k0 - 1, n, p1))
    if first == 0.0:
        return 0.0
    total = (k0 - c) * first
    j = k0 + 1
    step = int(max(64, 8 * sd))
    while j <= n:
        js = np.arange(j, min(n, j + step - 1) + 1)
        tails = stats.binom.sf(js - 1, n, p1)
        total += float(np.sum(tails))
        if tails[-1] <= 1e-18 * first or tails[-1] == 0.0:
            break
        j = js[-1] + 1
    return d * total / n


def _binary_slope(n: int, p1: float, v1: float, v2: float, s1: float, s2: float) -> float:
    """Estimate of d/d eps of :func:`_binary_delta` when d v1 / d eps = s1, d v2 / d eps = s2:
    E[s1 N + s2 (n - N); X > 0] / n (the positive set moves with eps but contributes 0 at its
    edge).  Only for a search's Newton steps; never a certified number."""
    from scipy import stats

    if v1 < v2:
        p1, v1, v2, s1, s2 = 1.0 - p1, v2, v1, s2, s1
    if v1 <= 0.0:
        return 0.0
    if v2 >= 0.0:
        return s1 * p1 + s2 * (1.0 - p1)
    c = -n * v2 / (v1 - v2)
    k0 = math.floor(c) + 1
    if k0 > n:
        return 0.0
    tail = float(stats.binom.sf(k0 - 1, n, p1))  # P[N >= k0]
    mean_part = n * p1 * float(stats.binom.sf(k0 - 2, n - 1, p1)) if n > 1 else p1 * (k0 <= 1)
    return (s1 * mean_part + s2 * (n * tail - mean_part)) / n


@dataclass(frozen=True)
class LowerLaw:
    """A dataset pair of the real mechanism whose exact divergence is evaluated at any n.

    ``law`` is the count law of a post-processing of the pair's reports; ``alternatives``
    are other post-processings of the *same* reports.  Each one's divergence is a lower
    bound (data processing), so the largest is taken at each eps.
    """

    law: CountLaw
    datasets: str
    alternatives: tuple = ()
    hash_model: Optional[str] = None  # "uniformly random hash", "one fixed hash", None (no hash)

    def delta(self, n: int, eps: float) -> float:
        """Certified lower bound on the mechanism's delta at ``eps`` (float, margin applied)."""
        return self.delta_and_slope(n, eps)[0]

    def delta_and_slope(self, n: int, eps: float, target: Optional[float] = None) -> tuple[float, float]:
        """(:meth:`delta`, an estimate of d delta / d eps for a search's Newton steps; 0 when
        none is at hand).  Only the first is a certified number.  ``target`` (a search's
        delta) lets the engine's windows follow it; what they leave out only lowers a
        lower end, so any target is safe."""
        return max(_law_delta_and_slope(law, n, eps, target)
                   for law in (self.law,) + tuple(self.alternatives))

    def approx_epsilon(self, n: int, delta: float) -> Optional[float]:
        """Saddle-point estimate of the eps where the largest of the laws' divergences crosses
        ``delta`` (:func:`accountant.blanket_exact.approx_epsilon`; the root of a maximum of
        non-increasing functions is the largest root): a search's start, never reported.
        None for a two-category law (binary RR), which has no estimate here."""
        from .blanket_exact import approx_epsilon

        roots = []
        for law in (self.law,) + tuple(self.alternatives):
            if len(law.p) == 2:
                return None
            r = approx_epsilon(_engine_law(law), n, delta)
            if r is None:
                return None
            roots.append(r)
        return max(roots)

    @property
    def eps_max(self) -> float:
        with mpmath.workdps(_MP_DPS):
            return max(float(mpmath.log(a / b)) for law in (self.law,) + tuple(self.alternatives)
                       for a, b in zip(law.a, law.b) if a > 0 and b > 0)


def _law_delta_and_slope(law: CountLaw, n: int, eps: float,
                         target: Optional[float] = None) -> tuple[float, float]:
    """(certified lower end of one lower law's delta at eps, margin applied; slope estimate)."""
    if len(law.p) == 2:
        with mpmath.workdps(_MP_DPS):
            v = [float(x) for x in law.values(eps)]
            u = mpmath.exp(mpmath.mpf(eps))
            dv = [float(-u * bc) for bc in law.b]  # v_c = a_c - e^eps b_c
        # the slope lets the search take Newton steps (a few evaluations instead of bisection)
        slope = _binary_slope(n, float(law.p[0]), v[0], v[1], dv[0], dv[1]) * (1 - LOWER_MARGIN)
        return max(_binary_delta(n, float(law.p[0]), v[0], v[1]) * (1 - LOWER_MARGIN), 0.0), slope
    from .blanket_exact import positive_part

    r = positive_part(_engine_law(law), n, eps, target_delta=target)
    return max(r.lower * (1 - LOWER_MARGIN), 0.0), r.slope * (1 - LOWER_MARGIN)


def _rr_lower_law(eps0: float) -> LowerLaw:
    """Binary RR, D = (1, 1, ..., 1) vs D' = (2, 1, ..., 1): the count of 1-reports is sufficient."""
    e = _check_eps0(eps0)
    with mpmath.workdps(_MP_DPS):
        E = mpmath.exp(mpmath.mpf(e))
        om = E + 1
        law = _lower_law([E / om, 1 / om], [1 / om, E / om], [E / om, 1 / om], "lower rr")
    return LowerLaw(law, "binary randomized response: D = (1, 1, ..., 1), D' = (2, 1, ..., 1)")


def collision_disjoint_lower_law(eps0: float, s: int, t: int, categories: str = "isolated") -> CountLaw:
    """Closed form of ``collision_lower_count_law(eps0, t, CollisionDatasets(s), categories)``
    for ``categories`` ``"isolated"`` or ``"three"``.

    x1, x1', x0 have pairwise disjoint item sets, so under a uniformly random hash the images
    A1, A2, A0 are independent and a fixed z lies in each with probability
    q = 1 - (1 - 1/t)^s.  A report falls in its own image with probability
    w = t q E / Omega (E/Omega per point of the image, E|A| = t q), and the images it is not
    drawn from are independent of it.

    * ``"isolated"``: 1 = z in A1 only (outside A2 and A0), 2 = z in A2 only, 3 = the rest:
      P_x1(1) = w (1 - q)^2, P_x1(2) = P_x0(1) = P_x0(2) = (1 - w) q (1 - q).
    * ``"three"``: 1 = z in A1 - A2, 2 = z in A2 - A1, 3 = the rest:
      P_x1(1) = w (1 - q), P_x1(2) = (1 - w) q, P_x0(1) = P_x0(2) = q (1 - q).

    x1' mirrors x1.  Neither is a refinement of the other.  A z in A1 that also lies in A0
    is reported by the other users as often as by x1 (likelihood ratio P_x1/P_x0 = 1 there,
    7.16 outside A0 at s = 4, t = 36, eps0 = 2), so leaving it out of category 1
    ("isolated") sharpens the evidence: at n = 1e4, delta = 1e-6 the certified eps goes
    from 0.0567 to 0.0699 (the 8 Venn regions, the exact divergence of these datasets,
    give 0.0705).  When the images overlap heavily (t ~ 3s, small eps0) category 1 of
    "isolated" gets too rare and "three" is the larger (0.00160 against 0.00131 at s = 4,
    t = 11, eps0 = 0.1); :func:`mechanism_lower_law` takes the larger of the two.  O(1)
    instead of the Venn programme (which they match, tests/test_lower_bounds.py).
    """
    e = _check_eps0(eps0)
    s = _check_int("s", s, 1)
    t = _check_int("t", t, s + 1)
    if categories not in ("isolated", "three"):
        raise ValueError(f"categories must be 'isolated' or 'three', got {categories!r}")
    with mpmath.workdps(_MP_DPS):
        E = mpmath.exp(mpmath.mpf(e))
        om = s * E + t - s
        q = 1 - (1 - mpmath.mpf(1) / t) ** s
        w = t * q * E / om
        if categories == "isolated":
            own, other, p0 = w * (1 - q) ** 2, (1 - w) * q * (1 - q), (1 - w) * q * (1 - q)
        else:
            own, other, p0 = w * (1 - q), (1 - w) * q, q * (1 - q)
        P1 = [own, other, 1 - own - other]
        P1p = [other, own, 1 - own - other]
        return _lower_law(P1, P1p, [p0, p0, 1 - 2 * p0],
                          f"lower collision disjoint {categories} s={s} t={t}")


def coco_disjoint_lower_law(eps0: float, s: int, t: int, categories: str = "isolated") -> CountLaw:
    """Lower law of CoCo (Algorithm 1) for x1, x1', x0 with pairwise disjoint coordinate
    sets under uniformly random ``H1`` (pair, ``h = t/2`` of them) and ``H2`` (bucket in the
    pair), for ``categories`` ``"isolated"`` or ``"three"``.

    Category 1 is "z is the favoured bucket H(jb) of a pair holding exactly one entry of
    x1 (its writer for sure), and no entry of x1'", and for ``"isolated"`` also no entry
    of x0; category 2 mirrors it for x1'; 3 is the rest.  Per pair, P[occupied by x] =
    q = 1 - (1 - 1/h)^s and P[exactly one entry of x] = q1 = s (1/h) (1 - 1/h)^(s-1); a
    report lies in its own occupied pairs with probability w = h q (E + 1) / Omega and is
    otherwise uniform on its free buckets (:func:`mechanisms.coco.coco_output_distribution`);
    the favoured bucket of a one-entry pair has probability E / Omega, and the hashes of
    the other inputs are independent of the report.  Hence

    * ``"isolated"``: P_x1(1) = h q1 (E / Omega) (1 - q)^2 and
      P_x1(2) = P_x0(1) = P_x0(2) = (1 - w) (q1 / 2) (1 - q);
    * ``"three"``: P_x1(1) = h q1 (E / Omega) (1 - q), P_x1(2) = (1 - w) q1 / 2 and
      P_x0(1) = P_x0(2) = (q1 / 2) (1 - q) (x0's report may lie in its own pairs);

    x1' mirrors x1.  Reports are mapped to categories by a function of (H1, H2, z) and the
    datasets: a post-processing, so each law's divergence is a lower bound.  Checked
    against enumeration of all (H1, H2) in tests/test_lower_bounds.py.
    """
    e = _check_eps0(eps0)
    s = _check_int("s", s, 1)
    t = _check_int("t", t, 2 * s + 2)
    if t % 2:
        raise ValueError(f"t must be even for CoCo, got {t}")
    if categories not in ("isolated", "three"):
        raise ValueError(f"categories must be 'isolated' or 'three', got {categories!r}")
    with mpmath.workdps(_MP_DPS):
        E = mpmath.exp(mpmath.mpf(e))
        om = s * E + t - s
        h = t // 2
        q = 1 - (1 - mpmath.mpf(1) / h) ** s
        q1 = s * (1 - mpmath.mpf(1) / h) ** (s - 1) / h
        w = h * q * (E + 1) / om
        if categories == "isolated":
            own = h * q1 * E / om * (1 - q) ** 2
            other = (1 - w) * q1 / 2 * (1 - q)
            p0 = other
        else:
            own = h * q1 * E / om * (1 - q)
            other = (1 - w) * q1 / 2
            p0 = q1 / 2 * (1 - q)
        P1 = [own, other, 1 - own - other]
        P1p = [other, own, 1 - own - other]
        return _lower_law(P1, P1p, [p0, p0, 1 - 2 * p0], f"lower coco disjoint {categories} s={s} t={t}")


def needs_d_reason(params, what: str = "the certified lower bound") -> Optional[str]:
    """Why the disjoint-support construction of ``params`` (Collision / CoCo) does not
    exist, or None when it does: three inputs with pairwise disjoint s-sets need the
    dimension ``d`` to be known and ``d >= 3 s``.  Without ``d`` no lower number is
    reported (a lower bound states its dataset, and the dataset needs d)."""
    if params.name not in ("collision", "coco", "olh"):
        return None
    s, d = params.s, getattr(params, "d", None)
    if params.name == "olh" and d < 3:
        return f"{what} uses three distinct values, which needs k >= 3, got k = {d}"
    if d is None:
        return (f"{what} uses three inputs with pairwise disjoint s-sets, which needs the dimension: "
                f"give d (--d), the construction needs d >= 3 s = {3 * s}")
    if d < 3 * s:
        return (f"{what} uses three inputs with pairwise disjoint supports, "
                f"which needs d >= 3 s = {3 * s}, got d = {d}")
    return None


def oue_lower_law(eps0: float, k: int) -> LowerLaw:
    """Certified lower law of optimized unary encoding (true bit 1 w.p. a = 1/2, other bits 1
    w.p. b = 1/(e^eps0 + 1)) for D = (1, 3, ..., 3), D' = (2, 3, ..., 3) (k >= 3; k = 2:
    D = (1, 1, ..., 1), D' = (2, 1, ..., 1)).  Each report is mapped to
    {bits (y1, y2, y3) = (1, 0, 0), (0, 1, 0), other} (k = 2: (y1, y2) = (1, 0), (0, 1),
    other), a post-processing, so the exact divergence of the three-category count law is a
    lower bound on the mechanism's:

        P_x1 = (a(1-b)^2, (1-a)b(1-b), rest),  P_x1' mirrored,
        P_x3 = (b(1-b)(1-a), b(1-b)(1-a), rest)

    (bit 3 = 0 is evidence of the differing user: the others send it as 1 w.p. 1/2), and,
    as an alternative post-processing of the same reports (the larger divergence is taken),
    {(y1, y2) = (1, 0), (0, 1), other}: P_x1 = (a(1-b), (1-a)b, rest),
    P_x3 = (b(1-b), b(1-b), rest), the larger one at small eps0 (0.01103 against 0.00960 at
    n = 1e4, eps0 = 0.5, delta = 1e-6).
    """
    e = _check_eps0(eps0)
    k = _check_int("k", k, 2)
    with mpmath.workdps(_MP_DPS):
        a, b = mpmath.mpf(1) / 2, 1 / (mpmath.exp(mpmath.mpf(e)) + 1)
        if k >= 3:
            P1 = [a * (1 - b) ** 2, (1 - a) * b * (1 - b)]
            P0 = [b * (1 - b) * (1 - a)] * 2
        else:
            P1 = [a * (1 - b), (1 - a) * b]
            P0 = list(P1)
        P1p = [P1[1], P1[0]]
        law = _lower_law(P1 + [1 - sum(P1)], P1p + [1 - sum(P1p)], P0 + [1 - sum(P0)],
                         f"lower oue k={k}")
    if k >= 3:
        with mpmath.workdps(_MP_DPS):
            Q1 = [a * (1 - b), (1 - a) * b]
            Q0 = [b * (1 - b)] * 2
            two = _lower_law(Q1 + [1 - sum(Q1)], [Q1[1], Q1[0], 1 - sum(Q1)], Q0 + [1 - sum(Q0)],
                             f"lower oue two bits k={k}")
        return LowerLaw(law, "D = (1, 3, ..., 3), D' = (2, 3, ..., 3) (reports reduced to bits 1, 2, 3)",
                        (two,))
    return LowerLaw(law, "D = (1, 1, ..., 1), D' = (2, 1, ..., 1) (reports reduced to bits 1, 2)")


def variation_ratio_lower(params) -> tuple[Optional[LowerLaw], Optional[str]]:
    """(LowerLaw, None) or (None, why) for a :class:`accountant.params.VariationRatioParams`.

    The member of the class used: three inputs and three outputs (A, B, C), with
    ``alpha = beta/(p - 1)``, ``r = alpha p / q``:

        R(x1) = (p alpha, alpha, 1 - (1 + p) alpha),  R(x1') = (alpha, p alpha, 1 - (1 + p) alpha),
        R(x0) = (r, r, 1 - 2 r).

    It has ratio p and total variation (p - 1) alpha = beta between x1 and x1', and
    R(x1)/R(x0) = (q, q/p, (1 - (1 + p) alpha)/(1 - 2r)): it belongs to the class when
    2r <= 1 and the last ratio is <= q (checked; otherwise no lower bound, with the reason).
    For D = (x1, x0, ..., x0), D' = (x1', x0, ..., x0) the counts of A, B, C are sufficient,
    so the count law's divergence is the exact divergence of this randomizer.  It is the law
    of Wang et al.'s ``Delta`` (their upper *and* lower bound; wangsw/PrivacyAmplification).
    """
    p, q, a = params.p, params.q, params.alpha
    with mpmath.workdps(_MP_DPS):
        P, Q = mpmath.mpf(p), mpmath.mpf(q)
        # alpha <= 1/(1+p) (beta <= (p-1)/(p+1), up to the rounding of beta's float): a smaller
        # alpha is a member with a smaller total variation, still in the class
        A = min(mpmath.mpf(params.beta) / (P - 1), 1 / (1 + P))
        r = A * P / Q
        rest1, rest0 = 1 - (1 + P) * A, 1 - 2 * r
        if rest0 < 0 or (rest1 > 0 and (rest0 <= 0 or rest1 > Q * rest0)):
            return None, (f"no randomizer of the three-output form has these parameters (p = {p:g}, "
                          f"beta = {params.beta:g}, q = {q:g}: the blanket output C of x0 is too rare "
                          f"for ratio q); no certified lower bound")
        law = _lower_law([P * A, A, rest1], [A, P * A, rest1], [r, r, rest0],
                         f"lower variation-ratio p={p:g} beta={params.beta:g} q={q:g}")
    return LowerLaw(law, f"three-output randomizer with ratio p, total variation beta, ratio q to x0 "
                         f"(alpha = beta/(p-1) = {a:.6g}): D = (x1, x0, ..., x0), D' = (x1', x0, ..., x0)"), None


def mechanism_lower_law(params) -> Optional[LowerLaw]:
    """The concrete neighbouring datasets used for the certified lower bound of ``params``
    (a parameter object of :mod:`accountant.params`), or None when none is implemented.

    * rr, and generic (binary RR is an eps0-LDP randomizer, so the worst case over all of
      them is at least RR's): every other user holds the first value.
    * krr, k >= 3: the others hold a third value (exact for k = 3; for k > 3 the outputs
      other than the two differing values are merged, a post-processing).
    * collision: item sets of x1, x1', x0 pairwise disjoint, hash uniformly random over all
      functions, reports mapped to {z in H(x1) only, z in H(x1') only, other}, "only"
      meaning outside the other two images, or outside the other differing input's image
      (two post-processings, the larger divergence taken).
    * coco: the same with coordinate sets, categories from the favoured buckets of one-entry
      pairs (:func:`coco_disjoint_lower_law`).
    Both need the dimension ``d`` with d >= 3 s (None otherwise, :func:`needs_d_reason`).
    ``datasets`` and ``hash_model`` of the result say what the lower bound is about.
    """
    name = params.name
    if name == "variation-ratio":
        return variation_ratio_lower(params)[0]
    if name == "generic":
        ll = _rr_lower_law(params.eps0)
        return LowerLaw(ll.law, "binary randomized response (one eps0-LDP randomizer of the class): "
                        "D = (1, 1, ..., 1), D' = (2, 1, ..., 1)")
    if name == "rr" or (name == "krr" and params.k == 2):
        return _rr_lower_law(params.eps0)
    if name == "krr":
        return LowerLaw(krr_lower_count_law(params.eps0, params.k, "third"),
                        "D = (1, 3, ..., 3), D' = (2, 3, ..., 3)")
    if name == "oue":
        return oue_lower_law(params.eps0, params.k)
    if name == "olh":
        if needs_d_reason(params) is not None:
            return None
        e, t = params.eps0, params.t
        return LowerLaw(collision_disjoint_lower_law(e, 1, t, "isolated"),
                        f"D = (1, 3, ..., 3), D' = (2, 3, ..., 3) of [k], k = {params.d}",
                        (collision_disjoint_lower_law(e, 1, t, "three"),), "uniformly random hash")
    if name in ("collision", "coco"):
        e, s, t = params.eps0, params.s, params.t
        if needs_d_reason(params) is not None:
            return None
        law = collision_disjoint_lower_law if name == "collision" else coco_disjoint_lower_law
        what = "item" if name == "collision" else "coordinate"
        return LowerLaw(law(e, s, t, "isolated"),
                        f"D = (x1, x0, ..., x0), D' = (x1', x0, ..., x0): {what} sets of x1, x1' and x0 "
                        f"pairwise disjoint s-sets of [d], d = {params.d} >= 3s = {3 * s}",
                        (law(e, s, t, "three"),), "uniformly random hash")
    return None


def worst_hash_lower_law(eps0: float, s: int, t: int) -> CountLaw:
    r"""Exact law of the reports of Collision / CoCo under one fixed *clean* hash, the
    witness that no bound proved for every hash family can be much smaller than the blanket.

    One hash function is a hash family (a point mass).  Take x1, x1', x0 with pairwise
    disjoint item (CoCo: coordinate) sets and a hash under which x1 and x1' each put
    ``E/Omega`` on ``s`` buckets of their own, A1 and A2 (disjoint), and ``1/Omega`` on every
    other bucket:

    * Collision: ``h`` injective on the items of x1 and of x1' with disjoint images A1, A2;
      x0's items on ``m = min(s, t - 2s)`` buckets outside A1 and A2 (all of them when
      ``t < 3s``: several of x0's items then share a bucket, which a fixed hash may do).
    * CoCo: x1 and x1' in distinct pairs except ``q = max(0, 2s - t/2)`` shared pairs
      (opposite favoured buckets); x0's entries favour the non-favoured bucket of a pair of
      x1 or x1' alone, or a bucket of a free pair, on ``m = min(s, t - 2s)`` pairs (entries
      sharing a pair favour the same bucket, so each occupied pair has weights E and 1
      whoever writes last).

    Every input with ``s`` occupied buckets (pairs) puts ``E`` on them and ``1`` elsewhere
    (relative to ``Omega``; Definition 5, Algorithm 1 with free weight
    ``(Omega - s(E+1))/(t - 2s) = 1``); x0 with ``m < s`` has ``E`` on its ``m`` buckets and
    ``g = (Omega - mE)/(t - m)`` (CoCo: the Algorithm-1 weights of its pairs, same totals).
    On the categories (A1, A2, rest):

        P_x1 = (sE, s, t - 2s)/Omega,   P_x1' = (s, sE, t - 2s)/Omega,
        P_x0 = (p0, p0, 1 - 2 p0),  p0 = s/Omega (t >= 3s),
                                    p0 = ((3s - t)E + t - s)/(2 Omega) (2s <= t < 3s),

    the second being the smallest mass any input can leave on A1 and on A2 alike (the rest
    holds at most ``(t - 2s)E``).  The divergence of D = (x1, x0, ..., x0) vs
    D' = (x1', x0, ..., x0) after mapping each report to its category (a post-processing)
    is the count law returned.  Its eps_c is a certified lower bound on the eps_c of the
    mechanism with that hash family, hence on the worst case over hash families, while the
    exact blanket (:func:`blanket_count_law`) is an upper bound for every family: the two
    bracket the best bound that can be proved without knowing the family's joint law.  For
    ``t >= 3s`` it is k-RR's "third value" law with sets of ``s`` buckets as values.
    """
    e = _check_eps0(eps0)
    s = _check_int("s", s, 1)
    t = _check_int("t", t, 2 * s)
    if t == 2 * s and s < 2:
        raise ValueError("s = 1, t = 2 leaves x0 no bucket split evenly between A1 and A2")
    with mpmath.workdps(_MP_DPS):
        E = mpmath.exp(mpmath.mpf(e))
        om = s * E + t - s
        p0 = s / om if t >= 3 * s else ((3 * s - t) * E + t - s) / (2 * om)
        P1 = [s * E / om, s / om, (t - 2 * s) / om]
        P1p = [s / om, s * E / om, (t - 2 * s) / om]
        return _lower_law(P1, P1p, [p0, p0, 1 - 2 * p0], f"lower worst hash s={s} t={t}")


def worst_hash_lower(params) -> tuple[Optional[LowerLaw], Optional[str]]:
    """(:class:`LowerLaw` of :func:`worst_hash_lower_law` for ``params``, None) or (None, why)."""
    name = params.name
    if name not in ("collision", "coco", "olh"):
        return None, (f"the worst-hash lower bound is for Collision and CoCo (a hash family to choose); "
                      f"for '{name}' use 'lower'")
    s, t = params.s, params.t
    if t < 2 * s or (t == 2 * s and s < 2):
        return None, (f"the worst-hash lower bound needs disjoint favoured buckets for x1 and x1' and an "
                      f"even split for x0: t >= 2s (and s >= 2 at t = 2s), got s = {s}, t = {t}")
    why = needs_d_reason(params, "the worst-hash lower bound")
    if why is not None:
        return None, why
    m = min(s, t - 2 * s)
    what = "items hashed injectively" if name == "collision" else "one entry per occupied pair"
    return LowerLaw(worst_hash_lower_law(params.eps0, s, t),
                    f"D = (x1, x0, ..., x0), D' = (x1', x0, ..., x0), disjoint s-sets of [d] "
                    f"(d = {params.d}), one fixed hash (the worst family): x1, x1' {what} on disjoint "
                    + (f"buckets, x0 on {m} other bucket(s)" if m > 0 else "buckets, x0 on one bucket of each"),
                    hash_model="one fixed hash"), None


def worst_hash_lower_epsilon(params, n: int, delta: float, rtol: float = 1e-9):
    """Certified lower bound on the eps_c of Collision / CoCo with the worst hash family
    (``BoundResult`` named ``lower-worst-hash``; :func:`worst_hash_lower_law`)."""
    from .bounds import BoundResult

    ll, why = worst_hash_lower(params)
    if ll is None:
        return BoundResult.not_applicable("lower-worst-hash", why, delta)
    return _lower_search(ll, "lower-worst-hash", params, n, delta, rtol)


def worst_hash_lower_delta(params, n: int, eps: float):
    """(certified lower bound on the worst hash family's delta at ``eps``, same) or None."""
    ll, _ = worst_hash_lower(params)
    if ll is None:
        return None
    v = ll.delta(n, float(eps))
    return v, v


def _no_lower(params, delta):
    from .bounds import BoundResult

    reason = needs_d_reason(params)
    if reason is None and params.name == "variation-ratio":
        reason = variation_ratio_lower(params)[1]
    if reason is None:
        reason = f"no certified lower bound is implemented for mechanism '{params.name}'"
    return BoundResult.not_applicable("lower", reason, delta)


def lower_bound_epsilon(params, n: int, delta: float, rtol: float = 1e-9):
    """Certified lower bound on the true eps_c of the mechanism (``BoundResult`` named
    ``lower``): the largest eps found at which the exact divergence of the datasets of
    :func:`mechanism_lower_law` is certified above ``delta``; 0 if none."""
    ll = mechanism_lower_law(params)
    if ll is None:
        return _no_lower(params, delta)
    return _lower_search(ll, "lower", params, n, delta, rtol)


def _lower_search(ll: LowerLaw, name: str, params, n: int, delta: float, rtol: float):
    """The largest eps found at which ``ll``'s certified divergence is above ``delta``."""
    from .bounds import BoundResult
    from .search import largest_eps_above

    top = min(ll.eps_max, float(params.eps0))

    def evaluate(eps: float):
        v, slope = ll.delta_and_slope(n, eps, delta)
        return v, v / (1 - LOWER_MARGIN) ** 2, slope

    # start just below the saddle-point estimate of the root (within 3e-7 of it from
    # n = 1e5 on: one evaluation in the usual case), else near the pair's eps_c (brackets
    # are within a factor ~2 of it); a lower bound needs few digits and no certified upper end
    rtol = max(rtol, LOWER_RTOL)
    guess = ll.approx_epsilon(n, delta)
    if guess is not None:
        guess *= 1.0 - 0.2 * rtol
    else:
        from .bounds import PAIR_GUESS_RTOL, _pair_result

        guess = 0.8 * _pair_result(params, n, delta, PAIR_GUESS_RTOL).epsilon
    lo, _ = largest_eps_above(evaluate, delta, top, rtol=rtol,
                              guess=guess if 0.0 < guess < top else None)
    return BoundResult(name, lo, True, ll.datasets, delta)


def lower_bound_delta(params, n: int, eps: float):
    """(certified lower bound on the mechanism's delta at ``eps``, same) or None."""
    ll = mechanism_lower_law(params)
    if ll is None:
        return None
    v = ll.delta(n, float(eps))
    return v, v
