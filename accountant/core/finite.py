"""Any local randomizer with finitely many inputs and outputs, given as its probability matrix.

A :class:`FiniteRandomizer` is the matrix ``R`` (rows: inputs x, columns: outputs y,
``R[x, y] = P[report y | input x]``), validated once at construction, with what the
accountant needs from it: its local budget ``eps0`` (the largest log ratio of two entries of
one column; infinite where a column has a zero beside a positive entry) and its privacy
blanket ``gamma = sum_y min_x R[x, y]`` (Balle, Bell, Gascon, Nissim, CRYPTO 2019).
:func:`load_matrix` reads one from a ``.json``, ``.csv`` or ``.npy`` file.

The randomizer the accountant proves things about is the matrix with each row divided by
its sum (rows must sum to 1 within :data:`ROW_SUM_TOL`; the division only removes float
noise).  The bounds are in :mod:`accountant.bounds.finite`.
"""
from __future__ import annotations

import json
import math
import numbers
import os
import re
from dataclasses import dataclass, field
from typing import Optional, Sequence

#: how far from 1 a row may sum (the row is then divided by its sum)
ROW_SUM_TOL = 1e-9
#: the largest matrix accepted: inputs, outputs and cells (inputs x outputs)
MAX_INPUTS = 4096
MAX_OUTPUTS = 1_000_000
MAX_CELLS = 4_000_000


def _fail(what: str) -> None:
    """Refuse the matrix; a message naming a row or an entry says how they are counted."""
    if re.search(r"\b(?:row \d|entry \[\d)", what) and "counted from 0" not in what:
        what += " (rows and columns counted from 0)"
    raise ValueError(f"matrix: {what}")


def _entry_problem(i: int, j: int, v) -> None:
    """Refuse entry [i, j] unless it is a number (a bool, a string or null is not one)."""
    import numpy as np

    if isinstance(v, (bool, np.bool_, str, bytes)) or not isinstance(v, numbers.Real):
        from accountant.core.limits import shown

        _fail(f"entry [{i}, {j}] is {shown(v)}, not a number: entries must be probabilities in "
              "[0, 1] written as numbers, not strings, booleans or null")


def _check_entries(rows: list) -> None:
    """Every entry a Python or NumPy real number (``np.array`` would read ``"0.5"`` and ``true``)."""
    import numpy as np

    for i, r in enumerate(rows):
        if isinstance(r, np.ndarray) and r.dtype.kind in "fiu":
            continue
        for j, v in enumerate(r):
            t = type(v)
            if t is not float and t is not int:
                _entry_problem(i, j, v)


def _as_matrix(matrix) -> np.ndarray:
    """The rows as a float64 array, with every shape and value error named."""
    import numpy as np

    if isinstance(matrix, np.ndarray) and matrix.dtype.kind in "fiu":
        rows = matrix
    elif isinstance(matrix, np.ndarray) and matrix.dtype.kind != "O":
        _fail(f"entries must be numbers (probabilities in [0, 1]), got an array of {matrix.dtype}")
    else:
        try:
            rows = list(matrix.tolist() if isinstance(matrix, np.ndarray) else matrix)
        except TypeError:
            _fail(f"must be a list of rows (inputs) of output probabilities, got {type(matrix).__name__}")
        if not rows:
            _fail("is empty: give at least two rows (inputs)")
        lengths = set()
        for i, r in enumerate(rows):
            if isinstance(r, (str, bytes, dict)) or not hasattr(r, "__len__"):
                _fail(f"row {i} is not a list of numbers")
            lengths.add(len(r))
        if len(lengths) > 1:
            _fail(f"rows have different lengths {sorted(lengths)} (ragged): every row needs one "
                  "probability per output")
        _check_limits(len(rows), lengths.pop())
        _check_entries(rows)
    try:
        arr = np.array(rows, dtype=np.float64)
    except OverflowError:  # an integer beyond the float range (a 400-digit entry)
        _fail("has an entry too large for a float: entries must be probabilities in [0, 1]")
    except (TypeError, ValueError):
        _fail("has an entry that is not a number")
    if arr.ndim != 2:
        _fail(f"must be two-dimensional (rows: inputs, columns: outputs), got {arr.ndim} dimensions")
    return arr


