"""Properties of the one float bisection (``bisect``) and the one inverse (``calibrate``) on
synthetic monotone predicates and forwards: bracket handling, tolerance, the directed answer,
the budget and its flag, the gallop from a guess, and a screen that changes the cost only."""
import math

import pytest
from hypothesis import given, settings, strategies as st

from accountant.engines.search import bisect, calibrate, largest_parameter_below, smallest_true

floats = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False)


def recorder(ok):
    calls = []

    def f(x):
        calls.append(x)
        return ok(x)
    return f, calls


@settings(max_examples=200, deadline=None)
@given(a=floats, b=floats, r=st.floats(0.0, 1.0), rtol=st.sampled_from([0.0, 1e-12, 1e-6, 1e-2]),
       atol=st.sampled_from([0.0, 1e-9, 1e-3]))
def test_bisect_brackets_the_threshold_within_tolerance(a, b, r, rtol, atol):
    """ok(x) = x on a's side of a threshold between a and b: the answer is a checked true point (or
    the caller's true end), the other end a false one, the threshold between them and the bracket
    within rtol * max|end| + atol (or at the floats' resolution), each point evaluated once."""
    if a == b:
        return
    root = a + r * (b - a)
    pred = (lambda x: x <= root) if a < b else (lambda x: x >= root)
    ok, calls = recorder(pred)
    res = bisect(ok, a, b, rtol=rtol, atol=atol, max_evaluations=5000)
    assert not res.exhausted
    assert res.x == a or (res.x in calls and pred(res.x))
    assert res.other == b or (res.other in calls and not pred(res.other))
    assert min(res.x, res.other) <= root <= max(res.x, res.other) or res.x == root
    width = abs(res.x - res.other)
    assert width <= rtol * max(abs(res.x), abs(res.other)) + atol or width <= 2 * math.ulp(max(abs(a), abs(b)))
    assert len(calls) == len(set(calls)) == res.evaluations


def test_bisect_check_ends_and_directed_answer():
    # the true end fails: no answer; the false end holds: it is the answer
    assert bisect(lambda x: x > 5, 0.0, 10.0, check_ends=True).x is None
    r = bisect(lambda x: x < 50, 0.0, 10.0, check_ends=True)
    assert r.x == 10.0 and r.other is None and r.evaluations == 2
    # without a check the caller's true end is trusted: never replaced by an unchecked point
    r = bisect(lambda x: False, 0.0, 1.0, rtol=1e-3)
    assert r.x == 0.0 and 0.0 < r.other <= 1e-3


def test_bisect_budget_sets_exhausted():
    r = bisect(lambda x: x <= 0.3, 0.0, 1.0, rtol=1e-12, max_evaluations=10)
    assert r.exhausted and r.evaluations == 10 and r.x <= 0.3 < r.other
    # the end checks count against the budget
    r = bisect(lambda x: x <= 0.3, 0.0, 1.0, rtol=1e-12, max_evaluations=10, check_ends=True)
    assert r.exhausted and r.evaluations == 10
    r = bisect(lambda x: x <= 0.3, 0.0, 1.0, rtol=1e-2, max_evaluations=10)
    assert not r.exhausted and r.other - r.x <= 1e-2 * r.other


def test_bisect_floor_stops_near_zero():
    r = bisect(lambda x: True, 1.0, 0.0, rtol=1e-6, floor=1e-12)
    assert 0.0 < r.x <= 1e-12 and r.evaluations == 40


def test_largest_parameter_below_keeps_its_contract():
    f = lambda v: v * v  # noqa: E731
    x = largest_parameter_below(f, 2.0, 0.0, 10.0, rtol=1e-9)
    assert f(x) <= 2.0 and 10.0 - x > 0 and math.sqrt(2) - x <= 1e-9 * 10
    assert largest_parameter_below(f, 2.0, 0.0, 1.0) == 1.0   # the end meets it
    assert largest_parameter_below(f, 2.0, 3.0, 4.0) is None  # no point meets it


# ------------------------------------------------------------------------------------ calibrate
def increasing(x):
    return math.expm1(x) / 3.0  # eps_c-like: grows with eps0


@settings(max_examples=100, deadline=None)
@given(target=st.floats(0.01, 100.0), guess=st.one_of(st.none(), st.floats(0.0, 8.0)),
       rtol=st.sampled_from([1e-9, 1e-6, 1e-3]))
def test_calibrate_largest_meets_and_the_next_does_not(target, guess, rtol):
    res = calibrate(lambda x: x, target, increasing, 0.0, 6.0, rtol=rtol, guess=guess)
    assert res.x is not None and res.value == increasing(res.x) <= target
    if res.other is None:
        assert res.x == 6.0
    else:
        assert increasing(res.other) > target and res.other - res.x <= rtol * res.other + 1e-300
    assert res.screened == 0


