"""``runctx install git``: the shipped pre-push hook, put where git runs it, and taken out."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from hooktools import hook_env, runctx
from proctools import make_worktree

from runctx.hooks import git_hook, ready


def install_git(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``runctx install git ARGV`` as a separate process in ``cwd``."""
    env = hook_env()
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return runctx("install", "git", *argv, cwd=cwd, env=env)


def test_install_git_writes_the_shipped_hook_executable(checkout):
    """The hook git runs before a push is the shipped file, byte for byte, and executable."""
    sub = checkout / "src"
    sub.mkdir()
    done = install_git(cwd=sub)
    assert done.returncode == 0, done.stderr
    hook = checkout / ".git" / "hooks" / "pre-push"
    assert hook.read_bytes() == Path(ready.PRE_PUSH).read_bytes()
    assert hook.stat().st_mode & stat.S_IXUSR
    assert "installed the pre-push hook" in done.stdout
    assert "git config runctx.prePushCommand" in done.stderr  # what is left to do
    again = install_git(cwd=checkout)
    assert "already" in again.stdout


def test_the_hooks_directory_is_the_one_git_uses(checkout, tmp_path):
    """core.hooksPath and a worktree's shared hooks are where the hook goes."""
    worktree = make_worktree(checkout, tmp_path / "wt")
    assert install_git(cwd=worktree).returncode == 0
    assert (checkout / ".git" / "hooks" / "pre-push").exists()
    subprocess.run(["git", "-C", str(checkout), "config", "core.hooksPath", "githooks"], check=True)
    assert install_git(cwd=checkout).returncode == 0
    assert (checkout / "githooks" / "pre-push").exists()


def test_someone_elses_pre_push_is_never_replaced_or_removed(checkout):
    """A pre-push hook that is not runctx's is refused, and left byte for byte."""
    hook = checkout / ".git" / "hooks" / "pre-push"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\nexec ./my-checks\n")
    for argv in ((), ("--uninstall",)):
        done = install_git(*argv, cwd=checkout)
        assert done.returncode == 1
        assert "is not runctx's" in done.stderr
        assert hook.read_text() == "#!/bin/sh\nexec ./my-checks\n"


def test_uninstall_removes_runctxs_hook(checkout):
    """--uninstall takes runctx's hook out, and says so when there is none."""
    assert install_git(cwd=checkout).returncode == 0
    done = install_git("--uninstall", cwd=checkout)
    assert done.returncode == 0
    assert not (checkout / ".git" / "hooks" / "pre-push").exists()
    assert "no runctx pre-push hook" in install_git("--uninstall", cwd=checkout).stdout


def test_command_names_the_runctx_the_hook_starts(checkout, tmp_path):
    """--command PATH is the runctx the hook runs when runctx is not on git's PATH."""
    runctx = Path(sys.executable).parent / "runctx"
    assert install_git("--command", str(runctx), cwd=checkout).returncode == 0
    hook = checkout / ".git" / "hooks" / "pre-push"
    mark = tmp_path / "ran"
    subprocess.run(
        ["git", "-C", str(checkout), "config", "runctx.prePushCommand", f"touch {mark}"],
        check=True,
    )
    done = subprocess.run(
        [str(hook), "origin", "https://example.invalid/repo.git"],
        input="",
        capture_output=True,
        text=True,
        cwd=checkout,
        env={**hook_env(GIT_DIR=str(checkout / ".git")), "PATH": "/usr/bin:/bin"},
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert mark.exists()
    assert "not found" not in done.stderr  # it was run through runctx, not without it
    refused = install_git("--command", "uv run runctx", cwd=checkout)
    assert refused.returncode == 1
    assert "one program" in refused.stderr


def test_git_hooks_have_no_user_scope(checkout):
    """A pre-push hook belongs to a checkout: --scope user is refused."""
    done = install_git("--scope", "user", cwd=checkout)
    assert done.returncode == 1
    assert "belong to one checkout" in done.stderr


def test_outside_a_git_checkout_install_git_says_so(tmp_path):
    """In a directory git knows nothing of, install git is one clear error."""
    done = install_git(cwd=tmp_path)
    assert done.returncode == 1
    assert "not in a git checkout" in done.stderr


def test_the_marker_names_the_shipped_hook():
    """The shipped hook carries the line that makes a pre-push file runctx's."""
    lines = Path(ready.PRE_PUSH).read_text().splitlines()
    assert any(line.startswith(git_hook.MARK) for line in lines)
    assert git_hook.DEFAULT_LINE in lines
