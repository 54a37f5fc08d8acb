"""Claude Code's hook run by another agent: answered in that agent's shape, and only once.

Copilot CLI runs the hooks of ``.claude/settings.json`` (GitHub's hooks
reference), and so does Cursor when its third-party hooks are on
(cursor.com/docs/reference/third-party-hooks). So ``runctx hook claude`` may
be started by an agent that is not Claude Code:

- **Its shape.** The reply follows the payload: a Claude-shaped payload (what
  Copilot CLI 1.0 sends these hooks: ``hook_event_name: "PreToolUse"``,
  ``tool_name: "Bash"``, ``tool_input.command``; seen by ``make e2e``) gets
  Claude Code's answer, which that host reads; a payload in Copilot's own
  shape (``toolName``, ``toolArgs``) gets Copilot's; one in Cursor's
  ``beforeShellExecution`` shape gets Cursor's (``permission``,
  ``agent_message``). The session and the runs its shell started are the
  host's (its kind, its session id), not Claude Code's.
- **Once.** The host runs its own runctx hook too when ``runctx install`` put
  one where it reads (Copilot: ``.github/hooks/runctx.json`` in the checkout,
  ``$COPILOT_HOME/hooks/runctx.json`` or ``~/.copilot/hooks/runctx.json``;
  Cursor: ``.cursor/hooks.json`` or ``~/.cursor/hooks.json`` running
  ``runctx hook cursor``). Then Claude Code's hook stays silent and the
  host's own answers: a command is judged once, and said once.

The host is known by the payload's shape, or, for a Claude-shaped payload,
by what the host gives its hooks: Copilot CLI sets ``COPILOT_CLI=1``
(seen by ``make e2e``); Cursor sends ``cursor_version`` and ``conversation_id``.
"""

from __future__ import annotations

import os

from runctx.checkout import find_root
from runctx.hooks.agents import agent, claude
from runctx.hooks.payload import text
from runctx.planted import NotRegularFileError, read_bounded

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from runctx.hooks.agents.base import (
        AfterToolFace,
        Agent,
        InstallSpec,
        JSONObject,
        SessionFace,
        SettingsFiles,
        ToolFace,
    )

COPILOT_MARK = "COPILOT_CLI"
"""What Copilot CLI sets in the environment of every hook it runs."""
CURSOR_KEYS = ("cursor_version", "conversation_id")
"""Fields only Cursor's payloads carry."""
OWN_FILE_MAX = 1024 * 1024
"""The most read of a host's hook file to see whether runctx's hook is in it."""


class Hosted:
    """Claude Code's face as another agent runs it: that agent's kind, reader and replies."""

    __slots__ = (
        "AFTER_INSTALL",
        "AFTER_TOOL_FACE",
        "FILES",
        "INSTALL",
        "KIND",
        "NAME",
        "PRE_TOOL_FACE",
        "SESSION_FACE",
        "TITLE",
        "_session_id",
    )

    def __init__(self, host: Agent, face: ToolFace, shape: Agent) -> None:
        """``host`` runs the hook; ``face`` reads and answers; ``shape`` reads the session."""
        self.NAME: str = claude.NAME
        self.KIND: str = host.KIND
        self.TITLE: str = host.TITLE
        self.PRE_TOOL_FACE: ToolFace = face
        self.AFTER_TOOL_FACE: AfterToolFace | None = None
        self.SESSION_FACE: SessionFace | None = None
        self.INSTALL: InstallSpec = claude.INSTALL
        self.FILES: SettingsFiles = claude.FILES
        self.AFTER_INSTALL: str = claude.AFTER_INSTALL
        self._session_id = shape.read_session_id

    def read_session_id(self, payload: JSONObject) -> str | None:
        """The session the payload names, read the way its shape says."""
        return self._session_id(payload)


def host_of(payload: JSONObject, environ: Mapping[str, str]) -> tuple[str, str]:
    """The agent that runs the hook and the shape of its payload: ``(host, shape)``."""
    if "toolName" in payload or "toolArgs" in payload:
        return "copilot", "copilot"
    event = text(payload, "hook_event_name")
    cursor = event == "beforeShellExecution" or any(key in payload for key in CURSOR_KEYS)
    if cursor:
        return "cursor", ("cursor" if event == "beforeShellExecution" else claude.NAME)
    if environ.get(COPILOT_MARK) == "1":
        return "copilot", claude.NAME
    return claude.NAME, claude.NAME


def agent_home(chosen: Agent, environ: Mapping[str, str]) -> str:
    """The home directory ``chosen`` reads its user settings under (its override, if set)."""
    files = chosen.FILES
    override = environ.get(files.home_env, "") if files.home_env else ""
    return override or environ.get("HOME") or os.path.expanduser("~")


def user_dir(chosen: Agent, environ: Mapping[str, str]) -> str:
    """The directory of ``chosen``'s user settings: its override variable, or under its home."""
    files = chosen.FILES
    base = environ.get(files.user_dir_env, "") if files.user_dir_env else ""
    return base or os.path.join(agent_home(chosen, environ), files.user_dir)


def _runs_runctx(path: str, face: str) -> bool:
    """Whether the regular file at ``path`` runs ``runctx hook FACE`` (read with a bound)."""
    try:
        data, _whole = read_bounded(path, OWN_FILE_MAX)
    except (OSError, NotRegularFileError):
        return False
    return f"hook {face}".encode() in data


def answered_by_host(host: str, cwd: str, environ: Mapping[str, str]) -> bool:
    """Whether ``host`` runs a runctx hook of its own here, which answers in its place."""
    chosen = agent(host)
    if _runs_runctx(os.path.join(user_dir(chosen, environ), chosen.FILES.user_name), host):
        return True

    try:
        places = {cwd, str(find_root(cwd))}
    except (OSError, ValueError):  # no root known: the directory itself
        places = {cwd}
    return any(_runs_runctx(os.path.join(place, chosen.FILES.project), host) for place in places)


def answering(face: Agent, payload: JSONObject, environ: Mapping[str, str]) -> Agent | None:
    """Who answers ``payload`` through ``face``: the face itself, its host, or None (once).

    Only Claude Code's files are read by other agents; every other face is
    its own agent's.
    """
    if face.NAME != claude.NAME:
        return face
    host, shape = host_of(payload, environ)
    if host == claude.NAME:
        return face
    shaped = agent(shape)
    read = shaped.PRE_TOOL_FACE.read(payload)
    if read is not None and answered_by_host(host, read[1], environ):
        return None
    return Hosted(agent(host), shaped.PRE_TOOL_FACE, shaped)
