"""Is a run ours or foreign? Judged on two grounds: owner uid and checkout root.

Each ground is consulted only when both of its inputs are known. Unknown
evidence is never proof of foreignness: calling a real contender foreign would
hide it, while calling a foreign run ours only over-warns. So the error falls
toward the visible answer, and the reasons say what was unknown.

Roots are compared as directories (:func:`runctx.checkout.same_directory`)
when both sides know theirs, by path text otherwise (a root given as a plain
string). A removed root (a deleted worktree) is judged by what is still
known: it is no live checkout, so it is foreign unless it sat inside this
checkout, where it may have been this checkout's own (unknown, counted as
ours). A run of another user whose root is this very checkout stays foreign
(the rule is root *and* uid), and its judgement says it shares the tree when
that user can really write the checkout (:func:`can_write`: root, or the mode
bits of the checkout's top directory for that uid and its groups); a run in a
root-owned ``0755`` checkout its user cannot write shares nothing.
"""

from __future__ import annotations

import enum
import os
import pwd
import stat
from typing import Protocol

import attrs

from runctx.checkout import same_directory, within
from runctx.record_base import Record
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


@attrs.frozen(repr=False, eq=False)
class Judgement(Record):
    """A verdict and the reasons that make it explainable.

    ``shares_tree``: the run is another user's in this very checkout (known
    uids differ, known roots are one directory). It stays foreign, but it
    writes this checkout's files (caches, coverage, build dirs).
    """

    verdict: Verdict
    reasons: tuple[str, ...]
    shares_tree: bool = False

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
    Reason.NOT_READ: "not read",
}


def _unknown_reason(ground: str, value: Unknown, *, viewpoint: bool) -> str:
    """Say why a ground could not be consulted: ``root unknown: cwd unreadable (denied)``."""
    phrase = _CWD_PHRASES.get(value.reason, "cwd unknown") if ground == "root" else "unreadable"
    detail = f": {value.detail}" if value.detail else ""
    whose = " for the viewpoint" if viewpoint else ""
    return f"{ground} unknown{whose}: {phrase} ({value.reason.value}{detail})"


class _Ground(enum.Enum):
    SAME = "same"
    DIFFERENT = "different"
    UNKNOWN = "unknown"


def _shown(root: str) -> str:
    return f"{root} (deleted)" if getattr(root, "deleted", False) else str(root)


def _compare_removed(root: str, here: str) -> tuple[_Ground, str]:
    """A removed root against a live one: it was inside this checkout, or it was not."""
    holder = getattr(root, "holder", None)
    inside = same_directory(holder, here) if holder is not None else None
    if inside is None:
        inside = within(str(root), str(here))
    if inside:
        return _Ground.UNKNOWN, (
            f"root unknown: cwd deleted ({root} was removed from inside {here}, "
            "so it may have been this checkout's)"
        )
    return _Ground.DIFFERENT, f"root {_shown(root)} != {here}: removed, and not inside {here}"


def _compare_roots(root: str, here: str) -> tuple[_Ground, str]:
    """The root ground: one directory, two, or not known (with the reason)."""
    if getattr(root, "deleted", False):
        return _compare_removed(root, here)
    same = same_directory(root, here)
    if same is None:
        same = str(root) == str(here)
    if same and str(root) == str(here):
        return _Ground.SAME, f"root {root} == {here}"
    if same:
        return _Ground.SAME, f"root {root} == {here} (the same directory)"
    if str(root) == str(here):
        return _Ground.DIFFERENT, (
            f"root {root} != {here} (another directory behind the same path)"
        )
    return _Ground.DIFFERENT, f"root {root} != {here}"


def _uid_ground(uid: int | Unknown, here_uid: int | Unknown) -> tuple[_Ground, str]:
    """The uid ground: one owner, two, or not known (with the reason)."""
    if isinstance(uid, Unknown):
        return _Ground.UNKNOWN, _unknown_reason("uid", uid, viewpoint=False)
    if isinstance(here_uid, Unknown):
        return _Ground.UNKNOWN, _unknown_reason("uid", here_uid, viewpoint=True)
    if uid != here_uid:
        return _Ground.DIFFERENT, f"uid {uid} != {here_uid}"
    return _Ground.SAME, f"uid {uid} == {here_uid}"


def _root_ground(root: str | Unknown, here: str | Unknown) -> tuple[_Ground, str]:
    """The root ground: one directory, two, or not known (with the reason)."""
    if isinstance(root, Unknown):
        return _Ground.UNKNOWN, _unknown_reason("root", root, viewpoint=False)
    if isinstance(here, Unknown):
        return _Ground.UNKNOWN, _unknown_reason("root", here, viewpoint=True)
    return _compare_roots(root, here)


def _groups_of(uid: int) -> set[int]:
    """The groups of ``uid`` in the user database (primary and supplementary); none if unknown."""
    try:
        entry = pwd.getpwuid(uid)
        return set(os.getgrouplist(entry.pw_name, entry.pw_gid))
    except (KeyError, OSError):
        return set()


def can_write(uid: int, directory: str) -> bool:
    """Whether ``uid`` may create files in ``directory``, by its owner, group and mode bits.

    Root may; otherwise the owner's bits for its owner, the group's for a
    member of its group, the others' for anyone else (POSIX's order). A
    directory that cannot be looked at is not known to be writable: False.
    """
    if uid == 0:
        return True
    try:
        info = os.stat(directory)
    except (OSError, ValueError):
        return False
    mode = info.st_mode
    if info.st_uid == uid:
        return bool(mode & stat.S_IWUSR)
    if info.st_gid in _groups_of(uid):
        return bool(mode & stat.S_IWGRP)
    return bool(mode & stat.S_IWOTH)


def judge(record: HasOwner, here: str | Unknown, here_uid: int | Unknown) -> Judgement:
    """Judge ``record`` from the viewpoint (``here``, ``here_uid``), with reasons."""
    uid, uid_reason = _uid_ground(record.uid, here_uid)
    root, root_reason = _root_ground(record.root, here)
    reasons = [uid_reason, root_reason]
    if _Ground.DIFFERENT in (uid, root):
        shares = (uid, root) == (_Ground.DIFFERENT, _Ground.SAME)
        if shares and isinstance(record.uid, int) and not can_write(record.uid, str(here)):
            shares = False
            reasons.append(f"uid {record.uid} cannot write this checkout: it shares nothing")
        elif shares:
            reasons.append("another user's run in this very checkout: it shares its files")
        return Judgement(Verdict.FOREIGN, tuple(reasons), shares_tree=shares)
    if (uid, root) == (_Ground.SAME, _Ground.SAME):
        return Judgement(Verdict.OURS, tuple(reasons))
    if (uid, root) == (_Ground.UNKNOWN, _Ground.UNKNOWN):
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
