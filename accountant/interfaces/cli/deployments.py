"""``epsilon`` with deployment options (issue 43): --colluders, --n-min, --dummies,
--sampling [--neighbours] [--rounds], --reports, --mix. Parsing and formatting only; the numerics and the
proofs are in :mod:`accountant.accounting.deployments`.
"""
from __future__ import annotations

import argparse
import math

from accountant.core import limits as L
from accountant.core.limits import float_arg, int_arg

FLAGS = ("colluders", "n_min", "dummies", "sampling", "rounds", "reports", "mix")


def add_options(p: argparse.ArgumentParser, delta: bool = False) -> None:
    """The deployment options of ``epsilon`` and (``delta=True``: without --n-min, --rounds)
    of ``delta`` (docs/deployments.md)."""
    p.add_argument("--colluders", type=int_arg("--colluders", 0, L.MAX_N), default=None,
                   help="c users reveal their reports to the analyst (0 <= c < n): the bound of n - c honest users")
    if not delta:
        p.add_argument("--n-min", dest="n_min", type=int_arg("--n-min", 1, L.MAX_N), default=None,
                       help="population known only as n >= N (give it instead of --n): the bound at N, "
                            "valid for every n >= N")
    p.add_argument("--dummies", type=int_arg("--dummies", 0, L.MAX_N), default=None,
                   help="m dummy reports, each the randomizer's output on a data-independent input "
                        "(k-RR, RR: uniform over the outputs)")
    p.add_argument("--sampling", type=float_arg("--sampling", 0.0, 1.0, lo_open=True), default=None,
                   help="Poisson user sampling: each user takes part w.p. q in (0, 1]")
    p.add_argument("--neighbours", default=None, choices=("substitute", "add-remove"),
                   help="with --sampling: the neighbouring relation (default substitute)")
    if not delta:
        p.add_argument("--rounds", type=int_arg("--rounds", 1, L.MAX_ROUNDS), default=None,
                       help="with --sampling, --colluders, --dummies, --n-min, --reports or --mix: rounds T (a "
                            "fresh sample, fresh reports and dummies each round; PLD composition; at most "
                            f"{L.MAX_ROUNDS:,})")
        p.add_argument("--reports", type=int_arg("--reports", 1, 1000), default=None,
                       help="r reports per user, each an independent eps0-LDP randomisation, all shuffled together")
        p.add_argument("--mix", default=None, metavar="FILE",
                       help="groups of users with their own randomizer: a JSON list of {count, mechanism, "
                            "eps0, ...} (gives n; no --n, --eps0, --mechanism)")


def wanted(args) -> bool:
    return any(getattr(args, f, None) is not None for f in FLAGS) or getattr(args, "neighbours", None) is not None


def check(args) -> None:
    """Refuse, before any work, what the proofs do not cover (one line naming the flag)."""
    if getattr(args, "mix", None) is not None:
        _check_mix(args)
        return
    if getattr(args, "reports", None) is not None and (args.colluders or args.dummies or args.sampling is not None
                                                       or args.n_min is not None):
        raise ValueError("--reports with --colluders, --dummies, --sampling or --n-min: the combination is not proved here")
    if getattr(args, "reports", None) is not None and args.mechanism == "variation-ratio":
        raise ValueError("--reports needs --eps0 (variation-ratio is not supported)")
    if args.n_min is not None and args.n is not None:
        raise ValueError("--n-min: give either --n or --n-min (the population's lower bound N), not both")
    if args.n is None and args.n_min is None:
        raise ValueError("the following arguments are required: --n (or --n-min)")
    n = args.n if args.n is not None else args.n_min
    if args.colluders is not None and args.colluders >= n:
        raise ValueError(f"--colluders must be an integer in [0, n - 1] = [0, {n - 1}], got {args.colluders}")
    if args.neighbours is not None and args.sampling is None:
        raise ValueError("--neighbours applies only with --sampling")
    if args.rounds is not None and args.sampling is None and getattr(args, "reports", None) is None and not (
            args.colluders or args.dummies or args.n_min is not None):
        raise ValueError("--rounds applies only with --sampling, --colluders, --dummies, --n-min, --reports or "
                         "--mix (use the compose command otherwise)")
    if args.sampling is not None:
        if args.colluders or args.dummies or args.n_min is not None:
            raise ValueError("--sampling with --colluders, --dummies or --n-min: the combination is not proved here")
        if args.mechanism == "variation-ratio":
            raise ValueError("--sampling needs --eps0 (variation-ratio is not supported)")
    if args.bound != "proved" or args.method != "float" or args.delta is None:
        raise ValueError("--colluders/--n-min/--dummies/--sampling: only with --bound proved, --method float and --delta")
    if n - (args.colluders or 0) + (args.dummies or 0) > L.MAX_N:
        raise ValueError(f"--dummies: n - colluders + dummies must be at most {L.MAX_N:g}")


