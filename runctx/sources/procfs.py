"""The Linux process source: reads ``/proc`` directly.

Every read returns its result or an :class:`~runctx.unknown.Unknown` with the
reason (:func:`runctx.sources.errors.unknown_of`); the text is parsed by
:mod:`runctx.sources.proctext`.

A full pass reads ``stat`` of every process (parents, states, start times,
names and CPU times fold the runs and place them) and ``cmdline`` only of
the processes whose ``comm`` could start or be part of a run
(:mod:`runctx.runners.comms`): that is all runner detection and folding
need. The owner uid (``status``), the cwd link and the checkout root are read
by :meth:`~runctx.sources.base.SourceBase.with_owner`, only for the processes
that belong to a run.

The checkout root is resolved through the process's own view: the walk
starts at the directory ``/proc/PID/cwd`` leads to and climbs with ``..``
inside that process's mount tree, up to its ``/proc/PID/root``
(:func:`runctx.checkout.root_of_directory`). So a process in another mount
namespace (a container, ``unshare -m``) gets the root its own tree shows, as
a directory (device and inode) that compares with ours whatever path either
side names it by; a removed cwd is still a directory that can be climbed from.
When that climb finds no ``.git`` (a bind mount of a checkout's
*subdirectory* hides it), the top of the process's mount is looked for in the
caller's own tree through ``mountinfo`` (:mod:`runctx.sources.mounts`) and the
walk goes on there; the caller's ``mountinfo`` is read once per scan, the
process's only when it is in another mount namespace.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterator, Mapping

from runctx import planted
from runctx.checkout import Root, RootRules, root_of_directory
from runctx.climb import ClimbBudget, ClimbSpentError
from runctx.environment import View
from runctx.exceptions import SourceError
from runctx.looking import WATCH, Looked
from runctx.records import CMDLINE_READ_MAX, ProcIdentity, ProcRecord
from runctx.sources import mounts, pidns
from runctx.sources.base import KERNEL_THREAD, SourceBase
from runctx.sources.errors import no_procfs_message, unknown_of
from runctx.sources.load import Load
from runctx.sources.proctext import (
    MountEntry,
    ProcMount,
    StatFields,
    parse_cfs_quota,
    parse_cgroup,
    parse_cmdline,
    parse_cpu_max,
    parse_environ,
    parse_fdinfo_mount_id,
    parse_loadavg,
    parse_meminfo,
    parse_mountinfo,
    parse_pressure,
    parse_proc_mount,
    parse_stat,
    parse_stat_tty,
    parse_status_uid,
    parse_uptime,
    stat_is_running,
    stays_under,
    systemd_path,
)
from runctx.unknown import NOT_READ, Reason, Unknown

PF_KTHREAD = 0x00200000
_CLK_TCK = os.sysconf("SC_CLK_TCK")
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
_DELETED_SUFFIX = " (deleted)"
_READ_SIZE = 65536
_OPEN_DIRECTORY = os.O_PATH | os.O_DIRECTORY
_EXITED_STATES = ("Z", "X", "x")
ENVIRON_READ_MAX = 256 * 1024
"""The most of ``/proc/PID/environ`` read (256 KiB); a variable past it is not seen."""
CHILDREN_THREADS_MAX = 1024
"""Threads of one process whose children are listed: a process of many more costs no more."""
SMALL_READ_MAX = 64 * 1024
"""The most of a cgroup file (``cpu.max``, ``/proc/PID/cgroup``) read: each holds a few lines."""
CGROUP_ROOT = "/sys/fs/cgroup"
_CGROUP_DEPTH_MAX = 64
MOUNTINFO_READ_MAX = 1024 * 1024
"""The most of a ``mountinfo`` read (1 MiB, some 7000 mounts); a mount past it is not seen."""
_V1_CPU_DIRS = ("cpu,cpuacct", "cpuacct,cpu", "cpu")
_PARSED_MAX = 4096
"""Distinct answers (cwd roots, cgroup texts) kept by one scan: a box has far fewer."""
READ_MAX = 1024 * 1024
"""The most of any other ``/proc`` file read (``stat``, ``status``, ``loadavg``): 1 MiB."""


def read_file(path: str, limit: int = READ_MAX) -> bytes | Unknown:
    """Read a ``/proc`` file whole, up to ``limit`` bytes (a longer one is cut), or say why not."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as error:
        return unknown_of(error)
    try:
        data = os.read(fd, _READ_SIZE)
        if len(data) < _READ_SIZE:  # procfs hands out all it has in one read
            return data
        chunks = [data]
        size = len(data)
        while data and size < limit:
            data = os.read(fd, min(_READ_SIZE, limit - size))
            chunks.append(data)
            size += len(data)
        return b"".join(chunks)
    except OSError as error:
        return unknown_of(error)
    finally:
        os.close(fd)


