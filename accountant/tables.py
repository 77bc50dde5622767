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
from .fileio import write_atomic, write_atomic_group
from .limits import MAX_LIST, check_output_writable, worker_init
from .numfmt import fmt
from .optional import require
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
    """t for one grid point: 'paper' (t*), 'coco' (Theorem 7) or 'fixed:T' (None for the
    mechanisms without a hash range: generic, k-RR, RR)."""
    if mechanism not in ("collision", "coco"):
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
    k: Optional[int] = None  # k-RR only


def build_grid(ns: Sequence[int], ss: Sequence[Optional[int]], eps0s: Sequence[float],
               deltas: Sequence[float], mechanism: str, t_rule: str = "paper",
               ks: Sequence[Optional[int]] = (None,)) -> list[GridPoint]:
    """Every combination of the lists (``ss`` for Collision/CoCo, ``ks`` for k-RR)."""
    if mechanism not in ("collision", "coco"):
        ss = [None]
    if mechanism != "krr":
        ks = [None]
    pts = []
    for n in ns:
        for s in ss:
            for k in ks:
                for delta in deltas:
                    for e0 in eps0s:
                        pts.append(GridPoint(int(n), s, float(e0), float(delta),
                                             resolve_t(t_rule, mechanism, s, e0), mechanism, k))
    return pts


