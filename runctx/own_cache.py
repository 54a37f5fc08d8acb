"""Whether runctx's own modules load from Python's compiled cache, or are compiled at each start.

Every hook call is a new Python process that imports runctx. Python keeps a
compiled copy of each module (``__pycache__/NAME.TAG.pyc``, or under
``PYTHONPYCACHEPREFIX``) and loads it while it still matches the source; it
writes the copy the first time a module is imported, unless it may not:
``PYTHONDONTWRITEBYTECODE`` is set (many container images set it) or the
cache directory is not writable by the user. An editable install (``pip
install -e``, which the Makefile does) compiles nothing in advance, so under
either condition every hook call compiles all of runctx's modules again:
about 0.12 s of CPU, which doubles the cost of a refusal and, on a saturated
box, its wall time. A wheel installed by pip is compiled at install and is
not affected.

:func:`own_cache` tells how many of runctx's modules have no current cache
entry and whether the next start would write them; :func:`cache_note` words it
for ``runctx doctor``, with the command that writes the cache once.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from pathlib import Path

import attrs

from runctx.bytecode import header_matches, parse_header
from runctx.planted import read_bounded
from runctx.record_base import Record

__all__ = ["OwnCache", "cache_note", "own_cache"]

PACKAGE_DIR = str(Path(__file__).resolve().parent)
"""The directory of runctx's own modules."""
_HEADER_BYTES = 16
_MAX_SOURCE_BYTES = 4 * 1024 * 1024
"""The largest source read to check a hash-based entry (runctx's are far smaller)."""


@attrs.frozen(repr=False, eq=False)
class OwnCache(Record):
    """runctx's modules that a start would compile again, and whether it would keep the result."""

    package_dir: str
    modules: int
    """How many modules (``.py`` files) the package has."""
    uncached: tuple[str, ...]
    """The modules, relative to ``package_dir``, with no cache entry an import would accept."""
    not_written: str
    """Why a start would not write the missing entries (``""``: it would write them)."""

    @property
    def compiled_each_call(self) -> bool:
        """Whether every start compiles some of runctx's modules again."""
        return bool(self.uncached and self.not_written)


def _entry_is_current(source: str) -> bool:
    """Whether an import now would load ``source`` from its cache entry."""
    try:
        cache = importlib.util.cache_from_source(source)
        head, _ = read_bounded(cache, _HEADER_BYTES)
        stated = os.stat(source)
    except (OSError, ValueError, NotImplementedError):
        return False
    header = parse_header(head)
    if header is None:
        return False
    text = b""
    if header.source_hash is not None and header.check_source:
        try:
            text, whole = read_bounded(source, _MAX_SOURCE_BYTES)
        except OSError:
            return False
        if not whole:
            return False
    return header_matches(header, stated, text)


def _cache_writable(source: str) -> bool:
    """Whether this user may write ``source``'s cache entry (its directory, or the one to make)."""
    try:
        directory = os.path.dirname(importlib.util.cache_from_source(source))
    except (ValueError, NotImplementedError):
        return False
    while not os.path.isdir(directory):
        parent = os.path.dirname(directory)
        if parent == directory:
            return False
        directory = parent
    return os.access(directory, os.W_OK | os.X_OK)


def _not_written(uncached: list[str], environ: Mapping[str, str]) -> str:
    """Why a start would not write the entries of ``uncached`` (``""``: it would)."""
    if not uncached:
        return ""
    if environ.get("PYTHONDONTWRITEBYTECODE"):
        return "PYTHONDONTWRITEBYTECODE is set"
    if not _cache_writable(uncached[0]):
        return "its cache directory is not writable by this user"
    return ""


def own_cache(package_dir: str = PACKAGE_DIR, environ: Mapping[str, str] | None = None) -> OwnCache:
    """The state of the compiled cache of the modules under ``package_dir``."""
    environ = os.environ if environ is None else environ
    sources = sorted(str(path) for path in Path(package_dir).rglob("*.py"))
    uncached = [source for source in sources if not _entry_is_current(source)]
    return OwnCache(
        package_dir=package_dir,
        modules=len(sources),
        uncached=tuple(os.path.relpath(source, package_dir) for source in uncached),
        not_written=_not_written(uncached, environ),
    )


def cache_note(state: OwnCache) -> str | None:
    """What ``runctx doctor`` says when every hook call compiles runctx again; None when not."""
    if not state.compiled_each_call:
        return None
    count = len(state.uncached)
    has, them = ("has", "it") if count == 1 else ("have", "them")
    return (
        f"{count} of runctx's {state.modules} modules {has} no compiled cache and Python will "
        f"not write one ({state.not_written}): every hook call compiles {them} again (all of "
        "them take about 0.12 s of CPU a call, as much as the rest of a refusal; longer "
        "on a busy box); "
        f"`python -m compileall -q {state.package_dir}` writes the cache once"
    )
