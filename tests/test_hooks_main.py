"""``runctx hook FACE``, the one hook dispatcher: it always exits 0 and never blocks the user.

Whatever the agent sends (garbage, a wrong face, a payload too large, a stdin
that never ends), the hook lets the command through and says on stderr what
went wrong; for a command that is not a test run it stays cheap to start.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from hooktools import (
    assert_failed_open,
    claude_pre_tool_use,
    hook_env,
    run_hook,
)
from proctools import make_checkout

FORBIDDEN_ON_THE_FAST_PATH = (
    "attrs",
    "structlog",
    "psutil",
    "runctx.scanning",
    "runctx.sources.procfs",
    "argparse",
    "typing",
    "runctx.policy",
)


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