def compute_row(point: GridPoint, bounds: Sequence[str] = BOUND_NAMES, rtol: float = 1e-9) -> dict:
    """One table row: inputs, the proved number first, each bound's eps_c (None if not
    applicable), ratios, saving."""
    # the grid has no dimension: the lower bounds of Collision/CoCo are computed at d = 3s, the
    # smallest d their datasets (three disjoint s-sets) need, and hold for every d >= 3s
    d = 3 * point.s if point.mechanism in ("collision", "coco") else None
    res = compare(point.n, point.eps0, point.delta, point.mechanism, point.s, point.t, bounds, rtol,
                  k=point.k, d=d)
    names = list(res)
    row: dict = {"mechanism": point.mechanism, "n": point.n, "s": point.s, "t": point.t,
                 **({"k": point.k} if point.k is not None else {}),
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
        row["literature_epsilon"] = literature.epsilon
        row["saving_percent"] = 100.0 * (literature.epsilon - proved.epsilon) / literature.epsilon
    else:
        row["best_literature"] = None
        row["literature_epsilon"] = None
        row["saving_percent"] = None
    row["reasons"] = {b: res[b].reason for b in names if not res[b].applicable}
    row["achieved_delta"] = {b: res[b].achieved_delta for b in names if res[b].applicable}
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
        require("distributed", "--scheduler (a Dask cluster)")
        from dask.distributed import Client, as_completed
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
# Export: columns, directed rounding, provenance, csv / json / md / tex (+ .bib)
# ----------------------------------------------------------------------------
#
# Every printed number goes through :func:`accountant.numfmt.fmt` with the direction of
# its claim: upper bounds round up, lower bounds down (a printed bound is still a bound);
# JSON keeps full precision.  Column names in csv/json are the machine names of the rows.

POINT_FIELDS = ("mechanism", "n", "s", "t", "k", "eps0", "delta")
PAPER_COLUMNS = ("proved_epsilon", "lower_epsilon", "paper_epsilon", "best_literature",
                 "literature_epsilon", "saving_percent")
LONG_FIELDS = POINT_FIELDS + ("bound", "kind", "proved", "epsilon", "achieved_delta")
DEFAULT_DIGITS = 4
MAX_DIGITS = 17

# (LaTeX head, Markdown head, rounding direction) of the fields of a row
_FIELDS = {
    "mechanism": ("mechanism", "mechanism", None),
    "n": ("$n$", "n", None),
    "s": ("$s$", "s", None),
    "t": ("$t$", "t", None),
    "k": ("$k$", "k", None),
    "eps0": (r"$\varepsilon_0$", "eps0", None),
    "delta": (r"$\delta$", "delta", None),
    "proved_epsilon": (r"$\varepsilon_c$", "eps_c (proved)", "up"),
    "best_proved": ("proved by", "proved by", None),
    "lower_epsilon": (r"lower", "eps_c lower bound", "down"),
    "paper_epsilon": (r"Thm.~5$^{*}$", "Theorem 5 (not proved)", "up"),
    "proved_over_paper": (r"$\varepsilon_c$/Thm.~5", "eps_c / Theorem 5", None),
    "proved_over_lower": (r"$\varepsilon_c$/lower", "eps_c / lower", "up"),
    "best_literature": ("ref.", "prior bound", None),
    "literature_epsilon": ("prior", "prior proved eps_c", "up"),
    "saving_percent": ("saved", "saving %", "down"),
    "bound": ("bound", "bound", None),
    "kind": ("kind", "kind", None),
    "proved": ("proved", "proved", None),
    "epsilon": (r"$\varepsilon_c$", "eps_c", None),  # direction from the row's kind
    "achieved_delta": (r"achieved $\delta$", "achieved delta", None),
}
_KIND_DIRECTION = {"upper": "up", "paper": "up", "lower": "down"}


def _registry():
    from .bounds import REGISTRY

    return REGISTRY


def column_direction(col: str, row: Optional[dict] = None) -> Optional[str]:
    """How column ``col`` rounds when printed: "up" (upper bounds), "down" (lower bounds,
    savings, amplification of an upper bound), None (inputs, ratios without a claim)."""
    reg = _registry()
    if col in ("epsilon", "achieved_delta") and row is not None:
        return _KIND_DIRECTION.get(row.get("kind"))
    if col in _FIELDS:
        return _FIELDS[col][2]
    if col in reg:
        return _KIND_DIRECTION[reg[col].kind]
    if col.startswith("log2_ratio[") and col[11:-1] in reg:  # log2(eps0/eps): reversed
        return {"up": "down", "down": "up"}[_KIND_DIRECTION[reg[col[11:-1]].kind]]
    return None


def _varies(rows: Sequence[dict], key: str) -> bool:
    return len({r.get(key) for r in rows}) > 1


def default_columns(rows: Sequence[dict]) -> list[str]:
    """The columns of a paper's table: n (and s, t, delta where they vary; fixed ones go to
    the caption), eps0, the proved eps_c, the certified lower bound, Theorem 5's value, the
    best previously published proved bound (cited) and the saving over it."""
    cols = ["n"] + [k for k in ("s", "t", "k") if _varies(rows, k)] + ["eps0"]
    cols += ["delta"] if _varies(rows, "delta") else []
    return cols + list(PAPER_COLUMNS)


def wide_columns(rows: Sequence[dict]) -> list[str]:
    """Every field of the rows (the wide table, ``--all-bounds``)."""
    return [c for c in rows[0].keys() if not isinstance(rows[0][c], dict)] if rows else []


_LONG_ONLY = ("bound", "kind", "proved", "epsilon", "achieved_delta")


def column_names() -> tuple:
    """Names ``--columns`` accepts: the fields of a row and every bound of the registry
    (its eps_c) with its amplification ratio ``log2_ratio[NAME]``."""
    names = [f for f in _FIELDS if f not in _LONG_ONLY]
    for b in _registry():
        names += [b, f"log2_ratio[{b}]"]
    return tuple(names)


def parse_columns(text: str) -> list[str]:
    """'n,eps0,proved_epsilon,clone' into a list of column names (ValueError naming
    ``--columns`` and the valid names otherwise)."""
    cols = [c.strip() for c in str(text).split(",") if c.strip()]
    valid = column_names()
    bad = [c for c in cols if c not in valid]
    if bad or not cols:
        raise ValueError(f"--columns must be a comma-separated list of names from {', '.join(valid)}; "
                         f"got {text!r}")
    return list(dict.fromkeys(cols))


def long_rows(rows: Sequence[dict], bounds: Optional[Sequence[str]] = None) -> list[dict]:
    """Tidy long format: one row per point and bound (point fields, bound, kind, proved,
    epsilon, achieved delta); a bound not applicable at a point has epsilon None."""
    reg = _registry()
    out = []
    for r in rows:
        names = [b for b in (bounds or reg) if b in r]
        for b in names:
            out.append({**{k: r.get(k) for k in POINT_FIELDS}, "bound": b, "kind": reg[b].kind,
                        "proved": reg[b].proved(r["mechanism"]), "epsilon": r[b],
                        "achieved_delta": (r.get("achieved_delta") or {}).get(b)})
    return out


def tool_version() -> str:
    try:
        from importlib.metadata import version

        return version("shuffle-accountant")
    except Exception:  # not installed as a distribution: the source tree's pyproject
        try:
            root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            with open(os.path.join(root, "pyproject.toml"), encoding="utf-8") as fh:
                for line in fh:
                    if line.startswith("version"):
                        return line.split("=", 1)[1].strip().strip('"')
        except OSError:
            pass
    return "unknown"


def git_commit() -> Optional[str]:
    """The commit of the source tree this module runs from (``-dirty`` if modified), or
    None outside a git checkout."""
    import subprocess

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        head = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=10)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10)
        return head.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return None


