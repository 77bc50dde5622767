"""Speed of composition over rounds (accountant.composition.compose), cold caches.

Usage: python benchmarks/bench_compose.py

1. T = 1,000 identical rounds at n = 1e6 (Collision s = 8, eps0 = 1), delta = 1e-6,
   including the PLD construction (goal <= 2 s).
2. A 100-round heterogeneous schedule (n in {1e5, 3e5, 1e6}, eps0 in {0.5, 1, 2, 4},
   several mechanisms), delta = 1e-6 (goal <= 5 s).
(1 and 2 at one discretisation level, without the lower bound.)
3. The default (adaptive discretisation, certified lower bound) at T = 4: binary RR n = 1000,
   eps0 = 1, delta = 1e-6, and k-RR k = 4, n = 1000, eps0 = ln 13, delta = 1e-4.
4. The default (adaptive, without the lower bound) of T = 1,000 Collision rounds at n = 1e6
   (s = 8, eps0 = 1), delta = 1e-6: CPU seconds, the spread reached and the samples per round.
"""
from __future__ import annotations

import math
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from accountant.composition import compose, profile
from _smoke import sizes, run_main  # noqa: E402


def _clear() -> None:
    for f in (profile.profile_value, compose.profile_support, compose.round_pld):
        f.cache_clear()


ROUNDS, SCHEDULE = sizes((1000, 100), (10, 4))
BRACKET = [(compose.RoundSpec(1000, 1.0, "rr"), 1e-6)] + sizes(
    [(compose.RoundSpec(1000, math.log(13), "krr", k=4), 1e-4)], [])


def main() -> int:
    _clear()
    t0 = time.perf_counter()
    r = compose.compose_rounds(compose.RoundSpec(10 ** 6, 1.0, "collision", s=8), ROUNDS, 1e-6,
                               adaptive=False, lower=False)
    t1 = time.perf_counter()
    print(f"T={ROUNDS} identical, n=1e6, collision s=8, eps0=1: {t1 - t0:.2f} s  "
          f"eps={r.epsilon:.5g} estimate_of_bound={r.epsilon_estimate_of_bound:.5g} "
          f"advanced={r.advanced_epsilon:.5g} naive={r.naive_epsilon:.5g} step={r.step:.3g}")
    _clear()
    kinds = [dict(mechanism="generic"), dict(mechanism="collision", s=8), dict(mechanism="coco", s=4),
             dict(mechanism="krr", k=16)]
    specs = []
    for i in range(SCHEDULE):
        specs.append(compose.RoundSpec((10 ** 5, 3 * 10 ** 5, 10 ** 6)[i % 3],
                                       (0.5, 1.0, 2.0, 4.0)[i % 4], **kinds[(i // 3) % 4]))
    t0 = time.perf_counter()
    r = compose.compose_schedule(specs, 1e-6, adaptive=False, lower=False)
    t1 = time.perf_counter()
    print(f"{SCHEDULE}-round heterogeneous schedule ({len(set((s.n, s.eps0) for s in specs))} distinct "
          f"(n, eps0)): {t1 - t0:.2f} s  eps={r.epsilon:.5g} estimate_of_bound={r.epsilon_estimate_of_bound:.5g} "
          f"advanced={r.advanced_epsilon:.5g} naive={r.naive_epsilon:.5g} step={r.step:.3g}")
    # the default: adaptive discretisation and the certified lower bound (the bracket)
    for spec, delta in BRACKET:
        _clear()
        t0 = time.perf_counter()
        r = compose.compose_rounds(spec, 4, delta)
        t1 = time.perf_counter()
        print(f"T=4 bracket, {spec.mechanism} n={spec.n} eps0={spec.eps0:.4g}: {t1 - t0:.2f} s  "
              f"lower={r.epsilon_lower:.6g} eps={r.epsilon:.6g} spread={r.spread:.2e} "
              f"samples={r.samples}")
    _clear()
    t0 = time.process_time()
    r = compose.compose_rounds(compose.RoundSpec(10 ** 6, 1.0, "collision", s=8), ROUNDS, 1e-6, lower=False)
    t1 = time.process_time()
    print(f"T={ROUNDS} identical, n=1e6, collision s=8, eps0=1, adaptive: {t1 - t0:.2f} s CPU  "
          f"eps={r.epsilon:.7g} estimate_of_bound={r.epsilon_estimate_of_bound:.7g} "
          f"spread={r.spread:.2e} samples={r.samples}")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
