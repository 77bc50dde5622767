"""Monte-Carlo simulation of every mechanism on Section 8's synthetic data.

Mechanism registry
------------------
A mechanism class is constructed as ``Cls(d=..., s=..., eps0=...)`` (plus ``t=...``
for Collision / CoCo), raising ValueError on invalid parameters, and has

* ``randomize(data: SparseVectors, rng) -> reports``,
* ``estimate(reports, n: int) -> Estimates``,
* optionally ``analytic_mse(n: int, data: SparseVectors | None = None) -> dict`` with
  keys among ``mse_mean, mse_nonmissing, mse_item``.

Collision and CoCo are registered here; the baselines come from
``mechanisms.baselines.BASELINES`` (``dict[str, type]``), imported lazily.
"""
from __future__ import annotations

import importlib
import math

import numpy as np

from accountant.core import limits as _limits

from mechanisms.randomizers.coco import CoCo
from mechanisms.randomizers.collision import Collision
from mechanisms.evaluation.metrics import all_metrics, postprocess_simplex
from mechanisms.evaluation.synthetic import synthetic_sparse_vectors
from mechanisms.analysis.common import check_int

OWN_MECHANISMS: dict[str, type] = {cls.name: cls for cls in (Collision, CoCo)}
BASELINE_NAMES: tuple[str, ...] = ("privkv", "pckv-ue", "pckv-grr", "pckv-agrr", "succinct")
ALL_NAMES: tuple[str, ...] = tuple(OWN_MECHANISMS) + BASELINE_NAMES
METRIC_KEYS: tuple[str, ...] = ("mse_mean", "mse_nonmissing", "mse_item", "tve_freq",
                                "mae_freq", "tve_mean", "mae_mean")
POSTPROCESS = ("none", "simplex")


class MechanismUnavailableError(RuntimeError):
    """A known mechanism name whose implementation is not installed."""


def _baselines() -> dict[str, type]:
    try:
        mod = importlib.import_module("mechanisms.baselines")
    except ModuleNotFoundError as exc:
        if exc.name in ("mechanisms.baselines",):
            return {}
        raise
    return dict(getattr(mod, "BASELINES", {}))


def get_mechanism_class(name: str) -> type:
    """Class registered under ``name`` (ValueError for unknown names,
    :class:`MechanismUnavailableError` for a baseline that is not installed)."""
    if name in OWN_MECHANISMS:
        return OWN_MECHANISMS[name]
    base = _baselines()
    if name in base:
        return base[name]
    if name in BASELINE_NAMES:
        raise MechanismUnavailableError(
            f"mechanism {name!r} is not available: mechanisms.baselines does not provide it "
            f"(the baselines package is missing or incomplete)")
    raise ValueError(f"mechanism must be one of {', '.join(sorted(set(ALL_NAMES) | set(base)))}; "
                     f"got {name!r}")


def available_mechanisms() -> list[str]:
    """Names that can be simulated now (own mechanisms first)."""
    base = _baselines()
    return list(OWN_MECHANISMS) + [k for k in BASELINE_NAMES if k in base] + \
        [k for k in base if k not in BASELINE_NAMES]


def make_mechanism(name: str, d: int, s: int, eps0: float, t: int | None = None):
    """Construct a registered mechanism; ``t`` only applies to Collision and CoCo."""
    cls = get_mechanism_class(name)
    if name in OWN_MECHANISMS:
        return cls(d=d, s=s, eps0=eps0, t=t)
    if t is not None:
        raise ValueError(f"t applies only to collision and coco, not to {name!r}")
    return cls(d=d, s=s, eps0=eps0)


def _log10(x: float) -> float:
    return math.log10(x) if (x > 0 and math.isfinite(x)) else float("nan")


