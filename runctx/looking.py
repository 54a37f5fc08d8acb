"""What a scan is looking at in a process's file system, and since when: told to whoever waits.

Most of a scan reads ``/proc``, which answers at once. Finding a process's
checkout is different: the walk looks at directories of the process's own
file system (its cwd and above), and reading a run's environment follows its
executable. A file system that stopped answering (a hung NFS or sshfs mount,
a stuck FUSE server) holds such a look in the kernel, where no signal ends
it, so the faces that scan do it in a child (:mod:`runctx.fastpath.hook`,
:mod:`runctx.cli.apart`) and wait for it from outside.

This module is how the child tells them what holds it. Before forking, the
waiter calls :func:`shared` for a page of memory both processes see; the
child, at each such look, writes there what it looks at (:class:`Look`:
which process, its cwd or its executable) and since when, and clears it
after. A waiter that sees one look last past :data:`HELD_AFTER_SECONDS`
knows the scan is held, and by what: it names the process and reads the
link itself (``readlink`` of ``/proc/PID/cwd`` gives the text and never
waits on the file system). Without a shared page (a scan in the caller's own
process) looking costs one test.
"""

from __future__ import annotations

import enum
import mmap
import os
import struct
import time

import attrs

from runctx.record_base import Record

HELD_AFTER_SECONDS = 5.0
"""A look at a process's file system that has not returned after this long holds the scan.

A walk of the deepest tree a path allows looks at a few thousand names, tens
of milliseconds of CPU; a scan that waits for a CPU on a saturated box is
runnable, never sleeping in a read (:func:`held`)."""

MOUNTINFO_READ_MAX = 1024 * 1024
"""The most of the caller's ``mountinfo`` read to tell its file systems' types."""
NAMED_AFTER_SECONDS = 1.0
"""A look under way when a bound passes (a hook's deadline, ``--timeout``) is named as what
holds the scan once it has lasted this long: a walk on a slow disk takes milliseconds."""
_SLOT = struct.Struct("=dqB")
"""The shared page: since when (monotonic seconds, 0 for nothing), the pid, what of it."""


class Looked(enum.Enum):
    """What of a process a look is at: the link of ``/proc/PID`` that leads there."""

    CWD = "cwd"
    """Its working directory and the tree above it: the walk to its checkout."""
    EXECUTABLE = "exe"
    """Its executable and what lies beside it: the environment it runs in."""


_CODES = {Looked.CWD: 1, Looked.EXECUTABLE: 2}
_BY_CODE = {code: looked for looked, code in _CODES.items()}


@attrs.frozen(repr=False, eq=False)
class Look(Record):
    """One look that has not returned: at what of which process, for how long."""

    pid: int
    looked: Looked
    seconds: float

    def words(self, proc: str = "/proc") -> str:
        """``the cwd of pid 123 (/mnt/x)``: the path as the link reads it, when it can be read.

        The path is the raw text of the link (a caller escapes it for its
        reader): reading a link of ``/proc`` never waits on the file system.
        """
        what = "the cwd" if self.looked is Looked.CWD else "the executable"
        try:
            path = os.readlink(f"{proc}/{self.pid}/{self.looked.value}")
        except OSError:
            return f"{what} of pid {self.pid}"
        return f"{what} of pid {self.pid} ({path})"


class Watch:
    """The page a child writes its looks to, and its waiter reads them from."""

    __slots__ = ("page",)

    def __init__(self, page: mmap.mmap | None = None) -> None:
        """Watch ``page`` (None: nothing is shared, and looking costs one test)."""
        self.page = page

    def at(self, pid: int, looked: Looked) -> None:
        """A look at ``looked`` of ``pid`` begins."""
        page = self.page
        if page is not None:
            _SLOT.pack_into(page, 0, time.monotonic(), pid, _CODES[looked])

    def done(self) -> None:
        """The look returned."""
        page = self.page
        if page is not None:
            _SLOT.pack_into(page, 0, 0.0, 0, 0)

    def now(self) -> Look | None:
        """The look under way and how long it has lasted; None when there is none."""
        page = self.page
        if page is None:
            return None
        since, pid, code = _SLOT.unpack_from(page, 0)
        looked = _BY_CODE.get(code)
        if since <= 0 or looked is None:
            return None
        return Look(pid=pid, looked=looked, seconds=max(0.0, time.monotonic() - since))


WATCH = Watch()
"""This process's watch: shared with a waiter once :func:`shared` is called."""


