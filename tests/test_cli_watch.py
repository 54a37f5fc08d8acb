"""``runctx status --watch`` on a real terminal (a pty) and on a pipe, with real runs.

Each test sequences by what the watch writes (a frame drawn, a mark shown),
never by sleeping; the guards only bound a hang.
"""

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
import time
from pathlib import Path

import pytest
from hooktools import hook_env, runctx
from proctools import make_checkout

from runctx.cli.watch import CLEAR_BELOW, CLEAR_LINE, ENTER, HOME, LEAVE
from runctx.present.text import FOREIGN_SHOWN

RUNCTX = [sys.executable, "-m", "runctx"]
GUARD = 60
"""Seconds after which a watch that should have drawn counts as hung."""
SPIN = "import pathlib, sys\npathlib.Path(sys.argv[1]).touch()\nwhile True:\n    pass\n"


def set_size(fd: int, columns: int, rows: int) -> None:
    """Give the terminal behind ``fd`` a size."""
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))


class Terminal:
    """A watch running on a pty of its own, as in a terminal pane."""

    def __init__(self, runs, cwd: Path, *argv: str, columns: int = 120, rows: int = 40) -> None:
        """Start ``runctx status --watch ARGV`` in ``cwd`` with the pty as its terminal."""
        self.leader, follower = pty.openpty()
        set_size(follower, columns, rows)
        self.mode_before = termios.tcgetattr(follower)
        self.follower = follower
        self.seen = b""
        self.process = runs.child(
            [*RUNCTX, "status", "--watch", *argv],
            cwd=cwd,
            stdin=follower,
            stdout=follower,
            stderr=follower,
            env=hook_env(TERM="xterm-256color"),
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
        )

    def read_until(self, predicate) -> bytes:
        """Read what the watch writes until ``predicate(everything so far)`` holds."""
        deadline = time.monotonic() + GUARD
        while not predicate(self.seen):
            left = deadline - time.monotonic()
            assert left > 0, f"the watch did not draw in time: {self.seen[-2000:]!r}"
            ready, _, _ = select.select([self.leader], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.leader, 65536)
                except OSError:  # EIO: the watch closed the terminal
                    chunk = b""
                if not chunk:
                    break
                self.seen += chunk
        return self.seen

    def frames(self) -> list[bytes]:
        """Each frame drawn so far (what follows each move to the top left)."""
        return self.seen.split(HOME.encode())[1:]

    def finish(self) -> int:
        """Wait for the watch to end; its exit status, once it gave the terminal back."""
        status = self.process.wait(timeout=GUARD)
        self.read_until(lambda seen: seen.endswith(LEAVE.encode()))
        return status

    def close(self) -> None:
        """Close both ends of the pty."""
        for fd in (self.leader, self.follower):
            os.close(fd)


def test_frames_are_drawn_in_place_without_clearing_the_screen(checkout, runs):
    """On a terminal each frame overwrites the last from the top left, never clearing first."""
    watch = Terminal(runs, checkout, "--interval", "0.1")
    try:
        watch.read_until(lambda seen: seen.count(HOME.encode()) >= 4)
        assert watch.seen.startswith(ENTER.encode())
        assert b"\x1b[2J" not in watch.seen  # a full clear would flicker
        for frame in watch.frames()[1:3]:  # the first is the scanning frame
            assert CLEAR_LINE.encode() in frame
            assert frame.endswith(CLEAR_BELOW.encode())
            assert b"Viewpoint: " in frame
        os.write(watch.leader, b"q")
        assert watch.finish() == 0
        assert watch.seen.endswith(LEAVE.encode())
        assert termios.tcgetattr(watch.follower) == watch.mode_before
    finally:
        watch.close()