def _check_limits(k: int, m: int) -> None:
    if k < 2:
        _fail(f"needs at least two rows (inputs), got {k}")
    if m < 1:
        _fail("needs at least one column (output)")
    if k > MAX_INPUTS or m > MAX_OUTPUTS or k * m > MAX_CELLS:
        _fail(f"{k} inputs x {m} outputs is beyond the limit (at most {MAX_INPUTS} inputs, "
              f"{MAX_OUTPUTS} outputs and {MAX_CELLS} entries)")


def _check_values(arr: np.ndarray) -> np.ndarray:
    import numpy as np

    bad = ~np.isfinite(arr)
    if bad.any():
        i, j = map(int, np.argwhere(bad)[0])
        _fail(f"entry [{i}, {j}] is {float(arr[i, j])!r}: entries must be finite probabilities in [0, 1]")
    neg = arr < 0
    if neg.any():
        i, j = map(int, np.argwhere(neg)[0])
        _fail(f"entry [{i}, {j}] = {float(arr[i, j])!r} is negative: entries must be probabilities in [0, 1]")
    sums = arr.sum(axis=1)
    off = np.abs(sums - 1.0)
    if (off > ROW_SUM_TOL).any():
        i = int(np.argmax(off))
        _fail(f"row {i} sums to {float(sums[i])!r} (off by {float(sums[i]) - 1.0:+.3g}); each row must sum to 1 "
              f"within {ROW_SUM_TOL:g}")
    return arr / sums[:, None]


def _check_columns_and_eps0(arr: np.ndarray) -> None:
    """What :func:`load_matrix` refuses beyond :class:`FiniteRandomizer`'s checks: an output no
    input reports (an all-zero column) and a finite eps0 outside the toolkit's range [EPS0_MIN,
    EPS_MAX] (all rows equal: eps0 = 0, which the library's own bounds answer with eps_c = 0,
    but no command or page does); eps0 = inf (a zero beside a positive entry: not pure LDP) is
    accepted (docs/finite.md, "Not pure LDP") when its finite log ratios are in the range."""
    import numpy as np
    from accountant.core.limits import EPS0_MIN, EPS_MAX

    hi, lo = arr.max(axis=0), arr.min(axis=0)
    zero = np.flatnonzero(hi == 0.0)
    if zero.size:
        _fail(f"column {int(zero[0])} (columns counted from 0, as in entry [i, j]) is all zeros: no "
              f"input reports that output ({zero.size} such column{'s' if zero.size > 1 else ''}); "
              "drop it")
    rng = f"the toolkit's eps0 range is [{EPS0_MIN:g}, {EPS_MAX:g}]"
    pos = lo > 0.0
    if not pos.all():  # eps0 = inf: not pure LDP, its blanket bound answers (ratios on its support)
        ratio = float(np.max(np.log(hi[pos]) - np.log(lo[pos]), initial=0.0))
        if ratio > EPS_MAX * (1.0 + EPS0_SLACK):
            _fail(f"the largest log ratio of two positive entries of one column is {ratio:.10g}, beyond "
                  f"{EPS_MAX:g} ({rng}; a zero beside a positive entry makes eps0 = inf, allowed)")
        return
    eps0 = float(np.max(np.log(hi) - np.log(lo)))
    if eps0 == 0.0:
        _fail(f"every row is the same: the randomizer reveals nothing about the input (eps0 = 0); {rng}")
    # a catalogue member built at eps0 = 30 or 1e-10 computes its eps0 within float noise (near
    # 1e-10 the log ratio keeps only some 5 digits)
    if eps0 < EPS0_MIN * (1.0 - 1e3 * EPS0_SLACK) or eps0 > EPS_MAX * (1.0 + EPS0_SLACK):
        _fail(f"its eps0 (the largest log ratio of two entries of one column) is {eps0:.10g}; {rng} "
              "(or eps0 = inf, a zero beside a positive entry: not pure LDP)")


