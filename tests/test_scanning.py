"""One scan: each run's CPU use now, who started it, and its environment, read the way it may be.

Real runs: a spinning one and a sleeping one for the CPU window; another
user's run whose environment holds a secret, which no scan reads, not even
root's, and so no face can show.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from envtools import live_run, make_venv, shared_worktrees
from hooktools import claude_session_start, codex_pre_tool_use, hook_env, run_hook
from proctools import OTHER_UID, VIEWER_UID, interpreter_for, make_checkout, run_as, wait_for
from runfactory import RUN_TESTS_SCRIPT, clean_env, ready_dir

from runctx.environment import Environment
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
    checkout.chmod(0o777)  # that user may write it: it shares the tree, so every face names it
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


# --------------------------------------------------------------------------- environments


@pytest.fixture(scope="module")
def worktrees(tmp_path_factory):
    """Worktrees ``a`` and ``b`` of one repository on one venv."""
    return shared_worktrees(tmp_path_factory.mktemp("scanning-envs"))


def runs_by_pid(directory, *pids):
    """The runs led by ``pids``, from a real scan judged from ``directory``."""
    report = scan(viewpoint(cwd=str(directory)))
    return {j.run.pid: j.run for j in report.runs if j.run.pid in pids}


def test_two_checkouts_on_one_environment_name_each_other(worktrees, runs):
    """Runs in ``a`` and ``b`` on the venv: each one's ``shares_environment_with`` is the other."""
    in_a = live_run(runs, worktrees.a, worktrees.venv)
    in_b = live_run(runs, worktrees.b, worktrees.venv)
    found = runs_by_pid(worktrees.a, in_a.pid, in_b.pid)
    assert isinstance(found[in_a.pid].environment, Environment)
    assert found[in_a.pid].shares_environment_with == (in_b.pid,)
    assert found[in_b.pid].shares_environment_with == (in_a.pid,)


def test_two_runs_of_one_checkout_do_not_share_an_environment_with_each_other(worktrees, runs):
    """Two runs of ``a`` on the venv share a checkout (another ground): no environment flag."""
    first = live_run(runs, worktrees.a, worktrees.venv)
    second = live_run(runs, worktrees.a, worktrees.venv)
    found = runs_by_pid(worktrees.a, first.pid, second.pid)
    assert found[first.pid].shares_environment_with == ()
    assert found[second.pid].shares_environment_with == ()


def test_runs_on_environments_of_their_own_share_nothing(worktrees, runs, tmp_path):
    """``a`` on the venv, ``b`` on a venv of its own: nothing shared."""
    own = make_venv(tmp_path / "own")
    in_a = live_run(runs, worktrees.a, worktrees.venv)
    in_b = live_run(runs, worktrees.b, own)
    found = runs_by_pid(worktrees.b, in_a.pid, in_b.pid)
    assert found[in_a.pid].shares_environment_with == ()
    assert found[in_b.pid].shares_environment_with == ()
    assert found[in_b.pid].environment.prefix == str(own)


def test_a_python_started_by_name_is_its_venv_through_virtual_env(worktrees, runs, tmp_path):
    """``python`` found on ``PATH`` with ``$VIRTUAL_ENV`` set: the scan names that venv."""
    ready = tmp_path / "ready"
    env = clean_env(
        PATH=f"{worktrees.venv / 'bin'}:{os.environ['PATH']}", VIRTUAL_ENV=str(worktrees.venv)
    )
    run = runs.orphan(
        ["python", "run_tests.py", str(ready)],
        _script(worktrees.b),
        env=env,
        executable=str(worktrees.venv / "bin" / "python"),
        ready=ready,
    )
    found = runs_by_pid(worktrees.b, run.pid)[run.pid].environment
    assert isinstance(found, Environment)
    assert (found.kind, found.prefix, found.found_by) == (
        "venv",
        str(worktrees.venv),
        "VIRTUAL_ENV",
    )


@pytest.mark.needs_root
def test_another_users_virtual_env_is_never_read(shared_tmp, runs):
    """Another user's ``python`` with ``$VIRTUAL_ENV``: its environment is found without it."""
    venv = make_venv(shared_tmp / "venv", interpreter_for(OTHER_UID))
    checkout = make_checkout(shared_tmp, "theirs")
    (checkout / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    ready = ready_dir(checkout) / "up"
    env = clean_env(PATH=f"{venv / 'bin'}:/usr/bin:/bin", VIRTUAL_ENV=str(venv))
    run = runs.orphan(
        ["python", "run_tests.py", str(ready)],
        checkout,
        uid=OTHER_UID,
        env=env,
        executable=str(venv / "bin" / "python"),
        ready=ready,
    )
    found = runs_by_pid(checkout, run.pid)[run.pid].environment
    assert isinstance(found, Environment)
    assert found.found_by != "VIRTUAL_ENV"
    assert found.found_by == "/proc/PID/exe"


def _script(checkout):
    """``checkout`` with a ``run_tests.py`` that holds until killed."""
    (checkout / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    return checkout
