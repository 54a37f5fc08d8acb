"""The Linux process source: reads ``/proc`` directly.

This is the one place where OS errors of the Linux source become values: every
read returns its result or an :class:`~runctx.unknown.Unknown` with the reason,
and nothing above this module catches ``OSError``.

A full pass reads two small files per process (``stat`` and ``cmdline``): that
is all runner detection and folding need. The owner uid (``status``) and the
cwd link are read by :meth:`ProcfsSource.with_owner`, only for the processes
that belong to a run.
"""

from __future__ import annotations

import errno
import os
from typing import NamedTuple

from runctx._log import log_unreadable
from runctx.records import ProcessTable, ProcRecord
from runctx.unknown import NOT_READ, Reason, Unknown
from runctx.visibility import ProcMount, parse_proc_mount

PF_KTHREAD = 0x00200000
_CLK_TCK = os.sysconf("SC_CLK_TCK")
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
_DELETED_SUFFIX = " (deleted)"
_READ_SIZE = 65536


def _reason_of(error: OSError) -> Unknown:
    """Translate an OS error from a ``/proc`` read into an unknown."""
    if error.errno in (errno.ENOENT, errno.ESRCH):
        return Unknown(Reason.GONE)
    if error.errno in (errno.EACCES, errno.EPERM):
        return Unknown(Reason.DENIED)
    return Unknown(Reason.ABSENT, errno.errorcode.get(error.errno or 0, str(error.errno)))


