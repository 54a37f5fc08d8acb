"""Claude Code's hook (``hooks/agents/claude.py``): its payloads and replies, on real runs."""

from __future__ import annotations

import os
import shutil
import signal

import pytest
from hooktools import (
    assert_failed_open,
    assert_silent,
    claude_pre_tool_use,
    claude_session_start,
    hook_env,
    reply,
    run_hook,
)
from proctools import is_live, make_checkout, make_worktree, name_every_foreign_run, wait_for
from runfactory import clean_env

from runctx.started_by import WANTED

NOT_TEST_COMMANDS = [
    "ls",
    "git diff",
    "echo pytest",
    "cat tests/x.py",
    "grep -r pytest .",
    "python -c 'print(1)'",
    "pytest --version",
    "make docs",
]


def decision_of(answer: dict[str, object]) -> dict[str, object]:
    """The hookSpecificOutput object, checked to be a PreToolUse answer."""
    output = answer["hookSpecificOutput"]
    assert isinstance(output, dict)
    assert output["hookEventName"] == "PreToolUse"
    assert output.get("permissionDecision") != "allow"
    return output


def test_a_second_run_of_the_same_checkout_is_denied_with_the_first_ones_pid(world):
    """A pytest in the checkout whose run is live is denied, the reason naming that run."""
    done = run_hook("claude", claude_pre_tool_use("pytest -x", world.busy))
    output = decision_of(reply(done))
    assert output["permissionDecision"] == "deny"
    reason = output["permissionDecisionReason"]
    assert f"pid {world.run.pid} (run-tests-script, running " in reason
    assert "1 process" in reason
    assert "runctx wait" in reason
    assert "runctx stop" not in reason  # nothing says it is left over


def test_a_run_in_another_checkout_with_the_same_name_gets_a_note_only(world):
    """From a same-named checkout, the live run is foreign: additionalContext, no decision."""
    done = run_hook("claude", claude_pre_tool_use("uv run pytest -q", world.idle))
    output = decision_of(reply(done))
    assert "permissionDecision" not in output
    assert "permissionDecisionReason" not in output
    context = output["additionalContext"]
    assert "foreign test run" in context
    assert "not this checkout's" in context


def test_monitor_runs_commands_like_bash_and_is_judged_like_it(world):
    """Monitor runs its command under the Bash rules: a pytest through it is denied too."""
    payload = claude_pre_tool_use("pytest -x", world.busy)
    payload["tool_name"] = "Monitor"
    output = decision_of(reply(run_hook("claude", payload)))
    assert output["permissionDecision"] == "deny"
    assert f"pid {world.run.pid}" in output["permissionDecisionReason"]


@pytest.mark.parametrize("command", NOT_TEST_COMMANDS)
def test_a_command_that_is_not_a_test_run_gets_no_output(world, command):
    """A non-test command in the busy checkout: exit 0, nothing on stdout or stderr."""
    assert_silent(run_hook("claude", claude_pre_tool_use(command, world.busy)))


def test_another_tool_is_left_alone(world):
    """A payload for a tool other than Bash gets no answer."""
    payload = claude_pre_tool_use("pytest", world.busy)
    payload["tool_name"] = "Edit"
    payload["tool_input"] = {"file_path": "/x.py", "old_string": "a", "new_string": "b"}
    assert_silent(run_hook("claude", payload))


def test_cd_moves_the_viewpoint_to_the_other_checkout(world):
    """``cd BUSY && pytest`` sent from the idle checkout is judged from BUSY: denied."""
    command = f"cd {world.busy} && VAR=1 timeout 600 python -m pytest -x"
    output = decision_of(reply(run_hook("claude", claude_pre_tool_use(command, world.idle))))
    assert output["permissionDecision"] == "deny"
    assert f"pid {world.run.pid}" in output["permissionDecisionReason"]


def test_cd_away_from_the_busy_checkout_gets_only_a_note(world):
    """``cd IDLE && pytest`` sent from the busy checkout is judged from IDLE: a note."""
    command = f"cd {world.idle} && pytest"
    output = decision_of(reply(run_hook("claude", claude_pre_tool_use(command, world.busy))))
    assert "permissionDecision" not in output
    assert "foreign test run" in output["additionalContext"]


