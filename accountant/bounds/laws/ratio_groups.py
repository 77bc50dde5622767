r"""The full report pattern of a finite randomizer's triple: outputs grouped by their likelihood
ratios, and the exact divergence of the group counts by enumeration at small n.

Part of :mod:`accountant.bounds.laws`.  May import: accountant.core, accountant.engines.

Datasets ``D = (x1, x0, ..., x0)`` and ``D' = (x1', x0, ..., x0)`` of n users, rows
``r1, r1', r0`` of the matrix (each float row divided by its exact sum: the randomizer the
accountant proves things about).  Let ``S = {y: r0(y) > 0}`` and ``Z`` the outputs outside S.

*Outside x0's support.*  A report in Z can only be user 1's, so a view (the multiset of
reports) holding y in Z has ``P_D = r1(y) Mult_{n-1}(rest; r0)`` and ``P_D' = r1'(y)
Mult_{n-1}(rest; r0)``: these views add exactly ``sum_{y in Z} (r1(y) - u r1'(y))_+`` to
``delta(eps) = sum_views (P_D - u P_D')_+`` (u = e^eps).

*Inside.*  On the views with every report in S, user 1's report is in S with the
sub-probabilities ``r1|_S``, ``r1'|_S`` and the view is the count vector N over the outputs of S,
``P_D(N) = sum_y r1(y) Mult_{n-1}(N - e_y; r0) = Mult_n(N; r0) sum_y (N_y / n) a(y)`` with
``a = r1 / r0`` (``b = r1' / r0`` for D'), so these views add
``E_{N ~ Mult(n, r0)}[(sum_y N_y (a(y) - u b(y)))_+] / n``.  The sum depends on N only
through the counts of the groups of outputs with the same pair ``(a(y), b(y))``: merging the
outputs of a group is a post-processing that loses nothing (the likelihood ratio of the view
is a function of the group counts), so the divergence of the group counts, multinomial over
the G groups with the groups' x0 masses, is the exact divergence of the datasets.  Outputs are
put in one group when their ratios agree to :data:`GROUP_RTOL` (float noise); any grouping is a
post-processing, so a coarser one would still give a lower bound.

*Enumeration.*  The ``C(n + G - 1, G - 1)`` count vectors are enumerated when there are at most
:data:`MAX_COMPOSITIONS` of them; above, the enumeration is refused (:func:`enumeration_refusal`
says why, with the limit) and the tuned linear statistic
(:mod:`accountant.bounds.laws.linear_statistic`) answers.  The group masses are exact sums of the
float entries (:func:`exact_sum`) divided at ``GROUP_DPS`` digits.  The float evaluation is
lowered explicitly: each multinomial weight by the error bound of its logarithm (``gammaln``
within :data:`GAMMALN_ULPS` ulp of its value, the logs of the masses, the sums), each
``sum_g N_g v_g`` by ``(G + 2)`` ulp of ``sum N_g |v_g|`` plus 6 ulp of ``sum N_g (a_g + u b_g)``
(the rounded a, b, u and the difference), and only what stays positive is added (each term is
then below its exact positive part); the sum of the non-negative terms is lowered by its
rounding.  The outside part is summed at ``GROUP_DPS`` digits and rounded down.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

import mpmath
import numpy as np

#: digits of the enumeration
GROUP_DPS = 40
#: outputs whose ratio pairs agree to this relative distance share a group
GROUP_RTOL = 1e-11
#: the largest number of count vectors enumerated
MAX_COMPOSITIONS = 100_000
#: scipy.special.gammaln's error bound, in ulp of its value (checked against mpmath in the tests)
GAMMALN_ULPS = 8
_U = 2.0 ** -52


def exact_sum(values: np.ndarray):
    """The sum of float64 values, computed exactly (Python integers) and rounded once to the
    working precision: what ``mpmath.fsum`` of the values gives, without its cost per term."""
    v = np.asarray(values, dtype=np.float64)
    v = v[v != 0.0]
    if v.size == 0:
        return mpmath.mpf(0)
    m, e = np.frexp(v)                           # v = m 2^e, 0.5 <= |m| < 1
    mi = (m * 2.0 ** 53).astype(np.int64)        # exact: 53-bit integers
    e = e - 53
    lo = int(e.min())
    total = 0
    for ex in np.unique(e):
        total += int(np.sum(mi[e == ex].astype(object))) << int(ex - lo)
    with mpmath.workprec(max(total.bit_length(), 1) + 8):
        exact = mpmath.ldexp(mpmath.mpf(total), lo)
    return +exact                                # one rounding, to the caller's precision


def _keys(x: np.ndarray) -> np.ndarray:
    """Integer keys equal for ratios within GROUP_RTOL (0 and inf keyed apart)."""
    with np.errstate(divide="ignore"):
        lg = np.where((x > 0) & np.isfinite(x), np.log(np.where(x > 0, x, 1.0)), 0.0)
    q = np.rint(lg / GROUP_RTOL).astype(np.int64)
    return np.stack([np.where(x == 0, 0, np.where(np.isfinite(x), 1, 2)), q], axis=1)


@dataclass(frozen=True)
class RatioGroups:
    """The groups of one triple: inside S the x0 masses ``p`` and ratios ``a``, ``b`` (tuples
    of mpmath numbers, p summing to 1), outside S the groups' masses ``z1``, ``z1p`` under x1 and
    x1'; ``names`` the three inputs' names."""

    p: tuple
    a: tuple
    b: tuple
    z1: tuple
    z1p: tuple
    names: tuple

    @property
    def groups(self) -> int:
        return len(self.p)

    def compositions(self, n: int) -> int:
        return math.comb(n + self.groups - 1, self.groups - 1)

    @property
    def datasets(self) -> str:
        x1, x1p, x0 = self.names
        text = (f"D = ({x1}, {x0}, ..., {x0}), D' = ({x1p}, {x0}, ..., {x0}); the full report pattern: "
                f"every count of the {self.groups} groups of outputs with equal likelihood ratios "
                f"(R(y|{x1}), R(y|{x1p})) / R(y|{x0}) (exact)")
        if self.z1:
            text += f", the outputs {x0} cannot produce counted in full"
        return text


def ratio_groups(R, x1: int, x1p: int, x0: int) -> Optional[RatioGroups]:
    """The groups of the triple (module docstring), or None when the rows of x1 and x1' agree."""
    M = R.matrix
    r1, r1p, r0 = M[x1], M[x1p], M[x0]
    S = r0 > 0
    Z = ~S & ((r1 > 0) | (r1p > 0))
    with mpmath.workdps(GROUP_DPS):
        t1, t1p, t0 = exact_sum(r1), exact_sum(r1p), exact_sum(r0)
        with np.errstate(divide="ignore", invalid="ignore"):
            a, b = r1[S] / r0[S], r1p[S] / r0[S]
        key = np.concatenate([_keys(a), _keys(b)], axis=1)
        _, inv = np.unique(key, axis=0, return_inverse=True)
        inv = inv.ravel()
        p, ga, gb = [], [], []
        s0, s1, s1p = r0[S], r1[S], r1p[S]
        for g in range(int(inv.max()) + 1):
            sel = inv == g
            P0 = exact_sum(s0[sel]) / t0
            p.append(P0)
            ga.append(exact_sum(s1[sel]) / t1 / P0)
            gb.append(exact_sum(s1p[sel]) / t1p / P0)
        z1, z1p = [], []
        if Z.any():
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(r1p[Z] > 0, r1[Z] / r1p[Z], np.inf)
            _, zi = np.unique(_keys(ratio), axis=0, return_inverse=True)
            zi = zi.ravel()
            for g in range(int(zi.max()) + 1):
                sel = zi == g
                z1.append(exact_sum(r1[Z][sel]) / t1)
                z1p.append(exact_sum(r1p[Z][sel]) / t1p)
    if all(x == y for x, y in zip(ga, gb)) and all(x == y for x, y in zip(z1, z1p)):
        return None
    names = tuple(str(R.inputs[i]) for i in (x1, x1p, x0))
    return RatioGroups(tuple(p), tuple(ga), tuple(gb), tuple(z1), tuple(z1p), names)


