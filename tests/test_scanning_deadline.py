"""A scan's deadline covers all of it: what was not judged by then is counted, not done late.

Many real runner processes are started (one small ``sleep`` each, titled
``pytest``); a scan is cut at a point the test chooses by moving the scan's
clock past its deadline from inside the real procfs source, and what the
scan did after that point is counted. No time is measured: the outcome is
what was read, what was judged, and what the report says it could not read.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from proctools import PYTHON, VIEWER_UID, group_members, make_checkout, wait_for
from runfactory import clean_env

from runctx import scanning
from runctx.cpu_window import DEFAULT_WINDOW_SECONDS
from runctx.report import CUT_NOTE, was_cut
from runctx.sources.procfs import ProcfsSource
from runctx.started_by import WANTED
from runctx.unknown import NOT_READ

RUNCTX = [sys.executable, "-m", "runctx"]
RUNNERS = 40
CUT_COUNTS = (
    r"(\d+) process(?:es)? (?:was|were) not read at all",
    r"the command lines of (\d+) process",
    r"(\d+) runs? (?:was|were) found but not judged",
)
"""What a cut note counts as left out: processes, command lines, runs."""

STORM = r"""
import os, sys, time
program, count, ready = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for index in range(count):
    if os.fork() == 0:
        os.execv(program, ["pytest", str(3600 + index)])
open(ready, "w").close()
while True:
    time.sleep(3600)
"""
"""A leader that is no runner, and ``count`` children titled ``pytest``: each a run of its own."""


def _storm(runs, checkout: Path, count: int) -> set[int]:
    """``count`` live runner processes in ``checkout``, orphaned in one group; their pids."""
    sleep = shutil.which("sleep")
    assert sleep, "the storm needs sleep(1)"
    program = checkout / "pytest"
    program.symlink_to(sleep)  # so that each one's comm, as its argv, says pytest
    ready = checkout / "storm-ready"
    leader = runs.orphan(
        [PYTHON, "-c", STORM, str(program), str(count), str(ready)],
        checkout,
        env=clean_env(),
        ready=ready,
    )

    def runners() -> set[int]:  # a child counts once it has exec'd the runner, not while forked
        return {pid for pid in group_members(leader.pid) - {leader.pid} if _comm(pid) == "pytest"}

    wait_for(lambda: len(runners()) == count, what=f"{count} runner processes")
    return runners()


def _comm(pid: int) -> str:
    """The process's name (``/proc/PID/comm``); empty once it is gone."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


class _ClockJump:
    """The scan's clock, which jumps an hour ahead once the source read ``after`` owners."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def monotonic(self) -> float:
        return time.monotonic() + self.ahead

    def __getattr__(self, name: str) -> object:
        return getattr(time, name)


def _each_runner_shown_or_counted(report, started: set[int]) -> str:
    """The report's note of its cut, once each runner started is shown or counted in it."""
    (note,) = [n for n in report.visibility.notes if n.startswith(CUT_NOTE)]
    unjudged = re.search(r"(\d+) runs were found but not judged", note)
    assert unjudged, note
    shown = {judged.run.pid for judged in report.runs} & started
    assert len(shown) + int(unjudged.group(1)) >= RUNNERS, note
    return note


class _OwnersMoveTheClock(ProcfsSource):
    """The real ``/proc``; each run's owner read moves the scan's clock on.

    ``step`` seconds each, and an hour (past any deadline) at the ``after``-th.
    """

    def __init__(self, clock: _ClockJump, *, after: int = 0, step: float = 0.0) -> None:
        super().__init__()
        self.clock = clock
        self.after = after
        self.step = step
        self.owners_read = 0

    def with_owner(self, record, viewer_uid=None, *, inherited=False, climb=None):
        self.owners_read += 1
        self.clock.ahead += 3600.0 if self.owners_read == self.after else self.step
        return super().with_owner(record, viewer_uid, inherited=inherited, climb=climb)


