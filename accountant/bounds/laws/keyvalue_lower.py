"""Certified lower bounds of the key-value baselines (PCKV-GRR, PCKV-AGRR, PCKV-UE, PrivKV): one dataset pair each.

Datasets ``D = (X1, X0, ..., X0)`` and ``D' = (X1', X0, ..., X0)`` of key-value sets (labels of
:func:`accountant.core.keyvalue.keyvalue_label`).  Each report is sorted into a category that is
a function of the report alone (post-processing), so the exact divergence of the category counts
(:func:`accountant.bounds.laws.collision_lower.count_law_from_categories`, mpmath, evaluated by
the certified count-law engines) is a lower bound on the mechanism's delta.  Three categories
(A, B, rest) where X0 gives A and B the same mass, else two (A, rest).  ``E = e^eps0``:

* PCKV-GRR: with PCKV's allocation a set X reports item y of the 2d pairs w.p.
  ``(1 + (E - 1) [y in X] / s) / (E + 2d - 1)``.  X1 = keys 0..s-1 with +1, X1' = the same keys
  with -1; d >= 2s: X0 = keys s..2s-1 with +1, A / B = the report is a pair of X1 / X1';
  d < 2s: X0 = X1, A = a pair of X1.
* PCKV-AGRR: a set X reports item y w.p. ``(1 + (E - 1) [y in X]) / (s E + 2d - s)``; the sets and
  categories of PCKV-GRR.
* PCKV-UE: a set X reports y in {-1, 0, 1}^d w.p. ``gamma prod_i o(y_i) (1 + (E - 1) T_X(y)/s)``
  with ``T_X(y)`` the number of X's pairs (k, v) with ``y_k = v`` (docs/proved.md).  The same sets;
  A = {T_X1 > T_X1'}, B = {T_X1' > T_X1} (d >= 2s), else A alone (X0 = X1).
* PrivKV: a set X reports (j, r) w.p. ``Q(state of key j)(r) / d``.  d >= 2s: X1 = keys 0..s-1
  with +1, X1' = keys s..2s-1 with +1, X0 = keys 2s..3s-1 with +1 (d >= 3s; A = (j in X1's keys,
  r = +1), B = (j in X1''s keys, r = +1), and as a second post-processing of the same reports r != 0
  in place of r = +1), else X0 = X1 and A alone; d < 2s: X1' = X1's keys with -1, X0 = X1.
"""
from __future__ import annotations

import itertools
import math

import mpmath

from accountant.bounds.laws.collision_lower import count_law_from_categories
from accountant.bounds.laws.count_law import MP_DPS
from accountant.bounds.laws.lower import mechanism_lower
from accountant.bounds.laws.lower_law import LowerLaw
from accountant.core.keyvalue import keyvalue_label
from accountant.core.randomizers_keyvalue import PCKVAGRRParams, PCKVGRRParams, PCKVUEParams, PrivKVParams


def _sets(d: int, s: int, key_change: bool) -> tuple:
    """(X1, X1', X0) as dicts key -> sign (module docstring)."""
    x1 = {k: 1 for k in range(s)}
    if key_change:
        x1p = {k: 1 for k in range(s, 2 * s)}
        x0 = {k: 1 for k in range(2 * s, 3 * s)} if d >= 3 * s else dict(x1)
    else:
        x1p = {k: -1 for k in range(s)}
        x0 = {k: 1 for k in range(s, 2 * s)} if d >= 2 * s else dict(x1)
    return x1, x1p, x0


def _datasets(sets, how: str) -> str:
    x1, x1p, x0 = (keyvalue_label(sorted(x), [x[k] for k in sorted(x)]) for x in sets)
    return f"D = ({x1}, {x0}, ..., {x0}), D' = ({x1p}, {x0}, ..., {x0}) (key-value sets), {how}"


def _law(cats, name: str, sets, how: str, alternatives=()) -> LowerLaw:
    """cats: [(P_X1, P_X1', P_X0) of A, (of B)]; the rest is the complement."""
    cats = list(cats) + [tuple(1 - sum(c[i] for c in cats) for i in range(3))]
    P1, P1p, P0 = ([c[i] for c in cats] for i in range(3))
    return LowerLaw(count_law_from_categories(P1, P1p, P0, name), _datasets(sets, how), alternatives)


