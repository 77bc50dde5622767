"""The count law of the exact privacy blanket (atoms, probabilities) and its construction from parameters.

Part of :mod:`accountant.engines.blanket`; the package docstring has the mathematics.
"""
from __future__ import annotations
import math
from dataclasses import dataclass
from functools import singledispatch
import numpy as np
from accountant.core.dispatch import unsupported
from accountant.core.randomizers import CoCoParams, CollisionParams, KRRParams, OUEParams
from accountant.core.randomizers_keyvalue import PCKVAGRRParams, PCKVGRRParams, PCKVUEParams


@dataclass(frozen=True)
class CountLaw:
    """Law of the counts and the coefficients of delta(eps) = E[(sum_c v_c N_c)_+]/n.

    Parameters
    ----------
    p12 : probability of category 1 and of category 2, in (0, 1/2].
    p3 : probability of category 3, >= 0, with 2 p12 + p3 <= 1 (p0 = 1 - 2 p12 - p3).
    a, b : non-negative triples; v_c = a_c - e^eps b_c.
    """

    p12: float
    p3: float
    a: tuple
    b: tuple

    def __post_init__(self) -> None:
        for name in ("p12", "p3"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float, np.floating)) and math.isfinite(v)):
                raise ValueError(f"{name} must be a finite number, got {v!r}")
        if not 0.0 < self.p12 <= 0.5:
            raise ValueError(f"p12 must lie in (0, 1/2], got {self.p12!r}")
        if not 0.0 <= self.p3 <= 1.0:
            raise ValueError(f"p3 must lie in [0, 1], got {self.p3!r}")
        if 2.0 * self.p12 + self.p3 > 1.0 + 1e-12:
            raise ValueError(f"need 2 p12 + p3 <= 1, got p12={self.p12!r}, p3={self.p3!r}")
        for name in ("a", "b"):
            v = getattr(self, name)
            try:
                t = tuple(float(x) for x in v)
            except TypeError:
                raise ValueError(f"{name} must be a triple of numbers >= 0, got {v!r}") from None
            if len(t) != 3 or not all(math.isfinite(x) and x >= 0.0 for x in t):
                raise ValueError(f"{name} must be a triple of finite numbers >= 0, got {v!r}")
            object.__setattr__(self, name, t)
        object.__setattr__(self, "p12", float(self.p12))
        object.__setattr__(self, "p3", float(self.p3))

    @classmethod
    def collision_blanket(cls, eps0: float, s: int, t: int) -> "CountLaw":
        """Privacy blanket of Collision (and CoCo, same Omega) with parameters (s, t), t >= s + 1."""
        if not (isinstance(eps0, (int, float, np.floating)) and math.isfinite(eps0) and eps0 > 0):
            raise ValueError(f"eps0 must be a finite number > 0, got {eps0!r}")
        for name, v in (("s", s), ("t", t)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
        if t < s + 1:
            raise ValueError(f"t must be >= s + 1, got s={s}, t={t}")
        E = math.exp(eps0)
        omega = s * E + (t - s)
        if t >= 2 * s:
            return cls(s / omega, (t - 2 * s) / omega, (E, 1.0, 1.0), (1.0, E, 1.0))
        j0 = 2 * s - t
        return cls((s - j0) / omega, j0 / omega, (E, 1.0, E), (1.0, E, E))

    @classmethod
    def krr_blanket(cls, eps0: float, k: int) -> "CountLaw":
        """Privacy blanket of k-ary randomized response (k >= 2): Collision with s = 1, t = k."""
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
            raise ValueError(f"k must be an integer >= 2, got {k!r}")
        return cls.collision_blanket(eps0, 1, int(k))

    @property
    def p_prime(self) -> float:
        """P[category 3 | not category 1 or 2] = p3 / (1 - 2 p12)."""
        rest = 1.0 - 2.0 * self.p12
        if rest <= 0.0:
            return 0.0
        return min(self.p3 / rest, 1.0)

    @property
    def eps_max(self) -> float:
        """Smallest eps with every v_c <= 0 on a category of positive probability (delta = 0 there)."""
        cats = [0, 1] + ([2] if self.p3 > 0 else [])
        out = 0.0
        for c in cats:
            if self.a[c] > 0:
                if self.b[c] == 0:
                    return math.inf
                out = max(out, math.log(self.a[c] / self.b[c]))
        return out

    def coefficients(self, eps: float) -> tuple[float, float, float]:
        """(v1, v2, v3) = a - e^eps b."""
        u = math.exp(eps)
        return tuple(self.a[c] - u * self.b[c] for c in range(3))


def oue_blanket(eps0: float) -> CountLaw:
    r"""The three-atom relaxation of OUE's blanket (true bit 1 w.p. a = 1/2, other bits
    1 w.p. b = 1/(E + 1), E = e^eps0), for every k: a proved upper bound, looser than the
    exact four-atom :class:`OueBlanket` that :func:`blanket_law` returns (for
    comparison, benchmarks/bench_oue_blanket.py).

    *Blanket.*  With ``Q`` the law of k independent Bern(b) bits, ``R(x)(y) = Q(y) rho(y_x)``
    with ``rho(1) = a/b = (E+1)/2`` and ``rho(0) = (1-a)/(1-b) = (E+1)/(2E) =: B``, so
    ``R(x) >= B Q`` for every x: gamma = B, omega = Q (BBGN19).  The amplification variable
    ``L = (R(x1) - u R(x1'))(W)/(gamma omega(W))``, W ~ Q, depends on the bits (W1, W2) only:
    ``(rho(W1) - u rho(W2))/B`` takes the values E - u ((1, 0), prob b(1-b)), 1 - uE ((0, 1),
    same), 1 - u ((0, 0), prob (1-b)^2) and E(1 - u) ((1, 1), prob b^2); with the blanket's
    null category the count law has probabilities gamma times these.

    *Three atoms.*  Replace the atom E(1-u) by E - u and 1 - uE with probability 1/2 each: the
    new two-point law has mean (1+E)(1-u)/2 >= E(1-u) (u >= 1), so by Jensen it dominates the
    atom in the increasing convex order; that order is preserved by independent sums and by
    mixtures over the blanket count, and (.)_+ is increasing and convex, so the blanket bound
    of the new law is >= OUE's blanket bound: a proved upper bound.  The result:
    ``p12 = B b(1-b) + B b^2/2 = 1/(2(E+1)) + 1/(4E(E+1))``, ``p3 = B (1-b)^2 = E/(2(E+1))``,
    ``a = (E, 1, 1)``, ``b = (1, E, 1)``: the k-RR blanket's shape with OUE's masses.
    """
    if not (isinstance(eps0, (int, float, np.floating)) and math.isfinite(eps0) and eps0 > 0):
        raise ValueError(f"eps0 must be a finite number > 0, got {eps0!r}")
    E = math.exp(eps0)
    # p12 rounded up and p3 down keep the blanket mass on the safe side (2 p12 + p3 = B + 1/(2E(E+1)) - ...)
    p12 = math.nextafter(1.0 / (2.0 * (E + 1.0)) + 1.0 / (4.0 * E * (E + 1.0)), math.inf)
    p3 = E / (2.0 * (E + 1.0))
    return CountLaw(p12, p3, (E, 1.0, 1.0), (1.0, E, 1.0))


def _finite_positive_eps0(e) -> float:
    """``eps0`` as a float, or ValueError naming it and its range."""
    if not (isinstance(e, (int, float, np.floating)) and not isinstance(e, bool)
            and math.isfinite(e) and e > 0):
        raise ValueError(f"eps0 must be a finite number > 0, got {e!r}")
    return float(e)


@dataclass(frozen=True)
class OueBlanket:
    r"""The exact blanket law of optimized unary encoding: four atoms, no relaxation.

    With ``E = e^eps0``, ``b = 1/(E+1)``, blanket weight ``gamma = (E+1)/(2E)`` and ``omega``
    the law of k independent Bern(b) bits (see :func:`oue_blanket` for the decomposition),
    each of the n users is, independently, outside the blanket (probability 1 - gamma) or a
    blanket draw whose bits (W1, W2) at the positions of x1, x1' give the atom

    ====  ==============================  ===============
    bits  probability                     value (u = e^eps)
    ====  ==============================  ===============
    1, 0  gamma b (1-b) = 1/(2(E+1))      E - u
    0, 1  gamma b (1-b) = 1/(2(E+1))      1 - u E
    0, 0  gamma (1-b)^2 = E/(2(E+1))      1 - u
    1, 1  gamma b^2 = 1/(2E(E+1))         E (1 - u)
    ====  ==============================  ===============

    and delta(eps) = E[(sum of the atoms)_+] / n.  Evaluated by
    :mod:`accountant.engines.blanket.oue` (dispatched from
    :func:`accountant.engines.blanket.engine.positive_part`).  It does not depend on k.
    """

    eps0: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps0", _finite_positive_eps0(self.eps0))

    @property
    def E(self) -> float:
        """e^eps0."""
        return math.exp(self.eps0)

    @property
    def b(self) -> float:
        """P[a non-true bit is 1] = 1/(E + 1)."""
        return 1.0 / (self.E + 1.0)

    @property
    def gamma(self) -> float:
        """Blanket weight (E + 1)/(2E)."""
        return (self.E + 1.0) / (2.0 * self.E)

    @property
    def eps_max(self) -> float:
        """eps0: from there on every atom is <= 0 (delta = 0)."""
        return self.eps0

    def atoms(self, eps: float) -> tuple[tuple, tuple]:
        """(probabilities, values) of the atoms (1,0), (0,1), (0,0), (1,1) at eps (the null
        category, probability 1 - gamma, has value 0 and is left out)."""
        E, u = self.E, math.exp(eps)
        p = (0.5 / (E + 1.0), 0.5 / (E + 1.0), 0.5 * E / (E + 1.0), 0.5 / (E * (E + 1.0)))
        return p, (E - u, 1.0 - u * E, 1.0 - u, E * (1.0 - u))

    def nested(self) -> tuple[float, float, float]:
        """(P[(1,0)], P[(0,0)] + P[(1,1)], P[(1,1) | (0,0) or (1,1)]) in closed form: the
        weights of the nested path (:mod:`accountant.engines.blanket.oue`)."""
        E = self.E
        return 0.5 / (E + 1.0), 0.5 * (E * E + 1.0) / (E * (E + 1.0)), 1.0 / (E * E + 1.0)


@dataclass(frozen=True)
class CornerBlanket:
    r"""A blanket law on the four corners of ``[1, E]^2`` with given weights.

    Each of the n users is, independently, a draw whose pair ``(a, b)`` of likelihood ratios
    is ``(E, 1)`` w.p. ``p10``, ``(1, E)`` w.p. ``p10``, ``(1, 1)`` w.p. ``p00``, ``(E, E)``
    w.p. ``p11``, or null (value 0) w.p. ``1 - 2 p10 - p00 - p11 > 0``; the atom's value at
    ``u = e^eps`` is ``a - u b``: ``E - u``, ``1 - uE``, ``1 - u``, ``E (1 - u)``, the
    values of :class:`OueBlanket` (OUE's law is the instance ``p10 = 1/(2(E+1))``,
    ``p00 = E/(2(E+1))``, ``p11 = 1/(2E(E+1))``), and delta(eps) = E[(sum)_+] / n.  The
    random-hash blanket of Collision / OLH is dominated by such a law
    (:mod:`accountant.bounds.laws.random_hash`).  Evaluated by the nested path of
    :mod:`accountant.engines.blanket.oue` (dispatched from
    :func:`accountant.engines.blanket.engine.positive_part`); with ``p00 = 0`` or
    ``p11 = 0`` it is a three-atom :class:`CountLaw` (:meth:`count_law`).
    """

    eps0: float
    p10: float
    p00: float
    p11: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps0", _finite_positive_eps0(self.eps0))
        for name in ("p10", "p00", "p11"):
            v = getattr(self, name)
            if isinstance(v, bool) or not (isinstance(v, (int, float, np.floating)) and math.isfinite(v)):
                raise ValueError(f"{name} must be a finite number, got {v!r}")
            object.__setattr__(self, name, float(v))
        if not 0.0 < self.p10 <= 0.5:
            raise ValueError(f"p10 must lie in (0, 1/2], got {self.p10!r}")
        for name in ("p00", "p11"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must lie in [0, 1], got {getattr(self, name)!r}")
        if math.fsum((self.p10, self.p10, self.p00, self.p11)) >= 1.0:
            raise ValueError(f"the null mass 1 - 2 p10 - p00 - p11 must be > 0, got p10={self.p10!r}, "
                             f"p00={self.p00!r}, p11={self.p11!r}")

    @property
    def E(self) -> float:
        """e^eps0."""
        return math.exp(self.eps0)

    @property
    def gamma(self) -> float:
        """Mass of the four atoms, 2 p10 + p00 + p11 (the null category has the rest)."""
        return math.fsum((self.p10, self.p10, self.p00, self.p11))

    @property
    def eps_max(self) -> float:
        """eps0: from there on every atom is <= 0 (delta = 0)."""
        return self.eps0

    def atoms(self, eps: float) -> tuple[tuple, tuple]:
        """(probabilities, values) of the atoms (1,0), (0,1), (0,0), (1,1) at eps (the null
        category has value 0 and is left out)."""
        E, u = self.E, math.exp(eps)
        return (self.p10, self.p10, self.p00, self.p11), (E - u, 1.0 - u * E, 1.0 - u, E * (1.0 - u))

    def nested(self) -> tuple[float, float, float]:
        """(p10, p00 + p11, p11 / (p00 + p11)): the weights of the nested path."""
        p3 = self.p00 + self.p11
        return self.p10, p3, (self.p11 / p3 if p3 > 0.0 else 0.0)

    def count_law(self) -> "CountLaw | None":
        """The same law as a three-atom :class:`CountLaw` when ``p00 = 0`` or ``p11 = 0``
        (atom ``(1, 1)`` or ``(E, E)`` absent), else None."""
        E = self.E
        if self.p11 == 0.0:
            return CountLaw(self.p10, self.p00, (E, 1.0, 1.0), (1.0, E, 1.0))
        if self.p00 == 0.0:
            return CountLaw(self.p10, self.p11, (E, 1.0, E), (1.0, E, E))
        return None


@singledispatch
def blanket_law(params) -> "CountLaw | OueBlanket":
    """The blanket count law of a mechanism's parameters, by their type: k-RR / RR
    (``params.k``), OUE (the exact four-atom :class:`OueBlanket`; :func:`oue_blanket` is the
    older three-atom relaxation, kept for comparison), or Collision / CoCo / OLH
    (``params.s``, ``params.t``); any other type is refused
    (:class:`~accountant.core.dispatch.UnsupportedMechanismError`).

    Parameters
    ----------
    params : Params
        A parameter object with the t-ary output structure (krr, rr, olh, collision, coco) or
        OUE.

    Returns
    -------
    CountLaw or OueBlanket
        The count law whose exact expectation is the blanket bound's delta.

    References
    ----------
    Balle, Bell, Gascon, Nissim, "The privacy blanket of the shuffle model", CRYPTO 2019.

    Examples
    --------
    >>> from accountant import blanket_law, fmt, make_params
    >>> law = blanket_law(make_params("krr", 2.0, k=4))
    >>> print(type(law).__name__, fmt(law.eps_max, 4))
    CountLaw 2
    """
    raise unsupported(params, "the exact blanket law", blanket_law)


@blanket_law.register(OUEParams)
def _oue_law(params) -> OueBlanket:
    return OueBlanket(params.eps0)


@blanket_law.register(KRRParams)
def _krr_law(params) -> CountLaw:
    return CountLaw.krr_blanket(params.eps0, params.k)


@blanket_law.register(CollisionParams)  # and OLH, the Collision mechanism with s = 1, t = g
@blanket_law.register(CoCoParams)       # same Omega as Collision
def _hashed_law(params) -> CountLaw:
    return CountLaw.collision_blanket(params.eps0, params.s, params.t)


@blanket_law.register(PCKVGRRParams)
def _pckv_grr_law(params) -> CountLaw:
    """The per-pair randomizer's blanket (docs/proved.md, "Key-value baselines"): with PCKV's
    allocation the pair perturbation is 2d-ary randomized response at eps0."""
    return CountLaw.krr_blanket(params.eps0, 2 * params.d)


@blanket_law.register(PCKVAGRRParams)
def _pckv_agrr_law(params) -> CountLaw:
    """The whole randomizer's blanket (docs/proved.md, "Key-value baselines"): a set X reports each
    of its s pairs w.p. e^eps0 / Omega and every other of the 2d pairs w.p. 1 / Omega, Omega =
    s e^eps0 + 2d - s, so the blanket is uniform on the 2d pairs (gamma = 2d / Omega) and the
    worst pair of sets (disjoint pairs: X1' is X1 with its values flipped) is Collision's with
    disjoint images, s and t = 2d."""
    return CountLaw.collision_blanket(params.eps0, params.s, 2 * params.d)


@blanket_law.register(PCKVUEParams)
def _pckv_ue_law(params) -> CountLaw:
    """The per-pair randomizer's blanket (docs/proved.md, "Key-value baselines"): every row is
    prod_i o(y_i) times e^eps0 gamma (coordinate k of the report says v) or gamma (otherwise),
    gamma = (e^eps0 + 3)/(2 (e^eps0 + 1)); the worst pair (k, +1) vs (k, -1) puts
    1/(2 (e^eps0 + 1)) on (e^eps0, 1) and on (1, e^eps0) and 1/2 on (1, 1), whatever d."""
    E = math.exp(params.eps0)
    return CountLaw(0.5 / (E + 1.0), 0.5, (E, 1.0, 1.0), (1.0, E, 1.0))
