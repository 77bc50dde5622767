"""Ordered map over a few threads, for the engines' array work.

NumPy releases the GIL inside large array operations, so the chunks of one exact
evaluation (or the distinct rounds of a schedule) run concurrently on a small machine.
Results come back in input order, so sums accumulated from them are bit-identical to
the serial ones.  A call made from inside a worker runs serially (no nested pools).
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Callable, Iterable, Optional, TypeVar

T = TypeVar("T")
R = TypeVar("R")

# at most this many threads per call (the machines this targets have 2-8 cores)
MAX_THREADS = 4

_state = threading.local()


def threads() -> int:
    """Threads a call may use: min(MAX_THREADS, cores), 1 inside a worker."""
    if getattr(_state, "inside", False):
        return 1
    return max(1, min(MAX_THREADS, os.cpu_count() or 1))


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

    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(run, x) for x in items]
        if progress is not None:
            for done, _ in enumerate(as_completed(futures), 1):
                progress(done, len(items))
        return [f.result() for f in futures]