def read_file(path: str) -> bytes | Unknown:
    """Read a whole ``/proc`` file, or say why it could not be read."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as error:
        return _reason_of(error)
    try:
        data = os.read(fd, _READ_SIZE)
        if len(data) < _READ_SIZE:  # procfs hands out all it has in one read
            return data
        chunks = [data]
        while data:
            data = os.read(fd, _READ_SIZE)
            chunks.append(data)
        return b"".join(chunks)
    except OSError as error:
        return _reason_of(error)
    finally:
        os.close(fd)


class StatFields(NamedTuple):
    """The fields of ``/proc/PID/stat`` that runctx uses.

    A named tuple rather than an attrs class: one is parsed for every process
    on the box in every scan, and a tuple is several times cheaper to build.
    """

    pid: int
    comm: str
    state: str
    ppid: int
    pgid: int
    sid: int
    flags: int
    cpu_ticks: int
    start_ticks: int
    rss_pages: int


def parse_stat(text: bytes) -> StatFields | Unknown:
    """Parse ``/proc/PID/stat``; the command name may hold spaces, parens, newlines.

    The name is the text between the first ``(`` and the *last* ``)``: the kernel
    prints it raw, so nothing inside it can be trusted as a separator.
    """
    open_paren = text.find(b"(")
    close_paren = text.rfind(b")")
    if open_paren < 0 or close_paren < open_paren:
        return Unknown(Reason.UNPARSABLE, "stat: no command name in parentheses")
    fields = text[close_paren + 2 :].split()
    try:
        return StatFields(
            pid=int(text[:open_paren]),
            comm=text[open_paren + 1 : close_paren].decode(errors="replace"),
            state=fields[0].decode(),
            ppid=int(fields[1]),
            pgid=int(fields[2]),
            sid=int(fields[3]),
            flags=int(fields[6]),
            cpu_ticks=int(fields[11]) + int(fields[12]),
            start_ticks=int(fields[19]),
            rss_pages=int(fields[21]),
        )
    except (IndexError, ValueError, UnicodeDecodeError):
        return Unknown(Reason.UNPARSABLE, "stat: too few or non-numeric fields")


def parse_cmdline(data: bytes) -> tuple[str, ...]:
    """Split ``/proc/PID/cmdline`` into argv, keeping every byte.

    Arguments are NUL-terminated; a process that rewrote its title may leave
    no final NUL or use spaces instead. Bytes that are not UTF-8 survive as
    surrogate escapes (``os.fsencode`` gives the original bytes back).
    """
    if not data:
        return ()
    if data.endswith(b"\0"):
        data = data[:-1]
    return tuple(os.fsdecode(data).split("\0"))


def parse_status_uid(text: bytes) -> int | Unknown:
    """Take the real uid from the ``Uid:`` line of ``/proc/PID/status``."""
    start = text.find(b"\nUid:")
    if start < 0:
        return Unknown(Reason.UNPARSABLE, "status: no Uid line")
    line = text[start + 5 : text.find(b"\n", start + 5)]
    try:
        return int(line.split()[0])
    except (IndexError, ValueError):
        return Unknown(Reason.UNPARSABLE, "status: Uid line without a number")


def parse_uptime(text: bytes) -> float | Unknown:
    """Seconds since boot from ``/proc/uptime``."""
    try:
        return float(text.split()[0])
    except (IndexError, ValueError):
        return Unknown(Reason.UNPARSABLE, "uptime")


class ProcfsSource:
    """Reads processes from a procfs mount (``/proc`` by default)."""

    name = "procfs"

    def __init__(self, proc: str = "/proc") -> None:
        """Read from the procfs mounted at ``proc``."""
        self.proc = proc
        own_ns = self._readlink(f"{proc}/self/ns/mnt")
        self._own_mount_ns = own_ns if isinstance(own_ns, str) else None

    def _readlink(self, path: str) -> str | Unknown:
        try:
            return os.readlink(path)
        except OSError as error:
            return _reason_of(error)

    def uptime(self) -> float | Unknown:
        """Seconds since boot, the clock that process start ticks count on."""
        data = read_file(f"{self.proc}/uptime")
        if isinstance(data, Unknown):
            return data
        return parse_uptime(data)

    def proc_mount(self) -> ProcMount | None:
        """The options of the procfs this source reads (``hidepid=``, ``subset=pid``)."""
        data = read_file(f"{self.proc}/self/mountinfo")
        if isinstance(data, Unknown):
            return None
        return parse_proc_mount(data, os.fsencode(os.path.realpath(self.proc)))

    def own_pid_namespace(self) -> bool:
        """Whether this procfs belongs to the caller's pid namespace."""
        try:
            return int(os.readlink(f"{self.proc}/self")) == os.getpid()
        except (OSError, ValueError):
            return False

    def list_pids(self) -> list[int]:
        """Every pid the procfs lists now (threads are not listed)."""
        return [int(name) for name in os.listdir(self.proc) if name.isdigit()]

    def read_process(self, pid: int, uptime: float) -> ProcRecord | Unknown:
        """Read the parent, state, start and argv of one process.

        Returns an unknown for a process that is gone, unreadable, a zombie or a
        kernel thread: none of those is a live test process.
        """
        raw_stat = read_file(f"{self.proc}/{pid}/stat")
        if isinstance(raw_stat, Unknown):
            return raw_stat
        stat = parse_stat(raw_stat)
        if isinstance(stat, Unknown):
            return stat
        if stat.state in ("Z", "X", "x"):
            return Unknown(Reason.ZOMBIE)
        if stat.flags & PF_KTHREAD:
            return Unknown(Reason.ABSENT, "kernel thread")
        raw_argv = read_file(f"{self.proc}/{pid}/cmdline")
        argv: tuple[str, ...] | Unknown
        if isinstance(raw_argv, Unknown):
            if raw_argv.reason is Reason.GONE:
                return raw_argv
            argv = raw_argv
        else:
            argv = parse_cmdline(raw_argv)
        return ProcRecord(
            pid=pid,
            ppid=stat.ppid,
            pgid=stat.pgid,
            sid=stat.sid,
            state=stat.state,
            comm=stat.comm,
            start=stat.start_ticks,
            argv=argv,
            uid=NOT_READ,
            cwd=NOT_READ,
            cpu_seconds=stat.cpu_ticks / _CLK_TCK,
            rss_bytes=stat.rss_pages * _PAGE_SIZE,
            age_seconds=max(0.0, uptime - stat.start_ticks / _CLK_TCK),
        )

    def table(self) -> ProcessTable:
        """One pass over every listed process."""
        uptime = self.uptime()
        now = 0.0 if isinstance(uptime, Unknown) else uptime
        records: dict[int, ProcRecord] = {}
        unreadable = zombies = kernel_threads = 0
        pids = self.list_pids()
        for pid in pids:
            record = self.read_process(pid, now)
            if isinstance(record, ProcRecord):
                records[pid] = record
            elif record.reason is Reason.ZOMBIE:
                zombies += 1
            elif record.reason is Reason.ABSENT and record.detail == "kernel thread":
                kernel_threads += 1
            elif record.reason is not Reason.GONE:
                unreadable += 1
        return ProcessTable(
            records=records,
            listed=len(pids),
            unreadable=unreadable,
            zombies=zombies,
            kernel_threads=kernel_threads,
        )

    def read_uid(self, pid: int) -> int | Unknown:
        """The real uid of a process, from the ``Uid:`` line of its status."""
        data = read_file(f"{self.proc}/{pid}/status")
        if isinstance(data, Unknown):
            return data
        return parse_status_uid(data)

    def read_cwd(self, pid: int) -> str | Unknown:
        """The cwd of a process, or why it cannot be known.

        The link is readable only by the owner (and root). A removed directory
        reads as ``PATH (deleted)``; a real directory may carry that name too,
        so the suffix counts only when the directory really has no links left.
        A process in another mount namespace names paths that are not ours.
        """
        text = self._readlink(f"{self.proc}/{pid}/cwd")
        if isinstance(text, Unknown):
            return text
        if text.endswith(_DELETED_SUFFIX):
            try:
                removed = os.stat(f"{self.proc}/{pid}/cwd").st_nlink == 0
            except OSError as error:
                return _reason_of(error)
            if removed:
                return Unknown(Reason.DELETED, text[: -len(_DELETED_SUFFIX)])
        if self._own_mount_ns is not None:
            namespace = self._readlink(f"{self.proc}/{pid}/ns/mnt")
            if isinstance(namespace, str) and namespace != self._own_mount_ns:
                return Unknown(Reason.OTHER_NAMESPACE, f"{namespace}: {text}")
        return text

    def _still_same(self, record: ProcRecord) -> bool:
        """Whether the pid still names the process the record was read from."""
        raw_stat = read_file(f"{self.proc}/{record.pid}/stat")
        if isinstance(raw_stat, Unknown):
            return False
        stat = parse_stat(raw_stat)
        return not isinstance(stat, Unknown) and stat.start_ticks == record.start

    def with_owner(self, record: ProcRecord) -> ProcRecord:
        """Fill in the uid and cwd of a record that belongs to a run."""
        uid = self.read_uid(record.pid)
        cwd = self.read_cwd(record.pid)
        if not self._still_same(record):
            uid = cwd = Unknown(Reason.GONE, "pid reused or exited during the scan")
        log_unreadable(record.pid, uid=uid, cwd=cwd)
        return record._replace(uid=uid, cwd=cwd)
