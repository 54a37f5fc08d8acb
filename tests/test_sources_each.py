"""What each process source must do, on real processes: every test runs once per source.

The procfs source (Linux's fast path) and the psutil source (macOS and the
rest, selectable on Linux) produce the same records and the same explicit
unknowns. What only one of them has (procfs's bounds and cgroups, psutil's
mapping of its exceptions) stays in ``test_sources_procfs.py`` and
``test_sources_psutil.py``.
"""

from __future__ import annotations

import psutil
import pytest

from runctx.sources.base import PID_REUSED
from runctx.sources.procfs import ProcfsSource
from runctx.sources.psutil import PsutilSource
from runctx.unknown import NOT_READ, Reason, Unknown

pytestmark = pytest.mark.skipif(not psutil.LINUX, reason="both sources run on Linux /proc")

EACH_SOURCE = pytest.mark.parametrize(
    "source_class", [ProcfsSource, PsutilSource], ids=["procfs", "psutil"]
)


@EACH_SOURCE
def test_a_zombie_is_counted_and_never_a_record(runs, source_class):
    """An exited, unreaped child is counted as a zombie and never becomes a record."""
    pid = runs.zombie()
    source = source_class()
    table = source.table()
    assert pid not in table.records
    assert table.zombies >= 1


@EACH_SOURCE
def test_a_removed_cwd_is_deleted_but_a_dir_named_deleted_is_a_path(tmp_path, runs, source_class):
    """A cwd that was removed is DELETED; a real directory called 'x (deleted)' is a path."""
    doomed = tmp_path / "doomed"
    doomed.mkdir()
    named = tmp_path / "x (deleted)"
    named.mkdir()
    gone = runs.sleeper(tmp_path / "ready1", cwd=doomed)
    kept = runs.sleeper(tmp_path / "ready2", cwd=named)
    doomed.rmdir()
    source = source_class()
    cwds = {}
    records = source.table().records
    for proc in (gone, kept):
        cwds[proc.pid] = source.with_owner(records[proc.pid]).cwd
    removed = cwds[gone.pid]
    assert isinstance(removed, Unknown)
    assert removed.reason is Reason.DELETED
    assert cwds[kept.pid] == str(named.resolve())


@EACH_SOURCE
def test_a_process_gone_after_the_listing_is_dropped_and_its_owner_unknown(
    tmp_path, runs, source_class
):
    """A pid listed, then gone before its files are read: GONE, owner unknown, not an error."""
    proc = runs.sleeper(tmp_path / "ready", cwd=tmp_path)
    source = source_class()
    record = source.table().records[proc.pid]
    assert source.with_owner(record).cwd == str(tmp_path.resolve())
    runs.kill(proc)
    late = source.with_owner(record)
    assert late.uid == late.cwd == PID_REUSED
    assert proc.pid not in source.table().records


def _counting(source_class):
    """A source of ``source_class`` that notes the pid of each process it reads."""

    class Counting(source_class):
        def __init__(self) -> None:
            super().__init__()
            self.read_pids: list[int] = []

        def _read(self, pid, now, argv_wanted=None):
            self.read_pids.append(pid)
            return super()._read(pid, now, argv_wanted)

    return Counting()


@EACH_SOURCE
def test_a_table_after_reuse_reads_only_what_the_last_one_did_not(tmp_path, runs, source_class):
    """``reuse_last_table``: the next table reads again no process the last one read.

    What it makes of them is what a fresh read would: its own ``argv_wanted``
    leaves their command lines unread here; a process started in between is
    read, one that exited in between is no record. A table that wants a
    command line the last one left unread reads that process again, and a
    table not asked to reuse reads every process again.
    """
    kept = runs.sleeper(tmp_path / "kept")
    doomed = runs.sleeper(tmp_path / "doomed")
    source = _counting(source_class)
    first = source.table()
    assert {kept.pid, doomed.pid} <= set(first.records)
    assert isinstance(first.records[kept.pid].argv, tuple)

    runs.kill(doomed)
    born = runs.sleeper(tmp_path / "born")
    source.reuse_last_table()
    source.read_pids.clear()
    second = source.table(argv_wanted=lambda _comm: False)
    assert kept.pid not in source.read_pids
    assert born.pid in source.read_pids
    assert second.records[kept.pid] == first.records[kept.pid]._replace(argv=NOT_READ)
    assert second.records[born.pid].argv == NOT_READ
    assert doomed.pid not in second.records

    source.read_pids.clear()
    source.reuse_last_table()
    third = source.table()  # wants the command lines the second left unread: read now
    assert {kept.pid, born.pid} <= set(source.read_pids)
    assert third.records[kept.pid].argv == first.records[kept.pid].argv

    source.read_pids.clear()
    source.table()
    assert {kept.pid, born.pid} <= set(source.read_pids)
