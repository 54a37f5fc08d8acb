"""The psutil source: parity with procfs on real processes, and its error mapping.

What both sources must do alike is tested once per source in ``test_sources_each.py``.
"""

from __future__ import annotations

import errno
import os
import signal
import time

import psutil
import pytest
from nstools import start_run_in_mount_namespace
from proctools import (
    OTHER_UID,
    VIEWER_UID,
    kernel_threads,
    make_checkout,
    record_of,
    run_as,
    start_ticks,
    status,
    wait_for,
)
from scenes import two_checkouts

from runctx.identity import Verdict
from runctx.records import ProcIdentity, ProcRecord
from runctx.scanning import scan, viewpoint
from runctx.sources import SOURCE_ENV, default_source
from runctx.sources.base import PID_REUSED
from runctx.sources.procfs import ProcfsSource
from runctx.sources.proctext import MemInfo
from runctx.sources.psutil import (
    Basics,
    Memory,
    PsutilSource,
    build_record,
    is_kernel_thread,
    mapped,
    state_letter,
)
from runctx.started_by import WANTED
from runctx.unknown import Reason, Unknown

pytestmark = pytest.mark.skipif(not psutil.LINUX, reason="parity is tested against Linux /proc")


def the_run(report, pid):
    """The judged run led by ``pid``; fails when there is none."""
    matches = [judged for judged in report.runs if judged.run.pid == pid]
    assert matches, f"no run led by pid {pid} in the {report.visibility.source} scan"
    return matches[0]


def verdict_facts(judged):
    """What both sources must agree on for one run (start tokens differ by design)."""
    run = judged.run
    return {
        "pid": run.pid,
        "kind": run.kind,
        "argv": run.argv,
        "uid": run.uid,
        "cwd": run.cwd,
        "root": run.root,
        "orphaned": run.orphaned,
        "is_self": run.is_self,
        "verdict": judged.judgement.verdict,
        "reasons": judged.judgement.reasons,
    }


def stable_pids(before, after) -> set[int]:
    """Pids that lived, as the same process in the same place, through both procfs tables."""

    def place(record):
        return (record.start, record.ppid, record.pgid, record.sid)

    return {
        pid
        for pid, record in before.records.items()
        if pid in after.records and place(after.records[pid]) == place(record)
    }


def scan_with_both(here):
    """Scan from ``here`` through procfs, then through psutil."""
    return scan(here, source=ProcfsSource()), scan(here, source=PsutilSource())


def test_both_sources_fold_and_judge_real_runs_alike(shared_tmp, runs):
    """An xdist run here and a run in a same-named checkout: same runs, members, verdicts."""
    mine, theirs = two_checkouts(shared_tmp)
    started = [runs.xdist(mine, workers=2), runs.run_tests_script(theirs)]
    here = viewpoint(cwd=str(mine))
    before = ProcfsSource().table()
    by_procfs, by_psutil = scan_with_both(here)
    after = ProcfsSource().table()
    for orphan in started:
        from_procfs = the_run(by_procfs, orphan.pid)
        from_psutil = the_run(by_psutil, orphan.pid)
        assert verdict_facts(from_psutil) == verdict_facts(from_procfs)
        assert set(from_psutil.run.members) == set(from_procfs.run.members)
        assert set(from_psutil.run.members) == orphan.members()
    xdist, script = (the_run(by_psutil, orphan.pid) for orphan in started)
    assert xdist.run.kind == "pytest"
    assert len(xdist.run.members) >= 3
    assert xdist.judgement.verdict is Verdict.OURS
    assert script.foreign
    assert f"root {theirs} != {mine}" in script.judgement.reasons

    self_procfs, self_psutil = by_procfs.self_run, by_psutil.self_run
    assert self_procfs is not None
    assert self_psutil is not None
    assert verdict_facts(self_psutil) == verdict_facts(self_procfs)
    moved = set(self_psutil.run.members) ^ set(self_procfs.run.members)
    assert not moved & stable_pids(before, after), "a process that lived through both scans"
    assert os.getpid() in self_psutil.run.members


