"""The pytest plugin, black-box: real pytest sessions next to real live runs.

Each nested session runs as a subprocess (``runpytest_subprocess``) in a real
git checkout, so runctx sees it as a process. Such a session is a descendant
of the suite's own run, which belongs to another checkout: from the nested
session's viewpoint it is a newcomer and waits for every run of its checkout.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
import time
from pathlib import Path

import psutil
import pytest
from proctools import PYTHON, Orphan, make_checkout, spawn_orphan, wait_for
from runfixtures import clean_env, ready_dir, start_run_tests_script

from runctx.pytest_plugin import (
    EXIT_REFUSED,
    Sample,
    header_lines,
    session_decision,
    shared_worker_count,
    summary_lines,
)
from runctx.scanning import scan, viewpoint

pytest_plugins = ["pytester"]

QUIET = ("-p", "no:cacheprovider")
RAN = "import pathlib\n\ndef test_ran():\n    (pathlib.Path(__file__).parent / 'ran').touch()\n"


@pytest.fixture
def checkout(pytester):
    """The pytester directory made a real git checkout (its own root)."""
    subprocess.run(["git", "init", "-q", str(pytester.path)], check=True)
    return Path(os.path.realpath(pytester.path))


@pytest.fixture
def runs():
    """Runs started by a test, killed by process group at teardown."""
    started: list[Orphan] = []
    yield started
    for run in started:
        run.kill()


def session(pytester, *args):
    """A nested pytest session on the pytester checkout, started from outside it.

    pytester moves this process into its directory, and a session started from
    there is a member of this process's run: when the suite itself was started
    as a plain ``pytest``, that run's cwd, and so its checkout, would be the
    nested session's, which makes the nested session part of an older run of
    its own checkout. Stepping out first keeps the suite's run foreign to it,
    however the suite was started; ``--rootdir`` and the path keep the nested
    session on the checkout.
    """
    checkout = pytester.path
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(checkout.parent)
        return pytester.runpytest_subprocess("--rootdir", str(checkout), str(checkout), *args)


def header_of(result) -> list[str]:
    """The runctx lines of the report header (before collection)."""
    lines = []
    for line in result.outlines:
        if line.startswith("collect"):
            break
        if line.startswith("runctx: "):
            lines.append(line)
    return lines


def summary_of(result) -> list[str]:
    """The lines of the runctx section of the terminal summary."""
    lines = result.outlines
    starts = [i for i, line in enumerate(lines) if re.fullmatch(r"-+ runctx -+", line)]
    if not starts:
        return []
    section = []
    for line in lines[starts[0] + 1 :]:
        if line.startswith(("===", "---")):
            break
        section.append(line)
    return section


def the_line(lines: list[str], text: str) -> str:
    """The one line that contains ``text``."""
    found = [line for line in lines if text in line]
    assert len(found) == 1, (text, lines)
    return found[0]


def gone(pid: int) -> str:
    """Source of a test that passes only if ``pid`` is no live process."""
    return (
        "import pathlib\n"
        "def test_other_run_is_gone():\n"
        f"    path = pathlib.Path('/proc/{pid}/stat')\n"
        "    if path.exists():\n"
        "        stat = path.read_bytes()\n"
        "        assert stat[stat.rfind(b')') + 2 :][:1] in (b'Z', b'X')\n"
    )


def test_header_names_runs_of_this_checkout_and_foreign_contention(
    pytester, checkout, runs, shared_tmp
):
    """The header names our live run (pid, age, members) and only counts an idle foreign one."""
    ours = start_run_tests_script(checkout)
    runs.append(ours)
    theirs = make_checkout(shared_tmp, checkout.name)
    foreign = start_run_tests_script(theirs)
    runs.append(foreign)
    pytester.makepyfile(test_ok="def test_ok():\n    pass\n")
    result = session(pytester, *QUIET)
    assert result.ret == 0
    result.assert_outcomes(passed=1)
    header = header_of(result)
    ours_line = the_line(header, f"pid {ours.pid} (")
    assert re.search(rf"pid {ours.pid} \(run-tests-script, [^)]*\d+s, 1 process\)", ours_line)
    assert "this checkout" in ours_line
    assert not any(f"pid {foreign.pid} (" in line for line in header)
    assert any("idle foreign test run" in line for line in header), header
    summary = summary_of(result)
    assert the_line(summary, f"pid {ours.pid} (").startswith("  other run of this checkout:")
    assert not any(f"pid {foreign.pid} (" in line for line in summary)


def test_wait_blocks_until_the_other_run_ends(pytester, checkout, runs):
    """--runctx=wait shows whom it waits for, and the tests start only after that run ended."""
    ours = start_run_tests_script(checkout)
    runs.append(ours)
    pytester.makepyfile(test_after=gone(ours.pid))
    killer = threading.Timer(1.5, ours.kill)
    killer.start()
    began = time.monotonic()
    try:
        result = session(pytester, "--runctx=wait", "--runctx-poll=0.1", *QUIET)
    finally:
        killer.join()
    assert time.monotonic() - began >= 1.5
    assert result.ret == 0, result.outlines
    result.assert_outcomes(passed=1)
    the_line(header_of(result), "--runctx=wait: waiting for 1 earlier run of this checkout")
    the_line(result.outlines, f"runctx: waiting for pid {ours.pid} (run-tests-script")
    assert re.search(
        rf"runctx: waited \d+\.\ds for pid {ours.pid}; going ahead", result.stdout.str()
    )


def test_wait_that_times_out_exits_75_without_running_tests(pytester, checkout, runs):
    """A wait that outlasts --runctx-timeout exits 75, says why, and runs no test."""
    ours = start_run_tests_script(checkout)
    runs.append(ours)
    pytester.makepyfile(test_never=RAN)
    result = session(pytester, "--runctx=wait", "--runctx-timeout=0.5", "--runctx-poll=0.1", *QUIET)
    assert result.ret == EXIT_REFUSED == 75
    assert not (checkout / "ran").exists()
    assert "runctx: timed out after" in result.stderr.str()
    assert f"pid {ours.pid} (" in result.stderr.str()


def test_refuse_from_the_ini_exits_75_only_while_a_run_is_live(pytester, checkout, runs):
    """Runctx = refuse (ini) exits 75 naming the live run; once it ended, the tests run."""
    ours = start_run_tests_script(checkout)
    runs.append(ours)
    pytester.makeini("[pytest]\nrunctx = refuse\n")
    pytester.makepyfile(test_once=RAN)
    refused = session(pytester, *QUIET)
    assert refused.ret == 75
    assert not (checkout / "ran").exists()
    the_line(header_of(refused), "--runctx=refuse: not starting next to 1 earlier run")
    stderr = refused.stderr.str()
    assert f"pid {ours.pid} (run-tests-script" in stderr
    assert "--runctx=refuse, exit status 75" in stderr
    ours.kill()
    allowed = session(pytester, *QUIET)
    assert allowed.ret == 0
    assert (checkout / "ran").exists()
    the_line(header_of(allowed), "--runctx=refuse: no earlier run of this checkout is live")


ROLE_CONFTEST = """
import pathlib
from runctx.pytest_plugin import STATE

