"""Certified lower bounds on eps_c: exact divergences of concrete neighbouring datasets.

Part of :mod:`accountant.bounds.laws`; the package docstring has the mathematics.
"""
from __future__ import annotations
import math
from dataclasses import dataclass
from typing import Optional
import mpmath
import numpy as np
from accountant.bounds.laws.count_law import CountLaw, MP_DPS, check_law_eps0, check_law_int
from accountant.bounds.laws.collision_lower import count_law_from_categories, krr_lower_count_law
from accountant.bounds.laws.pattern_lower import FullPatterns
from accountant.bounds.laws.patterns import (COCO_FULL_DATASETS, COLLISION_FULL_DATASETS, OLH_FULL_DATASETS,
                                             OUE_FULL_DATASETS, coco_patterns, collision_patterns, olh_patterns,
                                             oue_patterns)


# --------------------------------------------------------------------------- certified lower bounds at any n
# A lower bound's float evaluation is multiplied by (1 - LOWER_MARGIN): the relative error of
# the engine's float paths (blanket_exact.FLOAT_REL_ERROR grows like sqrt(n)) and of scipy's
# binomial tails stays far below it.
LOWER_MARGIN = 1e-8
LOWER_RTOL = 1e-5
# from this search tolerance on (the dashboard's curves: 1e-4) the lower search's evaluations
# use the engine's coarse bins (see lower_search)
COARSE_RTOL = 1e-5
# an alternative post-processing is evaluated only where its saddle-point estimate is within
# this relative distance of the best one (from n = ALTERNATIVE_MIN_N on)
ALTERNATIVE_GAP = 0.02
ALTERNATIVE_MIN_N = 1000


def merge_tail(law: CountLaw) -> CountLaw:
    """Categories 3, 4, ... merged into one (a deterministic post-processing of the reports,
    so the divergence can only go down): p = sum p_c, a = sum p_c a_c / p (same for b)."""
    if len(law.p) <= 3:
        return law
    with mpmath.workdps(MP_DPS):
        p3 = sum(law.p[2:])
        a3 = sum(pc * ac for pc, ac in zip(law.p[2:], law.a[2:])) / p3
        b3 = sum(pc * bc for pc, bc in zip(law.p[2:], law.b[2:])) / p3
        return CountLaw(law.p[:2] + (p3,), law.a[:2] + (a3,), law.b[:2] + (b3,), law.name + " merged")


def _engine_law(law: CountLaw):
    """The 3-category law as the exact engine's :class:`accountant.engines.blanket.CountLaw`."""
    from accountant.engines.blanket.law import CountLaw as EngineLaw

    law = merge_tail(law)
    if len(law.p) != 3 or abs(law.p[0] - law.p[1]) > mpmath.mpf(10) ** -30 * law.p[0]:
        raise ValueError("the engine needs three categories with p_1 = p_2")
    p12 = float(law.p[0])
    # no null category (p sums to 1): p3 = 1 - 2 p12 in floats, so that the engine sees
    # p' = p3 / (1 - 2 p12) = 1 exactly and sums over m alone (a rounded p' < 1 would send it
    # to the two-dimensional path: 0.5 s instead of 0.2 s at n = 1e10)
    p3 = 1.0 - 2.0 * p12 if abs(sum(law.p) - 1) < mpmath.mpf(10) ** -30 else float(law.p[2])
    return EngineLaw(p12, p3, tuple(float(x) for x in law.a), tuple(float(x) for x in law.b))


def binary_delta(n: int, p1: float, v1: float, v2: float) -> float:
    """A lower end of E[(v1 N + v2 (n - N))_+]/n for N ~ Bin(n, p1): ``d E[(N - c)_+] / n``
    with d = v1 - v2, c = -n v2 / d, by the closed form of
    :func:`accountant.engines.blanket.oue.binomial_excess` (one incomplete beta and one pmf,
    where the sum of the tails P[N >= j] cost about 1e5 of them at n = 1e9); its relative
    error is below ``FLOAT_REL_ERROR_OUE max(1, sqrt(n)/1e3)`` (measured there against 50-digit
    sums, and here in tests/accountant/bounds/test_lower_bounds.py), which is taken off."""
    from accountant.engines.blanket.oue import FLOAT_REL_ERROR_OUE, binomial_excess

    if v1 < v2:  # N' = n - N ~ Bin(n, 1 - p1) carries the larger coefficient
        p1, v1, v2 = 1.0 - p1, v2, v1
    if v1 <= 0.0:
        return 0.0
    if v2 >= 0.0:
        return (v1 * p1 + v2 * (1.0 - p1))
    d = v1 - v2
    c = -n * v2 / d                      # X > 0 iff N > c
    if math.floor(c) + 1 > n:
        return 0.0
    h = float(binomial_excess(np.array([float(n)]), np.array([c]), p1)[0][0])
    margin = FLOAT_REL_ERROR_OUE * max(1.0, math.sqrt(n) / 1e3)
    return max(d * h / n * (1.0 - margin), 0.0)


