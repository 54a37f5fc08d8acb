"""Taskfiles (go-task): what ``task NAME`` runs, read line by line without a YAML parser.

Under the top-level ``tasks:`` key, each task's block is read for its
commands (``cmds:`` items, ``cmd:`` values, block scalars ``- |``), its
``deps`` (a list or a flow list ``[a, b]``) and the tasks it calls
(``task: NAME``). Other keys are skipped. ``task`` looks for its file in the
directory and its parents; with no task named it runs ``default``. Template
expressions (``{{.CLI_ARGS}}``) are left as they are.
"""

from __future__ import annotations

import os

from runctx.runners.tasks.files import Task, expand_tasks, found_above

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall

TASKFILES = tuple(
    f"{stem}.{ext}"
    for stem in ("Taskfile", "taskfile", "Taskfile.dist", "taskfile.dist")
    for ext in ("yml", "yaml")
)
_BLOCK_SCALARS = frozenset({"|", ">", "|-", ">-", "|+", ">+"})


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":  # noqa: PLR2004 - a pair
        return text[1:-1]
    return text


def _flow_list(text: str) -> list[str]:
    """The items of a flow list ``[a, b]``, unquoted."""
    text = text.strip()
    if not (text.startswith("[") and text.endswith("]")):
        return []
    return [_unquote(item) for item in text[1:-1].split(",") if item.strip()]


def _key_value(text: str) -> tuple[str, str] | None:
    """``(key, value)`` if ``text`` is a ``key: value`` pair (a key is one word).

    As YAML reads a plain key, its colon is the first one followed by a blank
    or ending the line: ``py:test:`` is the key ``py:test`` (a quoted key's
    colons are its own).
    """
    start = text.find(text[0], 1) + 1 if text[:1] in {'"', "'"} else 0
    at = start - 1
    while (at := text.find(":", at + 1)) >= 0 and text[at + 1 : at + 2] not in {"", " "}:
        pass
    if at < 0:
        return None
    key, value = text[:at].strip(), text[at + 1 :]
    if not key or " " in key:
        return None
    return key, value.strip()


class _Block:
    """The reading of one task's block: what it runs first, and its commands."""

    __slots__ = ("commands", "first", "scalar_indent", "section", "section_indent")

    def __init__(self) -> None:
        self.first: list[str] = []
        self.commands: list[str] = []
        self.section = ""  # "cmds" or "deps" while reading their items
        self.section_indent = -1
        self.scalar_indent = -1  # inside a block scalar started at this indent

    def line(self, level: int, text: str) -> None:
        if self.scalar_indent >= 0:
            if level > self.scalar_indent:
                self.commands.append(text)
                return
            self.scalar_indent = -1
        if level <= self.section_indent:
            self.section, self.section_indent = "", -1
        item = text.startswith("- ")
        body = text[2:].strip() if item else text
        pair = _key_value(body)
        if pair is not None:
            self._pair(level, *pair, item=item)
        elif item and self.section == "deps":
            self.first.append(_unquote(body))
        elif item and self.section == "cmds":
            self._command(level, body)

    def _pair(self, level: int, key: str, value: str, *, item: bool) -> None:
        if key in {"cmds", "deps"} and not item and not value:
            self.section, self.section_indent = key, level
        elif key == "deps" and not item:
            self.first.extend(_flow_list(value))
        elif key == "cmd":
            self._command(level, value)
        elif key == "task":
            self.first.append(_unquote(value))

    def _command(self, level: int, text: str) -> None:
        if text in _BLOCK_SCALARS:
            self.scalar_indent = level
        else:
            self.commands.append(_unquote(text))


def _task(lines: list[str], start: int, indent: int) -> Task:
    """The task whose block starts at line ``start``, under a key at ``indent``."""
    block = _Block()
    for number in range(start, len(lines)):  # no copy of the rest: many tasks stay linear
        line = lines[number]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        level = _indent(line)
        if level <= indent:
            break
        block.line(level, line.strip())
    return block.first, block.commands


def parse(data: bytes) -> dict[str, Task]:
    """The tasks of a Taskfile's text, by name."""
    lines = data.decode("utf-8", errors="replace").splitlines()
    tasks: dict[str, Task] = {}
    top = next((n for n, line in enumerate(lines) if line.rstrip() == "tasks:"), None)
    if top is None:
        return tasks
    task_indent = -1
    for number in range(top + 1, len(lines)):
        line = lines[number]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        level = _indent(line)
        if level == 0:
            break
        if task_indent < 0:
            task_indent = level
        pair = _key_value(line.strip()) if level == task_indent else None
        if pair is None:
            continue
        name, value = _unquote(pair[0]), pair[1]
        # ``lint: golangci-lint run``: a task given as one command
        tasks[name] = ([], [_unquote(value)]) if value else _task(lines, number + 1, level)
    return tasks


def texts(call: TaskCall, directory: str, files: ProjectFiles) -> list[str] | None:
    """The commands of the tasks ``call`` names (or ``default``) and of those they run first."""
    path = os.path.join(directory, call.file) if call.file else found_above(directory, TASKFILES)
    if path is None:
        return None
    tasks = files.parsed(path, parse)
    if not isinstance(tasks, dict):
        return None
    names = [name for name in call.names if "=" not in name] or ["default"]
    return expand_tasks(names, tasks.get, str.strip, files.unread)
