"""Mix aliases: what ``mix NAME`` runs when ``mix.exs`` makes NAME an alias.

Mix reads a project's aliases from the keyword list its ``aliases`` function
returns (or the ``aliases:`` of ``project/0``): ``ci: ["format
--check-formatted", "test"]``, ``"ecto.reset": ["ecto.drop", "ecto.setup"]``.
Each string is a mix task with its arguments, run in turn; a task that is
itself an alias runs that alias. Read as text, not evaluated: the list's
strings are taken for ``mix STRING`` commands, which the shell parser reads
(``mix test`` is a run). A function given as an alias (``&ci/1``) runs code
runctx does not read: it gives no command.

``mix check`` that is no alias is ex_check's task when ``mix.exs`` depends on
``:ex_check``: it runs the project's tools, and among them ``mix test``
(its ``ex_unit`` tool, when a ``test`` directory exists) and ``npm test`` in
``assets`` (its ``npm_test`` tool, when ``assets/package.json`` exists),
unless ``.check.exs`` turns that tool off (``{:ex_unit, false}``,
``{:ex_unit, enabled: false}``). ``--only`` and ``--except`` pick tools by
their names: such a call is not read (the row refuses it), and is no run.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall

__all__ = ["aliases_of", "texts"]

MIX_EXS = "mix.exs"
_START = re.compile(r"defp?\s+aliases\b[^\n]*?\bdo\b|\baliases:\s*(?=\[)")
_KEY = re.compile(r'\s*(?:"([^"\n]+)"|([a-z_][\w.]*[?!]?)):\s')
_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_EX_CHECK = re.compile(rb"\{\s*:ex_check\s*,")
_TOOL_OFF = r"\{\s*:%s\s*,\s*(?:false|enabled:\s*false)\b"
_EX_CHECK_TESTS = (
    ("ex_unit", "test", "mix test"),
    ("npm_test", "assets/package.json", "cd assets && npm test"),
)
"""ex_check's tools that run tests: name, the path it needs to exist, what it runs."""


def _outside_strings(text: str, start: int) -> Iterator[tuple[int, str, int]]:
    """Each character of ``text`` from ``start`` outside a string, with its bracket depth.

    The depth counts ``[``, ``{`` and ``(`` opened before the character (a
    closing one is given at the depth it closes to); an escaped quote in a
    string does not end it.
    """
    depth = 0
    quoted = False
    escaped = False
    for i in range(start, len(text)):
        char = text[i]
        if quoted:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
            continue
        if char == '"':
            quoted = True
            continue
        if char in "[{(":
            depth += 1
        elif char in "]})":
            depth -= 1
        yield i, char, depth


def _list_at(text: str, at: int) -> str | None:
    """The text inside the list that starts at the first ``[`` at or after ``at``."""
    start = text.find("[", at)
    if start < 0:
        return None
    for i, char, depth in _outside_strings(text, start):
        if depth == 0 and char in "]})":
            return text[start + 1 : i]
    return None


def _entries(body: str) -> list[tuple[str, str]]:
    """``(name, value text)`` of each entry of a keyword list's body, split at its top commas."""
    parts: list[str] = []
    begun = 0
    for i, char, depth in _outside_strings(body, 0):
        if char == "," and depth == 0:
            parts.append(body[begun:i])
            begun = i + 1
    parts.append(body[begun:])
    found: list[tuple[str, str]] = []
    for part in parts:
        key = _KEY.match(part)
        if key is not None:
            found.append((key.group(1) or key.group(2), part[key.end() :]))
    return found


def aliases_of(data: bytes) -> dict[str, list[str]]:
    """Each alias of a ``mix.exs`` text and the task lines it runs, in order."""
    text = data.decode("utf-8", errors="replace")
    found = _START.search(text)
    if found is None:
        return {}
    body = _list_at(text, found.end())
    if body is None:
        return {}
    return {name: _STRING.findall(value) for name, value in _entries(body)}


def texts(call: TaskCall, directory: str, files: ProjectFiles) -> list[str] | None:
    """``mix TASK`` for each task line of the alias ``call`` names; None if it is no alias."""
    if not call.names:
        return None
    aliases = files.parsed(os.path.join(directory, MIX_EXS), aliases_of)
    if not isinstance(aliases, dict):
        return None
    lines = aliases.get(call.names[0])
    if lines is None:
        return _ex_check(directory, files) if call.names[0] == "check" else None
    # a line naming the alias itself runs mix's own task of that name (``test: ["x", "test"]``)
    return [f"mix {line}" if line.split()[:1] != [call.names[0]] else "true" for line in lines]


def _ex_check(directory: str, files: ProjectFiles) -> list[str] | None:
    """What ex_check's ``mix check`` runs of the tools that test; None without ex_check."""
    if files.parsed(os.path.join(directory, MIX_EXS), _uses_ex_check) is not True:
        return None
    config = files.parsed(os.path.join(directory, ".check.exs"), _text)
    settings = config if isinstance(config, str) else ""
    return [
        command
        for tool, needs, command in _EX_CHECK_TESTS
        if os.path.exists(os.path.join(directory, needs))
        and re.search(_TOOL_OFF % tool, settings) is None
    ] or ["true"]


def _uses_ex_check(data: bytes) -> bool:
    """Whether a ``mix.exs`` lists ``:ex_check`` among its dependencies."""
    return _EX_CHECK.search(data) is not None


def _text(data: bytes) -> str:
    """A file's text."""
    return data.decode("utf-8", errors="replace")
