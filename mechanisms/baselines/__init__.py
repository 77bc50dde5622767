"""Baselines of Wang et al., Section 8: PrivKV, PCKV-UE, PCKV-GRR, PCKV-AGRR, SUCCINCT.

Every class is constructed as ``Cls(d=..., s=..., eps0=..., **optional)`` and offers
``randomize(data, rng)``, ``estimate(reports, n)``, ``simulate(data, rng)``,
``output_distribution(x_indices, x_signs)``, ``analytic_mse(data_or_item_freq, n)``,
``analytic_mse_per_coordinate(...)`` and ``analytic_mse_default(n, key_fraction=None,
pos_fraction=0.5)``.  See the module docstrings for the algorithms implemented.

May import: :mod:`mechanisms.core` (the data model); nothing else of this project.
"""
from __future__ import annotations

from mechanisms.baselines._common import BaselineMechanism, all_inputs, default_item_freq
from mechanisms.baselines.pckv import PCKVAGRR, PCKVGRR, PCKVUE
from mechanisms.baselines.privkv import PrivKV
from mechanisms.baselines.succinct import Succinct

BASELINES: dict[str, type] = {
    "privkv": PrivKV,
    "pckv-ue": PCKVUE,
    "pckv-grr": PCKVGRR,
    "pckv-agrr": PCKVAGRR,
    "succinct": Succinct,
}
"""The baselines of Wang et al., Section 8, by their command-line name."""


def default_analytic_mse(name: str, n: int, d: int, s: int, eps0: float,
                         key_fraction: float | None = None, pos_fraction: float = 0.5,
                         **options) -> dict:
    """Dashboard helper: ``BASELINES[name](d, s, eps0, **options).analytic_mse_default(n, ...)``.

    Default data: every key held by ``key_fraction`` (default s/d) of the users, a
    fraction ``pos_fraction`` of them with value +1.
    """
    if name not in BASELINES:
        raise ValueError(f"name must be one of {sorted(BASELINES)}, got {name!r}")
    mech = BASELINES[name](d=d, s=s, eps0=eps0, **options)
    return mech.analytic_mse_default(n, key_fraction=key_fraction, pos_fraction=pos_fraction)


__all__ = ["BASELINES", "BaselineMechanism", "PrivKV", "PCKVUE", "PCKVGRR", "PCKVAGRR",
           "Succinct", "all_inputs", "default_item_freq", "default_analytic_mse"]
