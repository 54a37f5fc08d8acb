"""Stale bytecode: whether each module of the checkout ran the code that is on disk now.

Python keeps compiled modules in a cache (``__pycache__/NAME.TAG.pyc``, or
under ``sys.pycache_prefix``) and trusts an entry while its header matches
the source's modification time *in whole seconds* and its size. An edit that
keeps the size and lands within the same second is therefore served the code
of the version before it: a suite goes green on code that is no longer on
disk. ``python -B`` does not help (it stops *writing* the cache, not reading
it); a cache prefix of the session's own does, because no earlier entry can
be found there.

Two answers, for the pytest plugin's ``--runctx-bytecode``:

- :func:`fresh_prefix` (from :mod:`runctx.pycache`) gives a session a new, empty cache prefix
  (``sys.pycache_prefix`` for this process, ``PYTHONPYCACHEPREFIX`` for the
  processes it starts): every module imported after it is compiled from its
  source as it is then.
- :func:`check_module` looks, after a session, at each module it imported
  from the checkout (:func:`checkout_modules`) and names it when its code is not
  what its source on disk compiles to now. The code a module ran is the cache entry it was
  loaded from; an entry whose header still matches the source, but whose code
  differs from the source's, is the same-second, same-size case: it is served
  to every import, and it was served to this one. An entry written during the
  session that differs tells of a source changed after it was imported. A
  source changed during the session with no entry to compare is named as
  unsure (which version ran cannot be told). A module loaded from a bytecode
  file with no source at all (a ``NAME.pyc`` beside where ``NAME.py`` was,
  which Python imports once the source is gone) ran code that is not on disk
  as source: it is named too.

Modules that pytest rewrote for assertions (test modules, conftest files) are
checked against pytest's own cache, with its own rewriting, where its
functions can be found; otherwise they are named as not checked.
"""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import marshal
import os
import sys
import types
from collections.abc import Callable, Mapping
from pathlib import Path

import attrs

from runctx.planted import read_bounded
from runctx.pycache import PREFIX_ENV, drop_prefix, filesystem_now, fresh_prefix, use_prefix
from runctx.record_base import Record

__all__ = [
    "PREFIX_ENV",
    "CacheHeader",
    "StaleModule",
    "Staleness",
    "check_module",
    "checkout_modules",
    "drop_prefix",
    "filesystem_now",
    "fresh_prefix",
    "header_matches",
    "parse_header",
    "use_prefix",
]
MAX_SOURCE_BYTES = 64 * 1024 * 1024
"""The largest source or cache file compared (64 MiB); a larger one is not checked."""
_HEADER = 16
_FLAG_HASH = 0b1
_FLAG_CHECK_SOURCE = 0b10


class Staleness:
    """How a module's code differs from its source on disk (the values of ``StaleModule.how``)."""

    SERVED = "served"
    """The cache entry still matches the source's size and second, but holds other code."""
    CHANGED = "changed"
    """The source changed on disk after the module was imported."""
    UNSURE = "unsure"
    """The source changed during the session, and which version ran cannot be told."""
    UNCHECKED = "unchecked"
    """The module could not be checked (a cache runctx cannot read, no compiler for it)."""
    SOURCELESS = "sourceless"
    """The module ran a bytecode file with no source on disk (its source was removed)."""


@attrs.frozen(repr=False, eq=False)
class StaleModule(Record):
    """A module of the checkout that did not (or may not) run the code on disk now."""

    name: str
    source: str
    cache: str
    how: str
    detail: str = ""


@attrs.frozen(repr=False, eq=False)
class CacheHeader(Record):
    """The header of a cache entry: timestamp-based (mtime, size) or hash-based."""

    mtime: int | None
    size: int | None
    source_hash: bytes | None
    check_source: bool


def parse_header(data: bytes) -> CacheHeader | None:
    """The header of a ``.pyc`` (importlib's or pytest's); None if it is not this Python's."""
    if len(data) < _HEADER or data[:4] != importlib.util.MAGIC_NUMBER:
        return None
    flags = int.from_bytes(data[4:8], "little")
    if flags & _FLAG_HASH:
        return CacheHeader(None, None, data[8:16], bool(flags & _FLAG_CHECK_SOURCE))
    if flags:
        return None
    mtime = int.from_bytes(data[8:12], "little")
    size = int.from_bytes(data[12:16], "little")
    return CacheHeader(mtime, size, None, check_source=True)


def header_matches(header: CacheHeader, source: os.stat_result, source_bytes: bytes) -> bool:
    """Whether an import now would accept the entry for this source (as importlib decides)."""
    if header.source_hash is not None:
        if not header.check_source:
            return True
        return importlib.util.source_hash(source_bytes) == header.source_hash
    return header.mtime == int(source.st_mtime) & 0xFFFFFFFF and header.size == (
        source.st_size & 0xFFFFFFFF
    )


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def checkout_modules(
    checkout: str, modules: Mapping[str, object] | None = None
) -> list[tuple[str, types.ModuleType]]:
    """The modules imported from files inside ``checkout`` (sources, or bytecode alone), by name."""
    top = os.path.realpath(checkout)
    found = []
    for name, module in list((sys.modules if modules is None else modules).items()):
        if not isinstance(module, types.ModuleType):
            continue
        spec = getattr(module, "__spec__", None)
        origin = getattr(spec, "origin", None)
        if not isinstance(origin, str) or not (origin.endswith(".py") or _sourceless(spec)):
            continue
        if _inside(os.path.realpath(origin), top):
            found.append((name, module))
    return sorted(found, key=lambda item: item[0])


