"""Named frequency oracles written out as probability matrices (:class:`FiniteRandomizer`): in
core so that the accountant's command line and pages can build them (``mechanisms`` re-exports it).

Each builder returns the randomizer's matrix (rows: the k inputs, columns: its outputs), so
that any of them can be accounted by :mod:`accountant.bounds.finite` exactly as a matrix a
user uploads: k-ary randomized response, Hadamard response (Acharya, Sun, Zhang, AISTATS
2019), subset selection (Ye, Barg 2018; Wang et al. 2016), symmetric unary encoding / basic
RAPPOR (Erlingsson, Pihur, Korolova 2014), optimized unary encoding (OUE) and local hashing
(OLH, and binary local hashing with g = 2) over every hash function [k] -> [g] (Wang, Blocki,
Li, Jha, USENIX Security 2017).  :data:`CATALOGUE` maps the command-line names to the builders.

The sizes are capped so that a matrix stays within :data:`accountant.core.finite.MAX_CELLS`:
unary encodings have 2^k outputs (k <= 16), local hashing g^k * g outputs, subset selection
C(k, size) outputs; a builder refuses a larger one with the limit in the message.
"""
from __future__ import annotations

import itertools
import math
from typing import Optional

from accountant.core.finite import MAX_CELLS, FiniteRandomizer
from accountant.core.limits import numpy_scalars
from accountant.core.randomizers import validate_eps0


def check_eps0(eps0) -> float:
    """eps0 in the one range of every mechanism, [1e-10, 30] (:func:`accountant.core.params.validate_eps0`)."""
    return validate_eps0(eps0)


def check_k(k, lo: int = 2, hi: Optional[int] = None) -> int:
    if isinstance(k, bool) or not isinstance(k, (int,) + numpy_scalars("integer")) or k < lo or (hi is not None and k > hi):
        rng = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
        raise ValueError(f"k must be an integer {rng}, got {k!r}")
    return int(k)


def _cells(k: int, outputs: int, what: str) -> None:
    if k * outputs > MAX_CELLS:
        raise ValueError(f"{what} with k = {k} has {outputs} outputs: {k * outputs} matrix entries, "
                         f"beyond the limit of {MAX_CELLS}")


def krr(k: int, eps0: float) -> FiniteRandomizer:
    """k-ary randomized response: the true value w.p. e^eps0 / (e^eps0 + k - 1), each other
    value w.p. 1 / (e^eps0 + k - 1).

    Examples
    --------
    >>> from accountant.core.catalogue import krr
    >>> print(krr(4, 1.0).describe())
    4-RR: 4 inputs x 4 outputs, eps0 = 1, blanket gamma = 0.699511
    """
    import numpy as np

    k, e = check_k(k), check_eps0(eps0)
    _cells(k, k, "k-RR")
    E = math.exp(e)
    M = np.full((k, k), 1.0)
    np.fill_diagonal(M, E)
    return FiniteRandomizer(M / (E + k - 1), label=f"{k}-RR")


def hadamard_matrix(K: int) -> np.ndarray:
    import numpy as np

    H = np.array([[1]], dtype=np.int8)
    while H.shape[0] < K:
        H = np.block([[H, H], [H, -H]])
    return H


def hadamard_response(k: int, eps0: float) -> FiniteRandomizer:
    """Hadamard response: K = the smallest power of 2 > k; input x owns the K/2 outputs where
    row x + 1 of the K x K Hadamard matrix is +1 and reports one of them uniformly w.p.
    e^eps0 / (e^eps0 + 1), else one of the other K/2 uniformly.

    Examples
    --------
    >>> from accountant.core.catalogue import hadamard_response
    >>> print(hadamard_response(3, 2.0).describe())
    hadamard-response: 3 inputs x 4 outputs, eps0 = 2, blanket gamma = 0.619203
    """
    import numpy as np

    k, e = check_k(k), check_eps0(eps0)
    K = 1 << k.bit_length()          # smallest power of two > k
    _cells(k, K, "Hadamard response")
    E = math.exp(e)
    own = hadamard_matrix(K)[1:k + 1] > 0
    M = np.where(own, 2.0 * E / (K * (E + 1.0)), 2.0 / (K * (E + 1.0)))
    return FiniteRandomizer(M, label="hadamard-response")


def subset_selection(k: int, eps0: float, size: Optional[int] = None) -> FiniteRandomizer:
    """Subset selection: report a subset of ``size`` values (default ceil(k / (e^eps0 + 1))),
    those holding the input e^eps0 times as likely as the others.

    Examples
    --------
    >>> from accountant.core.catalogue import subset_selection
    >>> print(subset_selection(4, 1.0).describe())
    subset-selection(2): 4 inputs x 6 outputs, eps0 = 1, blanket gamma = 0.537883
    """
    import numpy as np

    k, e = check_k(k), check_eps0(eps0)
    E = math.exp(e)
    size = subset_size(k, e, size)
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or not 1 <= size < k:
        raise ValueError(f"size must be an integer in [1, k - 1] = [1, {k - 1}], got {size!r}")
    outputs = math.comb(k, size)
    _cells(k, outputs, "subset selection")
    subsets = list(itertools.combinations(range(k), int(size)))
    member = np.zeros((k, len(subsets)), dtype=bool)
    for j, S in enumerate(subsets):
        member[list(S), j] = True
    z = math.comb(k - 1, size - 1) * E + math.comb(k - 1, size)
    return FiniteRandomizer(np.where(member, E / z, 1.0 / z), label=f"subset-selection({size})")


def subset_size(k: int, eps0: float, size: Optional[int] = None) -> int:
    """Subset selection's subset size: ``size``, or the default ceil(k / (e^eps0 + 1))."""
    return max(1, math.ceil(k / (math.exp(eps0) + 1.0))) if size is None else size


