"""The environment a run imports from, and the one a command would use or change.

Runs of different checkouts do not share files, but they may share one
Python environment (a virtualenv, a conda env) or one ``node_modules``:
``pip install -e .`` in one worktree then repoints the other worktree's live
run at its code. An :class:`Environment` is that shared place: its prefix (a
venv's directory, a conda env's, the interpreter's own prefix for a system
Python, a ``node_modules`` directory), as path text and as a directory
(device and inode), which is what two environments are compared by.

A run's environment (:func:`process_environment`) is found from facts of
its processes, in this order, each checked against the file the process
really executes (``/proc/PID/exe``: same device and inode):

1. ``argv[0]`` when it is a path (``.venv/bin/python``, or the interpreter a
   console script's ``#!`` line names): the venv a Python was started from
   shows there, since ``/proc/PID/exe`` is the file a venv's ``python``
   links to, the base interpreter;
2. ``$VIRTUAL_ENV/bin/NAME`` for a bare ``NAME`` in ``argv[0]`` (the
   variable is read only for the runs of the user asking);
3. ``/proc/PID/exe`` itself (a venv made with ``--copies``, a conda env, a
   system Python);
4. for node, a ``node_modules`` directory named by one of the first words of
   the command (``node /proj/node_modules/.bin/jest``).

A prefix is a venv when it holds ``pyvenv.cfg`` next to or above the
interpreter's directory (where CPython looks), a conda env when it holds
``conda-meta``, else the interpreter's system prefix (``/usr``). Every path
of a run is looked at inside that run's own view (:class:`View`: its
``/proc/PID/root`` and ``/proc/PID/cwd``); nothing is opened, only
``stat``-ed. A system prefix is shown, but never flagged as shared: every
Python of the box shares it, and changing it needs root.

What a shell command will use or change (:func:`command_environment`) is
found from the command itself and the hook's environment: a path to an
environment's program in its words, else the tool's rule (``uv``: the
project's ``.venv``; ``pdm``: its ``.pdm-python``, else ``.venv``; ``poetry``:
``$VIRTUAL_ENV``, else the project's ``.venv``; ``hatch``: the default
environment's ``path`` setting; ``npm``/``pnpm``/``yarn``: the package's
``node_modules``), else the program found on ``$PATH``. A ``source
VENV/bin/activate`` earlier in the command string sets ``$VIRTUAL_ENV`` and
puts ``VENV/bin`` first on ``$PATH`` for what follows (:func:`activated`).
"""

from __future__ import annotations

import os
import stat
import tomllib
from collections.abc import Iterable, Mapping, Sequence

import attrs

from runctx.checkout import nearest_holding
from runctx.planted import small_text, usable_path
from runctx.record_base import Record
from runctx.runners.walk import is_assignment, is_python
from runctx.runners.wrappers import WRAPPERS

VENV = "venv"
CONDA = "conda"
SYSTEM = "system"
NODE_MODULES = "node_modules"

MAX_PATH_ENTRIES = 64
"""The most ``$PATH`` entries looked through for a program."""
MAX_WORDS = 16
"""The words of a command looked at for a path to an environment's program."""

DirectoryId = tuple[int, int]


@attrs.frozen(repr=False, eq=False)
class Environment(Record):
    """Where a run's imports come from: a venv, a conda env, a system prefix, ``node_modules``.

    ``prefix`` is path text (as the process names it; made absolute with its
    cwd when it was relative); ``directory_id`` the directory it is, which is
    what :func:`same_environment` compares; ``found_by`` the fact it was found
    from (``argv[0]``, ``VIRTUAL_ENV``, ``/proc/PID/exe``, ...);
    ``interpreter`` the program path it was found through.
    """

    kind: str
    prefix: str
    directory_id: DirectoryId | None
    found_by: str
    interpreter: str = ""

    @property
    def shareable(self) -> bool:
        """Whether runs sharing it are worth flagging: anything but a system prefix."""
        return self.kind != SYSTEM and self.directory_id is not None


def same_environment(one: object, other: object) -> bool:
    """Whether two environments are known to be one directory."""
    if not isinstance(one, Environment) or not isinstance(other, Environment):
        return False
    return one.directory_id is not None and one.directory_id == other.directory_id


