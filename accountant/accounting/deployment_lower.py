"""Certified lower bounds of the deployments: the exact law of one statistic of the
analyst's view for one named pair of datasets, so the true eps_c is at least the eps of that
pair, one round and T rounds. The statistic counts the reports in a set S of outputs, with
the chances a, b, c, dummy of :func:`accountant.accounting.deployment_hits.hit` (binary RR:
S = {1}; every randomizer with a count statistic in the same way, S and the chances in place
of RR's). Add/remove neighbours: D the same, D' = D without user 1 (the other n - 1 users
alone, as in :func:`accountant.accounting.deployments.sampled_delta_add_remove`). Under
add/remove the lower bound is not clipped at eps0 (the count of reports is a release eps0-LDP does
not cover): the pair's search runs up to L.EPS_MAX per round, and where all n users take part
(in some round) with a chance above delta it is inf (n reports are impossible under D', so
delta(eps) >= that chance at every eps, for every D and D' = D without user 1).

With Poisson sampling (rate q) and binary RR at eps0, the shuffled view is the number T of
reports and the number K of ones among them (another randomizer: K the reports in S, a
post-processing of its view; p0 = c, user 1's chance a or b). Datasets (substitution): D = (1, 0, ..., 0) and
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

**Dummies, several reports, mixes: one count, certified.** Datasets (k-RR and binary RR;
the others: :mod:`accountant.accounting.deployment_hits`, S for "equal to x1")
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

import functools
import math
import re
from dataclasses import replace
from typing import Optional

import numpy as np

from accountant.accounting.deployment_hits import CLASS_MEMBER, hit
from accountant.core.params import GenericLDP, KRRParams, Params, PiecewiseParams, mechanism_spec, validate_delta
from accountant.engines.search import bisect

__all__ = ["rr_sampled_pair", "sampled_pair", "rr_sampled_lower_delta", "rr_sampled_lower_epsilon", "sampled_lower",
           "LOWER_MAX_CELLS", "LOWER_MAX_ROUNDS", "DATASETS", "DATASETS_ADD_REMOVE", "sampled_datasets", "CLASS_MEMBER",
           "CountPair", "count_pair", "largest_eps_above_target", "ordered", "count_rounds_lower",
           "pair_rounds_lower_epsilon", "rounds_lower", "COUNT_LOWER", "SAMPLED_LOWER", "ROUNDS_LOWER",
           "param_l1", "PARAM_REL_ERROR", "all_present_mass", "no_finite_reason"]

LOWER_MAX_ROUNDS = 10_000  # T = 10,000 at the anchor (n = 1e5, q = 0.01): the composed grid coarsens as it widens (composition.pld.self_compose_lower)
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
    """The sampled pair of binary RR at ``eps0`` (:func:`sampled_pair`), named by :data:`DATASETS`."""
    e = math.exp(eps0)
    pair = _sampled_law(e / (1 + e), 1 / (1 + e), 1 / (1 + e), n, q, neighbours, sampled_datasets(neighbours))
    pair.lower = SAMPLED_LOWER
    return pair


@functools.singledispatch
def sampled_pair(params: Params, n: int, q: float, neighbours: str = "substitute") -> "CountPair":
    """The certified pair of the laws of (the number of reports, the number in S) with Poisson
    sampling at rate ``q`` for the :func:`accountant.accounting.deployment_hits.hit` of
    ``params`` (binary RR and the generic class: (reports, ones), :data:`DATASETS`)."""
    return _hit_sampled_pair(params, n, q, neighbours)


@sampled_pair.register(GenericLDP)
def _(params: GenericLDP, n: int, q: float, neighbours: str = "substitute") -> "CountPair":
    pair = rr_sampled_pair(float(params.eps0), n, q, neighbours)
    pair.datasets = sampled_datasets(neighbours, True)
    return pair


@sampled_pair.register(KRRParams)
def _(params: KRRParams, n: int, q: float, neighbours: str = "substitute") -> "CountPair":
    if mechanism_spec(params.name).keyed:  # k-RR: its hit
        return _hit_sampled_pair(params, n, q, neighbours)
    pair = rr_sampled_pair(float(params.eps0), n, q, neighbours)  # binary RR (its entry has no k)
    pair.datasets = sampled_datasets(neighbours, False)
    return pair


sampled_pair.register(PiecewiseParams, lambda params, n, q, neighbours="substitute":
                      _hit_sampled_pair(params, n, q, neighbours))  # not binary RR's (GenericLDP's): none


def _hit_sampled_pair(params: Params, n: int, q: float, neighbours: str) -> "CountPair":
    h = hit(params, n)
    if neighbours == "add-remove":  # D' is D without user 1, not a substitution
        h = replace(h, datasets=re.sub(r", D' = \([^)]*\)", "", h.datasets) + " (n users), D' = D without user 1")
    how = " (substitution)" if neighbours == "substitute" else " (add/remove)"
    pair = _sampled_law(h.a, h.b, h.c, n, q, neighbours, h.text(how, "the reports") + " and the number of reports")
    pair.lower = SAMPLED_LOWER_S
    return pair


def _sampled_law(a: float, b: float, p0: float, n: int, q: float, neighbours: str, datasets: str) -> "CountPair":
    """The pmfs of (T, K) under D and D' on the window, flattened (:class:`CountPair`: entries
    from Loader's formula, l1 errors); ValueError when the window would exceed
    :data:`LOWER_MAX_CELLS`. User 1 in S w.p. ``a`` (D) or ``b`` (D'), each other user w.p.
    ``p0``; ``neighbours="add-remove"``: D' is D without user 1 (the n - 1 others alone), the
    relation of :func:`accountant.accounting.deployments.sampled_delta_add_remove`."""
    if neighbours not in ("substitute", "add-remove"):
        raise ValueError(f"neighbours must be 'substitute' or 'add-remove', got {neighbours!r}")
    from accountant.engines.binomial import binom_log_tail_bound, binom_logpmf

    n1 = n - 1
    mu, sd = n1 * q, math.sqrt(n1 * q * (1 - q))
    t_lo, t_hi = max(0, int(mu - _W * sd - 1)), min(n1, int(mu + _W * sd + 1))
    sk = math.sqrt(max(t_hi * p0 * (1 - p0), 1.0))
    k_lo, k_hi = max(0, int(t_lo * p0 - _W * sk - 1)), min(t_hi + 1, int(t_hi * p0 + _W * sk + 2))
    rows, cols = t_hi - t_lo + 2, k_hi - k_lo + 1
    if rows * cols > LOWER_MAX_CELLS:
        raise ValueError(f"sampling lower bound: the window of (reports, hits) has {rows * cols:.3g} cells, "
                         f"over the limit {LOWER_MAX_CELLS:.0e} (n q too large)")
    ts = np.arange(t_lo, t_hi + 1, dtype=np.float64)
    ks = np.arange(k_lo, k_hi + 1, dtype=np.float64)
    rows_pmf = np.exp(binom_logpmf(ts, n1, q)) if q < 1.0 else (ts == n1).astype(np.float64)
    others = rows_pmf[:, None] * np.exp(binom_logpmf(ks[None, :], ts[:, None], p0))  # O(t, k)
    out = []
    for i, px in enumerate((a, b)):  # user 1 in S under D, D' (absent: D' under add/remove)
        law = np.zeros((rows, cols))  # rows: T = t_lo .. t_hi + 1
        if i == 1 and neighbours == "add-remove":
            law[:-1, :] += others
        else:
            law[:-1, :] += (1 - q) * others
            law[1:, :] += q * (1 - px) * others  # not in S: T + 1, K
            law[1:, 1:] += q * px * others[:, :-1]  # in S: T + 1, K + 1
        out.append(law.ravel())
    # each entry: a sum of non-negative products of two pmf values within PMF_REL_ERROR (relative)
    # and a few roundings. The window leaves out the others' (T_o, K_o) outside it (Chernoff on T_o;
    # on K_o at t_lo below and t_hi above, Bin(t, p0) growing in t) and, for a hit of user 1, K_o =
    # k_hi: a computed entry misses at most that mass, so it is added to each l1 error (an entry
    # of the boundary row T = t_hi + 1 is not a whole outcome, so "a window keeps a lower bound"
    # alone would not cover it)
    def tail(k, N, p, up):
        return math.exp(float(binom_log_tail_bound(k, N, p, up)))
    cut = ((tail(t_lo - 1, n1, q, False) if t_lo > 0 else 0.0) + (tail(t_hi + 1, n1, q, True) if t_hi < n1 else 0.0)
           + (tail(k_lo - 1, t_lo, p0, False) if k_lo > 0 else 0.0)
           + (tail(k_hi + 1, t_hi, p0, True) if k_hi < t_hi else 0.0) + float(np.sum(others[:, -1])))
    # the computed parameters: p0 in every row (t <= t_hi, param_l1 grows with t) and user 1's chance
    # px, a mixture weight (the two terms of user 1's report move by q |px* - px| each)
    par = param_l1(t_hi, p0) + 2 * q * PARAM_REL_ERROR * max(a, b) / (1 - PARAM_REL_ERROR)
    err = [SAMPLED_REL_ERROR * float(np.sum(v)) + cut * (1 + 1e-9) + par * (1 + 1e-9) for v in out]
    return CountPair(out[0], out[1], err[0], err[1], datasets)


def rr_sampled_lower_delta(params: Params, n: int, q: float, eps: float, neighbours: str = "substitute") -> float:
    """A lower bound on the true delta(eps) with Poisson sampling (substitution or add/remove),
    the larger of the two orders of the named pair of :func:`sampled_pair`."""
    return sampled_pair(params, n, q, neighbours).delta(eps)


def rr_sampled_lower_epsilon(params: Params, n: int, delta: float, q: float, rounds: int = 1,
                             upper: Optional[float] = None, neighbours: str = "substitute") -> Optional[float]:
    """A lower bound on the true eps_c after ``rounds`` rounds (the same named pair of
    :func:`sampled_pair` each round): the largest eps found with the certified lower
    delta(eps) > ``delta`` (0.0 if none; None where the composed grid is refused). ``upper``: an
    upper bound on the composed eps_c (sets the loss grid; default ``rounds`` times the
    one-round lower bound, times 3)."""
    delta = validate_delta(delta)
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= LOWER_MAX_ROUNDS:
        raise ValueError(f"rounds must be an integer in [1, {LOWER_MAX_ROUNDS}] for the sampling lower bound, got {rounds!r}")
    pair = sampled_pair(params, n, q, neighbours)
    eps0, beyond = float(params.eps0), _beyond(neighbours)
    if upper is None and rounds > 1:
        one = pair_lower_epsilon(pair, delta, eps0)
        if beyond is not None and one >= eps0:
            one = largest_eps_above_target(pair.delta, delta, beyond, rtol=1e-6, lo=eps0)
        upper = 3.0 * rounds * one
    return pair_rounds_lower_epsilon(pair, delta, eps0, rounds, upper, beyond)[0]


def _beyond(neighbours: str) -> Optional[float]:
    """How far per round the lower bound's search goes on above eps0: nowhere for substitution
    (eps_c <= eps0 there), up to the central-eps cap L.EPS_MAX for add/remove (the count of
    reports is a release that eps0-LDP does not cover: eps_c may exceed eps0)."""
    from accountant.core import limits as L

    return None if neighbours == "substitute" else L.EPS_MAX


def all_present_mass(n: int, q: float, rounds: int = 1) -> float:
    """A lower bound (rounded down) on 1 - (1 - q^n)^T, the chance that in at least one of T =
    ``rounds`` rounds all n users take part: with add/remove neighbours (D of n users, D' = D
    without user 1) n reports are impossible under D', so delta(eps) >= this at every eps."""
    a = math.exp(n * math.log(q)) * (1 - 1e-12) if q < 1.0 else 1.0  # q^n
    if a <= 0.0:
        return 0.0
    if rounds == 1 or a >= 1.0:
        return a
    return max(0.0, -math.expm1(rounds * math.log1p(-a)) * (1 - 1e-12))


def no_finite_reason(n: int, q: float, delta: float, rounds: int = 1, atom: Optional[float] = None) -> str:
    """Why an add/remove sampled eps_c is inf (the "no finite eps_c is proved" convention): the
    q^n atom where it is above ``delta``, else the proved delta's value at L.EPS_MAX (one round) or
    the composed +inf atom ``atom`` (T rounds)."""
    from accountant.core import limits as L

    a = all_present_mass(n, q, rounds)
    if a > delta:
        some = "" if rounds == 1 else f"; in at least one of the {rounds} rounds w.p. {a:.6g}"
        return (f"no finite eps_c is proved: with add/remove neighbours all n = {n} users take part w.p. "
                f"q^n = {q ** n:.6g}{some}, and n reports are impossible without user 1, so delta(eps) >= "
                f"{a:.6g} > delta = {delta:g} at every eps")
    if rounds == 1:
        return (f"no finite eps_c is proved: the proved delta(eps) is above delta = {delta:g} at eps = "
                f"{L.EPS_MAX:g} (the largest central eps searched)")
    return (f"no finite eps_c is proved: the composed PLD's +inf atom ({'n/a' if atom is None else f'{atom:.6g}'}, "
            f"from the per-round profile at the end of its support) is above delta = {delta:g}")


def sampled_lower(params: Params, n: int, delta: float, q: float, rounds: int, upper: float,
                  neighbours: str) -> tuple:
    """(lower eps, statement, datasets) with Poisson sampling over ``rounds`` rounds (the pair of
    :func:`sampled_pair` in every round), or (None, the reason, None); ``upper`` the proved eps_c
    (checked against, :func:`ordered`). Add/remove: inf where the chance that all n users take
    part in some round (:func:`all_present_mass`) is above ``delta``, else the pair's search up to
    L.EPS_MAX per round (not clipped at eps0)."""
    if neighbours == "add-remove" and all_present_mass(n, q, rounds) > delta:
        a = all_present_mass(n, q, rounds)
        st = ("all n users take part w.p. " + ("q^n" if rounds == 1 else f"1 - (1 - q^n)^T in some of the T = {rounds} "
              "rounds") + f" = {a:.6g} > delta, and n reports are impossible under D' (n - 1 users): "
              "delta(eps) >= that at every eps")
        return ordered(math.inf, upper, st, "any D of n users, D' = D without user 1 (add/remove)")
    if rounds > LOWER_MAX_ROUNDS:
        return None, (f"lower bound not available: rounds > LOWER_MAX_ROUNDS = {LOWER_MAX_ROUNDS} "
                      "(the composed pair's FFTs)"), None
    try:
        pair = sampled_pair(params, n, q, neighbours)
        lo, why = pair_rounds_lower_epsilon(pair, delta, float(params.eps0), rounds, upper, _beyond(neighbours))
    except ValueError as exc:
        lo, why = None, str(exc)
    if lo is None:
        return None, f"lower bound not available: {why}", None
    st = pair.lower if rounds == 1 else pair.lower + ", " + ROUNDS_LOWER.format(T=rounds)
    return ordered(lo, upper, st, pair.datasets)


def ordered(lo: Optional[float], upper: float, statement: str, datasets: Optional[str]) -> tuple:
    """(lo, statement, datasets), or (None, the inconsistency, None) where the certified lower
    bound ``lo`` is above the proved ``upper``: that is a bug (both are proved), reported with
    both numbers instead of clipped."""
    if lo is not None and upper is not None and lo > upper:
        return None, (f"lower bound not available: internal inconsistency, the certified lower bound {lo!r} is "
                      f"above the proved upper bound {upper!r} (a bug: please report it)"), None
    return lo, statement, datasets


# --------------------------------------------------------------------------- one count, certified
#: relative error of one pmf entry from :func:`accountant.engines.binomial.binom_logpmf_range`
#: (Loader's formula: about 1e-15 absolute in the log; taken 1e3 times larger)
PMF_REL_ERROR = 1e-12
#: relative error of a binomial's parameter as computed in floats (exp, log1p and a few
#: operations: about 1e-15; the dummies' chance of Collision and CoCo, a sum of s + 1 products:
#: about 1e-14), taken 10 times larger: the pmf is that of the computed parameter, whose l1
#: distance to the true one :func:`param_l1` bounds (at N = 1e9 and p = 1/2 about 4.5e-9)
PARAM_REL_ERROR = 1e-13
#: a binomial's window leaves out at most this mass (Chernoff) on each side
COUNT_TAIL = 1e-30
#: the longest convolved count law (entries)
COUNT_MAX_SIZE = 1 << 24
#: relative error of one entry of the sampled pair's (T, K) law: two pmf values, their product
#: and the sum of three non-negative terms
SAMPLED_REL_ERROR = 2 * PMF_REL_ERROR + 16 * 2.0 ** -53
_U = 2.0 ** -53


def param_l1(N: int, p: float, rel: float = PARAM_REL_ERROR) -> float:
    """An upper bound on the l1 distance between Bin(N, p*) and Bin(N, p) for every true
    parameter p* with |p* - p| <= rel p* (p the computed one): 2 TV <= sqrt(2 KL) (Pinsker) and
    KL(Bin(N, p*) || Bin(N, p)) = N kl(p* || p) <= N (p* - p)^2 / (p (1 - p)) (KL <= chi^2);
    at p = 1, P*(N successes) >= 1 - N rel; at p = 0, p* = 0."""
    if N == 0 or p <= 0.0:
        return 0.0
    dp = rel * p / (1.0 - rel)  # |p* - p| <= rel p* <= rel p / (1 - rel)
    if p >= 1.0:
        return min(2.0, 2.0 * N * dp * (1 + 1e-9))
    return min(2.0, math.sqrt(2.0 * N / (p * (1.0 - p))) * dp * (1 + 1e-9))


def _binomial(N: int, p: float) -> tuple:
    """(offset, pmf on a window, l1 distance to the true pmf): window by Chernoff, entries
    within a relative PMF_REL_ERROR, the parameter within PARAM_REL_ERROR (:func:`param_l1`)."""
    from accountant.engines.binomial import binom_log_tail_bound, binom_logpmf_range

    if N == 0 or p <= 0.0:
        return 0, np.ones(1), 0.0
    if p >= 1.0:
        return N, np.ones(1), 0.0
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
    return lo, v, cut + PMF_REL_ERROR * float(np.sum(v)) * (1 + 1e-6) + param_l1(N, p)


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

    def __init__(self, P: np.ndarray, Q: np.ndarray, eP: float, eQ: float, datasets: str, lower: str = ""):
        self.P, self.Q, self.eP, self.eQ = P, Q, float(eP), float(eQ)
        self.datasets = datasets
        self.lower = lower or COUNT_LOWER  # what the pair's law is, for the statements
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
                              upper: Optional[float], beyond: Optional[float] = None) -> tuple:
    """(a certified lower bound on eps_c after ``rounds`` rounds with ``pair`` in every round, None)
    or (None, the reason): one round, :func:`pair_lower_epsilon`; more, the composed pair of
    :func:`accountant.composition.lower.composed_pair_delta` (losses rounded down, FFT and
    pmf errors subtracted), the grid set by ``upper`` (an upper bound on the composed eps_c).
    The search looks up to ``top`` per round; where the bound reaches it and ``beyond`` is given
    (add/remove: eps_c may exceed eps0), it goes on above it up to ``beyond`` per round."""
    delta = validate_delta(delta)
    if rounds == 1:
        dl, lo = pair.delta, pair_lower_epsilon(pair, delta, top)
    else:
        from accountant.composition.lower import composed_pair_delta

        dl, why = composed_pair_delta(pair.P, pair.Q, pair.eP, pair.eQ, rounds, float(upper))
        if dl is None:
            return None, why
        lo = largest_eps_above_target(dl, delta, top * rounds, rtol=1e-6)
    if beyond is not None and beyond > top and lo >= top * rounds:
        lo = largest_eps_above_target(dl, delta, beyond * rounds, rtol=1e-6, lo=top * rounds)
    return lo, None