def _binary_slope(n: int, p1: float, v1: float, v2: float, s1: float, s2: float) -> float:
    """Estimate of d/d eps of :func:`binary_delta` when d v1 / d eps = s1, d v2 / d eps = s2:
    E[s1 N + s2 (n - N); X > 0] / n (the positive set moves with eps but contributes 0 at its
    edge).  Only for a search's Newton steps; never a certified number."""
    from scipy import stats

    if v1 < v2:
        p1, v1, v2, s1, s2 = 1.0 - p1, v2, v1, s2, s1
    if v1 <= 0.0:
        return 0.0
    if v2 >= 0.0:
        return s1 * p1 + s2 * (1.0 - p1)
    c = -n * v2 / (v1 - v2)
    k0 = math.floor(c) + 1
    if k0 > n:
        return 0.0
    tail = float(stats.binom.sf(k0 - 1, n, p1))  # P[N >= k0]
    mean_part = n * p1 * float(stats.binom.sf(k0 - 2, n - 1, p1)) if n > 1 else p1 * (k0 <= 1)
    return (s1 * mean_part + s2 * (n * tail - mean_part)) / n


@dataclass(frozen=True)
class LowerLaw:
    """A dataset pair of the real mechanism whose exact divergence is evaluated at any n.

    ``law`` is the count law of a post-processing of the pair's reports; ``alternatives``
    are other post-processings of the *same* reports.  Each one's divergence is a lower
    bound (data processing), so the largest is taken at each eps.  ``full``, when given, is
    an evaluator of the unreduced reports of the same pair
    (:class:`accountant.bounds.laws.pattern_lower.FullPatterns`: ``delta_and_slope`` returning
    None beyond its size caps, ``applies``, ``approx_log_delta``, ``approx_epsilon``); it
    takes part in the maximum wherever it evaluates.
    """

    law: CountLaw
    datasets: str
    alternatives: tuple = ()
    hash_model: Optional[str] = None  # "uniformly random hash", "one fixed hash", None (no hash)
    full: Optional[object] = None
    # (mechanism, eps0, s, t): the same datasets' reports with the image sizes, exact at small n
    # (:mod:`accountant.bounds.laws.image_sizes`), in the maximum where it applies
    small: Optional[tuple] = None

    def delta(self, n: int, eps: float) -> float:
        """Certified lower bound on the mechanism's delta at ``eps`` (float, margin applied)."""
        return self.delta_and_slope(n, eps)[0]

    def delta_and_slope(self, n: int, eps: float, target: Optional[float] = None,
                        bin_gap: Optional[float] = None) -> tuple[float, float]:
        """(:meth:`delta`, an estimate of d delta / d eps for a search's Newton steps; 0 when
        none is at hand).  Only the first is a certified number.  ``target`` (a search's
        delta) lets the engine's windows follow it; what they leave out only lowers a
        lower end, so any target is safe.  ``bin_gap`` (a chart's search, see
        :func:`lower_search`): the engine's bins stop at that gap from one bin, its windows
        leave out 1e-6 of the target, and the full evaluator takes its coarse cells; every
        value stays a certified lower end, only a little lower."""
        best = (self.full.delta_and_slope(n, eps, target, coarse=bin_gap is not None)
                if self.full is not None else None)
        vals = [law_delta_and_slope(law, n, eps, target, bin_gap)
                for law in self._contenders(n, eps, None if best is None else best[0])]
        if self.small is not None:
            from accountant.bounds.laws.image_sizes import exact_lower_delta

            v = exact_lower_delta(*self.small, n, eps)
            if v is not None:
                vals.append((v, 0.0))
        return max(vals + ([best] if best is not None else []))

    def _contenders(self, n: int, eps: float, floor: Optional[float] = None) -> tuple:
        """The laws worth a certified evaluation at ``eps``: all of them, except those whose
        saddle-point estimate is below ``1 - ALTERNATIVE_GAP`` times the best estimate, or
        times ``floor`` (a certified value already at hand, the full evaluator's) (each law
        alone gives a certified lower bound, so leaving one out can only lower the value; the
        estimates are within 2e-5 of the truth from n = 1e3 on, so the maximum is not lost).
        Halves the lower bound's cost where one post-processing clearly wins (most of a curve)."""
        laws = (self.law,) + tuple(self.alternatives)
        if (len(laws) == 1 and floor is None) or any(len(law.p) != 3 for law in laws):
            return laws
        from accountant.engines.blanket.window import approx_log_delta

        est = [approx_log_delta(_engine_law(law), n, eps) for law in laws]
        if any(e is None for e in est) or n < ALTERNATIVE_MIN_N:
            return laws
        best = max(est + ([math.log(floor)] if floor is not None and floor > 0.0 else []))
        if best == -math.inf:
            return laws
        return tuple(law for law, e in zip(laws, est) if e >= best + math.log1p(-ALTERNATIVE_GAP))

    def approx_epsilon(self, n: int, delta: float) -> Optional[float]:
        """Saddle-point estimate of the eps where the largest of the laws' divergences crosses
        ``delta`` (:func:`accountant.engines.blanket.approx_epsilon`; the root of a maximum of
        non-increasing functions is the largest root): a search's start, never reported.
        The full evaluator's estimate where it evaluates (its divergence is the largest: the
        others are post-processings of its reports).  None for a two-category law (binary RR),
        which has no estimate here."""
        from accountant.engines.blanket.window import approx_epsilon

        if self.full is not None and self.full.applies(n, delta):
            r = self.full.approx_epsilon(n, delta)
            if r is not None:
                return r
        roots = []
        for law in (self.law,) + tuple(self.alternatives):
            if len(law.p) == 2:
                return None
            r = approx_epsilon(_engine_law(law), n, delta)
            if r is None:
                return None
            roots.append(r)
        return max(roots)

    @property
    def eps_max(self) -> float:
        with mpmath.workdps(MP_DPS):
            top = max(float(mpmath.log(a / b)) for law in (self.law,) + tuple(self.alternatives)
                      for a, b in zip(law.a, law.b) if a > 0 and b > 0)
        if self.small is not None:  # only where the exact evaluation applies (its classes are few)
            from accountant.bounds.laws.image_sizes import applies, eps_max
            if applies(*self.small, 1):
                top = max(top, eps_max(*self.small))
        return top


