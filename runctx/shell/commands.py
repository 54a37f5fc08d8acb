r"""Which test runs a shell command string starts: :func:`test_invocations`.

A runctx hook sees a shell command that is about to run as one string, e.g.
``cd pkg && VAR=1 uv run pytest -x; echo done``. :func:`test_invocations` reads
it the way a shell would, well enough, and names every test run it starts,
with the directory that simple command runs in. Each simple command goes
through :func:`runctx.runners.walk.resolve_command`: the runner table is the single
source of truth, there is no second list of runner names here.

What is read
------------
- Lists and pipelines: ``&&``, ``||``, ``;``, ``|``, ``|&``, ``&``, newlines;
  ``( ... )`` subshells (a ``cd`` inside does not leak out) and ``{ ...; }``
  groups; reserved words in front of a command (``if``, ``then``, ``do``,
  ``while``, ``!``...); ``for``/``case``/``select`` headers and ``case``
  arms' patterns (``-test|-t)``) are skipped.
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
- ``source DIR/bin/activate`` (or ``. DIR/bin/activate``) makes the venv
  ``DIR`` the one the commands after it run in (``venv``), until a
  ``deactivate``, the way a ``cd`` moves their cwd.
- ``bash -c '...'``, ``sh -c``, ``eval``, ``npx -c``: the string is read the same
  way, in a subshell, up to :data:`MAX_DEPTH` levels deep. Command
  substitutions ``$(...)``, backticks and ``<(...)`` are read too (a test run
  inside one is still a test run), in a subshell.
- Not expanded: variables, but for a word whose variable the text gave plain
  values (``runner=vendor/bin/pest`` then ``$runner``: each value a program
  word may hold, a few, bounded; an argument, its one value: ``./t $FILTER``)
  or a program word whose name says an interpreter
  (``$PYTHON -m pytest``); an expansion in front of a program runctx knows,
  ``$SUDO make test``, is read as a prefix that runs it. Nor globs, aliases,
  functions (``f() { pytest; }`` counts as a run although it only defines one).

Bounds
------
Only the first :data:`MAX_COMMAND_CHARS` characters are read, and the lexer
spends at most :data:`MAX_STEPS` steps (one per word piece, blank, quote,
operator or parenthesis) over all nesting levels together; what lies past
either bound is not parsed. That keeps the worst input to a few tens of
milliseconds (``make bench``), while a real command (even a long script)
needs a few hundred steps. When the part past a bound names a runner (the
pre-filter's test over its first :data:`REST_SCANNED_CHARS`; a longer part
is not searched), it is given as one invocation that *may* start a run
(``unread``: why), which the hook names in a warning next to a live run of
its checkout, never a silent go-ahead; a task whose lines the budget ran out
in is one that may start a run as well. Here-document bodies are skipped by
one search, not tokenized, so a long heredoc costs little: a file an agent
writes that way, then ``pytest``, is a run. An unbalanced quote or
parenthesis never raises: that text falls back to a plain whitespace split.

The cheap pre-filter :func:`is_probably_test_command` is a necessary condition:
whatever :func:`test_invocations` finds through the runner table, the
pre-filter says True for it; a project script (``scripts/test``, ``./ci.sh``,
read when tasks are) is let through by
:func:`~runctx.fastpath.prefilter.names_a_script`, as cheap. It
is a substring search for the table's names, so a command that names no
runner costs microseconds and never compiles the lexer's regexes.
"""

from __future__ import annotations

import os
import re

import attrs

from runctx.fastpath.prefilter import (
    MAX_COMMAND_CHARS,
    is_probably_test_command,
    names_a_script,
    names_compose_run,
    names_git_hook,
    past_the_window,
)
from runctx.record_base import Record
from runctx.regex import on_first_use
from runctx.runners.containers import placement
from runctx.runners.index import index_for
from runctx.runners.pattern import RUNNER_ROLE, TASK_ROLE
from runctx.runners.table import BUILTIN_PATTERNS
from runctx.runners.tasks import (
    ProjectFiles,
    TaskTexts,
    dispatch,
    environments,
    script_names,
    scripts,
    task_texts,
)
from runctx.runners.walk import is_assignment, resolve_command, worth_a_look
from runctx.runners.wrappers import CODE_FROM_STDIN, SHELLS
from runctx.shell.lexer import PIPES, REDIRECTS, Token, tokens
from runctx.unknown import Reason, Unknown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from runctx.runners.pattern import RunnerPattern
    from runctx.runners.spawned import Spawned
    from runctx.runners.walk import TaskCall

__all__ = [
    "MAX_COMMAND_CHARS",
    "MAX_DEPTH",
    "MAX_STEPS",
    "TestInvocation",
    "commands_run",
    "is_probably_test_command",
    "test_invocations",
]

MAX_STEPS = 4096
MAX_DEPTH = 4
MAX_TASK_DEPTH = 4
"""Tasks read through the project's files, one inside another (``npm test`` -> ``make ci``)."""
STEPS_SPENT = Unknown(
    Reason.NOT_READ, f"the command is longer than runctx reads ({MAX_STEPS} words and operators)"
)
"""Why the part of a command past the lexer's step budget (:data:`MAX_STEPS`) is not known."""
TEXT_SPENT = Unknown(
    Reason.NOT_READ, f"its text is longer than runctx reads ({MAX_STEPS} words and operators)"
)
"""Why what a task or script runs is not known when the step budget runs out in its text."""
TOO_NESTED = Unknown(Reason.NOT_READ, f"shell strings nested more than {MAX_DEPTH} deep")
"""Why a shell string or substitution deeper than :data:`MAX_DEPTH` is not known."""
CHARS_SPENT = Unknown(
    Reason.NOT_READ, f"the command is longer than runctx reads ({MAX_COMMAND_CHARS} characters)"
)
"""Why the part of a command past :data:`MAX_COMMAND_CHARS` is not known."""
NOT_READ_KIND = "not-read"
"""The kind of the part of a command past a bound, which may start a run (``unread``)."""
REST_SCANNED_CHARS = 4096
"""Characters of that part the pre-filter searches for a runner's name: a longer part may
start a run, unsearched (a command cut by a bound is rare, a search of a long one is not cheap)."""
COMMAND_SHOWN_CHARS = 80
"""Characters at the end of that part its words are taken from (to name it in a warning)."""
TOO_DEEP = Unknown(Reason.NOT_READ, f"tasks inside tasks, more than {MAX_TASK_DEPTH} deep")
"""Why what a task or script deeper than :data:`MAX_TASK_DEPTH` runs is not known."""
ENVIRONMENT_RUNNERS = frozenset({"tox", "nox"})
"""Runners that run environments: a run unless the environments named run no test."""
TEST_SCRIPT_RUNNERS = frozenset({"npm-test", "pnpm-test", "yarn-test", "bun-test"})
"""Runners that are runs by a ``test:NAME`` script's name: unless the name says otherwise
and the script's text runs no test (:mod:`runctx.runners.tasks.script_names`)."""
BINARY_RUNNERS = frozenset({"yarn-script", "pnpm-script", "bun-script"})
"""Task runners that run a package's binary when no script has the name (``yarn jest``)."""
SCRIPT_KIND = "project-script"
VARIABLE_KIND = "program-named-by-variable"
"""The kind of ``$VAR test``: a program named by a variable, asked to test."""
"""The kind of a run started by the project's own script (``scripts/test``, ``./ci.sh``)."""
_HEREDOC_OPS = frozenset({"<<", "<<-"})


