"""Take a scan: read the processes, fold them into runs, judge each run."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence

import attrs

from runctx._log import INFO, log_event
from runctx.checkout import Root, rules_for, same_directory
from runctx.climb import ClimbBudget, was_not_climbed
from runctx.cpu_window import CpuReading, cpu_now, read_cpu, second_reading
from runctx.environment import Environment, same_environment
from runctx.folding import (
    WORKER_ROLE,
    FoldedRun,
    ancestor_names,
    fold_runs,
    live_parent,
    reparented,
)
from runctx.identity import Judgement, can_write, judge
from runctx.modes import Mode
from runctx.record_base import Record
from runctx.records import Inherited, ProcessTable, ProcIdentity, ProcRecord
from runctx.report import CUT_NOTE, JudgedRun, Report, Run, StartedBy, Viewpoint
from runctx.roots import checkout_root, root_at
from runctx.runners import RunnerMatch, RunnerPattern, detect_runner
from runctx.runners.comms import argv_filter
from runctx.settings import DEFAULTS, Settings
from runctx.sources import ProcessSource, default_source
from runctx.sources.base import MAX_ENVIRONMENT_PROCESSES
from runctx.sources.visibility import Visibility, describe_limits
from runctx.started_by import WANTED, started_by
from runctx.unknown import NOT_READ, Reason, Unknown


def viewpoint(
    *,
    cwd: str | None = None,
    root: str | Unknown | None = None,
    uid: int | Unknown | None = None,
) -> Viewpoint:
    """The viewpoint of the current process, or of the root and uid given.

    ``root`` defaults to the checkout root of ``cwd`` (the current directory),
    found with the markers root and ``uid`` may make
    (:func:`runctx.checkout.rules_for`); a ``root`` given is that directory
    itself. ``uid`` defaults to the caller's real uid.
    """
    if uid is None:
        uid = os.getuid()
    here_root: Root | Unknown
    if root is None:
        try:
            here_cwd = cwd if cwd is not None else os.getcwd()
        except FileNotFoundError:
            here_root = Unknown(Reason.DELETED, "the current directory was removed")
        else:
            here_root = checkout_root(here_cwd, rules_for([uid]))
    elif isinstance(root, Unknown):
        here_root = root
    else:
        here_root = root if isinstance(root, Root) else root_at(root)
    return Viewpoint(root=here_root, uid=uid)


def total(values: Sequence[float | Unknown]) -> float | Unknown:
    """The sum of the members' values, or why it is not known (a member's was not)."""
    missing = [value for value in values if isinstance(value, Unknown)]
    if missing:
        return Unknown(missing[0].reason, f"{len(missing)} of {len(values)} processes unreadable")
    return sum(value for value in values if not isinstance(value, Unknown))


def _whole(value: float | Unknown) -> int | Unknown:
    return value if isinstance(value, Unknown) else int(value)


def _run_of(  # noqa: PLR0913 - the run's facts, each read apart
    authority: ProcRecord,
    found: FoldedRun,
    records: Mapping[int, ProcRecord],
    below_caller: _Below | None,
    environment: Environment | Unknown,
    *,
    who: StartedBy | Unknown = NOT_READ,
) -> Run:
    members = tuple(pid for pid in found.members if pid in records)
    if len(members) == 1:  # most runs of a busy box: nothing to add up
        cpu_seconds: float | Unknown = records[members[0]].cpu_seconds
        rss_bytes: float | Unknown = records[members[0]].rss_bytes
    else:
        cpu_seconds = total([records[pid].cpu_seconds for pid in members])
        rss_bytes = total([records[pid].rss_bytes for pid in members])
    return Run(
        environment=environment,
        started_by=who,
        pid=authority.pid,
        start=authority.start,
        kind=found.kind,
        argv=authority.argv,
        uid=authority.uid,
        cwd=authority.cwd,
        root=authority.root,
        processes=tuple(records[pid].identity for pid in members),
        age_seconds=authority.age_seconds,
        started=time.time() - authority.age_seconds,
        cpu_seconds=cpu_seconds,
        rss_bytes=_whole(rss_bytes),
        # Orphaned: reparented after the process that started it exited. A worker
        # under a live process that is no runner (pytest.main() in a script) is not.
        orphaned=reparented(authority, records, worker=found.role == WORKER_ROLE),
        # The caller's run: it contains the caller, or the caller started it (a
        # pytest.main() controller that is no runner itself, and its workers).
        is_self=below_caller is not None
        and (below_caller.ancestor in members or below_caller(authority)),
    )


class _Below:
    """Whether a process descends from ``ancestor``: each chain of parents climbed once a scan.

    What a climb learns about every process on its way is kept, so that the
    runs of a scan, however many stand under however deep a chain, cost the
    processes above them once, not once per run. A cycle of links (pids
    reused during the scan) is climbed once and leads to no ancestor.
    """

    def __init__(self, ancestor: int, records: Mapping[int, ProcRecord]) -> None:
        self.ancestor = ancestor
        self.records = records
        self.known: dict[int, bool] = {}

    def __call__(self, record: ProcRecord) -> bool:
        """Whether ``ancestor`` is in the chain of live parents of ``record``."""
        path: list[int] = []
        seen = {record.pid}
        found = False
        parent = live_parent(record, self.records)
        while parent is not None and parent.pid not in seen:
            if parent.pid == self.ancestor:
                found = True
                break
            if parent.pid in self.known:
                found = self.known[parent.pid]
                break
            path.append(parent.pid)
            seen.add(parent.pid)
            parent = live_parent(parent, self.records)
        for pid in path:
            self.known[pid] = found
        return found


VIRTUAL_ENV = frozenset({"VIRTUAL_ENV", "PATH"})
"""What a run's environment is told from: ``$VIRTUAL_ENV``, believed only through ``$PATH``."""


