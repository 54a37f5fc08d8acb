"""``runctx install AGENT``: merge runctx's hooks into an agent's settings file.

``AGENT`` is ``claude``, ``codex``, ``gemini``, ``cursor`` or ``copilot``.
``--scope project`` (the default) writes into the checkout of the current
directory, ``--scope user`` into the user's own settings, ``--scope local``
(Claude Code only) into ``.claude/settings.local.json``; ``--file PATH`` names
the file outright. ``--uninstall`` removes exactly what runctx added,
``--dry-run`` prints the change as a diff and writes nothing, ``--command``
sets how the agent calls runctx (default ``runctx``, found on the agent's
``PATH``). See :mod:`runctx.hooks.settings` for the merge rules.

Exit statuses: 0 done (or nothing to do), 1 the file is malformed or cannot
be written (and is left as it was), 2 usage error.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Mapping
from typing import Any

from runctx.checkout import checkout_root
from runctx.exceptions import RunctxError
from runctx.hooks import settings
from runctx.hooks.settings import AgentSpec, HookEntry, JSONObject
from runctx.unknown import Unknown

HOOK_TIMEOUT_SECONDS = 10

SPECS: dict[str, AgentSpec] = {
    "claude": AgentSpec(
        agent="claude",
        title="Claude Code",
        layout="grouped",
        entries=(
            HookEntry("PreToolUse", "claude", matcher="Bash"),
            HookEntry("SessionStart", "claude-session-start"),
        ),
        timeout=HOOK_TIMEOUT_SECONDS,
    ),
    "codex": AgentSpec(
        agent="codex",
        title="Codex CLI",
        layout="grouped",
        entries=(
            HookEntry("PreToolUse", "codex", matcher="Bash"),
            HookEntry("SessionStart", "codex-session-start"),
        ),
        timeout=HOOK_TIMEOUT_SECONDS,
    ),
    "gemini": AgentSpec(
        agent="gemini",
        title="Gemini CLI",
        layout="grouped",
        entries=(
            HookEntry("BeforeTool", "gemini", matcher="run_shell_command", name="runctx"),
            HookEntry(
                "AfterTool", "gemini-after", matcher="run_shell_command", name="runctx-after"
            ),
            HookEntry("SessionStart", "gemini-session-start", name="runctx-session-start"),
        ),
        timeout=HOOK_TIMEOUT_SECONDS * 1000,  # Gemini CLI counts milliseconds
    ),
    "cursor": AgentSpec(
        agent="cursor",
        title="Cursor",
        layout="flat",
        entries=(HookEntry("beforeShellExecution", "cursor"),),
        timeout_key=None,
        handler_type=False,
        version=1,
    ),
    "copilot": AgentSpec(
        agent="copilot",
        title="GitHub Copilot",
        layout="flat",
        entries=(
            HookEntry("preToolUse", "copilot"),
            HookEntry("sessionStart", "copilot-session-start"),
        ),
        command_key="bash",
        timeout_key="timeoutSec",
        timeout=HOOK_TIMEOUT_SECONDS,
        version=1,
        owns_file=True,
        blocks_on_failure=True,
    ),
}
"""What each agent gets. The ready files in ``hooks/`` are these entries in a new file."""

PROJECT_FILES = {
    "claude": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
    "cursor": ".cursor/hooks.json",
    "copilot": ".github/hooks/runctx.json",
}
LOCAL_FILES = {"claude": ".claude/settings.local.json"}
USER_FILES = {
    "claude": ("CLAUDE_CONFIG_DIR", "~/.claude", "settings.json"),
    "codex": ("CODEX_HOME", "~/.codex", "hooks.json"),
    "gemini": (None, "~/.gemini", "settings.json"),
    "cursor": (None, "~/.cursor", "hooks.json"),
    "copilot": (None, "~/.copilot", "hooks/runctx.json"),
}

AFTER_INSTALL = {
    "claude": "Claude Code reads hooks at startup: restart the session (or open /hooks).",
    "codex": (
        "Codex runs a new command hook only after you review and trust it: open /hooks in "
        "Codex. Project hooks also need the project's .codex/ layer to be trusted."
    ),
    "gemini": (
        "Restart Gemini CLI. Releases that still gate hooks behind a setting need "
        "`tools.enableHooks: true` in ~/.gemini/settings.json."
    ),
    "cursor": "Restart Cursor; project hooks run in trusted workspaces only.",
    "copilot": (
        "The Copilot CLI reads .github/hooks/ in the current directory; the cloud agent "
        "reads it from the default branch, so commit it there."
    ),
}


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Declare the options of ``install``."""
    parser = subparsers.add_parser(
        "install",
        help="merge runctx's hooks into an agent's settings file (or --uninstall them)",
        description=(
            "Merge runctx's hooks into an agent's settings file: idempotent, atomic, "
            "keeping everything already in the file. --uninstall removes only what runctx "
            "added."
        ),
    )
    parser.add_argument("agent", choices=sorted(SPECS), help="the agent whose settings to change")
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
    agent: str, scope: str, cwd: str, environ: Mapping[str, str] | None = None
) -> str:
    """The settings file of ``agent`` at ``scope``, seen from ``cwd``."""
    environ = os.environ if environ is None else environ
    if scope == "user":
        variable, default, name = USER_FILES[agent]
        base = environ.get(variable, "") if variable else ""
        home = environ.get("HOME") or os.path.expanduser("~")
        if not base:
            base = os.path.join(home, default.removeprefix("~/"))
        return os.path.join(base, name)
    files = LOCAL_FILES if scope == "local" else PROJECT_FILES
    if agent not in files:
        msg = f"--scope {scope} is for Claude Code only (.claude/settings.local.json)"
        raise RunctxError(msg)
    root = checkout_root(cwd)
    if isinstance(root, Unknown):
        msg = f"cannot find the checkout of {cwd}: {root}"
        raise RunctxError(msg)
    return os.path.join(root, files[agent])


