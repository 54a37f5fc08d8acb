"""Codex's hook (``hooks/agents/codex.py``): Claude Code's payloads, a closed reply, no ask."""

from __future__ import annotations

from hooktools import (
    assert_failed_open,
    assert_silent,
    codex_pre_tool_use,
    codex_session_start,
    hook_env,
    reply,
    run_hook,
)
from proctools import make_checkout
from runfactory import clean_env

from runctx.started_by import WANTED

CODEX_KEYS = {
    "hookEventName",
    "permissionDecision",
    "permissionDecisionReason",
    "additionalContext",
}


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


def test_codex_knows_its_own_thread(shared_tmp, runs):
    """A run started from Codex's shell (CODEX_THREAD_ID) is that Codex session's own."""
    checkout = make_checkout(shared_tmp)
    env = {k: v for k, v in clean_env().items() if k not in WANTED}
    env["CODEX_THREAD_ID"] = "0199a5b1-thread"
    run = runs.run_tests_script(checkout, env=env)
    payload = codex_pre_tool_use("pytest", checkout)
    payload["session_id"] = "0199a5b1-thread"
    output = codex_output(reply(run_hook("codex", payload)))
    assert output["permissionDecision"] == "deny"
    assert "is your own run" in output["permissionDecisionReason"]
    assert f"pid {run.pid}" in output["permissionDecisionReason"]
    payload["session_id"] = "another-thread"
    output = codex_output(reply(run_hook("codex", payload)))
    assert (
        "was started by another session (codex session 0199a5b1…)"
        in output["permissionDecisionReason"]
    )
