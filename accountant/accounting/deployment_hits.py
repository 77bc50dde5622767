"""The one statistic of the deployments' lower bounds, per randomizer: a set S of
outputs and the chance that one report falls in S, for the named datasets
D = (x1, x0, ..., x0) and D' = (x1', x0, ..., x0).

The count K of reports in S is a function of the shuffled multiset (post-processing), so the
divergence of K's laws under D and D' is a lower bound on the view's. Every report falls in S
independently: the differing user's w.p. ``a`` (input x1) or ``b`` (x1'), every other user's
w.p. ``c`` (input x0), a dummy's w.p. ``dummy`` (the randomizer's output on a uniformly random
input: the dummies' law of ``--dummies``, one of the data-independent inputs the upper bound
allows). :mod:`accountant.accounting.deployment_lower` turns (a, b, c, dummy) into certified
count laws (dummies, reports, mixes, rounds) and, with the visible number of reports, into the
sampled pair.

* binary RR, k-RR (and the generic class through its member binary RR): S = {x1}, x1' = x0;
  a = e^eps0 g, b = c = g = 1/(e^eps0 + k - 1), dummy 1/k.
* OUE (k values): S = {bit x1 set}, x1' = x0; a = 1/2, b = c = 1/(e^eps0 + 1),
  dummy (1/2 + (k - 1)/(e^eps0 + 1))/k.
* OLH (k, g) and Collision (d, s, t) under the uniformly random hash (each report's H drawn
  uniformly from all functions of the items to [t], the items [k] for OLH and the 2d signed
  items for Collision, and seen by the analyst; OLH is s = 1, t = g):
  x1, x0 = x1' disjoint s-sets (d >= 2s), S = {(H, z): z in H(x1)}. With q = 1 - (1 - 1/t)^s
  the chance that a fixed value lies in H(x1): a = t q e^eps0 / Omega (e^eps0/Omega on each
  of the E|H(x1)| = t q values of the image; Omega = s e^eps0 + t - s), b = c = q (the
  hash of x1's items is independent of a report of disjoint items). OLH: a = e^eps0/(e^eps0 +
  g - 1), b = c = 1/g, dummy a/k + (1 - 1/k)/g. The upper bounds of hash model 'any' hold for
  every hash family, the uniformly random one included, so this is a lower bound there too.
  Collision's dummy (:func:`collision_dummy_chance`): X uniform over the inputs (s of the d
  coordinates and s signs, uniform), H independent of X and uniform on the 2d signed items.
  The coordinates X shares with x1 number L ~ Hypergeometric(d, s, s) and its items equal to
  x1's number J ~ Bin(L, 1/2) given L (a shared coordinate's sign agrees w.p. 1/2; an item of
  the other sign is another item, hashed independently). Given J = j let W = H(X cap x1)
  (j items, E|W| = t q_j, q_j = 1 - (1 - 1/t)^j) and U' = H(x1 minus X) (s - j items,
  independent of (X's hashes, z)); given H the report is uniform on V = H(X) w.p. m e^eps0/Omega
  (m = |V|) and uniform off V otherwise; W is inside V, and z in H(x1) iff z in W or z in U'.
  So P(z in H(x1) | H(X)) = q_{s-j} + (1 - q_{s-j}) (m e^eps0/Omega)(|W|/m), and
  P(z in H(x1) | J = j) = q_{s-j} + (1 - q_{s-j}) e^eps0 E|W|/Omega = 1 - (1 - 1/t)^(s - j)
  (1 - t q_j e^eps0/Omega) (j = s: a; j = 0: q).
  dummy = sum_l P(L = l) sum_j Bin(j; l, 1/2) of that.
* CoCo (d, s, t) under the uniformly random H1 (pair in [t/2]) and H2 (bucket): x1, x0 = x1'
  disjoint s-sets of coordinates (d >= 2s), x1's signs +1, S = {(H1, H2, z): z is the
  favoured bucket H(j+) of an entry j of x1 that is alone in its pair}. With h = t/2 and
  q1 = s (1/h)(1 - 1/h)^(s - 1) the chance that a fixed pair holds exactly one entry of x1:
  a = h q1 e^eps0/Omega (e^eps0/Omega on the favoured bucket of each of the h q1 expected
  one-entry pairs; Omega = (e^eps0 + 1) s + t - 2s), b = c = q1/2 (the pair of z holds one
  entry of x1, whose favoured bucket is z w.p. 1/2: x1's hashes are independent of a report
  of disjoint coordinates; the events for different entries are disjoint).
  CoCo's dummy (:func:`coco_dummy_chance`): X uniform (s coordinates, s signs), sharing L ~
  Hypergeometric(d, s, s) coordinates with x1. Given the pairs H1, an occupied pair of X is
  chosen w.p. (e^eps0 + 1)/Omega, a writer among its entries, the writer's favoured bucket w.p.
  e^eps0/(e^eps0 + 1); a free pair's bucket w.p. w(m) = (1 + (s - m)(e^eps0 - 1)/(t - 2m))/Omega
  each (m occupied pairs). A pair p holding one entry j of x1 carries S's bucket H(j+): if X
  occupies p, each writer's favoured bucket is H(j+) w.p. 1/2 (the writer is j with X's uniform
  sign, or a coordinate of X outside x1 with its own H2), so p gives (e^eps0 + 1)/(2 Omega); if
  X does not occupy p, w(m), with m the occupancy of X's s coordinates in the other h - 1
  pairs. Per pair (A = shared, C = x1's others, B = X's others; pairs uniform): p holds one
  entry of A and none of C w.p. (L/h) r^(s-1) (r = 1 - 1/h), one of C, none of A and some of B
  w.p. ((s-L)/h) r^(s-1) (1 - r^(s-L)), one of C and none of A, B w.p. ((s-L)/h) r^(2s-L-1).
  So P(in S | L) = (e^eps0 + 1)/(2 Omega) r^(s-1) (L + (s - L)(1 - r^(s-L))) + (s - L)
  r^(2s-L-1) E[w(M)], M the number of occupied bins of s balls in h - 1 bins (L = 0: q1/2; L = s:
  h q1 (e^eps0 + 1)/(2 Omega)), and dummy = sum_l P(L = l) P(in S | l).
  Both are exact in exact arithmetic (brute force and Monte Carlo:
  tests/accountant/accounting/test_deployment_dummies_hashed.py); evaluated in floats (P(L = l)
  correctly rounded from integers, relative error about 1e-14), for s <= :data:`DUMMY_MAX_S`.
* a finite matrix: candidate triples (x1, x1', x0) of its single-round lower bound
  (:func:`accountant.bounds.finite.lower_triples`), S = {y: R[x1, y] > R[x1', y]} (and with
  the outputs where the rows agree); the candidate with the largest (a - b)^2 over the
  variance of the count is taken (a screen; the certified number is that candidate's).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from accountant.core.finite import FiniteRandomizer
from accountant.core.params import (CoCoParams, CollisionParams, GenericLDP, KRRParams, OLHParams, OUEParams,
                                    PiecewiseParams,
                                    VariationRatioParams, mechanism_spec)

__all__ = ["Hit", "hit", "output_kind", "CLASS_MEMBER", "collision_dummy_chance", "coco_dummy_chance",
           "DUMMY_MAX_S"]

#: the class of every eps0-LDP randomizer ("generic") is bounded below by one of its members,
#: binary RR at eps0 (its dummies: binary RR's output on a uniformly random input)
CLASS_MEMBER = "binary RR (one eps0-LDP randomizer of the class)"
#: the largest s for the dummies' chance of Collision and CoCo (the overlap law from exact
#: binomial coefficients and the O(s^2) laws of J and of the occupancy: 0.4 s at s = 1024)
DUMMY_MAX_S = 1024
RANDOM_HASH = ("uniformly random hash (each report's hash drawn uniformly from all functions and seen by "
               "the analyst)")


@functools.singledispatch
def output_kind(params) -> str:
    """The kind of a randomizer's reports (:attr:`Hit.kind`): reports of different kinds are told
    apart, so in a mix the groups of another kind than the differing user's never fall in S.
    ValueError for a class without a fixed output set (variation-ratio)."""
    raise ValueError(f"not available with a group of mechanism {params.name}: its reports have no fixed "
                     "output set, so their chance to fall in S is not known")


output_kind.register(GenericLDP, lambda params: "value")
output_kind.register(KRRParams, lambda params: "value")
output_kind.register(OUEParams, lambda params: "bits")
output_kind.register(CollisionParams, lambda params: "hashed")  # OLH too
output_kind.register(CoCoParams, lambda params: "coco")
output_kind.register(FiniteRandomizer, lambda params: "finite")


@dataclass(frozen=True)
class Hit:
    """The chances of one report to fall in S (module docstring) and what they are about."""

    a: float
    b: float
    c: float
    dummy: float
    name: str
    datasets: str
    statistic: str
    hash_model: str = ""
    dummies: str = "dummies, each the randomizer's output on a uniformly random input"
    s: int = 1  # hashed: the size of x1's item set (S = {z in H(x1)})
    kind: str = "value"  # the output kind (:func:`output_kind`)
    rows: tuple = ()  # a finite matrix: the rows (x1, x1', x0) and the mask of S

    def text(self, extra: str = "", reports: str = "reports", pre: str = "") -> str:
        """The named pair: randomizer (``pre`` after it), datasets (``extra`` after them), hash
        model, statistic (over ``reports``)."""
        hm = f"; hash: {self.hash_model}" if self.hash_model else ""
        return f"{self.name}{pre}, {self.datasets}{extra}{hm}; statistic: {self.statistic.format(reports=reports)}"

    def other(self, params) -> float:
        """The chance that a user of another group of a mix (``params``, input x0, disjoint from
        x1 for hashed randomizers) reports into this S: 0 for another kind of report; ValueError
        for a class without a fixed output set (variation-ratio)."""
        if output_kind(params) != self.kind:
            return 0.0
        return _other_chance(params, self.s)


@functools.singledispatch
def _other_chance(params, s: int) -> float:
    """A user of another group of the same kind, input x0: its chance to fall in S (x1 of s items)."""
    return hit(params).c


@_other_chance.register
def _(params: CollisionParams, s: int) -> float:  # OLH too; x1 = {1..s}, x0 = the next s_g items of [d_g]
    _check_random_hash_space(params, s, int(params.s))
    return _q(s, params.t)


@_other_chance.register
def _(params: CoCoParams, s: int) -> float:
    _check_random_hash_space(params, s, int(params.s))
    return _q1(s, params.t // 2) / 2


def _q(s: int, t: int) -> float:
    """1 - (1 - 1/t)^s: the chance that a fixed value lies in the image of s items."""
    return -math.expm1(s * math.log1p(-1.0 / t))


def _q1(s: int, h: int) -> float:
    """s (1/h)(1 - 1/h)^(s - 1): the chance that a fixed pair of h holds exactly one of s entries."""
    return s / h * math.exp((s - 1) * math.log1p(-1.0 / h))


_HASHED_DUMMIES = ("dummies, each the randomizer's output on a uniformly random input (s of the d coordinates "
                   "and their signs, uniform)")


def _overlap_law(d: int, s: int) -> np.ndarray:
    """P(L = l), l = 0..s: the coordinates two s-subsets of [d] share, one uniform
    (hypergeometric), each entry correctly rounded from exact binomial coefficients."""
    if s > DUMMY_MAX_S:
        raise ValueError(f"not available with dummies for s > {DUMMY_MAX_S} (DUMMY_MAX_S: the dummies' chance to "
                         f"fall in S costs O(s^2)), got s = {s}")
    tot = math.comb(d, s)
    return np.array([math.comb(s, l) * math.comb(d - s, s - l) / tot for l in range(s + 1)])


def collision_dummy_chance(s: int, t: int, d: int, e: float) -> float:
    """P(R(X) in S) for Collision (module docstring), X uniform over the inputs of [d], ``e`` =
    e^eps0."""
    pl = _overlap_law(d, s)
    omega = s * e + t - s
    j = np.arange(s + 1, dtype=np.float64)
    lr = math.log1p(-1.0 / t)
    f = 1.0 - np.exp((s - j) * lr) * (1.0 - t * e * -np.expm1(j * lr) / omega)  # P(in S | J = j)
    row, total = np.ones(1), 0.0  # row: Bin(l, 1/2)
    for l in range(s + 1):
        total += pl[l] * float(row @ f[:l + 1])
        row = 0.5 * (np.append(row, 0.0) + np.insert(row, 0, 0.0))
    return total


def coco_dummy_chance(s: int, t: int, d: int, e: float) -> float:
    """P(R(X) in S) for CoCo (module docstring), X uniform over the inputs of [d], ``e`` = e^eps0."""
    pl = _overlap_law(d, s)
    h, omega = t // 2, s * e + t - s
    occ = np.ones(1)  # law of the occupied bins of the balls so far, in h - 1 bins
    for _ in range(s):
        m = np.arange(occ.size, dtype=np.float64)
        occ = np.append(occ * m / (h - 1), 0.0) + np.insert(occ * (h - 1 - m) / (h - 1), 0, 0.0)
    m = np.arange(s + 1, dtype=np.float64)
    w = float(occ @ ((1.0 + (s - m) * (e - 1.0) / (t - 2 * m)) / omega))
    r = 1.0 - 1.0 / h
    lv = np.arange(s + 1, dtype=np.float64)
    p = ((e + 1) / (2 * omega) * r ** (s - 1) * (lv + (s - lv) * (1.0 - r ** (s - lv)))
         + (s - lv) * r ** (2 * s - lv - 1) * w)
    return float(pl @ p)


def _value(k: int, eps0: float, name: str, dummies: str = "") -> Hit:
    e = math.exp(float(eps0))
    g = 1.0 / (e + k - 1)
    return Hit(e * g, g, g, 1.0 / k, name, "D = (x1, x0, ..., x0), D' = (x0, x0, ..., x0)",
               "the number of {reports} equal to x1", dummies="dummies uniform over the outputs" + dummies)


def _oue(params) -> Hit:
    k = int(params.k)
    b = 1.0 / (math.exp(float(params.eps0)) + 1.0)
    return Hit(0.5, b, b, (0.5 + (k - 1) * b) / k, f"OUE (k = {k})",
               "D = (x1, x0, ..., x0), D' = (x0, x0, ..., x0)", "the number of {reports} with bit x1 set",
               kind="bits")


def _check_random_hash_space(params, s: int, s0: int) -> None:
    """x1 (s items) and x0 (s0 items) disjoint in [d]: d >= s + s0."""
    d = getattr(params, "d", None)
    if d is None or d < s + s0:
        what = "k" if isinstance(params, OLHParams) else "d"
        raise ValueError(f"not available for mechanism {params.name}: the count lower bound needs two inputs "
                         f"with disjoint item sets, so {what} >= {s + s0}" + (", give d (--d)" if d is None else
                                                                              f", got {what} = {d}"))


def _hashed_a(params) -> tuple:
    """(s, t, e^eps0, q, a) of a hashed randomizer, its item sets checked disjoint."""
    s, t = int(params.s), int(params.t)
    _check_random_hash_space(params, s, s)
    e = math.exp(float(params.eps0))
    q = _q(s, t)
    return s, t, e, q, t * q * e / (s * e + t - s)


def _olh(params, m: int) -> Hit:
    _, t, _, q, a = _hashed_a(params)
    k = int(params.d)
    return Hit(a, q, q, a / k + (1 - 1 / k) * q, f"OLH (k = {k}, g = {t})",
               "D = (x1, x0, ..., x0), D' = (x0, x0, ..., x0) of [k]", "the number of {reports} (h, y) with "
               "y = h(x1)", RANDOM_HASH, kind="hashed")


def _collision(params, m: int) -> Hit:
    s, t, e, q, a = _hashed_a(params)
    dummy = collision_dummy_chance(s, t, int(params.d), e) if m else math.nan
    return Hit(a, q, q, dummy, f"Collision (s = {s}, t = {t}, d = {params.d})",
               "D = (x1, x0, ..., x0), D' = (x0, x0, ..., x0), item sets of x1 and x0 disjoint s-sets of [d]",
               "the number of {reports} (H, z) with z in H(x1)", RANDOM_HASH, dummies=_HASHED_DUMMIES, s=s,
               kind="hashed")


def _coco(params, m: int) -> Hit:
    s, t = int(params.s), int(params.t)
    _check_random_hash_space(params, s, s)
    e, h = math.exp(float(params.eps0)), t // 2
    q1 = _q1(s, h)
    dummy = coco_dummy_chance(s, t, int(params.d), e) if m else math.nan
    return Hit(h * q1 * e / ((e + 1) * s + t - 2 * s), q1 / 2, q1 / 2, dummy,
               f"CoCo (s = {s}, t = {t}, d = {params.d})", "D = (x1, x0, ..., x0), D' = (x0, x0, ..., x0), "
               "coordinate sets of x1 and x0 disjoint s-sets of [d], x1's signs +1",
               "the number of {reports} (H1, H2, z) with z the favoured bucket H(j+) of an entry j of x1 alone "
               "in its pair H1(j)", RANDOM_HASH, dummies=_HASHED_DUMMIES, s=s, kind="coco")


def _finite_candidates(R) -> list:
    """(a, b, c, dummy, x1, x1', x0, S) for the triples of the single-round lower bound."""
    from accountant.bounds.finite import lower_triples

    M = R.matrix
    out = []
    for x1, x1p, x0 in lower_triples(R):
        up, down = M[x1] > M[x1p] * (1 + _tol()), M[x1p] > M[x1] * (1 + _tol())
        for S in (up, up | ~(up | down)):
            if S.any() and (~S).any():
                row = M[:, S].sum(axis=1)
                out.append((float(row[x1]), float(row[x1p]), float(row[x0]), float(np.mean(row)), x1, x1p, x0, S))
    return out


def _tol() -> float:
    from accountant.bounds.finite import CORNER_TOL

    return CORNER_TOL


def _finite(R, n: int, m: int) -> Hit:
    cands = _finite_candidates(R)

    def score(cd):
        a, b, c, d = cd[:4]
        var = (n - 1) * c * (1 - c) + m * d * (1 - d) + a * (1 - a) + b * (1 - b)
        return (a - b) ** 2 / var if var > 0 else (math.inf if a != b else 0.0)

    if not cands:
        raise ValueError("not available for mechanism finite: no two rows of the matrix differ")
    a, b, c, d, x1, x1p, x0, S = max(cands, key=score)
    rest = bool(np.any(S & ~(R.matrix[x1] > R.matrix[x1p] * (1 + _tol()))))
    nm = [v.replace("{", "{{").replace("}", "}}") for v in R.inputs]
    return Hit(a, b, c, d, f"{R.label} (finite matrix)",
               f"D = ({R.inputs[x1]}, {R.inputs[x0]}, ..., {R.inputs[x0]}), D' = ({R.inputs[x1p]}, {R.inputs[x0]}, ..., "
               f"{R.inputs[x0]})",
               f"the number of {{reports}} in S = {{{{y: R[{nm[x1]}, y] > R[{nm[x1p]}, y]}}}}"
               + (" and the outputs where the two rows agree" if rest else ""), kind="finite",
               rows=(x1, x1p, x0, S))


@functools.singledispatch
def hit(params, n: int = 2, m: int = 0) -> Hit:
    """The :class:`Hit` of ``params`` (module docstring); ``n`` users and ``m`` dummies only
    steer the choice of a finite matrix's candidate, and Collision's and CoCo's ``dummy`` is
    computed only for ``m`` > 0 (NaN otherwise: it costs O(s^2)). ValueError (the reason) where
    no count lower bound is derived: variation-ratio; Collision, CoCo with dummies at s >
    :data:`DUMMY_MAX_S`."""
    raise ValueError(_no_hit(params.name))


def _no_hit(name: str, why: str = "") -> str:
    return (f"not available for mechanism {name}: the certified count lower bound is for binary RR, "
            f"k-RR, the generic class, OUE, OLH, Collision, CoCo (random hash) and finite matrices"
            + (f" ({why})" if why else ""))


@hit.register
def _(params: VariationRatioParams, n: int = 2, m: int = 0) -> Hit:
    raise ValueError(_no_hit(params.name, "the class of (p, beta, q) randomizers has no fixed output set"))


@hit.register
def _(params: GenericLDP, n: int = 2, m: int = 0) -> Hit:
    return _value(2, params.eps0, CLASS_MEMBER, " (binary RR's output on a uniformly random input)")


@hit.register
def _(params: KRRParams, n: int = 2, m: int = 0) -> Hit:
    keyed = mechanism_spec(params.name).keyed  # binary RR's entry has no k: its name is its label
    return _value(int(params.k), params.eps0, f"{params.k}-RR" if keyed else mechanism_spec(params.name).label)


hit.register(OUEParams, lambda params, n=2, m=0: _oue(params))
hit.register(CollisionParams, lambda params, n=2, m=0: _collision(params, m))
hit.register(OLHParams, lambda params, n=2, m=0: _olh(params, m))
hit.register(CoCoParams, lambda params, n=2, m=0: _coco(params, m))
hit.register(FiniteRandomizer, lambda params, n=2, m=0: _finite(params, n, m))


def _register_keyvalue() -> None:
    """The key-value baselines: reports of their own kind; no count lower bound in the deployments
    (their single-round datasets are accountant.bounds.laws.keyvalue_lower's)."""
    from accountant.core.randomizers_keyvalue import PCKVAGRRParams, PCKVGRRParams, PCKVUEParams, PrivKVParams

    def no_hit(params, n=2, m=0):
        raise ValueError(_no_hit(params.name, "the deployments' count statistic is not derived for the "
                                              "key-value baselines"))

    for cls in (PCKVGRRParams, PCKVUEParams, PCKVAGRRParams, PrivKVParams):
        output_kind.register(cls, lambda params: params.name)
        hit.register(cls, no_hit)


_register_keyvalue()
@hit.register
def _(params: PiecewiseParams, n: int = 2, m: int = 0) -> Hit:
    raise ValueError(_no_hit(params.name, "a continuous output: its lower bound's binned law serves the plain "
                                          "path and the colluders; dummies and sampling have none"))
