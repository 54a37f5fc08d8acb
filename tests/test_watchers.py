"""Watchers: a run that re-runs the tests on change is a ``watch`` run, never a leftover.

The command lines are fed as text (a parser); the verdicts and the words are
proved on a real ``watch -n 600 python -m pytest`` kept in a real tmux pane,
the way a person keeps one.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import uuid
from pathlib import Path

import pytest
from hooktools import claude_pre_tool_use, hook_env, reply, run_hook
from proctools import PYTHON, children_of, is_live, make_checkout, wait_for
from require import find, unavailable

from runctx.watchers import watcher_label


@pytest.mark.parametrize(
    ("argv", "label"),
    [
        ("watch -n 600 pytest -q", "watch -n 600"),
        ("/usr/bin/watch pytest", "watch"),
        ("ptw -- -x", "ptw"),
        ("/srv/venv/bin/python /srv/venv/bin/ptw", "ptw"),
        ("python -m pytest_watch", "pytest-watch"),
        ("pytest -f tests", "pytest -f"),
        ("python3 -m pytest --looponfail", "pytest --looponfail"),
        ("node /p/node_modules/.bin/jest --watch", "jest --watch"),
        ("npx jest --watchAll", "jest --watchAll"),
        ("vitest watch", "vitest watch"),
        ("mocha -w", "mocha -w"),
        ("node --test --watch", "node --watch"),
        ("cargo watch -x test", "cargo watch"),
        ("cargo-watch -x test", "cargo-watch -x"),
        ("watchexec -e py -- pytest", "watchexec -e"),
        ("entr -c pytest", "entr -c"),
        ("nodemon --exec npm test", "nodemon --exec"),
        ("dotnet watch test", "dotnet watch"),
        ("npm run test:watch", "npm run test:watch"),
        ("env FOO=1 uv run ptw", "ptw"),
        ("gradle -t test", "gradle -t"),
        ("sbt ~test", "sbt ~"),
    ],
)
def test_each_kind_of_watcher_is_named(argv, label):
    """Programs that re-run on change, runners asked to watch, tasks named for it."""
    assert watcher_label(shlex.split(argv)) == label


@pytest.mark.parametrize(
    "argv",
    [
        "pytest -x",
        "python -m pytest -n 4",
        "jest --watch=false",
        "vitest run",
        "npm test",
        "cargo test",
        "make test",
        "go test ./...",
        "mocha",
    ],
)
def test_a_run_that_ends_by_itself_is_no_watcher(argv):
    """A run that runs the tests once is never taken for a watcher."""
    assert watcher_label(shlex.split(argv)) is None


def test_a_bare_vitest_watches_only_from_a_persons_terminal_and_a_declared_one_counts():
    """``vitest`` watches by default on a terminal; a program the settings declare is one."""
    assert watcher_label(["vitest"]) is None
    assert watcher_label(["vitest"], from_person=True) == "vitest (watch mode)"
    assert watcher_label(["vitest", "--run"], from_person=True) is None
    assert watcher_label(["mywatch", "pytest"]) is None
    assert watcher_label(["mywatch", "pytest"], ["mywatch"]) == "mywatch"


# --------------------------------------------------------------------------- a real scene

TEST_FILE = """
import os, pathlib

def test_once():
    pathlib.Path(os.environ["WATCHED_READY"]).touch()
