r"""A certified lower bound for a finite randomizer from one linear statistic of the shuffled reports.

Part of :mod:`accountant.bounds.laws`.  May import: accountant.core, accountant.engines.

Datasets ``D = (x1, x0, ..., x0)`` and ``D' = (x1', x0, ..., x0)`` of n users.  The likelihood
ratio of the shuffled multiset ``(y_1, ..., y_n)`` is ``sum_j a(y_j) / sum_j b(y_j)`` with
``a = R(.|x1)/R(.|x0)`` and ``b = R(.|x1')/R(.|x0)``; to first order in 1/sqrt(n) it is a
function of ``sum_j (a - b)(y_j)``.  Any function of the multiset is a post-processing, so
the exact hockey-stick divergence of

    ``T = sum_j k(y_j)``,   ``k(y) = round((a(y) - b(y)) / h)``   (an integer),

between D and D' is a lower bound on the mechanism's worst case, for every step h.  Under D,
``T`` is user 1's term (law A: k(Y), Y ~ R(.|x1)) plus the sum of n - 1 i.i.d. terms of law p
(Y ~ R(.|x0)); under D' user 1's law is B.  So ``P = A * p^{*(n-1)}``, ``Q = B * p^{*(n-1)}``
and ``delta(eps) = sum_t (P(t) - e^eps Q(t))_+``.

**Computed with certified error, tilted.**  The divergence is a small difference of two close
laws, so an l1 error of the convolution power (it grows like n u: each squaring doubles it)
would swamp it.  Tilting by ``e^{theta t}`` moves the threshold ``t*`` (where P = e^eps Q) to
the centre of the tilted power ``q^{*m}``, ``q(j) = p(j) e^{theta j} / S``:
``P(t) - u Q(t) = S^m e^{-theta (t - m c - c_A)} ((A_theta - u B_theta) * q^{*m})(t)`` with
``A_theta(a) = A(a) e^{theta (a - c_A)}`` (c, c_A centring constants).  Summing only over
``t >= t0`` drops non-negative terms (still a lower bound), and there every weight is at most
the one at t0, so an l1 error ``err`` of the computed convolutions costs at most
``S^m e^{-theta (t0 - m c - c_A)} err``.  ``theta = eps / (mean(A) - mean(B))`` centres the
tilted power at the threshold of the central-limit approximation (any theta is valid; this
one makes the error small).  Errors carried: the convolution power's certified l1 distance
(:func:`accountant.engines.fftconv.convolution_power`), the relative error of building
p, A, B from the matrix (each entry a float sum of at most Y terms of normalised rows, within
``(Y + 4) u`` relative, so the m-fold power within ``(1 + rho)^m - 1`` in l1), and the FFT
error of the last two convolutions.

*Tuned.*  At ``u0 >= 1`` the statistic ``sum_j round((a(y_j) - u0 b(y_j)) / h)`` is a function
of the multiset too, so its exact divergence is a lower bound at every eps.  At
``eps = log u0`` the optimal event ``{P_D > u0 P_D'}`` is ``{sum_j (a - u0 b)(y_j) > 0}``, so as
h -> 0 the tuned statistic's divergence there is the full divergence of the datasets; the search
tunes ``u0 = e^eps`` at the eps it finds (the statistic at u0 = 1 is its first-order form).
Nothing above uses ``u0 = 1``: the tilt and the certified errors are the same.

*Outside x0's support.*  Where x0 gives probability 0 to outputs that x1 or x1' can produce
(a matrix that is not pure LDP), a view holding such an output y can only have it from user 1,
and those views add exactly ``sum_y (R(y|x1) - e^eps R(y|x1'))_+`` to the divergence (the rest of
the view has the same law under D and D'); the statistic runs on the other views, with user 1's
laws A and B the sub-probabilities of x1 and x1' on x0's support (proof in
:mod:`accountant.bounds.laws.ratio_groups`).  That sum is computed from the float rows with each
entry lowered (raised for x1') by its relative error and the sum rounded down.

What it is good for: the statistic is asymptotically sufficient, so for matrices whose
ratios take many values it is far above the two- and three-category counts.  Its error grows
like ``n^{1.5} u``: above about n = 1e7 the certified value is 0 (say so) and the category
bounds answer.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from accountant.core.numfmt import floor_at_resolution
from accountant.engines.fftconv import convolution_power, linear_convolve

_U = 2.0 ** -53
#: lattice steps per standard deviation of one report's statistic under x0
STAT_BINS_PER_SIGMA = 16
#: the largest window of the (n - 1)-fold power; a coarser step keeps larger n inside it
STAT_MAX_SIZE = 1 << 21
#: a computed power is reused for every theta within this factor of its own (any theta gives a
#: certified value; a far one only a smaller one)
THETA_REUSE = 2.0


@dataclass
class LinearStatisticLaw:
    """The lattice laws of the statistic for one triple (x1, x1', x0) and one n."""

    x1: int
    x1p: int
    x0: int
    n: int
    h: float
    lo: int                      # lattice value of index 0 of p, A, B
    p: np.ndarray
    A: np.ndarray
    B: np.ndarray
    rho: float                   # relative error of every entry of p, A, B
    names: tuple
    u0: float = 1.0              # the statistic's weight on R(.|x1') (module docstring, *Tuned*)
    z1: np.ndarray = field(default_factory=lambda: np.zeros(0))   # R(y|x1) on y outside x0's support
    z1p: np.ndarray = field(default_factory=lambda: np.zeros(0))  # R(y|x1') there
    _powers: dict = field(default_factory=dict, repr=False)

    @property
    def datasets(self) -> str:
        x1, x1p, x0 = (self.names[i] for i in (self.x1, self.x1p, self.x0))
        w = "" if self.u0 == 1.0 else f"{self.u0:.10g} "
        text = (f"D = ({x1}, {x0}, ..., {x0}), D' = ({x1p}, {x0}, ..., {x0}) (n = {self.n}); the "
                f"statistic sum_j round((R(y_j|{x1}) - {w}R(y_j|{x1p})) / (h R(y_j|{x0}))), h = {self.h:.3g}")
        if self.z1.size:
            text += f"; the outputs {x0} cannot produce counted in full"
        return text

    def outside(self, eps: float) -> float:
        """Certified lower end of ``sum_y (R(y|x1) - e^eps R(y|x1'))_+`` over the outputs y that
        x0 cannot produce (module docstring, *Outside x0's support*); 0 when there are none."""
        if not self.z1.size:
            return 0.0
        u = math.exp(eps) * (1 + 4 * _U)
        t = np.maximum(self.z1 * (1 - self.rho) - u * self.z1p * (1 + self.rho), 0.0)
        return max(float(np.sum(t)) * (1 - (t.size + 8) * 2 * _U), 0.0)

    def floor(self) -> float:
        """Certified lower end of delta at every eps: the mass of x1 on outputs neither x0 nor x1'
        can produce."""
        if not self.z1.size:
            return 0.0
        t = np.where(self.z1p == 0.0, self.z1 * (1 - self.rho), 0.0)
        return max(float(np.sum(t)) * (1 - (t.size + 8) * 2 * _U), 0.0)

    def _mean(self, w: np.ndarray) -> float:
        j = np.arange(w.size) + self.lo
        return float(np.dot(w, j) / np.sum(w))

    def _power(self, theta: float):
        """(offset, V, err, log S, c): the tilted (n - 1)-fold power, reused for close thetas."""
        for key, val in self._powers.items():
            if key / THETA_REUSE <= theta <= key * THETA_REUSE:
                return key, val
        m = self.n - 1
        j = np.arange(self.p.size) + self.lo
        c = float(j[-1]) if theta > 0 else float(j[0])
        with np.errstate(under="ignore"):
            pt = self.p * np.exp(theta * (j - c))
        S = float(np.sum(pt))
        q = pt / S
        off, V, dist = convolution_power(q, m, max_size=STAT_MAX_SIZE)
        # exp (its argument theta (j - c) is rounded: a relative error |theta (j - c)| u of the
        # result), the product, the sum S, the division
        rho = self.rho + (8 + float(np.max(np.abs(theta * (j - c))))) * _U + 2 * self.p.size * _U
        err = dist + math.expm1(m * math.log1p(2 * rho)) * (1 + dist)
        val = (off + self.lo * m, V, err, math.log(S), c)
        self._powers = {theta: val}          # keep one: searches move theta slowly
        return theta, val

    def delta_and_slope(self, eps: float) -> tuple[float, float]:
        """(certified lower delta at eps, an estimate of d delta / d eps) of the statistic, plus
        :meth:`outside`."""
        if not (eps >= 0):
            return 0.0, 0.0
        d, slope = self._inside(eps)
        out = self.outside(eps)
        if out > 0.0:
            u = math.exp(eps)
            slope -= u * float(np.sum(np.where(self.z1 > u * self.z1p, self.z1p, 0.0)))
        return min(1.0, d + out), slope

    def _inside(self, eps: float) -> tuple[float, float]:
        """The statistic's part: the views whose reports x0 can all produce."""
        m = self.n - 1
        gap = self._mean(self.A) - self._mean(self.B)
        if not (gap > 0) or not (eps >= 0):
            return 0.0, 0.0
        theta, (offV, V, errV, logS, c) = self._power(max(eps, 1e-12) / gap)
        j = np.arange(self.A.size) + self.lo
        cA = float(j[-1]) if theta > 0 else float(j[0])
        with np.errstate(under="ignore"):
            w = np.exp(theta * (j - cA))
        At, Bt = self.A * w, self.B * w
        u = math.exp(eps)
        PA, eA = linear_convolve(At, V)
        PB, eB = linear_convolve(Bt, V)
        sA, sB = float(np.sum(At)), float(np.sum(Bt))
        rho = self.rho + (4 + float(np.max(np.abs(theta * (j - cA))))) * _U   # the weights' exp
        errA = eA + sA * errV + rho * sA * (1 + errV)
        errB = eB + sB * errV + rho * sB * (1 + errV)
        F = PA - u * PB
        t = np.arange(F.size) + offV + self.lo       # lattice value of F[i]
        pos = F > 0
        if not pos.any():
            return 0.0, 0.0
        ref = int(np.argmax(np.where(pos, F, -np.inf)))
        # weights e^{-theta (t - t_ref)} on the indices where they stay finite
        first = max(0, ref - int(600.0 / theta) if theta > 0 else 0)
        sl = slice(first, F.size)
        with np.errstate(under="ignore", over="ignore"):
            wt = np.exp(-theta * (t[sl] - t[ref]))
        terms = np.where(pos[sl], F[sl], 0.0) * wt
        suffix = np.cumsum(terms[::-1])[::-1] * (1 - F.size * _U)   # sum over t >= t0, each t0
        value = suffix - (errA + u * errB) * (1 + 4 * _U) * wt      # certified, per choice of t0
        i0 = int(np.argmax(value))
        best = float(value[i0])
        if not (best > 0):
            return 0.0, 0.0
        # back to delta: S^m e^{-theta (t_ref - m c - cA)}, a lower value of it
        log_scale = m * logS - theta * (float(t[ref]) - m * c - cA)
        shift = abs(theta * (float(t[ref]) - m * c - cA))
        scale = math.exp(log_scale) * (1 - 4 * _U * (abs(log_scale) + m * abs(logS) + shift + 4))
        d = min(1.0, best * (1 - 4 * F.size * _U) * scale)
        kept = slice(first + i0, F.size)
        slope = -u * float(np.sum(np.where(pos[kept], PB[kept], 0.0) * wt[i0:])) * scale
        return max(d, 0.0), slope

    def delta(self, eps: float) -> float:
        return self.delta_and_slope(eps)[0]


def linear_statistic_law(R, x1: int, x1p: int, x0: int, n: int,
                         bins_per_sigma: int = STAT_BINS_PER_SIGMA,
                         u0: float = 1.0) -> Optional[LinearStatisticLaw]:
    """The statistic's lattice laws for the triple (weight ``u0`` on R(.|x1'): module docstring,
    *Tuned*), or None where it carries no information, or takes at most three values (``u0`` =
    1; then the two/three-category counts of :mod:`accountant.bounds.finite` see as much) or
    at most two (``u0`` > 1).  Outputs x0 cannot produce are kept apart (*Outside x0's
    support*)."""
    if not (math.isfinite(u0) and u0 >= 1.0):
        raise ValueError(f"u0 must be a finite number >= 1, got {u0!r}")
    M = R.matrix
    r1, r1p, r0 = (M[i] / float(np.sum(M[i])) for i in (x1, x1p, x0))
    S = r0 > 0
    Z = ~S & ((r1 > 0) | (r1p > 0))
    g = (r1[S] - u0 * r1p[S]) / r0[S]
    if u0 == 1.0:
        chi2 = float(np.sum(r0[S] * g * g))
    else:  # the centred second moment (g has mean 1 - u0 under x0, 0 when u0 = 1)
        chi2 = float(np.sum(r0[S] * (g - float(np.sum(r0[S] * g))) ** 2))
    few = 3 if u0 == 1.0 else 2
    if not (chi2 > 0) or np.unique(np.round(g / math.sqrt(chi2), 9)).size <= few:
        return None          # no information, or few values: the category counts are sufficient
    sigma = math.sqrt(chi2)
    spread = float(g.max() - g.min())
    h = max(sigma / bins_per_sigma, 26 * math.sqrt(n) * sigma / (STAT_MAX_SIZE / 4),
            spread / (STAT_MAX_SIZE / 4))
    k = np.rint(g / h).astype(np.int64)
    lo = int(k.min())
    size = int(k.max()) - lo + 1
    p = np.bincount(k - lo, weights=r0[S], minlength=size)
    A = np.bincount(k - lo, weights=r1[S], minlength=size)
    B = np.bincount(k - lo, weights=r1p[S], minlength=size)
    rho = (M.shape[1] + 4) * _U
    names = tuple(str(x) for x in R.inputs) if getattr(R, "inputs", None) is not None else tuple(
        str(i) for i in range(M.shape[0]))
    return LinearStatisticLaw(x1, x1p, x0, int(n), h, lo, p, A, B, rho, names, float(u0),
                              r1[Z].copy(), r1p[Z].copy())


def statistic_triples(R, count: int = 2, distinct: bool = False) -> list:
    """The ``count`` triples (x1, x1', x0) with the largest chi-square
    ``sum_y (R(y|x1) - R(y|x1'))^2 / R(y|x0)`` (the statistic's signal-to-noise ratio), among the
    input pairs farthest apart in total variation and every x0 (``distinct``: every x0 other
    than x1 and x1', whose reports take more likelihood-ratio pairs)."""
    return ranked_triples(R, count)[1 if distinct else 0]


#: scores that agree to this many bits rank as equal (then by index): float noise, which differs
#: between CPUs, sits far below it
RANK_BITS = 30


def coarse(values):
    """``values`` rounded to :data:`RANK_BITS` significant bits (exact binary operations: the same
    on every CPU): a score that float noise cannot move."""
    m, e = np.frexp(np.asarray(values, dtype=float))
    return np.ldexp(np.round(m * 2.0 ** RANK_BITS), e - RANK_BITS)


def rank_desc(values) -> np.ndarray:
    """Indices of ``values`` (flattened), largest first; scores equal to :data:`RANK_BITS` bits in
    index order.  numpy's sorts order exact ties differently under different SIMD dispatch, and
    float noise reorders near-ties, so the triples a search tries, and the datasets it reports,
    would depend on the CPU."""
    return np.argsort(-coarse(np.ravel(values)), kind="stable")


def ranked_triples(R, count: int = 2) -> tuple[list, list]:
    """(:func:`statistic_triples` of ``count``, the same with ``distinct``), from one ranking."""
    M = R.matrix / R.matrix.sum(axis=1, keepdims=True)
    k = M.shape[0]
    if k <= 256:
        tv = np.abs(M[:, None, :] - M[None, :, :]).sum(axis=2)
        np.fill_diagonal(tv, -1.0)
        order = rank_desc(tv)[:16]
        pairs = [tuple(int(v) for v in np.unravel_index(o, tv.shape)) for o in order]
    else:
        spread = M.max(axis=1) - M.min(axis=1)
        first = int(np.argmax(spread))
        d = np.abs(M - M[first]).sum(axis=1)
        pairs = [(first, int(v)) for v in rank_desc(d)[:8] if v != first]
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = np.where(M > 0, 1.0 / M, np.inf)
    scored, apart = [], []
    for x1, x1p in pairs:
        d2 = (M[x1] - M[x1p]) ** 2
        with np.errstate(invalid="ignore"):
            chi = np.where(d2 > 0, inv * d2, 0.0).sum(axis=1)
        chi = np.where(np.isfinite(chi), chi, -1.0)
        for out, c in ((scored, chi), (apart, np.where(np.isin(np.arange(k), (x1, x1p)), -1.0, chi))):
            for x0 in rank_desc(c)[:count]:
                if c[x0] > 0:
                    out.append((float(c[x0]), x1, x1p, int(x0)))
    return _best(scored, count), _best(apart, count)


def _best(scored: list, count: int) -> list:
    scored.sort(key=lambda s: -float(coarse(s[0])))
    out = []
    for _, x1, x1p, x0 in scored:
        if (x1, x1p, x0) not in out:
            out.append((x1, x1p, x0))
        if len(out) == count:
            break
    return out


#: above this n the statistic's certified error (about n^1.5 u) leaves nothing: not searched
STAT_MAX_N = 10 ** 8


#: the tuned statistic is re-tuned at the eps it finds while that moves eps by more than this
TUNE_RTOL = 1e-3
#: re-tunings at most (each one search)
TUNE_STEPS = 2
#: the tuned statistic's lattice steps per standard deviation up to TUNED_FINE_N users (finer: it
#: aims at the exact value), STAT_BINS_PER_SIGMA above (the lattice, and its cost, 4x smaller)
TUNED_BINS_PER_SIGMA = 64
TUNED_FINE_N = 10 ** 5


def tuned_statistic_law(R, triple: tuple, n: int, eps: float) -> Optional[LinearStatisticLaw]:
    """The statistic of ``triple`` tuned at ``u0 = e^eps`` (module docstring, *Tuned*)."""
    bins = TUNED_BINS_PER_SIGMA if n <= TUNED_FINE_N else STAT_BINS_PER_SIGMA
    return linear_statistic_law(R, *triple, n, bins, u0=math.exp(eps))


def _search(law: LinearStatisticLaw, delta: float, top: float, rtol: float, guess: Optional[float]) -> float:
    from accountant.engines.search import largest_eps_above

    def evaluate(eps: float):
        v, slope = law.delta_and_slope(eps)
        return v, v * (1 + 1e-6) + 1e-300, slope

    g = guess if guess is not None and 0 < guess < top else None
    return largest_eps_above(evaluate, delta, top, rtol=rtol, guess=g)[0]


def statistic_lower_epsilon(R, n: int, delta: float, guess: Optional[float] = None,
                            rtol: float = 1e-5, describe=None) -> tuple[float, str]:
    """(certified lower eps_c, datasets) from the statistic over :func:`statistic_triples`;
    (0.0, reason) where n is over :data:`STAT_MAX_N` or no triple certifies anything.
    ``guess`` (a lower eps_c known already) starts the search and fixes the tilt.  The best
    triple's statistic is then tuned (module docstring, *Tuned*): ``u0 = e^eps`` at the best
    eps found, re-tuned at the eps it gives (at most :data:`TUNE_STEPS` times).  ``describe`` (a
    function of the winning triple, returning text or None) adds to the datasets' text."""
    if n > STAT_MAX_N:
        return 0.0, f"the linear statistic is not searched above n = {STAT_MAX_N:.0e}"
    top = R.eps0 if math.isfinite(R.eps0) else 60.0
    best, text = 0.0, "no triple of the linear statistic certifies delta above the target"
    best_triple = None
    triples, apart = ranked_triples(R)
    for x1, x1p, x0 in triples:
        law = linear_statistic_law(R, x1, x1p, x0, n)
        if law is None:
            continue
        lo = _search(law, delta, top, rtol, guess)
        if _beats(lo, best, rtol):  # the first of those equal at the search's resolution
            best, text, best_triple = lo, law.datasets, (x1, x1p, x0)
    winner = best_triple
    first = max(best, guess or 0.0)
    if not first > 0.0:
        return best, _described(text, winner, describe)
    tuned = [best_triple] if best_triple is not None else triples[:1]
    tuned += [t for t in apart[:1] if t not in tuned]
    found = []
    for triple in tuned:
        start = first
        for _ in range(TUNE_STEPS):
            law = tuned_statistic_law(R, triple, n, start)
            if law is None:
                break
            lo = _search(law, delta, top, rtol, start)
            if lo > best:
                found.append((lo, triple))
            if not lo > start * (1 + TUNE_RTOL):
                break
            start = lo
    # the best one is kept where the statistic tuned at its own eps (the one statistic_lower_delta
    # evaluates there) certifies it too, so that the two functions agree
    for lo, triple in sorted(found, key=lambda f: -floor_at_resolution(f[0], rtol)):  # stable: ties in order
        own = tuned_statistic_law(R, triple, n, lo)
        if own is not None and own.delta(lo) > delta:
            best, text, winner = lo, own.datasets, triple
            break
    return best, _described(text, winner, describe)


def _beats(a: float, b: float, rtol: float) -> bool:
    """``a`` above ``b`` at the searches' resolution (values within it are the same search's
    answer on another CPU, so the first found is kept)."""
    return floor_at_resolution(a, rtol) > floor_at_resolution(b, rtol)


def _described(text: str, triple, describe) -> str:
    extra = describe(triple) if describe is not None and triple is not None else None
    return f"{text}; {extra}" if extra else text


def statistic_lower_delta(R, n: int, eps: float) -> tuple[float, str]:
    """(certified lower delta at eps, datasets) from the statistic, untuned and tuned at
    ``u0 = e^eps``; 0.0 above :data:`STAT_MAX_N`."""
    if n > STAT_MAX_N:
        return 0.0, f"the linear statistic is not searched above n = {STAT_MAX_N:.0e}"
    best, text = 0.0, "no triple"
    triples, apart = ranked_triples(R)
    triples += [t for t in apart[:1] if t not in triples]
    for x1, x1p, x0 in triples:
        laws = [linear_statistic_law(R, x1, x1p, x0, n)]
        if eps > 0:
            laws.append(tuned_statistic_law(R, (x1, x1p, x0), n, eps))
        for law in laws:
            if law is not None:
                v = law.delta(eps)
                if v > best:
                    best, text = v, law.datasets
    return best, text
