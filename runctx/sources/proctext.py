"""Parsers of the kernel's ``/proc`` text: pure functions over bytes.

Each takes what one read of a ``/proc`` file gave and returns its value or an
explicit :class:`~runctx.unknown.Unknown` (``unparsable``) saying what was
wrong; none raises on any input, and each takes time linear in its input.
The procfs source reads, these parse, so that the parsing can be fed any text
in a test: ``tests/test_sources_proctext.py`` does so with hypothesis, and
``make fuzz`` with atheris (``fuzz/``). A number must be finite to count: an
``inf`` or ``nan`` is unparsable, never a value.
"""

from __future__ import annotations

import math
import os
from typing import NamedTuple

import attrs

from runctx.record_base import Record
from runctx.records import ARGV_WORDS_MAX, TruncatedArgv
from runctx.regex import on_first_use
from runctx.unknown import Reason, Unknown

PROC_FS = b"proc"


class StatFields(NamedTuple):
    """The fields of ``/proc/PID/stat`` that runctx uses.

    A named tuple rather than an attrs class: one is parsed for every process
    on the box in every scan, and a tuple is several times cheaper to build.
    """

    pid: int
    comm: str
    state: str
    ppid: int
    pgid: int
    sid: int
    flags: int
    cpu_ticks: int
    start_ticks: int
    rss_pages: int


_LAST_FIELD_USED = 21
"""The index of ``rss`` among the fields after the command name, the last one parsed."""


def parse_stat(text: bytes) -> StatFields | Unknown:
    """Parse ``/proc/PID/stat``; the command name may hold spaces, parens, newlines.

    The name is the text between the first ``(`` and the *last* ``)``: the kernel
    prints it raw, so nothing inside it can be trusted as a separator.
    """
    open_paren = text.find(b"(")
    close_paren = text.rfind(b")")
    if open_paren < 0 or close_paren < open_paren:
        return Unknown(Reason.UNPARSABLE, "stat: no command name in parentheses")
    # Split no further than the last field used (rss, the 22nd after the name): the
    # 30 fields after it would be 30 objects made for every process of every scan.
    fields = text[close_paren + 2 :].split(None, _LAST_FIELD_USED + 1)
    try:
        return StatFields(
            pid=int(text[:open_paren]),
            comm=text[open_paren + 1 : close_paren].decode(errors="replace"),
            state=fields[0].decode(),
            ppid=int(fields[1]),
            pgid=int(fields[2]),
            sid=int(fields[3]),
            flags=int(fields[6]),
            cpu_ticks=int(fields[11]) + int(fields[12]),
            start_ticks=int(fields[19]),
            rss_pages=int(fields[21]),
        )
    except (IndexError, ValueError, UnicodeDecodeError):
        return Unknown(Reason.UNPARSABLE, "stat: too few or non-numeric fields")


def parse_cmdline(data: bytes, *, cut: bool = False) -> tuple[str, ...]:
    """Split ``/proc/PID/cmdline`` into argv, keeping every byte, up to a bound.

    Arguments are NUL-terminated; a process that rewrote its title may leave
    no final NUL or use spaces instead. Bytes that are not UTF-8 survive as
    surrogate escapes (``os.fsencode`` gives the original bytes back).

    At most :data:`~runctx.records.ARGV_WORDS_MAX` words are kept; an argv
    with more, or whose text was ``cut`` by a bounded read (its last word may
    be cut short), is a :class:`~runctx.records.TruncatedArgv`.
    """
    if not data:
        return TruncatedArgv() if cut else ()
    if data.endswith(b"\0"):
        data = data[:-1]
    words = os.fsdecode(data).split("\0", ARGV_WORDS_MAX)
    if cut or len(words) > ARGV_WORDS_MAX:
        return TruncatedArgv(words[:ARGV_WORDS_MAX])
    return tuple(words)


def parse_status_uid(text: bytes) -> int | Unknown:
    """Take the real uid from the ``Uid:`` line of ``/proc/PID/status``."""
    start = text.find(b"\nUid:")
    if start < 0:
        return Unknown(Reason.UNPARSABLE, "status: no Uid line")
    line = text[start + 5 : text.find(b"\n", start + 5)]
    try:
        return int(line.split()[0])
    except (IndexError, ValueError):
        return Unknown(Reason.UNPARSABLE, "status: Uid line without a number")


def _finite(text: bytes) -> float:
    """``text`` as a finite float; ValueError otherwise (``inf``, ``nan``, not a number)."""
    value = float(text)
    if not math.isfinite(value):
        msg = f"not a finite number: {text!r}"
        raise ValueError(msg)
    return value


