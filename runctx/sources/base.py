"""What every process source shares: the table loop and the identity re-check.

A source says how to list pids, read one process, read its owner and read a
process's identity now; :class:`SourceBase` turns those into the
:class:`~runctx.sources.ProcessSource` protocol the same way for all of them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

import attrs

from runctx._log import log_unreadable
from runctx.checkout import Root, RootRules, rules_for
from runctx.climb import ClimbBudget
from runctx.environment import (
    MAX_WORDS,
    Environment,
    View,
    is_python_name,
    process_environment,
)
from runctx.looking import WATCH, Looked
from runctx.records import Inherited, ProcessTable, ProcIdentity, ProcRecord
from runctx.unknown import NOT_READ, Reason, Unknown

KERNEL_THREAD = Unknown(Reason.ABSENT, "kernel thread")
"""What reading a kernel thread gives: it is no process a test run can hold."""
PID_REUSED = Unknown(Reason.GONE, "pid reused or exited during the scan")
MAX_ENVIRONMENT_PROCESSES = 16
"""The processes of a run looked at for its environment, the authoritative one first."""
NO_ENVIRONMENT = Unknown(Reason.ABSENT, "no Python or node process shows one")
_CONFIRMED_MAX = 65536
"""The authorities whose cgroup and terminal one scan keeps from :meth:`SourceBase.with_owner`."""
PASSED_READ_PER_WALKED = 2
"""Passed processes whose parents are read rather than walk down one run's process.

Going down from a process lists its threads and reads each one's children
(six to eight system calls); reading a passed process's parent is one read
of its ``stat`` (three).
"""


def _may_show_one(comm: str, argv: Sequence[str]) -> bool:
    """Whether a process can show an environment: a Python, or a command naming node_modules.

    Decided from what the table read already (the kernel's name of the
    program, the argv), so that the other processes of a run cost no read.
    """
    if is_python_name(comm) or is_python_name(argv[0].rpartition("/")[2]):
        return True
    return "node_modules" in "\0".join(argv[:MAX_WORDS])


OTHER_USERS_ENVIRON = Unknown(
    Reason.DENIED, "another user's process: its environment is never read"
)
UNKNOWN_OWNERS_ENVIRON = Unknown(
    Reason.DENIED, "its owner is not known: its environment is not read"
)


def _inherited_paths(variables: Mapping[str, str]) -> dict[str, str | None]:
    """``virtual_env`` and ``search_path`` for :func:`runctx.environment.process_environment`."""
    return {"virtual_env": variables.get("VIRTUAL_ENV"), "search_path": variables.get("PATH")}


class ReadWithOwner(NamedTuple):
    """What a full scan reads of a run's authority with its owner, under one identity check."""

    cgroup: str | Unknown
    tty: bool | Unknown
    cpu: tuple[float, float] | None
    """When (:func:`time.monotonic`) its CPU seconds were read, and they; None if not read."""


class _Kept(NamedTuple):
    """What one :meth:`SourceBase.table` learnt of one listed pid, for the next to reuse."""

    uid: int | Unknown | None
    """The owner the filter was given; None when no filter asked."""
    read: ProcRecord | Unknown | None
    """The record, or why there is none; None when the filter passed the pid unread."""
    at: float
    """When (:func:`time.monotonic`) it was read."""


def _argv_was_read(record: ProcRecord) -> bool:
    argv = record.argv
    return not (isinstance(argv, Unknown) and argv.reason is Reason.NOT_READ)


def _reusable(kept: _Kept | None) -> _Kept | None:
    """A pid's last read, when it holds for the pid listed again: a record, a kernel thread, a pass.

    A pid whose read failed (gone, a zombie, unreadable) and is listed again
    may be held by another process now: it is read again, owner and all.
    """
    if kept is None:
        return None
    read = kept.read
    return kept if read is None or isinstance(read, ProcRecord) or read == KERNEL_THREAD else None


def _read_argv(_comm: str) -> bool:
    return True


def _no_argv(_comm: str) -> bool:
    return False


