r"""Collision and CoCo lower bounds under the random hash *with* the image sizes, at small n.

Part of :mod:`accountant.bounds.laws`.  May import: accountant.core, accountant.engines,
accountant.bounds.laws.count_law.

Why
---
The pattern and category reductions of :mod:`.patterns` and :mod:`.lower` keep, for each of
x1, x1', x0, only whether ``z`` is (favoured) in ``H(x)``.  For s >= 2 they forget how many
buckets ``H(x)`` occupies, which sets ``P[z | x, H]``; their likelihood ratio then stays far
below ``e^eps0`` (``eps_max`` 2.06 at eps0 = 6, s = 2, t = 6) and the lower end is 0 at every
larger eps although the datasets' exact divergence is positive (CoCo, n = 2, eps = 4.8:
exact 0.149).

The law with the image sizes
----------------------------
Datasets D = (x1, x0, ..., x0), D' = (x1', x0, ..., x0), the three inputs' item (coordinate)
sets pairwise disjoint, each report hashed by its own uniformly random function.  Given the
hash, ``P[z | x, H]`` depends on ``(H, z)`` only through a key ``kappa_x(H, z)``:

* Collision: ``([z in H(x)], k = |H(x)|)``, probability ``E / Omega`` in the image and
  ``(Omega - k E) / ((t - k) Omega)`` outside, ``Omega = s E + t - s`` (Definition 5);
* CoCo: ``g_x(z)`` (:mod:`.coco_random`: ``u/c`` on an occupied pair of ``c`` entries, ``u``
  of them favouring z; ``phi(m) = (s - m)/(t - 2m)`` on a free pair, ``m`` occupied pairs),
  probability ``(1 + (E - 1) g) / (s E + t - s)``.

Since the item sets are disjoint, the three keys at a fixed ``z`` are independent (each a
function of its own items' hash values), and the law of ``H`` is invariant under relabelling
buckets (pairs, and the two buckets of a pair), so the law of the keys at ``z`` does not
depend on ``z``.  Hence the class ``K = (kappa_x1, kappa_x1', kappa_x0)`` of a report has
probability ``P_x(K) = t * prod_j P[kappa_j at z] * q_x(kappa_x)`` under input x, and, as
in :mod:`accountant.engines.enumeration`, the class of each report is a sufficient statistic
(symbols of one class have equal probability under every input): the shuffled divergence of
the classes *is* the datasets' divergence.  Every class has ``P_x0 > 0``, so with ``Y_i``
i.i.d. ``P_x0`` and ``rho = P_x1 / P_x0``, ``rho' = P_x1' / P_x0``,

    delta(eps) = E[(sum_i rho(Y_i) - e^eps rho'(Y_i))_+] / n,

evaluated exactly by enumerating the multinomial counts of the classes (merged first where
they have the same ``(rho, rho')``, which loses nothing) while their number stays below
:data:`MAX_COMPOSITIONS`.  Beyond it this evaluator does not apply and the reductions' lower
end stands (the lower bound's text then says why it can be 0).
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Optional

import mpmath
import numpy as np

from accountant.bounds.laws.count_law import MP_DPS
from accountant.core.dispatch import parameter_type, unsupported
from accountant.core.randomizers import CoCoParams, CollisionParams

# the exact evaluation enumerates at most this many multinomial count vectors (built once
# per (n, law), then about 1 ms an eps), from at most this many key triples (s <= 8 or so)
MAX_COMPOSITIONS = 50_000
MAX_KEY_TRIPLES = 5_000
# relative float error of one evaluation is far below this; it is taken off the lower end
FLOAT_MARGIN = 1e-9


def _occupancy(balls: int, bins: int) -> dict:
    """{m: P[m bins occupied]} for ``balls`` uniform independent balls in ``bins`` bins (mpmath)."""
    dist = {0: mpmath.mpf(1)}
    for _ in range(balls):
        new: dict = {}
        for m, p in dist.items():
            new[m] = new.get(m, 0) + p * mpmath.mpf(m) / bins
            if m < bins:
                new[m + 1] = new.get(m + 1, 0) + p * mpmath.mpf(bins - m) / bins
        dist = new
    return dist


def collision_keys(s: int, t: int) -> dict:
    """{(member, k): P at a fixed z} for one input of s distinct items under a uniform hash."""
    occ = _occupancy(s, t)  # |H(x)| = number of occupied buckets
    out = {}
    for k, pk in occ.items():
        if k >= 1:
            out[(1, k)] = pk * mpmath.mpf(k) / t
            if k < t:
                out[(0, k)] = pk * (1 - mpmath.mpf(k) / t)
    return out


def coco_keys(s: int, t: int) -> dict:
    """{g: P[g_x(z) = g] at a fixed z} for one input of s coordinates (CoCo, random hash)."""
    h = t // 2
    out: dict = {}
    for c in range(s + 1):  # entries of x in z's pair
        pc = mpmath.binomial(s, c) * (mpmath.mpf(1) / h) ** c * (1 - mpmath.mpf(1) / h) ** (s - c)
        if c == 0:
            for m, pm in _occupancy(s, h - 1).items():  # the other pairs
                g = Fraction(s - m, t - 2 * m)
                out[g] = out.get(g, 0) + pc * pm
        else:
            for u in range(c + 1):
                g = Fraction(u, c)
                out[g] = out.get(g, 0) + pc * mpmath.binomial(c, u) / mpmath.mpf(2) ** c
    return out


def collision_report_law(E, s: int, t: int):
    """``q(key)``: the probability of a report at a point of Collision's key ``(member, k)``
    (Definition 5: ``E / Omega`` in the image, the rest spread over the others)."""
    omega = s * E + t - s

    def q(key):
        member, k = key
        return E / omega if member else (omega - E * k) / ((t - k) * omega)
    return q


def coco_report_law(E, s: int, t: int):
    """``q(g)``: the probability of a report at a point of CoCo's key ``g`` (Algorithm 1)."""
    omega = s * E + t - s

    def q(g):
        return (1 + (E - 1) * mpmath.mpf(g.numerator) / g.denominator) / omega
    return q


