"""The parsers of /proc text: fed bytes, they give a value or an explicit unknown.

Examples first; then property tests: each parser fed arbitrary bytes (it must
not raise, and must give its value type or an ``Unknown``) and well-formed
text built from arbitrary parts (it must give those parts back exactly). That
they run in linear time is checked by ``make fuzz`` (``fuzz/linear.py``),
never by a timed test.
"""

from __future__ import annotations

import math
import os

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from runctx.sources.proctext import (
    Pressure,
    ProcMount,
    StatFields,
    parse_cgroup_v2_path,
    parse_cmdline,
    parse_cpu_max,
    parse_loadavg,
    parse_pressure,
    parse_proc_mount,
    parse_stat,
    parse_status_nspid,
    parse_status_uid,
    parse_uptime,
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


STACKED = (
    b"45 43 0:21 / /proc rw,relatime - proc proc rw\n"
    b"23 27 0:22 / /sys rw - sysfs sysfs rw\n"
    b"63 45 0:39 / /proc rw,relatime - proc proc rw,hidepid=invisible\n"
)


def test_the_last_procfs_at_a_mount_point_is_the_one_in_effect():
    """Of two procfs mounts at /proc, the one mounted last (on top) is reported."""
    mount = parse_proc_mount(STACKED)
    assert mount is not None
    assert mount.hidepid == "invisible"


# -- properties ---------------------------------------------------------------------------

PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
counts = st.integers(min_value=0, max_value=2**63 - 1)
anything = st.binary(max_size=4096)


def is_unparsable(value: object) -> bool:
    """Whether ``value`` is the explicit unknown a parser gives for bad text."""
    return isinstance(value, Unknown) and value.reason is Reason.UNPARSABLE


# -- stat -----------------------------------------------------------------------------


def stat_text(pid: int, comm: bytes, state: bytes, numbers: list[int]) -> bytes:
    """A ``/proc/PID/stat`` line with ``comm`` in its parentheses, printed as the kernel does."""
    return b"%d (%s) %s " % (pid, comm, state) + b" ".join(b"%d" % n for n in numbers) + b"\n"


@PROPERTY
@given(anything)
@example(b"")
@example(b"1 ((()) R")
@example(b"1 (a) R" + b" 9" * 5000)
def test_stat_of_any_bytes_is_fields_or_unparsable(data):
    """Any bytes parse to the stat fields or to an explicit unparsable unknown."""
    parsed = parse_stat(data)
    assert isinstance(parsed, StatFields) or is_unparsable(parsed)


@PROPERTY
@given(
    pid=st.integers(min_value=1, max_value=2**22),
    comm=st.binary(max_size=64),
    state=st.sampled_from([b"R", b"S", b"D", b"Z", b"T", b"X", b"I"]),
    numbers=st.lists(counts, min_size=50, max_size=52),
)
@example(pid=1, comm=b") R 1 2 3 (", state=b"S", numbers=list(range(50)))
@example(pid=7, comm=b"a\nb) (c", state=b"R", numbers=[0] * 50)
def test_stat_with_any_command_name_gives_every_field_back(pid, comm, state, numbers):
    """Whatever the command name holds (parens, spaces, newlines, bytes), the fields are exact."""
    parsed = parse_stat(stat_text(pid, comm, state, numbers))
    assert isinstance(parsed, StatFields)
    assert parsed.pid == pid
    assert parsed.comm == comm.decode(errors="replace")
    assert parsed.state == state.decode()
    assert (parsed.ppid, parsed.pgid, parsed.sid) == (numbers[0], numbers[1], numbers[2])
    assert parsed.flags == numbers[5]
    assert parsed.cpu_ticks == numbers[10] + numbers[11]
    assert parsed.start_ticks == numbers[18]
    assert parsed.rss_pages == numbers[20]


# -- cmdline --------------------------------------------------------------------------


@PROPERTY
@given(anything)
def test_cmdline_of_any_bytes_keeps_every_byte(data):
    """The argv of any bytes (NULs, bad UTF-8) joins back to exactly those bytes."""
    argv = parse_cmdline(data)
    assert isinstance(argv, tuple)
    assert all(isinstance(arg, str) for arg in argv)
    rebuilt = b"\0".join(os.fsencode(arg) for arg in argv)
    assert rebuilt == (data[:-1] if data.endswith(b"\0") else data)


@PROPERTY
@given(st.lists(st.binary(max_size=40).filter(lambda arg: b"\0" not in arg), min_size=1))
def test_cmdline_gives_each_argument_back(arguments):
    """NUL-terminated arguments with any other bytes come back one by one, exactly."""
    data = b"".join(arg + b"\0" for arg in arguments)
    assert [os.fsencode(arg) for arg in parse_cmdline(data)] == arguments


# -- status ---------------------------------------------------------------------------


@PROPERTY
@given(anything)
def test_status_of_any_bytes_is_a_uid_or_unparsable(data):
    """Any bytes give an integer uid or an explicit unparsable unknown."""
    uid = parse_status_uid(data)
    assert isinstance(uid, int) or is_unparsable(uid)


@PROPERTY
@given(
    before=st.lists(st.binary(max_size=30).filter(lambda line: b"\n" not in line), max_size=8),
    uids=st.lists(st.integers(min_value=0, max_value=2**32 - 1), min_size=4, max_size=4),
)
def test_status_gives_the_real_uid_back(before, uids):
    """The first number of the Uid line (the real uid) is what is read."""
    lines = [b"Name:\tx", *(b"X" + line for line in before)]
    lines.append(b"Uid:\t" + b"\t".join(b"%d" % uid for uid in uids))
    lines.append(b"Gid:\t0\t0\t0\t0")
    assert parse_status_uid(b"\n".join(lines) + b"\n") == uids[0]


@PROPERTY
@given(anything)
@example(b"Name:\tx\nNSpid:")
@example(b"\nNSpid:\t" + b"1 " * 5000)
def test_nspid_of_any_bytes_is_pids_or_an_unknown(data):
    """Any bytes give a tuple of pids or an explicit unknown (absent or unparsable)."""
    pids = parse_status_nspid(data)
    if isinstance(pids, Unknown):
        assert pids.reason in (Reason.ABSENT, Reason.UNPARSABLE)
    else:
        assert pids
        assert all(isinstance(pid, int) for pid in pids)


@PROPERTY
@given(
    before=st.lists(st.binary(max_size=30).filter(lambda line: b"\n" not in line), max_size=8),
    pids=st.lists(st.integers(min_value=1, max_value=2**22), min_size=1, max_size=6),
)
def test_nspid_gives_every_namespace_pid_back(before, pids):
    """The NSpid line gives the pid in each namespace, outermost first."""
    lines = [b"Name:\tx", *(b"X" + line for line in before)]
    lines.append(b"NSpid:\t" + b"\t".join(b"%d" % pid for pid in pids))
    assert parse_status_nspid(b"\n".join(lines) + b"\n") == tuple(pids)


# -- uptime, loadavg, PSI, cgroup -----------------------------------------------------


finite = st.floats(min_value=0, max_value=1e9, allow_nan=False, allow_infinity=False)


@PROPERTY
@given(anything)
@example(b"inf 1")
@example(b"nan nan nan 1/2 3")
def test_uptime_and_loadavg_of_any_bytes_are_finite_or_unparsable(data):
    """Any bytes give finite numbers or an explicit unknown: never inf or nan."""
    uptime = parse_uptime(data)
    assert (isinstance(uptime, float) and math.isfinite(uptime)) or is_unparsable(uptime)
    average = parse_loadavg(data)
    assert is_unparsable(average) or (
        isinstance(average, tuple) and len(average) == 3 and all(map(math.isfinite, average))
    )


@PROPERTY
@given(st.tuples(finite, finite, finite), st.integers(min_value=1, max_value=2**22))
def test_loadavg_gives_its_three_averages_back(averages, last_pid):
    """The three averages printed with two decimals are read back as printed."""
    text = b"%.2f %.2f %.2f 2/345 %d\n" % (*averages, last_pid)
    assert parse_loadavg(text) == tuple(float(b"%.2f" % value) for value in averages)


@PROPERTY
@given(anything)
@example(b"some avg10=inf avg60=0 avg300=0 total=1\n")
def test_pressure_of_any_bytes_is_finite_or_unparsable(data):
    """Any bytes give finite pressure averages or an explicit unknown."""
    pressure = parse_pressure(data)
    assert is_unparsable(pressure) or (
        isinstance(pressure, Pressure)
        and all(math.isfinite(v) for v in (pressure.avg10, pressure.avg60, pressure.avg300))
    )


@PROPERTY
@given(finite, finite, finite, st.integers(min_value=0, max_value=2**63))
def test_pressure_gives_the_some_line_back(avg10, avg60, avg300, total):
    """The ``some`` line's three averages are read, whatever the ``full`` line says."""
    text = (
        b"some avg10=%.2f avg60=%.2f avg300=%.2f total=%d\n"
        b"full avg10=99.00 avg60=99.00 avg300=99.00 total=1\n" % (avg10, avg60, avg300, total)
    )
    assert parse_pressure(text) == Pressure(
        float(b"%.2f" % avg10), float(b"%.2f" % avg60), float(b"%.2f" % avg300)
    )


@PROPERTY
@given(anything)
@example(b"1" * 400 + b" 1")
@example(b"-5 100000")
def test_cpu_max_of_any_bytes_is_a_positive_share_or_none(data):
    """Any bytes give a positive, finite CPU share or None (no limit, or unreadable)."""
    granted = parse_cpu_max(data)
    assert granted is None or (granted > 0 and math.isfinite(granted))


@PROPERTY
@given(st.integers(min_value=1, max_value=2**40), st.integers(min_value=1, max_value=2**30))
def test_cpu_max_gives_quota_over_period(quota, period):
    """``QUOTA PERIOD`` is the share of CPUs granted; ``max PERIOD`` is no limit."""
    assert parse_cpu_max(b"%d %d\n" % (quota, period)) == quota / period
    assert parse_cpu_max(b"max %d\n" % period) is None


@PROPERTY
@given(anything)
@example(b"0::/../../etc\n")
def test_cgroup_path_of_any_bytes_stays_under_the_cgroup_root(data):
    """Any bytes give None or an absolute path that cannot climb out with ``..``."""
    path = parse_cgroup_v2_path(data)
    assert path is None or (path.startswith("/") and ".." not in path.split("/"))


@PROPERTY
@given(st.lists(st.from_regex(r"[a-z0-9_.-]{1,12}", fullmatch=True), max_size=6))
def test_cgroup_path_is_read_from_the_v2_line(parts):
    """The ``0::`` line's path is read, after any v1 lines."""
    path = "/" + "/".join(part for part in parts if part != "..")
    text = b"12:cpu,cpuacct:/v1\n0::" + path.encode() + b"\n"
    assert parse_cgroup_v2_path(text) == path


# -- mountinfo ------------------------------------------------------------------------


@PROPERTY
@given(anything)
def test_mountinfo_of_any_bytes_is_a_mount_or_none(data):
    """Any bytes give the procfs mount's options or None."""
    found = parse_proc_mount(data)
    assert found is None or isinstance(found, ProcMount)


hidepids = st.sampled_from(
    [
        (b"0", "off"),
        (b"1", "noaccess"),
        (b"2", "invisible"),
        (b"invisible", "invisible"),
        (b"4", "ptraceable"),
    ]
)


@PROPERTY
@given(
    stack=st.lists(st.tuples(hidepids, st.booleans()), min_size=1, max_size=5),
    others=st.lists(st.from_regex(r"/[a-z]{1,8}", fullmatch=True), max_size=5),
)
def test_the_last_procfs_at_proc_is_the_one_reported(stack, others):
    """Of procfs mounts stacked at /proc, among other mounts, the last one's options count."""
    lines = []
    for number, ((hidepid, _), subset) in enumerate(stack):
        options = b"rw,hidepid=" + hidepid + (b",subset=pid" if subset else b"")
        lines.append(b"%d 1 0:%d / /proc rw - proc proc %s" % (number + 10, number, options))
        if number < len(others):
            lines.append(
                b"%d 1 0:9 / %s rw - tmpfs tmpfs rw" % (number + 50, others[number].encode())
            )
    found = parse_proc_mount(b"\n".join(lines) + b"\n")
    (_, expected_hidepid), expected_subset = stack[-1]
    assert found == ProcMount(hidepid=expected_hidepid, subset_pid=expected_subset)
