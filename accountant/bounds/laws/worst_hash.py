"""The worst-hash lower bound: the exact divergence under one fixed clean hash function.

Part of :mod:`accountant.bounds.laws`; the package docstring has the mathematics.
"""
from __future__ import annotations
from functools import singledispatch
from typing import Optional
import mpmath
from accountant.core.dispatch import supports, unsupported
from accountant.core.randomizers import CoCoParams, CollisionParams, OLHParams
from accountant.bounds.laws.count_law import CountLaw, MP_DPS, check_law_eps0, check_law_int, blanket_count_law, count_law_delta_exact, count_law_delta_float, krr_count_law
from accountant.bounds.laws.collision_lower import CollisionDatasets, count_law_from_categories, best_collision_lower_bound, collision_category_law, collision_dataset_candidates, collision_lower_count_law, krr_lower_count_law, venn_count_law
from accountant.bounds.laws.lower import LowerLaw, lower_search, coco_disjoint_lower_law, collision_disjoint_lower_law, lower_bound_delta, lower_bound_epsilon, mechanism_lower_law, needs_d_reason

__all__ = [
    "CountLaw",
    "blanket_count_law",
    "krr_count_law",
    "count_law_delta_exact",
    "count_law_delta_float",
    "CollisionDatasets",
    "venn_count_law",
    "collision_category_law",
    "collision_lower_count_law",
    "krr_lower_count_law",
    "collision_dataset_candidates",
    "best_collision_lower_bound",
    "collision_disjoint_lower_law",
    "coco_disjoint_lower_law",
    "mechanism_lower_law",
    "needs_d_reason",
    "lower_bound_epsilon",
    "lower_bound_delta",
    "worst_hash_lower_law",
    "worst_hash_lower_epsilon",
    "worst_hash_lower_delta",
]


def worst_hash_lower_law(eps0: float, s: int, t: int) -> CountLaw:
    r"""Exact law of the reports of Collision / CoCo under one fixed *clean* hash, the
    witness that no bound proved for every hash family can be much smaller than the blanket.

    One hash function is a hash family (a point mass).  Take x1, x1', x0 with pairwise
    disjoint item (CoCo: coordinate) sets and a hash under which x1 and x1' each put
    ``E/Omega`` on ``s`` buckets of their own, A1 and A2 (disjoint), and ``1/Omega`` on every
    other bucket:

    * Collision: ``h`` injective on the items of x1 and of x1' with disjoint images A1, A2;
      x0's items on ``m = min(s, t - 2s)`` buckets outside A1 and A2 (all of them when
      ``t < 3s``: several of x0's items then share a bucket, which a fixed hash may do).
    * CoCo: x1 and x1' in distinct pairs except ``q = max(0, 2s - t/2)`` shared pairs
      (opposite favoured buckets); x0's entries favour the non-favoured bucket of a pair of
      x1 or x1' alone, or a bucket of a free pair, on ``m = min(s, t - 2s)`` pairs (entries
      sharing a pair favour the same bucket, so each occupied pair has weights E and 1
      whoever writes last).

    Every input with ``s`` occupied buckets (pairs) puts ``E`` on them and ``1`` elsewhere
    (relative to ``Omega``; Definition 5, Algorithm 1 with free weight
    ``(Omega - s(E+1))/(t - 2s) = 1``); x0 with ``m < s`` has ``E`` on its ``m`` buckets and
    ``g = (Omega - mE)/(t - m)`` (CoCo: the Algorithm-1 weights of its pairs, same totals).
    On the categories (A1, A2, rest):

        P_x1 = (sE, s, t - 2s)/Omega,   P_x1' = (s, sE, t - 2s)/Omega,
        P_x0 = (p0, p0, 1 - 2 p0),  p0 = s/Omega (t >= 3s),
                                    p0 = ((3s - t)E + t - s)/(2 Omega) (2s <= t < 3s),

    the second being the smallest mass any input can leave on A1 and on A2 alike (the rest
    holds at most ``(t - 2s)E``).  The divergence of D = (x1, x0, ..., x0) vs
    D' = (x1', x0, ..., x0) after mapping each report to its category (a post-processing)
    is the count law returned.  Its eps_c is a certified lower bound on the eps_c of the
    mechanism with that hash family, hence on the worst case over hash families, while the
    exact blanket (:func:`blanket_count_law`) is an upper bound for every family: the two
    bracket the best bound that can be proved without knowing the family's joint law.  For
    ``t >= 3s`` it is k-RR's "third value" law with sets of ``s`` buckets as values.
    """
    e = check_law_eps0(eps0)
    s = check_law_int("s", s, 1)
    t = check_law_int("t", t, 2 * s)
    if t == 2 * s and s < 2:
        raise ValueError("s = 1, t = 2 leaves x0 no bucket split evenly between A1 and A2")
    with mpmath.workdps(MP_DPS):
        E = mpmath.exp(mpmath.mpf(e))
        om = s * E + t - s
        p0 = s / om if t >= 3 * s else ((3 * s - t) * E + t - s) / (2 * om)
        P1 = [s * E / om, s / om, (t - 2 * s) / om]
        P1p = [s / om, s * E / om, (t - 2 * s) / om]
        return count_law_from_categories(P1, P1p, [p0, p0, 1 - 2 * p0], f"lower worst hash s={s} t={t}")


