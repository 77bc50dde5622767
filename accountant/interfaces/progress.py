"""One progress bar for every long command-line run (``table``, ``compare``, ``fe-table``).

A single line on stderr: ``[#####.....] done/total unit, 12.3s, about 40s left``, drawn
only once the run has taken ``delay`` seconds (a quick run prints nothing), redrawn at most
every ``interval`` seconds, finished with a newline when anything was drawn.  All state
lives in the object.

Drawn only on a terminal: with the default stream (stderr) the bar is silent when stderr
is not a TTY (a redirected or captured log, CI, ``2> file``), so logs hold messages, not
carriage-return frames.  A stream passed explicitly is always drawn on.
"""
from __future__ import annotations

import sys
import time
from typing import Callable, Optional, TextIO


def seconds_left(elapsed: float, done: int, total: int) -> Optional[float]:
    """Estimate of the remaining time at a constant rate (None before the first unit or
    once finished).  Shared by the command-line bar and the dashboard's bar."""
    if not 0 < done < total:
        return None
    return elapsed / done * (total - done)


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # closed or not a file
        return False


class ProgressBar:
    """``update(done[, total])`` after each unit of work, ``close()`` at the end.

    Parameters
    ----------
    total : number of units (>= 0).  unit : what is counted ("rows", "cells").
    stream : where to draw (default ``sys.stderr``, and then only if it is a terminal).
    clock : seconds (injectable for tests).
    delay, interval : draw only after ``delay`` s, then at most every ``interval`` s.
    """

    WIDTH = 30

    def __init__(self, total: int, unit: str = "rows", stream: Optional[TextIO] = None,
                 clock: Callable[[], float] = time.perf_counter, delay: float = 1.0,
                 interval: float = 0.25) -> None:
        self.total = max(int(total), 0)
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = stream is not None or _is_terminal(self.stream)
        self.clock = clock
        self.delay, self.interval = float(delay), float(interval)
        self.start = clock()
        self.done = 0
        self._last: Optional[float] = None  # time of the last draw (None: nothing drawn)

    def text(self, now: float) -> str:
        """The bar's line at time ``now`` (without the carriage return)."""
        elapsed = now - self.start
        fill = int(self.WIDTH * self.done / max(self.total, 1))
        out = (f"[{'#' * fill}{'.' * (self.WIDTH - fill)}] {self.done}/{self.total} {self.unit}, "
               f"{elapsed:.1f}s")
        left = seconds_left(elapsed, self.done, self.total)
        if left is not None:
            out += f", about {left:.0f}s left"
        return out

    def update(self, done: int, total: Optional[int] = None) -> None:
        if total is not None:
            self.total = max(int(total), 0)
        self.done = min(max(int(done), 0), self.total)
        if not self.enabled:
            return
        now = self.clock()
        if now - self.start < self.delay:
            return
        if self.done < self.total and self._last is not None and now - self._last < self.interval:
            return
        self._last = now
        self.stream.write("\r" + self.text(now))
        if self.done >= self.total:
            self.stream.write("\n")
            self._last = -1.0  # finished line written
        self.stream.flush()

    def close(self) -> None:
        """End the line if a bar was drawn and not finished."""
        if self._last is not None and self._last >= 0.0:
            self.stream.write("\n")
            self.stream.flush()
            self._last = -1.0

    def __call__(self, done: int, total: Optional[int] = None) -> None:
        """So the bar can be passed where a ``progress(done, total)`` callback is expected."""
        self.update(done, total)
