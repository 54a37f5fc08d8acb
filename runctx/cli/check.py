"""``runctx check``: one scan, and an exit status a script can branch on.

The exit status is the policy's (:mod:`runctx.policy`), the same decision
every agent hook takes for a test run started here, so that ``runctx check
--ignore-foreign && pytest`` (the pre-commit hook) and the agents agree:

- 0 ``clear``: nothing else is live;
- 3 held: a test run started here now would be refused, asked about or
  made to wait, as the hooks do: another run of this checkout known to be
  ours (``on-same-checkout``), another user's run in this very checkout
  (``on-shared-tree``), or a busy box this checkout waits out
  (``on-busy-box = "wait"``);
- 4 live, not held: a test run would start, but other runs are live:
  foreign runs (contention, not a conflict), or runs of this checkout the
  policy only warns about (of unknown identity, or ``on-same-checkout =
  "warn"``), or may be: a scan cut by ``--timeout`` never says nothing is.
  0 with ``--ignore-foreign``, for scripts that only care whether
  a test run may start: ``runctx check --ignore-foreign && pytest``;
- 1 error, 2 usage error.

``--json`` prints the report in the shape of ``runctx status --json``, plus
``"check"`` (what was found: ``clear``, ``ours`` or ``foreign``; a run of
unknown identity counts as ours; ``unknown`` when a scan cut by
``--timeout`` found none), ``"decision"`` (the policy's action:
``silent``, ``note``, ``warn``, ``ask``, ``wait`` or ``stop``) and
``"exit_status"`` (what the command exits with).
"""

from __future__ import annotations

import argparse

from runctx.cli.common import (
    add_timeout_option,
    add_viewpoint_options,
    deadline_from,
    settings_warned,
    source_from,
    viewpoint_from,
)
from runctx.cpu_window import DEFAULT_WINDOW_SECONDS
from runctx.policy import Action, Decision, decision_for
from runctx.present.json import report_json
from runctx.present.output import say, write_json, write_text
from runctx.present.words import COUNTED_FOREIGN, EVERY_FOREIGN, live_lines
from runctx.report import CUT_NOTE, Report, was_cut
from runctx.scanning import scan
from runctx.settings import DEFAULT_BUSY, BusyRules

EXIT_CLEAR = 0
EXIT_OURS = 3
EXIT_FOREIGN = 4

OUTCOMES = {EXIT_CLEAR: "clear", EXIT_OURS: "ours", EXIT_FOREIGN: "foreign"}


DESCRIPTION = (
    "Take one scan and exit as the agent hooks decide: 3 when a test run started "
    "here would be held (another run of this checkout, another user's run in it, "
    "a busy box this checkout waits out), 4 when it would start next to other "
    "live runs, 0 when nothing else is live."
)
"""What ``runctx check --help`` says first."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``check``."""
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print nothing; exit status only"
    )
    parser.add_argument(
        "--ignore-foreign",
        action="store_true",
        help="exit 0, not 4, when a test run would start next to other live runs: for "
        "scripts that only care whether it may start (runctx check --ignore-foreign && pytest)",
    )
    add_viewpoint_options(parser)
    add_timeout_option(parser)


def outcome_of(report: Report) -> int:
    """What a report found: another run of this checkout (3), only foreign runs (4), none (0)."""
    if report.ours:
        return EXIT_OURS
    if report.foreign:
        return EXIT_FOREIGN
    return EXIT_CLEAR


HELD = frozenset({Action.STOP, Action.ASK, Action.WAIT})
"""The actions that hold a test run: a hook refuses or asks, ``runctx run`` refuses or waits."""


def exit_status(report: Report, decision: Decision, *, ignore_foreign: bool) -> int:
    """The exit status of ``runctx check``: the policy's decision, in the module's words.

    A scan cut by ``--timeout`` never says nothing else is live: what it did
    not read may hold a run of this checkout, so it exits as next to other
    runs (0 under ``ignore_foreign``, which lets a test run start then, as a
    hook that could not decide in time does).
    """
    if decision.action in HELD:
        return EXIT_OURS
    others = any(not judged.run.is_self for judged in report.runs)
    if others or was_cut(report):
        return EXIT_CLEAR if ignore_foreign else EXIT_FOREIGN
    return EXIT_CLEAR


UNTOLD = "unknown"
"""``"check"`` of a scan cut before it found any run: it cannot say none is live."""
NOT_TOLD = (
    "Could not tell whether another test run of this checkout is live: the scan was cut by "
    "--timeout before it had read every process."
)


def check_text(report: Report, rules: BusyRules = DEFAULT_BUSY, *, every: bool = False) -> str:
    """What a person asked for: the same words as the hooks (``live_lines``).

    Foreign runs busy now (or on a busy box) are named and idle ones counted,
    so that a box shared with many idle suites costs one line; ``every``
    (``-v``) names each foreign run with who, whose, its CPU use now and why
    it is foreign, busy or idle.
    """
    parts = live_lines(report, rules, foreign=EVERY_FOREIGN if every else COUNTED_FOREIGN)
    if was_cut(report) and not report.ours:
        parts.append(NOT_TOLD)
    elif not parts:
        parts.append("No other test run of this checkout is live, and no foreign run either.")
    return "\n".join(parts)


def run(args: argparse.Namespace) -> int:
    """Print what the scan found; exit with its outcome."""
    here = viewpoint_from(args)
    settings = settings_warned(here.root)
    report = scan(
        here,
        source=source_from(args),
        cpu_window=DEFAULT_WINDOW_SECONDS,
        settings=settings,
        deadline=deadline_from(args),
    )
    if was_cut(report):
        cut = next(note for note in report.visibility.notes if note.startswith(CUT_NOTE))
        say(f"runctx check: {cut}")
    decision = decision_for(
        report, settings.mode, shared_mode=settings.shared_tree_mode, busy=settings.busy
    )
    found = outcome_of(report)
    status = exit_status(report, decision, ignore_foreign=args.ignore_foreign)
    busy = settings.busy
    if args.json:
        out = report_json(report, busy)
        out["check"] = UNTOLD if found == EXIT_CLEAR and was_cut(report) else OUTCOMES[found]
        out["decision"] = decision.action.value
        out["exit_status"] = status
        write_json(out)
    elif not args.quiet:
        write_text(check_text(report, busy, every=args.verbose > 0) + "\n")
    return status
