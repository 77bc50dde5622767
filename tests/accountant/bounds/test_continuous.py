"""The Laplace randomizer's certified cells against its exact continuous blanket: upper >= truth >= lower.

The truth is the exact blanket divergence delta(eps) = E[(Z_1 + ... + Z_n)_+] / n of the continuous
law (module docstring of :mod:`accountant.bounds.continuous`): at n = 2 a 50-digit mpmath quadrature
(the one-message function G(z) = E[(z + Z)_+] in closed form, one quadrature over Z_1), at n = 3 a
nested double-precision one (scipy, relative accuracy about 1e-10; a 20-digit mpmath one agreed
and took minutes).  Beside it: the mean-atom binning's exact law by enumeration (a lower
reference: each cell replaced by its conditional mean is smaller in the convex order) at n = 2..4,
the certified lower bound of the binned randomizer, and cells made finer giving a decreasing
upper bound that approaches the truth.
"""
from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest

from accountant.bounds.continuous import (laplace_binned, laplace_delta, laplace_epsilon, laplace_lower_delta,
                                          pair_cells)
from accountant.core.params import make_params
from accountant.core.randomizers_numerical import LaplaceParams
from accountant.engines.continuous import CellLaw, cell_positive_part


# --------------------------------------------------------------------------- the exact law, by quadrature


class Law:
    """The blanket law of Z for the pair (lo, hi) at level e0 and u = e^eps, in mpmath: null mass
    1 - gamma at 0, atoms E - u and 1 - u E (mass e^-e0 / 2 each), and V - u, 1 - u W with V, W of
    density c x^{-3/2} on (1, E), c = e^{-e0/2} / 4 (the t-halves of the module docstring, x = e^|t|)."""

    def __init__(self, e0, eps):
        self.e0, self.u = mp.mpf(e0), mp.exp(mp.mpf(eps))
        self.E = mp.exp(self.e0)
        self.c = mp.exp(-self.e0 / 2) / 4
        self.null = 1 - mp.exp(-self.e0 / 2)
        self.tail = mp.exp(-self.e0) / 2
        self.atoms = [(self.null, mp.mpf(0)), (self.tail, self.E - self.u), (self.tail, 1 - self.u * self.E)]
        self.kinks = [mp.mpf(0), self.u - self.E, self.u * self.E - 1, self.u - 1]

    def G(self, z):
        """E[(z + Z)_+] in closed form."""
        c, u, E = self.c, self.u, self.E
        out = sum(p * max(z + a, 0) for p, a in self.atoms)
        a = z - u   # V - u: the part V > -a of (1, E)
        v0 = max(mp.mpf(1), -a)
        if v0 < E:
            out += c * (-2 * a * (E ** -0.5 - v0 ** -0.5) + 2 * (E ** 0.5 - v0 ** 0.5))
        a = z + 1   # 1 - u W: the part W < a / u of (1, E)
        w1 = min(E, a / u)
        if w1 > 1:
            out += c * (-2 * a * (w1 ** -0.5 - 1) - 2 * u * (w1 ** 0.5 - 1))
        return out

    def expect(self, f, kinks):
        """E[f(Z)] for Z of this law, f with kinks at ``kinks`` (break points of the quadrature)."""
        c, u, E = self.c, self.u, self.E
        out = sum(p * f(a) for p, a in self.atoms)
        for to_x in (lambda k: u + k, lambda k: (1 - k) / u):   # V = z + u, W = (1 - z) / u
            pts = sorted({mp.mpf(1), E} | {x for x in map(to_x, kinks) if 1 < x < E})
            g = (lambda x: f(x - u)) if to_x(0) == u else (lambda x: f(1 - u * x))
            out += mp.quad(lambda x: g(x) * c * x ** -1.5, pts)
        return out


