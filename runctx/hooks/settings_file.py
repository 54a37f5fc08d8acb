"""Merge runctx's hook entries into an agent's JSON settings file, and take them out again.

The rules, for every agent:

- **Every existing key and hook is kept, as it was written.** The file is
  parsed as strict JSON; the text of every value runctx does not change is
  copied as it was (``2.50`` stays ``2.50``, ``1e5`` stays ``1e5``, a compact
  ``{"a":1}`` stays compact, ``"\u00e9"`` stays escaped,
  :mod:`runctx.hooks.json_layout`); only runctx's own entries are added,
  indented like their neighbours, or removed with their separators.
- **A teammate without runctx is not hurt.** The command written is
  guarded (:func:`hook_command`): where the program it starts cannot be
  found, the hook does nothing but write one line on stderr, and exits 0,
  so a committed settings file never breaks a teammate's agent.
- **Idempotent, and up to date.** An entry counts as present when any handler
  of the same event already runs ``runctx hook FACE`` (with any prefix:
  ``runctx``, a path to it, ``uv run runctx``..., guarded or not). Its command
  is brought to the form runctx writes now, keeping its prefix, or taking the
  one given (``runctx install --command PATH`` on an existing install updates
  it). When nothing needs to change, the file is not written at all, so a
  second install leaves it byte for byte as it was.
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
- **A malformed file is never touched.** Invalid JSON, duplicate keys, or a
  ``hooks`` of the wrong shape stop with :class:`SettingsFileError`, which
  says what is wrong and what to add by hand. Comments and trailing commas
  are invalid too, except in the files of an agent that reads them
  (:attr:`InstallSpec.comments`, :attr:`InstallSpec.trailing_commas`): there
  they are kept where they were, and a change that cannot keep them is
  refused rather than made.
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
import shlex
import stat
from collections.abc import Callable, Iterator

import attrs

from runctx.checkout import rules_for
from runctx.exceptions import RunctxError
from runctx.hooks import json_layout
from runctx.hooks.agents.base import HookEntry, InstallSpec
from runctx.planted import (
    NotOwnedError,
    NotRegularFileError,
    check_owned,
    read_bounded,
    sync_directory,
    write_atomically,
)
from runctx.record_base import Record

MAX_SETTINGS_BYTES = 16 * 1024 * 1024
"""The largest settings file runctx edits (16 MiB)."""
TEMP_MARK = ".runctx-tmp-"
"""What the name of runctx's temporary file holds: ``.settings.json.runctx-tmp-XXXXXXXX``."""

JSONObject = dict[str, object]


class SettingsFileError(RunctxError):
    """An agent's settings file cannot be read, understood or written safely."""


class CommentsLostError(SettingsFileError):
    """The change would drop a comment of the file, so the file was left as it was."""


_OURS = re.compile(
    r"\s*(?P<prefix>[^;&|<>`$()\n]*?)\s+hook\s+(?P<face>[a-z][a-z-]*)"
    r"(?:\s*\|\|\s*true)?\s*"
)
_GUARDED = re.compile(
    r"\s*if command -v (?P<program>[^;&|<>`$()\n]+?) >/dev/null 2>&1; "
    r"then (?P<inner>[^;&|<>`$()\n]+?); else echo (?P<message>'[^'\n]*') >&2; fi"
    r"(?:\s*\|\|\s*true)?\s*"
)
_RUNCTX = re.compile(r"(?:^|[\s/\"'])runctx(?:\.exe)?[\"']?$")
FAIL_OPEN_SUFFIX = " || true"
"""Appended where an agent blocks the tool when a hook exits non-zero (Copilot)."""


def _parts(command: object) -> tuple[str, str] | None:
    """The prefix and face of a command that is runctx's own, else None."""
    if not isinstance(command, str):
        return None
    guarded = _GUARDED.fullmatch(command)
    inner = guarded.group("inner") if guarded is not None else command
    found = _OURS.fullmatch(inner)
    if found is None or not _RUNCTX.search(found.group("prefix")):
        return None
    return found.group("prefix").strip(), found.group("face")


