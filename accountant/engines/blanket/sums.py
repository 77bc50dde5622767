"""The exact, binned and high-precision sums of E[(v . N)_+] over a window.

Part of :mod:`accountant.engines.blanket`; the package docstring has the mathematics.
"""
from __future__ import annotations
import math
import threading
import numpy as np
from scipy import special
from accountant.engines import parallel as _parallel
from accountant.engines.binomial import binom_logpmf, binom_logpmf_range
from accountant.engines.pair.divergence import half_tail_ratio_runs
from accountant.engines.blanket.law import CountLaw
# Cost model of the binned path.  One chunk holds at most MAX_CHUNK_CELLS (bin, m) cells
# (some 40 float arrays of that size live at once); the bins are refined only while
# bins x m-window stays within MAX_BINNED_CELLS (time and memory of both caps:
# docs/BENCHMARKS.md).
# A bracket still wider than BIN_GAP then is kept as it is: its upper end is proved, only
# looser (the search's answer is a slightly larger, still certified, eps).
MAX_CHUNK_CELLS = 1 << 19
# :func:`binned_sums` evaluates the rows of several eps as one path up to this many cells (the
# rows of one chunk and eps are some 50 array passes: on short chunks their overhead is shared,
# on long ones larger arrays only leave the cache)
TOGETHER_CELLS = 1 << 16
_CHUNK = 1 << 15
# m-windows from this size on are split into chunks run on threads (accountant.engines.parallel)
_MIN_SPLIT = 4096
_BLOCK = 256


