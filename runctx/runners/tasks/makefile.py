"""Makefiles: what ``make NAME`` runs, when the makefile is plain enough to read.

Read: rules (``targets: prerequisites`` and their tab-indented recipes, or a
``; command`` on the rule line), and plain variable assignments (``=``,
``:=``, ``::=``, ``?=``, ``+=``), expanded in recipes as ``$(NAME)`` or
``${NAME}``; ``$(MAKE)`` is ``make``. Skipped: conditionals and includes (their
lines are read as if every branch were taken), ``define`` blocks, pattern
rules. A target the file does not define (made by an include or a pattern)
is not found: the command is then decided by the target's name.
"""

from __future__ import annotations

import os

from runctx.runners.tasks.files import Task, expand_tasks, first_existing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall

MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
_DIRECTIVES = frozenset(
    {"ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "include", "-include", "sinclude"}
    | {"vpath", "unexport", "undefine"}
)
_OPERATORS = (":::=", "::=", ":=", "?=", "+=", "!=", "=")
_EXPANSION_PASSES = 8


class Makefile:
    """The rules and plain variables of a makefile, and its first target."""

    __slots__ = ("default", "rules", "variables")

    def __init__(self) -> None:
        """Start empty."""
        self.rules: dict[str, Task] = {}
        self.variables: dict[str, str] = {}
        self.default: str | None = None

    def assign(self, name: str, operator: str, value: str) -> None:
        """Apply one assignment; ``!=`` (a shell command's output) is not run, so not known."""
        if operator == "+=":
            self.variables[name] = f"{self.variables.get(name, '')} {value}".strip()
        elif operator == "?=":
            self.variables.setdefault(name, value)
        elif operator != "!=":
            self.variables[name] = value

    def rule(self, line: str) -> list[str]:
        """Add the rule on ``line`` (``targets: prerequisites ; command``); its targets."""
        targets_text, _, rest = line.partition(":")
        prerequisites, _, inline = rest.removeprefix(":").partition(";")
        order_only = prerequisites.split("|")[0]
        targets = [t for t in targets_text.split() if "%" not in t]
        for target in targets:
            first, lines = self.rules.setdefault(target, ([], []))
            first.extend(p for p in order_only.split() if "%" not in p)
            if inline.strip():
                lines.append(inline.strip())
            if self.default is None and not target.startswith("."):
                self.default = target
        return targets


def _assignment(line: str) -> tuple[str, str, str] | None:
    """``(name, operator, value)`` if ``line`` assigns a variable (before any rule colon)."""
    words = line.split(None, 1)
    if len(words) > 1 and words[0] in {"export", "override", "private"}:
        line = words[1]
    equal = line.find("=")
    if equal < 0:
        return None
    colon = line.find(":")
    if 0 <= colon < equal and line[colon:equal].strip(":"):
        return None  # a rule, or a target-specific variable
    for operator in _OPERATORS:
        at = line.find(operator)
        if 0 <= at <= equal:
            name = line[:at].strip()
            if name and " " not in name and "\t" not in name:
                return name, operator, line[at + len(operator) :].strip()
            return None
    return None


def parse(data: bytes) -> Makefile:
    """The rules and variables of a makefile's text."""
    made = Makefile()
    current: list[str] = []
    in_define = False
    text = data.decode("utf-8", errors="replace")
    for line in text.replace("\\\r\n", " ").replace("\\\n", " ").splitlines():
        if in_define:
            in_define = line.strip() != "endef"
            continue
        if line.startswith("\t"):
            for target in current:
                made.rules[target][1].append(line[1:])
            continue
        stripped = line.split("#", 1)[0].strip()
        first = stripped.split(None, 1)[0] if stripped else ""
        if not first or first in _DIRECTIVES:
            continue
        current = []
        if first == "define":
            in_define = True
            continue
        assigned = _assignment(stripped)
        if assigned is not None:
            made.assign(*assigned)
        elif ":" in stripped:
            current = made.rule(stripped)
    return made


def expand(text: str, variables: dict[str, str]) -> str:
    """``$(NAME)`` and ``${NAME}`` replaced by plain variables, a few levels deep."""
    for _ in range(_EXPANSION_PASSES):
        expanded = text
        for opening, closing in (("$(", ")"), ("${", "}")):
            start = expanded.find(opening)
            while start >= 0:
                end = expanded.find(closing, start + 2)
                if end < 0:
                    break
                name = expanded[start + 2 : end]
                value = "make" if name == "MAKE" else variables.get(name)
                if value is None:
                    start = expanded.find(opening, end)
                    continue
                expanded = expanded[:start] + value + expanded[end + 1 :]
                start = expanded.find(opening, start + len(value))
        if expanded == text:
            break
        text = expanded
    return text.replace("$$", "$")


def recipe_line(line: str) -> str:
    """A recipe line without make's own prefixes (``@`` silent, ``-`` ignore errors, ``+``)."""
    return line.strip().lstrip("@-+").strip()


def texts(call: TaskCall, directory: str, files: ProjectFiles) -> list[str] | None:
    """The recipe lines of the targets ``call`` names (or the first one), prerequisites first."""
    path = os.path.join(directory, call.file) if call.file else first_existing(directory, MAKEFILES)
    if path is None:
        return None
    made = files.parsed(path, parse)
    if not isinstance(made, Makefile):
        return None
    names = [name for name in call.names if "=" not in name]  # VAR=value sets a variable
    if not names and made.default is not None:
        names = [made.default]
    return expand_tasks(
        names, made.rules.get, lambda line: expand(recipe_line(line), made.variables)
    )
