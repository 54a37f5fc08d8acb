"""Knowing a test run when you see one: the runner table and :func:`detect_runner`.

A *runner* is a process whose argv starts a test run. The table of runners is
data (:data:`BUILTIN_PATTERNS`, a tuple of :class:`RunnerPattern`); the user
extends it from ``[tool.runctx]`` in the checkout's ``pyproject.toml``
(:func:`load_runner_config`). The same table, and the same unwrapping, serve
both faces of runctx: the scan of ``/proc`` (:func:`detect_runner`) and the
shell-command parser of the hook (:mod:`runctx.shellcmd`, through
:func:`resolve_command`).

How an argv is read
-------------------
``argv`` is what the kernel shows in ``/proc/PID/cmdline``, split on NUL. The
words in front of the real program are seen through, the same way everywhere:

- assignments (``VAR=x``) and wrappers: ``env`` (``-i``, ``-u``, ``-C DIR``,
  ``-S STRING``), ``timeout``, ``nice``, ``ionice``, ``time``, ``nohup``,
  ``stdbuf``, ``setsid``, ``taskset``, ``chrt``, ``xvfb-run``, ``sudo``,
  ``doas``, ``xargs``, ``busybox``, the shell's ``exec``/``command``/
  ``source``; the environment runners ``uv run``/``uvx``/``uv tool run``,
  ``poetry run``, ``pipenv run``, ``hatch run``, ``pdm run``, ``rye run``,
  ``pipx run``, ``conda run``, ``pixi run``, ``coverage run``, ``direnv
  exec``; the package runners ``npx``, ``npm exec``, ``pnpm exec|dlx``,
  ``yarn exec|dlx`` (and ``yarn BIN``/``pnpm BIN``), ``bunx``, ``bundle
  exec``;
- interpreters and their options: ``python*``/``pypy*`` (``-u -B -O -X opt -W
  arg -E -I -s -S``...), ``node``, ``ruby``, ``java`` (the main class or jar is
  the program), and shells (``bash``, ``sh``...) running a script file. A
  shebang console script shows up as ``/venv/bin/python3 /venv/bin/pytest``:
  the script's basename is the program.

Then the program's basename (or the ``python -m`` module, or the exact ``-c``
code of a worker) is looked up in the table, and the pattern's argument rules
decide. Patterns are tried at every step of the unwrapping, outermost first,
so ``hatch test`` is a run while ``hatch run pytest`` is unwrapped to pytest.

What is deliberately not a run
------------------------------
- ``sh -c STRING`` (and ``eval``): the string belongs to the shell parser; here
  the result is None. The shell's child shows up as its own process anyway.
- ``python -c CODE``, except the exact bootstrap line of a pytest-xdist
  worker; ``node -e``; ``ruby -e``.
- Information requests: ``--version``, ``--help`` and each tool's "list, do not
  run" options (``pytest --collect-only``, ``tox -l``, ``cargo test --no-run``,
  ``make -n``...). They touch nothing a suite touches, so a second
  ``pytest --version`` next to a live run must not be refused.
- ``make`` alone: its default target is unknown here.

The ``[tool.runctx]`` shape
---------------------------
.. code-block:: toml

    [tool.runctx]
    runners = [
      # the basename of the program after unwrapping (a str or a list of str)
      { kind = "e2e", program = "run-e2e" },
      # python -m integ_runner (also under uv run, coverage run -m, ...)
      { kind = "integ", module = "integ_runner" },
      # leading positional words (a subcommand): make verify, make -j4 verify
      { kind = "mk-verify", program = "make", args = ["verify"] },
      # any positional word: mvn clean smoke
      { kind = "smoke", program = "mvn", any_args = ["smoke"] },
    ]

Keys of an entry: ``kind`` (required), ``program`` and/or ``module`` (at least
one), ``args`` (leading positional words), ``any_args`` (any positional word),
``not_with`` (options that make it not a run; default ``--help``,
``--version``), ``value_options`` (options whose value is the next word, so
that it is not taken for a positional), ``role`` (``"runner"``, the default,
or ``"worker"``). In ``args``/``any_args``/``not_with`` a word ending in ``*``
matches by prefix, one starting with ``*`` by suffix, and ``*`` alone matches
any word. User entries come before the builtin ones, so they win.

Cost
----
This module is imported on the hook's hot path and :func:`detect_runner` runs
for every process on the box. It imports only what ``json`` already imports
(no ``typing``, ``dataclasses`` or ``attrs`` at runtime), builds its lookup
index on first use, and rejects most argvs by one set lookup on the basename of
``argv[0]``.
"""

from __future__ import annotations

import os

from runctx.config import runctx_table
from runctx.exceptions import ConfigError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

__all__ = [
    "BUILTIN_PATTERNS",
    "DEFAULT_NOT_WITH",
    "ROLES",
    "RUNNER_KINDS",
    "RUNNER_ROLE",
    "WORKER_ROLE",
    "CommandResolution",
    "RunnerMatch",
    "RunnerPattern",
    "detect_runner",
    "load_runner_config",
    "resolve_command",
]

RUNNER_ROLE = "runner"
WORKER_ROLE = "worker"
ROLES = (RUNNER_ROLE, WORKER_ROLE)

DEFAULT_NOT_WITH = ("--help", "--version")

_CONFIG_KEYS = frozenset(
    {"kind", "role", "program", "module", "args", "any_args", "not_with", "value_options"}
)


def _glob(word: str, pattern: str) -> bool:
    """Whether ``word`` matches ``pattern``: exact, ``pre*``, ``*suf`` or ``*``."""
    if pattern == "*":
        return True
    if pattern.endswith("*"):
        return word.startswith(pattern[:-1])
    if pattern.startswith("*"):
        return word.endswith(pattern[1:])
    return word == pattern


def _strings(value: Iterable[str] | str, field: str) -> tuple[str, ...]:
    """``value`` as a tuple of non-empty strings, or a TypeError/ValueError naming ``field``."""
    if isinstance(value, str):
        items: tuple[str, ...] = (value,)
    elif isinstance(value, tuple) and not value:
        return value
    else:
        items = tuple(value)
    for item in items:
        if not isinstance(item, str):
            msg = f"{field} must hold strings, got {item!r}"
            raise TypeError(msg)
        if not item:
            msg = f"{field} must not hold an empty string"
            raise ValueError(msg)
    return items


class _Immutable:
    """Slotted base whose instances refuse assignment after ``__init__``."""

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        msg = f"{type(self).__name__} is immutable (cannot set {name!r})"
        raise AttributeError(msg)

    def __delattr__(self, name: str) -> None:
        msg = f"{type(self).__name__} is immutable (cannot delete {name!r})"
        raise AttributeError(msg)


