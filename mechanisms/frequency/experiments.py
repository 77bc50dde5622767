"""Data, simulations and tables of the frequency protocols.

Part of :mod:`mechanisms.frequency`; the package docstring has the mathematics.
"""
from __future__ import annotations
import math
from typing import Optional
import numpy as np
from accountant.core import limits as _limits
from accountant.protocols.bib.law import checked_int, checked_number
from mechanisms.frequency.accuracy import MAX_DOMAIN, check_beta
from mechanisms.frequency.protocols import FE1, PAPER_EPS_MAX, RhoSpec, n_over_log_n, default_b, make_protocol


# ----------------------------------------------------------------------------
# simulation
# ----------------------------------------------------------------------------

DATA_KINDS = ("zipf", "uniform")


def frequency_data(rng: np.random.Generator, n: int, B: int, kind: str = "zipf",
                   a: float = 1.1) -> np.ndarray:
    """n inputs in [0, B): ``zipf`` (P[x] proportional to (x+1)^-a) or ``uniform``."""
    n, B = checked_int("n", n, 1), checked_int("B", B, 2, MAX_DOMAIN)
    if kind == "uniform":
        return rng.integers(0, B, size=n, dtype=np.int64)
    if kind == "zipf":
        a = checked_number("a", a, 0.0, 100.0)
        w = np.arange(1, B + 1, dtype=np.float64) ** -a
        return rng.choice(B, size=n, p=w / w.sum()).astype(np.int64)
    raise ValueError(f"data must be one of {DATA_KINDS}, got {kind!r}")


def simulate_frequency(mechanism: str, n: int, B: int, eps: float, delta: Optional[float] = None,
                       rho: RhoSpec = "exact", b: Optional[int] = None, q: Optional[int] = None,
                       reps: int = 1, seed: int = 0, data: str = "zipf",
                       beta: float = 0.1, progress=None) -> dict:
    """Monte-Carlo run of FE0 / FE1 on synthetic data; errors over the whole domain.

    ``progress``: optional ``progress(done, reps)`` called after each run.

    Returns a dict with the protocol's parameters, ``messages_per_user`` (simulated
    mean over runs; ``messages_per_user_expected`` = 1 + rho), ``max_abs_error`` (mean
    over runs of max_x |ghat(x) - g(x)|, each run in ``max_abs_error_runs``),
    ``mean_error`` (average signed error over elements and runs: ~0, unbiased),
    ``rmse`` and its exact value ``rmse_exact`` (mean exact variance over elements),
    ``alpha`` = the paper's bound at ``beta`` (Lemma 2.3 / 2.6 at this rho) with
    ``alpha_proof`` (FE1, inequality (6)), and the privacy accounting at this rho.
    """
    reps = checked_int("reps", reps, 1)
    seed = checked_int("seed", seed, 0)
    beta = check_beta(beta)
    if data not in DATA_KINDS:
        raise ValueError(f"data must be one of {DATA_KINDS}, got {data!r}")
    _limits.check_int("reps", reps, 1, _limits.MAX_REPS)
    proto = make_protocol(mechanism, n, B, eps, delta, rho=rho, b=b, q=q)
    why = _limits.fe_refusal(proto.simulation_cost(), reps)
    if why is not None:
        raise ValueError(f"simulation of {mechanism} refused: {why} (docs/limits.md)")
    rng = np.random.default_rng(seed)
    max_err, msgs, sq, signed = [], [], 0.0, 0.0
    var_sum = 0.0
    for _ in range(reps):
        x = frequency_data(rng, proto.n, proto.B, data)
        g = np.bincount(x, minlength=proto.B)
        est, mpu = proto.estimate_from_inputs(x, rng)
        err = est - g
        max_err.append(float(np.max(np.abs(err))))
        msgs.append(mpu)
        sq += float(np.sum(err ** 2))
        signed += float(np.sum(err))
        var_sum += float(np.sum(proto.element_variances(g)))
        if progress is not None:
            progress(len(max_err), reps)
    cells = reps * proto.B
    out = {
        "mechanism": mechanism, "n": proto.n, "B": proto.B, "eps": proto.eps,
        "delta": proto.delta, "rho": proto.rho, "rho_source": proto.rho_source,
        "blanket_per_user_fixed": proto.blanket_floor, "blanket_extra_p": proto.blanket_extra_p,
        "messages_per_user_expected": proto.messages_per_user,
        "messages_per_user": float(np.mean(msgs)),
        "bits_per_message": proto.bits_per_message,
        "reps": reps, "seed": seed, "data": data,
        "max_abs_error": float(np.mean(max_err)), "max_abs_error_runs": max_err,
        "mean_error": signed / cells, "rmse": math.sqrt(sq / cells),
        "rmse_exact": math.sqrt(var_sum / cells),
        "beta": beta, "alpha": proto.alpha(beta),
    }
    if isinstance(proto, FE1):
        out.update({"b": proto.b, "q": proto.q, "p_col": proto.p_col,
                    "alpha_proof": proto.alpha(beta, form="proof")})
    out.update({"certified_delta": proto.certified_delta(),
                "paper_condition": proto.paper_condition()})
    return out


# ----------------------------------------------------------------------------
# the paper's rho against the exact rho (docs/frequency.md)
# ----------------------------------------------------------------------------

TABLE_COLUMNS: tuple[str, ...] = (
    "n", "B", "eps", "delta", "mechanism", "b",
    "rho_paper", "rho_exact", "messages_paper", "messages_exact",
    "max_error_paper", "max_error_exact", "alpha_paper", "alpha_exact",
    "certified_delta_at_paper_rho", "reps",
)