#: the relative float noise allowed when a matrix's eps0 is checked against the eps0 range
EPS0_SLACK = 1e-6


class StrongerClonePair:
    """What the pair bounds read from an eps0-LDP randomizer's parameter object (``eps0``): the
    stronger clone pair's mixture weight 1/(e^eps0 + 1), no (0, 0) remainder, and the caveat
    that the reduction is not proved for every eps0-LDP randomizer (FMT23 erratum).  Shared by
    :class:`FiniteRandomizer` and :class:`accountant.core.params.GenericLDP`."""

    @property
    def mixture_weight(self) -> float:
        return 1.0 / (math.exp(self.eps0) + 1.0)

    @property
    def remainder(self) -> float:
        """r = 1 - a (1 + e^eps0), the probability of (D1, D2) = (0, 0)."""
        return 0.0

    @property
    def caveat(self) -> str:
        from accountant.core.caveats import CAVEAT_GENERIC

        return CAVEAT_GENERIC


@dataclass(frozen=True, eq=False)
class FiniteRandomizer(StrongerClonePair):
    """A local randomizer with finite input and output sets, given by its probability matrix.

    Parameters
    ----------
    matrix : array-like, shape (inputs, outputs)
        ``matrix[x][y] = P[report y | input x]``; each row a probability vector (sums to 1
        within 1e-9), at least two rows, at most :data:`MAX_INPUTS` x :data:`MAX_OUTPUTS`
        and :data:`MAX_CELLS` entries.
    inputs, outputs : sequence of str, optional
        Names of the rows and columns (default ``"0", "1", ...``); used to name datasets.
    label : str
        What the randomizer is (shown in outputs and datasets), default ``"finite"``.  (``name``
        is the mechanism's name, ``"finite"``, as for every parameter object.)

    Examples
    --------
    >>> import math
    >>> from accountant import FiniteRandomizer
    >>> E = math.exp(1.0)
    >>> rr = FiniteRandomizer([[E / (E + 1), 1 / (E + 1)], [1 / (E + 1), E / (E + 1)]])
    >>> print(round(rr.eps0, 12), round(rr.gamma, 6))
    1.0 0.537883
    """

    matrix: np.ndarray
    inputs: Optional[Sequence[str]] = None
    outputs: Optional[Sequence[str]] = None
    label: str = "finite"
    name: str = field(default="finite", init=False)

    def __post_init__(self) -> None:
        arr = _as_matrix(self.matrix)
        _check_limits(*arr.shape)
        arr = _check_values(arr)
        arr.setflags(write=False)
        object.__setattr__(self, "matrix", arr)
        for what, labels, size in (("inputs", self.inputs, arr.shape[0]), ("outputs", self.outputs, arr.shape[1])):
            if labels is None:
                object.__setattr__(self, what, tuple(str(i) for i in range(size)))
                continue
            labels = tuple(str(v) for v in labels)
            if len(labels) != size:
                raise ValueError(f"{what}: {len(labels)} names for {size} "
                                 f"{'rows' if what == 'inputs' else 'columns'}")
            if len(set(labels)) != size:
                raise ValueError(f"{what}: names must be distinct")
            object.__setattr__(self, what, labels)
        if not isinstance(self.label, str) or not self.label:
            raise ValueError("label must be a non-empty string")

    def _key(self) -> tuple:
        return (self.matrix.shape, self.matrix.tobytes(), self.inputs, self.outputs, self.label)

    def __eq__(self, other) -> bool:
        return isinstance(other, FiniteRandomizer) and self._key() == other._key()

    def __hash__(self) -> int:  # the registry caches results by parameter object
        return hash(self._key())

    # the parameter-object protocol the registry and the interfaces read (as GenericLDP's)
    s = t = d = None
    theorem6_applies = False
    tight = None
    certified = False

    @property
    def k(self) -> int:
        """Number of inputs (rows)."""
        return int(self.matrix.shape[0])

    @property
    def outputs_count(self) -> int:
        """Number of outputs (columns)."""
        return int(self.matrix.shape[1])

    @property
    def blanket_mass(self) -> np.ndarray:
        """``min_x R[x, y]`` per output: the blanket's unnormalised law (gamma omega)."""
        return self.matrix.min(axis=0)

    @property
    def gamma(self) -> float:
        """The blanket probability ``sum_y min_x R[x, y]`` (0: the outputs reveal the input)."""
        return float(math.fsum(self.blanket_mass))

    @property
    def eps0(self) -> float:
        """The local budget: max over columns of ``log(max_x R / min_x R)`` over the columns
        with a positive entry; ``inf`` where a column has a zero beside a positive entry."""
        import numpy as np

        hi, lo = self.matrix.max(axis=0), self.blanket_mass
        used = hi > 0
        if np.any(lo[used] == 0.0):
            return math.inf
        return float(np.max(np.log(hi[used]) - np.log(lo[used])))

    @property
    def pure(self) -> bool:
        """Whether the randomizer is pure eps0-LDP (finite eps0)."""
        return math.isfinite(self.eps0)

    def describe(self) -> str:
        """One line: size, eps0, gamma."""
        e = self.eps0
        return (f"{self.label}: {self.k} inputs x {self.outputs_count} outputs, eps0 = "
                f"{'inf (not pure LDP)' if not math.isfinite(e) else f'{e:.10g}'}, "
                f"blanket gamma = {self.gamma:.6g}")


