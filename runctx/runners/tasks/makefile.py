"""Makefiles: what ``make NAME`` runs, when the makefile is plain enough to read.

Read: rules (``targets: prerequisites`` and their tab-indented recipes, or a
``; command`` on the rule line), and plain variable assignments (``=``,
``:=``, ``::=``, ``?=``, ``+=``), expanded in recipes as ``$(NAME)`` or
``${NAME}``; ``$(MAKE)`` is ``make``; the files an ``include`` names plainly
(relative to the makefile, one level, at most :data:`MAX_INCLUDES`), whose
rules the makefile's own override; pattern rules (``ct-%: build`` with
``$*`` for the stem and ``$@`` for the target), for a target no rule names.
A recipe's variables are expanded before make's own prefixes are taken off,
so that ``$(Q)`` holding ``@`` is a quiet prefix. A ``define`` block is a
variable of several lines (a canned recipe, ``$(name)``), and ``$(call
name,a,b)`` is its value with ``$(1)``, ``$(2)`` the arguments given.
Skipped: conditionals (their lines are read as if every branch were taken).
Variables given on the command line (``make VAR=value test``) override the
file's assignments of them, as in make, but for those the file makes with
``override``. A target the file does not define (by a rule or a pattern, or in an include
named through a variable) is not found: the command is then decided by the
target's name.
"""

from __future__ import annotations

import os
import re

from runctx.runners.table import MAKE_TEST_PREREQUISITES
from runctx.runners.tasks.files import MAX_TASKS, Task, expand_tasks, first_existing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.tasks.budget import WorkBudget
    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall

MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
_DIRECTIVES = frozenset(
    {"ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "include", "-include", "sinclude"}
    | {"vpath", "unexport", "undefine"}
)
_OPERATORS = (":::=", "::=", ":=", "?=", "+=", "!=", "=")
_EXPANSION_PASSES = 8
_CLOSING = {"(": ")", "{": "}"}
_INCLUDES = frozenset({"include", "-include", "sinclude"})
_ARGUMENT = re.compile(r"(?<!\$)\$(?:\((\d)\)|\{(\d)\}|(\d))")
"""An argument of ``$(call …)`` in the called value: ``$(1)``, ``${1}``, ``$1``."""
MAX_INCLUDES = 4
"""Files one makefile includes that are read (plain names, relative to its directory)."""
MAX_EXPANDED_CHARS = 64 * 1024
"""A recipe line is expanded up to this many characters: what the shell parser reads."""


class Makefile:
    """The rules and plain variables of a makefile, and its first target."""

    __slots__ = ("default", "includes", "overridden", "rules", "variables")

    def __init__(self) -> None:
        """Start empty."""
        self.rules: dict[str, Task] = {}
        self.variables: dict[str, str] = {}
        self.default: str | None = None
        self.includes: list[str] = []
        self.overridden: set[str] = set()
        """Variables the file assigns with ``override``: the command line does not change them."""

    def assign(self, name: str, operator: str, value: str, *, override: bool = False) -> None:
        """Apply one assignment; ``!=`` (a shell command's output) is not run, so not known."""
        if override:
            self.overridden.add(name)
        if operator == "+=":
            self.variables[name] = f"{self.variables.get(name, '')} {value}".strip()
        elif operator == "?=":
            self.variables.setdefault(name, value)
        elif operator != "!=":
            self.variables[name] = value

    def rule(self, line: str) -> list[str]:
        """Add the rule on ``line`` (``targets: prerequisites ; command``); its targets.

        Each target keeps at most :data:`~.files.MAX_TASKS` distinct
        prerequisites (no more tasks are ever expanded), so that a line of many
        targets and many prerequisites costs what its length costs.
        """
        targets_text, _, rest = line.partition(":")
        prerequisites, _, inline = rest.removeprefix(":").partition(";")
        order_only = prerequisites.split("|")[0]
        written = targets_text.split()
        if written and all(_pattern(t) for t in written) and ":" not in prerequisites:
            # a pattern rule (``ct-%: build``): read for the targets no rule names
            targets = [t for t in written if len(self.rules) < MAX_PATTERN_RULES or t in self.rules]
            distinct = list(dict.fromkeys(order_only.split()))[:MAX_TASKS]
        else:
            targets = [t for t in written if "%" not in t]
            distinct = list(dict.fromkeys(p for p in order_only.split() if "%" not in p))
            distinct = distinct[:MAX_TASKS]
        for target in targets:
            first, lines = self.rules.setdefault(target, ([], []))
            for name in distinct:
                if len(first) >= MAX_TASKS:
                    break
                if name not in first:
                    first.append(name)
            if inline.strip():
                lines.append(inline.strip())
            if self.default is None and not target.startswith(".") and "%" not in target:
                self.default = target
        return targets

    def task(self, name: str, *, anything: bool = True) -> Task | None:
        """The rule that makes ``name``: its own, else the first pattern rule that matches it.

        A pattern rule's ``%`` prerequisites and ``$*`` take the stem, ``$@``
        the target (not when written ``$$*``, a shell's own). Without
        ``anything``, a match-anything rule (``%: common-%``) is not tried.
        """
        found = self.rules.get(name)
        if found is not None or "%" in name:
            return found
        for pattern, (first, lines) in self.rules.items():
            stem = _stem(pattern, name) if anything or pattern != "%" else None
            if stem is None:
                continue
            made = [p.replace("%", stem, 1) for p in first]
            return made, [_automatic(line, name, stem) for line in lines]
        return None


MAX_PATTERN_RULES = 64
"""Rules (pattern rules among them) past which a makefile's pattern rules are no longer kept."""


def _pattern(target: str) -> bool:
    """Whether ``target`` is a pattern (one ``%``), not a plain target or a variable."""
    return target.count("%") == 1 and "$" not in target


def _stem(pattern: str, name: str) -> str | None:
    """What ``%`` of ``pattern`` stands for in ``name``, or None when it does not match."""
    if not _pattern(pattern):
        return None
    prefix, _, suffix = pattern.partition("%")
    if len(name) <= len(prefix) + len(suffix):
        return None
    if not (name.startswith(prefix) and name.endswith(suffix)):
        return None
    return name[len(prefix) : len(name) - len(suffix)]


def _automatic(line: str, target: str, stem: str) -> str:
    """A pattern rule's recipe line with ``$*`` and ``$@`` made the stem and the target."""
    out: list[str] = []
    i = 0
    while i < len(line):
        pair = line[i : i + 2]
        if pair == "$$":
            out.append(pair)
            i += 2
        elif pair in {"$*", "$@"}:
            out.append(stem if pair == "$*" else target)
            i += 2
        else:
            out.append(line[i])
            i += 1
    return "".join(out)


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
    defined: tuple[str, list[str]] | None = None
    text = data.decode("utf-8", errors="replace")
    for line in text.replace("\\\r\n", " ").replace("\\\n", " ").splitlines():
        if defined is not None:
            defined = _defining(made, defined, line)
            continue
        if line.startswith("\t"):
            for target in current:
                made.rules[target][1].append(line[1:])
            continue
        stripped = line.split("#", 1)[0].strip()
        first = stripped.split(None, 1)[0] if stripped else ""
        if first in _INCLUDES:
            made.includes.extend(stripped.split()[1:][:MAX_INCLUDES])
        if not first or first in _DIRECTIVES:
            continue
        current = []
        if first == "define":
            words = stripped.split()
            defined = (words[1] if len(words) > 1 else "", [])
            continue
        assigned = _assignment(stripped)
        if assigned is not None:
            made.assign(*assigned, override=first == "override")
        elif ":" in stripped:
            current = made.rule(stripped)
    return made


def _defining(
    made: Makefile, defined: tuple[str, list[str]], line: str
) -> tuple[str, list[str]] | None:
    """The ``define`` block read on with ``line``; None once ``endef`` assigned it."""
    if line.strip() != "endef":
        defined[1].append(recipe_line(line))
        return defined
    made.assign(defined[0], "=", "\n".join(filter(None, defined[1])))
    return None


def expand(text: str, variables: dict[str, str], work: WorkBudget | None = None) -> str:
    """``$(NAME)`` and ``${NAME}`` replaced by plain variables, a few levels deep.

    ``$$`` is make's escaped ``$`` (never the start of a reference). Each pass
    is one scan of the text, and the result is cut at
    :data:`MAX_EXPANDED_CHARS`: variables that double at each level cannot
    make a recipe line grow past what the shell parser reads of a command.
    What every pass makes is charged to ``work``, the command's budget
    (:class:`~.budget.WorkBudget`): variables that expand into each other on
    every line of a makefile stop there (:class:`~.budget.BudgetSpentError`).
    """
    for _ in range(_EXPANSION_PASSES):
        expanded = _expand_once(text, variables)
        if work is not None:
            work.expanded(len(expanded))
        if expanded == text:
            break
        text = expanded
    return text.replace("$$", "$")


def _expand_once(text: str, variables: dict[str, str]) -> str:
    """One pass of :func:`expand`: each reference replaced once, the result bounded."""
    parts: list[str] = []
    size = 0
    pos = 0
    while size <= MAX_EXPANDED_CHARS:
        dollar = text.find("$", pos)
        if dollar < 0 or dollar + 1 >= len(text):
            parts.append(text[pos:])
            break
        opening = text[dollar + 1]
        closing = _CLOSING.get(opening)
        end = text.find(closing, dollar + 2) if closing is not None else -1
        if closing is not None and end < 0:
            parts.append(text[pos:])
            break
        if closing is None:  # ``$$``, or ``$x``: kept as they are
            piece, pos = text[pos : dollar + 2], dollar + 2
        else:
            name = text[dollar + 2 : end]
            value = "make" if name == "MAKE" else variables.get(name)
            if value is None and name.startswith("call "):
                value = _called(name[5:], variables)
            piece = text[pos : end + 1] if value is None else text[pos:dollar] + value
            pos = end + 1
        parts.append(piece)
        size += len(piece)
    return "".join(parts)[:MAX_EXPANDED_CHARS]


def _called(call: str, variables: dict[str, str]) -> str | None:
    """What ``$(call NAME,ARGS…)`` gives: NAME's value with its arguments in; None if unknown."""
    name, *arguments = call.split(",")
    body = variables.get(name.strip())
    if body is None:
        return None
    given = [name.strip(), *arguments]

    def argument(match: re.Match[str]) -> str:
        number = int(match[1] or match[2] or match[3])
        return given[number] if number < len(given) else ""

    return _ARGUMENT.sub(argument, body)


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
    made = _with_includes(made, os.path.dirname(path), files)
    variables = with_command_line(made, call.names)
    # VAR=value sets a variable; a word made of a variable (``${extraflags}``) may set one
    # or name more targets: the targets written are read
    names = [name for name in call.names if "=" not in name and not name.startswith("$")]
    if not names and any(name.startswith("$") for name in call.names):
        return None  # only targets named by variables: not known
    if not names and made.default is not None:
        names = [made.default]

    implied: set[str] = set()  # prerequisites a match-anything rule asked for

    def task(name: str) -> Task | None:
        # a prerequisite ``test`` runs the tests as ``make test`` does, whatever its recipe
        if name in MAKE_TEST_PREREQUISITES:
            return [], [f"make {name}"]
        # as make: a match-anything rule makes no prerequisite of an implicit rule
        # (``%: common-%`` makes ``vet`` from ``common-vet``, never ``common-common-vet``)
        found = made.task(name, anything=name not in implied)
        if found is not None and name not in made.rules and "%" in made.rules:
            implied.update(found[0])
        return found

    return expand_tasks(
        names,
        task,
        lambda line: recipe_line(expand(recipe_line(line), variables, files.work)),
        files.unread,
    )


def with_command_line(made: Makefile, words: tuple[str, ...]) -> dict[str, str]:
    """The file's variables with the command line's assignments (``VAR=value``) over them.

    As make does: any assignment operator may be given (``VAR:=value``,
    ``VAR+=more`` appends to the file's value), and a variable the file
    assigns with ``override`` keeps the file's value.
    """
    variables = made.variables
    for word in words:
        equal = word.find("=")
        if equal <= 0 or word.startswith(("$", "-")):
            continue
        head, value = word[:equal], word[equal + 1 :]
        name = head.rstrip(":?+!")
        if not name or any(char.isspace() or char in "$()" for char in name):
            continue
        if name in made.overridden:
            continue
        if variables is made.variables:
            variables = dict(made.variables)
        if head.endswith("+") and not head.endswith(":+"):
            value = f"{variables.get(name, '')} {value}".strip()
        variables[name] = value
    return variables


def _with_includes(made: Makefile, directory: str, files: ProjectFiles) -> Makefile:
    """``made`` with the rules and variables of the files it includes (one level, bounded)."""
    if not made.includes:
        return made
    merged = Makefile()
    merged.default = made.default
    for name in made.includes[:MAX_INCLUDES]:
        if "$" in name or "*" in name or os.path.isabs(name) or ".." in name.split("/"):
            continue
        included = files.parsed(os.path.join(directory, name), parse)
        if isinstance(included, Makefile):
            merged.rules.update(included.rules)
            merged.variables.update(included.variables)
            merged.overridden |= included.overridden
    merged.rules.update(made.rules)
    merged.variables.update(made.variables)
    merged.overridden |= made.overridden
    return merged
