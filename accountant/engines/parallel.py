"""Ordered maps over a few threads or worker processes, for the engines' work.

NumPy releases the GIL inside large array operations, so the chunks of one exact
evaluation (or the distinct rounds of a schedule) run concurrently on a small machine
(:func:`map_ordered`, threads).  Many small certified searches (a chart's 25 points x 5
bounds) are mostly Python and hold the GIL: two threads run them no faster than one
(docs/BENCHMARKS.md), so :func:`map_processes`
runs them on a persistent pool of worker processes instead.  Results come back in input
order, so sums accumulated from them are bit-identical to the serial ones.  A call made
from inside a worker (thread or process) runs serially (no nested pools).
"""
from __future__ import annotations

import importlib
import os
import sys
import threading
from contextlib import contextmanager
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Callable, Iterable, Optional, TypeVar

T = TypeVar("T")
R = TypeVar("R")

# at most this many threads per call (the machines this targets have 2-8 cores)
MAX_THREADS = 4
# a long sum is cut into this many pieces whatever the cores (run on threads() threads): the
# order of summation, and so every number, is the same on every machine and inside a worker
# process (cut by threads(), N of `users` could differ between a 2-core and a 4-core machine,
# both certified); 2, the cut of the 2-core machines the documented numbers come from
SPLIT_PARTS = 2

_state = threading.local()


def threads() -> int:
    """Threads a call may use: min(MAX_THREADS, cores), 1 inside a worker."""
    if getattr(_state, "inside", False) or _IN_PROCESS_WORKER:
        return 1
    return _pool_size()


def _pool_size() -> int:
    """min(MAX_THREADS, cores), at least 1: the threads of the pool of :func:`map_ordered`."""
    return max(1, min(MAX_THREADS, os.cpu_count() or 1))


# Packages whose ``__init__`` imports their own submodules.  Two threads importing one of them
# for the first time at once, one through the package and one through a submodule, hold each
# other's import locks; Python breaks that deadlock by handing one thread the partly
# initialised module ("cannot import name ... from partially initialized module").  The
# engines import lazily (a command line pays only for what it runs), so a threaded map
# imports these in the caller's thread before any job starts.  A package that resolves its
# names on first use (PEP 562, ``accountant.core.lazy``) needs no entry; a test
# (tests/accountant/engines/test_parallel.py) fails on an eager package under
# accountant.engines or accountant.bounds missing here.
EAGER_PACKAGES = ("accountant.engines.blanket", "accountant.engines.pair", "accountant.bounds.laws")


def _import_eager_packages() -> None:
    for name in EAGER_PACKAGES:   # a dictionary lookup once imported
        importlib.import_module(name)


def map_ordered(fn: Callable[[T], R], items: Iterable[T],
                progress: Optional[Callable[[int, int], None]] = None) -> list[R]:
    """``[fn(x) for x in items]``, on up to :func:`threads` threads.

    ``progress(done, total)``, if given, is called in the caller's thread each time an
    item finishes (in completion order)."""
    items = list(items)
    workers = min(threads(), len(items))
    if workers <= 1:
        out = []
        for x in items:
            out.append(fn(x))
            if progress is not None:
                progress(len(out), len(items))
        return out

    def run(x: T) -> R:
        _state.inside = True
        try:
            return fn(x)
        finally:
            _state.inside = False

    _import_eager_packages()
    futures = [_thread_pool().submit(run, x) for x in items]
    try:
        if progress is not None:
            for done, _ in enumerate(as_completed(futures), 1):
                progress(done, len(items))
        return [f.result() for f in futures]
    finally:
        for f in futures:   # after a failure: the items not started are not run
            f.cancel()


_threads = None
_threads_lock = threading.Lock()


def _thread_pool() -> ThreadPoolExecutor:
    """The persistent pool of :func:`map_ordered` (``threads()`` threads, started on first
    use): a pool per call started and joined its threads each time, which cost 3.5 s of system
    time in a minimum batch size over OUE rounds (1196 threads for 576 calls).  Tasks never
    submit to it (a call inside a worker runs serially), so it cannot deadlock."""
    global _threads
    with _threads_lock:
        if _threads is None:
            _threads = ThreadPoolExecutor(max_workers=_pool_size(),
                                          thread_name_prefix="accountant")
        return _threads


