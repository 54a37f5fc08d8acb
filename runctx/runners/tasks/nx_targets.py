"""Nx targets: what ``nx run web:unit``, ``nx unit web`` and ``nx run-many -t unit`` run.

An Nx project is a directory with a ``project.json`` (its ``name``, else the
directory's) or a ``package.json`` (its ``name``), under the directories the
root's ``workspaces`` names or Nx's usual ``apps/*``, ``libs/*`` and
``packages/*``. A target is read from the project's ``project.json``
``targets`` (or ``package.json``'s ``nx.targets``), else from its
``package.json`` ``scripts`` (Nx runs a script as a target):

- ``command``, or the ``nx:run-commands`` executor's ``command``/``commands``:
  the commands, run in the project's directory;
- a test executor (Jest, Vitest, Playwright, Cypress, Karma, Mocha), named
  by its package (``@nx/jest:jest``, ``@nx/vite:test``): the runner it
  starts;
- ``dependsOn``: the project's own targets named there run first (``^build``,
  the dependencies' targets, is not followed).

``nx run-many -t T`` and ``nx affected -t T`` run T in every project that has
it (``-p``/``--projects`` narrows them), each read in its directory (``cd DIR &&
...``). The files read count toward the command's bound, as every project
file does (:mod:`.files`).
"""

from __future__ import annotations

import os
import shlex

from runctx.fastpath.jsonscan import loads
from runctx.runners.tasks.package_json import PACKAGE_JSON, member_directories, package_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall

__all__ = ["texts"]

PROJECT_JSON = "project.json"
_LAYOUT = ("apps/*", "libs/*", "packages/*")
_EXECUTORS = (
    ("jest", "jest"),
    ("vitest", "vitest run"),
    ("vite:test", "vitest run"),
    ("playwright", "playwright test"),
    ("cypress", "cypress run"),
    ("karma", "karma start --single-run"),
    ("mocha", "mocha"),
)
"""Words of a test executor's name, and the runner it starts."""

_Targets = dict[str, object]


def project_of(data: bytes) -> tuple[str, _Targets]:
    """A ``project.json``'s ``name`` and ``targets``."""
    document = loads(data)
    if not isinstance(document, dict):
        return "", {}
    name = document.get("name")
    targets = document.get("targets")
    return (name if isinstance(name, str) else "", targets if isinstance(targets, dict) else {})


def _target_lines(value: object) -> tuple[list[str], list[str]]:
    """A target's own targets run first, and its commands."""
    if not isinstance(value, dict):
        return [], []
    depends = value.get("dependsOn")
    first = [
        name
        for name in (depends if isinstance(depends, list) else [])
        if isinstance(name, str) and not name.startswith("^")
    ]
    lines: list[str] = []
    command = value.get("command")
    if isinstance(command, str):
        lines.append(command)
    executor = value.get("executor")
    options = value.get("options")
    options = options if isinstance(options, dict) else {}
    if executor == "nx:run-commands" or "run-commands" in str(executor):
        single = options.get("command")
        if isinstance(single, str):
            lines.append(single)
        commands = options.get("commands")
        for item in commands if isinstance(commands, list) else []:
            text = item.get("command") if isinstance(item, dict) else item
            if isinstance(text, str):
                lines.append(text)
    elif isinstance(executor, str):
        lines += [runner for word, runner in _EXECUTORS if word in executor.lower()][:1]
    return first, lines


class _Projects:
    """The projects of the workspace in ``root``, read as they are asked for."""

    def __init__(self, root: str, files: ProjectFiles) -> None:
        self.root = root
        self.files = files
        package = files.parsed(os.path.join(root, PACKAGE_JSON), package_of)
        patterns = package[2] if isinstance(package, tuple) else []
        self.directories, _cut = member_directories(root, [*patterns, *_LAYOUT])

    def read(self, directory: str) -> tuple[str, _Targets, dict[str, str]]:
        """A project's name, targets and scripts."""
        path = os.path.join(self.root, directory)
        project = self.files.parsed(os.path.join(path, PROJECT_JSON), project_of)
        package = self.files.parsed(os.path.join(path, PACKAGE_JSON), package_of)
        name, targets = project if isinstance(project, tuple) else ("", {})
        scripts: dict[str, str] = {}
        if isinstance(package, tuple):
            name = name or package[0]
            scripts = package[1]
        return name or os.path.basename(directory), targets, scripts

    def named(self, wanted: str) -> list[str]:
        """The directories of the projects named ``wanted`` (the directory's name first)."""
        ordered = sorted(self.directories, key=lambda d: os.path.basename(d) != wanted)
        for directory in ordered:
            if self.read(directory)[0] == wanted:
                return [directory]
        return []


def _in_project(
    directory: str, targets: _Targets, scripts: dict[str, str], target: str
) -> list[str]:
    """The commands ``target`` runs in the project at ``directory``, its dependsOn first."""
    lines: list[str] = []
    waiting = [target]
    seen: set[str] = set()
    while waiting and len(seen) < 16:  # noqa: PLR2004 - a bound on dependsOn chains
        name = waiting.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in targets:
            first, own = _target_lines(targets[name])
            waiting += first
            lines += own
        elif name in scripts:
            lines.append(scripts[name])
    return [f"cd {shlex.quote(directory)} && {line}" for line in lines]


def texts(call: TaskCall, directory: str, files: ProjectFiles) -> list[str] | None:
    """The commands of the targets ``call`` names, in the projects it names or in all."""
    if not call.names:
        return None
    projects = _Projects(directory, files)
    asked: list[tuple[list[str], str]] = []
    if call.kind == "nx-target":
        first = call.names[0]
        if ":" in first:  # ``nx run web:unit[:ci]``
            project, _, rest = first.partition(":")
            asked.append((projects.named(project), rest.partition(":")[0]))
        elif len(call.names) > 1:  # ``nx unit web``
            asked.append((projects.named(call.names[1]), first))
        else:
            asked.append((projects.directories, first))
    else:  # ``nx run-many -t unit lint``, ``nx affected -t unit``
        wanted = [p for s in call.workspaces.selectors for p in s.split(",") if p]
        chosen = [d for p in wanted for d in projects.named(p)] if wanted else projects.directories
        asked += [(chosen, t) for name in call.names for t in name.split(",") if t]
    made: list[str] = []
    for chosen, target in asked:
        for member in chosen:
            _name, targets, scripts = projects.read(member)
            made += _in_project(member, targets, scripts, target)
    return made or None
