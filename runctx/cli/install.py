"""``runctx install AGENT``: merge runctx's hooks into an agent's settings file, or git's.

``AGENT`` is ``claude``, ``codex``, ``gemini``, ``cursor``, ``copilot`` or
``qwen``, or
``git`` for the ``pre-push`` hook (:mod:`runctx.hooks.git_hook`).
``--scope project`` (the default) writes into the checkout of the current
directory, ``--scope user`` into the user's own settings, ``--scope local``
(Claude Code only) into ``.claude/settings.local.json``; ``--file PATH`` names
the file outright. ``--uninstall`` removes exactly what runctx added (and the
directories that this leaves empty, up to the checkout or the home
directory), ``--dry-run`` prints the change as a diff and writes nothing,
``--command`` sets how the agent calls runctx (default ``runctx``, found on
the agent's ``PATH``); given on an existing install, it updates it. See
:mod:`runctx.hooks.settings_file` for the merge rules.

The project scope is refused in a home directory: there the project's
settings file would be the user's own (``~/.claude/settings.json``), which
the agent reads for every project, and Gemini CLI does not read a project
file in the home directory at all.

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
import shlex
import shutil
import stat
from collections.abc import Mapping

from runctx.exceptions import RunctxError
from runctx.hooks import git_hook, settings_file
from runctx.hooks.agents import AGENT_NAMES, agent
from runctx.hooks.agents.base import InstallSpec
from runctx.hooks.agents.hosts import agent_home
from runctx.hooks.doctor import diagnose_one, linked_worktree_main
from runctx.hooks.places import settings_path
from runctx.hooks.settings_file import JSONObject
from runctx.present.output import say, write_text
from runctx.present.words import plural

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.hooks.agents.base import Agent


DESCRIPTION = (
    "Merge runctx's hooks into an agent's settings file: idempotent, atomic, "
    "keeping everything already in the file. --uninstall removes only what runctx "
    "added."
)
"""What ``runctx install --help`` says first."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the options of ``install``."""
    parser.add_argument(
        "agent",
        choices=[*sorted(AGENT_NAMES), GIT],
        help="the agent whose settings to change, or git (the pre-push hook)",
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
        default=None,
        metavar="PREFIX",
        help="how the agent runs runctx (default: runctx, from its PATH; e.g. a full path); "
        "on an existing install, updates it",
    )


GIT = "git"
DEFAULT_PREFIX = "runctx"


def _scope_base(chosen: Agent, scope: str, path: str, environ: Mapping[str, str]) -> str:
    """The directory the scope's file is found under: the checkout root, or the user's dir."""
    if scope == "user":
        files = chosen.FILES
        base = environ.get(files.user_dir_env, "") if files.user_dir_env else ""
        return base or agent_home(chosen, environ)
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


def _shell_prefix(prefix: str) -> str:
    """``--command`` as shell words: a path to a file, given whole, is quoted where it must be.

    ``--command "/opt/my tools/runctx"`` names one program; unquoted in the
    hook's shell line it would be two words, and the guard would take runctx
    for missing and let every command through.
    """
    if os.path.isfile(prefix):
        return shlex.quote(prefix)
    return prefix


def _update_settings(
    args: argparse.Namespace, spec: InstallSpec, path: str, prefix: str, base: str | None
) -> settings_file.Update:
    """Install or uninstall ``spec``'s hooks in the file at ``path``.

    An uninstall that would drop a comment keeps what the comment stands in
    or next to: the emptied ``hooks`` object, then the emptied events too.
    """
    prune = settings_file.PRUNE_ALL

    def change(document: JSONObject, where: str) -> tuple[object, bool]:
        if args.uninstall:
            removed = settings_file.uninstall(spec, document, where, prune=prune)
            return removed, removed > 0
        installed = settings_file.install(
            spec, document, prefix, where, keep_prefix=args.prefix is None
        )
        return installed, installed.changed

    def remove_when(document: JSONObject) -> bool:
        if not args.uninstall:
            return False
        # A file left holding only what runctx writes into a new one (Cursor's and
        # Copilot's {"version": 1}) is runctx's own: it goes.
        owned = spec.owns_file or spec.version is not None
        return not document or (owned and settings_file.is_empty(spec, document))

    fallbacks = [settings_file.PRUNE_EVENTS, settings_file.PRUNE_NOTHING] if args.uninstall else []
    while True:
        try:
            return settings_file.update(
                path,
                change,
                dry_run=args.dry_run,
                remove_when=remove_when,
                spec=spec,
                prune_up_to=base,
            )
        except settings_file.CommentsLostError:
            if not fallbacks:
                raise
            prune = fallbacks.pop(0)


