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
A full scan reads each run's authority once with its owner
(:meth:`~runctx.sources.ProcessSource.cpu_read_with_owner`): that reading,
with its own instant, is the authority's first, so it is not read again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import attrs

from runctx.records import ProcIdentity
from runctx.report import Run
from runctx.sources import ProcessSource
from runctx.unknown import Reason, Unknown

DEFAULT_WINDOW_SECONDS = 0.1
"""The window every face samples over: long enough for a busy process to show
(10 ticks of a CPU), short enough for a hook's answer."""


@attrs.frozen
class CpuReading:
    """The CPU seconds of some processes, read at one monotonic instant.

    Or some of them earlier: ``taken`` holds the instant of each process read
    before ``at`` (a full scan reads a run's authority with its owner).
    """

    at: float
    seconds: dict[ProcIdentity, float | Unknown] = attrs.field(eq=False, hash=False)
    taken: dict[ProcIdentity, float] = attrs.field(factory=dict, eq=False, hash=False)


def read_cpu(
    source: ProcessSource,
    runs: Iterable[Run],
    clock: Callable[[], float] = time.monotonic,
    *,
    earlier: Callable[[ProcIdentity], tuple[float, float] | None] | None = None,
) -> CpuReading:
    """One reading of the CPU time of every process of ``runs``.

    ``earlier`` gives, for a process read already on the same clock, when
    and what (:meth:`~runctx.sources.ProcessSource.cpu_read_with_owner`):
    it is not read again. Only the others are read now.
    """
    processes = [process for run in runs for process in run.processes]
    taken: dict[ProcIdentity, float] = {}
    known: dict[ProcIdentity, float | Unknown] = {}
    rest = processes
    if earlier is not None:
        rest = []
        for process in processes:
            found = earlier(process)
            if found is None:
                rest.append(process)
            else:
                taken[process], known[process] = found
    at = clock() if rest or not taken else max(taken.values())
    seconds = source.cpu_times(rest) if rest else {}
    seconds.update(known)
    return CpuReading(at=at, seconds=seconds, taken=taken)


def second_reading(
    source: ProcessSource,
    first: CpuReading,
    window: float,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> CpuReading:
    """The second reading of the same processes, ``window`` seconds after the first at least."""
    remaining = window - (clock() - first.at)
    if remaining > 0:
        sleep(remaining)
    at = clock()
    return CpuReading(at=at, seconds=source.cpu_times(first.seconds))


def cpu_now(run: Run, first: CpuReading, second: CpuReading) -> float | Unknown:
    """The CPUs ``run`` kept busy between the readings; unknown if no process was read twice.

    Each process's use over its own window (from when it was first read), summed.
    """
    if second.at - first.at <= 0:
        return Unknown(Reason.UNPARSABLE, "no time passed between the two readings")
    busy = 0.0
    counted = 0
    for process in run.processes:
        before = first.seconds.get(process)
        after = second.seconds.get(process)
        if isinstance(before, float) and isinstance(after, float):
            busy += max(0.0, after - before) / (second.at - first.taken.get(process, first.at))
            counted += 1
    if not counted:
        return Unknown(Reason.GONE, "no process of the run was read twice")
    return busy
