"""The cheap pre-filter, which asks whether a command string can start a test run at all.

:func:`is_probably_test_command` is False only when
:func:`runctx.shell.commands.test_invocations` surely finds nothing: no program,
module or code name of the runner table occurs in the text as a word. It is the
first (and, for almost every shell command an agent issues, the only) question
the hook asks, so it lives apart from the shell parser, which is imported only
when the answer is yes, and it works from the table's names alone
(:mod:`runctx.runners.needles`), without building the table.

A name counts where a program, module or code can start and end: after the
start, a blank, ``/``, a quote, an operator or ``=`` (or glued to ``-m``/``-c``,
as in ``python -mpytest``), and before the end, a blank, a quote or an
operator. So ``R`` (R's own command) is found in ``R CMD check`` and not in
``README.md``, and ``go`` in ``go test`` but not in ``google``.
"""

from __future__ import annotations

import re

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
_BEFORE = frozenset(" \t\n\r\f\v/;&|()<>'\"`={}\\$")
"""Characters after which a name can start a word (besides the text's start)."""
_GLUED = ("-m", "-c", "\\n", "\\t")
"""What a name may be glued to: python's ``-m``/``-c`` (``-mpytest``), and the ``\\n`` or
``\\t`` escape of a string that ``printf`` or ``echo -e`` hands to a shell."""
_AFTER = frozenset(" \t\n\r\f\v;&|()<>'\"`\\@")
"""Characters before which a name can end a word (besides the text's end)."""
_AFTER_CLASS = "".join(re.escape(c) for c in sorted(_AFTER))


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


def _starts_word(text: str, at: int) -> bool:
    return at == 0 or text[at - 1] in _BEFORE or text[at - 2 : at] in _GLUED


_WINDOWS_SUFFIXES = (".exe", ".cmd", ".bat")


def _ends_word(text: str, end: int) -> bool:
    if end == len(text) or text[end] in _AFTER:
        return True
    # ``make.exe``, ``gradlew.bat``: a Windows suffix, then the end of the word
    return text.startswith(_WINDOWS_SUFFIXES, end) and (
        end + 4 == len(text) or text[end + 4] in _AFTER
    )


def _loose_in(text: str, literal: str, *, start_free: bool, end_free: bool) -> bool:
    """Whether ``literal`` occurs in ``text``, bounded as a word on its non-free sides."""
    at = text.find(literal)
    while at >= 0:
        if (start_free or _starts_word(text, at)) and (
            end_free or _ends_word(text, at + len(literal))
        ):
            return True
        at = text.find(literal, at + 1)
    return False


class _Finder:
    """Finds any name of a table in a text as a word: by substring loop, or a trie regex if long.

    The regex costs about a millisecond to compile, so a short text (every
    ordinary command, on the hook's no-test path) never pays for it.
    """

    __slots__ = ("loose", "needles", "regex")

    def __init__(self, names: Sequence[str]) -> None:
        plain = {n.translate(_STRIP) for n in names if not (n.startswith("*") or n.endswith("*"))}
        self.needles = tuple(sorted(plain))
        # ``*_test``: a program glob's literal part, free of a word boundary on
        # the side of its star (any program named ``..._test``)
        self.loose = tuple(
            (n.strip("*").translate(_STRIP), n.startswith("*"), n.endswith("*"))
            for n in sorted(set(names) - plain)
            if n.strip("*")
        )
        self.regex: re.Pattern[str] | None = None

    def found_in(self, text: str) -> bool:
        """Whether some needle occurs in ``text`` as a word (a glob's literal, as the glob says)."""
        if any(
            _loose_in(text, literal, start_free=start, end_free=end)
            for literal, start, end in self.loose
        ):
            return True
        if len(text) <= _SHORT_TEXT:
            return any(self._word_in(needle, text) for needle in self.needles)
        if self.regex is None:
            if not all(self.needles):  # a name made only of quotes matches anything: so be it
                self.regex = re.compile("")
            else:
                # The end of a word is checked by the regex (so that a shorter name
                # is tried when a longer one does not end there), its start below:
                # a lookbehind tried at every position would cost ten times more.
                ends = f"[{_AFTER_CLASS}]|\\Z"
                self.regex = re.compile(
                    f"(?:{_trie_pattern(self.needles)})(?={ends}|\\.(?:exe|cmd|bat)(?:{ends}))"
                )
        at = 0
        while True:
            found = self.regex.search(text, at)
            if found is None:
                return False
            if _starts_word(text, found.start()):
                return True
            at = found.start() + 1

    @staticmethod
    def _word_in(needle: str, text: str) -> bool:
        if not needle:
            return True
        at = text.find(needle)
        while at >= 0:
            if _starts_word(text, at) and _ends_word(text, at + len(needle)):
                return True
            at = text.find(needle, at + 1)
        return False


_FINDERS: dict[int, tuple[object, _Finder]] = {}


def _finder(key: object, names: Sequence[str]) -> _Finder:
    """The finder for ``names`` (cached by the identity of ``key``, a table or a name tuple)."""
    hit = _FINDERS.get(id(key))
    if hit is not None and hit[0] is key:
        return hit[1]
    finder = _Finder(names)
    if isinstance(key, tuple):
        if len(_FINDERS) >= 16:  # noqa: PLR2004 - a handful of tables per process at most
            _FINDERS.clear()
        _FINDERS[id(key)] = (key, finder)
    return finder


def names_found(command: str, names: Sequence[str]) -> bool:
    """False only if no name of ``names`` occurs in ``command`` as a word, quotes or not.

    True when one occurs once quotes, backslashes, ``$`` and line continuations
    are removed. ``names`` are a table's program, module and code names
    (:func:`runctx.runners.needles.names_of`); pass the same tuple each time.
    """
    text = command[:MAX_COMMAND_CHARS]
    finder = _finder(names, names)
    if finder.found_in(text):
        return True
    if "'" not in text and '"' not in text and "\\" not in text and "$" not in text:
        return False
    return finder.found_in(text.replace("\\\n", "").translate(_STRIP))


def is_probably_test_command(command: str, patterns: Sequence[RunnerPattern] | None = None) -> bool:
    """False only if :func:`runctx.shell.commands.test_invocations` surely finds nothing.

    ``patterns`` is the runner table (the builtin one by default).
    """
    from runctx.runners.needles import names_for  # noqa: PLC0415 - light, but only when called

    return names_found(command, names_for(patterns))
