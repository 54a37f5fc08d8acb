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

from runctx.records import ARGV_WORDS_MAX, CMDLINE_READ_MAX, argv_truncated, bounded_argv
from runctx.runners.walk import MAX_ARGV_WORDS
from runctx.sources.proctext import (
    ENVIRON_VALUE_MAX,
    MemInfo,
    MountEntry,
    Pressure,
    ProcMount,
    StatFields,
    parse_cfs_quota,
    parse_cgroup,
    parse_cmdline,
    parse_cpu_max,
    parse_environ,
    parse_fdinfo_mount_id,
    parse_loadavg,
    parse_meminfo,
    parse_mountinfo,
    parse_pressure,
    parse_proc_mount,
    parse_stat,
    parse_stat_tty,
    parse_status_nspid,
    parse_status_uid,
    parse_uptime,
    stat_is_running,
    stays_under,
    systemd_path,
    unescape_mount_text,
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


@pytest.mark.parametrize(
    ("text", "running"),
    [
        (b"4121 (a) R" + STAT_TAIL[2:], True),
        (b"4121 (a) S" + STAT_TAIL[2:], False),
        (b"4121 (a) R) S" + STAT_TAIL[2:], False),  # a name that ends in ") R"
        (b"4121 (x R 1", False),  # no command name
        (b"4121 (a)", False),  # no state
    ],
    ids=["running", "sleeping", "name-with-state", "no-name", "no-state"],
)
def test_the_running_state_is_read_after_the_last_parenthesis(text, running):
    """State ``R`` after the command name, however the name reads; nothing else is."""
    assert stat_is_running(text) is running


@pytest.mark.parametrize(
    "text",
    [
        b"1 (a b)& R 0 1 0 -1 419\x14560 0 0 0 0 1 2 0 0 20 0 1 0 5 0 7 0\n",  # found by fuzzing
        b"4121 (a)  R" + STAT_TAIL[2:],
        b"4121 (a)\tR" + STAT_TAIL[2:],
        b"4121 (a) RS" + STAT_TAIL[2:],
    ],
    ids=["no-space-after-name", "two-spaces", "tab", "longer-word"],
)
def test_the_running_state_agrees_with_the_whole_parse(text):
    """On text the kernel never writes, the state is still the one :func:`parse_stat` reads."""
    parsed = parse_stat(text)
    assert not isinstance(parsed, Unknown)
    assert stat_is_running(text) is (parsed.state == "R")


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


def test_cmdline_is_cut_at_the_word_bound_and_marked():
    """Past ARGV_WORDS_MAX words the argv keeps that many and says it was cut; below, a tuple."""
    many = b"\0".join(b"w%d" % n for n in range(ARGV_WORDS_MAX + 50)) + b"\0"
    argv = parse_cmdline(many)
    assert argv_truncated(argv)
    assert list(argv) == [f"w{n}" for n in range(ARGV_WORDS_MAX)]
    exact = b"\0".join(b"w" for _ in range(ARGV_WORDS_MAX)) + b"\0"
    assert not argv_truncated(parse_cmdline(exact))
    assert len(parse_cmdline(exact)) == ARGV_WORDS_MAX


def test_cmdline_cut_by_a_bounded_read_is_marked_even_when_short():
    """A read that stopped at its byte bound (``cut``) marks the argv: its last word may be cut."""
    argv = parse_cmdline(b"pytest\0-k\0ab", cut=True)
    assert argv_truncated(argv)
    assert argv == ("pytest", "-k", "ab")
    assert argv_truncated(parse_cmdline(b"", cut=True))


def test_bounded_argv_keeps_the_same_bounds_for_any_source():
    """What psutil gives is kept to the words and bytes the procfs source reads."""
    assert bounded_argv(["pytest", "-q"]) == ("pytest", "-q")
    assert not argv_truncated(bounded_argv(["pytest", "-q"]))
    huge = bounded_argv(["pytest", "x" * (2 * CMDLINE_READ_MAX)])
    assert argv_truncated(huge)
    assert sum(len(word) for word in huge) <= CMDLINE_READ_MAX
    assert huge[0] == "pytest"
    assert len(bounded_argv([str(n) for n in range(1000)])) == ARGV_WORDS_MAX


def test_the_sources_read_as_many_words_as_the_runner_table():
    """A source keeps every word the walk could read, and the walk reads no more."""
    assert ARGV_WORDS_MAX == MAX_ARGV_WORDS


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


def test_meminfo_gives_total_and_available_in_bytes():
    """MemTotal and MemAvailable are read in kB and given in bytes."""
    text = b"MemTotal:       16000 kB\nMemFree:  100 kB\nMemAvailable:    4000 kB\n"
    assert parse_meminfo(text) == MemInfo(total_bytes=16000 * 1024, available_bytes=4000 * 1024)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (b"MemTotal: 16000 kB\nMemFree: 100 kB\n", Reason.ABSENT),  # a kernel before 3.14
        (b"MemTotal: lots kB\nMemAvailable: 1 kB\n", Reason.UNPARSABLE),
        (b"MemTotal: -5 kB\nMemAvailable: 1 kB\n", Reason.UNPARSABLE),
        (b"MemAvailable: 1 kB\n", Reason.UNPARSABLE),
    ],
)
def test_meminfo_without_available_is_absent_and_garbage_unparsable(text, reason):
    """No MemAvailable line is absent; a bad or negative number, or no MemTotal, unparsable."""
    found = parse_meminfo(text)
    assert isinstance(found, Unknown)
    assert found.reason is reason