def parse_status_nspid(text: bytes) -> tuple[int, ...] | Unknown:
    """The ``NSpid:`` line of ``/proc/PID/status``: the pid in each pid namespace.

    The first is the pid in the namespace of the procfs read, the last the pid
    in the process's own namespace. Kernels before 4.1 have no such line.
    """
    start = text.find(b"\nNSpid:")
    if start < 0:
        return Unknown(Reason.ABSENT, "status: no NSpid line")
    end = text.find(b"\n", start + 7)
    line = text[start + 7 : end if end >= 0 else len(text)]
    try:
        pids = tuple(int(word) for word in line.split())
    except ValueError:
        return Unknown(Reason.UNPARSABLE, "status: NSpid line with a non-number")
    if not pids:
        return Unknown(Reason.UNPARSABLE, "status: empty NSpid line")
    return pids


def parse_uptime(text: bytes) -> float | Unknown:
    """Seconds since boot from ``/proc/uptime``."""
    try:
        return _finite(text.split()[0])
    except (IndexError, ValueError):
        return Unknown(Reason.UNPARSABLE, "uptime")


def parse_loadavg(text: bytes) -> tuple[float, float, float] | Unknown:
    """The 1, 5 and 15 minute load averages from ``/proc/loadavg``."""
    try:
        one, five, fifteen = (_finite(value) for value in text.split()[:3])
    except ValueError:
        return Unknown(Reason.UNPARSABLE, "loadavg")
    return (one, five, fifteen)


@attrs.frozen(repr=False, eq=False)
class Pressure(Record):
    """One line of a PSI file: share of time some task waited for the CPU (percent)."""

    avg10: float
    avg60: float
    avg300: float


def parse_pressure(text: bytes) -> Pressure | Unknown:
    """Parse the ``some`` line of ``/proc/pressure/cpu``."""
    for line in text.splitlines():
        if line.startswith(b"some "):
            values = {}
            for item in line.split()[1:]:
                key, _, value = item.partition(b"=")
                values[key] = value
            try:
                return Pressure(
                    avg10=_finite(values[b"avg10"]),
                    avg60=_finite(values[b"avg60"]),
                    avg300=_finite(values[b"avg300"]),
                )
            except (KeyError, ValueError):
                break
    return Unknown(Reason.UNPARSABLE, "cpu pressure: no valid 'some' line")


def parse_cpu_max(text: bytes) -> float | None:
    """CPUs granted by a cgroup v2 ``cpu.max`` (``max 100000`` means no limit)."""
    parts = text.split()
    if len(parts) != 2 or parts[0] == b"max":  # noqa: PLR2004 - quota and period
        return None
    try:
        granted = int(parts[0]) / int(parts[1])
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    return granted if granted > 0 else None


def stays_under(path: str) -> bool:
    """Whether a cgroup path can be joined under ``/sys/fs/cgroup`` and stay there.

    Absolute, without a ``..`` part and without NUL: a process outside this
    cgroup namespace shows as ``/../x``, and that path must not climb out.
    """
    return path.startswith("/") and ".." not in path.split("/") and "\0" not in path


@attrs.frozen(repr=False, eq=False)
class ProcMount(Record):
    """The options of the procfs mount that bound who sees whom."""

    hidepid: str
    subset_pid: bool


_HIDEPID_NAMES = {"0": "off", "1": "noaccess", "2": "invisible", "4": "ptraceable"}


def parse_proc_mount(mountinfo: bytes, mount_point: bytes = b"/proc") -> ProcMount | None:
    """Find the procfs mounted at ``mount_point`` in a ``mountinfo`` text.

    The super options follow the ``-`` separator: ``- proc proc rw,hidepid=2``.
    When several mounts sit at the same point, the last line is the one in
    effect (mounted last, on top of the others): a ``hidepid=2`` procfs
    mounted over ``/proc`` hides what the first line says it does not.
    """
    found = None
    for line in mountinfo.splitlines():
        fields = line.split(b" ")
        if len(fields) < 5 or fields[4] != mount_point or b"-" not in fields:  # noqa: PLR2004
            continue
        tail = fields[fields.index(b"-") + 1 :]
        if len(tail) < 3 or tail[0] != PROC_FS:  # noqa: PLR2004 - fstype, source, options
            continue
        hidepid = "off"
        subset_pid = False
        for option in tail[2].split(b","):
            key, _, value = option.partition(b"=")
            if key == b"hidepid":
                text = value.decode(errors="replace")
                hidepid = _HIDEPID_NAMES.get(text, text)
            elif key == b"subset" and value == b"pid":
                subset_pid = True
        found = ProcMount(hidepid=hidepid, subset_pid=subset_pid)
    return found