def _environment_of(
    source: ProcessSource,
    authority: ProcRecord,
    found: FoldedRun,
    records: Mapping[int, ProcRecord],
    reader_uid: int,
) -> Environment | Unknown:
    """The environment the run imports from: its authoritative process first, then its members.

    ``$VIRTUAL_ENV`` (for a Python started by a bare name) is read only for a
    run of ``reader_uid``, the user runctx runs as, as for who started it:
    another user's environment is never read, not even by root.
    """
    # Only the first processes of a run are looked at (MAX_ENVIRONMENT_PROCESSES):
    # a run of thousands of processes costs no more.
    members = [
        authority,
        *(records[pid] for pid in found.members[1:MAX_ENVIRONMENT_PROCESSES] if pid in records),
    ]
    if authority.uid != reader_uid:
        return source.environment(members)

    def variables(process: ProcIdentity) -> dict[str, str]:
        environ = source.inherited(process, VIRTUAL_ENV).environ
        return {} if isinstance(environ, Unknown) else dict(environ)

    return source.environment(members, variables)


def flag_shared_environments(runs: Sequence[JudgedRun]) -> tuple[JudgedRun, ...]:
    """Each run with the pids of the runs of *other* checkouts that share its environment.

    An environment counts when it can be shared at all (a venv, a conda env,
    ``node_modules``: not a system prefix) and is known as a directory; two
    runs are of other checkouts when their roots are known to be different
    directories.
    """
    # One pass to group the runs by the directory of their environment, so that
    # each run is compared only with those of the same one: linear in runs.
    by_directory: dict[object, list[JudgedRun]] = {}
    for judged in runs:
        environment = judged.run.environment
        if isinstance(environment, Environment) and environment.directory_id is not None:
            by_directory.setdefault(environment.directory_id, []).append(judged)
    flagged = []
    for judged in runs:
        run = judged.run
        environment = run.environment
        sharing: tuple[int, ...] = ()
        if isinstance(environment, Environment) and environment.shareable:
            sharing = tuple(
                other.run.pid
                for other in by_directory.get(environment.directory_id, ())
                if other is not judged
                and same_environment(other.run.environment, environment)
                and _other_checkout(other.run.root, run.root)
            )
        if sharing == run.shares_environment_with:
            flagged.append(judged)
        else:
            flagged.append(
                attrs.evolve(judged, run=attrs.evolve(run, shares_environment_with=sharing))
            )
    return tuple(flagged)


def _other_checkout(one: Root | Unknown, other: Root | Unknown) -> bool:
    """Whether two roots are known to be different directories."""
    if not isinstance(one, Root) or not isinstance(other, Root):
        return False
    return same_directory(one, other) is False


_VANISHED = (Reason.GONE, Reason.ZOMBIE)

OTHER_USERS_ENVIRONMENT = Unknown(
    Reason.DENIED, "another user's run: its environment is never read"
)
UNKNOWN_OWNERS_ENVIRONMENT = Unknown(
    Reason.DENIED, "its owner is not known: its environment is not read"
)


def _who_started(
    source: ProcessSource,
    authority: ProcRecord,
    records: Mapping[int, ProcRecord],
    reader_uid: int,
    known: dict[tuple[Inherited, tuple[str, ...]], StartedBy | None],
) -> StartedBy | Unknown:
    """Who started ``run``, from what its authoritative process inherited, or why not known.

    The environment is read only when the run's owner is ``reader_uid``, the
    user runctx runs as: another user's never is, not even by root, so that
    nothing of it can reach a reply. What is left for such a run is what
    every user may see: the process tree, the cgroup, the terminal.
    """
    skip: Unknown | None = None
    if isinstance(authority.uid, Unknown):
        skip = UNKNOWN_OWNERS_ENVIRONMENT
    elif authority.uid != reader_uid:
        skip = OTHER_USERS_ENVIRONMENT
    inherited = source.inherited(authority.identity, WANTED, skip_environ=skip)
    # Many runs inherited the same (a storm of one user's runs): told once per scan.
    key = (inherited, ancestor_names(authority, records))
    if key in known:
        found = known[key]
    else:
        found = started_by(*key)
        if len(known) < _STARTERS_MAX:
            known[key] = found
    if found is not None:
        return found
    if isinstance(inherited.environ, Unknown):
        return inherited.environ
    return Unknown(Reason.ABSENT, "nothing it inherited names who started it")