def test_cgroup_lines_name_their_hierarchy_and_systemd_path():
    """Lines of /proc/PID/cgroup (v1, v2); systemd files a process under name=systemd or v2."""
    hybrid = b"12:cpu,cpuacct:/docker/ab\n1:name=systemd:/system.slice/x.service\n0::/\n"
    assert parse_cgroup(hybrid) == (
        (("cpu", "cpuacct"), "/docker/ab"),
        (("name=systemd",), "/system.slice/x.service"),
        ((), "/"),
    )
    assert systemd_path(parse_cgroup(hybrid)) == "/system.slice/x.service"
    assert systemd_path(parse_cgroup(b"0::/user.slice/a.scope\n")) == "/user.slice/a.scope"
    assert parse_cgroup(b"garbage\n0:cpu\n") == ()


def test_a_cgroup_path_outside_this_namespace_does_not_stay_under_the_root():
    """``/../x`` (a process outside this cgroup namespace), NUL, relative: not joinable."""
    assert stays_under("/user.slice/a.service")
    assert not stays_under("/../../etc")
    assert not stays_under("relative")
    assert not stays_under("/a\0b")


def test_cfs_quota_and_tty_fields():
    """A v1 quota is quota over period (-1: none); tty_nr is the field after the session."""
    assert parse_cfs_quota(b"150000\n", b"100000\n") == 1.5
    assert parse_cfs_quota(b"-1\n", b"100000\n") is None
    assert parse_cfs_quota(b"1" * 400 + b"\n", b"1\n") is None  # past a float: no limit known
    assert parse_stat_tty(b"42 (a b) S 1 42 42 34816 42 4194304 0") == 34816
    assert isinstance(parse_stat_tty(b"42 (x) S 1"), Unknown)


WANTED = frozenset({"CLAUDE_CODE_SESSION_ID", "CI"})


def test_environ_keeps_only_the_wanted_variables_first_value_and_every_byte():
    """Wanted names only; the first of two values; bytes that are not UTF-8 kept, escaped later."""
    data = b"HOME=/root\0CI=1\0CI=0\0CLAUDE_CODE_SESSION_ID=a\x1b[2J\xff\0JUNK\0=x\0"
    found = parse_environ(data, WANTED)
    assert found == {"CI": "1", "CLAUDE_CODE_SESSION_ID": os.fsdecode(b"a\x1b[2J\xff")}
    assert os.fsencode(found["CLAUDE_CODE_SESSION_ID"]) == b"a\x1b[2J\xff"