@attrs.frozen(repr=False, eq=False)
class MountEntry(Record):
    r"""One line of a ``mountinfo``: which part of which filesystem is mounted where.

    ``mount_id`` and ``parent_id`` number mounts (the parent is the mount this
    one sits on); ``device`` is ``major:minor`` as the kernel writes it;
    ``root`` is the directory of that filesystem seen at the mount's top
    (``/`` for a whole filesystem, a path below it for a bind mount), and
    ``mount_point`` where it is mounted, relative to the reading process's
    root. Both are the kernel's text with its escapes undone (``\040`` is a
    space); they may hold any byte but NUL (decoded with ``surrogateescape``).
    """

    mount_id: int
    parent_id: int
    device: str
    root: str
    mount_point: str


_MOUNTINFO_ESCAPE = on_first_use(rb"\\([0-3][0-7]{2})")


def unescape_mount_text(text: bytes) -> str:
    r"""A root or mount point of ``mountinfo`` as a path: ``\ooo`` escapes undone.

    The kernel writes a space, tab, newline and backslash in such a name as
    three octal digits; every other byte is itself. Anything else that looks
    like an escape is left as it is.
    """
    return os.fsdecode(_MOUNTINFO_ESCAPE().sub(lambda found: bytes([int(found[1], 8)]), text))


_ID_DIGITS_MAX = 20
"""A mount id or device number has at most this many digits (a 64-bit number)."""


def _number(text: bytes) -> int | None:
    """A decimal number of at most 20 digits, or None (so no huge text is ever converted)."""
    return int(text) if text.isdigit() and len(text) <= _ID_DIGITS_MAX else None


def _device(text: bytes) -> str | None:
    major, colon, minor = text.partition(b":")
    numbers = (_number(major), _number(minor))
    if not colon or None in numbers:
        return None
    return f"{numbers[0]}:{numbers[1]}"


def parse_mountinfo(mountinfo: bytes) -> tuple[MountEntry, ...]:
    """Every well-formed line of a ``mountinfo`` text, in order; others are skipped.

    A line is ``ID PARENT MAJOR:MINOR ROOT MOUNT_POINT OPTIONS ... - TYPE
    SOURCE SUPER_OPTIONS``; only the first five fields are kept. A line whose
    ids are not numbers or whose device is not ``major:minor``, or that holds
    fewer fields, is skipped: the text may be another namespace's, or cut short
    by a bounded read.
    """
    found = []
    for line in mountinfo.split(b"\n"):
        fields = line.split(b" ", 5)
        if len(fields) < 6:  # noqa: PLR2004 - five fields and the rest
            continue
        mount_id, parent_id, device = _number(fields[0]), _number(fields[1]), _device(fields[2])
        if mount_id is None or parent_id is None or device is None:
            continue
        if not fields[3].startswith(b"/") or not fields[4].startswith(b"/"):
            continue
        found.append(
            MountEntry(
                mount_id=mount_id,
                parent_id=parent_id,
                device=device,
                root=unescape_mount_text(fields[3]),
                mount_point=unescape_mount_text(fields[4]),
            )
        )
    return tuple(found)


def parse_fdinfo_mount_id(fdinfo: bytes) -> int | None:
    """The ``mnt_id:`` of a ``/proc/PID/fdinfo/FD`` text: the mount the descriptor is on."""
    for line in fdinfo.split(b"\n"):
        name, colon, value = line.partition(b":")
        if colon and name == b"mnt_id":
            return _number(value.strip())
    return None


# --------------------------------------------------------------------------- busy now, who started

MEMINFO_FIELDS = (b"MemTotal:", b"MemAvailable:")


@attrs.frozen(repr=False, eq=False)
class MemInfo(Record):
    """What ``/proc/meminfo`` says about memory a new process could use, in bytes."""

    total_bytes: int
    available_bytes: int


def parse_meminfo(text: bytes) -> MemInfo | Unknown:
    """``MemTotal`` and ``MemAvailable`` from ``/proc/meminfo`` (the latter since Linux 3.14)."""
    found: dict[bytes, int] = {}
    for line in text.splitlines():
        name, _, rest = line.partition(b" ")
        if name in MEMINFO_FIELDS:
            words = rest.split()
            try:
                number = int(words[0])
            except (IndexError, ValueError):
                number = -1
            if number < 0:
                return Unknown(Reason.UNPARSABLE, f"meminfo: {name.decode()} without a number")
            found[name] = number * (1024 if words[1:2] == [b"kB"] else 1)
    if b"MemTotal:" not in found:
        return Unknown(Reason.UNPARSABLE, "meminfo: no MemTotal line")
    if b"MemAvailable:" not in found:
        return Unknown(Reason.ABSENT, "meminfo: no MemAvailable line (kernel before 3.14)")
    return MemInfo(total_bytes=found[b"MemTotal:"], available_bytes=found[b"MemAvailable:"])


