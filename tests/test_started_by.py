"""Who started each run: agent sessions, CI jobs, cron, terminals; this session's own runs.

The rules are fed what a process inherited (text); the reading is proved on
real processes started with the environment, the parent or the terminal the
rule looks for; another user's environment is proved never to reach a reply,
as root and as a third user.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hooktools import claude_session_start, codex_pre_tool_use, hook_env, reply, run_hook
from proctools import (
    OTHER_UID,
    PYTHON,
    VIEWER_UID,
    interpreter_for,
    make_checkout,
    orphan,
    require_root,
    run_as,
    wait_for,
)
from runfixtures import RUN_TESTS_SCRIPT, ready_dir

from runctx.records import Inherited
from runctx.report import StartedBy
from runctx.scanning import scan, viewpoint
from runctx.sources.procfs import ENVIRON_READ_MAX
from runctx.started_by import WANTED, AgentSession, Relation, relation, started_by, systemd_unit
from runctx.unknown import Reason, Unknown

RUNCTX = [sys.executable, "-m", "runctx"]
SECRET = "s3cr3t-session-of-another-user"  # noqa: S105 - a marker, not a password


def inherited(env: dict[str, str] | None = None, *, tty: bool = False, cgroup: str = "/"):
    """What a process inherited, as the rules read it (``env`` None: not read)."""
    environ = Unknown(Reason.DENIED) if env is None else tuple(sorted(env.items()))
    return Inherited(environ=environ, cgroup=cgroup, tty=tty)


def bare_env(**extra: str) -> dict[str, str]:
    """The suite's environment without any variable a starter sets, plus ``extra``."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in WANTED and not key.startswith(("PYTEST_", "RUNCTX_"))
    }
    env.update(extra)
    return env


