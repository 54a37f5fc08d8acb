"""Merge runctx's hook entries into an agent's JSON settings file, and take them out again.

The rules, for every agent:

- **Every existing key and hook is kept, as it was written.** The file is
  parsed as strict JSON; the text of every value runctx does not change is
  copied as it was (``2.50`` stays ``2.50``, ``1e5`` stays ``1e5``, a compact
  ``{"a":1}`` stays compact, ``"\u00e9"`` stays escaped,
  :mod:`runctx.hooks.json_layout`); only runctx's own entries are added,
  indented like their neighbours, or removed with their separators.
- **Idempotent.** An entry counts as present when any handler of the same
  event already runs ``runctx hook FACE`` (with any prefix: ``runctx``, a path
  to it, ``uv run runctx``...). When nothing needs to change, the file is not
  written at all, so a second install leaves it byte for byte as it was.
- **Atomic.** The new text goes to a temporary file in the same directory
  (``.NAME.runctx-tmp-XXXXXXXX``), which is flushed, given the old file's mode
  (and owner, where allowed) and renamed over the old one. A temporary file
  left by an install that was killed (``kill -9``) is removed by the next one,
  under the lock; on every other path none is left behind.
- **Refused, with the reason, and left as it was**: a settings file that is
  not a regular file (a FIFO, a device, a socket: never opened), one made
  read-only (no write bit for its owner: the user meant it to stay), one with
  several hard links (replacing it would break them), one larger than
  :data:`MAX_SETTINGS_BYTES`, and a symlink to nothing. A symlink to a
  file is followed on purpose: the file it points to is updated, and the
  link stays a link.
- **Racing installs lose nothing.** The read-change-write runs under an
  exclusive ``flock`` on the settings file's directory (no lock file is left
  behind), and the file is re-read under the lock.
- **A malformed file is never touched.** Invalid JSON (comments included),
  duplicate keys, or a ``hooks`` of the wrong shape stop with
  :class:`SettingsFileError`, which says what is wrong and what to add by hand.
- **Uninstall removes exactly what runctx added**: the handlers that run
  ``runctx hook FACE`` for the agent's faces, then the groups, event lists and
  ``hooks`` object that this removal left empty.
"""

from __future__ import annotations

import contextlib
import difflib
import fcntl
import json
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterator

import attrs

from runctx.exceptions import RunctxError
from runctx.hooks import json_layout
from runctx.hooks.agents.base import HookEntry, InstallSpec
from runctx.planted import NotRegularFileError, read_bounded

MAX_SETTINGS_BYTES = 16 * 1024 * 1024
"""The largest settings file runctx edits (16 MiB)."""
TEMP_MARK = ".runctx-tmp-"
"""What the name of runctx's temporary file holds: ``.settings.json.runctx-tmp-XXXXXXXX``."""

JSONObject = dict[str, object]


class SettingsFileError(RunctxError):
    """An agent's settings file cannot be read, understood or written safely."""


_OURS = re.compile(
    r"\s*(?P<prefix>[^;&|<>`$()\n]*?)\s+hook\s+(?P<face>[a-z][a-z-]*)"
    r"(?:\s*\|\|\s*true)?\s*"
)
_RUNCTX = re.compile(r"(?:^|[\s/\"'])runctx(?:\.exe)?[\"']?$")
FAIL_OPEN_SUFFIX = " || true"
"""Appended where an agent blocks the tool when a hook exits non-zero (Copilot)."""


def face_of(command: object) -> str | None:
    """The hook face a handler's command runs, or None when it is not runctx's own.

    Only a command that is exactly ``PREFIX hook FACE`` (optionally followed by
    ``|| true``), whose prefix ends in the ``runctx`` program, is runctx's: a
    user's own command that merely contains one (``audit.sh && runctx hook
    claude``) is theirs, never replaced or removed.
    """
    if not isinstance(command, str):
        return None
    found = _OURS.fullmatch(command)
    if found is None or not _RUNCTX.search(found.group("prefix")):
        return None
    return found.group("face")


def handler(spec: InstallSpec, entry: HookEntry, prefix: str) -> JSONObject:
    """The handler object that runs ``entry`` with the command ``prefix``."""
    made: JSONObject = {}
    if spec.handler_type:
        made["type"] = "command"
    if entry.name is not None:
        made["name"] = entry.name
    command = f"{prefix} hook {entry.face}"
    if spec.blocks_on_failure:
        command += FAIL_OPEN_SUFFIX
    made[spec.command_key] = command
    if spec.timeout_key is not None and spec.timeout is not None:
        made[spec.timeout_key] = spec.timeout
    return made


