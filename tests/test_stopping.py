"""Stopping runs known to be ours: the pure plan, and signals sent by identity."""

from __future__ import annotations

import os
import shutil
import signal

import pytest
from pidreuse import wait_pid_free
from proctools import (
    OTHER_UID,
    PYTHON,
    VIEWER_UID,
    is_live,
    make_checkout,
    run_as,
    start_ticks,
    wait_for,
)
from runfactory import clean_env, ready_dir

from runctx.cli.check import EXIT_OURS, outcome_of
from runctx.records import ProcIdentity
from runctx.scanning import scan, viewpoint
from runctx.stopping import StopStatus, carry_out, plan_orphans, plan_stop, stop_orphans, stop_runs


def _stop_as_viewer(pid: int, checkout: str) -> tuple[str, tuple[str, ...]]:
    (result,) = stop_runs([pid], viewpoint(cwd=checkout), grace=0)
    return result.status.value, result.reasons


@pytest.mark.needs_root
def test_refuses_another_users_run_as_an_unprivileged_user(shared_tmp, runs):
    """A third uid, not root and not the owner, is refused too, and nothing is signalled."""
    checkout = make_checkout(shared_tmp)
    run = runs.run_tests_script(checkout, uid=OTHER_UID)
    status, reasons = run_as(VIEWER_UID, _stop_as_viewer, run.pid, str(checkout))
    assert status == "refused"
    assert f"uid {OTHER_UID} != {VIEWER_UID}" in reasons
    assert is_live(run.pid)


def _judge_check_and_stop(pid: int, checkout: str) -> tuple[str, int, str, tuple[str, ...]]:
    here = viewpoint(cwd=checkout)
    report = scan(here)
    judged = next(j for j in report.runs if j.run.pid == pid)
    (result,) = stop_runs([pid], here, grace=0)
    return judged.judgement.verdict.value, outcome_of(report), result.status.value, result.reasons


@pytest.mark.needs_root  # the run and its viewer are another uid: no other test sees it as ours
def test_refuses_a_run_whose_root_is_unknown_although_check_counts_it(shared_tmp, runs):
    """A run whose cwd was removed inside this checkout: check counts it as ours, stop refuses."""
    mine = make_checkout(shared_tmp / "a", "proj")
    doomed = mine / "gone" / "proj"
    doomed.mkdir(parents=True)
    run = runs.run_tests_script(doomed, uid=OTHER_UID)
    shutil.rmtree(mine / "gone")
    verdict, outcome, status, reasons = run_as(OTHER_UID, _judge_check_and_stop, run.pid, str(mine))
    assert verdict == "unknown"
    assert outcome == EXIT_OURS
    assert status == "refused"
    assert any(reason.startswith("root unknown: cwd deleted") for reason in reasons)
    assert any("identity is not fully known" in reason for reason in reasons)
    assert is_live(run.pid)


REAPING_PARENT = """
import pathlib, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
pathlib.Path(sys.argv[1]).write_text(str(child.pid))
child.wait()
time.sleep(300)
"""


@pytest.mark.needs_root
def test_a_reused_pid_is_never_signalled(shared_tmp, runs):
    """A member's pid reused by an innocent process after the scan is never signalled."""
    checkout = make_checkout(shared_tmp)
    (checkout / "run_tests.py").write_text(REAPING_PARENT)
    ready = ready_dir(checkout) / "child"
    run = runs.orphan([PYTHON, "run_tests.py", str(ready)], checkout, env=clean_env())
    wait_for(lambda: ready.exists() and ready.read_text(), what="the run's child to start")
    child = int(ready.read_text())
    report = scan(viewpoint(cwd=str(checkout)))
    (plan,) = plan_stop(report, [run.pid])
    assert plan.refusal is None
    assert [target.pid for target in plan.targets] == [run.pid, child]
    os.kill(child, signal.SIGKILL)
    wait_pid_free(child)
    innocent = runs.with_pid(child, ["/bin/sleep", "300"], checkout)
    result = carry_out(plan, grace=5)
    assert result.status is StopStatus.STOPPED
    assert result.signalled == ((run.pid, "SIGTERM"),)
    assert result.skipped == ((child, "pid reused by another process"),)
    assert is_live(innocent.pid)
    wait_for(lambda: not is_live(run.pid), what="the run to be gone")


