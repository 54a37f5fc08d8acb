"""Cursor's hook (``hooks/agents/cursor.py``): beforeShellExecution and its permission answers."""

from __future__ import annotations

from hooktools import (
    assert_failed_open,
    assert_silent,
    cursor_before_shell,
    hook_env,
    reply,
    run_hook,
)


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
