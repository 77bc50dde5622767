"""The command line's entry points: ``run`` (parse, dispatch, return the result as a dict) and
``main`` (print it as text or JSON, map bad input to one line on stderr and exit status 2),
with the human-readable output and its directed rounding.
"""
from __future__ import annotations
import math
import sys
from typing import Optional, Sequence
from accountant.core import limits as L
from accountant.bounds.registry import REGISTRY
from accountant.bounds.labels import kind_label
from accountant.core.optional import require
from accountant.core.params import MECHANISM_SPECS, OPTIONS
from accountant.interfaces.cli.arguments import UsageError
from accountant.interfaces.cli.parser import build_parser, no_command_text
from accountant.interfaces.cli.commands import bib_command, check_applicable, delta_command, describe, epsilon_command, local_epsilon_command, lower_fields, params_from_args
from accountant.interfaces.jsonout import dumps


def run(argv: Optional[Sequence[str]] = None) -> dict:
    """Parse ``argv`` and compute; returns the JSON-ready result (raises UsageError/ValueError)."""
    args = build_parser().parse_args(argv)
    check_applicable(args)
    # optional engines: one line naming what to install, before any work
    if getattr(args, "method", None) == "arb":
        require("flint", "--method arb (certified ball arithmetic)")
    if getattr(args, "scheduler", None):
        require("distributed", "--scheduler (a Dask cluster)")
    if args.command == "bib":
        return bib_command(args)
    if args.command == "users":
        return _users(args)
    if args.command == "compose":
        from accountant.interfaces.compose_cli import run_compose

        return run_compose(args)
    if args.command == "epsilon":
        from accountant.interfaces.cli.deployments import check, run as run_deployment, wanted

        if wanted(args) or args.n is None:  # the deployment options, checked before any work
            check(args)
            return run_deployment(args, None if getattr(args, "mix", None) else params_from_args(args, args.eps0))
        # --delta D (decimal string) or --log-delta L: keep the log, args.delta the float image
        args.log_delta = math.log(args.delta) if args.delta is not None else args.log_delta
        args.delta = args.delta if args.delta is not None else math.exp(args.log_delta)
    if args.command == "compare":

        from accountant.bounds.registry import compare_params

        params = params_from_args(args, args.eps0)
        res = compare_params(params, args.n, args.delta, rtol=args.rtol)
        out = describe(params, args.n)
        out.update(delta=args.delta, bounds={
            k: {"epsilon": v.epsilon, "applicable": v.applicable, "reason": v.reason,
                "seconds": v.seconds, "achieved_delta": v.achieved_delta,
                "kind": REGISTRY[k].kind, "proved": REGISTRY[k].proved(params.name),
                **kind_label(k, params.name).as_json(),
                "certified": kind_label(k, params.name).certified and v.applicable,
                **(lower_fields(k, params, v.applicable) if REGISTRY[k].kind == "lower" else {})}
            for k, v in res.items()})
        from accountant.bounds.published import best_published  # one definition (pages, tables, CLI)

        best = best_published(res, params.name)
        out["best_published"] = None if best is None else {"name": best.name, "epsilon": best.epsilon}
        return out
    if args.command in ("table", "figure"):
        from accountant.interfaces.cli.grid import grid_command

        return grid_command(args, argv if argv is not None else sys.argv[1:])
    if args.command == "epsilon":
        return epsilon_command(args)
    if args.command == "delta":
        from accountant.interfaces.cli.deployments import check_delta, run_delta, wanted

        if wanted(args):  # the deployment options, checked before any work
            check_delta(args)
            return run_delta(args, params_from_args(args, args.eps0))
        return delta_command(args)
    return local_epsilon_command(args)


def _users(args) -> dict:
    """``users``: the smallest n meeting (--eps, --delta), of the randomizer and (with deployment
    options) of the deployment, as ``epsilon`` with the same options computes it."""
    from accountant.accounting.batch_size import min_users
    import accountant.interfaces.cli.deployments as dep_cli

    dep = None
    if dep_cli.wanted(args):  # refused before any work where the search does not cover it
        dep_cli.check_users(args)
        dep = dep_cli.deployment(args)
    if args.mechanism == "finite":  # a matrix or a catalogue member at --eps0 (checked)
        R = params_from_args(args, args.eps0)
        if dep is not None:
            dep_cli.supported(args, R)
        return {**min_users(None, args.eps, args.delta, rounds=args.rounds, randomizer=R, deployment=dep).as_dict(),
                "randomizer": R.describe()}
    params = params_from_args(args, args.eps0)  # every option of the randomizer, checked
    if dep is not None:
        dep_cli.supported(args, params)
    res = min_users(args.eps0, args.eps, args.delta, args.mechanism, args.rounds, s=args.s, t=args.t,
                    k=args.k, d=args.d, g=args.g, p=args.p, beta=args.beta, q=args.q,
                    hash_model=args.hash_model, deployment=dep, delta0=getattr(args, "delta0", None),
                    sigma=getattr(args, "sigma", None), range=getattr(args, "range", None))
    used = {k: v for k, v in describe(params, 0).items() if k not in ("mechanism", "n", "eps0")}
    return {**res.as_dict(), **used}