def shared() -> Watch:
    """A page this process and a child forked after this call both see; looks are written there.

    The waiter keeps the watch it is given; the child writes through
    :data:`WATCH`, which is the same page.
    """
    page = mmap.mmap(-1, mmap.PAGESIZE)
    WATCH.page = page
    return Watch(page)


def held_words(look: Look, proc: str = "/proc") -> str:
    """What holds a scan, in words: ``the scan is held looking at the cwd of pid 123 (/mnt/x)...``.

    Raw text: the caller escapes it for its reader.
    """
    return (
        f"the scan is held looking at {look.words(proc)}: a file system that does not "
        "answer (a hung network mount?)"
    )


HELD_UNNAMED = (
    "the scan is held in a read that does not return (a file system that does not answer, "
    "such as a hung network mount?)"
)
"""What holds a child waiting in the kernel (state ``D``) when no look under way is named."""
NOT_DONE = "the scan had not ended (a busy box, where it waits for a CPU?)"
"""A child given up while it ran or slept on its own: late, not held."""


def why_not_done(watch: Watch, child: int, proc: str = "/proc") -> str | None:
    """What holds ``child`` at a bound that passed, in words (raw text); None when nothing does.

    The look under way, once it has lasted :data:`NAMED_AFTER_SECONDS`; else
    :data:`HELD_UNNAMED` while the child waits in the kernel (state ``D``);
    else None: it is running, or waiting for a CPU, only late.
    """
    look = held(watch, child, proc, after=NAMED_AFTER_SECONDS)
    if look is not None:
        return held_words(look, proc)
    return HELD_UNNAMED if _state(child, proc) == b"D" else None


def gave_up_words(watch: Watch, child: int, bound: str, proc: str = "/proc") -> str:
    """Why ``child`` was given up at ``bound`` (``--timeout 2s``), in words; raw text."""
    return f"{why_not_done(watch, child, proc) or NOT_DONE}; gave up after {bound}"


def _state(child: int, proc: str) -> bytes:
    """The state letter of ``child`` in its ``stat`` (``R``, ``S``, ``D``...); empty if unread."""
    try:
        with open(f"{proc}/{child}/stat", "rb") as stream:
            return stream.read().rpartition(b")")[2].split()[0]
    except (OSError, IndexError):
        return b""


def held(
    watch: Watch, child: int, proc: str = "/proc", *, after: float | None = None
) -> Look | None:
    """The look that holds ``child``: one that lasted ``after`` seconds while it slept.

    ``after``: :data:`HELD_AFTER_SECONDS` unless given (a bound that passed
    names a look that lasted :data:`NAMED_AFTER_SECONDS`). A child that is
    runnable (state ``R``) is working or waiting for a CPU, not held. None
    when nothing holds it.
    """
    look = watch.now()
    if look is None or look.seconds < (HELD_AFTER_SECONDS if after is None else after):
        return None
    return None if _state(child, proc) == b"R" else look


MAY_STOP_ANSWERING = frozenset(
    {
        *("nfs", "nfs4", "cifs", "smb3", "smbfs", "ncpfs", "coda", "afs", "9p", "virtiofs"),
        *("ceph", "glusterfs", "lustre", "gpfs", "beegfs", "orangefs", "fuse", "fuseblk"),
    }
)
"""File system types whose reads wait on a server (over a network, or a FUSE daemon, ``fuse.*``).

One whose server goes away holds whoever looks at it: these are what makes a
scan's child worth its fork for a face that scans often."""


def may_stop_answering(proc: str = "/proc") -> bool:
    """Whether a file system of the caller's mount namespace may stop answering.

    From its ``mountinfo`` (the type after `` - ``): a network file system, or
    FUSE. True when ``mountinfo`` cannot be read whole: not known not to.
    False where there is none (not Linux): nothing tells, and a fork is no
    light thing there (macOS forbids much in a child of a process with threads).
    """
    try:
        with open(f"{proc}/self/mountinfo", "rb") as stream:
            text = stream.read(MOUNTINFO_READ_MAX + 1)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return len(text) > MOUNTINFO_READ_MAX or any_may_stop_answering(text)


def any_may_stop_answering(mountinfo: bytes) -> bool:
    """Whether a mount of the ``mountinfo`` text is of a type in :data:`MAY_STOP_ANSWERING`."""
    for line in mountinfo.splitlines():
        kind = line.partition(b" - ")[2].split(b" ", 1)[0].decode("ascii", "replace")
        if kind in MAY_STOP_ANSWERING or kind.startswith("fuse."):
            return True
    return False
