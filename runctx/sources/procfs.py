"""The Linux process source: reads ``/proc`` directly.

Every read returns its result or an :class:`~runctx.unknown.Unknown` with the
reason (:func:`runctx.sources.errors.unknown_of`); the text is parsed by
:mod:`runctx.sources.proctext`.

A full pass reads two small files per process (``stat`` and ``cmdline``): that
is all runner detection and folding need. The owner uid (``status``), the cwd
link and the checkout root are read by
:meth:`~runctx.sources.base.SourceBase.with_owner`, only for the processes
that belong to a run.

The checkout root is resolved through the process's own view: the walk
starts at the directory ``/proc/PID/cwd`` leads to and climbs with ``..``
inside that process's mount tree, up to its ``/proc/PID/root``
(:func:`runctx.checkout.root_of_directory`). So a process in another mount
namespace (a container, ``unshare -m``) gets the root its own tree shows, as
a directory (device and inode) that compares with ours whatever path either
side names it by; a removed cwd is still a directory that can be climbed from.
"""

from __future__ import annotations

import os

from runctx.checkout import Root, RootRules, root_of_directory
from runctx.environment import View
from runctx.exceptions import SourceError
from runctx.records import ProcIdentity, ProcRecord
from runctx.sources import pidns
from runctx.sources.base import KERNEL_THREAD, SourceBase
from runctx.sources.errors import no_procfs_message, unknown_of
from runctx.sources.load import Load
from runctx.sources.proctext import (
    ProcMount,
    parse_cgroup_v2_path,
    parse_cmdline,
    parse_cpu_max,
    parse_loadavg,
    parse_pressure,
    parse_proc_mount,
    parse_stat,
    parse_status_uid,
    parse_uptime,
)
from runctx.unknown import NOT_READ, Reason, Unknown

PF_KTHREAD = 0x00200000
_CLK_TCK = os.sysconf("SC_CLK_TCK")
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
_DELETED_SUFFIX = " (deleted)"
_READ_SIZE = 65536
_OPEN_DIRECTORY = os.O_PATH | os.O_DIRECTORY
_EXITED_STATES = ("Z", "X", "x")


def read_file(path: str) -> bytes | Unknown:
    """Read a whole ``/proc`` file, or say why it could not be read."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as error:
        return unknown_of(error)
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
        return unknown_of(error)
    finally:
        os.close(fd)


def _readlink(path: str) -> str | Unknown:
    try:
        return os.readlink(path)
    except OSError as error:
        return unknown_of(error)


def usable_cpus(proc: str = "/proc") -> int | Unknown:
    """CPUs this process may run on: its affinity, capped by a cgroup CPU quota."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count()
        if count is None:
            return Unknown(Reason.ABSENT, "cpu count")
        cpus = count
    cgroup = read_file(f"{proc}/self/cgroup")
    path = parse_cgroup_v2_path(cgroup) if isinstance(cgroup, bytes) else None
    if path is not None:
        quota = read_file(f"/sys/fs/cgroup{path.rstrip('/')}/cpu.max")
        if isinstance(quota, bytes):
            granted = parse_cpu_max(quota)
            if granted is not None:
                cpus = max(1, min(cpus, int(granted + 0.999)))
    return cpus


def read_load(proc: str = "/proc") -> Load:
    """Read usable CPUs, the load average and CPU pressure now."""
    raw = read_file(f"{proc}/loadavg")
    average = raw if isinstance(raw, Unknown) else parse_loadavg(raw)
    raw = read_file(f"{proc}/pressure/cpu")
    pressure = raw if isinstance(raw, Unknown) else parse_pressure(raw)
    return Load(usable_cpus=usable_cpus(proc), load_average=average, cpu_pressure=pressure)


