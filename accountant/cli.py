"""Command line: ``python -m accountant epsilon|delta|local-epsilon ...``.

Thin: parses, calls the library, prints.  Bad input: one line on stderr naming
the parameter and its valid range, exit status 2.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Optional, Sequence

from .shuffle import MECHANISMS, ShuffleAccountant, local_epsilon, make_params

BOUND_CHOICES = (
    "tight", "lower", "stronger-clone", "stronger-clone-closed", "clone", "clone-closed",
    "blanket-hoeffding-generic", "blanket-bennett-generic", "blanket-hoeffding", "blanket-bennett",
    "efmrtt19",
)


class UsageError(Exception):
    """Bad command-line input (reported in one line, exit status 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, no usage dump
        raise UsageError(message)


def parse_count(text: str) -> int:
    """An integer that may be written as 1e8 or 100000000."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}")
    if not (math.isfinite(v) and v.is_integer()):
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}")
    return int(v)


def parse_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}")
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return v


def parse_delta(text: str) -> tuple:
    """A delta in (0, 1) written as a decimal string (e.g. 1e-400): (float image, log).

    Parsed with mpmath, not float, so targets below the float range keep their value;
    the float image is 0.0 when delta < ~1e-308.
    """
    import mpmath

    try:
        with mpmath.workdps(40):
            v = mpmath.mpf(text.strip())
            if not (mpmath.isfinite(v) and 0 < v < 1):
                raise argparse.ArgumentTypeError(f"delta must lie in (0, 1), got {text!r}")
            return float(v), float(mpmath.log(v))
    except (ValueError, TypeError):
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}")


def parse_log_delta(text: str) -> float:
    v = parse_float(text)
    if not v < 0:
        raise argparse.ArgumentTypeError(f"log-delta must be < 0, got {text!r}")
    return v


def _add_method_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--method", default="float", choices=("float", "mpmath", "arb"),
                   help="pair engine: float (fast), mpmath (checked reference), arb (certified)")


def _add_mechanism_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mechanism", default="generic", choices=MECHANISMS,
                   help="randomizer: generic eps0-LDP (stronger clone), collision or coco")
    p.add_argument("--s", type=parse_count, default=None, help="sparsity s (collision, coco)")
    p.add_argument("--t", type=parse_count, default=None,
                   help="output size t (default: paper's t* for collision, Theorem 7 for coco)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m accountant",
                     description="Privacy amplification by shuffling: exact accounting.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("epsilon", help="central eps_c for a target delta")
    p.add_argument("--n", type=parse_count, required=True, help="number of users")
    p.add_argument("--eps0", type=parse_float, required=True, help="local budget eps0")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--delta", type=parse_delta, help="target delta (decimal string, may be < 1e-308)")
    g.add_argument("--log-delta", type=parse_log_delta, help="target natural log of delta")
    p.add_argument("--rtol", type=parse_float, default=1e-9, help="relative tolerance on eps_c")
    _add_method_option(p)
    p.add_argument("--bound", default="tight", choices=BOUND_CHOICES,
                   help="which bound (default: the mechanism's own, Theorem 5)")
    _add_mechanism_options(p)

    p = sub.add_parser("compare", help="every bound of the comparison set on the same inputs")
    p.add_argument("--n", type=parse_count, required=True)
    p.add_argument("--eps0", type=parse_float, required=True)
    p.add_argument("--delta", type=parse_float, required=True)
    p.add_argument("--rtol", type=parse_float, default=1e-9)
    _add_mechanism_options(p)

    p = sub.add_parser("table", help="grid of bounds exported as .csv/.json/.md/.tex")
    p.add_argument("--n", required=True, help="list, e.g. 10000,100000")
    p.add_argument("--s", default=None, help="list of s (collision, coco)")
    p.add_argument("--eps0", required=True, help="list or start:stop:count, e.g. 0.1:5.0:50")
    p.add_argument("--delta", required=True, help="list of delta")
    p.add_argument("--mechanism", default="generic", choices=MECHANISMS)
    p.add_argument("--t-rule", default="paper", help="paper | coco | fixed:T")
    p.add_argument("--bounds", default="all", help="all or a comma-separated list of bound names")
    p.add_argument("--out", required=True, help="output file; format from the extension")
    p.add_argument("--workers", type=parse_count, default=None, help="worker processes (default: cores)")
    p.add_argument("--scheduler", default=None, help="Dask distributed scheduler address")
    p.add_argument("--rtol", type=parse_float, default=1e-9)

    p = sub.add_parser("figure", help="Figure 2 layout (amplification ratio vs eps0) with Plotly")
    p.add_argument("--out", required=True, help="FILE.html or FILE.png")
    p.add_argument("--n", default="10000,100000")
    p.add_argument("--s", default="4,64")
    p.add_argument("--eps0", default="0.1:5.0:50")
    p.add_argument("--delta", type=parse_float, default=1e-6)
    p.add_argument("--bounds", default="all")
    p.add_argument("--workers", type=parse_count, default=None)

    p = sub.add_parser("delta", help="certified delta at a central epsilon")
    p.add_argument("--n", type=parse_count, required=True)
    p.add_argument("--eps0", type=parse_float, required=True)
    p.add_argument("--eps", type=parse_float, required=True, help="central epsilon")
    _add_method_option(p)
    _add_mechanism_options(p)

    p = sub.add_parser("local-epsilon", help="largest eps0 meeting a central (eps, delta)")
    p.add_argument("--n", type=parse_count, required=True)
    p.add_argument("--eps", type=parse_float, required=True, help="target central epsilon")
    p.add_argument("--delta", type=parse_float, required=True)
    p.add_argument("--rtol", type=parse_float, default=1e-6, help="relative tolerance on eps0")
    p.add_argument("--bound", default="tight", choices=("tight", "proved"),
                   help="invert the paper's pair bound (tight) or the smallest proved bound (proved)")
    _add_mechanism_options(p)

    p = sub.add_parser("bib", help="balls-into-bins mechanism M^BIB (Luo, Wang, Yi, Theorem 2.1)")
    p.add_argument("--m", type=parse_count, required=True, help="number of bins (paper's m or B)")
    p.add_argument("--s", type=parse_count, required=True, help="size of the input set S")
    p.add_argument("--k", type=parse_count, default=0, help="fixed noise balls")
    p.add_argument("--n", type=parse_count, required=True, help="number of users")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--p", type=parse_float, default=None, help="per-user blanket probability p")
    g.add_argument("--rho", type=parse_float, default=None,
                   help="expected blanket balls per user (rho > 1: floor(rho) balls + one with prob. frac(rho), Section 2.3)")
    p.add_argument("--eps", type=parse_float, default=None, help="epsilon -> delta")
    p.add_argument("--delta", type=parse_float, default=None, help="delta -> epsilon (or with --target-eps: rho)")
    p.add_argument("--target-eps", type=parse_float, default=None, help="with --delta and no p/rho: smallest rho")
    p.add_argument("--rtol", type=parse_float, default=None, help="relative tolerance of the search")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def _bib_command(args) -> dict:
    from . import bib

    out = {"command": "bib", "m": args.m, "s": args.s, "k": args.k, "n": args.n}
    if args.target_eps is not None:
        if args.p is not None or args.rho is not None:
            raise ValueError("target-eps: give no --p/--rho (rho is what is computed)")
        if args.delta is None or args.eps is not None:
            raise ValueError("target-eps needs --delta and no --eps")
        res = bib.bib_rho_for(args.target_eps, args.delta, args.m, args.s, args.k, args.n,
                              rtol=args.rtol if args.rtol is not None else 1e-6)
        pr = bib.paper_rho(args.target_eps, args.delta, args.m, args.s, args.k, args.n)
        out.update(eps=args.target_eps, delta=args.delta, rho=res.rho, achieved_delta=res.achieved_delta,
                   lower_rho=res.lower_rho, k_eff=res.k_eff, p=res.p, paper_rho=pr,
                   paper_condition=bib.paper_condition(args.target_eps, args.delta, args.m, args.s,
                                                       res.k_eff, args.n, res.p),
                   paper_reason=None if pr is not None else "Theorem 2.1 needs 0 < eps <= 3")
        return out
    if args.p is None and args.rho is None:
        raise ValueError("p: give --p P in [0, 1] or --rho R >= 0 (or --target-eps with --delta)")
    if (args.eps is None) == (args.delta is None):
        raise ValueError("give exactly one of --eps E (-> delta) and --delta D (-> eps)")
    if args.rho is not None:
        k_eff, p = bib.params_for_rho(args.k, args.n, args.rho)
    else:
        k_eff, p = args.k, args.p
    out.update(p=p, rho=args.rho, k_eff=k_eff)
    if args.eps is not None:
        d = bib.bib_divergence(args.eps, args.m, args.s, k_eff, args.n, p)
        eps, delta = args.eps, d.upper
        out.update(eps=eps, delta=delta, delta_lower=d.lower, overlap=d.overlap)
    else:
        res = bib.bib_epsilon(args.delta, args.m, args.s, k_eff, args.n, p,
                              rtol=args.rtol if args.rtol is not None else 1e-9)
        eps, delta = res.epsilon, args.delta
        out.update(eps=eps, delta=delta, achieved_delta=res.achieved_delta,
                   lower_epsilon=res.lower_epsilon, reason=res.reason)
    pr, cond = None, False
    if args.n >= 1 and eps is not None and eps > 0 and 0 < delta < 1:
        pr = bib.paper_rho(eps, delta, args.m, args.s, args.k, args.n)
        cond = bib.paper_condition(eps, delta, args.m, args.s, k_eff, args.n, p)
    out.update(paper_rho=pr, paper_condition=cond)
    return out


def _describe(params, n: int) -> dict:
    return {
        "mechanism": params.name,
        "n": n,
        "eps0": params.eps0,
        "s": params.s,
        "t": params.t,
        "mixture_weight": params.mixture_weight,
        "tight": params.tight,
        "certified": params.certified,
        "caveat": params.caveat,
    }


def _add_proved(out: dict, n: int, eps0: float, delta: float, mechanism: str, s, t) -> None:
    """The smallest proved upper bound next to the pair bound (README, Findings)."""
    from .bounds import proved_epsilon

    best = proved_epsilon(n, eps0, delta, mechanism, s, t)
    out["proved_epsilon"] = best.epsilon if best else None
    out["proved_bound"] = best.name if best else None


def run(argv: Optional[Sequence[str]] = None) -> dict:
    """Parse ``argv`` and compute; returns the JSON-ready result (raises UsageError/ValueError)."""
    args = build_parser().parse_args(argv)
    if args.command == "bib":
        return _bib_command(args)
    if args.command == "epsilon":
        # --delta D (decimal string) or --log-delta L: keep the log, args.delta the float image
        args.log_delta = args.delta[1] if args.delta is not None else args.log_delta
        args.delta = args.delta[0] if args.delta is not None else math.exp(args.log_delta)
        if args.bound != "tight" and args.delta < 1e-300:
            raise ValueError(f"delta below 1e-300 is supported by the pair bound (--bound tight) only, "
                             f"got log(delta) = {args.log_delta}")
    if args.command == "epsilon" and args.bound != "tight":
        from .bounds import compute_bound

        params = make_params(args.mechanism, args.eps0, s=args.s, t=args.t)
        res = compute_bound(args.bound, args.n, args.eps0, args.delta, args.mechanism, args.s,
                            args.t, args.rtol)
        out = _describe(params, args.n)
        out.update(bound=res.name, epsilon=res.epsilon, delta=args.delta, applicable=res.applicable,
                   reason=res.reason, achieved_delta=res.achieved_delta, lower_epsilon=None)
        return out
    if args.command == "compare":
        from .bounds import compare

        params = make_params(args.mechanism, args.eps0, s=args.s, t=args.t)
        res = compare(args.n, args.eps0, args.delta, args.mechanism, args.s, args.t, rtol=args.rtol)
        out = _describe(params, args.n)
        out.update(delta=args.delta, bounds={
            k: {"epsilon": v.epsilon, "applicable": v.applicable, "reason": v.reason,
                "seconds": v.seconds, "achieved_delta": v.achieved_delta} for k, v in res.items()})
        return out
    if args.command in ("table", "figure"):
        return _grid_command(args)
    if args.command == "epsilon":
        params = make_params(args.mechanism, args.eps0, s=args.s, t=args.t)
        acc = ShuffleAccountant(params, args.n, method=args.method)
        res = acc.epsilon_result(rtol=args.rtol, log_delta=args.log_delta)
        out = _describe(params, acc.n)
        out.update(epsilon=res.epsilon, delta=args.delta, achieved_delta=res.achieved_delta,
                   lower_epsilon=res.lower_epsilon, log_delta=args.log_delta,
                   achieved_log_delta=res.achieved_log_delta, method=args.method)
        if args.delta >= 1e-300:
            _add_proved(out, acc.n, params.eps0, args.delta, params.name, params.s, params.t)
        else:
            out.update(proved_epsilon=None, proved_bound=None)
        return out
    if args.command == "delta":
        params = make_params(args.mechanism, args.eps0, s=args.s, t=args.t)
        acc = ShuffleAccountant(params, args.n, method=args.method)
        out = _describe(params, acc.n)
        d = acc.delta_bounds(args.eps)
        out.update(epsilon=args.eps, delta=min(d.upper, 1.0), log_delta=min(d.log_upper, 0.0),
                   method=args.method)
        return out
    # local-epsilon
    eps0 = local_epsilon(args.n, args.eps, args.delta, mechanism=args.mechanism, s=args.s,
                         t=args.t, rtol=args.rtol, bound=args.bound)
    params = make_params(args.mechanism, eps0, s=args.s, t=args.t)
    acc = ShuffleAccountant(params, args.n)
    out = _describe(params, acc.n)
    if args.bound == "proved":
        from .bounds import proved_epsilon

        best = proved_epsilon(acc.n, eps0, args.delta, params.name, params.s, params.t)
        out.update(eps0=eps0, epsilon=args.eps, delta=args.delta, bound="proved",
                   achieved_epsilon=best.epsilon, achieved_delta=best.achieved_delta,
                   proved_bound=best.name, certified=True, caveat=None)
        return out
    res = acc.epsilon_result(args.delta, rtol=1e-9)
    out.update(eps0=eps0, epsilon=args.eps, delta=args.delta, bound="tight",
               achieved_epsilon=res.epsilon, achieved_delta=res.achieved_delta)
    return out


def _bound_list(text: str) -> tuple:
    from .bounds import BOUND_NAMES

    if text == "all":
        return BOUND_NAMES
    names = tuple(x.strip() for x in text.split(",") if x.strip())
    bad = [b for b in names if b not in BOUND_NAMES]
    if bad or not names:
        raise ValueError(f"bounds must be 'all' or names from {', '.join(BOUND_NAMES)}, got {text!r}")
    return names


def _grid_command(args) -> dict:
    from . import tables

    ns = tables.parse_list(args.n, int, "n")
    eps0s = tables.parse_list(args.eps0, float, "eps0")
    bounds = _bound_list(args.bounds)
    if args.command == "table":
        mechanism = args.mechanism
        deltas = tables.parse_list(args.delta, float, "delta")
        ext = tables.check_output_path(args.out)
        t_rule = args.t_rule
    else:
        mechanism, deltas, t_rule = "collision", [args.delta], "paper"
        ext = os.path.splitext(args.out)[1].lower()
        if ext not in (".html", ".png"):
            raise ValueError(f"out must end in .html or .png, got {args.out!r}")
        if not os.path.isdir(os.path.dirname(os.path.abspath(args.out))):
            raise ValueError(f"out: directory of {args.out!r} does not exist")
    if mechanism == "generic":
        ss = [None]
    else:
        if args.s is None:
            raise ValueError(f"s is required for mechanism '{mechanism}' (a list of integers >= 1)")
        ss = tables.parse_list(args.s, int, "s")
    points = tables.build_grid(ns, ss, eps0s, deltas, mechanism, t_rule)
    for pt in points:  # validate every point before any work starts
        make_params(pt.mechanism, pt.eps0, s=pt.s, t=pt.t)
    rows = tables.compute_table(points, bounds, rtol=getattr(args, "rtol", 1e-9), workers=args.workers,
                                scheduler=getattr(args, "scheduler", None))
    if args.command == "table":
        tables.write_table(rows, args.out)
    else:
        from .figure import write_figure

        write_figure(rows, bounds, args.out)
    return {"out": args.out, "rows": len(rows), "saving_percent": tables.saving_summary(rows)}


def _human(command: str, out: dict) -> str:
    if command == "bib":
        head = f"M^BIB(m={out['m']}, s={out['s']}, k={out['k']}, n={out['n']})"
        pr = "n/a" if out.get("paper_rho") is None else f"{out['paper_rho']:.6g}"
        tail = f"paper's rho = {pr}; paper's condition holds: {out['paper_condition']}"
        if "lower_rho" in out:
            return (f"{head}: smallest rho = {out['rho']:.8g} for (eps, delta) = ({out['eps']:g}, "
                    f"{out['delta']:.3g}) (certified delta {out['achieved_delta']:.6g})\n{tail}")
        if out.get("eps") is None:
            return f"{head}: epsilon not available: {out['reason']}"
        if "delta_lower" in out:
            return f"{head}, p={out['p']:.6g}: delta <= {out['delta']:.10g} at eps = {out['eps']:g}\n{tail}"
        return (f"{head}, p={out['p']:.6g}: eps <= {out['eps']:.10g} at delta = {out['delta']:.3g} "
                f"(certified delta {out['achieved_delta']:.6g})\n{tail}")
    if command in ("table", "figure"):
        sv = out["saving_percent"]
        extra = (f"; saving of tight over the best comparison bound: median {sv['median']:.1f}% "
                 f"(min {sv['min']:.1f}%, max {sv['max']:.1f}%)" if sv.get("count") else "")
        return f"wrote {out['rows']} rows to {out['out']}{extra}"
    mech = out["mechanism"] + (f" (s={out['s']}, t={out['t']})" if out["s"] is not None else "")
    tight = "pair bound proved" if out.get("certified") else f"pair bound {out.get('caveat')}"
    if command == "compare":
        lines = [f"n = {out['n']}, eps0 = {out['eps0']:g}, delta = {out['delta']:g}, {mech}"]
        for k, v in out["bounds"].items():
            val = f"{v['epsilon']:.6g}" if v["applicable"] else f"not applicable: {v['reason']}"
            lines.append(f"  {k:26s} {val}")
        return "\n".join(lines)
    if command == "epsilon" and out.get("bound", "tight") != "tight":
        if not out["applicable"]:
            return f"{out['bound']}: not applicable: {out['reason']}"
        return f"{out['bound']}: eps_c <= {out['epsilon']:.10g} at delta = {out['delta']:.3g}" + (
            f" ({out['reason']})" if out["reason"] else "")
    if command == "epsilon":
        lines = [f"pair bound eps_c <= {out['epsilon']:.10g} at delta = {out['delta']:.3g} "
                 f"(certified delta {out['achieved_delta']:.6g})",
                 f"n = {out['n']}, eps0 = {out['eps0']:g}, {mech}, mixture weight {out['mixture_weight']:.6g}; {tight}"]
        if out.get("proved_epsilon") is not None:
            lines.append(f"proved upper bound: eps_c <= {out['proved_epsilon']:.10g} ({out['proved_bound']})")
        if out["lower_epsilon"] is not None:
            lines.append(f"lower bound (Theorem 6's hash family): eps_c >= {out['lower_epsilon']:.10g}")
        return "\n".join(lines)
    if command == "delta":
        return (f"delta <= {out['delta']:.10g} (log delta <= {out['log_delta']:.12g}) at eps = {out['epsilon']:g}\n"
                f"n = {out['n']}, eps0 = {out['eps0']:g}, {mech}; {tight}")
    return (f"largest eps0 = {out['eps0']:.8g} gives eps_c = {out['achieved_epsilon']:.8g} <= {out['epsilon']:g} "
            f"at delta = {out['delta']:.3g}\nn = {out['n']}, {mech}")


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        out = run(argv)
    except (UsageError, ValueError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
        print(f"error: {msg}", file=sys.stderr)
        return 2
    command = next((a for a in argv if not a.startswith("-")), "")
    if "--json" in argv:
        print(json.dumps(out))
    else:
        print(_human(command, out))
    return 0
