"""The contention plugin on a quiet box goes ahead without the scan, and becomes it at a doubt.

Each session runs in a pid namespace of its own (needs root; CI runs as
root), which holds nothing but what the test starts: the box's other runs
never decide what it finds. The box's load is the whole machine's, though,
and not this test's to choose: where a test needs the box calm, the nested
session's conftest says so for the load figures alone; which processes may
be runs is read from the real ``/proc`` of the namespace.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from nstools import in_own_pid_namespace, sandboxed_run
from proctools import PYTHON, make_checkout, wait_for

from runctx import records, settings
from runctx.fastpath.quiet_session import (
    CPU_PRESSURE_BELOW,
    LOAD_BELOW,
    MAX_CMDLINE_BYTES,
    MAX_WORDS,
    MEMORY_AVAILABLE_FROM,
    OTHERS_BELOW,
    PF_KTHREAD,
    SETTINGS_ENV_PREFIX,
    box_may_be_busy_in,
    could_be_a_run,
    names_a_runner,
    others_may_run,
)
from runctx.sources import procfs

SEEN = """
import json, os, sys

import runctx.fastpath.quiet_session as quiet

if os.environ.get("CALM_BOX"):  # the machine's load is not the test's to choose
    quiet.box_may_be_busy = lambda *, during=False: False
    quiet.others_kept_busy = lambda since: False

SCAN = {"runctx.scanning", "runctx.report", "runctx.runners.table", "runctx.policy"}


def pytest_unconfigure(config):
    plugin = config.pluginmanager.get_plugin("runctx-session")
    seen = {
        "plugin": type(plugin).__name__,
        "whole": getattr(plugin, "whole", None) is not None,
        "quiet": list(getattr(plugin, "quiet_labels", [])),
        "scan": sorted(SCAN & set(sys.modules)),
    }
    with open(os.environ["SEEN_OUT"], "w") as out:
        json.dump(seen, out)
"""

STARTS_A_RUN = """
import os, subprocess, sys, time


def test_a_run_starts_elsewhere_meanwhile():
    other, ready = os.environ["OTHER_CHECKOUT"], os.environ["OTHER_READY"]
    if os.fork() == 0:  # orphaned: it is no process of this session
        if os.fork() == 0:
            os.chdir(other)
            os.execv(sys.executable, [sys.executable, "run_tests.py", ready])
        os._exit(0)
    os.wait()
    while not os.path.exists(ready):
        time.sleep(0.02)
    assert False, "fails, so that the summary speaks"
"""


def _session(
    runs, checkout: Path, tmp_path: Path, started=(), args=(), **env: str
) -> tuple[dict, str]:
    """A nested ``pytest -p no:cacheprovider`` in its own pid namespace: what it saw, its output."""
    (checkout / "conftest.py").write_text(SEEN)
    seen = tmp_path / "seen.json"
    found = in_own_pid_namespace(
        runs,
        list(started),
        [PYTHON, "-m", "pytest", "-p", "no:cacheprovider", *args, str(checkout)],
        "",
        cwd=checkout,
        env={"SEEN_OUT": str(seen), **env},
    )
    reply = found["replies"][-1]
    return json.loads(seen.read_text()), reply["stdout"] + reply["stderr"]


def test_a_quiet_box_goes_ahead_without_importing_the_scan(checkout, runs, tmp_path):
    """Nothing else may be a run, the box is calm: none of the scan is imported, nothing said."""
    (checkout / "test_one.py").write_text("def test_one():\n    pass\n")
    seen, output = _session(runs, checkout, tmp_path, CALM_BOX="1")
    assert seen == {"plugin": "QuietSession", "whole": False, "quiet": ["start", "end"], "scan": []}
    assert "runctx" not in output.replace("runctx-", ""), output  # "plugins: runctx-0.1.0" only


def test_a_checkout_that_sets_anything_for_runctx_gets_the_whole_plugin(checkout, runs, tmp_path):
    """A ``[tool.runctx]`` table may change what a session does: it is read, on a quiet box too."""
    (checkout / "test_one.py").write_text("def test_one():\n    pass\n")
    (checkout / "pyproject.toml").write_text('[tool.runctx]\non-busy-box = "warn"\n')
    seen, output = _session(runs, checkout, tmp_path, CALM_BOX="1")
    assert seen["plugin"] == "ContentionSession", (seen, output)


@pytest.mark.parametrize("verbosity", [(), ("-qq",)])
def test_a_session_that_fails_on_a_quiet_box_says_what_its_samples_saw(
    checkout, runs, tmp_path, verbosity
):
    """Tests failed: the summary's one line, worded as the whole plugin words it, under -qq too."""
    (checkout / "test_one.py").write_text("def test_one():\n    assert False\n")
    seen, output = _session(runs, checkout, tmp_path, args=verbosity, CALM_BOX="1")
    assert (seen["plugin"], seen["whole"]) == ("QuietSession", False), seen
    assert seen["quiet"] == ["start", "end"], seen
    said = [line for line in output.splitlines() if line.startswith("runctx: ")]
    assert said == ["runctx: no other test run seen during this session (2 samples)"], output


