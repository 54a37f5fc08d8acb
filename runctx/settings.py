"""One configuration: a checkout's ``[tool.runctx]`` and the user's own file, read once.

Every face (the hooks, ``runctx run``, ``wait``, ``status``, the pytest plugin)
asks :func:`settings_for` with the checkout root and gets one
:class:`Settings` value: the runner table (the checkout's rows, then the
user's, then the builtin ones), the ``on-same-checkout``, ``on-shared-tree``
and ``on-environment-change`` modes, and the thresholds of "busy now" with the
``on-busy-box`` mode. Two files feed it, one rule for every face:

- ``ROOT/pyproject.toml``'s ``[tool.runctx]``, where ROOT is the checkout root
  (:func:`runctx.roots.checkout_root`);
- the user's configuration file, the same keys at its top level:
  ``$RUNCTX_CONFIG`` if set, else ``$XDG_CONFIG_HOME/runctx/config.toml``,
  else ``~/.config/runctx/config.toml`` (:func:`user_config_path`). Its runners
  are recognised from every checkout, so a custom runner's load is seen (and
  reported as foreign) wherever the user stands.

A key the checkout sets wins over the user's; the environment
(``$RUNCTX_ON_SAME_CHECKOUT``, ``$RUNCTX_ON_SHARED_TREE``,
``$RUNCTX_ON_BUSY_BOX``, ``$RUNCTX_ON_ENVIRONMENT_CHANGE``) over both. Both
files are read without blocking and with a bound (:mod:`runctx.planted`). The keys are documented in
``docs/configuration.md``.

The hook's fast path parses nothing unless a file may add runner rows
(:func:`runctx.config_files.may_add_runners`); this module is behind that test.
"""

from __future__ import annotations

import functools
import os
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from runctx._log import log_event
from runctx.config_files import (
    CONFIG_ENV,
    MAX_LINE_BYTES,
    MAX_PYPROJECT_BYTES,
    MAX_SCANNED_BYTES,
    MAX_USER_CONFIG_BYTES,
    MODE_ENV,
    PYPROJECT,
    SHARED_TREE_ENV,
    USER_CONFIG,
    TableSearch,
    mentions_runctx_table,
    read_pyproject,
    trusted,
    user_config_path,
)
from runctx.exceptions import ConfigError, UnreadableConfigError
from runctx.fastpath.prefilter import BUILTIN_NAMES
from runctx.modes import (
    DEFAULT_BOX_MODE,
    DEFAULT_ENVIRONMENT_CHANGE_MODE,
    DEFAULT_MODE,
    DEFAULT_SHARED_TREE_MODE,
    DEFAULT_WATCHER_MODE,
    ENVIRONMENT_CHANGE_MODES,
    SHARED_TREE_MODES,
    WATCHER_MODES,
    BoxMode,
    Mode,
)
from runctx.planted import read_bounded
from runctx.record_base import Record
from runctx.runners.configured import with_program_options
from runctx.runners.needles import names_of
from runctx.runners.pattern import DEFAULT_NOT_WITH, RUNNER_ROLE, RunnerPattern
from runctx.runners.table import BUILTIN_PATTERNS
from runctx.unknown import Unknown

__all__ = [
    "CONFIG_ENV",
    "MAX_LINE_BYTES",
    "MAX_PYPROJECT_BYTES",
    "MAX_SCANNED_BYTES",
    "MODE_ENV",
    "PYPROJECT",
    "SHARED_TREE_ENV",
    "USER_CONFIG",
    "BoxMode",
    "BusyRules",
    "Mode",
    "Settings",
    "TableSearch",
    "mentions_runctx_table",
    "read_pyproject",
    "settings_for",
    "user_config_path",
]