def law_delta_and_slope(law: CountLaw, n: int, eps: float, target: Optional[float] = None,
                         bin_gap: Optional[float] = None) -> tuple[float, float]:
    """(certified lower end of one lower law's delta at eps, margin applied; slope estimate).
    ``bin_gap``: the engine's binned path may stop at this relative gap, starting from one
    bin (a chart's coarse search; the lower end is certified for any gap, only looser)."""
    if len(law.p) == 2:
        with mpmath.workdps(MP_DPS):
            v = [float(x) for x in law.values(eps)]
            u = mpmath.exp(mpmath.mpf(eps))
            dv = [float(-u * bc) for bc in law.b]  # v_c = a_c - e^eps b_c
        # the slope lets the search take Newton steps (a few evaluations instead of bisection)
        slope = _binary_slope(n, float(law.p[0]), v[0], v[1], dv[0], dv[1]) * (1 - LOWER_MARGIN)
        return max(binary_delta(n, float(law.p[0]), v[0], v[1]) * (1 - LOWER_MARGIN), 0.0), slope
    from accountant.engines.blanket.engine import positive_part

    # a chart's coarse search: bins stop at bin_gap from one bin, windows leave out 1e-6 of the
    # target (dropped mass only lowers a lower end)
    coarse = {} if bin_gap is None else dict(bin_gap=bin_gap, min_bins=1, truncation=1e-6)
    r = positive_part(_engine_law(law), n, eps, target_delta=target, **coarse)
    return max(r.lower * (1 - LOWER_MARGIN), 0.0), r.slope * (1 - LOWER_MARGIN)


def _rr_lower_law(eps0: float) -> LowerLaw:
    """Binary RR, D = (1, 1, ..., 1) vs D' = (2, 1, ..., 1): the count of 1-reports is sufficient."""
    e = check_law_eps0(eps0)
    with mpmath.workdps(MP_DPS):
        E = mpmath.exp(mpmath.mpf(e))
        om = E + 1
        law = count_law_from_categories([E / om, 1 / om], [1 / om, E / om], [E / om, 1 / om], "lower rr")
    return LowerLaw(law, "binary randomized response: D = (1, 1, ..., 1), D' = (2, 1, ..., 1)")