def test_the_payload_cwd_is_the_viewpoint_not_the_process_cwd_nor_the_project_dir(world):
    """The hook runs in BUSY with CLAUDE_PROJECT_DIR=BUSY, the payload says IDLE: a note."""
    env = hook_env(CLAUDE_PROJECT_DIR=str(world.busy))
    done = run_hook("claude", claude_pre_tool_use("pytest", world.idle), cwd=world.busy, env=env)
    output = decision_of(reply(done))
    assert "permissionDecision" not in output


def test_ask_mode_asks_the_user_and_tells_claude(world):
    """on-same-checkout=ask answers "ask" with the reason, and the same words as context."""
    env = hook_env(RUNCTX_ON_SAME_CHECKOUT="ask")
    done = run_hook("claude", claude_pre_tool_use("pytest", world.busy), env=env)
    output = decision_of(reply(done))
    assert output["permissionDecision"] == "ask"
    assert f"pid {world.run.pid}" in output["permissionDecisionReason"]
    assert output["additionalContext"] == output["permissionDecisionReason"]


def test_warn_mode_only_adds_context(world):
    """on-same-checkout=warn lets the command through with the same-checkout message."""
    env = hook_env(RUNCTX_ON_SAME_CHECKOUT="warn")
    output = decision_of(
        reply(run_hook("claude", claude_pre_tool_use("pytest", world.busy), env=env))
    )
    assert "permissionDecision" not in output
    assert "warning only" in output["additionalContext"]
    assert f"pid {world.run.pid}" in output["additionalContext"]


def test_wait_mode_denies_and_says_how_to_wait(world):
    """on-same-checkout=wait cannot wait in a hook: deny, pointing at runctx run --wait."""
    env = hook_env(RUNCTX_ON_SAME_CHECKOUT="wait")
    output = decision_of(
        reply(run_hook("claude", claude_pre_tool_use("pytest", world.busy), env=env))
    )
    assert output["permissionDecision"] == "deny"
    assert "runctx run --wait -- COMMAND" in output["permissionDecisionReason"]


def test_the_checkout_setting_in_pyproject_is_read(world):
    """``on-same-checkout = "warn"`` in the busy checkout's pyproject turns the deny into a note."""
    pyproject = world.busy / "pyproject.toml"
    original = pyproject.read_text()
    try:
        pyproject.write_text(original + '\n[tool.runctx]\non-same-checkout = "warn"\n')
        output = decision_of(reply(run_hook("claude", claude_pre_tool_use("pytest", world.busy))))
    finally:
        pyproject.write_text(original)
    assert "permissionDecision" not in output
    assert "warning only" in output["additionalContext"]


def test_a_malformed_setting_is_named_and_the_defaults_decide(world):
    """A bad on-same-checkout value: the default (stop) decides, and the reason names the file."""
    pyproject = world.busy / "pyproject.toml"
    original = pyproject.read_text()
    try:
        pyproject.write_text(original + '\n[tool.runctx]\non-same-checkout = "sometimes"\n')
        output = decision_of(reply(run_hook("claude", claude_pre_tool_use("pytest", world.busy))))
    finally:
        pyproject.write_text(original)
    assert output["permissionDecision"] == "deny"
    assert "runctx configuration is broken" in output["permissionDecisionReason"]
    assert "on-same-checkout must be one of" in output["permissionDecisionReason"]


def test_a_runner_from_the_checkout_settings_is_a_test_run(world):
    """A program declared in ``[tool.runctx] runners`` is judged like any runner."""
    pyproject = world.busy / "pyproject.toml"
    original = pyproject.read_text()
    config = '\n[tool.runctx]\nrunners = [{ kind = "e2e", program = "run-e2e" }]\n'
    try:
        assert_silent(run_hook("claude", claude_pre_tool_use("./run-e2e --all", world.busy)))
        pyproject.write_text(original + config)
        done = run_hook("claude", claude_pre_tool_use("./run-e2e --all", world.busy))
    finally:
        pyproject.write_text(original)
    assert decision_of(reply(done))["permissionDecision"] == "deny"