class View:
    """Paths as one process sees them: absolute ones under its root, relative ones from its cwd.

    ``root`` is a directory of ours that is that process's ``/`` (its
    ``/proc/PID/root``; empty for our own view); ``cwd`` the directory
    relative paths start from (its ``/proc/PID/cwd``, or a real path).
    """

    __slots__ = ("cwd", "root")

    def __init__(self, root: str = "", cwd: str = "") -> None:
        """Look at paths under ``root``, relative ones from ``cwd``."""
        self.root = root.rstrip("/")
        self.cwd = cwd

    def at(self, path: str) -> str:
        """The path of ours that names ``path`` as the process sees it."""
        if os.path.isabs(path):
            return self.root + path if self.root else path
        return os.path.join(self.cwd or os.curdir, path)

    def stat(self, path: str) -> os.stat_result | None:
        """``stat`` of ``path`` in this view, None when it cannot be."""
        try:
            return os.stat(self.at(path))
        except (OSError, ValueError):
            return None

    def is_file(self, path: str) -> bool:
        """Whether ``path`` is a regular file in this view."""
        found = self.stat(path)
        return found is not None and stat.S_ISREG(found.st_mode)

    def is_dir(self, path: str) -> bool:
        """Whether ``path`` is a directory in this view."""
        found = self.stat(path)
        return found is not None and stat.S_ISDIR(found.st_mode)

    def directory_id(self, path: str) -> DirectoryId | None:
        """The directory ``path`` is (device, inode), None when it is none."""
        found = self.stat(path)
        if found is None or not stat.S_ISDIR(found.st_mode):
            return None
        return (found.st_dev, found.st_ino)


def _shown(path: str, cwd: str | None) -> str:
    """``path`` as text for a report: absolute with ``cwd`` when it is relative."""
    if os.path.isabs(path) or not cwd:
        return os.path.normpath(path)
    return os.path.normpath(os.path.join(cwd, path))


def python_environment(
    view: View, interpreter: str, found_by: str, cwd: str | None = None
) -> Environment | None:
    """The environment of the Python at ``interpreter`` (a path in ``view``), None if not known.

    A venv holds ``pyvenv.cfg`` in the interpreter's directory or the one
    above; a conda env holds ``conda-meta`` above it; else the prefix is the
    directory above the interpreter's (``/usr`` of ``/usr/bin/python3``).
    """
    path = os.path.normpath(interpreter)
    bindir = os.path.dirname(path) or os.curdir
    parent = os.path.dirname(bindir) if bindir not in (os.curdir, "/") else bindir
    shown = _shown(path, cwd)
    for candidate in dict.fromkeys((bindir, parent)):
        if view.is_file(os.path.join(candidate, "pyvenv.cfg")):
            directory = view.directory_id(candidate)
            return Environment(VENV, _shown(candidate, cwd), directory, found_by, shown)
    kind = CONDA if view.is_dir(os.path.join(parent, "conda-meta")) else SYSTEM
    directory = view.directory_id(parent)
    if directory is None:
        return None
    return Environment(kind, _shown(parent, cwd), directory, found_by, shown)


def node_modules_of(view: View, words: Iterable[str], cwd: str | None) -> Environment | None:
    """The ``node_modules`` directory a command's path names (``node_modules/.bin/jest``)."""
    for word in words:
        at = word.find("node_modules")
        if at < 0 or (at and word[at - 1] != "/"):
            continue
        end = at + len("node_modules")
        if end < len(word) and word[end] != "/":
            continue
        prefix = word[:end]
        directory = view.directory_id(prefix)
        if directory is not None:
            return Environment(NODE_MODULES, _shown(prefix, cwd), directory, "the command's path")
    return None


def is_python_name(base: str) -> bool:
    """Whether a program's basename names a Python interpreter (``python3.11``, ``pypy3``)."""
    return is_python(base) or base.startswith(("python", "pypy"))


