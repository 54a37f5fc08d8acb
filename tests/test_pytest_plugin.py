"""The pytest plugin, black-box: real pytest sessions next to real live runs.

Each nested session runs as a subprocess in a real git checkout (the pytester
directory), so runctx sees it as a process. Such a session is a descendant of
the suite's own run, which belongs to another checkout: from the nested
session's viewpoint it is a newcomer and waits for every run of its checkout.

A session that must be caught while it waits runs in the background; the test
reads its output until it says whom it waits for, and only then ends that run
(a handshake: nothing depends on how fast the box is).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path

import attrs
import psutil
import pytest
from nstools import child_pid_namespace_argv
from proctools import PYTHON, Orphan, is_live, make_checkout, wait_for
from require import unavailable
from runfactory import RunFactory, clean_env, ready_dir

from runctx.exits import EXIT_REFUSED
from runctx.pytest_auto import memory_worker_count, shared_worker_count
from runctx.pytest_contention import (
    Sample,
    header_lines,
    sample_of,
    session_decision,
    summary_lines,
)
from runctx.scanning import scan, viewpoint
from runctx.session_cpu import box_cpu_seconds, mark, others_since, tree_cpu_seconds
from runctx.settings import MAX_SCANNED_BYTES, MODE_ENV, BusyRules

pytest_plugins = ["pytester"]

QUIET = ("-p", "no:cacheprovider")
RAN = "import pathlib\n\ndef test_ran():\n    (pathlib.Path(__file__).parent / 'ran').touch()\n"


@pytest.fixture
def checkout(pytester, monkeypatch):
    """The pytester directory made a real git checkout (its own root), with no runctx setting.

    pytester makes its directory ``$HOME``, and a home directory is never a
    checkout root by its markers: ``$HOME`` moves to an empty directory beside
    it, so that the ``.git`` is what makes the root.
    """
    subprocess.run(["git", "init", "-q", str(pytester.path)], check=True)
    home = pytester.path.parent / f"{pytester.path.name}-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in (MODE_ENV, "RUNCTX_SOURCE"):
        monkeypatch.delenv(name, raising=False)
    return Path(os.path.realpath(pytester.path))


class Session:
    """A nested pytest session running in the background, its output in files."""

    def __init__(self, process: subprocess.Popen, out: Path, err: Path) -> None:
        """Follow ``process``, which writes to ``out`` and ``err``."""
        self.process = process
        self.out = out
        self.err = err

    def output(self) -> str:
        """What the session wrote to stdout so far."""
        return self.out.read_text(errors="backslashreplace")

    def wait_for_output(self, text: str) -> None:
        """Return once the session printed ``text``; fail if it ended without printing it."""

        def printed() -> bool:
            if text in self.output():
                return True
            assert self.process.poll() is None, (
                f"the session ended without {text!r}:\n{self.output()}"
            )
            return False

        wait_for(printed, what=f"the session to print {text!r}")

    def result(self) -> pytest.RunResult:
        """Wait for the session to end; its exit status and output."""
        ret = self.process.wait()
        outlines = self.output().splitlines()
        errlines = self.err.read_text(errors="backslashreplace").splitlines()
        print("\n".join(outlines))  # shown when the test fails
        print("\n".join(errlines), file=sys.stderr)
        try:
            status: int | pytest.ExitCode = pytest.ExitCode(ret)
        except ValueError:
            status = ret
        return pytest.RunResult(status, outlines, errlines, 0.0)


def start_session(pytester, runs: RunFactory, *args: str) -> Session:
    """A nested pytest session on the pytester checkout, started from outside it.

    pytester moves this process into its directory. When the suite itself was
    started as a plain ``pytest`` (not under ``make``), this process is its
    run's root, and that cwd would make the suite's run one of the nested
    session's checkout, older than anything the test starts, with the nested
    session (its child) a member of it. This process and the session both
    move to the parent directory (pytester restores the cwd), which keeps the
    suite's run foreign to the session however the suite was started;
    ``--rootdir`` and the path keep the nested session on the checkout.
    """
    checkout = pytester.path
    logs = checkout.parent / f"{checkout.name}-sessions"
    logs.mkdir(exist_ok=True)
    count = len(list(logs.glob("out-*")))
    out, err = logs / f"out-{count}", logs / f"err-{count}"
    basetemp = logs / f"basetemp-{count}"
    argv = [PYTHON, "-mpytest", f"--basetemp={basetemp}", "--rootdir", str(checkout)]
    # At the default verbosity the plugin says one line before the tests and one after;
    # these tests read its details, so the session asks for them, unless it asks for quiet.
    if not any(arg.startswith(("-q", "--quiet", "-v", "--verbos", "--no-header")) for arg in args):
        argv.append("-v")
    path = os.pathsep.join(filter(None, [str(checkout), os.environ.get("PYTHONPATH", "")]))
    env = {**os.environ, "PYTHONPATH": path}
    os.chdir(checkout.parent)  # see above: the suite's run leaves the checkout too
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = runs.child(
            [*argv, str(checkout), *QUIET, *args],
            cwd=checkout.parent,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
        )
    return Session(process, out, err)


def session(pytester, runs: RunFactory, *args: str) -> pytest.RunResult:
    """A nested pytest session on the pytester checkout, run to its end."""
    return start_session(pytester, runs, *args).result()


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
    """Source of a test that passes only if ``pid`` is no live process, and marks that it ran."""
    return (
        "import pathlib, psutil\n"
        "def test_other_run_is_gone():\n"
        "    (pathlib.Path(__file__).parent / 'ran').touch()\n"
        "    try:\n"
        f"        status = psutil.Process({pid}).status()\n"
        "    except psutil.NoSuchProcess:\n"
        "        return\n"
        "    assert status in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)\n"
    )


def test_header_names_runs_of_this_checkout_and_foreign_contention(
    pytester, checkout, runs, shared_tmp
):
    """The header names our live run (pid, age, members) and only counts an idle foreign one."""
    ours = runs.run_tests_script(checkout)
    theirs = make_checkout(shared_tmp, checkout.name)
    foreign = runs.run_tests_script(theirs)
    pytester.makepyfile(test_ok="def test_ok():\n    pass\n")
    result = session(pytester, runs)
    assert result.ret == 0
    result.assert_outcomes(passed=1)
    header = header_of(result)
    ours_line = the_line(header, f"pid {ours.pid} (")
    assert re.search(rf"pid {ours.pid} \(run-tests-script, [^)]*\d+s, 1 process\)", ours_line)
    assert "this checkout" in ours_line
    assert f"pid {foreign.pid} (" not in ours_line
    # An idle foreign run costs the header a count, never a line of its own.
    assert not any(f"pid {foreign.pid} (" in line for line in header)
    assert any("idle foreign test run" in line for line in header), header
    summary = summary_of(result)
    assert the_line(summary, f"pid {ours.pid} (").startswith("  other run of this checkout:")
    assert not any(f"pid {foreign.pid} (" in line for line in summary)


def test_wait_blocks_until_the_other_run_ends(pytester, checkout, runs):
    """--runctx=wait shows whom it waits for, and the tests start only after that run ended."""
    ours = runs.run_tests_script(checkout)
    pytester.makepyfile(test_after=gone(ours.pid))
    waiting = start_session(pytester, runs, "--runctx=wait", "--runctx-poll=0.1")
    waiting.wait_for_output(f"runctx: waiting for pid {ours.pid} (run-tests-script")
    assert not (checkout / "ran").exists()
    runs.kill(ours)
    result = waiting.result()
    assert result.ret == 0, result.outlines
    result.assert_outcomes(passed=1)
    the_line(result.outlines, f"runctx: waiting for pid {ours.pid} (run-tests-script")
    assert re.search(
        rf"runctx: waited \d+\.\ds for pid {ours.pid}; going ahead", result.stdout.str()
    )
    # The header is written once the wait is over, from what is true then: the run waited
    # for has ended, so it is not named as live, and no one is told to stop it.
    lines = result.outlines
    starts = next(i for i, line in enumerate(lines) if "test session starts" in line)
    header = [line for line in header_of(result) if lines.index(line) > starts]
    the_line(header, "--runctx=wait: no earlier run of this checkout is live")
    assert not [line for line in header if f"pid {ours.pid} " in line], header
    assert not [line for line in header if "waiting for" in line or "leftover" in line], header
    # Nor does the summary say the session ran next to it: it ended before any test ran.
    stale = [line for line in lines[starts:] if f"pid {ours.pid}" in line]
    assert not stale, lines


def test_the_waits_last_scan_names_no_idle_foreign_run_busy(pytester, checkout, runs, shared_tmp):
    """After a wait, an idle foreign run is counted in the summary, never "busy foreign run"."""
    ours = runs.run_tests_script(checkout)
    foreign = runs.run_tests_script(make_checkout(shared_tmp, "elsewhere"))
    pytester.makepyfile(test_after=gone(ours.pid))
    waiting = start_session(pytester, runs, "--runctx=wait", "--runctx-poll=0.1")
    waiting.wait_for_output(f"runctx: waiting for pid {ours.pid} (run-tests-script")
    runs.kill(ours)
    result = waiting.result()
    assert result.ret == 0, result.outlines
    summary = summary_of(result)
    assert not any(f"pid {foreign.pid} (" in line for line in summary), summary
    assert any("idle foreign test run" in line for line in summary), summary


def test_wait_that_times_out_exits_75_without_running_tests(pytester, checkout, runs):
    """A wait that outlasts --runctx-timeout exits 75, says why, and runs no test."""
    ours = runs.run_tests_script(checkout)
    pytester.makepyfile(test_never=RAN)
    result = session(pytester, runs, "--runctx=wait", "--runctx-timeout=0.5", "--runctx-poll=0.1")
    assert result.ret == EXIT_REFUSED == 75
    assert not (checkout / "ran").exists()
    assert "runctx: timed out after" in result.stderr.str()
    assert f"pid {ours.pid} (" in result.stderr.str()


def test_refuse_from_the_ini_exits_75_only_while_a_run_is_live(pytester, checkout, runs):
    """Runctx = refuse (ini) exits 75 naming the live run; once it ended, the tests run."""
    ours = runs.run_tests_script(checkout)
    pytester.makeini("[pytest]\nrunctx = refuse\n")
    pytester.makepyfile(test_once=RAN)
    refused = session(pytester, runs)
    assert refused.ret == 75
    assert not (checkout / "ran").exists()
    the_line(header_of(refused), "--runctx=refuse: not starting next to 1 earlier run")
    stderr = refused.stderr.str()
    assert f"pid {ours.pid} (run-tests-script" in stderr
    assert "--runctx=refuse, exit status 75" in stderr
    runs.kill(ours)
    allowed = session(pytester, runs)
    assert allowed.ret == 0
    assert (checkout / "ran").exists()
    the_line(header_of(allowed), "--runctx=refuse: no earlier run of this checkout is live")


def test_stop_is_refuse(pytester, checkout, runs):
    """--runctx=stop, the policy's word, refuses like refuse: exit 75, no test run."""
    ours = runs.run_tests_script(checkout)
    pytester.makepyfile(test_once=RAN)
    result = session(pytester, runs, "--runctx=stop")
    assert result.ret == EXIT_REFUSED
    assert not (checkout / "ran").exists()
    the_line(header_of(result), "--runctx=stop: not starting next to 1 earlier run")
    assert f"pid {ours.pid} (run-tests-script" in result.stderr.str()
    assert "--runctx=stop, exit status 75" in result.stderr.str()


