"""The ``comm`` filter (``runners/comms.py``) loses nothing: every name a run can start with passes.

A scan reads the cmdline only of processes whose ``comm`` could start or be
part of a run. Proved here on real processes, started through the run
factory: one per program, wrapper, shell and interpreter of the table, each
executed under that name so that the kernel gives it that ``comm``; a worker
that sets its title; a process that cannot run anything, whose cmdline is not
read; and live runs of several forms, where a scan through the filter gives
every run what a scan reading every cmdline gives: its kind, members and
owner, whether it was orphaned, who started it, and its CPU use now.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
from pathlib import Path

import pytest
from livetools import start_npm_test
from proctools import PYTHON, children_of, comm_of, is_live, make_checkout, wait_for
from require import find
from runfactory import RUN_TESTS_SCRIPT, ready_dir

from runctx.runners import BUILTIN_PATTERNS, RunnerMatch, RunnerPattern, detect_runner
from runctx.runners.comms import COMM_LENGTH, argv_filter
from runctx.runners.index import index_for
from runctx.scanning import scan, viewpoint
from runctx.sources.procfs import ProcfsSource
from runctx.sources.proctext import parse_cmdline
from runctx.unknown import NOT_READ

SLEEP = shutil.which("sleep") or "/bin/sleep"
BATCH = 64


def _named_sleepers(runs, directory: Path, names):
    """One ``sleep`` per name, each executed through a link of that name (its comm)."""
    procs = []
    for name in names:
        link = directory / name
        link.symlink_to(SLEEP)
        procs.append(runs.child([str(link), "300"]))
    for name, proc in zip(names, procs, strict=True):
        expected = name[:COMM_LENGTH]
        wait_for(lambda p=proc, e=expected: comm_of(p.pid) == e, what=f"{name} to exec")
    return procs


def _executable_names():
    # "." is the shell's source builtin and no file name.
    return sorted(name for name in index_for(BUILTIN_PATTERNS).first_words if name != ".")


@pytest.mark.parametrize("batch", range(len(_executable_names()) // BATCH + 1))
def test_every_name_the_table_starts_with_passes_the_filter(tmp_path, runs, batch):
    """A real process executed as any program, wrapper, shell or interpreter passes."""
    wanted = argv_filter(BUILTIN_PATTERNS)
    names = _executable_names()[batch * BATCH : (batch + 1) * BATCH]
    for name, proc in zip(names, _named_sleepers(runs, tmp_path, names), strict=True):
        comm = comm_of(proc.pid)
        assert wanted(comm), f"{name} (comm {comm!r}) would not be read"


def test_a_configured_program_passes_the_filter_of_its_table(tmp_path, runs):
    """A user's runner passes its table's filter, even named longer than the kernel keeps."""
    names = ["run-the-whole-e2e-suite", "e2e-suite"]
    table = (RunnerPattern("e2e", programs=names), *BUILTIN_PATTERNS)
    procs = _named_sleepers(runs, tmp_path, names)
    for proc in procs:
        assert argv_filter(table)(comm_of(proc.pid))
    assert not argv_filter(BUILTIN_PATTERNS)(comm_of(procs[1].pid))


def test_a_worker_that_sets_its_title_passes_and_is_a_worker(tmp_path, runs):
    """Setproctitle rewrites both argv and comm: the title is still read and detected."""
    import setproctitle  # noqa: F401 - the test extra has it: its absence fails the test

    ready = tmp_path / "ready"
    code = (
        "import pathlib, sys, time, setproctitle\n"
        "setproctitle.setproctitle('[pytest-xdist running] tests/test_a.py::test_x')\n"
        f"pathlib.Path({str(ready)!r}).touch()\n"
        "time.sleep(300)\n"
    )
    proc = runs.child([sys.executable, "-c", code], ready=ready)
    comm = comm_of(proc.pid)
    assert comm == "[pytest-xdist r"
    assert argv_filter(BUILTIN_PATTERNS)(comm)
    argv = parse_cmdline(Path(f"/proc/{proc.pid}/cmdline").read_bytes())
    assert detect_runner(argv) == RunnerMatch("pytest-xdist-worker", "worker")


def test_a_process_that_runs_nothing_has_its_cmdline_left_unread(tmp_path, runs):
    """In a filtered table, a plain ``sleep`` has no argv read; a ``pytest`` has its own."""
    (runner,) = _named_sleepers(runs, tmp_path, ["pytest"])
    plain = runs.child([SLEEP, "300"])
    wait_for(lambda: comm_of(plain.pid) == "sleep", what="sleep to exec")
    table = ProcfsSource().table(argv_filter(BUILTIN_PATTERNS))
    assert table.records[plain.pid].argv == NOT_READ
    assert table.records[runner.pid].argv == (str(tmp_path / "pytest"), "300")
    unfiltered = ProcfsSource().table()
    assert unfiltered.records[plain.pid].argv == (SLEEP, "300")


class _EveryCmdline(ProcfsSource):
    """The procfs source reading every process's cmdline, whatever filter the scan hands it."""

    def table(self, argv_wanted=None):
        """One pass over every process, every argv read."""
        del argv_wanted
        return super().table(None)


