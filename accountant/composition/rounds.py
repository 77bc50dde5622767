"""What one shuffled round is: ``RoundSpec`` (validated at construction), its parameters, the
name of the per-round profile composed for it, and schedules of rounds read from JSON.

May import: :mod:`accountant.core`, :mod:`accountant.bounds.laws.random_hash` (the hash models).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from accountant.bounds.laws.random_hash import ASSUMPTION, check_hash_model

from accountant.core.finite import FiniteRandomizer
from accountant.core.params import mechanism_names, validate_eps0, validate_n, make_params

ROUND_MECHANISMS = mechanism_names(composes=True)
# every mechanism a round may have: the named ones and "finite" (a matrix, RoundSpec.finite)
ALL_ROUND_MECHANISMS = ROUND_MECHANISMS + ("finite",)
# the options of a variation-ratio round (Wang et al., VLDB 2024), eps0 = ln p
VR_FIELDS = ("p", "beta", "q")


@dataclass(frozen=True)
class RoundSpec:
    """One shuffled round: n users, each applying an eps0-LDP randomizer.

    Parameters
    ----------
    n : int
        Users (>= 1).
    eps0 : float or None
        Local budget (> 0).  ``variation-ratio``: None (it is set to ln p) or ln p itself.
    mechanism : str
        One of ``ROUND_MECHANISMS`` (generic, collision, coco, krr, rr, olh, oue,
        variation-ratio) or ``"finite"`` (with ``randomizer``).
    s : int, optional
        Non-zero coordinates per user (collision, coco).
    t : int, optional
        Output size (collision, coco; default: the mechanism's rule).
    k : int, optional
        Domain size (>= 2) for krr, olh and oue.
    p, beta, q : float, optional
        ``variation-ratio`` only: Wang et al.'s parameters (:class:`accountant.VariationRatioParams`;
        default q = p); its round composes the clone pair with ratio p and mixing 1/q.
    hash_model : str
        ``"any"`` (default: the profile is proved for every hash family) or ``"random"``
        (collision, olh: proved assuming each report's hash is a uniformly random function,
        :mod:`accountant.bounds.random_blanket`).
    randomizer : FiniteRandomizer, optional
        ``finite`` only (and required there): the randomizer as its matrix; eps0 is None or the
        matrix's own (the matrix fixes it).  ``RoundSpec.finite(R, n)`` spells it shorter.
    d : int, optional
        Dimension (collision, coco only; d >= s, validated by ``make_params``): the upper bound
        does not depend on it; the certified lower bound's datasets (three inputs on pairwise
        disjoint s-sets of [d]) need d >= 3s (:func:`accountant.bounds.laws.lower.needs_d_reason`).
    g : int, optional
        olh only: the hash range g >= 2 (default ``round(e^eps0) + 1``, :class:`accountant.OLHParams`).

    Examples
    --------
    >>> from accountant import RoundSpec
    >>> RoundSpec(100_000, 2.0, "collision", s=4)
    RoundSpec(n=100000, eps0=2.0, mechanism='collision', s=4, t=None, k=None, p=None, beta=None, q=None)
    >>> RoundSpec(10_000, None, "variation-ratio", p=3.0, beta=0.4).q
    3.0
    """

    n: int
    eps0: Optional[float]
    mechanism: str = "generic"
    s: Optional[int] = None
    t: Optional[int] = None
    k: Optional[int] = None
    p: Optional[float] = None
    beta: Optional[float] = None
    q: Optional[float] = None
    hash_model: str = field(default="any", repr=False)
    randomizer: Optional[FiniteRandomizer] = field(default=None, repr=False)
    d: Optional[int] = field(default=None, repr=False)
    g: Optional[int] = field(default=None, repr=False)

    @classmethod
    def finite(cls, randomizer: FiniteRandomizer, n: int) -> "RoundSpec":
        """A round of n users each applying the finite randomizer ``randomizer``.

        Examples
        --------
        >>> from accountant import RoundSpec
        >>> from accountant.core.catalogue import krr
        >>> spec = RoundSpec.finite(krr(4, 1.0), 10_000)
        >>> print(spec.mechanism, round(spec.eps0, 9))
        finite 1.0
        """
        return cls(n, None, "finite", randomizer=randomizer)

    def __post_init__(self) -> None:
        check_hash_model(self.hash_model, self.mechanism)
        object.__setattr__(self, "n", validate_n(self.n))
        if self.mechanism not in ALL_ROUND_MECHANISMS:
            raise ValueError(f"mechanism must be one of {', '.join(ALL_ROUND_MECHANISMS)}, "
                             f"got {self.mechanism!r}")
        if (self.randomizer is not None) != (self.mechanism == "finite"):
            raise ValueError("randomizer: a FiniteRandomizer goes with mechanism 'finite' (and only "
                             f"with it), got mechanism {self.mechanism!r} and randomizer "
                             f"{type(self.randomizer).__name__}")
        if self.d is not None and self.mechanism not in ("collision", "coco"):
            raise ValueError(f"d does not apply to mechanism '{self.mechanism}' (the dimension of "
                             "collision and coco rounds)")
        if self.g is not None and self.mechanism != "olh":
            raise ValueError(f"g does not apply to mechanism '{self.mechanism}' (the hash range of "
                             "olh rounds)")
        if self.mechanism == "finite":
            self._set_finite()
            return
        if self.mechanism == "variation-ratio":
            self._set_variation_ratio()
            return
        given = [f for f in VR_FIELDS if getattr(self, f) is not None]
        if given:
            raise ValueError(f"{given[0]} does not apply to mechanism '{self.mechanism}' (p, beta "
                             "and q are the parameters of mechanism 'variation-ratio')")
        object.__setattr__(self, "eps0", validate_eps0(self.eps0))
        if self.mechanism in ("collision", "coco"):
            par = make_params(self.mechanism, self.eps0, s=self.s, t=self.t, d=self.d,
                              hash_model=self.hash_model)  # s, t, d (d >= s)
            object.__setattr__(self, "d", par.d)
        if self.mechanism in ("krr", "olh", "oue") and (self.k is None or isinstance(self.k, bool)
                                                       or not isinstance(self.k, int) or self.k < 2):
            raise ValueError(f"k must be an integer >= 2 for mechanism '{self.mechanism}', got {self.k!r}")
        if self.mechanism in ("olh", "oue"):  # validates k (and olh's g: default round(e^eps0) + 1)
            make_params(self.mechanism, self.eps0, k=self.k, g=self.g)

    def _set_finite(self) -> None:
        """The matrix is the randomizer: no s, t, k, p, beta, q; eps0 is the matrix's."""
        R = self.randomizer
        if not isinstance(R, FiniteRandomizer):
            raise ValueError(f"randomizer must be a FiniteRandomizer, got {type(R).__name__}")
        given = [f for f in ("s", "t", "k") + VR_FIELDS if getattr(self, f) is not None]
        if given:
            raise ValueError(f"{given[0]} does not apply to mechanism 'finite' (the matrix is the randomizer)")
        if not R.pure:  # its blanket bound (outside outputs counted in full) is the round's profile
            from accountant.bounds.finite_lattice import NO_BLANKET, blanket_atoms, lattice_refusal

            why = lattice_refusal(R) or (None if blanket_atoms(R).gamma > 0.0 else NO_BLANKET)
            if why is not None:
                raise ValueError(f"randomizer: {R.label} is not pure LDP and its blanket bound is not "
                                 f"available ({why}): no round profile")
        if self.eps0 is not None and self.eps0 != R.eps0:
            raise ValueError(f"eps0 does not apply to mechanism 'finite' (the matrix fixes eps0 = "
                             f"{R.eps0:.10g}), got {self.eps0!r}")
        object.__setattr__(self, "eps0", R.eps0)

    def _set_variation_ratio(self) -> None:
        """p, beta, q validated by :class:`VariationRatioParams` (s, t, k refused, each named);
        eps0 = ln p (a given eps0 must be ln p: p fixes it)."""
        if self.p is None:
            raise ValueError("p is required for mechanism 'variation-ratio' (a number in (1, e^30]; "
                             "eps0 = ln p)")
        par = make_params("variation-ratio", None, s=self.s, t=self.t, k=self.k, p=self.p,
                          beta=self.beta, q=self.q)
        if self.eps0 is not None and self.eps0 != par.eps0:
            raise ValueError(f"eps0 does not apply to mechanism 'variation-ratio' (eps0 = ln p = "
                             f"{par.eps0:.6g}: give p), got {self.eps0!r}")
        for f in VR_FIELDS:
            object.__setattr__(self, f, getattr(par, f))
        object.__setattr__(self, "eps0", par.eps0)

    def params(self):
        """The accountant's parameter object of this round's randomizer (``make_params``; the
        :class:`FiniteRandomizer` itself for a finite round)."""
        if self.mechanism == "finite":
            return self.randomizer
        if self.mechanism == "variation-ratio":
            return make_params("variation-ratio", None, p=self.p, beta=self.beta, q=self.q)
        return make_params(self.mechanism, self.eps0, s=self.s, t=self.t, k=self.k, d=self.d,
                           g=self.g, hash_model=self.hash_model)