class FloatLaw(Law):
    """The same law in double precision, its expectations by scipy's adaptive quadrature (for the
    nested quadrature of n = 3, relative accuracy about 1e-10)."""

    def __init__(self, e0, eps):
        with mp.workdps(30):
            super().__init__(e0, eps)
        for name in ("e0", "u", "E", "c", "null", "tail"):
            setattr(self, name, float(getattr(self, name)))
        self.atoms = [(float(p), float(a)) for p, a in self.atoms]
        self.kinks = [float(k) for k in self.kinks]

    def G(self, z):
        c, u, E = self.c, self.u, self.E
        out = sum(p * max(z + a, 0.0) for p, a in self.atoms)
        v0 = max(1.0, u - z)
        if v0 < E:
            out += c * (-2 * (z - u) * (E ** -0.5 - v0 ** -0.5) + 2 * (E ** 0.5 - v0 ** 0.5))
        w1 = min(E, (z + 1) / u)
        if w1 > 1:
            out += c * (-2 * (z + 1) * (w1 ** -0.5 - 1) - 2 * u * (w1 ** 0.5 - 1))
        return out

    def expect(self, f, kinks):
        from scipy.integrate import quad

        c, u, E = self.c, self.u, self.E
        out = sum(p * f(a) for p, a in self.atoms)
        for g, to_x in ((lambda x: f(x - u), lambda k: u + k), (lambda x: f(1 - u * x), lambda k: (1 - k) / u)):
            pts = sorted(x for x in map(to_x, kinks) if 1 < x < E)
            out += quad(lambda x: g(x) * c * x ** -1.5, 1.0, E, points=pts or None, epsabs=0.0,
                        epsrel=1e-12, limit=200)[0]
        return out


def truth_delta(e0, eps, n):
    """The exact blanket delta(eps): n = 2 by a 50-digit mpmath quadrature, n = 3 by a nested
    double-precision one."""
    if n == 2:
        with mp.workdps(50):
            law = Law(e0, eps)
            return float(law.expect(law.G, law.kinks) / 2)
    law = FloatLaw(e0, eps)
    shifted = sorted({k - a for k in law.kinks for _, a in law.atoms})
    return law.expect(lambda z: law.expect(lambda y: law.G(z + y), [k - z for k in law.kinks]), shifted) / 3


def test_quadrature_law_is_a_law():
    with mp.workdps(30):
        law = Law(1.0, 0.2)
        total = law.expect(lambda z: mp.mpf(1), [])
        assert abs(total - 1) < mp.mpf(10) ** -25
        # E[Z] = gamma - u gamma: each ratio's blanket mean is 1 times gamma... E_m[f / m] = 1
        mean = law.expect(lambda z: z, [])
        assert abs(mean - (1 - law.u)) < mp.mpf(10) ** -25
        # G(z) at large z is z + E[Z]
        assert abs(law.G(mp.mpf(100)) - (100 + 1 - law.u)) < mp.mpf(10) ** -25


# --------------------------------------------------------------------------- the binning's exact law


def binned_exact(e0, eps, n, cells=64):
    """E[(Z_1 + ... + Z_n)_+] / n of the mean-atom binning (each cell at its conditional mean):
    smaller than the continuous law's in the convex order (Jensen), so a lower reference."""
    law = pair_cells(e0, -1.0, 1.0, cells)
    u = math.exp(eps)
    z = np.concatenate([law.a_mean - u * law.b_mean, [0.0]])
    w = np.concatenate([law.mass, [law.null]])
    half = n // 2
    zs, ws = z, w
    for _ in range(half - 1):
        zs, ws = (zs[:, None] + z[None, :]).ravel(), (ws[:, None] * w[None, :]).ravel()
    zr, wr = zs, ws
    for _ in range(n - 2 * half):
        zr, wr = (zr[:, None] + z[None, :]).ravel(), (wr[:, None] * w[None, :]).ravel()
    order = np.argsort(zr)
    zr, wr = zr[order], wr[order]
    suf_w = np.concatenate([np.cumsum(wr[::-1])[::-1], [0.0]])
    suf_zw = np.concatenate([np.cumsum((zr * wr)[::-1])[::-1], [0.0]])
    i = np.searchsorted(zr, -zs, side="right")
    return float(np.sum(ws * (zs * suf_w[i] + suf_zw[i]))) / n


CASES = [(1.0, 0.3), (1.0, 0.6), (4.0, 1.5), (4.0, 3.0)]


@pytest.mark.parametrize("e0,eps", CASES)
def test_upper_above_quadrature_above_lower_at_n2(e0, eps):
    truth = truth_delta(e0, eps, 2)
    up = laplace_delta(LaplaceParams(e0), 2, eps).upper
    assert up >= truth
    assert up <= truth * 1.01   # the cells lose little
    assert binned_exact(e0, eps, 2) <= truth * (1 + 1e-9)
    assert laplace_lower_delta(LaplaceParams(e0), 2, eps)[0] <= truth * (1 + 1e-9)