_JUDGED_MAX = 4096
"""Distinct owners and roots whose verdict one scan keeps: a box has far fewer."""
_VIEWS_WALKED_MAX = 1024
"""Distinct directories a first pass walks up from to pass the viewer's processes elsewhere.

Past them, the viewer's processes are read as they were before the filter:
a walk costs about what reading a process does, so processes in as many
directories as there are processes would gain nothing from it."""

_STARTERS_MAX = 4096
"""Distinct inherited facts whose starter one scan keeps: a box has far fewer."""

RUNNING_OTHERS_AT_MOST = 64
"""Other users' processes a bounded pass reads past its command lines because they run now.

A pass that reads a fixed share of other users' processes (a hook's go-ahead,
whose words name the busy foreign runs) would otherwise read the first ones
listed: beside another user's thousands of idle runners, a busy run of theirs
listed after them would never be named. A process running now (state ``R``)
is read whatever the share, as are its ancestors (:data:`RUNNING_ANCESTORS_AT_MOST`),
so it folds into the run that started it. A box runs about as many at once
as its load: these bound what a box of thousands running costs."""
RUNNING_ANCESTORS_AT_MOST = 256
"""The ancestors of those running processes a bounded pass reads at most, all told."""


def _vanished(record: ProcRecord) -> bool:
    """Whether a process exited between the table and the reading of its owner."""
    return any(
        isinstance(value, Unknown) and value.reason in _VANISHED
        for value in (record.uid, record.cwd, record.root)
    )


class _OtherUsers:
    """The first pass's filter: which other users' processes are looked into at all.

    A process of another uid is never ours. The one question a first pass
    asks of it is the shared-tree one: does it work in this very checkout,
    which its user can write? Asked only when the checkout's
    ``on-shared-tree`` would hold a run for it (stop, ask), only of a uid
    that can write the checkout (:func:`runctx.identity.can_write`, once per
    uid), and answered from its cwd alone. A pass that reads optional
    facts asks it whatever the mode (``warn`` names such a run), before and
    apart from its bound below. Every other process of another
    uid is not read at all (its ``stat``, its command line): it is neither
    parsed nor folded into a run; ``passed`` counts them.

    With ``argv_budget`` (a pass that reads optional facts, bounded: a hook's
    second pass) other users' processes are read as well, until the command
    lines of ``argv_budget`` of them have been read (:meth:`argv_kept`, the
    processes whose name could make them a runner or a worker); every other
    user's process after that is passed, not read. A storm of thousands of
    another user's runners costs such a pass a fixed share of them, not all.

    Past that budget, another user's process that is running now is read
    still, up to :data:`RUNNING_OTHERS_AT_MOST` of them (``running_read``):
    a busy run is named even behind a storm of idle ones. The others are
    kept in ``others_passed``, for the pass to read the ancestors of those
    running ones (:meth:`~runctx.sources.base.SourceBase.with_ancestors`).

    With ``own_elsewhere`` (a first pass) the viewer's own processes that
    work in another checkout are passed too (:meth:`_may_be_here`): none of
    them is a run of this checkout. Their directory is told by three links
    (:meth:`~runctx.sources.base.SourceBase.view_key`), and the root of each
    distinct directory walked once. They are kept in ``own_passed``, for the
    pass to read those its runs need (:meth:`~runctx.sources.base.SourceBase.completed`):
    a user's own chain of thousands of processes in another checkout costs
    the refusal three ``readlink`` each, not a ``stat``, a command line and
    a fold.
    """

    def __init__(
        self,
        source: ProcessSource,
        here: Viewpoint,
        *,
        shared_tree_asked: bool,
        argv_budget: int | None = None,
        own_elsewhere: bool = False,
    ) -> None:
        self.source = source
        self.here = here
        self.shared_tree_asked = shared_tree_asked
        self.writers: dict[int, bool] = {}
        self.passed = 0
        self.argv_budget = argv_budget
        self.argv_read = 0
        self._reading_other = False
        self.own_elsewhere = own_elsewhere and isinstance(here.root, Root)
        self.own_passed: set[int] = set()
        self.running_read: list[int] = []
        self.others_passed: set[int] = set()
        self._here_by_view: dict[tuple[str, str, str], bool] = {}

    def restart(self) -> None:
        """Forget what a pass passed and read past its budget: the table is read again."""
        self.passed = 0
        self.own_passed.clear()
        self.running_read.clear()
        self.others_passed.clear()

    def wanted(self, pid: int, uid: int | Unknown) -> bool:
        """Whether ``pid`` (owned by ``uid``) is read at all by this pass."""
        self._reading_other = False
        here_uid = self.here.uid
        if isinstance(uid, Unknown) or isinstance(here_uid, Unknown):
            return True  # not known not to be ours: looked at
        if uid == here_uid:
            if self.own_elsewhere and not self._may_be_here(pid, uid):
                self.own_passed.add(pid)
                self.passed += 1
                return False
            return True
        if self._may_share(uid) and self._works_here(pid, uid):
            return True
        # A pass with no budget (a hold's, whose words never name a foreign run)
        # reads none of them, running or not.
        if self.argv_budget and self._read_in_budget(pid, self.argv_budget):
            return True
        self.passed += 1
        return False

    def _read_in_budget(self, pid: int, budget: int) -> bool:
        """Whether another user's ``pid`` is read by a pass with a ``budget`` (kept if passed)."""
        if self.argv_read < budget:
            self._reading_other = True
            return True
        if len(self.running_read) < RUNNING_OTHERS_AT_MOST and self.source.running(pid):
            self.running_read.append(pid)
            return True
        self.others_passed.add(pid)
        return False

    def argv_kept(self, *, kept: bool) -> None:
        """The process :meth:`wanted` last let in has its command line read (``kept``) or not."""
        if kept and self._reading_other:
            self.argv_read += 1

    def _may_share(self, uid: int) -> bool:
        here = self.here.root
        if not self.shared_tree_asked or not isinstance(here, Root):
            return False
        if uid not in self.writers:
            self.writers[uid] = can_write(uid, str(here))
        return self.writers[uid]

    def _may_be_here(self, pid: int, uid: int) -> bool:
        """Whether the viewer's own ``pid`` may work in this checkout (its root is not another).

        The root is walked once per directory (:meth:`view_key`); a process
        whose directory cannot be told, or whose root is not known, may.
        """
        if len(self._here_by_view) >= _VIEWS_WALKED_MAX:
            return True  # a user's processes in thousands of directories: each read, as before
        key = self.source.view_key(pid)
        if key is None:
            return True
        known = self._here_by_view.get(key)
        if known is None:
            root = self.source.root_of(pid, uid, self.here.uid)
            if isinstance(root, Unknown) or self.source.view_key(pid) != key:
                return True  # not known, or it moved while walked: read, and nothing kept
            known = not judge(_Owned(uid, root), self.here.root, self.here.uid).foreign
            self._here_by_view[key] = known
        return known

    def _works_here(self, pid: int, uid: int) -> bool:
        root = self.source.root_of(pid, uid, self.here.uid)
        if isinstance(root, Unknown):
            return False
        return judge(_Owned(uid, root), self.here.root, self.here.uid).shares_tree


