"""Process sources: where records come from, chosen once.

Linux reads ``/proc`` directly (:mod:`runctx.procfs`); other systems use psutil
(:mod:`runctx.psutil_source`). Both give the same records with the same
explicit unknowns. ``RUNCTX_SOURCE=procfs|psutil`` (or ``--source``) picks one;
psutil can be picked on Linux, so that parity is tested on real processes.
"""

from __future__ import annotations

import os
from typing import Protocol

from runctx.exceptions import ConfigError
from runctx.records import ProcessTable, ProcRecord
from runctx.visibility import ProcMount

SOURCE_ENV = "RUNCTX_SOURCE"
SOURCE_NAMES = ("procfs", "psutil")


class ProcessSource(Protocol):
    """Reads the live processes of this system."""

    name: str

    def table(self) -> ProcessTable:
        """One pass over every live process: parent, state, start, argv."""

    def with_owner(self, record: ProcRecord) -> ProcRecord:
        """The record with its owner uid and cwd read (for processes of a run)."""

    def proc_mount(self) -> ProcMount | None:
        """The procfs mount options that limit what is seen (None where no procfs)."""

    def own_pid_namespace(self) -> bool:
        """Whether the pids this source reports are of the caller's pid namespace."""


def make_source(name: str) -> ProcessSource:
    """The source called ``name`` (``procfs`` or ``psutil``)."""
    if name == "procfs":
        from runctx.procfs import ProcfsSource  # noqa: PLC0415 - only the chosen source loads

        return ProcfsSource()
    if name == "psutil":
        from runctx.psutil_source import PsutilSource  # noqa: PLC0415

        return PsutilSource()
    choices = ", ".join(SOURCE_NAMES)
    msg = f"unknown process source {name!r} (choose one of: {choices})"
    raise ConfigError(msg)


def default_source() -> ProcessSource:
    """``$RUNCTX_SOURCE`` if set, else procfs where ``/proc`` exists, else psutil."""
    chosen = os.environ.get(SOURCE_ENV, "")
    if chosen:
        return make_source(chosen)
    if os.path.exists("/proc/self/stat"):
        return make_source("procfs")
    return make_source("psutil")
