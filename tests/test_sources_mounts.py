"""Where the top of another process's mount may sit in the caller's tree: candidates only.

Fed parsed ``mountinfo`` text (hostile names included); that a candidate is
taken only when it is the very directory climbed, and the verdicts that
follow, are proved on real runs in bind mounts (``tests/test_identity.py``).
"""

from __future__ import annotations

from runctx.sources.mounts import (
    CANDIDATES_MAX,
    MOUNT_DEPTH_MAX,
    MountsById,
    MountTable,
    by_mount_id,
    candidates,
)
from runctx.sources.proctext import MountEntry, parse_mountinfo

OURS = parse_mountinfo(
    b"27 1 254:0 / / rw - ext4 /dev/vda rw\n"
    b"40 27 254:0 /srv/data /mnt/data rw - ext4 /dev/vda rw\n"
    b"41 27 0:50 / /home rw - ext4 /dev/vdb rw\n"
    b"42 41 0:50 /u/with\\040space /w\\012nl rw - ext4 /dev/vdb rw\n"
)


def test_a_directory_is_found_below_every_mount_of_its_filesystem_whole_first():
    """The mounts of the directory's filesystem whose root holds it, the whole filesystem first."""
    table = MountTable(OURS)
    assert list(table.paths_of("254:0", "/srv/data/proj/src")) == [
        "/srv/data/proj/src",
        "/mnt/data/proj/src",
    ]
    assert list(table.paths_of("254:0", "/srv/database")) == ["/srv/database"]
    assert list(table.paths_of("254:0", "/srv/data")) == ["/srv/data", "/mnt/data"]
    assert list(table.paths_of("9:9", "/srv/data")) == []


def test_hostile_names_make_paths_of_exactly_their_bytes():
    """A space or newline in a root or mount point is a byte of the path, not a separator."""
    table = MountTable(OURS)
    assert list(table.paths_of("0:50", "/u/with space/proj")) == [
        "/home/u/with space/proj",
        "/w\nnl/proj",
    ]
    assert list(table.paths_of("0:50", "/u/with")) == ["/home/u/with"]


def test_a_mount_is_followed_up_through_its_parents():
    """From the directory's mount up: a bind mount's root first, then the mounts it sits on."""
    theirs = parse_mountinfo(
        b"100 99 0:60 / / rw - overlay overlay rw\n"
        b"101 100 254:0 /srv/data/proj/src /app rw - ext4 /dev/vda rw\n"
        b"102 101 0:61 / /app/tmp rw - tmpfs tmpfs rw\n"
    )
    found = list(candidates(theirs, 102, MountTable(OURS), same_namespace=False))
    assert found == ["/srv/data/proj/src", "/mnt/data/proj/src"]  # the tmpfs and overlay: nowhere


def test_in_the_callers_namespace_a_whole_filesystem_mount_is_no_candidate():
    """In the caller's own namespace only bind mounts of a subdirectory are translated."""
    table = MountTable(OURS)
    assert list(candidates(OURS, 27, table, same_namespace=True)) == []
    assert list(candidates(OURS, 40, table, same_namespace=True)) == ["/srv/data", "/mnt/data"]
    assert list(candidates(OURS, 27, table, same_namespace=False)) == ["/"]
    assert list(candidates(OURS, 12345, table, same_namespace=False)) == []


def test_candidates_are_bounded_whatever_the_mount_table():
    """A cycle of parents or thousands of mounts give at most CANDIDATES_MAX paths, none twice."""
    cycle = (MountEntry(1, 2, "254:0", "/a", "/x"), MountEntry(2, 1, "254:0", "/a", "/y"))
    assert list(candidates(cycle, 1, MountTable(OURS), same_namespace=False)) == ["/a"]
    many = [MountEntry(n, 1, "7:7", "/", f"/m{n}") for n in range(3 * CANDIDATES_MAX)]
    deep = [MountEntry(n, n + 1, "7:7", "/", "/") for n in range(2 * MOUNT_DEPTH_MAX)]
    found = list(candidates(deep, 0, MountTable(many), same_namespace=False))
    assert len(found) == CANDIDATES_MAX
    assert len(set(found)) == len(found)


THEIRS_TEXT = (
    b"100 99 0:60 / / rw - overlay overlay rw\n"
    b"101 100 254:0 /srv/data/proj/src /app rw - ext4 /dev/vda rw\n"
    b"102 101 0:61 / /app/tmp rw - tmpfs tmpfs rw\n"
    b"101 100 254:0 /srv/data/other /app rw - ext4 /dev/vda rw\n"  # one id twice: the later
    b"103 100 0:62 /x /y rw - tmpfs tmpfs rw\n"
    b"103 100 bad /x /y rw - tmpfs tmpfs rw\n"  # a later line that is no mount
    b"104 100 0:63 relative /z rw - tmpfs tmpfs rw\n"
    b"105 100 0:6"  # cut short
)


def test_mounts_parsed_on_demand_are_the_mounts_parsed_at_once():
    """Looked up one by one, the mounts of a text are those of the whole text parsed."""
    whole = by_mount_id(parse_mountinfo(THEIRS_TEXT))
    lazy = MountsById(THEIRS_TEXT)
    for mount_id in (99, 100, 101, 102, 103, 104, 105, 12345):
        assert lazy.get(mount_id) == whole.get(mount_id)
    assert dict(lazy) == whole
    assert list(candidates(lazy, 102, MountTable(OURS), same_namespace=False)) == list(
        candidates(whole, 102, MountTable(OURS), same_namespace=False)
    )