@attrs.frozen(repr=False, eq=False)
class _Owned(Record):
    """An owner and a root: what :func:`runctx.identity.judge` asks of a process."""

    uid: int
    root: Root


def _passed(deadline: float | None) -> bool:
    """Whether ``deadline`` (:func:`time.monotonic`) has passed; never without one."""
    return deadline is not None and time.monotonic() >= deadline


def _keeps_back(deadline: float | None, began: float, now: float) -> bool:
    """Whether runs judged since ``began`` stop at ``now``, to leave time before ``deadline``.

    What follows the judging (each run's record and verdict, the report of
    every run judged, written by the face) costs about as much again per run
    as judging it did, at the same pace on a box however loaded: so the
    judging keeps back, before the deadline, as long again as it has taken,
    and a face writes what it judged within the deadline. Never without one.
    """
    return deadline is not None and now + (now - began) >= deadline


@attrs.frozen(repr=False, eq=False)
class _FoundRuns(Record):
    """The table of one pass and each run found in it with its owner read.

    ``unjudged`` counts the runs found whose owner was not read before the
    deadline: they are not judged at all, and the report says how many.
    """

    table: ProcessTable
    runs: list[tuple[FoldedRun, ProcRecord]]
    unjudged: int = 0


def _known_other(uid: int | Unknown | None, viewer_uid: int) -> bool:
    """Whether ``uid`` is known and not ``viewer_uid``: a run surely not the viewer's."""
    return isinstance(uid, int) and uid != viewer_uid


