"""Local randomizers, estimators, exact error formulas and baselines for sparse numerical vectors.

The package answers the utility side of a shuffled release: **how accurate is each
mechanism** for ``n`` users holding ``s``-sparse vectors in ``{-1, 0, 1}^d`` under a local
budget eps0, exactly (:func:`collision_mse`, :func:`coco_mse`, :func:`analytic_errors`,
:func:`optimal_t`) and by simulation (:func:`simulate`, :func:`compare`), **which mechanism,
output size t and eps0 meet a central budget** (:func:`plan`, certified on the proved
bounds of :mod:`accountant`), and frequency estimation with (almost) one message per user
(:class:`FE0`, :class:`FE1`).  The randomizers are Collision and CoCo (Wang et al.,
Sections 5 and 7), the baselines of Section 8 (PrivKV, PCKV-UE/GRR/AGRR, SUCCINCT) and the
frequency oracles OUE and OLH.  Randomness always comes from a seeded
``numpy.random.Generator`` passed in.

Examples
--------
>>> import numpy as np
>>> from mechanisms import Collision, synthetic_sparse_vectors, collision_mse
>>> rng = np.random.default_rng(0)
>>> data = synthetic_sparse_vectors(rng, n=2000, d=16, s=2)
>>> mech = Collision(d=16, s=2, eps0=2.0)
>>> est = mech.estimate(mech.randomize(data, rng), data.n)
>>> est.mean.shape
(16,)
>>> print(f"{collision_mse(2000, 16, 2, 2.0, mech.t).mean:.4f}")  # exact, for any data
0.0284
>>> from mechanisms import BASELINES
>>> sorted(BASELINES)
['pckv-agrr', 'pckv-grr', 'pckv-ue', 'privkv', 'succinct']

Layers
------
:mod:`mechanisms.core` (the data model) and :mod:`mechanisms.analysis` (exact error
formulas) at the bottom; :mod:`mechanisms.randomizers`, :mod:`mechanisms.baselines` and
:mod:`mechanisms.frequency` above them; :mod:`mechanisms.evaluation` (data, metrics,
simulation) and :mod:`mechanisms.planning` above those; this package re-exports the public
names (``__all__``); :mod:`mechanisms.interfaces` (the command line) sits above it and is
not re-exported.

May import: :mod:`accountant` below its interfaces, and every layer of this package below
:mod:`mechanisms.interfaces`.
"""
from accountant.core.lazy import lazy_names as _lazy_names
from typing import TYPE_CHECKING

__all__ = [
    # data model
    "SparseVectors",
    "Estimates",
    "synthetic_sparse_vectors",
    # the paper's randomizers and their exact errors
    "Collision",
    "CoCo",
    "collision_mse",
    "coco_mse",
    "optimal_t",
    "analytic_errors",
    # baselines (Wang et al., Section 8)
    "BASELINES",
    "PrivKV",
    "PCKVUE",
    "PCKVGRR",
    "PCKVAGRR",
    "Succinct",
    # frequency oracles OUE / OLH
    "oue_rates",
    "oue_perturb",
    "oue_support_counts",
    "olh_rates",
    "olh_perturb",
    "olh_support_counts",
    "estimate_counts",
    "frequency_mse",
    "report_bits",
    # frequency estimation in the shuffle model
    "FE0",
    "FE1",
    "make_protocol",
    # simulation
    "simulate",
    "compare",
    # deployment planner
    "plan",
    "Plan",
    "InfeasiblePlan",
]

#: the module that defines each public name: a name is imported on first use, so that importing the
#: package (``python -m mechanisms``) imports no numerics before its command line has parsed
_DEFINED_IN = {
    "mechanisms.core.data": ("Estimates", "SparseVectors"),
    "mechanisms.analysis.collision": ("collision_mse",),
    "mechanisms.analysis.coco": ("coco_mse",),
    "mechanisms.analysis.errors": ("analytic_errors", "optimal_t"),
    "mechanisms.randomizers.collision": ("Collision",),
    "mechanisms.randomizers.coco": ("CoCo",),
    "mechanisms.randomizers.frequency_oracles": (
        "estimate_counts", "frequency_mse", "olh_perturb", "olh_rates", "olh_support_counts",
        "oue_perturb", "oue_rates", "oue_support_counts", "report_bits",
    ),
    "mechanisms.baselines": ("BASELINES", "PCKVAGRR", "PCKVGRR", "PCKVUE", "PrivKV", "Succinct"),
    "mechanisms.frequency.protocols": ("FE0", "FE1", "make_protocol"),
    "mechanisms.evaluation.synthetic": ("synthetic_sparse_vectors",),
    "mechanisms.evaluation.simulate": ("compare", "simulate"),
    "mechanisms.planning.plan": ("InfeasiblePlan", "Plan"),
    "mechanisms.planning.planner": ("plan",),
}
_HOME, __getattr__, __dir__ = _lazy_names(globals(), _DEFINED_IN, __all__)


if TYPE_CHECKING:  # the same names for readers of the source (type checkers, the API reference)
    from mechanisms.core.data import Estimates, SparseVectors
    from mechanisms.analysis.collision import collision_mse
    from mechanisms.analysis.coco import coco_mse
    from mechanisms.analysis.errors import analytic_errors, optimal_t
    from mechanisms.randomizers.collision import Collision
    from mechanisms.randomizers.coco import CoCo
    from mechanisms.randomizers.frequency_oracles import (
        estimate_counts,
        frequency_mse,
        olh_perturb,
        olh_rates,
        olh_support_counts,
        oue_perturb,
        oue_rates,
        oue_support_counts,
        report_bits,
    )
    from mechanisms.baselines import BASELINES, PCKVAGRR, PCKVGRR, PCKVUE, PrivKV, Succinct
    from mechanisms.frequency.protocols import FE0, FE1, make_protocol
    from mechanisms.evaluation.synthetic import synthetic_sparse_vectors
    from mechanisms.evaluation.simulate import compare, simulate
    from mechanisms.planning.plan import InfeasiblePlan, Plan
    from mechanisms.planning.planner import plan