@pytest.mark.parametrize(("send", "status"), [("ctrl-c", 130), ("sigterm", 143), ("sighup", 129)])
def test_the_terminal_is_given_back_however_the_watch_ends(checkout, runs, send, status):
    """Ctrl-C, SIGTERM or SIGHUP: the main screen, the cursor and the input mode come back."""
    watch = Terminal(runs, checkout, "--interval", "30")
    try:
        watch.read_until(lambda seen: HOME.encode() in seen and seen.endswith(CLEAR_BELOW.encode()))
        assert termios.tcgetattr(watch.follower) != watch.mode_before  # keys read one by one
        if send == "ctrl-c":
            os.write(watch.leader, termios.tcgetattr(watch.follower)[6][termios.VINTR])
        else:
            watch.process.send_signal(signal.SIGTERM if send == "sigterm" else signal.SIGHUP)
        assert watch.finish() == status
        assert watch.seen.endswith(LEAVE.encode())
        assert termios.tcgetattr(watch.follower) == watch.mode_before
    finally:
        watch.close()


def test_the_first_frame_is_drawn_before_the_first_scan_ends(checkout, runs):
    """The screen is never blank: a scanning frame comes first, then the report over it."""
    watch = Terminal(runs, checkout, "--interval", "30")
    try:
        watch.read_until(lambda seen: b"Viewpoint: " in seen)
        first = watch.frames()[0]
        assert b"Scanning the processes" in first
        assert b"Viewpoint: " not in first
        os.write(watch.leader, b"q")
        assert watch.finish() == 0
    finally:
        watch.close()


def test_d_shows_and_hides_why_each_run_is_foreign(checkout, runs, shared_tmp):
    """One line a run at first; ``d`` adds each foreign run's why: line, ``d`` again hides it."""
    other = runs.run_tests_script(make_checkout(shared_tmp, "other"))
    # Tall enough for a box with many live runs: the key's line ends the frame.
    watch = Terminal(runs, checkout, "--interval", "30", rows=400)
    row = f"{other.pid} ".encode()
    try:
        watch.read_until(
            lambda seen: b"Viewpoint: " in seen and seen.endswith(CLEAR_BELOW.encode())
        )
        assert row in watch.frames()[-1]
        assert b"why: " not in watch.frames()[-1]
        first = watch.frames()[-1]
        assert b"d for details" in first.split(b"\n", 1)[0]  # the heading says it on any box
        if b"more lines" not in first:  # the footer's hint, where the runs left it room
            assert b"press d" in first
        drawn = len(watch.frames())
        os.write(watch.leader, b"d")
        watch.read_until(
            lambda seen: (
                len(seen.split(HOME.encode())) > drawn + 1 and seen.endswith(CLEAR_BELOW.encode())
            )
        )
        assert b"why: " in watch.frames()[-1]
        drawn = len(watch.frames())
        os.write(watch.leader, b"d")
        watch.read_until(
            lambda seen: (
                len(seen.split(HOME.encode())) > drawn + 1 and seen.endswith(CLEAR_BELOW.encode())
            )
        )
        assert b"why: " not in watch.frames()[-1]
        os.write(watch.leader, b"q")
        assert watch.finish() == 0
    finally:
        watch.close()


def test_a_resize_is_drawn_at_once_at_the_new_width(checkout, runs):
    """SIGWINCH redraws the frame now (the interval is long), every line within the new width."""
    long_name = checkout / ("x" * 150)
    long_name.mkdir()
    other = make_checkout(long_name, "proj")
    runs.run_tests_script(other)
    watch = Terminal(runs, checkout, "--interval", "600", columns=200, rows=50)
    try:
        watch.read_until(lambda seen: seen.endswith(CLEAR_BELOW.encode()))
        set_size(watch.follower, 60, 20)
        watch.process.send_signal(signal.SIGWINCH)
        watch.read_until(lambda seen: len(seen.split(HOME.encode())) >= 3)
        watch.read_until(lambda seen: seen.endswith(CLEAR_BELOW.encode()))
        resized = watch.frames()[-1]
        rows = [strip_sgr(row).strip(b"\r") for row in resized.split(b"\n")]
        assert len(rows) <= 20
        assert all(len(row.decode()) <= 60 for row in rows), rows
        os.write(watch.leader, b"q")
        assert watch.finish() == 0
    finally:
        watch.close()


