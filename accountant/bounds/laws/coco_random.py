r"""CoCo under the *random-hash model*: the pair weight ``lambda`` of the four-corner law.

Part of :mod:`accountant.bounds.laws`.  May import: accountant.core, accountant.engines,
accountant.bounds.laws.random_hash.

The model
---------
A CoCo report (Algorithm 1; :mod:`mechanisms.randomizers.coco`) carries its hash seed and
``z in [t]``, ``t`` even, ``h = t/2`` bucket pairs ``(p, p + h)``.  ``hash_model="random"``
assumes that each report's hash is drawn independently of everything else and uniformly
from *all* functions ``H: [d] -> [t]`` (``H(j+)``; equivalently ``H1: [d] -> [h]`` and
``H2: [d] -> {-1, +1}`` uniform and independent, ``H(j-)`` the other bucket of the pair of
``H(j+)``): coordinate by coordinate, the pair ``H1(j)`` is uniform on ``[h]`` and the
orientation (whether the entry ``(j, b)`` writes ``E`` on the upper bucket) is a fair coin,
independent across coordinates.  Two inputs sharing a coordinate share its pair; with the
same sign they share its orientation, with opposite signs their orientations are opposite.

Blanket, ``gamma`` and ``f``
----------------------------
Given the hash, with ``m`` occupied pairs, ``Omega = s E + t - s`` (line 13), the exact
law (:func:`mechanisms.randomizers.coco.coco_output_distribution`) is ``f_x(z)/Omega`` with
``f_x = 1 + (E - 1) g_x`` and

* on an occupied pair holding ``c`` entries of ``x``, ``u`` of them oriented up:
  ``g = u/c`` on the upper bucket and ``1 - u/c`` on the lower one (the last writer is
  uniform among the ``c``);
* on a free pair: ``g = phi(m) = (s - m)/(t - 2m)`` on both buckets
  (``(Omega - m (E + 1))/(t - 2m) = 1 + (s - m)(E - 1)/(t - 2m)``).

So ``g in [0, 1]``, ``f in [1, E]``: every output has probability ``>= 1/Omega`` given the
hash, the blanket is ``omega = (law of H) x Uniform[t]`` with ``gamma = t/Omega`` (the same
``gamma`` as the any-hash law, :func:`accountant.engines.blanket.law.blanket_law`), and
``sum_z g_x(z) = m + (t - 2m) phi(m) = s`` for every hash: ``E_omega[f_x] = Omega/t =
1/gamma``.  Since ``t >= 2s + 2``, ``phi(m) < 1/2``.  The four-corner law of
:mod:`accountant.bounds.laws.random_hash` (its module docstring: the balayage, *Monotone
in lambda*, *Rounding of the law*, *Which pair*) then applies verbatim with
``lambda = TV(R(x1), R(x1'))/(gamma (E - 1)) = E_H[sum_z (g_x1 - g_x1')_+]/t``,
``mu = s/t - lambda``, ``nu = 1 - s/t - lambda``; the any-hash law is ``lambda = s/t``
(``sum_z (g1 - g2)_+ <= sum_z g1 = s``).  Inputs whose signs are drawn from numerical
values are mixtures of signed inputs: their ``f`` is a mixture (still in ``[1, E]``, same
mean) and their total variation is at most the largest one over signed inputs (joint
convexity), so the signed pair types below cover them.

The weight, pair by pair
------------------------
A pair type is ``(r, o)``: ``x1`` and ``x1'`` share ``r`` coordinates with the same sign
and ``o`` with opposite signs and have ``n = s - r - o`` coordinates of their own each
(``r <= s - 1``: the inputs differ).  ``sum_z (g1 - g2)_+`` is a sum over the ``h`` pairs;
the pairs are exchangeable, so ``lambda = (h/t) E[c] = E[c]/2`` with ``c`` the contribution
of pair 1, which depends on the entries landing in it and on the occupancies ``m1, m2``:

* no entry of either input: ``2 (phi(m1) - phi(m2))_+``;
* ``x1`` only (``c1`` entries, all of ``x1``'s own, ``u1`` up): with ``mn = min(u1, c1 - u1)/c1``,
  ``(1 - mn - phi(m2)) + (mn - phi(m2))_+ = 1 - 2 phi(m2) + (phi(m2) - mn)_+``
  (``max(u1/c1, 1 - u1/c1) >= 1/2 > phi``);
* ``x1'`` only: ``(phi(m1) - mn')_+``;
* both: ``|u1/c1 - u2/c2|``.

Given the content of pair 1, every other coordinate is uniform on the other ``h - 1``
pairs, independently.  Hence ``m2`` in the second case (and ``m1`` in the third) has the
law ``I`` of the number of distinct values among ``s`` uniform draws from ``h - 1``, and in
the first ``(m1, m2) = (j + a, j + w)`` with ``j`` the image size of the ``k = r + o``
shared coordinates and ``a, w`` i.i.d. given ``j`` (new values among ``n`` draws with ``j``
taken), all on ``h - 1`` pairs (``phi`` decreasing: positive iff ``a < w``).  The content
``(c1, u1, c2, u2)`` of pair 1 is a sum of independent increments: each coordinate lands
in pair 1 w.p. ``1/h``, oriented up or down w.p. ``1/(2h)`` each; a same-sign shared one
adds ``(1, up, 1, up)``, an opposite-sign one ``(1, up, 1, 1 - up)``, an own one of ``x1``
``(1, up, 0, 0)``, of ``x1'`` ``(0, 0, 1, up)``.  :func:`coco_random_weights` propagates
this law exactly as a ``T x T`` matrix (``T`` the states ``0 <= u <= c <= K`` of one side
plus one *overflow* state for ``c > K``): the two sides' moves are matrices ``Up``, ``Dn``,
a shared coordinate maps ``D -> (1 - 1/h) D + (1/(2h)) (Up D Up^T + Dn D Dn^T)`` (opposite
sign: ``Up D Dn^T + Dn D Up^T``) and the ``n`` own coordinates of each side are the
matrix power ``P^n``, ``P = (1 - 1/h) I + (1/(2h)) (Up + Dn)``, on one side.  ``E[c]`` is
the contraction of the final law with the values above; an overflow state is given the
value 1 in the upper end (a pair's contribution is at most ``sum`` of ``g1`` over it,
``<= 1``) and 0 in the lower end.  ``K = s`` (exact: no overflow) for ``s <= 12``; above,
the smallest ``K`` with ``2 C(s, K + 1)/h^(K + 1) <= 1e-13`` (``P[c1 > K] <= C(s, K + 1)
h^-(K + 1)``), so the two ends differ by at most ``1e-13/2`` in ``lambda``.

:func:`coco_random_weight_exact` runs the same code on ``Fraction`` arrays with ``K = s``:
the exact ``lambda``, checked in the tests against brute-force enumeration of all hash
functions of tiny instances (and the float ends against it).

*Rounding.*  Every value of the table is an exact fraction rounded once (``1 - 2 phi(m) =
(t - 2s)/(t - 2m)``, ``phi(m1) - phi(m2) = (t - 2s)(m2 - m1)/((t - 2 m1)(t - 2 m2))``,
``phi - min/c`` and ``|u1 c2 - u2 c1|/(c1 c2)`` over integers), every probability a sum of
products of non-negative floats (``1/h``, ``(h - 1)/h`` rounded once; ``1/(2h)`` exact from
``1/h``).  The longest chain of roundings behind one term is below
``N = 4 s (T + 2) + T^2 + 3 T + (s + 1)^2 + 8 s + 40`` (``s + 1`` matrix products of
length-``T`` dot products for the shared and own coordinates, two for the final
sandwich, the ``T^2``-term contraction, the ``(s + 1)^2``-term sums of the free-pair
value), so the relative error is below ``gamma_N <= 2 N 2^-53``; products below the normal
range add at most ``2^-1000`` in all.

*Which pair.*  All ``(r, o)`` types are computed (``O(s^2)`` of them, ``O(s T^3)`` each
with prefix sharing); the law of the largest upper end dominates every type
(:func:`accountant.bounds.laws.random_hash.random_corner_law`).  ``s`` is limited to
``COCO_RANDOM_MAX_S`` (:mod:`accountant.core.limits`).
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

from accountant.bounds.laws.random_hash import random_corner_law
from accountant.core.limits import COCO_RANDOM_MAX_S

# relative tolerance of the truncation at K (overflow mass bound)
_OVERFLOW_TOL = Fraction(1, 10**13)
_ABS_ERROR = 2.0 ** -1000


def _check_st(s, t) -> tuple[int, int]:
    for name, v, lo in (("s", s, 1), ("t", t, 4)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
    if t % 2 or t < 2 * s + 2:
        raise ValueError(f"t must be an even integer >= 2s + 2 = {2 * s + 2} for CoCo, got {t}")
    return int(s), int(t)


def _truncation(s: int, h: int) -> int:
    """``K``: ``s`` when ``s <= 12``, else the smallest ``K`` whose overflow bound
    ``2 C(s, K + 1)/h^(K + 1)`` is ``<= _OVERFLOW_TOL``."""
    if s <= 12:
        return s
    K = 1
    while K < s and 2 * Fraction(math.comb(s, K + 1), h ** (K + 1)) > _OVERFLOW_TOL:
        K += 1
    return K


def _image_laws(count: int, hp: int, start: int, num):
    """``L[i][j]`` = P[j values occupied after ``i`` uniform draws from ``hp`` values,
    starting from ``start`` occupied], ``i = 0..count`` (lists of ``num``)."""
    row = [num(0)] * (start + count + 1)
    row[start] = num(1)
    out = [row]
    for _ in range(count):
        new = [num(0)] * len(row)
        for j, p in enumerate(row):
            if p:
                new[j] += p * num(Fraction(j, hp))
                if j + 1 < len(new):
                    new[j + 1] += p * num(Fraction(hp - j, hp))
        row = new
        out.append(row)
    return out


def _side_states(K: int):
    """Index of ``(c, u)``, ``0 <= u <= c <= K``, and of the overflow state (last)."""
    idx = {}
    for c in range(K + 1):
        for u in range(c + 1):
            idx[(c, u)] = len(idx)
    return idx, len(idx)


def _core(s: int, t: int, K: int, num, dtype):
    """``{(r, o): (E[c] with overflow valued 0, overflow mass)}`` for every pair type."""
    h = t // 2
    hp = h - 1
    idx, ov = _side_states(K)
    T = ov + 1
    up = np.zeros((T, T), dtype=dtype)
    dn = np.zeros((T, T), dtype=dtype)
    if dtype is object:
        up[:], dn[:] = num(0), num(0)
    for (c, u), i in idx.items():
        up[idx[(c + 1, u + 1)] if c < K else ov, i] = num(1)
        dn[idx[(c + 1, u)] if c < K else ov, i] = num(1)
    up[ov, ov] = dn[ov, ov] = num(1)
    p = num(Fraction(1, h))
    q = num(Fraction(h - 1, h))
    half_p = p / 2
    eye = np.zeros((T, T), dtype=dtype)
    if dtype is object:
        eye[:] = num(0)
    for i in range(T):
        eye[i, i] = num(1)
    P = q * eye + half_p * (up + dn)
    powers = [eye]
    for _ in range(s):
        powers.append(P.dot(powers[-1]))

    def phi(m):
        return Fraction(s - m, t - 2 * m)

    # value table (pair 1 not empty); the empty state gets the free-pair value per type
    I = _image_laws(s, hp, 0, num)[s]
    V = np.zeros((T, T), dtype=dtype)
    if dtype is object:
        V[:] = num(0)
    for (c1, u1), i1 in idx.items():
        for (c2, u2), i2 in idx.items():
            if c1 and c2:
                v = num(Fraction(abs(u1 * c2 - u2 * c1), c1 * c2))
            elif c1:
                mn = Fraction(min(u1, c1 - u1), c1)
                v = sum((I[m] * num(Fraction(t - 2 * s, t - 2 * m) + max(phi(m) - mn, 0))
                         for m in range(s + 1) if I[m]), num(0))
            elif c2:
                mn = Fraction(min(u2, c2 - u2), c2)
                v = sum((I[m] * num(max(phi(m) - mn, 0)) for m in range(s + 1) if I[m]), num(0))
            else:
                continue
            V[i1, i2] = v

    def free_value(k: int):
        """E[2 (phi(m1) - phi(m2))_+ | pair 1 empty], k shared coordinates."""
        n = s - k
        Pk = _image_laws(k, hp, 0, num)[k]
        tot = num(0)
        for j in range(k + 1):
            if not Pk[j]:
                continue
            qj = _image_laws(n, hp, j, num)[n]
            inner = num(0)
            for a in range(j, j + n + 1):
                for w in range(a + 1, j + n + 1):
                    if qj[a] and qj[w]:
                        inner += qj[a] * qj[w] * num(Fraction(2 * (t - 2 * s) * (w - a),
                                                             (t - 2 * a) * (t - 2 * w)))
            tot += Pk[j] * inner
        return tot

    free = [free_value(k) for k in range(s + 1)]
    out = {}
    D0 = np.zeros((T, T), dtype=dtype)
    if dtype is object:
        D0[:] = num(0)
    D0[0, 0] = num(1)
    Dr = D0
    for r in range(s):
        Dro = Dr
        for o in range(s - r + 1):
            n = s - r - o
            D = powers[n].dot(Dro).dot(powers[n].T)
            val = (D * V).sum() + D[0, 0] * free[r + o]
            overflow = D[ov, :].sum() + D[:, ov].sum() - D[ov, ov]
            out[(r, o)] = (val, overflow)
            if o < s - r:
                Dro = q * Dro + half_p * (up.dot(Dro).dot(dn.T) + dn.dot(Dro).dot(up.T))
        Dr = q * Dr + half_p * (up.dot(Dr).dot(up.T) + dn.dot(Dr).dot(dn.T))
    return out


def coco_random_weight_exact(s: int, t: int, r: int, o: int) -> Fraction:
    """``lambda = TV(R(x1), R(x1')) / (gamma (E - 1))`` as a Fraction for the pair type
    ``(r, o)`` (``r`` same-sign and ``o`` opposite-sign shared coordinates) under a
    uniformly random hash (small ``s``: tests; ``O(s^2)`` types of ``O(s^5)`` Fraction
    operations each)."""
    s, t = _check_st(s, t)
    for name, v in (("r", r), ("o", o)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise ValueError(f"{name} must be an integer >= 0, got {v!r}")
    if r > s - 1 or r + o > s:
        raise ValueError(f"need 0 <= r <= s - 1 and r + o <= s, got s={s}, r={r}, o={o}")
    val, overflow = _core(s, t, s, Fraction, object)[(r, o)]
    assert overflow == 0
    return val / 2


def _chain(s: int, T: int) -> int:
    return 4 * s * (T + 2) + T * T + 3 * T + (s + 1) ** 2 + 8 * s + 40


@lru_cache(maxsize=32)
def coco_random_weights(s: int, t: int) -> dict:
    """``{(r, o): (lo, hi)}`` enclosing ``lambda`` of every pair type under a uniformly random
    hash (module docstring); independent of eps0.  Refuses ``s > COCO_RANDOM_MAX_S``."""
    s, t = _check_st(s, t)
    if s > COCO_RANDOM_MAX_S:
        raise ValueError(f"s must be <= {COCO_RANDOM_MAX_S} for CoCo with hash_model 'random' "
                         f"(its pair weights cost O(s^3 T^3)), got s={s}")
    K = _truncation(s, t // 2)
    T = (K + 1) * (K + 2) // 2 + 1
    err = 2.0 * _chain(s, T) * 2.0 ** -53
    out = {}
    for key, (val, overflow) in _core(s, t, K, float, np.float64).items():
        lo = max(float(val) / 2 * (1.0 - err) - _ABS_ERROR, 0.0)
        hi = (float(val) + float(overflow)) / 2 * (1.0 + err) + _ABS_ERROR
        out[key] = (lo, min(hi, s / t * (1.0 + 2.0 ** -50)))
    return out


def coco_corner_law(eps0: float, s: int, t: int):
    """``((r*, o*), law)``: the pair type with the largest upper end of ``lambda`` and the
    corner law of :func:`~accountant.bounds.laws.random_hash.random_corner_law` for its
    ``[lo, hi]``, which dominates the corner law of every type (the any-hash law when the
    rounding leaves no room)."""
    w = coco_random_weights(s, t)
    key = max(w, key=lambda k: (w[k][1], -k[0], -k[1]))
    return key, random_corner_law(eps0, s, t, *w[key])