def simulate(mechanism_name: str, n: int, d: int, s: int, eps0: float, t: int | None = None,
             reps: int = 1, seed: int = 0, postprocess: str = "none") -> dict:
    """Simulate ``reps`` independent runs and average the errors.

    Each run draws fresh synthetic data (:func:`synthetic_sparse_vectors`) and fresh
    randomness from ``numpy.random.default_rng(seed)``.

    Parameters
    ----------
    mechanism_name : str
        Collision, CoCo or a baseline (:func:`available_mechanisms`).
    n, d, s : int
        Users, dimension, non-zero coordinates per user.
    eps0 : float
        Local budget (> 0).
    t : int, optional
        Output size of Collision / CoCo (default: the paper's choice).
    reps : int
        Independent runs.
    seed : int
        Seed of ``numpy.random.default_rng``.
    postprocess : str
        One of ``POSTPROCESS``.

    Returns
    -------
    dict
        With ``mechanism, n, d, s, eps0, t, reps, seed, postprocess`` and, averaged
        over runs, ``mse_mean, mse_nonmissing, mse_item`` (sums over coordinates/items of
        squared errors), ``tve_freq, mae_freq`` (item frequencies), ``tve_mean, mae_mean``;
        ``log10_<metric>`` (mean over runs of log10 of the metric, the paper's figures
        average the logarithm); ``se_<mse key>`` (standard error over runs, NaN if
        ``reps == 1``); an ``analytic`` dict with the MSEs of ``analytic_mse(n, data)`` for
        the simulated datasets, averaged over runs (for Collision / CoCo these are exact
        and identical across runs, the totals being data-independent; baselines provide
        theirs where available), describing ``postprocess="none"``.

    Examples
    --------
    >>> from mechanisms import simulate
    >>> r = simulate("collision", n=2000, d=16, s=2, eps0=2.0, reps=2, seed=0)
    >>> print(f"{r['mse_mean']:.4f} {r['analytic']['mse_mean']:.4f}")
    0.0284 0.0284
    """
    n = check_int("n", n, 1)
    reps = check_int("reps", reps, 1)
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    if postprocess not in POSTPROCESS:
        raise ValueError(f"postprocess must be one of {POSTPROCESS}, got {postprocess!r}")
    _limits.check_eps0(eps0)
    mech = make_mechanism(mechanism_name, d, s, eps0, t)
    _limits.check_sim_size(n, d, reps)
    rng = np.random.default_rng(seed)
    runs: dict[str, list[float]] = {k: [] for k in METRIC_KEYS}
    analytic_runs: list[dict] = []
    pp_applied = postprocess == "simplex"
    for _ in range(reps):
        data = synthetic_sparse_vectors(rng, n, d, s)
        reports = mech.randomize(data, rng)
        est = mech.estimate(reports, n)
        if postprocess == "simplex":
            if np.all(np.isfinite(est.item_freq)):
                est = postprocess_simplex(est, s)
            else:  # e.g. SUCCINCT has no frequency estimator (Section 8.4)
                pp_applied = False
        met = all_metrics(est, data.item_frequencies(), data.means(), data.nonmissing_frequencies())
        for k in METRIC_KEYS:
            runs[k].append(met[k])
        if hasattr(mech, "analytic_mse"):
            try:
                analytic_runs.append(mech.analytic_mse(n, data))
            except (NotImplementedError, TypeError):
                pass
    out: dict = {"mechanism": mechanism_name, "n": n, "d": int(d), "s": int(s),
                 "eps0": float(eps0), "t": getattr(mech, "t", None), "reps": reps,
                 "seed": int(seed), "postprocess": postprocess,
                 "postprocess_applied": pp_applied}
    for k in METRIC_KEYS:
        arr = np.asarray(runs[k], dtype=np.float64)
        out[k] = float(arr.mean())
        with np.errstate(divide="ignore", invalid="ignore"):
            out["log10_" + k] = float(np.mean([_log10(x) for x in arr]))
        if k.startswith("mse"):
            out["se_" + k] = float(arr.std(ddof=1) / math.sqrt(reps)) if reps > 1 else float("nan")
    if analytic_runs and len(analytic_runs) == reps:
        keys = [k for k in ("mse_mean", "mse_nonmissing", "mse_item") if k in analytic_runs[0]]
        out["analytic"] = {k: float(np.mean([a[k] for a in analytic_runs])) for k in keys}
        out["analytic"]["applies_to"] = (
            "postprocess=none; exact (uniformly random hashing)" if mechanism_name in OWN_MECHANISMS
            else "postprocess=none; as given by the mechanism's analytic_mse (see its docstring)")
    return out


# --------------------------------------------------------------------------- comparison
#: The paper's figure each comparison metric corresponds to.
FIGURE_METRICS: dict[str, str] = {
    "log10_tve_freq": "Figure 6: frequency estimation TVE",
    "log10_mae_mean": "Figure 12: mean estimation MAE (no post-processing)",
}
COMPARE_COLUMNS: tuple[str, ...] = (
    "n", "d", "s", "eps0", "mechanism", "t", "reps", "postprocess",
    "log10_tve_freq", "log10_mae_freq", "log10_tve_mean", "log10_mae_mean",
    "log10_mse_mean", "log10_mse_nonmissing", "log10_mse_item",
    "tve_freq", "mae_freq", "tve_mean", "mae_mean", "mse_mean", "mse_nonmissing", "mse_item",
)