@singledispatch
def worst_hash_datasets(params, m: int) -> str:
    """The datasets and the fixed hash of the worst-hash lower bound of ``params`` (a hashed
    mechanism: a hash family to choose), ``m`` buckets for x0; refused for another type."""
    raise unsupported(params, "the worst-hash lower bound", worst_hash_datasets)


@worst_hash_datasets.register(OLHParams)
def _olh_datasets(params, m: int) -> str:
    # s = 1: one value per user, g = t buckets, domain [k] (params.d)
    return (f"D = (1, 3, ..., 3), D' = (2, 3, ..., 3) of [k], k = {params.d}, one fixed hash (the worst "
            f"family): values 1, 2 and 3 hashed to three distinct buckets of [g], g = {params.t}")


def _sets_datasets(params, m: int, what: str) -> str:
    return (f"D = (x1, x0, ..., x0), D' = (x1', x0, ..., x0), disjoint s-sets of [d] "
            f"(d = {params.d}), one fixed hash (the worst family): x1, x1' {what} on disjoint "
            + (f"buckets, x0 on {m} other bucket(s)" if m > 0 else "buckets, x0 on one bucket of each"))


@worst_hash_datasets.register(CollisionParams)
def _collision_datasets(params, m: int) -> str:
    return _sets_datasets(params, m, "items hashed injectively")


@worst_hash_datasets.register(CoCoParams)
def _coco_datasets(params, m: int) -> str:
    return _sets_datasets(params, m, "one entry per occupied pair")


def worst_hash_lower(params) -> tuple[Optional[LowerLaw], Optional[str]]:
    """(:class:`LowerLaw` of :func:`worst_hash_lower_law` for ``params``, None) or (None, why)."""
    if not supports(worst_hash_datasets, params):
        return None, (f"the worst-hash lower bound is for Collision, CoCo and OLH (a hash family to choose); "
                      f"for '{params.name}' use 'lower'")
    if getattr(params, "hash_model", "any") == "random":
        return None, ("the worst-hash lower bound is the floor under bounds proved for every hash family; "
                      "with hash_model 'random' the hash is assumed uniformly random: use 'lower'")
    s, t = params.s, params.t
    if t < 2 * s or (t == 2 * s and s < 2):
        return None, (f"the worst-hash lower bound needs disjoint favoured buckets for x1 and x1' and an "
                      f"even split for x0: t >= 2s (and s >= 2 at t = 2s), got s = {s}, t = {t}")
    why = needs_d_reason(params, "the worst-hash lower bound")
    if why is not None:
        return None, why
    text = worst_hash_datasets(params, min(s, t - 2 * s))
    return LowerLaw(worst_hash_lower_law(params.eps0, s, t), text, hash_model="one fixed hash"), None


def worst_hash_lower_epsilon(params, n: int, delta: float, rtol: float = 1e-9):
    """Certified lower bound on the eps_c of Collision / CoCo with the worst hash family
    (``BoundResult`` named ``lower-worst-hash``; :func:`worst_hash_lower_law`)."""
    from accountant.core.result import BoundResult

    ll, why = worst_hash_lower(params)
    if ll is None:
        return BoundResult.not_applicable("lower-worst-hash", why, delta)
    return lower_search(ll, "lower-worst-hash", params, n, delta, rtol)


def worst_hash_lower_delta(params, n: int, eps: float):
    """(certified lower bound on the worst hash family's delta at ``eps``, same) or None."""
    ll, _ = worst_hash_lower(params)
    if ll is None:
        return None
    v = ll.delta(n, float(eps))
    return v, v
