"""Cursor: ``beforeShellExecution``, translated both ways.

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

When ``cwd`` is empty, the first workspace root stands in for it.
"""

from __future__ import annotations

import json

from runctx.hooks.payload import PayloadError, directory, expect_event, field, required_text, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.hooks.policy import Decision

EVENT = "beforeShellExecution"


def pre_tool_input(payload: dict[str, object]) -> tuple[str, str] | None:
    """The shell command and the directory it runs in."""
    expect_event(payload, EVENT, "cursor")
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


def pre_tool_reply(decision: Decision) -> str | None:
    """The stdout of the hook for ``decision``, or None to stay silent."""
    if decision.action == "stop":
        output = {
            "permission": "deny",
            "user_message": decision.summary,
            "agent_message": decision.message,
        }
    elif decision.action == "ask":
        output = {
            "permission": "ask",
            "user_message": decision.message,
            "agent_message": decision.message,
        }
    elif decision.action in {"note", "warn"}:
        output = {"user_message": decision.summary, "agent_message": decision.message}
    else:
        return None
    return json.dumps(output)
