"""Reference (mpmath, checked at two precisions) and certified (arb) window sums at large n.

    python benchmarks/bench_precision_window.py [--n 1e8] [--eps0 1] [--eps 0.002] [--digits 40]

Prints the float path's window, the arb ball and the mpmath value with their digits and
seconds.  mpmath uses gmpy2 when it is installed (the ``certified`` extra), which is
about 1.6x faster than its pure-Python backend.
"""
from __future__ import annotations

import argparse
import math
import time

from accountant.engines.pair.law import DominatingPair
from accountant.engines.pair.divergence import hockey_stick_divergence
from accountant.engines.pair.precision import arb_window_sum, mp_window_sum
from _smoke import SMOKE, run_main


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=float, default=1e8)
    ap.add_argument("--eps0", type=float, default=1.0)
    ap.add_argument("--eps", type=float, default=0.002)
    ap.add_argument("--digits", type=int, default=40)
    a = ap.parse_args()
    if SMOKE:
        a.n, a.digits = 1e4, 20
    import mpmath.libmp

    pair = DominatingPair.stronger_clone(int(a.n), a.eps0, 1 / (1 + math.exp(a.eps0)))
    f = hockey_stick_divergence(pair, a.eps)
    lo, hi = f.window
    print(f"n={int(a.n)} eps0={a.eps0} eps={a.eps} window=[{lo}, {hi}] ({hi - lo + 1} terms) "
          f"mpmath backend={mpmath.libmp.BACKEND}")
    print(f"float  delta={f.value!r}")
    t = time.perf_counter()
    s = arb_window_sum(pair, a.eps, lo, hi, a.digits)
    print(f"arb    delta={s.d.str(20)} digits={s.digits:.1f} seconds={time.perf_counter() - t:.2f}")
    t = time.perf_counter()
    s = mp_window_sum(pair, a.eps, lo, hi, a.digits)
    print(f"mpmath delta={mpmath.nstr(s.d, 20)} agreed digits={s.digits:.1f} "
          f"seconds={time.perf_counter() - t:.2f} (two working precisions)")


if __name__ == "__main__":
    raise SystemExit(run_main(main))
