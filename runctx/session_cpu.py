"""How many CPUs processes outside a session kept busy: the box's CPU time less the session's.

A test session that saturates the box by itself (``pytest -n auto``) raises
the box's CPU pressure and load average; neither says whose the load is, and
both are averages that stay high for seconds after the load ends. During a
session the plugin therefore judges the box by what it can tell is someone
else's: the CPU time the whole box spent over a window (``/proc/stat``)
less what the session's own processes spent over the same window (their
``/proc/PID/stat``, with the children they reaped), divided by the window.
The window runs from a mark taken when the session starts (:func:`mark`) to
each later sample (:func:`others_since`): the session never sleeps to
measure it.
The session's processes are its run's members and every process below them
at either end of the window (``/proc/PID/task/TID/children``), so that a
child a test starts during the window counts as the session's; one started
during it counts with all its CPU time, all of it spent since.

Linux only; elsewhere (and where ``/proc/stat`` cannot be read) the answer is
None, and the box's figures are taken only before the session's workers start.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable

import attrs

from runctx.record_base import Record

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_BUSY_FIELDS = (0, 1, 2, 5, 6, 7)
"""user, nice, system, irq, softirq, steal of the ``cpu`` line (guest time is within user)."""
MAX_STAT_BYTES = 4096
MAX_DESCENDANTS = 4096
"""The most processes below a session's own that are followed (a fork bomb is not walked)."""


def box_cpu_seconds(proc: str = "/proc") -> float | None:
    """The CPU seconds the whole box has spent busy since boot; None where it cannot be read."""
    try:
        with open(os.path.join(proc, "stat"), "rb") as stat:
            first = stat.readline(MAX_STAT_BYTES)
    except OSError:
        return None
    fields = first.split()
    if not fields or fields[0] != b"cpu":
        return None
    try:
        values = [int(field) for field in fields[1:]]
    except ValueError:
        return None
    return sum(values[i] for i in _BUSY_FIELDS if i < len(values)) / _TICKS


def process_cpu_seconds(pid: int, proc: str = "/proc") -> float:
    """The CPU seconds ``pid`` spent, with the children it reaped (0 for a process gone)."""
    try:
        with open(os.path.join(proc, str(pid), "stat"), "rb") as stat:
            data = stat.read(MAX_STAT_BYTES)
    except OSError:
        return 0.0
    # The fields after the command's closing parenthesis: state is the first (field 3).
    fields = data[data.rfind(b")") + 2 :].split()
    try:
        return sum(int(fields[i]) for i in (11, 12, 13, 14)) / _TICKS
    except (IndexError, ValueError):
        return 0.0


def tree_cpu_seconds(pids: Iterable[int], proc: str = "/proc") -> float:
    """The CPU seconds the processes ``pids`` spent, with the children they reaped."""
    return sum(process_cpu_seconds(pid, proc) for pid in pids)


def children_of(pid: int, proc: str = "/proc") -> list[int]:
    """The live children of ``pid`` (of each of its threads); none where they cannot be read."""
    found: list[int] = []
    task = os.path.join(proc, str(pid), "task")
    try:
        threads = os.listdir(task)
    except OSError:
        return found
    for thread in threads:
        try:
            with open(os.path.join(task, thread, "children"), "rb") as children:
                data = children.read(MAX_STAT_BYTES * 16)
        except OSError:
            continue
        found.extend(int(word) for word in data.split() if word.isdigit())
    return found


def with_descendants(pids: Iterable[int], proc: str = "/proc") -> set[int]:
    """``pids`` and every live process below them (at most :data:`MAX_DESCENDANTS` more)."""
    seen = set(pids)
    todo = list(seen)
    limit = len(seen) + MAX_DESCENDANTS
    while todo and len(seen) < limit:
        for child in children_of(todo.pop(), proc):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


@attrs.frozen(repr=False, eq=False)
class CpuMark(Record):
    """The box's and a session's CPU seconds at one moment: where a window starts.

    A window runs from one sample to the next. Over it, a process of the
    session that ends unreaped by another of the session's processes (a
    daemon) takes its CPU time out of the session's, and a pid reused by
    another process in between is counted as the session's: both only ever
    change the summary's note about others' CPU use, never a decision.
    """

    at: float
    """When the readings were taken (``time.monotonic``)."""
    box: float
    own: float
    pids: frozenset[int]
    """The session's processes then: ``roots`` and every process below them."""
    roots: tuple[int, ...]


def mark(own: Iterable[int], proc: str = "/proc") -> CpuMark | None:
    """Start a window now for the session whose processes are ``own``; None where it cannot."""
    roots = tuple(own)
    box = box_cpu_seconds(proc)
    if box is None:
        return None
    pids = with_descendants(roots, proc)
    return CpuMark(time.monotonic(), box, tree_cpu_seconds(pids, proc), frozenset(pids), roots)


MIN_WINDOW_SECONDS = 0.1
"""A shorter window says nothing: the kernel counts CPU time in ticks of 10 ms."""


def others_since(
    start: CpuMark, own: Iterable[int] = (), proc: str = "/proc"
) -> tuple[float, float] | None:
    """(CPUs others kept busy, CPUs the session kept busy) since ``start``, without waiting.

    ``own`` are the session's processes now (its run's members), next to
    those of ``start``; the processes below either, at the start of the
    window and at its end, are the session's too. None where the box's CPU
    time cannot be read, or the window is shorter than
    :data:`MIN_WINDOW_SECONDS`.
    """
    if time.monotonic() - start.at < MIN_WINDOW_SECONDS:
        return None
    box_after = box_cpu_seconds(proc)
    roots = {*start.roots, *own}
    # A process started during the window had spent nothing before it: all its time counts.
    own_after = tree_cpu_seconds(start.pids | with_descendants(roots, proc), proc)
    elapsed = time.monotonic() - start.at
    if box_after is None:
        return None
    mine = max(0.0, own_after - start.own) / elapsed
    box = max(0.0, box_after - start.box) / elapsed
    return max(0.0, box - mine), mine
