"""Writing files whole or not at all."""
from __future__ import annotations

import os
import stat
import tempfile
from typing import Union


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: str, data: Union[str, bytes]) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same directory and
    ``os.replace``: readers see the old file or the complete new one, never a part.

    The new file gets the mode of the file it replaces, or the mode a plain ``open``
    would give (0666 minus the umask), not mkstemp's 0600.  A symlinked ``path`` is
    written through: its target is replaced and the link kept.  The temporary file is
    removed on every exit path (exceptions, KeyboardInterrupt, and SIGTERM when the
    command runs under :func:`accountant.limits.guarded`).
    """
    if os.path.islink(path):
        path = os.path.realpath(path)
    directory = os.path.dirname(os.path.abspath(path))
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=os.path.splitext(path)[1])
    try:
        os.fchmod(fd, mode)
        if isinstance(data, bytes):
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
