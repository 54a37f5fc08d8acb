"""Folding: live processes grouped into runs, one per top-most runner.

The authoritative process is the top-most runner in a chain of ancestors. Every
descendant of it, runner or not (xdist workers, the pytest under ``make test``,
compiled test binaries, subprocesses a test starts), folds into that run as a
member. A worker whose runner died is reparented to init or a subreaper: it has
no runner above it any more, so it is a run of its own, marked orphaned.

A task runner running a task that is no run by its name (``npm run unit``,
``make ci``: role :data:`~runctx.runners.pattern.TASK_ROLE`) is a run when a
runner or worker runs below it: the live tree says what its task runs, without
reading the project's files. Then it is the top of that run, like any runner.

A wrapper whose title hides its command (``npx -c 'node --test'`` titles
itself ``npm exec``: role :data:`~runctx.runners.pattern.WRAPPER_ROLE`) is a
run only when its child is one (a runner, or a task that is a run): then it is
the top of that run, of its child's kind and role, as ``npx mocha`` is.
A bare ``npm exec``, or one whose child runs no test, is no run.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Mapping

import attrs

from runctx.record_base import Record
from runctx.records import ProcRecord
from runctx.runners.pattern import TASK_ROLE, WORKER_ROLE, WRAPPER_ROLE
from runctx.unknown import Unknown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.pattern import RunnerMatch

__all__ = [
    "WORKER_ROLE",
    "FoldedRun",
    "ancestor_names",
    "descends_from",
    "fold_runs",
    "live_parent",
    "parent_map",
    "reparented",
]


@attrs.frozen(repr=False, eq=False)
class FoldedRun(Record):
    """A run as folding finds it: its authoritative record and its members."""

    authority: ProcRecord
    kind: str
    role: str
    members: tuple[int, ...]


def parent_map(records: Mapping[int, ProcRecord]) -> dict[int, int]:
    """Each pid's parent, where the parent is live and older than the child.

    A parent that started after its child cannot be its parent: the real one
    exited and its pid was reused. Such a link is dropped, so a reused pid
    never pulls a process into an unrelated run.
    """
    parents: dict[int, int] = {}
    for pid, record in records.items():
        parent = records.get(record.ppid)
        if parent is not None and parent.pid != pid and parent.start <= record.start:
            parents[pid] = record.ppid
    return parents


def live_parent(record: ProcRecord, records: Mapping[int, ProcRecord]) -> ProcRecord | None:
    """The live parent of ``record``, None when it has none but init (or a reused pid)."""
    parent = records.get(record.ppid)
    if parent is None or parent.pid in (0, 1) or parent.start > record.start:
        return None
    return parent


_ANCESTORS_MAX = 64


KNOWN_SUBREAPERS = frozenset(
    {
        "systemd",  # systemd --user: the subreaper of a user's session
        "tini",
        "dumb-init",
        "catatonit",
        "docker-init",
        "s6-svscan",
        "runsvdir",
        "containerd-shim",  # comm is cut at 15 characters
        "conmon",
    }
)
"""Programs that make themselves child subreapers: an orphan is handed to them, not to init."""


def reparented(record: ProcRecord, records: Mapping[int, ProcRecord], *, worker: bool) -> bool:
    """Whether ``record`` is known to have lost the parent that started it, from the kernel's view.

    Orphaned means re-parented to init (pid 1) or a known subreaper
    (:data:`KNOWN_SUBREAPERS`): the kernel's ``PPid`` names the adopter. A
    process that started a session of its own (its sid is its pid) may have
    been started by init or a service manager, so it is not called orphaned;
    nor is one whose parent is any other live process, even one that has
    since moved to another session of its own (a starter that forked it and
    then called ``setsid``: alive, it is still the parent).

    A ``worker`` (an xdist worker) is started by its runner, never by init:
    under init, or under no parent seen at all, it was reparented too.
    """
    if worker and live_parent(record, records) is None:
        return True
    if record.sid == record.pid:
        return False
    parent = records.get(record.ppid)
    if parent is not None and (parent.pid == record.pid or parent.start > record.start):
        return False
    if record.ppid == 1:
        return parent is None or record.sid != parent.sid
    return parent is not None and parent.comm in KNOWN_SUBREAPERS and record.sid != parent.sid


def ancestor_names(record: ProcRecord, records: Mapping[int, ProcRecord]) -> tuple[str, ...]:
    """The process names (``comm``) of ``record``'s live ancestors, the nearest first."""
    names: list[str] = []
    seen = {record.pid}
    parent = live_parent(record, records)
    while parent is not None and parent.pid not in seen and len(names) < _ANCESTORS_MAX:
        names.append(parent.comm)
        seen.add(parent.pid)
        parent = live_parent(parent, records)
    return tuple(names)


def descends_from(record: ProcRecord, ancestor: int, records: Mapping[int, ProcRecord]) -> bool:
    """Whether ``ancestor`` is in the chain of live parents of ``record``."""
    seen = {record.pid}
    parent = live_parent(record, records)
    while parent is not None and parent.pid not in seen:
        if parent.pid == ancestor:
            return True
        seen.add(parent.pid)
        parent = live_parent(parent, records)
    return False


def _children_of(parents: Mapping[int, int]) -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for child, parent in parents.items():
        children.setdefault(parent, []).append(child)
    return children


