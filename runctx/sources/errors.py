"""The one translation of an ``OSError`` into an unknown, for every process source.

Nothing above the sources catches ``OSError``: a read that fails becomes an
:class:`~runctx.unknown.Unknown` with its reason here, once.
"""

from __future__ import annotations

import errno

from runctx.unknown import Reason, Unknown


def no_procfs_message(proc: str) -> str:
    """What to say when no procfs is mounted where processes must be read from."""
    return (
        f"no procfs is mounted at {proc}, so no process can be seen: runctx reads "
        f"processes from it on Linux (mount it: mount -t proc proc {proc})"
    )


def unknown_of(error: OSError) -> Unknown:
    """Why a read of a process failed, from its errno.

    ``ENOENT``/``ESRCH``: the process is gone. ``EACCES``/``EPERM``: denied.
    errno 0 is what macOS ``KERN_PROCARGS2`` gives for a pid it will not
    describe (older psutil raised it raw): denied too. Anything else: absent,
    with the errno's name.
    """
    if error.errno in (errno.ENOENT, errno.ESRCH):
        return Unknown(Reason.GONE)
    if error.errno in (errno.EACCES, errno.EPERM):
        return Unknown(Reason.DENIED)
    if not error.errno:
        return Unknown(Reason.DENIED, "errno 0")
    return Unknown(Reason.ABSENT, errno.errorcode.get(error.errno, str(error.errno)))
