"""accountant.engines.parallel: order kept, nested calls serial, engine sums independent of threads."""
import ast
import os
import pathlib
import subprocess
import sys
import threading

from accountant.engines import parallel
from accountant.engines.blanket.law import CountLaw
from accountant.engines.blanket.engine import positive_part

ROOT = pathlib.Path(__file__).resolve().parents[3]


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


# ----------------------------------------------------------------------------- processes
# (module-level functions: the worker processes import this module to run them)
def _square_or_fail(x):
    if x == 7:
        raise ValueError("x must not be 7, got 7")
    return x * x, parallel._IN_PROCESS_WORKER, parallel.threads()


def _die_in_worker(x):
    import os

    if x == 3 and parallel._IN_PROCESS_WORKER:
        os._exit(1)  # a worker killed mid-map
    return x * x


def test_map_processes_keeps_order_runs_in_workers_and_reports_progress():
    seen = []
    out = parallel.map_processes(_square_or_fail, range(7), progress=lambda d, t: seen.append((d, t)))
    assert [o[0] for o in out] == [x * x for x in range(7)]
    if parallel.processes_enabled():
        assert all(o[1] for o in out)          # ran in worker processes
        assert all(o[2] == 1 for o in out)     # whose engine calls are serial
    assert [d for d, _ in seen] == list(range(1, 8)) and {t for _, t in seen} == {7}


def test_map_processes_raises_the_tasks_error():
    import pytest

    with pytest.raises(ValueError, match="x must not be 7"):
        parallel.map_processes(_square_or_fail, range(10))


def test_map_processes_recovers_from_a_killed_worker():
    # the pool breaks; the same work is done on threads, with the same results
    assert parallel.map_processes(_die_in_worker, range(6)) == [x * x for x in range(6)]
    assert parallel.map_processes(_die_in_worker, [1, 2]) == [1, 4]  # a fresh pool afterwards


def test_map_processes_off_by_environment(monkeypatch):
    monkeypatch.setenv(parallel.PROCESSES_ENV, "0")
    assert not parallel.processes_enabled()
    out = parallel.map_processes(_square_or_fail, range(3))
    assert [o[:2] for o in out] == [(0, False), (1, False), (4, False)]


def test_compute_rows_same_rows_on_processes_and_threads():
    from accountant.interfaces import tables

    points = tables.build_grid([10**4, 10**6], [4], [0.5, 2.0], [1e-6], "collision", "paper")
    bounds = ("blanket", "lower", "paper", "clone")
    a = tables.compute_rows(points, bounds, 1e-4, processes=True)
    b = tables.compute_rows(points, bounds, 1e-4, processes=False)
    assert a == b
    assert all(r["lower_epsilon"] <= r["proved_epsilon"] for r in a)


def test_map_processes_falls_back_to_threads_when_the_pool_cannot_start(monkeypatch):
    def no_pool(preload):
        raise OSError("no /dev/shm")

    parallel.shutdown_processes()
    monkeypatch.setattr(parallel, "_get_pool", no_pool)
    out = parallel.map_processes(_square_or_fail, range(4))
    assert [o[:2] for o in out] == [(0, False), (1, False), (4, False), (9, False)]


def _blas_env(_):
    import os

    return os.environ.get("OPENBLAS_NUM_THREADS")


def test_workers_run_numpy_with_one_blas_thread_and_the_parent_keeps_its_setting(monkeypatch):
    import os

    # not "1" (tests/conftest.py's value for the test processes): the workers' "1" is their own
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "7")
    before = os.environ.get("OPENBLAS_NUM_THREADS")
    out = parallel.map_processes(_blas_env, range(3))
    if parallel.processes_enabled():
        assert out == ["1", "1", "1"]
    assert os.environ.get("OPENBLAS_NUM_THREADS") == before


def test_a_script_without_a_main_guard_runs_once(tmp_path):
    # the workers must not run the caller's script again (multiprocessing's __mp_main__)
    import subprocess
    import sys

    from tests.paths import REPO_ROOT

    marks = tmp_path / "marks.txt"
    script = tmp_path / "unguarded.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(REPO_ROOT)!r})\n"
        f"open({str(marks)!r}, 'a').write('ran\\n')\n"
        "from accountant.engines import parallel\n"
        "print(parallel.map_processes(abs, [-1, -2, -3]), parallel.processes_enabled())\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[:3] == ["[1,", "2,", "3]"]
    assert marks.read_text() == "ran\n", out.stderr
    assert "Traceback" not in out.stderr


