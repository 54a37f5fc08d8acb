"""sbt command aliases: what ``sbt NAME`` runs when the build makes NAME an alias.

``addCommandAlias("ci", ";scalafmtCheckAll;test")`` in ``build.sbt`` (or a
``project/*.sbt`` file runctx is not asked to read) makes ``sbt ci`` run each
command of the value, separated by ``;``. Read as text, not evaluated: each
command of an alias named on the command line is given as ``sbt "COMMAND"``
to the shell parser (``sbt test`` is a run; an alias of an alias is read in
turn). A value built at load time (a variable, a concatenation) is not read.
"""

from __future__ import annotations

import os
import re
import shlex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall

__all__ = ["aliases_of", "texts"]

BUILD_SBT = "build.sbt"
_ALIAS = re.compile(r'addCommandAlias\(\s*"([^"\n]+)"\s*,\s*"([^"\n]*)"\s*\)')


def aliases_of(data: bytes) -> dict[str, list[str]]:
    """Each alias of a ``build.sbt`` text and its commands, in order."""
    text = data.decode("utf-8", errors="replace")
    return {
        name: [command.strip() for command in value.split(";") if command.strip()]
        for name, value in _ALIAS.findall(text)
    }


def texts(call: TaskCall, directory: str, files: ProjectFiles) -> list[str] | None:
    """``sbt "COMMAND"`` for each command of the aliases ``call`` names; None if none is one."""
    aliases = files.parsed(os.path.join(directory, BUILD_SBT), aliases_of)
    if not isinstance(aliases, dict):
        return None
    named = [name for name in call.names if name in aliases]
    if not named:
        return None
    return [
        f"sbt {shlex.quote(command)}"
        for name in named
        for command in aliases[name]
        if command != name  # an alias of itself runs sbt's own command of that name
    ]
