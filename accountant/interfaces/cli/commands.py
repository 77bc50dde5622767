"""The handlers of the epsilon, delta, local-epsilon and bib commands: parsed arguments to
parameter objects, the library call, and the result dict that ``main`` prints.
"""
from __future__ import annotations
import math
from typing import Optional
from accountant.core import limits as L
from accountant.bounds.registry import REGISTRY
from accountant.bounds.labels import kind_label
from accountant.core.params import MECHANISM_SPECS, OPTIONS, make_params, mechanism_spec
# (the accountant, its inverse and the mechanisms' laws are imported by the handlers that run
# them: the arguments are checked before any engine is imported)


def bib_command(args) -> dict:
    from accountant.protocols import bib

    out = {"command": "bib", "m": args.m, "s": args.s, "k": args.k, "n": args.n}
    if args.target_eps is not None:
        if args.p is not None or args.rho is not None:
            raise ValueError("--target-eps: give no --p/--rho (rho is what is computed)")
        if args.delta is None or args.eps is not None:
            raise ValueError("--target-eps needs --delta and no --eps")
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


# the fields of every mechanism's description; its other options (OLH's g, variation-ratio's p,
# beta, q) follow them
_FIELDS = ("s", "t", "k", "d")


def describe(params, n: int) -> dict:
    """The randomizer of a result as JSON fields: its name, n, eps0, s, t, k, d (None where it
    has none), its other options (:meth:`MechanismSpec.values`) and its hash model."""
    if params.name == "finite":
        return {"mechanism": "finite", "n": n, "eps0": params.eps0, "s": None, "t": None, "k": params.k,
                "d": None, "matrix": params.label, "inputs": params.k, "outputs": params.outputs_count,
                "gamma": params.gamma}
    options = mechanism_spec(params.name).values(params)
    if hasattr(params, "hash_model"):
        from accountant.bounds.laws.random_hash import ASSUMPTION
    return {
        "mechanism": params.name,
        "n": n,
        "eps0": params.eps0,
        "s": params.s,
        "t": params.t,
        "k": options.get("k", getattr(params, "k", None)),  # binary RR: k = 2, not an option
        "d": options.get("d"),
        **{o: v for o, v in options.items() if o not in _FIELDS and v is not None},  # delta0 None: pure
        **({"hash_model": params.hash_model, "assumption": ASSUMPTION[params.hash_model]}
           if hasattr(params, "hash_model") else {}),
    }


def _catalogue_error(exc: ValueError) -> ValueError:
    """A catalogue builder's message with the option it is about (--k, --eps0, --size, --g)."""
    msg = str(exc)
    for name in ("k", "eps0", "size", "g"):
        if msg.startswith(f"{name} must be"):
            return ValueError(f"--{msg}")
    return ValueError(f"--catalogue: {msg.removeprefix('matrix: ')}")


def catalogue_from_args(args, k, eps0):
    """The catalogue member of ``--catalogue NAME`` at domain size k and local budget eps0
    (``accountant.core.catalogue``), its problems as one-line errors naming the option."""
    from accountant.core.catalogue import catalogue_randomizer

    extra = {o: getattr(args, o, None) for o in ("size", "g") if getattr(args, o, None) is not None}
    try:
        return catalogue_randomizer(args.catalogue, k, eps0, **extra)
    except ValueError as exc:
        raise _catalogue_error(exc) from None


def matrix_from_args(args, eps0: Optional[float] = None):
    """The randomizer of ``--mechanism finite``: ``--matrix FILE`` (loaded once per command) or
    ``--catalogue NAME --k K`` at ``eps0`` (default ``--eps0``); every problem of the file as a
    one-line error naming --matrix."""
    from accountant.core.finite import load_matrix

    if getattr(args, "catalogue", None) is not None:
        return catalogue_from_args(args, args.k, args.eps0 if eps0 is None else eps0)
    if getattr(args, "_finite", None) is not None:
        return args._finite
    if not args.matrix:
        raise ValueError("--matrix FILE is required with --mechanism finite (.json, .csv or .npy; rows "
                         "are inputs, columns outputs)")
    try:
        R = load_matrix(args.matrix)
    except ValueError as exc:
        raise ValueError("--matrix: " + str(exc).removeprefix("matrix: ")) from None
    args._finite = R
    return R