def read_user_config(path: str) -> bytes | None:
    """The bytes of the user's configuration file, None when there is none.

    Read like a pyproject.toml (:mod:`runctx.planted`: regular files only,
    without blocking), whole: a file past :data:`MAX_USER_CONFIG_BYTES` is a
    :class:`ConfigError` naming the file and the bound, never the defaults.
    """
    try:
        data, whole = read_bounded(path, MAX_USER_CONFIG_BYTES)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError) as error:  # ValueError: a NUL or a lone surrogate in the path
        msg = f"{path!r}: cannot read: {getattr(error, 'strerror', None) or error}"
        raise UnreadableConfigError(msg) from error
    if not whole:
        size = MAX_USER_CONFIG_BYTES // 1024 // 1024
        msg = f"{path} is larger than {size} MiB, the most runctx reads of its configuration file"
        raise UnreadableConfigError(msg)
    return data


def user_table(path: str) -> dict[str, object]:
    """The whole of the user's configuration file at ``path``; ``{}`` when there is none."""
    data = read_user_config(path)
    return {} if data is None else _toml(data, path)


def _toml(data: bytes, path: str) -> dict[str, object]:
    """The TOML document ``data`` read from ``path``, or a ConfigError naming the file."""
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as error:
        msg = f"{path}: invalid TOML: {error}"
        raise ConfigError(msg) from error


def runctx_table(path: str) -> dict[str, object]:
    """``[tool.runctx]`` of the pyproject.toml at ``path``; ``{}`` when there is none.

    A file that cannot be read or parsed, or a ``tool.runctx`` that is not a
    table, raises :class:`ConfigError` naming the file.
    """
    data = read_pyproject(path)
    if data is None or not mentions_runctx_table(data):
        return {}
    tools = _toml(data, path).get("tool", {})
    table = tools.get("runctx", {}) if isinstance(tools, dict) else None
    if not isinstance(table, dict):
        msg = f"{path}: [tool.runctx] must be a table"
        raise ConfigError(msg)
    return table


# --------------------------------------------------------------------------- the settings value

MODE_KEY = "on-same-checkout"
SHARED_TREE_KEY = "on-shared-tree"
ENVIRONMENT_CHANGE_KEY = "on-environment-change"
ENVIRONMENT_CHANGE_ENV = "RUNCTX_ON_ENVIRONMENT_CHANGE"
RUNNERS_KEY = "runners"
BUSY_RUN_CPU_KEY = "busy-run-cpu"
BOX_CPU_PRESSURE_KEY = "busy-box-cpu-pressure"
BOX_LOAD_KEY = "busy-box-load-per-cpu"
BOX_MEMORY_KEY = "busy-box-memory-available"
BUSY_BOX_KEY = "on-busy-box"
BUSY_BOX_ENV = "RUNCTX_ON_BUSY_BOX"
WATCHER_KEY = "on-watcher"
WATCHER_ENV = "RUNCTX_ON_WATCHER"
WATCHERS_KEY = "watchers"
FOREIGN_NOTE_KEY = "foreign-note"
FOREIGN_NOTE_CHOICES = ("hurts", "busy")
"""``hurts`` (the default): a note on foreign load only when the busy foreign runs leave
fewer CPUs free than the run about to start will use; ``busy``: whenever one is busy now."""


@attrs.frozen(repr=False, eq=False)
class BusyRules(Record):
    """When a run is busy now, when the box is, and what a busy box does (``on-busy-box``).

    ``run_cpu``: a run is busy when its processes keep at least this many
    CPUs busy over the sampling window (0.5: half a CPU). The box is busy
    when its CPU pressure (PSI ``some avg10``, percent) reaches
    ``cpu_pressure``, its load per usable CPU reaches ``load_per_cpu``, or
    its available memory falls below ``memory_available`` percent of the
    total. Each threshold counts only when its fact is known; a box threshold
    that is None (``false`` in the file) is not checked at all.
    ``on_busy_box`` defaults to :data:`runctx.modes.DEFAULT_BOX_MODE`.
    """

    run_cpu: float = 0.5
    cpu_pressure: float | None = 40.0
    load_per_cpu: float | None = 1.5
    memory_available: float | None = 10.0
    on_busy_box: BoxMode = DEFAULT_BOX_MODE


