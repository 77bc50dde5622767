"""delta(eps) and eps_c(delta) of the exact privacy blanket: certified ends, path choice, search.

Part of :mod:`accountant.engines.blanket`; the package docstring has the mathematics.
"""
from __future__ import annotations
import math
from dataclasses import dataclass
from typing import Optional
import numpy as np
from accountant.engines.search import epsilon_for_delta
from accountant.engines.blanket.law import CornerBlanket, CountLaw, OueBlanket
from accountant.engines.blanket.oue import corner_positive_part
from accountant.engines.blanket.window import (PositivePart, TILT_FROM, approx_epsilon, at_smaller_eps, cancellation_slack,
                                               law_windows, near_eps_max, run_truncated)
from accountant.engines.blanket.sums import Terms, binned_sum, binned_sums, exact_sum, mp_exact_sum
from accountant.core.params import validate_eps

# Relative float error margin of the float paths.  The upper-tail form
# (k/2) b + (m/2 - c) T cancels by a factor ~ sqrt(m); against mpmath the errors stay far
# below the margin for n <= 1e5 (tests/accountant/engines/test_blanket_exact.py); the
# margin grows with sqrt(n) to cover the cancellation at larger n.
FLOAT_REL_ERROR = 1e-10
# The binned path refines its bins until (upper - lower) <= BIN_GAP * max(upper, target).
BIN_GAP = 1e-5
MAX_BINS = 4096
EXACT_MAX_TERMS = 20_000
MAX_BINNED_CELLS = 10**7
# fraction of the target delta that the windows may leave out (bounded and added to the
# upper end); far below BIN_GAP, so it costs nothing visible in eps
TRUNCATION = 1e-8