class RunnerMatch(_Immutable):
    """What :func:`detect_runner` found: the runner's ``kind`` and its ``role``.

    ``role`` is ``"runner"`` for a process that starts a run, ``"worker"`` for
    one a runner spawns (an xdist or jest worker): a worker folds into its
    runner and is a run of its own only when orphaned.

    Not an attrs class: this module is imported on the hook's hot path, where
    importing attrs (or dataclasses, or typing) costs 10-35 ms; a slotted class
    costs nothing.
    """

    __slots__ = ("kind", "role")

    kind: str
    role: str

    def __init__(self, kind: str, role: str = RUNNER_ROLE) -> None:
        """Hold ``kind`` and ``role``."""
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "role", role)

    def __repr__(self) -> str:
        """``RunnerMatch(kind='pytest', role='runner')``."""
        return f"RunnerMatch(kind={self.kind!r}, role={self.role!r})"

    def __eq__(self, other: object) -> bool:
        """Equal when kind and role are."""
        if not isinstance(other, RunnerMatch):
            return NotImplemented
        return self.kind == other.kind and self.role == other.role

    def __hash__(self) -> int:
        """Hash of kind and role."""
        return hash((self.kind, self.role))


class RunnerPattern(_Immutable):
    """One row of the runner table: which argvs start a run of ``kind``.

    A pattern names its program by at least one of:

    - ``programs``: basenames of the program after unwrapping (``pytest``,
      ``run_tests.py``, ``org.gradle.launcher.GradleMain`` for java);
    - ``modules``: ``python -m`` module names;
    - ``codes``: exact ``python -c`` texts (the xdist worker bootstrap).

    and narrows it by the arguments before ``--``:

    - ``path_suffixes``: the program path must end with one of these;
    - ``subcommand``: the leading positional words (``("test",)`` for
      ``go test``, ``("nextest", "run")``);
    - ``any_arg``: some positional word must match (``make -j4 lint test``);
    - ``not_with``: an option that makes it no run (``--version``);
    - ``not_subcommands``: a first positional that makes it no run (``tox l``);
    - ``value_options``: options that take the next word as their value, so
      that it is not taken for a positional (``make -C dir test``).

    Words in ``subcommand``, ``any_arg`` and ``not_with`` are globs: ``pre*``,
    ``*suf``, ``*``, else exact.

    Not an attrs class: this module is imported on the hook's hot path, where
    importing attrs (or dataclasses, or typing) costs 10-35 ms; a slotted class
    with its own ``__eq__``/``__hash__``/``__repr__`` costs nothing.
    """

    __slots__ = (
        "_key",
        "any_arg",
        "codes",
        "kind",
        "modules",
        "not_subcommands",
        "not_with",
        "path_suffixes",
        "programs",
        "role",
        "subcommand",
        "value_options",
    )

    kind: str
    role: str
    programs: frozenset[str]
    modules: frozenset[str]
    codes: frozenset[str]
    path_suffixes: tuple[str, ...]
    subcommand: tuple[str, ...]
    any_arg: tuple[str, ...]
    not_with: tuple[str, ...]
    not_subcommands: frozenset[str]
    value_options: frozenset[str]
    _key: tuple[object, ...] | None

    def __init__(  # noqa: PLR0913 - a table row is built by keyword, one argument per column
        self,
        kind: str,
        *,
        role: str = RUNNER_ROLE,
        programs: Iterable[str] = (),
        modules: Iterable[str] = (),
        codes: Iterable[str] = (),
        path_suffixes: Iterable[str] = (),
        subcommand: Iterable[str] = (),
        any_arg: Iterable[str] = (),
        not_with: Iterable[str] = DEFAULT_NOT_WITH,
        not_subcommands: Iterable[str] = (),
        value_options: Iterable[str] = (),
    ) -> None:
        """Validate and hold one row; TypeError/ValueError on a malformed one."""
        if not isinstance(kind, str) or not kind:
            msg = f"kind must be a non-empty string, got {kind!r}"
            raise ValueError(msg)
        if role not in ROLES:
            msg = f"role must be one of {ROLES}, got {role!r}"
            raise ValueError(msg)
        names = frozenset(_strings(programs, "programs"))
        mods = frozenset(_strings(modules, "modules"))
        texts = frozenset(_strings(codes, "codes"))
        if not (names or mods or texts):
            msg = f"pattern {kind!r} names no program, module or code"
            raise ValueError(msg)
        hold = object.__setattr__
        hold(self, "kind", kind)
        hold(self, "role", role)
        hold(self, "programs", names)
        hold(self, "modules", mods)
        hold(self, "codes", texts)
        hold(self, "path_suffixes", _strings(path_suffixes, "path_suffixes"))
        hold(self, "subcommand", _strings(subcommand, "subcommand"))
        hold(self, "any_arg", _strings(any_arg, "any_arg"))
        hold(self, "not_with", _strings(not_with, "not_with"))
        hold(self, "not_subcommands", frozenset(_strings(not_subcommands, "not_subcommands")))
        hold(self, "value_options", frozenset(_strings(value_options, "value_options")))
        hold(self, "_key", None)  # computed on first comparison

    def _fields_key(self) -> tuple[object, ...]:
        """Every field, sets sorted: what equality and hashing compare (built once)."""
        key = self._key
        if key is None:
            key = tuple(
                tuple(sorted(value)) if isinstance(value, frozenset) else value
                for value in (getattr(self, name) for name in self.__slots__[1:])
            )
            object.__setattr__(self, "_key", key)
        return key

    def __repr__(self) -> str:
        """The constructor call, with only the fields that differ from the defaults."""
        parts = [repr(self.kind)]
        if self.role != RUNNER_ROLE:
            parts.append(f"role={self.role!r}")
        for name in self.__slots__[1:]:
            if name in {"kind", "role"}:
                continue
            value = getattr(self, name)
            if name == "not_with" and value == DEFAULT_NOT_WITH:
                continue
            if value:
                shown = tuple(sorted(value)) if isinstance(value, frozenset) else value
                parts.append(f"{name}={shown!r}")
        return f"RunnerPattern({', '.join(parts)})"

    def __eq__(self, other: object) -> bool:
        """Equal when every field is."""
        if not isinstance(other, RunnerPattern):
            return NotImplemented
        return self._fields_key() == other._fields_key()

    def __hash__(self) -> int:
        """Hash of every field."""
        return hash(self._fields_key())

    def accepts(self, word: str, args: Sequence[str]) -> bool:
        """Whether this pattern's argument rules accept ``args`` of program ``word``."""
        if self.path_suffixes and not ("/" + word).endswith(self.path_suffixes):
            return False
        if not (self.not_with or self.subcommand or self.any_arg or self.not_subcommands):
            return True
        positionals = self._positionals(args)
        if positionals is None:
            return False
        if positionals and positionals[0] in self.not_subcommands:
            return False
        sub = self.subcommand
        if sub and (
            len(positionals) < len(sub)
            or not all(_glob(w, p) for w, p in zip(positionals, sub, strict=False))
        ):
            return False
        return not self.any_arg or any(_glob(w, p) for w in positionals for p in self.any_arg)

    def _positionals(self, args: Sequence[str]) -> list[str] | None:
        """The positional words before ``--``, or None if a ``not_with`` option is present."""
        positionals: list[str] = []
        skip = False
        for arg in args:
            if skip:
                skip = False
                continue
            if arg == "--":
                break
            if len(arg) > 1 and arg[0] in "-+":
                if any(_glob(arg, p) for p in self.not_with):
                    return None
                skip = arg in self.value_options
                continue
            positionals.append(arg)
        return positionals


