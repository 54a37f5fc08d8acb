"""Watchers: runs that re-run the tests on every change, and never end by themselves.

A person keeps ``watch -n 600 pytest``, ``ptw``, ``jest --watch`` or ``cargo watch
-x test`` open in a terminal pane for hours. Such a run is a ``watch`` run: not
a leftover, not one to wait for (it would be waited for forever), and not one to
stop. :func:`watcher_of` tells one from its command line alone (the argv of the
run's authoritative process, which every scan reads, its first pass included),
and names it in a few words.

A run is a watcher when its command is, through the usual prefixes (``env``,
an interpreter, ``npx``, ``uv run``):

- a program that exists to re-run a command on change (:data:`WATCH_PROGRAMS`:
  ``watch``, ``watchexec``, ``entr``, ``nodemon``, ``ptw``, ``cargo-watch`` ...),
  or one the user names (``watchers = [...]`` in the settings);
- a runner asked to watch: ``pytest -f``/``--looponfail``, ``jest --watch``,
  ``mocha -w``, ``node --test --watch``, ``vitest watch`` (and a bare ``vitest``
  started from a person's terminal, where it watches by default), ``cargo
  watch``, ``dotnet watch``, ``gradle -t``, ``sbt ~test``;
- a task whose name says it watches: ``npm run test:watch``, ``make watch-tests``.
"""

from __future__ import annotations

from collections.abc import Sequence

from runctx.regex import on_first_use
from runctx.report import Run, StartedBy
from runctx.unknown import Unknown

WATCH_PROGRAMS = frozenset(
    {
        *("watch", "watchexec", "entr", "nodemon", "ptw", "pytest-watch", "pytest-watcher"),
        *("cargo-watch", "watchmedo", "when-changed", "reflex", "modd", "onchange"),
        *("chokidar", "guard", "watchman-make", "watchfiles", "watchgod", "gow", "air"),
        *("rerun", "tsc-watch"),
    }
)
"""Programs (or Python modules, ``-`` for ``_``) whose whole job is re-running a command."""

_WATCH_FLAGS = frozenset(
    {"--watch", "--watchAll", "--watch-all", "--looponfail", "--looponfailing", "--continuous"}
)
"""Flags that make a runner watch (each runner's own spelling)."""
_SHORT_WATCH_FLAG = {
    "pytest": "-f",
    "py.test": "-f",
    "mocha": "-w",
    "ava": "-w",
    "gradle": "-t",
    "gradlew": "-t",
}
"""A runner's one-letter watch flag (``-f`` is pytest-xdist's ``--looponfail``)."""
_WATCH_SUBCOMMANDS = {
    "cargo": "watch",
    "dotnet": "watch",
    "vitest": "watch",
    "mix": "test.watch",
}
_TASK_RUNNERS = frozenset(
    {"npm", "pnpm", "yarn", "bun", "make", "gmake", "just", "task", "tox", "nox", "hatch"}
)
_INTERPRETERS = on_first_use(r"(python|pypy)[0-9.]*|node|nodejs")
_PASS_THROUGH = frozenset({"env", "npx", "pnpx", "bunx", "uvx", "exec", "nice", "time"})
_PERSON_KINDS = frozenset({"terminal", "tmux", "screen", "ssh"})
_LABEL_WORDS = 3


def _name(word: str) -> str:
    return word.rpartition("/")[2]


def _program(argv: Sequence[str]) -> tuple[str, int]:
    """The program a command runs, past prefixes and interpreters, and where it is in ``argv``."""
    index = 0
    while index < len(argv):
        word = argv[index]
        name = _name(word)
        if "=" in word and not word.startswith("-") and index > 0:  # env VAR=value
            index += 1
            continue
        if name in _PASS_THROUGH or (name in {"uv", "poetry", "pdm"} and index + 1 < len(argv)):
            index += 2 if name in {"uv", "poetry", "pdm"} and argv[index + 1] == "run" else 1
            continue
        if _INTERPRETERS().fullmatch(name):
            rest = argv[index + 1 :]
            for offset, arg in enumerate(rest):
                if arg == "-m" and offset + 1 < len(rest):
                    return rest[offset + 1].replace("_", "-"), index + offset + 2
                if not arg.startswith("-"):
                    return _name(arg).removesuffix(".js").removesuffix(".py"), index + offset + 1
            return name, index
        return name, index
    return "", 0


def _started_by_person(started: StartedBy | Unknown) -> bool:
    return isinstance(started, StartedBy) and started.kind in _PERSON_KINDS


def watcher_label(
    argv: Sequence[str], configured: Sequence[str] = (), *, from_person: bool = False
) -> str | None:
    """A few words naming the watcher ``argv`` runs (``watch -n 600``, ``jest --watch``), or None.

    ``configured`` are program names the user declared watchers. ``from_person``:
    the run was started from a person's terminal (a bare ``vitest`` watches there).
    """
    program, at = _program(argv)
    if not program:
        return None
    rest = list(argv[at + 1 :])
    if program in WATCH_PROGRAMS or program in configured:
        options = []
        for word in rest[: _LABEL_WORDS - 1]:
            if word == "--" or not (word.startswith("-") or word.isdigit()):
                break
            options.append(word)
        return " ".join([program, *options])
    return _asked_to_watch(program, rest, from_person=from_person)


def _asked_to_watch(program: str, rest: list[str], *, from_person: bool) -> str | None:
    """A runner told to watch by a flag or a subcommand, or a task named for it."""
    flag = next((word for word in rest if word.partition("=")[0] in _WATCH_FLAGS), None)
    if flag is not None and not flag.endswith("=false"):
        return f"{program} {flag}"
    short = _SHORT_WATCH_FLAG.get(program)
    if short is not None and short in rest:
        return f"{program} {short}"
    operands = [word for word in rest if not word.startswith("-")]
    subcommand = _WATCH_SUBCOMMANDS.get(program)
    if subcommand is not None and operands[:1] == [subcommand]:
        return f"{program} {subcommand}"
    return _watching_by_default(program, rest, operands, from_person=from_person)


def _watching_by_default(
    program: str, rest: list[str], operands: list[str], *, from_person: bool
) -> str | None:
    """A bare ``vitest`` on a terminal, ``sbt ~test``, a task whose name says it watches."""
    if program == "vitest" and from_person and not operands and "--run" not in rest:
        return "vitest (watch mode)"
    if program == "sbt" and any(word.startswith("~") for word in rest):
        return "sbt ~"
    if program in _TASK_RUNNERS:
        task = next((word for word in operands if "watch" in word.lower()), None)
        if task is not None:
            return f"{program} {'run ' if 'run' in operands else ''}{task}"
    return None


def watcher_of(run: Run, configured: Sequence[str] = ()) -> str | None:
    """The watcher ``run`` is, in a few words (:func:`watcher_label`), or None for another run."""
    if isinstance(run.argv, Unknown):
        return None
    return watcher_label(run.argv, configured, from_person=_started_by_person(run.started_by))
