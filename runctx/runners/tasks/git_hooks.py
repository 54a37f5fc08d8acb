"""The git hooks a ``git commit`` or ``git push`` runs: a pre-commit hook that runs the tests.

A checkout's hooks often run its tests: a ``pre-push`` hook that runs
``npm test``, a pre-commit framework hook ``entry: pytest``, a lefthook
command ``run: go test ./...``, husky's ``.husky/pre-commit``. Then ``git
commit`` (or ``git push``) starts a test run of the checkout like any
runner, and a second one beside a live run collides with it.

The hooks are found as git finds them: the checkout's git directory (``.git``,
or the directory a worktree's ``.git`` file names, and its common
directory), ``core.hooksPath`` of its ``config`` (else of the user's global
git config), else ``hooks/`` of the common directory. Each hook the command
runs (``commit``: ``pre-commit`` and ``post-commit``; ``push``:
``pre-push``) is read:

- a hook the pre-commit framework installed runs the hooks of its
  configuration (``.pre-commit-config.yaml``, or the ``--config`` it names)
  that run at that stage (their ``stages``, else the ``default_stages``, else
  every stage): each one's ``entry`` and ``args``, read for the ``repo: local``
  hooks and for another repository's hook whose ``entry`` the configuration
  sets (it overrides the repository's); the other hooks of other repositories
  are linters fetched from elsewhere, not read;
- a hook lefthook installed runs the ``run`` commands of its section of
  ``lefthook.yml`` (``.lefthook.yml``, ``lefthook.yaml``);
- husky's (``core.hooksPath`` ``.husky/_``) runs ``.husky/HOOK``;
- any other hook is a script: a shell script's text, or the commands a
  Python, JavaScript or Ruby hook starts (:mod:`runctx.runners.spawned`).

The frameworks' own commands run the same hooks without git: ``pre-commit run
[HOOK] [--all-files] [--hook-stage STAGE]`` the local hooks of that stage
(``pre-commit`` by default), ``lefthook run HOOK`` that section's commands,
``lint-staged`` the commands of its configuration.

A hook script that runs ``lint-staged`` runs the commands of the
``lint-staged`` key of ``package.json`` (or ``.lintstagedrc.json``) too.
Every file is read through the project files of the command (bounded, regular
files only, owned by the caller or root). ``--no-verify`` (``-n``) runs no
hook: the row refuses it.
"""

from __future__ import annotations

import json
import os

from runctx.checkout import nearest_holding
from runctx.runners.spawned import language, spawned
from runctx.runners.tasks.scripts import owned

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall

HOOKS_OF = {"git-commit": ("pre-commit", "post-commit"), "git-push": ("pre-push",)}
"""The hooks each command runs, by the kind of its row."""
_STAGE_ALIASES = {"pre-commit": "commit", "pre-push": "push", "post-commit": "post-commit"}
"""pre-commit's former names of its stages (``stages: [commit]``)."""
_STAGE_NAMES = {alias: stage for stage, alias in _STAGE_ALIASES.items()}
_STAGES = frozenset(
    {*_STAGE_ALIASES, *_STAGE_ALIASES.values(), "pre-merge-commit", "merge-commit", "manual"}
    | {"commit-msg", "post-checkout", "post-merge", "post-rewrite", "pre-rebase"}
    | {"prepare-commit-msg", "pre-auto-gc"}
)
"""The stages of the pre-commit framework (``--hook-stage``), by either name."""
_PRE_COMMIT_CONFIG = ".pre-commit-config.yaml"
_LEFTHOOK_FILES = ("lefthook.yml", ".lefthook.yml", "lefthook.yaml", ".lefthook.yaml")
_MAX_LINES = 4096
"""Lines of a configuration read, at most."""


def texts(call: TaskCall, directory: str, files: ProjectFiles) -> list[str] | None:
    """The command lines the hooks of ``call`` (``git commit``) run, or None when none is there."""
    found = _git_directories(directory, files)
    if call.kind in _RUN_DIRECTLY:
        top = found[0] if found is not None else directory
        return _RUN_DIRECTLY[call.kind](call, top, files) or None
    if found is None:
        return None
    top, common = found
    hooks = _hooks_directory(top, common, files)
    lines: list[str] = []
    for hook in HOOKS_OF.get(call.kind, ()):
        lines.extend(_hook_lines(hook, hooks, top, files))
    return lines or None


def _read(path: str, files: ProjectFiles) -> str | None:
    """The text of the file at ``path``, through the command's project files; None if unread."""
    if not owned(path):
        return None
    text = files.parsed(path, _decoded)
    return text if isinstance(text, str) else None