def provenance(command: Optional[str] = None, rtol: float = 1e-9, method: str = "float",
               **extra) -> dict:
    """How a table was made: tool version, git commit (None outside a checkout), the exact
    command line, UTC date, rtol and method (and any ``extra`` fields)."""
    import datetime

    meta = {"tool": "accountant", "version": tool_version(), "git_commit": git_commit(),
            "command": command, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
                timespec="seconds"), "rtol": rtol, "method": method}
    meta.update(extra)
    return meta


def _meta_lines(meta: Optional[dict]) -> list[str]:
    if not meta:
        return []
    return [f"{k}: {'n/a' if v is None else v}" for k, v in meta.items()]


INPUT_DIGITS = {"csv": 12, "text": 6}  # eps0, delta: never cut to ``digits`` (JSON: exact)


def _cell(row: dict, col: str, digits: int, thousands: bool = False) -> str:
    v = row.get(col)
    if isinstance(v, str):
        return v
    if isinstance(v, float) and col in ("eps0", "delta"):
        return fmt(v, INPUT_DIGITS["text" if thousands else "csv"])
    return fmt(v, digits, column_direction(col, row), thousands=thousands)


def _check_digits(digits: int) -> int:
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= MAX_DIGITS:
        raise ValueError(f"digits must be an integer in [1, {MAX_DIGITS}], got {digits!r}")
    return digits


def to_csv(rows: Sequence[dict], columns: Optional[Sequence[str]] = None, digits: int = DEFAULT_DIGITS,
           meta: Optional[dict] = None) -> str:
    """CSV with ``#`` provenance lines, machine column names, numbers with ``digits``
    significant digits rounded in the direction of their claim (empty cell = not available)."""
    _check_digits(digits)
    cols = list(columns) if columns is not None else wide_columns(rows)
    buf = io.StringIO()
    for line in _meta_lines(meta):
        buf.write("# " + line.replace("\n", " ") + "\n")
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for r in rows:
        w.writerow(["" if r.get(c) is None else _cell(r, c, digits) for c in cols])
    return buf.getvalue()


def to_json(rows: Sequence[dict], columns: Optional[Sequence[str]] = None, digits: int = DEFAULT_DIGITS,
            meta: Optional[dict] = None) -> str:
    """``{"meta": {...}, "rows": [...]}`` at full precision (``digits`` does not apply);
    ``columns`` (if given) selects the row fields."""
    out = list(rows) if columns is None else [{c: r.get(c) for c in columns} for r in rows]
    return json.dumps({"meta": dict(meta or {}), "rows": out}, indent=1)


def _md_escape(text: str) -> str:
    return text.replace("|", r"\|")


def to_markdown(rows: Sequence[dict], columns: Optional[Sequence[str]] = None, digits: int = DEFAULT_DIGITS,
                meta: Optional[dict] = None) -> str:
    """Markdown table with the provenance in an HTML comment above it."""
    _check_digits(digits)
    cols = list(columns) if columns is not None else wide_columns(rows)
    out = []
    if meta:
        out += ["<!--"] + ["  " + line.replace("-->", "-- >") for line in _meta_lines(meta)] + ["-->"]
    heads = [_FIELDS[c][1] if c in _FIELDS else c for c in cols]
    out += ["| " + " | ".join(_md_escape(h) for h in heads) + " |",
            "|" + "".join("---|" if c in ("mechanism", "best_proved", "best_literature", "bound", "kind")
                          else "--:|" for c in cols)]
    for r in rows:
        out.append("| " + " | ".join(_md_escape(_cell(r, c, digits, thousands=True)) for c in cols) + " |")
    return "\n".join(out) + "\n"


_TEX_ESCAPE = {"_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#", "[": "{[}", "]": "{]}", "$": r"\$",
               "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
               "\\": r"\textbackslash{}"}


def _tex(s: str) -> str:
    return "".join(_TEX_ESCAPE.get(ch, ch) for ch in str(s))


