"""The report of one scan: the viewpoint, the runs with verdicts, load, limits."""

from __future__ import annotations

import attrs

from runctx.identity import Verdict
from runctx.load import Load
from runctx.runs import JudgedRun
from runctx.unknown import Unknown
from runctx.visibility import Visibility


@attrs.frozen
class Viewpoint:
    """Who asks: a checkout root and a uid (either may be unknown)."""

    root: str | Unknown
    uid: int | Unknown


@attrs.frozen
class Report:
    """Everything one scan found, judged from one viewpoint."""

    here: Viewpoint
    runs: tuple[JudgedRun, ...]
    load: Load
    visibility: Visibility
    self_pid: int
    taken_at: float
    duration_seconds: float

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
