"""The row type of the runner table: which argvs start a run of a kind.

Imported behind the hook's pre-filter (and by the scan and the plugin, which
load attrs anyway): rows are frozen attrs classes.
"""

from __future__ import annotations

import attrs

from runctx.record_base import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

RUNNER_ROLE = "runner"
"""A process that starts a run."""
WORKER_ROLE = "worker"
"""A process a runner spawns (an xdist or jest worker): it folds into its runner,
and is a run of its own only when orphaned."""
TASK_ROLE = "task"
"""A task runner running a task that is no test run by its name (``npm run
unit``, ``make ci``): a run when the task's text runs a runner (read from the
project's files by the hook) or when a runner runs below it (seen live)."""
ROLES = (RUNNER_ROLE, WORKER_ROLE, TASK_ROLE)
"""The roles a row of the table (yours included) may have."""
WRAPPER_ROLE = "wrapper"
"""A wrapper whose title hides the command it runs (``npx -c 'node --test'``
titles itself ``npm exec``): a run only when its child is one, and then the
top of that run, of the child's kind. Only a title gives it, never a row."""

DEFAULT_NOT_WITH = ("--help", "--version")
"""Options that make any runner print something and exit instead of running."""

TASK_READERS = (
    *("package-json", "make", "just", "taskfile", "hatch", "rake", "melos", "cargo-alias"),
    *("maven", "toml-tasks", "json-tasks", "mix-aliases", "invoke", "sbt-aliases", "nx"),
    *("git-hooks", "compose", "fastlane"),
)
"""How a task runner's project file is read (:mod:`runctx.runners.tasks`)."""
TASK_NAMES = ("first", "all", "alone")
"""Which positional words after a task row's subcommand name tasks (see :class:`RunnerPattern`)."""


def glob(word: str, pattern: str) -> bool:
    """Whether ``word`` matches ``pattern``, where ``*`` stands for any text (else exact)."""
    if "*" not in pattern:
        return word == pattern
    parts = pattern.split("*")
    head, tail = parts[0], parts[-1]
    if len(word) < len(head) + len(tail) or not word.startswith(head) or not word.endswith(tail):
        return False
    at, stop = len(head), len(word) - len(tail)
    for middle in parts[1:-1]:
        found = word.find(middle, at, stop)
        if found < 0:
            return False
        at = found + len(middle)
    return True


def _exact_and_globs(patterns: tuple[str, ...]) -> tuple[frozenset[str], tuple[str, ...]]:
    """The exact words of ``patterns`` as a set (one lookup per word), and the globs."""
    globs = tuple(p for p in patterns if "*" in p)
    return frozenset(patterns) - frozenset(globs), globs


def _matches(word: str, exact: frozenset[str], globs: tuple[str, ...]) -> bool:
    """Whether ``word`` is one of ``exact`` or matches one of ``globs``."""
    return word in exact or any(glob(word, p) for p in globs)


def strings(value: Iterable[str] | str, field: str) -> tuple[str, ...]:
    """``value`` as a tuple of non-empty strings, or a TypeError/ValueError naming ``field``."""
    if value == ():  # the default of most columns of most rows: the table builds ~6,000
        return ()
    items: tuple[str, ...] = (value,) if isinstance(value, str) else tuple(value)
    for item in items:
        if not isinstance(item, str):
            msg = f"{field} must hold strings, got {item!r}"
            raise TypeError(msg)
        if not item:
            msg = f"{field} must not hold an empty string"
            raise ValueError(msg)
    return items


def _choice(value: str, choices: tuple[str, ...], field: str) -> str:
    if value not in choices:
        msg = f"{field} must be one of {choices}, got {value!r}"
        raise ValueError(msg)
    return value


@attrs.frozen(repr=False, eq=False)
class RunnerMatch(Record):
    """What a runner lookup found: the runner's ``kind`` and its ``role``.

    ``role`` is :data:`RUNNER_ROLE` for a process that starts a run,
    :data:`WORKER_ROLE` for one a runner spawns, :data:`TASK_ROLE` for a task
    runner whose task is a run only if a runner runs under it,
    :data:`WRAPPER_ROLE` for a titled wrapper whose command its title hides.
    """

    kind: str
    role: str = RUNNER_ROLE


