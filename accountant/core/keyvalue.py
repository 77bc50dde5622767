"""The key-value baselines' randomizers written out as probability matrices (:class:`FiniteRandomizer`).

A user holds s pairs (key, value) with s distinct keys of [d] and values +-1 (the data model of
:mod:`mechanisms.baselines`; an input is labelled like ``0+1-``: key 0 with +1, key 1 with -1).
Here are, from the definitions of :mod:`accountant.core.randomizers`' :class:`PCKVGRRParams`,
:class:`PCKVUEParams` and :class:`PrivKVParams`:

* the per-pair randomizers of PCKV (inputs: the 2d pairs (k, v), item ``2k + (v > 0)``), whose
  blanket is the proved bound of PCKV (docs/proved.md, "Key-value baselines");
* PrivKV's whole randomizer (inputs: every key-value set, outputs (j, r), item ``3j + r + 1``),
  whose own blanket is PrivKV's proved bound (PrivKV samples a key of [d], not one of the
  user's pairs, so no per-pair randomizer is a mixture component of it).
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from accountant.core.finite import FiniteRandomizer

#: the rows of PrivKV's matrix (:func:`privkv_rows`) beyond which its blanket is not computed
#: here (the worst pair is screened over every ordered pair of rows)
PRIVKV_MAX_INPUTS = 1024


def keyvalue_sets(d: int, s: int) -> list:
    """Every input: (keys, signs) with s increasing keys of [d] and signs +-1, in the order of
    :func:`mechanisms.baselines.all_inputs`."""
    return [(ks, sg) for ks in itertools.combinations(range(d), s)
            for sg in itertools.product((-1, 1), repeat=s)]


def keyvalue_label(keys, signs) -> str:
    """``0+1-`` for keys (0, 1) with signs (+1, -1)."""
    return "".join(f"{k}{'+' if v > 0 else '-'}" for k, v in zip(keys, signs))


def privkv_rows(d: int, s: int) -> list:
    """The rows of PrivKV's matrix that its blanket bound needs: every set on the keys
    0..min(d, 2s)-1, and for each key j >= 2s the sets {0+, ..., (s-2)+, j+-}.

    Why these suffice (docs/proved.md): an output (j, r) has probability Q(state of j)(r)/d, so
    the law of an ordered pair of rows depends only on the multiset of the state pairs over the
    keys, and two sets use at most 2s keys: a permutation of the keys takes every pair of sets to
    one on the keys 0..2s-1 with the same law. The blanket's minimum at (j, r) is that of the
    missing state for r = +-1 and of a held one for r = 0 (p > 1/2): the first rows miss every
    key j >= 2s, the added rows hold it (with both values, so that every column keeps its
    largest entry too: the matrix's eps0 is the whole one's). So the blanket, eps0 and the set of
    pair laws are those of the whole matrix."""
    head = keyvalue_sets(min(d, 2 * s), s)
    extra = [(tuple(range(s - 1)) + (j,), (1,) * (s - 1) + (v,)) for j in range(2 * s, d) for v in (-1, 1)]
    return head + extra


def privkv_inputs(d: int, s: int) -> int:
    """The number of rows of PrivKV's matrix its blanket needs (:func:`privkv_rows`)."""
    return math.comb(min(d, 2 * s), s) * 2 ** s + 2 * max(0, d - 2 * s)


def pckv_grr_pair_matrix(params) -> FiniteRandomizer:
    """PCKV-GRR's pair perturbation (2d x 2d, :class:`mechanisms.baselines.PCKVGRR`'s
    ``_pair_channel``): <k, v> w.p. a p, <k, -v> w.p. a (1 - p), every other pair w.p. b/2."""
    d, e0 = params.d, params.eps0
    eps1 = math.log((math.exp(e0) + 1.0) / 2.0)
    p = 1.0 / (1.0 + math.exp(-e0))
    a = 1.0 / (1.0 + math.exp(-eps1) * (d - 1))
    b = (1.0 - a) / (d - 1)
    M = np.full((2 * d, 2 * d), b / 2)
    for k in range(d):
        for v in (0, 1):
            M[2 * k + v, 2 * k + v] = a * p
            M[2 * k + v, 2 * k + 1 - v] = a * (1 - p)
    names = [f"{k}{'+' if v else '-'}" for k in range(d) for v in (0, 1)]
    return FiniteRandomizer(M, inputs=names, outputs=names, label=f"pckv-grr pair d={d}")


def pckv_ue_pair_matrix(params) -> FiniteRandomizer:
    """PCKV-UE's pair perturbation (2d x 3^d, d <= 8): coordinate k is v w.p. a p, -v w.p.
    a (1 - p), 0 w.p. 1 - a; every other coordinate +-1 w.p. b/2 each, 0 w.p. 1 - b."""
    d, e0 = params.d, params.eps0
    if d > 8:
        raise ValueError(f"d must be at most 8 for PCKV-UE's pair matrix (3^d outputs), got {d}")
    p = 1.0 / (1.0 + math.exp(-e0))
    a, b = 0.5, 2.0 / (math.exp(e0) + 3.0)
    Y = np.array(list(itertools.product((-1, 0, 1), repeat=d)))
    other = np.where(Y == 0, 1 - b, b / 2)
    rows = []
    for k in range(d):
        rest = np.prod(np.delete(other, k, axis=1), axis=1)
        for v in (-1, 1):
            at = np.where(Y[:, k] == v, a * p, np.where(Y[:, k] == -v, a * (1 - p), 1 - a))
            rows.append(at * rest)
    names = [f"{k}{'+' if v > 0 else '-'}" for k in range(d) for v in (-1, 1)]
    return FiniteRandomizer(np.array(rows), inputs=names, label=f"pckv-ue pair d={d}")


def privkv_matrix(params, every_set: bool = False) -> FiniteRandomizer:
    """PrivKV's randomizer on the rows of :func:`privkv_rows` (``every_set``: one row per
    key-value set), at most :data:`PRIVKV_MAX_INPUTS` rows:
    report (j, r) w.p. Q(state of key j)(r) / d, Q(held v) = (r = v: p1 p2, r = -v: p1 (1 - p2),
    r = 0: 1 - p1), Q(missing) = (r = +-1: (1 - p1)/2, r = 0: p1), p_i = e^eps_i/(1 + e^eps_i),
    eps1 = eps2 = eps0/2."""
    d, s = params.d, params.s
    rows = math.comb(d, s) * 2 ** s if every_set else privkv_inputs(d, s)
    if rows > PRIVKV_MAX_INPUTS:
        raise ValueError(f"PrivKV's matrix needs {rows} rows, beyond "
                         f"{PRIVKV_MAX_INPUTS}: its own blanket is not computed at d = {d}, s = {s}")
    p1 = p2 = 1.0 / (1.0 + math.exp(-params.eps0 / 2.0))
    missing = np.array([(1 - p1) / 2, p1, (1 - p1) / 2])           # r = -1, 0, +1
    held = {1: np.array([p1 * (1 - p2), 1 - p1, p1 * p2]), -1: np.array([p1 * p2, 1 - p1, p1 * (1 - p2)])}
    sets = keyvalue_sets(d, s) if every_set else privkv_rows(d, s)
    M = np.tile(missing, (len(sets), d))
    for i, (ks, sg) in enumerate(sets):
        for k, v in zip(ks, sg):
            M[i, 3 * k: 3 * k + 3] = held[v]
    outs = [f"({j},{r})" for j in range(d) for r in (-1, 0, 1)]
    return FiniteRandomizer(M / d, inputs=[keyvalue_label(*x) for x in sets], outputs=outs,
                            label=f"privkv d={d} s={s}")