def _words(words: Sequence[str]) -> tuple[str, ...]:
    return tuple(words)


@attrs.frozen(repr=False, eq=False)
class TestInvocation(Record):
    """One test run a command string starts.

    ``kind`` and ``role`` as in :class:`runctx.runners.RunnerMatch`; ``argv``
    the simple command's words (assignments, redirections and reserved words
    removed, quotes removed, nothing expanded); ``cwd`` the directory it runs
    in; ``cwd_known`` False when a ``cd`` on the way could not be followed, and
    ``cwd`` is only the last directory known; ``venv`` the virtual environment
    a ``source DIR/bin/activate`` before it activated (None: none).

    ``unread`` is why what a task (or the project's script, or the part of the
    command past a bound, of kind :data:`NOT_READ_KIND`) runs could not all be
    read, when none of what was read starts a test run and its name does not
    make it one: a bound kept runctx from telling, and it *may* start one
    (:class:`runctx.runners.tasks.TaskTexts`). Such an invocation never holds
    a command: a live run of its checkout is named in a warning. None: a test
    run, as far as runctx reads.
    """

    __test__ = False  # not a pytest test class, despite its name

    kind: str
    argv: tuple[str, ...] = attrs.field(converter=_words)
    cwd: str
    cwd_known: bool = attrs.field(default=True, kw_only=True)
    role: str = attrs.field(default=RUNNER_ROLE, kw_only=True)
    venv: str | None = attrs.field(default=None, kw_only=True)
    unread: Unknown | None = attrs.field(default=None, kw_only=True)

    @property
    def surely_runs(self) -> bool:
        """Whether this is a test run as far as runctx reads: no task to fold, nothing unread."""
        return self.role != TASK_ROLE and self.unread is None


def _inner_verdict(inner: Sequence[TestInvocation]) -> bool | Unknown:
    """What a task's lines start: a test run (True), none (False), or not known (why)."""
    if any(found.surely_runs for found in inner):
        return True
    return next((found.unread for found in inner if found.unread is not None), False)


# --------------------------------------------------------------------------- the parse

_SKIPPED_RESERVED = frozenset({"!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done"})
_SKIPPED_RESERVED |= {"while", "until", "esac"}
_NOT_A_COMMAND = frozenset({"for", "select", "case", "function"})
_DIR_COMMANDS = frozenset({"cd", "pushd", "popd"})
_VENV_COMMANDS = frozenset({"source", ".", "deactivate"})
_SOURCES = frozenset({"source", "."})
_STATE_COMMANDS = _DIR_COMMANDS | _VENV_COMMANDS
"""What changes the shell's state for the commands after it: its cwd, its active venv."""
_UNFOLLOWABLE = frozenset("$`*?[{\0")
"""What makes a ``cd`` target one no shell could follow to a known place (a NUL: no path)."""


_Loop = tuple[str, tuple[str, ...]]
"""A loop around a command: its variable and the values read for it (none: not known)."""
_LOOP_HEADS = frozenset({"for", "select", "while", "until"})
_LOOP_VALUES_MAX = 8
"""Values of a ``for`` variable a body is read with: past them, a loop's are not read."""


def _loop_of(words: Sequence[Token]) -> _Loop:
    """The loop a header starts: ``for NAME in WORD...`` with literal words, or none known."""
    if len(words) < 3 or words[0].text != "for" or words[2].text != "in":  # noqa: PLR2004
        return "", ()
    name, values = words[1].text, [word.text for word in words[3:]]
    if not name.isidentifier() or any(_UNFOLLOWABLE.intersection(v) for v in values):
        return name, ()
    return name, tuple(values[:_LOOP_VALUES_MAX])


def _with_loop_values(loops: Sequence[_Loop], words: list[Token]) -> list[list[Token]]:
    """``words`` once per value of the innermost loop variable they use, or as they are."""
    for name, values in reversed(loops):
        if not name:
            continue
        uses = (f"${name}", f"${{{name}}}")
        if not any(use in word.text for word in words for use in uses):
            continue
        if not values:
            return [words]
        return [
            [_replaced(word, uses, value) if "$" in word.text else word for word in words]
            for value in values
        ]
    return [words]


def _replaced(word: Token, uses: tuple[str, str], value: str) -> Token:
    """``word`` with the loop variable's uses (``$d``, ``${d}``) replaced by ``value``."""
    text = word.text.replace(uses[1], value)
    text = re.sub(re.escape(uses[0]) + r"(?![A-Za-z0-9_])", lambda _m: value, text)
    return Token(text, "", word.start, word.end, quoted=word.quoted, substs=word.substs)


