"""The commands a project's Python, JavaScript or Ruby script starts: ``scripts/ci.py``.

A project script written in a language other than shell runs test runners
through its language's process calls: ``subprocess.run([sys.executable, "-m",
"pytest"])``, ``os.system("pytest -x")``, ``execSync("npx jest")``,
``spawnSync("npm", ["test"])``, zx's ``$`vitest run```, Ruby's ``system("bundle
exec rspec")`` or backticks, and the steps of Rails' CI (``step "Tests",
"bin/rails test"`` in ``config/ci.rb``); or in its own process, through a runner's
documented entry: ``pytest.main()``, ``unittest.main()``, jest's ``runCLI``,
vitest's ``startVitest``, ``new Mocha()``, ``RSpec::Core::Runner.run``.

:func:`spawned` reads such a script's text and gives each command as a line
of shell text (a list of words joined, each quoted): the command of a call
whose first argument is a literal, a string or a list of strings (an
expression among them stands as a ``$VALUE`` word; ``sys.executable`` is
``python``), and for an entry called in process the command line that runs
that runner (``python -m pytest``). The shell parser reads the lines as a
script's: a test run among them makes the script a run. A call whose command
is built elsewhere (``subprocess.run(cmd)``) gives nothing.

A script that picks what it does from its arguments (argparse's
``add_subparsers``, ``sys.argv[1]``, click or typer commands,
``process.argv[2]``, ``ARGV[0]``) says so (:attr:`Spawned.dispatches`): its
arguments then decide, as a shell script's ``case "$1"`` does.

Only literals are read, never evaluated. The text is scanned once; each
literal is read at most :data:`MAX_LITERAL_CHARS` far, and at most
:data:`MAX_CALLS` calls are read: linear in the text.
"""

from __future__ import annotations

import re
import shlex

import attrs

from runctx.record_base import Record
from runctx.regex import on_first_use

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    _Word = tuple[int, str | None]
    """Where a word of a literal ends, and the word (None: an expression, not a string)."""
    _WordReader = Callable[[str, int, int], _Word | None]

MAX_LITERAL_CHARS = 4096
"""How far one call's first argument is read."""
MAX_CALLS = 256
"""Calls read in one script, at most."""

_SHEBANG_LANGUAGES = (("python", "python"), ("node", "javascript"), ("ruby", "ruby"))
_SUFFIX_LANGUAGES = {
    ".py": "python",
    **dict.fromkeys((".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"), "javascript"),
    ".rb": "ruby",
}

_PYTHON_CALLS = on_first_use(
    r"\b(?:subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)"
    r"|os\.(?:system|popen|execvp|execv|execlp)|(?<![.\w])(?:check_call|check_output|Popen))"
    r"\s*\(\s*"
)
_JS_CALLS = on_first_use(
    r"(?<![\w$])(?:execSync|exec|execFileSync|execFile|spawnSync|spawn|execa|execaSync"
    r"|execaCommand|execaCommandSync|execCommand)\s*\(\s*|(?<![\w$])\$\s*(?=`)"
)
_RUBY_CALLS = on_first_use(r"(?<![\w.])(?:system|exec|sh|spawn)(?:\s*\(\s*|[ \t]+(?=[\"'%\[]))|%x")
_RUBY_BACKTICKS = on_first_use(r"`([^`\n]{1,4096})`")
_RAILS_CI_STEPS = on_first_use(
    r"(?<![\w.])step\s*\(?\s*(?:\"[^\"\n]{0,256}\"|'[^'\n]{0,256}')\s*,\s*"
)
"""A step of Rails' CI (``config/ci.rb``, ActiveSupport::ContinuousIntegration): ``step
"Tests: Rails", "bin/rails test"``, its command after its title."""
_RAILS_CI_MARKS = ("ContinuousIntegration", "CI.run")

_IN_PROCESS: dict[str, tuple[tuple[str, str], ...]] = {
    "python": (
        ("pytest.main(", "python -m pytest"),
        ("pytest.console_main(", "python -m pytest"),
        ("unittest.main(", "python -m unittest"),
        ("TextTestRunner(", "python -m unittest"),
        ("nose.run(", "python -m nose"),
        ("nose.main(", "python -m nose"),
        ("nose2.main(", "python -m nose2"),
    ),
    "javascript": (
        ("runCLI(", "jest"),
        ("jest.run(", "jest"),
        ("startVitest(", "vitest run"),
        ("new Mocha(", "mocha"),
    ),
    "ruby": (
        ("RSpec::Core::Runner.run", "rspec"),
        ("Minitest.run", "ruby -Itest test/all_test.rb"),
    ),
}
"""Documented entries that run a runner inside the script's own process, and the command
line that runs the same runner."""

