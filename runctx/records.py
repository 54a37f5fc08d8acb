"""The process record: what one scan knows about one live process."""

from __future__ import annotations

from typing import NamedTuple

import attrs

from runctx.checkout import Root
from runctx.record_base import Record
from runctx.unknown import NOT_READ, Unknown


@attrs.frozen(repr=False)  # compared per process of a scan: attrs' compiled eq
class ProcIdentity(Record):
    """A process is (pid, start); a pid alone can be reused by another process.

    ``start`` is the source's start token: clock ticks since boot on Linux, the
    creation time in centiseconds where psutil is the source. Tokens compare
    only within one source.
    """

    pid: int
    start: int


ARGV_WORDS_MAX = 256
"""The words of a command line a source keeps (what the runner table reads, too)."""
CMDLINE_READ_MAX = 128 * 1024
"""The bytes of a command line a source reads (128 KiB: the kernel's bound on one argument)."""


class TruncatedArgv(tuple[str, ...]):
    """An argv read up to a bound (:data:`ARGV_WORDS_MAX` words, :data:`CMDLINE_READ_MAX` bytes).

    The process's command line goes on past its last word (which may be cut
    short): a local user can make one of many megabytes, and no scan pays for
    more than the bound. It is a tuple like any argv; :func:`argv_truncated`
    tells it apart, and the report says so.
    """

    __slots__ = ()


def argv_truncated(argv: object) -> bool:
    """Whether ``argv`` was cut at a bound by the source that read it."""
    return isinstance(argv, TruncatedArgv)


def bounded_argv(words: tuple[str, ...] | list[str], *, cut: bool = False) -> tuple[str, ...]:
    """``words`` kept to :data:`ARGV_WORDS_MAX` words and :data:`CMDLINE_READ_MAX` characters.

    Marked :class:`TruncatedArgv` when anything was left out, or ``cut`` says
    the text was already cut before (a bounded read).
    """
    kept: list[str] = []
    size = 0
    for word in words[:ARGV_WORDS_MAX]:
        if size + len(word) > CMDLINE_READ_MAX:
            kept.append(word[: max(0, CMDLINE_READ_MAX - size)])
            return TruncatedArgv(kept)
        kept.append(word)
        size += len(word) + 1
    if cut or len(words) > ARGV_WORDS_MAX:
        return TruncatedArgv(kept)
    return tuple(kept)


class ProcRecord(NamedTuple):
    """One live process as read from the system.

    ``uid``, ``cwd`` and ``root`` (the checkout root of the cwd, resolved
    through the process's own view of the file system) are read only for
    processes that belong to a test run; for the others they hold
    ``Unknown(Reason.NOT_READ)``. Change one with ``record._replace(...)``.

    A named tuple rather than an attrs class: a scan builds one for every
    process on the box, and a frozen attrs instance costs about 2.5 µs to
    build against about 0.5 µs for a tuple, 10 ms of a scan at +5000
    processes (``make bench``). Like the attrs records it is immutable.
    """

    pid: int
    ppid: int
    pgid: int
    sid: int
    state: str
    comm: str
    start: int
    argv: tuple[str, ...] | Unknown
    uid: int | Unknown
    cwd: str | Unknown
    cpu_seconds: float | Unknown
    rss_bytes: int | Unknown
    age_seconds: float
    root: Root | Unknown = NOT_READ

    @property
    def identity(self) -> ProcIdentity:
        """The (pid, start) pair that survives pid reuse."""
        return ProcIdentity(self.pid, self.start)


@attrs.frozen(repr=False, eq=False)
class ProcessTable(Record):
    """Every live process one pass over the source could read, by pid.

    ``listed`` counts the pids the source enumerated; ``unreadable`` those whose
    basic facts (parent, state) could not be read, so they are missing from
    ``records``. Zombies and kernel threads are never records: they are not live
    test processes.
    """

    records: dict[int, ProcRecord]
    listed: int
    unreadable: int
    zombies: int
    kernel_threads: int
    not_read: int = 0
    """Listed pids left unread: the pass was cut by its deadline before them."""


@attrs.frozen(repr=False)  # compared per process of a scan: attrs' compiled eq
class Inherited(Record):
    """What a process inherited at exec that can say who started it.

    ``environ`` holds only the variables asked for, as ``(name, value)`` pairs
    (``/proc/PID/environ`` is the environment at exec: later changes are not
    in it); it is an unknown when it could not be read, or was not read on
    purpose (another user's). ``cgroup`` is the path systemd files the process
    under; ``tty`` whether it has a controlling terminal.
    """

    environ: tuple[tuple[str, str], ...] | Unknown
    cgroup: str | Unknown
    tty: bool | Unknown

    def variable(self, name: str) -> str | None:
        """The value of one variable, None when it is not set (or not known)."""
        if isinstance(self.environ, Unknown):
            return None
        return next((value for key, value in self.environ if key == name), None)
