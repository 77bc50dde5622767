"""Lower bounds for user sampling with binary randomized response (issue 43): the exact
law of the analyst's view for one named pair of datasets, so the true eps_c is at least the
eps of that pair, one round and T rounds. Add/remove neighbours: D the same, D' = D without
user 1 (the other n - 1 users alone, as in
:func:`accountant.accounting.deployments.sampled_delta_add_remove`).

With Poisson sampling (rate q) and binary RR at eps0, the shuffled view is the number T of
reports and the number K of ones among them. Datasets (substitution): D = (1, 0, ..., 0) and
D' = (0, 0, ..., 0), n users. The other n - 1 users contribute (T_o, K_o) with
T_o ~ Bin(n - 1, q) and K_o | T_o ~ Bin(T_o, p0), p0 = 1/(1 + e^eps0); user 1 adds nothing
(w.p. 1 - q), a 0 or a 1 (w.p. q times RR's probabilities for its input). The pmfs of
(T, K) are evaluated on a window of +-12 standard deviations of T_o and of K_o (the dropped
outcomes only remove non-negative terms of the divergence, so the window keeps a lower
bound), each entry from Loader's formula (:func:`accountant.engines.binomial.binom_logpmf`)
within a relative :data:`SAMPLED_REL_ERROR`, so with certified l1 errors (:class:`CountPair`).

**T rounds, the same pair in every round** (every feature): :func:`pair_rounds_lower_epsilon`,
the optimistic PLD of the computed pair (losses rounded down) composed T times by FFT, the FFT
error and the pmfs' l1 errors subtracted
(:func:`accountant.composition.lower.composed_pair_delta`).

**Dummies, several reports, mixes (k-RR and binary RR): one count, certified.** Datasets
D = (x1, x0, ..., x0) and D' = (x0, x0, ..., x0); the statistic is the number K of reports
equal to x1 (a function of the shuffled multiset: post-processing, so its divergence is a
lower bound on the view's). Every report is independent; a k-RR report at eps0 equals x1
w.p. g = 1/(e^eps0 + k - 1) for an input other than x1 and e^eps0 g for x1; a uniform dummy
w.p. 1/k. So K = (the differing user's count) + O with O a sum of independent binomials
(the other users' reports, the dummies, the other groups) and the differing user's count
Bin(r, e^eps0 g) under D, Bin(r, g) under D' (r reports). P = A * O, Q = B * O and
delta(eps) >= sum_t (P(t) - e^eps Q(t))_+ (both orders, the larger). Certified
(:class:`CountPair`): each binomial's pmf on a window whose dropped mass is bounded by
Chernoff (:func:`accountant.engines.binomial.binom_log_tail_bound`), entries from Loader's
formula within a relative :data:`PMF_REL_ERROR`, convolutions by
:func:`accountant.engines.fftconv.linear_convolve` with their proved l1 error; every l1 error
e_P, e_Q of P, Q moves the sum by at most e_P + e^eps e_Q ((.)_+ is 1-Lipschitz), which is
subtracted, with e^eps rounded up and the float sum's error bounded by (M + 3) u (sum P + e^eps sum Q) for
M terms (any order of summation).
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from accountant.core.params import Params, validate_delta

__all__ = ["rr_sampled_pair", "rr_sampled_lower_delta", "rr_sampled_lower_epsilon", "LOWER_MAX_CELLS",
           "LOWER_MAX_ROUNDS", "DATASETS", "DATASETS_ADD_REMOVE", "sampled_datasets", "CLASS_MEMBER", "SAMPLED_MECHANISMS", "CountPair", "count_pair", "krr_hit", "largest_eps_above_target",
           "pair_rounds_lower_epsilon", "rounds_lower", "COUNT_LOWER", "SAMPLED_LOWER", "ROUNDS_LOWER"]

LOWER_MAX_ROUNDS = 1000  # T = 1,000 at the anchor (n = 1e5, q = 0.01): about 3 s, 0.3 GB (the FFTs, MAX_PAIR_GRID)
LOWER_MAX_CELLS = 20_000_000  # cells of the (T, K) window: about 160 MB per pmf
DATASETS = "binary randomized response, D = (1, 0, ..., 0), D' = (0, 0, ..., 0) (substitution)"
DATASETS_ADD_REMOVE = ("binary randomized response, D = (1, 0, ..., 0) (n users), D' = (0, ..., 0) "
                       "(D without user 1: add/remove)")


def sampled_datasets(neighbours: str, generic: bool = False) -> str:
    """The named pair of :func:`rr_sampled_pair` for the neighbouring relation (``generic``: as
    one randomizer of the class of every eps0-LDP randomizer)."""
    text = DATASETS if neighbours == "substitute" else DATASETS_ADD_REMOVE
    return text.replace("binary randomized response", "binary randomized response (one eps0-LDP randomizer "
                        "of the class)") if generic else text
_W = 12.0


def rr_sampled_pair(eps0: float, n: int, q: float, neighbours: str = "substitute") -> "CountPair":
    """The certified pair of the pmfs of (T, K) under D and D' on the window, flattened
    (:class:`CountPair`: entries from Loader's formula, l1 errors); ValueError when the window
    would exceed :data:`LOWER_MAX_CELLS`. ``neighbours="add-remove"``: D' is D without user 1
    (the n - 1 others alone), the relation of
    :func:`accountant.accounting.deployments.sampled_delta_add_remove`."""
    if neighbours not in ("substitute", "add-remove"):
        raise ValueError(f"neighbours must be 'substitute' or 'add-remove', got {neighbours!r}")
    from accountant.engines.binomial import binom_log_tail_bound, binom_logpmf

    n1 = n - 1
    p0 = 1.0 / (1.0 + math.exp(eps0))
    mu, sd = n1 * q, math.sqrt(n1 * q * (1 - q))
    t_lo, t_hi = max(0, int(mu - _W * sd - 1)), min(n1, int(mu + _W * sd + 1))
    sk = math.sqrt(max(t_hi * p0 * (1 - p0), 1.0))
    k_lo, k_hi = max(0, int(t_lo * p0 - _W * sk - 1)), min(t_hi + 1, int(t_hi * p0 + _W * sk + 2))
    rows, cols = t_hi - t_lo + 2, k_hi - k_lo + 1
    if rows * cols > LOWER_MAX_CELLS:
        raise ValueError(f"sampling lower bound: the window of (reports, ones) has {rows * cols:.3g} cells, "
                         f"over the limit {LOWER_MAX_CELLS:.0e} (n q too large)")
    ts = np.arange(t_lo, t_hi + 1, dtype=np.float64)
    ks = np.arange(k_lo, k_hi + 1, dtype=np.float64)
    rows_pmf = np.exp(binom_logpmf(ts, n1, q)) if q < 1.0 else (ts == n1).astype(np.float64)
    others = rows_pmf[:, None] * np.exp(binom_logpmf(ks[None, :], ts[:, None], p0))  # O(t, k)
    out = []
    for x in (1, 0):  # user 1's input under D, D' (None: absent, D' under add/remove)
        law = np.zeros((rows, cols))  # rows: T = t_lo .. t_hi + 1
        if x == 0 and neighbours == "add-remove":
            law[:-1, :] += others
        else:
            px = math.exp(eps0) / (1 + math.exp(eps0)) if x else p0  # P(report 1)
            law[:-1, :] += (1 - q) * others
            law[1:, :] += q * (1 - px) * others  # a 0: T + 1, K
            law[1:, 1:] += q * px * others[:, :-1]  # a 1: T + 1, K + 1
        out.append(law.ravel())
    # each entry: a sum of non-negative products of two pmf values within PMF_REL_ERROR (relative)
    # and a few roundings. The window leaves out the others' (T_o, K_o) outside it (Chernoff on T_o;
    # on K_o at t_lo below and t_hi above, Bin(t, p0) growing in t) and, for a 1 of user 1, K_o =
    # k_hi: a computed entry misses at most that mass, so it is added to each l1 error (an entry
    # of the boundary row T = t_hi + 1 is not a whole outcome, so "a window keeps a lower bound"
    # alone would not cover it)
    def tail(k, N, p, up):
        return math.exp(float(binom_log_tail_bound(k, N, p, up)))
    cut = ((tail(t_lo - 1, n1, q, False) if t_lo > 0 else 0.0) + (tail(t_hi + 1, n1, q, True) if t_hi < n1 else 0.0)
           + (tail(k_lo - 1, t_lo, p0, False) if k_lo > 0 else 0.0)
           + (tail(k_hi + 1, t_hi, p0, True) if k_hi < t_hi else 0.0) + float(np.sum(others[:, -1])))
    err = [SAMPLED_REL_ERROR * float(np.sum(v)) + cut * (1 + 1e-9) for v in out]
    return CountPair(out[0], out[1], err[0], err[1], sampled_datasets(neighbours))


#: the mechanisms whose sampled pair is binary RR's (the generic class: binary RR is one of its randomizers)
SAMPLED_MECHANISMS = ("rr", "generic")


def _check_sampled(params: Params) -> None:
    if params.name not in SAMPLED_MECHANISMS:
        raise ValueError("sampling lower bound: only for binary randomized response (--mechanism rr) and the "
                         "generic class (binary RR is one of its randomizers)")


def rr_sampled_lower_delta(params: Params, n: int, q: float, eps: float, neighbours: str = "substitute") -> float:
    """A lower bound on the true delta(eps) of binary RR with Poisson sampling (substitution or
    add/remove), the larger of the two orders of the named pair (module docstring)."""
    _check_sampled(params)
    return rr_sampled_pair(float(params.eps0), n, q, neighbours).delta(eps)


def rr_sampled_lower_epsilon(params: Params, n: int, delta: float, q: float, rounds: int = 1,
                             upper: Optional[float] = None, neighbours: str = "substitute") -> Optional[float]:
    """A lower bound on the true eps_c after ``rounds`` rounds (the same named pair each round):
    the largest eps found with the certified lower delta(eps) > ``delta`` (0.0 if none; None
    where the composed grid is refused). ``upper``: an upper bound on the composed eps_c (sets
    the loss grid; default ``rounds`` times the one-round lower bound, times 3)."""
    delta = validate_delta(delta)
    _check_sampled(params)
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= LOWER_MAX_ROUNDS:
        raise ValueError(f"rounds must be an integer in [1, {LOWER_MAX_ROUNDS}] for the sampling lower bound, got {rounds!r}")
    pair = rr_sampled_pair(float(params.eps0), n, q, neighbours)
    if upper is None and rounds > 1:
        upper = 3.0 * rounds * pair_lower_epsilon(pair, delta, float(params.eps0))
    return pair_rounds_lower_epsilon(pair, delta, float(params.eps0), rounds, upper)[0]


# --------------------------------------------------------------------------- one count, certified
#: relative error of one pmf entry from :func:`accountant.engines.binomial.binom_logpmf_range`
#: (Loader's formula: about 1e-15 absolute in the log; taken 1e3 times larger)
PMF_REL_ERROR = 1e-12
#: a binomial's window leaves out at most this mass (Chernoff) on each side
COUNT_TAIL = 1e-30
#: the longest convolved count law (entries)
COUNT_MAX_SIZE = 1 << 24
#: relative error of one entry of the sampled pair's (T, K) law: two pmf values, their product
#: and the sum of three non-negative terms
SAMPLED_REL_ERROR = 2 * PMF_REL_ERROR + 16 * 2.0 ** -53
_U = 2.0 ** -53


#: the class of every eps0-LDP randomizer ("generic") is bounded below by one of its members,
#: binary RR at eps0 (its dummies: binary RR's output on a uniformly random input)
CLASS_MEMBER = "binary RR (one eps0-LDP randomizer of the class)"


def krr_hit(params: Params) -> tuple:
    """(P(report = x1 | input x1), P(report = x1 | another input), k) of k-RR / binary RR (and of
    binary RR for the generic class, :data:`CLASS_MEMBER`); ValueError for other randomizers
    (the count of x1 reports is their statistic)."""
    if params.name not in ("rr", "krr", "generic"):
        raise ValueError(f"not available for mechanism {params.name}: the certified count lower bound "
                         "is for binary RR, k-RR and the generic class (the number of reports equal to x1)")
    k = int(params.k) if params.name == "krr" else 2
    e = math.exp(float(params.eps0))
    return e / (e + k - 1), 1.0 / (e + k - 1), k


def _binomial(N: int, p: float) -> tuple:
    """(offset, pmf on a window, l1 distance to the true pmf): window by Chernoff, entries
    within a relative PMF_REL_ERROR."""
    from accountant.engines.binomial import binom_log_tail_bound, binom_logpmf_range

    if N == 0:
        return 0, np.ones(1), 0.0
    mu, sd = N * p, math.sqrt(N * p * (1 - p))
    w = 12.0
    while True:
        lo, hi = max(0, int(mu - w * sd) - 1), min(N, int(mu + w * sd) + 2)
        cut = (math.exp(float(binom_log_tail_bound(lo - 1, N, p, False))) if lo > 0 else 0.0) + \
            (math.exp(float(binom_log_tail_bound(hi + 1, N, p, True))) if hi < N else 0.0)
        if cut <= COUNT_TAIL or (lo == 0 and hi == N):
            break
        w *= 1.5
    if hi - lo + 1 > COUNT_MAX_SIZE:
        raise ValueError(f"count lower bound: a binomial window of {hi - lo + 1} entries is over the limit "
                         f"{COUNT_MAX_SIZE} (n too large)")
    v = np.exp(binom_logpmf_range(lo, hi, N, p))
    return lo, v, cut + PMF_REL_ERROR * float(np.sum(v)) * (1 + 1e-6)


def _convolve(a: tuple, b: tuple) -> tuple:
    (oa, va, da), (ob, vb, db) = a, b
    from accountant.engines.fftconv import linear_convolve

    if va.size + vb.size - 1 > COUNT_MAX_SIZE:
        raise ValueError(f"count lower bound: {va.size + vb.size - 1} entries are over the limit {COUNT_MAX_SIZE}")
    c, err = linear_convolve(va, vb)
    # ||a b - A B||_1 <= ||a - A|| ||b|| + ||A|| ||b - B|| (||b|| <= 1)
    return oa + ob, c, da + float(np.sum(va)) * (1 + va.size * _U) * db + err


class CountPair:
    """Two computed pmfs P, Q on one support with l1 errors eP, eQ to the true ones (a window
    of the true laws: dropped outcomes only lower a divergence) and the datasets' text."""

    def __init__(self, P: np.ndarray, Q: np.ndarray, eP: float, eQ: float, datasets: str):
        self.P, self.Q, self.eP, self.eQ = P, Q, float(eP), float(eQ)
        self.datasets = datasets
        self._mass = max(float(np.sum(self.P)), float(np.sum(self.Q)))  # >= either sum

    def _one(self, P, Q, eP, eQ, eps: float) -> float:
        u = math.exp(eps) * (1 + 4 * _U)  # rounded up: a larger e^eps only lowers the sum
        s = float(np.sum(np.maximum(P - u * Q, 0.0)))
        # each term within 2u of P + e^eps Q; any order of summation of M terms within (M - 1) u
        err = eP + u * eQ + (P.size + 3) * _U * 1.01 * (1 + u) * self._mass
        return max(0.0, s - err)

    def delta(self, eps: float) -> float:
        """A certified lower bound on the pair's delta(eps), the larger of the two orders."""
        return max(self._one(self.P, self.Q, self.eP, self.eQ, eps), self._one(self.Q, self.P, self.eQ, self.eP, eps))


def count_pair(others: list, r: int, a: float, b: float, datasets: str) -> CountPair:
    """:class:`CountPair` of the count of x1 reports, P = A * O and Q = B * O on one window:
    ``others`` a list of (N, p) binomials (O their sum), the differing user's r reports
    Bin(r, a) under D (A) and Bin(r, b) under D' (B)."""
    o = (0, np.ones(1), 0.0)
    for N, p in others:
        if N:
            o = _convolve(o, _binomial(int(N), float(p)))
    pa, pb = _convolve(_binomial(r, a), o), _convolve(_binomial(r, b), o)
    off = min(pa[0], pb[0])
    size = max(pa[0] + pa[1].size, pb[0] + pb[1].size) - off
    P, Q = np.zeros(size), np.zeros(size)
    P[pa[0] - off:pa[0] - off + pa[1].size] = pa[1]
    Q[pb[0] - off:pb[0] - off + pb[1].size] = pb[1]
    return CountPair(P, Q, pa[2], pb[2], datasets)


def pair_rounds_lower_epsilon(pair: CountPair, delta: float, top: float, rounds: int,
                              upper: Optional[float]) -> tuple:
    """(a certified lower bound on eps_c after ``rounds`` rounds with ``pair`` in every round, None)
    or (None, the reason): one round, :func:`pair_lower_epsilon`; more, the composed pair of
    :func:`accountant.composition.lower.composed_pair_delta` (losses rounded down, FFT and
    pmf errors subtracted), the grid set by ``upper`` (an upper bound on the composed eps_c)."""
    if rounds == 1:
        return pair_lower_epsilon(pair, delta, top), None
    from accountant.composition.lower import composed_pair_delta

    dl, why = composed_pair_delta(pair.P, pair.Q, pair.eP, pair.eQ, rounds, float(upper))
    if dl is None:
        return None, why
    return largest_eps_above_target(dl, validate_delta(delta), top * rounds, rtol=1e-6), None


def largest_eps_above_target(dl, delta: float, top: float, rtol: float = 1e-7) -> float:
    """The largest eps found (bisection) with the certified lower delta ``dl(eps)`` > ``delta``:
    the true delta exceeds the target there, so eps_c >= eps (0.0 if none)."""
    if dl(0.0) <= delta:
        return 0.0
    lo, hi = 0.0, top
    if dl(hi) > delta:
        return hi
    while hi - lo > rtol * hi:
        mid = 0.5 * (lo + hi)
        if dl(mid) > delta:
            lo = mid
        else:
            hi = mid
    return lo


def _name(params: Params) -> str:
    return {"rr": "binary RR", "generic": CLASS_MEMBER}.get(params.name) or f"{params.k}-RR"


def dummies_pair(params: Params, n: int, m: int) -> CountPair:
    """The count pair of ``n`` real users (D = (x1, x0, ..., x0), D' = (x0, ..., x0)) and ``m``
    dummies uniform over the k outputs."""
    a, b, k = krr_hit(params)
    return count_pair([(n - 1, b), (m, 1.0 / k)], 1, a, b,
                      f"{_name(params)}, D = (x1, x0, ..., x0), D' = (x0, x0, ..., x0) ({n} users) and {m} "
                      "dummies uniform over the outputs" + (" (binary RR's output on a uniformly random input)"
                                                            if params.name == "generic" else "")
                      + "; statistic: the number of reports equal to x1")


def reports_pair(params: Params, n: int, r: int) -> CountPair:
    """The count pair of ``n`` users with ``r`` reports each (the differing user's r reports)."""
    a, b, k = krr_hit(params)
    return count_pair([((n - 1) * r, b)], r, a, b,
                      f"{_name(params)}, {r} reports per user, D = (x1, x0, ..., x0), D' = (x0, x0, ..., x0) "
                      f"({n} users); statistic: the number of the {n * r} reports equal to x1")


def mix_pair(groups: list, g: int) -> CountPair:
    """The count pair with the differing user in group ``g`` (0-based), every other user's input
    x0 (a value other than x1 in every group's domain)."""
    hits = [krr_hit(p) for _, p in groups]
    others = [(c - (i == g), hits[i][1]) for i, (c, _) in enumerate(groups)]
    a, b, _ = hits[g]
    return count_pair(others, 1, a, b,
                      f"the differing user in group {g + 1} ({_name(groups[g][1])}, eps0 = {groups[g][1].eps0:g}), "
                      "D = (x1, x0, ..., x0), D' = (x0, x0, ..., x0), every other user x0; statistic: the "
                      "number of reports equal to x1")


def pair_lower_epsilon(pair: CountPair, delta: float, top: float) -> float:
    """A certified lower bound on eps_c from ``pair`` (0.0 if none found below ``top``)."""
    return largest_eps_above_target(pair.delta, validate_delta(delta), top, rtol=1e-6)


COUNT_LOWER = "the exact law of the count of x1 reports (certified l1 errors)"
SAMPLED_LOWER = "the exact law of (reports, ones) (certified l1 errors)"
ROUNDS_LOWER = ("the same pair in each of the {T} rounds, composed by the optimistic PLD (losses rounded "
                "down, FFT and pmf errors subtracted)")


def rounds_lower(spec, r, rounds: int, delta: float, colluders: int, dummies: int, n_min: bool) -> tuple:
    """(lower eps, statement, datasets) of
    :func:`accountant.accounting.deployments.deployment_rounds_epsilon` (``r`` its composed
    result of the round at n - c + m), or (None, the reason, None): without dummies the composed
    lower bound of ``r`` (the mechanism at n - c: the honest users' round), with them the count
    pair with the m dummies in every round."""
    honest = spec.n - colluders
    why = [text for cond, text in (
        (colluders, f"the {honest} honest users' pair (the colluders' reports: equal divergences)"),
        (n_min, f"n = {spec.n} is one of the populations n >= N")) if cond]
    if not dummies:
        if r.epsilon_lower is None:
            return None, f"lower bound {r.lower_note}", None
        ds = r.lower_note.split("in every round, ", 1)[-1]
        return min(r.epsilon_lower, r.epsilon), "; ".join(
            [f"the composed certified lower bound at {honest} users, " + ROUNDS_LOWER.format(T=rounds)] + why), ds
    try:
        params = spec.params()
        pair = dummies_pair(params, honest, dummies)
    except ValueError as exc:
        return None, f"lower bound {exc}", None
    lo, reason = pair_rounds_lower_epsilon(pair, delta, float(params.eps0), rounds, r.epsilon)
    if lo is None:
        return None, f"lower bound {reason}", None
    return min(lo, r.epsilon), "; ".join([COUNT_LOWER + ", " + ROUNDS_LOWER.format(T=rounds)] + why), pair.datasets
