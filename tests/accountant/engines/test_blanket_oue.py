"""The exact four-atom OUE blanket (accountant.engines.blanket.oue): brute force, mpmath,
path agreement, and its place between the mechanism's lower bound and the three-atom relaxation."""
import itertools
import math

import mpmath
import pytest
from hypothesis import example, given, settings, strategies as st

from accountant.core.params import make_params
from accountant.engines.blanket import OueBlanket, blanket_exact_epsilon, blanket_law, oue_blanket, positive_part
from accountant.engines.blanket.law import CountLaw
from accountant.engines.blanket.window import approx_epsilon
from accountant.bounds.laws.lower import lower_bound_delta


def _brute(eps0: float, n: int, eps: float) -> mpmath.mpf:
    """E[(sum of the n users' atoms)_+] / n by enumerating the five-category multinomial (40 digits)."""
    with mpmath.workdps(40):
        E, u = mpmath.e ** mpmath.mpf(eps0), mpmath.e ** mpmath.mpf(eps)
        p = [1 / (2 * (E + 1)), 1 / (2 * (E + 1)), E / (2 * (E + 1)), 1 / (2 * E * (E + 1))]
        v = [E - u, 1 - u * E, 1 - u, E * (1 - u)]
        p0 = 1 - sum(p)
        tot = mpmath.mpf(0)
        for c in itertools.product(range(n + 1), repeat=4):
            if sum(c) > n:
                continue
            r = n - sum(c)
            s = sum(vi * ci for vi, ci in zip(v, c))
            if s <= 0:
                continue
            coef = mpmath.factorial(n) / (mpmath.factorial(r) * mpmath.fprod(mpmath.factorial(x) for x in c))
            tot += coef * p0 ** r * mpmath.fprod(pi ** ci for pi, ci in zip(p, c)) * s
        return tot / n


@pytest.mark.parametrize("eps0,n,eps", [(0.5, 1, 0.2), (0.5, 3, 0.3), (1.0, 5, 0.1), (2.0, 6, 0.5),
                                        (0.3, 4, 0.05), (4.0, 6, 1.0), (0.1, 2, 0.01)])
def test_brute_force_small_n(eps0, n, eps):
    ref = float(_brute(eps0, n, eps))
    law = OueBlanket(eps0)
    for method in ("exact", "binned", "nested"):
        r = positive_part(law, n, eps, method=method)
        assert r.lower <= ref <= r.upper, (method, r, ref)
        if method != "nested":
            assert r.upper - r.lower <= 1e-6 * ref
    # n = 1: the local hockey-stick divergence of OUE on the two bits, (E - u) / (2 (E + 1))
    if n == 1:
        assert ref == pytest.approx((math.exp(eps0) - math.exp(eps)) / (2 * (math.exp(eps0) + 1)), rel=1e-12)


@pytest.mark.parametrize("eps0,n,delta", [(0.5, 200, 1e-6), (2.0, 200, 1e-3), (1.0, 1000, 1e-6)])
def test_mpmath_reference_moderate_n(eps0, n, delta):
    law = OueBlanket(eps0)
    eps = approx_epsilon(law, n, delta)
    ref = positive_part(law, n, eps, target_delta=delta, method="mpmath")
    # the mpmath sum covers the windows; the left-out mass is bounded by ref.truncated
    for method in ("exact", "binned", "nested"):
        r = positive_part(law, n, eps, target_delta=delta, method=method)
        assert r.lower <= ref.value * (1 + 1e-30) and ref.value <= r.upper, (method, r, ref)
        assert r.upper <= ref.value * (1 + 1e-4) + ref.truncated
    r = positive_part(law, n, eps, target_delta=delta, method="exact")
    assert abs(r.value / ref.value - 1) < 1e-11


@pytest.mark.parametrize("eps0", [0.5, 3.0])
def test_nested_and_direct_paths_agree(eps0):
    law, n, delta = OueBlanket(eps0), 20_000, 1e-6
    eps = approx_epsilon(law, n, delta)
    d = positive_part(law, n, eps, target_delta=delta, method="binned")
    s = positive_part(law, n, eps, target_delta=delta, method="nested")
    assert d.upper - d.lower <= 1e-5 * d.upper
    assert s.lower <= d.upper and d.lower <= s.upper
    assert s.upper <= d.upper * (1 + 2e-5)


def test_exact_law_below_three_atom_relaxation_and_wired_in():
    params = make_params("oue", 0.5, k=16)
    law = blanket_law(params)
    assert isinstance(law, OueBlanket) and law.eps_max == 0.5
    new = positive_part(law, 10**4, 0.0124, target_delta=1e-6)
    old = positive_part(oue_blanket(0.5), 10**4, 0.0124, target_delta=1e-6)
    assert new.upper < 0.25 * old.lower  # measured: 1.0e-6 against 6.1e-6
    assert positive_part(law, 10**4, 0.5).upper == 0.0


