"""The catalogue of frequency oracles: the matrices, re-exported from
:mod:`accountant.core.catalogue` (one implementation, which the accountant's command line uses
too), and their exact frequency-estimation errors.

Every member is a *support* oracle: a report y supports a set of values (k-RR: its value;
Hadamard response: the values owning y; subset selection: the subset; unary encoding: the
bits set; local hashing: the values the reported hash sends to the reported bucket).  The
count estimate ``(C_j - n q) / (p - q)``, with ``C_j`` the reports supporting j, is unbiased,
where ``p = P[y supports x | x]`` and ``q = P[y supports j | x != j]`` (the same for every
j != x here): :func:`support_rates` gives (p, q) in closed form, :func:`support_matrix` the
supports, and :func:`mechanisms.frequency_mse` the exact variance of the estimates.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from accountant.core.catalogue import (  # noqa: F401  (re-exported)
    CATALOGUE,
    bit_patterns,
    catalogue_randomizer,
    check_eps0,
    check_k,
    hadamard_matrix,
    hadamard_response,
    krr,
    local_hashing,
    optimized_unary_encoding,
    subset_selection,
    subset_size,
    symmetric_unary_encoding,
    unary_encoding,
)
from mechanisms.randomizers.frequency_oracles import frequency_mse, olh_rates, oue_rates


def _comb(a: int, b: int) -> int:
    """C(a, b), 0 outside 0 <= b <= a."""
    return math.comb(a, b) if 0 <= b <= a else 0


def _krr_rates(k: int, e: float, kw: dict) -> tuple[float, float]:
    E = math.exp(e)
    return E / (E + k - 1), 1.0 / (E + k - 1)


def _hadamard_rates(k: int, e: float, kw: dict) -> tuple[float, float]:
    E = math.exp(e)
    return E / (E + 1.0), 0.5


def _subset_rates(k: int, e: float, kw: dict) -> tuple[float, float]:
    E = math.exp(e)
    w = subset_size(k, e, kw.get("size"))
    z = _comb(k - 1, w - 1) * E + _comb(k - 1, w)
    return _comb(k - 1, w - 1) * E / z, (_comb(k - 2, w - 2) * E + _comb(k - 2, w - 1)) / z


def _symmetric_rates(k: int, e: float, kw: dict) -> tuple[float, float]:
    p = math.exp(e / 2) / (math.exp(e / 2) + 1.0)
    return p, 1.0 - p


def _krr_support(R, k: int, eps0: float, kw: dict) -> np.ndarray:
    return np.eye(k, dtype=bool)


def _hadamard_support(R, k: int, eps0: float, kw: dict) -> np.ndarray:
    return (hadamard_matrix(R.outputs_count)[1:k + 1] > 0).T


def _subset_support(R, k: int, eps0: float, kw: dict) -> np.ndarray:
    w = subset_size(k, eps0, kw.get("size"))
    S = np.zeros((R.outputs_count, k), dtype=bool)
    for y, sub in enumerate(itertools.combinations(range(k), w)):
        S[y, list(sub)] = True
    return S


def _hashing_support(R, k: int, eps0: float, kw: dict) -> np.ndarray:
    g = kw.get("g") or int(round(math.exp(eps0))) + 1
    H = np.array(list(itertools.product(range(g), repeat=k)), dtype=np.int64)   # hashes x k
    return (H[:, None, :] == np.arange(g)[None, :, None]).reshape(-1, k)


# each member's closed forms, by its builder (so that an alias of the catalogue, as
# ``rappor`` for ``symmetric-unary-encoding``, has its member's): (p, q), and the supports
_FORMS = {
    krr: (_krr_rates, _krr_support),
    hadamard_response: (_hadamard_rates, _hadamard_support),
    subset_selection: (_subset_rates, _subset_support),
    symmetric_unary_encoding: (_symmetric_rates, lambda R, k, eps0, kw: bit_patterns(k)),
    optimized_unary_encoding: (lambda k, e, kw: oue_rates(e), lambda R, k, eps0, kw: bit_patterns(k)),
    local_hashing: (lambda k, e, kw: olh_rates(e, kw.get("g")), _hashing_support),
}


def _forms(name: str) -> tuple:
    """The closed forms of the member ``name`` (ValueError naming the members otherwise)."""
    if name not in CATALOGUE:
        raise ValueError(f"randomizer must be one of {', '.join(sorted(CATALOGUE))}, got {name!r}")
    return _FORMS[CATALOGUE[name][0]]


def support_rates(name: str, k: int, eps0: float, **kw) -> tuple[float, float]:
    """``(p, q)`` of the catalogue member ``name`` (module docstring), in closed form; E = e^eps0.

    k-RR: E / (E + k - 1), 1 / (E + k - 1).  Hadamard response: E / (E + 1), 1/2 (two rows of
    the Hadamard matrix other than the first share K/4 of their +1 entries).  Subset
    selection with size w: p = C(k-1, w-1) E / z, q = (C(k-2, w-2) E + C(k-2, w-1)) / z with
    z = C(k-1, w-1) E + C(k-1, w).  Unary encoding: its (p, q) (symmetric: p = e^(eps0/2) /
    (e^(eps0/2) + 1), q = 1 - p; OUE: 1/2, 1/(E + 1)).  Local hashing with g buckets and a
    uniformly random hash: E / (E + g - 1), 1/g.

    Examples
    --------
    >>> from mechanisms.randomizers.catalogue import support_rates
    >>> p, q = support_rates("hadamard-response", 7, 1.0)
    >>> print(f"{p:.6f}", q)
    0.731059 0.5
    """
    rates = _forms(name)[0]
    k, e = check_k(k), check_eps0(eps0)
    return rates(k, e, kw)


def support_matrix(name: str, k: int, eps0: float, **kw) -> np.ndarray:
    """``S[y, j]``: whether output y (a column of the member's matrix, in its order) supports
    value j; outputs x k booleans."""
    R = catalogue_randomizer(name, k, eps0, **kw)
    return _forms(name)[1](R, R.k, eps0, kw)


def catalogue_mse(name: str, n: int, k: int, eps0: float, **kw) -> float:
    """Exact summed MSE of the member's frequency estimates for n users, each holding one of
    the k values (:func:`mechanisms.frequency_mse` at :func:`support_rates`)."""
    return frequency_mse(n, k, *support_rates(name, k, eps0, **kw))