def _check_prefix(prefix: str) -> None:
    if settings.face_of(f"{prefix} hook claude") != "claude":
        msg = (
            f"--command {prefix!r} does not end in runctx (e.g. runctx, /opt/venv/bin/runctx, "
            "'uv run runctx'); runctx finds its hooks by that name"
        )
        raise RunctxError(msg)


def run(args: argparse.Namespace) -> int:
    """Install (or uninstall) one agent's hooks; say what changed."""
    spec = SPECS[args.agent]
    _check_prefix(args.prefix)
    path = args.file or settings_path(args.agent, args.scope, os.getcwd())

    def change(document: JSONObject, where: str) -> tuple[object, bool]:
        if args.uninstall:
            removed = settings.uninstall(spec, document, where)
            return removed, removed > 0
        added = settings.install(spec, document, args.prefix, where)
        return added, bool(added)

    def remove_when(document: JSONObject) -> bool:
        if not args.uninstall:
            return False
        return not document or (spec.owns_file and settings.is_empty(spec, document))

    outcome = settings.update(path, change, dry_run=args.dry_run, remove_when=remove_when)
    if args.dry_run:
        sys.stdout.write(outcome.diff() or f"runctx: {outcome.path}: nothing would change\n")
        return 0
    sys.stdout.write(_summary(spec, outcome, uninstall=args.uninstall) + "\n")
    if not args.uninstall and outcome.changed:
        _warn_if_unreachable(args.prefix)
        sys.stderr.write(f"runctx: {AFTER_INSTALL[args.agent]}\n")
    return 0


def _summary(spec: AgentSpec, outcome: settings.Update, *, uninstall: bool) -> str:
    if uninstall:
        if not outcome.changed:
            return f"runctx: no runctx hooks in {outcome.path}; nothing changed"
        gone = " (the file held nothing else and was removed)" if outcome.after is None else ""
        return f"runctx: removed {outcome.result} runctx hook(s) from {outcome.path}{gone}"
    if not outcome.changed:
        return f"runctx: the {spec.title} hooks are already in {outcome.path}; nothing changed"
    added = outcome.result if isinstance(outcome.result, list) else []
    events = ", ".join(f"{entry.event} (runctx hook {entry.face})" for entry in added)
    return f"runctx: added the {spec.title} hooks to {outcome.path}: {events}"


def _warn_if_unreachable(prefix: str) -> None:
    program = prefix.split(maxsplit=1)[0]
    if shutil.which(program) is None:
        sys.stderr.write(
            f"runctx: warning: {program!r} is not on this PATH. The agent must find it to run "
            "the hook (a hook that cannot start lets every command through); install runctx "
            "where the agent looks, or give --command /full/path/to/runctx.\n"
        )