def hook_item(spec: InstallSpec, entry: HookEntry, prefix: str) -> JSONObject:
    """What goes into ``hooks.EVENT`` for ``entry``: a group, or a bare handler."""
    if spec.layout == "flat":
        return handler(spec, entry, prefix)
    group: JSONObject = {}
    if entry.matcher is not None:
        group["matcher"] = entry.matcher
    group["hooks"] = [handler(spec, entry, prefix)]
    return group


def handler_face(spec: InstallSpec, found: object) -> str | None:
    """The runctx face a handler runs, or None if it is not runctx's."""
    if not isinstance(found, dict):
        return None
    for key in (spec.command_key, "command", "bash", "powershell"):
        face = face_of(found.get(key))
        if face is not None:
            return face
    return None


# --------------------------------------------------------------------------- the document


def _object_without_duplicates(pairs: list[tuple[str, object]]) -> JSONObject:
    document: JSONObject = {}
    for key, value in pairs:
        if key in document:
            msg = f"duplicate key {key!r}"
            raise ValueError(msg)
        document[key] = value
    return document


def _finite_float(text: str) -> float:
    """A JSON number as a float; one that overflows to infinity is refused."""
    value = float(text)
    if value in (float("inf"), float("-inf")):
        msg = f"the number {text} does not fit a float, and rewriting it would change it"
        raise ValueError(msg)
    return value


def _no_constant(name: str) -> object:
    """``NaN``/``Infinity`` are not JSON: refuse rather than carry them on."""
    msg = f"{name} is not JSON"
    raise ValueError(msg)


def parse(text: str, path: str) -> JSONObject:
    """The settings object in ``text``; an empty file is ``{}``.

    Strict JSON only: duplicate keys, ``NaN``/``Infinity`` and numbers that do
    not fit a float are refused, since writing the file back could not keep them.
    """
    if not text.strip():
        return {}
    try:
        document = json.loads(
            text,
            object_pairs_hook=_object_without_duplicates,
            parse_float=_finite_float,
            parse_constant=_no_constant,
        )
    except (ValueError, RecursionError) as error:
        msg = (
            f"{path} is not valid JSON ({error}); runctx does not rewrite it, so that "
            "nothing in it is lost (comments included). Fix it, or add the hooks by hand "
            "(see the ready files in runctx's hooks/ directory)"
        )
        raise SettingsFileError(msg) from None
    if not isinstance(document, dict):
        msg = (
            f"{path} holds a JSON {type(document).__name__}, not an object; runctx leaves it alone"
        )
        raise SettingsFileError(msg)
    return document


def _indent(text: str) -> int | str:
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[: len(line) - len(stripped)]
            return "\t" if lead.startswith("\t") else len(lead)
    return 2


def _unit(text: str) -> str:
    indent = _indent(text)
    return indent if isinstance(indent, str) else " " * indent


def settings_text(document: JSONObject, original: str | None) -> str:
    """``document`` as JSON text, indented like ``original`` (2 spaces for a new file)."""
    indent = _indent(original) if original else 2
    text = json.dumps(document, indent=indent, ensure_ascii=False, allow_nan=False) + "\n"
    # A lone surrogate (a "\ud800" in the file) is written back as the escape it was.
    return re.sub("[\ud800-\udfff]", lambda found: f"\\u{ord(found.group()):04x}", text)


def _events(document: JSONObject, path: str, *, create: bool) -> JSONObject | None:
    hooks = document.get("hooks")
    if hooks is None:
        if not create:
            return None
        hooks = document["hooks"] = {}
    if not isinstance(hooks, dict):
        msg = f"{path}: 'hooks' is a JSON {type(hooks).__name__}, expected an object"
        raise SettingsFileError(msg)
    return hooks


def _handlers(spec: InstallSpec, items: list[object]) -> Iterator[object]:
    for item in items:
        if spec.layout == "flat":
            yield item
        elif isinstance(item, dict) and isinstance(item.get("hooks"), list):
            yield from item["hooks"]