def test_runctx_run_is_left_to_runctx_run(world):
    """``runctx run --wait -- pytest`` applies the policy itself: the hook says nothing."""
    done = run_hook("claude", claude_pre_tool_use("runctx run --wait -- pytest", world.busy))
    assert_silent(done)


@pytest.mark.parametrize(
    ("change", "what"),
    [
        ({"tool_input": {"command": 5}}, "'tool_input.command' is int"),
        ({"tool_input": "pytest"}, "'tool_input' is str"),
        ({"cwd": 3}, "'cwd' is int"),
        ({"cwd": "relative/dir"}, "not an absolute path"),
        ({"tool_name": ["Bash"]}, "'tool_name' is list"),
        ({"hook_event_name": "PostToolUse"}, "answers PreToolUse, not PostToolUse"),
    ],
)
def test_wrong_field_types_never_block(world, change, what):
    """A payload whose fields have the wrong type: exit 0, no stdout, one stderr line."""
    payload = claude_pre_tool_use("pytest", world.busy)
    payload.update(change)
    assert_failed_open(run_hook("claude", payload), what)


def test_session_start_tells_claude_about_the_checkouts_live_run(world):
    """SessionStart in the busy checkout names its live run as additionalContext."""
    answer = reply(run_hook("claude-session-start", claude_session_start(world.busy)))
    output = answer["hookSpecificOutput"]
    assert output["hookEventName"] == "SessionStart"
    assert f"pid {world.run.pid} (run-tests-script" in output["additionalContext"]
    assert "of this checkout is live" in output["additionalContext"]


def test_session_start_elsewhere_names_the_run_as_foreign(world):
    """SessionStart in the idle checkout mentions the run only as foreign contention."""
    answer = reply(run_hook("claude-session-start", claude_session_start(world.idle)))
    context = answer["hookSpecificOutput"]["additionalContext"]
    # Runs elsewhere on the box whose identity is unknown are named as this checkout's;
    # the run started here may only be in the foreign part (named when among the busiest).
    foreign_part = context.index("foreign test run")
    assert f"pid {world.run.pid} (" not in context[:foreign_part]


def test_the_hook_lets_a_run_start_next_to_a_removed_worktrees_leftover(shared_tmp, runs):
    """In the main checkout the leftover is contention, not a run of this checkout."""
    main = make_checkout(shared_tmp, "proj")
    worktree = make_worktree(main, shared_tmp / "proj-wt")
    run = runs.run_tests_script(worktree)
    name_every_foreign_run(main)  # an idle foreign run is worth a note too
    shutil.rmtree(worktree)
    answer = reply(run_hook("claude", claude_pre_tool_use("pytest -x", main), env=hook_env()))
    output = answer["hookSpecificOutput"]
    assert "permissionDecision" not in output
    context = output["additionalContext"]
    assert "foreign test run" in context
    assert f"pid {run.pid} (" not in context[: context.index("foreign test run")]


