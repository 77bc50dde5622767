"""accountant.parallel: order kept, nested calls serial, engine sums independent of threads."""
import threading

from accountant.engines import parallel
from accountant.engines.blanket.law import CountLaw
from accountant.engines.blanket.engine import positive_part


def test_map_ordered_keeps_order_and_runs_nested_calls_serially():
    seen = []

    def inner(x):
        seen.append((threading.get_ident(), parallel.threads()))
        return x * x

    def outer(x):
        return sum(parallel.map_ordered(inner, range(x)))

    out = parallel.map_ordered(outer, range(10))
    assert out == [sum(i * i for i in range(x)) for x in range(10)]
    if parallel.threads() > 1:  # inside a worker every nested call is serial
        assert all(t == 1 for _, t in seen)
    assert parallel.map_ordered(lambda x: -x, []) == []


def test_engine_sums_agree_across_thread_counts(monkeypatch):
    law = CountLaw.collision_blanket(1.0, 8, 31)
    n = 10**7  # m-window of about 10^4 values: split into pieces
    a = [positive_part(law, n, e, target_delta=1e-9) for e in (2e-4, 1e-3)]
    monkeypatch.setattr(parallel, "MAX_THREADS", 1)
    b = [positive_part(law, n, e, target_delta=1e-9) for e in (2e-4, 1e-3)]
    # chunks follow the thread count: the sums differ by summation order only
    for x, y in zip(a, b):
        for u, v in ((x.lower, y.lower), (x.upper, y.upper), (x.value, y.value)):
            assert abs(u - v) <= 1e-13 * abs(v)
    assert all(r.lower <= r.upper for r in a) and a[0].value > a[1].value > 0


def test_pair_engine_agrees_across_thread_counts(monkeypatch):
    from accountant.engines.pair.law import DominatingPair
    from accountant.engines.pair.divergence import hockey_stick_divergence

    pair = DominatingPair.clone(10**8, 1.0)  # window of ~10^5 terms: split
    a = [hockey_stick_divergence(pair, e) for e in (1e-3, 3e-3)]
    monkeypatch.setattr(parallel, "MAX_THREADS", 1)
    b = [hockey_stick_divergence(pair, e) for e in (1e-3, 3e-3)]
    for x, y in zip(a, b):
        assert abs(x.upper - y.upper) <= 1e-13 * y.upper and abs(x.lower - y.lower) <= 1e-13 * y.lower
        assert 0 < x.lower <= x.upper


def test_map_ordered_reports_progress_in_the_callers_thread():
    import threading

    caller = threading.get_ident()
    seen = []

    def progress(done, total):
        assert threading.get_ident() == caller
        seen.append((done, total))

    out = parallel.map_ordered(lambda x: x * x, range(7), progress=progress)
    assert out == [x * x for x in range(7)]
    assert seen == [(i, 7) for i in range(1, 8)]
    seen.clear()
    assert parallel.map_ordered(lambda x: x, [], progress=progress) == [] and seen == []
