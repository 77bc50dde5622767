"""Certified lower bound on the eps_c of a composition: one dataset pair used in every round.

If the same neighbouring pair (D, D') is used in every round, the composed mechanism's views
are the product pair (P^T, Q^T) (rounds with several pairs: the product of theirs), so its
divergence at every eps is a lower bound on the composed mechanism's delta(eps), and the
largest eps at which it is certified above the target delta is a lower bound on the composed
eps_c.  The pair of a round is the one of the single-round certified lower bound
(:func:`accountant.bounds.laws.lower.mechanism_lower_law`, its main post-processing with the
categories beyond the second merged): binary RR, generic rounds through binary RR, k-RR, OUE,
OLH, Collision and CoCo (uniformly random hash, named in the note; Collision and CoCo only
with the round's dimension d >= 3s: their datasets are three inputs on disjoint s-sets of [d]).  With N ~ Mult(n; p) the counts of the categories when every user holds x0, the pair is

    P(N) = R(N) A(N) / n,   Q(N) = R(N) B(N) / n,   A = sum_c a_c N_c,  B = sum_c b_c N_c,

(R the multinomial pmf), so the privacy loss is log(A/B).  Its PLD is built with the losses
rounded DOWN onto a grid, the P-masses lowered by PMF_MARGIN (relative) and the multinomial's
tails beyond 12.5 standard deviations dropped; E_P[(1 - e^{eps - L})_+] is non-decreasing in L
and non-negative, so each of these lowers the computed delta, and the optimistic FFT
composition (:mod:`.pld`) drops the tails it cuts and subtracts its floating-point error bound.
The same machinery composes any pair given as two computed pmfs with l1 errors
(:func:`composed_pair_delta`: the deployments' count pairs, binary RR with sampling).
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Optional, Sequence

import numpy as np

from accountant.composition import pld as _pld
from accountant.engines.binomial import binom_logpmf

# relative margin taken off every float P-mass (the log-space binomial pmfs are accurate to
# far better, ~1e-13 relative, at the sizes allowed here)
PMF_MARGIN = 1e-8
# absolute margin taken off every float loss log(A/B) before it is rounded down
LOSS_MARGIN = 1e-9
# support points of one round's pair (2-D count vectors): about 4e6 at k-RR n = 1e5
MAX_PAIR_POINTS = 5_000_000
# the loss grid: each round's losses move down by less than one step (half a step on average),
# so the composed loss by less than T steps; the step is LOWER_STEP_FRACTION * (upper total) / T
LOWER_STEP_FRACTION = 5e-4
# P-mass dropped from each end of one round's loss grid (the lower side may drop mass)
LOWER_TAIL_DROP = 1e-30
# two computed pmfs' composed lower bound (:func:`composed_pair_delta`) drops this fraction of
# their l1 error from each end instead: entries at the FFT's noise floor (about 1e-18, with
# losses anywhere in [-2, 0]) otherwise set the grid's span (2e7 points where 2e4 hold the law)
PAIR_TAIL_OF_ERROR = 0.01
# points of the composed lower PLD's grid (memory and FFT time)
MAX_LOWER_GRID = 2**25
# two pmfs' composed lower bound may take a grid up to this many times coarser to fit
# MAX_PAIR_GRID: the composed loss then moves down by less than 5% of the upper bound
MAX_COARSEN = 100
# points of two pmfs' composed lower PLD (the deployments' pairs): the FFT composition takes
# about 400 bytes a point at its peak (a mix of two 4-RR groups at n = 1e9 over 10 rounds on
# 8.3 million points: 3.2 GB resident), so 2^22 points keep it near 1.6 GB
MAX_PAIR_GRID = 2**22
_U = 2.0 ** -53  # unit roundoff of float64


def _window(N: int, prob: float) -> np.ndarray:
    """Integer window of Bin(N, prob): 12.5 standard deviations + 30 around the mean."""
    mu, sd = N * prob, math.sqrt(N * prob * (1.0 - prob))
    half = 12.5 * sd + 30.0
    return np.arange(max(0, int(math.floor(mu - half))), min(N, int(math.ceil(mu + half))) + 1,
                     dtype=np.float64)


def _pair_law(spec):
    """(p, a, b) as floats and the datasets' text (with the hash model where the lower bound
    assumes one), or (None, reason)."""
    from accountant.bounds.laws.lower import mechanism_lower_law, merge_tail, needs_d_reason

    params = spec.params()
    ll = mechanism_lower_law(params)
    why = needs_d_reason(params) if ll is None else None
    if why is not None:  # Collision, CoCo: d missing or d < 3s; OLH: k < 3
        return None, "not available: " + why
    if ll is None:
        return None, f"not available: no certified lower bound's datasets for '{spec.mechanism}' rounds"
    law = merge_tail(ll.law)  # categories 3, 4, ... merged: a post-processing of the reports
    p = [float(x) for x in law.p]
    if len(p) > 3 or abs(sum(p) - 1.0) > 1e-12:
        return None, "not available: the pair's count law has a null category"
    text = ll.datasets
    if ll.full is not None:  # the single-round text also describes its unreduced evaluation
        text = text.split(", reports")[0] + f", reports reduced to three categories ({law.name})"
    if ll.hash_model:
        text += f"; hash: {ll.hash_model} (an assumption of this lower bound)"
    return (p, [float(x) for x in law.a], [float(x) for x in law.b]), text


def pair_masses(spec) -> tuple[Optional[np.ndarray], Optional[np.ndarray], str]:
    """(P-masses, losses log(P/Q), datasets) of the round's lower pair, the masses lowered by
    PMF_MARGIN and the windows' tails dropped; (None, None, reason) when there is none."""
    law, text = _pair_law(spec)
    if law is None:
        return None, None, text
    p, a, b = law
    n = spec.n
    if len(p) == 2:
        n1 = _window(n, p[0])
        r = np.exp(binom_logpmf(n1, float(n), p[0]))
        A, B = a[0] * n1 + a[1] * (n - n1), b[0] * n1 + b[1] * (n - n1)
    else:
        s = _window(n, p[0] + p[1])
        half = p[0] / (p[0] + p[1])
        guess = s.size * _window(int(s[-1]), half).size  # the widest inner window: refused at once
        if guess > 4 * MAX_PAIR_POINTS:
            return None, None, (f"not available: the pair's count vectors (about {guess:,} points) exceed "
                                f"MAX_PAIR_POINTS = {MAX_PAIR_POINTS:,} at n = {n}")
        sizes = [len(_window(int(si), half)) for si in s]
        if sum(sizes) > MAX_PAIR_POINTS:
            return None, None, (f"not available: the pair's count vectors ({sum(sizes):,} points) exceed "
                                f"MAX_PAIR_POINTS = {MAX_PAIR_POINTS:,} at n = {n}")
        n1 = np.concatenate([_window(int(si), half) for si in s])
        ss = np.repeat(s, sizes)
        r = np.exp(binom_logpmf(ss, float(n), p[0] + p[1]) + binom_logpmf(n1, ss, half))
        n2, n3 = ss - n1, n - ss
        A = a[0] * n1 + a[1] * n2 + a[2] * n3
        B = b[0] * n1 + b[1] * n2 + b[2] * n3
    keep = (r > 0) & (A > 0)
    mass = r[keep] * A[keep] / n * (1.0 - PMF_MARGIN)
    with np.errstate(divide="ignore"):
        loss = np.log(A[keep]) - np.log(B[keep])  # B = 0 < A: loss +inf (kept on the low side: dropped)
    fin = np.isfinite(loss)
    return mass[fin], loss[fin], text