def _decoded(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _git_directories(directory: str, files: ProjectFiles) -> tuple[str, str] | None:
    """The top of the worktree holding ``directory`` and its common git directory."""
    as_directory = nearest_holding(directory, [".git"], kind="directory")
    as_file = nearest_holding(directory, [".git"], kind="file")
    nearest = max((p for p in (as_directory, as_file) if p), key=len, default=None)
    if nearest is None:
        return None
    top = os.path.dirname(nearest)
    if nearest == as_directory:
        return top, nearest
    text = _read(nearest, files)  # a worktree's or a submodule's ``gitdir: PATH``
    if text is None or not text.startswith("gitdir:"):
        return None
    gitdir = os.path.join(top, text[len("gitdir:") :].strip())
    common = _read(os.path.join(gitdir, "commondir"), files)
    return top, os.path.normpath(os.path.join(gitdir, common.strip()) if common else gitdir)


def _hooks_directory(top: str, common: str, files: ProjectFiles) -> str:
    """``core.hooksPath`` (the repository's, else the user's), else the common ``hooks/``."""
    for config in (os.path.join(common, "config"), *_global_configs()):
        text = _read(config, files) if os.path.isfile(config) else None
        path = _hooks_path(text) if text is not None else None
        if path:
            return os.path.join(top, os.path.expanduser(path))
    return os.path.join(common, "hooks")


def _global_configs() -> tuple[str, ...]:
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    return os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config")


def _hooks_path(config: str) -> str | None:
    """``hooksPath`` of the ``[core]`` section of a git config's text."""
    section = ""
    for line in config.splitlines()[:_MAX_LINES]:
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped.strip("[]").strip().lower()
            continue
        key, equals, value = stripped.partition("=")
        if section == "core" and equals and key.strip().lower() == "hookspath":
            return value.split("#", 1)[0].split(";", 1)[0].strip().strip('"') or None
    return None


def _hook_lines(hook: str, hooks: str, top: str, files: ProjectFiles) -> list[str]:
    """The command lines one installed hook runs."""
    path = os.path.join(hooks, hook)
    if not os.path.isfile(path):
        return []
    if os.path.basename(hooks) == "_" and os.path.basename(os.path.dirname(hooks)) == ".husky":
        path = os.path.join(os.path.dirname(hooks), hook)  # husky 9: ``_/HOOK`` runs ``HOOK``
        if not os.path.isfile(path):
            return []
    text = _read(path, files)
    if text is None:
        return []
    if "hook-impl" in text and "pre-commit" in text:
        return _pre_commit_lines(hook, text, top, files)
    if "lefthook" in text and "run" in text:
        return _lefthook_lines(hook, top, files)
    lang = language(path, text)
    lines = list(spawned(lang, text).commands) if lang is not None else [text]
    if "lint-staged" in text:
        lines.extend(_lint_staged_lines(top, files))
    return lines


def _pre_commit_lines(hook: str, script: str, top: str, files: ProjectFiles) -> list[str]:
    """The hooks of the pre-commit configuration that run at ``hook`` (each with an entry)."""
    config = _PRE_COMMIT_CONFIG
    for word in script.split():
        if word.startswith("--config="):
            config = word[len("--config=") :].strip("'\"")
    return _pre_commit_stage(os.path.join(top, config), hook, None, files)


def _pre_commit_stage(config: str, stage: str, only: str | None, files: ProjectFiles) -> list[str]:
    """The command lines of the hooks of ``config`` run at ``stage`` (``only``: one id).

    A hook of another repository has an entry only where the configuration sets one.
    """
    text = _read(config, files)
    if text is None:
        return []
    default, hooks = _pre_commit_hooks(text)
    lines = []
    for hook_keys in hooks:
        stages = hook_keys.get("stages") or default
        if stages and stage not in stages and _STAGE_ALIASES.get(stage) not in stages:
            continue
        entry = hook_keys.get("entry")
        if entry and (only is None or only in hook_keys.get("id", [])):
            lines.append(" ".join([entry[0], *hook_keys.get("args", [])]))
    return lines


def _pre_commit_run(call: TaskCall, top: str, files: ProjectFiles) -> list[str]:
    """``pre-commit run [HOOK] [--hook-stage STAGE]``: the hooks with an entry it runs.

    The row takes no option's value, so a stage's name among the words is
    ``--hook-stage``'s (no hook is named for a stage); the stage is
    ``pre-commit`` without one.
    """
    stages = [name for name in call.names if name in _STAGES]
    ids = [name for name in call.names if name not in _STAGES]
    stage = _STAGE_NAMES.get(stages[0], stages[0]) if stages else "pre-commit"
    config = os.path.join(top, call.file or _PRE_COMMIT_CONFIG)
    return _pre_commit_stage(config, stage, ids[0] if ids else None, files)


def _lefthook_run(call: TaskCall, top: str, files: ProjectFiles) -> list[str]:
    """``lefthook run HOOK``: the ``run`` commands of that section."""
    return _lefthook_lines(call.names[0], top, files) if call.names else []


def _pre_commit_hooks(text: str) -> tuple[list[str], list[dict[str, list[str]]]]:
    """The ``default_stages`` and each hook's ``entry``, ``args`` and ``stages``, as written.

    Read line by line: a ``repo:`` starts a repository, an ``id:`` a hook of
    it; ``entry`` is a scalar, ``args`` and ``stages`` flow lists or block
    lists of the hook.
    """
    reading = _PreCommitConfig()
    for line in text.splitlines()[:_MAX_LINES]:
        if line.strip() and not line.lstrip().startswith("#"):
            reading.line(line)
    return reading.default, reading.hooks


class _PreCommitConfig:
    """The reading of a pre-commit configuration, a line at a time."""

    __slots__ = ("default", "hooks", "listing", "listing_indent")

    def __init__(self) -> None:
        self.default: list[str] = []
        self.hooks: list[dict[str, list[str]]] = []
        self.listing: list[str] | None = None  # the block list being read: ``args:``, ``- x``
        self.listing_indent = -1

    def line(self, line: str) -> None:
        indent = len(line) - len(line.lstrip(" -"))
        body = line.strip().lstrip("-").strip()
        in_list = self.listing is not None and indent > self.listing_indent
        if in_list and line.strip().startswith("-") and (":" not in body or body[:1] in "\"'"):
            assert self.listing is not None  # noqa: S101 - in_list says so
            self.listing.append(_unquoted(body))
            return
        self.listing = None
        key, colon, value = body.partition(":")
        if colon:
            self._pair(key.strip(), value.split(" #", 1)[0].strip(), indent)

    def _pair(self, key: str, value: str, indent: int) -> None:
        if key == "default_stages":
            self.default = _flow(value)
        elif key == "id":
            self.hooks.append({"id": [_unquoted(value)]})
        elif self.hooks and key == "entry":
            self.hooks[-1][key] = [_unquoted(value)]
        elif self.hooks and key in {"args", "stages"}:
            if value:
                self.hooks[-1][key] = _flow(value)
            else:
                self.listing = self.hooks[-1].setdefault(key, [])
                self.listing_indent = indent


def _lefthook_lines(hook: str, top: str, files: ProjectFiles) -> list[str]:
    """The ``run`` commands of the ``hook`` section of lefthook's configuration."""
    for name in _LEFTHOOK_FILES:
        path = os.path.join(top, name)
        text = _read(path, files) if os.path.isfile(path) else None
        if text is not None:
            return _section_runs(text, hook)
    return []


def _section_runs(text: str, section: str) -> list[str]:
    """Every ``run:`` value (a block scalar's lines too) inside a top-level ``section:``."""
    lines = text.splitlines()[:_MAX_LINES]
    runs: list[str] = []
    inside = False
    scalar_indent = -1
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent == 0:
            inside = line.split(":", 1)[0].strip().strip("'\"") == section
            scalar_indent = -1
            continue
        if not inside:
            continue
        if scalar_indent >= 0 and indent > scalar_indent:
            runs.append(line.strip())
            continue
        scalar_indent = -1
        key, colon, value = line.strip().lstrip("-").strip().partition(":")
        if colon and key.strip() == "run":
            value = value.strip()
            if value in {"|", ">", "|-", ">-"}:
                scalar_indent = indent
            elif value:
                runs.append(_unquoted(value))
    return runs


_LINT_STAGED_FILES = (
    ("package.json", "lint-staged"),
    (".lintstagedrc.json", ""),
    (".lintstagedrc", ""),
)
"""Where lint-staged's configuration is kept (JSON), and under which key (none: the whole)."""


def _lint_staged_lines(top: str, files: ProjectFiles) -> list[str]:
    """The commands lint-staged runs: its key of ``package.json``, or ``.lintstagedrc.json``."""
    for name, key in _LINT_STAGED_FILES:
        path = os.path.join(top, name)
        text = _read(path, files) if os.path.isfile(path) else None
        if text is None:
            continue
        try:
            document = json.loads(text)
        except (ValueError, RecursionError):
            continue
        tasks = document.get(key) if key and isinstance(document, dict) else document
        if isinstance(tasks, dict):
            return [command for value in tasks.values() for command in _commands(value)]
    return []


def _commands(value: object) -> list[str]:
    """A lint-staged task's commands: one string, or a list of them."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [command for command in value if isinstance(command, str)]
    return []


def _flow(value: str) -> list[str]:
    """The items of a flow list ``[a, 'b']`` (or one scalar)."""
    value = value.strip()
    if value.startswith("[") and value.endswith("]"):
        return [_unquoted(item) for item in value[1:-1].split(",") if item.strip()]
    return [_unquoted(value)] if value else []


def _unquoted(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":  # noqa: PLR2004 - a pair
        return text[1:-1]
    return text


def _lint_staged_run(_call: TaskCall, top: str, files: ProjectFiles) -> list[str]:
    """``lint-staged`` run by hand: the commands of its configuration."""
    return _lint_staged_lines(top, files)


_RUN_DIRECTLY = {
    "pre-commit-run": _pre_commit_run,
    "lefthook-run": _lefthook_run,
    "lint-staged": _lint_staged_run,
}
"""The frameworks' own commands that run hooks without git (``pre-commit run``)."""