def _read_csv(path: str, raw: bytes) -> list:
    rows = []
    for i, line in enumerate(_text(path, raw).splitlines()):
        line = line.strip()
        if not line:
            continue
        try:
            rows.append([float(v) for v in line.split(",")])
        except ValueError:
            _fail(f"line {i + 1} of {path} is not a row of numbers (CSV without a header, "
                  "one row per input)")
    return rows


def _text(path: str, raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        _fail(f"{path} is not a UTF-8 text file")


def _json_int(text: str):
    """A JSON integer: an int, or a float (inf beyond the float range) when it is long."""
    return int(text) if len(text) <= 20 else float(text)


def _read_json(path: str, raw: bytes):
    """The JSON data: numbers too large for a float become inf (refused as entries), and
    nesting beyond the parser's recursion limit is refused, not a RecursionError."""
    try:
        return json.loads(_text(path, raw), parse_int=_json_int)
    except ValueError as exc:
        _fail(f"{path} is not valid JSON ({exc})")
    except RecursionError:
        _fail(f"{path}: JSON nested too deeply (a matrix is a list of rows of numbers)")


def _npy_header(path: str, fh) -> None:
    """Refuse a .npy file by its header (shape, dtype, length) before its array is allocated."""
    import numpy as np

    fmt = np.lib.format
    try:
        version = fmt.read_magic(fh)
        reader = {(1, 0): fmt.read_array_header_1_0, (2, 0): fmt.read_array_header_2_0}.get(version)
        if reader is None:
            _fail(f"{path}: .npy format version {version[0]}.{version[1]} is not read (1.0 or 2.0)")
        shape, _, dtype = reader(fh)
    except (ValueError, OSError, SyntaxError, TypeError) as exc:
        _fail(f"{path} is not a readable .npy array ({exc})")
    if len(shape) != 2:
        _fail(f"must be two-dimensional (rows: inputs, columns: outputs), got {len(shape)} dimensions")
    _check_limits(*shape)
    if dtype.kind not in "fiu":
        _fail(f"entries must be numbers (probabilities in [0, 1]), got an array of {dtype}")
    need = fh.tell() + shape[0] * shape[1] * dtype.itemsize
    if os.fstat(fh.fileno()).st_size < need:
        _fail(f"{path} is truncated: its header announces {shape[0]} x {shape[1]} entries")


def _read_file(path: str, ext: str):
    """The bytes of ``path`` (JSON, CSV) or its array (.npy), at most ``MAX_MATRIX_BYTES``, the
    size checked before anything is read; every problem a ``ValueError`` starting ``matrix:``."""
    import numpy as np
    from accountant.core.limits import MAX_MATRIX_BYTES

    if os.path.isdir(path):
        _fail(f"{path} is a directory, not a matrix file")
    if not os.path.exists(path):
        _fail(f"no such file: {path}")
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > MAX_MATRIX_BYTES:
                _fail(f"{path} has {size:,} bytes, more than the limit of {MAX_MATRIX_BYTES:,}")
            if ext == ".npy":
                _npy_header(path, fh)
                fh.seek(0)
                try:
                    return np.load(fh, allow_pickle=False)
                except (ValueError, OSError, EOFError) as exc:
                    _fail(f"{path} is not a readable .npy array ({exc})")
            raw = fh.read(MAX_MATRIX_BYTES + 1)  # a device or pipe has no size: read one more
    except OSError as exc:
        _fail(f"cannot read {path} ({exc.strerror or exc})")
    if len(raw) > MAX_MATRIX_BYTES:
        _fail(f"{path} has more than the limit of {MAX_MATRIX_BYTES:,} bytes")
    return raw


def load_matrix(path: str, label: Optional[str] = None) -> FiniteRandomizer:
    """A :class:`FiniteRandomizer` from a file.

    ``.json``: a list of rows, or ``{"matrix": rows, "inputs": [...], "outputs": [...]}``
    (``"name"`` optional); ``.csv``: no header, one row per input; ``.npy``: a 2-D array.
    At most ``accountant.core.limits.MAX_MATRIX_BYTES`` (checked before reading; a ``.npy``
    header's shape before its array is allocated); entries are numbers (no strings or
    booleans); no all-zero column; eps0 in the toolkit's range [1e-10, 30] or infinite (not
    pure LDP).  Every problem is a ``ValueError`` naming the file and what is wrong.

    Examples
    --------
    >>> import json, os, tempfile
    >>> from accountant import load_matrix
    >>> path = os.path.join(tempfile.mkdtemp(), "rr.json")
    >>> with open(path, "w") as fh:
    ...     json.dump({"matrix": [[0.75, 0.25], [0.25, 0.75]], "inputs": ["no", "yes"]}, fh)
    >>> R = load_matrix(path)
    >>> print(R.describe())
    rr: 2 inputs x 2 outputs, eps0 = 1.098612289, blanket gamma = 0.5
    """
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"matrix: a file path is needed, got {path!r}")
    path = os.fspath(path)
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".json", ".csv", ".npy"):
        _fail(f"{path}: the file must end in .json, .csv or .npy")
    inputs = outputs = None
    explicit, label = label, label or os.path.splitext(os.path.basename(path))[0]
    data = _read_file(path, ext)
    if ext == ".json":
        data = _read_json(path, data)
        if isinstance(data, dict):
            if "matrix" not in data:
                _fail(f"{path}: a JSON object needs the key \"matrix\" (a list of rows)")
            rows, inputs, outputs = data["matrix"], data.get("inputs"), data.get("outputs")
            label = explicit or data.get("name") or label
        else:
            rows = data
    elif ext == ".csv":
        rows = _read_csv(path, data)
    else:
        rows = data
    if isinstance(rows, list) and not rows:
        _fail(f"{path} holds no rows")
    R = FiniteRandomizer(rows, inputs=inputs, outputs=outputs, label=str(label))
    _check_columns_and_eps0(R.matrix)
    return R