def _up(x: float, digits: int = 10) -> str:
    """An upper bound printed rounded up (it stays an upper bound once printed)."""
    from accountant.core.numfmt import fmt

    return fmt(x, digits, "up")


def _down(x: float, digits: int = 10) -> str:
    """A lower bound (or a largest admissible value) printed rounded down."""
    from accountant.core.numfmt import fmt

    return fmt(x, digits, "down")


def _bound(x: float, kind: str, digits: int = 10) -> str:
    """A registry bound's value: upper bounds up, lower bounds down, the paper's value nearest."""
    from accountant.core.numfmt import fmt

    return fmt(x, digits, {"upper": "up", "exact": "up", "lower": "down"}.get(kind))


def _human(command: str, out: dict) -> str:
    if out.get("deployment") and command != "users":  # (users: the deployment's fields, its own lines)
        from accountant.interfaces.cli.deployments import human

        return human(out)
    if command == "compose":
        from accountant.interfaces.compose_cli import human

        return human(out)
    if command == "bib":
        head = f"M^BIB(m={out['m']}, s={out['s']}, k={out['k']}, n={out['n']})"
        pr = "n/a" if out.get("paper_rho") is None else f"{out['paper_rho']:.6g}"
        tail = f"paper's rho = {pr}; paper's condition holds: {out['paper_condition']}"
        if "lower_rho" in out:
            return (f"{head}: smallest rho = {_up(out['rho'], 8)} for (eps, delta) = ({out['eps']:g}, "
                    f"{out['delta']:.3g}) (certified delta {_up(out['achieved_delta'], 6)})\n{tail}")
        if out.get("eps") is None:
            return f"{head}: epsilon not available: {out['reason']}"
        if "delta_lower" in out:
            return f"{head}, p={out['p']:.6g}: delta <= {_up(out['delta'])} at eps = {out['eps']:g}\n{tail}"
        return (f"{head}, p={out['p']:.6g}: eps <= {_up(out['eps'])} at delta = {out['delta']:.3g} "
                f"(certified delta {_up(out['achieved_delta'], 6)})\n{tail}")
    if command in ("table", "figure"):
        from accountant.core.numfmt import fmt

        sv = out["saving_percent"]
        extra = (f"; saving of the proved number over the literature's best proved bound: median "
                 f"{fmt(sv['median'], 3, 'down')}% (min {fmt(sv['min'], 3, 'down')}%, "
                 f"max {fmt(sv['max'], 3, 'down')}%)" if sv.get("count") else
                 "; no saving over the literature's best published proved bound: it needs every published "
                 "bound of the mechanism in the table (--bounds)")
        return f"wrote {out['rows']} rows to {' and '.join(out['paths'])}{extra}"
    if command == "users":  # (before the mechanism's line: the users result has no k, s, t)
        tail = f"\n  randomizer: {out['randomizer']}" if out.get("randomizer") else ""
        if out.get("hash_model") == "random":
            tail += f"\n  assumption: {out['assumption']} (--hash-model random)"
        if out.get("statement"):  # with deployment options: the deployment's proof at n
            tail += f"\n  deployment: {out['statement']}"
        if out.get("minimality"):
            tail += f"\n  minimality: {out['minimality']}"
        if out["n"] is None:
            return out["reason"] + tail
        return (f"n = {out['n']} users: eps_c <= {_met(out['epsilon_at_n'], out['epsilon'], 10, out['bound_at_n'])}"
                f" at delta = {out['delta']:.3g}" + ("" if out["epsilon_at_n_minus_1"] is None else
                f"; at n - 1 the proved eps_c is {_up(out['epsilon_at_n_minus_1'])}, above it") +
                (" (the true eps_c is non-increasing in n: any batch of at least n users meets it)"
                 if out.get("minimality") else
                 " (proved eps_c is non-increasing in n: any batch of at least n users meets it)") + tail)
    mech = out["mechanism"] + _randomizer_words(out)
    if command == "compare":
        lines = [f"n = {out['n']}, eps0 = {out['eps0']:g}, delta = {out['delta']:g}, {mech}"]
        for k, v in out["bounds"].items():
            lab = kind_label(k, out["mechanism"])
            val = f"{lab.relation} {_bound(v['epsilon'], v['kind'], 6)}" if v["applicable"] \
                else f"not applicable: {v['reason']}"
            best = k == (out.get("best_published") or {}).get("name")
            lines.append(f"  {k:26s} {val}  [{lab.short}]" + ("  <- best published proved bound" if best else ""))
        return "\n".join(lines)
    if command == "epsilon" and "paper_epsilon" not in out:
        if not out["applicable"]:
            return f"{out['bound']}: not applicable: {out['reason']}"
        return (f"{out['bound']}: eps_c {out['relation']} {_bound(out['epsilon'], out['kind'])} "
                f"at delta = {out['delta']:.3g} ({out['label']})" + (f"; {out['reason']}" if out["reason"] else "")
                + (f"\n  why 0: {out['lower_zero_reason']}" if out.get("lower_zero_reason") else ""))
    if command == "epsilon":
        lines = [f"eps_c <= {_up(out['epsilon'])} at delta = {out['delta']:.3g} (proved: {out['bound']}; "
                 f"certified delta {_up(out['achieved_delta'], 6)})",
                 f"n = {out['n']}, eps0 = {out['eps0']:g}, {mech}"]
        if out.get("hash_model") == "random":
            lines.insert(1, f"  assumption: {out['assumption']} (--hash-model random)")
        elif out.get("note"):
            lines.insert(1, f"  note: {out['note']}")
        hashed = "worst_hash_lower_epsilon" in out
        if out["lower_epsilon"] is not None:
            hm = out.get("lower_hash_model")
            lines.append(f"eps_c >= {_down(out['lower_epsilon'])} ({out['lower_label']}"
                         + (f", {hm})" if hm else ")"))
            lines.append(f"  datasets: {out['lower_dataset']}")
            if out.get("lower_zero_reason"):
                lines.append(f"  why 0: {out['lower_zero_reason']}")
        else:
            lines.append(f"lower bound: not available ({out['lower_reason']})")
        if hashed and out["worst_hash_lower_epsilon"] is not None:
            lines.append(f"eps_c >= {_down(out['worst_hash_lower_epsilon'])} ({out['worst_hash_lower_label']}: "
                         "no bound proved for every hash family can be smaller)")
        if out["paper_epsilon"] is not None:
            lines.append(f"paper's Theorem 5 value {_bound(out['paper_epsilon'], 'paper')} (not a proved bound)")
        return "\n".join(lines)
    if command == "delta":
        rel, fmt_ = out["relation"], _down if out["relation"] == ">=" else _up
        lines = [f"delta {rel} {fmt_(out['delta'])} (log delta {rel} {fmt_(out['log_delta'], 12)}) at eps = "
                 f"{out['epsilon']:g} ({out['bound']}: {out['label']})",
                 f"n = {out['n']}, eps0 = {out['eps0']:g}, {mech}"]
        if out["lower_delta"] is not None and out.get("kind") != "lower":
            lines.append(f"delta >= {_down(out['lower_delta'])} ({out['lower_label']})")
        if out.get("lower_zero_reason"):
            lines.append(f"  why 0: {out['lower_zero_reason']}")
        if out["paper_delta"] is not None:
            lines.append(f"paper's value {_bound(out['paper_delta'], 'paper')} (not a proved bound)")
        return "\n".join(lines)
    return (f"largest eps0 = {_down(out['eps0'], 8)} gives eps_c <= {_met(out['achieved_epsilon'], out['epsilon'])} "
            f"at delta = {out['delta']:.3g} ({out['bound']}: {out['label']})\n"
            f"n = {out['n']}, {mech}")


