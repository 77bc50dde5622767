"""Deployment planner: the most accurate Collision / CoCo configuration for a central budget
(and, for a frequency estimate of one value per user, OLH, OUE, k-RR and the catalogue's
randomizers as matrices: :mod:`mechanisms.planning.finite`).

Given a target central guarantee ``(target_eps, delta)`` of the whole release (one round,
``rounds`` identical rounds, or a schedule of rounds) for shuffled users with
``d``-dimensional, ``s``-sparse data, :func:`plan`

1. **screens** every mechanism over the admissible hash ranges ``t`` (Collision: ``t > s``;
   CoCo: even ``t >= 2s + 2``): for a geometric grid of ``t`` (refined around its minimum)
   the largest eps0 whose *saddle-point estimate* of the exact blanket's eps_c
   (:func:`accountant.engines.blanket.approx_epsilon`, within ~3e-7 relative of the proved
   value from n = 1e5 on) meets the target, and the exact MSE there
   (:mod:`mechanisms.analysis`, vectorised over ``t``).  With rounds, the per-round target
   of the screen is the single-round (eps, delta / T) of a pilot whose T-round
   composition meets the total (:func:`accountant.composition.compose.approx_schedule_epsilon`).
   No privacy claim rests on the screen: it only places the finalists;
2. for each mechanism's best ``t`` (the **finalist**) finds the largest eps0 *on the
   proved bound* (:func:`accountant.accounting.calibration.local_epsilon` with the screen's value as
   its starting point; with rounds: the composition estimate ranks the mechanisms, and the
   winner's eps0 is certified on the PLD composition
   :func:`accountant.composition.compose.compose_schedule`, moved down until it meets the total),
   capped at ``max_eps0``;
3. recommends the finalist with the smallest MSE and **certifies** it once more at the
   end: its proved eps_c (one round) or its composed eps (T rounds / schedule) is
   ``<= target_eps``.  Every eps_c reported is that proved number; screen points carry
   ``eps_c = None``;
4. repeats the recommendation for ``n/2`` and ``2n`` (``sensitivity``) and, under a cap,
   computes the uncapped plan to say what the cap costs.

Every eps_c quoted is the toolkit's certified upper bound (the exact privacy blanket; see
docs/proved.md, "Findings").

The deployment planner: mechanism, t and eps0 for a central budget.

May import: the accountant below its interfaces, and every numeric layer of :mod:`mechanisms`.
"""
from mechanisms.planning.plan import (  # noqa: F401
    CAP_COST_RESOLUTION,
    Candidate,
    ESTIMATES,
    InfeasiblePlan,
    LITTLE_AMPLIFICATION,
    LOW_LOCAL_PROTECTION_EPS0,
    MECHANISMS,
    Plan,
)
from mechanisms.planning.screen import (  # noqa: F401
    DELTA_MIN,
    MAX_ROUNDS,
    SCREEN_PAST_MIN,
    SCREEN_RATIO,
    SCREEN_REFINE,
    default_mechanisms,
    evaluate,
    screen,
    screen_eps0,
)
from mechanisms.planning.rounds import (  # noqa: F401
    ROUNDS_EPS0_MIN,
    ROUNDS_MARGIN,
    ROUNDS_MAX_CERTIFY,
)
from mechanisms.planning.planner import (  # noqa: F401
    plan,
    render_plan,
)

__all__ = [
    'CAP_COST_RESOLUTION',
    'Candidate',
    'DELTA_MIN',
    'ESTIMATES',
    'InfeasiblePlan',
    'LITTLE_AMPLIFICATION',
    'LOW_LOCAL_PROTECTION_EPS0',
    'MAX_ROUNDS',
    'MECHANISMS',
    'Plan',
    'ROUNDS_EPS0_MIN',
    'ROUNDS_MARGIN',
    'ROUNDS_MAX_CERTIFY',
    'SCREEN_PAST_MIN',
    'SCREEN_RATIO',
    'SCREEN_REFINE',
    'default_mechanisms',
    'evaluate',
    'plan',
    'render_plan',
    'screen',
    'screen_eps0',
]