def grid_pld(mass: np.ndarray, loss: np.ndarray, step: float,
             max_size: Optional[int] = None, tail: float = LOWER_TAIL_DROP) -> Optional[_pld.DiscretePLD]:
    """Optimistic PLD of P-masses at finite losses: each loss lowered by LOSS_MARGIN and rounded
    DOWN onto the grid of ``step``, ``tail`` of P-mass dropped at each end (a sub-probability's
    delta is lower at every eps); None when it would need more than ``max_size`` grid points
    (checked before the grid is allocated)."""
    idx = np.floor((loss - LOSS_MARGIN) / step).astype(np.int64)
    lo, hi = int(idx.min()), int(idx.max())
    if hi - lo >= (max_size if max_size is not None else 1 << 20):
        # the tails first (by loss), then the span: a wide grid is refused (or trimmed) before it
        # exists (a pair's far tails alone spanned 8e7 grid points, 1.1 GB, of which 47,081 stay)
        order = np.argsort(idx, kind="stable")
        cs = np.cumsum(mass[order])
        a = int(np.searchsorted(cs, tail, side="right"))
        b = max(a, int(np.searchsorted(cs, cs[-1] - tail, side="left")))
        lo, hi = int(idx[order[min(a, idx.size - 1)]]), int(idx[order[min(b, idx.size - 1)]])
        if max_size is not None and hi - lo >= max_size:
            return None
        # the same bins as the trim below (the first and last bin whose cumulative mass passes
        # ``tail``), found on the sorted masses instead of on the whole grid
        keep = (idx >= lo) & (idx <= hi)  # only P-mass of the dropped tails goes: delta only lowers
        return _pld.DiscretePLD(step, lo, np.bincount(idx[keep] - lo, weights=mass[keep], minlength=hi - lo + 1),
                                0.0, False)
    pmf = np.bincount(idx - lo, weights=mass, minlength=hi - lo + 1)
    cs = np.cumsum(pmf)
    a = int(np.searchsorted(cs, tail, side="right"))
    b = max(a, int(np.searchsorted(cs, cs[-1] - tail, side="left")))
    return _pld.DiscretePLD(step, lo + a, pmf[a:b + 1], 0.0, False)


