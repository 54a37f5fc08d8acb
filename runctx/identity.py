"""Is a run ours or foreign? Judged on two grounds: owner uid and checkout root.

Each ground is consulted only when both of its inputs are known. Unknown
evidence is never proof of foreignness: calling a real contender foreign would
hide it, while calling a foreign run ours only over-warns. So the error falls
toward the visible answer, and the reasons say what was unknown.
"""

from __future__ import annotations

import enum
from typing import Protocol

import attrs

from runctx.unknown import Reason, Unknown


class HasOwner(Protocol):
    """Anything that names an owner uid and a checkout root (a run, a record)."""

    @property
    def uid(self) -> int | Unknown:
        """The real uid of the owner."""

    @property
    def root(self) -> str | Unknown:
        """The checkout root."""


class Verdict(enum.Enum):
    """The tri-state answer: ours, foreign, or not known (which counts as ours)."""

    OURS = "ours"
    FOREIGN = "foreign"
    UNKNOWN = "unknown"


@attrs.frozen
class Judgement:
    """A verdict and the reasons that make it explainable."""

    verdict: Verdict
    reasons: tuple[str, ...]

    @property
    def foreign(self) -> bool:
        """Whether the run is known to be foreign."""
        return self.verdict is Verdict.FOREIGN


_CWD_PHRASES = {
    Reason.DENIED: "cwd unreadable",
    Reason.GONE: "process gone",
    Reason.ZOMBIE: "process is a zombie",
    Reason.DELETED: "cwd deleted",
    Reason.MISSING: "directory does not exist",
    Reason.OTHER_NAMESPACE: "cwd in another mount namespace",
    Reason.NOT_READ: "cwd not read",
}


def _unknown_reason(ground: str, value: Unknown, *, viewpoint: bool) -> str:
    """Say why a ground could not be consulted: ``root unknown: cwd unreadable (denied)``."""
    phrase = _CWD_PHRASES.get(value.reason, "cwd unknown") if ground == "root" else "unreadable"
    detail = f": {value.detail}" if value.detail else ""
    whose = " for the viewpoint" if viewpoint else ""
    return f"{ground} unknown{whose}: {phrase} ({value.reason.value}{detail})"


def judge(record: HasOwner, here: str | Unknown, here_uid: int | Unknown) -> Judgement:
    """Judge ``record`` from the viewpoint (``here``, ``here_uid``), with reasons."""
    reasons: list[str] = []
    foreign = False
    known_same = 0
    if isinstance(record.uid, Unknown):
        reasons.append(_unknown_reason("uid", record.uid, viewpoint=False))
    elif isinstance(here_uid, Unknown):
        reasons.append(_unknown_reason("uid", here_uid, viewpoint=True))
    elif record.uid != here_uid:
        foreign = True
        reasons.append(f"uid {record.uid} != {here_uid}")
    else:
        known_same += 1
        reasons.append(f"uid {record.uid} == {here_uid}")
    if isinstance(record.root, Unknown):
        reasons.append(_unknown_reason("root", record.root, viewpoint=False))
    elif isinstance(here, Unknown):
        reasons.append(_unknown_reason("root", here, viewpoint=True))
    elif record.root != here:
        foreign = True
        reasons.append(f"root {record.root} != {here}")
    else:
        known_same += 1
        reasons.append(f"root {record.root} == {here}")
    if foreign:
        return Judgement(Verdict.FOREIGN, tuple(reasons))
    if known_same == 2:  # noqa: PLR2004 - both grounds
        return Judgement(Verdict.OURS, tuple(reasons))
    if known_same == 0:
        reasons.append("nothing was known: counted as ours")
    return Judgement(Verdict.UNKNOWN, tuple(reasons))


def is_foreign(record: HasOwner, here: str | Unknown, here_uid: int | Unknown) -> bool:
    """Whether ``record`` is known to be foreign from the viewpoint given.

    Pure: the viewpoint is a parameter, never read from the environment. Each
    ground (uid, root) counts only when both of its inputs are known, so an
    unknown uid or root never makes a run foreign.
    """
    return judge(record, here, here_uid).foreign


def foreign_reasons(
    record: HasOwner, here: str | Unknown, here_uid: int | Unknown
) -> tuple[str, ...]:
    """The reasons behind the verdict, e.g. ``uid 999 != 1000``."""
    return judge(record, here, here_uid).reasons
