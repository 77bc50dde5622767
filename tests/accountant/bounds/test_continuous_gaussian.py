"""The Gaussian randomizer's certified cells against its exact continuous blanket: upper >= truth >= lower.

The truth is the exact blanket divergence delta(eps) = E[(Z_1 + Z_2)_+] / 2 of the continuous law of
the pair (lo, hi) (:mod:`accountant.bounds.continuous`): in t = (y - mid) / sigma the blanket is
phi(|t| + c), c = (hi - lo) / (2 sigma), and Z = e^{2 c r} - u left of 0, 1 - u e^{2 c r} right of it
(r = |t|), 0 with probability 1 - gamma.  The one-message G(z) = E[(z + Z)_+] is in closed form
(normal CDFs), and E[G(Z_1)] is a 50-digit mpmath quadrature over r.  Beside it: the binned
randomizer's certified lower bound (below the mechanism's truth, which is below the blanket's), the
tail term against its own quadrature, finer cells giving a decreasing bound, the interior pairs
below the extremes, and bad input refused.
"""
from __future__ import annotations

import math

import mpmath as mp
import pytest

from accountant.bounds.continuous import (GAUSS_TAIL_FRACTION, gaussian_cap, gaussian_cells, gaussian_delta,
                                          gaussian_epsilon, gaussian_lower_delta, gaussian_pair_delta,
                                          gaussian_tail)
from accountant.core.params import make_params
from accountant.core.randomizers_numerical import GaussianParams


def _sf(x):
    return mp.ncdf(-x)


def G(z, c, u):
    """E[(z + Z)_+] for the Gaussian pair's blanket law (module docstring), in closed form."""
    gamma = 2 * _sf(c)
    out = (1 - gamma) * max(z, 0)
    # left: (z + e^{2cr} - u)_+, positive for e^{2cr} > u - z
    r0 = mp.mpf(0) if u - z <= 1 else mp.log(u - z) / (2 * c)
    out += (z - u) * _sf(r0 + c) + _sf(r0 - c)
    # right: (z + 1 - u e^{2cr})_+, positive for e^{2cr} < (z + 1) / u
    if (z + 1) / u > 1:
        r1 = mp.log((z + 1) / u) / (2 * c)
        out += (z + 1) * (mp.ncdf(r1 + c) - mp.ncdf(c)) - u * (mp.ncdf(r1 - c) - mp.ncdf(-c))
    return out


def truth2(c, eps):
    """The exact blanket delta(eps) at n = 2 by a 50-digit quadrature of E[G(Z_1)] / 2."""
    with mp.workdps(50):
        c, u = mp.mpf(c), mp.exp(mp.mpf(eps))
        dens = lambda r: mp.npdf(r + c)   # noqa: E731
        kinks = sorted({k for k in (mp.log(u) / (2 * c), mp.log(2 * u - 1) / (2 * c)) if k > 0})
        left = mp.quad(lambda r: G(mp.exp(2 * c * r) - u, c, u) * dens(r), [0] + kinks + [mp.inf])
        right = mp.quad(lambda r: G(1 - u * mp.exp(2 * c * r), c, u) * dens(r), [0, mp.inf])
        return float(((1 - 2 * _sf(c)) * G(mp.mpf(0), c, u) + left + right) / 2)


def test_quadrature_law_is_a_law():
    """G against its definition by quadrature, and the law's mass and mean (E_m[f / m] = 1 for each
    ratio: E[Z] = 1 - u)."""
    with mp.workdps(30):
        c, u = mp.mpf("0.7"), mp.exp(mp.mpf("0.3"))
        gamma = 2 * _sf(c)

        def expect(f):
            left = mp.quad(lambda r: f(mp.exp(2 * c * r) - u) * mp.npdf(r + c), [0, 2, mp.inf])
            right = mp.quad(lambda r: f(1 - u * mp.exp(2 * c * r)) * mp.npdf(r + c), [0, 2, mp.inf])
            return (1 - gamma) * f(mp.mpf(0)) + left + right

        assert abs(expect(lambda z: mp.mpf(1)) - 1) < mp.mpf(10) ** -20
        assert abs(expect(lambda z: z) - (1 - u)) < mp.mpf(10) ** -20
        for z in (mp.mpf(-3), mp.mpf("0.1"), mp.mpf(2), mp.mpf(30)):
            kinks = sorted({k for k in (mp.log(u - z) / (2 * c) if u - z > 1 else -1,
                                        mp.log((z + 1) / u) / (2 * c) if z + 1 > u else -1) if k > 0})
            direct = (1 - gamma) * max(z, 0) + \
                mp.quad(lambda r: max(z + mp.exp(2 * c * r) - u, 0) * mp.npdf(r + c), [0] + kinks + [mp.inf]) + \
                mp.quad(lambda r: max(z + 1 - u * mp.exp(2 * c * r), 0) * mp.npdf(r + c), [0] + kinks + [mp.inf])
            assert abs(G(z, c, u) - direct) < mp.mpf(10) ** -15 * (1 + abs(z)), (z, G(z, c, u), direct)


