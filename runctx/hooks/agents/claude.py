"""Claude Code: ``PreToolUse`` on ``Bash`` and ``Monitor``, and ``SessionStart``.

Protocol (https://code.claude.com/docs/en/hooks): JSON on stdin with
``hook_event_name``, ``cwd`` (the session's current directory, which is the
viewpoint), ``tool_name`` and ``tool_input.command``. ``Monitor`` runs its
``command`` under the Bash permission rules (Claude Code's tools reference), so
it is matched and read like ``Bash``. The answer is exit 0 and
a ``hookSpecificOutput`` object on stdout:

- stop: ``permissionDecision: "deny"``, the reason goes to Claude;
- ask: ``permissionDecision: "ask"``, the reason goes to the user, and the same
  text as ``additionalContext`` goes to Claude next to the tool result;
- a note (foreign contention, or a same-checkout warning): ``additionalContext``
  alone, with no ``permissionDecision`` at all;
- nothing to say: no output.

Settings: ``.claude/settings.json`` in the project (``.claude/settings.local.json``
for the local scope), ``~/.claude/settings.json`` (or ``$CLAUDE_CONFIG_DIR``)
for the user.
"""

from __future__ import annotations

from runctx.hooks.agents.base import (
    HookEntry,
    InstallSpec,
    Replies,
    SessionFace,
    SettingsFiles,
    ToolFace,
)
from runctx.hooks.payload import (
    directory,
    expect_event,
    required_text,
    session_id,
    shell_tool_input,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.hooks.agents.base import JSONObject

NAME = "claude"
KIND = "claude-code"
"""The kind a run started by this agent's shell tool has (:mod:`runctx.started_by`)."""
TITLE = "Claude Code"
SHELL_TOOL = "Bash"
SHELL_TOOLS = ("Bash", "Monitor")
"""The tools whose ``command`` Claude Code runs in a shell: what the matcher names."""
HOOK_TIMEOUT_SECONDS = 20
"""The timeout the installed hooks get: the hook decides within its own 10 s deadline
(:data:`runctx.fastpath.hook.DEFAULT_DEADLINE_SECONDS`), which leaves 10 s for the
interpreter to start and the reply to be read on a saturated box."""


def read_pre_tool(payload: JSONObject, face: str = NAME) -> tuple[str, str] | None:
    """The shell command and the directory it runs in, or None for another tool."""
    expect_event(payload, "PreToolUse", face)
    named = payload.get("tool_name")
    tool = named if isinstance(named, str) and named in SHELL_TOOLS else SHELL_TOOL
    found = shell_tool_input(payload, tool)
    return None if found is None else found[:2]


def _pre_tool(fields: JSONObject) -> JSONObject:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", **fields}}


REPLIES = Replies(
    deny=lambda message, _summary: _pre_tool(
        {"permissionDecision": "deny", "permissionDecisionReason": message}
    ),
    ask=lambda message, _summary: _pre_tool(
        {
            "permissionDecision": "ask",
            "permissionDecisionReason": message,
            "additionalContext": message,
        }
    ),
    note=lambda message, _summary: _pre_tool({"additionalContext": message}),
)


def read_session(payload: JSONObject, face: str = f"{NAME}-session-start") -> str:
    """The directory the session starts in."""
    expect_event(payload, "SessionStart", face)
    return directory(required_text(payload, "cwd"))


def session_reply(context: str) -> JSONObject:
    """The SessionStart answer that adds ``context`` for the model."""
    return {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}}


def read_session_id(payload: JSONObject) -> str | None:
    """The session the payload comes from, None when it names none."""
    return session_id(payload, "session_id")


PRE_TOOL_FACE = ToolFace(read_pre_tool, REPLIES)
AFTER_TOOL_FACE = None
SESSION_FACE = SessionFace(read_session, session_reply)

INSTALL = InstallSpec(
    layout="grouped",
    entries=(
        HookEntry("PreToolUse", NAME, matcher="|".join(SHELL_TOOLS)),
        HookEntry("SessionStart", f"{NAME}-session-start"),
    ),
    timeout=HOOK_TIMEOUT_SECONDS,
)
FILES = SettingsFiles(
    project=".claude/settings.json",
    local=".claude/settings.local.json",
    user_dir_env="CLAUDE_CONFIG_DIR",
    user_dir=".claude",
    user_name="settings.json",
)
AFTER_INSTALL = "Claude Code reads hooks at startup: restart the session (or open /hooks)."
