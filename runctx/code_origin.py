"""The code under test: whether it is this checkout's, or another checkout's.

Two worktrees of one repository often share one environment. An editable
install (``pip install -e``) in that environment points at one of them; a
test session in the other then imports the first one's code and goes green
on it. :func:`check_code` tells, for a session in a checkout, where each of
the project's own packages is (or will be) imported from, and why.

The project's own packages are:

- the top-level packages (directories with ``__init__.py``) in the session's
  rootdir and the checkout's root, and in a ``src/`` below either, and the
  modules directly in such a ``src/``;
- the packages of every distribution installed from a directory or a local
  archive (its ``direct_url.json`` names a ``file://`` URL, editable or not) that is
  this project's: installed from this checkout, from a checkout of the same
  repository (one git common directory), or under the name this checkout's
  ``pyproject.toml`` gives its project.

Where a package comes from is the module already imported, or else what the
import system finds for its name now, with the directories pytest will put on
``sys.path`` for the test files in front (``--import-mode=prepend``, the
default) or behind (``append``). Nothing is imported to find out.

A package found outside this checkout is named with where it comes from and
why: through an editable install whose target is another checkout, through a
copy a non-editable install made from one, or through a ``sys.path`` entry.
A copy a non-editable install made from *this* checkout (``pip install .``,
as nox does; a wheel or sdist built in the checkout and installed, as tox
does) is this checkout's code while each of its ``.py`` files is the same as
the checkout's on disk (:func:`copy_differences`); a copy that differs is
named, with the files that differ.

Every file read here (``direct_url.json``, ``RECORD``, ``pyproject.toml``, a
worktree's ``.git`` file and ``commondir``) could have been put there by
someone else, so each is read with :mod:`runctx.planted`: regular files only,
never blocking, with a bound. Directory listings are bounded too.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import sys
import tomllib
import types
import urllib.parse
from collections.abc import Iterable, Iterator, Sequence
from fnmatch import fnmatch

import attrs

from runctx.checkout import within
from runctx.planted import read_bounded, small_text
from runctx.record_base import Record
from runctx.roots import checkout_root

MAX_ENTRIES = 4096
"""The most entries of one directory looked at (``sys.path`` entries, a rootdir, a ``src/``)."""
MAX_RECORD_BYTES = 4 * 1024 * 1024
"""The largest ``RECORD`` read (a distribution's list of files)."""
MAX_PYPROJECT_BYTES = 1024 * 1024


@attrs.frozen(repr=False, eq=False)
class Install(Record):
    """A distribution installed from a directory or a local archive, as ``direct_url.json`` says.

    ``source`` is the directory (or the sdist or wheel file, as tox builds
    and installs) it was installed from; ``editable`` whether the environment
    imports from there (``pip install -e``) or from a copy.
    """

    name: str
    version: str
    source: str
    editable: bool
    metadata: str
    """The ``.dist-info`` directory that says so."""


@attrs.frozen(repr=False, eq=False)
class Origin(Record):
    """Where one of the project's packages is imported from, and why."""

    package: str
    path: str
    """The package's directory or the module's file."""
    imported: bool
    """True: the module is imported already; False: where an import would find it now."""
    install: Install | None
    """The install it comes through, when one of the checkout installs holds it."""
    entry: str | None
    """The ``sys.path`` entry it is found under, when known."""
    differs: tuple[str, ...] = ()
    """For a copy installed from this checkout: its files that differ from the source on disk."""


@attrs.frozen(repr=False, eq=False)
class CodeCheck(Record):
    """Where the project's packages come from, seen from one checkout."""

    checkout: str
    packages: tuple[str, ...]
    elsewhere: tuple[Origin, ...]
    """The packages imported from outside the checkout."""
    installs: tuple[Install, ...]
    """The installs of this project the environment holds."""


def _listdir(path: str) -> list[str]:
    try:
        with os.scandir(path) as entries:
            names = []
            for entry in entries:
                names.append(entry.name)
                if len(names) >= MAX_ENTRIES:
                    break
            return sorted(names)
    except OSError:
        return []


def _is_file(path: str) -> bool:
    try:
        return os.path.isfile(path)
    except (OSError, ValueError):
        return False


# --------------------------------------------------------------------------- installs


def _install_of(metadata: str) -> Install | None:
    """The install ``metadata`` (a ``.dist-info`` directory) records, if from a directory."""
    text = small_text(os.path.join(metadata, "direct_url.json"))
    if text is None:
        return None
    try:
        record = json.loads(text)
    except ValueError:
        return None
    if not isinstance(record, dict):
        return None
    directory = record.get("dir_info")
    if not isinstance(directory, dict) and not isinstance(record.get("archive_info"), dict):
        return None
    url = record.get("url")
    if not isinstance(url, str) or not url.startswith("file://"):
        return None
    source = urllib.parse.unquote(urllib.parse.urlsplit(url).path)
    stem = os.path.basename(metadata)[: -len(".dist-info")]
    name, _, version = stem.partition("-")
    editable = isinstance(directory, dict) and directory.get("editable") is True
    return Install(name, version, os.path.normpath(source), editable, metadata)


def checkout_installs(path: Sequence[str] | None = None) -> tuple[Install, ...]:
    """Every distribution on ``path`` (default ``sys.path``) installed from a directory."""
    found: dict[str, Install] = {}
    for entry in sys.path if path is None else path:
        directory = entry or os.curdir
        for name in _listdir(directory):
            # Most distributions come from an index and record no direct URL: one stat each,
            # and the path is resolved only for those that do.
            if not name.endswith(".dist-info") or not _is_file(
                os.path.join(directory, name, "direct_url.json")
            ):
                continue
            metadata = os.path.realpath(os.path.join(directory, name))
            if metadata in found:
                continue
            install = _install_of(metadata)
            if install is not None:
                found[metadata] = install
    return tuple(found.values())


def normalized(name: str) -> str:
    """A distribution name as packaging compares it (PEP 503)."""
    out = name.lower()
    for char in "_.":
        out = out.replace(char, "-")
    while "--" in out:
        out = out.replace("--", "-")
    return out


def project_name(checkout: str) -> str | None:
    """The ``[project] name`` of the checkout's ``pyproject.toml``, None if none is readable."""
    try:
        data, whole = read_bounded(os.path.join(checkout, "pyproject.toml"), MAX_PYPROJECT_BYTES)
    except (OSError, ValueError):
        return None
    if not whole or b"name" not in data:
        return None
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None
    project = document.get("project")
    name = project.get("name") if isinstance(project, dict) else None
    return name if isinstance(name, str) else None


def repository_of(directory: str) -> str | None:
    """The git common directory of the checkout that holds ``directory`` (one per repository).

    Worktrees of one repository share it; another clone has its own.
    """
    root = checkout_root(directory)
    if not isinstance(root, str):
        return None
    marker = os.path.join(root, ".git")
    if os.path.isdir(marker):
        return os.path.realpath(marker)
    text = small_text(marker)
    if text is None or not text.startswith("gitdir:"):
        return None
    gitdir = os.path.join(root, text[len("gitdir:") :].strip())
    common = small_text(os.path.join(gitdir, "commondir"))
    if common is not None and common.strip():
        return os.path.realpath(os.path.join(gitdir, common.strip()))
    return os.path.realpath(gitdir)


def project_installs(
    checkout: str, installs: Iterable[Install], name: str | None = None
) -> tuple[tuple[Install, str], ...]:
    """The installs that are this project's, each with why: same checkout, repository or name."""
    repository = repository_of(checkout)
    wanted = normalized(name) if name else None
    found = []
    for install in installs:
        if within(os.path.realpath(install.source), checkout):
            found.append((install, "installed from this checkout"))
        elif repository is not None and repository_of(install.source) == repository:
            found.append((install, "installed from another checkout of this repository"))
        elif wanted is not None and normalized(install.name) == wanted:
            found.append((install, "installed under this project's name"))
    return tuple(found)


# --------------------------------------------------------------------------- packages


def packages_in(directory: str) -> list[str]:
    """Top-level packages in ``directory`` and its ``src/``, and the modules in that ``src/``."""
    found: list[str] = []
    for base, modules in ((directory, False), (os.path.join(directory, "src"), True)):
        for name in _listdir(base):
            path = os.path.join(base, name)
            if name.isidentifier() and _is_file(os.path.join(path, "__init__.py")):
                found.append(name)
            elif modules and name.endswith(".py") and name[:-3].isidentifier() and _is_file(path):
                found.append(name[:-3])
    return found


def _record_top_levels(install: Install) -> list[str]:
    """The top-level packages and modules a distribution's ``RECORD`` lists."""
    text = small_text(os.path.join(install.metadata, "RECORD"), MAX_RECORD_BYTES)
    if text is None:
        return []
    names = []
    for row in csv.reader(text.splitlines()):
        parts = row[0].split("/") if row else []
        if len(parts) == 1 and parts[0].endswith(".py"):
            top = parts[0][:-3]
        elif len(parts) > 1 and not parts[0].endswith((".dist-info", ".data")):
            top = parts[0]
        else:
            continue
        if top.isidentifier() and top != "__pycache__":
            names.append(top)
    return list(dict.fromkeys(names))


def packages_of(install: Install) -> list[str]:
    """The top-level packages an install provides: those in its source, or in its ``RECORD``."""
    names = packages_in(install.source)
    if not install.editable:
        names.extend(_record_top_levels(install))
    return names


# ----------------------------------------------------------------------- a copy of this checkout

MAX_COMPARED_FILES = 5000
"""The most source files of one package compared between an installed copy and the checkout."""
MAX_COMPARED_BYTES = 64 * 1024 * 1024
"""The most bytes read from either side when comparing them."""
DIFFERENCES_NAMED = 3
COMPARE_FAILED = "(too large to compare)"


def _copy_of_this_checkout(install: Install, top: str) -> bool:
    """Whether ``install`` is a copy (non-editable) made from a directory or archive in ``top``."""
    return not install.editable and within(os.path.realpath(install.source), top)


def _source_dir(top: str, package: str) -> str | None:
    """Where ``package`` is in the checkout's source: ``top/PACKAGE`` or ``top/src/PACKAGE``."""
    for base in (os.path.join(top, "src"), top):
        if _is_file(os.path.join(base, package, "__init__.py")) or _is_file(
            os.path.join(base, package + ".py")
        ):
            return base
    return None


def _installed_sources(install: Install, package: str) -> list[str] | None:
    """The ``.py`` files of ``package`` the install's ``RECORD`` lists (relative, as listed)."""
    text = small_text(os.path.join(install.metadata, "RECORD"), MAX_RECORD_BYTES)
    if text is None:
        return None
    found = []
    for row in csv.reader(text.splitlines()):
        path = row[0] if row else ""
        parts = path.split("/")
        if path.endswith(".py") and (parts[0] == package or path == package + ".py"):
            found.append(path)
    return found


def _checkout_sources(base: str, package: str) -> list[str] | None:
    """The ``.py`` files of ``package`` under ``base``, relative to it (None past the bound)."""
    if _is_file(os.path.join(base, package + ".py")):
        return [package + ".py"]
    found: list[str] = []
    for directory, subdirectories, files in os.walk(os.path.join(base, package)):
        subdirectories[:] = [d for d in subdirectories if d != "__pycache__"]
        relative = os.path.relpath(directory, base).replace(os.sep, "/")
        found.extend(f"{relative}/{name}" for name in files if name.endswith(".py"))
        if len(found) > MAX_COMPARED_FILES:
            return None
    return found


def _same_bytes(one: str, other: str, budget: list[int]) -> bool | None:
    """Whether two files hold the same bytes; None when the byte budget runs out."""
    try:
        if os.path.getsize(one) != os.path.getsize(other):
            return False
        first, whole_first = read_bounded(one, MAX_COMPARED_BYTES)
        second, whole_second = read_bounded(other, MAX_COMPARED_BYTES)
    except OSError:
        return False
    budget[0] -= len(first) + len(second)
    if budget[0] < 0 or not (whole_first and whole_second):
        return None
    return first == second


def copy_differences(install: Install, package: str, checkout: str) -> tuple[str, ...] | None:
    """How a non-editable install's copy of ``package`` differs from ``checkout``'s source.

    ``()``: every ``.py`` file of the package is the same in the copy and in
    the checkout, none missing on either side: the copy is this checkout's
    code as it is on disk. Else the files that differ (at most
    :data:`DIFFERENCES_NAMED`, then a count); None when it cannot be told
    (no ``RECORD``, no source, past the bounds).
    """
    top = os.path.realpath(checkout)
    base = _source_dir(top, package)
    installed = _installed_sources(install, package)
    if base is None or installed is None or len(installed) > MAX_COMPARED_FILES:
        return None
    source = _checkout_sources(base, package)
    if source is None:
        return None
    site = os.path.dirname(install.metadata)
    budget = [MAX_COMPARED_BYTES]
    differing = []
    for relative in sorted(set(installed) | set(source)):
        if relative not in source:
            differing.append(f"{relative} (only in the installed copy)")
            continue
        if relative not in installed:
            differing.append(f"{relative} (not in the installed copy)")
            continue
        same = _same_bytes(os.path.join(site, relative), os.path.join(base, relative), budget)
        if same is None:
            return None
        if not same:
            differing.append(relative)
    if len(differing) > DIFFERENCES_NAMED:
        more = len(differing) - DIFFERENCES_NAMED
        differing = [*differing[:DIFFERENCES_NAMED], f"{more} more"]
    return tuple(differing)


# --------------------------------------------------------------------------- where from


def _module_path(module: types.ModuleType) -> str | None:
    paths = getattr(module, "__path__", None)
    if paths:
        for path in paths:
            return str(path)
    found = getattr(module, "__file__", None)
    return found if isinstance(found, str) else None


def _found_path(name: str) -> str | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError, AttributeError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        for path in spec.submodule_search_locations:
            return str(path)
    return spec.origin if spec.has_location and spec.origin else None


class _PathAs:
    """``sys.path`` with ``front`` before it and ``back`` after it, while inside."""

    def __init__(self, front: Sequence[str], back: Sequence[str]) -> None:
        self.front = [p for p in front if p not in sys.path]
        self.back = [p for p in back if p not in sys.path]
        self.saved: list[str] = []

    def __enter__(self) -> None:
        self.saved = list(sys.path)
        sys.path[:] = [*self.front, *self.saved, *self.back]

    def __exit__(self, *_exc: object) -> None:
        sys.path[:] = self.saved


def where_from(
    name: str, front: Sequence[str] = (), back: Sequence[str] = ()
) -> tuple[str, bool] | None:
    """Where package ``name`` is imported from, and whether it is imported already."""
    module = sys.modules.get(name)
    if isinstance(module, types.ModuleType):
        path = _module_path(module)
        return (path, True) if path is not None else None
    with _PathAs(front, back):
        path = _found_path(name)
    return (path, False) if path is not None else None


def _entry_of(path: str, entries: Iterable[str]) -> str | None:
    real = os.path.realpath(path)
    for entry in entries:
        base = os.path.realpath(entry or os.curdir)
        if within(real, base) and real != base:
            return entry
    return None


def _install_holding(package: str, path: str, installs: Iterable[Install]) -> Install | None:
    real = os.path.realpath(path)
    for install in installs:
        if install.editable and within(real, os.path.realpath(install.source)):
            return install
    for install in installs:
        if not install.editable and package in _record_top_levels(install):
            return install
    return None


def _unique(names: Iterable[str]) -> Iterator[str]:
    seen: set[str] = set()
    for name in names:
        if name not in seen:
            seen.add(name)
            yield name


def check_code(  # noqa: PLR0913 - where to look, each its own
    checkout: str,
    rootdir: str | None = None,
    *,
    front: Sequence[str] = (),
    back: Sequence[str] = (),
    path: Sequence[str] | None = None,
    installs: tuple[Install, ...] | None = None,
) -> CodeCheck:
    """Where the project's packages come from, seen from ``checkout`` (see the module).

    ``front`` and ``back`` are directories that will stand before and after
    ``sys.path`` when the tests are imported; ``path`` is where installs are
    looked for (default ``sys.path``), unless ``installs`` gives them (those
    :func:`checkout_installs` found for an earlier check of the same session).
    """
    top = os.path.realpath(checkout)
    if installs is None:
        installs = checkout_installs(path)
    ours = project_installs(top, installs, project_name(top))
    names: list[str] = []
    for directory in dict.fromkeys([os.path.realpath(rootdir or top), top]):
        names.extend(packages_in(directory))
    for held, _why in ours:
        names.extend(packages_of(held))
    packages = tuple(_unique(names))
    entries = [*front, *sys.path, *back]
    elsewhere = []
    for package in packages:
        found = where_from(package, front, back)
        if found is None:
            continue
        where, imported = found
        if within(os.path.realpath(where), top):
            continue
        through = _install_holding(package, where, [i for i, _ in ours] or installs)
        differs: tuple[str, ...] = ()
        if through is not None and _copy_of_this_checkout(through, top):
            found_differences = copy_differences(through, package, top)
            if found_differences == ():
                continue  # a copy of this checkout's source as it is on disk: this checkout's code
            differs = found_differences or (COMPARE_FAILED,)
        origin = Origin(package, where, imported, through, _entry_of(where, entries), differs)
        elsewhere.append(origin)
    return CodeCheck(top, packages, tuple(elsewhere), tuple(i for i, _ in ours))


# --------------------------------------------------------------------------- pytest's sys.path


def _test_file(name: str, patterns: Sequence[str]) -> bool:
    return name.endswith(".py") and any(fnmatch(name, pattern) for pattern in patterns)


def _basedir(directory: str) -> str:
    """Where pytest's ``prepend`` puts a test file of ``directory``: above its package chain."""
    current = directory
    for _ in range(64):
        if not _is_file(os.path.join(current, "__init__.py")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return current
        current = parent
    return current


_SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "build", "dist", "site-packages"})