_HEAP_CHURN = """
import resource, sys
import numpy as np
if sys.argv[1] == "pad":
    from accountant.engines.parallel import keep_heap_pad
    assert keep_heap_pad()
rng = np.random.default_rng(0)
f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(300):  # arrays of 160 kB - 4.8 MB made and freed, as the engines do
    a = [np.ones(int(s)) for s in rng.integers(20_000, 600_000, size=6)]
    del a
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
"""


def test_heap_pad_keeps_freed_arrays_out_of_page_faults():
    # engines.parallel.keep_heap_pad (called by `python -m accountant`): arrays freed and made
    # again come from the kept heap, not from fresh pages of the system (measured: 70,814 page
    # faults without, 5,582 with)
    import subprocess

    def faults(mode: str) -> int:
        out = subprocess.run([sys.executable, "-c", _HEAP_CHURN, mode], capture_output=True, text=True,
                             check=True)
        return int(out.stdout.strip())

    plain, padded = faults("plain"), faults("pad")
    assert padded * 3 < plain, (padded, plain)


def test_long_sums_are_cut_the_same_whatever_the_cores(monkeypatch):
    """The blanket's long sums (windows of 4,096 values of m or more) are cut into SPLIT_PARTS
    pieces whatever the cores: one thread gives the same bits as the pool (cut by the number of
    threads, k-RR at n = 169,674 differed in the 14th digit, and N of `users` with it); the cut
    itself does change the bits (so this test can fail)."""
    import subprocess
    import sys

    code = ("import sys; from accountant import make_params; from accountant.bounds.registry import proved_delta;"
            "from accountant.engines import parallel as P; P.SPLIT_PARTS = int(sys.argv[1]);"
            "P._pool_size = (lambda: 1) if sys.argv[2] == 'serial' else P._pool_size;"
            "print(repr(proved_delta(make_params('krr', 1.0, k=4), 169674, 0.01)[0]),"
            " repr(proved_delta(make_params('oue', 1.0, k=8), 169674, 0.01)[0]))")
    out = {a: subprocess.run([sys.executable, "-c", code, *a.split()], capture_output=True, text=True,
                             check=True).stdout for a in ("2 serial", "2 threads", "1 threads")}
    assert out["2 serial"] == out["2 threads"], out
    assert out["1 threads"] != out["2 threads"], out


_FIRST_IMPORT_IN_THREADS = r"""
import sys, threading
from accountant.engines import parallel

eager = parallel.EAGER_PACKAGES
assert not any(name in sys.modules for name in eager), [n for n in eager if n in sys.modules]
seen = []
def job(name):
    # what each job sees of the packages when it starts: none partly initialised
    seen.append([(n, n in sys.modules and not sys.modules[n].__spec__._initializing) for n in eager])
    __import__(name)
    return name
gate = threading.Barrier(2)
def racing(name):
    gate.wait()
    return job(name)
parallel.MAX_THREADS = 2
out = parallel.map_ordered(racing, ["accountant.engines.blanket", "accountant.engines.blanket.engine"])
assert out == ["accountant.engines.blanket", "accountant.engines.blanket.engine"], out
assert all(ok for row in seen for _, ok in row), seen
print("ok")
"""


def test_map_ordered_imports_the_eager_packages_before_its_threads_start():
    """Two threads importing an eager package for the first time at once, one through the
    package and one through a submodule, deadlock on the import locks and one gets a partly
    initialised module (an ImportError in a command line): the map imports them first."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-c", _FIRST_IMPORT_IN_THREADS], capture_output=True,
                       text=True, env=env, timeout=120)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr[-2000:]


def test_every_eager_engine_or_bounds_package_is_imported_before_the_threads():
    """A package under accountant.engines or accountant.bounds whose ``__init__`` imports its
    own submodules (not through ``accountant.core.lazy``) is in ``EAGER_PACKAGES``."""
    root = ROOT
    eager = set()
    for init in list((root / "accountant" / "engines").rglob("__init__.py")) + \
            list((root / "accountant" / "bounds").rglob("__init__.py")):
        package = ".".join(init.parent.relative_to(root).parts)
        tree = ast.parse(init.read_text())
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and \
                    (node.module.startswith(package + ".") or
                     (node.module == package and node.level == 0)):
                eager.add(package)
    assert eager <= set(parallel.EAGER_PACKAGES), sorted(eager - set(parallel.EAGER_PACKAGES))
    assert set(parallel.EAGER_PACKAGES) <= eager, "a listed package is no longer eager"
