"""One configuration: a checkout's ``[tool.runctx]`` and the user's own file, read once.

Every face (the hooks, ``runctx run``, ``wait``, ``status``, the pytest plugin)
asks :func:`settings_for` with the checkout root and gets one
:class:`Settings` value: the runner table (the checkout's rows, then the
user's, then the builtin ones) and the ``on-same-checkout`` mode. Two files
feed it, one rule for every face:

- ``ROOT/pyproject.toml``'s ``[tool.runctx]``, where ROOT is the checkout root
  (:func:`runctx.checkout.checkout_root`);
- the user's configuration file, the same keys at its top level:
  ``$RUNCTX_CONFIG`` if set, else ``$XDG_CONFIG_HOME/runctx/config.toml``,
  else ``~/.config/runctx/config.toml`` (:func:`user_config_path`). Its runners
  are recognised from every checkout, so a custom runner's load is seen (and
  reported as foreign) wherever the user stands.

The checkout's mode wins over the user's; ``$RUNCTX_ON_SAME_CHECKOUT`` over
both. The keys are documented in ``docs/configuration.md``.

Imported on the hook's hot path: standard library only (``os`` and ``enum``,
which ``json`` has loaded already); ``tomllib`` only for a file that may hold
the table at all, the runner table itself only when a command names a runner
(:attr:`Settings.names` needs no table).
"""

from __future__ import annotations

import os

from runctx._record import LightRecord
from runctx.shell.prefilter import BUILTIN_NAMES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from runctx.exceptions import ConfigError
    from runctx.modes import Mode
    from runctx.runners.pattern import RunnerPattern
    from runctx.unknown import Unknown

PYPROJECT = "pyproject.toml"
CONFIG_ENV = "RUNCTX_CONFIG"
"""A path to the user's configuration file, instead of the XDG location."""
USER_CONFIG = os.path.join("runctx", "config.toml")
"""The user's configuration file, under ``$XDG_CONFIG_HOME`` (default ``~/.config``)."""
MAX_PYPROJECT_BYTES = 1024 * 1024
"""A pyproject.toml larger than this (1 MiB) is read no further."""

_DOTTED = (b"tool.runctx", b'tool."runctx"', b"tool.'runctx'")
_KEYS = (b"runctx", b'"runctx"', b"'runctx'")


def _error(message: str) -> ConfigError:
    """A :class:`~runctx.exceptions.ConfigError` (its module loads only when one is raised)."""
    from runctx.exceptions import ConfigError  # noqa: PLC0415 - errors are rare

    return ConfigError(message)


def _name_goes_on(following: bytes) -> bool:
    """Whether the byte after ``runctx`` continues a longer key (``runctxx``)."""
    return following.isalnum() or following in (b"_", b"-")


def mentions_runctx_table(data: bytes) -> bool:
    """Whether a TOML text may hold a ``[tool.runctx]`` table, in any spelling.

    ``[tool.runctx]``, ``[tool."runctx"]``, ``tool.runctx.x = …``, or a
    ``runctx`` key under a ``[tool]`` header. A text without any of these has no
    runctx settings, so it is not parsed at all: a project that merely names
    runctx (a dependency, an entry point ``runctx = "..."``) is not parsed
    either. Plain byte operations, line by line: no regex to compile on the
    hook's path.
    """
    if b"runctx" not in data:
        return False
    header = b""
    for raw in data.splitlines():
        line = raw.strip()
        if b"runctx" in line:
            squeezed = line.replace(b" ", b"").replace(b"\t", b"")
            for dotted in _DOTTED:
                at = squeezed.find(dotted)
                if at >= 0 and not _name_goes_on(squeezed[at + len(dotted) : at + len(dotted) + 1]):
                    return True
            if header == b"tool" and squeezed.startswith(_KEYS):
                rest = squeezed[len(next(k for k in _KEYS if squeezed.startswith(k))) :]
                if rest[:1] in (b".", b"="):
                    return True
        if line.startswith(b"["):
            header = line.strip(b"[]").strip()
    return False


def read_pyproject(path: str) -> bytes | None:
    """The bytes of a pyproject.toml (at most 1 MiB), None when there is none."""
    try:
        with open(path, "rb") as stream:
            return stream.read(MAX_PYPROJECT_BYTES)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        msg = f"{path}: cannot read: {error.strerror or error}"
        raise _error(msg) from error


