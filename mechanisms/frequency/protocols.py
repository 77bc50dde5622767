"""The protocols FE0 and FE1 with blanket messages: reports, estimates, rho.

Both are from Luo, Wang, Yi, "Frequency estimation in the shuffle model with (almost) a
single message": FE0 is its Algorithms 2 and 3 (Lemma 2.2), FE1 its Algorithms 4 and 5
(Lemma 2.5).  Part of :mod:`mechanisms.frequency`; the package docstring has the mathematics.
"""
from __future__ import annotations
import math
from dataclasses import dataclass, field, fields
from typing import Iterator, Optional, Union
import numpy as np
from accountant.protocols import bib
from accountant.protocols.bib.law import checked_int, checked_number
from mechanisms.frequency.hashing import collision_probability, hash_values, preimage_counts, smallest_prime_at_least
from mechanisms.frequency.accuracy import MAX_DOMAIN, check_q, fe0_alpha, fe1_alpha
#: messages generated per block in simulations (bounds the working memory).
BLOCK_MESSAGES = 1 << 21
#: the paper's Theorem 2.1 needs eps <= 3.
PAPER_EPS_MAX = bib.PAPER_EPS_MAX

RhoSpec = Union[str, float]


# ----------------------------------------------------------------------------
# protocols
# ----------------------------------------------------------------------------

class _Shuffled:
    """A shuffler's output whose first field holds one entry a message, and ``n`` users."""

    @property
    def messages_per_user(self) -> float:
        return getattr(self, fields(self)[0].name).size / self.n


@dataclass(frozen=True)
class FE0Reports(_Shuffled):
    """The shuffler's output of FE0: the multiset of messages (a shuffled array)."""

    values: np.ndarray
    n: int


@dataclass(frozen=True)
class FE1Reports(_Shuffled):
    """The shuffler's output of FE1: tuples (u, v, w) as three shuffled arrays."""

    u: np.ndarray
    v: np.ndarray
    w: np.ndarray
    n: int


