"""Reading a file that another user could have put there: never blocking, never unbounded.

A ``pyproject.toml`` in a shared parent, an agent's settings file: anyone who
can write the directory can make it a FIFO (an ``open`` that never returns), a
device (an ``open`` with side effects), a socket, or a file of any size. So
such a file is looked at before it is opened (``stat``: only a regular file is
opened at all), opened with ``O_NONBLOCK``, checked again on the open
descriptor (``fstat``: still a regular file, still the same one), and read
with a size bound. It is read no further than the size it had when it was
looked at, and one that says it is empty is never opened: the pseudo-files of
``/proc`` say so, and some of them are consumed by reading (``/proc/kmsg``,
where a link in a shared directory could point a root reader).

Standard library only, loaded on the hook's path.
"""

from __future__ import annotations

import errno
import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

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


def _open_regular(path: str, *, sized: bool = True) -> tuple[int, int]:
    """A descriptor of the regular file at ``path``, opened without blocking, and its size.

    Looked at first (``stat``: anything else is never opened), then checked
    again on the descriptor (``fstat``: still a regular file, still the same one).
    ``sized``: a file of size 0 is not opened at all (the descriptor is then
    -1); otherwise (a ``/proc`` file runctx names itself, whose size always
    says 0) the size given is -1: unknown, read to the end or the bound.
    """
    before = os.stat(path)
    if not stat.S_ISREG(before.st_mode):
        raise _refuse(path, before.st_mode)
    if sized and before.st_size == 0:
        return -1, 0
    fd = os.open(path, _FLAGS)
    now = os.fstat(fd)
    if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (before.st_dev, before.st_ino):
        os.close(fd)
        raise _refuse(path, now.st_mode)
    return fd, before.st_size if sized else -1


def read_bounded(path: str, limit: int, *, sized: bool = True) -> tuple[bytes, bool]:
    """At most ``limit`` bytes of the regular file at ``path``, and whether that is all of it.

    Never blocks. (A plain tuple: ``typing`` is not loaded on the hook's path.)
    ``sized=False`` is for the files of ``/proc`` runctx reads on purpose
    (``environ``, ``mountinfo``): their size says 0, and they are read to the
    end or the bound; every other file is read no further than its size.

    Raises :class:`NotRegularFileError` for anything but a regular file (which
    is then never opened, or closed at once if it was swapped in between), and
    ``OSError`` as ``open`` and ``read`` do (``FileNotFoundError`` and so on).
    """
    fd, stated = _open_regular(path, sized=sized)
    if fd < 0:
        return b"", True
    bound = limit + 1 if stated < 0 else min(limit + 1, stated)
    try:
        chunks = []
        size = 0
        while size < bound:
            chunk = os.read(fd, min(_CHUNK, bound - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    return data[:limit], len(data) <= limit


def feed_chunks(path: str, limit: int, consume: Callable[[bytes], bool]) -> bool | None:
    """Give the regular file at ``path`` to ``consume`` in chunks, at most ``limit`` bytes of it.

    Memory stays at one chunk. True as soon as ``consume`` returns True;
    False when the file ended before (every byte was given); None when the
    file goes on past ``limit``. Refuses what :func:`read_bounded` refuses.
    """
    fd, stated = _open_regular(path)
    if fd < 0:
        return False
    bound = min(limit, stated)
    try:
        seen = 0
        while seen < bound:
            chunk = os.read(fd, min(_CHUNK, bound - seen))
            if not chunk:
                return False
            seen += len(chunk)
            if consume(chunk):
                return True
        return None if stated > limit else False
    finally:
        os.close(fd)