def test_runs_found_before_the_deadline_are_counted_not_judged_after_it(
    shared_tmp, runs, monkeypatch
):
    """The deadline passes while the third run's owner is read: no run after it is read.

    Three runs are judged, with nothing optional read for any (no
    environment, no starter, no CPU use now); every other run found is
    counted in the report's note as found but not judged, so each runner
    started is either shown or counted.
    """
    checkout = make_checkout(shared_tmp, "proj")
    started = _storm(runs, checkout, RUNNERS)
    clock = _ClockJump()
    monkeypatch.setattr(scanning, "time", clock)
    source = _OwnersMoveTheClock(clock, after=3)
    report = scanning.scan(
        scanning.viewpoint(cwd=str(checkout)),
        source=source,
        cpu_window=DEFAULT_WINDOW_SECONDS,
        deadline=clock.monotonic() + 600,
    )
    assert source.owners_read == 3
    assert len(report.runs) == 3
    assert was_cut(report)
    note = _each_runner_shown_or_counted(report, started)
    assert "no environment, starter or CPU use now was read" in note
    for judged in report.runs:
        assert judged.run.environment == NOT_READ
        assert judged.run.started_by == NOT_READ
        assert judged.run.cpu_now == NOT_READ
    assert report.cpu_window == NOT_READ


def test_the_judging_keeps_back_as_long_again_for_the_report_of_what_it_judged(
    shared_tmp, runs, monkeypatch
):
    """Judging stops once it has taken as long as is left: the report is written in time.

    Each owner read takes 10 s of the scan's clock, and the deadline is
    100 s away: after 5 runs judged (50 s), the 50 s left are kept for
    what follows, at the pace judging went; the other runs found are
    counted as found but not judged, so each runner started is either shown
    or counted. Judging up to the deadline itself read 10 owners.
    """
    checkout = make_checkout(shared_tmp, "proj")
    started = _storm(runs, checkout, RUNNERS)
    clock = _ClockJump()
    monkeypatch.setattr(scanning, "time", clock)
    source = _OwnersMoveTheClock(clock, step=10.0)
    report = scanning.scan(
        scanning.viewpoint(cwd=str(checkout)), source=source, deadline=clock.monotonic() + 100
    )
    assert source.owners_read == 5
    assert len(report.runs) == 5
    assert was_cut(report)
    _each_runner_shown_or_counted(report, started)


def test_an_uncut_scan_of_the_same_storm_judges_every_run_with_its_optional_facts(shared_tmp, runs):
    """The same storm without a deadline: every runner is a run, read whole."""
    checkout = make_checkout(shared_tmp, "proj")
    started = _storm(runs, checkout, RUNNERS)
    report = scanning.scan(scanning.viewpoint(cwd=str(checkout)), cpu_window=DEFAULT_WINDOW_SECONDS)
    assert not was_cut(report)
    ours = [judged.run for judged in report.runs if judged.run.pid in started]
    assert len(ours) == RUNNERS
    assert all(NOT_READ not in (run.started_by, run.cpu_now) for run in ours)


@pytest.mark.parametrize("fmt", ["--json", "text"])
def test_status_cut_by_a_tiny_timeout_says_what_it_did_not_read_and_exits_0(shared_tmp, runs, fmt):
    """``status --timeout`` far shorter than the scan: exit 0, and every runner shown or counted.

    What was cut is said in numbers (processes not read, command lines not
    read, runs not judged), so that the runs the report leaves out are
    accounted for: a cut report is never a quiet box.
    """
    checkout = make_checkout(shared_tmp, "proj")
    started = _storm(runs, checkout, RUNNERS)
    args = [*RUNCTX, "status", "--timeout", "0.001"]
    if fmt == "--json":
        args.append("--json")
    done = subprocess.run(
        args, cwd=checkout, capture_output=True, text=True, check=False, env=clean_env()
    )
    assert done.returncode == 0, done.stderr
    if fmt == "--json":
        report = json.loads(done.stdout)
        notes = report["visibility"]["notes"]
        shown = {entry["pid"] for entry in report["runs"]} & started
    else:
        notes = [line for line in done.stdout.splitlines() if CUT_NOTE in line]
        shown = {pid for pid in started if re.search(rf"\b{pid}\b", done.stdout)}
    (note,) = [n for n in notes if CUT_NOTE in n]
    counted = sum(int(number) for pattern in CUT_COUNTS for number in re.findall(pattern, note))
    assert counted, note
    assert len(shown) + counted >= RUNNERS, note