_THRESHOLDS = (
    # key, BusyRules field, the largest value that makes sense, whether false turns it off
    (BUSY_RUN_CPU_KEY, "run_cpu", 4096.0, False),
    (BOX_CPU_PRESSURE_KEY, "cpu_pressure", 100.0, True),
    (BOX_LOAD_KEY, "load_per_cpu", 4096.0, True),
    (BOX_MEMORY_KEY, "memory_available", 100.0, True),
)
_BOX_FIELD = "on_busy_box"

DEFAULT_LAYER = "default"
"""A key no layer sets: the default holds."""
USER_LAYER = "user"
"""The user's configuration file (:func:`user_config_path`)."""
CHECKOUT_LAYER = "checkout"
"""The checkout's ``pyproject.toml`` ``[tool.runctx]``."""
ENVIRONMENT_LAYER = "environment"
"""A ``$RUNCTX_ON_...`` variable. The layers of a settings value, the weakest first
(each key a later one sets wins): user, checkout, environment."""

Sources = tuple[tuple[str, str], ...]
"""Each key set, with the layer that set it (:data:`USER_LAYER`, :data:`CHECKOUT_LAYER`
or :data:`ENVIRONMENT_LAYER`)."""

BusyGiven = tuple[tuple[str, object], ...]
"""The ``BusyRules`` fields a file (or the environment) sets, in the order of
``_THRESHOLDS`` then ``on_busy_box``: what is merged key by key."""


_SETTING_KEYS = (
    MODE_KEY,
    SHARED_TREE_KEY,
    ENVIRONMENT_CHANGE_KEY,
    RUNNERS_KEY,
    *(key for key, _, _, _ in _THRESHOLDS),
    BUSY_BOX_KEY,
    WATCHER_KEY,
    WATCHERS_KEY,
    FOREIGN_NOTE_KEY,
)

_RUNNER_KEYS = frozenset(
    {"kind", "role", "program", "module", "args", "any_args", "not_with", "value_options"}
)


