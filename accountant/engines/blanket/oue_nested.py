r"""The upper end of OUE's (and the corner law's) nested path, and its lower end from the same rows.

Part of :mod:`accountant.engines.blanket`; the nested grouping (m = #(1,0) + #(0,1), t =
#(0,0) + #(1,1), l = #(1,1) | t ~ Bin(t, pi), y = t + (E-1) l, g_m convex in y, h(m, t) =
E[g_m(t + (E-1) l)] convex in t) and its proofs are in :mod:`accountant.engines.blanket.oue`'s
docstring; :class:`NestedUpper` is the ``terms`` object :func:`accountant.engines.blanket.sums.binned_sum`
sums over the t-bins.
"""
from __future__ import annotations
import math
import numpy as np
from scipy import special
from accountant.engines.blanket.law import CountLaw, OueBlanket
from accountant.engines.blanket.sums import Terms
from accountant.engines.binomial import bd0


def as_grid(m: np.ndarray, j: np.ndarray):
    """(mu, tu) when m = np.tile(mu, tu.size) and j = np.repeat(tu, mu.size) with mu and tu
    increasing (the points :func:`sums.binned_sum` asks for), else None."""
    if m.ndim != 1 or m.size == 0:
        return None
    other = np.flatnonzero(j != j[0])
    k = int(other[0]) if other.size else m.size
    if m.size % k:
        return None
    M, J = m.reshape(-1, k), j.reshape(-1, k)
    mu, tu = M[0], J[:, 0]
    if (np.all(M == mu[None, :]) and np.all(J == tu[:, None]) and np.all(np.diff(mu) > 0)
            and np.all(np.diff(tu) > 0)):
        return mu, tu
    return None


def _log_tail_bounds(x: np.ndarray, N: np.ndarray, p: float, upper: bool) -> np.ndarray:
    """:func:`accountant.engines.binomial.binom_log_tail_bound` elementwise over (x, N) arrays
    (the same float operations: -(bd0(x, N p) + bd0(N - x, N (1 - p))) beyond the mean, 0 on
    its near side, -inf beyond the support)."""
    mean = N * p
    beyond = x > mean if upper else x < mean
    out = np.zeros(x.shape)
    if np.any(beyond):
        Nb = N[beyond]
        xb = np.clip(x[beyond], 0.0, Nb)
        out[beyond] = -(bd0(xb, mean[beyond]) + bd0(Nb - xb, Nb * (1.0 - p)))
    return np.where(x > N, -np.inf, out) if upper else np.where(x < 0, -np.inf, out)


