"""Codex CLI: ``PreToolUse`` on ``Bash`` and ``SessionStart``, translated both ways.

Protocol (https://developers.openai.com/codex/hooks; the parser is
``codex-rs/hooks/src/engine/output_parser.rs`` in github.com/openai/codex): the
same input shape as Claude Code (``cwd``, ``tool_name: "Bash"``,
``tool_input.command``), and a stricter output. Both output objects are
``additionalProperties: false``, so only these keys are ever written:
``hookSpecificOutput.{hookEventName, permissionDecision, permissionDecisionReason,
additionalContext}``.

- stop: ``permissionDecision: "deny"`` with a non-empty reason.
- ask: Codex rejects ``"ask"`` as unsupported and then lets the command run
  (it fails open), so an ask would silently become an allow. runctx answers
  ``"deny"`` instead, with a reason that says the checkout is set to ask: the
  safe reading of "ask the human first" when there is no way to ask.
- a note: ``additionalContext`` alone (honoured for PreToolUse since
  openai/codex#20692).
- ``"allow"`` is never written (Codex treats a bare allow as invalid).
"""

from __future__ import annotations

import json

from runctx.hooks.payload import directory, expect_event, required_text, shell_tool_input

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.hooks.policy import Decision

SHELL_TOOL = "Bash"

ASK_AS_DENY = (
    "(This checkout is set to ask before a second run starts; Codex cannot ask, "
    "so runctx refused. Run it again once the other run has ended, or start it as "
    "`runctx run --wait -- COMMAND`.)"
)


def pre_tool_input(payload: dict[str, object]) -> tuple[str, str] | None:
    """The shell command and the directory it runs in, or None for another tool."""
    expect_event(payload, "PreToolUse", "codex")
    found = shell_tool_input(payload, SHELL_TOOL)
    return None if found is None else found[:2]


def pre_tool_reply(decision: Decision) -> str | None:
    """The stdout of the hook for ``decision``, or None to stay silent."""
    output: dict[str, str] = {"hookEventName": "PreToolUse"}
    if decision.action == "stop":
        output["permissionDecision"] = "deny"
        output["permissionDecisionReason"] = decision.message
    elif decision.action == "ask":
        output["permissionDecision"] = "deny"
        output["permissionDecisionReason"] = f"{decision.message}\n{ASK_AS_DENY}"
    elif decision.action in {"note", "warn"}:
        output["additionalContext"] = decision.message
    else:
        return None
    return json.dumps({"hookSpecificOutput": output})


def session_input(payload: dict[str, object]) -> str:
    """The directory the session starts in."""
    expect_event(payload, "SessionStart", "codex-session-start")
    return directory(required_text(payload, "cwd"))


def session_reply(context: str) -> str:
    """The stdout of the SessionStart hook that adds ``context`` for the model."""
    output = {"hookEventName": "SessionStart", "additionalContext": context}
    return json.dumps({"hookSpecificOutput": output})
