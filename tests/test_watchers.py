"""Watchers: a run that re-runs the tests on change is a ``watch`` run, never a leftover.

The command lines are fed as text (a parser); the verdicts and the words are
proved on a real ``watch -n 600 python -m pytest`` kept in a real tmux pane,
the way a person keeps one.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hooktools import claude_pre_tool_use, hook_env, reply, run_hook
from proctools import PYPROJECT, PYTHON, children_of, is_live, make_checkout, tmux_says, wait_for
from readable import shared_tempdir
from require import find, unavailable
from runfactory import RunFactory

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


@pytest.fixture(scope="module")
def tmux_watcher() -> Iterator[tuple[Path, int]]:
    """A person's ``watch -n 600 python -m pytest -q`` in a tmux pane, between two runs.

    One per module: starting it runs pytest once, the slow part; the tests read
    it and each writes the checkout's settings it asks under (:func:`watcher_in_tmux`).
    """
    tmux = find("tmux")
    if tmux is None:
        unavailable("tmux is not installed")
    base = shared_tempdir("runctx-watcher-").resolve()
    runs = RunFactory()
    checkout = make_checkout(base)
    (checkout / "test_watched.py").write_text(TEST_FILE)
    ready = base / f"watched-{uuid.uuid4().hex}"
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
    pane = 0
    try:
        size = ("-x", "120", "-y", "30")
        start = ("new-session", "-d", "-s", "w", *size, "-c", str(checkout), command)
        tmux_says(tmux, socket, *start, env=env)
        pane = int(tmux_says(tmux, socket, "display-message", "-p", "-t", "w", "#{pane_pid}"))
        runs.adopt(pane)  # the pane's process group is reaped with the others
        wait_for(ready.exists, timeout=120, what="the watched pytest to run once")
        # its first run over: watch waits its 600 s, with no child
        wait_for(lambda: not children_of(pane), timeout=120, what="the first run to end")
        yield checkout, pane
    finally:
        subprocess.run(
            [tmux, "-L", socket, "kill-server"], capture_output=True, check=False, timeout=30
        )
        if pane:
            wait_for(lambda: not is_live(pane), what=f"the tmux pane {pane} to end")
        runs.reap()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def watcher_in_tmux(tmux_watcher: tuple[Path, int]) -> tuple[Path, int]:
    """The module's watcher, its checkout's settings as :func:`make_checkout` wrote them."""
    checkout, _pane = tmux_watcher
    (checkout / "pyproject.toml").write_text(PYPROJECT)
    return tmux_watcher


def _pre_tool(checkout: Path) -> dict[str, object]:
    payload = claude_pre_tool_use("pytest -x", checkout)
    return reply(run_hook("claude", payload, env=hook_env()))["hookSpecificOutput"]


@pytest.mark.parametrize(
    ("setting", "decision", "words"),
    [
        pytest.param(
            "",
            None,
            ("`watch -n 600`, a person's, started from tmux pane %", "this test run goes ahead"),
            id="default-goes-ahead",
        ),
        # A checkout can refuse next to a watcher: the refusal names it and the setting.
        pytest.param('on-watcher = "stop"', "deny", ("on-watcher",), id="on-watcher-stop"),
    ],
)
def test_a_persons_watcher_is_named_in_one_line_never_leftover_never_stop(
    watcher_in_tmux, setting, decision, words
):
    """The real hook names the person's watcher in one line, as the checkout's setting decides.

    By default the agent's run goes ahead (never "allow" either); under
    ``on-watcher = "stop"`` it is refused. Either way nothing calls the watcher
    a leftover or advises stopping it.
    """
    checkout, pane = watcher_in_tmux
    if setting:
        with (checkout / "pyproject.toml").open("a") as file:
            file.write(f"\n[tool.runctx]\n{setting}\n")
    output = _pre_tool(checkout)
    assert output.get("permissionDecision") == decision
    said = str(output["permissionDecisionReason" if decision else "additionalContext"])
    named = [line for line in said.splitlines() if f"pid {pane}" in line]
    assert len(named) == 1, said
    assert f"pid {pane} re-runs this checkout's tests on change" in named[0]
    for word in words:
        assert word in named[0], said
    assert "leftover" not in said.replace("not a leftover", "")
    assert "runctx stop" not in said


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
