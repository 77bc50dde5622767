r"""The pattern laws behind :mod:`accountant.bounds.laws.pattern_lower`: OUE, and OLH, Collision
and CoCo under the random-hash model.

Part of :mod:`accountant.bounds.laws`.  May import: accountant.core, accountant.engines.

Each law is a pair (a, b): every report is mapped to three indicators, one per input of
D = (x1, x0, ..., x0), D' = (x1', x0, ..., x0); they are independent, Bern(a) for the
sender's own input and Bern(b) for the other two, and E = a (1 - b) / (b (1 - a)) is the
likelihood ratio the engine uses (e^eps0 for OUE and OLH, below it for Collision and CoCo,
whose indicators forget part of the report).  OUE (a = 1/2, b = 1/(e^eps0 + 1)) is derived
in :mod:`accountant.bounds.laws.pattern_lower`.

*OLH under the random-hash model* (``g`` hash values, each report (H, z) with its own H
uniform over all functions [k] -> [g], z = H(x) w.p. E/(E + g - 1), each other value w.p.
1/(E + g - 1)): z is uniform whatever x, and given z the indicators b_j = [H(j) = z] of the
values j = 1, 2, 3 are independent, Bern(a) with a = E/(E + g - 1) for the user's own value
and Bern(b), b = 1/g, for the others (the values of H at distinct points are independent);
H at the values other than 1, 2, 3 is uniform and independent of the data.  So the same
post-processing argument makes the pattern multiset the exact view, with these a and b.  OUE
is the case g = E + 1 (a = 1/2, b = 1/(E + 1)).  The engine only uses a (1 - b) =
E b (1 - a), which both satisfy with E = e^eps0.

*Collision under the random-hash model* (s items, t values, eps0; x1, x1', x0 with pairwise
disjoint item sets, D = (x1, x0, ..., x0), D' = (x1', x0, ..., x0); each report (H, z) with
its own H uniform over all functions of the 2d signed items into [t]; P[z | x, H] = f_x(z)/Omega,
f_x = e^eps0 on A_x = H(Y_x), 1 + (s - m)(e^eps0 - 1)/(t - m) off it, m = |A_x|,
Omega = s e^eps0 + t - s).  Each report is mapped to v = ([z in A_x1], [z in A_x1'],
[z in A_x0]), a post-processing, so the divergence of the pattern multiset is a *lower bound*
on the mechanism's.  Its law: the law of (H, z) is invariant under relabelling [t], so z is
uniform whatever x and v's law given z does not depend on z; given z, H on the three disjoint
item sets is three independent restrictions, the sender's tilted by f_x (mean Omega/t for
every z), the other two uniform.  So the indicators are independent, Bern(a) for the sender's
own set, a = e^eps0 E[m]/Omega, and Bern(b), b = E[m]/t, for the other two, E[m] =
t (1 - (1 - 1/t)^s).  This is the pattern law above with E = a (1 - b)/(b (1 - a)) in place of
e^eps0 (E = e^eps0 at s = 1, below it when a user's items can collide); the image sizes are
forgotten, which costs little (central-limit estimate at s = 4, t = 17, eps0 = 1, n = 1e4:
eps 0.02464 for the patterns against 0.02477 with the sizes kept).

*CoCo under the random-hash model* (Algorithm 1; s coordinates, h = t/2 pairs; x1, x1', x0
with pairwise disjoint coordinate sets).  Given (H1, H2) the sender's report has probability
(1 + (e^eps0 - 1) phi)/Omega on each bucket of a pair holding c of its entries, u of which
favour that bucket (phi = u/c), and its free buckets share the rest, chosen by its own hash
values only.  v_x = [z lies in a pair of x with phi(z) >= tau], a function of (H1, H2, z) for
a threshold tau fixed by (eps0, s, t) (:func:`coco_threshold`: the largest chi2 of the
pattern law).  The same argument (relabelling pairs and the buckets within a pair keeps the
law; disjoint coordinates are hashed independently) gives independent indicators: Bern(b)
for the others, b = h E[#{qualifying buckets of a pair}]/t, and Bern(a) for the sender's own
set, a = h E[sum of their 1 + (e^eps0 - 1) phi]/Omega, with c ~ Bin(s, 1/h) and
u ~ Bin(c, 1/2) for one pair.  tau = 1 keeps only unanimous pairs; the one-entry favoured
buckets of the three-category laws are a part of them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import mpmath
import numpy as np

OUE_FULL_DATASETS = ("D = (1, 3, ..., 3), D' = (2, 3, ..., 3), reports not reduced (all eight patterns of "
                     "bits 1, 2, 3; the other bits do not depend on the data; reduced to three categories only "
                     "beyond the evaluation's cost cap, delta below about 1e-55)")
OLH_FULL_DATASETS = ("reports (H, z) not reduced (their patterns [H(1) = z], [H(2) = z], [H(3) = z] are "
                     "exact; reduced to categories only where the evaluation's cost cap is reached)")
COLLISION_FULL_DATASETS = ("reports (H, z) reduced to [z in H(x1)], [z in H(x1')], [z in H(x0)] "
                           "(reduced to categories only where the evaluation's cost cap is reached)")
COCO_FULL_DATASETS = ("reports (H1, H2, z) reduced to [z is favoured by at least a fraction tau of x's entries in "
                      "its pair], x = x1, x1', x0, tau fixed by eps0, s, t (reduced to categories only where the "
                      "evaluation's cost cap is reached)")


@dataclass(frozen=True)
class PatternLaw:
    """The pattern law of the module docstring: own bit Bern(``a``), the two others Bern(``b``),
    ``E`` = a (1 - b) / (b (1 - a)) (each the float nearest to the exact value, computed at 40
    digits)."""

    a: float
    b: float
    E: float

    @property
    def eps_max(self) -> float:
        """log E: the divergence is 0 from there on (every report's likelihood ratio is <= E)."""
        return math.log(self.E)


def _pattern_law(a, b) -> PatternLaw:
    """a, b as mpmath numbers (at ``_DPS`` digits): the floats nearest to a, b and E."""
    with mpmath.workdps(_DPS):
        E = a * (1 - b) / (b * (1 - a))
        return PatternLaw(float(a), float(b), float(E))


_DPS = 40


@lru_cache(maxsize=64)
def oue_patterns(eps0: float) -> PatternLaw:
    """OUE: a = 1/2, b = 1/(e^eps0 + 1) (E = e^eps0)."""
    with mpmath.workdps(_DPS):
        return _pattern_law(mpmath.mpf(1) / 2, 1 / (mpmath.exp(mpmath.mpf(eps0)) + 1))


@lru_cache(maxsize=64)
def olh_patterns(eps0: float, g: int) -> PatternLaw:
    """OLH with ``g`` hash values under the random-hash model: a = e^eps0/(e^eps0 + g - 1), b = 1/g
    (E = e^eps0)."""
    with mpmath.workdps(_DPS):
        E = mpmath.exp(mpmath.mpf(eps0))
        return _pattern_law(E / (E + g - 1), mpmath.mpf(1) / g)


@lru_cache(maxsize=64)
def collision_patterns(eps0: float, s: int, t: int) -> PatternLaw:
    """Collision with s items into [t] under the random-hash model, indicators [z in H(Y_x)] of
    three pairwise disjoint s-sets: b = E[m]/t, a = e^eps0 E[m]/Omega with E[m] =
    t (1 - (1 - 1/t)^s) the mean image size and Omega = s e^eps0 + t - s (module docstring;
    E < e^eps0 when s >= 2: the reduction forgets the image sizes)."""
    with mpmath.workdps(_DPS):
        E = mpmath.exp(mpmath.mpf(eps0))
        mean_m = t * (1 - (1 - mpmath.mpf(1) / t) ** s)
        return _pattern_law(E * mean_m / (s * E + t - s), mean_m / t)


def _coco_buckets(eps0: float, s: int, t: int) -> list:
    """[(phi, P(c, u))] over the entry count c >= 1 of one pair and the number u of its entries
    favouring its upper bucket (c ~ Bin(s, 1/h), u ~ Bin(c, 1/2), mpmath), each with the
    fraction phi = u/c of the upper bucket; the lower bucket has 1 - phi.  c stops where
    P(c) < 1e-45 past the mean (the rest moves a and b by far less than an ulp)."""
    h = t // 2
    out = []
    with mpmath.workdps(_DPS):
        for c in range(1, s + 1):
            pc = mpmath.binomial(s, c) * (mpmath.mpf(1) / h) ** c * (1 - mpmath.mpf(1) / h) ** (s - c)
            if c > s / h and pc < mpmath.mpf(10) ** -45:
                break
            for u in range(c + 1):
                out.append((Fraction(u, c), pc * mpmath.binomial(c, u) / mpmath.mpf(2) ** c))
    return out


def _coco_ab(eps0: float, s: int, t: int, tau: Fraction, buckets: list):
    """(a, b) in mpmath of the indicator "z lies in a pair of x whose entries favour z in a
    fraction >= tau" (module docstring)."""
    with mpmath.workdps(_DPS):
        E = mpmath.exp(mpmath.mpf(eps0))
        h = t // 2
        nb = fa = mpmath.mpf(0)
        for phi, w in buckets:
            for f in (phi, 1 - phi):
                if f >= tau:
                    nb += w
                    fa += w * (1 + (E - 1) * mpmath.mpf(f.numerator) / f.denominator)
        return h * fa / (s * E + t - s), h * nb / t


def pattern_chi2(pat: PatternLaw) -> float:
    """chi2(P_x1 - P_x1' || P_x0) of the eight patterns: mu^2 n of the datasets' central-limit
    picture (:mod:`accountant.bounds.decomposition_limit`), used only to choose a statistic."""
    a, b = pat.a, pat.b
    tot = 0.0
    for v in range(8):
        bits = [(v >> j) & 1 for j in range(3)]

        def law(own: int) -> float:
            return math.prod((a if j == own else b) if bits[j] else 1.0 - (a if j == own else b) for j in range(3))
        tot += (law(0) - law(1)) ** 2 / law(2)
    return tot


@lru_cache(maxsize=64)
def coco_threshold(eps0: float, s: int, t: int) -> Fraction:
    """The fraction tau of :func:`coco_patterns`: among the fractions u/c a pair can show, the one
    whose pattern law has the largest chi2 (a choice made from the parameters alone, so any
    choice keeps the lower bound valid)."""
    buckets = _coco_buckets(eps0, s, t)
    E, h = math.exp(eps0), t // 2
    phis = [f for phi, _ in buckets for f in (phi, 1 - phi)]
    w = np.repeat(np.array([float(x) for _, x in buckets]), 2)
    order = np.argsort(np.array([float(f) for f in phis]))[::-1]  # largest fraction first
    ph = [phis[i] for i in order]
    nb = np.cumsum(w[order])
    fa = np.cumsum(w[order] * (1.0 + (E - 1.0) * np.array([float(f) for f in ph])))
    best, best_tau = -1.0, Fraction(1)
    for i, tau in enumerate(ph):
        if tau <= 0 or (i + 1 < len(ph) and ph[i + 1] == tau):
            continue  # the last index of each fraction holds its cumulative sums
        a, b = h * fa[i] / (s * E + t - s), h * nb[i] / t
        score = pattern_chi2(PatternLaw(a, b, a * (1 - b) / (b * (1 - a))))
        if score > best:
            best, best_tau = score, tau
    return best_tau


@lru_cache(maxsize=64)
def coco_patterns(eps0: float, s: int, t: int) -> PatternLaw:
    """CoCo (s coordinates, h = t/2 pairs) under the random-hash model, indicators "z lies in a
    pair of x whose entries favour z in a fraction >= tau" (tau = :func:`coco_threshold`) for
    three inputs with pairwise disjoint coordinate sets: b = h E[#qualifying buckets of a
    pair]/t, a = h E[sum of their weights 1 + (e^eps0 - 1) phi]/Omega (module docstring)."""
    tau = coco_threshold(eps0, s, t)
    return _pattern_law(*_coco_ab(eps0, s, t, tau, _coco_buckets(eps0, s, t)))