def face_of(command: object) -> str | None:
    """The hook face a handler's command runs, or None when it is not runctx's own.

    Only a command that is exactly ``PREFIX hook FACE`` (optionally followed by
    ``|| true``), whose prefix ends in the ``runctx`` program, or that command
    in the guard :func:`hook_command` writes, is runctx's: a user's own command
    that merely contains one (``audit.sh && runctx hook claude``) is theirs,
    never replaced or removed.
    """
    parts = _parts(command)
    return None if parts is None else parts[1]


def prefix_of(command: object) -> str | None:
    """How a command of runctx's own starts runctx (``runctx``, ``/opt/venv/bin/runctx``)."""
    parts = _parts(command)
    return None if parts is None else parts[0]


def missing_message(face: str) -> str:
    """The one stderr line of a hook whose program cannot be found on this machine."""
    return (
        f"runctx hook {face}: runctx is not installed here; test runs are not checked "
        "(runctx is on no package index: install it from its repository)"
    )


def program_of(prefix: str) -> str:
    """The program a command prefix starts: its first shell word (``uv`` of ``uv run runctx``)."""
    try:
        return shlex.split(prefix)[0]
    except (ValueError, IndexError):
        return prefix.split(maxsplit=1)[0] if prefix.split() else prefix


def hook_command(spec: InstallSpec, face: str, prefix: str) -> str:
    """The shell command a handler runs for ``face``: ``PREFIX hook FACE``, guarded.

    Where the prefix's program cannot be found (a teammate without runctx,
    a removed environment), the command writes :func:`missing_message` to
    stderr and exits 0: the agent goes on as without the hook. An agent that
    blocks the tool on a non-zero exit (Copilot) gets ``|| true`` as well.
    """
    command = (
        f"if command -v {shlex.quote(program_of(prefix))} >/dev/null 2>&1; "
        f"then {prefix} hook {face}; "
        f"else echo {shlex.quote(missing_message(face))} >&2; fi"
    )
    if spec.blocks_on_failure:
        command += FAIL_OPEN_SUFFIX
    return command


def handler(spec: InstallSpec, entry: HookEntry, prefix: str) -> JSONObject:
    """The handler object that runs ``entry`` with the command ``prefix``."""
    made: JSONObject = {}
    if spec.handler_type:
        made["type"] = "command"
    if entry.name is not None:
        made["name"] = entry.name
    made[spec.command_key] = hook_command(spec, entry.face, prefix)
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


def parse(text: str, path: str, spec: InstallSpec | None = None) -> JSONObject:
    """The settings object in ``text``; an empty file is ``{}``.

    Strict JSON only: duplicate keys, ``NaN``/``Infinity`` and numbers that do
    not fit a float are refused, since writing the file back could not keep them.
    Comments and trailing commas only where ``spec``'s agent reads them.
    """
    comments = spec is not None and spec.comments
    trailing_commas = spec is not None and spec.trailing_commas
    if comments or trailing_commas:
        try:
            text = json_layout.to_strict(text, comments=comments, trailing_commas=trailing_commas)
        except ValueError as error:
            msg = f"{path} is not valid JSON ({error}); runctx leaves it alone"
            raise SettingsFileError(msg) from None
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
        allowed = _allowed_extras(spec)
        msg = (
            f"{path} is not valid JSON ({error}); runctx does not rewrite it, so that "
            f"nothing in it is lost. {allowed}Fix it, or add the hooks by hand "
            "(runctx install AGENT --dry-run prints them)"
        )
        raise SettingsFileError(msg) from None
    if not isinstance(document, dict):
        msg = (
            f"{path} holds a JSON {type(document).__name__}, not an object; runctx leaves it alone"
        )
        raise SettingsFileError(msg)
    return document


def _allowed_extras(spec: InstallSpec | None) -> str:
    """What the agent's files may hold beyond strict JSON, said in the refusal."""
    if spec is None or not (spec.comments or spec.trailing_commas):
        return "Its agent reads strict JSON only: no comments, no trailing commas. "
    if spec.comments and not spec.trailing_commas:
        return "Its agent reads comments (// and /* */) but no trailing commas. "
    if spec.trailing_commas and not spec.comments:
        return "Its agent reads trailing commas but no comments. "
    return ""