# glibc's malloc in a command line process: arrays up to HEAP_MMAP_THRESHOLD (glibc's largest,
# 32 MB on 64-bit) come from the heap, not from a mapping of their own, and the heap keeps
# HEAP_TOP_PAD of free memory at its top instead of returning it to the system.  The engines'
# arrays of a few 100 kB to a few MB are freed and asked for again thousands of times (on the
# threads too, whose arenas are heaps of their own); with glibc's defaults each new one was
# fresh pages from the system, faulted in one by one: minimum batch sizes took 0.7-1.0 million
# page faults and 1.3-1.6 s of system time (4-RR, 1000 rounds, n = 2.2e6; OUE, 10 rounds,
# n = 1.7e4); with these, 28,000-48,000 faults and 0.1-0.2 s, peak memory 135 -> 139 MB and
# 204 -> 222 MB (load 1.8-3.6)
HEAP_MMAP_THRESHOLD = 32 << 20
HEAP_TOP_PAD = 64 << 20
M_TOP_PAD, M_MMAP_THRESHOLD = -2, -3


def keep_heap_pad(pad: int = HEAP_TOP_PAD, threshold: int = HEAP_MMAP_THRESHOLD) -> bool:
    """Ask glibc's malloc to serve arrays up to ``threshold`` bytes from the heap and to keep
    ``pad`` bytes of it free instead of returning them to the system (``mallopt``); True if
    it did both.  Values are unchanged (it is where freed memory goes, not what is computed);
    a C library without ``mallopt`` (not glibc) is left as it is.  Called by ``python -m
    accountant``, a process of its own; a library caller decides for its own process."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return mallopt(M_MMAP_THRESHOLD, int(threshold)) == 1 and mallopt(M_TOP_PAD, int(pad)) == 1


# ----------------------------------------------------------------------------- processes
# set in the worker processes (their engine calls then run serially: the pool already keeps
# every core busy)
_IN_PROCESS_WORKER = False
_pool = None
_atexit_registered = False
_pool_lock = threading.Lock()
# ACCOUNTANT_PROCESSES=0 in the environment turns the process pool off (threads instead)
PROCESSES_ENV = "ACCOUNTANT_PROCESSES"


def _worker_init() -> None:
    """Mark the process as a worker; Ctrl-C belongs to the parent (a worker printing its own
    KeyboardInterrupt traceback would only add noise), and the worker dies with its parent
    (:func:`accountant.core.limits.worker_init`)."""
    from accountant.core.limits import worker_init

    global _IN_PROCESS_WORKER
    _IN_PROCESS_WORKER = True
    worker_init()


def processes_enabled() -> bool:
    """Whether :func:`map_processes` uses worker processes: more than one core, not inside
    a worker, and not turned off by ``ACCOUNTANT_PROCESSES=0``."""
    return (os.environ.get(PROCESSES_ENV, "1") != "0" and threads() > 1
            and not getattr(_state, "inside", False))


# the BLAS libraries' thread counts: one per worker (the workers are the parallel units; BLAS
# threads of their own only contend for the same cores: OpenBLAS's spinning threads multiply
# the CPU time of the OUE curve's matrix products, docs/BENCHMARKS.md)
_BLAS_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _start_fork_server_with_one_blas_thread() -> None:
    """Start the fork server (it imports the preload, NumPy included, once) with one BLAS
    thread in its environment: every worker forked from it inherits that."""
    import multiprocessing.forkserver

    saved = {k: os.environ.get(k) for k in _BLAS_THREAD_VARS}
    try:
        for k in _BLAS_THREAD_VARS:
            os.environ[k] = "1"
        multiprocessing.forkserver.ensure_running()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _get_pool(preload: tuple[str, ...]):
    """The persistent pool (created on first use): ``threads()`` workers forked from a
    ``forkserver`` that has imported ``preload`` (a fresh interpreter, so the caller's
    threads do not matter, and each new worker starts in milliseconds)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(list(preload))
            _start_fork_server_with_one_blas_thread()
            _pool = ProcessPoolExecutor(max_workers=threads(), mp_context=ctx, initializer=_worker_init)
            global _atexit_registered
            if not _atexit_registered:  # stop the workers before the interpreter tears down
                import atexit

                atexit.register(shutdown_processes)
                _atexit_registered = True
        return _pool


