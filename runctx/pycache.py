"""A bytecode cache of a session's own: made, put in place, and removed (standard library only).

``--runctx-bytecode=fresh`` puts the cache in place before the session's
conftests and test modules are imported, at a time when pytest-cov may have
just started measuring: this module imports nothing but the standard library,
so that putting the cache in place imports nothing of the project under test.

A session under ``PYTHONDONTWRITEBYTECODE=1`` (or ``python -B``) would write
nothing into its own cache, and every process it starts would compile every
module again: the session's own cache is written all the same, since it is
the session's alone and removed with it (:func:`write_anyway`).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

PREFIX_ENV = "PYTHONPYCACHEPREFIX"
NO_WRITE_ENV = "PYTHONDONTWRITEBYTECODE"


def fresh_prefix() -> str:
    """A new, empty directory for a session's bytecode cache (removed by :func:`drop_prefix`)."""
    return tempfile.mkdtemp(prefix="runctx-pycache-")


def use_prefix(path: str, environ: dict[str, str] | None = None) -> str | None:
    """Compile into ``path`` from now on, here and in processes started from here.

    Returns the ``PYTHONPYCACHEPREFIX`` that was set before (None for none),
    for :func:`drop_prefix` to put back.
    """
    env = os.environ if environ is None else environ
    before = env.get(PREFIX_ENV)
    sys.pycache_prefix = path
    env[PREFIX_ENV] = path
    return before


def write_anyway(environ: dict[str, str] | None = None) -> str | None:
    """Write compiled modules (into the session's cache) even where they were not to be written.

    Call after :func:`use_prefix`: every write then goes into the session's
    own cache, never beside the sources. Returns the ``PYTHONDONTWRITEBYTECODE``
    that was set (None for none; ``""`` when only ``sys.dont_write_bytecode``
    was set, as ``python -B`` does), for :func:`restore_writing` to put back.
    """
    env = os.environ if environ is None else environ
    before = env.pop(NO_WRITE_ENV, None)
    if before is None and sys.dont_write_bytecode:
        before = ""
    sys.dont_write_bytecode = False
    return before


def restore_writing(before: str | None) -> None:
    """Put back what :func:`write_anyway` changed."""
    if before is None:
        return
    sys.dont_write_bytecode = True
    if before:
        os.environ[NO_WRITE_ENV] = before


def drop_prefix(path: str, before: str | None, previous_prefix: str | None) -> None:
    """Put the cache prefix back as it was, and remove the session's cache."""
    if sys.pycache_prefix == path:
        sys.pycache_prefix = previous_prefix
    if os.environ.get(PREFIX_ENV) == path:
        if before is None:
            del os.environ[PREFIX_ENV]
        else:
            os.environ[PREFIX_ENV] = before
    shutil.rmtree(path, ignore_errors=True)


def filesystem_now(directory: str | None = None) -> int:
    """Now, on the clock the file system stamps files with (ns): a new file's mtime.

    Files are stamped with a coarse kernel clock that can lag ``time.time()``
    by a tick; a file written after this call has an mtime at least this one.
    """
    handle, path = tempfile.mkstemp(prefix="runctx-now-", dir=directory)
    try:
        return os.fstat(handle).st_mtime_ns
    finally:
        os.close(handle)
        os.unlink(path)