def params_from_args(args, eps0: Optional[float]):
    if args.mechanism == "finite":
        return matrix_from_args(args, eps0)
    return make_params(args.mechanism, eps0, **option_args(args))


def option_args(args) -> dict:
    """The mechanism options of the parsed arguments as keywords of ``make_params`` (None where
    the command has no such option; the hash model "any")."""
    out = {name: getattr(args, name, None) for name in OPTIONS}
    return {**out, "hash_model": out["hash_model"] or "any"}


def lower_fields(name: str, params, applicable: bool) -> dict:
    """The dataset pair and hash model behind lower bound ``name`` (None when not applicable)."""
    from accountant.bounds import laws as M

    ll = None
    if applicable:
        ll = M.mechanism_lower_law(params) if name == "lower" else \
            M.worst_hash_lower(params)[0] if name == "lower-worst-hash" else None
    if ll is None:
        return {"lower_dataset": None, "lower_hash_model": None}
    return {"lower_dataset": ll.datasets, "lower_hash_model": ll.hash_model}


def _zero_reason(params, n: int):
    """Why a lower end of 0 need not be the datasets' value (None: it is)."""
    from accountant.bounds.laws.lower import zero_reason

    return zero_reason(params, n)


def _pair_path(args, name: str) -> bool:
    """Whether the request needs the log-delta / high-precision pair path."""
    tiny = args.command == "epsilon" and args.log_delta < math.log(1e-300)
    if not (tiny or args.method != "float"):
        return False
    from accountant.bounds.pair_bounds import PAIR_BOUNDS

    if name not in PAIR_BOUNDS:
        why = "a target delta below 1e-300" if tiny else f"--method {args.method}"
        raise ValueError(f"{why} is available for the pair bounds ({', '.join(PAIR_BOUNDS)}) and "
                         f"for --bound proved (then: clone), not for --bound {name}")
    return True


