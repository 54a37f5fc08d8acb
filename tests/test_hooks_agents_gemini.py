"""Gemini CLI's hook (``hooks/agents/gemini.py``): BeforeTool, AfterTool and SessionStart."""

from __future__ import annotations

from hooktools import (
    assert_failed_open,
    assert_silent,
    gemini_session_start,
    gemini_tool,
    hook_env,
    reply,
    run_hook,
)


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
    assert "live when this command finished" in context


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
