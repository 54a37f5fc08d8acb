"""The cheap pre-filter, which asks whether a command string can start a test run at all.

:func:`is_probably_test_command` is False only when
:func:`runctx.shell.commands.test_invocations` surely finds nothing: no program,
module or code name of the runner table occurs in the text. It is the first
(and, for almost every shell command an agent issues, the only) question the
hook asks, so it lives apart from the shell parser, which is imported only
when the answer is yes.
"""

from __future__ import annotations

import re

from runctx.runners.index import needles
from runctx.runners.table import BUILTIN_PATTERNS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from runctx.runners.pattern import RunnerPattern

MAX_COMMAND_CHARS = 64 * 1024
"""Only this much of a command string is read (by the parser too)."""

# What the tokenizer can remove from between the letters of a word: quotes,
# backslashes, the ``$`` of ``$'...'``. Removing all of them (and line
# continuations) from the text keeps every word a tokenizer can make a substring.
_STRIP = str.maketrans("", "", "'\"\\$")
_SHORT_TEXT = 4096  # up to here a plain substring loop beats compiling the trie regex


def _trie_pattern(words: Sequence[str]) -> str:
    """A regex matching any of ``words``, shaped as a trie: one branch per next letter.

    Python's ``re`` tries the alternatives of a flat ``a|b|c`` one by one at
    every position; a trie tries one per letter, which keeps a 64 KiB scan
    near a millisecond.
    """
    trie: dict[str, dict[str, object]] = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})  # type: ignore[assignment]
        node[""] = {}

    def branch(node: dict[str, dict[str, object]]) -> str:
        alternatives = [
            re.escape(char) + branch(child)  # type: ignore[arg-type]
            for char, child in sorted(node.items())
            if char
        ]
        if not alternatives:
            return ""
        if len(alternatives) == 1 and "" not in node:
            return alternatives[0]
        group = "(?:" + "|".join(alternatives) + ")"
        return group + "?" if "" in node else group

    return branch(trie)


class _Finder:
    """Finds any runner name of a table in a text: by substring loop, or a trie regex if long.

    The regex costs about a millisecond to compile, so a short text (every
    ordinary command, on the hook's no-test path) never pays for it.
    """

    __slots__ = ("needles", "regex")

    def __init__(self, patterns: Sequence[RunnerPattern]) -> None:
        self.needles = tuple(sorted({n.translate(_STRIP) for n in needles(patterns)}))
        self.regex: re.Pattern[str] | None = None

    def found_in(self, text: str) -> bool:
        """Whether some needle occurs in ``text``."""
        if len(text) <= _SHORT_TEXT:
            return any(needle in text for needle in self.needles)
        if self.regex is None:
            # An empty needle (a name made only of quotes) matches anything: so be it.
            self.regex = re.compile(_trie_pattern(self.needles) if all(self.needles) else "")
        return self.regex.search(text) is not None


_FINDERS: dict[int, tuple[Sequence[RunnerPattern], _Finder]] = {}


def _finder(patterns: Sequence[RunnerPattern]) -> _Finder:
    """The pre-filter's finder for ``patterns`` (cached by identity for tuples)."""
    hit = _FINDERS.get(id(patterns))
    if hit is not None and hit[0] is patterns:
        return hit[1]
    finder = _Finder(patterns)
    if isinstance(patterns, tuple):
        if len(_FINDERS) >= 16:  # noqa: PLR2004 - a handful of tables per process at most
            _FINDERS.clear()
        _FINDERS[id(patterns)] = (patterns, finder)
    return finder


def is_probably_test_command(
    command: str, patterns: Sequence[RunnerPattern] = BUILTIN_PATTERNS
) -> bool:
    """False only if :func:`runctx.shell.commands.test_invocations` surely finds nothing.

    True when some program, module or code name of the table occurs in the
    command once quotes, backslashes, ``$`` and line continuations are removed.
    """
    text = command[:MAX_COMMAND_CHARS]
    finder = _finder(patterns)
    if finder.found_in(text):
        return True
    if "'" not in text and '"' not in text and "\\" not in text and "$" not in text:
        return False
    return finder.found_in(text.replace("\\\n", "").translate(_STRIP))


ENVIRONMENT_WORDS = ("pip", "uv", "poetry", "pdm", "hatch", "npm", "yarn")
"""A part of every name in the table of commands that change an environment
(:data:`runctx.runners.installers.INSTALLER_PATTERNS`): ``pip`` of ``pip3``,
``npm`` of ``pnpm`` and ``npm-cli.js``. Written out here, so that a command
that names none of them costs no import at all."""


def may_change_environment(command: str) -> bool:
    """False only if no command that changes an environment can be in ``command``.

    The same rule as :func:`is_probably_test_command`, over
    :data:`ENVIRONMENT_WORDS`: plain substring tests, and the text once more
    with quotes, backslashes, ``$`` and line continuations removed.
    """
    text = command[:MAX_COMMAND_CHARS]
    if any(word in text for word in ENVIRONMENT_WORDS):
        return True
    if "'" not in text and '"' not in text and "\\" not in text and "$" not in text:
        return False
    stripped = text.replace("\\\n", "").translate(_STRIP)
    return any(word in stripped for word in ENVIRONMENT_WORDS)
