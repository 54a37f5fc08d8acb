"""Invoke tasks: what ``invoke NAME`` (``inv NAME``) runs, read from ``tasks.py``.

Invoke runs the function of ``tasks.py`` (or ``tasks/__init__.py``) that
``@task`` decorates and that NAME names (``unit-tests`` is ``unit_tests``).
Read as text, not run: the string given to each ``run`` call of the
function's body (``c.run("pytest -q")``, ``ctx.run('tox -e py')``) is a
command the shell parser reads, and the tasks named in ``@task(pre=[...])``
or ``@task(lint, unit)`` run first. A command made at run time (an f-string
with a field, a variable) is not known: such a call gives no command.
"""

from __future__ import annotations

import os
import re

from runctx.runners.tasks.files import Task, expand_tasks

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall

__all__ = ["tasks_of", "texts"]

_FILES = ("tasks.py", os.path.join("tasks", "__init__.py"))
_ARGUMENTS_MAX = 4096
"""The most of a ``@task(...)``'s arguments read: an unclosed one costs no more than this."""
_DEFINITION = re.compile(
    rf"(?m)^@task\b(?:\((?P<arguments>[^)]{{0,{_ARGUMENTS_MAX}}})\))?\s*\n(?:@.*\n)*"
    r"def\s+(?P<name>\w+)"
)
_NEXT_TOP_LEVEL = re.compile(r"(?m)^(?:@|def\s|class\s|[A-Za-z_])")
_RUN = re.compile(r"""\brun\(\s*(?:[rR]?(?P<q>"|')(?P<text>(?:(?!(?P=q)).)*)(?P=q))""")
_NAMES = re.compile(r"\b([A-Za-z_]\w*)\b")
_QUOTED = re.compile(r"\"[^\"\n]*\"|'[^'\n]*'")
_TASK_KEYWORDS = frozenset(
    {"pre", "post", "help", "aliases", "name", "default", "iterable", "incrementable"}
    | {"optional", "positional", "auto_shortflags", "autoprint", "klass", "True", "False", "None"}
)
"""The keywords of ``@task(...)`` and Python's constants: no task names."""


def tasks_of(data: bytes) -> dict[str, Task]:
    """Each task of a ``tasks.py`` text: the tasks it runs first, and its run commands."""
    text = data.decode("utf-8", errors="replace")
    found: dict[str, Task] = {}
    definitions = list(_DEFINITION.finditer(text))
    for definition in definitions:
        body_start = definition.end()
        after = _NEXT_TOP_LEVEL.search(text, text.find("\n", body_start) + 1)
        body = text[body_start : after.start() if after else len(text)]
        arguments = _QUOTED.sub("", definition.group("arguments") or "")
        pre = [n for n in _NAMES.findall(arguments) if n not in _TASK_KEYWORDS]
        lines = [m.group("text") for m in _RUN.finditer(body) if "{" not in m.group("text")]
        found[definition.group("name")] = (pre, lines)
    return found


def texts(call: TaskCall, directory: str, files: ProjectFiles) -> list[str] | None:
    """The commands of the task ``call`` names, with those of the tasks it runs first."""
    if not call.names:
        return None
    tasks: dict[str, Task] = {}
    for name in _FILES:
        found = files.parsed(os.path.join(directory, name), tasks_of)
        if isinstance(found, dict) and found:
            tasks = found
            break
    if not tasks:
        return None

    def lookup(name: str) -> Task | None:
        return tasks.get(name.replace("-", "_"))

    return expand_tasks(call.names[:1], lookup, str.strip, files.unread)
