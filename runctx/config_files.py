"""Where runctx's settings files are, and whether one may set anything: no parsing.

The hook's fast path (:mod:`runctx.fastpath`) asks one question of them
before a command's runner names are looked for: may the user's configuration
file or the checkout's ``pyproject.toml`` add runner rows at all
(:func:`may_add_runners`)? Only then is a file parsed, by
:mod:`runctx.settings`. So this module reads bytes and imports nothing but the
bounded reader and the markers' owner rule.
"""

from __future__ import annotations

import os

from runctx.checkout import rules_for
from runctx.exceptions import UnreadableConfigError
from runctx.planted import feed_chunks, read_bounded

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

MODE_ENV = "RUNCTX_ON_SAME_CHECKOUT"
SHARED_TREE_ENV = "RUNCTX_ON_SHARED_TREE"

PYPROJECT = "pyproject.toml"
CONFIG_ENV = "RUNCTX_CONFIG"
"""A path to the user's configuration file, instead of the XDG location."""
USER_CONFIG = os.path.join("runctx", "config.toml")
"""The user's configuration file, under ``$XDG_CONFIG_HOME`` (default ``~/.config``)."""
MAX_PYPROJECT_BYTES = 1024 * 1024
"""The largest pyproject.toml whose ``[tool.runctx]`` is parsed (1 MiB)."""
MAX_SCANNED_BYTES = 8 * 1024 * 1024
"""The largest pyproject.toml searched for a ``[tool.runctx]`` table (8 MiB); a larger one is
not read at all (its size is looked at first), and its settings cannot be read."""
MAX_LINE_BYTES = MAX_PYPROJECT_BYTES
"""The longest line of a larger file judged exactly; a longer one that names runctx may hold it."""
MAX_USER_CONFIG_BYTES = MAX_PYPROJECT_BYTES
"""The largest user configuration file read (1 MiB); a larger one is an error."""

_DOTTED = (b"tool.runctx", b'tool."runctx"', b"tool.'runctx'")
_KEYS = (b"runctx", b'"runctx"', b"'runctx'")
_BREAKS = (b"\n", b"\r")
_TOOL_KEYS = (b"tool={", b'"tool"={', b"'tool'={")


def _squeezed(text: bytes) -> bytes:
    """``text`` without its spaces and tabs, as the rule reads a line (``[ tool . runctx ]``)."""
    return text.replace(b" ", b"").replace(b"\t", b"")


def _bare(text: bytes) -> bytes:
    """``text`` without its blanks and quotes, as the rule reads a header's name."""
    return _squeezed(text).replace(b'"', b"").replace(b"'", b"")


def _header_name(line: bytes) -> bytes:
    """The name of a ``[...]`` header line, unquoted, without a comment after it."""
    return _bare(line.lstrip(b"[").partition(b"]")[0])


def _name_goes_on(following: bytes) -> bool:
    """Whether the byte after ``runctx`` continues a longer key (``runctxx``)."""
    return following.isalnum() or following in (b"_", b"-")


class _TableSpotter:
    """The rule of :func:`mentions_runctx_table`, line after line, with the last header seen.

    ``header`` is the last ``[...]`` header line's name, or None when it is
    not known (a header line too long to hold): then it may be ``[tool]``.
    """

    __slots__ = ("header",)

    def __init__(self) -> None:
        self.header: bytes | None = b""

    def line(self, raw: bytes) -> bool:
        """Whether the line ``raw`` (no line break in it) may belong to a runctx table."""
        line = raw.strip()
        if b"runctx" in line:
            squeezed = _squeezed(line)
            for dotted in _DOTTED:
                at = squeezed.find(dotted)
                if at >= 0 and not _name_goes_on(squeezed[at + len(dotted) : at + len(dotted) + 1]):
                    return True
            if squeezed.startswith(_TOOL_KEYS):  # tool = { runctx = ... }
                return True
            if self.header in (b"tool", None) and squeezed.startswith(_KEYS):
                rest = squeezed[len(next(k for k in _KEYS if squeezed.startswith(k))) :]
                if rest[:1] in (b".", b"="):
                    return True
        if line.startswith(b"["):
            self.header = _header_name(line)
        return False

    def lines(self, data: bytes) -> bool:
        """Whether any of the whole lines in ``data`` may belong to a runctx table.

        Without the word ``runctx`` in ``data`` only its last header line
        matters, and is found from the end. ``tool`` is looked for as each
        line is read: without its blanks, and in a header without its quotes.
        """
        if b"runctx" in data and (
            b"tool" in data or self.header in (b"tool", None) or b"tool" in _bare(data)
        ):
            return any(self.line(raw) for raw in data.splitlines())
        end = len(data)
        while (at := data.rfind(b"[", 0, end)) >= 0:
            start = max(data.rfind(brk, 0, at) for brk in _BREAKS) + 1
            stop = min(
                (found for brk in _BREAKS if (found := data.find(brk, at)) >= 0), default=len(data)
            )
            line = data[start:stop].strip()
            if line.startswith(b"["):
                self.header = _header_name(line)
                return False
            end = start
        return False


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
    return _TableSpotter().lines(data)


