"""Giving a new process a pid just freed, to prove that a process is followed by its identity.

As root, ``clone3`` with ``set_tid`` asks the kernel for exactly that pid: it
is given, or the call fails with EEXIST when a process holds it, so no other
process forking at the same moment can take it in between (on a busy box
with a small ``pid_max`` that race is real). Where ``clone3`` is missing,
the older way: write ``target - 1`` to ``/proc/sys/kernel/ns_last_pid`` and
fork at once, a few hundred times, under a lock shared by the test processes.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import signal
import tempfile
from collections.abc import Sequence
from pathlib import Path

import psutil
from proctools import Orphan, wait_for

NS_LAST_PID = "/proc/sys/kernel/ns_last_pid"
LOCK_PATH = Path(tempfile.gettempdir()) / "runctx-tests-ns_last_pid.lock"
ATTEMPTS = 500
TRIES = 5
SYS_CLONE3 = 435  # the same number on every architecture (asm-generic)


class _CloneArgs(ctypes.Structure):
    """``struct clone_args`` of ``clone3(2)``, up to ``cgroup``."""

    _fields_ = [
        (name, ctypes.c_uint64)
        for name in (
            "flags",
            "pidfd",
            "child_tid",
            "parent_tid",
            "exit_signal",
            "stack",
            "stack_size",
            "tls",
            "set_tid",
            "set_tid_size",
            "cgroup",
        )
    ]


def _clone_with_pid(pid: int) -> int:
    """Fork into a child with exactly ``pid``: its pid here, 0 in the child, -errno on failure.

    Called in a single-threaded process, through ``PyDLL`` so that the GIL is
    held across the call and the child owns it.
    """
    libc = ctypes.PyDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    tids = (ctypes.c_int32 * 1)(pid)
    args = _CloneArgs(exit_signal=signal.SIGCHLD, set_tid=ctypes.addressof(tids), set_tid_size=1)
    child = libc.syscall(SYS_CLONE3, ctypes.byref(args), ctypes.c_size_t(ctypes.sizeof(args)))
    return int(child) if child >= 0 else -ctypes.get_errno()


def wait_pid_free(pid: int, timeout: float = 10.0) -> None:
    """Wait until no process, not even a zombie, holds ``pid``."""
    wait_for(lambda: not psutil.pid_exists(pid), timeout, f"pid {pid} to be released")


def spawn_orphan_with_pid(
    pid: int, argv: Sequence[str], cwd: Path, env: dict[str, str] | None = None
) -> Orphan:
    """Start ``argv`` in ``cwd`` as a double-forked orphan that gets exactly ``pid``.

    Like :func:`proctools.spawn_orphan`, the process leads its own session and
    process group (unless a group with that id is still alive: then it stays in
    the group it was forked in), which the run factory kills whole.
    Tests call it through the ``runs`` fixture, which reaps what it started.

    Fails (AssertionError) when the pid could not be had, e.g. because another
    process took it first and still holds it.
    """
    for _ in range(TRIES):  # a process that took the pid meanwhile is waited out
        wait_pid_free(pid)
        if _spawn_as(pid, argv, cwd, env) == pid:
            return Orphan(pid)
    msg = f"could not make the kernel reuse pid {pid} (other processes kept taking it)"
    raise AssertionError(msg)


def _spawn_as(pid: int, argv: Sequence[str], cwd: Path, env: dict[str, str] | None) -> int:
    """One try, from a middle process that exits at once: ``pid`` if it was had, else 0."""
    with LOCK_PATH.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        read_end, write_end = os.pipe()
        middle = os.fork()
        if middle == 0:  # pragma: no cover - runs in the forked child
            got = 0
            try:
                os.close(read_end)
                got = _take_pid(pid, argv, cwd, env)
                os.write(write_end, str(got).encode())
            finally:
                os._exit(0)
        os.close(write_end)
        os.waitpid(middle, 0)
        with os.fdopen(read_end, "rb") as pipe:
            return int(pipe.read() or b"0")


def _exec_orphan(argv: Sequence[str], cwd: Path, env: dict[str, str] | None) -> None:
    """In the new child: lead a session if the pid names no group yet, then exec."""
    with contextlib.suppress(OSError):  # EPERM: a group has that id
        os.setsid()
    os.chdir(cwd)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.execve(argv[0], list(argv), env if env is not None else dict(os.environ))


def _take_pid(pid: int, argv: Sequence[str], cwd: Path, env: dict[str, str] | None) -> int:
    """Start ``argv`` as ``pid`` (in the middle process); ``pid`` if it worked, else 0."""
    child = _clone_with_pid(pid)
    if child == 0:  # pragma: no cover - the new child
        _exec_orphan(argv, cwd, env)
    if child == pid:
        return pid
    if child == -errno.EEXIST:
        return 0
    for _ in range(ATTEMPTS):  # no clone3 with set_tid here: steer the pid counter
        with open(NS_LAST_PID, "w") as counter:
            counter.write(str(pid - 1))
        child = os.fork()
        if child == 0:  # pragma: no cover - the new child
            if os.getpid() != pid:
                os._exit(0)
            _exec_orphan(argv, cwd, env)
        if child == pid:
            return pid
        os.waitpid(child, 0)
    return 0
