"""How far one scan climbs the tree for other users' processes: a bound on the walks' work.

A process's checkout root is found by climbing from its cwd, one directory
at a time, looking at about twenty marker names in each (:mod:`.checkout`).
A walk stops at the first ``.git``, at the top of the process's tree, or
after :data:`~runctx.checkout.MAX_DEPTH` directories; walks from one
directory are made once per scan. That bounds one walk, not a scan: another
user can keep a thousand processes, each in its own directory hundreds of
levels deep (anyone may make them in ``/tmp``), and every one of them costs
a walk of hundreds of directories, tens of milliseconds each, so a
``status`` beside them took 24 s of CPU. A climb in another mount namespace
that finds no ``.git`` reads that namespace's ``mountinfo`` too (up to 1 MiB,
once per namespace and scan), and many namespaces are as cheap to make.

An other user's run is foreign by its owner alone; its checkout is only
shown. So the directories climbed for other users' processes are counted
over one scan (and the ``mountinfo`` read for them, at
:data:`MOUNTINFO_BYTES_PER_DIRECTORY`), and past :data:`CLIMBED_MAX` their checkouts are not looked
for: each is an explicit unknown (:meth:`ClimbBudget.unknown`) and the scan
says how many. The viewer's own processes are never charged (whether a run
is ours depends on its checkout), nor those of a user who may write the
viewer's checkout (whether they work in this very tree is a question the
policy asks).
"""

from __future__ import annotations

from collections.abc import Callable

from runctx.unknown import Reason, Unknown

CLIMBED_MAX = 1024
"""Directories one scan climbs, in all, to find the checkouts of other users' processes."""
MOUNTINFO_BYTES_PER_DIRECTORY = 2048
"""A climb that reads another mount namespace's ``mountinfo`` is charged a directory for
each of these bytes: reading and splitting 2 KiB of it costs about what climbing one
directory does."""


class ClimbSpentError(Exception):
    """Raised by a walk when the scan's budget is spent; the walk gives up.

    ``unknown``: the root the walk gives instead (:func:`not_climbed`).
    """

    def __init__(self, unknown: Unknown) -> None:
        """Hold the unknown root the walk gives."""
        super().__init__(unknown.detail)
        self.unknown = unknown


class ClimbBudget:
    """What walks for other users' processes may still climb in one scan.

    ``spared(uid)``: whether a walk for a process of ``uid`` (not the
    viewer) is not charged, because its checkout may decide something.
    """

    __slots__ = ("_spared", "_verdicts", "left", "most")

    def __init__(self, spared: Callable[[int], bool], most: int | None = None) -> None:
        """Allow ``most`` directories (default :data:`CLIMBED_MAX`) for uids not ``spared``."""
        self.most = CLIMBED_MAX if most is None else most
        self.left = self.most
        self._spared = spared
        self._verdicts: dict[int, bool] = {}

    def charges(self, uid: int | Unknown, viewer_uid: int | Unknown) -> bool:
        """Whether a walk for a process of ``uid``, seen by ``viewer_uid``, is charged.

        Only a known other uid is: a process whose owner is not known may be
        the viewer's.
        """
        if isinstance(uid, Unknown) or isinstance(viewer_uid, Unknown) or uid == viewer_uid:
            return False
        if uid not in self._verdicts:
            self._verdicts[uid] = not self._spared(uid)
        return self._verdicts[uid]

    def climb(self, directories: int = 1) -> None:
        """Charge ``directories`` looked at; raise :class:`ClimbSpentError` once none is left."""
        if self.left <= 0:
            raise ClimbSpentError(self.unknown())
        self.left -= directories

    def read_mountinfo(self, size: int) -> None:
        """Charge reading ``size`` bytes of another namespace's ``mountinfo``; raise once spent."""
        self.climb(-(-size // MOUNTINFO_BYTES_PER_DIRECTORY))

    def unknown(self) -> Unknown:
        """Why a checkout was not looked for: the budget's bound, as an explicit unknown."""
        return not_climbed(self.most)


NOT_CLIMBED = "checkout not looked for"
"""How the detail of a root a spent budget left unknown begins (:func:`not_climbed`)."""


def not_climbed(most: int) -> Unknown:
    """The unknown root of another user's process once a budget of ``most`` is spent."""
    return Unknown(
        Reason.NOT_READ,
        f"{NOT_CLIMBED}: a scan climbs at most {most} directories for other users' processes",
    )


def was_not_climbed(root: object) -> bool:
    """Whether ``root`` is the unknown a spent budget gives (:func:`not_climbed`)."""
    return (
        isinstance(root, Unknown)
        and root.reason is Reason.NOT_READ
        and root.detail.startswith(f"{NOT_CLIMBED}:")
    )
