"""Explicit unknown values: a field that could not be read, and why.

A field of a record is either its value or an :class:`Unknown` that carries the
reason. Nothing is ever ``None`` without a story: an unreadable cwd must never
look like a real, different checkout.
"""

from __future__ import annotations

import enum

import attrs

from runctx.record_base import Record


class Reason(enum.Enum):
    """Why a field is unknown."""

    DENIED = "denied"
    """The kernel refused the read (another user's cwd, a ``hidepid=`` mount)."""
    GONE = "gone"
    """The process exited between two reads."""
    ZOMBIE = "zombie"
    """The process has exited and waits to be reaped: it has no cwd and no argv."""
    ABSENT = "absent"
    """The file or line is not there on this kernel or system."""
    DELETED = "deleted"
    """The cwd was removed from the file system."""
    MISSING = "missing"
    """A path (not a process) does not exist: a directory named but never there, or gone."""
    UNPARSABLE = "unparsable"
    """The text was read but did not have the expected shape."""
    OTHER_NAMESPACE = "other-namespace"
    """The process lives in another mount namespace: its paths are not ours."""
    NOT_READ = "not-read"
    """No decision needed the field, so it was not read."""


@attrs.frozen(repr=False)  # compared per process of a scan: attrs' compiled eq
class Unknown(Record):
    """A value that could not be known, with the reason and optional detail."""

    reason: Reason
    detail: str = ""

    def __str__(self) -> str:
        """Render as ``unknown (reason: detail)``."""
        if self.detail:
            return f"unknown ({self.reason.value}: {self.detail})"
        return f"unknown ({self.reason.value})"


NOT_READ = Unknown(Reason.NOT_READ)