def _check_mix(args) -> None:
    from accountant.accounting.deployment_groups import parse_mix

    others = [f for f in ("n", "eps0", "n_min", "colluders", "dummies", "sampling", "reports", "neighbours")
              if getattr(args, f, None) is not None]
    if others or args.mechanism not in (None, "generic"):
        raise ValueError("--mix: the groups give n, eps0 and the mechanisms; do not combine it with "
                         + ", ".join("--" + f.replace("_", "-") for f in others or ["mechanism"]))
    if args.bound != "proved" or args.method != "float" or args.delta is None:
        raise ValueError("--mix: only with --bound proved, --method float and --delta")
    from accountant.interfaces.fileio import read_json

    args.mix_groups = parse_mix(read_json(args.mix, L.MAX_SCHEDULE_BYTES, "--mix"), "--mix")


def _run_mix(args) -> dict:
    from accountant.accounting.deployment_groups import mix_epsilon

    from accountant.accounting.deployment_groups import mix_rounds_epsilon

    groups = args.mix_groups
    if args.rounds is not None and args.rounds > 1:
        r = mix_rounds_epsilon(groups, args.delta, args.rounds)
    else:
        r = mix_epsilon(groups, args.delta, max(args.rtol, 1e-6))
    return {"deployment": True, "mechanism": "mix", "n": r.effective_n, "eps0": None, "delta": args.delta,
            "rounds": args.rounds,
            "mix": [{"count": c, "mechanism": p.name, "eps0": p.eps0} for c, p in groups],
            "epsilon": r.epsilon, "achieved_delta": r.achieved_delta, "bound": r.bound,
            "effective_n": r.effective_n, "statement": r.statement, "certified": True, **_lower_out(r)}


def _lower_out(r) -> dict:
    """The lower bound's keys; ``lower_reason`` says why it is not available (None when it is); an
    infinite lower bound (JSON null) says so in ``lower_epsilon_reason``; ``note``: why an
    infinite upper bound is (the "no finite eps_c is proved" convention)."""
    reason = r.lower_statement if r.lower_epsilon is None and r.lower_statement else None
    out = {"lower_epsilon": r.lower_epsilon, "lower_statement": r.lower_statement, "lower_dataset": r.lower_dataset,
           "lower_reason": reason}
    if r.lower_epsilon == math.inf:
        out["lower_epsilon_reason"] = ("+infinity (the certified lower bound: no finite eps_c exists); "
                                       "JSON has no infinity")
    if getattr(r, "note", None):
        out["note"] = r.note
    return out


def run(args, params) -> dict:
    from accountant.accounting import deployments as D

    if getattr(args, "mix", None) is not None:
        return _run_mix(args)

    n = args.n if args.n is not None else args.n_min
    out = {"deployment": True, "mechanism": params.name, "n": n, "eps0": getattr(params, "eps0", None),
           "delta": args.delta, "colluders": args.colluders, "n_min": args.n_min, "dummies": args.dummies,
           "sampling": args.sampling, "neighbours": args.neighbours or ("substitute" if args.sampling else None),
           "rounds": args.rounds}
    out["reports"] = getattr(args, "reports", None)
    out.update(_randomizer_fields(params))
    if out["reports"] is not None:
        from accountant.accounting import deployment_groups as G

        r = G.reports_rounds_epsilon(params, n, args.delta, args.reports, args.rounds) \
            if args.rounds is not None and args.rounds > 1 else \
            G.reports_epsilon(params, n, args.delta, args.reports, max(args.rtol, 1e-6))
    elif args.sampling is not None:
        if args.rounds is not None and args.rounds > 1:
            r = D.sampled_rounds_epsilon(params, n, args.delta, args.sampling, args.rounds,
                                         neighbours=out["neighbours"])
        else:
            r = D.sampled_epsilon(params, n, args.delta, args.sampling, max(args.rtol, 1e-6),
                                  neighbours=out["neighbours"])
    elif args.rounds is not None and args.rounds > 1:
        from accountant.composition.rounds import RoundSpec

        spec = RoundSpec(params, n)
        r = D.deployment_rounds_epsilon(spec, args.rounds, args.delta, colluders=args.colluders or 0,
                                        dummies=args.dummies or 0, n_min=args.n_min is not None)
    else:
        r = D.deployment_epsilon(params, n, args.delta, colluders=args.colluders or 0,
                                 dummies=args.dummies or 0, n_min=args.n_min is not None, rtol=args.rtol)
    out.update(epsilon=r.epsilon, achieved_delta=r.achieved_delta, bound=r.bound,
               effective_n=r.effective_n, statement=r.statement, certified=True, **_lower_out(r))
    return out


