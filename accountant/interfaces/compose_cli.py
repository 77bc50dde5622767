"""``python -m accountant compose``: central eps after many shuffled rounds.

Thin: parses, calls ``accountant.composition.compose``, returns a JSON-ready dict.
"""
from __future__ import annotations

import argparse
import json
import os

from accountant.core import limits as L
from accountant.core.params import mechanism_spec
from accountant.interfaces.cli.arguments import (DEFAULT_MECHANISM, add_catalogue_options, add_matrix_option,
                                                add_option_args)
from accountant.composition.rounds import ROUND_MECHANISMS  # (the composition itself: where it runs)


# compose's words for the options it shares with the other commands
_VR = "variation-ratio (Wang et al., VLDB 2024): "
_HELP = {
    "k": "domain size (krr, olh, oue; finite --catalogue: the number of inputs)",
    "d": "dimension d >= s (collision, coco): the composed certified lower bound uses three inputs on "
         "pairwise disjoint s-sets of [d], which needs d >= 3s (the upper bound does not depend on d)",
    "p": _VR + "ratio p > 1 of the two differing inputs' outputs (eps0 = ln p)",
    "beta": _VR + "their total variation distance, in (0, (p-1)/(p+1)]",
    "q": _VR + "ratio q > 1 to any other input's output (default p)",
    "hash_model": "collision, coco, olh: 'any' (default, every hash family) or 'random' (each round's "
                  "profile proved assuming each report's hash is a uniformly random function)",
}


