"""Certified lower bounds on eps_c: exact divergences of concrete neighbouring datasets.

Part of :mod:`accountant.bounds.laws`; the package docstring has the mathematics.  The datasets of
each parameter type are one registration of :func:`mechanism_lower`; the law they give is
evaluated by :mod:`.lower_law`.
"""
from __future__ import annotations
from functools import singledispatch
from typing import Optional
import mpmath
from accountant.bounds.laws.count_law import CountLaw, MP_DPS, check_law_eps0, check_law_int
from accountant.bounds.laws.collision_lower import count_law_from_categories, krr_lower_count_law
from accountant.bounds.laws.pattern_lower import FullPatterns
from accountant.bounds.laws.patterns import (COCO_FULL_DATASETS, COLLISION_FULL_DATASETS, OLH_FULL_DATASETS,
                                             OUE_FULL_DATASETS, coco_patterns, collision_patterns, olh_patterns,
                                             oue_patterns)
from accountant.bounds.laws.lower_law import (  # noqa: F401 (re-exported: the lower law and its search)
    ALTERNATIVE_GAP, ALTERNATIVE_MIN_N, COARSE_RTOL, LOWER_MARGIN, LOWER_RTOL, LowerLaw, binary_delta,
    law_delta_and_slope, lower_search, merge_tail)
from accountant.core.dispatch import unsupported
from accountant.core.finite import FiniteRandomizer
from accountant.core.randomizers import (CoCoParams, CollisionParams, GenericLDP, KRRParams, OLHParams, OUEParams, VariationRatioParams)
from accountant.core.randomizers_numerical import ApproximateLDP, GaussianParams, LaplaceParams


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


@singledispatch
def needs_d_reason(params, what: str = "the certified lower bound") -> Optional[str]:
    """Why the disjoint-support construction of ``params`` (Collision / CoCo) does not
    exist, or None when it does: three inputs with pairwise disjoint s-sets need the
    dimension ``d`` to be known and ``d >= 3 s``.  Without ``d`` no lower number is
    reported (a lower bound states its dataset, and the dataset needs d).  OLH: three
    distinct values need k >= 3.  None for a type without this construction."""
    return None


@needs_d_reason.register(CollisionParams)
@needs_d_reason.register(CoCoParams)
def _needs_disjoint_sets(params, what: str = "the certified lower bound") -> Optional[str]:
    s, d = params.s, params.d
    if d is None:
        return (f"{what} uses three inputs with pairwise disjoint s-sets, which needs the dimension: "
                f"give d (--d), the construction needs d >= 3 s = {3 * s}")
    if d < 3 * s:
        return (f"{what} uses three inputs with pairwise disjoint supports, "
                f"which needs d >= 3 s = {3 * s}, got d = {d}")
    return None


@needs_d_reason.register(OLHParams)
def _needs_three_values(params, what: str = "the certified lower bound") -> Optional[str]:
    if params.d < 3:  # the domain size k is OLH's d
        return f"{what} uses three distinct values, which needs k >= 3, got k = {params.d}"
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


@singledispatch
def mechanism_lower(params) -> tuple[Optional[LowerLaw], Optional[str]]:
    """(the :class:`LowerLaw` of ``params``, None), or (None, why there is none): the concrete
    neighbouring datasets of the certified lower bound, one registration per parameter type
    (its docstring says which datasets).  ``datasets`` and ``hash_model`` of the law say what
    the lower bound is about.  A type with no registration is refused
    (:class:`~accountant.core.dispatch.UnsupportedMechanismError`)."""
    raise unsupported(params, "the certified lower bound", mechanism_lower)


def mechanism_lower_law(params) -> Optional[LowerLaw]:
    """The concrete neighbouring datasets used for the certified lower bound of ``params``
    (a parameter object of :mod:`accountant.core.params`), or None when there is none
    (:func:`mechanism_lower` says why)."""
    return mechanism_lower(params)[0]


#: whom the certified lower bound of a type is a lower bound for, where it is not the mechanism
#: itself: the datasets of one member of a class bound the worst randomizer of the class from below
LOWER_SCOPE = {VariationRatioParams: "the worst randomizer of the class",
               GenericLDP: "the worst randomizer of the class (binary randomized response is one)",
               ApproximateLDP: "the worst (eps0, delta0)-LDP randomizer (binary randomized response is one)"}


@mechanism_lower.register(VariationRatioParams)
def _variation_ratio(params):
    """The three-output member of the class (:func:`variation_ratio_lower`)."""
    return variation_ratio_lower(params)


@mechanism_lower.register(GenericLDP)
@mechanism_lower.register(ApproximateLDP)  # eps0-LDP binary RR is (eps0, delta0)-LDP: one of the class
def _generic(params):
    """Binary RR's datasets: an eps0-LDP randomizer, so the worst case over all of them is at
    least RR's."""
    ll = _rr_lower_law(params.eps0)
    return LowerLaw(ll.law, "binary randomized response (one eps0-LDP randomizer of the class): "
                    "D = (1, 1, ..., 1), D' = (2, 1, ..., 1)"), None


