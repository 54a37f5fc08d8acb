"""Writing a command's output: a reader that went away ends quietly, a full disk is one line."""

from __future__ import annotations

import io
import os
import subprocess

import pytest
from hooktools import runctx
from hostile import HOSTILE_PATH, strict_json

from runctx.exits import EXIT_BROKEN_PIPE
from runctx.present.output import OutputClosedError, OutputError, write_json, write_text


def _closed_pipe() -> int:
    """The write end of a pipe whose reader is already gone."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    return write_end


@pytest.mark.parametrize("argv", [["check", "--json"], ["status"], ["status", "--json"]])
def test_a_reader_that_went_away_ends_the_command_quietly(argv):
    """EPIPE on stdout is no traceback: nothing on stderr, exit 141 (as SIGPIPE would)."""
    write_end = _closed_pipe()
    try:
        done = runctx(
            *argv, text=False, stdin=subprocess.DEVNULL, stdout=write_end, stderr=subprocess.PIPE
        )
    finally:
        os.close(write_end)
    assert done.returncode == EXIT_BROKEN_PIPE == 141
    assert done.stderr == b""


@pytest.mark.parametrize("argv", [["check"], ["status", "--json"]])
def test_a_full_disk_is_one_line(argv):
    """ENOSPC on stdout is one line on stderr and exit 1."""
    with open("/dev/full", "wb") as full:
        done = runctx(
            *argv, text=False, stdin=subprocess.DEVNULL, stdout=full, stderr=subprocess.PIPE
        )
    assert done.returncode == 1
    assert done.stderr.decode() == (
        "runctx: error: cannot write to stdout: No space left on device\n"
    )


def _stream(encoding: str, errors: str = "strict") -> tuple[io.TextIOWrapper, io.BytesIO]:
    raw = io.BytesIO()
    return io.TextIOWrapper(raw, encoding=encoding, errors=errors), raw


@pytest.mark.parametrize("encoding", ["utf-8", "ascii"])
def test_write_text_on_a_strict_stream(encoding):
    """Writing a hostile line to a strict stream of any encoding succeeds, escaped."""
    stream, raw = _stream(encoding)
    write_text(f"root {HOSTILE_PATH} …\n", stream)
    written = raw.getvalue()
    assert written.isascii() or encoding == "utf-8"
    assert b"\x1b" not in written
    assert b"\\xff\\xfe" in written


def test_write_json_is_utf8_and_strict():
    """JSON output is UTF-8 whatever the stream encoding, and a strict parser accepts it."""
    stream, raw = _stream("ascii")
    write_json({"root": HOSTILE_PATH, "name": "é"}, stream)
    parsed = strict_json(raw.getvalue())
    assert parsed == {"root": "/tmp/x\x1b[2Jy\nFAKE: line\ufffd\ufffd", "name": "é"}


def test_writing_to_a_closed_pipe_is_output_closed():
    """A reader that went away is told apart from other failures to write."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    with open(write_end, "w", encoding="utf-8") as stream, pytest.raises(OutputClosedError):
        write_text("x\n", stream)


def test_writing_to_a_full_disk_says_so():
    """ENOSPC is an OutputError whose message names the cause."""
    with open("/dev/full", "w", encoding="utf-8") as stream, pytest.raises(OutputError) as raised:
        write_text("x\n", stream)
    assert not isinstance(raised.value, OutputClosedError)
    assert "No space left on device" in str(raised.value)


def test_writing_to_no_stream_is_output_closed(monkeypatch):
    """A closed stdout (``None`` in Python) is a closed output, not an AttributeError."""
    monkeypatch.setattr("sys.stdout", None)
    with pytest.raises(OutputClosedError):
        write_text("x\n")