_DISPATCH_MARKS = {
    "python": ("add_subparsers", "sys.argv[1]", "@click.group", ".command(", "fire.Fire("),
    "javascript": ("process.argv[2]", ".command("),
    "ruby": ("ARGV[0]", "ARGV.first", "ARGV.shift", "case ARGV", "< Thor"),
}


@attrs.frozen(repr=False, eq=False)
class Spawned(Record):
    """What a script's code starts, read from its text."""

    commands: tuple[str, ...]
    """Each command it starts, as a line of shell text."""
    dispatches: bool
    """Whether it picks what it does from its arguments."""


def language(path: str, text: str) -> str | None:
    """The language of the script at ``path`` (``python``, ``javascript``, ``ruby``), or None."""
    first = text[:256].split("\n", 1)[0]
    if first.startswith("#!"):
        interpreter = first.replace("/", " ").split()
        for word in interpreter[-2:]:
            for prefix, name in _SHEBANG_LANGUAGES:
                if word.startswith(prefix):
                    return name
        return None
    dot = path.rfind(".")
    return _SUFFIX_LANGUAGES.get(path[dot:]) if dot > path.rfind("/") else None


def spawned(lang: str, text: str) -> Spawned:
    """The commands the ``lang`` script ``text`` starts, and whether its arguments choose."""
    commands = [line for call, line in _IN_PROCESS[lang] if call in text]
    if lang == "python":
        commands.extend(_calls(_PYTHON_CALLS(), text, _python_literal))
    elif lang == "javascript":
        commands.extend(_calls(_JS_CALLS(), text, _js_literal))
    else:
        commands.extend(_calls(_RUBY_CALLS(), text, _ruby_literal))
        commands.extend(match.group(1) for match in _RUBY_BACKTICKS().finditer(text, 0))
        if any(mark in text for mark in _RAILS_CI_MARKS):
            commands.extend(_calls(_RAILS_CI_STEPS(), text, _ruby_literal))
    dispatches = any(mark in text for mark in _DISPATCH_MARKS[lang])
    return Spawned(tuple(commands[:MAX_CALLS]), dispatches=dispatches)


def _calls(
    pattern: re.Pattern[str], text: str, literal: Callable[[str, int], str | None]
) -> list[str]:
    found: list[str] = []
    for count, match in enumerate(pattern.finditer(text)):
        if count >= MAX_CALLS:
            break
        command = literal(text, match.end())
        if command:
            found.append(command)
    return found


def _python_literal(text: str, at: int) -> str | None:
    """The command of a Python literal at ``at``: a string, or a list or tuple of words."""
    end = min(len(text), at + MAX_LITERAL_CHARS)
    if at < end and text[at] in "[(":
        words = _sequence(text, at + 1, end, "])"[text[at] == "("], _python_word)
        return None if words is None else _joined(words)
    word = _python_word(text, at, end)
    return None if word is None or word[1] is None else word[1]


def _js_literal(text: str, at: int) -> str | None:
    """The command of a JavaScript call's arguments at ``at``: a string, then an array of words."""
    end = min(len(text), at + MAX_LITERAL_CHARS)
    first = _js_word(text, at, end)
    if first is None or first[1] is None:
        return None
    j = _skip_space(text, first[0], end)
    if j < end and text[j] == ",":
        j = _skip_space(text, j + 1, end)
        if j < end and text[j] == "[":
            rest = _sequence(text, j + 1, end, "]", _js_word)
            if rest is not None:
                return _joined([first[1], *rest])
    return first[1]


def _ruby_literal(text: str, at: int) -> str | None:
    """The command of a Ruby call's arguments at ``at``: strings separated by commas, or %x()."""
    end = min(len(text), at + MAX_LITERAL_CHARS)
    if text.startswith("%x", at - 2) and at < end and text[at] in "({[":
        close = ")}]"["({[".index(text[at])]
        stop = text.find(close, at + 1, end)
        return text[at + 1 : stop] if stop > 0 else None
    if at < end and text[at] == "[":
        words = _sequence(text, at + 1, end, "]", _ruby_word)
        return None if words is None else _joined(words)
    words = []
    j = at
    while j < end:
        word = _ruby_word(text, j, end)
        if word is None or word[1] is None:
            break
        words.append(word[1])
        j = _skip_space(text, word[0], end)
        if j >= end or text[j] != ",":
            break
        j = _skip_space(text, j + 1, end)
    if not words:
        return None
    return words[0] if len(words) == 1 else _joined(words)