@attrs.frozen(repr=False, eq=False)
class Settings(Record):
    """The runctx settings of one checkout, validated: every face reads this value.

    ``path`` is the ``pyproject.toml`` they came from and ``user_path`` the
    user's configuration file (each ``""`` when none was read); ``runners``
    the rows of both, the checkout's first (``patterns`` puts them in front
    of the builtin table); ``on_same_checkout`` the mode set by the
    environment, the checkout or the user, or None when none sets it (``mode``
    then gives the default); ``on_shared_tree`` likewise for another user's
    run in this very checkout (``shared_tree_mode``); ``busy_given`` the
    thresholds of "busy now" and the ``on-busy-box`` mode that are set
    (``busy`` gives them all, defaults filled in); ``on_environment_change``
    the mode for a command that changes an environment a live run imports
    from, or None (``environment_change_mode``); ``on_watcher`` the mode next
    to a run of this checkout that re-runs on change, or None
    (``watcher_mode``), and ``watchers`` the programs the user declared
    watchers (:mod:`runctx.watchers`); ``foreign_note`` when a note on
    foreign load is given (:data:`FOREIGN_NOTE_CHOICES`, None: ``hurts``);
    ``problem`` what was wrong with a layer that could not be read, which
    was left out (``settings_for(..., degrade=True)``; ``""`` when none);
    ``sources`` which layer set each key (:meth:`source_of`).

    A value is built by a face, once per call, from its layers
    (:func:`layers`: the user's file, the checkout's, the environment) merged
    by one rule (:func:`merged`), and passed down: nothing below a face reads
    the settings again.
    """

    path: str = ""
    runners: tuple[RunnerPattern, ...] = ()
    on_same_checkout: Mode | None = None
    on_shared_tree: Mode | None = None
    busy_given: BusyGiven = ()
    user_path: str = attrs.field(default="", kw_only=True)
    on_environment_change: Mode | None = attrs.field(default=None, kw_only=True)
    sources: Sources = attrs.field(default=(), kw_only=True)
    on_watcher: Mode | None = attrs.field(default=None, kw_only=True)
    watchers: tuple[str, ...] = attrs.field(default=(), kw_only=True)
    foreign_note: str | None = attrs.field(default=None, kw_only=True)
    problem: str = attrs.field(default="", kw_only=True)

    @functools.cached_property
    def patterns(self) -> tuple[RunnerPattern, ...]:
        """The runner table: the configured rows first, then the builtin ones (one tuple, kept).

        A configured row for a program the builtin table knows reads that
        program's options as the builtin rows do
        (:func:`~runctx.runners.configured.with_program_options`).
        """
        if not self.runners:
            return BUILTIN_PATTERNS
        return (*with_program_options(self.runners, BUILTIN_PATTERNS), *BUILTIN_PATTERNS)

    @functools.cached_property
    def names(self) -> tuple[str, ...]:
        """Every program, module and code name of :attr:`patterns`, without building it."""
        if not self.runners:
            return BUILTIN_NAMES
        return tuple(sorted({*BUILTIN_NAMES, *names_of(self.runners)}))

    def source_of(self, key: str) -> str:
        """Which layer set ``key`` (``on-same-checkout``...), or :data:`DEFAULT_LAYER`."""
        for name, layer in self.sources:
            if name == key:
                return layer
        return DEFAULT_LAYER

    def replaced(self, **changes: Any) -> Settings:  # noqa: ANN401 - any field's value
        """The same settings with the fields named in ``changes`` replaced."""
        return attrs.evolve(self, **changes)

    @property
    def mode(self) -> Mode:
        """``on_same_checkout``, or the default (``stop``) when nothing sets it."""
        return self.on_same_checkout or DEFAULT_MODE

    @property
    def shared_tree_mode(self) -> Mode:
        """``on_shared_tree``, or the default (``stop``) when nothing sets it."""
        return self.on_shared_tree or DEFAULT_SHARED_TREE_MODE

    @functools.cached_property
    def busy(self) -> BusyRules:
        """The thresholds of "busy now" and ``on-busy-box``: those set, else the defaults."""
        values: dict[str, Any] = dict(self.busy_given)
        return BusyRules(**values) if values else DEFAULT_BUSY

    @property
    def environment_change_mode(self) -> Mode:
        """``on_environment_change``, or the default (``warn``) when nothing sets it."""
        return self.on_environment_change or DEFAULT_ENVIRONMENT_CHANGE_MODE

    @property
    def watcher_mode(self) -> Mode:
        """``on_watcher``, or the default (``warn``: go ahead, naming it) when nothing sets it."""
        return self.on_watcher or DEFAULT_WATCHER_MODE


DEFAULT_BUSY = BusyRules()
"""The thresholds and ``on-busy-box`` of a checkout and a user that set none."""


DEFAULTS = Settings()
"""The settings of a checkout that sets nothing, for a user who sets nothing."""

_CACHE: dict[str, tuple[tuple[int, int, int], Settings]] = {}


