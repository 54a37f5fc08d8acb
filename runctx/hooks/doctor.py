"""Will the installed hooks run? What each agent needs besides the settings file.

An agent can hold runctx's hooks in its settings file and still never run
them, in silence: Codex skips a hook whose hash the user has not trusted,
Copilot CLI and Gemini CLI skip project hooks in a folder not trusted, an
override of the agent's home (``COPILOT_HOME``, ``GEMINI_CLI_HOME``,
``CODEX_HOME``, ``CLAUDE_CONFIG_DIR``, ``QWEN_HOME``) moves the file the agent
reads, Codex in a linked git worktree reads the main worktree's file, and a
program the agent cannot find lets every command through. Copilot CLI also
runs the hooks in ``.claude/settings.json``, so with both installed every
command is judged twice.

:func:`diagnose` looks at each agent and scope and gives a :class:`Finding`:
whether runctx's hooks are registered, and what stands between them and a
run (``problems``) or is worth knowing (``notes``), in the words of the
agents' current documentation. Every file is read with a bound; a file that
cannot be read is a problem named as such, never an exception.
"""

from __future__ import annotations

import json
import os
import shutil
import tomllib
from collections.abc import Mapping

import attrs

from runctx.exceptions import RunctxError
from runctx.hooks import json_layout, settings_file
from runctx.hooks.agents import AGENT_NAMES, agent
from runctx.hooks.agents.hosts import user_dir
from runctx.hooks.places import settings_path
from runctx.hooks.settings_file import JSONObject, SettingsFileError, read_text
from runctx.own_cache import cache_note, own_cache
from runctx.record_base import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.hooks.agents.base import Agent


@attrs.frozen(repr=False, eq=False)
class Finding(Record):
    """One agent at one scope: its file, whether runctx's hooks are in it, what stops them."""

    agent: str
    scope: str
    path: str
    registered: tuple[str, ...]
    """The runctx faces the file runs (empty: not installed there)."""
    problems: tuple[str, ...]
    """What keeps a registered hook from running, or makes it run wrong."""
    notes: tuple[str, ...]

    @property
    def installed(self) -> bool:
        """Whether runctx's hooks are in the file."""
        return bool(self.registered)

    @property
    def will_run(self) -> bool:
        """Installed, and nothing known stops them."""
        return self.installed and not self.problems


def _json(path: str) -> JSONObject:
    """A JSON object from ``path`` (comments allowed); ``{}`` when missing or not an object."""
    text = read_text(path)
    if text is None or not text.strip():
        return {}
    try:
        value = json.loads(json_layout.to_strict(text, comments=True, trailing_commas=True))
    except ValueError as error:
        msg = f"{path}: not valid JSON ({error})"
        raise SettingsFileError(msg) from None
    return value if isinstance(value, dict) else {}


def registered_faces(chosen: Agent, path: str) -> tuple[tuple[str, ...], str]:
    """The runctx faces the file at ``path`` runs for ``chosen``, and the command's prefix."""
    text = read_text(path)
    if text is None:
        return (), ""
    document = settings_file.parse(text, path, chosen.INSTALL)
    hooks = document.get("hooks")
    if not isinstance(hooks, dict):
        return (), ""
    faces: list[str] = []
    prefix = ""
    spec = chosen.INSTALL
    for entry in spec.entries:
        items = hooks.get(entry.event)
        if not isinstance(items, list):
            continue
        for handler in settings_file.handlers(spec, items):
            if (
                isinstance(handler, dict)
                and settings_file.handler_face(spec, handler) == entry.face
            ):
                faces.append(entry.face)
                command = handler.get(spec.command_key) or handler.get("command")
                prefix = prefix or settings_file.prefix_of(command) or ""
    return tuple(dict.fromkeys(faces)), prefix


def _program_problem(prefix: str, environ: Mapping[str, str]) -> str | None:
    """A problem when the hook's program is not on the PATH the agent gives its hooks."""
    if not prefix:
        return None
    program = settings_file.program_of(prefix)
    if shutil.which(program, path=environ.get("PATH", os.defpath)) is not None:
        return None
    return (
        f"{program!r} is not on this PATH, which the agent hands down to its hooks: the hook "
        "cannot start, and a hook that cannot start lets every command through. Install "
        "runctx there, or reinstall with --command /full/path/to/runctx"
    )


