"""Reading files another user could plant: regular files only, never blocking, bounded."""

from __future__ import annotations

import contextlib
import os
import signal
import socket

import pytest

from runctx.planted import NotRegularFileError, feed_chunks, read_bounded


@contextlib.contextmanager
def no_hang(seconds: int = 10):
    """Fail the test (instead of hanging the suite) if the block blocks for ``seconds``."""

    def expire(_signum, _frame):
        msg = f"blocked for {seconds}s"
        raise AssertionError(msg)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_regular_file_is_read_whole(tmp_path):
    """A file within the bound comes back whole."""
    path = tmp_path / "pyproject.toml"
    path.write_bytes(b"[tool.runctx]\n")
    assert read_bounded(str(path), 100) == (b"[tool.runctx]\n", True)


def test_a_larger_file_is_read_only_up_to_the_bound(tmp_path):
    """A file past the bound gives the bound's worth of bytes and says it is not whole."""
    path = tmp_path / "big"
    path.write_bytes(b"x" * 1000)
    data, whole = read_bounded(str(path), 100)
    assert data == b"x" * 100
    assert not whole


def test_a_file_exactly_at_the_bound_is_whole(tmp_path):
    """The bound is inclusive: a file of exactly ``limit`` bytes is whole."""
    path = tmp_path / "exact"
    path.write_bytes(b"y" * 100)
    assert read_bounded(str(path), 100) == (b"y" * 100, True)


def test_a_fifo_is_refused_without_blocking(tmp_path):
    """A FIFO (whose open would wait for a writer for ever) is refused at once."""
    fifo = tmp_path / "pyproject.toml"
    os.mkfifo(fifo)
    with no_hang(), pytest.raises(NotRegularFileError, match="FIFO"):
        read_bounded(str(fifo), 100)
    with no_hang(), pytest.raises(NotRegularFileError, match="FIFO"):
        feed_chunks(str(fifo), 100, lambda _chunk: False)


def test_a_symlink_to_a_fifo_is_refused_too(tmp_path):
    """A symlink is followed to see what it names, and a FIFO behind it is refused."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "pyproject.toml"
    link.symlink_to(fifo)
    with no_hang(), pytest.raises(NotRegularFileError):
        read_bounded(str(link), 100)


def test_a_socket_a_device_and_a_directory_are_refused(tmp_path):
    """Only regular files are read: a socket, a character device, a directory are not."""
    path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(NotRegularFileError, match="socket"):
            read_bounded(str(path), 100)
    with pytest.raises(NotRegularFileError, match="character device"):
        read_bounded("/dev/zero", 100)
    with pytest.raises(NotRegularFileError, match="directory"):
        read_bounded(str(tmp_path), 100)


def test_a_missing_file_is_file_not_found(tmp_path):
    """Absence is the ordinary FileNotFoundError, for callers to tell apart."""
    with pytest.raises(FileNotFoundError):
        read_bounded(str(tmp_path / "none"), 100)


def test_feed_chunks_gives_every_byte_in_order_and_stops_when_told(tmp_path):
    """The file reaches the consumer whole, chunk by chunk; a True stops the read there."""
    path = tmp_path / "big"
    data = bytes(range(256)) * 1000
    path.write_bytes(data)
    chunks: list[bytes] = []
    assert (
        feed_chunks(str(path), 10 * len(data), lambda chunk: chunks.append(chunk) or False) is False
    )
    assert b"".join(chunks) == data
    assert len(chunks) > 1
    taken: list[bytes] = []
    assert feed_chunks(str(path), len(data), lambda chunk: not taken.append(chunk)) is True
    assert len(taken) == 1


def test_feed_chunks_says_none_past_its_bound(tmp_path):
    """A file longer than the bound is given up to the bound only: neither yes nor no."""
    path = tmp_path / "big"
    path.write_bytes(b"x" * 1000)
    given: list[bytes] = []
    assert feed_chunks(str(path), 100, lambda chunk: given.append(chunk) or False) is None
    assert b"".join(given) == b"x" * 100
    assert feed_chunks(str(path), 1000, lambda _chunk: False) is False


PROBE_NOT_OPENED = """
import sys
opened = []
sys.addaudithook(lambda event, args: opened.append(args[0]) if event == "open" else None)
from runctx.planted import feed_chunks, read_bounded
path = sys.argv[1]
whole = read_bounded(path, 1024)
fed = feed_chunks(path, 1024, lambda chunk: False)
print(repr((whole, fed, [p for p in opened if str(p).endswith("pyproject.toml")])))
"""


def test_a_link_to_a_proc_pseudo_file_is_never_opened(tmp_path):
    """A link to a file of /proc (size 0; some are consumed by a read) reads as empty, unopened."""
    import subprocess
    import sys

    link = tmp_path / "pyproject.toml"
    link.symlink_to(f"/proc/{os.getpid()}/environ")
    done = subprocess.run(
        [sys.executable, "-c", PROBE_NOT_OPENED, str(link)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == repr(((b"", True), False, []))
