"""``runctx wait`` on real runs: returns when they end, times out, follows identities."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pidreuse import child_pids, spawn_orphan_with_pid, start_ticks, wait_pid_free
from proctools import PYTHON, Orphan, make_checkout, require_root, spawn_orphan, wait_for
from runfixtures import clean_env, ready_dir

from runctx.waiting import parse_duration

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
        began = time.monotonic()
        status = subprocess.call(command, stdout=log, stderr=log)
    pathlib.Path(out).write_text(f"{status} {time.monotonic() - began:.3f}")
    time.sleep(300)
"""


def write_runner(checkout: Path) -> None:
    """Put the ``run_tests.py`` that holds or runs a command into the checkout."""
    (checkout / "run_tests.py").write_text(RUNNER)


def hold_argv(checkout: Path, name: str) -> list[str]:
    """The argv of a run that says it is up (a file) and holds until killed."""
    return [PYTHON, "run_tests.py", "hold", str(ready_dir(checkout) / name)]


def start_hold(checkout: Path, name: str) -> Orphan:
    """An orphaned run of ``checkout`` that holds until killed."""
    run = spawn_orphan(hold_argv(checkout, name), checkout, env=clean_env())
    wait_for((ready_dir(checkout) / name).exists, what=f"run {name} to start")
    return run


def start_then(checkout: Path, name: str, *command: str) -> tuple[Orphan, Path, Path]:
    """An orphaned run of ``checkout`` that runs ``command`` once its go-file exists."""
    go = ready_dir(checkout) / f"{name}.go"
    out = ready_dir(checkout) / f"{name}.out"
    argv = [PYTHON, "run_tests.py", "then", str(go), str(out), *command]
    return spawn_orphan(argv, checkout, env=clean_env()), go, out


def read_outcome(out: Path, timeout: float = 30.0) -> tuple[int, float]:
    """The exit status and seconds of the command a ``then`` run ran."""
    wait_for(lambda: out.exists() and out.read_text(), timeout, f"{out.name} to be written")
    status, seconds = out.read_text().split()
    return int(status), float(seconds)


@pytest.fixture
def checkout(shared_tmp):
    """A real git checkout holding the runner script."""
    root = make_checkout(shared_tmp)
    write_runner(root)
    return root


@pytest.fixture
def runs():
    """Collects started runs and kills every one of them at teardown."""
    started: list[Orphan] = []
    yield started
    kill_all(started)


def kill_all(started: list[Orphan]) -> None:
    """Kill every run, even when killing one of them fails."""
    for run in started:
        with contextlib.suppress(ProcessLookupError):
            os.kill(run.pid, signal.SIGKILL)
    for run in started:
        run.kill()


def start_wait(checkout: Path, *args: str) -> subprocess.Popen[str]:
    """``runctx wait`` from a shell in ``checkout`` (it is inside no run of it)."""
    return subprocess.Popen(
        [*RUNCTX, "wait", "--poll", "0.1", *args],
        cwd=checkout,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )


def test_returns_when_the_other_run_is_killed(checkout, runs):
    """Wait names the live run it waits for, and exits 0 once that run is killed."""
    other = start_hold(checkout, "other")
    runs.append(other)
    waiter = start_wait(checkout, "--timeout", "30")
    try:
        assert waiter.stderr is not None
        first = waiter.stderr.readline()
        assert first.startswith("runctx: waiting for 1 run of this checkout")
        assert f"pid {other.pid} (run-tests-script" in first
        time.sleep(0.3)
        assert waiter.poll() is None, "wait returned while the run was still live"
        other.kill()
        status = waiter.wait(timeout=10)
        rest = waiter.stderr.read()
    finally:
        waiter.kill()
        waiter.wait()
    assert status == 0
    assert rest.splitlines()[-1].startswith("runctx: ready after")