class _Dirs:
    """The shell's directory state: cwd, ``$OLDPWD``, the pushd stack, and whether known.

    Also the virtual environment a ``source DIR/bin/activate`` activated
    (``venv``), which the commands after it run in, like a ``cd``; and the
    plain values the text assigned to its variables (``variables``: a name's
    values, any of which it may hold, as an ``if`` and its ``else`` assign).
    """

    __slots__ = ("cwd", "known", "oldpwd", "stack", "variables", "venv")

    def __init__(  # noqa: PLR0913 - one per part of the state
        self,
        cwd: str,
        *,
        known: bool,
        oldpwd: str | None,
        stack: list[str],
        venv: str | None = None,
        variables: dict[str, tuple[str, ...]] | None = None,
    ) -> None:
        self.cwd = cwd
        self.known = known
        self.oldpwd = oldpwd
        self.stack = stack
        self.venv = venv
        self.variables = variables if variables is not None else {}

    def copy(self) -> _Dirs:
        return _Dirs(
            self.cwd,
            known=self.known,
            oldpwd=self.oldpwd,
            stack=list(self.stack),
            venv=self.venv,
            variables=dict(self.variables),
        )

    def restore(self, saved: _Dirs) -> None:
        self.cwd, self.known, self.oldpwd, self.stack, self.venv, self.variables = (
            saved.cwd,
            saved.known,
            saved.oldpwd,
            saved.stack,
            saved.venv,
            saved.variables,
        )

    def assign(self, words: Sequence[str]) -> None:
        """Keep the plain values of ``NAME=value`` words (bounded): an expansion, not known."""
        for word in words:
            name, equal, value = word.partition("=")
            plain = value and len(value) <= MAX_VALUE_CHARS and not _EXPANSIONS.intersection(value)
            if not equal or not name.isidentifier() or not plain:
                continue
            if name in self.variables or len(self.variables) < MAX_VARIABLES:
                held = self.variables.get(name, ())
                if value not in held:
                    self.variables[name] = (*held[-(MAX_VALUES - 1) :], value)

    def apply(self, name: str, args: Sequence[str]) -> None:
        """A command of :data:`_STATE_COMMANDS` with ``args``."""
        if name in _DIR_COMMANDS:
            self.change(name, args)
        else:
            self.activate(name, args)

    def activate(self, name: str, args: Sequence[str]) -> None:
        """``source DIR/bin/activate`` (or ``.``): the venv DIR is active from here on.

        An activation that cannot be followed (``source "$V/bin/activate"``)
        leaves no venv known, as ``deactivate`` does; any other file sourced
        leaves it as it was.
        """
        if name == "deactivate":
            self.venv = None
            return
        script = args[0] if args else ""
        bin_dir, file_name = os.path.split(script)
        if file_name != "activate" or os.path.basename(bin_dir) not in ("bin", "Scripts"):
            return
        venv, known = self.resolve(os.path.dirname(bin_dir) or ".")
        self.venv = venv if known else None

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

    __slots__ = (
        "cut",
        "files",
        "found",
        "keep_inner",
        "left",
        "patterns",
        "resolve_tasks",
        "task_depth",
    )

    def __init__(
        self, patterns: Sequence[RunnerPattern], *, resolve_tasks: bool, keep_inner: bool = False
    ) -> None:
        self.patterns = patterns
        self.found: list[TestInvocation] = []
        self.left = MAX_STEPS
        self.resolve_tasks = resolve_tasks
        self.keep_inner = keep_inner
        self.files: ProjectFiles | None = None
        self.task_depth = 0
        self.cut: tuple[str, tuple[str, ...], str, bool, Unknown] | None = None
        """The first text a bound kept from being parsed (its start, its last words), and where:
        its cwd, whether known, and why."""

    def _tokens(self, text: str, dirs: _Dirs) -> list[Token]:
        """The tokens of ``text`` within the steps left; what is past them may run tests."""
        found, self.left, read_to = tokens(text, self.left)
        if read_to < len(text) and not self.task_depth:  # in a task, the task says (TEXT_SPENT)
            self.not_read(text[read_to:], dirs, STEPS_SPENT)
        return found

    def not_read(self, rest: str, dirs: _Dirs, why: Unknown) -> None:
        """Keep the first part of the command a bound kept from being parsed (:meth:`judge_cut`)."""
        if self.cut is None and rest.strip():
            words = tuple(rest[-COMMAND_SHOWN_CHARS:].split()[-6:])  # a command ends with its run
            self.cut = (rest[: REST_SCANNED_CHARS + 1], words, dirs.cwd, dirs.known, why)

    def judge_cut(self) -> None:
        """The part of the command past a bound: it may start a test run when it names one.

        Given as one invocation runctx could not read (``unread``: why), in the
        directory it would run in: never held, a live run of its checkout is
        named in a warning. Only on the paths that judge a command about to
        run (``resolve_tasks``), and asked once per command: later cuts (every
        text after the budget is spent) cost nothing.
        """
        if self.cut is None or not self.resolve_tasks or self.keep_inner:
            return
        rest, words, cwd, known, why = self.cut
        if any(found.surely_runs and found.cwd == cwd for found in self.found):
            return  # a run there already decides
        if len(rest) <= REST_SCANNED_CHARS and not (
            is_probably_test_command(rest, self.patterns) or names_a_script(rest)
        ):
            return
        argv = ("...", *words)
        self.found.append(TestInvocation(NOT_READ_KIND, argv, cwd, cwd_known=known, unread=why))

    def _project_files(self) -> ProjectFiles:
        """The project files this command string reads, each once (made on first use)."""
        if self.files is None:
            self.files = ProjectFiles()
        return self.files

    def text(self, text: str, dirs: _Dirs, depth: int) -> None:
        """Read every simple command of ``text`` with directory state ``dirs``."""
        saved: list[_Dirs] = []
        words: list[Token] = []
        stdin: list[str] = []  # here-documents and here-strings of the command being read
        before = ""
        piped_from: list[str] = []  # the argv of the command that pipes into this one
        redirect = ""
        found_tokens = self._tokens(text, dirs)
        loops: list[_Loop] = []  # the loops the command being read is in, innermost last
        arms = _CaseArms()
        for token in found_tokens:
            if not token.op:
                if redirect:
                    if redirect in _HEREDOC_OPS and token.heredoc:
                        stdin.append(token.heredoc)
                    elif redirect == "<<<":
                        stdin.append(token.text)
                    redirect = ""
                    self._substitutions(token.substs, dirs, depth)
                else:
                    words.append(token)
                continue
            if token.op in REDIRECTS:
                redirect = token.op
                continue
            if arms.in_pattern(words, token.op):  # ``-test|-t)``: an arm's pattern, no command
                words, stdin = [], []
                before = token.op
                continue
            if words:
                isolated = before in PIPES or token.op in PIPES or token.op == "&"
                argv = self._looped(
                    loops, words, dirs, depth, isolated=isolated, stdin=stdin, piped_from=piped_from
                )
                piped_from = argv if token.op in PIPES else []
                words, stdin = [], []
            _subshell("" if arms.closed else token.op, saved, dirs)
            before = token.op
        self._looped(
            loops, words, dirs, depth, isolated=before in PIPES, stdin=stdin, piped_from=piped_from
        )

    def _looped(  # noqa: PLR0913 - what :meth:`_simple` takes, and the loops around it
        self,
        loops: list[_Loop],
        words: list[Token],
        dirs: _Dirs,
        depth: int,
        *,
        isolated: bool,
        stdin: Sequence[str],
        piped_from: Sequence[str],
    ) -> list[str]:
        """One simple command inside ``loops``: once for each value of a loop variable it uses.

        ``for d in core tests; do make -C $d check; done`` runs ``make -C core
        check`` and ``make -C tests check``. A loop header or its ``done``
        updates ``loops``; a ``cd`` to a loop variable stays a place not known.
        Each word read again is a step of the command's bound (:data:`MAX_STEPS`):
        past it, the command is read as written.
        """
        if words and not words[0].quoted:
            head = words[0].text
            if head in _LOOP_HEADS:
                loops.append(_loop_of(words))
            elif head == "done" and loops:
                loops.pop()
        variants = [words]
        if loops and words and words[0].text not in _STATE_COMMANDS:
            variants = _with_loop_values(loops, words)
            extra = (len(variants) - 1) * len(words)
            if extra > self.left:  # the words read again count against the command's steps
                variants = [words]
            else:
                self.left -= extra
        argv: list[str] = []
        for variant in variants:
            argv = self._simple(
                variant, dirs, depth, isolated=isolated, stdin=stdin, piped_from=piped_from
            )
        return argv

    def _state(self, argv: Sequence[str], dirs: _Dirs, *, isolated: bool) -> None:
        """``cd``, ``source``…: the state they change, and what a file sourced runs.

        Not in a pipeline's or the background's subshell, which changes
        nothing here. A file sourced runs its text in this shell, as a script
        run does (``. ci/build.sh --test``).
        """
        if not isolated:
            dirs.apply(argv[0], argv[1:])
        if argv[0] in _SOURCES and argv[1:] and os.path.basename(argv[1]) != "activate":
            self._script(["sh", *argv[1:]], dirs.cwd, known=dirs.known, venv=dirs.venv)

    def _substitutions(self, bodies: Sequence[str], dirs: _Dirs, depth: int) -> None:
        for body in bodies:
            self._nested(body, dirs.copy(), depth)

    def _nested(self, text: str, dirs: _Dirs, depth: int) -> None:
        """A shell string one level down (``bash -c``, ``$( )``); past :data:`MAX_DEPTH`, unread."""
        if depth < MAX_DEPTH:
            self.text(text, dirs, depth + 1)
        else:
            self.not_read(text, dirs, TOO_NESTED)

    def _simple(  # noqa: PLR0913 - the command and what feeds it
        self,
        words: list[Token],
        dirs: _Dirs,
        depth: int,
        *,
        isolated: bool,
        stdin: Sequence[str] = (),
        piped_from: Sequence[str] = (),
    ) -> list[str]:
        """One simple command: substitutions first, then cd, then the runner table; its argv."""
        for word in words:
            self._substitutions(word.substs, dirs, depth)
        if _assigned(words, dirs, isolated=isolated):
            return []
        argv = _command_argv(_with_values(words, dirs.variables))
        if not argv:
            return argv
        if argv[0] in _STATE_COMMANDS:
            self._state(argv, dirs, isolated=isolated)
            return argv
        if _reads_script_from_stdin(argv):
            for text in (*stdin, *_echoed(piped_from)):
                self._nested(text, dirs.copy(), depth)
            return argv
        fed = (*stdin, *_echoed(piped_from))
        if fed and self._wrapped_shell(argv, fed, dirs, depth):
            return argv
        if worth_a_look(argv[0], self.patterns):
            if fed and argv[0].rpartition("/")[2] in CODE_FROM_STDIN:
                # the code it reads counts as the code it is given (``R -e CODE``)
                self._resolved([*argv, *fed], dirs, depth)
            else:
                self._resolved(argv, dirs, depth)
        else:
            self._unlisted(argv, dirs)
        return argv

    def _wrapped_shell(self, argv: list[str], fed: Sequence[str], dirs: _Dirs, depth: int) -> bool:
        """Whether ``argv`` is a shell behind wrappers reading what is ``fed`` to it: read it.

        ``sudo -u pg bash <<EOF``, ``docker exec -i app sh <<EOF``, ``su
        postgres <<EOF`` (``su`` or ``runuser`` without a command, ``sudo -s``
        or ``-i``, start the user's shell): the here-document is what runs,
        in the directory the wrappers give it.
        """
        if not worth_a_look(argv[0], self.patterns):
            return False
        resolution = resolve_command(argv, self.patterns)
        inner = resolution.inner
        if not inner or resolution.match is not None or resolution.shell_string is not None:
            return False
        if not (_reads_script_from_stdin(inner) or _starts_a_shell(inner)):
            return False
        inner_dirs = dirs.copy()
        if resolution.chdir is not None:
            inner_dirs.cwd, inner_dirs.known = dirs.resolve(resolution.chdir)
        if resolution.container and self.resolve_tasks:
            inner_dirs.cwd, inner_dirs.known = self._in_container(
                resolution.container, inner_dirs.cwd, known=inner_dirs.known
            )
        for text in fed:
            self._nested(text, inner_dirs.copy(), depth)
        return True

    def _unlisted(self, argv: list[str], dirs: _Dirs) -> None:
        """A program the table cannot name: the project's script, or ``$VAR test``."""
        if "/" in argv[0]:
            self._script(argv, dirs.cwd, known=dirs.known, venv=dirs.venv)
        elif _variable_program_test(argv):
            invocation = TestInvocation(
                VARIABLE_KIND, argv, dirs.cwd, cwd_known=dirs.known, venv=dirs.venv
            )
            self.found.append(invocation)

    def _resolved(self, argv: list[str], dirs: _Dirs, depth: int) -> None:
        """The simple command ``argv`` through the runner table: a run, a shell string, a task."""
        resolution = resolve_command(argv, self.patterns)
        cwd, known = dirs.cwd, dirs.known
        if resolution.chdir is not None:
            cwd, known = dirs.resolve(resolution.chdir)
        if resolution.container and self.resolve_tasks:
            cwd, known = self._in_container(resolution.container, cwd, known=known)
        match = resolution.match
        venv = dirs.venv
        if match is not None:
            if match.kind in ENVIRONMENT_RUNNERS and self._environments_run_none(
                match.kind, argv, cwd, known=known, venv=venv
            ):
                return
            if match.kind in TEST_SCRIPT_RUNNERS and self._look_alike_runs_none(
                argv, cwd, known=known, venv=venv
            ):
                return
            invocation = TestInvocation(
                match.kind, argv, cwd, cwd_known=known, role=match.role, venv=venv
            )
            self.found.append(invocation)
        elif resolution.shell_string is not None:
            inner = dirs.copy()
            inner.cwd, inner.known = cwd, known
            self._nested(resolution.shell_string, inner, depth)
        elif resolution.task is not None:
            self._task(resolution.task, argv, cwd, known=known, venv=venv)
        elif resolution.inner and _variable_program_test(resolution.inner):
            # behind wrappers (``timeout 600 $CARGO test``), as alone
            self.found.append(TestInvocation(VARIABLE_KIND, argv, cwd, cwd_known=known, venv=venv))
        elif written := _written_out(resolution.inner or argv, dirs.variables):
            inner = dirs.copy()
            inner.cwd, inner.known = cwd, known
            self._each_resolved(written, inner, depth)
        else:
            self._script(argv, cwd, known=known, venv=venv, inner=resolution.inner)

    def _each_resolved(self, commands: Sequence[list[str]], dirs: _Dirs, depth: int) -> None:
        """Each of the commands one command may be, written out, through the runner table."""
        for argv in commands:
            self._resolved(argv, dirs, depth)

    def _in_container(self, words: Sequence[str], cwd: str, *, known: bool) -> tuple[str, bool]:
        """Where a command run in a container works on this machine, and whether it is known.

        The host directory bind-mounted at the container's working directory
        (:mod:`runctx.runners.containers`); when there is none, or it cannot be
        told, the command's directory is kept and marked not known: the run
        is not placed in this checkout, nor anywhere else.
        """
        placed = placement(words, self._project_files(), cwd)
        if placed.directory is None:
            return cwd, False
        return os.path.normpath(os.path.join(cwd, placed.directory)), known

    def _environments_run_none(
        self, kind: str, argv: Sequence[str], cwd: str, *, known: bool, venv: str | None
    ) -> bool:
        """Whether the tox or nox environments ``argv`` names are known to run no test.

        Read only on the hook's path (``resolve_tasks``), through the
        project's files (:mod:`runctx.runners.tasks.environments`); not known
        means False: the command stays a run.
        """
        if not self.resolve_tasks or self.keep_inner or self.task_depth >= MAX_TASK_DEPTH:
            return False

        texts = environments.commands_of(kind, argv, cwd, self._project_files())
        if texts is None:
            return False
        return self._texts_verdict(texts, cwd, known=known, venv=venv) is False

    def _runs_a_binary(self, call: TaskCall, cwd: str) -> bool:
        """Whether ``yarn|pnpm|bun run NAME`` runs the package binary NAME: no script so named.

        Only when the project's package.json is read and has no such script.
        """
        if call.kind not in BINARY_RUNNERS or not call.names or self.files is None:
            return False

        return script_names.has_no_script(call.names[0], cwd, self.files)

    def _look_alike_runs_none(
        self, argv: Sequence[str], cwd: str, *, known: bool, venv: str | None
    ) -> bool:
        """Whether a test-named script whose name says otherwise (``test:server``) runs no test.

        Read only on the hook's path (:mod:`runctx.runners.tasks.script_names`).
        """
        if not self.resolve_tasks or self.keep_inner or self.task_depth >= MAX_TASK_DEPTH:
            return False

        name = script_names.look_alike_script(argv)
        if name is None:
            return False
        text = script_names.script_text(name, cwd, self._project_files())
        if text is None:
            return False
        return self._texts_verdict([text], cwd, known=known, venv=venv) is False

    def _texts_run(self, texts: Sequence[str], cwd: str, *, known: bool, venv: str | None) -> bool:
        """Whether one of the shell ``texts``, run in ``cwd``, surely starts a test run."""
        return self._texts_verdict(texts, cwd, known=known, venv=venv) is True

    def _texts_verdict(
        self, texts: Sequence[str], cwd: str, *, known: bool, venv: str | None
    ) -> bool | Unknown:
        """What the shell ``texts``, run in ``cwd``, start a level down (:func:`_inner_verdict`)."""
        before = len(self.found)
        self.task_depth += 1
        try:
            for text in texts:
                self.text(text, _Dirs(cwd, known=known, oldpwd=None, stack=[], venv=venv), 0)
        finally:
            self.task_depth -= 1
        inner_runs = self.found[before:]
        del self.found[before:]
        verdict = _inner_verdict(inner_runs)
        return TEXT_SPENT if verdict is False and self.left <= 0 else verdict

    def _script(
        self,
        argv: Sequence[str],
        cwd: str,
        *,
        known: bool,
        venv: str | None,
        inner: Sequence[str] = (),
    ) -> None:
        """The project's own script ``argv`` runs: a run when its text starts one.

        Read only on the hook's path (``resolve_tasks``), as a task is; a
        script that cannot be read is a run when its name says so
        (:mod:`runctx.runners.tasks.scripts`). ``inner`` is the command the
        wrappers in front of it run (``uv run bash scripts/test.sh``, ``sudo
        ./ci.sh``): its script when ``argv`` itself names none.
        """
        if not self.resolve_tasks or self.keep_inner:
            return

        written = argv
        program = scripts.project_program(inner or argv)
        if program is not None:  # ``cargo run -p xtask -- test``: its name and its action decide
            name, arguments = program
            named = scripts.named_for_tests(name) or scripts.names_a_test([name])
            if named or scripts.given_a_test_action(arguments):
                self.found.append(
                    TestInvocation(SCRIPT_KIND, written, cwd, cwd_known=known, venv=venv)
                )
            return
        path = scripts.script_path(inner, operand=True) if inner else None
        if path is None:
            path = scripts.script_path(argv)
        else:
            argv = inner  # the script an interpreter or a wrapper runs, past their options
        module = scripts.test_module(inner or argv) if path is None else None
        if module is not None and module not in index_for(self.patterns).by_module:
            # a project's test module (a runner's own, ``-m unittest -h``, its options decided)
            self.found.append(TestInvocation(SCRIPT_KIND, written, cwd, cwd_known=known, venv=venv))
            return
        if path is None or path.rpartition("/")[2] in index_for(self.patterns).by_program:
            return  # a runner of the table that its own options made no run
        if _ASKED_TO_PRINT.intersection(argv):
            return  # ``tools/test.py --help``: it prints, and runs no test
        runs = self._script_verdict(path, argv, cwd, known=known, venv=venv)
        if runs is not False:
            unread = runs if isinstance(runs, Unknown) else None
            self.found.append(
                TestInvocation(SCRIPT_KIND, written, cwd, cwd_known=known, venv=venv, unread=unread)
            )

    def _script_verdict(
        self, path: str, argv: Sequence[str], cwd: str, *, known: bool, venv: str | None
    ) -> bool | Unknown:
        """What the project's script at ``path`` starts: a run, none, or not known (why).

        Not known when no run is found in what was read and a bound kept the
        rest from being read (too large, cut, nested too deep).
        """
        text: str | None = None
        code: Spawned | None = None
        cut: Unknown | None = TOO_DEEP
        if self.task_depth < MAX_TASK_DEPTH:
            files = self._project_files()
            unread_before = len(files.unread)
            text = scripts.script_text(path, cwd, files)
            if text is not None:
                text = scripts.in_own_directory(text, path)
            cut = files.unread[-1] if len(files.unread) > unread_before else None
            if text is None and cut is None:
                code = scripts.code_script(path, cwd, files)
        arguments = list(argv[argv.index(path) + 1 :]) if path in argv else []
        runs: bool | Unknown
        if text is None:
            runs = scripts.named_for_tests(path) or scripts.given_a_test_action(arguments)
            if not runs and code is not None:
                runs = self._code_verdict(code, arguments, cwd, known=known, venv=venv)
        elif arguments and (chosen := dispatch.selected_text(text, arguments)) is not None:
            # its arguments pick the arms of its case blocks: what those and the rest run
            runs = scripts.picks_a_test(arguments) or self._texts_verdict(
                [chosen], cwd, known=known, venv=venv
            )
        elif arguments and scripts.dispatches(text):
            runs = scripts.picks_a_test(arguments)  # its arguments pick what it runs
        else:
            runs = self._texts_verdict([text], cwd, known=known, venv=venv)
            passed = [a for a in arguments if " " in a]
            if runs is not True and passed and scripts.passes_arguments(text):
                runs = self._texts_verdict(passed, cwd, known=known, venv=venv) or runs
            given = scripts.with_arguments(text, arguments) if arguments else None
            if runs is not True and given is not None:
                # what it runs with its arguments in place (``dotnet cake "$@"``)
                runs = self._texts_verdict([given], cwd, known=known, venv=venv) or runs
        return cut if runs is False and cut is not None else runs

    def _code_verdict(
        self, code: Spawned, arguments: Sequence[str], cwd: str, *, known: bool, venv: str | None
    ) -> bool | Unknown:
        """Whether a Python, JavaScript or Ruby script starts a run, by the commands it starts.

        One that picks what it does from its arguments runs what they name.
        """
        if arguments and code.dispatches:
            return scripts.picks_a_test(arguments)
        if not code.commands:
            return False
        return self._texts_verdict(["\n".join(code.commands)], cwd, known=known, venv=venv)

    def _task(
        self, call: TaskCall, argv: Sequence[str], cwd: str, *, known: bool, venv: str | None
    ) -> None:
        """A task runner's task: a run when the text the project gives it runs a runner.

        Without reading files (a live process), it stays a task: the scan folds
        it into a run only if a runner runs under it. With ``keep_inner``, what
        the task's text runs is found as itself (``pip install -e .`` in the
        directory the task runs in), and a task whose text cannot be read is
        nothing: its name says nothing about what it installs.
        """
        if not self.resolve_tasks:
            role = call.match.role
            self.found.append(
                TestInvocation(call.kind, argv, cwd, cwd_known=known, role=role, venv=venv)
            )
            return
        read: TaskTexts | Unknown | None
        if self.task_depth < MAX_TASK_DEPTH:
            read = task_texts(call, cwd, self._project_files())
        else:
            read = TOO_DEEP
        texts = read.texts if isinstance(read, TaskTexts) else None
        if (
            texts is None
            and not self.keep_inner
            and self._runs_a_binary(call, cwd)
            and self._texts_run(call.names[:1], cwd, known=known, venv=venv)
        ):  # ``yarn run jest``: no such script, and the binary it runs is a runner
            self.found.append(TestInvocation(call.kind, argv, cwd, cwd_known=known, venv=venv))
            return
        if texts is None:  # nothing known to run, or not read: its name decides
            self._by_name(call, argv, cwd, read if isinstance(read, Unknown) else None, known, venv)
            return
        assert isinstance(read, TaskTexts)  # noqa: S101 - texts came from it
        before = len(self.found)
        self.task_depth += 1
        try:
            for text in texts:
                inner = _Dirs(cwd, known=known, oldpwd=None, stack=[], venv=venv)
                self.text(text, inner, 0)
        finally:
            self.task_depth -= 1
        if self.keep_inner:
            return
        verdict = _inner_verdict(self.found[before:])
        del self.found[before:]
        if verdict is True:  # a run among the lines read decides
            self.found.append(TestInvocation(call.kind, argv, cwd, cwd_known=known, venv=venv))
            return
        # not all could be read (the file, a task it runs, the steps for its lines):
        # the rest is not known, and the name decides
        unread = read.cut or (verdict if isinstance(verdict, Unknown) else None)
        if unread is None and self.left <= 0:
            unread = TEXT_SPENT
        if unread is not None:
            self._by_name(call, argv, cwd, unread, known, venv)

    def _by_name(  # noqa: PLR0913, PLR0917 - the task's own words, as :meth:`_task` has them
        self,
        call: TaskCall,
        argv: Sequence[str],
        cwd: str,
        unread: Unknown | None,
        known: bool,  # noqa: FBT001 - the cwd's, passed on
        venv: str | None,
    ) -> None:
        """A task whose text is not (all) known: a run by its name, else one that may be.

        ``unread``: why its text could not be read (None: the project gives
        it none, and a name that is no run is nothing).
        """
        if self.keep_inner:
            return
        if call.by_name:
            self.found.append(TestInvocation(call.kind, argv, cwd, cwd_known=known, venv=venv))
        elif unread is not None:
            self.found.append(
                TestInvocation(call.kind, argv, cwd, cwd_known=known, venv=venv, unread=unread)
            )


