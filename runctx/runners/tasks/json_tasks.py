"""Tasks kept in JSON beside ``package.json``: what ``deno task NAME`` and ``composer NAME`` run.

- deno: the ``tasks`` of ``deno.json`` (or ``deno.jsonc``, its comments
  taken out): a command, or an object with ``command`` and ``dependencies``
  (tasks run first);
- composer: the ``scripts`` of ``composer.json``: a command or a list of
  them, where ``@NAME`` runs the script NAME, ``@php ARGS`` and ``@composer
  ARGS`` run php and composer, and a PHP callback (``Class::method``)
  runs code runctx does not read (it gives no command). ``composer NAME``,
  ``composer run NAME`` and ``composer run-script NAME`` run it, with its
  ``pre-NAME-cmd`` and ``post-NAME-cmd`` event scripts.

Files are read as every project file is (:mod:`.files`).
"""

from __future__ import annotations

import os

from runctx.fastpath.jsonscan import loads
from runctx.hooks.json_layout import to_strict
from runctx.runners.tasks.files import Task, expand_tasks

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall

__all__ = ["texts"]

_DENO_FILES = ("deno.json", "deno.jsonc")


def _object(data: bytes, key: str, *, comments: bool) -> dict[str, object]:
    """The object at ``key`` of a JSON text (with comments when ``comments``)."""
    text = data.decode("utf-8")
    if comments:
        text = to_strict(text, comments=True, trailing_commas=True)
    document = loads(text)
    found = document.get(key) if isinstance(document, dict) else None
    return found if isinstance(found, dict) else {}


def deno_tasks(data: bytes) -> dict[str, object]:
    """The ``tasks`` of a ``deno.json``/``deno.jsonc``."""
    return _object(data, "tasks", comments=True)


def composer_scripts(data: bytes) -> dict[str, object]:
    """The ``scripts`` of a ``composer.json``."""
    return _object(data, "scripts", comments=False)


def _deno(value: object, known: dict[str, object]) -> Task:
    del known
    if isinstance(value, str):
        return [], [value]
    if not isinstance(value, dict):
        return [], []
    depends = value.get("dependencies")
    first = [name for name in depends if isinstance(name, str)] if isinstance(depends, list) else []
    command = value.get("command")
    return first, [command] if isinstance(command, str) else []


def _composer(value: object, known: dict[str, object]) -> Task:
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    first: list[str] = []
    lines: list[str] = []
    for item in items:
        if not isinstance(item, str):
            continue
        if item.startswith("@php "):
            lines.append("php " + item[len("@php ") :])
        elif item.startswith("@composer "):
            lines.append("composer " + item[len("@composer ") :])
        elif item.startswith("@"):
            name = item[1:].split(maxsplit=1)[0] if item[1:].split() else ""
            if name in known:
                first.append(name)
        elif "::" not in item or " " in item:  # not a PHP callback (``Class::method``)
            lines.append(item)
    return first, lines


def texts(call: TaskCall, directory: str, files: ProjectFiles) -> list[str] | None:
    """The commands of the task ``call`` names, with those of the tasks it runs first."""
    if not call.names:
        return None
    known: dict[str, object] = {}
    if call.kind == "deno-task":
        for name in _DENO_FILES:
            found = files.parsed(os.path.join(directory, name), deno_tasks)
            if isinstance(found, dict) and found:
                known = found
                break
        read = _deno
    else:
        path = os.path.join(directory, call.file or "composer.json")
        found = files.parsed(path, composer_scripts)
        known = found if isinstance(found, dict) else {}
        read = _composer
    if not known:
        return None
    events = call.kind == "composer-script"

    def lookup(name: str) -> Task | None:
        if name not in known:
            return None
        first, lines = read(known[name], known)
        if events:  # composer runs pre-NAME-cmd and post-NAME-cmd around NAME
            pre, post = f"pre-{name}-cmd", f"post-{name}-cmd"
            first = [*([pre] if pre in known else []), *first, *([post] if post in known else [])]
        return first, lines

    return expand_tasks(call.names[:1], lookup, str.strip, files.unread)