def process_environment(  # noqa: PLR0913 - one argument per fact of the process
    view: View,
    argv: Sequence[str],
    *,
    executable: str | None,
    executable_id: tuple[int, int] | None,
    cwd: str | None,
    virtual_env: str | None = None,
    search_path: str | None = None,
) -> Environment | None:
    """The environment one process imports from (see the module), None when it shows none.

    ``executable`` is the text of its ``/proc/PID/exe`` and ``executable_id``
    that file's (device, inode): an interpreter path is believed only when it
    is that file. ``virtual_env`` and ``search_path`` are its ``$VIRTUAL_ENV``
    and ``$PATH``: a bare name in ``argv[0]`` is of the venv only when that
    ``$PATH`` finds it there (:func:`_found_on_path`); a stale ``$VIRTUAL_ENV``
    with a ``$PATH`` that leads elsewhere is not believed.
    """
    words = list(argv[:MAX_WORDS])
    first = words[0] if words else ""
    exe_name = os.path.basename(executable or "")
    if is_python_name(os.path.basename(first)) or is_python_name(exe_name):
        candidates: list[tuple[str, str]] = []
        if "/" in first:
            candidates.append((first, "argv[0]"))
        elif first and virtual_env and os.path.isabs(virtual_env):
            found_on_path = _found_on_path(view, first, search_path)
            venv_bin = os.path.join(virtual_env, "bin")
            if found_on_path is not None and _same_place(view, found_on_path[0], venv_bin):
                candidates.append((os.path.join(virtual_env, "bin", first), "VIRTUAL_ENV"))
        if executable and os.path.isabs(executable):
            candidates.append((executable, "/proc/PID/exe"))
        for path, found_by in candidates:
            found = view.stat(path)
            if found is None:
                continue
            if executable_id is not None and (found.st_dev, found.st_ino) != executable_id:
                continue  # not the program this process runs
            environment = python_environment(view, path, found_by, cwd)
            if environment is not None:
                return environment
    return node_modules_of(view, words, cwd)


def _found_on_path(view: View, name: str, search_path: str | None) -> tuple[str, str] | None:
    """(directory, path) of the program ``name`` as ``search_path`` finds it in ``view``.

    As ``execvp`` and CPython do: the first absolute entry holding an
    executable regular file of that name. None when ``search_path`` is not
    known or finds none.
    """
    if not search_path:
        return None
    for entry in search_path.split(os.pathsep)[:MAX_PATH_ENTRIES]:
        if not os.path.isabs(entry):
            continue
        found = view.stat(os.path.join(entry, name))
        if found is not None and stat.S_ISREG(found.st_mode) and found.st_mode & 0o111:
            return entry, os.path.join(entry, name)
    return None


def _same_place(view: View, one: str, other: str) -> bool:
    """Whether two directories of ``view`` are one (by device and inode, else by text)."""
    first, second = view.directory_id(one), view.directory_id(other)
    if first is not None and second is not None:
        return first == second
    return os.path.normpath(one) == os.path.normpath(other)


# --------------------------------------------------------------------------- commands


