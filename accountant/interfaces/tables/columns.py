"""The columns of an exported table: every field with its label and rounding direction, the
default and wide column sets, the long (one row per bound) layout and the saving summary.
One definition that every format (csv, json, md, tex) reads.
"""
from __future__ import annotations
from typing import Iterable, Optional, Sequence


# ----------------------------------------------------------------------------
# Export: columns, directed rounding, provenance, csv / json / md / tex (+ .bib)
# ----------------------------------------------------------------------------
#
# Every printed number goes through :func:`accountant.core.numfmt.fmt` with the direction of
# its claim: upper bounds round up, lower bounds down (a printed bound is still a bound);
# JSON keeps full precision.  Column names in csv/json are the machine names of the rows.

POINT_FIELDS = ("mechanism", "n", "s", "t", "k", "p", "beta", "q", "eps0", "delta")
PAPER_COLUMNS = ("proved_epsilon", "lower_epsilon", "paper_epsilon", "best_literature",
                 "literature_epsilon", "saving_percent")

# (LaTeX head, Markdown head, rounding direction) of the fields of a row
FIELDS = {
    "mechanism": ("mechanism", "mechanism", None),
    "n": ("$n$", "n", None),
    "s": ("$s$", "s", None),
    "t": ("$t$", "t", None),
    "k": ("$k$", "k", None),
    "p": ("$p$", "p", None),
    "beta": (r"$\beta$", "beta", None),
    "q": ("$q$", "q", None),
    "eps0": (r"$\varepsilon_0$", "eps0", None),
    "delta": (r"$\delta$", "delta", None),
    "hash_model": ("hash model", "hash model", None),
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
_KIND_DIRECTION = {"upper": "up", "paper": "up", "lower": "down", "exact": "up"}


def bound_registry():
    from accountant.bounds.registry import REGISTRY

    return REGISTRY


def column_direction(col: str, row: Optional[dict] = None) -> Optional[str]:
    """How column ``col`` rounds when printed: "up" (upper bounds), "down" (lower bounds,
    savings, amplification of an upper bound), None (inputs, ratios without a claim)."""
    reg = bound_registry()
    if col in ("epsilon", "achieved_delta") and row is not None:
        return _KIND_DIRECTION.get(row.get("kind"))
    if col in FIELDS:
        return FIELDS[col][2]
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
    cols = ["n"] + [k for k in ("s", "t", "k") if _varies(rows, k)]
    # variation-ratio: its parameters (eps0 = ln p); they are fixed over the grid
    cols += [k for k in ("p", "beta", "q") if rows and rows[0].get(k) is not None] + ["eps0"]
    cols += ["delta"] if _varies(rows, "delta") else []
    return cols + list(PAPER_COLUMNS)


def wide_columns(rows: Sequence[dict]) -> list[str]:
    """Every field of the rows (the wide table, ``--all-bounds``)."""
    return [c for c in rows[0].keys() if not isinstance(rows[0][c], dict)] if rows else []


_LONG_ONLY = ("bound", "kind", "proved", "epsilon", "achieved_delta")


def column_names() -> tuple:
    """Names ``--columns`` accepts: the fields of a row and every bound of the registry
    (its eps_c) with its amplification ratio ``log2_ratio[NAME]``."""
    names = [f for f in FIELDS if f not in _LONG_ONLY]
    for b in bound_registry():
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
    reg = bound_registry()
    out = []
    for r in rows:
        names = [b for b in (bounds or reg) if b in r]
        for b in names:
            out.append({**{k: r.get(k) for k in POINT_FIELDS}, "bound": b, "kind": reg[b].kind,
                        "proved": reg[b].proved(r["mechanism"]), "epsilon": r[b],
                        "achieved_delta": (r.get("achieved_delta") or {}).get(b)})
    return out


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
    from accountant.bounds.registry import REGISTRY, proved_upper_bounds

    names = list(proved_upper_bounds(mechanism)) + ["lower", "paper"]
    names += [c for c in columns if c in REGISTRY]
    names += [c[11:-1] for c in columns if c.startswith("log2_ratio[") and c[11:-1] in REGISTRY]
    return tuple(b for b in REGISTRY if b in names)
