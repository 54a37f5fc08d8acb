"""Hatch scripts: what ``hatch run [ENV:]SCRIPT`` runs.

Scripts live in ``[tool.hatch.envs.ENV.scripts]`` of ``pyproject.toml`` or
``[envs.ENV.scripts]`` of ``hatch.toml`` (which wins); a script is a command
or a list of commands, and a command whose first word names another script
of the environment runs that script. An environment without its own script
looks in the environment it is templated on (``template``, ``default`` unless
set).
"""

from __future__ import annotations

import os
import tomllib

from runctx.runners.tasks.files import Task, expand_tasks

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall

_MAX_TEMPLATES = 8


def toml_document(data: bytes) -> dict[str, object]:
    """A TOML text as a table; ValueError when it is not valid TOML."""
    try:
        return tomllib.loads(data.decode("utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ValueError(str(error)) from error


def _table(value: object, *keys: str) -> dict[str, object]:
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, dict) else {}


def environments(directory: str, files: ProjectFiles) -> dict[str, object]:
    """The ``envs`` tables of the project in ``directory``: pyproject's, then hatch.toml's."""
    found: dict[str, object] = {}
    found.update(
        _table(
            files.parsed(os.path.join(directory, "pyproject.toml"), toml_document),
            "tool",
            "hatch",
            "envs",
        )
    )
    found.update(_table(files.parsed(os.path.join(directory, "hatch.toml"), toml_document), "envs"))
    return found


def scripts(envs: dict[str, object], env: str) -> dict[str, list[str]]:
    """The scripts of ``env``, with those of the environments it is templated on."""
    found: dict[str, list[str]] = {}
    seen: set[str] = set()
    while env and env not in seen and len(seen) < _MAX_TEMPLATES:
        seen.add(env)
        table = _table(envs, env)
        for name, value in _table(table, "scripts").items():
            if isinstance(value, str):
                found.setdefault(name, [value])
            elif isinstance(value, list):
                found.setdefault(name, [v for v in value if isinstance(v, str)])
        template = table.get("template", "default")
        env = template if isinstance(template, str) and env != "default" else ""
    return found


def texts(call: TaskCall, directory: str, files: ProjectFiles) -> list[str] | None:
    """The commands of the script ``call`` names, with the scripts they run."""
    if not call.names:
        return None
    env, _, script = call.names[0].rpartition(":")
    known = scripts(environments(directory, files), env or "default")

    def lookup(name: str) -> Task | None:
        commands = known.get(name)
        if commands is None:
            return None
        words = [command.split() for command in commands]
        nested = [w[0] for w in words if w and w[0] in known]
        return nested, [
            c for c, w in zip(commands, words, strict=True) if not (w and w[0] in known)
        ]

    return expand_tasks([script], lookup, str.strip, files.unread)
