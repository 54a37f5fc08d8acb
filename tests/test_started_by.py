"""Who started each run: agent sessions, CI jobs, cron, terminals; how a run stands to a session.

The rules are fed what a process inherited (text); then they are proved on
real processes started with the environment, the parent or the terminal the
rule looks for. What a hook says of its own session's runs is in the agents'
tests (``tests/test_hooks_agents_claude.py``, ``..._codex.py``); the reading
of the environment with its bound in ``tests/test_sources_procfs.py``; that
another user's environment is never read in ``tests/test_scanning.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from proctools import PYTHON, children_of, make_checkout, wait_for
from runfactory import RUN_TESTS_SCRIPT, clean_env

from runctx.records import Inherited
from runctx.report import StartedBy
from runctx.scanning import scan, viewpoint
from runctx.started_by import WANTED, AgentSession, Relation, relation, started_by, systemd_unit
from runctx.unknown import Reason, Unknown


def inherited(env: dict[str, str] | None = None, *, tty: bool = False, cgroup: str = "/"):
    """What a process inherited, as the rules read it (``env`` None: not read)."""
    environ = Unknown(Reason.DENIED) if env is None else tuple(sorted(env.items()))
    return Inherited(environ=environ, cgroup=cgroup, tty=tty)


def bare_env(**extra: str) -> dict[str, str]:
    """The suite's environment without any variable a starter sets, plus ``extra``."""
    env = {
        key: value
        for key, value in clean_env().items()
        if key not in WANTED and not key.startswith("RUNCTX_")
    }
    env.update(extra)
    return env


def started(checkout: Path, pid: int):
    """The run with ``pid`` as a scan from ``checkout`` sees it."""
    return next(j for j in scan(viewpoint(cwd=str(checkout))).runs if j.run.pid == pid)


# --------------------------------------------------------------------------- the rules


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        (
            {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "5f3a"},
            StartedBy("claude-code", "5f3a", None),
        ),
        ({"CLAUDECODE": "1"}, StartedBy("claude-code", None, None)),
        ({"CODEX_THREAD_ID": "019d-ab"}, StartedBy("codex", "019d-ab", None)),
        ({"GEMINI_CLI": "1", "GEMINI_SESSION_ID": "g1"}, StartedBy("gemini-cli", "g1", None)),
        ({"CURSOR_AGENT": "1", "CI": "1"}, StartedBy("cursor", None, None)),
        ({"COPILOT_AGENT_SESSION_ID": "c9"}, StartedBy("copilot", "c9", None)),
        (
            {"QWEN_CODE": "1", "QWEN_CODE_SESSION_ID": "q7"},
            StartedBy("qwen-code", "q7", None),
        ),
        ({"QWEN_CODE": "1"}, StartedBy("qwen-code", None, None)),
        (
            {
                "GITHUB_ACTIONS": "true",
                "GITHUB_RUN_ID": "42",
                "GITHUB_REPOSITORY": "org/app",
                "GITHUB_WORKFLOW": "CI",
                "GITHUB_JOB": "test",
                "CI": "true",
            },
            StartedBy("github-actions", "42", "org/app: CI / test"),
        ),
        (
            {"GITLAB_CI": "true", "CI_JOB_ID": "77", "CI_PROJECT_PATH": "g/p", "CI_JOB_NAME": "t"},
            StartedBy("gitlab-ci", "77", "g/p: t"),
        ),
        (
            {"BUILDKITE": "true", "BUILDKITE_JOB_ID": "b-1", "BUILDKITE_PIPELINE_SLUG": "app"},
            StartedBy("buildkite", "b-1", "app"),
        ),
        (
            {"JENKINS_URL": "https://j", "BUILD_TAG": "jenkins-app-9", "JOB_NAME": "app"},
            StartedBy("jenkins", "jenkins-app-9", "app"),
        ),
        (
            {"CIRCLECI": "true", "CIRCLE_WORKFLOW_JOB_ID": "w-1", "CIRCLE_JOB": "build"},
            StartedBy("circleci", "w-1", "build"),
        ),
        ({"CI": "true"}, StartedBy("ci", None, None)),
        ({"INVOCATION_ID": "abc"}, StartedBy("systemd", "abc", None)),
        ({"TMUX": "/tmp/tmux-0/default,1,0", "TMUX_PANE": "%3"}, StartedBy("tmux", "%3", None)),
        ({"STY": "123.pts-0"}, StartedBy("screen", "123.pts-0", None)),
        ({"SSH_CONNECTION": "10.0.0.1 1 10.0.0.2 22"}, StartedBy("ssh", None, None)),
        ({"TERM_PROGRAM": "vscode"}, StartedBy("terminal", None, "vscode")),
        ({"CI": "false", "HOME": "/root"}, None),
    ],
)
def test_each_starter_is_named_from_its_variables(env, expected):
    """Each starter's own variables name it, with its session and detail; nothing names none."""
    assert started_by(inherited(env), ()) == expected


def test_an_agent_in_a_ci_job_is_the_agents_with_the_job_as_detail():
    """Claude Code run by a GitHub Actions job: claude-code, its session, the run as detail."""
    env = {"CLAUDE_CODE_SESSION_ID": "s", "GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": "42"}
    assert started_by(inherited(env), ()) == StartedBy("claude-code", "s", "github-actions job 42")


