"""``runctx run [--wait | --mode MODE] [--timeout DURATION] -- COMMAND [ARG...]``.

Checks, then runs the command in place of runctx (``exec``), so that its pid,
its exit status and the signals sent to it are its own: nothing sits in
between to forward or translate them.

1. A command that is not a test run (``runctx run -- make docs``) is run at
   once; nothing is scanned.
2. A test run is checked with the policy every hook uses
   (:mod:`runctx.policy`), from the current directory (or where a ``cd``
   in a ``sh -c`` string leads). Only runs of the checkout that started before
   this one count, so two runs started at once never wait for each other.

   - nothing else live: run it;
   - only foreign runs: a note on stderr (who, why foreign, the box's load),
     then run it;
   - another live run of this checkout, by ``--mode`` (``--wait`` is
     ``--mode wait``), else ``$RUNCTX_ON_SAME_CHECKOUT``, else
     ``[tool.runctx] on-same-checkout``, else ``stop``:

     - ``stop``: say why on stderr and exit :data:`EXIT_REFUSED` (75);
     - ``ask``: on a terminal, ask; yes runs it, anything else exits 75.
       Without a terminal, as ``stop``;
     - ``warn``: say it on stderr, then run it;
     - ``wait``: wait for those runs to end (progress on stderr), then run it;
       exit 75 if ``--timeout`` passes first, or if ``/proc`` here is another
       pid namespace's (runctx follows pids only in its own).

   - another user's live run in this very checkout, by ``[tool.runctx]
     on-shared-tree`` (or ``$RUNCTX_ON_SHARED_TREE``), else ``stop``: ``stop``,
     ``ask`` and ``warn`` as above; ``--wait`` does not wait for it (runctx
     never waits for another user's run).
   - a busy box (over a pressure or memory threshold, whoever's runs cause
     it), by ``[tool.runctx] on-busy-box`` (or ``$RUNCTX_ON_BUSY_BOX``), else
     ``off``: ``warn`` says so, ``wait`` waits until it is not (``--timeout``
     bounds it; exit 75 when it passes).

3. The command gets ``RUNCTX_RUN=checked`` in its environment (``quiet`` with
   ``-q``), so that the pytest plugin of a session it starts does not say
   again what was said here (:mod:`runctx.handoff`). ``-q`` silences the
   notes and progress of both.

Exit statuses: the command's own; 75 not started because another run of this
checkout is live; 127 command not found; 126 not executable; 1 a malformed
``[tool.runctx]`` (the command is not run); 2 usage error. If runctx itself
fails while checking, it says so in one line on stderr and runs the command.
Beside a file system that may stop answering (a network one, FUSE), the
check runs in a child (:mod:`runctx.cli.apart`): one held by a file system
that does not answer (a hung network mount) is such a failure, and the line
names the process and the path that hold it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import signal
import sys
from typing import NoReturn

from runctx import policy
from runctx.busy import BoxPressure
from runctx.cli.apart import bounded
from runctx.cli.common import duration
from runctx.cli.wait import Progress, seconds_text
from runctx.exceptions import ConfigError, PidNamespaceError
from runctx.exits import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_REFUSED, EXIT_USAGE
from runctx.handoff import CHECKED, HANDOFF_ENV, QUIET
from runctx.looking import may_stop_answering
from runctx.modes import Mode
from runctx.policy import Action, Decision
from runctx.present.escape import visible
from runctx.present.output import say
from runctx.present.words import describe_ours
from runctx.report import JudgedRun
from runctx.roots import checkout_root
from runctx.said import terminal_listener
from runctx.settings import Settings, settings_for
from runctx.shell.commands import TestInvocation, test_invocations
from runctx.waiting import WaitListener, wait_as_decided

EXIT_NOT_EXECUTABLE = 126
EXIT_NOT_FOUND = 127
RUN_IT = 0
"""The status of the child that checked (:func:`_checked`) when the command is to run."""


DESCRIPTION = (
    "Check for other live test runs of this checkout, then wait, refuse or warn "
    "as configured, and run COMMAND in place of runctx. Exit 75 when it was not "
    "started."
)
"""What ``runctx run --help`` says first."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``run``."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--mode",
        choices=[mode.value for mode in Mode],
        help="what to do when another run of this checkout is live "
        "(default: $RUNCTX_ON_SAME_CHECKOUT, else [tool.runctx] on-same-checkout, else stop)",
    )
    group.add_argument(
        "--wait", action="store_true", help="wait for the other runs to end (--mode wait)"
    )
    parser.add_argument(
        "--timeout",
        type=duration,
        metavar="DURATION",
        help="with --wait: give up after DURATION (30, 90s, 10m, 1h) and exit 75",
    )
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no notes or progress (the pytest plugin of the command's session is quiet too)",
    )
    parser.add_argument(
        "argv", nargs=argparse.REMAINDER, metavar="COMMAND", help="-- COMMAND [ARG...]"
    )