"""


def _tmux(tmux: str, socket: str, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [tmux, "-L", socket, "-f", os.devnull, *args],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=30,
    )
    return done.stdout.strip()


@pytest.fixture
def watcher_in_tmux(shared_tmp, runs):
    """A person's ``watch -n 600 python -m pytest -q`` in a tmux pane, between two runs."""
    tmux = find("tmux")
    if tmux is None:
        unavailable("tmux is not installed")
    checkout = make_checkout(shared_tmp)
    (checkout / "test_watched.py").write_text(TEST_FILE)
    ready = shared_tmp / f"watched-{uuid.uuid4().hex}"
    socket = f"runctx-test-{uuid.uuid4().hex[:12]}"
    # a person's terminal: no CI or agent variables (tmux adds TMUX and TMUX_PANE)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/"),
        "TERM": "xterm",
        "LANG": "C.UTF-8",
        "WATCHED_READY": str(ready),
        "RUNCTX_HOOK_DEADLINE": "3600",
    }
    command = f"watch -n 600 {shlex.quote(PYTHON)} -m pytest -q -p no:cacheprovider"
    _tmux(
        tmux,
        socket,
        *("new-session", "-d", "-s", "w", "-x", "120", "-y", "30", "-c", str(checkout), command),
        env=env,
    )
    pane = int(_tmux(tmux, socket, "display-message", "-p", "-t", "w", "#{pane_pid}"))
    runs.adopt(pane)  # the pane's process group is reaped with the others
    try:
        wait_for(ready.exists, timeout=120, what="the watched pytest to run once")
        # its first run over: watch waits its 600 s, with no child
        wait_for(lambda: not children_of(pane), timeout=120, what="the first run to end")
        yield checkout, pane
    finally:
        subprocess.run(
            [tmux, "-L", socket, "kill-server"], capture_output=True, check=False, timeout=30
        )
        wait_for(lambda: not is_live(pane), what=f"the tmux pane {pane} to end")


def _pre_tool(checkout: Path) -> dict[str, object]:
    payload = claude_pre_tool_use("pytest -x", checkout)
    return reply(run_hook("claude", payload, env=hook_env()))["hookSpecificOutput"]


def test_a_persons_watcher_gets_one_line_never_leftover_never_stop(watcher_in_tmux):
    """The real hook lets the agent's run go ahead, with one line naming the person's watcher."""
    checkout, pane = watcher_in_tmux
    output = _pre_tool(checkout)
    assert "permissionDecision" not in output  # not refused, never "allow" either
    context = output["additionalContext"]
    named = [line for line in context.splitlines() if f"pid {pane}" in line]
    assert len(named) == 1, context
    assert named[0].startswith(f"runctx: pid {pane} re-runs this checkout's tests on change")
    assert "`watch -n 600`, a person's, started from tmux pane %" in named[0]
    assert "this test run goes ahead" in named[0]
    assert "leftover" not in context.replace("not a leftover", "")
    assert "runctx stop" not in context


def test_a_checkout_can_refuse_next_to_a_watcher_and_still_never_says_stop(watcher_in_tmux):
    """``on-watcher = "stop"``: a refusal that names the watcher, with no advice to stop it."""
    checkout, pane = watcher_in_tmux
    with (checkout / "pyproject.toml").open("a") as file:
        file.write('\n[tool.runctx]\non-watcher = "stop"\n')
    output = _pre_tool(checkout)
    assert output["permissionDecision"] == "deny"
    reason = output["permissionDecisionReason"]
    assert f"pid {pane} re-runs this checkout's tests on change" in reason
    assert "on-watcher" in reason
    assert "runctx stop" not in reason
    assert "leftover" not in reason.replace("not a leftover", "")


def test_wait_does_not_wait_for_ever_on_a_watcher_unless_asked(watcher_in_tmux):
    """``runctx wait`` is ready at once next to a watcher (and says so); --watchers waits."""
    checkout, pane = watcher_in_tmux
    runctx = [PYTHON, "-m", "runctx"]
    env = hook_env()
    done = subprocess.run(
        [*runctx, "wait", "--timeout", "60"],
        cwd=checkout,
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert f"not waiting for this checkout's watcher pid {pane} (`watch -n 600`)" in done.stderr
    asked = subprocess.run(
        [*runctx, "wait", "--watchers", "--timeout", "0"],
        cwd=checkout,
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )
    assert asked.returncode == 75, asked.stderr
    assert f"pid {pane}" in asked.stderr
    status = subprocess.run(
        [*runctx, "status", "--json"],
        cwd=checkout,
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=120,
    )
    shown = {run["pid"]: run["watcher"] for run in json.loads(status.stdout)["runs"]}
    assert shown[pane] == "watch -n 600"
