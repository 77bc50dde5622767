"""Tests for accountant.bounds.closed_form (EFMRTT19, FMT21 Thm 3.1, FMT23 Thm 3.2)."""
from __future__ import annotations

import math

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accountant.bounds.closed_form import (
    clone_closed,
    clone_eps0_max,
    efmrtt19,
    stronger_clone_closed,
    stronger_clone_eps0_max,
)

mp.mp.dps = 50


# ----------------------------------------------------------------------------- references
def ref_efmrtt19(n, eps0, delta):
    return 12 * mp.mpf(eps0) * mp.sqrt(mp.log(1 / mp.mpf(delta)) / n)


def ref_clone(n, eps0, delta):
    e = mp.e ** mp.mpf(eps0)
    d = mp.mpf(delta)
    return mp.log(1 + (e - 1) / (e + 1) * (8 * mp.sqrt(e * mp.log(4 / d)) / mp.sqrt(n) + 8 * e / n))


def ref_stronger(n, eps0, delta):
    e = mp.e ** mp.mpf(eps0)
    d = mp.mpf(delta)
    inner = 4 * mp.sqrt(2 * mp.log(4 / d)) / mp.sqrt((e + 1) * n) + mp.mpf(4) / n
    return mp.log(1 + (e - 1) * inner)


def ref_stronger_by_substitution(n, eps0, delta):
    """FMT21's bound with the clone probability e^-eps0 replaced by 2/(e^eps0 + 1)."""
    e = mp.e ** mp.mpf(eps0)
    d = mp.mpf(delta)
    inv_p = (e + 1) / 2  # plays the role of e^eps0 = 1/p in FMT21
    inner = 8 * mp.sqrt(inv_p * mp.log(4 / d)) / mp.sqrt(n) + 8 * inv_p / n
    return mp.log(1 + (e - 1) / (e + 1) * inner)


# ----------------------------------------------------------------------------- EFMRTT19
@pytest.mark.parametrize("n,eps0,delta", [(10**4, 0.5, 1e-6), (10**5, 0.1, 1e-8), (2000, 0.3, 0.01),
                                          (10**6, 0.5, 1e-12)])
def test_efmrtt19_matches_formula(n, eps0, delta):
    r = efmrtt19(n, eps0, delta)
    assert r.applicable and r.name == "efmrtt19"
    assert r.epsilon == pytest.approx(float(ref_efmrtt19(n, eps0, delta)), rel=1e-13)
    assert r.reason is None
    assert r.achieved_delta is not None and r.achieved_delta <= delta


@pytest.mark.parametrize("n,eps0,delta,word", [(10**4, 0.51, 1e-6, "eps0"), (999, 0.1, 1e-6, "n="),
                                               (10**4, 0.1, 0.02, "delta")])
def test_efmrtt19_not_applicable_outside_range(n, eps0, delta, word):
    r = efmrtt19(n, eps0, delta)
    assert not r.applicable and r.epsilon is None
    assert r.reason and word in r.reason


def test_efmrtt19_boundaries_inclusive():
    assert efmrtt19(1000, 0.5, 0.01).applicable


def test_efmrtt19_no_amplification_reports_eps0_with_reason():
    # 12 sqrt(log(1e6)/1000) = 1.41 > 1: formula exceeds eps0
    r = efmrtt19(1000, 0.5, 1e-6)
    assert r.applicable and r.epsilon == 0.5
    assert "no amplification" in r.reason and "post-processing" in r.reason
    assert r.achieved_delta == 0.0


# ----------------------------------------------------------------------------- FMT21
@pytest.mark.parametrize("n,eps0,delta", [(10**4, 0.5, 1e-6), (10**4, 2.0, 1e-6),
                                          (10**5, 4.0, 1e-6), (10**6, 6.0, 1e-9),
                                          (10**5, 0.01, 1e-3)])
def test_clone_closed_matches_formula(n, eps0, delta):
    r = clone_closed(n, eps0, delta)
    assert r.applicable and r.name == "clone_closed"
    assert r.epsilon == pytest.approx(float(ref_clone(n, eps0, delta)), rel=1e-12)
    assert r.achieved_delta <= delta


def test_clone_closed_condition_uses_log_2_over_delta():
    n, delta = 10**4, 1e-6
    cap2 = math.log(n / (16 * math.log(2 / delta)))
    cap4 = math.log(n / (16 * math.log(4 / delta)))
    assert clone_eps0_max(n, delta) == pytest.approx(cap2, rel=1e-15)
    mid = 0.5 * (cap2 + cap4)  # allowed by log(2/delta), not by log(4/delta)
    assert clone_closed(n, mid, delta).applicable
    r = clone_closed(n, cap2 * (1 + 1e-9), delta)
    assert not r.applicable and "16 log(2/delta)" in r.reason
    assert clone_closed(n, 4.0, delta).applicable is False  # paper's Fig. 2 setting n=1e4, eps0=4


def test_clone_closed_small_n_not_applicable():
    r = clone_closed(100, 0.1, 1e-6)  # 100 / (16 log 2e6) < 1
    assert not r.applicable and "no eps0" in r.reason