def run(args: argparse.Namespace) -> int:
    """Install (or uninstall) one agent's hooks; say what changed."""
    prefix = args.prefix or DEFAULT_PREFIX
    _check_prefix(prefix)
    if args.agent == GIT:
        return _run_git(args, prefix)
    prefix = _shell_prefix(prefix)
    chosen = agent(args.agent)
    spec = chosen.INSTALL
    path = args.file or settings_path(chosen, args.scope, os.getcwd())
    base = None
    if not args.file:
        base = _scope_base(chosen, args.scope, path, os.environ)
        refuse_untrusted_links(path, base, settings_file.own_owners())
        if args.agent == "codex" and args.scope == "project" and not args.uninstall:
            _refuse_codex_linked_worktree(base)

    outcome = _update_settings(args, spec, path, prefix, base)
    if args.dry_run:
        write_text(outcome.diff() or f"runctx: {outcome.path}: nothing would change\n")
        return 0
    write_text(_summary(chosen, outcome, uninstall=args.uninstall) + "\n")
    if not args.uninstall:
        if outcome.changed:
            _warn_if_unreachable(prefix)
            say(f"runctx: {_after_install(chosen, args.scope, path)}")
        _say_what_remains(args, path, base)
    return 0


def _after_install(chosen: Agent, scope: str, path: str) -> str:
    """What to do next: the agent's own advice for a project's file; for the user's, when it counts.

    An agent's advice is about the project's file (commit it, accept the
    folder's trust); a file in the user's own settings is read in every
    project, from the agent's next session.
    """
    if scope != "user":
        return str(chosen.AFTER_INSTALL)
    return (
        f"{chosen.TITLE} reads {path} for every project you open, from its next session on; "
        "nothing to commit."
    )


def _refuse_codex_linked_worktree(root: str) -> None:
    """Codex reads a linked worktree's hooks from the main worktree: a file here is never read."""
    main = linked_worktree_main(root)
    if main is None:
        return
    msg = (
        f"{root} is a linked git worktree of {main}: Codex reads "
        f"{os.path.join(main, '.codex', 'hooks.json')} there, not a .codex/hooks.json here "
        "(and only when this worktree has a .codex directory), so a hook installed here "
        f"would never run. Install it in the main worktree (cd {shlex.quote(main)} && "
        f"runctx install codex) and mkdir {shlex.quote(os.path.join(root, '.codex'))}, or "
        "install it for yourself with --scope user"
    )
    raise RunctxError(msg)


def _say_what_remains(args: argparse.Namespace, path: str, base: str | None) -> None:
    """What still stands between the installed hooks and a run (``runctx doctor``'s problems)."""
    root = base if args.scope != "user" else None
    finding = diagnose_one(args.agent, args.scope, path, root, os.environ)
    remaining = [p for p in finding.problems if "is not on this PATH" not in p]
    for problem in remaining:
        say(f"runctx: still to do: {problem}")


def _summary(chosen: Agent, outcome: settings_file.Update, *, uninstall: bool) -> str:
    if uninstall:
        if not outcome.changed:
            return f"runctx: no runctx hooks in {outcome.path}; nothing changed"
        gone = " (the file held nothing else and was removed)" if outcome.after is None else ""
        removed = outcome.result if isinstance(outcome.result, int) else 0
        hooks = plural(removed, "runctx hook", "runctx hooks")
        return f"runctx: removed {hooks} from {outcome.path}{gone}"
    if not outcome.changed:
        return f"runctx: the {chosen.TITLE} hooks are already in {outcome.path}; nothing changed"
    installed = outcome.result
    assert isinstance(installed, settings_file.Installed)  # noqa: S101 - what install returns
    parts = []
    if installed.added:
        events = ", ".join(f"{e.event} (runctx hook {e.face})" for e in installed.added)
        parts.append(f"added the {chosen.TITLE} hooks to {outcome.path}: {events}")
    if installed.updated:
        events = ", ".join(f"{e.event} (runctx hook {e.face})" for e in installed.updated)
        parts.append(f"updated the {chosen.TITLE} hooks in {outcome.path}: {events}")
    return "runctx: " + "; ".join(parts)


def _run_git(args: argparse.Namespace, prefix: str) -> int:
    """``runctx install git``: the pre-push hook in this checkout's hooks directory."""
    if args.scope != "project":
        msg = "git hooks belong to one checkout: runctx install git has no --scope user or local"
        raise RunctxError(msg)
    path = args.file or os.path.join(git_hook.hooks_directory(os.getcwd()), git_hook.HOOK_NAME)
    outcome = git_hook.install(path, prefix, uninstall=args.uninstall, dry_run=args.dry_run)
    if args.dry_run:
        write_text(outcome.diff() or f"runctx: {outcome.path}: nothing would change\n")
        return 0
    if args.uninstall:
        done = "removed" if outcome.changed else "no runctx pre-push hook in"
        write_text(f"runctx: {done} {outcome.path}\n")
        return 0
    if not outcome.changed:
        write_text(f"runctx: the pre-push hook is already {outcome.path}; nothing changed\n")
        return 0
    verb = "updated" if outcome.before is not None else "installed"
    write_text(f"runctx: {verb} the pre-push hook: {outcome.path}\n")
    _warn_if_unreachable(_shell_prefix(prefix))
    if not git_hook.test_command_set(os.getcwd()):
        say(
            "runctx: set the tests it runs before each push (until then a push is refused "
            "with this advice): git config runctx.prePushCommand 'pytest -q'"
        )
    return 0


def _warn_if_unreachable(prefix: str) -> None:
    program = settings_file.program_of(prefix)
    if shutil.which(program) is None:
        say(
            f"runctx: warning: {program!r} is not on this PATH. The agent must find it to run "
            "the hook (a hook that cannot start lets every command through); install runctx "
            "where the agent looks, or give --command /full/path/to/runctx."
        )