def _cite(bound: Optional[str]) -> str:
    reg = _registry()
    if bound is None or bound not in reg or not reg[bound].cite:
        return _tex(bound) if bound else "n/a"
    return r"\cite{" + ",".join(reg[bound].cite) + "}"


def _tex_head(col: str) -> str:
    reg = _registry()
    if col in _FIELDS:
        return _FIELDS[col][0]
    if col in reg:
        return r"\texttt{" + _tex(col) + "}" + (r"~" + _cite(col) if reg[col].cite else "")
    if col.startswith("log2_ratio[") and col[11:-1] in reg:
        return r"$\log_2(\varepsilon_0/\varepsilon_c)$ \texttt{" + _tex(col[11:-1]) + "}"
    return _tex(col)


_TEXT_COLUMNS = ("mechanism", "best_proved", "best_literature", "bound", "kind", "proved")


def _tex_number(text: str) -> str:
    """A printed number in math notation: 1.5e-6 -> 1.5\\times10^{-6}, 1e-6 -> 10^{-6},
    100,000 -> 10^{5} (the exact powers of ten of n), 12,345 -> 12\\,345."""
    if "e" in text:
        mant, exp = text.split("e")
        if mant == "1":
            return f"10^{{{int(exp)}}}"
        return f"{mant}\\times10^{{{int(exp)}}}"
    digits = text.replace(",", "")
    if digits.isdigit() and len(digits) > 3 and digits.strip("0") == "1":
        return f"10^{{{len(digits) - 1}}}"
    if "," in text:
        return text.replace(",", r"\,")
    return text


def _math(text: str) -> str:
    return f"${text}$" if ("\\" in text or "^" in text) else text


def _tex_cell(row: dict, col: str, digits: int) -> str:
    v = row.get(col)
    if col in ("best_proved", "best_literature", "bound"):
        return _cite(v) if col != "bound" else r"\texttt{" + _tex(v) + "}"
    if col in _TEXT_COLUMNS or isinstance(v, str):
        return _tex("n/a" if v is None else v)
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "n/a" if v is None or math.isnan(v) else _tex(fmt(v))
    if col == "delta" and isinstance(v, float):
        return _math(_tex_number(fmt(v, INPUT_DIGITS["text"])))
    return _math(_tex_number(_cell(row, col, digits, thousands=True)))


def _tex_value(v) -> str:
    if isinstance(v, float):
        return "$" + _tex_number(fmt(v, INPUT_DIGITS["text"])) + "$"
    if isinstance(v, int) and not isinstance(v, bool):
        return "$" + _tex_number(fmt(v)) + "$"
    return _tex(v)


MECH_NAMES = {"generic": r"a generic $\varepsilon_0$-LDP randomizer", "collision": "Collision",
              "coco": "CoCo", "krr": "$k$-RR", "rr": "binary randomized response"}


def _caption(rows: Sequence[dict], cols: Sequence[str], meta: Optional[dict]) -> str:
    fixed = []
    if rows:
        for k, name in (("n", "n"), ("s", "s"), ("t", "t"), ("k", "k"), ("eps0", r"\varepsilon_0"),
                        ("delta", r"\delta")):
            vals = {r.get(k) for r in rows}
            if len(vals) == 1 and None not in vals:
                fixed.append(f"${name} = {_tex_value(next(iter(vals))).strip('$')}$")
    mech = MECH_NAMES.get(rows[0]["mechanism"], _tex(rows[0]["mechanism"])) if rows else ""
    text = f"Central $\\varepsilon_c$ of shuffled {mech}" + (f" ({', '.join(fixed)})" if fixed else "") + ". "
    if "t" not in cols and any(r.get("t") is not None for r in rows) and not any(
            f.startswith("$t ") for f in fixed):
        text += r"$t$ by the mechanism's default rule. "
    notes = []
    if "proved_epsilon" in cols:
        notes.append(r"$\varepsilon_c$: smallest proved upper bound (rounded up)")
    if "lower_epsilon" in cols:
        notes.append(r"lower: certified lower bound on the mechanism's $\varepsilon_c$ (rounded down)")
    if "paper_epsilon" in cols:
        notes.append(r"$^{*}$Theorem~5 of~\cite{wang2023numerical}, not a proved bound")
    if "literature_epsilon" in cols or "best_literature" in cols:
        notes.append(r"prior: best previously published proved bound (rounded up)")
    if "saving_percent" in cols:
        notes.append(r"saved: $100\,(\mathrm{prior}-\varepsilon_c)/\mathrm{prior}$ in percent (rounded down)")
    if notes:
        text += "; ".join(notes) + "."
    return text