def pytest_sessionfinish(session):
    config = session.config
    worker = getattr(config, "workerinput", {}).get("workerid", "controller")
    sampler = config.pluginmanager.get_plugin("runctx-sampler") is not None
    path = config.rootpath / f"role-{worker}"
    path.write_text(f"state={STATE in config.stash} sampler={sampler}")
"""


def test_under_xdist_only_the_controller_reports(pytester, checkout, runs):
    """With -n 2 the controller scans and reports once; the workers hold no runctx state."""
    ours = start_run_tests_script(checkout)
    runs.append(ours)
    pytester.makeconftest(ROLE_CONFTEST)
    pytester.makepyfile(test_two="def test_a():\n    pass\n\ndef test_b():\n    pass\n")
    result = session(pytester, "-n", "2", *QUIET)
    assert result.ret == 0
    result.assert_outcomes(passed=2)
    roles = {path.name: path.read_text() for path in checkout.glob("role-*")}
    assert roles == {
        "role-controller": "state=True sampler=True",
        "role-gw0": "state=False sampler=False",
        "role-gw1": "state=False sampler=False",
    }
    assert len([line for line in result.outlines if f"pid {ours.pid} (" in line]) == 2
    the_line(header_of(result), f"pid {ours.pid} (")
    the_line(summary_of(result), f"pid {ours.pid} (")


SERIAL_CONFTEST = """
import os, pathlib

def pytest_sessionfinish(session, exitstatus):
    if not hasattr(session.config, "workerinput"):
        log = pathlib.Path(os.environ["RUNCTX_LOG"])
        name = os.environ["RUN_NAME"]
        # Written whole, then renamed: a reader never sees the file empty.
        (log / f"{name}.rc.tmp").write_text(str(int(exitstatus)))
        (log / f"{name}.rc.tmp").rename(log / f"{name}.rc")
"""

SERIAL_TESTS = """
import os, pathlib, time

def _hold():
    log = pathlib.Path(os.environ["RUNCTX_LOG"])
    began = time.time()
    (log / f"{os.environ['RUN_NAME']}-{os.getpid()}.started").touch()
    time.sleep(float(os.environ["HOLD_SECONDS"]))
    (log / f"{os.environ['RUN_NAME']}-{os.getpid()}").write_text(f"{began} {time.time()}")

