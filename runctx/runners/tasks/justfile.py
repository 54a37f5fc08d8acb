"""Justfiles: what ``just NAME`` runs.

Read: recipe headers (``[@]name params: dependencies``), their indented
bodies, ``alias a := b``, and variables whose value is string literals and
other variables joined by ``+`` (``SHELLTEST := STACK + ' exec -- shelltest'``):
a recipe's ``{{ NAME }}`` becomes the value, and so do ``$NAME`` and
``${NAME}`` for a variable exported (``export NAME := …``, ``set export``).
Other settings, attributes, imports and values (``env_var(…)``, ``if …``)
are skipped: their interpolations are left as they are. ``just`` looks for
its file in the directory and its parents; with no recipe named it runs
``default``, else the first recipe.
"""

from __future__ import annotations

import os
import re

from runctx.runners.tasks.files import Task, expand_tasks, found_above

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall

JUSTFILES = ("justfile", "Justfile", "JUSTFILE", ".justfile")
_ASSIGNMENT = re.compile(r"(export\s+)?([A-Za-z_][\w-]*)\s*:=\s*(.+)")
_TOKEN = re.compile(r"\s*(?:'([^']*)'|\"((?:[^\"\\]|\\.)*)\"|([A-Za-z_][\w-]*)|(\+)|(#.*)|(.))")
MAX_VALUE_CHARS = 64 * 1024
"""The most characters a variable's value, or a recipe line with values put in, is read to."""
_INTERPOLATION = re.compile(r"\{\{\s*([A-Za-z_][\w-]*)\s*\}\}")
_EXPORTED = re.compile(r"\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))")


class Justfile:
    """The recipes and aliases of a justfile, and its first recipe."""

    __slots__ = (
        *("aliases", "export_all", "exported", "first", "parameters", "recipes"),
        "variables",
    )

    def __init__(self) -> None:
        """Start empty."""
        self.recipes: dict[str, Task] = {}
        self.aliases: dict[str, str] = {}
        self.first: str | None = None
        self.variables: dict[str, str] = {}
        self.exported: set[str] = set()
        self.export_all = False
        self.parameters: dict[str, tuple[int, bool]] = {}
        """Each recipe's parameters: how many, and whether the last takes every word left."""

    def recipes_called(self, words: Sequence[str]) -> list[str]:
        """The recipes ``just WORDS`` runs: after a recipe, its arguments are no recipes.

        As ``just`` reads them: a recipe that takes parameters takes as many
        of the words after it (``just test unit``), a variadic one (``*args``,
        ``+args``) all of them.
        """
        called: list[str] = []
        at = 0
        while at < len(words):
            name = words[at]
            called.append(name)
            count, variadic = self.parameters.get(self.aliases.get(name, name), (0, False))
            if variadic:
                break
            at += 1 + count
        return called

    def recipe(self, name: str) -> Task | None:
        """The recipe called ``name`` or aliased so."""
        return self.recipes.get(self.aliases.get(name, name))

    def line(self, text: str) -> str:
        """A recipe's line with the variables it names replaced by their values (bounded)."""
        text = _substituted(_INTERPOLATION, text, lambda m: self.variables.get(m[1]))
        if not (self.exported or self.export_all) or "$" not in text:
            return text

        def exported(match: re.Match[str]) -> str | None:
            name = match[1] or match[2]
            shown = self.export_all or name in self.exported
            return self.variables.get(name) if shown else None

        return _substituted(_EXPORTED, text, exported)

    def assign(self, line: str) -> bool:
        """Read ``line`` if it sets a variable (or ``set export``); whether it did."""
        if line.replace(" ", "") in {"setexport", "setexport:=true"}:
            self.export_all = True
            return True
        match = _ASSIGNMENT.fullmatch(line)
        if match is None:
            return False
        value = self._value(match[3])
        if value is not None:
            self.variables[match[2]] = value
            if match[1]:
                self.exported.add(match[2])
        return True

    def _value(self, expression: str) -> str | None:
        """String literals and known variables joined by ``+`` (bounded); None for anything else."""
        parts: list[str] = []
        size = 0
        operand = True  # an operand is wanted next
        for token in _TOKEN.finditer(expression):
            single, double, name, plus, comment, other = token.groups()
            if comment is not None:
                break
            if other is not None:
                if other.isspace():
                    continue
                return None
            if plus is not None:
                if operand:
                    return None
                operand = True
                continue
            value = single if single is not None else double
            value = value if value is not None else self.variables.get(name)
            if not operand or value is None:
                return None
            size += len(value)
            if size > MAX_VALUE_CHARS:
                return None
            parts.append(value)
            operand = False
        return None if operand else "".join(parts)


