"""A checkout root: a path that also is a directory (device, inode), as values and on disk."""

from __future__ import annotations

import os
import pickle

import pytest
from proctools import make_checkout

from runctx.checkout import Root, checkout_root, root_at, root_of_removed, same_directory
from runctx.unknown import Reason, Unknown


def test_a_root_is_its_path_text_and_holds_its_directory(tmp_path):
    """A root compares and hashes as its text, and carries the directory it names."""
    checkout = make_checkout(tmp_path, "proj")
    root = checkout_root(str(checkout))
    assert isinstance(root, Root)
    assert root == str(checkout)
    assert hash(root) == hash(str(checkout))
    info = os.stat(checkout)
    assert root.directory_id == (info.st_dev, info.st_ino)
    assert not root.deleted
    assert root.shown == str(checkout)


def test_same_directory_compares_directories_not_text():
    """Two texts, one directory: the same; one text, two directories: not; no id: unknown."""
    assert same_directory(Root("/x/bind", (1, 2)), Root("/a/proj", (1, 2))) is True
    assert same_directory(Root("/a/proj", (1, 3)), Root("/a/proj", (1, 2))) is False
    assert same_directory(Root("/a/proj"), Root("/a/proj", (1, 2))) is None
    assert same_directory("/a/proj", Root("/a/proj", (1, 2))) is None


def test_a_root_survives_pickling_whole_and_cannot_be_changed(tmp_path):
    """Roots travel between processes with their directory; assignment is refused."""
    holder = root_at(str(tmp_path))
    assert isinstance(holder, Root)
    removed = Root("/gone/wt", (5, 6), True, holder)  # noqa: FBT003
    back = pickle.loads(pickle.dumps(removed))  # noqa: S301 - our own bytes
    assert (back, back.directory_id, back.deleted, back.holder) == (
        "/gone/wt",
        (5, 6),
        True,
        holder,
    )
    assert back.holder.directory_id == holder.directory_id
    assert back.shown == "/gone/wt (deleted)"
    with pytest.raises(AttributeError):
        removed.deleted = False


def test_a_removed_path_known_by_text_names_its_topmost_removed_directory(tmp_path):
    """Known by text only: the root is the first missing directory, held by the live one above."""
    checkout = make_checkout(tmp_path, "proj")
    gone = checkout / "wt" / "sub" / "deeper"
    root = root_of_removed(str(gone))
    assert root == str(checkout / "wt")
    assert root.deleted
    assert root.directory_id is None
    assert root.holder == str(checkout)


def test_a_path_that_is_no_directory_has_no_root(tmp_path):
    """A file, or nothing at all, is no directory to find a root from."""
    (tmp_path / "file").write_text("")
    for path, reason in ((tmp_path / "file", Reason.MISSING), (tmp_path / "none", Reason.MISSING)):
        result = checkout_root(str(path))
        assert isinstance(result, Unknown)
        assert result.reason is reason
    assert isinstance(root_at(str(tmp_path / "none")), Unknown)
