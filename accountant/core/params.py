"""The mechanism registry: one entry per named local randomizer, and the parameter objects built from it.

:data:`MECHANISM_SPECS` holds a :class:`MechanismSpec` per mechanism name: its parameter type
(:mod:`accountant.core.randomizers`), the options it takes and requires, its labels and its
capabilities as data (hashed output structure, a domain of k values, the random-hash model,
eps0-LDP, composition over rounds).  Every list of mechanism names is a query on it
(:func:`mechanism_names`), :func:`make_params` builds a parameter object from a name through
it, and :data:`OPTIONS` describes every option (its type, range and help) for the command
lines and the pages.  The parameter types, the shared validators and the union :data:`Params`
are re-exported here, so ``from accountant.core.params import CollisionParams`` keeps working.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional, Union

from accountant.core.finite import FiniteRandomizer
from accountant.core.limits import numpy_scalars
from accountant.core.rules import coco_theorem7_t, collision_paper_t
from accountant.core.randomizers import (  # noqa: F401 (re-exported: the types and their checks)
    EPS0_MAX,
    CoCoParams,
    CollisionParams,
    GenericLDP,
    KRRParams,
    OLHParams,
    OUEParams,
    VariationRatioParams,
    check_hash_model,
    validate_eps0,
)
from accountant.core.randomizers_keyvalue import PCKVAGRRParams, PCKVGRRParams, PCKVUEParams, PrivKVParams  # noqa: F401
from accountant.core.randomizers_numerical import (  # noqa: F401
    ApproximateLDP, DuchiParams, GaussianParams, LaplaceParams, PiecewiseParams, check_delta0)

Params = Union[GenericLDP, CollisionParams, CoCoParams, KRRParams, OLHParams, OUEParams, VariationRatioParams,
               FiniteRandomizer, LaplaceParams, ApproximateLDP, DuchiParams, PiecewiseParams, GaussianParams]
"""Any parameter object of a local randomizer (the type :class:`ShuffleAccountant` accepts)."""


@dataclass(frozen=True)
class OptionSpec:
    """One option of the named mechanisms: the keyword of :func:`make_params` (the command
    line's ``--NAME``, underscores as dashes), its type (``int``, ``float`` or ``str``), its
    range or choices, and its help."""

    name: str
    kind: type
    help: str
    lo: Optional[float] = None
    hi: Optional[float] = None
    choices: tuple = ()
    lo_open: bool = True   # a number option's range: (lo, hi] unless these say otherwise
    hi_open: bool = False

    @property
    def flag(self) -> str:
        """The command-line option, e.g. ``--hash-model``."""
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class MechanismSpec:
    """One named mechanism of the registry.

    ``options``: the keywords of :func:`make_params` it takes besides ``eps0``; ``required``:
    those it needs, each with the words of its "is required" message; ``label``: its short name
    in tables and charts, ``title``: its name on the pages' menus, ``cli``: its item in the
    command line's ``--mechanism`` help.  Capabilities: ``hashed`` (the t-ary output structure
    of Collision: an output size t and a sparsity s, the paper's pair), ``keyed`` (a domain of
    ``k`` values), ``random_hash`` (the ``hash_model="random"`` bounds exist), ``ldp`` (an
    eps0-LDP randomizer given by eps0: the generic eps0-LDP bounds apply), ``eps0_given``
    (eps0 is a parameter; False: it follows from the options, variation-ratio's p),
    ``composes`` (a round of it composes over rounds), ``paper_pair`` (the dominating pair of
    the paper's Theorem 1 / Theorem 5 is defined: a mixture weight).  ``tex``: its name in a
    LaTeX caption (empty: the name itself); ``menu``: its place in the pages' menus (the
    registry's order is the command line's).  ``build(eps0, **options)`` returns the parameter object.

    What the command lines and the pages ask besides: ``default_t`` (the rule ``(s, eps0) -> t``
    of the paper's t, where ``t`` is an option: Collision's t*, CoCo's Theorem 7), ``stored_as``
    (``(option, attribute)`` pairs where the parameter type keeps an option under another name:
    OLH's k is its ``d``; :meth:`values` reads them back), ``option_help`` (``(option, words)``
    pairs: the pages' help of an option where it says what the option is for this randomizer),
    ``fast_rounds`` (a round's profile is a closed form or binary RR's exact law: a mix of such
    groups composes over rounds in seconds) and ``slow_random_rounds`` (its random-hash round
    profile takes seconds a composition: a search over many is run on request).
    ``own_blanket``: the registry's ``blanket`` bound is registered for its type besides the
    hashed mechanisms and OUE (the key-value baselines: their own randomizer's blanket).
    profile takes seconds a composition: a search over many is run on request); ``two_valued`` (its
    shuffled view is binary RR's: every dataset a mixture of binary RR's bit datasets, so binary
    RR's every-dataset bounds ``exact`` / ``search`` apply: rr, Duchi et al.'s randomizer);
    ``no_eps0`` (eps0 not given: why, in the words of the refusal of ``--eps0``).
    """

    name: str
    type: type
    label: str
    title: str
    cli: str
    build: Callable
    options: tuple = ()
    required: tuple = ()
    hashed: bool = False
    keyed: bool = False
    random_hash: bool = False
    ldp: bool = True
    eps0_given: bool = True
    composes: bool = True
    paper_pair: bool = False
    tex: str = ""
    menu: int = 0
    default_t: Optional[Callable] = None
    stored_as: tuple = ()
    option_help: tuple = ()
    fast_rounds: bool = False
    slow_random_rounds: bool = False
    own_blanket: bool = False
    # binary RR's shuffled view: every dataset a mixture of bit datasets (binary RR's every-dataset bounds apply)
    two_valued: bool = False
    # where eps0 is not a parameter (eps0_given False): why, and what to give instead
    no_eps0: str = "eps0 = ln p: give --p"

    def values(self, params) -> dict:
        """The options of ``params`` (a parameter object of this entry) as the keywords
        ``build`` takes, in the order of ``options``: ``values(make_params(name, eps0, **kw))``
        gives back ``kw`` with the defaults filled in (e.g. Collision's t, OLH's g)."""
        attribute = dict(self.stored_as)
        return {o: getattr(params, attribute.get(o, o)) for o in self.options}


def _vr(eps0, p=None, beta=None, q=None):
    if beta is None:
        raise ValueError("beta is required for mechanism 'variation-ratio' (a number in (0, (p-1)/(p+1)])")
    if (p is None) == (eps0 is None):
        raise ValueError("p: give exactly one of p (a number in (1, e^30]) and eps0 (then p = e^eps0) "
                         "for mechanism 'variation-ratio'")
    return VariationRatioParams(p=math.exp(validate_eps0(eps0)) if p is None else p, beta=beta, q=q)


_DOMAIN = "the domain size, an integer >= 2"


def _gaussian(eps0, sigma, range=None):
    """The Gaussian randomizer: not pure LDP, so eps0 is refused (its noise is sigma)."""
    if eps0 is not None:
        raise ValueError(f"eps0 does not apply to mechanism 'gaussian' (not pure LDP: its noise is sigma), "
                         f"got {eps0!r}")
    return GaussianParams(sigma, *parse_range(range))


def _generic(eps0, delta0=None):
    """An eps0-LDP randomizer (delta0 None or 0: :class:`GenericLDP`, the pure bounds exactly) or an
    (eps0, delta0)-LDP one (:class:`ApproximateLDP`)."""
    return GenericLDP(eps0) if delta0 is None or (not isinstance(delta0, bool) and delta0 == 0) \
        else ApproximateLDP(eps0, delta0)


MECHANISM_SPECS = {spec.name: spec for spec in (
    MechanismSpec("generic", GenericLDP, "generic eps0-LDP", "generic eps0-LDP", "generic eps0-LDP",
                  _generic, ("delta0",), paper_pair=True,
                  tex=r"a generic $\varepsilon_0$-LDP randomizer", menu=6,
                  fast_rounds=True),
    MechanismSpec("collision", CollisionParams, "Collision", "Collision", "collision",
                  lambda eps0, s, t=None, d=None, hash_model="any":
                  CollisionParams(s=s, eps0=eps0, t=t, d=d, hash_model=hash_model),
                  ("s", "t", "d"), (("s", "an integer >= 1"),), hashed=True, random_hash=True,
                  paper_pair=True, tex="Collision", menu=0,
                  default_t=collision_paper_t, slow_random_rounds=True),
    MechanismSpec("coco", CoCoParams, "CoCo", "CoCo", "coco",
                  lambda eps0, s, t=None, d=None, hash_model="any":
                  CoCoParams(s=s, eps0=eps0, t=t, d=d, hash_model=hash_model),
                  ("s", "t", "d"), (("s", "an integer >= 1"),), hashed=True, random_hash=True,
                  paper_pair=True, tex="CoCo", menu=1,
                  default_t=coco_theorem7_t),
    MechanismSpec("krr", KRRParams, "k-RR", "k-RR (k-ary randomized response)",
                  "krr (k-ary randomized response, needs --k)",
                  lambda eps0, k: KRRParams(k=k, eps0=eps0, name="krr"),
                  ("k",), (("k", "an integer >= 2"),), hashed=True, keyed=True, paper_pair=True,
                  tex="$k$-RR", menu=2,
                  option_help=(("k", "k-ary randomized response: the true value with probability "
                                     "e^eps0 / (e^eps0 + k - 1), each other value otherwise"),)),
    MechanismSpec("rr", KRRParams, "binary RR", "binary RR", "rr (binary randomized response)",
                  lambda eps0: KRRParams(k=2, eps0=eps0, name="rr"), hashed=True, paper_pair=True,
                  tex="binary randomized response", menu=5,
                  fast_rounds=True, two_valued=True),
    MechanismSpec("olh", OLHParams, "OLH", "OLH (optimized local hashing)",
                  "olh (optimized local hashing, --k [--g])",
                  lambda eps0, k, g=None, hash_model="any": OLHParams(eps0, k, g, hash_model),
                  ("k", "g"), (("k", _DOMAIN),), hashed=True, keyed=True, random_hash=True,
                  paper_pair=True, menu=3,
                  stored_as=(("k", "d"),),
                  option_help=(("k", "optimized local hashing over a domain of k values (g = round(e^eps0) "
                                     "+ 1 hash buckets)"),)),
    MechanismSpec("oue", OUEParams, "OUE", "OUE (optimized unary encoding)",
                  "oue (optimized unary encoding, --k)",
                  lambda eps0, k: OUEParams(k=k, eps0=eps0), ("k",), (("k", _DOMAIN),), keyed=True, menu=4,
                  option_help=(("k", "optimized unary encoding of a domain of k values"),)),
    MechanismSpec("variation-ratio", VariationRatioParams, "variation-ratio", "variation-ratio (p, beta, q)",
                  "variation-ratio (any randomizer by Wang et al.'s parameters --p --beta [--q])",
                  _vr, ("p", "beta", "q"), ldp=False, eps0_given=False, menu=7,
                  fast_rounds=True),
    MechanismSpec("pckv-grr", PCKVGRRParams, "PCKV-GRR", "PCKV-GRR (key-value, Gu et al. 2020)",
                  "pckv-grr (key-value pairs, PCKV with GRR, --d --s)",
                  lambda eps0, d, s: PCKVGRRParams(eps0, d=d, s=s), ("d", "s"),
                  (("d", "the number of keys, an integer >= 2"), ("s", "the pairs per user, an integer in [1, d]")),
                  menu=8, own_blanket=True),
    MechanismSpec("pckv-ue", PCKVUEParams, "PCKV-UE", "PCKV-UE (key-value, Gu et al. 2020)",
                  "pckv-ue (key-value pairs, PCKV with unary encoding, --d --s)",
                  lambda eps0, d, s: PCKVUEParams(eps0, d=d, s=s), ("d", "s"),
                  (("d", "the number of keys, an integer >= 1"), ("s", "the pairs per user, an integer in [1, d]")),
                  menu=9, own_blanket=True),
    MechanismSpec("pckv-agrr", PCKVAGRRParams, "PCKV-AGRR", "PCKV-AGRR (key-value, Gu et al. 2020)",
                  "pckv-agrr (key-value pairs, PCKV with GRR amplified by sampling, --d --s)",
                  lambda eps0, d, s: PCKVAGRRParams(eps0, d=d, s=s), ("d", "s"),
                  (("d", "the number of keys, an integer >= 2"), ("s", "the pairs per user, an integer in [1, d]")),
                  menu=10, own_blanket=True),
    MechanismSpec("privkv", PrivKVParams, "PrivKV", "PrivKV (key-value, Ye et al. 2019)",
                  "privkv (key-value pairs, PrivKV one round, --d --s)",
                  lambda eps0, d, s: PrivKVParams(eps0, d=d, s=s), ("d", "s"),
                  (("d", "the number of keys, an integer >= 1"), ("s", "the pairs per user, an integer in [1, d]")),
                  menu=11, own_blanket=True),
    MechanismSpec("laplace", LaplaceParams, "Laplace", "Laplace (continuous, input range)",
                  "laplace (y = x + Lap((HI - LO) / eps0) on the input range --range LO,HI, default -1,1)",
                  lambda eps0, range=None: LaplaceParams(eps0, *parse_range(range)), ("range",),
                  tex="the Laplace randomizer", menu=12),
    MechanismSpec("duchi", DuchiParams, "Duchi et al.", "Duchi et al. (1-D mean, two outputs)",
                  "duchi (Duchi et al.'s 1-D mean randomizer: binary RR of a Bernoulli((1+x)/2) bit)",
                  lambda eps0: DuchiParams(eps0), hashed=True, paper_pair=True, tex="Duchi et al.'s randomizer",
                  menu=13, fast_rounds=True, two_valued=True),
    MechanismSpec("piecewise", PiecewiseParams, "piecewise", "piecewise mechanism (1-D mean)",
                  "piecewise (Wang et al.'s piecewise mechanism, 1-D mean)",
                  lambda eps0: PiecewiseParams(eps0), tex="the piecewise mechanism", menu=14, fast_rounds=True),
    MechanismSpec("gaussian", GaussianParams, "Gaussian", "Gaussian (continuous, input range; not pure LDP)",
                  "gaussian (y = x + N(0, sigma^2) on the input range --range LO,HI, default -1,1; --sigma, no --eps0)",
                  _gaussian, ("sigma", "range"), (("sigma", "a number > 0"),), ldp=False, eps0_given=False,
                  composes=False, tex="the Gaussian randomizer", menu=15,
                  no_eps0="not pure LDP: its noise is --sigma"),
)}
"""The named mechanisms (``make_params``'s and ``--mechanism``'s names), in the order of the menus."""

MECHANISMS = tuple(MECHANISM_SPECS)
"""The mechanism names :func:`make_params` accepts."""

OPTIONS = {o.name: o for o in (
    OptionSpec("s", int, "sparsity s (collision, coco; pckv-grr, pckv-ue, pckv-agrr, privkv: pairs per user)", 1),
    OptionSpec("t", int, "output size t (default: paper's t* for collision, Theorem 7 for coco)", 1),
    OptionSpec("k", int, "number of values k >= 2 (krr, olh, oue: the domain size)", 2),
    OptionSpec("g", int, "olh: hash range g >= 2 (default round(e^eps0) + 1, Wang et al. 2017)", 2),
    OptionSpec("d", int, "dimension d >= s (collision, coco; pckv-grr, pckv-ue, pckv-agrr, privkv: number of keys)", 1),
    OptionSpec("p", float, "variation-ratio: likelihood ratio bound p > 1 (eps0 = ln p)", 1.0),
    OptionSpec("beta", float, "variation-ratio: total variation bound 0 < beta <= (p-1)/(p+1)", 0.0, 1.0),
    OptionSpec("q", float, "variation-ratio: ratio bound q > 1 (default: p)", 1.0),
    OptionSpec("delta0", float, "generic: the local delta of an (eps0, delta0)-LDP randomizer, 0 <= delta0 < 1 "
               "(default 0: eps0-LDP); the bound (FMT21 Theorem 3.8) needs delta0 <= delta", 0.0, 1.0,
               lo_open=False, hi_open=True),
    OptionSpec("hash_model", str, "collision, coco, olh: 'any' (every hash family) or 'random' (each "
               "report's hash a uniformly random function)", choices=("any", "random")),
    OptionSpec("range", str, "laplace, gaussian: the input range LO,HI (LO < HI; default -1,1)"),
    OptionSpec("sigma", float, "gaussian: the noise's standard deviation sigma > 0", 0.0, math.inf, hi_open=True),
)}
"""Every option of the named mechanisms (a mechanism's ``options`` name some of them), in the order
of the command line's ``--help``."""


def parse_range(text) -> tuple:
    """The input range ``LO,HI`` of a continuous randomizer as two numbers (None: -1, 1); a pair
    of numbers is taken as it is.  ValueError naming ``range`` otherwise (the order is checked by
    the parameter type)."""
    if text is None:
        return -1.0, 1.0
    if isinstance(text, (tuple, list)) and len(text) == 2:
        return tuple(text)
    parts = text.split(",") if isinstance(text, str) else []
    try:
        if len(parts) != 2:
            raise ValueError
        return float(parts[0]), float(parts[1])
    except ValueError:
        raise ValueError(f"range must be two finite numbers LO,HI with LO < HI (the input range), "
                         f"got {text!r}") from None


def mechanism_names(**capabilities) -> tuple:
    """The mechanism names whose specs have every given capability, in registry order.

    Examples
    --------
    >>> from accountant.core.params import mechanism_names
    >>> mechanism_names(keyed=True)
    ('krr', 'olh', 'oue')
    >>> mechanism_names(random_hash=True)
    ('collision', 'coco', 'olh')
    """
    bad = [c for c in capabilities if c not in MechanismSpec.__dataclass_fields__ or
           not isinstance(getattr(MECHANISM_SPECS["generic"], c), bool)]
    if bad:
        raise ValueError(f"capability must be one of the boolean fields of MechanismSpec, got {bad}")
    return tuple(name for name, spec in MECHANISM_SPECS.items()
                 if all(getattr(spec, c) == v for c, v in capabilities.items()))


def mechanisms_with_option(option: str) -> tuple:
    """The mechanism names whose specs take ``option`` (a key of :data:`OPTIONS`; ``hash_model``:
    those with a random-hash model), in registry order.

    Examples
    --------
    >>> from accountant.core.params import mechanisms_with_option
    >>> mechanisms_with_option("s")
    ('collision', 'coco', 'pckv-grr', 'pckv-ue', 'pckv-agrr', 'privkv')
    """
    if option not in OPTIONS:
        raise ValueError(f"option must be one of {', '.join(OPTIONS)}, got {option!r}")
    return tuple(name for name, spec in MECHANISM_SPECS.items()
                 if option in spec.options or (option == "hash_model" and spec.random_hash))


def menu_order(names) -> tuple:
    """``names`` (mechanism names) in the order of the pages' menus (:attr:`MechanismSpec.menu`)."""
    return tuple(sorted(names, key=lambda name: MECHANISM_SPECS[name].menu))


def mechanism_spec(mechanism: str) -> MechanismSpec:
    """The registry entry of ``mechanism`` (ValueError naming the valid names otherwise)."""
    if not isinstance(mechanism, str) or mechanism not in MECHANISM_SPECS:
        shown = repr(mechanism) if len(repr(mechanism)) <= 60 else repr(mechanism)[:57] + "..."
        raise ValueError(f"mechanism must be one of {', '.join(MECHANISMS)}, got {shown}")
    return MECHANISM_SPECS[mechanism]


def make_params(mechanism: str, eps0: Optional[float] = None, s: Optional[int] = None, t: Optional[int] = None,
                d: Optional[int] = None, k: Optional[int] = None, p: Optional[float] = None,
                beta: Optional[float] = None, q: Optional[float] = None, g: Optional[int] = None,
                hash_model: str = "any", range=None, delta0: Optional[float] = None,
                sigma: Optional[float] = None) -> Params:
    """Parameter object for ``mechanism``, validated once, at construction.

    Parameters
    ----------
    mechanism : str
        One of :data:`MECHANISMS`: ``'generic'``, ``'collision'``, ``'coco'``, ``'krr'``,
        ``'rr'``, ``'olh'``, ``'oue'``, ``'variation-ratio'``, ``'laplace'``.
    eps0 : float or None
        Local budget (> 0; at most 30).  ``variation-ratio`` takes ``p`` instead or
        ``eps0`` (then p = e^eps0), not both.
    s, t, d : int, optional
        Collision, CoCo: non-zero coordinates per user, output size (default: the paper's
        rule) and dimension (needed only by the lower bounds).
    k, g : int, optional
        Domain size (krr, olh, oue) and hash range of OLH (default ``round(e^eps0) + 1``).
    p, beta, q : float, optional
        The parameters of :class:`VariationRatioParams` (default ``q = p``).
    hash_model : str
        ``"any"`` (bounds proved for every hash family) or ``"random"`` (collision, coco and olh
        only: proved assuming each report's hash is a uniformly random function).
    range : str or (float, float), optional
        ``laplace``, ``gaussian``: the input range ``"LO,HI"`` (default ``-1,1``).
    sigma : float, optional
        ``gaussian``: the noise's standard deviation (> 0); its eps0 must be None (not pure LDP).
    delta0 : float, optional
        generic: the local delta of an (eps0, delta0)-LDP randomizer, in [0, 1) (0 or None:
        :class:`GenericLDP`; else :class:`ApproximateLDP`).

    Returns
    -------
    Params
        The registry entry's parameter type (:data:`MECHANISM_SPECS`): :class:`GenericLDP`,
        :class:`CollisionParams`, :class:`CoCoParams`, :class:`KRRParams`, :class:`OLHParams`,
        :class:`OUEParams` or :class:`VariationRatioParams`.

    Raises
    ------
    ValueError
        If ``mechanism`` is unknown, a value is out of its range (the message names the
        parameter and the range) or an option does not apply to the mechanism.

    Examples
    --------
    >>> from accountant import make_params
    >>> make_params("collision", 2.0, s=4)
    CollisionParams(s=4, eps0=2.0, t=36, d=None, name='collision')
    >>> make_params("generic", 1.0, s=4)
    Traceback (most recent call last):
    ...
    ValueError: s does not apply to mechanism 'generic' (it takes delta0)
    """
    spec = mechanism_spec(mechanism)
    given = {"s": s, "t": t, "d": d, "k": k, "p": p, "beta": beta, "q": q, "g": g, "range": range,
             "delta0": delta0, "sigma": sigma}
    extra = [name for name, v in given.items() if v is not None and name not in spec.options]
    if extra:
        what = ", ".join(extra)
        applies = ", ".join(spec.options) if spec.options else "no option"
        raise ValueError(f"{what} does not apply to mechanism '{mechanism}' (it takes {applies})")
    if check_hash_model(hash_model) == "random" and not spec.random_hash:
        names = mechanism_names(random_hash=True)
        raise ValueError(f"hash_model 'random' is available for {', '.join(names[:-1])} and {names[-1]} "
                         f"only, got mechanism '{mechanism}'")
    for name, words in spec.required:
        if given[name] is None:
            raise ValueError(f"{name} is required for mechanism '{mechanism}' ({words})")
    kwargs = {name: given[name] for name in spec.options if given[name] is not None}
    if spec.random_hash:
        kwargs["hash_model"] = hash_model
    return spec.build(eps0, **kwargs)


def validate_n(n) -> int:
    """n in [1, MAX_N] (accountant.core.limits: the same limit as the command line)."""
    from accountant.core.limits import check_n

    if isinstance(n, numpy_scalars("integer")):
        n = int(n)
    if isinstance(n, str):
        raise ValueError(f"n must be an integer in [1, 1e10], got {n!r}")
    return check_n(n)


def validate_eps(eps) -> None:
    """A central eps: a finite number >= 0 (ValueError naming it otherwise); one check for the
    engines' and bounds' delta(eps) evaluations."""
    if not (isinstance(eps, (int, float) + numpy_scalars("floating")) and math.isfinite(eps) and eps >= 0):
        raise ValueError(f"eps must be a finite number >= 0, got {eps!r}")


def validate_delta(delta) -> float:
    """delta in [DELTA_MIN, 1) (accountant.core.limits.check_delta: the one range everywhere)."""
    from accountant.core.limits import check_delta

    if isinstance(delta, (str, bytes)) or delta is None:
        raise ValueError(f"delta must be a number in [1e-300, 1), got {delta!r}")
    return check_delta(delta)