class ProcfsSource(SourceBase):
    """Reads processes from a procfs mount (``/proc`` by default)."""

    name = "procfs"

    def __init__(self, proc: str = "/proc") -> None:
        """Read from the procfs mounted at ``proc``; :class:`SourceError` when none is there."""
        if not os.path.exists(f"{proc}/self/stat"):
            raise SourceError(no_procfs_message(proc))
        self.proc = proc

    def uptime(self) -> float | Unknown:
        """Seconds since boot, the clock that process start ticks count on."""
        data = read_file(f"{self.proc}/uptime")
        if isinstance(data, Unknown):
            return data
        return parse_uptime(data)

    def _now(self) -> float:
        uptime = self.uptime()
        return 0.0 if isinstance(uptime, Unknown) else uptime

    def load(self) -> Load:
        """Usable CPUs, the load average and CPU pressure, from this procfs."""
        return read_load(self.proc)

    def proc_mount(self) -> ProcMount | Unknown:
        """The options of the procfs this source reads (``hidepid=``, ``subset=pid``)."""
        data = read_file(f"{self.proc}/self/mountinfo")
        if isinstance(data, Unknown):
            return data
        found = parse_proc_mount(data, os.fsencode(os.path.realpath(self.proc)))
        if found is None:
            return Unknown(Reason.UNPARSABLE, f"no procfs mounted at {self.proc} in mountinfo")
        return found

    def own_pid_namespace(self) -> bool:
        """Whether this procfs belongs to the caller's pid namespace."""
        return pidns.own_pid_namespace(self.proc)

    def caller_pid(self) -> int | Unknown:
        """The caller's pid as this procfs numbers it (``NSpid``), or why it has none."""
        return pidns.caller_pid(self.proc)

    def list_pids(self) -> list[int]:
        """Every pid the procfs lists now (threads are not listed)."""
        return [int(name) for name in os.listdir(self.proc) if name.isdigit()]

    _pids = list_pids

    def _read(self, pid: int, now: float) -> ProcRecord | Unknown:
        raw_stat = read_file(f"{self.proc}/{pid}/stat")
        if isinstance(raw_stat, Unknown):
            return raw_stat
        stat = parse_stat(raw_stat)
        if isinstance(stat, Unknown):
            return stat
        if stat.state in _EXITED_STATES:
            return Unknown(Reason.ZOMBIE)
        if stat.flags & PF_KTHREAD:
            return KERNEL_THREAD
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
            age_seconds=max(0.0, now - stat.start_ticks / _CLK_TCK),
        )

    def current_identity(self, pid: int) -> ProcIdentity | Unknown:
        """The identity of the live process holding ``pid`` now, from its ``stat`` alone."""
        raw_stat = read_file(f"{self.proc}/{pid}/stat")
        if isinstance(raw_stat, Unknown):
            return raw_stat
        stat = parse_stat(raw_stat)
        if isinstance(stat, Unknown):
            return stat
        if stat.state in _EXITED_STATES:
            return Unknown(Reason.ZOMBIE)
        return ProcIdentity(pid, stat.start_ticks)

    def read_uid(self, pid: int) -> int | Unknown:
        """The real uid of a process, from the ``Uid:`` line of its status."""
        data = read_file(f"{self.proc}/{pid}/status")
        if isinstance(data, Unknown):
            return data
        return parse_status_uid(data)

    def read_cwd(self, pid: int) -> str | Unknown:
        """The cwd of a process as its link text, or why it cannot be known.

        The link is readable only by the owner (and root). A removed directory
        reads as ``PATH (deleted)``; a real directory may carry that name too,
        so the suffix counts only when the directory really has no links left.
        The text is what the report shows; the process's checkout root is
        :meth:`read_root`, compared as a directory.
        """
        text = _readlink(f"{self.proc}/{pid}/cwd")
        if isinstance(text, Unknown):
            return text
        if text.endswith(_DELETED_SUFFIX):
            try:
                removed = os.stat(f"{self.proc}/{pid}/cwd").st_nlink == 0
            except OSError as error:
                return unknown_of(error)
            if removed:
                return Unknown(Reason.DELETED, text[: -len(_DELETED_SUFFIX)])
        return text

    def read_root(self, pid: int, rules: RootRules) -> Root | Unknown:
        """The checkout root of a process's cwd, found inside its own view, or why not.

        A removed cwd has a root too: the removed directory, marked deleted,
        with the checkout that held it.
        """
        try:
            handle = os.open(f"{self.proc}/{pid}/cwd", _OPEN_DIRECTORY)
        except OSError as error:
            return unknown_of(error)
        try:
            text = os.readlink(f"{self.proc}/{pid}/cwd")
            top = os.stat(f"{self.proc}/{pid}/root")
            return root_of_directory(handle, text, top=(top.st_dev, top.st_ino), rules=rules)
        except OSError as error:
            return unknown_of(error)
        finally:
            os.close(handle)

    def _owner(self, pid: int) -> tuple[int | Unknown, str | Unknown]:
        return self.read_uid(pid), self.read_cwd(pid)

    def _executable(self, pid: int) -> tuple[str, tuple[int, int]] | Unknown:
        """``/proc/PID/exe``: its link text and the file it leads to (owner and root only)."""
        text = _readlink(f"{self.proc}/{pid}/exe")
        if isinstance(text, Unknown):
            return text
        try:
            found = os.stat(f"{self.proc}/{pid}/exe")
        except OSError as error:
            return unknown_of(error)
        text = text.removesuffix(_DELETED_SUFFIX)
        return text, (found.st_dev, found.st_ino)

    def _view(self, pid: int) -> tuple[View, str | None] | Unknown:
        """Its paths through ``/proc/PID/root`` and ``/proc/PID/cwd``: its own mount tree."""
        cwd = self.read_cwd(pid)
        if isinstance(cwd, Unknown) and cwd.reason is not Reason.DELETED:
            return cwd
        view = View(root=f"{self.proc}/{pid}/root", cwd=f"{self.proc}/{pid}/cwd")
        return view, cwd if isinstance(cwd, str) else None

    def _root(self, pid: int, cwd: str | Unknown, rules: RootRules) -> Root | Unknown:
        if isinstance(cwd, Unknown) and cwd.reason is not Reason.DELETED:
            return cwd
        return self.read_root(pid, rules)