def collision_disjoint_lower_law(eps0: float, s: int, t: int, categories: str = "isolated") -> CountLaw:
    """Closed form of ``collision_lower_count_law(eps0, t, CollisionDatasets(s), categories)``
    for ``categories`` ``"isolated"`` or ``"three"``.

    x1, x1', x0 have pairwise disjoint item sets, so under a uniformly random hash the images
    A1, A2, A0 are independent and a fixed z lies in each with probability
    q = 1 - (1 - 1/t)^s.  A report falls in its own image with probability
    w = t q E / Omega (E/Omega per point of the image, E|A| = t q), and the images it is not
    drawn from are independent of it.

    * ``"isolated"``: 1 = z in A1 only (outside A2 and A0), 2 = z in A2 only, 3 = the rest:
      P_x1(1) = w (1 - q)^2, P_x1(2) = P_x0(1) = P_x0(2) = (1 - w) q (1 - q).
    * ``"three"``: 1 = z in A1 - A2, 2 = z in A2 - A1, 3 = the rest:
      P_x1(1) = w (1 - q), P_x1(2) = (1 - w) q, P_x0(1) = P_x0(2) = q (1 - q).

    x1' mirrors x1.  Neither is a refinement of the other.  A z in A1 that also lies in A0
    is reported by the other users as often as by x1 (likelihood ratio P_x1/P_x0 = 1 there,
    7.16 outside A0 at s = 4, t = 36, eps0 = 2), so leaving it out of category 1
    ("isolated") sharpens the evidence: at n = 1e4, delta = 1e-6 the certified eps goes
    from 0.0567 to 0.0699 (the 8 Venn regions, the exact divergence of these datasets,
    give 0.0705).  When the images overlap heavily (t ~ 3s, small eps0) category 1 of
    "isolated" gets too rare and "three" is the larger (0.00160 against 0.00131 at s = 4,
    t = 11, eps0 = 0.1); :func:`mechanism_lower_law` takes the larger of the two.  O(1)
    instead of the Venn programme (which they match, tests/test_lower_bounds.py).
    """
    e = check_law_eps0(eps0)
    s = check_law_int("s", s, 1)
    t = check_law_int("t", t, s + 1)
    if categories not in ("isolated", "three"):
        raise ValueError(f"categories must be 'isolated' or 'three', got {categories!r}")
    with mpmath.workdps(MP_DPS):
        E = mpmath.exp(mpmath.mpf(e))
        om = s * E + t - s
        q = 1 - (1 - mpmath.mpf(1) / t) ** s
        w = t * q * E / om
        if categories == "isolated":
            own, other, p0 = w * (1 - q) ** 2, (1 - w) * q * (1 - q), (1 - w) * q * (1 - q)
        else:
            own, other, p0 = w * (1 - q), (1 - w) * q, q * (1 - q)
        P1 = [own, other, 1 - own - other]
        P1p = [other, own, 1 - own - other]
        return count_law_from_categories(P1, P1p, [p0, p0, 1 - 2 * p0],
                          f"lower collision disjoint {categories} s={s} t={t}")


