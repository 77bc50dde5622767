"""The table and figure commands: list options checked against their ranges, the grid built and
computed through accountant.interfaces.tables, the rows returned for printing or writing.
"""
from __future__ import annotations
import os
from typing import Sequence
from accountant.core import limits as L
from accountant.bounds.registry import BOUND_NAMES, REGISTRY
from accountant.bounds.laws.random_hash import ASSUMPTION, RANDOM_MECHANISMS
from accountant.core.params import MECHANISM_SPECS, make_params, mechanisms_with_option
from accountant.interfaces.cli.arguments import T_MAX, bound_list


def _variation_ratio(args):
    """(p, beta, q, eps0 = ln p) of ``table --mechanism variation-ratio --p P --beta B [--q Q]``
    (one randomizer: the grid is over --n and --delta), None for the other mechanisms; the
    options that do not apply are refused, each named, before any work."""
    given = [f"--{o}" for o in ("p", "beta", "q") if getattr(args, o, None) is not None]
    spec = MECHANISM_SPECS.get(getattr(args, "mechanism", None))
    if spec is None or spec.eps0_given:
        if given:
            raise ValueError(f"{'/'.join(given)} {'applies' if len(given) == 1 else 'apply'} to "
                             f"--mechanism variation-ratio only, not to "
                             f"'{getattr(args, 'mechanism', 'collision')}'")
        if args.eps0 is None:
            raise ValueError("--eps0 is required (a list or start:stop:count)")
        return None
    if args.eps0 is not None:
        raise ValueError("--eps0 does not apply to --mechanism variation-ratio (eps0 = ln p: give --p)")
    for o in ("p", "beta"):
        if getattr(args, o) is None:
            raise ValueError(f"--{o} is required for --mechanism variation-ratio (one value; "
                             "the table's grid is over --n and --delta)")
    try:
        par = make_params(spec.name, None, p=args.p, beta=args.beta, q=args.q)
    except ValueError as exc:
        msg = str(exc)
        raise ValueError(msg if msg.startswith("--") else f"--{msg}") from None
    return par.p, par.beta, par.q, par.eps0


def _finite_randomizers(args, ns: list) -> list:
    """The randomizers of ``table --mechanism finite``: the one matrix of --matrix (the grid is over
    --n and --delta; the matrix fixes eps0), or the catalogue member at every --k and --eps0 of
    the lists, all built (and the grid's size checked) before any bound is computed."""
    from accountant.interfaces import tables
    from accountant.interfaces.cli.commands import catalogue_from_args, matrix_from_args

    if args.catalogue is None:
        return [matrix_from_args(args)]
    if args.eps0 is None:
        raise ValueError(f"--eps0 is required with --catalogue {args.catalogue} (a list or start:stop:count)")
    ks = tables.parse_list(args.k, int, "--k")
    eps0s = tables.parse_list(args.eps0, float, "--eps0")
    deltas = tables.parse_list(args.delta, float, "--delta")
    for e0 in eps0s:
        L.check_eps0(e0, "--eps0")
    L.check_count("grid", len(ns) * len(ks) * len(eps0s) * len(deltas), L.MAX_GRID_POINTS,
                  "number of points (n x k x eps0 x delta)", "split the grid into several runs")
    return [catalogue_from_args(args, k, e0) for k in ks for e0 in eps0s]


def _table_options(args) -> tuple:
    """(mechanism, deltas, ext, t_rule, columns, bounds, ks) of ``table``, each option checked
    against its range before any work."""
    from accountant.interfaces import tables
    from accountant.interfaces.tables import KEYED

    ks: list = [None]
    mechanism = args.mechanism
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
        bounds = bound_list(args.bounds)
    elif args.all_bounds or args.long:
        bounds = BOUND_NAMES
    else:
        bounds = tables.paper_bounds(mechanism, columns or ())
    if mechanism == "finite":
        pass  # --k: the catalogue's number of inputs, taken by _finite_randomizers
    elif mechanism in KEYED:
        if args.k is None:
            raise ValueError(f"--k is required for mechanism '{mechanism}' (a list of integers >= 2)")
        ks = tables.parse_list(args.k, int, "--k")
        for v in ks:
            L.check_int("--k", v, 2, T_MAX)
    elif args.k is not None:
        raise ValueError(f"--k applies to --mechanism {', '.join(KEYED)} only, not to '{mechanism}'")
    if ext == ".tex":
        L.check_output_writable(tables.bib_path(args.out), "--out (its .bib)")
    if ext == ".csv":
        L.check_output_writable(tables.sidecar_path(args.out), "--out (its .csv.json provenance)")
    return mechanism, deltas, ext, t_rule, columns, bounds, ks


def _figure_options(args) -> tuple:
    """The same for ``figure``: Collision with the paper's t rule at one delta."""
    bounds = bound_list(args.bounds)
    mechanism, deltas, t_rule = "collision", [args.delta], "paper"
    ext = os.path.splitext(args.out)[1].lower()
    from accountant.interfaces.figure import FIGURE_FORMATS

    if ext not in FIGURE_FORMATS:
        raise ValueError(f"--out must end in {', '.join(FIGURE_FORMATS)}, got {args.out!r}")
    return mechanism, deltas, ext, t_rule, None, bounds, [None]


def _s_values(args, mechanism: str) -> list:
    """The --s list (Collision / CoCo); [None] for the other mechanisms, which refuse --s and
    --t-rule."""
    from accountant.interfaces import tables

    if mechanism not in mechanisms_with_option("s"):
        if args.s is not None:
            raise ValueError(f"--s applies to --mechanism {_names('s')} only, not to '{mechanism}'")
        if args.t_rule != "paper":
            raise ValueError(f"--t-rule applies to --mechanism {_names('t')} only, not to '{mechanism}'")
        return [None]
    if args.s is None:
        raise ValueError(f"--s is required for mechanism '{mechanism}' (a list of integers >= 1)")
    ss = tables.parse_list(args.s, int, "--s")
    for v in ss:
        L.check_int("--s", v, 1, T_MAX)
    return ss