@pytest.mark.parametrize("sigma", [1.0, 2.0, 4.0])
@pytest.mark.parametrize("eps", [0.3, 1.0])
def test_upper_above_truth_above_lower_n2(sigma, eps):
    params = make_params("gaussian", None, sigma=sigma)
    truth = truth2(params.c, eps)
    up = gaussian_delta(params, 2, eps).upper
    lo = gaussian_lower_delta(params, 2, eps)[0]
    assert lo <= truth <= up, (lo, truth, up)
    assert up <= truth * 1.1 + 1e-9, (truth, up)    # and close: the cells approach the truth
    if eps == 0.3:
        assert lo > 0.3 * truth   # the binned lower bound certifies something there


def test_tail_term_against_its_quadrature():
    for c in (0.25, 1.0, 2.0):
        for k in (1.0, 3.0, 6.0):
            cap = c + k
            with mp.workdps(40):
                cm = mp.mpf(c)
                a = mp.exp(2 * cm * cap)
                exact = mp.quad(lambda r: (mp.exp(2 * cm * r) - a) * mp.npdf(r + cm), [cap, mp.inf])
            t = gaussian_tail(c, -1.0, cap)
            assert float(exact) <= t <= float(exact) * (1 + 1e-9) + 1e-290, (c, k, t, exact)
        assert gaussian_tail(c, -1.0, gaussian_cap(c, 1e-9)) <= 1e-9


def test_cap_follows_the_target():
    c = 0.5
    caps = [gaussian_cap(c, GAUSS_TAIL_FRACTION * d) for d in (1e-3, 1e-6, 1e-12)]
    assert caps == sorted(caps) and caps[0] < caps[-1]


def test_finer_cells_give_a_decreasing_bound():
    c, cap = 0.5, 6.0
    for n in (2, 3):
        vals = [gaussian_pair_delta(c, -1.0, 1.0, n, 0.4, cap, cells).upper for cells in (16, 64, 256, 1024)]
        assert all(b <= a * (1 + 1e-9) for a, b in zip(vals, vals[1:])), vals
        assert vals[-1] < vals[0]
    truth = truth2(c, 0.4)
    assert truth <= gaussian_pair_delta(c, -1.0, 1.0, 2, 0.4, cap, 1024).upper <= truth * 1.02 + 1e-9


def test_cells_are_a_law_of_the_blanket():
    law, tail = gaussian_cells(0.5, -1.0, 1.0, 6.0, 256)
    gamma = 2 * float(mp.ncdf(-0.5))
    assert abs(float(law.mass.sum()) - gamma) < 1e-9 and abs(law.null - (1 - gamma)) < 1e-9
    assert law.mass.sum() + law.null >= 1.0
    assert tail > 0


def test_worst_pair_is_the_extremes_on_a_grid():
    """Checked numerically, not proved (docs/proved.md): every interior pair's certified bound is at
    most the extremes' (the same cap and cells)."""
    c, cap = 0.5, 6.5
    xs = (-1.0, -0.5, 0.0, 0.5, 1.0)
    for n, eps in ((3, 0.5), (1000, 0.15)):
        top = gaussian_pair_delta(c, -1.0, 1.0, n, eps, cap, 256).upper
        for x1 in xs:
            for x2 in xs:
                if x1 != x2:
                    v = gaussian_pair_delta(c, x1, x2, n, eps, cap, 256).upper
                    assert v <= top * (1 + 1e-9), (n, x1, x2, v, top)


def test_epsilon_is_certified_and_large_n_is_fast():
    import time

    params = make_params("gaussian", None, sigma=2.0)
    eps, r = gaussian_epsilon(params, 1000, 1e-6, rtol=1e-5)
    assert r.upper <= 1e-6 and gaussian_delta(params, 1000, eps, 1e-6).upper <= 1e-6
    assert gaussian_delta(params, 1000, eps * 0.99, 1e-6).upper > 1e-6 * 0.5
    t0 = time.perf_counter()
    e9, r9 = gaussian_epsilon(params, 10 ** 9, 1e-6, rtol=1e-5)
    assert time.perf_counter() - t0 < 2.0 and r9.upper <= 1e-6 and e9 < eps


def test_small_sigma_is_refused_with_the_reason():
    from accountant.bounds.continuous import gaussian_blanket_delta, gaussian_blanket_result, gaussian_refusal

    small = make_params("gaussian", None, sigma=0.5)
    assert gaussian_refusal(small) is not None and gaussian_refusal(make_params("gaussian", None, sigma=2.0)) is None
    r = gaussian_blanket_result(small, 1000, 1e-6, 1e-5)
    assert not r.applicable and "likelihood ratios up to" in r.reason
    assert gaussian_blanket_delta(small, 1000, 1.0) == (0.0, 1.0)
    # the range sets c: the same sigma on a narrower range is accounted
    assert gaussian_refusal(make_params("gaussian", None, sigma=0.5, range="-0.25,0.25")) is None