def coco_disjoint_lower_law(eps0: float, s: int, t: int, categories: str = "isolated") -> CountLaw:
    """Lower law of CoCo (Algorithm 1) for x1, x1', x0 with pairwise disjoint coordinate
    sets under uniformly random ``H1`` (pair, ``h = t/2`` of them) and ``H2`` (bucket in the
    pair), for ``categories`` ``"isolated"`` or ``"three"``.

    Category 1 is "z is the favoured bucket H(jb) of a pair holding exactly one entry of
    x1 (its writer for sure), and no entry of x1'", and for ``"isolated"`` also no entry
    of x0; category 2 mirrors it for x1'; 3 is the rest.  Per pair, P[occupied by x] =
    q = 1 - (1 - 1/h)^s and P[exactly one entry of x] = q1 = s (1/h) (1 - 1/h)^(s-1); a
    report lies in its own occupied pairs with probability w = h q (E + 1) / Omega and is
    otherwise uniform on its free buckets (:func:`mechanisms.randomizers.coco.coco_output_distribution`);
    the favoured bucket of a one-entry pair has probability E / Omega, and the hashes of
    the other inputs are independent of the report.  Hence

    * ``"isolated"``: P_x1(1) = h q1 (E / Omega) (1 - q)^2 and
      P_x1(2) = P_x0(1) = P_x0(2) = (1 - w) (q1 / 2) (1 - q);
    * ``"three"``: P_x1(1) = h q1 (E / Omega) (1 - q), P_x1(2) = (1 - w) q1 / 2 and
      P_x0(1) = P_x0(2) = (q1 / 2) (1 - q) (x0's report may lie in its own pairs);

    x1' mirrors x1.  Reports are mapped to categories by a function of (H1, H2, z) and the
    datasets: a post-processing, so each law's divergence is a lower bound.  Checked
    against enumeration of all (H1, H2) in tests/test_lower_bounds.py.
    """
    e = check_law_eps0(eps0)
    s = check_law_int("s", s, 1)
    t = check_law_int("t", t, 2 * s + 2)
    if t % 2:
        raise ValueError(f"t must be even for CoCo, got {t}")
    if categories not in ("isolated", "three"):
        raise ValueError(f"categories must be 'isolated' or 'three', got {categories!r}")
    with mpmath.workdps(MP_DPS):
        E = mpmath.exp(mpmath.mpf(e))
        om = s * E + t - s
        h = t // 2
        q = 1 - (1 - mpmath.mpf(1) / h) ** s
        q1 = s * (1 - mpmath.mpf(1) / h) ** (s - 1) / h
        w = h * q * (E + 1) / om
        if categories == "isolated":
            own = h * q1 * E / om * (1 - q) ** 2
            other = (1 - w) * q1 / 2 * (1 - q)
            p0 = other
        else:
            own = h * q1 * E / om * (1 - q)
            other = (1 - w) * q1 / 2
            p0 = q1 / 2 * (1 - q)
        P1 = [own, other, 1 - own - other]
        P1p = [other, own, 1 - own - other]
        return count_law_from_categories(P1, P1p, [p0, p0, 1 - 2 * p0], f"lower coco disjoint {categories} s={s} t={t}")


def needs_d_reason(params, what: str = "the certified lower bound") -> Optional[str]:
    """Why the disjoint-support construction of ``params`` (Collision / CoCo) does not
    exist, or None when it does: three inputs with pairwise disjoint s-sets need the
    dimension ``d`` to be known and ``d >= 3 s``.  Without ``d`` no lower number is
    reported (a lower bound states its dataset, and the dataset needs d)."""
    if params.name not in ("collision", "coco", "olh"):
        return None
    s, d = params.s, getattr(params, "d", None)
    if params.name == "olh" and d < 3:
        return f"{what} uses three distinct values, which needs k >= 3, got k = {d}"
    if d is None:
        return (f"{what} uses three inputs with pairwise disjoint s-sets, which needs the dimension: "
                f"give d (--d), the construction needs d >= 3 s = {3 * s}")
    if d < 3 * s:
        return (f"{what} uses three inputs with pairwise disjoint supports, "
                f"which needs d >= 3 s = {3 * s}, got d = {d}")
    return None


