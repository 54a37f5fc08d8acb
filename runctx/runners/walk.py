"""Reading one argv: see through wrappers and interpreters, then look the program up.

``argv`` is what the kernel shows in ``/proc/PID/cmdline`` split on NUL, or one
simple command of a shell string. The words in front of the real program are
seen through the same way everywhere (:mod:`runctx.runners.wrappers` has the
tables): assignments (``VAR=x``), wrappers (``env``, ``timeout``, ``uv run``,
``npx``...), interpreters and their options (``python -u -X dev``, ``node``,
``ruby``, ``java``, a shell running a script file). A shebang console script
shows up as ``/venv/bin/python3 /venv/bin/pytest``: the script's basename is
the program.

Then the program's basename (or the ``python -m`` module, or the exact ``-c``
code of a worker) is looked up in the table, and the row's argument rules
decide. Rows are tried at every step of the unwrapping, outermost first, so
``hatch test`` is a run while ``hatch run pytest`` is unwrapped to pytest.

Deliberately not a run here: ``sh -c STRING`` and ``eval`` (the string is the
shell parser's: :class:`CommandResolution` hands it over), ``python -c CODE``
other than a worker's exact bootstrap, ``node -e``, ``ruby -e``.

Each step of the walk returns either the index of the next word to read or an
:class:`Outcome`, a small value that says how the walk ended.

The work per argv is bounded, whatever its length: the walk reads only its
first :data:`MAX_ARGV_WORDS` words (after a wrapper splits one, too) and
takes at most :data:`MAX_STEPS` steps. What lies beyond those words is as if
it were not there: it cannot make a process a run (``make`` with ``test`` as
its 100,000th word is no run), and it cannot hide a run the first words show
(``pytest`` followed by 100,000 options and a ``--version`` stays a run: an
over-warning, the visible side of the error).
"""

from __future__ import annotations

import os

import attrs

from runctx.fastpath.prefilter import CALLED_MAINS
from runctx.record_base import Record
from runctx.runners.containers import COMPOSE_PROGRAMS, ENGINES
from runctx.runners.index import globbed_rows, index_for
from runctx.runners.pattern import (
    RUNNER_ROLE,
    TASK_ROLE,
    RunnerMatch,
    joined_directory,
)
from runctx.runners.programs import NODE_VALUES
from runctx.runners.spawned import spawned
from runctx.runners.table import BUILTIN_PATTERNS
from runctx.runners.typed_keys import TYPING_PROGRAMS, typed_lines
from runctx.runners.workspaces import NONE as NO_WORKSPACES
from runctx.runners.workspaces import Selection, selection
from runctx.runners.wrappers import (
    HELP_OR_VERSION,
    JAVA_STOPS,
    JAVA_VALUES,
    JAVAS,
    LUA_STOPS,
    LUA_VALUES,
    LUAS,
    NODE_STOPS,
    NODES,
    PERL_STOPS,
    PERL_VALUES,
    PERLS,
    PHP_STOPS,
    PHP_VALUES,
    PHPS,
    PYTHON_LONG_VALUES,
    PYTHON_PREFIXES,
    PYTHON_SUFFIXES,
    RUBIES,
    RUBY_STOPS,
    RUBY_VALUES,
    SHELL_VALUES,
    SHELLS,
    WRAPPERS,
    Wrapper,
)

CONTAINER_PROGRAMS = ENGINES | COMPOSE_PROGRAMS
"""Container engines and compose tools: the command after them runs in a container."""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from runctx.runners.index import Index
    from runctx.runners.pattern import RunnerPattern

MAX_STEPS = 64
"""Unwrapping steps per argv; past them the argv names no runner."""
MAX_ARGV_WORDS = 256
"""The words of an argv the walk reads; the rest is as if it were not there."""
MAX_CODE_CHARS = 16 * 1024
"""How much of the code given to an interpreter (``python -c``, ``node -e``) is read."""