def test_both_sources_read_the_same_facts_of_real_processes(tmp_path, runs):
    """Parent, group, sid, argv, name, state and start agree; kernel threads stay out."""
    stopped = runs.sleeper(tmp_path / "ready", cwd=tmp_path)
    os.kill(stopped.pid, signal.SIGSTOP)
    wait_for(lambda: status(stopped.pid) == "stopped", what="the sleeper to stop")
    before = ProcfsSource().table()
    by_psutil = PsutilSource().table()
    after = ProcfsSource().table()
    stable = stable_pids(before, after)
    assert stopped.pid in stable
    assert stable <= set(by_psutil.records)
    for pid in stable:
        ours, theirs = before.records[pid], by_psutil.records[pid]
        assert (theirs.ppid, theirs.pgid, theirs.sid) == (ours.ppid, ours.pgid, ours.sid)
    procfs_record = before.records[stopped.pid]
    psutil_record = by_psutil.records[stopped.pid]
    assert psutil_record.state == procfs_record.state == "T"
    assert psutil_record.argv == procfs_record.argv
    assert psutil_record.comm == procfs_record.comm
    assert psutil_record.uid.reason is Reason.NOT_READ
    assert psutil_record.cwd.reason is Reason.NOT_READ
    assert abs(psutil_record.cpu_seconds - procfs_record.cpu_seconds) < 0.05
    assert psutil_record.rss_bytes > 0
    assert abs(psutil_record.rss_bytes - procfs_record.rss_bytes) < procfs_record.rss_bytes / 4
    assert procfs_record.start == start_ticks(stopped.pid)
    created = psutil.Process(stopped.pid).create_time()
    assert psutil_record.start == round(created * 100)

    kernel = kernel_threads()
    assert not kernel & set(by_psutil.records)
    assert abs(by_psutil.kernel_threads - before.kernel_threads) <= 5
    assert by_psutil.kernel_threads >= len(kernel) - 5


@pytest.mark.needs_root
def test_another_users_run_reads_alike_for_a_third_user(shared_tmp, runs):
    """Run as uid 65534, seen by uid 65533: uid known, root denied, foreign by uid, both sources."""
    checkout = make_checkout(shared_tmp, "proj")
    run = runs.run_tests_script(checkout, uid=OTHER_UID)
    here = viewpoint(cwd=str(checkout), uid=VIEWER_UID)
    by_procfs, by_psutil = run_as(VIEWER_UID, scan_with_both, here)
    from_procfs = the_run(by_procfs, run.pid)
    from_psutil = the_run(by_psutil, run.pid)
    assert verdict_facts(from_psutil) == verdict_facts(from_procfs)
    assert set(from_psutil.run.members) == set(from_procfs.run.members) == run.members()
    assert from_psutil.run.uid == OTHER_UID
    assert from_psutil.run.root == Unknown(Reason.DENIED)
    assert from_psutil.foreign
    assert f"uid {OTHER_UID} != {VIEWER_UID}" in from_psutil.judgement.reasons
    assert "root unknown: cwd unreadable (denied)" in from_psutil.judgement.reasons
    assert by_psutil.visibility.run_fields_unreadable["cwd"] >= 1


def test_a_run_member_that_turns_zombie_has_a_zombie_cwd(tmp_path, runs):
    """A ZombieProcess from psutil (a NoSuchProcess) maps to zombie, not to gone."""
    proc = runs.sleeper(tmp_path / "ready", cwd=tmp_path)
    source = PsutilSource()
    record = record_of(source, proc.pid)
    os.kill(proc.pid, signal.SIGKILL)
    wait_for(lambda: status(proc.pid) == "zombie", what="the sleeper to become a zombie")
    late = source.with_owner(record)
    assert late.cwd == Unknown(Reason.ZOMBIE)
    assert late.uid == os.getuid()


def test_a_record_whose_start_no_longer_matches_its_pid_is_gone(tmp_path, runs):
    """The pid-reuse guard: a live pid with another start token is not that process."""
    proc = runs.sleeper(tmp_path / "ready", cwd=tmp_path)
    source = PsutilSource()
    record = record_of(source, proc.pid)
    owned = source.with_owner(record)
    assert owned.uid == os.getuid()
    assert owned.cwd == str(tmp_path.resolve())
    reused = source.with_owner(record._replace(start=record.start - 1))
    assert reused.uid == PID_REUSED
    assert reused.cwd == PID_REUSED