_EXPANSIONS = frozenset("$`")
"""How a word the shell expands begins: a variable, ``$(...)``, a backquote."""


_DECLARATIONS = frozenset({"export", "local", "readonly", "declare", "typeset"})
"""Builtins whose ``NAME=value`` arguments assign variables as a bare assignment does."""
MAX_VARIABLES = 64
"""Variables of one text whose assigned values are kept, at most."""
MAX_VALUES = 4
"""Values kept of one variable (its last ones): an ``if`` and its ``else`` assign two."""
MAX_VALUE_CHARS = 512
"""The longest value kept: a command, not a file's text."""
MAX_PUT_IN_WORDS = 1024
"""Words of one simple command past which no more values are put in (each adds a few)."""


def _assigned(words: Sequence[Token], dirs: _Dirs, *, isolated: bool) -> bool:
    """Whether a simple command only assigns variables (``X=1``, ``export CMD="pytest -x"``).

    Their plain values are kept in ``dirs`` for a later ``$X``, unless the
    command runs in a subshell of its own (``isolated``), whose variables end
    with it.
    """
    said = [word.text for word in words]
    if said and said[0] in _DECLARATIONS:
        said = said[1:]
    only = bool(said) and all(is_assignment(text) or text in _SKIPPED_RESERVED for text in said)
    if only and not isolated:
        dirs.assign(said)
    return only


