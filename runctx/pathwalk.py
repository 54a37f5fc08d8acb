"""Walking up from a directory to the nearest marker, in time linear in the path's depth.

Anyone can make a directory thousands of levels deep and run a process in it,
or send a hook a ``cwd`` of hundreds of thousands of components. A walk that
asks the kernel about each ancestor by its full path costs depth times depth;
this one holds a descriptor of one directory at a time, asks about markers
relative to it (``fstatat``) and steps to its parent through ``..``, so every
step costs the same. A path longer than the kernel's ``PATH_MAX`` names
nothing the kernel would open, and is refused before any work.

A marker counts when it is a directory or a regular file (a symlink is
followed to see which, never opened): a FIFO, a socket or a device named
``pyproject.toml`` is no project. Nothing here opens a marker.

Standard library only, loaded on the hook's path.
"""

from __future__ import annotations

import os
import stat

PATH_MAX = 4096
"""Linux's limit on a path's length in bytes, its terminating NUL included."""

_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | getattr(os, "O_DIRECTORY", 0)
_DIR_FLAGS |= getattr(os, "O_CLOEXEC", 0)


def too_long(path: str) -> bool:
    """Whether ``path`` is too long for the kernel to resolve (``ENAMETOOLONG``)."""
    return len(path) >= PATH_MAX or len(os.fsencode(path)) >= PATH_MAX


def resolve(path: str) -> str:
    """``os.path.realpath(path)``, in one resolution by the kernel where it can.

    The kernel opens the directory (one walk of the path) and names what it
    opened (``/proc/self/fd/N``); :func:`os.path.realpath`, which asks about
    every prefix in turn, is the fallback (no procfs, a path that is not a
    directory, a name the kernel marks deleted).
    """
    try:
        fd = os.open(path, _DIR_FLAGS)
    except OSError:
        return os.path.realpath(path)
    try:
        named = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        named = ""
    finally:
        os.close(fd)
    if not named.startswith("/") or named.endswith(" (deleted)"):
        return os.path.realpath(path)
    return named


def _is_marker(name: str, directory_fd: int) -> bool:
    try:
        mode = os.stat(name, dir_fd=directory_fd).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISDIR(mode) or stat.S_ISREG(mode)


def _ancestor(real: str, levels_up: int) -> str:
    """The directory ``levels_up`` levels above the absolute, normal path ``real``."""
    if levels_up == 0:
        return real
    parts = real.rstrip("/").split("/")
    kept = parts[: max(len(parts) - levels_up, 1)]
    return "/".join(kept) or "/"


def _open_parent(directory_fd: int, real: str, levels_up: int) -> int:
    try:
        return os.open("..", _DIR_FLAGS, dir_fd=directory_fd)
    except OSError:  # not searchable: open it by name (a rare, longer walk)
        return os.open(_ancestor(real, levels_up), _DIR_FLAGS)


def nearest_marked(real: str, groups: tuple[tuple[str, ...], ...]) -> str | None:
    """The nearest ancestor of ``real`` (itself included) marked by the first group found at all.

    None when no group has a marker anywhere up to ``/``. ``real`` is an
    absolute path without symlinks, ``.`` or ``..`` (:func:`resolve`). One pass
    from ``real`` up: at each level the groups whose nearest is still open are
    looked up, and the pass stops as soon as the first group is found.
    """
    depth = real.rstrip("/").count("/")
    nearest: list[int | None] = [None] * len(groups)
    try:
        directory_fd = os.open(real, _DIR_FLAGS)
    except OSError:
        return None
    try:
        for level in range(depth + 1):
            for index, markers in enumerate(groups):
                if any(found is not None for found in nearest[: index + 1]):
                    continue  # a nearer level or an earlier group already decides this one
                if any(_is_marker(marker, directory_fd) for marker in markers):
                    nearest[index] = level
            if nearest[0] is not None or level == depth:
                break
            parent_fd = _open_parent(directory_fd, real, level + 1)
            os.close(directory_fd)
            directory_fd = parent_fd
    except OSError:
        pass
    finally:
        os.close(directory_fd)
    found = next((level for level in nearest if level is not None), None)
    return None if found is None else _ancestor(real, found)