def strip_sgr(data: bytes) -> bytes:
    """``data`` without the watch's own sequences (colour, clear to end of line or screen)."""
    return re.sub(rb"\x1b\[[0-9;]*[mKJH]", b"", data)


class PlainWatch:
    """A watch whose stdout is a pipe: one plain report per refresh."""

    def __init__(self, runs, cwd: Path, *argv: str) -> None:
        """Start it in ``cwd``."""
        self.process = runs.child(
            [*RUNCTX, "status", "--watch", *argv],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=hook_env(),
        )
        self.text = ""

    def next_frame(self) -> str:
        """Read the next report, whole (up to its "Not seen" lines)."""
        assert self.process.stdout is not None
        lines = []
        deadline = time.monotonic() + GUARD
        while time.monotonic() < deadline:
            raw = self.process.stdout.readline()
            assert raw, "the watch ended"
            text = raw.decode()
            lines.append(text)
            if text.startswith("Not seen:"):
                rest = self._rest_of_frame()
                return "".join(lines) + rest
        msg = "no whole frame in time"
        raise AssertionError(msg)

    def _rest_of_frame(self) -> str:
        """The lines after "Not seen": more of them, and the Ended section, up to the blank."""
        assert self.process.stdout is not None
        rest = []
        while True:
            raw = self.process.stdout.readline().decode()
            if raw in ("", "\n") and not (rest and rest[-1].startswith("Ended")):
                return "".join(rest)
            rest.append(raw)

    def frame_where(self, predicate) -> str:
        """The first frame from now on for which ``predicate`` holds."""
        deadline = time.monotonic() + GUARD
        while time.monotonic() < deadline:
            frame = self.next_frame()
            if predicate(frame):
                return frame
        msg = "no such frame in time"
        raise AssertionError(msg)


def test_runs_that_appear_and_end_are_marked(checkout, runs):
    """A run that starts is marked + beside its pid; once it ends it is listed as ended."""
    watch = PlainWatch(runs, checkout, "--interval", "0.2")
    watch.next_frame()
    started = runs.run_tests_script(checkout)

    def row_of(frame: str) -> str | None:
        """The table row of the started run (a note under another run may name its pid too)."""
        rows = (line for line in frame.splitlines() if line.lstrip(" +").startswith(f"{pid} "))
        return next(rows, None)

    pid = started.pid
    appeared = watch.frame_where(lambda frame: row_of(frame) is not None)
    row = row_of(appeared)
    assert row is not None
    assert row.startswith("+ "), row
    runs.kill(started)
    gone = f"- pid {started.pid} (run-tests-script, ours) ended"
    ended = watch.frame_where(lambda frame: gone in frame)
    assert "Ended since an earlier refresh" in ended
    assert not any(line.startswith(f"+ {started.pid} ") for line in ended.splitlines())


def test_past_twenty_ended_runs_the_rest_are_counted_in_one_line(checkout, runs, shared_tmp):
    """Runs that ended are listed under "Ended" up to the table's bound; ``--all`` lists each."""
    started = runs.elsewhere(shared_tmp / "many", FOREIGN_SHOWN + 3)
    pids = {run.pid for run in started}
    capped = PlainWatch(runs, checkout, "--interval", "0.2")
    every = PlainWatch(runs, checkout, "--interval", "0.2", "--all")
    for watch in (capped, every):
        watch.frame_where(lambda frame: "… and " in frame or f"  {max(pids)} " in frame)
    for run in started:  # all at once: each is listed as ended for three refreshes only
        os.killpg(run.pid, signal.SIGKILL)
    for run in started:
        runs.kill(run)

    def ended(frame: str) -> tuple[int, list[int]]:
        """The count in the "Ended" heading, and the pids listed under it."""
        heading = re.search(r"^Ended since an earlier refresh \((\d+)\):", frame, re.MULTILINE)
        listed = [int(line.split()[2]) for line in frame.splitlines() if line.startswith("- pid ")]
        return (int(heading[1]) if heading else 0), listed

    frame = capped.frame_where(lambda frame: ended(frame)[0] >= len(pids))
    count, listed = ended(frame)
    assert len(listed) == FOREIGN_SHOWN, frame
    more = f"… and {count - FOREIGN_SHOWN} more; every one: runctx status --watch --all"
    assert more in frame, frame
    frame = every.frame_where(lambda frame: pids <= set(ended(frame)[1]))
    assert "more; every one" not in frame