def read_cmdline(path: str, limit: int = CMDLINE_READ_MAX) -> tuple[bytes, bool] | Unknown:
    """At most ``limit`` bytes of a ``/proc/PID/cmdline``, and whether it goes on; or why not.

    A command line can be many megabytes (a local user chooses it); the scan
    reads only its first ``limit`` bytes, in the reads ``/proc`` itself would
    take (64 KiB each), and one byte more to know whether there was more.
    """
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as error:
        return unknown_of(error)
    try:
        data = os.read(fd, min(_READ_SIZE, limit + 1))
        if len(data) < _READ_SIZE:  # procfs hands out all it has in one read
            return data[:limit], len(data) > limit
        chunks = [data]
        size = len(data)
        while data and size <= limit:
            data = os.read(fd, min(_READ_SIZE, limit + 1 - size))
            chunks.append(data)
            size += len(data)
        whole = b"".join(chunks)
        return whole[:limit], size > limit
    except OSError as error:
        return unknown_of(error)
    finally:
        os.close(fd)


def read_bounded(path: str, limit: int) -> tuple[bytes, bool] | Unknown:
    """At most ``limit`` bytes of a file, and whether there was more; or why not.

    Through :func:`runctx.planted.read_bounded`: never blocking, and only a
    regular file (which every ``/proc`` and cgroup file is) is opened at all.
    """
    try:
        data, whole = planted.read_bounded(path, limit, sized=False)
    except planted.NotRegularFileError as error:
        return Unknown(Reason.ABSENT, error.strerror or "not a regular file")
    except OSError as error:
        return unknown_of(error)
    return data, not whole


def _read_small(path: str) -> bytes | Unknown:
    """A file of a few lines (cgroup files): read whole, or unknown past the bound."""
    read = read_bounded(path, SMALL_READ_MAX)
    if isinstance(read, Unknown):
        return read
    data, more = read
    return Unknown(Reason.UNPARSABLE, f"longer than {SMALL_READ_MAX} bytes") if more else data


def _read_mountinfo_text(path: str) -> bytes | None:
    """A ``mountinfo`` read with a bound (a line it cuts is dropped); None if unreadable."""
    read = read_bounded(path, MOUNTINFO_READ_MAX)
    if isinstance(read, Unknown):
        return None
    data, more = read
    if more:
        data = data[: data.rfind(b"\n") + 1]
    return data


def _read_mountinfo(path: str) -> tuple[MountEntry, ...] | None:
    """A ``mountinfo`` parsed, read with a bound (a line it cuts is dropped); None if unreadable."""
    data = _read_mountinfo_text(path)
    return None if data is None else parse_mountinfo(data)


def _readlink(path: str) -> str | Unknown:
    try:
        return os.readlink(path)
    except OSError as error:
        return unknown_of(error)


