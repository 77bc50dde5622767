"""User sampling over rounds with each randomizer's own per-count bound: eps after T
rounds, cold caches (one process per case), wall and CPU seconds, peak memory, beside the clone
per count (the generic bound) of the same randomizer.

Usage: python benchmarks/bench_sampling_rounds.py

The Koskela anchor (n = 1e5, q = 0.01, eps0 = 3, delta = 1e-5) and n = 1e9, T = 10, 100, 1,000,
10,000, binary RR, 4-RR, OUE and OLH (k = 4), Collision and CoCo (s = 1, t = 8); goal: each
case within 10 s and 2 GB.
"""
from __future__ import annotations

import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from _smoke import sizes, run_main  # noqa: E402

KW = {"rr": {}, "krr": {"k": 4}, "oue": {"k": 4}, "olh": {"k": 4}, "collision": {"s": 1, "t": 8},
      "coco": {"s": 1, "t": 8}}
NS, ROUNDS, MECHS = sizes(((10 ** 5, 10 ** 9), (10, 100, 1000, 10_000), tuple(KW)), ((2000,), (10,), ("krr",)))

CASE = """
import resource, sys, time
from accountant import make_params
from accountant.accounting import deployments as D
mech, n, own = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "own"
p = make_params(mech, 3.0, **{kw!r}[mech])
for T in [int(x) for x in sys.argv[4:]]:
    w, c = time.perf_counter(), time.process_time()
    r = D.sampled_rounds_epsilon(p, n, 1e-5, 0.01, T, mechanism=own, lower=False)
    load = open("/proc/loadavg").read().split()[0]
    print(f"{{mech:<9}} n={{n:.0e}} T={{T:>5}} {{'own' if own else 'clone':<5}} eps={{r.epsilon:.7g}} "
          f"{{r.bound:<26}} {{time.perf_counter() - w:6.2f}} s wall {{time.process_time() - c:6.2f}} s cpu "
          f"{{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:5.0f}} MB load {{load}}", flush=True)
""".format(kw=KW)


def main() -> int:
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    for n in NS:
        for mech in MECHS:
            for T in ROUNDS:  # the own bound: one cold process per T
                subprocess.run([sys.executable, "-c", CASE, mech, str(n), "own", str(T)], env=env, check=True)
            # the clone per count: the four T in one process (its caches warm after the first)
            subprocess.run([sys.executable, "-c", CASE, mech, str(n), "clone"] + [str(T) for T in ROUNDS],
                           env=env, check=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main))