def test_a_run_elsewhere_before_the_session_makes_it_the_whole_plugin(
    checkout, runs, tmp_path, shared_tmp
):
    """A process that may be a test run, live when the session starts: the whole plugin, at once."""
    (checkout / "test_one.py").write_text("def test_one():\n    pass\n")
    other = make_checkout(shared_tmp, "other")
    seen, output = _session(runs, checkout, tmp_path, [sandboxed_run(other)], CALM_BOX="1")
    assert seen["plugin"] == "ContentionSession", (seen, output)
    assert set(seen["scan"]) == {
        "runctx.scanning",
        "runctx.report",
        "runctx.runners.table",
        "runctx.policy",
    }


def test_a_run_that_starts_during_the_session_is_in_its_summary(
    checkout, runs, tmp_path, shared_tmp
):
    """The box was quiet at the start; the end's sample sees the run and counts the quiet one."""
    (checkout / "test_starts.py").write_text(STARTS_A_RUN)
    other = make_checkout(shared_tmp, "other")
    argv, _cwd, ready = sandboxed_run(other)
    assert argv[1] == "run_tests.py"
    seen, output = _session(
        runs, checkout, tmp_path, CALM_BOX="1", OTHER_CHECKOUT=str(other), OTHER_READY=str(ready)
    )
    assert seen["plugin"] == "QuietSession", seen
    assert seen["whole"], seen  # it became the whole plugin at the end's sample
    assert seen["quiet"] == ["start"], seen
    summary = [line for line in output.splitlines() if line.startswith("runctx: ")]
    assert len(summary) == 1, output
    assert "2 samples" in summary[0], summary  # the quiet start, and the end that saw the run
    assert "1 idle foreign test run" in summary[0], summary


def test_the_quiet_thresholds_are_the_default_ones():
    """The quiet box's limits are the defaults of a busy box, and its variables the settings'."""
    busy = settings.DEFAULT_BUSY
    assert (busy.cpu_pressure, busy.load_per_cpu, busy.memory_available, busy.run_cpu) == (
        CPU_PRESSURE_BELOW,
        LOAD_BELOW,
        MEMORY_AVAILABLE_FROM,
        OTHERS_BELOW,
    )
    names = [name for name, _key in settings._ENVIRONMENT_KEYS]
    assert names, names
    assert all(name.startswith(SETTINGS_ENV_PREFIX) for name in names), names


PRESSURE = (
    "some avg10={} avg60=0.00 avg300=0.00 total=1\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
)
MEMINFO = "MemTotal: 1000 kB\nMemFree: 10 kB\nMemAvailable: {} kB\n"


def test_a_box_is_quiet_only_under_every_threshold_with_every_figure_read():
    """Each figure at its threshold, or not read, makes the box one that may be busy."""

    def busy(pressure="1.00", load="0.50", available="500") -> bool:
        return box_may_be_busy_in(
            PRESSURE.format(pressure).encode() if pressure is not None else None,
            f"{load} 0.4 0.3 1/100 4242\n".encode() if load is not None else None,
            MEMINFO.format(available).encode() if available is not None else None,
        )

    assert not busy()
    assert busy(pressure="40.00")
    assert busy(load="1.50")
    assert busy(available="99")  # 9.9% available
    assert not busy(available="100")  # 10%
    assert busy(pressure=None)
    assert busy(load=None)
    assert busy(available=None)
    assert busy(pressure="garbage")