def settings_for(
    root: str | Unknown, environ: Mapping[str, str] | None = None, *, degrade: bool = False
) -> Settings:
    """The settings of the checkout at ``root``: its pyproject, the user's file, the environment.

    A face's entry calls this once per call and passes the value down
    (:func:`merged` over :func:`layers`). Each key the checkout sets wins over
    the user's file; ``$RUNCTX_ON_SAME_CHECKOUT`` overrides
    ``on-same-checkout``, ``$RUNCTX_ON_SHARED_TREE`` ``on-shared-tree``,
    ``$RUNCTX_ON_BUSY_BOX`` ``on-busy-box`` and
    ``$RUNCTX_ON_ENVIRONMENT_CHANGE`` ``on-environment-change``. A checkout
    that cannot be identified has the user's settings alone. Each file is read
    and validated once while it stays unchanged. A malformed file, table or
    value raises :class:`~runctx.exceptions.ConfigError` naming the file and
    the key; with ``degrade`` it does not: a layer that cannot be read is left
    out (its keys keep their defaults) and :attr:`Settings.problem` says which
    file, which line and what is wrong (:func:`settings_and_problem`).
    """
    if not degrade:
        return merged(layers(root, os.environ if environ is None else environ))
    settings, problems = settings_and_problems(root, environ)
    return settings.replaced(problem="; ".join(problems)) if problems else settings


def settings_and_problems(
    root: str | Unknown, environ: Mapping[str, str] | None = None
) -> tuple[Settings, tuple[str, ...]]:
    """The settings of ``root`` from every layer that can be read, and each problem found.

    A layer (the user's file, the checkout's ``[tool.runctx]``, the
    environment) that is malformed or cannot be read is left out, so its keys
    keep their defaults; its problem names the file, the line and what is
    wrong (:func:`located`). A key of ``[tool.runctx]`` runctx does not know (a
    misspelt one) is a problem too, and the rest of the table still counts.
    """
    pyproject = os.path.join(root, PYPROJECT) if isinstance(root, str) else ""
    found: list[Settings] = []
    problems: list[str] = []
    for path, read in _readers(root, os.environ if environ is None else environ):
        try:
            layer = read()
            unknown = _unknown_keys(pyproject) if path == pyproject and layer.path else []
        except ConfigError as error:
            problems.append(located(str(error)))
            continue
        if layer is not DEFAULTS:
            found.append(layer)
        problems.extend(unknown)
    return merged(found), tuple(problems)


def settings_and_problem(
    root: str | Unknown, environ: Mapping[str, str] | None = None
) -> tuple[Settings, str | None]:
    """The settings of ``root`` with every layer that can be read, and what was wrong, if anything.

    For the faces that must not fail on a broken configuration (``status``,
    ``check``, ``wait``, the hooks, the pytest plugin): they warn with the
    problem (file, line, what is wrong) and go on with the defaults for what
    the broken layer would have set.
    """
    settings, problems = settings_and_problems(root, environ)
    return settings, "; ".join(problems) or None


_TOML_AT = "(at line "


def located(message: str) -> str:
    """A configuration error's message with the line of the file it is about: ``PATH:LINE: ...``.

    A TOML error says its line; a bad value is found by its key's line. The
    message is kept as it is when no line can be told.
    """
    head, colon, rest = message.partition(": ")
    if not colon or not os.path.isabs(head):
        return message
    at = re.search(r"\(at line (\d+), column \d+\)", rest)
    if at is not None:
        return f"{head}:{at.group(1)}: {rest}"
    keys = (*_SETTING_KEYS, *(key for key, _ in _ENVIRONMENT_KEYS))
    named = re.search(r"(?:\]|^|\s)([a-z][a-z-]*)(?:\[\d+\])?\s", rest + " ")
    key = named.group(1) if named is not None and named.group(1) in keys else None
    return message if key is None else _located_key(message, head, key)


def _located_key(message: str, path: str, key: str) -> str:
    """``message`` (``PATH: ...``) as ``PATH:LINE: ...``, LINE that of ``key =`` in ``path``."""
    try:
        data = (read_pyproject(path) if path.endswith(PYPROJECT) else read_user_config(path)) or b""
    except (OSError, ConfigError):
        return message
    pattern = re.compile(rb"""\s*["']?""" + re.escape(key.encode()) + rb"""["']?\s*=""")
    for number, line in enumerate(data.splitlines(), start=1):
        if pattern.match(line):
            return f"{path}:{number}: {message.removeprefix(path + ': ')}"
    return message