@pytest.mark.needs_root
def test_another_users_cwd_is_denied_through_the_mapping():
    """AccessDenied from a real cwd read (the macOS case for every foreign cwd) is denied."""

    def read_cwd_as_viewer(pid: int) -> object:
        return mapped(psutil.Process(pid).cwd)

    assert run_as(VIEWER_UID, read_cwd_as_viewer, os.getpid()) == Unknown(Reason.DENIED)


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (psutil.ZombieProcess(4242), Unknown(Reason.ZOMBIE)),
        (psutil.NoSuchProcess(4242), Unknown(Reason.GONE)),
        (psutil.AccessDenied(4242), Unknown(Reason.DENIED)),
        (OSError(errno.ESRCH, "gone"), Unknown(Reason.GONE)),
        (OSError(errno.EACCES, "denied"), Unknown(Reason.DENIED)),
        (OSError(0, "KERN_PROCARGS2"), Unknown(Reason.DENIED, "errno 0")),
        (OSError(errno.EIO, "io"), Unknown(Reason.ABSENT, "EIO")),
    ],
)
def test_each_process_error_maps_to_its_reason(error, expected):
    """Every psutil error and stray OSError becomes one explicit reason, zombie before gone."""

    def fail() -> None:
        raise error

    assert mapped(fail) == expected


def test_denied_argv_cpu_and_memory_keep_the_process_visible():
    """The macOS denials (argv, task info) leave a record whose argv, cpu and rss are unknown."""
    now = time.time()
    basics = Basics(ppid=1, status="sleeping", name="pytest", create_time=now - 3)
    record = build_record(
        4242,
        basics,
        pgid=4242,
        sid=4242,
        argv=Unknown(Reason.DENIED),
        cpu=Unknown(Reason.DENIED),
        memory=Unknown(Reason.DENIED),
        now=now,
    )
    assert isinstance(record, ProcRecord)
    assert record.argv == Unknown(Reason.DENIED)
    assert record.cpu_seconds == Unknown(Reason.DENIED)
    assert record.rss_bytes == Unknown(Reason.DENIED)
    assert record.state == "S"
    assert record.age_seconds == pytest.approx(3.0)


def test_a_gone_or_zombie_reading_or_an_unreadable_group_drops_the_record():
    """Gone or zombie in any reading wins; an unreadable group makes the process unreadable."""
    basics = Basics(ppid=1, status="running", name="x", create_time=time.time())
    fine = {
        "pgid": 7,
        "sid": 7,
        "argv": ("x",),
        "cpu": 0.5,
        "memory": Memory(4096, 8192),
        "now": time.time(),
    }
    assert isinstance(build_record(7, basics, **fine), ProcRecord)
    gone = build_record(7, basics, **{**fine, "cpu": Unknown(Reason.GONE)})
    assert gone == Unknown(Reason.GONE)
    zombie = build_record(7, basics, **{**fine, "argv": Unknown(Reason.ZOMBIE)})
    assert zombie == Unknown(Reason.ZOMBIE)
    denied = build_record(7, basics, **{**fine, "pgid": Unknown(Reason.DENIED)})
    assert denied == Unknown(Reason.DENIED)


def test_states_map_to_proc_letters():
    """The status names of psutil become the one-letter states of /proc/PID/stat."""
    assert [state_letter(s) for s in ("running", "sleeping", "disk-sleep", "idle")] == list("RSDI")
    assert [state_letter(s) for s in ("stopped", "tracing-stop", "zombie", "dead")] == list("TtZX")
    assert state_letter("no such status") == "?"


def test_kernel_threads_need_kthreadd_and_no_address_space():
    """Kthreadd's children without memory are kernel threads; a container's pid 2 is not."""
    assert is_kernel_thread(2, 0, 0, linux=True)
    assert is_kernel_thread(17, 2, 0, linux=True)
    assert not is_kernel_thread(2, 0, 4_000_000, linux=True)
    assert not is_kernel_thread(17, 2, Unknown(Reason.DENIED), linux=True)
    assert not is_kernel_thread(17, 2, 0, linux=False)
    assert is_kernel_thread(0, 0, Unknown(Reason.DENIED), linux=False)


