"""What a bound is, in words: the one source of every label a surface prints.

A bound's kind and proof status are data on its :class:`~accountant.bounds.registry.BoundSpec`
(``kind``, ``proved_for``); :func:`kind_label` turns them into the words, the relation
(``<=`` for an upper bound, ``>=`` for a lower one) and the rounding direction that the
command line (``epsilon``, ``delta``, ``compare``, ``local-epsilon``), the JSON and the tables
print.  No surface writes "proved upper bound" or "certified lower bound" itself.

Kinds (``Label.kind``):

* ``"proved upper"``: an upper bound on eps_c proved for the mechanism as implemented (binary
  RR's ``search``: the upper end of a certified bracket over every dataset, wider than 1e-6);
* ``"exact"``: a proved upper bound certified to equal the true eps_c (within its search's
  bracket of at most 1e-6 relative; binary randomized response, :mod:`accountant.bounds.binary_exact`);
* ``"not proved upper"``: a bound stated as an upper bound whose proof does not cover the
  mechanism (an erratum, a stated range), shown for comparison;
* ``"paper"``: the paper's Theorem 5 value, a claimed upper bound that is not proved;
* ``"certified lower"``: the exact divergence of the shuffled outputs on named datasets (data
  processing), a lower bound on the eps_c of what ``Label.scope`` names: the mechanism, the
  worst hash family, or the worst randomizer of a class (variation-ratio, generic);
* ``"not certified lower"``: a lower bound claimed by a paper whose claim is not certified
  here (Theorem 6, for the hash family of its proof);
* ``"not applicable"``: the bound is not available for the mechanism (no number is printed).

Examples
--------
>>> from accountant.bounds.labels import kind_label
>>> lab = kind_label("lower", "rr")
>>> print(lab.kind, lab.relation, lab.words)
certified lower >= certified lower bound for the mechanism
>>> print(kind_label("lower", "variation-ratio").words)
certified lower bound for the worst randomizer of the class
>>> print(kind_label("clone", "collision").words, kind_label("paper", "collision").relation)
proved upper bound <=
"""
from __future__ import annotations

from dataclasses import dataclass

from accountant.bounds.registry import REGISTRY, resolve_name
from accountant.core.dispatch import parameter_type

# whom a certified lower bound is a lower bound for: the bound's own scope, or (``lower``) the
# scope its mechanism's datasets register (accountant.bounds.laws.lower.LOWER_SCOPE)
_LOWER_SCOPE_DEFAULT = {"lower": "the mechanism", "lower-worst-hash": "the worst hash family"}
# what a proved upper bound adds to its words (binary RR's search: its bracket is wider than exact's 1e-6)
_UPPER_WORDS = {"search": " (every-dataset search, certified bracket)"}

KINDS = ("proved upper", "exact", "not proved upper", "paper", "certified lower", "not certified lower",
         "not applicable")


@dataclass(frozen=True)
class Label:
    """The words of one bound for one mechanism.

    ``kind`` is one of :data:`KINDS`; ``words`` the phrase a text prints after the number;
    ``relation`` ``"<="`` or ``">="``; ``rounding`` the direction a printed value rounds
    (``"up"`` for an upper bound, ``"down"`` for a lower bound, ``None`` for the paper's
    value, printed to nearest); ``certified`` whether the number is a theorem for ``scope``;
    ``scope`` what a lower bound is a lower bound for (None for an upper bound);
    ``short`` a tag for a column or a table row (e.g. ``"certified lower, worst hash family"``).
    """

    name: str
    kind: str
    words: str
    relation: str
    rounding: object
    certified: bool
    scope: object
    short: str

    def as_json(self) -> dict:
        """The fields a ``--json`` output carries beside the number."""
        return {"kind_label": self.kind, "label": self.words, "relation": self.relation,
                "certified": self.certified, **({"lower_scope": self.scope} if self.scope else {})}


def kind_label(name: str, mechanism: str) -> Label:
    """The label of bound ``name`` (a registry name or alias) for ``mechanism``; see the module."""
    spec = REGISTRY[resolve_name(name)]
    if mechanism not in spec.applies_to:
        return Label(spec.name, "not applicable", f"not available for mechanism {mechanism!r}",
                     ">=" if spec.kind == "lower" else "<=", None, False, None, "not applicable")
    proved = spec.proved(mechanism)
    if spec.kind == "paper":
        return Label(spec.name, "paper", "the paper's claimed value, NOT a proved bound", "<=", None,
                     False, None, "paper, not proved")
    if spec.kind == "exact" and proved:
        return Label(spec.name, "exact", "exact eps_c (a proved upper bound equal to the true value)", "<=",
                     "up", True, None, "exact, proved")
    if spec.kind in ("upper", "exact"):
        if proved:
            return Label(spec.name, "proved upper", "proved upper bound" + _UPPER_WORDS.get(spec.name, ""), "<=",
                         "up", True, None, "proved upper")
        return Label(spec.name, "not proved upper", "NOT a proved bound", "<=", "up", False, None,
                     "not proved")
    if spec.kind != "lower":  # pragma: no cover - a new kind must get its words here first
        raise ValueError(f"bound {spec.name!r} has kind {spec.kind!r}, which has no label")
    if not proved:
        return Label(spec.name, "not certified lower",
                     "lower bound claimed for the hash family of the paper's proof, NOT certified",
                     ">=", "down", False, "the hash family of the paper's proof", "lower, not certified")
    scope = _LOWER_SCOPE_DEFAULT.get(spec.name, "the mechanism")
    if spec.name == "lower":
        from accountant.bounds.laws.lower import LOWER_SCOPE  # (the laws: where a lower bound is named)

        scope = LOWER_SCOPE.get(parameter_type(mechanism), scope)
    short_scope = scope.split(" (")[0].replace("the ", "", 1)
    return Label(spec.name, "certified lower", f"certified lower bound for {scope}", ">=", "down", True,
                 scope, f"certified lower, {short_scope}")