def _rows(
    kind: str, subcommands: Iterable[tuple[str, ...]], **common: object
) -> tuple[RunnerPattern, ...]:
    """One pattern of ``kind`` per accepted subcommand, sharing ``common`` columns."""
    return tuple(RunnerPattern(kind, subcommand=sub, **common) for sub in subcommands)  # type: ignore[arg-type]


_H = (*DEFAULT_NOT_WITH, "-h")

_PYTHON_BOOTSTRAPS = (
    # execnet's popen bootstrap line, as pytest-xdist starts each worker.
    "import sys;exec(eval(sys.stdin.readline()))",
    "import sys;import json;exec(json.loads(sys.stdin.readline()))",
)

_RUN_TESTS_SCRIPTS = tuple(
    stem + ext
    for stem in ("run_tests", "run-tests", "runtests", "runTests", "run_test", "run-test")
    for ext in ("", ".py", ".sh", ".bash")
)

_NPM = ("npm", "npm-cli.js")
_PNPM = ("pnpm", "pnpm.cjs", "pnpm.js")
_YARN = ("yarn", "yarn.js", "yarn.cjs")

BUILTIN_PATTERNS: tuple[RunnerPattern, ...] = (
    # --- python ---
    RunnerPattern(
        "pytest",
        programs=("pytest", "py.test", "pytest-3"),
        modules=("pytest", "py.test"),
        not_with=(
            *_H,
            "-V",
            "--collect-only",
            "--co",
            "--fixtures",
            "--funcargs",
            "--fixtures-per-test",
            "--markers",
            "--setup-plan",
        ),
    ),
    RunnerPattern("unittest", modules=("unittest",), not_with=_H),
    RunnerPattern(
        "nose2", programs=("nose2",), modules=("nose2",), not_with=(*_H, "--collect-only")
    ),
    RunnerPattern(
        "nose", programs=("nosetests",), modules=("nose",), not_with=(*_H, "-V", "--collect-only")
    ),
    RunnerPattern(
        "tox",
        programs=("tox",),
        modules=("tox",),
        not_with=(*_H, "-l", "--listenvs", "-a", "--listenvs-all", "--showconfig", "--help-ini"),
        not_subcommands=("list", "l", "config", "c", "quickstart", "q", "depends", "de"),
        value_options=("-e", "-c", "--conf", "--workdir", "--root", "-r", "--recreate-pkg"),
    ),
    RunnerPattern(
        "nox",
        programs=("nox",),
        modules=("nox",),
        not_with=(*_H, "-l", "--list", "--list-sessions", "--install-only"),
    ),
    RunnerPattern(
        "hatch-test",
        programs=("hatch",),
        subcommand=("test",),
        value_options=("-e", "--env", "-p", "--project", "--data-dir", "--cache-dir", "--config"),
        not_with=(*_H, "--show"),
    ),
    RunnerPattern("run-tests-script", programs=_RUN_TESTS_SCRIPTS, not_with=_H),
    RunnerPattern("django-test", programs=("manage.py",), subcommand=("test",), not_with=_H),
    RunnerPattern("pytest-xdist-worker", role=WORKER_ROLE, codes=_PYTHON_BOOTSTRAPS, not_with=()),
    # --- go, rust ---
    RunnerPattern(
        "go-test",
        programs=("go",),
        subcommand=("test",),
        value_options=("-C",),
        not_with=(*_H, "-help", "-c", "-list", "-list=*"),
    ),
    RunnerPattern("go-test", programs=("gotestsum",), not_with=_H),
    *_rows(
        "cargo-test",
        [("test",), ("t",)],
        programs=("cargo",),
        value_options=("-C", "--config", "-Z"),
        not_with=(*_H, "-V", "--no-run"),
    ),
    RunnerPattern(
        "cargo-nextest",
        programs=("cargo", "cargo-nextest"),
        subcommand=("nextest", "run"),
        value_options=("-C", "--config", "-Z"),
        not_with=(*_H, "-V", "--no-run"),
    ),
    # --- javascript ---
    RunnerPattern(
        "jest",
        programs=("jest", "jest.js"),
        not_with=(*_H, "-v", "--listTests", "--showConfig", "--clearCache", "--init"),
    ),
    RunnerPattern(
        "vitest",
        programs=("vitest", "vitest.mjs"),
        not_with=(*_H, "-v"),
        not_subcommands=("list", "init"),
    ),
    RunnerPattern(
        "mocha",
        programs=("mocha", "_mocha", "mocha.js"),
        not_with=(*_H, "-V", "--list-files", "--list-reporters", "--list-interfaces"),
    ),
    RunnerPattern(
        "playwright-test", programs=("playwright",), subcommand=("test",), not_with=(*_H, "--list")
    ),
    *_rows(
        "npm-test",
        [
            ("test",),
            ("t",),
            ("tst",),
            ("run", "test"),
            ("run", "test:*"),
            ("run-script", "test"),
            ("run-script", "test:*"),
            ("install-test",),
            ("it",),
            ("install-ci-test",),
            ("cit",),
        ],
        programs=_NPM,
        value_options=("--prefix", "-w", "--workspace"),
        not_with=_H,
    ),
    *_rows(
        "pnpm-test",
        [("test",), ("t",), ("tst",), ("test:*",), ("run", "test"), ("run", "test:*")],
        programs=_PNPM,
        value_options=("-C", "--dir", "--filter", "-F", "--filter-prod"),
        not_with=_H,
    ),
    *_rows(
        "yarn-test",
        [
            ("test",),
            ("test:*",),
            ("run", "test"),
            ("run", "test:*"),
            ("workspace", "*", "test"),
            ("workspace", "*", "test:*"),
            ("workspace", "*", "run", "test"),
        ],
        programs=_YARN,
        value_options=("--cwd",),
        not_with=_H,
    ),
    *_rows(
        "bun-test",
        [("test",), ("run", "test"), ("run", "test:*")],
        programs=("bun",),
        not_with=_H,
    ),
    RunnerPattern(
        "deno-test", programs=("deno",), subcommand=("test",), not_with=(*_H, "--no-run")
    ),
    RunnerPattern(
        "jest-worker",
        role=WORKER_ROLE,
        programs=("processChild.js", "child.js"),
        path_suffixes=(
            "/jest-worker/build/workers/processChild.js",
            "/jest-worker/build/child.js",
        ),
        not_with=(),
    ),
    RunnerPattern(
        "vitest-worker",
        role=WORKER_ROLE,
        programs=("forks.js", "vmForks.js", "child.js", "process.js"),
        path_suffixes=(
            "/vitest/dist/workers/forks.js",
            "/vitest/dist/workers/vmForks.js",
            "/vitest/dist/child.js",
            # tinypool's child_process entry: vitest 1-3 run their forks pool through it
            "/tinypool/dist/entry/process.js",
            "/tinypool/dist/esm/entry/process.js",
        ),
        not_with=(),
    ),
    # --- build systems ---
    RunnerPattern(
        "make-test",
        programs=("make", "gmake", "bmake"),
        any_arg=("test", "tests", "check", "test-*", "test_*"),
        value_options=(
            "-C",
            "--directory",
            "-f",
            "--file",
            "--makefile",
            "-I",
            "--include-dir",
            "-o",
            "--old-file",
            "--assume-old",
            "-W",
            "--what-if",
            "--new-file",
            "--assume-new",
        ),
        not_with=(*_H, "-v", "-n", "--dry-run", "--just-print", "--recon", "-q", "--question"),
    ),
    RunnerPattern(
        "ninja-test",
        programs=("ninja",),
        any_arg=("test", "check"),
        value_options=("-C", "-f", "-j", "-k", "-l", "-d", "-w"),
        not_with=(*_H, "-n", "-t"),
    ),
    RunnerPattern(
        "meson-test", programs=("meson",), subcommand=("test",), not_with=(*_H, "--list")
    ),
    RunnerPattern(
        "ctest",
        programs=("ctest",),
        not_with=(*_H, "-N", "--show-only", "--show-only=*", "--print-labels"),
    ),
    RunnerPattern(
        "mvn-test",
        programs=(
            "mvn",
            "mvnw",
            "mvnd",
            # what the mvn and mvnw scripts exec: java with these main classes
            "org.codehaus.plexus.classworlds.launcher.Launcher",
            "org.apache.maven.wrapper.MavenWrapperMain",
        ),
        # every lifecycle phase from test on runs the tests
        any_arg=(
            "test",
            "integration-test",
            "verify",
            "package",
            "install",
            "deploy",
            "*:test",
            "*:integration-test",
        ),
        value_options=(
            "-f",
            "--file",
            "-s",
            "--settings",
            "-gs",
            "--global-settings",
            "-t",
            "--toolchains",
            "-pl",
            "--projects",
            "-rf",
            "--resume-from",
            "-P",
            "--activate-profiles",
            "-T",
            "--threads",
            "-l",
            "--log-file",
            "-D",
            "--define",
            "-b",
            "--builder",
        ),
        not_with=(
            *_H,
            "-v",
            "-DskipTests",
            "-DskipTests=true",
            "-Dmaven.test.skip",
            "-Dmaven.test.skip=true",
        ),
    ),
    RunnerPattern(
        "gradle-test",
        programs=(
            "gradle",
            "gradlew",
            # what the gradle and gradlew scripts exec: java with these main classes
            "org.gradle.wrapper.GradleWrapperMain",
            "org.gradle.launcher.GradleMain",
        ),
        any_arg=(
            "test",
            "check",
            "build",
            "integrationTest",
            "*:test",
            "*:check",
            "*:build",
            "*:integrationTest",
            "*UnitTest",
            "connectedCheck",
        ),
        value_options=(
            "-x",
            "--exclude-task",
            "-p",
            "--project-dir",
            "-b",
            "--build-file",
            "-c",
            "--settings-file",
            "-g",
            "--gradle-user-home",
            "-I",
            "--init-script",
            "-D",
            "-P",
            "--console",
            "--warning-mode",
        ),
        not_with=(*_H, "-?", "-v", "--dry-run", "-m"),
    ),
    *_rows(
        "bazel-test",
        [("test",), ("coverage",)],
        programs=("bazel", "bazelisk"),
        not_with=_H,
    ),
    # --- ruby, .NET ---
    RunnerPattern("rspec", programs=("rspec",), not_with=(*_H, "-v", "--dry-run", "--init")),
    RunnerPattern(
        "rake-test",
        programs=("rake",),
        any_arg=("test", "spec", "test:*", "spec:*"),
        value_options=("-f", "--rakefile", "-C", "--directory", "-I", "--libdir", "-r", "-R", "-j"),
        not_with=(*_H, "-V", "-T", "--tasks", "-n", "--dry-run", "-P", "--prereqs", "-W", "-D"),
    ),
    *_rows("rails-test", [("test",), ("test:*",)], programs=("rails",), not_with=_H),
    *_rows(
        "dotnet-test",
        [("test",), ("vstest",)],
        programs=("dotnet",),
        not_with=(*_H, "-?", "--list-tests", "-t"),
    ),
)

