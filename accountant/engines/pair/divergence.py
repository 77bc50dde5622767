"""Hockey-stick divergence of a dominating pair in float64 with certified truncation (and brute force).

Part of :mod:`accountant.engines.pair`; the package docstring has the mathematics.
"""
from __future__ import annotations
import math
from typing import Optional
import numpy as np
from accountant.engines import parallel as _parallel
from accountant.core.optional import require
from accountant.engines.binomial import (
    binom_logpmf,
    binom_logpmf_range,
    half_tail_ratio,
)
from accountant.engines.pair.law import DivergenceValue, DominatingPair, FLOAT_LOG_REL_ERROR, FLOAT_REL_ERROR, TRUNCATION_FRACTION, LOG_TINY, up_ulps, window_log
from accountant.core.params import validate_eps
_MAX_BLOCK = 8192
# :func:`half_tail_ratio_runs` evaluates runs of one shape together up to this many cells (runs
# x padded length) per pass; longer runs one at a time (their arrays already fill a cache)
_ROWS_CELLS = 1 << 14
# float-path windows with at least this many terms are split across threads
_SPLIT_TERMS = 8192


# ----------------------------------------------------------------------------
# Float path
# ----------------------------------------------------------------------------

class FloatWindow:
    """Float-path evaluator for one pair and one window; caches what eps does not change."""

    def __init__(self, pair: DominatingPair, m_lo: int, m_hi: int) -> None:
        self.pair = pair
        n, c = pair.n, pair.c
        self.m = np.arange(m_lo, m_hi + 1, dtype=np.int64)
        self.mf = self.m.astype(np.float64)
        self.logB = binom_logpmf_range(m_lo - 1, m_hi - 1, n - 1, c)  # log B_{m-1}
        self.rho = (n - self.mf) * c / (self.mf * (1.0 - c))  # B_m / B_{m-1}

    def sums(self, eps: float) -> tuple[float, float, float, float]:
        """(log_scale, sum of D_m, sum of Q(S) over m, sum of the magnitudes of D_m's two
        parts), the sums scaled by exp(-log_scale); the last one bounds the cancellation
        (see :data:`CANCEL_ULPS`)."""
        pair = self.pair
        n, c, p, q, r = pair.n, pair.c, pair.p, pair.q, pair.r
        scale = math.tanh(eps / 2.0) / (2.0 * (p - q))
        gamma = r * c / (1.0 - c)
        m, mf = self.m, self.mf
        h = (scale * (p + q - gamma)) * mf + scale * gamma * n
        k = m // 2 + np.floor(h + 0.5 * (m & 1)).astype(np.int64) + 1
        valid = k <= m
        idx = np.flatnonzero(valid)
        if idx.size == 0:
            return 0.0, 0.0, 0.0, 0.0
        if idx[-1] - idx[0] + 1 == idx.size:  # one stretch (the usual case): views, not copies
            idx = slice(int(idx[0]), int(idx[-1]) + 1)

        def piece(ii: np.ndarray) -> tuple[float, float, float]:
            R, logb = half_tail_ratio_runs(m[ii], k[ii])
            mv, kf, hv = mf[ii], k[ii].astype(np.float64), h[ii]
            logterm = self.logB[ii] + logb
            Mi = float(np.max(logterm))
            if not math.isfinite(Mi):
                return -math.inf, 0.0, 0.0, 0.0
            w = np.exp(logterm - Mi)
            s_fac = np.maximum(0.5 * kf - hv * R, 0.0)
            # (plain multiply-and-sum: BLAS dot spawns threads, which costs more than it
            # saves on a small busy machine)
            qpos = ((p + q) + r * self.rho[ii]) * R - (p - q) * kf / mv
            mag = float(np.sum(w * (0.5 * kf + hv * R) / mv))
            return Mi, float(np.sum(w * s_fac / mv)), float(np.sum(w * qpos)), mag

        # a long window is cut into SPLIT_PARTS pieces whatever the cores (each piece re-anchors
        # its runs; the same numbers on every machine)
        size = idx.stop - idx.start if isinstance(idx, slice) else idx.size
        parts = _parallel.SPLIT_PARTS if size >= _SPLIT_TERMS else 1
        if parts == 1:
            pieces = [piece(idx)]
        else:
            cuts = np.array_split(np.arange(idx.start, idx.stop) if isinstance(idx, slice) else idx, parts)
            pieces = _parallel.map_ordered(piece, cuts)
        M = max(pc[0] for pc in pieces)
        if not math.isfinite(M):
            return 0.0, 0.0, 0.0, 0.0
        sum_d = sum(d * math.exp(pm - M) for pm, d, _, _ in pieces if math.isfinite(pm))
        sum_q = sum(qq * math.exp(pm - M) for pm, _, qq, _ in pieces if math.isfinite(pm))
        mag = sum(g * math.exp(pm - M) for pm, _, _, g in pieces if math.isfinite(pm))
        f = 2.0 * (p - q) * (1.0 + math.exp(eps))
        return M, sum_d * f, sum_q, mag * f

    @staticmethod
    def _block(m: np.ndarray, k: np.ndarray) -> int:
        """Anchor spacing of a regular run (see ``_run``)."""
        return int(_blocks(m, k, np.zeros(1, dtype=np.int64), np.array([m.size]))[0])

    @staticmethod
    def _run(m: np.ndarray, k: np.ndarray, anchor_values=None) -> tuple[np.ndarray, np.ndarray]:
        """R = T/b and log b along a regular run (m increasing by 1, k by 0 or 1).

        ``anchor_values`` = (R, log b) at the anchors 0, L, 2L, ... (L = ``_block``),
        if already computed (batched over runs by ``half_tail_ratio_runs``).
        """
        V = m.size
        L = FloatWindow._block(m, k)
        nb = -(-V // L)
        anchors = np.arange(nb) * L
        if anchor_values is None:
            logb0 = binom_logpmf(k[anchors], m[anchors], 0.5)
            r0 = half_tail_ratio(k[anchors], m[anchors])
        else:
            r0, logb0 = anchor_values
        if L == 1:
            return r0, logb0
        R, lb = _run_rows(m[None, :], k[None, :], r0[None, :], logb0[None, :], L)
        return R[0], lb[0]


def _blocks(m: np.ndarray, k: np.ndarray, s0: np.ndarray, s1: np.ndarray) -> np.ndarray:
    """Anchor spacing L of each regular run m[s0:s1], k[s0:s1]: from the growth rate
    KL(k/m || 1/2) of the recurrence's error (largest at an end of the run, as k/m is
    monotone along it), at most ``_MAX_BLOCK`` and the run's length."""
    ends = np.stack((s0, s1 - 1))
    u_end = np.clip(k[ends].astype(np.float64) / m[ends].astype(np.float64), 0.5, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        kl = np.where(u_end < 1.0, u_end * np.log(2 * u_end) + (1 - u_end) * np.log1p(-u_end) + (1 - u_end) * math.log(2.0), math.log(2.0))
    kl_max = np.max(kl, axis=0)
    with np.errstate(divide="ignore"):
        L = np.where(kl_max <= 0, float(_MAX_BLOCK), np.minimum(float(_MAX_BLOCK), np.maximum(1.0, np.floor(0.5 / kl_max))))
    return np.minimum(L.astype(np.int64), s1 - s0)


def _run_rows(m: np.ndarray, k: np.ndarray, r0: np.ndarray, logb0: np.ndarray, L: int) -> tuple[np.ndarray, np.ndarray]:
    """``FloatWindow._run`` on the rows of ``m`` and ``k`` (shape runs x V, every row a regular
    run of the same length V and anchor spacing L > 1), from the anchors' (R, log b) (shape
    runs x ceil(V / L)): each element by the same operations as a run alone.

    Step j goes from position j to j+1 (the last position's step is unused).  The numerators
    are integers below 2^53, exact in float64 (2 - t below is the same number as 2 k + 1 - m);
    the steps fill (runs, nb, L) blocks padded with zeros."""
    nr, V = m.shape
    nb = -(-V // L)
    mf = m.astype(np.float64)
    k0 = k[:, :-1].astype(np.float64)
    m1 = mf[:, :-1] + 1.0
    stay = k[:, 1:] == k[:, :-1]
    t = m1 - 2.0 * k0
    log_alpha = np.zeros((nr, nb * L))
    log_alpha[:, :V - 1] = np.log1p(np.divide(np.where(stay, t, 2.0 - t), m1))
    beta = np.zeros((nr, nb * L))
    beta[:, :V - 1] = np.divide(np.where(stay, k0, -(k0 + 1.0)), m1)
    log_alpha = log_alpha.reshape(nr, nb, L)
    beta = beta.reshape(nr, nb, L)
    lam = np.zeros((nr, nb, L))
    np.cumsum(log_alpha[:, :, :-1], axis=2, out=lam[:, :, 1:])
    gam = np.negative(lam[:, :, 1:])
    np.exp(gam, out=gam)
    gam *= beta[:, :, :-1]
    G = np.zeros((nr, nb, L))
    np.cumsum(gam, axis=2, out=G[:, :, 1:])
    G += r0[:, :, None]
    R = np.exp(lam)
    R *= G
    np.subtract(logb0[:, :, None], lam, out=lam)
    return R.reshape(nr, nb * L)[:, :V], lam.reshape(nr, nb * L)[:, :V]


def half_tail_ratio_runs(m: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R = P[Bin(m,1/2) >= k] / P[Bin(m,1/2) = k] and log P[Bin(m,1/2) = k] along a path.

    ``m`` and ``k`` are integer arrays with 0 <= k <= m (any order).  The path is cut
    into runs of consecutive m (m increasing by 1, k by 0 or 1); each run is evaluated
    by the affine recurrences of the module docstring between exact anchors
    (:func:`binomial.half_tail_ratio`); an irregular point is a run of length 1.  The
    anchors of every run are evaluated in one batch, and the runs of one length and one
    anchor spacing as the rows of one array (:func:`_run_rows`; the same numbers as one
    run at a time, with one pass of array operations instead of one per run: the nested
    OUE blanket asks for about 100 runs of the same length per call).
    Shared by the pair engine and :mod:`accountant.engines.blanket`.
    """
    m = np.asarray(m, dtype=np.int64)
    k = np.asarray(k, dtype=np.int64)
    if m.size == 0:
        return np.empty(0), np.empty(0)
    # a run breaks where m does not step by 1 or k by 0 or 1 (a negative step of k, seen
    # as unsigned, is above 1 too)
    breaks = np.flatnonzero((np.diff(m) != 1) | (np.diff(k).view(np.uint64) > 1)) + 1
    s0 = np.concatenate(([0], breaks)).astype(np.int64)
    s1 = np.concatenate((breaks, [m.size])).astype(np.int64)
    Ls = _blocks(m, k, s0, s1)
    counts = -(-(s1 - s0) // Ls)
    first = np.cumsum(counts) - counts          # each run's first anchor in the batch
    pos = np.repeat(s0, counts) + (np.arange(int(counts.sum())) - np.repeat(first, counts)) * np.repeat(Ls, counts)
    r_all = half_tail_ratio(k[pos], m[pos])
    lb_all = binom_logpmf(k[pos], m[pos], 0.5)
    if s0.size == 1:  # one run (the usual path): its arrays are the answer
        return FloatWindow._run(m, k, (r_all, lb_all))
    R = np.empty(m.size)
    logb = np.empty(m.size)
    sizes = s1 - s0
    one = Ls == 1                               # every point an anchor: the anchors are the values
    R[pos[np.repeat(one, counts)]] = r_all[np.repeat(one, counts)]
    logb[pos[np.repeat(one, counts)]] = lb_all[np.repeat(one, counts)]
    groups = np.flatnonzero(~one)
    if groups.size:
        key = sizes[groups] * (_MAX_BLOCK + 1) + Ls[groups]
        for g in np.unique(key):
            same = groups[key == g]
            V, L = int(sizes[same[0]]), int(Ls[same[0]])
            nb = -(-V // L)
            per = max(1, _ROWS_CELLS // (nb * L))  # rows of one pass: its arrays stay in cache
            for i in range(0, same.size, per):
                runs = same[i:i + per]
                if runs.size == 1:  # one run: slices, no gathered copies
                    a0, f0 = int(s0[runs[0]]), int(first[runs[0]])
                    at, an = np.s_[None, a0:a0 + V], np.s_[None, f0:f0 + nb]
                else:
                    at = s0[runs][:, None] + np.arange(V)[None, :]
                    an = first[runs][:, None] + np.arange(nb)[None, :]
                Rr, lb = _run_rows(m[at], k[at], r_all[an], lb_all[an], L)
                R[at], logb[at] = Rr, lb
    return R, logb


def _mp_window_sum(pair: DominatingPair, eps: float, m_lo: int, m_hi: int, digits: int):
    """High-precision window sum of D_m and Q(S) with mpmath (returns mpf values).

    Delegates to ``precision.mp_window_sum``: re-anchored at a distance chosen from
    the recurrence's error growth and checked at two working precisions (raises
    ``ArithmeticError`` if fewer than ``digits`` digits agree).
    """
    from accountant.engines.pair.precision import mp_window_sum

    res = mp_window_sum(pair, eps, m_lo, m_hi, digits)
    return res.d, res.qmass


# The float sum's relative error grows like (sum of |0.5 k| + |h R| over the window) / (the sum
# of 0.5 k - h R) times the unit roundoff (the scale of h comes from tanh(eps/2), whose
# distance to 1 is lost at large eps): against 20-digit mpmath on short windows
# (n = 1e3 and 1e5, eps0 = 0.1 ... 30, eps = 0.5 ... 0.999 eps0) it stays below
# 2^-53 * ratio; CANCEL_ULPS bounds it with room.  Where CANCEL_ULPS * 2^-53 * ratio
# exceeds a tenth of FLOAT_REL_ERROR on a window of fewer than CANCEL_MP_MAX_TERMS terms
# (eps0 >= 10 near eps0), that window is evaluated in mpmath instead.  Long windows (n >= 1e6
# at small eps0) keep the float sum, whose error there is checked against arb in
# tests/accountant/engines/test_precision.py.
CANCEL_ULPS = 4.0
CANCEL_MP_MAX_TERMS = 4096


def _cancels(sd: float, mag: float) -> bool:
    """Whether the float window sum ``sd`` may have lost more than a tenth of its margin to
    cancellation, given the sum ``mag`` of its parts' magnitudes (same scale)."""
    if mag <= 0.0:
        return False
    return CANCEL_ULPS * 2.0 ** -53 * mag > 0.1 * FLOAT_REL_ERROR * max(sd, 0.0)


def _float_up(log_x: float) -> float:
    """exp(log_x) rounded up to a representable float (smallest subnormal if it underflows)."""
    if log_x == -math.inf:
        return 0.0
    v = math.exp(log_x)
    return math.nextafter(math.nextafter(v, math.inf), math.inf)


def window_value(pair: DominatingPair, eps: float, m_lo: int, m_hi: int, log_trunc: float,
                 method: str = "float", digits: int = 30, _fw: "Optional[FloatWindow]" = None
                 ) -> DivergenceValue:
    """Certified bounds from the window sum over [m_lo, m_hi] plus the truncated mass.

    ``log_trunc`` is the log of a bound on the mass left out of the window; -inf asks
    for the window sum alone (a slice, e.g. for tests).  With ``method="arb"`` a finite
    ``log_trunc`` is replaced by the same Chernoff bound evaluated in ball arithmetic.
    """
    if eps >= pair.eps_max:  # delta = 0 exactly (every term is 0, also outside the window)
        return DivergenceValue(eps, 0.0, 0.0, 0.0, 0.0, 0.0, (m_lo, m_hi), method)
    if method == "float":
        fw = _fw if _fw is not None else FloatWindow(pair, m_lo, m_hi)
        M, sd, sq, mag = fw.sums(eps)
        if m_hi - m_lo < CANCEL_MP_MAX_TERMS and _cancels(sd, mag):
            # 0.5 k - h R cancels beyond the float margin (a ratio e^eps0 >= e^15 at eps near
            # eps0: the clone of p = 1.07e13 read a true delta of 1.06e-3 at eps = 29.998944
            # as 2.8e-14): the same window in mpmath, whose digits are checked at two precisions
            # (fewer digits where the two working precisions agree on fewer; the float sum
            # with its margin widened by the cancellation bound if even those disagree)
            for dg in (digits, 12):
                try:
                    return window_value(pair, eps, m_lo, m_hi, log_trunc, method="mpmath", digits=dg)
                except ArithmeticError:
                    pass
            rel = FLOAT_REL_ERROR + CANCEL_ULPS * 2.0 ** -53 * mag / sd if sd > 0 else math.inf
        else:
            rel = FLOAT_REL_ERROR
        log_value = M + math.log(sd) if sd > 0 else -math.inf
        log_slope = -math.exp(eps) * sq / sd if sd > 0 else 0.0
        log_err = FLOAT_LOG_REL_ERROR * abs(log_value) if sd > 0 else 0.0
        digits_out = None
        if rel < 0.5:
            log_margin = math.log1p(rel) + log_err
            direct = (math.exp(M) * sd, rel) if sd > 0 else (0.0, 0.0)
            log_lower_w = log_value + math.log1p(-rel) - log_err
            log_upper_w = log_value + log_margin
        else:  # nothing certified from the float sum: delta <= 1 (a total variation)
            direct = None
            log_lower_w, log_upper_w = -math.inf, 0.0
    elif method == "mpmath":
        import mpmath

        from accountant.engines.pair.precision import mp_window_sum

        res = mp_window_sum(pair, eps, m_lo, m_hi, digits)
        d, qm = res.d, res.qmass
        if d > 0:
            with mpmath.workdps(digits + 20):
                log_value = float(mpmath.log(d))
                log_slope = float(-mpmath.exp(eps) * qm / d)
            # relative error 10^-digits (checked), plus float rounding of the log
            rel = 10.0 ** (-digits)
            log_upper_w = up_ulps(log_value + rel)
            log_lower_w = -up_ulps(-(log_value - rel))
            direct = (float(d), 10.0 ** (-digits + 1))
        else:
            log_value, log_slope, log_upper_w, log_lower_w = -math.inf, 0.0, -math.inf, -math.inf
            direct = (0.0, 0.0)
        digits_out = res.digits
    elif method == "arb":
        from accountant.engines.pair.precision import arb_log_bounds, arb_log_trunc, arb_window_sum

        res = arb_window_sum(pair, eps, m_lo, m_hi, digits)
        d, qm = res.d, res.qmass
        log_lower_w, log_upper_w = arb_log_bounds(d)
        direct = None
        if d > 0:
            log_value = float(d.log().mid())
            log_slope = float((-(qm / d) * res.d.__class__(eps).exp()).mid())
        else:
            log_value, log_slope = -math.inf, 0.0
        if log_trunc > -math.inf:
            # replace the float Chernoff bound by the same bound in ball arithmetic
            lt = arb_log_trunc(pair, m_lo, m_hi)
            log_trunc = -math.inf if lt is None else up_ulps(float(lt.upper()))
        digits_out = res.digits
    else:
        raise ValueError(f"method must be 'float', 'mpmath' or 'arb', got {method!r}")
    log_upper = up_ulps(float(np.logaddexp(log_upper_w, log_trunc))) if log_trunc > -math.inf else log_upper_w
    value = math.exp(log_value) if log_value > -math.inf else 0.0
    upper = _float_up(log_upper)
    lower = max(math.exp(log_lower_w) * (1.0 - 1e-15), 0.0) if log_lower_w > -math.inf else 0.0
    if direct is not None and direct[0] > 1e-290:
        # in the float range: the direct (linear-scale) value and its margin
        value, margin = direct
        upper = value * (1.0 + margin) + math.exp(log_trunc)
        lower = max(value * (1.0 - margin), 0.0)
    return DivergenceValue(
        eps=eps,
        value=value,
        upper=upper,
        lower=lower,
        truncated=_float_up(log_trunc),
        slope=log_slope * value,
        window=(m_lo, m_hi),
        method=method,
        log_value=log_value,
        log_upper=log_upper,
        log_lower=log_lower_w,
        log_truncated=log_trunc,
        log_slope=log_slope,
        digits=digits_out,
    )


def hockey_stick_divergence(
    pair: DominatingPair,
    eps: float,
    *,
    method: str = "float",
    digits: int = 30,
    target_delta: Optional[float] = None,
    log_target_delta: Optional[float] = None,
) -> DivergenceValue:
    """D_{e^eps}(P || Q) for a dominating pair, with certified bounds.

    Parameters
    ----------
    pair : the dominating pair.
    eps : eps >= 0.
    method : ``"float"`` (fast, vectorised float64; relative error below 1e-10),
        ``"mpmath"`` (reference evaluation, ``digits`` significant digits checked at
        two working precisions) or ``"arb"`` (certified: ball arithmetic with
        python-flint, the interval [lower, upper] contains the exact divergence).
    target_delta, log_target_delta : if given (at most one), the summation window is
        chosen so that the mass it leaves out is at most ``TRUNCATION_FRACTION`` times
        the target; otherwise the window is chosen adaptively from the computed value.

    Returns
    -------
    DivergenceValue with ``upper`` (a certified upper bound), ``lower`` and ``value``,
    and their logs (``log_upper`` etc.), finite also below the float range.

    Notes
    -----
    D(P||Q) = D(Q||P) for these pairs (Q(x, y) = P(y, x)), so one direction suffices.
    References: Wang et al. (numerical vector analyses), Theorem 1 and Theorem 5; Feldman, McMillan, Talwar
    (SODA 2023), Theorem 3.2.

    Examples
    --------
    >>> from accountant import DominatingPair, fmt, hockey_stick_divergence
    >>> pair = DominatingPair.clone(10_000, 1.0)
    >>> v = hockey_stick_divergence(pair, 0.05, method="arb")
    >>> v.lower <= v.value <= v.upper
    True
    >>> print(fmt(v.upper, 4, "up"), fmt(v.lower, 4, "down"))
    2.141e-6 2.14e-6
    """
    validate_eps(eps)
    if method not in ("float", "mpmath", "arb"):
        raise ValueError(f"method must be 'float', 'mpmath' or 'arb', got {method!r}")
    if method == "arb":
        require("flint", "method 'arb' (certified ball arithmetic)")
    if target_delta is not None and log_target_delta is not None:
        raise ValueError("give at most one of target_delta and log_target_delta")
    if target_delta is not None:
        if not (isinstance(target_delta, (int, float, np.floating)) and 0.0 < target_delta < 1.0):
            raise ValueError(f"target_delta must lie in (0, 1), got {target_delta!r}")
        log_target_delta = math.log(target_delta)
    if log_target_delta is not None and not (math.isfinite(log_target_delta) and log_target_delta < 0):
        raise ValueError(f"log_target_delta must be a finite number < 0, got {log_target_delta!r}")
    eps = float(eps)
    if eps >= pair.eps_max:
        return DivergenceValue(eps, 0.0, 0.0, 0.0, 0.0, 0.0, (1, 0), method)

    def evaluate(log_mass: float):
        m_lo, m_hi, log_trunc = window_log(pair, log_mass)
        return window_value(pair, eps, m_lo, m_hi, log_trunc, method=method, digits=digits)

    if log_target_delta is not None:
        return evaluate(math.log(TRUNCATION_FRACTION) + log_target_delta - math.log(2.0))
    if method != "float":
        # the float path places the window (cheap); the method evaluates that window
        probe = hockey_stick_divergence(pair, eps)
        return window_value(pair, eps, probe.window[0], probe.window[1], probe.log_truncated,
                            method=method, digits=digits)
    first = evaluate(math.log(1e-30))
    if first.log_value > -math.inf and (
            first.log_truncated <= math.log(TRUNCATION_FRACTION) + first.log_value):
        return first
    log_mass = math.log(TRUNCATION_FRACTION) + first.log_value - math.log(2.0)
    if not math.isfinite(log_mass):
        log_mass = LOG_TINY
    return evaluate(log_mass)


def hockey_stick_bruteforce(pair: DominatingPair, eps: float) -> float:
    """D_{e^eps}(P || Q) by enumerating every (x, y) (small n only; for tests).

    Builds P and Q directly from the definition: sums over C, A and (D1, D2).
    """
    from scipy.stats import binom

    n = pair.n
    if n > 400:
        raise ValueError("brute-force enumeration is for n <= 400")
    P = np.zeros((n + 1, n + 1))
    Q = np.zeros((n + 1, n + 1))
    pc = binom.pmf(np.arange(n), n - 1, pair.c)
    for C in range(n):
        pa = binom.pmf(np.arange(C + 1), C, 0.5)
        for A in range(C + 1):
            w = pc[C] * pa[A]
            x, y = A, C - A
            P[x + 1, y] += w * pair.p
            P[x, y + 1] += w * pair.q
            P[x, y] += w * pair.r
            Q[x, y + 1] += w * pair.p
            Q[x + 1, y] += w * pair.q
            Q[x, y] += w * pair.r
    return float(np.sum(np.maximum(P - math.exp(eps) * Q, 0.0)))
