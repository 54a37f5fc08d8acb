"""Where a directory of another process's mount tree sits in the caller's own.

A run in a container may work in a bind mount of a *subdirectory* of a
checkout (docker compose's ``./backend:/app``, ``mount --bind proj/src /x``):
climbing from its cwd inside its own tree, it reaches the top of that mount
and goes on into the directories its tree holds above it, never the
checkout's. The checkout's ``.git`` is above the mount's *source*, which the
caller sees where it really is.

``mountinfo`` says what each mount is: the filesystem (``major:minor``) and
the directory of it seen at the mount's top (its root, field 4; ``/`` for a
whole filesystem). So the top of the process's mount is, in the caller's
tree, at a mount of the same filesystem whose root holds that directory: that
mount's point, plus the rest of the path (:func:`candidates`). These are only
candidates: anyone who can mount names the paths, so the walk
(:func:`runctx.checkout.root_of_directory`) goes on from one only when it is
the very directory it climbed through, by device and inode.

Pure functions over parsed ``mountinfo`` (:func:`runctx.sources.proctext.parse_mountinfo`):
the procfs source reads it, bounded, once per scan for the caller.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence

from runctx.sources.proctext import MountEntry, parse_mountinfo

MOUNT_DEPTH_MAX = 64
"""No more mounts than this are followed from a directory's mount up through its parents."""
CANDIDATES_MAX = 16
"""No more candidate paths than this are given for one directory."""


def _holds(root: str, path: str) -> bool:
    """Whether the directory ``root`` of a filesystem is ``path`` or above it (text of that fs)."""
    return root in {"/", path} or path.startswith(f"{root.rstrip('/')}/")


def _joined(mount_point: str, rest: str) -> str:
    """``mount_point`` and the ``rest`` below it, as one path."""
    if not rest:
        return mount_point
    return f"{mount_point.rstrip('/')}{rest}"


class MountTable:
    """The caller's mounts by filesystem: where each directory of each filesystem can be seen.

    Of the mounts of one filesystem, those showing more of it come first (the
    shortest root: a whole filesystem, ``/``): there a directory's path shows
    its real parents, not the top of another bind mount.
    """

    __slots__ = ("by_device", "by_id")

    by_device: dict[str, list[MountEntry]]
    by_id: dict[int, MountEntry]

    def __init__(self, entries: Iterable[MountEntry]) -> None:
        """Index ``entries`` (the caller's ``mountinfo``, parsed) by device."""
        by_id = by_mount_id(entries)
        by_device: dict[str, list[MountEntry]] = {}
        for entry in by_id.values():
            by_device.setdefault(entry.device, []).append(entry)
        for mounts in by_device.values():
            mounts.sort(key=lambda entry: len(entry.root))
        object.__setattr__(self, "by_device", by_device)
        object.__setattr__(self, "by_id", by_id)

    def __setattr__(self, name: str, value: object) -> None:
        """Refuse assignment: the table is read once per scan and never changed."""
        msg = f"MountTable is immutable (cannot set {name!r})"
        raise AttributeError(msg)

    def paths_of(self, device: str, path: str) -> Iterator[str]:
        """Where the directory ``path`` of filesystem ``device`` can be seen, if anywhere."""
        for mount in self.by_device.get(device, ()):
            if _holds(mount.root, path):
                rest = path if mount.root == "/" else path[len(mount.root.rstrip("/")) :]
                yield _joined(mount.mount_point, rest)


def by_mount_id(entries: Iterable[MountEntry]) -> dict[int, MountEntry]:
    """Mounts by their id (of two with one id, the later line), built once per namespace."""
    return {entry.mount_id: entry for entry in entries}


class MountsById(Mapping[int, MountEntry]):
    """:func:`by_mount_id` of a ``mountinfo`` text, each line parsed only when asked for.

    Another namespace may hold thousands of mounts, and a scan climbs a few of
    them for each of its processes: the text is split once by id (the first
    field), and a line is parsed when its mount is looked up. A line that is
    not well-formed is no mount, as for :func:`by_mount_id`.
    """

    __slots__ = ("_lines", "_parsed")

    def __init__(self, mountinfo: bytes) -> None:
        """Index the lines of ``mountinfo`` by their first field."""
        self._lines: dict[bytes, list[bytes]] = {}
        self._parsed: dict[int, MountEntry | None] = {}
        for line in mountinfo.split(b"\n"):
            self._lines.setdefault(line.partition(b" ")[0], []).append(line)

    def _entry(self, mount_id: int) -> MountEntry | None:
        if mount_id not in self._parsed:
            lines = self._lines.get(str(mount_id).encode(), [])
            entries = parse_mountinfo(b"\n".join(lines))
            found = by_mount_id(entries).get(mount_id)
            self._parsed[mount_id] = found
        return self._parsed[mount_id]

    def __getitem__(self, mount_id: int) -> MountEntry:
        """The mount of that id; KeyError when there is none."""
        found = self._entry(mount_id) if isinstance(mount_id, int) else None
        if found is None:
            raise KeyError(mount_id)
        return found

    def __iter__(self) -> Iterator[int]:
        """The ids of every well-formed line (each line parsed)."""
        return iter([key for key in self._ids() if self._entry(key) is not None])

    def __len__(self) -> int:
        """How many mounts (each line parsed)."""
        return sum(1 for _ in self)

    def _ids(self) -> list[int]:
        return [int(key) for key in self._lines if key.isdigit()]


def candidates(
    theirs: Sequence[MountEntry] | Mapping[int, MountEntry],
    mount_id: int,
    ours: MountTable,
    *,
    same_namespace: bool,
) -> Iterator[str]:
    """Paths in the caller's tree that may be the top of a mount another process climbed.

    ``theirs`` is that process's ``mountinfo`` (or its :func:`by_mount_id`,
    built once for the many processes of one namespace), ``mount_id`` the mount its
    directory is on; the mounts are taken from that one up through their
    parents (at most :data:`MOUNT_DEPTH_MAX`), and for each, the places the
    caller sees its root at (at most :data:`CANDIDATES_MAX` paths in all, none
    twice). In the caller's own mount namespace a whole-filesystem mount
    (root ``/``) is skipped: climbing it already passed the directory's real
    parents.
    """
    by_id = theirs if isinstance(theirs, Mapping) else by_mount_id(theirs)
    given: set[str] = set()
    current = by_id.get(mount_id)
    for _ in range(MOUNT_DEPTH_MAX):
        if current is None:
            return
        if not (same_namespace and current.root == "/"):
            for path in ours.paths_of(current.device, current.root):
                if path in given:
                    continue
                given.add(path)
                yield path
                if len(given) >= CANDIDATES_MAX:
                    return
        if current.parent_id == current.mount_id:
            return
        current = by_id.get(current.parent_id)
