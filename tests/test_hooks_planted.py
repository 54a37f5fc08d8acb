"""A FIFO planted in a shared parent, or a cwd deeper than any path: no face hangs.

Each face runs as a real process under a generous hang guard; before the fix
each of these blocked for ever (the FIFO) or for minutes (the deep cwd).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hooktools import claude_pre_tool_use, hook_env, run_hook
from proctools import PYTHON, make_checkout
from runfixtures import clean_env, start_run_tests_script

HANG_GUARD = 60


@pytest.fixture
def planted(shared_tmp):
    """``shared/work``: a directory whose parent holds a FIFO named pyproject.toml."""
    work = shared_tmp / "shared" / "work"
    work.mkdir(parents=True)
    os.mkfifo(shared_tmp / "shared" / "pyproject.toml")
    return work


@pytest.mark.parametrize("command", ["ls", "pytest -x"])
def test_the_hook_answers_next_to_a_planted_fifo(planted, command):
    """The hook neither hangs nor fails on a FIFO pyproject.toml above the cwd."""
    done = run_hook("claude", claude_pre_tool_use(command, planted))
    assert done.returncode == 0
    assert "failed open" not in done.stderr, done.stderr
    if done.stdout:
        json.loads(done.stdout)


def test_status_answers_next_to_a_planted_fifo(planted):
    """The status command in a directory under a planted FIFO prints its report."""
    done = subprocess.run(
        [sys.executable, "-m", "runctx", "status"],
        cwd=planted,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env=hook_env(),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Viewpoint: {planted} as ")


def test_a_pytest_session_is_not_held_by_a_planted_fifo(planted):
    """The plugin cannot hang a session: pytest under a planted FIFO runs its tests."""
    (planted / "test_one.py").write_text("def test_one():\n    pass\n")
    done = subprocess.run(
        [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(planted)],
        cwd=planted,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env=clean_env(),
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_a_cwd_of_half_a_million_components_is_answered_at_once(shared_tmp):
    """A payload cwd far longer than PATH_MAX is unknown at once: the hook answers, exit 0."""
    run = start_run_tests_script(make_checkout(shared_tmp))  # a run of this user to speak of
    try:
        done = run_hook("claude", claude_pre_tool_use("pytest -x", "/" + "a/" * 520_000))
    finally:
        run.kill()
    assert done.returncode == 0
    assert "failed open" not in done.stderr, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "PATH_MAX" in context


def test_a_cwd_too_deep_for_a_non_test_command_is_silent():
    """The same cwd with ``ls`` costs nothing and says nothing."""
    done = run_hook("claude", claude_pre_tool_use("ls", "/" + "a/" * 520_000))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


SLOW_WALK = """
import sys, time
import runctx.hooks.main as hook

def slow_walk(cwd):
    time.sleep(60)  # a walk up a tree that never ends
    return cwd

hook.checkout_root = slow_walk
sys.exit(hook.main(["claude"]))
"""


def test_the_deadline_covers_the_walk_to_the_checkout_root(tmp_path):
    """A walk that takes for ever is cut by the hook's deadline: exit 0, failed open."""
    done = subprocess.run(
        [sys.executable, "-c", SLOW_WALK],
        input=json.dumps(claude_pre_tool_use("ls", tmp_path)),
        capture_output=True,
        text=True,
        env=hook_env(RUNCTX_HOOK_DEADLINE="0.5"),
        timeout=HANG_GUARD,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout == ""
    assert done.stderr.startswith("runctx: hook failed open: no decision within the deadline")
