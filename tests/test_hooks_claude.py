"""``runctx hook claude`` as Claude Code runs it: a process, real payloads, real runs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import pytest
from hooktools import (
    assert_failed_open,
    assert_silent,
    claude_pre_tool_use,
    claude_session_start,
    hook_env,
    reply,
    run_hook,
    world,
)
from proctools import make_checkout

__all__ = ["world"]  # the fixture, imported for pytest

FORBIDDEN_ON_THE_FAST_PATH = (
    "attrs",
    "structlog",
    "psutil",
    "runctx.scanning",
    "runctx.sources.procfs",
    "argparse",
    "typing",
    "runctx.hooks.policy",
)

NOT_TEST_COMMANDS = [
    "ls",
    "git diff",
    "echo pytest",
    "cat tests/x.py",
    "grep -r pytest .",
    "python -c 'print(1)'",
    "pytest --version",
    "make docs",
]


def decision_of(answer: dict[str, object]) -> dict[str, object]:
    """The hookSpecificOutput object, checked to be a PreToolUse answer."""
    output = answer["hookSpecificOutput"]
    assert isinstance(output, dict)
    assert output["hookEventName"] == "PreToolUse"
    assert output.get("permissionDecision") != "allow"
    return output


def test_a_second_run_of_the_same_checkout_is_denied_with_the_first_ones_pid(world):
    """A pytest in the checkout whose run is live is denied, the reason naming that run."""
    done = run_hook("claude", claude_pre_tool_use("pytest -x", world.busy))
    output = decision_of(reply(done))
    assert output["permissionDecision"] == "deny"
    reason = output["permissionDecisionReason"]
    assert f"pid {world.run.pid} (run-tests-script, running " in reason
    assert "1 process" in reason
    assert "runctx wait" in reason
    assert "runctx stop" in reason


def test_a_run_in_another_checkout_with_the_same_name_gets_a_note_only(world):
    """From a same-named checkout, the live run is foreign: additionalContext, no decision."""
    done = run_hook("claude", claude_pre_tool_use("uv run pytest -q", world.idle))
    output = decision_of(reply(done))
    assert "permissionDecision" not in output
    assert "permissionDecisionReason" not in output
    context = output["additionalContext"]
    assert "foreign test run" in context
    assert "not this checkout's" in context


@pytest.mark.parametrize("command", NOT_TEST_COMMANDS)
def test_a_command_that_is_not_a_test_run_gets_no_output(world, command):
    """A non-test command in the busy checkout: exit 0, nothing on stdout or stderr."""
    assert_silent(run_hook("claude", claude_pre_tool_use(command, world.busy)))


def test_another_tool_is_left_alone(world):
    """A payload for a tool other than Bash gets no answer."""
    payload = claude_pre_tool_use("pytest", world.busy)
    payload["tool_name"] = "Edit"
    payload["tool_input"] = {"file_path": "/x.py", "old_string": "a", "new_string": "b"}
    assert_silent(run_hook("claude", payload))


def test_cd_moves_the_viewpoint_to_the_other_checkout(world):
    """``cd BUSY && pytest`` sent from the idle checkout is judged from BUSY: denied."""
    command = f"cd {world.busy} && VAR=1 timeout 600 python -m pytest -x"
    output = decision_of(reply(run_hook("claude", claude_pre_tool_use(command, world.idle))))
    assert output["permissionDecision"] == "deny"
    assert f"pid {world.run.pid}" in output["permissionDecisionReason"]


def test_cd_away_from_the_busy_checkout_gets_only_a_note(world):
    """``cd IDLE && pytest`` sent from the busy checkout is judged from IDLE: a note."""
    command = f"cd {world.idle} && pytest"
    output = decision_of(reply(run_hook("claude", claude_pre_tool_use(command, world.busy))))
    assert "permissionDecision" not in output
    assert "foreign test run" in output["additionalContext"]


def test_the_payload_cwd_is_the_viewpoint_not_the_process_cwd_nor_the_project_dir(world):
    """The hook runs in BUSY with CLAUDE_PROJECT_DIR=BUSY, the payload says IDLE: a note."""
    env = hook_env(CLAUDE_PROJECT_DIR=str(world.busy))
    done = run_hook("claude", claude_pre_tool_use("pytest", world.idle), cwd=world.busy, env=env)
    output = decision_of(reply(done))
    assert "permissionDecision" not in output


def test_ask_mode_asks_the_user_and_tells_claude(world):
    """on-same-checkout=ask answers "ask" with the reason, and the same words as context."""
    env = hook_env(RUNCTX_ON_SAME_CHECKOUT="ask")
    done = run_hook("claude", claude_pre_tool_use("pytest", world.busy), env=env)
    output = decision_of(reply(done))
    assert output["permissionDecision"] == "ask"
    assert f"pid {world.run.pid}" in output["permissionDecisionReason"]
    assert output["additionalContext"] == output["permissionDecisionReason"]


def test_warn_mode_only_adds_context(world):
    """on-same-checkout=warn lets the command through with the same-checkout message."""
    env = hook_env(RUNCTX_ON_SAME_CHECKOUT="warn")
    output = decision_of(
        reply(run_hook("claude", claude_pre_tool_use("pytest", world.busy), env=env))
    )
    assert "permissionDecision" not in output
    assert "warning only" in output["additionalContext"]
    assert f"pid {world.run.pid}" in output["additionalContext"]


def test_wait_mode_denies_and_says_how_to_wait(world):
    """on-same-checkout=wait cannot wait in a hook: deny, pointing at runctx run --wait."""
    env = hook_env(RUNCTX_ON_SAME_CHECKOUT="wait")
    output = decision_of(
        reply(run_hook("claude", claude_pre_tool_use("pytest", world.busy), env=env))
    )
    assert output["permissionDecision"] == "deny"
    assert "runctx run --wait -- COMMAND" in output["permissionDecisionReason"]


def test_the_checkout_setting_in_pyproject_is_read(world):
    """``on-same-checkout = "warn"`` in the busy checkout's pyproject turns the deny into a note."""
    pyproject = world.busy / "pyproject.toml"
    original = pyproject.read_text()
    try:
        pyproject.write_text(original + '\n[tool.runctx]\non-same-checkout = "warn"\n')
        output = decision_of(reply(run_hook("claude", claude_pre_tool_use("pytest", world.busy))))
    finally:
        pyproject.write_text(original)
    assert "permissionDecision" not in output
    assert "warning only" in output["additionalContext"]