@attrs.frozen(repr=False, eq=False)
class Outcome(Record):
    """How one step of the walk ended, when it did not just move to another word.

    ``kind`` is one of :data:`STOP` (nothing runs, or nothing we can name),
    :data:`PROGRAM` (the word is no wrapper here: it is the program itself),
    :data:`MODULE` (``text`` is a python module, its arguments start at
    ``rest``), :data:`CODE` (``text`` is a ``python -c`` text, its arguments
    start at ``rest``), :data:`SHELL` (``text`` is a shell string),
    :data:`FOUND` (``match`` is the runner found) or :data:`TASK` (``task``
    is a task runner's task, which is a run only if its text runs a runner).
    """

    kind: str
    text: str = ""
    rest: int = 0
    match: RunnerMatch | None = None
    task: TaskCall | None = None


@attrs.frozen(repr=False, eq=False)
class TaskCall(Record):
    """A task a task runner is asked to run: ``npm run unit``, ``make -f ci.mk lint test``.

    ``kind`` is the task row's kind, ``reader`` how its project file is read
    (:data:`~runctx.runners.pattern.TASK_READERS`), ``names`` the tasks named
    (empty: the default task), ``file`` the project file an option named
    (``""``: the runner's usual file in the directory it works in), ``by_name``
    whether a name says "test run" (``test-unit``), which decides when the
    task's text cannot be read.
    """

    kind: str
    reader: str
    names: tuple[str, ...]
    file: str = ""
    by_name: bool = attrs.field(default=False, kw_only=True)
    workspaces: Selection = attrs.field(default=NO_WORKSPACES, kw_only=True)
    """The other packages of a monorepo the script runs in (``npm run unit -w web``)."""
    arguments: tuple[str, ...] = attrs.field(default=(), kw_only=True)
    """The runner's words after its program, as written (a cargo alias takes them on)."""

    @property
    def match(self) -> RunnerMatch:
        """What the scan calls a process running this task, reading no file.

        A run by its name (role runner), else a task: a run only if a runner
        runs under it.
        """
        return RunnerMatch(self.kind, RUNNER_ROLE if self.by_name else TASK_ROLE)


STOP = "stop"
PROGRAM = "program"
MODULE = "module"
CODE = "code"
SHELL = "shell"
FOUND = "found"
TASK = "task"
_STOPPED = Outcome(STOP)
_PROGRAM = Outcome(PROGRAM)

Step = int | Outcome


def is_assignment(word: str) -> bool:
    """Whether ``word`` is a shell assignment prefix such as ``LANG=C``."""
    name, eq, _ = word.partition("=")
    return bool(eq) and name.isidentifier()


_SUFFIXES = (".exe", ".cmd", ".bat", ".js", ".cjs", ".mjs")


def _unversioned(base: str, index: Index) -> str:
    """``base`` without what does not name the program, if it is unknown as it stands.

    A version pinned to it (``jest@29``, ``gotestsum@latest``; a leading ``@``
    starts an npm scope, not a version), a Windows suffix (``ctest.exe``,
    ``gradlew.bat``) as CI files for several systems write them, or the file
    suffix of a node tool run by its script (``node .../nyc/bin/nyc.js``).
    """
    if base in index.by_program or base in WRAPPERS:
        return base
    at = base.find("@", 1)
    if at > 0:
        base = base[:at]
    stem, dot, suffix = base.rpartition(".")
    if dot and f".{suffix}" in _SUFFIXES and stem in index.first_words:
        base = stem
    return base


def is_python(base: str) -> bool:
    """Whether ``base`` names a python interpreter (``python3.11``, ``pypy3``, ``python3.13t``)."""
    for prefix in PYTHON_PREFIXES:
        if base.startswith(prefix):
            return base[len(prefix) :].strip("0123456789.") in PYTHON_SUFFIXES
    return False


