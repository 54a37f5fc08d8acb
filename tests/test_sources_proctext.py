"""The parsers of /proc text: fed bytes, they give a value or an explicit unknown."""

from __future__ import annotations

import os

import pytest

from runctx.sources.proctext import (
    parse_cmdline,
    parse_proc_mount,
    parse_stat,
    parse_status_nspid,
    parse_status_uid,
)
from runctx.unknown import Reason, Unknown

STAT_TAIL = b" S 1 2 3 0 -1 4194560 10 0 0 0 7 5 0 0 20 0 1 0 4242 100 25 18446744073709551615"

MOUNTINFO = (
    b"22 27 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc "
    b"rw,hidepid=invisible,subset=pid\n"
    b"23 27 0:22 / /sys rw - sysfs sysfs rw\n"
)


def test_stat_parses_a_name_with_spaces_parentheses_and_newlines():
    """The command name is everything between the first '(' and the last ')'."""
    stat = parse_stat(b"4121 (a) b\n(c) d)" + STAT_TAIL)
    assert not isinstance(stat, Unknown)
    assert stat.comm == "a) b\n(c) d"
    assert (stat.pid, stat.state, stat.ppid, stat.pgid, stat.sid) == (4121, "S", 1, 2, 3)
    assert stat.cpu_ticks == 12
    assert stat.start_ticks == 4242
    assert stat.rss_pages == 25


def test_stat_without_parentheses_is_unparsable():
    """Text without a command name is an explicit unknown, not an exception."""
    result = parse_stat(b"garbage")
    assert isinstance(result, Unknown)
    assert result.reason is Reason.UNPARSABLE


def test_stat_with_too_few_fields_is_unparsable():
    """A truncated stat line gives an unknown, not an IndexError."""
    result = parse_stat(b"12 (x) S 1 2")
    assert isinstance(result, Unknown)
    assert result.reason is Reason.UNPARSABLE


def test_cmdline_keeps_empty_arguments_and_bad_bytes():
    """NUL-separated argv keeps empty args, and non-UTF-8 bytes round-trip."""
    argv = parse_cmdline(b"python\0-c\0\0\xff\xfe\0")
    assert argv[:3] == ("python", "-c", "")
    assert os.fsencode(argv[3]) == b"\xff\xfe"
    assert parse_cmdline(b"") == ()


def test_status_uid_takes_the_real_uid():
    """The first column of the Uid line is the real uid."""
    text = b"Name:\tx\nUmask:\t0022\nUid:\t1000\t0\t0\t0\nGid:\t1\t1\t1\t1\n"
    assert parse_status_uid(text) == 1000
    missing = parse_status_uid(b"Name:\tx\n")
    assert isinstance(missing, Unknown)


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


def test_mountinfo_gives_hidepid_and_subset():
    """The super options after the separator carry hidepid= and subset=pid."""
    mount = parse_proc_mount(MOUNTINFO)
    assert mount is not None
    assert mount.hidepid == "invisible"
    assert mount.subset_pid


def test_numeric_hidepid_values_get_their_names():
    """hidepid=2 is the older spelling of invisible."""
    mount = parse_proc_mount(b"1 2 0:3 / /proc rw - proc proc rw,hidepid=2\n")
    assert mount is not None
    assert mount.hidepid == "invisible"
    assert not mount.subset_pid


def test_no_proc_line_gives_none():
    """A mountinfo without a procfs at the mount point gives None, not a guess."""
    assert parse_proc_mount(b"23 27 0:22 / /sys rw - sysfs sysfs rw\n") is None
