"""The command line in-process, for tests that check what a command prints without paying a
subprocess (the subprocess entry points: tests/accountant/interfaces/test_cli.py)."""
from __future__ import annotations

import contextlib
import io
import subprocess


def run_accountant(*argv) -> subprocess.CompletedProcess:
    """``main``, what ``python -m accountant`` runs, with its exit status, stdout and stderr."""
    from accountant.interfaces.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(argv))
    return subprocess.CompletedProcess(list(argv), rc, out.getvalue(), err.getvalue())