def largest_eps_above_target(dl, delta: float, top: float, rtol: float = 1e-7, lo: float = 0.0) -> float:
    """The largest eps found (bisection) with the certified lower delta ``dl(eps)`` > ``delta``:
    the true delta exceeds the target there, so eps_c >= eps (0.0 if none). ``lo``: a point with
    dl(lo) > delta known (the bisection starts there)."""
    if lo == 0.0 and dl(0.0) <= delta:
        return 0.0
    if dl(top) > delta:
        return top
    return bisect(lambda e: dl(e) > delta, lo, top, rtol=rtol).x


def dummies_pair(params: Params, n: int, m: int) -> CountPair:
    """The count pair of ``n`` real users (D = (x1, x0, ..., x0), D' = (x1', x0, ..., x0)) and ``m``
    dummies, each the randomizer's output on a uniformly random input
    (:func:`accountant.accounting.deployment_hits.hit`)."""
    h = hit(params, n, m)
    extra = f" ({n} users)" + (f" and {m} {h.dummies}" if m else "")
    return _named(count_pair([(n - 1, h.c), (m, h.dummy)], 1, h.a, h.b, h.text(extra)), h)


def _named(pair: CountPair, h) -> CountPair:
    pair.lower = COUNT_LOWER if h.kind == "value" else COUNT_LOWER_S
    return pair