def pytest_import_dirs(
    args: Sequence[str], patterns: Sequence[str], max_dirs: int = 2000, max_depth: int = 4
) -> list[str]:
    """The directories pytest puts on ``sys.path`` to import the test files under ``args``.

    A bounded walk (``max_dirs`` directories, ``max_depth`` levels, skipping
    hidden directories, environments and caches): a prediction, for the
    header; what was really imported is known after collection.
    """
    found: dict[str, None] = {}
    queue: list[tuple[str, int]] = []
    for arg in args:
        path = arg.split("::", 1)[0]
        if _is_file(path):
            found[_basedir(os.path.dirname(os.path.abspath(path)))] = None
        elif os.path.isdir(path):
            queue.append((os.path.abspath(path), 0))
    for _ in range(max_dirs):
        if not queue:
            break
        directory, depth = queue.pop(0)
        names = _listdir(directory)
        if "pyvenv.cfg" in names:
            continue
        if any(_test_file(name, patterns) for name in names):
            found[_basedir(directory)] = None
        if depth < max_depth:
            queue.extend((child, depth + 1) for child in _subdirectories(directory, names))
    return list(found)


def _subdirectories(directory: str, names: Iterable[str]) -> Iterator[str]:
    """The directories among ``names`` a test walk enters: no hidden ones, caches, links."""
    for name in names:
        if name.startswith(".") or name in _SKIPPED_DIRS:
            continue
        child = os.path.join(directory, name)
        if os.path.isdir(child) and not os.path.islink(child):
            yield child