def _is_below(path: str, top: str) -> bool:
    path, top = os.path.realpath(path), os.path.realpath(top)
    return path == top or path.startswith(top.rstrip("/") + "/")


def _trusted_folder(rules: JSONObject, root: str) -> bool | None:
    """Gemini CLI / Qwen Code ``trustedFolders.json``: trusted, distrusted, or not named."""
    verdict: bool | None = None
    depth = -1
    for path, level in rules.items():
        if not isinstance(path, str) or not isinstance(level, str):
            continue
        where = os.path.dirname(path.rstrip("/")) if level == "TRUST_PARENT" else path
        if level == "DO_NOT_TRUST":
            if os.path.realpath(where) == os.path.realpath(root) and len(where) > depth:
                verdict, depth = False, len(where)
        elif _is_below(root, where) and len(where) > depth:
            verdict, depth = True, len(where)
    return verdict


def _home(environ: Mapping[str, str]) -> str:
    return environ.get("HOME") or os.path.expanduser("~")


# --------------------------------------------------------------------------- per agent


def _claude(root: str | None, environ: Mapping[str, str]) -> tuple[list[str], list[str]]:
    notes: list[str] = []
    state = os.path.join(environ.get("CLAUDE_CONFIG_DIR") or _home(environ), ".claude.json")
    if root is not None:
        projects = _json(state).get("projects")
        entry = projects.get(root) if isinstance(projects, dict) else None
        accepted = isinstance(entry, dict) and entry.get("hasTrustDialogAccepted") is True
        if not accepted:
            notes.append(
                f"the workspace trust dialog has not been accepted for {root}: interactive "
                "Claude Code sessions hold back every hook until it is (claude -p sessions "
                "treat the folder as trusted)"
            )
    return [], notes


def _codex_config(environ: Mapping[str, str]) -> tuple[str, dict[str, object]]:
    home = environ.get("CODEX_HOME") or os.path.join(_home(environ), ".codex")
    path = os.path.join(home, "config.toml")
    text = read_text(path)
    if text is None:
        return path, {}
    try:
        return path, tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        msg = f"{path}: not valid TOML ({error})"
        raise SettingsFileError(msg) from None


def _codex(
    scope: str, root: str | None, path: str, environ: Mapping[str, str]
) -> tuple[list[str], list[str]]:
    problems: list[str] = []
    notes: list[str] = []
    config_path, config = _codex_config(environ)
    features = config.get("features")
    if isinstance(features, dict) and (
        features.get("hooks") is False or features.get("codex_hooks") is False
    ):
        problems.append(f"hooks are turned off in {config_path} ([features] hooks = false)")
    hooks = config.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    key = f"{path}:pre_tool_use:"
    trusted = isinstance(state, dict) and any(
        isinstance(name, str)
        and name.startswith(key)
        and isinstance(value, dict)
        and value.get("trusted_hash")
        and value.get("enabled", True) is not False
        for name, value in state.items()
    )
    if not trusted:
        problems.append(
            "Codex has not trusted this hook, and skips an untrusted hook without a word: "
            "open /hooks in Codex and trust it (automation: codex --dangerously-bypass-hook-trust)"
        )
    else:
        notes.append(
            "Codex trusts this hook by its hash: a change to its text needs trusting again"
        )
    if scope == "project" and root is not None:
        projects = config.get("projects")
        entry = projects.get(root) if isinstance(projects, dict) else None
        if not (isinstance(entry, dict) and entry.get("trust_level") == "trusted"):
            problems.append(
                f"Codex loads a project's .codex/ only when the project is trusted: {root} is "
                'not (trust it when Codex asks, or trust_level = "trusted" under [projects] in '
                f"{config_path})"
            )
        problems += _codex_worktree(root, path)
    return problems, notes


def _codex_worktree(root: str, path: str) -> list[str]:
    """A linked worktree: Codex reads the main worktree's file, once this one has ``.codex/``."""
    main = linked_worktree_main(root)
    if main is None:
        return []
    read = os.path.join(main, ".codex", "hooks.json")
    found: list[str] = []
    if os.path.realpath(path) != os.path.realpath(read):
        found.append(
            f"{root} is a linked git worktree: Codex reads the main worktree's {read}, "
            "not this one (runctx install codex in the main worktree)"
        )
    if not os.path.isdir(os.path.join(root, ".codex")):
        found.append(
            f"{root} is a linked git worktree without a .codex directory: Codex reads no "
            f"project hooks here until it has one (mkdir {os.path.join(root, '.codex')})"
        )
    return found


