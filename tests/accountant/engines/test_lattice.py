"""The certified lattice blanket and the Berry-Esseen screen against exact enumeration in
50-digit arithmetic, against the three-atom count engine on k-RR, under forced aliasing, and
monotone in eps."""
from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest

from accountant.engines.berry_esseen import _one_minus_aR, log_positive_part_bounds
from accountant.engines.blanket import CountLaw, positive_part
from accountant.engines.lattice import lattice_positive_part, safe_atoms, saddle_theta


def exact_positive_part(a, b, w, n, eps):
    """E[(Z_1 + ... + Z_n)_+] / n by enumerating the multinomial counts, 50 digits."""
    with mpmath.workdps(50):
        u = mpmath.exp(mpmath.mpf(eps))
        z = [mpmath.mpf(float(x)) - u * mpmath.mpf(float(y)) for x, y in zip(a, b)] + [mpmath.mpf(0)]
        p = [mpmath.mpf(float(x)) for x in w]
        p.append(1 - mpmath.fsum(p))
        total = mpmath.mpf(0)
        for counts in itertools.product(range(n + 1), repeat=len(z) - 1):
            rest = n - sum(counts)
            if rest < 0:
                continue
            c = list(counts) + [rest]
            coef = mpmath.factorial(n)
            for ci in c:
                coef /= mpmath.factorial(ci)
            s = mpmath.fsum(ci * zi for ci, zi in zip(c, z))
            if s > 0:
                pr = coef
                for ci, pi in zip(c, p):
                    pr *= pi ** ci
                total += pr * s
        return float(total / n)


def blanket_of(rng, k, m):
    M = rng.uniform(0.05, 1.0, size=(k, m))
    M /= M.sum(axis=1, keepdims=True)
    mass = M.min(axis=0)
    return M[0] / mass, M[1] / mass, mass


@pytest.mark.parametrize("seed", range(10))
def test_upper_against_exact_enumeration(seed):
    rng = np.random.default_rng(seed)
    a, b, w = blanket_of(rng, 3, int(rng.integers(2, 5)))
    for n in (1, 2, 4, 6):
        for eps in (0.02, 0.1, 0.4):
            ex = exact_positive_part(a, b, w, n, eps)
            r = lattice_positive_part(a, b, w, n, eps)
            assert r.upper >= ex, (n, eps, r.upper, ex)
            if ex > 1e-12:
                assert r.upper <= ex * 1.05 + 1e-15, (n, eps, r.upper, ex)
            assert r.central <= r.upper


@pytest.mark.parametrize("eps0,k,n,eps", [(2.0, 4, 10**5, 0.03), (1.0, 16, 10**6, 0.004),
                                          (3.0, 256, 10**7, 0.004)])
def test_krr_against_the_count_engine(eps0, k, n, eps):
    law = CountLaw.krr_blanket(eps0, k)
    ref = positive_part(law, n, eps)
    r = lattice_positive_part(law.a, law.b, [law.p12, law.p12, law.p3], n, eps)
    assert r.upper >= ref.lower
    assert r.upper <= ref.upper * 1.05


def test_aliasing_stays_an_upper_bound():
    # a cyclic group far too small for the sum: aliasing adds mass, never removes it
    rng = np.random.default_rng(7)
    a, b, w = blanket_of(rng, 3, 4)
    for n in (5, 8):
        for eps in (0.05, 0.2):
            ex = exact_positive_part(a, b, w, n, eps)
            for size in (4, 16, 64):
                r = lattice_positive_part(a, b, w, n, eps, max_size=size)
                assert r.size <= size
                assert r.upper >= ex, (n, eps, size, r.upper, ex)


def test_monotone_in_eps():
    rng = np.random.default_rng(3)
    a, b, w = blanket_of(rng, 3, 6)
    vals = [lattice_positive_part(a, b, w, 2000, e).upper for e in np.linspace(0.0, 0.3, 13)]
    assert all(x >= y for x, y in zip(vals, vals[1:]))
    assert vals[0] > vals[-1] > 0.0


def test_step_trade_off_is_small():
    # a finer step costs more and is tighter, never below the count engine's lower end
    law = CountLaw.krr_blanket(1.0, 16)
    ref = positive_part(law, 10**6, 0.005)
    ups = [lattice_positive_part(law.a, law.b, [law.p12, law.p12, law.p3], 10**6, 0.005,
                                 step_fraction=f).upper for f in (0.02, 0.1, 0.4)]
    assert ups[0] <= ups[1] * (1 + 1e-9) <= ups[2] * (1 + 1e-9)
    assert ups[0] >= ref.lower and ups[0] <= ref.upper * 1.005 and ups[2] <= ref.upper * 1.5


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="w must"):
        lattice_positive_part([1.0], [1.0], [-0.1], 10, 0.1)
    with pytest.raises(ValueError, match="sum to at most 1"):
        lattice_positive_part([1.0, 2.0], [1.0, 1.0], [0.7, 0.7], 10, 0.1)
    with pytest.raises(ValueError, match="n must"):
        lattice_positive_part([1.0], [1.0], [0.5], 0, 0.1)
    with pytest.raises(ValueError, match="max_size"):
        lattice_positive_part([1.0], [1.0], [0.5], 10, 0.1, max_size=100)


@pytest.mark.parametrize("seed", range(6))
def test_berry_esseen_bound_against_exact(seed):
    rng = np.random.default_rng(50 + seed)
    a, b, w = blanket_of(rng, 3, int(rng.integers(2, 5)))
    for n in (2, 5, 6):
        for eps in (0.05, 0.2):
            z = safe_atoms(a, b, eps)
            if not (z.max() > 0 and float(np.dot(w, z)) < 0):
                continue
            lb, _ = log_positive_part_bounds(z[None, :], w, 1.0 - w.sum(), n, saddle_theta(z, w))
            ex = exact_positive_part(a, b, w, n, eps) * n
            assert lb[0] >= math.log(ex), (n, eps, math.exp(lb[0]), ex)


@pytest.mark.parametrize("eps0,k,n,eps,rel", [(2.0, 4, 10**5, 0.03, 0.05), (1.0, 64, 10**8, 5e-4, 0.02)])
def test_berry_esseen_bound_against_the_count_engine(eps0, k, n, eps, rel):
    law = CountLaw.krr_blanket(eps0, k)
    ref = positive_part(law, n, eps)
    w = np.array([law.p12, law.p12, law.p3])
    z = safe_atoms(np.array(law.a), np.array(law.b), eps)
    lb, slack = log_positive_part_bounds(z[None, :], w, 1.0 - w.sum(), n, saddle_theta(z, w))
    assert lb[0] >= math.log(ref.lower * n)
    assert lb[0] <= math.log(ref.upper * n) + rel and 0.0 < slack[0] < rel


def test_mills_ratio_term_against_mpmath():
    a = np.array([0.0, 0.5, 3.0, 10.0, 19.9, 20.1, 35.0, 80.0])
    got = _one_minus_aR(a)
    with mpmath.workdps(60):
        for x, g in zip(a, got):
            x = mpmath.mpf(float(x))
            R = mpmath.erfc(x / mpmath.sqrt(2)) / 2 / (mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mpmath.pi))
            want = 1 - x * R
            assert g >= want * (1 - 1e-11) and g <= want * (1 + 1e-8), (x, g, want)