class _Walk:
    """One pass over an argv. Its state: the words (a wrapper may split one) and the cwd."""

    __slots__ = (
        "args",
        "chdir",
        "code_flag",
        "container",
        "index",
        "last_program",
        "task",
        "task_chdir",
    )

    def __init__(self, argv: Sequence[str], index: Index) -> None:
        self.args = argv[:MAX_ARGV_WORDS]
        self.index = index
        self.chdir: str | None = None
        # The index of the last word taken for a program that is neither a runner
        # nor a wrapper (``scripts/test.sh`` in ``uv run bash scripts/test.sh``).
        self.last_program = 0
        # The words from the first container engine on (``docker compose exec web pytest``).
        self.container: tuple[str, ...] = ()
        self.code_flag = False  # the wrapper being read saw a flag like ``entr -s``
        # The first task row that accepted a word on the way (``yarn unit``): the
        # outcome when unwrapping further finds no runner.
        self.task: TaskCall | None = None
        self.task_chdir: str | None = None

    def run(self) -> Outcome:
        """How the argv ends: a runner found, a shell string handed over, a task, or nothing."""
        outcome = self._run()
        if outcome.kind in (FOUND, SHELL) or self.task is None:
            return outcome
        self.chdir = self.task_chdir
        return Outcome(TASK, task=self.task)

    def _run(self) -> Outcome:
        i = 0
        for _ in range(MAX_STEPS):
            step = self._step(i)
            if isinstance(step, int):
                i = step
                continue
            if step.kind == MODULE:
                found = self._first(self.index.by_module.get(step.text), step.text, step.rest)
                if found is not None or step.text not in WRAPPERS:
                    return found or _STOPPED
                # ``python -m coverage run -m pytest``: the module is a wrapper.
                self.args = [step.text, *self.args[step.rest :]]
                i = 0
                continue
            if step.kind == CODE:
                found = self._first(self.index.by_code.get(step.text), step.text, step.rest)
                module = _module_called(step.text) if found is None else None
                if module is not None:  # ``python -c "import pytest; pytest.main(['-q'])"``
                    found = self._first(self.index.by_module.get(module), module, len(self.args))
                return found or _code_started("python", step.text)
            return step
        return _STOPPED

    def _first(
        self, candidates: tuple[RunnerPattern, ...] | None, word: str, start: int
    ) -> Outcome | None:
        """The first runner row that accepts ``word`` with the arguments from ``start``.

        A task row that accepts is remembered (the first one only) and the
        search goes on: a runner row, or a runner further in, wins over it.
        """
        if candidates:
            args = self.args[start:]
            for pattern in candidates:
                read = pattern.read(word, args)
                if read is None:
                    continue
                if pattern.role == TASK_ROLE:
                    if self.task is None:
                        self.task = TaskCall(
                            pattern.kind,
                            pattern.reader,
                            read.names,
                            read.file,
                            by_name=read.by_name,
                            workspaces=selection(pattern.kind, args),
                            arguments=tuple(args),
                        )
                        self.task_chdir = self._moved(read.chdir)
                    continue
                self.chdir = self._moved(read.chdir)
                return Outcome(FOUND, match=pattern.match)
        return None

    def _moved(self, chdir: str | None) -> str | None:
        """The walk's directory after a program's own directory option moves it to ``chdir``."""
        if chdir is None:
            return self.chdir
        return os.path.join(self.chdir or "", chdir)

    def _step(self, i: int) -> Step:
        """Look at the word at ``i``: the next word's index, or an outcome."""
        args = self.args
        if i >= len(args):
            return _STOPPED
        word = args[i]
        if is_assignment(word) or word == "--":  # ``sudo -E PATH="$PATH" -- make``: no program
            return i + 1
        base = _unversioned(word.rpartition("/")[2], self.index)
        found = self._first(self.index.by_program.get(base), word, i + 1)
        if found is not None:
            return found
        handed = _shell_text(base, args[i + 1 :])
        if handed is not None:
            return handed
        wrapper = WRAPPERS.get(base)
        if wrapper is not None:
            return self._wrapped(wrapper, base, i)
        found = self._first(globbed_rows(self.index, base), word, i + 1)
        return found if found is not None else self._interpreter(base, i)

    def _wrapped(self, wrapper: Wrapper, base: str, i: int) -> Step:
        """The wrapper ``base`` at ``i``: the command it runs, or none."""
        if not self.container and base in CONTAINER_PROGRAMS:
            self.container = tuple(self.args[i:])
        step = self._wrapper(wrapper, i)
        if step is _PROGRAM:  # none of its commands: ``bun ./run.mjs`` runs a file as node does
            return self._interpreter(base, i) if base in _INTERPRETER_OPTIONS else _STOPPED
        return step

    def _interpreter(self, base: str, i: int) -> Step:
        self.last_program = i  # neither a runner nor a wrapper: the command wrappers run
        if is_python(base):
            return self._python(i)
        if base in SHELLS:
            return self._shell(i)
        if base in JAVAS:
            return self._java(i)
        grammar = _INTERPRETER_OPTIONS.get(base)
        if grammar is None:
            return _STOPPED
        value, stop, joined = grammar
        lang = _CODE_LANGUAGES.get(base)
        code = _code_given(self.args, i + 1, _CODE_OPTIONS[lang], value) if lang else None
        if lang and code is not None:  # ``node -e "execSync('npm test')"``
            return _code_started(lang, code)
        return _options(self.args, i + 1, value=value, stop=stop, joined=joined)

    def _python(self, i: int) -> Step:
        """Options of a python interpreter at ``i``: the script's index, or an outcome."""
        args = self.args
        n = len(args)
        j = i + 1
        while j < n:
            arg = args[j]
            if arg == "--":
                j += 1
                break
            if len(arg) < 2 or arg[0] != "-":  # noqa: PLR2004 - "-" alone is stdin
                break
            if arg.startswith("--"):
                if arg in HELP_OR_VERSION or arg.startswith("--help"):
                    return _STOPPED
                j += 2 if arg in PYTHON_LONG_VALUES else 1
                continue
            step = self._python_cluster(arg, j)
            if not isinstance(step, int):
                return step
            j = step
        if j >= n or args[j] == "-":
            return _STOPPED
        return j

    def _python_cluster(self, arg: str, j: int) -> Step:
        """One short-option cluster (``-uB``, ``-Xdev``, ``-mpytest``) at ``j``."""
        args = self.args
        for k in range(1, len(arg)):
            flag = arg[k]
            if flag in "mc":
                value = arg[k + 1 :]
                after = j + 1
                if not value:
                    if after >= len(args):
                        return _STOPPED
                    value = args[after]
                    after += 1
                return Outcome(MODULE if flag == "m" else CODE, text=value, rest=after)
            if flag in "XW":
                return j + (2 if k + 1 == len(arg) else 1)
            if flag in "hV?":
                return _STOPPED
        return j + 1

    def _shell(self, i: int) -> Step:
        """Options of a shell at ``i``: the script's index, a shell string, or stop."""
        args = self.args
        n = len(args)
        j = i + 1
        command_string = False
        while j < n:
            arg = args[j]
            if arg in {"--", "-"}:
                j += 1
                break
            if len(arg) < 2 or arg[0] not in "-+":  # noqa: PLR2004 - "-"/"+" alone are words
                break
            if arg in HELP_OR_VERSION:
                return _STOPPED
            if arg in SHELL_VALUES:
                j += 2
                continue
            if arg[0] == "-" and arg[1] != "-":
                if "s" in arg:
                    return _STOPPED
                command_string = command_string or "c" in arg
            j += 1
        if j >= n:
            return _STOPPED
        if command_string:
            return Outcome(SHELL, text=args[j])
        return j

    def _java(self, i: int) -> Step:
        """Options of java at ``i``: the index of the main class or jar, or stop."""
        args = self.args
        n = len(args)
        j = i + 1
        while j < n:
            arg = args[j]
            if arg in {"-jar", "-m", "--module"}:
                return j + 1 if j + 1 < n else _STOPPED
            if not arg.startswith("-"):
                return j
            if arg in JAVA_STOPS:
                return _STOPPED
            j += 2 if arg in JAVA_VALUES else 1
        return _STOPPED

    def _wrapper(self, wrapper: Wrapper, i: int) -> Step:  # noqa: PLR0911 - one outcome per form
        """See through the wrapper at ``i``: the command's index, or an outcome."""
        if wrapper.requires_start:
            return self._after_start(wrapper, i + 1)
        self.code_flag = False
        start, positionals = self._leading_positionals(wrapper, i + 1)
        step = self._wrapper_options(wrapper, start)
        if wrapper.subcommands and isinstance(step, int):
            step = self._subcommand(wrapper, step)
        for _ in range(positionals):
            if not isinstance(step, int):
                break
            if step >= len(self.args):
                return _STOPPED
            step = self._wrapper_options(wrapper, step + 1)
        if not isinstance(step, int):
            return step
        if step >= len(self.args) or self.args[step] in wrapper.stop_commands:
            return _STOPPED
        step = self._past_a_name(wrapper, step)
        if self.code_flag:
            return Outcome(SHELL, text=self.args[step])
        if wrapper.shell_join or wrapper.each_line:
            return self._joined_command(wrapper, step)
        return step

    def _past_a_name(self, wrapper: Wrapper, step: int) -> int:
        """Past a name the tool may take before the command (``appraisal rails-7 rspec``).

        Only for a wrapper of ``name_first``, and only when the word names no
        program, wrapper, shell or interpreter and a command follows it.
        """
        if not wrapper.name_first or step + 1 >= len(self.args):
            return step
        word = self.args[step]
        known = (
            "/" in word
            or _unversioned(word, self.index) in self.index.first_words
            or word.startswith(PYTHON_PREFIXES)
            or is_assignment(word)
        )
        return step if known else step + 1

    def _leading_positionals(self, wrapper: Wrapper, start: int) -> tuple[int, int]:
        """Where the wrapper's options start, and how many positionals come after them.

        A wrapper whose positionals come first (``setarch "$ARCH" -R CMD``)
        has them skipped before its options, unless its first word is one.
        """
        if wrapper.positionals_first and start < len(self.args) and self.args[start][:1] != "-":
            return start + wrapper.positionals, 0
        return start, wrapper.positionals

    def _joined_command(self, wrapper: Wrapper, step: int) -> Outcome:
        """The shell text a joining wrapper runs from ``step`` (``watch pytest``, ``parallel``).

        A wrapper of ``each_line`` runs each word as a command line of its own.

        With argument separators (``parallel pytest ::: a b``) the command is
        the words before the first one; with none before it, each word of a
        command list (``parallel ::: "pytest a" "pytest b"``) is a command line,
        run in a shell of its own: a subshell each, so a ``cd`` in one does
        not move the next.
        """
        words = self.args[step:]
        if wrapper.each_line:  # ``concurrently "npm:lint" "jest"``
            return Outcome(SHELL, text=_each_line(words, wrapper.shorthands))
        if not wrapper.arg_separators:
            return Outcome(SHELL, text=" ".join(words))
        cut = next((k for k, w in enumerate(words) if w in wrapper.arg_separators), len(words))
        if cut:
            return Outcome(SHELL, text=" ".join(words[:cut]))
        if words[0] not in wrapper.command_lists:
            return _STOPPED  # ``parallel :::: cmds.txt``: the command lines are in a file
        lines = []
        for word in words[1:]:
            if word in wrapper.arg_separators:
                break
            lines.append(f"( {word}\n)")
        return Outcome(SHELL, text="\n".join(lines)) if lines else _STOPPED

    def _after_start(self, wrapper: Wrapper, j: int) -> Step:
        """The index after the first of the wrapper's start words (``--args``), or stop."""
        for k in range(j, len(self.args)):
            if self.args[k] in wrapper.start_after:
                return k + 1 if k + 1 < len(self.args) else _STOPPED
            if self.args[k] in wrapper.stop:
                return _STOPPED
        return _STOPPED

    def _subcommand(self, wrapper: Wrapper, j: int) -> Step:
        """Match the wrapper's subcommand words from ``j`` (``uv [opts] tool [opts] run``)."""
        live = wrapper.subcommands
        depth = 0
        while True:
            if j >= len(self.args):
                return _STOPPED
            word = self.args[j]
            live = tuple(seq for seq in live if seq[depth] == word)
            if not live:
                own = wrapper.own_commands
                if depth == 0 and own is not None and word not in own:
                    return j  # ``yarn jest``: the word is a program
                return _PROGRAM
            depth += 1
            step = self._wrapper_options(wrapper, j + 1)
            if not isinstance(step, int) or any(len(seq) == depth for seq in live):
                return step
            j = step

    def _wrapper_options(self, wrapper: Wrapper, j: int) -> Step:  # noqa: C901, PLR0911, PLR0912 - one option grammar, one loop
        """Skip the wrapper's options from ``j``: the next positional's index, or an outcome."""
        while j < len(self.args):
            arg = self.args[j]
            if arg == "--" or arg in wrapper.start_after:
                return j + 1
            if wrapper.assignments and (is_assignment(arg) or _substituted(self.args, j)):
                j += 1
                continue
            if _options_variable(self.args, j):
                j += 1
                continue
            if arg == "-" and wrapper.dash_option:
                j += 1
                continue
            if len(arg) < 2 or arg[0] != "-":  # noqa: PLR2004 - "-" alone is a word
                return j
            name, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
            joined = joined_directory(arg, wrapper.chdir)
            if joined is not None and arg not in wrapper.value:
                self.chdir = os.path.join(self.chdir or "", joined)
                j += 1
                continue
            name = _cluster(name, wrapper)
            if name in wrapper.stop:
                return _STOPPED
            if name in wrapper.code_flags:
                self.code_flag = True
            if name not in wrapper.value:
                j += 1
                continue
            if name in wrapper.pairs and not eq:
                j += 3  # ``--bind SRC DEST``
                continue
            if eq:
                value, j = inline, j + 1
            elif j + 1 < len(self.args):
                value, j = self.args[j + 1], j + 2
            else:
                return _STOPPED
            if name in wrapper.chdir:
                self.chdir = os.path.join(self.chdir or "", value)
            elif name in wrapper.module:
                return Outcome(MODULE, text=value, rest=j)
            elif name in wrapper.code:
                return Outcome(SHELL, text=value)
            elif name in wrapper.split:
                head = self.args[: j - (1 if eq else 2)]
                words = value.split(maxsplit=MAX_ARGV_WORDS)[:MAX_ARGV_WORDS]
                self.args = [*head, *words, *self.args[j:]][:MAX_ARGV_WORDS]
                j -= 1 if eq else 2
        return j