def linked_worktree_main(root: str) -> str | None:
    """The main worktree of the linked git worktree at ``root``, or None when it is not one."""
    marker = os.path.join(root, ".git")
    if not os.path.isfile(marker):
        return None
    try:
        text = (read_text(marker) or "").strip()
    except SettingsFileError:
        return None
    if not text.startswith("gitdir:"):
        return None
    gitdir = os.path.normpath(os.path.join(root, text[len("gitdir:") :].strip()))
    common = os.path.join(gitdir, "commondir")
    try:
        relative = (read_text(common) or "").strip()
    except SettingsFileError:
        return None
    if not relative:
        return None  # a submodule, not a worktree
    common_dir = os.path.normpath(os.path.join(gitdir, relative))
    return os.path.dirname(common_dir) if os.path.basename(common_dir) == ".git" else None


def _folder_trust(title: str, directory: str, root: str | None, settings: JSONObject) -> list[str]:
    """Gemini CLI / Qwen Code: project hooks need the folder trusted (when folder trust is on)."""
    if root is None:
        return []
    security = settings.get("security")
    folder_trust = security.get("folderTrust") if isinstance(security, dict) else None
    if isinstance(folder_trust, dict) and folder_trust.get("enabled") is False:
        return []
    rules_path = os.path.join(directory, "trustedFolders.json")
    if _trusted_folder(_json(rules_path), root):
        return []
    message = (
        f"{title} runs project hooks only in a trusted folder, and {root} is not trusted "
        f"(trust it when {title} asks, or with /permissions; the list is {rules_path})"
    )
    return [message]


def _gemini_or_qwen(
    name: str, scope: str, root: str | None, environ: Mapping[str, str]
) -> tuple[list[str], list[str]]:
    """Gemini CLI and Qwen Code: hooks turned off in the user's settings, a folder not trusted."""
    chosen = agent(name)
    directory = user_dir(chosen, environ)
    settings = _json(os.path.join(directory, "settings.json"))
    if name == "gemini":
        hooks_config = settings.get("hooksConfig")
        off = isinstance(hooks_config, dict) and hooks_config.get("enabled") is False
        switch = "hooksConfig.enabled is false"
    else:
        off = settings.get("disableAllHooks") is True
        switch = "disableAllHooks is true"
    problems = [f"hooks are turned off: {switch} in {directory}/settings.json"] if off else []
    if scope == "project":
        problems += _folder_trust(chosen.TITLE, directory, root, settings)
    return problems, []


def _copilot(
    scope: str, root: str | None, environ: Mapping[str, str], *, registered: bool
) -> tuple[list[str], list[str]]:
    problems: list[str] = []
    notes: list[str] = []
    directory = user_dir(agent("copilot"), environ)
    if scope == "user" and environ.get("COPILOT_HOME"):
        stray = os.path.join(_home(environ), ".copilot", "hooks", "runctx.json")
        if os.path.realpath(stray) != os.path.realpath(
            os.path.join(directory, "hooks", "runctx.json")
        ):
            faces, _ = registered_faces(agent("copilot"), stray)
            if faces:
                problems.append(
                    f"{stray} holds runctx's hooks, but COPILOT_HOME is set: Copilot reads "
                    f"{directory}/hooks/ instead, never that file"
                )
    if scope == "project" and root is not None:
        config = _json(os.path.join(directory, "config.json"))
        folders = config.get("trustedFolders") or config.get("trusted_folders") or []
        trusted = isinstance(folders, list) and any(
            isinstance(folder, str) and _is_below(root, folder) for folder in folders
        )
        if registered and not trusted:
            problems.append(
                "Copilot CLI skips project hooks without a word in a folder it does not trust: "
                f"{root} is not in trustedFolders of {directory}/config.json (trust it when "
                "Copilot asks)"
            )
        claude = agent("claude")
        for relative in (claude.FILES.project, claude.FILES.local):
            claude_path = os.path.join(root, relative)
            faces, _ = registered_faces(claude, claude_path)
            if not faces:
                continue
            if registered:
                problems.append(
                    f"doubled: Copilot CLI also runs the Claude Code hooks in {claude_path}, so "
                    "every command is judged twice; keep one (runctx install claude "
                    "--uninstall, or runctx install copilot --uninstall)"
                )
            else:
                notes.append(
                    f"Copilot CLI runs the Claude Code hooks in {claude_path}: runctx answers them"
                )
    return problems, notes


