"""The Linux source: reading real processes from /proc.

What both sources must do alike is tested once per source in ``test_sources_each.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from nstools import require_tools, start_run_in_mount_namespace
from proctools import (
    OTHER_UID,
    PYTHON,
    VIEWER_UID,
    argv_of,
    kernel_threads,
    make_checkout,
    record_of,
    run_as,
    wait_for,
)
from runfactory import clean_env

from runctx.exceptions import SourceError
from runctx.records import ProcIdentity
from runctx.report import StartedBy
from runctx.scanning import scan, viewpoint
from runctx.sources import procfs
from runctx.sources.procfs import (
    ENVIRON_READ_MAX,
    SMALL_READ_MAX,
    ProcfsSource,
    cgroup_cpu_quota,
)
from runctx.sources.proctext import MemInfo
from runctx.started_by import WANTED
from runctx.unknown import Reason, Unknown

HERE = Path(__file__).resolve().parent


def test_a_real_process_with_a_hostile_name_is_read(tmp_path, runs):
    """A process whose command name holds ') (' and a newline parses from real /proc."""
    hostile = tmp_path / "a) b\n(c"
    hostile.symlink_to(Path(sys.executable))
    ready = tmp_path / "ready"
    code = "import sys, time; open(sys.argv[1], 'w').close(); time.sleep(300)"
    proc = runs.child([str(hostile), "-c", code, str(ready)], ready=ready)
    record = record_of(ProcfsSource(), proc.pid)
    assert record.comm == "a) b\n(c"
    assert record.ppid == os.getpid()
    assert record.argv[0] == str(hostile)


def test_a_real_argv_with_bad_bytes_and_empty_args_is_read_exactly(tmp_path, runs):
    """Argv from the kernel keeps empty arguments, spaces and non-UTF-8 bytes."""
    proc = runs.sleeper(tmp_path / "ready", b"\xff\xfe", "", "with space")
    record = record_of(ProcfsSource(), proc.pid)
    assert not isinstance(record.argv, Unknown)
    assert [os.fsencode(arg) for arg in record.argv[-3:]] == [b"\xff\xfe", b"", b"with space"]
    assert list(record.argv) == argv_of(proc.pid)


def test_uid_and_cwd_are_read_for_a_real_process(tmp_path, runs):
    """with_owner fills the real uid and the cwd link of a live process."""
    proc = runs.sleeper(tmp_path / "ready", cwd=tmp_path)
    source = ProcfsSource()
    record = record_of(source, proc.pid)
    assert record.uid.reason is Reason.NOT_READ
    full = source.with_owner(record)
    assert full.uid == os.getuid()
    assert full.cwd == str(tmp_path.resolve())


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


# -- the box: memory, usable CPUs, cgroup quotas --------------------------------------


def test_the_box_is_read_with_memory_and_usable_cpus():
    """A real read of the box: memory known, usable CPUs no more than the affinity allows."""
    load = ProcfsSource().load()
    assert isinstance(load.memory, MemInfo)
    assert 0 < load.memory.available_bytes <= load.memory.total_bytes
    assert isinstance(load.usable_cpus, int)
    assert 1 <= load.usable_cpus <= len(os.sched_getaffinity(0))


def cgroup_tree(root: Path, quotas: dict[str, bytes]) -> None:
    """``cpu.max`` files at each level of a cgroup tree under ``root`` (level "" is the top)."""
    for level, quota in quotas.items():
        path = root / level.lstrip("/")
        path.mkdir(parents=True, exist_ok=True)
        (path / "cpu.max").write_bytes(quota)


def test_the_smallest_quota_of_every_cgroup_above_counts(tmp_path):
    """cpu.max at each level from the process's cgroup to the top: the smallest one caps it."""
    cgroup_tree(tmp_path, {"": b"max 100000", "/a": b"300000 100000", "/a/b": b"max 100000"})
    assert cgroup_cpu_quota(b"0::/a/b\n", str(tmp_path)) == 3.0
    (tmp_path / "cpu.max").write_bytes(b"150000 100000")
    assert cgroup_cpu_quota(b"0::/a/b\n", str(tmp_path)) == 1.5
    assert cgroup_cpu_quota(b"0::/elsewhere\n", str(tmp_path / "a" / "b")) is None


def test_a_cgroup_path_that_climbs_out_is_never_read(tmp_path):
    """``0::/../x`` (outside this cgroup namespace) reads nothing above the cgroup root."""
    cgroup_tree(tmp_path, {"/x": b"100000 100000"})
    inner = tmp_path / "root"
    cgroup_tree(inner, {"": b"max 100000"})
    assert cgroup_cpu_quota(b"0::/../x\n", str(inner)) is None
    assert cgroup_cpu_quota(b"0::/x\n", str(tmp_path)) == 1.0


