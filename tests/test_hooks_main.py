"""``runctx hook FACE``, the one hook dispatcher: it always exits 0 and never blocks the user.

Whatever the agent sends (garbage, a wrong face, a payload too large, a stdin
that never ends), the hook lets the command through and says on stderr what
went wrong; for a command that is not a test run it stays cheap to start.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import time

import pytest
from envtools import live_run, make_venv, pip_install, shared_worktrees
from hooktools import (
    RUNCTX,
    assert_failed_open,
    assert_told_the_agent,
    claude_pre_tool_use,
    hook_env,
    run_hook,
)
from nstools import hook_in_own_pid_namespace, sandboxed_run, without_proc
from proctools import make_checkout, wait_for

from runctx.fastpath.scripts import MAX_PROJECT_FILE_BYTES
from runctx.present.words import NOTE_MAX_CHARS

HANG_GUARD = 60
"""Seconds after which a hook process that should have answered counts as hung."""

FORBIDDEN_ON_THE_FAST_PATH = (
    "attrs",
    "structlog",
    "psutil",
    "runctx.scanning",
    "runctx.sources.procfs",
    "argparse",
    "typing",
    "runctx.policy",
    "base64",
    "threading",
    "hypothesis",
    "atheris",
    "runctx.present.output",
    "runctx.present.escape",  # loaded to say something; the non-test path says nothing
    "runctx.present.json",
    "runctx.runners.table",
    "runctx.runners.tasks",
    "runctx.modes",
)

LOADED_AFTER_STARTUP = ("json", "re", "select", "_socket", "tomllib", "base64")
"""Standard modules the interpreter does not load at startup, which the path of a command
that names no runner never loads either: ``json`` (with ``re``, about 7 ms, more than the
rest of the hook: the payload goes through json's C scanner) and ``select`` (a shared
library)."""


@pytest.mark.parametrize(
    ("data", "what"),
    [
        (b"this is not json", "input is not JSON"),
        (b"", "no input"),
        (b'["PreToolUse", "Bash"]', "input is a JSON list"),
        (b'"pytest"', "input is a JSON str"),
        (b"[" * 100000 + b"]" * 100000, "input is not JSON"),
        (b"\xff\xfe\x00garbage", "input is not JSON"),
    ],
)
def test_garbage_never_blocks(data, what):
    """Input that is not a JSON object: exit 0, no stdout, one stderr line."""
    assert_failed_open(run_hook("claude", data), what)


def test_five_megabytes_of_input_never_block(world):
    """A 5 MB payload is drained, not parsed: exit 0, no stdout, one stderr line."""
    payload = claude_pre_tool_use("pytest " + "x" * 5_000_000, world.busy)
    assert_failed_open(run_hook("claude", payload), "larger than 1048576 bytes")


@pytest.mark.parametrize("face", ["codex", "gemini", "gemini-after", "cursor", "copilot"])
def test_five_megabytes_never_block_any_agent(face):
    """An oversized payload fails open the same way for every agent."""
    data = json.dumps({"command": "x" * 5_000_000}).encode()
    assert_failed_open(run_hook(face, data), "larger than")


def test_a_stdin_that_never_ends_fails_open_at_the_deadline(world):
    """An agent that never closes stdin cannot hang the hook: it fails open at the deadline."""
    env = hook_env(RUNCTX_HOOK_DEADLINE="0.5")
    with subprocess.Popen(
        [sys.executable, "-m", "runctx", "hook", "claude"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    ) as process:
        assert process.stdin is not None
        process.stdin.write(json.dumps(claude_pre_tool_use("pytest", world.busy))[:50])
        process.stdin.flush()
        stdout, stderr = _wait_open(process)
    done = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    assert_failed_open(done, "did not end before the deadline")


def _hook_on_a_pipe(
    env: dict[str, str], *, nonblocking: bool = False, block_alarm: bool = False
) -> tuple[subprocess.Popen[bytes], int]:
    """A hook process reading a pipe this test writes: the process and the pipe's write end.

    ``nonblocking``: the read end is non-blocking, as a parent may hand it down.
    ``block_alarm``: the hook starts with SIGALRM blocked (a signal mask is inherited).
    """
    import signal

    read_end, write_end = os.pipe()
    if nonblocking:
        os.set_blocking(read_end, False)

    def blocked() -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})

    process = subprocess.Popen(
        [*RUNCTX, "hook", "claude"],
        stdin=read_end,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        preexec_fn=blocked if block_alarm else None,  # noqa: PLW1509 - the mask is the test
    )
    os.close(read_end)
    return process, write_end


def test_a_non_blocking_stdin_is_waited_on_not_refused(world):
    """A stdin handed down non-blocking, its payload written late: the hook answers as usual."""
    process, write_end = _hook_on_a_pipe(hook_env(), nonblocking=True)
    with process:
        time.sleep(1.0)  # the hook's first read finds nothing yet
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(json.dumps(claude_pre_tool_use("git status", world.busy)).encode())
        stdout, stderr = process.communicate(timeout=HANG_GUARD)
    assert (process.returncode, stdout, stderr) == (0, b"", b"")


def test_a_hook_started_with_sigalrm_blocked_still_fails_open_at_the_deadline(world):
    """An inherited signal mask that blocks SIGALRM cannot hang the hook on an open stdin."""
    process, write_end = _hook_on_a_pipe(hook_env(RUNCTX_HOOK_DEADLINE="0.5"), block_alarm=True)
    with process, os.fdopen(write_end, "wb") as pipe:
        pipe.write(json.dumps(claude_pre_tool_use("pytest", world.busy)).encode()[:40])
        pipe.flush()
        stdout, stderr = process.communicate(timeout=HANG_GUARD)  # the pipe is still open
    done = subprocess.CompletedProcess(
        process.args, process.returncode, stdout.decode(), stderr.decode()
    )
    assert_failed_open(done, "did not end before the deadline")


def test_too_much_input_from_a_writer_that_stays_open_says_it_is_too_much(world):
    """Past the size limit, a drain cut by the deadline still names the size as the fault."""
    process, write_end = _hook_on_a_pipe(hook_env(RUNCTX_HOOK_DEADLINE="2"))
    with process, os.fdopen(write_end, "wb") as pipe:
        payload = json.dumps(claude_pre_tool_use("pytest " + "x" * 2_000_000, world.busy))
        pipe.write(payload.encode())
        pipe.flush()
        stdout, stderr = process.communicate(timeout=HANG_GUARD)  # the pipe is still open
    done = subprocess.CompletedProcess(
        process.args, process.returncode, stdout.decode(), stderr.decode()
    )
    assert_failed_open(done, "larger than 1048576 bytes")


def _wait_open(process: subprocess.Popen[str]) -> tuple[str, str]:
    """Wait for the process while its stdin stays open; return stdout and stderr."""
    assert process.stdout is not None
    assert process.stderr is not None
    process.wait(timeout=30)
    return process.stdout.read(), process.stderr.read()


def test_a_scan_past_the_deadline_fails_open(world):
    """A decision that cannot be made in time lets the command through."""
    env = hook_env(RUNCTX_HOOK_DEADLINE="0.001")
    done = run_hook("claude", claude_pre_tool_use("pytest", world.busy), env=env)
    assert_failed_open(done, "deadline")


def test_an_unknown_face_fails_open(world):
    """A typo in the hook's configuration never blocks: exit 0, one stderr line naming it."""
    done = run_hook("claud", claude_pre_tool_use("pytest", world.busy))
    assert done.returncode == 0
    assert done.stdout == ""  # no face, so no protocol to answer in: stderr alone says it
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("runctx: hook failed open: unknown hook 'claud': this hook is")


