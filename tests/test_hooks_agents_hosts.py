"""Claude Code's hook run by Copilot CLI or Cursor: answered in the host's shape, and once."""

from __future__ import annotations

import json
from pathlib import Path

from hooktools import (
    assert_silent,
    claude_pre_tool_use,
    copilot_pre_tool_use,
    cursor_before_shell,
    hook_env,
    reply,
    run_hook,
)


def copilots_own_hook(home: Path) -> dict[str, str]:
    """A COPILOT_HOME whose hooks/ holds runctx's own Copilot hook; the environment to use it."""
    hooks = home / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "runctx.json").write_text(
        json.dumps({"version": 1, "hooks": {"preToolUse": [{"bash": "runctx hook copilot"}]}})
    )
    return {"COPILOT_HOME": str(home)}


def test_copilots_own_payload_through_claudes_hook_gets_copilots_answer(world, tmp_path):
    """A Copilot-shaped payload at the Claude Code face: Copilot's deny, top-level."""
    env = hook_env(HOME=str(tmp_path), COPILOT_HOME=str(tmp_path / "none"))
    answer = reply(run_hook("claude", copilot_pre_tool_use("pytest -q", world.busy), env=env))
    assert answer["permissionDecision"] == "deny"
    assert f"pid {world.run.pid}" in str(answer["permissionDecisionReason"])
    assert "hookSpecificOutput" not in answer


def test_copilots_claude_shaped_payload_gets_claudes_answer(world, tmp_path):
    """What Copilot CLI sends Claude Code's hooks (Claude's shape): Claude's deny, read there."""
    env = hook_env(HOME=str(tmp_path), COPILOT_HOME=str(tmp_path / "none"), COPILOT_CLI="1")
    answer = reply(run_hook("claude", claude_pre_tool_use("pytest -q", world.busy), env=env))
    output = answer["hookSpecificOutput"]
    assert isinstance(output, dict)
    assert output["permissionDecision"] == "deny"


def test_with_copilots_own_hook_installed_claudes_hook_stays_silent(world, tmp_path):
    """Copilot runs both hooks: Claude Code's says nothing, Copilot's own answers, once."""
    env = hook_env(HOME=str(tmp_path), **copilots_own_hook(tmp_path / "copilot"))
    claude_shaped = claude_pre_tool_use("pytest -q", world.busy)
    assert_silent(run_hook("claude", claude_shaped, env=dict(env, COPILOT_CLI="1")))
    assert_silent(run_hook("claude", copilot_pre_tool_use("pytest -q", world.busy), env=env))
    # Copilot's own face still refuses; and Claude Code itself (no COPILOT_CLI) is answered.
    own = reply(run_hook("copilot", copilot_pre_tool_use("pytest -q", world.busy), env=env))
    assert own["permissionDecision"] == "deny"
    claude_itself = reply(run_hook("claude", claude_shaped, env=env))
    assert isinstance(claude_itself["hookSpecificOutput"], dict)


def test_copilots_project_hook_counts_too(world, tmp_path):
    """A runctx hook in the checkout's .github/hooks/ is Copilot's own as well."""
    project = world.busy / ".github" / "hooks"
    project.mkdir(parents=True)
    try:
        own = {"hooks": {"preToolUse": [{"bash": "runctx hook copilot"}]}}
        (project / "runctx.json").write_text(json.dumps(own))
        env = hook_env(HOME=str(tmp_path), COPILOT_HOME=str(tmp_path / "none"), COPILOT_CLI="1")
        assert_silent(run_hook("claude", claude_pre_tool_use("pytest -q", world.busy), env=env))
    finally:
        (project / "runctx.json").unlink()


def test_cursors_payload_through_claudes_hook_gets_cursors_answer(world, tmp_path):
    """A Cursor beforeShellExecution payload at the Claude Code face: Cursor's permission deny."""
    env = hook_env(HOME=str(tmp_path))
    answer = reply(run_hook("claude", cursor_before_shell("pytest -q", world.busy), env=env))
    assert answer["permission"] == "deny"
    assert f"pid {world.run.pid}" in str(answer["agent_message"])


def test_with_cursors_own_hook_installed_claudes_hook_stays_silent(world, tmp_path):
    """~/.cursor/hooks.json runs runctx's Cursor hook: Claude Code's face leaves it to that one."""
    (tmp_path / ".cursor").mkdir()
    (tmp_path / ".cursor" / "hooks.json").write_text(
        '{"version": 1, "hooks": {"beforeShellExecution": [{"command": "runctx hook cursor"}]}}'
    )
    env = hook_env(HOME=str(tmp_path))
    assert_silent(run_hook("claude", cursor_before_shell("pytest -q", world.busy), env=env))
    assert (
        reply(run_hook("cursor", cursor_before_shell("pytest -q", world.busy), env=env))[
            "permission"
        ]
        == "deny"
    )