def _names(option: str) -> str:
    """The mechanisms that take ``option``, as a help text lists them ("collision or coco")."""
    names = mechanisms_with_option(option)
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]


def _write_output(args, rows, bounds, columns, ext, meta, out: dict) -> None:
    """The table or the figure written; ``out`` completed with what was written."""
    from accountant.interfaces import tables

    if args.command == "table":
        if args.long:
            cols = list(tables.LONG_FIELDS)
            out["rows"] = len(tables.long_rows(rows, [c for c in (columns or ()) if c in REGISTRY] or None))
        elif args.all_bounds:
            cols = tables.wide_columns(rows)
        else:
            cols = columns if columns is not None else tables.default_columns(rows)
        chosen = cols if (args.all_bounds or columns is not None) else None  # None: the default
        if ext == ".csv":  # the header written (hash_model added for random-hash rows)
            cols = tables.csv_columns(rows, cols)
        written = tables.write_table(rows, args.out, None if args.long else chosen, args.digits, meta,
                                     long=args.long)
        out.update(out=args.out, paths=written, columns=cols, digits=args.digits, long=args.long)
    else:
        from accountant.interfaces.figure import write_figure

        write_figure(rows, bounds, args.out, width_in=args.width)
        out.update(out=args.out, paths=[args.out], columns=None)


def grid_command(args, argv: Sequence[str] = ()) -> dict:
    """The ``table`` and ``figure`` commands: the options checked, the grid computed, the
    table or figure written; returns the summary printed."""
    from accountant.interfaces import tables

    ns = tables.parse_list(args.n, int, "--n")
    for n in ns:
        L.check_int("--n", n, 1, L.MAX_N)
    finite = _finite_randomizers(args, ns) if getattr(args, "mechanism", None) == "finite" else None
    vr = None if finite is not None else _variation_ratio(args)
    eps0s = [R.eps0 for R in finite] if finite is not None else [vr[3]] if vr is not None else \
        tables.parse_list(args.eps0, float, "--eps0")
    for e0 in eps0s if finite is None else ():  # a matrix's eps0 is computed (inf: not pure LDP)
        L.check_eps0(e0, "--eps0")
    if args.command == "table":
        mechanism, deltas, ext, t_rule, columns, bounds, ks = _table_options(args)
    else:
        mechanism, deltas, ext, t_rule, columns, bounds, ks = _figure_options(args)
    L.check_output_writable(args.out)
    ss = _s_values(args, mechanism)
    size = len(ns) * len(ss) * len(ks) * len(eps0s) * len(deltas)
    L.check_count("grid", size, L.MAX_GRID_POINTS, "number of points (n x s x k x eps0 x delta)",
                  "split the grid into several runs")
    large = sum(1 for n in ns if n > L.LARGE_N) * len(ss) * len(ks) * len(eps0s) * len(deltas)
    L.check_count("grid", large, L.MAX_GRID_POINTS_LARGE_N,
                  f"number of points with --n above {L.LARGE_N:.0e}",
                  "split the grid into several runs")
    if getattr(args, "scheduler", None) is not None:
        from accountant.interfaces.cli.arguments import check_scheduler

        check_scheduler(args.scheduler)  # one line, exit 2, within seconds
    hash_model = getattr(args, "hash_model", "any")
    if hash_model == "random" and mechanism not in RANDOM_MECHANISMS:
        raise ValueError(f"--hash-model 'random' is available for collision, coco and olh only, "
                         f"got mechanism '{mechanism}'")
    try:
        points = tables.finite_grid(ns, deltas, finite) if finite is not None else \
            tables.build_grid(ns, ss, eps0s, deltas, mechanism, t_rule, ks=ks,
                              vr=None if vr is None else vr[:3], hash_model=hash_model)
    except ValueError as exc:
        raise ValueError(f"--t-rule/--s/--eps0: {exc}") from None
    for pt in points:  # validate every point before any work starts
        try:
            pt.params()
        except ValueError as exc:
            raise ValueError(str(exc).replace("hash_model '", "--hash-model '")) from None
    rtol = getattr(args, "rtol", 1e-9)
    rows = tables.compute_table(points, bounds, rtol=rtol, workers=args.workers,
                                scheduler=getattr(args, "scheduler", None))
    import shlex

    extra = ({"hash_model": hash_model, "assumption": ASSUMPTION[hash_model]}
             if mechanism in RANDOM_MECHANISMS else {})
    meta = tables.provenance("python -m accountant " + shlex.join(argv), rtol=rtol, method="float", **extra)
    out = {"command": args.command, "format": ext.lstrip("."), "rows": len(rows), "bounds": list(bounds),
           "parameters": {"mechanism": mechanism, "n": ns, "s": ss if ss != [None] else None,
                          "k": ks if ks != [None] else None, "eps0": eps0s, "delta": deltas,
                          **({} if vr is None else {"p": vr[0], "beta": vr[1], "q": vr[2]}),
                          **({} if finite is None else {"randomizers": [R.describe() for R in finite],
                                                       "k": sorted({R.k for R in finite})}),
                          "t_rule": t_rule if mechanism in mechanisms_with_option("t") else None,
                          "hash_model": hash_model},
           "meta": meta}
    _write_output(args, rows, bounds, columns, ext, meta, out)
    out["saving_percent"] = tables.saving_summary(rows)
    return out