@attrs.frozen(repr=False, eq=False)
class ArgsRead(Record):
    """What a row read from a program's arguments, once it accepted them.

    ``chdir``: the directory the program works in, from its own directory
    options (``make -C DIR``), relative to where it starts, or None;
    ``names``: for a task row, the task names given (empty: the default task);
    ``file``: for a task row, the project file named by an option
    (``make -f FILE``), or ""; ``by_name``: for a task row, whether a task's
    name says it is a test run (one of the row's ``run_names``).
    """

    chdir: str | None
    names: tuple[str, ...] = ()
    file: str = ""
    by_name: bool = attrs.field(default=False, kw_only=True)


_PLAIN = ArgsRead(None)


def _join(base: str | None, value: str) -> str:
    return value if base is None or value.startswith("/") else f"{base}/{value}"


def directory_of_file(value: str) -> str:
    """The directory a file option names: its parent, or the value itself for a directory.

    ``mvn -f sub/pom.xml`` and ``mvn -f sub`` both work in ``sub``: a last
    component with a dot (or a trailing slash) is taken for a file, else a directory.
    """
    head, _, last = value.rstrip("/").rpartition("/")
    if value.endswith("/") or "." not in last or last in {".", ".."}:
        return value.rstrip("/") or "/"
    return head or "."


