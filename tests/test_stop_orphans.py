"""``runctx stop --orphans``: this checkout's orphaned runs and workers, and nothing else.

An orphan is a run whose starter is gone: an xdist worker whose controller
died, a test runner whose shell exited. Everything here is a real process:
real pytest-xdist runs whose controller is killed, runs of another checkout
and of another user, and the hook's refusal next to an orphan.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hooktools import claude_pre_tool_use, reply, run_hook
from proctools import (
    OTHER_UID,
    PYTHON,
    Orphan,
    interpreter_for,
    is_live,
    make_checkout,
    require_root,
    spawn_orphan,
    wait_for,
)
from runfixtures import HOLD_TESTS, WORKER_PARENT_SCRIPT, clean_env

from runctx.scanning import scan, viewpoint
from runctx.stopping import plan_orphans

RUNCTX = [sys.executable, "-m", "runctx"]


@pytest.fixture
def runs():
    """Runs started by a test, killed by process group (and each member by pid) at teardown."""
    started: list[tuple[Orphan, set[int]]] = []
    yield started
    for run, members in started:
        for pid in members:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        run.kill()


def stop(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``runctx stop`` as a separate process."""
    return subprocess.run(
        [*RUNCTX, "stop", *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def xdist_run(checkout: Path, name: str, runs) -> tuple[Orphan, set[int]]:
    """An orphaned ``pytest -n 2`` in ``checkout`` holding two tests; its pid and workers."""
    tests = checkout / "tests"
    tests.mkdir(exist_ok=True)
    (tests / "test_hold.py").write_text(HOLD_TESTS)
    ready = checkout / f".ready-{name}"
    ready.mkdir()
    argv = [PYTHON, "-m", "pytest", "-n", "2", "-q", "-p", "no:cacheprovider", "-p", "no:runctx"]
    run = spawn_orphan([*argv, "tests"], checkout, env=clean_env(RUNCTX_READY_DIR=str(ready)))
    wait_for(lambda: len(list(ready.iterdir())) >= 2, what=f"the workers of {name} to hold")
    workers = run.members() - {run.pid}
    assert len(workers) == 2
    runs.append((run, workers | {run.pid}))
    return run, workers


def kill_controller(run: Orphan, workers: set[int]) -> None:
    """SIGKILL the controller only: its workers live on, reparented."""
    os.kill(run.pid, signal.SIGKILL)
    wait_for(lambda: not is_live(run.pid), what="the controller to die")
    assert all(is_live(pid) for pid in workers)


def orphaned_pids(checkout: Path) -> set[int]:
    """The pids of the runs a scan from ``checkout`` marks orphaned."""
    return {j.run.pid for j in scan(viewpoint(cwd=str(checkout))).runs if j.run.orphaned}


def test_stop_orphans_ends_this_checkouts_orphaned_workers_and_nothing_else(shared_tmp, runs):
    """Orphaned xdist workers of this checkout are stopped; a live run and foreign orphans stay."""
    mine = make_checkout(shared_tmp, "proj")
    theirs = make_checkout(shared_tmp / "other", "proj")
    lost, lost_workers = xdist_run(mine, "lost", runs)
    intact, intact_workers = xdist_run(mine, "intact", runs)
    foreign, foreign_workers = xdist_run(theirs, "foreign", runs)
    kill_controller(lost, lost_workers)
    kill_controller(foreign, foreign_workers)
    assert lost_workers | foreign_workers <= orphaned_pids(mine)
    assert intact.pid not in orphaned_pids(mine)

    done = stop("--orphans", "--grace", "5", cwd=mine)

    assert done.returncode == 0, done.stderr
    assert all(not is_live(pid) for pid in lost_workers)
    assert all(is_live(pid) for pid in intact_workers | {intact.pid})
    assert all(is_live(pid) for pid in foreign_workers)
    assert done.stdout.count("runctx: stopped pid ") == 2, done.stdout
    for pid in lost_workers:
        assert f"stopped pid {pid} (pytest-xdist-worker" in done.stdout


def test_another_users_orphan_in_this_checkout_is_never_stopped(shared_tmp, runs):
    """As root, an orphaned worker of another user in this very checkout is left alone."""
    require_root()
    mine = make_checkout(shared_tmp, "proj")
    (mine / "run_tests.py").write_text(WORKER_PARENT_SCRIPT)
    ready = mine / ".ready-other"
    ready.mkdir()
    ready.chmod(0o777)
    python = interpreter_for(OTHER_UID)
    parent = spawn_orphan(
        [python, "run_tests.py", str(ready / "worker")], mine, uid=OTHER_UID, env=clean_env()
    )
    wait_for((ready / "worker").exists, what="the other user's worker to start")
    workers = parent.members() - {parent.pid}
    runs.append((parent, workers | {parent.pid}))
    kill_controller(parent, workers)
    assert workers <= orphaned_pids(mine)

    done = stop("--orphans", cwd=mine)

    assert done.returncode == 0, done.stderr
    assert "nothing stopped" in done.stdout
    assert all(is_live(pid) for pid in workers)


def test_with_no_orphan_it_says_so_and_exits_0(shared_tmp):
    """A checkout without orphaned runs: nothing is signalled, exit 0."""
    mine = make_checkout(shared_tmp)
    done = stop("--orphans", cwd=mine)
    assert (done.returncode, done.stderr) == (0, "")
    assert "no orphaned run of this checkout is live; nothing stopped" in done.stdout
    as_json = stop("--orphans", "--json", cwd=mine)
    assert json.loads(as_json.stdout) == []


@pytest.mark.parametrize("args", [(), ("--orphans", "123")])
def test_stop_needs_pids_or_orphans_but_not_both(shared_tmp, args):
    """``runctx stop`` alone, or with PIDs and --orphans, is a usage error (exit 2)."""
    done = stop(*args, cwd=make_checkout(shared_tmp))
    assert done.returncode == 2
    assert "give the PID of a run, or --orphans" in done.stderr


def test_the_hook_names_stop_orphans_when_an_orphan_is_in_the_way(shared_tmp, runs):
    """A deny next to an orphaned worker of this checkout names `runctx stop --orphans`."""
    mine = make_checkout(shared_tmp, "proj")
    lost, workers = xdist_run(mine, "lost", runs)
    kill_controller(lost, workers)
    answer = reply(run_hook("claude", claude_pre_tool_use("pytest -x", mine)))
    output = answer["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    reason = output["permissionDecisionReason"]
    assert "runctx stop --orphans" in reason
    assert all(f"pid {pid} (pytest-xdist-worker, running " in reason for pid in workers)
    assert "orphan" in reason


ORPHANING_PARENT = """
import subprocess, sys, time, pathlib
child = subprocess.Popen([sys.executable, "run_tests.py", sys.argv[1]])
while not pathlib.Path(sys.argv[1]).exists():
    time.sleep(0.02)
if sys.argv[2] == "exit":
    sys.exit(0)
time.sleep(300)
"""


@pytest.mark.parametrize("parent_exits", [True, False])
def test_a_runner_is_orphaned_exactly_when_the_process_that_started_it_is_gone(
    shared_tmp, runs, parent_exits
):
    """A runner whose starter exited (it kept the starter's session) is orphaned; else not."""
    mine = make_checkout(shared_tmp)
    (mine / "run_tests.py").write_text(
        "import pathlib, sys, time\npathlib.Path(sys.argv[1]).touch()\ntime.sleep(300)\n"
    )
    (mine / "start.py").write_text(ORPHANING_PARENT)
    ready = mine / "up"
    mode = "exit" if parent_exits else "stay"
    starter = spawn_orphan([PYTHON, "start.py", str(ready), mode], mine, env=clean_env())
    wait_for(ready.exists, what="the runner to start")
    members = starter.members()
    runs.append((starter, members))
    if parent_exits:
        wait_for(lambda: not is_live(starter.pid), what="the starter to exit")
    report = scan(viewpoint(cwd=str(mine)))
    (runner,) = (
        j for j in report.runs if j.run.kind == "run-tests-script" and j.run.pid in members
    )
    assert runner.run.orphaned is parent_exits
    planned = {plan.pid for plan in plan_orphans(report) if plan.refusal is None}
    assert (runner.run.pid in planned) is parent_exits


def test_a_run_that_started_its_own_session_is_not_called_an_orphan(shared_tmp, runs):
    """A setsid runner under init may have meant to be there: it is not called orphaned."""
    mine = make_checkout(shared_tmp)
    (mine / "run_tests.py").write_text(
        "import pathlib, sys, time\npathlib.Path(sys.argv[1]).touch()\ntime.sleep(300)\n"
    )
    run = spawn_orphan([PYTHON, "run_tests.py", str(mine / "up")], mine, env=clean_env())
    runs.append((run, {run.pid}))
    wait_for((mine / "up").exists, what="the run to start")
    judged = next(j for j in scan(viewpoint(cwd=str(mine))).runs if j.run.pid == run.pid)
    assert not judged.run.orphaned
    assert stop("--orphans", cwd=mine).returncode == 0
    assert is_live(run.pid)
