"""``package.json`` scripts: what ``npm run NAME`` (and yarn, pnpm, bun) runs.

npm runs ``preNAME`` and ``postNAME`` around ``NAME``; all three are read
(other tools skip them, which only makes the answer err toward a run).

A command that runs the script in other packages of a monorepo (``npm run
unit -w web``, ``pnpm --filter @acme/web unit``, ``yarn workspace @acme/web
unit``, ``pnpm -r run unit``; :mod:`runctx.runners.workspaces`) reads it
there: the packages are the directories the root's ``package.json``
``workspaces`` (or ``pnpm-workspace.yaml``'s ``packages``, or ``lerna.json``'s) names, found by
path or by the ``name`` in their ``package.json`` (a directory named as the
package's last word is read first). Each package's script runs in its
directory (``cd DIR && SCRIPT``). At most :data:`MAX_PACKAGES` directories
are listed, and the files read count toward the command's bound: a package
that could not be looked at for a bound leaves the answer unknown (the
command *may* start a run), never a silent no.
"""

from __future__ import annotations

import fnmatch
import os
import shlex

from runctx.fastpath.jsonscan import loads
from runctx.fastpath.scripts import script_texts, scripts_of
from runctx.unknown import Reason, Unknown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall
    from runctx.runners.workspaces import Selection

__all__ = ["PACKAGE_JSON", "scripts_of", "texts"]

PACKAGE_JSON = "package.json"
PNPM_WORKSPACE = "pnpm-workspace.yaml"
LERNA_JSON = "lerna.json"
MAX_PACKAGES = 256
"""Directories of a monorepo's packages listed at most for one command."""


def texts(call: TaskCall, directory: str, files: ProjectFiles) -> list[str] | None:
    """The commands of the scripts ``call`` names, in the package.json of ``directory``.

    Or in the packages of the monorepo the call selects (``call.workspaces``).
    """
    if call.workspaces:
        return _workspace_texts(call, directory, files)
    scripts = files.parsed(os.path.join(directory, call.file or PACKAGE_JSON), scripts_of)
    return script_texts(scripts, call.names) if isinstance(scripts, dict) else None


def package_of(data: bytes) -> tuple[str, dict[str, str], list[str]]:
    """A package.json's ``name``, its string ``scripts`` and its ``workspaces`` patterns."""
    document = loads(data)
    if not isinstance(document, dict):
        return "", {}, []
    name = document.get("name")
    scripts = document.get("scripts")
    found = document.get("workspaces")
    if isinstance(found, dict):  # ``{"packages": [...]}`` (yarn 1's form)
        found = found.get("packages")
    return (
        name if isinstance(name, str) else "",
        {k: v for k, v in scripts.items() if isinstance(k, str) and isinstance(v, str)}
        if isinstance(scripts, dict)
        else {},
        [p for p in found if isinstance(p, str)] if isinstance(found, list) else [],
    )


def lerna_packages(data: bytes) -> list[str]:
    """The ``packages`` patterns of a ``lerna.json``."""
    document = loads(data)
    found = document.get("packages") if isinstance(document, dict) else None
    return [p for p in found if isinstance(p, str)] if isinstance(found, list) else []


def pnpm_packages(data: bytes) -> list[str]:
    """The ``packages:`` patterns of a ``pnpm-workspace.yaml``, read line by line."""
    patterns: list[str] = []
    inside = False
    for line in data.decode("utf-8", errors="replace").splitlines():
        stripped = line.split("#", 1)[0].rstrip()
        if not stripped:
            continue
        if not line[:1].isspace():
            inside = stripped.startswith("packages:")
            continue
        if inside and stripped.lstrip().startswith("- "):
            patterns.append(stripped.lstrip()[2:].strip().strip("'\""))
    return patterns


