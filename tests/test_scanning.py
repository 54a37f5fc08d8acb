"""One scan: each run's CPU use now over a window, and who started it, read the way it may be.

Real runs: a spinning one and a sleeping one for the CPU window; another
user's run whose environment holds a secret, which no scan reads, not even
root's, and so no face can show.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hooktools import claude_session_start, codex_pre_tool_use, hook_env, run_hook
from proctools import OTHER_UID, VIEWER_UID, make_checkout, run_as, wait_for
from runfactory import clean_env

from runctx.policy import measures_cpu
from runctx.scanning import OTHER_USERS_ENVIRONMENT, scan, viewpoint
from runctx.unknown import Reason, Unknown

RUNCTX = [sys.executable, "-m", "runctx"]
SECRET = "s3cr3t-session-of-another-user"  # noqa: S105 - a marker, not a password


def test_a_scan_with_a_window_measures_each_other_run_now(shared_tmp, runs):
    """scan(cpu_window=...) gives a spinning run CPU now above zero, a sleeping one zero."""
    sleeper = runs.run_tests_script(make_checkout(shared_tmp, "idle"))
    spinner = runs.spinner(make_checkout(shared_tmp))
    here = viewpoint(cwd=str(shared_tmp))

    def spinner_seen_busy() -> bool:
        report = scan(here, cpu_window=0.1)
        cpu = next(j.run.cpu_now for j in report.runs if j.run.pid == spinner.pid)
        return isinstance(cpu, float) and cpu > 0

    wait_for(spinner_seen_busy, what="a window in which the spinner ran")
    report = scan(here, cpu_window=0.1)
    assert isinstance(report.cpu_window, float)
    idle = next(j for j in report.runs if j.run.pid == sleeper.pid)
    assert idle.run.cpu_now == 0.0
    self_run = report.self_run
    assert self_run is not None
    assert self_run.run.cpu_now == Unknown(Reason.NOT_READ)  # never this run itself
    plain = scan(here)
    assert plain.cpu_window == Unknown(Reason.NOT_READ)
    assert all(j.run.cpu_now == Unknown(Reason.NOT_READ) for j in plain.runs)


def test_a_scan_measures_only_the_runs_it_is_asked_about(shared_tmp, runs):
    """With cpu_of (a hook's: foreign runs only), a run of this checkout is not measured."""
    mine = make_checkout(shared_tmp, "mine")
    ours = runs.run_tests_script(mine)
    theirs = runs.run_tests_script(make_checkout(shared_tmp / "other", "mine"))
    report = scan(viewpoint(cwd=str(mine)), cpu_window=0.05, cpu_of=measures_cpu)
    by_pid = {j.run.pid: j for j in report.runs}
    assert by_pid[ours.pid].run.cpu_now == Unknown(Reason.NOT_READ)
    assert by_pid[theirs.pid].run.cpu_now == 0.0


@pytest.mark.needs_root
def test_another_users_environment_never_reaches_any_output(shared_tmp, runs):
    """As root and as a third user: another user's session id reaches no status, JSON or hook."""
    checkout = make_checkout(shared_tmp)
    env = clean_env(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID=SECRET, GITHUB_RUN_ID=SECRET)
    run = runs.run_tests_script(checkout, uid=OTHER_UID, env=env)
    assert SECRET.encode() in Path(f"/proc/{run.pid}/environ").read_bytes()  # root could
    judged = next(j for j in scan(viewpoint(cwd=str(checkout))).runs if j.run.pid == run.pid)
    assert judged.run.started_by == OTHER_USERS_ENVIRONMENT
    outputs = [
        subprocess.run(
            [*RUNCTX, *args], cwd=checkout, env=hook_env(), capture_output=True, check=False
        ).stdout.decode(errors="replace")
        for args in (["status"], ["status", "--json"], ["check"], ["check", "--json"])
    ]
    outputs.append(run_hook("claude-session-start", claude_session_start(checkout)).stdout)
    outputs.append(run_hook("codex", codex_pre_tool_use("pytest", checkout)).stdout)
    assert all(str(run.pid) in text for text in outputs)  # each face spoke of the run
    assert not any(SECRET in text for text in outputs)
    as_viewer = run_as(VIEWER_UID, _started_by_of, str(checkout), run.pid)
    assert SECRET not in as_viewer


def _started_by_of(checkout: str, pid: int) -> str:
    """What a scan by the calling user says about who started ``pid`` (for run_as)."""
    report = scan(viewpoint(cwd=checkout))
    return repr(next(j.run.started_by for j in report.runs if j.run.pid == pid))