def _unit(text: str) -> str:
    """The indent of one level in ``text``: its first indented line's (2 spaces when none)."""
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[: len(line) - len(stripped)]
            return "\t" if lead.startswith("\t") else " " * len(lead)
    return "  "


def settings_text(document: JSONObject, original: str | None) -> str:
    """``document`` as JSON text, indented like ``original`` (2 spaces for a new file)."""
    return json_layout.fresh(document, "", _unit(original or "")) + "\n"


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


def handlers(spec: InstallSpec, items: list[object]) -> Iterator[object]:
    """The handlers in an event's ``items``: the items, or the handlers of their groups."""
    for item in items:
        if spec.layout == "flat":
            yield item
        elif isinstance(item, dict) and isinstance(item.get("hooks"), list):
            yield from item["hooks"]


@attrs.frozen(repr=False, eq=False)
class Installed(Record):
    """What an install did to a document: the entries added, and those brought up to date."""

    added: tuple[HookEntry, ...]
    updated: tuple[HookEntry, ...]

    @property
    def changed(self) -> bool:
        """Whether the install changed anything."""
        return bool(self.added or self.updated)


def install(
    spec: InstallSpec,
    document: JSONObject,
    prefix: str,
    path: str,
    *,
    keep_prefix: bool = True,
) -> Installed:
    """Add the entries of ``spec`` that are missing, bring present ones up to date.

    A present entry's command becomes :func:`hook_command` with its own prefix
    (``keep_prefix``), or with ``prefix`` when the prefix was asked for.
    """
    added: list[HookEntry] = []
    updated: list[HookEntry] = []
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
        present = [h for h in handlers(spec, items) if handler_face(spec, h) == entry.face]
        if not present:
            items.append(hook_item(spec, entry, prefix))
            added.append(entry)
            continue
        changed = [
            _bring_up_to_date(spec, entry, found, prefix, keep_prefix=keep_prefix)
            for found in present
        ]
        if any(changed) | _widen_matcher(spec, entry, items):
            updated.append(entry)
    if spec.version is not None:
        document.setdefault("version", spec.version)
    return Installed(added=tuple(added), updated=tuple(updated))


def _bring_up_to_date(
    spec: InstallSpec, entry: HookEntry, found: object, prefix: str, *, keep_prefix: bool
) -> bool:
    """Give a present handler the command runctx writes now; whether it changed.

    Only the agent's own command key is rewritten (a ``powershell`` command,
    say, is left as it was: the guard is shell code).
    """
    if not isinstance(found, dict):
        return False
    command = found.get(spec.command_key)
    if face_of(command) != entry.face:
        return False
    own = prefix_of(command) if keep_prefix else None
    wanted = hook_command(spec, entry.face, own or prefix)
    changed = False
    if command != wanted:
        found[spec.command_key] = wanted
        changed = True
    if spec.timeout_key is not None and spec.timeout is not None and spec.timeout_key not in found:
        found[spec.timeout_key] = spec.timeout  # a timeout the user chose is theirs: kept
        changed = True
    return changed


_TOOL_NAMES = re.compile(r"[A-Za-z0-9_]+(?:\|[A-Za-z0-9_]+)*")
"""A matcher that is a plain list of tool names (``Bash``, ``Bash|PowerShell``)."""