def layers(root: str | Unknown, environ: Mapping[str, str]) -> tuple[Settings, ...]:
    """The layers that set anything, the weakest first: user file, checkout, environment."""
    found = (read() for _path, read in _readers(root, environ))
    return tuple(layer for layer in found if layer is not DEFAULTS)


def _readers(
    root: str | Unknown, environ: Mapping[str, str]
) -> list[tuple[str, Callable[[], Settings]]]:
    """Each layer's file (``""`` for the environment) and its reader, the weakest first."""
    readers: list[tuple[str, Callable[[], Settings]]] = []
    user_path = user_config_path(environ)
    if user_path is not None:
        readers.append((user_path, lambda: _cached(user_path, _user_settings)))
    if isinstance(root, str):
        readers.append((os.path.join(root, PYPROJECT), lambda: _file_settings(root)))
    readers.append(("", lambda: environment_settings(environ)))
    return readers


def merged(over: Sequence[Settings]) -> Settings:
    """The settings of ``over`` (the weakest first), by one rule for every field.

    A field a stronger layer sets wins (runner rows are put together, the
    stronger layer's first; the thresholds and the sources key by key).
    """
    if not over:
        return DEFAULTS
    result = over[0]
    for layer in over[1:]:
        values = {
            name: _MERGE.get(name, _stronger)(getattr(result, name), getattr(layer, name))
            for name in _FIELDS
        }
        result = result.replaced(**values)
    return result


_FIELDS = tuple(field.name for field in attrs.fields(Settings))


def _stronger(weaker: object, stronger: object) -> object:
    """The stronger layer's value when it sets one (not None, not empty)."""
    return weaker if stronger is None or stronger in ("", ()) else stronger


_ENVIRONMENT_KEYS = (
    (MODE_ENV, MODE_KEY),
    (SHARED_TREE_ENV, SHARED_TREE_KEY),
    (BUSY_BOX_ENV, BUSY_BOX_KEY),
    (ENVIRONMENT_CHANGE_ENV, ENVIRONMENT_CHANGE_KEY),
    (WATCHER_ENV, WATCHER_KEY),
)


def environment_settings(environ: Mapping[str, str]) -> Settings:
    """The layer ``environ`` sets (``$RUNCTX_ON_...``), validated; the defaults when none."""
    table = {key: environ[name] for name, key in _ENVIRONMENT_KEYS if environ.get(name, "")}
    if not table:
        return DEFAULTS
    where = {key: f"${name}" for name, key in _ENVIRONMENT_KEYS}
    return settings_of_table(table, "", where=where, layer=ENVIRONMENT_LAYER)


def _merged(
    under: tuple[tuple[str, object], ...], over: tuple[tuple[str, object], ...]
) -> tuple[tuple[str, object], ...]:
    """The pairs of ``under`` and ``over``, those of ``over`` winning, in a stable order."""
    if not under:
        return over
    if not over:
        return under
    values = dict(under) | dict(over)
    order = (*(name for _, name, _, _ in _THRESHOLDS), _BOX_FIELD)
    known = [name for name in order if name in values]
    rest = [name for name in values if name not in order]
    return tuple((name, values[name]) for name in (*known, *rest))


def _rows(weaker: tuple[object, ...], stronger: tuple[object, ...]) -> object:
    return (*stronger, *weaker)


def _problems(weaker: object, stronger: object) -> object:
    return "; ".join(text for text in (weaker, stronger) if isinstance(text, str) and text)


_MERGE: dict[str, Callable[[Any, Any], object]] = {
    "problem": _problems,
    "runners": _rows,
    "watchers": _rows,
    "busy_given": _merged,
    "sources": _merged,
}


