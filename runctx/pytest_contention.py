"""What the pytest plugin says about a scan: the header's lines, the samples, the summary.

Each function here is given a report (:class:`runctx.report.Report`) or the
samples taken during the session and returns lines, without the ``runctx: ``
prefix where the caller adds it; nothing here scans, waits or writes. The
one-line forms written unless ``-v`` are :mod:`runctx.pytest_brief`'s.

Imported once the session is configured (:mod:`runctx.pytest_session`), after
a coverage tool measures.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from itertools import groupby

import attrs

from runctx import policy
from runctx.busy import box_pressure, ended_in_window, split_by_cpu
from runctx.exits import EXIT_REFUSED
from runctx.modes import Mode
from runctx.policy import Action, Cause, Decision
from runctx.present.words import (
    COUNTED_FOREIGN,
    describe_foreign,
    describe_ours,
    live_lines,
    same_checkout_lines,
    shared_tree_message,
)
from runctx.pytest_terminal import PREFIX
from runctx.record_base import Record
from runctx.records import ProcIdentity
from runctx.report import JudgedRun, Report
from runctx.session_cpu import CpuMark, mark, others_since
from runctx.settings import DEFAULT_BUSY, BusyRules
from runctx.sources.load import Load
from runctx.unknown import Reason, Unknown
from runctx.waiting import blocking_runs

POLICY_MODES = {"warn": "warn", "wait": "wait", "refuse": "stop", "stop": "stop", "ask": "ask"}
"""The plugin's words for the policy's modes: ``refuse`` is the policy's ``stop``."""
SUMMARY_BUSY_NAMED = 2
"""Busy foreign runs the summary names (the busiest); the others are counted, as in a note."""
SUMMARY_OURS_NAMED = 3
"""Runs of this checkout the summary names; the others are counted, as in a refusal."""


@attrs.frozen(repr=False, eq=False)
class Sample(Record):
    """What one scan during the session saw besides this run."""

    label: str
    ours: tuple[JudgedRun, ...]
    foreign: tuple[JudgedRun, ...]
    load: Load
    busy_foreign: tuple[JudgedRun, ...] = ()
    pressure: tuple[str, ...] = ()


QUIET_LOAD = Load(
    usable_cpus=Unknown(Reason.NOT_READ, "the box was quiet"),
    load_average=Unknown(Reason.NOT_READ, "the box was quiet"),
    cpu_pressure=Unknown(Reason.NOT_READ, "the box was quiet"),
    memory=Unknown(Reason.NOT_READ, "the box was quiet"),
)
"""The load of a quiet sample: under every default threshold, its figures were not kept."""


def quiet_sample(label: str) -> Sample:
    """A sample taken on a quiet box (:mod:`runctx.fastpath.quiet_session`): nothing was seen."""
    return Sample(label=label, ours=(), foreign=(), load=QUIET_LOAD)


def session_decision(
    report: Report, mode: str, shared_mode: str = "warn", busy: BusyRules | None = None
) -> Decision:
    """The policy's decision for this session about to start, in the plugin's ``mode``.

    ``shared_mode`` is the policy's mode for another user's run in this
    checkout; ``busy`` the checkout's thresholds and ``on-busy-box``.
    """
    return policy.decision_for(
        report,
        Mode(POLICY_MODES[mode]),
        own_run=True,
        shared_mode=Mode(POLICY_MODES[shared_mode]),
        busy=busy if busy is not None else DEFAULT_BUSY,
    )


def started_after(report: Report) -> tuple[JudgedRun, ...]:
    """The runs of this checkout that started after this session's own run.

    They come after it: each waits for this session, or runs beside it, as its
    own mode says; this session is never told to stop them.
    """
    self_run = report.self_run
    if self_run is None or self_run.foreign:
        return ()
    mine = (self_run.run.identity.start, self_run.run.identity.pid)
    return tuple(
        judged
        for judged in report.ours
        if (judged.run.identity.start, judged.run.identity.pid) > mine
    )


def checkout_lines(report: Report) -> list[str]:
    """The lines on runs of this checkout and on other users' runs in it (no prefix).

    These are the lines that matter whatever the verbosity: they are written
    under ``-q`` too. A run of this checkout that started after this session
    is named as such, with no advice to stop it.
    """
    lines: list[str] = []
    later = started_after(report)
    earlier = tuple(judged for judged in report.ours if judged not in later)
    if earlier:
        lines.extend(same_checkout_lines(earlier))
    if later:
        runs = "run of this checkout" if len(later) == 1 else "runs of this checkout"
        lines.append(
            f"{len(later)} {runs} started after this session: "
            + "; ".join(describe_ours(judged) for judged in later)
            + " (each waits for this session or runs beside it, as its own mode says)."
        )
    if report.shared_tree:
        lines.append(shared_tree_message(report.shared_tree, held=False))
    return lines


