"""GitHub Copilot (CLI and cloud agent): ``preToolUse`` and ``sessionStart``.

Protocol (https://docs.github.com/en/copilot/reference/hooks-configuration;
script contract in github.com/github/awesome-copilot
``instructions/hooks.instructions.md``): JSON on stdin with ``cwd``,
``toolName`` (``bash`` for the shell) and ``toolArgs``, a JSON *string* holding
``{"command": ...}``; newer hosts may send the arguments as an object under
``toolArgs``, ``tool_input`` or ``toolInput``, and the name as ``tool_name``.
All are read.

A non-zero exit *blocks* the tool here, so failing open means exit 0 and no
output, as for every agent. Output (exit 0):

- stop: ``permissionDecision: "deny"`` with ``permissionDecisionReason``;
- ask: ``permissionDecision: "ask"`` (the CLI prompts the user);
- a note: ``additionalContext`` alone, no ``permissionDecision``;
- ``sessionStart``: ``additionalContext``.

``"allow"`` is never written.
"""

from __future__ import annotations

import json

from runctx.hooks.payload import PayloadError, directory, json_object, required_text, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.hooks.policy import Decision

SHELL_TOOLS = frozenset({"bash"})


def _arguments(payload: dict[str, object]) -> dict[str, object]:
    for name in ("toolArgs", "tool_input", "toolInput"):
        value = payload.get(name)
        if value is None:
            continue
        if isinstance(value, str):
            value = json_object(value, f"field {name!r}")
        if not isinstance(value, dict):
            msg = f"field {name!r} is {type(value).__name__}, expected an object"
            raise PayloadError(msg)
        return value
    msg = "field 'toolArgs' is missing"
    raise PayloadError(msg)


def pre_tool_input(payload: dict[str, object]) -> tuple[str, str] | None:
    """The shell command and the directory it runs in, or None for another tool."""
    name = text(payload, "toolName") or required_text(payload, "tool_name")
    if name.lower() not in SHELL_TOOLS:
        return None
    command = required_text(_arguments(payload), "command", where="toolArgs")
    return command, directory(required_text(payload, "cwd"))


def pre_tool_reply(decision: Decision) -> str | None:
    """The stdout of the hook for ``decision``, or None to stay silent."""
    if decision.action in {"stop", "ask"}:
        verdict = "deny" if decision.action == "stop" else "ask"
        output = {"permissionDecision": verdict, "permissionDecisionReason": decision.message}
    elif decision.action in {"note", "warn"}:
        output = {"additionalContext": decision.message}
    else:
        return None
    return json.dumps(output)


def session_input(payload: dict[str, object]) -> str:
    """The directory the session starts in."""
    return directory(required_text(payload, "cwd"))


def session_reply(context: str) -> str:
    """The stdout of the sessionStart hook that adds ``context``."""
    return json.dumps({"additionalContext": context})