def lower_pld(spec, step: float, max_size: Optional[int] = None) -> tuple[Optional[_pld.DiscretePLD], str]:
    """Optimistic (low-side) PLD of the round's lower pair on the grid of ``step`` (None and the
    reason, also when it would need more than ``max_size`` points)."""
    mass, loss, text = pair_masses(spec)
    if mass is None:
        return None, text
    d = grid_pld(mass, loss, step, max_size)
    return (None, "too large") if d is None else (d, text)


def lower_step(upper: float, rounds: int) -> float:
    """The loss grid of a composed lower bound: T rounds move the composed loss down by less
    than LOWER_STEP_FRACTION times the upper bound."""
    return LOWER_STEP_FRACTION * max(min(upper, 50.0), 1e-3) / rounds


def grid_refusal(rounds: int, name: str = "MAX_LOWER_GRID", limit: int = MAX_LOWER_GRID) -> str:
    """The reason a composed lower PLD of ``rounds`` rounds is refused (the grid limit)."""
    return (f"not available: the composed lower PLD of {rounds} rounds would need more than "
            f"{name} = {limit:,} grid points")


def pmfs_pld(P: np.ndarray, Q: np.ndarray, step: float, max_size: Optional[int] = None,
             tail: float = LOWER_TAIL_DROP) -> Optional[_pld.DiscretePLD]:
    """Optimistic PLD of two computed pmfs on one support (:func:`grid_pld`): the P-masses lowered
    by PMF_MARGIN; outcomes with Q = 0 < P (loss +inf) are the PLD's mass at +inf, lowered the same
    way (their term of sum (P - e^eps Q)_+ is P itself, at every eps)."""
    P, Q = np.asarray(P, dtype=np.float64), np.asarray(Q, dtype=np.float64)
    keep = (P > 0) & (Q > 0)
    inf = P[(P > 0) & ~(Q > 0)]
    inf_mass = float(np.sum(inf)) * (1.0 - PMF_MARGIN) * (1.0 - (inf.size + 2) * _U)
    if not np.any(keep):
        return _pld.DiscretePLD(step, 0, np.zeros(1), min(inf_mass, 1.0), False)
    d = grid_pld(P[keep] * (1.0 - PMF_MARGIN), np.log(P[keep]) - np.log(Q[keep]), step, max_size, tail)
    return None if d is None else replace(d, inf_mass=min(inf_mass, 1.0))


def _fitting_pld(P: np.ndarray, Q: np.ndarray, step: float, tail: float) -> Optional[_pld.DiscretePLD]:
    """:func:`pmfs_pld` of one round on ``step`` times the smallest power of 10 (at most 1e12)
    whose grid holds at most MAX_PAIR_GRID points; None if none does."""
    for j in range(13):
        d = pmfs_pld(P, Q, step * 10.0 ** j, MAX_PAIR_GRID, tail)
        if d is not None:
            return d
    return None


