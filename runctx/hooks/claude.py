"""Claude Code: ``PreToolUse`` on ``Bash`` and ``SessionStart``, translated both ways.

Protocol (https://code.claude.com/docs/en/hooks): JSON on stdin with
``hook_event_name``, ``cwd`` (the session's current directory, which is the
viewpoint), ``tool_name`` and ``tool_input.command``. The answer is exit 0 and
a ``hookSpecificOutput`` object on stdout:

- stop: ``permissionDecision: "deny"``, the reason goes to Claude;
- ask: ``permissionDecision: "ask"``, the reason goes to the user, and the same
  text as ``additionalContext`` goes to Claude next to the tool result;
- a note (foreign contention, or a same-checkout warning): ``additionalContext``
  alone, with no ``permissionDecision`` at all;
- nothing to say: no output.

runctx never answers ``"allow"``: that would skip the user's own permission
prompt. Only standard-library names are imported here (hot path).
"""

from __future__ import annotations

import json

from runctx.hooks.payload import directory, expect_event, required_text, shell_tool_input

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.hooks.policy import Decision

SHELL_TOOL = "Bash"


def pre_tool_input(payload: dict[str, object], face: str = "claude") -> tuple[str, str] | None:
    """The shell command and the directory it runs in, or None for another tool."""
    expect_event(payload, "PreToolUse", face)
    found = shell_tool_input(payload, SHELL_TOOL)
    return None if found is None else found[:2]


def pre_tool_reply(decision: Decision) -> str | None:
    """The stdout of the hook for ``decision``, or None to stay silent."""
    output: dict[str, str] = {"hookEventName": "PreToolUse"}
    if decision.action == "stop":
        output["permissionDecision"] = "deny"
        output["permissionDecisionReason"] = decision.message
    elif decision.action == "ask":
        output["permissionDecision"] = "ask"
        output["permissionDecisionReason"] = decision.message
        output["additionalContext"] = decision.message
    elif decision.action in {"note", "warn"}:
        output["additionalContext"] = decision.message
    else:
        return None
    return json.dumps({"hookSpecificOutput": output})


def session_input(payload: dict[str, object], face: str = "claude-session-start") -> str:
    """The directory the session starts in."""
    expect_event(payload, "SessionStart", face)
    return directory(required_text(payload, "cwd"))


def session_reply(context: str) -> str:
    """The stdout of the SessionStart hook that adds ``context`` for Claude."""
    output = {"hookEventName": "SessionStart", "additionalContext": context}
    return json.dumps({"hookSpecificOutput": output})