def reports_pair(params: Params, n: int, r: int) -> CountPair:
    """The count pair of ``n`` users with ``r`` reports each (the differing user's r reports)."""
    h = hit(params, n * r)
    return _named(count_pair([((n - 1) * r, h.c)], r, h.a, h.b,
                             h.text(f" ({n} users)", f"the {n * r} reports", f", {r} reports per user")), h)


def mix_pair(groups: list, g: int) -> CountPair:
    """The count pair with the differing user in group ``g`` (0-based), every other user's input
    x0 (a value other than x1 in every group's domain; disjoint from x1's items for hashed
    randomizers; a group of another kind of report never falls in S)."""
    n = sum(c for c, _ in groups)
    h = hit(groups[g][1], n)
    others = [(c - (i == g), h.c if i == g else h.other(p)) for i, (c, p) in enumerate(groups)]
    text = h.text(", every other user x0")
    return _named(count_pair(others, 1, h.a, h.b, f"the differing user in group {g + 1} ({h.name}, eps0 = "
                             f"{groups[g][1].eps0:g}), " + text[len(h.name) + 2:]), h)


def pair_lower_epsilon(pair: CountPair, delta: float, top: float) -> float:
    """A certified lower bound on eps_c from ``pair`` (0.0 if none found below ``top``)."""
    return largest_eps_above_target(pair.delta, validate_delta(delta), top, rtol=1e-6)


