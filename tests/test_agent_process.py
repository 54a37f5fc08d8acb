"""The agent process a hook answers, and the runs that descend from it: real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from proctools import PYTHON, start_ticks, wait_for

from runctx.agent_process import AgentProcess, descends_from, hook_agent
from runctx.report import StartedBy
from runctx.started_by import AgentSession, Relation, relation
from runctx.unknown import Unknown

FIND_AGENT = (
    "import json; from runctx.agent_process import hook_agent; found = hook_agent(); "
    "print(json.dumps([found.pid, found.start_ticks] if hasattr(found, 'pid') else None))"
)


def this_process() -> AgentProcess:
    """The test process, named as an agent process."""
    return AgentProcess(os.getpid(), start_ticks(os.getpid()))


def test_a_hook_run_through_shells_finds_the_process_above_them() -> None:
    """The agent is the nearest ancestor that is no shell: the shells in between are passed."""
    done = subprocess.run(
        ["sh", "-c", f"bash -c {json.dumps(f'{PYTHON} -c {json.dumps(FIND_AGENT)}')}; true"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout) == [os.getpid(), start_ticks(os.getpid())]


def test_a_hook_started_directly_finds_its_parent() -> None:
    """With no shell in between, the parent is the agent."""
    done = subprocess.run(
        [sys.executable, "-c", FIND_AGENT], capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == [os.getpid(), start_ticks(os.getpid())]


def test_no_agent_is_found_above_a_pid_that_is_gone(runs, tmp_path: Path) -> None:
    """A pid that cannot be read gives an explicit unknown, never a process."""
    child = runs.sleeper(tmp_path / "up")
    pid = child.pid
    runs.kill(child)
    found = hook_agent(pid)
    assert isinstance(found, Unknown)
    assert str(pid) in found.detail


def test_a_background_command_of_a_shell_descends_from_the_agent(runs, tmp_path: Path) -> None:
    """A run started in the background by the agent's shell, still under it, is its descendant."""
    ready = tmp_path / "bg-pid"
    shell = runs.child(["sh", "-c", f"sleep 120 & echo $! > {ready}; wait"])
    wait_for(lambda: ready.exists() and ready.read_text().strip() != "", what="the bg pid")
    background = int(ready.read_text())
    assert descends_from(background, this_process())
    assert descends_from(shell.pid, this_process())
    # The same pid with another start time is another process: never taken for it.
    reused = AgentProcess(os.getpid(), start_ticks(os.getpid()) + 1)
    assert not descends_from(background, reused)


def test_an_orphaned_run_descends_from_nothing(runs, tmp_path: Path) -> None:
    """A run that lost its parent (reparented) does not descend from the agent."""
    orphan = runs.orphan([PYTHON, "-c", "import time; time.sleep(120)"], tmp_path)
    assert not descends_from(orphan.pid, this_process())


def test_a_run_under_the_agent_without_a_session_id_is_its_own(runs, tmp_path: Path) -> None:
    """Gemini CLI's commands carry no session id: the process tree says the run is its own."""
    shell = runs.child(["sh", "-c", "sleep 120"])
    session = AgentSession("gemini-cli", "a-session", this_process())
    started = StartedBy("gemini-cli", None, None)
    assert relation(started, session, shell.pid) is Relation.OWN
    # Without the pid, or from a run that is not under the agent: not known.
    assert relation(started, session) is Relation.UNKNOWN
    orphan = runs.orphan([PYTHON, "-c", "import time; time.sleep(120)"], tmp_path)
    assert relation(started, session, orphan.pid) is Relation.UNKNOWN
    # Another agent's run under the same process is another session's, as before.
    assert relation(StartedBy("codex", None, None), session, shell.pid) is Relation.OTHER_SESSION
    # Known ids decide first: another known session under this process is not ours.
    other = StartedBy("gemini-cli", "another-session", None)
    assert relation(other, session, shell.pid) is Relation.OTHER_SESSION


def test_a_run_under_the_agent_that_its_shell_did_not_mark_is_its_own(runs) -> None:
    """An agent whose shell sets none of its variables: the tree alone says the run is its own."""
    shell = runs.child(["sh", "-c", "sleep 120"])
    session = AgentSession("copilot", None, this_process())
    for started in (StartedBy("ci", None, None), StartedBy("terminal", None, None)):
        assert relation(started, session, shell.pid) is Relation.OWN
    assert relation(StartedBy("terminal", None, None), session) is Relation.UNKNOWN
