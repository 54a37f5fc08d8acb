"""A subcommand with ``--timeout`` run in a child process: its bound holds whatever a read does.

``status``, ``check`` and ``wait`` cut their own scan at ``--timeout``, but
a deadline cannot cut a read the kernel waits on uninterruptibly: looking at
a process whose cwd is on a file system that stopped answering (a hung NFS
or sshfs mount, a stuck FUSE server) holds the reader until it answers, and
not even Ctrl-C ends that wait. So the subcommand runs in a child; this
process waits for it until ``--timeout`` (from its own start) and a short
grace, and gives up then, saying why. Where stdout or stderr is a pipe (a
pre-commit hook, ``| less``), what the child writes comes through this
process, so that a child left waiting holds no pipe its reader waits on.
"""

from __future__ import annotations

import os
import select
import stat
import sys
import time
from collections.abc import Callable

from runctx.cli.common import born_now_as, process_age
from runctx.exits import EXIT_ERROR

BOUNDED_COMMANDS = frozenset({"status", "check", "wait"})
"""The subcommands whose ``--timeout`` is a bound on wall time this holds."""
HELD_GRACE_SECONDS = 0.5
"""How long past ``--timeout`` the child is waited for (its own cut ends before it)."""
HELD = (
    "the scan is held in a read that does not return (a file system that does not answer, "
    "such as a hung network mount?)"
)
RELAY_BYTES = 65536


def bounded(timeout: float | None, run: Callable[[], int], gave_up: Callable[[str], None]) -> int:
    """``run()``'s exit status, done by a child and waited for ``timeout`` and a grace.

    Without ``timeout`` it runs here. Past the bound ``gave_up`` is told why
    and the status is :data:`~runctx.exits.EXIT_ERROR`; the child is left to
    end when its read does.
    """
    if timeout is None:
        return run()
    age = process_age()
    ends_at = time.monotonic() - age + timeout + HELD_GRACE_SECONDS
    sys.stdout.flush()
    sys.stderr.flush()
    relayed = {fd: os.pipe() for fd in (1, 2) if _is_pipe(fd)}
    child = os.fork()
    if child == 0:  # pragma: no cover - the child ends in os._exit
        _run_as_child(run, relayed, age)
    for _read_end, write_end in relayed.values():
        os.close(write_end)
    status = _wait(child, {read_end: fd for fd, (read_end, _w) in relayed.items()}, ends_at)
    if status is None:
        gave_up(f"{HELD}; gave up after --timeout {timeout:g}s")
        return EXIT_ERROR
    return status


def _is_pipe(fd: int) -> bool:
    """Whether ``fd`` is a pipe or a socket: a reader waits for its end."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _run_as_child(  # pragma: no cover - runs in the child
    run: Callable[[], int], relayed: dict[int, tuple[int, int]], age: float
) -> None:
    """Run with stdout and stderr through ``relayed``'s pipes; end with its status.

    ``--timeout`` still counts from the parent's start (``age`` at the fork).
    """
    status = EXIT_ERROR
    try:
        born_now_as(age)
        for fd, (read_end, write_end) in relayed.items():
            os.close(read_end)
            os.dup2(write_end, fd)
            os.close(write_end)
        status = run()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(status)


def _wait(child: int, relays: dict[int, int], ends_at: float) -> int | None:
    """The child's exit status, what it wrote passed on meanwhile; None past ``ends_at``."""
    poller = select.poll()
    for read_end in relays:
        poller.register(read_end, select.POLLIN)
    status: int | None = None
    try:
        while status is None or relays:
            left = ends_at - time.monotonic()
            if left <= 0:
                return None
            for read_end, _event in poller.poll(min(left, 0.05) * 1000):
                data = os.read(read_end, RELAY_BYTES)
                if data:
                    _write_all(relays[read_end], data)
                else:
                    poller.unregister(read_end)
                    os.close(read_end)
                    del relays[read_end]
            if status is None:
                done, wait_status = os.waitpid(child, os.WNOHANG)
                if done:
                    status = os.waitstatus_to_exitcode(wait_status)
        return status
    finally:
        for read_end in relays:
            os.close(read_end)


def _write_all(fd: int, data: bytes) -> None:
    try:
        while data:
            data = data[os.write(fd, data) :]
    except OSError:  # the reader went away: the child's status still decides
        pass
