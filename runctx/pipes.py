"""A child's pipes, read as it writes them: what it sends kept, what it says passed on.

Every face that does its scan in a child (the hook, ``status``/``check``/
``wait``/``stop``, the check of ``run``, the frames of ``status --watch``,
the pytest plugin) reads the child's pipes the same way:
:class:`ChildPipes` polls their read ends, keeps what comes on some (the
child's value or reply) and writes what comes on others on this process's own
descriptors as it comes (the child's stdout and stderr). Each caller decides
between two reads what a quiet child means: a deadline passed, or a look at a
file system that holds it (:mod:`runctx.looking`).
"""

from __future__ import annotations

import contextlib
import os
import select
from collections.abc import Iterable, Mapping

READ_BYTES = 65536
"""The most one read takes from a pipe."""


class ChildPipes:
    """The read ends of a child's pipes: each kept (its bytes) or passed on (to a descriptor)."""

    def __init__(self, kept: Iterable[int] = (), passed: Mapping[int, int] | None = None) -> None:
        """Keep what comes on ``kept``; write what comes on ``passed`` (read end -> fd) there."""
        self.kept: dict[int, list[bytes]] = {fd: [] for fd in kept}
        self.passed = dict(passed or {})
        self.open = {*self.kept, *self.passed}
        self._owned = set(self.open)
        self.unwritten: set[int] = set()
        """The descriptors written on whose reader went away (what came for them is dropped)."""
        self._poller = select.poll()
        for fd in self.open:
            self._poller.register(fd, select.POLLIN)

    @property
    def ended(self) -> bool:
        """Whether the child closed (or left by ending) every pipe."""
        return not self.open

    def read_for(self, seconds: float | None) -> bool:
        """Read what the child wrote within ``seconds`` (None: until it writes); whether it did.

        A pipe the child closed counts as written to.
        """
        timeout = None if seconds is None else max(0.0, seconds) * 1000
        ready = self._poller.poll(timeout)
        for fd, _event in ready:
            chunk = os.read(fd, READ_BYTES)
            if not chunk:
                self._poller.unregister(fd)
                self.open.discard(fd)
            elif fd in self.kept:
                self.kept[fd].append(chunk)
            else:
                self._write_on(self.passed[fd], chunk)
        return bool(ready)

    def text(self, fd: int) -> bytes:
        """All that came on the kept read end ``fd``."""
        return b"".join(self.kept[fd])

    def _write_on(self, fd: int, data: bytes) -> None:
        """``data`` written on ``fd``; dropped (and ``fd`` marked) when its reader is gone."""
        try:
            while data:
                data = data[os.write(fd, data) :]
        except OSError:
            self.unwritten.add(fd)

    def close(self) -> None:
        """Close every read end, once (a child left waiting keeps its own write ends)."""
        for fd in self._owned:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._owned.clear()
        self.open.clear()
