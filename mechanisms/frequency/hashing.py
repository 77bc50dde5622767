"""Hashing for FE0 / FE1: primes, the universal hash family, collision probabilities, preimage counts.

Part of :mod:`mechanisms.frequency`; the package docstring has the mathematics.
"""
from __future__ import annotations
from functools import lru_cache
import numpy as np
from accountant.protocols.bib.law import checked_int
#: candidate (message, preimage) pairs per block of the all-elements query.
BLOCK_CANDIDATES = 1 << 22


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
    q = checked_int("q", q, 3)
    b = checked_int("b", b, 2, q - 1)
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
