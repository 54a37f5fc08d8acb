"""Whose pids a procfs numbers: the caller found in a real /proc, and in its parent namespace's.

The child pid namespace is real (``unshare --pid --fork`` without
``--mount-proc``): that test needs root, and in CI it fails, never skips.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from nstools import child_pid_namespace_argv
from proctools import PYTHON, children_of
from runfactory import clean_env

from runctx.sources.pidns import caller_pid, other_namespace_reason, own_pid_namespace
from runctx.sources.procfs import ProcfsSource
from runctx.unknown import Reason, Unknown


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


# pid 1 of a child pid namespace says what runctx finds, then holds until its
# stdin closes, so that the test can ask psutil, from outside, which pid /proc
# gives it.
CALLER_PROBE = (
    "import json, os, sys; from runctx.sources.procfs import ProcfsSource as S; s = S(); "
    "print(json.dumps([os.getpid(), s.caller_pid(), s.own_pid_namespace()]), flush=True); "
    "sys.stdin.read()"
)


@pytest.mark.needs_root
def test_the_caller_is_found_in_a_procfs_of_its_parent_namespace(shared_tmp, runs):
    """NSpid maps the caller to the pid /proc knows it by, from inside a child namespace."""
    unshare = runs.child(
        child_pid_namespace_argv([PYTHON, "-c", CALLER_PROBE]),
        cwd=shared_tmp,
        env=clean_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = unshare.stdout.readline()
    assert line, unshare.communicate()[1]
    (command,) = children_of(unshare.pid)  # the caller, as this /proc numbers it
    unshare.communicate()
    assert unshare.returncode == 0
    own, caller, own_namespace = json.loads(line)
    assert own == 1
    assert caller != 1
    assert [command, own] == [caller, 1]  # /proc's number for the caller, then its own
    assert not own_namespace
    assert ProcfsSource().caller_pid() == os.getpid()
    assert ProcfsSource().own_pid_namespace()
