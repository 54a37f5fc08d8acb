"""Whose pids a procfs numbers: the NSpid parser, and the caller found in a real /proc."""

from __future__ import annotations

import os

import pytest

from runctx.sources.pidns import caller_pid, other_namespace_reason, own_pid_namespace
from runctx.sources.proctext import parse_status_nspid
from runctx.unknown import Reason, Unknown


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (b"Name:\tx\nNSpid:\t4121\n", (4121,)),
        (b"Name:\tx\nNSpid:\t31687\t3\nNSpgid:\t1\n", (31687, 3)),
        (b"Name:\tx\nNSpid:\t9\t5\t1", (9, 5, 1)),
    ],
)
def test_nspid_lists_the_pid_in_each_namespace(text, expected):
    """The NSpid line gives the pids from the procfs's namespace down to the process's own."""
    assert parse_status_nspid(text) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (b"Name:\tx\nPid:\t4\n", Reason.ABSENT),
        (b"Name:\tx\nNSpid:\t4 x\n", Reason.UNPARSABLE),
        (b"Name:\tx\nNSpid:\t\n", Reason.UNPARSABLE),
    ],
)
def test_a_missing_or_broken_nspid_is_an_unknown(text, reason):
    """An old kernel (no NSpid) or a broken line is an explicit unknown, never a pid."""
    result = parse_status_nspid(text)
    assert isinstance(result, Unknown)
    assert result.reason is reason


def test_the_caller_is_itself_in_its_own_proc():
    """In the caller's own /proc, its pid there is its own, and the namespace is its own."""
    assert caller_pid() == os.getpid()
    assert own_pid_namespace()


def test_a_directory_that_is_no_procfs_knows_no_caller(tmp_path):
    """A path with no self entry says the caller is not in it: no pid, not our namespace."""
    result = caller_pid(str(tmp_path))
    assert isinstance(result, Unknown)
    assert not own_pid_namespace(str(tmp_path))


def test_the_refusal_says_which_pid_the_procfs_gave_us():
    """The reason names the pid /proc gave the caller and the caller's own."""
    text = other_namespace_reason("procfs", 31687)
    assert f"it numbers this process 31687, not {os.getpid()}" in text
    assert "another pid namespace" in text
    assert "numbers this process" not in other_namespace_reason("psutil", Unknown(Reason.ABSENT))
