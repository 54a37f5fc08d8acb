"""``runctx install git``: the ready ``pre-push`` hook, put where git runs it.

The hook goes into the checkout's hooks directory as git reports it (``git
rev-parse --git-path hooks``: ``.git/hooks``, the main checkout's for a
worktree, or ``core.hooksPath``), executable, written atomically. It is
runctx's when it carries :data:`MARK`; a ``pre-push`` that is someone else's
is never replaced or removed. ``--command PATH`` writes the path runctx is
started by into the hook (default: ``runctx`` from ``PATH``;
``git config runctx.path`` still overrides it).
"""

from __future__ import annotations

import os
import shlex
import subprocess

from runctx.exceptions import RunctxError
from runctx.hooks.ready import PRE_PUSH
from runctx.hooks.settings_file import TEMP_MARK, Update, own_owners
from runctx.planted import (
    NotOwnedError,
    NotRegularFileError,
    check_owned,
    read_bounded,
    write_atomically,
)

MARK = "# runctx pre-push hook"
"""The line that makes a ``pre-push`` file runctx's own."""
DEFAULT_LINE = "runctx=$(git config --get runctx.path) || runctx=runctx"
"""The line of the ready hook that names the program; ``--command`` changes its default."""
HOOK_NAME = "pre-push"


class GitHookError(RunctxError):
    """The pre-push hook cannot be installed or removed here."""


def hooks_directory(cwd: str) -> str:
    """The directory git runs the hooks of the checkout at ``cwd`` from, as an absolute path."""
    try:
        done = _git(cwd, "rev-parse", "--path-format=absolute", "--git-path", "hooks")
    except (OSError, subprocess.SubprocessError) as error:
        msg = f"cannot run git to find the hooks directory: {error}"
        raise GitHookError(msg) from None
    if done.returncode != 0:
        why = " ".join(done.stderr.split()) or f"git exited {done.returncode}"
        msg = f"{cwd} is not in a git checkout ({why})"
        raise GitHookError(msg)
    return done.stdout.strip()


def hook_text(prefix: str) -> str:
    """The ready hook, starting runctx as ``prefix`` unless ``git config runctx.path`` says."""
    with open(PRE_PUSH, encoding="utf-8") as stream:
        text = stream.read()
    if prefix == "runctx":
        return text
    if not os.path.isfile(prefix) and len(shlex.split(prefix)) != 1:
        msg = (
            f"--command {prefix!r}: the pre-push hook starts runctx as one program; give "
            "its path (e.g. /opt/venv/bin/runctx)"
        )
        raise GitHookError(msg)
    return text.replace(DEFAULT_LINE, DEFAULT_LINE.removesuffix("runctx") + shlex.quote(prefix))


def _current(path: str) -> str | None:
    """The text of the hook now there (None: none), refusing what is not runctx's own."""
    try:
        if check_owned(path, own_owners()) is None:
            return None
        data, _whole = read_bounded(path, 1024 * 1024)
    except NotRegularFileError:
        msg = f"{path} is not a regular file (a link or something else); runctx leaves it alone"
        raise GitHookError(msg) from None
    except NotOwnedError as error:
        msg = f"{path} is {error.strerror}; runctx edits only a hook you own, and leaves it alone"
        raise GitHookError(msg) from None
    except OSError as error:
        msg = f"cannot read {path}: {error.strerror or error}; it is left as it was"
        raise GitHookError(msg) from None
    text = data.decode("utf-8", "surrogateescape")
    if not any(line.startswith(MARK) for line in text.splitlines()):
        msg = (
            f"{path} is already there and is not runctx's; runctx leaves it as it is. To take "
            "turns with other test runs there, run the tests in it as "
            "`runctx run --wait -- COMMAND`"
        )
        raise GitHookError(msg)
    return text


def install(path: str, prefix: str, *, uninstall: bool = False, dry_run: bool = False) -> Update:
    """Put runctx's pre-push hook at ``path`` (or take it out); what changed."""
    before = _current(path)
    after = None if uninstall else hook_text(prefix)
    outcome = Update(path=path, before=before, after=after, result=None)
    if dry_run or not outcome.changed:
        return outcome
    try:
        if after is None:
            os.unlink(path)
        else:
            _write_executable(path, after)
    except OSError as error:
        msg = f"cannot write {path}: {error.strerror or error}; it is left as it was"
        raise GitHookError(msg) from None
    return outcome


def _write_executable(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_atomically(
        path, text.encode(), new_mode=0o777, owners=own_owners(), temporary_prefix=TEMP_MARK
    )


def test_command_set(cwd: str) -> bool:
    """Whether ``git config runctx.prePushCommand`` names the tests to run, seen from ``cwd``."""
    try:
        done = _git(cwd, "config", "--get", "runctx.prePushCommand")
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and bool(done.stdout.strip())


def _git(cwd: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``git ARGS`` run in ``cwd``, its output captured as text."""
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=30
    )
