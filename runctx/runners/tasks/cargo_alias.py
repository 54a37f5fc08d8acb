"""cargo aliases: what ``cargo NAME`` runs when ``.cargo/config.toml`` makes NAME an alias.

``[alias]`` maps a name to a string (``ci-test = "nextest run --profile ci"``)
or a list of words; ``cargo NAME ARGS`` runs ``cargo`` with those words,
then ``ARGS`` (``cargo xtask ci --test``: ``run --package xtask -- ci --test``). The
config is looked for in the directory the command runs in and its parents
(above it: owned by the caller or by root only), as cargo does. An alias
that names another alias is followed by the shell parser reading the text in
turn, a few levels deep.
"""

from __future__ import annotations

import shlex
import tomllib

from runctx.runners.tasks.files import found_above

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall

CONFIG_FILES = (".cargo/config.toml", ".cargo/config")


def parse(data: bytes) -> dict[str, str]:
    """The aliases of a cargo config: name to the words it stands for, as one text."""
    table = tomllib.loads(data.decode("utf-8", errors="replace")).get("alias")
    if not isinstance(table, dict):
        return {}
    aliases: dict[str, str] = {}
    for name, value in table.items():
        if isinstance(value, str):
            aliases[str(name)] = value
        elif isinstance(value, list) and all(isinstance(word, str) for word in value):
            aliases[str(name)] = " ".join(value)
    return aliases


def texts(call: TaskCall, directory: str, files: ProjectFiles) -> list[str] | None:
    """``cargo`` with the words of the alias ``call`` names, or None when it is no alias."""
    if not call.names:
        return None
    path = found_above(directory, CONFIG_FILES)
    if path is None:
        return None
    aliases = files.parsed(path, parse)
    if not isinstance(aliases, dict):
        return None
    name = call.names[0]
    words = aliases.get(name)
    if not isinstance(words, str):
        return None
    # cargo puts the words after the alias after its expansion (``cargo xtask ci --test``)
    given = call.arguments[call.arguments.index(name) + 1 :] if name in call.arguments else ()
    return [" ".join(["cargo", words, *map(shlex.quote, given)])]
