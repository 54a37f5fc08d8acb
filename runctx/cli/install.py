"""``runctx install AGENT``: merge runctx's hooks into an agent's settings file.

``AGENT`` is ``claude``, ``codex``, ``gemini``, ``cursor`` or ``copilot``.
``--scope project`` (the default) writes into the checkout of the current
directory, ``--scope user`` into the user's own settings, ``--scope local``
(Claude Code only) into ``.claude/settings.local.json``; ``--file PATH`` names
the file outright. ``--uninstall`` removes exactly what runctx added,
``--dry-run`` prints the change as a diff and writes nothing, ``--command``
sets how the agent calls runctx (default ``runctx``, found on the agent's
``PATH``). See :mod:`runctx.hooks.settings_file` for the merge rules.

A scope's file is found below a directory the user trusts (the checkout
root, whose markers only the user or root can make, or the home directory);
a symbolic link on the way there is followed only when the user or root made
it, so a link another user planted in a shared tree never leads the write
into a file the user did not name. ``--file PATH`` names the file outright,
and is followed as given.

Exit statuses: 0 done (or nothing to do), 1 the file is malformed or cannot
be written (and is left as it was), 2 usage error.
"""

from __future__ import annotations

import argparse
import os
import shutil
import stat
from collections.abc import Mapping
from typing import Any

from runctx.checkout import checkout_root, rules_for
from runctx.exceptions import RunctxError
from runctx.hooks import settings_file
from runctx.hooks.agents import AGENT_NAMES, agent
from runctx.hooks.settings_file import JSONObject
from runctx.present.output import say, write_text
from runctx.unknown import Unknown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.hooks.agents.base import Agent


def add_parser(subparsers: argparse._SubParsersAction[Any], summary: str) -> None:
    """Declare the options of ``install``."""
    parser = subparsers.add_parser(
        "install",
        help=summary,
        description=(
            "Merge runctx's hooks into an agent's settings file: idempotent, atomic, "
            "keeping everything already in the file. --uninstall removes only what runctx "
            "added."
        ),
    )
    parser.add_argument(
        "agent", choices=sorted(AGENT_NAMES), help="the agent whose settings to change"
    )
    parser.add_argument(
        "--scope",
        choices=("project", "user", "local"),
        default="project",
        help=(
            "project: the checkout's settings (default); user: your own settings for every "
            "project; local: .claude/settings.local.json (Claude Code only)"
        ),
    )
    parser.add_argument(
        "--file", metavar="PATH", help="write into PATH instead of the scope's file"
    )
    parser.add_argument("--uninstall", action="store_true", help="remove runctx's hooks")
    parser.add_argument(
        "--dry-run", action="store_true", help="print the change as a diff; write nothing"
    )
    parser.add_argument(
        "--command",
        dest="prefix",
        default="runctx",
        metavar="PREFIX",
        help="how the agent runs runctx (default: runctx, from its PATH; e.g. a full path)",
    )


def settings_path(
    chosen: Agent, scope: str, cwd: str, environ: Mapping[str, str] | None = None
) -> str:
    """The settings file of ``chosen`` at ``scope``, seen from ``cwd``."""
    environ = os.environ if environ is None else environ
    files = chosen.FILES
    if scope == "user":
        base = environ.get(files.user_dir_env, "") if files.user_dir_env else ""
        home = environ.get("HOME") or os.path.expanduser("~")
        if not base:
            base = os.path.join(home, files.user_dir)
        return os.path.join(base, files.user_name)
    relative = files.local if scope == "local" else files.project
    if not relative:
        msg = f"--scope {scope} is for Claude Code only (.claude/settings.local.json)"
        raise RunctxError(msg)
    root = checkout_root(cwd, rules_for([os.geteuid()], environ))
    if isinstance(root, Unknown):
        msg = f"cannot find the checkout of {cwd}: {root}"
        raise RunctxError(msg)
    return os.path.join(root, relative)


def _scope_base(chosen: Agent, scope: str, path: str, environ: Mapping[str, str]) -> str:
    """The directory the scope's file is found under: the checkout root, or the user's dir."""
    if scope == "user":
        files = chosen.FILES
        base = environ.get(files.user_dir_env, "") if files.user_dir_env else ""
        return base or environ.get("HOME") or os.path.expanduser("~")
    relative = chosen.FILES.local if scope == "local" else chosen.FILES.project
    return path[: -len(relative)].rstrip("/") or "/"


