"""One bound, one number: an upper bound's eps_c agrees with its own delta(eps).

The eps search of a bound certifies its answer with evaluations whose summation windows
(and bins) are chosen for the *target* delta; the bound's delta form (``BoundSpec.delta``,
what ``python -m accountant delta`` and :func:`~accountant.bounds.registry.proved_delta`
print) evaluates at a given eps without a target, with windows chosen for the value.  Both
upper ends are certified, but they can differ in the sixth digit, so that without this step the
delta command would print a delta above the target at the epsilon command's own eps_c
(random-hash OLH, n = 2447, delta = 1.75e-4 -> 1.75000715e-4).  :func:`agree_with_delta`
re-evaluates the found eps with the delta form and, where its upper end is above the target,
moves eps up (doubling steps from ``rtol``) until it is not; the achieved delta reported is
then the delta form's, the very number the delta command prints at that eps.

May import: accountant.core.
"""
from __future__ import annotations

from accountant.core.result import BoundResult

# doubling steps from rtol: 40 reach any eps below eps0 from rtol = 1e-15
MAX_STEPS = 40


def agree_with_delta(spec, params, n: int, delta: float, res: BoundResult, rtol: float,
                     no_amplification: str) -> BoundResult:
    """``res`` (bound ``spec`` at ``delta``) with an eps whose ``spec.delta`` upper end is <=
    ``delta``; eps0 (post-processing, reason ``no_amplification``) when none below it is.
    Only upper bounds with a delta form and an answer below eps0 are checked."""
    if (spec.kind != "upper" or spec.delta is None or not res.applicable or res.epsilon is None
            or not res.epsilon < params.eps0):
        return res
    eps, step = res.epsilon, max(float(rtol), 1e-12)
    for _ in range(MAX_STEPS):
        up = spec.delta(params, n, eps)[1]
        if up <= delta:
            return BoundResult(res.name, eps, True, res.reason, delta, up, res.seconds)
        eps, step = eps * (1.0 + step), 2.0 * step
        if eps >= params.eps0:
            break
    return BoundResult(res.name, params.eps0, True, no_amplification, delta, 0.0, res.seconds)
