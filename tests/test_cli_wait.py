"""``runctx wait`` on real runs: returns when they end, times out, follows identities."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from nstools import in_child_pid_namespace
from pidreuse import wait_pid_free
from proctools import PYTHON, Orphan, children_of, is_live, make_checkout, start_ticks, wait_for
from runfactory import RunFactory, clean_env, ready_dir

RUNCTX = [sys.executable, "-m", "runctx"]

RUNNER = """
import os, pathlib, subprocess, sys, time
mode = sys.argv[1]
if mode == "hold":
    pathlib.Path(sys.argv[2]).touch()
    time.sleep(300)
elif mode == "then":
    go, out, command = sys.argv[2], sys.argv[3], sys.argv[4:]
    while not os.path.exists(go):
        time.sleep(0.02)
    with open(out + ".log", "w") as log:
        status = subprocess.call(command, stdout=log, stderr=log)
    pathlib.Path(out).write_text(str(status))
    time.sleep(300)
"""


def write_runner(checkout: Path) -> None:
    """Put the ``run_tests.py`` that holds or runs a command into the checkout."""
    (checkout / "run_tests.py").write_text(RUNNER)


def hold_argv(checkout: Path, name: str) -> list[str]:
    """The argv of a run that says it is up (a file) and holds until killed."""
    return [PYTHON, "run_tests.py", "hold", str(ready_dir(checkout) / name)]


def start_hold(runs: RunFactory, checkout: Path, name: str) -> Orphan:
    """An orphaned run of ``checkout`` that holds until killed."""
    ready = ready_dir(checkout) / name
    return runs.orphan(hold_argv(checkout, name), checkout, env=clean_env(), ready=ready)


def start_then(
    runs: RunFactory, checkout: Path, name: str, *command: str
) -> tuple[Orphan, Path, Path]:
    """An orphaned run of ``checkout`` that runs ``command`` once its go-file exists."""
    go = ready_dir(checkout) / f"{name}.go"
    out = ready_dir(checkout) / f"{name}.out"
    argv = [PYTHON, "run_tests.py", "then", str(go), str(out), *command]
    return runs.orphan(argv, checkout, env=clean_env()), go, out


def read_outcome(out: Path) -> int:
    """The exit status of the command a ``then`` run ran."""
    wait_for(lambda: out.exists() and out.read_text(), what=f"{out.name} to be written")
    return int(out.read_text())


@pytest.fixture
def checkout(checkout):
    """The real git checkout of ``conftest.py``, holding the runner script."""
    write_runner(checkout)
    return checkout


def start_wait(runs: RunFactory, checkout: Path, *args: str) -> subprocess.Popen[str]:
    """``runctx wait`` from a shell in ``checkout`` (it is inside no run of it)."""
    return runs.child(
        [*RUNCTX, *args, "wait", "--poll", "0.1"],
        cwd=checkout,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        errors="backslashreplace",
    )


def test_returns_when_the_other_run_is_killed(checkout, runs):
    """Wait keeps waiting, scan after scan, while the run lives, and exits 0 once it is killed."""
    other = start_hold(runs, checkout, "other")
    waiter = start_wait(runs, checkout, "-v")
    assert waiter.stderr is not None
    lines = []
    while sum("runctx.scan_finished" in line for line in lines) < 3:
        line = waiter.stderr.readline()
        assert line, f"wait ended while the run was live: {lines}"
        lines.append(line)
    # A third scan began: after two scans that saw the run live, wait went on waiting.
    (waiting,) = [line for line in lines if line.startswith("runctx: waiting for")]
    assert waiting.startswith("runctx: waiting for 1 run of this checkout")
    assert f"pid {other.pid} (run-tests-script" in waiting
    runs.kill(other)
    rest = waiter.stderr.read()
    assert waiter.wait() == 0
    assert rest.splitlines()[-1].startswith("runctx: ready after")


def test_times_out_while_the_other_run_lives(checkout, runs):
    """With the run still live, wait gives up with 75 after --timeout and names what is left."""
    other = start_hold(runs, checkout, "other")
    result = subprocess.run(
        [*RUNCTX, "wait", "--timeout", "0.6", "--poll", "0.1"],
        cwd=checkout,
        capture_output=True,
        text=True,
        errors="backslashreplace",
        check=False,
    )
    assert result.returncode == 75
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("runctx: timed out after")
    assert f"still live: 1 run of this checkout: pid {other.pid}" in last


@pytest.mark.parametrize("timeout", ["0", "1"])
def test_on_a_cpu_shared_with_spinners_a_wait_times_out_naming_the_live_run(
    checkout, runs, shared_tmp, timeout
):
    """Given a quarter of one CPU, ``wait --timeout`` still ends timed out (75), naming the run.

    Three spinners share the wait's one CPU, so its imports and its scan take
    about four times their CPU in wall time. ``--timeout`` counts from the
    command's start, no scan starts that could not end within it, and the
    child that runs the wait is waited for as long as its one scan may take
    (at least 2 s): nothing says the scan is held, or gives it up.
    """
    other = start_hold(runs, checkout, "other")
    cpu = min(os.sched_getaffinity(0))
    for number in range(3):
        spinner = runs.spinner(make_checkout(shared_tmp / "spinning", f"spinner{number}"))
        os.sched_setaffinity(spinner.pid, {cpu})
    waiter = runs.child(
        [*RUNCTX, "wait", "--timeout", timeout],
        cwd=checkout,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        errors="backslashreplace",
    )
    os.sched_setaffinity(waiter.pid, {cpu})
    _out, err = waiter.communicate(timeout=60)
    assert waiter.returncode == 75, err
    assert "held" not in err, err
    assert "gave up" not in err, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("runctx: timed out after"), err
    assert f"still live: 1 run of this checkout: pid {other.pid}" in last, err


def test_nothing_to_wait_for_exits_0_silently(checkout, runs, shared_tmp):
    """With only a foreign run live (same directory name elsewhere), wait exits 0 at once."""
    theirs = make_checkout(shared_tmp / "elsewhere")
    write_runner(theirs)
    start_hold(runs, theirs, "theirs")
    result = subprocess.run(
        [*RUNCTX, "wait", "--timeout", "5"],
        cwd=checkout,
        capture_output=True,
        text=True,
        errors="backslashreplace",
        check=False,
    )
    assert result.returncode == 0
    assert result.stderr == ""


def test_ctrl_c_exits_130(checkout, runs):
    """An interrupted wait says so and exits 130."""
    start_hold(runs, checkout, "other")
    waiter = start_wait(runs, checkout)
    assert waiter.stderr is not None
    assert waiter.stderr.readline().startswith("runctx: waiting for")
    waiter.send_signal(signal.SIGINT)
    rest = waiter.stderr.read()
    assert waiter.wait() == 130
    assert "interrupted" in rest


def read_terminal(leader: int, seen: bytes) -> bytes:
    """The next bytes written to the terminal; empty once the writer closed it."""
    ready, _, _ = select.select([leader], [], [], 30)
    assert ready, f"nothing more on the terminal: {seen!r}"
    try:
        return os.read(leader, 4096)
    except OSError:  # EIO: every writer closed the terminal
        return b""


def wait_on_a_terminal(
    runs, checkout: Path, columns: int | None = None
) -> tuple[subprocess.Popen, int, bytes]:
    """``runctx wait`` with stderr on a terminal (``columns`` wide) and stdout not one.

    Returns the waiter, the terminal's other end and what it drew until three redraws.
    """
    leader, follower = pty.openpty()
    env = dict(os.environ)
    if columns is not None:
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        env = {k: v for k, v in env.items() if k not in {"COLUMNS", "LINES"}}
    waiter = runs.child(
        [*RUNCTX, "wait", "--poll", "0.1", "--timeout", "60"],
        cwd=checkout,
        env=env,
        stderr=follower,
        stdout=subprocess.DEVNULL,
    )
    os.close(follower)
    seen = b""
    try:
        while seen.count(b"\r\x1b[K") < 3:
            seen += read_terminal(leader, seen)
    except BaseException:
        os.close(leader)
        raise
    return waiter, leader, seen


def test_a_terminal_gets_one_live_line(checkout, runs):
    """On a terminal the progress is one line redrawn in place, then the outcome."""
    other = start_hold(runs, checkout, "other")
    waiter, leader, seen = wait_on_a_terminal(runs, checkout)
    try:
        runs.kill(other)
        while True:
            chunk = read_terminal(leader, seen)
            if not chunk:
                break
            seen += chunk
        assert waiter.wait() == 0
    finally:
        os.close(leader)
    text = seen.decode()
    assert re.search(r"runctx: waiting \d+\.\ds for 1 run of this checkout", text)  # time so far
    assert f"pid {other.pid} (run-tests-script" in text
    assert text.count("\n") == text.count("runctx: ready after")  # the outcome is the only line
    assert text.rstrip().endswith("no run of this checkout left to wait for")


def test_the_live_line_fits_the_terminal_it_is_drawn_on(checkout, runs):
    """The live line is cut to its own terminal's width (stderr's), whatever stdout is."""
    start_hold(runs, checkout, "other")
    columns = 30
    waiter, leader, seen = wait_on_a_terminal(runs, checkout, columns)
    waiter.send_signal(signal.SIGINT)
    waiter.wait()
    os.close(leader)
    drawn = [line for line in seen.decode().split("\r\x1b[K") if line.startswith("runctx")]
    assert drawn, seen
    for line in drawn:
        assert len(line.rstrip()) <= columns, line
        assert line.rstrip().endswith("…"), line


def test_a_run_never_waits_for_a_younger_run_of_its_checkout(checkout, runs):
    """Wait inside a run of the checkout ignores runs started after it: ready, not timed out."""
    _older, go, out = start_then(
        runs, checkout, "older", *RUNCTX, "wait", "--poll", "0.1", "--timeout", "30"
    )
    start_hold(runs, checkout, "younger")  # live until teardown: waiting for it would time out
    go.touch()
    assert read_outcome(out) == 0, (out.parent / "older.out.log").read_text()


@pytest.mark.needs_root
def test_a_reused_pid_never_keeps_wait_waiting(checkout, runs):
    """A waiter is freed when the run it waits for dies, even if a lookalike takes its pid."""
    older = start_hold(runs, checkout, "older")
    older_identity = (older.pid, start_ticks(older.pid))
    waiter_run, go, out = start_then(
        runs, checkout, "waiter", *RUNCTX, "wait", "--poll", "0.1", "--timeout", "60"
    )
    log = out.parent / "waiter.out.log"
    go.touch()
    wait_for(lambda: log.exists() and "waiting for" in log.read_text(), what="the wait to begin")
    assert f"pid {older.pid} " in log.read_text()
    (waiter,) = children_of(waiter_run.pid)
    os.kill(waiter, signal.SIGSTOP)
    try:
        runs.kill(older)
        wait_pid_free(older.pid)
        lookalike = runs.with_pid(
            older.pid, hold_argv(checkout, "lookalike"), checkout, env=clean_env()
        )
        wait_for((ready_dir(checkout) / "lookalike").exists, what="the lookalike to start")
    finally:
        os.kill(waiter, signal.SIGCONT)
    assert (lookalike.pid, start_ticks(lookalike.pid)) != older_identity
    assert read_outcome(out) == 0, log.read_text()
    assert is_live(lookalike.pid), "the lookalike must still be live"


@pytest.mark.parametrize("text", ["", "-1", "soon", "nan", "inf", "5d"])
def test_bad_durations_are_usage_errors(text):
    """A malformed --timeout exits 2 with one line."""
    result = subprocess.run(
        [*RUNCTX, "wait", "--timeout", text],
        capture_output=True,
        text=True,
        errors="backslashreplace",
        check=False,
    )
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.needs_root
def test_wait_from_a_child_pid_namespace_refuses_with_a_reason(shared_tmp, runs):
    """Wait and run --wait where /proc is another pid namespace's: refused, saying why."""
    checkout = make_checkout(shared_tmp, "proj")
    run = runs.run_tests_script(checkout)
    wait = [PYTHON, "-m", "runctx", "wait", "--timeout", "30"]
    waited = in_child_pid_namespace(runs, wait, checkout)
    assert waited.returncode == 1, waited.stderr
    assert "cannot wait" in waited.stderr
    assert "another pid namespace" in waited.stderr
    run_wait = [PYTHON, "-m", "runctx", "run", "--wait", "--timeout", "30", "--"]
    ran = in_child_pid_namespace(runs, [*run_wait, PYTHON, "run_tests.py"], checkout)
    assert ran.returncode == 75, ran.stderr
    assert "another pid namespace" in ran.stderr
    assert is_live(run.pid)