def _sequence(text: str, j: int, end: int, close: str, read: _WordReader) -> list[str] | None:
    """The words of a list literal from ``j`` up to ``close``; an expression is ``$VALUE``."""
    words: list[str] = []
    while True:
        j = _skip_space(text, j, end)
        if j >= end:
            return None
        if text[j] == close:
            return words
        word = read(text, j, end)
        if word is None:
            return None
        j, value = word
        words.append("$VALUE" if value is None else value)
        j = _skip_space(text, j, end)
        if j < end and text[j] == ",":
            j += 1
        elif j >= end or text[j] != close:
            return None


_PYTHON_PREFIX = on_first_use(r"[rRbBfFuU]{0,2}(?=['\"])")
_NAME = on_first_use(r"[A-Za-z_][\w.]*")


def _python_word(text: str, at: int, end: int) -> _Word | None:
    prefix = _PYTHON_PREFIX().match(text, at, end)
    if prefix is not None:
        flags = prefix.group(0).lower()
        return _quoted(text, prefix.end(), end, raw="r" in flags, formatted="f" in flags)
    name = _NAME().match(text, at, end)
    if name is not None:
        if name.group(0) == "sys.executable":
            return name.end(), "python"
        return _expression_end(text, name.end(), end), None
    if text.startswith("*", at):
        return _expression_end(text, at + 1, end), None
    return None


def _js_word(text: str, at: int, end: int) -> _Word | None:
    if at < end and text[at] in "'\"`":
        return _quoted(text, at, end, raw=False, formatted=text[at] == "`")
    name = _NAME().match(text, at, end)
    if name is not None:
        if name.group(0) == "process.execPath":
            return name.end(), "node"
        return _expression_end(text, name.end(), end), None
    if text.startswith("...", at):
        return _expression_end(text, at + 3, end), None
    return None


def _ruby_word(text: str, at: int, end: int) -> _Word | None:
    if at < end and text[at] in "'\"":
        return _quoted(text, at, end, raw=text[at] == "'", formatted=text[at] == '"')
    name = _NAME().match(text, at, end)
    if name is not None:
        return _expression_end(text, name.end(), end), None
    return None


def _quoted(text: str, at: int, end: int, *, raw: bool, formatted: bool) -> _Word | None:
    """A string literal at ``at`` (its quote there): its end and its text.

    A triple quote is read as one; an interpolation (``{x}``, ``${x}``,
    ``#{x}``) stands as ``$VALUE``.
    """
    quote = text[at]
    if text.startswith(quote * 3, at):
        quote *= 3
    j = at + len(quote)
    out: list[str] = []
    while j < end:
        if text.startswith(quote, j):
            return j + len(quote), "".join(out)
        char = text[j]
        if char == "\\" and not raw and j + 1 < end:
            out.append({"n": "\n", "t": "\t"}.get(text[j + 1], text[j + 1]))
            j += 2
            continue
        if formatted and char in "{$#" and _interpolation(text, j, end):
            close = text.find("}", j, end)
            if close < 0:
                return None
            out.append("$VALUE")
            j = close + 1
            continue
        if char == "\n" and len(quote) == 1 and quote != "`":
            return None
        out.append(char)
        j += 1
    return None


def _interpolation(text: str, j: int, end: int) -> bool:
    """Whether an interpolation starts at ``j``: ``{x}`` (python), ``${x}`` (js), ``#{x}``."""
    if text[j] == "{":
        return not text.startswith("{{", j)
    return j + 1 < end and text[j + 1] == "{"


def _expression_end(text: str, j: int, end: int) -> int:
    """Past an expression word (a call's parentheses, an index) to the next comma or close."""
    depth = 0
    while j < end:
        char = text[j]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                return j
            depth -= 1
        elif char == "," and depth == 0:
            return j
        elif char in "'\"":
            stop = text.find(char, j + 1, end)
            j = stop if stop > 0 else end
        j += 1
    return j


def _skip_space(text: str, j: int, end: int) -> int:
    while j < end and text[j] in " \t\r\n":
        j += 1
    return j


def _joined(words: list[str]) -> str:
    """A list of words as one shell line; ``$VALUE`` words stay expansions."""
    return " ".join(word if word == "$VALUE" else shlex.quote(word) for word in words)
