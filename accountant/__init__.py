"""Privacy accounting for the shuffle model of differential privacy.

The package answers two questions about ``n`` users who each apply a local randomizer
(eps0-LDP) and whose reports are shuffled: **what central (eps, delta) do they get**
(:class:`ShuffleAccountant`, with the smallest *proved* upper bound first, a certified lower
bound beside it), and **which local budget eps0 meets a central target**
(:func:`local_epsilon`).  Beside these: every bound of the registry by name
(:func:`compute_bound`, :func:`compare`, :data:`REGISTRY`), the paper's dominating pair
(:class:`PairAccountant`), composition over rounds (:func:`compose_rounds`,
:func:`compose_schedule`) and the balls-into-bins protocol (:func:`bib_epsilon`).

Every number returned as an upper bound is one: truncated mass is added on the safe side,
and a value that cannot be justified is reported as not applicable with the reason.

Examples
--------
>>> from accountant import ShuffleAccountant, fmt, local_epsilon, make_params
>>> acc = ShuffleAccountant(make_params("collision", 2.0, s=4), n=100_000)
>>> print(fmt(acc.get_epsilon(1e-6), 4, "up"))  # an upper bound, printed rounded up
0.02392
>>> print(fmt(local_epsilon(100_000, 0.5, 1e-6), 4, "down"))  # largest eps0, rounded down
5.917

The registry of bounds is data: which bound is proved for which mechanism is a query.

>>> from accountant import BOUND_NAMES, MECHANISMS, REGISTRY, Params, status
>>> MECHANISMS[:4]
('generic', 'collision', 'coco', 'krr')
>>> "blanket" in BOUND_NAMES and REGISTRY["blanket"].proved("collision")
True
>>> status("paper", "collision")["proved"]
False
>>> import typing; [k.__name__ for k in typing.get_args(Params)][:3]
['GenericLDP', 'CollisionParams', 'CoCoParams']

Layers
------
The sub-packages are layers; an import points to the same or a lower one
(``tests/test_architecture.py``):

0. :mod:`accountant.core`: parameter objects, results, limits, number formats;
1. :mod:`accountant.engines`: exact divergences, the privacy-blanket engine, binomial
   kernels, searches;
2. :mod:`accountant.bounds` (the registry of bounds, closed forms, mechanism laws) and
   :mod:`accountant.protocols` (balls-into-bins);
3. :mod:`accountant.composition` (PLD, rounds, schedules) and :mod:`accountant.accounting`
   (:class:`ShuffleAccountant`, :func:`local_epsilon`);
4. this package: the public names below (``__all__``), re-exported from where they are
   defined;
5. :mod:`accountant.interfaces` (command line, tables, figures, file I/O) sits above it and
   above :mod:`mechanisms`; it is not re-exported here.

May import: every layer below :mod:`accountant.interfaces`.
"""
from accountant.core.lazy import lazy_names as _lazy_names
from typing import TYPE_CHECKING

__all__ = [
    # the accountant and its inverse
    "ShuffleAccountant",
    "EpsilonReport",
    "DeltaReport",
    "local_epsilon",
    "local_epsilon_family",
    "min_users",
    "MinUsers",
    # deployments as they are run (colluders, dummies, sampling, reports, mixes, rounds)
    "Deployment",
    "deployed_epsilon",
    "deployed_delta",
    # parameters of the local randomizers
    "make_params",
    "Params",
    "MECHANISMS",
    "GenericLDP",
    "ApproximateLDP",
    "CollisionParams",
    "CoCoParams",
    "KRRParams",
    "OLHParams",
    "OUEParams",
    "VariationRatioParams",
    "collision_paper_t",
    "coco_theorem7_t",
    # any finite randomizer, given as its probability matrix
    "FiniteRandomizer",
    "load_matrix",
    "FiniteBound",
    "finite_upper_epsilon",
    "finite_upper_delta",
    "finite_lower_epsilon",
    "finite_lower_delta",
    # printing a bound in its safe direction
    "fmt",
    # the registry of bounds
    "compute_bound",
    "compare",
    "proved_epsilon",
    "best_proved",
    "status",
    "REGISTRY",
    "BOUND_NAMES",
    "BoundSpec",
    "BoundResult",
    "lower_bound_epsilon",
    # the paper's dominating pair and the exact blanket
    "PairAccountant",
    "EpsilonResult",
    "DominatingPair",
    "hockey_stick_divergence",
    "blanket_law",
    "blanket_exact_epsilon",
    # composition over rounds
    "RoundSpec",
    "CompositionResult",
    "compose_rounds",
    "compose_schedule",
    "largest_eps0",
    "parse_schedule",
    # the balls-into-bins protocol
    "bib_delta",
    "bib_epsilon",
]

