"""What a scan could not see: the limits in words, hidden processes on a real hidepid mount."""

from __future__ import annotations

import contextlib
import subprocess

import pytest
from proctools import OTHER_UID, VIEWER_UID, make_checkout, run_as

from runctx.scanning import scan, viewpoint
from runctx.sources.procfs import ProcfsSource
from runctx.sources.proctext import parse_proc_mount
from runctx.sources.visibility import describe_limits

MOUNTINFO = (
    b"22 27 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc "
    b"rw,hidepid=invisible,subset=pid\n"
)


def test_limits_are_said_in_words():
    """hidepid, unreadable processes and unreadable run fields each get a note."""
    mount = parse_proc_mount(MOUNTINFO)
    limits = describe_limits(
        source="procfs",
        mount=mount,
        own_namespace=True,
        listed=10,
        unreadable=2,
        zombies=0,
        run_fields_unreadable={"cwd": 1, "uid": 0},
    )
    text = " | ".join(limits.notes)
    assert "hidepid=invisible" in text
    assert "2 of 10 processes could not be read" in text
    assert "the cwd of 1 run process could not be read" in text
    assert "uid of" not in text


def test_this_box_reports_its_own_proc_mount():
    """The real /proc mount is found and its hidepid setting reported."""
    report = scan()
    assert report.visibility.hidepid in ("off", "noaccess", "invisible", "ptraceable")
    assert report.visibility.processes_listed > 0
    assert report.visibility.own_pid_namespace


@contextlib.contextmanager
def proc_mounted(where, options):
    """A real procfs mounted at ``where`` with ``options``; unmounted afterwards."""
    where.mkdir()
    subprocess.run(["mount", "-t", "proc", "-o", options, "proc", str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=True)


@pytest.mark.needs_root
def test_hidepid_hides_another_users_run_and_the_report_says_so(shared_tmp, runs):
    """Under hidepid=invisible another user's run is absent, and the notes say why."""
    checkout = make_checkout(shared_tmp, "proj")
    run = runs.run_tests_script(checkout, uid=OTHER_UID)
    with proc_mounted(shared_tmp / "proc", "hidepid=invisible") as mounted:

        def scan_hidden():
            return scan(viewpoint(cwd=str(checkout)), source=ProcfsSource(str(mounted)))

        hidden = run_as(VIEWER_UID, scan_hidden)
        assert run.pid not in [judged.run.pid for judged in hidden.runs]
        assert hidden.visibility.hidepid == "invisible"
        assert any("hidepid=invisible" in note for note in hidden.visibility.notes)
        open_report = run_as(VIEWER_UID, scan, viewpoint(cwd=str(checkout)))
        assert run.pid in [judged.run.pid for judged in open_report.runs]


@pytest.mark.needs_root
def test_a_hidepid_procfs_mounted_over_another_is_reported(shared_tmp):
    """A hidepid=invisible procfs stacked on a plain one at one place is what is reported."""
    with proc_mounted(shared_tmp / "proc", "hidepid=0") as where:
        stacked = ["mount", "-t", "proc", "-o", "hidepid=invisible", "proc", str(where)]
        subprocess.run(stacked, check=True)
        try:
            mount = ProcfsSource(str(where)).proc_mount()
        finally:
            subprocess.run(["umount", str(where)], check=True)
    assert getattr(mount, "hidepid", None) == "invisible"