def _shell_text(base: str, args: Sequence[str]) -> Outcome | None:
    """The shell text ``base args`` hands to a shell, when that is what it does.

    ``eval pytest -x``; the lines a terminal multiplexer types into a pane and
    enters (``tmux send-keys 'pytest' Enter``, :mod:`.typed_keys`). None for
    any other command.
    """
    if base == "eval":
        return Outcome(SHELL, text=" ".join(args))
    typed = typed_lines(base, args) if base in TYPING_PROGRAMS else None
    if typed is None:
        return None
    return Outcome(SHELL, text="\n".join(typed)) if typed else _STOPPED


_CODE_LANGUAGES = {**dict.fromkeys((*NODES, "bun"), "javascript"), **dict.fromkeys(RUBIES, "ruby")}
_CODE_OPTIONS = {
    "javascript": frozenset({"-e", "--eval", "-p", "--print"}),
    "ruby": frozenset({"-e"}),
}
"""The options of node and ruby whose value is code to run in place of a script."""


def _each_line(words: Sequence[str], shorthands: Sequence[tuple[str, str]]) -> str:
    """Each word a command line of its own, in a subshell each, its shorthand spelled out."""
    lines = []
    for word in words:
        line = next(
            (long + word[len(short) :] for short, long in shorthands if word.startswith(short)),
            word,
        )
        lines.append(f"( {line}\n)")
    return "\n".join(lines)


