"""The checkout root of a directory, on real directory trees: a path that also is a directory.

Roots another user cannot forge and the one home-directory rule are proved
with markers planted for real by another uid (root drops to it, as CI does),
and each face is asked as the viewer it would run as.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
from pathlib import Path

import pytest
from hooktools import RUNCTX, claude_pre_tool_use, hook_env, run_hook
from proctools import OTHER_UID, VIEWER_UID, is_live, make_checkout, run_as

from runctx import policy
from runctx.checkout import (
    MARKER_GROUPS,
    MAX_DEPTH,
    PATH_MAX,
    Root,
    RootRules,
    root_of_directory,
    rules_for,
    same_directory,
    too_long,
)
from runctx.cli.main import main as runctx_main
from runctx.policy import Action
from runctx.roots import checkout_root, root_at, root_of_removed
from runctx.scanning import scan, viewpoint
from runctx.shell.commands import test_invocations
from runctx.stopping import StopStatus, stop_runs
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


def _make_projects(shared: str) -> None:
    """The viewer's two unrelated projects in the shared parent."""
    for name in ("proj1", "proj2"):
        project = Path(shared) / name
        project.mkdir()
        project.chmod(0o755)
        (project / "pyproject.toml").write_text("[project]\nname = 'p'\n")


def _plant(shared: str, victim: str) -> None:
    """What another user who can write the shared parent plants there."""
    git = Path(shared) / ".git"
    git.mkdir()
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (Path(shared) / "pyproject.toml").write_text("")
    os.symlink(victim, Path(shared) / ".claude")


def _as_viewer_in_proj2(shared: str, pid: int) -> dict[str, object]:
    """What each face does from proj2, as the viewer: scan, hook decision, stop, install."""
    proj2 = str(Path(shared) / "proj2")
    here = viewpoint(cwd=proj2)
    judged = next(j for j in scan(here).runs if j.run.pid == pid)
    decision = policy.decide(test_invocations("pytest -x", proj2))
    (stopped,) = stop_runs([pid], here, grace=0)
    os.chdir(proj2)
    installed = runctx_main(["install", "claude"])
    return {
        "root": str(checkout_root(proj2)),
        "run_root": str(judged.run.root),
        "foreign": judged.foreign,
        "action": decision.action.value,
        "stop": stopped.status.value,
        "install": installed,
    }


@pytest.mark.needs_root
def test_a_planted_git_in_a_shared_parent_merges_nothing(shared_tmp, runs):
    """Another user's .git above the viewer's projects: no merged checkout, no deny, no stop."""
    shared = shared_tmp / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    run_as(VIEWER_UID, _make_projects, str(shared))
    victim = shared_tmp / "victim"
    victim.mkdir()
    victim.chmod(0o777)
    run_as(OTHER_UID, _plant, str(shared), str(victim))
    proj1, proj2 = shared / "proj1", shared / "proj2"
    run = runs.run_tests_script(proj1, uid=VIEWER_UID)
    seen = run_as(VIEWER_UID, _as_viewer_in_proj2, str(shared), run.pid)
    assert seen["root"] == str(proj2)
    assert seen["run_root"] == str(proj1)
    assert seen["foreign"] is True
    assert seen["action"] in {Action.NOTE.value, Action.SILENT.value}  # it goes ahead
    assert seen["stop"] == StopStatus.REFUSED.value
    assert is_live(run.pid)
    assert seen["install"] == 0
    assert (proj2 / ".claude" / "settings.json").is_file()
    assert list(victim.iterdir()) == []  # the planted .claude led nowhere


@pytest.mark.needs_root
def test_a_marker_owned_by_another_user_is_not_trusted(shared_tmp):
    """A .git or pyproject.toml another uid made does not make a root; root's and ours do."""
    parent = shared_tmp / "parent"
    (parent / "project" / "src").mkdir(parents=True)
    parent.chmod(0o777)
    run_as(OTHER_UID, lambda: (parent / "pyproject.toml").write_text(""))
    src = str(parent / "project" / "src")
    assert checkout_root(src, rules_for([VIEWER_UID])) == src
    assert checkout_root(src, rules_for([OTHER_UID])) == str(parent)
    os.chown(parent / "pyproject.toml", 0, 0)
    assert checkout_root(src, rules_for([VIEWER_UID])) == str(parent)


def test_an_empty_git_directory_is_no_repository(tmp_path):
    """Like git, an empty .git is walked past; one that holds HEAD is a repository."""
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "sub").mkdir()
    (tmp_path / "pyproject.toml").write_text("")
    assert checkout_root(str(project / "sub")) == str(tmp_path)
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    assert checkout_root(str(project / "sub")) == str(project)


