"""Reading a file that another user could have put there: never blocking, never unbounded.

A ``pyproject.toml`` in a shared parent, an agent's settings file: anyone who
can write the directory can make it a FIFO (an ``open`` that never returns), a
device (an ``open`` with side effects), a socket, or a file of any size. So
such a file is looked at before it is opened (``stat``: only a regular file is
opened at all), opened with ``O_NONBLOCK``, checked again on the open
descriptor (``fstat``: still a regular file, still the same one), and read
with a size bound.

Standard library only, loaded on the hook's path.
"""

from __future__ import annotations

import errno
import os
import stat

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 64 * 1024


class NotRegularFileError(OSError):
    """The path names something other than a regular file (a FIFO, a device, a socket)."""


def kind_of(mode: int) -> str:
    """A file type in words: ``a FIFO``, ``a socket``, ``a directory``..."""
    kinds = (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISLNK, "a symbolic link"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def _refuse(path: str, mode: int) -> NotRegularFileError:
    return NotRegularFileError(errno.EINVAL, f"{kind_of(mode)}, not a regular file", path)


def read_bounded(path: str, limit: int) -> tuple[bytes, bool]:
    """At most ``limit`` bytes of the regular file at ``path``, and whether that is all of it.

    Never blocks. (A plain tuple: ``typing`` is not loaded on the hook's path.)

    Raises :class:`NotRegularFileError` for anything but a regular file (which
    is then never opened, or closed at once if it was swapped in between), and
    ``OSError`` as ``open`` and ``read`` do (``FileNotFoundError`` and so on).
    """
    before = os.stat(path)
    if not stat.S_ISREG(before.st_mode):
        raise _refuse(path, before.st_mode)
    fd = os.open(path, _FLAGS)
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (
            before.st_dev,
            before.st_ino,
        ):
            raise _refuse(path, now.st_mode)
        chunks = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    return data[:limit], len(data) <= limit


def contains(path: str, needle: bytes, limit: int) -> bool | None:
    """Whether the regular file at ``path`` holds ``needle`` in its first ``limit`` bytes.

    Read in chunks (memory stays small); None when the file is longer than
    ``limit`` and the needle was not in its first ``limit`` bytes.
    """
    before = os.stat(path)
    if not stat.S_ISREG(before.st_mode):
        raise _refuse(path, before.st_mode)
    fd = os.open(path, _FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _refuse(path, os.fstat(fd).st_mode)
        tail = b""
        seen = 0
        while seen < limit:
            chunk = os.read(fd, min(_CHUNK, limit - seen))
            if not chunk:
                return False
            seen += len(chunk)
            if needle in tail + chunk:
                return True
            tail = (tail + chunk)[-(len(needle) - 1) :] if len(needle) > 1 else b""
        return None if os.read(fd, 1) else False
    finally:
        os.close(fd)
