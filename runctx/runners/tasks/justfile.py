"""Justfiles: what ``just NAME`` runs.

Read: recipe headers (``[@]name params: dependencies``), their indented
bodies, and ``alias a := b``; settings, variables, attributes and imports are
skipped. ``just`` looks for its file in the directory and its parents; with no
recipe named it runs ``default``, else the first recipe. Interpolations
(``{{x}}``) are left as they are.
"""

from __future__ import annotations

import os

from runctx.runners.tasks.files import Task, expand_tasks, found_above

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall

JUSTFILES = ("justfile", "Justfile", "JUSTFILE", ".justfile")


class Justfile:
    """The recipes and aliases of a justfile, and its first recipe."""

    __slots__ = ("aliases", "first", "recipes")

    def __init__(self) -> None:
        """Start empty."""
        self.recipes: dict[str, Task] = {}
        self.aliases: dict[str, str] = {}
        self.first: str | None = None

    def recipe(self, name: str) -> Task | None:
        """The recipe called ``name`` or aliased so."""
        return self.recipes.get(self.aliases.get(name, name))


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


def _header(line: str) -> tuple[str, list[str]] | None:
    """The recipe name and dependencies of a header line, or None for any other line."""
    head, colon, rest = line.partition(":")
    if not colon or rest.startswith("="):  # ``x := 1``, ``set shell := [...]``
        return None
    words = head.split()
    name = words[0].lstrip("@") if words else ""
    if not name or not (name[0].isalpha() or name[0] == "_"):
        return None
    return name, dependencies(rest)


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
        header = _header(line)
        if header is None:
            continue
        name, first = header
        body = []
        just.recipes[name] = (first, body)
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
    names = list(call.names)
    if not names:
        default = "default" if "default" in just.recipes else just.first
        names = [default] if default else []
    return expand_tasks(names, just.recipe, lambda line: line.lstrip("@-").strip(), files.unread)
