"""A deployment as a value: :class:`Deployment` holds the features of a shuffled deployment as it
is run (colluders, a population known as n >= N, dummies, user sampling with its neighbouring
relation, several reports per user, mixed randomizers, rounds), :data:`COMBINES` is the one table
of which features combine (with the reason where they do not), checked by :func:`refusal`.

The library (:class:`Deployment`), the command lines and the pages ask the same table in their
own words (``label``: a flag, a widget's name), so they refuse the same combinations for the same
reason. The proofs are in :mod:`accountant.accounting.deployments` and
:mod:`accountant.accounting.deployment_groups`; the one dispatch from a deployment to its proof
is :func:`accountant.accounting.deployment_proof.deployed_epsilon`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional

from accountant.core import limits as L
from accountant.core.params import MECHANISM_SPECS, make_params, validate_n

__all__ = ["Deployment", "FEATURES", "COMBINES", "INVERSE_REFUSED", "NEIGHBOURS", "NOT_PROVED", "refusal",
           "conflicts", "inverse_refusal", "supports", "parse_mix", "MIX_KEYS", "MAX_REPORTS"]

#: the features of a deployment, in the order they are named (a feature is chosen when its field
#: is not the plain deployment's: colluders > 0, n_min, dummies > 0, sampling, reports (given: r >= 1
#: reports per user), a mix, rounds > 1)
FEATURES = ("colluders", "n_min", "dummies", "sampling", "reports", "mix", "rounds")
NEIGHBOURS = ("substitute", "add-remove")
MAX_REPORTS = 1000
#: the keys of a mix group (:func:`parse_mix`): count, mechanism, eps0 and the mechanism's parameters
MIX_KEYS = ("count", "mechanism", "eps0", "s", "t", "d", "k", "p", "beta", "q", "g", "hash_model")

NOT_PROVED = "the combination is not proved here"
#: which features combine: every pair of :data:`FEATURES` once, None where one proof covers both
#: (docs/deployments.md), else the reason; a refusal names the pair's first feature first
COMBINES = {
    ("mix", "colluders"): NOT_PROVED,
    ("mix", "n_min"): NOT_PROVED,
    ("mix", "dummies"): NOT_PROVED,
    ("mix", "sampling"): NOT_PROVED,
    ("mix", "reports"): NOT_PROVED,
    ("mix", "rounds"): None,  # the round's profile (a) / (b), composed
    ("sampling", "colluders"): NOT_PROVED,
    ("sampling", "n_min"): NOT_PROVED,
    ("sampling", "dummies"): NOT_PROVED,
    ("sampling", "reports"): NOT_PROVED,
    ("sampling", "rounds"): None,  # a fresh sample each round, the sampled profile composed
    ("reports", "colluders"): NOT_PROVED,
    ("reports", "n_min"): NOT_PROVED,
    ("reports", "dummies"): NOT_PROVED,
    ("reports", "rounds"): None,  # fresh reports each round, (i) / (ii) composed
    ("colluders", "n_min"): None,  # the bound at n_eff = n - c + m users (monotone in n)
    ("colluders", "dummies"): None,
    ("colluders", "rounds"): None,
    ("n_min", "dummies"): None,
    ("n_min", "rounds"): None,
    ("dummies", "rounds"): None,
}
#: the features the inverse (the smallest number of users, ``users``) does not search over, and why
INVERSE_REFUSED = {
    "n_min": "the smallest N answered is itself a population's lower bound (the proved eps_c is "
             "non-increasing in n, so every n >= N meets the target): give no n >= N",
    "mix": "the groups' counts fix the number of users, so there is none to search: compute the mix's "
           "eps_c instead (epsilon with the mix)",
}
#: the features whose proofs need an eps0-LDP randomizer given by its eps0 (the generic bounds at eps0)
NEEDS_LDP = ("sampling", "reports")


def _name(feature: str) -> str:
    return feature


def _and(words: list) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def conflicts(chosen) -> list:
    """(first, second, reason) of every pair of the ``chosen`` features that does not combine,
    in the order of :data:`COMBINES`."""
    chosen = set(chosen)
    bad = [f for f in chosen if f not in FEATURES]
    if bad:
        raise ValueError(f"feature must be one of {', '.join(FEATURES)}, got {sorted(bad)}")
    return [(a, b, why) for (a, b), why in COMBINES.items() if why is not None and a in chosen and b in chosen]


def refusal(chosen, label: Callable[[str], str] = _name) -> Optional[str]:
    """One line refusing the ``chosen`` features where two do not combine (None where all do):
    the first such feature with every feature it does not combine with, and the reason, each
    feature named by ``label`` (the command line's flag, the page's widget).

    >>> from accountant.accounting.deployment import refusal
    >>> refusal(["sampling", "colluders", "dummies"])
    'sampling with colluders and dummies: the combination is not proved here'
    >>> refusal(["colluders", "dummies", "rounds"]) is None
    True
    """
    found = conflicts(chosen)
    if not found:
        return None
    first, _, why = found[0]
    others = [label(b) for a, b, w in found if a == first and w == why]
    return f"{label(first)} with {_and(others)}: {why}"


def inverse_refusal(chosen, label: Callable[[str], str] = _name) -> Optional[str]:
    """:func:`refusal`, and for the inverse (the smallest number of users) the features it does
    not search over (:data:`INVERSE_REFUSED`), one line."""
    for f in FEATURES:
        if f in set(chosen) and f in INVERSE_REFUSED:
            return f"{label(f)}: {INVERSE_REFUSED[f]}"
    return refusal(chosen, label)


def _ldp(params) -> bool:
    """An eps0-LDP randomizer given by its eps0 (the registry's ``ldp``; a finite matrix: its own eps0)."""
    spec = MECHANISM_SPECS.get(getattr(params, "name", None))
    return spec.ldp if spec is not None else True


def supports(params, chosen, label: Callable[[str], str] = _name) -> Optional[str]:
    """Why the proofs of the ``chosen`` features do not cover ``params`` (one line), or None."""
    for f in NEEDS_LDP:
        if f in set(chosen) and params is not None and not _ldp(params):
            return (f"{label(f)} needs an eps0-LDP randomizer given by its eps0 (mechanism "
                    f"'{params.name}' is not supported)")
    return None


def _count(name: str, v, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v != int(v) \
            or not lo <= v <= hi:
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {v!r}")
    return int(v)


@dataclass(frozen=True)
class Deployment:
    """How a shuffled release is run, beside its randomizer and its n users: ``colluders`` users
    reveal their reports, ``n_min`` (n is only a lower bound N on the population), ``dummies``
    extra reports, Poisson user ``sampling`` at rate q with its ``neighbours`` relation
    (``"substitute"``, the default, or ``"add-remove"``), r ``reports`` per user (None: one report,
    not as a feature: the plain bound; 1: one report through the reports' proof), a ``mix`` of groups
    ((count, parameters), as :func:`parse_mix` returns; the groups give n), over ``rounds`` rounds.
    Validated at construction, the combination against :data:`COMBINES` (ValueError naming the
    field or the features); the n-dependent limits by :meth:`check`.

    >>> from accountant import Deployment
    >>> Deployment(sampling=0.1, rounds=30).features
    ('sampling', 'rounds')
    >>> Deployment(sampling=0.1, colluders=5)
    Traceback (most recent call last):
    ...
    ValueError: sampling with colluders: the combination is not proved here
    """

    colluders: int = 0
    n_min: bool = False
    dummies: int = 0
    sampling: Optional[float] = None
    neighbours: Optional[str] = None
    reports: Optional[int] = None
    mix: Optional[tuple] = None
    rounds: int = 1

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "colluders", _count("colluders", self.colluders, 0, L.MAX_N - 1))
        if not isinstance(self.n_min, bool):
            raise ValueError(f"n_min must be True or False (n is only a lower bound N), got {self.n_min!r}")
        set_(self, "dummies", _count("dummies", self.dummies, 0, L.MAX_N))
        q = self.sampling
        if q is not None:
            if isinstance(q, bool) or not isinstance(q, (int, float)) or not (0.0 < q <= 1.0):
                raise ValueError(f"sampling must be a probability q in (0, 1], got {q!r}")
            set_(self, "sampling", float(q))
        if self.neighbours is not None:
            if self.neighbours not in NEIGHBOURS:
                raise ValueError(f"neighbours must be one of {', '.join(NEIGHBOURS)}, got {self.neighbours!r}")
            if q is None:
                raise ValueError("neighbours applies only with sampling")
        if self.reports is not None:
            set_(self, "reports", _count("reports", self.reports, 1, MAX_REPORTS))
        if self.mix is not None:
            set_(self, "mix", _check_groups(self.mix))
        set_(self, "rounds", L.check_rounds(self.rounds))
        why = refusal(self.features)
        if why:
            raise ValueError(why)

    @property
    def features(self) -> tuple:
        """The chosen features, in the order of :data:`FEATURES`."""
        on = {"colluders": self.colluders > 0, "n_min": self.n_min, "dummies": self.dummies > 0,
              "sampling": self.sampling is not None, "reports": self.reports is not None, "mix": self.mix is not None,
              "rounds": self.rounds > 1}
        return tuple(f for f in FEATURES if on[f])

    @property
    def relation(self) -> Optional[str]:
        """The neighbouring relation of the sampled deployment (None without sampling)."""
        return None if self.sampling is None else self.neighbours or "substitute"

    @property
    def proof(self) -> str:
        """Which proof covers it: ``"mix"``, ``"sampling"``, ``"reports"`` or ``"shift"`` (the
        bound at n - colluders + dummies users, valid for every n >= N; the plain deployment)."""
        return next((f for f in ("mix", "sampling", "reports") if f in self.features), "shift")

    def check(self, n) -> int:
        """n checked against the deployment (ValueError naming the field): colluders at most
        n - 1, n - colluders + dummies and n reports at most 1e10; a mix gives n (n None or
        its total). Returns n."""
        if self.mix is not None:
            total = sum(c for c, _ in self.mix)
            if n is not None and n != total:
                raise ValueError(f"n: the mix's groups give n = {total}, got {n!r}")
            return total
        n = validate_n(n)
        if self.colluders > n - 1:
            raise ValueError(f"colluders must be an integer in [0, {n - 1}], got {self.colluders}")
        if n - self.colluders + self.dummies > L.MAX_N:
            raise ValueError(f"dummies: n - colluders + dummies must be at most 1e10, got "
                             f"{n - self.colluders + self.dummies}")
        if self.reports is not None and n * self.reports > L.MAX_N:
            raise ValueError(f"reports: n * r must be at most 1e10, got {n * self.reports:g}")
        return n

    def as_dict(self) -> dict:
        """The fields as JSON values (a mix as its groups' count, mechanism and eps0)."""
        mix = None if self.mix is None else [{"count": c, "mechanism": p.name, "eps0": p.eps0} for c, p in self.mix]
        return {"colluders": self.colluders, "n_min": self.n_min, "dummies": self.dummies, "sampling": self.sampling,
                "neighbours": self.relation, "reports": self.reports, "mix": mix, "rounds": self.rounds}


def _check_groups(groups) -> tuple:
    """A mix as :func:`parse_mix` returns it (a list of (count, parameters)), as a tuple."""
    if not isinstance(groups, (list, tuple)) or not groups or not all(
            isinstance(g, tuple) and len(g) == 2 and not isinstance(g[0], bool) and isinstance(g[0], int)
            and g[0] >= 1 and getattr(g[1], "eps0", None) is not None for g in groups):
        raise ValueError("mix: a list of (count, parameters) groups as parse_mix returns, e.g. "
                         "parse_mix([{\"count\": 5000, \"mechanism\": \"rr\", \"eps0\": 1}, ...])")
    if sum(c for c, _ in groups) <= 1:
        raise ValueError(f"mix: the counts must sum to at least 2 users, got {sum(c for c, _ in groups)}")
    return tuple(groups)


def parse_mix(groups, name: str = "mix") -> list:
    """[(count, Params)] from a list of {count, mechanism, eps0, ...}; ValueError naming
    ``name`` and the group on a bad group, before any work."""
    if not isinstance(groups, list) or not groups:
        raise ValueError(f"{name}: a JSON list of groups {{count, mechanism, eps0, ...}} is needed")
    if len(groups) > L.MAX_MIX_GROUPS:  # the lower bound pairs every group with every other
        raise ValueError(f"{name}: {len(groups):,} groups, more than the limit of {L.MAX_MIX_GROUPS}; "
                         "merge the groups that share a randomizer (their counts add)")
    out = []
    for i, g in enumerate(groups, 1):
        if not isinstance(g, dict):
            raise ValueError(f"{name}: group {i} must be an object {{count, mechanism, eps0, ...}}")
        bad = sorted(set(g) - set(MIX_KEYS))
        if bad:
            raise ValueError(f"{name}: group {i}: unknown key(s) {', '.join(bad)} (allowed: {', '.join(MIX_KEYS)})")
        for key in ("count", "mechanism"):
            if key not in g:
                raise ValueError(f"{name}: group {i}: missing '{key}'")
        c = g["count"]
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not math.isfinite(c) or c != int(c) \
                or not 1 <= c <= 10 ** 10:
            raise ValueError(f"{name}: group {i}: count must be an integer in [1, 1e10], got {c!r}")
        kw = {k: v for k, v in g.items() if k not in ("count", "mechanism", "eps0")}
        try:
            p = make_params(g["mechanism"], g.get("eps0"), **kw)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{name}: group {i}: {exc}") from None
        if getattr(p, "eps0", None) is None:
            raise ValueError(f"{name}: group {i}: needs eps0")
        out.append((int(c), p))
    total = sum(c for c, _ in out)
    if total <= 1:
        raise ValueError(f"{name}: the counts must sum to at least 2 users, got {total}")
    if total > 10 ** 10:
        raise ValueError(f"{name}: the counts must sum to at most 1e10, got {total}")
    return out