CRON_LIKE = """
import subprocess, sys
subprocess.run([sys.argv[1], "run_tests.py", sys.argv[2]], check=False)
"""
"""A parent named ``cron`` (an interpreter run through a link of that name) above a run."""


def _under_cron(runs, checkout: Path) -> int:
    """``python run_tests.py``, child of an orphaned process whose comm is ``cron``: its pid."""
    (checkout / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    (checkout / "cron_like.py").write_text(CRON_LIKE)
    cron = checkout / "cron"
    cron.symlink_to(os.path.realpath(PYTHON))
    ready = ready_dir(checkout) / "under-cron"
    argv = [str(cron), "cron_like.py", PYTHON, str(ready)]
    bare = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}  # nothing it inherited names a starter
    parent = runs.orphan(argv, checkout, env=bare, ready=ready)
    assert comm_of(parent.pid) == "cron"
    (child,) = children_of(parent.pid)
    return child


def _facts(here, source) -> dict[int, dict[str, object]]:
    """What one scan (CPU use now sampled) says of each run, by its pid."""
    report = scan(here, source=source, cpu_window=0.1)
    return {
        judged.run.pid: {
            "kind": judged.run.kind,
            "members": set(judged.run.members),
            "owner": (judged.run.uid, judged.run.root),
            "argv": judged.run.argv,
            "orphaned": judged.run.orphaned,
            "started_by": judged.run.started_by,
            "cpu_now measured": isinstance(judged.run.cpu_now, float),
        }
        for judged in report.runs
    }


def test_a_scan_through_the_filter_gives_every_run_what_reading_every_cmdline_gives(
    shared_tmp, runs
):
    """Runs, members, orphans, who started each and its CPU use now: nothing lost to the filter."""
    checkouts = {name: make_checkout(shared_tmp / name) for name in ("x", "m", "w", "a", "c", "s")}
    started = [runs.xdist(checkouts["x"]), runs.make_test(checkouts["m"])]
    parent = runs.worker_parent(checkouts["w"])
    (worker,) = parent.members() - {parent.pid}
    os.kill(parent.pid, signal.SIGKILL)  # its worker is reparented: an orphaned run
    wait_for(lambda: not is_live(parent.pid), what="the worker's parent to die")
    path = os.environ.get("PATH", "/usr/bin:/bin")
    agent_env = {"PATH": path, "CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "session-1"}
    agent = runs.run_tests_script(checkouts["a"], env=agent_env)
    under_cron = _under_cron(runs, checkouts["c"])
    started += [agent, runs.spinner(checkouts["s"])]
    if find("npm") or os.environ.get("CI"):  # one more kind of run; CI must have npm
        started.append(start_npm_test(runs, make_checkout(shared_tmp / "n")))
    ours = {worker, under_cron, *(run.pid for run in started)}
    here = viewpoint(cwd=str(checkouts["x"]))

    filtered = {pid: fact for pid, fact in _facts(here, ProcfsSource()).items() if pid in ours}
    unfiltered = _facts(here, _EveryCmdline())
    assert filtered == {pid: fact for pid, fact in unfiltered.items() if pid in ours}
    assert set(filtered) == ours
    assert filtered[worker]["orphaned"] is True
    started_by = filtered[agent.pid]["started_by"]
    assert (started_by.kind, started_by.session) == ("claude-code", "session-1")
    assert filtered[under_cron]["started_by"].kind == "cron"
    assert all(fact["cpu_now measured"] for fact in filtered.values())