def install(spec: InstallSpec, document: JSONObject, prefix: str, path: str) -> list[HookEntry]:
    """Add the entries of ``spec`` that are missing; return those added."""
    added = []
    if spec.version is not None and "version" not in document and not document:
        document["version"] = spec.version
    hooks = _events(document, path, create=True)
    assert hooks is not None  # noqa: S101 - create=True always gives the object
    for entry in spec.entries:
        items = hooks.setdefault(entry.event, [])
        if not isinstance(items, list):
            msg = (
                f"{path}: 'hooks.{entry.event}' is a JSON {type(items).__name__}, expected an array"
            )
            raise SettingsFileError(msg)
        if any(handler_face(spec, h) == entry.face for h in _handlers(spec, items)):
            continue
        items.append(hook_item(spec, entry, prefix))
        added.append(entry)
    if spec.version is not None:
        document.setdefault("version", spec.version)
    return added


def uninstall(spec: InstallSpec, document: JSONObject, path: str) -> int:
    """Remove the handlers that run the faces of ``spec``; return how many were removed."""
    hooks = _events(document, path, create=False)
    if hooks is None:
        return 0
    faces = spec.faces
    removed = 0
    for event in list(hooks):
        items = hooks[event]
        if not isinstance(items, list) or not items:
            continue
        kept: list[object] = []
        for item in items:
            keep, gone = _prune(spec, item, faces)
            removed += gone
            if keep:
                kept.append(item)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if removed and not hooks:
        del document["hooks"]
    return removed


def _prune(spec: InstallSpec, item: object, faces: frozenset[str]) -> tuple[bool, int]:
    """Take runctx's handlers out of one item: whether the item stays, and how many went."""
    if spec.layout == "flat":
        ours = handler_face(spec, item) in faces
        return not ours, int(ours)
    if not isinstance(item, dict) or not isinstance(item.get("hooks"), list):
        return True, 0
    handlers = item["hooks"]
    remaining = [h for h in handlers if handler_face(spec, h) not in faces]
    gone = len(handlers) - len(remaining)
    if gone and not remaining:
        return False, gone
    if gone:
        item["hooks"] = remaining
    return True, gone


def is_empty(spec: InstallSpec, document: JSONObject) -> bool:
    """Whether ``document`` holds nothing but what runctx would write for a new file."""
    rest = {key: value for key, value in document.items() if key != "version"}
    return not rest and document.get("version", spec.version) == spec.version


# --------------------------------------------------------------------------- the file


@attrs.frozen
class Update:
    """What an update did (or, for a dry run, would do) to one file."""

    path: str
    before: str | None
    after: str | None
    result: object

    @property
    def changed(self) -> bool:
        """Whether the file's text changed (or would change)."""
        return self.before != self.after

    def diff(self) -> str:
        """A unified diff from the old text to the new one."""
        lines = difflib.unified_diff(
            (self.before or "").splitlines(keepends=True),
            (self.after or "").splitlines(keepends=True),
            fromfile=self.path if self.before is not None else "/dev/null",
            tofile=self.path if self.after is not None else "/dev/null",
        )
        return "".join(lines)


@contextlib.contextmanager
def _locked(directory: str) -> Iterator[None]:
    """An exclusive ``flock`` on ``directory`` for the duration of the block."""
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _read(path: str) -> str | None:
    """The text of the settings file: regular files only, never blocking, bounded."""
    try:
        data, whole = read_bounded(path, MAX_SETTINGS_BYTES)
        if not whole:
            size = MAX_SETTINGS_BYTES // 1024 // 1024
            msg = f"{path} is larger than {size} MiB; runctx does not edit it"
            raise SettingsFileError(msg)
        return data.decode("utf-8")
    except FileNotFoundError:
        return None
    except NotRegularFileError as error:
        msg = (
            f"{path} is {error.strerror}; runctx does not open it, and leaves it alone. "
            "Put a JSON file there, or give another file with --file"
        )
        raise SettingsFileError(msg) from None
    except UnicodeDecodeError as error:
        msg = f"{path} is not UTF-8 text ({error}); runctx leaves it alone"
        raise SettingsFileError(msg) from None
    except OSError as error:
        msg = f"{path}: cannot read: {error.strerror or error}"
        raise SettingsFileError(msg) from None