def test_a_git_in_home_is_one_rule_for_status_hook_and_stop(shared_tmp, runs):
    """A dotfiles .git in $HOME: the projects below are their own roots for every face."""
    home = make_checkout(shared_tmp, "home")
    mine, theirs = home / "src" / "a", home / "src" / "b"
    for project in (mine, theirs):
        project.mkdir(parents=True)
        (project / "pyproject.toml").write_text("")
    run = runs.run_tests_script(theirs)
    env = hook_env(HOME=str(home))
    status = subprocess.run(
        [*RUNCTX, "status", "--json"], cwd=mine, env=env, capture_output=True, check=True
    )
    report = json.loads(status.stdout.decode(errors="replace"))
    entry = next(e for e in report["runs"] if e["pid"] == run.pid)
    assert report["here"]["root"] == str(mine)
    assert entry["root"] == str(theirs)
    assert entry["verdict"] == "foreign"
    hooked = run_hook("claude", claude_pre_tool_use("pytest -x", mine), env=env)
    assert (hooked.returncode, hooked.stderr) == (0, "")  # silent, or a note: never a deny
    assert "permissionDecision" not in hooked.stdout
    stop = [*RUNCTX, "stop", "--grace", "0", str(run.pid)]
    refused = subprocess.run(stop, cwd=mine, env=env, capture_output=True, check=False)
    assert refused.returncode == 4
    assert b"is a foreign run" in refused.stderr
    assert is_live(run.pid)
    stopped = subprocess.run(stop, cwd=theirs, env=env, capture_output=True, check=False)
    assert stopped.returncode == 0, stopped.stderr
    assert not is_live(run.pid)


# -- the walk: bounded, linear, never opening a marker ----------------------------------


def test_a_fifo_named_like_a_marker_is_no_marker(tmp_path):
    """A FIFO planted as pyproject.toml in a parent makes no checkout root."""
    work = tmp_path / "shared" / "work"
    work.mkdir(parents=True)
    os.mkfifo(tmp_path / "shared" / "pyproject.toml")
    (tmp_path / "pyproject.toml").write_text("")
    assert checkout_root(str(work)) == str(tmp_path)


def root_walking_on(directory: Path, candidates: list[str], asked: list[int]) -> Root:
    """The root of ``directory`` with ``candidates`` offered as its places in our tree."""

    def viewer_paths() -> list[str]:
        asked.append(1)
        return candidates

    handle = os.open(directory, os.O_PATH | os.O_DIRECTORY)
    try:
        top = os.stat("/")
        return root_of_directory(
            handle,
            str(directory),
            top=(top.st_dev, top.st_ino),
            rules=rules_for([os.getuid()]),
            viewer_paths=viewer_paths,
        )
    finally:
        os.close(handle)


def test_our_tree_is_asked_only_when_the_walk_found_no_git(tmp_path):
    """A walk that found a .git never looks for the directory elsewhere; one that did not, once."""
    checkout = make_checkout(tmp_path, "proj")
    (checkout / "src").mkdir()
    asked: list[int] = []
    assert root_walking_on(checkout / "src", [], asked) == str(checkout)
    assert asked == []
    plain = tmp_path / "plain"
    plain.mkdir()
    assert root_walking_on(plain, [], asked) == str(plain)
    assert asked == [1]


def test_a_candidate_that_is_not_the_directory_climbed_is_never_taken(tmp_path):
    """Another checkout, a FIFO, a link, a NUL, a missing or overlong path: the root stays."""
    other = make_checkout(tmp_path, "other")
    (other / "src").mkdir()
    plain = tmp_path / "plain" / "sub"
    plain.mkdir(parents=True)
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "link").symlink_to(other / "src")
    hostile = [
        str(other / "src"),
        str(tmp_path / "fifo"),
        str(tmp_path / "link"),
        f"{other}\0/src",
        str(tmp_path / "missing"),
        "/" + "a/" * 3000,
        "",
    ]
    asked: list[int] = []
    root = root_walking_on(plain, hostile, asked)
    assert root == str(plain)
    assert root.directory_id == (plain.stat().st_dev, plain.stat().st_ino)
    assert asked == [1]


def test_a_socket_or_a_fifo_named_like_a_vcs_marker_is_no_marker(tmp_path):
    """A socket named .hg and a FIFO named .git make no root either."""
    import socket

    work = tmp_path / "a" / "b" / "work"
    work.mkdir(parents=True)
    os.mkfifo(tmp_path / "a" / "b" / ".git")
    with socket.socket(socket.AF_UNIX) as planted:
        planted.bind(str(tmp_path / "a" / ".hg"))
        (tmp_path / "pyproject.toml").write_text("")
        assert checkout_root(str(work)) == str(tmp_path)