RUNNER_KINDS: tuple[str, ...] = tuple(dict.fromkeys(p.kind for p in BUILTIN_PATTERNS))


# --------------------------------------------------------------------------- wrappers


class _Wrapper:
    """How to see through one wrapper command to the command it runs (internal data)."""

    __slots__ = (
        "assignments",
        "chdir",
        "code",
        "module",
        "own_commands",
        "positionals",
        "split",
        "stop",
        "subcommands",
        "value",
    )

    def __init__(  # noqa: PLR0913 - a table row is built by keyword, one argument per column
        self,
        *,
        value: Iterable[str] = (),
        stop: Iterable[str] = (),
        chdir: Iterable[str] = (),
        code: Iterable[str] = (),
        module: Iterable[str] = (),
        split: Iterable[str] = (),
        subcommands: Iterable[tuple[str, ...]] = (),
        positionals: int = 0,
        own_commands: Iterable[str] | None = None,
        assignments: bool = False,
    ) -> None:
        # value: options taking the next word; stop: options meaning "no command
        # runs"; chdir: options whose value is the command's new cwd; code: options
        # whose value is a shell string; module: options whose value is a python
        # module to run; split: options whose value is split into more words (env
        # -S); subcommands: word sequences that must follow (``uv run``);
        # positionals: words to skip before the command (``timeout DURATION``);
        # own_commands: the tool's own subcommands, for tools that also run any
        # other word as a program (``yarn jest``); assignments: VAR=x words allowed.
        self.chdir = frozenset(chdir)
        self.code = frozenset(code)
        self.module = frozenset(module)
        self.split = frozenset(split)
        self.value = frozenset(value) | self.chdir | self.code | self.module | self.split
        self.stop = frozenset(stop)
        self.subcommands = tuple(subcommands)
        self.positionals = positionals
        self.own_commands = None if own_commands is None else frozenset(own_commands)
        self.assignments = assignments


