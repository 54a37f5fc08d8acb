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

from runctx.hooks import claude

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.hooks.policy import Decision

ASK_AS_DENY = (
    "(This checkout is set to ask before a second run starts; Codex cannot ask, "
    "so runctx refused. Run it again once the other run has ended, or start it as "
    "`runctx run --wait -- COMMAND`.)"
)

session_reply = claude.session_reply


def pre_tool_input(payload: dict[str, object]) -> tuple[str, str] | None:
    """The shell command and the directory it runs in, or None for another tool."""
    return claude.pre_tool_input(payload, "codex")


def pre_tool_reply(decision: Decision) -> str | None:
    """The stdout of the hook for ``decision``: Claude Code's, with an ask made a deny."""
    if decision.action == "ask":
        import attrs  # noqa: PLC0415 - loaded already: a decision to ask came from a scan

        from runctx.hooks.policy import Action  # noqa: PLC0415

        message = f"{decision.message}\n{ASK_AS_DENY}"
        decision = attrs.evolve(decision, action=Action.STOP, message=message)
    return claude.pre_tool_reply(decision)


def session_input(payload: dict[str, object]) -> str:
    """The directory the session starts in."""
    return claude.session_input(payload, "codex-session-start")
