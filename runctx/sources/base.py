"""What every process source shares: the table loop and the identity re-check.

A source says how to list pids, read one process, read its owner and read a
process's identity now; :class:`SourceBase` turns those into the
:class:`~runctx.sources.ProcessSource` protocol the same way for all of them.
"""

from __future__ import annotations

from collections.abc import Callable

from runctx._log import log_unreadable
from runctx.records import ProcessTable, ProcIdentity, ProcRecord
from runctx.unknown import Reason, Unknown

KERNEL_THREAD = Unknown(Reason.ABSENT, "kernel thread")
"""What reading a kernel thread gives: it is no process a test run can hold."""
PID_REUSED = Unknown(Reason.GONE, "pid reused or exited during the scan")


class SourceBase:
    """The shared half of a process source; subclasses read, this assembles."""

    name = "base"

    def _now(self) -> float:
        """The clock the ages of this source's records count to."""
        raise NotImplementedError

    def _pids(self) -> list[int]:
        """Every pid the source lists now (threads are not listed)."""
        raise NotImplementedError

    def _read(
        self, pid: int, now: float, argv_wanted: Callable[[str], bool] | None = None
    ) -> ProcRecord | Unknown:
        """The record of one process (uid and cwd not read), or why there is none.

        Its argv is read only when ``argv_wanted`` is None or says yes to its ``comm``.
        """
        raise NotImplementedError

    def _owner(self, pid: int) -> tuple[int | Unknown, str | Unknown]:
        """The real uid and the cwd of one process, each a value or why not."""
        raise NotImplementedError

    def current_identity(self, pid: int) -> ProcIdentity | Unknown:
        """The identity of the live process that holds ``pid`` now, or why none does."""
        raise NotImplementedError

    def read_process(self, pid: int) -> ProcRecord | Unknown:
        """The record of one live process, or why there is none.

        A process that is gone, unreadable, a zombie or a kernel thread has no
        record: none of those is a live test process.
        """
        return self._read(pid, self._now())

    def table(self, argv_wanted: Callable[[str], bool] | None = None) -> ProcessTable:
        """One pass over every listed process; argvs only where ``argv_wanted`` says so."""
        now = self._now()
        records: dict[int, ProcRecord] = {}
        unreadable = zombies = kernel_threads = 0
        pids = self._pids()
        for pid in pids:
            record = self._read(pid, now, argv_wanted)
            if isinstance(record, ProcRecord):
                records[pid] = record
            elif record.reason is Reason.ZOMBIE:
                zombies += 1
            elif record == KERNEL_THREAD:
                kernel_threads += 1
            elif record.reason is not Reason.GONE:
                unreadable += 1
        return ProcessTable(
            records=records,
            listed=len(pids),
            unreadable=unreadable,
            zombies=zombies,
            kernel_threads=kernel_threads,
        )

    def with_owner(self, record: ProcRecord) -> ProcRecord:
        """The record with its uid and cwd read; both unknown if it exited meanwhile.

        The identity is read again after the owner: a process that turned
        zombie keeps what could still be read of it (its cwd is then unknown),
        one whose pid changed hands, or that is gone, has neither.
        """
        uid, cwd = self._owner(record.pid)
        now = self.current_identity(record.pid)
        turned_zombie = isinstance(now, Unknown) and now.reason is Reason.ZOMBIE
        if not turned_zombie and now != record.identity:
            uid = cwd = PID_REUSED
        log_unreadable(record.pid, uid=uid, cwd=cwd)
        return record._replace(uid=uid, cwd=cwd)
