"""The shell lexer: a command string split into words and operators, as a POSIX shell would.

Words lose their quotes (single, double, ``$'...'``, backslashes, line
continuations) and keep the bodies of their command substitutions
(``$(...)``, backticks, ``<(...)``) for the parser to read in turn. Comments
are dropped and here-document bodies skipped (kept on their delimiter word,
for the parser to read when a shell reads its commands from one).

Bounded: every loop turn costs one step of a budget shared by all nesting
levels of one command string; past it the lexer stops. An unbalanced quote or
parenthesis never raises: that text falls back to a plain whitespace split.
The regexes are compiled on first use, so the hook's path for a command that
names no runner never pays for them.
"""

from __future__ import annotations

import re


class _Unbalanced(Exception):  # noqa: N818 - internal signal, never escapes this module
    """An unterminated quote, substitution or parenthesis."""


class _Exhausted(Exception):  # noqa: N818 - internal signal, never escapes this module
    """The step budget of one command string ran out."""


class Token:
    """A word (``op`` empty) or an operator (``op`` set)."""

    __slots__ = ("end", "heredoc", "op", "quoted", "start", "substs", "text")

    def __init__(  # noqa: PLR0913 - one field per argument
        self, text: str, op: str, start: int, end: int, *, quoted: bool, substs: list[str]
    ) -> None:
        """Hold one token: its text (a word) or operator, where it stands, what it holds."""
        self.text = text
        self.op = op
        self.start = start
        self.end = end
        self.quoted = quoted
        self.substs = substs
        self.heredoc = ""  # for the delimiter word of ``<<``: the here-document's body


_OPERATORS = (
    "&>>",
    ";;&",
    "<<-",
    "<<<",
    "&&",
    "||",
    ";;",
    ";&",
    "|&",
    "&>",
    ">>",
    ">|",
    "<>",
    "<&",
    ">&",
    "<<",
    ";",
    "&",
    "|",
    "(",
    ")",
    "<",
    ">",
)
REDIRECTS = frozenset({"&>>", "<<-", "<<<", "&>", ">>", ">|", "<>", "<&", ">&", "<<", "<", ">"})
_HEREDOCS = frozenset({"<<", "<<-"})
PIPES = frozenset({"|", "|&"})
_FALLBACK_OPERATORS = frozenset({"&&", "||", ";", ";;", "|", "|&", "&", "(", ")"})


class _Regexes:
    """The lexer's regexes, compiled on first use: the no-test path never pays for them."""

    __slots__ = (
        "ansi_c",
        "backtick",
        "blanks",
        "double_body",
        "double_plain",
        "operator",
        "paren_stop",
        "plain",
    )

    def __init__(self) -> None:
        self.operator = re.compile("|".join(re.escape(op) for op in _OPERATORS))
        self.blanks = re.compile(r"(?:[ \t\r\f\v]|\\\n)+")
        self.plain = re.compile(r"[^ \t\r\f\v\n'\"\\$`;&|()<>]+")
        self.double_plain = re.compile(r'[^"\\$`]+')
        self.ansi_c = re.compile(r"(?:[^'\\]|\\.)*'", re.DOTALL)
        self.backtick = re.compile(r"(?:[^`\\]|\\.)*`", re.DOTALL)
        self.paren_stop = re.compile(r"[()'\"\\`]")
        self.double_body = re.compile(r'(?:[^"\\]|\\.)*"', re.DOTALL)


_COMPILED: list[_Regexes] = []


def _regexes() -> _Regexes:
    """The lexer's regexes (compiled once per process)."""
    if not _COMPILED:
        _COMPILED.append(_Regexes())
    return _COMPILED[0]


_WORD_END = frozenset(" \t\r\f\v\n;&|()<>")


def _close_paren(lexer: _Lexer, pos: int) -> int:
    """The index of the ``)`` that closes a ``(`` just before ``pos``."""
    text = lexer.text
    paren_stop = lexer.rx.paren_stop
    depth = 1
    while True:
        lexer.charge()
        found = paren_stop.search(text, pos)
        if found is None:
            raise _Unbalanced
        pos = found.start()
        char = text[pos]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return pos
        else:
            pos = _end_of_quoted(lexer, pos)
        pos += 1