def run_on_a_terminal(*argv: str) -> tuple[int, str]:
    """``runctx hook ARGV`` with a terminal for stdin, as a person runs it: status, stderr."""
    controller, terminal = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "runctx", "hook", *argv],
            stdin=terminal,
            capture_output=True,
            text=True,
            env=hook_env(),
            check=False,
            timeout=HANG_GUARD,
        )
    finally:
        os.close(terminal)
        os.close(controller)
    assert done.stdout == ""
    return done.returncode, done.stderr


@pytest.mark.parametrize("argv", [("claud",), ("claude", "extra"), ()])
def test_a_misconfigured_hook_run_by_hand_exits_2(argv):
    """On a terminal a hook that cannot work says so and exits 2, so a typo is seen at once."""
    status, stderr = run_on_a_terminal(*argv)
    assert status == 2
    assert stderr.startswith("runctx hook: error: unknown hook")
    assert "misconfigured" in stderr
    assert "usage: runctx hook FACE" in stderr


def test_a_hook_run_by_hand_without_a_payload_says_what_it_reads():
    """On a terminal a known face does not wait for a payload: it says what it reads, exit 2."""
    status, stderr = run_on_a_terminal("claude")
    assert status == 2
    assert "reads the JSON payload an agent sends on stdin" in stderr


def test_the_non_test_path_imports_nothing_heavy(world):
    """A non-test command loads neither attrs, structlog, psutil, the scan nor argparse."""
    done = run_hook(
        "claude", claude_pre_tool_use("git diff", world.busy), python_args=("-X", "importtime")
    )
    assert done.returncode == 0
    assert done.stdout == ""
    imported = set(re.findall(r"\|\s+([\w.]+)\s*$", done.stderr, flags=re.MULTILINE))
    assert "runctx.fastpath.prefilter" in imported
    assert "runctx.hooks.agents.claude" in imported
    assert "runctx.shell.commands" not in imported, (
        "the shell parser loaded for a command naming no runner"
    )
    for name in (*FORBIDDEN_ON_THE_FAST_PATH, *LOADED_AFTER_STARTUP):
        assert name not in imported, f"{name} is imported on the non-test path"
    # No runner configured: the pre-filter's literal names; no settings file parsed.
    assert "runctx.settings" not in imported


@pytest.mark.parametrize(("build", "parsed"), [("tsc -p .", False), ("jest --ci", True)])
def test_npm_scripts_that_run_no_runner_are_answered_before_the_parser(shared_tmp, build, parsed):
    """``npm run build`` whose script names no runner is answered without the shell parser."""
    checkout = make_checkout(shared_tmp, "scripts")
    (checkout / "package.json").write_text(json.dumps({"scripts": {"build": build}}))
    done = run_hook(
        "claude",
        claude_pre_tool_use("npm run build", checkout),
        python_args=("-X", "importtime"),
    )
    assert done.returncode == 0
    imported = set(re.findall(r"\|\s+([\w.]+)\s*$", done.stderr, flags=re.MULTILINE))
    assert ("runctx.shell.commands" in imported) == parsed
    if not parsed:
        assert done.stdout == ""
        assert "attrs" not in imported


def test_npm_scripts_naming_a_runner_the_checkout_adds_go_to_the_parser(shared_tmp):
    """``npm run build`` whose script runs a runner only the settings name: read properly.

    The fast path knows the builtin names alone; with a settings file it
    leaves ``npm run`` to the parser, which reads the added runner.
    """
    checkout = make_checkout(shared_tmp, "added")
    (checkout / "pyproject.toml").write_text(
        '[tool.runctx]\nrunners = [{ kind = "e2e", program = "run-e2e" }]\n'
    )
    (checkout / "package.json").write_text(json.dumps({"scripts": {"build": "run-e2e"}}))
    done = run_hook(
        "claude",
        claude_pre_tool_use("npm run build", checkout),
        python_args=("-X", "importtime"),
    )
    assert done.returncode == 0, done.stderr
    imported = set(re.findall(r"\|\s+([\w.]+)\s*$", done.stderr, flags=re.MULTILINE))
    assert "runctx.shell.commands" in imported


@pytest.mark.parametrize(
    "pyproject",
    [
        # a project that only names runctx: nothing to parse
        (
            '[project]\nname = "x"\ndependencies = ["runctx"]\n'
            '[project.entry-points.pytest11]\nrunctx = "runctx.pytest_plugin"\n'
        ),
        # a project that configures runctx: its settings are parsed, nothing is scanned
        '[tool.runctx]\nrunners = [{ kind = "e2e", program = "run-e2e" }]\n',
        # a project that has nothing to do with runctx
        '[project]\nname = "x"\n',
    ],
)
def test_the_non_test_path_stays_light_in_a_checkout_that_names_runctx(shared_tmp, pyproject):
    """A pyproject naming runctx adds no heavy import; one configuring it is parsed, not scanned."""
    checkout = make_checkout(shared_tmp, "configured")
    (checkout / "pyproject.toml").write_text(pyproject)
    done = run_hook(
        "claude", claude_pre_tool_use("git diff", checkout), python_args=("-X", "importtime")
    )
    assert done.returncode == 0
    assert done.stdout == ""
    imported = set(re.findall(r"\|\s+([\w.]+)\s*$", done.stderr, flags=re.MULTILINE))
    configured = "tool.runctx" in pyproject
    assert ("runctx.settings" in imported) == configured
    assert {"runctx.checkout", "runctx.planted"} <= imported  # the walk and the bounded read
    never = {"structlog", "psutil", "runctx.scanning", "runctx.policy", "argparse"}
    forbidden = never if configured else {*FORBIDDEN_ON_THE_FAST_PATH, *LOADED_AFTER_STARTUP}
    for name in forbidden:
        assert name not in imported, f"{name} is imported on the non-test path"