def positive_part(law: CountLaw, n: int, eps: float, *, target_delta: Optional[float] = None,
                  method: str = "auto", digits: int = 50,
                  bin_gap: float = BIN_GAP, min_bins: Optional[int] = None,
                  truncation: float = TRUNCATION) -> PositivePart:
    """delta(eps) = E[(v1 N1 + v2 N2 + v3 N3)_+] / n with certified bounds.

    Parameters
    ----------
    law : the count law and coefficients (see module docstring), or a four-atom
        :class:`OueBlanket` / :class:`CornerBlanket`.
    n : number of users, integer >= 1.
    eps : eps >= 0.
    target_delta : if given, the windows leave out at most TRUNCATION of it;
        otherwise of a first estimate of the value.
    method : ``"auto"`` (exact when the windows hold at most EXACT_MAX_TERMS pairs),
        ``"exact"``, ``"binned"`` or ``"mpmath"`` (reference, small windows only).
    bin_gap : the binned path refines its bins until upper - lower <= bin_gap *
        max(upper, n target_delta); a looser gap only widens [lower, upper].
    truncation : fraction of ``target_delta`` (or of a first estimate) that the windows may
        leave out (bounded and added to ``upper``).
    min_bins : bins of the binned path's first pass; by default 3 for m-windows of at least
        ``TILT_FROM`` values (they meet BIN_GAP there: 2.5e-8 at n = 1e10) and 8 below
        (3 would need a second pass); a profile whose values are differenced, as in
        :mod:`accountant.composition.compose`, asks for 8.

    Returns
    -------
    PositivePart with ``lower <= delta(eps) <= upper``.

    References
    ----------
    Balle, Bell, Gascon, Nissim (CRYPTO 2019), Section 3 (privacy blanket); Su, Cheng,
    Wang (S&P 2026) for the optimality of the decomposition.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    validate_eps(eps)
    four = isinstance(law, (OueBlanket, CornerBlanket))
    if method not in ("auto", "exact", "binned", "mpmath") + (("nested",) if four else ()):
        raise ValueError(f"method must be 'auto', 'exact', 'binned' or 'mpmath' ('nested' too for OUE and "
                         f"CornerBlanket), got {method!r}")
    if target_delta is not None and not (0.0 < target_delta < 1.0):
        raise ValueError(f"target_delta must lie in (0, 1), got {target_delta!r}")
    if not (isinstance(bin_gap, (int, float)) and 0.0 < bin_gap < 1.0):
        raise ValueError(f"bin_gap must lie in (0, 1), got {bin_gap!r}")
    if not (isinstance(truncation, (int, float)) and 0.0 < truncation < 1.0):
        raise ValueError(f"truncation must lie in (0, 1), got {truncation!r}")
    if min_bins is not None and (isinstance(min_bins, bool) or not isinstance(min_bins, (int, np.integer))
                                 or not 1 <= min_bins <= MAX_BINS):
        raise ValueError(f"min_bins must be an integer in [1, {MAX_BINS}], got {min_bins!r}")
    n = int(n)
    eps = float(eps)
    if isinstance(law, CornerBlanket) and law.count_law() is not None:  # a corner has no mass
        return positive_part(law.count_law(), n, eps, target_delta=target_delta,
                             method="auto" if method == "nested" else method, digits=digits,
                             bin_gap=bin_gap, min_bins=min_bins, truncation=truncation)
    if four:  # four atoms (accountant.engines.blanket.oue)
        return corner_positive_part(law, n, eps, target_delta=target_delta, method=method, digits=digits,
                                 bin_gap=bin_gap, min_bins=min_bins, truncation=truncation,
                                 max_bins=MAX_BINS, max_cells=MAX_BINNED_CELLS,
                                 exact_max_terms=EXACT_MAX_TERMS)
    far = near_eps_max(law, eps)
    if far is not None:
        return at_smaller_eps(eps, positive_part(law, n, far, target_delta=target_delta, method=method, digits=digits,
                                                 bin_gap=bin_gap, min_bins=min_bins, truncation=truncation))
    v = law.coefficients(eps)
    vmax = max(max(v), 0.0)
    if vmax == 0.0 or eps >= law.eps_max:
        return PositivePart(eps, 0.0, 0.0, 0.0, 0.0, 0.0, method, 0)
    terms = Terms(law, eps)
    pp = law.p_prime

    def run(allowed: float) -> PositivePart:
        (m_lo, m_hi), (j_lo, j_hi), trunc = law_windows(law, n, v, allowed)
        nj = j_hi - j_lo + 1
        meth = method
        if meth == "auto":
            meth = "exact" if (m_hi - m_lo + 1) * nj <= EXACT_MAX_TERMS or not (0.0 < pp < 1.0) else "binned"
        if meth == "binned" and not (0.0 < pp < 1.0):
            meth = "exact"
        bins = 0
        if meth == "exact":
            F, Qs = exact_sum(law, n, terms, (m_lo, m_hi), (j_lo, j_hi))
            lo_F = up_F = F
            margin = _float_margin(n)
        elif meth == "mpmath":
            lo_F, up_F = mp_exact_sum(law, n, eps, (m_lo, m_hi), (j_lo, j_hi), digits)
            Qs = 0.0
            margin = 10.0 ** (-digits + 2)
        else:
            # 3 bins meet BIN_GAP on long m-windows (the longer the window, the smaller
            # the gap); the gap shrinks like 1/G^2, so a miss jumps straight to the G
            # expected to meet it
            G = _first_bins(min_bins, m_hi - m_lo + 1)
            while True:
                lo_F, up_F, Qs = binned_sum(law, n, terms, (m_lo, m_hi), (j_lo, j_hi), G)
                bins = G
                # gap relative to the larger of the value and the target: far
                # from the target a coarser bracket decides the search just as well
                ref = max(up_F, n * target_delta if target_delta is not None else 0.0, 1e-300)
                if up_F - lo_F <= bin_gap * ref or G >= MAX_BINS or G >= nj:
                    break
                # the gap shrinks like 1/G^2 (chord and tangents on a convex function):
                # jump to the G expected to meet bin_gap, with 30% to spare
                ratio = (up_F - lo_F) / (bin_gap * ref)
                G = int(min(MAX_BINS, max(2 * G, math.ceil(1.3 * G * math.sqrt(ratio)))))
                G_cap = MAX_BINNED_CELLS // (m_hi - m_lo + 1)
                if G > G_cap:  # cost model: keep the (proved, looser) bracket we have
                    if G_cap <= bins:
                        break
                    G = int(G_cap)
            margin = _float_margin(n)
        return _certified(eps, n, terms, meth, (lo_F, up_F, Qs), trunc, bins, margin)

    return run_truncated(run, target_delta, truncation, vmax)


def _float_margin(n: int) -> float:
    """The float paths' relative error margin at n users."""
    return FLOAT_REL_ERROR * max(1.0, math.sqrt(n) / 1e3)


def _first_bins(min_bins: Optional[int], m_window: int) -> int:
    """Bins of the binned path's first pass (see :func:`positive_part`, ``min_bins``)."""
    return min_bins if min_bins is not None else (3 if m_window >= TILT_FROM else 8)