def test_a_symlinked_marker_counts_by_what_it_names(tmp_path):
    """A pyproject.toml that is the owner's link to a regular file marks a root; to a FIFO not."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "real.toml").write_text("")
    os.mkfifo(tmp_path / "fifo")
    good = tmp_path / "good"
    good.mkdir()
    (good / "pyproject.toml").symlink_to(tmp_path / "real.toml")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "pyproject.toml").symlink_to(tmp_path / "fifo")
    assert checkout_root(str(good)) == str(good)
    assert checkout_root(str(bad)) == str(tmp_path)


def test_the_first_group_wins_wherever_it_is(tmp_path):
    """.git far up beats a VCS marker nearer, which beats a project marker nearer still."""
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (tmp_path / "a" / ".hg").mkdir()
    (tmp_path / "a" / "b" / "pyproject.toml").write_text("")
    assert checkout_root(str(deep)) == str(tmp_path)
    (tmp_path / ".git" / "HEAD").unlink()
    assert checkout_root(str(deep)) == str(tmp_path / "a")
    (tmp_path / "a" / ".hg").rmdir()
    assert checkout_root(str(deep)) == str(tmp_path / "a" / "b")


class _Calls:
    """The lookups, opens and descriptors of one walk, counted through the os module."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.relative: list[str] = []
        self.by_path: list[str] = []
        self.opens: list[str] = []
        self.held: set[int] = set()
        self.most_held = 0
        real_stat, real_lstat, real_open = os.stat, os.lstat, os.open
        real_access, real_dup, real_close = os.access, os.dup, os.close

        def looked_up(path, kwargs) -> None:
            relative = kwargs.get("dir_fd") is not None and "/" not in str(path)
            (self.relative if relative else self.by_path).append(str(path))

        def stat(path, *args, **kwargs):
            looked_up(path, kwargs)
            return real_stat(path, *args, **kwargs)

        def access(path, *args, **kwargs):
            looked_up(path, kwargs)
            return real_access(path, *args, **kwargs)

        def lstat(path, *args, **kwargs):
            self.by_path.append(str(path))
            return real_lstat(path, *args, **kwargs)

        def hold(fd: int) -> int:
            self.held.add(fd)
            self.most_held = max(self.most_held, len(self.held))
            return fd

        def open_(path, *args, **kwargs):
            self.opens.append(str(path))
            return hold(real_open(path, *args, **kwargs))

        def close(fd):
            self.held.discard(fd)
            return real_close(fd)

        monkeypatch.setattr(os, "stat", stat)
        monkeypatch.setattr(os, "access", access)
        monkeypatch.setattr(os, "lstat", lstat)
        monkeypatch.setattr(os, "open", open_)
        monkeypatch.setattr(os, "dup", lambda fd: hold(real_dup(fd)))
        monkeypatch.setattr(os, "close", close)


def test_the_walk_asks_the_kernel_one_component_at_a_time(tmp_path, monkeypatch):
    """Every lookup is relative to one open directory: the walk is linear in the depth.

    At most one lookup per marker and one ``..`` per level, nothing looked up
    by its full path (which costs depth times depth), and never more than a
    few directories open at once, however deep the start.
    """
    deep = tmp_path.joinpath(*["d"] * 200)
    deep.mkdir(parents=True)
    depth = str(deep).count("/")
    rules = RootRules(owners={0, os.getuid()}, homes=())
    calls = _Calls(monkeypatch)
    root = checkout_root(str(deep), rules)
    markers = sum(len(group) for group in MARKER_GROUPS)
    assert root == str(deep)
    assert calls.by_path == ["/"]  # the top of the caller's view, by (device, inode)
    assert depth < len(calls.relative) <= markers * (depth + 1)
    assert calls.opens[0] == str(deep)
    assert calls.opens[1:] == [".."] * depth
    assert calls.most_held <= 3
    assert calls.held == set()


def test_the_walk_climbs_at_most_max_depth_directories(tmp_path):
    """A .git further up than MAX_DEPTH directories is not looked for: the start is its own root."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    near = tmp_path.joinpath(*["d"] * (MAX_DEPTH - 2))
    far = tmp_path.joinpath(*["d"] * (MAX_DEPTH + 2))
    far.mkdir(parents=True)
    assert checkout_root(str(near)) == str(tmp_path)
    assert checkout_root(str(far)) == str(far)


def test_a_path_longer_than_path_max_is_unknown_at_once():
    """A cwd of hundreds of thousands of components is refused before any walk."""
    huge = "/" + "a/" * 520_000
    assert too_long(huge)
    assert not too_long("/" + "a" * (PATH_MAX - 2))
    assert too_long("/" + "\u00e9" * (PATH_MAX // 2))  # counted in bytes, not characters
    root = checkout_root(huge)
    assert isinstance(root, Unknown)
    assert root.reason is Reason.MISSING
    assert "PATH_MAX" in root.detail


@pytest.mark.parametrize("cwd", ["/tmp/a\x00b", "/tmp/\ud800", "relative\x00"])
def test_a_path_no_kernel_call_takes_is_unknown_not_an_error(cwd):
    """A NUL or a lone surrogate (a hook payload can send both) gives an unknown root."""
    root = checkout_root(cwd)
    assert isinstance(root, Unknown)
    assert root.reason is Reason.MISSING


def test_the_kernel_resolves_the_path_once_links_and_dots_included(tmp_path):
    """A path through a link and a ``..`` names the directory the kernel opens."""
    (tmp_path / "real" / "sub").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    root = checkout_root(str(tmp_path / "link" / "sub" / ".."))
    assert root == os.path.realpath(tmp_path / "real")
    assert checkout_root("/") == "/"
