"""The Codex, Gemini, Cursor and Copilot hooks: each agent's own payloads and answers."""

from __future__ import annotations

import json

import pytest
from hooktools import (
    assert_failed_open,
    assert_silent,
    codex_pre_tool_use,
    codex_session_start,
    copilot_pre_tool_use,
    copilot_session_start,
    cursor_before_shell,
    gemini_session_start,
    gemini_tool,
    hook_env,
    reply,
    run_hook,
    world,
)

__all__ = ["world"]  # the fixture, imported for pytest

CODEX_KEYS = {
    "hookEventName",
    "permissionDecision",
    "permissionDecisionReason",
    "additionalContext",
}


# --------------------------------------------------------------------------- Codex


def codex_output(answer: dict[str, object]) -> dict[str, object]:
    """The hookSpecificOutput, checked against Codex's closed output schema."""
    assert set(answer) == {"hookSpecificOutput"}
    output = answer["hookSpecificOutput"]
    assert isinstance(output, dict)
    assert set(output) <= CODEX_KEYS
    assert output["hookEventName"] == "PreToolUse"
    assert output.get("permissionDecision") in {None, "deny"}
    return output


def test_codex_denies_a_second_run_of_the_same_checkout(world):
    """Codex gets permissionDecision deny with a reason naming the live run."""
    output = codex_output(reply(run_hook("codex", codex_pre_tool_use("pytest", world.busy))))
    assert output["permissionDecision"] == "deny"
    assert f"pid {world.run.pid}" in output["permissionDecisionReason"]


def test_codex_gets_a_note_for_foreign_runs(world):
    """From the idle checkout, Codex gets additionalContext alone."""
    output = codex_output(reply(run_hook("codex", codex_pre_tool_use("pytest", world.idle))))
    assert "permissionDecision" not in output
    assert "foreign test run" in output["additionalContext"]


def test_codex_turns_ask_into_deny(world):
    """Codex has no ask (it would fail open), so an ask is answered as a deny that says so."""
    env = hook_env(RUNCTX_ON_SAME_CHECKOUT="ask")
    answer = reply(run_hook("codex", codex_pre_tool_use("pytest", world.busy), env=env))
    output = codex_output(answer)
    assert output["permissionDecision"] == "deny"
    assert "Codex cannot ask" in output["permissionDecisionReason"]


def test_codex_non_test_command_and_other_tools_are_silent(world):
    """A non-test shell command and an apply_patch call get no answer."""
    assert_silent(run_hook("codex", codex_pre_tool_use("git status", world.busy)))
    patch = codex_pre_tool_use("*** Begin Patch", world.busy)
    patch["tool_name"] = "apply_patch"
    assert_silent(run_hook("codex", patch))


def test_codex_garbage_fails_open():
    """Input that is not an object: exit 0, no stdout, one stderr line."""
    assert_failed_open(run_hook("codex", b"[1, 2, 3]"), "JSON list")


def test_codex_session_start_names_the_live_run(world):
    """SessionStart in the busy checkout gets additionalContext naming the run."""
    answer = reply(run_hook("codex-session-start", codex_session_start(world.busy)))
    output = answer["hookSpecificOutput"]
    assert set(output) == {"hookEventName", "additionalContext"}
    assert output["hookEventName"] == "SessionStart"
    assert f"pid {world.run.pid}" in output["additionalContext"]


# --------------------------------------------------------------------------- Gemini


def test_gemini_denies_a_second_run_of_the_same_checkout(world):
    """BeforeTool gets decision deny, the reason for the agent and a line for the user."""
    answer = reply(run_hook("gemini", gemini_tool("BeforeTool", "npm test", world.busy)))
    assert answer["decision"] == "deny"
    assert f"pid {world.run.pid}" in answer["reason"]
    assert "\n" not in answer["systemMessage"]


def test_gemini_dir_path_moves_the_viewpoint(world):
    """A relative dir_path is resolved against cwd: from the base dir, a/proj is busy."""
    payload = gemini_tool("BeforeTool", "pytest", world.base, dir_path="a/proj")
    assert reply(run_hook("gemini", payload))["decision"] == "deny"
    payload = gemini_tool("BeforeTool", "pytest", world.base, dir_path=str(world.idle))
    assert "decision" not in reply(run_hook("gemini", payload))


def test_gemini_foreign_note_goes_to_the_user_before_and_to_the_agent_after(world):
    """BeforeTool shows the note as systemMessage; AfterTool appends it for the agent."""
    before = reply(run_hook("gemini", gemini_tool("BeforeTool", "pytest", world.idle)))
    assert set(before) == {"systemMessage"}
    assert "foreign test run" in before["systemMessage"]
    after = reply(run_hook("gemini-after", gemini_tool("AfterTool", "pytest", world.idle)))
    output = after["hookSpecificOutput"]
    assert output["hookEventName"] == "AfterTool"
    assert "foreign test run" in output["additionalContext"]