_UV_VALUES = (
    "--with",
    "-w",
    "--with-editable",
    "--with-requirements",
    "--python",
    "-p",
    "--extra",
    "--group",
    "--only-group",
    "--no-group",
    "--package",
    "--project",
    "--env-file",
    "--index",
    "--default-index",
    "--index-url",
    "-i",
    "--extra-index-url",
    "--find-links",
    "-f",
    "--config-file",
    "--cache-dir",
    "--from",
    "--color",
    "--exclude-newer",
    "--index-strategy",
    "--keyring-provider",
    "--link-mode",
    "--resolution",
    "--prerelease",
    "--python-preference",
    "--python-platform",
    "--config-setting",
    "-C",
    "--refresh-package",
    "--reinstall-package",
    "--upgrade-package",
    "-P",
    "--allow-insecure-host",
)

_YARN_OWN = (
    "add",
    "audit",
    "autoclean",
    "bin",
    "cache",
    "check",
    "config",
    "constraints",
    "create",
    "dedupe",
    "dlx",
    "exec",
    "explain",
    "generate-lock-entry",
    "global",
    "help",
    "import",
    "info",
    "init",
    "install",
    "licenses",
    "link",
    "list",
    "login",
    "logout",
    "node",
    "npm",
    "outdated",
    "owner",
    "pack",
    "patch",
    "patch-commit",
    "plugin",
    "policies",
    "publish",
    "rebuild",
    "remove",
    "run",
    "search",
    "set",
    "stage",
    "tag",
    "team",
    "test",
    "unlink",
    "unplug",
    "up",
    "upgrade",
    "upgrade-interactive",
    "version",
    "versions",
    "why",
    "workspace",
    "workspaces",
)

_PNPM_OWN = (
    "add",
    "i",
    "install",
    "update",
    "up",
    "upgrade",
    "remove",
    "rm",
    "uninstall",
    "un",
    "link",
    "ln",
    "unlink",
    "import",
    "rebuild",
    "rb",
    "prune",
    "fetch",
    "patch",
    "patch-commit",
    "audit",
    "list",
    "ls",
    "ll",
    "outdated",
    "why",
    "licenses",
    "run",
    "test",
    "t",
    "tst",
    "exec",
    "dlx",
    "create",
    "start",
    "publish",
    "pack",
    "recursive",
    "server",
    "store",
    "root",
    "bin",
    "setup",
    "init",
    "doctor",
    "config",
    "c",
    "env",
    "deploy",
    "help",
    "install-test",
    "it",
    "cache",
    "self-update",
    "approve-builds",
)

_SUDO_VALUES = (
    "-u",
    "--user",
    "-g",
    "--group",
    "-C",
    "--close-from",
    "-h",
    "--host",
    "-p",
    "--prompt",
    "-r",
    "--role",
    "-t",
    "--type",
    "-T",
    "-U",
)

_WRAPPERS: dict[str, _Wrapper] = {
    "env": _Wrapper(
        value=("-u", "--unset", "-P"),
        chdir=("-C", "--chdir"),
        split=("-S", "--split-string"),
        assignments=True,
    ),
    "timeout": _Wrapper(value=("-k", "--kill-after", "-s", "--signal"), positionals=1),
    "nice": _Wrapper(value=("-n", "--adjustment")),
    "ionice": _Wrapper(
        value=("-c", "--class", "-n", "--classdata"),
        stop=("-p", "--pid", "-P", "--pgid", "-u", "--uid"),
    ),
    "time": _Wrapper(value=("-f", "--format", "-o", "--output")),
    "nohup": _Wrapper(),
    "setsid": _Wrapper(),
    "unbuffer": _Wrapper(),
    "catchsegv": _Wrapper(),
    "busybox": _Wrapper(),
    "stdbuf": _Wrapper(value=("-i", "-o", "-e", "--input", "--output", "--error")),
    "taskset": _Wrapper(positionals=1, stop=("-p", "--pid")),
    "chrt": _Wrapper(positionals=1, stop=("-p", "--pid", "-m", "--max")),
    "xvfb-run": _Wrapper(
        value=("-n", "--server-num", "-s", "--server-args", "-f", "--auth-file", "-e", "-p", "-w"),
    ),
    "sudo": _Wrapper(
        value=_SUDO_VALUES,
        chdir=("-D", "--chdir"),
        stop=("-l", "--list", "-v", "--validate", "-K", "-V", "--version", "-e", "--edit"),
    ),
    "doas": _Wrapper(value=("-u", "-C")),
    "xargs": _Wrapper(
        value=("-n", "-P", "-I", "-L", "-d", "-E", "-s", "-a", "--arg-file", "--delimiter"),
    ),
    "exec": _Wrapper(value=("-a",)),
    "command": _Wrapper(stop=("-v", "-V")),
    "source": _Wrapper(),
    ".": _Wrapper(),
    "uv": _Wrapper(
        value=_UV_VALUES,
        chdir=("--directory",),
        module=("-m", "--module"),
        subcommands=[("run",), ("tool", "run")],
    ),
    "uvx": _Wrapper(value=_UV_VALUES, chdir=("--directory",)),
    "pipx": _Wrapper(
        value=("--spec", "--python", "--index-url", "--pip-args"), subcommands=[("run",)]
    ),
    "poetry": _Wrapper(
        value=("-P", "--project"), chdir=("-C", "--directory"), subcommands=[("run",)]
    ),
    "pipenv": _Wrapper(value=("--python",), subcommands=[("run",)]),
    "hatch": _Wrapper(
        value=("-e", "--env", "-p", "--project", "--data-dir", "--cache-dir", "--config"),
        subcommands=[("run",), ("env", "run")],
    ),
    "pdm": _Wrapper(value=("-p", "--project"), subcommands=[("run",)]),
    # ``runctx run -- CMD``: while it checks or waits it is about to become CMD,
    # so it already counts as CMD's run (two waiters then see each other).
    "runctx": _Wrapper(value=("--mode", "--timeout"), subcommands=[("run",)]),
    "rye": _Wrapper(value=("--pyproject",), subcommands=[("run",)]),
    "conda": _Wrapper(
        value=("-n", "--name", "-p", "--prefix"), chdir=("--cwd",), subcommands=[("run",)]
    ),
    "mamba": _Wrapper(
        value=("-n", "--name", "-p", "--prefix"), chdir=("--cwd",), subcommands=[("run",)]
    ),
    "micromamba": _Wrapper(
        value=("-n", "--name", "-p", "--prefix"), chdir=("--cwd",), subcommands=[("run",)]
    ),
    "pixi": _Wrapper(
        value=("-e", "--environment", "--manifest-path"), subcommands=[("run",), ("exec",)]
    ),
    "coverage": _Wrapper(
        value=("--source", "--include", "--omit", "--rcfile", "--context", "--data-file"),
        module=("-m", "--module"),
        subcommands=[("run",)],
    ),
    "direnv": _Wrapper(subcommands=[("exec",)], positionals=1),
    "npx": _Wrapper(value=("-p", "--package", "--cache"), code=("-c", "--call")),
    "pnpx": _Wrapper(value=("-p", "--package"), code=("-c", "--call")),
    "bunx": _Wrapper(value=("-p", "--package")),
    "bundle": _Wrapper(value=("--gemfile",), subcommands=[("exec",)]),
}
for _name in _NPM:
    _WRAPPERS[_name] = _Wrapper(
        value=("-p", "--package", "--prefix", "-w", "--workspace"),
        code=("-c", "--call"),
        subcommands=[("exec",), ("x",)],
    )
