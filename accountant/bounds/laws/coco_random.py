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
``(1, up, 0, 0)``, of ``x1'`` ``(0, 0, 1, up)``.  :func:`coco_random_weights` computes
this law exactly as a ``T x T`` matrix ``D`` (``T`` the states ``0 <= u <= c <= K`` of one
side plus one *overflow* state for ``c > K``).  One side's moves are the matrices ``Up``,
``Dn`` (``(c, u) -> (c + 1, u + 1)``, ``(c + 1, u)``; overflow absorbing) and
``P = (1 - 1/h) I + (1/(2h)) (Up + Dn)``: ``P^i e_0`` is the law of ``(c, u)`` given by
``i`` coordinates.  The ``r`` same-sign shared coordinates give ``(cr, UR) ~ P^r e_0``
and put ``(cr, UR)`` on both sides, the ``o`` opposite-sign ones ``(co, UO) ~ P^o e_0``
and put ``(co, UO)`` on ``x1``'s side and ``(co, co - UO)`` on ``x1'``'s (independent
parts: the shared law ``D_sh`` is the image of ``P^r e_0 (P^o e_0)^T`` under the index
maps ``(cr + co, UR + UO)``, ``(cr + co, UR + co - UO)``); the ``n`` own coordinates of
each side then give ``D = P^n D_sh (P^n)^T``.  ``E[c] = sum D * V = sum D_sh * W_n`` with
the adjoint ``W_n = (P^n)^T V P^n``: one ``W_n`` for every ``n``, then one vector-matrix-
vector contraction per type.  An overflow state is given the value 1 in the upper end (a
pair's contribution is at most the sum of ``g1`` over it, ``<= 1``) and 0 in the lower
end.  An overflow needs ``c1 > K`` or ``c2 > K`` (every partial count is below the total).  ``K = s`` (exact: no overflow) for ``s <= 12``; above,
the smallest ``K`` with ``2 C(s, K + 1)/h^(K + 1) <= 1e-13`` (``P[c1 > K] <= C(s, K + 1)
h^-(K + 1)``), so the two ends differ by at most ``1e-13/2`` in ``lambda``.

:func:`coco_random_weight_exact` runs the same code on ``Fraction`` arrays with ``K = s``:
the exact ``lambda``, checked in the tests against brute-force enumeration of all hash
functions of tiny instances (and the float ends against it).

*Rounding.*  Every value of the table is an exact fraction rounded once (``1 - 2 phi(m) =
(t - 2s)/(t - 2m)``, ``phi(m1) - phi(m2) = (t - 2s)(m2 - m1)/((t - 2 m1)(t - 2 m2))``,
``phi - min/c`` and ``|u1 c2 - u2 c1|/(c1 c2)`` over integers), every probability a sum of
products of non-negative floats (``1/h``, ``(h - 1)/h``, ``j/hp``, ``(hp - j)/hp`` rounded
once; ``1/(2h)`` exact from ``1/h``).  Chains of roundings: ``P^k`` at most ``k (T + 2)``
(``k`` products of length-``T`` dot products); the table ``V`` at most ``4 s + 3`` (the
image law ``I``: three per draw); ``W_n`` at most ``2 T + 2 s (T + 2) + 4 s + 3``; the
contraction with ``P^r e_0``, ``P^o e_0`` adds ``2 s (T + 2) + 2 T + 1``; the empty-pair
term (``P^r[0, 0] P^o[0, 0] P^n[0, 0]^2`` times the free-pair value: image laws ``3 s``
each, the ``(s + 1)``-term quadratic form, the sum over ``j``) at most
``2 s (T + 2) + 10 s + 13``.  All are below ``N = 6 s (T + 4) + 4 T + 100``, so the relative
error is below ``gamma_N <= 2 N 2^-53``; products below the normal range add at most
``2^-1000`` in all.

*Which pair.*  All ``(r, o)`` types are computed (``O(s^2)`` of them: ``O(s)`` products of
``T x T`` matrices, ``O(s^2)`` contractions, ``O(s^4)`` for the free-pair values); the law
of the largest upper end dominates every type
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


def _zeros(shape, num, dtype):
    out = np.zeros(shape, dtype=dtype)
    if dtype is object:
        out[...] = num(0)
    return out


def _image_rows(count: int, hp: int, start: int, num, dtype) -> np.ndarray:
    """``L[i, j]`` = P[``j`` values occupied after ``i`` uniform draws from ``hp`` values,
    starting from ``start`` occupied], ``i = 0..count``, ``j = 0..start + count``."""
    width = start + count + 1
    stay = np.array([num(Fraction(j, hp)) for j in range(width)], dtype=dtype)
    new = np.array([num(Fraction(max(hp - j, 0), hp)) for j in range(width)], dtype=dtype)
    L = _zeros((count + 1, width), num, dtype)
    L[0, start] = num(1)
    for i in range(1, count + 1):
        L[i] = L[i - 1] * stay
        L[i, 1:] = L[i, 1:] + L[i - 1, :-1] * new[:-1]
    return L


def _side_states(K: int):
    """Index of ``(c, u)``, ``0 <= u <= c <= K``, and of the overflow state (last)."""
    idx = {}
    for c in range(K + 1):
        for u in range(c + 1):
            idx[(c, u)] = len(idx)
    return idx, len(idx)


def _side_powers(s: int, t: int, K: int, num, dtype):
    """``(idx, ov, T, powers)``: the states of one side, the overflow state, their number and
    ``P^i``, ``i = 0..s`` (``P^i e_0`` is the law of ``(c, u)`` given by ``i`` coordinates)."""
    h = t // 2
    idx, ov = _side_states(K)
    T = ov + 1
    up = _zeros((T, T), num, dtype)
    dn = _zeros((T, T), num, dtype)
    for (c, u), i in idx.items():
        up[idx[(c + 1, u + 1)] if c < K else ov, i] = num(1)
        dn[idx[(c + 1, u)] if c < K else ov, i] = num(1)
    up[ov, ov] = dn[ov, ov] = num(1)
    p = num(Fraction(1, h))
    q = num(Fraction(h - 1, h))
    half_p = p / 2
    eye = _zeros((T, T), num, dtype)
    for i in range(T):
        eye[i, i] = num(1)
    P = q * eye + half_p * (up + dn)
    powers = [eye]
    for _ in range(s):
        powers.append(P.dot(powers[-1]))
    return idx, ov, T, powers


def _shared_maps(idx: dict, ov: int, T: int, K: int) -> tuple:
    """``(J1, J2)``: the states of ``x1``'s and ``x1'``'s side given by the same-sign part
    ``(cr, UR)`` and the opposite-sign part ``(co, UO)`` of the shared coordinates."""
    J1 = np.full((T, T), ov, dtype=np.int64)
    J2 = np.full((T, T), ov, dtype=np.int64)
    for (cr, ur), iR in idx.items():
        for (co, uo), iO in idx.items():
            if cr + co <= K:
                J1[iR, iO] = idx[(cr + co, ur + uo)]
                J2[iR, iO] = idx[(cr + co, ur + co - uo)]
    return J1, J2


def _core(s: int, t: int, K: int, num, dtype):
    """``{(r, o): (E[c] with overflow valued 0, overflow mass)}`` for every pair type."""
    h = t // 2
    hp = h - 1
    idx, ov, T, powers = _side_powers(s, t, K, num, dtype)

    def phi(m):
        return Fraction(s - m, t - 2 * m)

    # value table (pair 1 not empty); the empty state gets the free-pair value per type
    I = list(_image_rows(s, hp, 0, num, dtype)[s])
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

    # free-pair value 2 (phi(m1) - phi(m2))_+ = 2 (t - 2s)(m2 - m1)_+/((t - 2 m1)(t - 2 m2))
    dphi = _zeros((s + 1, s + 1), num, dtype)
    for m1 in range(s + 1):
        for m2 in range(m1 + 1, s + 1):
            dphi[m1, m2] = num(Fraction(2 * (t - 2 * s) * (m2 - m1), (t - 2 * m1) * (t - 2 * m2)))
    Pk = _image_rows(s, hp, 0, num, dtype)          # Pk[k, j]: image of k shared coordinates
    Q = [_image_rows(s - j, hp, j, num, dtype) for j in range(s + 1)]  # Q[j][n, m]: n own, j taken

    def free_value(k: int):
        """E[2 (phi(m1) - phi(m2))_+ | pair 1 empty], k shared coordinates: m1 = j + a,
        m2 = j + w, a and w i.i.d. given j."""
        n = s - k
        tot = num(0)
        for j in range(k + 1):
            q = Q[j][n][: j + n + 1]
            tot = tot + Pk[k, j] * q.dot(dphi[: j + n + 1, : j + n + 1]).dot(q)
        return tot

    free = [free_value(k) for k in range(s + 1)]
    # the same-sign and the opposite-sign shared coordinates have the side law (c, u) of
    # P^r e_0 and P^o e_0; together they put (cr + co, UR + UO) on x1's side and
    # (cr + co, UR + co - UO) on x1''s (overflow when either part or the sum exceeds K)
    J1, J2 = _shared_maps(idx, ov, T, K)
    Vov = np.zeros((T, T), dtype=dtype)
    if dtype is object:
        Vov[:] = num(0)
    Vov[ov, :] = num(1)
    Vov[:, ov] = num(1)
    out = {}
    side = [powers[i][:, 0] for i in range(s + 1)]      # side law (c, u) of i coordinates
    for n in range(s + 1):
        # the n own coordinates of each side, applied to the values (adjoint): D -> P^n D P^nT
        G = powers[n].T.dot(V).dot(powers[n])[J1, J2]
        Gov = powers[n].T.dot(Vov).dot(powers[n])[J1, J2]
        empty_n = powers[n][0, 0] * powers[n][0, 0]
        rs = list(range(min(s - 1, s - n) + 1))
        LR = np.array([side[r] for r in rs], dtype=dtype)
        LO = np.array([side[s - n - r] for r in rs], dtype=dtype)
        vals = (LR.dot(G) * LO).sum(axis=1)
        ovs = (LR.dot(Gov) * LO).sum(axis=1)
        for i, r in enumerate(rs):
            o = s - n - r
            out[(r, o)] = (vals[i] + LR[i, 0] * LO[i, 0] * empty_n * free[r + o], ovs[i])
    return out


def coco_random_weight_exact(s: int, t: int, r: int, o: int) -> Fraction:
    """``lambda = TV(R(x1), R(x1')) / (gamma (E - 1))`` as a Fraction for the pair type
    ``(r, o)`` (``r`` same-sign and ``o`` opposite-sign shared coordinates) under a
    uniformly random hash (small ``s``: tests; the float code of :func:`coco_random_weights`
    run on Fraction arrays with ``K = s``, no truncation)."""
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
    return 6 * s * (T + 4) + 4 * T + 100


def coco_points_error(s: int, t: int, atoms: int) -> float:
    """Relative error bound of the float masses of :func:`coco_random_points` with ``atoms``
    points: ``2 (_chain(s, T) + atoms) 2^-53``, ``T`` the side states of the truncation ``K``."""
    K = _truncation(s, t // 2)
    return 2.0 * (_chain(s, (K + 1) * (K + 2) // 2 + 1) + atoms) * 2.0 ** -53


@lru_cache(maxsize=32)
def coco_random_weights(s: int, t: int) -> dict:
    """``{(r, o): (lo, hi)}`` enclosing ``lambda`` of every pair type under a uniformly random
    hash (module docstring); independent of eps0.  Refuses ``s > COCO_RANDOM_MAX_S``."""
    s, t = _check_st(s, t)
    if s > COCO_RANDOM_MAX_S:
        raise ValueError(f"s must be <= {COCO_RANDOM_MAX_S} for CoCo with hash_model 'random' "
                         f"(its pair weights cost O(s^4)), got s={s}")
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


def coco_random_points(s: int, t: int, r: int, o: int, exact: bool = False) -> dict:
    """``{(g1, g2): mass}``: the law of ``(g_x1(z), g_x1'(z))``, ``W = (H, z) ~ omega``, for the
    pair type ``(r, o)`` under a uniformly random hash, with every atom (``f = 1 + (E - 1) g``;
    the lattice bound of :mod:`accountant.bounds.laws.random_hash_lattice`).

    By exchangeability ``z`` lies in pair 1, on its upper or lower bucket w.p. 1/2 each.  With
    ``D = P^n D_sh (P^n)^T`` the joint law of the contents ``(c1, u1), (c2, u2)`` of pair 1 (module
    docstring), the point is: both occupied, ``(u1/c1, u2/c2)`` on the upper and
    ``(1 - u1/c1, 1 - u2/c2)`` on the lower bucket; ``x1`` only, ``(u1/c1, phi(m2))`` and
    ``(1 - u1/c1, phi(m2))`` with ``m2 ~ I`` (``x1'``'s ``s`` coordinates uniform on the other
    ``h - 1`` pairs); ``x1'`` only, likewise; pair 1 empty, ``(phi(m1), phi(m2))`` on both buckets,
    ``m1 = j + a``, ``m2 = j + w`` (``j`` the image of the ``r + o`` shared coordinates, ``a, w``
    i.i.d. given ``j``, all on ``h - 1`` pairs).  An overflow state (``c > K``, ``s > 12``) is
    put at ``g = (1, 0)``, i.e. ``f = (E, 1)``: the largest ``a - u b`` of the square, a pointwise
    increase.  ``exact=True``: Fractions with ``K = s`` (tests); else floats, ``K`` of
    :func:`_truncation`, masses with relative error below ``2 (_chain(s, T) + J) 2^-53`` for
    ``J`` atoms (module docstring, *Rounding*; the merge of equal points adds ``J`` additions).
    """
    s, t = _check_st(s, t)
    if r < 0 or o < 0 or r > s - 1 or r + o > s:
        raise ValueError(f"need 0 <= r <= s - 1 and 0 <= o <= s - r, got s={s}, r={r}, o={o}")
    num, dtype = (Fraction, object) if exact else (float, np.float64)
    K = s if exact else _truncation(s, t // 2)
    hp = t // 2 - 1
    idx, ov, T, powers = _side_powers(s, t, K, num, dtype)
    J1, J2 = _shared_maps(idx, ov, T, K)
    n, k = s - r - o, r + o
    Dsh = _zeros((T, T), num, dtype)
    np.add.at(Dsh, (J1, J2), np.multiply.outer(powers[r][:, 0], powers[o][:, 0]))
    D = powers[n].dot(Dsh).dot(powers[n].T)
    frac = (lambda a, b: Fraction(a, b)) if exact else (lambda a, b: a / b)
    half = num(Fraction(1, 2))
    phi = [frac(s - m, t - 2 * m) for m in range(s + 1)]
    I = _image_rows(s, hp, 0, num, dtype)[s]
    Pk = _image_rows(k, hp, 0, num, dtype)[k]
    state = {i: cu for cu, i in idx.items()}
    pts: dict = {}

    def add(g1, g2, m):
        if m:
            pts[(g1, g2)] = pts.get((g1, g2), 0) + m

    for i1 in range(T):
        for i2 in range(T):
            d = D[i1, i2]
            if not d:
                continue
            if i1 == ov or i2 == ov:
                add(frac(1, 1), frac(0, 1), d)
                continue
            (c1, u1), (c2, u2) = state[i1], state[i2]
            if c1 and c2:
                add(frac(u1, c1), frac(u2, c2), d * half)
                add(frac(c1 - u1, c1), frac(c2 - u2, c2), d * half)
            elif c1 or c2:
                c, u = (c1, u1) if c1 else (c2, u2)
                for m in range(s + 1):
                    for g in (frac(u, c), frac(c - u, c)):
                        add(*((g, phi[m]) if c1 else (phi[m], g)), d * I[m] * half)
            else:
                for j in range(k + 1):
                    q = _image_rows(n, hp, j, num, dtype)[n]
                    for m1 in range(j, j + n + 1):
                        for m2 in range(j, j + n + 1):
                            add(phi[m1], phi[m2], d * Pk[j] * q[m1] * q[m2])
    return pts
