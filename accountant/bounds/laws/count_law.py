"""Count laws of Collision / CoCo / k-RR reports and their exact divergences on small n.

Part of :mod:`accountant.bounds.laws`; the package docstring has the mathematics.
"""
from __future__ import annotations
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional
import mpmath
import numpy as np
from accountant.core.dispatch import parameter_type, unsupported
from accountant.core.limits import check_positive_number
from accountant.core.randomizers import CoCoParams, CollisionParams

MP_DPS = 50


# --------------------------------------------------------------------------- validation
def check_law_eps0(eps0) -> float:
    """eps0 in (0, 50] (the count laws' exponentials stay in the float range)."""
    return check_positive_number("eps0", eps0, 50.0)


def check_law_int(name: str, value, lo: int, hi: Optional[int] = None) -> int:
    rng = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer {rng}, got {value!r}")
    v = int(value)
    if v < lo or (hi is not None and v > hi):
        raise ValueError(f"{name} must be an integer {rng}, got {v}")
    return v


def check_eps_list(eps) -> np.ndarray:
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


def to_mpf(x):
    return x if isinstance(x, mpmath.mpf) else mpmath.mpf(x.numerator) / x.denominator \
        if isinstance(x, Fraction) else mpmath.mpf(x)


def _collision_t(s: int, t) -> int:
    return check_law_int("t", t, s + 1)


def _coco_t(s: int, t) -> int:
    t = check_law_int("t", t, 2 * s + 2)
    if t % 2:
        raise ValueError(f"t must be an even integer >= 2s + 2 = {2 * s + 2}, got {t}")
    return t


#: the output sizes t that Collision and CoCo take (given s)
BLANKET_T = {CollisionParams: _collision_t, CoCoParams: _coco_t}


def blanket_count_law(mechanism, eps0: float, s: int, t: int) -> CountLaw:
    """Blanket upper law of Collision / CoCo (proof in the module docstring).

    Parameters
    ----------
    mechanism : a mechanism's name or parameter type: Collision (``t > s``) or CoCo (even
        ``t >= 2s + 2``), :data:`BLANKET_T`; ValueError for another.
    eps0, s, t : mechanism parameters (Definition 5 / Algorithm 1).

    Returns
    -------
    CountLaw with (``t >= 2s``) ``p = (s, s, t - 2s)/Omega``, ``a = (E, 1, 1)``,
    ``b = (1, E, 1)``; (``t < 2s``, ``j0 = 2s - t``) ``p = (s-j0, s-j0, j0)/Omega``,
    ``a = (E, 1, E)``, ``b = (1, E, E)``.  The null category has ``1 - t/Omega``.
    """
    kind = parameter_type(mechanism)
    if kind not in BLANKET_T:  # the type itself: OLH's s is 1, not a Collision of any s
        raise unsupported(kind, "the blanket count law of Collision / CoCo", BLANKET_T)
    check_t = BLANKET_T[kind]
    e = check_law_eps0(eps0)
    s = check_law_int("s", s, 1)
    t = check_t(s, t)
    mechanism = kind.name
    with mpmath.workdps(MP_DPS):
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
    k = check_law_int("k", k, 2)
    return blanket_count_law(CollisionParams, eps0, 1, k)


# --------------------------------------------------------------------------- evaluators
def count_law_delta_exact(n: int, law: CountLaw, eps, dps: int = MP_DPS,
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
    n = check_law_int("n", n, 1, 400)
    eps = check_eps_list(eps)
    if side not in ("nearest", "lower", "upper"):
        raise ValueError(f"side must be 'nearest', 'lower' or 'upper', got {side!r}")
    K = len(law.p)
    if math.comb(n + K, K) > 3_000_000:
        raise ValueError(f"n = {n} with {K} categories has too many compositions")
    out = []
    with mpmath.workdps(dps):
        p = [to_mpf(x) for x in law.p]
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
    (:func:`accountant.engines.enumeration.compositions`)."""
    from accountant.engines.enumeration import compositions as rows

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

    n = check_law_int("n", n, 1)
    eps = check_eps_list(eps)
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
