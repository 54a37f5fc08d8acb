"""What a scan's child tells its waiter of the look under way (runctx.looking), over a fork."""

from __future__ import annotations

import os
import signal
import time

import pytest
from proctools import wait_for

from runctx import looking
from runctx.looking import WATCH, Looked


def _child_looking(looked: Looked, *, sleep: bool) -> int:
    """A forked child that begins a look at ``looked`` of itself, then sleeps (or spins)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child ends in os._exit
        try:
            WATCH.at(os.getpid(), looked)
            if sleep:
                time.sleep(600)
            while True:
                pass
        finally:
            os._exit(0)
    return pid


def _end(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


@pytest.fixture
def watch():
    """A shared page, and this process's watch set back to none after the test."""
    made = looking.shared()
    yield made
    WATCH.page = None


def test_the_waiter_sees_the_look_a_forked_child_began(watch):
    """The child writes, the waiter reads the same page: which process, what of it, how long."""
    pid = _child_looking(Looked.EXECUTABLE, sleep=True)
    try:
        wait_for(lambda: watch.now() is not None, what="the child's look to show")
        look = watch.now()
        assert look is not None
        assert (look.pid, look.looked) == (pid, Looked.EXECUTABLE)
        assert look.seconds >= 0
        assert look.words() == f"the executable of pid {pid} ({os.readlink('/proc/self/exe')})"
    finally:
        _end(pid)


def test_a_look_that_returned_is_no_longer_seen(watch):
    """``done`` clears the page: nothing holds a child whose looks all returned."""
    WATCH.at(os.getpid(), Looked.CWD)
    assert watch.now() is not None
    WATCH.done()
    assert watch.now() is None


def test_a_long_look_holds_a_sleeping_child_and_not_a_running_one(watch, monkeypatch):
    """Held: a look that lasted the bound while the child slept; a runnable child is working."""
    monkeypatch.setattr(looking, "HELD_AFTER_SECONDS", 0.2)
    sleeping = _child_looking(Looked.CWD, sleep=True)
    spinning = None
    try:
        wait_for(lambda: looking.held(watch, sleeping) is not None, what="the look to hold it")
        held = looking.held(watch, sleeping)
        assert held is not None
        assert held.pid == sleeping
        assert held.words() == f"the cwd of pid {sleeping} ({os.getcwd()})"
        _end(sleeping)
        sleeping = None
        spinning = _child_looking(Looked.CWD, sleep=False)
        wait_for(lambda: watch.now() is not None, what="the spinning child's look")
        time.sleep(0.3)
        assert (watch.now() or pytest.fail("no look")).seconds >= 0.2
        assert looking.held(watch, spinning) is None  # runnable: it works, nothing holds it
    finally:
        for pid in (sleeping, spinning):
            if pid is not None:
                _end(pid)


def test_looking_without_a_shared_page_is_seen_by_no_one():
    """A scan in the caller's own process: looks cost a test and leave nothing to read."""
    assert WATCH.page is None
    WATCH.at(os.getpid(), Looked.CWD)
    WATCH.done()
    assert looking.Watch().now() is None
