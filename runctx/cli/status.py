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
from typing import TYPE_CHECKING

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
from runctx.present.output import json_dumps, write_file_atomically, write_json
from runctx.present.style import COLOR_CHOICES
from runctx.scanning import scan

if TYPE_CHECKING:
    from runctx.report import Report, Viewpoint
    from runctx.settings import BusyRules, Settings
    from runctx.sources import ProcessSource

FORMATS = ("text", "json", "openmetrics")
ROOT_LABELS = ("hash", "path", "none")
"""The values of :class:`runctx.present.openmetrics.RootLabel`, named here so that
parsing ``status``'s options imports no metrics renderer."""
DEFAULT_INTERVAL_SECONDS = 2.0


_count = whole_number("a positive count", 1)


DESCRIPTION = (
    "Show the live test runs: this checkout's, and foreign ones that only share the "
    "machine; the box's load; what could not be seen."
)
"""What ``runctx status --help`` says first."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``status``."""
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
        choices=ROOT_LABELS,
        default=ROOT_LABELS[0],
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
    parser.add_argument(
        "--all",
        action="store_true",
        help="the table: list every foreign run (default: the busiest 20 and each in this very "
        "checkout, the rest counted in one line; JSON and metrics hold every run)",
    )
    add_viewpoint_options(parser)
    add_timeout_option(parser)


def output_format(args: argparse.Namespace) -> str:
    """The format asked for; a usage error when ``--json`` and ``--format`` disagree."""
    if args.json and args.format not in (None, "json"):
        msg = f"--json and --format {args.format} ask for two formats; give one"
        raise UsageError(msg)
    return "json" if args.json else args.format or "text"


def face_module(args: argparse.Namespace) -> str:
    """The module that runs ``status`` for ``args`` (:func:`runctx.cli.main` imports it).

    The table (:mod:`runctx.cli.status_text`), the metrics
    (:mod:`runctx.cli.status_metrics`) and ``--watch`` (:mod:`runctx.cli.watch`)
    are faces of their own, so that ``status --json`` imports none of their
    renderers, and each face only its own.
    """
    if args.watch:
        return "runctx.cli.watch"
    chosen = output_format(args)
    if chosen == "text":
        return "runctx.cli.status_text"
    return "runctx.cli.status_metrics" if chosen == "openmetrics" else __name__


def scan_context(
    args: argparse.Namespace,
) -> tuple[Viewpoint, ProcessSource | None, Settings]:
    """Where ``status`` looks from, what it reads processes with, and its settings."""
    here = viewpoint_from(args)
    return here, source_from(args), settings_warned(here.root)


def report_once(args: argparse.Namespace) -> tuple[Report, BusyRules]:
    """One scan for a single report (not ``--watch``), each run's CPU use sampled now."""
    here, source, settings = scan_context(args)
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
    return report, settings.busy


def run(args: argparse.Namespace) -> int:
    """Print (or write to ``--output``) the report as JSON, the contract for machines."""
    report, busy = report_once(args)
    document = report_json(report, busy)
    if args.output:
        write_file_atomically(args.output, json_dumps(document) + "\n")
    else:
        write_json(document)
    return 0
