"""Plain-text renderings of a table (CSV with its sidecar, JSON, Markdown) and the cell formatter
with directed rounding that LaTeX shares.
"""
from __future__ import annotations
import csv
import io
from typing import Optional, Sequence
from accountant.core.numfmt import fmt
from accountant.interfaces.jsonout import dumps
from accountant.interfaces.tables.columns import FIELDS, column_direction, wide_columns
from accountant.interfaces.tables.provenance import meta_lines
DEFAULT_DIGITS = 4
MAX_DIGITS = 17


INPUT_DIGITS = {"csv": 12, "text": 6}  # eps0, delta: never cut to ``digits`` (JSON: exact)


def cell_text(row: dict, col: str, digits: int, thousands: bool = False) -> str:
    v = row.get(col)
    if isinstance(v, str):
        return v
    if isinstance(v, float) and col in ("eps0", "delta"):
        return fmt(v, INPUT_DIGITS["text" if thousands else "csv"])
    return fmt(v, digits, column_direction(col, row), thousands=thousands)


def check_digits(digits: int) -> int:
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= MAX_DIGITS:
        raise ValueError(f"digits must be an integer in [1, {MAX_DIGITS}], got {digits!r}")
    return digits


def to_csv(rows: Sequence[dict], columns: Optional[Sequence[str]] = None, digits: int = DEFAULT_DIGITS,
           meta: Optional[dict] = None) -> str:
    """CSV that every reader takes as it is: the header row first (machine column names), no
    comment lines, numbers with ``digits`` significant digits rounded in the direction of
    their claim (empty cell = not available).  ``meta`` (the provenance) is not written into
    the CSV: :func:`accountant.interfaces.tables.files.write_table` puts it in the sidecar
    ``NAME.csv.json`` (:func:`csv_sidecar`)."""
    check_digits(digits)
    cols = csv_columns(rows, list(columns) if columns is not None else wide_columns(rows))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for r in rows:
        w.writerow(["" if r.get(c) is None else cell_text(r, c, digits) for c in cols])
    return buf.getvalue()


def csv_columns(rows: Sequence[dict], columns: Sequence[str]) -> list[str]:
    """The columns of a CSV table: ``columns``, plus ``hash_model`` when the rows' bounds
    assume a uniformly random hash ("random"): a CSV carries no provenance lines, so the
    assumption a number is proved under travels in every row (the sidecar has its words)."""
    cols = list(columns)
    if "hash_model" not in cols and any(r.get("hash_model") == "random" for r in rows):
        cols.append("hash_model")
    return cols


def csv_sidecar(meta: Optional[dict]) -> str:
    """The text of a CSV's sidecar ``NAME.csv.json``: ``{"meta": {...}}``, the provenance
    the CSV itself does not carry (strict JSON)."""
    return dumps({"meta": dict(meta or {})}, indent=1) + "\n"


def to_json(rows: Sequence[dict], columns: Optional[Sequence[str]] = None, digits: int = DEFAULT_DIGITS,
            meta: Optional[dict] = None) -> str:
    """``{"meta": {...}, "rows": [...]}`` at full precision (``digits`` does not apply);
    ``columns`` (if given) selects the row fields."""
    out = list(rows) if columns is None else [{c: r.get(c) for c in columns} for r in rows]
    return dumps({"meta": dict(meta or {}), "rows": out}, indent=1)


def _md_escape(text: str) -> str:
    return text.replace("|", r"\|")


def to_markdown(rows: Sequence[dict], columns: Optional[Sequence[str]] = None, digits: int = DEFAULT_DIGITS,
                meta: Optional[dict] = None) -> str:
    """Markdown table with the provenance in an HTML comment above it."""
    check_digits(digits)
    cols = list(columns) if columns is not None else wide_columns(rows)
    out = []
    if meta:
        out += ["<!--"] + ["  " + line.replace("-->", "-- >") for line in meta_lines(meta)] + ["-->"]
    heads = [FIELDS[c][1] if c in FIELDS else c for c in cols]
    out += ["| " + " | ".join(_md_escape(h) for h in heads) + " |",
            "|" + "".join("---|" if c in ("mechanism", "best_proved", "best_literature", "bound", "kind")
                          else "--:|" for c in cols)]
    for r in rows:
        out.append("| " + " | ".join(_md_escape(cell_text(r, c, digits, thousands=True)) for c in cols) + " |")
    return "\n".join(out) + "\n"
