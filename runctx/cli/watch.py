"""``runctx status --watch``: the table, refreshed, for a pane kept open like htop.

On a terminal the screen is redrawn in place: the alternate screen, the
cursor hidden, each frame written over the last from the top left with
every line cleared to its end and the rest of the screen cleared after it,
so nothing flickers. The terminal is given back as it was (main screen,
cursor, input mode) however the watch ends: ``q``, Ctrl-C, ``SIGTERM``,
``SIGHUP``, an error. A resize (``SIGWINCH``) redraws at once at the new
size; lines never wrap (cut at the width, or wrapped into screen lines with
``--wide``), and a frame taller than the screen ends with how many lines
were left out.

Each refresh is one scan. The first samples each run's CPU use now over
the scan's short window (:mod:`runctx.cpu_window`); from then on a run's CPU
NOW is the CPUs its processes kept busy since the last refresh (its CPU time
then and now, over the time between), which costs the scans nothing. A run
that appeared since the last refresh is marked ``+`` for a few refreshes,
and a run that ended is listed under "Ended" for as many. The first frame
is drawn at once, saying that the first scan is under way; ``d`` shows or
hides each run's detail lines (why it is foreign, what it shares).

Where a file system of this box may stop answering (a network one, FUSE:
:func:`runctx.looking.may_stop_answering`), each scan runs in a child
(:func:`runctx.child.value_in_child`), since no signal ends a read such a
file system holds: once a look at a process's file system holds the scan,
or a frame's ``--timeout`` (and the half second of grace a bounded command
has) passes, the watch gives the terminal back and ends with an error that
names the process and the path.

When stdout is not a terminal (a file, a pipe, ``| tee``) the watch prints
the plain report every interval, each under a line with the time, with no
control sequence at all; ``--count N`` stops after N reports.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import signal
import sys
import termios
import time
import tty
from collections.abc import Callable
from typing import Any, Self, TextIO

import attrs

from runctx.child import GiveUp, value_in_child
from runctx.cli.apart import HELD_GRACE_SECONDS
from runctx.cli.common import deadline_from, rendering_reserve, table_width
from runctx.cli.status import DEFAULT_INTERVAL_SECONDS, output_format, scan_context
from runctx.cli.status_text import is_terminal
from runctx.cpu_window import DEFAULT_WINDOW_SECONDS
from runctx.exceptions import UsageError
from runctx.exits import EXIT_INTERRUPTED
from runctx.looking import may_stop_answering
from runctx.present.escape import visible
from runctx.present.output import styled_bytes, write_lines, write_raw
from runctx.present.style import Line, Span, line, line_width, use_color
from runctx.present.text import (
    ELLIPSIS,
    FOREIGN_SHOWN,
    TextOptions,
    home_directory,
    report_lines,
)
from runctx.present.words import human_age
from runctx.record_base import Record
from runctx.records import ProcIdentity
from runctx.report import JudgedRun, Report
from runctx.scanning import scan
from runctx.settings import DEFAULT_BUSY, BusyRules
from runctx.unknown import Unknown

MARK_REFRESHES = 3
"""For how many refreshes a run that appeared keeps its mark, and an ended run is listed."""
QUIT_KEYS = b"qQ"
DETAILS_KEYS = b"dD"

ENTER = "\x1b[?1049h\x1b[?25l"  # alternate screen, cursor hidden
LEAVE = "\x1b[?25h\x1b[?1049l"  # cursor shown, main screen back
HOME = "\x1b[H"
CLEAR_LINE = "\x1b[K"
CLEAR_BELOW = "\x1b[J"


FALLBACK_SIZE = (80, 24)
"""The size of a terminal that reports none, as ``shutil.get_terminal_size`` assumes."""


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived: end the watch, giving the terminal back first."""

    def __init__(self, signum: int) -> None:
        """Hold the signal."""
        super().__init__(signum)
        self.signum = signum


@attrs.frozen(repr=False, eq=False)
class Ended(Record):
    """A run that was live at an earlier refresh and is gone now."""

    judged: JudgedRun
    refreshes_left: int


