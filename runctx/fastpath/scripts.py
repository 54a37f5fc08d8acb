"""``npm run build``: package.json scripts that start nothing, told apart without the parser.

The pre-filter lets ``npm run build`` through (``npm`` is a runner: ``npm
test``), and reading it properly takes the shell parser, the runner table and
the task readers: most of a hook's cost on such a command. Agents run such
commands all day, so one shape is decided here first, with nothing imported
but what the fast path holds already: a command made only of simple commands
``npm run NAME`` (``npm run-script``, ``pnpm run``, ``yarn run``, ``bun run``),
plain words and no options, whose scripts are all in the package.json of its
directory, and whose texts (with their ``pre``/``post`` scripts:
:func:`script_texts`, which :mod:`runctx.runners.tasks.package_json` reads
with too) each pass none of the
pre-filter's tests: no runner's name, no project script, no tool that changes
an environment. Such a command starts no test run and changes nothing, which
is what the parser would find. Anything else (a script named for tests, an
option, a ``cd``, a file that cannot be read, settings that add runners) goes
on to the parser.
"""

from __future__ import annotations

import os

from runctx.fastpath.jsonscan import loads
from runctx.fastpath.prefilter import (
    BUILTIN_NAMES,
    may_change_environment,
    names_a_script,
    names_found,
    past_the_window,
)
from runctx.planted import read_bounded, usable_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

MAX_PROJECT_FILE_BYTES = 256 * 1024
"""A project file larger than this is not read: the task stays decided by its name."""

RUN_WORDS = {
    "npm": frozenset({"run", "run-script"}),
    "pnpm": frozenset({"run"}),
    "yarn": frozenset({"run"}),
    "bun": frozenset({"run"}),
}
"""The programs and the subcommand by which each runs a package.json script by name."""
_SEPARATORS = ("&&", "||", ";", "|", "&", "\n")
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:@/+,- \t")
"""What a word of the shape may be made of: no quote, ``$``, glob, redirection or group."""


def read_project_file(path: str) -> bytes | None:
    """The bytes of the project file at ``path``, or None: missing, not regular, or too large.

    Read through :func:`runctx.planted.read_bounded`, the one reader of files
    another user could plant: looked at before it is opened (regular files
    only), opened without blocking, at most :data:`MAX_PROJECT_FILE_BYTES`.
    """
    return read_project_file_or_size(path)[0]


def read_project_file_or_size(path: str) -> tuple[bytes | None, bool]:
    """As :func:`read_project_file`, and whether a file was there but larger than the bound.

    The second value is True only for a regular file past
    :data:`MAX_PROJECT_FILE_BYTES`: what it holds is not known, where a
    missing file holds nothing.
    """
    if not usable_path(path):  # a NUL or a lone surrogate from the command's words
        return None, False
    try:
        data, whole = read_bounded(path, MAX_PROJECT_FILE_BYTES)
    except OSError:
        return None, False
    return (data, False) if whole else (None, True)


def scripts_of(data: bytes) -> dict[str, str]:
    """The ``scripts`` of a package.json text whose names and commands are strings."""
    document = loads(data)
    scripts = document.get("scripts") if isinstance(document, dict) else None
    if not isinstance(scripts, dict):
        return {}
    return {k: v for k, v in scripts.items() if isinstance(k, str) and isinstance(v, str)}


def script_texts(scripts: dict[str, str], names: Sequence[str]) -> list[str] | None:
    """What ``npm run NAME`` runs for each of ``names``: ``preNAME``, ``NAME``, ``postNAME``.

    None when one of ``names`` is not a script: what it runs is not known.
    """
    if not all(name in scripts for name in names):
        return None
    keys = [key for name in names for key in (f"pre{name}", name, f"post{name}")]
    return [scripts[key] for key in keys if key in scripts]


def script_names(command: str) -> list[str] | None:
    """The scripts ``command`` runs when it has the shape above, else None."""
    text = command
    for separator in _SEPARATORS:
        text = text.replace(separator, "\n")
    names = []
    for line in text.split("\n"):
        words = line.split()
        if not words:
            continue
        if not _PLAIN.issuperset(line) or len(words) != 3:  # noqa: PLR2004 - program, run, name
            return None
        program, run, name = words
        if run not in RUN_WORDS.get(program, ()) or name.startswith("-") or "test" in name.lower():
            return None
        names.append(name)
    return names or None


def starts_nothing(command: str, cwd: str) -> bool:
    """Whether ``command`` surely starts no test run and changes no environment in ``cwd``.

    True only for the shape of the module docstring, by the builtin table's
    names; False means "read it properly".
    """
    names = script_names(command)
    if names is None or names_a_script(command):  # ``npm run ./ci.sh``: read properly
        return False
    data = read_project_file(os.path.join(cwd, "package.json"))
    try:
        texts = script_texts(scripts_of(data), names) if data is not None else None
    except (ValueError, RecursionError):
        return False
    return texts is not None and not any(
        names_found(text, BUILTIN_NAMES)
        or names_a_script(text)
        or may_change_environment(text)
        or past_the_window(text)  # longer than those search: read properly
        for text in texts
    )