# -- what another user can plant, and a cwd no path can be -------------------------------


@pytest.mark.parametrize("command", ["ls", "pytest -x"])
def test_the_hook_answers_next_to_a_planted_fifo(planted_fifo, command):
    """The hook neither hangs nor fails on a FIFO pyproject.toml above the cwd."""
    done = run_hook("claude", claude_pre_tool_use(command, planted_fifo))
    assert done.returncode == 0
    assert "failed open" not in done.stderr, done.stderr
    if done.stdout:
        json.loads(done.stdout)


def test_a_cwd_of_half_a_million_components_is_answered_at_once(shared_tmp, runs):
    """A payload cwd far longer than PATH_MAX is unknown at once: the hook answers, exit 0."""
    runs.run_tests_script(make_checkout(shared_tmp))  # a run of this user to speak of
    done = run_hook("claude", claude_pre_tool_use("pytest -x", "/" + "a/" * 520_000))
    assert done.returncode == 0
    assert "failed open" not in done.stderr, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "PATH_MAX" in context


def test_a_commit_whose_hook_runs_the_tests_is_refused_beside_a_live_run(shared_tmp, runs):
    """``git commit`` with a pre-commit hook running pytest: refused, and the reason says why.

    ``--no-verify`` runs no hook, and ``git status`` none: both go ahead in silence.
    """
    checkout = make_checkout(shared_tmp)
    hook = checkout / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nset -e\npytest -q\n")
    hook.chmod(0o755)
    runs.run_tests_script(checkout)
    done = run_hook("claude", claude_pre_tool_use("git commit -am 'fix: typo'", checkout))
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    reason = output["permissionDecisionReason"].splitlines()
    assert reason[:2] == [
        "runctx: refused to start this test run.",
        "`git commit` runs this checkout's commit hooks, and they start its tests.",
    ]
    for command in ("git commit --no-verify -m x", "git status"):
        done = run_hook("claude", claude_pre_tool_use(command, checkout))
        assert (done.returncode, done.stdout) == (0, ""), done.stderr


def test_a_cwd_too_deep_for_a_non_test_command_is_silent():
    """The same cwd with ``ls`` costs nothing and says nothing."""
    done = run_hook("claude", claude_pre_tool_use("ls", "/" + "a/" * 520_000))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


SLOW_WALK = """
import sys, time
import runctx.fastpath.hook as hook

def slow_walk(cwd):
    time.sleep(600)  # a walk up a tree that never ends
    return cwd

hook.find_root = slow_walk
sys.exit(hook.main(["claude"]))
"""


def test_the_deadline_covers_the_walk_to_the_checkout_root(tmp_path):
    """A walk that never ends is cut by the hook's deadline: exit 0, failed open."""
    done = subprocess.run(
        [sys.executable, "-c", SLOW_WALK],
        input=json.dumps(claude_pre_tool_use("ls", tmp_path)),
        capture_output=True,
        text=True,
        env=hook_env(RUNCTX_HOOK_DEADLINE="0.5"),
        timeout=HANG_GUARD,
        check=False,
    )
    assert done.returncode == 0
    assert_told_the_agent(done.stdout, "no decision within the deadline")
    assert done.stderr.startswith("runctx: hook failed open: no decision within the deadline")


def test_the_answer_done_apart_comes_back_whole(capfd):
    """A scan run in a child: its reply, its silence, its failure and its stderr come back.

    A reply (with a character no encoding can carry, as a lone surrogate),
    no reply, and a failure (the words the hook fails open with) each reach
    the hook as if done in its own process, and what the child wrote to
    stderr is written on. (A child that never answers: the held-read test of
    ``test_hostile_shapes.py``.)
    """
    from runctx.fastpath import hook

    def loud() -> str:
        os.write(2, b"said by the child\n")
        return "reply \udcff"

    def broken() -> str:
        key = "k"
        raise KeyError(key)

    assert hook.in_child(time.monotonic() + 60, loud) == "reply \udcff"
    assert "said by the child" in capfd.readouterr().err
    assert hook.in_child(time.monotonic() + 60, lambda: None) is None
    with pytest.raises(hook.HookError, match=r"^KeyError: 'k'$"):
        hook.in_child(time.monotonic() + 60, broken)


@pytest.mark.parametrize("may_stop", [True, False])
def test_the_answer_is_done_apart_only_where_a_file_system_may_stop_answering(
    monkeypatch, may_stop
):
    """A child does the work where a read may never end (a network file system, FUSE).

    Elsewhere the work runs in the hook's own process, under its timer: the
    work sees the hook's own pid there, and another one in a child.
    """
    from runctx import looking
    from runctx.fastpath import hook

    monkeypatch.setattr(looking, "may_stop_answering", lambda: may_stop)
    here = os.getpid()
    done_by = hook.apart(time.monotonic() + 60, lambda: str(os.getpid()))
    assert (done_by != str(here)) is may_stop, done_by


@pytest.mark.needs_root
def test_the_hook_without_procfs_fails_open_in_one_line(tmp_path):
    """A hook with no /proc lets the command through and says why on stderr."""
    payload = claude_pre_tool_use("pytest", tmp_path)
    done = without_proc(sys.executable, "-m", "runctx", "hook", "claude", stdin=json.dumps(payload))
    assert done.returncode == 0
    assert_told_the_agent(done.stdout, "no procfs is mounted at /proc")
    assert "hook failed open" in done.stderr
    assert "no procfs is mounted at /proc" in done.stderr


# -- a reply that cannot be written ------------------------------------------------------