def epsilon_command(args) -> dict:
    from accountant.accounting.shuffle import ShuffleAccountant
    from accountant.bounds.pair_bounds import pair_bound_epsilon
    from accountant.bounds.registry import compute_params_bound, resolve_name, status

    params = params_from_args(args, args.eps0)
    out = describe(params, args.n)
    out.update(log_delta=args.log_delta, method=args.method)
    name = "clone" if args.bound == "proved" else resolve_name(args.bound)
    if _pair_path(args, name):
        eps, ach, ach_log = pair_bound_epsilon(name, params, args.n, args.log_delta, args.rtol, args.method)
        st = status(name, params.name)
        out.update(bound=name, epsilon=eps, delta=args.delta, applicable=True, reason=st["caveat"],
                   achieved_delta=ach, achieved_log_delta=ach_log, kind=st["kind"],
                   reference=st["reference"], **kind_label(name, params.name).as_json())
        if args.bound == "proved":
            out.update(lower_epsilon=None, lower_reason="not computed on the log-delta / high-precision path",
                       paper_epsilon=None, paper_caveat=None,
                       note="only the clone pair is evaluated on this path; the smallest proved bound "
                            "needs delta >= 1e-300 and --method float")
        return out
    if args.bound != "proved":
        res = compute_params_bound(name, params, args.n, args.delta, args.rtol)
        st = status(name, params.name)
        lab = kind_label(name, params.name)
        out.update(bound=name, epsilon=res.epsilon, delta=args.delta, applicable=res.applicable,
                   reason=res.reason, achieved_delta=res.achieved_delta, kind=st["kind"],
                   reference=st["reference"], **lab.as_json())
        out["certified"] = lab.certified and res.applicable
        if st["kind"] == "lower":
            out.update(lower_fields(name, params, res.applicable))
            if name == "lower" and res.applicable and res.epsilon == 0.0:
                out["lower_zero_reason"] = _zero_reason(params, args.n)
    else:
        rep = ShuffleAccountant(params, args.n).epsilon_result(args.delta, rtol=args.rtol)
        out.update(epsilon=rep.epsilon, bound=rep.bound, delta=rep.delta, achieved_delta=rep.achieved_delta,
                   certified=rep.certified, lower_epsilon=rep.lower_epsilon, lower_reason=rep.lower_reason,
                   lower_dataset=rep.lower_dataset, lower_hash_model=rep.lower_hash_model,
                   paper_epsilon=rep.paper_epsilon, paper_caveat=rep.paper_caveat,
                   lower_label=kind_label("lower", params.name).words)
        if rep.note:
            out["note"] = rep.note
        if rep.exhausted:  # a search of the headline ran out of its budget: said, never hidden
            out["exhausted"] = rep.exhausted
        if rep.lower_epsilon == 0.0:
            out["lower_zero_reason"] = _zero_reason(params, args.n)
        if params.name in REGISTRY["lower-worst-hash"].applies_to:
            # how far any bound proved for every hash family could go (see docs/proved.md, Findings)
            wh = compute_params_bound("lower-worst-hash", params, args.n, args.delta, args.rtol)
            wf = lower_fields("lower-worst-hash", params, wh.applicable)
            out.update(worst_hash_lower_epsilon=min(wh.epsilon, rep.epsilon) if wh.applicable else None,
                       worst_hash_lower_reason=None if wh.applicable else wh.reason,
                       worst_hash_lower_dataset=wf["lower_dataset"],
                       worst_hash_lower_hash_model=wf["lower_hash_model"],
                       worst_hash_lower_label=kind_label("lower-worst-hash", params.name).words)
    ach = out.get("achieved_delta")
    out["achieved_log_delta"] = math.log(ach) if ach else (None if ach is None else -math.inf)
    return out


def delta_command(args) -> dict:
    from accountant.accounting.shuffle import ShuffleAccountant
    from accountant.bounds.pair_bounds import pair_bound_log_delta
    from accountant.bounds.registry import resolve_name

    params = params_from_args(args, args.eps0)
    out = describe(params, args.n)
    name = "proved" if args.bound == "proved" else resolve_name(args.bound)
    if name != "proved" and _pair_path(args, name):
        v = pair_bound_log_delta(name, params, args.n, args.eps, args.method)
        out.update(epsilon=args.eps, delta=min(v.upper, 1.0), log_delta=min(v.log_upper, 0.0),
                   bound=name, lower_delta=None, lower_reason="not computed on the high-precision path",
                   paper_delta=None, paper_caveat=None, method=args.method,
                   **kind_label(name, params.name).as_json())
        return out
    if name == "proved" and args.method != "float":
        _pair_path(args, "clone")
        v = pair_bound_log_delta("clone", params, args.n, args.eps, args.method)
        out.update(epsilon=args.eps, delta=min(v.upper, 1.0), log_delta=min(v.log_upper, 0.0),
                   bound="clone", lower_delta=None, lower_reason="not computed on the high-precision path",
                   paper_delta=None, paper_caveat=None, method=args.method,
                   **kind_label("clone", params.name).as_json(),
                   note="only the clone pair is evaluated with --method mpmath/arb")
        return out
    try:
        acc = ShuffleAccountant(params, args.n, bound=args.bound)
    except ValueError as exc:
        raise ValueError(f"--bound: {exc}") from None
    rep = acc.delta_result(args.eps)
    log_d = math.log(rep.delta) if rep.delta > 0 else -math.inf
    if rep.delta < 1e-300:
        # below the float range: the pair bounds' log form keeps the value
        from accountant.bounds.pair_bounds import PAIR_BOUNDS
        from accountant.bounds.registry import proved_upper_bounds

        cands = [b for b in PAIR_BOUNDS if (b == name and REGISTRY[b].kind != "lower")
                 or (name == "proved" and b in proved_upper_bounds(params.name))]
        for b in cands:
            log_d = min(log_d, pair_bound_log_delta(b, params, args.n, args.eps).log_upper)
    out.update(epsilon=rep.epsilon, delta=rep.delta, log_delta=min(log_d, 0.0), bound=rep.bound,
               lower_delta=rep.lower_delta, lower_reason=rep.lower_reason,
               lower_dataset=rep.lower_dataset, lower_hash_model=rep.lower_hash_model, paper_delta=rep.paper_delta,
               paper_caveat=rep.paper_caveat, method=args.method,
               lower_label=kind_label("lower", params.name).words if rep.lower_delta is not None else None)
    if rep.lower_delta == 0.0 or (name == "lower" and rep.delta == 0.0):
        out["lower_zero_reason"] = _zero_reason(params, args.n)
    if rep.bound in REGISTRY:
        out.update(kind=REGISTRY[rep.bound].kind, **kind_label(rep.bound, params.name).as_json())
    else:  # the trivial bound delta <= 1
        out.update(kind="upper", kind_label="proved upper", label="trivial upper bound", relation="<=",
                   certified=True)
    return out


