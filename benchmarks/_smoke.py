"""The smoke mode every benchmark script honours, so that the test suite runs each one.

``BENCH_SMOKE=1 python benchmarks/NAME.py`` runs the script at its smallest size (one case,
one repetition): the numbers mean nothing, but the script's code path is exercised, so a
benchmark cannot rot unnoticed (``tests/test_benchmarks.py`` runs every script this way).
"""
from __future__ import annotations

import os

#: true when the environment asks for the smallest run (``BENCH_SMOKE`` set and not "0")
SMOKE = os.environ.get("BENCH_SMOKE", "") not in ("", "0")


def sizes(full, smoke):
    """``smoke`` in smoke mode, else ``full`` (the script's real cases)."""
    return smoke if SMOKE else full