# --------------------------------------------------------------------------- the checkout's setting


def test_the_checkouts_wait_setting_makes_the_session_wait(pytester, checkout, runs):
    """Without --runctx, ``on-same-checkout = "wait"`` waits for the earlier live run."""
    pytester.makepyprojecttoml('[tool.runctx]\non-same-checkout = "wait"\n')
    ours = runs.run_tests_script(checkout)
    pytester.makepyfile(test_after=gone(ours.pid))
    waiting = start_session(pytester, runs, "--runctx-poll=0.1")
    waiting.wait_for_output(f"runctx: waiting for pid {ours.pid} (run-tests-script")
    assert not (checkout / "ran").exists()
    runs.kill(ours)
    result = waiting.result()
    assert result.ret == 0, result.outlines
    result.assert_outcomes(passed=1)
    the_line(header_of(result), 'on-same-checkout = "wait": no earlier run of this checkout')


def test_the_checkouts_stop_setting_refuses_with_75(pytester, checkout, runs):
    """Without --runctx, ``on-same-checkout = "stop"`` exits 75 next to a live run."""
    pytester.makepyprojecttoml('[tool.runctx]\non-same-checkout = "stop"\n')
    ours = runs.run_tests_script(checkout)
    pytester.makepyfile(test_once=RAN)
    result = session(pytester, runs)
    assert result.ret == EXIT_REFUSED
    assert not (checkout / "ran").exists()
    the_line(header_of(result), 'on-same-checkout = "stop": not starting next to 1 earlier run')
    assert f"pid {ours.pid} (run-tests-script" in result.stderr.str()