def test_a_malformed_setting_fails_open(world):
    """A bad on-same-checkout value lets the command through and names the problem."""
    pyproject = world.busy / "pyproject.toml"
    original = pyproject.read_text()
    try:
        pyproject.write_text(original + '\n[tool.runctx]\non-same-checkout = "sometimes"\n')
        done = run_hook("claude", claude_pre_tool_use("pytest", world.busy))
    finally:
        pyproject.write_text(original)
    assert_failed_open(done, "on-same-checkout must be one of")


def test_a_runner_from_the_checkout_settings_is_a_test_run(world):
    """A program declared in ``[tool.runctx] runners`` is judged like any runner."""
    pyproject = world.busy / "pyproject.toml"
    original = pyproject.read_text()
    config = '\n[tool.runctx]\nrunners = [{ kind = "e2e", program = "run-e2e" }]\n'
    try:
        assert_silent(run_hook("claude", claude_pre_tool_use("./run-e2e --all", world.busy)))
        pyproject.write_text(original + config)
        done = run_hook("claude", claude_pre_tool_use("./run-e2e --all", world.busy))
    finally:
        pyproject.write_text(original)
    assert decision_of(reply(done))["permissionDecision"] == "deny"


def test_runctx_run_is_left_to_runctx_run(world):
    """``runctx run --wait -- pytest`` applies the policy itself: the hook says nothing."""
    done = run_hook("claude", claude_pre_tool_use("runctx run --wait -- pytest", world.busy))
    assert_silent(done)


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


@pytest.mark.parametrize(
    ("change", "what"),
    [
        ({"tool_input": {"command": 5}}, "'tool_input.command' is int"),
        ({"tool_input": "pytest"}, "'tool_input' is str"),
        ({"cwd": 3}, "'cwd' is int"),
        ({"cwd": "relative/dir"}, "not an absolute path"),
        ({"tool_name": ["Bash"]}, "'tool_name' is list"),
        ({"hook_event_name": "PostToolUse"}, "answers PreToolUse, not PostToolUse"),
    ],
)
def test_wrong_field_types_never_block(world, change, what):
    """A payload whose fields have the wrong type: exit 0, no stdout, one stderr line."""
    payload = claude_pre_tool_use("pytest", world.busy)
    payload.update(change)
    assert_failed_open(run_hook("claude", payload), what)


