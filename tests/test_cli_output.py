"""Writing the output: a closed pipe ends quietly, a full disk is one line, a hook still exits 0."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hooktools import claude_pre_tool_use, hook_env
from proctools import make_checkout
from runfixtures import start_run_tests_script

from runctx.exits import EXIT_BROKEN_PIPE


def _closed_pipe() -> int:
    """The write end of a pipe whose reader is already gone."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    return write_end


def _runctx(*argv: str, stdout, stdin: bytes = b"", **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "runctx", *argv],
        input=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=hook_env(),
        timeout=60,
        check=False,
        **kwargs,
    )


@pytest.mark.parametrize("argv", [["check", "--json"], ["status"], ["status", "--json"]])
def test_a_reader_that_went_away_ends_the_command_quietly(argv):
    """EPIPE on stdout is no traceback: nothing on stderr, exit 141 (as SIGPIPE would)."""
    write_end = _closed_pipe()
    try:
        done = _runctx(*argv, stdout=write_end)
    finally:
        os.close(write_end)
    assert done.returncode == EXIT_BROKEN_PIPE == 141
    assert done.stderr == b""


@pytest.mark.parametrize("argv", [["check"], ["status", "--json"]])
def test_a_full_disk_is_one_line(argv):
    """ENOSPC on stdout is one line on stderr and exit 1."""
    with open("/dev/full", "wb") as full:
        done = _runctx(*argv, stdout=full)
    assert done.returncode == 1
    assert done.stderr.decode() == (
        "runctx: error: cannot write to stdout: No space left on device\n"
    )


@pytest.fixture(scope="module")
def foreign_run(tmp_path_factory):
    """A live run in one checkout and another checkout to see it from (a reply to write)."""
    base = tmp_path_factory.mktemp("output")
    base.chmod(0o755)
    run = start_run_tests_script(make_checkout(base / "a"))
    try:
        yield make_checkout(base / "b")
    finally:
        run.kill()


def _payload(cwd) -> bytes:
    return json.dumps(claude_pre_tool_use("python3 run_tests.py", cwd)).encode()


def test_the_hook_exits_0_with_stdout_closed(foreign_run):
    """With stdout closed the hook exits 0 and says in one line that its reply was lost."""
    done = _runctx(
        "hook",
        "claude",
        stdout=subprocess.DEVNULL,
        stdin=_payload(foreign_run),
        preexec_fn=lambda: os.close(1),
    )
    assert done.returncode == 0
    lines = done.stderr.decode().splitlines()
    assert lines == [
        "runctx: hook failed open: cannot write the reply to stdout: Bad file descriptor"
    ]


@pytest.mark.parametrize("target", ["/dev/full", "pipe"])
def test_the_hook_exits_0_when_its_reply_cannot_be_written(foreign_run, target):
    """A full stdout or a reader that went away still gives exit 0 and one line on stderr."""
    if target == "pipe":
        write_end = _closed_pipe()
        try:
            done = _runctx("hook", "claude", stdout=write_end, stdin=_payload(foreign_run))
        finally:
            os.close(write_end)
    else:
        with open(target, "wb") as full:
            done = _runctx("hook", "claude", stdout=full, stdin=_payload(foreign_run))
    assert done.returncode == 0
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("runctx: hook failed open: cannot write the reply to stdout: ")
