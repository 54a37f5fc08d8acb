"""``runctx status``: the live test runs, ours and foreign, and the box's load."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from runctx.cli.common import add_viewpoint_options, viewpoint_from
from runctx.jsonreport import report_json
from runctx.render import render
from runctx.scanning import scan
from runctx.sources import make_source


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Declare the options of ``status``."""
    parser = subparsers.add_parser(
        "status", help="show live test runs: this checkout's and foreign ones"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    add_viewpoint_options(parser)


def run(args: argparse.Namespace) -> int:
    """Print the report; exit 0."""
    source = make_source(args.source) if args.source else None
    report = scan(viewpoint_from(args), source=source)
    if args.json:
        json.dump(report_json(report), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render(report) + "\n")
    return 0
