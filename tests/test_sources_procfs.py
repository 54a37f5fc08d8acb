"""The Linux source: parsing /proc text, and reading real processes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from proctools import OTHER_UID, PYTHON, orphan, require_root, wait_for

from runctx.records import ProcRecord
from runctx.scanning import scan, viewpoint
from runctx.sources.procfs import (
    PF_KTHREAD,
    ProcfsSource,
    parse_cmdline,
    parse_stat,
    parse_status_uid,
)
from runctx.unknown import Reason, Unknown

STAT_TAIL = b" S 1 2 3 0 -1 4194560 10 0 0 0 7 5 0 0 20 0 1 0 4242 100 25 18446744073709551615"


def sleeper(ready: Path, *extra: str | bytes, cwd: Path | None = None) -> subprocess.Popen[bytes]:
    """A child python that writes ``ready`` once up, then sleeps."""
    code = "import sys, time; open(sys.argv[1], 'w').close(); time.sleep(120)"
    proc = subprocess.Popen([PYTHON, "-c", code, str(ready), *extra], cwd=cwd)
    wait_for(ready.exists, what="the sleeper to be ready")
    return proc


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Kill and reap a child by its own pid."""
    proc.kill()
    proc.wait()


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


def test_a_real_process_with_a_hostile_name_is_read(tmp_path):
    """A process whose command name holds ') (' and a newline parses from real /proc."""
    hostile = tmp_path / "a) b\n(c"
    hostile.symlink_to(Path(sys.executable))
    ready = tmp_path / "ready"
    code = "import sys, time; open(sys.argv[1], 'w').close(); time.sleep(120)"
    proc = subprocess.Popen([str(hostile), "-c", code, str(ready)])
    try:
        wait_for(ready.exists, what="the hostile process")
        source = ProcfsSource()
        record = source.read_process(proc.pid)
        assert isinstance(record, ProcRecord)
        assert record.comm == "a) b\n(c"
        assert record.ppid == os.getpid()
        assert record.argv[0] == str(hostile)
    finally:
        stop(proc)


def test_a_real_argv_with_bad_bytes_and_empty_args_is_read_exactly(tmp_path):
    """Argv from the kernel keeps empty arguments, spaces and non-UTF-8 bytes."""
    proc = sleeper(tmp_path / "ready", b"\xff\xfe", "", "with space")
    try:
        record = ProcfsSource().read_process(proc.pid)
        assert isinstance(record, ProcRecord)
        assert not isinstance(record.argv, Unknown)
        assert [os.fsencode(arg) for arg in record.argv[-3:]] == [b"\xff\xfe", b"", b"with space"]
    finally:
        stop(proc)


def test_uid_and_cwd_are_read_for_a_real_process(tmp_path):
    """with_owner fills the real uid and the cwd link of a live process."""
    proc = sleeper(tmp_path / "ready", cwd=tmp_path)
    try:
        source = ProcfsSource()
        record = source.read_process(proc.pid)
        assert isinstance(record, ProcRecord)
        assert record.uid.reason is Reason.NOT_READ
        full = source.with_owner(record)
        assert full.uid == os.getuid()
        assert full.cwd == str(tmp_path.resolve())
    finally:
        stop(proc)


def test_a_removed_cwd_is_unknown_but_a_dir_named_deleted_is_not(tmp_path):
    """A cwd that was removed is DELETED; a real dir called 'x (deleted)' is a path."""
    doomed = tmp_path / "doomed"
    doomed.mkdir()
    named = tmp_path / "x (deleted)"
    named.mkdir()
    gone = sleeper(tmp_path / "ready1", cwd=doomed)
    kept = sleeper(tmp_path / "ready2", cwd=named)
    try:
        doomed.rmdir()
        source = ProcfsSource()
        removed = source.read_cwd(gone.pid)
        assert isinstance(removed, Unknown)
        assert removed.reason is Reason.DELETED
        assert source.read_cwd(kept.pid) == str(named.resolve())
    finally:
        stop(gone)
        stop(kept)


def test_a_process_that_exits_between_listing_and_reading_is_dropped(tmp_path):
    """A pid listed, then gone before its files are read, gives GONE, not an error."""
    proc = sleeper(tmp_path / "ready")
    source = ProcfsSource()
    record = source.read_process(proc.pid)
    assert isinstance(record, ProcRecord)
    assert proc.pid in source.list_pids()
    stop(proc)
    after = source.read_process(proc.pid)
    assert isinstance(after, Unknown)
    assert after.reason is Reason.GONE
    late = source.with_owner(record)
    assert isinstance(late.uid, Unknown)
    assert isinstance(late.cwd, Unknown)


def test_a_zombie_is_never_a_record():
    """An exited, unreaped child is counted as a zombie and never becomes a record."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        os._exit(0)
    try:
        wait_for(
            lambda: Path(f"/proc/{pid}/stat").read_bytes().split(b") ")[1][:1] == b"Z",
            what="the child to become a zombie",
        )
        source = ProcfsSource()
        result = source.read_process(pid)
        assert isinstance(result, Unknown)
        assert result.reason is Reason.ZOMBIE
        table = source.table()
        assert pid not in table.records
        assert table.zombies >= 1
    finally:
        os.waitpid(pid, 0)


def test_kernel_threads_are_skipped():
    """Every process flagged PF_KTHREAD is left out of the table."""
    kernel = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = parse_stat(Path(f"/proc/{name}/stat").read_bytes())
            except OSError:
                continue
            if not isinstance(stat, Unknown) and stat.flags & PF_KTHREAD:
                kernel.add(int(name))
    table = ProcfsSource().table()
    assert not kernel & set(table.records)
    assert table.kernel_threads >= len(kernel) - 5  # a few may come or go between the reads
    assert os.getpid() in table.records


def test_scans_survive_processes_that_come_and_go(tmp_path):
    """Scanning while processes start and exit never raises and never reports the dead."""
    stop_flag = threading.Event()

    def churn() -> None:
        while not stop_flag.is_set():
            subprocess.run([PYTHON, "-S", "-c", "pass"], check=False)

    threads = [threading.Thread(target=churn) for _ in range(2)]
    for thread in threads:
        thread.start()
    try:
        here = viewpoint(cwd=str(tmp_path))
        for _ in range(30):
            report = scan(here)
            for judged in report.runs:
                assert judged.run.members[0] == judged.run.pid
    finally:
        stop_flag.set()
        for thread in threads:
            thread.join()


def test_another_users_uid_is_read_and_cwd_is_denied_to_a_third_user(shared_tmp):
    """Status is world-readable, the cwd link is not: real uids, real EACCES."""
    require_root()
    from proctools import VIEWER_UID, run_as

    ready_dir = shared_tmp / "ready"
    ready_dir.mkdir(mode=0o777)
    ready_dir.chmod(0o777)
    with orphan(["/bin/sleep", "120"], shared_tmp, uid=OTHER_UID) as run:
        wait_for(lambda: Path(f"/proc/{run.pid}/cmdline").read_bytes().startswith(b"/bin/sleep"))

        def read_as_viewer(pid: int) -> tuple[object, object]:
            source = ProcfsSource()
            return source.read_uid(pid), source.read_cwd(pid)

        uid, cwd = run_as(VIEWER_UID, read_as_viewer, run.pid)
        assert uid == OTHER_UID
        assert isinstance(cwd, Unknown)
        assert cwd.reason is Reason.DENIED
        assert ProcfsSource().read_cwd(run.pid) == str(shared_tmp)