class TableSearch:
    """:func:`mentions_runctx_table` over a text given in chunks, in bounded memory.

    :meth:`feed` each chunk, then :meth:`end`; either says True as soon as a
    line may belong to a runctx table. A line is held until it ends, up to
    :data:`MAX_LINE_BYTES`; a longer one is judged by what it may be: it may
    hold the table if it names runctx anywhere, and a header line that long
    may be ``[tool]``.
    """

    __slots__ = ("_long", "_partial", "_spotter")

    def __init__(self) -> None:
        """Nothing seen yet."""
        self._spotter = _TableSpotter()
        self._partial = bytearray()
        self._long: list[bytes] | None = None
        """For a line past the bound: [its first non-blank byte, the last 5 bytes], or None."""

    def feed(self, chunk: bytes) -> bool:
        """Whether the text up to the end of ``chunk``'s last whole line may hold the table."""
        first = min((at for brk in _BREAKS if (at := chunk.find(brk)) >= 0), default=-1)
        if first < 0:
            return self._extend(chunk)
        if self._extend(chunk[:first]) or self._end_line():
            return True
        last = max(chunk.rfind(brk) for brk in _BREAKS)
        if self._spotter.lines(chunk[first + 1 : last + 1]):
            return True
        return self._extend(chunk[last + 1 :])

    def end(self) -> bool:
        """Whether the last line (the text ended without a line break) may hold the table."""
        return self._end_line()

    def _extend(self, piece: bytes) -> bool:
        """Add ``piece`` to the line being read; True when a line too long to hold names runctx."""
        if self._long is None:
            if len(self._partial) + len(piece) <= MAX_LINE_BYTES:
                self._partial += piece
                return False
            held = bytes(self._partial)
            self._partial.clear()
            self._long = [held.lstrip()[:1], b""]
            piece = held + piece
        if b"runctx" in self._long[1] + piece[:5] or b"runctx" in piece:
            return True
        if not self._long[0]:
            self._long[0] = piece.lstrip()[:1]
        self._long[1] = (self._long[1] + piece)[-5:]
        return False

    def _end_line(self) -> bool:
        if self._long is not None:
            if self._long[0] == b"[":
                self._spotter.header = None
            self._long = None
            return False
        line = bytes(self._partial)
        self._partial.clear()
        return self._spotter.line(line)


def read_pyproject(path: str) -> bytes | None:
    """The bytes of a pyproject.toml, None when there is none or it cannot hold runctx's table.

    The file is read without blocking and only if it is a regular file
    (:mod:`runctx.planted`: anyone who can write a shared parent can put a
    FIFO there). One of at most :data:`MAX_PYPROJECT_BYTES` is read whole. A
    larger one is searched in chunks (:class:`TableSearch`, the rule of
    :func:`mentions_runctx_table`), up to :data:`MAX_SCANNED_BYTES`: without a
    table it has no runctx settings (None); with one, or past that bound, its
    settings cannot be read, and :class:`ConfigError` says so rather than
    silently using the defaults.
    """
    try:
        data, whole = read_bounded(path, MAX_PYPROJECT_BYTES)
        if whole:
            return data
        if os.stat(path).st_size > MAX_SCANNED_BYTES:
            found = None  # not searched at all: every hook call would pay for it
        else:
            search = TableSearch()
            found = feed_chunks(path, MAX_SCANNED_BYTES, search.feed)
            if found is False:
                found = search.end()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError) as error:  # ValueError: a NUL or a lone surrogate in the path
        msg = f"{path!r}: cannot read: {getattr(error, 'strerror', None) or error}"
        raise UnreadableConfigError(msg) from error
    if found is False:
        return None
    size = MAX_PYPROJECT_BYTES // 1024 // 1024
    advice = (
        f"Keep pyproject.toml under {size} MiB, or set ${MODE_ENV} and ${SHARED_TREE_ENV} "
        "in the environment instead"
    )
    if found:
        msg = (
            f"{path} holds a [tool.runctx] table, but it is larger than {size} MiB, the most "
            f"runctx parses: its runctx settings cannot be read. {advice}"
        )
    else:
        cap = MAX_SCANNED_BYTES // 1024 // 1024
        msg = (
            f"{path} is larger than {cap} MiB, the most runctx searches for a [tool.runctx] "
            f"table: whether it holds one cannot be told. {advice}"
        )
    raise UnreadableConfigError(msg)


def user_config_path(environ: Mapping[str, str]) -> str | None:
    """Where the user's configuration file is, or None when ``environ`` says no home.

    ``$RUNCTX_CONFIG``, else ``$XDG_CONFIG_HOME/runctx/config.toml`` (an
    absolute ``XDG_CONFIG_HOME`` only, as the XDG specification says), else
    ``$HOME/.config/runctx/config.toml``.
    """
    explicit = environ.get(CONFIG_ENV, "")
    if explicit:
        return explicit
    xdg = environ.get("XDG_CONFIG_HOME", "")
    if os.path.isabs(xdg):
        return os.path.join(xdg, USER_CONFIG)
    home = environ.get("HOME", "")
    if home:
        return os.path.join(home, ".config", USER_CONFIG)
    return None


def trusted(path: str) -> bool:
    """Whether the file (or link) at ``path`` is owned by one the markers' rule trusts.

    Root, the calling user, or, for a root caller started by ``sudo``, the
    invoking user (:func:`runctx.checkout.rules_for`); no file is trusted
    too: there is nothing to read.
    """
    try:
        owner = os.lstat(path).st_uid
    except (OSError, ValueError):
        return True
    return owner in rules_for([os.getuid()]).owners


def may_add_runners(root: object, environ: Mapping[str, str]) -> bool:
    """Whether a settings file may add runner rows for a checkout at ``root`` (a path, or not).

    True when the user's configuration file exists, or the checkout's
    ``pyproject.toml`` is trusted (:func:`trusted`) and may hold a
    ``[tool.runctx]`` table (:func:`mentions_runctx_table`), or cannot be
    read: then :mod:`runctx.settings` parses it, or says what is wrong.
    """
    user = user_config_path(environ)
    if user is not None and os.path.lexists(user):
        return True
    if not isinstance(root, str):
        return False
    path = os.path.join(root, PYPROJECT)
    if not trusted(path):
        return False
    try:
        data = read_pyproject(path)
    except UnreadableConfigError:
        return True
    return data is not None and mentions_runctx_table(data)