@attrs.frozen(init=False, repr=False, eq=False)
class RunnerPattern(Record):
    """One row of the runner table: which argvs start a run of ``kind``.

    A pattern names its program by at least one of:

    - ``programs``: basenames of the program after unwrapping (``pytest``,
      ``run_tests.py``, ``org.gradle.launcher.GradleMain`` for java);
    - ``modules``: ``python -m`` module names;
    - ``codes``: exact ``python -c`` texts (the xdist worker bootstrap);
    - ``program_globs``: globs on the program's basename, tried when no row
      names it exactly (``*_test``, ``*run_tests*``: a compiled test binary).

    and narrows it by the arguments before ``--``:

    - ``path_suffixes``: the program path must end with one of these;
    - ``by_path``: the program must be named by a path (``./test``,
      ``build/tests``), not looked up on ``PATH`` (``echo``, ``grep``);
    - ``subcommand``: the leading positional words (``("test",)`` for
      ``go test``, ``("nextest", "run")``);
    - ``any_arg``: some positional word must match (``make -j4 lint test``),
      unless its last ``:`` part matches ``except_args``
      (``gradle :app:assembleAndroidTest``);
    - ``with_options``: one of these options must be given (``node --test``);
      before the first positional only, if ``leading_options``;
    - ``not_with``: an option that makes it no run (``--version``), or an
      option with its value, written ``OPT=VALUE`` (``-f=help`` for
      ``behave -f help`` as well as ``--format=help``), or a word
      (``pants help test``, ``make check TESTS=``);
    - ``not_passed``: an argument after ``--``, passed on to the tests, that
      makes it no run (``cargo test -- --list``);
    - ``not_subcommands``: the positional right after ``subcommand`` that
      makes it no run (``tox list``, ``cargo llvm-cov report``);
    - ``value_options``: options that take the next word as their value, so
      that it is not taken for a positional (``make -f FILE test``);
    - ``number_options``: options whose value is optional and, when given as
      the next word, a number (``make -j 4 test``, ``make -j test``);
    - ``arg_options``: options whose value counts as a positional
      (``cmake --build b --target test``);
    - ``exclude_options`` and ``aggregates``: options whose values name tasks
      that will not run (``gradle build -x test``); an ``any_arg`` word in
      ``aggregates`` (``build``, ``check``) runs the tests only while no
      ``any_arg`` word written out exactly (``test``, ``check``) is excluded
      in every project (``-x :app:test`` is one project's, ``-x jvmTest``
      one variant's: the others run);
    - ``chdir_options``: options whose value is the directory the program
      works in (``make -C DIR``), ``chdir_file_options`` a file there
      (``mvn -f DIR/pom.xml``).

    A row of role :data:`TASK_ROLE` is a task runner: ``reader`` says how its
    project file is read and ``task_names`` which positionals after
    ``subcommand`` name tasks (``first``: ``npm run NAME``, and no name means
    no task; ``all``: ``make lint test``, and no name means the default task;
    ``alone``: ``docker compose run SERVICE``, a task only when no word
    follows it: a command after it is what runs, read where it stands).
    Its ``file_options`` name the project file; its ``run_names`` are task
    names that say "test run" (``test-unit``): such a task is a run when its
    text cannot be read (no file, no such task), and otherwise its text decides.

    A cluster of short flags (``tox -av``) counts as its flags, the getopt
    way: each letter is a flag until one that takes a value (the rest of the
    word, or the next word, is its value) or a character that is no letter
    (``-n4``). So a flag of ``not_with`` inside a cluster makes it no run.
    ``short_clusters`` says whether the program reads clusters; by default it
    does unless the row names no program exactly (``program_globs``) or one
    of its options is a single-dash long option (``go test -list``,
    ``ant -projecthelp``), where ``-count`` is one option, not ``-c -o ...``.

    Words in ``subcommand``, ``any_arg``, ``except_args``, ``with_options``,
    ``aggregates`` and ``not_with`` are globs: ``*`` stands for any text.
    """

    kind: str
    role: str
    programs: frozenset[str]
    modules: frozenset[str]
    codes: frozenset[str]
    path_suffixes: tuple[str, ...]
    by_path: bool
    subcommand: tuple[str, ...]
    any_arg: tuple[str, ...]
    except_args: tuple[str, ...]
    with_options: tuple[str, ...]
    leading_options: bool
    not_with: tuple[str, ...]
    not_passed: frozenset[str]
    program_globs: tuple[str, ...]
    not_subcommands: frozenset[str]
    value_options: frozenset[str]
    number_options: frozenset[str]
    short_clusters: bool
    arg_options: frozenset[str]
    exclude_options: frozenset[str]
    aggregates: tuple[str, ...]
    chdir_options: frozenset[str]
    chdir_file_options: frozenset[str]
    file_options: frozenset[str]
    reader: str
    run_names: tuple[str, ...]
    task_names: str
    _program_order: tuple[str, ...] = attrs.field(eq=False, repr=False)
    _not_with_exact: frozenset[str] = attrs.field(eq=False, repr=False)
    _not_with_globs: tuple[str, ...] = attrs.field(eq=False, repr=False)
    _any_arg_exact: frozenset[str] = attrs.field(eq=False, repr=False)
    _any_arg_globs: tuple[str, ...] = attrs.field(eq=False, repr=False)
    _plain: bool = attrs.field(eq=False, repr=False)

    def __init__(  # noqa: PLR0913 - a table row is built by keyword, one argument per column
        self,
        kind: str,
        *,
        role: str = RUNNER_ROLE,
        programs: Iterable[str] = (),
        modules: Iterable[str] = (),
        codes: Iterable[str] = (),
        path_suffixes: Iterable[str] = (),
        by_path: bool = False,
        subcommand: Iterable[str] = (),
        any_arg: Iterable[str] = (),
        except_args: Iterable[str] = (),
        with_options: Iterable[str] = (),
        leading_options: bool = False,
        not_with: Iterable[str] = DEFAULT_NOT_WITH,
        not_passed: Iterable[str] = (),
        program_globs: Iterable[str] = (),
        not_subcommands: Iterable[str] = (),
        value_options: Iterable[str] = (),
        number_options: Iterable[str] = (),
        short_clusters: bool | None = None,
        arg_options: Iterable[str] = (),
        exclude_options: Iterable[str] = (),
        aggregates: Iterable[str] = (),
        chdir_options: Iterable[str] = (),
        chdir_file_options: Iterable[str] = (),
        file_options: Iterable[str] = (),
        reader: str = "",
        task_names: str = "first",
        run_names: Iterable[str] = (),
    ) -> None:
        """Validate and hold one row; TypeError/ValueError on a malformed one."""
        if not isinstance(kind, str) or not kind:
            msg = f"kind must be a non-empty string, got {kind!r}"
            raise ValueError(msg)
        _choice(role, ROLES, "role")
        in_order = tuple(dict.fromkeys(strings(programs, "programs")))
        names = frozenset(in_order)
        mods = frozenset(strings(modules, "modules"))
        texts = frozenset(strings(codes, "codes"))
        name_globs = strings(program_globs, "program_globs")
        if not (names or mods or texts or name_globs):
            msg = f"pattern {kind!r} names no program, module or code"
            raise ValueError(msg)
        if role == TASK_ROLE:
            _choice(reader, TASK_READERS, "reader")
        elif reader:
            msg = f"only a task row has a reader, got {reader!r} on a {role} row"
            raise ValueError(msg)
        chdirs = frozenset(strings(chdir_options, "chdir_options"))
        chdir_files = frozenset(strings(chdir_file_options, "chdir_file_options"))
        files = frozenset(strings(file_options, "file_options"))
        args = frozenset(strings(arg_options, "arg_options"))
        excludes = frozenset(strings(exclude_options, "exclude_options"))
        any_args = strings(any_arg, "any_arg")
        not_withs = strings(not_with, "not_with")
        any_arg_exact, any_arg_globs = _exact_and_globs(any_args)
        not_with_exact, not_with_globs = _exact_and_globs(not_withs)
        value_opts = (
            frozenset(strings(value_options, "value_options"))
            | chdirs
            | chdir_files
            | files
            | args
            | excludes
        )
        with_opts = strings(with_options, "with_options")
        if short_clusters is None:
            short_clusters = not name_globs and not _single_dash_long(
                (*not_withs, *with_opts, *value_opts), value_opts
            )
        subcommands = strings(subcommand, "subcommand")
        passed = frozenset(strings(not_passed, "not_passed"))
        not_subs = frozenset(strings(not_subcommands, "not_subcommands"))
        numbers = frozenset(strings(number_options, "number_options"))
        self.__attrs_init__(
            kind=kind,
            role=role,
            programs=names,
            modules=mods,
            codes=texts,
            path_suffixes=strings(path_suffixes, "path_suffixes"),
            by_path=bool(by_path),
            subcommand=subcommands,
            any_arg=any_args,
            except_args=strings(except_args, "except_args"),
            with_options=with_opts,
            leading_options=bool(leading_options),
            not_with=not_withs,
            not_passed=passed,
            program_globs=name_globs,
            not_subcommands=not_subs,
            value_options=value_opts,
            number_options=numbers,
            short_clusters=bool(short_clusters),
            arg_options=args,
            exclude_options=excludes,
            aggregates=strings(aggregates, "aggregates"),
            chdir_options=chdirs,
            chdir_file_options=chdir_files,
            file_options=files,
            reader=reader,
            run_names=strings(run_names, "run_names"),
            task_names=_choice(task_names, TASK_NAMES, "task_names"),
            program_order=in_order,
            not_with_exact=not_with_exact,
            not_with_globs=not_with_globs,
            any_arg_exact=any_arg_exact,
            any_arg_globs=any_arg_globs,
            plain=not (
                not_withs
                or passed
                or subcommands
                or any_args
                or not_subs
                or with_opts
                or value_opts
                or numbers
                or role == TASK_ROLE
            ),
        )

    @property
    def program_order(self) -> tuple[str, ...]:
        """``programs`` in the order the row gives them: the first is the usual spelling."""
        return self._program_order

    @property
    def match(self) -> RunnerMatch:
        """What this row finds: its kind and role."""
        return RunnerMatch(self.kind, self.role)

    def _names(self, word: str) -> bool:
        """Whether the program as written (``word``) is one this row can name, by its path."""
        if self.path_suffixes and not ("/" + word).endswith(self.path_suffixes):
            return False
        return not self.by_path or "/" in word

    def read(self, word: str, args: Sequence[str]) -> ArgsRead | None:
        """What this row reads from ``args`` of program ``word``, or None if it does not match."""
        if not self._names(word):
            return None
        if self._plain:
            return _PLAIN
        scanned = _Scanned()
        if not (
            scanned.scan(self, args) and scanned.with_option and self._positionals_run(scanned)
        ):
            return None
        rest = scanned.positionals[len(self.subcommand) :]
        chdir = scanned.chdir
        if self.role != TASK_ROLE:
            return ArgsRead(chdir) if chdir is not None else _PLAIN
        names = self._task_names(tuple(rest))
        if names is None:
            return None
        by_name = any(glob(name, p) for name in names for p in self.run_names)
        return ArgsRead(chdir, names, scanned.file, by_name=by_name)

    def _task_names(self, rest: tuple[str, ...]) -> tuple[str, ...] | None:
        """The task names among the positional words after the subcommand; None: no task."""
        if self.task_names == "all":
            return rest
        if self.task_names == "alone" and len(rest) != 1:
            return None  # a command after the service is what runs, read where it stands
        # ``npm run`` alone lists the scripts: a task row needs a name
        return rest[:1] or None

    @property
    def not_with_words(self) -> frozenset[str]:
        """The ``not_with`` entries written out exactly: given as a word, one refuses too."""
        return self._not_with_exact

    def refuses(self, option: str) -> bool:
        """Whether ``option`` (or ``OPT=VALUE``) is one of ``not_with``: it makes no run."""
        return _matches(option, self._not_with_exact, self._not_with_globs)

    def _positionals_run(self, scanned: _Scanned) -> bool:
        """Whether the positional words fit the subcommand and the argument rules."""
        positionals = scanned.positionals
        sub = self.subcommand
        if sub and (
            len(positionals) < len(sub)
            or not all(glob(w, p) for w, p in zip(positionals, sub, strict=False))
        ):
            return False
        rest = positionals[len(sub) :]
        if rest and rest[0] in self.not_subcommands:
            return False
        return not self.any_arg or self._runs_some(positionals, scanned.excluded)

    def _runs_some(self, positionals: Sequence[str], excluded: Sequence[str]) -> bool:
        """Whether some positional names a test task that is not excluded."""
        everywhere = {word for word in excluded if ":" not in word}  # ``-x test``: every project's
        # An aggregate (``build``) runs no test once a test task named exactly (``-x test``,
        # ``-x allTests``) is excluded in every project; one project's (``-x :app:test``) or
        # one variant's (``-x linuxX64Test``) leaves the other projects' and variants' to run.
        test_excluded = any(word in self._any_arg_exact for word in everywhere)
        for word in positionals:
            if word in excluded or word.rpartition(":")[2] in everywhere:
                continue
            if not _matches(word, self._any_arg_exact, self._any_arg_globs):
                continue
            if any(glob(word.rpartition(":")[2], p) for p in self.except_args):
                continue
            if test_excluded and any(glob(word, p) for p in self.aggregates):
                continue
            return True
        return False