def _which(name: str, environ: Mapping[str, str]) -> str | None:
    """The program ``name`` on ``$PATH``, as a shell would find it, None when there is none."""
    for entry in environ.get("PATH", "").split(os.pathsep)[:MAX_PATH_ENTRIES]:
        if not entry or not os.path.isabs(entry):
            continue
        candidate = os.path.join(entry, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _nearest_with(start: str, name: str) -> str | None:
    """The nearest directory from ``start`` upwards that holds ``name``, made by a trusted owner.

    The one walk up the tree (:func:`runctx.checkout.nearest_holding`) with its
    owner rule: a ``.venv`` or a ``pyproject.toml`` another user put in a
    shared parent (``/tmp``) is not this command's.
    """
    kind = "directory" if name in ("node_modules", ".venv") else "file"
    found = nearest_holding(start, (name,), kind=kind)
    return os.path.dirname(found) if found is not None else None


def _venv_at(directory: str, found_by: str) -> Environment | None:
    """The venv whose prefix is ``directory``, None when it is none."""
    view = View()
    if not view.is_file(os.path.join(directory, "pyvenv.cfg")):
        return None
    return Environment(VENV, os.path.normpath(directory), view.directory_id(directory), found_by)


def _program_environment(program: str, cwd: str, found_by: str) -> Environment | None:
    """The environment of an environment's program (``.venv/bin/pytest``, ``/x/bin/python``)."""
    path = program if os.path.isabs(program) else os.path.join(cwd, program)
    return python_environment(View(), path, found_by)


def _option(argv: Sequence[str], *names: str) -> str | None:
    """The value of the first of ``names`` in ``argv`` (``--opt V`` or ``--opt=V``)."""
    for index, word in enumerate(argv):
        for name in names:
            if word == name and index + 1 < len(argv):
                return argv[index + 1]
            if word.startswith(name + "=") and name.startswith("--"):
                return word[len(name) + 1 :]
    return None


def _first_positional(argv: Sequence[str]) -> str | None:
    """The first word of ``argv`` that is no option (nor an option's value, for uv's)."""
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = word in ("--directory", "--project", "--python", "-p", "--cache-dir")
        else:
            return word
    return None


def _uv_environment(  # noqa: PLR0911 - one answer per way uv picks its environment
    argv: Sequence[str], cwd: str, environ: Mapping[str, str]
) -> Environment | None:
    python = _option(argv, "--python", "-p")
    if python is not None and "/" in python:
        return _program_environment(python, cwd, "uv --python")
    if "--system" in argv:
        return None
    if _first_positional(argv) == "pip":  # uv pip: the active venv, else the nearest .venv
        active = environ.get("VIRTUAL_ENV", "")
        if active and os.path.isabs(active):
            return _venv_at(active, "VIRTUAL_ENV")
        found = _nearest_with(cwd, ".venv")
        return _venv_at(os.path.join(found, ".venv"), ".venv") if found else None
    project = _nearest_with(cwd, "pyproject.toml")
    if project is None:
        return None
    named = environ.get("UV_PROJECT_ENVIRONMENT", "")
    if named:
        return _venv_at(os.path.join(project, named), "UV_PROJECT_ENVIRONMENT")
    return _venv_at(os.path.join(project, ".venv"), "the project's .venv")


def _pdm_environment(cwd: str) -> Environment | None:
    project = _nearest_with(cwd, "pyproject.toml")
    if project is None:
        return None
    chosen = small_text(os.path.join(project, ".pdm-python"))
    if chosen and chosen.strip() and os.path.isabs(chosen.strip()):
        return _program_environment(chosen.strip(), project, ".pdm-python")
    return _venv_at(os.path.join(project, ".venv"), "the project's .venv")


def _poetry_environment(cwd: str, environ: Mapping[str, str]) -> Environment | None:
    active = environ.get("VIRTUAL_ENV", "")
    if active and os.path.isabs(active):
        return _venv_at(active, "VIRTUAL_ENV")
    project = _nearest_with(cwd, "pyproject.toml")
    return _venv_at(os.path.join(project, ".venv"), "the project's .venv") if project else None


def _hatch_environment(cwd: str) -> Environment | None:
    """The default environment's ``path`` setting; hatch keeps the others in its own data dir."""
    project = _nearest_with(cwd, "pyproject.toml")
    text = small_text(os.path.join(project, "pyproject.toml")) if project else None
    if project is None or text is None or "hatch" not in text:
        return None
    try:
        document: object = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):  # 2,000-deep arrays recurse
        return None
    path = _table_value(document, "tool", "hatch", "envs", "default", "path")
    if not isinstance(path, str) or not path or not usable_path(path):
        return None
    return _venv_at(os.path.join(project, path), "[tool.hatch.envs.default] path")


def _table_value(value: object, *keys: str) -> object:
    """``value[k1][k2]...``, each level checked to be a table; None where one is not."""
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _node_environment(argv: Sequence[str], cwd: str) -> Environment | None:
    prefix = _option(argv, "--prefix", "--dir", "-C", "--cwd")
    start = os.path.join(cwd, prefix) if prefix else cwd
    if not usable_path(start):
        return None
    package = _nearest_with(start, "package.json") or os.path.abspath(start)
    modules = os.path.join(package, "node_modules")
    directory = View().directory_id(modules)
    if directory is None:
        return None
    return Environment(
        NODE_MODULES, os.path.normpath(modules), directory, "the package's node_modules"
    )


