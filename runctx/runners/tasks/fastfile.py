"""Fastfiles: what ``fastlane LANE`` (or ``fastlane PLATFORM LANE``) runs.

fastlane reads ``fastlane/Fastfile`` (or ``.fastlane/Fastfile``) of the
directory it runs in. Read, line by line by indentation (never run):

- ``lane :NAME do`` and ``private_lane :NAME do`` blocks, inside a
  ``platform :NAME do`` block or not: ``fastlane ios beta`` runs the ``ios``
  platform's ``beta`` lane, ``fastlane beta`` a lane outside every platform
  (or, as fastlane does, the default platform's);
- in a lane's body: ``sh`` with literal strings (``sh("bundle exec rake
  test")``, ``sh("bundle", "exec", "rake", "test")``, ``sh(command: "…")``);
  another lane called by its name; and the actions that run tests: ``scan``
  and ``run_tests`` (the app's tests), ``gradle(task: "…")`` and
  ``spm(command: "test")``.

fastlane runs ``sh`` in its own ``fastlane`` directory and actions in the
project's: both are read as run in the directory that holds the Fastfile's
folder, where projects write ``Dir.chdir("..")`` to put them. Options after
the lane (``fastlane test device:iPhone``) are the lane's, never lanes. Any
other Ruby is not read: a lane whose commands are built at run time says
nothing.
"""

from __future__ import annotations

import re
import shlex

from runctx.runners.tasks.files import MAX_TASKS, Task, expand_tasks, first_existing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall

__all__ = ["parse", "texts"]

FASTFILES = ("fastlane/Fastfile", ".fastlane/Fastfile")
_BLOCK = re.compile(r"(platform|lane|private_lane)\s*\(?\s*:(\w+)\)?\s+do\b")
_DEFAULT_PLATFORM = re.compile(r"default_platform\s*\(?\s*:(\w+)")
_CALL = re.compile(r"(\w+[?!]?)\s*(?:\((.*)\)|\s(.*))?$")
_STRING = re.compile(r"""\s*(?:"((?:[^"\\#]|\\.)*)"|'([^']*)')\s*""")
_KEYWORD = re.compile(r"(\w+):\s*(.*)")
_TEST_ACTIONS = {"scan": "fastlane scan", "run_tests": "fastlane scan"}
"""Actions that run the app's tests, and a command that is read as doing so."""
_ON = "\0"
"""Joins a platform's name and its lane's in the names of :func:`parse`."""


def _strings(arguments: str) -> list[str] | None:
    """The literal strings of a call's arguments (``"a", 'b'``); None if any is not one."""
    found: list[str] = []
    for part in arguments.split(","):
        if not part.strip():
            continue
        literal = _STRING.fullmatch(part)
        if literal is None:
            return None
        found.append(literal[1] if literal[1] is not None else literal[2])
    return found


def _keywords(arguments: str) -> dict[str, str]:
    """The keyword arguments whose value is one literal string (``task: "test"``)."""
    found: dict[str, str] = {}
    for part in arguments.split(","):
        pair = _KEYWORD.fullmatch(part.strip())
        value = _strings(pair[2]) if pair is not None else None
        if pair is not None and value is not None and len(value) == 1:
            found[pair[1]] = value[0]
    return found


def _command(name: str, arguments: str) -> str | None:
    """What a call in a lane's body runs, as a command line; None for any other Ruby."""
    if name in _TEST_ACTIONS:
        return _TEST_ACTIONS[name]
    keywords = _keywords(arguments)
    if name == "sh":
        words = _strings(arguments)
        if words is None:
            return keywords.get("command")
        return words[0] if len(words) == 1 else shlex.join(words)
    if name == "gradle" and "task" in keywords:
        return f"gradle {keywords['task']}"
    if name == "spm" and keywords.get("command") == "test":
        return "swift test"
    return None


class _Reader:
    """The lanes of a Fastfile, read one line at a time."""

    __slots__ = ("current", "default", "lanes", "open")

    def __init__(self) -> None:
        """No lane, no platform open."""
        self.lanes: dict[str, Task] = {}
        self.open: list[tuple[int, str]] = []  # (indentation, platform) of the open platform
        self.current: tuple[int, Task] | None = None  # the lane being read, and its indentation
        self.default = ""

    def line(self, raw: str) -> None:
        """Read one line."""
        stripped = raw.split(" #", 1)[0].strip()
        if not stripped or stripped.startswith("#"):
            return
        indent = len(raw) - len(raw.lstrip())
        if self.current is not None and indent <= self.current[0]:
            self.current = None  # the lane's ``end``, or what follows it
        while self.open and indent <= self.open[-1][0] and stripped != "end":
            self.open.pop()
        if stripped == "end" and self.open and indent == self.open[-1][0]:
            self.open.pop()
            return
        if (block := _BLOCK.match(stripped)) is not None:
            self.block(block[1], block[2], indent)
        elif (default := _DEFAULT_PLATFORM.match(stripped)) is not None:
            self.default = default[1]
        elif self.current is not None and (call := _CALL.match(stripped)) is not None:
            arguments = call[2] if call[2] is not None else (call[3] or "")
            command = _command(call[1], arguments)
            called, lines = self.current[1]
            if command is not None:
                lines.append(command)
            elif len(called) < MAX_TASKS:
                called.append(call[1])  # a lane, if the file has one so named

    def block(self, kind: str, name: str, indent: int) -> None:
        """A ``platform`` block opened, or a lane's body begun."""
        if kind == "platform":
            self.open.append((indent, name))
            return
        platform = self.open[-1][1] if self.open else ""
        self.current = (indent, self.lanes.setdefault(f"{platform}{_ON}{name}", ([], [])))


def parse(data: bytes) -> tuple[dict[str, Task], str]:
    """Each lane (its platform and name joined by a NUL) and the default platform."""
    reader = _Reader()
    for raw in data.decode("utf-8", errors="replace").splitlines():
        reader.line(raw)
    return reader.lanes, reader.default


def texts(call: TaskCall, directory: str, files: ProjectFiles) -> list[str] | None:
    """The command lines of the lane ``call`` names, and of the lanes it calls first."""
    path = first_existing(directory, FASTFILES)
    parsed = files.parsed(path, parse) if path is not None else None
    if not isinstance(parsed, tuple):
        return None
    lanes, default = parsed
    names = [name for name in call.names if ":" not in name]  # ``key:value`` are options
    if len(names) > 1:  # ``fastlane ios beta``: that platform's lane only
        lane = _found(lanes, (names[0], names[1]))
    else:  # a lane outside every platform, else the default platform's
        lane = _found(lanes, ("", names[0]), (default, names[0])) if names else None
    if lane is None:
        return None

    def lookup(key: str) -> Task | None:
        if key not in lanes:
            return None
        called, lines = lanes[key]
        platform = key.partition(_ON)[0]
        # the words of its body that name a lane of its platform, or of none: those lanes
        found = (_found(lanes, (platform, word), ("", word)) for word in called)
        return [name for name in found if name is not None], lines

    return expand_tasks([lane], lookup, str.strip, files.unread)


def _found(lanes: dict[str, Task], *keys: tuple[str, str]) -> str | None:
    """The first of the lanes ``(platform, name)`` the Fastfile has: its key; None if none."""
    for platform, name in keys:
        key = f"{platform}{_ON}{name}"
        if key in lanes:
            return key
    return None