def oue_lower_law(eps0: float, k: int) -> LowerLaw:
    """Certified lower law of optimized unary encoding (true bit 1 w.p. a = 1/2, other bits 1
    w.p. b = 1/(e^eps0 + 1)) for D = (1, 3, ..., 3), D' = (2, 3, ..., 3) (k >= 3; k = 2:
    D = (1, 1, ..., 1), D' = (2, 1, ..., 1)).  Each report is mapped to
    {bits (y1, y2, y3) = (1, 0, 0), (0, 1, 0), other} (k = 2: (y1, y2) = (1, 0) kept w.p.
    b/(1-b), else "other", and (0, 1), other: a randomized post-processing of each report that
    gives the background's two categories the same mass b/2, as the engine needs), a
    post-processing, so the exact divergence of the three-category count law is a
    lower bound on the mechanism's:

        P_x1 = (a(1-b)^2, (1-a)b(1-b), rest),  P_x1' mirrored,
        P_x3 = (b(1-b)(1-a), b(1-b)(1-a), rest)

    (bit 3 = 0 is evidence of the differing user: the others send it as 1 w.p. 1/2), and,
    as an alternative post-processing of the same reports (the larger divergence is taken),
    {(y1, y2) = (1, 0), (0, 1), other}: P_x1 = (a(1-b), (1-a)b, rest),
    P_x3 = (b(1-b), b(1-b), rest), the larger one at small eps0 (0.01103 against 0.00960 at
    n = 1e4, eps0 = 0.5, delta = 1e-6).  For k >= 3 the reports are also evaluated without
    reduction (:class:`accountant.bounds.laws.pattern_lower.FullPatterns`, all eight patterns of
    bits 1, 2, 3: the exact divergence of the datasets), wherever that evaluation stays within
    its size caps; the largest certified value is taken at each eps (0.011388 at n = 1e4,
    eps0 = 0.5, delta = 1e-6).
    """
    e = check_law_eps0(eps0)
    k = check_law_int("k", k, 2)
    with mpmath.workdps(MP_DPS):
        a, b = mpmath.mpf(1) / 2, 1 / (mpmath.exp(mpmath.mpf(e)) + 1)
        if k >= 3:
            P1 = [a * (1 - b) ** 2, (1 - a) * b * (1 - b)]
            P0 = [b * (1 - b) * (1 - a)] * 2
            P1p = [P1[1], P1[0]]
        else:
            # x0 = x1 = 1: reports (1, 0) -> A w.p. b/(1-b) (else C), (0, 1) -> B, rest -> C
            # (a randomized post-processing of each report), so that P_x0(A) = P_x0(B) = b/2
            P1 = [b / 2, b / 2]
            P0 = list(P1)
            P1p = [b / 2 * b / (1 - b), (1 - b) / 2]
        law = count_law_from_categories(P1 + [1 - sum(P1)], P1p + [1 - sum(P1p)], P0 + [1 - sum(P0)],
                         f"lower oue k={k}")
    if k >= 3:
        with mpmath.workdps(MP_DPS):
            Q1 = [a * (1 - b), (1 - a) * b]
            Q0 = [b * (1 - b)] * 2
            two = count_law_from_categories(Q1 + [1 - sum(Q1)], [Q1[1], Q1[0], 1 - sum(Q1)], Q0 + [1 - sum(Q0)],
                             f"lower oue two bits k={k}")
        return LowerLaw(law, OUE_FULL_DATASETS, (two,), full=FullPatterns(oue_patterns(e)))
    return LowerLaw(law, "D = (1, 1, ..., 1), D' = (2, 1, ..., 1) (reports (y1, y2) = (1, 0) kept "
                         "w.p. b/(1-b), (0, 1), other)")


def variation_ratio_lower(params) -> tuple[Optional[LowerLaw], Optional[str]]:
    """(LowerLaw, None) or (None, why) for a :class:`accountant.core.params.VariationRatioParams`.

    The member of the class used: three inputs and three outputs (A, B, C), with
    ``alpha = beta/(p - 1)``, ``r = alpha p / q``:

        R(x1) = (p alpha, alpha, 1 - (1 + p) alpha),  R(x1') = (alpha, p alpha, 1 - (1 + p) alpha),
        R(x0) = (r, r, 1 - 2 r).

    It has ratio p and total variation (p - 1) alpha = beta between x1 and x1', and
    R(x1)/R(x0) = (q, q/p, (1 - (1 + p) alpha)/(1 - 2r)): it belongs to the class when
    2r <= 1 and the last ratio is <= q (checked; otherwise no lower bound, with the reason).
    For D = (x1, x0, ..., x0), D' = (x1', x0, ..., x0) the counts of A, B, C are sufficient,
    so the count law's divergence is the exact divergence of this randomizer.  It is the law
    of Wang et al.'s ``Delta`` (their upper *and* lower bound; wangsw/PrivacyAmplification).
    """
    p, q, a = params.p, params.q, params.alpha
    with mpmath.workdps(MP_DPS):
        P, Q = mpmath.mpf(p), mpmath.mpf(q)
        # alpha <= 1/(1+p) (beta <= (p-1)/(p+1), up to the rounding of beta's float): a smaller
        # alpha is a member with a smaller total variation, still in the class
        A = min(mpmath.mpf(params.beta) / (P - 1), 1 / (1 + P))
        r = A * P / Q
        rest1, rest0 = 1 - (1 + P) * A, 1 - 2 * r
        if rest0 < 0 or (rest1 > 0 and (rest0 <= 0 or rest1 > Q * rest0)):
            return None, (f"no randomizer of the three-output form has these parameters (p = {p:g}, "
                          f"beta = {params.beta:g}, q = {q:g}: the blanket output C of x0 is too rare "
                          f"for ratio q); no certified lower bound")
        law = count_law_from_categories([P * A, A, rest1], [A, P * A, rest1], [r, r, rest0],
                         f"lower variation-ratio p={p:g} beta={params.beta:g} q={q:g}")
    return LowerLaw(law, f"three-output randomizer with ratio p, total variation beta, ratio q to x0 "
                         f"(alpha = beta/(p-1) = {a:.6g}): D = (x1, x0, ..., x0), D' = (x1', x0, ..., x0)"), None


