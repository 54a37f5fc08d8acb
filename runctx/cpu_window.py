"""A run's CPU use now: two readings of its processes' CPU time, a short window apart.

The CPU time a process has used so far (``utime + stime`` of
``/proc/PID/stat``, which counts every thread) is read once for every
process of the runs asked about, and once more at least ``window`` seconds
later; what the processes of a run used between the two, over the wall time
between them, is the share of a CPU the run kept busy (1.0: one CPU, 2.5: two
and a half). Nothing is kept between two calls of runctx: both readings are
taken inside one scan, and whatever the scan does in between (reading owners,
roots, the load) counts towards the window, so only the rest is slept.

The kernel counts CPU time in clock ticks (10 ms at the usual 100 Hz): over a
0.1 s window one process's use is known to within 0.1 CPU. A process that
exits between the readings, or whose pid changes hands, is left out of both;
one that starts between them is not counted (it was not in the first).
A full scan has read every process's CPU time already, each at an instant
of its own: in its pass over the process table (the first reading,
:meth:`~runctx.sources.ProcessSource.cpu_read_in_table`) and, for a run's
authority, with its owner (:meth:`~runctx.sources.ProcessSource.cpu_read_with_owner`).
Those serve, each process measured over its own window; a process is read
again only when its readings are less than ``window`` apart (on a box of
thousands of processes, the scan itself takes longer than the window).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import attrs

from runctx.record_base import Record
from runctx.records import ProcIdentity
from runctx.report import Run
from runctx.sources import ProcessSource
from runctx.unknown import Reason, Unknown

DEFAULT_WINDOW_SECONDS = 0.1
"""The window every face samples over: long enough for a busy process to show
(10 ticks of a CPU), short enough for a hook's answer."""


Reading = tuple[float, float]
"""One reading of a process taken already: when (:func:`time.monotonic`), and its CPU seconds."""


@attrs.frozen(repr=False, eq=False)
class CpuReading(Record):
    """The CPU seconds of some processes, read at one monotonic instant.

    Or some of them at instants of their own: ``taken`` holds the instant of
    each process read apart (taken already by the scan: in the table pass,
    with its owner), ``at`` is the latest instant of the reading.
    """

    at: float
    seconds: dict[ProcIdentity, float | Unknown] = attrs.field(eq=False, hash=False)
    taken: dict[ProcIdentity, float] = attrs.field(factory=dict, eq=False, hash=False)

    def instant(self, process: ProcIdentity) -> float:
        """When ``process`` was read."""
        return self.taken.get(process, self.at)


def _taken_already(
    processes: Iterable[ProcIdentity], found: Callable[[ProcIdentity], Reading | None]
) -> tuple[list[ProcIdentity], dict[ProcIdentity, float], dict[ProcIdentity, float | Unknown]]:
    """The processes still to read, and the instant and seconds of those ``found`` has."""
    rest: list[ProcIdentity] = []
    taken: dict[ProcIdentity, float] = {}
    known: dict[ProcIdentity, float | Unknown] = {}
    for process in processes:
        reading = found(process)
        if reading is None:
            rest.append(process)
        else:
            taken[process], known[process] = reading
    return rest, taken, known


def read_cpu(
    source: ProcessSource,
    runs: Iterable[Run],
    clock: Callable[[], float] = time.monotonic,
    *,
    earlier: Callable[[ProcIdentity], Reading | None] | None = None,
) -> CpuReading:
    """One reading of the CPU time of every process of ``runs``.

    ``earlier`` gives, for a process read already on the same clock, when
    and what (:meth:`~runctx.sources.ProcessSource.cpu_read_in_table`): it
    is not read again. Only the others are read now.
    """
    processes = [process for run in runs for process in run.processes]
    rest, taken, known = _taken_already(processes, earlier or (lambda _process: None))
    at = clock() if rest or not taken else max(taken.values())
    seconds = source.cpu_times(rest) if rest else {}
    seconds.update(known)
    return CpuReading(at=at, seconds=seconds, taken=taken)


def second_reading(  # noqa: PLR0913 - the clock, the sleep and the readings taken are each apart
    source: ProcessSource,
    first: CpuReading,
    window: float,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    later: Callable[[ProcIdentity], Reading | None] | None = None,
) -> CpuReading:
    """The second reading of the same processes, ``window`` seconds after the first at least.

    ``later`` gives a reading of a process taken already (with its owner,
    :meth:`~runctx.sources.ProcessSource.cpu_read_with_owner`): it serves
    when it was taken ``window`` after that process's first reading or more.
    The others are read once ``window`` has passed since the last of their
    first readings; only that remainder is slept.
    """

    def late_enough(process: ProcIdentity) -> Reading | None:
        found = later(process) if later is not None else None
        if found is None or found[0] - first.instant(process) < window:
            return None
        return found

    rest, taken, known = _taken_already(first.seconds, late_enough)
    if rest:
        remaining = window - (clock() - max(first.instant(process) for process in rest))
        if remaining > 0:
            sleep(remaining)
        at = clock()
        seconds = source.cpu_times(rest)
    else:
        at = max(taken.values()) if taken else clock()
        seconds = {}
    seconds.update(known)
    return CpuReading(at=at, seconds=seconds, taken=taken)


def cpu_now(run: Run, first: CpuReading, second: CpuReading) -> float | Unknown:
    """The CPUs ``run`` kept busy between the readings; unknown if no process was read twice.

    Each process's use over its own window (between its two readings), summed.
    """
    busy = 0.0
    counted = 0
    for process in run.processes:
        before = first.seconds.get(process)
        after = second.seconds.get(process)
        if isinstance(before, float) and isinstance(after, float):
            elapsed = second.instant(process) - first.instant(process)
            if elapsed <= 0:
                return Unknown(Reason.UNPARSABLE, "no time passed between the two readings")
            busy += max(0.0, after - before) / elapsed
            counted += 1
    if not counted:
        return Unknown(Reason.GONE, "no process of the run was read twice")
    return busy
