"""The report of one scan: the viewpoint, the runs with verdicts, load, limits."""

from __future__ import annotations

import attrs

from runctx.checkout import Root
from runctx.environment import Environment, same_environment
from runctx.identity import Judgement, Verdict
from runctx.record_base import Record
from runctx.records import ProcIdentity
from runctx.sources.load import Load
from runctx.sources.visibility import Visibility
from runctx.unknown import NOT_READ, Unknown


@attrs.frozen(repr=False, eq=False)
class Viewpoint(Record):
    """Who asks: a checkout root and a uid (either may be unknown).

    ``root`` is a :class:`~runctx.checkout.Root`: a path (a ``str``) that also
    knows its directory, so it compares with a run's root as a directory.
    """

    root: Root | Unknown
    uid: int | Unknown


@attrs.frozen(repr=False, eq=False)
class StartedBy(Record):
    """Who started a run (:mod:`runctx.started_by`): a kind, and what identifies it.

    ``kind`` is ``claude-code``, ``codex``, ``github-actions``, ``cron``,
    ``terminal``, ...; ``session`` the agent session, CI job or unit
    invocation that started it, None when the starter has none or it was not
    known; ``detail`` a few words more (the CI workflow and job, the systemd
    unit, the terminal program), None when there is nothing more to say.
    """

    kind: str
    session: str | None
    detail: str | None


@attrs.frozen(repr=False, eq=False)
class Run(Record):
    """One live test run, with the owner and checkout of its authoritative process.

    ``processes`` are the identities (pid plus start) of every live process
    folded into the run, the authoritative one first, as the scan read them;
    ``members`` are their pids. ``root`` is the checkout root of the
    authoritative process's cwd, found through its own view of the file
    system: a path as that process names it, and the directory it is.

    ``orphaned``: the run's authoritative process lost the parent that
    started it (its runner, or the shell or agent that ran it) and was
    reparented to init or a subreaper (:func:`runctx.folding.reparented`).
    ``started_by``: who started it, from what it inherited at exec, or why
    that is not known. ``cpu_now``: the CPUs its processes kept busy over
    the report's CPU window (1.0 is one CPU), or why that was not measured.
    """

    pid: int
    start: int
    kind: str
    argv: tuple[str, ...] | Unknown
    uid: int | Unknown
    cwd: str | Unknown
    root: Root | Unknown
    processes: tuple[ProcIdentity, ...]
    age_seconds: float
    started: float
    cpu_seconds: float | Unknown
    rss_bytes: int | Unknown
    orphaned: bool
    is_self: bool
    started_by: StartedBy | Unknown = NOT_READ
    cpu_now: float | Unknown = NOT_READ
    environment: Environment | Unknown = NOT_READ
    """Where the run imports from (:mod:`runctx.environment`), or why that is not known."""
    shares_environment_with: tuple[int, ...] = ()
    """Runs of other checkouts that import from the same environment (their pids)."""

    @property
    def identity(self) -> ProcIdentity:
        """The (pid, start) of the authoritative process."""
        return ProcIdentity(self.pid, self.start)

    @property
    def members(self) -> tuple[int, ...]:
        """The pid of every live process of the run, the authoritative one first."""
        return tuple(process.pid for process in self.processes)


@attrs.frozen(repr=False, eq=False)
class JudgedRun(Record):
    """A run and its verdict from one viewpoint."""

    run: Run
    judgement: Judgement

    @property
    def foreign(self) -> bool:
        """Whether the run is known to be foreign from the viewpoint."""
        return self.judgement.foreign

    @property
    def shares_tree(self) -> bool:
        """Whether the run is another user's in this very checkout (foreign, same files)."""
        return self.judgement.shares_tree


CUT_NOTE = "time ran out (--timeout)"
"""How the visibility note of a scan cut by its deadline begins."""


def was_cut(report: Report) -> bool:
    """Whether ``report``'s scan was cut by its deadline: what it shows may be incomplete."""
    return any(note.startswith(CUT_NOTE) for note in report.visibility.notes)


@attrs.frozen(repr=False, eq=False)
class Report(Record):
    """Everything one scan found, judged from one viewpoint.

    ``cpu_window`` is the time, in seconds, between the two readings each
    run's ``cpu_now`` comes from (:mod:`runctx.cpu_window`), or why none was
    taken (a scan samples only when asked to, and only when a run besides
    the caller's own is live).
    """

    here: Viewpoint
    runs: tuple[JudgedRun, ...]
    load: Load
    visibility: Visibility
    self_pid: int | Unknown
    taken_at: float
    duration_seconds: float
    cpu_window: float | Unknown = NOT_READ
    not_examined: int = 0
    """Processes a pass did not look into: of other users, or the viewer's own elsewhere.

    A first pass (``scan(essentials_only=True)``) decides whether to refuse:
    another user's process is never ours, so it is read only when it works
    in this very checkout, which its user can write (the shared-tree
    question); the viewer's own process that works in another checkout is
    no run of this one, so it is read only when a run here needs it (an
    ancestor, a member). These others are in no run of this report: a
    report with any of them is not a whole picture of the box.
    """

    @property
    def self_run(self) -> JudgedRun | None:
        """The run that contains the calling process, if it is inside one."""
        return next((judged for judged in self.runs if judged.run.is_self), None)

    @property
    def ours(self) -> tuple[JudgedRun, ...]:
        """Other runs counted as ours: known ours, or unknown (the visible answer)."""
        return tuple(j for j in self.runs if not j.foreign and not j.run.is_self)

    @property
    def ours_known(self) -> tuple[JudgedRun, ...]:
        """Other runs *known* to be ours: both uid and root matched."""
        return tuple(j for j in self.ours if j.judgement.verdict is Verdict.OURS)

    @property
    def foreign(self) -> tuple[JudgedRun, ...]:
        """Runs known to be foreign: contention, never ours."""
        return tuple(j for j in self.runs if j.foreign and not j.run.is_self)

    @property
    def shared_tree(self) -> tuple[JudgedRun, ...]:
        """Foreign runs of other users in this very checkout: they share its files."""
        return tuple(j for j in self.foreign if j.shares_tree)

    def using(self, environment: Environment) -> tuple[JudgedRun, ...]:
        """The runs (this run aside) that import from ``environment``."""
        return tuple(
            j
            for j in self.runs
            if not j.run.is_self and same_environment(j.run.environment, environment)
        )