def _code_given(
    args: Sequence[str], j: int, options: frozenset[str], values: frozenset[str]
) -> str | None:
    """The code an interpreter's options from ``j`` give it to run (``-e CODE``), or None.

    ``values``: its options that take the next word (``node -r ts-node/register``).
    """
    while j < len(args) and args[j].startswith("-") and args[j] != "--":
        name, eq, inline = args[j].partition("=")
        if name in options:
            if eq:
                return inline
            return args[j + 1] if j + 1 < len(args) else None
        j += 2 if name in values and not eq else 1
    return None


def _code_started(lang: str, code: str) -> Outcome:
    """What ``code`` given to an interpreter starts as processes (:mod:`.spawned`).

    ``python -c "import subprocess; subprocess.run(['pytest'])"``, ``node -e
    "require('child_process').execSync('npm test')"``: the commands, as shell
    text; nothing when it starts none.
    """
    commands = spawned(lang, code[:MAX_CODE_CHARS]).commands
    return Outcome(SHELL, text="\n".join(commands)) if commands else _STOPPED


def _module_called(code: str) -> str | None:
    """The runner module ``python -c`` code runs by calling its entry (``pytest.main()``)."""
    for call, module in CALLED_MAINS:
        if call in code:
            return module
    return None


def _substituted(args: Sequence[str], j: int) -> bool:
    """Whether ``args[j]`` is one command substitution before more words (``env $(cat .env) X``).

    Where a wrapper takes assignments, such a word holds them (the ``.env``
    idiom): the command is after it. A variable alone (``env $CARGO test``)
    may be the program, and is not skipped.
    """
    word = args[j]
    if j + 1 >= len(args):
        return False
    return (word.startswith("$(") and word.endswith(")")) or (
        len(word) > 1 and word.startswith("`") and word.endswith("`")
    )