def test_a_checkout_that_sets_nothing_only_warns(pytester, checkout, runs):
    """With no --runctx, no ini and no setting, a live run of the checkout is named, not obeyed."""
    ours = runs.run_tests_script(checkout)
    pytester.makepyfile(test_once=RAN)
    result = session(pytester, runs)
    assert result.ret == 0, result.outlines
    assert (checkout / "ran").exists()
    header = header_of(result)
    assert "this checkout" in the_line(header, f"pid {ours.pid} (")
    assert not [line for line in header if "waiting" in line or "not starting" in line]


def test_the_environment_setting_wins_over_the_checkouts(pytester, checkout, runs, monkeypatch):
    """$RUNCTX_ON_SAME_CHECKOUT=warn over ``on-same-checkout = "stop"``: the tests run."""
    pytester.makepyprojecttoml('[tool.runctx]\non-same-checkout = "stop"\n')
    runs.run_tests_script(checkout)
    pytester.makepyfile(test_once=RAN)
    monkeypatch.setenv(MODE_ENV, "warn")
    result = session(pytester, runs)
    assert result.ret == 0, result.outlines
    assert (checkout / "ran").exists()


def test_an_invalid_setting_is_a_warning_naming_the_file_and_the_default_holds(
    pytester, checkout, runs
):
    """A malformed ``on-same-checkout`` is a header line naming pyproject.toml; ``warn`` holds."""
    ours = runs.run_tests_script(checkout)
    pytester.makepyprojecttoml('[tool.runctx]\non-same-checkout = "sometimes"\n')
    pytester.makepyfile(test_once=RAN)
    result = session(pytester, runs)
    assert result.ret == 0, result.outlines + result.errlines
    assert (checkout / "ran").exists()
    line = the_line(header_of(result), "on-same-checkout must be one of")
    assert f"{checkout / 'pyproject.toml'}:2: " in line
    assert f"pid {ours.pid} (" in "\n".join(header_of(result))  # reported, as warn does


@pytest.mark.parametrize("planted", ["fifo", "past the search bound"])
def test_a_settings_file_that_cannot_be_read_never_stops_the_session(
    pytester, checkout, runs, planted
):
    """A pyproject.toml runctx cannot read at the root is a header line; the tests run.

    Anyone who can write a shared directory can put a FIFO (or a file of any
    size) there under that name, and pytest itself goes on next to it.
    """
    pyproject = checkout / "pyproject.toml"
    if planted == "fifo":
        os.mkfifo(pyproject)
        expected = "a FIFO, not a regular file"
    else:  # comments only, which pytest reads as TOML, past what runctx searches
        lines = MAX_SCANNED_BYTES // 1000 + 1000
        pyproject.write_text(("#" + "x" * 1000 + "\n") * lines)
        expected = f"is larger than {MAX_SCANNED_BYTES >> 20} MiB"
    pytester.makepyfile(test_once=RAN)
    result = session(pytester, runs)
    assert result.ret == 0, result.outlines + result.errlines
    assert (checkout / "ran").exists()
    line = the_line(header_of(result), str(pyproject))
    assert expected in line
    assert "its defaults are used instead" in line


def test_a_bad_ini_value_is_a_usage_error(pytester):
    """An unknown runctx mode in the ini stops pytest with a usage error that names it."""
    pytester.makeini("[pytest]\nrunctx = sometimes\n")
    result = pytester.runpytest(*QUIET)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "runctx = 'sometimes': choose one of warn, wait, refuse" in result.stderr.str()


# --------------------------------------------------------------------------- xdist


ROLE_CONFTEST = """
import pathlib
def pytest_sessionfinish(session):
    config = session.config
    worker = getattr(config, "workerinput", {}).get("workerid", "controller")
    contention = config.pluginmanager.get_plugin("runctx-session") is not None
    code = config.pluginmanager.get_plugin("runctx-code-session") is not None
    path = config.rootpath / f"role-{worker}"
    path.write_text(f"contention={contention} code={code}")
"""


def test_under_xdist_only_the_controller_reports(pytester, checkout, runs):
    """With -n 2 the controller scans and reports once; workers hold only the code plugin."""
    ours = runs.run_tests_script(checkout)
    pytester.makeconftest(ROLE_CONFTEST)
    pytester.makepyfile(test_two="def test_a():\n    pass\n\ndef test_b():\n    pass\n")
    result = session(pytester, runs, "-n", "2")
    assert result.ret == 0
    result.assert_outcomes(passed=2)
    roles = {path.name: path.read_text() for path in checkout.glob("role-*")}
    assert roles == {
        "role-controller": "contention=True code=True",
        "role-gw0": "contention=False code=True",
        "role-gw1": "contention=False code=True",
    }
    assert len([line for line in result.outlines if f"pid {ours.pid} (" in line]) == 2
    the_line(header_of(result), f"pid {ours.pid} (")
    the_line(summary_of(result), f"pid {ours.pid} (")