def _table_and_owners(  # noqa: PLR0913 - each is an independent knob
    source: ProcessSource,
    detect: Callable[[tuple[str, ...]], RunnerMatch | None],
    viewer_uid: int | Unknown,
    argv_wanted: Callable[[str], bool],
    *,
    others: _OtherUsers | None = None,
    deadline: float | None = None,
    inherited: bool = True,
    climb: ClimbBudget | None = None,
) -> _FoundRuns:
    """The process table and each run's authority with its owner read.

    Argvs are read only for the processes whose ``comm`` ``argv_wanted`` keeps
    (:func:`runctx.runners.comms.argv_filter`): the others can be neither a
    runner nor a worker, and folding needs only their parents.

    A run whose authoritative process exits while the scan reads it is not
    live: it is dropped, never reported with an unknown (so "ours") identity.
    Its members may live on, reparented: when it had any, the table is read
    once more, so they are seen as the run(s) they now form.

    Before ``deadline`` the owners are read no more once judging has taken
    as long as is left (:func:`_keeps_back`): the runs left are counted in
    ``unjudged``, never judged late. A scan that will ask who started each run
    (``inherited``) has the owner's read take its cgroup and terminal with it.
    The walks to other users' checkouts are charged to ``climb``.
    """
    owners: dict[int, int | Unknown] = {}

    def wanted(pid: int, uid: int | Unknown) -> bool:
        owners[pid] = uid
        return others is None or others.wanted(pid, uid)

    def read() -> _FoundRuns:
        if others is None and deadline is None:
            table = source.table(argv_wanted)
        else:
            if others is not None:
                others.restart()
            owners.clear()
            table = source.table(argv_wanted, wanted, deadline, viewer_uid)
            if others is not None and others.own_passed:
                table = _completed(
                    source, table, others, (detect, owners), argv_wanted, deadline=deadline
                )
            if others is not None and others.running_read:
                table, taken = source.with_ancestors(
                    table,
                    others.running_read,
                    others.others_passed,
                    argv_wanted,
                    at_most=RUNNING_ANCESTORS_AT_MOST,
                    deadline=deadline,
                )
                others.passed -= taken
        folded = fold_runs(table.records, detect)
        if deadline is not None and not isinstance(viewer_uid, Unknown):
            # Against a deadline, the runs that may be the viewer's are judged
            # first (by the owner the pass saw): a cut leaves foreign ones out.
            folded.sort(key=lambda found: _known_other(owners.get(found.authority.pid), viewer_uid))
        owned: list[tuple[FoldedRun, ProcRecord]] = []
        unjudged = 0
        judging_began = time.monotonic()
        for index, found in enumerate(folded):
            if _keeps_back(deadline, judging_began, time.monotonic()):
                unjudged = len(folded) - index
                break
            owned.append(
                (
                    found,
                    source.with_owner(
                        found.authority, viewer_uid, inherited=inherited, climb=climb
                    ),
                )
            )
        owned.sort(key=lambda pair: pair[1].pid)
        return _FoundRuns(table, owned, unjudged)

    return _without_vanished(read(), read, deadline)


def _completed(  # noqa: PLR0913 - what the table was read with, handed on
    source: ProcessSource,
    table: ProcessTable,
    others: _OtherUsers,
    found: tuple[Callable[[tuple[str, ...]], RunnerMatch | None], dict[int, int | Unknown]],
    argv_wanted: Callable[[str], bool],
    *,
    deadline: float | None,
) -> ProcessTable:
    """``table`` with what its runs need of the viewer's processes ``others`` passed.

    ``found``: how a run is detected, and the owner the filter saw of each pid.
    """
    detect, owners = found
    viewer_uid = others.here.uid

    def mine(pid: int) -> bool:
        return owners.get(pid) == viewer_uid

    def in_a_run(record: ProcRecord) -> bool:
        argv = record.argv
        return not isinstance(argv, Unknown) and bool(argv) and detect(argv) is not None

    table, taken = source.completed(
        table, others.own_passed, (in_a_run, mine), argv_wanted, deadline
    )
    others.passed -= taken
    return table


def _without_vanished(
    first: _FoundRuns, read: Callable[[], _FoundRuns], deadline: float | None
) -> _FoundRuns:
    """``first`` without the runs whose authority exited, read again where that may hide runs.

    Read again only when a run that vanished had other processes: they may
    live on, reparented. A lone process that exited leaves nothing to see (on
    a busy box some always do: the table is not read twice for them).
    """
    moved = sum(_vanished(authority) and len(found.members) > 1 for found, authority in first.runs)
    if not moved:
        again = first
    elif _passed(deadline):  # no time to read again: what they now form is not judged
        again = attrs.evolve(first, unjudged=first.unjudged + moved)
    else:
        again = read()
    return attrs.evolve(
        again,
        runs=[(found, authority) for found, authority in again.runs if not _vanished(authority)],
    )


class FirstPass:
    """What a hook's first pass found in ``/proc``, kept for its pass after a hold.

    A hold's optional pass adds to the runs in the way only what is optional
    about them (who started each, its environment), and reads of other users'
    processes no more than the first pass did (:class:`_OtherUsers`): the
    same table, folded into the same runs. So it takes them from here, for
    each viewpoint the first pass scanned whole, instead of listing ``/proc``
    and reading and folding every process of the viewer's uid again (a
    user's own chain of thousands of processes cost each hook call that
    twice); it reads again only each run's owner, with what it inherited.
    A go-ahead's optional pass reads others' processes the first did not:
    it takes nothing from here (:func:`scan` decides). The runs a first
    pass found are a few milliseconds old when taken: a process that started
    since is not seen, one that exited is found so by its owner's read.
    """

    def __init__(self) -> None:
        """Nothing found yet."""
        self._found: dict[Viewpoint, tuple[_FoundRuns, int]] = {}

    def keep(
        self, here: Viewpoint, found: _FoundRuns, others: _OtherUsers | None, *, cut: bool
    ) -> None:
        """What the first pass found from ``here``, unless its deadline ``cut`` any of it.

        With the count of other users' processes it passed over (``others``).
        """
        if not (cut or found.table.not_read or found.unjudged):
            self._found[here] = (found, others.passed if others is not None else 0)

    def taken(self, here: Viewpoint) -> tuple[_FoundRuns, int] | None:
        """What the first pass found from ``here``; None when it kept nothing."""
        return self._found.get(here)


