"""The bracketed search on synthetic monotone functions (independent of the pairs)."""
import math

import pytest

from accountant.engines.search import epsilon_for_delta, largest_eps_above, largest_parameter_below


def gaussian_like(mu):
    def ev(eps):
        d = 0.5 * math.erfc((eps / mu - mu / 2) / math.sqrt(2)) - math.exp(eps) * 0.5 * math.erfc(
            (eps / mu + mu / 2) / math.sqrt(2))
        h = 1e-7
        d2 = 0.5 * math.erfc(((eps + h) / mu - mu / 2) / math.sqrt(2)) - math.exp(eps + h) * 0.5 * math.erfc(
            ((eps + h) / mu + mu / 2) / math.sqrt(2))
        return d, d, (d2 - d) / h
    return ev


@pytest.mark.parametrize("mu", [0.05, 0.5, 2.0])
@pytest.mark.parametrize("target", [1e-3, 1e-9])
def test_gaussian_mechanism_root(mu, target):
    ev = gaussian_like(mu)
    res = epsilon_for_delta(ev, target, 60.0, rtol=1e-9)
    assert ev(res.epsilon)[1] <= target
    assert res.lower_epsilon is not None and ev(res.lower_epsilon)[0] > target
    assert res.epsilon - res.lower_epsilon <= 1e-9 * res.epsilon + 1e-15
    assert res.evaluations < 40


def test_wide_ambiguous_band_terminates():
    """Certified lower/upper bounds that differ by a factor 2 around the target: the
    search must still stop (no re-probing of one point) and return a certified hi."""
    def ev(eps):
        d = math.exp(-10 * eps)
        return 0.7 * d, 1.4 * d, -10 * d

    res = epsilon_for_delta(ev, 1e-3, 5.0, rtol=1e-9)
    assert res.evaluations < 200
    assert ev(res.epsilon)[1] <= 1e-3
    assert res.lower_epsilon is None or ev(res.lower_epsilon)[0] > 1e-3


def test_zero_and_slope_free():
    assert epsilon_for_delta(lambda e: (0.1, 0.1, 0.0), 0.5, 1.0).epsilon == 0.0
    res = epsilon_for_delta(lambda e: ((1 - e) ** 3, (1 - e) ** 3, 0.0), 0.001, 1.0, rtol=1e-10)
    assert res.epsilon == pytest.approx(0.9, rel=1e-9) and (1 - res.epsilon) ** 3 <= 0.001


def test_largest_parameter_below():
    x = largest_parameter_below(lambda v: v * v, 2.0, 0.0, 10.0, rtol=1e-12)
    assert x * x <= 2.0 and x == pytest.approx(math.sqrt(2), rel=1e-11)
    assert largest_parameter_below(lambda v: 5.0, 2.0, 0.0, 1.0) is None
    with pytest.raises(ValueError, match="delta must"):
        epsilon_for_delta(lambda e: (0.1, 0.1, 0.0), 1.5, 1.0)


def _random_cases(count, seed):
    import random

    from accountant import CoCoParams, CollisionParams, GenericLDP

    rnd = random.Random(seed)
    for _ in range(count):
        n = int(10 ** rnd.uniform(1.5, 7))
        eps0 = rnd.uniform(0.05, 6.0)
        delta = 10 ** rnd.uniform(-14, -2)
        rtol = rnd.choice([1e-3, 1e-6, 1e-9])
        kind = rnd.choice("gck")
        s = rnd.randint(1, 8)
        p = (GenericLDP(eps0) if kind == "g" else
             CollisionParams(s=s, eps0=eps0) if kind == "c" else CoCoParams(s=s, eps0=eps0))
        yield p, n, delta, rtol


@pytest.mark.parametrize("case", list(_random_cases(40, 7)), ids=lambda c: f"{c[0].name}-n{c[1]}")
def test_search_result_certified_and_within_rtol_of_a_certified_lower_end(case):
    from accountant.engines.pair.divergence import hockey_stick_divergence
    from accountant import PairAccountant
    from accountant.bounds.pair_accountant import search_pair_epsilon

    p, n, delta, rtol = case
    pair = PairAccountant(p, n).pair
    r = search_pair_epsilon(pair, delta, rtol)
    assert hockey_stick_divergence(pair, r.epsilon, target_delta=delta).upper <= delta
    if r.epsilon == 0.0:
        return
    lo = r.lower_epsilon
    assert lo is not None
    assert hockey_stick_divergence(pair, lo, target_delta=delta).lower > delta
    assert r.epsilon - lo <= rtol * r.epsilon + 1e-15