def mechanism_lower_law(params) -> Optional[LowerLaw]:
    """The concrete neighbouring datasets used for the certified lower bound of ``params``
    (a parameter object of :mod:`accountant.core.params`), or None when none is implemented.

    * rr, and generic (binary RR is an eps0-LDP randomizer, so the worst case over all of
      them is at least RR's): every other user holds the first value.
    * krr, k >= 3: the others hold a third value (exact for k = 3; for k > 3 the outputs
      other than the two differing values are merged, a post-processing).
    * collision: item sets of x1, x1', x0 pairwise disjoint, hash uniformly random over all
      functions, reports mapped to {z in H(x1) only, z in H(x1') only, other}, "only"
      meaning outside the other two images, or outside the other differing input's image
      (two post-processings), and to the eight patterns of [z in H(x1)], [z in H(x1')],
      [z in H(x0)] (:func:`accountant.bounds.laws.patterns.collision_patterns`, where
      its evaluation stays within its caps); the largest divergence is taken.
    * olh (k >= 3): D = (1, 3, ..., 3), D' = (2, 3, ..., 3) under the random hash, the reports
      not reduced where the evaluation stays within its caps
      (:func:`accountant.bounds.laws.patterns.olh_patterns`), else categories.
    * coco: the same datasets with coordinate sets, categories from the favoured buckets of
      one-entry pairs (:func:`coco_disjoint_lower_law`), and the eight patterns of "z is
      favoured by a fraction >= tau of x's entries in its pair"
      (:func:`accountant.bounds.laws.patterns.coco_patterns`).
    Both need the dimension ``d`` with d >= 3 s (None otherwise, :func:`needs_d_reason`).
    ``datasets`` and ``hash_model`` of the result say what the lower bound is about.
    """
    name = params.name
    if name == "variation-ratio":
        return variation_ratio_lower(params)[0]
    if name == "generic":
        ll = _rr_lower_law(params.eps0)
        return LowerLaw(ll.law, "binary randomized response (one eps0-LDP randomizer of the class): "
                        "D = (1, 1, ..., 1), D' = (2, 1, ..., 1)")
    if name == "rr" or (name == "krr" and params.k == 2):
        return _rr_lower_law(params.eps0)
    if name == "krr":
        return LowerLaw(krr_lower_count_law(params.eps0, params.k, "third"),
                        "D = (1, 3, ..., 3), D' = (2, 3, ..., 3)")
    if name == "oue":
        return oue_lower_law(params.eps0, params.k)
    if name == "olh":
        if needs_d_reason(params) is not None:
            return None
        e, t = params.eps0, params.t
        return LowerLaw(collision_disjoint_lower_law(e, 1, t, "isolated"),
                        f"D = (1, 3, ..., 3), D' = (2, 3, ..., 3) of [k], k = {params.d}, {OLH_FULL_DATASETS}",
                        (collision_disjoint_lower_law(e, 1, t, "three"),), "uniformly random hash",
                        full=FullPatterns(olh_patterns(e, t)))
    if name in ("collision", "coco"):
        e, s, t = params.eps0, params.s, params.t
        if needs_d_reason(params) is not None:
            return None
        law = collision_disjoint_lower_law if name == "collision" else coco_disjoint_lower_law
        what = "item" if name == "collision" else "coordinate"
        datasets = (f"D = (x1, x0, ..., x0), D' = (x1', x0, ..., x0): {what} sets of x1, x1' and x0 "
                    f"pairwise disjoint s-sets of [d], d = {params.d} >= 3s = {3 * s}")
        pat, text = ((collision_patterns, COLLISION_FULL_DATASETS) if name == "collision"
                     else (coco_patterns, COCO_FULL_DATASETS))
        small = (name, e, s, t) if s >= 2 else None
        text += ("; at small n (at most 50,000 count vectors of their classes) the reports with "
                 "the image sizes |H(x)| are evaluated exactly" if small else "")
        return LowerLaw(law(e, s, t, "isolated"), f"{datasets}, {text}", (law(e, s, t, "three"),),
                        "uniformly random hash", full=FullPatterns(pat(e, s, t)), small=small)
    return None