def _found(
    read_all: Callable[[], _FoundRuns],
    source: ProcessSource,
    here: Viewpoint,
    others: _OtherUsers | None,
    first_pass: FirstPass | None,
) -> _FoundRuns:
    """The runs a scan finds: ``read_all()``, or the first pass's where this pass may take them.

    Only a pass that reads of other users' processes what the first pass read
    (``others`` with no command line of theirs to read) may.
    """
    if first_pass is None or others is None or others.argv_budget != 0:
        return read_all()
    taken = first_pass.taken(here)
    if taken is None:
        return read_all()
    others.passed = taken[1]  # counted again if the table is read again after all
    return _found_again(source, taken[0], here.uid, read_all)


def _found_again(
    source: ProcessSource,
    kept: _FoundRuns,
    viewer_uid: int | Unknown,
    read: Callable[[], _FoundRuns],
) -> _FoundRuns:
    """The runs a first pass found, each with its owner read again, with what it inherited."""
    runs = [
        (found, source.with_owner(found.authority, viewer_uid, inherited=True))
        for found, _authority in kept.runs
    ]
    return _without_vanished(attrs.evolve(kept, runs=runs), read, None)


def _verdict_key(run: Run) -> tuple[object, ...] | None:
    """What a verdict depends on: the owner, and the root as text *and* directory.

    A root compares by its text alone (``==``), so its directory goes into the
    key: two checkouts behind one path are judged apart. A removed root (its
    verdict depends on the checkout that held it) is judged each time.
    """
    root = run.root
    if isinstance(root, Unknown):
        return (run.uid, "unknown", root)
    if root.deleted:
        return None
    return (run.uid, "root", str(root), root.directory_id)


def _judged(
    run: Run, here: Viewpoint, known: dict[tuple[object, ...], Judgement] | None = None
) -> JudgedRun:
    """``run`` with its verdict from ``here``, logged.

    ``known`` keeps the verdict of each owner and root already judged this
    scan (:func:`_verdict_key`: the verdict depends on nothing else): a storm
    of one user's runs in a few checkouts is judged a few times.
    """
    key = _verdict_key(run) if known is not None else None
    judgement = known.get(key) if known is not None and key is not None else None
    if judgement is None:
        judgement = judge(run, here.root, here.uid)
        if known is not None and key is not None and len(known) < _JUDGED_MAX:
            known[key] = judgement
    log_event(
        "runctx.verdict",
        level=INFO,
        pid=run.pid,
        kind=run.kind,
        verdict=judgement.verdict.value,
        reasons=list(judgement.reasons),
        is_self=run.is_self,
    )
    return JudgedRun(run=run, judgement=judgement)


def _judged_runs(  # noqa: PLR0913 - each is an independent input
    source: ProcessSource,
    here: Viewpoint,
    found: _FoundRuns,
    caller: int | Unknown,
    *,
    deadline: float | None,
    optional: bool,
) -> tuple[list[JudgedRun], int]:
    """Each run found, judged from ``here``; and how many had their optional facts dropped.

    One pass over the runs. With ``optional``, each is also given its
    environment and who started it, while the deadline is not passed; the
    runs left past it keep those not read, and are counted.
    """
    reader = os.getuid()
    records = found.table.records
    starters: dict[tuple[Inherited, tuple[str, ...]], StartedBy | None] = {}
    verdicts: dict[tuple[object, ...], Judgement] = {}
    skipped = 0
    judged_runs = []
    below_caller = _Below(caller, records) if isinstance(caller, int) else None
    for folded, authority in found.runs:
        environment: Environment | Unknown = NOT_READ
        who: StartedBy | Unknown = NOT_READ
        if optional and _passed(deadline):
            skipped += 1
        elif optional:
            environment = _environment_of(source, authority, folded, records, reader)
            who = _who_started(source, authority, records, reader, starters)
        run = _run_of(authority, folded, records, below_caller, environment, who=who)
        judged_runs.append(_judged(run, here, verdicts))
    return judged_runs, skipped


def _with_cpu_now(
    source: ProcessSource,
    judged_runs: list[JudgedRun],
    measured: list[Run],
    first: CpuReading,
    cpu_window: float,
) -> tuple[list[JudgedRun], float]:
    """The runs ``measured`` with their CPU use now, from ``first`` and a second reading."""
    second = second_reading(source, first, cpu_window, later=source.cpu_read_with_owner)
    sampled = {run.identity for run in measured}
    return [
        JudgedRun(
            run=attrs.evolve(judged.run, cpu_now=cpu_now(judged.run, first, second)),
            judgement=judged.judgement,
        )
        if judged.run.identity in sampled
        else judged
        for judged in judged_runs
    ], second.at - first.at


SHARED_TREE_HOLDS = frozenset({Mode.STOP, Mode.ASK})
"""The ``on-shared-tree`` modes that hold a run: only then does a first pass ask the question.

A pass that reads optional facts always asks it: with ``warn`` the words of
the go-ahead are where another user's run in this very checkout is named."""