def test_gemini_after_in_the_busy_checkout_says_the_runs_may_have_interfered(world):
    """AfterTool in the busy checkout says another run of it was live when the command ended."""
    after = reply(run_hook("gemini-after", gemini_tool("AfterTool", "pytest", world.busy)))
    context = after["hookSpecificOutput"]["additionalContext"]
    assert f"pid {world.run.pid} (run-tests-script)" in context
    assert "were live when this command finished" in context


def test_gemini_ask_is_a_deny(world):
    """BeforeTool documents allow and deny only: an ask is answered as a deny."""
    env = hook_env(RUNCTX_ON_SAME_CHECKOUT="ask")
    answer = reply(run_hook("gemini", gemini_tool("BeforeTool", "pytest", world.busy), env=env))
    assert answer["decision"] == "deny"
    assert "cannot ask" in answer["reason"]


def test_gemini_silent_cases(world):
    """Non-test commands and other tools get no answer."""
    assert_silent(run_hook("gemini", gemini_tool("BeforeTool", "ls -la", world.busy)))
    other = gemini_tool("BeforeTool", "pytest", world.busy)
    other["tool_name"] = "read_file"
    assert_silent(run_hook("gemini", other))


def test_gemini_wrong_field_type_fails_open(world):
    """A dir_path that is not a string: exit 0, no stdout, one stderr line."""
    payload = gemini_tool("BeforeTool", "pytest", world.busy)
    payload["tool_input"] = {"command": "pytest", "dir_path": 7}
    assert_failed_open(run_hook("gemini", payload), "'tool_input.dir_path' is int")


def test_gemini_session_start(world):
    """SessionStart in the busy checkout gets additionalContext naming the run."""
    answer = reply(run_hook("gemini-session-start", gemini_session_start(world.busy)))
    assert f"pid {world.run.pid}" in answer["hookSpecificOutput"]["additionalContext"]


# --------------------------------------------------------------------------- Cursor


def test_cursor_denies_a_second_run_of_the_same_checkout(world):
    """A beforeShellExecution payload gets permission deny with the reason for the agent."""
    answer = reply(run_hook("cursor", cursor_before_shell("yarn test", world.busy)))
    assert answer["permission"] == "deny"
    assert f"pid {world.run.pid}" in answer["agent_message"]
    assert "\n" not in answer["user_message"]


def test_cursor_note_carries_no_permission(world):
    """A foreign-only note never answers allow: messages only."""
    answer = reply(run_hook("cursor", cursor_before_shell("pytest", world.idle)))
    assert "permission" not in answer
    assert "foreign test run" in answer["agent_message"]


def test_cursor_ask(world):
    """on-same-checkout=ask answers permission ask."""
    env = hook_env(RUNCTX_ON_SAME_CHECKOUT="ask")
    answer = reply(run_hook("cursor", cursor_before_shell("pytest", world.busy), env=env))
    assert answer["permission"] == "ask"


def test_cursor_empty_cwd_falls_back_to_the_workspace_root(world):
    """An empty cwd is read as the first workspace root."""
    payload = cursor_before_shell("pytest", world.busy)
    payload["cwd"] = ""
    assert reply(run_hook("cursor", payload))["permission"] == "deny"


def test_cursor_silent_and_garbage(world):
    """A non-test command is silent; a payload without a command fails open."""
    assert_silent(run_hook("cursor", cursor_before_shell("git log", world.busy)))
    payload = cursor_before_shell("pytest", world.busy)
    del payload["command"]
    assert_failed_open(run_hook("cursor", payload), "'command' is missing")


# --------------------------------------------------------------------------- Copilot


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


def test_copilot_note_is_additional_context_only(world):
    """From the idle checkout, Copilot gets additionalContext and no decision."""
    answer = reply(run_hook("copilot", copilot_pre_tool_use("pytest", world.idle)))
    assert set(answer) == {"additionalContext"}
    assert "foreign test run" in answer["additionalContext"]


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


@pytest.mark.parametrize("face", ["codex", "gemini", "gemini-after", "cursor", "copilot"])
def test_five_megabytes_never_block_any_agent(face):
    """An oversized payload fails open the same way for every agent."""
    data = json.dumps({"command": "x" * 5_000_000}).encode()
    assert_failed_open(run_hook(face, data), "larger than")