def _ancestors(path: str) -> list[str]:
    """``/a/b/c``, ``/a/b``, ``/a``, ``""``: a cgroup path, each one above it, and the top.

    The top is read too: inside a cgroup namespace (a container) it is the
    container's own cgroup, which holds the container's quota; on the host
    the root cgroup has none.
    """
    found: list[str] = []
    path = path.rstrip("/")
    while path and len(found) < _CGROUP_DEPTH_MAX:
        found.append(path)
        path = path.rpartition("/")[0]
    found.append("")
    return found


def cgroup_cpu_quota(cgroup_text: bytes, root: str = CGROUP_ROOT) -> float | None:
    """The smallest CPU quota of a process's cgroups, in CPUs; None when none limits it.

    A quota at any level of the tree caps everything below it, so each
    cgroup from the process's own up to the top is read: ``cpu.max`` in the
    unified (v2) hierarchy, ``cpu.cfs_quota_us`` over ``cpu.cfs_period_us``
    in a v1 ``cpu`` hierarchy. A file that cannot be read limits nothing.
    """
    quotas: list[float] = []
    for names, path in parse_cgroup(cgroup_text):
        if not stays_under(path):  # outside this cgroup namespace: /../x
            continue
        if not names:
            for level in _ancestors(path):
                raw = _read_small(f"{root}{level}/cpu.max")
                granted = parse_cpu_max(raw) if isinstance(raw, bytes) else None
                if granted is not None:
                    quotas.append(granted)
        elif "cpu" in names:
            base = next((d for d in _V1_CPU_DIRS if os.path.isdir(f"{root}/{d}")), None)
            for level in _ancestors(path) if base is not None else []:
                quota = _read_small(f"{root}/{base}{level}/cpu.cfs_quota_us")
                period = _read_small(f"{root}/{base}{level}/cpu.cfs_period_us")
                if isinstance(quota, bytes) and isinstance(period, bytes):
                    granted = parse_cfs_quota(quota, period)
                    if granted is not None:
                        quotas.append(granted)
    return min(quotas) if quotas else None


