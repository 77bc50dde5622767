"""Time of the whole Amplification page at its defaults: the headline numbers
(``ShuffleAccountant.epsilon_result`` at eps0 = 1) and the default chart's curves (the
proved eps_c, the certified lower bound, the paper's Theorem 5 value and the best published
proved bound: ``figure.default_curve_bounds``) at 25 values of eps0 in [0.1, 5], computed as
the page computes them (one task per point and bound, the page's curve tolerance), cold
caches per row.  "first draft" is the headline plus the page's first pass (every 6th eps0: ``figure.draft_indices``; "-" where the page draws none: ``figure.draft_worth_drawing``), "page" everything.

The curves run as the page runs them, on the persistent worker processes
(``tables.start_rows`` for the first draft and the points in between, then the headline
in the main process, then ``finish_rows``: the page's order); before each row, fresh workers are started and
warmed by the row's curves at n = 1e3 (untimed), as the page's workers are after its first
drawing: the timed n is new to them (their caches hold n = 1e3 only).
``--threads`` runs the curves on threads instead (the command line's way), for comparison.

Usage: python benchmarks/bench_amplification.py [--threads] [mechanism ...]   (default: collision)
Goal: <= 1 s for n <= 1e8, <= 2 s at n = 1e9.
"""
from __future__ import annotations

import os
import platform
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from accountant.bounds.pair_accountant import pair_epsilon_result  # noqa: E402
from accountant.bounds import registry as bounds
from accountant.engines import parallel
from accountant.interfaces import tables
from accountant.interfaces.figure import default_curve_bounds, draft_indices, draft_worth_drawing
from accountant.core.params import make_params
from accountant import ShuffleAccountant
from _smoke import sizes, run_main  # noqa: E402

CURVE_RTOL = 1e-4  # app/common.py CURVE_RTOL
S, K, DELTA, EPS_REF, POINTS = 4, 10, 1e-6, 1.0, 25  # the page's defaults (k-RR: k = 10)


PROCESSES = "--threads" not in sys.argv


def _clear() -> None:
    pair_epsilon_result.cache_clear()
    bounds._proved_cached.cache_clear()


def row(mechanism: str, n: int) -> str:
    s = S if mechanism in ("collision", "coco") else None
    k = K if mechanism in ("krr", "olh", "oue") else None
    eps0s = [0.1 + (5.0 - 0.1) * i / (POINTS - 1) for i in range(POINTS)]
    points = tables.build_grid([n], [s], eps0s, [DELTA], mechanism, "paper", ks=[k])
    curve_bounds = default_curve_bounds(mechanism)
    if PROCESSES:  # fresh workers, warmed at another n (untimed)
        parallel.shutdown_processes()
        warm = tables.build_grid([10 ** 3], [s], eps0s, [DELTA], mechanism, "paper", ks=[k])
        tables.compute_rows(warm, curve_bounds, CURVE_RTOL, processes=True)
    _clear()
    # the page's first draft (where figure.draft_worth_drawing asks for one), then the points in between
    drafted = draft_worth_drawing(n, len(points), len(curve_bounds))
    first = set(draft_indices(len(points))) if drafted else set(range(len(points)))
    draft = [p for i, p in enumerate(points) if i in first]
    rest = [p for i, p in enumerate(points) if i not in first]
    t0 = time.perf_counter()
    if PROCESSES:  # as the page: the curves' rows start on the workers, then the headline
        jobs = [tables.start_rows(draft, curve_bounds, CURVE_RTOL)]
        jobs.append(tables.start_rows(rest, curve_bounds, CURVE_RTOL) if rest else None)
    params = make_params(mechanism, EPS_REF, s=s, t=tables.resolve_t("paper", mechanism, s, EPS_REF), k=k)
    head = ShuffleAccountant(params, n).epsilon_result(DELTA)
    t1 = time.perf_counter()
    if PROCESSES:
        tables.finish_rows(jobs[0])
    else:
        tables.compute_rows(draft, curve_bounds, CURVE_RTOL)
    t_draft = time.perf_counter()
    if PROCESSES and jobs[1] is not None:
        tables.finish_rows(jobs[1])
    elif rest:
        tables.compute_rows(rest, curve_bounds, CURVE_RTOL)
    t2 = time.perf_counter()
    goal = 1.0 if n <= 10 ** 8 else 2.0
    total = t2 - t0
    return (f"| {mechanism} | {n:.0e} | {len(curve_bounds)} | {head.epsilon:.6g} | {t1 - t0:.2f} | "
            f"{f'{t_draft - t0:.2f}' if drafted else '-'} | {t2 - t1:.2f} | {total:.2f} | {goal:g} | {'yes' if total <= goal else 'no'} |")


def main() -> int:
    mechs = [a for a in sys.argv[1:] if not a.startswith("--")] or ["collision"]
    print(f"# {platform.machine()}, {os.cpu_count()} cores, "
          f"{parallel.threads()} {'worker processes' if PROCESSES else 'threads'}, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average "
          f"{os.getloadavg()[0]:.1f} at the start")
    print("| mechanism | n | bounds | headline eps_c | headline s | first draft s | curves s | page s "
          "| goal s | met |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for mech in mechs:
        for e in sizes((4, 5, 6, 8, 9), (4,)):
            print(row(mech, 10 ** e), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