def test_a_v1_cpu_quota_counts_too(tmp_path):
    """A v1 cpu hierarchy: cfs_quota_us over cfs_period_us, at each level up to the top."""
    level = tmp_path / "cpu,cpuacct" / "docker" / "ab"
    level.mkdir(parents=True)
    (level / "cpu.cfs_quota_us").write_bytes(b"50000\n")
    (level / "cpu.cfs_period_us").write_bytes(b"100000\n")
    (tmp_path / "cpu,cpuacct" / "cpu.cfs_quota_us").write_bytes(b"-1\n")
    (tmp_path / "cpu,cpuacct" / "cpu.cfs_period_us").write_bytes(b"100000\n")
    assert cgroup_cpu_quota(b"4:cpu,cpuacct:/docker/ab\n", str(tmp_path)) == 0.5


def test_cgroup_files_are_read_with_a_bound_and_never_block(tmp_path):
    """A FIFO as cpu.max limits nothing and holds nothing up; one past the bound is not read."""
    cgroup_tree(tmp_path, {"": b"200000 100000", "/a/b": b"max 100000"})
    os.mkfifo(tmp_path / "a" / "cpu.max")
    assert cgroup_cpu_quota(b"0::/a/b\n", str(tmp_path)) == 2.0
    (tmp_path / "a" / "b" / "cpu.max").write_bytes(b"50000 100000" + b" " * SMALL_READ_MAX)
    assert cgroup_cpu_quota(b"0::/a/b\n", str(tmp_path)) == 2.0


# -- CPU times, by identity ----------------------------------------------------------------


def test_cpu_times_grow_for_a_spinning_process_and_not_for_a_sleeping_one(shared_tmp, runs):
    """Two readings of real processes: a spinner's CPU time grows, a sleeper's stays."""
    sleeper = runs.run_tests_script(make_checkout(shared_tmp, "other"))
    spinner = runs.spinner(make_checkout(shared_tmp))
    source = ProcfsSource()
    identities = [source.current_identity(pid) for pid in (spinner.pid, sleeper.pid)]
    assert all(isinstance(identity, ProcIdentity) for identity in identities)
    first = source.cpu_times(identities)
    wait_for(
        lambda: source.cpu_times(identities)[identities[0]] > first[identities[0]],
        what="the spinner to use CPU",
    )
    assert source.cpu_times(identities)[identities[1]] == first[identities[1]]


def test_a_gone_or_reused_pid_gives_no_cpu_time(shared_tmp, runs):
    """A process that exited, or an identity whose start does not match, reads as unknown."""
    run = runs.run_tests_script(make_checkout(shared_tmp))
    source = ProcfsSource()
    identity = source.current_identity(run.pid)
    assert isinstance(identity, ProcIdentity)
    wrong = ProcIdentity(run.pid, identity.start + 1)
    found = source.cpu_times([identity, wrong])
    assert isinstance(found[identity], float)
    assert isinstance(found[wrong], Unknown)
    runs.kill(run)
    gone = source.cpu_times([identity])[identity]
    assert isinstance(gone, Unknown)
    assert gone.reason in (Reason.GONE, Reason.ZOMBIE)


# -- what a run inherited: /proc/PID/environ, read with a bound -------------------------


def bare_env(**extra: str) -> dict[str, str]:
    """The suite's environment without any variable a starter sets, plus ``extra``."""
    env = {key: value for key, value in clean_env().items() if key not in WANTED}
    env = {key: value for key, value in env.items() if not key.startswith("RUNCTX_")}
    env.update(extra)
    return env


def started_by_of(checkout: Path, pid: int):
    """Who a scan from ``checkout`` says started the run led by ``pid``."""
    report = scan(viewpoint(cwd=str(checkout)))
    return next(j.run.started_by for j in report.runs if j.run.pid == pid)


def test_a_variable_past_the_read_bound_is_not_seen(shared_tmp, runs):
    """An environment longer than the bound: what comes before it is read, what is past it not."""
    checkout = make_checkout(shared_tmp)
    filler = "x" * (100 * 1024)  # one string may hold at most 128 KiB (MAX_ARG_STRLEN)
    env = bare_env(AAA_FILLER1=filler, AAA_FILLER2=filler, AAA_FILLER3=filler)
    env = {"CODEX_THREAD_ID": "early", **env, "CLAUDE_CODE_SESSION_ID": "late"}
    run = runs.run_tests_script(checkout, env=env)
    raw = Path(f"/proc/{run.pid}/environ").read_bytes()
    assert raw.index(b"CLAUDE_CODE_SESSION_ID=late") > ENVIRON_READ_MAX
    assert started_by_of(checkout, run.pid) == StartedBy("codex", "early", None)