_TOOLS = frozenset({"uv", "pdm", "poetry", "hatch", "npm", "pnpm", "yarn", "npx", "pnpx"})
"""Tools that choose the environment of whatever they run or install (``uv run``, ``npm ci``)."""
NODE_KINDS = frozenset(
    {"jest", "vitest", "mocha", "playwright-test", "npm-test", "pnpm-test", "yarn-test"}
)
"""Runner kinds whose environment is the package's ``node_modules``."""


def _explicit_program(argv: Sequence[str], cwd: str) -> Environment | None:
    """The environment of a path to an environment's program among the command's words."""
    for word in argv[:MAX_WORDS]:
        if "/" not in word or word.startswith("-"):
            continue
        path = word if os.path.isabs(word) else os.path.join(cwd, word)
        directory = os.path.dirname(path)
        if os.path.basename(directory) not in ("bin", "Scripts"):
            continue
        found = _venv_at(os.path.dirname(directory), "the command's path") or _venv_at(
            directory, "the command's path"
        )
        if found is not None:
            return attrs.evolve(found, interpreter=os.path.normpath(path))
    return None


def _tool_environment(
    tool: str, rest: Sequence[str], cwd: str, environ: Mapping[str, str]
) -> Environment | None:
    """The environment ``tool`` picks for what it runs or installs (``rest``: its words)."""
    if tool == "uv":
        return _uv_environment(rest, cwd, environ)
    if tool == "pdm":
        return _pdm_environment(cwd)
    if tool == "poetry":
        return _poetry_environment(cwd, environ)
    if tool == "hatch":
        return _hatch_environment(cwd)
    return _node_environment(rest, cwd)


def _tool_in(argv: Sequence[str]) -> tuple[str, int] | None:
    """The first tool among the words that chooses the environment, and where it stands."""
    for index, word in enumerate(argv[:MAX_WORDS]):
        base = word.rpartition("/")[2]
        if base in _TOOLS:
            return base, index
    return None


def activated(venv: str | None) -> Mapping[str, str] | None:
    """The environment a command inherits after ``source VENV/bin/activate`` (None: ours)."""
    if venv is None:
        return None
    path = os.environ.get("PATH", "")
    return {
        **os.environ,
        "VIRTUAL_ENV": venv,
        "PATH": os.path.join(venv, "bin") + (os.pathsep + path if path else ""),
    }


def command_environment(
    kind: str, argv: Sequence[str], cwd: str, environ: Mapping[str, str] | None = None
) -> Environment | None:
    """The environment a command uses (a test run of ``kind``) or changes (an installer's kind).

    ``argv`` is the simple command's words (wrappers included), ``cwd`` the
    directory it runs in, ``environ`` the environment it inherits (default
    ours: a hook runs with the agent's). A path to an environment's program
    in the words decides; else a tool among them that chooses the
    environment (``uv``, ``poetry``, ``pdm``, ``hatch``, ``npm``...); else a
    node runner's package; else the program ``$PATH`` finds. None when it
    cannot be told.
    """
    env = os.environ if environ is None else environ
    if not usable_path(cwd):
        return None
    explicit = _explicit_program(argv, cwd)
    if explicit is not None:
        return explicit
    found = _tool_in(argv)
    if found is not None:
        tool, at = found
        return _tool_environment(tool, argv[at + 1 :], cwd, env)
    if kind in NODE_KINDS:
        return _node_environment(argv, cwd)
    return _path_environment(argv, env)


def _path_environment(argv: Sequence[str], environ: Mapping[str, str]) -> Environment | None:
    """The environment of the command's program as ``$PATH`` finds it (``pip``, ``pytest``)."""
    for word in argv[:MAX_WORDS]:
        if is_assignment(word) or word.startswith("-") or word in WRAPPERS or word.isdigit():
            continue
        if "/" in word:
            return None
        program = _which(word, environ)
        if program is None:
            return None
        return python_environment(View(), program, "$PATH")
    return None
