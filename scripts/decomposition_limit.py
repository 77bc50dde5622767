"""The certified brackets next to what no blanket (decomposition) bound can close.

Usage: python scripts/decomposition_limit.py [--workers K] > limits.md

For OUE (k = 16), OLH under the random hash (default g) and the Collision Figure 2 block
s = 4 under the random hash (n in {1e4, 1e5}, 50 values of eps0 in [0.1, 5], t = t*,
d = 1000), delta = 1e-6: the certified upper and lower ends, and the central-limit estimates
(accountant/bounds/decomposition_limit.py; estimates, not bounds) of the exact blanket and of
the divergence of the datasets; "limit" is their ratio, the least bracket a blanket bound can
reach against these datasets.  docs/randomizers.md quotes it.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from accountant import ShuffleAccountant, make_params  # noqa: E402
from accountant.bounds import decomposition_limit as D  # noqa: E402

DELTA = 1e-6


def row(job: tuple) -> dict:
    mech, eps0, n, kw = job
    params = make_params(mech, eps0, **kw)
    r = ShuffleAccountant(params, n).epsilon_result(DELTA)
    if mech == "oue":
        lim = D.oue_limit(eps0)
    elif mech == "olh":
        lim = D.olh_random_limit(eps0, params.t)
    else:
        lim = D.collision_random_limit(eps0, params.s, params.t)
    up, lo = lim.epsilons(n, DELTA)
    return dict(mech=mech, eps0=eps0, n=n, t=getattr(params, "t", None), upper=r.epsilon, lower=r.lower_epsilon,
                est_blanket=up, est_dataset=lo)


def table(rows: list[dict]) -> None:
    print("| mech | n | eps0 | t | certified upper | certified lower | bracket | blanket (est.) | "
          "datasets (est.) | limit |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['mech']} | {r['n']:.0e} | {r['eps0']:g} | {r['t'] or '-'} | {r['upper']:.6g} | "
              f"{r['lower']:.6g} | {r['upper'] / r['lower']:.4f} | {r['est_blanket']:.6g} | "
              f"{r['est_dataset']:.6g} | {r['est_blanket'] / r['est_dataset']:.4f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    small = [(m, e, n, kw) for m, kw in (("oue", dict(k=16)), ("olh", dict(k=16, hash_model="random")))
             for e in (0.25, 0.5, 1.0, 2.0, 4.0) for n in (10**4, 10**6)]
    block = [("collision", round(0.1 + i * 0.1, 10), n, dict(s=4, d=1000, hash_model="random"))
             for n in (10**4, 10**5) for i in range(50)]
    with ProcessPoolExecutor(args.workers) as ex:
        rows = list(ex.map(row, small + block))
    table(rows[:len(small)])
    coll = rows[len(small):]
    print("\nCollision, Figure 2 block s = 4, random hash (median / max over the 100 points):\n")
    print("| quantity | median | max |\n|---|---|---|")
    for name, f in (("certified bracket", lambda r: r["upper"] / r["lower"]),
                    ("upper / exact blanket (est.)", lambda r: r["upper"] / r["est_blanket"]),
                    ("datasets (est.) / lower", lambda r: r["est_dataset"] / r["lower"]),
                    ("limit: exact blanket / datasets (est.)", lambda r: r["est_blanket"] / r["est_dataset"])):
        v = [f(r) for r in coll]
        print(f"| {name} | {statistics.median(v):.4f} | {max(v):.4f} |")
    print()
    table(coll)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