def _randomizer_words(out: dict) -> str:
    """" (s=4, t=17)": the randomizer's options beside its name (its registry entry's, but d, which
    only the lower bounds' datasets use; a matrix's shape and blanket); "" where it has none."""
    if out["mechanism"] == "finite":
        return (f" ({out['matrix']}: {out['inputs']} inputs x {out['outputs']} outputs, "
                f"blanket gamma = {out['gamma']:.6g})")
    spec = MECHANISM_SPECS[out["mechanism"]]  # a hashed mechanism's d enters only its lower bound
    shown = [o for o in spec.options if (o != "d" or not spec.hashed) and out.get(o) is not None]
    words = [f"{o}={out[o]:.10g}" if OPTIONS[o].kind is float else f"{o}={out[o]}" for o in shown]
    return f" ({', '.join(words)})" if words else ""


def _met(achieved: float, target: float, digits: int = 8, name: str = "") -> str:
    """"X (name) <= target" with X rounded up to ``digits``: never a printed X above the printed
    target (an X within the rounding of the target is printed as the target itself, which it is
    at or below: the target's shortest text reads back as the same float)."""
    x, t = _up(achieved, digits), f"{target:g}"
    if float(t) != target:  # the target's shortest text, which reads back as the float itself
        t = repr(float(target))
    if achieved <= target and float(x) > float(t):
        return f"{t} ({name + ', ' if name else ''}the target)"
    return f"{x} {'(' + name + ') ' if name else ''}<= {t}"


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point; returns the exit status (0 ok, 2 bad input, 1 failure, 130 interrupted).

    Errors are one line on stderr, never a traceback (:func:`accountant.core.limits.guarded`).
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
            print(dumps(out))  # strict JSON: infinities/NaN -> null with a reason
        else:
            print(_human(command, out))
        return 0

    return L.guarded(body)