@pytest.mark.parametrize("mech,n,eps0,delta,rtol", [
    ("generic", 10 ** 9, 1.0, 1e-10, 1e-6),
    ("collision", 10 ** 9, 1.0, 1e-6, 1e-9),
    ("coco", 10 ** 8, 0.5, 1e-6, 1e-9),
])
def test_search_needs_few_evaluations_at_large_n(mech, n, eps0, delta, rtol):
    """A good starting guess + Newton: 3 divergence evaluations, not a bisection
    (the step out of the rounding band used to be sized by eps_max: 16-18)."""
    from accountant import PairAccountant, make_params

    r = PairAccountant(make_params(mech, eps0, s=8 if mech != "generic" else None), n) \
        .epsilon_result(delta, rtol=rtol)
    assert r.evaluations <= 4


# ---------------------------------------------------------------- largest_eps_above

@pytest.mark.parametrize("mu", [0.05, 0.5, 2.0])
@pytest.mark.parametrize("target", [1e-3, 1e-9])
@pytest.mark.parametrize("guess_factor", [None, 0.5, 0.8, 1.3])
def test_largest_eps_above_gaussian(mu, target, guess_factor):
    """Certified above the target, within rtol below the root, few evaluations from a
    guess within 30% (the lower bound's use), any start (bisection) otherwise."""
    ev = gaussian_like(mu)
    root = epsilon_for_delta(ev, target, 60.0, rtol=1e-12).epsilon
    guess = None if guess_factor is None else guess_factor * root
    eps, evals = largest_eps_above(ev, target, 60.0, rtol=1e-5, guess=guess)
    assert ev(eps)[0] > target
    assert root * (1 - 1e-5) <= eps < root
    assert evals <= (4 if guess_factor in (0.8, 1.3) else 40)


def test_largest_eps_above_old_search_parity():
    """Same answer (to rtol) as the lower end of the bracketed search, one evaluation fewer."""
    ev = gaussian_like(0.3)
    res = epsilon_for_delta(ev, 1e-6, 60.0, rtol=1e-5, guess=0.8 * 3.0)
    eps, evals = largest_eps_above(ev, 1e-6, 60.0, rtol=1e-5, guess=0.8 * 3.0)
    assert eps == pytest.approx(res.lower_epsilon, rel=2e-5)
    assert evals < res.evaluations


def test_largest_eps_above_zero_and_bands():
    # target met at eps = 0: the trivial lower bound 0, found without bisecting down
    eps, evals = largest_eps_above(lambda e: (0.1 * math.exp(-e), 0.1 * math.exp(-e), -0.1 * math.exp(-e)),
                                   0.5, 1.0, guess=0.3)
    assert eps == 0.0 and evals <= 3
    # above the target everywhere below eps_max: eps_max itself is never claimed, the answer
    # is within rtol below it
    eps, _ = largest_eps_above(lambda e: (0.9, 0.9, 0.0), 0.5, 2.0)
    assert 2.0 * (1 - 1e-5) <= eps < 2.0
    # lower and upper bounds a factor 2 apart around the target: stops, certified by the
    # lower bound, near the lower bound's root log(0.7/1e-3)/10
    def wide(e):
        d = math.exp(-10 * e)
        return 0.7 * d, 1.4 * d, -10 * d

    eps, evals = largest_eps_above(wide, 1e-3, 5.0, rtol=1e-9)
    assert 0.7 * math.exp(-10 * eps) > 1e-3
    assert eps == pytest.approx(math.log(700.0) / 10, rel=1e-8)
    assert evals < 60


# ---------------------------------------------------------------- predict (one-sided stop)

@pytest.mark.parametrize("mu", [0.05, 0.5, 2.0])
@pytest.mark.parametrize("target", [1e-3, 1e-9])
@pytest.mark.parametrize("guess_factor", [None, 0.9, 1 + 2e-6, 1.3])
def test_predict_stop_certified_within_rtol(mu, target, guess_factor):
    """predict=True: the answer is certified (upper <= target) and within rtol above the
    root; a start just above the root costs one evaluation, any other start at most the
    bracketed search's count."""
    ev = gaussian_like(mu)
    root = epsilon_for_delta(ev, target, 60.0, rtol=1e-12).epsilon
    guess = None if guess_factor is None else guess_factor * root
    full = epsilon_for_delta(ev, target, 60.0, rtol=1e-5, guess=guess)
    res = epsilon_for_delta(ev, target, 60.0, rtol=1e-5, guess=guess, predict=True)
    assert ev(res.epsilon)[1] <= target
    assert root <= res.epsilon <= root * (1 + 1e-5) + 1e-15
    assert res.evaluations <= full.evaluations
    if guess_factor == 1 + 2e-6:
        assert res.evaluations == 1 and res.lower_epsilon is None