MAX_LINKS = 40
"""As the kernel's own limit: no more links are followed on one path."""


def refuse_untrusted_links(path: str, base: str, owners: frozenset[int]) -> None:
    """Raise unless every symbolic link from ``base`` down to ``path`` was made by ``owners``.

    Each component below ``base`` is looked at without following it; a link
    made by a trusted owner is followed (its target's components are checked
    the same way), one made by anyone else stops the install.
    """
    pending = os.path.relpath(path, base).split(os.sep)
    current = base
    links = 0
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        candidate = os.path.dirname(current) if part == ".." else os.path.join(current, part)
        try:
            info = os.lstat(candidate)
        except OSError:
            return  # missing from here on: install creates it, following nothing
        if not stat.S_ISLNK(info.st_mode):
            current = candidate
            continue
        if info.st_uid not in owners:
            msg = (
                f"{candidate} is a symbolic link made by uid {info.st_uid}, neither you nor "
                "root; runctx install does not follow it (it could lead the write anywhere). "
                "Remove it, or name the file to change with --file PATH"
            )
            raise RunctxError(msg)
        links += 1
        if links > MAX_LINKS:
            msg = f"{path}: more than {MAX_LINKS} symbolic links on the way; runctx leaves it"
            raise RunctxError(msg)
        target = os.readlink(candidate)
        if os.path.isabs(target):
            current = "/"
        pending[:0] = target.split("/")


def _check_prefix(prefix: str) -> None:
    if settings_file.face_of(f"{prefix} hook claude") != "claude":
        msg = (
            f"--command {prefix!r} does not end in runctx (e.g. runctx, /opt/venv/bin/runctx, "
            "'uv run runctx'); runctx finds its hooks by that name"
        )
        raise RunctxError(msg)


def run(args: argparse.Namespace) -> int:
    """Install (or uninstall) one agent's hooks; say what changed."""
    chosen = agent(args.agent)
    spec = chosen.INSTALL
    _check_prefix(args.prefix)
    path = args.file or settings_path(chosen, args.scope, os.getcwd())
    if not args.file:
        base = _scope_base(chosen, args.scope, path, os.environ)
        refuse_untrusted_links(path, base, rules_for([os.geteuid()]).owners)

    def change(document: JSONObject, where: str) -> tuple[object, bool]:
        if args.uninstall:
            removed = settings_file.uninstall(spec, document, where)
            return removed, removed > 0
        added = settings_file.install(spec, document, args.prefix, where)
        return added, bool(added)

    def remove_when(document: JSONObject) -> bool:
        if not args.uninstall:
            return False
        return not document or (spec.owns_file and settings_file.is_empty(spec, document))

    outcome = settings_file.update(path, change, dry_run=args.dry_run, remove_when=remove_when)
    if args.dry_run:
        write_text(outcome.diff() or f"runctx: {outcome.path}: nothing would change\n")
        return 0
    write_text(_summary(chosen, outcome, uninstall=args.uninstall) + "\n")
    if not args.uninstall and outcome.changed:
        _warn_if_unreachable(args.prefix)
        say(f"runctx: {chosen.AFTER_INSTALL}")
    return 0


def _summary(chosen: Agent, outcome: settings_file.Update, *, uninstall: bool) -> str:
    if uninstall:
        if not outcome.changed:
            return f"runctx: no runctx hooks in {outcome.path}; nothing changed"
        gone = " (the file held nothing else and was removed)" if outcome.after is None else ""
        return f"runctx: removed {outcome.result} runctx hook(s) from {outcome.path}{gone}"
    if not outcome.changed:
        return f"runctx: the {chosen.TITLE} hooks are already in {outcome.path}; nothing changed"
    added = outcome.result if isinstance(outcome.result, list) else []
    events = ", ".join(f"{entry.event} (runctx hook {entry.face})" for entry in added)
    return f"runctx: added the {chosen.TITLE} hooks to {outcome.path}: {events}"


def _warn_if_unreachable(prefix: str) -> None:
    program = prefix.split(maxsplit=1)[0]
    if shutil.which(program) is None:
        say(
            f"runctx: warning: {program!r} is not on this PATH. The agent must find it to run "
            "the hook (a hook that cannot start lets every command through); install runctx "
            "where the agent looks, or give --command /full/path/to/runctx."
        )