def test_five_megabytes_of_input_never_block(world):
    """A 5 MB payload is drained, not parsed: exit 0, no stdout, one stderr line."""
    payload = claude_pre_tool_use("pytest " + "x" * 5_000_000, world.busy)
    assert_failed_open(run_hook("claude", payload), "larger than 1048576 bytes")


def test_a_stdin_that_never_ends_fails_open_at_the_deadline(world):
    """An agent that never closes stdin cannot hang the hook: it fails open at the deadline."""
    env = hook_env(RUNCTX_HOOK_DEADLINE="0.5")
    began = time.monotonic()
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
    assert time.monotonic() - began < 10
    done = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    assert_failed_open(done, "did not end before the deadline")


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
    """A typo in the hook's configuration never blocks: exit 0, one stderr line."""
    assert_failed_open(run_hook("claud", claude_pre_tool_use("pytest", world.busy)), "claud")


def test_session_start_tells_claude_about_the_checkouts_live_run(world):
    """SessionStart in the busy checkout names its live run as additionalContext."""
    answer = reply(run_hook("claude-session-start", claude_session_start(world.busy)))
    output = answer["hookSpecificOutput"]
    assert output["hookEventName"] == "SessionStart"
    assert f"pid {world.run.pid} (run-tests-script" in output["additionalContext"]
    assert "of this checkout are live" in output["additionalContext"]


def test_session_start_elsewhere_names_the_run_as_foreign(world):
    """SessionStart in the idle checkout mentions the run only as foreign contention."""
    answer = reply(run_hook("claude-session-start", claude_session_start(world.idle)))
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert "of this checkout are live" not in context
    assert "foreign test run" in context


def test_the_non_test_path_imports_nothing_heavy(world):
    """A non-test command loads neither attrs, structlog, psutil, the scan nor argparse."""
    done = run_hook(
        "claude", claude_pre_tool_use("git diff", world.busy), python_args=("-X", "importtime")
    )
    assert done.returncode == 0
    assert done.stdout == ""
    imported = set(re.findall(r"\|\s+([\w.]+)\s*$", done.stderr, flags=re.MULTILINE))
    assert "runctx.shell.prefilter" in imported
    assert "runctx.hooks.agents.claude" in imported
    assert "runctx.shell.commands" not in imported, (
        "the shell parser loaded for a command naming no runner"
    )
    for name in FORBIDDEN_ON_THE_FAST_PATH:
        assert name not in imported, f"{name} is imported on the non-test path"


@pytest.mark.parametrize(
    "pyproject",
    [
        # a project that only names runctx: nothing to parse
        (
            '[project]\nname = "x"\ndependencies = ["runctx"]\n'
            '[project.entry-points.pytest11]\nrunctx = "runctx.pytest_plugin"\n'
        ),
        # a project that configures runctx: its runners are read, still without records
        '[tool.runctx]\nrunners = [{ kind = "e2e", program = "run-e2e" }]\n',
    ],
)
def test_the_non_test_path_stays_light_in_a_checkout_that_names_runctx(shared_tmp, pyproject):
    """A checkout's pyproject naming or configuring runctx adds no heavy import."""
    checkout = make_checkout(shared_tmp, "configured")
    (checkout / "pyproject.toml").write_text(pyproject)
    done = run_hook(
        "claude", claude_pre_tool_use("git diff", checkout), python_args=("-X", "importtime")
    )
    assert done.returncode == 0
    assert done.stdout == ""
    imported = set(re.findall(r"\|\s+([\w.]+)\s*$", done.stderr, flags=re.MULTILINE))
    configured = "tool.runctx" in pyproject
    assert ("tomllib" in imported) == configured
    # Parsing TOML brings typing along; the records, logging and psutil never come.
    allowed = {"typing"} if configured else set()
    for name in set(FORBIDDEN_ON_THE_FAST_PATH) - allowed:
        assert name not in imported, f"{name} is imported on the non-test path"
