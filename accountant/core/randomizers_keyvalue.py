"""The key-value baselines of the seed paper's Section 8 as parameter types: PCKV-GRR, PCKV-UE,
PCKV-AGRR and PrivKV on ``d`` keys with ``s`` key-value pairs per user (their laws: docs/proved.md,
"Key-value baselines"; the registry entries: :mod:`accountant.core.params`)."""
from __future__ import annotations

from dataclasses import dataclass, field

from accountant.core.randomizers import GenericLDP, _check_int  # the types' one integer check


@dataclass(frozen=True)
class _KeyValueParams(GenericLDP):
    """A key-value baseline of Wang et al. (Section 8) on ``d`` keys, ``s`` key-value pairs per
    user (values +-1), eps0-LDP as a whole: it is accounted by the generic eps0-LDP laws it
    inherits and, where registered, the blanket of its own randomizer (docs/proved.md, "Key-value
    baselines").  The budget split and the padding are those of :mod:`mechanisms.baselines` with
    its defaults (no dummy pairs: padding length ``ell = s``)."""

    d: int = 2
    s: int = 1

    def __post_init__(self) -> None:
        GenericLDP.__post_init__(self)
        d = _check_int("d", self.d, 1)
        s = _check_int("s", self.s, 1)
        if s > d:
            raise ValueError(f"s must satisfy 1 <= s <= d = {d}, got s = {s}")
        object.__setattr__(self, "d", d)
        object.__setattr__(self, "s", s)


@dataclass(frozen=True)
class PCKVGRRParams(_KeyValueParams):
    """PCKV-GRR (Gu et al., USENIX Security 2020): one of the user's s pairs sampled uniformly,
    then GRR on the key with eps1 = ln((e^eps0 + 1)/2) and RR on the value with eps2 = eps0 (the
    allocation of :class:`mechanisms.baselines.PCKVGRR`).  With it the pair perturbation is
    2d-ary randomized response over the 2d key-value pairs at eps0 (docs/proved.md).

    Examples
    --------
    >>> from accountant.core.randomizers_keyvalue import PCKVGRRParams
    >>> PCKVGRRParams(2.0, d=4, s=2).name
    'pckv-grr'
    """

    name: str = field(default="pckv-grr", init=False)

    def __post_init__(self) -> None:
        _KeyValueParams.__post_init__(self)
        if self.d < 2:
            raise ValueError(f"d must be an integer >= 2 for PCKV-GRR (GRR needs two keys), got {self.d}")


@dataclass(frozen=True)
class PCKVAGRRParams(_KeyValueParams):
    """PCKV-AGRR (Gu et al., USENIX Security 2020, with amplification by sampling): PCKV-GRR whose
    pair perturbation runs at eps' = ln(s (e^eps0 - 1) + 1), so that the user (one of its s pairs
    sampled uniformly) is eps0-LDP (the allocation of :class:`mechanisms.baselines.PCKVAGRR`).  The
    whole randomizer then reports each of the user's s pairs w.p. e^eps0 / Omega and every other of
    the 2d pairs w.p. 1 / Omega, Omega = s e^eps0 + 2d - s (docs/proved.md).

    Examples
    --------
    >>> from accountant.core.randomizers_keyvalue import PCKVAGRRParams
    >>> PCKVAGRRParams(2.0, d=4, s=2).name
    'pckv-agrr'
    """

    name: str = field(default="pckv-agrr", init=False)

    def __post_init__(self) -> None:
        _KeyValueParams.__post_init__(self)
        if self.d < 2:
            raise ValueError(f"d must be an integer >= 2 for PCKV-AGRR (GRR needs two keys), got {self.d}")


@dataclass(frozen=True)
class PCKVUEParams(_KeyValueParams):
    """PCKV-UE (Gu et al., USENIX Security 2020): one of the user's s pairs sampled uniformly,
    then the unary encoding in {-1, 0, 1}^d with a = 1/2, b = 1/(e^eps1 + 1), eps1 =
    ln((e^eps0 + 1)/2), eps2 = eps0 (the allocation of :class:`mechanisms.baselines.PCKVUE`).

    Examples
    --------
    >>> from accountant.core.randomizers_keyvalue import PCKVUEParams
    >>> PCKVUEParams(2.0, d=4, s=2).name
    'pckv-ue'
    """

    name: str = field(default="pckv-ue", init=False)


@dataclass(frozen=True)
class PrivKVParams(_KeyValueParams):
    """PrivKV (Ye et al., IEEE S&P 2019), one round: a key j sampled uniformly from [d] (not
    from the user's pairs), its value perturbed with eps2 = eps0/2 and its presence with eps1 =
    eps0/2 (the defaults of :class:`mechanisms.baselines.PrivKV`); report (j, r), r in
    {-1, 0, +1}.

    Examples
    --------
    >>> from accountant.core.randomizers_keyvalue import PrivKVParams
    >>> PrivKVParams(2.0, d=4, s=2).name
    'privkv'
    """

    name: str = field(default="privkv", init=False)
