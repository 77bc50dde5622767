"""Grids of bounds (Figure 2 of the main seed paper) and their export.

A grid is the product of lists of n, s, eps0 and delta with a rule for t.  Each
row holds the inputs, then the proved number first (``proved_epsilon``: the smallest
proved upper bound among the requested ones, ``best_proved`` naming it), the certified
lower bound and the paper's Theorem 5 value with their ratios, then every requested
bound's eps_c and amplification ratio log2(eps0/eps_c), and the saving of the proved
number against the best proved bound of the literature (every proved bound but the exact
blanket) in percent.  Rows are computed in worker processes (``workers``) or on a
Dask distributed cluster (``scheduler``); files are written whole or not at all.
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Callable, Iterable, Optional, Sequence

from .bounds import BOUND_NAMES, best_proved, compare
from .fileio import write_atomic
from .limits import MAX_LIST, worker_init
from .params import coco_theorem7_t, collision_paper_t
from .progress import ProgressBar

FORMATS = (".csv", ".json", ".md", ".tex")


def parse_list(text: str, kind: Callable = float, name: str = "value") -> list:
    """'1,2,3' or 'start:stop:count' (inclusive, evenly spaced) into a list."""
    text = str(text).strip()
    try:
        if ":" in text:
            parts = text.split(":")
            if len(parts) != 3:
                raise ValueError
            a, b, cf = float(parts[0]), float(parts[1]), float(parts[2])
            if not (math.isfinite(cf) and cf.is_integer() and 1 <= cf):
                raise ValueError
            c = int(cf)
            if c > MAX_LIST:
                raise OverflowError
            if c > 1 and not a < b:
                raise ArithmeticError
            vals = [a + (b - a) * i / (c - 1) for i in range(c)] if c > 1 else [a]
        else:
            vals = [float(x) for x in text.split(",") if x.strip()]
        if not vals:
            raise ValueError
    except OverflowError:
        raise ValueError(f"{name}: a range has at most {MAX_LIST} points, got {text!r}") from None
    except ArithmeticError:
        raise ValueError(f"{name}: range start:stop:count needs start < stop, got {text!r}") from None
    except ValueError:
        raise ValueError(f"{name} must be a comma-separated list or start:stop:count, got {text!r}") from None
    if len(vals) > MAX_LIST:
        raise ValueError(f"{name}: a list has at most {MAX_LIST} entries, got {len(vals)}")
    if not all(math.isfinite(v) for v in vals):
        raise ValueError(f"{name} must be finite numbers, got {text!r}")
    if kind is int:
        if not all(math.isfinite(v) and float(v).is_integer() for v in vals):
            raise ValueError(f"{name} must be integers, got {text!r}")
        return [int(v) for v in vals]
    return [float(v) for v in vals]


def resolve_t(rule: str, mechanism: str, s: Optional[int], eps0: float) -> Optional[int]:
    """t for one grid point: 'paper' (t*), 'coco' (Theorem 7) or 'fixed:T'."""
    if mechanism == "generic":
        return None
    if rule == "paper":
        return collision_paper_t(s, eps0) if mechanism == "collision" else coco_theorem7_t(s, eps0)
    if rule == "coco":
        return coco_theorem7_t(s, eps0)
    if rule.startswith("fixed:"):
        try:
            return int(rule.split(":", 1)[1])
        except ValueError:
            pass
    raise ValueError(f"t-rule must be paper, coco or fixed:T (T an integer), got {rule!r}")


@dataclass(frozen=True)
class GridPoint:
    n: int
    s: Optional[int]
    eps0: float
    delta: float
    t: Optional[int]
    mechanism: str


def build_grid(ns: Sequence[int], ss: Sequence[Optional[int]], eps0s: Sequence[float],
               deltas: Sequence[float], mechanism: str, t_rule: str = "paper") -> list[GridPoint]:
    if mechanism == "generic":
        ss = [None]
    pts = []
    for n in ns:
        for s in ss:
            for delta in deltas:
                for e0 in eps0s:
                    pts.append(GridPoint(int(n), s, float(e0), float(delta),
                                         resolve_t(t_rule, mechanism, s, e0), mechanism))
    return pts


def compute_row(point: GridPoint, bounds: Sequence[str] = BOUND_NAMES, rtol: float = 1e-9) -> dict:
    """One table row: inputs, the proved number first, each bound's eps_c (None if not
    applicable), ratios, saving."""
    # the grid has no dimension: the lower bounds of Collision/CoCo are computed at d = 3s, the
    # smallest d their datasets (three disjoint s-sets) need, and hold for every d >= 3s
    d = 3 * point.s if point.mechanism in ("collision", "coco") else None
    res = compare(point.n, point.eps0, point.delta, point.mechanism, point.s, point.t, bounds, rtol, d=d)
    names = list(res)
    row: dict = {"mechanism": point.mechanism, "n": point.n, "s": point.s, "t": point.t,
                 "eps0": point.eps0, "delta": point.delta}
    proved = best_proved(res, point.mechanism)
    row["proved_epsilon"] = proved.epsilon if proved else None
    row["best_proved"] = proved.name if proved else None
    lower = res.get("lower")
    paper = res.get("paper")
    row["lower_epsilon"] = lower.epsilon if lower is not None and lower.applicable else None
    row["paper_epsilon"] = paper.epsilon if paper is not None and paper.applicable else None
    pe, le, ae = row["proved_epsilon"], row["lower_epsilon"], row["paper_epsilon"]
    row["proved_over_paper"] = pe / ae if pe and ae else None
    row["proved_over_lower"] = pe / le if pe and le else None
    for b in names:
        row[b] = res[b].epsilon if res[b].applicable else None
    for b in names:
        e = row[b]
        row[f"log2_ratio[{b}]"] = math.log2(point.eps0 / e) if e else None
    literature = best_proved({b: r for b, r in res.items() if b != "blanket"}, point.mechanism)
    if proved is not None and literature is not None and literature.epsilon > 0:
        row["best_literature"] = literature.name
        row["saving_percent"] = 100.0 * (literature.epsilon - proved.epsilon) / literature.epsilon
    else:
        row["best_literature"] = None
        row["saving_percent"] = None
    row["reasons"] = {b: res[b].reason for b in names if not res[b].applicable}
    row["lower_for"] = "every d >= 3s" if d is not None else None
    return row


def compute_table(points: Sequence[GridPoint], bounds: Sequence[str] = BOUND_NAMES, rtol: float = 1e-9,
                  workers: Optional[int] = None, scheduler: Optional[str] = None,
                  progress: bool = True) -> list[dict]:
    """All rows, in grid order.  ``workers`` processes (default: all cores; 1 = in
    process), or the Dask distributed scheduler at ``scheduler``."""
    bounds = tuple(bounds)
    total = len(points)
    bar = ProgressBar(total, "rows") if progress else None
    rows: list[Optional[dict]] = [None] * total
    if scheduler:
        try:
            from dask.distributed import Client, as_completed
        except ImportError as exc:  # pragma: no cover - depends on the optional extra
            raise ValueError("--scheduler needs the optional dask extra: pip install -e '.[dask]'") from exc
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, ValueError, TypeError) as exc:  # unreachable or malformed address
            msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise OSError(f"--scheduler: cannot connect to {scheduler!r}: {msg}") from None
        with client:
            futs = client.map(compute_row, list(points), bounds=bounds, rtol=rtol, pure=False)
            index = {f.key: i for i, f in enumerate(futs)}
            for done, fut in enumerate(as_completed(futs), 1):
                rows[index[fut.key]] = fut.result()
                if bar is not None:
                    bar.update(done)
        return rows  # type: ignore[return-value]
    if workers is None:
        workers = os.cpu_count() or 1
    if workers < 1:
        raise ValueError(f"workers must be an integer >= 1, got {workers}")
    if workers == 1 or total <= 1:
        for i, p in enumerate(points):
            rows[i] = compute_row(p, bounds, rtol)
            if bar is not None:
                bar.update(i + 1)
        return rows  # type: ignore[return-value]
    ex = ProcessPoolExecutor(max_workers=min(workers, total), initializer=worker_init)
    try:
        futs = {ex.submit(compute_row, p, bounds, rtol): i for i, p in enumerate(points)}
        from concurrent.futures import as_completed as cf_completed

        for done, fut in enumerate(cf_completed(futs), 1):
            rows[futs[fut]] = fut.result()
            if bar is not None:
                bar.update(done)
    except BaseException:  # Ctrl-C, SIGTERM, a failed row: stop the pool now, not after the grid
        _kill_pool(ex)
        raise
    ex.shutdown(wait=True)
    return rows  # type: ignore[return-value]


def _kill_pool(ex: ProcessPoolExecutor) -> None:
    procs = list((getattr(ex, "_processes", None) or {}).values())
    ex.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        try:
            p.kill()
        except (OSError, ValueError, AttributeError):
            pass
    for p in procs:
        try:
            p.join(timeout=2)
        except (OSError, ValueError, AttributeError, AssertionError):
            pass


# ----------------------------------------------------------------------------
# Export
# ----------------------------------------------------------------------------

def _columns(rows: Sequence[dict]) -> list[str]:
    cols = [c for c in rows[0].keys() if c != "reasons"] if rows else []
    return cols


def _fmt(v, digits: int = 6) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:.{digits}g}"
    return str(v)


def to_csv(rows: Sequence[dict]) -> str:
    buf = io.StringIO()
    cols = _columns(rows)
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for r in rows:
        w.writerow(["" if r[c] is None else (repr(r[c]) if isinstance(r[c], float) else r[c]) for c in cols])
    return buf.getvalue()


def to_json(rows: Sequence[dict]) -> str:
    return json.dumps({"rows": list(rows)}, indent=1)


def to_markdown(rows: Sequence[dict]) -> str:
    cols = _columns(rows)
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        out.append("| " + " | ".join(_fmt(r[c]) for c in cols) + " |")
    return "\n".join(out) + "\n"


_TEX_ESCAPE = {"_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#", "[": "{[}", "]": "{]}"}


def _tex(s: str) -> str:
    return "".join(_TEX_ESCAPE.get(ch, ch) for ch in s)


def to_latex(rows: Sequence[dict]) -> str:
    cols = _columns(rows)
    lines = [r"\begin{tabular}{" + "l" * 2 + "r" * (len(cols) - 2) + "}", r"\hline",
             " & ".join(_tex(c) for c in cols) + r" \\", r"\hline"]
    for r in rows:
        lines.append(" & ".join(_tex(_fmt(r[c], 5)) for c in cols) + r" \\")
    lines += [r"\hline", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


WRITERS = {".csv": to_csv, ".json": to_json, ".md": to_markdown, ".tex": to_latex}


def check_output_path(path: str) -> str:
    ext = os.path.splitext(path)[1].lower()
    if ext not in WRITERS:
        raise ValueError(f"out must end in one of {', '.join(FORMATS)}, got {path!r}")
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d):
        raise ValueError(f"out: directory {d!r} does not exist")
    return ext


def render(rows: Sequence[dict], ext: str) -> str:
    return WRITERS[ext](rows)


def write_table(rows: Sequence[dict], path: str) -> None:
    ext = check_output_path(path)
    write_atomic(path, render(rows, ext))


def saving_summary(rows: Iterable[dict]) -> dict:
    """Min / median / max of the saving of the proved number over the best proved bound of
    the literature (``saving_percent`` of the rows)."""
    vals = sorted(r["saving_percent"] for r in rows if r.get("saving_percent") is not None)
    if not vals:
        return {"count": 0}
    mid = vals[len(vals) // 2] if len(vals) % 2 else 0.5 * (vals[len(vals) // 2 - 1] + vals[len(vals) // 2])
    return {"count": len(vals), "min": vals[0], "median": mid, "max": vals[-1]}
