"""``status``, ``check``, ``wait`` and ``stop`` run in a child: a held read keeps no one.

A scan cuts itself at ``--timeout``, but no deadline can cut a read the
kernel waits on uninterruptibly: looking at a process whose cwd is on a file
system that stopped answering (a hung NFS or sshfs mount, a stuck FUSE
server) holds the reader until it answers, and not even Ctrl-C ends that
wait. So the subcommand runs in a child, and this process waits for it:

- until ``--timeout`` (from its own start) and a short grace, when given;
- until one look at a process's file system has lasted
  :data:`~runctx.looking.HELD_AFTER_SECONDS` (the child tells what it looks
  at, :mod:`runctx.looking`): the scan is held, and the message names the
  process and the path that hold it;
- Ctrl-C ends this process whatever the child does.

They run so when given ``--timeout``, or when a file system of this box may
stop answering (a network file system or FUSE,
:func:`runctx.looking.may_stop_answering`): elsewhere the fork and what the
child's writes copy would cost about 7 ms of CPU, 7% of a ``status --json``
beside 1,000 processes, which a program reading it pays on every call.
Where stdout or stderr is a pipe (a pre-commit hook,
``| less``), what the child writes comes through this process, so that a
child left waiting holds no pipe its reader waits on. Output that is no file
descriptor (a program that runs the command line in its own process, with
its own streams) cannot pass through a child: the subcommand runs there.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import sys
import time
from collections.abc import Callable
from types import FrameType

from runctx import looking
from runctx.cli.common import born_now_as, process_age
from runctx.exits import EXIT_BROKEN_PIPE, EXIT_ERROR, EXIT_INTERRUPTED
from runctx.pipes import ChildPipes

BOUNDED_COMMANDS = frozenset({"status", "check", "wait", "stop"})
"""The subcommands that may run in a child (:func:`runs_apart`): ``status`` but ``--watch``,
which scans each frame in a child of its own (:mod:`runctx.cli.watch`)."""
HELD_GRACE_SECONDS = 0.5
"""How long past ``--timeout`` the child is waited for (its own cut ends before it)."""
POLL_SECONDS = 0.05
"""How often the child's exit is looked for while its pipes are quiet."""
OWN_INTERRUPT_SECONDS = 0.2
"""How long an interrupted command waits for a child that had the same Ctrl-C to end."""
INTERRUPT_GRACE_SECONDS = 2.0
"""How long it then waits for the child it interrupted to say so and end (a held one does not)."""
PASSED_ON = (signal.SIGTERM, signal.SIGHUP)
"""The signals that end the command and are passed on to its child first."""


def runs_apart(command: str, *, watch: bool, timeout: float | None) -> bool:
    """Whether the subcommand ``command`` runs in a child (:func:`bounded`)."""
    if command not in BOUNDED_COMMANDS or watch:
        return False
    return timeout is not None or looking.may_stop_answering()


def bounded(
    timeout: float | None,
    run: Callable[[], int],
    gave_up: Callable[[str], None],
    *,
    least: float = 0.0,
) -> int:
    """``run()``'s exit status, done by a child and waited for while it is not held.

    Waited for ``timeout`` (at least ``least``, what the subcommand gives
    any timeout) and a grace when given, and until a look at a
    process's file system holds the child (:func:`runctx.looking.held`).
    Given up, ``gave_up`` is told why and the status is
    :data:`~runctx.exits.EXIT_ERROR`; the child is left to end when its read
    does. Interrupted (Ctrl-C), the child is given a moment to say so and
    end, and this process ends either way; SIGTERM and SIGHUP are passed on
    to the child before they end this process.
    """
    if not _on_descriptors():
        return run()
    age = process_age()
    ends_at = (
        float("inf")
        if timeout is None
        else time.monotonic() - age + max(timeout, least) + HELD_GRACE_SECONDS
    )
    with contextlib.suppress(OSError):  # nothing is written yet; a reader gone is the child's
        sys.stdout.flush()
        sys.stderr.flush()
    relayed = {fd: os.pipe() for fd in (1, 2) if _is_pipe(fd)}
    watch = looking.shared()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child ends in os._exit
        _run_as_child(run, relayed, age)
    child = _Child(pid, relayed, watch)
    passed_on = {signum: signal.signal(signum, child.pass_on) for signum in PASSED_ON}
    try:
        try:
            ended = child.wait_until(ends_at)
        except KeyboardInterrupt:
            return child.result() if child.interrupted() else EXIT_INTERRUPTED
        if not ended:
            gave_up(child.why(timeout))
            return EXIT_ERROR
        return child.result()
    finally:
        for signum, handler in passed_on.items():
            signal.signal(signum, handler)
        child.close()


