"""The headline's screen: a costly bound is not searched where one evaluation of its delta at
the best eps found so far proves that its eps_c cannot be smaller.

The headline eps_c is the minimum over a parameter type's headline bounds
(:func:`accountant.bounds.registry.proved_params_epsilon`); a bound far above the best one (the
clone above the exact blanket at large n) would cost the most of it.

Proof that the screen leaves the minimum unchanged.  Let eps* < eps0 be the smallest eps_c
found so far and ``lower`` the certified lower end of bound b's delta at eps* (its delta form,
``BoundSpec.delta``), with ``lower > delta``.  b's true delta(eps) (a hockey-stick divergence:
of the clone pair, of the blanket's two laws; for the clone at fewer users, where its search
halves n, at least its value at n, docs/proved.md "Monotonicity in n") is non-increasing in
eps, so for every eps <= eps*: true(eps) >= true(eps*) >= lower > delta.  The eps that b's
search returns has a certified upper delta <= delta, so its true delta is <= delta: it is
above eps*; the agreement with the delta form (:mod:`.agreement`) only moves it up, and the
post-processing answer eps0 is above eps* too.  So b's eps_c is strictly above eps*, at
least the minimum: leaving b out changes neither the headline's number nor its name.

The lower end needs no precision: for the clone it is the divergence's lower end at n alone
(:data:`LOWER_AT`), not the delta form's, whose upper end halves n where the window is over its
cost limit (up to five evaluations at n = 1e10); its lower end is at most the value at n.

May import: :mod:`accountant.core`.
"""
from __future__ import annotations

from typing import Callable, Optional

from accountant.core.result import BoundResult


def _clone_lower(params, n: int, eps: float) -> float:
    """Certified lower end of the clone pair's delta at n users (its pair: the bound's own)."""
    from accountant.bounds.clone_bound import clone_pair
    from accountant.engines.pair.divergence import hockey_stick_divergence

    return hockey_stick_divergence(clone_pair(params, n), eps).lower


#: bound name -> ``(params, n, eps) -> certified lower end of its delta`` where that is cheaper
#: than its delta form (the others: the delta form's lower end)
LOWER_AT = {"clone": _clone_lower}

#: the engines whose search the screen may replace by one evaluation of the delta form (the
#: closed forms cost less than that evaluation)
SCREENED_ENGINES = ("pair", "exact")


def screened_out(spec, best: Optional[BoundResult], params, n: int, delta: float,
                 delta_at: Callable[[float], Optional[tuple]]) -> Optional[BoundResult]:
    """Bound ``spec`` left out of the headline of ``params`` at n users and target ``delta``, or
    None (search it).  ``best``: the smallest proved eps_c found so far; ``delta_at(eps)``: the
    bound's certified ``(lower, upper)`` delta (None: no delta form).  Left out (module
    docstring) where its certified lower end at ``best.epsilon < eps0`` is above ``delta``:
    returned as not applicable, the reason saying its eps_c is not smaller than the best's (no
    number of its own is computed).

    Examples
    --------
    >>> from accountant import make_params
    >>> from accountant.bounds.registry import REGISTRY
    >>> best = BoundResult("blanket", 0.02, True, None, 1e-6, 9e-7)
    >>> R = make_params("krr", 2.0, k=4)
    >>> print(screened_out(REGISTRY["clone"], best, R, 100_000, 1e-6, None).reason)
    not smaller than 0.02 (the bound 'blanket'): its certified delta there is at least 0.000363983 > 1e-06
    >>> screened_out(REGISTRY["blanket"], best, R, 100_000, 1e-6, lambda e: (5e-7, 3e-6)) is None
    True
    """
    if (spec.engine not in SCREENED_ENGINES or spec.delta is None or best is None or best.epsilon is None
            or not best.epsilon < params.eps0):
        return None
    if spec.name in LOWER_AT:
        lower = LOWER_AT[spec.name](params, n, best.epsilon)
    else:
        v = delta_at(best.epsilon)
        lower = 0.0 if v is None else v[0]
    if not lower > delta:
        return None
    return BoundResult.not_applicable(
        spec.name, f"not smaller than {best.epsilon!r} (the bound '{best.name}'): its certified delta there "
                   f"is at least {lower:.6g} > {delta:.6g}", delta)