def pckv_grr_lower(params) -> LowerLaw:
    """PCKV-GRR's and PCKV-AGRR's datasets and categories (module docstring)."""
    d, s = params.d, params.s
    sets = _sets(d, s, key_change=False)
    with mpmath.workdps(MP_DPS):
        E = mpmath.exp(mpmath.mpf(params.eps0))
        if isinstance(params, PCKVAGRRParams):  # each of X's s pairs at E / om, the others at 1 / om
            om = s * E + 2 * d - s
            hit, miss = s * E / om, s / om
        else:
            om = E + 2 * d - 1
            hit, miss = (s + E - 1) / om, s / om
        if d >= 2 * s:
            cats = [(hit, miss, miss), (miss, hit, miss)]
            how = "each report sorted into: a pair of X1, a pair of X1', other"
        else:
            cats = [(hit, miss, hit)]
            how = "each report sorted into: a pair of X1, other"
        return _law(cats, f"lower {params.name} d={d} s={s}", sets, how)


def pckv_ue_lower(params) -> LowerLaw:
    """PCKV-UE's datasets and categories (module docstring)."""
    d, s = params.d, params.s
    sets = _sets(d, s, key_change=False)
    with mpmath.workdps(MP_DPS):
        E = mpmath.exp(mpmath.mpf(params.eps0))
        half = 1 / (E + 3)                  # b / 2, b = 2/(E + 3)
        gamma = (E + 3) / (2 * (E + 1))
        A, B = [mpmath.mpf(0)] * 3, [mpmath.mpf(0)] * 3
        for t1, t1p in itertools.product(range(s + 1), repeat=2):
            if t1 + t1p > s or t1 == t1p:
                continue
            # keys 0..s-1 under the product law o: t1 say +1, t1p say -1, the rest 0
            po = (mpmath.factorial(s) / (mpmath.factorial(t1) * mpmath.factorial(t1p) * mpmath.factorial(s - t1 - t1p))
                  * half ** (t1 + t1p) * (1 - 2 * half) ** (s - t1 - t1p))
            # X0 on other keys: E_o[1 + (E - 1) T_X0 / s] = 1/gamma; X0 = X1: T_X0 = t1
            t0 = None if d >= 2 * s else t1
            row = tuple(gamma * po * (1 + (E - 1) * t / s) if t is not None else po for t in (t1, t1p, t0))
            tgt = A if t1 > t1p else B
            for i in range(3):
                tgt[i] += row[i]
        if d >= 2 * s:
            cats, how = [tuple(A), tuple(B)], "each report sorted into: repeats more pairs of X1 than of X1', fewer, as many"
        else:
            cats, how = [tuple(A)], "each report sorted into: repeats more pairs of X1 than of X1', or not"
        return _law(cats, f"lower pckv-ue d={d} s={s}", sets, how)


def privkv_lower(params) -> LowerLaw:
    """PrivKV's datasets and categories (module docstring)."""
    d, s = params.d, params.s
    sets = _sets(d, s, key_change=d >= 2 * s)
    with mpmath.workdps(MP_DPS):
        p = 1 / (1 + mpmath.exp(-mpmath.mpf(params.eps0) / 2))
        f = mpmath.mpf(s) / d
        # P(r = +1 | key j), P(r != 0 | key j) by the state of j: held +1, held -1, missing
        plus = {1: p * p, -1: p * (1 - p), None: (1 - p) / 2}
        some = {1: p, -1: p, None: 1 - p}
        x1, x1p, x0 = sets
        keys_a, keys_b = sorted(x1), sorted(x1p)

        def cats(q, three):
            a = tuple(f * q[x.get(keys_a[0])] for x in sets)
            if not three:
                return [a]
            return [a, tuple(f * q[x.get(keys_b[0])] for x in sets)]

        three = d >= 3 * s
        how = ("each report sorted into: (a key of X1, r = +1), (a key of X1', r = +1), other"
               if three else "each report sorted into: (a key of X1, r = +1), other")
        name = f"lower privkv d={d} s={s}"
        alt = ()
        if three:
            alt = (_law(cats(some, True), name + " r != 0", sets, how).law,)
        return _law(cats(plus, three), name, sets, how, alt)


# the key-value baselines' datasets, registered beside their laws (accountant.bounds.laws.lower)
for _cls, _fn in ((PCKVGRRParams, pckv_grr_lower), (PCKVAGRRParams, pckv_grr_lower), (PCKVUEParams, pckv_ue_lower),
                 (PrivKVParams, privkv_lower)):
    mechanism_lower.register(_cls)(lambda params, fn=_fn: (fn(params), None))