def _cached(path: str, read: Callable[[str], Settings]) -> Settings:
    """``read(path)``, once per version of the file; the defaults when there is none."""
    try:
        info = os.stat(path)
    except OSError:
        return DEFAULTS
    signature = (info.st_ino, info.st_size, info.st_mtime_ns)
    hit = _CACHE.get(path)
    if hit is not None and hit[0] == signature:
        return hit[1]
    settings = read(path)
    _CACHE[path] = (signature, settings)
    return settings


def _file_settings(root: str) -> Settings:
    path = os.path.join(root, PYPROJECT)
    if not trusted_settings_file(path):
        return DEFAULTS
    return _cached(path, lambda found: settings_of_table(runctx_table(found), found))


def trusted_settings_file(path: str) -> bool:
    """Whether the checkout's ``pyproject.toml`` at ``path`` may set anything: who made it.

    The rule of the checkout markers (:func:`runctx.checkout.rules_for`): the
    file, or the link at ``path`` (not followed), is owned by root, by the
    calling user, or, for a root caller started by ``sudo``, by the invoking
    user. A root with no trusted marker is the directory itself, so in a
    shared directory (``cd /tmp``) another user could otherwise set the modes
    of every run there, point a link at a file that must not be read, or leave
    a FIFO that turns every hook into an error. Such a file is not read: the
    checkout has the defaults (and the user's own settings). No file is
    trusted too: there is nothing to read.
    """
    if trusted(path):
        return True
    log_event("runctx.settings_ignored", path=path, why="not a trusted owner")
    return False


def _user_settings(path: str) -> Settings:
    found = settings_of_table(user_table(path), path, where=path, layer=USER_LAYER)
    return found.replaced(path="", user_path=path)


def settings_of_table(
    table: Mapping[str, object],
    path: str,
    *,
    where: str | Mapping[str, str] | None = None,
    layer: str = CHECKOUT_LAYER,
) -> Settings:
    """Validate a ``[tool.runctx]`` table read from ``path`` into a :class:`Settings`.

    ``where`` names the table in errors (``PATH: [tool.runctx]`` by default),
    or each key (a mapping: the environment names its variables); ``layer``
    is recorded as the source of every key set.
    """
    base = where if isinstance(where, str) else f"{path}: [tool.runctx]"

    def at(key: str) -> str:
        if isinstance(where, str) or where is None:
            return f"{base} {key}"
        return where.get(key, f"{base} {key}")

    modes = {
        field: parse_mode(table[key], at(key), allowed)
        for key, field, allowed in _MODE_KEYS
        if key in table
    }
    entries = table.get(RUNNERS_KEY, [])
    if not isinstance(entries, list):
        msg = f"{at(RUNNERS_KEY)} must be an array of tables"
        raise ConfigError(msg)
    runners = tuple(
        runner_of_entry(entry, f"{base} runners[{n}]") for n, entry in enumerate(entries)
    )
    watchers = parse_watchers(table.get(WATCHERS_KEY, []), at(WATCHERS_KEY))
    # a declared watcher is a run of its own, recognised wherever it runs
    runners += tuple(
        runner_of_entry({"kind": name, "program": name}, f"{base} watchers")
        for name in watchers
        if not any(name in row.programs for row in runners)
    )
    sources = tuple((key, layer) for key in _SETTING_KEYS if key in table)
    note = table.get(FOREIGN_NOTE_KEY)
    return Settings(
        path,
        runners,
        busy_given=busy_given_of_table(table, base, at),
        sources=sources,
        watchers=watchers,
        foreign_note=None
        if note is None
        else parse_choice(note, at(FOREIGN_NOTE_KEY), FOREIGN_NOTE_CHOICES),
        **modes,
    )


_MODE_KEYS = (
    # key, Settings field, the modes it allows
    (MODE_KEY, "on_same_checkout", tuple(Mode)),
    (SHARED_TREE_KEY, "on_shared_tree", SHARED_TREE_MODES),
    (ENVIRONMENT_CHANGE_KEY, "on_environment_change", ENVIRONMENT_CHANGE_MODES),
    (WATCHER_KEY, "on_watcher", WATCHER_MODES),
)


