"""The portable process source: reads processes through psutil.

This is the source for macOS and other systems without ``/proc``; it can be
chosen on Linux too (``RUNCTX_SOURCE=psutil``), so that its parity with
:mod:`runctx.sources.procfs` is tested on real processes. It gives the same records
with the same explicit unknowns.

psutil's errors become values here, exactly once, in :func:`mapped`:
``ZombieProcess`` is a zombie, ``NoSuchProcess`` is gone, ``AccessDenied`` is
denied, and an ``OSError`` that psutil lets through is translated by its errno
(:func:`runctx.sources.errors.unknown_of`, shared with the procfs source).
Nothing above this module catches psutil errors or ``OSError``. psutil's
``ad_value`` default is never used: an unreadable field that reads as ``None``
would look like a real value.

Every platform path goes through the same mapping and the same assembly
(:func:`build_record`), which the Linux run exercises; only which platform call
raises what is left to psutil. On macOS, ``kinfo_proc`` gives ppid, status,
name, creation time and uids for every pid, while another user's cwd
(``proc_pidinfo``), argv (``KERN_PROCARGS2``, whose errno-0 failures psutil
reports as ``AccessDenied``) and cpu and memory (task info, where psutil denies
foreign pids up front instead of hanging in ``task_for_pid``) are denied.

What differs from the procfs source:

- ``start`` is the creation time in centiseconds since the epoch, not clock
  ticks since boot. Start tokens compare only within one source. psutil adds
  the boot time to each process's start when asked, so a step of the system
  clock during a scan can shift tokens; an identity check that then fails says
  gone (unknown), never a wrong process.
- ``comm`` is psutil's ``name()``: on Linux, for a name of 15 characters or
  more, the basename of ``argv[0]`` when it extends the kernel's truncated
  15-character comm.
- ``argv``: psutil splits a command line that was rewritten without a final NUL
  (a process title) on spaces; procfs keeps it as one argument.
- Kernel threads: psutil has no flag for them. On Linux a process counts as a
  kernel thread when it is kthreadd (pid 2) or its child *and* has no address
  space (no virtual memory): the second condition keeps an ordinary process
  that happens to be pid 2 of a container's pid namespace (a ``docker exec``
  shell) and its children visible. Pid 0 (macOS ``kernel_task``) counts as a
  kernel thread; macOS has no others.
- cpu and memory of a process whose task info is denied (another user's, on
  macOS) are explicit unknowns; the process is still seen.
- The cwd: psutil's Linux ``cwd()`` strips the ``" (deleted)"`` suffix when the
  stripped path does not exist, so a removed cwd is recognised only by its path
  no longer being a directory; a directory created again at the same path hides
  the removal (procfs checks the link count of the directory itself). ``""``
  (undeterminable) is absent.
- Mount namespaces: psutil gives a cwd as path text only, so the checkout
  root is resolved from that text in the caller's own view
  (:func:`runctx.roots.checkout_root`). For a process in another mount
  namespace (a container, ``unshare -m``) that text names a path of *its*
  tree, so this source cannot tell a bind-mounted twin of this checkout from
  an impostor behind this checkout's path (procfs climbs from the directory
  itself). On Linux such a process's root is an explicit unknown
  (``other-namespace``), never a guess; elsewhere (macOS has no mount
  namespaces) the text is taken as a path of ours. A removed cwd is known by
  its former text alone: its root is the topmost removed directory on that
  text, marked deleted, with the checkout of the nearest directory still there.
- No ``hidepid=`` detection: :meth:`PsutilSource.proc_mount` is absent, and
  processes hidden by the mount are simply not listed. On Linux, psutil reads
  a procfs too: whether it is the caller's pid namespace's, and the caller's
  pid in it, are read as the procfs source reads them.
- Load: the load average, the usable CPUs (affinity where the system has
  it) and the memory (``virtual_memory()``: total and available) through
  psutil; no CPU pressure (PSI is a procfs file), and no cgroup CPU quota.
- What a run inherited (who started it): the environment through
  ``environ()`` (another user's is denied on macOS; runctx never asks for
  another user's anyway) and the terminal through ``terminal()``; no cgroup
  (psutil has no call for it), so a systemd unit is never named through it.
  ``environ()`` reads the whole environment (the kernel bounds it: ``ARG_MAX``
  on macOS, the stack limit on Linux), not the procfs source's 256 KiB; the
  values kept are bounded alike (256 bytes).
- Cost: several reads per process instead of two, and a ``psutil.Process`` per
  pid; procfs is the fast path on Linux.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from typing import NamedTuple, ParamSpec, TypeVar

import psutil

from runctx.checkout import Root, RootRules
from runctx.climb import ClimbBudget
from runctx.environment import View
from runctx.exceptions import SourceError
from runctx.looking import WATCH, Looked
from runctx.records import ProcIdentity, ProcRecord, bounded_argv
from runctx.roots import checkout_root, root_of_removed
from runctx.sources import pidns
from runctx.sources.base import KERNEL_THREAD, SourceBase
from runctx.sources.errors import no_procfs_message, unknown_of
from runctx.sources.load import Load
from runctx.sources.proctext import MemInfo, ProcMount, kept_value
from runctx.unknown import NOT_READ, Reason, Unknown

_T = TypeVar("_T")
_P = ParamSpec("_P")

KTHREADD_PID = 2
KERNEL_PID = 0
NO_PROCFS = Unknown(Reason.ABSENT, "psutil reads no procfs mount")
NO_CGROUP = Unknown(Reason.ABSENT, "no cgroup through psutil")

STATE_LETTERS = {
    "running": "R",
    "sleeping": "S",
    "disk-sleep": "D",
    "stopped": "T",
    "tracing-stop": "t",
    "zombie": "Z",
    "dead": "X",
    "wake-kill": "K",
    "waking": "W",
    "idle": "I",
    "parked": "P",
    "locked": "L",
}
"""psutil's status names as the one-letter states of ``/proc/PID/stat``."""