def _options_variable(args: Sequence[str], j: int) -> bool:
    """Whether ``args[j]`` is a variable alone among options (``coverage run $opts -m pytest``).

    A word made of one unquoted expansion, followed by an option, holds
    options (or nothing) in scripts that build them: the command is after.
    """
    word = args[j]
    if j + 1 >= len(args) or not args[j + 1].startswith("-") or not word.startswith("$"):
        return False
    name = word[2:-1] if word.startswith("${") and word.endswith("}") else word[1:]
    return name.replace("_", "a").isalnum()


def _cluster(name: str, wrapper: Wrapper) -> str:
    """The option a cluster of short flags ends with (``-qec`` is ``-q -e -c``).

    Flags of the cluster that say nothing runs, or that make the command a
    shell string, count as given; the last letter may take a value. A name
    the wrapper knows as it stands is itself.
    """
    if len(name) < 3 or name[1] == "-" or name in wrapper.value or name in wrapper.stop:  # noqa: PLR2004
        return name
    letters = [f"-{letter}" for letter in name[1:]]
    for flag in letters[:-1]:
        if flag in wrapper.stop:
            return flag
    if any(flag in wrapper.code_flags for flag in letters):
        return next(flag for flag in letters if flag in wrapper.code_flags)
    last = letters[-1]
    return last if last in wrapper.value or last in wrapper.stop else name


