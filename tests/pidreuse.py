"""Forcing the kernel to reuse a pid, to prove that a process is followed by its identity.

Linux hands out the pid after ``/proc/sys/kernel/ns_last_pid`` to the next
fork. Writing ``target - 1`` there and forking right away gives the child
``target`` if no other process forked in between; a few tries make that sure.
Only root may write the file; test processes that do so take a lock first, so
that two of them never race for the same counter.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import psutil
from proctools import Orphan, wait_for

NS_LAST_PID = "/proc/sys/kernel/ns_last_pid"
LOCK_PATH = Path(tempfile.gettempdir()) / "runctx-tests-ns_last_pid.lock"
ATTEMPTS = 500


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
    wait_pid_free(pid)
    with LOCK_PATH.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        read_end, write_end = os.pipe()
        middle = os.fork()
        if middle == 0:  # pragma: no cover - runs in the forked child
            got = 0
            try:
                os.close(read_end)
                for _ in range(ATTEMPTS):
                    with open(NS_LAST_PID, "w") as counter:
                        counter.write(str(pid - 1))
                    child = os.fork()
                    if child == 0:
                        if os.getpid() != pid:
                            os._exit(0)
                        with contextlib.suppress(OSError):  # EPERM: a group has that id
                            os.setsid()
                        os.chdir(cwd)
                        devnull = os.open(os.devnull, os.O_RDWR)
                        os.dup2(devnull, 0)
                        os.execve(argv[0], list(argv), env if env is not None else dict(os.environ))
                    if child == pid:
                        got = pid
                        break
                    os.waitpid(child, 0)
                os.write(write_end, str(got).encode())
            finally:
                os._exit(0)
        os.close(write_end)
        os.waitpid(middle, 0)
        with os.fdopen(read_end, "rb") as pipe:
            got = int(pipe.read() or b"0")
    if got != pid:
        msg = f"could not make the kernel reuse pid {pid} (another process took it)"
        raise AssertionError(msg)
    return Orphan(pid)