def test_bad_input():
    with pytest.raises(ValueError, match="eps0"):
        OueBlanket(0.0)
    with pytest.raises(ValueError, match="eps0"):
        OueBlanket(float("nan"))
    with pytest.raises(ValueError, match="method"):
        positive_part(CountLaw.krr_blanket(1.0, 4), 100, 0.1, method="nested")


@settings(max_examples=12, deadline=None)
@given(eps0=st.floats(0.1, 5.0), log_n=st.floats(math.log(2), math.log(1e6)),
       log_delta=st.floats(math.log(1e-10), math.log(1e-3)))
@example(eps0=2.625, log_n=1.0, log_delta=-16.5)  # eps = eps0 - 2.2e-15: the atoms cancel
def test_between_lower_bound_and_relaxation(eps0, log_n, log_delta):
    n, delta = int(round(math.exp(log_n))), math.exp(log_delta)
    law = OueBlanket(eps0)
    eps = approx_epsilon(law, n, delta)
    if eps is None or not 0 < eps < eps0:
        eps = 0.5 * eps0
    new = positive_part(law, n, eps, target_delta=delta)
    old = positive_part(oue_blanket(eps0), n, eps, target_delta=delta)
    assert 0.0 <= new.lower <= new.upper
    assert new.lower <= old.upper  # the relaxation dominates the exact law
    low = lower_bound_delta(make_params("oue", eps0, k=16), n, eps)
    assert low[0] <= new.upper  # the mechanism's certified lower bound


@pytest.mark.parametrize("eps0", [1.0, 2.625, 4.5])
@pytest.mark.parametrize("ulps", [2, 10, 40])
def test_upper_holds_where_the_atoms_cancel(eps0, ulps):
    # a few units in the last place below eps_max = eps0 the float atoms e^eps0 - e^eps keep few
    # digits: both laws' upper ends still hold the 40-digit truth, and the lower end stays below
    eps = eps0
    for _ in range(ulps):
        eps = math.nextafter(eps, 0.0)
    for n in (2, 3):
        truth = float(_brute(eps0, n, eps))
        for law in (OueBlanket(eps0), oue_blanket(eps0)):
            pp = positive_part(law, n, eps)
            assert pp.upper >= truth > 0.0
        assert positive_part(OueBlanket(eps0), n, eps).lower <= truth


@pytest.mark.parametrize("eps0,n", [(0.5, 3000), (2.5, 10_000), (4.5, 20_000)])
def test_table_sum_equals_cell_by_cell_sum(eps0, n):
    # the exact path's tail tables (accountant.engines.blanket.oue_table) against the closed
    # form evaluated cell by cell with one incomplete beta per (m, j) (sums.exact_sum)
    from accountant.engines.blanket import oue
    from accountant.engines.blanket.oue_table import direct_table_sum
    from accountant.engines.blanket.sums import exact_sum
    law, delta = OueBlanket(eps0), 1e-6
    eps = approx_epsilon(law, n, delta)
    mw, jw, _ = oue.oue_windows(law, n, eps, 1e-8 * delta)
    F, Q = direct_table_sum(law.E, n, eps, mw, jw, oue.excess_from_tail)
    F0, Q0 = exact_sum(oue._shape(law), n, oue._OueTerms(law, n, eps), mw, jw)
    assert F == pytest.approx(F0, rel=1e-12) and Q == pytest.approx(Q0, rel=1e-12)
    assert F > 0.5 * n * delta  # the windows hold the mass: a real comparison


@pytest.mark.parametrize("n", [10**4, 10**6])
@pytest.mark.parametrize("eps0", [0.5, 2.5, 4.0])
def test_chart_tolerance_curve_within_rtol_of_tight_and_certified(n, eps0):
    # the Amplification page's curves search at rtol 1e-4 (app/common.py CURVE_RTOL): their
    # eps_c is certified (a tight-gap evaluation there is <= delta) and within 1e-4 of the
    # tight-tolerance eps_c
    from accountant.bounds import registry
    params, delta = make_params("oue", eps0, k=10), 1e-6
    chart = registry.blanket_bound(params, n, delta, 1e-4)
    tight = registry.blanket_bound(params, n, delta, 1e-9)
    assert chart.achieved_delta <= delta and tight.achieved_delta <= delta
    assert abs(chart.epsilon - tight.epsilon) <= 1e-4 * tight.epsilon
    r = positive_part(OueBlanket(eps0), n, chart.epsilon, target_delta=delta, method="exact" if n <= 10**4
                      else "nested", bin_gap=1e-6)
    assert r.upper <= delta
    # and just below the tight answer delta is above the target: the answers are near the root
    below = positive_part(OueBlanket(eps0), n, tight.epsilon * (1 - 1e-3), target_delta=delta)
    assert below.lower > delta