def local_epsilon_command(args) -> dict:
    from accountant.accounting.calibration import local_epsilon
    from accountant.bounds.registry import certified_epsilon, compute_params_bound, resolve_name

    if args.mechanism == "finite":  # a catalogue family (checked): eps0 is free, k fixed
        from accountant.accounting.calibration import local_epsilon_family

        if args.bound != "proved":
            raise ValueError("--bound: --mechanism finite --catalogue inverts the proved bound only "
                             "(give no --bound)")
        eps0 = local_epsilon_family(lambda e0: catalogue_from_args(args, args.k, e0), args.n, args.eps,
                                    args.delta, rtol=args.rtol)
        if eps0 is None:  # pragma: no cover - eps0 just below the target is post-processing
            raise ArithmeticError("local-epsilon: no eps0 met the target")
    elif getattr(args, "delta0", None):  # an (eps0, delta0)-LDP randomizer: eps0 free, delta0 fixed
        from accountant.accounting.calibration import local_epsilon_family

        if args.bound != "proved":
            raise ValueError("--bound: with --delta0 local-epsilon inverts the proved bound only (give no --bound)")
        eps0 = local_epsilon_family(lambda e0: make_params(args.mechanism, e0, **option_args(args)), args.n,
                                    args.eps, args.delta, rtol=args.rtol)
        if eps0 is None:
            raise ValueError(f"--delta0: no eps0 meets eps = {args.eps:g} at delta = {args.delta:g} with "
                             f"delta0 = {args.delta0:g} (FMT21 Theorem 3.8's delta0 term)")
    else:
        eps0 = local_epsilon(args.n, args.eps, args.delta, mechanism=args.mechanism, s=args.s, t=args.t,
                             rtol=args.rtol, bound=args.bound, k=args.k,
                             hash_model=getattr(args, "hash_model", "any"))
    params = params_from_args(args, eps0)
    out = describe(params, args.n)
    if args.bound == "proved":  # the number `epsilon` prints at eps0 (the one the inverse inverts)
        res = certified_epsilon(params, args.n, args.delta)
        name = res.name
    else:
        name = resolve_name(args.bound)
        res = compute_params_bound(name, params, args.n, args.delta, 1e-9)
    lab = kind_label(name, params.name).as_json() if name in REGISTRY else {
        "kind_label": "proved upper", "label": "proved upper bound (post-processing: eps_c <= eps0)",
        "relation": "<=", "certified": True}
    achieved = res.epsilon if res is not None and res.epsilon is not None else eps0
    out.update(eps0=eps0, epsilon=args.eps, delta=args.delta, bound=name,
               kind=REGISTRY[name].kind if name in REGISTRY else "upper", **lab,
               achieved_epsilon=min(achieved, eps0),
               achieved_delta=res.achieved_delta if res is not None else 0.0)
    return out