def parse_choice(value: object, where: str, choices: tuple[str, ...]) -> str:
    """``value`` when it is one of ``choices``; else a ConfigError saying ``where``."""
    if isinstance(value, str) and value in choices:
        return value
    named = ", ".join(f'"{choice}"' for choice in choices)
    msg = f"{where} must be one of {named}, got {value!r}"
    raise ConfigError(msg)


def parse_watchers(value: object, where: str) -> tuple[str, ...]:
    """``watchers``: program names, each a run of its own that re-runs on change."""
    if not isinstance(value, list) or not all(
        isinstance(name, str) and name and "/" not in name for name in value
    ):
        msg = f"{where} must be a list of program names (no path), got {value!r}"
        raise ConfigError(msg)
    return tuple(value)


def busy_given_of_table(
    table: Mapping[str, object], where: str, at: Callable[[str], str] | None = None
) -> BusyGiven:
    """The thresholds and ``on-busy-box`` a table sets, validated (``where`` names it)."""
    name_of = at if at is not None else (lambda key: f"{where} {key}")
    given: list[tuple[str, object]] = []
    for key, name, largest, can_be_off in _THRESHOLDS:
        if key in table:
            value = parse_threshold(table[key], name_of(key), largest, can_be_off=can_be_off)
            given.append((name, value))
    if BUSY_BOX_KEY in table:
        given.append((_BOX_FIELD, parse_box_mode(table[BUSY_BOX_KEY], name_of(BUSY_BOX_KEY))))
    return tuple(given)


def parse_threshold(
    value: object, where: str, largest: float, *, can_be_off: bool = False
) -> float | None:
    """``value`` as a number from 0 to ``largest`` (``false``: None, where allowed).

    Anything else is a :class:`ConfigError` saying ``where``.
    """
    if value is False and can_be_off:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
        if 0 <= number <= largest:
            return number
    off = " (or false to turn it off)" if can_be_off else ""
    msg = f"{where} must be a number from 0 to {largest:g}{off}, got {value!r}"
    raise ConfigError(msg)


def parse_box_mode(value: object, where: str) -> BoxMode:
    """``value`` as an ``on-busy-box`` mode, or a :class:`ConfigError` saying ``where``."""
    return BoxMode(parse_choice(value, where, tuple(mode.value for mode in BoxMode)))


def parse_mode(value: object, where: str, allowed: tuple[Mode, ...] | None = None) -> Mode:
    """``value`` as one of the ``allowed`` modes (default: all), or a ConfigError at ``where``."""
    choices = tuple(mode.value for mode in (Mode if allowed is None else allowed))
    return Mode(parse_choice(value, where, choices))


def runner_of_entry(entry: object, where: str) -> RunnerPattern:
    """The runner row of one ``runners`` entry, or a ConfigError naming ``where`` it is."""
    if not isinstance(entry, dict):
        msg = f"{where} must be a table like {{ kind = ..., program = ... }}, got {entry!r}"
        raise ConfigError(msg)
    unknown = sorted(set(entry) - _RUNNER_KEYS)
    if unknown:
        known = ", ".join(sorted(_RUNNER_KEYS))
        keys = "key" if len(unknown) == 1 else "keys"
        msg = f"{where} {entry!r}: unknown {keys} {', '.join(unknown)} (known: {known})"
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


def _unknown_keys(path: str) -> list[str]:
    """A warning for each key of ``[tool.runctx]`` in ``path`` runctx does not know."""
    table = runctx_table(path)
    unknown = sorted(str(key) for key in table if key not in _SETTING_KEYS)
    return [
        _located_key(f"{path}: [tool.runctx] {key}: not a runctx setting, ignored", path, key)
        + f" (known: {', '.join(_SETTING_KEYS)})"
        for key in unknown
    ]
