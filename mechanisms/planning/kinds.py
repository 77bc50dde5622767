"""The planner's candidate kinds: one record per randomizer it plans (:class:`Kind`: its name
and label, what its t is and which t are admissible, whether it is a frequency oracle or a
catalogue matrix, its rates and report size, its words in the plan's text), the table
:data:`KINDS`, and :func:`planner_kind`, which takes the old names too.

The code of the planner asks the record (``kind.oracle``, ``kind.matrix``, ``kind.t_rule``,
...) instead of comparing names: a new kind is one more record.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional

from mechanisms.analysis.common import COCO_T, COLLISION_T, T_MAX, TRule
from mechanisms.analysis.errors import HASHED, HashedErrors
from mechanisms.randomizers.catalogue import subset_size, support_rates
from mechanisms.randomizers.coco import CoCoParams
from mechanisms.randomizers.collision import CollisionParams
from mechanisms.randomizers.frequency_oracles import OLH_SEED_BITS, olh_rates, oue_rates, report_bits

#: OLH's hash range g, screened as Collision's t: g >= 2
OLH_G = TRule(">= 2", lambda s: 2, 1, T_MAX)
#: the hash seed of a Collision / CoCo report
HASHED_SEED_BITS = 64


def _domain(d: int, eps0: float) -> int:
    """The candidate's t of a kind whose t is the domain size d."""
    return int(d)


@dataclass(frozen=True)
class Kind:
    """One kind of candidate of the planner.

    ``name``: its name in ``mechanisms=`` / ``--mechanisms``, the JSON and the pages (a
    catalogue member's is the catalogue's name); ``aliases``: older names, still accepted;
    ``label``: its name in the text.  ``size``: what the candidate's ``t`` is called in the
    text (``"t"``, ``"g"``, ``"size"``; empty: t is the domain size d, not printed).
    ``t_rule``: the admissible t, screened (None: no t to screen, one point); ``errors``:
    Collision's or CoCo's error formulas (None: a frequency oracle, whose MSE is the exact
    variance of its support estimator at ``rates``), ``params``: their simulator's
    parameter type (its ``report_bits`` is the report's size).  ``oracle``: one value of [d] per user,
    frequency estimates only, one round, the proved bound.  ``default``: planned when no
    mechanisms are named (an oracle: where oracles apply).  ``catalogue``, ``options``: the
    catalogue member (:mod:`mechanisms.randomizers.catalogue`) and its parameters;
    ``matrix``: planned as that member's probability matrix (:mod:`mechanisms.planning.finite`;
    otherwise on the accountant's named path, ``make_params(name, ...)``);
    ``outputs(d, eps0)``: its number of outputs.  ``rates(d, eps0, t)``: (p, q) of its support
    estimator; ``bits(d, eps0, t)``: the bits of one report, ``seed_bits`` of them a hash
    seed; ``report_note``: words after the report's size; ``t_of(d, eps0)``: the candidate's t
    when it is not screened; ``use``: the randomizer in the plan's sentence (a format string
    of ``label``, ``describe``, ``t`` and ``bits``).  ``baseline``: a key-value baseline of the
    paper's Section 8 (:mod:`mechanisms.baselines`), planned for one round on its own proved
    accounting as the equal-central comparison does it
    (:func:`mechanisms.planning.central.own_eps0`), its errors on the default data;
    ``estimates``: the estimates it gives.

    Examples
    --------
    >>> from mechanisms.planning.kinds import planner_kind
    >>> k = planner_kind("rappor")
    >>> k.name, k.matrix, k.describe(16), k.report(16)
    ('symmetric-unary-encoding', True, 'symmetric unary encoding', '16 bits')
    >>> planner_kind("olh").describe(8), planner_kind("collision").report(74)
    ('OLH g = 8', '64-bit hash seed + 10 bits = 74 bits')
    """

    name: str
    label: str
    size: str = ""
    t_rule: Optional[TRule] = None
    errors: Optional[HashedErrors] = None
    params: Optional[type] = None
    oracle: bool = False
    default: bool = False
    catalogue: str = ""
    options: tuple = ()
    matrix: bool = False
    outputs: Optional[Callable] = None
    rates: Optional[Callable] = None
    bits: Optional[Callable] = None
    seed_bits: int = 0
    report_note: str = ""
    t_of: Callable = _domain
    use: str = "{describe} over [d] (reports of {bits} bits)"
    aliases: tuple = ()
    baseline: bool = False
    estimates: tuple = ("mean", "frequency")

    def describe(self, t: int) -> str:
        """The randomizer and its size, e.g. ``Collision t = 442``, ``OLH g = 8``, ``OUE``."""
        return f"{self.label} {self.size} = {t}" if self.size else self.label

    def sized(self, t: int) -> str:
        """``t = 525, `` / ``g = 8, `` / nothing (t = d)."""
        return f"{self.size} = {t}, " if self.size else ""

    def report(self, bits: int) -> str:
        """What one user sends, e.g. ``62-bit hash seed + 3 bits = 65 bits`` (OLH)."""
        if bits is None:
            return "n/a"
        if self.seed_bits:
            return f"{self.seed_bits}-bit hash seed + {bits - self.seed_bits} bits = {bits} bits"
        return f"{bits} bits{self.report_note}"