def _label(rows: Sequence[dict]) -> str:
    mech = rows[0]["mechanism"] if rows else "bounds"
    return f"tab:shuffle-{mech}"


def cited_keys(rows: Sequence[dict], columns: Sequence[str]) -> list[str]:
    """BibTeX keys a LaTeX table with these columns cites (heads, cells, caption)."""
    reg = _registry()
    keys: list[str] = []
    for c in columns:
        if c in reg:
            keys += reg[c].cite
        if c == "paper_epsilon":
            keys += reg["paper"].cite
        if c in ("best_literature", "best_proved"):
            for r in rows:
                if r.get(c) in reg:
                    keys += reg[r[c]].cite
    return list(dict.fromkeys(keys))


def to_latex(rows: Sequence[dict], columns: Optional[Sequence[str]] = None, digits: int = DEFAULT_DIGITS,
             meta: Optional[dict] = None, wide: Optional[bool] = None, bib_stem: Optional[str] = None) -> str:
    """A booktabs table: provenance and required packages as ``%`` lines on top, a caption
    stating the fixed parameters, a label, math heads, numbers right-aligned with the same
    significant digits, each bound's head citing its paper (the best published bound's
    column head when one bound is the best on every row, else each row's ``ref.`` cell).  ``wide`` (default: more than 12 columns)
    sets it as a landscape longtable."""
    _check_digits(digits)
    cols = list(columns) if columns is not None else wide_columns(rows)
    wide = len(cols) > 12 if wide is None else wide
    packages = ["booktabs"] + (["longtable", "pdflscape"] if wide else [])
    lines = ["% " + line.replace("\n", " ") for line in _meta_lines(meta)]
    lines += ["% Requires: " + ", ".join(r"\usepackage{%s}" % p for p in packages)]
    if bib_stem:
        lines.append(f"% Citations: BibTeX entries in {bib_stem}.bib (\\bibliography{{{bib_stem}}})")
    heads = {c: _tex_head(c) for c in cols}
    prior = {r.get("best_literature") for r in rows}
    if "best_literature" in cols and "literature_epsilon" in cols and len(prior) == 1:
        # one prior bound for every row: cite it in the head of its column, not in each row
        heads["literature_epsilon"] += "~" + _cite(next(iter(prior)))
        cols = [c for c in cols if c != "best_literature"]
    spec = "".join("l" if c in _TEXT_COLUMNS else "r" for c in cols)
    head = " & ".join(heads[c] for c in cols) + r" \\"
    body = [" & ".join(_tex_cell(r, c, digits) for c in cols) + r" \\" for r in rows]
    caption = r"\caption{" + _caption(rows, cols, meta) + "}"
    label = r"\label{" + _label(rows) + "}"
    if wide:
        lines += [r"\begin{landscape}", r"\scriptsize", r"\setlength{\tabcolsep}{2pt}",
                  r"\begin{longtable}{" + spec + "}", caption + label + r" \\", r"\toprule", head,
                  r"\midrule", r"\endhead", r"\bottomrule", r"\endfoot", *body,
                  r"\end{longtable}", r"\end{landscape}"]
    else:
        lines += [r"\begin{table}[tbp]", r"\centering", r"\footnotesize", r"\setlength{\tabcolsep}{2pt}",
                  caption, label, r"\begin{tabular}{@{}" + spec + "@{}}", r"\toprule", head, r"\midrule",
                  *body, r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def to_bibtex(rows: Sequence[dict], columns: Sequence[str], meta: Optional[dict] = None) -> str:
    """The BibTeX entries the table cites (registry keys, :mod:`accountant.references`)."""
    from .references import bibtex

    head = "".join(f"% {line}\n" for line in _meta_lines(meta))
    return head + "\n" + bibtex(cited_keys(rows, columns))


WRITERS = {".csv": to_csv, ".json": to_json, ".md": to_markdown, ".tex": to_latex}


def check_output_path(path: str) -> str:
    ext = os.path.splitext(path)[1].lower()
    if ext not in WRITERS:
        raise ValueError(f"out must end in one of {', '.join(FORMATS)}, got {path!r}")
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d):
        raise ValueError(f"out: directory {d!r} does not exist")
    return ext


