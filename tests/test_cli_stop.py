"""``runctx stop`` on real runs: stops its own, refuses anything not known to be ours."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from pidreuse import spawn_orphan_with_pid, wait_pid_free
from proctools import (
    OTHER_UID,
    PYTHON,
    VIEWER_UID,
    interpreter_for,
    is_live,
    make_checkout,
    orphan,
    require_root,
    run_as,
    spawn_orphan,
    wait_for,
)
from runfixtures import (
    clean_env,
    ready_dir,
    start_run_tests_script,
    start_worker_parent,
    start_xdist_run,
)

from runctx.cli.check import EXIT_OURS, outcome_of
from runctx.records import ProcIdentity
from runctx.scanning import scan, viewpoint
from runctx.stopping import StopStatus, carry_out, plan_stop, stop_runs

RUNCTX = [sys.executable, "-m", "runctx"]


def stop(*args, cwd):
    """``runctx stop`` as a separate process."""
    return subprocess.run(
        [*RUNCTX, "stop", *args], cwd=cwd, capture_output=True, text=True, check=False
    )


@pytest.fixture
def runs():
    """Runs started by a test, killed by pid and process group at teardown."""
    started = []
    yield started
    for run in started:
        with contextlib.suppress(ProcessLookupError):
            os.kill(run.pid, signal.SIGKILL)
    for run in started:
        run.kill()


def test_stops_its_own_run_with_every_member(shared_tmp, runs):
    """A run of this checkout (pytest -n 2) is stopped: the controller and every worker."""
    checkout = make_checkout(shared_tmp)
    run = start_xdist_run(checkout, workers=2)
    runs.append(run)
    members = run.members()
    assert len(members) >= 3
    result = stop("--json", "--grace", "5", str(run.pid), cwd=checkout)
    assert result.returncode == 0, result.stderr
    (outcome,) = json.loads(result.stdout)
    assert outcome["status"] == "stopped"
    assert outcome["run"]["verdict"] == "ours"
    signalled = {entry["pid"] for entry in outcome["signalled"]}
    assert members <= signalled
    assert outcome["signalled"][0] == {"pid": run.pid, "signal": "SIGTERM"}
    for pid in members:
        wait_for(lambda pid=pid: not is_live(pid), 5, f"member {pid} to be gone")


def test_text_output_says_what_was_done(shared_tmp, runs):
    """Without --json, stop says which run it stopped and with which signals."""
    checkout = make_checkout(shared_tmp)
    run = start_run_tests_script(checkout)
    runs.append(run)
    result = stop(str(run.pid), cwd=checkout)
    assert result.returncode == 0
    assert result.stdout.startswith(f"runctx: stopped pid {run.pid} (run-tests-script")
    assert "SIGTERM to 1" in result.stdout
    wait_for(lambda: not is_live(run.pid), 5, "the run to be gone")


def test_a_member_pid_is_refused_with_the_run_to_name(shared_tmp, runs):
    """A worker's pid is not a run's pid: refused (4), naming the run, nothing signalled."""
    checkout = make_checkout(shared_tmp)
    run, _ready = start_worker_parent(checkout)
    runs.append(run)
    (worker,) = run.members() - {run.pid}
    result = stop(str(worker), cwd=checkout)
    assert result.returncode == 4
    assert f"member of run {run.pid}" in result.stderr
    assert f"runctx stop {run.pid}" in result.stderr
    assert is_live(worker)
    assert is_live(run.pid)


def test_refuses_a_run_of_another_checkout_with_the_same_name(shared_tmp, runs):
    """A run in b/proj is foreign to a/proj: refused with the root reason, left live."""
    mine = make_checkout(shared_tmp / "a", "proj")
    theirs = make_checkout(shared_tmp / "b", "proj")
    run = start_run_tests_script(theirs)
    runs.append(run)
    result = stop("--grace", "0", str(run.pid), cwd=mine)
    assert result.returncode == 4
    assert f"root {theirs} != {mine}" in result.stderr
    assert is_live(run.pid)


def start_other_users_run(checkout: Path):
    """A run of ``checkout`` owned by ``OTHER_UID``."""
    return start_run_tests_script(checkout, uid=OTHER_UID, python=interpreter_for(OTHER_UID))


def test_refuses_another_users_run_in_the_same_checkout(shared_tmp, runs):
    """Root refuses a run of another uid even in its own checkout: the uid differs."""
    require_root()
    checkout = make_checkout(shared_tmp)
    run = start_other_users_run(checkout)
    runs.append(run)
    result = stop("--grace", "0", str(run.pid), cwd=checkout)
    assert result.returncode == 4
    assert f"uid {OTHER_UID} != 0" in result.stderr
    assert is_live(run.pid)


def _stop_as_viewer(pid: int, checkout: str) -> tuple[str, tuple[str, ...]]:
    (result,) = stop_runs([pid], viewpoint(cwd=checkout), grace=0)
    return result.status.value, result.reasons


def test_refuses_another_users_run_as_an_unprivileged_user(shared_tmp, runs):
    """A third uid, not root and not the owner, is refused too, and nothing is signalled."""
    require_root()
    checkout = make_checkout(shared_tmp)
    run = start_other_users_run(checkout)
    runs.append(run)
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


def test_refuses_a_run_whose_root_is_unknown_although_check_counts_it(shared_tmp, runs):
    """A run whose cwd was removed inside this checkout: check counts it as ours, stop refuses."""
    require_root()  # the run and its viewer are another uid, so other tests never see it as ours
    mine = make_checkout(shared_tmp / "a", "proj")
    doomed = mine / "gone" / "proj"
    doomed.mkdir(parents=True)
    run = start_other_users_run(doomed)
    runs.append(run)
    shutil.rmtree(mine / "gone")
    verdict, outcome, status, reasons = run_as(OTHER_UID, _judge_check_and_stop, run.pid, str(mine))
    assert verdict == "unknown"
    assert outcome == EXIT_OURS
    assert status == "refused"
    assert any(reason.startswith("root unknown: cwd deleted") for reason in reasons)
    assert any("identity is not fully known" in reason for reason in reasons)
    assert is_live(run.pid)


SELF_STOPPER = """
import os, pathlib, subprocess, sys, time
out = pathlib.Path(sys.argv[1])
command = [sys.executable, "-m", "runctx", "stop", "--grace", "0", str(os.getpid())]
done = subprocess.run(command, capture_output=True, text=True)
out.write_text(f"{done.returncode}\\n{done.stderr}")
time.sleep(300)
"""


def test_never_stops_the_run_it_belongs_to(shared_tmp):
    """Stop called from inside a run of this checkout, naming that run, refuses it."""
    checkout = make_checkout(shared_tmp)
    (checkout / "run_tests.py").write_text(SELF_STOPPER)
    out = ready_dir(checkout) / "self-stop"
    with orphan([PYTHON, "run_tests.py", str(out)], checkout, env=clean_env()) as run:
        wait_for(lambda: out.exists() and out.read_text(), what="the stop inside the run")
        status, message = out.read_text().split("\n", 1)
        assert int(status) == 4
        assert "the run this command belongs to" in message
        assert is_live(run.pid)


def test_a_pid_that_is_no_test_run_is_left_alone(shared_tmp):
    """A plain process is not a run: exit 3, and it is not signalled."""
    checkout = make_checkout(shared_tmp)
    with orphan(["/bin/sleep", "60"], checkout) as sleeper:
        result = stop(str(sleeper.pid), cwd=checkout)
        assert result.returncode == 3
        assert f"no live test run has pid {sleeper.pid}" in result.stderr
        assert is_live(sleeper.pid)


REAPING_PARENT = """
import pathlib, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
pathlib.Path(sys.argv[1]).write_text(str(child.pid))
child.wait()
time.sleep(300)
"""


def test_a_reused_pid_is_never_signalled(shared_tmp, runs):
    """A member's pid reused by an innocent process after the scan is never signalled."""
    require_root()
    checkout = make_checkout(shared_tmp)
    (checkout / "run_tests.py").write_text(REAPING_PARENT)
    ready = ready_dir(checkout) / "child"
    run = spawn_orphan([PYTHON, "run_tests.py", str(ready)], checkout, env=clean_env())
    runs.append(run)
    wait_for(lambda: ready.exists() and ready.read_text(), what="the run's child to start")
    child = int(ready.read_text())
    report = scan(viewpoint(cwd=str(checkout)))
    (plan,) = plan_stop(report, [run.pid])
    assert plan.refusal is None
    assert [target.pid for target in plan.targets] == [run.pid, child]
    os.kill(child, signal.SIGKILL)
    wait_pid_free(child)
    innocent = spawn_orphan_with_pid(child, ["/bin/sleep", "60"], checkout)
    runs.append(innocent)
    result = carry_out(plan, grace=5)
    assert result.status is StopStatus.STOPPED
    assert result.signalled == ((run.pid, "SIGTERM"),)
    assert result.skipped == ((child, "pid reused by another process"),)
    assert is_live(innocent.pid)
    wait_for(lambda: not is_live(run.pid), 5, "the run to be gone")


def test_identities_come_from_the_scan(shared_tmp, runs):
    """The plan carries the (pid, start) each member had when the scan read it."""
    checkout = make_checkout(shared_tmp)
    run = start_run_tests_script(checkout)
    runs.append(run)
    report = scan(viewpoint(cwd=str(checkout)))
    (plan,) = plan_stop(report, [run.pid])
    stat = Path(f"/proc/{run.pid}/stat").read_bytes()
    start = int(stat[stat.rfind(b")") + 2 :].split()[19])
    assert plan.targets == (ProcIdentity(run.pid, start),)