def test_times_out_while_the_other_run_lives(checkout, runs):
    """With the run still live, wait exits 124 after --timeout and names what is left."""
    other = start_hold(checkout, "other")
    runs.append(other)
    began = time.monotonic()
    result = subprocess.run(
        [*RUNCTX, "wait", "--timeout", "0.6", "--poll", "0.1"],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 124
    assert time.monotonic() - began >= 0.6
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("runctx: timed out after")
    assert f"still live: 1 run of this checkout: pid {other.pid}" in last


def test_nothing_to_wait_for_exits_0_silently(checkout, runs, shared_tmp):
    """With only a foreign run live (same directory name elsewhere), wait exits 0 at once."""
    theirs = make_checkout(shared_tmp / "elsewhere")
    write_runner(theirs)
    runs.append(start_hold(theirs, "theirs"))
    result = subprocess.run(
        [*RUNCTX, "wait", "--timeout", "5"],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    assert result.stderr == ""


def test_ctrl_c_exits_130(checkout, runs):
    """An interrupted wait says so and exits 130."""
    runs.append(start_hold(checkout, "other"))
    waiter = start_wait(checkout)
    try:
        assert waiter.stderr is not None
        assert waiter.stderr.readline().startswith("runctx: waiting for")
        waiter.send_signal(signal.SIGINT)
        status = waiter.wait(timeout=10)
        rest = waiter.stderr.read()
    finally:
        waiter.kill()
        waiter.wait()
    assert status == 130
    assert "interrupted" in rest


def test_a_terminal_gets_one_live_line(checkout, runs):
    """On a terminal the progress is one line redrawn in place, then the outcome."""
    other = start_hold(checkout, "other")
    runs.append(other)
    leader, follower = pty.openpty()
    waiter = subprocess.Popen(
        [*RUNCTX, "wait", "--poll", "0.1", "--timeout", "30"],
        cwd=checkout,
        stderr=follower,
        stdout=subprocess.DEVNULL,
    )
    os.close(follower)
    seen = b""
    try:
        while seen.count(b"\r\x1b[K") < 3:
            ready, _, _ = select.select([leader], [], [], 10)
            assert ready, f"no live line on the terminal: {seen!r}"
            seen += os.read(leader, 4096)
        other.kill()
        assert waiter.wait(timeout=10) == 0
        while True:
            ready, _, _ = select.select([leader], [], [], 1)
            if not ready:
                break
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    finally:
        waiter.kill()
        waiter.wait()
        os.close(leader)
    text = seen.decode()
    assert "runctx: waiting 0." in text
    assert f"pid {other.pid} (run-tests-script" in text
    assert text.count("\n") == text.count("runctx: ready after")  # the outcome is the only line
    assert text.rstrip().endswith("no run of this checkout left to wait for")


def test_a_run_never_waits_for_a_younger_run_of_its_checkout(checkout, runs):
    """Wait inside a run of the checkout ignores runs started after it: no deadlock."""
    older, go, out = start_then(
        checkout, "older", *RUNCTX, "wait", "--poll", "0.1", "--timeout", "10"
    )
    runs.append(older)
    runs.append(start_hold(checkout, "younger"))
    go.touch()
    status, seconds = read_outcome(out)
    assert status == 0, (out.parent / "older.out.log").read_text()
    assert seconds < 5


def test_a_reused_pid_never_keeps_wait_waiting(checkout, runs):
    """A waiter is freed when the run it waits for dies, even if a lookalike takes its pid."""
    require_root()
    older = start_hold(checkout, "older")
    runs.append(older)
    older_identity = (older.pid, start_ticks(older.pid))
    waiter_run, go, out = start_then(
        checkout, "waiter", *RUNCTX, "wait", "--poll", "0.1", "--timeout", "20"
    )
    runs.append(waiter_run)
    log = out.parent / "waiter.out.log"
    go.touch()
    wait_for(lambda: log.exists() and "waiting for" in log.read_text(), what="the wait to begin")
    assert f"pid {older.pid} " in log.read_text()
    (waiter,) = child_pids(waiter_run.pid)
    os.kill(waiter, signal.SIGSTOP)
    try:
        older.kill()
        wait_pid_free(older.pid)
        lookalike = spawn_orphan_with_pid(
            older.pid, hold_argv(checkout, "lookalike"), checkout, env=clean_env()
        )
        runs.append(lookalike)
        wait_for((ready_dir(checkout) / "lookalike").exists, what="the lookalike to start")
    finally:
        os.kill(waiter, signal.SIGCONT)
    assert (lookalike.pid, start_ticks(lookalike.pid)) != older_identity
    status, _seconds = read_outcome(out)
    assert status == 0, log.read_text()
    assert Path(f"/proc/{lookalike.pid}").exists(), "the lookalike must still be live"


@pytest.mark.parametrize(
    ("text", "seconds"), [("90", 90.0), ("2.5", 2.5), ("90s", 90.0), ("10m", 600.0), ("1h", 3600.0)]
)
def test_durations_take_units(text, seconds):
    """--timeout takes plain seconds or a number with s, m or h."""
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "-1", "soon", "nan", "inf", "5d"])
def test_bad_durations_are_usage_errors(text):
    """A malformed --timeout exits 2 with one line."""
    result = subprocess.run(
        [*RUNCTX, "wait", "--timeout", text], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
