"""Work done in a forked child, its value sent back: a read that never returns holds no one.

A scan that looks at a process's file system can wait in the kernel for ever
when that file system stopped answering (:mod:`runctx.looking`), and no
signal ends the wait. :func:`value_in_child` forks, does the work in the
child, and sends its value back pickled down a pipe; the caller waits while
no look holds the child (:func:`runctx.looking.held`). Held, it raises
:class:`HeldError`, which names the process and the path, and the child is
left to end when its read does: it holds none of the caller's pipes but its
own.

The fork and what the child's writes copy are paid on every call (a few
milliseconds; tens in a large process), so a face that scans often does
this only where a file system may stop answering
(:func:`runctx.looking.may_stop_answering`).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pickle
import signal
import sys
import time
import warnings
from collections.abc import Callable
from typing import TypeVar

import attrs

from runctx import looking
from runctx.exceptions import RunctxError
from runctx.pipes import ChildPipes
from runctx.record_base import Record

T = TypeVar("T")

POLL_SECONDS = 0.05
"""How often a quiet child is looked at: whether a look holds it."""
DESCRIPTORS_MAX = 65536
"""Descriptors above those a child keeps are closed up to this."""
REAP_SECONDS = 0.2
"""How long a killed child is waited for: one held in the kernel is left, not waited on."""


class HeldError(RunctxError):
    """The child's work is held by a look at a file system that does not answer."""

    def __init__(self, look: looking.Look) -> None:
        """The look that holds it."""
        super().__init__(looking.held_words(look))
        self.look = look


class GaveUpError(RunctxError):
    """The child's work had not ended by the bound it was given (:class:`GiveUp`)."""


@attrs.frozen(repr=False, eq=False)
class GiveUp(Record):
    """When a waiter gives its child up, and how the bound is named to the user."""

    at: float
    """The :func:`time.monotonic` instant."""
    named: str
    """The bound in the user's words: ``--timeout 2s``."""


class ChildError(RunctxError):
    """The child's work raised: its type and message, as text (the error stays in the child)."""


def value_in_child(
    work: Callable[[], T], *, writes: bool = False, give_up: GiveUp | None = None
) -> T:
    """``work()``, done in a forked child, and its value (which must pickle) sent back.

    What the child writes on stdout and stderr comes through this process,
    and the child keeps none of this process's descriptors: a child left
    held keeps no pipe open that a reader waits on (``pytest | tee log``).
    Work that ``writes`` on descriptors of this process's own (pytest's
    terminal writer keeps a copy of the terminal's) keeps them all, and a
    held child keeps them open. Raises :class:`HeldError` once a look holds the child, and
    :class:`ChildError` when ``work`` raised there. With ``give_up``, a child
    not done by then is given up too: :class:`GaveUpError` names the look
    under way, if any, and the bound. Interrupted (Ctrl-C), the child is
    killed and the interrupt goes on.
    """
    watch = looking.shared()
    for stream in (sys.stdout, sys.stderr):  # what is buffered is written once, here
        with contextlib.suppress(AttributeError, OSError, ValueError):
            stream.flush()
    replies, reply_end = os.pipe()
    relayed = {} if writes else {fd: os.pipe() for fd in (1, 2)}
    with warnings.catch_warnings():  # a fork beside threads: the child only scans and ends
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child ends in os._exit
        _work_as_child(work, reply_end, relayed)
    os.close(reply_end)
    relays = {}
    for fd, (read_end, write_end) in relayed.items():
        os.close(write_end)
        relays[read_end] = fd
    pipes = ChildPipes(kept=[replies], passed=relays)
    ended = False
    try:
        _read_to_the_end(pipes, (pid, watch), give_up)
        sent = pipes.text(replies)
        os.waitpid(pid, 0)
        ended = True
    finally:
        pipes.close()
        if not ended:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            _reaped_soon(pid)
    try:
        done, value = pickle.loads(sent)  # noqa: S301 - our own child's bytes, through our pipe
    except Exception as error:  # noqa: BLE001 - whatever unpickling raises, said as one error
        msg = f"the child's value could not be read ({type(error).__name__})"
        raise ChildError(msg) from None
    if not done:
        raise ChildError(value)
    return value  # type: ignore[no-any-return]


def _read_to_the_end(
    pipes: ChildPipes, child: tuple[int, looking.Watch], give_up: GiveUp | None
) -> None:
    """Read ``pipes`` until the ``child`` (its pid, its looks) closes them; raise if given up."""
    pid, watch = child
    while not pipes.ended:
        left = POLL_SECONDS
        if give_up is not None:
            left = min(left, give_up.at - time.monotonic())
            if left <= 0:
                raise GaveUpError(looking.gave_up_words(watch, pid, give_up.named))
        if not pipes.read_for(left):
            look = looking.held(watch, pid)
            if look is not None:
                raise HeldError(look)


def _reaped_soon(pid: int) -> None:
    """Reap the killed child ``pid`` if it ends within :data:`REAP_SECONDS` (a held one won't)."""
    ends_at = time.monotonic() + REAP_SECONDS
    while True:
        try:
            done, _status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return
        if done or time.monotonic() >= ends_at:
            return
        time.sleep(POLL_SECONDS / 5)


def _work_as_child(  # pragma: no cover - runs in the child
    work: Callable[[], object], reply_end: int, relayed: dict[int, tuple[int, int]]
) -> None:
    """Do ``work`` (with only the relays for stdout and stderr, if any); send its value, and end.

    ``(True, value)``, or ``(False, what it raised)``.
    """
    try:
        for fd, (_read_end, write_end) in relayed.items():
            os.dup2(write_end, fd)
        if relayed:
            kept = sorted({0, 1, 2, reply_end})
            for low, high in itertools.pairwise([*kept, DESCRIPTORS_MAX]):
                os.closerange(low + 1, high)
        try:
            sent = pickle.dumps((True, work()))
        except BaseException as error:  # noqa: BLE001 - sent to the caller, as text
            sent = pickle.dumps((False, f"{type(error).__name__}: {error}"))
        view = memoryview(sent)
        while view:
            view = view[os.write(reply_end, view) :]
    finally:
        os._exit(0)
