"""Runs: the authoritative process of a test run and everything folded into it.

The authoritative process is the top-most runner in a chain of ancestors. Every
descendant of it, runner or not (xdist workers, the pytest under ``make test``,
compiled test binaries, subprocesses a test starts), folds into that run as a
member. A worker whose runner died is reparented to init or a subreaper: it has
no runner above it any more, so it is a run of its own, marked orphaned.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import attrs

from runctx.identity import Judgement
from runctx.records import ProcIdentity, ProcRecord
from runctx.unknown import Unknown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners import RunnerMatch

WORKER_ROLE = "worker"


@attrs.frozen
class FoldedRun:
    """A run as folding finds it: its authoritative record and its members."""

    authority: ProcRecord
    kind: str
    role: str
    members: tuple[int, ...]


@attrs.frozen
class Run:
    """One live test run, with the owner and checkout of its authoritative process."""

    pid: int
    start: int
    kind: str
    argv: tuple[str, ...] | Unknown
    uid: int | Unknown
    cwd: str | Unknown
    root: str | Unknown
    members: tuple[int, ...]
    age_seconds: float
    started: float
    cpu_seconds: float | Unknown
    rss_bytes: int | Unknown
    orphaned: bool
    is_self: bool

    @property
    def identity(self) -> ProcIdentity:
        """The (pid, start) of the authoritative process."""
        return ProcIdentity(self.pid, self.start)


@attrs.frozen
class JudgedRun:
    """A run and its verdict from one viewpoint."""

    run: Run
    judgement: Judgement

    @property
    def foreign(self) -> bool:
        """Whether the run is known to be foreign from the viewpoint."""
        return self.judgement.foreign


def total(values: Sequence[float | Unknown]) -> float | Unknown:
    """The sum of the members' values, or why it is not known (a member's was not)."""
    missing = [value for value in values if isinstance(value, Unknown)]
    if missing:
        return Unknown(missing[0].reason, f"{len(missing)} of {len(values)} processes unreadable")
    return sum(value for value in values if not isinstance(value, Unknown))


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


def _has_runner_above(pid: int, parents: Mapping[int, int], runners: Mapping[int, object]) -> bool:
    seen = {pid}
    ancestor = parents.get(pid)
    while ancestor is not None and ancestor not in seen:
        if ancestor in runners:
            return True
        seen.add(ancestor)
        ancestor = parents.get(ancestor)
    return False


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
    for pid, record in records.items():
        argv = record.argv
        if not isinstance(argv, Unknown) and argv:
            match = detect(argv)
            if match is not None:
                matches[pid] = match
    if not matches:
        return []
    parents = parent_map(records)
    children = _children_of(parents)
    return [
        FoldedRun(
            authority=records[pid],
            kind=matches[pid].kind,
            role=matches[pid].role,
            members=(pid, *sorted(_descendants(pid, children))),
        )
        for pid in sorted(matches)
        if not _has_runner_above(pid, parents, matches)
    ]
