"""The ``comm`` filter loses nothing: every name the table can start a run with passes it.

A scan reads the cmdline only of processes whose ``comm`` could start or be
part of a run (:mod:`runctx.runners.comms`). Proved here on real processes:
one per program, wrapper, shell and interpreter of the table, each executed
under that name so that the kernel gives it that ``comm``; a worker that sets
its title; and a process that cannot run anything, whose cmdline is not read.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from proctools import wait_for

from runctx.runners import BUILTIN_PATTERNS, RunnerMatch, RunnerPattern, detect_runner
from runctx.runners.comms import COMM_LENGTH, argv_filter
from runctx.runners.index import index_for
from runctx.sources.procfs import ProcfsSource
from runctx.sources.proctext import parse_cmdline
from runctx.unknown import NOT_READ

SLEEP = shutil.which("sleep") or "/bin/sleep"
BATCH = 64


def _comm(pid: int) -> str:
    return Path(f"/proc/{pid}/comm").read_text().rstrip("\n")


@contextlib.contextmanager
def _named_sleepers(directory: Path, names):
    """One ``sleep`` per name, each executed through a link of that name (its comm)."""
    procs = []
    try:
        for name in names:
            link = directory / name
            link.symlink_to(SLEEP)
            procs.append(subprocess.Popen([str(link), "120"], start_new_session=True))
        yield procs
    finally:
        for proc in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _executable_names():
    # "." is the shell's source builtin and no file name.
    return sorted(name for name in index_for(BUILTIN_PATTERNS).first_words if name != ".")


@pytest.mark.parametrize("batch", range(len(_executable_names()) // BATCH + 1))
def test_every_name_the_table_starts_with_passes_the_filter(tmp_path, batch):
    """A real process executed as any program, wrapper, shell or interpreter passes."""
    wanted = argv_filter(BUILTIN_PATTERNS)
    names = _executable_names()[batch * BATCH : (batch + 1) * BATCH]
    with _named_sleepers(tmp_path, names) as procs:
        for name, proc in zip(names, procs, strict=True):
            expected = name[:COMM_LENGTH]
            wait_for(lambda p=proc, e=expected: _comm(p.pid) == e, what=f"{name} to exec")
            comm = _comm(proc.pid)
            assert wanted(comm), f"{name} (comm {comm!r}) would not be read"


def test_a_configured_program_passes_the_filter_of_its_table(tmp_path):
    """A user's runner passes its table's filter, even named longer than the kernel keeps."""
    names = ["run-the-whole-e2e-suite", "e2e-suite"]
    table = (RunnerPattern("e2e", programs=names), *BUILTIN_PATTERNS)
    with _named_sleepers(tmp_path, names) as procs:
        for name, proc in zip(names, procs, strict=True):
            cut = name[:COMM_LENGTH]
            wait_for(lambda p=proc, c=cut: _comm(p.pid) == c, what=f"{name} to exec")
            assert argv_filter(table)(_comm(proc.pid))
        assert not argv_filter(BUILTIN_PATTERNS)(_comm(procs[1].pid))


def test_a_worker_that_sets_its_title_passes_and_is_a_worker(tmp_path):
    """Setproctitle rewrites both argv and comm: the title is still read and detected."""
    pytest.importorskip("setproctitle")
    ready = tmp_path / "ready"
    code = (
        "import pathlib, sys, time, setproctitle\n"
        "setproctitle.setproctitle('[pytest-xdist running] tests/test_a.py::test_x')\n"
        f"pathlib.Path({str(ready)!r}).touch()\n"
        "time.sleep(120)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    try:
        wait_for(ready.exists, what="the worker to set its title")
        comm = _comm(proc.pid)
        assert comm == "[pytest-xdist r"
        assert argv_filter(BUILTIN_PATTERNS)(comm)
        argv = parse_cmdline(Path(f"/proc/{proc.pid}/cmdline").read_bytes())
        assert detect_runner(argv) == RunnerMatch("pytest-xdist-worker", "worker")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def test_a_process_that_runs_nothing_has_its_cmdline_left_unread(tmp_path):
    """In a filtered table, a plain ``sleep`` has no argv read; a ``pytest`` has its own."""
    with _named_sleepers(tmp_path, ["pytest"]) as (runner,):
        plain = subprocess.Popen([SLEEP, "120"], start_new_session=True)
        try:
            wait_for(lambda: _comm(runner.pid) == "pytest", what="pytest to exec")
            table = ProcfsSource().table(argv_filter(BUILTIN_PATTERNS))
            assert table.records[plain.pid].argv == NOT_READ
            assert table.records[runner.pid].argv == (str(tmp_path / "pytest"), "120")
            unfiltered = ProcfsSource().table()
            assert unfiltered.records[plain.pid].argv == (SLEEP, "120")
        finally:
            os.killpg(plain.pid, signal.SIGKILL)
            plain.wait()


def test_a_filtered_table_folds_into_the_runs_an_unfiltered_one_does(shared_tmp):
    """With real runs of several forms live, reading fewer cmdlines finds the same runs."""
    from livetools import start_npm_test
    from proctools import make_checkout
    from runfixtures import start_make_test, start_worker_parent, start_xdist_run

    from runctx.folding import fold_runs

    started = []
    try:
        started.append(start_xdist_run(make_checkout(shared_tmp / "xdist")))
        started.append(start_make_test(make_checkout(shared_tmp / "make")))
        started.append(start_worker_parent(make_checkout(shared_tmp / "worker"))[0])
        if shutil.which("npm"):
            started.append(start_npm_test(make_checkout(shared_tmp / "npm")))
        ours = set().union(*(run.members() for run in started))
        source = ProcfsSource()

        def runs(argv_wanted):
            table = source.table(argv_wanted)
            folded = fold_runs(table.records, lambda argv: detect_runner(argv, BUILTIN_PATTERNS))
            return {(r.authority.pid, r.kind, r.members) for r in folded if r.authority.pid in ours}

        filtered = runs(argv_filter(BUILTIN_PATTERNS))
        assert filtered == runs(None)
        assert {pid for pid, _, _ in filtered} == {run.pid for run in started}
    finally:
        for run in started:
            run.kill()
