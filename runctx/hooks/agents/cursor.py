"""Cursor: ``beforeShellExecution``.

Protocol (https://cursor.com/docs/agent/hooks): JSON on stdin with
``hook_event_name``, ``command``, ``cwd`` and ``workspace_roots``; one JSON
object on stdout with ``permission`` (``allow``/``deny``/``ask``),
``user_message`` (shown in the client) and ``agent_message`` (sent to the
agent).

- stop: ``permission: "deny"``, the full reason as ``agent_message`` and its
  first line as ``user_message``.
- ask: ``permission: "ask"`` with the reason for both.
- a note: ``agent_message`` and ``user_message`` with no ``permission`` at all.
  runctx never answers ``"allow"``, so it never approves a command on the
  user's behalf; whether a client shows messages that come without a
  permission is not documented, so a note may go unseen, never a prompt.

The installed hook gets a ``timeout`` of 20 s (per-hook, in seconds; Cursor's
default of 5 s could end a decision on a saturated box before it is given).
When ``cwd`` is empty, the first workspace root stands in for it. Settings:
``.cursor/hooks.json`` in the project, ``~/.cursor/hooks.json`` for the user.
"""

from __future__ import annotations

from runctx.hooks.agents import claude
from runctx.hooks.agents.base import HookEntry, InstallSpec, Replies, SettingsFiles, ToolFace
from runctx.hooks.payload import (
    PayloadError,
    directory,
    expect_event,
    field,
    required_text,
    session_id,
    text,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.hooks.agents.base import JSONObject

NAME = "cursor"
KIND = "cursor"
"""The kind a run started by this agent's shell tool has (:mod:`runctx.started_by`)."""
TITLE = "Cursor"
EVENT = "beforeShellExecution"


def read_pre_tool(payload: JSONObject) -> tuple[str, str] | None:
    """The shell command and the directory it runs in."""
    expect_event(payload, EVENT, NAME)
    command = required_text(payload, "command")
    cwd = text(payload, "cwd") or ""
    if not cwd:
        roots = field(payload, "workspace_roots", list) or []
        first = roots[0] if isinstance(roots, list) and roots else None
        if not isinstance(first, str):
            msg = "field 'cwd' is empty and 'workspace_roots' names no directory"
            raise PayloadError(msg)
        cwd = first
    return command, directory(cwd)


REPLIES = Replies(
    deny=lambda message, summary: {
        "permission": "deny",
        "user_message": summary,
        "agent_message": message,
    },
    ask=lambda message, _summary: {
        "permission": "ask",
        "user_message": message,
        "agent_message": message,
    },
    note=lambda message, summary: {"user_message": summary, "agent_message": message},
)


def read_session_id(payload: JSONObject) -> str | None:
    """The session the payload comes from, None when it names none."""
    return session_id(payload, "conversation_id")


PRE_TOOL_FACE = ToolFace(read_pre_tool, REPLIES)
AFTER_TOOL_FACE = None
SESSION_FACE = None

INSTALL = InstallSpec(
    layout="flat",
    entries=(HookEntry(EVENT, NAME),),
    timeout=claude.HOOK_TIMEOUT_SECONDS,  # seconds; Cursor's own default is 5 s
    handler_type=False,
    version=1,
)
FILES = SettingsFiles(project=".cursor/hooks.json", user_dir=".cursor", user_name="hooks.json")
AFTER_INSTALL = "Restart Cursor; project hooks run in trusted workspaces only."