def run(args: argparse.Namespace) -> int:
    """Check, then exec the command (this returns only when it is not run)."""
    command = list(args.argv)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        hint = (
            " (from pre-commit: give it as the hook's args, e.g. args: [pytest, -q])"
            if os.environ.get("PRE_COMMIT")
            else ""
        )
        say(f"runctx run: error: give the command to run: runctx run -- COMMAND{hint}")
        return EXIT_USAGE
    mode = Mode.WAIT if args.wait else Mode(args.mode) if args.mode else None
    checked = False
    try:
        cwd = os.getcwd()
        settings = settings_for(checkout_root(cwd))
        invocations = test_invocations(shlex.join(command), cwd, settings.patterns)
        status = _checked(invocations, mode, args, settings) if invocations else None
        checked = bool(invocations)
    except ConfigError:
        raise
    except Exception as error:  # noqa: BLE001 - runctx failing must not stop the run
        say(f"runctx: could not check for other runs ({_what(error)}); running it anyway")
        status = None
    if status is not None:
        return status
    if args.quiet:
        os.environ[HANDOFF_ENV] = QUIET
    elif checked:
        os.environ[HANDOFF_ENV] = CHECKED
    return _exec(command)


def _checked(
    invocations: tuple[TestInvocation, ...],
    mode: Mode | None,
    args: argparse.Namespace,
    settings: Settings,
) -> int | None:
    """:func:`_check`; in a child where a file system may stop answering (a network one, FUSE).

    A scan that looks at a file system that stopped answering (a hung
    network mount) waits in the kernel, where no signal ends it; in a child
    (:func:`runctx.cli.apart.bounded`) it says what holds it, and the
    command runs anyway, as when runctx fails.
    """
    if not may_stop_answering():
        return _check(invocations, mode, args, settings)

    def checked() -> int:
        try:
            status = _check(invocations, mode, args, settings)
        except ConfigError as error:
            say(f"runctx: error: {error}")
            return EXIT_ERROR
        except KeyboardInterrupt:
            return EXIT_INTERRUPTED
        except Exception as error:  # noqa: BLE001 - runctx failing must not stop the run
            say(f"runctx: could not check for other runs ({_what(error)}); running it anyway")
            return RUN_IT
        return RUN_IT if status is None else status

    held: list[str] = []
    status = bounded(None, checked, held.append)
    if held:
        say(f"runctx: could not check for other runs ({held[0]}); running it anyway")
        return None
    return None if status == RUN_IT else status


def _check(
    invocations: tuple[TestInvocation, ...],
    mode: Mode | None,
    args: argparse.Namespace,
    settings: Settings,
) -> int | None:
    """None to run the command now, or the exit status when it is not run."""
    decision = policy.decide(
        invocations, own_run=True, mode=mode, settings=settings, listener=terminal_listener()
    )
    action = decision.action
    if action is Action.SILENT:
        return None
    if action in {Action.NOTE, Action.WARN}:
        if not args.quiet:
            say(decision.message)
        return None
    if action is Action.ASK:
        return _ask(decision)
    if action is Action.STOP:
        say(decision.message)
        return EXIT_REFUSED
    return _wait(decision, args, settings)


