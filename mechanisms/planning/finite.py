"""The frequency catalogue in the planner: k-RR and the catalogue members planned as probability
matrices (Hadamard response, subset selection, symmetric unary encoding, local hashing with
g = 2), their exact estimator variance, report size and the largest eps0 whose proved eps_c
meets a target.

k-RR is planned on the accountant's named path (``make_params("krr", eps0, k=d)``, which
agrees with its matrix form); the kinds with ``matrix`` (:mod:`mechanisms.planning.kinds`)
are built as matrices over the domain [d] (:mod:`mechanisms.randomizers.catalogue`) and
accounted on the finite-randomizer path (:mod:`accountant.bounds.finite`, through the
registry).  A matrix has at most ``accountant.core.finite.MAX_CELLS`` entries: a member whose
matrix at d is larger is not planned (``finite_fits``; asked for by name it is refused with
the limit).
"""
from __future__ import annotations

import math
from functools import lru_cache

from accountant.bounds.registry import certified_epsilon
from accountant.bounds.screen import forward_verdict
from accountant.core.finite import MAX_CELLS, FiniteRandomizer
from accountant.engines.search import calibrate
from mechanisms.planning.kinds import planner_kind
from mechanisms.randomizers.catalogue import catalogue_randomizer


def outputs_of(mechanism: str, d: int, eps0: float) -> int:
    """Number of outputs of the member over [d] at eps0 (its matrix has d times as many cells)."""
    return planner_kind(mechanism).outputs(d, eps0)


def finite_fits(mechanism: str, d: int, eps0: float) -> bool:
    """Whether the member's matrix over [d] at eps0 is within the finite path's size limit
    (True for a kind not planned as a matrix)."""
    kind = planner_kind(mechanism)
    return not kind.matrix or d * kind.outputs(d, eps0) <= MAX_CELLS


def check_finite_size(mechanism: str, d: int, eps0_max: float) -> None:
    """A member asked for by name whose matrix over [d] is too large even at the largest eps0
    (subset selection's subsets shrink as eps0 grows): refused with the limit."""
    if not finite_fits(mechanism, d, eps0_max):
        raise ValueError(
            f"{planner_kind(mechanism).name} over d = {d} values has {outputs_of(mechanism, d, eps0_max):,} "
            f"outputs: its probability matrix is beyond the finite-randomizer limit of {MAX_CELLS:,} "
            f"entries (plan it for a smaller d, or use olh / oue / krr)")


def finite_member(mechanism: str, d: int, eps0: float) -> FiniteRandomizer:
    """The member's probability matrix over [d] at eps0."""
    kind = planner_kind(mechanism)
    return catalogue_randomizer(kind.catalogue, d, eps0, **dict(kind.options))


@lru_cache(maxsize=256)
def finite_eps0(mechanism: str, d: int, n: int, target: float, delta: float, eps0_max: float,
                rtol: float = 1e-4) -> float:
    """Largest eps0 <= eps0_max (to ``rtol``) at which the member's matrix has a proved eps_c
    <= ``target`` at ``delta``.  Every eps0 tried is decided on the number the forward command
    certifies (``accountant.bounds.registry.certified_epsilon``, so that the eps_c reported at
    the answer is <= the target) or a conclusive cheap verdict on it, the answer on the number
    itself, as :func:`accountant.local_epsilon_family` does; eps0 = target
    qualifies by post-processing; an eps0 whose matrix is beyond the size limit counts as not
    meeting the target.  The answer is verified; where the proved curve is not monotone
    (subset selection's size rule) it may not be the largest."""

    def build(e0: float):
        # the member's matrix at e0, None beyond the size limit; eps0 = target by post-processing
        if e0 <= target or not finite_fits(mechanism, d, e0):
            return None if e0 > target else e0
        return finite_member(mechanism, d, e0)

    def eps_c(R) -> float:
        if not isinstance(R, FiniteRandomizer):
            return math.inf if R is None else R
        return certified_epsilon(R, n, delta).epsilon

    def screen(R):  # the forward's number decided cheaply where that is conclusive
        return eps_c(R) <= target if not isinstance(R, FiniteRandomizer) else forward_verdict(R, n, target, delta)

    found = calibrate(build, target, eps_c, min(target, eps0_max), eps0_max, rtol=rtol, screen=screen)
    if found.x is None or found.value > target:  # pragma: no cover - eps0 = target qualifies
        raise ArithmeticError("the catalogue search returned an unverified eps0")
    return found.x