def _argv_reader(
    wanted: Callable[[str], bool],
    skipped: list[int],
    others: _OtherUsers | None,
    deadline: float | None,
) -> Callable[[str], bool]:
    """Whether a process named ``comm`` has its command line read: ``wanted``, in time.

    Past ``deadline`` none is: those that would have been are counted in
    ``skipped``. ``others`` is told of each read it let in.
    """

    def argv_wanted(comm: str) -> bool:
        keep = wanted(comm)
        if deadline is not None and time.monotonic() >= deadline:
            skipped[0] += keep
            return False
        if others is not None:
            others.argv_kept(kept=keep)
        return keep

    return argv_wanted


def _others_filter(
    source: ProcessSource,
    here: Viewpoint,
    settings: Settings,
    *,
    essentials_only: bool,
    argv_at_most: int | None,
) -> _OtherUsers | None:
    """What a scan reads of other users' processes: all of them (None), or :class:`_OtherUsers`."""
    if not essentials_only and argv_at_most is None:
        return None
    return _OtherUsers(
        source,
        here,
        shared_tree_asked=not essentials_only or settings.shared_tree_mode in SHARED_TREE_HOLDS,
        argv_budget=None if essentials_only else argv_at_most,
        own_elsewhere=essentials_only,
    )


def _cut_note(  # noqa: PLR0913 - each is one thing the deadline left undone
    skipped: int,
    *,
    lost: bool,
    unread: int = 0,
    unjudged: int = 0,
    optional_skipped: int = 0,
    cpu_dropped: bool = False,
) -> str:
    parts = []
    if unread:
        noun = "process was" if unread == 1 else "processes were"
        parts.append(f"{unread} {noun} not read at all, so a run among them is not shown")
    if skipped:
        noun = "process" if skipped == 1 else "processes"
        parts.append(
            f"the command lines of {skipped} {noun} were not read, so a run among them is not shown"
        )
    if unjudged:
        said = (
            "run was found but not judged, so it is"
            if unjudged == 1
            else ("runs were found but not judged, so they are")
        )
        parts.append(f"{unjudged} {said} not shown")
    if lost:
        parts.append("no environment, starter or CPU use now was read")
    else:
        if optional_skipped:
            noun = "run" if optional_skipped == 1 else "runs"
            parts.append(f"the environment and starter of {optional_skipped} {noun} were not read")
        if cpu_dropped:
            parts.append("no CPU use now was read")
    return f"{CUT_NOTE}: " + "; ".join(parts or ["the scan was cut"])


def _limits(source: ProcessSource, found: _FoundRuns, climbed_most: int) -> Visibility:
    """What a scan could not see: of its table, its runs' owners, their checkouts.

    A checkout not looked for once the scan's climb budget (``climbed_most``
    directories) was spent is not counted as unreadable: a note says so.
    """
    owned = found.runs
    not_climbed = sum(was_not_climbed(authority.root) for _found, authority in owned)
    visibility = describe_limits(
        source=source.name,
        mount=source.proc_mount(),
        own_namespace=source.own_pid_namespace(),
        listed=found.table.listed,
        unreadable=found.table.unreadable,
        zombies=found.table.zombies,
        run_fields_unreadable={
            "uid": sum(isinstance(authority.uid, Unknown) for _found, authority in owned),
            "cwd": sum(isinstance(authority.root, Unknown) for _found, authority in owned)
            - not_climbed,
        },
    )
    if not not_climbed:
        return visibility
    runs = "run was" if not_climbed == 1 else "runs were"
    note = (
        f"the checkouts of {not_climbed} other users' {runs} not looked for: a scan climbs "
        f"at most {climbed_most} directories for other users' processes (each is foreign "
        "by its owner)"
    )
    return attrs.evolve(visibility, notes=(*visibility.notes, note))


def _may_write(uid: int, here: Viewpoint) -> bool:
    """Whether ``uid`` may write the checkout ``here`` looks from (its runs may work in it)."""
    return isinstance(here.root, Root) and can_write(uid, str(here.root))