def user_config_path(environ: Mapping[str, str]) -> str | None:
    """Where the user's configuration file is, or None when ``environ`` says no home.

    ``$RUNCTX_CONFIG``, else ``$XDG_CONFIG_HOME/runctx/config.toml`` (an
    absolute ``XDG_CONFIG_HOME`` only, as the XDG specification says), else
    ``$HOME/.config/runctx/config.toml``.
    """
    explicit = environ.get(CONFIG_ENV, "")
    if explicit:
        return explicit
    xdg = environ.get("XDG_CONFIG_HOME", "")
    if os.path.isabs(xdg):
        return os.path.join(xdg, USER_CONFIG)
    home = environ.get("HOME", "")
    if home:
        return os.path.join(home, ".config", USER_CONFIG)
    return None


def user_table(path: str) -> dict[str, object]:
    """The whole of the user's configuration file at ``path``; ``{}`` when there is none."""
    data = read_pyproject(path)
    if data is None:
        return {}
    import tomllib  # noqa: PLC0415 - only a user who configures runctx pays for it

    try:
        return tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        msg = f"{path}: invalid TOML: {error}"
        raise _error(msg) from error


def runctx_table(path: str) -> dict[str, object]:
    """``[tool.runctx]`` of the pyproject.toml at ``path``; ``{}`` when there is none.

    A file that cannot be read or parsed, or a ``tool.runctx`` that is not a
    table, raises :class:`ConfigError` naming the file.
    """
    data = read_pyproject(path)
    if data is None or not mentions_runctx_table(data):
        return {}
    import tomllib  # noqa: PLC0415 - only a checkout that configures runctx pays for it

    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        msg = f"{path}: invalid TOML: {error}"
        raise _error(msg) from error
    tools = document.get("tool", {})
    table = tools.get("runctx", {}) if isinstance(tools, dict) else None
    if not isinstance(table, dict):
        msg = f"{path}: [tool.runctx] must be a table"
        raise _error(msg)
    return table


# --------------------------------------------------------------------------- the settings value

MODE_KEY = "on-same-checkout"
MODE_ENV = "RUNCTX_ON_SAME_CHECKOUT"
RUNNERS_KEY = "runners"


_RUNNER_KEYS = frozenset(
    {"kind", "role", "program", "module", "args", "any_args", "not_with", "value_options"}
)


class Settings(LightRecord):
    """The runctx settings of one checkout, validated: every face reads this value.

    ``path`` is the ``pyproject.toml`` they came from and ``user_path`` the
    user's configuration file (each ``""`` when none was read); ``runners``
    the rows of both, the checkout's first (``patterns`` puts them in front
    of the builtin table); ``on_same_checkout`` the mode set by the
    environment, the checkout or the user, or None when none sets it (``mode``
    then gives the default).
    """

    __slots__ = ("_names", "_patterns", "on_same_checkout", "path", "runners", "user_path")

    path: str
    runners: tuple[RunnerPattern, ...]
    on_same_checkout: Mode | None
    user_path: str
    _patterns: list[tuple[RunnerPattern, ...]]
    _names: list[tuple[str, ...]]

    def __init__(
        self,
        path: str = "",
        runners: tuple[RunnerPattern, ...] = (),
        on_same_checkout: Mode | None = None,
        user_path: str = "",
    ) -> None:
        """Hold validated values."""
        self._hold(
            path=path,
            runners=runners,
            on_same_checkout=on_same_checkout,
            user_path=user_path,
            _patterns=[],
            _names=[],
        )

    @property
    def patterns(self) -> tuple[RunnerPattern, ...]:
        """The runner table: the configured rows first, then the builtin ones (one tuple, kept)."""
        if not self._patterns:
            from runctx.runners.table import BUILTIN_PATTERNS  # noqa: PLC0415 - a runner is named

            table = (*self.runners, *BUILTIN_PATTERNS) if self.runners else BUILTIN_PATTERNS
            self._patterns.append(table)
        return self._patterns[0]

    @property
    def names(self) -> tuple[str, ...]:
        """Every program, module and code name of :attr:`patterns`, without building it."""
        if not self._names:
            from runctx.runners.needles import names_of  # noqa: PLC0415 - configured rows only

            extra = names_of(self.runners) if self.runners else ()
            self._names.append(tuple(sorted({*BUILTIN_NAMES, *extra})) if extra else BUILTIN_NAMES)
        return self._names[0]

    @property
    def mode(self) -> Mode:
        """``on_same_checkout``, or the default (``stop``) when nothing sets it."""
        from runctx.modes import DEFAULT_MODE  # noqa: PLC0415 - see the module docstring

        return self.on_same_checkout or DEFAULT_MODE