def _variable(word: str) -> str:
    """The name a word that is one variable holds (``$NAME``, ``${NAME}``); ``""`` for another."""
    if not word.startswith("$"):
        return ""
    name = word[2:-1] if word.startswith("${") and word.endswith("}") else word[1:]
    return name if name.replace("_", "").isalnum() else ""


def _with_values(words: list[Token], variables: Mapping[str, tuple[str, ...]]) -> list[Token]:
    """``words`` with each ``$NAME`` the text gave one plain value put in (``./t $FILTER``).

    Unquoted, the value's words; quoted, the value as one word. A variable
    given several values (an ``if`` and its ``else``) is left as written.
    """
    if not variables:
        return words
    found: list[Token] = []
    for word in words:
        values = variables.get(_variable(word.text), ())
        if len(values) != 1 or len(found) >= MAX_PUT_IN_WORDS:  # past it: as written
            found.append(word)
            continue
        parts = [values[0]] if word.quoted else values[0].split()
        found.extend(
            Token(part, "", word.start, word.end, quoted=word.quoted, substs=[]) for part in parts
        )
    return found


def _as_assigned(argv: Sequence[str], variables: Mapping[str, tuple[str, ...]]) -> list[list[str]]:
    """``$runner -c phpunit.xml`` with each value the text gave ``runner``; none if it gave none.

    The value's words (``CMD="pytest -x"``), then the words after it. Only a
    program word that is the variable alone (``$NAME``, ``${NAME}``).
    """
    values = variables.get(_variable(argv[0]), ()) if argv else ()
    return [[*value.split(), *argv[1:]] for value in values if value.split()]


