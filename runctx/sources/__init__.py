"""Process sources: where records come from, chosen once.

Linux reads ``/proc`` directly (:mod:`runctx.sources.procfs`); other systems
use psutil (:mod:`runctx.sources.psutil`). Both give the same records with the
same explicit unknowns, and share the parts that do not depend on where the
facts come from (:mod:`runctx.sources.base`: the table loop, the identity
re-check). ``RUNCTX_SOURCE=procfs|psutil`` (or ``--source``) picks one; psutil
can be picked on Linux, so that parity is tested on real processes.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Protocol

from runctx.checkout import Root
from runctx.climb import ClimbBudget
from runctx.environment import Environment
from runctx.exceptions import ConfigError
from runctx.records import Inherited, ProcessTable, ProcIdentity, ProcRecord
from runctx.sources.load import Load
from runctx.sources.procfs import ProcfsSource
from runctx.sources.proctext import ProcMount
from runctx.unknown import Unknown

SOURCE_ENV = "RUNCTX_SOURCE"
SOURCE_NAMES = ("procfs", "psutil")


class ProcessSource(Protocol):
    """Reads the live processes of this system, and the box's load."""

    name: str

    def table(
        self,
        argv_wanted: Callable[[str], bool] | None = None,
        owner_wanted: Callable[[int, int | Unknown], bool] | None = None,
        deadline: float | None = None,
        viewer_uid: int | Unknown | None = None,
    ) -> ProcessTable:
        """One pass over every live process: parent, state, start, argv.

        ``argv_wanted`` says, from a process's ``comm``, whether its argv is
        worth reading; the others get ``Unknown(Reason.NOT_READ)`` as argv.
        ``owner_wanted``, from the pid and its owner (read first), whether
        a process is read at all; with ``viewer_uid`` (the uid the filter
        keeps), an owner that may be that uid's is given as that uid when
        telling would cost another read. At ``deadline``
        (:func:`time.monotonic`) the pass stops; the pids left are counted
        in ``not_read``.
        """

    def reuse_last_table(self) -> None:
        """Have the next ``table``, that one alone, reuse what the last one read of each pid.

        For a second pass made right after a first: no process the last table
        read is read again (see :meth:`runctx.sources.base.SourceBase.reuse_last_table`).
        """

    def root_of(self, pid: int, uid: int | Unknown, viewer_uid: int | Unknown) -> Root | Unknown:
        """The checkout root ``pid`` works in (its cwd and the walk from it alone)."""

    def view_key(self, pid: int) -> tuple[str, str, str] | None:
        """What makes ``pid``'s cwd one directory (mount namespace, root, cwd); None if not told."""

    def completed(
        self,
        table: ProcessTable,
        passed: set[int],
        runs: tuple[Callable[[ProcRecord], bool], Callable[[int], bool]],
        argv_wanted: Callable[[str], bool] | None,
        deadline: float | None = None,
    ) -> tuple[ProcessTable, int]:
        """``table`` with the ancestors and run descendants a filter ``passed``; how many read."""

    def with_ancestors(  # noqa: PLR0913 - what the table was read with, and the bounds
        self,
        table: ProcessTable,
        pids: Sequence[int],
        passed: set[int],
        argv_wanted: Callable[[str], bool] | None,
        *,
        at_most: int,
        deadline: float | None = None,
    ) -> tuple[ProcessTable, int]:
        """``table`` with at most ``at_most`` ancestors of ``pids`` left ``passed``; how many."""

    def running(self, pid: int) -> bool:
        """Whether ``pid`` is running on a CPU, or waiting for one, now (state ``R``)."""

    def current_identity(self, pid: int) -> ProcIdentity | Unknown:
        """The identity of the live process that holds ``pid`` now, or why none does."""

    def with_owner(
        self,
        record: ProcRecord,
        viewer_uid: int | Unknown | None = None,
        *,
        inherited: bool = False,
        climb: ClimbBudget | None = None,
    ) -> ProcRecord:
        """The record with its owner uid, cwd and checkout root read (for processes of a run).

        The root's markers count when root, the owner or ``viewer_uid`` (default:
        the caller's real uid) made them (:func:`runctx.checkout.rules_for`).
        With ``inherited``, the cgroup and terminal :meth:`inherited` tells are
        read now too, confirmed by the same reading of the identity. The walk
        to the root is charged to ``climb`` when it charges the owner
        (:meth:`~runctx.climb.ClimbBudget.charges`).
        """

    def environment(
        self,
        records: Sequence[ProcRecord],
        variables: Callable[[ProcIdentity], Mapping[str, str]] | None = None,
    ) -> Environment | Unknown:
        """The environment a run's processes import from (the authoritative one first)."""

    def load(self) -> Load:
        """Usable CPUs, load average, CPU pressure and memory now."""

    def cpu_read_in_table(self, process: ProcIdentity) -> tuple[float, float] | None:
        """When (:func:`time.monotonic`) and what CPU seconds the last ``table`` read of it."""

    def cpu_read_with_owner(self, process: ProcIdentity) -> tuple[float, float] | None:
        """When (:func:`time.monotonic`) and what CPU seconds ``with_owner`` read this scan.

        None when it did not read them (not asked to, or the source reads them apart).
        """

    def cpu_times(self, processes: Iterable[ProcIdentity]) -> dict[ProcIdentity, float | Unknown]:
        """The CPU seconds each process has used so far, read now; unknown for one gone."""

    def inherited(
        self,
        process: ProcIdentity,
        wanted: frozenset[str],
        *,
        skip_environ: Unknown | None = None,
    ) -> Inherited:
        """What ``process`` inherited at exec: the ``wanted`` variables, its cgroup, its terminal.

        With ``skip_environ`` the environment is not read at all, and that
        unknown stands for it.
        """

    def proc_mount(self) -> ProcMount | Unknown:
        """The procfs mount options that limit what is seen (absent where no procfs is read)."""

    def own_pid_namespace(self) -> bool:
        """Whether the pids this source reports are of the caller's pid namespace."""

    def caller_pid(self) -> int | Unknown:
        """The calling process's pid as this source numbers pids, or why it has none."""


PSUTIL_MODULE = "runctx.sources.psutil"
"""Imported only when the psutil source is chosen (psutil itself costs about 25 ms)."""


def make_source(name: str) -> ProcessSource:
    """The source called ``name`` (``procfs`` or ``psutil``)."""
    if name == "procfs":
        return ProcfsSource()
    if name == "psutil":
        source: ProcessSource = importlib.import_module(PSUTIL_MODULE).PsutilSource()
        return source
    choices = ", ".join(SOURCE_NAMES)
    msg = f"unknown process source {name!r} (choose one of: {choices})"
    raise ConfigError(msg)


def default_source() -> ProcessSource:
    """``$RUNCTX_SOURCE`` if set, else procfs on Linux or where ``/proc`` exists, else psutil.

    On Linux without a procfs at ``/proc`` (psutil reads it there too) the
    procfs source raises :class:`~runctx.exceptions.SourceError` saying so.
    """
    chosen = os.environ.get(SOURCE_ENV, "")
    if chosen:
        return make_source(chosen)
    if os.path.exists("/proc/self/stat") or sys.platform.startswith("linux"):
        return make_source("procfs")  # on Linux without /proc: a clear SourceError
    return make_source("psutil")
