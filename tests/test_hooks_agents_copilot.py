"""Copilot's hook (``hooks/agents/copilot.py``): toolArgs as a JSON string, exit 0 always."""

from __future__ import annotations

from hooktools import (
    assert_failed_open,
    assert_silent,
    copilot_pre_tool_use,
    copilot_session_start,
    reply,
    run_hook,
)


def test_copilot_denies_a_second_run_of_the_same_checkout(world):
    """A preToolUse payload with toolArgs as a JSON string gets permissionDecision deny."""
    answer = reply(run_hook("copilot", copilot_pre_tool_use("go test ./...", world.busy)))
    assert answer["permissionDecision"] == "deny"
    assert f"pid {world.run.pid}" in answer["permissionDecisionReason"]


def test_copilot_reads_arguments_sent_as_an_object(world):
    """Newer hosts send the arguments as an object under tool_input: read as well."""
    payload = {
        "timestamp": 1704614600000,
        "cwd": str(world.busy),
        "tool_name": "bash",
        "tool_input": {"command": "pytest"},
    }
    assert reply(run_hook("copilot", payload))["permissionDecision"] == "deny"


def test_copilot_note_goes_after_the_command_not_before(world):
    """A note is not a preToolUse field: before, nothing is decided; postToolUse carries it."""
    before = reply(run_hook("copilot", copilot_pre_tool_use("pytest", world.idle)))
    assert before == {}
    payload = copilot_pre_tool_use("pytest", world.idle)
    payload["toolResult"] = {"resultType": "success", "textResultForLlm": "1 passed"}
    after = reply(run_hook("copilot-after", payload))
    assert set(after) == {"additionalContext"}
    assert "foreign test run" in after["additionalContext"]


def test_copilot_fails_open_with_exit_zero(world):
    """A non-zero exit would block in Copilot: a toolArgs that is not JSON still exits 0."""
    payload = copilot_pre_tool_use("pytest", world.busy)
    payload["toolArgs"] = "{not json"
    assert_failed_open(run_hook("copilot", payload), "field 'toolArgs' is not JSON")


def test_copilot_other_tools_and_non_test_commands_are_silent(world):
    """An edit tool and a non-test bash command get no answer."""
    edit = {"timestamp": 1, "cwd": str(world.busy), "toolName": "edit", "toolArgs": "{}"}
    assert_silent(run_hook("copilot", edit))
    assert_silent(run_hook("copilot", copilot_pre_tool_use("echo pytest", world.busy)))


def test_copilot_session_start(world):
    """A sessionStart payload gets additionalContext naming the live run of the checkout."""
    answer = reply(run_hook("copilot-session-start", copilot_session_start(world.busy)))
    assert f"pid {world.run.pid}" in answer["additionalContext"]
