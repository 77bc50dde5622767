"""Writing files whole or not at all; reading input files of bounded size."""
from __future__ import annotations

import os
import stat
import tempfile
from typing import Sequence, Tuple, Union


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _stage(path: str, data: Union[str, bytes]) -> Tuple[str, str]:
    """Write ``data`` to a temporary file beside ``path`` (through a symlink: beside its
    target), with the mode of the file it will replace or that of a plain ``open`` (0666
    minus the umask), not mkstemp's 0600; returns (target, temporary).  The temporary
    file is removed if writing fails."""
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
        with os.fdopen(fd, "wb") as fh:
            if not isinstance(data, (str, bytes)):
                raise TypeError(f"data must be str or bytes, got {type(data).__name__}")
            fh.write(data if isinstance(data, bytes) else data.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        _unlink(tmp)
        raise
    return path, tmp


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def write_atomic(path: str, data: Union[str, bytes]) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same directory and
    ``os.replace``: readers see the old file or the complete new one, never a part.

    The new file gets the mode of the file it replaces, or the mode a plain ``open``
    would give (0666 minus the umask), not mkstemp's 0600.  A symlinked ``path`` is
    written through: its target is replaced and the link kept.  The temporary file is
    removed on every exit path (exceptions, KeyboardInterrupt, and SIGTERM when the
    command runs under :func:`accountant.core.limits.guarded`).
    """
    path, tmp = _stage(path, data)
    try:
        os.replace(tmp, path)
    except BaseException:
        _unlink(tmp)
        raise


def write_atomic_group(items: Sequence[Tuple[str, Union[str, bytes]]]) -> None:
    """Write several files whole, all or none (a .tex table and its .bib).

    Every file is first written to a temporary file beside its target (the step that
    can fail on a full disk); the targets are then replaced one after the other.  If a
    replacement fails, the targets already replaced get their old content back (or are
    removed if they did not exist), so readers never see one new file with an old one.
    """
    staged: list = []  # [target, tmp, backup or None]
    try:
        for path, data in items:
            staged.append(list(_stage(path, data)) + [None])
        for entry in staged:
            path = entry[0]
            if os.path.exists(path):
                fd, bak = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), prefix=".bak-")
                entry[2] = bak
                with os.fdopen(fd, "wb") as dst, open(path, "rb") as src:
                    dst.write(src.read())
        done: list = []
        try:
            for path, tmp, _ in staged:
                os.replace(tmp, path)
                done.append(path)
        except BaseException:
            for path, _, bak in staged:
                if path in done:
                    if bak is not None:
                        os.replace(bak, path)
                    else:
                        os.unlink(path)
            raise
    finally:
        for _, tmp, bak in staged:
            for f in (tmp, bak):
                if f is not None and os.path.exists(f):
                    _unlink(f)


def read_bounded(path: str, limit: int, name: str) -> bytes:
    """The bytes of the input file ``path``, at most ``limit`` of them: the size is checked
    before reading and a device or pipe without a size (``/dev/zero``) is read to ``limit + 1``
    bytes at most; ValueError naming ``name`` (the option) on every problem (a directory, a
    missing or unreadable file, too many bytes)."""
    if os.path.isdir(path):
        raise ValueError(f"{name}: {path!r} is a directory, expected a file")
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > limit:
                raise ValueError(f"{name}: file {path!r} has {size:,} bytes, more than the limit of {limit:,}")
            raw = fh.read(limit + 1)
    except OSError as exc:
        raise ValueError(f"{name}: cannot read {path!r}: {exc.strerror or exc}") from None
    if len(raw) > limit:
        raise ValueError(f"{name}: {path!r} has more than the limit of {limit:,} bytes")
    return raw


def read_json(path: str, limit: int, name: str):
    """The JSON data of ``path`` (:func:`read_bounded`), UTF-8; ValueError naming ``name`` on
    bad text, bad JSON or nesting beyond the parser's recursion limit."""
    import json

    raw = read_bounded(path, limit, name)
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError(f"{name}: {path!r} is not a UTF-8 text (JSON) file") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{name}: invalid JSON in {path!r} at line {exc.lineno}: {exc.msg}") from None
    except RecursionError:
        raise ValueError(f"{name}: {path!r}: JSON nested too deeply") from None

