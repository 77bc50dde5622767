"""The dashboard's rows (app/rows.py): rows started ahead of time on the worker processes
(`prefetch_rows`, while a page computes its headline) are the rows `compute_rows` gives, each
prefetched job is collected once, and an interrupted run's jobs are cancelled by the next."""
import os
import sys

import pytest
from tests.paths import REPO_ROOT

import streamlit  # noqa: E402,F401  (a dependency: its absence fails the import)
sys.path.insert(0, os.path.join(REPO_ROOT, "app"))
import common  # noqa: E402
from app import rows as approws  # noqa: E402
from accountant.interfaces import tables  # noqa: E402


def _points(n):
    eps0s = [0.1 + 0.45 * i for i in range(9)]
    return tables.build_grid([n], [4], eps0s, [1e-6], "collision", "paper")


def test_prefetched_rows_are_the_library_rows_and_are_collected_once():
    bounds = ("blanket", "lower", "paper", "clone")
    points = _points(12_345)
    draft = points[::4]
    approws._row_store().clear()
    common.prefetch_rows([draft, points], bounds, 1e-4)
    assert len(approws._PREFETCHED) == 2  # the draft, then the points in between
    got_draft = common.rows_with_progress(draft, bounds, rtol=1e-4)
    got = common.rows_with_progress(points, bounds, rtol=1e-4)
    assert not approws._PREFETCHED       # both jobs collected
    want = tables.compute_rows(points, bounds, 1e-4)
    assert got == want and got_draft == [want[i] for i in range(0, len(points), 4)]
    assert all(r["lower_epsilon"] <= r["proved_epsilon"] for r in got)


def test_a_new_prefetch_cancels_the_jobs_of_an_interrupted_run():
    bounds = ("blanket", "lower", "paper", "clone")
    approws._row_store().clear()
    common.prefetch_rows([_points(23_456)], bounds, 1e-4)
    old = list(approws._PREFETCHED.values())
    common.prefetch_rows([_points(34_567)], bounds, 1e-4)  # the run above never collected its rows
    if old[0].futures is not None:  # on processes: what had not started is cancelled
        assert all(f.cancelled() or f.done() or f.running() for f in old[0].futures)
        assert any(f.cancelled() for f in old[0].futures)
    rows = common.rows_with_progress(_points(34_567), bounds, rtol=1e-4)
    assert rows == tables.compute_rows(_points(34_567), bounds, 1e-4)


class _Slot:
    """Stands in for st.empty(): records what the page would send to the browser."""

    def __init__(self, log):
        self.log = log

    def progress(self, value, text=""):
        self.log.append(("progress", round(value, 3), text))
        return self

    def empty(self):
        self.log.append(("empty",))


def test_progress_bar_appears_only_after_show_after_seconds(monkeypatch):
    """A redraw that ends within SHOW_AFTER seconds sends no progress message at all; a longer
    one shows the bar (throttled to one redraw per MIN_INTERVAL, the last update always) with
    its time-left estimate, and close() clears the slot."""
    log, now = [], [0.0]
    monkeypatch.setattr(approws.st, "empty", lambda: _Slot(log))
    monkeypatch.setattr("time.perf_counter", lambda: now[0])
    bar = approws.Progress("Computing", "bound evaluations")
    for i in range(1, 101):  # 100 updates over 1.4 s: under SHOW_AFTER
        now[0] = 0.014 * i
        bar.update(i, 100)
    bar.close()
    assert log == [("empty",)]
    log.clear()
    now[0] = 0.0
    bar = approws.Progress("Computing", "bound evaluations")
    for i in range(1, 301):  # 300 updates over 3 s
        now[0] = 0.01 * i
        bar.update(i, 300)
    bar.close()
    shown = [e for e in log if e[0] == "progress"]
    assert shown[0][1] == pytest.approx(150 / 300, abs=0.01)  # first shown at 1.5 s
    assert len(shown) <= 1 + (3.0 - approws.Progress.SHOW_AFTER) / approws.Progress.MIN_INTERVAL + 1
    assert shown[-1][1] == 1.0 and "300/300 bound evaluations" in shown[-1][2]
    assert "left" in shown[0][2] and log[-1] == ("empty",)
