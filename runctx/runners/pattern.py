"""The row type of the runner table: which argvs start a run of a kind.

Imported on the hook's hot path: rows are :class:`~runctx._record.LightRecord`
records, not attrs classes (see that module for why).
"""

from __future__ import annotations

from runctx._record import LightRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

RUNNER_ROLE = "runner"
"""A process that starts a run."""
WORKER_ROLE = "worker"
"""A process a runner spawns (an xdist or jest worker): it folds into its runner,
and is a run of its own only when orphaned."""
ROLES = (RUNNER_ROLE, WORKER_ROLE)

DEFAULT_NOT_WITH = ("--help", "--version")
"""Options that make any runner print something and exit instead of running."""


def glob(word: str, pattern: str) -> bool:
    """Whether ``word`` matches ``pattern``: exact, ``pre*``, ``*suf`` or ``*``."""
    if pattern == "*":
        return True
    if pattern.endswith("*"):
        return word.startswith(pattern[:-1])
    if pattern.startswith("*"):
        return word.endswith(pattern[1:])
    return word == pattern


def _exact_and_globs(patterns: tuple[str, ...]) -> tuple[frozenset[str], tuple[str, ...]]:
    """The exact words of ``patterns`` as a set (one lookup per word), and the globs."""
    globs = tuple(p for p in patterns if p.startswith("*") or p.endswith("*"))
    return frozenset(patterns) - frozenset(globs), globs


def strings(value: Iterable[str] | str, field: str) -> tuple[str, ...]:
    """``value`` as a tuple of non-empty strings, or a TypeError/ValueError naming ``field``."""
    items: tuple[str, ...] = (value,) if isinstance(value, str) else tuple(value)
    for item in items:
        if not isinstance(item, str):
            msg = f"{field} must hold strings, got {item!r}"
            raise TypeError(msg)
        if not item:
            msg = f"{field} must not hold an empty string"
            raise ValueError(msg)
    return items


class RunnerMatch(LightRecord):
    """What a runner lookup found: the runner's ``kind`` and its ``role``.

    ``role`` is :data:`RUNNER_ROLE` for a process that starts a run,
    :data:`WORKER_ROLE` for one a runner spawns.
    """

    __slots__ = ("kind", "role")

    kind: str
    role: str

    def __init__(self, kind: str, role: str = RUNNER_ROLE) -> None:
        """Hold ``kind`` and ``role``."""
        self._hold(kind=kind, role=role)


class RunnerPattern(LightRecord):
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
    """

    __slots__ = (
        "_any_arg_exact",
        "_any_arg_globs",
        "_not_with_exact",
        "_not_with_globs",
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
    _not_with_exact: frozenset[str]
    _not_with_globs: tuple[str, ...]
    _any_arg_exact: frozenset[str]
    _any_arg_globs: tuple[str, ...]

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
        names = frozenset(strings(programs, "programs"))
        mods = frozenset(strings(modules, "modules"))
        texts = frozenset(strings(codes, "codes"))
        if not (names or mods or texts):
            msg = f"pattern {kind!r} names no program, module or code"
            raise ValueError(msg)
        any_args = strings(any_arg, "any_arg")
        not_withs = strings(not_with, "not_with")
        any_arg_exact, any_arg_globs = _exact_and_globs(any_args)
        not_with_exact, not_with_globs = _exact_and_globs(not_withs)
        self._hold(
            kind=kind,
            role=role,
            programs=names,
            modules=mods,
            codes=texts,
            path_suffixes=strings(path_suffixes, "path_suffixes"),
            subcommand=strings(subcommand, "subcommand"),
            any_arg=any_args,
            not_with=not_withs,
            not_subcommands=frozenset(strings(not_subcommands, "not_subcommands")),
            value_options=frozenset(strings(value_options, "value_options")),
            _any_arg_exact=any_arg_exact,
            _any_arg_globs=any_arg_globs,
            _not_with_exact=not_with_exact,
            _not_with_globs=not_with_globs,
        )

    @property
    def match(self) -> RunnerMatch:
        """What this row finds: its kind and role."""
        return RunnerMatch(self.kind, self.role)

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
            or not all(glob(w, p) for w, p in zip(positionals, sub, strict=False))
        ):
            return False
        return not self.any_arg or self._any_arg_in(positionals)

    def _any_arg_in(self, positionals: list[str]) -> bool:
        """Whether some positional word matches ``any_arg``."""
        exact, globs = self._any_arg_exact, self._any_arg_globs
        return any(w in exact or any(glob(w, p) for p in globs) for w in positionals)

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
                if arg in self._not_with_exact or any(glob(arg, p) for p in self._not_with_globs):
                    return None
                skip = arg in self.value_options
                continue
            positionals.append(arg)
        return positionals


def rows(
    kind: str, subcommands: Iterable[tuple[str, ...]], **columns: Iterable[str]
) -> tuple[RunnerPattern, ...]:
    """One pattern of ``kind`` per accepted subcommand, sharing the other ``columns``."""
    return tuple(RunnerPattern(kind, subcommand=sub, **columns) for sub in subcommands)  # type: ignore[arg-type]