COUNT_LOWER = "the exact law of the count of x1 reports (certified l1 errors)"
COUNT_LOWER_S = "the exact law of the count of reports in S (certified l1 errors)"
SAMPLED_LOWER = "the exact law of (reports, ones) (certified l1 errors)"
SAMPLED_LOWER_S = "the exact law of (reports, reports in S) (certified l1 errors)"
ROUNDS_LOWER = ("the same pair in each of the {T} rounds, composed by the optimistic PLD (losses rounded "
                "down, FFT and pmf errors subtracted)")


def rounds_lower(spec, r, rounds: int, delta: float, colluders: int, dummies: int, n_min: bool) -> tuple:
    """(lower eps, statement, datasets) of
    :func:`accountant.accounting.deployments.deployment_rounds_epsilon` (``r`` its composed
    result of the round at n - c + m), or (None, the reason, None): without dummies the composed
    lower bound of ``r`` (the mechanism at n - c: the honest users' round), with them (or where
    ``r`` has none) the count pair with the m dummies in every round (Collision, CoCo: with the
    round's dimension ``spec.d``)."""
    honest = spec.n - colluders
    why = [text for cond, text in (
        (colluders, f"the {honest} honest users' pair (the colluders' reports: equal divergences)"),
        (n_min, f"n = {spec.n} is one of the populations n >= N")) if cond]
    if not dummies and r.epsilon_lower is not None:
        ds = r.lower_note.split("in every round, ", 1)[-1]
        return ordered(r.epsilon_lower, r.epsilon, "; ".join(
            [f"the composed certified lower bound at {honest} users, " + ROUNDS_LOWER.format(T=rounds)] + why), ds)
    return count_rounds_lower(spec.params(), honest, dummies, rounds, delta, r.epsilon, why)