def test_the_environment_selects_this_source(monkeypatch):
    """RUNCTX_SOURCE=psutil makes scans read through psutil."""
    monkeypatch.setenv(SOURCE_ENV, "psutil")
    source = default_source()
    assert isinstance(source, PsutilSource)
    report = scan(viewpoint())
    assert report.visibility.source == "psutil"
    assert report.self_run is not None


@pytest.mark.needs_root
def test_the_psutil_source_says_it_cannot_see_into_another_mount_namespace(shared_tmp, runs):
    """The psutil source reads path text only: another mount namespace's run has no known root."""
    mine = make_checkout(shared_tmp, "proj")
    twin = shared_tmp / "elsewhere" / "bind"
    twin.mkdir(parents=True)
    run = start_run_in_mount_namespace(runs, mine, twin, shared_tmp / "ready")
    judged = the_run(scan(viewpoint(cwd=str(mine)), source=PsutilSource()), run.pid)
    assert isinstance(judged.run.root, Unknown)
    assert judged.run.root.reason is Reason.OTHER_NAMESPACE
    assert judged.judgement.verdict is Verdict.UNKNOWN  # never foreign on a guess
    assert the_run(scan(viewpoint(cwd=str(mine))), run.pid).judgement.verdict is Verdict.OURS


# -- busy now, who started -------------------------------------------------------------


def test_the_psutil_source_reads_cpu_times_and_memory_like_procfs(shared_tmp, runs):
    """Psutil gives the same CPU times (by identity) and the box's memory, through its own calls."""
    run = runs.run_tests_script(make_checkout(shared_tmp))
    source = PsutilSource()
    identity = source.current_identity(run.pid)
    assert isinstance(identity, ProcIdentity)
    wrong = ProcIdentity(run.pid, identity.start + 1)
    assert isinstance(source.cpu_times([wrong])[wrong], Unknown)
    procfs = ProcfsSource()
    # the run, and this process (which has spent user and system time): psutil adds the
    # two as floats, and a process may run between the reads, so its figure lies between
    for pid in (run.pid, os.getpid()):
        seen, own = procfs.current_identity(pid), source.current_identity(pid)
        assert isinstance(seen, ProcIdentity)
        assert isinstance(own, ProcIdentity)  # each source numbers its start in its own unit
        before = procfs.cpu_times([seen])[seen]
        found = source.cpu_times([own])[own]
        after = procfs.cpu_times([seen])[seen]
        assert isinstance(before, float)
        assert isinstance(after, float)
        assert isinstance(found, float)
        assert before - 1e-9 <= found <= after + 1e-9, (pid, before, found, after)
    memory = source.load().memory
    assert isinstance(memory, MemInfo)
    assert 0 < memory.available_bytes <= memory.total_bytes


def test_the_psutil_source_reads_what_a_run_inherited_like_procfs(shared_tmp, runs):
    """Psutil reads the same variables (bytes kept) and terminal; its cgroup is an unknown."""
    env = {k: v for k, v in os.environ.items() if k not in WANTED and not k.startswith("PYTEST_")}
    env.update(CODEX_THREAD_ID=os.fsdecode(b"t-1\x1b\xff"), CI="true")
    run = runs.run_tests_script(make_checkout(shared_tmp), env=env)
    procfs, portable = ProcfsSource(), PsutilSource()
    by_procfs = procfs.inherited(procfs.current_identity(run.pid), WANTED)
    by_psutil = portable.inherited(portable.current_identity(run.pid), WANTED)
    assert by_psutil.environ == by_procfs.environ
    assert by_psutil.variable("CODEX_THREAD_ID") == os.fsdecode(b"t-1\x1b\xff")
    assert by_psutil.tty == by_procfs.tty
    assert isinstance(by_psutil.cgroup, Unknown)
    skipped = portable.inherited(
        portable.current_identity(run.pid), WANTED, skip_environ=Unknown(Reason.DENIED)
    )
    assert skipped.environ == Unknown(Reason.DENIED)
