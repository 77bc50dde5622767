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

from . import cli_help
from . import limits as L
from .bounds import ALIASES, BOUND_NAMES, REGISTRY
from .calibration import local_epsilon
from .limits import float_arg, int_arg
from .optional import require
from .params import MECHANISMS, make_params
from .shuffle import ShuffleAccountant

BOUND_CHOICES = ("proved",) + BOUND_NAMES + tuple(ALIASES)
INVERSE_CHOICES = ("proved",) + tuple(b for b in BOUND_NAMES if REGISTRY[b].kind != "lower") + tuple(ALIASES)


class UsageError(Exception):
    """Bad command-line input (reported in one line, exit status 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, no usage dump
        raise UsageError(message)


T_MAX = L.T_MAX
BIB_RHO_MAX = 1e6
VR_P_MAX = math.exp(L.EPS_MAX)  # variation-ratio p, q: e^eps0 with eps0 <= 30
N_ARG = L.n_arg()
EPS0_ARG = L.eps0_arg()
DELTA_ARG = L.delta_arg()
RTOL_ARG = float_arg("--rtol", 1e-15, 0.1)


LOG_DELTA_ARG = float_arg("--log-delta", L.LOG_DELTA_MIN, 0.0, hi_open=True)


def _add_method_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--method", default="float", choices=("float", "mpmath", "arb"),
                   help="pair engine: float (fast), mpmath (checked reference), arb (certified)")


def _add_mechanism_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mechanism", default="generic", choices=MECHANISMS,
                   help="randomizer: generic eps0-LDP, collision, coco, krr (k-ary randomized "
                        "response, needs --k), rr (binary randomized response), olh (optimized local "
                        "hashing, --k [--g]), oue (optimized unary encoding, --k) or variation-ratio "
                        "(any randomizer by Wang et al.'s parameters --p --beta [--q])")
    p.add_argument("--s", type=int_arg("--s", 1, T_MAX), default=None,
                   help="sparsity s (collision, coco)")
    p.add_argument("--t", type=int_arg("--t", 1, T_MAX), default=None,
                   help="output size t (default: paper's t* for collision, Theorem 7 for coco)")
    p.add_argument("--k", type=int_arg("--k", 2, T_MAX), default=None,
                   help="number of values k >= 2 (krr, olh, oue: the domain size)")
    p.add_argument("--g", type=int_arg("--g", 2, T_MAX), default=None,
                   help="olh: hash range g >= 2 (default round(e^eps0) + 1, Wang et al. 2017)")
    p.add_argument("--d", type=int_arg("--d", 1, T_MAX), default=None,
                   help="dimension d >= s (collision, coco): the certified lower bounds use three inputs "
                        "on pairwise disjoint s-sets, which exist only for d >= 3s; without --d no lower "
                        "bound is reported for collision/coco (the upper bound does not depend on d)")
    p.add_argument("--p", type=float_arg("--p", 1.0, VR_P_MAX, lo_open=True), default=None,
                   help="variation-ratio: likelihood ratio bound p > 1 between the two differing "
                        "users' outputs (e^eps0 for eps0-LDP); eps0 = ln p")
    p.add_argument("--beta", type=float_arg("--beta", 0.0, 1.0, lo_open=True), default=None,
                   help="variation-ratio: total variation bound 0 < beta <= (p-1)/(p+1)")
    p.add_argument("--q", type=float_arg("--q", 1.0, VR_P_MAX, lo_open=True), default=None,
                   help="variation-ratio: ratio bound q > 1 of a differing user's output to any other "
                        "user's (default: p)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


DEFAULTS_NOTE = ("Defaults: --mechanism generic (any eps0-LDP randomizer: the bound holds for every "
                 "one) and --bound proved (the smallest proved upper bound; 'paper' is Theorem 5, "
                 "not proved).")

# (command, example) -- the five most common first: printed when no command is given
COMMON = (
    ("epsilon", "epsilon --n 1e5 --eps0 2 --delta 1e-6"),
    ("delta", "delta --n 1e5 --eps0 2 --eps 0.05"),
    ("local-epsilon", "local-epsilon --n 1e6 --eps 0.1 --delta 1e-8"),
    ("compare", "compare --n 1e5 --eps0 1 --delta 1e-6"),
    ("compose", "compose --rounds 100 --n 1e5 --eps0 4 --delta 1e-6"),
)
EXAMPLES = {
    "epsilon": ("epsilon --n 1e5 --eps0 2 --delta 1e-6",
                "epsilon --n 1e5 --eps0 2 --delta 1e-6 --mechanism collision --s 4 --json",
                "epsilon --n 1e6 --eps0 1 --delta 1e-8 --mechanism krr --k 8"),
    "delta": ("delta --n 1e5 --eps0 2 --eps 0.05",
              "delta --n 1e5 --eps0 4 --eps 3 --bound stronger-clone --method arb --json"),
    "local-epsilon": ("local-epsilon --n 1e6 --eps 0.1 --delta 1e-8",
                      "local-epsilon --n 1e6 --eps 0.1 --delta 1e-8 --mechanism collision --s 8"),
    "compare": ("compare --n 1e5 --eps0 1 --delta 1e-6",
                "compare --n 1e5 --eps0 2 --delta 1e-6 --mechanism krr --k 8 --json"),
    "compose": ("compose --rounds 100 --n 1e5 --eps0 4 --delta 1e-6",
                "compose --rounds 100 --n 1e5 --eps0 4 --mechanism collision --s 4 --delta 1e-6"),
    "table": ("table --n 10000 --eps0 0.5,1 --delta 1e-6 --out t.csv",
              "table --n 10000,100000 --s 4,64 --eps0 0.1:5.0:10 --delta 1e-6 --mechanism collision "
              "--out t.md"),
    "figure": ("figure --out fig2.html --n 10000 --s 4 --eps0 0.5:5:10",
               "figure --out fig2.html"),
    "bib": ("bib --m 100 --s 1 --n 10000 --rho 2 --delta 1e-6",
            "bib --m 100 --s 1 --n 10000 --target-eps 1 --delta 1e-6"),
}


NOTES = {  # commands whose defaults differ from DEFAULTS_NOTE
    "figure": "Defaults: mechanism collision (the paper's Figure 2) and every bound of the "
              "comparison set (--bounds all); the proved bound is marked as such.",
    "bib": "bib is its own mechanism (balls into bins, Luo, Wang, Yi); its delta is the exact "
           "divergence, an upper bound, with the paper's condition shown beside it.",
}


def no_command_text() -> str:
    """Usage and the five most common commands (``python -m accountant`` alone)."""
    return cli_help.no_command_text(build_parser(), COMMON, DEFAULTS_NOTE)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=cli_help.prog_name("accountant"),
                     description="Privacy amplification by shuffling: exact accounting.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("epsilon", help="central eps_c for a target delta")
    p.add_argument("--n", type=N_ARG, required=True, help="number of users")
    p.add_argument("--eps0", type=EPS0_ARG, default=None,
                   help="local budget eps0 (required; for variation-ratio give --p instead)")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--delta", type=DELTA_ARG, help="target delta in [1e-300, 1)")
    g.add_argument("--log-delta", type=LOG_DELTA_ARG,
                   help="target natural log of delta in [-10000, 0) (pair bounds below log(1e-300))")
    p.add_argument("--rtol", type=RTOL_ARG, default=1e-9, help="relative tolerance on eps_c")
    _add_method_option(p)
    p.add_argument("--bound", default="proved", choices=BOUND_CHOICES,
                   help="which bound (default 'proved': the smallest proved upper bound; 'paper' is "
                        "Theorem 5, not proved)")
    _add_mechanism_options(p)

    p = sub.add_parser("compare", help="every bound of the comparison set on the same inputs")
    p.add_argument("--n", type=N_ARG, required=True, help="number of users")
    p.add_argument("--eps0", type=EPS0_ARG, default=None,
                   help="local budget eps0 (required; for variation-ratio give --p instead)")
    p.add_argument("--delta", type=DELTA_ARG, required=True)
    p.add_argument("--rtol", type=RTOL_ARG, default=1e-9)
    _add_mechanism_options(p)

    p = sub.add_parser("table", help="grid of bounds exported as .csv/.json/.md/.tex (docs/tables.md)")
    p.add_argument("--n", required=True, help="list, e.g. 10000,100000")
    p.add_argument("--s", default=None, help="list of s (collision, coco)")
    p.add_argument("--k", default=None, help="list of k (krr)")
    p.add_argument("--eps0", required=True, help="list or start:stop:count, e.g. 0.1:5.0:50")
    p.add_argument("--delta", required=True, help="list of delta")
    p.add_argument("--mechanism", default="generic", choices=MECHANISMS)
    p.add_argument("--t-rule", default="paper", help="paper | coco | fixed:T")
    p.add_argument("--bounds", default=None,
                   help="bounds to compute: all or a comma-separated list (default: those the columns need)")
    p.add_argument("--columns", default=None,
                   help="comma-separated fields and bound names (default: n, s/t/delta where they vary, "
                        "eps0, proved_epsilon, lower_epsilon, paper_epsilon, best_literature, "
                        "literature_epsilon, saving_percent)")
    p.add_argument("--all-bounds", action="store_true",
                   help="every bound and every field (the wide table; LaTeX: landscape longtable)")
    p.add_argument("--long", action="store_true",
                   help="tidy long format: one row per point and bound")
    p.add_argument("--digits", type=int_arg("--digits", 1, 17), default=4,
                   help="significant digits in csv/md/tex (upper bounds round up, lower bounds down; "
                        "JSON keeps full precision)")
    p.add_argument("--out", required=True, help="output file; format from the extension (.tex also writes .bib)")
    p.add_argument("--workers", type=int_arg("--workers", 1, L.MAX_WORKERS), default=None, help="worker processes (default: cores)")
    p.add_argument("--scheduler", default=None, help="Dask distributed scheduler address")
    p.add_argument("--rtol", type=RTOL_ARG, default=1e-9)
    p.add_argument("--json", action="store_true", help="print a JSON summary of what was written")

    p = sub.add_parser("figure", help="Figure 2 layout (amplification ratio vs eps0) with Plotly")
    p.add_argument("--out", required=True, help="FILE.html, .png, .pdf or .svg")
    p.add_argument("--n", default="10000,100000")
    p.add_argument("--s", default="4,64")
    p.add_argument("--eps0", default="0.1:5.0:50")
    p.add_argument("--delta", type=DELTA_ARG, default=1e-6)
    p.add_argument("--bounds", default="all")
    p.add_argument("--width", type=float_arg("--width (inches)", 1.0, 20.0), default=None,
                   help="figure width in inches (default 3.5: one column of a two-column paper)")
    p.add_argument("--workers", type=int_arg("--workers", 1, L.MAX_WORKERS), default=None)
    p.add_argument("--json", action="store_true", help="print a JSON summary of what was written")

    p = sub.add_parser("delta", help="certified delta at a central epsilon")
    p.add_argument("--n", type=N_ARG, required=True, help="number of users")
    p.add_argument("--eps0", type=EPS0_ARG, default=None,
                   help="local budget eps0 (required; for variation-ratio give --p instead)")
    p.add_argument("--eps", type=float_arg("--eps (central epsilon)", 0.0, L.EPS_MAX, lo_open=True), required=True, help="central epsilon")
    p.add_argument("--bound", default="proved", choices=BOUND_CHOICES,
                   help="which bound (default 'proved': the smallest proved upper bound)")
    _add_method_option(p)
    _add_mechanism_options(p)

    p = sub.add_parser("local-epsilon", help="largest eps0 meeting a central (eps, delta)")
    p.add_argument("--n", type=N_ARG, required=True, help="number of users")
    p.add_argument("--eps", type=float_arg("--eps (central epsilon)", 0.0, L.EPS_MAX, lo_open=True), required=True, help="target central epsilon")
    p.add_argument("--delta", type=DELTA_ARG, required=True)
    p.add_argument("--rtol", type=RTOL_ARG, default=1e-6, help="relative tolerance on eps0")
    p.add_argument("--bound", default="proved", choices=INVERSE_CHOICES,
                   help="invert the smallest proved bound (default) or a named upper bound "
                        "('paper' = Theorem 5, not proved)")
    _add_mechanism_options(p)

    p = sub.add_parser("bib", help="balls-into-bins mechanism M^BIB (Luo, Wang, Yi, Theorem 2.1)")
    p.add_argument("--m", type=int_arg("--m", 1, T_MAX), required=True, help="number of bins (paper's m or B)")
    p.add_argument("--s", type=int_arg("--s", 1, T_MAX), required=True, help="size of the input set S")
    p.add_argument("--k", type=int_arg("--k", 0, L.MAX_N), default=0, help="fixed noise balls")
    p.add_argument("--n", type=N_ARG, required=True, help="number of users")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--p", type=float_arg("--p", 0.0, 1.0), default=None, help="per-user blanket probability p")
    g.add_argument("--rho", type=float_arg("--rho", 0.0, BIB_RHO_MAX), default=None,
                   help="expected blanket balls per user (rho > 1: floor(rho) balls + one with prob. frac(rho), Section 2.3)")
    p.add_argument("--eps", type=float_arg("--eps", 0.0, L.EPS_MAX), default=None, help="epsilon -> delta")
    p.add_argument("--delta", type=DELTA_ARG, default=None, help="delta -> epsilon (or with --target-eps: rho)")
    p.add_argument("--target-eps", type=float_arg("--target-eps", 0.0, L.EPS_MAX, lo_open=True), default=None, help="with --delta and no p/rho: smallest rho")
    p.add_argument("--rtol", type=RTOL_ARG, default=None, help="relative tolerance of the search")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    from .compose_cli import add_compose_parser

    add_compose_parser(sub)
    cli_help.add_help_examples(parser, sub, COMMON, EXAMPLES, DEFAULTS_NOTE, NOTES)
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
        "k": params.d if params.name == "olh" else getattr(params, "k", None),
        "d": None if params.name == "olh" else getattr(params, "d", None),
        **({"g": params.t} if params.name == "olh" else {}),
        **({"p": params.p, "beta": params.beta, "q": params.q} if params.name == "variation-ratio" else {}),
    }


def _params(args, eps0: Optional[float]):
    return make_params(args.mechanism, eps0, s=args.s, t=args.t, k=args.k, d=args.d,
                       **_vr_options(args))


def _vr_options(args) -> dict:
    """The options of variation-ratio (p, beta, q) and olh (g)."""
    return {name: getattr(args, name, None) for name in ("p", "beta", "q", "g")}


def _lower_fields(name: str, params, applicable: bool) -> dict:
    """The dataset pair and hash model behind lower bound ``name`` (None when not applicable)."""
    from . import mechanism_law as M

    ll = None
    if applicable:
        ll = M.mechanism_lower_law(params) if name == "lower" else \
            M.worst_hash_lower(params)[0] if name == "lower-worst-hash" else None
    if ll is None:
        return {"lower_dataset": None, "lower_hash_model": None}
    return {"lower_dataset": ll.datasets, "lower_hash_model": ll.hash_model}


def _pair_path(args, name: str) -> bool:
    """Whether the request needs the log-delta / high-precision pair path."""
    tiny = args.command == "epsilon" and args.log_delta < math.log(1e-300)
    if not (tiny or args.method != "float"):
        return False
    from .bounds import PAIR_BOUNDS

    if name not in PAIR_BOUNDS:
        why = "a target delta below 1e-300" if tiny else f"--method {args.method}"
        raise ValueError(f"{why} is available for the pair bounds ({', '.join(PAIR_BOUNDS)}) and "
                         f"for --bound proved (then: clone), not for --bound {name}")
    return True


def _epsilon_command(args) -> dict:
    from .bounds import compute_params_bound, pair_bound_epsilon, resolve_name, status

    params = _params(args, args.eps0)
    out = _describe(params, args.n)
    out.update(log_delta=args.log_delta, method=args.method)
    name = "clone" if args.bound == "proved" else resolve_name(args.bound)
    if _pair_path(args, name):
        eps, ach, ach_log = pair_bound_epsilon(name, params, args.n, args.log_delta, args.rtol, args.method)
        st = status(name, params.name)
        out.update(bound=name, epsilon=eps, delta=args.delta, applicable=True, reason=st["caveat"],
                   achieved_delta=ach, achieved_log_delta=ach_log, kind=st["kind"],
                   certified=st["proved"], reference=st["reference"])
        if args.bound == "proved":
            out.update(lower_epsilon=None, lower_reason="not computed on the log-delta / high-precision path",
                       paper_epsilon=None, paper_caveat=None,
                       note="only the clone pair is evaluated on this path; the smallest proved bound "
                            "needs delta >= 1e-300 and --method float")
        return out
    if args.bound != "proved":
        res = compute_params_bound(name, params, args.n, args.delta, args.rtol)
        st = status(name, params.name)
        out.update(bound=name, epsilon=res.epsilon, delta=args.delta, applicable=res.applicable,
                   reason=res.reason, achieved_delta=res.achieved_delta, kind=st["kind"],
                   certified=st["proved"] and res.applicable, reference=st["reference"])
        if st["kind"] == "lower":
            out.update(_lower_fields(name, params, res.applicable))
    else:
        rep = ShuffleAccountant(params, args.n).epsilon_result(args.delta, rtol=args.rtol)
        out.update(epsilon=rep.epsilon, bound=rep.bound, delta=rep.delta, achieved_delta=rep.achieved_delta,
                   certified=rep.certified, lower_epsilon=rep.lower_epsilon, lower_reason=rep.lower_reason,
                   lower_dataset=rep.lower_dataset, lower_hash_model=rep.lower_hash_model,
                   paper_epsilon=rep.paper_epsilon, paper_caveat=rep.paper_caveat)
        if params.name in REGISTRY["lower-worst-hash"].applies_to:
            # how far any bound proved for every hash family could go (see README, Findings)
            wh = compute_params_bound("lower-worst-hash", params, args.n, args.delta, args.rtol)
            wf = _lower_fields("lower-worst-hash", params, wh.applicable)
            out.update(worst_hash_lower_epsilon=min(wh.epsilon, rep.epsilon) if wh.applicable else None,
                       worst_hash_lower_reason=None if wh.applicable else wh.reason,
                       worst_hash_lower_dataset=wf["lower_dataset"],
                       worst_hash_lower_hash_model=wf["lower_hash_model"])
    ach = out.get("achieved_delta")
    out["achieved_log_delta"] = math.log(ach) if ach else (None if ach is None else -math.inf)
    return out


def _delta_command(args) -> dict:
    from .bounds import pair_bound_log_delta, resolve_name

    params = _params(args, args.eps0)
    out = _describe(params, args.n)
    name = "proved" if args.bound == "proved" else resolve_name(args.bound)
    if name != "proved" and _pair_path(args, name):
        v = pair_bound_log_delta(name, params, args.n, args.eps, args.method)
        out.update(epsilon=args.eps, delta=min(v.upper, 1.0), log_delta=min(v.log_upper, 0.0),
                   bound=name, lower_delta=None, lower_reason="not computed on the high-precision path",
                   paper_delta=None, paper_caveat=None, method=args.method,
                   certified=REGISTRY[name].proved(params.name))
        return out
    if name == "proved" and args.method != "float":
        _pair_path(args, "clone")
        v = pair_bound_log_delta("clone", params, args.n, args.eps, args.method)
        out.update(epsilon=args.eps, delta=min(v.upper, 1.0), log_delta=min(v.log_upper, 0.0),
                   bound="clone", lower_delta=None, lower_reason="not computed on the high-precision path",
                   paper_delta=None, paper_caveat=None, method=args.method, certified=True,
                   note="only the clone pair is evaluated with --method mpmath/arb")
        return out
    acc = ShuffleAccountant(params, args.n, bound=args.bound)
    rep = acc.delta_result(args.eps)
    log_d = math.log(rep.delta) if rep.delta > 0 else -math.inf
    if rep.delta < 1e-300:
        # below the float range: the pair bounds' log form keeps the value
        from .bounds import PAIR_BOUNDS, proved_upper_bounds

        cands = [b for b in PAIR_BOUNDS if b == name or (name == "proved" and b in proved_upper_bounds(params.name))]
        for b in cands:
            log_d = min(log_d, pair_bound_log_delta(b, params, args.n, args.eps).log_upper)
    out.update(epsilon=rep.epsilon, delta=rep.delta, log_delta=min(log_d, 0.0), bound=rep.bound,
               lower_delta=rep.lower_delta, lower_reason=rep.lower_reason,
               lower_dataset=rep.lower_dataset, lower_hash_model=rep.lower_hash_model, paper_delta=rep.paper_delta,
               paper_caveat=rep.paper_caveat, method=args.method,
               certified=acc.bound == "proved" or REGISTRY[acc.bound].proved(params.name))
    return out


def _local_epsilon_command(args) -> dict:
    from .bounds import compute_params_bound, proved_params_epsilon, resolve_name

    eps0 = local_epsilon(args.n, args.eps, args.delta, mechanism=args.mechanism, s=args.s, t=args.t,
                         rtol=args.rtol, bound=args.bound, k=args.k)
    params = _params(args, eps0)
    out = _describe(params, args.n)
    if args.bound == "proved":
        res = proved_params_epsilon(params, args.n, args.delta, 1e-9)
        name = res.name if res is not None else "post-processing"
        certified = True
    else:
        name = resolve_name(args.bound)
        res = compute_params_bound(name, params, args.n, args.delta, 1e-9)
        certified = REGISTRY[name].proved(params.name)
    achieved = res.epsilon if res is not None and res.epsilon is not None else eps0
    if args.bound == "proved":
        achieved = min(achieved, args.eps)  # the inverse verified delta <= target at eps (calibration)
    out.update(eps0=eps0, epsilon=args.eps, delta=args.delta, bound=name, certified=certified,
               achieved_epsilon=min(achieved, eps0),
               achieved_delta=res.achieved_delta if res is not None else 0.0)
    return out


def _check_applicable(args) -> None:
    """Options that do not apply to the chosen mechanism are refused, not ignored; work
    bounded up front (README, Limits)."""
    mech = getattr(args, "mechanism", None)
    if args.command in ("table", "figure"):
        return
    if args.command == "bib":
        per_user = args.rho if args.rho is not None else (args.p or 0.0)
        L.check_count("--k + --n x --rho", args.k + args.n * per_user, L.MAX_BIB_BALLS,
                      "expected blanket balls", "lower --n, --rho (or --p) or --k")
        return
    if mech is not None and args.command != "compose":
        if mech == "variation-ratio":
            if args.command == "local-epsilon":
                raise ValueError("--mechanism variation-ratio: local-epsilon searches eps0, but the "
                                 "variation-ratio parameters fix p = e^eps0; use epsilon/delta/compare")
            if getattr(args, "eps0", None) is not None:
                raise ValueError("--eps0 does not apply to mechanism 'variation-ratio' (eps0 = ln p: give --p)")
            if args.p is None:
                raise ValueError("--p is required for mechanism 'variation-ratio' (a number in (1, e^30])")
        elif args.command == "local-epsilon" and getattr(args, "g", None) is not None:
            raise ValueError("--g does not apply to local-epsilon (olh's g follows eps0: round(e^eps0) + 1)")
        elif getattr(args, "eps0", 1.0) is None:
            raise ValueError("--eps0 is required (a number in (0, 30])")
    if mech is not None:
        try:
            vr = _vr_options(args)
            eps0 = None if mech == "variation-ratio" else 1.0
            make_params(mech, eps0, s=args.s, t=args.t, k=args.k, d=getattr(args, "d", None), **vr)
        except ValueError as exc:
            msg = str(exc)
            for name in ("s", "t", "k", "d", "p", "beta", "q", "g"):
                if msg.startswith(f"{name} must be"):
                    msg = "--" + msg
                msg = msg.replace(f"{name} does not apply", f"--{name} does not apply")
                msg = msg.replace(f"{name} is required", f"--{name} is required")
            raise ValueError(msg) from None
    if args.command == "local-epsilon" and mech in ("collision", "coco") and args.t is None \
            and args.s > L.MAX_S_WALK:
        raise ValueError(f"--s must be an integer in [1, {L.MAX_S_WALK}] for local-epsilon with the "
                         f"default t-rule (the search walks the t values), got {args.s}; "
                         f"pass --t to fix t")


def run(argv: Optional[Sequence[str]] = None) -> dict:
    """Parse ``argv`` and compute; returns the JSON-ready result (raises UsageError/ValueError)."""
    args = build_parser().parse_args(argv)
    _check_applicable(args)
    # optional engines: one line naming what to install, before any work
    if getattr(args, "method", None) == "arb":
        require("flint", "--method arb (certified ball arithmetic)")
    if getattr(args, "scheduler", None):
        require("distributed", "--scheduler (a Dask cluster)")
    if args.command == "bib":
        return _bib_command(args)
    if args.command == "compose":
        from .compose_cli import run_compose

        return run_compose(args)
    if args.command == "epsilon":
        # --delta D (decimal string) or --log-delta L: keep the log, args.delta the float image
        args.log_delta = math.log(args.delta) if args.delta is not None else args.log_delta
        args.delta = args.delta if args.delta is not None else math.exp(args.log_delta)
    if args.command == "compare":
        from .bounds import compare

        from .bounds import compare_params

        params = _params(args, args.eps0)
        res = compare_params(params, args.n, args.delta, rtol=args.rtol)
        out = _describe(params, args.n)
        out.update(delta=args.delta, bounds={
            k: {"epsilon": v.epsilon, "applicable": v.applicable, "reason": v.reason,
                "seconds": v.seconds, "achieved_delta": v.achieved_delta,
                "kind": REGISTRY[k].kind, "proved": REGISTRY[k].proved(params.name),
                **(_lower_fields(k, params, v.applicable) if REGISTRY[k].kind == "lower" else {})}
            for k, v in res.items()})
        return out
    if args.command in ("table", "figure"):
        return _grid_command(args, argv if argv is not None else sys.argv[1:])
    if args.command == "epsilon":
        return _epsilon_command(args)
    if args.command == "delta":
        return _delta_command(args)
    return _local_epsilon_command(args)


def _bound_list(text: str) -> tuple:
    from .bounds import BOUND_NAMES

    if text == "all":
        return BOUND_NAMES
    from .bounds import ALIASES

    names = tuple(ALIASES.get(x.strip(), x.strip()) for x in text.split(",") if x.strip())
    bad = [b for b in names if b not in BOUND_NAMES]
    if bad or not names:
        raise ValueError(f"bounds must be 'all' or names from {', '.join(BOUND_NAMES)}, got {text!r}")
    return names


def _grid_command(args, argv: Sequence[str] = ()) -> dict:
    from . import tables

    ns = tables.parse_list(args.n, int, "--n")
    eps0s = tables.parse_list(args.eps0, float, "--eps0")
    for n in ns:
        L.check_int("--n", n, 1, L.MAX_N)
    for e0 in eps0s:
        L.check_eps0(e0, "--eps0")
    ks: list = [None]
    columns = None
    if args.command == "table":
        mechanism = args.mechanism
        if mechanism in ("variation-ratio", "olh", "oue"):
            raise ValueError(f"--mechanism {mechanism} is not available in table (its grid has no "
                             "--p/--beta/--q/--k/--g); use epsilon or compare")
        deltas = tables.parse_list(args.delta, float, "--delta")
        for d in deltas:
            L.check_delta(d, "--delta")
        L.check_output_writable(args.out)
        ext = tables.check_output_path(args.out)
        t_rule = args.t_rule
        if args.columns is not None and args.all_bounds:
            raise ValueError("--columns and --all-bounds exclude each other (--all-bounds is every column)")
        columns = tables.parse_columns(args.columns) if args.columns is not None else None
        if args.bounds is not None:
            bounds = _bound_list(args.bounds)
        elif args.all_bounds or args.long:
            bounds = BOUND_NAMES
        else:
            bounds = tables.paper_bounds(mechanism, columns or ())
        if mechanism == "krr":
            if args.k is None:
                raise ValueError("--k is required for mechanism 'krr' (a list of integers >= 2)")
            ks = tables.parse_list(args.k, int, "--k")
            for v in ks:
                L.check_int("--k", v, 2, T_MAX)
        elif args.k is not None:
            raise ValueError(f"--k applies to --mechanism krr only, not to '{mechanism}'")
        if ext == ".tex":
            L.check_output_writable(tables.bib_path(args.out), "--out (its .bib)")
    else:
        bounds = _bound_list(args.bounds)
        mechanism, deltas, t_rule = "collision", [args.delta], "paper"
        ext = os.path.splitext(args.out)[1].lower()
        from .figure import FIGURE_FORMATS

        if ext not in FIGURE_FORMATS:
            raise ValueError(f"--out must end in {', '.join(FIGURE_FORMATS)}, got {args.out!r}")
    L.check_output_writable(args.out)
    if mechanism not in ("collision", "coco"):
        if args.s is not None:
            raise ValueError(f"--s applies to --mechanism collision or coco only, not to '{mechanism}'")
        if args.t_rule != "paper":
            raise ValueError(f"--t-rule applies to --mechanism collision or coco only, not to '{mechanism}'")
        ss = [None]
    else:
        if args.s is None:
            raise ValueError(f"--s is required for mechanism '{mechanism}' (a list of integers >= 1)")
        ss = tables.parse_list(args.s, int, "--s")
        for v in ss:
            L.check_int("--s", v, 1, T_MAX)
    size = len(ns) * len(ss) * len(ks) * len(eps0s) * len(deltas)
    L.check_count("grid", size, L.MAX_GRID_POINTS, "number of points (n x s x k x eps0 x delta)",
                  "split the grid into several runs")
    large = sum(1 for n in ns if n > L.LARGE_N) * len(ss) * len(ks) * len(eps0s) * len(deltas)
    L.check_count("grid", large, L.MAX_GRID_POINTS_LARGE_N,
                  f"number of points with --n above {L.LARGE_N:.0e}",
                  "split the grid into several runs")
    if getattr(args, "scheduler", None) is not None and not args.scheduler.strip():
        raise ValueError("--scheduler must be an address such as tcp://host:8786, got ''")
    try:
        points = tables.build_grid(ns, ss, eps0s, deltas, mechanism, t_rule, ks=ks)
    except ValueError as exc:
        raise ValueError(f"--t-rule/--s/--eps0: {exc}") from None
    for pt in points:  # validate every point before any work starts
        make_params(pt.mechanism, pt.eps0, s=pt.s, t=pt.t, k=pt.k)
    rtol = getattr(args, "rtol", 1e-9)
    rows = tables.compute_table(points, bounds, rtol=rtol, workers=args.workers,
                                scheduler=getattr(args, "scheduler", None))
    import shlex

    meta = tables.provenance("python -m accountant " + shlex.join(argv), rtol=rtol, method="float")
    out = {"command": args.command, "format": ext.lstrip("."), "rows": len(rows), "bounds": list(bounds),
           "parameters": {"mechanism": mechanism, "n": ns, "s": ss if ss != [None] else None,
                          "k": ks if ks != [None] else None, "eps0": eps0s, "delta": deltas,
                          "t_rule": t_rule if mechanism in ("collision", "coco") else None},
           "meta": meta}
    if args.command == "table":
        if args.long:
            cols = list(tables.LONG_FIELDS)
            out["rows"] = len(tables.long_rows(rows, [c for c in (columns or ()) if c in REGISTRY] or None))
        elif args.all_bounds:
            cols = tables.wide_columns(rows)
        else:
            cols = columns if columns is not None else tables.default_columns(rows)
        chosen = cols if (args.all_bounds or columns is not None) else None  # None: the default
        written = tables.write_table(rows, args.out, None if args.long else chosen, args.digits, meta,
                                     long=args.long)
        out.update(out=args.out, paths=written, columns=cols, digits=args.digits, long=args.long)
    else:
        from .figure import write_figure

        write_figure(rows, bounds, args.out, width_in=args.width)
        out.update(out=args.out, paths=[args.out], columns=None)
    out["saving_percent"] = tables.saving_summary(rows)
    return out


def _human(command: str, out: dict) -> str:
    if command == "compose":
        from .compose_cli import human

        return human(out)
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
        from .numfmt import fmt

        sv = out["saving_percent"]
        extra = (f"; saving of the proved number over the literature's best proved bound: median "
                 f"{fmt(sv['median'], 3, 'down')}% (min {fmt(sv['min'], 3, 'down')}%, "
                 f"max {fmt(sv['max'], 3, 'down')}%)" if sv.get("count") else "")
        return f"wrote {out['rows']} rows to {' and '.join(out['paths'])}{extra}"
    mech = out["mechanism"] + (f" (s={out['s']}, t={out['t']})" if out["mechanism"] in ("collision", "coco")
                               else f" (k={out['k']})" if out["mechanism"] in ("krr", "oue")
                               else f" (k={out['k']}, g={out['g']})" if out["mechanism"] == "olh"
                               else f" (p={out['p']:.10g}, beta={out['beta']:.10g}, q={out['q']:.10g})"
                               if out["mechanism"] == "variation-ratio" else "")
    if command == "compare":
        lines = [f"n = {out['n']}, eps0 = {out['eps0']:g}, delta = {out['delta']:g}, {mech}"]
        for k, v in out["bounds"].items():
            tag = {"upper": "proved" if v["proved"] else "not proved", "lower": "lower bound",
                   "paper": "paper, not proved"}[v["kind"]]
            val = f"{v['epsilon']:.6g}" if v["applicable"] else f"not applicable: {v['reason']}"
            lines.append(f"  {k:26s} {val}  [{tag}]")
        return "\n".join(lines)
    if command == "epsilon" and "paper_epsilon" not in out:
        if not out["applicable"]:
            return f"{out['bound']}: not applicable: {out['reason']}"
        what = "proved upper bound" if out["certified"] else (
            "certified lower bound" if out["kind"] == "lower" else "NOT a proved bound")
        return (f"{out['bound']}: eps_c {'>=' if out['kind'] == 'lower' else '<='} {out['epsilon']:.10g} "
                f"at delta = {out['delta']:.3g} ({what})" + (f"; {out['reason']}" if out["reason"] else ""))
    if command == "epsilon":
        lines = [f"eps_c <= {out['epsilon']:.10g} at delta = {out['delta']:.3g} (proved: {out['bound']}; "
                 f"certified delta {out['achieved_delta']:.6g})",
                 f"n = {out['n']}, eps0 = {out['eps0']:g}, {mech}"]
        hashed = "worst_hash_lower_epsilon" in out
        if out["lower_epsilon"] is not None:
            hm = out.get("lower_hash_model")
            lines.append(f"eps_c >= {out['lower_epsilon']:.10g} (certified lower bound for the mechanism"
                         + (f", {hm})" if hm else ")"))
            lines.append(f"  datasets: {out['lower_dataset']}")
        else:
            lines.append(f"lower bound: not available ({out['lower_reason']})")
        if hashed and out["worst_hash_lower_epsilon"] is not None:
            lines.append(f"eps_c >= {out['worst_hash_lower_epsilon']:.10g} for the worst hash family "
                         "(no bound proved for every hash family can be smaller)")
        if out["paper_epsilon"] is not None:
            lines.append(f"paper's Theorem 5 value {out['paper_epsilon']:.10g} (not a proved bound)")
        return "\n".join(lines)
    if command == "delta":
        lines = [f"delta <= {out['delta']:.10g} (log delta <= {out['log_delta']:.12g}) at eps = {out['epsilon']:g} "
                 f"({out['bound']}{'' if out['certified'] else ', NOT proved'})",
                 f"n = {out['n']}, eps0 = {out['eps0']:g}, {mech}"]
        if out["lower_delta"] is not None:
            lines.append(f"delta >= {out['lower_delta']:.10g} (certified lower bound for the mechanism)")
        if out["paper_delta"] is not None:
            lines.append(f"paper's value {out['paper_delta']:.10g} (not a proved bound)")
        return "\n".join(lines)
    return (f"largest eps0 = {out['eps0']:.8g} gives eps_c <= {out['achieved_epsilon']:.8g} <= {out['epsilon']:g} "
            f"at delta = {out['delta']:.3g} ({out['bound']}{'' if out['certified'] else ', NOT proved'})\n"
            f"n = {out['n']}, {mech}")


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point; returns the exit status (0 ok, 2 bad input, 1 failure, 130 interrupted).

    Errors are one line on stderr, never a traceback (:func:`accountant.limits.guarded`).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        sys.stderr.write(no_command_text() + "\n")
        return L.EXIT_USAGE

    def body() -> int:
        try:
            out = run(argv)
        except UsageError as exc:
            raise ValueError(str(exc)) from None
        command = next((a for a in argv if not a.startswith("-")), "")
        if "--json" in argv:
            print(json.dumps(out))
        else:
            print(_human(command, out))
        return 0

    return L.guarded(body)
