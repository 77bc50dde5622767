"""Exact hockey-stick divergence of shuffled outputs on tiny instances.

Used to check Theorem 5 (upper bound D(P_a || Q_a)) and Theorem 6 (lower bound) of
the Wang et al. (numerical vector analyses) numerically for the (d, s, eps0, t)-Collision mechanism
(Definition 5).  Nothing here is used by the accountant itself.

Exactness of the reductions
---------------------------
* Shuffling.  The analyst sees the multiset of the n reports.  With per-user laws
  A[i, .] on a finite alphabet, P_D(M) = perm(A[:, M]) / prod_k m_k! for the multiset
  M (m_k = multiplicity of symbol k), i.e. the sum of prod_i A[i, o_i] over the
  distinct orderings o of M.  We enumerate all multisets of size n.
* Alphabet.  A report is (H, z).  For a fixed H, P[z | x, H] depends only on the pair
  (z in H(Y_x), |H(Y_x)|) (Definition 5).  Two symbols (H, z), (H', z') that have the
  same such pair for *every* input x of interest therefore have the same probability
  under every input (the hash is uniform over the family, so P[H] = P[H']).  Replacing
  every symbol by its class is a deterministic map whose fibres carry, under every
  input, a conditional law that does not depend on the input; on n-tuples the
  conditional law of the tuple given the tuple of classes is the product of those
  fibre laws, again input-free.  Hence the class of each report is a sufficient
  statistic for the whole family {law of the shuffled output under D : D} and the
  hockey-stick divergence between any two datasets is unchanged by the reduction
  (data processing in both directions).  The class keys are exact combinatorial
  data (booleans and integers), so no floating-point grouping is involved.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

import numpy as np

# ----------------------------------------------------------------------------
# Inputs and hash families
# ----------------------------------------------------------------------------


def collision_inputs(d: int, s: int) -> list[tuple[int, ...]]:
    """All valid inputs Y_x: s-subsets of Y = {1-, 1+, ..., d-, d+} with at most one
    sign per coordinate.  Element j- has index 2j, j+ has index 2j + 1 (j = 0..d-1)."""
    if not (1 <= s <= d):
        raise ValueError(f"need 1 <= s <= d, got d={d}, s={s}")
    out = []
    for coords in itertools.combinations(range(d), s):
        for signs in itertools.product((0, 1), repeat=s):
            out.append(tuple(2 * j + b for j, b in zip(coords, signs)))
    return out


def all_hash_functions(d: int, t: int) -> np.ndarray:
    """Every function Y -> [t] as a (t^(2d), 2d) integer array (the uniform family of
    all functions)."""
    k = 2 * d
    if t ** k > 5_000_000:
        raise ValueError("hash family too large to enumerate")
    return np.array(list(itertools.product(range(t), repeat=k)), dtype=np.int64).reshape(-1, k)


def injective_hash_functions(d: int, t: int, support: Optional[Sequence[int]] = None) -> np.ndarray:
    """Uniform family of all functions Y -> [t] that are injective on ``support``
    (default: all of Y).  Used for Theorem 6, whose proof needs hashes with disjoint
    images of Y_x1, Y_x1' and Y_x*."""
    H = all_hash_functions(d, t)
    sup = list(range(2 * d)) if support is None else list(support)
    sub = H[:, sup]
    ok = np.ones(len(H), dtype=bool)
    for i, j in itertools.combinations(range(len(sup)), 2):
        ok &= sub[:, i] != sub[:, j]
    if not ok.any():
        raise ValueError("no injective function: t too small for the support")
    return H[ok]


# ----------------------------------------------------------------------------
# Collision law and class alphabet
# ----------------------------------------------------------------------------