# the commands that take --mechanism finite (figure's x axis is eps0, which a matrix fixes)
FINITE_COMMANDS = ("epsilon", "delta", "compare", "table", "compose", "users", "local-epsilon")


def _check_finite(args) -> None:
    """--mechanism finite: a matrix file or a catalogue family, no option of another mechanism;
    the randomizer built (or read) once, before any work."""
    cat = getattr(args, "catalogue", None)
    if (getattr(args, "matrix", None) is None) == (cat is None):
        raise ValueError("--mechanism finite needs exactly one of --matrix FILE (.json, .csv or .npy) "
                         "and --catalogue NAME --k K")
    given = [f"--{o}" for o in ("s", "t", "d", "p", "beta", "q", "range", "delta0", "sigma") if getattr(args, o, None) is not None]
    if cat is None:
        given += [f"--{o}" for o in ("k", "g", "size") if getattr(args, o, None) is not None]
    if given:
        raise ValueError(f"{'/'.join(given)}: not for --mechanism finite (the "
                         f"{'matrix' if cat is None else 'catalogue member'} is the randomizer)")
    if getattr(args, "hash_model", "any") != "any":
        raise ValueError("--hash-model: not for --mechanism finite (the matrix has no hash)")
    if getattr(args, "schedule", None) is not None:
        raise ValueError("--schedule: give the finite rounds in the file ({\"mechanism\": \"finite\", "
                         "\"matrix\": FILE} or \"catalogue\", \"k\", \"eps0\"), not --mechanism finite")
    if cat is None:
        if getattr(args, "eps0", None) is not None:
            raise ValueError("--eps0 does not apply to --mechanism finite --matrix (the matrix fixes eps0)")
        if args.command == "local-epsilon":
            raise ValueError("--mechanism finite --matrix: local-epsilon searches eps0, but the matrix "
                             "fixes eps0; name a catalogue family instead (--catalogue NAME --k K, "
                             "whose eps0 is free) or run epsilon/table with the matrix")
        matrix_from_args(args)
        return
    from accountant.core.catalogue import CATALOGUE

    takes = CATALOGUE[cat][1]
    for o in ("size", "g"):
        if getattr(args, o, None) is not None and o not in takes:
            raise ValueError(f"--{o}: not for --catalogue {cat}" + (f" (it takes --{takes[0]})" if takes else ""))
    if args.k is None:
        raise ValueError(f"--k is required with --catalogue {cat} (the number of inputs, an integer >= 2)")
    if args.command == "local-epsilon":
        catalogue_from_args(args, args.k, 1.0)  # validates k, size, g (eps0 is what is searched)
        return
    if args.command == "table":
        return  # --k and --eps0 are lists there: every grid point is built before any work
    if args.eps0 is None:
        raise ValueError(f"--eps0 is required with --catalogue {cat} (a number in [1e-10, 30])")
    matrix_from_args(args)