for _name in _PNPM:
    _WRAPPERS[_name] = _Wrapper(
        value=("-C", "--dir", "--filter", "-F"),
        code=("-c", "--shell-mode"),
        subcommands=[("exec",), ("dlx",)],
        own_commands=_PNPM_OWN,
    )
for _name in _YARN:
    _WRAPPERS[_name] = _Wrapper(
        value=("--cwd",), subcommands=[("exec",), ("dlx",)], own_commands=_YARN_OWN
    )
_WRAPPERS["bun"] = _Wrapper(subcommands=[("x",)])

_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash"})
_NODES = frozenset({"node", "nodejs"})
_RUBIES = frozenset({"ruby"})
_JAVAS = frozenset({"java"})
_PYTHON_PREFIXES = ("python", "pypy")
_PYTHON_SUFFIXES = frozenset({"", "t", "d", "m", "u", "w", "-dbg"})

# Outcomes of one unwrapping step, besides the index of the next program word.
_STOP = -1  # nothing runs, or nothing we can name
_SELF = -2  # the word is no wrapper here: it is the program itself
_MODULE = -3  # a python module runs (name in _Walk.text, its args from _Walk.rest)
_CODE = -4  # a python -c text runs (text in _Walk.text, args from _Walk.rest)
_SHELL = -5  # a shell string runs (text in _Walk.text)
_FOUND = -6  # a pattern matched (in _Walk.found)

_MAX_STEPS = 64


def _is_assignment(word: str) -> bool:
    """Whether ``word`` is a shell assignment prefix such as ``LANG=C``."""
    name, eq, _ = word.partition("=")
    return bool(eq) and name.isidentifier()


def _is_python(base: str) -> bool:
    """Whether ``base`` names a python interpreter (``python3.11``, ``pypy3``, ``python3.13t``)."""
    for prefix in _PYTHON_PREFIXES:
        if base.startswith(prefix):
            return base[len(prefix) :].strip("0123456789.") in _PYTHON_SUFFIXES
    return False


# --------------------------------------------------------------------------- the index


class _Index:
    """Lookups built once per pattern table: by program, module and code."""

    __slots__ = ("by_code", "by_module", "by_program", "first_words", "needles")

    def __init__(self, patterns: Sequence[RunnerPattern]) -> None:
        by_program: dict[str, list[RunnerPattern]] = {}
        by_module: dict[str, list[RunnerPattern]] = {}
        by_code: dict[str, list[RunnerPattern]] = {}
        for pattern in patterns:
            for name in pattern.programs:
                by_program.setdefault(name, []).append(pattern)
            for name in pattern.modules:
                by_module.setdefault(name, []).append(pattern)
            for text in pattern.codes:
                by_code.setdefault(text, []).append(pattern)
        self.by_program = {k: tuple(v) for k, v in by_program.items()}
        self.by_module = {k: tuple(v) for k, v in by_module.items()}
        self.by_code = {k: tuple(v) for k, v in by_code.items()}
        # argv[0] basenames worth a closer look (python* is checked by prefix).
        self.first_words = frozenset(
            {*by_program, *_WRAPPERS, *_SHELLS, *_NODES, *_RUBIES, *_JAVAS, "eval"}
        )
        # Strings one of which every command that can match contains (shellcmd's
        # pre-filter). A name that contains another is implied by it and dropped.
        names = sorted({*by_program, *by_module, *by_code}, key=len)
        needles: list[str] = []
        for name in names:
            if not any(kept in name for kept in needles):
                needles.append(name)
        self.needles = tuple(needles)


_INDEXES: dict[int, tuple[Sequence[RunnerPattern], _Index]] = {}


def _index_for(patterns: Sequence[RunnerPattern]) -> _Index:
    """The index of ``patterns``, cached by identity for tuples (built once per table)."""
    if not isinstance(patterns, tuple):
        return _Index(patterns)
    hit = _INDEXES.get(id(patterns))
    if hit is not None and hit[0] is patterns:
        return hit[1]
    index = _Index(patterns)
    if len(_INDEXES) >= 16:  # noqa: PLR2004 - a handful of tables per process at most
        _INDEXES.clear()
    _INDEXES[id(patterns)] = (patterns, index)
    return index


def _needles(patterns: Sequence[RunnerPattern]) -> tuple[str, ...]:
    """Every program, module and code name of ``patterns`` (for :mod:`runctx.shellcmd`)."""
    return _index_for(patterns).needles


# --------------------------------------------------------------------------- the walk