class _Scanned:
    """One pass over a program's arguments for one row: what its rules look at."""

    __slots__ = ("chdir", "excluded", "file", "positionals", "with_option")

    def __init__(self) -> None:
        self.positionals: list[str] = []
        self.excluded: list[str] = []
        self.chdir: str | None = None
        self.file = ""
        self.with_option = False

    def scan(self, row: RunnerPattern, args: Sequence[str]) -> bool:
        """Read ``args`` for ``row``; False when an option says nothing runs."""
        self.with_option = not row.with_options
        n = len(args)
        i = 0
        while i < n:
            arg = args[i]
            i += 1
            if arg == "--":
                return not any(rest in row.not_passed for rest in args[i:])
            if len(arg) < 2 or arg[0] not in "-+":  # noqa: PLR2004 - "-" alone is a word
                if arg in row.not_with_words:  # ``pants help test``, ``make check TESTS=``
                    return False
                self.positionals.append(arg)
                continue
            if row.refuses(arg):
                return False
            if not self.with_option and not (row.leading_options and self.positionals):
                self.with_option = any(glob(arg, p) for p in row.with_options)
            after = self._option(row, arg, args, i)
            if after is None:
                return False
            i = after
        return True

    def _option(self, row: RunnerPattern, arg: str, args: Sequence[str], i: int) -> int | None:
        """Read the option ``arg`` whose next word is at ``i``: the index after it, or None.

        None when the option (or one flag of its cluster, or its value) makes no run.
        """
        name, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name not in row.value_options and name not in row.number_options:
            self._joined(row, arg)
            read = _cluster(row, arg) if row.short_clusters and _is_cluster(arg) else None
            if read == _REFUSED:
                return None
            if read is None:
                return i
            name = read  # ``tox -qe py311``: the cluster's last flag takes the next word
        if name in row.number_options:
            return i + 1 if not eq and i < len(args) and _is_number(args[i]) else i  # ``-j 4``
        if not eq:
            if i >= len(args):
                return i
            value = args[i]
            i += 1
            if row.refuses(f"{name}={value}"):
                return None  # ``behave -f help``, like ``--format=help``
        self._value(row, name, value)
        return i

    def _joined(self, row: RunnerPattern, arg: str) -> None:
        """``-C../b``: a short directory option with its path joined (:func:`joined_directory`)."""
        if row.chdir_options or row.chdir_file_options:
            joined = joined_directory(arg, row.chdir_options | row.chdir_file_options)
            if joined is not None:
                self._value(row, arg[:2], joined)

    def _value(self, row: RunnerPattern, name: str, value: str) -> None:
        if name in row.arg_options:
            self.positionals.append(value)
        elif name in row.exclude_options:
            self.excluded.append(value)
        elif name in row.chdir_options:
            self.chdir = _join(self.chdir, value)
        elif name in row.chdir_file_options:
            self.chdir = _join(self.chdir, directory_of_file(value))
        elif name in row.file_options:
            self.file = value


