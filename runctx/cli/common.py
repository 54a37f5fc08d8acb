"""Options and argument types shared by the subcommands: viewpoint, source, durations."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Mapping
from typing import TextIO

from runctx.present.escape import visible_lines
from runctx.report import Viewpoint
from runctx.scanning import viewpoint
from runctx.settings import Settings, settings_and_problem
from runctx.sources import SOURCE_NAMES, ProcessSource, make_source
from runctx.unknown import Unknown
from runctx.waiting import parse_duration


def directory_argument(text: str) -> str:
    """An argparse type: an existing directory, else a usage error."""
    if not os.path.isdir(text):
        msg = f"not a directory: {text}"
        raise argparse.ArgumentTypeError(msg)
    return text


def whole_number(what: str, least: int) -> Callable[[str], int]:
    """An argparse type: an integer of at least ``least``, else ``not WHAT: TEXT``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = least - 1
        if value < least:
            msg = f"not {what}: {text}"
            raise argparse.ArgumentTypeError(msg)
        return value

    return parse


_uid = whole_number("a uid (a non-negative integer)", 0)


def duration(text: str) -> float:
    """An argparse type for ``90``, ``90s``, ``10m``, ``1h``."""
    try:
        return parse_duration(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def positive_duration(text: str) -> float:
    """A duration that is more than zero (a poll interval)."""
    seconds = duration(text)
    if seconds <= 0:
        msg = f"must be more than zero: {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return seconds


def add_root_option(parser: argparse.ArgumentParser, help_text: str) -> None:
    """``--root DIR``."""
    parser.add_argument("--root", type=directory_argument, metavar="DIR", help=help_text)


def add_source_option(parser: argparse.ArgumentParser) -> None:
    """``--source procfs|psutil``."""
    parser.add_argument(
        "--source",
        choices=SOURCE_NAMES,
        help="where to read processes from (default: $RUNCTX_SOURCE, else procfs on Linux)",
    )


def add_timeout_option(parser: argparse.ArgumentParser) -> None:
    """``--timeout DURATION``: a bound in wall time on the scan."""
    parser.add_argument(
        "--timeout",
        type=duration,
        metavar="DURATION",
        help="bound the scan to DURATION of wall time (30, 2s, 500ms): a scan cut by it says "
        "what it could not read (default: no bound)",
    )


def deadline_from(args: argparse.Namespace, *, from_process_start: bool = True) -> float | None:
    """The :func:`time.monotonic` time ``--timeout`` ends at; None without one.

    Counted from this process's start: on a saturated box the interpreter's
    start and the imports take seconds of wall time, and ``--timeout`` is the
    wall time the caller waits. A ``--watch`` frame after the first counts
    from its own start instead (``from_process_start=False``): each frame is
    bounded by ``--timeout``. The scan ends :func:`rendering_reserve` before
    it, so that the report is written within ``--timeout`` too.
    """
    timeout: float | None = getattr(args, "timeout", None)
    if timeout is None:
        return None
    already = process_age() if from_process_start else 0.0
    return time.monotonic() + timeout - rendering_reserve(timeout) - already


RENDERING_SHARE = 0.2
"""The share of ``--timeout`` left after the scan for writing its report."""
RENDERING_RESERVE_MAX = 0.5
"""The most of ``--timeout`` left for writing the report (seconds): thousands of runs take less."""


def rendering_reserve(timeout: float) -> float:
    """The seconds of ``timeout`` kept for writing the report once the scan ends."""
    return min(timeout * RENDERING_SHARE, RENDERING_RESERVE_MAX)


class _Born:
    """When the process that took the command line started, once a child runs the command."""

    at: float | None = None


def born_now_as(parent_age: float) -> None:
    """Note that the calling process (forked to run the command) counts from its parent's start.

    ``parent_age``: the parent's :func:`process_age` at the fork.
    """
    _Born.at = time.monotonic() - parent_age


def process_age() -> float:
    """Seconds since the command started: this process, or the parent that forked it to run it.

    Linux: from its ``stat``; 0 where that is not known.
    """
    if _Born.at is not None:
        return max(0.0, time.monotonic() - _Born.at)
    try:
        with open("/proc/self/stat", "rb") as stream:
            text = stream.read()
        ticks = int(text[text.rfind(b")") + 2 :].split()[19])
        started = ticks / os.sysconf("SC_CLK_TCK")
        return max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - started)
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0


def add_viewpoint_options(parser: argparse.ArgumentParser) -> None:
    """``--root``, ``--uid`` and ``--source``."""
    add_root_option(
        parser, "judge from the checkout that holds DIR (default: the current directory's)"
    )
    parser.add_argument(
        "--uid", type=_uid, metavar="N", help="judge as uid N (default: your own uid)"
    )
    add_source_option(parser)


def source_from(args: argparse.Namespace) -> ProcessSource | None:
    """The source ``--source`` names, or None for the default."""
    return make_source(args.source) if args.source else None


def viewpoint_from(args: argparse.Namespace) -> Viewpoint:
    """The viewpoint the options ask for (``--uid`` only where the subcommand has it)."""
    uid = getattr(args, "uid", None)
    if args.root is not None:
        return viewpoint(cwd=args.root, uid=uid)
    return viewpoint(uid=uid)


def settings_warned(root: str | Unknown) -> Settings:
    """The settings of ``root`` for a face that only reads: a broken file is warned of, left out.

    The warning (on stderr) names the file, the line and what is wrong; the
    face goes on with the defaults for what that file would have set.
    """
    settings, problem = settings_and_problem(root)
    if problem is not None:
        sys.stderr.write(
            visible_lines(
                f"runctx: warning: the runctx configuration is broken: {problem}; "
                "going on with the defaults for it"
            )
            + "\n"
        )
    return settings


FALLBACK_COLUMNS = 80
"""The width of a terminal that reports none, as ``shutil.get_terminal_size`` assumes."""


def table_width(stream: TextIO, environ: Mapping[str, str] | None = None) -> int | None:
    """The width the table fits: ``$COLUMNS``, else the terminal's; None (no limit) for a pipe."""
    environ = os.environ if environ is None else environ
    columns = environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        if os.isatty(stream.fileno()):
            # A terminal that reports no size (0x0: ``script``, some CI terminals) gets 80.
            return os.get_terminal_size(stream.fileno()).columns or FALLBACK_COLUMNS
    except (OSError, ValueError, AttributeError):
        pass
    return None
