"""What one shuffled round is: ``RoundSpec`` (a local randomizer's parameter object, its n users
and a repeat count, validated at construction), the options of a parameter object, and schedules
of rounds read from JSON.

May import: :mod:`accountant.core`, :mod:`accountant.bounds.finite_lattice` (whether a matrix
that is not pure LDP has the blanket bound its round composes).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import singledispatch
from typing import Optional

from accountant.core.finite import FiniteRandomizer
from accountant.core.limits import MAX_ROUNDS, check_int
from accountant.core.params import (
    MECHANISM_SPECS,
    OPTIONS,
    OLHParams,
    Params,
    make_params,
    mechanism_names,
    mechanism_spec,
    validate_n,
)

ROUND_MECHANISMS = mechanism_names(composes=True)
# an (eps0, delta0)-LDP randomizer's round: FMT21 Theorem 3.8 bounds one round; no profile is composed
NO_APPROXIMATE_ROUNDS = ("delta0: an (eps0, delta0)-LDP randomizer (delta0 > 0) does not compose over rounds here "
                         "(FMT21 Theorem 3.8 bounds one shuffled round; its profile over rounds is not proved in "
                         "the toolkit); compose rounds of an eps0-LDP randomizer (delta0 = 0)")
# every mechanism a round may have: the named ones and "finite" (a matrix, RoundSpec.finite)
ALL_ROUND_MECHANISMS = ROUND_MECHANISMS + ("finite",)
# the options of a variation-ratio round (Wang et al., VLDB 2024), eps0 = ln p
VR_FIELDS = ("p", "beta", "q")


@dataclass(frozen=True, init=False)
class RoundSpec:
    """One shuffled round, ``repeat`` times in a row: n users, each applying the local randomizer
    ``randomizer`` (a parameter object: dp_accounting's ``SelfComposedDpEvent(event, count)``).

    Attributes
    ----------
    randomizer : Params
        The parameter object of a named mechanism whose registry entry composes
        (:data:`ROUND_MECHANISMS`: :class:`accountant.GenericLDP`, :class:`accountant.CollisionParams`,
        :class:`accountant.CoCoParams`, :class:`accountant.KRRParams`, :class:`accountant.OLHParams`,
        :class:`accountant.OUEParams`, :class:`accountant.VariationRatioParams`), or a
        :class:`accountant.FiniteRandomizer` (a matrix; one that is not pure LDP needs its blanket
        bound, which its round composes).  Every option it holds (OLH's g, Collision's d, a
        random hash model) is the round's.
    n : int
        Users (>= 1).
    repeat : int
        How many identical rounds in a row it stands for (1 to ``MAX_ROUNDS``; default 1):
        :func:`accountant.compose_schedule` composes each spec ``repeat`` times.

    The round by its mechanism's name and options is :meth:`named`; the name form
    ``RoundSpec(n, eps0, mechanism="generic", **options)`` (the mechanism's options as keywords,
    ``randomizer=R`` with mechanism ``"finite"``) is kept for existing callers and is the same
    round.  ``mechanism``, ``eps0`` and ``hash_model`` are the randomizer's; an option's value
    reads as an attribute (``spec.k``, ``spec.g``, ``spec.p``: :attr:`options`, None where the
    mechanism does not take it); :meth:`params` is ``randomizer``.

    Examples
    --------
    >>> from accountant import OLHParams, RoundSpec
    >>> RoundSpec(OLHParams(1.0, k=100, g=2), 10_000, repeat=3)
    RoundSpec(randomizer=OLHParams(s=1, eps0=1.0, t=2, d=100, name='olh'), n=10000, repeat=3)
    >>> spec = RoundSpec.named("collision", 100_000, 2.0, s=4)
    >>> print(spec.mechanism, spec.eps0, spec.options, spec == RoundSpec(100_000, 2.0, "collision", s=4))
    collision 2.0 {'s': 4, 't': 36, 'd': None} True
    >>> RoundSpec.named("variation-ratio", 10_000, p=3.0, beta=0.4).q
    3.0
    """

    randomizer: Params
    n: int
    repeat: int = 1

    def __init__(self, *args, **kwargs) -> None:
        head = args[0] if args else kwargs.get("randomizer")
        if (getattr(head, "delta0", None) or 0.0) > 0.0:
            raise ValueError(NO_APPROXIMATE_ROUNDS)
        if _is_params(head):
            randomizer, n, repeat = _fields(*args, **kwargs)
        else:  # the name form RoundSpec(n, eps0, mechanism, ...)
            spec = _name_form(*args, **kwargs)
            randomizer, n, repeat = spec.randomizer, spec.n, spec.repeat
        object.__setattr__(self, "randomizer", _check_randomizer(randomizer))
        object.__setattr__(self, "n", validate_n(n))
        if isinstance(repeat, (str, bytes)):  # a number, not its text (check_int reads the CLI's)
            raise ValueError(f"repeat must be an integer in [1, {MAX_ROUNDS}], got {repeat!r}")
        object.__setattr__(self, "repeat", check_int("repeat", repeat, 1, MAX_ROUNDS))

    @classmethod
    def named(cls, mechanism: str, n: int, eps0: Optional[float] = None, *, repeat: int = 1,
              **options) -> "RoundSpec":
        """The round of the named mechanism ``mechanism`` at ``eps0`` with its ``options`` (the
        keywords of :func:`accountant.make_params`, which builds and validates the randomizer).

        A mechanism whose options fix eps0 (variation-ratio: eps0 = ln p) takes eps0 None, or
        the very eps0 they fix.

        Examples
        --------
        >>> from accountant import RoundSpec
        >>> spec = RoundSpec.named("olh", 1000, 1.0, k=4, g=2)
        >>> print(spec.mechanism, spec.g, spec.k, spec.repeat)
        olh 2 4 1
        """
        entry = mechanism_spec(mechanism)
        if not entry.composes:
            raise ValueError(f"mechanism '{mechanism}' does not compose over rounds (no round profile is proved "
                             f"for it; the rounds' mechanisms: {', '.join(ROUND_MECHANISMS)})")
        if not entry.eps0_given and eps0 is not None:
            try:
                fixed = make_params(mechanism, None, **options)
            except ValueError:  # the options do not fix eps0: make_params takes it
                fixed = None
            if fixed is not None:
                if eps0 != fixed.eps0:
                    raise ValueError(f"eps0 does not apply to mechanism '{mechanism}' (its options fix "
                                     f"eps0 = {fixed.eps0:.6g}), got {eps0!r}")
                return cls(fixed, n, repeat)
        return cls(make_params(mechanism, eps0, **options), n, repeat)

    @classmethod
    def finite(cls, randomizer: FiniteRandomizer, n: int, repeat: int = 1) -> "RoundSpec":
        """A round of n users each applying the finite randomizer ``randomizer``.

        Examples
        --------
        >>> from accountant import RoundSpec
        >>> from accountant.core.catalogue import krr
        >>> spec = RoundSpec.finite(krr(4, 1.0), 10_000)
        >>> print(spec.mechanism, round(spec.eps0, 9))
        finite 1.0
        """
        if not isinstance(randomizer, FiniteRandomizer):
            raise ValueError(f"randomizer must be a FiniteRandomizer, got {type(randomizer).__name__}")
        return cls(randomizer, n, repeat)

    @property
    def mechanism(self) -> str:
        """The randomizer's mechanism name (``"finite"`` for a matrix)."""
        return self.randomizer.name

    @property
    def eps0(self) -> float:
        """The randomizer's eps0 (variation-ratio: ln p; a matrix: its own, inf if not pure LDP)."""
        return self.randomizer.eps0

    @property
    def hash_model(self) -> str:
        """``"random"`` where the randomizer's bounds assume a uniformly random hash, else ``"any"``."""
        return getattr(self.randomizer, "hash_model", "any")

    @property
    def options(self) -> dict:
        """The randomizer's options and their values (:func:`round_options`)."""
        return round_options(self.randomizer)

    @property
    def single(self) -> "RoundSpec":
        """One of the rounds this spec stands for (the spec itself when ``repeat`` is 1)."""
        return self if self.repeat == 1 else RoundSpec(self.randomizer, self.n)

    def params(self) -> Params:
        """The accountant's parameter object of this round's randomizer (``randomizer``)."""
        return self.randomizer

    def __getattr__(self, name: str):
        if name in OPTIONS:  # spec.k, spec.g, spec.p, ...: the option's value, None if not taken
            return self.options.get(name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


def _is_params(x) -> bool:
    """``x`` is a parameter object a round can hold: a matrix or a registered mechanism's type."""
    if isinstance(x, FiniteRandomizer):
        return True
    name = getattr(x, "name", None)
    entry = MECHANISM_SPECS.get(name) if isinstance(name, str) else None
    return entry is not None and isinstance(x, entry.type)


def _fields(randomizer, n, repeat=1) -> tuple:
    """The fields of ``RoundSpec(randomizer, n, repeat=1)``."""
    return randomizer, n, repeat


def _check_randomizer(R) -> Params:
    """``R`` if a round can compose it: its mechanism composes; a matrix that is not pure LDP
    needs its blanket bound (outside outputs counted in full: the round's profile)."""
    if not _is_params(R):
        raise ValueError(f"randomizer must be the parameter object of a named mechanism "
                         f"({', '.join(ROUND_MECHANISMS)}) or a FiniteRandomizer, got {type(R).__name__}")
    if not isinstance(R, FiniteRandomizer):
        if not mechanism_spec(R.name).composes:
            raise ValueError(f"randomizer: mechanism '{R.name}' does not compose over rounds (--rounds: no round "
                             "profile is proved for it)")
        return R
    if not R.pure:
        from accountant.bounds.finite_lattice import NO_BLANKET, blanket_atoms, lattice_refusal

        why = lattice_refusal(R) or (None if blanket_atoms(R).gamma > 0.0 else NO_BLANKET)
        if why is not None:
            raise ValueError(f"randomizer: {R.label} is not pure LDP and its blanket bound is not "
                             f"available ({why}): no round profile")
    return R


def _name_form(n, eps0, mechanism: str = "generic", s=None, t=None, k=None, p=None, beta=None, q=None,
               hash_model: str = "any", randomizer=None, d=None, g=None, repeat: int = 1) -> RoundSpec:
    """``RoundSpec(n, eps0, mechanism, ...)``: :meth:`RoundSpec.named` with the options given, or
    with mechanism ``"finite"`` the matrix ``randomizer`` (eps0 None or the matrix's own)."""
    options = {o: v for o, v in dict(s=s, t=t, k=k, p=p, beta=beta, q=q, d=d, g=g).items() if v is not None}
    fin = mechanism == "finite"
    if (randomizer is not None) != fin:
        raise ValueError("randomizer: a FiniteRandomizer goes with mechanism 'finite' (and only "
                         f"with it), got mechanism {mechanism!r} and randomizer {type(randomizer).__name__}")
    if not fin:
        return RoundSpec.named(mechanism, n, eps0, repeat=repeat, hash_model=hash_model, **options)
    given = list(options) + (["hash_model"] if hash_model != "any" else [])
    if given:
        raise ValueError(f"{given[0]} does not apply to mechanism 'finite' (the matrix is the randomizer)")
    spec = RoundSpec.finite(randomizer, n, repeat)
    if eps0 is not None and eps0 != spec.eps0:
        raise ValueError(f"eps0 does not apply to mechanism 'finite' (the matrix fixes eps0 = "
                         f"{spec.eps0:.10g}), got {eps0!r}")
    return spec


@singledispatch
def round_options(params) -> dict:
    """The options of ``params``'s mechanism (the keywords of :func:`accountant.make_params`
    besides eps0 and the hash model) and their values in ``params``; {} for a matrix.

    Examples
    --------
    >>> from accountant import OLHParams, make_params
    >>> from accountant.composition.rounds import round_options
    >>> round_options(make_params("krr", 1.0, k=4)), round_options(OLHParams(1.0, k=10))
    ({'k': 4}, {'k': 10, 'g': 4})
    """
    return {o: getattr(params, o, None) for o in mechanism_spec(params.name).options}


@round_options.register(OLHParams)
def _olh_options(params) -> dict:
    return {"k": params.d, "g": params.g}  # OLH holds its domain size k as Collision's d


@round_options.register(FiniteRandomizer)
def _matrix_options(params) -> dict:
    return {}


def _entry(mechanism):
    """The registry entry of a schedule round's mechanism field, or None (not a named mechanism)."""
    return MECHANISM_SPECS.get(mechanism) if isinstance(mechanism, str) else None


def _shown(value) -> str:
    """``repr(value)``, cut at 60 characters (a long value is not echoed whole)."""
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _field_message(msg: str) -> str:
    """'p must be ...' -> "field 'p' must be ..." (the schedule's errors name the JSON field)."""
    for f in VR_FIELDS + ("eps0", "d"):
        if msg.startswith(f + " ") or msg.startswith(f + ":"):
            return f"field {f!r}{msg[len(f):]}"
    return msg


def _finite_round(r: dict, base: Optional[str], loaded: dict) -> FiniteRandomizer:
    """The randomizer of a finite round: ``"matrix": FILE`` (relative to ``base``, the schedule
    file's folder; each file read once) or ``"catalogue": NAME`` with ``"k"`` and ``"eps0"``
    (``"size"``, ``"g"`` where the member takes them)."""
    import os

    from accountant.core.catalogue import catalogue_randomizer
    from accountant.core.finite import load_matrix

    if ("matrix" in r) == ("catalogue" in r):
        raise ValueError("a finite round needs exactly one of the fields 'matrix' (a file) and "
                         "'catalogue' (a name, with 'k' and 'eps0')")
    if "matrix" in r:
        for f in ("eps0", "k", "size", "g"):
            if f in r:
                raise ValueError(f"field {f!r} does not apply to a round with a matrix (the matrix "
                                 "fixes eps0)")
        path = r["matrix"]
        if not isinstance(path, str) or not path:
            raise ValueError(f"field 'matrix' must be a file name, got {path!r}")
        path = path if base is None or os.path.isabs(path) else os.path.join(base, path)
        if path not in loaded:
            loaded[path] = load_matrix(path)
        return loaded[path]
    for f in ("k", "eps0"):
        if f not in r:
            raise ValueError(f"missing field {f!r} (a catalogue round has 'catalogue', 'k' and 'eps0')")
    extra = {f: r[f] for f in ("size", "g") if f in r}
    key = (r["catalogue"], r["k"], r["eps0"], tuple(sorted(extra.items())))
    if key not in loaded:
        loaded[key] = catalogue_randomizer(r["catalogue"], r["k"], r["eps0"], **extra)
    return loaded[key]


def parse_schedule(data, base: Optional[str] = None) -> list[RoundSpec]:
    """Round specs from a JSON list of objects {n, eps0, mechanism?, s?, t?, k?, d?, g?, repeat?}
    (``g``: olh rounds' hash range; a ``variation-ratio`` round: {n, mechanism, p, beta, q?, repeat?}, no eps0; a ``finite``
    round: {n, mechanism, matrix, repeat?} with ``matrix`` a file name relative to ``base``, or
    {n, mechanism, catalogue, k, eps0, size?, g?, repeat?} with a name of
    :data:`accountant.core.catalogue.CATALOGUE`).

    Errors name the round index and the field.

    Parameters
    ----------
    data : list of dict
        Each object has ``n`` and ``eps0`` and optionally ``mechanism``, ``s``, ``t``, ``k``,
        ``d`` (the dimension of collision and coco rounds: their certified lower bound needs
        d >= 3s) and ``repeat`` (how many consecutive rounds it stands for, default 1) and
        ``hash_model`` (``"any"`` or ``"random"``, collision, coco and olh); a ``variation-ratio``
        round has ``p`` and ``beta`` (and ``q``, default p) instead of eps0.

    Returns
    -------
    list of RoundSpec
        One spec per round (repeats expanded).

    Raises
    ------
    ValueError
        Naming the round index and the field when an entry is not valid.

    Examples
    --------
    >>> from accountant import parse_schedule
    >>> specs = parse_schedule([{"n": 1000, "eps0": 1.0, "repeat": 2},
    ...                         {"n": 500, "eps0": 2.0, "mechanism": "krr", "k": 4}])
    >>> print(len(specs), specs[2].mechanism)
    3 krr
    """
    from accountant.core.limits import T_MAX, check_eps0, check_n

    if not isinstance(data, list) or not data:
        raise ValueError("schedule must be a non-empty JSON list of round objects")
    allowed = {"n", "eps0", "mechanism", "s", "t", "k", "d", "repeat", "hash_model"} | set(VR_FIELDS)
    finite_only = {"matrix", "catalogue", "size", "g"}
    loaded: dict = {}
    out: list[RoundSpec] = []
    for i, r in enumerate(data):
        if not isinstance(r, dict):
            raise ValueError(f"round {i}: expected an object, got {type(r).__name__}")
        fin = r.get("mechanism") == "finite"
        entry = _entry(r.get("mechanism", "generic"))
        takes_g = entry is not None and "g" in entry.options  # olh's hash range
        extra = set(r) - allowed - (finite_only if fin else {"g"} if takes_g else set())
        if extra:
            raise ValueError(f"round {i}: unknown field {sorted(extra)[0]!r}"
                             + (" (a field of mechanism 'finite')" if extra & finite_only else ""))
        if fin:
            if "n" not in r:
                raise ValueError(f"round {i}: missing field 'n'")
            try:
                rep = check_int("field 'repeat'", r.get("repeat", 1), 1, MAX_ROUNDS)
                n = check_n(r.get("n"), "field 'n'")
                bad = sorted(set(r) & ({"s", "t", "d", "hash_model"} | set(VR_FIELDS)))
                if bad:
                    raise ValueError(f"field {bad[0]!r} does not apply to a finite round")
                spec = RoundSpec.finite(_finite_round(r, base, loaded), n)
            except (ValueError, OverflowError, TypeError) as exc:
                raise ValueError(f"round {i}: {_field_message(str(exc))}") from None
            if len(out) + rep > MAX_ROUNDS:
                raise ValueError(f"round {i}: the schedule has more than {MAX_ROUNDS:,} rounds (with "
                                 f"'repeat'), the limit")
            out.extend([spec] * rep)
            continue
        vr = entry is not None and not entry.eps0_given  # variation-ratio: p fixes eps0 = ln p
        if vr and "eps0" in r:
            raise ValueError(f"round {i}: field 'eps0' does not apply to a variation-ratio round "
                             "(eps0 = ln p: give 'p')")
        for f in ("n", "p", "beta") if vr else ("n", "eps0"):
            if f not in r:
                raise ValueError(f"round {i}: missing field {f!r}")
        for f in ("n", "s", "t", "k", "d", "g", "repeat"):
            v = r.get(f)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))
                                  or (isinstance(v, float) and not v.is_integer())):
                raise ValueError(f"round {i}: field {f!r} must be an integer, got {v!r}")
        for f in ("eps0",) + VR_FIELDS:
            v = r.get(f)
            if f in r and (isinstance(v, bool) or not isinstance(v, (int, float))):
                raise ValueError(f"round {i}: field {f!r} must be a number, got {v!r}")
        try:  # ranges checked on the JSON values (a 400-digit n is refused, not overflowed)
            rep = check_int("field 'repeat'", r.get("repeat", 1), 1, MAX_ROUNDS)
            n = check_n(r["n"], "field 'n'")
            eps0 = None if vr else check_eps0(r["eps0"], "field 'eps0'")
            ival = {f: (check_int(f"field {f!r}", r[f], 1, T_MAX) if r.get(f) is not None else None)
                    for f in ("s", "t", "k", "d", "g")}
            given = {**ival, **{f: r.get(f) for f in VR_FIELDS}}
            options = {f: v for f, v in given.items() if v is not None}
            if entry is None:
                raise ValueError(f"mechanism must be one of {', '.join(ALL_ROUND_MECHANISMS)}, got "
                                 f"{_shown(r.get('mechanism'))}")
            spec = RoundSpec.named(entry.name, n, eps0, hash_model=r.get("hash_model", "any"), **options)
        except (ValueError, OverflowError) as exc:
            raise ValueError(f"round {i}: {_field_message(str(exc))}") from None
        if len(out) + rep > MAX_ROUNDS:
            raise ValueError(f"round {i}: the schedule has more than {MAX_ROUNDS:,} rounds (with "
                             f"'repeat'), the limit (memory and time of the composed PLD grow with "
                             "the rounds)")
        out.extend([spec] * rep)
    return out