def test_a():
    _hold()

def test_b():
    _hold()
"""


def start_session(checkout: Path, log: Path, name: str, hold: float, *args: str) -> Orphan:
    """An orphaned pytest session in ``checkout``, its output in ``log/NAME.out``."""
    env = clean_env(
        RUNCTX_LOG=str(log), RUN_NAME=name, HOLD_SECONDS=str(hold), OUT=str(log / f"{name}.out")
    )
    argv = ["/bin/sh", "-c", 'exec "$0" "$@" >"$OUT" 2>&1', PYTHON, "-m", "pytest", *args]
    return spawn_orphan(argv, checkout, env=env)


def intervals(log: Path, name: str) -> list[tuple[float, float]]:
    """The (start, end) times of the tests a session ran."""
    return [
        (float(began), float(ended))
        for path in log.glob(f"{name}-*")
        if not path.name.endswith(".started")
        for began, ended in [path.read_text().split()]
    ]


def test_two_waiting_runs_of_one_checkout_serialise_without_deadlock(shared_tmp, runs):
    """Two real --runctx=wait sessions: the older (-n 2) goes ahead, the younger waits its turn."""
    checkout = make_checkout(shared_tmp)
    (checkout / "tests").mkdir()
    (checkout / "tests" / "conftest.py").write_text(SERIAL_CONFTEST)
    (checkout / "tests" / "test_serial.py").write_text(SERIAL_TESTS)
    log = ready_dir(checkout)
    wait_args = ("--runctx=wait", "--runctx-poll=0.1", "-v", *QUIET, "tests")
    older = start_session(checkout, log, "older", 1.5, "-n", "2", *wait_args)
    runs.append(older)
    wait_for(lambda: len(list(log.glob("older-*.started"))) == 2, what="the older run's tests")
    younger = start_session(checkout, log, "younger", 0, *wait_args)
    runs.append(younger)
    wait_for((log / "younger.rc").exists, 60, "the younger run to finish")
    assert (log / "older.rc").read_text() == "0"
    assert (log / "younger.rc").read_text() == "0"
    older_out = (log / "older.out").read_text()
    younger_out = (log / "younger.out").read_text()
    assert "runctx: --runctx=wait: no earlier run of this checkout is live; going ahead" in (
        older_out
    )
    assert "runctx: waiting for" not in older_out
    assert f"runctx: waiting for pid {older.pid} (pytest" in younger_out
    assert max(end for _, end in intervals(log, "older")) <= min(
        start for start, _ in intervals(log, "younger")
    )
    own = {older.pid} | {
        int(p.name.split("-")[1]) for p in log.glob("older-*") if "." not in p.name
    }
    assert len(own) == 3
    older_report = [line for line in older_out.splitlines() if "pid " in line]
    assert not [line for line in older_report for pid in own if f"pid {pid} " in line]
    assert f"pid {younger.pid} (pytest" in older_out  # it was live, waiting, at the end


def test_contention_that_appears_mid_session_reaches_the_summary(pytester, checkout, runs):
    """A run that starts while the tests run is not in the header but is in the summary."""
    started, go = checkout / "started", checkout / "go"
    pytester.makepyfile(
        test_mid=(
            "import pathlib, time\n"
            "def test_mid():\n"
            f"    pathlib.Path({str(started)!r}).touch()\n"
            "    deadline = time.monotonic() + 30\n"
            f"    while not pathlib.Path({str(go)!r}).exists() and time.monotonic() < deadline:\n"
            "        time.sleep(0.02)\n"
        )
    )

    def start_mid_session() -> None:
        wait_for(started.exists, what="the test to start")
        runs.append(start_run_tests_script(checkout))
        go.touch()

    helper = threading.Thread(target=start_mid_session)
    helper.start()
    try:
        result = session(pytester, *QUIET)
    finally:
        helper.join()
    (mid,) = runs
    assert result.ret == 0
    assert not [line for line in header_of(result) if f"pid {mid.pid} " in line]
    line = the_line(summary_of(result), f"pid {mid.pid} (")
    assert line.startswith("  other run of this checkout:")
    assert line.endswith("[seen at end]")


def test_n_auto_leaves_room_for_memory(pytester, checkout, monkeypatch):
    """With -n auto and workers bigger than the memory left, fewer workers start than xdist's count.

    Each worker is said to need half the memory available now, over the
    checkout's reserve: one fits. (The CPUs other runs keep busy depend on
    the box, so that part is pinned by the pure tests below.)
    """
    base = psutil.cpu_count(logical=False) or psutil.cpu_count() or 1
    if base < 2:
        pytest.skip("needs at least 2 CPUs to leave one free")
    available = psutil.virtual_memory().available
    pytester.makepyfile(
        test_count=(
            "import os, pathlib\n"
            "def test_count():\n"
            "    count = os.environ['PYTEST_XDIST_WORKER_COUNT']\n"
            "    (pathlib.Path(__file__).parent / 'count').write_text(count)\n"
        )
    )
    (checkout / "pyproject.toml").write_text("[tool.runctx]\nbusy-box-memory-available = 0\n")
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    mib = available * 0.6 / 2**20
    result = session(pytester, "-n", "auto", f"--runctx-worker-memory={mib:.0f}", *QUIET)
    assert result.ret == 0, result.outlines
    workers = int((checkout / "count").read_text())
    assert workers == 1
    note = the_line(header_of(result), "runctx: -n auto:")
    assert note.startswith("runctx: -n auto: 1 worker instead of ")
    assert "GiB available holds 1 at" in note


BROKEN_INSTALL = """
import sys