#: the module that defines each public name: a name is imported on first use, so that importing the
#: package (``python -m accountant``, the dashboard's first page) imports no engine and no numerics
_DEFINED_IN = {
    "accountant.core.params": (
        "MECHANISMS", "ApproximateLDP", "CoCoParams", "CollisionParams", "GenericLDP", "KRRParams",
        "OLHParams", "OUEParams", "Params", "VariationRatioParams", "make_params",
    ),
    "accountant.core.rules": ("coco_theorem7_t", "collision_paper_t"),
    "accountant.core.finite": ("FiniteRandomizer", "load_matrix"),
    "accountant.core.numfmt": ("fmt",),
    "accountant.core.result": ("BoundResult",),
    "accountant.engines.pair.law": ("DominatingPair",),
    "accountant.engines.pair.divergence": ("hockey_stick_divergence",),
    "accountant.engines.blanket.law": ("blanket_law",),
    "accountant.engines.blanket.engine": ("blanket_exact_epsilon",),
    "accountant.bounds.registry": (
        "BOUND_NAMES", "REGISTRY", "BoundSpec", "best_proved", "compare", "compute_bound",
        "proved_epsilon", "status",
    ),
    "accountant.bounds.laws.lower": ("lower_bound_epsilon",),
    "accountant.bounds.finite": (
        "FiniteBound", "finite_lower_delta", "finite_lower_epsilon", "finite_upper_delta",
        "finite_upper_epsilon",
    ),
    "accountant.bounds.pair_accountant": ("EpsilonResult", "PairAccountant"),
    "accountant.protocols.bib.divergence": ("bib_delta",),
    "accountant.protocols.bib.search": ("bib_epsilon",),
    "accountant.composition.compose": (
        "CompositionResult", "RoundSpec", "compose_rounds", "compose_schedule", "largest_eps0",
        "parse_schedule",
    ),
    "accountant.accounting.calibration": ("local_epsilon", "local_epsilon_family"),
    "accountant.accounting.batch_size": ("MinUsers", "min_users"),
    "accountant.accounting.deployment": ("Deployment",),
    "accountant.accounting.deployment_proof": ("deployed_delta", "deployed_epsilon"),
    "accountant.accounting.shuffle": ("DeltaReport", "EpsilonReport", "ShuffleAccountant"),
}
_HOME, __getattr__, __dir__ = _lazy_names(globals(), _DEFINED_IN, __all__)


if TYPE_CHECKING:  # the same names for readers of the source (type checkers, the API reference)
    from accountant.core.params import (
        MECHANISMS,
        CoCoParams,
        CollisionParams,
        ApproximateLDP,
        GenericLDP,
        KRRParams,
        OLHParams,
        OUEParams,
        Params,
        VariationRatioParams,
        make_params,
    )
    from accountant.core.rules import coco_theorem7_t, collision_paper_t
    from accountant.core.finite import FiniteRandomizer, load_matrix
    from accountant.core.numfmt import fmt
    from accountant.core.result import BoundResult
    from accountant.engines.pair.law import DominatingPair
    from accountant.engines.pair.divergence import hockey_stick_divergence
    from accountant.engines.blanket.law import blanket_law
    from accountant.engines.blanket.engine import blanket_exact_epsilon
    from accountant.bounds.registry import (
        BOUND_NAMES,
        REGISTRY,
        BoundSpec,
        best_proved,
        compare,
        compute_bound,
        proved_epsilon,
        status,
    )
    from accountant.bounds.laws.lower import lower_bound_epsilon
    from accountant.bounds.finite import (
        FiniteBound,
        finite_lower_delta,
        finite_lower_epsilon,
        finite_upper_delta,
        finite_upper_epsilon,
    )
    from accountant.bounds.pair_accountant import EpsilonResult, PairAccountant
    from accountant.protocols.bib.divergence import bib_delta
    from accountant.protocols.bib.search import bib_epsilon
    from accountant.composition.compose import (
        CompositionResult,
        RoundSpec,
        compose_rounds,
        compose_schedule,
        largest_eps0,
        parse_schedule,
    )
    from accountant.accounting.calibration import local_epsilon, local_epsilon_family
    from accountant.accounting.batch_size import MinUsers, min_users
    from accountant.accounting.deployment import Deployment
    from accountant.accounting.deployment_proof import deployed_delta, deployed_epsilon
    from accountant.accounting.shuffle import DeltaReport, EpsilonReport, ShuffleAccountant