def bib_path(path: str) -> str:
    """The .bib written beside a .tex table (same stem)."""
    return os.path.splitext(path)[0] + ".bib"


def render(rows: Sequence[dict], ext: str, columns: Optional[Sequence[str]] = None,
           digits: int = DEFAULT_DIGITS, meta: Optional[dict] = None, long: bool = False,
           bib_stem: Optional[str] = None) -> str:
    """The table as text in format ``ext`` (default columns unless ``columns``; ``long``:
    one row per point and bound)."""
    if long:
        rows = long_rows(rows, [c for c in (columns or ()) if c in _registry()] or None)
        columns = list(LONG_FIELDS)
    elif columns is None and ext != ".json":  # JSON: every field unless columns are chosen
        columns = default_columns(rows)
    if ext == ".tex":
        return to_latex(rows, columns, digits, meta, wide=None if not long else True, bib_stem=bib_stem)
    return WRITERS[ext](rows, columns, digits, meta)


def write_table(rows: Sequence[dict], path: str, columns: Optional[Sequence[str]] = None,
                digits: int = DEFAULT_DIGITS, meta: Optional[dict] = None, long: bool = False) -> list[str]:
    """Write the table (and, for .tex, its .bib beside it: both or neither); returns the
    paths written.  ValueError naming ``path`` when it cannot be written (checked before
    rendering: missing directory, /proc, read-only)."""
    ext = check_output_path(path)
    path = check_output_writable(path, "path")
    if ext != ".tex":
        write_atomic(path, render(rows, ext, columns, digits, meta, long))
        return [path]
    check_output_writable(bib_path(path), "path (its .bib)")
    stem = os.path.splitext(os.path.basename(path))[0]
    if long:
        tex, bib = render(rows, ext, columns, digits, meta, long, bib_stem=stem), to_bibtex([], [], meta)
    else:
        tex, bib = latex_pair(rows, stem, columns, digits, meta)
    write_atomic_group([(path, tex), (bib_path(path), bib)])
    return [path, bib_path(path)]


def saving_summary(rows: Iterable[dict]) -> dict:
    """Min / median / max of the saving of the proved number over the best proved bound of
    the literature (``saving_percent`` of the rows)."""
    vals = sorted(r["saving_percent"] for r in rows if r.get("saving_percent") is not None)
    if not vals:
        return {"count": 0}
    mid = vals[len(vals) // 2] if len(vals) % 2 else 0.5 * (vals[len(vals) // 2 - 1] + vals[len(vals) // 2])
    return {"count": len(vals), "min": vals[0], "median": mid, "max": vals[-1]}


def paper_bounds(mechanism: str, columns: Sequence[str] = ()) -> tuple:
    """The bounds a table with the default columns needs: every proved upper bound for
    ``mechanism`` (the proved number and the best published one), the certified lower
    bound and Theorem 5's value, plus any bound named in ``columns``."""
    from .bounds import REGISTRY, proved_upper_bounds

    names = list(proved_upper_bounds(mechanism)) + ["lower", "paper"]
    names += [c for c in columns if c in REGISTRY]
    names += [c[11:-1] for c in columns if c.startswith("log2_ratio[") and c[11:-1] in REGISTRY]
    return tuple(b for b in REGISTRY if b in names)


def latex_pair(rows: Sequence[dict], stem: str, columns: Optional[Sequence[str]] = None,
               digits: int = DEFAULT_DIGITS, meta: Optional[dict] = None) -> tuple[str, str]:
    """(``stem``.tex, ``stem``.bib) texts: the LaTeX table and the BibTeX it cites."""
    cols = list(columns) if columns is not None else default_columns(rows)
    return (render(rows, ".tex", cols, digits, meta, bib_stem=stem), to_bibtex(rows, cols, meta))


def latex_zip(rows: Sequence[dict], stem: str, columns: Optional[Sequence[str]] = None,
              digits: int = DEFAULT_DIGITS, meta: Optional[dict] = None) -> bytes:
    """A zip of ``stem``.tex and ``stem``.bib (one download for the dashboard)."""
    import zipfile

    tex, bib = latex_pair(rows, stem, columns, digits, meta)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(f"{stem}.tex", tex)
        zf.writestr(f"{stem}.bib", bib)
    return buf.getvalue()