def _upper_tail(m: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(E[(N1 - c)_+], P[N1 > c]) for N1 ~ Bin(m, 1/2) and thresholds m/2 - 1/2 <= c."""
    k = np.floor(c).astype(np.int64) + 1
    h = np.zeros(m.shape)
    T = np.zeros(m.shape)
    live = k <= m
    if np.all(live):
        R, logb = half_tail_ratio_runs(m, k)
        bk = np.exp(logb)
        return np.maximum(bk * (0.5 * k + (0.5 * m - c) * R), 0.0), bk * R
    if np.any(live):
        ml, kl, cl = m[live], k[live], c[live]
        R, logb = half_tail_ratio_runs(ml, kl)
        bk = np.exp(logb)
        h[live] = np.maximum(bk * (0.5 * kl + (0.5 * ml - cl) * R), 0.0)
        T[live] = bk * R
    return h, T


def _excess(m: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """E[(N1 - c)_+] and P[N1 > c] (P[N1 >= c] on the reflected side), N1 ~ Bin(m, 1/2).

    ``m`` increasing integers (one path), ``c`` float thresholds of the same shape.
    """
    mf = m.astype(np.float64)
    # upper-tail form for c >= m/2 - 1/2 (valid for every c >= 0; the margin keeps
    # thresholds that sit at m/2 up to rounding on one side, so runs stay long)
    up = 2.0 * c >= mf - 1.0
    full = c < 0.0
    if not np.any(full) and np.all(up):  # the common case: one branch, no indexing
        return _upper_tail(m, c)
    up &= ~full
    h = np.zeros(m.shape)
    T = np.zeros(m.shape)
    h[full] = 0.5 * mf[full] - c[full]
    T[full] = 1.0
    if np.any(up):
        h[up], T[up] = _upper_tail(m[up], c[up])
    low = ~full & (2.0 * c < mf - 1.0)
    if np.any(low):
        ml, cl = m[low], mf[low] - c[low]
        hr, Tr = _upper_tail(ml, cl)
        h[low] = (cl - 0.5 * ml) + hr
        T[low] = 1.0 - Tr
    return h, T


class Terms:
    """g_m(j), its slope in j, and the Newton weight for one law at one eps."""

    def __init__(self, law: CountLaw, eps: float) -> None:
        v1, v2, v3 = law.coefficients(eps)
        b1, b2, b3 = law.b
        if v2 > v1:  # N1 and N2 are exchangeable: keep d = v1 - v2 >= 0
            v1, v2, b1, b2 = v2, v1, b2, b1
        self.d = v1 - v2
        self.v2, self.v3 = v2, v3
        self.b1, self.b2, self.b3 = b1, b2, b3
        self.u = math.exp(eps)

    def row(self, m: np.ndarray, j) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(g, dg/dj, E[b . N; X > 0]) at the points (m, j) (paths of increasing m, j scalar or array)."""
        mf = m.astype(np.float64)
        jf = np.asarray(j, dtype=np.float64)
        lin = self.v2 * mf + self.v3 * jf
        if self.d == 0.0:
            pos = lin > 0
            g = np.where(pos, lin, 0.0)
            T = pos.astype(np.float64)
            return g, self.v3 * T, (self.b2 * mf + self.b3 * jf) * T
        c = np.broadcast_to(-lin / self.d, m.shape)
        h, T = _excess(m, np.ascontiguousarray(c))
        g = self.d * h
        q = (self.b1 - self.b2) * (h + c * T) + (self.b2 * mf + self.b3 * jf) * T
        return g, self.v3 * T, q


# ----------------------------------------------------------------------------
# evaluation paths
# ----------------------------------------------------------------------------

def _m_weights(law: CountLaw, n: int, m_lo: int, m_hi: int) -> np.ndarray:
    p = 2.0 * law.p12
    if p >= 1.0:
        return np.zeros(1)
    return binom_logpmf_range(m_lo, m_hi, n, p)


def exact_sum(law: CountLaw, n: int, terms: Terms, mw, jw) -> tuple[float, float]:
    """Sum over every (m, j) of the windows: (F, E[b . N; X > 0])."""
    m_lo, m_hi = mw
    m = np.arange(m_lo, m_hi + 1, dtype=np.int64)
    logPm = _m_weights(law, n, m_lo, m_hi)
    pp = law.p_prime
    F = 0.0
    Qs = 0.0
    if pp <= 0.0 or pp >= 1.0:  # N3 is 0 or n - m: one row, split along m across threads
        step = m.size if m.size < _MIN_SPLIT else -(-m.size // _parallel.SPLIT_PARTS)

        def part(i0: int) -> tuple[float, float]:
            mm = m[i0:i0 + step]
            j = np.zeros(mm.shape) if pp <= 0.0 else (n - mm).astype(np.float64)
            g, _, q = terms.row(mm, j)
            w = np.exp(logPm[i0:i0 + step])
            return float(np.sum(w * g)), float(np.sum(w * q))

        F = Qs = 0.0
        for f, q in _parallel.map_ordered(part, range(0, m.size, step)):
            F += f
            Qs += q
        return F, Qs
    Np = (n - m).astype(np.float64)
    # rows of fixed j, concatenated into batches of ~_CHUNK * 8 points so that the
    # tail-ratio anchors of many rows are evaluated together; batches run on threads
    batches, ms, js, ws, size = [], [], [], [], 0
    for j in range(jw[0], jw[1] + 1):
        lw = logPm + binom_logpmf(float(j), Np, pp)
        keep = lw > -745.0
        if not np.any(keep):
            continue
        idx = np.flatnonzero(keep)
        sl = slice(idx[0], idx[-1] + 1)
        ms.append(m[sl])
        js.append(np.full(idx[-1] + 1 - idx[0], float(j)))
        ws.append(np.exp(lw[sl]))
        size += ms[-1].size
        if size >= 8 * _CHUNK:
            batches.append((ms, js, ws))
            ms, js, ws, size = [], [], [], 0
    if ms:
        batches.append((ms, js, ws))

    def batch(b) -> tuple[float, float]:
        g, _, q = terms.row(np.concatenate(b[0]), np.concatenate(b[1]))
        w = np.concatenate(b[2])
        return float(np.sum(w * g)), float(np.sum(w * q))

    for f, q in _parallel.map_ordered(batch, batches):
        F += f
        Qs += q
    return F, Qs


def _cond_cdf(js: np.ndarray, Np: np.ndarray, pp: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """F = P[Bin(N', p') <= j], S = 1 - F and pmf at (grid j, N') for N' decreasing by 1.

    Exact anchors (regularised incomplete beta, Loader's pmf) every ``_BLOCK`` values of
    N'; in between pmf_{N'-1}(j) = pmf_{N'}(j) (N' - j)/(N' (1 - p')) and
    F_{N'-1}(j) = F_{N'}(j) + p' pmf_{N'-1}(j).  Arrays of shape (len(js), len(Np)).
    """
    G1, V = js.size, Np.size
    L = min(_BLOCK, V)
    nb = -(-V // L)
    pad = nb * L - V
    anchors = np.arange(nb) * L
    J = js.astype(np.float64)[:, None]
    Na = Np[anchors][None, :]
    inside = J < Na
    Ja = np.broadcast_to(J, (G1, nb))
    NaB = np.broadcast_to(Na, (G1, nb))
    F0 = np.where(inside, special.betainc(np.maximum(NaB - Ja, 1e-300), Ja + 1.0, 1.0 - pp), 1.0)
    S0 = np.where(inside, special.betainc(Ja + 1.0, np.maximum(NaB - Ja, 1e-300), pp), 0.0)
    F0 = np.where(Ja < 0, 0.0, F0)
    S0 = np.where(Ja < 0, 1.0, S0)
    lp0 = binom_logpmf(Ja, NaB, pp)
    # log step from N' (position i) to N' - 1 (position i + 1)
    Npad = np.concatenate((Np, Np[-1] - 1.0 - np.arange(pad)))
    Nb = Npad.reshape(nb, L)
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.log(np.maximum(Nb[None, :, :-1] - J[:, :, None], 0.0)) - np.log(Nb[None, :, :-1] * (1.0 - pp))
    # a non-finite step (N' <= 0: the padding past the last N', or N' = 0 at the window's
    # edge) starts a zero pmf; +inf (log 0 below a finite log above) would meet -inf in the
    # cumulative sum and give NaN
    step = np.where(np.isfinite(step), step, -np.inf)
    lp = np.empty((G1, nb, L))
    lp[:, :, 0] = lp0
    if L > 1:
        lp[:, :, 1:] = lp0[:, :, None] + np.cumsum(step, axis=2)
    pmf = np.exp(lp)
    inc = np.zeros((G1, nb, L))
    if L > 1:
        inc[:, :, 1:] = pp * np.cumsum(pmf[:, :, 1:], axis=2)
    F = np.minimum(F0[:, :, None] + inc, 1.0)
    S = np.maximum(S0[:, :, None] - inc, 0.0)
    sh = (G1, nb * L)
    return F.reshape(sh)[:, :V], S.reshape(sh)[:, :V], pmf.reshape(sh)[:, :V]


# (n, p', m-chunk, bin edges) -> (P, D, rest) of :func:`_bin_masses`: they do not depend on eps,
# and a round's profile asks for the same windows and bins at most of its ~40 sample eps
# (4-RR at n = 2.2e6: 41 of 41); at most BIN_MASS_CACHE_CELLS (bin, m) cells are kept (24
# bytes each: 25 MB), a full cache starts again empty
BIN_MASS_CACHE_CELLS = 1 << 20
_bin_mass_cache: dict = {}
_bin_mass_cells = [0]
_bin_mass_lock = threading.Lock()


def _bin_masses(n: int, pp: float, m: np.ndarray, js: np.ndarray, width: np.ndarray):
    """(P, D, rest) per (j-bin, m) of the chunk ``m``: P = P[bin | m], D = E[j - js[i]; bin | m]
    clipped to [0, width P], rest = width P - D (N3 | m ~ Bin(n - m, p')).  Remembered per
    (n, p', chunk, edges): the same arrays, bit for bit, as computing them again."""
    key = (n, pp, int(m[0]), int(m.size), js.tobytes())
    hit = _bin_mass_cache.get(key)
    if hit is not None:
        return hit
    Np = (n - m).astype(np.float64)
    F, S, pmf = _cond_cdf(js, Np, pp)
    P = np.where(F[1:] <= 0.5, F[1:] - F[:-1], S[:-1] - S[1:])
    P = np.maximum(P, 0.0)
    Jg = js[:-1].astype(np.float64)[:, None]
    Jh = js[1:].astype(np.float64)[:, None]
    D = (Np * pp - Jg) * P - pp * ((Np - Jh) * pmf[1:] - (Np - Jg) * pmf[:-1])
    D = np.clip(D, 0.0, width * P)
    rest = width * P - D
    out = (P, D, rest)
    for a in out:  # shared by later calls: nobody writes into them
        a.setflags(write=False)
    if P.size <= BIN_MASS_CACHE_CELLS:
        with _bin_mass_lock:  # the chunks of one sum run on threads
            if _bin_mass_cells[0] + P.size > BIN_MASS_CACHE_CELLS:
                _bin_mass_cache.clear()
                _bin_mass_cells[0] = 0
            _bin_mass_cache[key] = out
            _bin_mass_cells[0] += P.size
    return out


def _chunk_step(size: int, edges: int) -> int:
    """Values of m per chunk of the binned path: at most _CHUNK; a window of _MIN_SPLIT values or
    more is cut into at least SPLIT_PARTS chunks, whatever the cores (the sums then differ from
    the serial ones by summation order only, far inside FLOAT_REL_ERROR, the same on every
    machine); memory: a chunk holds about 12 arrays of (bins x m values), each kept below
    MAX_CHUNK_CELLS."""
    step = _CHUNK if size < _MIN_SPLIT else min(_CHUNK, -(-size // _parallel.SPLIT_PARTS))
    return max(1, min(step, MAX_CHUNK_CELLS // edges))


def _bin_edges(jw, G: int) -> tuple[np.ndarray, np.ndarray]:
    """(the G + 1 bin edges js over the j-window, fewer where it is short; their widths)."""
    j_lo, j_hi = jw
    span = j_hi - (j_lo - 1)
    js = np.unique(np.round(np.linspace(j_lo - 1, j_hi, min(G, span) + 1)).astype(np.int64))
    return js, np.diff(js).astype(np.float64)[:, None]


def _chunk_sums(terms, m: np.ndarray, js: np.ndarray, width: np.ndarray, wm: np.ndarray, rows,
                masses) -> tuple[float, float, float]:
    """One m-chunk's (lower, upper, Newton weight) sums from the rows (g, dg/dj, q) of ``terms``
    at the bin edges (flat, edge-major) and the chunk's bin masses (P, D, rest)."""
    sh = (js.size, m.size)
    g, s, q = (a.reshape(sh) for a in rows)
    P, D, rest = masses
    upper = (g[:-1] * rest + g[1:] * D) / width
    if hasattr(terms, "bin_lower"):  # terms whose edge rows are not values (oue_nested.NestedUpper)
        lower = terms.bin_lower(m, js, P, D)
    else:
        lower = np.maximum(np.maximum(P * g[:-1] + s[:-1] * D, P * g[1:] - s[1:] * rest), 0.0)
    qb = 0.5 * (q[:-1] + q[1:]) * P
    return (float(np.sum(wm * np.sum(lower, axis=0))), float(np.sum(wm * np.sum(upper, axis=0))),
            float(np.sum(wm * np.sum(qb, axis=0))))


def binned_sum(law: CountLaw, n: int, terms: Terms, mw, jw, G: int) -> tuple[float, float, float]:
    """(lower F, upper F, E[b . N; X > 0] estimate) with G j-bins (0 < p' < 1).

    The lower end is the tangents' at the bin edges, or, for terms with a ``bin_lower(m, js,
    P, D)`` method (rows that are upper bounds, not values), what that method returns per
    (bin, m) from P = P[bin | m] and D = E[j - js[i]; bin | m]."""
    m_lo, m_hi = mw
    js, width = _bin_edges(jw, G)
    pp = law.p_prime
    logPm_all = _m_weights(law, n, m_lo, m_hi)

    def chunk(c0: int) -> tuple[float, float, float]:
        c1 = min(c0 + step - 1, m_hi)
        m = np.arange(c0, c1 + 1, dtype=np.int64)
        wm = np.exp(logPm_all[c0 - m_lo:c1 - m_lo + 1])
        if not np.any(wm > 0):
            return 0.0, 0.0, 0.0
        g, s, q = terms.row(np.tile(m, js.size), np.repeat(js.astype(np.float64), m.size))
        return _chunk_sums(terms, m, js, width, wm, (g, s, q), _bin_masses(n, pp, m, js, width))

    step = _chunk_step(m_hi - m_lo + 1, js.size)
    lo_sum = up_sum = q_sum = 0.0
    for lo, up, q in _parallel.map_ordered(chunk, range(m_lo, m_hi + 1, step)):
        lo_sum += lo
        up_sum += up
        q_sum += q
    return lo_sum, up_sum, q_sum


def _rows_together(terms_seq, m: np.ndarray, js: np.ndarray) -> list:
    """``[t.row(m tiled over the edges js, js repeated) for t in terms_seq]``, the rows of all
    the eps of ``terms_seq`` evaluated as one path where that gives the same numbers.

    Why the numbers are the same, bit for bit: one eps's rows are a path of (edges) runs of
    increasing m, and the eps follow each other, so at every boundary between two eps m falls
    back to the chunk's first value and the path breaks there (a run needs m to step by 1).
    Every operation of :meth:`Terms.row` is then elementwise in the point's own coefficients
    (here arrays repeating each eps's d, v2, v3, b), except the tail ratios
    (:func:`accountant.engines.pair.divergence.half_tail_ratio_runs`), which are computed per
    run, from anchors at the run's own positions, by the same operations whatever runs share
    the call (its docstring; the continued fraction of its anchors is elementwise,
    :func:`accountant.engines.binomial.half_tail_ratio`).  This holds when no point takes
    another branch of :func:`_excess` or :func:`_upper_tail` than the common one (the masked
    branches could join the end of one eps's path to the start of the next into a run): where
    some point would, and where some d is 0 or the terms are not plain :class:`Terms`, each eps
    is evaluated alone (``t.row``)."""
    M, J = m.size, js.size
    one = [t.row(np.tile(m, J), np.repeat(js.astype(np.float64), M)) for t in terms_seq] if (
        len(terms_seq) < 2 or any(type(t) is not Terms or t.d == 0.0 for t in terms_seq)) else None
    if one is not None:
        return one
    E, per = len(terms_seq), J * M
    mt = np.tile(m, J * E)
    jf = np.tile(np.repeat(js.astype(np.float64), M), E)
    mf = mt.astype(np.float64)
    coef = lambda name: np.repeat(np.array([getattr(t, name) for t in terms_seq]), per)  # noqa: E731
    d, v2, v3 = coef("d"), coef("v2"), coef("v3")
    lin = v2 * mf + v3 * jf
    c = -lin / d
    if np.any(c < 0.0) or not np.all(2.0 * c >= mf - 1.0) or not np.all(np.floor(c) + 1 <= mf):
        return [t.row(np.tile(m, J), np.repeat(js.astype(np.float64), M)) for t in terms_seq]
    h, T = _upper_tail(mt, c)
    g = d * h
    b1, b2, b3 = coef("b1"), coef("b2"), coef("b3")
    q = (b1 - b2) * (h + c * T) + (b2 * mf + b3 * jf) * T
    s = v3 * T
    return [(g[i * per:(i + 1) * per], s[i * per:(i + 1) * per], q[i * per:(i + 1) * per]) for i in range(E)]


def binned_sums(law: CountLaw, n: int, terms_seq, mw, jw, G: int) -> list[tuple[float, float, float]]:
    """``[binned_sum(law, n, t, mw, jw, G) for t in terms_seq]`` (the terms of several eps on
    the same windows and bins), in one pass over the m-chunks: each chunk's m weights and bin
    masses (which do not depend on eps) are formed once, the rows of up to
    ``MAX_CHUNK_CELLS`` cells of eps are evaluated as one path (:func:`_rows_together`), and
    each eps's sums are those of :func:`binned_sum`, bit for bit: the same chunks
    (:func:`_chunk_step`), the same per-chunk operations (:func:`_chunk_sums`), added in the
    same order."""
    terms_seq = list(terms_seq)
    m_lo, m_hi = mw
    js, width = _bin_edges(jw, G)
    pp = law.p_prime
    logPm_all = _m_weights(law, n, m_lo, m_hi)
    step = _chunk_step(m_hi - m_lo + 1, js.size)
    together = max(1, TOGETHER_CELLS // (js.size * step))

    def chunk(c0: int) -> list[tuple[float, float, float]]:
        c1 = min(c0 + step - 1, m_hi)
        m = np.arange(c0, c1 + 1, dtype=np.int64)
        wm = np.exp(logPm_all[c0 - m_lo:c1 - m_lo + 1])
        if not np.any(wm > 0):
            return [(0.0, 0.0, 0.0)] * len(terms_seq)
        masses = _bin_masses(n, pp, m, js, width)
        out = []
        for i in range(0, len(terms_seq), together):
            part = terms_seq[i:i + together]
            for t, rows in zip(part, _rows_together(part, m, js)):
                out.append(_chunk_sums(t, m, js, width, wm, rows, masses))
        return out

    sums = [[0.0, 0.0, 0.0] for _ in terms_seq]
    for per_chunk in _parallel.map_ordered(chunk, range(m_lo, m_hi + 1, step)):
        for acc, (lo, up, q) in zip(sums, per_chunk):
            acc[0] += lo
            acc[1] += up
            acc[2] += q
    return [tuple(a) for a in sums]


def mp_exact_sum(law: CountLaw, n: int, eps: float, mw, jw, digits: int) -> tuple[float, float]:
    """The exact path's sum at ``digits`` digits with mpmath (closed form per (m, j))."""
    import mpmath

    with mpmath.workdps(digits + 20):
        mp = mpmath.mp
        u = mp.e ** mp.mpf(eps)
        v = [mp.mpf(law.a[c]) - u * mp.mpf(law.b[c]) for c in range(3)]
        p12, p3 = mp.mpf(law.p12), mp.mpf(law.p3)
        pm = 2 * p12
        rest = 1 - pm
        pp = p3 / rest if rest > 0 else mp.mpf(0)
        if pp > 1:
            pp = mp.mpf(1)
        v1, v2, v3 = v
        if v2 > v1:
            v1, v2 = v2, v1
        d = v1 - v2
        total = mp.mpf(0)

        def binpmf(k, N, p):
            if k < 0 or k > N:
                return mp.mpf(0)
            return mp.binomial(N, k) * p ** k * (1 - p) ** (N - k)

        tiny = mp.mpf(10) ** (-(digits + 15))

        def tail(k, m, bk):
            # P[Bin(m, 1/2) >= k] by direct summation away from the centre
            if 2 * k >= m:
                tot, term, x = mp.mpf(0), bk, k
                while x <= m and term > tiny * tot:
                    tot += term
                    term = term * (m - x) / (x + 1)
                    x += 1
                return tot
            tot, term, x = mp.mpf(0), bk * k / (m - k + 1), k - 1
            while x >= 0 and term > tiny * tot:
                tot += term
                term = term * x / (m - x + 1)
                x -= 1
            return 1 - tot

        def excess(m, c):
            # E[(d N1 + ...)_+] = sum over x of (d (x - c))_+ b(x; m) via the closed form
            if d == 0:
                return max(-c, 0)  # c carries -(v2 m + v3 j) here
            k = int(mp.floor(c)) + 1
            if k <= 0:
                return d * (mp.mpf(m) / 2 - c)
            if k > m:
                return mp.mpf(0)
            b = mp.binomial(m, k) / mp.mpf(2) ** m
            T = tail(k, m, b)
            return d * (k * b / 2 + (mp.mpf(m) / 2 - c) * T)

        for m in range(mw[0], mw[1] + 1):
            Pm = binpmf(m, n, pm) if pm < 1 else (mp.mpf(1) if m == n else mp.mpf(0))
            if Pm == 0:
                continue
            if pp == 0 or pp == 1:
                pairs = [(0 if pp == 0 else n - m, mp.mpf(1))]
            else:
                pairs = [(j, binpmf(j, n - m, pp)) for j in range(jw[0], min(jw[1], n - m) + 1)]
            for j, Pj in pairs:
                lin = v2 * m + v3 * j
                c = -lin / d if d != 0 else -lin
                total += Pm * Pj * excess(m, c)
        return float(total), float(total)