def check_applicable(args) -> None:
    """Options that do not apply to the chosen mechanism are refused, not ignored; work
    bounded up front (docs/limits.md)."""
    mech = getattr(args, "mechanism", None)
    for o in ("matrix", "catalogue", "size"):
        if getattr(args, o, None) is not None and mech != "finite":
            raise ValueError(f"--{o}: only with --mechanism finite")
    why = unsupported(args.command, mech) if mech is not None else None
    if why is not None:
        raise ValueError(why)
    if mech == "finite":
        _check_finite(args)
        return
    if args.command in ("table", "figure"):
        if getattr(args, "g", None) is not None:  # the catalogue's local hashing only
            raise ValueError(f"--g: {args.command} takes it with --mechanism finite --catalogue local-hashing "
                             "only (an olh grid's g follows each eps0: round(e^eps0) + 1)")
        return
    if args.command == "bib":
        per_user = args.rho if args.rho is not None else (args.p or 0.0)
        L.check_count("--k + --n x --rho", args.k + args.n * per_user, L.MAX_BIB_BALLS,
                      "expected blanket balls", "lower --n, --rho (or --p) or --k")
        return
    spec = mechanism_spec(mech) if mech is not None else None
    if spec is not None and args.command != "compose":
        if not spec.eps0_given:
            if getattr(args, "eps0", None) is not None:
                raise ValueError(f"--eps0 does not apply to mechanism '{mech}' ({spec.no_eps0})")
            if "p" in spec.options and args.p is None:
                raise ValueError(f"--p is required for mechanism '{mech}' (a number in (1, e^30])")
        elif args.command == "local-epsilon" and getattr(args, "g", None) is not None:
            raise ValueError("--g does not apply to local-epsilon (olh's g follows eps0: round(e^eps0) + 1)")
        elif getattr(args, "eps0", 1.0) is None and getattr(args, "mix", None) is None:  # --mix: the groups' eps0
            raise ValueError("--eps0 is required (a number in [1e-10, 30])")
    if spec is not None and (args.command != "compose" or spec.eps0_given):
        # (compose's variation-ratio options are checked by compose_cli.run_compose)
        _check_options(args, spec)
    if args.command == "local-epsilon" and spec is not None and spec.default_t is not None \
            and args.t is None and args.s > L.MAX_S_WALK:
        raise ValueError(f"--s must be an integer in [1, {L.MAX_S_WALK}] for local-epsilon with the "
                         f"default t-rule (the search walks the t values), got {args.s}; "
                         f"pass --t to fix t")


def unsupported(command: str, mechanism: str) -> Optional[str]:
    """Why ``command`` does not run ``mechanism`` (a registered name or finite; None: it does),
    in the words of its one-line refusal: the first check of the mechanism, before any work."""
    spec = MECHANISM_SPECS.get(mechanism)
    if spec is None:  # finite: a matrix, or a catalogue member
        return None if command in FINITE_COMMANDS else (
            f"--mechanism finite: {command} draws the bounds against eps0 (Figure 2's axis), which a "
            "matrix fixes; run table --mechanism finite (a grid over --n and --delta; a catalogue "
            "family also over --k and --eps0)")
    if command == "table" and not spec.eps0_given and "p" not in spec.options:   # no eps0 at all
        return (f"--mechanism {mechanism}: table's grid is over eps0 (and --n, --delta), which it has not "
                f"({spec.no_eps0}); run epsilon or compare at the noise levels you consider")
    if command == "local-epsilon" and not spec.eps0_given:
        if "p" not in spec.options:   # no eps0 at all (not pure LDP)
            return (f"--mechanism {mechanism}: local-epsilon searches eps0, which it has not ({spec.no_eps0}); "
                    "instead run epsilon at the noise levels you consider")
        return (f"--mechanism {mechanism}: local-epsilon searches eps0, but --p fixes eps0 = ln p; "
                "instead run epsilon (or table --n ... --delta ...) with --p --beta [--q] at the p "
                "values you consider")
    return None


def _check_options(args, spec) -> None:
    """The mechanism's options built into its parameter object once (at eps0 = 1 where eps0 is
    given), each problem a line naming the option."""
    try:
        make_params(spec.name, 1.0 if spec.eps0_given else None, **option_args(args))
    except ValueError as exc:
        msg = str(exc)
        if msg.startswith("s must satisfy"):  # 1 <= s <= d: both options named
            msg = "--s/--d: " + msg
        for name in (o for o, option in OPTIONS.items() if not option.choices):
            if msg.startswith(f"{name} must be"):
                msg = "--" + msg
            msg = msg.replace(f"{name} does not apply", f"--{name} does not apply")
            msg = msg.replace(f"{name} is required", f"--{name} is required")
        raise ValueError(msg.replace("hash_model '", "--hash-model '")) from None