def _written_out(argv: Sequence[str], variables: Mapping[str, tuple[str, ...]]) -> list[list[str]]:
    """What a command led by an expansion may run, each as written out; none when not known.

    The values the text gave the variable (:func:`_as_assigned`), else an
    interpreter named by a variable (:func:`_named_interpreter`), else the
    command an expansion is a prefix of (:func:`_after_an_expansion`).
    """
    assigned = _as_assigned(argv, variables)
    if assigned:
        return assigned
    spelled = _named_interpreter(argv)
    behind = spelled if spelled is not None else _after_an_expansion(argv)
    return [behind] if behind is not None else []


def _named_interpreter(argv: Sequence[str]) -> list[str] | None:
    """``$PYTHON -m pytest`` as ``python -m pytest``: an interpreter named by a variable.

    A variable whose name says an interpreter (``$PYTHON``, ``${PY3}``,
    ``$NODE_BIN``) runs as that interpreter does, with the words after it.
    """
    name = _variable(argv[0]) if len(argv) > 1 else ""
    if not name:
        return None
    for part in name.lower().split("_"):
        word = part.rstrip("0123456789.")
        if word in _INTERPRETER_WORDS:
            return [_INTERPRETER_PROGRAMS.get(word, word), *argv[1:]]
    return None


def _after_an_expansion(argv: Sequence[str]) -> list[str] | None:
    """The command after a program named by an expansion (``$SUDO make test``); else None.

    Such a word (``$SUDO``, ``${XVFB}``, ``$(echo xvfb-run -a)``) is most
    often a prefix that runs the command after it, as a wrapper does; the
    command is read as if written alone. ``$CARGO test`` (the expansion is
    the program) is :func:`_variable_program_test`'s.
    """
    if len(argv) < 2 or argv[0][:1] not in _EXPANSIONS or "/" in argv[0]:  # noqa: PLR2004
        return None
    rest = list(argv[1:])
    # a program named, not a file given to it (``$EDITOR tests/test_x.py``)
    program = rest[0][:1] not in {"-", *_EXPANSIONS} and "/" not in rest[0] and "." not in rest[0]
    return rest if program else None