Compiler = Callable[[str, bytes], types.CodeType]
"""Compiles a source file's bytes (its path given) the way its loader did."""


def compile_plain(path: str, source: bytes) -> types.CodeType:
    """What importlib's source loader compiles ``source`` to."""
    code: types.CodeType = compile(source, path, "exec", dont_inherit=True)
    return code


def _pytest_rewriter(config: object) -> tuple[Callable[[str], str], Compiler] | None:
    """Where pytest caches a module it rewrote, and how it compiles one; None if unknown."""
    rewrite = sys.modules.get("_pytest.assertion.rewrite")
    cache_dir = getattr(rewrite, "get_cache_dir", None)
    tail = getattr(rewrite, "PYC_TAIL", None)
    rewrite_asserts = getattr(rewrite, "rewrite_asserts", None)
    if cache_dir is None or not isinstance(tail, str) or rewrite_asserts is None:
        return None

    def cache_of(source: str) -> str:
        return os.path.join(str(cache_dir(Path(source))), Path(source).stem + tail)

    def rewritten(path: str, source: bytes) -> types.CodeType:
        tree = ast.parse(source, filename=path)
        rewrite_asserts(tree, source, path, config)
        code: types.CodeType = compile(tree, path, "exec", dont_inherit=True)
        return code

    return cache_of, rewritten


def _sourceless(spec: object) -> bool:
    """Whether a module was loaded from a bytecode file with no source (``NAME.pyc``)."""
    return isinstance(getattr(spec, "loader", None), importlib.machinery.SourcelessFileLoader)


def _loaded_by_pytest(module: types.ModuleType) -> bool:
    loader = getattr(getattr(module, "__spec__", None), "loader", None)
    return type(loader).__name__ == "AssertionRewritingHook"


def _cache_and_compiler(module: types.ModuleType, config: object) -> tuple[str, Compiler] | str:
    """The cache entry a module was loaded from and its compiler, or why it cannot be checked."""
    spec = module.__spec__
    assert spec is not None  # noqa: S101 - checkout_modules keeps modules with a spec
    origin = str(spec.origin)
    if _loaded_by_pytest(module):
        rewriter = _pytest_rewriter(config)
        if rewriter is None:
            return "rewritten by pytest, whose cache runctx cannot find"
        cache_of, rewritten = rewriter
        return cache_of(origin), rewritten
    if isinstance(spec.loader, importlib.machinery.SourceFileLoader):
        cached = spec.cached or importlib.util.cache_from_source(origin)
        return cached, compile_plain
    return f"loaded by {type(spec.loader).__name__}, not from a bytecode cache runctx knows"


def check_module(
    name: str, module: types.ModuleType, since_ns: int, rewrite_config: object = None
) -> StaleModule | None:
    """Whether ``module`` ran the code of its source on disk now; None when it did.

    ``since_ns`` is when the session started, on the file system's clock
    (:func:`filesystem_now`); ``rewrite_config`` the pytest config that
    rewrote test modules (their rewriting depends on it).
    """
    spec = module.__spec__
    assert spec is not None  # noqa: S101 - see checkout_modules
    origin = str(spec.origin)
    if _sourceless(spec):
        return StaleModule(name, origin, origin, Staleness.SOURCELESS, "")
    found = _cache_and_compiler(module, rewrite_config)
    if isinstance(found, str):
        return StaleModule(name, origin, "", Staleness.UNCHECKED, found)
    cache, compiler = found
    how = _staleness(origin, cache, compiler, since_ns)
    return None if how is None else StaleModule(name, origin, cache, *how)


def _cache_entry(cache: str) -> tuple[os.stat_result, bytes, CacheHeader] | None:
    """The cache entry at ``cache``: its stat, bytes and header; None if none of this Python's."""
    try:
        entry = os.stat(cache)
        data, whole = read_bounded(cache, MAX_SOURCE_BYTES)
    except OSError:
        return None
    header = parse_header(data) if whole else None
    return None if header is None else (entry, data, header)


def _staleness(  # noqa: PLR0911 - one answer per way the code can differ
    origin: str, cache: str, compiler: Compiler, since_ns: int
) -> tuple[str, str] | None:
    """How the code a module ran differs from its source now (how, detail); None if it does not."""
    try:
        source = os.stat(origin)
        source_bytes, whole = read_bounded(origin, MAX_SOURCE_BYTES)
    except OSError as error:
        return Staleness.CHANGED, f"its source cannot be read now: {error.strerror or error}"
    if not whole:
        return Staleness.UNCHECKED, "its source is larger than 64 MiB"
    changed_during = source.st_mtime_ns >= since_ns
    found = _cache_entry(cache)
    if found is None:
        return (Staleness.UNSURE, "no bytecode cache to compare") if changed_during else None
    entry, data, header = found
    try:
        cached_code = marshal.loads(data[_HEADER:])  # noqa: S302 - the module's own cache entry
        same = cached_code == compiler(origin, source_bytes)
    except (ValueError, EOFError, TypeError, SyntaxError) as error:
        return Staleness.UNCHECKED, f"cannot compare: {error}"
    if same:
        return None
    if header_matches(header, source, source_bytes):
        return Staleness.SERVED, ""
    if entry.st_mtime_ns >= since_ns:
        return Staleness.CHANGED, ""
    return (Staleness.UNSURE, "") if changed_during else None