_INTERPRETER_OPTIONS: dict[str, tuple[frozenset[str], frozenset[str], bool]] = {
    **dict.fromkeys((*NODES, "bun"), (NODE_VALUES, NODE_STOPS, False)),
    **dict.fromkeys(RUBIES, (RUBY_VALUES, RUBY_STOPS, True)),
    **dict.fromkeys(PHPS, (PHP_VALUES, PHP_STOPS, True)),
    **dict.fromkeys(LUAS, (LUA_VALUES, LUA_STOPS, True)),
    **dict.fromkeys(PERLS, (PERL_VALUES, PERL_STOPS, True)),
}
"""The option grammar of interpreters that run a script file: values, stops, joined values."""


def _options(
    args: Sequence[str],
    j: int,
    *,
    value: frozenset[str],
    stop: frozenset[str],
    joined: bool = False,
) -> Step:
    """Skip an interpreter's options from ``j``: the script's index, or stop.

    ``joined``: a short value option may carry its value (``ruby -Ilib``).
    """
    n = len(args)
    while j < n:
        arg = args[j]
        if arg == "--":
            j += 1
            break
        if arg in stop:
            return _STOPPED
        if not arg.startswith("-"):
            break
        if joined and arg[:2] in stop:
            return _STOPPED
        j += 2 if arg in value else 1
    return j if j < n else _STOPPED


