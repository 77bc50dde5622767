"""Speed of the deployment bounds, cold caches: wall and CPU seconds, peak memory.

Usage: python benchmarks/bench_deployments.py

1. One round at n = 1e9 (eps0 = 3, delta = 1e-5): colluders, dummies, n-min (generic and
   4-RR), sampling q = 0.01 (generic, both neighbour relations), reports r = 2, a mix of
   two groups (goal <= 2 s each).
2. T = 10,000 rounds with sampling (n = 1e5, q = 0.01, generic, eps0 = 3, delta = 1e-5:
   the Koskela anchor), goal <= 10 s and 2 GB.
3. One round with the per-count bound of a named randomizer (RR, 4-RR) at the anchor.
4. Reports and a mix over T = 10 rounds at n = 1e9 (the per-round profile's PLD).
Dummies, reports and mixes of 4-RR include their certified lower bounds (the count pair).
"""
from __future__ import annotations

import os
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from _smoke import sizes, run_main  # noqa: E402
from accountant import make_params  # noqa: E402
from accountant.accounting import deployment_groups as G  # noqa: E402
from accountant.accounting import deployments as D  # noqa: E402

N_BIG, ROUNDS, NAMED = sizes((10 ** 9, 10_000, ("rr", "krr")), (300, 10, ()))


def _timed(label: str, fn) -> None:
    w, c = time.perf_counter(), time.process_time()
    r = fn()
    lo = "" if r.lower_epsilon is None else f" lower={r.lower_epsilon:.7g}"
    print(f"{label:<58} {time.perf_counter() - w:7.2f} s wall {time.process_time() - c:7.2f} s cpu  "
          f"eps={r.epsilon:.7g} ({r.bound}){lo}", flush=True)


def main() -> int:
    g3, k3 = make_params("generic", 3.0), make_params("krr", 3.0, k=4)
    n = N_BIG
    print(f"one round at n = {n:.0e}, eps0 = 3, delta = 1e-5; load average {os.getloadavg()[0]:.1f}")
    for name, p in (("generic", g3), ("4-RR", k3)):
        _timed(f"{name} colluders 1% ", lambda p=p: D.deployment_epsilon(p, n, 1e-5, colluders=n // 100))
        _timed(f"{name} dummies 10%", lambda p=p: D.deployment_epsilon(p, n, 1e-5, dummies=n // 10))
        _timed(f"{name} n-min", lambda p=p: D.deployment_epsilon(p, n, 1e-5, n_min=True))
        _timed(f"{name} reports r = 2", lambda p=p: G.reports_epsilon(p, n, 1e-5, 2))
    for nb in ("substitute", "add-remove"):
        _timed(f"generic sampling q = 0.01 ({nb})", lambda nb=nb: D.sampled_epsilon(g3, n, 1e-5, 0.01, neighbours=nb))
    mix = G.parse_mix([{"count": n // 2, "mechanism": "krr", "k": 4, "eps0": 2},
                       {"count": n // 2, "mechanism": "krr", "k": 4, "eps0": 3}])
    _timed("mix: two 4-RR groups, eps0 = 2 and 3", lambda: G.mix_epsilon(mix, 1e-5))
    _timed("4-RR reports r = 2, T = 10 rounds", lambda: G.reports_rounds_epsilon(k3, n, 1e-5, 2, 10))
    _timed("mix: two 4-RR groups, T = 10 rounds", lambda: G.mix_rounds_epsilon(mix, 1e-5, 10))
    _timed(f"T = {ROUNDS} rounds, sampling q = 0.01, n = 1e5, generic",
           lambda: D.sampled_rounds_epsilon(g3, 100_000, 1e-5, 0.01, ROUNDS))
    for mech in NAMED:
        p = make_params("rr", 3.0) if mech == "rr" else k3
        _timed(f"{mech} per-count sampling q = 0.01, n = 1e5, one round",
               lambda p=p: D.sampled_epsilon(p, 100_000, 1e-5, 0.01))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
