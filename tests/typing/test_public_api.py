"""Type-checks the public API of runctx (``mypy --strict``); nothing here runs a test.

Each function pins the types a user of ``import runctx`` relies on (the types of
the values it hands back are imported from their modules). If a public
name, a signature or a return type changes, mypy fails here first.
"""

from __future__ import annotations

from typing import Any, assert_type

import runctx
from runctx.checkout import Root, same_directory
from runctx.environment import Environment, command_environment, same_environment
from runctx.folding import FoldedRun, fold_runs
from runctx.identity import HasOwner
from runctx.records import ProcIdentity, ProcRecord
from runctx.report import StartedBy
from runctx.runners import RunnerMatch, RunnerPattern, detect_runner
from runctx.sources.load import Load, MemInfo, Pressure
from runctx.sources.visibility import Visibility
from runctx.stopping import StopResult, StopStatus
from runctx.waiting import blocking_runs


def check_scan_and_report() -> None:
    """A scan from the current process's viewpoint, and what a report holds."""
    here = runctx.viewpoint()
    assert_type(here, runctx.Viewpoint)
    assert_type(here.root, Root | runctx.Unknown)
    if isinstance(here.root, Root):
        text: str = here.root  # a root is its path text
        assert_type(here.root.directory_id, tuple[int, int] | None)
        assert_type(same_directory(here.root, text), bool | None)
    assert_type(here.uid, int | runctx.Unknown)
    report = runctx.scan(here)
    assert_type(report, runctx.Report)
    assert_type(runctx.scan(), runctx.Report)
    assert_type(report.runs, tuple[runctx.JudgedRun, ...])
    assert_type(report.ours, tuple[runctx.JudgedRun, ...])
    assert_type(report.ours_known, tuple[runctx.JudgedRun, ...])
    assert_type(report.foreign, tuple[runctx.JudgedRun, ...])
    assert_type(report.self_run, runctx.JudgedRun | None)
    assert_type(report.load, Load)
    assert_type(report.visibility, Visibility)
    assert_type(report.visibility.notes, tuple[str, ...])
    assert_type(runctx.report_json(report), dict[str, Any])
    assert_type(runctx.visible("a\x1b"), str)
    other = runctx.viewpoint(cwd="/", root="/", uid=0)
    assert_type(other, runctx.Viewpoint)


def check_runs(judged: runctx.JudgedRun) -> None:
    """A judged run: the run, its identity, members and verdict with reasons."""
    run = judged.run
    assert_type(run, runctx.Run)
    assert_type(run.identity, ProcIdentity)
    assert_type(run.identity.start, int)
    assert_type(run.members, tuple[int, ...])
    assert_type(run.is_self, bool)
    assert_type(run.orphaned, bool)
    assert_type(run.argv, tuple[str, ...] | runctx.Unknown)
    assert_type(run.cpu_now, float | runctx.Unknown)
    assert_type(run.started_by, StartedBy | runctx.Unknown)
    if isinstance(run.started_by, StartedBy):
        assert_type(run.started_by.kind, str)
        assert_type(run.started_by.session, str | None)
        assert_type(run.started_by.detail, str | None)
    assert_type(judged.foreign, bool)
    assert_type(judged.shares_tree, bool)
    assert_type(judged.judgement.shares_tree, bool)
    assert_type(judged.judgement, runctx.Judgement)
    assert_type(judged.judgement.verdict, runctx.Verdict)
    assert_type(judged.judgement.reasons, tuple[str, ...])
    assert_type(run.environment, Environment | runctx.Unknown)
    assert_type(run.shares_environment_with, tuple[int, ...])
    if isinstance(run.environment, Environment):
        assert_type(run.environment.prefix, str)
        assert_type(run.environment.directory_id, tuple[int, int] | None)
        assert_type(same_environment(run.environment, run.environment), bool)
    found = command_environment("pytest", ["pytest"], "/src/proj")
    assert_type(found, Environment | None)