# ----------------------------------------------------------------------------- FMT23
@pytest.mark.parametrize("n,eps0,delta", [(10**4, 0.5, 1e-6), (10**4, 4.0, 1e-6),
                                          (10**5, 2.0, 1e-6), (10**7, 8.0, 1e-10)])
def test_stronger_clone_matches_formula(n, eps0, delta):
    r = stronger_clone_closed(n, eps0, delta, randomizer_in_errata_class=True)
    assert r.applicable and r.name == "stronger_clone_closed"
    ref = ref_stronger(n, eps0, delta)
    assert r.epsilon == pytest.approx(float(ref), rel=1e-12)
    # the two algebraic forms agree (FMT21 with e^eps0 -> (e^eps0+1)/2)
    assert mp.almosteq(ref, ref_stronger_by_substitution(n, eps0, delta), rel_eps=mp.mpf(10) ** -40)
    assert "errata" in r.reason


def test_stronger_clone_default_not_applicable_because_of_errata():
    r = stronger_clone_closed(10**5, 1.0, 1e-6)
    assert not r.applicable and r.epsilon is None
    assert "errata" in r.reason and "Lemma 3.5" in r.reason


def test_stronger_clone_range():
    n, delta = 10**4, 1e-6
    cap = math.log(n / (8 * math.log(2 / delta)) - 1)
    assert stronger_clone_eps0_max(n, delta) == pytest.approx(cap, rel=1e-15)
    assert stronger_clone_closed(n, cap, delta, randomizer_in_errata_class=True).applicable
    r = stronger_clone_closed(n, cap * (1 + 1e-9), delta, randomizer_in_errata_class=True)
    assert not r.applicable and "8 log(2/delta)" in r.reason
    r = stronger_clone_closed(50, 0.1, 1e-6, randomizer_in_errata_class=True)
    assert not r.applicable and "no eps0" in r.reason


def test_stronger_clone_tighter_than_clone_where_both_apply():
    for n in (10**4, 10**5):
        for eps0 in (0.5, 1.0, 2.0, 3.0):
            a = clone_closed(n, eps0, 1e-6)
            b = stronger_clone_closed(n, eps0, 1e-6, randomizer_in_errata_class=True)
            assert a.applicable and b.applicable and b.epsilon < a.epsilon


def test_no_amplification_clone_reports_eps0():
    # tiny eps0 with n just above the range threshold: formula > eps0
    n, delta = 90, 1e-2
    eps0 = 0.01
    assert clone_eps0_max(n, delta) > eps0
    assert float(ref_clone(n, eps0, delta)) > eps0
    r = clone_closed(n, eps0, delta)
    assert r.applicable and r.epsilon == eps0 and "no amplification" in r.reason


# ----------------------------------------------------------------------------- monotonicity
FUNCS = [efmrtt19, clone_closed,
         lambda n, e, d: stronger_clone_closed(n, e, d, randomizer_in_errata_class=True)]


@pytest.mark.parametrize("f", FUNCS)
@settings(max_examples=60, deadline=None)
@given(n=st.integers(1000, 10**7), k=st.floats(1.0, 3.0), eps0=st.floats(0.01, 8.0),
       ld=st.floats(-20, -2.1))
def test_monotone_in_n_delta_eps0(f, n, k, eps0, ld):
    delta = 10.0 ** ld
    base = f(n, eps0, delta)
    if not base.applicable:
        return
    # more users: applicable (ranges widen with n) and not larger
    r = f(int(n * k), eps0, delta)
    assert r.applicable and r.epsilon <= base.epsilon * (1 + 1e-12)
    # larger delta: not larger (ranges widen with delta)
    r = f(n, eps0, min(delta * 10 * k, 0.009))
    assert r.applicable and r.epsilon <= base.epsilon * (1 + 1e-12)
    # smaller eps0: applicable and not larger
    r = f(n, eps0 / (1 + k), delta)
    assert r.applicable and r.epsilon <= base.epsilon * (1 + 1e-12)


# ----------------------------------------------------------------------------- validation
@pytest.mark.parametrize("f", [efmrtt19, clone_closed, stronger_clone_closed])
@pytest.mark.parametrize("args,param", [((0, 0.5, 1e-6), "n"), ((10.5, 0.5, 1e-6), "n"),
                                        ((True, 0.5, 1e-6), "n"), (("10", 0.5, 1e-6), "n"),
                                        ((100, 0.0, 1e-6), "eps0"), ((100, -1.0, 1e-6), "eps0"),
                                        ((100, math.inf, 1e-6), "eps0"),
                                        ((100, math.nan, 1e-6), "eps0"),
                                        ((100, 0.5, 0.0), "delta"), ((100, 0.5, 1.0), "delta"),
                                        ((100, 0.5, math.nan), "delta"),
                                        ((100, 0.5, -0.1), "delta")])
def test_validation(f, args, param):
    with pytest.raises(ValueError, match=param):
        f(*args)


def test_integral_float_n_accepted():
    assert clone_closed(1e4, 1.0, 1e-6).epsilon == clone_closed(10**4, 1.0, 1e-6).epsilon
