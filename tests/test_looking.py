"""What a scan's child tells its waiter of the look under way (runctx.looking), over a fork."""

from __future__ import annotations

import os
import signal
import time

import pytest
from proctools import make_checkout, wait_for

from runctx import looking
from runctx.child import ChildError, GaveUpError, GiveUp, HeldError, value_in_child
from runctx.looking import WATCH, Looked
from runctx.policy import measures_cpu
from runctx.report import Report
from runctx.scanning import scan, viewpoint
from runctx.settings import DEFAULTS


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
        assert looking.held(watch, sleeping, after=600) is None  # a bound of its own
        assert (looking.held(watch, sleeping, after=0) or pytest.fail("no look")).pid == sleeping
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


def test_looking_without_a_shared_page_is_seen_by_no_one(monkeypatch):
    """A scan in the caller's own process: looks cost a test and leave nothing to read."""
    monkeypatch.setattr(WATCH, "page", None)  # as before any child was forked
    WATCH.at(os.getpid(), Looked.CWD)
    WATCH.done()
    assert looking.Watch().now() is None


MOUNTINFO = b"""\
22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
23 22 0:21 / /proc rw,nosuid shared:12 - proc proc rw
24 22 0:5 / /home/me/src rw shared:2 - overlay overlay rw,lowerdir=/a
"""


@pytest.mark.parametrize(
    ("line", "may_stop"),
    [
        (b"40 22 0:50 / /mnt/build rw,relatime shared:30 - nfs4 srv:/build rw,vers=4.2", True),
        (b"41 22 0:51 / /home/me/remote rw - fuse.sshfs me@host:/ rw,user_id=1000", True),
        (b"42 22 0:52 / /mnt/c rw,noatime - 9p drvfs rw,aname=drvfs", True),
        (b"43 22 0:53 / /srv/share rw - cifs //srv/share rw,vers=3.1.1", True),
        (b"44 22 0:54 / /mnt/raw rw - fuse runctx-test rw,user_id=0", True),
        (b"45 22 0:55 / /tmp rw,nosuid - tmpfs tmpfs rw", False),
        (b"46 22 0:56 / /mnt/fuse-named-dir rw - xfs /dev/sdb1 rw", False),
    ],
)
def test_network_and_fuse_file_systems_may_stop_answering(line, may_stop):
    """The type after `` - `` decides: a network file system or FUSE; a path's name does not."""
    assert looking.any_may_stop_answering(MOUNTINFO + line + b"\n") is may_stop
    assert looking.any_may_stop_answering(MOUNTINFO) is False


def test_a_value_comes_back_from_the_child():
    """The work runs in another process; its value comes back whole."""
    pid, value = value_in_child(lambda: (os.getpid(), {"runs": [1, 2]}))
    assert pid != os.getpid()
    assert value == {"runs": [1, 2]}


def test_what_the_child_raised_is_said():
    """An error in the child comes back as text: its type and message."""

    def failing() -> None:
        msg = "no such checkout"
        raise FileNotFoundError(msg)

    with pytest.raises(ChildError, match="FileNotFoundError: no such checkout"):
        value_in_child(failing)


def test_a_child_held_by_a_look_is_given_up_and_named(monkeypatch):
    """A look that holds the child (here, one that sleeps) ends the wait with the look named."""
    monkeypatch.setattr(looking, "HELD_AFTER_SECONDS", 0.2)

    def held() -> None:
        WATCH.at(os.getpid(), Looked.CWD)
        time.sleep(600)

    try:
        with pytest.raises(HeldError) as raised:
            value_in_child(held)
    finally:
        WATCH.page = None
    child = raised.value.look.pid
    assert child != os.getpid()
    assert f"the scan is held looking at the cwd of pid {child}" in str(raised.value)
    wait_for(lambda: not os.path.exists(f"/proc/{child}"), what="the held child to be killed")


@pytest.mark.parametrize("doing", ["sleeps", "spins", "looks"])
def test_a_child_not_done_by_its_bound_is_given_up_and_the_bound_named(monkeypatch, doing):
    """Past ``give_up``, the wait ends before any look holds the child, naming the bound.

    A look under way that has lasted :data:`~runctx.looking.NAMED_AFTER_SECONDS`
    is named; a child that sleeps or runs on its own is late, not held.
    """
    monkeypatch.setattr(looking, "NAMED_AFTER_SECONDS", 0.1)

    def slow() -> None:
        if doing == "looks":
            WATCH.at(os.getpid(), Looked.CWD)
        if doing == "spins":
            while True:
                pass
        time.sleep(600)

    began = time.monotonic()
    try:
        with pytest.raises(GaveUpError) as raised:
            value_in_child(slow, give_up=GiveUp(at=began + 0.5, named="--timeout 0.5s"))
    finally:
        WATCH.page = None
    said = str(raised.value)
    assert said.endswith("; gave up after --timeout 0.5s"), said
    assert time.monotonic() - began < looking.HELD_AFTER_SECONDS
    if doing != "looks":
        assert said.startswith(looking.NOT_DONE), said
        assert "held" not in said, said
        return
    assert "the scan is held looking at the cwd of pid " in said, said
    child = int(said.split("pid ", 1)[1].split(maxsplit=1)[0])
    assert child != os.getpid()
    wait_for(lambda: not os.path.exists(f"/proc/{child}"), what="the given-up child to be killed")


def test_what_the_child_writes_comes_through_this_process(capfd):
    """The child's stdout and stderr are pipes this process reads and writes on."""
    assert value_in_child(lambda: os.write(1, b"out\n") + os.write(2, b"err\n")) == 8
    written = capfd.readouterr()
    assert (written.out, written.err) == ("out\n", "err\n")


def test_a_scan_comes_back_from_the_child_as_it_was_made(shared_tmp, runs):
    """The plugin's scan done in a child: the report, its runs and verdicts, come back whole."""
    checkout = make_checkout(shared_tmp, "proj")
    live = runs.run_tests_script(checkout)
    here = viewpoint(cwd=str(checkout))

    def scanned() -> Report:
        return scan(here, cpu_window=0.1, cpu_of=measures_cpu, settings=DEFAULTS)

    report = value_in_child(scanned)
    assert isinstance(report, Report)
    judged = {each.run.pid: each for each in report.runs}
    assert judged[live.pid].run.root == str(checkout)
    assert not judged[live.pid].foreign
    assert [each.run.pid for each in report.ours_known] == [live.pid]
