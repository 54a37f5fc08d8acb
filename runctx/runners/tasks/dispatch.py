"""What a script that picks its action from its arguments runs, for the arguments given.

``./test carthage`` over a script that loops over its arguments (``for arg in
"$@"; do case "$arg" in macos) test_macos ;; carthage) test_carthage ;;
esac; done``) runs only the ``carthage`` arm and the function it calls; a
script that parses its options first (``while [ $# -gt 0 ]; do case "$1" in
-v) V=1 ;; esac; shift; done``) and then runs ``pytest`` runs ``pytest``
whatever options it is given.

:func:`selected_text` gives the text the arguments select: each ``case``
block whose subject comes from the arguments (``$1``, ``${1:-}``, a ``for``
variable over ``"$@"``, a ``getopts`` variable, a variable assigned from one
of those) keeps only the arms a pattern of which matches an argument, a
short option's letter or a long option's name (a pattern holding a variable
is kept); and a function the text left no longer calls (by name, or as an
argument: ``"$@"`` may call it) is left out. Blocks inside a function are
kept whole: there ``$1`` is the function's argument, not the script's.

The reading is textual and bounded to what a script's first
:data:`~.scripts.MAX_SCRIPT_CHARS` hold. When a block or a function cannot be
read to its end (an ``esac`` or a ``}`` missing, braces in quotes), nothing is
left out: a text that is not understood is judged whole.
"""

from __future__ import annotations

import fnmatch
import re
from collections import Counter
from collections.abc import Sequence

from runctx.regex import on_first_use

__all__ = ["argument_fed", "assignments", "selected_text"]

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_BEFORE_WORD = " \t\n;&|()`"
_CASE = on_first_use(r"(?:^|(?<=[\s;&|(`]))case\s+(\S+)\s+in(?=[\s;])")
_FUNCTION = on_first_use(
    rf"(?m)^[ \t]*(?:function[ \t]+({_NAME}(?:-[A-Za-z0-9_]+)*)[ \t]*(?:\(\s*\))?"
    rf"|({_NAME}(?:-[A-Za-z0-9_]+)*)[ \t]*\(\s*\))\s*\{{"
)
_FOR_ARGUMENTS = on_first_use(rf"\bfor\s+({_NAME})\s*(?:;|\n|\s+do\b)")
_FOR_IN = on_first_use(rf"\bfor\s+({_NAME})\s+in\s+([^;\n]*)")
_GETOPTS = on_first_use(rf"\bgetopts\s+\S+\s+({_NAME})")
_ASSIGNMENT = on_first_use(
    rf"(?:^|(?<=[\s;&|(]))(?:local\s+|export\s+|readonly\s+|declare\s+)?({_NAME})="
    r"(\"\$\((?:[^()\n]|\([^()\n]*\))*\)\"|\"[^\"\n]*\"|'[^'\n]*'|[^\s;&|]*)"
)
_IF_EQUALS = on_first_use(
    rf"(?:^|(?<=[\s;&|]))if\s+\[\[?\s+\"?\$\{{?({_NAME})\}}?\"?\s+(==?|!=)\s+"
    r"[\"']?([\w.-]+)[\"']?\s+\]\]?\s*(?:;\s*|\n\s*)then(?=[\s;])"
)
_SOURCES = on_first_use(r"(?:^|(?<=[\s;&|]))(?:source|\.)\s+\S")
_BRANCHES_MAX = 64
"""``if`` tests of one script weighed; past them, every branch is kept."""
_POSITIONAL = on_first_use(r"\$(?:[0-9@*]|\{[0-9@*#])")
_ARMS_MAX = 256
"""Arms read in one block; past them, nothing is left out."""
_FUNCTIONS_MAX = 256
"""Functions told apart in one script; past them, none is left out."""
_PATTERN_MAX = 256
"""The longest arm pattern matched; a longer one is kept, not matched."""
_WORD = on_first_use(r"[A-Za-z_][A-Za-z0-9_-]*")


def _variables(text: str) -> set[str]:
    """The names of variables read in ``text`` (``$name``, ``${name...}``)."""
    return set(re.findall(rf"\$\{{?({_NAME})", text))


def assignments(text: str) -> list[tuple[str, str]]:
    """Each ``NAME=VALUE`` of a script's ``text`` (``local``, ``export``…): name and value."""
    return _ASSIGNMENT().findall(text)


def argument_fed(text: str) -> set[str]:
    """The variables of ``text`` whose value comes from the script's arguments.

    A ``for`` variable over the arguments, a ``getopts`` variable (and
    ``OPTARG``), and a variable assigned from one of those or from a
    positional parameter, a few assignments deep.
    """
    fed = {"OPTARG"}
    fed.update(_FOR_ARGUMENTS().findall(text))
    fed.update(_GETOPTS().findall(text))
    loops = _FOR_IN().findall(text)
    assigned = assignments(text)
    for _ in range(4):
        before = len(fed)
        for name, words in loops:
            if _POSITIONAL().search(words) or _variables(words) & fed:
                fed.add(name)
        for name, value in assigned:
            if _POSITIONAL().search(value) or _variables(value) & fed:
                fed.add(name)
        if len(fed) == before:
            break
    return fed


