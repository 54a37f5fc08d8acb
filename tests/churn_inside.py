"""Scan in a loop while short-lived processes come and go as fast as they can, pids wrapping.

Run by ``tests/test_sources_procfs.py`` as the first process of a fresh pid
namespace (``unshare --pid --fork --mount-proc``), so that it may set where
the next pid is allocated (``ns_last_pid``) and make pids wrap without
touching the rest of the machine. Two churners fork short-lived processes
without pause (hundreds a second on an idle box, fewer on a loaded one: no
rate is promised or checked); one of them moves the next pid to the end of
the range every :data:`WRAP_EVERY` forks, so that pids wrap. The scanner scans
until it has done at least :data:`MIN_SCANS` scans, seen a run, and the
churners have made :data:`MIN_FORKS` processes and :data:`MIN_WRAPS` wraps:
counts, never a clock, end it (at most :data:`MAX_SCANS` scans, so that a
broken churner ends it too, with the counts that fell short). It prints one
JSON object with the counts and every violation found:

- a scan that raised;
- a pid in two runs of one report (as authority or member);
- a dead process in a run: a member, or a run's authority, that was a zombie
  both just before and just after the scan (so it was dead throughout).

Zombies are found with psutil, the suite's oracle, never with runctx's readers.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import mmap
import os
import shutil
import signal
import struct
import sys
import traceback
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from proctools import start_ticks

BASH = shutil.which("bash") or "/bin/bash"
RUNNER = "pytest"
"""The argv[0] the churner's runs carry, so that they are detected as pytest runs."""
MIN_SCANS = 20
MIN_FORKS = 2000
MIN_WRAPS = 5
WRAP_EVERY = 200
MAX_SCANS = 20_000

_SLOTS = struct.Struct("4q")
"""The shared counters: stop flag, forks of the run churner, its wraps, forks of the other."""
_STOP, _RUN_FORKS, _WRAPS, _PLAIN_FORKS = range(4)


class Counters:
    """Counters in memory shared across ``fork``; each slot is written by one process only."""

    def __init__(self) -> None:
        """Map the shared page."""
        self.memory = mmap.mmap(-1, _SLOTS.size)

    def get(self, slot: int) -> int:
        """The value in ``slot`` now."""
        return _SLOTS.unpack_from(self.memory)[slot]

    def set(self, slot: int, value: int) -> None:
        """Write ``value`` to ``slot`` (only its one writer does)."""
        struct.pack_into("q", self.memory, slot * 8, value)


def _zombies() -> set[tuple[int, int]]:
    """The (pid, start in clock ticks) of every zombie now, from psutil."""
    found = set()
    for pid in psutil.pids():
        with contextlib.suppress(psutil.Error, OSError):
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                found.add((pid, start_ticks(pid)))
    return found


def _wrap(pid_max: int) -> int:
    """Make the next pids the last ones before ``pid_max``, so that they wrap soon (1 if done)."""
    try:
        with open("/proc/sys/kernel/ns_last_pid", "w") as stream:
            stream.write(str(pid_max - 40))
    except OSError:
        return 0
    return 1


def _reap(pending: list[int]) -> None:
    for pid in pending:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    pending.clear()


def churn(counters: Counters, *, runs: bool) -> None:
    """Fork short-lived processes until told to stop, counting forks (and wraps, with ``runs``).

    With ``runs``, every other child becomes a short test run (one of them
    with a member that dies first and stays a zombie under it); the others,
    and all children without ``runs``, live for a moment and are reaped late.
    """
    with open("/proc/sys/kernel/pid_max") as stream:
        pid_max = int(stream.read())
    forks = wraps = 0
    pending: list[int] = []
    while not counters.get(_STOP):
        if runs and forks % WRAP_EVERY == 0:
            wraps += _wrap(pid_max)
            counters.set(_WRAPS, wraps)
        kind = forks % 4 if runs else 3
        child = os.fork()
        if child == 0:  # pragma: no cover - the child
            try:
                if kind == 0:  # a run of one process
                    os.execv("/bin/sleep", [RUNNER, "0.02"])
                elif kind == 1:  # a run whose member dies first and stays a zombie under it
                    script = f"sleep 0.01 & exec -a {RUNNER} sleep 0.05"
                    os.execv(BASH, [RUNNER, "-c", script])
            finally:
                os._exit(0)  # kinds 2 and 3: a process that lives for a moment
        forks += 1
        counters.set(_RUN_FORKS if runs else _PLAIN_FORKS, forks)
        pending.append(child)
        if len(pending) >= 32:  # reap late, so that zombies stay around for a while
            _reap(pending)
    _reap(pending)


def check(report, before: set, after: set) -> list[str]:
    """The violations in one report."""
    problems = []
    seen: dict[int, int] = {}
    dead = before & after
    for judged in report.runs:
        run = judged.run
        for pid in run.members:
            if pid in seen:
                problems.append(f"pid {pid} in runs {seen[pid]} and {run.pid}")
            seen[pid] = run.pid
        problems.extend(
            f"dead pid {identity.pid} in run {run.pid}"
            for identity in run.processes
            if (identity.pid, identity.start) in dead
        )
    return problems


def reap_orphans() -> None:
    """Reap what init (this process) inherits, but not the churners (waited for apart)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def enough(counters: Counters, scans: int, runs: int) -> bool:
    """Whether the scans have seen all the churn they are meant to see."""
    forks = counters.get(_RUN_FORKS) + counters.get(_PLAIN_FORKS)
    return (
        scans >= MIN_SCANS and runs > 0 and forks >= MIN_FORKS and counters.get(_WRAPS) >= MIN_WRAPS
    )


def main() -> int:
    """Churn and scan; print the summary."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--cwd", required=True)
    args = parser.parse_args()
    os.chdir(args.cwd)
    from runctx.scanning import scan, viewpoint
    from runctx.sources.procfs import ProcfsSource

    counters = Counters()
    churners = []
    for runs in (True, False):
        churner = os.fork()
        if churner == 0:  # pragma: no cover - a churner
            try:
                churn(counters, runs=runs)
            finally:
                os._exit(0)
        churners.append(churner)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    here = viewpoint(cwd=args.cwd)
    source = ProcfsSource()
    attempts = scans = runs_seen = 0
    problems: list[str] = []
    while not enough(counters, scans, runs_seen) and attempts < MAX_SCANS:
        attempts += 1
        before = _zombies()
        try:
            report = scan(here, source=source, self_pid=os.getpid())
        except Exception:  # noqa: BLE001 - every exception is the finding
            problems.append(traceback.format_exc())
            continue
        after = _zombies()
        scans += 1
        runs_seen += len(report.runs)
        problems.extend(check(report, before, after))
    counters.set(_STOP, 1)
    for churner in churners:
        os.waitpid(churner, 0)
    reap_orphans()
    summary = {
        "complete": enough(counters, scans, runs_seen),
        "scans": scans,
        "runs_seen": runs_seen,
        "forks": counters.get(_RUN_FORKS) + counters.get(_PLAIN_FORKS),
        "wraps": counters.get(_WRAPS),
        "problems": problems[:20],
        "problem_count": len(problems),
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