def test_a_value_past_the_bound_is_dropped_not_cut():
    """A value longer than ENVIRON_VALUE_MAX bytes is not kept at all: a cut id would lie."""
    long = b"x" * (ENVIRON_VALUE_MAX + 1)
    assert parse_environ(b"CI=" + long + b"\0", WANTED) == {}
    exact = b"x" * ENVIRON_VALUE_MAX
    assert parse_environ(b"CI=" + exact + b"\0", WANTED) == {"CI": exact.decode()}


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
    whole = data[:-1] if data.endswith(b"\0") else data
    if argv_truncated(argv):  # more words than the bound: the first ones, exactly
        assert whole.startswith(rebuilt + b"\0")
    else:
        assert rebuilt == whole


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
@example(b"4:cpu:/../x\n0::/a\n")
def test_cgroup_lines_of_any_bytes_are_hierarchies_with_absolute_paths(data):
    """Any bytes give (controllers, path) pairs, each path absolute; systemd's is one of them."""
    found = parse_cgroup(data)
    assert all(isinstance(names, tuple) and path.startswith("/") for names, path in found)
    chosen = systemd_path(found)
    assert chosen is None or chosen in {path for _, path in found}


@PROPERTY
@given(st.lists(st.from_regex(r"[a-z0-9_.@-]{1,12}", fullmatch=True), max_size=6))
def test_cgroup_lines_give_each_path_back(parts):
    """A unified line's path is given back exactly, after a v1 line."""
    path = "/" + "/".join(parts)
    found = parse_cgroup(b"12:cpu,cpuacct:/v1\n0::" + path.encode() + b"\n")
    assert found == ((("cpu", "cpuacct"), "/v1"), ((), path))


@PROPERTY
@given(anything, anything)
@example(b"9" * 400, b"1")
def test_cfs_quota_of_any_bytes_is_a_positive_share_or_none(quota, period):
    """Any bytes give a positive, finite CPU share or None (no limit, or unreadable)."""
    granted = parse_cfs_quota(quota, period)
    assert granted is None or (granted > 0 and math.isfinite(granted))


@PROPERTY
@given(anything)
def test_meminfo_of_any_bytes_is_memory_or_an_unknown(data):
    """Any bytes give non-negative byte counts or an explicit unknown."""
    found = parse_meminfo(data)
    assert isinstance(found, Unknown) or (found.total_bytes >= 0 and found.available_bytes >= 0)


@PROPERTY
@given(st.integers(min_value=0, max_value=2**50), st.integers(min_value=0, max_value=2**50))
def test_meminfo_gives_its_two_numbers_back(total, available):
    """``MemTotal`` and ``MemAvailable`` in kB, among other lines, come back in bytes."""
    text = b"MemTotal: %d kB\nMemFree: 1 kB\nMemAvailable: %d kB\n" % (total, available)
    assert parse_meminfo(text) == MemInfo(total * 1024, available * 1024)


@PROPERTY
@given(anything)
def test_stat_tty_of_any_bytes_is_a_number_or_unparsable(data):
    """Any bytes give the tty number or an explicit unparsable unknown."""
    found = parse_stat_tty(data)
    assert isinstance(found, int) or is_unparsable(found)


@PROPERTY
@given(anything)
@example(b"CI=" + b"x" * 300 + b"\0CI=1\0")
def test_environ_of_any_bytes_keeps_wanted_names_with_bounded_values(data):
    """Any bytes give only wanted names, each value at most the bound and its bytes intact."""
    found = parse_environ(data, WANTED)
    assert set(found) <= WANTED
    for name, value in found.items():
        raw = os.fsencode(value)
        assert len(raw) <= ENVIRON_VALUE_MAX
        assert name.encode() + b"=" + raw in data


@PROPERTY
@given(
    st.dictionaries(
        st.sampled_from(sorted(WANTED)),
        st.binary(max_size=ENVIRON_VALUE_MAX).filter(lambda value: b"\0" not in value),
    ),
    st.lists(st.from_regex(r"[A-Z_]{1,10}=[a-z]{0,5}", fullmatch=True), max_size=5),
)
def test_environ_gives_every_wanted_value_back(values, others):
    """Wanted variables among others come back with exactly their bytes."""
    entries = [*(other.encode() for other in others)]
    entries += [name.encode() + b"=" + value for name, value in values.items()]
    found = parse_environ(b"\0".join(entries) + b"\0", WANTED)
    expected = {
        name: value
        for name, value in values.items()
        if not any(other.startswith(name + "=") for other in others)
    }
    assert {name: os.fsencode(found[name]) for name in expected} == expected


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