class SourceBase:
    """The shared half of a process source; subclasses read, this assembles."""

    name = "base"
    _last_table: tuple[int | Unknown | None, dict[int, _Kept]] | None = None
    """The viewer uid of the last :meth:`table` and what it learnt of each pid it listed."""
    _reuse_next = False
    """Whether the next :meth:`table` reuses :attr:`_last_table` (:meth:`reuse_last_table`)."""
    _in_table: dict[int, tuple[int, float, float]]
    """Each process the last :meth:`table` read: its start, when, and its CPU seconds."""
    _confirmed: dict[ProcIdentity, ReadWithOwner]
    """What :meth:`with_owner` read of each authority it was asked to, this scan.

    Read before (or with) the identity check that confirmed the owner: that
    one read of the identity vouches for them too, so :meth:`inherited` and
    a CPU window's first reading need not read them (and the identity) again.
    """
    _rules: dict[tuple[int | Unknown, int | Unknown], RootRules]
    """The root rules of each viewer and owner :meth:`with_owner` asked for, this scan."""

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

    def _uid(self, pid: int) -> int | Unknown:
        """The real uid of one process alone (a source that can read it alone says so)."""
        return self._owner(pid)[0]

    def _filter_uid(self, pid: int, viewer_uid: int | Unknown | None) -> int | Unknown:
        """The owner a filter for ``viewer_uid`` is given: here the real uid (``_uid``)."""
        del viewer_uid
        return self._uid(pid)

    def _cwd(self, pid: int) -> str | Unknown:
        """The cwd of one process alone."""
        return self._owner(pid)[1]

    def root_of(self, pid: int, uid: int | Unknown, viewer_uid: int | Unknown) -> Root | Unknown:
        """The checkout root ``pid`` works in, by the markers of root, ``uid`` and the viewer.

        Only the cwd and the walk from it: what asks whether another user's
        process works in this very checkout needs nothing more of it.
        """
        return self._root(pid, self._cwd(pid), rules_for([viewer_uid, uid]))

    def _root(
        self, pid: int, cwd: str | Unknown, rules: RootRules, budget: ClimbBudget | None = None
    ) -> Root | Unknown:
        """The checkout root of the cwd of one process, or why it is not known.

        The walk is charged to ``budget`` when one is given.
        """
        raise NotImplementedError

    def current_identity(self, pid: int) -> ProcIdentity | Unknown:
        """The identity of the live process that holds ``pid`` now, or why none does."""
        raise NotImplementedError

    def _executable(self, pid: int) -> tuple[str, tuple[int, int]] | Unknown:
        """The path of the file ``pid`` executes (as its link names it) and that file's id."""
        raise NotImplementedError

    def _view(self, pid: int) -> tuple[View, str | None] | Unknown:
        """How ``pid`` sees paths (its root, its cwd), and its cwd as text when known."""
        raise NotImplementedError

    def environment(
        self,
        records: Sequence[ProcRecord],
        variables: Callable[[ProcIdentity], Mapping[str, str]] | None = None,
    ) -> Environment | Unknown:
        """The environment a run imports from: the first of its processes that shows one.

        ``records`` are the run's processes, the authoritative one first;
        ``variables`` gives a process's ``$VIRTUAL_ENV`` and ``$PATH`` where
        they may be read (see :mod:`runctx.environment` for the order of the
        facts). A process whose pid changed hands while it was read tells nothing.
        """
        first_unknown: Unknown | None = None
        for record in records[:MAX_ENVIRONMENT_PROCESSES]:
            argv = record.argv
            if isinstance(argv, Unknown) or not argv or not _may_show_one(record.comm, argv):
                continue
            WATCH.at(record.pid, Looked.EXECUTABLE)  # its files: told to whoever waits
            try:
                found = self._environment_of(record, argv, variables)
            finally:
                WATCH.done()
            if isinstance(found, Unknown):
                first_unknown = first_unknown or found
            elif found is not None:
                return found
        return first_unknown or NO_ENVIRONMENT

    def _environment_of(
        self,
        record: ProcRecord,
        argv: tuple[str, ...],
        variables: Callable[[ProcIdentity], Mapping[str, str]] | None,
    ) -> Environment | Unknown | None:
        """The environment one process shows, why it cannot be read, or None: it shows none."""
        executable = self._executable(record.pid)
        if isinstance(executable, Unknown):
            return executable
        view = self._view(record.pid)
        if isinstance(view, Unknown):
            return view
        found = process_environment(
            view[0],
            argv,
            executable=executable[0],
            executable_id=executable[1],
            cwd=view[1],
            **_inherited_paths(variables(record.identity) if variables is not None else {}),
        )
        if self.current_identity(record.pid) != record.identity:
            return None
        return found

    def _cpu_now(self, pid: int) -> tuple[ProcIdentity, float] | Unknown:
        """The identity of the process holding ``pid`` and its CPU seconds, in one reading."""
        raise NotImplementedError

    def _environ(self, pid: int, wanted: frozenset[str]) -> dict[str, str] | Unknown:
        """The ``wanted`` variables of the environment ``pid`` was started with."""
        raise NotImplementedError

    def _cgroup(self, pid: int) -> str | Unknown:
        """The path systemd files ``pid`` under."""
        raise NotImplementedError

    def _tty(self, pid: int) -> bool | Unknown:
        """Whether ``pid`` has a controlling terminal."""
        raise NotImplementedError

    def _own_environ(self, pid: int, wanted: frozenset[str]) -> dict[str, str] | Unknown:
        """The ``wanted`` variables of ``pid`` when it runs as the reader's own real uid.

        The one read rule, checked per process at the read: another user's
        environment is never read, for any process, whoever reads (root too).
        """
        uid = self._owner(pid)[0]
        if isinstance(uid, Unknown):
            return UNKNOWN_OWNERS_ENVIRON
        if uid != os.getuid():
            return OTHER_USERS_ENVIRON
        return self._environ(pid, wanted)

    def _identity_and_tty(self, pid: int) -> tuple[ProcIdentity | Unknown, bool | Unknown]:
        """The identity of the process holding ``pid`` and whether it has a terminal."""
        return self.current_identity(pid), self._tty(pid)

    def _identity_tty_and_cpu(
        self, pid: int
    ) -> tuple[ProcIdentity | Unknown, bool | Unknown, tuple[float, float] | None]:
        """:meth:`_identity_and_tty`, and the CPU seconds when the same reading gives them.

        With when they were read (:func:`time.monotonic`); None where a source
        reads them apart (a CPU window then reads them itself).
        """
        now, tty = self._identity_and_tty(pid)
        return now, tty, None

    def cpu_read_in_table(self, process: ProcIdentity) -> tuple[float, float] | None:
        """When and what CPU seconds the last :meth:`table` read of ``process``, if it did."""
        found = self._in_table_now().get(process.pid)
        if found is None or found[0] != process.start:
            return None
        return found[1], found[2]

    def _in_table_now(self) -> dict[int, tuple[int, float, float]]:
        """Each process the last :meth:`table` read: its start, when, its CPU seconds."""
        try:
            return self._in_table
        except AttributeError:
            self._in_table = {}
            return self._in_table

    def cpu_read_with_owner(self, process: ProcIdentity) -> tuple[float, float] | None:
        """When and what CPU seconds :meth:`with_owner` read of ``process`` this scan, if it did."""
        found = self._confirmed_now().get(process)
        return None if found is None else found.cpu

    def cpu_times(self, processes: Iterable[ProcIdentity]) -> dict[ProcIdentity, float | Unknown]:
        """The CPU seconds each process has used so far, read now.

        A process whose pid is gone, or now names another process, is an
        unknown (``gone``): its time is never taken from the newcomer.
        """
        found: dict[ProcIdentity, float | Unknown] = {}
        for process in processes:
            reading = self._cpu_now(process.pid)
            if isinstance(reading, Unknown):
                found[process] = reading
            elif reading[0] != process:
                found[process] = PID_REUSED
            else:
                found[process] = reading[1]
        return found

    def inherited(
        self,
        process: ProcIdentity,
        wanted: frozenset[str],
        *,
        skip_environ: Unknown | None = None,
    ) -> Inherited:
        """What ``process`` inherited at exec: the ``wanted`` variables, its cgroup, its terminal.

        The identity is read after the rest, with the terminal: when ``pid``
        is still held by ``process`` then, it was held by it all along (a
        process's pid and start time never come back once it exits). A pid
        that changed hands gives nothing (every field ``gone``), so facts of
        one process are never told about another. The cgroup and terminal
        :meth:`with_owner` read this scan, before the identity that vouched
        for them, are not read again.
        """
        pid = process.pid
        confirmed = self._confirmed_now().get(process)
        environ = skip_environ if skip_environ is not None else self._own_environ(pid, wanted)
        if confirmed is not None and skip_environ is not None:
            # Read with the owner, before the identity that confirmed it: nothing left to read.
            now: ProcIdentity | Unknown = process
            cgroup, tty = confirmed.cgroup, confirmed.tty
        elif confirmed is not None:
            cgroup, tty = confirmed.cgroup, confirmed.tty
            now = self.current_identity(pid)  # the environment was read after that identity
        else:
            cgroup = self._cgroup(pid)
            now, tty = self._identity_and_tty(pid)
        if now != process:
            gone = now if isinstance(now, Unknown) else PID_REUSED
            return Inherited(environ=gone, cgroup=gone, tty=gone)
        pairs = environ if isinstance(environ, Unknown) else tuple(sorted(environ.items()))
        # An environment the caller chose not to read (another user's) is no failure to tell.
        unread = environ if skip_environ is None else None
        if isinstance(unread, Unknown) or isinstance(cgroup, Unknown) or isinstance(tty, Unknown):
            log_unreadable(pid, environ=unread, cgroup=cgroup, tty=tty)
        return Inherited(environ=pairs, cgroup=cgroup, tty=tty)

    def _rules_of(self, viewer: int | Unknown, owner: int | Unknown) -> RootRules:
        """:func:`rules_for` the viewer and a run's owner, made once per pair each scan."""
        try:
            known = self._rules
        except AttributeError:
            known = self._rules = {}
        rules = known.get((viewer, owner))
        if rules is None:
            rules = known[viewer, owner] = rules_for([viewer, owner])
        return rules

    def _confirmed_now(self) -> dict[ProcIdentity, ReadWithOwner]:
        """What :meth:`with_owner` read of each authority this scan (emptied by :meth:`table`)."""
        try:
            return self._confirmed
        except AttributeError:
            self._confirmed = {}
            return self._confirmed

    def reuse_last_table(self) -> None:
        """Have the next :meth:`table`, that one alone, reuse what the last one read.

        For a second pass made right after a first (a hook's optional pass,
        after the pass that decided the refusal): each pid still listed is
        not read again when the last table read it (its record, its owner,
        that it is a kernel thread), nor is its owner when the last table's
        filter was given it. What the next table makes of them is what a
        fresh read would make of the same processes: its own filters decide
        which are kept, and which have their command line (read now where
        the last table left it unread, left unread where the next one would
        not read it). A process that exited in between is listed no more; a
        pid reused in between keeps the old record until the identity check
        of its run (:meth:`with_owner`) finds it changed hands. A process
        whose read failed is read again. Only a table for the same
        ``viewer_uid`` reuses: the owner a filter is given depends on it.
        """
        self._reuse_next = True

    def _handed_over(self, viewer_uid: int | Unknown | None) -> dict[int, _Kept]:
        """What the last table left this one to reuse (once; nothing unless asked)."""
        last, reuse = self._last_table, self._reuse_next
        self._reuse_next = False
        if not reuse or last is None or last[0] != viewer_uid:
            return {}
        return last[1]

    def _reused(
        self,
        kept: _Kept | None,
        pid: int,
        now: float,
        argv_wanted: Callable[[str], bool] | None,
    ) -> tuple[float, ProcRecord | Unknown]:
        """``pid``'s record as a read now with ``argv_wanted`` gives it, and when it was read.

        From ``kept`` (the last table's) where it holds a record or a kernel
        thread: its command line is read now only when this table wants it
        and the last one left it unread.
        """
        read = None if kept is None else kept.read
        if kept is not None and read == KERNEL_THREAD:
            return kept.at, KERNEL_THREAD
        if kept is None or not isinstance(read, ProcRecord):
            return time.monotonic(), self._read(pid, now, argv_wanted)
        wanted = argv_wanted is None or argv_wanted(read.comm)
        if wanted and not _argv_was_read(read):
            return time.monotonic(), self._read(pid, now, _read_argv)
        if not wanted and _argv_was_read(read):
            return kept.at, read._replace(argv=NOT_READ)
        return kept.at, read

    def _owner_of(
        self, kept: _Kept | None, pid: int, viewer_uid: int | Unknown | None
    ) -> int | Unknown:
        """The owner a filter is given of ``pid``: the last table's, else read (one ``stat``)."""
        if kept is not None and isinstance(kept.uid, int):
            return kept.uid
        return self._filter_uid(pid, viewer_uid)

    def _forget_the_last_pass(self) -> None:
        """What a source kept for one pass over the table (walks, mounts) is dropped."""

    def table(
        self,
        argv_wanted: Callable[[str], bool] | None = None,
        owner_wanted: Callable[[int, int | Unknown], bool] | None = None,
        deadline: float | None = None,
        viewer_uid: int | Unknown | None = None,
    ) -> ProcessTable:
        """One pass over every listed process; argvs only where ``argv_wanted`` says so.

        With ``owner_wanted``, each process has its owner read first, and is
        read at all only when ``owner_wanted(pid, uid)`` says yes (a first
        pass leaves other users' processes out). At ``deadline``
        (:func:`time.monotonic`) the pass stops: the pids left are counted
        as not read. After :meth:`reuse_last_table`, what the last table
        read is not read again.
        """
        self._forget_the_last_pass()
        now = self._now()
        self._confirmed = {}
        self._rules = {}
        self._in_table = in_table = {}
        handed = self._handed_over(viewer_uid)
        learnt: dict[int, _Kept] = {}
        records: dict[int, ProcRecord] = {}
        unreadable = zombies = kernel_threads = not_read = 0
        pids = self._pids()
        for index, pid in enumerate(pids):
            if deadline is not None and time.monotonic() >= deadline:
                not_read = len(pids) - index
                break
            kept = _reusable(handed.get(pid))
            uid: int | Unknown | None = None
            if owner_wanted is not None:
                uid = self._owner_of(kept, pid, viewer_uid)
                if not owner_wanted(pid, uid):
                    learnt[pid] = _Kept(uid, None, 0.0)
                    continue
            at, record = self._reused(kept, pid, now, argv_wanted)
            learnt[pid] = _Kept(uid, record, at)
            if isinstance(record, ProcRecord):
                records[pid] = record
                if isinstance(record.cpu_seconds, float):
                    in_table[pid] = (record.start, at, record.cpu_seconds)
            elif record.reason is Reason.ZOMBIE:
                zombies += 1
            elif record == KERNEL_THREAD:
                kernel_threads += 1
            elif record.reason is not Reason.GONE:
                unreadable += 1
        self._last_table = (viewer_uid, learnt)
        return ProcessTable(
            records=records,
            listed=len(pids),
            unreadable=unreadable,
            zombies=zombies,
            kernel_threads=kernel_threads,
            not_read=not_read,
        )

    def view_key(self, pid: int) -> tuple[str, str, str] | None:
        """What makes ``pid``'s cwd one directory: its mount namespace, its root, its cwd.

        Two processes of one key work in the same directory, seen the same
        way, so from the same checkout root. None where the source cannot
        tell it cheaply, or it cannot be told (a removed cwd): such a process
        is read whole. A source that gives keys lists children too
        (:meth:`completed`).
        """
        del pid
        return None

    def _children(self, pid: int) -> list[int]:
        """The pids of ``pid``'s children now (none once it is gone)."""
        raise NotImplementedError

    def _parent(self, pid: int) -> int | Unknown:
        """The pid of ``pid``'s parent now (one ``stat``), or why it cannot be told."""
        raise NotImplementedError

    def _children_by_parents(
        self,
        passed: set[int],
        records: Mapping[int, ProcRecord],
        out_of_time: Callable[[], bool],
    ) -> Callable[[int], list[int]]:
        """The children of a pid among ``records`` and ``passed``, as their parents say.

        One ``stat`` of each passed process, where the kernel's lists of
        children take several reads of each process a walk goes down from.
        """
        below: dict[int, list[int]] = {}
        for pid, record in records.items():
            below.setdefault(record.ppid, []).append(pid)
        for pid in list(passed):
            if out_of_time():
                break
            parent = self._parent(pid)
            if not isinstance(parent, Unknown):
                below.setdefault(parent, []).append(pid)
        return lambda pid: below.get(pid, [])

    def completed(
        self,
        table: ProcessTable,
        passed: set[int],
        runs: tuple[Callable[[ProcRecord], bool], Callable[[int], bool]],
        argv_wanted: Callable[[str], bool] | None,
        deadline: float | None = None,
    ) -> tuple[ProcessTable, int]:
        """``table`` with what its runs need of the processes a filter ``passed`` unread.

        A first pass passes the viewer's own processes that work in another
        checkout (:meth:`view_key`): none of them is a run of this one. But a
        run found here may have such a process above it (a runner elsewhere
        that started it, into whose run it folds) or below it (a worker, or
        the runner a wrapper or task here started, that moved elsewhere). So
        the ancestors of every process read are read, and every descendant
        of a process in a run (``runs``: whether a record starts or is part of
        a run, and whether a pid is the viewer's), through the children the
        kernel lists: the runs then fold as a table of every process would
        fold them. Only the viewer's processes are gone down from: what is
        passed is the viewer's, and another user's processes (a storm in a
        tree it can write) cost nothing here. Where the passed processes are
        few beside the processes of runs (a run thousands of processes deep),
        the parent of each passed one is read instead of the children of each
        run's process (:data:`PASSED_READ_PER_WALKED`): the same descendants,
        found in a fraction of the reads. How many passed processes were read
        is returned with the table. Reading stops at ``deadline``.
        """
        in_a_run, mine = runs
        records = dict(table.records)
        now = self._now()

        def out_of_time() -> bool:
            return deadline is not None and time.monotonic() >= deadline

        self._read_ancestors(list(records), records, (passed, now), argv_wanted, out_of_time)
        queue = [pid for pid, record in records.items() if mine(pid) and in_a_run(record)]
        seen = set(queue)
        children_of: Callable[[int], list[int]] = self._children
        if queue and len(passed) <= PASSED_READ_PER_WALKED * len(queue):
            children_of = self._children_by_parents(passed, records, out_of_time)
        while queue and not out_of_time():
            for child in children_of(queue.pop()):
                if child not in seen:
                    seen.add(child)
                    if child in passed:
                        self._read_passed(child, now, argv_wanted, passed, records)
                    if child in records and mine(child):
                        queue.append(child)
        return attrs.evolve(table, records=records), len(records) - len(table.records)

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
        """``table`` with the ancestors of ``pids`` that a filter ``passed``; how many were read.

        Gone up from each of ``pids`` (read already) while the parent is one
        ``passed`` left unread: a process read apart from the others (a running
        one of another user) then folds into the run that started it. At most
        ``at_most`` are read (another user's chain of thousands costs no more),
        none past ``deadline``.
        """
        records = dict(table.records)

        def out_of_time() -> bool:
            past = deadline is not None and time.monotonic() >= deadline
            return past or len(records) - len(table.records) >= at_most

        starts = [pid for pid in pids if pid in records]
        self._read_ancestors(starts, records, (passed, self._now()), argv_wanted, out_of_time)
        return attrs.evolve(table, records=records), len(records) - len(table.records)

    def running(self, pid: int) -> bool:
        """Whether ``pid`` is running on a CPU, or waiting for one, now (state ``R``).

        One reading of the process, its command line not read.
        """
        read = self._read(pid, 0.0, _no_argv)
        return isinstance(read, ProcRecord) and read.state == "R"

    def _read_ancestors(
        self,
        starts: Sequence[int],
        records: dict[int, ProcRecord],
        passed_at: tuple[set[int], float],
        argv_wanted: Callable[[str], bool] | None,
        out_of_time: Callable[[], bool],
    ) -> None:
        """Read into ``records`` the ancestors of ``starts`` the filter passed (clock: ``now``)."""
        passed, now = passed_at
        for pid in starts:
            parent = records[pid].ppid
            while parent in passed and not out_of_time():
                above = self._read_passed(parent, now, argv_wanted, passed, records)
                if above is None:
                    break
                parent = above.ppid

    def _read_passed(
        self,
        pid: int,
        now: float,
        argv_wanted: Callable[[str], bool] | None,
        passed: set[int],
        records: dict[int, ProcRecord],
    ) -> ProcRecord | None:
        """Read ``pid``, which the last table's filter passed: added to ``records``, or None.

        What is read is kept for the next table to reuse, and its CPU reading
        counts as the table's, as if the table had read it.
        """
        passed.discard(pid)
        at = time.monotonic()
        record = self._read(pid, now, argv_wanted)
        if self._last_table is not None:
            kept = self._last_table[1].get(pid)
            self._last_table[1][pid] = _Kept(kept.uid if kept is not None else None, record, at)
        if not isinstance(record, ProcRecord):
            return None
        records[pid] = record
        if isinstance(record.cpu_seconds, float):
            self._in_table[pid] = (record.start, at, record.cpu_seconds)
        return record

    def with_owner(
        self,
        record: ProcRecord,
        viewer_uid: int | Unknown | None = None,
        *,
        inherited: bool = False,
        climb: ClimbBudget | None = None,
    ) -> ProcRecord:
        """The record with its uid, cwd and root read; unknown if it exited meanwhile.

        The root's markers count when root, the owner or ``viewer_uid`` (default:
        the caller's real uid) made them. The identity is read again after the
        owner: a process that turned zombie keeps what could still be read of
        it (its cwd is then unknown), one whose pid changed hands, or that is
        gone, has none of them. With ``inherited`` (a scan that will ask
        :meth:`inherited` of this process) its cgroup and terminal are read
        too, before that identity, which then vouches for them as well; and
        the CPU seconds that reading gives are kept (:meth:`cpu_read_with_owner`).
        The walk to the root is charged to ``climb`` when it charges the owner.
        """
        pid = record.pid
        uid, cwd = self._owner(pid)
        viewer = os.getuid() if viewer_uid is None else viewer_uid
        charged = climb if climb is not None and climb.charges(uid, viewer) else None
        root = self._root(pid, cwd, self._rules_of(viewer, uid), charged)
        identity = record.identity
        if inherited:
            cgroup = self._cgroup(pid)
            now, tty, cpu = self._identity_tty_and_cpu(pid)
            confirmed = self._confirmed_now()
            if now == identity and len(confirmed) < _CONFIRMED_MAX:
                confirmed[identity] = ReadWithOwner(cgroup, tty, cpu)
        else:
            now = self.current_identity(pid)
        if now != identity and not (isinstance(now, Unknown) and now.reason is Reason.ZOMBIE):
            uid = cwd = root = PID_REUSED
        if isinstance(uid, Unknown) or isinstance(cwd, Unknown) or isinstance(root, Unknown):
            log_unreadable(pid, uid=uid, cwd=cwd, root=root)
        return record._replace(uid=uid, cwd=cwd, root=root)
