"""The dashboard's table rows: a store shared by the sessions, computed on the engines' worker
processes with a progress bar, and started ahead of time while a page computes its headline.
No formula lives here (the rows come from :mod:`accountant.interfaces.tables`).
"""
from __future__ import annotations

import threading
from typing import Sequence

import streamlit as st

from accountant.engines import parallel
from accountant.interfaces import progress as _progress
from accountant.interfaces import tables as _tables


def store_put(store: dict, items, limit: int) -> None:
    """Insert ``items`` (new key, value pairs) into a shared store, then drop the oldest
    entries beyond ``limit`` (never the ones just inserted)."""
    items = list(items)
    store.update(items)
    while len(store) > max(limit, len(items)):
        store.pop(next(iter(store)))


@st.cache_resource
def _row_store() -> dict:
    """Table rows shared by every session of this server (a plain dict, filled from the
    engine threads of :func:`rows_with_progress`; st.cache_data is per script thread)."""
    return {}


#: the curves' search tolerance: certified upper ends within 1e-4 of the smallest certified
#: eps_c (the Tables page and its downloads keep the library's 1e-9)
CURVE_RTOL = 1e-4
_ROW_STORE_MAX = 4000


class Progress:
    """A progress bar with a remaining-time estimate: ``update(done, total)``, then ``close()``.

    The bar appears only once the work has run for ``SHOW_AFTER`` seconds: a redraw that
    finishes sooner sends the browser no progress message at all (the bar's redraws cost
    Chromium CPU on the cores the engines use; docs/BENCHMARKS.md).  The estimate
    (elapsed / done x remaining) appears once a unit is done; ``unit`` names what is
    counted ("points", "candidates", "runs")."""

    #: seconds of work before the bar is shown (Streamlit's own "running" mark shows at once)
    SHOW_AFTER = 1.5
    # at most one redraw of the bar per this many seconds (the last one always): a chart's
    # 125 tasks would otherwise send 125 messages to the browser
    MIN_INTERVAL = 0.1

    def __init__(self, label: str, unit: str) -> None:
        import time

        self._clock = time.perf_counter
        self._start = self._clock()
        self.label, self.unit = label, unit
        self._slot = st.empty()  # the bar's place on the page, filled after SHOW_AFTER
        self._bar = None
        self._last = -1e9

    def update(self, done: int, total: int) -> None:
        total = max(int(total), 1)
        done = min(int(done), total)
        now = self._clock()
        if now - self._start < self.SHOW_AFTER or (done < total and now - self._last < self.MIN_INTERVAL):
            return
        self._last = now
        text = f"{self.label}: {done}/{total} {self.unit}"
        left = _progress.seconds_left(now - self._start, done, total)
        if left is not None:
            text += f", about {left:.0f} s left" if left >= 1 else ", under a second left"
        if self._bar is None:
            self._bar = self._slot.progress(done / total, text=text)
        else:
            self._bar.progress(done / total, text=text)

    def close(self) -> None:
        self._slot.empty()


# rows started ahead of time on the worker processes (:func:`prefetch_rows`), by their keys;
# only the latest prefetch's jobs are kept (older ones, whose run was interrupted, are cancelled)
_PREFETCHED: dict = {}
_PREFETCH_LOCK = threading.Lock()


def _todo(points, bounds, rtol) -> tuple[list, list]:
    store = _row_store()
    keys = [(p, tuple(bounds), float(rtol)) for p in points]  # GridPoint is frozen (hashable)
    return keys, [k for k in dict.fromkeys(keys) if k not in store]


def prefetch_rows(groups, bounds: Sequence[str], rtol: float = 1e-9) -> None:
    """Start the rows that :func:`rows_with_progress` will ask for, one job per group of
    points in the order it will ask (e.g. a chart's first draft, then the points in
    between), on the worker processes, and return at once: the page computes its headline
    meanwhile.  Jobs of an earlier prefetch not collected (a run interrupted) are cancelled."""
    jobs, seen = {}, set()
    for points in groups:
        todo = [k for k in _todo(points, bounds, rtol)[1] if k not in seen]
        seen.update(todo)
        if len(todo) >= 2:
            jobs[tuple(todo)] = _tables.start_rows([k[0] for k in todo], tuple(bounds), float(rtol))
    with _PREFETCH_LOCK:
        for old in _PREFETCHED.values():
            parallel.cancel(old.futures)
        _PREFETCHED.clear()
        _PREFETCHED.update(jobs)


def rows_with_progress(points, bounds: Sequence[str], label: str = "Computing",
                       rtol: float = 1e-9) -> list[dict]:
    """tables.compute_row for every point (cached per input), rows missing from the cache
    computed on the engines' worker processes (:func:`tables.compute_rows` with
    ``processes=True``: one task per point and bound; the searches hold the GIL, so two
    processes draw a chart about twice as fast as two threads; rows started by
    :func:`prefetch_rows` are collected), with a progress bar and a time-left estimate
    while they run."""
    store = _row_store()
    keys, todo = _todo(points, bounds, rtol)
    with _PREFETCH_LOCK:
        job = _PREFETCHED.pop(tuple(todo), None)
    bar = Progress(label, "bound evaluations") if len(todo) > 1 else None
    update = bar.update if bar is not None else None
    if job is not None:
        rows = _tables.finish_rows(job, progress=update)
    else:
        rows = _tables.compute_rows([k[0] for k in todo], tuple(bounds), float(rtol), progress=update,
                                    processes=True)
    store_put(store, zip(todo, rows), _ROW_STORE_MAX)
    if bar is not None:
        bar.close()
    return [dict(store[k]) for k in keys]


def rows_cached(points, bounds: Sequence[str], rtol: float = 1e-9) -> bool:
    """Whether :func:`rows_with_progress` would answer from its store alone."""
    store = _row_store()
    bounds, rtol = tuple(bounds), float(rtol)
    return all((p, bounds, rtol) in store for p in points)


