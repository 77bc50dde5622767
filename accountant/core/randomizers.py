"""The named local randomizers as frozen, validated parameter types (one class per mechanism).

Follows the conventions of Google's ``dp_accounting``: a parameter value object holding only
the randomizer's parameters, validated once at construction, with a message that names the
parameter.  Every accountant, bound and search takes these objects; nothing here computes a
divergence.  The mechanism registry that names them, says which options each takes and builds
them from a name is :mod:`accountant.core.params`.

Mixture weights (Wang et al. (numerical vector analyses), Lemma 2 / Theorem 5 / Section 7.4, with the
notation fixed as in shared/NOTES-accounting.md section 1: the paper's alpha is
the total-variation parameter beta; the weight is a = beta / (e^eps0 - 1)):

=============================  ==========================================
randomizer                     mixture weight a
=============================  ==========================================
generic eps0-LDP               1 / (e^eps0 + 1)   (stronger clone reduction)
Collision (d, s, eps0, t)      min(s, t - s) / (s e^eps0 + t - s)
CoCo (t even, t >= 2s + 2)     s / (s e^eps0 + t - s)
k-ary randomized response      1 / (e^eps0 + k - 1)  (Collision with s = 1, t = k)
=============================  ==========================================
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional


from accountant.core.finite import StrongerClonePair
from accountant.core.limits import COCO_RANDOM_MAX_S, RANDOM_HASH_MAX_S, numpy_scalars
from accountant.core.rules import coco_theorem7_t, collision_paper_t, olh_default_g
from accountant.core.caveats import (
    CAVEAT_GENERIC,
    CAVEAT_THEOREM5,
    CAVEAT_THEOREM5_T2S,
    CAVEAT_VARIATION_RATIO,
)

_K_MAX = 10**9
EPS0_MAX = 30.0


def validate_eps0(eps0) -> float:
    """eps0 in [EPS0_MIN, EPS_MAX] (accountant.core.limits.check_eps0, the one range everywhere)."""
    from accountant.core.limits import check_eps0

    if isinstance(eps0, (str, bytes)) or eps0 is None:
        raise ValueError(f"eps0 must be a number in [1e-10, {EPS0_MAX:g}], got {eps0!r}")
    return check_eps0(eps0)


def check_hash_model(hash_model) -> str:
    """The hash model of a hashed mechanism: ``"any"`` (bounds proved for every hash family) or
    ``"random"`` (proved assuming each report's hash is a uniformly random function)."""
    if hash_model not in ("any", "random"):
        raise ValueError(f"hash_model must be 'any' or 'random', got {hash_model!r}")
    return hash_model


def _check_int(name: str, v, lo: int) -> int:
    if isinstance(v, bool) or not isinstance(v, (int,) + numpy_scalars("integer")):
        if isinstance(v, (float,) + numpy_scalars("floating")) and float(v).is_integer():
            v = int(v)
        else:
            raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
    if v < lo:
        raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
    return int(v)


def _check_s_eps0_d(params, random_max_s: int, cost: str, for_mech: str = "") -> tuple[int, float]:
    """Validate the s, eps0, optional d and hash model of a Collision/CoCo parameter object:
    s at most ``random_max_s`` with hash_model 'random' (the message says ``cost``)."""
    s = _check_int("s", params.s, 1)
    eps0 = validate_eps0(params.eps0)
    if params.d is not None:
        d = _check_int("d", params.d, 1)
        if s > d:
            raise ValueError(f"s must satisfy 1 <= s <= d = {d}, got s = {s}")
        object.__setattr__(params, "d", d)
    if check_hash_model(params.hash_model) == "random" and s > random_max_s:
        raise ValueError(f"s must be an integer in [1, {random_max_s}] {for_mech}with hash_model 'random' "
                         f"({cost}; docs/limits.md), got s={s}")
    return s, eps0


class _PairStatus:
    """What is claimed about a pair bound (docs/proved.md, "Findings"): no tightness, and no
    proof that the pair dominates the shuffled mechanism; subclasses give the reason."""

    @property
    def tight(self) -> Optional[bool]:
        """None: no tightness is claimed (Theorem 6's equality fails for t >= 4)."""
        return None

    @property
    def certified(self) -> bool:
        """Whether the pair bound is a proved upper bound (False for all three here)."""
        return False


class _NoHash(_PairStatus):
    """A randomizer without the (s, t) hashed output structure (Theorem 6 does not apply)."""

    @property
    def s(self) -> None:
        return None

    @property
    def t(self) -> None:
        return None

    @property
    def theorem6_applies(self) -> bool:
        return False


def _check_k(k) -> int:
    """A domain size / number of values k in [2, 1e9]."""
    v = _check_int("k", k, 2)
    if v > _K_MAX:
        raise ValueError(f"k must be an integer in [2, {_K_MAX:.0e}], got {k!r}")
    return v


@dataclass(frozen=True)
class _HashedOmega:
    """The fields of a hashed mechanism (Collision, CoCo): sparsity s, local budget eps0,
    output size t (None: the mechanism's default), optional dimension d."""

    s: int
    eps0: float
    t: Optional[int] = None
    d: Optional[int] = None

    @property
    def omega(self) -> float:
        """Normaliser Omega = s e^eps0 + t - s (Definition 5; Algorithm 1, line 13)."""
        return self.s * math.exp(self.eps0) + self.t - self.s


@dataclass(frozen=True)
class GenericLDP(StrongerClonePair, _NoHash):
    """Any eps0-LDP randomizer; accounted by the stronger clone reduction
    (Feldman, McMillan, Talwar, SODA 2023; Wang et al. (numerical vector analyses) Theorem 1).

    Examples
    --------
    >>> from accountant import GenericLDP, ShuffleAccountant, fmt
    >>> print(fmt(ShuffleAccountant(GenericLDP(1.0), 10_000).get_epsilon(1e-6), 4, "up"))
    0.05301
    """

    eps0: float
    name: str = field(default="generic", init=False)
    # pure eps0-LDP: the option delta0 is not given (reads back as None; not a field)
    delta0 = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps0", validate_eps0(self.eps0))


@dataclass(frozen=True)
class CollisionParams(_HashedOmega, _PairStatus):
    """(d, s, eps0, t)-Collision mechanism (Definition 5), accounted by Theorem 5.

    ``t`` defaults to the paper's t* = floor(s e^eps0 + 2s - 1); ``d`` is optional
    for accounting (the bound does not depend on it) but if given must be >= s.

    Examples
    --------
    >>> from accountant import CollisionParams
    >>> CollisionParams(s=4, eps0=2.0).t  # the paper's t*
    36
    """

    name: str = field(default="collision", init=False)
    # "any": bounds proved for every hash family; "random": proved under the assumption that
    # each report's hash is a uniformly random function (accountant.bounds.laws.random_hash)
    hash_model: str = field(default="any", repr=False)

    def __post_init__(self) -> None:
        s, eps0 = _check_s_eps0_d(self, RANDOM_HASH_MAX_S, "its weights cost O(s^3)")
        t = collision_paper_t(s, eps0) if self.t is None else self.t
        t = _check_int("t", t, s + 1)
        object.__setattr__(self, "s", s)
        object.__setattr__(self, "eps0", eps0)
        object.__setattr__(self, "t", t)

    @property
    def mixture_weight(self) -> float:
        """a = min(s, t - s) / Omega (NOTES section 1: two s-subsets of [t] overlap
        in at least 2s - t outputs when t < 2s)."""
        return min(self.s, self.t - self.s) / self.omega

    @property
    def remainder(self) -> float:
        s, t, e = self.s, self.t, math.exp(self.eps0)
        return (t - 2 * s) / self.omega if t >= 2 * s else (2 * s - t) * e / self.omega

    @property
    def theorem6_applies(self) -> bool:
        """t >= 3s: Theorem 6's construction gives a lower bound (for its hash family)."""
        return self.t >= 3 * self.s

    @property
    def caveat(self) -> str:
        return CAVEAT_THEOREM5_T2S if self.t == 2 * self.s else CAVEAT_THEOREM5


@dataclass(frozen=True)
class CoCoParams(_HashedOmega, _PairStatus):
    """(d, s, eps0, t)-CoCo mechanism (Algorithm 1), accounted as in Section 7.4.

    ``t`` must be even and >= 2s + 2; it defaults to Theorem 7's choice.

    Examples
    --------
    >>> from accountant import CoCoParams
    >>> CoCoParams(s=4, eps0=2.0).t
    36
    """

    name: str = field(default="coco", init=False)
    # "any" or "random" (each report's hash uniformly random: accountant.bounds.laws.coco_random)
    hash_model: str = field(default="any", repr=False)

    def __post_init__(self) -> None:
        s, eps0 = _check_s_eps0_d(self, COCO_RANDOM_MAX_S, "its pair weights cost O(s^4)", "for CoCo ")
        t = coco_theorem7_t(s, eps0) if self.t is None else self.t
        msg = f"t must be an even integer >= 2s + 2 = {2 * s + 2} for CoCo, got {t!r}"
        try:
            t = _check_int("t", t, 2 * s + 2)
        except ValueError:
            raise ValueError(msg) from None
        if t % 2:
            raise ValueError(msg)
        object.__setattr__(self, "s", s)
        object.__setattr__(self, "eps0", eps0)
        object.__setattr__(self, "t", t)

    @property
    def mixture_weight(self) -> float:
        return self.s / self.omega

    @property
    def remainder(self) -> float:
        return (self.t - 2 * self.s) / self.omega

    @property
    def theorem6_applies(self) -> bool:
        """t >= 4s: the paper states the lower bound (equality) there."""
        return self.t >= 4 * self.s

    @property
    def caveat(self) -> str:
        # the weight s/Omega is below 1/(e^eps0+1) for every valid t
        return CAVEAT_THEOREM5


@dataclass(frozen=True)
class KRRParams(_PairStatus):
    """k-ary randomized response: report the true value w.p. e^eps0/(e^eps0 + k - 1), each
    other value w.p. 1/(e^eps0 + k - 1) (Warner 1965 for k = 2; Kairouz et al. 2014).

    As a shuffled mechanism it is Collision with s = 1, t = k and an injective hash, so the
    same (t-ary) quantities apply; ``name`` is ``"rr"`` for k = 2 made by :func:`make_params`
    with mechanism ``rr`` and ``"krr"`` otherwise.

    Examples
    --------
    >>> from accountant import make_params
    >>> make_params("rr", 1.0)
    KRRParams(k=2, eps0=1.0, name='rr')
    """

    k: int
    eps0: float
    name: str = "krr"

    def __post_init__(self) -> None:
        k = _check_k(self.k)
        if self.name not in ("krr", "rr"):
            raise ValueError(f"name must be 'krr' or 'rr', got {self.name!r}")
        if self.name == "rr" and k != 2:
            raise ValueError(f"binary randomized response has k = 2, got k = {k}")
        object.__setattr__(self, "k", k)
        object.__setattr__(self, "eps0", validate_eps0(self.eps0))

    @property
    def s(self) -> int:
        return 1

    @property
    def t(self) -> int:
        return self.k

    @property
    def omega(self) -> float:
        """e^eps0 + k - 1 (the normaliser; Collision's Omega with s = 1, t = k)."""
        return math.exp(self.eps0) + self.k - 1

    @property
    def mixture_weight(self) -> float:
        return 1.0 / self.omega

    @property
    def remainder(self) -> float:
        return (self.k - 2) / self.omega

    @property
    def theorem6_applies(self) -> bool:
        return False

    @property
    def caveat(self) -> str:
        return CAVEAT_GENERIC if self.k == 2 else CAVEAT_THEOREM5


@dataclass(frozen=True)
class OLHParams(CollisionParams):
    """Optimized local hashing (Wang et al., USENIX Security 2017): a hash H: [k] -> [g] drawn
    per report, then g-ary randomized response of H(x): H(x) w.p. e^eps0/(e^eps0 + g - 1).

    It is the (d = k, s = 1, eps0, t = g)-Collision mechanism (one item per user), so every
    Collision quantity applies: the exact blanket of g-ary RR is a proved upper bound for
    every hash family (accountant.bounds.laws.worst_hash, module docstring: with s = 1 a collision
    H(x1) = H(x1') is a mean-preserving contraction of the no-collision law), the lower bound
    uses three distinct values (k >= 3) and a uniformly random hash.  ``k`` (the domain size)
    is stored as ``d``, ``g`` as ``t``; the constructor is ``OLHParams(eps0, k, g=None)``.

    Examples
    --------
    >>> from accountant import OLHParams
    >>> print(OLHParams(2.0, k=100).t)  # g = round(e^eps0) + 1
    8
    """

    name: str = field(default="olh", init=False)

    def __init__(self, eps0: float, k: int, g: Optional[int] = None,  # noqa: D107
                 hash_model: str = "any") -> None:
        k = _check_k(k)
        eps0 = validate_eps0(eps0)
        g = olh_default_g(eps0) if g is None else _check_int("g", g, 2)
        object.__setattr__(self, "name", "olh")
        CollisionParams.__init__(self, s=1, eps0=eps0, t=g, d=k, hash_model=hash_model)

    @property
    def g(self) -> int:
        return self.t

    @property
    def caveat(self) -> str:
        return CAVEAT_THEOREM5


@dataclass(frozen=True)
class OUEParams(_NoHash):
    """Optimized unary encoding (Wang et al., USENIX Security 2017): the one-hot vector of
    x in {0,1}^k, each bit sent as is w.p. ... : the true bit is 1 w.p. 1/2, every other bit is
    1 w.p. 1/(e^eps0 + 1).  eps0-LDP (ratio (e^eps0 + 1)/2 / ((e^eps0 + 1)/(2 e^eps0)) = e^eps0).

    Proved upper bound: the generic eps0-LDP bounds (FMT21 clone, generic blanket, EFMRTT19);
    the exact privacy blanket of OUE's own law has four atoms of the amplification variable
    (the bits of x1 and x1' are independent) and is not implemented here.  Certified lower
    bound: :func:`accountant.bounds.laws.oue_lower_law`.

    Examples
    --------
    >>> from accountant import OUEParams
    >>> OUEParams(k=16, eps0=1.0).name
    'oue'
    """

    k: int
    eps0: float
    name: str = field(default="oue", init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", _check_k(self.k))
        object.__setattr__(self, "eps0", validate_eps0(self.eps0))

    @property
    def caveat(self) -> str:
        return CAVEAT_GENERIC


def _check_pos(name: str, v, lo: float, hi: float, lo_open: bool = True, hi_open: bool = False) -> float:
    rng = f"{'(' if lo_open else '['}{lo:.10g}, {hi:.10g}{')' if hi_open else ']'}"
    if isinstance(v, bool) or not isinstance(v, (int, float) + numpy_scalars("integer", "floating")):
        raise ValueError(f"{name} must be a number in {rng}, got {v!r}")
    x = float(v)
    ok = math.isfinite(x) and (x > lo if lo_open else x >= lo) and (x < hi if hi_open else x <= hi)
    if not ok:
        raise ValueError(f"{name} must be a number in {rng}, got {v!r}")
    return x


@dataclass(frozen=True)
class VariationRatioParams(_NoHash):
    """Any local randomizer described by its variation-ratio parameters (p, beta, q)
    (Wang, Peng, Lyu et al., "Privacy amplification via shuffling: unified, simplified, and
    tightened", VLDB 2024; their repository wangsw/PrivacyAmplification lists (p, beta, q) for
    k-RR, local hashing, Hadamard response, subset selection, Laplace, ...).

    The class of randomizers R it stands for (the statement every number here is about):

    * p: for the two differing inputs x1, x1', ``R(x1)(y) <= p R(x1')(y)`` and the reverse
      (p = e^eps0 for an eps0-LDP randomizer), 1 < p <= e^30;
    * beta: their total variation distance ``TV(R(x1), R(x1')) <= beta``,
      0 < beta <= (p - 1)/(p + 1) (the largest total variation a ratio-p pair can have);
    * q: for every input x of the other users, ``R(x1)(y) <= q R(x)(y)`` and
      ``R(x1')(y) <= q R(x)(y)`` (q = e^eps0 for an eps0-LDP randomizer), 1 < q <= e^30;
      default q = p.

    ``eps0`` is ln p.  Proved upper bound: FMT21's clone reduction (Feldman, McMillan, Talwar,
    FOCS 2021, Section 3) with its mixing probability c = 1/q: the reduction needs
    ``R(x) >= c (R(x1) + R(x1'))/2`` for every other user's x, which the q condition gives, and
    the ratio p between R(x1) and R(x1') for the first user's pair; Theorem 3.2 is the case
    c = e^{-eps0}, p = e^{eps0} (:meth:`accountant.engines.pair.DominatingPair.clone_pq`).  Wang et al.'s own
    number (their Theorem: the three-output pair with weight alpha = beta/(p - 1)) is the exact
    divergence of one member of the class (:func:`accountant.bounds.laws.lower.variation_ratio_lower`),
    hence a certified *lower* bound on the class's worst case; as an upper bound it rests on the
    same reduction as the Wang et al.'s Theorem 5 (FMT23 Lemma 3.5), whose proof fails (docs/proved.md,
    Findings), so it is reported as the lower end, not as a proved upper bound.

    Examples
    --------
    >>> from accountant import VariationRatioParams
    >>> VariationRatioParams(p=2.0, beta=0.3).q  # default q = p
    2.0
    """

    p: float
    beta: float
    q: Optional[float] = None
    name: str = field(default="variation-ratio", init=False)
    eps0: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        from accountant.core.limits import check_vr_ratio

        p = check_vr_ratio("p", self.p)
        bmax = (p - 1.0) / (p + 1.0)
        beta = _check_pos("beta", self.beta, 0.0, bmax)
        q = p if self.q is None else check_vr_ratio("q", self.q)
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "beta", beta)
        object.__setattr__(self, "q", q)
        object.__setattr__(self, "eps0", math.log(p))

    @property
    def alpha(self) -> float:
        """alpha = beta/(p - 1): the weight of Wang et al.'s three-output pair."""
        return self.beta / (self.p - 1.0)

    @property
    def mixture_weight(self) -> float:
        """alpha (the weight of Wang et al.'s pair; used as a search's starting point only)."""
        return self.alpha

    @property
    def remainder(self) -> float:
        return max(0.0, 1.0 - self.alpha * (1.0 + self.p))

    @property
    def caveat(self) -> str:
        return CAVEAT_VARIATION_RATIO