def _certified(eps: float, n: int, terms, meth: str, sums, trunc: float, bins: int,
               margin: float) -> PositivePart:
    """The certified ends from a path's sums (lower F, upper F, E[b . N; X > 0]): the relative
    float margin, the coefficients' cancellation slack and the left-out mass ``trunc``."""
    lo_F, up_F, Qs = sums
    value = 0.5 * (lo_F + up_F) / n
    slope = -terms.u * Qs / n
    slack = 0.0 if meth == "mpmath" else cancellation_slack(up_F / n, slope, margin)
    lower = max(lo_F / n * (1.0 - margin) - slack, 0.0)
    upper = up_F / n * (1.0 + margin) + trunc + slack
    return PositivePart(eps, value, lower, upper, slope, trunc, meth, bins)


def positive_part_many(law, n: int, eps_values, *, target_delta: float, bin_gap: float = BIN_GAP,
                       min_bins: Optional[int] = None, truncation: float = TRUNCATION) -> list[PositivePart]:
    """``[positive_part(law, n, e, target_delta=..., ...) for e in eps_values]`` (method
    ``"auto"``), the same PositivePart for every eps, bit for bit, from one pass over the shared
    count windows where the eps share them.

    Why each value is the one :func:`positive_part` returns (so each is the same certified
    bracket ``lower <= delta(eps) <= upper``):

    * with a target, the windows of an eps are ``law_windows(law, n, v(eps), truncation *
      target_delta)``, computed here by the same call (its Chernoff windows are remembered per
      rounded log mass, so eps of one profile usually share them); the path ("exact" or
      "binned") and the first pass's bins follow from the windows alone, as in
      :func:`positive_part`;
    * the eps whose binned path has the same windows and first-pass bins are summed together by
      :func:`accountant.engines.blanket.sums.binned_sums`, which returns each eps's
      ``binned_sum``, bit for bit (its docstring: the same chunks and per-chunk operations, the
      m weights and bin masses shared, the rows of several eps evaluated as one path only where
      that gives the same numbers);
    * an eps whose first pass meets the bin gap (or cannot refine) is finished by the same
      :func:`_certified` as in :func:`positive_part`; an eps that would refine its bins, an eps
      on the exact path (short windows: cheap), a four-atom law, and the special cases (eps at
      or near ``eps_max``, every coefficient <= 0, p' in {0, 1}) are evaluated by
      :func:`positive_part` itself.

    Parameters are those of :func:`positive_part` (``target_delta`` required); ``eps_values``
    a sequence of eps >= 0.  Returns the list of PositivePart in the order of ``eps_values``.
    """
    for e in eps_values:
        validate_eps(e)
    eps_values = [float(e) for e in eps_values]
    if target_delta is None or not (0.0 < target_delta < 1.0):
        raise ValueError(f"target_delta must lie in (0, 1), got {target_delta!r}")
    alone = lambda e: positive_part(law, n, e, target_delta=target_delta, bin_gap=bin_gap,  # noqa: E731
                                    min_bins=min_bins, truncation=truncation)
    if isinstance(law, (OueBlanket, CornerBlanket)) or not (0.0 < law.p_prime < 1.0) or len(eps_values) < 2:
        return [alone(e) for e in eps_values]
    alone(eps_values[0])  # validates the arguments as positive_part does (and is its first value)
    out: list = [None] * len(eps_values)
    groups: dict = {}
    for i, e in enumerate(eps_values):
        v = law.coefficients(e)
        if near_eps_max(law, e) is not None or max(max(v), 0.0) == 0.0 or e >= law.eps_max:
            out[i] = alone(e)
            continue
        mw, jw, trunc = law_windows(law, int(n), v, truncation * target_delta)
        nj = jw[1] - jw[0] + 1
        if (mw[1] - mw[0] + 1) * nj <= EXACT_MAX_TERMS:
            out[i] = alone(e)
            continue
        G = _first_bins(min_bins, mw[1] - mw[0] + 1)
        groups.setdefault((mw, jw, G), []).append((i, e, trunc))
    margin = _float_margin(int(n))
    for (mw, jw, G), members in groups.items():
        terms = [Terms(law, e) for _, e, _ in members]
        nj = jw[1] - jw[0] + 1
        for (i, e, trunc), t, (lo_F, up_F, Qs) in zip(members, terms, binned_sums(law, int(n), terms, mw, jw, G)):
            ref = max(up_F, n * target_delta, 1e-300)
            if up_F - lo_F <= bin_gap * ref or G >= MAX_BINS or G >= nj:
                out[i] = _certified(e, int(n), t, "binned", (lo_F, up_F, Qs), trunc, G, margin)
            else:
                out[i] = alone(e)
    return out


def blanket_exact_delta(law: CountLaw, n: int, eps: float) -> PositivePart:
    """delta(eps) of the exact privacy blanket (:func:`positive_part` with ``method="auto"``)."""
    return positive_part(law, n, eps)


