"""Roots another user cannot forge, one home-directory rule, and install's symlinks.

Markers are planted for real by another uid (root drops to it, as CI does),
and each face is asked as the viewer it would run as.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hooktools import claude_pre_tool_use, hook_env, reply, run_hook
from proctools import OTHER_UID, VIEWER_UID, is_live, make_checkout, run_as

from runctx import policy
from runctx.checkout import checkout_root, rules_for
from runctx.cli.main import main as runctx_main
from runctx.policy import Action
from runctx.scanning import scan, viewpoint
from runctx.shell.commands import test_invocations
from runctx.stopping import StopStatus, stop_runs

RUNCTX = [sys.executable, "-m", "runctx"]


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
    assert seen["action"] == Action.NOTE.value
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
    hooked = reply(run_hook("claude", claude_pre_tool_use("pytest -x", mine), env=env))
    assert "permissionDecision" not in hooked["hookSpecificOutput"]
    stop = [*RUNCTX, "stop", "--grace", "0", str(run.pid)]
    refused = subprocess.run(stop, cwd=mine, env=env, capture_output=True, check=False)
    assert refused.returncode == 4
    assert b"is a foreign run" in refused.stderr
    assert is_live(run.pid)
    stopped = subprocess.run(stop, cwd=theirs, env=env, capture_output=True, check=False)
    assert stopped.returncode == 0, stopped.stderr
    assert not is_live(run.pid)


@pytest.fixture
def planted_link(shared_tmp):
    """A checkout whose .claude/settings.json is a symlink another uid made to a file of ours.

    Making a file as another uid needs root: every test using it is ``needs_root``.
    """
    checkout = make_checkout(shared_tmp, "proj")
    claude = checkout / ".claude"
    claude.mkdir()
    claude.chmod(0o777)
    precious = shared_tmp / "precious.json"
    precious.write_text('{"keep": true}\n')
    run_as(OTHER_UID, os.symlink, str(precious), str(claude / "settings.json"))
    return checkout, precious


@pytest.mark.needs_root
def test_install_refuses_a_symlink_another_user_planted(planted_link):
    """The write never follows a link made by someone else; the file it points to is untouched."""
    checkout, precious = planted_link
    done = subprocess.run(
        [*RUNCTX, "install", "claude"], cwd=checkout, capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert "symbolic link made by uid" in done.stderr
    assert precious.read_text() == '{"keep": true}\n'


def test_install_follows_a_symlink_of_the_users_own(shared_tmp):
    """A settings file the user linked into a dotfiles directory is updated where it points."""
    checkout = make_checkout(shared_tmp, "proj")
    dotfiles = shared_tmp / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "claude.json").write_text("{}\n")
    (checkout / ".claude").mkdir()
    (checkout / ".claude" / "settings.json").symlink_to(dotfiles / "claude.json")
    done = subprocess.run(
        [*RUNCTX, "install", "claude"], cwd=checkout, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "runctx hook claude" in (dotfiles / "claude.json").read_text()
    assert (checkout / ".claude" / "settings.json").is_symlink()
