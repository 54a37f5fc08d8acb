"""The ``[tool.runctx]`` table of a checkout's ``pyproject.toml``, read one way.

Imported on the hook's hot path: standard library only (``re`` and ``os``,
which ``json`` has loaded already); ``tomllib`` only for a file that may hold
the table at all.
"""

from __future__ import annotations

import os

from runctx.exceptions import ConfigError

PYPROJECT = "pyproject.toml"
MAX_PYPROJECT_BYTES = 1024 * 1024
"""A pyproject.toml larger than this (1 MiB) is read no further."""

_DOTTED = (b"tool.runctx", b'tool."runctx"', b"tool.'runctx'")
_KEYS = (b"runctx", b'"runctx"', b"'runctx'")


def _name_goes_on(following: bytes) -> bool:
    """Whether the byte after ``runctx`` continues a longer key (``runctxx``)."""
    return following.isalnum() or following in (b"_", b"-")


def mentions_runctx_table(data: bytes) -> bool:
    """Whether a TOML text may hold a ``[tool.runctx]`` table, in any spelling.

    ``[tool.runctx]``, ``[tool."runctx"]``, ``tool.runctx.x = …``, or a
    ``runctx`` key under a ``[tool]`` header. A text without any of these has no
    runctx settings, so it is not parsed at all: a project that merely names
    runctx (a dependency, an entry point ``runctx = "..."``) is not parsed
    either. Plain byte operations, line by line: no regex to compile on the
    hook's path.
    """
    if b"runctx" not in data:
        return False
    header = b""
    for raw in data.splitlines():
        line = raw.strip()
        if b"runctx" in line:
            squeezed = line.replace(b" ", b"").replace(b"\t", b"")
            for dotted in _DOTTED:
                at = squeezed.find(dotted)
                if at >= 0 and not _name_goes_on(squeezed[at + len(dotted) : at + len(dotted) + 1]):
                    return True
            if header == b"tool" and squeezed.startswith(_KEYS):
                rest = squeezed[len(next(k for k in _KEYS if squeezed.startswith(k))) :]
                if rest[:1] in (b".", b"="):
                    return True
        if line.startswith(b"["):
            header = line.strip(b"[]").strip()
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