def add_compose_parser(sub) -> None:
    """Register the ``compose`` subcommand on ``sub`` (argparse subparsers)."""
    p = sub.add_parser("compose", help="central (eps, delta) after T rounds (PLD vs naive vs advanced)")
    p.add_argument("--rounds", type=L.int_arg("--rounds", 1, L.MAX_ROUNDS), default=None,
                   help=f"number of identical rounds T (at most {L.MAX_ROUNDS:,})")
    p.add_argument("--n", type=L.n_arg(), default=None, help="users per round")
    p.add_argument("--eps0", type=L.eps0_arg(), default=None, help="local budget per round")
    p.add_argument("--mechanism", default=DEFAULT_MECHANISM, choices=ROUND_MECHANISMS + ("finite",),
                   help="randomizer of every round (default generic eps0-LDP; finite: --matrix FILE or "
                        "--catalogue NAME --k K --eps0 E)")
    add_option_args(p, ("s", "t", "k", "d", "delta0"), helps=_HELP)
    add_matrix_option(p)
    add_catalogue_options(p, with_g=True, g_help="olh: hash range g >= 2 (default round(e^eps0) + 1); "
                          "finite --catalogue local-hashing: its hash range")
    add_option_args(p, ("p", "beta", "q", "hash_model", "range"), helps=_HELP)
    p.add_argument("--schedule", default=None,
                   help="JSON file: list of rounds {n, eps0, mechanism?, s?, t?, k?, d?, g? (olh), repeat?, "
                        "hash_model?} "
                        "(variation-ratio: {n, mechanism, p, beta, q?, repeat?}; finite: {n, mechanism, "
                        "matrix: FILE (relative to the schedule), repeat?} or {n, mechanism, catalogue, k, "
                        "eps0, size?, g?, repeat?})")
    p.add_argument("--delta", type=L.delta_arg(), required=True, help="total target delta")
    p.add_argument("--step", type=L.float_arg("--step", 0.0, 1.0, lo_open=True), default=None,
                   help="loss grid step in (0, 1], one discretisation level (default: adaptive, refined "
                        "until the PLD spread is <= 0.01%% or the budget of 640 samples / 30 s CPU)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def read_schedule(path: str, max_rounds: int | None = None) -> list:
    """Round specs from a schedule file (JSON, :func:`accountant.composition.compose.parse_schedule`);
    ValueError (one line, naming --schedule) when it cannot be read or parsed (size, encoding,
    nesting, syntax) or (``max_rounds``) when its rounds, repeats counted, exceed
    ``max_rounds`` (checked before they are expanded); all before any work."""
    from accountant.composition.compose import parse_schedule

    data = _schedule_data(path)
    if max_rounds is not None and isinstance(data, list):
        total = 0
        for r in data:
            rep = r.get("repeat", 1) if isinstance(r, dict) else 1
            total += rep if isinstance(rep, (int, float)) and not isinstance(rep, bool) and rep > 0 else 1
        if total > max_rounds:
            raise ValueError(f"--schedule: {total:,.0f} rounds (repeats counted) exceed the limit "
                             f"of {max_rounds:,}")
    try:
        return parse_schedule(data, base=os.path.dirname(os.path.abspath(path)))
    except ValueError as exc:
        msg = str(exc)
        raise ValueError(msg if msg.startswith("--schedule") else f"--schedule: {msg}") from None


def _schedule_data(path: str):
    """The JSON data of a schedule file; ValueError naming --schedule (size, encoding,
    nesting, syntax) before any work."""
    try:
        size = os.path.getsize(path)
        if size > L.MAX_SCHEDULE_BYTES:
            raise ValueError(f"--schedule: file {path!r} has {size:,} bytes, more than the limit of "
                             f"{L.MAX_SCHEDULE_BYTES:,}; use \"repeat\" for identical rounds")
        with open(path, "rb") as fh:
            raw = fh.read(L.MAX_SCHEDULE_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"--schedule: cannot read {path!r}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"--schedule: {path!r} is not a UTF-8 text (JSON) file") from None
    depth = 0
    for ch in text:  # nesting refused before the parser recurses
        if ch in "[{":
            depth += 1
            if depth > L.MAX_NESTING:
                raise ValueError(f"--schedule: JSON nested deeper than {L.MAX_NESTING} levels "
                                 "(a schedule is a list of round objects)")
        elif ch in "]}":
            depth -= 1
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"--schedule: invalid JSON at line {exc.lineno}: {exc.msg}") from None
    except RecursionError:  # pragma: no cover - depth checked above
        raise ValueError(f"--schedule: JSON nested too deeply (limit {L.MAX_NESTING})") from None


def run_compose(args: argparse.Namespace) -> dict:
    """Compute the comparison; ValueError on bad input (one line)."""
    from accountant.composition.compose import (ESTIMATE_OF_BOUND, RoundSpec, compose_rounds, compose_schedule,
                                                round_source)

    if args.schedule is not None:
        if any(v is not None for v in (args.rounds, args.n, args.eps0)):
            raise ValueError("--schedule replaces --rounds/--n/--eps0; give one or the other")
        if any(getattr(args, o) is not None for o in ("p", "beta", "q")):
            raise ValueError("--p/--beta/--q: with --schedule give them in the rounds of the file")
        if getattr(args, "d", None) is not None:
            raise ValueError("--d applies to --rounds/--n/--eps0; a schedule gives \"d\" per round")
        if getattr(args, "hash_model", "any") != "any":
            raise ValueError("--hash-model applies to --rounds/--n/--eps0; a schedule gives "
                             "\"hash_model\" per round")
        given = [f"--{o}" for o in ("s", "t", "k", "g") if getattr(args, o, None) is not None]
        if args.mechanism != DEFAULT_MECHANISM:
            given.insert(0, "--mechanism")
        if given:
            raise ValueError(f"{'/'.join(given)}: not with --schedule (they apply to --rounds/--n/--eps0; "
                             "a schedule gives the mechanism and its fields per round)")
        specs = read_schedule(args.schedule)
        res = compose_schedule(specs, args.delta, args.step)
    elif args.mechanism == "finite":  # checked by check_applicable: a matrix or a catalogue member
        from accountant.interfaces.cli.commands import matrix_from_args

        for name in ("rounds", "n"):
            if getattr(args, name) is None:
                raise ValueError(f"--{name} is required (or give --schedule FILE.json)")
        specs = [RoundSpec.finite(matrix_from_args(args), args.n)]
        res = compose_rounds(specs[0], args.rounds, args.delta, args.step)
    else:
        vr = not mechanism_spec(args.mechanism).eps0_given  # variation-ratio: eps0 = ln p
        if vr and args.eps0 is not None:
            raise ValueError("--eps0 does not apply to --mechanism variation-ratio (eps0 = ln p: give --p)")
        for name in ("rounds", "n") + (("p", "beta") if vr else ("eps0",)):
            if getattr(args, name) is None:
                raise ValueError(f"--{name} is required" + (" for --mechanism variation-ratio" if vr
                                 else "") + " (or give --schedule FILE.json)")
        given = [f"--{o}" for o in ("p", "beta", "q") if getattr(args, o) is not None]
        if given and not vr:
            raise ValueError(f"{'/'.join(given)}: only for --mechanism variation-ratio, not "
                             f"'{args.mechanism}'")
        try:
            spec = RoundSpec.named(args.mechanism, args.n, args.eps0, s=args.s, t=args.t, k=args.k,
                                   p=args.p, beta=args.beta, q=args.q, d=getattr(args, "d", None),
                                   g=getattr(args, "g", None), hash_model=getattr(args, "hash_model", "any"),
                                   range=getattr(args, "range", None),
                                   **({"delta0": args.delta0} if getattr(args, "delta0", None) is not None else {}))
        except ValueError as exc:
            msg = str(exc).replace("hash_model '", "--hash-model '")
            raise ValueError(f"--{msg}" if msg.split(" ")[0] in ("p", "beta", "q", "s", "t", "k", "d", "g", "range")
                             or msg.startswith("delta0")
                             else msg) from None
        specs = [spec]
        res = compose_rounds(spec, args.rounds, args.delta, args.step)
    # which certified per-round profile was composed (clone alone for generic rounds)
    models = sorted({s.hash_model for s in specs})
    finite = [s.randomizer.describe() for s in dict.fromkeys(specs) if s.mechanism == "finite"]
    sources = {round_source(s) for s in dict.fromkeys(specs)}
    return {**res.as_dict(), **({"finite": finite} if finite else {}), **_users_epsilon(specs, args),
            "round": _round_fields(specs),
            "epsilon_estimate_of_bound_note": ESTIMATE_OF_BOUND,
            "hash_model": models[0] if len(models) == 1 else models, "profile": "; ".join(sorted(sources))}


def _users_epsilon(specs: list, args) -> dict:
    """Identical rounds: the composition ``users --rounds`` inverts
    (:func:`accountant.composition.compose.composed_upper`), so that its answer n is confirmed
    here (``users_epsilon`` <= the target at n, above it at n - 1); nothing for a schedule
    (``users`` composes identical rounds)."""
    if args.schedule is not None:
        return {}
    from accountant.accounting.batch_size import composed_name
    from accountant.composition.compose import USERS_EPSILON_NOTE, composed_upper

    eps, source = composed_upper(specs[0], args.rounds, args.delta)
    return {"users_epsilon": eps, "users_epsilon_source": composed_name(source),
            "users_epsilon_note": USERS_EPSILON_NOTE}


def _round_fields(specs: list):
    """The parameters of the composed round (None for a schedule of different rounds): what
    was computed, so that the output differs when they do."""
    kinds = list(dict.fromkeys(specs))
    if len(kinds) != 1 or kinds[0].mechanism == "finite":
        return None
    s = kinds[0]  # the options of its mechanism as its randomizer holds them, None for the others
    return {"n": s.n, "eps0": s.eps0, "mechanism": s.mechanism,
            **dict.fromkeys(("s", "t", "k", "d", "g", "p", "beta", "q")), **s.options}


_SOURCE = {"pld": "PLD", "naive": "naive composition, below the PLD total",
           "advanced": "advanced composition, below the PLD total"}


def human(out: dict) -> str:
    """The composed bounds printed rounded up (upper bounds stay upper bounds once printed);
    the PLD's estimate of the bound (``epsilon_estimate_of_bound``, not a bound) to nearest."""
    from accountant.core.numfmt import fmt

    low = out.get("epsilon_lower")
    lower = (f"eps >= {fmt(low, 6, 'down')} ({out['epsilon_lower_note']})" if low is not None
             else f"lower bound {out.get('epsilon_lower_note') or 'not computed'}")
    spread = out.get("pld_spread")
    spread = "" if spread is None else f"; PLD spread {fmt(100 * spread, 2, 'up')}%"  # None: PLD infinite
    return (f"after {out['rounds']} rounds at delta = {out['delta']:.3g}: "
            f"eps <= {fmt(out['epsilon'], 6, 'up')} ({_SOURCE[out['epsilon_source']]}; estimate of the bound "
            f"{fmt(out['epsilon_estimate_of_bound'], 6)}, NOT a lower bound{spread}), {lower}, "
            f"advanced {fmt(out['advanced_epsilon'], 6, 'up')}, naive {fmt(out['naive_epsilon'], 6, 'up')}; "
            f"per-round profile: {out['profile']}"
            + "".join(f"\n  randomizer: {d}" for d in out.get("finite", ())))
