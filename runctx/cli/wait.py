"""``runctx wait``: block until no other run of this checkout is live.

Exit statuses: 0 ready, 75 gave up waiting (``--timeout`` passed while another run of
this checkout is still live: the same "try again later" as ``runctx run`` and the
pytest plugin), 130 interrupted, 1 error, 2 usage error.

A watcher of this checkout (a run that re-runs the tests on change, such as
``watch -n 600 pytest`` in a terminal pane) never ends by itself: it is waited
for only with ``--watchers`` (or ``on-watcher = "wait"``), and otherwise named
in one line.

Called from a shell it waits for every other run of this checkout; called from
inside a run of this checkout (a ``make test`` recipe) it waits only for the
runs that started before that one, so two runs never wait for each other.
Progress goes to stderr: a live line on a terminal, a line per change otherwise.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TextIO

from runctx.cli.common import (
    FALLBACK_COLUMNS,
    add_viewpoint_options,
    duration,
    positive_duration,
    process_age,
    settings_warned,
    source_from,
    table_width,
    viewpoint_from,
)
from runctx.exits import EXIT_REFUSED
from runctx.present.escape import visible_lines
from runctx.present.words import describe_ours, human_age
from runctx.report import JudgedRun
from runctx.waiting import DEFAULT_POLL_SECONDS, MIN_SCAN_SECONDS, wait_for_turn, watching_runs
from runctx.watchers import watcher_of

EXIT_READY = 0
LEAST_SECONDS = MIN_SCAN_SECONDS
"""What a wait's ``--timeout`` gives at least (``--timeout 0`` takes one whole scan): the
child that runs ``wait`` (:func:`runctx.cli.apart.bounded`) is waited for that long too."""
EXIT_TIMED_OUT = EXIT_REFUSED
"""A wait that passed its timeout: the same "try again later" as a refusal."""


DESCRIPTION = (
    "Block until no other test run of this checkout is live. Exit 0 when ready, "
    f"{EXIT_TIMED_OUT} when --timeout passed first, 130 when interrupted."
)
"""What ``runctx wait --help`` says first."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``wait``."""
    parser.add_argument(
        "--timeout",
        type=duration,
        metavar="DURATION",
        help=(
            "give up after DURATION of wall time (seconds, or 30s, 10m, 1h), scans included, "
            f"and exit {EXIT_TIMED_OUT} (default: never)"
        ),
    )
    parser.add_argument(
        "--poll",
        type=positive_duration,
        default=DEFAULT_POLL_SECONDS,
        metavar="DURATION",
        help=f"scan every DURATION (default: {DEFAULT_POLL_SECONDS}s)",
    )
    parser.add_argument(
        "--watchers",
        action="store_true",
        default=None,
        help="wait for this checkout's watchers too (runs that re-run on change and never "
        'end by themselves; default: only with on-watcher = "wait")',
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    add_viewpoint_options(parser)


def seconds_text(seconds: float) -> str:
    """``3.2s`` under a minute, else ``3m12s`` and so on."""
    return f"{seconds:.1f}s" if seconds < 60 else human_age(seconds)  # noqa: PLR2004


def _runs_text(blocking: tuple[JudgedRun, ...]) -> str:
    count = len(blocking)
    noun = "run" if count == 1 else "runs"
    return f"{count} {noun} of this checkout: " + "; ".join(describe_ours(j) for j in blocking)


class Progress:
    """Shows who the wait is for: a live line on a terminal, a line per change otherwise."""

    def __init__(self, stream: TextIO, *, live: bool, quiet: bool) -> None:
        """Write to ``stream``; ``live`` rewrites one line in place."""
        self.stream = stream
        self.live = live and not quiet
        self.quiet = quiet
        self.waited = False
        self.drawn = False

    def change(self, blocking: tuple[JudgedRun, ...]) -> None:
        """The set of runs waited for changed."""
        if blocking:
            self.waited = True
        if self.quiet or self.live or not blocking:
            return
        self.stream.write(visible_lines(f"runctx: waiting for {_runs_text(blocking)}") + "\n")
        self.stream.flush()

    def poll(self, blocking: tuple[JudgedRun, ...], waited: float) -> None:
        """A scan was taken: redraw the live line."""
        if not self.live or not blocking:
            return
        width = table_width(self.stream) or FALLBACK_COLUMNS  # the line's own stream, stderr
        text = f"runctx: waiting {seconds_text(waited)} for {_runs_text(blocking)}"
        if len(text) >= width:
            text = text[: max(width - 2, 1)] + "…"
        self.stream.write("\r\x1b[K" + visible_lines(text))
        self.stream.flush()
        self.drawn = True

    def end(self, text: str | None) -> None:
        """Clear the live line and say how the wait ended (if it said anything)."""
        if self.drawn:
            self.stream.write("\r\x1b[K")
        if text is not None and not self.quiet:
            self.stream.write(visible_lines(text) + "\n")
        self.stream.flush()


def run(args: argparse.Namespace) -> int:
    """Wait; exit 0 when ready, 75 on timeout (KeyboardInterrupt goes up as 130)."""
    source = source_from(args)
    here = viewpoint_from(args)
    progress = Progress(sys.stderr, live=sys.stderr.isatty(), quiet=args.quiet)
    settings = settings_warned(here.root)
    try:
        outcome = wait_for_turn(
            here,
            timeout=args.timeout,
            poll_seconds=args.poll,
            on_change=progress.change,
            on_poll=progress.poll,
            source=source,
            settings=settings,
            with_watchers=args.watchers,
            began=time.monotonic() - process_age(),  # --timeout counts from the command's start
        )
    except KeyboardInterrupt:
        progress.end("runctx: interrupted while waiting")
        raise
    waited = seconds_text(outcome.waited_seconds)
    blocking = {judged.run.identity for judged in outcome.blocking}
    left_out = [
        judged
        for judged in watching_runs(outcome.report, settings.watchers)
        if judged.run.identity not in blocking
    ]
    if left_out and not args.quiet:
        named = "; ".join(
            f"pid {judged.run.pid} (`{watcher_of(judged.run, settings.watchers)}`)"
            for judged in left_out
        )
        sys.stderr.write(
            visible_lines(
                f"runctx: not waiting for this checkout's watcher{'s' if len(left_out) > 1 else ''}"
                f" {named}: it re-runs on change and never ends by itself "
                "(`runctx wait --watchers` waits for it too)"
            )
            + "\n"
        )
    if outcome.ready:
        done = f"runctx: ready after {waited}: no run of this checkout left to wait for"
        progress.end(done if progress.waited else None)
        return EXIT_READY
    if not outcome.blocking:  # the last scan was cut by --timeout before it could tell
        cut = "; ".join(outcome.report.visibility.notes)
        progress.end(f"runctx: timed out after {waited}; the last scan was cut: {cut}")
        return EXIT_TIMED_OUT
    progress.end(f"runctx: timed out after {waited}; still live: {_runs_text(outcome.blocking)}")
    return EXIT_TIMED_OUT
