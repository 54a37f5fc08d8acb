"""Codex CLI: ``PreToolUse`` on ``Bash`` and ``SessionStart``.

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

Settings: ``.codex/hooks.json`` in the project, ``~/.codex/hooks.json`` (or
``$CODEX_HOME``) for the user.
"""

from __future__ import annotations

from runctx.hooks.agents import claude
from runctx.hooks.agents.base import (
    HookEntry,
    InstallSpec,
    Replies,
    SessionFace,
    SettingsFiles,
    ToolFace,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.hooks.agents.base import JSONObject

NAME = "codex"
KIND = "codex"
"""The kind a run started by this agent's shell tool has (:mod:`runctx.started_by`)."""
TITLE = "Codex"


def read_pre_tool(payload: JSONObject) -> tuple[str, str] | None:
    """The shell command and the directory it runs in, or None for another tool."""
    return claude.read_pre_tool(payload, NAME)


def read_session(payload: JSONObject) -> str:
    """The directory the session starts in."""
    return claude.read_session(payload, f"{NAME}-session-start")


read_session_id = claude.read_session_id


PRE_TOOL_FACE = ToolFace(
    read_pre_tool, Replies(deny=claude.REPLIES.deny, ask=None, note=claude.REPLIES.note)
)
AFTER_TOOL_FACE = None
SESSION_FACE = SessionFace(read_session, claude.session_reply)

INSTALL = InstallSpec(
    layout="grouped",
    entries=(
        HookEntry("PreToolUse", NAME, matcher=claude.SHELL_TOOL),
        HookEntry("SessionStart", f"{NAME}-session-start"),
    ),
    timeout=claude.HOOK_TIMEOUT_SECONDS,
)
FILES = SettingsFiles(
    project=".codex/hooks.json",
    user_dir_env="CODEX_HOME",
    user_dir=".codex",
    user_name="hooks.json",
)
AFTER_INSTALL = (
    "Codex runs a new command hook only after you review and trust it: open /hooks in "
    "Codex. Project hooks also need the project's .codex/ layer to be trusted."
)