def round_source(mechanism: str, hash_model: str = "any", pure: bool = True) -> str:
    """Name of the per-round profile composed for ``mechanism`` (captions, JSON); ``pure=False``:
    a finite matrix that is not pure LDP (no clone: it has no finite eps0)."""
    if mechanism not in ALL_ROUND_MECHANISMS:
        raise ValueError(f"mechanism must be one of {', '.join(ALL_ROUND_MECHANISMS)}, got {mechanism!r}")
    if mechanism == "generic":
        return "clone (FMT21)"
    if mechanism == "variation-ratio":
        return "clone (FMT21, ratio p, mixing 1/q)"
    if mechanism == "finite":
        if not pure:
            return ("blanket of the matrix on its support, outputs outside it counted in full "
                    "(accountant.bounds.finite; not pure LDP: no clone)")
        return "min(blanket of the matrix (accountant.bounds.finite), clone (FMT21))"
    if check_hash_model(hash_model, mechanism) == "random":
        return ("min(blanket of the four-corner law dominating the random-hash law (a proved relaxation, "
                "exact for OLH), clone (FMT21)); "
                f"assumption: {ASSUMPTION['random']}")
    if mechanism == "rr":
        return ("min(exact blanket, clone (FMT21), and at n <= 1200 the exact sup over every dataset "
                "(accountant.engines.two_input.EveryDataset))")
    return "min(exact blanket, clone (FMT21))"


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
    from accountant.core.limits import MAX_ROUNDS, T_MAX, check_eps0, check_int, check_n

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
        extra = set(r) - allowed - (finite_only if fin else {"g"} if r.get("mechanism") == "olh" else set())
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
        vr = r.get("mechanism") == "variation-ratio"
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
            fval = {f: r.get(f) for f in VR_FIELDS}
            spec = RoundSpec(n, eps0, r.get("mechanism", "generic"), **ival, **fval,
                             hash_model=r.get("hash_model", "any"))
        except (ValueError, OverflowError) as exc:
            raise ValueError(f"round {i}: {_field_message(str(exc))}") from None
        if len(out) + rep > MAX_ROUNDS:
            raise ValueError(f"round {i}: the schedule has more than {MAX_ROUNDS:,} rounds (with "
                             f"'repeat'), the limit (memory and time of the composed PLD grow with "
                             "the rounds)")
        out.extend([spec] * rep)
    return out