DEFAULTS = Settings()
"""The settings of a checkout that sets nothing, for a user who sets nothing."""

_CACHE: dict[str, tuple[tuple[int, int, int], Settings]] = {}


def settings_for(root: str | Unknown, environ: Mapping[str, str] | None = None) -> Settings:
    """The settings of the checkout at ``root``: its pyproject, the user's file, the environment.

    ``$RUNCTX_ON_SAME_CHECKOUT`` overrides ``on-same-checkout``. A checkout that
    cannot be identified has the user's settings alone. Each file is read and
    validated once while it stays unchanged. A malformed file, table or value
    raises :class:`~runctx.exceptions.ConfigError` naming the file and the key.
    """
    environ = os.environ if environ is None else environ
    found = _file_settings(root) if isinstance(root, str) else DEFAULTS
    user_path = user_config_path(environ)
    user = _cached(user_path, _user_settings) if user_path is not None else DEFAULTS
    if user is not DEFAULTS:
        found = Settings(
            found.path,
            (*found.runners, *user.runners),
            found.on_same_checkout or user.on_same_checkout,
            user.user_path,
        )
    override = environ.get(MODE_ENV, "")
    if not override:
        return found
    mode = parse_mode(override, f"${MODE_ENV}")
    return Settings(found.path, found.runners, mode, found.user_path)


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
    return _cached(os.path.join(root, PYPROJECT), _pyproject_settings)


def _pyproject_settings(path: str) -> Settings:
    return settings_of_table(runctx_table(path), path)


def _user_settings(path: str) -> Settings:
    found = settings_of_table(user_table(path), path, where=path)
    return Settings("", found.runners, found.on_same_checkout, path)


def settings_of_table(
    table: Mapping[str, object], path: str, *, where: str | None = None
) -> Settings:
    """Validate a ``[tool.runctx]`` table read from ``path`` into a :class:`Settings`.

    ``where`` names the table in errors (``PATH: [tool.runctx]`` by default).
    """
    where = where if where is not None else f"{path}: [tool.runctx]"
    mode = None
    if MODE_KEY in table:
        mode = parse_mode(table[MODE_KEY], f"{where} {MODE_KEY}")
    entries = table.get(RUNNERS_KEY, [])
    if not isinstance(entries, list):
        msg = f"{where} {RUNNERS_KEY} must be an array of tables"
        raise _error(msg)
    runners = tuple(
        runner_of_entry(entry, f"{where} runners[{n}]") for n, entry in enumerate(entries)
    )
    return Settings(path, runners, mode)


def parse_mode(value: object, where: str) -> Mode:
    """``value`` as a :class:`Mode`, or a :class:`ConfigError` that says ``where`` it came from."""
    from runctx.modes import Mode  # noqa: PLC0415 - see the module docstring

    if isinstance(value, str):
        try:
            return Mode(value)
        except ValueError:
            pass
    choices = ", ".join(f'"{mode.value}"' for mode in Mode)
    msg = f"{where} must be one of {choices}, got {value!r}"
    raise _error(msg)


def runner_of_entry(entry: object, where: str) -> RunnerPattern:
    """The runner row of one ``runners`` entry, or a ConfigError naming ``where`` it is."""
    if not isinstance(entry, dict):
        msg = f"{where} must be a table like {{ kind = ..., program = ... }}, got {entry!r}"
        raise _error(msg)
    unknown = sorted(set(entry) - _RUNNER_KEYS)
    if unknown:
        known = ", ".join(sorted(_RUNNER_KEYS))
        msg = f"{where} {entry!r}: unknown key(s) {', '.join(unknown)} (known: {known})"
        raise _error(msg)
    if "program" not in entry and "module" not in entry:
        msg = f"{where} {entry!r}: needs 'program' or 'module'"
        raise _error(msg)
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
            raise _error(msg)
    from runctx.runners.pattern import DEFAULT_NOT_WITH, RUNNER_ROLE, RunnerPattern  # noqa: PLC0415

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
        raise _error(msg) from error


if not TYPE_CHECKING:

    def __getattr__(name: str) -> object:
        """``Mode`` and ``DEFAULT_MODE``, from :mod:`runctx.modes` on first use."""
        if name in {"Mode", "DEFAULT_MODE"}:
            import runctx.modes  # noqa: PLC0415

            return getattr(runctx.modes, name)
        msg = f"module 'runctx.settings' has no attribute {name!r}"
        raise AttributeError(msg)
