"""Touching a file that another user could have put there: reading, writing, trusting.

The one module for it. Reads (:func:`read_bounded`, :func:`small_text`,
:func:`feed_chunks`) never block and never go past a bound; writes
(:func:`write_atomically`) replace only a regular file or create a new one, in
one rename, and never widen a mode; whose file may be edited or believed is
one rule (:func:`check_owned`, with the owners of
:func:`runctx.checkout.rules_for`, ``SUDO_UID`` included). The one walk up the
tree is :func:`runctx.checkout.nearest_holding`, which asks the same owners.

Reading.

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

import contextlib
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


class NotOwnedError(OSError):
    """The file belongs to someone the rule does not trust, or others may write it."""


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


def usable_path(path: object) -> bool:
    """Whether ``path`` (text a command or a file gave) can name a file at all.

    No NUL, bytes for every character (a lone surrogate has none unless it
    stands for a byte), shorter than ``PATH_MAX``: a path built from a
    command's words or a checkout's files is checked before it is used.
    """
    if not isinstance(path, str) or "\0" in path or len(path) >= 4096:  # noqa: PLR2004 - PATH_MAX
        return False
    try:
        return len(os.fsencode(path)) < 4096  # noqa: PLR2004
    except UnicodeEncodeError:
        return False


def small_text(path: str, limit: int = 64 * 1024) -> str | None:
    """The UTF-8 text (bad bytes replaced) of the small regular file at ``path``.

    None when it cannot be read, is not a regular file, or is larger than ``limit``.
    """
    try:
        data, whole = read_bounded(path, limit)
    except (OSError, ValueError):  # ValueError: a NUL in the path
        return None
    return data.decode("utf-8", "replace") if whole else None


# --------------------------------------------------------------------------- writing

_WRITABLE_BY_OTHERS = stat.S_IWGRP | stat.S_IWOTH


def check_owned(path: str, owners: frozenset[int] | set[int]) -> os.stat_result | None:
    """The ``lstat`` of the regular file at ``path`` when ``owners`` may trust it; None if absent.

    Raises :class:`NotRegularFileError` for anything but a regular file (a
    link, a device, a FIFO, a socket, a directory), and :class:`NotOwnedError`
    for a file whose owner is not among ``owners`` or that its group or
    everyone may write (another user could have put its content there).
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        raise _refuse(path, info.st_mode)
    if info.st_uid not in owners:
        msg = f"owned by uid {info.st_uid}, not by you or root"
        raise NotOwnedError(errno.EPERM, msg, path)
    if info.st_mode & _WRITABLE_BY_OTHERS:
        msg = f"mode {stat.S_IMODE(info.st_mode):04o}: others may write it"
        raise NotOwnedError(errno.EPERM, msg, path)
    return info


def replaceable(path: str) -> os.stat_result | None:
    """The ``lstat`` of ``path`` when it is a regular file, None when nothing is there.

    Raises :class:`NotRegularFileError` for anything else: a write never goes
    through a link, a device, a FIFO, a socket or a directory.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        raise _refuse(path, info.st_mode)
    return info


def write_atomically(
    path: str,
    data: bytes,
    *,
    new_mode: int = 0o666,
    owners: frozenset[int] | set[int] | None = None,
    temporary_prefix: str | None = None,
) -> None:
    """Replace the regular file at ``path`` with ``data`` in one rename, or create it.

    What is there is looked at first, without following a link: only a
    regular file is replaced (:func:`replaceable`; with ``owners``, only one
    they may trust, :func:`check_owned`). A file replaced keeps its mode (never
    widened) and, where the caller may, its owner; a new one gets ``new_mode``
    less the umask. The data goes to ``.NAME<temporary_prefix>XXXXXXXX`` in the
    same directory, is flushed to disk, and the target is looked at again just
    before the rename (still the same file, or still absent). On any failure
    the temporary file is removed and ``path`` is left as it was; ``OSError``
    says why (:class:`NotRegularFileError`, :class:`NotOwnedError`).
    """
    old = replaceable(path) if owners is None else check_owned(path, owners)
    directory = os.path.dirname(os.path.abspath(path))
    name = os.path.basename(path)
    prefix = f".{name}{temporary_prefix or '.tmp-'}"
    fd, temporary = _new_file(os.path.join(directory, prefix))
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
            stream.flush()
            if old is not None:
                os.fchmod(stream.fileno(), stat.S_IMODE(old.st_mode))
                with contextlib.suppress(PermissionError):
                    os.fchown(stream.fileno(), old.st_uid, old.st_gid)
            else:
                umask = os.umask(0)
                os.umask(umask)
                os.fchmod(stream.fileno(), new_mode & ~umask)
            os.fsync(stream.fileno())
        _check_unchanged(path, old)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    sync_directory(directory)


def _new_file(prefix: str) -> tuple[int, str]:
    """A new file ``PREFIX`` + 8 random letters, open for writing, mode 0600 (as ``mkstemp``)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):
        path = prefix + os.urandom(4).hex()
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary name", prefix)


def _check_unchanged(path: str, old: os.stat_result | None) -> None:
    """Refuse the rename when what is at ``path`` is no longer what was looked at first."""
    now = replaceable(path)
    same = (now is None and old is None) or (
        now is not None and old is not None and (now.st_dev, now.st_ino) == (old.st_dev, old.st_ino)
    )
    if not same:
        msg = "changed while it was being written; left as it is now"
        raise OSError(errno.EAGAIN, msg, path)


def sync_directory(directory: str) -> None:
    """Flush the directory's entries to disk (the rename); a failure is ignored."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