@pytest.mark.parametrize(
    ("blocked", "expected"),
    [
        ((), "contention=True code=True"),
        (("-p", "no:runctx.code"), "contention=True code=False"),
        (("-p", "no:runctx"), "contention=False code=False"),
    ],
)
def test_each_entry_point_is_turned_off_by_its_name_and_no_runctx_turns_off_both(
    pytester, checkout, runs, blocked, expected
):
    """``runctx.code`` is the second entry point: ``-p no:runctx`` blocks it too."""
    pytester.makeconftest(ROLE_CONFTEST)
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    result = session(pytester, runs, *blocked)
    assert result.ret == 0, result.outlines
    assert (checkout / "role-controller").read_text() == expected


WORKER_CONFTEST = """
import pathlib, psutil

def pytest_configure(config):
    if hasattr(config, "workerinput"):
        try:
            live = psutil.Process({pid}).status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
        except psutil.NoSuchProcess:
            live = False
        name = "worker-saw-" + ("live" if live else "gone")
        (pathlib.Path(__file__).parent / name).touch()
"""


def test_under_xdist_the_workers_start_only_after_the_wait(pytester, checkout, runs):
    """With -n 2 --runctx=wait, no worker starts (or collects) while the other run is live."""
    ours = runs.run_tests_script(checkout)
    pytester.makeconftest(WORKER_CONFTEST.format(pid=ours.pid))
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    waiting = start_session(pytester, runs, "-n", "2", "--runctx=wait", "--runctx-poll=0.1")
    waiting.wait_for_output(f"runctx: waiting for pid {ours.pid} (run-tests-script")
    assert not list(checkout.glob("worker-saw-*"))
    runs.kill(ours)
    result = waiting.result()
    assert result.ret == 0, result.outlines
    assert (checkout / "worker-saw-gone").exists()
    assert not (checkout / "worker-saw-live").exists()


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

def _hold(test):
    log = pathlib.Path(os.environ["RUNCTX_LOG"])
    name = f"{os.environ['RUN_NAME']}-{os.getpid()}-{test}"
    older_done = len(list(log.glob("older-*.done")))
    (log / f"{name}.started").write_text(str(older_done))
    go = os.environ.get("GO_FILE")
    while go and not os.path.exists(go):
        time.sleep(0.02)
    (log / f"{name}.done").touch()

def test_a():
    _hold("a")

def test_b():
    _hold("b")
"""


def start_serial_session(
    runs: RunFactory, checkout: Path, log: Path, name: str, *args: str, **env: str
) -> Orphan:
    """An orphaned pytest session in ``checkout``, its output in ``log/NAME.out``."""
    env = clean_env(RUNCTX_LOG=str(log), RUN_NAME=name, OUT=str(log / f"{name}.out"), **env)
    argv = ["/bin/sh", "-c", 'exec "$0" "$@" >"$OUT" 2>&1', PYTHON, "-m", "pytest", *args]
    return runs.orphan(argv, checkout, env=env)


def test_two_waiting_runs_of_one_checkout_serialise_without_deadlock(shared_tmp, runs):
    """Two real --runctx=wait sessions: the older (-n 2) goes ahead, the younger waits its turn."""
    checkout = make_checkout(shared_tmp)
    (checkout / "tests").mkdir()
    (checkout / "tests" / "conftest.py").write_text(SERIAL_CONFTEST)
    (checkout / "tests" / "test_serial.py").write_text(SERIAL_TESTS)
    log = ready_dir(checkout)
    go = log / "go"
    wait_args = ("--runctx=wait", "--runctx-poll=0.1", "-v", *QUIET, "tests")
    older = start_serial_session(
        runs, checkout, log, "older", "-n", "2", *wait_args, GO_FILE=str(go)
    )
    wait_for(lambda: len(list(log.glob("older-*.started"))) == 2, what="the older run's tests")
    younger = start_serial_session(runs, checkout, log, "younger", *wait_args)
    younger_out = log / "younger.out"
    waiting_line = f"runctx: waiting for pid {older.pid} (pytest"
    wait_for(
        lambda: (
            younger_out.exists()
            and waiting_line in younger_out.read_text(errors="backslashreplace")
        ),
        what="the younger run to wait for the older one",
    )
    assert not list(log.glob("younger-*"))
    go.touch()  # the older run's tests may end now
    wait_for((log / "younger.rc").exists, what="the younger run to finish")
    assert (log / "older.rc").read_text() == "0"
    assert (log / "younger.rc").read_text() == "0"
    older_text = (log / "older.out").read_text(errors="backslashreplace")
    # "(not seen: ...)" when processes elsewhere on the box could not be read
    going_ahead = (
        r"runctx: --runctx=wait: no earlier run of this checkout is live"
        r"( \(not seen: .*\))?; going ahead$"
    )
    assert re.search(going_ahead, older_text, re.MULTILINE), older_text
    assert "runctx: waiting for" not in older_text
    younger_started = [path.read_text() for path in log.glob("younger-*.started")]
    assert younger_started == ["2", "2"]  # each saw both of the older run's tests done
    own = {older.pid} | {int(p.name.split("-")[1]) for p in log.glob("older-*.started")}
    assert len(own) == 3
    older_report = [line for line in older_text.splitlines() if "pid " in line]
    assert not [line for line in older_report for pid in own if f"pid {pid} " in line]
    assert f"pid {younger.pid} (pytest" in older_text  # it was live, waiting, at the end


def test_contention_that_appears_mid_session_reaches_the_summary(pytester, checkout, runs):
    """A run that starts while the tests run is not in the header but is in the summary."""
    started, go = checkout / "started", checkout / "go"
    pytester.makepyfile(
        test_mid=(
            "import pathlib, time\n"
            "def test_mid():\n"
            f"    pathlib.Path({str(started)!r}).touch()\n"
            f"    while not pathlib.Path({str(go)!r}).exists():\n"
            "        time.sleep(0.02)\n"
        )
    )
    running = start_session(pytester, runs)
    wait_for(started.exists, what="the test to start")
    mid = runs.run_tests_script(checkout)
    go.touch()
    result = running.result()
    assert result.ret == 0
    assert not [line for line in header_of(result) if f"pid {mid.pid} " in line]
    line = the_line(summary_of(result), f"pid {mid.pid} (")
    assert line.startswith("  other run of this checkout:")
    assert line.endswith("[seen at end]")


BUSY = """
import contextlib, os, pathlib, sys
# A run that really keeps one CPU busy, however loaded the box: as root it takes
# the highest priority, for its process and for its session's autogroup.
with contextlib.suppress(OSError):
    os.nice(-20)