def test_identities_come_from_the_scan(shared_tmp, runs):
    """The plan carries the (pid, start) each member had when the scan read it."""
    checkout = make_checkout(shared_tmp)
    run = runs.run_tests_script(checkout)
    report = scan(viewpoint(cwd=str(checkout)))
    (plan,) = plan_stop(report, [run.pid])
    assert plan.targets == (ProcIdentity(run.pid, start_ticks(run.pid)),)


# -- orphans --------------------------------------------------------------------------------


def test_the_orphans_plan_holds_this_checkouts_orphans_and_no_other_run(shared_tmp, runs):
    """Orphaned workers of this checkout are planned; its live run and a foreign orphan are not."""
    mine, lost_workers, foreign_workers, intact_members = runs.orphaned_workers(shared_tmp)
    plans = plan_orphans(scan(viewpoint(cwd=str(mine))))
    planned = {plan.pid for plan in plans if plan.refusal is None}
    assert lost_workers <= planned
    assert not planned & (foreign_workers | intact_members)


@pytest.mark.needs_root
def test_an_orphan_of_another_user_in_this_checkout_is_never_stopped(shared_tmp, runs):
    """As root, an orphaned worker of another user in this very checkout is left alone."""
    mine = make_checkout(shared_tmp, "proj")
    parent = runs.worker_parent(mine, uid=OTHER_UID)
    workers = parent.members() - {parent.pid}
    os.kill(parent.pid, signal.SIGKILL)
    wait_for(lambda: not is_live(parent.pid), what="the other user's runner to die")
    report = scan(viewpoint(cwd=str(mine)))
    assert workers <= {j.run.pid for j in report.runs if j.run.orphaned}
    assert stop_orphans(viewpoint(cwd=str(mine)), grace=0) == ()
    assert all(is_live(pid) for pid in workers)


SETSID_STARTER = """
import os, pathlib, sys, time
here = pathlib.Path(sys.argv[1])
if os.fork() == 0:  # the starter: not a group leader, so it may call setsid()
    run = os.fork()
    if run == 0:
        os.execv(sys.executable, [sys.executable, "run_tests.py", str(here / "run-ready")])
    os.setsid()  # the starter moves to a session of its own; the run stays in the old one
    (here / "starter").write_text(f"{os.getpid()} {run}")
    time.sleep(300)
    os._exit(0)
time.sleep(300)
"""


def test_a_run_whose_living_starter_called_setsid_is_not_orphaned(shared_tmp, runs):
    """Its starter forked it, then moved to a session of its own, and lives: not an orphan.

    ``stop --orphans`` leaves it alone. When that starter dies the kernel
    hands the run to init: then it is orphaned, and is stopped.
    """
    mine = make_checkout(shared_tmp, "proj")
    (mine / "run_tests.py").write_text(
        "import pathlib, sys, time\npathlib.Path(sys.argv[1]).touch()\ntime.sleep(300)\n"
    )
    (mine / "starter.py").write_text(SETSID_STARTER)
    ready = ready_dir(mine)
    runs.orphan([PYTHON, "starter.py", str(ready)], mine, env=clean_env())
    wait_for((ready / "starter").exists, what="the starter to call setsid")
    wait_for((ready / "run-ready").exists, what="the run to start")
    starter, run = (int(word) for word in (ready / "starter").read_text().split())
    runs.adopt(starter)
    report = scan(viewpoint(cwd=str(mine)))
    (judged,) = [j for j in report.runs if j.run.pid == run]
    assert not judged.run.orphaned
    assert stop_orphans(viewpoint(cwd=str(mine)), grace=0) == ()
    assert is_live(run)
    os.kill(starter, signal.SIGKILL)
    wait_for(lambda: not is_live(starter), what="the starter to die")
    report = scan(viewpoint(cwd=str(mine)))
    (judged,) = [j for j in report.runs if j.run.pid == run]
    assert judged.run.orphaned
    (stopped,) = stop_orphans(viewpoint(cwd=str(mine)), grace=5)
    assert (stopped.pid, stopped.status) == (run, StopStatus.STOPPED)
