"""The one reader of a child's pipes: what it sends kept, what it says passed on, as it comes."""

from __future__ import annotations

import os
import signal

import pytest

from runctx.pipes import ChildPipes


def test_kept_and_passed_pipes_are_read_to_their_ends():
    """A kept pipe's bytes come back whole; a passed one's are written on its descriptor."""
    value_read, value_write = os.pipe()
    said_read, said_write = os.pipe()
    target_read, target_write = os.pipe()
    pipes = ChildPipes(kept=[value_read], passed={said_read: target_write})
    try:
        os.write(value_write, b"first ")
        os.write(said_write, b"a line\n")
        os.write(value_write, b"second")
        os.close(value_write)
        os.close(said_write)
        while not pipes.ended:
            assert pipes.read_for(5.0), "a pipe written to and closed was not seen"
        assert pipes.text(value_read) == b"first second"
        os.close(target_write)
        assert os.read(target_read, 100) == b"a line\n"
        assert not pipes.unwritten
    finally:
        pipes.close()
        os.close(target_read)


def test_a_quiet_pipe_is_waited_for_its_time_only():
    """Nothing written: the read ends after its time, and says nothing came."""
    quiet_read, quiet_write = os.pipe()
    pipes = ChildPipes(kept=[quiet_read])
    try:
        assert not pipes.read_for(0.05)
        assert not pipes.ended
    finally:
        pipes.close()
        os.close(quiet_write)


def test_a_descriptor_whose_reader_went_away_is_marked_and_nothing_raises():
    """Passed on to a pipe nobody reads any more (``| head``): dropped, its descriptor marked."""
    said_read, said_write = os.pipe()
    gone_read, gone_write = os.pipe()
    os.close(gone_read)
    previous = signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    pipes = ChildPipes(passed={said_read: gone_write})
    try:
        os.write(said_write, b"to nobody\n")
        os.close(said_write)
        while not pipes.ended:
            pipes.read_for(5.0)
        assert pipes.unwritten == {gone_write}
    finally:
        signal.signal(signal.SIGPIPE, previous)
        pipes.close()
        os.close(gone_write)


def test_close_closes_every_read_end_once():
    """Every read end is closed by ``close``; a second ``close`` leaves what reuses them open."""
    one_read, one_write = os.pipe()
    two_read, two_write = os.pipe()
    pipes = ChildPipes(kept=[one_read], passed={two_read: one_write})
    pipes.close()
    for fd in (one_read, two_read):
        with pytest.raises(OSError, match="Bad file descriptor"):
            os.fstat(fd)
    reused = os.pipe()  # the lowest free numbers: those just closed
    assert set(reused) == {one_read, two_read}
    pipes.close()
    for fd in reused:
        os.fstat(fd)
        os.close(fd)
    os.close(one_write)
    os.close(two_write)
