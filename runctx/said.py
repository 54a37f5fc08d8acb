"""What was said already: a note on contention is said once per agent session or terminal.

An agent that runs forty test commands on a busy box does not need forty
copies of the same note. :func:`said_before` remembers, per listener (an
agent's session, or a terminal), the last thing a note said (a fingerprint of
its facts, one a line: which foreign runs are busy, which thresholds the box is
over), and answers True when it would say nothing new: every fact of the note
was told already. A note with a fact not told before is said again (and
remembered in place of the last).

The state is the user's own: one small file in ``$XDG_STATE_HOME/runctx``
(default ``~/.local/state/runctx``), in a directory only the user may write,
read with a bound and replaced in one rename (:mod:`runctx.planted`). It keeps
the :data:`MAX_LISTENERS` most recent listeners and forgets one after
:data:`FORGET_SECONDS`. Anything amiss (a directory or a file another user
could have written, a link, a file too large or not JSON, a read-only home)
makes the answer False: the note is said, never lost.
"""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Mapping

from runctx._log import log_event
from runctx.planted import check_owned, read_bounded, write_atomically

ONCE_ENV = "RUNCTX_NOTE_ONCE"
"""Set to ``0``: every note is said every time (nothing is remembered)."""
STATE_FILE = "notes-said.json"
MAX_LISTENERS = 64
"""Listeners remembered; the least recently told are forgotten first."""
MAX_STATE_BYTES = 64 * 1024
FORGET_SECONDS = 12 * 3600.0
"""A listener silent this long is told again, whatever it was told before."""
_MAX_KEY_CHARS = 200


def state_directory(environ: Mapping[str, str] | None = None) -> str | None:
    """``$XDG_STATE_HOME/runctx``, else ``~/.local/state/runctx``; None without a home."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_STATE_HOME", "")
    if not os.path.isabs(base):
        home = env.get("HOME", "") or os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".local", "state")
    return os.path.join(base, "runctx")


def _own_directory(path: str) -> bool:
    """Create ``path`` (0700) if absent; whether it is a directory only this user may write."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        info = os.lstat(path)
    except (OSError, ValueError):
        return False
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.getuid()
        and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def _load(path: str, owners: frozenset[int]) -> dict[str, list[object]]:
    if check_owned(path, owners) is None:
        return {}
    data, whole = read_bounded(path, MAX_STATE_BYTES)
    if not whole:
        return {}
    loaded = json.loads(data.decode("utf-8"))
    if not isinstance(loaded, dict):
        return {}
    return {
        key: value
        for key, value in loaded.items()
        if isinstance(key, str)
        and isinstance(value, list)
        and len(value) == 2  # noqa: PLR2004 - [fingerprint, when]
        and isinstance(value[0], str)
        and isinstance(value[1], (int, float))
    }


def told_already(fingerprint: str, told: str) -> bool:
    """Whether every fact of ``fingerprint`` (one a line) is one of the facts ``told``.

    A note with fewer facts (a busy run that calmed down, a threshold no longer
    crossed) says nothing new; one with a fact not told before does.
    """
    return set(fingerprint.split("\n")) <= set(told.split("\n"))


def said_before(
    listener: str,
    fingerprint: str,
    *,
    directory: str | None = None,
    now: float | None = None,
) -> bool:
    """Whether ``fingerprint`` is what ``listener`` was last told; records it when not.

    Never raises: when the state cannot be read or written safely, the answer
    is False (say it).
    """
    where = directory if directory is not None else state_directory()
    if where is None or not _own_directory(where):
        return False
    path = os.path.join(where, STATE_FILE)
    owners = frozenset({os.getuid()})
    moment = time.time() if now is None else now
    key = listener[:_MAX_KEY_CHARS]
    try:
        state = _load(path, owners)
    except (OSError, ValueError) as error:
        log_event("runctx.said_state_unreadable", path=path, error=str(error))
        state = {}
    last = state.get(key)
    if (
        last is not None
        and told_already(fingerprint, str(last[0]))
        and moment - float(last[1]) < FORGET_SECONDS  # type: ignore[arg-type]
    ):
        return True
    state[key] = [fingerprint, moment]
    kept = sorted(state.items(), key=lambda item: float(item[1][1]), reverse=True)  # type: ignore[arg-type]
    kept = [item for item in kept if moment - float(item[1][1]) < FORGET_SECONDS]  # type: ignore[arg-type]
    data = json.dumps(dict(kept[:MAX_LISTENERS]), separators=(",", ":")).encode()

    try:
        write_atomically(path, data, new_mode=0o600, owners=owners, temporary_prefix=".said-")
    except OSError as error:
        log_event("runctx.said_state_unwritable", path=path, error=str(error))
    return False


def terminal_listener() -> str | None:
    """The terminal this process speaks to, as a listener (``tty:/dev/pts/3:4121``), or None.

    The session id goes with the device: a terminal closed and opened again
    for someone else is another listener.
    """
    for fd in (2, 1, 0):
        try:
            if os.isatty(fd):
                return f"tty:{os.ttyname(fd)}:{os.getsid(0)}"
        except OSError:
            continue
    return None