class Tracker:
    """What changed between refreshes: CPU use now, runs that appeared and that ended."""

    def __init__(self, *, keys_read: bool = False) -> None:
        """Start with no refresh seen; ``keys_read``: the watch takes keys (``d``)."""
        self.keys_read = keys_read
        self.previous: Report | None = None
        self.new: dict[ProcIdentity, int] = {}
        self.ended: list[Ended] = []
        self.cpu_now: dict[ProcIdentity, float] = {}
        self.cpu_now_seconds: float | None = None

    def update(self, report: Report) -> None:
        """Take the next refresh's report."""
        current = {judged.run.identity: judged for judged in report.runs}
        self.cpu_now = {}
        self.new = {key: left - 1 for key, left in self.new.items() if left > 1 and key in current}
        self.ended = [
            attrs.evolve(gone, refreshes_left=gone.refreshes_left - 1)
            for gone in self.ended
            if gone.refreshes_left > 1
        ]
        previous = self.previous
        self.cpu_now_seconds = None
        if previous is not None:
            before = {judged.run.identity: judged for judged in previous.runs}
            elapsed = report.taken_at - previous.taken_at
            self.cpu_now_seconds = elapsed if elapsed > 0 else None
            for key, judged in current.items():
                if key not in before:
                    self.new[key] = MARK_REFRESHES
                    continue
                used = _cpu_used(before[key], judged)
                if used is not None and elapsed > 0:
                    self.cpu_now[key] = max(used, 0.0) / elapsed
            self.ended = [
                Ended(judged, MARK_REFRESHES)
                for key, judged in before.items()
                if key not in current
            ] + self.ended
        self.previous = report

    def options(
        self, width: int | None, *, wide: bool, details: bool = False, every_run: bool = False
    ) -> TextOptions:
        """How to lay out the next frame (``every_run``: each foreign run listed, ``--all``)."""
        marks = dict.fromkeys(self.new, "+")
        return TextOptions(
            width=width,
            wide=wide,
            details=details,
            details_hint="press d" if self.keys_read else "runctx status -v --watch",
            home=home_directory(),
            marks=marks,
            cpu_now=self.cpu_now,
            cpu_now_seconds=self.cpu_now_seconds,
            foreign_shown=None if every_run else FOREIGN_SHOWN,
            all_hint="runctx status --watch --all",
        )


def _cpu_used(before: JudgedRun, after: JudgedRun) -> float | None:
    """CPU seconds the run used between two reports (None when either is unknown)."""
    then, now = before.run.cpu_seconds, after.run.cpu_seconds
    if isinstance(then, Unknown) or isinstance(now, Unknown):
        return None
    return now - then


def frame_lines(  # noqa: PLR0913 - each is a part of the frame
    report: Report,
    tracker: Tracker,
    settings: WatchSettings,
    *,
    width: int | None,
    header: str,
    details: bool | None = None,
) -> list[Line]:
    """One frame: the header, the report's lines, and the runs that ended lately."""
    lines = [line(Span(header, "dim")), line()]
    shown = settings.details if details is None else details
    options = tracker.options(
        width, wide=settings.wide, details=shown, every_run=settings.every_run
    )
    lines.extend(report_lines(report, options, settings.busy))
    if tracker.ended:
        lines.append(line())
        lines.append(
            line(Span(f"Ended since an earlier refresh ({len(tracker.ended)}):", "heading"))
        )
        ended = tracker.ended if settings.every_run else tracker.ended[:FOREIGN_SHOWN]
        lines.extend(
            line(Span("- ", "ended"), Span(_ended_text(gone.judged), "ended")) for gone in ended
        )
        if len(ended) < len(tracker.ended):
            more = f"{ELLIPSIS} and {len(tracker.ended) - len(ended):,} more; every one: "
            lines.append(line(Span(more + options.all_hint, "dim")))
    return lines


def _ended_text(judged: JudgedRun) -> str:
    run = judged.run
    return (
        f"pid {run.pid} ({visible(run.kind)}, {judged.judgement.verdict.value}) ended; "
        f"it had run {human_age(run.age_seconds)}"
    )


def header_text(interval: float, *, terminal: bool) -> str:
    """``runctx status --watch: every 2s, 12:53:04`` (and its keys, on a terminal)."""
    stamp = time.strftime("%H:%M:%S")
    keys_hint = "  (q or Ctrl-C to quit, d for details)" if terminal else ""
    return f"runctx status --watch: every {interval:g}s, {stamp}{keys_hint}"


def scanning_lines(interval: float) -> list[Line]:
    """The frame drawn before the first scan ends, so the screen is never blank."""
    return [
        line(Span(header_text(interval, terminal=True), "dim")),
        line(),
        line("Scanning the processes of this machine …"),
    ]


def screen_rows(lines: list[Line], width: int, *, wrap: bool) -> list[Line]:
    """The lines as screen rows of at most ``width`` characters: cut, or wrapped if ``wrap``."""
    rows: list[Line] = []
    for spans in lines:
        if line_width(spans) <= width:
            rows.append(spans)
        elif wrap:
            rows.extend(_wrapped(spans, width))
        else:
            rows.append(_cut(spans, width))
    return rows


def _cut(spans: Line, width: int) -> Line:
    """The line in ``width`` characters, its last one an ellipsis."""
    kept: list[Span] = []
    room = max(width - 1, 0)
    for span in spans:
        if room <= 0:
            break
        kept.append(Span(span.text[:room], span.role))
        room -= len(kept[-1].text)
    kept.append(Span(ELLIPSIS, kept[-1].role if kept else ""))
    return tuple(kept)