def scan(  # noqa: PLR0913 - each knob is independent
    here: Viewpoint | None = None,
    *,
    source: ProcessSource | None = None,
    patterns: Sequence[RunnerPattern] | None = None,
    self_pid: int | None = None,
    cpu_window: float | None = None,
    cpu_of: Callable[[JudgedRun], bool] | None = None,
    settings: Settings = DEFAULTS,
    essentials_only: bool = False,
    deadline: float | None = None,
    others_argv_at_most: int | None = None,
    first_pass: FirstPass | None = None,
) -> Report:
    """Scan the box once and judge every live test run from ``here``.

    ``here`` defaults to :func:`viewpoint` of the calling process; ``patterns``
    to the runner table of ``settings`` (the builtin one by default: a scan
    reads no settings; a face passes the value it built with
    :func:`runctx.settings.settings_for`);
    ``self_pid`` to the calling process as the source numbers it (its pid in
    the procfs's pid namespace, through ``NSpid``): the run containing it is
    this run. With ``cpu_window`` (seconds), each run besides this one (or
    only those ``cpu_of`` picks: a hook measures foreign runs alone, the only
    ones whose words depend on it) gets its CPU use now
    (:mod:`runctx.cpu_window`), when there is such a run: the scan then takes
    at least that long. With ``essentials_only`` (a hook's first pass, which
    decides whether to refuse) nothing optional is read: no environment, no
    one who started a run, no CPU window (each stays not read); and another
    user's process, never ours, is not looked into unless it works in this
    very checkout and its user can write it (:class:`_OtherUsers`; the
    report counts the others in ``not_examined``). Without it,
    ``others_argv_at_most`` bounds what other users' processes cost: past the
    command lines of that many of them, another user's process is not read
    at all (unless it works in this very checkout, as above) and is counted
    in ``not_examined`` (a hook's second pass, whose words name at most a few
    busy foreign runs, beside a storm of thousands). ``first_pass``: a pass
    with ``essentials_only`` keeps there what it found, whole; a later pass
    given it takes the runs from it when it reads of other users' processes
    what the first did (``others_argv_at_most`` 0: a hook's pass after a
    hold), and reads every process itself otherwise (:class:`FirstPass`).
    """
    began = time.perf_counter()
    here = here if here is not None else viewpoint()
    source = source if source is not None else default_source()
    table_patterns = tuple(patterns) if patterns is not None else settings.patterns
    caller: int | Unknown = self_pid if self_pid is not None else source.caller_pid()

    detected: dict[tuple[str, ...], RunnerMatch | None] = {}

    def detect(argv: tuple[str, ...]) -> RunnerMatch | None:
        # Many processes share one argv (forks, workers, browser helpers): detect once.
        if argv not in detected:
            detected[argv] = detect_runner(argv, table_patterns)
        return detected[argv]

    wanted = argv_filter(table_patterns)
    skipped = [0]

    others = _others_filter(
        source, here, settings, essentials_only=essentials_only, argv_at_most=others_argv_at_most
    )

    argv_wanted = _argv_reader(wanted, skipped, others, deadline)
    climb = ClimbBudget(spared=lambda uid: _may_write(uid, here))

    def read_all() -> _FoundRuns:
        return _table_and_owners(
            source,
            detect,
            here.uid,
            argv_wanted,
            others=others,
            deadline=deadline,
            inherited=not essentials_only,
            climb=climb,
        )

    found = _found(read_all, source, here, others, first_pass)
    table = found.table
    out_of_time = _passed(deadline)
    if first_pass is not None and essentials_only:
        first_pass.keep(here, found, others, cut=out_of_time or bool(skipped[0]))
    essentials_only = essentials_only or out_of_time
    judged_runs, optional_skipped = _judged_runs(
        source,
        here,
        found,
        caller,
        deadline=deadline,
        optional=not essentials_only,
    )
    if essentials_only:
        cpu_window = None
    measured = [
        judged.run
        for judged in judged_runs
        if not judged.run.is_self and (cpu_of is None or cpu_of(judged))
    ]
    first = None
    cpu_dropped = bool(cpu_window is not None and measured and _passed(deadline))
    reading_took = 0.0
    if cpu_window is not None and measured and not cpu_dropped:
        reading_began = time.monotonic()
        first = read_cpu(source, measured, earlier=source.cpu_read_in_table)
        reading_took = time.monotonic() - reading_began
    load = source.load()
    visibility = _limits(source, found, climb.most)
    window: float | Unknown = NOT_READ
    if first is not None and cpu_window is not None:
        # The second reading costs about what the first did: taken only when
        # it ends before the deadline, never late.
        ends = max(time.monotonic(), first.at + cpu_window) + reading_took
        if deadline is not None and ends >= deadline:
            cpu_dropped = True
        else:
            judged_runs, window = _with_cpu_now(source, judged_runs, measured, first, cpu_window)
    if any((skipped[0], out_of_time, table.not_read, found.unjudged, optional_skipped)) or (
        cpu_dropped
    ):
        note = _cut_note(
            skipped[0],
            lost=out_of_time,
            unread=table.not_read,
            unjudged=found.unjudged,
            optional_skipped=optional_skipped,
            cpu_dropped=cpu_dropped,
        )
        visibility = attrs.evolve(visibility, notes=(*visibility.notes, note))

    report = Report(
        here=here,
        runs=tuple(judged_runs) if essentials_only else flag_shared_environments(judged_runs),
        load=load,
        visibility=visibility,
        self_pid=caller,
        taken_at=time.time(),
        duration_seconds=time.perf_counter() - began,
        cpu_window=window,
        not_examined=others.passed if others is not None else 0,
    )
    log_event(
        "runctx.scan_finished",
        level=INFO,
        source=source.name,
        processes=len(table.records),
        runs=len(report.runs),
        foreign=len(report.foreign),
        seconds=round(report.duration_seconds, 6),
    )
    return report