def kernel_escaped(name: bytes) -> bytes:
    """``name`` as ``mountinfo`` shows it: a space, tab, newline or backslash in octal."""
    return b"".join(b"\\%03o" % byte if byte in b" \t\n\\" else bytes([byte]) for byte in name)


def test_mountinfo_names_with_spaces_newlines_and_backslashes_are_read_back():
    """Escaped spaces, tabs, newlines and backslashes in a root or mount point are undone."""
    text = (
        b"85 65 254:0 /tmp/a\\040b/src\\012x /srv/my\\011app\\134z rw,relatime - ext4 /dev/vda rw\n"
        b"27 1 254:0 / / rw - ext4 /dev/vda rw\n"
    )
    assert parse_mountinfo(text) == (
        MountEntry(85, 65, "254:0", "/tmp/a b/src\nx", "/srv/my\tapp\\z"),
        MountEntry(27, 1, "254:0", "/", "/"),
    )


def test_mountinfo_lines_that_are_not_mounts_are_skipped_not_guessed():
    """Bad ids, a bad device, a relative path, a cut line or a huge number: the line is skipped."""
    text = (
        b"x 1 254:0 / /a rw - ext4 d rw\n"
        b"2 1 254 / /b rw - ext4 d rw\n"
        b"3 1 254:0 rel /c rw - ext4 d rw\n"
        b"4 1 254:0 / /d\n" + b"9" * 5000 + b" 1 254:0 / /e rw - ext4 d rw\n"
        b"6 1 254:0 / /f\\04 rw - ext4 d rw\n"
        b"7 1 254:0 /\\777 /g rw - ext4 d rw\n"
    )
    assert parse_mountinfo(text) == (
        MountEntry(6, 1, "254:0", "/", "/f\\04"),
        MountEntry(7, 1, "254:0", "/\\777", "/g"),
    )


def test_an_escape_of_a_byte_that_is_not_utf8_keeps_the_byte():
    r"""``\377`` is the byte 0xff, kept as a path keeps it (surrogateescape)."""
    assert os.fsencode(unescape_mount_text(b"/a\\377b")) == b"/a\xffb"


@PROPERTY
@given(anything)
def test_mountinfo_of_any_bytes_gives_mounts(data):
    """Any bytes give a tuple of mounts, each with absolute root and mount point."""
    for entry in parse_mountinfo(data):
        assert isinstance(entry, MountEntry)
        assert entry.root.startswith("/")
        assert entry.mount_point.startswith("/")


names = st.binary(max_size=40).filter(lambda name: b"\0" not in name).map(lambda n: b"/" + n)


@PROPERTY
@given(root=names, point=names, ids=st.tuples(*[st.integers(0, 2**32)] * 4))
def test_any_names_the_kernel_escapes_are_read_back_exactly(root, point, ids):
    """Names of any bytes but NUL, escaped as the kernel does, parse back to those bytes."""
    mount_id, parent_id, major, minor = ids
    line = b"%d %d %d:%d %s %s rw shared:1 - ext4 /dev/x rw\n" % (
        mount_id,
        parent_id,
        major,
        minor,
        kernel_escaped(root),
        kernel_escaped(point),
    )
    (entry,) = parse_mountinfo(b"garbage line\n" + line)
    assert (entry.mount_id, entry.parent_id, entry.device) == (
        mount_id,
        parent_id,
        f"{major}:{minor}",
    )
    assert (os.fsencode(entry.root), os.fsencode(entry.mount_point)) == (root, point)


def test_fdinfo_gives_its_mount_id_or_none():
    """``mnt_id:`` of an fdinfo is the mount; without it, or with no number, None."""
    assert parse_fdinfo_mount_id(b"pos:\t0\nflags:\t02100000\nmnt_id:\t85\nino:\t3\n") == 85
    assert parse_fdinfo_mount_id(b"pos:\t0\nflags:\t0\n") is None
    assert parse_fdinfo_mount_id(b"mnt_id:\t" + b"1" * 30 + b"\n") is None


@PROPERTY
@given(anything)
def test_fdinfo_of_any_bytes_is_a_number_or_none(data):
    """Any bytes give a mount id or None."""
    found = parse_fdinfo_mount_id(data)
    assert found is None or (isinstance(found, int) and found >= 0)