def _widen_matcher(spec: InstallSpec, entry: HookEntry, items: list[object]) -> bool:
    """Give the groups holding ``entry``'s handler every tool name its matcher names now.

    An install from before a tool was added (Claude Code's ``Monitor``) has a
    matcher of ``Bash`` alone: the names missing are added, after the ones
    there (a user's own ``PowerShell`` stays). A group that also holds other
    handlers keeps its matcher for them, and runctx's handler moves to a group
    of its own. A matcher that is a pattern (``.*``, empty: every tool) is
    the user's, left as it is. Whether anything changed.
    """
    if spec.layout != "grouped" or entry.matcher is None:
        return False
    wanted = entry.matcher.split("|")
    changed = False
    for group in list(items):
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            continue
        handlers: list[object] = group["hooks"]
        ours = [h for h in handlers if handler_face(spec, h) == entry.face]
        matcher = group.get("matcher")
        if not ours or not isinstance(matcher, str) or not _TOOL_NAMES.fullmatch(matcher):
            continue
        names = matcher.split("|")
        missing = [name for name in wanted if name not in names]
        if not missing:
            continue
        widened = "|".join([*names, *missing])
        if len(ours) == len(handlers):
            group["matcher"] = widened
        else:
            group["hooks"] = [h for h in handlers if all(h is not mine for mine in ours)]
            items.append({"matcher": widened, "hooks": ours})
        changed = True
    return changed


PRUNE_ALL, PRUNE_EVENTS, PRUNE_NOTHING = "all", "events", "nothing"
"""What an uninstall removes besides the handlers: the emptied events and ``hooks``, the
emptied events only, or neither (so that comments in and around them stay)."""


def uninstall(spec: InstallSpec, document: JSONObject, path: str, *, prune: str = PRUNE_ALL) -> int:
    """Remove the handlers that run the faces of ``spec``; return how many were removed.

    ``prune``: an event left with no handler, and ``hooks`` left with no
    event, go too by default (what install created); :data:`PRUNE_EVENTS`
    keeps ``hooks``, :data:`PRUNE_NOTHING` keeps the emptied events too, so
    that comments in and around them stay where the user wrote them.
    """
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
        if kept or prune == PRUNE_NOTHING:
            hooks[event] = kept
        else:
            del hooks[event]
    if removed and not hooks and prune == PRUNE_ALL:
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


@attrs.frozen(repr=False, eq=False)
class Update(Record):
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


def read_text(path: str) -> str | None:
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


def own_owners() -> frozenset[int]:
    """Whose settings file runctx edits: the markers' rule (the caller, root, ``SUDO_UID``)."""
    return rules_for([os.geteuid()]).owners


def _check_trusted(path: str) -> None:
    """Refuse a settings file another user could have written (see :func:`check_owned`)."""
    try:
        check_owned(path, own_owners())
    except NotRegularFileError:
        return  # read_text says what it is
    except NotOwnedError as error:
        msg = (
            f"{path} is {error.strerror}; runctx edits only a settings file you own that "
            "nobody else may write, and leaves this one alone (its hooks could be anyone's). "
            "Check what it holds, make it yours (chown, chmod go-w), or give another file "
            "with --file"
        )
        raise SettingsFileError(msg) from None
    except OSError:
        return  # read_text says why it cannot be read


def _missing_directories(directory: str) -> list[str]:
    """The directories ``os.makedirs(directory)`` would create, deepest first."""
    missing = []
    while directory and not os.path.lexists(directory):
        missing.append(directory)
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return missing


def _remove_empty_directories(directory: str, stop_at: str | None, created: list[str]) -> None:
    """Remove ``directory`` and its parents while they are empty.

    Those this update created, and, up to ``stop_at`` (not included), those
    an uninstall left empty. ``os.rmdir`` never removes a directory that
    holds anything.
    """
    stop = os.path.realpath(stop_at) if stop_at else None
    current = directory
    while True:
        if current not in created and (stop is None or not _is_below(current, stop)):
            return
        try:
            os.rmdir(current)  # only ever removes an empty directory
        except OSError:
            return
        parent = os.path.dirname(current)
        if parent == current:
            return
        current = parent


def _is_below(path: str, top: str) -> bool:
    return path != top and path.startswith(top.rstrip("/") + "/")