def shutdown_processes() -> None:
    """Stop the worker processes (the next :func:`map_processes` starts fresh ones, with
    cold caches: the benchmarks use this)."""
    global _pool
    with _pool_lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


@contextmanager
def _main_not_reimported():
    """While workers start (in ``submit``), hide the caller's ``__main__`` from
    multiprocessing: a worker would otherwise run the caller's script again as
    ``__mp_main__`` (a script without a ``__main__`` guard would run twice, or recurse).
    The tasks are module-level functions of importable modules; they never need it."""
    main = sys.modules.get("__main__")
    saved = {a: main.__dict__[a] for a in ("__file__", "__spec__") if main is not None and a in main.__dict__}
    try:
        if main is not None:
            main.__dict__.pop("__file__", None)
            main.__dict__["__spec__"] = None
        yield
    finally:
        if main is not None:
            main.__dict__.pop("__spec__", None)
            main.__dict__.update(saved)


def submit_processes(fn: Callable[[T], R], items: Iterable[T],
                     preload: tuple[str, ...] = ("accountant",)) -> Optional[list]:
    """Start ``fn(x)`` for every item on the persistent pool of worker processes and return
    the futures at once (``fn`` a module-level function; ``fn``, items and results
    picklable), or None when :func:`processes_enabled` is false or the pool cannot start (no
    /dev/shm or sem_open, a process limit).  :func:`gather_processes` collects them; the
    caller may do other work in between (the dashboard computes its headline)."""
    items = list(items)
    if not items or not processes_enabled():
        return None
    from concurrent.futures.process import BrokenProcessPool

    try:
        with _main_not_reimported():
            pool = _get_pool(tuple(preload))
            return [pool.submit(fn, x) for x in items]
    except (BrokenProcessPool, OSError, ImportError):
        shutdown_processes()
        return None


def gather_processes(fn: Callable[[T], R], items: Iterable[T], futures: Optional[list],
                     progress: Optional[Callable[[int, int], None]] = None) -> list[R]:
    """The results of :func:`submit_processes`' ``futures`` for ``items``, in order; the same
    work on threads (:func:`map_ordered`) when ``futures`` is None or the pool broke (a
    worker killed).  Exceptions raised by ``fn`` reach the caller as in a serial loop; if
    the caller is interrupted (an exception while waiting, e.g. a dashboard rerun), the
    tasks not yet started are cancelled, so that they do not hold the workers.

    ``progress(done, total)`` is called in the caller's thread in completion order."""
    from concurrent.futures.process import BrokenProcessPool

    items = list(items)
    if futures is None:
        return map_ordered(fn, items, progress)
    try:
        if progress is not None:
            for done, _ in enumerate(as_completed(futures), 1):
                progress(done, len(items))
        return [f.result() for f in futures]
    except BrokenProcessPool:  # a worker died (killed): the same work on threads
        shutdown_processes()
        return map_ordered(fn, items, progress)
    except BaseException:
        cancel(futures)
        raise


def cancel(futures: Optional[list]) -> None:
    """Cancel the futures of :func:`submit_processes` that have not started."""
    for f in futures or ():
        f.cancel()


def map_processes(fn: Callable[[T], R], items: Iterable[T],
                  progress: Optional[Callable[[int, int], None]] = None,
                  preload: tuple[str, ...] = ("accountant",)) -> list[R]:
    """``[fn(x) for x in items]`` on the persistent pool of worker processes
    (:func:`submit_processes` then :func:`gather_processes`); on threads for fewer than two
    items, when :func:`processes_enabled` is false or when the pool cannot start or breaks:
    the results are the same."""
    items = list(items)
    if len(items) < 2:
        return map_ordered(fn, items, progress)
    return gather_processes(fn, items, submit_processes(fn, items, preload), progress)