@pytest.mark.parametrize("kw,match", [
    ({"sigma": 0.0}, "sigma must be"), ({"sigma": -1.0}, "sigma must be"), ({"sigma": math.nan}, "sigma must be"),
    ({"sigma": math.inf}, "sigma must be"), ({"sigma": True}, "sigma must be"), ({}, "sigma is required"),
    ({"sigma": 1.0, "range": "1,1"}, "range must be"), ({"sigma": 1.0, "range": "2,1"}, "range must be"),
    ({"sigma": 1.0, "range": "x"}, "range must be")])
def test_bad_input(kw, match):
    with pytest.raises(ValueError, match=match):
        make_params("gaussian", None, **kw)


def test_eps0_refused():
    with pytest.raises(ValueError, match="eps0 does not apply to mechanism 'gaussian'"):
        make_params("gaussian", 1.0, sigma=1.0)
    with pytest.raises(ValueError, match="sigma does not apply"):
        make_params("laplace", 1.0, sigma=1.0)
    assert make_params("gaussian", sigma=2.0) == GaussianParams(2.0)   # eps0 is not a parameter
    with pytest.raises(ValueError, match="eps0 must be"):
        make_params("collision", s=4)   # and a pure randomizer still needs it
    p = GaussianParams(2.0, 0.0, 4.0)
    assert p.c == 1.0 and p.eps0 == math.inf


@pytest.mark.parametrize("argv,word", [
    (["--eps0", "1", "--sigma", "1"], "--eps0"), (["--sigma", "0"], "--sigma"), (["--sigma", "1", "--range", "2,1"], "--range"),
    ([], "--sigma")])
def test_command_line_refusals(argv, word, capsys):
    from accountant.interfaces.cli import main

    rc = main(["epsilon", "--n", "100", "--delta", "1e-6", "--mechanism", "gaussian", *argv])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and word in err and len(err.splitlines()) == 1, err


def test_rounds_refused(capsys):
    from accountant import RoundSpec

    with pytest.raises(ValueError, match="does not compose"):
        RoundSpec.named("gaussian", 1000, None, sigma=1.0)


def _G_float(z, c, u):
    """G in double precision (scipy's ndtr), for the nested quadrature of n = 3."""
    from scipy.special import ndtr

    out = (1 - 2 * ndtr(-c)) * max(z, 0.0)
    r0 = 0.0 if u - z <= 1 else math.log(u - z) / (2 * c)
    out += (z - u) * ndtr(-(r0 + c)) + ndtr(-(r0 - c))
    if (z + 1) / u > 1:
        r1 = math.log((z + 1) / u) / (2 * c)
        out += (z + 1) * (ndtr(r1 + c) - ndtr(c)) - u * (ndtr(r1 - c) - ndtr(-c))
    return out


def _expect_float(f, c, u, kinks):
    """E[f(Z)] for the blanket law of Z, f with kinks at the values ``kinks`` of Z (scipy quad)."""
    from scipy.integrate import quad
    from scipy.stats import norm

    out = (1 - 2 * norm.sf(c)) * f(0.0)
    for zf, inv in ((lambda r: math.exp(2 * c * r) - u, lambda k: math.log(k + u) / (2 * c) if k + u > 1 else -1),
                    (lambda r: 1 - u * math.exp(2 * c * r), lambda k: math.log((1 - k) / u) / (2 * c) if 1 - k > u else -1)):
        pts = sorted({p for p in map(inv, kinks) if 0 < p < 12}) or None
        out += quad(lambda r: f(zf(r)) * norm.pdf(r + c), 0.0, 12.0 + c, points=pts, epsabs=0.0,
                    epsrel=1e-11, limit=400)[0]
    return out


def test_upper_above_truth_above_lower_n3():
    """n = 3 by a nested double-precision quadrature (relative accuracy about 1e-9): E[G(Z_1 + Z_2)] / 3."""
    sigma, eps = 2.0, 0.3
    params = make_params("gaussian", None, sigma=sigma)
    c, u = params.c, math.exp(eps)
    kinks = (0.0, u - 1.0)
    truth = _expect_float(lambda z1: _expect_float(lambda z2: _G_float(z1 + z2, c, u), c, u,
                                                   [k - z1 for k in kinks]), c, u,
                          sorted({k - a for k in kinks for a in (0.0, 1 - u, u - 1)})) / 3
    up = gaussian_delta(params, 3, eps).upper
    lo = gaussian_lower_delta(params, 3, eps)[0]
    assert lo <= truth * (1 + 1e-6) and truth <= up, (lo, truth, up)
    assert up <= truth * 1.1