with contextlib.suppress(OSError), open("/proc/self/autogroup", "w") as group:
    group.write("-20")
pathlib.Path(sys.argv[1]).touch()
while True:
    pass
"""


@pytest.mark.needs_root  # only root can make the busy run keep its CPU on a loaded box
def test_n_auto_leaves_room_for_cpus_other_runs_keep_busy(
    pytester, checkout, runs, shared_tmp, monkeypatch
):
    """With -n auto and a foreign run burning a CPU, fewer workers start than xdist's count."""
    base = psutil.cpu_count(logical=False) or psutil.cpu_count() or 1
    if base < 2:
        unavailable(f"needs at least 2 CPUs to leave one free ({base} here)")
    busy_checkout = make_checkout(shared_tmp, "busy")
    (busy_checkout / "run_tests.py").write_text(BUSY)
    ready = ready_dir(busy_checkout) / "busy"
    runs.orphan([PYTHON, "run_tests.py", str(ready)], busy_checkout, env=clean_env(), ready=ready)
    pytester.makepyfile(
        test_count=(
            "import os, pathlib\n"
            "def test_count():\n"
            "    count = os.environ['PYTEST_XDIST_WORKER_COUNT']\n"
            "    (pathlib.Path(__file__).parent / 'count').write_text(count)\n"
        )
    )
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    result = session(pytester, runs, "-n", "auto")
    assert result.ret == 0
    workers = int((checkout / "count").read_text())
    assert workers < base
    note = the_line(header_of(result), "runctx: -n auto:")
    assert note.startswith(f"runctx: -n auto: {workers} worker")
    assert f"instead of {base}:" in note


def test_n_auto_leaves_room_for_memory(pytester, checkout, runs, monkeypatch):
    """With -n auto and workers bigger than the memory left, fewer workers start than xdist's count.

    Each worker is said to need 60% of the memory available now, over a
    reserve of 0%: one fits (the CPUs others keep busy: the test above).
    """
    base = psutil.cpu_count(logical=False) or psutil.cpu_count() or 1
    if base < 2:
        unavailable(f"needs at least 2 CPUs to leave one free ({base} here)")
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
    result = session(pytester, runs, "-n", "auto", f"--runctx-worker-memory={mib:.0f}")
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
    runs.run_tests_script(checkout)
    if failure == "unknown source":
        monkeypatch.setenv("RUNCTX_SOURCE", "bogus")
        expected = "runctx: could not check for other runs (ConfigError: unknown process source"
    else:
        pytester.makeconftest(BROKEN_INSTALL)
        expected = "runctx: could not check for other runs (ModuleNotFoundError: import of"
    pytester.makepyfile(test_ok="def test_ok():\n    pass\n")
    result = session(pytester, runs, "--runctx=refuse", "--runctx-timeout=5")
    assert result.ret == 0, result.outlines
    result.assert_outcomes(passed=1)
    lines = [line for line in result.outlines if line.startswith("runctx:")]
    assert len(lines) == 1, lines
    assert lines[0].startswith(expected)
    assert the_line(summary_of(result), "runctx could not check for other runs")


# --------------------------------------------------------------------------- words, real scans


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


def test_the_summary_names_a_few_runs_and_counts_the_rest(shared_tmp, runs):
    """Five runs of this checkout and five busy foreign runs: three and two named, the rest counted.

    The report is cut down to the runs the test started, so that other runs
    on a shared box never decide what the summary names.
    """
    here = make_checkout(shared_tmp)
    ours = [runs.run_tests_script(here) for _ in range(5)]
    theirs = [runs.run_tests_script(make_checkout(shared_tmp / "o", f"p{n}")) for n in range(5)]
    started = {run.pid for run in (*ours, *theirs)}
    report = scan(viewpoint(cwd=str(here)), cpu_window=0.1)
    alone = attrs.evolve(report, runs=tuple(j for j in report.runs if j.run.pid in started))
    every_run_busy = BusyRules(run_cpu=0, cpu_pressure=None, load_per_cpu=None)
    samples = [sample_of(label, alone, every_run_busy) for label in ("start", "end")]
    assert len(samples[-1].ours) == 5
    assert len(samples[-1].busy_foreign) == 5
    lines = summary_lines(samples, [], always=False)
    named_ours = [line for line in lines if line.startswith("  other run of this checkout: ")]
    named_busy = [line for line in lines if line.startswith("  busy foreign run: ")]
    assert len(named_ours) == 3
    assert len(named_busy) == 2
    assert "  +2 more runs of this checkout" in lines
    assert "  +3 more busy foreign test runs" in lines
    cpu = {j.run.pid: j.run.cpu_now for j in samples[-1].busy_foreign}
    shown = {pid for pid in cpu if any(f"pid {pid} (" in line for line in named_busy)}
    assert len(shown) == 2
    assert min(cpu[pid] for pid in shown) >= max(cpu[pid] for pid in set(cpu) - shown)


@pytest.mark.parametrize(
    ("base", "usable", "busy", "workers"),
    [(2, 2, 1.0, 1), (2, 2, 5.0, 1), (8, 8, 0.0, 8), (4, 8, 2.0, 3), (8, 8, 0.4, 8)],
)
def test_worker_count_scales_with_the_free_share(base, usable, busy, workers):
    """Xdist's count is scaled by the share of usable CPUs left free, never below 1."""
    assert shared_worker_count(base, usable, busy) == workers