#: (the keys at a fixed z, the report's probability by key) of each parameter type with the
#: image sizes
KEY_LAWS = {CollisionParams: (collision_keys, collision_report_law),
            CoCoParams: (coco_keys, coco_report_law)}


def _kind(mechanism) -> type:
    """The type of :data:`KEY_LAWS` for a mechanism's name or parameter type (ValueError
    otherwise; OLH, whose s is 1, has no image sizes to keep)."""
    kind = parameter_type(mechanism)
    if kind not in KEY_LAWS:
        raise unsupported(kind, "the lower law with the image sizes", KEY_LAWS)
    return kind


def class_ratios(mechanism, eps0: float, s: int, t: int) -> tuple:
    """(P0, rho, rho') over the classes, merged by equal (rho, rho'): floats (numpy arrays).
    ``mechanism``: a name or parameter type of :data:`KEY_LAWS`."""
    return _class_ratios(_kind(mechanism), eps0, s, t)


@lru_cache(maxsize=64)
def _class_ratios(kind: type, eps0: float, s: int, t: int) -> tuple:
    keys_of, law_of = KEY_LAWS[kind]
    with mpmath.workdps(MP_DPS):
        E = mpmath.exp(mpmath.mpf(eps0))
        keys, q = keys_of(s, t), law_of(E, s, t)
        items = [(k, p) for k, p in keys.items() if p > 0]
        merged: dict = {}
        for k1, p1 in items:
            for k2, p2 in items:
                for k0, p0 in items:
                    w = t * p1 * p2 * p0  # P[class at z], summed over the t values of z
                    # rho = q(k1)/q(k0), rho' = q(k2)/q(k0): classes with equal ratios merge
                    r1, r2 = q(k1) / q(k0), q(k2) / q(k0)
                    tag = (mpmath.nstr(r1, 30), mpmath.nstr(r2, 30))
                    m = merged.setdefault(tag, [mpmath.mpf(0), r1, r2])
                    m[0] += w * q(k0)
        P0 = np.array([float(v[0]) for v in merged.values()])
        rho = np.array([float(v[1]) for v in merged.values()])
        rhop = np.array([float(v[2]) for v in merged.values()])
    return P0, rho, rhop