def count_rounds_lower(params: Params, honest: int, dummies: int, rounds: int, delta: float, upper: float,
                       why: list) -> tuple:
    """(lower eps, statement, datasets) of the count pair of ``honest`` users and ``dummies`` in
    every one of ``rounds`` rounds (T = 1: one round), or (None, the reason, None)."""
    try:
        pair = dummies_pair(params, honest, dummies)
        lo, reason = pair_rounds_lower_epsilon(pair, delta, float(params.eps0), rounds, upper)
    except ValueError as exc:
        return None, f"lower bound {exc}", None
    if lo is None:
        return None, f"lower bound {reason}", None
    st = pair.lower if rounds == 1 else pair.lower + ", " + ROUNDS_LOWER.format(T=rounds)
    return ordered(lo, upper, "; ".join([st] + why), pair.datasets)


def _register_keyvalue() -> None:
    """The key-value baselines: their :func:`hit` (none, with the reason), not binary RR's pair."""
    from accountant.core.randomizers_keyvalue import PCKVAGRRParams, PCKVGRRParams, PCKVUEParams, PrivKVParams

    for cls in (PCKVGRRParams, PCKVUEParams, PCKVAGRRParams, PrivKVParams):
        sampled_pair.register(cls, _hit_sampled_pair)


_register_keyvalue()
