"""``runctx stop PID...``: stop runs of this checkout, and only those known to be ours.

Each PID must be the authoritative pid of a live test run (the one ``runctx
status`` shows). A run is stopped only when its uid and its checkout root were
both read and both match the caller's (a run of unknown identity is refused),
and never when it is the run the command belongs to. The run's processes get
``SIGTERM``, then ``SIGKILL`` after ``--grace``; each pid's identity is checked
right before its signal. Nothing is ever stopped by name.

``runctx stop --orphans`` stops, the same way, every orphaned run of this
checkout known to be ours (its starter is gone: an xdist worker whose
controller died, a run whose shell or agent session ended) and touches nothing
else; with none, it says so and exits 0.

The uid is always the caller's own: there is no ``--uid`` here, so a run of
another user is always refused, even for root.

Exit statuses (the highest that applies to any PID): 0 every run stopped;
3 a PID is not a live test run; 4 refused (foreign, identity not fully known,
a member pid, or this run); 5 some process outlived ``SIGKILL``; 1 error,
2 usage error.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import Any

from runctx.cli.common import (
    add_root_option,
    add_source_option,
    duration,
    source_from,
    viewpoint_from,
    whole_number,
)
from runctx.exits import EXIT_USAGE
from runctx.identity import Verdict
from runctx.present.escape import json_text, visible
from runctx.present.json import run_json
from runctx.present.output import say, write_json, write_text
from runctx.present.words import describe_run
from runctx.scanning import scan
from runctx.settings import settings_for
from runctx.stopping import (
    DEFAULT_GRACE_SECONDS,
    StopResult,
    StopStatus,
    stop_orphans,
    stop_runs,
)

EXIT_STOPPED = 0
EXIT_NOT_A_RUN = 3
EXIT_STOP_REFUSED = 4
EXIT_SURVIVED = 5

STATUS_EXITS = {
    StopStatus.STOPPED: EXIT_STOPPED,
    StopStatus.NOT_A_RUN: EXIT_NOT_A_RUN,
    StopStatus.REFUSED: EXIT_STOP_REFUSED,
    StopStatus.SURVIVED: EXIT_SURVIVED,
}


_pid = whole_number("a pid (a positive integer)", 1)


DESCRIPTION = (
    "Stop live test runs of this checkout by their pid (or every orphaned one, "
    "--orphans): SIGTERM to the run's processes, SIGKILL after the grace period. "
    "Refuses any run not known to be this checkout's and user's. Exit 0 stopped, "
    "3 not a run, 4 refused, 5 survived SIGKILL."
)
"""What ``runctx stop --help`` says first."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``stop``."""
    pids = parser.add_argument("pids", nargs="*", type=_pid, metavar="PID", help="a run's pid")
    pids.completer = stoppable_runs  # type: ignore[attr-defined,unused-ignore]
    parser.add_argument(
        "--orphans",
        action="store_true",
        help="stop every orphaned run of this checkout (its runner or starter is gone), "
        "instead of PIDs",
    )
    parser.add_argument(
        "--grace",
        type=duration,
        default=DEFAULT_GRACE_SECONDS,
        metavar="DURATION",
        help=f"how long to wait after SIGTERM before SIGKILL (default: {DEFAULT_GRACE_SECONDS}s)",
    )
    parser.add_argument("--json", action="store_true", help="print what was done as JSON")
    add_root_option(
        parser, "stop runs of the checkout that holds DIR (default: the current directory's)"
    )
    add_source_option(parser)


def stoppable_runs(parsed_args: argparse.Namespace, **_: object) -> dict[str, str]:
    """What ``runctx stop <TAB>`` offers: this user's runs of this checkout, each described.

    Only runs known to be ours (uid and root both read and both the caller's),
    and never the run the completion itself belongs to: what ``stop`` would
    not refuse. A completion never fails: anything wrong offers nothing.
    """
    try:
        report = scan(viewpoint_from(parsed_args), source=source_from(parsed_args))
    except Exception:  # noqa: BLE001 - a TAB must never print a traceback
        return {}
    return {
        str(judged.run.pid): describe_run(judged)
        for judged in report.ours
        if judged.judgement.verdict is Verdict.OURS
    }


def result_json(result: StopResult) -> dict[str, Any]:
    """One pid's outcome as JSON."""
    return {
        "pid": result.pid,
        "status": result.status.value,
        "exit_status": STATUS_EXITS[result.status],
        "reasons": [json_text(reason) for reason in result.reasons],
        "run": run_json(result.run) if result.run is not None else None,
        "signalled": [{"pid": pid, "signal": name} for pid, name in result.signalled],
        "skipped": [{"pid": pid, "why": json_text(why)} for pid, why in result.skipped],
        "survivors": list(result.survivors),
        "seconds": round(result.seconds, 3),
    }


def result_text(result: StopResult) -> str:
    """One pid's outcome in a line or two."""
    if result.status is StopStatus.NOT_A_RUN:
        return f"runctx: not a run: {'; '.join(visible(r) for r in result.reasons)}"
    run = describe_run(result.run) if result.run is not None else f"pid {result.pid}"
    if result.status is StopStatus.REFUSED:
        return f"runctx: refused to stop {run}: " + "; ".join(visible(r) for r in result.reasons)
    sent = Counter(name for _pid, name in result.signalled)
    signals = ", ".join(f"{name} to {count}" for name, count in sent.items()) or "no signal"
    skipped = "".join(f"; pid {pid} not signalled: {visible(why)}" for pid, why in result.skipped)
    if result.status is StopStatus.SURVIVED:
        why = "; ".join(visible(reason) for reason in result.reasons)
        return f"runctx: could not stop {run} ({signals}{skipped}): {why}"
    return f"runctx: stopped {run} ({signals}{skipped}) in {result.seconds:.1f}s"


def run(args: argparse.Namespace) -> int:
    """Stop what may be stopped; exit with the worst outcome."""
    if bool(args.pids) == bool(args.orphans):
        say("runctx stop: error: give the PID of a run, or --orphans (not both)")
        return EXIT_USAGE
    here = viewpoint_from(args)
    source, settings = source_from(args), settings_for(here.root)
    if args.orphans:
        results = stop_orphans(here, grace=args.grace, source=source, settings=settings)
    else:
        results = stop_runs(args.pids, here, grace=args.grace, source=source, settings=settings)
    if not results and not args.json:
        write_text("runctx: no orphaned run of this checkout is live; nothing stopped\n")
    if args.json:
        write_json([result_json(r) for r in results])
    else:
        for result in results:
            stream = sys.stdout if result.status is StopStatus.STOPPED else sys.stderr
            write_text(result_text(result) + "\n", stream)
    return max((STATUS_EXITS[r.status] for r in results), default=EXIT_STOPPED)