@dataclass(frozen=True)
class _BlanketProtocol:
    """Common part of FE0 / FE1: the blanket rule and its balls-into-bins accounting."""

    n: int
    B: int
    eps: float
    delta: float
    rho: float
    rho_source: str = field(default="given")

    # --- the protocol's M^BIB ---------------------------------------------
    @property
    def blanket_floor(self) -> int:
        """Blanket messages every user sends for sure (floor(rho))."""
        return bib.params_for_rho(0, self.n, self.rho)[0] // self.n

    @property
    def blanket_extra_p(self) -> float:
        """Probability of one more blanket message (rho - floor(rho))."""
        return bib.params_for_rho(0, self.n, self.rho)[1]

    @property
    def messages_per_user(self) -> float:
        """Expected messages per user: 1 + rho."""
        return 1.0 + self.rho

    def bib_parameters(self) -> tuple[int, int, int, int, float]:
        """(m, s, k, n, p) of the M^BIB the privacy proof reduces to."""
        m, s = self._bins()
        k, p = bib.params_for_rho(0, self.n, self.rho)
        return m, s, k, self.n, p

    def certified_delta(self, eps: Optional[float] = None) -> float:
        """Certified upper bound on delta at ``eps`` (default: the protocol's eps)."""
        e = self.eps if eps is None else eps
        return bib.bib_delta(e, *self.bib_parameters(), target=self.delta)

    def certified_epsilon(self, delta: Optional[float] = None) -> bib.BibEpsilon:
        """Smallest eps certified at ``delta`` (default: the protocol's delta)."""
        return bib.bib_epsilon(self.delta if delta is None else delta, *self.bib_parameters())

    def paper_condition(self) -> bool:
        """Whether Theorem 2.1 (k + n p >= 32 ln(2/delta)/eps^2 m/s, eps <= 3) holds."""
        return bib.paper_condition(self.eps, self.delta, *self.bib_parameters())

    def privacy(self) -> dict:
        """The protocol's guarantee: certified delta at eps, and the paper's condition."""
        d = self.certified_delta()
        return {"eps": self.eps, "delta": self.delta, "certified_delta": d,
                "meets_delta": d <= self.delta, "paper_condition": self.paper_condition()}

    # --- simulation machinery --------------------------------------------
    def _blanket_total(self, rng: np.random.Generator) -> int:
        k, p = bib.params_for_rho(0, self.n, self.rho)
        return int(k + (rng.binomial(self.n, p) if p > 0 else 0))

    def _blocks(self, total: int) -> Iterator[int]:
        for a in range(0, total, BLOCK_MESSAGES):
            yield min(BLOCK_MESSAGES, total - a)

    def _check_inputs(self, x) -> np.ndarray:
        x = np.asarray(x)
        if x.ndim != 1 or x.size != self.n:
            raise ValueError(f"x must be a 1-d array of the n = {self.n} users' inputs, "
                             f"got shape {x.shape}")
        if not np.issubdtype(x.dtype, np.integer):
            raise ValueError("x must hold integers in [0, B)")
        if x.size and (x.min() < 0 or x.max() >= self.B):
            raise ValueError(f"x must hold integers in [0, B) = [0, {self.B}), "
                             f"got values in [{x.min()}, {x.max()}]")
        return x.astype(np.int64, copy=False)

    def estimate_from_inputs(self, x, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        """Run the protocol on inputs ``x`` and return (all B estimates, messages per user).

        Same distribution as ``estimate_all(randomize(x, rng))`` (the estimates depend on
        the multiset only, so no shuffle is needed), streamed in blocks so that
        billions of messages fit in memory.
        """
        x = self._check_inputs(x)
        counts = self._count(self._real_messages(x, rng))
        total = self._blanket_total(rng)
        for size in self._blocks(total):
            counts += self._count(self._blanket_messages(size, rng))
        return self._estimate(counts), 1.0 + total / self.n

    def randomize(self, x, rng: np.random.Generator):
        """Local randomizers of all n users followed by the shuffler (a random permutation)."""
        x = self._check_inputs(x)
        real = self._real_messages(x, rng)
        noise = self._blanket_messages(self._blanket_total(rng), rng)
        return self._shuffle(real, noise, rng)

    def estimate_all(self, reports) -> np.ndarray:
        """Estimated frequency of every element of [B] (length-B float array)."""
        return self._estimate(self._count(self._messages_of(reports)))

    def element_variances(self, g) -> np.ndarray:
        """Exact variances of the estimates of elements with true frequencies ``g`` (array)."""
        raise NotImplementedError  # pragma: no cover - FE0 / FE1 define it

    def std(self, g: int = 0) -> float:
        """Exact standard deviation of an estimate whose true frequency is ``g``."""
        return math.sqrt(self.variance(g))

    def simulation_cost(self) -> dict:
        """Expected size of one simulated run: ``messages`` = n (1 + rho) generated and
        analysed, ``candidates`` = elements the all-elements analysis touches (FE0: one per
        message; FE1: about q/b per message, Lemma 2.7), ``domain`` = B counters."""
        msgs = self.n * (1.0 + self.rho)
        return {"users": self.n, "messages": msgs, "candidates": msgs * self._candidates_per_message(),
                "domain": self.B}


def _resolve_rho(rho: RhoSpec, eps: float, delta: float, m: int, s: int, n: int,
                 rtol: float) -> tuple[float, str]:
    if isinstance(rho, str):
        if rho == "paper":
            r = bib.paper_rho(eps, delta, m, s, 0, n)
            if r is None:
                raise ValueError(f"rho='paper' needs eps <= {PAPER_EPS_MAX:g} "
                                 f"(Theorem 2.1), got eps = {eps:g}; use rho='exact'")
            return r, "paper"
        if rho == "exact":
            return bib.bib_rho_for(eps, delta, m, s, 0, n, rtol=rtol).rho, "exact"
        raise ValueError(f"rho must be 'paper', 'exact' or a number >= 0, got {rho!r}")
    return checked_number("rho", rho, 0.0, 1e9), "given"


def _check_common(n, B, eps, delta, B_min: int):
    n = checked_int("n", n, 1)
    B = checked_int("B", B, B_min, MAX_DOMAIN)
    eps = checked_number("eps", eps, 0.0, 700.0, lo_open=True)
    delta = checked_number("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    return n, B, eps, delta


@dataclass(frozen=True)
class FE0(_BlanketProtocol):
    """P^FE0 (Algorithms 2, 3): real input plus uniform blanket values on [B].

    Build with :meth:`FE0.make` (validates and resolves ``rho``); the paper and its
    Lemma 2.2 (FE0 as an instance of M^BIB): module docstring.

    Examples
    --------
    >>> import numpy as np
    >>> from accountant import fmt
    >>> from mechanisms import FE0
    >>> fe = FE0.make(n=1000, B=16, eps=1.0, delta=1e-6)
    >>> print(fe.rho_source, fmt(fe.rho, 4, "up"))
    exact 0.679
    >>> x = np.random.default_rng(0).integers(0, 16, size=1000)
    >>> est, _ = fe.estimate_from_inputs(x, np.random.default_rng(1))
    >>> est.shape
    (16,)
    """

    @classmethod
    def make(cls, n: int, B: int, eps: float, delta: float, rho: RhoSpec = "exact",
             rtol: float = 1e-6) -> "FE0":
        """``rho``: ``"paper"`` (Lemma 2.2, lifted to rho > 1 as in Section 2.3),
        ``"exact"`` (smallest rho certified by the exact M^BIB accounting, to
        relative tolerance ``rtol``, always on the private side) or a number."""
        n, B, eps, delta = _check_common(n, B, eps, delta, 2)
        r, src = _resolve_rho(rho, eps, delta, B, 1, n, rtol)
        return cls(n=n, B=B, eps=eps, delta=delta, rho=r, rho_source=src)

    def _bins(self):
        return self.B, 1

    def _candidates_per_message(self) -> int:
        return 1

    @property
    def bits_per_message(self) -> int:
        return max(1, math.ceil(math.log2(self.B)))

    def _real_messages(self, x, rng):
        return x

    def _blanket_messages(self, size, rng):
        return rng.integers(0, self.B, size=size, dtype=np.int64)

    def _shuffle(self, real, noise, rng) -> FE0Reports:
        return FE0Reports(values=rng.permutation(np.concatenate([real, noise])), n=self.n)

    def _messages_of(self, reports: FE0Reports):
        return reports.values

    def _count(self, values) -> np.ndarray:
        return np.bincount(values, minlength=self.B).astype(np.int64)

    def _estimate(self, counts) -> np.ndarray:
        return counts - self.n * self.rho / self.B

    def query(self, reports: FE0Reports, x: int) -> float:
        """Algorithm 3: the frequency of ``x`` in the multiset minus n rho / B."""
        x = checked_int("x", x, 0, self.B - 1)
        return float(np.count_nonzero(reports.values == x)) - self.n * self.rho / self.B

    def variance(self, g: int = 0) -> float:
        """Var ghat(x) = n floor(rho) (1/B)(1 - 1/B) + n f/B (1 - f/B) (the same for every g)."""
        checked_int("g", g, 0, self.n)
        k, f = self.n * self.blanket_floor, self.blanket_extra_p
        return k / self.B * (1 - 1 / self.B) + self.n * f / self.B * (1 - f / self.B)

    def element_variances(self, g) -> np.ndarray:
        return np.full(np.asarray(g).shape, self.variance())

    def alpha(self, beta: float) -> float:
        """Lemma 2.3 at this protocol's rho."""
        return fe0_alpha(self.n, self.B, self.rho, beta)


@dataclass(frozen=True)
class FE1(_BlanketProtocol):
    """P^FE1 (Algorithms 4, 5): hashed real message, uniform blanket tuples.

    Build with :meth:`FE1.make`; its Lemma 2.5 (FE1 as an instance of M^BIB): module docstring.

    Examples
    --------
    >>> from accountant import fmt
    >>> from mechanisms import FE1
    >>> fe = FE1.make(n=1000, B=64, eps=1.0, delta=1e-6)
    >>> print(fe.b, fe.q, fe.rho_source, fmt(fe.rho, 4, "up"))
    32 67 exact 1.361
    """

    b: int = 2
    q: int = 3

    @classmethod
    def make(cls, n: int, B: int, eps: float, delta: float, b: Optional[int] = None,
             rho: RhoSpec = "exact", q: Optional[int] = None, rtol: float = 1e-6) -> "FE1":
        """``b`` defaults to :func:`default_b` (Table 1's b = n / ln n, within [2, B/2]);
        ``q`` to the smallest prime >= B; ``rho`` as in :meth:`FE0.make`."""
        n, B, eps, delta = _check_common(n, B, eps, delta, 4)
        b = default_b(n, B) if b is None else checked_int("b", b, 2, B // 2)
        q = smallest_prime_at_least(B) if q is None else check_q(q, B)
        m, s = (q - 1) * q * b, (q - 1) * q
        r, src = _resolve_rho(rho, eps, delta, m, s, n, rtol)
        return cls(n=n, B=B, eps=eps, delta=delta, rho=r, rho_source=src, b=b, q=q)

    def _bins(self):
        return (self.q - 1) * self.q * self.b, (self.q - 1) * self.q

    def _candidates_per_message(self) -> int:
        return (self.q - 1) // self.b + 1

    @property
    def p_col(self) -> float:
        return collision_probability(self.q, self.b)

    @property
    def bits_per_message(self) -> int:
        """2 log q + log b (Lemma 2.7), rounded up per field."""
        return 2 * math.ceil(math.log2(self.q)) + math.ceil(math.log2(self.b))

    def _real_messages(self, x, rng):
        u = rng.integers(1, self.q, size=x.size, dtype=np.int64)
        v = rng.integers(0, self.q, size=x.size, dtype=np.int64)
        return u, v, hash_values(u, v, x, self.q, self.b)

    def _blanket_messages(self, size, rng):
        return (rng.integers(1, self.q, size=size, dtype=np.int64),
                rng.integers(0, self.q, size=size, dtype=np.int64),
                rng.integers(0, self.b, size=size, dtype=np.int64))

    def _shuffle(self, real, noise, rng) -> FE1Reports:
        perm = rng.permutation(real[0].size + noise[0].size)
        u, v, w = (np.concatenate([a, c])[perm] for a, c in zip(real, noise))
        return FE1Reports(u=u, v=v, w=w, n=self.n)

    def _messages_of(self, reports: FE1Reports):
        return reports.u, reports.v, reports.w

    def _count(self, uvw) -> np.ndarray:
        return preimage_counts(*uvw, self.q, self.b, self.B)

    def _estimate(self, counts) -> np.ndarray:
        pc = self.p_col
        return (counts - self.n * self.rho / self.b - self.n * pc) / (1.0 - pc)

    def query(self, reports: FE1Reports, x: int) -> float:
        """Algorithm 5: count tuples with h_{u,v}(x) = w, remove the expected bias."""
        x = checked_int("x", x, 0, self.B - 1)
        X = np.count_nonzero(hash_values(reports.u, reports.v, x, self.q, self.b) == reports.w)
        pc = self.p_col
        return (float(X) - self.n * self.rho / self.b - self.n * pc) / (1.0 - pc)

    def variance(self, g: int = 0) -> float:
        """Var ghat(x) for true frequency g: [(n-g) pc(1-pc) + n fl/b(1-1/b)
        + n f/b (1 - f/b)] / (1 - pc)^2."""
        return float(self.element_variances(np.array([checked_int("g", g, 0, self.n)]))[0])

    def element_variances(self, g) -> np.ndarray:
        g = np.asarray(g, dtype=np.float64)
        pc, k, f, b = self.p_col, self.n * self.blanket_floor, self.blanket_extra_p, self.b
        v = (self.n - g) * pc * (1 - pc) + k / b * (1 - 1 / b) + self.n * f / b * (1 - f / b)
        return v / (1.0 - pc) ** 2

    def alpha(self, beta: float, form: str = "lemma") -> float:
        """Lemma 2.6 at this protocol's rho (``form`` as in :func:`fe1_alpha`)."""
        return fe1_alpha(self.n, self.B, self.b, self.rho, beta, q=self.q, form=form)


def n_over_log_n(n: int) -> int:
    return max(2, round(n / math.log(n))) if n >= 3 else 2


def default_b(n: int, B: int) -> int:
    """Table 1's choice b = n / ln n (O(1) messages, O(log n) error), clipped to [2, B/2]."""
    n, B = checked_int("n", n, 1), checked_int("B", B, 4, MAX_DOMAIN)
    return int(min(n_over_log_n(n), B // 2))


def make_protocol(mechanism: str, n: int, B: int, eps: float, delta: Optional[float] = None,
                  rho: RhoSpec = "exact", b: Optional[int] = None, q: Optional[int] = None):
    """FE0 or FE1 by name; ``delta`` defaults to 1/n^2.

    Parameters
    ----------
    mechanism : str
        ``"fe0"`` or ``"fe1"``.
    n : int
        Number of users.
    B : int
        Domain size.
    eps : float
        Central epsilon.
    delta : float, optional
        Central delta (default ``1/n^2``).
    rho : str or float
        ``"exact"``, ``"paper"`` or a number (see :meth:`FE0.make`).
    b, q : int, optional
        FE1's hash range and prime (FE1 only).

    Returns
    -------
    FE0 or FE1
        The protocol with its blanket rate resolved.

    Examples
    --------
    >>> from mechanisms import make_protocol
    >>> fe = make_protocol("fe0", n=1000, B=16, eps=1.0)
    >>> print(type(fe).__name__, fe.delta)
    FE0 1e-06
    """
    if delta is None:
        n = checked_int("n", n, 2)
        delta = 1.0 / float(n) ** 2
    if mechanism == "fe0":
        if b is not None or q is not None:
            raise ValueError("b and q are parameters of fe1, not fe0")
        return FE0.make(n, B, eps, delta, rho=rho)
    if mechanism == "fe1":
        return FE1.make(n, B, eps, delta, b=b, rho=rho, q=q)
    raise ValueError(f"mechanism must be 'fe0' or 'fe1', got {mechanism!r}")