def _member(name: str, label: str, outputs: Callable, matrix: bool = True, options: tuple = (),
            **fields) -> Kind:
    """A catalogue member as a frequency oracle: its rates from the catalogue's closed form, one
    report ceil(log2 outputs) bits."""
    kw = dict(options)
    return Kind(name, label, oracle=True, catalogue=name, options=options, matrix=matrix, outputs=outputs,
                rates=lambda d, e, t: support_rates(name, d, e, **kw),
                bits=lambda d, e, t: max(1, math.ceil(math.log2(outputs(d, e)))), **fields)


KINDS = {kind.name: kind for kind in (
    Kind("collision", "Collision", "t", COLLISION_T, HASHED["collision"], CollisionParams, default=True,
         seed_bits=HASHED_SEED_BITS, use="{label} with t = {t}"),
    Kind("coco", "CoCo", "t", COCO_T, HASHED["coco"], CoCoParams, default=True,
         seed_bits=HASHED_SEED_BITS, use="{label} with t = {t}"),
    # frequency oracles (OLH, OUE: Wang, Blocki, Li, Jha, USENIX Security 2017; k-RR; the
    # catalogue): one value of [d] per user, frequency estimates only, one round, proved bound
    Kind("olh", "OLH", "g", OLH_G, oracle=True, default=True,
         rates=lambda d, e, g: olh_rates(e, g), bits=lambda d, e, g: report_bits("olh", d, e, g),
         seed_bits=OLH_SEED_BITS, use="OLH (optimized local hashing) with g = {t} (reports of {bits} bits)"),
    Kind("oue", "OUE", oracle=True, default=True, rates=lambda d, e, t: oue_rates(e),
         bits=lambda d, e, t: report_bits("oue", d, e), report_note=" (one per value)",
         use="OUE (optimized unary encoding, reports of k = {t} bits)"),
    _member("krr", "k-RR", _domain, matrix=False),  # on the accountant's named path
    # the catalogue planned as probability matrices over [d] (mechanisms.planning.finite)
    _member("hadamard-response", "Hadamard response", lambda d, e: 1 << d.bit_length()),
    _member("subset-selection", "subset selection", lambda d, e: math.comb(d, subset_size(d, e)),
            size="size", t_of=subset_size),
    _member("symmetric-unary-encoding", "symmetric unary encoding", lambda d, e: 2 ** d,
            aliases=("rappor",)),
    _member("local-hashing", "local hashing (g = 2)", lambda d, e: 2 ** d * 2, options=(("g", 2),),
            aliases=("blh",)),  # every hash [d] -> [2], then the reported bit
    # the key-value baselines of the paper's Section 8, on s-sparse data like Collision and CoCo
    # (planned when named: mechanisms.planning.screen.baseline_names)
    *(Kind(name, label, baseline=True, use="{label} (a key-value baseline of the paper's Section 8)",
           estimates=("mean",) if name == "succinct" else ("mean", "frequency"))
      for name, label in (("privkv", "PrivKV"), ("pckv-ue", "PCKV-UE"), ("pckv-grr", "PCKV-GRR"),
                          ("pckv-agrr", "PCKV-AGRR"), ("succinct", "SUCCINCT"))),
)}
"""The planner's candidate kinds, by name, in the order of the menus and the messages."""

ALIASES = {alias: kind.name for kind in KINDS.values() for alias in kind.aliases}
"""Older names of the kinds (``rappor``, ``blh``), accepted for the name they stand for."""


def canonical(name) -> Optional[str]:
    """The kind's name for ``name`` (a name or an alias), or None for an unknown one."""
    if not isinstance(name, str):
        return None
    name = ALIASES.get(name, name)
    return name if name in KINDS else None


def planner_kind(name) -> Kind:
    """The record of the kind ``name`` (a name or an alias; ValueError naming the kinds otherwise)."""
    found = canonical(name)
    if found is None:
        raise ValueError(f"mechanism must be one of {', '.join(KINDS)}, got {name!r}")
    return KINDS[found]
