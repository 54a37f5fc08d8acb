r"""Which test runs a shell command string starts: :func:`test_invocations`.

A runctx hook sees a shell command that is about to run as one string, e.g.
``cd pkg && VAR=1 uv run pytest -x; echo done``. :func:`test_invocations` reads
it the way a shell would, well enough, and names every test run it starts,
with the directory that simple command runs in. Each simple command goes
through :func:`runctx.runners.resolve_command`: the runner table is the single
source of truth, there is no second list of runner names here.

What is read
------------
- Lists and pipelines: ``&&``, ``||``, ``;``, ``|``, ``|&``, ``&``, newlines;
  ``( ... )`` subshells (a ``cd`` inside does not leak out) and ``{ ...; }``
  groups; reserved words in front of a command (``if``, ``then``, ``do``,
  ``while``, ``!``...); ``for``/``case``/``select`` headers are skipped.
- Words: single quotes, double quotes (with ``\\``-escapes), ``$'...'``,
  backslashes, line continuations; ``VAR=x`` prefixes; redirections and their
  targets (``> out``, ``2>&1``, ``<<<``); comments (``# pytest``); here-document
  bodies are skipped, never read as commands.
- ``cd DIR``, ``pushd DIR``, ``popd``, ``cd -`` and ``cd`` (to ``$HOME``) move
  the cwd of the commands that follow, relative to the current one. A ``cd``
  in a pipeline or in the background runs in a subshell and moves nothing.
  A target that is not plain text (``cd "$X"``, ``cd $(...)``, ``cd *``), or a
  ``cd -``/``popd`` with no known previous directory, makes the cwd *unknown*:
  later invocations keep the last known cwd as the best guess and say
  ``cwd_known=False``; a later ``cd /absolute`` makes it known again.
- ``bash -c '...'``, ``sh -c``, ``eval``, ``npx -c``: the string is read the same
  way, in a subshell, up to :data:`MAX_DEPTH` levels deep. Command
  substitutions ``$(...)``, backticks and ``<(...)`` are read too (a test run
  inside one is still a test run), in a subshell.
- Not expanded: variables (``$PYTEST -x`` is not seen), globs, aliases,
  functions (``f() { pytest; }`` counts as a run although it only defines one).

Bounds
------
Only the first :data:`MAX_COMMAND_CHARS` characters are read, and the lexer
spends at most :data:`MAX_STEPS` steps (one per word piece, quote, operator
or parenthesis) over all nesting levels together; what lies past either bound
is not looked at. That keeps the worst input to a few milliseconds, while a
real command (even a long script) needs a few hundred steps. Here-document
bodies are skipped by one search, not tokenized, so a long heredoc costs
little. An unbalanced quote or parenthesis never raises: that text falls back
to a plain whitespace split.

The cheap pre-filter :func:`is_probably_test_command` is a necessary condition:
whatever :func:`test_invocations` finds, the pre-filter says True for it. It
is a substring search for the table's names, so a command that names no
runner costs microseconds and never compiles the lexer's regexes.
"""

from __future__ import annotations

import os
import re