def _wrapped(spans: Line, width: int) -> list[Line]:
    """The line as rows of ``width`` characters, split wherever it reaches the width."""
    rows: list[Line] = []
    row: list[Span] = []
    used = 0
    for span in spans:
        text = span.text
        while text:
            if used == width:
                rows.append(tuple(row))
                row, used = [], 0
            piece, text = text[: width - used], text[width - used :]
            row.append(Span(piece, span.role))
            used += len(piece)
    rows.append(tuple(row))
    return rows


class Screen:
    """The terminal while the watch runs: taken over on enter, given back on exit."""

    def __init__(self, out: TextIO, keys: int | None) -> None:
        """Draw on ``out``; read quit keys from the descriptor ``keys`` (None: none)."""
        self.out = out
        self.keys = keys
        self.saved_mode: list[Any] | None = None
        self.wake_read, self.wake_write = os.pipe()
        self.previous_handlers: dict[int, object] = {}
        self.resized = False

    def __enter__(self) -> Self:
        """Switch to the alternate screen, hide the cursor, read keys one at a time."""
        for fd in (self.wake_read, self.wake_write):
            os.set_blocking(fd, False)
        self._handle(signal.SIGWINCH, self._on_resize)
        for signum in (signal.SIGTERM, signal.SIGHUP):
            self._handle(signum, _terminate)
        if self.keys is not None:
            self.saved_mode = _cbreak(self.keys)
        write_raw(ENTER.encode("ascii"), self.out)
        return self

    def __exit__(self, *_exc: object) -> None:
        """Give the terminal back as it was, whatever ended the watch."""
        with contextlib.suppress(OSError, ValueError):
            write_raw(LEAVE.encode("ascii"), self.out)
        if self.keys is not None and self.saved_mode is not None:
            with contextlib.suppress(termios.error, OSError):
                termios.tcsetattr(self.keys, termios.TCSADRAIN, self.saved_mode)
        for signum, handler in self.previous_handlers.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        os.close(self.wake_read)
        os.close(self.wake_write)

    def _handle(self, signum: int, handler: Callable[[int, object], None]) -> None:
        self.previous_handlers[signum] = signal.signal(signum, handler)

    def _on_resize(self, _signum: int, _frame: object) -> None:
        self.resized = True
        with contextlib.suppress(OSError):
            os.write(self.wake_write, b"r")

    def size(self) -> os.terminal_size:
        """The terminal's columns and lines now; 80x24 where it reports none (0x0)."""
        try:
            columns, lines = os.get_terminal_size(self.out.fileno())
        except OSError:
            columns, lines = 0, 0
        return os.terminal_size((columns or FALLBACK_SIZE[0], lines or FALLBACK_SIZE[1]))

    def draw(self, lines: list[Line], *, color: bool, wrap: bool) -> None:
        """Write a frame over the last one: no clear, so no flicker."""
        size = self.size()
        rows = screen_rows(lines, size.columns, wrap=wrap)
        if len(rows) > size.lines:
            left_out = len(rows) - size.lines + 1
            rows = [*rows[: size.lines - 1], line(Span(f"… {left_out} more lines", "dim"))]
        encoding = getattr(self.out, "encoding", None)
        data = bytearray(HOME.encode("ascii"))
        for number, row in enumerate(rows):
            if number:
                data += b"\r\n"
            data += styled_bytes([row], encoding, color=color) + CLEAR_LINE.encode("ascii")
        data += CLEAR_BELOW.encode("ascii")
        write_raw(bytes(data), self.out)

    def wait(self, seconds: float) -> str:
        """Wait up to ``seconds``: ``"quit"`` or ``"details"`` (keys), ``"resize"``, ``"time"``."""
        deadline = time.monotonic() + seconds
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "time"
            sources = [self.wake_read] + ([self.keys] if self.keys is not None else [])
            ready, _, _ = select.select(sources, [], [], remaining)
            if self.wake_read in ready:
                with contextlib.suppress(OSError):
                    os.read(self.wake_read, 64)
                if self.resized:
                    self.resized = False
                    return "resize"
            if self.keys is not None and self.keys in ready:
                try:
                    typed = os.read(self.keys, 64)
                except OSError:
                    typed = b""
                if not typed:  # the terminal went away
                    self.keys = None
                elif any(key in typed for key in QUIT_KEYS):
                    return "quit"
                elif any(key in typed for key in DETAILS_KEYS):
                    return "details"


def _terminate(signum: int, _frame: object) -> None:
    raise Terminated(signum)