# eps_c of registry.blanket_bound(oue, k = 10, n, delta = 1e-6, rtol = 1e-4) before the nested path's
# chart mode (Jensen pass, 4 y-bins per t-bin; commit bee05bb): the chart's answers may move
# by at most 1e-4 relative
_CHART_BEFORE = {(10**5, 0.5): 0.003514494561217255, (10**5, 2.5): 0.03272971663321221,
                 (10**5, 4.5): 0.10764505466737259, (10**8, 0.5): 6.247924771837912e-05,
                 (10**8, 2.5): 0.0007210022324916664, (10**8, 4.5): 0.0025165712759427365}


@pytest.mark.parametrize("n,eps0", sorted(_CHART_BEFORE))
def test_chart_answers_certified_by_a_fine_evaluation_and_near_the_old_ones(n, eps0):
    from accountant.bounds import registry
    delta = 1e-6
    chart = registry.blanket_bound(make_params("oue", eps0, k=10), n, delta, 1e-4)
    assert chart.achieved_delta <= delta
    assert abs(chart.epsilon / _CHART_BEFORE[n, eps0] - 1.0) <= 1e-4
    # independent of the chart mode: every cell at n = 1e5 (the tables), the Jensen-lower
    # nested path with a 100x finer gap at n = 1e8
    fine = positive_part(OueBlanket(eps0), n, chart.epsilon, target_delta=delta,
                         method="exact" if n <= 10**5 else "nested", bin_gap=1e-6)
    assert fine.upper <= delta
    assert fine.upper >= delta * (1 - 1e-2)  # a real check: the answer sits at the root


@pytest.mark.parametrize("eps0,n", [(0.5, 20_000), (3.0, 20_000), (5.0, 10_000)])
def test_chart_mode_brackets_the_exact_value(eps0, n):
    # the chart mode (gap 1e-4 with a target: lower end from the tangents of the upper end's
    # rows, _NestedUpper.bin_lower) against every cell of the direct windows, near the root
    # and far above it (where its lower end can be orders of magnitude under the value); the
    # search on this mode still lands within its tolerance of the fine search's root (the
    # search takes its log-slope from the upper end when the lower end is under half of it)
    law, delta = OueBlanket(eps0), 1e-6
    root = approx_epsilon(law, n, delta)
    for eps in (root, 0.9 * root, 1.5 * root, 3.0 * root):
        if eps >= eps0:
            continue
        ref = positive_part(law, n, eps, target_delta=delta, method="exact")
        r = positive_part(law, n, eps, target_delta=delta, method="nested", bin_gap=1e-4, min_bins=1)
        assert r.lower <= ref.lower * (1 + 1e-9) and ref.upper <= r.upper, (eps, r, ref)
        if eps == root:  # the upper end within the gap's scale; the lower end within the
            # Jensen gap over l (2.3e-3 of delta at n = 2e4, eps0 = 3; it falls like 1/n)
            assert r.upper <= ref.upper * (1 + 2e-4) and r.lower >= ref.lower * (1 - 1e-2)
    chart = blanket_exact_epsilon(law, n, delta, rtol=1e-4, certify_bracket=False, bin_gap=1e-4, min_bins=1)
    fine = blanket_exact_epsilon(law, n, delta, rtol=1e-9)
    assert fine.epsilon <= chart.epsilon <= fine.epsilon * (1 + 2e-4)


@pytest.mark.parametrize("eps0", [0.5, 4.5])
def test_chart_mode_one_bin_pass_brackets_the_fine_path(eps0):
    # n = 1e8: the m-window holds >= NESTED_ONE_BIN_FROM values, the chart mode's first pass
    # (one t-bin, one y-bin) meets the gap; it must bracket the fine Jensen-lower path's ends
    # (the m-chunks run on threads: each chunk's rows must reach its own lower end)
    from accountant.engines.blanket import oue
    law, n, delta = OueBlanket(eps0), 10**8, 1e-6
    eps = approx_epsilon(law, n, delta)
    r = positive_part(law, n, eps, target_delta=delta, method="nested", bin_gap=1e-4, min_bins=1)
    fine = positive_part(law, n, eps, target_delta=delta, method="nested", bin_gap=1e-6)
    assert r.bins == 1 and r.method == "nested"
    assert r.lower <= fine.upper and fine.lower <= r.upper
    assert r.upper - r.lower <= 1e-4 * max(r.upper, delta)
    assert fine.upper <= r.upper * (1 + 1e-9) and r.lower <= fine.upper
    assert oue.NESTED_ONE_BIN_FROM <= n  # the pass is the one-bin one by the window's size