SHORT_CLUSTER_LETTERS = 3
"""Letters a cluster of flags holds at most when a flag after one the row does not know
makes it no run (``-vh``); a longer one may be an option and its joined value."""
_REFUSED = "-"
"""What :func:`_cluster` says of a cluster holding a flag that makes no run."""


def _is_cluster(arg: str) -> bool:
    """Whether ``arg`` may be a cluster of short flags: ``-av``, ``-qe``, not ``--x`` or ``-a``."""
    return len(arg) > 2 and arg[0] == "-" and arg[1] != "-"  # noqa: PLR2004 - a dash, two letters


def _cluster(row: RunnerPattern, arg: str) -> str | None:
    """Read the short flags of the cluster ``arg`` for ``row``, the getopt way.

    :data:`_REFUSED` when one of its flags is in ``not_with`` (``tox -av``),
    the last flag when it takes the next word as its value (``-qe py311``),
    else None. A flag that takes a value ends the cluster (``-kshow`` is
    ``-k show``: no ``-h`` in it), and so does a character that is no letter
    (``-n4``); the joined value is checked as ``OPT=VALUE`` (``-fhelp``).

    A letter the row does not know may be an option that takes the rest as
    its value (``busted -Xhelper``, ``cabal test -fhttp``, ``rspec -Ihelpers``):
    a flag of ``not_with`` after one counts only in a short cluster
    (:data:`SHORT_CLUSTER_LETTERS`, ``-vh``), never in a word-long one.
    """
    last = len(arg) - 1
    unknown_before = False
    for k in range(1, len(arg)):
        letter = arg[k]
        if not letter.isalpha():
            return None
        flag = "-" + letter
        if flag in row.value_options or flag in row.number_options:
            if k == last:
                return flag
            return _REFUSED if row.refuses(f"{flag}={arg[k + 1 :]}") else None
        if row.refuses(flag):
            if unknown_before and last > SHORT_CLUSTER_LETTERS:
                return None  # maybe the value of an option the row does not know
            return _REFUSED
        unknown_before = True
    return None


