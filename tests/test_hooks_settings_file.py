"""Agent settings files (``hooks/settings_file.py``): the ready files, and updates under a lock."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from proctools import wait_for

from runctx.hooks import settings_file
from runctx.hooks.agents import AGENT_NAMES, agent

ROOT = Path(__file__).resolve().parents[1]
READY_FILES = {
    name: f"hooks/{name}/{os.path.basename(agent(name).FILES.project)}" for name in AGENT_NAMES
}
"""The ready file of each agent: what an install writes into a new project file."""


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_the_ready_files_match_what_install_writes(name):
    """hooks/ holds, for every agent, what an install into an empty file produces."""
    document: dict[str, object] = {}
    settings_file.install(agent(name).INSTALL, document, "runctx", "ready")
    assert settings_file.settings_text(document, None) == (ROOT / READY_FILES[name]).read_text()


def lock_waiters(directory: Path) -> int:
    """How many lock requests on ``directory`` the kernel holds blocked (``->`` in /proc/locks)."""
    info = directory.stat()
    where = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    with open("/proc/locks") as locks:
        return sum(line.split()[1] == "->" and where in line.split() for line in locks)


def test_an_update_waits_while_another_holds_the_file(tmp_path):
    """A second update blocks on the lock until the first is written: neither change is lost."""
    path = tmp_path / "settings.json"
    path.write_text("{}\n")
    inside, release = threading.Event(), threading.Event()

    def first_change(document, _where):
        document["first"] = True
        inside.set()
        release.wait()
        return "first", True

    def second_change(document, _where):
        document["second"] = True
        return "second", True

    first = threading.Thread(target=settings_file.update, args=(str(path), first_change))
    first.start()
    try:
        inside.wait()
        second = threading.Thread(target=settings_file.update, args=(str(path), second_change))
        second.start()
        wait_for(lambda: lock_waiters(tmp_path) == 1, what="the second update to wait for the lock")
        assert json.loads(path.read_text()) == {}
    finally:
        release.set()
        first.join()
    second.join()
    assert json.loads(path.read_text()) == {"first": True, "second": True}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]