def _compositions(n: int, K: int) -> int:
    return math.comb(n + K - 1, K - 1)


@lru_cache(maxsize=64)
def _raw_keys(kind: type, s: int, t: int) -> int:
    return len(KEY_LAWS[kind][0](s, t))


def applies(mechanism, eps0: float, s: int, t: int, n: int) -> bool:
    """Whether the exact evaluation stays within its caps: at most :data:`MAX_KEY_TRIPLES`
    key triples to build the classes, at most :data:`MAX_COMPOSITIONS` count vectors (s >= 2
    only: at s = 1 the image size is always 1 and the reductions already keep everything)."""
    kind = _kind(mechanism)
    if s < 2 or n < 1 or _raw_keys(kind, s, t) ** 3 > MAX_KEY_TRIPLES:
        return False
    K = len(_class_ratios(kind, float(eps0), s, t)[0])
    return _compositions(n, K) <= MAX_COMPOSITIONS


def _count_vectors(n: int, K: int) -> np.ndarray:
    """All count vectors of n over K classes (rows), in lexicographic order."""
    out = []

    def rec(prefix, left, k):
        if k == K - 1:
            out.append(prefix + [left])
            return
        for c in range(left, -1, -1):
            rec(prefix + [c], left - c, k + 1)

    rec([], n, 0)
    return np.array(out, dtype=np.int64)


@lru_cache(maxsize=8)
def _multinomial(kind: type, eps0: float, s: int, t: int, n: int) -> tuple:
    """(count vectors C, their multinomial probabilities under P_x0)."""
    from scipy.special import gammaln

    P0 = _class_ratios(kind, eps0, s, t)[0]
    C = _count_vectors(n, len(P0))
    logw = gammaln(n + 1) - gammaln(C + 1).sum(axis=1) + C @ np.log(P0)
    return C, np.exp(logw)


def exact_lower_delta(mechanism, eps0: float, s: int, t: int, n: int, eps: float) -> Optional[float]:
    """Certified lower end of the datasets' delta at ``eps`` (module docstring); None where the
    evaluation does not apply (:func:`applies`).  ``mechanism``: a name or parameter type."""
    if not applies(mechanism, eps0, s, t, n):
        return None
    kind = _kind(mechanism)
    _, rho, rhop = _class_ratios(kind, float(eps0), s, t)
    C, w = _multinomial(kind, float(eps0), s, t, int(n))
    v = rho - math.exp(eps) * rhop
    S = C @ v
    slack = n * float(np.max(np.abs(v))) * 1e-14  # float error of S (~50 ulps): a value that may be 0 is 0
    pos = np.maximum(S - slack, 0.0)
    val = float(np.sum(w * pos)) / n
    return max(val * (1.0 - FLOAT_MARGIN), 0.0)


def eps_max(mechanism, eps0: float, s: int, t: int) -> float:
    """The largest eps at which the datasets' divergence can be positive: max log(rho/rho')."""
    _, rho, rhop = class_ratios(mechanism, float(eps0), s, t)
    return float(np.max(np.log(rho / rhop)))


def largest_exact_n(mechanism, eps0: float, s: int, t: int) -> int:
    """The largest n at which :func:`exact_lower_delta` applies (0 if none)."""
    n = 0
    while n < 64 and applies(mechanism, eps0, s, t, n + 1):
        n += 1
    return n


def why_zero(params, n: int, reductions_eps_max: float) -> Optional[str]:
    """Why a Collision/CoCo lower end of 0 need not be the datasets' value (s >= 2, beyond the
    exact evaluation), or None when a 0 is what the evaluated reports give."""
    if type(params) not in KEY_LAWS or params.s < 2:
        return None
    if applies(type(params), float(params.eps0), params.s, params.t, n):
        return None
    m = largest_exact_n(type(params), float(params.eps0), params.s, params.t)
    return (f"0 is what the reduced reports give, not the datasets' value: the reductions forget "
            f"the image sizes |H(x)| and their divergence is 0 from eps = {reductions_eps_max:.6g} on, "
            f"while the datasets' exact divergence can stay positive up to eps0; the exact evaluation "
            f"with the image sizes is within its cost cap only for n <= {m}")