@pytest.mark.parametrize("e0,eps", [(1.0, 0.4), (4.0, 2.0)])
def test_upper_above_quadrature_above_lower_at_n3(e0, eps):
    truth = truth_delta(e0, eps, 3)
    up = laplace_delta(LaplaceParams(e0), 3, eps).upper
    assert truth <= up <= truth * 1.01
    assert binned_exact(e0, eps, 3) <= truth * (1 + 1e-9)
    assert laplace_lower_delta(LaplaceParams(e0), 3, eps)[0] <= truth * (1 + 1e-9)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_finer_cells_decrease_towards_the_binned_truth(n):
    e0, eps = 1.0, 0.3
    ref = binned_exact(e0, eps, n, cells=256)   # below the continuous truth
    ups = [cell_positive_part(pair_cells(e0, -1.0, 1.0, c), n, eps).upper for c in (8, 32, 128, 512)]
    assert all(a >= b for a, b in zip(ups, ups[1:]))
    assert ups[-1] >= ref
    assert (ups[-1] - ref) < 0.1 * (ups[0] - ref)
    assert ups[-1] <= ref * 1.002


def test_epsilon_bracket_at_n1000():
    """eps0 = 1, n = 1e3, delta = 1e-6: below the generic bound 0.1824, above the binned lower bound,
    and within 1% of the mean-atom binning's eps (below the continuous truth)."""
    params = make_params("laplace", 1.0)
    eps, r = laplace_epsilon(params, 1000, 1e-6)
    assert r.upper <= 1e-6
    assert 0.1100 < eps < 0.1824
    binned = laplace_binned(params)
    from accountant.bounds.finite import finite_lower_epsilon
    lo = finite_lower_epsilon(binned, 1000, 1e-6, 1e-5).epsilon
    assert lo <= eps
    # the mean-atom law's delta at eps(1 - 1%) is above the target: the continuous truth is too
    z_law = pair_cells(1.0, -1.0, 1.0, 1024)
    mean_atoms = CellLaw(z_law.mass, z_law.a_mean, z_law.a_mean, z_law.a_mean, z_law.b_mean, z_law.b_mean,
                         z_law.b_mean, z_law.null)
    assert cell_positive_part(mean_atoms, 1000, 0.99 * eps).central > 1e-6


# --------------------------------------------------------------------------- the worst pair


@pytest.mark.parametrize("e0,eps,n", [(1.0, 0.13, 1000), (4.0, 2.0, 3)])
def test_extremes_are_the_worst_pair_on_a_grid(e0, eps, n):
    ref = cell_positive_part(pair_cells(e0, -1.0, 1.0, 256), n, eps).upper
    grid = np.linspace(-1.0, 1.0, 7)
    for x1, x2 in itertools.product(grid, grid):
        if x1 != x2:
            assert cell_positive_part(pair_cells(e0, x1, x2, 256), n, eps).upper <= ref * (1 + 1e-9)


def _positive_part(terms):
    """int (sum_k w_k f_{c_k}(y))_+ dy exactly in 50-digit mpmath, f_c the unit-scale Laplace density at
    c: between the centres the sum is A e^y + B e^-y, with at most one sign change (at ln(-B/A) / 2),
    and its primitive A e^y - B e^-y is closed-form (the outer half-lines have B = 0, resp. A = 0)."""
    with mp.workdps(50):
        terms = [(mp.mpf(w), mp.mpf(c)) for w, c in terms]
        edges = [-mp.inf] + sorted({c for _, c in terms}) + [mp.inf]
        total = mp.mpf(0)
        for lo, hi in zip(edges, edges[1:]):
            a = sum((w * mp.exp(-c) / 2 for w, c in terms if lo < c), mp.mpf(0))
            b = sum((w * mp.exp(c) / 2 for w, c in terms if lo >= c), mp.mpf(0))
            cuts = [lo, hi]
            if a * b < 0 and lo < mp.log(-b / a) / 2 < hi:
                cuts = [lo, mp.log(-b / a) / 2, hi]
            for p, q in zip(cuts, cuts[1:]):
                y = (p + q) / 2 if mp.isfinite(p) and mp.isfinite(q) else (q - 1 if mp.isfinite(q) else p + 1)
                if a * mp.exp(y) + b * mp.exp(-y) > 0:
                    prim = [(a * mp.exp(v) if a else 0) - (b * mp.exp(-v) if b else 0) if mp.isfinite(v) else 0
                            for v in (p, q)]
                    total += prim[1] - prim[0]
        return total