def _subject_is_fed(subject: str, fed: set[str]) -> bool:
    """Whether a ``case`` subject (``"$1"``, ``$arg``, ``${ACTION:-}``) comes from arguments."""
    return bool(_POSITIONAL().search(subject) or _variables(subject) & fed)


def _candidates(arguments: Sequence[str]) -> set[str]:
    """What an arm's pattern may be matched against: each argument, its letters, its name."""
    found: set[str] = set()
    for argument in arguments:
        found.add(argument)
        if argument.startswith("--"):
            found.add(argument.partition("=")[0])
            found.add(argument.partition("=")[2])
            found.add(argument.partition("=")[0][1:])  # ``-restore``: one dash, as many accept
        elif argument.startswith("-") and len(argument) > 1:
            found.update(argument[1:])
            found.update(f"-{letter}" for letter in argument[1:])
    return found


def _selected(patterns: list[str], candidates: set[str]) -> bool:
    """Whether an arm of ``patterns`` is taken for one of ``candidates``."""
    for pattern in patterns:
        if "$" in pattern or "`" in pattern or len(pattern) > _PATTERN_MAX:
            return True  # a pattern made of a variable (or too long to match): kept
        plain = pattern.replace('"', "").replace("'", "").replace("\\", "")
        if any(fnmatch.fnmatchcase(candidate, plain) for candidate in candidates):
            return True
    return False


def _keyword_at(text: str, at: int, word: str) -> bool:
    """Whether ``word`` starts at ``at`` as a shell word (``esac``, not ``esacs``)."""
    if not text.startswith(word, at):
        return False
    before = text[at - 1] if at > 0 else " "
    end = at + len(word)
    after = text[end] if end < len(text) else " "
    return before in _BEFORE_WORD and after in _BEFORE_WORD


def _arm_end(text: str, at: int) -> tuple[int, int] | None:
    """Where an arm's body that starts at ``at`` ends, and where the next arm starts.

    The body ends at its ``;;`` (``;&``, ``;;&``) or at the block's ``esac``;
    a nested block is stepped over. None when the block has no end.
    """
    depth = 0
    i = at
    n = len(text)
    while i < n:
        char = text[i]
        if char == "#" and (i == 0 or text[i - 1] in " \t\n"):
            newline = text.find("\n", i)
            i = n if newline < 0 else newline
            continue
        if char == ";" and depth == 0 and text.startswith((";;", ";&"), i):
            skip = 3 if text.startswith(";;&", i) else 2
            return i, i + skip
        if char in "ce":
            if _keyword_at(text, i, "case"):
                depth += 1
            elif _keyword_at(text, i, "esac"):
                if depth == 0:
                    return i, i
                depth -= 1
        i += 1
    return None


def _past_blanks_and_comments(text: str, at: int) -> int:
    """The index of the first character at or after ``at`` that is no blank and no comment."""
    n = len(text)
    while at < n:
        if text[at] in " \t\n;":
            at += 1
        elif text[at] == "#":
            newline = text.find("\n", at)
            at = n if newline < 0 else newline + 1
        else:
            break
    return at


def _prune_block(
    text: str, start: int, candidates: set[str]
) -> tuple[list[tuple[int, int]], int] | None:
    """The spans of the unselected arms' bodies of the block whose arms start at ``start``.

    Also the index just past its ``esac``. None when the block cannot be read.
    """
    removed: list[tuple[int, int]] = []
    i = start
    for _ in range(_ARMS_MAX):
        i = _past_blanks_and_comments(text, i)
        if _keyword_at(text, i, "esac"):
            return removed, i + len("esac")
        close = text.find(")", i)
        if close < 0:
            return None
        patterns = [p.strip() for p in text[i:close].lstrip("(").split("|")]
        ends = _arm_end(text, close + 1)
        if ends is None:
            return None
        body_end, next_arm = ends
        if not _selected(patterns, candidates):
            removed.append((close + 1, body_end))
        i = next_arm
    return None


def _matching_braces(text: str) -> dict[int, int] | None:
    """Each ``{`` of ``text`` to the ``}`` that closes it, in one pass; None if they do not pair."""
    pairs: dict[int, int] = {}
    opened: list[int] = []
    for at, char in enumerate(text):
        if char == "{":
            opened.append(at)
        elif char == "}":
            if not opened:
                return None
            pairs[opened.pop()] = at
    return None if opened else pairs


