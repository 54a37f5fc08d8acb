"""The pytest plugin's words at the default verbosity: one header line, one summary line.

A session's reader wants its test results; runctx says what it saw in one
line before them and one after, unless ``-v`` asks for every detail
(:func:`runctx.pytest_contention.header_lines`, :func:`runctx.pytest_contention.summary_lines`).
Each line is made of *parts* joined by ``; ``: the runs of this checkout
first (they matter most), then other users' runs in it, then busy foreign
runs and the box's pressure, then a count of idle foreign runs. The
samples taken during the session are summed, never listed.

This module is imported only after the session's scan: it may import what
the scan imported.
"""

from __future__ import annotations

from collections.abc import Sequence

from runctx.busy import box_pressure, ended_in_window, split_by_cpu
from runctx.present.escape import visible
from runctx.present.words import (
    PERSON_KINDS,
    describe_cpu,
    describe_run,
    describe_starter,
    idle_count,
    owner_name,
    plural,
)
from runctx.pytest_terminal import joined
from runctx.report import JudgedRun, Report, StartedBy
from runctx.settings import BusyRules
from runctx.watchers import watcher_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.pytest_contention import Sample

"""The hint at the end of a line that left details out."""


def _whose(judged: JudgedRun) -> str:
    """Who a run of this checkout is: a watcher, an orphan, a person's run, or who started it."""
    run = judged.run
    watching = watcher_of(run)
    if watching is not None:
        return f", a watcher (`{visible(watching)}`) that re-runs this checkout's tests on change"
    if run.orphaned:
        return ", an orphan"
    starter = describe_starter(run.started_by, detail=False)
    if isinstance(run.started_by, StartedBy) and run.started_by.kind in PERSON_KINDS:
        return f", a person's run from {starter}"
    return f", started by {starter}" if starter else ""


def ours_parts(earlier: Sequence[JudgedRun], later: Sequence[JudgedRun]) -> list[str]:
    """The runs of this checkout: those live before this session, and those started after it."""
    parts = []
    if earlier:
        first = earlier[0]
        more = f" and {len(earlier) - 1} more" if len(earlier) > 1 else ""
        live = plural(
            len(earlier),
            "other test run of this checkout is live",
            "other test runs of this checkout are live",
        )
        parts.append(f"{live}: {describe_run(first)}{_whose(first)}{more}")
    if later:
        more = f" and {len(later) - 1} more" if len(later) > 1 else ""
        runs = plural(len(later), "run of this checkout", "runs of this checkout")
        parts.append(f"{runs} started after this session: {describe_run(later[0])}{more}")
    return parts


def shared_part(runs: Sequence[JudgedRun]) -> list[str]:
    """Other users' runs in this very checkout, which share its files."""
    if not runs:
        return []
    named = ", ".join(f"{describe_run(j)} owned by {owner_name(j.run.uid)}" for j in runs[:2])
    more = f" and {len(runs) - 2} more" if len(runs) > 2 else ""  # noqa: PLR2004
    live = plural(
        len(runs),
        "test run of another user is live in this very checkout",
        "test runs of another user are live in this very checkout",
    )
    return [f"{live}: {named}{more}"]


def _foreign_brief(judged: JudgedRun) -> str:
    run = judged.run
    return f"pid {run.pid} ({visible(run.kind)}, {owner_name(run.uid)}): {describe_cpu(judged)}"


def foreign_parts(report: Report, rules: BusyRules) -> list[str]:
    """Busy foreign runs (the busiest named), the box's pressure, and the idle ones counted."""
    busy, idle = split_by_cpu(report.foreign, rules)
    pressure = box_pressure(report.load, rules)
    parts = []
    if busy:
        more = f" and {len(busy) - 1} more" if len(busy) > 1 else ""
        noun = "run" if len(busy) == 1 else "runs"
        parts.append(f"busy foreign test {noun}: {_foreign_brief(busy[0])}{more}")
    if pressure.busy:
        parts.append("box busy: " + ", ".join(pressure.reasons))
    if idle:
        parts.append(f"{idle_count(len(idle))} on this box")
    return parts


def summary_line(samples: Sequence[Sample], errors: Sequence[str], *, always: bool) -> str | None:
    """The summary in one line: what the samples saw, summed; None when nothing and not ``always``.

    Runs of this checkout and busy foreign runs are counted over the samples
    (the busiest named); a busy box says in how many samples it was busy,
    and why in the first.
    """
    problems = [f"could not check for other runs: {error}" for error in errors]
    count = len(samples)
    taken = plural(count, "sample", "samples")
    ours: dict[object, JudgedRun] = {}
    busy: dict[object, JudgedRun] = {}
    for sample in samples:
        ours.update((judged.run.identity, judged) for judged in sample.ours)
        busy.update((judged.run.identity, judged) for judged in sample.busy_foreign)
    seen = (judged.run for sample in samples for judged in sample.foreign)
    idle = {run.identity for run in seen if not ended_in_window(run)} - set(busy)
    pressed = [sample for sample in samples if sample.pressure]
    parts = []
    if ours:
        pids = ", ".join(str(judged.run.pid) for judged in list(ours.values())[:3])
        more = f" and {len(ours) - 3} more" if len(ours) > 3 else ""  # noqa: PLR2004
        parts.append(
            plural(len(ours), "other run of this checkout", "other runs of this checkout")
            + f" (pid {pids}{more})"
        )
    if busy:
        busiest = max(busy.values(), key=_cpu_of)
        more = f" and {len(busy) - 1} more" if len(busy) > 1 else ""
        noun = "run" if len(busy) == 1 else "runs"
        parts.append(f"busy foreign test {noun}: {_foreign_brief(busiest)}{more}")
    if pressed:
        parts.append(f"box busy in {len(pressed)} of {taken} ({', '.join(pressed[0].pressure)})")
    if parts:
        tail = f"; +{idle_count(len(idle))}" if idle else ""
        line = f"contention during this session: {joined(parts)}{tail}; slowness, timeouts and "
        return joined([*problems, line + "flaky failures may come from it"])
    if not samples or not (always or errors):
        return joined(problems) or None
    nothing = (
        f"no busy test run seen during this session ({taken}; {idle_count(len(idle))})"
        if idle
        else f"no other test run seen during this session ({taken})"
    )
    return joined([*problems, nothing])


def _cpu_of(judged: JudgedRun) -> float:
    now = judged.run.cpu_now
    return now if isinstance(now, float) else 0.0