def _words(words: Sequence[str]) -> tuple[str, ...]:
    return tuple(words)


@attrs.frozen(repr=False, eq=False)
class CommandResolution(Record):
    """What one argv runs, as far as runctx cares (see :func:`resolve_command`).

    ``match`` is the runner it starts (or None); ``shell_string`` the text a
    shell runs instead (``sh -c TEXT``, ``eval``, ``npx -c``), for the shell
    parser to read; ``task`` the task a task runner is asked to run when no
    runner is named (``npm run unit``), for the shell parser to resolve through
    the project's files; ``chdir`` the directory the command works in, moved
    by a wrapper (``env -C DIR``, ``uv run --directory DIR``) or by the
    program's own option (``make -C DIR``), relative to the cwd the argv
    starts in, or None. ``inner`` is the command the wrappers in front run
    when the walk ends on a program that is neither a runner nor a wrapper
    (``scripts/test.sh`` of ``uv run bash scripts/test.sh``, ``sudo
    ./ci.sh``): the words from that program on, the whole argv when no
    wrapper came first. ``container`` holds the words from the first container
    engine on (``docker compose exec web pytest``) when the command runs in a
    container (:mod:`runctx.runners.containers` says where), else nothing.
    """

    match: RunnerMatch | None
    shell_string: str | None
    chdir: str | None
    task: TaskCall | None = None
    inner: tuple[str, ...] = attrs.field(default=(), kw_only=True, converter=_words)
    container: tuple[str, ...] = attrs.field(default=(), kw_only=True, converter=_words)


def table_or_builtin(patterns: Sequence[RunnerPattern] | None) -> Sequence[RunnerPattern]:
    """``patterns``, or the builtin table when None."""
    return BUILTIN_PATTERNS if patterns is None else patterns


def resolve_command(
    argv: Sequence[str], patterns: Sequence[RunnerPattern] | None = None
) -> CommandResolution:
    """What ``argv`` runs: its runner, or the shell string it hands to a shell.

    The same walk as :func:`~runctx.runners.detect.detect_runner` (without its cheap pre-check and
    without the process-title split); the shell parser uses it for each simple
    command of a command line. ``patterns`` is the runner table (the builtin
    one when None).
    """
    walk = _Walk(argv, index_for(table_or_builtin(patterns)))
    outcome = walk.run()
    shell = outcome.text if outcome.kind == SHELL else None
    ended = outcome.kind not in (FOUND, SHELL, TASK)
    inner = walk.args[walk.last_program :] if ended else ()
    return CommandResolution(
        outcome.match, shell, walk.chdir, outcome.task, inner=inner, container=walk.container
    )


def title_words(argv: Sequence[str]) -> Sequence[str]:
    """``argv``, or the words of the title a process wrote over it.

    A process that sets its title (npm, ``npm exec``, anything that assigns
    ``process.title`` or calls ``setproctitle``) writes one string over its
    argv area and pads the rest with NULs: ``/proc/PID/cmdline`` then reads
    ``npm test`` followed by empty strings, or one string with no NUL at all.
    Such a cmdline is read as a title and split on whitespace, into at most
    :data:`MAX_ARGV_WORDS` words; only that many words of the argv are looked
    at to tell a title. A real argv whose first word holds a space is
    indistinguishable from a title only when it has no other argument (or
    only empty ones), and then the split words name the same program.
    """
    if not argv:
        return argv
    first = argv[0]
    if " " not in first or any(argv[1:MAX_ARGV_WORDS]):
        return argv
    return first.split(maxsplit=MAX_ARGV_WORDS)[:MAX_ARGV_WORDS]


def worth_a_look(first: str, patterns: Sequence[RunnerPattern]) -> bool:
    """The cheap rejection: False if no argv starting with ``first`` can match ``patterns``."""
    base = first.rpartition("/")[2]
    index = index_for(patterns)
    return (
        _unversioned(base, index) in index.first_words
        or base.startswith(PYTHON_PREFIXES)
        or is_assignment(first)
        or bool(index.globbed and globbed_rows(index, base))
    )
