"""``epsilon``, ``delta`` and ``users`` with deployment options: --colluders, --n-min, --dummies,
--sampling [--neighbours] [--rounds], --reports, --mix. Parsing and formatting only: the options
become one :class:`accountant.accounting.deployment.Deployment`, refused where its table says the
features do not combine (in the options' words), computed by the one dispatch
(:mod:`accountant.accounting.deployment_proof`).
"""
from __future__ import annotations

import argparse
import math

from accountant.accounting.deployment import FEATURES, Deployment, inverse_refusal, refusal, supports
from accountant.core import limits as L
from accountant.core.limits import float_arg, int_arg
from accountant.interfaces.cli.arguments import DEFAULT_MECHANISM

FLAGS = ("colluders", "n_min", "dummies", "sampling", "rounds", "reports", "mix")


def flag(feature: str) -> str:
    """The command-line option of a deployment feature (``n_min`` -> ``--n-min``)."""
    return "--" + feature.replace("_", "-")


def add_options(p: argparse.ArgumentParser, delta: bool = False, rounds: bool = True) -> None:
    """The deployment options of ``epsilon``, of ``users`` (``rounds=False``: it has its own
    --rounds) and (``delta=True``: without --n-min, --rounds, --reports, --mix) of ``delta``
    (docs/deployments.md)."""
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
        if rounds:
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


def features(args) -> list:
    """The deployment features the options choose (:data:`accountant.accounting.deployment.FEATURES`)."""
    on = {"colluders": bool(getattr(args, "colluders", None)), "n_min": getattr(args, "n_min", None) is not None,
          "dummies": bool(getattr(args, "dummies", None)), "sampling": getattr(args, "sampling", None) is not None,
          "reports": getattr(args, "reports", None) is not None, "mix": getattr(args, "mix", None) is not None,
          "rounds": (getattr(args, "rounds", None) or 1) > 1}
    return [f for f in FEATURES if on[f]]


def deployment(args) -> Deployment:
    """The options as one :class:`Deployment` (after :func:`check`)."""
    rounds = getattr(args, "rounds", None) or 1
    return Deployment(colluders=args.colluders or 0, n_min=getattr(args, "n_min", None) is not None,
                      dummies=args.dummies or 0, sampling=args.sampling, neighbours=args.neighbours,
                      reports=getattr(args, "reports", None), mix=getattr(args, "mix_groups", None),
                      rounds=rounds)


def supported(args, params) -> None:
    """The randomizer against the features' proofs (one line naming the option)."""
    why = supports(params, features(args), flag)
    if why:
        raise ValueError(why)


def check(args) -> None:
    """Refuse, before any work, what the proofs do not cover (one line naming the flag)."""
    why = refusal(features(args), flag)
    if why:
        raise ValueError(why)
    if getattr(args, "mix", None) is not None:
        _check_mix(args)
        return
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
    if args.bound != "proved" or args.method != "float" or args.delta is None:
        raise ValueError("--colluders/--n-min/--dummies/--sampling: only with --bound proved, --method float and --delta")
    if n - (args.colluders or 0) + (args.dummies or 0) > L.MAX_N:
        raise ValueError(f"--dummies: n - colluders + dummies must be at most {L.MAX_N:g}")


def check_users(args) -> None:
    """``users`` with deployment options: refused, before any work, where the table says the features
    do not combine or the search does not cover them (--n-min, --mix), one line naming the flag."""
    why = inverse_refusal(features(args), flag)
    if why:
        raise ValueError(why)
    if args.neighbours is not None and args.sampling is None:
        raise ValueError("--neighbours applies only with --sampling")


def _check_mix(args) -> None:
    from accountant.accounting.deployment import parse_mix

    others = [f for f in ("n", "eps0", "n_min", "colluders", "dummies", "sampling", "reports", "neighbours")
              if getattr(args, f, None) is not None]
    if others or args.mechanism not in (None, DEFAULT_MECHANISM):
        raise ValueError("--mix: the groups give n, eps0 and the mechanisms; do not combine it with "
                         + ", ".join("--" + f.replace("_", "-") for f in others or ["mechanism"]))
    if args.bound != "proved" or args.method != "float" or args.delta is None:
        raise ValueError("--mix: only with --bound proved, --method float and --delta")
    from accountant.interfaces.fileio import read_json

    args.mix_groups = parse_mix(read_json(args.mix, L.MAX_SCHEDULE_BYTES, "--mix"), "--mix")


def _run_mix(args) -> dict:
    from accountant.accounting.deployment_proof import deployed_epsilon

    r = deployed_epsilon(None, None, args.delta, deployment(args), rtol=args.rtol)
    groups = args.mix_groups
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
    from accountant.accounting.deployment_proof import deployed_epsilon

    if getattr(args, "mix", None) is not None:
        return _run_mix(args)
    supported(args, params)
    n = args.n if args.n is not None else args.n_min
    out = {"deployment": True, "mechanism": params.name, "n": n, "eps0": getattr(params, "eps0", None),
           "delta": args.delta, "colluders": args.colluders, "n_min": args.n_min, "dummies": args.dummies,
           "sampling": args.sampling, "neighbours": args.neighbours or ("substitute" if args.sampling else None),
           "rounds": args.rounds}
    out["reports"] = getattr(args, "reports", None)
    out.update(_randomizer_fields(params))
    r = deployed_epsilon(params, n, args.delta, deployment(args), rtol=args.rtol)
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
    why = refusal(features(args), flag)
    if why:
        raise ValueError(why)
    if args.colluders is not None and args.colluders >= args.n:
        raise ValueError(f"--colluders must be an integer in [0, n - 1] = [0, {args.n - 1}], got {args.colluders}")
    if args.neighbours is not None and args.sampling is None:
        raise ValueError("--neighbours applies only with --sampling")
    if args.bound != "proved" or args.method != "float":
        raise ValueError("--colluders/--dummies/--sampling: only with --bound proved and --method float")
    if args.n - (args.colluders or 0) + (args.dummies or 0) > L.MAX_N:
        raise ValueError(f"--dummies: n - colluders + dummies must be at most {L.MAX_N:g}")


def run_delta(args, params) -> dict:
    from accountant.accounting.deployment_proof import deployed_delta

    supported(args, params)
    nb = args.neighbours or ("substitute" if args.sampling is not None else None)
    out = {"deployment": True, "command": "delta", "mechanism": params.name, "n": args.n,
           "eps0": getattr(params, "eps0", None), "epsilon": args.eps, "colluders": args.colluders,
           "dummies": args.dummies, "sampling": args.sampling, "neighbours": nb}
    r = deployed_delta(params, args.n, args.eps, deployment(args))
    out.update(delta=r.delta, effective_n=r.effective_n, statement=r.statement, certified=True,
               **_randomizer_fields(params))
    return out