class _Walk:
    """One pass over an argv: unwraps, and tries the patterns at every step."""

    __slots__ = ("args", "chdir", "found", "index", "rest", "shell", "text")

    def __init__(self, argv: Sequence[str], index: _Index) -> None:
        self.args = argv
        self.index = index
        self.chdir: str | None = None
        self.found: RunnerMatch | None = None
        self.shell = False  # text holds a shell string
        self.text = ""
        self.rest = 0

    def run(self) -> RunnerMatch | None:
        """The runner this argv starts, or None (then ``text`` may hold a shell string)."""
        i = 0
        for _ in range(_MAX_STEPS):
            step = self._step(i)
            if step >= 0:
                i = step
                continue
            if step == _FOUND:
                return self.found
            if step == _MODULE:
                match = self._first(self.index.by_module.get(self.text), self.text, self.rest)
                if match is not None or self.text not in _WRAPPERS:
                    return match
                # ``python -m coverage run -m pytest``: the module is a wrapper.
                self.args = [self.text, *self.args[self.rest :]]
                i = 0
                continue
            if step == _CODE:
                return self._first(self.index.by_code.get(self.text), self.text, self.rest)
            if step == _SHELL:
                self.shell = True
            return None
        return None

    def _first(
        self, candidates: tuple[RunnerPattern, ...] | None, word: str, start: int
    ) -> RunnerMatch | None:
        if candidates:
            args = self.args[start:]
            for pattern in candidates:
                if pattern.accepts(word, args):
                    return RunnerMatch(pattern.kind, pattern.role)
        return None

    def _step(self, i: int) -> int:
        """Look at the word at ``i``: the next word's index, or an outcome."""
        args = self.args
        if i >= len(args):
            return _STOP
        word = args[i]
        if _is_assignment(word):
            return i + 1
        base = word.rpartition("/")[2]
        match = self._first(self.index.by_program.get(base), word, i + 1)
        if match is not None:
            self.found = match
            return _FOUND
        wrapper = _WRAPPERS.get(base)
        if wrapper is not None:
            step = self._wrapper(wrapper, i)
            return _STOP if step == _SELF else step
        if base == "eval":
            self.text = " ".join(args[i + 1 :])
            return _SHELL
        return self._interpreter(base, i)

    def _interpreter(self, base: str, i: int) -> int:
        if _is_python(base):
            return self._python(i)
        if base in _SHELLS:
            return self._shell(i)
        if base in _NODES:
            return _options(
                self.args,
                i + 1,
                value=_NODE_VALUES,
                stop=_NODE_STOPS,
            )
        if base in _RUBIES:
            return _options(self.args, i + 1, value=_RUBY_VALUES, stop=_RUBY_STOPS, joined=True)
        if base in _JAVAS:
            return self._java(i)
        return _STOP

    def _python(self, i: int) -> int:
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
                if arg in _PYTHON_LONG_STOPS or arg.startswith("--help"):
                    return _STOP
                j += 2 if arg in _PYTHON_LONG_VALUES else 1
                continue
            outcome = self._python_cluster(arg, j)
            if outcome < 0:
                return outcome
            j = outcome
        if j >= n or args[j] == "-":
            return _STOP
        return j

    def _python_cluster(self, arg: str, j: int) -> int:
        """One short-option cluster (``-uB``, ``-Xdev``, ``-mpytest``) at ``j``."""
        args = self.args
        for k in range(1, len(arg)):
            flag = arg[k]
            if flag in "mc":
                value = arg[k + 1 :]
                after = j + 1
                if not value:
                    if after >= len(args):
                        return _STOP
                    value = args[after]
                    after += 1
                self.text = value
                self.rest = after
                return _MODULE if flag == "m" else _CODE
            if flag in "XW":
                return j + (2 if k + 1 == len(arg) else 1)
            if flag in "hV?":
                return _STOP
        return j + 1

    def _shell(self, i: int) -> int:
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
            if arg in _SHELL_STOPS:
                return _STOP
            if arg in _SHELL_VALUES:
                j += 2
                continue
            if arg[0] == "-" and arg[1] != "-":
                if "s" in arg:
                    return _STOP
                command_string = command_string or "c" in arg
            j += 1
        if j >= n:
            return _STOP
        if command_string:
            self.text = args[j]
            return _SHELL
        return j

    def _java(self, i: int) -> int:
        """Options of java at ``i``: the index of the main class or jar, or stop."""
        args = self.args
        n = len(args)
        j = i + 1
        while j < n:
            arg = args[j]
            if arg in {"-jar", "-m", "--module"}:
                return j + 1 if j + 1 < n else _STOP
            if not arg.startswith("-"):
                return j
            if arg in _JAVA_STOPS:
                return _STOP
            j += 2 if arg in _JAVA_VALUES else 1
        return _STOP

    def _wrapper(self, wrapper: _Wrapper, i: int) -> int:
        """See through the wrapper at ``i``: the command's index, or an outcome."""
        j = self._wrapper_options(wrapper, i + 1)
        if j < 0:
            return j
        if wrapper.subcommands:
            j = self._subcommand(wrapper, j)
            if j < 0:
                return j
        for _ in range(wrapper.positionals):
            if j >= len(self.args):
                return _STOP
            j = self._wrapper_options(wrapper, j + 1)
            if j < 0:
                return j
        return j if j < len(self.args) else _STOP

    def _subcommand(self, wrapper: _Wrapper, j: int) -> int:
        """Match the wrapper's subcommand words from ``j`` (``uv [opts] tool [opts] run``)."""
        live = wrapper.subcommands
        depth = 0
        while True:
            if j >= len(self.args):
                return _STOP
            word = self.args[j]
            live = tuple(seq for seq in live if seq[depth] == word)
            if not live:
                own = wrapper.own_commands
                if depth == 0 and own is not None and word not in own:
                    return j  # ``yarn jest``: the word is a program
                return _SELF
            depth += 1
            j = self._wrapper_options(wrapper, j + 1)
            if j < 0 or any(len(seq) == depth for seq in live):
                return j

    def _wrapper_options(self, wrapper: _Wrapper, j: int) -> int:  # noqa: C901, PLR0911, PLR0912 - one option grammar, one loop
        """Skip the wrapper's options from ``j``: the next positional's index, or an outcome."""
        while j < len(self.args):
            arg = self.args[j]
            if arg == "--":
                return j + 1
            if wrapper.assignments and _is_assignment(arg):
                j += 1
                continue
            if len(arg) < 2 or arg[0] != "-":  # noqa: PLR2004 - "-" alone is a word
                return j
            name, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
            if name in wrapper.stop:
                return _STOP
            if name not in wrapper.value:
                j += 1
                continue
            if eq:
                value, j = inline, j + 1
            elif j + 1 < len(self.args):
                value, j = self.args[j + 1], j + 2
            else:
                return _STOP
            if name in wrapper.chdir:
                self.chdir = os.path.join(self.chdir or "", value)
            elif name in wrapper.module:
                self.text, self.rest = value, j
                return _MODULE
            elif name in wrapper.code:
                self.text = value
                return _SHELL
            elif name in wrapper.split:
                self.args = [*self.args[: j - (1 if eq else 2)], *value.split(), *self.args[j:]]
                j -= 1 if eq else 2
        return j


_PYTHON_LONG_STOPS = frozenset({"--version", "--help"})
_PYTHON_LONG_VALUES = frozenset({"--check-hash-based-pycs"})
_SHELL_STOPS = frozenset({"--version", "--help"})
_SHELL_VALUES = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_NODE_VALUES = frozenset(
    {"-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions"}
    | {"--inspect-port", "--debug-port", "--title", "--input-type", "--env-file"}
    | {"--disable-warning", "--openssl-config"}
)
_NODE_STOPS = frozenset({"-e", "--eval", "-p", "--print", "-v", "--version", "-h", "--help", "-"})
_RUBY_VALUES = frozenset({"-I", "-r", "-C", "-E", "-F", "--encoding"})
_RUBY_STOPS = frozenset({"-e", "--version", "-h", "--help", "-"})
_JAVA_VALUES = frozenset(
    {"-cp", "-classpath", "--class-path", "-p", "--module-path", "--upgrade-module-path"}
    | {"--add-modules", "--add-opens", "--add-exports", "--add-reads", "--patch-module"}
    | {"--limit-modules", "--source"}
)
_JAVA_STOPS = frozenset({"-version", "--version", "-h", "-help", "--help", "-?", "-X"})