def start_run(checkout: Path, env: dict[str, str], *, python: str = PYTHON, **kwargs):
    """An orphaned ``run_tests.py`` in ``checkout`` started with ``env`` (a context manager)."""
    (checkout / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    (checkout / "run_tests.py").chmod(0o644)
    ready = ready_dir(checkout) / f"up-{len(list(ready_dir(checkout).iterdir()))}"
    argv = [python, "run_tests.py", str(ready)]
    return orphan(argv, checkout, env=env, **kwargs), ready


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


def test_status_json_says_which_claude_code_session_started_a_run(shared_tmp):
    """A run started from Claude Code's shell tool: its session in status --json."""
    checkout = make_checkout(shared_tmp)
    env = bare_env(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID="a1b2c3d4-session")
    runner, ready = start_run(checkout, env)
    with runner as run:
        wait_for(ready.exists, what="the run to start")
        status = subprocess.run(
            [*RUNCTX, "status", "--json"], cwd=checkout, capture_output=True, text=True, check=True
        )
        entry = next(e for e in json.loads(status.stdout)["runs"] if e["pid"] == run.pid)
        assert entry["started_by"] == {
            "kind": "claude-code",
            "session": "a1b2c3d4-session",
            "detail": None,
        }
        text = subprocess.run(
            [*RUNCTX, "status"], cwd=checkout, capture_output=True, text=True, check=True
        )
        assert "claude-code session a1b2c3d4…" in text.stdout


def test_status_json_says_which_ci_job_started_a_run(shared_tmp):
    """A run a GitHub Actions job started: the run id and the workflow and job."""
    checkout = make_checkout(shared_tmp)
    env = bare_env(
        CI="true",
        GITHUB_ACTIONS="true",
        GITHUB_RUN_ID="9001",
        GITHUB_WORKFLOW="CI",
        GITHUB_JOB="tests",
        GITHUB_REPOSITORY="org/app",
    )
    runner, ready = start_run(checkout, env)
    with runner as run:
        wait_for(ready.exists, what="the run to start")
        judged = started(checkout, run.pid)
        assert judged.run.started_by == StartedBy("github-actions", "9001", "org/app: CI / tests")


def test_nothing_inherited_names_no_starter(shared_tmp):
    """A run started with none of the variables, no terminal, under init: unknown, not guessed."""
    checkout = make_checkout(shared_tmp)
    runner, ready = start_run(checkout, bare_env())
    with runner as run:
        wait_for(ready.exists, what="the run to start")
        found = started(checkout, run.pid).run.started_by
        assert isinstance(found, Unknown)
        assert found.reason is Reason.ABSENT


def test_a_variable_past_the_read_bound_is_not_seen(shared_tmp):
    """An environment longer than the bound: what comes before it is read, what is past it not."""
    checkout = make_checkout(shared_tmp)
    filler = "x" * (100 * 1024)  # one string may hold at most 128 KiB (MAX_ARG_STRLEN)
    env = bare_env(AAA_FILLER1=filler, AAA_FILLER2=filler, AAA_FILLER3=filler)
    env = {"CODEX_THREAD_ID": "early", **env, "CLAUDE_CODE_SESSION_ID": "late"}
    runner, ready = start_run(checkout, env)
    with runner as run:
        wait_for(ready.exists, what="the run to start")
        assert started(checkout, run.pid).run.started_by == StartedBy("codex", "early", None)


def test_a_variable_cut_by_the_read_bound_is_not_taken_in_part(shared_tmp):
    """A session id the bound cuts in two is dropped, never read as a shorter, wrong id."""
    checkout = make_checkout(shared_tmp)
    fillers = {"AAA_FILLER1": "x" * (100 * 1024), "AAA_FILLER2": "x" * (100 * 1024)}
    before = sum(len(name) + 1 + len(value) + 1 for name, value in fillers.items())
    # one string may hold at most 128 KiB (MAX_ARG_STRLEN); the id starts 30 bytes before the bound
    fillers["AAA_FILLER3"] = "x" * (ENVIRON_READ_MAX - 30 - before - len("AAA_FILLER3=") - 1)
    env = {**fillers, "CLAUDE_CODE_SESSION_ID": "0123456789abcdef"}
    env.update(bare_env())
    runner, ready = start_run(checkout, env)
    with runner as run:
        wait_for(ready.exists, what="the run to start")
        raw = Path(f"/proc/{run.pid}/environ").read_bytes()
        at = raw.index(b"CLAUDE_CODE_SESSION_ID=")
        assert at < ENVIRON_READ_MAX < at + len("CLAUDE_CODE_SESSION_ID=0123456789abcdef")
        found = started(checkout, run.pid).run.started_by
        assert isinstance(found, Unknown), found


def test_a_run_under_a_cron_ancestor_is_crons(shared_tmp):
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
    with orphan([str(cron), "-c", script, PYTHON, str(ready)], checkout, env=bare_env()) as parent:
        wait_for(ready.exists, what="the run to start")
        (pid,) = parent.members() - {parent.pid}
        assert started(checkout, pid).run.started_by == StartedBy("cron", None, None)


def test_a_run_with_a_controlling_terminal_is_a_terminals(shared_tmp):
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
    with orphan([PYTHON, "-c", script, PYTHON, str(ready)], checkout, env=bare_env()):
        wait_for(ready.exists, what="the run to start")
        report = scan(viewpoint(cwd=str(checkout)))
        (judged,) = (j for j in report.runs if j.run.root == str(checkout))
        try:
            assert judged.run.started_by == StartedBy("terminal", None, None)
        finally:
            os.kill(judged.run.pid, signal.SIGKILL)  # its own session, outside the group


# --------------------------------------------------------------------------- another user


def test_another_users_environment_never_reaches_a_reply(shared_tmp):
    """As root and as a third user: another user's session id reaches no status, JSON or hook."""
    require_root()
    checkout = make_checkout(shared_tmp)
    python = interpreter_for(OTHER_UID)
    env = bare_env(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID=SECRET, GITHUB_RUN_ID=SECRET)
    runner, ready = start_run(checkout, env, uid=OTHER_UID, python=python)
    with runner as run:
        wait_for(ready.exists, what="the other user's run to start")
        assert SECRET.encode() in Path(f"/proc/{run.pid}/environ").read_bytes()  # root could
        judged = started(checkout, run.pid)
        assert isinstance(judged.run.started_by, Unknown)
        assert "never read" in judged.run.started_by.detail
        outputs = [
            subprocess.run(
                [*RUNCTX, *args], cwd=checkout, capture_output=True, text=True, check=False
            ).stdout
            for args in (["status"], ["status", "--json"], ["check"], ["check", "--json"])
        ]
        payload = {**claude_session_start(checkout)}
        outputs.append(run_hook("claude-session-start", payload).stdout)
        outputs.append(run_hook("codex", codex_pre_tool_use("pytest", checkout)).stdout)
        assert any(str(run.pid) in text for text in outputs)
        assert not any(SECRET in text for text in outputs)

        as_viewer = run_as(VIEWER_UID, _started_by_of, str(checkout), run.pid)
        assert SECRET not in repr(as_viewer)


def _started_by_of(checkout: str, pid: int) -> str:
    """What a scan by the calling user says about who started ``pid`` (for run_as)."""
    report = scan(viewpoint(cwd=checkout))
    return repr(next(j.run.started_by for j in report.runs if j.run.pid == pid))


# --------------------------------------------------------------------------- own runs


def claude_payload(command: str, cwd: Path, session: str) -> dict[str, object]:
    """A PreToolUse payload from Claude Code session ``session``."""
    return {
        "session_id": session,
        "cwd": str(cwd),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "run_in_background": True},
    }