def _cbreak(fd: int) -> list[Any] | None:
    """Read keys one at a time without echo; the mode before, to restore (None if not a tty)."""
    try:
        saved = termios.tcgetattr(fd)
        tty.setcbreak(fd, termios.TCSANOW)
        mode = termios.tcgetattr(fd)
        mode[3] &= ~termios.ECHO
        termios.tcsetattr(fd, termios.TCSANOW, mode)
    except (termios.error, OSError):
        return None
    return saved


@attrs.frozen(repr=False, eq=False)
class WatchSettings(Record):
    """What ``--watch`` was asked for."""

    interval: float
    count: int | None
    wide: bool
    color: bool
    width: int | None
    busy: BusyRules = DEFAULT_BUSY
    details: bool = False
    every_run: bool = False
    """``--all``: each foreign run and each ended run listed, however many."""


def watch_screen(scan: Callable[[], Report], settings: WatchSettings, out: TextIO) -> int:
    """The watch on a terminal (module docstring); the exit status."""
    keys = 0 if is_terminal(sys.stdin) else None
    tracker = Tracker(keys_read=keys is not None)
    details = settings.details
    shown = 0
    try:
        with Screen(out, keys) as screen:
            screen.draw(scanning_lines(settings.interval), color=settings.color, wrap=False)
            while True:
                report = scan()
                tracker.update(report)
                shown += 1
                while True:
                    lines = frame_lines(
                        report,
                        tracker,
                        settings,
                        width=screen.size().columns,
                        header=header_text(settings.interval, terminal=True),
                        details=details,
                    )
                    screen.draw(lines, color=settings.color, wrap=settings.wide)
                    if settings.count is not None and shown >= settings.count:
                        return 0
                    why = screen.wait(settings.interval)
                    if why == "quit":
                        return 0
                    if why == "details":
                        details = not details
                    if why == "time":
                        break
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Terminated as ended:
        return 128 + ended.signum


def watch_plain(scan: Callable[[], Report], settings: WatchSettings, out: TextIO) -> int:
    """The watch when stdout is not a terminal: a plain report every interval."""
    tracker = Tracker()
    shown = 0
    previous = {signum: signal.signal(signum, _terminate) for signum in (signal.SIGTERM,)}
    try:
        while True:
            started = time.monotonic()
            report = scan()
            tracker.update(report)
            shown += 1
            lines = frame_lines(
                report,
                tracker,
                settings,
                width=settings.width,
                header=header_text(settings.interval, terminal=False),
            )
            if shown > 1:
                lines.insert(0, line())
            write_lines(lines, out, color=settings.color)
            if settings.count is not None and shown >= settings.count:
                return 0
            time.sleep(max(settings.interval - (time.monotonic() - started), 0.0))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Terminated as ended:
        return 128 + ended.signum
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def watch(scan: Callable[[], Report], settings: WatchSettings, out: TextIO | None = None) -> int:
    """Watch: in place on a terminal, plain reports otherwise; the exit status."""
    out = sys.stdout if out is None else out
    if is_terminal(out):
        return watch_screen(scan, settings, out)
    return watch_plain(scan, settings, out)


def run(args: argparse.Namespace) -> int:
    """``runctx status --watch``: the table every ``--interval`` until ``q``, Ctrl-C or ``--count``.

    The first scan samples each run's CPU use now over the scan's short
    window; the rest measure it between refreshes.
    """
    chosen = output_format(args)
    here, source, settings = scan_context(args)
    if chosen != "text" or args.output:
        msg = "--watch shows the table on stdout; it takes no --format, --json or --output"
        raise UsageError(msg)
    taken: list[Report] = []
    apart = may_stop_answering()

    def take() -> Report:
        window = DEFAULT_WINDOW_SECONDS if not taken else None
        deadline = deadline_from(args, from_process_start=not taken)
        give_up = None
        if deadline is not None:  # the frame's --timeout, and the grace a bounded command has
            ends_at = deadline + rendering_reserve(args.timeout) + HELD_GRACE_SECONDS
            give_up = GiveUp(at=ends_at, named=f"--timeout {args.timeout:g}s")

        def scanned() -> Report:
            return scan(
                here, source=source, cpu_window=window, settings=settings, deadline=deadline
            )

        taken[:] = [value_in_child(scanned, give_up=give_up) if apart else scanned()]
        return taken[0]

    out = sys.stdout
    asked = WatchSettings(
        interval=DEFAULT_INTERVAL_SECONDS if args.interval is None else args.interval,
        count=args.count,
        wide=args.wide,
        color=use_color(args.color, is_terminal=is_terminal(out)),
        width=table_width(out),
        busy=settings.busy,
        details=args.verbose > 0,
        every_run=args.all,
    )
    return watch(take, asked, out)