def composed_pair_delta(P: np.ndarray, Q: np.ndarray, eP: float, eQ: float, rounds: int,
                        upper: float):
    """(eps -> a certified lower bound on max(D_{e^eps}(P*^T || Q*^T), D_{e^eps}(Q*^T || P*^T)), None)
    or (None, the reason): P*, Q* the true pmfs (sub-probabilities: a window of the true law
    keeps a lower bound), P, Q computed with ||P - P*||_1 <= eP, ||Q - Q*||_1 <= eQ, the same
    pair in each of the T = ``rounds`` rounds.

    The optimistic PLD of (P, Q) (:func:`pmfs_pld`, losses rounded down, composed by FFT with its
    error subtracted) is below sum (P^T - e^eps Q^T)_+; the positive part is 1-Lipschitz and
    ||P^T - P*^T||_1 <= T (1 + eP)^(T-1) eP (telescoping, ||P*|| <= 1), so
    T (1 + e)^(T-1) (eP + e^eps eQ) (e = max(eP, eQ), e^eps rounded up) is subtracted.
    Where T rounds on one grid exceed MAX_PAIR_GRID even 100 times coarser, one round on the
    finest power-of-10 multiple of the step that fits is composed by
    :func:`accountant.composition.pld.self_compose_lower` (its grid coarsens, losses rounded
    down, as the squarings widen the law): binary RR with sampling at the anchor, T = 10,000:
    0.4701, the upper bound 0.5651 (the default) and 0.5973 (every point)."""
    step = lower_step(upper, rounds)
    orders = ((P, Q, eP, eQ), (Q, P, eQ, eP))
    limit = max(1, MAX_PAIR_GRID // rounds)
    tail = max(LOWER_TAIL_DROP, PAIR_TAIL_OF_ERROR * max(eP, eQ))
    sizes = [pmfs_pld(a, b, step, MAX_COARSEN * limit, tail) for a, b, _, _ in orders]
    out = []
    if any(d is None for d in sizes):  # the grid coarsens as the squarings widen the law
        for a, b, ea, eb in orders:
            d = _fitting_pld(a, b, step, tail)
            if d is None:
                return None, grid_refusal(rounds, "MAX_PAIR_GRID", MAX_PAIR_GRID) + " (one round alone)"
            out.append((_pld.self_compose_lower(d, rounds, MAX_PAIR_GRID), ea, eb))
    else:
        size = max(d.pmf.size for d in sizes)
        if size > limit:  # a coarser grid (any grid keeps a lower bound; the loss moves down < T steps)
            step *= min(MAX_COARSEN, math.ceil(size / limit))
        for a, b, ea, eb in orders:
            d = pmfs_pld(a, b, step, limit, tail)
            if d is None:
                return None, grid_refusal(rounds, "MAX_PAIR_GRID", MAX_PAIR_GRID)
            out.append((_pld.self_compose(d, rounds), ea, eb))
    grow = rounds * (1.0 + max(eP, eQ)) ** (rounds - 1) * (1 + 1e-9)

    def delta(eps: float) -> float:
        if eps > 700.0:
            return 0.0
        e = math.exp(eps) * (1 + 4 * _U)
        return max(0.0, max(d.get_delta(eps) - grow * (ea + e * eb) for d, ea, eb in out))
    return delta, None


def composed_lower(specs: Sequence, delta: float, upper: float) -> tuple[Optional[float], str]:
    """(certified lower bound on the composed eps_c, the datasets) or (None, the reason)."""
    T = len(specs)
    step = lower_step(upper, T)
    plds, texts = {}, []
    for sp in dict.fromkeys(specs):
        d, text = lower_pld(sp, step, max(1, MAX_LOWER_GRID // T))
        if d is None:
            return None, grid_refusal(T) if text == "too large" else text
        plds[sp] = d
        texts.append(text)
    total = _pld.compose_all([plds[sp] for sp in specs])
    eps = total.get_epsilon(delta)
    return eps, ("certified lower bound: the same datasets in every round, "
                 + "; ".join(dict.fromkeys(texts)))


def with_lower(res, specs: Sequence, delta: float):
    """``res`` (a ``CompositionResult``) with ``epsilon_lower`` and ``lower_note``."""
    from dataclasses import replace

    value, note = composed_lower(specs, delta, res.epsilon)
    return replace(res, epsilon_lower=value, lower_note=note)