class _StartersThenDeadline(ProcfsSource):
    """The real ``/proc``; the deadline passes while the ``after``-th run's starter is read."""

    def __init__(self, clock: _ClockJump, after: int) -> None:
        super().__init__()
        self.clock = clock
        self.after = after
        self.starters_read = 0

    def inherited(self, process, wanted, *, skip_environ=None):
        if wanted == WANTED:
            self.starters_read += 1
            if self.starters_read == self.after:
                self.clock.ahead = 3600.0
        return super().inherited(process, wanted, skip_environ=skip_environ)


def test_optional_facts_past_the_deadline_are_dropped_and_counted(shared_tmp, runs, monkeypatch):
    """The deadline passes while the fifth run's starter is read: every run is judged.

    Four runs have who started them; the others keep it not read, and the
    note counts them; no CPU use now is read for any.
    """
    checkout = make_checkout(shared_tmp, "proj")
    started = _storm(runs, checkout, RUNNERS)
    clock = _ClockJump()
    monkeypatch.setattr(scanning, "time", clock)
    source = _StartersThenDeadline(clock, after=5)
    report = scanning.scan(
        scanning.viewpoint(cwd=str(checkout)),
        source=source,
        cpu_window=DEFAULT_WINDOW_SECONDS,
        deadline=clock.monotonic() + 600,
    )
    assert source.starters_read == 5
    assert {judged.run.pid for judged in report.runs} >= started
    starters = [judged.run.started_by for judged in report.runs]
    assert sum(started_by != NOT_READ for started_by in starters) == 5
    (note,) = [n for n in report.visibility.notes if n.startswith(CUT_NOTE)]
    assert f"the environment and starter of {len(report.runs) - 5} runs were not read" in note
    assert "no CPU use now was read" in note
    assert all(judged.run.cpu_now == NOT_READ for judged in report.runs)


@pytest.mark.needs_root
def test_against_a_deadline_the_viewers_runs_are_judged_before_other_users(
    shared_tmp, runs, monkeypatch
):
    """Only one run's owner is read before the deadline: it is the viewer's, not an older one.

    The other runs (the storm, started first, so with the lower pids, and
    whatever else runs on the box) are another user's as the pass saw them:
    they wait, and are the ones counted as not judged.
    """
    checkout = make_checkout(shared_tmp, "proj")
    checkout.chmod(0o777)
    _storm(runs, make_checkout(shared_tmp, "other"), RUNNERS)
    mine = runs.run_tests_script(checkout, uid=VIEWER_UID)
    clock = _ClockJump()
    monkeypatch.setattr(scanning, "time", clock)
    source = _OwnersMoveTheClock(clock, after=1)
    report = scanning.scan(
        scanning.viewpoint(cwd=str(checkout), uid=VIEWER_UID),
        source=source,
        deadline=clock.monotonic() + 600,
    )
    assert [judged.run.pid for judged in report.runs] == [mine.pid]
    assert report.ours_known[0].run.pid == mine.pid
    (note,) = [n for n in report.visibility.notes if n.startswith(CUT_NOTE)]
    unjudged = re.search(r"(\d+) runs were found but not judged", note)
    assert unjudged, note
    assert int(unjudged.group(1)) >= RUNNERS