@pytest.mark.needs_root
def test_the_hook_stops_a_run_by_default_and_follows_on_shared_tree(shared_tree):
    """Claude Code's hook denies by default; on-shared-tree = warn lets it run with a note."""
    checkout, run = shared_tree
    payload = claude_pre_tool_use("pytest -x", checkout)
    output = reply(run_hook("claude", payload))["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    reason = output["permissionDecisionReason"]
    assert "another user's run is live in this checkout" in reason
    assert f"pid {run.pid} (run-tests-script" in reason
    for mode, decision in (("ask", "ask"), ("warn", None)):
        (checkout / "pyproject.toml").write_text(f'[tool.runctx]\non-shared-tree = "{mode}"\n')
        output = reply(run_hook("claude", payload))["hookSpecificOutput"]
        assert output.get("permissionDecision") == decision, output
    env = hook_env(RUNCTX_ON_SHARED_TREE="stop")
    output = reply(run_hook("claude", payload, env=env))["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"


# -- whose run is in the way: this session's, another session's, a leftover, an orphan ----


def started_from_claude_code(session: str) -> dict[str, str]:
    """The environment Claude Code's shell tool gives a command in session ``session``."""
    env = {k: v for k, v in clean_env().items() if k not in WANTED}
    env.update(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID=session)
    return env


def deny_reason(checkout, session: str) -> str:
    """Why Claude Code session ``session`` may not start ``pytest -x`` in ``checkout``."""
    payload = claude_pre_tool_use("pytest -x", checkout)
    payload["session_id"] = session
    output = reply(run_hook("claude", payload))["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    return output["permissionDecisionReason"]


def test_a_session_is_told_when_the_run_in_its_way_is_its_own(shared_tmp, runs):
    """The deny for a run this very session started says so, and how to wait for it."""
    checkout = make_checkout(shared_tmp)
    run = runs.run_tests_script(checkout, env=started_from_claude_code("sess-A"))
    reason = deny_reason(checkout, "sess-A")
    assert f"pid {run.pid} (run-tests-script, running " in reason
    assert "is your own run, started " in reason
    assert " ago in this session: wait for it with `runctx wait`" in reason
    assert f"runctx stop {run.pid}" not in reason


def test_a_run_of_another_session_is_said_to_be_that_sessions(shared_tmp, runs):
    """The deny for another session's run says whose it is and never suggests stopping it."""
    checkout = make_checkout(shared_tmp)
    run = runs.run_tests_script(checkout, env=started_from_claude_code("sess-B"))
    reason = deny_reason(checkout, "sess-A")
    assert f"pid {run.pid} (run-tests-script, running " in reason
    assert "was started by another session (claude-code session sess-B)" in reason
    assert "leave it to that session" in reason
    assert "your own run" not in reason
    assert f"runctx stop {run.pid}" not in reason


def test_a_run_of_unknown_origin_is_waited_for_never_called_a_leftover(shared_tmp, runs):
    """A run nothing says who started: the deny names it and how to wait, never to stop it."""
    checkout = make_checkout(shared_tmp)
    env = {k: v for k, v in clean_env().items() if k not in WANTED}
    run = runs.run_tests_script(checkout, env=env)
    reason = deny_reason(checkout, "sess-A")
    assert f"pid {run.pid} (run-tests-script" in reason
    assert "your own run" not in reason
    assert "`runctx wait`" in reason
    assert "leftover" not in reason
    assert f"runctx stop {run.pid}" not in reason


def test_a_persons_run_in_a_terminal_is_never_called_a_leftover(shared_tmp, runs):
    """A run started in a person's tmux pane: the deny says so, how to wait, and never stop it."""
    checkout = make_checkout(shared_tmp)
    env = {k: v for k, v in clean_env().items() if k not in WANTED}
    env.update(TMUX="/tmp/tmux-1000/default,4242,0", TMUX_PANE="%3")
    run = runs.run_tests_script(checkout, env=env)
    reason = deny_reason(checkout, "sess-A")
    assert f"pid {run.pid} (run-tests-script" in reason
    assert "a person's run, not a leftover" in reason
    assert "`runctx wait`" in reason
    assert f"runctx stop {run.pid}" not in reason
    assert "runctx stop --orphans" not in reason


def test_session_start_tells_a_resumed_session_its_own_run(shared_tmp, runs):
    """SessionStart in a checkout with this session's live run says it is the session's own."""
    checkout = make_checkout(shared_tmp)
    run = runs.run_tests_script(checkout, env=started_from_claude_code("sess-R"))
    payload = claude_session_start(checkout)
    payload["session_id"] = "sess-R"
    payload["source"] = "resume"
    answer = reply(run_hook("claude-session-start", payload, env=hook_env()))
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert f"pid {run.pid} (run-tests-script" in context
    assert "is your own run" in context


def test_the_hook_names_stop_orphans_when_an_orphan_is_in_the_way(shared_tmp, runs):
    """A deny next to orphaned workers of this checkout names `runctx stop --orphans`."""
    checkout = make_checkout(shared_tmp, "proj")
    lost = runs.xdist(checkout, workers=2, name="lost")
    workers = lost.members() - {lost.pid}
    os.kill(lost.pid, signal.SIGKILL)  # the controller only: its workers live on, reparented
    wait_for(lambda: not is_live(lost.pid), what="the controller to die")
    reason = deny_reason(checkout, "sess-A")
    assert "runctx stop --orphans" in reason
    assert all(f"pid {pid} (pytest-xdist-worker, running " in reason for pid in workers)
    assert "an orphan" in reason