def contention_lines(report: Report, busy: BusyRules | None) -> list[str]:
    """What the scan at session start saw besides this run, briefly (no prefix).

    Runs of this checkout and other users' runs in it are named; foreign runs
    only when busy now or when the box is under pressure, else counted
    (:func:`runctx.present.words.live_lines`).
    """
    rules = busy if busy is not None else DEFAULT_BUSY
    return live_lines(report, rules, foreign=COUNTED_FOREIGN, checkout=checkout_lines(report))


def header_lines(  # noqa: PLR0913 - each piece of the header is its own fact
    report: Report,
    decision: Decision,
    mode_from: str,
    timeout: float | None,
    shared_from: str = "",
    *,
    busy: BusyRules | None = None,
    said: bool = False,
) -> list[str]:
    """The header lines for the scan at session start (none when nothing is live).

    ``said``: ``runctx run`` said what the scan found already, so only what
    the plugin decides is added.
    """
    lines: list[str] = [] if said else [PREFIX + line for line in contention_lines(report, busy)]
    if decision.cause is Cause.SHARED_TREE:
        lines.append(
            f"{PREFIX}{shared_from or 'on-shared-tree'}: not starting next to another user's "
            f"run in this checkout (exit {EXIT_REFUSED})"
        )
        return lines
    if decision.box_action is Action.WAIT:
        until = "no timeout" if timeout is None else f"timeout {timeout:g}s"
        lines.append(
            f'{PREFIX}on-busy-box = "wait": waiting until the box is less busy '
            f"({', '.join(decision.box.reasons)}; {until})"
        )
    if decision.mode is Mode.WARN:
        return lines
    count = len(blocking_runs(report))
    runs = "run" if count == 1 else "runs"
    if decision.same_action not in {Action.STOP, Action.ASK, Action.WAIT}:
        limits = report.visibility.notes
        seen = f" (not seen: {'; '.join(limits)})" if limits else ""
        lines.append(
            f"{PREFIX}{mode_from}: no earlier run of this checkout is live{seen}; going ahead"
        )
    elif decision.same_action is Action.WAIT:
        until = "no timeout" if timeout is None else f"timeout {timeout:g}s"
        lines.append(
            f"{PREFIX}{mode_from}: waiting for {count} earlier {runs} of this checkout "
            f"to end ({until})"
        )
    else:
        lines.append(
            f"{PREFIX}{mode_from}: not starting next to {count} earlier {runs} of this "
            f"checkout (exit {EXIT_REFUSED})"
        )
    return lines


OTHERS_BUSY_SHARE = 0.5
"""During a session, the box is busy when processes outside it keep this share of its CPUs busy."""


def sample_of(
    label: str,
    report: Report,
    busy: BusyRules | None = None,
    *,
    during: bool = False,
    others: tuple[float, float] | None = None,
) -> Sample:
    """What one scan saw besides this run.

    A scan taken before the session's workers start sees the box's figures
    (CPU pressure, load average, memory) as others left it. One taken
    ``during`` the session sees averages that count the session's own
    processes: CPU pressure and load are left out, and the box is busy only
    when processes outside the session kept :data:`OTHERS_BUSY_SHARE` of its
    CPUs busy (``others``: the CPUs they and the session kept busy,
    :func:`runctx.session_cpu.others_since`, over the window since the previous
    sample; None where that cannot be measured, or the window was too short).
    """
    rules = busy if busy is not None else DEFAULT_BUSY
    busy_runs, _idle = split_by_cpu(report.foreign, rules)
    if isinstance(report.cpu_window, Unknown):
        # A scan that measured no CPU use (the wait's last one) tells no busy run
        # from an idle one: it names none as busy; the other samples do.
        busy_runs = ()
    if not during:
        pressure = box_pressure(report.load, rules).reasons
    else:
        memory_only = BusyRules(
            run_cpu=rules.run_cpu,
            cpu_pressure=None,
            load_per_cpu=None,
            memory_available=rules.memory_available,
            on_busy_box=rules.on_busy_box,
        )
        pressure = box_pressure(report.load, memory_only).reasons
        usable = report.load.usable_cpus
        if others is not None and not isinstance(usable, Unknown) and usable > 0:
            theirs, mine = others
            if theirs >= OTHERS_BUSY_SHARE * usable:
                outside = (
                    f"processes outside this session kept {theirs:.1f} of {usable} usable CPUs "
                    f"busy (this session {mine:.1f})"
                )
                pressure = (outside, *pressure)
    return Sample(
        label=label,
        ours=report.ours,
        foreign=report.foreign,
        load=report.load,
        busy_foreign=busy_runs,
        pressure=pressure,
    )


