"""The Laplace randomizer's eps_c: generic eps0-LDP bound, proved continuous bound, reference, lower bound.

Usage: ``PYTHONPATH=. python scripts/laplace_table.py [--delta 1e-6]``; prints a Markdown table
(docs/explanation/numerical-randomizers.md holds its output).

Columns: ``generic`` the smallest proved bound for every eps0-LDP randomizer (the headline of
``--mechanism generic``); ``proved`` the certified cells of the continuous law
(:mod:`accountant.bounds.continuous`); ``reference`` the eps where the mean-atom binning of the
continuous law (2^14 cells a half; each cell at its conditional mean: below the continuous law in
the convex order) has delta = target, by the lattice engine's central value (n <= 1e5) or the
saddle-point estimate (n = 1e9): a numerical value of the exact continuous blanket from below, not
a bound; ``lower`` the binned randomizer's certified lower bound (valid for the continuous
mechanism: binning is post-processing).
"""
from __future__ import annotations

import argparse
import math
import time

from scipy.optimize import brentq

from accountant.bounds.continuous import laplace_binned, laplace_epsilon, pair_cells
from accountant.bounds.finite import finite_lower_epsilon
from accountant.bounds.registry import proved_params_epsilon
from accountant.core.params import make_params
from accountant.engines.continuous import CellLaw
from accountant.engines.lattice import lattice_positive_part
from accountant.engines.saddle import log_positive_part

REFERENCE_CELLS = 1 << 14


def mean_atoms(eps0: float) -> CellLaw:
    law = pair_cells(eps0, -1.0, 1.0, REFERENCE_CELLS)
    return law


def reference_epsilon(eps0: float, n: int, delta: float, lo: float, hi: float) -> float:
    """The root of the mean-atom law's delta(eps) = delta (module docstring)."""
    import numpy as np

    law = mean_atoms(eps0)
    w = np.concatenate([law.mass, [law.null]])

    def log_delta(e: float) -> float:
        z_a, z_b = law.a_mean, law.b_mean
        if n <= 10 ** 5:
            r = lattice_positive_part(z_a, z_b, law.mass, n, e, step_fraction=0.02, min_size=1 << 18)
            return math.log(r.central)
        v = log_positive_part(w, np.concatenate([z_a - math.exp(e) * z_b, [0.0]]), n)
        return v - math.log(n)

    return brentq(lambda e: log_delta(e) - math.log(delta), lo, hi, xtol=1e-12, rtol=1e-7)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--delta", type=float, default=1e-6)
    args = ap.parse_args()
    print("| eps0 | n | generic | proved (continuous) | reference | lower | proved / reference - 1 | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    for eps0 in (1.0, 4.0):
        params = make_params("laplace", eps0)
        for n in (10 ** 3, 10 ** 5, 10 ** 9):
            gen = proved_params_epsilon(make_params("generic", eps0), n, args.delta).epsilon
            t0 = time.perf_counter()
            up, _ = laplace_epsilon(params, n, args.delta, rtol=1e-5)
            sec = time.perf_counter() - t0
            ref = reference_epsilon(eps0, n, args.delta, 0.8 * up, up * 1.0001)
            lo = finite_lower_epsilon(laplace_binned(params), n, args.delta, 1e-5).epsilon
            print(f"| {eps0:g} | {n:.0e} | {gen:.4g} | {up:.5g} | {ref:.5g} | {lo:.4g} | "
                  f"{up / ref - 1:.2e} | {sec:.2f} |")


if __name__ == "__main__":
    main()