def usable_cpus(proc: str = "/proc") -> int | Unknown:
    """CPUs this process may run on: its affinity, capped by its cgroups' CPU quotas."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count()
        if count is None:
            return Unknown(Reason.ABSENT, "cpu count")
        cpus = count
    cgroup = _read_small(f"{proc}/self/cgroup")
    if isinstance(cgroup, bytes):
        granted = cgroup_cpu_quota(cgroup)
        if granted is not None:
            cpus = max(1, min(cpus, math.ceil(granted)))
    return cpus


def read_load(proc: str = "/proc") -> Load:
    """Read usable CPUs, the load average, CPU pressure and memory now."""
    raw = read_file(f"{proc}/loadavg")
    average = raw if isinstance(raw, Unknown) else parse_loadavg(raw)
    raw = read_file(f"{proc}/pressure/cpu")
    pressure = raw if isinstance(raw, Unknown) else parse_pressure(raw)
    raw = read_file(f"{proc}/meminfo")
    memory = raw if isinstance(raw, Unknown) else parse_meminfo(raw)
    return Load(
        usable_cpus=usable_cpus(proc),
        load_average=average,
        cpu_pressure=pressure,
        memory=memory,
    )


class ProcfsSource(SourceBase):
    """Reads processes from a procfs mount (``/proc`` by default)."""

    name = "procfs"

    def __init__(self, proc: str = "/proc") -> None:
        """Read from the procfs mounted at ``proc``; :class:`SourceError` when none is there."""
        if not os.path.exists(f"{proc}/self/stat"):
            raise SourceError(no_procfs_message(proc))
        self.proc = proc
        self._mounts: tuple[str, mounts.MountTable] | None = None
        self._their_mounts: dict[str, Mapping[int, MountEntry] | None] = {}
        self._roots: dict[tuple[object, ...], Root] = {}
        self._cgroups: dict[bytes, str | None] = {}
        self._children_listed: bool | None = None

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
        data = read_file(f"{self.proc}/self/mountinfo", MOUNTINFO_READ_MAX)
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

    def _forget_the_last_pass(self) -> None:
        """The mounts, walks and cgroups of the last pass: each is read again if asked."""
        self._mounts = None
        self._their_mounts = {}
        self._roots = {}
        self._cgroups = {}

    def list_pids(self) -> list[int]:
        """Every pid the procfs lists now (threads are not listed)."""
        return [int(name) for name in os.listdir(self.proc) if name.isdigit()]

    _pids = list_pids

    def _read(
        self, pid: int, now: float, argv_wanted: Callable[[str], bool] | None = None
    ) -> ProcRecord | Unknown:
        stat = self._live_stat(pid)
        if isinstance(stat, Unknown):
            return stat
        if stat.flags & PF_KTHREAD:
            return KERNEL_THREAD
        argv: tuple[str, ...] | Unknown
        raw_argv: tuple[bytes, bool] | Unknown
        if argv_wanted is not None and not argv_wanted(stat.comm):
            raw_argv = NOT_READ
        else:
            raw_argv = read_cmdline(f"{self.proc}/{pid}/cmdline")
        if isinstance(raw_argv, Unknown):
            if raw_argv.reason is Reason.GONE:
                return raw_argv
            argv = raw_argv
        else:
            argv = parse_cmdline(raw_argv[0], cut=raw_argv[1])
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

    def view_key(self, pid: int) -> tuple[str, str, str] | None:
        """Its mount namespace, root and cwd as their links say (three ``readlink``).

        Cheaper than reading ``stat`` and ``cmdline``. None where the kernel
        lists no children (``CONFIG_PROC_CHILDREN``: a run's processes could
        then not be found from it), or a link cannot be read, or the cwd is
        removed or out of the process's root.
        """
        if not self._lists_children():
            return None
        try:
            namespace = os.readlink(f"{self.proc}/{pid}/ns/mnt")
            root = os.readlink(f"{self.proc}/{pid}/root")
            cwd = os.readlink(f"{self.proc}/{pid}/cwd")
        except OSError:
            return None
        if not cwd.startswith("/") or cwd.endswith(_DELETED_SUFFIX):
            return None
        return namespace, root, cwd

    def _lists_children(self) -> bool:
        """Whether the kernel lists each task's children (``/proc/PID/task/TID/children``)."""
        if self._children_listed is None:
            try:  # the caller's own threads, as this procfs numbers them
                threads = os.listdir(f"{self.proc}/self/task")
            except OSError:
                threads = []
            self._children_listed = bool(threads) and os.path.exists(
                f"{self.proc}/self/task/{threads[0]}/children"
            )
        return self._children_listed

    def _children(self, pid: int) -> list[int]:
        """The children of each of ``pid``'s threads (a child is its forking thread's)."""
        try:
            threads = os.listdir(f"{self.proc}/{pid}/task")
        except OSError:
            return []
        found: list[int] = []
        for thread in threads[:CHILDREN_THREADS_MAX]:
            raw = read_file(f"{self.proc}/{pid}/task/{thread}/children")
            if not isinstance(raw, Unknown):
                found.extend(int(word) for word in raw.split() if word.isdigit())
        return found

    def _parent(self, pid: int) -> int | Unknown:
        """The pid of ``pid``'s parent, from its ``stat``; unknown once it exited."""
        stat = self._live_stat(pid)
        return stat if isinstance(stat, Unknown) else stat.ppid

    def current_identity(self, pid: int) -> ProcIdentity | Unknown:
        """The identity of the live process holding ``pid`` now, from its ``stat`` alone."""
        stat = self._live_stat(pid)
        if isinstance(stat, Unknown):
            return stat
        return ProcIdentity(pid, stat.start_ticks)

    def running(self, pid: int) -> bool:
        """Whether ``pid`` is running on a CPU, or waiting for one, now (``stat``'s state ``R``).

        One read of ``stat``, only its state looked at: a bounded pass asks
        this of each of another user's processes past its budget.
        """
        raw = read_file(f"{self.proc}/{pid}/stat")
        return not isinstance(raw, Unknown) and stat_is_running(raw)

    def _cpu_now(self, pid: int) -> tuple[ProcIdentity, float] | Unknown:
        stat = self._live_stat(pid)
        if isinstance(stat, Unknown):
            return stat
        return ProcIdentity(pid, stat.start_ticks), stat.cpu_ticks / _CLK_TCK

    def _live_stat(self, pid: int) -> StatFields | Unknown:
        """The parsed ``stat`` of ``pid``; unknown if unreadable, unparsable or exited (zombie)."""
        raw = read_file(f"{self.proc}/{pid}/stat")
        if isinstance(raw, Unknown):
            return raw
        stat = parse_stat(raw)
        if isinstance(stat, Unknown):
            return stat
        if stat.state in _EXITED_STATES:
            return Unknown(Reason.ZOMBIE)
        return stat

    def _environ(self, pid: int, wanted: frozenset[str]) -> dict[str, str] | Unknown:
        """The ``wanted`` variables of ``/proc/PID/environ``, read with a bound.

        Readable by the owner (and root) only. When the file is longer than
        :data:`ENVIRON_READ_MAX` its last, cut entry is dropped.
        """
        read = read_bounded(f"{self.proc}/{pid}/environ", ENVIRON_READ_MAX)
        if isinstance(read, Unknown):
            return read
        data, more = read
        if more:
            data = data[: data.rfind(b"\0") + 1]
        return parse_environ(data, wanted)

    def _cgroup(self, pid: int) -> str | Unknown:
        """The systemd cgroup of ``pid``; each distinct ``cgroup`` text is parsed once per scan."""
        raw = read_file(f"{self.proc}/{pid}/cgroup", SMALL_READ_MAX + 1)
        if isinstance(raw, Unknown):
            return raw
        if len(raw) > SMALL_READ_MAX:
            return Unknown(Reason.UNPARSABLE, f"longer than {SMALL_READ_MAX} bytes")
        if raw in self._cgroups:
            path = self._cgroups[raw]
        else:
            path = systemd_path(parse_cgroup(raw))
            if len(self._cgroups) < _PARSED_MAX:
                self._cgroups[raw] = path
        return path if path is not None else Unknown(Reason.ABSENT, "no systemd cgroup")

    def _identity_and_tty(self, pid: int) -> tuple[ProcIdentity | Unknown, bool | Unknown]:
        """Both from one read of ``stat`` (one read fewer per run in every scan)."""
        now, tty, _cpu = self._identity_tty_and_cpu(pid)
        return now, tty

    def _identity_tty_and_cpu(
        self, pid: int
    ) -> tuple[ProcIdentity | Unknown, bool | Unknown, tuple[float, float] | None]:
        """All three from one read of ``stat``, with the instant it was read."""
        at = time.monotonic()
        raw = read_file(f"{self.proc}/{pid}/stat")
        if isinstance(raw, Unknown):
            return raw, raw, None
        stat = parse_stat(raw)
        if isinstance(stat, Unknown):
            return stat, stat, None
        if stat.state in _EXITED_STATES:
            return Unknown(Reason.ZOMBIE), Unknown(Reason.ZOMBIE), None
        tty = parse_stat_tty(raw)
        return (
            ProcIdentity(pid, stat.start_ticks),
            tty if isinstance(tty, Unknown) else tty != 0,
            (at, stat.cpu_ticks / _CLK_TCK),
        )

    def _tty(self, pid: int) -> bool | Unknown:
        raw = read_file(f"{self.proc}/{pid}/stat")
        if isinstance(raw, Unknown):
            return raw
        tty = parse_stat_tty(raw)
        return tty if isinstance(tty, Unknown) else tty != 0

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

    def read_root(
        self,
        pid: int,
        rules: RootRules,
        cwd: str | None = None,
        budget: ClimbBudget | None = None,
    ) -> Root | Unknown:
        """The checkout root of a process's cwd, found inside its own view, or why not.

        A removed cwd has a root too: the removed directory, marked deleted,
        with the checkout that held it.

        Many processes work in few directories (a storm of one user's runs in a
        few checkouts): the walk is made once per scan for each directory seen
        the same way (its text and identity, the process's root and mount
        namespace, the rules), and its answer reused. Given the ``cwd`` text
        read already, a directory walked before is known by a ``stat`` of the
        cwd (the walk's answer is for that text and that directory, whenever
        each was read), without opening it. A walk is charged to ``budget``:
        once that is spent, the root is its unknown (:mod:`runctx.climb`).
        Each look is told to whoever waits for this scan (:mod:`runctx.looking`).
        """
        WATCH.at(pid, Looked.CWD)
        try:
            return self._read_root(pid, rules, cwd, budget)
        finally:
            WATCH.done()

    def _read_root(
        self, pid: int, rules: RootRules, cwd: str | None, budget: ClimbBudget | None
    ) -> Root | Unknown:
        if cwd is not None:
            try:
                key = self._root_key(
                    pid,
                    os.stat(f"{self.proc}/{pid}/cwd"),
                    cwd,
                    os.stat(f"{self.proc}/{pid}/root"),
                    rules,
                )
            except OSError as error:
                return unknown_of(error)
            found = self._roots.get(key) if key is not None else None
            if found is not None:
                return found
        try:
            handle = os.open(f"{self.proc}/{pid}/cwd", _OPEN_DIRECTORY)
        except OSError as error:
            return unknown_of(error)
        try:
            text = os.readlink(f"{self.proc}/{pid}/cwd")
            top = os.stat(f"{self.proc}/{pid}/root")
            key = self._root_key(pid, os.fstat(handle), text, top, rules)
            found = self._roots.get(key) if key is not None else None
            if found is None:
                found = root_of_directory(
                    handle,
                    text,
                    top=(top.st_dev, top.st_ino),
                    rules=rules,
                    viewer_paths=lambda: self._viewer_paths(pid, handle, budget),
                    budget=budget,
                )
                if key is not None and len(self._roots) < _PARSED_MAX:
                    self._roots[key] = found
        except OSError as error:
            return unknown_of(error)
        except ClimbSpentError as spent:
            return spent.unknown
        else:
            return found
        finally:
            os.close(handle)

    def _root_key(
        self, pid: int, here: os.stat_result, text: str, top: os.stat_result, rules: RootRules
    ) -> tuple[object, ...] | None:
        """What makes two walks from a cwd (``here``) the same walk; None when it cannot be told."""
        if here.st_nlink == 0:  # removed: its text alone may not say so
            return None
        try:
            namespace = os.readlink(f"{self.proc}/{pid}/ns/mnt")
        except OSError:
            return None
        return (
            text,
            here.st_dev,
            here.st_ino,
            top.st_dev,
            top.st_ino,
            namespace,
            rules.owners,
            rules.homes,
        )

    def _caller_mounts(self) -> tuple[str, mounts.MountTable] | None:
        """The caller's mount namespace and mounts, read once per scan; None when unreadable."""
        if self._mounts is None:
            try:
                namespace = os.readlink(f"{self.proc}/self/ns/mnt")
            except OSError:
                return None
            read = _read_mountinfo(f"{self.proc}/self/mountinfo")
            if read is None:
                return None
            self._mounts = (namespace, mounts.MountTable(read))
        return self._mounts

    def _mounts_of(
        self, pid: int, namespace: str | None, budget: ClimbBudget | None = None
    ) -> Mapping[int, MountEntry] | None:
        """The mounts of ``pid``'s mount namespace, parsed once per scan for each namespace.

        Many processes share one namespace (a container's, an ``unshare -m``
        with thousands of mounts): its ``mountinfo`` is read for the first of
        them only, and a line parsed only when a climb asks for its mount.
        Without a namespace link it is read for ``pid``. A read for a climb
        charged to ``budget`` is charged by its size
        (:meth:`~runctx.climb.ClimbBudget.read_mountinfo`).
        """
        if namespace is not None and namespace in self._their_mounts:
            return self._their_mounts[namespace]
        read = _read_mountinfo_text(f"{self.proc}/{pid}/mountinfo")
        found = None if read is None else mounts.MountsById(read)
        if namespace is not None:
            self._their_mounts[namespace] = found
        if budget is not None and read is not None:
            budget.read_mountinfo(len(read))
        return found

    def _viewer_paths(
        self, pid: int, handle: int, budget: ClimbBudget | None = None
    ) -> Iterator[str]:
        """Where the caller may see the top of the mount ``handle`` (``pid``'s cwd) is on.

        Asked only when the climb from the cwd found no ``.git``. The mount is
        the one the open directory is on (``mnt_id`` of its descriptor); the
        process's ``mountinfo`` is read (bounded) only when it is in another
        mount namespace: in the caller's, the caller's own says the same.
        """
        caller = self._caller_mounts()
        fdinfo = read_bounded(f"{self.proc}/self/fdinfo/{handle}", SMALL_READ_MAX)
        if caller is None or isinstance(fdinfo, Unknown):
            return iter(())
        mount_id = parse_fdinfo_mount_id(fdinfo[0])
        namespace, table = caller
        try:
            theirs_namespace: str | None = os.readlink(f"{self.proc}/{pid}/ns/mnt")
        except OSError:
            theirs_namespace = None
        same = theirs_namespace == namespace
        theirs: Mapping[int, MountEntry]
        if same:
            theirs = table.by_id
        else:
            read = self._mounts_of(pid, theirs_namespace, budget)
            if read is None:
                return iter(())
            theirs = read
        if mount_id is None:
            return iter(())
        return mounts.candidates(theirs, mount_id, table, same_namespace=same)

    def _owner(self, pid: int) -> tuple[int | Unknown, str | Unknown]:
        return self.read_uid(pid), self.read_cwd(pid)

    def _uid(self, pid: int) -> int | Unknown:
        """The owner a first pass filters by: the owner of ``/proc/PID`` (one ``stat``).

        The kernel gives that directory the process's effective uid, or root
        when the process is not dumpable; for root the real uid is read from
        ``status``. A process whose effective uid is another user's acts with
        that user's rights (a setuid program), and is filtered as that user's:
        the full scan reads the real uid of every run it reports.
        """
        try:
            owner = os.stat(f"{self.proc}/{pid}").st_uid
        except OSError as error:
            return unknown_of(error)
        return self.read_uid(pid) if owner == 0 else owner

    def _filter_uid(self, pid: int, viewer_uid: int | Unknown | None) -> int | Unknown:
        """The owner of ``/proc/PID`` (one ``stat``), its real uid only where that could matter.

        ``/proc/PID`` is root's for a process of root and for one that is not
        dumpable, whoever runs it. For a filter that keeps root's processes
        (``viewer_uid`` 0) either is kept, and the real uid of each run is read
        with its owner later: its ``status`` is not read here (a root viewer's
        chain of thousands of processes costs one ``stat`` each). For any
        other viewer, a root-owned entry may hide the viewer's own process:
        its real uid is read (:meth:`_uid`).
        """
        if viewer_uid != 0:
            return self._uid(pid)
        try:
            return os.stat(f"{self.proc}/{pid}").st_uid
        except OSError as error:
            return unknown_of(error)

    def _cwd(self, pid: int) -> str | Unknown:
        return self.read_cwd(pid)

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

    def _root(
        self, pid: int, cwd: str | Unknown, rules: RootRules, budget: ClimbBudget | None = None
    ) -> Root | Unknown:
        if isinstance(cwd, Unknown) and cwd.reason is not Reason.DELETED:
            return cwd
        return self.read_root(pid, rules, cwd if isinstance(cwd, str) else None, budget)
