"""Tasks kept in TOML: ``pdm run``, ``poe``, ``rye run``, ``pipenv run``, ``pixi run``, ``mise``.

Each tool reads its tasks from one table, and a task is a command or names
others to run:

- pdm: ``[tool.pdm.scripts]`` of ``pyproject.toml``: a string, or a table with
  ``cmd`` (a string or a list of words), ``shell`` or ``composite`` (a list of
  script names or commands); ``pre_NAME`` and ``post_NAME`` run around it;
- poe (poethepoet): ``[tool.poe.tasks]`` of ``pyproject.toml``: a string, a
  list (a sequence), or a table with ``cmd``, ``shell``, ``sequence``,
  ``ref``, and ``deps`` run first;
- rye: ``[tool.rye.scripts]`` of ``pyproject.toml``: a string, or a table with
  ``cmd`` or ``chain`` (script names);
- pipenv: ``[scripts]`` of ``Pipfile``: a string (``pipenv run test``);
- pixi: ``[tasks]`` of ``pixi.toml`` (``[tool.pixi.tasks]`` of
  ``pyproject.toml``, and each ``[feature.NAME.tasks]``): a string, or a table
  with ``cmd`` and ``depends-on`` (``depends_on``);
- mise: ``[tasks]`` of ``mise.toml`` (``.mise.toml``, ``.config/mise.toml``,
  ``mise/config.toml``): a string, or a table with ``run`` and ``depends``.

A task that calls Python (``call``, ``script``) runs code runctx does not read:
it gives no command, and the task is decided by its name as when it cannot be
read. Files are read as every project file is (:mod:`.files`).
"""

from __future__ import annotations

import os

from runctx.runners.tasks.files import Task, expand_tasks
from runctx.runners.tasks.hatch import toml_document

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall

__all__ = ["TOOLS", "texts"]

_Tables = list[dict[str, object]]

TOOLS: dict[str, tuple[str, tuple[str, ...]]] = {
    "pdm-script": ("pyproject.toml", ("tool", "pdm", "scripts")),
    "poe-task": ("pyproject.toml", ("tool", "poe", "tasks")),
    "rye-script": ("pyproject.toml", ("tool", "rye", "scripts")),
    "pipenv-script": ("Pipfile", ("scripts",)),
}
"""Per task row kind, the file and the table its tasks are kept in (pixi and mise: below)."""
_PIXI_FILES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("pixi.toml", ()),
    ("pyproject.toml", ("tool", "pixi")),
)
_MISE_FILES = (
    *("mise.toml", ".mise.toml"),
    *(os.path.join(".config", "mise.toml"), os.path.join("mise", "config.toml")),
)
_NAME_KEYS = ("composite", "sequence", "chain")
"""Keys whose list names other tasks (or commands)."""
_FIRST_KEYS = ("deps", "depends-on", "depends_on", "depends")
"""Keys whose list names tasks run first."""
_COMMAND_KEYS = ("cmd", "shell", "run")


def _table(value: object, keys: tuple[str, ...]) -> dict[str, object]:
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, dict) else {}


def _task_tables(kind: str, directory: str, files: ProjectFiles) -> _Tables:
    """The tables of the tool's tasks in the project in ``directory``, the first one winning."""
    if kind in TOOLS:
        name, keys = TOOLS[kind]
        return [_table(files.parsed(os.path.join(directory, name), toml_document), keys)]
    found: _Tables = []
    if kind == "pixi-task":
        for file_name, table_keys in _PIXI_FILES:
            path = os.path.join(directory, file_name)
            document = _table(files.parsed(path, toml_document), table_keys)
            found.append(_table(document, ("tasks",)))
            for feature in _table(document, ("feature",)).values():
                found.append(_table(feature, ("tasks",)))
    elif kind == "mise-task":
        for name in _MISE_FILES:
            found.append(
                _table(files.parsed(os.path.join(directory, name), toml_document), ("tasks",))
            )
    return [table for table in found if table]


def _words(value: object) -> str | None:
    """A command given as a string or as a list of words."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(word, str) for word in value):
        return " ".join(word for word in value if isinstance(word, str))
    return None


def _names(value: object) -> list[str]:
    """The task names of a ``deps``-like list (``{task = NAME}`` items too)."""
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        return []
    found: list[str] = []
    for item in value:
        name = item.get("task") if isinstance(item, dict) else item
        if isinstance(name, str):
            found.append(name)
    return found


def _table_items(value: dict[str, object]) -> tuple[list[str], list[object]]:
    """A task table's tasks run first, and its items: commands, names, inline tasks."""
    first = [name for key in _FIRST_KEYS for name in _names(value.get(key))]
    items: list[object] = []
    ref = value.get("ref")
    if isinstance(ref, str):
        items.append(ref)
    run = value.get("run")
    if isinstance(run, list):  # mise: ``run = ["a", "b"]``, a command each
        items += [line for line in run if isinstance(line, str)]
    for key in _COMMAND_KEYS:
        command = _words(value.get(key)) if key != "run" or isinstance(run, str) else None
        if command is not None:
            items.append(command)
    for key in _NAME_KEYS:
        sequence = value.get(key)
        if isinstance(sequence, list):
            items += sequence
    return first, items


_INLINE_DEPTH = 8
"""Inline tasks inside sequences are read this deep; deeper ones give nothing."""


def _task(value: object, known: set[str], depth: int = 0) -> Task:
    """What one task's value runs: the tasks it names (first), and its command lines."""
    first: list[str] = []
    items: list[object] = []
    if isinstance(value, str):
        items = [value]
    elif isinstance(value, list):  # poe's list form: a sequence
        items = list(value)
    elif isinstance(value, dict):
        first, items = _table_items(value)
    lines: list[str] = []
    for item in items:
        if isinstance(item, dict) and depth < _INLINE_DEPTH:  # an inline task of a sequence
            nested_first, nested_lines = _task(item, known, depth + 1)
            first += nested_first
            lines += nested_lines
        elif isinstance(item, str):
            head = item.split(maxsplit=1)[0] if item.split() else ""
            if head in known:
                first.append(head)
            else:
                lines.append(item)
    return first, lines


def texts(call: TaskCall, directory: str, files: ProjectFiles) -> list[str] | None:
    """The commands of the task ``call`` names, with those of the tasks it runs first."""
    if not call.names:
        return None
    tables = _task_tables(call.kind, directory, files)
    if not tables:
        return None
    merged: dict[str, object] = {}
    for table in reversed(tables):
        merged.update(table)
    known = set(merged)
    hooks = call.kind == "pdm-script"

    def lookup(name: str) -> Task | None:
        if name not in merged:
            return None
        first, lines = _task(merged[name], known)
        if hooks:  # pdm runs ``pre_NAME`` before and ``post_NAME`` after
            pre, post = f"pre_{name}", f"post_{name}"
            first = [*([pre] if pre in merged else []), *first, *([post] if post in merged else [])]
        return first, lines

    return expand_tasks(call.names[:1], lookup, str.strip, files.unread)
