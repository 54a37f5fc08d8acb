"""Maven's default goal: what ``mvn`` with no goal or phase runs, read from ``pom.xml``.

``mvn -B -e`` names nothing to build: Maven runs the ``<defaultGoal>`` of the
project's ``<build>`` (``clean verify``), and fails without one. The goals
are handed to the shell parser as ``mvn GOALS``, judged as if written: a
phase from ``test`` on runs the tests. A goal given on the command, a
default goal set only in a profile (which the command may not activate), or
a pom that cannot be read leaves the command what its name says: no run.
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall

_PROFILES = re.compile(r"<profiles\b.*?</profiles\s*>", re.DOTALL)
_COMMENTS = re.compile(r"<!--.*?-->", re.DOTALL)
_DEFAULT_GOAL = re.compile(r"<defaultGoal>\s*([^<]*?)\s*</defaultGoal>")


def default_goal(data: bytes) -> str:
    """The ``<defaultGoal>`` of a pom's own build ("" when it sets none)."""
    text = _COMMENTS.sub("", data.decode("utf-8", "replace"))
    found = _DEFAULT_GOAL.search(_PROFILES.sub("", text))
    return found.group(1) if found else ""


def texts(call: TaskCall, directory: str, files: ProjectFiles) -> list[str] | None:
    """``mvn GOALS`` of the default goal, when the command names no goal; else None."""
    if any(not name.startswith("-") and "=" not in name for name in call.names):
        return None
    goal = files.parsed(os.path.join(directory, call.file or "pom.xml"), default_goal)
    if not isinstance(goal, str) or not goal or "$" in goal:
        return None
    return [f"mvn {goal}"]