def test_cpu_now_is_measured_between_refreshes(checkout, runs, shared_tmp):
    """CPU NOW: the first frame's from the scan's own window, the next ones between refreshes."""
    idle = runs.run_tests_script(checkout)
    other = make_checkout(shared_tmp, "spinner")
    (other / "run_tests.py").write_text(SPIN)
    ready = other / "spinning"
    spinner = runs.orphan([sys.executable, "run_tests.py", str(ready)], other, ready=ready)
    watch = PlainWatch(runs, checkout, "--interval", "0.5")

    def cpu_now(frame: str, pid: int) -> str:
        lines = frame.splitlines()
        at = next(
            number
            for number, line in enumerate(lines)
            if line.lstrip(" +").split(" ", 1)[0] == str(pid)
        )
        header = next(line for line in reversed(lines[:at]) if "CPU NOW" in line)
        return lines[at][header.index("CPU NOW") :].split()[0]

    first = watch.next_frame()
    # The window is at least 0.1 s; a loaded box may stretch it (never asserted as a duration).
    window = re.search(r"CPU NOW: CPUs each run kept busy over the last (\d+\.\d\d)s", first)
    assert window is not None, first
    assert float(window.group(1)) >= 0.1
    assert float(cpu_now(first, spinner.pid)) >= 0
    second = watch.next_frame()
    assert "CPU NOW: CPUs each run kept busy since the last refresh" in second
    assert float(cpu_now(second, spinner.pid)) > float(cpu_now(second, idle.pid))


def test_a_plain_watch_writes_reports_without_control_sequences(checkout):
    """Not on a terminal: --count N plain reports under a timed header, no escape sequence."""
    done = runctx(
        "status", "--watch", "--interval", "0.1", "--count", "2", cwd=checkout, text=False
    )
    assert done.returncode == 0, done.stderr
    assert b"\x1b" not in done.stdout
    assert done.stdout.count(b"runctx status --watch: every 0.1s, ") == 2
    assert done.stdout.count(b"Viewpoint: ") == 2


@pytest.mark.parametrize(
    "argv",
    [["--json"], ["--format", "openmetrics"], ["--output", "/tmp/x.prom"]],
)
def test_watch_takes_no_machine_format(checkout, argv):
    """--watch is for a person: JSON, OpenMetrics or a file are a usage error (2), in one line."""
    done = runctx("status", "--watch", *argv, cwd=checkout)
    assert done.returncode == 2
    assert "--watch shows the table" in (done.stdout + done.stderr)


def test_each_watch_frame_is_bounded_by_timeout_from_its_own_start(checkout):
    """--timeout bounds every frame: a frame taken after --timeout has passed is not cut at once.

    The second frame starts after the first's --timeout has passed: bounded
    from the process's start, it would read no process at all. From its own
    start, it reads the process table (on a loaded box it may still be cut
    further on: how far it gets is the box's, not asserted).
    """
    args = ["--watch", "--interval", "3", "--count", "2", "--timeout", "2.5"]
    done = runctx("status", *args, cwd=checkout)
    assert done.returncode == 0, done.stderr
    frames = done.stdout.split("runctx status --watch: every 3s, ")[1:]
    assert len(frames) == 2, done.stdout
    later = frames[1]
    listed = re.search(r"Seen: (\d+) process", later)
    assert listed is not None, later
    unread = re.search(r"(\d+) process(?:es were| was) not read at all", later)
    assert unread is None or int(unread.group(1)) < int(listed.group(1)), later