def test_a_session_is_told_when_the_run_in_its_way_is_its_own(shared_tmp):
    """The deny for a run this very session started says so, and how to wait for it."""
    checkout = make_checkout(shared_tmp)
    runner, ready = start_run(checkout, bare_env(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID="sess-A"))
    with runner as run:
        wait_for(ready.exists, what="the run to start")
        done = run_hook("claude", claude_payload("pytest -x", checkout, "sess-A"))
        reason = reply(done)["hookSpecificOutput"]["permissionDecisionReason"]
        assert f"pid {run.pid} (run-tests-script, running " in reason
        assert "is your own run, started " in reason
        assert " ago in this session: wait for it with `runctx wait`" in reason
        assert "runctx stop" not in reason


def test_a_run_of_another_session_is_said_to_be_that_sessions(shared_tmp):
    """The deny for another session's run says whose it is and never suggests stopping it."""
    checkout = make_checkout(shared_tmp)
    runner, ready = start_run(checkout, bare_env(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID="sess-B"))
    with runner as run:
        wait_for(ready.exists, what="the run to start")
        done = run_hook("claude", claude_payload("pytest -x", checkout, "sess-A"))
        reason = reply(done)["hookSpecificOutput"]["permissionDecisionReason"]
        assert f"pid {run.pid} (run-tests-script, running " in reason
        assert "was started by another session (claude-code session sess-B)" in reason
        assert "leave it to that session" in reason
        assert "your own run" not in reason
        assert "runctx stop" not in reason


def test_a_run_of_unknown_origin_keeps_the_leftover_advice(shared_tmp):
    """A run nothing says who started: the deny names it and how to wait, or stop a leftover."""
    checkout = make_checkout(shared_tmp)
    runner, ready = start_run(checkout, bare_env())
    with runner as run:
        wait_for(ready.exists, what="the run to start")
        done = run_hook("claude", claude_payload("pytest -x", checkout, "sess-A"))
        reason = reply(done)["hookSpecificOutput"]["permissionDecisionReason"]
        assert "your own run" not in reason
        assert f"a leftover: `runctx stop {run.pid}`" in reason


def test_codex_knows_its_own_thread(shared_tmp):
    """A run started from Codex's shell (CODEX_THREAD_ID) is the Codex session's own."""
    checkout = make_checkout(shared_tmp)
    runner, ready = start_run(checkout, bare_env(CODEX_THREAD_ID="0199a5b1-thread"))
    with runner as run:
        wait_for(ready.exists, what="the run to start")
        payload = codex_pre_tool_use("pytest", checkout)
        payload["session_id"] = "0199a5b1-thread"
        output = reply(run_hook("codex", payload))["hookSpecificOutput"]
        assert output["permissionDecision"] == "deny"
        assert "is your own run" in output["permissionDecisionReason"]
        assert f"pid {run.pid}" in output["permissionDecisionReason"]


def test_session_start_tells_a_resumed_session_its_own_run(shared_tmp):
    """SessionStart in a checkout with this session's live run says it is the session's own."""
    checkout = make_checkout(shared_tmp)
    runner, ready = start_run(checkout, bare_env(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID="sess-R"))
    with runner as run:
        wait_for(ready.exists, what="the run to start")
        payload = claude_session_start(checkout)
        payload["session_id"] = "sess-R"
        payload["source"] = "resume"
        answer = reply(run_hook("claude-session-start", payload, env=hook_env()))
        context = answer["hookSpecificOutput"]["additionalContext"]
        assert f"pid {run.pid} (run-tests-script" in context
        assert "is your own run" in context


def test_the_psutil_source_reads_what_a_run_inherited_like_procfs(shared_tmp):
    """Psutil reads the same variables and terminal; its cgroup is an explicit unknown."""
    from runctx.sources.procfs import ProcfsSource
    from runctx.sources.psutil import PsutilSource

    checkout = make_checkout(shared_tmp)
    runner, ready = start_run(checkout, bare_env(CODEX_THREAD_ID="t-1", CI="true"))
    with runner as run:
        wait_for(ready.exists, what="the run to start")
        procfs, portable = ProcfsSource(), PsutilSource()
        by_procfs = procfs.inherited(procfs.current_identity(run.pid), WANTED)
        by_psutil = portable.inherited(portable.current_identity(run.pid), WANTED)
        assert by_psutil.environ == by_procfs.environ
        assert ("CODEX_THREAD_ID", "t-1") in by_psutil.environ
        assert by_psutil.tty == by_procfs.tty
        assert isinstance(by_psutil.cgroup, Unknown)
        skipped = portable.inherited(
            portable.current_identity(run.pid), WANTED, skip_environ=Unknown(Reason.DENIED)
        )
        assert skipped.environ == Unknown(Reason.DENIED)