def test_during_the_session_the_box_is_judged_by_memory_alone():
    """The session's own processes make CPU pressure and load: during it, they are not asked."""
    pressure, load = PRESSURE.format("90.00").encode(), b"7.00 6.0 5.0 9/100 4242\n"
    memory = MEMINFO.format("500").encode()
    assert box_may_be_busy_in(pressure, load, memory)
    assert not box_may_be_busy_in(pressure, load, memory, during=True)
    assert box_may_be_busy_in(pressure, load, MEMINFO.format("50").encode(), during=True)


def test_a_command_line_is_read_as_far_as_a_scan_reads_it():
    """As many bytes as a scan reads; a runner named past the pre-filter's text is found."""
    assert (MAX_CMDLINE_BYTES, MAX_WORDS) == (records.CMDLINE_READ_MAX, records.ARGV_WORDS_MAX)
    assert names_a_runner(b"env\0A=" + b"x" * 70_000 + b"\0pytest\0-x\0")
    assert not names_a_runner(b"env\0A=" + b"x" * 70_000 + b"\0sleep\0100\0")


BLANK_ARGUMENTS = """
import ctypes, mmap, pathlib, sys, time

ready = pathlib.Path(sys.argv[1])
fields = pathlib.Path("/proc/self/stat").read_bytes().rpartition(b")")[2].split()
arg_start, env_end = int(fields[45]), int(fields[48])
libc = ctypes.CDLL(None, use_errno=True)
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
low = arg_start // mmap.PAGESIZE * mmap.PAGESIZE
if libc.munmap(low, env_end - low):
    sys.exit(f"munmap: errno {ctypes.get_errno()}")
told = ready.with_suffix(".told")
told.write_text(repr(pathlib.Path("/proc/self/cmdline").read_bytes()))
told.rename(ready)  # whole when it appears: the test reads it the moment it exists
while True:
    time.sleep(60)
"""
"""Lets go of the pages that hold its arguments and environment: its command line reads empty,
as a process's does between two programs. It never returns (whatever it would call next may
look for its environment there)."""


def _command_line(pid: int) -> bytes:
    return Path(f"/proc/{pid}/cmdline").read_bytes()


def test_command_lines_past_the_budget_are_a_doubt(runs, shared_tmp):
    """Others' command lines are read up to a budget in all; past it, the whole scan decides.

    A process of this box outside this session, with a command line that
    names no runner: under a budget smaller than it, the check has a doubt.
    """
    process = runs.orphan(["/bin/sleep", "60"], cwd=shared_tmp)
    wait_for(lambda: _command_line(process.pid) == b"/bin/sleep\x0060\x00", what="sleep to start")
    assert others_may_run(budget=0)


def test_an_empty_command_line_of_a_live_process_is_a_doubt(runs, shared_tmp):
    """A process that is neither a kernel thread nor ended, whose command line reads empty.

    So reads one that is starting a program (``execve``), which may be a run.
    """
    ready = shared_tmp / "blank"
    process = runs.orphan([PYTHON, "-c", BLANK_ARGUMENTS, str(ready)], cwd=shared_tmp, ready=ready)
    assert (ready.read_text(), _command_line(process.pid)) == ("b''", b"")
    assert others_may_run(budget=1 << 40)


def test_a_kernel_thread_is_known_by_the_scans_flag():
    """The quiet check passes over the processes the scan calls kernel threads."""
    assert PF_KTHREAD == procfs.PF_KTHREAD


def test_the_names_of_a_run_are_looked_for_in_its_command_line():
    """A command line that names a runner may be a run; one that names none is not."""
    assert could_be_a_run("/usr/bin/python3 -m pytest -x tests")
    assert could_be_a_run("npm test")
    assert could_be_a_run("python run_tests.py /tmp/ready")
    assert not could_be_a_run("/usr/sbin/sshd -D")
    assert not could_be_a_run("python -m http.server 8000")