@dataclass(frozen=True)
class BlanketEpsilon:
    """epsilon (certified: upper delta <= target), achieved_delta (that upper delta),
    lower_epsilon (largest eps found with certified lower delta > target, or None),
    evaluations."""

    epsilon: float
    achieved_delta: float
    lower_epsilon: Optional[float]
    evaluations: int


def blanket_exact_epsilon(law: CountLaw, n: int, delta: float, rtol: float = 1e-9,
                          guess: Optional[float] = None, certify_bracket: bool = True,
                          bin_gap: float = BIN_GAP, min_bins: Optional[int] = None,
                          truncation: float = TRUNCATION) -> BlanketEpsilon:
    """Smallest eps with certified delta(eps) <= ``delta`` (``search.epsilon_for_delta``).

    The search runs on [0, law.eps_max] (delta = 0 at eps_max, where every v_c <= 0) and
    starts a little above ``guess``, by default the saddle-point estimate
    :func:`approx_epsilon` (within 3e-7 of eps_c from n = 1e5 on).  With
    ``certify_bracket=False`` it stops at the first certified eps from which Newton puts the
    root within ``rtol`` (usually the first evaluation; ``lower_epsilon`` is then None);
    otherwise it also certifies a point within ``rtol`` below (one more evaluation).

    References
    ----------
    Balle, Bell, Gascon, Nissim, "The privacy blanket of the shuffle model", CRYPTO 2019
    (Lemma 5.3), evaluated exactly.

    Parameters
    ----------
    law : CountLaw
        The count law (:func:`blanket_law`).
    n : int
        Number of users.
    delta : float
        Target delta, in (0, 1).
    rtol : float
        Relative tolerance of the search.
    guess : float, optional
        Starting point (default: the saddle-point estimate).
    certify_bracket : bool
        Also certify a point within ``rtol`` below the answer.
    bin_gap : float
        The binned path's relative gap (:func:`positive_part`).  The answer is certified for
        any gap; a looser one makes each evaluation cheaper and the answer up to about
        ``bin_gap / (eps |d log delta / d eps|)`` larger (relative): 1e-4 costs at most
        5.5e-6 on the Amplification page's curves and halves their time at n = 1e4; 1e-3
        is slower again (the search needs more evaluations to separate target and value).
    min_bins : int, optional
        The binned path's first pass (:func:`positive_part`); 1 (one chord over the j-window)
        meets a gap of 1e-4 from n = 1e6 on and makes the curves' evaluations 2.6-3.4x cheaper
        at n = 1e8-1e9 (same eps_c on the 25 points of the page's default chart); where it
        does not meet the gap the bins are refined as usual.
    truncation : float
        The fraction of ``delta`` the windows may leave out (:func:`positive_part`; bounded and
        added to the upper end, so the answer is certified for any fraction).

    Returns
    -------
    BlanketEpsilon
        ``epsilon`` (certified: the upper delta there is <= ``delta``), ``achieved_delta``,
        ``lower_epsilon`` (or None) and the number of evaluations.

    Examples
    --------
    >>> from accountant import blanket_exact_epsilon, blanket_law, fmt, make_params
    >>> law = blanket_law(make_params("krr", 2.0, k=4))
    >>> r = blanket_exact_epsilon(law, 100_000, 1e-6)
    >>> print(fmt(r.epsilon, 4, "up"), r.achieved_delta <= 1e-6)
    0.02957 True
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    if not (isinstance(delta, (int, float, np.floating)) and 0.0 < delta < 1.0):
        raise ValueError(f"delta must lie in (0, 1), got {delta!r}")
    eps_max = law.eps_max
    if not math.isfinite(eps_max):
        raise ValueError("law has a category with a_c > 0 = b_c: delta(eps) > 0 for every eps")

    def evaluate(e: float):
        r = positive_part(law, n, e, target_delta=delta, bin_gap=bin_gap, min_bins=min_bins,
                          truncation=truncation)
        return r.lower, r.upper, r.slope

    if guess is None:
        guess = approx_epsilon(law, int(n), float(delta))
        if guess is not None:
            # aim just above the estimate: the first evaluation is then likely certified
            guess *= 1.0 + 0.2 * rtol
    if guess is not None and not (0.0 < guess < eps_max):
        guess = None
    res = epsilon_for_delta(evaluate, delta, eps_max, rtol=rtol, guess=guess, predict=not certify_bracket)
    return BlanketEpsilon(res.epsilon, res.achieved_delta, res.lower_epsilon, res.evaluations)
