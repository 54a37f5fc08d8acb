"""The checkout root of a directory, on real directory trees."""

from __future__ import annotations

import subprocess

from proctools import make_checkout

from runctx.checkout import checkout_root
from runctx.unknown import Reason, Unknown


def test_the_nearest_git_directory_wins_over_project_markers(tmp_path):
    """A pyproject.toml below a .git is a subproject of that checkout, not its root."""
    root = make_checkout(tmp_path, "repo")
    sub = root / "packages" / "lib"
    sub.mkdir(parents=True)
    (sub / "pyproject.toml").write_text("")
    assert checkout_root(str(sub)) == str(root)


def test_a_git_file_makes_a_worktree_or_submodule_its_own_root(tmp_path):
    """.git as a file (a worktree, a submodule) is a root of its own."""
    outer = make_checkout(tmp_path, "outer")
    inner = outer / "vendor" / "inner"
    inner.mkdir(parents=True)
    (inner / ".git").write_text("gitdir: ../../.git/modules/inner\n")
    (inner / "src").mkdir()
    assert checkout_root(str(inner / "src")) == str(inner)


def test_a_real_submodule_is_its_own_root(tmp_path):
    """Git submodule add: the submodule's working tree is a separate checkout root."""
    library = make_checkout(tmp_path, "library")
    subprocess.run(["git", "-C", str(library), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(library), "commit", "-qm", "lib"], check=True)
    outer = make_checkout(tmp_path, "outer")
    subprocess.run(
        [
            "git",
            "-C",
            str(outer),
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            str(library),
            "lib",
        ],
        check=True,
    )
    assert (outer / "lib" / ".git").is_file()
    assert checkout_root(str(outer / "lib")) == str(outer / "lib")
    assert checkout_root(str(outer)) == str(outer)


def test_another_vcs_marker_is_used_when_there_is_no_git(tmp_path):
    """A Mercurial checkout is found by its .hg directory."""
    root = tmp_path / "hgrepo"
    (root / ".hg").mkdir(parents=True)
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "pyproject.toml").write_text("")
    assert checkout_root(str(root / "a" / "b")) == str(root)


def test_a_project_marker_is_used_without_any_vcs(tmp_path):
    """Without version control, the nearest project marker names the root."""
    root = tmp_path / "plain"
    (root / "src").mkdir(parents=True)
    (root / "Cargo.toml").write_text("")
    assert checkout_root(str(root / "src")) == str(root)


def test_without_markers_the_directory_itself_is_the_root(tmp_path):
    """Nothing marks a checkout: the directory is its own root (tmp dirs hold no markers)."""
    bare = tmp_path / "nothing" / "here"
    bare.mkdir(parents=True)
    assert checkout_root(str(bare)) == str(bare)


def test_roots_are_compared_after_realpath(tmp_path):
    """A symlinked path into a checkout gives the checkout's real root."""
    root = make_checkout(tmp_path, "real")
    link = tmp_path / "link"
    link.symlink_to(root)
    assert checkout_root(str(link)) == str(root.resolve())


def test_same_name_under_different_parents_gives_different_roots(tmp_path):
    """Two checkouts named alike are two roots."""
    one = make_checkout(tmp_path / "x", "proj")
    two = make_checkout(tmp_path / "y", "proj")
    assert checkout_root(str(one)) != checkout_root(str(two))


def test_a_missing_directory_is_unknown(tmp_path):
    """A cwd that does not exist any more has no knowable root."""
    result = checkout_root(str(tmp_path / "gone"))
    assert isinstance(result, Unknown)
    assert result.reason is Reason.MISSING


def test_an_unknown_cwd_stays_unknown_with_its_reason():
    """The reason of an unreadable cwd is carried to the root."""
    denied = Unknown(Reason.DENIED)
    assert checkout_root(denied) is denied
