"""Factory Droid's hook (``hooks/agents/droid.py``): Claude Code's contract on ``Execute``.

The payload follows Factory's hooks reference (docs.factory.ai/reference/hooks-reference):
Claude Code's fields, with Droid's shell tool ``Execute``.
"""

from __future__ import annotations

from pathlib import Path

from hooktools import assert_silent, reply, run_hook


def droid_pre_tool_use(command: str, cwd: Path | str, tool: str = "Execute") -> dict[str, object]:
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


def test_droid_denies_a_second_run_of_the_same_checkout(world):
    """A pytest in the checkout whose run is live is denied, in Claude Code's shape."""
    output = reply(run_hook("droid", droid_pre_tool_use("pytest -q", world.busy)))[
        "hookSpecificOutput"
    ]
    assert isinstance(output, dict)
    assert output["hookEventName"] == "PreToolUse"
    assert output["permissionDecision"] == "deny"
    assert f"pid {world.run.pid}" in output["permissionDecisionReason"]


def test_droid_note_is_additional_context(world):
    """From a same-named checkout the run is foreign: additionalContext, no decision."""
    answer = reply(run_hook("droid", droid_pre_tool_use("pytest", world.idle)))
    output = answer["hookSpecificOutput"]
    assert isinstance(output, dict)
    assert "permissionDecision" not in output
    assert "foreign test run" in output["additionalContext"]


def test_droid_other_tools_are_left_alone(world):
    """Another tool, or another agent's shell tool name, is not Droid's shell: no answer."""
    assert_silent(run_hook("droid", droid_pre_tool_use("pytest", world.busy, tool="Read")))
    assert_silent(run_hook("droid", droid_pre_tool_use("pytest", world.busy, tool="Bash")))
