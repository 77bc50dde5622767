"""The one statistic of the deployments' lower bounds (issue 43), per randomizer: a set S of
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
  uniformly from all functions [d] -> [t] and seen by the analyst; OLH is s = 1, t = g):
  x1, x0 = x1' disjoint s-sets (d >= 2s), S = {(H, z): z in H(x1)}. With q = 1 - (1 - 1/t)^s
  the chance that a fixed value lies in H(x1): a = t q e^eps0 / Omega (e^eps0/Omega on each
  of the E|H(x1)| = t q values of the image; Omega = s e^eps0 + t - s), b = c = q (the
  hash of x1's items is independent of a report of disjoint items). OLH: a = e^eps0/(e^eps0 +
  g - 1), b = c = 1/g, dummy a/k + (1 - 1/k)/g. The upper bounds of hash model 'any' hold for
  every hash family, the uniformly random one included, so this is a lower bound there too.
* CoCo (d, s, t) under the uniformly random H1 (pair in [t/2]) and H2 (bucket): x1, x0 = x1'
  disjoint s-sets of coordinates (d >= 2s), x1's signs +1, S = {(H1, H2, z): z is the
  favoured bucket H(j+) of an entry j of x1 that is alone in its pair}. With h = t/2 and
  q1 = s (1/h)(1 - 1/h)^(s - 1) the chance that a fixed pair holds exactly one entry of x1:
  a = h q1 e^eps0/Omega (e^eps0/Omega on the favoured bucket of each of the h q1 expected
  one-entry pairs; Omega = (e^eps0 + 1) s + t - 2s), b = c = q1/2 (the pair of z holds one
  entry of x1, whose favoured bucket is z w.p. 1/2: x1's hashes are independent of a report
  of disjoint coordinates; the events for different entries are disjoint).
* a finite matrix: candidate triples (x1, x1', x0) of its single-round lower bound
  (:func:`accountant.bounds.finite.lower_triples`), S = {y: R[x1, y] > R[x1', y]} (and with
  the outputs where the rows agree); the candidate with the largest (a - b)^2 over the
  variance of the count is taken (a screen; the certified number is that candidate's).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["Hit", "hit", "CLASS_MEMBER", "FAMILIES"]

#: the class of every eps0-LDP randomizer ("generic") is bounded below by one of its members,
#: binary RR at eps0 (its dummies: binary RR's output on a uniformly random input)
CLASS_MEMBER = "binary RR (one eps0-LDP randomizer of the class)"
#: the output kind of each randomizer: reports of different kinds are told apart, so in a mix
#: the groups of another kind than the differing user's never fall in S
FAMILIES = {"rr": "value", "krr": "value", "generic": "value", "oue": "bits", "olh": "hashed",
            "collision": "hashed", "coco": "coco", "finite": "finite"}
RANDOM_HASH = ("uniformly random hash (each report's hash drawn uniformly from all functions and seen by "
               "the analyst)")


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
    kind: str = "value"  # the output kind (:data:`FAMILIES`)
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
        if params.name not in FAMILIES:
            raise ValueError(f"not available with a group of mechanism {params.name}: its reports have no fixed "
                             "output set, so their chance to fall in S is not known")
        if FAMILIES[params.name] != self.kind:
            return 0.0
        if params.name in ("collision", "olh", "coco"):  # x1 = {1..s}, x0 = the next s_g items of [d_g]
            _check_random_hash_space(params, self.s, int(params.s))
            return _q(self.s, params.t) if params.name != "coco" else _q1(self.s, params.t // 2) / 2
        return hit(params).c


def _q(s: int, t: int) -> float:
    """1 - (1 - 1/t)^s: the chance that a fixed value lies in the image of s items."""
    return -math.expm1(s * math.log1p(-1.0 / t))


def _q1(s: int, h: int) -> float:
    """s (1/h)(1 - 1/h)^(s - 1): the chance that a fixed pair of h holds exactly one of s entries."""
    return s / h * math.exp((s - 1) * math.log1p(-1.0 / h))


def _value(params) -> Hit:
    k = int(params.k) if params.name == "krr" else 2
    e = math.exp(float(params.eps0))
    name = {"rr": "binary RR", "generic": CLASS_MEMBER}.get(params.name) or f"{k}-RR"
    g = 1.0 / (e + k - 1)
    dummies = "dummies uniform over the outputs" + (" (binary RR's output on a uniformly random input)"
                                                    if params.name == "generic" else "")
    return Hit(e * g, g, g, 1.0 / k, name, "D = (x1, x0, ..., x0), D' = (x0, x0, ..., x0)",
               "the number of {reports} equal to x1", dummies=dummies)


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
        what = "k" if params.name == "olh" else "d"
        raise ValueError(f"not available for mechanism {params.name}: the count lower bound needs two inputs "
                         f"with disjoint item sets, so {what} >= {s + s0}" + (", give d (--d)" if d is None else
                                                                              f", got {what} = {d}"))


def _hashed(params) -> Hit:
    s, t = int(params.s), int(params.t)
    _check_random_hash_space(params, s, s)
    e = math.exp(float(params.eps0))
    q = _q(s, t)
    a = t * q * e / (s * e + t - s)
    if params.name == "olh":
        k = int(params.d)
        return Hit(a, q, q, a / k + (1 - 1 / k) * q, f"OLH (k = {k}, g = {t})",
                   "D = (x1, x0, ..., x0), D' = (x0, x0, ..., x0) of [k]", "the number of {reports} (h, y) with "
                   "y = h(x1)", RANDOM_HASH, kind="hashed")
    # dummies: a uniformly random s-set overlaps x1's items (a hypergeometric number), and the
    # images of the shared items coincide: that chance is not derived here
    return Hit(a, q, q, math.nan, f"Collision (s = {s}, t = {t}, d = {params.d})",
               "D = (x1, x0, ..., x0), D' = (x0, x0, ..., x0), item sets of x1 and x0 disjoint s-sets of [d]",
               "the number of {reports} (H, z) with z in H(x1)", RANDOM_HASH, s=s, kind="hashed")


def _coco(params) -> Hit:
    s, t = int(params.s), int(params.t)
    _check_random_hash_space(params, s, s)
    e, h = math.exp(float(params.eps0)), t // 2
    q1 = _q1(s, h)
    return Hit(h * q1 * e / ((e + 1) * s + t - 2 * s), q1 / 2, q1 / 2, math.nan,
               f"CoCo (s = {s}, t = {t}, d = {params.d})", "D = (x1, x0, ..., x0), D' = (x0, x0, ..., x0), "
               "coordinate sets of x1 and x0 disjoint s-sets of [d], x1's signs +1",
               "the number of {reports} (H1, H2, z) with z the favoured bucket H(j+) of an entry j of x1 alone "
               "in its pair H1(j)", RANDOM_HASH, s=s, kind="coco")


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


def hit(params, n: int = 2, m: int = 0) -> Hit:
    """The :class:`Hit` of ``params`` (module docstring); ``n`` users and ``m`` dummies only
    steer the choice of a finite matrix's candidate. ValueError (the reason) where no count
    lower bound is derived: variation-ratio."""
    name = params.name
    if name in ("rr", "krr", "generic"):
        return _value(params)
    if name == "oue":
        return _oue(params)
    if name in ("olh", "collision"):
        return _hashed(params)
    if name == "coco":
        return _coco(params)
    if name == "finite":
        return _finite(params, n, m)
    why = {"variation-ratio": "the class of (p, beta, q) randomizers has no fixed output set"}.get(name, "")
    raise ValueError(f"not available for mechanism {name}: the certified count lower bound is for binary RR, "
                     f"k-RR, the generic class, OUE, OLH, Collision, CoCo (random hash) and finite matrices"
                     + (f" ({why})" if why else ""))
