"""A run's CPU use now: two readings of its processes' CPU time, a window apart, in one scan.

The readings are of real processes (a spinner, a sleeper, one that ends in
between). The window is asserted by its effect, never by a clock: the second
reading is taken once the window's remainder has been slept (the sleep is
recorded, not waited for), and a spinning run shows CPU use over it while a
sleeping one shows none (``tests/test_scanning.py``).
"""

from __future__ import annotations

import attrs
from proctools import make_checkout

from runctx.cpu_window import CpuReading, cpu_now, read_cpu, second_reading
from runctx.records import ProcIdentity
from runctx.scanning import scan, viewpoint
from runctx.sources.procfs import ProcfsSource
from runctx.unknown import Reason, Unknown


class Clock:
    """A clock that moves only when told to, and records what would have been slept."""

    def __init__(self, now: float) -> None:
        """Start at ``now``."""
        self.now = now
        self.slept: list[float] = []

    def __call__(self) -> float:
        """The time now."""
        return self.now

    def sleep(self, seconds: float) -> None:
        """Record the sleep and move the clock past it."""
        self.slept.append(seconds)
        self.now += seconds


def test_the_second_reading_waits_only_for_what_is_left_of_the_window(shared_tmp, runs):
    """Work done since the first reading counts towards the window; only the rest is slept."""
    run = runs.run_tests_script(make_checkout(shared_tmp))
    judged = next(j for j in scan(viewpoint(cwd=str(shared_tmp))).runs if j.run.pid == run.pid)
    source = ProcfsSource()
    clock = Clock(100.0)
    first = read_cpu(source, [judged.run], clock=clock)
    clock.now += 0.125  # what the scan did in between: reading owners, roots, the load
    second = second_reading(source, first, 0.5, clock=clock, sleep=clock.sleep)
    assert clock.slept == [0.375]
    assert second.at - first.at == 0.5
    clock.now += 1.0
    later = second_reading(source, first, 0.5, clock=clock, sleep=clock.sleep)
    assert clock.slept == [0.375]  # the window had passed: nothing more slept
    assert set(later.seconds) == set(first.seconds) == {judged.run.identity}


def test_cpu_now_is_the_cpu_time_used_over_the_wall_time_between_the_readings(shared_tmp, runs):
    """1.5 CPU seconds over 0.5 s is 3 CPUs; a process read only once is left out."""
    run = runs.run_tests_script(make_checkout(shared_tmp))
    judged = next(j for j in scan(viewpoint(cwd=str(shared_tmp))).runs if j.run.pid == run.pid)
    identity = judged.run.identity
    newcomer = ProcIdentity(identity.pid + 1, 1)
    first = CpuReading(at=10.0, seconds={identity: 2.0})
    second = CpuReading(at=10.5, seconds={identity: 3.5, newcomer: 9.0})
    assert cpu_now(judged.run, first, second) == 3.0
    same_instant = cpu_now(judged.run, first, CpuReading(at=10.0, seconds={identity: 3.5}))
    assert isinstance(same_instant, Unknown)


def test_cpu_now_leaves_out_processes_not_read_twice(shared_tmp, runs):
    """A run none of whose processes lived through the window is gone, not idle, not busy."""
    run = runs.run_tests_script(make_checkout(shared_tmp))
    judged = next(j for j in scan(viewpoint(cwd=str(shared_tmp))).runs if j.run.pid == run.pid)
    source = ProcfsSource()
    first = read_cpu(source, [judged.run])
    runs.kill(run)
    second = second_reading(source, first, 0.0)
    now = cpu_now(judged.run, first, second)
    assert isinstance(now, Unknown)
    assert now.reason is Reason.GONE


class _CountsCpuReadings(ProcfsSource):
    """The real /proc source, counting the CPU readings a window takes of each pid."""

    def __init__(self) -> None:
        super().__init__()
        self.cpu_reads: dict[int, int] = {}

    def _cpu_now(self, pid):
        self.cpu_reads[pid] = self.cpu_reads.get(pid, 0) + 1
        return super()._cpu_now(pid)


def test_a_full_scan_reads_no_process_again_for_its_first_reading(shared_tmp, runs):
    """The table's reading is the first, the owner's the second when a window apart: no re-read.

    A window of 0.05 s: the authority is read once more (the second reading)
    when the owner's reading followed the table's by less (a quiet box), never
    twice; with a window of 0, the reading taken with its owner serves, and
    nothing is read again.
    """
    run = runs.run_tests_script(make_checkout(shared_tmp))
    source = _CountsCpuReadings()
    report = scan(viewpoint(cwd=str(shared_tmp)), source=source, cpu_window=0.05)
    judged = next(j for j in report.runs if j.run.pid == run.pid)
    assert source.cpu_read_in_table(judged.run.identity) is not None
    assert source.cpu_read_with_owner(judged.run.identity) is not None
    assert source.cpu_reads.get(run.pid, 0) <= 1
    assert isinstance(judged.run.cpu_now, float)
    source = _CountsCpuReadings()
    report = scan(viewpoint(cwd=str(shared_tmp)), source=source, cpu_window=0.0)
    judged = next(j for j in report.runs if j.run.pid == run.pid)
    assert run.pid not in source.cpu_reads
    assert isinstance(judged.run.cpu_now, float)


def test_each_process_is_measured_over_its_own_window(shared_tmp, runs):
    """One read 1 s before the second reading, one 0.5 s before: each its own rate, summed."""
    run = runs.run_tests_script(make_checkout(shared_tmp))
    judged = next(j for j in scan(viewpoint(cwd=str(shared_tmp))).runs if j.run.pid == run.pid)
    early = judged.run.identity
    late = ProcIdentity(early.pid + 1, early.start)
    two = attrs.evolve(judged.run, processes=(early, late))
    first = CpuReading(at=10.5, seconds={early: 2.0, late: 1.0}, taken={early: 10.0})
    second = CpuReading(at=11.0, seconds={early: 3.0, late: 1.25})
    assert cpu_now(two, first, second) == 1.5  # 1.0 s over 1 s, 0.25 s over 0.5 s
