"""``runctx status``: the live test runs, ours and foreign, and the box's load.

``--format text`` (the default) is the table for a person, ``json`` (or
``--json``) the contract for machines, ``openmetrics`` the metrics for
Prometheus (:mod:`runctx.present.openmetrics`). ``--output FILE`` replaces
FILE atomically instead of writing to stdout: what node_exporter's textfile
collector reads. ``--watch`` redraws the table every ``--interval``
(:mod:`runctx.cli.watch`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TextIO

from runctx.cli.common import (
    add_timeout_option,
    add_viewpoint_options,
    deadline_from,
    positive_duration,
    settings_warned,
    source_from,
    viewpoint_from,
    whole_number,
)
from runctx.cpu_window import DEFAULT_WINDOW_SECONDS
from runctx.exceptions import UsageError
from runctx.present.json import report_json
from runctx.present.openmetrics import RootLabel, report_metrics
from runctx.present.output import (
    json_dumps,
    write_file_atomically,
    write_json,
    write_lines,
    write_text,
)
from runctx.present.style import COLOR_CHOICES, use_color
from runctx.report import Report
from runctx.scanning import scan
from runctx.settings import BusyRules

if TYPE_CHECKING:
    from runctx.present.text import TextOptions

FORMATS = ("text", "json", "openmetrics")
DEFAULT_INTERVAL_SECONDS = 2.0


_count = whole_number("a positive count", 1)


def add_parser(subparsers: argparse._SubParsersAction[Any], summary: str) -> None:
    """Declare the options of ``status``."""
    parser = subparsers.add_parser(
        "status",
        help=summary,
        description=(
            "Show the live test runs: this checkout's, and foreign ones that only share the "
            "machine; the box's load; what could not be seen."
        ),
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="text (default), json, or openmetrics (Prometheus, node_exporter's textfile "
        "collector)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print the report as JSON (--format json)"
    )
    parser.add_argument(
        "--output",
        metavar="FILE",
        help="write FILE instead of stdout, replaced atomically (e.g. "
        "/var/lib/node_exporter/textfile/runctx.prom)",
    )
    parser.add_argument(
        "--root-label",
        choices=[label.value for label in RootLabel],
        default=RootLabel.HASH.value,
        help="openmetrics: label each run's checkout root by a short hash of its path "
        "(default), by the path, or not at all",
    )
    parser.add_argument(
        "--watch",
        action="store_true",
        help="redraw the table every --interval, in place on a terminal (q or Ctrl-C to quit); "
        "a plain report every interval otherwise",
    )
    parser.add_argument(
        "--interval",
        type=positive_duration,
        metavar="DURATION",
        help=f"with --watch: time between refreshes (default {DEFAULT_INTERVAL_SECONDS:g}s)",
    )
    parser.add_argument(
        "--count", type=_count, metavar="N", help="with --watch: stop after N refreshes"
    )
    parser.add_argument(
        "--color",
        choices=COLOR_CHOICES,
        default="auto",
        help="colour the table: auto (a terminal, unless NO_COLOR is set), always, never",
    )
    parser.add_argument(
        "--wide", action="store_true", help="whole commands, however long (no cut to the width)"
    )
    add_viewpoint_options(parser)
    add_timeout_option(parser)


def output_format(args: argparse.Namespace) -> str:
    """The format asked for; a usage error when ``--json`` and ``--format`` disagree."""
    if args.json and args.format not in (None, "json"):
        msg = f"--json and --format {args.format} ask for two formats; give one"
        raise UsageError(msg)
    return "json" if args.json else args.format or "text"


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


def _is_terminal(stream: TextIO) -> bool:
    try:
        return os.isatty(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return False


def text_options(args: argparse.Namespace, stream: TextIO) -> TextOptions:
    """How the table is laid out for ``stream``."""
    from runctx.present.text import TextOptions, home_directory  # noqa: PLC0415 - text only

    return TextOptions(
        width=table_width(stream),
        wide=args.wide,
        details=wants_details(args),
        home=home_directory(),
    )


def wants_details(args: argparse.Namespace) -> bool:
    """Whether ``-v`` (before or after ``status``) asks for each run's detail lines."""
    return bool(getattr(args, "verbose", 0) or getattr(args, "verbose_after", 0))


def render(report: Report, chosen: str, args: argparse.Namespace, busy: BusyRules) -> str:
    """The report in the format ``chosen``, as text to write to a file."""
    if chosen == "json":
        return json_dumps(report_json(report, busy)) + "\n"
    if chosen == "openmetrics":
        return report_metrics(report, root_label=RootLabel(args.root_label), busy=busy)
    from runctx.present.text import TextOptions, home_directory, report_text  # noqa: PLC0415

    return report_text(report, busy, TextOptions(wide=True, home=home_directory())) + "\n"


def run(args: argparse.Namespace) -> int:
    """Print (or write) the report, once or (``--watch``) every interval.

    A single report samples each run's CPU use now over a short window; a
    watch samples its first frame so, and measures the rest between refreshes.
    """
    chosen = output_format(args)
    here = viewpoint_from(args)
    source = source_from(args)
    settings = settings_warned(here.root)
    busy = settings.busy
    if args.watch:
        taken: list[Report] = []

        def take() -> Report:
            window = DEFAULT_WINDOW_SECONDS if not taken else None
            taken[:] = [
                scan(
                    here,
                    source=source,
                    cpu_window=window,
                    settings=settings,
                    deadline=deadline_from(args, from_process_start=not taken),
                )
            ]
            return taken[0]

        return _watch(args, chosen, take, busy)
    for given, option in ((args.count, "--count"), (args.interval, "--interval")):
        if given is not None:
            msg = f"{option} goes with --watch"
            raise UsageError(msg)
    report = scan(
        here,
        source=source,
        cpu_window=DEFAULT_WINDOW_SECONDS,
        settings=settings,
        deadline=deadline_from(args),
    )
    if args.output:
        write_file_atomically(args.output, render(report, chosen, args, busy))
    elif chosen == "json":
        write_json(report_json(report, busy))
    elif chosen == "openmetrics":
        metrics = report_metrics(report, root_label=RootLabel(args.root_label), busy=busy)
        write_text(metrics, utf8=True)
    else:
        from runctx.present.text import report_lines  # noqa: PLC0415 - the text format only

        out = sys.stdout
        color = use_color(args.color, is_terminal=_is_terminal(out))
        write_lines(report_lines(report, text_options(args, out), busy), out, color=color)
    return 0


def _watch(
    args: argparse.Namespace, chosen: str, take: Callable[[], Report], busy: BusyRules
) -> int:
    from runctx.cli.watch import WatchSettings, watch  # noqa: PLC0415 - only for --watch

    if chosen != "text" or args.output:
        msg = "--watch shows the table on stdout; it takes no --format, --json or --output"
        raise UsageError(msg)
    out = sys.stdout
    settings = WatchSettings(
        interval=DEFAULT_INTERVAL_SECONDS if args.interval is None else args.interval,
        count=args.count,
        wide=args.wide,
        color=use_color(args.color, is_terminal=_is_terminal(out)),
        width=table_width(out),
        busy=busy,
        details=wants_details(args),
    )
    return watch(take, settings, out)
