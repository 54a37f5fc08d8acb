"""``runctx status``: the live test runs, ours and foreign, and the box's load."""

from __future__ import annotations

import argparse
from typing import Any

from runctx.cli.common import add_viewpoint_options, source_from, viewpoint_from
from runctx.present.json import report_json
from runctx.present.output import write_json, write_text
from runctx.present.text import report_text
from runctx.scanning import scan


def add_parser(subparsers: argparse._SubParsersAction[Any], summary: str) -> None:
    """Declare the options of ``status``."""
    parser = subparsers.add_parser("status", help=summary)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    add_viewpoint_options(parser)


def run(args: argparse.Namespace) -> int:
    """Print the report; exit 0."""
    report = scan(viewpoint_from(args), source=source_from(args))
    if args.json:
        write_json(report_json(report))
    else:
        write_text(report_text(report) + "\n")
    return 0
