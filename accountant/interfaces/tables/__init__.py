"""Grids of bounds (Figure 2 of Wang et al., numerical vector analyses in the shuffle model) and their export.

A grid is the product of lists of n, s, eps0 and delta with a rule for t.  Each
row holds the inputs, then the proved number first (``proved_epsilon``: the smallest
proved upper bound among the requested ones, ``best_proved`` naming it), the certified
lower bound and the paper's Theorem 5 value with their ratios, then every requested
bound's eps_c and amplification ratio log2(eps0/eps_c), and the saving of the proved
number against the best proved bound of the literature (every proved bound but the exact
blanket) in percent.  Rows are computed in worker processes (``workers``) or on a
Dask distributed cluster (``scheduler``); files are written whole or not at all.
"""
from accountant.interfaces.tables.grid import (  # noqa: F401
    GridPoint,
    build_grid,
    finite_grid,
    estimate_seconds,
    KEYED,
    DEEP_DELTA,
    SECONDS_PER_DEEP_ROW,
    SECONDS_PER_ROW,
    compute_row,
    compute_rows,
    compute_table,
    finish_rows,
    RowsJob,
    start_rows,
    parse_list,
    resolve_t,
)
from accountant.interfaces.tables.columns import (  # noqa: F401
    PAPER_COLUMNS,
    POINT_FIELDS,
    column_direction,
    column_names,
    default_columns,
    long_rows,
    paper_bounds,
    parse_columns,
    saving_summary,
    wide_columns,
)
from accountant.interfaces.tables.provenance import (  # noqa: F401
    git_commit,
    provenance,
    tool_version,
)
from accountant.interfaces.tables.formats import (  # noqa: F401
    DEFAULT_DIGITS,
    INPUT_DIGITS,
    MAX_DIGITS,
    csv_columns,
    csv_sidecar,
    to_csv,
    to_json,
    to_markdown,
)
from accountant.interfaces.tables.latex import (  # noqa: F401
    MECH_NAMES,
    cited_keys,
    to_bibtex,
    to_latex,
)
from accountant.interfaces.tables.files import (  # noqa: F401
    FORMATS,
    LONG_FIELDS,
    WRITERS,
    bib_path,
    check_output_path,
    latex_pair,
    latex_zip,
    render,
    sidecar_path,
    write_table,
)

__all__ = [
    'DEFAULT_DIGITS',
    'FORMATS',
    'GridPoint',
    'INPUT_DIGITS',
    'LONG_FIELDS',
    'MAX_DIGITS',
    'MECH_NAMES',
    'PAPER_COLUMNS',
    'POINT_FIELDS',
    'WRITERS',
    'bib_path',
    'build_grid',
    'finite_grid',
    'estimate_seconds',
    'KEYED',
    'DEEP_DELTA',
    'SECONDS_PER_DEEP_ROW',
    'SECONDS_PER_ROW',
    'check_output_path',
    'cited_keys',
    'csv_columns',
    'csv_sidecar',
    'column_direction',
    'column_names',
    'compute_row',
    'compute_rows',
    'compute_table',
    'finish_rows',
    'RowsJob',
    'start_rows',
    'default_columns',
    'git_commit',
    'latex_pair',
    'latex_zip',
    'long_rows',
    'paper_bounds',
    'parse_columns',
    'parse_list',
    'provenance',
    'render',
    'resolve_t',
    'saving_summary',
    'sidecar_path',
    'to_bibtex',
    'to_csv',
    'to_json',
    'to_latex',
    'to_markdown',
    'tool_version',
    'wide_columns',
    'write_table',
]
