"""Gemini CLI: ``BeforeTool``, ``AfterTool`` and ``SessionStart``, translated both ways.

Protocol (github.com/google-gemini/gemini-cli ``docs/hooks/reference.md``):
JSON on stdin with ``cwd``, ``tool_name`` (``run_shell_command`` for the shell)
and ``tool_input`` (``command``, and ``dir_path``: the directory the command
runs in, absolute or relative to the workspace root, which is ``cwd``). Exit 0
with one JSON object on stdout.

- ``BeforeTool``, stop: ``decision: "deny"`` with ``reason`` (sent to the
  agent as the tool's error) and a one-line ``systemMessage`` for the user.
- ``BeforeTool``, ask: the reference documents only allow and deny for this
  event, so an ask is answered as a deny that says the checkout asks first.
- ``BeforeTool``, a note: ``BeforeTool`` has no documented channel to the
  agent, so the note goes to the user as ``systemMessage``. The agent gets it
  from the ``AfterTool`` hook (``runctx hook gemini-after``), whose
  ``hookSpecificOutput.additionalContext`` is appended to the tool result: the
  contention seen when the command finished, next to the output it explains.
- ``SessionStart``: ``hookSpecificOutput.additionalContext``.

``decision: "allow"`` is never written.
"""

from __future__ import annotations

import json
import os

from runctx.hooks.payload import directory, expect_event, required_text, shell_tool_input, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.hooks.policy import Decision

SHELL_TOOL = "run_shell_command"

ASK_AS_DENY = (
    "(This checkout is set to ask before a second run starts; this hook cannot ask, "
    "so runctx refused. Run it again once the other run has ended, or start it as "
    "`runctx run --wait -- COMMAND`.)"
)


def _shell_input(payload: dict[str, object]) -> tuple[str, str] | None:
    found = shell_tool_input(payload, SHELL_TOOL)
    if found is None:
        return None
    command, cwd, tool_input = found
    where = text(tool_input, "dir_path", where="tool_input")
    if where:
        cwd = os.path.normpath(os.path.join(cwd, where))
    return command, cwd


def pre_tool_input(payload: dict[str, object]) -> tuple[str, str] | None:
    """The shell command and the directory it runs in, or None for another tool."""
    expect_event(payload, "BeforeTool", "gemini")
    return _shell_input(payload)


def pre_tool_reply(decision: Decision) -> str | None:
    """The stdout of the BeforeTool hook for ``decision``, or None to stay silent."""
    if decision.action == "stop":
        output = {
            "decision": "deny",
            "reason": decision.message,
            "systemMessage": decision.summary,
        }
    elif decision.action == "ask":
        output = {
            "decision": "deny",
            "reason": f"{decision.message}\n{ASK_AS_DENY}",
            "systemMessage": decision.summary,
        }
    elif decision.action in {"note", "warn"}:
        output = {"systemMessage": decision.message}
    else:
        return None
    return json.dumps(output)


def after_tool_input(payload: dict[str, object]) -> tuple[str, str] | None:
    """The shell command that ran and its directory, or None for another tool."""
    expect_event(payload, "AfterTool", "gemini-after")
    return _shell_input(payload)


def after_tool_reply(context: str) -> str:
    """The stdout of the AfterTool hook that appends ``context`` to the tool result."""
    output = {"hookEventName": "AfterTool", "additionalContext": context}
    return json.dumps({"hookSpecificOutput": output})


def session_input(payload: dict[str, object]) -> str:
    """The directory the session starts in."""
    expect_event(payload, "SessionStart", "gemini-session-start")
    return directory(required_text(payload, "cwd"))


def session_reply(context: str) -> str:
    """The stdout of the SessionStart hook that adds ``context`` for the model."""
    output = {"hookEventName": "SessionStart", "additionalContext": context}
    return json.dumps({"hookSpecificOutput": output})
