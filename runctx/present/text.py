"""The report as a readable table for a terminal (``runctx status``).

Every piece of foreign text (an argument, a path, a kind, a reason, a user
name) goes through :func:`runctx.present.escape.visible` before it reaches a
cell or a line, so nothing in it can move the cursor or forge a line.
"""

from __future__ import annotations

import shlex

from runctx.busy import box_pressure
from runctx.environment import Environment
from runctx.identity import Verdict
from runctx.present.escape import visible
from runctx.present.words import describe_starter, human_age, owner_name
from runctx.report import JudgedRun, Report
from runctx.settings import DEFAULT_BUSY, BusyRules
from runctx.sources.load import Load
from runctx.unknown import Reason, Unknown

_GIB = 1024**3

_ARGV_WIDTH = 60


def command_line(judged: JudgedRun) -> str:
    """The argv of a run, shortened for a table cell."""
    argv = judged.run.argv
    if isinstance(argv, Unknown):
        return visible(str(argv))
    text = shlex.join(visible(arg) for arg in argv)
    return text if len(text) <= _ARGV_WIDTH else text[: _ARGV_WIDTH - 1] + "…"


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  "
        + "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def environment_cell(environment: Environment | Unknown) -> str:
    """A run's environment for a table cell: its prefix, ``-`` for none, ``?`` when unreadable."""
    if isinstance(environment, Environment):
        return visible(environment.prefix)
    return "-" if environment.reason in (Reason.ABSENT, Reason.NOT_READ) else "?"


def sharing_line(judged: JudgedRun) -> str | None:
    """The line under a run that shares its environment with runs of other checkouts."""
    run = judged.run
    if not run.shares_environment_with or not isinstance(run.environment, Environment):
        return None
    pids = ", ".join(str(pid) for pid in run.shares_environment_with)
    return (
        f"      shares its environment {visible(run.environment.prefix)} with pid {pids} of "
        "other checkouts: an install into it by either changes what the other imports"
    )


def _run_rows(runs: tuple[JudgedRun, ...], *, with_reason: bool) -> list[str]:
    header = ["PID", "KIND", "AGE", "MEMBERS", "CPU", "CPU NOW", "OWNER", "STARTED BY", "ROOT"]
    header.extend(["ENV", "COMMAND"])
    rows = [header]
    for judged in runs:
        run = judged.run
        marks = " (orphaned)" if run.orphaned else ""
        root = visible(str(run.root) if isinstance(run.root, Unknown) else run.root.shown)
        rows.append(
            [
                f"{run.pid}{marks}",
                visible(run.kind),
                human_age(run.age_seconds),
                str(len(run.members)),
                "?" if isinstance(run.cpu_seconds, Unknown) else f"{run.cpu_seconds:.1f}s",
                "-" if isinstance(run.cpu_now, Unknown) else f"{run.cpu_now:.2f}",
                owner_name(run.uid),
                describe_starter(run.started_by) or "?",
                root,
                environment_cell(run.environment),
                command_line(judged),
            ]
        )
    lines = _table(rows)
    out = [lines[0]]
    for line, judged in zip(lines[1:], runs, strict=True):
        out.append(line)
        if with_reason:
            out.append("      why: " + "; ".join(visible(r) for r in judged.judgement.reasons))
        if with_reason and judged.shares_tree:
            out.append(
                f"      shares this tree: {owner_name(judged.run.uid)}'s run in this very "
                "checkout writes its caches, coverage files and build dirs too"
            )
        sharing = sharing_line(judged)
        if sharing is not None:
            out.append(sharing)
    return out


def _memory_part(load: Load) -> str:
    memory = load.memory
    if isinstance(memory, Unknown):
        return f"memory {memory}"
    share = load.memory_available_percent
    percent = "" if isinstance(share, Unknown) else f" ({share:.0f}%)"
    return (
        f"memory {memory.available_bytes / _GIB:.1f} GiB available{percent} "
        f"of {memory.total_bytes / _GIB:.1f} GiB"
    )


def _load_line(load: Load) -> str:
    parts = []
    cpus = load.usable_cpus
    parts.append(f"{cpus} usable CPUs" if not isinstance(cpus, Unknown) else f"usable CPUs {cpus}")
    average = load.load_average
    if isinstance(average, Unknown):
        parts.append(f"load average {average}")
    else:
        per_cpu = load.load_per_cpu
        per = "" if isinstance(per_cpu, Unknown) else f" ({per_cpu:.2f} per CPU)"
        parts.append("load " + " ".join(f"{value:.2f}" for value in average) + per)
    pressure = load.cpu_pressure
    if isinstance(pressure, Unknown):
        parts.append(f"CPU pressure {pressure}")
    else:
        parts.append(
            f"CPU pressure {pressure.avg10:.1f}% / {pressure.avg60:.1f}% / "
            f"{pressure.avg300:.1f}% (10s/60s/300s)"
        )
    parts.append(_memory_part(load))
    return "Box: " + ", ".join(parts)


def report_text(report: Report, busy: BusyRules = DEFAULT_BUSY) -> str:
    """The whole report as text; ``busy`` says when the box counts as busy."""
    here = report.here
    root = visible(str(here.root))
    lines = [f"Viewpoint: {root} as {owner_name(here.uid)} (uid {here.uid})"]
    self_run = report.self_run
    ours = report.ours
    foreign = report.foreign
    lines.append("")
    if self_run is not None:
        caller = report.self_pid
        lines.append(f"This run (the calling process {caller} belongs to it):")
        lines.extend(_run_rows((self_run,), with_reason=False))
        lines.append("")
    if ours:
        lines.append(f"Other runs of this checkout ({len(ours)}):")
        lines.extend(_run_rows(ours, with_reason=False))
        lines.extend(
            f"  {judged.run.pid}: identity not fully known, counted as ours: "
            + "; ".join(visible(reason) for reason in judged.judgement.reasons)
            for judged in ours
            if judged.judgement.verdict is Verdict.UNKNOWN
        )
    else:
        lines.append("Other runs of this checkout: none live.")
    lines.append("")
    if foreign:
        lines.append(f"Foreign runs ({len(foreign)}; they share the CPUs, never counted as ours):")
        lines.extend(_run_rows(foreign, with_reason=True))
        shared = report.shared_tree
        if shared:
            pids = ", ".join(str(judged.run.pid) for judged in shared)
            lines.append(
                f"Shared tree: {len(shared)} foreign run(s) of other users work in this very "
                f"checkout (pid {pids}): not ours, but they share its files."
            )
    else:
        lines.append("Foreign runs: none live.")
    lines.append("")
    lines.append(_load_line(report.load))
    pressure = box_pressure(report.load, busy)
    lines.append(
        "Busy now: " + ", ".join(pressure.reasons)
        if pressure.busy
        else "Busy now: no (under every busy-box threshold)"
    )
    window = report.cpu_window
    if not isinstance(window, Unknown):
        lines.append(f"CPU NOW: CPUs each run kept busy over the last {window:.2f}s")
    visibility = report.visibility
    seen = f"Seen: {visibility.processes_listed} processes via {visibility.source}"
    if visibility.hidepid != "unknown":
        seen += f", /proc hidepid={visible(visibility.hidepid)}"
    lines.append(seen)
    if visibility.notes:
        lines.extend(f"Not seen: {visible(note)}" for note in visibility.notes)
    else:
        lines.append("Not seen: nothing hidden from this scan.")
    return "\n".join(lines)