@pytest.mark.parametrize("e0", [0.5, 2.0, 6.0])
def test_the_extremes_dominate_every_pair_in_convex_order(e0):
    """The lemma of docs/proved.md behind the worst pair: with the blanket e^{-e0/2} f_m (m the middle
    of the range [0, e0], unit scale), int (f_x - e^eps f_a - c f_m)_+ <= the same for (x, a) = (0, e0),
    for every pair of the range, every eps and every real c: Z of the pair (x, a) is below Z of the
    extremes in the convex order.  Exact 50-digit integrals on a 5 x 5 grid of pairs."""
    with mp.workdps(50):
        e0 = mp.mpf(e0)
        m, grid = e0 / 2, [e0 * i / 4 for i in range(5)]
        for eps, t in itertools.product([0, 0.3 * e0, e0], [-30, -1, -0.1, 0, 0.1, 1, 30]):
            u, c = mp.exp(eps), t * mp.exp(-e0 / 2)
            ref = _positive_part([(1, 0), (-u, e0), (-c, m)])
            tol = mp.mpf(10) ** -40 * (1 + abs(ref))
            assert abs(ref - _positive_part([(1, e0), (-u, 0), (-c, m)])) < tol     # the mirror pair
            for x, a in itertools.product(grid, grid):
                g = _positive_part([(1, x), (-u, a), (-c, m)])
                # the integrals are exact: the positive and negative parts add up to the total mass
                assert abs(g - _positive_part([(-1, x), (u, a), (c, m)]) - (1 - u - c)) < tol
                assert g <= ref + tol
    # and the order is strict off the extremes: a pair closer together is strictly better
    assert _positive_part([(1, 0.25 * e0), (-1, 0.75 * e0), (-0.1, m)]) < _positive_part([(1, 0), (-1, e0), (-0.1, m)])


# --------------------------------------------------------------------------- the discretisation itself


def test_cells_masses_and_means():
    law = pair_cells(2.0, -1.0, 1.0, 16)
    assert math.fsum(law.mass) + law.null == pytest.approx(1.0, abs=1e-11)
    assert math.fsum(law.mass) + law.null >= 1.0
    # E_m[A] = int f(.|lo) = 1 and E_m[B] = 1: the pair's rows are laws
    assert math.fsum(law.mass * law.a_mean) == pytest.approx(1.0, rel=1e-11)
    assert math.fsum(law.mass * law.b_mean) == pytest.approx(1.0, rel=1e-11)
    assert np.all(law.a_lo <= law.a_mean) and np.all(law.a_mean <= law.a_hi)


def test_bad_cells_are_refused():
    one = np.ones(2)
    with pytest.raises(ValueError, match="a_lo <= a_hi"):
        CellLaw(one, 2 * one, one, one, one, one, one, 0.0)
    with pytest.raises(ValueError, match="null"):
        CellLaw(one, one, one, one, one, one, one, 1.5)


# --------------------------------------------------------------------------- the parameters and the CLI


def test_params_validation_names_the_parameter():
    with pytest.raises(ValueError, match="range"):
        LaplaceParams(1.0, 1.0, -1.0)
    with pytest.raises(ValueError, match="range"):
        make_params("laplace", 1.0, range="1")
    with pytest.raises(ValueError, match="eps0"):
        LaplaceParams(0.0)
    p = make_params("laplace", 2.0, range="0,4")
    assert (p.lo, p.hi, p.scale) == (0.0, 4.0, 2.0)


def test_cli_bad_range_exits_2_with_one_line(capsys):
    from accountant.interfaces.cli.main import main

    for bad in ("2,1", "x", "1,2,3"):
        rc = main(["epsilon", "--mechanism", "laplace", "--eps0", "1", "--n", "1000", "--delta", "1e-6",
                   "--range", bad])
        err = capsys.readouterr().err
        assert rc == 2
        assert err.strip().count("\n") == 0 and "--range" in err