def compare(n: int, d: int, s_values, eps0_values, reps: int = 1, seed: int = 0,
            mechanisms=None, postprocess: str = "none", progress=None) -> dict:
    """Errors of several mechanisms over a grid of ``s`` and ``eps0`` (Figures 6 and 12).

    ``progress``: optional ``progress(done, total)`` called after each (s, eps0, mechanism) cell.

    ``mechanisms=None`` uses every available mechanism and lists the baselines that
    are not installed under ``skipped``.  All parameters are validated before any
    simulation runs.  Returns ``{"params": ..., "skipped": [...], "rows": [...]}`` with
    one row per ``(s, eps0, mechanism)`` holding the keys of :data:`COMPARE_COLUMNS`
    (``log10_*`` are means over runs of log10 of the error, as in the paper's figures).

    Parameters
    ----------
    n, d : int
        Users and dimension.
    s_values, eps0_values : sequence
        The grid of sparsities and local budgets.
    reps : int
        Runs per cell.
    seed : int
        Seed of ``numpy.random.default_rng``.
    mechanisms : sequence of str, optional
        Mechanism names (default: every available one).
    postprocess : str
        ``"none"`` or a post-processing of the estimates.
    progress : callable, optional
        ``progress(done, total)``.

    Returns
    -------
    dict
        ``{"params": ..., "skipped": [...], "rows": [...]}``.

    References
    ----------
    Wang et al., "Differentially Private Numerical Vector Analyses in the Local and Shuffle
    Model", Section 8 (Figures 6 and 12).

    Examples
    --------
    >>> from mechanisms import compare
    >>> res = compare(1000, 16, [2], [2.0], mechanisms=["collision", "coco"], seed=0)
    >>> for row in res["rows"]:
    ...     print(row["mechanism"], f"{row['mse_mean']:.4f}")
    ...
    collision 0.1206
    coco 0.0751
    """
    s_values = [int(v) for v in s_values]
    eps0_values = [float(v) for v in eps0_values]
    if not s_values or not eps0_values:
        raise ValueError("s and eps0 lists must be non-empty")
    if postprocess not in POSTPROCESS:
        raise ValueError(f"postprocess must be one of {POSTPROCESS}, got {postprocess!r}")
    skipped: list[str] = []
    if mechanisms is None:
        names = available_mechanisms()
        skipped = [b for b in BASELINE_NAMES if b not in names]
    else:
        names = list(mechanisms)
    if len(s_values) * len(eps0_values) > _limits.MAX_LIST:
        raise ValueError(f"s x eps0: at most {_limits.MAX_LIST} grid points, "
                         f"got {len(s_values) * len(eps0_values)}")
    for e in eps0_values:
        _limits.check_eps0(e)
    for s in s_values:  # validate everything first
        for e in eps0_values:
            for name in names:
                make_mechanism(name, d, s, e)
    check_int("n", n, 1)
    check_int("reps", reps, 1)
    for e in eps0_values:
        _limits.check_eps0(e)
    _limits.check_sim_size(n, d, reps, len(s_values) * len(eps0_values) * max(len(names), 1))
    rows = []
    total = len(s_values) * len(eps0_values) * len(names)
    for s in s_values:
        for e in eps0_values:
            for name in names:
                r = simulate(name, n, d, s, e, reps=reps, seed=seed, postprocess=postprocess)
                rows.append({k: r.get(k) for k in COMPARE_COLUMNS})
                if progress is not None:
                    progress(len(rows), total)
    return {"params": {"n": n, "d": d, "s": s_values, "eps0": eps0_values, "reps": reps,
                       "seed": seed, "postprocess": postprocess, "mechanisms": names},
            "skipped": skipped, "rows": rows}


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return "nan" if math.isnan(v) else f"{v:.6g}"
    return str(v)


def jsonable(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {k: jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, np.generic):
        return jsonable(v.item())
    return v


def render_compare(result: dict, fmt: str) -> str:
    """Render :func:`compare`'s result as ``"csv"`` (one row per (s, eps0, mechanism)),
    ``"md"`` (one wide table per figure metric: rows (s, eps0), columns mechanisms) or
    ``"json"`` (NaN written as null)."""
    import csv
    import io
    import json

    rows = result["rows"]
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(COMPARE_COLUMNS)
        for r in rows:
            w.writerow([_fmt(r.get(k)) for k in COMPARE_COLUMNS])
        return buf.getvalue()
    if fmt == "json":
        return json.dumps(jsonable(result), indent=2) + "\n"
    if fmt == "md":
        p = result["params"]
        names = p["mechanisms"]
        lines = [f"# Mechanism comparison (n = {p['n']}, d = {p['d']}, reps = {p['reps']}, "
                 f"seed = {p['seed']}, postprocess = {p['postprocess']})", ""]
        if result.get("skipped"):
            lines += [f"Not available (skipped): {', '.join(result['skipped'])}", ""]
        for key, title in FIGURE_METRICS.items():
            lines += [f"## {key} ({title})", "",
                      "| s | eps0 | " + " | ".join(names) + " |",
                      "|---|---|" + "---|" * len(names)]
            table: dict = {}
            for r in rows:
                table.setdefault((r["s"], r["eps0"]), {})[r["mechanism"]] = r.get(key)
            for (s, e), vals in table.items():
                cells = [("nan" if vals.get(m) is None or math.isnan(vals[m]) else f"{vals[m]:.3f}")
                         for m in names]
                lines.append(f"| {s} | {e:g} | " + " | ".join(cells) + " |")
            lines.append("")
        return "\n".join(lines)
    raise ValueError(f"output format must be csv, md or json, got {fmt!r}")