def _no_lower(params, delta):
    from accountant.core.result import BoundResult

    reason = needs_d_reason(params)
    if reason is None and params.name == "variation-ratio":
        reason = variation_ratio_lower(params)[1]
    if reason is None:
        reason = f"no certified lower bound is implemented for mechanism '{params.name}'"
    return BoundResult.not_applicable("lower", reason, delta)


def lower_bound_epsilon(params, n: int, delta: float, rtol: float = 1e-9):
    """Certified lower bound on the true eps_c of the mechanism (``BoundResult`` named
    ``lower``): the largest eps found at which the exact divergence of the datasets of
    :func:`mechanism_lower_law` is certified above ``delta``; 0 if none.

    Parameters
    ----------
    params : Params
        The mechanism's parameter object (Collision and CoCo need ``d >= 3s``).
    n : int
        Number of users.
    delta : float
        Target delta, in (0, 1).
    rtol : float
        Relative tolerance of the search.

    Returns
    -------
    BoundResult
        Named ``lower``; not applicable, with the reason, when the mechanism has no lower law.

    Examples
    --------
    >>> from accountant import ShuffleAccountant, fmt, lower_bound_epsilon, make_params
    >>> params = make_params("krr", 2.0, k=4)
    >>> lo = lower_bound_epsilon(params, 100_000, 1e-6)
    >>> up = ShuffleAccountant(params, 100_000).get_epsilon(1e-6)
    >>> print(lo.name, fmt(lo.epsilon, 4, "down"), fmt(up, 4, "up"), lo.epsilon <= up)
    lower 0.02956 0.02957 True
    """
    ll = mechanism_lower_law(params)
    if ll is None:
        return _no_lower(params, delta)
    return lower_search(ll, "lower", params, n, delta, rtol)


def lower_search(ll: LowerLaw, name: str, params, n: int, delta: float, rtol: float):
    """The largest eps found at which ``ll``'s certified divergence is above ``delta``."""
    from accountant.core.result import BoundResult
    from accountant.engines.search import largest_eps_above

    top = min(ll.eps_max, float(params.eps0))
    # a chart's tolerance (>= COARSE_RTOL) lets the engine's bins stop at a relative gap of
    # 10 rtol (at most 1e-4) from one bin, as the blanket curve's search does
    # (exact_bounds.blanket_bound): 2-3x cheaper evaluations at n = 1e8-1e9, the eps found moves by
    # far less than rtol, and the lower end stays certified
    bin_gap = min(10.0 * rtol, 1e-4) if rtol >= COARSE_RTOL else None

    def evaluate(eps: float):
        v, slope = ll.delta_and_slope(n, eps, delta, bin_gap)
        return v, v / (1 - LOWER_MARGIN) ** 2, slope

    # start just below the saddle-point estimate of the root (within 3e-7 of it from
    # n = 1e5 on: one evaluation in the usual case), else near the pair's eps_c (brackets
    # are within a factor ~2 of it); a lower bound needs few digits and no certified upper end
    rtol = max(rtol, LOWER_RTOL)
    guess = ll.approx_epsilon(n, delta)
    if guess is not None:
        guess *= 1.0 - 0.2 * rtol
    else:
        from accountant.bounds.pair_accountant import PAIR_GUESS_RTOL, pair_epsilon_result

        # a law without the paper's pair (OUE, variation-ratio) starts from the clone of any
        # eps0-LDP randomizer, which every randomizer here is (a start, never a number shown)
        if not hasattr(params, "mixture_weight"):
            from accountant.core.params import GenericLDP

            params = GenericLDP(float(params.eps0))
        guess = 0.8 * pair_epsilon_result(params, n, delta, PAIR_GUESS_RTOL).epsilon
    lo, _ = largest_eps_above(evaluate, delta, top, rtol=rtol,
                              guess=guess if 0.0 < guess < top else None)
    return BoundResult(name, lo, True, ll.datasets, delta)


def zero_reason(params, n: int) -> Optional[str]:
    """Why the lower end may be 0 although the datasets' divergence is positive, or None."""
    from accountant.bounds.laws.image_sizes import why_zero
    ll = mechanism_lower_law(params)
    if ll is None or ll.small is None:
        return None
    top = LowerLaw(ll.law, "", ll.alternatives).eps_max  # the reductions' (without .small)
    return why_zero(params, n, max(top, ll.full.eps_max) if ll.full is not None else top)


def lower_bound_delta(params, n: int, eps: float):
    """(certified lower bound on the mechanism's delta at ``eps``, same) or None."""
    ll = mechanism_lower_law(params)
    return None if ll is None else (ll.delta(n, float(eps)),) * 2
