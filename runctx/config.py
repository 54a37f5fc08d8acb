"""The ``[tool.runctx]`` table of a checkout's ``pyproject.toml``, read one way.

Imported on the hook's hot path: standard library only (``re`` and ``os``,
which ``json`` has loaded already); ``tomllib`` only for a file that may hold
the table at all.
"""

from __future__ import annotations

import os
import re

from runctx.exceptions import ConfigError

PYPROJECT = "pyproject.toml"
MAX_PYPROJECT_BYTES = 1024 * 1024
"""A pyproject.toml larger than this (1 MiB) is read no further."""

_DOTTED_RUNCTX = rb"tool\s*\.\s*[\"']?runctx\b"
_RUNCTX_KEY = rb"(?m)^[ \t]*[\"']?runctx[\"']?[ \t]*[.=]"
_TABLE_HEADER = rb"(?m)^[ \t]*\[+([^\]\n]*)\]"


def mentions_runctx_table(data: bytes) -> bool:
    """Whether a TOML text may hold a ``[tool.runctx]`` table, in any spelling.

    ``[tool.runctx]``, ``[tool."runctx"]``, ``tool.runctx.x = …``, or a
    ``runctx`` key under a ``[tool]`` header. A text without any of these has no
    runctx settings, so it is not parsed at all: a project that merely names
    runctx (a dependency, an entry point ``runctx = "..."``) is not parsed either.
    """
    if re.search(_DOTTED_RUNCTX, data):
        return True
    for key in re.finditer(_RUNCTX_KEY, data):
        headers = re.findall(_TABLE_HEADER, data[: key.start()])
        if headers and headers[-1].strip() == b"tool":
            return True
    return False


def read_pyproject(path: str) -> bytes | None:
    """The bytes of a pyproject.toml (at most 1 MiB), None when there is none."""
    try:
        with open(path, "rb") as stream:
            return stream.read(MAX_PYPROJECT_BYTES)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        msg = f"{path}: cannot read: {error.strerror or error}"
        raise ConfigError(msg) from error


def runctx_table(path: str) -> dict[str, object]:
    """``[tool.runctx]`` of the pyproject.toml at ``path``; ``{}`` when there is none.

    A file that cannot be read or parsed, or a ``tool.runctx`` that is not a
    table, raises :class:`ConfigError` naming the file.
    """
    data = read_pyproject(path)
    if data is None or not mentions_runctx_table(data):
        return {}
    import tomllib  # noqa: PLC0415 - only a checkout that configures runctx pays for it

    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        msg = f"{path}: invalid TOML: {error}"
        raise ConfigError(msg) from error
    tools = document.get("tool", {})
    table = tools.get("runctx", {}) if isinstance(tools, dict) else None
    if not isinstance(table, dict):
        msg = f"{path}: [tool.runctx] must be a table"
        raise ConfigError(msg)
    return table


def checkout_table(root: str) -> dict[str, object]:
    """``[tool.runctx]`` of the checkout at ``root``."""
    return runctx_table(os.path.join(root, PYPROJECT))