def test_a_variable_cut_by_the_read_bound_is_not_taken_in_part(shared_tmp, runs):
    """A session id the bound cuts in two is dropped, never read as a shorter, wrong id."""
    checkout = make_checkout(shared_tmp)
    fillers = {"AAA_FILLER1": "x" * (100 * 1024), "AAA_FILLER2": "x" * (100 * 1024)}
    before = sum(len(name) + 1 + len(value) + 1 for name, value in fillers.items())
    # one string may hold at most 128 KiB (MAX_ARG_STRLEN); the id starts 30 bytes before the bound
    fillers["AAA_FILLER3"] = "x" * (ENVIRON_READ_MAX - 30 - before - len("AAA_FILLER3=") - 1)
    env = {**fillers, "CLAUDE_CODE_SESSION_ID": "0123456789abcdef"}
    env.update(bare_env())
    run = runs.run_tests_script(checkout, env=env)
    raw = Path(f"/proc/{run.pid}/environ").read_bytes()
    at = raw.index(b"CLAUDE_CODE_SESSION_ID=")
    assert at < ENVIRON_READ_MAX < at + len("CLAUDE_CODE_SESSION_ID=0123456789abcdef")
    found = started_by_of(checkout, run.pid)
    assert isinstance(found, Unknown), found


def test_inherited_variables_keep_their_bytes(shared_tmp, runs):
    """A session id with an escape sequence and bytes that are not UTF-8 is read exactly."""
    checkout = make_checkout(shared_tmp)
    session = os.fsdecode(b"\x1b[2J\xff-session")
    run = runs.run_tests_script(checkout, env=bare_env(CLAUDE_CODE_SESSION_ID=session))
    source = ProcfsSource()
    inherited = source.inherited(source.current_identity(run.pid), WANTED)
    assert inherited.variable("CLAUDE_CODE_SESSION_ID") == session
    assert started_by_of(checkout, run.pid) == StartedBy("claude-code", session, None)


@pytest.mark.needs_root
def test_mountinfo_is_read_once_per_scan_and_only_for_runs_whose_walk_found_no_git(
    shared_tmp, runs, monkeypatch
):
    """Ours once per scan; a run's own only when its climb found no .git in its namespace."""
    mine = make_checkout(shared_tmp, "proj")
    hidden = []
    for name in ("a", "b"):
        (mine / name).mkdir()
        (shared_tmp / f"app-{name}").mkdir()
        hidden.append(
            start_run_in_mount_namespace(
                runs, mine / name, shared_tmp / f"app-{name}", shared_tmp / f"ready-{name}"
            )
        )
    (shared_tmp / "twin").mkdir()
    twin = start_run_in_mount_namespace(runs, mine, shared_tmp / "twin", shared_tmp / "ready")
    read: list[str] = []
    real = procfs.read_bounded

    def counted(path: str, limit: int) -> object:
        read.append(path)
        return real(path, limit)

    monkeypatch.setattr(procfs, "read_bounded", counted)
    source = ProcfsSource()
    tables = []
    real_table = source.table

    def table(*args: object) -> object:
        tables.append(1)  # a run that exits mid-scan makes it read the table once more
        return real_table(*args)

    monkeypatch.setattr(source, "table", table)
    report = scan(viewpoint(cwd=str(mine)), source=source)
    verdicts = {judged.run.pid: judged.judgement.verdict.value for judged in report.runs}
    assert [verdicts.get(run.pid) for run in (*hidden, twin)] == ["ours", "ours", "ours"]
    assert read.count("/proc/self/mountinfo") == len(tables)
    assert all(read.count(f"/proc/{run.pid}/mountinfo") == len(tables) for run in hidden)
    assert f"/proc/{twin.pid}/mountinfo" not in read


MANY_THREADS = """
import sys, threading
stop = threading.Event()
for _ in range(int(sys.argv[1])):
    threading.Thread(target=stop.wait, daemon=True).start()
print("up", flush=True)
sys.stdin.read()
"""


def test_the_children_of_a_process_of_many_threads_cost_a_bounded_number_of_reads(monkeypatch):
    """Each thread keeps its own children list: past ``CHILDREN_THREADS_MAX`` none is read."""
    threads = procfs.CHILDREN_THREADS_MAX + 50
    with subprocess.Popen(
        [sys.executable, "-c", MANY_THREADS, str(threads)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stdout is not None
        assert process.stdin is not None
        assert process.stdout.readline() == "up\n"
        assert len(os.listdir(f"/proc/{process.pid}/task")) > procfs.CHILDREN_THREADS_MAX
        read = []
        real = procfs.read_file

        def counted(path, *args):
            read.append(path)
            return real(path, *args)

        monkeypatch.setattr(procfs, "read_file", counted)
        assert procfs.ProcfsSource()._children(process.pid) == []
        assert len(read) == procfs.CHILDREN_THREADS_MAX
        process.stdin.close()
