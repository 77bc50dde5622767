"""Frequency estimation with (almost) one message per user: the protocols FE0 and FE1.

Luo, Wang, Yi, "Frequency estimation in the shuffle model with (almost) a single
message" (seed 003), Section 2.  Every user holds ``x`` in the domain ``[B]`` (here the
integers ``0 .. B-1``), sends one *real* message and, in expectation, ``rho``
uniformly random *blanket* messages: ``floor(rho)`` for sure and one more with
probability ``rho - floor(rho)`` (Algorithm 4, lines 4-11; for ``rho <= 1`` this is
Algorithm 2).  The shuffler outputs the multiset of all messages.

* **FE0** (Algorithms 2, 3): the real message is ``x``, a blanket message is uniform
  on ``[B]``; the analyzer counts ``x`` and subtracts ``n rho / B``.
* **FE1** (Algorithms 4, 5): with a prime ``q >= B`` and ``2 <= b <= B/2``, the real
  message is ``(u, v, h_{u,v}(x))`` with ``(u, v)`` uniform on ``[q-1] x [q]`` and
  ``h_{u,v}(x) = ((u x + v) mod q) mod b``; a blanket message is uniform on
  ``[q-1] x [q] x Z_b``.  The analyzer counts the tuples with ``h_{u,v}(x) = w`` and
  returns ``(X - n rho/b - n p_col)/(1 - p_col)``.  All ``B`` estimates at once by
  the preimage enumeration of Lemma 2.7 (about ``q/b`` candidates per message).

Privacy.  After removing the other users' real messages (post-processing in reverse:
they are independent of the differing user), FE0 is ``M^BIB(B, 1, n floor(rho), n,
frac(rho))`` (Lemma 2.2) and FE1 is ``M^BIB((q-1) q b, (q-1) q, n floor(rho), n,
frac(rho))`` (Lemma 2.5).  ``rho`` is either the paper's
``32 ln(2/delta)/eps^2 * B/n`` (``b/n`` for FE1; defined for ``eps <= 3``) or the
*exact* ``rho``: the smallest one whose exact balls-into-bins divergence
(:mod:`accountant.bib`) certifies ``(eps, delta)``.  For FE1 the worst-case overlap
of the two special sets is 0 (``b >= 2``) and the divergence depends on ``m/s = b``
only, so the exact ``rho`` of FE1 equals that of FE0 with ``B = b``.  (The two sets
of FE1 really overlap in ``p_col (q-1) q`` tuples; the worst case ignores this, at a
cost of order ``1/b`` in ``rho``.)

Accuracy.  Per element ``x`` with true frequency ``g``,
FE0: ``ghat - g = Y - E Y``, ``Y ~ Bin(n floor(rho), 1/B) + Bin(n, frac/B)``;
FE1: ``ghat - g = (Y - E Y)/(1 - p_col)``,
``Y ~ Bin(n - g, p_col) + Bin(n floor(rho), 1/b) + Bin(n, frac/b)``.
Both estimators are unbiased; :func:`fe0_alpha` / :func:`fe1_alpha` are Lemmas 2.3 /
2.6 (Chernoff + union bound over ``[B]``) with the noise mean written for a general
``rho`` (the lemmas' ``32 ln(2/delta)/eps^2`` is ``n rho/B`` resp. ``n rho/b`` at the
paper's ``rho``; the proofs use nothing else about ``rho``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterator, Optional, Union

import numpy as np

from accountant import bib
from accountant import limits as _limits
from accountant.bib import _int, _num

#: largest domain size: q <= 2B must keep (q-1)^2 < 2^63 in int64 arithmetic.
MAX_DOMAIN = 1 << 30
#: messages generated per block in simulations (bounds the working memory).
BLOCK_MESSAGES = 1 << 21
#: candidate (message, preimage) pairs per block of the all-elements query.
BLOCK_CANDIDATES = 1 << 22
#: the paper's Theorem 2.1 needs eps <= 3.
PAPER_EPS_MAX = bib.PAPER_EPS_MAX

RhoSpec = Union[str, float]


# ----------------------------------------------------------------------------
# number theory for the hash family
# ----------------------------------------------------------------------------

_MR_BASES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)


def is_prime(n: int) -> bool:
    """Deterministic Miller-Rabin (exact for every n < 3.3e24)."""
    n = int(n)
    if n < 2:
        return False
    for p in _MR_BASES:
        if n % p == 0:
            return n == p
    d, r = n - 1, 0
    while d % 2 == 0:
        d //= 2
        r += 1
    for a in _MR_BASES:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def smallest_prime_at_least(B: int) -> int:
    """Smallest prime q >= max(B, 2); q <= 2B by Bertrand's postulate (FE1's q)."""
    q = max(int(B), 2)
    while not is_prime(q):
        q += 1
    return q


def collision_probability(q: int, b: int) -> float:
    """p_col = floor(q/b) ((q mod b) + q - b) / (q (q-1)), the same for every x != y.

    For ``x != y`` in ``Z_q`` the map ``(u, v) -> (u x + v, u y + v) mod q`` is a
    bijection from ``[q-1] x [q]`` onto the pairs ``(r, r')`` with ``r != r'``; the
    colliding ones are the ordered pairs of distinct residues with equal ``mod b``:
    ``sum_c n_c (n_c - 1) = floor(q/b) ((q mod b) + q - b)`` (Section 2.3).
    """
    q = _int("q", q, 3)
    b = _int("b", b, 2, q - 1)
    return (q // b) * ((q % b) + q - b) / (q * (q - 1))


def hash_values(u, v, x, q: int, b: int) -> np.ndarray:
    """h_{u,v}(x) = ((u x + v) mod q) mod b, vectorised (int64, q < 2^31)."""
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    x = np.asarray(x, dtype=np.int64)
    return ((u * x + v) % q) % b


def _modpow(a: np.ndarray, e: int, q: int) -> np.ndarray:
    out = np.ones_like(a)
    base = a % q
    while e:
        if e & 1:
            out = out * base % q
        base = base * base % q
        e >>= 1
    return out


@lru_cache(maxsize=2)
def _inverse_table(q: int) -> np.ndarray:
    """u^{-1} mod q for u = 0 .. q-1 (entry 0 unused), q prime."""
    return _modpow(np.arange(q, dtype=np.int64), q - 2, q)


def _inverses(u: np.ndarray, q: int) -> np.ndarray:
    if q <= (1 << 24):
        return _inverse_table(q)[u]
    return _modpow(u.astype(np.int64), q - 2, q)


def preimage_counts(u, v, w, q: int, b: int, B: int) -> np.ndarray:
    """For every x in [B], the number of tuples (u, v, w) with h_{u,v}(x) = w.

    Lemma 2.7: the solutions in Z_q of h_{u,v}(x) = w are
    x = u^{-1} (w + i b - v) mod q for i = 0 .. floor((q-1-w)/b); those below B
    count.  About q/b candidates per tuple, processed in blocks.
    """
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    w = np.asarray(w, dtype=np.int64)
    counts = np.zeros(B, dtype=np.int64)
    L = (q - 1) // b + 1
    steps = np.arange(L, dtype=np.int64) * b
    block = max(1, BLOCK_CANDIDATES // L)
    for a in range(0, u.size, block):
        uu, vv, ww = u[a:a + block], v[a:a + block], w[a:a + block]
        r = ww[:, None] + steps[None, :]
        valid = r < q
        x = ((r - vv[:, None]) % q) * _inverses(uu, q)[:, None] % q
        keep = valid & (x < B)
        counts += np.bincount(x[keep], minlength=B)
    return counts


# ----------------------------------------------------------------------------
# accuracy statements (Lemmas 2.3 and 2.6)
# ----------------------------------------------------------------------------

def _chernoff_alpha(B: int, beta: float, mu: float) -> float:
    """max{3 ln(2B/beta), sqrt(3 ln(2B/beta) mu)}: P[|Y - mu| > it] < beta/B (Lemma 2.3)."""
    L = 3.0 * math.log(2.0 * B / beta)
    return max(L, math.sqrt(L * mu))


def _check_beta(beta) -> float:
    return _num("beta", beta, 0.0, 1.0, lo_open=True)


def fe0_alpha(n: int, B: int, rho: float, beta: float) -> float:
    """Lemma 2.3: with probability >= 1 - beta every FE0 estimate is within alpha.

    alpha = max{3 ln(2B/beta), sqrt(3 ln(2B/beta) mu)}, mu = n rho / B the expected
    blanket count of an element (the lemma writes mu = 32 ln(2/delta)/eps^2, its
    value at the paper's rho).
    """
    n, B = _int("n", n, 1), _int("B", B, 2)
    rho = _num("rho", rho, 0.0, math.inf)
    return _chernoff_alpha(B, _check_beta(beta), n * rho / B)


def fe1_alpha(n: int, B: int, b: int, rho: float, beta: float, q: Optional[int] = None,
              form: str = "lemma") -> float:
    """Lemma 2.6: with probability >= 1 - beta every FE1 estimate is within alpha.

    ``form="lemma"`` (as stated): 2 max{3 ln(2B/beta), sqrt(3 ln(2B/beta)(n/b + n rho/b))}.
    ``form="proof"`` (inequality (6), tighter): max{3 ln(2B/beta),
    sqrt(3 ln(2B/beta) mu)}/(1 - p_col) with mu = n p_col + n rho/b (its largest
    value over the true frequency); needs ``q`` (default: smallest prime >= B).
    """
    n, B = _int("n", n, 1), _int("B", B, 4)
    b = _int("b", b, 2, B // 2)
    rho = _num("rho", rho, 0.0, math.inf)
    beta = _check_beta(beta)
    if form == "lemma":
        return 2.0 * _chernoff_alpha(B, beta, n / b + n * rho / b)
    if form == "proof":
        q = smallest_prime_at_least(B) if q is None else _check_q(q, B)
        pc = collision_probability(q, b)
        return _chernoff_alpha(B, beta, n * pc + n * rho / b) / (1.0 - pc)
    raise ValueError(f"form must be 'lemma' or 'proof', got {form!r}")


def lemma_2_3_alpha(B: int, eps: float, delta: float, beta: float) -> float:
    """Lemma 2.3 exactly as stated (the paper's rho): mu = 32 ln(2/delta)/eps^2."""
    B = _int("B", B, 2)
    eps = _num("eps", eps, 0.0, math.inf, lo_open=True)
    delta = _num("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    return _chernoff_alpha(B, _check_beta(beta), 32.0 * math.log(2.0 / delta) / eps ** 2)


def lemma_2_6_alpha(n: int, B: int, b: int, eps: float, delta: float, beta: float) -> float:
    """Lemma 2.6 exactly as stated (the paper's rho)."""
    n, B = _int("n", n, 1), _int("B", B, 4)
    b = _int("b", b, 2, B // 2)
    eps = _num("eps", eps, 0.0, math.inf, lo_open=True)
    delta = _num("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    return 2.0 * _chernoff_alpha(B, _check_beta(beta),
                                 n / b + 32.0 * math.log(2.0 / delta) / eps ** 2)


def _check_q(q, B: int) -> int:
    q = _int("q", q, max(B, 3), 2 * MAX_DOMAIN)
    if not is_prime(q):
        raise ValueError(f"q must be a prime >= B = {B}, got {q}")
    return q


# ----------------------------------------------------------------------------
# protocols
# ----------------------------------------------------------------------------

@dataclass(frozen=True)
class FE0Reports:
    """The shuffler's output of FE0: the multiset of messages (a shuffled array)."""

    values: np.ndarray
    n: int

    @property
    def messages_per_user(self) -> float:
        return self.values.size / self.n


@dataclass(frozen=True)
class FE1Reports:
    """The shuffler's output of FE1: tuples (u, v, w) as three shuffled arrays."""

    u: np.ndarray
    v: np.ndarray
    w: np.ndarray
    n: int

    @property
    def messages_per_user(self) -> float:
        return self.u.size / self.n


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
    return _num("rho", rho, 0.0, 1e9), "given"


def _check_common(n, B, eps, delta, B_min: int):
    n = _int("n", n, 1)
    B = _int("B", B, B_min, MAX_DOMAIN)
    eps = _num("eps", eps, 0.0, 700.0, lo_open=True)
    delta = _num("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    return n, B, eps, delta


@dataclass(frozen=True)
class FE0(_BlanketProtocol):
    """P^FE0 (Algorithms 2, 3): real input plus uniform blanket values on [B].

    Build with :meth:`FE0.make` (validates and resolves ``rho``).
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
        x = _int("x", x, 0, self.B - 1)
        return float(np.count_nonzero(reports.values == x)) - self.n * self.rho / self.B

    def variance(self, g: int = 0) -> float:
        """Var ghat(x) = n floor(rho) (1/B)(1 - 1/B) + n f/B (1 - f/B) (the same for every g)."""
        _int("g", g, 0, self.n)
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

    Build with :meth:`FE1.make`.
    """

    b: int = 2
    q: int = 3

    @classmethod
    def make(cls, n: int, B: int, eps: float, delta: float, b: Optional[int] = None,
             rho: RhoSpec = "exact", q: Optional[int] = None, rtol: float = 1e-6) -> "FE1":
        """``b`` defaults to :func:`default_b` (Table 1's b = n / ln n, within [2, B/2]);
        ``q`` to the smallest prime >= B; ``rho`` as in :meth:`FE0.make`."""
        n, B, eps, delta = _check_common(n, B, eps, delta, 4)
        b = default_b(n, B) if b is None else _int("b", b, 2, B // 2)
        q = smallest_prime_at_least(B) if q is None else _check_q(q, B)
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
        x = _int("x", x, 0, self.B - 1)
        X = np.count_nonzero(hash_values(reports.u, reports.v, x, self.q, self.b) == reports.w)
        pc = self.p_col
        return (float(X) - self.n * self.rho / self.b - self.n * pc) / (1.0 - pc)

    def variance(self, g: int = 0) -> float:
        """Var ghat(x) for true frequency g: [(n-g) pc(1-pc) + n fl/b(1-1/b)
        + n f/b (1 - f/b)] / (1 - pc)^2."""
        return float(self.element_variances(np.array([_int("g", g, 0, self.n)]))[0])

    def element_variances(self, g) -> np.ndarray:
        g = np.asarray(g, dtype=np.float64)
        pc, k, f, b = self.p_col, self.n * self.blanket_floor, self.blanket_extra_p, self.b
        v = (self.n - g) * pc * (1 - pc) + k / b * (1 - 1 / b) + self.n * f / b * (1 - f / b)
        return v / (1.0 - pc) ** 2

    def alpha(self, beta: float, form: str = "lemma") -> float:
        """Lemma 2.6 at this protocol's rho (``form`` as in :func:`fe1_alpha`)."""
        return fe1_alpha(self.n, self.B, self.b, self.rho, beta, q=self.q, form=form)


def _n_over_log_n(n: int) -> int:
    return max(2, round(n / math.log(n))) if n >= 3 else 2


def default_b(n: int, B: int) -> int:
    """Table 1's choice b = n / ln n (O(1) messages, O(log n) error), clipped to [2, B/2]."""
    n, B = _int("n", n, 1), _int("B", B, 4, MAX_DOMAIN)
    return int(min(_n_over_log_n(n), B // 2))


# ----------------------------------------------------------------------------
# simulation
# ----------------------------------------------------------------------------

DATA_KINDS = ("zipf", "uniform")


def frequency_data(rng: np.random.Generator, n: int, B: int, kind: str = "zipf",
                   a: float = 1.1) -> np.ndarray:
    """n inputs in [0, B): ``zipf`` (P[x] proportional to (x+1)^-a) or ``uniform``."""
    n, B = _int("n", n, 1), _int("B", B, 2, MAX_DOMAIN)
    if kind == "uniform":
        return rng.integers(0, B, size=n, dtype=np.int64)
    if kind == "zipf":
        a = _num("a", a, 0.0, 100.0)
        w = np.arange(1, B + 1, dtype=np.float64) ** -a
        return rng.choice(B, size=n, p=w / w.sum()).astype(np.int64)
    raise ValueError(f"data must be one of {DATA_KINDS}, got {kind!r}")


def make_protocol(mechanism: str, n: int, B: int, eps: float, delta: Optional[float] = None,
                  rho: RhoSpec = "exact", b: Optional[int] = None, q: Optional[int] = None):
    """FE0 or FE1 by name; ``delta`` defaults to 1/n^2."""
    if delta is None:
        n = _int("n", n, 2)
        delta = 1.0 / float(n) ** 2
    if mechanism == "fe0":
        if b is not None or q is not None:
            raise ValueError("b and q are parameters of fe1, not fe0")
        return FE0.make(n, B, eps, delta, rho=rho)
    if mechanism == "fe1":
        return FE1.make(n, B, eps, delta, b=b, rho=rho, q=q)
    raise ValueError(f"mechanism must be 'fe0' or 'fe1', got {mechanism!r}")


def simulate_frequency(mechanism: str, n: int, B: int, eps: float, delta: Optional[float] = None,
                       rho: RhoSpec = "exact", b: Optional[int] = None, q: Optional[int] = None,
                       reps: int = 1, seed: int = 0, data: str = "zipf",
                       beta: float = 0.1, progress=None) -> dict:
    """Monte-Carlo run of FE0 / FE1 on synthetic data; errors over the whole domain.

    ``progress``: optional ``progress(done, reps)`` called after each run.

    Returns a dict with the protocol's parameters, ``messages_per_user`` (simulated
    mean over runs; ``messages_per_user_expected`` = 1 + rho), ``max_abs_error`` (mean
    over runs of max_x |ghat(x) - g(x)|, each run in ``max_abs_error_runs``),
    ``mean_error`` (average signed error over elements and runs: ~0, unbiased),
    ``rmse`` and its exact value ``rmse_exact`` (mean exact variance over elements),
    ``alpha`` = the paper's bound at ``beta`` (Lemma 2.3 / 2.6 at this rho) with
    ``alpha_proof`` (FE1, inequality (6)), and the privacy accounting at this rho.
    """
    reps = _int("reps", reps, 1)
    seed = _int("seed", seed, 0)
    beta = _check_beta(beta)
    if data not in DATA_KINDS:
        raise ValueError(f"data must be one of {DATA_KINDS}, got {data!r}")
    _limits.check_int("reps", reps, 1, _limits.MAX_REPS)
    proto = make_protocol(mechanism, n, B, eps, delta, rho=rho, b=b, q=q)
    why = _limits.fe_refusal(proto.simulation_cost(), reps)
    if why is not None:
        raise ValueError(f"simulation of {mechanism} refused: {why} (README, Limits)")
    rng = np.random.default_rng(seed)
    max_err, msgs, sq, signed = [], [], 0.0, 0.0
    var_sum = 0.0
    for _ in range(reps):
        x = frequency_data(rng, proto.n, proto.B, data)
        g = np.bincount(x, minlength=proto.B)
        est, mpu = proto.estimate_from_inputs(x, rng)
        err = est - g
        max_err.append(float(np.max(np.abs(err))))
        msgs.append(mpu)
        sq += float(np.sum(err ** 2))
        signed += float(np.sum(err))
        var_sum += float(np.sum(proto.element_variances(g)))
        if progress is not None:
            progress(len(max_err), reps)
    cells = reps * proto.B
    out = {
        "mechanism": mechanism, "n": proto.n, "B": proto.B, "eps": proto.eps,
        "delta": proto.delta, "rho": proto.rho, "rho_source": proto.rho_source,
        "blanket_per_user_fixed": proto.blanket_floor, "blanket_extra_p": proto.blanket_extra_p,
        "messages_per_user_expected": proto.messages_per_user,
        "messages_per_user": float(np.mean(msgs)),
        "bits_per_message": proto.bits_per_message,
        "reps": reps, "seed": seed, "data": data,
        "max_abs_error": float(np.mean(max_err)), "max_abs_error_runs": max_err,
        "mean_error": signed / cells, "rmse": math.sqrt(sq / cells),
        "rmse_exact": math.sqrt(var_sum / cells),
        "beta": beta, "alpha": proto.alpha(beta),
    }
    if isinstance(proto, FE1):
        out.update({"b": proto.b, "q": proto.q, "p_col": proto.p_col,
                    "alpha_proof": proto.alpha(beta, form="proof")})
    out.update({"certified_delta": proto.certified_delta(),
                "paper_condition": proto.paper_condition()})
    return out


# ----------------------------------------------------------------------------
# the paper's rho against the exact rho (README table)
# ----------------------------------------------------------------------------

TABLE_COLUMNS: tuple[str, ...] = (
    "n", "B", "eps", "delta", "mechanism", "b",
    "rho_paper", "rho_exact", "messages_paper", "messages_exact",
    "max_error_paper", "max_error_exact", "alpha_paper", "alpha_exact",
    "certified_delta_at_paper_rho", "reps",
)


def table_mechanism(n: int, B: int) -> tuple[str, Optional[int]]:
    """The protocol the table uses: FE0 when B <= n / ln n (hashing to b = n / ln n
    bins would not shrink the domain), else FE1 with b = :func:`default_b`."""
    n, B = _int("n", n, 2), _int("B", B, 2, MAX_DOMAIN)
    if B < 4 or B <= _n_over_log_n(n):
        return "fe0", None
    return "fe1", default_b(n, B)


def frequency_table(n_values, B_values, eps_values, reps: int = 5, seed: int = 0,
                    beta: float = 0.1, data: str = "zipf", progress=None) -> dict:
    """Messages per user and simulated maximum error, paper's rho against exact rho.

    delta = 1/n^2.  For each cell both protocols instances are simulated ``reps``
    times with the same seed (so the data sets coincide); the paper's rho is not
    defined for eps > 3 (reported as None).  ``certified_delta_at_paper_rho`` is the
    exact accounting's delta at the paper's rho (the paper's condition is sufficient
    when it is <= delta).  ``alpha_*`` = Lemma 2.3 / 2.6 at ``beta``.
    """
    rows = []
    cells = [(n, B, e) for n in n_values for B in B_values for e in eps_values]
    if not 1 <= len(cells) <= _limits.MAX_FE_CELLS:
        raise ValueError(f"n x B x eps: between 1 and {_limits.MAX_FE_CELLS} cells, got {len(cells)}")
    reps = _int("reps", reps, 1)
    for n, B, e in cells:  # every cell's size checked before any simulation
        mech, b = table_mechanism(n, B)
        for src in ("paper", "exact"):
            if src == "paper" and e > PAPER_EPS_MAX:
                continue
            why = _limits.fe_refusal(make_protocol(mech, n, B, e, rho=src, b=b).simulation_cost(),
                                     reps * len(cells))
            if why is not None:
                raise ValueError(f"fe-table cell n={n}, B={B}, eps={e:g} refused: {why}")
    for i, (n, B, e) in enumerate(cells):
        mech, b = table_mechanism(n, B)
        row = {"n": int(n), "B": int(B), "eps": float(e), "delta": 1.0 / float(n) ** 2,
               "mechanism": mech, "b": b, "reps": reps}
        for src in ("paper", "exact"):
            if src == "paper" and e > PAPER_EPS_MAX:
                row.update({"rho_paper": None, "messages_paper": None, "max_error_paper": None,
                            "alpha_paper": None, "certified_delta_at_paper_rho": None})
                continue
            r = simulate_frequency(mech, n, B, e, rho=src, b=b, reps=reps, seed=seed,
                                   data=data, beta=beta)
            row[f"rho_{src}"] = r["rho"]
            row[f"messages_{src}"] = r["messages_per_user_expected"]
            row[f"max_error_{src}"] = r["max_abs_error"]
            row[f"alpha_{src}"] = r["alpha"]
            if src == "paper":
                row["certified_delta_at_paper_rho"] = r["certified_delta"]
        rows.append(row)
        if progress is not None:
            progress(i + 1, len(cells))
    return {"params": {"n": list(n_values), "B": list(B_values), "eps": list(eps_values),
                       "reps": reps, "seed": seed, "beta": beta, "data": data},
            "rows": rows}


def _count_label(v: int) -> str:
    """1e4 for exact powers of ten from 1000 on, else the integer."""
    k = round(math.log10(v)) if v > 0 else 0
    return f"1e{k}" if v >= 1000 and 10 ** k == v else str(v)


def _cell(v, spec: str) -> str:
    if v is None:
        return "n/a"
    return format(v, spec)


def render_frequency_table(result: dict, fmt: str) -> str:
    """``"md"`` (the README table), ``"csv"`` or ``"json"``."""
    import csv
    import io
    import json

    rows = result["rows"]
    if fmt == "json":
        return json.dumps(result, indent=2) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(TABLE_COLUMNS)
        for r in rows:
            w.writerow(["" if r.get(k) is None else r.get(k) for k in TABLE_COLUMNS])
        return buf.getvalue()
    if fmt != "md":
        raise ValueError(f"output format must be csv, md or json, got {fmt!r}")
    p = result["params"]
    lines = [f"delta = 1/n^2; {p['data']} data; mean over {p['reps']} runs (seed {p['seed']}) of "
             f"the maximum absolute error over all B elements; bound = Lemma 2.3/2.6 at "
             f"beta = {p['beta']:g}.", "",
             "| n | B | protocol | eps | messages/user (paper rho) | messages/user (exact rho) "
             "| max error (paper rho) | max error (exact rho) | bound (paper rho) "
             "| bound (exact rho) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        proto = "FE0" if r["mechanism"] == "fe0" else f"FE1, b = {r['b']}"
        lines.append(
            f"| {_count_label(r['n'])} | {_count_label(r['B'])} | {proto} | {r['eps']:g} "
            f"| {_cell(r['messages_paper'], '.4g')} | {_cell(r['messages_exact'], '.4g')} "
            f"| {_cell(r['max_error_paper'], '.1f')} | {_cell(r['max_error_exact'], '.1f')} "
            f"| {_cell(r['alpha_paper'], '.0f')} | {_cell(r['alpha_exact'], '.0f')} |")
    return "\n".join(lines) + "\n"
