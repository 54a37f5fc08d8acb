"""tox and nox environments: what ``tox -e lint`` or ``nox -s docs`` runs, read from the project.

``tox`` and ``nox`` are test runs by default, but an environment (a session)
runs whatever its commands say: ``tox -e lint`` running ruff, or
``nox -s docs`` running sphinx, runs no test. When a command names its
environments (``tox -e a,b``, ``tox run -e a``, ``nox -s a b``,
``nox --session a``) and each of them can be read, their commands are what the
shell parser judges: the command is no run when none of them starts one.
Anything not known (no environment named, a name made of a variable, ``-f``
factors, ``-m`` labels, ``-t`` tags, a section or session not found, a command
made at run time) leaves the command a run, as its name says.

Read:

- tox: ``tox.ini``, ``setup.cfg`` (``[tox:tox]``), ``pyproject.toml``
  (``legacy_tox_ini``, or native ``[tool.tox]`` with ``env_run_base`` and
  ``env.NAME``) and ``tox.toml`` (the same native tables at its top level),
  in that order. An environment's section is ``[testenv:NAME]``, also by
  brace expansion (``[testenv:docs-{build,linkcheck}]``) and through
  ``base``/``[testenv]`` when it sets no ``commands``; factor conditions
  (``tests: pytest``, ``py312,py313: ...``, ``!lint: ...``) keep the lines
  that apply; ``{posargs:DEFAULT}`` gives its default; a reference to
  another section (``{[testenv]commands}``) makes it unknown.
- nox: ``noxfile.py``, parsed (never run): each ``@nox.session`` function
  (its ``name=`` or its own name) and the ``session.run(...)`` calls of its
  body whose program is a literal string, with those of the noxfile's own
  functions it calls (``tests_impl(session)``, ``mypy(session)``), a few
  calls deep. A session whose program is not a literal, or that calls a
  function not read, is unknown.

Files come through the command's bounded reader (:mod:`.files`); nothing here
raises on what it reads.
"""

from __future__ import annotations

import ast
import configparser
import os
import tomllib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from runctx.runners.tasks.files import ProjectFiles

MAX_ENVIRONMENTS = 16
"""Environments read for one command, at most; more leave the command a run."""
MAX_EXPANSIONS = 64
"""Names a brace-expanded section name gives, at most."""

_TOX_ENV_OPTIONS = frozenset({"-e", "--env"})
_TOX_UNKNOWN_OPTIONS = frozenset({"-f", "-m", "--labels", "--factors"})
_NOX_SESSION_OPTIONS = frozenset({"-s", "-e", "--session", "--sessions"})
_NOX_UNKNOWN_OPTIONS = frozenset({"-t", "--tags", "-k", "-p", "--python", "--pythons"})


def named_environments(kind: str, argv: Sequence[str]) -> tuple[str, ...] | None:
    """The environments (sessions) ``argv`` names for ``kind`` (``tox``/``nox``), or None.

    None when none is named, or when what is named is not plain (a variable,
    ``ALL``, factors, labels, tags, keywords).
    """
    start = max((i for i, word in enumerate(argv) if word.rpartition("/")[2] == kind), default=-1)
    if start < 0:
        return None
    env_options, unknown = (
        (_TOX_ENV_OPTIONS, _TOX_UNKNOWN_OPTIONS)
        if kind == "tox"
        else (_NOX_SESSION_OPTIONS, _NOX_UNKNOWN_OPTIONS)
    )
    names = _option_values(list(argv[start + 1 :]), env_options, unknown, one=kind == "tox")
    if names is None:
        return None
    names = [name for name in names if name]
    if not names or len(names) > MAX_ENVIRONMENTS:
        return None
    if any(not _plain(name) or name == "ALL" for name in names):
        return None
    return tuple(dict.fromkeys(names))


def _option_values(
    args: list[str], options: frozenset[str], unknown: frozenset[str], *, one: bool
) -> list[str] | None:
    """The values of ``options`` in ``args`` (comma lists split); None when ``unknown`` is used.

    With ``one``, an option takes one word, else every word up to the next option.
    """
    names: list[str] = []
    i = 0
    while i < len(args) and args[i] != "--":
        arg = args[i]
        option, equal, value = arg.partition("=")
        short = not arg.startswith("--") and len(arg) > 2  # noqa: PLR2004 - ``-elint``
        if option in unknown or (short and arg[:2] in unknown):
            return None
        i += 1
        if option in options and equal:
            names.extend(value.split(","))
        elif option in options:
            while i < len(args) and not args[i].startswith("-"):
                names.extend(args[i].split(","))
                i += 1
                if one:
                    break
        elif short and arg[:2] in options:
            names.extend(arg[2:].split(","))
    return names


def _plain(name: str) -> bool:
    """Whether ``name`` is written out (no variable, no glob, no expression)."""
    return not any(c in name for c in "${}*?[]`'\"()")