def check_verdicts(run: runctx.Run, here: runctx.Viewpoint) -> None:
    """The predicate and its reasons take the viewpoint as parameters."""
    owner: HasOwner = run
    assert_type(runctx.is_foreign(owner, here.root, here.uid), bool)
    assert_type(runctx.foreign_reasons(run, "/src/proj", 1000), tuple[str, ...])
    assert_type(runctx.judge(run, runctx.Unknown(runctx.Reason.DENIED), 1000), runctx.Judgement)
    verdict: runctx.Verdict = runctx.Verdict.OURS
    assert_type(verdict.value, str)


def check_load(load: Load) -> None:
    """Load values are values or explicit unknowns."""
    assert_type(load.usable_cpus, int | runctx.Unknown)
    assert_type(load.load_per_cpu, float | runctx.Unknown)
    assert_type(load.cpu_pressure, Pressure | runctx.Unknown)
    assert_type(load.memory, MemInfo | runctx.Unknown)
    assert_type(load.memory_available_percent, float | runctx.Unknown)
    report = runctx.scan(cpu_window=0.1)
    assert_type(report.cpu_window, float | runctx.Unknown)


def check_waiting(here: runctx.Viewpoint) -> None:
    """Waiting for this checkout's earlier runs, with progress callbacks."""

    def show(blocking: tuple[runctx.JudgedRun, ...]) -> None:
        del blocking

    outcome = runctx.wait_for_turn(here, timeout=5.0, poll_seconds=0.2, on_change=show)
    assert_type(outcome, runctx.WaitOutcome)
    assert_type(outcome.ready, bool)
    assert_type(outcome.waited_seconds, float)
    assert_type(outcome.blocking, tuple[runctx.JudgedRun, ...])
    assert_type(outcome.waited_for, tuple[runctx.JudgedRun, ...])
    assert_type(outcome.report, runctx.Report)
    assert_type(blocking_runs(outcome.report), tuple[runctx.JudgedRun, ...])
    assert_type(runctx.wait_for_turn(here, timeout=None), runctx.WaitOutcome)


def check_stopping(here: runctx.Viewpoint) -> None:
    """Stopping runs known to be ours, one result per pid."""
    results = runctx.stop_runs([4121], here, grace=2.0)
    assert_type(results, tuple[StopResult, ...])
    first = results[0]
    assert_type(first.status, StopStatus)
    assert_type(first.reasons, tuple[str, ...])
    assert_type(first.run, runctx.JudgedRun | None)
    assert_type(first.signalled, tuple[tuple[int, str], ...])
    assert_type(first.survivors, tuple[int, ...])
    stopped: bool = first.status is StopStatus.STOPPED
    del stopped
    assert_type(runctx.stop_orphans(here, grace=2.0), tuple[StopResult, ...])


def check_runners_and_roots(record: ProcRecord) -> None:
    """Checkout roots are public; runner detection and folding live in their modules."""
    match = detect_runner(("python", "-m", "pytest"))
    assert_type(match, RunnerMatch | None)
    assert_type(runctx.checkout_root("/src/proj/tests"), Root | runctx.Unknown)
    assert_type(record.identity, ProcIdentity)
    folded = fold_runs({record.pid: record}, detect_runner)
    assert_type(folded, list[FoldedRun])
    pattern: RunnerPattern | None = None
    del pattern


def check_decision(report: runctx.Report) -> None:
    """The checkout's settings and the decision for a test run started next to a report."""
    settings = runctx.settings_for(report.here.root)
    assert_type(settings, runctx.Settings)
    decision = runctx.decision_for(report, settings.mode, shared_mode=settings.shared_tree_mode)
    assert_type(decision, runctx.Decision)
    assert_type(decision.action, runctx.Action)
    assert_type(decision.message, str)
    held: bool = decision.action in {runctx.Action.STOP, runctx.Action.WAIT}
    del held


def check_errors_and_version() -> None:
    """The error classes and the version."""
    error: runctx.RunctxError = runctx.ConfigError("bad [tool.runctx]")
    del error
    version: object = runctx.__version__
    del version