def enumeration_refusal(rg: RatioGroups, n: int) -> Optional[str]:
    """Why the groups' counts are not enumerated at n (None: they are)."""
    c = rg.compositions(n)
    if c <= MAX_COMPOSITIONS:
        return None
    return (f"the full report pattern of {rg.groups} groups has C(n + {rg.groups - 1}, {rg.groups - 1}) = "
            f"{c:.3g} count vectors at n = {n}, above the enumeration limit {MAX_COMPOSITIONS:,}: not enumerated")


@lru_cache(maxsize=4)
def _counts(n: int, G: int) -> np.ndarray:
    """Every count vector of n reports over G groups, as a read-only float array (T, G)."""
    from accountant.engines.enumeration import compositions

    C = compositions(n, G).astype(np.float64)
    C.flags.writeable = False
    return C


@lru_cache(maxsize=8)
def _terms(rg: RatioGroups, n: int) -> tuple:
    """(count vectors (T, G), their multinomial weights lowered by their error bound, float a,
    float b) for every count vector of n reports (read-only arrays)."""
    from scipy.special import gammaln

    C = _counts(n, rg.groups)
    lp = np.array([float(mpmath.log(x)) for x in rg.p])
    g = gammaln(C + 1.0)
    lw = float(gammaln(n + 1.0)) - g.sum(axis=1) + C @ lp
    # gammaln within GAMMALN_ULPS ulp of its value, log p within 1 ulp of log of the float p
    # (p itself within 1/2 ulp), the sums within G + 2 ulp of their absolute terms, exp 1 ulp
    err = _U * (GAMMALN_ULPS * (float(gammaln(n + 1.0)) + g.sum(axis=1))
                + (rg.groups + 4) * (float(gammaln(n + 1.0)) + g.sum(axis=1) + C @ np.abs(lp)) + 4.0)
    w = np.exp(lw) * (1.0 - np.expm1(err) - 2 * _U)
    a = np.array([float(x) for x in rg.a])
    b = np.array([float(x) for x in rg.b])
    for arr in (w, a, b):
        arr.flags.writeable = False
    return C, w, a, b