def _closed_pipe() -> int:
    """The write end of a pipe whose reader is already gone."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    return write_end


def _hook_writing_to(stdout, cwd, **kwargs) -> subprocess.CompletedProcess[bytes]:
    """``runctx hook claude`` for a test command in ``cwd``, its stdout as given."""
    return subprocess.run(
        [sys.executable, "-m", "runctx", "hook", "claude"],
        input=json.dumps(claude_pre_tool_use("python3 run_tests.py", cwd)).encode(),
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=hook_env(),
        timeout=HANG_GUARD,
        check=False,
        **kwargs,
    )


def test_the_hook_exits_0_with_stdout_closed(world):
    """With stdout closed the hook exits 0 and says in one line that its reply was lost."""
    done = _hook_writing_to(subprocess.DEVNULL, world.idle, preexec_fn=lambda: os.close(1))
    assert done.returncode == 0
    assert done.stderr.decode().splitlines() == [
        "runctx: hook failed open: cannot write the reply to stdout: Bad file descriptor"
    ]


@pytest.mark.parametrize("target", ["/dev/full", "pipe"])
def test_the_hook_exits_0_when_its_reply_cannot_be_written(world, target):
    """A full stdout or a reader that went away still gives exit 0 and one line on stderr."""
    if target == "pipe":
        write_end = _closed_pipe()
        try:
            done = _hook_writing_to(write_end, world.idle)
        finally:
            os.close(write_end)
    else:
        with open(target, "wb") as full:
            done = _hook_writing_to(full, world.idle)
    assert done.returncode == 0
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("runctx: hook failed open: cannot write the reply to stdout: ")


# -- environments: a run's environment, and commands that change one ----------------------


@pytest.fixture(scope="module")
def worktrees(tmp_path_factory):
    """Worktrees ``a`` and ``b`` of one repository, one venv, ``a`` installed into it editable."""
    base = tmp_path_factory.mktemp("hook-envs")
    base.chmod(0o755)
    return shared_worktrees(base)


def venv_env(venv, **extra: str) -> dict[str, str]:
    """The hook's environment as an agent's shell with the venv first on ``PATH`` has it."""
    return hook_env(PATH=f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", **extra)


def reply_context(done: subprocess.CompletedProcess[str]) -> str:
    """The context a Claude Code reply gives the model."""
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]


def test_the_hook_warns_before_pip_install_e_repoints_a_live_runs_environment(worktrees, runs):
    """``pip install -e .`` in ``b`` while ``a``'s run imports from the venv: a warning names it."""
    run = live_run(runs, worktrees.a, worktrees.venv)
    done = run_hook(
        "claude",
        claude_pre_tool_use("pip install -e .", worktrees.b),
        env=venv_env(worktrees.venv),
    )
    context = reply_context(done)
    assert context.startswith("runctx: warning only, running anyway: this command changes")
    assert f"changes {worktrees.venv} (a venv), which the live test run imports from" in context
    assert f"pid {run.pid} (pytest, " in context
    assert f"in {worktrees.a})" in context


@pytest.mark.parametrize(
    "command",
    [
        "source {venv}/bin/activate && pip install -e .",
        ". {venv}/bin/activate; python -m pip install -e .",
    ],
)
def test_an_install_after_activating_the_venv_is_warned_of(worktrees, runs, command):
    """``source VENV/bin/activate && pip install -e .``: the venv it activates is the one changed.

    The hook's own ``PATH`` does not hold the venv, as in an agent whose
    commands activate it themselves.
    """
    run = live_run(runs, worktrees.a, worktrees.venv)
    done = run_hook(
        "claude",
        claude_pre_tool_use(command.format(venv=worktrees.venv), worktrees.b),
        env=hook_env(),
    )
    context = reply_context(done)
    assert f"changes {worktrees.venv} (a venv), which the live test run imports from" in context
    assert f"pid {run.pid} (pytest, " in context


def test_a_test_run_after_activating_the_venv_is_warned_of_its_sharing(worktrees, runs):
    """``source VENV/bin/activate && python -m pytest`` in ``b``: warned of ``a``'s run on it."""
    run = live_run(runs, worktrees.a, worktrees.venv)
    done = run_hook(
        "claude",
        claude_pre_tool_use(
            f"source {worktrees.venv}/bin/activate && python -m pytest -q", worktrees.b
        ),
        env=hook_env(),
    )
    context = reply_context(done)
    # a busy foreign run on the box shares the note's 300 characters and may cut its end
    assert f"another checkout (pid {run.pid}) imports from this command's environment" in context


@pytest.mark.parametrize(
    ("setting", "decision"), [("stop", "deny"), ("ask", "ask"), ("warn", None)]
)
def test_on_environment_change_decides_what_the_hook_does(worktrees, runs, setting, decision):
    """``on-environment-change`` in ``b``'s ``[tool.runctx]``: deny, ask or a warning."""
    live_run(runs, worktrees.a, worktrees.venv)
    pyproject = worktrees.b / "pyproject.toml"
    before = pyproject.read_text()
    pyproject.write_text(f'{before}\n[tool.runctx]\non-environment-change = "{setting}"\n')
    try:
        done = run_hook(
            "claude",
            claude_pre_tool_use("python -m pip install -e .", worktrees.b),
            env=venv_env(worktrees.venv),
        )
    finally:
        pyproject.write_text(before)
    output = json.loads(done.stdout)["hookSpecificOutput"]
    assert output.get("permissionDecision") == decision
    text = output.get("permissionDecisionReason") or output["additionalContext"]
    assert f"changes {worktrees.venv}" in text


