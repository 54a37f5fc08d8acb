"""The Linux source: reading real processes from /proc."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from nstools import require_tools
from proctools import (
    OTHER_UID,
    PYTHON,
    VIEWER_UID,
    argv_of,
    kernel_threads,
    make_checkout,
    run_as,
    wait_for,
)
from runfactory import clean_env

from runctx.exceptions import SourceError
from runctx.records import ProcRecord
from runctx.scanning import scan, viewpoint
from runctx.sources.procfs import ProcfsSource
from runctx.unknown import Reason, Unknown

HERE = Path(__file__).resolve().parent


def test_a_real_process_with_a_hostile_name_is_read(tmp_path, runs):
    """A process whose command name holds ') (' and a newline parses from real /proc."""
    hostile = tmp_path / "a) b\n(c"
    hostile.symlink_to(Path(sys.executable))
    ready = tmp_path / "ready"
    code = "import sys, time; open(sys.argv[1], 'w').close(); time.sleep(300)"
    proc = runs.child([str(hostile), "-c", code, str(ready)], ready=ready)
    record = ProcfsSource().read_process(proc.pid)
    assert isinstance(record, ProcRecord)
    assert record.comm == "a) b\n(c"
    assert record.ppid == os.getpid()
    assert record.argv[0] == str(hostile)


def test_a_real_argv_with_bad_bytes_and_empty_args_is_read_exactly(tmp_path, runs):
    """Argv from the kernel keeps empty arguments, spaces and non-UTF-8 bytes."""
    proc = runs.sleeper(tmp_path / "ready", b"\xff\xfe", "", "with space")
    record = ProcfsSource().read_process(proc.pid)
    assert isinstance(record, ProcRecord)
    assert not isinstance(record.argv, Unknown)
    assert [os.fsencode(arg) for arg in record.argv[-3:]] == [b"\xff\xfe", b"", b"with space"]
    assert list(record.argv) == argv_of(proc.pid)


def test_uid_and_cwd_are_read_for_a_real_process(tmp_path, runs):
    """with_owner fills the real uid and the cwd link of a live process."""
    proc = runs.sleeper(tmp_path / "ready", cwd=tmp_path)
    source = ProcfsSource()
    record = source.read_process(proc.pid)
    assert isinstance(record, ProcRecord)
    assert record.uid.reason is Reason.NOT_READ
    full = source.with_owner(record)
    assert full.uid == os.getuid()
    assert full.cwd == str(tmp_path.resolve())


def test_a_removed_cwd_is_unknown_but_a_dir_named_deleted_is_not(tmp_path, runs):
    """A cwd that was removed is DELETED; a real dir called 'x (deleted)' is a path."""
    doomed = tmp_path / "doomed"
    doomed.mkdir()
    named = tmp_path / "x (deleted)"
    named.mkdir()
    gone = runs.sleeper(tmp_path / "ready1", cwd=doomed)
    kept = runs.sleeper(tmp_path / "ready2", cwd=named)
    doomed.rmdir()
    source = ProcfsSource()
    removed = source.read_cwd(gone.pid)
    assert isinstance(removed, Unknown)
    assert removed.reason is Reason.DELETED
    assert source.read_cwd(kept.pid) == str(named.resolve())


def test_a_process_that_exits_between_listing_and_reading_is_dropped(tmp_path, runs):
    """A pid listed, then gone before its files are read, gives GONE, not an error."""
    proc = runs.sleeper(tmp_path / "ready")
    source = ProcfsSource()
    record = source.read_process(proc.pid)
    assert isinstance(record, ProcRecord)
    assert proc.pid in source.list_pids()
    runs.kill(proc)
    after = source.read_process(proc.pid)
    assert isinstance(after, Unknown)
    assert after.reason is Reason.GONE
    late = source.with_owner(record)
    assert isinstance(late.uid, Unknown)
    assert isinstance(late.cwd, Unknown)


def test_a_zombie_is_never_a_record(runs):
    """An exited, unreaped child is counted as a zombie and never becomes a record."""
    pid = runs.zombie()
    source = ProcfsSource()
    result = source.read_process(pid)
    assert isinstance(result, Unknown)
    assert result.reason is Reason.ZOMBIE
    table = source.table()
    assert pid not in table.records
    assert table.zombies >= 1


def test_kernel_threads_are_skipped():
    """Every process flagged PF_KTHREAD is left out of the table."""
    kernel = kernel_threads()
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


@pytest.mark.needs_root
def test_another_users_uid_is_read_and_cwd_is_denied_to_a_third_user(shared_tmp, runs):
    """Status is world-readable, the cwd link is not: real uids, real EACCES."""
    run = runs.orphan(["/bin/sleep", "300"], shared_tmp, uid=OTHER_UID)
    wait_for(lambda: argv_of(run.pid)[:1] == ["/bin/sleep"], what="sleep to be exec'd")

    def read_as_viewer(pid: int) -> tuple[object, object]:
        source = ProcfsSource()
        return source.read_uid(pid), source.read_cwd(pid)

    uid, cwd = run_as(VIEWER_UID, read_as_viewer, run.pid)
    assert uid == OTHER_UID
    assert isinstance(cwd, Unknown)
    assert cwd.reason is Reason.DENIED
    assert ProcfsSource().read_cwd(run.pid) == str(shared_tmp)


def test_no_procfs_is_a_clear_error(tmp_path):
    """A directory with no procfs in it is a SourceError that says what to mount."""
    with pytest.raises(SourceError, match=r"no procfs is mounted at .*mount -t proc"):
        ProcfsSource(str(tmp_path))


@pytest.mark.needs_root
def test_scans_under_churn_and_pid_wrap_stay_sound(shared_tmp):
    """No scan raises, no run holds a dead process, no pid is in two runs, pids wrapping.

    The churn and the scans run in a private pid namespace
    (``tests/churn_inside.py``), where pids are made to wrap without touching
    the rest of the machine; counts of scans, processes and wraps end it.
    """
    unshare = require_tools("unshare")["unshare"]
    checkout = make_checkout(shared_tmp)
    done = subprocess.run(
        [
            unshare,
            "--pid",
            "--fork",
            "--mount-proc",
            sys.executable,
            str(HERE / "churn_inside.py"),
            "--cwd",
            str(checkout),
        ],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["problem_count"] == 0, summary["problems"]
    assert summary["complete"], summary