@pytest.mark.parametrize(
    ("base", "available", "reserve", "worker", "workers"),
    [
        (8, 1000, 10, 100, 8),  # 900 above the reserve: 9 fit, 8 asked
        (8, 1000, 10, 300, 3),  # 900 / 300
        (8, 1000, 50, 300, 1),  # 500 / 300
        (8, 50, 10, 300, 1),  # under the reserve: never below 1
        (4, 1000, 0, 0, 4),  # a worker said to need nothing: xdist's count
    ],
)
def test_worker_count_fits_the_memory_above_the_reserve(base, available, reserve, worker, workers):
    """As many workers as fit in the memory left above the checkout's reserve, at least 1."""
    assert memory_worker_count(base, available, 1000, reserve, worker) == workers


@pytest.mark.needs_root
def test_the_plugin_reports_by_default_and_refuses_when_the_checkout_says_stop(shared_tree):
    """The pytest plugin keeps to a warning unless on-shared-tree asks it to stop (exit 75)."""
    checkout, run = shared_tree
    (checkout / "test_here.py").write_text("def test_here():\n    pass\n")

    def session():
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "test_here.py"],
            cwd=checkout,
            env=clean_env(),
            capture_output=True,
            encoding="utf-8",
            errors="replace",
            check=False,
            timeout=120,
        )

    warned = session()
    assert warned.returncode == 0, warned.stdout
    assert "test run of another user is live in this very checkout" in warned.stdout
    assert "to start anyway" not in warned.stdout  # it is starting: no advice on how to
    (checkout / "pyproject.toml").write_text('[tool.runctx]\non-shared-tree = "stop"\n')
    refused = session()
    assert refused.returncode == EXIT_REFUSED, refused.stdout
    assert f"pid {run.pid}" in refused.stdout + refused.stderr
    assert 'on-shared-tree = "stop"' in refused.stdout + refused.stderr
    assert "to start anyway" in refused.stdout + refused.stderr


SESSION_TESTS = """
def test_nothing():
    pass
"""