def member_directories(root: str, patterns: list[str]) -> tuple[list[str], bool]:
    """The package directories ``patterns`` name under ``root`` (relative), and whether cut.

    ``dir``, ``dir/*`` and ``dir/**`` (read one level deep) are followed; a
    pattern that climbs out, is absolute or is negated is left aside.
    """
    found: list[str] = []
    for written in patterns:
        pattern = written.removeprefix("./").rstrip("/")
        if not pattern or pattern.startswith(("!", "/")) or ".." in pattern.split("/"):
            continue
        head, _, last = pattern.rpartition("/")
        if "*" not in pattern:
            found.append(pattern)
            continue
        if "*" in head:
            continue
        try:
            with os.scandir(os.path.join(root, head)) as entries:
                for entry in entries:
                    if len(found) >= MAX_PACKAGES:
                        return found, True
                    if entry.is_dir(follow_symlinks=False) and (
                        last == "**" or fnmatch.fnmatchcase(entry.name, last)
                    ):
                        found.append(os.path.join(head, entry.name) if head else entry.name)
        except OSError:
            continue
    return sorted(set(found)), False


def _selector(text: str) -> tuple[str, bool] | None:
    """A pnpm/npm selector as ``(name or path, is a path)``.

    None for an exclusion, and for a path out of the checkout (absolute, or
    climbing out with ``..``): only the checkout's own files are read.
    """
    if text.startswith("!"):
        return None
    text = text.removeprefix("...").removeprefix("^...").removesuffix("...").removesuffix("...^")
    if text.startswith("{") and text.endswith("}"):
        path = text[1:-1]
    elif (
        text.startswith(("./", "../", "/"))
        or text == "."
        or ("/" in text and not text.startswith("@"))
    ):
        path = text
    else:
        return text, False
    path = path.removeprefix("./").rstrip("/")
    if path.startswith("/") or ".." in path.split("/"):
        return None
    return path, True


def _selected(
    selection: Selection, members: list[str], root: str, files: ProjectFiles
) -> list[str] | Unknown:
    """The member directories ``selection`` picks: by path, or by their package's name."""
    if selection.every:
        return members
    picked: list[str] = []
    for written in selection.selectors:
        selector = _selector(written)
        if selector is None:
            continue
        text, is_path = selector
        if is_path:
            under = [m for m in members if m == text or m.startswith(text + "/")]
            picked += under or [text]
            continue
        last = text.rpartition("/")[2]
        ordered = sorted(members, key=lambda m: os.path.basename(m) != last)
        matched = False
        for member in ordered:
            package = files.parsed(os.path.join(root, member, PACKAGE_JSON), package_of)
            if package is None and files.left <= 0:
                return Unknown(Reason.NOT_READ, f"the package {written!r} was not found in time")
            if isinstance(package, tuple) and fnmatch.fnmatchcase(package[0], text):
                picked.append(member)
                matched = True
                if "*" not in text:
                    break
        if not matched and text in members:
            picked.append(text)  # ``npm -w web`` names the directory too
    return list(dict.fromkeys(picked))


def _workspace_texts(call: TaskCall, directory: str, files: ProjectFiles) -> list[str] | None:
    """The script's commands in each package of the monorepo ``call`` selects, each in its dir."""
    root = files.parsed(os.path.join(directory, PACKAGE_JSON), package_of)
    patterns = root[2] if isinstance(root, tuple) else []
    if not patterns:
        found = files.parsed(os.path.join(directory, PNPM_WORKSPACE), pnpm_packages)
        patterns = found if isinstance(found, list) else []
    if not patterns:
        found = files.parsed(os.path.join(directory, LERNA_JSON), lerna_packages)
        patterns = found if isinstance(found, list) else []
    members, cut = member_directories(directory, patterns)
    if cut:
        files.unread.append(Unknown(Reason.NOT_READ, f"more than {MAX_PACKAGES} packages"))
    picked = _selected(call.workspaces, members, directory, files)
    if isinstance(picked, Unknown):
        files.unread.append(picked)
        return None
    made: list[str] = []
    for member in picked:
        package = files.parsed(os.path.join(directory, member, PACKAGE_JSON), package_of)
        if not isinstance(package, tuple):
            continue
        for name in call.names:  # each package runs the scripts it has (turbo run unit build)
            commands = script_texts(package[1], [name]) or []
            made += [f"cd {shlex.quote(member)} && {command}" for command in commands]
    return made or None
