"""melos scripts: what ``melos run NAME`` (or ``melos NAME``) runs, read from the workspace.

The scripts are the ``scripts:`` mapping of ``melos.yaml``, or of the
``melos:`` section of ``pubspec.yaml`` (melos 7). A script is a string (its
command) or a mapping whose ``run:`` or ``exec:`` holds the command, inline or
as a block (``|``, ``>``); ``exec:`` as a mapping is read for its
``command``/``run``, and ``steps:`` for its list of commands, a step that
names another script running that script's. Read line by line by indentation, not as full YAML: a
script written otherwise is not found, and the command is then decided by
the script's name.
"""

from __future__ import annotations

import os

from runctx.runners.tasks.files import MAX_TASKS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall

MELOS_FILES = ("melos.yaml", "pubspec.yaml")
_COMMAND_KEYS = ("run", "exec", "command")
_STEPS = "steps"
"""A script's list of commands, or names of other scripts, run in turn (melos 6.1)."""


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _split(line: str) -> tuple[str, str] | None:
    """``(key, value)`` of a mapping line (``test:vm: dart test`` has the key ``test:vm``)."""
    text = line.strip()
    if text.endswith(":"):
        return _unquoted(text[:-1]), ""
    at = text.find(": ")
    if at < 0:
        return None
    return _unquoted(text[:at]), text[at + 2 :].strip()


def _unquoted(value: str) -> str:
    value = value.strip()
    if len(value) > 1 and value[0] == value[-1] and value[0] in {'"', "'"}:
        return value[1:-1]
    return value


def _block(lines: list[str], start: int, parent: int) -> tuple[list[str], int]:
    """The lines indented deeper than ``parent`` from ``start``; and the index after them."""
    block: list[str] = []
    i = start
    while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > parent):
        block.append(lines[i])
        i += 1
    return block, i


def _value(lines: list[str], key_line: int) -> str | None:
    """The scalar value of the key at ``key_line``: inline, or a ``|``/``>`` block below it."""
    line = lines[key_line]
    value = (_split(line) or ("", ""))[1]
    if value and value[0] not in "|>":
        return _unquoted(value)
    block, _ = _block(lines, key_line + 1, _indent(line))
    text = "\n".join(b.strip() for b in block if b.strip())
    return text or None


def _steps(lines: list[str], depth: int) -> str | None:
    """The items of a ``steps:`` list at ``depth`` (or deeper), one command a line."""
    items: list[str] = []
    for line in lines:
        text = line.strip()
        if not text:
            continue
        item = text.startswith("- ")
        if _indent(line) < depth or (_indent(line) == depth and not item):
            break
        if item:
            items.append(_unquoted(text[2:]))
    return "\n".join(items) or None


def _script(lines: list[str], key_line: int) -> str | None:
    """The command of the script whose key is at ``key_line``."""
    line = lines[key_line]
    inline = (_split(line) or ("", ""))[1]
    if inline and inline[0] not in "|>":
        return _unquoted(inline)
    if inline:
        return _value(lines, key_line)
    block, _ = _block(lines, key_line + 1, _indent(line))
    return _mapped(block) if block else None


def _mapped(block: list[str]) -> str | None:
    """The command of a script written as a mapping: its ``run:``/``exec:``, or its ``steps:``."""
    depth = min(_indent(b) for b in block if b.strip())
    for i, child in enumerate(block):
        pair = _split(child)
        if _indent(child) != depth or pair is None:
            continue
        if pair == (_STEPS, ""):
            return _steps(block[i + 1 :], depth)
        if pair[0] in _COMMAND_KEYS:
            if not pair[1]:  # a mapping below (``exec:`` with ``command:``), read for its command
                nested = _script(block, i)
                if nested is not None:
                    return nested
            return _value(block, i)
    return None


def parse(data: bytes) -> dict[str, str]:
    """The scripts of a melos file (``melos.yaml`` or ``pubspec.yaml``): name to command."""
    lines = [raw.split(" #", 1)[0].rstrip() for raw in data.decode("utf-8", "replace").splitlines()]
    scripts: dict[str, str] = {}
    for i, line in enumerate(lines):
        if line.strip() != "scripts:":
            continue
        block, _ = _block(lines, i + 1, _indent(line))
        if not block:
            continue
        depth = min(_indent(b) for b in block if b.strip())
        for j, child in enumerate(block):
            pair = _split(child)
            if _indent(child) != depth or pair is None or child.lstrip().startswith("-"):
                continue
            name = pair[0]
            command = _script(block, j)
            if command is not None and len(scripts) < MAX_TASKS:
                scripts.setdefault(name, command)
        break
    # a step that names another script runs that script's command (one level)
    return {
        name: "\n".join(scripts.get(line, line) for line in command.splitlines())
        for name, command in scripts.items()
    }


def texts(call: TaskCall, directory: str, files: ProjectFiles) -> list[str] | None:
    """The command of the script ``call`` names, or None when it is not found."""
    if not call.names:
        return None
    for name in MELOS_FILES:
        path = os.path.join(directory, name)
        if not os.path.isfile(path):
            continue
        scripts = files.parsed(path, parse)
        if isinstance(scripts, dict) and call.names[0] in scripts:
            return [str(scripts[call.names[0]])]
    return None