from runctx.prefilter import MAX_COMMAND_CHARS, is_probably_test_command
from runctx.runners import (
    BUILTIN_PATTERNS,
    RUNNER_ROLE,
    _first_word_worth_a_look,
    _Immutable,
    _is_assignment,
    resolve_command,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from runctx.runners import RunnerPattern

__all__ = [
    "MAX_COMMAND_CHARS",
    "MAX_DEPTH",
    "MAX_STEPS",
    "TestInvocation",
    "is_probably_test_command",
    "test_invocations",
]

MAX_STEPS = 2048
MAX_DEPTH = 4


class TestInvocation(_Immutable):
    """One test run a command string starts.

    ``kind`` and ``role`` as in :class:`runctx.runners.RunnerMatch`; ``argv``
    the simple command's words (assignments, redirections and reserved words
    removed, quotes removed, nothing expanded); ``cwd`` the directory it runs
    in; ``cwd_known`` False when a ``cd`` on the way could not be followed, and
    ``cwd`` is only the last directory known.

    Not an attrs class: this module is imported on the hook's hot path, where
    importing attrs (or dataclasses, or typing) costs 10-35 ms.
    """

    __test__ = False  # not a pytest test class, despite its name

    __slots__ = ("argv", "cwd", "cwd_known", "kind", "role")

    kind: str
    argv: tuple[str, ...]
    cwd: str
    cwd_known: bool
    role: str

    def __init__(
        self,
        kind: str,
        argv: Sequence[str],
        cwd: str,
        *,
        cwd_known: bool = True,
        role: str = RUNNER_ROLE,
    ) -> None:
        """Hold one invocation."""
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "argv", tuple(argv))
        object.__setattr__(self, "cwd", cwd)
        object.__setattr__(self, "cwd_known", cwd_known)
        object.__setattr__(self, "role", role)

    def _key(self) -> tuple[object, ...]:
        return (self.kind, self.argv, self.cwd, self.cwd_known, self.role)

    def __repr__(self) -> str:
        """The constructor call."""
        extra = "" if self.cwd_known else ", cwd_known=False"
        if self.role != RUNNER_ROLE:
            extra += f", role={self.role!r}"
        return f"TestInvocation({self.kind!r}, {self.argv!r}, {self.cwd!r}{extra})"

    def __eq__(self, other: object) -> bool:
        """Equal when every field is."""
        if not isinstance(other, TestInvocation):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        """Hash of every field."""
        return hash(self._key())


# --------------------------------------------------------------------------- tokens


class _Unbalanced(Exception):  # noqa: N818 - internal signal, never escapes this module
    """An unterminated quote, substitution or parenthesis."""


class _Exhausted(Exception):  # noqa: N818 - internal signal, never escapes this module
    """The step budget of one command string ran out."""


class _Token:
    """A word (``op`` empty) or an operator (``op`` set)."""

    __slots__ = ("end", "op", "quoted", "start", "substs", "text")

    def __init__(  # noqa: PLR0913 - one field per argument
        self, text: str, op: str, start: int, end: int, *, quoted: bool, substs: list[str]
    ) -> None:
        self.text = text
        self.op = op
        self.start = start
        self.end = end
        self.quoted = quoted
        self.substs = substs


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
_REDIRECTS = frozenset({"&>>", "<<-", "<<<", "&>", ">>", ">|", "<>", "<&", ">&", "<<", "<", ">"})
_HEREDOCS = frozenset({"<<", "<<-"})
_PIPES = frozenset({"|", "|&"})
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
        self.blanks = re.compile(r"[ \t\r\f\v]+")
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

    __slots__ = ("heredocs", "left", "rx", "text", "tokens")

    def __init__(self, text: str, left: int) -> None:
        self.rx = _regexes()
        self.text = text
        self.left = left  # steps left: every loop turn of the lexer costs one
        self.tokens: list[_Token] = []
        self.heredocs: list[tuple[str, bool]] = []

    def charge(self) -> None:
        """Spend one step; :class:`_Exhausted` when none is left."""
        self.left -= 1
        if self.left < 0:
            raise _Exhausted

    def run(self) -> list[_Token]:
        """Every token of the text, or those before the step budget ran out."""
        try:
            self._run()
        except _Exhausted:
            self.left = 0
        return self.tokens

    def _run(self) -> None:
        text = self.text
        n = len(text)
        pos = 0
        awaiting_delimiter: bool | None = None  # after << or <<-: whether tabs are stripped
        while pos < n:
            self.charge()
            char = text[pos]
            if char in " \t\r\f\v":
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
                    self.heredocs.append((word, awaiting_delimiter))
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
        self.tokens.append(_Token(text, op, start, end, quoted=quoted, substs=substs or []))

    def _operator(self, op: str, pos: int) -> None:
        """Emit ``op``; a redirection swallows the fd number written just before it."""
        tokens = self.tokens
        if op in _REDIRECTS and tokens:
            last = tokens[-1]
            if not last.op and last.end == pos and last.text.isdigit() and not last.quoted:
                tokens.pop()
        self._emit("", op, pos, pos + len(op))

    def _skip_heredocs(self, pos: int) -> int:
        """Skip the bodies of the here-documents opened on the line that just ended."""
        for delimiter, strip_tabs in self.heredocs:
            line_start = r"^\t*" if strip_tabs else "^"
            end = re.compile(line_start + re.escape(delimiter) + "$", re.MULTILINE)
            found = end.search(self.text, pos)
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