def collision_prob(in_image: np.ndarray, m: np.ndarray, s: int, t: int, eps0: float) -> np.ndarray:
    """P[z | x, H] of Definition 5 given (z in H(Y_x), m = |H(Y_x)|)."""
    E = math.exp(eps0)
    omega = s * E + t - s
    m = np.asarray(m, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        outside = (omega - E * m) / ((t - m) * omega)
    return np.where(in_image, E / omega, outside)


@dataclass(frozen=True)
class ClassAlphabet:
    """Report classes of the Collision mechanism for a given hash family.

    inputs : the inputs (tuples of indices into Y), rows of ``law``.
    keys : (K, len(inputs), 2) int array; keys[k, j] = (z in H(Y_x_j), |H(Y_x_j)|).
    weight : (K,) fraction of (H, z) symbols of the family in class k (sums to t).
    law : (len(inputs), K) array, law[j, k] = P[class k | input j] (rows sum to 1).
    """

    d: int
    s: int
    t: int
    eps0: float
    inputs: tuple
    keys: np.ndarray
    weight: np.ndarray
    law: np.ndarray

    def index(self, x) -> int:
        return self.inputs.index(tuple(x))

    def restrict(self, rows: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Merge classes whose keys agree on the inputs ``rows`` (exact: those classes
        have identical probabilities under each of these inputs).  Returns
        (law over merged classes for the given rows, merged weights)."""
        rows = sorted(set(rows))
        sub = self.keys[:, rows, :].reshape(len(self.keys), -1)
        uniq, inv = np.unique(sub, axis=0, return_inverse=True)
        inv = inv.ravel()
        K2 = len(uniq)
        law = np.zeros((len(self.inputs), K2))
        for j in range(len(self.inputs)):
            np.add.at(law[j], inv, self.law[j])
        w = np.zeros(K2)
        np.add.at(w, inv, self.weight)
        return law, w


def collision_alphabet(d: int, s: int, t: int, eps0: float, hashes: Optional[np.ndarray] = None,
                       inputs: Optional[Sequence[Sequence[int]]] = None) -> ClassAlphabet:
    """Exact class alphabet of (H, z) reports for the uniform family ``hashes``
    (default: all functions Y -> [t])."""
    if not t > s:
        raise ValueError("need t > s")
    H = all_hash_functions(d, t) if hashes is None else np.asarray(hashes, dtype=np.int64)
    X = collision_inputs(d, s) if inputs is None else [tuple(x) for x in inputs]
    F = len(H)
    z = np.arange(t)
    # per (H, z, input): in_image, image size
    keys = np.empty((F, t, len(X), 2), dtype=np.int64)
    for j, x in enumerate(X):
        img = H[:, list(x)]  # (F, s)
        member = (img[:, :, None] == z[None, None, :]).any(axis=1)  # (F, t)
        m = member.sum(axis=1)  # distinct hashed values
        keys[:, :, j, 0] = member
        keys[:, :, j, 1] = m[:, None]
    flat = keys.reshape(F * t, len(X) * 2)
    uniq, inv, counts = np.unique(flat, axis=0, return_inverse=True, return_counts=True)
    ukeys = uniq.reshape(-1, len(X), 2)
    weight = counts / F
    law = np.empty((len(X), len(uniq)))
    for j in range(len(X)):
        law[j] = weight * collision_prob(ukeys[:, j, 0].astype(bool), ukeys[:, j, 1], s, t, eps0)
    return ClassAlphabet(d, s, t, float(eps0), tuple(X), ukeys, weight, law)


# ----------------------------------------------------------------------------
# Shuffled (multiset) laws and divergence
# ----------------------------------------------------------------------------


def _multisets(K: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    idx = np.array(list(itertools.combinations_with_replacement(range(K), n)), dtype=np.int64)
    idx = idx.reshape(-1, n)
    # prod of multiplicity factorials
    fac = np.ones(len(idx))
    for k in range(K):
        c = (idx == k).sum(axis=1)
        fac *= np.array([math.factorial(int(v)) for v in range(n + 1)])[c]
    return idx, fac


def shuffled_law(rows: np.ndarray, idx: np.ndarray, fac: np.ndarray) -> np.ndarray:
    """P(multiset) for independent users with laws ``rows`` (n x K), over the
    multisets ``idx`` (sorted index tuples) with multiplicity factorials ``fac``."""
    n = rows.shape[0]
    total = np.zeros(len(idx))
    for perm in itertools.permutations(range(n)):
        prod = np.ones(len(idx))
        for i in range(n):
            prod *= rows[i, idx[:, perm[i]]]
        total += prod
    return total / fac


def shuffled_hockey_stick(rows_D: np.ndarray, rows_Dp: np.ndarray, eps: Iterable[float]) -> np.ndarray:
    """Exact D_{e^eps}(S(D) || S(D')) for every eps, where row i of ``rows_D``
    (``rows_Dp``) is user i's law on a common finite alphabet."""
    rows_D = np.asarray(rows_D, dtype=np.float64)
    rows_Dp = np.asarray(rows_Dp, dtype=np.float64)
    n, K = rows_D.shape
    idx, fac = _multisets(K, n)
    P = shuffled_law(rows_D, idx, fac)
    Q = shuffled_law(rows_Dp, idx, fac)
    eps = np.atleast_1d(np.asarray(list(eps) if not np.isscalar(eps) else [eps], dtype=np.float64))
    return np.array([float(np.maximum(P - math.exp(e) * Q, 0.0).sum()) for e in eps])


def _drop_null_columns(*mats: np.ndarray) -> list[np.ndarray]:
    keep = np.zeros(mats[0].shape[1], dtype=bool)
    for M in mats:
        keep |= (M > 0).any(axis=0)
    return [M[:, keep] for M in mats]


def collision_shuffled_divergence(alpha: ClassAlphabet, x1, x1p, others: Sequence, eps) -> np.ndarray:
    """Exact D_{e^eps}(S(R(x1), R(x2..xn)) || S(R(x1'), R(x2..xn))) for the
    Collision mechanism with the alphabet's hash family."""
    j1, j1p = alpha.index(x1), alpha.index(x1p)
    jo = [alpha.index(x) for x in others]
    law, _ = alpha.restrict([j1, j1p] + jo)
    rows_D = law[[j1] + jo]
    rows_Dp = law[[j1p] + jo]
    rows_D, rows_Dp = _drop_null_columns(rows_D, rows_Dp)
    return shuffled_hockey_stick(rows_D, rows_Dp, eps)


def worst_case_divergence(alpha: ClassAlphabet, n: int, eps, combos: Optional[Sequence] = None
                          ) -> tuple[np.ndarray, list]:
    """Max over x1 != x1' and every multiset {x2..xn} of inputs of the exact shuffled
    divergence, for each eps.  ``combos`` (e.g. from ``input_orbit_representatives``)
    restricts the search to given (x1, x1', others) triples.  Returns (max values,
    argmax input triples)."""
    X = alpha.inputs
    eps = np.atleast_1d(np.asarray(eps, dtype=np.float64))
    if combos is None:
        combos = [(x1, x1p, others) for x1, x1p in itertools.permutations(X, 2)
                  for others in itertools.combinations_with_replacement(X, n - 1)]
    best = np.full(len(eps), -1.0)
    arg: list = [None] * len(eps)
    for x1, x1p, others in combos:
        if len(others) != n - 1:
            raise ValueError("each combo needs n - 1 further inputs")
        v = collision_shuffled_divergence(alpha, x1, x1p, others, eps)
        for i in range(len(eps)):
            if v[i] > best[i]:
                best[i] = v[i]
                arg[i] = (x1, x1p, tuple(others))
    return best, arg


# ----------------------------------------------------------------------------
# Symmetry pruning (exact)
# ----------------------------------------------------------------------------


def symmetry_group(alpha_inputs: Sequence[tuple], hashes: np.ndarray, d: int) -> list[tuple[int, ...]]:
    """Permutations g of Y that map the input set onto itself and the hash family onto
    itself (H -> H o g^-1).  The shuffled divergence is invariant under relabelling the
    inputs by such a g, so one representative per orbit suffices."""
    k = 2 * d
    X = {tuple(sorted(x)) for x in alpha_inputs}
    fam = {tuple(r) for r in np.asarray(hashes).tolist()}
    out = []
    for g in itertools.permutations(range(k)):
        if {tuple(sorted(g[y] for y in x)) for x in X} != X:
            continue
        # (H o g^-1)(y) = H(g^-1(y)); as an array: new[:, g[y]] = H[:, y]
        Hg = np.empty_like(hashes)
        Hg[:, list(g)] = hashes
        if {tuple(r) for r in Hg.tolist()} == fam:
            out.append(g)
    return out


def input_orbit_representatives(inputs: Sequence[tuple], n: int, group: Sequence[tuple]) -> list:
    """One (x1, x1', others) per orbit of the group on ordered pairs x1 != x1' times
    multisets of n - 1 further inputs."""
    X = [tuple(sorted(x)) for x in inputs]

    def act(g, x):
        return tuple(sorted(g[y] for y in x))

    seen = set()
    reps = []
    for x1, x1p in itertools.permutations(X, 2):
        for others in itertools.combinations_with_replacement(X, n - 1):
            key = (x1, x1p, tuple(sorted(others)))
            if key in seen:
                continue
            reps.append(key)
            for g in group:
                seen.add((act(g, x1), act(g, x1p), tuple(sorted(act(g, o) for o in others))))
    return reps


# ----------------------------------------------------------------------------
# Larger n when users 2..n share one input (histogram of classes is sufficient)
# ----------------------------------------------------------------------------


def compositions(n: int, K: int) -> np.ndarray:
    """All vectors of K non-negative integers summing to n, as an (N, K) array."""
    out = []
    for bars in itertools.combinations(range(n + K - 1), K - 1):
        prev = -1
        row = []
        for b in bars:
            row.append(b - prev - 1)
            prev = b
        row.append(n + K - 1 - prev - 1)
        out.append(row)
    return np.array(out, dtype=np.int64).reshape(-1, K)


def shuffled_hockey_stick_common_others(p1: np.ndarray, p1p: np.ndarray, pother: np.ndarray,
                                        n: int, eps) -> np.ndarray:
    """Exact D_{e^eps}(S(D) || S(D')) with D = (x1, x, ..., x), D' = (x1', x, ..., x):
    user 1 has law ``p1`` (resp. ``p1p``), the other n - 1 users law ``pother``, on a
    common alphabet of K symbols.  The histogram of the n reports is the shuffled
    output; its law is computed over all C(n + K - 1, K - 1) histograms."""
    from scipy.special import gammaln

    p1, p1p, po = (np.asarray(v, dtype=np.float64) for v in (p1, p1p, pother))
    keep = (p1 > 0) | (p1p > 0) | (po > 0)
    p1, p1p, po = p1[keep], p1p[keep], po[keep]
    K = len(po)
    c = compositions(n, K)
    with np.errstate(divide="ignore"):
        logpo = np.log(po)
    P = np.zeros(len(c))
    Q = np.zeros(len(c))
    for k in range(K):
        ok = c[:, k] >= 1
        cc = c[ok].copy()
        cc[:, k] -= 1
        # multinomial(n-1; po) at cc
        lm = gammaln(n) - gammaln(cc + 1).sum(axis=1) + np.where(cc > 0, cc * logpo, 0.0).sum(axis=1)
        m = np.exp(lm)
        P[ok] += p1[k] * m
        Q[ok] += p1p[k] * m
    eps = np.atleast_1d(np.asarray(eps, dtype=np.float64))
    return np.array([float(np.maximum(P - math.exp(e) * Q, 0.0).sum()) for e in eps])