def _variable_program_test(argv: Sequence[str]) -> bool:
    """Whether ``argv`` is a program named by a variable, asked to test (``$CARGO test``).

    The variable is not expanded; a tool whose ``test`` subcommand runs the tests
    is what such lines start (``$BUILD_CMD test``, ``${GO} test ./...``), and
    an interpreter so named runs the test script it is given (``$TCLSH
    tests/test_helper.tcl``, ``$PYTHON tools/run_tests.py``).
    """
    name = _variable(argv[0]) if len(argv) > 1 else ""
    if not name:
        return False
    if argv[1] == "test":
        return True
    if not any(
        part.rstrip("0123456789.") in _INTERPRETER_WORDS for part in name.lower().split("_")
    ):
        return False
    operand = next((arg for arg in argv[1:] if not arg.startswith("-")), "")
    return not operand.startswith(("/", "$")) and scripts.is_test_script(operand)


_INTERPRETER_WORDS = frozenset(
    {"python", "py", "pypy", "tclsh", "tcl", "php", "node", "nodejs", "ruby", "perl", "lua"}
    | {"luajit", "deno", "bun", "julia", "interp", "interpreter"}
)
"""A part of a variable's name (``$PYTHON3``, ``$TCLSH``, ``$PHP_BIN``) saying it holds an
interpreter, which runs the script it is given (``$EDITOR tests/test_x.py`` opens one)."""
_INTERPRETER_PROGRAMS = {"py": "python", "pypy": "pypy3", "nodejs": "node", "tcl": "tclsh"}
"""The program each interpreter word of a variable's name runs as, where it is not the word."""


def _reads_script_from_stdin(argv: Sequence[str]) -> bool:
    """Whether ``argv`` is a shell that reads its commands from stdin (``sh``, ``bash -s``)."""
    if argv[0].rpartition("/")[2] not in SHELLS:
        return False
    for arg in argv[1:]:
        if arg == "--" or arg[:1] not in {"-", "+"} or len(arg) < 2:  # noqa: PLR2004 - "-" alone
            return False
        if arg[0] == "-" and arg[1] != "-":
            if "c" in arg:
                return False
            if "s" in arg:
                return True
    return True


_SHELL_STARTERS = frozenset({"su", "runuser"})
"""Wrappers that start the user's shell when given no command (it reads stdin)."""
_SUDO_SHELL_FLAGS = frozenset({"-s", "-i", "--shell", "--login"})


def _starts_a_shell(words: Sequence[str]) -> bool:
    """Whether a wrapper chain that ran no command starts a shell: ``su pg``, ``sudo -i``."""
    names = [word.rpartition("/")[2] for word in words]
    if any(name in _SHELL_STARTERS for name in names):
        return True
    return "sudo" in names and any(word in _SUDO_SHELL_FLAGS for word in words)


def _echoed(argv: Sequence[str]) -> list[str]:
    """What ``echo WORDS`` or ``printf TEXT`` writes, when it pipes into a shell."""
    if not argv:
        return []
    name = argv[0].rpartition("/")[2]
    if name == "echo":
        words = [a for a in argv[1:] if a not in {"-e", "-n", "-E", "-ne", "-en"}]
        return [" ".join(words).replace("\\n", "\n")]
    if name == "printf" and len(argv) > 1:
        return [argv[1].replace("\\n", "\n")]
    return []


