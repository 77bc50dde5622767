"""A lower law and its evaluation: :class:`LowerLaw` (a dataset pair of the real mechanism, its
count laws and the evaluators of its reports), the certified lower end of its delta at any n,
and the search for the largest eps at which it stays above a target (:func:`lower_search`).

Part of :mod:`accountant.bounds.laws`; the mechanisms' own lower laws are in :mod:`.lower`.
"""
from __future__ import annotations
import math
from dataclasses import dataclass
from typing import Optional
import mpmath
import numpy as np
from accountant.bounds.laws.count_law import CountLaw, MP_DPS


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
    error is below ``FLOAT_REL_ERROR_OUE max(1, sqrt(n)/1e3)`` (checked there against 50-digit
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


def _binom_sf(k: int, n: int, p: float) -> float:
    """P[Bin(n, p) > k] as ``scipy.stats.binom.sf`` computes it (1 below the support, 0 from n on,
    the same kernel inside it) without importing :mod:`scipy.stats`, which costs a cold command
    more CPU than its whole computation."""
    try:  # scipy.stats.binom's own sf kernel (SciPy's Boost binding, a private name)
        from scipy.special._ufuncs import _binom_sf as sf
    except ImportError:  # an older SciPy without it (the minimum versions): scipy.stats itself
        from scipy.stats import binom

        sf = binom.sf
    if k < 0:
        return 1.0
    return 0.0 if k >= n else float(sf(k, n, p))


def _binary_slope(n: int, p1: float, v1: float, v2: float, s1: float, s2: float) -> float:
    """Estimate of d/d eps of :func:`binary_delta` when d v1 / d eps = s1, d v2 / d eps = s2:
    E[s1 N + s2 (n - N); X > 0] / n (the positive set moves with eps but contributes 0 at its
    edge).  Only for a search's Newton steps; never a certified number."""
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
    tail = _binom_sf(k0 - 1, n, p1)  # P[N >= k0]
    mean_part = n * p1 * _binom_sf(k0 - 2, n - 1, p1) if n > 1 else p1 * (k0 <= 1)
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