def parse_cfs_quota(quota: bytes, period: bytes) -> float | None:
    """CPUs granted by a cgroup v1 ``cpu.cfs_quota_us`` and ``cpu.cfs_period_us`` (-1: no limit)."""
    try:
        granted, every = int(quota.strip()), int(period.strip())
        if granted <= 0 or every <= 0:
            return None
        return granted / every
    except (ValueError, OverflowError):
        return None


def parse_cgroup(text: bytes) -> tuple[tuple[tuple[str, ...], str], ...]:
    """The lines of ``/proc/PID/cgroup``: each hierarchy's controllers and the path in it.

    ``0::/user.slice/x.service`` is the unified (v2) hierarchy, with no
    controllers; ``4:cpu,cpuacct:/docker/ab`` a v1 one. A line of another
    shape is skipped.
    """
    found = []
    for line in text.splitlines():
        parts = line.split(b":", 2)
        if len(parts) != 3 or not parts[2].startswith(b"/"):  # noqa: PLR2004 - id, controllers, path
            continue
        names = tuple(name for name in os.fsdecode(parts[1]).split(",") if name)
        found.append((names, os.fsdecode(parts[2])))
    return tuple(found)


def systemd_path(hierarchies: tuple[tuple[tuple[str, ...], str], ...]) -> str | None:
    """The path systemd files a process under: the unified hierarchy's, or ``name=systemd``'s."""
    for names, path in hierarchies:
        if names == ("name=systemd",):
            return path
    for names, path in hierarchies:
        if not names:
            return path
    return None


def stat_is_running(text: bytes) -> bool:
    """Whether ``/proc/PID/stat`` says its process runs or waits for a CPU (state ``R``).

    Only the state after the command name is looked at, nothing parsed: asked
    of each of another user's processes a bounded pass does not read. The
    state is the first word after the name, as :func:`parse_stat` reads it.
    """
    after_name = text.rfind(b")") + 2
    return after_name > 1 and text[after_name:].split(None, 1)[:1] == [b"R"]


def parse_stat_tty(text: bytes) -> int | Unknown:
    """The ``tty_nr`` field of ``/proc/PID/stat``: the controlling terminal, 0 for none."""
    close_paren = text.rfind(b")")
    fields = text[close_paren + 2 :].split(None, 5) if close_paren >= 0 else []  # up to tty_nr
    try:
        return int(fields[4])
    except (IndexError, ValueError):
        return Unknown(Reason.UNPARSABLE, "stat: no tty_nr field")


ENVIRON_VALUE_MAX = 256
"""The longest value of an environment variable kept, in bytes (longer ones are dropped, not cut:
a cut session id would name another session)."""


def kept_value(value: str) -> bool:
    """Whether an environment value (read as ``os.fsdecode`` reads) is at most the bound long."""
    if len(value) > ENVIRON_VALUE_MAX:
        return False
    try:
        size = len(os.fsencode(value))
    except UnicodeEncodeError:  # a lone surrogate no byte stands for
        size = len(value.encode("utf-8", "surrogatepass"))
    return size <= ENVIRON_VALUE_MAX


def parse_environ(data: bytes, wanted: frozenset[str]) -> dict[str, str]:
    """The variables named in ``wanted`` from ``/proc/PID/environ`` text, and no others.

    Entries are ``NAME=value`` separated by NUL. A value keeps every byte
    (bytes that are not UTF-8 as surrogate escapes, as ``os.fsdecode`` reads
    them): it is foreign text, which each face escapes its own way
    (:mod:`runctx.present.escape`). A value longer than
    :data:`ENVIRON_VALUE_MAX` bytes is not kept at all. A name given twice
    keeps its first value (what ``getenv`` finds).
    """
    found: dict[str, str] = {}
    for entry in data.split(b"\0"):
        name, sep, raw = entry.partition(b"=")
        if not sep or not name or len(raw) > ENVIRON_VALUE_MAX:
            continue
        try:
            key = name.decode("ascii")
        except UnicodeDecodeError:
            continue
        if key in wanted and key not in found:
            found[key] = os.fsdecode(raw)
    return found