@settings(max_examples=100, deadline=None)
@given(target=st.floats(1e-3, 2.0), guess=st.one_of(st.none(), st.integers(-5, 10**7)))
def test_calibrate_smallest_integer_is_minimal(target, guess):
    eps = lambda n: 10.0 / math.sqrt(n)  # noqa: E731  eps_c-like: falls with n
    res = calibrate(lambda n: n, target, eps, 1, 10**6, largest=False, discrete=True, guess=guess)
    want = smallest_true(lambda n: eps(n) <= target, 0, 10**6) if eps(10**6) <= target else None
    assert res.x == want
    if want is not None and want > 1:
        assert res.other == want - 1 and eps(want - 1) > target


def test_calibrate_no_answer_and_edges():
    assert calibrate(lambda x: x, 0.5, increasing, 2.0, 5.0).x is None
    assert calibrate(lambda n: n, 0.5, lambda n: 1.0, 1, 100, largest=False, discrete=True, guess=7).x is None
    r = calibrate(lambda x: x, 1e9, increasing, 0.0, 5.0, guess=4.0)
    assert r.x == 5.0 and r.other is None


@settings(max_examples=60, deadline=None)
@given(target=st.floats(0.05, 50.0), guess=st.one_of(st.none(), st.floats(0.0, 8.0)),
       seed=st.integers(0, 2**32 - 1))
def test_a_right_screen_changes_the_cost_never_the_answer(target, guess, seed):
    """A screen that is right where it speaks (here: away from the root, at random) gives the
    forward's answer bit for bit, with fewer forward calls."""
    import random

    rnd = random.Random(seed)

    def screen(x):
        v = increasing(x)
        if abs(v - target) <= 1e-3 * target or rnd.random() < 0.2:
            return None
        return v <= target

    plain = calibrate(lambda x: x, target, increasing, 0.0, 6.0, rtol=1e-7, guess=guess)
    fast = calibrate(lambda x: x, target, increasing, 0.0, 6.0, rtol=1e-7, guess=guess, screen=screen)
    assert (fast.x, fast.other, fast.value) == (plain.x, plain.other, plain.value)
    assert fast.forward_calls <= plain.forward_calls


def test_a_wrong_screen_never_gives_an_answer_the_forward_refuses():
    """A screen that says 'meets' everywhere: the answer is settled on the forward, the search
    runs again without the screen."""
    res = calibrate(lambda x: x, 1.0, increasing, 0.0, 6.0, rtol=1e-9, screen=lambda x: True)
    plain = calibrate(lambda x: x, 1.0, increasing, 0.0, 6.0, rtol=1e-9)
    assert res.x == plain.x and increasing(res.x) <= 1.0
    res = calibrate(lambda n: n, 0.1, lambda n: 10 / math.sqrt(n), 1, 10**6, largest=False,
                    discrete=True, guess=5, screen=lambda n: n > 3)
    assert res.x == 10_000


def test_calibrate_budget_and_each_point_once():
    calls = []

    def fwd(x):
        calls.append(x)
        return increasing(x)

    res = calibrate(lambda x: x, 1.0, fwd, 0.0, 6.0, rtol=1e-15, max_evaluations=12)
    assert res.exhausted and res.forward_calls == len(calls) == len(set(calls)) == 12
    assert increasing(res.x) <= 1.0 < increasing(res.other)


@pytest.mark.parametrize("up", [True, False])
def test_calibrate_gallop_directions(up):
    """The float gallop from a guess on either side of the answer, for both directions."""
    f = increasing if up else (lambda x: increasing(6.0 - x))
    want = math.log1p(3.0)  # increasing(want) = 1
    for g in (0.01, 0.5, want, 3.0, 5.99):
        res = calibrate(lambda x: x, 1.0, f, 0.0, 6.0, rtol=1e-10, largest=up, guess=g if up else 6.0 - g)
        assert res.value <= 1.0
        assert abs(res.x - (want if up else 6.0 - want)) <= 1e-9


@settings(max_examples=100, deadline=None)
@given(target=st.integers(0, 2000), guess=st.one_of(st.none(), st.integers(-10, 3000)))
def test_calibrate_largest_integer_is_maximal(target, guess):
    f = lambda n: n * n // 1000  # noqa: E731  non-decreasing
    res = calibrate(lambda n: n, target, f, 0, 2000, discrete=True, guess=guess)
    want = max(n for n in range(2001) if f(n) <= target)
    assert res.x == want and (res.other is None if want == 2000 else res.other == want + 1)