def _tokens(text: str, left: int) -> tuple[list[_Token], int]:
    """The tokens of ``text`` and the steps left after them.

    An unbalanced quote or parenthesis falls back to a plain whitespace split
    (which costs a step per word too).
    """
    lexer = _Lexer(text, left)
    try:
        return lexer.run(), lexer.left
    except _Unbalanced:
        pass
    left = max(lexer.left, 0)
    tokens = []
    for word in text.split(maxsplit=left)[:left]:
        op = word if word in _FALLBACK_OPERATORS else ""
        tokens.append(_Token("" if op else word, op, 0, 0, quoted=False, substs=[]))
    return tokens, left - len(tokens)


# --------------------------------------------------------------------------- the parse

_SKIPPED_RESERVED = frozenset({"!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done"})
_SKIPPED_RESERVED |= {"while", "until", "esac"}
_NOT_A_COMMAND = frozenset({"for", "select", "case", "function"})
_DIR_COMMANDS = frozenset({"cd", "pushd", "popd"})
_UNFOLLOWABLE = frozenset("$`*?[{")


class _Dirs:
    """The shell's directory state: cwd, ``$OLDPWD``, the pushd stack, and whether known."""

    __slots__ = ("cwd", "known", "oldpwd", "stack")

    def __init__(self, cwd: str, *, known: bool, oldpwd: str | None, stack: list[str]) -> None:
        self.cwd = cwd
        self.known = known
        self.oldpwd = oldpwd
        self.stack = stack

    def copy(self) -> _Dirs:
        return _Dirs(self.cwd, known=self.known, oldpwd=self.oldpwd, stack=list(self.stack))

    def restore(self, saved: _Dirs) -> None:
        self.cwd, self.known, self.oldpwd, self.stack = (
            saved.cwd,
            saved.known,
            saved.oldpwd,
            saved.stack,
        )

    def resolve(self, target: str) -> tuple[str, bool]:
        """Where ``target`` leads from here, and whether that is known."""
        if _UNFOLLOWABLE.intersection(target):
            return self.cwd, False
        if target.startswith("~"):
            target = os.path.expanduser(target)
            if target.startswith("~"):
                return self.cwd, False
        known = self.known or os.path.isabs(target)
        return os.path.normpath(os.path.join(self.cwd, target)), known

    def move(self, target: str | None) -> None:
        """``cd``: to ``target``, or nowhere known if None."""
        previous = self.cwd
        if target is None:
            self.known = False
        else:
            self.cwd, self.known = self.resolve(target)
        self.oldpwd = previous

    def change(self, name: str, args: Sequence[str]) -> None:
        """Apply ``cd``/``pushd``/``popd`` with ``args``."""
        operands = [a for a in args if a == "-" or not a.startswith("-")]
        target = operands[0] if operands else None
        if name == "popd":
            if target is None and self.stack:
                self.move(self.stack.pop())
            else:
                self.move(None)
        elif name == "pushd":
            if target is None or target[:1] in "+-":
                self.move(None)
            else:
                self.stack.append(self.cwd)
                self.move(target)
        elif target is None:
            self.move("~")
        elif target == "-":
            self.move(self.oldpwd)
        else:
            self.move(target)