def _function_spans(text: str) -> dict[str, list[tuple[int, int]]] | None:
    """Each function the text defines: the spans of its definitions, ``name`` to the ``}``.

    None when braces do not pair, when definitions nest or overlap, or past
    :data:`_FUNCTIONS_MAX` of them: the functions are then not told apart.
    """
    found = list(_FUNCTION().finditer(text, 0))
    if not found:
        return {}
    if len(found) > _FUNCTIONS_MAX:
        return None
    braces = _matching_braces(text)
    if braces is None:
        return None
    spans: dict[str, list[tuple[int, int]]] = {}
    last_end = -1
    for definition in found:
        end = braces.get(definition.end() - 1)
        if end is None or definition.start() < last_end:
            return None
        last_end = end + 1
        name = definition.group(1) or definition.group(2)
        spans.setdefault(name, []).append((definition.start(), end + 1))
    return spans


def _inside(at: int, spans: dict[str, list[tuple[int, int]]]) -> bool:
    return any(start <= at < end for pairs in spans.values() for start, end in pairs)


def _without(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each of ``spans`` taken out."""
    kept: list[str] = []
    at = 0
    for start, end in sorted(spans):
        if start < at:
            continue
        kept.append(text[at:start])
        at = end
    kept.append(text[at:])
    return "".join(kept)


def _uncalled(text: str, arguments: Sequence[str]) -> str:
    """``text`` without the functions nothing left in it calls (nor an argument names).

    Each word is counted once; taking a function out takes its words off the
    count, and the functions it called are looked at again.
    """
    spans = _function_spans(text)
    if not spans:
        return text
    total = Counter(_WORD().findall(text))
    inside = {
        name: Counter(word for start, end in pairs for word in _WORD().findall(text, start, end))
        for name, pairs in spans.items()
    }
    named = set(arguments)
    removed: set[str] = set()
    waiting = list(spans)
    while waiting:
        name = waiting.pop()
        if name in removed or name in named or total[name] > inside[name][name]:
            continue
        removed.add(name)
        total -= inside[name]
        waiting += [word for word in inside[name] if word in spans and word not in removed]
    return _without(text, [span for name in removed for span in spans[name]])


def selected_text(text: str, arguments: Sequence[str]) -> str | None:
    """The part of a script's ``text`` that ``arguments`` select; None when none is picked.

    None when no ``case`` block outside a function takes its subject from the
    arguments (the script picks its action otherwise, or not at all).
    """
    functions = _function_spans(text)
    if functions is None:
        return None
    fed = argument_fed(text)
    candidates = _candidates(arguments)
    removed: list[tuple[int, int]] = []
    picked = False
    at = 0
    while True:
        found = _CASE().search(text, at)
        if found is None:
            break
        if _inside(found.start(), functions) or not _subject_is_fed(found.group(1), fed):
            at = found.end()
            continue
        block = _prune_block(text, found.end(), candidates)
        if block is None:
            return None
        spans, at = block
        removed += spans
        picked = True
    if not picked:
        return None
    return _without_dead_branches(_uncalled(_without(text, removed), arguments))


def _without_dead_branches(text: str) -> str:
    """``text`` without an ``if`` that tests a variable for a value the text never gives it.

    ``if [[ "$coverage" == true ]]; then … fi`` where every assignment left
    of ``coverage`` is a literal other than ``true`` (the arm that set it was
    not selected): the branch cannot run. Kept when the variable is never
    assigned (the environment may give it), is assigned anything but a
    literal, the branch has an ``else``, or the script sources another file.
    """
    if "if" not in text or _SOURCES().search(text):
        return text
    values: dict[str, set[str]] = {}
    for name, value in assignments(text):
        values.setdefault(name, set()).add(value.strip("\"'"))
    ends: dict[int, int] | None = None
    removed: list[tuple[int, int]] = []
    for count, found in enumerate(_IF_EQUALS().finditer(text)):
        if count >= _BRANCHES_MAX:
            break
        name, operator, literal = found.groups()
        given = values.get(name)
        if not given or any(not _WORD().fullmatch(value) for value in given):
            continue
        if (literal in given) if operator != "!=" else (given != {literal}):
            continue
        ends = _if_ends(text) if ends is None else ends
        end = ends.get(found.start())
        if end is not None:
            removed.append((found.start(), end))
    return _without(text, removed) if removed else text


def _if_ends(text: str) -> dict[int, int]:
    """Where each ``if`` of ``text`` (by its start) ends, past its ``fi``; none with an else.

    One pass over the text's words.
    """
    ends: dict[int, int] = {}
    open_ifs: list[tuple[int, bool]] = []  # an ``if`` not closed yet: its start, its else
    for word in _WORD().finditer(text):
        keyword = word.group()
        if keyword not in {"if", "else", "elif", "fi"}:
            continue
        if not _keyword_at(text, word.start(), keyword):
            continue
        if keyword == "if":
            open_ifs.append((word.start(), False))
        elif open_ifs and keyword != "fi":
            open_ifs[-1] = (open_ifs[-1][0], True)
        elif open_ifs:
            start, has_else = open_ifs.pop()
            if not has_else:
                ends[start] = word.end()
    return ends
