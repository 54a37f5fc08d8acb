"""Busy now, not just present: a run's CPU use against busy-run-cpu, the box against its thresholds.

The box's facts are given as values (a ``Load`` is what a source read); a
run's CPU use now is set on a run a real scan found. The measuring itself is
in ``tests/test_cpu_window.py`` and ``tests/test_scanning.py``; the notes it
decides in ``tests/test_present_words.py`` and ``tests/test_hooks_main.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import attrs
import pytest
from nstools import require_tools
from proctools import make_checkout

from runctx.busy import box_pressure, busy_now, ended_in_window, idle_now, split_by_cpu
from runctx.cpu_window import cpu_now, read_cpu, second_reading
from runctx.scanning import scan, viewpoint
from runctx.settings import BusyRules
from runctx.sources.load import Load, MemInfo, Pressure
from runctx.sources.procfs import ProcfsSource
from runctx.unknown import Reason, Unknown


def load_of(*, psi: float, per_cpu: float, available: float) -> Load:
    """A Load with the given CPU pressure, load per CPU (over 2 CPUs) and percent available."""
    return Load(
        usable_cpus=2,
        load_average=(per_cpu * 2, 0.0, 0.0),
        cpu_pressure=Pressure(avg10=psi, avg60=0.0, avg300=0.0),
        memory=MemInfo(total_bytes=1000, available_bytes=int(available * 10)),
    )


def test_each_threshold_makes_the_box_busy_and_false_turns_one_off():
    """CPU pressure, load per CPU and memory each cross on their own; None ignores one."""
    rules = BusyRules(cpu_pressure=40, load_per_cpu=1.5, memory_available=10)
    assert not box_pressure(load_of(psi=10, per_cpu=0.5, available=50), rules).busy
    assert box_pressure(load_of(psi=41, per_cpu=0.5, available=50), rules).reasons == (
        "CPU pressure 41% >= 40%",
    )
    assert box_pressure(load_of(psi=0, per_cpu=2, available=50), rules).reasons == (
        "load 2.00 per CPU >= 1.5",
    )
    assert box_pressure(load_of(psi=0, per_cpu=0, available=5), rules).reasons == (
        "memory available 5% < 10%",
    )
    off = BusyRules(cpu_pressure=None, load_per_cpu=None, memory_available=None)
    assert not box_pressure(load_of(psi=100, per_cpu=9, available=0), off).busy


def test_an_unknown_fact_adds_no_pressure():
    """Without PSI (or memory), only the facts that are known can make the box busy."""
    load = Load(
        usable_cpus=2,
        load_average=(0.1, 0.1, 0.1),
        cpu_pressure=Unknown(Reason.ABSENT),
        memory=Unknown(Reason.ABSENT),
    )
    pressure = box_pressure(load, BusyRules(cpu_pressure=0, memory_available=100))
    assert not pressure.busy
    assert not pressure.known_calm  # an unread figure is never summed into "not busy"
    assert [fact.split(" (")[0] for fact in pressure.unknown] == ["CPU pressure", "memory"]
    known = load_of(psi=10, per_cpu=0.5, available=50)
    assert box_pressure(known, BusyRules(cpu_pressure=40, memory_available=10)).known_calm


@pytest.mark.needs_root
def test_a_proc_mounted_subset_pid_says_busy_unknown_on_every_face(tmp_path):
    """/proc mounted ``subset=pid``: load, pressure, memory unread; no face says "not busy"."""
    tools = require_tools("unshare", "mount")
    project = make_checkout(tmp_path, "proj")
    runctx = [sys.executable, "-m", "runctx", "status"]
    script = 'mount -t proc -o subset=pid proc /proc && exec "$@"'
    faces = {}
    for face in ([], ["--json"], ["--format", "openmetrics"]):
        done = subprocess.run(
            [
                tools["unshare"],
                "--mount",
                "--pid",
                "--fork",
                "sh",
                "-c",
                script,
                "sh",
                *runctx,
                *face,
            ],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        faces[" ".join(face) or "text"] = done.stdout
    assert "Busy now: no" not in faces["text"]
    assert "Busy now: unknown" in faces["text"]
    box = json.loads(faces["--json"])["box"]
    assert box["busy"] is None
    assert {fact.split(" (")[0] for fact in box["unknown"]} == {"CPU pressure", "load", "memory"}
    samples = [line for line in faces["--format openmetrics"].splitlines() if line[:1] != "#"]
    assert not [line for line in samples if line.startswith("runctx_box_busy")]


def test_busy_now_is_a_threshold_and_unmeasured_counts_as_busy(shared_tmp, runs):
    """At or over busy-run-cpu is busy; under is idle; not measured is busy; ended is not."""
    run = runs.run_tests_script(make_checkout(shared_tmp))
    judged = next(j for j in scan(viewpoint(cwd=str(shared_tmp))).runs if j.run.pid == run.pid)
    rules = BusyRules(run_cpu=0.5)
    measured = [
        attrs.evolve(judged, run=attrs.evolve(judged.run, cpu_now=cpu)) for cpu in (0.5, 0.49)
    ]
    assert [busy_now(j.run, rules) for j in measured] == [True, False]
    assert idle_now(measured[1].run, rules)
    assert busy_now(judged.run, rules)  # never measured: the visible answer
    ended = attrs.evolve(judged.run, cpu_now=Unknown(Reason.GONE))
    assert not busy_now(ended, rules)
    assert not idle_now(ended, rules)
    busy, idle = split_by_cpu(tuple(measured), rules)
    assert (busy, idle) == ((measured[0],), (measured[1],))


def test_a_run_that_ends_in_the_window_is_neither_busy_nor_idle(shared_tmp, runs):
    """Killed between the two CPU readings: not counted among the idle foreign runs either."""
    run = runs.run_tests_script(make_checkout(shared_tmp))
    judged = next(j for j in scan(viewpoint(cwd=str(shared_tmp))).runs if j.run.pid == run.pid)
    source = ProcfsSource()
    first = read_cpu(source, [judged.run])
    runs.kill(run)
    now = cpu_now(judged.run, first, second_reading(source, first, 0.0))
    ended = attrs.evolve(judged, run=attrs.evolve(judged.run, cpu_now=now))
    assert ended_in_window(ended.run)
    assert split_by_cpu((ended,), BusyRules()) == ((), ())


def test_the_busiest_runs_come_first_and_unmeasured_ones_before_them(shared_tmp, runs):
    """Busy runs are ordered by CPU use now, a run not measured first (it may be the busiest)."""
    run = runs.run_tests_script(make_checkout(shared_tmp))
    judged = next(j for j in scan(viewpoint(cwd=str(shared_tmp))).runs if j.run.pid == run.pid)
    with_cpu = [attrs.evolve(judged, run=attrs.evolve(judged.run, cpu_now=c)) for c in (1.0, 3.0)]
    busy, idle = split_by_cpu((*with_cpu, judged), BusyRules(run_cpu=0.5))
    assert busy == (judged, with_cpu[1], with_cpu[0])
    assert idle == ()
