"""The composed PLD is smooth in n: its convolutions run in long double and its tails are cut
at the float noise floor (1 % of the carried error), so the certified eps_c of 1000 rounds
decreases strictly from each n to the next.  In float64 with tails cut at 1e-22 (inside the
FFT's noise) it jumped by up to 1e-4 (relative) between neighbouring n, 500 times its trend,
which made the minimum batch size a walk through noise."""
import pytest

from accountant import RoundSpec
from accountant.composition.compose import composed_upper
from accountant.engines import fftconv


@pytest.mark.parametrize("mechanism, kw, n0", [("rr", {}, 50_000), ("krr", {"k": 4}, 200_000)])
def test_composed_eps_decreases_strictly_between_neighbouring_n(mechanism, kw, n0):
    if fftconv.EXTENDED_ROUNDOFF is None:   # pragma: no cover - not x86-64
        pytest.fail("this machine's long double is not the 80-bit format the toolkit targets")
    eps = [composed_upper(RoundSpec(n, 1.0, mechanism, **kw), 1000, 1e-8)[0] for n in range(n0, n0 + 6)]
    steps = [a - b for a, b in zip(eps, eps[1:])]
    assert all(s > 0 for s in steps), eps
    # the trend: eps ~ n^-1/2, so each step is about eps / (2 n); the steps agree to 1 %
    trend = eps[0] / (2 * n0)
    assert all(0.5 * trend < s < 1.5 * trend for s in steps), (steps, trend)
    assert max(steps) - min(steps) < 0.01 * max(steps), steps


@pytest.mark.parametrize("n, eps0, k, start", [(100, 4.0, 4, 4.0), (10_000, 1.0, 64, 0.5),
                                               (1_000_000, 0.5, 64, 0.03125), (1_000_000, 8.0, 4, 8.0)])
def test_oue_support_search_from_the_generic_bennett_start_is_the_same(n, eps0, k, start):
    """OUE's support search now starts where the generic closed-form Bennett bound is below the
    cutoff (halvings of eps0 only) instead of halving the full profile down from eps0; it lands
    on the same support (96 of 96 settings checked when it was written, n = 2 ... 1e7, eps0 =
    0.25 ... 8, k = 4 and 64)."""
    from accountant.composition import profile as P

    spec = RoundSpec(n, eps0, "oue", k=k)
    assert P._halve_start(spec, P.PROFILE_CUTOFF) == start   # small n or large eps0: no help
    for cut in (P.PROFILE_CUTOFF, P.support_cutoff(1e-8, 1000)):
        from_top = P._shrink(lambda x: P.profile_value(spec, x)[1] <= cut, eps0)
        assert P.profile_support(spec, cut) == from_top