def own_pids(report: Report) -> list[int]:
    """The session's own processes as the scan saw them: its run's members, or this process."""
    self_run = report.self_run
    return [os.getpid()] if self_run is None else [p.pid for p in self_run.run.processes]


def cpu_mark(report: Report) -> CpuMark | None:
    """Where the window of the session's later samples starts (taken before its workers start)."""
    return mark(own_pids(report))


def others_now(report: Report, start: CpuMark | None) -> tuple[float, float] | None:
    """The CPUs processes outside this session, and this session, kept busy since ``start``."""
    return None if start is None else others_since(start, own_pids(report))


def summary_lines(samples: list[Sample], errors: list[str], *, always: bool) -> list[str]:
    """The terminal summary: what the samples saw; empty when nothing and not ``always``.

    Runs of this checkout (at most :data:`SUMMARY_OURS_NAMED`) and foreign
    runs that were busy in a sample (the busiest :data:`SUMMARY_BUSY_NAMED`)
    are named, the others counted; foreign runs only ever seen idle, on a box
    never under pressure, are counted. The summary stays short however many
    runs the box holds: ``runctx status`` shows them all.
    """
    labels = _labels(samples)
    count = len(samples)
    taken = f"{count} sample{'s' if count != 1 else ''}: {labels}"
    lines = [f"runctx could not check for other runs: {error}" for error in errors]
    ours: dict[ProcIdentity, tuple[JudgedRun, list[str]]] = {}
    busy: dict[ProcIdentity, tuple[JudgedRun, list[str]]] = {}
    for sample in samples:
        for bucket, runs in ((ours, sample.ours), (busy, sample.busy_foreign)):
            for judged in runs:
                _, seen_in = bucket.get(judged.run.identity, (judged, []))
                seen_in.append(sample.label)
                bucket[judged.run.identity] = (judged, seen_in)  # described as last seen

    seen = (j.run for sample in samples for j in sample.foreign)
    idle = {run.identity for run in seen if not ended_in_window(run)} - set(busy)
    pressed = [sample for sample in samples if sample.pressure]
    if not ours and not busy and not pressed:
        if samples and (always or errors):
            if idle:
                lines.append(
                    f"no busy test run was seen during this session ({taken}; "
                    f"{_idle_runs(len(idle))})"
                )
            else:
                lines.append(f"no other test run was seen during this session ({taken})")
        return lines

    lines.append(f"contention was seen during this session ({taken}):")
    lines.extend(
        _named_then_counted(
            list(ours.values()),
            SUMMARY_OURS_NAMED,
            lambda judged: f"other run of this checkout: {describe_ours(judged)}",
            ("run of this checkout", "runs of this checkout"),
        )
    )
    lines.extend(
        _named_then_counted(
            sorted(busy.values(), key=lambda item: _cpu_now(item[0]), reverse=True),
            SUMMARY_BUSY_NAMED,
            lambda judged: f"busy foreign run: {describe_foreign(judged)}",
            ("busy foreign test run", "busy foreign test runs"),
        )
    )
    if idle:
        lines.append(f"  +{_idle_runs(len(idle))}")
    if pressed:
        lines.append(f"  box busy ({pressed[0].label}): {', '.join(pressed[0].pressure)}")
    lines.append(
        "Slowness, timeouts and flaky failures in this session may come from that "
        "contention rather than from a regression."
    )
    return lines


def _labels(samples: list[Sample]) -> str:
    """The samples' labels, a run of one label counted: ``start, 12 during, end``."""
    said = []
    for label, group in groupby(sample.label for sample in samples):
        count = sum(1 for _ in group)
        said.append(label if count == 1 else f"{count} {label}")
    return ", ".join(said)


def _named_then_counted(
    seen: list[tuple[JudgedRun, list[str]]],
    limit: int,
    describe: Callable[[JudgedRun], str],
    noun: tuple[str, str],
) -> list[str]:
    """A summary line for each of the first ``limit`` runs, then one that counts the others."""
    lines = [
        f"  {describe(judged)} [seen at {', '.join(labels)}]" for judged, labels in seen[:limit]
    ]
    more = len(seen) - limit
    if more > 0:
        lines.append(f"  +{more} more {noun[0] if more == 1 else noun[1]}")
    return lines


def _cpu_now(judged: JudgedRun) -> float:
    """The CPUs a run kept busy when last seen; unmeasured first, as ``split_by_cpu`` puts them."""
    now = judged.run.cpu_now
    return float("inf") if isinstance(now, Unknown) else now


def _idle_runs(count: int) -> str:
    """``1 idle foreign test run``, ``3 idle foreign test runs``."""
    return f"{count} idle foreign test run" + ("" if count == 1 else "s")