def _subshell(op: str, saved: list[_Dirs], dirs: _Dirs) -> None:
    """A ``(`` keeps the directory state a subshell starts from; its ``)`` puts it back."""
    if op == "(":
        saved.append(dirs.copy())
    elif op == ")" and saved:
        dirs.restore(saved.pop())


_ARM_ENDS = frozenset({";;", ";&", ";;&"})
_ASKED_TO_PRINT = frozenset({"--help", "--version", "--list", "--list-tests", "--collect-only"})
"""What a project's script (or the runner it hands its arguments to) prints, running no test:
its usage, its version, or the tests it would run (``run_tests.py --list``)."""


class _CaseArms:
    """Where the arm patterns of ``case`` blocks are, so that none is read as a command.

    After ``case WORD in`` and after each arm's ``;;`` (``;&``, ``;;&``), the
    words up to ``)`` are a pattern (``-test|-t)``: ``|`` separates its
    alternatives, and the ``)`` closes no subshell); ``esac`` ends the block.
    """

    __slots__ = ("closed", "depth", "pattern")

    def __init__(self) -> None:
        """No block open."""
        self.depth = 0
        self.pattern = False
        self.closed = False
        """Whether the last operator read closed a pattern (``case $x in a)``): no subshell's."""

    def in_pattern(self, words: Sequence[Token], op: str) -> bool:
        """Whether ``words``, ended by the operator ``op``, and ``op`` are (part of) a pattern."""
        head = words[0].text if words and not words[0].quoted else ""
        self.closed = head == "case" and op == ")"
        if head == "esac" and self.depth:
            self.depth -= 1
            self.pattern = False
            return False
        if self.pattern:
            self.pattern = op != ")"
            return True
        if head == "case":
            self.depth += 1
            self.pattern = op != ")"  # ``case $x in a)``: the first pattern ends the header
            return False
        if self.depth and op in _ARM_ENDS:
            self.pattern = True
        return False


def _command_argv(words: Sequence[Token]) -> list[str]:
    """The argv of a simple command: leading assignments and reserved words dropped.

    Empty for a ``for``/``case``/``select``/``function`` header, whose words are
    no command.
    """
    start = 0
    while start < len(words) and not words[start].quoted:
        head = words[start].text
        if head in _NOT_A_COMMAND:
            return []
        if head not in _SKIPPED_RESERVED and not is_assignment(head):
            break
        start += 1
    argv = [_looked_up(word.text) for word in words[start:]]
    if argv:
        argv[0] = _unprefixed(argv[0])
    return argv


_LOOKUP = on_first_use(r"(?:\$\(|`)\s*(?:which|command\s+-v|type\s+-[Pp])\s+([\w.+-]+)\s*(?:\)|`)")


def _looked_up(word: str) -> str:
    """The program a word names by looking it up on the PATH (``$(which pytest)``): its name.

    ``$(which NAME)``, ``$(command -v NAME)``, ``$(type -P NAME)`` and their
    backtick forms expand to NAME's path; any other word is kept as written.
    """
    if word[:1] not in {"$", "`"}:
        return word
    found = _LOOKUP().fullmatch(word)
    return found.group(1) if found else word


def _unprefixed(program: str) -> str:
    """The program a word names after a leading ``${VAR}`` prefix (``${PREFIX}coverage``).

    Scripts name a program through a directory held in a variable
    (``PREFIX="venv/bin/"``); the name written after the prefix is the
    program's, whatever the variable holds. A word that is only a variable,
    or whose rest holds another expansion or a path, is kept as written.
    """
    if not program.startswith("${"):
        return program
    closing = program.find("}")
    rest = program[closing + 1 :]
    if closing < 0 or not rest or not all(c.isalnum() or c in "_.+-" for c in rest):
        return program
    return rest


def test_invocations(
    command: str,
    cwd: str,
    patterns: Sequence[RunnerPattern] | None = None,  # noqa: PT028 - an API, not a test
    *,
    resolve_tasks: bool = True,  # noqa: PT028 - an API, not a test
) -> tuple[TestInvocation, ...]:
    """The test runs that the shell command string ``command`` starts, in order.

    ``cwd`` is the directory the command starts in; ``patterns`` the runner
    table (the builtin one, built only then, when None). See the module docstring
    for what is read and what is not. A task runner's task that is no run by
    its name (``npm run unit``) is read through the project's files in the
    directory it runs in (:mod:`runctx.runners.tasks`) when ``resolve_tasks``;
    otherwise it is given as an invocation of role
    :data:`~runctx.runners.pattern.TASK_ROLE`, and no file is read. Never
    raises on odd input.
    """
    if patterns is None:
        patterns = BUILTIN_PATTERNS
    if not (
        is_probably_test_command(command, patterns)
        or (
            resolve_tasks
            and (names_a_script(command) or names_git_hook(command) or names_compose_run(command))
        )
        or past_the_window(command)
    ):
        return ()
    parse = _Parse(patterns, resolve_tasks=resolve_tasks)
    dirs = _Dirs(os.path.normpath(cwd), known=True, oldpwd=None, stack=[])
    parse.text(command[:MAX_COMMAND_CHARS], dirs, 0)
    if len(command) > MAX_COMMAND_CHARS:
        parse.not_read(command[MAX_COMMAND_CHARS:], dirs, CHARS_SPENT)
    parse.judge_cut()
    return tuple(parse.found)


test_invocations.__test__ = False  # type: ignore[attr-defined]  # not a pytest test function


def commands_run(
    command: str, cwd: str, patterns: Sequence[RunnerPattern]
) -> tuple[TestInvocation, ...]:
    """The commands of ``patterns`` that ``command`` runs, through the tasks it names too.

    Read as :func:`test_invocations` reads it, except for a task runner's task
    (a task row of ``patterns``): its text, read from the project's files in
    the directory the task runs in (:mod:`runctx.runners.tasks`), gives the
    commands it runs, each as itself (``make install`` whose recipe is
    ``pip install -e .`` gives that ``pip install -e .``, in the recipe's
    directory); a task whose text cannot be read gives nothing. The hook
    finds the commands that change an environment this way
    (:func:`runctx.runners.installers.through_task_runners`). Never raises on
    odd input.
    """
    if not is_probably_test_command(command, patterns):
        return ()
    parse = _Parse(patterns, resolve_tasks=True, keep_inner=True)
    dirs = _Dirs(os.path.normpath(cwd), known=True, oldpwd=None, stack=[])
    parse.text(command[:MAX_COMMAND_CHARS], dirs, 0)
    return tuple(parse.found)