def _first_true(pred, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise smallest integer x in (a, b] with pred(x), pred monotone (False ... True)
    and true at b: bisection on all elements at once."""
    a, b = a.copy(), b.copy()
    while True:
        open_ = b - a > 1.0
        if not np.any(open_):
            return b
        mid = np.where(open_, np.floor(0.5 * (a + b)), b)
        ok = pred(mid)
        b = np.where(open_ & ok, mid, b)
        a = np.where(open_ & ~ok, mid, a)


def l_windows(ts: np.ndarray, p: float, log_mass: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`accountant.engines.blanket.window._window` (lo, hi, Chernoff bound on the mass
    outside) for Bin(t, p) at every t >= 1 of ``ts`` at once (0 < p < 1): the same windows
    (each end is the unique first point where a monotone Chernoff bound crosses ``log_mass``,
    rounded down to a multiple of 1/4 as there) and the same bounds, one vectorised bisection
    instead of a search per t."""
    lm = math.floor(4.0 * log_mass) / 4.0
    N = np.asarray(ts, dtype=np.float64)
    mean = N * p
    up = lambda x: _log_tail_bounds(x, N, p, True)  # noqa: E731
    dn = lambda x: _log_tail_bounds(x, N, p, False)  # noqa: E731
    # brackets from Pinsker's inequality, KL(x/N || p) >= 2 (x/N - p)^2: the bound is <= lm
    # from |x - mean| >= r = sqrt(-lm N / 2) on (one more count against rounding)
    r = np.sqrt(-lm * N / 2.0) + 1.0
    hi = np.where(up(N) > lm, N,
                  np.minimum(_first_true(lambda x: up(x) <= lm, np.floor(mean),
                                         np.minimum(np.ceil(mean + r), N)) - 1.0, N))
    lo = np.where(dn(np.zeros(N.shape)) > lm, 0.0,
                  np.maximum(_first_true(lambda x: dn(x) > lm, np.maximum(np.floor(mean - r), -1.0),
                                         np.ceil(mean)), 0.0))
    trunc = np.where(hi < N, np.exp(up(hi + 1.0)), 0.0) + np.where(lo > 0, np.exp(dn(lo - 1.0)), 0.0)
    return lo, hi, trunc


# :meth:`NestedUpper._weights` per (E, pi, y-bins, l-window level, t-edges): they do not depend
# on eps but through the l-windows' level (``l_windows`` rounds it down to a quarter), so the
# ~40 sample eps of a round's profile share them; at most this many entries (up to a few 100 kB each)
WEIGHTS_CACHE_SIZE = 64
_weights_cache: dict = {}


def _m_key(m: np.ndarray) -> tuple:
    return int(m[0]), int(m[-1]), int(m.size)


class NestedUpper:
    """Upper bounds h_U(m, t) >= h(m, t) = E[g_m(t + (E-1) l)], l ~ Bin(t, pi), at the
    t-edges: chords of g (convex in y) over one y-grid of ``Gy`` bins shared by every t
    (g is evaluated once per (m, grid point); each t only weighs the grid's values with the
    P and E[y; bin] of its own l-window, a matrix independent of m), plus (E - u) m times
    the Chernoff bound on the l-mass outside the window (g <= (E - u) m).  Only the ``g``
    column is an upper bound; the slope column is 0.

    Lower end (:meth:`bin_lower`, from the same evaluations): for every y-grid point Y_i,
    g_m(y) >= g_m(Y_i) + s_i (y - Y_i) with s_i a one-sided derivative of the convex g_m
    (the ``Terms`` slope v3 P[N1 > c]), and h(m, t) >= g_m(kappa t) (Jensen over l,
    E[t + (E-1) l | t] = kappa t), so on a t-bin E[h; bin | m] >= P g_m(Y_i) + s_i (kappa
    E[t; bin | m] - Y_i P) for every i, and >= 0; the two grid points around kappa times the
    bin's mean are tried.  The Jensen gap is that of the three-atom law's lower end."""

    def __init__(self, law: OueBlanket, inner: CountLaw, pi: float, eps: float, Gy: int,
                 log_mass: float) -> None:
        self.terms = Terms(inner, eps)
        self.u = self.terms.u
        self.E, self.pi, self.Gy, self.log_mass = law.E, pi, Gy, log_mass
        self.vmax = law.E - self.u
        self.kappa = 1.0 + (law.E - 1.0) * pi
        # (y-grid, g and slope there) of the row calls not yet read by bin_lower, keyed by their
        # m values (the binned sums run m-chunks on threads: one entry per chunk)
        self._rows: dict = {}

    def _weights(self, ts: np.ndarray):
        """(y-grid, A, B, out): h_U(m, t) = A[t] . g(m, grid) + vmax m out[t] and the Newton
        weight B[t] . q(m, grid), for the t >= 1 of ``ts``."""
        key = (self.E, self.pi, self.Gy, math.floor(4.0 * self.log_mass) / 4.0, ts.tobytes())
        hit = _weights_cache.get(key)
        if hit is not None:
            return hit
        d = self.E - 1.0
        lo, hi, out = l_windows(ts, self.pi, self.log_mass)
        y0 = float(np.min(ts + d * (lo - 1.0)))
        y1 = float(np.max(ts + d * hi))
        ys = np.unique(np.linspace(y0, y1, self.Gy + 1))
        # l in bin i  <=>  Y_i < t + d l <= Y_{i+1}  <=>  x_i < l <= x_{i+1}, x = floor((Y - t)/d),
        # clipped to the window [lo, hi] (a value on an edge belongs to either bin: the
        # chords agree there; float rounding of the quotient moves a point by ~1e-16 of a
        # bin, far inside FLOAT_REL_ERROR_OUE)
        T = ts[:, None]
        x = np.clip(np.floor((ys[None, :] - T) / d), lo[:, None] - 1.0, hi[:, None])
        pi = self.pi

        def cdf(N: np.ndarray, xx: np.ndarray) -> np.ndarray:  # P[Bin(N, pi) <= x]
            NB = np.broadcast_to(N, xx.shape)
            inside = (xx >= 0) & (xx < NB)
            xa = np.clip(xx, 0.0, np.maximum(NB - 1.0, 0.0))
            f = special.betainc(np.maximum(NB - xa, 1e-300), xa + 1.0, 1.0 - pi)
            return np.where(xx < 0, 0.0, np.where(inside, f, 1.0))

        F = cdf(T, x)
        F1 = cdf(T - 1.0, x - 1.0)
        P = np.maximum(np.diff(F, axis=1), 0.0)
        Ml = T * pi * np.diff(F1, axis=1)  # E[l; bin]
        w = np.diff(ys)[None, :]
        D = np.clip(T * P + d * Ml - ys[None, :-1] * P, 0.0, w * P)  # E[y - Y_i; bin]
        A = np.zeros((ts.size, ys.size))
        A[:, :-1] += (w * P - D) / w
        A[:, 1:] += D / w
        B = np.zeros((ts.size, ys.size))
        B[:, :-1] += 0.5 * P
        B[:, 1:] += 0.5 * P
        res = (ys, A, B, out)
        for a in res:  # shared by later calls: nobody writes into them
            a.setflags(write=False)
        if len(_weights_cache) >= WEIGHTS_CACHE_SIZE:
            _weights_cache.clear()
        _weights_cache[key] = res
        return res

    def row(self, m: np.ndarray, j) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        m = np.asarray(m)
        j = np.broadcast_to(np.asarray(j, dtype=np.float64), m.shape)
        grid = as_grid(m, j)
        if grid is None:
            mu, mi = np.unique(m, return_inverse=True)
            tu, ti = np.unique(j, return_inverse=True)
        else:  # the (t-edge, m) grid of the binned sums: no sorting
            mu, tu = grid
        Hg = np.zeros((tu.size, mu.size))
        Hq = np.zeros((tu.size, mu.size))
        small = tu <= 0.0
        if np.any(small):
            g0, _, q0 = self.terms.row(mu, np.zeros(mu.shape))
            for i in np.flatnonzero(small):
                if tu[i] == 0.0:  # l = 0
                    Hg[i], Hq[i] = g0, q0
                else:
                    # the grid's edge below t = 0: any value >= 2 h(0) - h(1) extends h convexly,
                    # and h(1) = E g(X) >= g(E X) = g(kappa) (Jensen), h(0) = g(0)
                    gk = self.terms.row(mu, np.full(mu.shape, 1.0 + (self.E - 1.0) * self.pi))[0]
                    Hg[i], Hq[i] = 2.0 * g0 - gk, q0
        big = np.flatnonzero(~small)
        if big.size:
            ys, A, B, out = self._weights(tu[big])
            gv, sv, qv = self.terms.row(np.tile(mu, ys.size), np.repeat(ys, mu.size))
            gv = gv.reshape(ys.size, mu.size)
            qv = qv.reshape(ys.size, mu.size)
            self._rows[_m_key(mu)] = (mu, ys, gv, sv.reshape(ys.size, mu.size))
            # einsum, not A @ gv: OpenBLAS would spread these small products over threads that
            # spin on a shared machine (3x the process's CPU time of a pass at n = 1e5)
            Hg[big] = np.einsum("ij,jk->ik", A, gv) + self.vmax * out[:, None] * mu.astype(np.float64)[None, :]
            Hq[big] = np.einsum("ij,jk->ik", B, qv)
        if grid is None:
            return Hg[ti, mi], np.zeros(m.shape), Hq[ti, mi]
        return Hg.reshape(m.shape), np.zeros(m.shape), Hq.reshape(m.shape)

    def bin_lower(self, m: np.ndarray, js: np.ndarray, P: np.ndarray, D: np.ndarray) -> np.ndarray:
        """Lower bounds on E[h(m, t); t-bin | m] (shape of P: bins x m) from the tangents of g_m
        at the y-grid of the :meth:`row` call on these m (the class docstring); 0 where there
        is no grid (every t-edge <= 0)."""
        last = self._rows.pop(_m_key(m), None) if m.size else None
        if last is None or not np.array_equal(last[0], m):
            return np.zeros(P.shape)
        _, ys, gv, sv = last
        KT = self.kappa * (js[:-1].astype(np.float64)[:, None] * P + D)  # kappa E[t; bin]
        with np.errstate(divide="ignore", invalid="ignore"):
            ybar = np.where(P > 0.0, KT / P, ys[0])
        i1 = np.clip(np.searchsorted(ys, ybar), 0, ys.size - 1)
        col = np.broadcast_to(np.arange(m.size), P.shape)
        best = np.zeros(P.shape)
        for i in (np.maximum(i1 - 1, 0), i1):
            gi, si = gv[i, col], sv[i, col]
            best = np.maximum(best, P * gi + si * (KT - ys[i] * P))
        return best