def _randomizer_fields(params) -> dict:
    """The randomizer's parameters (s, t, k, d, g, p, beta, q, hash model; a matrix's
    description) as computed with, beside the deployment's."""
    from accountant.interfaces.cli.commands import describe

    return {k: v for k, v in describe(params, 0).items() if k not in ("mechanism", "n", "eps0")}


def human(out: dict) -> str:
    from accountant.core.numfmt import fmt

    if out.get("command") == "delta":
        return "\n".join([f"delta <= {fmt(out['delta'], 10, 'up')} at eps = {out['epsilon']:g} (proved, at n = "
                          f"{out['effective_n']})", f"n = {out['n']}, eps0 = {out['eps0']:g}, {out['mechanism']}",
                          f"  {out['statement']}"])

    head = (f"eps_c <= {fmt(out['epsilon'], 10, 'up')} at delta = {out['delta']:.3g} (proved: {out['bound']} "
            f"at n = {out['effective_n']}; certified delta {fmt(out['achieved_delta'], 6, 'up')})")
    if out["mechanism"] == "mix":
        what = "; ".join(f"{g['count']} x {g['mechanism']} eps0 = {g['eps0']:g}" for g in out["mix"])
        lines = [head, f"n = {out['n']}: {what}", f"  {out['statement']}"]
    else:
        lines = [head, f"n = {out['n']}, eps0 = {out['eps0']:g}, {out['mechanism']}", f"  {out['statement']}"]
    if out.get("note"):
        lines.insert(1, f"  note: {out['note']}")
    if out.get("lower_epsilon") is not None:
        lines.append(f"eps_c >= {fmt(out['lower_epsilon'], 10, 'down')} (lower bound: {out['lower_statement']}; "
                     f"datasets {out['lower_dataset']})")
    elif out.get("lower_reason"):
        why = out["lower_reason"]
        lines.append(why if why.startswith("lower bound") else f"lower bound: not available ({why})")
    return "\n".join(lines)


def check_delta(args) -> None:
    """``delta`` with deployment options: refused before any work where not covered."""
    if args.colluders is not None and args.colluders >= args.n:
        raise ValueError(f"--colluders must be an integer in [0, n - 1] = [0, {args.n - 1}], got {args.colluders}")
    if args.neighbours is not None and args.sampling is None:
        raise ValueError("--neighbours applies only with --sampling")
    if args.sampling is not None and (args.colluders or args.dummies):
        raise ValueError("--sampling with --colluders or --dummies: the combination is not proved here")
    if args.sampling is not None and args.mechanism == "variation-ratio":
        raise ValueError("--sampling needs --eps0 (variation-ratio is not supported)")
    if args.bound != "proved" or args.method != "float":
        raise ValueError("--colluders/--dummies/--sampling: only with --bound proved and --method float")
    if args.n - (args.colluders or 0) + (args.dummies or 0) > L.MAX_N:
        raise ValueError(f"--dummies: n - colluders + dummies must be at most {L.MAX_N:g}")


def run_delta(args, params) -> dict:
    from accountant.accounting import deployments as D
    from accountant.accounting.shuffle import ShuffleAccountant

    nb = args.neighbours or ("substitute" if args.sampling is not None else None)
    out = {"deployment": True, "command": "delta", "mechanism": params.name, "n": args.n,
           "eps0": getattr(params, "eps0", None), "epsilon": args.eps, "colluders": args.colluders,
           "dummies": args.dummies, "sampling": args.sampling, "neighbours": nb}
    if args.sampling is not None:
        fn = D.sampled_delta if nb == "substitute" else D.sampled_delta_add_remove
        D.check_deployment(args.n, sampling=args.sampling, neighbours=nb)
        d, eff = fn(params, args.n, args.sampling, args.eps), args.n
        st = f"user sampling q = {args.sampling:g} (Poisson, {nb}): docs/deployments.md"
    else:
        eff = D.check_deployment(args.n, colluders=args.colluders or 0, dummies=args.dummies or 0)
        d = ShuffleAccountant(params, eff).get_delta(args.eps)
        st = (f"the proved bound at n - colluders + dummies = {eff} users (colluders' reports are independent "
              "side information; dummies are the randomizer's output on data-independent inputs)")
    out.update(delta=d, effective_n=eff, statement=st, certified=True, **_randomizer_fields(params))
    return out
