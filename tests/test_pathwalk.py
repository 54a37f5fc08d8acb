"""The walk up to the nearest marker: linear in depth, markers never opened, FIFOs no markers."""

from __future__ import annotations

import os

import pytest

from runctx.checkout import MARKER_GROUPS, checkout_root
from runctx.pathwalk import PATH_MAX, nearest_marked, resolve, too_long
from runctx.unknown import Reason, Unknown


def test_a_fifo_named_like_a_marker_is_no_marker(tmp_path):
    """A FIFO planted as pyproject.toml in a parent makes no checkout root."""
    work = tmp_path / "shared" / "work"
    work.mkdir(parents=True)
    os.mkfifo(tmp_path / "shared" / "pyproject.toml")
    (tmp_path / "pyproject.toml").write_text("")
    assert checkout_root(str(work)) == str(tmp_path)


def test_a_symlinked_marker_counts_by_what_it_names(tmp_path):
    """A pyproject.toml that is a symlink to a regular file is a marker; to a FIFO it is not."""
    (tmp_path / "real.toml").write_text("")
    os.mkfifo(tmp_path / "fifo")
    good = tmp_path / "good"
    good.mkdir()
    (good / "pyproject.toml").symlink_to(tmp_path / "real.toml")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "pyproject.toml").symlink_to(tmp_path / "fifo")
    assert nearest_marked(str(good), MARKER_GROUPS) == str(good)
    assert nearest_marked(str(bad), MARKER_GROUPS) != str(bad)


def test_the_first_group_wins_wherever_it_is(tmp_path):
    """.git far up beats a VCS marker nearer, which beats a project marker nearer still."""
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    (tmp_path / ".git").mkdir()
    (tmp_path / "a" / ".hg").mkdir()
    (tmp_path / "a" / "b" / "pyproject.toml").write_text("")
    groups = MARKER_GROUPS
    assert nearest_marked(str(deep), groups) == str(tmp_path)
    assert nearest_marked(str(deep), groups[1:]) == str(tmp_path / "a")
    assert nearest_marked(str(deep), groups[2:]) == str(tmp_path / "a" / "b")


def test_the_walk_asks_the_kernel_one_component_at_a_time(tmp_path, monkeypatch):
    """Every marker lookup is relative to an open directory: each costs the same at any depth.

    The walk makes at most one lookup per marker and one open per level, so
    its work is linear in the depth, where lookups by full path cost depth
    times depth.
    """
    deep = tmp_path
    for _ in range(200):
        deep = deep / "d"
    deep.mkdir(parents=True)
    depth = str(deep).count("/")
    lookups = []
    by_path = []
    opens = []
    real_stat = os.stat
    real_lstat = os.lstat
    real_open = os.open

    def counting_stat(path, *args, **kwargs):
        if kwargs.get("dir_fd") is not None and "/" not in str(path):
            lookups.append(path)
        else:
            by_path.append(path)
        return real_stat(path, *args, **kwargs)

    def counting_lstat(path, *args, **kwargs):
        by_path.append(path)
        return real_lstat(path, *args, **kwargs)

    def counting_open(path, *args, **kwargs):
        opens.append(path)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counting_stat)
    monkeypatch.setattr(os, "lstat", counting_lstat)
    monkeypatch.setattr(os, "open", counting_open)
    markers = sum(len(group) for group in MARKER_GROUPS)
    nearest_marked(str(deep), MARKER_GROUPS)
    assert by_path == []
    assert depth < len(lookups) <= markers * (depth + 1)
    assert len(opens) <= depth + 1
    assert all(path == ".." for path in opens[1:])


def test_a_path_longer_than_path_max_is_unknown_at_once():
    """A cwd of hundreds of thousands of components is refused before any walk."""
    huge = "/" + "a/" * 520_000
    assert too_long(huge)
    assert not too_long("/" + "a" * (PATH_MAX - 2))
    root = checkout_root(huge)
    assert isinstance(root, Unknown)
    assert root.reason is Reason.MISSING
    assert "PATH_MAX" in root.detail


def test_resolve_is_realpath(tmp_path):
    """The kernel's name for a directory is what realpath gives, symlinks resolved."""
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert resolve(str(tmp_path / "link")) == os.path.realpath(tmp_path / "link")
    missing = str(tmp_path / "link" / "gone" / "..")
    assert resolve(missing) == os.path.realpath(missing)


@pytest.mark.parametrize("levels", [0, 1, 3])
def test_the_root_directory_is_reached(levels, tmp_path):
    """The walk ends at ``/``, which is a root like any other directory."""
    start = tmp_path
    for _ in range(levels):
        start = start / "x"
    start.mkdir(parents=True, exist_ok=True)
    assert nearest_marked(str(start), (("usr", "bin", "etc"),)) == "/"