def _is_number(word: str) -> bool:
    """Whether ``word`` is a number an option may take (``4``, ``2.5``)."""
    return bool(word) and word.replace(".", "", 1).isdigit()


def _single_dash_long(options: Iterable[str], values: frozenset[str]) -> bool:
    """Whether one of ``options`` is a single-dash long option (``-list``, ``-Spath``).

    A short value option with its value joined (``-DskipTests`` where ``-D``
    takes a value) is none.
    """
    for option in options:
        name = option.partition("=")[0]
        if len(name) > 2 and name[0] == "-" and name[1] != "-" and name[:2] not in values:  # noqa: PLR2004
            return True
    return False


def joined_directory(arg: str, options: frozenset[str]) -> str | None:
    """The path joined to a short directory option (``make -C../b``), or None.

    getopt takes ``-CDIR`` for ``-C DIR``. Only a value that is plainly a path
    (``/`` in it, or a leading ``.`` or ``~``) is read so: ``mvn -fae`` is an
    option of its own, not ``-f ae``.
    """
    if len(arg) < 3 or arg[1] == "-" or arg[:2] not in options:  # noqa: PLR2004 - ``-C`` and more
        return None
    value = arg[2:]
    return value if "/" in value or value[0] in ".~" else None


def rows(
    kind: str, subcommands: Iterable[tuple[str, ...]], **columns: Iterable[str] | bool
) -> tuple[RunnerPattern, ...]:
    """One pattern of ``kind`` per accepted subcommand, sharing the other ``columns``."""
    return tuple(RunnerPattern(kind, subcommand=sub, **columns) for sub in subcommands)  # type: ignore[arg-type]