def _options(
    args: Sequence[str],
    j: int,
    *,
    value: frozenset[str],
    stop: frozenset[str],
    joined: bool = False,
) -> int:
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
            return _STOP
        if not arg.startswith("-"):
            break
        if joined and arg[:2] in stop:
            return _STOP
        j += 2 if arg in value else 1
    return j if j < n else _STOP


# --------------------------------------------------------------------------- public API


class CommandResolution(_Immutable):
    """What one argv runs, as far as runctx cares (see :func:`resolve_command`).

    ``match`` is the runner it starts (or None); ``shell_string`` the text a
    shell runs instead (``sh -c TEXT``, ``eval``, ``npx -c``), for the shell
    parser to read; ``chdir`` the directory a wrapper moves to before the
    command runs (``env -C DIR``, ``uv run --directory DIR``), relative to the
    cwd the argv starts in, or None.

    Not an attrs class, for the import cost on the hot path (see
    :class:`RunnerMatch`).
    """

    __slots__ = ("chdir", "match", "shell_string")

    match: RunnerMatch | None
    shell_string: str | None
    chdir: str | None

    def __init__(
        self, match: RunnerMatch | None, shell_string: str | None, chdir: str | None
    ) -> None:
        """Hold the three answers."""
        object.__setattr__(self, "match", match)
        object.__setattr__(self, "shell_string", shell_string)
        object.__setattr__(self, "chdir", chdir)

    def __repr__(self) -> str:
        """The constructor call."""
        return (
            f"CommandResolution(match={self.match!r}, shell_string={self.shell_string!r}, "
            f"chdir={self.chdir!r})"
        )

    def __eq__(self, other: object) -> bool:
        """Equal when all three answers are."""
        if not isinstance(other, CommandResolution):
            return NotImplemented
        return (self.match, self.shell_string, self.chdir) == (
            other.match,
            other.shell_string,
            other.chdir,
        )

    def __hash__(self) -> int:
        """Hash of the three answers."""
        return hash((self.match, self.shell_string, self.chdir))


def resolve_command(
    argv: Sequence[str], patterns: Sequence[RunnerPattern] = BUILTIN_PATTERNS
) -> CommandResolution:
    """What ``argv`` runs: its runner, or the shell string it hands to a shell.

    The same walk as :func:`detect_runner` (without its cheap pre-check and
    without the process-title split); :mod:`runctx.shellcmd` uses it for each
    simple command of a command line.
    """
    walk = _Walk(argv, _index_for(patterns))
    match = walk.run()
    shell = walk.text if match is None and walk.shell else None
    return CommandResolution(match, shell, walk.chdir)


def detect_runner(
    argv: Sequence[str], patterns: Sequence[RunnerPattern] = BUILTIN_PATTERNS
) -> RunnerMatch | None:
    """The runner that ``argv`` (a ``/proc/PID/cmdline`` split on NUL) starts, or None.

    ``patterns`` is the runner table; pass the same tuple object on every call
    of a scan, so that its index is built once. A one-word argv with spaces is
    a title the process wrote over its argv (``npm test``), and is split on
    whitespace. ``sh -c STRING`` gives None here: see :mod:`runctx.shellcmd`.
    """
    if not argv:
        return None
    first = argv[0]
    if len(argv) == 1 and " " in first:
        argv = first.split()
        if not argv:
            return None
        first = argv[0]
    if not _first_word_worth_a_look(first, patterns):
        return None
    return _Walk(argv, _index_for(patterns)).run()


def _first_word_worth_a_look(first: str, patterns: Sequence[RunnerPattern]) -> bool:
    """The cheap rejection: False if no argv starting with ``first`` can match ``patterns``."""
    base = first.rpartition("/")[2]
    return (
        base in _index_for(patterns).first_words
        or base.startswith(_PYTHON_PREFIXES)
        or _is_assignment(first)
    )


def load_runner_config(pyproject_path: str) -> tuple[RunnerPattern, ...]:
    """The runner patterns that ``[tool.runctx] runners`` of a ``pyproject.toml`` adds.

    A missing file, or one without the table, adds nothing: ``()``. A file that
    cannot be read or parsed, or a malformed entry, raises
    :class:`runctx.exceptions.ConfigError` naming the file and the entry. See
    the module docstring for the shape.
    """
    table = runctx_table(pyproject_path)
    entries = table.get("runners", [])
    if not isinstance(entries, list):
        msg = f"{pyproject_path}: [tool.runctx] runners must be an array of tables"
        raise ConfigError(msg)
    return tuple(_pattern_of(pyproject_path, n, entry) for n, entry in enumerate(entries))


def _pattern_of(path: str, number: int, entry: object) -> RunnerPattern:
    """The pattern of ``runners[number]``, or a ConfigError naming the file and the entry."""
    where = f"{path}: [tool.runctx] runners[{number}]"
    if not isinstance(entry, dict):
        msg = f"{where} must be a table like {{ kind = ..., program = ... }}, got {entry!r}"
        raise ConfigError(msg)
    unknown = sorted(set(entry) - _CONFIG_KEYS)
    if unknown:
        known = ", ".join(sorted(_CONFIG_KEYS))
        msg = f"{where} {entry!r}: unknown key(s) {', '.join(unknown)} (known: {known})"
        raise ConfigError(msg)
    if "program" not in entry and "module" not in entry:
        msg = f"{where} {entry!r}: needs 'program' or 'module'"
        raise ConfigError(msg)
    for key, value in entry.items():
        if key in {"kind", "role"}:
            ok = isinstance(value, str)
        elif key in {"program", "module"}:
            ok = isinstance(value, str) or (
                isinstance(value, list) and all(isinstance(v, str) for v in value)
            )
        else:
            ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        if not ok:
            wanted = "a string" if key in {"kind", "role"} else "a list of strings"
            msg = f"{where} {entry!r}: '{key}' must be {wanted}, got {value!r}"
            raise ConfigError(msg)
    try:
        return RunnerPattern(
            entry.get("kind", ""),
            role=entry.get("role", RUNNER_ROLE),
            programs=entry.get("program", ()),
            modules=entry.get("module", ()),
            subcommand=entry.get("args", ()),
            any_arg=entry.get("any_args", ()),
            not_with=entry.get("not_with", DEFAULT_NOT_WITH),
            value_options=entry.get("value_options", ()),
        )
    except (TypeError, ValueError) as error:
        msg = f"{where} {entry!r}: {error}"
        raise ConfigError(msg) from error
