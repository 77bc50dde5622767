r"""OUE's direct exact sum from per-m tail tables: every (m, j) of the windows, no bins.

Part of :mod:`accountant.engines.blanket` (the law and the closed form are in
:mod:`accountant.engines.blanket.oue`'s docstring): with m the users outside the blanket,
M = n - m, K1, K2 | M independent Bin(M, b) and j = K2,

    F = sum_{m, j} P[m] P[K2 = j | m] (E - 1) h(M, c),   c = u j + (u - 1) M / (E - 1),
    h(M, c) = E[(K1 - c)_+] = k q P[K1 = k] + (M b - c) P[K1 >= k],   k = floor(c) + 1

(:func:`accountant.engines.blanket.oue.excess_from_tail`, the one implementation of the
formula).  Along a row of fixed m the threshold c grows with j, so the k of the row's cells
lie in one range [k0, k0 + L); the pmf of K1 on that range comes from Loader's formula
(:func:`binom_logpmf`) every ``_BLOCK`` points and the exact ratio
log B_x - log B_{x-1} = log(M - x + 1) - log x + log(b / (1 - b)) in between, and
P[K1 >= x] is the regularised incomplete beta at the range's top, ``I_b(k0 + L, M - k0 - L
+ 1)`` (one call per row), plus the sum of the pmf from x up to that top.  The weights
P[K2 = j | m] come the same way along j.  One incomplete beta per row instead of one per
cell, one Loader evaluation per ``_BLOCK`` cells: the sum the direct exact path of
:mod:`accountant.engines.blanket.sums` computes cell by cell (the same closed form, the same
cells), several times cheaper.

*Float error.*  A log step carries at most 4 roundings of logs of integers below 2^53
(<= 1e-14 absolute), so ``_BLOCK`` = 64 steps leave <= 7e-13 relative on a pmf; the sums of
at most L <= 10^5 positive terms add <= 1.2e-11 relative, the anchor's incomplete beta
<= 1.5e-11 (against mpmath, see :mod:`accountant.engines.blanket.oue`): the closed form amplifies
these by at most 400 where the terms matter, 1.1e-8 at worst, inside
``FLOAT_REL_ERROR_OUE`` max(1, sqrt(n)/1e3) for the windows that take this path
(n <= 1e6: m-windows of at most ``TABLE_MAX_CELLS`` cells), and in practice far below
(the errors are not all of one sign; checked against the cell-by-cell path and against
mpmath in tests/accountant/engines/test_blanket_oue.py).  A pmf below the float range
(log < -745) is 0 here, as the cell-by-cell path drops such cells: the mass lost is below
1e-300 absolute.
"""
from __future__ import annotations
import math
import numpy as np
from scipy import special
from accountant.engines import parallel as _parallel
from accountant.engines.binomial import binom_logpmf, binom_logpmf_range

# a Loader anchor every _BLOCK points of a row (the log steps in between)
_BLOCK = 64
# rows of one chunk: at most this many cells (j-window or k-range) per chunk
_CHUNK_CELLS = 1 << 17


def _row_logpmf(x0: np.ndarray, L: int, M: np.ndarray, p: float) -> np.ndarray:
    """log P[Bin(M_r, p) = x0_r + i] for every row r and i = 0..L-1 (-inf outside [0, M_r])."""
    x = x0[:, None] + np.arange(L, dtype=np.float64)[None, :]
    Mb = np.broadcast_to(M[:, None], x.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.log(Mb - x + 1.0) - np.log(x) + math.log(p / (1.0 - p))
    cols = np.arange(0, L, _BLOCK)
    step[:, cols] = 0.0
    anchors = binom_logpmf(x[:, cols], Mb[:, cols], p)
    nb = cols.size
    pad = nb * _BLOCK - L
    st = np.concatenate((step, np.zeros((x.shape[0], pad))), axis=1).reshape(x.shape[0], nb, _BLOCK)
    out = (np.cumsum(st, axis=2) + anchors[:, :, None]).reshape(x.shape[0], nb * _BLOCK)[:, :L]
    out[(x < 0.0) | (x > Mb)] = -np.inf
    return out


def direct_table_sum(E: float, n: int, eps: float, mw, jw, excess_from_tail) -> tuple[float, float]:
    """(F, E[M + (E-1) K2; S > 0] weighted sum) over every (m, j) of the direct windows
    ``mw``, ``jw`` of OUE with e^eps0 = ``E`` at ``eps`` (the law's m-probability is
    1 - B = (E - 1)/(2E), K1, K2 | m ~ Bin(n - m, 1/(E + 1)))."""
    d = E - 1.0
    b = 1.0 / (E + 1.0)
    u = math.exp(eps)
    m_lo, m_hi = mw
    j_lo, j_hi = jw
    logPm = binom_logpmf_range(m_lo, m_hi, n, d / (2.0 * E))
    J = np.arange(j_lo, j_hi + 1, dtype=np.float64)
    nj = J.size
    # a row's k-range never passes M + 1 <= n + 1 (from there P[K1 >= k] = 0 and h = 0): at a
    # large eps (u = e^eps up to 1e13) the unclipped span u (nj - 1) would not fit in memory
    k_span = int(min(math.floor(u * (nj - 1)) + 2, n + 2))
    rows = max(1, _CHUNK_CELLS // max(nj, k_span))

    def chunk(r0: int) -> tuple[float, float]:
        i = np.arange(r0, min(r0 + rows, m_hi - m_lo + 1))
        m = (m_lo + i).astype(np.float64)
        M = n - m
        # weights P[m] P[K2 = j | m] (j > M: 0)
        lw = logPm[i][:, None] + _row_logpmf(np.full(i.size, float(j_lo)), nj, M, b)
        w = np.exp(lw)
        c = u * J[None, :] + ((u - 1.0) / d) * M[:, None]
        k = np.floor(c) + 1.0
        # cells with k > M have P[K1 = k] = P[K1 >= k] = 0 (h = 0): they read index M + 1,
        # where the pmf is 0 and the tail sums only zeros
        kc = np.minimum(k, M[:, None] + 1.0)
        k0 = kc[:, 0]
        L = int(np.max(kc[:, -1] - k0)) + 1
        lp = _row_logpmf(k0, L, M, b)
        pmf = np.exp(lp)
        top = k0 + L  # P[K1 >= top] by the incomplete beta; below it, the sum of the pmf
        live = top <= M
        T_top = np.zeros(i.size)
        T_top[live] = special.betainc(top[live], M[live] - top[live] + 1.0, b)
        T = T_top[:, None] + np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]
        idx = (kc - k0[:, None]).astype(np.int64)
        pk = np.take_along_axis(pmf, idx, axis=1)
        Tk = np.take_along_axis(T, idx, axis=1)
        Mb = np.broadcast_to(M[:, None], c.shape)
        h = excess_from_tail(Mb, k, c, b, pk, Tk)
        return float(np.sum(w * h)) * d, float(np.sum(w * (Mb + d * J[None, :]) * Tk))

    F = Qs = 0.0
    for f, q in _parallel.map_ordered(chunk, range(0, m_hi - m_lo + 1, rows)):
        F += f
        Qs += q
    return F, Qs
