"""Concrete Collision datasets under random hashing and the laws of their shuffled counts.

Part of :mod:`accountant.bounds.laws`; the package docstring has the mathematics.
"""
from __future__ import annotations
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
import mpmath
from accountant.bounds.laws.count_law import CountLaw, MP_DPS, check_law_eps0, check_eps_list, check_law_int, to_mpf, count_law_delta_float


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
        check_law_int("s", self.s, 1)
        check_law_int("r", self.r, 0, self.s - 1)
        check_law_int("o1", self.o1, 0, self.s - self.r)
        check_law_int("o2", self.o2, 0, self.s - self.r)
        check_law_int("o12", self.o12, 0, self.r)
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
    t = check_law_int("t", t, ds.s + 1)
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
    e = check_law_eps0(eps0)
    s = ds.s
    t = check_law_int("t", t, s + 1)
    law = venn_count_law(ds, t)
    acc: dict = {}
    with mpmath.workdps(MP_DPS):
        E = mpmath.exp(mpmath.mpf(e))
        om = s * E + t - s
        for st, w in law.items():
            wm = to_mpf(w)
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


def count_law_from_categories(P1, P1p, P0, name) -> CountLaw:
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
    with mpmath.workdps(MP_DPS):
        return count_law_from_categories(P["x1"], P["x1p"], P["x0"], f"lower collision {ds} {categories}")


def krr_lower_count_law(eps0: float, k: int, x0: str = "third") -> CountLaw:
    """Exact count law of k-RR for ``D = (1, x0, ..., x0)``, ``D' = (2, x0, ..., x0)``.

    ``x0 = "third"`` (value 3, needs ``k >= 3``): categories ``y = 1, 2, 3, >3`` (the
    output is sufficient up to relabelling of ``>3``), ``v = (E-u, 1-uE, (1-u)/E, 1-u)``
    with ``p = (1, 1, E, k-3)/(E+k-1)``.  ``x0 = "x1"``: categories ``y = 1, 2, >2``,
    ``p = (E, 1, k-2)/(E+k-1)``, ``v = (1 - u/E, E - u, 1 - u)``.  Both are exact
    divergences of those dataset pairs (the output is sufficient).
    """
    e = check_law_eps0(eps0)
    k = check_law_int("k", k, 2)
    with mpmath.workdps(MP_DPS):
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
        return count_law_from_categories(P1, P1p, P0, f"lower krr k={k} x0={x0}")


def collision_dataset_candidates(s: int, max_r: int = 1) -> list:
    """Every :class:`CollisionDatasets` with ``r = |Y_x1 cap Y_x1'| <= min(max_r, s - 1)``."""
    s = check_law_int("s", s, 1)
    max_r = check_law_int("max_r", max_r, 0)
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
    eps = check_eps_list(eps)
    best = [(-1.0, None)] * len(eps)
    for ds in collision_dataset_candidates(s, max_r):
        vals = count_law_delta_float(n, collision_lower_count_law(eps0, t, ds, categories), eps)
        best = [max(b, (float(v) * (1 - 1e-9), ds), key=lambda z: z[0]) for b, v in zip(best, vals)]
    return best
