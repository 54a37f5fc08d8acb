"""Whether a commit may run a hook, told by the fast path (``fastpath/git_hooks.py``).

On real repositories made with ``git init`` (and ``git worktree add``): only a
checkout that surely has no hook for ``git commit`` or ``git push`` lets the
hook answer without the parser.
"""

from __future__ import annotations

import subprocess

import pytest

from runctx.fastpath.git_hooks import may_run_hooks


@pytest.fixture
def repository(tmp_path, monkeypatch):
    """A fresh repository, with a home of its own (no global git config)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))
    path = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def test_a_fresh_repository_runs_no_hook(repository):
    """``git init``'s samples are no hooks: a commit there surely runs none."""
    assert not may_run_hooks("git commit -m x", str(repository))


def test_a_hook_there_goes_to_the_parser(repository):
    """A ``pre-push`` hook (a link too) means the parser reads it."""
    (repository / ".git" / "hooks" / "pre-push").symlink_to("/bin/true")
    assert may_run_hooks("git push", str(repository))


def test_a_hooks_path_goes_to_the_parser(repository, tmp_path):
    """``core.hooksPath`` in the repository's or the user's config: the parser finds them."""
    subprocess.run(
        ["git", "-C", str(repository), "config", "core.hooksPath", ".husky/_"], check=True
    )
    assert may_run_hooks("git commit -m x", str(repository))
    subprocess.run(
        ["git", "-C", str(repository), "config", "--unset", "core.hooksPath"], check=True
    )
    assert not may_run_hooks("git commit -m x", str(repository))
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ".gitconfig").write_text("[core]\n\thooksPath = ~/hooks\n")
    assert may_run_hooks("git commit -m x", str(repository))


def test_what_it_cannot_see_at_once_goes_to_the_parser(repository, tmp_path):
    """A worktree (a ``.git`` file), no checkout, ``git -C``: the parser decides."""
    git = ["git", "-C", str(repository), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "init"], check=True)
    subprocess.run([*git, "worktree", "add", "-q", str(tmp_path / "wt")], check=True)
    assert may_run_hooks("git commit -m x", str(tmp_path / "wt"))
    assert may_run_hooks("git commit -m x", None)
    assert may_run_hooks("git -C ../other commit -m x", str(repository))


def test_the_fast_path_looks_for_every_hook_the_reader_reads():
    """The hooks looked for here are those the reader behind the parser reads."""
    from runctx.fastpath.git_hooks import HOOK_NAMES
    from runctx.runners.tasks.git_hooks import HOOKS_OF

    assert set(HOOK_NAMES) == {hook for hooks in HOOKS_OF.values() for hook in hooks}