def _check_replaceable(path: str) -> None:
    """Refuse to replace a file the user made read-only, or one with other hard links."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return
    if not info.st_mode & stat.S_IWUSR:
        msg = (
            f"{path} is read-only (mode {stat.S_IMODE(info.st_mode):04o}); runctx does not "
            "replace a file made read-only. Make it writable (chmod u+w) to let runctx "
            "change it, or add the hooks by hand"
        )
        raise SettingsFileError(msg)
    if info.st_nlink > 1:
        msg = (
            f"{path} has {info.st_nlink} hard links; writing it atomically would make it a new "
            "file and break the others, so runctx leaves it alone. Add the hooks by hand, or "
            "make it a single file first"
        )
        raise SettingsFileError(msg)


def _remove_stale_temporaries(directory: str, name: str) -> None:
    """Remove temporary files that an install killed before its rename left behind.

    Called under the directory's lock: no other install is writing one now.
    Only regular files named ``.NAME.runctx-tmp-*`` are removed.
    """
    prefix = f".{name}{TEMP_MARK}"
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for found in names:
        if not found.startswith(prefix):
            continue
        path = os.path.join(directory, found)
        with contextlib.suppress(OSError):
            if stat.S_ISREG(os.lstat(path).st_mode):
                os.unlink(path)


def _write_atomically(path: str, text: str) -> None:
    directory = os.path.dirname(path)
    try:
        old = os.stat(path)
    except FileNotFoundError:
        old = None
    fd, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(path)}{TEMP_MARK}", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            if old is not None:
                os.fchmod(stream.fileno(), stat.S_IMODE(old.st_mode))
                with contextlib.suppress(PermissionError):
                    os.fchown(stream.fileno(), old.st_uid, old.st_gid)
            else:
                umask = os.umask(0)
                os.umask(umask)
                os.fchmod(stream.fileno(), 0o666 & ~umask)
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    _sync_directory(directory)


def _sync_directory(directory: str) -> None:
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def update(
    path: str,
    change: Callable[[JSONObject, str], tuple[object, bool]],
    *,
    dry_run: bool = False,
    remove_when: Callable[[JSONObject], bool] | None = None,
) -> Update:
    """Apply ``change`` to the settings object in ``path``, atomically and under a lock.

    ``change(document, path)`` edits the document in place and returns a result
    and whether it changed anything. ``remove_when(document)`` True after a
    change removes the file instead of writing it. Missing parent directories
    are created (not for a dry run).
    """
    target = os.path.realpath(path)
    if os.path.islink(path) and not os.path.lexists(target):
        msg = f"{path} is a symlink to {target}, which does not exist; runctx does not create it"
        raise SettingsFileError(msg)
    directory = os.path.dirname(target)
    if dry_run and not os.path.isdir(directory):
        return _apply(target, None, change, remove_when)
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as error:
        msg = f"cannot create {directory}: {error.strerror or error}"
        raise SettingsFileError(msg) from None
    try:
        with _locked(directory):
            if not dry_run:
                _remove_stale_temporaries(directory, os.path.basename(target))
            outcome = _apply(target, _read(target), change, remove_when)
            if not outcome.changed:
                return outcome
            _check_replaceable(target)
            if dry_run:
                return outcome
            if outcome.after is None:
                os.unlink(target)
                _sync_directory(directory)
            else:
                _write_atomically(target, outcome.after)
    except OSError as error:
        msg = f"cannot update {target}: {error.strerror or error}; it is left as it was"
        raise SettingsFileError(msg) from None
    return outcome


def _apply(
    path: str,
    before: str | None,
    change: Callable[[JSONObject, str], tuple[object, bool]],
    remove_when: Callable[[JSONObject], bool] | None,
) -> Update:
    if before is None or not before.strip():
        document = parse(before or "", path)
        result, changed = change(document, path)
        after = settings_text(document, before)
    else:
        parse(before, path)  # strict, with the error that says what is wrong
        try:
            document, after, (result, changed) = json_layout.edit(
                before,
                lambda found: change(found, path),
                _unit(before),
                lambda found: settings_text(found, before),
            )
        except (ValueError, RecursionError):  # the layout parser gave up: the values are kept
            document = parse(before, path)
            result, changed = change(document, path)
            after = settings_text(document, before)
    if not changed:
        return Update(path=path, before=before, after=before, result=result)
    if remove_when is not None and remove_when(document):
        return Update(path=path, before=before, after=None, result=result)
    return Update(path=path, before=before, after=after, result=result)
