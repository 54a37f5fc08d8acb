"""Busy now, not just present: which runs keep CPUs busy, and whether the box is under pressure.

Pure, over a :class:`~runctx.report.Report` and the checkout's
:class:`~runctx.settings.BusyRules`:

- a run is *busy now* when the CPUs its processes kept busy over the scan's
  CPU window (``Run.cpu_now``) reach ``busy-run-cpu``; a run whose CPU use
  was not measured is not known to be idle, so it counts as busy (the
  visible answer);
- the box is *under pressure* when its CPU pressure (PSI ``some avg10``)
  reaches ``busy-box-cpu-pressure``, its one-minute load per usable CPU
  reaches ``busy-box-load-per-cpu``, or its available memory is below
  ``busy-box-memory-available`` percent of the total. A fact that is not
  known (no PSI on this kernel, ``/proc`` mounted ``subset=pid``) adds no
  pressure, the others still count, and it is named as unknown: "not busy"
  is claimed only when every fact with a threshold was read
  (:attr:`BoxPressure.known_calm`).

A foreign run is worth a note only when it is busy now or the box is under
pressure (:mod:`runctx.policy`); idle foreign runs are only counted.
"""

from __future__ import annotations

import attrs

from runctx.record_base import Record
from runctx.report import JudgedRun, Run
from runctx.settings import BusyRules
from runctx.sources.load import Load
from runctx.unknown import Reason, Unknown


def busy_now(run: Run, rules: BusyRules) -> bool:
    """Whether ``run`` keeps at least ``rules.run_cpu`` CPUs busy now.

    Not measured counts as busy (the visible answer); a run none of whose
    processes lived through the window has ended, and is not.
    """
    if isinstance(run.cpu_now, Unknown):
        return run.cpu_now.reason is not Reason.GONE
    return run.cpu_now >= rules.run_cpu


def ended_in_window(run: Run) -> bool:
    """Whether none of ``run``'s processes lived through the CPU window: it has ended."""
    return isinstance(run.cpu_now, Unknown) and run.cpu_now.reason is Reason.GONE


def idle_now(run: Run, rules: BusyRules) -> bool:
    """Whether ``run`` is known to be idle now: measured, and under ``rules.run_cpu``."""
    return not busy_now(run, rules) and not ended_in_window(run)


@attrs.frozen(repr=False, eq=False)
class BoxPressure(Record):
    """Whether the box is under pressure: each threshold it crossed, each fact not read, in words.

    ``unknown`` names the facts with a threshold that could not be read
    (``load: /proc/loadavg is not readable``): they are never summed into
    "not busy".
    """

    reasons: tuple[str, ...]
    unknown: tuple[str, ...] = ()

    @property
    def busy(self) -> bool:
        """Whether any threshold was crossed."""
        return bool(self.reasons)

    @property
    def known_calm(self) -> bool:
        """Whether the box is known not to be busy: no threshold crossed, every fact read."""
        return not self.reasons and not self.unknown


def _unread(name: str, value: Unknown) -> str:
    return f"{name} ({value.detail or value.reason.value})"


def box_pressure(load: Load, rules: BusyRules) -> BoxPressure:
    """Which of the box's facts cross the rules' thresholds (``CPU pressure 62% >= 40%``).

    A fact with a threshold that could not be read is named in ``unknown``.
    """
    reasons = []
    unknown = []
    pressure = load.cpu_pressure
    per_cpu = load.load_per_cpu
    available = load.memory_available_percent
    facts: tuple[tuple[str, float | Unknown, float | None], ...] = (
        (
            "CPU pressure",
            pressure if isinstance(pressure, Unknown) else pressure.avg10,
            rules.cpu_pressure,
        ),
        ("load", per_cpu, rules.load_per_cpu),
        ("memory", available, rules.memory_available),
    )
    for name, value, limit in facts:
        if limit is None:
            continue
        if isinstance(value, Unknown):
            unknown.append(_unread(name, value))
        elif name == "CPU pressure" and value >= limit:
            reasons.append(f"CPU pressure {value:.0f}% >= {limit:g}%")
        elif name == "load" and value >= limit:
            reasons.append(f"load {value:.2f} per CPU >= {limit:g}")
        elif name == "memory" and value < limit:
            reasons.append(f"memory available {value:.0f}% < {limit:g}%")
    return BoxPressure(tuple(reasons), tuple(unknown))


def split_by_cpu(
    runs: tuple[JudgedRun, ...], rules: BusyRules
) -> tuple[tuple[JudgedRun, ...], tuple[JudgedRun, ...]]:
    """``runs`` as (busy now, idle now), busiest first; a run that ended in the window: neither."""
    busy = tuple(judged for judged in runs if busy_now(judged.run, rules))
    idle = tuple(judged for judged in runs if idle_now(judged.run, rules))

    def cpu(judged: JudgedRun) -> float:
        value = judged.run.cpu_now
        return float("inf") if isinstance(value, Unknown) else value

    return tuple(sorted(busy, key=cpu, reverse=True)), idle