# --------------------------------------------------------------------------- all of it


def scopes_of(chosen: Agent) -> tuple[str, ...]:
    """The scopes ``chosen`` has: user and project, and local for Claude Code."""
    return ("user", "project", "local") if chosen.FILES.local else ("user", "project")


def _missing_faces(
    chosen: Agent, faces: tuple[str, ...], scope: str
) -> tuple[list[str], list[str]]:
    """What an install that lacks some of runctx's hooks misses (an older runctx wrote it).

    No command hook: test runs are not checked (a problem). No other hook: a
    note, since what it tells the agent (what was live after a command, at a
    session's start) is lost.
    """
    wanted = [entry.face for entry in chosen.INSTALL.entries]
    absent = [face for face in wanted if face not in faces]
    if not absent:
        return [], []
    fix = f"`runctx install {chosen.NAME} --scope {scope}` adds what is missing"
    if chosen.NAME in absent:
        command = f"runctx hook {chosen.NAME}"
        return [f"its command hook ({command}) is missing: test runs are not checked; {fix}"], []
    hooks = ", ".join(f"runctx hook {face}" for face in absent)
    return [], [f"not installed here: {hooks} (an older runctx wrote this file); {fix}"]


def diagnose_one(
    name: str, scope: str, path: str, root: str | None, environ: Mapping[str, str]
) -> Finding:
    """The finding for agent ``name``'s file at ``path`` (``root``: the checkout, if any)."""
    chosen = agent(name)
    try:
        faces, prefix = registered_faces(chosen, path)
        problems: list[str] = []
        notes: list[str] = []
        program = _program_problem(prefix, environ) if faces else None
        if program:
            problems.append(program)
        if faces:
            missing = _missing_faces(chosen, faces, scope)
            problems += missing[0]
            notes += missing[1]
        extra: tuple[list[str], list[str]] = ([], [])
        if name == "claude":
            extra = _claude(root, environ) if faces else ([], [])
        elif name == "codex" and faces:
            extra = _codex(scope, root, path, environ)
        elif name in {"gemini", "qwen"} and faces:
            extra = _gemini_or_qwen(name, scope, root, environ)
        elif name == "copilot":
            extra = _copilot(scope, root, environ, registered=bool(faces))
        problems += extra[0]
        notes += extra[1]
    except SettingsFileError as error:
        return Finding(name, scope, path, (), (str(error),), ())
    return Finding(name, scope, path, faces, tuple(problems), tuple(notes))


def diagnose(
    names: tuple[str, ...] = AGENT_NAMES,
    *,
    cwd: str,
    environ: Mapping[str, str] | None = None,
) -> list[Finding]:
    """Every agent in ``names`` at every scope, seen from ``cwd``.

    Where runctx's hooks are installed, a note also says when each call of them
    compiles runctx's own modules again (:mod:`runctx.own_cache`).
    """
    environ = os.environ if environ is None else environ
    compiling = cache_note(own_cache(environ=environ))
    found: list[Finding] = []
    for name in names:
        chosen = agent(name)
        for scope in scopes_of(chosen):
            try:
                path = settings_path(chosen, scope, cwd, environ)
            except RunctxError:
                continue  # no project here (a home directory): nothing to say for this scope
            root = None
            if scope != "user":
                relative = chosen.FILES.local if scope == "local" else chosen.FILES.project
                root = path[: -len(relative)].rstrip("/") or "/"
                main = linked_worktree_main(root) if name == "codex" else None
                if main is not None:  # the file Codex reads from a linked worktree
                    path = os.path.join(main, relative)
            finding = diagnose_one(name, scope, path, root, environ)
            if compiling and finding.installed:
                finding = attrs.evolve(finding, notes=(*finding.notes, compiling))
            found.append(finding)
    return found
