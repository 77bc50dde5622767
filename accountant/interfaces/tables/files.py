"""Writing a table to disk: the output formats by extension, path checks, the .bib and sidecar
paths, and whole-or-nothing writes of a table, a LaTeX pair or a zip of both.
"""
from __future__ import annotations
import io
import os
from typing import Optional, Sequence
from accountant.interfaces.fileio import write_atomic, write_atomic_group
from accountant.core.limits import check_output_writable
from accountant.interfaces.tables.columns import POINT_FIELDS, bound_registry, default_columns, long_rows
from accountant.interfaces.tables.formats import DEFAULT_DIGITS, csv_sidecar, to_csv, to_json, to_markdown
from accountant.interfaces.tables.latex import to_bibtex, to_latex

FORMATS = (".csv", ".json", ".md", ".tex")
LONG_FIELDS = POINT_FIELDS + ("bound", "kind", "proved", "epsilon", "achieved_delta")


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


def sidecar_path(path: str) -> str:
    """The provenance file written beside a .csv table: ``NAME.csv.json``."""
    return path + ".json"


def render(rows: Sequence[dict], ext: str, columns: Optional[Sequence[str]] = None,
           digits: int = DEFAULT_DIGITS, meta: Optional[dict] = None, long: bool = False,
           bib_stem: Optional[str] = None) -> str:
    """The table as text in format ``ext`` (default columns unless ``columns``; ``long``:
    one row per point and bound)."""
    if long:
        random_hash = any(r.get("hash_model") == "random" for r in rows)
        rows = long_rows(rows, [c for c in (columns or ()) if c in bound_registry()] or None)
        if random_hash:  # the assumption stays with every row (csv: a hash_model column)
            rows = [{**lr, "hash_model": "random"} for lr in rows]
        columns = list(LONG_FIELDS)
    elif columns is None and ext != ".json":  # JSON: every field unless columns are chosen
        columns = default_columns(rows)
    if ext == ".tex":
        return to_latex(rows, columns, digits, meta, wide=None if not long else True, bib_stem=bib_stem)
    return WRITERS[ext](rows, columns, digits, meta)


def write_table(rows: Sequence[dict], path: str, columns: Optional[Sequence[str]] = None,
                digits: int = DEFAULT_DIGITS, meta: Optional[dict] = None, long: bool = False) -> list[str]:
    """Write the table (for .tex its .bib beside it, for .csv its provenance ``NAME.csv.json``
    beside it: both or neither); returns the paths written.  ValueError naming ``path`` when
    it cannot be written (checked before rendering: missing directory, /proc, read-only)."""
    ext = check_output_path(path)
    side = sidecar_path(path)  # beside the name given (a symlink's target is written through)
    path = check_output_writable(path, "path")
    if ext == ".csv":
        side = check_output_writable(side, "path (its .csv.json provenance)")
        write_atomic_group([(path, render(rows, ext, columns, digits, meta, long)),
                            (side, csv_sidecar(meta))])
        return [path, side]
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