def test_nested_rows_on_a_grid_equal_rows_on_scattered_points():
    # _NestedUpper.row reads the (t-edge, m) grid of the binned sums without sorting; any
    # other set of points goes through np.unique: both give the same numbers
    import numpy as np
    from accountant.engines.blanket import oue
    law, eps = OueBlanket(1.0), 0.0085
    _, inner, _, pi = oue._nested_laws(law)
    up = oue.NestedUpper(law, inner, pi, eps, 8, math.log(1e-16))
    m = np.arange(2000, 2400, dtype=np.int64)
    ts = np.array([30000.0, 30500.0, 31000.0])
    g1, _, q1 = up.row(np.tile(m, ts.size), np.repeat(ts, m.size))
    perm = np.random.default_rng(1).permutation(m.size * ts.size)
    up2 = oue.NestedUpper(law, inner, pi, eps, 8, math.log(1e-16))
    g2, _, q2 = up2.row(np.tile(m, ts.size)[perm], np.repeat(ts, m.size)[perm])
    assert oue.as_grid(np.tile(m, ts.size), np.repeat(ts, m.size)) is not None
    assert oue.as_grid(np.tile(m, ts.size)[perm], np.repeat(ts, m.size)[perm]) is None
    assert np.max(g1) > 0
    assert np.allclose(g1[perm], g2, rtol=1e-14, atol=0) and np.allclose(q1[perm], q2, rtol=1e-14, atol=0)


@pytest.mark.parametrize("p,log_mass", [(0.047, -35.7), (0.3, -10.3), (0.0018, -44.0), (0.1192, -3.1)])
def test_vectorised_l_windows_equal_the_scalar_windows(p, log_mass):
    # oue_nested.l_windows (one bisection for every t-edge) against window._window per t: the
    # same ends, the same Chernoff bound on the mass left out (up to the last bits of bd0's
    # series, which runs until every element of the vector has converged)
    import numpy as np
    from accountant.engines.blanket.oue_nested import l_windows
    from accountant.engines.blanket.window import _window
    ts = np.array([1, 2, 3, 7, 40, 977, 31_000, 451_291, 10**6 + 3, 215_683_764], dtype=np.float64)
    lo, hi, out = l_windows(ts, p, log_mass)
    for i, t in enumerate(ts):
        w = _window(int(t), p, log_mass)
        assert (lo[i], hi[i]) == (w[0], w[1])
        assert out[i] == pytest.approx(w[2], rel=1e-12, abs=0.0)
    assert np.any(lo > 0) and np.any(hi < ts) and np.all(out <= 2.0 * math.exp(math.floor(4 * log_mass) / 4))


def test_eps_free_parts_remembered_across_eps_give_the_same_numbers():
    # binned_sum's bin masses (sums._bin_masses) and NestedUpper's l-weights (oue_nested's
    # _weights) are remembered across eps: a profile's evaluations with the caches warm equal,
    # bit for bit, the same evaluations each from empty caches, and the shared arrays are
    # read-only
    import numpy as np
    from accountant.engines.blanket import oue_nested, sums
    law, n = OueBlanket(2.0), 8816
    krr = blanket_law(make_params("krr", 1.0, k=4))
    grid = [0.05 * i for i in range(1, 12)]
    kw = dict(target_delta=1e-20, bin_gap=1e-3, truncation=1e-13)
    cold = []
    for lw, nn in ((law, n), (krr, 2_000_000)):
        for e in grid:
            sums._bin_mass_cache.clear()
            oue_nested._weights_cache.clear()
            cold.append(positive_part(lw, nn, e, **kw))
    warm = [positive_part(lw, nn, e, **kw) for lw, nn in ((law, n), (krr, 2_000_000)) for e in grid]
    assert warm == cold
    assert any(r.method == "nested" for r in warm) and any(r.bins >= 8 for r in warm)
    assert len(sums._bin_mass_cache) >= 1 and len(oue_nested._weights_cache) >= 1
    P = next(iter(sums._bin_mass_cache.values()))[0]
    A = next(iter(oue_nested._weights_cache.values()))[1]
    assert not P.flags.writeable and not A.flags.writeable
    assert np.all(P >= 0.0) and np.any(P > 0.0)