def commands_of(
    kind: str, argv: Sequence[str], directory: str, files: ProjectFiles
) -> list[str] | None:
    """The command texts of the environments ``argv`` names, or None when any is not known."""
    names = named_environments(kind, argv)
    if names is None:
        return None
    if kind == "tox":
        return _tox_commands(names, directory, files)
    return _nox_commands(names, directory, files)


def _tox_commands(names: Sequence[str], directory: str, files: ProjectFiles) -> list[str] | None:
    config = _tox_config(directory, files)
    if config is None:
        return None
    texts: list[str] = []
    for name in names:
        found = config.commands(name)
        if found is None:
            return None
        texts.extend(found)
    return texts


def _nox_commands(names: Sequence[str], directory: str, files: ProjectFiles) -> list[str] | None:
    sessions = files.parsed(os.path.join(directory, "noxfile.py"), _nox_sessions)
    if not isinstance(sessions, dict):
        return None
    texts: list[str] = []
    for name in names:
        found = sessions.get(name)
        if not isinstance(found, list):
            return None
        texts.extend(found)
    return texts


# --- tox ---------------------------------------------------------------------------


class _ToxConfig:
    """The environments of a tox configuration: each section's commands and base."""

    __slots__ = ("base", "sections")

    def __init__(self) -> None:
        """Start empty: ``sections`` maps an environment name to its settings."""
        self.sections: dict[str, dict[str, object]] = {}
        self.base: dict[str, object] = {}

    def commands(self, name: str) -> list[str] | None:
        """The commands environment ``name`` runs, or None when they are not known."""
        section = self.sections.get(name)
        if section is None:
            if not _python_factors_only(name):
                return None  # an environment of the envlist made otherwise: not known
            section = {}
        lines = section.get("commands")
        if lines is None:
            lines = self.base.get("commands")
        if not isinstance(lines, list):
            return None
        factors = set(name.split("-"))
        texts = []
        for line in lines:
            applied = _applied(str(line), factors)
            if applied is None:
                continue
            if "{[" in applied:
                return None  # a reference to another section: not read
            texts.append(_substituted(applied))
        return texts


def _python_factors_only(name: str) -> bool:
    """Whether ``name`` is made of python factors only (``py312``, ``3.13``, ``pypy3``)."""
    return all(
        f.startswith(("py", "pypy")) or f.replace(".", "").isdigit() for f in name.split("-") if f
    )


def _applied(line: str, factors: set[str]) -> str | None:
    """``line`` without its factor condition when the condition holds for ``factors``, or None."""
    head, colon, rest = line.partition(":")
    if not colon or " " in head.strip() or not head.strip() or rest[:1] not in {" ", ""}:
        return line
    for alternative in head.strip().split(","):
        wanted = [f for f in alternative.split("-") if f]
        if all((f[1:] not in factors) if f.startswith("!") else (f in factors) for f in wanted):
            return rest.strip()
    return None


def _substituted(line: str) -> str:
    """A tox command line with its substitutions made plain: ``{posargs:DEFAULT}`` gives DEFAULT."""
    out = line.removeprefix("-").strip()
    for name, value in (("{envpython}", "python"), ("{envbindir}/", ""), ("{posargs}", "")):
        out = out.replace(name, value)
    at = out.find("{posargs:")
    if at >= 0:
        end = out.find("}", at)
        if end > at:
            out = out[:at] + out[at + len("{posargs:") : end] + out[end + 1 :]
    return out


def _tox_config(directory: str, files: ProjectFiles) -> _ToxConfig | None:
    """The tox configuration of ``directory``, in tox's order of files, or None."""
    for name, parse in (
        ("tox.ini", _tox_ini),
        ("setup.cfg", _setup_cfg),
        ("pyproject.toml", _pyproject),
        ("tox.toml", _tox_toml),
    ):
        path = os.path.join(directory, name)
        if not os.path.isfile(path):
            continue
        found = files.parsed(path, parse)
        if isinstance(found, _ToxConfig):
            return found
        if name == "tox.ini":
            return None  # tox.ini is tox's, whether it can be read or not
    return None


def _tox_ini(data: bytes) -> _ToxConfig | None:
    return _from_ini(data.decode("utf-8", errors="replace"), "tox")


def _setup_cfg(data: bytes) -> _ToxConfig | None:
    return _from_ini(data.decode("utf-8", errors="replace"), "tox:tox")


def _from_ini(text: str, main: str) -> _ToxConfig | None:
    """The environments of a tox ini text (``main`` is its ``[tox]`` section's name)."""
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    if not parser.has_section(main) and not any(
        s == "testenv" or s.startswith("testenv:") for s in parser.sections()
    ):
        return None
    config = _ToxConfig()
    for section in parser.sections():
        settings: dict[str, object] = {}
        if parser.has_option(section, "commands"):
            settings["commands"] = _ini_lines(parser.get(section, "commands"))
        if section == "testenv":
            config.base = settings
        elif section.startswith("testenv:"):
            for name in _expanded(section.removeprefix("testenv:").strip()):
                config.sections.setdefault(name, settings)
    return config