class _Parse:
    """Walks the tokens of one command string and collects its test invocations."""

    __slots__ = ("found", "left", "patterns")

    def __init__(self, patterns: Sequence[RunnerPattern]) -> None:
        self.patterns = patterns
        self.found: list[TestInvocation] = []
        self.left = MAX_STEPS

    def text(self, text: str, dirs: _Dirs, depth: int) -> None:
        """Read every simple command of ``text`` with directory state ``dirs``."""
        saved: list[_Dirs] = []
        words: list[_Token] = []
        before = ""
        redirect_target = False
        tokens, self.left = _tokens(text, self.left)
        for token in tokens:
            if not token.op:
                if redirect_target:
                    redirect_target = False
                    self._substitutions(token.substs, dirs, depth)
                else:
                    words.append(token)
                continue
            if token.op in _REDIRECTS:
                redirect_target = True
                continue
            if words:
                isolated = before in _PIPES or token.op in _PIPES or token.op == "&"
                self._simple(words, dirs, depth, isolated=isolated)
                words = []
            if token.op == "(":
                saved.append(dirs.copy())
            elif token.op == ")" and saved:
                dirs.restore(saved.pop())
            before = token.op
        self._simple(words, dirs, depth, isolated=before in _PIPES)

    def _substitutions(self, bodies: Sequence[str], dirs: _Dirs, depth: int) -> None:
        if depth < MAX_DEPTH:
            for body in bodies:
                self.text(body, dirs.copy(), depth + 1)

    def _simple(self, words: list[_Token], dirs: _Dirs, depth: int, *, isolated: bool) -> None:
        """One simple command: substitutions first, then cd, then the runner table."""
        for word in words:
            self._substitutions(word.substs, dirs, depth)
        argv = _command_argv(words)
        if not argv:
            return
        if argv[0] in _DIR_COMMANDS:
            if not isolated:
                dirs.change(argv[0], argv[1:])
            return
        if not _first_word_worth_a_look(argv[0], self.patterns):
            return
        resolution = resolve_command(argv, self.patterns)
        cwd, known = dirs.cwd, dirs.known
        if resolution.chdir is not None:
            cwd, known = dirs.resolve(resolution.chdir)
        match = resolution.match
        if match is not None:
            invocation = TestInvocation(match.kind, argv, cwd, cwd_known=known, role=match.role)
            self.found.append(invocation)
        elif resolution.shell_string is not None and depth < MAX_DEPTH:
            inner = dirs.copy()
            inner.cwd, inner.known = cwd, known
            self.text(resolution.shell_string, inner, depth + 1)


def _command_argv(words: Sequence[_Token]) -> list[str]:
    """The argv of a simple command: leading assignments and reserved words dropped.

    Empty for a ``for``/``case``/``select``/``function`` header, whose words are
    no command.
    """
    start = 0
    while start < len(words) and not words[start].quoted:
        head = words[start].text
        if head in _NOT_A_COMMAND:
            return []
        if head not in _SKIPPED_RESERVED and not _is_assignment(head):
            break
        start += 1
    return [word.text for word in words[start:]]


def test_invocations(
    command: str,
    cwd: str,
    patterns: Sequence[RunnerPattern] = BUILTIN_PATTERNS,  # noqa: PT028 - an API, not a test
) -> tuple[TestInvocation, ...]:
    """The test runs that the shell command string ``command`` starts, in order.

    ``cwd`` is the directory the command starts in. See the module docstring
    for what is read and what is not. Never raises on odd input.
    """
    if not is_probably_test_command(command, patterns):
        return ()
    parse = _Parse(patterns)
    dirs = _Dirs(os.path.normpath(cwd), known=True, oldpwd=None, stack=[])
    parse.text(command[:MAX_COMMAND_CHARS], dirs, 0)
    return tuple(parse.found)


test_invocations.__test__ = False  # type: ignore[attr-defined]  # not a pytest test function