def table_mechanism(n: int, B: int) -> tuple[str, Optional[int]]:
    """The protocol the table uses: FE0 when B <= n / ln n (hashing to b = n / ln n
    bins would not shrink the domain), else FE1 with b = :func:`default_b`."""
    n, B = checked_int("n", n, 2), checked_int("B", B, 2, MAX_DOMAIN)
    if B < 4 or B <= n_over_log_n(n):
        return "fe0", None
    return "fe1", default_b(n, B)


def frequency_table(n_values, B_values, eps_values, reps: int = 5, seed: int = 0,
                    beta: float = 0.1, data: str = "zipf", progress=None) -> dict:
    """Messages per user and simulated maximum error, paper's rho against exact rho.

    delta = 1/n^2.  For each cell both protocols instances are simulated ``reps``
    times with the same seed (so the data sets coincide); the paper's rho is not
    defined for eps > 3 (reported as None).  ``certified_delta_at_paper_rho`` is the
    exact accounting's delta at the paper's rho (the paper's condition is sufficient
    when it is <= delta).  ``alpha_*`` = Lemma 2.3 / 2.6 at ``beta``.
    """
    rows = []
    cells = [(n, B, e) for n in n_values for B in B_values for e in eps_values]
    if not 1 <= len(cells) <= _limits.MAX_FE_CELLS:
        raise ValueError(f"n x B x eps: between 1 and {_limits.MAX_FE_CELLS} cells, got {len(cells)}")
    reps = checked_int("reps", reps, 1)
    for n, B, e in cells:  # every cell's size checked before any simulation
        mech, b = table_mechanism(n, B)
        for src in ("paper", "exact"):
            if src == "paper" and e > PAPER_EPS_MAX:
                continue
            why = _limits.fe_refusal(make_protocol(mech, n, B, e, rho=src, b=b).simulation_cost(),
                                     reps * len(cells))
            if why is not None:
                raise ValueError(f"fe-table cell n={n}, B={B}, eps={e:g} refused: {why}")
    for i, (n, B, e) in enumerate(cells):
        mech, b = table_mechanism(n, B)
        row = {"n": int(n), "B": int(B), "eps": float(e), "delta": 1.0 / float(n) ** 2,
               "mechanism": mech, "b": b, "reps": reps}
        for src in ("paper", "exact"):
            if src == "paper" and e > PAPER_EPS_MAX:
                row.update({"rho_paper": None, "messages_paper": None, "max_error_paper": None,
                            "alpha_paper": None, "certified_delta_at_paper_rho": None})
                continue
            r = simulate_frequency(mech, n, B, e, rho=src, b=b, reps=reps, seed=seed,
                                   data=data, beta=beta)
            row[f"rho_{src}"] = r["rho"]
            row[f"messages_{src}"] = r["messages_per_user_expected"]
            row[f"max_error_{src}"] = r["max_abs_error"]
            row[f"alpha_{src}"] = r["alpha"]
            if src == "paper":
                row["certified_delta_at_paper_rho"] = r["certified_delta"]
        rows.append(row)
        if progress is not None:
            progress(i + 1, len(cells))
    return {"params": {"n": list(n_values), "B": list(B_values), "eps": list(eps_values),
                       "reps": reps, "seed": seed, "beta": beta, "data": data},
            "rows": rows}


def _count_label(v: int) -> str:
    """1e4 for exact powers of ten from 1000 on, else the integer."""
    k = round(math.log10(v)) if v > 0 else 0
    return f"1e{k}" if v >= 1000 and 10 ** k == v else str(v)


def _cell(v, spec: str) -> str:
    if v is None:
        return "n/a"
    return format(v, spec)


def render_frequency_table(result: dict, fmt: str) -> str:
    """``"md"`` (the README table), ``"csv"`` or ``"json"``."""
    import csv
    import io
    import json

    rows = result["rows"]
    if fmt == "json":
        return json.dumps(result, indent=2) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(TABLE_COLUMNS)
        for r in rows:
            w.writerow(["" if r.get(k) is None else r.get(k) for k in TABLE_COLUMNS])
        return buf.getvalue()
    if fmt != "md":
        raise ValueError(f"output format must be csv, md or json, got {fmt!r}")
    p = result["params"]
    lines = [f"delta = 1/n^2; {p['data']} data; mean over {p['reps']} runs (seed {p['seed']}) of "
             f"the maximum absolute error over all B elements; bound = Lemma 2.3/2.6 at "
             f"beta = {p['beta']:g}.", "",
             "| n | B | protocol | eps | messages/user (paper rho) | messages/user (exact rho) "
             "| max error (paper rho) | max error (exact rho) | bound (paper rho) "
             "| bound (exact rho) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        proto = "FE0" if r["mechanism"] == "fe0" else f"FE1, b = {r['b']}"
        lines.append(
            f"| {_count_label(r['n'])} | {_count_label(r['B'])} | {proto} | {r['eps']:g} "
            f"| {_cell(r['messages_paper'], '.4g')} | {_cell(r['messages_exact'], '.4g')} "
            f"| {_cell(r['max_error_paper'], '.1f')} | {_cell(r['max_error_exact'], '.1f')} "
            f"| {_cell(r['alpha_paper'], '.0f')} | {_cell(r['alpha_exact'], '.0f')} |")
    return "\n".join(lines) + "\n"