def _ini_lines(value: str) -> list[str]:
    """The command lines of an ini value: continuation lines joined, comments dropped."""
    lines: list[str] = []
    for raw in value.replace("\\\n", " ").splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            lines.append(line)
    return lines


def _expanded(name: str) -> list[str]:
    """The names a section name stands for: ``a-{b,c}`` gives ``a-b`` and ``a-c`` (bounded)."""
    names = [name]
    for _ in range(8):
        grown: list[str] = []
        for item in names:
            opening = item.find("{")
            closing = item.find("}", opening)
            if opening < 0 or closing < 0:
                grown.append(item)
                continue
            grown.extend(
                item[:opening] + choice + item[closing + 1 :]
                for choice in item[opening + 1 : closing].split(",")
            )
        names = grown[:MAX_EXPANSIONS]
        if all("{" not in item for item in names):
            break
    return [n.strip() for n in names for n in n.split(",") if n.strip()]


def _pyproject(data: bytes) -> _ToxConfig | None:
    """The tox configuration of a ``pyproject.toml``: ``legacy_tox_ini`` or native tables."""
    table = tomllib.loads(data.decode("utf-8", errors="replace")).get("tool", {}).get("tox")
    if not isinstance(table, dict):
        return None
    legacy = table.get("legacy_tox_ini")
    if isinstance(legacy, str):
        return _from_ini(legacy, "tox")
    return _native(table)


def _tox_toml(data: bytes) -> _ToxConfig | None:
    """The tox configuration of a ``tox.toml``: the native tables at its top level."""
    return _native(tomllib.loads(data.decode("utf-8", errors="replace")))


def _native(table: dict[str, object]) -> _ToxConfig:
    """The environments of tox's native TOML tables (``env_run_base``, ``env.NAME``)."""
    config = _ToxConfig()
    base = table.get("env_run_base")
    if isinstance(base, dict) and "commands" in base:
        config.base = {"commands": _toml_lines(base["commands"])}
    environments = table.get("env")
    if isinstance(environments, dict):
        for name, settings in environments.items():
            if isinstance(settings, dict):
                found: dict[str, object] = {}
                if "commands" in settings:
                    found["commands"] = _toml_lines(settings["commands"])
                config.sections[str(name)] = found
    return config


def _toml_lines(commands: object) -> list[str] | None:
    """Native tox commands (a list of argv lists) as command lines; None when not plain."""
    if not isinstance(commands, list):
        return None
    lines = []
    for argv in commands:
        if not isinstance(argv, list):
            return None
        words = [w for w in argv if isinstance(w, str)]  # a {replace = ...} table adds arguments
        if not words or not isinstance(argv[0], str):
            return None
        lines.append(" ".join(words))
    return lines


# --- nox ---------------------------------------------------------------------------

MAX_NOX_HELPER_DEPTH = 3
"""How many calls deep a session's calls to the noxfile's own functions are followed."""


def _nox_sessions(data: bytes) -> dict[str, list[str] | None]:
    """Each session of a noxfile: the command lines it runs, or None when not known."""
    try:
        tree = ast.parse(data.decode("utf-8", errors="replace"))
    except SyntaxError as error:
        msg = "not a python file"
        raise ValueError(msg) from error
    defined = {
        node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    sessions: dict[str, list[str] | None] = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        name = _session_name(node)
        if name is not None:
            sessions[name] = _session_commands(node, defined, functions)
    return sessions


def _session_name(node: ast.FunctionDef) -> str | None:
    """The name of the nox session ``node`` defines, or None if it is no session."""
    for decorator in node.decorator_list:
        call = decorator if isinstance(decorator, ast.Call) else None
        target = call.func if call is not None else decorator
        named = ast.unparse(target)
        if named not in {"nox.session", "session"}:
            continue
        if call is not None:
            for keyword in call.keywords:
                if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                    return str(keyword.value.value)
        return node.name
    return None


def _session_commands(
    node: ast.FunctionDef,
    defined: set[str],
    functions: dict[str, ast.FunctionDef],
    depth: int = 0,
) -> list[str] | None:
    """The command lines of a session's ``session.run`` calls, or None when not known.

    A call to another function of the noxfile (a helper, or another session
    called as one: ``mypy(session)``) adds that function's lines, read the
    same way up to :data:`MAX_NOX_HELPER_DEPTH` calls deep; a function
    defined otherwise (async, nested) is not read.
    """
    lines: list[str] = []
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        if isinstance(call.func, ast.Name) and call.func.id in defined:
            helper = functions.get(call.func.id)
            if helper is None or helper is node or depth >= MAX_NOX_HELPER_DEPTH:
                return None  # not read: what it runs is not known
            found = _session_commands(helper, defined, functions, depth + 1)
            if found is None:
                return None
            lines.extend(found)
            continue
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr in {"run", "run_always"}):
            continue
        if not call.args or not isinstance(call.args[0], ast.Constant):
            return None
        words = [
            str(arg.value)
            for arg in call.args
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
        ]
        lines.append(" ".join(words))
    return lines