def update(  # noqa: PLR0913 - each keyword is its own choice
    path: str,
    change: Callable[[JSONObject, str], tuple[object, bool]],
    *,
    dry_run: bool = False,
    remove_when: Callable[[JSONObject], bool] | None = None,
    spec: InstallSpec | None = None,
    prune_up_to: str | None = None,
) -> Update:
    """Apply ``change`` to the settings object in ``path``, atomically and under a lock.

    ``change(document, path)`` edits the document in place and returns a result
    and whether it changed anything. ``remove_when(document)`` True after a
    change removes the file instead of writing it, and then its directories
    that this left empty, up to ``prune_up_to`` (not included). Missing parent
    directories are created for a write, and removed again when nothing was
    written (not even created for a dry run). ``spec``: the agent's file
    format (comments, trailing commas).
    """
    target = os.path.realpath(path)
    if os.path.islink(path) and not os.path.lexists(target):
        msg = f"{path} is a symlink to {target}, which does not exist; runctx does not create it"
        raise SettingsFileError(msg)
    directory = os.path.dirname(target)
    if dry_run and not os.path.isdir(directory):
        return _apply(target, None, change, remove_when, spec)
    created = _missing_directories(directory)
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as error:
        msg = f"cannot create {directory}: {error.strerror or error}"
        raise SettingsFileError(msg) from None
    try:
        outcome = _update_locked(target, change, remove_when, spec, dry_run=dry_run)
    except BaseException:
        if not os.path.lexists(target):
            _remove_empty_directories(directory, None, created)
        raise
    if not os.path.lexists(target):
        removed_file = outcome.changed and outcome.after is None and not dry_run
        _remove_empty_directories(directory, prune_up_to if removed_file else None, created)
    return outcome


def _update_locked(
    target: str,
    change: Callable[[JSONObject, str], tuple[object, bool]],
    remove_when: Callable[[JSONObject], bool] | None,
    spec: InstallSpec | None,
    *,
    dry_run: bool,
) -> Update:
    directory = os.path.dirname(target)
    try:
        with _locked(directory):
            if not dry_run:
                _remove_stale_temporaries(directory, os.path.basename(target))
            _check_trusted(target)
            outcome = _apply(target, read_text(target), change, remove_when, spec)
            if not outcome.changed:
                return outcome
            _check_replaceable(target)
            if dry_run:
                return outcome
            if outcome.after is None:
                os.unlink(target)
                sync_directory(directory)
            else:
                write_atomically(
                    target, outcome.after.encode(), owners=own_owners(), temporary_prefix=TEMP_MARK
                )
    except OSError as error:
        msg = f"cannot update {target}: {error.strerror or error}; it is left as it was"
        raise SettingsFileError(msg) from None
    return outcome


def _apply(
    path: str,
    before: str | None,
    change: Callable[[JSONObject, str], tuple[object, bool]],
    remove_when: Callable[[JSONObject], bool] | None,
    spec: InstallSpec | None = None,
) -> Update:
    comments = spec is not None and spec.comments
    trailing_commas = spec is not None and spec.trailing_commas
    edited = None
    if before is not None and before.strip():
        parse(before, path, spec)  # strict, with the error that says what is wrong
        try:
            edited = json_layout.edit(
                before,
                lambda found: change(found, path),
                _unit(before),
                lambda found: settings_text(found, before),
                comments=comments,
                trailing_commas=trailing_commas,
            )
        except json_layout.LayoutLostError:
            msg = (
                f"{path}: runctx cannot make this change and keep every comment of the file "
                "where it is, so it leaves the file as it was. Add or remove runctx's hooks by "
                "hand (runctx install AGENT --dry-run on an empty file shows them)"
            )
            raise CommentsLostError(msg) from None
        except (ValueError, RecursionError):  # the layout parser gave up: the values are kept
            if json_layout.has_extras(before, comments=comments, trailing_commas=trailing_commas):
                msg = (
                    f"{path}: runctx cannot edit this file and keep its comments, so it "
                    "leaves it as it was. Add the hooks by hand"
                )
                raise SettingsFileError(msg) from None
    if edited is None:  # a new or empty file, or one the layout parser gave up on
        document = parse(before or "", path, spec)
        outcome = change(document, path)  # before the text: the change edits the document
        edited = document, settings_text(document, before), outcome
    document, text, (result, changed) = edited
    after = text if changed else before
    if changed and remove_when is not None and remove_when(document):
        after = None
    return Update(path=path, before=before, after=after, result=result)