def group_delta_and_slope(rg: RatioGroups, n: int, eps: float) -> Optional[tuple[float, float]]:
    """(certified lower end of the exact delta(eps) of the datasets, an estimate of d delta / d eps),
    or None where :func:`enumeration_refusal` refuses (module docstring, *Enumeration*)."""
    if enumeration_refusal(rg, n) is not None:
        return None
    C, w, a, b = _terms(rg, n)
    u = math.exp(eps)
    v = a - u * b
    x = C @ v
    # v within 6 ulp of a + u b of its exact value (a, b, u rounded, the product, the difference);
    # the sum over G groups within (G + 2) ulp of its absolute terms
    err = _U * ((rg.groups + 2) * (C @ np.abs(v)) + 6.0 * (C @ (a + u * b)))
    pos = np.maximum(x - err, 0.0)
    inside = float(np.sum(w * pos)) * (1.0 - (C.shape[0] + 4) * _U) / n
    on = x > 0
    slope = -u * float(np.sum(w[on] * (C[on] @ b))) / n
    with mpmath.workdps(GROUP_DPS):
        U = mpmath.exp(mpmath.mpf(eps))
        out = mpmath.mpf(0)
        for z1, z1p in zip(rg.z1, rg.z1p):
            if z1 > U * z1p:
                out += z1 - U * z1p
                slope -= u * float(z1p)
        outside = max(0.0, math.nextafter(float(out * (1 - mpmath.mpf(10) ** (10 - GROUP_DPS))), -math.inf))
    total = inside + outside
    return min(max(total * (1.0 - 4 * _U), 0.0), 1.0), slope


def group_floor(rg: RatioGroups) -> float:
    """A certified lower end of delta at every eps: x1's mass on the outputs neither x0 nor x1'
    can produce."""
    with mpmath.workdps(GROUP_DPS):
        s = mpmath.fsum(x for x, y in zip(rg.z1, rg.z1p) if y == 0)
        return max(0.0, math.nextafter(float(s * (1 - mpmath.mpf(10) ** (10 - GROUP_DPS))), -math.inf))