def test_the_environment_setting_overrides_the_file(worktrees, runs):
    """``RUNCTX_ON_ENVIRONMENT_CHANGE=stop`` denies ``uv pip install`` into the active venv."""
    live_run(runs, worktrees.a, worktrees.venv)
    done = run_hook(
        "claude",
        claude_pre_tool_use("uv pip install -e .", worktrees.b),
        env=venv_env(
            worktrees.venv,
            VIRTUAL_ENV=str(worktrees.venv),
            RUNCTX_ON_ENVIRONMENT_CHANGE="stop",
        ),
    )
    output = json.loads(done.stdout)["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert "refused to run this command" in output["permissionDecisionReason"]


def test_an_install_into_an_environment_no_run_uses_is_silent(worktrees, runs, tmp_path):
    """``pip install -e .`` into a venv of its own, next to the live run: nothing to say."""
    live_run(runs, worktrees.a, worktrees.venv)
    own = make_venv(tmp_path / "own")
    done = run_hook(
        "claude", claude_pre_tool_use("pip install -e .", worktrees.b), env=venv_env(own)
    )
    assert (done.returncode, done.stdout) == (0, ""), done.stderr


def test_a_test_run_in_b_is_warned_of_the_run_of_a_on_its_environment(worktrees, runs, tmp_path):
    """``python -m pytest`` in ``b`` on the venv ``a``'s run imports from: warned, it goes ahead.

    Under the user's settings no run is busy and no box is: the note on the
    shared environment does not share its 300 characters with a note on the
    runs that happen to keep a shared box busy.
    """
    quiet = tmp_path / "config.toml"
    quiet.write_text("busy-run-cpu = 4096\n" + QUIET_BOX.replace("\n[tool.runctx]\n", ""))
    run = live_run(runs, worktrees.a, worktrees.venv)
    done = run_hook(
        "claude",
        claude_pre_tool_use("python -m pytest -x tests", worktrees.b),
        env=venv_env(worktrees.venv, RUNCTX_CONFIG=str(quiet)),
    )
    context = reply_context(done)
    # a busy foreign run on the box shares the note's 300 characters and may cut its end
    assert f"another checkout (pid {run.pid}) imports from this command's environment" in context
    assert "permissionDecision" not in done.stdout


@pytest.mark.parametrize(
    ("name", "text", "command"),
    [
        ("Makefile", "build:\n\techo built\ninstall: build\n\tpip install -e .\n", "make install"),
        ("package.json", '{"scripts": {"setup": "pip install -e ."}}', "npm run setup"),
        ("justfile", "bootstrap:\n    python -m pip install -e .\n", "just bootstrap"),
        ("Taskfile.yml", "tasks:\n  deps:\n    cmds:\n      - pip install -e .\n", "task deps"),
        ("hatch.toml", '[envs.default.scripts]\nsetup = "pip install -e ."\n', "hatch run setup"),
    ],
    ids=["make", "npm", "just", "task", "hatch"],
)
def test_an_install_run_by_a_task_runner_is_warned_of(worktrees, runs, name, text, command):
    """A task in ``b``'s own file whose text runs ``pip install -e .``: warned as the install is."""
    run = live_run(runs, worktrees.a, worktrees.venv)
    task_file = worktrees.b / name
    task_file.write_text(text)
    try:
        done = run_hook(
            "claude", claude_pre_tool_use(command, worktrees.b), env=venv_env(worktrees.venv)
        )
    finally:
        task_file.unlink()
    context = reply_context(done)
    assert context.startswith("runctx: warning only, running anyway: this command changes")
    assert f"changes {worktrees.venv} (a venv), which the live test run imports from" in context
    assert f"pid {run.pid} (pytest, " in context


def test_a_task_is_a_change_where_it_runs_and_only_when_its_text_installs(worktrees, runs):
    """``make -C b install`` from the parent warns; ``make -C b build`` of that file does not."""
    run = live_run(runs, worktrees.a, worktrees.venv)
    makefile = worktrees.b / "Makefile"
    makefile.write_text("build:\n\techo built\ninstall:\n\tcd . && uv pip install -e .\n")
    try:
        answers = {
            target: run_hook(
                "claude",
                claude_pre_tool_use(f"make -C {worktrees.b.name} {target}", worktrees.base),
                env=venv_env(worktrees.venv, VIRTUAL_ENV=str(worktrees.venv)),
            )
            for target in ("install", "build")
        }
    finally:
        makefile.unlink()
    assert f"changes {worktrees.venv} (a venv)" in reply_context(answers["install"])
    assert f"pid {run.pid} (pytest, " in reply_context(answers["install"])
    assert (answers["build"].returncode, answers["build"].stdout) == (0, ""), answers["build"]


def test_a_command_that_names_a_tool_but_changes_nothing_stays_off_the_scan(worktrees):
    """``pip list`` reads the command with the shell parser, but never scans ``/proc``."""
    stdout, opened, modules = _audited("pip list && uv lock", worktrees.b)
    assert stdout == ""
    assert "runctx.runners.installers" in modules
    assert not {"runctx.scanning", "runctx.policy", "runctx.environment"} & set(modules)
    scanned = [path for path in opened if path.startswith("/proc/") and path[6:7].isdigit()]
    assert scanned == [], scanned


def test_a_command_that_names_no_tool_loads_no_installer_table(world):
    """``git diff`` never loads the table of commands that change an environment."""
    done = run_hook(
        "claude", claude_pre_tool_use("git diff", world.busy), python_args=("-X", "importtime")
    )
    imported = set(re.findall(r"\|\s+([\w.]+)\s*$", done.stderr, flags=re.MULTILINE))
    assert "runctx.runners.installers" not in imported
    assert "runctx.environment" not in imported


# -- busy now: what a test command next to foreign runs costs an agent -----------------

QUIET_BOX = (
    "\n[tool.runctx]\n"
    "busy-box-cpu-pressure = false\n"
    "busy-box-load-per-cpu = false\n"
    "busy-box-memory-available = false\n"
)
"""Settings under which the box never counts as busy, whatever else runs on it."""

ALWAYS_BUSY_BOX = (
    "\n[tool.runctx]\n"
    "busy-box-memory-available = 100\n"  # less than all of it is always available
    "busy-box-cpu-pressure = false\n"
    "busy-box-load-per-cpu = false\n"
)
"""Settings under which the box always counts as busy (memory), and only for that."""


def with_settings(checkout, text: str):
    """Append ``text`` (a ``[tool.runctx]`` table) to the checkout's pyproject.toml."""
    with (checkout / "pyproject.toml").open("a") as pyproject:
        pyproject.write(text)
    return checkout


def context_of(answer: dict[str, object]) -> str:
    """The additionalContext of a Claude Code answer the sandbox recorded."""
    assert answer["code"] == 0, answer
    return json.loads(answer["stdout"])["hookSpecificOutput"]["additionalContext"]


@pytest.mark.needs_root  # a pid namespace with its own /proc
def test_an_idle_foreign_run_costs_an_agent_no_words_on_a_quiet_box(shared_tmp, runs):
    """The hook's answer to a test command next to an idle foreign run is silence.

    The foreign run uses the base interpreter, not the suite's environment: a
    run of another checkout on the test command's own environment is worth a
    warning of its own (tests/test_policy.py), idle or not.
    """
    here = with_settings(make_checkout(shared_tmp, "mine"), QUIET_BOX)
    theirs = make_checkout(shared_tmp / "other", "mine")
    base = os.path.join(sys.base_prefix, "bin", "python3")
    started = [sandboxed_run(theirs, python=base)]
    found = hook_in_own_pid_namespace(
        runs, started, claude_pre_tool_use("pytest -x", here), cwd=here
    )
    (answer,) = found["replies"]
    assert (answer["code"], answer["stdout"], answer["stderr"]) == (0, "", "")


FOREIGN_NOTE_BUSY = 'foreign-note = "busy"\n'
"""A note on every busy foreign run, whatever the CPUs the command will use."""


@pytest.mark.needs_root
def test_idle_foreign_runs_on_a_busy_box_are_only_counted(shared_tmp, runs):
    """On a busy box the note says so, counts the idle foreign runs, and names none of them."""
    # foreign-note = "busy": a note whatever the command will use (the default weighs it)
    here = with_settings(make_checkout(shared_tmp, "mine"), ALWAYS_BUSY_BOX + FOREIGN_NOTE_BUSY)
    base = os.path.join(sys.base_prefix, "bin", "python3")  # not the command's environment
    started = [
        sandboxed_run(make_checkout(shared_tmp / f"o{n}", "mine"), python=base) for n in range(3)
    ]
    found = hook_in_own_pid_namespace(
        runs, started, claude_pre_tool_use("pytest -x", here), cwd=here
    )
    context = context_of(found["replies"][0])
    assert len(context) <= NOTE_MAX_CHARS
    assert "Box busy: memory available" in context
    assert "+3 idle foreign test runs." in context
    assert not any(f"pid {pid} " in context for pid in found["pids"])


@pytest.mark.needs_root
def test_a_cpu_busy_foreign_run_is_named_with_its_cpu_use_now(shared_tmp, runs):
    """Next to a spinning foreign run, the hook's note names it and the CPUs it keeps busy."""
    settings = QUIET_BOX + "busy-run-cpu = 0.01\n" + FOREIGN_NOTE_BUSY
    here = with_settings(make_checkout(shared_tmp, "mine"), settings)
    theirs = make_checkout(shared_tmp / "other", "mine")
    found = hook_in_own_pid_namespace(
        runs,
        [sandboxed_run(theirs, spinning=True)],
        claude_pre_tool_use("pytest -x", here),
        cwd=here,
        until="pid {0} (",
        tries=50,
    )
    (pid,) = found["pids"]
    context = context_of(found["replies"][-1])
    assert f"pid {pid} (run-tests-script, " in context
    assert re.search(rf"pid {pid} \([^)]*\): \d+\.\d CPUs busy now", context), context
    assert "not this checkout's" in context
    assert len(context) <= NOTE_MAX_CHARS


@pytest.mark.needs_root
def test_a_busy_box_warns_only_when_set_to_and_is_silent_by_default(shared_tmp, runs):
    """With no other run, a busy box is a note under on-busy-box = "warn", and nothing when off."""
    warned = with_settings(make_checkout(shared_tmp, "warned"), ALWAYS_BUSY_BOX)
    with_settings(warned, 'on-busy-box = "warn"\n')
    found = hook_in_own_pid_namespace(
        runs, [], claude_pre_tool_use("pytest -x", warned), cwd=warned
    )
    context = context_of(found["replies"][0])
    assert context.startswith("runctx: Box busy: memory available ")
    assert len(context) <= NOTE_MAX_CHARS
    off = with_settings(make_checkout(shared_tmp, "off"), ALWAYS_BUSY_BOX)
    found = hook_in_own_pid_namespace(runs, [], claude_pre_tool_use("pytest -x", off), cwd=off)
    assert found["replies"][0]["stdout"] == ""


def test_a_busy_box_that_waits_makes_the_hook_refuse_and_say_how_to_wait(shared_tmp):
    """on-busy-box = "wait" on a busy box: the hook denies and points at runctx run --wait."""
    here = with_settings(make_checkout(shared_tmp), ALWAYS_BUSY_BOX + 'on-busy-box = "wait"\n')
    done = run_hook("claude", claude_pre_tool_use("pytest -x", here))
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    reason = output["permissionDecisionReason"]
    assert reason.startswith("runctx: refused to start this test run. The box is busy (memory")
    assert "`runctx run --wait -- COMMAND`" in reason


def test_a_task_not_known_to_run_tests_is_not_held_for_a_busy_box(shared_tmp):
    """A task runctx could not read (a Makefile past its read bound) never waits for room.

    ``make test`` is a run by its name: refused on a busy box set to wait.
    ``make ci`` only may be one: with no run of the checkout live, nothing is
    said of the box, and it goes ahead in silence.
    """
    here = with_settings(make_checkout(shared_tmp), ALWAYS_BUSY_BOX + 'on-busy-box = "wait"\n')
    padding = "".join(f"t{n}:\n\techo {n}\n" for n in range(MAX_PROJECT_FILE_BYTES // 8))
    (here / "Makefile").write_text("ci:\n\t@echo ci\ntest:\n\t@echo test\n" + padding)
    held = json.loads(run_hook("claude", claude_pre_tool_use("make test", here)).stdout)
    assert held["hookSpecificOutput"]["permissionDecision"] == "deny"
    done = run_hook("claude", claude_pre_tool_use("make ci", here))
    assert (done.returncode, done.stdout) == (0, ""), done.stderr


def test_a_note_next_to_foreign_runs_never_exceeds_its_cap(world):
    """Whatever else the box runs, a note to an agent is at most NOTE_MAX_CHARS characters."""
    done = run_hook("claude", claude_pre_tool_use("pytest -x", world.idle))
    assert done.returncode == 0, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "foreign test run" in context
    assert len(context) <= NOTE_MAX_CHARS


# -- the non-test path reads no task runner's file -----------------------------------------
# Only the command string and the checkout's runctx settings decide it: no
# package.json, makefile, justfile or Taskfile is opened, and the runner table is
# not even built. A command that names a task runner reads the one file it needs,
# without blocking. Checked with an audit hook in a real hook process.

PROBE = """
import json, os, sys, tempfile
# One line a file, written as it is opened: the hook's scan runs in a child it forks.
log = tempfile.TemporaryFile()
note = lambda text: os.write(log.fileno(), (text + "\\n").encode("utf-8", "surrogateescape"))
sys.addaudithook(lambda event, args: note(str(args[0])) if event == "open" else None)
from runctx.fastpath.hook import main
main(["claude"])
log.seek(0)
opened = log.read().decode("utf-8", "surrogateescape").splitlines()
sys.stderr.write("\\nAUDIT " + json.dumps({"opened": opened, "modules": sorted(sys.modules)}))
"""
PROJECT_FILES = ("package.json", "Makefile", "justfile", "Taskfile.yml", "hatch.toml")


def _audited(command, cwd):
    payload = json.dumps(claude_pre_tool_use(command, cwd)).encode()
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        input=payload,
        capture_output=True,
        env=hook_env(),
        check=True,
    )
    report = json.loads(done.stderr.decode().rpartition("\nAUDIT ")[2])
    return done.stdout.decode(), report["opened"], report["modules"]


@pytest.fixture
def project(shared_tmp):
    """A checkout holding every kind of task runner's file, each naming a runner."""
    checkout = make_checkout(shared_tmp)
    (checkout / "package.json").write_text('{"scripts": {"unit": "jest"}}')
    (checkout / "Makefile").write_text("ci:\n\tpytest\n")
    (checkout / "justfile").write_text("ci:\n    pytest\n")
    (checkout / "Taskfile.yml").write_text("tasks:\n  ci:\n    cmds:\n      - pytest\n")
    (checkout / "hatch.toml").write_text('[envs.default.scripts]\nci = "pytest"\n')
    return checkout


@pytest.mark.parametrize(
    "command", ["git status && ls -la", "cat package.json", "grep -rn ci Makefile"]
)
def test_a_command_that_is_no_test_run_opens_no_project_file(project, command):
    """Not a test run: nothing printed, no project file opened, no runner table built."""
    out, opened, modules = _audited(command, project)
    assert out == ""
    touched = [path for path in opened if path.rpartition("/")[2] in PROJECT_FILES]
    assert touched == []
    assert "runctx.runners.table" not in modules
    assert "runctx.shell.commands" not in modules


def test_a_task_runner_opens_only_the_file_it_needs(project):
    """``npm run unit`` reads package.json, and no other task runner's file."""
    _out, opened, modules = _audited("npm run unit", project)
    touched = {path.rpartition("/")[2] for path in opened} & set(PROJECT_FILES)
    assert touched == {"package.json"}
    assert "runctx.runners.tasks.package_json" in modules


TASK_READER_MODULES = (
    "runctx.runners.tasks.makefile",
    "runctx.runners.tasks.justfile",
    "runctx.runners.tasks.taskfile",
    "runctx.runners.tasks.hatch",
    "runctx.runners.tasks.toml_tasks",
    "runctx.runners.tasks.compose_services",
)


@pytest.mark.parametrize(
    ("command", "loaded"),
    [("python -m pytest -q", None), ("make ci", "runctx.runners.tasks.makefile")],
    ids=["no-task", "make"],
)
def test_a_test_command_loads_only_the_task_reader_it_names(project, command, loaded):
    """A task runner's reader is loaded when a command names that runner, not for every test run.

    ``pytest`` loads none of them; ``make ci`` the Makefile's reader alone.
    """
    out, _opened, modules = _audited(command, project)
    assert "runctx.shell.commands" in modules, out  # the command was read as a test run
    assert [name for name in TASK_READER_MODULES if name in modules] == ([loaded] if loaded else [])


@pytest.mark.parametrize("name", ["package.json", "Makefile", "justfile", "Taskfile.yml"])
def test_a_fifo_in_place_of_a_task_file_never_holds_the_hook(shared_tmp, name):
    """``npm run unit``, ``make ci``, ``just ci``, ``task ci`` next to a FIFO: answered, no hang."""
    checkout = make_checkout(shared_tmp)
    os.mkfifo(checkout / name)
    command = {"package.json": "npm run unit", "Makefile": "make ci"}.get(name, "just ci")
    command = "task ci" if name == "Taskfile.yml" else command
    done = subprocess.run(
        [sys.executable, "-m", "runctx", "hook", "claude"],
        input=json.dumps(claude_pre_tool_use(command, checkout)),
        capture_output=True,
        text=True,
        env=hook_env(),
        timeout=HANG_GUARD,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


MID_RUN = """
import os, pathlib, subprocess, sys, time

def test_1_holds_until_told():
    pathlib.Path(os.environ["RUNCTX_HELD"]).touch()
    while not pathlib.Path(os.environ["RUNCTX_GO"]).exists():
        time.sleep(0.05)

def test_2_a_fresh_interpreter_imports_the_package():
    code = "import pkg; print(pkg.where())"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    pathlib.Path(os.environ["RUNCTX_DONE"]).write_text(found.stdout + found.stderr)
"""


def test_the_install_the_hook_warned_of_repoints_the_live_runs_imports(tmp_path, runs):
    """The field case: the hook warns of ``pip install -e .`` in ``b`` next to ``a``'s run.

    Once the install runs anyway, ``a``'s live session imports ``b``'s code in
    its next interpreter (a CLI test, a worker started late): the warning
    was about a real change.
    """
    tmp_path.chmod(0o755)
    shared = shared_worktrees(tmp_path)
    (shared.a / "tests" / "test_mid_run.py").write_text(MID_RUN)
    held, go, done_file = tmp_path / "held", tmp_path / "go", tmp_path / "done"
    env = {k: v for k, v in hook_env().items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(RUNCTX_HELD=str(held), RUNCTX_GO=str(go), RUNCTX_DONE=str(done_file))
    python = str(shared.venv / "bin" / "python")
    argv = [python, "-m", "pytest", "-q", "-p", "no:runctx", "-p", "no:cacheprovider"]
    session = runs.orphan([*argv, "tests/test_mid_run.py"], shared.a, env=env, ready=held)
    done = run_hook(
        "claude", claude_pre_tool_use("pip install -e .", shared.b), env=venv_env(shared.venv)
    )
    context = reply_context(done)
    assert f"pid {session.pid} (pytest, " in context
    assert f"in {shared.a})" in context
    pip_install(shared.venv, "-e", str(shared.b))  # what the agent would have run anyway
    go.touch()
    wait_for(done_file.exists, what="the held session to import the package again")
    assert done_file.read_text().strip() == str(shared.b / "src" / "pkg" / "__init__.py")


# -- decide first: the refusal with the whole budget, the optional pass in what is left -------


def test_the_optional_pass_is_dropped_not_waited_for_when_no_time_is_left():
    """With only the reserve left, the optional work is not even started; with time, it runs."""
    import time

    from runctx.hooks.answer import OPTIONAL_RESERVE_SECONDS, optional

    called = []
    deadline = time.monotonic() + OPTIONAL_RESERVE_SECONDS
    assert optional(lambda: called.append(1) or "done", deadline, float("inf")) is None
    assert called == []
    assert optional(lambda: "done", time.monotonic() + 60, float("inf")) == "done"


def test_an_optional_pass_cut_by_its_timer_is_dropped():
    """Optional work still running at the reserve is cut by the timer, and None stands for it."""
    import time

    from runctx.hooks.answer import OPTIONAL_RESERVE_SECONDS, optional

    reserve = OPTIONAL_RESERVE_SECONDS

    def forever():
        while True:
            time.sleep(0.01)

    began = time.monotonic()
    assert optional(forever, time.monotonic() + reserve + 0.2, float("inf")) is None
    assert time.monotonic() - began < reserve + 0.2  # cut before the hook's own deadline


def test_the_optional_pass_ends_at_its_share_however_far_the_deadline_is():
    """A far deadline does not make the hook wait for optional work: its share ends it."""
    import time

    from runctx.hooks.answer import optional

    def forever():
        while True:
            time.sleep(0.01)

    far = time.monotonic() + 3600
    assert optional(forever, far, time.monotonic() + 0.2) is None
    called = []
    assert optional(lambda: called.append(1) or "done", far, time.monotonic() - 1) is None
    assert called == []  # past its share: not even started


def test_running_out_of_time_never_turns_a_refusal_into_a_go_ahead(world):
    """The first pass's refusal stands whether the second pass is dropped or less firm."""
    from runctx import policy
    from runctx.hooks.answer import decided as _decided
    from runctx.policy import Action
    from runctx.shell.commands import test_invocations

    invocations = test_invocations("pytest -x", str(world.busy))
    first = policy.decide(invocations, essentials_only=True)
    assert first.action is Action.STOP
    assert world.run.pid in {judged.run.pid for judged in first.ours}
    assert _decided(first, None, dropped=False) is first
    go_ahead = policy.Decision(Action.NOTE, message="runctx: a note")
    assert _decided(first, go_ahead, dropped=False) is first
    dropped = _decided(first, None, dropped=True)
    assert dropped.action is Action.STOP
    assert "was not checked" in dropped.message
    full = policy.decide(invocations)
    assert _decided(first, full, dropped=False) is full


def test_a_go_ahead_gives_its_optional_pass_more_time_than_a_refusal(world, monkeypatch):
    """The optional pass is a refusal's extra words, but a go-ahead's note on foreign load.

    Through the hook's own entry, in this process: the end its optional pass
    is given, after a real refusal (``busy``) and a real go-ahead (``idle``).
    """
    from runctx.fastpath import hook
    from runctx.hooks import answer

    monkeypatch.delenv(hook.DEADLINE_ENV, raising=False)
    ends: list[float] = []

    def given(_work, _deadline: float, end: float) -> None:
        ends.append(end)

    monkeypatch.setattr(answer, "optional", given)
    monkeypatch.setattr(hook, "apart", lambda _deadline, work: work())  # ``ends`` is in here
    seconds = hook.DEFAULT_DEADLINE_SECONDS
    began = time.monotonic()
    answered = []
    for checkout in (world.busy, world.idle):
        payload = json.dumps(claude_pre_tool_use("pytest -x", checkout)).encode()
        monkeypatch.setattr(hook, "read_input", lambda payload=payload: payload)
        hook._answer(["claude"], began)
        answered.append(time.monotonic())
    held_share = began + seconds * hook.OPTIONAL_SHARE
    # A hold's end: its share, or the grace after its first pass when that ended later.
    assert held_share <= ends[0]
    assert ends[0] <= max(held_share, answered[0] + answer.HOLD_GRACE_SECONDS)
    assert ends[1] == began + seconds * hook.GO_AHEAD_SHARE
    assert hook.OPTIONAL_SHARE < hook.GO_AHEAD_SHARE


def test_a_hold_decided_late_leaves_its_optional_pass_a_grace(world):
    """A first pass that ends past a hold's share of the deadline still leaves its pass time.

    On a loaded box the first pass alone can end seconds after the hook's
    start: the pass after a hold (a few reads per run in the way) then gets
    ``HOLD_GRACE_SECONDS`` from the first pass's end, so the refusal can
    still say who started the run in the way. A first pass that ends early
    keeps the share, and a go-ahead's end does not move.
    """
    from runctx import policy
    from runctx.hooks import answer
    from runctx.shell.commands import test_invocations

    def first_pass(checkout):
        return policy.decide(test_invocations("pytest -x", cwd=str(checkout)), essentials_only=True)

    held, ahead = first_pass(world.busy), first_pass(world.idle)
    assert held.action in answer.HELD
    assert ahead.action not in answer.HELD
    deadlines = (110.0, 101.0, 103.0)  # the deadline, a hold's share, a go-ahead's
    assert answer.optional_end(held, deadlines, 100.2) == 101.0
    assert answer.optional_end(held, deadlines, 102.0) == 102.0 + answer.HOLD_GRACE_SECONDS
    assert answer.optional_end(ahead, deadlines, 102.0) == 103.0


def test_the_first_pass_reads_nothing_optional(world):
    """The refusal's scan reads no environment, no one who started a run, no CPU use now."""
    from runctx.scanning import scan, viewpoint
    from runctx.unknown import Reason, Unknown

    here = viewpoint(cwd=str(world.busy))
    first = scan(here, cpu_window=0.1, essentials_only=True)
    (judged,) = [j for j in first.runs if j.run.pid == world.run.pid]
    for value in (judged.run.environment, judged.run.started_by, judged.run.cpu_now):
        assert isinstance(value, Unknown)
        assert value.reason is Reason.NOT_READ
    assert isinstance(first.cpu_window, Unknown)
    full = scan(here, cpu_window=0.1)
    (same,) = [j for j in full.runs if j.run.pid == world.run.pid]
    assert not isinstance(full.cpu_window, Unknown)
    assert not isinstance(same.run.started_by, Unknown) or same.run.started_by.reason is not (
        Reason.NOT_READ
    )


def test_a_malformed_setting_is_named_to_the_agent_and_the_defaults_decide(tmp_path):
    """A malformed [tool.runctx] does not fail open: the agent is told which file and line."""
    (tmp_path / "pyproject.toml").write_text('[tool.runctx]\non-same-checkout = "never"\n')
    done = run_hook("claude", claude_pre_tool_use("pytest -x", tmp_path))
    assert done.returncode == 0
    assert "failed open" not in done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "the runctx configuration is broken" in context
    assert f"{tmp_path / 'pyproject.toml'}:2: [tool.runctx] on-same-checkout" in context
    assert "permissionDecision" not in done.stdout
