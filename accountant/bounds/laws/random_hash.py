r"""The exact blanket under the *random-hash model*: each report's hash is a uniformly random function.

Part of :mod:`accountant.bounds.laws`.  May import: accountant.core, accountant.engines.

The model and what it is about
------------------------------
``hash_model="random"`` assumes that every report carries its own hash ``H``, drawn
independently of everything else and uniformly from *all* functions ``Y -> [t]``
(Collision: ``Y`` the ``2d`` signed items; OLH: ``[k] -> [g]``).  Every number derived
here is proved under that assumption and under no other; ``hash_model="any"`` (the
default, :func:`accountant.engines.blanket.blanket_law`) is proved for every hash family.

Blanket (Balle, Bell, Gascon, Nissim, CRYPTO 2019)
--------------------------------------------------
Collision (Definition 5), ``E = e^eps0``, ``Omega = s E + t - s``: given ``H`` and input
``x`` with image ``A = H(Y_x)``, ``m = |A| <= s``, ``P[z | x, H] = f_x(z)/Omega`` with
``f_x = E`` on ``A`` and ``r(m) = E - (t - s)(E - 1)/(t - m) >= 1`` off ``A``.  With
``omega = (law of H) x Uniform[t]`` and ``gamma = t/Omega``, ``R(x) >= gamma omega`` for
every ``x`` (every ``f_x >= 1``) and ``R(x)/(gamma omega) = f_x``.  The amplification
variable of a neighbouring pair ``(x1, x1')`` is ``L = f_x1(W) - u f_x1'(W)``,
``W = (H, z) ~ omega``, ``u = e^eps``: the image under ``(a, b) -> a - u b`` of the random
point ``Z = (a, b) = (f_x1, f_x1')(W)`` of the plane.  Given ``H`` with
``m1 = |H(Y_x1)|``, ``m2 = |H(Y_x1')|`` and overlap ``k = |H(Y_x1) cap H(Y_x1')|``, ``Z`` is

* ``(E, E)`` w.p. ``k/t``, ``(E, r(m2))`` w.p. ``(m1 - k)/t``, ``(r(m1), E)`` w.p. ``(m2 - k)/t``,
* ``(r(m1), r(m2))`` w.p. ``(t - m1 - m2 + k)/t``;

mixed over the law of ``(m1, k, m2)`` under a uniformly random ``H``, which depends only
on ``s``, ``t`` and the number ``r`` of items ``Y_x1`` and ``Y_x1'`` share
(:func:`collision_image_law`: a dynamic programme over the items, shared ones first).
BBGN19's bound then reads ``delta(eps) <= E[(sum_{i <= M} L_i)_+] / (gamma n)``,
``M ~ Bin(n, gamma)``, i.e. the count law of :mod:`accountant.engines.blanket` with the
atoms of ``Z`` and a null category of mass ``1 - gamma``.

The law the engine evaluates: the four-corner law (a relaxation, proved; exact for OLH)
--------------------------------------------------------------------------------------
``Z`` has up to ``(s + 1)^2`` atoms, all in the square ``[1, E]^2`` (``1 <= r(m) <= E``).
Every point ``(a, b)`` of the square is *exactly* the mean of its four corners with weights

    ``(E, 1)``: ``(a - b)_+/(E - 1)``,   ``(1, E)``: ``(b - a)_+/(E - 1)``,
    ``(E, E)``: ``(min(a, b) - 1)/(E - 1)``,   ``(1, 1)``: ``(E - max(a, b))/(E - 1)``

(non-negative, summing to ``(|a - b| + min - max + E - 1)/(E - 1) = 1``; first coordinate,
``a >= b``: ``(E (a - b) + E (b - 1) + E - a)/(E - 1) = a``, ``a < b``:
``((b - a) + E (a - 1) + E - b)/(E - 1) = a``; the second likewise).  For every ``u``,
``v = a - u b`` is linear in the point, so replacing each atom of ``Z`` by its four-point
law keeps the mean of ``v`` and spreads it: a balayage, an increase of the per-message law
of ``L`` in the convex order.  The convex order is kept by independent sums and by the
mixture over the blanket count, and ``(.)_+`` is convex, so the blanket bound of the
corner law is >= that of ``Z``: a **proved upper bound** under the model.  Mixed over
``Z``, the corner law (per blanket draw; times ``gamma = t/Omega`` in the count law, the
null category having ``1 - gamma``) has the weights

* ``(E, 1)`` and ``(1, E)``: ``lambda = E[(a - b)_+]/(E - 1) = E[(b - a)_+]/(E - 1)``
  (equal because ``E[a] = E[b]``: given any ``H``, ``E[f_x(z)] = (m E + (t - m) r(m))/t
  = Omega/t``), i.e. ``TV(R(x1), R(x1'))/(gamma (E - 1))`` (below);
* ``(E, E)``: ``mu = E[min(a, b) - 1]/(E - 1) = (Omega/t - 1)/(E - 1) - lambda = s/t - lambda``
  (``E[min] = E[a] - E[(a - b)_+]``);
* ``(1, 1)``: ``nu = E[E - max(a, b)]/(E - 1) = 1 - s/t - lambda``.

So ``lambda <= min(s/t, 1 - s/t)``; at ``lambda = s/t`` (``t >= 2s``) or ``1 - s/t``
(``t < 2s``) it is the any-hash law.  The engine's law is
:class:`~accountant.engines.blanket.law.CornerBlanket` (its nested path,
:mod:`accountant.engines.blanket.oue`).  The three-atom law used before (``(E, E)`` mass
moved to ``(1, 1)``: ``E (1 - u) <= 1 - u``, a pointwise increase) dominates the corner
law, so the corner law's bound is never above it.

*Monotone in lambda.*  Raising ``lambda`` by ``d`` (``mu`` and ``nu`` down by ``d``) moves
``d`` of ``(E, E)`` mass and ``d`` of ``(1, 1)`` mass onto ``(E, 1)`` and ``(1, E)``: the
same total mean ``(E + 1)(1 - u) d`` and the new values ``E - u >= max(E (1 - u), 1 - u)``,
``1 - uE <= min(E (1 - u), 1 - u)`` enclose the old ones, so (two two-point laws with one
mean, the second's support enclosing the first's) it is a convex-order increase.  The bound
of the corner law is therefore non-decreasing in ``lambda``.

*Exact for OLH.*  ``s = 1``: ``r(1) = E - (t - 1)(E - 1)/(t - 1) = 1``, so every atom of
``Z`` is a corner and the corner law *is* the random-hash blanket law:
``lambda = (1 - 1/g)/g``, ``mu = 1/g^2`` (both values hash to ``z``), ``nu = 1 - 1/g - lambda``.

The total variation has a closed form per hash (no cancellation):
``lambda = ((t - s)/t) E[g]`` with
``g = (m1 - k)/(t - m2) + (t - m1 - m2 + k)(m2 - m1)_+ / ((t - m1)(t - m2))``
(``E - r(m2) = (t - s)(E - 1)/(t - m2)``, ``r(m1) - r(m2) = (t - s)(E - 1)(m2 - m1)/((t - m1)(t - m2))``).
It depends on ``eps0`` only through ``Omega``.  Clean check: ``m1 = m2 = s``, ``k = 0``
gives ``lambda = s/t`` (the any-hash law).

*The weight in closed form given j, a, w* (what :func:`collision_random_weights` computes,
``O(s^3)`` for all ``r`` at once; the law of ``(m1, k, m2)``, :func:`collision_image_law`,
costs ``O(s^4)`` per ``r`` and is kept as the reference of the tests).  Write ``S`` for the
``r`` shared items, ``A`` and ``B`` for the ``s - r`` items of ``x1`` only and of ``x1'``
only, ``j = |H(S)|``, ``a = |H(A) minus H(S)|``, ``w = |H(B) minus H(S)|``, ``T = t - j``.
Given ``H`` on ``S``, the hashes of ``A`` and ``B`` are independent and uniform, so ``a``
and ``w`` are i.i.d. (the number of new values among ``s - r`` uniform draws from ``[t]``
with ``j`` values taken), and given ``(j, a, w)`` the set ``H(B) minus H(S)`` is a uniform
``w``-subset of the ``T`` values outside ``H(S)``, independent of ``H(A) minus H(S)``: the
overlap ``h = k - j`` is hypergeometric with mean ``a w / T``.  With ``m1 = j + a``,
``m2 = j + w``, ``g`` is affine in ``k``, so ``E[g | j, a, w]`` is ``g`` at
``k = j + a w/T``: ``m1 - k = a (T - w)/T``, ``t - m2 = T - w``,
``t - m1 - m2 + k = (T - a)(T - w)/T``, ``t - m1 = T - a`` (``T - a, T - w >= 1`` since
``t >= s + 1``), and ``g = a/T + (w - a)_+/T = max(a, w)/T``.  Hence

    ``lambda(r) = ((t - s)/t) sum_j P_r(j) E[max(A, W) | j] / (t - j)``,

``P_r`` the law of the image size of ``r`` uniform draws, and
``E[max(A, W)] = sum_a q(a) (a C(a) + D(a))``, ``C(a) = sum_{w <= a} q(w)``,
``D(a) = sum_{w > a} w q(w)``.  ``P_r`` comes from one pass over ``r``, ``q`` for every
``j`` from one pass over ``n = s - r`` (its value after ``n`` draws is the one of
``r = s - n``).  Checked against exact fractions of the full law (tests).

*Rounding of the weight.*  Every quantity above is a sum of products of non-negative
floats (``T - a``, ``t - j`` are exact integers): the chain of roundings behind one term
has fewer than ``3 r`` operations for ``P_r``, ``3 n`` for ``q``, ``2 (n + 1)`` for ``C``
and ``D``, ``r + 1`` for the last sum and a few more, below ``12 s + 20`` in all, so the
relative error is below ``gamma_{12 s + 20} <= (16 s + 64) 2^-52``; products below the
normal range add an absolute error, covered by ``_ABS_ERROR``.

*Rounding of the law* (:func:`random_corner_law`).  With ``lambda in [lo, hi]`` (hi clamped
to ``min(s/t, 1 - s/t)``, lo to hi) and ``gamma`` in ``[gl, gh]`` (the float quotient with
a relative margin ``2^-48``), exact rational arithmetic on these floats gives
``q10 = gh hi`` rounded up, ``dmax = q10 - gl lo`` (>= ``q10 - gamma lambda =: d >= 0``),
``q11 = gl (s/t - hi) - dmax`` and ``q00 = gl (1 - s/t - hi) - dmax``, both rounded down.
The true count law reaches the rounded one by increases only: move ``d`` of its ``(E, E)``
mass ``gamma mu >= q11 + dmax`` and ``d`` of its ``(1, 1)`` mass ``gamma nu >= q00 + dmax``
to the pair (the balayage of *Monotone in lambda*), then the excess ``(E, E)`` mass to
``(1, 1)`` (``E (1 - u) <= 1 - u``) and the excess ``(1, 1)`` mass to the null atom
(``1 - u <= 0``): pointwise increases.  (The pair's mass is never raised by taking mass from
the null atom alone: that is not a convex-order increase.)  When ``q11 <= 0`` or
``q00 <= 0`` (no room for the rounding), the any-hash law is used, proved for every hash.

*Which pair.*  Under the model the law depends on the pair only through ``r``
(``0 <= r <= s - 1``).  By *Monotone in lambda* the worst type is the one with the largest
weight: with ``r*`` the type of the largest ``hi`` (``[lo*, hi*]`` its enclosure), every
``lambda(r) <= hi*`` is either ``<= lambda(r*)`` (dominated by the ``r*`` law) or in
``[lo*, hi*]``, and the law rounded from ``[lo*, hi*]`` dominates every corner law with
weight in that interval: one law, no search over the types
(:func:`collision_corner_law`).  ``s`` is limited to ``RANDOM_HASH_MAX_S``
(``accountant.core.limits``): the weights cost ``O(s^3)``.

OLH: Collision with ``s = 1`` and ``t = g``; ``r = 0``, ``m1 = m2 = 1``, ``k = 1`` w.p.
``1/g`` (the two values collide and the reports have the same law), so
``lambda = (1 - 1/g)/g`` exactly, and the corner law is the exact random-hash blanket law.

CoCo: its hash is a pair ``(H1, H2)`` and inputs may share a coordinate with opposite
signs (same bucket pair, roles swapped); the same corner law applies with its own weight
``lambda(r, o)``, derived in :mod:`accountant.bounds.laws.coco_random`.
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

from accountant.core.params import mechanism_names
from accountant.engines.blanket.law import CornerBlanket, CountLaw

HASH_MODELS = ("any", "random")
ASSUMPTION = {"any": "every hash family",
              "random": "each report's hash is a uniformly random function"}
RANDOM_MECHANISMS = mechanism_names(random_hash=True)


def check_hash_model(hash_model, mechanism: str | None = None) -> str:
    """``hash_model`` in ``("any", "random")``; ``"random"`` only for Collision, CoCo and OLH."""
    if hash_model not in HASH_MODELS:
        raise ValueError(f"hash_model must be 'any' or 'random', got {hash_model!r}")
    if hash_model == "random" and mechanism is not None and mechanism not in RANDOM_MECHANISMS:
        raise ValueError(f"hash_model 'random' is available for collision, coco and olh only, "
                         f"got mechanism '{mechanism}'")
    return hash_model


def _check_st_r(s, t, r) -> tuple[int, int, int]:
    for name, v, lo in (("s", s, 1), ("t", t, 2), ("r", r, 0)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
    if t < s + 1:
        raise ValueError(f"t must be >= s + 1, got s={s}, t={t}")
    if r > s - 1:
        raise ValueError(f"r must lie in [0, s - 1] = [0, {s - 1}], got {r}")
    return int(s), int(t), int(r)


def collision_image_law(s: int, t: int, r: int, exact: bool = False):
    """Law of ``(m1, k, m2)`` (image sizes of ``Y_x1``, ``Y_x1'`` and their overlap) for a
    uniformly random ``H: Y -> [t]``, ``|Y_x1| = |Y_x1'| = s``, ``r`` shared items.

    ``exact=True``: a dict ``{(m1, k, m2): Fraction}``; otherwise a float array
    ``P[m1, k, m2]`` of shape ``(s + 1,) * 3``.  Items are hashed one at a time: the ``r``
    shared items (each a new value w.p. ``(t - occupied)/t``), then the ``s - r`` items of
    ``x1`` only, then the ``s - r`` of ``x1'`` only (a new value raises ``m2``; a value of
    ``H(Y_x1)`` not yet in ``H(Y_x1')`` raises ``k`` and ``m2``).
    """
    s, t, r = _check_st_r(s, t, r)
    if exact:
        st = {(0, 0, 0): Fraction(1)}

        def step(st, f):
            new: dict = {}
            for key, w in st.items():
                for nk, pw in f(*key):
                    if pw:
                        new[nk] = new.get(nk, 0) + w * pw
            return new
        for _ in range(r):
            st = step(st, lambda m1, k, m2: (((m1 + 1, k + 1, m2 + 1), Fraction(t - m1, t)),
                                             ((m1, k, m2), Fraction(m1, t))))
        for _ in range(s - r):
            st = step(st, lambda m1, k, m2: (((m1 + 1, k, m2), Fraction(t - m1, t)),
                                             ((m1, k, m2), Fraction(m1, t))))
        for _ in range(s - r):
            st = step(st, lambda m1, k, m2: (((m1, k + 1, m2 + 1), Fraction(m1 - k, t)),
                                             ((m1, k, m2 + 1), Fraction(t - m1 - m2 + k, t)),
                                             ((m1, k, m2), Fraction(m2, t))))
        return st
    S = s + 1
    P = np.zeros((S, S, S))
    P[0, 0, 0] = 1.0
    idx = np.arange(S, dtype=np.float64)
    m1 = idx[:, None, None]
    k = idx[None, :, None]
    m2 = idx[None, None, :]
    for _ in range(r):  # shared item: m1 = k = m2 = j
        d = np.diagonal(np.diagonal(P, axis1=0, axis2=1), axis1=0, axis2=1).copy()
        j = idx
        nd = d * (j / t)
        nd[1:] += d[:-1] * ((t - j[:-1]) / t)
        P = np.zeros_like(P)
        P[np.arange(S), np.arange(S), np.arange(S)] = nd
    for _ in range(s - r):  # item of x1 only
        new = P * (m1 / t)
        new[1:] += P[:-1] * ((t - m1[:-1]) / t)
        P = new
    for _ in range(s - r):  # item of x1' only
        new = P * (m2 / t)
        new[:, 1:, 1:] += P[:, :-1, :-1] * (np.maximum(m1 - k[:, :-1, :], 0.0) / t)
        new[:, :, 1:] += P[:, :, :-1] * np.maximum(t - m1 - m2[:, :, :-1] + k, 0.0) / t
        P = new
    return P


def _g(m1, k, m2, t):
    """Per-hash ``TV * Omega / ((E - 1)(t - s))`` (see the module docstring)."""
    out = (m1 - k) / (t - m2)
    if m2 > m1:
        out += (t - m1 - m2 + k) * (m2 - m1) / ((t - m1) * (t - m2))
    return out


def collision_random_weight_exact(s: int, t: int, r: int) -> Fraction:
    """``lambda = TV / (gamma (E - 1))`` as a Fraction (small ``s``, tests)."""
    s, t, r = _check_st_r(s, t, r)
    law = collision_image_law(s, t, r, exact=True)
    Eg = sum(w * _g(Fraction(m1), Fraction(k), Fraction(m2), t) for (m1, k, m2), w in law.items())
    return Fraction(t - s, t) * Eg


def _rel_error_weights(s: int) -> float:
    """Relative error bound of :func:`collision_random_weights` (module docstring, *Rounding
    of the weight*): every quantity is a sum of products of non-negative floats whose
    rounding chain has fewer than ``12 s + 20`` operations; ``gamma_m = m u/(1 - m u)``,
    ``u = 2^-53``, is below ``(16 s + 64) 2^-52`` for every ``s <= RANDOM_HASH_MAX_S``."""
    return (16.0 * s + 64.0) * 2.0 ** -52


# absolute slack for products that land below the normal range (each such rounding errs by
# at most 2^-1075; fewer than 2^40 of them, each multiplied by at most s + 1 <= 2^12)
_ABS_ERROR = 2.0 ** -1020

# largest s for which hash_model="random" is computed: the weights cost O(s^3) float
# operations (one law then serves every pair type);
# kept in accountant.core.limits (RANDOM_HASH_MAX_S), re-exported here
from accountant.core.limits import RANDOM_HASH_MAX_S  # noqa: E402


@lru_cache(maxsize=64)
def collision_random_weights(s: int, t: int) -> tuple[tuple[float, float], ...]:
    """``((lo, hi) for r = 0..s-1)`` enclosing ``lambda(r) = TV / (gamma (E - 1))`` under a
    uniformly random hash, ``r`` shared items, all ``r`` at once in ``O(s^3)`` operations
    and ``O(s^2)`` memory (module docstring, *The weight in closed form given j, a, w*):
    ``lambda(r) = ((t - s)/t) sum_j P_r(j) E[max(A, W) | j] / (t - j)``.
    Refuses ``s > RANDOM_HASH_MAX_S``."""
    s, t, _ = _check_st_r(s, t, 0)
    if s > RANDOM_HASH_MAX_S:
        raise ValueError(f"s must be <= {RANDOM_HASH_MAX_S} with hash_model 'random' "
                         f"(the random-hash weights cost O(s^3)), got s={s}")
    if s == 1:
        lam = (1.0 - 1.0 / t) / t
        return ((lam * (1.0 - 4.0 * 2.0 ** -52), lam * (1.0 + 4.0 * 2.0 ** -52)),)
    S = s + 1
    jj = np.arange(S, dtype=np.float64)
    # P[r, j]: law of j = |H(first r items)|
    P = np.zeros((S, S))
    P[0, 0] = 1.0
    for r in range(1, S):
        P[r] = P[r - 1] * (jj / t)
        P[r, 1:] += P[r - 1, :-1] * ((t - jj[:-1]) / t)
    # Q[j, a]: law of a = number of new values among n hashed items, j values occupied;
    # after n steps it is needed for j <= r = s - n only, so the rows shrink as n grows
    Q = np.zeros((S, S))
    Q[:, 0] = 1.0
    err = _rel_error_weights(s)
    out: list = [None] * s
    for n in range(1, S):
        rows = S - n + 1                                     # j <= s - n + 1 needed at step n - 1..n
        Jc = jj[:rows, None]
        A = jj[None, :n]
        q = Q[:rows, :n]
        new = np.zeros((rows, n + 1))
        new[:, :n] = q * ((Jc + A) / t)
        new[:, 1:] += q * (np.maximum(t - Jc - A, 0.0) / t)
        Q = new
        r = s - n
        q = Q[:r + 1]                                        # j = 0..r, a = 0..n
        a = jj[:n + 1]
        C = np.cumsum(q, axis=1)                             # P(W <= a)
        D = np.zeros_like(q)
        D[:, :-1] = np.cumsum((q * a)[:, :0:-1], axis=1)[:, ::-1]  # sum_{w > a} w q(w)
        emax = np.sum(q * (a * C + D), axis=1)               # E[max(A, W) | j]
        lam = (t - s) / t * float(np.sum(P[r, :r + 1] * (emax / (t - jj[:r + 1]))))
        out[r] = (max(lam * (1.0 - err) - _ABS_ERROR, 0.0), lam * (1.0 + err) + _ABS_ERROR)
    return tuple(out)


def collision_random_weight(s: int, t: int, r: int) -> tuple[float, float]:
    """``(lo, hi)`` enclosing ``lambda = TV(R(x1), R(x1')) / (gamma (E - 1))`` under a
    uniformly random hash, ``r`` shared items (independent of eps0)."""
    s, t, r = _check_st_r(s, t, r)
    return collision_random_weights(s, t)[r]


def _down(x: Fraction) -> float:
    f = float(x)
    return f if Fraction(f) <= x else math.nextafter(f, -math.inf)


def _up(x: Fraction) -> float:
    f = float(x)
    return f if Fraction(f) >= x else math.nextafter(f, math.inf)


# relative margin on gamma = t/(s E + t - s) in float (exp within 1 ulp, three roundings)
_GAMMA_REL = Fraction(1, 2**48)


def random_corner_law(eps0: float, s: int, t: int, lo: float, hi: float) -> "CornerBlanket | CountLaw":
    """The count law dominating every corner law with weight ``lambda in [lo, hi]`` (module
    docstring, *Rounding of the law*): a :class:`CornerBlanket` with ``p10 >= gamma hi``,
    ``p11 <= gamma (s/t - hi) - dmax``, ``p00 <= gamma (1 - s/t - hi) - dmax``,
    ``dmax >= p10 - gamma lo``; the any-hash law when the rounding leaves no room."""
    s, t, _ = _check_st_r(s, t, 0)
    for name, v in (("lo", lo), ("hi", hi)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.floating)) or not math.isfinite(v) or v < 0:
            raise ValueError(f"{name} must be a finite number >= 0, got {v!r}")
    if lo > hi:
        raise ValueError(f"need lo <= hi, got lo={lo!r}, hi={hi!r}")
    any_hash = CountLaw.collision_blanket(eps0, s, t)  # validates eps0
    E = math.exp(eps0)
    g = Fraction(t / (s * E + t - s))
    gl, gh = g * (1 - _GAMMA_REL), g * (1 + _GAMMA_REL)
    st = Fraction(s, t)
    H = min(Fraction(hi), st, 1 - st)   # lambda <= min(s/t, 1 - s/t): mu, nu >= 0
    L = min(Fraction(lo), H)
    if H == 0:
        return any_hash
    q10 = _up(gh * H)
    dmax = Fraction(q10) - gl * L
    q11 = gl * (st - H) - dmax
    q00 = gl * (1 - st - H) - dmax
    if q11 <= 0 or q00 <= 0:
        return any_hash
    return CornerBlanket(eps0, p10=q10, p00=_down(q00), p11=_down(q11))


def collision_corner_law(eps0: float, s: int, t: int) -> tuple[int, "CornerBlanket | CountLaw"]:
    """``(r*, law)``: the pair type with the largest weight (largest ``hi``) and the law of
    :func:`random_corner_law` for its ``[lo, hi]``, which dominates the corner law of every
    type (module docstring, *Which pair*)."""
    w = collision_random_weights(s, t)
    r = max(range(len(w)), key=lambda i: (w[i][1], -i))
    return r, random_corner_law(eps0, s, t, *w[r])