for name in ("runctx.scanning", "runctx.waiting", "runctx.present.words"):
    sys.modules[name] = None  # importing it now raises ImportError
"""


@pytest.mark.parametrize("failure", ["unknown source", "broken install"])
def test_a_failure_inside_runctx_is_one_header_line_and_never_refuses(
    pytester, checkout, runs, monkeypatch, failure
):
    """When runctx cannot scan, the header says so in one line and the session runs."""
    runs.append(start_run_tests_script(checkout))
    if failure == "unknown source":
        monkeypatch.setenv("RUNCTX_SOURCE", "bogus")
        expected = "runctx: could not check for other runs (ConfigError: unknown process source"
    else:
        pytester.makeconftest(BROKEN_INSTALL)
        expected = "runctx: could not check for other runs (ModuleNotFoundError: import of"
    pytester.makepyfile(test_ok="def test_ok():\n    pass\n")
    result = session(pytester, "--runctx=refuse", "--runctx-timeout=5", *QUIET)
    assert result.ret == 0, result.outlines
    result.assert_outcomes(passed=1)
    lines = [line for line in result.outlines if line.startswith("runctx:")]
    assert len(lines) == 1, lines
    assert lines[0].startswith(expected)
    assert the_line(summary_of(result), "runctx could not check for other runs")


def test_a_bad_ini_value_is_a_usage_error(pytester):
    """An unknown runctx mode in the ini stops pytest with a usage error that names it."""
    pytester.makeini("[pytest]\nrunctx = sometimes\n")
    result = pytester.runpytest(*QUIET)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "runctx = 'sometimes': choose one of warn, wait, refuse" in result.stderr.str()


def test_nothing_to_say_says_nothing(shared_tmp):
    """From a real scan in which no run is live, the header and summary stay empty."""
    checkout = make_checkout(shared_tmp)
    report = scan(viewpoint(cwd=str(checkout)), patterns=())
    decision = session_decision(report, "warn")
    assert header_lines(report, decision, "--runctx=warn", None) == []
    samples = [Sample("start", (), (), report.load), Sample("end", (), (), report.load)]
    assert summary_lines(samples, [], always=False) == []
    assert summary_lines(samples, [], always=True) == [
        "no other test run was seen during this session (2 samples: start, end)"
    ]


@pytest.mark.parametrize(
    ("base", "usable", "busy", "workers"),
    [(2, 2, 1.0, 1), (2, 2, 5.0, 1), (8, 8, 0.0, 8), (4, 8, 2.0, 3), (8, 8, 0.4, 8)],
)
def test_worker_count_scales_with_the_free_share(base, usable, busy, workers):
    """Xdist's count is scaled by the share of usable CPUs left free, never below 1."""
    assert shared_worker_count(base, usable, busy) == workers


def test_under_xdist_the_workers_start_only_after_the_wait(pytester, checkout, runs):
    """With -n 2 --runctx=wait, no worker starts (or collects) while the other run is live."""
    ours = start_run_tests_script(checkout)
    runs.append(ours)
    pytester.makeconftest(
        "import pathlib\n"
        "def pytest_configure(config):\n"
        "    if hasattr(config, 'workerinput'):\n"
        f"        stat = pathlib.Path('/proc/{ours.pid}/stat')\n"
        "        live = stat.exists() and stat.read_bytes().rsplit(b')', 1)[1][1:2] not in b'ZX'\n"
        "        name = 'worker-saw-' + ('live' if live else 'gone')\n"
        "        (pathlib.Path(__file__).parent / name).touch()\n"
    )
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    killer = threading.Timer(1.0, ours.kill)
    killer.start()
    try:
        result = session(pytester, "-n", "2", "--runctx=wait", "--runctx-poll=0.1", *QUIET)
    finally:
        killer.join()
    assert result.ret == 0, result.outlines
    assert (checkout / "worker-saw-gone").exists()
    assert not (checkout / "worker-saw-live").exists()
