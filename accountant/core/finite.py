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
import os
from dataclasses import dataclass, field
from typing import Optional, Sequence

import numpy as np

#: how far from 1 a row may sum (the row is then divided by its sum)
ROW_SUM_TOL = 1e-9
#: the largest matrix accepted: inputs, outputs and cells (inputs x outputs)
MAX_INPUTS = 4096
MAX_OUTPUTS = 1_000_000
MAX_CELLS = 4_000_000


def _fail(what: str) -> None:
    raise ValueError(f"matrix: {what}")


def _as_matrix(matrix) -> np.ndarray:
    """The rows as a float64 array, with every shape and value error named."""
    if isinstance(matrix, np.ndarray):
        rows = matrix
    else:
        try:
            rows = list(matrix)
        except TypeError:
            _fail(f"must be a list of rows (inputs) of output probabilities, got {type(matrix).__name__}")
        if not rows:
            _fail("is empty: give at least two rows (inputs)")
        lengths = set()
        for i, r in enumerate(rows):
            if isinstance(r, (str, bytes)) or not hasattr(r, "__len__"):
                _fail(f"row {i} is not a list of numbers")
            lengths.add(len(r))
        if len(lengths) > 1:
            _fail(f"rows have different lengths {sorted(lengths)} (ragged): every row needs one "
                  "probability per output")
    try:
        arr = np.array(rows, dtype=np.float64)
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
    bad = ~np.isfinite(arr)
    if bad.any():
        i, j = map(int, np.argwhere(bad)[0])
        _fail(f"entry [{i}, {j}] is {arr[i, j]!r}: entries must be finite probabilities in [0, 1]")
    neg = arr < 0
    if neg.any():
        i, j = map(int, np.argwhere(neg)[0])
        _fail(f"entry [{i}, {j}] = {arr[i, j]!r} is negative: entries must be probabilities in [0, 1]")
    sums = arr.sum(axis=1)
    off = np.abs(sums - 1.0)
    if (off > ROW_SUM_TOL).any():
        i = int(np.argmax(off))
        _fail(f"row {i} sums to {float(sums[i])!r} (off by {float(sums[i]) - 1.0:+.3g}); each row must sum to 1 "
              f"within {ROW_SUM_TOL:g}")
    return arr / sums[:, None]


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


def _read_csv(path: str) -> list:
    rows = []
    with open(path, encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            line = line.strip()
            if not line:
                continue
            try:
                rows.append([float(v) for v in line.split(",")])
            except ValueError:
                _fail(f"line {i + 1} of {path} is not a row of numbers (CSV without a header, "
                      "one row per input)")
    return rows


def load_matrix(path: str, label: Optional[str] = None) -> FiniteRandomizer:
    """A :class:`FiniteRandomizer` from a file.

    ``.json``: a list of rows, or ``{"matrix": rows, "inputs": [...], "outputs": [...]}``
    (``"name"`` optional); ``.csv``: no header, one row per input; ``.npy``: a 2-D array.
    Every problem is a ``ValueError`` naming the file and what is wrong.

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
    if not os.path.isfile(path):
        _fail(f"no such file: {path}")
    ext = os.path.splitext(path)[1].lower()
    inputs = outputs = None
    explicit, label = label, label or os.path.splitext(os.path.basename(path))[0]
    if ext == ".json":
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
        except (ValueError, UnicodeDecodeError) as exc:
            _fail(f"{path} is not valid JSON ({exc})")
        if isinstance(data, dict):
            if "matrix" not in data:
                _fail(f"{path}: a JSON object needs the key \"matrix\" (a list of rows)")
            rows, inputs, outputs = data["matrix"], data.get("inputs"), data.get("outputs")
            label = explicit or data.get("name") or label
        else:
            rows = data
    elif ext == ".csv":
        rows = _read_csv(path)
    elif ext == ".npy":
        try:
            rows = np.load(path, allow_pickle=False)
        except (ValueError, OSError) as exc:
            _fail(f"{path} is not a readable .npy array ({exc})")
    else:
        _fail(f"{path}: the file must end in .json, .csv or .npy")
    if isinstance(rows, list) and not rows:
        _fail(f"{path} holds no rows")
    return FiniteRandomizer(rows, inputs=inputs, outputs=outputs, label=str(label))