@mechanism_lower.register(KRRParams)
def _krr(params):
    """k = 2 (rr): every other user holds the first value.  k >= 3: the others hold a third
    value (exact for k = 3; for k > 3 the outputs other than the two differing values are
    merged, a post-processing)."""
    if params.k == 2:
        return _rr_lower_law(params.eps0), None
    return LowerLaw(krr_lower_count_law(params.eps0, params.k, "third"),
                    "D = (1, 3, ..., 3), D' = (2, 3, ..., 3)"), None


@mechanism_lower.register(OUEParams)
def _oue(params):
    """:func:`oue_lower_law`."""
    return oue_lower_law(params.eps0, params.k), None


@mechanism_lower.register(OLHParams)
def _olh(params):
    """k >= 3: D = (1, 3, ..., 3), D' = (2, 3, ..., 3) under the random hash, the reports not
    reduced where the evaluation stays within its caps
    (:func:`accountant.bounds.laws.patterns.olh_patterns`), else categories."""
    why = needs_d_reason(params)
    if why is not None:
        return None, why
    e, t = params.eps0, params.t
    return LowerLaw(collision_disjoint_lower_law(e, 1, t, "isolated"),
                    f"D = (1, 3, ..., 3), D' = (2, 3, ..., 3) of [k], k = {params.d}, {OLH_FULL_DATASETS}",
                    (collision_disjoint_lower_law(e, 1, t, "three"),), "uniformly random hash",
                    full=FullPatterns(olh_patterns(e, t))), None


def _disjoint_sets(params, kind: type, law, what: str, patterns, text: str):
    """The datasets of Collision and CoCo: the ``what`` sets of x1, x1', x0 pairwise disjoint
    s-sets of [d] (d >= 3s, else (None, why)), categories by ``law`` (two post-processings),
    the eight ``patterns`` and, for s >= 2 at small n, the reports with the image sizes
    (:mod:`accountant.bounds.laws.image_sizes`, as the parameter type ``kind``)."""
    why = needs_d_reason(params)
    if why is not None:
        return None, why
    e, s, t = params.eps0, params.s, params.t
    datasets = (f"D = (x1, x0, ..., x0), D' = (x1', x0, ..., x0): {what} sets of x1, x1' and x0 "
                f"pairwise disjoint s-sets of [d], d = {params.d} >= 3s = {3 * s}")
    small = (kind, e, s, t) if s >= 2 else None
    text += ("; at small n (at most 50,000 count vectors of their classes) the reports with "
             "the image sizes |H(x)| are evaluated exactly" if small else "")
    return LowerLaw(law(e, s, t, "isolated"), f"{datasets}, {text}", (law(e, s, t, "three"),),
                    "uniformly random hash", full=FullPatterns(patterns(e, s, t)), small=small), None


@mechanism_lower.register(CollisionParams)
def _collision(params):
    """Item sets of x1, x1', x0 pairwise disjoint, hash uniformly random over all functions,
    reports mapped to {z in H(x1) only, z in H(x1') only, other}, "only" meaning outside the
    other two images, or outside the other differing input's image (two post-processings),
    and to the eight patterns of [z in H(x1)], [z in H(x1')], [z in H(x0)]
    (:func:`accountant.bounds.laws.patterns.collision_patterns`, where its evaluation stays
    within its caps); the largest divergence is taken.  Needs d >= 3s."""
    return _disjoint_sets(params, CollisionParams, collision_disjoint_lower_law, "item",
                          collision_patterns, COLLISION_FULL_DATASETS)


@mechanism_lower.register(CoCoParams)
def _coco(params):
    """Collision's datasets with coordinate sets, categories from the favoured buckets of
    one-entry pairs (:func:`coco_disjoint_lower_law`), and the eight patterns of "z is
    favoured by a fraction >= tau of x's entries in its pair"
    (:func:`accountant.bounds.laws.patterns.coco_patterns`).  Needs d >= 3s."""
    return _disjoint_sets(params, CoCoParams, coco_disjoint_lower_law, "coordinate",
                          coco_patterns, COCO_FULL_DATASETS)


@mechanism_lower.register(LaplaceParams)
@mechanism_lower.register(GaussianParams)
@mechanism_lower.register(FiniteRandomizer)
def _finite(params):
    """None here: a matrix's lower bound is its triples' (:mod:`accountant.bounds.finite`)."""
    return None, f"no certified lower bound is implemented for mechanism '{params.name}'"


def _no_lower(params, delta, why: Optional[str]):
    from accountant.core.result import BoundResult

    return BoundResult.not_applicable(
        "lower", why or f"no certified lower bound is implemented for mechanism '{params.name}'", delta)


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
    ll, why = mechanism_lower(params)
    if ll is None:
        return _no_lower(params, delta, why)
    return lower_search(ll, "lower", params, n, delta, rtol)


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