def _substituted(
    pattern: re.Pattern[str], text: str, value: Callable[[re.Match[str]], str | None]
) -> str:
    """``text`` with each match of ``pattern`` replaced by its value (kept where none), bounded.

    At most :data:`MAX_VALUE_CHARS` characters are made: a line of many
    references to a long value costs no more.
    """
    parts: list[str] = []
    size = 0
    at = 0
    for match in pattern.finditer(text):
        replaced = value(match)
        piece = text[at : match.start()] + (match[0] if replaced is None else replaced)
        parts.append(piece)
        size += len(piece)
        at = match.end()
        if size > MAX_VALUE_CHARS:
            return "".join(parts)[:MAX_VALUE_CHARS]
    parts.append(text[at:])
    return "".join(parts)[:MAX_VALUE_CHARS]


def dependencies(text: str) -> list[str]:
    """Recipe names in a dependency list: ``a b (c "arg") && d``."""
    names: list[str] = []
    depth = 0
    for word in text.replace("(", " ( ").replace(")", " ) ").split():
        if word == "(":
            depth += 1
            names.append("")
        elif word == ")":
            depth = max(0, depth - 1)
        elif depth and names and not names[-1]:
            names[-1] = word
        elif not depth and word != "&&":
            names.append(word)
    return [name for name in names if name and name[0] not in "\"'"]


def _header(line: str) -> tuple[str, list[str], tuple[int, bool]] | None:
    """The recipe name, dependencies and parameters of a header line; None for another line."""
    head, rest = _split_header(line)
    if rest is None or rest.startswith("="):  # ``x := 1``, ``set shell := [...]``
        return None
    words = head
    name = words[0].lstrip("@") if words else ""
    if not name or not (name[0].isalpha() or name[0] == "_"):
        return None
    parameters = words[1:]
    variadic = bool(parameters) and parameters[-1].lstrip("$")[:1] in {"*", "+"}
    return name, dependencies(rest), (len(parameters), variadic)


def _split_header(line: str) -> tuple[list[str], str | None]:
    """A header's words before its colon, and the text after it (None: no colon).

    A parameter's default may be quoted or an expression in parentheses
    (``test target="a b" url='http://x':``): a blank or a colon inside
    either is part of that one parameter. One pass over the line.
    """
    words: list[str] = []
    word: list[str] = []
    quote = ""
    depth = 0
    for at, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"`":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif not depth and char == ":":
            if word:
                words.append("".join(word))
            return words, line[at + 1 :]
        elif not depth and char.isspace():
            if word:
                words.append("".join(word))
                word = []
            continue
        word.append(char)
    return words, None


def parse(data: bytes) -> Justfile:
    """The recipes of a justfile's text."""
    just = Justfile()
    body: list[str] | None = None
    for raw in data.decode("utf-8", errors="replace").splitlines():
        if raw[:1] in {" ", "\t"}:
            if body is not None and raw.strip():
                body.append(raw.strip())
            continue
        line = raw.strip()
        body = None
        words = line.split()
        if not words or line.startswith(("#", "[")):
            continue
        if words[0] == "alias" and len(words) >= 4 and words[2] == ":=":  # noqa: PLR2004 - a := b
            just.aliases[words[1]] = words[3]
            continue
        if just.assign(line):
            continue
        header = _header(line)
        if header is None:
            continue
        name, first, parameters = header
        body = []
        just.recipes[name] = (first, body)
        just.parameters[name] = parameters
        if just.first is None:
            just.first = name
    return just


def texts(call: TaskCall, directory: str, files: ProjectFiles) -> list[str] | None:
    """The body lines of the recipes ``call`` names (or the default one) and their dependencies."""
    path = os.path.join(directory, call.file) if call.file else found_above(directory, JUSTFILES)
    if path is None:
        return None
    just = files.parsed(path, parse)
    if not isinstance(just, Justfile):
        return None
    names = just.recipes_called(call.names)
    if not names:
        default = "default" if "default" in just.recipes else just.first
        names = [default] if default else []
    return expand_tasks(
        names, just.recipe, lambda line: just.line(line.lstrip("@-").strip()), files.unread
    )