EXITED_STATES = frozenset({"Z", "X"})


def mapped(call: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> _T | Unknown:
    """Call ``call``; an error of the process becomes an unknown with its reason.

    ``ZombieProcess`` is caught before ``NoSuchProcess``, its base class.
    """
    try:
        return call(*args, **kwargs)
    except psutil.ZombieProcess:
        return Unknown(Reason.ZOMBIE)
    except psutil.NoSuchProcess:
        return Unknown(Reason.GONE)
    except psutil.AccessDenied:
        return Unknown(Reason.DENIED)
    except OSError as error:
        return unknown_of(error)


def state_letter(status: str) -> str:
    """The one-letter ``/proc`` state of a psutil status (``?`` if it has none)."""
    return STATE_LETTERS.get(status, "?")


def is_kernel_thread(pid: int, ppid: int, vms: int | Unknown, *, linux: bool) -> bool:
    """Whether a process is a kernel thread, as far as psutil can tell.

    On Linux: kthreadd (pid 2) or its child, with no address space. An
    unreadable memory size is not proof: such a process stays visible.
    """
    if pid == KERNEL_PID:
        return True
    if not linux or KTHREADD_PID not in (pid, ppid):
        return False
    return vms == 0


class Basics(NamedTuple):
    """What one oneshot read of a process gives on every platform."""

    ppid: int
    status: str
    name: str
    create_time: float


class Memory(NamedTuple):
    """Resident and virtual size in bytes."""

    rss: int
    vms: int


def _read_basics(process: psutil.Process) -> Basics:
    return Basics(process.ppid(), process.status(), process.name(), process.create_time())


def _read_memory(process: psutil.Process) -> Memory:
    info = process.memory_info()
    return Memory(info.rss, info.vms)


def _read_cpu(process: psutil.Process) -> float:
    times = process.cpu_times()
    return float(times.user + times.system)


def _read_argv(process: psutil.Process) -> tuple[str, ...]:
    """Its argv, kept to the bound the procfs source reads (marked truncated past it).

    psutil reads the whole command line; what is kept, shown and matched is
    bounded like the procfs source's (:func:`runctx.records.bounded_argv`).
    """
    return bounded_argv(process.cmdline())


def _real_uid(process: psutil.Process) -> int:
    return int(process.uids().real)


def start_token(create_time: float) -> int:
    """The start token of a process: its creation time in centiseconds."""
    return round(create_time * 100)


def _first_exit(*values: object) -> Unknown | None:
    """The first reading that says the process is gone or a zombie."""
    for value in values:
        if isinstance(value, Unknown) and value.reason in (Reason.GONE, Reason.ZOMBIE):
            return value
    return None


def build_record(  # noqa: PLR0913 - one argument per reading, each value or unknown
    pid: int,
    basics: Basics,
    *,
    pgid: int | Unknown,
    sid: int | Unknown,
    argv: tuple[str, ...] | Unknown,
    cpu: float | Unknown,
    memory: Memory | Unknown,
    now: float,
) -> ProcRecord | Unknown:
    """Assemble the record of one process from its readings.

    A reading that says gone or zombie makes the whole process so. A process
    whose process group or sid is unreadable is unreadable: the record cannot
    hold it. An unreadable argv, cpu time or memory stays an explicit unknown.
    """
    exited = _first_exit(pgid, sid, argv, cpu, memory)
    if exited is not None:
        return exited
    if isinstance(pgid, Unknown):
        return pgid
    if isinstance(sid, Unknown):
        return sid
    return ProcRecord(
        pid=pid,
        ppid=basics.ppid,
        pgid=pgid,
        sid=sid,
        state=state_letter(basics.status),
        comm=basics.name,
        start=start_token(basics.create_time),
        argv=argv,
        uid=NOT_READ,
        cwd=NOT_READ,
        cpu_seconds=cpu,
        rss_bytes=memory if isinstance(memory, Unknown) else memory.rss,
        age_seconds=max(0.0, now - basics.create_time),
    )


def cwd_value(path: str) -> str | Unknown:
    """The cwd psutil gave, or why it is not a path of a live directory.

    psutil gives ``""`` when it cannot determine the cwd; a path that is no
    longer a directory was removed (psutil strips the ``" (deleted)"`` suffix).
    A path that cannot be checked (no permission on a parent) is kept.
    """
    if not path:
        return Unknown(Reason.ABSENT, "cwd undeterminable")
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return Unknown(Reason.DELETED, path)
    except OSError:
        return path
    if not stat.S_ISDIR(mode):
        return Unknown(Reason.DELETED, path)
    return path


def other_mount_namespace(pid: int) -> Unknown | None:
    """Why a Linux process's cwd text cannot be resolved here: another mount namespace.

    None when it shares the caller's mount namespace, or when either cannot
    be read (then the text is resolved as usual, and a denied cwd says so).
    """
    proc = psutil.PROCFS_PATH
    try:
        theirs = os.readlink(f"{proc}/{pid}/ns/mnt")
        ours = os.readlink(f"{proc}/self/ns/mnt")
    except OSError:
        return None
    if theirs == ours:
        return None
    return Unknown(
        Reason.OTHER_NAMESPACE,
        f"{theirs}: psutil gives the cwd as text, which names a path of that namespace",
    )


ROOTS_KEPT_MAX = 4096
"""Walks a scan keeps the answer of, one per directory (and rules)."""


class PsutilSource(SourceBase):
    """Reads processes through psutil (macOS, other systems, and Linux on request)."""

    name = "psutil"

    def __init__(self) -> None:
        """A source that has walked nothing yet."""
        self._roots: dict[tuple[object, ...], Root] = {}

    def _forget_the_last_pass(self) -> None:
        """The walks of the last pass: each is made again if asked."""
        self._roots = {}

    def proc_mount(self) -> ProcMount | Unknown:
        """No procfs mount is read, so none limits what is seen."""
        return NO_PROCFS

    def own_pid_namespace(self) -> bool:
        """Whether psutil's pids are the caller's: on Linux, whether its procfs is ours."""
        if psutil.LINUX:
            return pidns.own_pid_namespace(psutil.PROCFS_PATH)
        return True

    def caller_pid(self) -> int | Unknown:
        """The caller's pid as psutil numbers pids (on Linux, through its procfs)."""
        if psutil.LINUX:
            return pidns.caller_pid(psutil.PROCFS_PATH)
        return os.getpid()

    def load(self) -> Load:
        """Usable CPUs and the load average through psutil; CPU pressure is procfs-only."""
        try:
            cpus: int | Unknown = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            count = psutil.cpu_count()
            cpus = count or Unknown(Reason.ABSENT, "cpu count")
        average = mapped(psutil.getloadavg)
        memory = mapped(psutil.virtual_memory)
        return Load(
            usable_cpus=cpus,
            load_average=average if isinstance(average, Unknown) else tuple(average),  # type: ignore[arg-type]
            cpu_pressure=Unknown(Reason.ABSENT, "no CPU pressure through psutil"),
            memory=memory
            if isinstance(memory, Unknown)
            else MemInfo(total_bytes=int(memory.total), available_bytes=int(memory.available)),
        )

    def _now(self) -> float:
        return time.time()

    def _pids(self) -> list[int]:
        try:
            return psutil.pids()
        except (IndexError, OSError) as error:  # psutil on Linux without /proc: an empty list
            raise SourceError(no_procfs_message("/proc")) from error

    def _read(
        self, pid: int, now: float, argv_wanted: Callable[[str], bool] | None = None
    ) -> ProcRecord | Unknown:
        process = mapped(psutil.Process, pid)
        if isinstance(process, Unknown):
            return process
        with process.oneshot():
            basics = mapped(_read_basics, process)
            if isinstance(basics, Unknown):
                return basics
            if state_letter(basics.status) in EXITED_STATES:
                return Unknown(Reason.ZOMBIE)
            memory = mapped(_read_memory, process)
            vms = memory.vms if isinstance(memory, Memory) else memory
            if is_kernel_thread(pid, basics.ppid, vms, linux=psutil.LINUX):
                return KERNEL_THREAD
            argv = (
                NOT_READ
                if argv_wanted is not None and not argv_wanted(basics.name)
                else mapped(_read_argv, process)
            )
            cpu = mapped(_read_cpu, process)
        return build_record(
            pid,
            basics,
            pgid=mapped(os.getpgid, pid),
            sid=mapped(os.getsid, pid),
            argv=argv,
            cpu=cpu,
            memory=memory,
            now=now,
        )

    def current_identity(self, pid: int) -> ProcIdentity | Unknown:
        """The identity of the live process holding ``pid`` now (its creation time)."""
        process = mapped(psutil.Process, pid)
        if isinstance(process, Unknown):
            return process
        status = mapped(process.status)
        if isinstance(status, Unknown):
            return status
        if state_letter(status) in EXITED_STATES:
            return Unknown(Reason.ZOMBIE)
        created = mapped(process.create_time)
        if isinstance(created, Unknown):
            return created
        return ProcIdentity(pid, start_token(created))

    def _cpu_now(self, pid: int) -> tuple[ProcIdentity, float] | Unknown:
        identity = self.current_identity(pid)
        if isinstance(identity, Unknown):
            return identity
        process = mapped(psutil.Process, pid)
        if isinstance(process, Unknown):
            return process
        cpu = mapped(_read_cpu, process)
        if isinstance(cpu, Unknown):
            return cpu
        return identity, cpu

    def _environ(self, pid: int, wanted: frozenset[str]) -> dict[str, str] | Unknown:
        process = mapped(psutil.Process, pid)
        if isinstance(process, Unknown):
            return process
        environ = mapped(process.environ)
        if isinstance(environ, Unknown):
            return environ
        return {key: value for key, value in environ.items() if key in wanted and kept_value(value)}

    def _cgroup(self, pid: int) -> str | Unknown:
        del pid
        return NO_CGROUP

    def _tty(self, pid: int) -> bool | Unknown:
        process = mapped(psutil.Process, pid)
        if isinstance(process, Unknown):
            return process
        terminal = mapped(process.terminal)
        return terminal if isinstance(terminal, Unknown) else terminal is not None

    def _owner(self, pid: int) -> tuple[int | Unknown, str | Unknown]:
        process = mapped(psutil.Process, pid)
        if isinstance(process, Unknown):
            return process, process
        with process.oneshot():
            uid = mapped(_real_uid, process)
            path = mapped(process.cwd)
        return uid, path if isinstance(path, Unknown) else cwd_value(path)

    def _uid(self, pid: int) -> int | Unknown:
        process = mapped(psutil.Process, pid)
        if isinstance(process, Unknown):
            return process
        return mapped(_real_uid, process)

    def _executable(self, pid: int) -> tuple[str, tuple[int, int]] | Unknown:
        """The path ``exe()`` gives, and the file that text names in the caller's view."""
        other = other_mount_namespace(pid) if psutil.LINUX else None
        if other is not None:
            return other
        process = mapped(psutil.Process, pid)
        if isinstance(process, Unknown):
            return process
        path = mapped(process.exe)
        if isinstance(path, Unknown):
            return path
        if not path:
            return Unknown(Reason.ABSENT, "no executable path")
        found = mapped(os.stat, path)
        if isinstance(found, Unknown):
            return found
        return path, (found.st_dev, found.st_ino)

    def _view(self, pid: int) -> tuple[View, str | None] | Unknown:
        """The caller's own view, from the process's cwd text (psutil gives no other)."""
        other = other_mount_namespace(pid) if psutil.LINUX else None
        if other is not None:
            return other
        _uid, cwd = self._owner(pid)
        if isinstance(cwd, Unknown):
            return cwd
        return View(cwd=cwd), cwd

    def _root(
        self, pid: int, cwd: str | Unknown, rules: RootRules, budget: ClimbBudget | None = None
    ) -> Root | Unknown:
        other = other_mount_namespace(pid) if psutil.LINUX else None
        if other is not None:
            return other
        if isinstance(cwd, Unknown) and not (cwd.reason is Reason.DELETED and cwd.detail):
            return cwd
        WATCH.at(pid, Looked.CWD)  # its file system: told to whoever waits for this scan
        try:
            if isinstance(cwd, Unknown):
                return root_of_removed(cwd.detail, rules)
            return self._walked(cwd, rules, budget)
        finally:
            WATCH.done()

    def _walked(self, cwd: str, rules: RootRules, budget: ClimbBudget | None) -> Root | Unknown:
        """The checkout root of ``cwd``, walked once per directory and rules in a scan.

        Many processes work in few directories (a storm of one user's runs in
        a few checkouts): the directory is known by its text and identity (a
        ``stat``), so one renamed and another made in its place is walked
        again. A walk that found no root is not kept (it says why each time,
        and a spent budget is no answer for a walk that is not charged).
        """
        try:
            here = os.stat(cwd)
        except (OSError, ValueError):  # why is said by the walk
            return checkout_root(cwd, rules, budget)
        key = (cwd, here.st_dev, here.st_ino, rules.owners, rules.homes)
        found = self._roots.get(key)
        if found is None:
            walked = checkout_root(cwd, rules, budget)
            if isinstance(walked, Unknown):
                return walked
            found = walked
            if len(self._roots) < ROOTS_KEPT_MAX:
                self._roots[key] = found
        return found
