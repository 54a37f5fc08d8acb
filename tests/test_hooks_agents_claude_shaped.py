"""The agents that speak Claude Code's hook contract on a shell tool of their own name.

Factory Droid (``hooks/agents/droid.py``) sends Claude Code's fields with its
shell tool ``Execute`` (docs.factory.ai/reference/hooks-reference). Qwen Code
(``hooks/agents/qwen.py``) sends them with Gemini CLI's tool name
``run_shell_command`` and a ``tool_call_id`` of its own (the payload Qwen Code
0.24 sends, seen by ``make e2e``). Each answers in Claude Code's shape; each
row of :data:`AGENTS` is one agent's payload and the tool names that are not
its shell. Qwen Code reads a note only after the command (its
``PostToolUse`` hook, ``runctx hook qwen-after``): the ``additionalContext`` of
its ``PreToolUse`` is logged and never reaches the model.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import attrs
import pytest
from hooktools import assert_silent, reply, run_hook


def droid_pre_tool_use(command: str, cwd: Path | str, tool: str) -> dict[str, object]:
    """The PreToolUse payload Droid sends for a shell command."""
    return {
        "session_id": "6c1f0c3e-droid",
        "transcript_path": "/home/user/.factory/sessions/6c1f0c3e.jsonl",
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": {"command": command},
    }


def qwen_pre_tool_use(command: str, cwd: Path | str, tool: str) -> dict[str, object]:
    """The PreToolUse payload Qwen Code sends for a shell command."""
    return {
        "session_id": "1d0d5d9e-0d1f-40ab-b099-6e464d0ff9af",
        "transcript_path": "/home/user/.qwen/projects/p/chats/1d0d5d9e.jsonl",
        "cwd": str(cwd),
        "hook_event_name": "PreToolUse",
        "timestamp": "2026-12-01T21:13:28.138Z",
        "permission_mode": "yolo",
        "tool_name": tool,
        "tool_input": {"command": command, "description": "run the tests"},
        "tool_use_id": "toolu_1796159608137_yg1etyu3f",
        "tool_call_id": "call_1",
    }


@attrs.frozen
class Agent:
    """One agent of Claude Code's contract: its hook face, shell tool, payload and other tools."""

    face: str
    shell: str
    payload: Callable[[str, Path | str, str], dict[str, object]]
    not_shell: tuple[str, ...]

    def ask(self, command: str, cwd: Path | str, tool: str = "") -> dict[str, object]:
        """The agent's payload for ``command`` in ``cwd`` (its shell tool unless ``tool``)."""
        return self.payload(command, cwd, tool or self.shell)


AGENTS = [
    # Another tool, and another agent's shell tool name (Claude Code's Bash among them).
    Agent("droid", "Execute", droid_pre_tool_use, ("Read", "Bash")),
    Agent("qwen", "run_shell_command", qwen_pre_tool_use, ("read_file", "Bash")),
]
BY_FACE = pytest.mark.parametrize("agent", AGENTS, ids=[agent.face for agent in AGENTS])
QWEN = AGENTS[1]


@BY_FACE
def test_a_second_run_of_the_same_checkout_is_denied_in_claude_codes_shape(world, agent):
    """A pytest in the checkout whose run is live is denied, naming that run."""
    output = reply(run_hook(agent.face, agent.ask("pytest -q", world.busy)))["hookSpecificOutput"]
    assert isinstance(output, dict)
    assert output["hookEventName"] == "PreToolUse"
    assert output["permissionDecision"] == "deny"
    assert f"pid {world.run.pid}" in output["permissionDecisionReason"]


def test_a_foreign_run_is_additional_context(world):
    """From a same-named checkout the run is foreign: additionalContext, no decision."""
    output = reply(run_hook("droid", AGENTS[0].ask("pytest", world.idle)))["hookSpecificOutput"]
    assert isinstance(output, dict)
    assert "permissionDecision" not in output
    assert "foreign test run" in output["additionalContext"]


def test_qwen_hears_a_note_after_the_command_and_the_user_before(world):
    """Qwen Code: a note before the command goes to the user; the model gets it after.

    ``PreToolUse`` answers a note with ``systemMessage`` (no decision); the
    ``PostToolUse`` hook's ``additionalContext``, which Qwen Code appends to
    the tool's result, says what was live when the command finished.
    """
    before = reply(run_hook("qwen", QWEN.ask("pytest", world.idle)))
    assert "hookSpecificOutput" not in before
    assert "foreign test run" in str(before["systemMessage"])
    payload = QWEN.ask("pytest", world.busy)
    payload["hook_event_name"] = "PostToolUse"
    payload["tool_response"] = {"llmContent": "1 passed"}
    output = reply(run_hook("qwen-after", payload))["hookSpecificOutput"]
    assert isinstance(output, dict)
    assert output["hookEventName"] == "PostToolUse"
    assert f"pid {world.run.pid}" in output["additionalContext"]
    assert "when this command finished" in output["additionalContext"]
    # the after hook answers its own event only; it fails open, and says so, on another
    done = run_hook("qwen-after", QWEN.ask("pytest", world.busy))
    assert done.returncode == 0
    assert "PostToolUse" in done.stderr


@BY_FACE
def test_other_tools_are_left_alone(world, agent):
    """Another tool, or another agent's shell tool name, is not this agent's shell: no answer."""
    for tool in agent.not_shell:
        assert_silent(run_hook(agent.face, agent.ask("pytest", world.busy, tool)))


def test_qwen_follows_the_directory_its_shell_tool_names(world):
    """``tool_input.directory`` is where the command runs: judged there, not in ``cwd``."""
    payload = QWEN.ask("pytest -q", world.idle)
    payload["tool_input"] = {"command": "pytest -q", "directory": str(world.busy)}
    output = reply(run_hook("qwen", payload))["hookSpecificOutput"]
    assert isinstance(output, dict)
    assert output["permissionDecision"] == "deny"
    # Relative to cwd, too (Gemini CLI's dir_path spelling is read as well).
    payload["cwd"] = str(world.busy.parent)
    payload["tool_input"] = {"command": "pytest -q", "dir_path": world.busy.name}
    output = reply(run_hook("qwen", payload))["hookSpecificOutput"]
    assert isinstance(output, dict)
    assert output["permissionDecision"] == "deny"
