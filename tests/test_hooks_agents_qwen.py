"""Qwen Code's hook (``hooks/agents/qwen.py``): Claude Code's shape on ``run_shell_command``.

The payload is the one Qwen Code 0.24 sends (seen by ``make e2e``): Claude
Code's fields, Gemini CLI's tool name, and a ``tool_call_id`` of its own.
"""

from __future__ import annotations

from pathlib import Path

from hooktools import assert_silent, reply, run_hook


def qwen_pre_tool_use(
    command: str, cwd: Path | str, tool: str = "run_shell_command"
) -> dict[str, object]:
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


def test_qwen_denies_a_second_run_of_the_same_checkout(world):
    """A pytest in the checkout whose run is live is denied in Claude Code's shape."""
    answer = reply(run_hook("qwen", qwen_pre_tool_use("pytest -q", world.busy)))
    output = answer["hookSpecificOutput"]
    assert isinstance(output, dict)
    assert output["hookEventName"] == "PreToolUse"
    assert output["permissionDecision"] == "deny"
    assert f"pid {world.run.pid}" in output["permissionDecisionReason"]


def test_qwen_note_is_additional_context(world):
    """From a same-named checkout the run is foreign: additionalContext, no decision."""
    answer = reply(run_hook("qwen", qwen_pre_tool_use("pytest", world.idle)))
    output = answer["hookSpecificOutput"]
    assert isinstance(output, dict)
    assert "permissionDecision" not in output
    assert "foreign test run" in output["additionalContext"]


def test_qwen_other_tools_and_claudes_tool_name_are_left_alone(world):
    """Another tool, and a Claude Code tool name, are not Qwen Code's shell: no answer."""
    assert_silent(run_hook("qwen", qwen_pre_tool_use("pytest", world.busy, tool="read_file")))
    assert_silent(run_hook("qwen", qwen_pre_tool_use("pytest", world.busy, tool="Bash")))


def test_qwen_follows_the_directory_its_shell_tool_names(world):
    """``tool_input.directory`` is where the command runs: judged there, not in ``cwd``."""
    payload = qwen_pre_tool_use("pytest -q", world.idle)
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
