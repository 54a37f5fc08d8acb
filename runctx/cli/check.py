"""``runctx check``: one scan, and an exit status a script can branch on.

Exit statuses:

- 0 ``clear``: no other run of this checkout is live, and no foreign run;
- 3 ``ours``: another run of this checkout is live (known to be ours, or of
  unknown identity, which counts as ours); foreign runs may be live too;
- 4 ``foreign``: only foreign runs are live: contention, not a conflict
  (0 with ``--ignore-foreign``, for scripts that only care about this
  checkout: ``runctx check --ignore-foreign && pytest``);
- 1 error, 2 usage error.

``--json`` prints the report in the shape of ``runctx status --json``, plus
``"check"`` (what was found: ``clear``, ``ours`` or ``foreign``) and
``"exit_status"`` (what the command exits with).
"""

from __future__ import annotations

import argparse
from typing import Any

from runctx.busy import box_pressure
from runctx.cli.common import add_viewpoint_options, source_from, viewpoint_from
from runctx.cpu_window import DEFAULT_WINDOW_SECONDS
from runctx.present.json import report_json
from runctx.present.output import write_json, write_text
from runctx.present.words import box_line, describe_foreign, plural, same_checkout_message
from runctx.report import Report
from runctx.scanning import scan
from runctx.settings import DEFAULT_BUSY, BusyRules, settings_for

EXIT_CLEAR = 0
EXIT_OURS = 3
EXIT_FOREIGN = 4

OUTCOMES = {EXIT_CLEAR: "clear", EXIT_OURS: "ours", EXIT_FOREIGN: "foreign"}


def add_parser(subparsers: argparse._SubParsersAction[Any], summary: str) -> None:
    """Declare the options of ``check``."""
    parser = subparsers.add_parser(
        "check",
        help=summary,
        description=(
            "Take one scan and exit 0 when no other test run is live, 3 when another run "
            "of this checkout is live, 4 when only foreign runs share the machine."
        ),
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print nothing; exit status only"
    )
    parser.add_argument(
        "--ignore-foreign",
        action="store_true",
        help="exit 0, not 4, when only foreign runs are live: for scripts that only care "
        "about this checkout (runctx check --ignore-foreign && pytest)",
    )
    add_viewpoint_options(parser)


def outcome_of(report: Report) -> int:
    """The exit status a report calls for."""
    if report.ours:
        return EXIT_OURS
    if report.foreign:
        return EXIT_FOREIGN
    return EXIT_CLEAR


def check_text(report: Report, rules: BusyRules = DEFAULT_BUSY) -> str:
    """What a person asked for: the same words as the hooks, and every foreign run named.

    Unlike a note injected into an agent's context, ``runctx check`` is asked
    for, so each foreign run gets a line (who, whose, its CPU use now, why
    foreign), busy or idle.
    """
    parts = []
    if report.ours:
        parts.append(same_checkout_message(report))
    if report.foreign:
        share = plural(len(report.foreign), "foreign test run shares", "foreign test runs share")
        parts.append(f"{share} this machine (not this checkout's):")
        parts.extend(f"  {describe_foreign(judged)}" for judged in report.foreign)
    pressure = box_pressure(report.load, rules)
    if pressure.busy and parts:
        parts.append(box_line(pressure))
    if not parts:
        parts.append("No other test run of this checkout is live, and no foreign run either.")
    return "\n".join(parts)


def run(args: argparse.Namespace) -> int:
    """Print what the scan found; exit with its outcome."""
    here = viewpoint_from(args)
    settings = settings_for(here.root)
    report = scan(
        here, source=source_from(args), cpu_window=DEFAULT_WINDOW_SECONDS, settings=settings
    )
    found = outcome_of(report)
    status = EXIT_CLEAR if found == EXIT_FOREIGN and args.ignore_foreign else found
    busy = settings.busy
    if args.json:
        out = report_json(report, busy)
        out["check"] = OUTCOMES[found]
        out["exit_status"] = status
        write_json(out)
    elif not args.quiet:
        write_text(check_text(report, busy) + "\n")
    return status