def _session_in_child_pid_namespace(runs, checkout, mode, out):
    """An orphaned pytest session, pid 1 of its own pid namespace, that sees this /proc.

    It writes its output to ``out`` and, once it ended, its exit status to
    ``out.status``: the file the test waits for, renamed into place once
    written, so that it never exists empty.
    """
    pytest_argv = [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_session.py"]
    session = child_pid_namespace_argv([*pytest_argv, f"--runctx={mode}", "--runctx-timeout=20"])
    status = out.with_name(out.name + ".status")
    partial = shlex.quote(str(status) + ".partial")
    shell = (
        f"{shlex.join(session)} > {shlex.quote(str(out))} 2>&1; "
        f"echo $? > {partial} && mv {partial} {shlex.quote(str(status))}"
    )
    runs.orphan(["sh", "-c", shell], checkout, env=clean_env(), executable="/bin/sh")
    return status


@pytest.mark.needs_root
def test_the_plugin_never_takes_its_own_session_for_another_run(shared_tmp, runs):
    """A session whose pids are not /proc's finds itself through NSpid: refuse and wait go ahead."""
    checkout = make_checkout(shared_tmp, "proj")
    (checkout / "test_session.py").write_text(SESSION_TESTS)
    for mode in ("refuse", "wait"):
        out = shared_tmp / f"session-{mode}.txt"
        status = _session_in_child_pid_namespace(runs, checkout, mode, out)
        wait_for(status.exists, 120, f"the {mode} session to end")
        text = out.read_text(errors="replace")
        assert status.read_text().strip() == "0", text
        assert "1 passed" in text


@pytest.mark.needs_root
def test_the_plugin_refuses_to_wait_where_pids_are_not_its_own(shared_tmp, runs):
    """--runctx=wait next to a live run, where /proc is another namespace's: exit 75, said why."""
    checkout = make_checkout(shared_tmp, "proj")
    (checkout / "test_session.py").write_text(SESSION_TESTS)
    run = runs.run_tests_script(checkout)
    out = shared_tmp / "session.txt"
    status = _session_in_child_pid_namespace(runs, checkout, "wait", out)
    wait_for(status.exists, 120, "the session to end")
    text = out.read_text(errors="replace")
    assert status.read_text().strip() == "75", text
    assert "another pid namespace" in text
    assert is_live(run.pid)


def test_a_pytest_session_is_not_held_by_a_planted_fifo(planted_fifo):
    """The plugin cannot hang a session: pytest under a planted FIFO runs its tests."""
    (planted_fifo / "test_one.py").write_text("def test_one():\n    pass\n")
    done = subprocess.run(
        [PYTHON, "-m", "pytest", "-q", *QUIET, "--rootdir", str(planted_fifo)],
        cwd=planted_fifo,
        capture_output=True,
        text=True,
        timeout=120,
        env=clean_env(),
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


ALWAYS_BUSY_BOX = (
    "[tool.runctx]\n"
    "busy-box-memory-available = 100\n"  # less than all of it is always available
    "busy-box-cpu-pressure = false\n"
    "busy-box-load-per-cpu = false\n"
    'on-busy-box = "wait"\n'
)


def test_a_session_waits_for_room_and_exits_75_when_it_does_not_come(shared_tmp):
    """Under on-busy-box = "wait" the plugin says what it waits for; the timeout exits 75."""
    here = make_checkout(shared_tmp)
    (here / "pyproject.toml").write_text(ALWAYS_BUSY_BOX)
    (here / "test_one.py").write_text(
        "import pathlib\ndef test_one():\n    (pathlib.Path(__file__).parent / 'ran').touch()\n"
    )
    env = {k: v for k, v in clean_env().items() if not k.startswith("RUNCTX_")}
    done = subprocess.run(
        [PYTHON, "-m", "pytest", "-p", "no:cacheprovider", "--runctx-timeout=1"],
        cwd=here,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == EXIT_REFUSED, done.stdout + done.stderr
    assert "runctx: waiting for room: memory available " in done.stdout
    assert "waiting for the box to be less busy (memory available" in done.stdout + done.stderr
    assert not (here / "ran").exists()


# -- what matters is said under -q; a run that started later is not a leftover ------------


@pytest.mark.parametrize("quiet", ["-q", "-qq", "--no-header"])
def test_a_live_run_of_this_checkout_is_said_under_quiet(pytester, checkout, runs, quiet):
    """``-q`` hides the header, never the same-checkout warning; other notes follow verbosity."""
    ours = runs.run_tests_script(checkout)
    pytester.makepyfile(test_ok="def test_ok():\n    pass\n")
    result = session(pytester, runs, quiet)
    assert result.ret == 0, result.outlines
    lines = result.outlines
    warned = [i for i, line in enumerate(lines) if f"pid {ours.pid} (run-tests-script" in line]
    assert warned, lines
    assert "this checkout" in lines[warned[0]]
    # Said before the tests ran, not only in the summary.
    progress = next(i for i, line in enumerate(lines) if re.search(r"(^|\s)\.(\s|$)", line))
    assert warned[0] < progress
    assert not [line for line in lines if line.startswith(("platform ", "rootdir:"))]


ORPHANED_SESSION = """
import os, pathlib, subprocess, sys, time

def pytest_configure(config):
    # A run of this checkout that starts after this session, as a run of its own.
    ready = pathlib.Path(READY)
    read_end, write_end = os.pipe()
    middle = os.fork()
    if middle == 0:
        os.setsid()
        later = subprocess.Popen([sys.executable, "run_tests.py", str(ready)],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        os.write(write_end, str(later.pid).encode())
        os._exit(0)
    os.waitpid(middle, 0)
    os.close(write_end)
    pathlib.Path(PIDFILE).write_text(os.read(read_end, 32).decode())
    while not ready.exists():
        time.sleep(0.02)
"""


def test_a_run_that_started_after_this_session_is_not_called_a_leftover(
    pytester, checkout, runs, monkeypatch
):
    """A session that started first names the later run as later, never as one to stop.

    The suite's own run leaves the checkout (pytester made it the cwd): run
    by ``python -m pytest``, with no ``make`` above it that works elsewhere,
    it would be an earlier run of this checkout, rightly named as one.
    """
    from runfactory import RUN_TESTS_SCRIPT

    monkeypatch.chdir(checkout.parent)

    (checkout / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    ready, pidfile = checkout / "later-ready", checkout.parent / "later-pid"
    (checkout / "conftest.py").write_text(
        ORPHANED_SESSION.replace("READY", repr(str(ready))).replace("PIDFILE", repr(str(pidfile)))
    )
    pytester.makepyfile(test_ok="def test_ok():\n    pass\n")
    out = checkout.parent / "orphaned-session.out"
    command = (
        f"exec {shlex.quote(PYTHON)} -m pytest -p no:cacheprovider --rootdir . . "
        f"> {shlex.quote(str(out))} 2>&1"
    )
    env = {**clean_env(), "PYTHONPATH": str(checkout)}
    started = runs.orphan(["/bin/sh", "-c", command], checkout, env=env)
    wait_for(lambda: not is_live(started.pid), what="the orphaned session to end")
    output = out.read_text(errors="backslashreplace")
    print(output)
    assert pidfile.exists(), output
    later = runs.adopt(int(pidfile.read_text()))
    header = [line for line in output.splitlines() if line.startswith("runctx: ")]
    line = the_line(header, f"pid {later.pid} (")
    assert "1 run of this checkout started after this session" in line
    assert not [line for line in header if "leftover" in line or "runctx stop" in line], header
    assert "other test run of this checkout is live" not in output
    assert "1 passed" in output


# -- the session's own processes are never contention ----------------------------------

SPIN_FOR = """
import time


def spin(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_a():
    spin(1.5)


def test_b():
    spin(1.5)


def test_c():
    spin(1.5)


def test_d():
    spin(1.5)
"""

DUMP_SAMPLES = """
import json, os


def pytest_unconfigure(config):
    plugin = config.pluginmanager.get_plugin("runctx-session")
    if plugin is None:
        return
    state = plugin.state
    samples = [{"label": s.label, "pressure": list(s.pressure)} for s in state.samples]
    with open(os.environ["SAMPLES_OUT"], "w") as out:
        json.dump(samples, out)
"""


def test_a_session_that_saturates_the_box_by_itself_is_not_told_it_is_busy(
    pytester, checkout, runs, monkeypatch
):
    """``pytest -n 2`` spinning both CPUs: only others' CPU use makes the box busy during it.

    The checkout's thresholds make any CPU pressure and any load count, so the
    first sample (before the workers start) says the box is under pressure;
    the samples taken while the workers spin never count the pressure and
    load they make themselves.
    """
    (checkout / "pyproject.toml").write_text(
        "[tool.runctx]\nbusy-box-cpu-pressure = 0\nbusy-box-load-per-cpu = 0\n"
        "busy-box-memory-available = false\n"
    )
    pytester.makepyfile(test_spin=SPIN_FOR)
    pytester.makeconftest(DUMP_SAMPLES)
    out = checkout.parent / "samples.json"
    monkeypatch.setenv("SAMPLES_OUT", str(out))
    result = session(pytester, runs, "-n", "2", "--runctx-sample=0.3")
    assert result.ret == 0, result.outlines
    samples = json.loads(out.read_text())
    start, *during = samples
    assert start["label"] == "start"
    assert any(reason.startswith(("CPU pressure", "load")) for reason in start["pressure"])
    assert during, samples  # sampled while the workers spun, and at the end
    for sample in during:
        for reason in sample["pressure"]:
            assert not reason.startswith(("CPU pressure", "load")), sample
            assert reason.startswith("processes outside this session kept"), sample


RECORD_SLEEPS = """
import json, os, sys, time

_sleep = time.sleep
slept = []


def recording(seconds):
    caller = sys._getframe(1).f_globals.get("__name__", "")
    if caller == "runctx.session_cpu":
        slept.append([caller, seconds])
    _sleep(seconds)


time.sleep = recording
tested = []


def pytest_runtest_teardown(item):
    tested.append(time.monotonic())


def pytest_unconfigure(config):
    state = config.pluginmanager.get_plugin("runctx-session").state
    seen = {
        "slept": slept,
        "marked": state.cpu_mark is not None,
        "mark_at": state.cpu_mark.at if state.cpu_mark is not None else None,
        "tested_at": tested,
        "labels": [sample.label for sample in state.samples],
    }
    with open(os.environ["SEEN_OUT"], "w") as out:
        json.dump(seen, out)
"""

SPIN_A_WHILE = """
import time


def test_spins():
    end = time.monotonic() + 0.3
    while time.monotonic() < end:
        pass
"""


def test_the_session_never_sleeps_to_measure_others_cpu(pytester, checkout, runs, monkeypatch):
    """The samples during the session measure others' CPU since its start: no sample waits.

    The window starts once the session goes ahead (before any worker would
    start) and ends at each sample, so the end sample reads the CPU times
    and returns, where it used to sleep a window of its own every session.
    (A scan still measures the CPU use of a live foreign run over a short
    window of its own, :mod:`runctx.cpu_window`, when there is one.)
    """
    pytester.makepyfile(test_spin=SPIN_A_WHILE)
    pytester.makeconftest(RECORD_SLEEPS)
    out = checkout.parent / "seen.json"
    monkeypatch.setenv("SEEN_OUT", str(out))
    result = session(pytester, runs)
    assert result.ret == 0, result.outlines
    seen = json.loads(out.read_text())
    assert seen["labels"] == ["start", "end"], seen
    assert seen["marked"], seen
    assert seen["slept"] == [], seen
    # The end sample's window ended its own: the next one would start there, after the tests.
    assert seen["mark_at"] > max(seen["tested_at"]), seen


def test_others_cpu_since_a_mark_counts_what_the_session_spent_meanwhile(runs, tmp_path):
    """A mark, then a process of the session spins a child to its end: the session's CPU.

    The measure takes no window of its own: it reads the CPU times since the
    mark, and the child's (reaped by its parent) count as the session's.
    """
    go, out = tmp_path / "go", tmp_path / "out"
    with out.open("wb") as stdout:
        parent = runs.child([PYTHON, "-c", SPIN_WITH_A_CHILD_ON_GO, str(go)], stdout=stdout)
    wait_for(lambda: b"waiting" in out.read_bytes(), what="the parent to start")
    before = time.monotonic()
    start = mark([parent.pid])
    assert start is not None
    go.touch()
    wait_for(lambda: b"reaped" in out.read_bytes(), what="the child to be reaped")
    measured = others_since(start, [parent.pid])
    window_at_most = time.monotonic() - before
    times = psutil.Process(parent.pid).cpu_times()
    spent = times.children_user + times.children_system
    assert spent >= 0.45  # the child really spun, within the window
    assert measured is not None
    _theirs, mine = measured
    # The CPU seconds the measure gave the session over its window hold the child's.
    assert mine * window_at_most >= spent * 0.8 - 0.02, (mine, window_at_most, spent)


SPIN_WITH_A_CHILD_ON_GO = """
import os, sys, time
go = sys.argv[1]
print("waiting", flush=True)
while not os.path.exists(go):
    time.sleep(0.01)
child = os.fork()
if child == 0:
    while time.process_time() < 0.5:
        pass
    os._exit(0)
os.waitpid(child, 0)
print("reaped", flush=True)
time.sleep(300)
"""


def others_busy_cpus(own: list[int], window: float) -> tuple[float, float] | None:
    """(others', the session's) busy CPUs over ``window`` seconds from now: a mark, then a wait."""
    start = mark(own)
    if start is None:
        return None
    time.sleep(window)
    return others_since(start)


def test_the_sessions_cpu_counts_its_processes_and_the_children_they_reaped(runs, tmp_path):
    """A process whose child spun and was reaped: its CPU time holds the child's."""
    go, out = tmp_path / "go", tmp_path / "out"
    go.touch()
    with out.open("wb") as stdout:
        parent = runs.child([PYTHON, "-c", SPIN_WITH_A_CHILD_ON_GO, str(go)], stdout=stdout)
    wait_for(lambda: b"reaped" in out.read_bytes(), what="the child to be reaped")
    times = psutil.Process(parent.pid).cpu_times()
    assert times.children_user + times.children_system >= 0.45  # the child really spun
    spent = tree_cpu_seconds([parent.pid])
    assert spent >= times.user + times.system + times.children_user + times.children_system - 0.02
    assert box_cpu_seconds() is not None
    measured = others_busy_cpus([parent.pid], window=0.2)
    assert measured is not None
    theirs, mine = measured
    assert mine < 0.2  # the parent sleeps: the session keeps no CPU busy
    assert theirs >= 0.0


FORK_A_SPINNER_ON_GO = """
import os, sys, time
go = sys.argv[1]
while not os.path.exists(go):
    time.sleep(0.01)
child = os.fork()
if child == 0:
    while True:
        pass
print(child, flush=True)
time.sleep(300)
"""


def test_a_child_the_session_starts_during_the_window_counts_as_the_sessions(runs, tmp_path):
    """A process of the session forks a spinning child mid-window: its CPU is the session's.

    The child is not among the pids the measure is given (a scan taken before
    it started could not name it); it is found below them, and all the CPU it
    spent (all of it within the window) counts as the session's, none as
    others'.
    """
    go, out = tmp_path / "go", tmp_path / "out"
    with out.open("wb") as stdout:
        parent = runs.child([PYTHON, "-c", FORK_A_SPINNER_ON_GO, str(go)], stdout=stdout)
    threading.Timer(0.2, go.touch).start()
    window = 1.5
    measured = others_busy_cpus([parent.pid], window=window)
    wait_for(lambda: out.read_bytes().strip(), what="the child's pid")
    child = psutil.Process(int(out.read_bytes()))
    try:
        times = child.cpu_times()
        spent = times.user + times.system
        assert measured is not None
        _theirs, mine = measured
        assert spent >= 0.02  # the child really spun within the window
        # Without the child found below the parent, the sleeping parent alone is ~0 CPUs.
        assert mine * window >= spent * 0.8 - 0.02, (mine, spent)
    finally:
        child.kill()  # the parent, a child of the suite, reaps it or is stopped at teardown