def _on_descriptors() -> bool:
    """Whether ``sys.stdout`` and ``sys.stderr`` write to descriptors 1 and 2, as a child would."""
    try:
        return sys.stdout.fileno() == 1 and sys.stderr.fileno() == 2  # noqa: PLR2004 - the fds
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        return False


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


class _Child:
    """The child running the subcommand: its exit status, and what it writes passed on."""

    def __init__(self, pid: int, relayed: dict[int, tuple[int, int]], watch: looking.Watch) -> None:
        """Hold the child ``pid``, its pipes' read ends (``relayed``: fd -> ends), its looks."""
        self.pid = pid
        self.watch = watch
        self.holding: looking.Look | None = None
        self.status: int | None = None
        passed = {}
        for fd, (read_end, write_end) in relayed.items():
            os.close(write_end)
            passed[read_end] = fd
        self.pipes = ChildPipes(passed=passed)

    def wait_until(self, ends_at: float) -> bool:
        """Whether the child ended (and its pipes were read to their ends) before ``ends_at``.

        False as soon as a look holds it (:attr:`holding`).
        """
        while self.status is None or not self.pipes.ended:
            left = ends_at - time.monotonic()
            if left <= 0:
                return False
            self.pipes.read_for(min(left, POLL_SECONDS))
            if self.status is None:
                done, wait_status = os.waitpid(self.pid, os.WNOHANG)
                if done:
                    self.status = os.waitstatus_to_exitcode(wait_status)
                else:
                    self.holding = looking.held(self.watch, self.pid)
                    if self.holding is not None:
                        return False
        return True

    def why(self, timeout: float | None) -> str:
        """Why the child was given up: the look that holds it, or ``--timeout`` passed.

        Its text as read (a path any user may have named): each face escapes it
        as it writes it (a terminal's escapes; JSON's exact string).
        """
        if self.holding is not None:
            return looking.held_words(self.holding)
        return looking.gave_up_words(self.watch, self.pid, f"--timeout {timeout or 0:g}s")

    def interrupted(self) -> bool:
        """After Ctrl-C: whether the child, interrupted too, ended within a moment.

        From a terminal it had the same SIGINT; sent to this process alone,
        it is passed on.
        """
        with contextlib.suppress(KeyboardInterrupt):
            if self.wait_until(time.monotonic() + OWN_INTERRUPT_SECONDS):
                return True
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGINT)
        with contextlib.suppress(KeyboardInterrupt):
            return self.wait_until(time.monotonic() + INTERRUPT_GRACE_SECONDS)
        return False

    def pass_on(self, signum: int, _frame: FrameType | None) -> None:
        """A signal that ends this process: the child first, then this one, by default."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signum)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    def result(self) -> int:
        """The exit status: the child's, or a broken pipe's when stdout's reader went away."""
        if 1 in self.pipes.unwritten:  # stdout's reader went away: as the command would, it ends
            return EXIT_BROKEN_PIPE
        return self.status if self.status is not None else EXIT_ERROR

    def close(self) -> None:
        """Close the pipes' read ends (a child left waiting keeps its own)."""
        self.pipes.close()