def _with_match_above(
    pids: Iterable[int], parents: Mapping[int, int], marked: Container[int]
) -> set[int]:
    """The ``pids`` that have a ``marked`` process among their strict ancestors.

    One pass: each chain of parents is climbed once, and what is learnt about
    every process on it is kept, so a chain of any depth costs its length, not
    its length squared. A cycle (pid reuse during the scan) is climbed once
    and counts as no ancestor.
    """
    above: dict[int, bool] = {}  # pid -> a marked process is strictly above it
    for start in pids:
        path: list[int] = []
        on_path: set[int] = set()
        pid = start
        while pid not in above:
            path.append(pid)
            on_path.add(pid)
            parent = parents.get(pid)
            if parent is None or parent in on_path:
                above[pid] = False  # the top of its chain (or where a cycle closes)
                path.pop()
                break
            pid = parent
        # Unwind: each process below has a marked one above if its parent is
        # marked or has one above.
        found = above[pid] or pid in marked
        for child in reversed(path):
            above[child] = found
            found = found or child in marked
    return {pid for pid in pids if above.get(pid, False)}


def _tasks_above_runners(
    matches: Mapping[int, RunnerMatch], tasks: set[int], parents: Mapping[int, int]
) -> set[int]:
    """The task processes that have a runner or worker among their descendants.

    Each process's ancestors are climbed once for all the runners below them:
    a climb stops where an earlier one passed.
    """
    running: set[int] = set()
    climbed: set[int] = set()
    for pid in matches:
        if pid in tasks:
            continue
        seen = {pid}
        ancestor = parents.get(pid)
        while ancestor is not None and ancestor not in seen and ancestor not in climbed:
            if ancestor in tasks:
                running.add(ancestor)
            seen.add(ancestor)
            climbed.add(ancestor)
            ancestor = parents.get(ancestor)
    return running


def _wrappers_over_runs(
    matches: dict[int, RunnerMatch], wrappers: set[int], parents: Mapping[int, int]
) -> None:
    """Give each wrapper whose child is a run that child's match; drop the others.

    A wrapper under a wrapper (``npm exec`` running ``npx -c ...``) takes what
    the one below it is given, so wrappers are decided from the bottom up: the
    children of each, in pid order, the first that is a run (not a worker)
    after its own wrappers were decided. Each wrapper is decided once, after
    its children: one pass, however deep a chain of wrappers is.
    """
    children = _children_of({pid: parent for pid, parent in parents.items() if pid in matches})
    decided: dict[int, RunnerMatch | None] = {}
    for top in sorted(wrappers):
        if top in decided:
            continue
        # Depth first, without recursion: a wrapper is decided once all its
        # wrapper children are. ``entered`` guards against a cycle of links.
        stack = [top]
        entered = {top}
        while stack:
            pid = stack[-1]
            waiting = [
                child
                for child in children.get(pid, ())
                if child in wrappers and child not in decided and child not in entered
            ]
            if waiting:
                stack.extend(waiting)
                entered.update(waiting)
                continue
            stack.pop()
            if pid in decided:
                continue
            runs = (
                decided.get(child) if child in wrappers else matches[child]
                for child in sorted(children.get(pid, ()))
            )
            decided[pid] = next(
                (match for match in runs if match is not None and match.role != WORKER_ROLE),
                None,
            )
    for pid, match in decided.items():
        if match is None:
            del matches[pid]
        else:
            matches[pid] = match


def _descendants(pid: int, children: Mapping[int, list[int]]) -> list[int]:
    found: list[int] = []
    seen = {pid}
    queue = [pid]
    while queue:
        for child in children.get(queue.pop(), ()):
            if child not in seen:
                seen.add(child)
                found.append(child)
                queue.append(child)
    return found


def fold_runs(
    records: Mapping[int, ProcRecord],
    detect: Callable[[tuple[str, ...]], RunnerMatch | None],
) -> list[FoldedRun]:
    """Group live processes into runs, one per top-most runner.

    ``detect`` names the runner an argv starts, or None. Walks use ``seen`` sets
    because pid reuse during a scan can make the parent links a cycle.
    """
    matches: dict[int, RunnerMatch] = {}
    tasks: set[int] = set()
    wrappers: set[int] = set()
    for pid, record in records.items():
        argv = record.argv
        if not isinstance(argv, Unknown) and argv:
            match = detect(argv)
            if match is not None:
                matches[pid] = match
                if match.role == TASK_ROLE:
                    tasks.add(pid)
                elif match.role == WRAPPER_ROLE:
                    wrappers.add(pid)
    if len(tasks) + len(wrappers) == len(matches):
        return []
    parents = parent_map(records)
    if tasks:
        running = _tasks_above_runners(
            {pid: match for pid, match in matches.items() if pid not in wrappers}, tasks, parents
        )
        for pid in tasks - running:
            del matches[pid]
    if wrappers:
        _wrappers_over_runs(matches, wrappers, parents)
    children = _children_of(parents)
    under_runner = _with_match_above(matches, parents, matches)
    return [
        FoldedRun(
            authority=records[pid],
            kind=matches[pid].kind,
            role=matches[pid].role,
            members=(pid, *sorted(_descendants(pid, children))),
        )
        for pid in sorted(matches)
        if pid not in under_runner
    ]