def test_the_nearest_agent_wins_when_one_runs_another():
    """Codex run inside Claude Code (both variables set): the nearer ancestor decides."""
    env = {"CLAUDE_CODE_SESSION_ID": "s", "CODEX_THREAD_ID": "t"}
    assert started_by(inherited(env), ("bash", "codex", "claude")).kind == "codex"
    assert started_by(inherited(env), ("bash", "claude", "codex")).kind == "claude-code"


def test_the_tree_cgroup_and_terminal_speak_when_the_environment_is_not_read():
    """Without the environment: cron and sshd ancestors, a service cgroup, a terminal."""
    assert started_by(inherited(None), ("sh", "cron")) == StartedBy("cron", None, None)
    assert started_by(inherited(None), ("bash", "sshd")) == StartedBy("ssh", None, None)
    assert started_by(inherited(None), ("Runner.Worker",)).kind == "github-actions"
    unit = "/system.slice/nightly-tests.service"
    assert started_by(inherited(None, cgroup=unit), ()) == StartedBy(
        "systemd", None, "nightly-tests.service"
    )
    assert started_by(inherited(None, tty=True), ()) == StartedBy("terminal", None, None)
    assert started_by(inherited(None), ("bash",)) is None


def test_only_a_service_unit_is_a_systemd_starter():
    """A .service leaf names its unit; scopes, slices and the user manager do not."""
    assert systemd_unit("/system.slice/cron.service") == "cron.service"
    assert systemd_unit("/user.slice/user-1000.slice/session-3.scope") is None
    assert systemd_unit("/user.slice/user-1000.slice/user@1000.service") is None
    assert systemd_unit("/") is None


@pytest.mark.parametrize(
    ("run", "session", "expected"),
    [
        (StartedBy("claude-code", "s1", None), AgentSession("claude-code", "s1"), Relation.OWN),
        (
            StartedBy("claude-code", "s2", None),
            AgentSession("claude-code", "s1"),
            Relation.OTHER_SESSION,
        ),
        (StartedBy("codex", "t", None), AgentSession("claude-code", "s1"), Relation.OTHER_SESSION),
        (StartedBy("claude-code", None, None), AgentSession("claude-code", "s1"), Relation.UNKNOWN),
        (StartedBy("claude-code", "s1", None), AgentSession("claude-code", None), Relation.UNKNOWN),
        (StartedBy("terminal", None, None), AgentSession("claude-code", "s1"), Relation.UNKNOWN),
        (Unknown(Reason.DENIED), AgentSession("claude-code", "s1"), Relation.UNKNOWN),
        (StartedBy("claude-code", "s1", None), None, Relation.UNKNOWN),
    ],
)
def test_own_only_with_both_ids_known_and_equal(run, session, expected):
    """A run is the session's own only when agent and id match; less known is unknown."""
    assert relation(run, session) is expected


# --------------------------------------------------------------------------- real processes


def test_a_ci_job_is_named_with_its_run_and_job(shared_tmp, runs):
    """A run a GitHub Actions job started: the run id, and the workflow and job."""
    checkout = make_checkout(shared_tmp)
    env = bare_env(
        CI="true",
        GITHUB_ACTIONS="true",
        GITHUB_RUN_ID="9001",
        GITHUB_WORKFLOW="CI",
        GITHUB_JOB="tests",
        GITHUB_REPOSITORY="org/app",
    )
    run = runs.run_tests_script(checkout, env=env)
    judged = started(checkout, run.pid)
    assert judged.run.started_by == StartedBy("github-actions", "9001", "org/app: CI / tests")


def test_nothing_inherited_names_no_starter(shared_tmp, runs):
    """A run started with none of the variables, no terminal, under init: unknown, not guessed."""
    checkout = make_checkout(shared_tmp)
    run = runs.run_tests_script(checkout, env=bare_env())
    found = started(checkout, run.pid).run.started_by
    assert isinstance(found, Unknown)
    assert found.reason is Reason.ABSENT


def test_a_run_under_a_cron_ancestor_is_crons(shared_tmp, runs):
    """A run whose parent is a process named cron (as cron's children are) is cron's."""
    checkout = make_checkout(shared_tmp)
    (checkout / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    cron = shared_tmp / "cron"
    cron.symlink_to(os.path.realpath(PYTHON))
    script = (
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.argv[1], 'run_tests.py', sys.argv[2]])\n"
        "time.sleep(300)\n"
    )
    ready = checkout / "up"
    parent = runs.orphan(
        [str(cron), "-c", script, PYTHON, str(ready)], checkout, env=bare_env(), ready=ready
    )
    (pid,) = parent.members() - {parent.pid}
    assert started(checkout, pid).run.started_by == StartedBy("cron", None, None)


def test_a_run_with_a_controlling_terminal_is_a_terminals(shared_tmp, runs):
    """A run started on a pseudo-terminal (pty.fork) is a terminal's."""
    checkout = make_checkout(shared_tmp)
    (checkout / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    script = (
        "import os, pty, sys, time\n"
        "pid, fd = pty.fork()\n"
        "if pid == 0:\n"
        "    os.execv(sys.argv[1], [sys.argv[1], 'run_tests.py', sys.argv[2]])\n"
        "time.sleep(300)\n"
    )
    ready = checkout / "up"
    parent = runs.orphan([PYTHON, "-c", script, PYTHON, str(ready)], checkout, env=bare_env())
    wait_for(ready.exists, what="the run on the terminal to start")
    (pid,) = children_of(parent.pid)
    child = runs.adopt(pid)  # a session of its own: reaped by its own group
    assert started(checkout, child.pid).run.started_by == StartedBy("terminal", None, None)
