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
from typing import Any

from runctx.cli.common import add_viewpoint_options, positive_duration, source_from, viewpoint_from
from runctx.exceptions import RunctxError
from runctx.present.json import report_json
from runctx.present.openmetrics import RootLabel, report_metrics
from runctx.present.output import json_dumps, write_file_atomically, write_json, write_text
from runctx.present.text import report_text
from runctx.report import Report
from runctx.scanning import scan

FORMATS = ("text", "json", "openmetrics")
DEFAULT_INTERVAL_SECONDS = 2.0


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        msg = f"not a positive count: {text}"
        raise argparse.ArgumentTypeError(msg)
    return value


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
    add_viewpoint_options(parser)


def output_format(args: argparse.Namespace) -> str:
    """The format asked for; a usage error when ``--json`` and ``--format`` disagree."""
    if args.json and args.format not in (None, "json"):
        msg = f"--json and --format {args.format} ask for two formats; give one"
        raise RunctxError(msg)
    return "json" if args.json else args.format or "text"


def render(report: Report, chosen: str, args: argparse.Namespace) -> str:
    """The report in the format ``chosen``, as text to write."""
    if chosen == "json":
        return json_dumps(report_json(report)) + "\n"
    if chosen == "openmetrics":
        return report_metrics(report, root_label=RootLabel(args.root_label))
    return report_text(report) + "\n"


def run(args: argparse.Namespace) -> int:
    """Print (or write) the report; exit 0."""
    chosen = output_format(args)
    report = scan(viewpoint_from(args), source=source_from(args))
    if args.output:
        write_file_atomically(args.output, render(report, chosen, args))
    elif chosen == "json":
        write_json(report_json(report))
    elif chosen == "openmetrics":
        write_text(report_metrics(report, root_label=RootLabel(args.root_label)), utf8=True)
    else:
        write_text(report_text(report) + "\n")
    return 0


__all__ = ["DEFAULT_INTERVAL_SECONDS", "FORMATS", "add_parser", "positive_duration", "run"]
