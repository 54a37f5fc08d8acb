"""``runctx status``: the live test runs, ours and foreign, and the box's load."""

from __future__ import annotations

import argparse
from typing import Any

from runctx.cli.common import add_viewpoint_options, source_from, viewpoint_from
from runctx.cpu_window import DEFAULT_WINDOW_SECONDS
from runctx.present.json import report_json
from runctx.present.output import write_json, write_text
from runctx.present.text import report_text
from runctx.scanning import scan
from runctx.settings import settings_for


def add_parser(subparsers: argparse._SubParsersAction[Any], summary: str) -> None:
    """Declare the options of ``status``."""
    parser = subparsers.add_parser("status", help=summary)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    add_viewpoint_options(parser)


def run(args: argparse.Namespace) -> int:
    """Print the report (each run's CPU use now sampled over a short window); exit 0."""
    here = viewpoint_from(args)
    report = scan(here, source=source_from(args), cpu_window=DEFAULT_WINDOW_SECONDS)
    busy = settings_for(here.root).busy
    if args.json:
        write_json(report_json(report, busy))
    else:
        write_text(report_text(report, busy) + "\n")
    return 0
