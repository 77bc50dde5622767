"""Provenance of an exported table: the tool version, the git commit and the run's settings,
and the comment lines that carry them into a file.
"""
from __future__ import annotations
import os
from typing import Optional


DISTRIBUTION = "shuffle-dp-toolkit"  # [project] name in pyproject.toml
# the source tree's root: accountant/interfaces/tables/provenance.py -> three levels up
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def tool_version() -> str:
    """The version of the installed distribution ``shuffle-dp-toolkit``; outside an
    installation the ``version`` of the source tree's pyproject.toml; "unknown" only if
    neither exists."""
    try:
        from importlib.metadata import version

        return version(DISTRIBUTION)
    except Exception:  # not installed as a distribution: the source tree's pyproject
        try:
            with open(os.path.join(_ROOT, "pyproject.toml"), encoding="utf-8") as fh:
                for line in fh:
                    if line.startswith("version"):
                        return line.split("=", 1)[1].strip().strip('"')
        except OSError:
            pass
    return "unknown"


def git_commit() -> Optional[str]:
    """The commit of the source tree this module runs from (``-dirty`` if modified), or
    None outside a git checkout."""
    import subprocess

    try:
        head = subprocess.run(["git", "-C", _ROOT, "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=10)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", _ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10)
        return head.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return None


def provenance(command: Optional[str] = None, rtol: float = 1e-9, method: str = "float",
               **extra) -> dict:
    """How a table was made: tool version, git commit (None outside a checkout), the exact
    command line, UTC date, rtol and method (and any ``extra`` fields)."""
    import datetime

    meta = {"tool": "accountant", "version": tool_version(), "git_commit": git_commit(),
            "command": command, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
                timespec="seconds"), "rtol": rtol, "method": method}
    meta.update(extra)
    return meta


def meta_lines(meta: Optional[dict]) -> list[str]:
    if not meta:
        return []
    return [f"{k}: {'n/a' if v is None else v}" for k, v in meta.items()]