def _end_of_quoted(lexer: _Lexer, pos: int) -> int:
    """The index of the last character of the quote or escape that starts at ``pos``."""
    text = lexer.text
    char = text[pos]
    if char == "\\":
        return pos + 1
    if char == "'":
        end = text.find("'", pos + 1)
    else:
        body = (lexer.rx.double_body if char == '"' else lexer.rx.backtick).match(text, pos + 1)
        end = -1 if body is None else body.end() - 1
    if end < 0:
        raise _Unbalanced
    return end


class _Lexer:
    """Splits a command string into words and operators, as a POSIX shell would."""

    __slots__ = ("exhausted", "heredocs", "left", "rx", "text", "tokens")

    def __init__(self, text: str, left: int) -> None:
        self.rx = _regexes()
        self.text = text
        self.left = left  # steps left: every loop turn of the lexer costs one
        self.tokens: list[Token] = []
        self.heredocs: list[tuple[str, bool, Token]] = []
        self.exhausted = False  # the step budget ran out before the text's end

    def charge(self) -> None:
        """Spend one step; :class:`_Exhausted` when none is left."""
        self.left -= 1
        if self.left < 0:
            raise _Exhausted

    def run(self) -> list[Token]:
        """Every token of the text, or those before the step budget ran out."""
        try:
            self._run()
        except _Exhausted:
            self.left = 0
            self.exhausted = True
        return self.tokens

    def _run(self) -> None:
        text = self.text
        n = len(text)
        pos = 0
        awaiting_delimiter: bool | None = None  # after << or <<-: whether tabs are stripped
        while pos < n:
            self.charge()
            char = text[pos]
            if char in " \t\r\f\v" or text.startswith("\\\n", pos):
                # a line continuation between words is a blank, never an empty word
                pos = self.rx.blanks.match(text, pos).end()  # type: ignore[union-attr]
            elif char == "\n":
                self._emit("", "\n", pos, pos + 1)
                pos = self._skip_heredocs(pos + 1)
            elif char == "#":
                newline = text.find("\n", pos)
                pos = n if newline < 0 else newline
            elif char in "<>" and text.startswith("(", pos + 1):
                end = _close_paren(self, pos + 2)
                self._emit(text[pos : end + 1], "", pos, end + 1, substs=[text[pos + 2 : end]])
                pos = end + 1
            elif char in ";&|()<>":
                op = self.rx.operator.match(text, pos).group()  # type: ignore[union-attr]
                self._operator(op, pos)
                if op in _HEREDOCS:
                    awaiting_delimiter = op == "<<-"
                pos += len(op)
            else:
                start = pos
                pos, word, quoted, substs = self._word(pos)
                self._emit(word, "", start, pos, quoted=quoted, substs=substs)
                if awaiting_delimiter is not None:
                    self.heredocs.append((word, awaiting_delimiter, self.tokens[-1]))
                    awaiting_delimiter = None

    def _emit(  # noqa: PLR0913 - one field per argument
        self,
        text: str,
        op: str,
        start: int,
        end: int,
        *,
        quoted: bool = False,
        substs: list[str] | None = None,
    ) -> None:
        self.tokens.append(Token(text, op, start, end, quoted=quoted, substs=substs or []))

    def _operator(self, op: str, pos: int) -> None:
        """Emit ``op``; a redirection swallows the fd number written just before it."""
        tokens = self.tokens
        if op in REDIRECTS and tokens:
            last = tokens[-1]
            if not last.op and last.end == pos and last.text.isdigit() and not last.quoted:
                tokens.pop()
        self._emit("", op, pos, pos + len(op))

    def _skip_heredocs(self, pos: int) -> int:
        """Skip the bodies of the here-documents opened on the line that just ended.

        Each body is kept on its delimiter word (``Token.heredoc``): the parser
        reads it only when a shell reads its commands from it.
        """
        for delimiter, strip_tabs, token in self.heredocs:
            line_start = r"^\t*" if strip_tabs else "^"
            end = re.compile(line_start + re.escape(delimiter) + "$", re.MULTILINE)
            found = end.search(self.text, pos)
            body_end = len(self.text) if found is None else found.start()
            token.heredoc = self.text[pos:body_end]
            pos = len(self.text) if found is None else found.end()
        self.heredocs.clear()
        return pos

    def _word(self, pos: int) -> tuple[int, str, bool, list[str]]:
        """Scan one word from ``pos``: its end, its text without quotes, quoted?, substitutions."""
        text = self.text
        n = len(text)
        parts: list[str] = []
        substs: list[str] = []
        quoted = False
        while pos < n:
            self.charge()
            char = text[pos]
            if char in _WORD_END:
                break
            if char == "'":
                end = _end_of_quoted(self, pos)
                parts.append(text[pos + 1 : end])
                quoted, pos = True, end + 1
            elif char == '"':
                quoted, pos = True, self._double(pos + 1, parts, substs)
            elif char == "\\":
                if pos + 1 < n and text[pos + 1] != "\n":
                    parts.append(text[pos + 1])
                quoted, pos = True, pos + 2
            elif char == "$":
                pos, was_quoted = self._dollar(pos, parts, substs, in_double=False)
                quoted = quoted or was_quoted
            elif char == "`":
                pos = self._backtick(pos, parts, substs)
            else:  # rx.plain takes every character that is not handled above
                plain = self.rx.plain.match(text, pos)
                parts.append(plain.group())  # type: ignore[union-attr]
                pos = plain.end()  # type: ignore[union-attr]
        return pos, "".join(parts), quoted, substs

    def _double(self, pos: int, parts: list[str], substs: list[str]) -> int:
        """Scan a double-quoted string whose body starts at ``pos``; the index after it."""
        text = self.text
        n = len(text)
        while pos < n:
            self.charge()
            char = text[pos]
            if char == '"':
                return pos + 1
            if char == "\\":
                following = text[pos + 1 : pos + 2]
                if following in {"$", "`", '"', "\\"}:
                    parts.append(following)
                elif following != "\n":
                    parts.append(text[pos : pos + 2])
                pos += 2
            elif char == "$":
                pos, _ = self._dollar(pos, parts, substs, in_double=True)
            elif char == "`":
                pos = self._backtick(pos, parts, substs)
            else:
                plain = self.rx.double_plain.match(text, pos)
                parts.append(plain.group())  # type: ignore[union-attr]
                pos = plain.end()  # type: ignore[union-attr]
        raise _Unbalanced

    def _backtick(self, pos: int, parts: list[str], substs: list[str]) -> int:
        """Scan a backtick substitution at ``pos``: the index after it."""
        end = _end_of_quoted(self, pos) + 1
        substs.append(self.text[pos + 1 : end - 1])
        parts.append(self.text[pos:end])
        return end

    def _dollar(
        self, pos: int, parts: list[str], substs: list[str], *, in_double: bool
    ) -> tuple[int, bool]:
        """Scan what a ``$`` at ``pos`` starts: the index after it, and whether it quoted."""
        text = self.text
        following = text[pos + 1 : pos + 2]
        if following == "(":
            end = _close_paren(self, pos + 2)
            if not text.startswith("((", pos + 1):  # $(( arithmetic )) runs nothing
                substs.append(text[pos + 2 : end])
            parts.append(text[pos : end + 1])
            return end + 1, False
        if following == "{":
            end = text.find("}", pos + 2)
            if end < 0:
                raise _Unbalanced
            parts.append(text[pos : end + 1])
            return end + 1, False
        if following == "'" and not in_double:
            body = self.rx.ansi_c.match(text, pos + 2)
            if body is None:
                raise _Unbalanced
            raw = text[pos + 2 : body.end() - 1]
            parts.append(raw.replace("\\'", "'").replace("\\\\", "\\"))
            return body.end(), True
        if following == '"' and not in_double:
            return self._double(pos + 2, parts, substs), True
        parts.append("$")
        return pos + 1, False


def tokens(text: str, left: int) -> tuple[list[Token], int, int]:
    """The tokens of ``text``, the steps left after them, and where the text read ends.

    The last is ``len(text)`` when every token was read, else the offset the
    step budget ran out at (the end of the last token read): what lies past
    it was not looked at. An unbalanced quote or parenthesis falls back to a
    plain whitespace split (which costs a step per word too; past its budget
    the whole text counts as not read, its offsets being unknown).
    """
    lexer = _Lexer(text, left)
    try:
        found = lexer.run()
    except _Unbalanced:
        pass
    else:
        if not lexer.exhausted:
            return found, lexer.left, len(text)
        return found, 0, found[-1].end if found else 0
    left = max(lexer.left, 0)
    words = text.split(maxsplit=left)
    tokens = []
    for word in words[:left]:
        op = word if word in _FALLBACK_OPERATORS else ""
        tokens.append(Token("" if op else word, op, 0, 0, quoted=False, substs=[]))
    return tokens, left - len(tokens), 0 if len(words) > left else len(text)