def bit_patterns(k: int) -> np.ndarray:
    """Every bit vector of length k (rows), 2^k of them."""
    import numpy as np

    return ((np.arange(1 << k)[:, None] >> np.arange(k)[None, :]) & 1).astype(bool)


def unary_encoding(k: int, p: float, q: float, label: str = "unary-encoding") -> FiniteRandomizer:
    """Unary encoding: bit x is 1 w.p. p, every other bit w.p. q, independently (2^k outputs,
    k <= 16).  Symmetric (basic RAPPOR): q = 1 - p; OUE: p = 1/2, q = 1/(e^eps0 + 1).

    Examples
    --------
    >>> from accountant.core.catalogue import unary_encoding
    >>> print(unary_encoding(3, 0.75, 0.25).describe())
    unary-encoding: 3 inputs x 8 outputs, eps0 = 2.197224577, blanket gamma = 0.375
    """
    import numpy as np

    k = check_k(k, 2, 16)
    for nm, v in (("p", p), ("q", q)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 < v < 1.0:
            raise ValueError(f"{nm} must be a probability in (0, 1), got {v!r}")
    if p <= q:
        raise ValueError(f"need p > q (the true bit more likely set), got p = {p!r}, q = {q!r}")
    _cells(k, 1 << k, "unary encoding")
    Y = bit_patterns(k)                                        # outputs x bits
    logq = np.where(Y, math.log(q), math.log1p(-q)).sum(axis=1)          # every bit at rate q
    own = np.where(Y, math.log(p) - math.log(q), math.log1p(-p) - math.log1p(-q))  # bit x at p
    M = np.exp(logq[None, :] + own.T)
    return FiniteRandomizer(M, label=label)


def symmetric_unary_encoding(k: int, eps0: float) -> FiniteRandomizer:
    """Basic RAPPOR: p = e^(eps0/2) / (e^(eps0/2) + 1), q = 1 - p (eps0 in total).

    Examples
    --------
    >>> from accountant.core.catalogue import symmetric_unary_encoding
    >>> print(round(symmetric_unary_encoding(3, 2.0).eps0, 9))
    2.0
    """
    e = check_eps0(eps0)
    p = math.exp(e / 2) / (math.exp(e / 2) + 1.0)
    return unary_encoding(k, p, 1.0 - p, label="symmetric-unary-encoding")


def optimized_unary_encoding(k: int, eps0: float) -> FiniteRandomizer:
    """OUE: p = 1/2, q = 1/(e^eps0 + 1).

    Examples
    --------
    >>> from accountant.core.catalogue import optimized_unary_encoding
    >>> print(round(optimized_unary_encoding(3, 1.0).eps0, 9))
    1.0
    """
    e = check_eps0(eps0)
    return unary_encoding(k, 0.5, 1.0 / (math.exp(e) + 1.0), label="oue")


def local_hashing(k: int, eps0: float, g: Optional[int] = None) -> FiniteRandomizer:
    """Local hashing with a uniformly random hash function [k] -> [g] (all g^k of them; the
    report is the function and a g-ary randomized response of the hashed value).  g = 2 is
    binary local hashing; the default g = round(e^eps0) + 1 is OLH's.

    Examples
    --------
    >>> from accountant.core.catalogue import local_hashing
    >>> print(local_hashing(3, 1.0, 2).describe())
    local-hashing(g=2): 3 inputs x 16 outputs, eps0 = 1, blanket gamma = 0.653412
    """
    import numpy as np

    k, e = check_k(k), check_eps0(eps0)
    E = math.exp(e)
    g = int(round(E)) + 1 if g is None else g
    if isinstance(g, bool) or not isinstance(g, (int, np.integer)) or g < 2:
        raise ValueError(f"g must be an integer >= 2, got {g!r}")
    hashes = g ** k
    _cells(k, hashes * g, "local hashing")
    H = np.array(list(itertools.product(range(g), repeat=k)), dtype=np.int64)   # hashes x k
    hit = H.T[:, :, None] == np.arange(g)[None, None, :]                         # k x hashes x g
    M = np.where(hit, E / (E + g - 1), 1.0 / (E + g - 1)) / hashes
    return FiniteRandomizer(M.reshape(k, hashes * g), label=f"local-hashing(g={g})")


#: command-line name -> (builder, the parameters it takes besides k and eps0)
CATALOGUE = {
    "krr": (krr, ()),
    "hadamard-response": (hadamard_response, ()),
    "subset-selection": (subset_selection, ("size",)),
    "symmetric-unary-encoding": (symmetric_unary_encoding, ()),
    "rappor": (symmetric_unary_encoding, ()),
    "oue": (optimized_unary_encoding, ()),
    "local-hashing": (local_hashing, ("g",)),
}


def catalogue_randomizer(name: str, k: int, eps0: float, **kw) -> FiniteRandomizer:
    """The catalogue member ``name`` (a key of :data:`CATALOGUE`) with k inputs and eps0.

    Examples
    --------
    >>> from accountant.core.catalogue import catalogue_randomizer
    >>> print(catalogue_randomizer("hadamard-response", 7, 1.0).describe())
    hadamard-response: 7 inputs x 8 outputs, eps0 = 1, blanket gamma = 0.653412
    """
    if name not in CATALOGUE:
        raise ValueError(f"randomizer must be one of {', '.join(sorted(CATALOGUE))}, got {name!r}")
    build, extra = CATALOGUE[name]
    unknown = set(kw) - set(extra)
    if unknown:
        raise ValueError(f"{name} takes no parameter {', '.join(sorted(unknown))}")
    return build(k, eps0, **{a: v for a, v in kw.items() if v is not None})