def _ask(decision: Decision) -> int | None:
    say(decision.message)
    if not (os.isatty(0) and os.isatty(2)):
        say("runctx: not started: this checkout asks first, and there is no terminal to ask on")
        return EXIT_REFUSED
    sys.stderr.write("runctx: start it anyway? [y/N] ")
    sys.stderr.flush()
    try:
        answer = sys.stdin.readline()
    except KeyboardInterrupt:
        answer = ""
    if answer.strip().lower() in {"y", "yes"}:
        return None
    say("runctx: not started")
    return EXIT_REFUSED


class _Shown(WaitListener):
    """What a wait shows on stderr: the runs waited for, a live line, the box's pressure."""

    def __init__(self, progress: Progress, *, quiet: bool) -> None:
        self.progress = progress
        self.quiet = quiet

    def turn_changed(self, blocking: tuple[JudgedRun, ...]) -> None:
        self.progress.change(blocking)

    def turn_polled(self, blocking: tuple[JudgedRun, ...], waited: float) -> None:
        self.progress.poll(blocking, waited)

    def room_changed(self, pressure: BoxPressure) -> None:
        if pressure.busy and not self.quiet:
            say("runctx: waiting for room: " + ", ".join(pressure.reasons))


def _wait(decision: Decision, args: argparse.Namespace, settings: Settings) -> int | None:
    """Wait as the decision asks (:func:`runctx.waiting.wait_as_decided`); None to run it."""
    progress = Progress(sys.stderr, live=sys.stderr.isatty(), quiet=args.quiet)
    try:
        outcome = wait_as_decided(
            decision,
            timeout=args.timeout,
            settings=settings,
            listener=_Shown(progress, quiet=args.quiet),
        )
    except PidNamespaceError as error:
        progress.end(f"runctx: not started: {error}")
        return EXIT_REFUSED
    except KeyboardInterrupt:
        progress.end("runctx: interrupted while waiting; not started")
        raise
    total = seconds_text(outcome.waited_seconds)
    if outcome.turn is not None and not outcome.turn.ready:
        still = "; ".join(describe_ours(j) for j in outcome.turn.blocking) or (
            "unknown, the last scan was cut by --timeout"
        )
        progress.end(f"runctx: not started: timed out after {total}; still live: {still}")
        return EXIT_REFUSED
    if outcome.room is not None and not outcome.room.ready:
        progress.end(
            f"runctx: not started: timed out after {total}; the box is still "
            "busy: " + ", ".join(outcome.room.pressure.reasons)
        )
        return EXIT_REFUSED
    room_seconds = outcome.room.waited_seconds if outcome.room is not None else 0.0
    turn = seconds_text(outcome.waited_seconds - room_seconds)
    turn_waited = outcome.turn is not None and progress.waited
    progress.end(f"runctx: waited {turn}; starting now" if turn_waited else None)
    if outcome.room is not None and not args.quiet:
        room = seconds_text(outcome.room.waited_seconds)
        say(f"runctx: waited {room} for room; starting now")
    return None


def _exec(command: list[str]) -> NoReturn:
    """Replace runctx with the command; exit 127/126 if it cannot be started."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
    # Python ignores SIGPIPE and SIGXFSZ; an ignored signal stays ignored across exec.
    for name in ("SIGPIPE", "SIGXFSZ"):
        number = getattr(signal, name, None)
        if number is not None:
            signal.signal(number, signal.SIG_DFL)
    try:
        os.execvp(command[0], command)  # noqa: S606 - replacing runctx with the command is the point
    except FileNotFoundError:
        say(f"runctx: {visible(command[0])}: command not found")
        raise SystemExit(EXIT_NOT_FOUND) from None
    except OSError as error:
        say(f"runctx: {visible(command[0])}: cannot run it: {error.strerror or error}")
        raise SystemExit(EXIT_NOT_EXECUTABLE) from None


def _what(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
